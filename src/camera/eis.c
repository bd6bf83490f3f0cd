/* SPDX-License-Identifier: MIT */
/*
 * The camera's EIS stage (docs/eis.md): the ISP renders the processed
 * streams with a margin on each side; after the ISP, the camera path from
 * the gyroscope, smoothed by a causal filter, says where in them each band
 * of rows of the asked size is cut.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cisp/eis.h>
#include <cisp/format.h>

#include "camera_internal.h"
#include "core/error_internal.h"

#define EIS_HISTORY 16
#define EIS_THREADS 2
#define EIS_MAX_GAP_NS 1000000000ull /* a longer pause starts the path afresh */

/* One processed output (main, preview), rendered with margins by the ISP. */
struct eis_output {
	struct cisp_image frame;         /* the ISP's output; not allocated for a stream that is off */
	uint32_t step_x, step_y;         /* the warp's steps, 1/65536 */
	uint32_t centre_x, centre_y;     /* a still camera's window position, 1/256 pixels; the range is twice it */
	double scale_x, scale_y;         /* the ISP output's pixels per sensor pixel */
};

struct camera_eis {
	struct cisp_eis_config config;
	struct cisp_gyro_info gyro;

	/* Set at configure. */
	struct eis_output out[2];
	uint32_t crop_y; /* the main stream's first sensor row */
	struct cisp_pool *pool;

	/* The camera path, sensor pixels: integrated (path) and smoothed twice. */
	bool running;
	uint64_t t_ns; /* time up to which the path is integrated */
	double path[2], smooth1[2], smooth2[2];

	struct cisp_eis_frame history[EIS_HISTORY]; /* the main stream's */
};

static int check_config(const struct cisp_eis_config *c)
{
	if (c->margin && (c->margin < 0.02 || c->margin > 0.25))
		return cisp_error(-EINVAL, "eis: margin %g is outside 0.02..0.25", c->margin);
	if (c->smoothing_s && (c->smoothing_s < 0.02 || c->smoothing_s > 5))
		return cisp_error(-EINVAL, "eis: smoothing %g s is outside 0.02..5", c->smoothing_s);
	if (c->bands > CISP_EIS_MAX_BANDS)
		return cisp_error(-EINVAL, "eis: %u bands, more than %d", c->bands, CISP_EIS_MAX_BANDS);
	return 0;
}

/* An even margin of @share of @size. */
static uint32_t even_margin(uint32_t size, double share)
{
	return 2 * (uint32_t)lround(size * share / 2);
}

/*
 * The geometry of a stream with margins: the ISP renders the field of view
 * of @size + 2 margins at that size when the sensor's @crop has the pixels
 * (the warp then keeps the scale), else at the crop's size (the warp
 * enlarges). The ISP's size goes to @isp_size, the warp's step to @step.
 */
static void with_margins(uint32_t size, uint32_t crop, double margin, uint32_t *isp_size, uint32_t *step)
{
	uint32_t wanted = size + 2 * even_margin(size, margin);

	*isp_size = wanted <= crop ? wanted : crop & ~1u;
	*step = (uint32_t)((65536ull * *isp_size + wanted / 2) / wanted);
}

/*
 * The largest band position, 1/256 pixels, at which every plane's last of
 * @size output pixels reads inside the @isp_size input (cisp_eis_warp()).
 */
static uint32_t max_position(uint32_t size, uint32_t isp_size, uint32_t step, bool subsampled)
{
	int64_t luma = (((int64_t)isp_size - 1) * 65536 - ((int64_t)size - 1) * step) / 256;
	int64_t chroma = 2 * ((((int64_t)isp_size / 2 - 1) * 65536 - ((int64_t)size / 2 - 1) * step) / 256) + 1;
	int64_t m = subsampled && chroma < luma ? chroma : luma;

	return m > 0 ? (uint32_t)m : 0;
}

/* Give @isp the processed outputs of @config with margins of @margin; -EINVAL for what EIS cannot take. */
static int add_margins(const struct cisp_camera *cam, const struct cisp_camera_config *config,
		   const struct cisp_sensor_mode *mode, double margin, struct cisp_isp_config *isp)
{
	for (unsigned i = 0; i < 2; i++) {
		const struct cisp_stream_config *s = &config->stream[i];
		struct cisp_output_config *o = &isp->output[i];
		uint32_t step;

		if (!s->format)
			continue;
		if (s->format == CISP_FMT_RGB48)
			return cisp_error(-EINVAL, "camera %s: the %s stream is RGB48; EIS takes NV12, I420, RGB888 or XBGR32",
					  cam->name, cisp_camera_stream_name(i));
		with_margins(s->width, s->crop_width ? s->crop_width : mode->width, margin, &o->width, &step);
		with_margins(s->height, s->crop_height ? s->crop_height : mode->height, margin, &o->height, &step);
	}
	return 0;
}

