/* SPDX-License-Identifier: MIT */
/*
 * Tuning files: defaults, the built-in uncalibrated tuning (each section's
 * from its algorithm), loading and the search path (the reader is
 * tuning_yaml.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cisp/log.h>

#include "algorithm.h"
#include "control/tuning_config.h"
#include "core/error_internal.h"
#include "core/text_file.h"
#include "tuning.h"

/* Largest tuning file read. */
#define MAX_FILE_SIZE (4u << 20)

/* Every section's defaults; with @uncalibrated, the built-in tables of a sensor nobody measured. */
static void defaults(struct cisp_tuning *t, bool uncalibrated)
{
	memset(t, 0, sizeof(*t));
	t->version = CISP_TUNING_VERSION;
	for (const struct control_algorithm *const *a = control_camera_algorithms; *a; a++)
		if ((*a)->defaults)
			(*a)->defaults(t, uncalibrated);
}

void tuning_defaults(struct cisp_tuning *t)
{
	defaults(t, false);
}

int cisp_tuning_uncalibrated(struct cisp_tuning **out)
{
	struct cisp_tuning *t = malloc(sizeof(*t));

	if (!t)
		return cisp_error(-ENOMEM, "out of memory for a tuning");
	defaults(t, true);
	snprintf(t->name, sizeof(t->name), "uncalibrated");
	t->uncalibrated = true;
	*out = t;
	return 0;
}

int cisp_tuning_parse(struct cisp_tuning **out, const char *text, size_t length, const char *name)
{
	struct cisp_tuning *t;
	int ret;

	if (!out || (!text && length))
		return cisp_error(-EINVAL, "cisp_tuning_parse: no tuning or text");
	t = malloc(sizeof(*t));
	if (!t)
		return cisp_error(-ENOMEM, "out of memory for a tuning");
	tuning_defaults(t);
	snprintf(t->name, sizeof(t->name), "%s", name && *name ? name : "tuning");
	ret = tuning_parse_into(t, text ? text : "", length, name);
	if (ret) {
		free(t);
		return ret;
	}
	*out = t;
	return 0;
}

int cisp_tuning_load(struct cisp_tuning **out, const char *path)
{
	char *text;
	size_t n;
	int ret = cisp_read_text_file(path, MAX_FILE_SIZE, &text, &n);

	if (ret)
		return ret;
	ret = cisp_tuning_parse(out, text, n, path);
	free(text);
	return ret;
}

/* The first folder of the search path holding @file; 0 with @path set, or -ENOENT. */
static int search(const char *file, char *path, size_t size)
{
	const char *env = getenv("CISP_TUNING_PATH");

	if (env && *env) {
		char *copy = strdup(env), *save = NULL;

		if (!copy)
			return -ENOMEM;
		for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			snprintf(path, size, "%s/%s", d, file);
			/* access(), not open(): a FIFO found here must not block (cisp_tuning_load refuses it). */
			if (access(path, R_OK) == 0) {
				free(copy);
				return 0;
			}
		}
		free(copy);
	}
	snprintf(path, size, "%s/%s", CISP_TUNING_INSTALL_DIR, file);
	return access(path, R_OK) == 0 ? 0 : -ENOENT;
}

int cisp_tuning_open(struct cisp_tuning **t, const char *name)
{
	size_t n = name ? strlen(name) : 0;
	char file[80], path[1024];
	int ret;

	if (!n)
		return cisp_error(-EINVAL, "tuning: no file or sensor model given");
	if (strchr(name, '/') || (n > 5 && !strcmp(name + n - 5, ".yaml")))
		return cisp_tuning_load(t, name);
	if (n > 63)
		return cisp_error(-EINVAL, "tuning: sensor model '%s' is not a plain name", name);
	snprintf(file, sizeof(file), "%s.yaml", name);
	ret = search(file, path, sizeof(path));
	if (ret == -ENOENT)
		return cisp_error(ret, "tuning: no tuning file for sensor model '%s' (looked in CISP_TUNING_PATH and %s)",
				  name, CISP_TUNING_INSTALL_DIR);
	return ret ? cisp_error(ret, "tuning: out of memory") : cisp_tuning_load(t, path);
}

int cisp_tuning_find(struct cisp_tuning **out, const char *model, const char *lens)
{
	char file[160], path[1024];
	int ret = -ENOENT;

	if (!model || !*model || strchr(model, '/') || strlen(model) > 63)
		return cisp_error(-EINVAL, "tuning: sensor model '%s' is not a plain name", model ? model : "");
	if (lens && (strchr(lens, '/') || strlen(lens) > 63))
		return cisp_error(-EINVAL, "tuning: lens '%s' is not a plain name", lens);
	if (lens && *lens) {
		snprintf(file, sizeof(file), "%s-%s.yaml", model, lens);
		ret = search(file, path, sizeof(path));
	}
	if (ret == -ENOENT) {
		snprintf(file, sizeof(file), "%s.yaml", model);
		ret = search(file, path, sizeof(path));
	}
	if (ret == -ENOENT) {
		cisp_log(CISP_LOG_WARN, "no tuning for sensor %s%s%s (looked in CISP_TUNING_PATH and %s): using the "
			 "uncalibrated tuning", model, lens && *lens ? " lens " : "", lens ? lens : "",
			 CISP_TUNING_INSTALL_DIR);
		return cisp_tuning_uncalibrated(out);
	}
	if (ret)
		return cisp_error(ret, "tuning: out of memory");
	ret = cisp_tuning_load(out, path);
	if (ret)
		return ret;
	if (strcmp((*out)->sensor, model)) {
		ret = cisp_error(-EINVAL, "%s: sensor: the file is for '%s', not '%s'", path, (*out)->sensor, model);
		cisp_tuning_free(*out);
		*out = NULL;
	}
	return ret;
}

const char *cisp_tuning_name(const struct cisp_tuning *t)
{
	return t ? t->name : "";
}

void cisp_tuning_lsc_array(const struct cisp_tuning *t, uint32_t *width, uint32_t *height)
{
	*width = t ? t->lsc_array_width : 0;
	*height = t ? t->lsc_array_height : 0;
}

void cisp_tuning_free(struct cisp_tuning *t)
{
	free(t);
}
