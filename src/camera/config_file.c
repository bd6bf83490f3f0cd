/* SPDX-License-Identifier: MIT */
/*
 * The camera configuration file: named cameras made of a sensor, its
 * options and a tuning file (docs/camera.md gives the format).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "camera_internal.h"
#include "core/error_internal.h"
#include "core/text_file.h"
#include "core/yaml_depth.h"

/* More than any machine has; it bounds the work of the duplicate-name check. */
#define CONFIG_MAX_CAMERAS 256

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* Copy a scalar into @dst; -EINVAL naming @key when it is not one or too long. */
static int take(const char *path, const yaml_node_t *v, const char *key, char *dst, size_t size)
{
	const char *s = scalar(v);

	if (!s)
		return cisp_error(-EINVAL, "%s:%zu: '%s' must be a string", path, v->start_mark.line + 1, key);
	if (strlen(s) >= size)
		return cisp_error(-EINVAL, "%s:%zu: '%s' is longer than %zu characters", path, v->start_mark.line + 1,
				  key, size - 1);
	snprintf(dst, size, "%s", s);
	return 0;
}

static int parse_camera(const char *path, yaml_document_t *doc, const yaml_node_t *node, struct camera_entry *e)
{
	if (node->type != YAML_MAPPING_NODE)
		return cisp_error(-EINVAL, "%s:%zu: a camera must be a mapping (name, sensor, options, tuning, description)",
				  path, node->start_mark.line + 1);
	memset(e, 0, sizeof(*e));
	for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(doc, p->value);
		const char *key = scalar(k) ? scalar(k) : "";
		int r;

		if (!strcmp(key, "name"))
			r = take(path, v, key, e->name, sizeof(e->name));
		else if (!strcmp(key, "sensor"))
			r = take(path, v, key, e->sensor, sizeof(e->sensor));
		else if (!strcmp(key, "options"))
			r = take(path, v, key, e->options, sizeof(e->options));
		else if (!strcmp(key, "tuning"))
			r = take(path, v, key, e->tuning, sizeof(e->tuning));
		else if (!strcmp(key, "description"))
			r = take(path, v, key, e->description, sizeof(e->description));
		else
			r = cisp_error(-EINVAL, "%s:%zu: unknown key '%s' (name, sensor, options, tuning, description)",
				       path, k->start_mark.line + 1, key);
		if (r)
			return r;
	}
	if (!e->name[0] || !e->sensor[0])
		return cisp_error(-EINVAL, "%s:%zu: a camera needs a 'name' and a 'sensor'", path,
				  node->start_mark.line + 1);
	return 0;
}

static int parse_document(struct cisp_camera_manager *m, const char *path, yaml_document_t *doc)
{
	const yaml_node_t *root = yaml_document_get_root_node(doc), *cams = NULL;
	bool version = false;

	if (!root || root->type != YAML_MAPPING_NODE)
		return cisp_error(-EINVAL, "%s: not a mapping with 'version: 1' and 'cameras'", path);
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(doc, p->value);
		const char *key = scalar(k) ? scalar(k) : "";

		if (!strcmp(key, "version")) {
			if (!scalar(v) || strcmp(scalar(v), "1"))
				return cisp_error(-EPROTONOSUPPORT, "%s:%zu: version must be 1", path,
						  v->start_mark.line + 1);
			version = true;
		} else if (!strcmp(key, "cameras") && v->type == YAML_SEQUENCE_NODE) {
			cams = v;
		} else {
			return cisp_error(-EINVAL, "%s:%zu: unknown key '%s' (version, cameras: a list)", path,
					  k->start_mark.line + 1, key);
		}
	}
	if (!version || !cams)
		return cisp_error(-EINVAL, "%s: needs 'version: 1' and a 'cameras' list", path);
	if (cams->data.sequence.items.top - cams->data.sequence.items.start > CONFIG_MAX_CAMERAS)
		return cisp_error(-E2BIG, "%s: more than %d cameras", path, CONFIG_MAX_CAMERAS);
	for (yaml_node_item_t *i = cams->data.sequence.items.start; i < cams->data.sequence.items.top; i++) {
		struct camera_entry *e = realloc(m->entries, (m->num_entries + 1) * sizeof(*e));
		int r;

		if (!e)
			return cisp_error(-ENOMEM, "out of memory reading %s", path);
		m->entries = e;
		r = parse_camera(path, doc, yaml_document_get_node(doc, *i), &e[m->num_entries]);
		if (r)
			return r;
		for (unsigned j = 0; j < m->num_entries; j++)
			if (!strcmp(e[j].name, e[m->num_entries].name))
				return cisp_error(-EINVAL, "%s: camera '%s' is named twice", path, e[j].name);
		m->num_entries++;
	}
	return 0;
}

int camera_config_parse(struct cisp_camera_manager *m, const char *path, const char *text, size_t length)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	int r = cisp_yaml_check_depth_string(path, text, length);

	if (r)
		return r;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, length);
	if (!yaml_parser_load(&parser, &doc)) {
		r = cisp_error(-EINVAL, "%s:%zu: YAML syntax: %s", path, parser.problem_mark.line + 1,
			       parser.problem ? parser.problem : "error");
	} else {
		r = parse_document(m, path, &doc);
		yaml_document_delete(&doc);
	}
	yaml_parser_delete(&parser);
	return r;
}

/* A configuration file is a few hundred bytes; this bounds what is read. */
#define CONFIG_FILE_MAX (1 << 20)

int camera_config_file_load(struct cisp_camera_manager *m, const char *path)
{
	char *text;
	size_t length;
	int r = cisp_read_text_file(path, CONFIG_FILE_MAX, &text, &length);

	if (r)
		return cisp_error_prefix(r, "camera configuration");
	r = camera_config_parse(m, path, text, length);
	free(text);
	return r;
}

const struct camera_entry *camera_config_file_find(const struct cisp_camera_manager *m, const char *name)
{
	for (unsigned i = 0; i < m->num_entries; i++)
		if (!strcmp(m->entries[i].name, name))
			return &m->entries[i];
	return NULL;
}
