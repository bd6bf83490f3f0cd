/* SPDX-License-Identifier: MIT */
/*
 * bench-control: the 3A loop (docs/control.md) closed on the virtual sensor,
 * with the sensor's control delays and noise, and the figures that judge it.
 *
 *   bench-control [-v] [--sensor NAME] [--mode N] [--tuning FILE|uncalibrated] [--scene NAME]
 *                 [--repeats N] [ae|af|flicker|awb|all|cost]
 *
 * ae:      converge at 400 lux (the colour chart, or --scene), then step the light to 1/8 and back (8x under-
 *          and over-exposure): frames until every later frame is within 5% of
 *          the target, overshoot past it, and over the next 200 frames the
 *          largest error and how often the exposure changed.
 * af:      continuous AF on the resolution chart at several distances and
 *          light levels, from stream start with the lens at its default, and
 *          switched on with exposure settled and the lens at the near end:
 *          frames to focus, and the distance of the chosen position from the
 *          sharpness peak (ground truth from the sensor) as a fraction of the
 *          lens range.
 * flicker: 50 Hz lighting, auto detection: frames to detect, and the banding
 *          amplitude of the row means after convergence, measured against a
 *          frame of the same exposure with the light made steady; the same
 *          with anti-flicker off as a baseline.
 * awb:     the ColorChecker under D65, A and F2: angular error of the neutral
 *          patches after the whole ISP (needs the AWB and colour algorithms).
 * cost:    the loop's own time per frame on recorded frames, and a digest of
 *          its results (not part of all).
 *
 * -v prints one line per frame.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cisp/control.h>
#include <cisp/error.h>
#include <cisp/image.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>
#include <cisp/sensor.h>
#include <cisp/tuning.h>

static bool verbose;
static const char *sensor_name = "virtual:cisp-test";
static unsigned mode_index;
static const char *tuning_file;
static const char *ae_scene = "colorchart";

struct loop {
	struct cisp_tuning *t;
	struct cisp_sensor *s;
	struct cisp_sensor_mode mode;
	struct cisp_isp *isp;
	struct cisp_control *c;
	struct cisp_image raw, out;
	struct cisp_stats stats;
	struct cisp_sensor_metadata md;
	struct cisp_control_result res;
	bool develop; /* run the whole ISP (for AWB), not only the statistics */
};

static void die(const char *what, int err)
{
	fprintf(stderr, "bench-control: %s: %s (%d)\n", what, cisp_last_error(), err);
	exit(1);
}

static void apply_params(struct loop *l)
{
	size_t size;
	int r = cisp_params_encode(l->res.params, l->res.params_changed, NULL, 0, &size);
	void *buf = r < 0 ? NULL : malloc(size);
	if (!buf || (r = cisp_params_encode(l->res.params, l->res.params_changed, buf, size, &size)) < 0 ||
	    (r = cisp_isp_set_params(l->isp, buf, size)) < 0)
		die("params", r);
	free(buf);
}

static void loop_open(struct loop *l, const char *options, bool develop)
{
	int r;
	memset(l, 0, sizeof(*l));
	l->develop = develop;
	if ((r = cisp_sensor_open(&l->s, sensor_name, options)) < 0 || (r = cisp_sensor_set_mode(l->s, mode_index)) < 0 ||
	    (r = cisp_sensor_get_mode(l->s, mode_index, &l->mode)) < 0)
		die(sensor_name, r);
	if (tuning_file && !strcmp(tuning_file, "uncalibrated"))
		r = cisp_tuning_uncalibrated(&l->t);
	else if (tuning_file)
		r = cisp_tuning_load(&l->t, tuning_file);
	else
		r = cisp_tuning_find(&l->t, cisp_sensor_info(l->s)->model, NULL);
	if (r < 0)
		die("tuning", r);
	struct cisp_control_config cfg = { .tuning = l->t, .mode = l->mode };
	for (int i = 0; i < CISP_SENSOR_NUM_CONTROLS; i++)
		cisp_sensor_control_info(l->s, (enum cisp_sensor_control)i, &cfg.controls[i]);
	if ((r = cisp_control_create(&l->c, &cfg)) < 0)
		die("control", r);
	struct cisp_isp_config ic = { .input_format = l->mode.format, .width = l->mode.width, .height = l->mode.height };
	ic.output[0] = (struct cisp_output_config){ CISP_FMT_RGB48, l->mode.width, l->mode.height };
	if ((r = cisp_isp_create(&l->isp, &ic)) < 0 ||
	    (r = cisp_image_alloc(&l->raw, l->mode.format, l->mode.width, l->mode.height)) < 0 ||
	    (r = cisp_image_alloc(&l->out, CISP_FMT_RGB48, l->mode.width, l->mode.height)) < 0)
		die("isp", r);
}

