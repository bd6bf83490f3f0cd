/* SPDX-License-Identifier: MIT */
/* The camera's state, shared by the files of src/camera. */
#ifndef CISP_CAMERA_INTERNAL_H
#define CISP_CAMERA_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <cisp/burst.h>
#include <cisp/camera.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>
#include <cisp/tuning.h>

/* A camera of the configuration file. */
struct camera_entry {
	char name[128];
	char sensor[128];
	char options[512];
	char tuning[512];
	char description[128];
};

struct cisp_camera_manager {
	struct camera_entry *entries; /* from the configuration file */
	unsigned num_entries;
	struct cisp_device *device;
	bool owns_device;
	unsigned open_cameras; /* guarded by lock */
	unsigned next_id;      /* numbers context names; guarded by lock */
	pthread_mutex_t lock;
};

/* A FIFO of request pointers; grows as needed. */
struct request_fifo {
	struct cisp_camera_request **item;
	size_t head, count, capacity;
};

struct cisp_camera {
	struct cisp_camera_manager *manager;
	char name[128];
	unsigned id;
	int priority;
	struct cisp_sensor *sensor;
	struct cisp_tuning *tuning;

	/* Set by cisp_camera_configure(). */
	bool configured;
	struct cisp_camera_config config;
	struct cisp_sensor_mode mode;
	uint32_t raw_format;            /* the ISP's input format */
	struct cisp_context *ctx;
	struct cisp_control *loop;
	struct cisp_image raw[2];       /* frames copied when a request has no raw buffer, one per frame in flight */
	struct cisp_image scratch[CISP_MAX_OUTPUTS]; /* outputs a request does not want */
	struct cisp_stats *stats;
	struct cisp_image bracket_raw[CISP_BRACKET_MAX_FRAMES]; /* a bracket's frames, allocated on its first use */
	struct cisp_image burst[CISP_BURST_MAX_FRAMES]; /* a burst's frames after the first, made at the first burst */
	struct cisp_pool *burst_pool;   /* the merge's threads, made at the first burst */
	struct camera_eis *eis;         /* stabilisation (eis.c), NULL when off */

	/* Per-frame state, owned by the camera thread while started. */
	struct cisp_param_state params; /* the ISP state the loop asked for, with the camera's crops */
	void *delta;                    /* params buffer for the next job */
	size_t delta_size, delta_capacity;
	uint32_t delta_blocks;          /* the blocks it holds */
	bool noise_lowered;             /* the context has a merged burst's noise profile */
	struct cisp_ltm_params bracket_ltm; /* the next bracket's LTM grid, from the last merged frame */
	bool bracket_ltm_ready;         /* @bracket_ltm holds a grid */
	double next_ct, next_gains[2];  /* colour the next job applies */
	double next_ccm[9];

	/* Requests; guarded by lock. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct request_fifo pending;    /* queued, not started */
	struct request_fifo done;       /* completed, for cisp_camera_wait() */
	struct cisp_camera_request *current; /* the one being processed */
	struct cisp_camera_request *ahead;   /* the next one, its frame taken while the ISP works on current */
	bool started, stopping;
	pthread_t thread;

	struct camera_faces *faces;     /* face detection (faces.c), NULL while off */
};

/* src/camera/fifo.c */
int fifo_push(struct request_fifo *f, struct cisp_camera_request *req);
struct cisp_camera_request *fifo_pop(struct request_fifo *f);
bool fifo_contains(const struct request_fifo *f, const struct cisp_camera_request *req);
void fifo_free(struct request_fifo *f);

/* src/camera/config_file.c */
/*
 * Add the cameras of configuration text @text (@length bytes, named @path in
 * messages) to @m->entries; -EINVAL naming the line. On error the entries
 * read so far stay in @m (the caller frees m->entries).
 */
int camera_config_parse(struct cisp_camera_manager *m, const char *path, const char *text, size_t length);

/* Read the configuration file's cameras into @m->entries; -EINVAL naming the line. */
int camera_config_file_load(struct cisp_camera_manager *m, const char *path);
/* The configured camera called @name, or NULL. */
const struct camera_entry *camera_config_file_find(const struct cisp_camera_manager *m, const char *name);

/* A frame on its way through the camera thread: taken from the sensor, then through the ISP. */
struct camera_frame {
	struct cisp_camera_request *req;
	unsigned slot;                 /* which of cam->raw[] it may use */
	struct cisp_image *raw;        /* what the ISP reads */
	struct cisp_image view;        /* the sensor's own buffer, when it lent one */
	bool lent;
	struct cisp_sensor_metadata md;
	double variance_factor;        /* a merged burst's noise variance relative to one frame; 0: no burst */
	struct cisp_fence *fence;      /* the ISP job's, once submitted */
	struct cisp_job_result result;
};

/* src/camera/frame.c */
/* Program the sensor and the first params delta from the loop's start result. */
int camera_frame_start(struct cisp_camera *cam);
/*
 * Give @f->req's controls to the loop and take its frame from the sensor:
 * imported from the sensor's buffer when it lends one, else captured.
 * @flags: CISP_SENSOR_AHEAD for a frame taken while the previous one is in
 * the ISP. A failure completes the request's status and message.
 */
