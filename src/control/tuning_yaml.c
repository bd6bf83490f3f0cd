/* SPDX-License-Identifier: MIT */
/*
 * The tuning file reader: YAML loaded with libyaml's document API, the top
 * level walked here, each section handed to the algorithm that owns it
 * (algorithms.c). Every key is known or an error, every value is
 * range-checked, tables are sorted; an error names the file, the line and
 * the key ("tuning.yaml:12: awb.ct[2].r_over_g: 0 is outside 0.0625..16").
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithm.h"
#include "core/error_internal.h"
#include "core/number.h"
#include "core/yaml_depth.h"
#include "tuning.h"
#include "tuning_yaml.h"

yaml_node_t *tuning_node(struct tuning_reader *r, yaml_node_item_t id)
{
	return yaml_document_get_node(&r->doc, id);
}

static unsigned long line_of(const yaml_node_t *n)
{
	return n ? (unsigned long)n->start_mark.line + 1 : 0;
}

int tuning_fail(struct tuning_reader *r, const yaml_node_t *n, const char *key, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cisp_error(-EINVAL, "%s:%lu: %s: %s", r->name, line_of(n), key, msg);
}

void tuning_place(char *k, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(k, size, fmt, ap);
	va_end(ap);
}

const char *tuning_format(char *buf, size_t size, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.10g", v);
	return buf;
}

const char *tuning_scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

int tuning_number(struct tuning_reader *r, const yaml_node_t *n, const char *key, double min, double max, double *out)
{
	const char *s = tuning_scalar(n);
	char *end;
	double v;

	if (!s || !*s)
		return tuning_fail(r, n, key, "must be a number");
	v = cisp_strtod(s, &end);
	if (end == s || *end || !isfinite(v))
		return tuning_fail(r, n, key, "'%s' is not a number", s);
	if (!(v >= min && v <= max)) {
		char lo[32], hi[32];

		return tuning_fail(r, n, key, "%s is outside %s..%s", s, tuning_format(lo, sizeof(lo), min),
				   tuning_format(hi, sizeof(hi), max));
	}
	*out = v;
	return 0;
}

int tuning_whole(struct tuning_reader *r, const yaml_node_t *n, const char *key, double min, double max, double *out)
{
	int ret = tuning_number(r, n, key, min, max, out);

	if (!ret && *out != floor(*out))
		return tuning_fail(r, n, key, "must be a whole number (is %g)", *out);
	return ret;
}

int tuning_numbers(struct tuning_reader *r, const yaml_node_t *n, const char *key, unsigned count, double min,
		   double max, double *out)
{
	char k[128];
	unsigned i = 0;

	if (!n || n->type != YAML_SEQUENCE_NODE)
		return tuning_fail(r, n, key, "must be a list of %u numbers", count);
	if (n->data.sequence.items.top - n->data.sequence.items.start != (ptrdiff_t)count)
		return tuning_fail(r, n, key, "must have %u numbers (has %ld)", count,
				   (long)(n->data.sequence.items.top - n->data.sequence.items.start));
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++, i++) {
		int ret;

		tuning_place(k, sizeof(k), "%s[%u]", key, i);
		ret = tuning_number(r, tuning_node(r, *it), k, min, max, &out[i]);
		if (ret)
			return ret;
	}
	return 0;
}

int tuning_text(struct tuning_reader *r, const yaml_node_t *n, const char *key, char *out, size_t size)
{
	const char *s = tuning_scalar(n);

	if (!s)
		return tuning_fail(r, n, key, "must be text");
	if (strlen(s) >= size)
		return tuning_fail(r, n, key, "is longer than %zu characters", size - 1);
	if (strchr(s, '/'))
		return tuning_fail(r, n, key, "'%s' must be a plain name (no '/')", s);
	snprintf(out, size, "%s", s);
	return 0;
}

int tuning_map(struct tuning_reader *r, const yaml_node_t *map, const char *where, const char *const *keys,
	       uint32_t required, tuning_key_fn fn, void *ctx)
{
	uint32_t seen = 0;
	char k[128];

	if (!map || map->type != YAML_MAPPING_NODE)
		return tuning_fail(r, map, where, "must be a mapping of keys");
	for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top; pr++) {
		yaml_node_t *kn = tuning_node(r, pr->key);
		const char *name = tuning_scalar(kn);
		unsigned i;
		int ret;

		if (!name)
			return tuning_fail(r, kn, where, "keys must be plain text");
		for (i = 0; keys[i] && strcmp(keys[i], name); i++)
			;
		tuning_place(k, sizeof(k), "%s%s%s", where, *where ? "." : "", name);
		if (!keys[i])
			return tuning_fail(r, kn, k, "unknown key");
		if (seen & (1u << i))
			return tuning_fail(r, kn, k, "appears twice");
		seen |= 1u << i;
		ret = fn(r, ctx, i, k, tuning_node(r, pr->value));
		if (ret)
			return ret;
	}
	for (unsigned i = 0; keys[i]; i++) {
		if ((required & (1u << i)) && !(seen & (1u << i))) {
			tuning_place(k, sizeof(k), "%s%s%s", where, *where ? "." : "", keys[i]);
			return tuning_fail(r, map, k, "missing (required)");
		}
	}
	return 0;
}

int tuning_list(struct tuning_reader *r, const yaml_node_t *n, const char *key, unsigned max, unsigned *count,
		tuning_item_fn fn, void *ctx)
{
	char k[128];
	unsigned i = 0;

	if (!n || n->type != YAML_SEQUENCE_NODE)
		return tuning_fail(r, n, key, "must be a list");
	if (n->data.sequence.items.top == n->data.sequence.items.start)
		return tuning_fail(r, n, key, "must have at least one entry");
	if (n->data.sequence.items.top - n->data.sequence.items.start > (ptrdiff_t)max)
		return tuning_fail(r, n, key, "has more than %u entries", max);
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++, i++) {
		int ret;

		tuning_place(k, sizeof(k), "%s[%u]", key, i);
		ret = fn(r, ctx, i, k, tuning_node(r, *it));
		if (ret)
			return ret;
	}
	*count = i;
	return 0;
}

int tuning_sorted(struct tuning_reader *r, const yaml_node_t *item, const char *key, const char *column, double prev,
		  double v, unsigned i)
{
	char k[160];

	tuning_place(k, sizeof(k), "%s.%s", key, column);
	if (i > 0 && !(v > prev))
		return tuning_fail(r, item, k, "%g must be above the previous entry's %g (tables are sorted)", v, prev);
	return 0;
}

/* ---- the top level ---- */