static void loop_start(struct loop *l)
{
	int r;
	if ((r = cisp_control_start(l->c, &l->res)) < 0 || (r = cisp_sensor_set_controls(l->s, &l->res.sensor)) < 0)
		die("start", r);
	apply_params(l);
	if ((r = cisp_sensor_start(l->s)) < 0)
		die("sensor start", r);
}

static void loop_step(struct loop *l)
{
	int r;
	if ((r = cisp_sensor_capture(l->s, &l->raw, &l->md, 0)) < 0)
		die("capture", r);
	struct cisp_image *const outs[CISP_MAX_OUTPUTS] = { &l->out };
	r = l->develop ? cisp_isp_process(l->isp, &l->raw, outs, &l->stats, NULL)
		       : cisp_isp_statistics(l->isp, &l->raw, NULL, &l->stats, NULL);
	if (r < 0 || (r = cisp_control_process(l->c, &l->stats, &l->md, &l->res)) < 0)
		die("process", r);
	if (l->res.sensor.mask) {
		r = cisp_sensor_queue_controls(l->s, l->res.sensor_sequence, &l->res.sensor);
		if (r == -EAGAIN)
			r = cisp_sensor_set_controls(l->s, &l->res.sensor);
		if (r < 0)
			die("controls", r);
	}
	if (l->res.params_changed)
		apply_params(l);
	if (verbose) {
		const struct cisp_control_state *s = &l->res.state;
		printf("  frame %3llu  used exp %5d ag %5d dg %4d lens %4d | error %.3f %-9s flicker %2u | lens %4d "
		       "sharp %.4f af %-8s | ct %5.0f awb %s\n",
		       (unsigned long long)l->md.sequence, l->md.controls[CISP_SENSOR_EXPOSURE],
		       l->md.controls[CISP_SENSOR_ANALOGUE_GAIN], l->md.controls[CISP_SENSOR_DIGITAL_GAIN],
		       l->md.controls[CISP_SENSOR_LENS_POSITION], s->ae_error, cisp_ae_state_name(s->ae_state),
		       s->flicker_hz, s->lens_position, s->sharpness, cisp_af_state_name(s->af_state),
		       s->colour_temperature, cisp_awb_state_name(s->awb_state));
	}
}

static void loop_close(struct loop *l)
{
	cisp_control_destroy(l->c);
	cisp_isp_destroy(l->isp);
	cisp_sensor_close(l->s);
	cisp_image_free(&l->raw);
	cisp_image_free(&l->out);
	cisp_tuning_free(l->t);
}

static double product(const struct cisp_control_state *s)
{
	return s->exposure_us * s->analogue_gain * s->digital_gain;
}

/*
 * Run @frames frames after a change; report the frames until every later
 * frame is within 5% of the target (-1: never), and the overshoot past the
 * target on the far side (@from_below: the start was too dark).
 */
static int settle(struct loop *l, unsigned frames, bool from_below, double *overshoot)
{
	int settled = -1;
	*overshoot = 0;
	for (unsigned n = 0; n < frames; n++) {
		loop_step(l);
		double e = l->res.state.ae_error;
		if (fabs(e - 1) <= 0.05) {
			if (settled < 0)
				settled = (int)n + 1;
		} else {
			settled = -1;
		}
		*overshoot = fmax(*overshoot, from_below ? e - 1 : 1 - e);
	}
	return settled;
}

/* 200 frames: the largest error and how many frames changed the exposure product. */
static void stability(struct loop *l, double *worst, unsigned *changes)
{
	double last = product(&l->res.state);
	*worst = 0;
	*changes = 0;
	for (unsigned n = 0; n < 200; n++) {
		loop_step(l);
		*worst = fmax(*worst, fabs(l->res.state.ae_error - 1));
		double p = product(&l->res.state);
		*changes += fabs(p / last - 1) > 1e-9;
		last = p;
	}
}

