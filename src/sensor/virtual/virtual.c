/* SPDX-License-Identifier: MIT */
/*
 * The virtual sensor backend: a sensor model (model.c) looking at a scene
 * (scene.c) under an illuminant (spectra.c) through a lens (optics.c), read
 * out with noise (noise.c) by a rolling shutter (readout.c).
 *
 * It behaves like hardware: control writes go through its own register
 * pipeline with the model's delays, and each frame reports the values it
 * used. Rendering is split so that per-frame work is small: per (scene,
 * illuminant, mode, flips) the camera response of the sharp scene is
 * rendered once ("sharp"); per blur width it is blurred, shaded and sampled
 * through the CFA into a mosaic of electron rates ("clean", a few cached);
 * per frame only exposure, flicker, lux and noise are applied, row by row.
 *
 * In real time frames end on CLOCK_MONOTONIC whether anyone takes them or
 * not, and go into a queue of buffers as in a V4L2 driver: a frame that ends
 * while every buffer is full is dropped, so a slow consumer sees gaps in
 * the sequence and frames at most a queue old, never a growing backlog.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "core/error_internal.h"
#include "core/number.h"
#include "model.h"
#include "scene.h"
#include "sensor/sensor_internal.h"
#include "vsensor.h"

#define CLEAN_CACHE 3
#define SIGMA_STEPS 64 /* blur widths are cached in steps of 1/64 pixel */

struct clean_entry {
	float *img;
	uint64_t generation;
	unsigned flips;
	long sigma_q;
	uint64_t last_used;
};

/* The real-time queue's most buffers. */
#define VS_MAX_BUFFERS 32

/* A frame that ended and waits in a buffer (real time). */
struct vs_filled {
	uint64_t sequence;
	uint64_t timestamp;
};

struct vsensor {
	struct vs_model model;
	unsigned mode;

	/* options */
	uint64_t seed;
	struct vs_scene *scene;
	double spd[VS_BANDS];
	double lux, distance;
	double shake; /* hand shake amplitude, output pixels (0: a tripod) */
	unsigned flicker_hz;
	double flicker_depth;
	double motion;          /* pixels a frame the hdr scene's card moves (0: no card) */
	uint64_t motion_frame;  /* the frame the renders show the card at */
	bool noise, shading, blur, show_defects, realtime;

	/* the register pipeline and the clock */
	bool streaming;
	uint64_t sequence; /* the next frame to be read out; clock_ns is its timestamp */
	uint64_t frames; /* frames rendered since open: the noise never repeats across restarts */
	double clock_ns;
	struct sensor_timeline regs;
	int timer_fd;
	struct timespec anchor;
	double anchor_clock_ns;
	unsigned num_buffers;                   /* the real-time queue's length */
	struct vs_filled filled[VS_MAX_BUFFERS]; /* frames waiting, oldest first */
	unsigned num_filled;

	/* renders; generation changes whenever they must be redone */
	uint64_t generation;
	double resp[VS_SCENE_MAX_MATERIALS][3];
	float *sharp[3];
	bool sharp_valid;
	uint64_t sharp_generation;
	unsigned sharp_flips;
	struct clean_entry clean[CLEAN_CACHE];
	uint64_t use_counter;
	float *tmp[2];
	float *dx2;
	uint16_t *row;

	/* fixed pattern noise of the mode as read with flips fpn_flips (NULL when the model has none) */
	float *fpn_gain, *fpn_offset;
	unsigned fpn_flips;

	/* defects: of the array, and of the current mode (sorted, unflipped) */
	struct cisp_vsensor_defect *array_defects, *defects;
	unsigned num_array_defects, num_defects;
};

static const struct sensor_ops vs_ops;

static const struct cisp_sensor_mode *vmode(const struct vsensor *vs)
{
	return &vs->model.modes[vs->mode];
}

/* ---- defects ---- */

static int cmp_defect(const void *a, const void *b)
{
	const struct cisp_vsensor_defect *p = a, *q = b;

	if (p->y != q->y)
		return p->y < q->y ? -1 : 1;
	return p->x < q->x ? -1 : p->x > q->x;
}

/* Defective sites of the array: a fixed set per model (its defect seed). */
static int make_array_defects(struct vsensor *vs)
{
	const struct vs_model *m = &vs->model;
	unsigned n = (unsigned)llround(m->defect_density * m->array_width * m->array_height);
	uint64_t s = m->defect_seed;

	free(vs->array_defects);
	vs->array_defects = n ? calloc(n, sizeof(*vs->array_defects)) : NULL;
	if (n && !vs->array_defects)
		return cisp_error(-ENOMEM, "virtual sensor: out of memory");
	for (unsigned i = 0; i < n; i++) {
		uint64_t r = vs_mix64(s += 0x9E3779B97F4A7C15ull), h = vs_mix64(r);

		vs->array_defects[i].x = (uint32_t)((r & 0xFFFFFFFFu) % m->array_width);
		vs->array_defects[i].y = (uint32_t)((r >> 32) % m->array_height);
		vs->array_defects[i].hot = (double)(h >> 11) / 9007199254740992.0 < m->hot_fraction;
	}
	vs->num_array_defects = n;
	return 0;
}

