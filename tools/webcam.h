/* SPDX-License-Identifier: MIT */
/*
 * The webcam path (camera, tuning, 3A, pacing, packing into the device's
 * layout) as `cisp webcam` runs it, also for `cisp conform`'s measurements
 * of it (docs/webcam.md).
 */
#ifndef CISP_TOOLS_WEBCAM_H
#define CISP_TOOLS_WEBCAM_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/camera.h>
#include <cisp/iq_report.h>

struct webcam_options {
	const char *camera;         /* required */
	const char *device;         /* "/dev/videoN"; NULL: the first v4l2loopback device; "none": no device */
	const char *mode;           /* sensor mode name or index; NULL: the smallest that fits */
	const char *tuning;         /* NULL: found by sensor model */
	const char *sensor_options; /* "key=value,..." or NULL */
	uint32_t width, height;     /* 0: 1280x720 */
	uint32_t pixelformat;       /* CISP_V4L2_OUTPUT_YUYV (default) or _NV12 */
	double fps;                 /* the frame rate kept (default 30) */
	double min_fps;             /* the lowest it may drop to in low light; 0: fps */
	unsigned long frames;       /* stop after this many frames written; 0: until a signal */
	bool quiet;                 /* no periodic report */
	double faces;               /* face detections a second at most (docs/faces.md); 0: off */
	bool eis;                   /* stabilise from the gyroscope (docs/eis.md), if the sensor has one */
	unsigned long settle;       /* frames written first and left out of the report's rate, frames left out
				       and latency (the 3A's start); 0: none */
	const struct cisp_camera_face *meter; /* read the mean luma of this rectangle of the measured frames
						 (webcam_report.face_luma); NULL: of the largest face found */
};

/* What a run measured. */
struct webcam_report {
	unsigned long written;      /* frames handed to the device */
	unsigned long dropped;      /* sensor frames left out to keep the rate */
	unsigned long lost;         /* black frames written while the camera was lost */
	double seconds;             /* from the first written frame to the last */
	double fps;                 /* (written - 1) / seconds: the rate the device got */
	double latency_p50_ms;      /* start of sensor readout to the frame written; < 0: not measured */
	double latency_p99_ms;
	double frame_duration_ms;   /* the sensor's frame duration of the last frame (metadata) */
	double frame_duration_max_ms; /* the longest of all frames */
	double cpu_ms_per_frame;    /* CPU time of the process (all threads) per frame written */
	double analogue_gain;       /* of the last frame */
	double digital_gain;        /* sensor and ISP digital gain of the last frame */
	unsigned long settle_dropped; /* sensor frames left out while the first o->settle frames were written */
	/*
	 * Residual motion of the still scene from one sensor frame to the next, RMS
	 * output pixels, from the virtual sensor's true hand shake (option shake)
	 * and, with EIS, the window the stage cut (docs/eis.md); < 0: not measured
	 * (not a virtual sensor, or no two consecutive frames written).
	 */
	double motion_rms_px;
	unsigned long motion_pairs; /* consecutive frame pairs in it */
	unsigned long face_frames;  /* measured frames with a face (face detection on) */
	struct cisp_camera_face face; /* the largest face of the last measured frame with one */
	double face_luma;           /* mean Y (0..255) of the central 60% of o->meter, or of the frame's largest
				       face, in the last measured frame that had one; < 0: none */
};

/*
 * The video-conferencing profile's webcam runs (docs/conformance.md): the
 * virtual sensor cisp-8m10 at 1280x720 YUYV and 30 fps in a dim room with
 * hand shake, WEBCAM_SETTLE frames for the 3A's start then WEBCAM_FRAMES
 * measured, EIS off then on; the residual motion from runs that take every
 * sensor frame (a real-time sensor left out frames between those a loaded
 * machine took, so that no two followed each other); and a backlit portrait
 * with face priority on then off.
 */
#define WEBCAM_FPS 30.0
#define WEBCAM_FRAMES 150
#define WEBCAM_SETTLE 60
#define WEBCAM_LUX "50"
#define WEBCAM_SHAKE "6"           /* hand shake, sensor pixels (the virtual sensor's option) */
#define WEBCAM_MAX_P50_MS 80.0
#define WEBCAM_MAX_P99_MS 120.0
#define WEBCAM_MAX_MOTION_PX 0.5   /* residual motion with EIS, RMS output pixels a frame */
#define WEBCAM_MOTION_SETTLE 15    /* frames of the motion runs before those measured */
#define WEBCAM_MOTION_FRAMES 30
#define WEBCAM_MIN_FACE_SHARE 0.8  /* measured frames of the portrait with a face found */
#define WEBCAM_MIN_FACE_LUMA 70.0  /* the face's mean Y with face priority: 0.18 grey is about 110 */
#define WEBCAM_MAX_FACE_LUMA 170.0

/* What the profile's runs measured. */
struct webcam_conformance {
	struct webcam_report eis_off, eis_on; /* the dim room with hand shake, in real time */
	struct webcam_report motion_off, motion_on; /* the same, every sensor frame (not in real time): the
						       residual motion, EIS off and on */
	struct webcam_report faces;           /* the portrait, face priority on */
	struct webcam_report no_faces;        /* the same without, metering the face found with it */
	char faces_error[256];                /* why the portrait's runs did not run; "" when they did */
};

/* Add the checks (and info lines, printed too) of @c to @r. */
void webcam_conformance_check(struct cisp_iq_report *r, const struct webcam_conformance *c);

/*
 * Run the webcam path with @o until @o->frames are written or SIGINT/SIGTERM;
 * 0, or 1 after printing why (2 for bad options).
 */
int webcam_run(const struct webcam_options *o, struct webcam_report *report);

#endif