static void bench_ae(void)
{
	struct loop l;
	double over, worst;
	unsigned changes;

	char opt[160];
	snprintf(opt, sizeof(opt), "scene=%s,lux=400,seed=11", ae_scene);
	printf("AE: %s mode %u, %s, centre metering; a frame counts when its own statistics are within 5%%\n",
	       sensor_name, mode_index, ae_scene);
	loop_open(&l, opt, false);
	loop_start(&l);
	int first = settle(&l, 40, true, &over);
	double base = product(&l.res.state);
	printf("ae start (10 ms x1 at 400 lux): settled in %d frames, product %.0f us (exp %.0f us, again %.2f), "
	       "lux estimate %.0f\n",
	       first, base, l.res.state.exposure_us, l.res.state.analogue_gain, l.res.state.lux);

	static const struct {
		const char *lux, *what;
		bool from_below;
		double ratio;
	} steps[] = { { "50", "8x under-exposure (400 -> 50 lux)", true, 8 },
		      { "400", "8x over-exposure (50 -> 400 lux)", false, 1 },
		      { "3200", "8x over-exposure (400 -> 3200 lux)", false, 1.0 / 8 },
		      { "400", "8x under-exposure (3200 -> 400 lux)", true, 1 } };
	for (unsigned i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		cisp_sensor_set_option(l.s, "lux", steps[i].lux);
		int frames = settle(&l, 30, steps[i].from_below, &over);
		double ratio = product(&l.res.state) / base;
		stability(&l, &worst, &changes);
		printf("ae %-36s: within 5%% after %2d frames, overshoot %4.1f%%, product x%.3f (ideal x%.3f); "
		       "next 200 frames: max error %.1f%%, product changed on %u\n",
		       steps[i].what, frames, 100 * fmax(over, 0), ratio, steps[i].ratio, 100 * worst, changes);
	}
	loop_close(&l);
}

static void bench_af(void)
{
	static const struct {
		const char *distance, *lux;
		bool near_start; /* the lens starts at the near end of its range, exposure settled */
	} cases[] = { { "0.3", "400", false }, { "0.5", "400", false }, { "0.8", "400", false }, { "1.5", "400", false },
		      { "5", "400", false },   { "0.8", "25", false },  { "0.8", "5", false },    { "0.8", "400", true },
		      { "5", "400", true } };
	printf("AF: %s mode %u, resolution chart, continuous AF; error as a fraction of the lens range\n", sensor_name,
	       mode_index);
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct loop l;
		char opt[128];
		snprintf(opt, sizeof(opt), "scene=resolution,lux=%s,seed=12,distance=%s", cases[i].lux, cases[i].distance);
		loop_open(&l, opt, false);
		struct cisp_sensor_control_info lens;
		cisp_sensor_control_info(l.s, CISP_SENSOR_LENS_POSITION, &lens);
		struct cisp_vsensor_truth truth;
		cisp_vsensor_truth(l.s, &truth);
		unsigned first = 0;
		if (cases[i].near_start) {
			/* Manual focus at the near end until exposure has settled, then continuous AF. */
			struct cisp_control_request r = { .mask = CISP_REQ_AF_MODE | CISP_REQ_LENS_POSITION,
							  .af_mode = CISP_AF_MANUAL,
							  .lens_position = lens.max };
			cisp_control_request(l.c, &r);
			loop_start(&l);
			for (; first < 10; first++)
				loop_step(&l);
			r = (struct cisp_control_request){ .mask = CISP_REQ_AF_MODE, .af_mode = CISP_AF_CONTINUOUS };
			cisp_control_request(l.c, &r);
		} else {
			loop_start(&l);
		}
		int scan_start = -1, focused = -1;
		for (unsigned n = first; n < first + 100 && focused < 0; n++) {
			loop_step(&l);
			if (scan_start < 0 && l.md.controls[CISP_SENSOR_LENS_POSITION] != l.res.state.lens_position)
				scan_start = (int)n;
			if (l.res.state.af_state == CISP_AF_FOCUSED || l.res.state.af_state == CISP_AF_FAILED)
				focused = (int)(n - first) + 1;
		}
		int32_t pos = l.res.state.lens_position;
		printf("af distance %-4s m, %3s lux (gain x%4.1f), lens from %4d: peak %4d, chosen %4d, error %.2f%% of range, "
		       "%s after %d frames (%d from the scan's first move)\n",
		       cases[i].distance, cases[i].lux, l.res.state.analogue_gain * l.res.state.digital_gain,
		       cases[i].near_start ? lens.max : lens.def, truth.focus_position, pos,
		       100.0 * abs(pos - truth.focus_position) / (lens.max - lens.min),
		       cisp_af_state_name(l.res.state.af_state), focused, focused - (scan_start - (int)first));
		loop_close(&l);
	}
}