/* The array's defects seen through the current mode's crop and binning; a binned pixel with a defective site is defective. */
static int map_defects(struct vsensor *vs)
{
	const struct cisp_sensor_mode *m = vmode(vs);
	unsigned n = 0;

	free(vs->defects);
	vs->defects = vs->num_array_defects ? calloc(vs->num_array_defects, sizeof(*vs->defects)) : NULL;
	vs->num_defects = 0;
	if (vs->num_array_defects && !vs->defects)
		return cisp_error(-ENOMEM, "virtual sensor: out of memory");
	for (unsigned i = 0; i < vs->num_array_defects; i++) {
		const struct cisp_vsensor_defect *d = &vs->array_defects[i];

		if (d->x < m->crop_x || d->y < m->crop_y || d->x >= m->crop_x + m->crop_width ||
		    d->y >= m->crop_y + m->crop_height)
			continue;
		vs->defects[n].x = (d->x - m->crop_x) / m->binning;
		vs->defects[n].y = (d->y - m->crop_y) / m->binning;
		vs->defects[n].hot = d->hot;
		n++;
	}
	qsort(vs->defects, n, sizeof(*vs->defects), cmp_defect);
	/* Two sites in one output pixel: keep one, hot wins. */
	vs->num_defects = 0;
	for (unsigned i = 0; i < n; i++) {
		struct cisp_vsensor_defect *last = vs->num_defects ? &vs->defects[vs->num_defects - 1] : NULL;

		if (last && last->x == vs->defects[i].x && last->y == vs->defects[i].y)
			last->hot |= vs->defects[i].hot;
		else
			vs->defects[vs->num_defects++] = vs->defects[i];
	}
	return 0;
}

