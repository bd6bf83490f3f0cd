/* SPDX-License-Identifier: MIT */
/*
 * The 3A control loop: statistics and metadata in, sensor controls and ISP
 * parameters out (docs/control.md).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/control.h>

#include "ae.h"
#include "af.h"
#include "colour.h"
#include "core/error_internal.h"
#include "flicker.h"
#include "tuning.h"

/* Decisions remembered, by the frame they first reach (more than the largest latency). */
#define HISTORY 16
/* The exposure product a first stream starts with: 10 ms at x1. */
#define START_PRODUCT 10000.0
/* AF scans once exposure is this close to its aim (or AE is settled, limited or manual). */
#define AF_SETTLED_ERROR 0.25

/* Cells with a sample at or over this (16-bit units) count as saturated. */
#define STATS_SATURATION 52428

/* The blocks the loop writes. */
#define MANAGED_BLOCKS                                                                                               \
	(CISP_BLOCK_BIT(CISP_BLOCK_BLC) | CISP_BLOCK_BIT(CISP_BLOCK_NOISE) | CISP_BLOCK_BIT(CISP_BLOCK_BNR) |        \
	 CISP_BLOCK_BIT(CISP_BLOCK_LSC) | CISP_BLOCK_BIT(CISP_BLOCK_WB) | CISP_BLOCK_BIT(CISP_BLOCK_CCM) |           \
	 CISP_BLOCK_BIT(CISP_BLOCK_TONE) | CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN) | CISP_BLOCK_BIT(CISP_BLOCK_CNR) |     \
	 CISP_BLOCK_BIT(CISP_BLOCK_DPC) | CISP_BLOCK_BIT(CISP_BLOCK_STATS))

/* One decision: the controls a frame gets from it on. */
struct decision {
	uint64_t from;    /* first frame it reaches */
	struct ae_exposure e;
	int32_t lens;
};

struct cisp_control {
	const struct cisp_tuning *t;
	struct cisp_sensor_mode mode;
	struct cisp_sensor_control_info ctl[CISP_SENSOR_NUM_CONTROLS];
	double line_ns;
	unsigned latency;          /* frames from the statistics of frame n to the first frame a decision reaches */
	int32_t fixed_exposure;    /* lines, for a sensor without an exposure control (its metadata's); else 0 */

	struct cisp_control_request req; /* every field's current value */
	bool awb_use_gains;
	bool started;              /* cisp_control_start() was called at least once */

	struct ae ae;
	struct ae_limits limits;
	struct flicker *flicker;
	struct af af;
	struct awb *awb;
	struct awb_result awb_res;

	struct decision hist[HISTORY];
	unsigned hist_n;           /* entries in use, oldest first */
	bool have_seq;
	uint64_t last_seq;

	struct cisp_param_state ps, prev;
	struct cisp_control_state state;
};

static bool has(const struct cisp_control *c, enum cisp_sensor_control id)
{
	return c->ctl[id].supported;
}

static int32_t clampi(double v, int32_t lo, int32_t hi)
{
	return v < lo ? lo : v > hi ? hi : (int32_t)v;
}