/* Mean of each pixel row of a raw frame (above black). */
static void raw_rows(const struct loop *l, double *rows)
{
	for (uint32_t y = 0; y < l->raw.height; y++) {
		const uint16_t *p = (const uint16_t *)(l->raw.plane[0].data + y * l->raw.plane[0].stride);
		double sum = 0;
		for (uint32_t x = 0; x < l->raw.width; x++)
			sum += p[x];
		rows[y] = sum / l->raw.width - l->mode.black_level;
	}
}

/*
 * The banding amplitude of frame rows @a against steady-light rows @b: a
 * least-squares fit of c + u cos(w t) + v sin(w t) to a / b, amplitude
 * hypot(u, v) / c.
 */
static double banding(const double *a, const double *b, unsigned n, double line_s, double hz)
{
	double ata[3][3] = { { 0 } }, atb[3] = { 0 };
	for (unsigned y = 0; y < n; y++) {
		if (b[y] <= 1)
			continue;
		double t = y * line_s, f[3] = { 1, cos(2 * M_PI * hz * t), sin(2 * M_PI * hz * t) };
		for (int i = 0; i < 3; i++) {
			for (int j = 0; j < 3; j++)
				ata[i][j] += f[i] * f[j];
			atb[i] += f[i] * a[y] / b[y];
		}
	}
	/* Cramer's rule on the 3x3 normal equations. */
	double det = ata[0][0] * (ata[1][1] * ata[2][2] - ata[1][2] * ata[2][1]) -
		     ata[0][1] * (ata[1][0] * ata[2][2] - ata[1][2] * ata[2][0]) +
		     ata[0][2] * (ata[1][0] * ata[2][1] - ata[1][1] * ata[2][0]);
	double x[3];
	for (int k = 0; k < 3; k++) {
		double m[3][3];
		memcpy(m, ata, sizeof(m));
		for (int i = 0; i < 3; i++)
			m[i][k] = atb[i];
		x[k] = (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
			m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])) /
		       det;
	}
	return hypot(x[1], x[2]) / x[0];
}

/* The banding of the current converged state: this frame against the next with the light steady. */
static double measure_banding(struct loop *l, double *exposure_ms)
{
	double *a = malloc(l->mode.height * sizeof(double)), *b = malloc(l->mode.height * sizeof(double));
	loop_step(l);
	raw_rows(l, a);
	int32_t exposure = l->md.controls[CISP_SENSOR_EXPOSURE];
	*exposure_ms = l->md.exposure_ns / 1e6;
	cisp_sensor_set_option(l->s, "flicker", "0");
	loop_step(l);
	raw_rows(l, b);
	cisp_sensor_set_option(l->s, "flicker", "50");
	double amp = l->md.controls[CISP_SENSOR_EXPOSURE] == exposure
			     ? banding(a, b, l->mode.height, cisp_sensor_line_ns(&l->mode) * 1e-9, 100)
			     : NAN;
	free(a);
	free(b);
	return amp;
}

static void bench_flicker(void)
{
	printf("Flicker: %s mode %u, colorchart at 700 lux under 50 Hz mains (light depth 0.3)\n", sensor_name,
	       mode_index);
	for (int pass = 0; pass < 2; pass++) {
		struct loop l;
		loop_open(&l, "scene=colorchart,lux=700,flicker=50,seed=13", false);
		if (pass == 0) {
			const struct cisp_control_request r = { .mask = CISP_REQ_FLICKER, .flicker = CISP_FLICKER_OFF };
			cisp_control_request(l.c, &r);
		}
		loop_start(&l);
		int detected = -1;
		for (unsigned n = 0; n < 60; n++) {
			loop_step(&l);
			if (detected < 0 && l.res.state.flicker_hz == 50)
				detected = (int)n + 1;
		}
		double ms, amp = measure_banding(&l, &ms);
		if (pass == 0)
			printf("flicker off (baseline): exposure %.2f ms, banding amplitude %.2f%%\n", ms, 100 * amp);
		else
			printf("flicker auto: detected 50 Hz after %d frames; exposure %.2f ms x%.2f gain, banding amplitude "
			       "%.2f%%, AE error %.1f%%\n",
			       detected, ms, l.res.state.analogue_gain * l.res.state.digital_gain, 100 * amp,
			       100 * fabs(l.res.state.ae_error - 1));
		loop_close(&l);
	}
}

