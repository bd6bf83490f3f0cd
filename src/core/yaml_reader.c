/* SPDX-License-Identifier: MIT */
/*
 * Reading cisp's YAML files: yaml_reader.h. Every message names the file,
 * the line and the key ("tuning.yaml:12: awb.ct[2].r_over_g: 0 is outside
 * 0.0625..16").
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_internal.h"
#include "number.h"
#include "text_file.h"
#include "yaml_depth.h"
#include "yaml_reader.h"

/* The place of a message: "NAME:LINE" for a file, "line LINE" for a buffer without a name. */
static void where_of(char *out, size_t size, const struct yaml_reader *r, unsigned long line)
{
	if (r->name)
		snprintf(out, size, "%s:%lu", r->name, line);
	else
		snprintf(out, size, "line %lu", line);
}

/* libyaml's problem where it found it, and what it was reading ("while parsing a flow sequence"). */
static int syntax_error(const struct yaml_reader *r, const yaml_parser_t *yp)
{
	char at[160];

	where_of(at, sizeof(at), r, (unsigned long)yp->problem_mark.line + 1);
	return cisp_error(-EINVAL, "%s: %s%s%s", at, yp->problem ? yp->problem : "not valid YAML",
			  yp->context ? ", " : "", yp->context ? yp->context : "");
}

static int load(struct yaml_reader *r, const char *name, const char *text, size_t length, bool allow_empty,
		yaml_node_t **root)
{
	yaml_document_t extra;
	yaml_parser_t yp;
	char at[160];
	int ret = 0;

	r->name = name;
	ret = cisp_yaml_check_depth_string(name, text, length);
	if (ret)
		return ret;
	if (!yaml_parser_initialize(&yp))
		return cisp_error(-ENOMEM, "%s: out of memory", name ? name : "YAML");
	yaml_parser_set_input_string(&yp, (const unsigned char *)text, length);
	if (!yaml_parser_load(&yp, &r->doc)) {
		ret = syntax_error(r, &yp);
		yaml_parser_delete(&yp);
		return ret;
	}
	/* A second document would be silently ignored: refuse it. */
	if (!yaml_parser_load(&yp, &extra)) {
		ret = syntax_error(r, &yp);
	} else {
		if (yaml_document_get_root_node(&extra)) {
			where_of(at, sizeof(at), r, (unsigned long)extra.start_mark.line + 1);
			ret = cisp_error(-EINVAL, "%s: only one YAML document is allowed", at);
		}
		yaml_document_delete(&extra);
	}
	yaml_parser_delete(&yp);
	*root = ret ? NULL : yaml_document_get_root_node(&r->doc);
	if (!ret && !*root && !allow_empty) {
		where_of(at, sizeof(at), r, 1);
		ret = cisp_error(-EINVAL, "%s: the file is empty", at);
	}
	if (ret)
		yaml_document_delete(&r->doc);
	return ret;
}

int yaml_reader_load(struct yaml_reader *r, const char *name, const char *text, size_t length, yaml_node_t **root)
{
	return load(r, name, text, length, false, root);
}

int yaml_reader_load_buffer(struct yaml_reader *r, const char *text, size_t length, yaml_node_t **root)
{
	return load(r, NULL, text, length, true, root);
}

void yaml_reader_free(struct yaml_reader *r)
{
	yaml_document_delete(&r->doc);
}

int yaml_reader_load_file(struct yaml_reader *r, const char *path, size_t max_bytes, yaml_node_t **root)
{
	char *text;
	size_t length;
	int ret = cisp_read_text_file(path, max_bytes, &text, &length);

	if (ret)
		return ret;
	ret = yaml_reader_load(r, path, text, length, root);
	free(text);
	return ret;
}

yaml_node_t *yaml_reader_get(struct yaml_reader *r, const yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *name = yaml_reader_scalar(yaml_reader_node(r, p->key));

		if (name && !strcmp(name, key))
			return yaml_reader_node(r, p->value);
	}
	return NULL;
}

yaml_node_t *yaml_reader_node(struct yaml_reader *r, yaml_node_item_t id)
{
	return yaml_document_get_node(&r->doc, id);
}

unsigned long yaml_reader_line(const yaml_node_t *n)
{
	return n ? (unsigned long)n->start_mark.line + 1 : 0;
}

