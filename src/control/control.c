/* SPDX-License-Identifier: MIT */
/*
 * The 3A control loop: statistics and metadata in, sensor controls and ISP
 * parameters out (docs/control.md). The loop runs its configuration's list
 * of algorithms (algorithm.h, algorithms.c) and owns what none of them
 * does: checking requests, and timing decisions, so that each reaches the
 * sensor as early as its controls' delays allow and each frame is judged
 * against what it used.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/control.h>

#include "algorithm.h"
#include "core/error_internal.h"
#include "tuning.h"

/* Decisions remembered, by the frame they first reach (more than the largest latency). */
#define HISTORY 16

/* One decision: the controls a frame gets from it on. */
struct decision {
	uint64_t from;    /* first frame it reaches */
	struct ae_exposure e;
	int32_t lens;
};

struct cisp_control {
	const struct control_algorithm *const *algorithms; /* NULL-terminated */
	void **self;               /* each algorithm's state */
	uint32_t blocks;           /* the blocks they write */
	uint32_t requests;         /* the request fields they handle */
	struct control_context ctx;

	struct decision hist[HISTORY];
	unsigned hist_n;           /* entries in use, oldest first */
	bool have_seq;
	uint64_t last_seq;

	struct cisp_param_state ps;
	uint32_t pending;          /* blocks a request changed since the latest result */
};

#define FOR_EACH(c, i) for (unsigned i = 0; (c)->algorithms[i]; i++)

static bool has(const struct cisp_control *c, enum cisp_sensor_control id)
{
	return c->ctx.controls[id].supported;
}

/* The decision in effect on frame @seq. */
static const struct decision *decision_at(const struct cisp_control *c, uint64_t seq)
{
	const struct decision *d = &c->hist[0];
	for (unsigned i = 0; i < c->hist_n; i++)
		if (c->hist[i].from <= seq)
			d = &c->hist[i];
	return d;
}

static void push_decision(struct cisp_control *c, const struct decision *d)
{
	/* A later decision for the same frame replaces the earlier one, as the sensor's queue does. */
	while (c->hist_n && c->hist[c->hist_n - 1].from >= d->from)
		c->hist_n--;
	if (c->hist_n == HISTORY) {
		memmove(&c->hist[0], &c->hist[1], (HISTORY - 1) * sizeof(c->hist[0]));
		c->hist_n--;
	}
	c->hist[c->hist_n++] = *d;
}

/* The sensor controls of a decision: all (@prev NULL) or those differing from @prev. */
static void decision_controls(const struct cisp_control *c, const struct decision *d, const struct decision *prev,
			      struct cisp_sensor_controls *out)
{
	const int32_t value[CISP_SENSOR_NUM_CONTROLS] = {
		[CISP_SENSOR_EXPOSURE] = d->e.exposure,	    [CISP_SENSOR_ANALOGUE_GAIN] = d->e.again,
		[CISP_SENSOR_DIGITAL_GAIN] = d->e.dgain,    [CISP_SENSOR_FRAME_LENGTH] = d->e.frame_length,
		[CISP_SENSOR_LENS_POSITION] = d->lens,
	};
	static const enum cisp_sensor_control ids[] = { CISP_SENSOR_EXPOSURE, CISP_SENSOR_ANALOGUE_GAIN,
							CISP_SENSOR_DIGITAL_GAIN, CISP_SENSOR_FRAME_LENGTH,
							CISP_SENSOR_LENS_POSITION };
	const int32_t old[CISP_SENSOR_NUM_CONTROLS] = {
		[CISP_SENSOR_EXPOSURE] = prev ? prev->e.exposure : 0,
		[CISP_SENSOR_ANALOGUE_GAIN] = prev ? prev->e.again : 0,
		[CISP_SENSOR_DIGITAL_GAIN] = prev ? prev->e.dgain : 0,
		[CISP_SENSOR_FRAME_LENGTH] = prev ? prev->e.frame_length : 0,
		[CISP_SENSOR_LENS_POSITION] = prev ? prev->lens : 0,
	};

	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (has(c, ids[i]) && (!prev || value[ids[i]] != old[ids[i]]))
			cisp_sensor_controls_set(out, ids[i], value[ids[i]]);
}