/* The top-level keys: these, then one section per algorithm that reads one. */
enum { KEY_VERSION, KEY_SENSOR, KEY_LENS, KEY_SECTIONS };
#define MAX_KEYS 32

struct top {
	struct cisp_tuning *t;
	const struct control_algorithm *owner[MAX_KEYS]; /* the algorithm of each section key */
};

static int top_key(struct tuning_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct top *top = ctx;

	switch (i) {
	case KEY_VERSION: return 0; /* checked first, in check_version() */
	case KEY_SENSOR: return tuning_text(r, v, k, top->t->sensor, sizeof(top->t->sensor));
	case KEY_LENS: return tuning_text(r, v, k, top->t->lens, sizeof(top->t->lens));
	default: return top->owner[i]->parse(r, v, k, top->t);
	}
}

/* The version key, before anything else: another version's keys mean other things. */
static int check_version(struct tuning_reader *r, yaml_node_t *root)
{
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top; pr++) {
		const char *name = tuning_scalar(tuning_node(r, pr->key));
		yaml_node_t *v = tuning_node(r, pr->value);
		double ver;
		int ret;

		if (!name || strcmp(name, "version"))
			continue;
		ret = tuning_whole(r, v, "version", 0, 1e9, &ver);
		if (ret)
			return ret;
		if (ver != CISP_TUNING_VERSION)
			return cisp_error(-EPROTONOSUPPORT, "%s:%lu: version: %g is not supported (this library reads %d)",
					  r->name, line_of(v), ver, CISP_TUNING_VERSION);
		return 0;
	}
	return tuning_fail(r, root, "version", "missing (required)");
}

/* Walk the top level: the file's own keys, and each algorithm's section. */
static int parse_top(struct tuning_reader *r, yaml_node_t *root, struct cisp_tuning *t)
{
	struct top top = { .t = t };
	const char *keys[MAX_KEYS + 1] = { [KEY_VERSION] = "version", [KEY_SENSOR] = "sensor", [KEY_LENS] = "lens" };
	uint32_t required = (1u << KEY_VERSION) | (1u << KEY_SENSOR);
	unsigned n = KEY_SECTIONS;

	for (const struct control_algorithm *const *a = control_camera_algorithms; *a; a++) {
		if (!(*a)->section)
			continue;
		top.owner[n] = *a;
		keys[n] = (*a)->section;
		if ((*a)->required)
			required |= 1u << n;
		n++;
	}
	return tuning_map(r, root, "", keys, required, top_key, &top);
}

int tuning_parse_into(struct cisp_tuning *t, const char *text_in, size_t length, const char *name)
{
	struct tuning_reader r = { .name = name && *name ? name : "tuning" };
	yaml_parser_t yp;
	yaml_node_t *root;
	int ret;

	ret = cisp_yaml_check_depth_string(r.name, text_in, length);
	if (ret)
		return ret;
	if (!yaml_parser_initialize(&yp))
		return cisp_error(-ENOMEM, "%s: out of memory", r.name);
	yaml_parser_set_input_string(&yp, (const unsigned char *)text_in, length);
	if (!yaml_parser_load(&yp, &r.doc)) {
		ret = cisp_error(-EINVAL, "%s:%lu: %s", r.name, (unsigned long)yp.problem_mark.line + 1,
				 yp.problem ? yp.problem : "not valid YAML");
		yaml_parser_delete(&yp);
		return ret;
	}
	root = yaml_document_get_root_node(&r.doc);
	if (!root)
		ret = cisp_error(-EINVAL, "%s:1: the file is empty", r.name);
	else if (root->type != YAML_MAPPING_NODE)
		ret = tuning_fail(&r, root, "(top level)", "must be a mapping of keys");
	else
		ret = check_version(&r, root);
	if (!ret)
		ret = parse_top(&r, root, t);
	yaml_document_delete(&r.doc);
	yaml_parser_delete(&yp);
	return ret;
}
