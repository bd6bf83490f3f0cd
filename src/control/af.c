/* SPDX-License-Identifier: MIT */
/*
 * Contrast autofocus: docs/control.md, "AF".
 */
#include <math.h>
#include <stdlib.h>

#include "af.h"
#include "algorithm.h"

/* AF scans once exposure is this close to its aim (or AE is settled, limited or manual). */
#define SETTLED_ERROR 0.25

static int32_t clampi(int64_t v, int32_t lo, int32_t hi)
{
	return v < lo ? lo : v > hi ? hi : (int32_t)v;
}

void af_init(struct af *af, const struct cisp_tuning *t, int32_t motor_min, int32_t motor_max, unsigned latency,
	     int32_t position)
{
	*af = (struct af){ .t = t, .latency = latency, .mode = CISP_AF_CONTINUOUS };
	af->min = clampi(t->af.position_min, motor_min, motor_max);
	af->max = clampi(t->af.position_max, motor_min, motor_max);
	if (af->max < af->min)
		af->max = af->min;
	af->position = clampi(position, motor_min, motor_max);
	af->manual = af->position;
	af_reset(af);
}

static void start_scan(struct af *af)
{
	af->phase = AF_PHASE_WAIT;
	af->state = CISP_AF_SCANNING;
	af->npts = 0;
	af->changed = 0;
}

void af_reset(struct af *af)
{
	af->phase = AF_PHASE_IDLE;
	af->state = CISP_AF_IDLE;
	af->npts = 0;
	af->changed = 0;
	if (af->mode == CISP_AF_CONTINUOUS)
		start_scan(af);
}

void af_set_mode(struct af *af, enum cisp_af_mode mode, int32_t manual)
{
	af->manual = manual;
	if (mode == af->mode)
		return;
	af->mode = mode;
	af->phase = AF_PHASE_IDLE;
	af->state = CISP_AF_IDLE;
	if (mode == CISP_AF_CONTINUOUS)
		start_scan(af);
}

void af_trigger(struct af *af)
{
	if (af->mode != CISP_AF_MANUAL)
		start_scan(af);
}

/* Plan a sweep of @n positions over [lo, hi], starting at the end nearer the lens. */
static void plan_sweep(struct af *af, int32_t lo, int32_t hi, unsigned n)
{
	af->plan_n = 0;
	af->next = 0;
	af->phase_frames = 0;
	if (n < 2 || hi <= lo)
		n = 1;
	/* A sweep longer than the room left is spread over the same range with fewer positions. */
	if (n > AF_MAX_POINTS - af->npts)
		n = AF_MAX_POINTS - af->npts;
	bool down = abs(af->position - hi) < abs(af->position - lo);
	for (unsigned i = 0; i < n; i++) {
		double f = n > 1 ? (double)i / (n - 1) : 0.5;
		int32_t p = (int32_t)lround(lo + f * (hi - lo));
		if (down)
			p = hi - (p - lo);
		/* Skip positions already measured in this scan. */
		bool known = false;
		for (unsigned k = 0; k < af->npts; k++)
			known |= af->pts[k].position == p;
		for (unsigned k = 0; k < af->plan_n; k++)
			known |= af->plan[k] == p;
		if (!known)
			af->plan[af->plan_n++] = p;
	}
}

static bool sweep_done(const struct af *af)
{
	for (unsigned i = 0; i < af->plan_n; i++) {
		bool seen = false;
		for (unsigned k = 0; k < af->npts; k++)
			seen |= af->pts[k].position == af->plan[i];
		if (!seen)
			return af->phase_frames > af->plan_n + af->latency + 2; /* frames went missing: go on */
	}
	return true;
}

static int cmp_point(const void *a, const void *b)
{
	const struct af_point *p = a, *q = b;
	return (p->position > q->position) - (p->position < q->position);
}

/* The index of the sharpest point measured. */
static unsigned best_point(const struct af *af)
{
	unsigned best = 0;
	for (unsigned k = 1; k < af->npts; k++)
		if (af->pts[k].sharpness > af->pts[best].sharpness)
			best = k;
	return best;
}

