/* SPDX-License-Identifier: MIT */
/*
 * Tuning files: defaults, the built-in uncalibrated tuning, loading and the
 * search path (the parser is tuning_yaml.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cisp/log.h>

#include "control/tuning_config.h"
#include "core/error_internal.h"
#include "core/text_file.h"
#include "tuning.h"

/* Largest tuning file read. */
#define MAX_FILE_SIZE (4u << 20)

void tuning_defaults(struct cisp_tuning *t)
{
	memset(t, 0, sizeof(*t));
	t->version = CISP_TUNING_VERSION;
	for (int c = 0; c < 4; c++)
		t->black_level[c] = -1;
	t->ae.target = 0.18;
	t->ae.tolerance = 0.04;
	t->ae.highlight_fraction = 0.02;
	t->ae.highlight_level = 0.95;
	t->ae.speed = 0.6;
	t->ae.max_exposure_us = 66666;
	t->ae.max_analogue_gain = 16;
	t->ae.max_digital_gain = 4;
	t->ae.lux_scale = 0;
	t->awb.prior_weight = 0.5;
	t->awb.max_curve_distance = 0.08;
	t->awb.transverse = 0.06;
	t->awb.speed = 0.25;
	t->awb.default_ct = 0; /* the parser takes the curve's middle point */
	t->af.position_min = 0;
	t->af.position_max = 1023;
	t->af.coarse_steps = 16;
	t->af.fine_steps = 8;
	t->af.scene_change = 0.15;
	t->af.min_contrast = 1.15;
	t->flicker.detect_threshold = 0.02;
	t->denoise_count = 1;
	t->denoise[0] = (struct tuning_denoise){ 1, 0.875, 3.0, 1.0, 256 };
	t->gamma = 0;
	t->defect_threshold = 4096;
}

/*
 * A typical sensor's grey under Planckian and daylight light (the virtual
 * sensors' curve, rounded): close enough for grey world to start from, the
 * CT-curve prior is weak and the search radius wide for a sensor nobody has
 * measured.
 */
static const struct tuning_ct_point generic_curve[] = {
	{ 2300, 1.245, 0.251 }, { 2856, 1.026, 0.332 }, { 3600, 0.862, 0.431 }, { 4500, 0.736, 0.516 },
	{ 5000, 0.694, 0.564 }, { 6500, 0.615, 0.677 }, { 7500, 0.584, 0.734 },
};

int cisp_tuning_uncalibrated(struct cisp_tuning **out)
{
	struct cisp_tuning *t = malloc(sizeof(*t));

	if (!t)
		return cisp_error(-ENOMEM, "out of memory for a tuning");
	tuning_defaults(t);
	snprintf(t->name, sizeof(t->name), "uncalibrated");
	t->uncalibrated = true;
	t->awb.ct_count = sizeof(generic_curve) / sizeof(generic_curve[0]);
	memcpy(t->awb.ct, generic_curve, sizeof(generic_curve));
	t->awb.prior_weight = 0.3;
	t->awb.max_curve_distance = 0.2;
	t->awb.default_ct = 5000;
	/*
	 * A mild saturation boost (a virtual sensor's D50 matrix, halfway to
	 * identity): too little rather than too much for an unknown sensor.
	 * Rows sum to 1, greys stay grey.
	 */
	t->ccm_count = 1;
	t->ccm[0] = (struct tuning_ccm){ 5000, { { 1.38, -0.36, -0.02 }, { -0.12, 1.23, -0.11 }, { 0.02, -0.28, 1.26 } } };
	/* Moderate noise: a 10-bit sensor at about 4 e per code, 2.5 e read noise. */
	t->noise_count = 2;
	t->noise[0] = (struct tuning_noise){ 1, { 16, 16, 16, 16 }, { 800, 800, 800, 800 } };
	t->noise[1] = (struct tuning_noise){ 16, { 256, 256, 256, 256 }, { 102400, 102400, 102400, 102400 } };
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
	const char *fixed[] = { CISP_TUNING_INSTALL_DIR, CISP_TUNING_SOURCE_DIR };

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
	for (int i = 0; i < 2; i++) {
		snprintf(path, size, "%s/%s", fixed[i], file);
		if (access(path, R_OK) == 0)
			return 0;
	}
	return -ENOENT;
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
		cisp_log(CISP_LOG_WARN, "no tuning for sensor %s%s%s (looked in CISP_TUNING_PATH, %s and %s): using the "
			 "uncalibrated tuning", model, lens && *lens ? " lens " : "", lens ? lens : "",
			 CISP_TUNING_INSTALL_DIR, CISP_TUNING_SOURCE_DIR);
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