/* Whether the ISP can render @config's processed streams with margins of @margin. */
static int check_margins(const struct cisp_camera *cam, const struct cisp_camera_config *config,
			  const struct cisp_sensor_mode *mode, double margin)
{
	struct cisp_isp_config isp;
	int r;

	camera_isp_config(config, mode, &isp);
	r = add_margins(cam, config, mode, margin, &isp);
	if (!r)
		r = cisp_isp_check_config(&isp);
	return r ? cisp_error_prefix(r, "EIS") : 0;
}

int camera_eis_check(const struct cisp_camera *cam, const struct cisp_camera_config *config,
		     const struct cisp_sensor_mode *mode)
{
	return cam->eis ? check_margins(cam, config, mode, cam->eis->config.margin) : 0;
}

int cisp_camera_set_eis(struct cisp_camera *cam, const struct cisp_eis_config *config)
{
	struct cisp_eis_config c = config ? *config : (struct cisp_eis_config){ 0 };
	struct cisp_gyro_info gyro;
	struct cisp_camera_config again;
	int r;

	if (cam->started)
		return cisp_error(-EBUSY, "camera %s: EIS set while started", cam->name);
	r = check_config(&c);
	if (r)
		return r;
	c.margin = c.margin ? c.margin : 0.1;
	c.smoothing_s = c.smoothing_s ? c.smoothing_s : 0.25;
	c.bands = c.bands ? c.bands : 16;
	if (c.enable) {
		r = cisp_sensor_gyro_info(cam->sensor, &gyro);
		if (r)
			return cisp_error(r, "camera %s: EIS needs a gyroscope, and sensor %s has none (image-based motion "
					  "estimation is not implemented): EIS stays off",
					  cam->name, cisp_sensor_info(cam->sensor)->name);
		/* Every check before anything changes. */
		r = cam->configured ? check_margins(cam, &cam->config, &cam->mode, c.margin) : 0;
		if (r)
			return r;
		if (!cam->eis) {
			cam->eis = calloc(1, sizeof(*cam->eis));
			if (!cam->eis)
				return cisp_error(-ENOMEM, "out of memory for EIS");
		}
		cam->eis->config = c;
		cam->eis->gyro = gyro;
	} else if (cam->eis) {
		camera_eis_free(cam);
	} else {
		return 0; /* off, and it was */
	}
	if (!cam->configured)
		return 0;
	again = cam->config;
	return cisp_camera_configure(cam, &again);
}

void camera_eis_free(struct cisp_camera *cam)
{
	if (!cam->eis)
		return;
	camera_eis_unconfigure(cam);
	free(cam->eis);
	cam->eis = NULL;
}

void camera_eis_unconfigure(struct cisp_camera *cam)
{
	if (!cam->eis)
		return;
	for (unsigned i = 0; i < 2; i++)
		cisp_image_free(&cam->eis->out[i].frame);
	cisp_pool_destroy(cam->eis->pool);
	cam->eis->pool = NULL;
}

int camera_eis_configure(struct cisp_camera *cam, struct cisp_isp_config *isp)
{
	struct camera_eis *e = cam->eis;
	int r;

	if (!e)
		return 0;
	r = add_margins(cam, &cam->config, &cam->mode, e->config.margin, isp);
	/* Again: the mode (and its focal length in pixels) may have changed. */
	if (!r)
		r = cisp_sensor_gyro_info(cam->sensor, &e->gyro);
	for (unsigned i = 0; !r && i < 2; i++) {
		const struct cisp_stream_config *s = &cam->config.stream[i];
		const struct cisp_output_config *o = &isp->output[i];
		struct eis_output *eo = &e->out[i];
		uint32_t crop_w = s->crop_width ? s->crop_width : cam->mode.width;
		uint32_t crop_h = s->crop_height ? s->crop_height : cam->mode.height, size;
		bool subsampled = s->format == CISP_FMT_NV12 || s->format == CISP_FMT_I420;

		if (!s->format)
			continue;
		with_margins(s->width, crop_w, e->config.margin, &size, &eo->step_x);
		with_margins(s->height, crop_h, e->config.margin, &size, &eo->step_y);
		eo->centre_x = max_position(s->width, o->width, eo->step_x, subsampled) / 2;
		eo->centre_y = max_position(s->height, o->height, eo->step_y, subsampled) / 2;
		eo->scale_x = (double)o->width / crop_w;
		eo->scale_y = (double)o->height / crop_h;
		r = cisp_image_alloc(&eo->frame, s->format, o->width, o->height);
	}
	if (r)
		return r;
	e->crop_y = cam->config.stream[CISP_STREAM_MAIN].crop_width ? cam->config.stream[CISP_STREAM_MAIN].crop_y : 0;
	e->running = false;
	memset(e->history, 0, sizeof(e->history));
	return cisp_pool_create(&e->pool, EIS_THREADS);
}