int yaml_reader_fail(struct yaml_reader *r, const yaml_node_t *n, const char *key, const char *fmt, ...)
{
	char msg[768], at[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!n) /* a value that is not there has no line */
		snprintf(at, sizeof(at), "%s", r->name ? r->name : "YAML");
	else
		where_of(at, sizeof(at), r, yaml_reader_line(n));
	if (!*key) /* the whole file */
		return cisp_error(-EINVAL, "%s: %s", at, msg);
	return cisp_error(-EINVAL, "%s: %s: %s", at, key, msg);
}

void yaml_reader_place(char *k, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(k, size, fmt, ap);
	va_end(ap);
}

const char *yaml_reader_format(char *buf, size_t size, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.10g", v);
	return buf;
}

const char *yaml_reader_scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

int yaml_reader_number(struct yaml_reader *r, const yaml_node_t *n, const char *key, double min, double max, double *out)
{
	const char *s = yaml_reader_scalar(n);
	char *end;
	double v;

	if (!s || !*s)
		return yaml_reader_fail(r, n, key, "must be a number");
	v = cisp_strtod(s, &end);
	if (end == s || *end || !isfinite(v))
		return yaml_reader_fail(r, n, key, "'%s' is not a number", s);
	if (!(v >= min && v <= max)) {
		char lo[32], hi[32];

		return yaml_reader_fail(r, n, key, "%s is outside %s..%s", s, yaml_reader_format(lo, sizeof(lo), min),
				   yaml_reader_format(hi, sizeof(hi), max));
	}
	*out = v;
	return 0;
}

int yaml_reader_whole(struct yaml_reader *r, const yaml_node_t *n, const char *key, double min, double max, double *out)
{
	int ret = yaml_reader_number(r, n, key, min, max, out);

	if (!ret && *out != floor(*out))
		return yaml_reader_fail(r, n, key, "must be a whole number (is %g)", *out);
	return ret;
}

