/* SPDX-License-Identifier: MIT */
/*
 * Importing another camera stack's tuning as a cisp tuning, so that a sensor
 * already tuned for libcamera starts from that work: the Raspberry Pi tuning
 * tool's JSON (version 1 or 2) and libcamera's rkisp1 YAML. Both are read
 * with libyaml (JSON is YAML). The mapping is docs/calibrate.md's table;
 * everything without a cisp equivalent is named in a warning, and what the
 * file lacks comes from a base tuning (the uncalibrated one by default),
 * also with a warning. The result is parsed back before it is written.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include <cisp/log.h>
#include <cisp/tuning.h>

#include "calibrate_internal.h"
#include "control/tuning.h"
#include "core/error_internal.h"
#include "core/yaml_reader.h"

#define GRID TUNING_LSC_GRID
/* The Raspberry Pi ALSC grid (VideoCore IV): 16 x 12 cells over the image. */
#define ALSC_W 16
#define ALSC_H 12
/* The largest shading gain a cisp table holds (65535 / 4096). */
#define MAX_GAIN 15.99975586

struct source {
	const char *path;
	struct yaml_reader r; /* the file (core/yaml_reader.h): JSON is YAML */
	unsigned warnings;
};

static yaml_node_t *node(struct source *s, yaml_node_item_t id)
{
	return yaml_reader_node(&s->r, id);
}

/* The value of @key in mapping @map, or NULL. */
static yaml_node_t *get(struct source *s, const yaml_node_t *map, const char *key)
{
	return yaml_reader_get(&s->r, map, key);
}

static int number(struct source *s, const yaml_node_t *n, const char *what, double *out)
{
	return yaml_reader_number(&s->r, n, what, -HUGE_VAL, HUGE_VAL, out);
}

/* A list of exactly @count numbers (@count 0: any, up to @max, their count in *@got). */
static int numbers(struct source *s, const yaml_node_t *n, const char *what, unsigned count, unsigned max, double *out,
		   unsigned *got)
{
	size_t k;

	if (got)
		*got = 0;
	if (!n || n->type != YAML_SEQUENCE_NODE)
		return yaml_reader_fail(&s->r, n, what, "must be a list of numbers");
	k = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (k > (count ? count : max))
		return yaml_reader_fail(&s->r, n, what, "has more than %u numbers", count ? count : max);
	if (count && k != count)
		return yaml_reader_fail(&s->r, n, what, "has %zu numbers, not %u", k, count);
	for (size_t i = 0; i < k; i++) {
		int ret = number(s, node(s, n->data.sequence.items.start[i]), what, &out[i]);

		if (ret)
			return ret;
	}
	if (got)
		*got = (unsigned)k;
	return 0;
}

static void unmapped(struct source *s, const char *what, const char *why)
{
	cisp_log(CISP_LOG_WARN, "%s: %s: %s", s->path, what, why);
	s->warnings++;
}

/* Keep 16 of @n > 16 table entries, evenly spread, both ends kept: indices into @keep. */
static unsigned thin(unsigned n, unsigned *keep)
{
	unsigned k = 0;

	for (unsigned i = 0; i < TUNING_MAX_CT; i++) {
		unsigned at = n <= TUNING_MAX_CT ? i : (unsigned)lround(i * (n - 1.0) / (TUNING_MAX_CT - 1));

		if (at >= n)
			break;
		if (!k || keep[k - 1] != at)
			keep[k++] = at;
	}
	return k;
}

/* A cell-centred grid of @gw x @gh values over the frame, at node (i, j) of the 17 x 17 grid: bilinear, extended linearly past the outer cells' centres. */
static double cell_grid_at(const double *v, unsigned gw, unsigned gh, unsigned i, unsigned j)
{
	double x = i / 16.0 * gw - 0.5, y = j / 16.0 * gh - 0.5;
	int x0 = x < 0 ? 0 : x >= gw - 1 ? (int)gw - 2 : (int)x, y0 = y < 0 ? 0 : y >= gh - 1 ? (int)gh - 2 : (int)y;
	double fx = x - x0, fy = y - y0;

	return (1 - fy) * ((1 - fx) * v[y0 * gw + x0] + fx * v[y0 * gw + x0 + 1]) +
	       fy * ((1 - fx) * v[(y0 + 1) * gw + x0] + fx * v[(y0 + 1) * gw + x0 + 1]);
}

