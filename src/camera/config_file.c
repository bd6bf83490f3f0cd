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

static const char *const camera_keys[] = { "name", "sensor", "options", "tuning", "description", NULL };

static int camera_key(struct yaml_reader *r, void *ctx, unsigned index, const char *key, yaml_node_t *value)
{
	struct camera_entry *e = ctx;
	char *const fields[] = { e->name, e->sensor, e->options, e->tuning, e->description };
	const size_t sizes[] = { sizeof(e->name), sizeof(e->sensor), sizeof(e->options), sizeof(e->tuning),
				 sizeof(e->description) };

	return yaml_reader_string(r, value, key, fields[index], sizes[index]);
}

static int camera_item(struct yaml_reader *r, void *ctx, unsigned index, const char *key, yaml_node_t *item)
{
	struct cisp_camera_manager *m = ctx;
	struct camera_entry *e = realloc(m->entries, (m->num_entries + 1) * sizeof(*e));
	int ret;

	(void)index;
	if (!e)
		return cisp_error(-ENOMEM, "out of memory reading %s", r->name);
	m->entries = e;
	e += m->num_entries;
	memset(e, 0, sizeof(*e));
	ret = yaml_reader_map(r, item, key, camera_keys, 0, camera_key, e);
	if (ret)
		return ret;
	if (!e->name[0] || !e->sensor[0])
		return yaml_reader_fail(r, item, key, "a camera needs a 'name' and a 'sensor'");
	for (unsigned j = 0; j < m->num_entries; j++)
		if (!strcmp(m->entries[j].name, e->name))
			return yaml_reader_fail(r, item, key, "camera '%s' is named twice", e->name);
	m->num_entries++;
	return 0;
}

static const char *const top_keys[] = { "version", "cameras", NULL };

static int top_key(struct yaml_reader *r, void *ctx, unsigned index, const char *key, yaml_node_t *value)
{
	const char *version = yaml_reader_scalar(value);
	unsigned count;

	if (index == 0) {
		if (!version || strcmp(version, "1"))
			return cisp_error(-EPROTONOSUPPORT, "%s:%lu: version must be 1", r->name, yaml_reader_line(value));
		return 0;
	}
	return yaml_reader_list(r, value, key, CONFIG_MAX_CAMERAS, &count, camera_item, ctx);
}

int camera_config_parse(struct cisp_camera_manager *m, const char *path, const char *text, size_t length)
{
	struct yaml_reader reader;
	yaml_node_t *root;
	int r = yaml_reader_load(&reader, path, text, length, &root);

	if (r)
		return r;
	r = yaml_reader_map(&reader, root, "", top_keys, 3, top_key, m);
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
