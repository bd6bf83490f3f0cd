/* SPDX-License-Identifier: MIT */
/*
 * A calibration session: captures come one at a time, each checked and
 * reduced at once to what its estimator needs (so a series of full-size
 * frames never has to fit in memory: darks and flats as sums, pairs as the
 * tiles of their difference, charts as patch means, an edge as its
 * response); cisp_calib_solve() then runs the estimators in order: black
 * level, noise, shading, defects, colour, sharpness.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/format.h>

#include "calibrate_internal.h"
#include "core/error_internal.h"

const char *cisp_calib_kind_name(enum cisp_calib_kind kind)
{
	static const char *const names[] = { "dark", "flat", "chart", "edge" };

	return (unsigned)kind < 4 ? names[kind] : "?";
}

int cisp_calib_create(struct cisp_calib **out, const struct cisp_calib_setup *setup)
{
	struct cisp_calib *c;

	*out = NULL;
	if (!setup || !setup->sensor || !setup->sensor[0] || strlen(setup->sensor) > 63 || strchr(setup->sensor, '/'))
		return cisp_error(-EINVAL, "calibration: the sensor model '%s' is not a plain name",
				  setup && setup->sensor ? setup->sensor : "");
	if (setup->bits && (setup->bits < 8 || setup->bits > 16))
		return cisp_error(-EINVAL, "calibration: %u bits (8..16)", setup->bits);
	c = calloc(1, sizeof(*c));
	if (!c)
		return cisp_error(-ENOMEM, "out of memory");
	c->setup = *setup;
	snprintf(c->sensor, sizeof(c->sensor), "%s", setup->sensor);
	c->setup.sensor = c->sensor;
	c->flat.pixel_group = -1;
	c->stated_black = -1;
	*out = c;
	return 0;
}

void cisp_calib_destroy(struct cisp_calib *c)
{
	if (!c)
		return;
	calib_planes_free(&c->pending);
	calib_dark_free(&c->dark);
	calib_flat_free(&c->flat);
	calib_noise_free(&c->noise);
	free(c->charts);
	free(c->chart_flat);
	free(c->tone);
	free(c->inputs);
	free(c->defect_list);
	free(c);
}

void calib_black_guess(const struct cisp_calib *c, double black[4])
{
	const struct calib_dark_group *g = NULL;

	/* The darks' lowest gain, shortest exposure so far. */
	for (unsigned i = 0; i < c->dark.groups; i++) {
		const struct calib_dark_group *d = &c->dark.group[i];

		if (!g || d->gain < g->gain || (d->gain == g->gain && d->exposure_s < g->exposure_s))
			g = d;
	}
	for (int k = 0; k < 4; k++)
		black[k] = g ? g->sum[k] / g->frames : c->stated_black >= 0 ? c->stated_black : 0;
}

void calib_code_scale(const struct cisp_calib *c, unsigned *bits, double *scale)
{
	uint32_t w = (uint32_t)lround(c->white);
	unsigned shift = 0, frame_bits = 0;

	/* A white level of (2^b - 1) 2^s: b-bit samples shifted up by s (a 10-bit mode in 16-bit containers). */
	while (w && !(w & 1) && shift < 8) {
		w >>= 1;
		shift++;
	}
	while ((1u << frame_bits) - 1 < w && frame_bits < 16)
		frame_bits++;
	*bits = frame_bits;
	*scale = ldexp(1, (int)shift);
	if (c->setup.bits) {
		*scale *= ldexp(1, (int)frame_bits - (int)c->setup.bits);
		*bits = c->setup.bits;
	}
}

static void commit_shape(struct cisp_calib *c, const struct cisp_calib_capture *cap, const struct calib_planes *pl)
{
	if (c->have_shape)
		return;
	c->have_shape = true;
	c->width = cap->raw->width;
	c->height = cap->raw->height;
	c->format = cap->raw->format;
	c->cfa = cisp_format_info(cap->raw->format)->cfa;
	c->white = cap->white;
	c->stated_black = cap->black;
	c->shape = *pl;
	for (int k = 0; k < 4; k++)
		c->shape.p[k] = NULL;
}