/* Divide a table's channel by its smallest gain (the brightest part of the frame: gain 1), capped at the largest. */
static void normalise(float *g)
{
	float lo = g[0];

	for (int k = 1; k < GRID * GRID; k++)
		lo = fminf(lo, g[k]);
	for (int k = 0; k < GRID * GRID; k++)
		g[k] = (float)fmin(g[k] / lo, MAX_GAIN);
}

/* Gains are positive. */
static int positive(struct source *s, const double *v, unsigned n, const char *what)
{
	for (unsigned i = 0; i < n; i++)
		if (!(v[i] > 0))
			return cisp_error(-EINVAL, "%s: %s: gain %g is not positive", s->path, what, v[i]);
	return 0;
}

/* ---- the Raspberry Pi tuning tool's JSON ---- */

/* rpi.alsc: the colour tables are gains G/R and G/B, the luminance table the green gain, 16 x 12 cells. */
static int rpi_alsc(struct source *s, const yaml_node_t *a, struct cisp_tuning *t)
{
	yaml_node_t *cr = get(s, a, "calibrations_Cr"), *cb = get(s, a, "calibrations_Cb");
	double lum[ALSC_W * ALSC_H], r[ALSC_W * ALSC_H], b[ALSC_W * ALSC_H];
	unsigned n = cr && cr->type == YAML_SEQUENCE_NODE ? (unsigned)(cr->data.sequence.items.top - cr->data.sequence.items.start) : 0;
	unsigned keep[TUNING_MAX_CT], kept;
	int ret = numbers(s, get(s, a, "luminance_lut"), "rpi.alsc.luminance_lut", ALSC_W * ALSC_H, 0, lum, NULL);

	if (!ret)
		ret = positive(s, lum, ALSC_W * ALSC_H, "rpi.alsc.luminance_lut");

	if (ret)
		return ret;
	/* Without colour tables (a monochrome or uncalibrated sensor), one table of the luminance alone. */
	if ((cr || cb) && (!cr || cr->type != YAML_SEQUENCE_NODE || !cb || cb->type != YAML_SEQUENCE_NODE ||
			   (unsigned)(cb->data.sequence.items.top - cb->data.sequence.items.start) != n))
		return cisp_error(-EINVAL, "%s: rpi.alsc: calibrations_Cr and calibrations_Cb must be lists of one length",
				  s->path);
	kept = thin(n ? n : 1, keep);
	if (n > TUNING_MAX_CT)
		unmapped(s, "rpi.alsc", "more colour temperatures than a cisp tuning holds: 16 of them kept");
	t->lsc_count = 0;
	for (unsigned k = 0; k < kept; k++) {
		struct tuning_lsc *l = &t->lsc[t->lsc_count];
		double ct = 5000, ct_b = 0;

		for (int i = 0; i < ALSC_W * ALSC_H; i++)
			r[i] = b[i] = 1;
		if (n) {
			yaml_node_t *er = node(s, cr->data.sequence.items.start[keep[k]]),
				    *eb = node(s, cb->data.sequence.items.start[keep[k]]);

			ret = number(s, get(s, er, "ct"), "rpi.alsc.calibrations_Cr[].ct", &ct);
			if (!ret)
				ret = number(s, get(s, eb, "ct"), "rpi.alsc.calibrations_Cb[].ct", &ct_b);
			if (!ret && ct != ct_b)
				ret = cisp_error(-EINVAL, "%s: rpi.alsc: the Cr and Cb tables at %g K and %g K differ in order",
						 s->path, ct, ct_b);
			if (!ret)
				ret = numbers(s, get(s, er, "table"), "rpi.alsc.calibrations_Cr[].table", ALSC_W * ALSC_H, 0, r,
					      NULL);
			if (!ret)
				ret = numbers(s, get(s, eb, "table"), "rpi.alsc.calibrations_Cb[].table", ALSC_W * ALSC_H, 0, b,
					      NULL);
			if (!ret)
				ret = positive(s, r, ALSC_W * ALSC_H, "rpi.alsc.calibrations_Cr[].table");
			if (!ret)
				ret = positive(s, b, ALSC_W * ALSC_H, "rpi.alsc.calibrations_Cb[].table");
			if (ret)
				return ret;
		}
		l->ct = ct;
		for (unsigned j = 0; j < GRID; j++)
			for (unsigned i = 0; i < GRID; i++) {
				double g = cell_grid_at(lum, ALSC_W, ALSC_H, i, j);

				l->gain[0][j * GRID + i] = (float)(g * cell_grid_at(r, ALSC_W, ALSC_H, i, j));
				l->gain[1][j * GRID + i] = l->gain[2][j * GRID + i] = (float)g;
				l->gain[3][j * GRID + i] = (float)(g * cell_grid_at(b, ALSC_W, ALSC_H, i, j));
			}
		for (int c = 0; c < 4; c++)
			normalise(l->gain[c]);
		if (t->lsc_count && l->ct <= t->lsc[t->lsc_count - 1].ct)
			return cisp_error(-EINVAL, "%s: rpi.alsc: the tables' colour temperatures must rise", s->path);
		t->lsc_count++;
	}
	if (get(s, a, "luminance_strength"))
		unmapped(s, "rpi.alsc.luminance_strength", "not applied: cisp corrects the vignetting fully");
	return 0;
}