struct cisp_image *camera_eis_output(struct cisp_camera *cam, unsigned output)
{
	return cam->eis && output < 2 && cam->eis->out[output].frame.owned ? &cam->eis->out[output].frame : NULL;
}

/* Start the path afresh at @t_ns: the camera is where it is. */
static void path_reset(struct camera_eis *e, uint64_t t_ns)
{
	e->running = true;
	e->t_ns = t_ns;
	memset(e->path, 0, sizeof(e->path));
	memset(e->smooth1, 0, sizeof(e->smooth1));
	memset(e->smooth2, 0, sizeof(e->smooth2));
}

/*
 * Integrate the gyroscope's samples up to @t_ns into the path and run it
 * through the two low-pass stages. A sample is the mean rate over its
 * period: the part of each that falls after the last update counts.
 */
static int path_advance(struct cisp_camera *cam, uint64_t t_ns)
{
	struct camera_eis *e = cam->eis;
	struct cisp_gyro_sample samples[64];
	double tau = e->config.smoothing_s;

	if (!e->running || t_ns < e->t_ns || t_ns - e->t_ns > EIS_MAX_GAP_NS)
		path_reset(e, t_ns);
	while (e->t_ns < t_ns) {
		/* Samples ending up to one period after @t_ns cover the interval's end. */
		int n = cisp_sensor_gyro(cam->sensor, e->t_ns, t_ns + e->gyro.period_ns, samples, 64);

		if (n < 0)
			return n;
		if (n == 0)
			return cisp_error(-EIO, "camera %s: no gyroscope sample after %llu ns", cam->name,
					  (unsigned long long)e->t_ns);
		for (int k = 0; k < n && k < 64 && e->t_ns < t_ns; k++) {
			uint64_t end = samples[k].timestamp_ns < t_ns ? samples[k].timestamp_ns : t_ns;
			double dt, a;

			if (end <= e->t_ns)
				continue;
			dt = (double)(end - e->t_ns) * 1e-9;
			a = 1 - exp(-dt / tau);
			/* A rate about y moves the image along x, one about x along y. */
			e->path[0] += samples[k].rate[1] * e->gyro.focal_px * dt;
			e->path[1] += samples[k].rate[0] * e->gyro.focal_px * dt;
			for (int axis = 0; axis < 2; axis++) {
				e->smooth1[axis] += a * (e->path[axis] - e->smooth1[axis]);
				e->smooth2[axis] += a * (e->smooth1[axis] - e->smooth2[axis]);
			}
			e->t_ns = end;
		}
	}
	return 0;
}

/*
 * The path's departure from its smoothed form now, sensor pixels, clamped
 * to the main stream's margin. A clamped window pulls the smoothed path
 * along with it, so that the window leaves the edge as soon as the hand
 * comes back.
 */
static double window_offset(struct camera_eis *e, int axis, bool *clamped)
{
	const struct eis_output *m = &e->out[CISP_STREAM_MAIN];
	double scale = axis ? m->scale_y : m->scale_x, range = (axis ? m->centre_y : m->centre_x) / 256.0;
	double off = e->path[axis] - e->smooth2[axis];

	if (fabs(off) * scale > range) {
		off = (off > 0 ? range : -range) / scale;
		e->smooth2[axis] = e->smooth1[axis] = e->path[axis] - off;
		*clamped = true;
	}
	return off;
}

/* An offset of @off sensor pixels as a window position, 1/256 pixels, in an output of @scale and @centre. */
static uint32_t position_q8(double off, double scale, uint32_t centre)
{
	double q8 = centre + off * scale * 256;

	return q8 < 0 ? 0 : q8 > 2.0 * centre ? 2 * centre : (uint32_t)lround(q8);
}

/* Cut @req's buffer of output @i out of the ISP's image with the main stream's bands @f. */
static int cut(struct camera_eis *e, struct cisp_camera_request *req, unsigned i, const struct cisp_eis_frame *f,
	       const double offset[][2], uint32_t main_height)
{
	const struct eis_output *eo = &e->out[i];
	struct cisp_eis_band bands[CISP_EIS_MAX_BANDS];
	uint32_t height = req->buffer[i]->height;
	unsigned n = 0;

	if (i == CISP_STREAM_MAIN)
		return cisp_eis_warp(&eo->frame, req->buffer[i], eo->step_x, eo->step_y, f->band, f->num_bands, e->pool);
	/* The preview's rows in proportion; bands that would start on the same row merge. */
	for (unsigned b = 0; b < f->num_bands; b++) {
		uint32_t first = (uint32_t)((uint64_t)f->band[b].first_row * height / main_height);

		if (n && first <= bands[n - 1].first_row)
			continue;
		bands[n++] = (struct cisp_eis_band){ first, position_q8(offset[b][0], eo->scale_x, eo->centre_x),
						     position_q8(offset[b][1], eo->scale_y, eo->centre_y) };
	}
	return cisp_eis_warp(&eo->frame, req->buffer[i], eo->step_x, eo->step_y, bands, n, e->pool);
}