/* The exposure split's limits from the mode, the controls, the tuning and the requested frame durations. */
static void update_limits(struct cisp_control *c)
{
	const struct cisp_sensor_control_info *exp = &c->ctl[CISP_SENSOR_EXPOSURE], *fl = &c->ctl[CISP_SENSOR_FRAME_LENGTH];
	const struct cisp_sensor_control_info *ag = &c->ctl[CISP_SENSOR_ANALOGUE_GAIN], *dg = &c->ctl[CISP_SENSOR_DIGITAL_GAIN];
	struct ae_limits *l = &c->limits;
	double line_us = c->line_ns / 1000.0;
	int32_t fl_lo = (int32_t)c->mode.frame_length_default, fl_hi = fl_lo;

	if (fl->supported) {
		fl_lo = c->req.frame_duration_us[0] > 0 ? clampi(ceil(c->req.frame_duration_us[0] / line_us), fl->min, fl->max)
							 : clampi(c->mode.frame_length_default, fl->min, fl->max);
		fl_hi = c->req.frame_duration_us[1] > 0 ? clampi(floor(c->req.frame_duration_us[1] / line_us), fl->min, fl->max)
							 : fl->max;
		if (fl_lo > fl_hi)
			fl_lo = fl_hi;
	}
	*l = (struct ae_limits){
		.line_us = line_us,
		.exposure_min = exp->supported ? exp->min : c->fixed_exposure,
		.exposure_step = exp->supported && exp->step > 0 ? exp->step : 1,
		.exposure_margin = (int32_t)c->mode.exposure_margin,
		.frame_length_min = fl_lo,
		.frame_length_max = fl_hi,
		.again_min = ag->supported ? ag->min : 256,
		.again_max = ag->supported ? clampi(c->t->ae.max_analogue_gain * 256, ag->min, ag->max) : 256,
		.again_step = ag->supported && ag->step > 0 ? ag->step : 1,
		.has_dgain = dg->supported,
		.dgain_min = dg->supported ? dg->min : 256,
		.dgain_max = dg->supported ? dg->max : 256,
		.dgain_step = dg->supported && dg->step > 0 ? dg->step : 1,
		.max_digital_gain = c->t->ae.max_digital_gain >= 1 ? c->t->ae.max_digital_gain : 1,
	};
	double longest = fmin(c->t->ae.max_exposure_us / line_us, (double)fl_hi - l->exposure_margin);
	/* Without an exposure control the exposure is what the sensor does: AE has the gains only. */
	l->exposure_max = exp->supported ? clampi(floor(longest), exp->min, exp->max) : c->fixed_exposure;
}

static unsigned flicker_hz(const struct cisp_control *c)
{
	switch (c->req.flicker) {
	case CISP_FLICKER_50HZ:
		return 50;
	case CISP_FLICKER_60HZ:
		return 60;
	case CISP_FLICKER_AUTO:
		return c->flicker->detected_hz;
	case CISP_FLICKER_OFF:
	default:
		return 0;
	}
}

/* The controls of manual exposure: the requested values, clamped to the sensor's. */
static void manual_exposure(const struct cisp_control *c, struct ae_exposure *e)
{
	const struct ae_limits *l = &c->limits;
	const struct cisp_sensor_control_info *exp = &c->ctl[CISP_SENSOR_EXPOSURE];
	int32_t fl_max = has(c, CISP_SENSOR_FRAME_LENGTH) ? c->ctl[CISP_SENSOR_FRAME_LENGTH].max : l->frame_length_max;

	e->exposure = exp->supported ? clampi(lround(c->req.exposure_us / l->line_us), exp->min,
					      (int32_t)fmin(exp->max, (double)fl_max - l->exposure_margin))
				     : c->fixed_exposure;
	e->again = has(c, CISP_SENSOR_ANALOGUE_GAIN)
			   ? clampi(lround(c->req.analogue_gain * 256), c->ctl[CISP_SENSOR_ANALOGUE_GAIN].min,
				    c->ctl[CISP_SENSOR_ANALOGUE_GAIN].max)
			   : 256;
	double dgain = c->req.digital_gain > 0 ? c->req.digital_gain : 1.0;
	e->dgain = 256;
	e->isp_dgain = 1.0;
	if (l->has_dgain)
		e->dgain = clampi(lround(dgain * 256), l->dgain_min, l->dgain_max);
	else
		e->isp_dgain = fmax(1.0, fmin(dgain, l->max_digital_gain));
	int32_t fl = e->exposure + l->exposure_margin;
	if (fl < l->frame_length_min)
		fl = l->frame_length_min;
	e->frame_length = fl;
	e->product = e->exposure * l->line_us * e->again / 256.0 * e->dgain / 256.0 * e->isp_dgain;
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

/*
 * The statistics the loop asks for: 32 x 24 zones (fine enough that a small
 * grey object in a scene of one colour fills whole zones AWB can use), one AF
 * window on the middle half, every row. Cells over 80% of full scale leave the zone means:
 * sensors whose full well fills less than the ADC's range clip below full
 * scale, and a clipped cell would read as a true (too dark) value.
 */
static void stats_config(const struct cisp_sensor_mode *mode, struct cisp_stats_params *s)
{
	uint32_t w = mode->width, h = mode->height;

	s->zones_x = 32;
	s->zones_y = 24;
	s->saturation = STATS_SATURATION;
	s->af_count = 0;
	memset(s->af, 0, sizeof(s->af));
	if (w >= 32 && h >= 32) {
		s->af_count = 1;
		s->af[0] = (struct cisp_stats_window){ (uint16_t)(w / 4 & ~1u), (uint16_t)(h / 4 & ~1u),
						       (uint16_t)(w / 2 & ~1u), (uint16_t)(h / 2 & ~1u) };
	}
	s->row_group = 0;
}

static void fill_params(struct cisp_control *c, uint64_t next_frame)
{
	const struct decision *d = decision_at(c, next_frame);
	double sensor_gain = d->e.again / 256.0 * d->e.dgain / 256.0;

	colour_params(c->t, &c->mode, &c->awb_res, sensor_gain, d->e.isp_dgain, &c->ps);
	stats_config(&c->mode, &c->ps.stats);
	c->ps.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_STATS);
}