static int rpi_awb(struct source *s, const yaml_node_t *a, struct cisp_tuning *t)
{
	double v[3 * 64], pos = 0, neg = 0;
	unsigned n, keep[TUNING_MAX_CT], kept;
	int ret;

	if (!get(s, a, "ct_curve")) {
		unmapped(s, "rpi.awb", "no ct_curve: the base tuning's white-balance curve is kept");
		return 0;
	}
	ret = numbers(s, get(s, a, "ct_curve"), "rpi.awb.ct_curve", 0, 3 * 64, v, &n);
	if (!ret && (n % 3 || !n))
		ret = cisp_error(-EINVAL, "%s: rpi.awb.ct_curve must hold (ct, r, b) triples", s->path);
	if (ret)
		return ret;
	if (n / 3 > TUNING_MAX_CT)
		unmapped(s, "rpi.awb.ct_curve", "more points than a cisp tuning holds: 16 of them kept");
	kept = thin(n / 3, keep);
	/* r and b are the camera's R/G and B/G of a grey under that light, after lens shading: cisp's ratios. */
	for (unsigned k = 0; k < kept; k++)
		t->awb.ct[k] = (struct tuning_ct_point){ v[3 * keep[k]], v[3 * keep[k] + 1], v[3 * keep[k] + 2] };
	t->awb.ct_count = kept;
	t->awb.default_ct = 0;
	/* The Pi's band is asymmetric about the curve; cisp's is one distance: the wider side. */
	if (get(s, a, "transverse_pos") && !(ret = number(s, get(s, a, "transverse_pos"), "rpi.awb.transverse_pos", &pos)))
		ret = number(s, get(s, a, "transverse_neg"), "rpi.awb.transverse_neg", &neg);
	if (ret)
		return ret;
	if (pos > 0 || neg > 0) {
		t->awb.transverse = fmax(pos, neg);
		t->awb.max_curve_distance = fmax(t->awb.max_curve_distance, 2 * t->awb.transverse);
	}
	for (const char *const *k = (const char *const[]){ "priors", "modes", "bayes", "sensitivity_r", "sensitivity_b",
							     NULL };
	     *k; k++)
		if (get(s, a, *k)) {
			char what[64];

			snprintf(what, sizeof(what), "rpi.awb.%s", *k);
			unmapped(s, what, "no cisp equivalent (cisp's AWB weighs grey candidates, docs/tuning.md)");
		}
	return 0;
}