void camera_eis_apply(struct cisp_camera *cam, struct cisp_camera_request *req)
{
	struct camera_eis *e = cam->eis;
	const struct eis_output *m;
	struct cisp_eis_frame record = { 0 }, *f = &record;
	double offset[CISP_EIS_MAX_BANDS][2];
	uint32_t height = cam->config.stream[CISP_STREAM_MAIN].height;
	double line_ns = cisp_sensor_line_ns(&cam->mode);
	struct timespec t0, t1;
	int r = 0;

	if (!e || !e->out[CISP_STREAM_MAIN].frame.owned || req->status)
		return;
	m = &e->out[CISP_STREAM_MAIN];
	f->sequence = req->metadata.sequence;
	f->num_bands = e->config.bands < height ? e->config.bands : 1;
	f->step_x_q16 = m->step_x;
	f->step_y_q16 = m->step_y;
	f->centre_x_q8 = m->centre_x;
	f->centre_y_q8 = m->centre_y;
	f->scale_x = m->scale_x;
	f->scale_y = m->scale_y;
	for (unsigned b = 0; !r && b < f->num_bands; b++) {
		struct cisp_eis_band *band = &f->band[b];
		uint32_t next = (uint32_t)((uint64_t)height * (b + 1) / f->num_bands);
		double sensor_row;

		band->first_row = (uint32_t)((uint64_t)height * b / f->num_bands);
		/* The sensor row at the band's centre, read at its own time (rolling shutter). */
		sensor_row = e->crop_y + (m->centre_y / 256.0 + (band->first_row + next) / 2.0 * m->step_y / 65536 + 0.5) /
						 m->scale_y - 0.5;
		sensor_row = fmin(fmax(sensor_row, 0), cam->mode.height - 1);
		r = path_advance(cam, req->metadata.timestamp_ns + (uint64_t)llround(sensor_row * line_ns));
		offset[b][0] = window_offset(e, 0, &f->clamped);
		offset[b][1] = window_offset(e, 1, &f->clamped);
		band->x_q8 = position_q8(offset[b][0], m->scale_x, m->centre_x);
		band->y_q8 = position_q8(offset[b][1], m->scale_y, m->centre_y);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned i = 0; !r && i < 2; i++)
		if (req->buffer[i])
			r = cut(e, req, i, f, offset, height);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	f->warp_ns = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000ll + (t1.tv_nsec - t0.tv_nsec));
	if (r) {
		f->num_bands = 0;
		camera_request_fail(req, cisp_error_prefix(r, "camera %s: EIS", cam->name));
	}
	/* cisp_camera_eis_frame() reads the records from the caller's thread. */
	pthread_mutex_lock(&cam->lock);
	e->history[f->sequence % EIS_HISTORY] = *f;
	pthread_mutex_unlock(&cam->lock);
}

int cisp_camera_eis_frame(struct cisp_camera *cam, const struct cisp_camera_request *req,
			  struct cisp_eis_frame *frame)
{
	bool found;

	if (!cam->eis)
		return cisp_error(-ENOENT, "camera %s: EIS is off", cam->name);
	pthread_mutex_lock(&cam->lock);
	*frame = cam->eis->history[req->metadata.sequence % EIS_HISTORY];
	pthread_mutex_unlock(&cam->lock);
	found = frame->num_bands && frame->sequence == req->metadata.sequence;
	if (!found) {
		memset(frame, 0, sizeof(*frame));
		return cisp_error(-ENOENT, "camera %s: no EIS record of frame %llu (the last %d are kept)", cam->name,
				  (unsigned long long)req->metadata.sequence, EIS_HISTORY);
	}
	return 0;
}

int cisp_camera_request_gyro(struct cisp_camera *cam, const struct cisp_camera_request *req,
			     struct cisp_gyro_sample *samples, unsigned max)
{
	const struct cisp_camera_metadata *m = &req->metadata;
	uint64_t exposure = m->sensor.exposure_ns;
	uint64_t from = m->timestamp_ns > exposure ? m->timestamp_ns - exposure : 0;
	uint64_t to = m->timestamp_ns + (uint64_t)llround((cam->mode.height - 1) * cisp_sensor_line_ns(&cam->mode));

	return cisp_sensor_gyro(cam->sensor, from, to, samples, max);
}