/* The peak: the vertex of the parabola through the best point and its neighbours. */
static int32_t fit_peak(struct af *af)
{
	qsort(af->pts, af->npts, sizeof(af->pts[0]), cmp_point);
	unsigned i = best_point(af);
	if (i == 0 || i + 1 >= af->npts)
		return af->pts[i].position;
	double x0 = af->pts[i - 1].position, x1 = af->pts[i].position, x2 = af->pts[i + 1].position;
	double y0 = af->pts[i - 1].sharpness, y1 = af->pts[i].sharpness, y2 = af->pts[i + 1].sharpness;
	/* Vertex of the parabola through three points of any spacing. */
	double d0 = (x1 - x0) * (y1 - y2), d1 = (x1 - x2) * (y1 - y0);
	double den = d0 - d1;
	if (fabs(den) < 1e-12)
		return (int32_t)x1;
	double v = x1 - 0.5 * ((x1 - x0) * d0 - (x1 - x2) * d1) / den;
	if (v < x0)
		v = x0;
	if (v > x2)
		v = x2;
	return (int32_t)lround(v);
}

/*
 * The coarse sweep has passed a peak: the best stands out from the lowest by
 * the tuning's contrast (a peak, not noise on a flat stretch), and the two
 * latest positions both fell below it by that contrast. Points are kept in
 * sweep order.
 */
static bool peak_passed(const struct af *af)
{
	if (af->npts < 3)
		return false;
	unsigned best = best_point(af);
	double c = af->t->af.min_contrast, lowest = af->pts[0].sharpness;
	for (unsigned k = 1; k < af->npts; k++)
		lowest = fmin(lowest, af->pts[k].sharpness);
	double limit = af->pts[best].sharpness / c;
	return best + 2 < af->npts && af->pts[best].sharpness > c * lowest && af->pts[af->npts - 1].sharpness < limit &&
	       af->pts[af->npts - 2].sharpness < limit;
}

static void record(struct af *af, int32_t frame_position, double sharpness)
{
	for (unsigned k = 0; k < af->npts; k++)
		if (af->pts[k].position == frame_position)
			return;
	for (unsigned i = 0; i < af->plan_n; i++) {
		if (af->plan[i] == frame_position && af->npts < AF_MAX_POINTS) {
			af->pts[af->npts++] = (struct af_point){ frame_position, sharpness };
			return;
		}
	}
}