static int rpi_ccm(struct source *s, const yaml_node_t *a, struct cisp_tuning *t)
{
	yaml_node_t *list = get(s, a, "ccms");
	unsigned n = list && list->type == YAML_SEQUENCE_NODE
			     ? (unsigned)(list->data.sequence.items.top - list->data.sequence.items.start)
			     : 0, keep[TUNING_MAX_CT], kept;

	if (!n)
		return cisp_error(-EINVAL, "%s: rpi.ccm.ccms must be a list of {ct, ccm}", s->path);
	if (n > TUNING_MAX_CT)
		unmapped(s, "rpi.ccm.ccms", "more matrices than a cisp tuning holds: 16 of them kept");
	kept = thin(n, keep);
	for (unsigned k = 0; k < kept; k++) {
		yaml_node_t *e = node(s, list->data.sequence.items.start[keep[k]]);
		double m[9];
		int ret = number(s, get(s, e, "ct"), "rpi.ccm.ccms[].ct", &t->ccm[k].ct);

		if (!ret)
			ret = numbers(s, get(s, e, "ccm"), "rpi.ccm.ccms[].ccm", 9, 0, m, NULL);
		if (ret)
			return ret;
		/* Both are white-balanced camera RGB to linear sRGB, row-major. */
		for (int i = 0; i < 9; i++)
			t->ccm[k].m[i / 3][i % 3] = m[i];
		t->ccm[k].tint = 0;
	}
	t->ccm_count = kept;
	return 0;
}

static int import_rpi(struct source *s, const yaml_node_t *root, unsigned bits, struct cisp_tuning *t)
{
	yaml_node_t *algs = get(s, root, "algorithms");
	bool noise = false;
	int ret = 0;

	/* Version 2: a list of one-key mappings; version 1: the mapping itself. */
	for (unsigned i = 0;; i++) {
		yaml_node_t *name, *a;
		const char *key;

		if (algs && algs->type == YAML_SEQUENCE_NODE) {
			yaml_node_t *item;

			if (algs->data.sequence.items.start + i >= algs->data.sequence.items.top)
				break;
			item = node(s, algs->data.sequence.items.start[i]);
			if (!item || item->type != YAML_MAPPING_NODE || item->data.mapping.pairs.top - item->data.mapping.pairs.start != 1)
				return cisp_error(-EINVAL, "%s: algorithms[%u] must be a mapping of one algorithm", s->path, i);
			name = node(s, item->data.mapping.pairs.start[0].key);
			a = node(s, item->data.mapping.pairs.start[0].value);
		} else {
			if (root->data.mapping.pairs.start + i >= root->data.mapping.pairs.top)
				break;
			name = node(s, root->data.mapping.pairs.start[i].key);
			a = node(s, root->data.mapping.pairs.start[i].value);
		}
		if (!name || name->type != YAML_SCALAR_NODE)
			return cisp_error(-EINVAL, "%s: an algorithm without a name", s->path);
		key = (const char *)name->data.scalar.value;
		if (!strncmp(key, "rpi.", 4) && (!a || a->type != YAML_MAPPING_NODE))
			return cisp_error(-EINVAL, "%s: %s must be a mapping", s->path, key);
		if (!strcmp(key, "rpi.black_level")) {
			double v = 0;

			ret = number(s, get(s, a, "black_level"), "rpi.black_level.black_level", &v);
			/* 16-bit units: the sensor mode's codes are 2^(16 - bits) of them. */
			for (int c = 0; c < 4 && !ret; c++)
				t->black_level[c] = v / ldexp(1, 16 - (int)bits);
		} else if (!strcmp(key, "rpi.noise")) {
			double k = 0, c0 = 0;

			/* Deviation = constant + slope * sqrt(signal), the Pi's 16-bit units at unity gain: var = slope^2 s + constant^2. */
			ret = number(s, get(s, a, "reference_slope"), "rpi.noise.reference_slope", &k);
			if (!ret && get(s, a, "reference_constant"))
				ret = number(s, get(s, a, "reference_constant"), "rpi.noise.reference_constant", &c0);
			if (!ret) {
				t->noise_count = 1;
				t->noise[0].gain = 1;
				for (int c = 0; c < 4; c++) {
					t->noise[0].a[c] = k * k;
					t->noise[0].b[c] = c0 * c0;
				}
				noise = true;
			}
		} else if (!strcmp(key, "rpi.lux")) {
			double shutter_us = 0, gain = 0, lux = 0, y = 0;

			ret = number(s, get(s, a, "reference_shutter_speed"), "rpi.lux.reference_shutter_speed", &shutter_us);
			if (!ret)
				ret = number(s, get(s, a, "reference_gain"), "rpi.lux.reference_gain", &gain);
			if (!ret)
				ret = number(s, get(s, a, "reference_lux"), "rpi.lux.reference_lux", &lux);
			if (!ret)
				ret = number(s, get(s, a, "reference_Y"), "rpi.lux.reference_Y", &y);
			if (!ret && y > 0 && shutter_us > 0 && gain > 0) {
				/* lux = lux_scale * level / (exposure s * gain), the Pi's luminance taken as cisp's mean green. */
				t->ae.lux_scale = lux * shutter_us * 1e-6 * gain / y;
				unmapped(s, "rpi.lux.reference_Y", "a luminance; cisp's lux estimate takes it as the mean green");
			}
		} else if (!strcmp(key, "rpi.awb")) {
			ret = rpi_awb(s, a, t);
		} else if (!strcmp(key, "rpi.ccm")) {
			ret = rpi_ccm(s, a, t);
		} else if (!strcmp(key, "rpi.alsc")) {
			ret = rpi_alsc(s, a, t);
		} else if (!strncmp(key, "rpi.", 4)) {
			unmapped(s, key, "no cisp equivalent, not imported");
		}
		if (ret)
			return ret;
	}
	/*
	 * The Pi's 16-bit units are the codes shifted left, black and all;
	 * cisp's span black to white: its signal is f = 65535 / (65535 - black)
	 * times the Pi's, its variance f^2 times.
	 */
	if (noise && t->black_level[0] >= 0) {
		double f = 65535 / (65535 - t->black_level[0] * ldexp(1, 16 - (int)bits));

		for (int c = 0; c < 4; c++) {
			t->noise[0].a[c] *= f;
			t->noise[0].b[c] *= f * f;
		}
	}
	return 0;
}