/* Every algorithm writes its blocks for the decision in effect on frame @next; returns the blocks that changed. */
static uint32_t prepare(struct cisp_control *c, uint64_t next)
{
	const struct decision *d = decision_at(c, next);
	uint32_t changed = 0;

	c->ctx.sensor_gain = d->e.again / 256.0 * d->e.dgain / 256.0;
	c->ctx.isp_dgain = d->e.isp_dgain;
	FOR_EACH(c, i)
		if (c->algorithms[i]->prepare)
			changed |= c->algorithms[i]->prepare(c->self[i], &c->ctx, &c->ps);
	return changed;
}

static int check_config(const struct cisp_control_config *config)
{
	const struct cisp_sensor_mode *m = &config->mode;
	const struct cisp_sensor_control_info *exp = &config->controls[CISP_SENSOR_EXPOSURE];

	if ((unsigned)config->algorithms > CISP_CONTROL_GREY_WORLD)
		return cisp_error(-EINVAL, "control: unknown configuration %d", (int)config->algorithms);
	if (config->algorithms == CISP_CONTROL_CAMERA && !config->tuning)
		return cisp_error(-EINVAL, "control: no tuning");
	if (m->width < 16 || m->height < 16 || (m->width | m->height) & 1)
		return cisp_error(-EINVAL, "control: mode size %ux%u is not even and at least 16x16", m->width, m->height);
	if (!m->pixel_rate || !m->line_length)
		return cisp_error(-EINVAL, "control: mode '%s' has no line time (pixel rate %llu, line length %u)", m->name,
				  (unsigned long long)m->pixel_rate, m->line_length);
	if (m->bits < 8 || m->bits > 16)
		return cisp_error(-EINVAL, "control: mode bits %u outside 8..16", m->bits);
	if (exp->supported && (exp->min < 1 || exp->max < exp->min))
		return cisp_error(-EINVAL, "control: exposure control limits %d..%d", exp->min, exp->max);
	for (int i = CISP_SENSOR_ANALOGUE_GAIN; i <= CISP_SENSOR_LENS_POSITION; i++) {
		const struct cisp_sensor_control_info *ci = &config->controls[i];
		if (ci->supported && (ci->max < ci->min || ci->delay > CISP_SENSOR_MAX_DELAY))
			return cisp_error(-EINVAL, "control: control %d has limits %d..%d, delay %u", i, ci->min, ci->max,
					  ci->delay);
		if (ci->supported && (i == CISP_SENSOR_ANALOGUE_GAIN || i == CISP_SENSOR_DIGITAL_GAIN) && ci->min < 1)
			return cisp_error(-EINVAL, "control: gain control %d has a minimum of %d", i, ci->min);
	}
	if (exp->delay > CISP_SENSOR_MAX_DELAY)
		return cisp_error(-EINVAL, "control: exposure delay %u over %d", exp->delay, CISP_SENSOR_MAX_DELAY);
	return 0;
}