bool calib_same(double a, double b)
{
	return fabs(a - b) <= 1e-3 * fmax(fabs(a), fabs(b));
}

/* Later captures must match the first's shape (taken when the first is kept: commit_shape()); @what names the capture's use. */
static int check_shape(const struct cisp_calib *c, const struct cisp_calib_capture *cap, const char *what)
{
	const struct cisp_format_info *fi = cisp_format_info(cap->raw->format);
	const struct cisp_format_info *first = cisp_format_info(c->format);

	if (!fi || fi->kind != CISP_KIND_BAYER)
		return cisp_error(-EINVAL, "%s %s: format %s is not Bayer", what, cap->name,
				  cisp_format_name(cap->raw->format));
	if (!(cap->white > 0) || (cap->black >= 0 && cap->black >= cap->white))
		return cisp_error(-EINVAL, "%s %s: white level %g (black %g)", what, cap->name,
				  cap->white, cap->black);
	if (!c->have_shape)
		return 0;
	if (cap->raw->width != c->width || cap->raw->height != c->height || fi->cfa != first->cfa ||
	    cap->white != c->white)
		return cisp_error(-EINVAL,
				  "%s %s is %ux%u %s with white level %g; the first capture was %ux%u %s with %g: every "
				  "capture must come from one sensor mode",
				  what, cap->name, cap->raw->width, cap->raw->height,
				  cisp_format_name(cap->raw->format), cap->white, c->width, c->height,
				  cisp_format_name(c->format), c->white);
	return 0;
}

/* Whether @cap (of level @level) is the second frame of a pair with the pending one: same kind, exposure, gain, light and level. */
static bool pairs_with_pending(const struct cisp_calib *c, const struct cisp_calib_capture *cap, double level)
{
	const struct cisp_calib_capture *p = &c->pending_cap;

	return c->have_pending && p->kind == cap->kind && calib_same(p->exposure_s, cap->exposure_s) &&
	       calib_same(p->gain > 0 ? p->gain : 1, cap->gain > 0 ? cap->gain : 1) &&
	       !strcmp(p->illuminant ? p->illuminant : "", cap->illuminant ? cap->illuminant : "") &&
	       (cap->kind == CISP_CALIB_DARK || calib_same_level(c->pending_level, level));
}

/* Keep @pl (of level @level) as the first frame of a pair (the planes move into the session). */
static void keep_pending(struct cisp_calib *c, struct calib_planes *pl, const struct cisp_calib_capture *cap,
			 double level)
{
	c->pending_level = level;
	calib_planes_free(&c->pending);
	c->pending = *pl;
	memset(pl, 0, sizeof(*pl));
	c->pending_cap = *cap;
	/* The strings are not the caller's to keep: only kind, exposure, gain and whether a light was named matter. */
	c->pending_cap.name = "";
	c->pending_cap.illuminant = c->inputs[c->num_inputs - 1].illuminant;
	c->pending_cap.raw = NULL;
	c->pending_cap.roi = NULL;
	c->have_pending = true;
}

static int record_input(struct cisp_calib *c, const struct cisp_calib_capture *cap)
{
	struct calib_input *in;
	void *p = realloc(c->inputs, (c->num_inputs + 1) * sizeof(*c->inputs));

	if (!p)
		return cisp_error(-ENOMEM, "out of memory");
	c->inputs = p;
	in = &c->inputs[c->num_inputs++];
	memset(in, 0, sizeof(*in));
	in->kind = cap->kind;
	snprintf(in->name, sizeof(in->name), "%s", cap->name);
	snprintf(in->illuminant, sizeof(in->illuminant), "%s", cap->illuminant ? cap->illuminant : "");
	in->exposure_s = cap->exposure_s;
	in->gain = cap->gain > 0 ? cap->gain : 1;
	in->lux = cap->lux;
	return 0;
}

