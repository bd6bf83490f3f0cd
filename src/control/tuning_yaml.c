/* SPDX-License-Identifier: MIT */
/*
 * The tuning file reader: the shared YAML reader (core/yaml_reader.h) loads
 * the file, the top level is walked here and each section handed to the
 * algorithm that owns it (algorithms.c). Every key is known or an error,
 * every value is range-checked, tables are sorted.
 */
#include <errno.h>
#include <string.h>

#include "algorithm.h"
#include "core/error_internal.h"
#include "tuning.h"
#include "tuning_yaml.h"

int tuning_sorted(struct yaml_reader *r, const yaml_node_t *item, const char *key, const char *column, double prev,
		  double v, unsigned i)
{
	char k[160];

	yaml_reader_place(k, sizeof(k), "%s.%s", key, column);
	if (i > 0 && !(v > prev))
		return yaml_reader_fail(r, item, k, "%g must be above the previous entry's %g (tables are sorted)", v, prev);
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

static int top_key(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct top *top = ctx;

	switch (i) {
	case KEY_VERSION: return 0; /* checked first, in check_version() */
	case KEY_SENSOR: return yaml_reader_text(r, v, k, top->t->sensor, sizeof(top->t->sensor));
	case KEY_LENS: return yaml_reader_text(r, v, k, top->t->lens, sizeof(top->t->lens));
	default: return top->owner[i]->parse(r, v, k, top->t);
	}
}

/* The version key, before anything else: another version's keys mean other things. */
static int check_version(struct yaml_reader *r, yaml_node_t *root)
{
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top; pr++) {
		const char *name = yaml_reader_scalar(yaml_reader_node(r, pr->key));
		yaml_node_t *v = yaml_reader_node(r, pr->value);
		double ver;
		int ret;

		if (!name || strcmp(name, "version"))
			continue;
		ret = yaml_reader_whole(r, v, "version", 0, 1e9, &ver);
		if (ret)
			return ret;
		if (ver != CISP_TUNING_VERSION)
			return cisp_error(-EPROTONOSUPPORT, "%s:%lu: version: %g is not supported (this library reads %d)",
					  r->name, yaml_reader_line(v), ver, CISP_TUNING_VERSION);
		return 0;
	}
	return yaml_reader_fail(r, root, "version", "missing (required)");
}

/* Walk the top level: the file's own keys, and each algorithm's section. */
static int parse_top(struct yaml_reader *r, yaml_node_t *root, struct cisp_tuning *t)
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
	return yaml_reader_map(r, root, "", keys, required, top_key, &top);
}

int tuning_parse_into(struct cisp_tuning *t, const char *text_in, size_t length, const char *name)
{
	struct yaml_reader r;
	yaml_node_t *root;
	int ret = yaml_reader_load(&r, name && *name ? name : "tuning", text_in, length, &root);

	if (ret)
		return ret;
	if (root->type != YAML_MAPPING_NODE)
		ret = yaml_reader_fail(&r, root, "(top level)", "must be a mapping of keys");
	else
		ret = check_version(&r, root);
	if (!ret)
		ret = parse_top(&r, root, t);
	yaml_reader_free(&r);
	return ret;
}