/* ---- libcamera's rkisp1 YAML ---- */

/* The 17 node positions (fractions of the frame) of 8 sector sizes per half, mirrored. */
static int rk_positions(struct source *s, const yaml_node_t *n, const char *what, double pos[GRID])
{
	double size[8], sum = 0;
	int ret = numbers(s, n, what, 8, 0, size, NULL);

	if (ret)
		return ret;
	pos[0] = 0;
	for (int i = 0; i < 8; i++) {
		if (!(size[i] > 0))
			return cisp_error(-EINVAL, "%s: %s: sector sizes must be positive", s->path, what);
		pos[i + 1] = pos[i] + size[i];
		sum += size[i];
	}
	if (fabs(sum - 0.5) > 1e-3)
		return cisp_error(-EINVAL, "%s: %s: the sectors of half the frame add up to %g, not 0.5", s->path, what, sum);
	for (int i = 0; i < 8; i++)
		pos[16 - i] = 1 - pos[i];
	return 0;
}

/* Linear interpolation of @v (at positions @pos) at @x. */
static double along(const double *pos, const double *v, double x)
{
	int k = 0;

	while (k < GRID - 2 && x > pos[k + 1])
		k++;
	return v[k] + (v[k + 1] - v[k]) * (x - pos[k]) / (pos[k + 1] - pos[k]);
}