/* A provisional shading table from the flats so far (for finding charts), or none. */
static bool provisional_shading(struct cisp_calib *c, const double black[4], struct cisp_calib_shading_table *t)
{
	int g = calib_flat_best_group(&c->flat, NULL, 1);
	struct calib_blocks avg;
	size_t nb;
	bool ok;

	if (g < 0)
		return false;
	avg = c->flat.group[g].sum;
	nb = 4 * (size_t)avg.gw * avg.gh;
	avg.mean = malloc(nb * sizeof(double));
	if (!avg.mean)
		return false;
	for (size_t i = 0; i < nb; i++)
		avg.mean[i] = c->flat.group[g].sum.mean[i] / c->flat.group[g].frames;
	ok = calib_shading_fit(&c->shape, &avg, black, c->white, t) == 0;
	free(avg.mean);
	cisp_clear_error();
	return ok;
}

static int add_chart(struct cisp_calib *c, const struct calib_planes *pl, const struct cisp_calib_capture *cap,
		     const double black[4])
{
	struct cisp_calib_shading_table *t = malloc(sizeof(*t));
	void *p;
	int ret;

	if (!t)
		return cisp_error(-ENOMEM, "out of memory");
	if (c->num_charts == CISP_CALIB_MAX_TABLE) {
		free(t);
		return cisp_error(-EINVAL, "chart %s: more than %d charts", cap->name, CISP_CALIB_MAX_TABLE);
	}
	p = realloc(c->charts, (c->num_charts + 1) * sizeof(*c->charts));
	if (!p) {
		free(t);
		return cisp_error(-ENOMEM, "out of memory");
	}
	c->charts = p;
	ret = calib_chart_measure(pl, cap, black, cap->white, cap->white, provisional_shading(c, black, t) ? t : NULL,
				  &c->charts[c->num_charts]);
	free(t);
	if (!ret)
		c->num_charts++;
	return ret;
}

int cisp_calib_add(struct cisp_calib *c, const struct cisp_calib_capture *cap)
{
	struct calib_planes pl;
	double black[4], variance = -1, level;
	int ret;

	if (!cap || !cap->raw || (unsigned)cap->kind > CISP_CALIB_EDGE)
		return cisp_error(-EINVAL, "calibration: no capture, or an unknown kind");
	if (!cap->name)
		return cisp_error(-EINVAL, "calibration: a capture without a name");
	ret = check_shape(c, cap, cisp_calib_kind_name(cap->kind));
	if (!ret)
		ret = calib_planes_from(&pl, cap->raw);
	if (ret)
		return cisp_error_prefix(ret, "%s %s", cisp_calib_kind_name(cap->kind), cap->name);
	calib_black_guess(c, black);
	if (!c->have_shape)
		for (int k = 0; k < 4; k++)
			black[k] = cap->black >= 0 ? cap->black : 0;
	level = calib_centre_level(&pl, (black[1] + black[2]) / 2, cap->white - (black[1] + black[2]) / 2);
	switch (cap->kind) {
	case CISP_CALIB_DARK:
		ret = calib_dark_add(&c->dark, &pl, cap);
		if (!ret && pairs_with_pending(c, cap, level))
			ret = calib_noise_add_pair(&c->noise, &c->pending, &pl, cap->gain > 0 ? cap->gain : 1, cap->white,
						   &variance);
		if (!ret && variance >= 0)
			calib_dark_add_pair(&c->dark, cap->exposure_s, cap->gain > 0 ? cap->gain : 1, variance);
		break;
	case CISP_CALIB_FLAT:
		ret = calib_flat_add(&c->flat, &pl, cap, (black[1] + black[2]) / 2);
		if (!ret && pairs_with_pending(c, cap, level))
			ret = calib_noise_add_pair(&c->noise, &c->pending, &pl, cap->gain > 0 ? cap->gain : 1, cap->white,
						   &variance);
		break;
	case CISP_CALIB_CHART:
		ret = add_chart(c, &pl, cap, black);
		break;
	case CISP_CALIB_EDGE: {
		struct cisp_calib_sharpness edge;

		ret = calib_edge_measure(&pl, cap, black, cap->white, &edge);
		if (!ret)
			c->edge = edge;
		break;
	}
	}
	if (!ret)
		ret = record_input(c, cap);
	if (!ret) {
		commit_shape(c, cap, &pl);
		c->solved = false;
		/* A pair is two frames: the one after it starts the next. */
		if ((cap->kind == CISP_CALIB_DARK || cap->kind == CISP_CALIB_FLAT) && variance < 0)
			keep_pending(c, &pl, cap, level);
		else
			c->have_pending = false;
	}
	calib_planes_free(&pl);
	return ret;
}

