/* SPDX-License-Identifier: MIT */
/*
 * The camera configuration file: named cameras made of a sensor, its
 * options and a tuning file (docs/camera.md gives the format).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "camera_internal.h"
#include "core/error_internal.h"
#include "core/text_file.h"
#include "core/yaml_reader.h"

/* More than any machine has; it bounds the work of the duplicate-name check. */
#define CONFIG_MAX_CAMERAS 256

/* Copy a scalar into @dst; -EINVAL naming @key when it is not one or too long. */
static int take(const char *path, const yaml_node_t *v, const char *key, char *dst, size_t size)
{
	const char *s = yaml_reader_scalar(v);

	if (!s)
		return cisp_error(-EINVAL, "%s:%lu: '%s' must be a string", path, yaml_reader_line(v), key);
	if (strlen(s) >= size)
		return cisp_error(-EINVAL, "%s:%lu: '%s' is longer than %zu characters", path, yaml_reader_line(v),
				  key, size - 1);
	snprintf(dst, size, "%s", s);
	return 0;
}

static int parse_camera(struct yaml_reader *r, const char *path, const yaml_node_t *node, struct camera_entry *e)
{
	if (node->type != YAML_MAPPING_NODE)
		return cisp_error(-EINVAL, "%s:%lu: a camera must be a mapping (name, sensor, options, tuning, description)",
				  path, yaml_reader_line(node));
	memset(e, 0, sizeof(*e));
	for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_reader_node(r, p->key);
		const yaml_node_t *v = yaml_reader_node(r, p->value);
		const char *key = yaml_reader_scalar(k) ? yaml_reader_scalar(k) : "";
		int ret;

		if (!strcmp(key, "name"))
			ret = take(path, v, key, e->name, sizeof(e->name));
		else if (!strcmp(key, "sensor"))
			ret = take(path, v, key, e->sensor, sizeof(e->sensor));
		else if (!strcmp(key, "options"))
			ret = take(path, v, key, e->options, sizeof(e->options));
		else if (!strcmp(key, "tuning"))
			ret = take(path, v, key, e->tuning, sizeof(e->tuning));
		else if (!strcmp(key, "description"))
			ret = take(path, v, key, e->description, sizeof(e->description));
		else
			ret = cisp_error(-EINVAL, "%s:%lu: unknown key '%s' (name, sensor, options, tuning, description)",
				       path, yaml_reader_line(k), key);
		if (ret)
			return ret;
	}
	if (!e->name[0] || !e->sensor[0])
		return cisp_error(-EINVAL, "%s:%lu: a camera needs a 'name' and a 'sensor'", path,
				  yaml_reader_line(node));
	return 0;
}

static int parse_document(struct cisp_camera_manager *m, struct yaml_reader *r, const char *path,
			  const yaml_node_t *root)
{
	const yaml_node_t *cams = NULL;
	bool version = false;

	if (root->type != YAML_MAPPING_NODE)
		return cisp_error(-EINVAL, "%s: not a mapping with 'version: 1' and 'cameras'", path);
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_reader_node(r, p->key);
		const yaml_node_t *v = yaml_reader_node(r, p->value);
		const char *key = yaml_reader_scalar(k) ? yaml_reader_scalar(k) : "";

		if (!strcmp(key, "version")) {
			if (!yaml_reader_scalar(v) || strcmp(yaml_reader_scalar(v), "1"))
				return cisp_error(-EPROTONOSUPPORT, "%s:%lu: version must be 1", path,
						  yaml_reader_line(v));
			version = true;
		} else if (!strcmp(key, "cameras") && v->type == YAML_SEQUENCE_NODE) {
			cams = v;
		} else {
			return cisp_error(-EINVAL, "%s:%lu: unknown key '%s' (version, cameras: a list)", path,
					  yaml_reader_line(k), key);
		}
	}
	if (!version || !cams)
		return cisp_error(-EINVAL, "%s: needs 'version: 1' and a 'cameras' list", path);
	if (cams->data.sequence.items.top - cams->data.sequence.items.start > CONFIG_MAX_CAMERAS)
		return cisp_error(-E2BIG, "%s: more than %d cameras", path, CONFIG_MAX_CAMERAS);
	for (yaml_node_item_t *i = cams->data.sequence.items.start; i < cams->data.sequence.items.top; i++) {
		struct camera_entry *e = realloc(m->entries, (m->num_entries + 1) * sizeof(*e));
		int ret;

		if (!e)
			return cisp_error(-ENOMEM, "out of memory reading %s", path);
		m->entries = e;
		ret = parse_camera(r, path, yaml_reader_node(r, *i), &e[m->num_entries]);
		if (ret)
			return ret;
		for (unsigned j = 0; j < m->num_entries; j++)
			if (!strcmp(e[j].name, e[m->num_entries].name))
				return cisp_error(-EINVAL, "%s: camera '%s' is named twice", path, e[j].name);
		m->num_entries++;
	}
	return 0;
}

int camera_config_parse(struct cisp_camera_manager *m, const char *path, const char *text, size_t length)
{
	struct yaml_reader reader;
	yaml_node_t *root;
	int r = yaml_reader_load(&reader, path, text, length, &root);

	if (r)
		return r;
	r = parse_document(m, &reader, path, root);
	yaml_reader_free(&reader);
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