void camera_frame_take(struct cisp_camera *cam, struct camera_frame *f, unsigned flags);
/* A job's outputs (the request's buffers, else the camera's), statistics and pending params delta. */
void camera_job_outputs(struct cisp_camera *cam, const struct cisp_camera_request *req, struct cisp_job *job);
/* Submit @f's ISP job with the parameter changes the loop asked for so far (nothing after a failure). */
void camera_frame_submit(struct cisp_camera *cam, struct camera_frame *f);
/*
 * Wait for @f's job, give the sensor its buffer back, run the loop on the
 * statistics and apply its decisions; fills the request's metadata.
 */
void camera_frame_finish(struct cisp_camera *cam, struct camera_frame *f);
/*
 * Run the loop on cam->stats of the frame (or merged bracket) described by
 * @md, queue its sensor controls and take its parameters for the next job;
 * fills @req's control metadata, or fails it.
 */
void camera_frame_control(struct cisp_camera *cam, struct cisp_camera_request *req,
			  const struct cisp_sensor_metadata *md);
/* Fill @m from the sensor metadata @md and the colour the next job applies. */
void camera_frame_metadata(struct cisp_camera *cam, struct cisp_camera_metadata *m,
			   const struct cisp_sensor_metadata *md);
/* Complete @req with error @r and the thread's last error message. */
void camera_request_fail(struct cisp_camera_request *req, int r);

/* src/camera/bracket.c */
/* Check a request's exposure bracket; -EINVAL naming the value. */
int camera_bracket_check(const struct cisp_camera *cam, const struct cisp_camera_request *req);
/* Capture @req's bracket, merge it in one ISP job, run the loop on it; a failure fails @req. */
void camera_bracket_run(struct cisp_camera *cam, struct cisp_camera_request *req);
/* Free the bracket's frame buffers. */
void camera_bracket_free(struct cisp_camera *cam);

/* Encode @blocks of cam->params as the next job's delta. */
int camera_encode_delta(struct cisp_camera *cam, uint32_t blocks);

/* src/camera/burst_capture.c */
/* Check a request's burst count against the camera; -EINVAL with a message. */
int camera_burst_check(const struct cisp_camera *cam, const struct cisp_camera_request *req);
/*
 * Take @f->req's burst from the sensor and merge it into the frame the ISP
 * reads (@f->raw); sets @f->md (the first frame's) and @f->variance_factor.
 * Return: 0 or a negative errno with a message.
 */
int camera_burst_take(struct cisp_camera *cam, struct camera_frame *f, unsigned flags);
/*
 * Encode the pending delta again with the NOISE block: lowered for @f's
 * merged burst, or the loop's own after one.
 */
int camera_burst_encode_noise(struct cisp_camera *cam, const struct camera_frame *f);
/* Free the burst buffers and threads. */
void camera_burst_free(struct cisp_camera *cam);

/* src/camera/config.c */
/* The ISP configuration of camera configuration @config in sensor mode @mode. */
void camera_isp_config(const struct cisp_camera_config *config, const struct cisp_sensor_mode *mode,
		       struct cisp_isp_config *isp);
/* Check @config against the camera's sensor and the ISP; -EINVAL with a message. */
int camera_config_check(struct cisp_camera *cam, const struct cisp_camera_config *config,
			struct cisp_sensor_mode *mode);
/* Check a request's buffers against the configuration. */
int camera_request_check(const struct cisp_camera *cam, const struct cisp_camera_request *req);

/* src/camera/faces.c */
/* Start the face detection thread, if detection is on; 0 or -EAGAIN. */
int camera_faces_start(struct cisp_camera *cam);
/* Stop it (the camera thread has stopped). */
void camera_faces_stop(struct cisp_camera *cam);
/* Stop and free face detection: it is off after. */
void camera_faces_free(struct cisp_camera *cam);
/*
 * After @req's frame completed: record the latest faces as its own, hand
 * them to the control loop, and start a detection on its output when due.
 */
void camera_faces_frame(struct cisp_camera *cam, const struct cisp_camera_request *req);
/* Detections run since face detection was turned on, and their time (benchmarks). */
void camera_faces_cost(const struct cisp_camera *cam, uint64_t *detections, uint64_t *detect_ns);

/* src/camera/eis.c */
/* Whether the ISP can render @config's processed streams with the EIS margins (0 when EIS is off). */
int camera_eis_check(const struct cisp_camera *cam, const struct cisp_camera_config *config,
		     const struct cisp_sensor_mode *mode);
/* Give @isp's processed outputs the EIS margins and make the stage's buffers (nothing when EIS is off). */
int camera_eis_configure(struct cisp_camera *cam, struct cisp_isp_config *isp);
/* The image with margins ISP output @output (main, preview) goes to, or NULL when EIS is off. */
struct cisp_image *camera_eis_output(struct cisp_camera *cam, unsigned output);
/* Cut @req's processed buffers out of the images with margins along the smoothed path; a failure fails @req. */
void camera_eis_apply(struct cisp_camera *cam, struct cisp_camera_request *req);
/* Free what camera_eis_configure() made. */
void camera_eis_unconfigure(struct cisp_camera *cam);
/* Free the stage. */
void camera_eis_free(struct cisp_camera *cam);

#endif