/* A 16-bit sRGB-encoded sample as linear light, 0..1. */
static double srgb_to_linear(uint16_t v)
{
	double e = v / 65535.0;

	return e <= 0.04045 ? e / 12.92 : pow((e + 0.055) / 1.055, 2.4);
}

/*
 * The angle between the mean linear RGB of a box of the ISP's output (the
 * tone curve undone) and grey, in degrees.
 */
static double neutral_angle(const struct cisp_image *out, int x0, int y0, int w, int h)
{
	double rgb[3] = { 0, 0, 0 }, dot, norm;

	for (int y = y0; y < y0 + h; y++) {
		const uint16_t *row = (const uint16_t *)(out->plane[0].data + (size_t)y * out->plane[0].stride);

		for (int x = x0; x < x0 + w; x++)
			for (int c = 0; c < 3; c++)
				rgb[c] += srgb_to_linear(row[3 * x + c]);
	}
	dot = (rgb[0] + rgb[1] + rgb[2]) / sqrt(3.0);
	norm = sqrt(rgb[0] * rgb[0] + rgb[1] * rgb[1] + rgb[2] * rgb[2]);
	return norm > 0 ? acos(fmin(1.0, dot / norm)) * 180 / M_PI : 90;
}

static void bench_awb(void)
{
	static const char *const lights[] = { "D65", "A", "F2" };
	static const char *const dominant[] = { "green", "red", "blue", "foliage", "purple" };

	printf("AWB: %s mode %u, 40 frames, then angular errors in linear RGB of the ISP's output (RGB48, the tone "
	       "curve undone)\n",
	       sensor_name, mode_index);
	for (unsigned i = 0; i < sizeof(lights) / sizeof(lights[0]); i++) {
		struct loop l;
		char opt[96];
		double worst = 0, sum = 0;
		unsigned count = 0;

		snprintf(opt, sizeof(opt), "scene=colorchart,lux=400,seed=14,illuminant=%s", lights[i]);
		loop_open(&l, opt, true);
		loop_start(&l);
		for (unsigned n = 0; n < 40; n++)
			loop_step(&l);
		/* The neutral row of the chart: white 9.5 .. black 2 are patches 18..23; skip the clipped white and dark black. */
		for (unsigned p = 19; p <= 22; p++) {
			struct cisp_vsensor_patch patch;
			double angle;

			if (cisp_vsensor_chart_patch(l.s, p, &patch) < 0)
				continue;
			angle = neutral_angle(&l.out, patch.x + patch.width / 4, patch.y + patch.height / 4, patch.width / 2,
					      patch.height / 2);
			worst = fmax(worst, angle);
			sum += angle;
			count++;
		}
		printf("awb %-4s: estimated %5.0f K (%s), neutral patches: mean angular error %.2f deg, max %.2f deg\n",
		       lights[i], l.res.state.colour_temperature, cisp_awb_state_name(l.res.state.awb_state),
		       count ? sum / count : NAN, worst);
		loop_close(&l);
	}
	/* One colour filling the frame, with a neutral 5 card at (aspect - 0.2 .. aspect - 0.1, 0.8 .. 0.9) heights. */
	for (unsigned d = 0; d < sizeof(dominant) / sizeof(dominant[0]); d++) {
		printf("awb dominant %-8s:", dominant[d]);
		for (unsigned i = 0; i < sizeof(lights) / sizeof(lights[0]); i++) {
			struct loop l;
			char opt[96];
			int h, x0;

			snprintf(opt, sizeof(opt), "scene=dominant:%s,lux=400,seed=14,illuminant=%s", dominant[d], lights[i]);
			loop_open(&l, opt, true);
			loop_start(&l);
			for (unsigned n = 0; n < 40; n++)
				loop_step(&l);
			h = (int)l.mode.height;
			x0 = (int)l.mode.width - (int)(0.2 * h);
			printf("  %s %.2f deg", lights[i], neutral_angle(&l.out, x0 + h / 40, h * 8 / 10 + h / 40, h / 20, h / 20));
			loop_close(&l);
		}
		printf("\n");
	}
}

/* ---- cost ---- */