static void fill_state(struct cisp_control *c, uint64_t seq, const struct decision *d)
{
	struct cisp_control_state *s = &c->state;

	s->sequence = seq;
	s->exposure_us = d->e.exposure * c->limits.line_us;
	s->analogue_gain = d->e.again / 256.0;
	s->digital_gain = d->e.dgain / 256.0 * d->e.isp_dgain;
	s->flicker_hz = flicker_hz(c);
	s->flicker_detected = c->req.flicker == CISP_FLICKER_AUTO && s->flicker_hz != 0;
	s->awb_state = c->awb_res.state;
	s->colour_temperature = c->awb_res.colour_temperature;
	s->colour_gains[0] = c->awb_res.gains[0] / c->awb_res.gains[1];
	s->colour_gains[1] = c->awb_res.gains[2] / c->awb_res.gains[1];
	s->af_state = has(c, CISP_SENSOR_LENS_POSITION) ? c->af.state : CISP_AF_IDLE;
	s->lens_position = d->lens;
}

int cisp_control_create(struct cisp_control **out, const struct cisp_control_config *config)
{
	if (!out || !config)
		return cisp_error(-EINVAL, "control: no loop or config");
	*out = NULL;
	const struct cisp_tuning *t = config->tuning;
	const struct cisp_sensor_mode *m = &config->mode;
	if (!t)
		return cisp_error(-EINVAL, "control: no tuning");
	if (m->width < 16 || m->height < 16 || (m->width | m->height) & 1)
		return cisp_error(-EINVAL, "control: mode size %ux%u is not even and at least 16x16", m->width, m->height);
	if (!m->pixel_rate || !m->line_length)
		return cisp_error(-EINVAL, "control: mode '%s' has no line time (pixel rate %llu, line length %u)", m->name,
				  (unsigned long long)m->pixel_rate, m->line_length);
	if (m->bits < 8 || m->bits > 16)
		return cisp_error(-EINVAL, "control: mode bits %u outside 8..16", m->bits);
	const struct cisp_sensor_control_info *exp = &config->controls[CISP_SENSOR_EXPOSURE];
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
	if (!t->ccm_count || !t->noise_count || !t->denoise_count || !t->awb.ct_count)
		return cisp_error(-EINVAL, "control: tuning '%s' lacks colour matrices, noise, denoise or the AWB curve",
				  t->name);

	struct cisp_control *c = calloc(1, sizeof(*c));
	if (!c)
		return cisp_error(-ENOMEM, "control: out of memory");
	c->flicker = malloc(sizeof(*c->flicker));
	int ret = c->flicker ? awb_create(&c->awb, t) : -ENOMEM;
	if (ret < 0) {
		free(c->flicker);
		free(c);
		return cisp_error(ret, "control: cannot make the white balance of tuning '%s'", t->name);
	}
	c->t = t;
	c->mode = *m;
	memcpy(c->ctl, config->controls, sizeof(c->ctl));
	c->line_ns = cisp_sensor_line_ns(m);
	if (!exp->supported)
		c->fixed_exposure = clampi((double)m->frame_length_default - m->exposure_margin, 1, INT32_MAX);
	unsigned delay = 0;
	for (int i = CISP_SENSOR_EXPOSURE; i <= CISP_SENSOR_LENS_POSITION; i++)
		if (c->ctl[i].supported && c->ctl[i].delay > delay)
			delay = c->ctl[i].delay;
	c->latency = 1 + delay;

	c->req = (struct cisp_control_request){
		.ae_enable = true,
		.exposure_us = START_PRODUCT,
		.analogue_gain = 1,
		.digital_gain = 1,
		.metering = CISP_AE_METERING_CENTRE,
		.flicker = CISP_FLICKER_AUTO,
		.awb_enable = true,
		.colour_temperature = t->awb.default_ct,
		.colour_gains = { 1, 1 },
		.af_mode = CISP_AF_CONTINUOUS,
	};
	update_limits(c);
	ae_init(&c->ae, t);
	flicker_init(c->flicker, t->flicker.detect_threshold);
	const struct cisp_sensor_control_info *lens = &c->ctl[CISP_SENSOR_LENS_POSITION];
	af_init(&c->af, t, lens->supported ? lens->min : 0, lens->supported ? lens->max : 0, c->latency,
		lens->supported ? lens->def : 0);
	c->req.lens_position = c->af.position;
	cisp_param_state_init(&c->ps);
	*out = c;
	return 0;
}