static int rk_lsc(struct source *s, const yaml_node_t *a, struct cisp_tuning *t)
{
	static const char *const ch[4] = { "r", "gr", "gb", "b" };
	yaml_node_t *sets = get(s, a, "sets");
	double px[GRID], py[GRID], v[GRID * GRID];
	bool below = false;
	int ret = rk_positions(s, get(s, a, "x-size"), "LensShadingCorrection.x-size", px);

	if (!ret)
		ret = rk_positions(s, get(s, a, "y-size"), "LensShadingCorrection.y-size", py);
	if (!ret && (!sets || sets->type != YAML_SEQUENCE_NODE || sets->data.sequence.items.top == sets->data.sequence.items.start))
		ret = cisp_error(-EINVAL, "%s: LensShadingCorrection.sets must be a list of tables", s->path);
	if (ret)
		return ret;
	if (sets->data.sequence.items.top - sets->data.sequence.items.start > TUNING_MAX_CT)
		return cisp_error(-EINVAL, "%s: LensShadingCorrection: more than %d tables", s->path, TUNING_MAX_CT);
	t->lsc_count = 0;
	for (yaml_node_item_t *it = sets->data.sequence.items.start; it < sets->data.sequence.items.top; it++) {
		yaml_node_t *e = node(s, *it);
		struct tuning_lsc *l = &t->lsc[t->lsc_count];

		ret = number(s, get(s, e, "ct"), "LensShadingCorrection.sets[].ct", &l->ct);
		for (int c = 0; c < 4 && !ret; c++) {
			char what[64];

			snprintf(what, sizeof(what), "LensShadingCorrection.sets[].%s", ch[c]);
			ret = numbers(s, get(s, e, ch[c]), what, GRID * GRID, 0, v, NULL);
			/* 1024 is a gain of 1; the nodes lie at the sectors' corners, resampled onto cisp's even grid. */
			for (unsigned j = 0; j < GRID && !ret; j++)
				for (unsigned i = 0; i < GRID; i++) {
					double row[GRID], col[GRID];

					for (unsigned k = 0; k < GRID; k++) {
						for (unsigned m = 0; m < GRID; m++)
							row[m] = v[k * GRID + m];
						col[k] = along(px, row, i / 16.0);
					}
					double g = along(py, col, j / 16.0) / 1024;

					below |= g < 1;
					l->gain[c][j * GRID + i] = (float)fmin(fmax(g, 1), MAX_GAIN);
				}
		}
		if (ret)
			return ret;
		if (t->lsc_count && l->ct <= t->lsc[t->lsc_count - 1].ct)
			return cisp_error(-EINVAL, "%s: LensShadingCorrection: the tables' colour temperatures must rise",
					  s->path);
		t->lsc_count++;
	}
	if (below)
		unmapped(s, "LensShadingCorrection", "gains below 1 raised to 1 (cisp's tables only lift)");
	return 0;
}

static int import_rkisp1(struct source *s, const yaml_node_t *algs, unsigned bits, struct cisp_tuning *t)
{
	for (yaml_node_item_t *it = algs->data.sequence.items.start; it < algs->data.sequence.items.top; it++) {
		yaml_node_t *item = node(s, *it), *name, *a;
		const char *key;
		int ret = 0;

		if (!item || item->type != YAML_MAPPING_NODE || item->data.mapping.pairs.top - item->data.mapping.pairs.start != 1)
			return cisp_error(-EINVAL, "%s: algorithms must be a list of one-key mappings", s->path);
		name = node(s, item->data.mapping.pairs.start[0].key);
		a = node(s, item->data.mapping.pairs.start[0].value);
		if (!name || name->type != YAML_SCALAR_NODE)
			return cisp_error(-EINVAL, "%s: an algorithm without a name", s->path);
		key = (const char *)name->data.scalar.value;
		if (!strcmp(key, "BlackLevelCorrection")) {
			static const char *const ch[4] = { "R", "Gr", "Gb", "B" };

			/* The rkisp1's black level is in 12-bit units. */
			for (int c = 0; c < 4 && !ret; c++) {
				double v = 0;

				ret = number(s, get(s, a, ch[c]), "BlackLevelCorrection", &v);
				if (!ret)
					t->black_level[c] = v / ldexp(1, 12 - (int)bits);
			}
		} else if (!strcmp(key, "LensShadingCorrection")) {
			ret = rk_lsc(s, a, t);
		} else if (a && a->type == YAML_MAPPING_NODE && a->data.mapping.pairs.top > a->data.mapping.pairs.start) {
			unmapped(s, key, "no cisp equivalent, not imported");
		}
		if (ret)
			return ret;
	}
	return 0;
}