/* The black level of a frame added on its own: the darks' when there are any, else the stated one, else 0. */
static double frame_black(const struct cisp_calib *c, const struct cisp_calib_capture *cap)
{
	double black[4];

	if (c->dark.frames || cap->black < 0) {
		calib_black_guess(c, black);
		return (black[0] + black[1] + black[2] + black[3]) / 4;
	}
	return cap->black;
}

int cisp_calib_add_chart_flat(struct cisp_calib *c, const struct cisp_calib_capture *cap)
{
	struct cisp_calib_capture flat;
	struct cisp_calib_chart_flat *f;
	void *p;
	int ret;

	if (!cap || !cap->raw || !cap->name)
		return cisp_error(-EINVAL, "calibration: no chart frame, or one without a name");
	flat = *cap;
	flat.kind = CISP_CALIB_FLAT;
	if (c->num_chart_flats == CISP_CALIB_MAX_TABLE)
		return cisp_error(-EINVAL, "flat from chart %s: more than %d", cap->name, CISP_CALIB_MAX_TABLE);
	ret = check_shape(c, &flat, "flat from chart");
	if (ret)
		return ret;
	p = realloc(c->chart_flat, (c->num_chart_flats + 1) * sizeof(*c->chart_flat));
	if (!p)
		return cisp_error(-ENOMEM, "out of memory");
	c->chart_flat = p;
	f = &c->chart_flat[c->num_chart_flats];
	ret = cisp_calib_flat_from_chart(cap->raw, frame_black(c, cap), cap->white, cap->illuminant, f);
	if (!ret)
		ret = record_input(c, &flat);
	if (ret)
		return cisp_error_prefix(ret, "flat from chart %s", cap->name);
	if (!c->have_shape) {
		struct calib_planes pl = { 0 };

		/* The first capture fixes the shape: its planes' sizes and offsets only. */
		ret = calib_planes_from(&pl, cap->raw);
		if (ret)
			return ret;
		commit_shape(c, &flat, &pl);
		calib_planes_free(&pl);
	}
	c->num_chart_flats++;
	c->solved = false;
	return 0;
}

int cisp_calib_add_steps(struct cisp_calib *c, const struct cisp_calib_capture *cap)
{
	struct cisp_calib_tone *t;
	int ret;

	if (!cap || !cap->raw || !cap->name)
		return cisp_error(-EINVAL, "calibration: no grey-step frame, or one without a name");
	ret = check_shape(c, cap, "grey steps");
	if (ret)
		return ret;
	t = malloc(sizeof(*t));
	if (!t)
		return cisp_error(-ENOMEM, "out of memory");
	ret = cisp_calib_tone_from_steps(cap->raw, cap->white, t);
	if (ret) {
		free(t);
		return cisp_error_prefix(ret, "grey steps %s", cap->name);
	}
	free(c->tone);
	c->tone = t;
	return 0;
}

void cisp_calib_chart_frames(const struct cisp_calib *c, const struct cisp_calib_chart_flat **flat,
			     const struct cisp_calib_tone **tone)
{
	*flat = c->num_chart_flats ? &c->chart_flat[c->num_chart_flats - 1] : NULL;
	*tone = c->tone;
}

static int cmp_ct(const void *a, const void *b)
{
	const struct cisp_calib_shading_table *p = a, *q = b;

	return p->ct < q->ct ? -1 : p->ct > q->ct;
}

