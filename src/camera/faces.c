/* SPDX-License-Identifier: MIT */
/*
 * Face detection off the frame path (docs/faces.md). After each completed
 * frame the camera thread records the latest faces as that frame's, hands
 * them to the control loop, and, when the detector thread is idle and its
 * period has passed, leaves it a downscaled luma copy of the frame's
 * preview (or main) output. The detector thread runs the cascade on the
 * copy and publishes the faces it found; no frame ever waits for it.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cisp/format.h>

#include "camera_internal.h"
#include "control/faces.h"
#include "core/error_internal.h"
#include "faces/detector.h"

/* Frames whose faces are kept for cisp_camera_request_faces(). */
#define HISTORY 64
/* The luma copy is the output box-averaged by a whole factor to at most this width. */
#define DETECT_WIDTH 320
/* The smallest face looked for, pixels of the copy: the cascade's own window. */
#define MIN_FACE 20
/* Detections in a row that may miss a face before it is dropped: a face near the size limits comes and goes. */
#define MISSES_KEPT 2

/* The faces of one frame. */
struct face_set {
	bool valid;
	uint64_t sequence;
	unsigned count;
	struct cisp_camera_face face[CISP_CAMERA_MAX_FACES];
};

/* A face as the detector found it: fractions of the sensor frame. */
struct found_face {
	struct control_face rect;
	double confidence;
};

struct camera_faces {
	double rate_hz;
	struct face_detector *detector;
	pthread_t thread;
	bool running;

	/* Guarded by lock. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stopping;
	bool busy;                     /* the copy waits for, or is in, the detector */
	bool have_found;               /* @found holds a detection's result */
	uint64_t found_sequence;       /* the frame it was run on */
	unsigned found_count;
	unsigned misses;               /* detections in a row that found none while @found holds faces */
	struct found_face found[CISP_CAMERA_MAX_FACES];
	struct face_set history[HISTORY];
	uint64_t detections, detect_ns; /* for benchmarks: how many ran, and their time */