int cisp_control_create(struct cisp_control **out, const struct cisp_control_config *config)
{
	struct cisp_control *c;
	unsigned n = 0, delay = 0;
	int ret;

	if (!out || !config)
		return cisp_error(-EINVAL, "control: no loop or config");
	*out = NULL;
	if ((ret = check_config(config)))
		return ret;
	c = calloc(1, sizeof(*c));
	if (!c)
		return cisp_error(-ENOMEM, "control: out of memory");
	c->algorithms = config->algorithms == CISP_CONTROL_GREY_WORLD ? control_grey_world_algorithms
								       : control_camera_algorithms;
	while (c->algorithms[n])
		n++;
	c->self = calloc(n, sizeof(*c->self));
	c->ctx.tuning = config->algorithms == CISP_CONTROL_CAMERA ? config->tuning : NULL;
	c->ctx.mode = config->mode;
	memcpy(c->ctx.controls, config->controls, sizeof(c->ctx.controls));
	c->ctx.line_ns = cisp_sensor_line_ns(&config->mode);
	for (int i = CISP_SENSOR_EXPOSURE; i <= CISP_SENSOR_LENS_POSITION; i++)
		if (c->ctx.controls[i].supported && c->ctx.controls[i].delay > delay)
			delay = c->ctx.controls[i].delay;
	c->ctx.latency = 1 + delay;
	cisp_param_state_init(&c->ps);

	ret = c->self ? 0 : -ENOMEM;
	FOR_EACH(c, i) {
		const struct control_algorithm *a = c->algorithms[i];

		if (!ret && a->size && !(c->self[i] = calloc(1, a->size)))
			ret = -ENOMEM;
		if (!ret && a->init)
			ret = a->init(c->self[i], &c->ctx);
		if (!ret && a->configure)
			ret = a->configure(c->self[i], &c->ctx);
		c->blocks |= a->blocks;
		c->requests |= a->requests;
	}
	if (ret) {
		if (ret == -ENOMEM)
			cisp_error(ret, "control: out of memory");
		cisp_control_destroy(c);
		return ret;
	}
	*out = c;
	return 0;
}

void cisp_control_destroy(struct cisp_control *c)
{
	if (!c)
		return;
	if (c->self)
		FOR_EACH(c, i)
			free(c->self[i]);
	free(c->self);
	free(c);
}

static bool finite_in(double v, double lo, double hi)
{
	return isfinite(v) && v >= lo && v <= hi;
}

/* Every field of @r the mask names, against docs/control.md's limits. */
static int check_request(const struct cisp_control *c, const struct cisp_control_request *r)
{
	uint32_t m = r->mask, known = (CISP_REQ_MAX_DIGITAL_GAIN << 1) - 1;

	if (m & ~known)
		return cisp_error(-EINVAL, "control: unknown request bits 0x%x", m & ~known);
	if (m & ~c->requests)
		return cisp_error(-EINVAL, "control: request bits 0x%x do nothing in this loop's configuration",
				  m & ~c->requests);
	if ((m & CISP_REQ_EXPOSURE) && !finite_in(r->exposure_us, 1e-3, 1e9))
		return cisp_error(-EINVAL, "control: exposure %g us is not positive", r->exposure_us);
	if ((m & CISP_REQ_ANALOGUE_GAIN) && !finite_in(r->analogue_gain, 1e-3, 1e6))
		return cisp_error(-EINVAL, "control: analogue gain %g is not positive", r->analogue_gain);
	if ((m & CISP_REQ_DIGITAL_GAIN) && !finite_in(r->digital_gain, 1e-3, 1e6))
		return cisp_error(-EINVAL, "control: digital gain %g is not positive", r->digital_gain);
	if ((m & CISP_REQ_EV) && !finite_in(r->ev, -4, 4))
		return cisp_error(-EINVAL, "control: EV %g outside -4..4", r->ev);
	if ((m & CISP_REQ_METERING) && (unsigned)r->metering > CISP_AE_METERING_MATRIX)
		return cisp_error(-EINVAL, "control: unknown metering mode %d", (int)r->metering);
	if ((m & CISP_REQ_FLICKER) && (unsigned)r->flicker > CISP_FLICKER_60HZ)
		return cisp_error(-EINVAL, "control: unknown flicker mode %d", (int)r->flicker);
	if ((m & CISP_REQ_COLOUR_TEMPERATURE) && !finite_in(r->colour_temperature, 2000, 12000))
		return cisp_error(-EINVAL, "control: colour temperature %g K outside 2000..12000", r->colour_temperature);
	if ((m & CISP_REQ_COLOUR_GAINS) &&
	    (!finite_in(r->colour_gains[0], 1.0 / 64, 64) || !finite_in(r->colour_gains[1], 1.0 / 64, 64)))
		return cisp_error(-EINVAL, "control: colour gains %g, %g outside 1/64..64", r->colour_gains[0],
				  r->colour_gains[1]);
	if ((m & CISP_REQ_AF_MODE) && (unsigned)r->af_mode > CISP_AF_CONTINUOUS)
		return cisp_error(-EINVAL, "control: unknown AF mode %d", (int)r->af_mode);
	if (m & CISP_REQ_FRAME_DURATION) {
		if (!finite_in(r->frame_duration_us[0], 0, 1e9) || !finite_in(r->frame_duration_us[1], 0, 1e9) ||
		    (r->frame_duration_us[0] > 0 && r->frame_duration_us[1] > 0 &&
		     r->frame_duration_us[0] > r->frame_duration_us[1]))
			return cisp_error(-EINVAL, "control: frame duration limits %g..%g us", r->frame_duration_us[0],
					  r->frame_duration_us[1]);
	}
	if ((m & CISP_REQ_MAX_DIGITAL_GAIN) && r->max_digital_gain != 0 && !finite_in(r->max_digital_gain, 1, 256))
		return cisp_error(-EINVAL, "control: largest digital gain %g outside 1..256", r->max_digital_gain);
	return 0;
}