void cisp_control_destroy(struct cisp_control *c)
{
	if (!c)
		return;
	awb_destroy(c->awb);
	free(c->flicker);
	free(c);
}

static bool finite_in(double v, double lo, double hi)
{
	return isfinite(v) && v >= lo && v <= hi;
}

int cisp_control_request(struct cisp_control *c, const struct cisp_control_request *r)
{
	if (!c || !r)
		return cisp_error(-EINVAL, "control: no loop or request");
	uint32_t m = r->mask;
	if (m & ~((CISP_REQ_FRAME_DURATION << 1) - 1))
		return cisp_error(-EINVAL, "control: unknown request bits 0x%x", m & ~((CISP_REQ_FRAME_DURATION << 1) - 1));
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

	/* Leaving auto exposure keeps the current values unless the request gives others. */
	if ((m & CISP_REQ_AE_ENABLE) && !r->ae_enable && c->req.ae_enable) {
		c->req.exposure_us = c->state.exposure_us > 0 ? c->state.exposure_us : START_PRODUCT;
		c->req.analogue_gain = c->state.analogue_gain > 0 ? c->state.analogue_gain : 1;
		c->req.digital_gain = c->state.digital_gain > 0 ? c->state.digital_gain : 1;
	}
	if (m & CISP_REQ_AE_ENABLE)
		c->req.ae_enable = r->ae_enable;
	if (m & CISP_REQ_EXPOSURE)
		c->req.exposure_us = r->exposure_us;
	if (m & CISP_REQ_ANALOGUE_GAIN)
		c->req.analogue_gain = r->analogue_gain;
	if (m & CISP_REQ_DIGITAL_GAIN)
		c->req.digital_gain = r->digital_gain;
	if (m & CISP_REQ_EV)
		c->req.ev = c->ae.ev = r->ev;
	if (m & CISP_REQ_METERING)
		c->req.metering = c->ae.metering = r->metering;
	if (m & CISP_REQ_FLICKER)
		c->req.flicker = r->flicker;
	if (m & CISP_REQ_FRAME_DURATION) {
		c->req.frame_duration_us[0] = r->frame_duration_us[0];
		c->req.frame_duration_us[1] = r->frame_duration_us[1];
		update_limits(c);
	}
	if (m & (CISP_REQ_AWB_ENABLE | CISP_REQ_COLOUR_TEMPERATURE | CISP_REQ_COLOUR_GAINS)) {
		if (m & CISP_REQ_AWB_ENABLE)
			c->req.awb_enable = r->awb_enable;
		if (m & CISP_REQ_COLOUR_TEMPERATURE) {
			c->req.colour_temperature = r->colour_temperature;
			c->awb_use_gains = false;
		}
		if (m & CISP_REQ_COLOUR_GAINS) {
			c->req.colour_gains[0] = r->colour_gains[0];
			c->req.colour_gains[1] = r->colour_gains[1];
			c->awb_use_gains = true;
		}
		awb_set_manual(c->awb, c->req.awb_enable, c->awb_use_gains, c->req.colour_temperature,
			       c->req.colour_gains);
	}
	if (m & (CISP_REQ_AF_MODE | CISP_REQ_LENS_POSITION)) {
		const struct cisp_sensor_control_info *lens = &c->ctl[CISP_SENSOR_LENS_POSITION];
		if (m & CISP_REQ_AF_MODE)
			c->req.af_mode = r->af_mode;
		if (m & CISP_REQ_LENS_POSITION)
			c->req.lens_position = lens->supported ? clampi(r->lens_position, lens->min, lens->max) : 0;
		af_set_mode(&c->af, c->req.af_mode, c->req.lens_position);
	}
	if (m & CISP_REQ_AF_TRIGGER)
		af_trigger(&c->af);
	return 0;
}