/* Index of the first defect on row @y (defects are sorted by row). */
static unsigned first_defect(const struct vsensor *vs, uint32_t y)
{
	unsigned lo = 0, hi = vs->num_defects;

	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;

		if (vs->defects[mid].y < y)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- caches ---- */

static void drop_renders(struct vsensor *vs)
{
	for (int c = 0; c < 3; c++) {
		free(vs->sharp[c]);
		vs->sharp[c] = NULL;
	}
	vs->sharp_valid = false;
	for (int i = 0; i < CLEAN_CACHE; i++) {
		free(vs->clean[i].img);
		vs->clean[i].img = NULL;
	}
	for (int i = 0; i < 2; i++) {
		free(vs->tmp[i]);
		vs->tmp[i] = NULL;
	}
	free(vs->row);
	vs->row = NULL;
	free(vs->dx2);
	vs->dx2 = NULL;
	free(vs->fpn_gain);
	free(vs->fpn_offset);
	vs->fpn_gain = vs->fpn_offset = NULL;
	vs->generation++;
}

static int alloc_buffers(struct vsensor *vs)
{
	size_t n = (size_t)vmode(vs)->width * vmode(vs)->height;

	for (int c = 0; c < 3; c++)
		if (!vs->sharp[c] && !(vs->sharp[c] = malloc(n * sizeof(float))))
			return cisp_error(-ENOMEM, "virtual sensor: out of memory for a %zu-pixel render", n);
	for (int i = 0; i < 2; i++)
		if (!vs->tmp[i] && !(vs->tmp[i] = malloc(n * sizeof(float))))
			return cisp_error(-ENOMEM, "virtual sensor: out of memory for a %zu-pixel render", n);
	if (!vs->dx2 && !(vs->dx2 = malloc(vmode(vs)->width * sizeof(float))))
		return cisp_error(-ENOMEM, "virtual sensor: out of memory");
	if (!vs->row && !(vs->row = malloc(vmode(vs)->width * sizeof(uint16_t))))
		return cisp_error(-ENOMEM, "virtual sensor: out of memory");
	return 0;
}

/*
 * Electron rates per lux of each material: sensitivity * response(spd,
 * material) / luminance(spd), relative to green on a white diffuser under
 * D65 (which the model's sensitivity is given for).
 */
static void compute_responses(struct vsensor *vs)
{
	const struct vs_model *m = &vs->model;
	double ref[3], lum = vs_luminance(vs->spd);

	vs_camera_rgb(&m->camera, vs_d65, NULL, ref);
	ref[1] /= vs_luminance(vs_d65);
	for (unsigned i = 0; i < vs->scene->num_materials; i++) {
		const struct vs_material *mat = &vs->scene->materials[i];
		double rgb[3], k;

		if (mat->emissive) {
			vs_camera_rgb(&m->camera, mat->spectrum, NULL, rgb);
			k = mat->luminance / vs_luminance(mat->spectrum);
		} else {
			vs_camera_rgb(&m->camera, vs->spd, mat->spectrum, rgb);
			k = 1.0 / lum;
		}
		for (int c = 0; c < 3; c++)
			vs->resp[i][c] = m->sensitivity * rgb[c] * k / ref[1];
	}
}

static struct vs_view view_of(const struct vsensor *vs, unsigned flips)
{
	struct vs_view v = { vmode(vs)->width, vmode(vs)->height, flips & 1, (flips >> 1) & 1,
			     vs->motion * (double)vs->motion_frame };

	return v;
}

static int ensure_sharp(struct vsensor *vs, unsigned flips)
{
	struct vs_view v = view_of(vs, flips);
	int ret;

	if (vs->sharp_valid && vs->sharp_generation == vs->generation && vs->sharp_flips == flips)
		return 0;
	ret = alloc_buffers(vs);
	if (ret < 0)
		return ret;
	compute_responses(vs);
	vs_scene_render(vs->scene, &v, (const double(*)[3])vs->resp, vs->sharp);
	vs->sharp_valid = true;
	vs->sharp_generation = vs->generation;
	vs->sharp_flips = flips;
	return 0;
}

/* Blur width in output pixels at a lens position (0 with blur off). */
static double blur_sigma(const struct vsensor *vs, int32_t lens, int32_t focus)
{
	const struct vs_model *m = &vs->model;
	double defocus = m->blur_per_step * (lens - focus), s;

	if (!vs->blur)
		return 0;
	s = sqrt(m->blur_sigma * m->blur_sigma + defocus * defocus);
	if (s > m->blur_max)
		s = m->blur_max;
	return s / vmode(vs)->binning;
}

static double distance_of(const struct vsensor *vs)
{
	return vs->distance > 0 ? vs->distance : vs->scene->distance;
}

static int32_t focus_position(const struct vsensor *vs)
{
	const struct vs_model *m = &vs->model;
	long p = lround(m->lens_infinity + m->lens_per_dioptre / distance_of(vs));

	return (int32_t)(p < m->lens_min ? m->lens_min : p > m->lens_max ? m->lens_max : p);
}

/* The mosaic of electron rates per lux for a blur width: blurred, shaded, sampled through the CFA. */
static int get_clean(struct vsensor *vs, unsigned flips, double sigma, const float **out)
{
	const struct cisp_sensor_mode *md = vmode(vs);
	const struct vs_model *m = &vs->model;
	long sigma_q = lround(sigma * SIGMA_STEPS);
	struct clean_entry *e = &vs->clean[0];
	double k[3], cx, cy, inv_r2;
	uint32_t w = md->width, h = md->height;
	int ret;

	for (int i = 0; i < CLEAN_CACHE; i++) {
		struct clean_entry *c = &vs->clean[i];

		if (c->img && c->generation == vs->generation && c->flips == flips && c->sigma_q == sigma_q) {
			c->last_used = ++vs->use_counter;
			*out = c->img;
			return 0;
		}
		/* The slot to reuse: an empty one, else the least recently used. */
		if (e->img && (!c->img || c->last_used < e->last_used))
			e = c;
	}
	ret = ensure_sharp(vs, flips);
	if (ret < 0)
		return ret;
	if (!e->img && !(e->img = malloc((size_t)w * h * sizeof(float))))
		return cisp_error(-ENOMEM, "virtual sensor: out of memory for a %ux%u render", w, h);
	vs_shading_k(m->shading_corner, k);
	cx = m->array_width / 2.0;
	cy = m->array_height / 2.0;
	inv_r2 = 1.0 / (cx * cx + cy * cy);
	/* Squared distances from the optical centre, normalised, per output column and row. */
	for (uint32_t x = 0; x < w; x++) {
		double ax = md->crop_x + ((flips & 1) ? w - 1 - x + 0.5 : x + 0.5) * md->binning - cx;

		vs->dx2[x] = (float)(ax * ax * inv_r2);
	}
	for (int c = 0; c < 3; c++) {
		float *p = vs->tmp[0];

		memcpy(p, vs->sharp[c], (size_t)w * h * sizeof(float));
		vs_blur(p, w, h, (double)sigma_q / SIGMA_STEPS, vs->tmp[1]);
		for (uint32_t y = 0; y < h; y++) {
			/* The array row this output row reads (flips mirror the readout window). */
			double ay = md->crop_y + ((flips & 2) ? h - 1 - y + 0.5 : y + 0.5) * md->binning - cy;
			float dy2 = (float)(ay * ay * inv_r2), kc = (float)k[c];
			const float *src = p + (size_t)y * w;
			float *dst = e->img + (size_t)y * w;

			/* The columns of this row whose CFA colour is c: every other one from x0. */
			for (uint32_t x0 = 0; x0 < 2; x0++) {
				enum cisp_channel ch = cisp_cfa_channel(md->cfa, x0, y);

				if ((ch == CISP_CH_R ? 0 : ch == CISP_CH_B ? 2 : 1) != c)
					continue;
				for (uint32_t x = x0; x < w; x += 2) {
					float t = 1.0f + kc * (vs->dx2[x] + dy2);

					dst[x] = vs->shading ? src[x] / (t * t) : src[x];
				}
			}
		}
	}
	e->generation = vs->generation;
	e->flips = flips;
	e->sigma_q = sigma_q;
	e->last_used = ++vs->use_counter;
	*out = e->img;
	return 0;
}

/*
 * The fixed pattern noise of the mode as read with @flips: per output pixel a
 * gain error (PRNU) and an offset (DSNU, codes), drawn for the array site at
 * its top-left corner, so they belong to the array and not to the frame; a
 * binned pixel averages its sites, which divides both by the binning.
 */
static int ensure_fixed_pattern(struct vsensor *vs, unsigned flips)
{
	const struct cisp_sensor_mode *md = vmode(vs);
	const struct vs_model *m = &vs->model;
	uint64_t seed = m->defect_seed ^ 0x5DEECE66Dull;
	double dsnu = ldexp(m->dsnu, (int)md->bits - (int)m->bit_depth) / md->binning, prnu = m->prnu / md->binning;
	size_t n = (size_t)md->width * md->height;

	if (!(dsnu > 0 || prnu > 0) || ((vs->fpn_gain || vs->fpn_offset) && vs->fpn_flips == flips))
		return 0;
	if (prnu > 0 && !vs->fpn_gain && !(vs->fpn_gain = malloc(n * sizeof(float))))
		return cisp_error(-ENOMEM, "virtual sensor: out of memory for the fixed pattern");
	if (dsnu > 0 && !vs->fpn_offset && !(vs->fpn_offset = malloc(n * sizeof(float))))
		return cisp_error(-ENOMEM, "virtual sensor: out of memory for the fixed pattern");
	for (uint32_t y = 0; y < md->height; y++) {
		uint32_t ay = md->crop_y + ((flips & 2) ? md->height - 1 - y : y) * md->binning;

		for (uint32_t x = 0; x < md->width; x++) {
			uint32_t ax = md->crop_x + ((flips & 1) ? md->width - 1 - x : x) * md->binning;
			size_t i = (size_t)y * md->width + x;

			if (vs->fpn_gain)
				vs->fpn_gain[i] = (float)(1 + prnu * vs_fixed_normal(seed, ax, ay));
			if (vs->fpn_offset)
				vs->fpn_offset[i] = (float)(dsnu * vs_fixed_normal(~seed, ax, ay));
		}
	}
	vs->fpn_flips = flips;
	return 0;
}

/* The true pedestal of channel @ch in the mode's codes: the reported black level and the model's offset. */
static float pedestal(const struct vsensor *vs, enum cisp_channel ch)
{
	const struct cisp_sensor_mode *md = vmode(vs);

	return (float)(md->black_level + ldexp(vs->model.black_offset[ch], (int)md->bits - (int)vs->model.bit_depth));
}

/* ---- frames ---- */

static void frame_controls(const struct vsensor *vs, uint64_t frame, int32_t v[CISP_SENSOR_NUM_CONTROLS])
{
	for (unsigned id = 0; id < CISP_SENSOR_NUM_CONTROLS; id++)
		v[id] = sensor_timeline_value(&vs->regs, id, frame);
	sensor_apply_frame_rules(vmode(vs), v);
}

static double mode_gain(const struct vsensor *vs)
{
	return ldexp(vs->model.conversion_gain, (int)vmode(vs)->bits - (int)vs->model.bit_depth);
}

static int render(struct vsensor *vs, const int32_t *v, uint64_t timestamp, struct cisp_image *img)
{
	const struct cisp_sensor_mode *md = vmode(vs);
	unsigned flips = (v[CISP_SENSOR_HFLIP] ? 1 : 0) | (v[CISP_SENSOR_VFLIP] ? 2 : 0);
	double line_ns = cisp_sensor_line_ns(md), exp_ns = v[CISP_SENSOR_EXPOSURE] * line_ns;
	double n = (double)md->binning * md->binning, g = mode_gain(vs) * v[CISP_SENSOR_ANALOGUE_GAIN] / 256.0;
	double adc = ldexp(vs->model.adc_noise, (int)md->bits - (int)vs->model.bit_depth);
	struct vs_noise_frame f;
	const float *clean = NULL;
	int ret = alloc_buffers(vs);

	if (ret < 0)
		return ret;
	if (v[CISP_SENSOR_TEST_PATTERN]) {
		for (uint32_t y = 0; y < md->height; y++) {
			vs_pattern_row(v[CISP_SENSOR_TEST_PATTERN], md, y, vs->row);
			vs_write_row(img, y, vs->row, md->bits);
		}
		return 0;
	}
	ret = get_clean(vs, flips, blur_sigma(vs, v[CISP_SENSOR_LENS_POSITION], focus_position(vs)), &clean);
	if (ret == 0)
		ret = ensure_fixed_pattern(vs, flips);
	if (ret < 0)
		return ret;
	f.dark_e = (float)(n * vs->model.dark_current * exp_ns * 1e-9);
	f.gain = (float)(g / n);
	f.full_well = (float)(n * vs->model.full_well);
	f.read_dn = (float)sqrt(g * g * vs->model.read_noise * vs->model.read_noise / n + adc * adc);
	f.black = (float)md->black_level;
	f.white = (int32_t)md->white_level;
	f.dgain = v[CISP_SENSOR_DIGITAL_GAIN];
	f.noise = vs->noise;
	for (uint32_t y = 0; y < md->height; y++) {
		/* Rolling shutter: row y's exposure ends when it is read, y lines after the frame start. */
		uint64_t t_end = timestamp + (uint64_t)llround(y * line_ns);
		double light = vs_flicker_mean(vs->flicker_depth, vs->flicker_hz, t_end, exp_ns);
		float scale = (float)(n * exp_ns * 1e-9 * vs->lux * light);
		size_t at = (size_t)y * md->width;
		const float *rates = clean + at;
		struct vs_noise_pattern p = {
			.black = { pedestal(vs, cisp_cfa_channel(md->cfa, 0, y)), pedestal(vs, cisp_cfa_channel(md->cfa, 1, y)) },
			.gain = vs->fpn_gain ? vs->fpn_gain + at : NULL,
			.offset = vs->fpn_offset ? vs->fpn_offset + at : NULL,
		};

		if (vs->shake > 0) {
			double dx, dy;

			vs_shake_offset(vs->seed, vs->shake, t_end * 1e-9, &dx, &dy);
			vs_shake_row(clean, md->width, md->height, y, dx, dy, vs->tmp[0]);
			rates = vs->tmp[0];
		}
		vs_noise_row(&f, &p, rates, scale, vs->seed, vs->frames, y, vs->row, md->width);
		if (vs->show_defects) {
			/* Defects are in unflipped coordinates: those of the row read here. */
			uint32_t sy = (flips & 2) ? md->height - 1 - y : y;

			for (unsigned i = first_defect(vs, sy); i < vs->num_defects && vs->defects[i].y == sy; i++) {
				uint32_t x = (flips & 1) ? md->width - 1 - vs->defects[i].x : vs->defects[i].x;

				vs->row[x] = (uint16_t)(vs->defects[i].hot ? md->white_level : md->black_level);
			}
		}
		vs_write_row(img, y, vs->row, md->bits);
	}
	return 0;
}

/* ---- timing ---- */

static void arm_timer(struct vsensor *vs, bool now_or_later)
{
	struct itimerspec its = { 0 };

	if (!now_or_later) {
		timerfd_settime(vs->timer_fd, 0, &its, NULL); /* disarm */
		return;
	}
	if (!vs->realtime || vs->num_filled) {
		its.it_value.tv_nsec = 1; /* due at once */
		timerfd_settime(vs->timer_fd, 0, &its, NULL);
		return;
	} else {
		/* The next frame is ready when its readout ends: its timestamp plus its frame duration. */
		int32_t v[CISP_SENSOR_NUM_CONTROLS];
		double due;

		frame_controls(vs, vs->sequence, v);
		due = vs->clock_ns - vs->anchor_clock_ns + v[CISP_SENSOR_FRAME_LENGTH] * cisp_sensor_line_ns(vmode(vs));
		its.it_value.tv_sec = vs->anchor.tv_sec + (time_t)(due / 1e9);
		its.it_value.tv_nsec = vs->anchor.tv_nsec + (long)fmod(due, 1e9);
		if (its.it_value.tv_nsec >= 1000000000L) {
			its.it_value.tv_sec++;
			its.it_value.tv_nsec -= 1000000000L;
		}
		timerfd_settime(vs->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
	}
}

/* ---- ops ---- */

static void vs_close(void *priv)
{
	struct vsensor *vs = priv;

	drop_renders(vs);
	vs_scene_free(vs->scene);
	vs_model_free(&vs->model);
	free(vs->array_defects);
	free(vs->defects);
	if (vs->timer_fd >= 0)
		close(vs->timer_fd);
	free(vs);
}

static int vs_set_mode(void *priv, unsigned index)
{
	struct vsensor *vs = priv;

	vs->mode = index;
	drop_renders(vs);
	return map_defects(vs);
}

static int vs_start(void *priv)
{
	struct vsensor *vs = priv;

	vs->streaming = true;
	vs->sequence = 0;
	vs->num_filled = 0;
	clock_gettime(CLOCK_MONOTONIC, &vs->anchor);
	/* In real time the timestamps are on CLOCK_MONOTONIC, as a V4L2 sensor's (never going back). */
	if (vs->realtime)
		vs->clock_ns = fmax(vs->clock_ns, vs->anchor.tv_sec * 1e9 + vs->anchor.tv_nsec);
	vs->anchor_clock_ns = vs->clock_ns;
	arm_timer(vs, true);
	return 0;
}

static int vs_stop(void *priv)
{
	struct vsensor *vs = priv;

	vs->streaming = false;
	vs->num_filled = 0;
	sensor_timeline_settle(&vs->regs);
	arm_timer(vs, false);
	return 0;
}

static int vs_write_controls(void *priv, uint64_t write_point, uint32_t mask,
			     const int32_t values[CISP_SENSOR_NUM_CONTROLS])
{
	struct vsensor *vs = priv;

	for (unsigned id = 0; id < CISP_SENSOR_NUM_CONTROLS; id++) {
		if (!(mask & (1u << id)))
			continue;
		if (vs->streaming)
			sensor_timeline_write(&vs->regs, id, write_point + vs->model.delay[id], values[id]);
		else
			vs->regs.base[id] = values[id];
	}
	/* A new frame length moves the next frame's due time in real-time mode. */
	if (vs->streaming && vs->realtime && (mask & (1u << CISP_SENSOR_FRAME_LENGTH)))
		arm_timer(vs, true);
	return 0;
}

/* The frame being read out ends: its duration on, the next one starts. */
static void end_readout(struct vsensor *vs)
{
	int32_t v[CISP_SENSOR_NUM_CONTROLS];

	frame_controls(vs, vs->sequence, v);
	vs->clock_ns += v[CISP_SENSOR_FRAME_LENGTH] * cisp_sensor_line_ns(vmode(vs));
	vs->sequence++;
}

/*
 * Real time: every frame that has ended by now goes into a free buffer, or
 * is dropped when none is free (a V4L2 driver's rule).
 */
static void fill_buffers(struct vsensor *vs)
{
	struct timespec now;
	double now_clock;

	clock_gettime(CLOCK_MONOTONIC, &now);
	now_clock = vs->anchor_clock_ns + (double)(now.tv_sec - vs->anchor.tv_sec) * 1e9 +
		    (double)(now.tv_nsec - vs->anchor.tv_nsec);
	for (;;) {
		int32_t v[CISP_SENSOR_NUM_CONTROLS];
		uint64_t timestamp = (uint64_t)llround(vs->clock_ns);

		frame_controls(vs, vs->sequence, v);
		if (vs->clock_ns + v[CISP_SENSOR_FRAME_LENGTH] * cisp_sensor_line_ns(vmode(vs)) > now_clock)
			return;
		if (vs->num_filled < vs->num_buffers)
			vs->filled[vs->num_filled++] = (struct vs_filled){ vs->sequence, timestamp };
		end_readout(vs);
	}
}

/* The next frame to deliver: the oldest waiting (real time) or a new one. -EAGAIN while none has ended. */
static int next_frame(struct vsensor *vs, struct vs_filled *f)
{
	if (!vs->realtime) {
		*f = (struct vs_filled){ vs->sequence, (uint64_t)llround(vs->clock_ns) };
		end_readout(vs);
		return 0;
	}
	fill_buffers(vs);
	if (!vs->num_filled)
		return -EAGAIN;
	*f = vs->filled[0];
	memmove(&vs->filled[0], &vs->filled[1], --vs->num_filled * sizeof(vs->filled[0]));
	return 0;
}

static int vs_capture(void *priv, struct cisp_image *img, struct cisp_sensor_metadata *md, unsigned flags)
{
	struct vsensor *vs = priv;
	struct pollfd pfd = { .fd = vs->timer_fd, .events = POLLIN };
	int32_t v[CISP_SENSOR_NUM_CONTROLS];
	struct vs_filled f;
	uint64_t expirations;
	int ret;

	for (;;) {
		while ((ret = poll(&pfd, 1, (flags & CISP_SENSOR_NONBLOCK) ? 0 : -1)) < 0 && errno == EINTR)
			;
		if (ret == 0)
			return cisp_error(-EAGAIN, "virtual sensor: frame %llu is not ready yet",
					  (unsigned long long)vs->sequence);
		if (ret < 0)
			return cisp_error(-errno, "virtual sensor: poll: %s", strerror(errno));
		if (read(vs->timer_fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
			return cisp_error(-errno, "virtual sensor: timer: %s", strerror(errno));
		if (next_frame(vs, &f) == 0)
			break;
		arm_timer(vs, true); /* woken a little early: wait for the frame's end */
	}
	frame_controls(vs, f.sequence, v);
	if (vs->motion != 0 && vs->motion_frame != f.sequence) { /* the card moved: render the scene again */
		vs->motion_frame = f.sequence;
		vs->generation++;
	}
	ret = render(vs, v, f.timestamp, img);
	arm_timer(vs, true);
	if (ret < 0)
		return ret;
	md->sequence = f.sequence;
	md->timestamp_ns = f.timestamp;
	memcpy(md->controls, v, sizeof(md->controls));
	md->flags |= CISP_SENSOR_MD_CONTROLS_REPORTED;
	vs->frames++;
	/* Writes from now on land on later frames: those in the buffers have not been delivered. */
	sensor_timeline_retire(&vs->regs, f.sequence + 1);
	return 0;
}

static int vs_fd(void *priv)
{
	return ((struct vsensor *)priv)->timer_fd;
}

static int parse_bool(const char *key, const char *value, bool *out)
{
	if (!strcasecmp(value, "on") || !strcmp(value, "1") || !strcasecmp(value, "true"))
		*out = true;
	else if (!strcasecmp(value, "off") || !strcmp(value, "0") || !strcasecmp(value, "false"))
		*out = false;
	else
		return cisp_error(-EINVAL, "virtual sensor option %s=%s: expected on or off", key, value);
	return 0;
}

static int parse_number(const char *key, const char *value, double lo, double hi, double *out)
{
	char *end;
	double v = cisp_strtod(value, &end);

	if (end == value || *end || !(v >= lo && v <= hi))
		return cisp_error(-EINVAL, "virtual sensor option %s=%s: expected a number in [%g, %g]", key, value,
				  lo, hi);
	*out = v;
	return 0;
}

static int vs_set_option(void *priv, const char *key, const char *value)
{
	struct vsensor *vs = priv;
	double d = 0; /* set by parse_number() on success; the compiler cannot see that */
	bool b;
	int ret;

	if (!strcmp(key, "seed")) {
		char *end;
		unsigned long long s = strtoull(value, &end, 0);

		if (end == value || *end)
			return cisp_error(-EINVAL, "virtual sensor option seed=%s: expected an integer", value);
		vs->seed = s;
	} else if (!strcmp(key, "scene")) {
		struct vs_scene *sc;

		ret = vs_scene_create(value, &sc);
		if (ret < 0)
			return ret;
		vs_scene_free(vs->scene);
		vs->scene = sc;
		vs->generation++;
	} else if (!strcmp(key, "illuminant")) {
		double spd[VS_BANDS];

		ret = vs_illuminant(value, spd);
		if (ret < 0)
			return ret;
		memcpy(vs->spd, spd, sizeof(spd));
		vs->generation++;
	} else if (!strcmp(key, "lux")) {
		ret = parse_number(key, value, 0, 1e6, &vs->lux);
		if (ret < 0)
			return ret;
	} else if (!strcmp(key, "shake")) {
		ret = parse_number(key, value, 0, 256, &vs->shake);
		if (ret < 0)
			return ret;
	} else if (!strcmp(key, "distance")) {
		ret = parse_number(key, value, 0.01, 1e6, &vs->distance);
		if (ret < 0)
			return ret;
	} else if (!strcmp(key, "flicker")) {
		ret = parse_number(key, value, 0, 60, &d);
		if (ret < 0)
			return ret;
		if (d != 0 && d != 50 && d != 60)
			return cisp_error(-EINVAL, "virtual sensor option flicker=%s: expected 0, 50 or 60", value);
		vs->flicker_hz = (unsigned)d;
	} else if (!strcmp(key, "motion")) {
		ret = parse_number(key, value, -1000, 1000, &vs->motion);
		if (ret < 0)
			return ret;
		vs->generation++;
	} else if (!strcmp(key, "flicker_depth")) {
		ret = parse_number(key, value, 0, 1, &vs->flicker_depth);
		if (ret < 0)
			return ret;
	} else if (!strcmp(key, "buffers")) {
		ret = parse_number(key, value, 1, VS_MAX_BUFFERS, &d);
		if (ret < 0)
			return ret;
		if (d != floor(d) || vs->streaming)
			return cisp_error(vs->streaming ? -EBUSY : -EINVAL,
					  "virtual sensor option buffers=%s: %s", value,
					  vs->streaming ? "only while stopped" : "expected a whole number");
		vs->num_buffers = (unsigned)d;
	} else if (!strcmp(key, "defect_density")) {
		ret = parse_number(key, value, 0, 0.01, &vs->model.defect_density);
		if (ret == 0)
			ret = make_array_defects(vs);
		if (ret == 0)
			ret = map_defects(vs);
		if (ret < 0)
			return ret;
	} else if (!strcmp(key, "noise") || !strcmp(key, "shading") || !strcmp(key, "blur") ||
		   !strcmp(key, "defects") || !strcmp(key, "realtime")) {
		ret = parse_bool(key, value, &b);
		if (ret < 0)
			return ret;
		if (!strcmp(key, "noise")) {
			vs->noise = b;
		} else if (!strcmp(key, "shading")) {
			vs->shading = b;
			vs->generation++;
		} else if (!strcmp(key, "blur")) {
			vs->blur = b;
		} else if (!strcmp(key, "defects")) {
			vs->show_defects = b;
		} else {
			vs->realtime = b;
			vs->num_filled = 0; /* frames waiting are dropped */
			if (vs->streaming) {
				clock_gettime(CLOCK_MONOTONIC, &vs->anchor);
				vs->anchor_clock_ns = vs->clock_ns;
				arm_timer(vs, true);
			}
		}
	} else {
		return cisp_error(-ENOENT,
				  "virtual sensor has no option '%s' (seed, scene, illuminant, lux, distance, shake, flicker, "
				  "flicker_depth, noise, shading, blur, defects, defect_density, realtime, buffers)",
				  key);
	}
	return 0;
}

static const struct sensor_ops vs_ops = {
	.close = vs_close,
	.set_mode = vs_set_mode,
	.start = vs_start,
	.stop = vs_stop,
	.write_controls = vs_write_controls,
	.capture = vs_capture,
	.fd = vs_fd,
	.set_option = vs_set_option,
};

/* ---- backend entry points ---- */

struct enum_ctx {
	struct cisp_sensor_desc *list;
	unsigned max, n;
};

static void enum_one(void *p, const char *name, const char *path)
{
	struct enum_ctx *e = p;
	struct vs_model m;

	if (e->n < e->max) {
		struct cisp_sensor_desc *d = &e->list[e->n];

		snprintf(d->name, sizeof(d->name), "virtual:%s", name);
		snprintf(d->backend, sizeof(d->backend), "virtual");
		if (vs_model_load(path, &m) == 0) {
			snprintf(d->description, sizeof(d->description), "%s", m.description);
			vs_model_free(&m);
		} else {
			snprintf(d->description, sizeof(d->description), "(unreadable model file %s)", path);
		}
	}
	e->n++;
}

static int vs_enumerate(struct cisp_sensor_desc *list, unsigned max)
{
	struct enum_ctx e = { list, max, 0 };
	int ret = vs_model_list(enum_one, &e);

	return ret < 0 ? ret : (int)e.n;
}

static int vs_open(struct cisp_sensor *s, const char *id)
{
	struct vsensor *vs = calloc(1, sizeof(*vs));
	char path[1024];
	size_t len = strlen(id);
	int ret;

	if (!vs)
		return cisp_error(-ENOMEM, "virtual sensor: out of memory");
	vs->timer_fd = -1;
	if (strchr(id, '/') || (len > 5 && !strcmp(id + len - 5, ".yaml")))
		snprintf(path, sizeof(path), "%s", id);
	else if ((ret = vs_model_find(id, path, sizeof(path))) < 0)
		goto fail;
	ret = vs_model_load(path, &vs->model);
	if (ret < 0)
		goto fail;
	vs->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (vs->timer_fd < 0) {
		ret = cisp_error(-errno, "virtual sensor: timerfd: %s", strerror(errno));
		goto fail;
	}
	vs->seed = 1;
	vs->lux = 400;
	vs->num_buffers = 4;
	vs->flicker_depth = 0.3;
	vs->noise = vs->shading = vs->blur = vs->show_defects = true;
	memcpy(vs->spd, vs_d65, sizeof(vs->spd));
	ret = vs_scene_create("colorchart", &vs->scene);
	if (ret == 0)
		ret = make_array_defects(vs);
	if (ret == 0)
		ret = map_defects(vs);
	if (ret < 0)
		goto fail;

	snprintf(s->info.model, sizeof(s->info.model), "%s", vs->model.name);
	snprintf(s->info.description, sizeof(s->info.description), "%s", vs->model.description);
	s->info.array_width = vs->model.array_width;
	s->info.array_height = vs->model.array_height;
	s->info.num_modes = vs->model.num_modes;
	s->modes = vs->model.modes;
	s->mode = 0;
	s->exposure_min = vs->model.exposure_min;
	sensor_declare_control(s, CISP_SENSOR_EXPOSURE, 0, 0, 0, vs->model.delay[CISP_SENSOR_EXPOSURE]);
	sensor_declare_control(s, CISP_SENSOR_FRAME_LENGTH, 0, 0, 0, vs->model.delay[CISP_SENSOR_FRAME_LENGTH]);
	sensor_declare_control(s, CISP_SENSOR_ANALOGUE_GAIN, vs->model.again_min, vs->model.again_max, vs->model.again_min,
		    vs->model.delay[CISP_SENSOR_ANALOGUE_GAIN]);
	sensor_declare_control(s, CISP_SENSOR_DIGITAL_GAIN, vs->model.dgain_min, vs->model.dgain_max, vs->model.dgain_min,
		    vs->model.delay[CISP_SENSOR_DIGITAL_GAIN]);
	sensor_declare_control(s, CISP_SENSOR_LENS_POSITION, vs->model.lens_min, vs->model.lens_max, vs->model.lens_infinity,
		    vs->model.delay[CISP_SENSOR_LENS_POSITION]);
	sensor_declare_control(s, CISP_SENSOR_TEST_PATTERN, 0, CISP_SENSOR_PATTERN_RAMP, 0,
		    vs->model.delay[CISP_SENSOR_TEST_PATTERN]);
	sensor_declare_control(s, CISP_SENSOR_HFLIP, 0, 1, 0, vs->model.delay[CISP_SENSOR_HFLIP]);
	sensor_declare_control(s, CISP_SENSOR_VFLIP, 0, 1, 0, vs->model.delay[CISP_SENSOR_VFLIP]);
	s->ops = &vs_ops;
	s->priv = vs;
	return 0;
fail:
	vs_close(vs);
	return ret;
}

const struct sensor_backend vsensor_backend = {
	.prefix = "virtual",
	.enumerate = vs_enumerate,
	.open = vs_open,
};

/* ---- ground truth ---- */

static struct vsensor *virtual_of(struct cisp_sensor *s)
{
	return s && s->ops == &vs_ops ? s->priv : NULL;
}

static int not_virtual(void)
{
	return cisp_error(-ENOTSUP, "ground truth exists only for virtual sensors");
}

int cisp_vsensor_chart_patch(struct cisp_sensor *s, unsigned index, struct cisp_vsensor_patch *patch)
{
	struct vsensor *vs = virtual_of(s);
	int32_t v[CISP_SENSOR_NUM_CONTROLS], rect[4];
	struct vs_view view;
	double white_xyz[3], white_cam[3];
	int ret;

	if (!vs)
		return not_virtual();
	frame_controls(vs, vs->sequence, v);
	view = view_of(vs, (v[CISP_SENSOR_HFLIP] ? 1 : 0) | (v[CISP_SENSOR_VFLIP] ? 2 : 0));
	ret = vs_scene_chart_rect(vs->scene, &view, index, rect);
	if (ret < 0)
		return ret;
	patch->name = vs_colorchecker[index].name;
	patch->x = rect[0];
	patch->y = rect[1];
	patch->width = rect[2];
	patch->height = rect[3];
	vs_xyz(vs->spd, vs_colorchecker[index].r, patch->xyz);
	vs_xyz(vs->spd, NULL, white_xyz);
	vs_camera_rgb(&vs->model.camera, vs->spd, vs_colorchecker[index].r, patch->camera);
	vs_camera_rgb(&vs->model.camera, vs->spd, NULL, white_cam);
	for (int c = 0; c < 3; c++) {
		patch->xyz[c] /= white_xyz[1];
		patch->camera[c] /= white_cam[1];
		patch->white_xyz[c] = white_xyz[c] / white_xyz[1];
		patch->white_camera[c] = white_cam[c] / white_cam[1];
	}
	return 0;
}

int cisp_vsensor_truth(struct cisp_sensor *s, struct cisp_vsensor_truth *t)
{
	struct vsensor *vs = virtual_of(s);
	const struct cisp_sensor_mode *md;
	double bin;

	if (!vs)
		return not_virtual();
	md = vmode(vs);
	bin = md->binning;
	memset(t, 0, sizeof(*t));
	t->focus_position = focus_position(vs);
	t->blur_sigma_focused = vs->blur ? vs->model.blur_sigma / bin : 0;
	t->blur_sigma_per_step = vs->blur ? vs->model.blur_per_step / bin : 0;
	t->electrons_per_lux_s = vs->model.sensitivity;
	t->gain_dn_per_e = mode_gain(vs);
	t->read_noise_e = vs->model.read_noise;
	t->adc_noise_dn = ldexp(vs->model.adc_noise, (int)md->bits - (int)vs->model.bit_depth);
	t->full_well_e = vs->model.full_well;
	t->dark_current_e_s = vs->model.dark_current;
	t->num_defects = vs->show_defects ? vs->num_defects : 0;
	return 0;
}

int cisp_vsensor_shake(struct cisp_sensor *s, uint64_t timestamp_ns, uint32_t row, double *dx, double *dy)
{
	struct vsensor *vs = virtual_of(s);

	if (!vs)
		return not_virtual();
	if (row >= vmode(vs)->height)
		return cisp_error(-EINVAL, "virtual sensor: row %u is outside the %u-row mode", row, vmode(vs)->height);
	vs_shake_offset(vs->seed, vs->shake, (timestamp_ns + (uint64_t)llround(row * cisp_sensor_line_ns(vmode(vs)))) * 1e-9,
			dx, dy);
	return 0;
}

int vs_gyro_source(struct cisp_sensor *s, struct vs_gyro_source *src)
{
	struct vsensor *vs = virtual_of(s);

	if (!vs)
		return cisp_error(-ENOTSUP, "sensor %s has no gyroscope", s ? cisp_sensor_info(s)->name : "(none)");
	src->seed = vs->seed;
	src->amplitude = vs->shake;
	src->focal_px = vs_gyro_focal_px(vs->model.array_width, vmode(vs)->binning);
	return 0;
}

int cisp_vsensor_noise_model(struct cisp_sensor *s, int32_t analogue_gain, int32_t digital_gain, double *a,
			     double *b)
{
	struct vsensor *vs = virtual_of(s);
	const struct cisp_sensor_mode *md;
	double g, n, adc, dg;

	if (!vs)
		return not_virtual();
	md = vmode(vs);
	n = (double)md->binning * md->binning;
	g = mode_gain(vs) * analogue_gain / 256.0;
	adc = ldexp(vs->model.adc_noise, (int)md->bits - (int)vs->model.bit_depth);
	dg = digital_gain / 256.0;
	*a = dg * g / n;
	*b = dg * dg * (g * g * vs->model.read_noise * vs->model.read_noise / n + adc * adc + 1.0 / 12) +
	     (digital_gain != 256 ? 1.0 / 12 : 0);
	return 0;
}

int cisp_vsensor_defects(struct cisp_sensor *s, struct cisp_vsensor_defect *list, unsigned max)
{
	struct vsensor *vs = virtual_of(s);
	unsigned n;

	if (!vs)
		return not_virtual();
	n = vs->show_defects ? vs->num_defects : 0;
	for (unsigned i = 0; i < n && i < max; i++)
		list[i] = vs->defects[i];
	return (int)n;
}