int cisp_control_request(struct cisp_control *c, const struct cisp_control_request *r)
{
	int ret;

	if (!c || !r)
		return cisp_error(-EINVAL, "control: no loop or request");
	if ((ret = check_request(c, r)))
		return ret;
	FOR_EACH(c, i)
		if (c->algorithms[i]->request && (r->mask & c->algorithms[i]->requests))
			c->algorithms[i]->request(c->self[i], &c->ctx, r);
	/* What needs no statistics (manual gains of grey world) is in the parameters at once. */
	if (c->hist_n)
		c->pending |= prepare(c, c->have_seq ? c->last_seq + 1 : 0);
	return 0;
}

int cisp_control_start(struct cisp_control *c, struct cisp_control_result *out)
{
	struct decision d = { 0 };

	if (!c || !out)
		return cisp_error(-EINVAL, "control: no loop or result");
	memset(&c->ctx.state, 0, sizeof(c->ctx.state));
	FOR_EACH(c, i)
		if (c->algorithms[i]->start)
			c->algorithms[i]->start(c->self[i], &c->ctx);
	d.e = c->ctx.exposure;
	d.lens = c->ctx.state.lens_position;
	c->hist_n = 0;
	push_decision(c, &d);
	c->have_seq = false;

	prepare(c, 0);
	c->pending = 0;
	memset(out, 0, sizeof(*out));
	decision_controls(c, &d, NULL, &out->sensor);
	out->sensor_sequence = 0;
	out->params = &c->ps;
	out->params_changed = c->blocks;
	out->state = c->ctx.state;
	return 0;
}

void control_set_faces(struct cisp_control *c, const struct control_faces *faces)
{
	c->ctx.faces.count = 0;
	if (faces && faces->count)
		c->ctx.faces = *faces;
	if (c->ctx.faces.count > CONTROL_MAX_FACES)
		c->ctx.faces.count = CONTROL_MAX_FACES;
}

int cisp_control_process(struct cisp_control *c, const struct cisp_stats *stats, const struct cisp_sensor_metadata *md,
			 struct cisp_control_result *out)
{
	if (!c || !stats || !md || !out)
		return cisp_error(-EINVAL, "control: no loop, statistics, metadata or result");
	if (!(stats->valid & CISP_STATS_ZONES) || !stats->zones_x || !stats->zones_y ||
	    stats->zones_x > CISP_STATS_MAX_ZONES || stats->zones_y > CISP_STATS_MAX_ZONES)
		return cisp_error(-EINVAL, "control: statistics of frame %llu have no zones",
				  (unsigned long long)md->sequence);
	if (c->have_seq && md->sequence <= c->last_seq)
		return cisp_error(-EINVAL, "control: frame %llu after frame %llu: out of order",
				  (unsigned long long)md->sequence, (unsigned long long)c->last_seq);
	if (!c->hist_n)
		return cisp_error(-EINVAL, "control: cisp_control_start() was not called");
	uint64_t n = md->sequence;
	c->have_seq = true;
	c->last_seq = n;