/* Exposure for the next decision: AE's split or the manual values. */
static void decide_exposure(struct cisp_control *c, double product, struct ae_exposure *e)
{
	if (c->req.ae_enable)
		ae_split(&c->limits, product, flicker_period_us(flicker_hz(c)), e);
	else
		manual_exposure(c, e);
}

int cisp_control_start(struct cisp_control *c, struct cisp_control_result *out)
{
	if (!c || !out)
		return cisp_error(-EINVAL, "control: no loop or result");
	struct decision d = { 0 };
	double product = c->started ? c->ae.decided : START_PRODUCT;

	product = fmin(fmax(product, ae_min_product(&c->limits)), ae_max_product(&c->limits));
	awb_reset(c->awb);
	awb_current(c->awb, &c->awb_res);
	flicker_reset(c->flicker);
	ae_reset(&c->ae, product);
	c->ae.state = c->req.ae_enable ? CISP_AE_SEARCHING : CISP_AE_MANUAL;
	af_reset(&c->af);
	decide_exposure(c, product, &d.e);
	d.lens = c->af.position;
	c->hist_n = 0;
	push_decision(c, &d);
	c->have_seq = false;
	c->started = true;

	fill_params(c, 0);
	c->prev = c->ps;
	memset(out, 0, sizeof(*out));
	decision_controls(c, &d, NULL, &out->sensor);
	out->sensor_sequence = 0;
	out->params = &c->ps;
	out->params_changed = MANAGED_BLOCKS;
	memset(&c->state, 0, sizeof(c->state));
	c->state.ae_state = c->ae.state;
	c->state.ae_error = 1.0;
	fill_state(c, 0, &d);
	out->state = c->state;
	return 0;
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
	if (!has(c, CISP_SENSOR_EXPOSURE) && md->exposure_ns > 0) {
		int32_t lines = clampi(lround(md->exposure_ns / c->line_ns), 1, INT32_MAX);
		if (lines != c->fixed_exposure) {
			c->fixed_exposure = lines;
			update_limits(c);
		}
	}

	awb_process(c->awb, stats, &c->awb_res);
	flicker_process(c->flicker, stats, md, c->line_ns);

	/* The exposure product this frame used: its metadata, and the ISP's gain we gave it. */
	int32_t lines = has(c, CISP_SENSOR_EXPOSURE) ? md->controls[CISP_SENSOR_EXPOSURE] : c->fixed_exposure;
	double exposure_us = md->exposure_ns > 0 ? md->exposure_ns / 1000.0 : lines * c->limits.line_us;
	double again = has(c, CISP_SENSOR_ANALOGUE_GAIN) ? md->controls[CISP_SENSOR_ANALOGUE_GAIN] / 256.0 : 1.0;
	double dgain = has(c, CISP_SENSOR_DIGITAL_GAIN) ? md->controls[CISP_SENSOR_DIGITAL_GAIN] / 256.0 : 1.0;
	double isp_dgain = decision_at(c, n)->e.isp_dgain;
	double frame_product = fmax(exposure_us * again * dgain * isp_dgain, 1e-3);

	struct ae_measure m;
	const double wb[3] = { c->awb_res.gains[0] / c->awb_res.gains[1], 1.0,
			       c->awb_res.gains[2] / c->awb_res.gains[1] };
	ae_measure(c->t, c->req.metering, stats, wb, isp_dgain, &m);

	struct decision d = { 0 };
	double product = c->ae.decided;
	if (c->req.ae_enable) {
		product = ae_process(&c->ae, &m, frame_product, ae_min_product(&c->limits), ae_max_product(&c->limits));
	} else {
		c->ae.state = CISP_AE_MANUAL;
		c->ae.error = m.mean / (c->t->ae.target * exp2(c->ae.ev));
		c->ae.scene = m.mean / frame_product;
	}
	decide_exposure(c, product, &d.e);
	if (!c->req.ae_enable)
		c->ae.decided = d.e.product; /* auto resumes from the manual exposure */

	/* AF: sharpness per cell relative to the mean green, so exposure changes do not move it. */
	double sharpness = 0;
	if ((stats->valid & CISP_STATS_AF) && stats->af_count && m.green > 0) {
		double sum = 0, cells = 0;
		for (unsigned i = 0; i < stats->af_count && i < CISP_STATS_MAX_AF; i++) {
			sum += (double)stats->af[i].sharpness;
			cells += stats->af[i].count;
		}
		sharpness = cells > 0 ? sum / cells / (m.green * 65535.0) : 0;
	}
	const struct decision *latest = &c->hist[c->hist_n - 1];
	d.lens = latest->lens;
	if (has(c, CISP_SENSOR_LENS_POSITION)) {
		bool settled = !c->req.ae_enable || c->ae.state != CISP_AE_SEARCHING ||
			       fabs(c->ae.error - 1.0) < AF_SETTLED_ERROR;
		d.lens = af_process(&c->af, sharpness, c->ae.scene, md->controls[CISP_SENSOR_LENS_POSITION], settled);
	}

	/*
	 * The controls that change reach the sensor as early as the slowest of
	 * them allows (a lens move alone after the lens delay, so AF sweeps one
	 * position a frame), never before the latest decision: decisions stay in
	 * frame order, and a later one for the same frame joins it.
	 */
	memset(out, 0, sizeof(*out));
	decision_controls(c, &d, latest, &out->sensor);
	unsigned delay = 0;
	for (int i = 0; i < CISP_SENSOR_NUM_CONTROLS; i++)
		if ((out->sensor.mask & (1u << i)) && c->ctl[i].delay > delay)
			delay = c->ctl[i].delay;
	/* The ISP's gain alone can change from the next frame (these parameters' first). */
	bool isp_changed = d.e.isp_dgain != latest->e.isp_dgain;
	d.from = n + 1 + delay;
	if (d.from < latest->from)
		d.from = latest->from;
	out->sensor_sequence = out->sensor.mask ? d.from : n + c->latency;
	if (out->sensor.mask || isp_changed)
		push_decision(c, &d);

	fill_params(c, n + 1);
	out->params = &c->ps;
	out->params_changed = cisp_params_diff(&c->prev, &c->ps);
	c->prev = c->ps;

	c->state.ae_state = c->ae.state;
	c->state.ae_error = c->ae.error;
	/* Mean green at the statistics tap (16-bit units) against the sensor's share of the product. */
	c->state.lux = c->t->ae.lux_scale * m.green * 65535.0 / (frame_product / isp_dgain * 1e-6);
	c->state.sharpness = sharpness;
	fill_state(c, n, &d);
	out->state = c->state;
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