/* One recorded frame: what the loop saw. */
struct recorded {
	struct cisp_stats stats;
	struct cisp_sensor_metadata md;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* FNV-1a over @size bytes. */
static uint64_t digest_bytes(uint64_t h, const void *data, size_t size)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < size; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* Everything a result says: the controls, their frame, the parameters (as the ISP gets them), the state. */
static uint64_t digest_result(uint64_t h, const struct cisp_control_result *res)
{
	const struct cisp_control_state *s = &res->state;
	size_t size;

	h = digest_bytes(h, &res->sensor.mask, sizeof(res->sensor.mask));
	for (int i = 0; i < CISP_SENSOR_NUM_CONTROLS; i++)
		if (res->sensor.mask & (1u << i))
			h = digest_bytes(h, &res->sensor.value[i], sizeof(res->sensor.value[i]));
	h = digest_bytes(h, &res->sensor_sequence, sizeof(res->sensor_sequence));
	h = digest_bytes(h, &res->params_changed, sizeof(res->params_changed));
	if (res->params_changed && cisp_params_encode(res->params, res->params_changed, NULL, 0, &size) == 0) {
		void *buf = malloc(size);

		if (!buf || cisp_params_encode(res->params, res->params_changed, buf, size, &size) < 0)
			die("encode", -EINVAL);
		h = digest_bytes(h, buf, size);
		free(buf);
	}
	const double values[] = { s->ae_error, s->exposure_us, s->analogue_gain, s->digital_gain, s->lux,
				  s->colour_temperature, s->colour_gains[0], s->colour_gains[1], s->sharpness };
	const int32_t ints[] = { (int32_t)s->ae_state, (int32_t)s->flicker_hz, s->flicker_detected,
				 (int32_t)s->awb_state, (int32_t)s->af_state, s->lens_position };
	h = digest_bytes(h, &s->sequence, sizeof(s->sequence));
	h = digest_bytes(h, values, sizeof(values));
	return digest_bytes(h, ints, sizeof(ints));
}

/* Requests made during a replay, at the frame they are made before. */
static const struct {
	unsigned frame;
	struct cisp_control_request req;
} cost_requests[] = {
	{ 100, { .mask = CISP_REQ_AE_ENABLE | CISP_REQ_EXPOSURE | CISP_REQ_ANALOGUE_GAIN, .exposure_us = 8000,
		 .analogue_gain = 2 } },
	{ 110, { .mask = CISP_REQ_AWB_ENABLE | CISP_REQ_COLOUR_TEMPERATURE, .colour_temperature = 3200 } },
	{ 120, { .mask = CISP_REQ_AE_ENABLE | CISP_REQ_AWB_ENABLE | CISP_REQ_EV, .ae_enable = true, .awb_enable = true,
		 .ev = 0.5 } },
	{ 130, { .mask = CISP_REQ_METERING | CISP_REQ_FLICKER, .metering = CISP_AE_METERING_SPOT,
		 .flicker = CISP_FLICKER_60HZ } },
	{ 140, { .mask = CISP_REQ_AF_MODE | CISP_REQ_LENS_POSITION, .af_mode = CISP_AF_MANUAL, .lens_position = 300 } },
	{ 150, { .mask = CISP_REQ_AF_MODE | CISP_REQ_AF_TRIGGER | CISP_REQ_FLICKER, .af_mode = CISP_AF_AUTO,
		 .flicker = CISP_FLICKER_AUTO } },
	{ 160, { .mask = CISP_REQ_AWB_ENABLE | CISP_REQ_COLOUR_GAINS, .colour_gains = { 1.9, 1.4 } } },
	{ 170, { .mask = CISP_REQ_AWB_ENABLE | CISP_REQ_FRAME_DURATION, .awb_enable = true,
		 .frame_duration_us = { 40000, 40000 } } },
};

/*
 * Replay @n recorded frames through a fresh loop: the seconds spent in
 * cisp_control_process(), and (when @h is not NULL) the digest of every result.
 */
static double replay(struct loop *l, const struct recorded *rec, unsigned n, uint64_t *h)
{
	struct cisp_control_config cfg = { .tuning = l->t, .mode = l->mode };
	struct cisp_control *c;
	struct cisp_control_result res;
	double spent = 0;
	unsigned next = 0;
	int r;

	for (int i = 0; i < CISP_SENSOR_NUM_CONTROLS; i++)
		cisp_sensor_control_info(l->s, (enum cisp_sensor_control)i, &cfg.controls[i]);
	if ((r = cisp_control_create(&c, &cfg)) < 0 || (r = cisp_control_start(c, &res)) < 0)
		die("control", r);
	if (h)
		*h = digest_result(*h, &res);
	for (unsigned f = 0; f < n; f++) {
		for (; next < sizeof(cost_requests) / sizeof(cost_requests[0]) && cost_requests[next].frame == f; next++)
			if ((r = cisp_control_request(c, &cost_requests[next].req)) < 0)
				die("request", r);
		double t0 = now_s();
		r = cisp_control_process(c, &rec[f].stats, &rec[f].md, &res);
		spent += now_s() - t0;
		if (r < 0)
			die("process", r);
		if (h)
			*h = digest_result(*h, &res);
	}
	cisp_control_destroy(c);
	return spent;
}

/*
 * The loop's own cost: 200 frames of statistics and metadata recorded from
 * the loop closed on the sensor (AE steps, a continuous-AF scan, 50 Hz
 * flicker), replayed through fresh loops with manual requests on the way.
 * Prints the time per frame (best and median of the repetitions) and a
 * digest of every result, so that two builds can be compared for speed and
 * for identical output.
 */
static void bench_cost(unsigned repeats)
{
	enum { FRAMES = 200 };
	struct recorded *rec = malloc(FRAMES * sizeof(*rec));
	double *times = malloc(repeats * sizeof(*times));
	struct loop l;
	uint64_t h = 0xcbf29ce484222325ull;

	if (!rec || !times)
		die("out of memory", -ENOMEM);
	loop_open(&l, "scene=resolution,lux=400,seed=15,distance=0.8,flicker=50,flicker_depth=0.3", false);
	loop_start(&l);
	for (unsigned f = 0; f < FRAMES; f++) {
		if (f == 60)
			cisp_sensor_set_option(l.s, "lux", "50");
		if (f == 120)
			cisp_sensor_set_option(l.s, "lux", "3200");
		loop_step(&l);
		rec[f].stats = l.stats;
		rec[f].md = l.md;
	}
	replay(&l, rec, FRAMES, &h);
	for (unsigned i = 0; i < repeats; i++)
		times[i] = replay(&l, rec, FRAMES, NULL) / FRAMES;
	for (unsigned i = 1; i < repeats; i++)
		for (unsigned k = i; k > 0 && times[k] < times[k - 1]; k--) {
			double x = times[k];
			times[k] = times[k - 1];
			times[k - 1] = x;
		}
	printf("cost: %s mode %u, %u frames x %u replays: cisp_control_process() %.2f us a frame (best), %.2f us "
	       "(median); results digest %016llx\n",
	       sensor_name, mode_index, FRAMES, repeats, times[0] * 1e6, times[repeats / 2] * 1e6,
	       (unsigned long long)h);
	loop_close(&l);
	free(times);
	free(rec);
}

int main(int argc, char **argv)
{
	const char *what = "all";
	unsigned repeats = 50;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = true;
		else if (!strcmp(argv[i], "--sensor") && i + 1 < argc)
			sensor_name = argv[++i];
		else if (!strcmp(argv[i], "--mode") && i + 1 < argc)
			mode_index = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tuning") && i + 1 < argc)
			tuning_file = argv[++i];
		else if (!strcmp(argv[i], "--scene") && i + 1 < argc)
			ae_scene = argv[++i];
		else if (!strcmp(argv[i], "--repeats") && i + 1 < argc && atoi(argv[i + 1]) > 0)
			repeats = (unsigned)atoi(argv[++i]);
		else if (argv[i][0] != '-')
			what = argv[i];
		else {
			fprintf(stderr, "usage: bench-control [-v] [--sensor NAME] [--mode N] [--tuning FILE|uncalibrated] "
					"[--scene NAME] [--repeats N] [ae|af|flicker|awb|all|cost]\n");
			return 2;
		}
	}
	bool all = !strcmp(what, "all");
	if (all || !strcmp(what, "ae"))
		bench_ae();
	if (all || !strcmp(what, "af"))
		bench_af();
	if (all || !strcmp(what, "flicker"))
		bench_flicker();
	if (all || !strcmp(what, "awb"))
		bench_awb();
	if (!strcmp(what, "cost"))
		bench_cost(repeats);
	return 0;
}