int cisp_tuning_import(const char *path, const struct cisp_tuning_import *opt, struct cisp_output_file *out)
{
	struct source s = { .path = path };
	struct cisp_tuning *t = NULL;
	yaml_node_t *root;
	char comment[512];
	const char *format = NULL;
	int ret;

	if (!opt->sensor || !opt->sensor[0] || strlen(opt->sensor) >= sizeof(t->sensor) || strpbrk(opt->sensor, "/\\: \"'#"))
		return cisp_error(-EINVAL, "the sensor name '%s' is not a plain name", opt->sensor ? opt->sensor : "");
	if (opt->bits < 8 || opt->bits > 16)
		return cisp_error(-EINVAL, "the sensor mode's bit depth must be 8..16 (the black level is written in its codes)");
	ret = yaml_reader_load_file(&s.r, path, 16 << 20, &root);
	if (ret)
		return ret;
	if (root->type != YAML_MAPPING_NODE) {
		ret = cisp_error(-EINVAL, "%s: not a tuning file (no top-level mapping)", path);
		goto out;
	}
	ret = opt->base ? cisp_tuning_load(&t, opt->base) : cisp_tuning_uncalibrated(&t);
	if (ret)
		goto out;
	snprintf(t->sensor, sizeof(t->sensor), "%s", opt->sensor);
	t->uncalibrated = false;
	t->provenance.present = false;
	t->defect_count = 0;
	{
		/* What the base gave, to say which required sections the file did not replace. */
		unsigned ct = t->awb.ct_count, ccm = t->ccm_count, noise = t->noise_count;
		yaml_node_t *algs = get(&s, root, "algorithms");
		bool rpi = false;

		/* Version 1 of the Pi's format: the algorithms are the top-level keys. */
		for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top && !rpi; p++) {
			yaml_node_t *k = node(&s, p->key);

			rpi = k && k->type == YAML_SCALAR_NODE && !strncmp((const char *)k->data.scalar.value, "rpi.", 4);
		}

		t->awb.ct_count = t->ccm_count = t->noise_count = 0;
		for (yaml_node_item_t *it = algs && algs->type == YAML_SEQUENCE_NODE ? algs->data.sequence.items.start : NULL;
		     it && it < algs->data.sequence.items.top && !rpi; it++) {
			yaml_node_t *item = node(&s, *it), *name = NULL;

			if (item && item->type == YAML_MAPPING_NODE && item->data.mapping.pairs.top > item->data.mapping.pairs.start)
				name = node(&s, item->data.mapping.pairs.start[0].key);
			rpi = name && name->type == YAML_SCALAR_NODE &&
			      !strncmp((const char *)name->data.scalar.value, "rpi.", 4);
		}
		if (rpi) {
			format = "Raspberry Pi tuning tool JSON";
			ret = import_rpi(&s, root, opt->bits, t);
		} else if (algs && algs->type == YAML_SEQUENCE_NODE) {
			format = "libcamera rkisp1 YAML";
			ret = import_rkisp1(&s, algs, opt->bits, t);
		} else {
			ret = cisp_error(-EINVAL, "%s: neither a Raspberry Pi tuning (rpi.* algorithms) nor an rkisp1 tuning "
						  "(an algorithms list)",
					 path);
		}
		if (ret)
			goto out;
		if (!t->awb.ct_count) {
			t->awb.ct_count = ct;
			unmapped(&s, "white-balance curve", opt->base ? "none in the file: the base tuning's" : "none in the file: the uncalibrated tuning's");
		}
		if (!t->ccm_count) {
			t->ccm_count = ccm;
			unmapped(&s, "colour matrices", opt->base ? "none in the file: the base tuning's" : "none in the file: the uncalibrated tuning's");
		}
		if (!t->noise_count) {
			t->noise_count = noise;
			unmapped(&s, "noise profile", opt->base ? "none in the file: the base tuning's" : "none in the file: the uncalibrated tuning's");
		}
	}
	if (opt->array_width && opt->array_height && t->lsc_count) {
		t->lsc_array_width = opt->array_width;
		t->lsc_array_height = opt->array_height;
	}
	snprintf(comment, sizeof(comment), "Tuning of %s imported by cisp tuning import from %s (%s; docs/calibrate.md).",
		 opt->sensor, path, format);
	for (char *p = comment; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = '?';
	ret = calib_tuning_emit(t, comment, NULL, NULL, out);
out:
	cisp_tuning_free(t);
	yaml_reader_free(&s.r);
	return ret;
}
