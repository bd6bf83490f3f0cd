/* SPDX-License-Identifier: MIT */
/*
 * The tuning file parser: YAML read with libyaml's document API, walked by
 * the schema of docs/tuning.md. Every key is known or an error, every value
 * is range-checked, tables are sorted; an error names the file, the line and
 * the key ("tuning.yaml:12: awb.ct[2].r_over_g: must be > 0").
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/error_internal.h"
#include "core/number.h"
#include "core/yaml_depth.h"
#include "tuning.h"

struct parser {
	const char *name;
	yaml_document_t doc;
};

static yaml_node_t *node(struct parser *p, yaml_node_item_t id)
{
	return yaml_document_get_node(&p->doc, id);
}

static unsigned long line_of(const yaml_node_t *n)
{
	return n ? (unsigned long)n->start_mark.line + 1 : 0;
}

static int fail(struct parser *p, const yaml_node_t *n, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(struct parser *p, const yaml_node_t *n, const char *key, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cisp_error(-EINVAL, "%s:%lu: %s: %s", p->name, line_of(n), key, msg);
}

/* Name a place in the file for messages ("awb.ct[2].ct"); a name longer than @size is cut short. */
static void place(char *k, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void place(char *k, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(k, size, fmt, ap);
	va_end(ap);
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A number within [lo, hi] (open at lo when @lo_open: "must be > lo"). */
static int number(struct parser *p, const yaml_node_t *n, const char *key, double lo, bool lo_open, double hi,
		  double *out)
{
	const char *s = scalar(n);
	char *end;
	double v;

	if (!s || !*s)
		return fail(p, n, key, "must be a number");
	v = cisp_strtod(s, &end);
	if (end == s || *end || !isfinite(v))
		return fail(p, n, key, "'%s' is not a number", s);
	if (lo_open ? !(v > lo) : !(v >= lo))
		return fail(p, n, key, "must be %s %g (is %g)", lo_open ? ">" : ">=", lo, v);
	if (v > hi)
		return fail(p, n, key, "must be <= %g (is %g)", hi, v);
	*out = v;
	return 0;
}

static int integer(struct parser *p, const yaml_node_t *n, const char *key, double lo, double hi, double *out)
{
	int ret = number(p, n, key, lo, false, hi, out);

	if (!ret && *out != floor(*out))
		return fail(p, n, key, "must be a whole number (is %g)", *out);
	return ret;
}

/* A list of exactly @count numbers in [lo, hi]. */
static int numbers(struct parser *p, const yaml_node_t *n, const char *key, unsigned count, double lo, double hi,
		   double *out)
{
	char k[128];
	unsigned i = 0;

	if (!n || n->type != YAML_SEQUENCE_NODE)
		return fail(p, n, key, "must be a list of %u numbers", count);
	if (n->data.sequence.items.top - n->data.sequence.items.start != (ptrdiff_t)count)
		return fail(p, n, key, "must have %u numbers (has %ld)", count,
			    (long)(n->data.sequence.items.top - n->data.sequence.items.start));
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++, i++) {
		int ret;

		place(k, sizeof(k), "%s[%u]", key, i);
		ret = number(p, node(p, *it), k, lo, false, hi, &out[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static int text(struct parser *p, const yaml_node_t *n, const char *key, char *out, size_t size)
{
	const char *s = scalar(n);

	if (!s)
		return fail(p, n, key, "must be text");
	if (strlen(s) >= size)
		return fail(p, n, key, "is longer than %zu characters", size - 1);
	if (strchr(s, '/'))
		return fail(p, n, key, "'%s' must be a plain name (no '/')", s);
	snprintf(out, size, "%s", s);
	return 0;
}

/*
 * Walk a mapping: every key must be one of @keys (NULL-terminated), at most
 * once; @fn handles each with its index. Keys marked required in @required
 * (bit i for keys[i]) must be present.
 */
typedef int (*key_fn)(struct parser *p, void *ctx, unsigned index, const char *key, yaml_node_t *value);

static int walk_map(struct parser *p, const yaml_node_t *map, const char *where, const char *const *keys,
		    uint32_t required, key_fn fn, void *ctx)
{
	uint32_t seen = 0;
	char k[128];

	if (!map || map->type != YAML_MAPPING_NODE)
		return fail(p, map, where, "must be a mapping of keys");
	for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top; pr++) {
		yaml_node_t *kn = node(p, pr->key);
		const char *name = scalar(kn);
		unsigned i;
		int ret;

		if (!name)
			return fail(p, kn, where, "keys must be plain text");
		for (i = 0; keys[i] && strcmp(keys[i], name); i++)
			;
		place(k, sizeof(k), "%s%s%s", where, *where ? "." : "", name);
		if (!keys[i])
			return fail(p, kn, k, "unknown key");
		if (seen & (1u << i))
			return fail(p, kn, k, "appears twice");
		seen |= 1u << i;
		ret = fn(p, ctx, i, k, node(p, pr->value));
		if (ret)
			return ret;
	}
	for (unsigned i = 0; keys[i]; i++) {
		if ((required & (1u << i)) && !(seen & (1u << i))) {
			place(k, sizeof(k), "%s%s%s", where, *where ? "." : "", keys[i]);
			return fail(p, map, k, "missing (required)");
		}
	}
	return 0;
}

/* Walk a list of mappings: @fn gets each item and its key ("ccm[2]"). */
typedef int (*item_fn)(struct parser *p, struct cisp_tuning *t, unsigned index, const char *key, yaml_node_t *item);

static int walk_list(struct parser *p, struct cisp_tuning *t, const yaml_node_t *n, const char *key, unsigned max,
		     unsigned *count, item_fn fn)
{
	char k[128];
	unsigned i = 0;

	if (!n || n->type != YAML_SEQUENCE_NODE)
		return fail(p, n, key, "must be a list");
	if (n->data.sequence.items.top == n->data.sequence.items.start)
		return fail(p, n, key, "must have at least one entry");
	if (n->data.sequence.items.top - n->data.sequence.items.start > (ptrdiff_t)max)
		return fail(p, n, key, "has more than %u entries", max);
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++, i++) {
		int ret;

		place(k, sizeof(k), "%s[%u]", key, i);
		ret = fn(p, t, i, k, node(p, *it));
		if (ret)
			return ret;
	}
	*count = i;
	return 0;
}

/* Table keys (colour temperatures, gains) must rise strictly. */
static int check_sorted(struct parser *p, const yaml_node_t *n, const char *key, double prev, double v, unsigned i)
{
	if (i > 0 && !(v > prev))
		return fail(p, n, key, "%g must be above the previous entry's %g (tables are sorted)", v, prev);
	return 0;
}

/* ---- ae ---- */

static const char *const ae_keys[] = { "target", "tolerance", "highlight_fraction", "highlight_level", "speed",
				       "max_exposure_us", "max_analogue_gain", "max_digital_gain", "lux_scale",
				       NULL };

static int ae_key(struct parser *p, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct cisp_tuning *t = ctx;

	switch (i) {
	case 0: return number(p, v, k, 0, true, 1, &t->ae.target);
	case 1: return number(p, v, k, 0, true, 0.5, &t->ae.tolerance);
	case 2: return number(p, v, k, 0, false, 1, &t->ae.highlight_fraction);
	case 3: return number(p, v, k, 0, true, 1, &t->ae.highlight_level);
	case 4: return number(p, v, k, 0, true, 1, &t->ae.speed);
	case 5: return number(p, v, k, 0, true, 1e7, &t->ae.max_exposure_us);
	case 6: return number(p, v, k, 1, false, 256, &t->ae.max_analogue_gain);
	case 7: return number(p, v, k, 1, false, 256, &t->ae.max_digital_gain);
	default: return number(p, v, k, 0, false, 1e12, &t->ae.lux_scale);
	}
}

/* ---- awb ---- */

static const char *const ct_keys[] = { "ct", "r_over_g", "b_over_g", NULL };

static int ct_key(struct parser *p, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct tuning_ct_point *c = ctx;

	switch (i) {
	case 0: return number(p, v, k, 1000, false, 20000, &c->ct);
	case 1: return number(p, v, k, 0, true, 16, &c->r_over_g);
	default: return number(p, v, k, 0, true, 16, &c->b_over_g);
	}
}

static int ct_item(struct parser *p, struct cisp_tuning *t, unsigned i, const char *k, yaml_node_t *item)
{
	struct tuning_ct_point *c = &t->awb.ct[i];
	char key[160];
	int ret = walk_map(p, item, k, ct_keys, 7, ct_key, c);

	place(key, sizeof(key), "%s.ct", k);
	return ret ? ret : check_sorted(p, item, key, i ? t->awb.ct[i - 1].ct : 0, c->ct, i);
}

static const char *const awb_keys[] = { "ct", "prior_weight", "max_curve_distance", "speed", "default_ct",
					"transverse", NULL };

static int awb_key(struct parser *p, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct cisp_tuning *t = ctx;

	switch (i) {
	case 0: return walk_list(p, t, v, k, TUNING_MAX_CT, &t->awb.ct_count, ct_item);
	case 1: return number(p, v, k, 0, false, 1, &t->awb.prior_weight);
	case 2: return number(p, v, k, 0, true, 4, &t->awb.max_curve_distance);
	case 3: return number(p, v, k, 0, true, 1, &t->awb.speed);
	case 4: return number(p, v, k, 1000, false, 20000, &t->awb.default_ct);
	default: return number(p, v, k, 0, false, 4, &t->awb.transverse);
	}
}

/* ---- af, flicker ---- */

static const char *const af_keys[] = { "position_range", "coarse_steps", "fine_steps", "scene_change",
				       "min_contrast", NULL };

static int af_key(struct parser *p, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct cisp_tuning *t = ctx;
	double d[2];
	int ret;

	switch (i) {
	case 0:
		ret = numbers(p, v, k, 2, -1e6, 1e6, d);
		if (ret)
			return ret;
		if ((d[0] != floor(d[0]) || d[1] != floor(d[1])))
			return fail(p, v, k, "positions must be whole numbers");
		if (!(d[1] > d[0]))
			return fail(p, v, k, "the maximum %g must be above the minimum %g", d[1], d[0]);
		t->af.position_min = (int32_t)d[0];
		t->af.position_max = (int32_t)d[1];
		return 0;
	case 1:
		ret = integer(p, v, k, 2, 256, d);
		t->af.coarse_steps = ret ? 0 : (unsigned)d[0];
		return ret;
	case 2:
		ret = integer(p, v, k, 0, 256, d);
		t->af.fine_steps = ret ? 0 : (unsigned)d[0];
		return ret;
	case 3: return number(p, v, k, 0, true, 10, &t->af.scene_change);
	default: return number(p, v, k, 1, false, 1000, &t->af.min_contrast);
	}
}

static const char *const flicker_keys[] = { "detect_threshold", NULL };

static int flicker_key(struct parser *p, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct cisp_tuning *t = ctx;

	(void)i;
	return number(p, v, k, 0, true, 1, &t->flicker.detect_threshold);
}

/* ---- ccm ---- */

static const char *const ccm_keys[] = { "ct", "matrix", NULL };

static int ccm_key(struct parser *p, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct tuning_ccm *c = ctx;
	char key[160];
	unsigned r = 0;

	if (i == 0)
		return number(p, v, k, 1000, false, 20000, &c->ct);
	if (!v || v->type != YAML_SEQUENCE_NODE || v->data.sequence.items.top - v->data.sequence.items.start != 3)
		return fail(p, v, k, "must be a list of 3 rows of 3 numbers");
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, r++) {
		yaml_node_t *row = node(p, *it);
		double sum = 0, mag = 0;
		int ret;

		place(key, sizeof(key), "%s[%u]", k, r);
		ret = numbers(p, row, key, 3, -7.99, 7.99, c->m[r]);
		if (ret)
			return ret;
		for (int j = 0; j < 3; j++) {
			sum += c->m[r][j];
			mag += fabs(c->m[r][j]);
		}
		/* Rows sum to 1 so that white-balanced greys stay grey. */
		if (fabs(sum - 1) > 0.01)
			return fail(p, row, key, "the row sums to %g; it must sum to 1", sum);
		if (mag > 32767.0 / 4096)
			return fail(p, row, key, "the magnitudes add up to %g, over %g (Q3.12)", mag, 32767.0 / 4096);
	}
	return 0;
}

static int ccm_item(struct parser *p, struct cisp_tuning *t, unsigned i, const char *k, yaml_node_t *item)
{
	char key[160];
	int ret = walk_map(p, item, k, ccm_keys, 3, ccm_key, &t->ccm[i]);

	place(key, sizeof(key), "%s.ct", k);
	return ret ? ret : check_sorted(p, item, key, i ? t->ccm[i - 1].ct : 0, t->ccm[i].ct, i);
}

/* ---- lens shading ---- */

static const char *const lsc_table_keys[] = { "ct", "r", "gr", "gb", "b", NULL };

static int lsc_table_key(struct parser *p, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct tuning_lsc *l = ctx;
	double g[TUNING_LSC_GRID * TUNING_LSC_GRID];
	int ret;

	if (i == 0)
		return number(p, v, k, 1000, false, 20000, &l->ct);
	ret = numbers(p, v, k, TUNING_LSC_GRID * TUNING_LSC_GRID, 1, 65535.0 / 4096, g);
	for (unsigned j = 0; !ret && j < TUNING_LSC_GRID * TUNING_LSC_GRID; j++)
		l->gain[i - 1][j] = (float)g[j];
	return ret;
}

static int lsc_item(struct parser *p, struct cisp_tuning *t, unsigned i, const char *k, yaml_node_t *item)
{
	char key[160];
	int ret = walk_map(p, item, k, lsc_table_keys, 31, lsc_table_key, &t->lsc[i]);

	place(key, sizeof(key), "%s.ct", k);
	return ret ? ret : check_sorted(p, item, key, i ? t->lsc[i - 1].ct : 0, t->lsc[i].ct, i);
}

static const char *const lsc_keys[] = { "array", "tables", NULL };

static int lsc_key(struct parser *p, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct cisp_tuning *t = ctx;
	double d[2];
	int ret;

	if (i == 1)
		return walk_list(p, t, v, k, TUNING_MAX_CT, &t->lsc_count, lsc_item);
	ret = numbers(p, v, k, 2, 2, 65535, d);
	if (ret)
		return ret;
	if (d[0] != floor(d[0]) || d[1] != floor(d[1]))
		return fail(p, v, k, "must be whole numbers of pixels");
	t->lsc_array_width = (uint32_t)d[0];
	t->lsc_array_height = (uint32_t)d[1];
	return 0;
}

/* ---- noise, denoise ---- */

static const char *const noise_keys[] = { "gain", "a", "b", NULL };

static int noise_key(struct parser *p, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct tuning_noise *n = ctx;

	switch (i) {
	case 0: return number(p, v, k, 1, false, 65536, &n->gain);
	case 1: return numbers(p, v, k, 4, 0, 65535, n->a);
	default: return numbers(p, v, k, 4, 0, 4294967295.0, n->b);
	}
}

static int noise_item(struct parser *p, struct cisp_tuning *t, unsigned i, const char *k, yaml_node_t *item)
{
	char key[160];
	int ret = walk_map(p, item, k, noise_keys, 7, noise_key, &t->noise[i]);

	place(key, sizeof(key), "%s.gain", k);
	return ret ? ret : check_sorted(p, item, key, i ? t->noise[i - 1].gain : 0, t->noise[i].gain, i);
}

static const char *const denoise_keys[] = { "gain", "bnr", "cnr", "sharpen", "coring", "bnr_mode", NULL };

static int denoise_key(struct parser *p, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct tuning_denoise *d = ctx;

	switch (i) {
	case 0: return number(p, v, k, 1, false, 65536, &d->gain);
	case 1: return number(p, v, k, 0, false, 4, &d->bnr_strength);
	case 2: return number(p, v, k, 0, false, 16, &d->cnr_strength);
	case 3: return number(p, v, k, 0, false, 8, &d->sharpen_strength);
	case 4: return number(p, v, k, 0, false, 65535, &d->sharpen_coring);
	default: {
		const char *s = scalar(v);

		if (!s || (strcmp(s, "fast") && strcmp(s, "quality")))
			return fail(p, v, k, "'%s' is not one of fast, quality", s ? s : "");
		d->bnr_mode = strcmp(s, "fast") ? CISP_BNR_QUALITY : CISP_BNR_FAST;
		return 0;
	}
	}
}

static int denoise_item(struct parser *p, struct cisp_tuning *t, unsigned i, const char *k, yaml_node_t *item)
{
	char key[160];
	int ret = walk_map(p, item, k, denoise_keys, 31, denoise_key, &t->denoise[i]);

	place(key, sizeof(key), "%s.gain", k);
	return ret ? ret : check_sorted(p, item, key, i ? t->denoise[i - 1].gain : 0, t->denoise[i].gain, i);
}

/* ---- top level ---- */

static const char *const top_keys[] = { "version", "sensor", "lens", "black_level", "ae", "awb", "af", "flicker",
					"ccm", "lens_shading", "noise", "denoise", "gamma", "defect_threshold", NULL };
/* version, sensor, awb, ccm, noise */
#define TOP_REQUIRED ((1u << 0) | (1u << 1) | (1u << 5) | (1u << 8) | (1u << 10))

static int top_key(struct parser *p, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct cisp_tuning *t = ctx;
	double g;
	int ret;

	switch (i) {
	case 0: return 0; /* checked first, in tuning_parse() */
	case 1: return text(p, v, k, t->sensor, sizeof(t->sensor));
	case 2: return text(p, v, k, t->lens, sizeof(t->lens));
	case 3: return numbers(p, v, k, 4, 0, 65535, t->black_level);
	case 4: return walk_map(p, v, k, ae_keys, 0, ae_key, t);
	case 5: return walk_map(p, v, k, awb_keys, 1, awb_key, t);
	case 6: return walk_map(p, v, k, af_keys, 0, af_key, t);
	case 7: return walk_map(p, v, k, flicker_keys, 0, flicker_key, t);
	case 8: return walk_list(p, t, v, k, TUNING_MAX_CT, &t->ccm_count, ccm_item);
	case 9: return walk_map(p, v, k, lsc_keys, 2, lsc_key, t);
	case 10: return walk_list(p, t, v, k, TUNING_MAX_GAIN, &t->noise_count, noise_item);
	case 11: return walk_list(p, t, v, k, TUNING_MAX_GAIN, &t->denoise_count, denoise_item);
	case 12:
		ret = number(p, v, k, 0, false, 10, &g);
		if (ret)
			return ret;
		if (g != 0 && g < 1)
			return fail(p, v, k, "must be 0 (the sRGB curve) or a power of 1..10 (is %g)", g);
		t->gamma = g;
		return 0;
	default:
		return integer(p, v, k, 0, 65535, &t->defect_threshold);
	}
}

/* The version key, before anything else: another version's keys mean other things. */
static int check_version(struct parser *p, yaml_node_t *root)
{
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top; pr++) {
		const char *name = scalar(node(p, pr->key));
		yaml_node_t *v = node(p, pr->value);
		double ver;
		int ret;

		if (!name || strcmp(name, "version"))
			continue;
		ret = integer(p, v, "version", 0, 1e9, &ver);
		if (ret)
			return ret;
		if (ver != CISP_TUNING_VERSION)
			return cisp_error(-EPROTONOSUPPORT, "%s:%lu: version: %g is not supported (this library reads %d)",
					  p->name, line_of(v), ver, CISP_TUNING_VERSION);
		return 0;
	}
	return fail(p, root, "version", "missing (required)");
}

int tuning_parse_into(struct cisp_tuning *t, const char *text_in, size_t length, const char *name)
{
	struct parser p = { .name = name && *name ? name : "tuning" };
	yaml_parser_t yp;
	yaml_node_t *root;
	int ret;

	ret = cisp_yaml_check_depth_string(p.name, text_in, length);
	if (ret)
		return ret;
	if (!yaml_parser_initialize(&yp))
		return cisp_error(-ENOMEM, "%s: out of memory", p.name);
	yaml_parser_set_input_string(&yp, (const unsigned char *)text_in, length);
	if (!yaml_parser_load(&yp, &p.doc)) {
		ret = cisp_error(-EINVAL, "%s:%lu: %s", p.name, (unsigned long)yp.problem_mark.line + 1,
				 yp.problem ? yp.problem : "not valid YAML");
		yaml_parser_delete(&yp);
		return ret;
	}
	root = yaml_document_get_root_node(&p.doc);
	if (!root)
		ret = cisp_error(-EINVAL, "%s:1: the file is empty", p.name);
	else if (root->type != YAML_MAPPING_NODE)
		ret = fail(&p, root, "(top level)", "must be a mapping of keys");
	else
		ret = check_version(&p, root);
	if (!ret)
		ret = walk_map(&p, root, "", top_keys, TOP_REQUIRED, top_key, t);
	if (!ret && t->awb.default_ct == 0)
		t->awb.default_ct = t->awb.ct[t->awb.ct_count / 2].ct;
	yaml_document_delete(&p.doc);
	yaml_parser_delete(&yp);
	return ret;
}