	/* The copy, written by the camera thread only while !busy. */
	uint8_t *luma;
	unsigned width, height;
	uint64_t sequence;             /* the frame it is of */
	struct cisp_stream_config source; /* the stream it was taken from: its size and crop */
	unsigned factor;               /* output pixels per copy pixel, each way */
	uint64_t last_start_ns;        /* when the camera thread last handed one over */
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The sensor-frame fraction of stream @s's crop, along x (@x) or y. */
static void crop_span(const struct cisp_stream_config *s, const struct cisp_sensor_mode *mode, bool x, double *start,
		      double *length)
{
	double size = x ? mode->width : mode->height;
	uint32_t crop = x ? s->crop_width : s->crop_height;

	*start = crop ? (x ? s->crop_x : s->crop_y) / size : 0;
	*length = crop ? crop / size : 1;
}

static void *detector_thread(void *arg)
{
	struct cisp_camera *cam = arg;
	struct camera_faces *f = cam->faces;
	struct face_box boxes[CISP_CAMERA_MAX_FACES];

	pthread_mutex_lock(&f->lock);
	for (;;) {
		while (!f->stopping && !f->busy)
			pthread_cond_wait(&f->cond, &f->lock);
		if (f->stopping)
			break;
		pthread_mutex_unlock(&f->lock);

		uint64_t t0 = now_ns();
		int n = face_detector_find(f->detector, f->luma, f->width, f->height, f->width, MIN_FACE, boxes,
					   CISP_CAMERA_MAX_FACES);
		uint64_t spent = now_ns() - t0;
		double sx, sw, sy, sh;
		crop_span(&f->source, &cam->mode, true, &sx, &sw);
		crop_span(&f->source, &cam->mode, false, &sy, &sh);
		/* Copy pixels to fractions of the stream, then of the sensor frame through the stream's crop. */
		double kx = (double)f->factor / f->source.width, ky = (double)f->factor / f->source.height;

		pthread_mutex_lock(&f->lock);
		f->detections++;
		f->detect_ns += spent;
		if (n == 0 && f->found_count && f->misses < MISSES_KEPT) {
			f->misses++; /* the faces stay, ageing */
		} else if (n >= 0) {
			f->misses = 0;
			f->found_count = (unsigned)n;
			for (int i = 0; i < n; i++)
				f->found[i] = (struct found_face){
					{ sx + boxes[i].x * kx * sw, sy + boxes[i].y * ky * sh, boxes[i].width * kx * sw,
					  boxes[i].height * ky * sh },
					boxes[i].confidence };
			f->found_sequence = f->sequence;
			f->have_found = true;
		}
		/* A failed detection keeps the faces before it: they age, and the next one may succeed. */
		f->busy = false;
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

int cisp_camera_detect_faces(struct cisp_camera *cam, double rate_hz)
{
	struct camera_faces *f;
	int r;

	if (cam->started)
		return cisp_error(-EBUSY, "camera %s: face detection is switched while stopped", cam->name);
	if (!(rate_hz >= 0 && rate_hz <= 1000))
		return cisp_error(-EINVAL, "camera %s: face detection rate %g Hz is not within 0..1000", cam->name,
				  rate_hz);
	if (rate_hz == 0) {
		camera_faces_free(cam);
		if (cam->loop)
			control_set_faces(cam->loop, NULL); /* the loop meters as before */
		return 0;
	}
	if (cam->faces) {
		cam->faces->rate_hz = rate_hz;
		return 0;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return cisp_error(-ENOMEM, "out of memory for face detection");
	r = face_detector_create(&f->detector, NULL);
	if (r) {
		free(f);
		return cisp_error_prefix(r, "camera %s", cam->name);
	}
	f->rate_hz = rate_hz;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	cam->faces = f;
	return 0;
}

int camera_faces_start(struct cisp_camera *cam)
{
	struct camera_faces *f = cam->faces;

	if (!f)
		return 0;
	pthread_mutex_lock(&f->lock);
	memset(f->history, 0, sizeof(f->history));
	f->have_found = f->busy = f->stopping = false;
	f->found_count = f->misses = 0;
	f->last_start_ns = 0;
	pthread_mutex_unlock(&f->lock);
	if (pthread_create(&f->thread, NULL, detector_thread, cam))
		return cisp_error(-EAGAIN, "camera %s: cannot start the face detection thread", cam->name);
	f->running = true;
	return 0;
}

void camera_faces_stop(struct cisp_camera *cam)
{
	struct camera_faces *f = cam->faces;

	if (!f || !f->running)
		return;
	pthread_mutex_lock(&f->lock);
	f->stopping = true;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	pthread_join(f->thread, NULL);
	f->running = false;
}

void camera_faces_free(struct cisp_camera *cam)
{
	struct camera_faces *f = cam->faces;

	if (!f)
		return;
	camera_faces_stop(cam);
	face_detector_destroy(f->detector);
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
	free(f->luma);
	free(f);
	cam->faces = NULL;
}

/* The luma (0..255) of pixel @x of a row of an output image in @format. */
static unsigned pixel_luma(uint32_t format, const uint8_t *row, unsigned x)
{
	const uint8_t *p;

	switch (format) {
	case CISP_FMT_RGB888:
		p = row + 3 * x;
		return (54u * p[0] + 183u * p[1] + 19u * p[2]) >> 8;
	case CISP_FMT_XBGR32:
		p = row + 4 * x;
		return (54u * p[2] + 183u * p[1] + 19u * p[0]) >> 8;
	case CISP_FMT_RGB48:
		p = row + 6 * x; /* the high byte of each little-endian sample */
		return (54u * p[1] + 183u * p[3] + 19u * p[5]) >> 8;
	default: /* NV12, I420: the Y plane */
		return row[x];
	}
}

/* Box-average @img into the copy; 0 or -ENOMEM. */
static int take_copy(struct camera_faces *f, const struct cisp_image *img)
{
	unsigned k = (img->width + DETECT_WIDTH - 1) / DETECT_WIDTH;
	unsigned w = img->width / k, h = img->height / k;

	if (w * h > f->width * f->height || !f->luma) {
		uint8_t *luma = realloc(f->luma, (size_t)w * h);
		if (!luma)
			return -ENOMEM;
		f->luma = luma;
	}
	for (unsigned y = 0; y < h; y++) {
		for (unsigned x = 0; x < w; x++) {
			unsigned sum = 0;
			for (unsigned j = 0; j < k; j++) {
				const uint8_t *row = img->plane[0].data + (size_t)(y * k + j) * img->plane[0].stride;
				for (unsigned i = 0; i < k; i++)
					sum += pixel_luma(img->format, row, x * k + i);
			}
			f->luma[(size_t)y * w + x] = (uint8_t)(sum / (k * k));
		}
	}
	f->width = w;
	f->height = h;
	f->factor = k;
	return 0;
}

/* A face of the sensor frame in pixels of the main stream. */
static struct cisp_camera_face to_main(const struct cisp_camera *cam, const struct found_face *ff)
{
	const struct cisp_stream_config *m = &cam->config.stream[CISP_STREAM_MAIN];
	double sx, sw, sy, sh;

	crop_span(m, &cam->mode, true, &sx, &sw);
	crop_span(m, &cam->mode, false, &sy, &sh);
	return (struct cisp_camera_face){
		.x = (int32_t)lround((ff->rect.x - sx) / sw * m->width),
		.y = (int32_t)lround((ff->rect.y - sy) / sh * m->height),
		.width = (int32_t)lround(ff->rect.width / sw * m->width),
		.height = (int32_t)lround(ff->rect.height / sh * m->height),
		.confidence = ff->confidence,
	};
}

void camera_faces_frame(struct cisp_camera *cam, const struct cisp_camera_request *req)
{
	struct camera_faces *f = cam->faces;
	uint64_t seq = req->metadata.sequence;
	struct control_faces loop_faces = { 0 };

	if (!f || req->status)
		return;
	pthread_mutex_lock(&f->lock);
	struct face_set *set = &f->history[seq % HISTORY];
	*set = (struct face_set){ .valid = true, .sequence = seq };
	if (f->have_found) {
		set->count = loop_faces.count = f->found_count;
		for (unsigned i = 0; i < f->found_count; i++) {
			set->face[i] = to_main(cam, &f->found[i]);
			set->face[i].sequence = f->found_sequence;
			set->face[i].age = (uint32_t)(seq - f->found_sequence);
			loop_faces.face[i] = f->found[i].rect;
		}
	}
	bool idle = !f->busy;
	pthread_mutex_unlock(&f->lock);
	control_set_faces(cam->loop, &loop_faces);

	/* The next detection, on this frame's preview (or main) output, once the period has passed. */
	uint64_t now = now_ns();
	if (!idle || (f->last_start_ns && (double)(now - f->last_start_ns) < 1e9 / f->rate_hz))
		return;
	unsigned s = cam->config.stream[CISP_STREAM_PREVIEW].format ? CISP_STREAM_PREVIEW : CISP_STREAM_MAIN;
	const struct cisp_image *img = req->buffer[s] ? req->buffer[s] : &cam->scratch[s];
	if (take_copy(f, img))
		return; /* out of memory: no detection this time, the frames go on */
	f->source = cam->config.stream[s];
	f->sequence = seq;
	f->last_start_ns = now;
	pthread_mutex_lock(&f->lock);
	f->busy = true;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

int cisp_camera_request_faces(struct cisp_camera *cam, const struct cisp_camera_request *req,
			      struct cisp_camera_face *faces, unsigned max)
{
	struct camera_faces *f = cam->faces;
	uint64_t seq = req->metadata.sequence;
	int n;

	if (!f)
		return cisp_error(-ENODATA, "camera %s: face detection is off", cam->name);
	pthread_mutex_lock(&f->lock);
	const struct face_set *set = &f->history[seq % HISTORY];
	if (!set->valid || set->sequence != seq) {
		pthread_mutex_unlock(&f->lock);
		return cisp_error(-ENOENT, "camera %s: frame %llu is not among the last %d completed", cam->name,
				  (unsigned long long)seq, HISTORY);
	}
	n = (int)set->count;
	for (unsigned i = 0; i < set->count && i < max; i++)
		faces[i] = set->face[i];
	pthread_mutex_unlock(&f->lock);
	return n;
}

void camera_faces_cost(const struct cisp_camera *cam, uint64_t *detections, uint64_t *detect_ns)
{
	struct camera_faces *f = cam->faces;

	*detections = *detect_ns = 0;
	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	*detections = f->detections;
	*detect_ns = f->detect_ns;
	pthread_mutex_unlock(&f->lock);
}
