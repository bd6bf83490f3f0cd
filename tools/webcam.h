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
};

/*
 * Run the webcam path with @o until @o->frames are written or SIGINT/SIGTERM;
 * 0, or 1 after printing why (2 for bad options).
 */
int webcam_run(const struct webcam_options *o, struct webcam_report *report);

#endif