int cisp_calib_solve(struct cisp_calib *c, const struct cisp_calib_result **result)
{
	struct cisp_calib_result *r = &c->result;
	double black[4], ratio_sigma[4] = { 0 }, central_level[4] = { 0 };
	unsigned bits;
	double scale;
	int ret = 0;

	*result = NULL;
	if (!c->num_inputs)
		return cisp_error(-ENODATA, "calibration: no captures");
	free(c->defect_list);
	c->defect_list = NULL;
	memset(r, 0, sizeof(*r));
	r->width = c->width;
	r->height = c->height;
	r->cfa = c->cfa;
	r->white = c->white;
	calib_code_scale(c, &bits, &scale);
	r->bits = bits;
	if (c->dark.frames) {
		ret = calib_dark_solve(&c->dark, &c->shape, &r->black);
		memcpy(black, r->black.level, sizeof(black));
	} else {
		calib_black_guess(c, black);
	}
	if (!ret && c->noise.count)
		ret = calib_noise_solve(&c->noise, black, c->white, &r->noise);
	if (!ret) {
		/* The flats must be below the lowest gain's saturation, where the noise curve turns over. */
		double saturation = 1;

		if (r->noise.count && r->noise.gain[0].saturated)
			saturation = r->noise.gain[0].saturation / (c->white - (black[1] + black[2]) / 2);
		ret = calib_shading_solve(&c->flat, &c->shape, black, c->white, saturation, &r->shading);
	}
	/* Without flats, the chart frames' white areas give the shading. */
	if (!ret && !r->shading.count && c->num_chart_flats) {
		for (unsigned i = 0; i < c->num_chart_flats; i++)
			r->shading.table[i] = c->chart_flat[i].table;
		r->shading.count = c->num_chart_flats;
		qsort(r->shading.table, r->shading.count, sizeof(r->shading.table[0]), cmp_ct);
	}
	if (!ret && (c->dark.frames || c->flat.pixel_frames)) {
		ret = calib_defects_solve(&c->dark, &c->flat, &c->shape, c->white, black, &r->defects, ratio_sigma,
					  central_level);
		c->defect_list = (struct cisp_calib_defect *)r->defects.list;
	}
	/*
	 * PRNU: the spread of the kept flats' pixels about their neighbours, per
	 * channel less the temporal noise of their mean (from the noise curve
	 * at their gain) and the dark offsets, relative to the channel's level.
	 */
	if (!ret && c->flat.pixel_frames && r->noise.count) {
		const struct calib_flat_group *g = &c->flat.group[c->flat.pixel_group];
		const struct cisp_calib_noise_gain *n = &r->noise.gain[0];
		double sum = 0;

		for (unsigned i = 1; i < r->noise.count; i++)
			if (fabs(log(r->noise.gain[i].gain / g->gain)) < fabs(log(n->gain / g->gain)))
				n = &r->noise.gain[i];
		for (int k = 0; k < 4; k++) {
			double l = central_level[k];
			/* The median of the 24 neighbours adds about 1.57 / 24 of a sample's variance. */
			double var = (n->a[k] * l + n->b[k]) / c->flat.pixel_frames * (1 + 1.57 / 24) +
				     r->black.dsnu * r->black.dsnu;

			if (l > 0)
				sum += fmax(0, ratio_sigma[k] * ratio_sigma[k] - var / (l * l)) / 4;
		}
		r->shading.prnu = sqrt(sum);
	}
	if (!ret && c->num_charts)
		ret = calib_colour_solve(c->charts, c->num_charts, black, c->white, &r->shading, c->width, c->height,
					 &r->colour);
	if (!ret && c->num_charts)
		ret = calib_spectral_solve(&r->colour, &c->spectral);
	if (!ret && c->edge.valid) {
		r->sharpness = c->edge;
		r->sharpness.sharpen = calib_edge_sharpen(&c->edge.sfr);
	}
	if (ret)
		return ret;
	c->solved = true;
	*result = r;
	return 0;
}