int32_t af_process(struct af *af, double sharpness, double luma, int32_t frame_position, bool settled)
{
	const struct cisp_tuning *t = af->t;
	af->sharpness = sharpness;

	if (af->mode == CISP_AF_MANUAL) {
		af->position = af->manual;
		af->state = CISP_AF_IDLE;
		return af->position;
	}

	switch (af->phase) {
	case AF_PHASE_IDLE:
		if (af->mode == CISP_AF_CONTINUOUS && af->state == CISP_AF_FOCUSED) {
			double dl = af->ref_luma > 0 ? fabs(luma / af->ref_luma - 1) : 0;
			double ds = af->ref_sharpness > 0 ? fabs(sharpness / af->ref_sharpness - 1) : 0;
			af->changed = dl > t->af.scene_change || ds > t->af.scene_change ? af->changed + 1 : 0;
			if (af->changed >= AF_CHANGE_FRAMES)
				start_scan(af);
		}
		break;
	case AF_PHASE_WAIT:
		if (settled) {
			af->start_position = af->position;
			af->npts = 0;
			af->phase = AF_PHASE_COARSE;
			plan_sweep(af, af->min, af->max, t->af.coarse_steps);
		}
		break;
	case AF_PHASE_COARSE:
	case AF_PHASE_FINE:
		record(af, frame_position, sharpness);
		af->phase_frames++;
		/* The rest of a coarse sweep past a clear peak is not needed. */
		bool cut = af->phase == AF_PHASE_COARSE && peak_passed(af);
		if (!cut && af->next < af->plan_n) {
			af->position = af->plan[af->next++];
			break;
		}
		if (!cut && !sweep_done(af))
			break;
		if (af->npts == 0) {
			af->state = CISP_AF_FAILED;
			af->phase = AF_PHASE_IDLE;
			af->position = af->start_position;
			break;
		}
		if (af->phase == AF_PHASE_COARSE) {
			double lo = af->pts[0].sharpness, hi = lo;
			for (unsigned k = 1; k < af->npts; k++) {
				lo = fmin(lo, af->pts[k].sharpness);
				hi = fmax(hi, af->pts[k].sharpness);
			}
			if (!(hi > 0) || hi < t->af.min_contrast * lo) {
				/* A flat scene: no peak to find. */
				af->state = CISP_AF_FAILED;
				af->phase = AF_PHASE_IDLE;
				af->position = af->start_position;
				break;
			}
			int32_t best = af->pts[best_point(af)].position;
			int32_t step = t->af.coarse_steps > 1 ? (af->max - af->min) / (int32_t)(t->af.coarse_steps - 1) : 0;
			af->phase = AF_PHASE_FINE;
			plan_sweep(af, clampi((int64_t)best - step, af->min, af->max),
				   clampi((int64_t)best + step, af->min, af->max), t->af.fine_steps);
			if (af->plan_n)
				af->position = af->plan[af->next++];
			break;
		}
		af->target = fit_peak(af);
		af->position = af->target;
		af->phase = AF_PHASE_MOVE;
		af->phase_frames = 0;
		break;
	case AF_PHASE_MOVE:
		af->phase_frames++;
		if (frame_position == af->target || af->phase_frames > af->latency + 2) {
			af->state = CISP_AF_FOCUSED;
			af->phase = AF_PHASE_IDLE;
			af->ref_sharpness = sharpness;
			af->ref_luma = luma;
			af->changed = 0;
		}
		break;
	}
	return af->position;
}

/* ---- the af section ---- */

static const char *const af_keys[] = { "position_range", "coarse_steps", "fine_steps", "scene_change",
				       "min_contrast", NULL };

static int af_key(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct cisp_tuning *t = ctx;
	double d[2];
	int ret;

	switch (i) {
	case 0:
		ret = yaml_reader_numbers(r, v, k, 2, -1e6, 1e6, d);
		if (ret)
			return ret;
		if ((d[0] != floor(d[0]) || d[1] != floor(d[1])))
			return yaml_reader_fail(r, v, k, "positions must be whole numbers");
		if (!(d[1] > d[0]))
			return yaml_reader_fail(r, v, k, "the maximum %g must be above the minimum %g", d[1], d[0]);
		t->af.position_min = (int32_t)d[0];
		t->af.position_max = (int32_t)d[1];
		return 0;
	case 1:
		ret = yaml_reader_whole(r, v, k, 2, 256, d);
		t->af.coarse_steps = ret ? 0 : (unsigned)d[0];
		return ret;
	case 2:
		ret = yaml_reader_whole(r, v, k, 0, 256, d);
		t->af.fine_steps = ret ? 0 : (unsigned)d[0];
		return ret;
	/* Above the figure's frame-to-frame noise (about 2%), or continuous AF never holds focus. */
	case 3: return yaml_reader_number(r, v, k, 0.05, 10, &t->af.scene_change);
	default: return yaml_reader_number(r, v, k, 1, 1000, &t->af.min_contrast);
	}
}

static int af_parse(struct yaml_reader *r, const yaml_node_t *v, const char *key, struct cisp_tuning *t)
{
	return yaml_reader_map(r, v, key, af_keys, 0, af_key, t);
}

static void af_defaults(struct cisp_tuning *t, bool uncalibrated)
{
	(void)uncalibrated;
	t->af.position_min = 0;
	t->af.position_max = 1023;
	t->af.coarse_steps = 16;
	t->af.fine_steps = 8;
	t->af.scene_change = 0.15;
	t->af.min_contrast = 1.15;
}

/* ---- the algorithm ---- */