	c->ctx.stats = stats;
	c->ctx.md = md;
	c->ctx.frame_isp_dgain = decision_at(c, n)->e.isp_dgain;
	FOR_EACH(c, i)
		if (c->algorithms[i]->process)
			c->algorithms[i]->process(c->self[i], &c->ctx);
	c->ctx.stats = NULL;
	c->ctx.md = NULL;

	/*
	 * The controls that change reach the sensor as early as the slowest of
	 * them allows (a lens move alone after the lens delay, so AF sweeps one
	 * position a frame), never before the latest decision: decisions stay in
	 * frame order, and a later one for the same frame joins it.
	 */
	const struct decision *latest = &c->hist[c->hist_n - 1];
	struct decision d = { .e = c->ctx.exposure, .lens = c->ctx.state.lens_position };
	memset(out, 0, sizeof(*out));
	decision_controls(c, &d, latest, &out->sensor);
	unsigned delay = 0;
	for (int i = 0; i < CISP_SENSOR_NUM_CONTROLS; i++)
		if ((out->sensor.mask & (1u << i)) && c->ctx.controls[i].delay > delay)
			delay = c->ctx.controls[i].delay;
	/* The ISP's gain alone can change from the next frame (these parameters' first). */
	bool isp_changed = d.e.isp_dgain != latest->e.isp_dgain;
	d.from = n + 1 + delay;
	if (d.from < latest->from)
		d.from = latest->from;
	out->sensor_sequence = out->sensor.mask ? d.from : n + c->ctx.latency;
	if (out->sensor.mask || isp_changed)
		push_decision(c, &d);

	out->params = &c->ps;
	out->params_changed = prepare(c, n + 1) | c->pending;
	c->pending = 0;
	c->ctx.state.sequence = n;
	out->state = c->ctx.state;
	return 0;
}

const char *cisp_ae_state_name(enum cisp_ae_state s)
{
	static const char *const names[] = { "searching", "converged", "manual", "limited" };
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

const char *cisp_awb_state_name(enum cisp_awb_state s)
{
	static const char *const names[] = { "searching", "converged", "manual" };
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

const char *cisp_af_state_name(enum cisp_af_state s)
{
	static const char *const names[] = { "idle", "scanning", "focused", "failed" };
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

/* ---- the camera algorithms without a loop (tests, fuzzing) ---- */

int control_prepare_params(const struct cisp_tuning *t, const struct cisp_sensor_mode *mode, const double gains[2],
			   double ct, double sensor_gain, double isp_dgain, struct cisp_param_state *ps)
{
	const struct control_algorithm *const *list = control_camera_algorithms;
	struct control_context ctx = { .tuning = t, .mode = *mode, .line_ns = 1000, .latency = 1 };
	void *self[32] = { 0 };
	uint32_t changed = 0;
	unsigned n = 0;
	int ret = 0;

	ctx.state.colour_temperature = ct > 0 ? ct : t->awb.default_ct;
	ctx.state.colour_gains[0] = gains[0];
	ctx.state.colour_gains[1] = gains[1];
	ctx.sensor_gain = sensor_gain;
	ctx.isp_dgain = isp_dgain;
	for (; !ret && list[n]; n++) {
		if (list[n]->size && !(self[n] = calloc(1, list[n]->size)))
			ret = cisp_error(-ENOMEM, "control: out of memory");
		if (!ret && list[n]->init)
			ret = list[n]->init(self[n], &ctx);
		if (!ret && list[n]->configure)
			ret = list[n]->configure(self[n], &ctx);
	}
	for (unsigned i = 0; !ret && list[i]; i++)
		if (list[i]->prepare)
			changed |= list[i]->prepare(self[i], &ctx, ps);
	for (unsigned i = 0; i < n; i++)
		free(self[i]);
	return ret ? ret : (int)changed;
}