int yaml_reader_numbers(struct yaml_reader *r, const yaml_node_t *n, const char *key, unsigned count, double min,
		   double max, double *out)
{
	char k[128];
	unsigned i = 0;

	if (!n)
		return yaml_reader_fail(r, n, key, "missing (a list of %u numbers)", count);
	if (n->type != YAML_SEQUENCE_NODE)
		return yaml_reader_fail(r, n, key, "must be a list of %u numbers", count);
	if (n->data.sequence.items.top - n->data.sequence.items.start != (ptrdiff_t)count)
		return yaml_reader_fail(r, n, key, "must have %u numbers (has %ld)", count,
				   (long)(n->data.sequence.items.top - n->data.sequence.items.start));
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++, i++) {
		int ret;

		yaml_reader_place(k, sizeof(k), "%s[%u]", key, i);
		ret = yaml_reader_number(r, yaml_reader_node(r, *it), k, min, max, &out[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* The place of @key in @where ("lens" and "infinity": "lens.infinity"). */
static void place_of(char *k, size_t size, const char *where, const char *key)
{
	yaml_reader_place(k, size, "%s%s%s", where, *where ? "." : "", key);
}

int yaml_reader_number_at(struct yaml_reader *r, const yaml_node_t *map, const char *where, const char *key,
			  double min, double max, double def, double *out)
{
	const yaml_node_t *n = yaml_reader_get(r, map, key);
	char k[128];

	place_of(k, sizeof(k), where, key);
	if (!n && isnan(def))
		return yaml_reader_fail(r, map, k, "missing (required)");
	if (!n) {
		*out = def;
		return 0;
	}
	return yaml_reader_number(r, n, k, min, max, out);
}

int yaml_reader_string_at(struct yaml_reader *r, const yaml_node_t *map, const char *where, const char *key,
			  bool required, char *out, size_t size)
{
	const yaml_node_t *n = yaml_reader_get(r, map, key);
	char k[128];

	place_of(k, sizeof(k), where, key);
	if (!n && required)
		return yaml_reader_fail(r, map, k, "missing (required)");
	if (!n)
		return 0;
	if (required && yaml_reader_scalar(n) && !*yaml_reader_scalar(n))
		return yaml_reader_fail(r, n, k, "must not be empty");
	return yaml_reader_string(r, n, k, out, size);
}

int yaml_reader_string(struct yaml_reader *r, const yaml_node_t *n, const char *key, char *out, size_t size)
{
	const char *s = yaml_reader_scalar(n);

	if (!s)
		return yaml_reader_fail(r, n, key, "must be text");
	if (strlen(s) >= size)
		return yaml_reader_fail(r, n, key, "is longer than %zu characters", size - 1);
	snprintf(out, size, "%s", s);
	return 0;
}

int yaml_reader_text(struct yaml_reader *r, const yaml_node_t *n, const char *key, char *out, size_t size)
{
	const char *s = yaml_reader_scalar(n);

	if (s && strchr(s, '/'))
		return yaml_reader_fail(r, n, key, "'%s' must be a plain name (no '/')", s);
	return yaml_reader_string(r, n, key, out, size);
}

int yaml_reader_map(struct yaml_reader *r, const yaml_node_t *map, const char *where, const char *const *keys,
	       uint32_t required, yaml_key_fn fn, void *ctx)
{
	uint32_t seen = 0;
	char k[128];

	if (!map || map->type != YAML_MAPPING_NODE)
		return yaml_reader_fail(r, map, where, "must be a mapping of keys");
	for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top; pr++) {
		yaml_node_t *kn = yaml_reader_node(r, pr->key);
		const char *name = yaml_reader_scalar(kn);
		unsigned i;
		int ret;

		if (!name)
			return yaml_reader_fail(r, kn, where, "keys must be plain text");
		for (i = 0; keys[i] && strcmp(keys[i], name); i++)
			;
		place_of(k, sizeof(k), where, name);
		if (!keys[i]) {
			char known[160] = "";

			for (unsigned j = 0; keys[j]; j++)
				snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s", j ? ", " : "",
					 keys[j]);
			return yaml_reader_fail(r, kn, k, "unknown key (known: %s)", known);
		}
		if (seen & (1u << i))
			return yaml_reader_fail(r, kn, k, "appears twice");
		seen |= 1u << i;
		ret = fn ? fn(r, ctx, i, k, yaml_reader_node(r, pr->value)) : 0;
		if (ret)
			return ret;
	}
	for (unsigned i = 0; keys[i]; i++) {
		if ((required & (1u << i)) && !(seen & (1u << i))) {
			place_of(k, sizeof(k), where, keys[i]);
			return yaml_reader_fail(r, map, k, "missing (required)");
		}
	}
	return 0;
}

/* Walk a list of at most @max items with @fn (yaml_reader_list()), with @need_one at least one. */
static int walk_list(struct yaml_reader *r, const yaml_node_t *n, const char *key, bool need_one, unsigned max,
		     unsigned *count, yaml_item_fn fn, void *ctx)
{
	char k[128];
	unsigned i = 0;

	if (!n)
		return yaml_reader_fail(r, n, key, "missing (a list)");
	if (n->type != YAML_SEQUENCE_NODE)
		return yaml_reader_fail(r, n, key, "must be a list");
	if (need_one && n->data.sequence.items.top == n->data.sequence.items.start)
		return yaml_reader_fail(r, n, key, "must have at least one entry");
	if (n->data.sequence.items.top - n->data.sequence.items.start > (ptrdiff_t)max)
		return yaml_reader_fail(r, n, key, "has more than %u entries", max);
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++, i++) {
		int ret;

		yaml_reader_place(k, sizeof(k), "%s[%u]", key, i);
		ret = fn(r, ctx, i, k, yaml_reader_node(r, *it));
		if (ret)
			return ret;
	}
	*count = i;
	return 0;
}

int yaml_reader_list(struct yaml_reader *r, const yaml_node_t *n, const char *key, unsigned max, unsigned *count,
		yaml_item_fn fn, void *ctx)
{
	return walk_list(r, n, key, true, max, count, fn, ctx);
}

static int take_name(struct yaml_reader *r, void *ctx, unsigned index, const char *key, yaml_node_t *item)
{
	const char **out = ctx;

	out[index] = yaml_reader_scalar(item);
	return out[index] ? 0 : yaml_reader_fail(r, item, key, "must be a name");
}

int yaml_reader_strings(struct yaml_reader *r, const yaml_node_t *n, const char *key, unsigned max,
			const char **out, unsigned *count)
{
	*count = 0;
	return walk_list(r, n, key, false, max, count, take_name, out);
}