/* Clamp a window edge and length along one axis of @size pixels: even, at least the minimum, inside. */
static void face_span(double start, double length, uint32_t size, uint16_t *out_start, uint16_t *out_length)
{
	double len = fmin(fmax(length * size, AF_FACE_MIN_WINDOW), size);
	double lo = fmin(fmax(start * size, 0), size - len);
	uint32_t l = (uint32_t)len & ~1u, s0 = (uint32_t)lo & ~1u;

	*out_start = (uint16_t)s0;
	*out_length = (uint16_t)l;
}

struct cisp_stats_window af_face_window(const struct control_face *f, uint32_t width, uint32_t height)
{
	struct cisp_stats_window w;

	face_span(f->x, f->width, width, &w.x, &w.width);
	face_span(f->y, f->height, height, &w.y, &w.height);
	return w;
}

struct af_algorithm {
	struct af af;
	/* The request's values. */
	enum cisp_af_mode mode;
	int32_t lens_position;
};

static int af_configure(void *self, struct control_context *ctx)
{
	struct af_algorithm *a = self;
	const struct cisp_sensor_control_info *lens = &ctx->controls[CISP_SENSOR_LENS_POSITION];

	af_init(&a->af, ctx->tuning, lens->supported ? lens->min : 0, lens->supported ? lens->max : 0, ctx->latency,
		lens->supported ? lens->def : 0);
	a->mode = CISP_AF_CONTINUOUS;
	a->lens_position = a->af.position;
	return 0;
}

static void af_request(void *self, struct control_context *ctx, const struct cisp_control_request *r)
{
	struct af_algorithm *a = self;
	const struct cisp_sensor_control_info *lens = &ctx->controls[CISP_SENSOR_LENS_POSITION];

	if (r->mask & (CISP_REQ_AF_MODE | CISP_REQ_LENS_POSITION)) {
		if (r->mask & CISP_REQ_AF_MODE)
			a->mode = r->af_mode;
		if (r->mask & CISP_REQ_LENS_POSITION)
			a->lens_position = lens->supported ? clampi(r->lens_position, lens->min, lens->max) : 0;
		af_set_mode(&a->af, a->mode, a->lens_position);
	}
	if (r->mask & CISP_REQ_AF_TRIGGER)
		af_trigger(&a->af);
}

static void af_start(void *self, struct control_context *ctx)
{
	struct af_algorithm *a = self;

	af_reset(&a->af);
	ctx->state.lens_position = a->af.position;
	ctx->state.af_state = ctx->controls[CISP_SENSOR_LENS_POSITION].supported ? a->af.state : CISP_AF_IDLE;
}

static void af_algorithm_process(void *self, struct control_context *ctx)
{
	struct af_algorithm *a = self;
	const struct cisp_stats *stats = ctx->stats;
	double sharpness = 0;

	/* Sharpness per cell relative to the mean green, so exposure changes do not move it. */
	if ((stats->valid & CISP_STATS_AF) && stats->af_count && ctx->green > 0) {
		double sum = 0, cells = 0;
		for (unsigned i = 0; i < stats->af_count && i < CISP_STATS_MAX_AF; i++) {
			sum += (double)stats->af[i].sharpness;
			cells += stats->af[i].count;
		}
		sharpness = cells > 0 ? sum / cells / (ctx->green * 65535.0) : 0;
	}
	ctx->state.sharpness = sharpness;
	/* Without a lens the position stays what it was. */
	if (ctx->controls[CISP_SENSOR_LENS_POSITION].supported) {
		bool settled = ctx->state.ae_state != CISP_AE_SEARCHING || fabs(ctx->state.ae_error - 1.0) < SETTLED_ERROR;
		ctx->state.lens_position = af_process(&a->af, sharpness, ctx->scene,
						      ctx->md->controls[CISP_SENSOR_LENS_POSITION], settled);
		ctx->state.af_state = a->af.state;
	}
}

const struct control_algorithm af_algorithm = {
	.section = "af",
	.size = sizeof(struct af_algorithm),
	.requests = CISP_REQ_AF_MODE | CISP_REQ_AF_TRIGGER | CISP_REQ_LENS_POSITION,
	.parse = af_parse,
	.defaults = af_defaults,
	.configure = af_configure,
	.request = af_request,
	.start = af_start,
	.process = af_algorithm_process,
};
