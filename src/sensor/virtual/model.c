/* SPDX-License-Identifier: MIT */
/*
 * Sensor model files, read with the shared YAML reader (core/yaml_reader.h):
 * every key checked (unknown keys are errors, so a typo never goes
 * unnoticed), every message with the file, the line and the key's place.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <yaml.h>

#include "core/error_internal.h"
#include "core/text_file.h"
#include "core/yaml_reader.h"
#include "model.h"
#include "sensor/sensor_config.h"

static const char *const top_keys[] = {
	"name", "description", "array", "cfa", "bit_depth", "black_level", "black_offset", "dsnu", "prnu", "full_well",
	"conversion_gain", "read_noise", "adc_noise", "dark_current", "sensitivity", "defects", "analogue_gain", "digital_gain",
	"exposure_min", "exposure_margin", "delays", "lens", "modes", "spectral_sensitivity", "colour_matrix",
	NULL,
};

static int load_delays(struct yaml_reader *r, yaml_node_t *root, struct vs_model *m)
{
	static const char *const keys[] = { "exposure", "analogue_gain", "digital_gain", "frame_length",
					    "lens_position", "test_pattern", "flip", NULL };
	static const unsigned ids[] = { CISP_SENSOR_EXPOSURE, CISP_SENSOR_ANALOGUE_GAIN,
					CISP_SENSOR_DIGITAL_GAIN, CISP_SENSOR_FRAME_LENGTH,
					CISP_SENSOR_LENS_POSITION, CISP_SENSOR_TEST_PATTERN, CISP_SENSOR_HFLIP };
	yaml_node_t *d = yaml_reader_get(r, root, "delays");
	int ret = yaml_reader_map(r, d, "delays", keys, 0, NULL, NULL);

	for (unsigned i = 0; keys[i] && ret == 0; i++) {
		double v;

		ret = yaml_reader_number_at(r, d, "delays", keys[i], 0, CISP_SENSOR_MAX_DELAY, NAN, &v);
		if (ret == 0 && v != floor(v))
			ret = yaml_reader_fail(r, yaml_reader_get(r, d, keys[i]), keys[i],
					       "delay %g is not whole frames", v);
		if (ret == 0)
			m->delay[ids[i]] = (unsigned)v;
	}
	m->delay[CISP_SENSOR_VFLIP] = m->delay[CISP_SENSOR_HFLIP];
	return ret;
}

static int load_lens(struct yaml_reader *r, yaml_node_t *root, struct vs_model *m)
{
	static const char *const keys[] = { "position_range", "infinity", "per_dioptre", "blur_sigma",
					    "blur_per_step", "blur_max", "shading_corner", NULL };
	yaml_node_t *l = yaml_reader_get(r, root, "lens");
	double range[2] = { 0, 1 }, v = 0;
	int ret = yaml_reader_map(r, l, "lens", keys, 0, NULL, NULL);

	if (ret == 0)
		ret = yaml_reader_numbers(r, yaml_reader_get(r, l, "position_range"), "lens.position_range", 2, 0,
					  65535, range);
	if (ret == 0 && range[0] >= range[1])
		ret = yaml_reader_fail(r, yaml_reader_get(r, l, "position_range"), "lens.position_range", "is empty");
	if (ret == 0) {
		m->lens_min = (int32_t)range[0];
		m->lens_max = (int32_t)range[1];
		ret = yaml_reader_number_at(r, l, "lens", "infinity", range[0], range[1], NAN, &v);
	}
	if (ret == 0)
		m->lens_infinity = (int32_t)v;
	if (ret == 0)
		ret = yaml_reader_number_at(r, l, "lens", "per_dioptre", 0, 65535, NAN, &m->lens_per_dioptre);
	if (ret == 0)
		ret = yaml_reader_number_at(r, l, "lens", "blur_sigma", 0, 100, NAN, &m->blur_sigma);
	if (ret == 0)
		ret = yaml_reader_number_at(r, l, "lens", "blur_per_step", 0, 100, NAN, &m->blur_per_step);
	if (ret == 0)
		ret = yaml_reader_number_at(r, l, "lens", "blur_max", m->blur_sigma, 200, NAN, &m->blur_max);
	if (ret == 0)
		ret = yaml_reader_numbers(r, yaml_reader_get(r, l, "shading_corner"), "lens.shading_corner", 3, 0.01, 1,
					  m->shading_corner);
	return ret;
}

static int load_mode(struct yaml_reader *r, yaml_node_t *n, unsigned index, struct vs_model *m,
		     struct cisp_sensor_mode *mode)
{
	static const char *const keys[] = { "name", "size", "crop", "binning", "bits", "pixel_rate",
					    "line_length", "frame_length", NULL };
	char where[32], k[64];
	double size[2], crop[4], bin, bits, rate, ll, fl[3];
	int ret;

	yaml_reader_place(where, sizeof(where), "modes[%u]", index);
	ret = yaml_reader_map(r, n, where, keys, 0, NULL, NULL);
	if (ret == 0)
		ret = yaml_reader_string_at(r, n, where, "name", true, mode->name, sizeof(mode->name));
	yaml_reader_place(k, sizeof(k), "%s.size", where);
	if (ret == 0)
		ret = yaml_reader_numbers(r, yaml_reader_get(r, n, "size"), k, 2, 16, CISP_MAX_DIMENSION, size);
	if (ret == 0)
		ret = yaml_reader_number_at(r, n, where, "binning", 1, 4, 1, &bin);
	yaml_reader_place(k, sizeof(k), "%s.crop", where);
	if (ret == 0)
		ret = yaml_reader_numbers(r, yaml_reader_get(r, n, "crop"), k, 4, 0, CISP_MAX_DIMENSION, crop);
	if (ret == 0)
		ret = yaml_reader_number_at(r, n, where, "bits", 8, 16, NAN, &bits);
	if (ret == 0)
		ret = yaml_reader_number_at(r, n, where, "pixel_rate", 1e5, 1e11, NAN, &rate);
	if (ret == 0)
		ret = yaml_reader_number_at(r, n, where, "line_length", 16, 1e6, NAN, &ll);
	yaml_reader_place(k, sizeof(k), "%s.frame_length", where);
	if (ret == 0)
		ret = yaml_reader_numbers(r, yaml_reader_get(r, n, "frame_length"), k, 3, 16, 1e7, fl);
	if (ret < 0)
		return ret;
	if ((uint32_t)size[0] % 2 || (uint32_t)size[1] % 2 || (uint32_t)size[0] % 4)
		return yaml_reader_fail(r, n, where, "mode %s: width must be a multiple of 4 and height even",
				  mode->name);
	if (crop[2] != size[0] * bin || crop[3] != size[1] * bin || crop[0] + crop[2] > m->array_width ||
	    crop[1] + crop[3] > m->array_height)
		return yaml_reader_fail(r, n, where, "mode %s: crop must be size times binning, inside the array",
				  mode->name);
	if (bits != 8 && bits != 10 && bits != 12 && bits != 14 && bits != 16)
		return yaml_reader_fail(r, n, where, "mode %s: bits must be 8, 10, 12, 14 or 16", mode->name);
	if (ll < size[0] || fl[0] < size[1] + m->exposure_margin || fl[0] > fl[2] || fl[2] > fl[1])
		return yaml_reader_fail(r, n, where,
				  "mode %s: need line_length >= width and frame_length "
				  "[min, max, default] with height + exposure_margin <= min <= default <= max",
				  mode->name);
	mode->width = (uint32_t)size[0];
	mode->height = (uint32_t)size[1];
	mode->binning = (unsigned)bin;
	mode->crop_x = (uint32_t)crop[0];
	mode->crop_y = (uint32_t)crop[1];
	mode->crop_width = (uint32_t)crop[2];
	mode->crop_height = (uint32_t)crop[3];
	/* An odd crop offset shifts the CFA by one column or row. */
	mode->cfa = (enum cisp_cfa)((unsigned)m->cfa ^ (mode->crop_x & 1) ^ ((mode->crop_y & 1) << 1));
	mode->bits = (unsigned)bits;
	mode->format = cisp_bayer_format(mode->cfa, mode->bits, false);
	mode->pixel_rate = (uint64_t)rate;
	mode->line_length = (uint32_t)ll;
	mode->frame_length_min = (uint32_t)fl[0];
	mode->frame_length_max = (uint32_t)fl[1];
	mode->frame_length_default = (uint32_t)fl[2];
	mode->exposure_margin = m->exposure_margin;
	mode->black_level = (uint32_t)lround(ldexp(m->black_level, (int)mode->bits - (int)m->bit_depth));
	mode->white_level = (1u << mode->bits) - 1;
	if (mode->black_level >= mode->white_level)
		return yaml_reader_fail(r, n, where, "mode %s: black level %u is not below the white level %u",
				  mode->name, mode->black_level, mode->white_level);
	return 0;
}

static int load_camera(struct yaml_reader *r, yaml_node_t *root, struct vs_model *m)
{
	yaml_node_t *ss = yaml_reader_get(r, root, "spectral_sensitivity");
	yaml_node_t *cm = yaml_reader_get(r, root, "colour_matrix");
	static const char *const keys[] = { "r", "g", "b", NULL };
	static const char *const names[] = { "spectral_sensitivity.r", "spectral_sensitivity.g",
					     "spectral_sensitivity.b" };
	int ret;

	if (!!ss == !!cm)
		return yaml_reader_fail(r, ss ? ss : cm, "", "give exactly one of spectral_sensitivity and colour_matrix");
	if (ss) {
		ret = yaml_reader_map(r, ss, "spectral_sensitivity", keys, 0, NULL, NULL);
		for (int ch = 0; ch < 3 && ret == 0; ch++)
			ret = yaml_reader_numbers(r, yaml_reader_get(r, ss, keys[ch]), names[ch], VS_BANDS, 0, 100,
						  m->camera.q[ch]);
		return ret;
	}
	/* Camera RGB = M * XYZ: sensitivities are M times the CIE functions, without the photon factor. */
	if (cm->type != YAML_SEQUENCE_NODE || cm->data.sequence.items.top - cm->data.sequence.items.start != 3)
		return yaml_reader_fail(r, cm, "colour_matrix", "must be 3 rows of 3 numbers");
	for (int row = 0; row < 3; row++) {
		double v[3];
		char k[32];

		yaml_reader_place(k, sizeof(k), "colour_matrix[%d]", row);
		ret = yaml_reader_numbers(r, yaml_reader_node(r, cm->data.sequence.items.start[row]), k, 3, -100, 100, v);
		if (ret < 0)
			return ret;
		for (int i = 0; i < VS_BANDS; i++)
			m->camera.q[row][i] = (v[0] * vs_cie1931[i][0] + v[1] * vs_cie1931[i][1] +
					       v[2] * vs_cie1931[i][2]) / vs_lambda(i);
	}
	return 0;
}

static int load(struct yaml_reader *r, struct vs_model *m)
{
	yaml_node_t *root = yaml_document_get_root_node(&r->doc), *n;
	static const char *const defect_keys[] = { "density", "hot_fraction", "seed", NULL };
	char cfa[8] = "";
	double v = 0, pair[2] = { 0, 0 };
	int ret = yaml_reader_map(r, root, "", top_keys, 0, NULL, NULL);

	if (ret == 0)
		ret = yaml_reader_string_at(r, root, "", "name", true, m->name, sizeof(m->name));
	if (ret == 0)
		ret = yaml_reader_string_at(r, root, "", "description", false, m->description, sizeof(m->description));
	if (ret == 0)
		ret = yaml_reader_numbers(r, yaml_reader_get(r, root, "array"), "array", 2, 16, CISP_MAX_DIMENSION, pair);
	if (ret == 0) {
		m->array_width = (uint32_t)pair[0];
		m->array_height = (uint32_t)pair[1];
	}
	if (ret == 0)
		ret = yaml_reader_string_at(r, root, "", "cfa", true, cfa, sizeof(cfa));
	if (ret == 0 && cisp_cfa_from_name(cfa, &m->cfa) < 0)
		ret = cisp_error_prefix(-EINVAL, "%s:%lu: cfa", r->name, yaml_reader_line(yaml_reader_get(r, root, "cfa")));
	if (ret == 0)
		ret = yaml_reader_number_at(r, root, "", "bit_depth", 8, 16, NAN, &v);
	if (ret == 0)
		m->bit_depth = (unsigned)v;
	if (ret == 0)
		ret = yaml_reader_number_at(r, root, "", "black_level", 0, 65535, NAN, &m->black_level);
	n = yaml_reader_get(r, root, "black_offset");
	if (ret == 0 && n)
		ret = yaml_reader_numbers(r, n, "black_offset", 4, -1000, 1000, m->black_offset);
	if (ret == 0)
		ret = yaml_reader_number_at(r, root, "", "dsnu", 0, 1000, 0, &m->dsnu);
	if (ret == 0)
		ret = yaml_reader_number_at(r, root, "", "prnu", 0, 0.5, 0, &m->prnu);
	if (ret == 0)
		ret = yaml_reader_number_at(r, root, "", "full_well", 1, 1e7, NAN, &m->full_well);
	if (ret == 0)
		ret = yaml_reader_number_at(r, root, "", "conversion_gain", 1e-4, 1e3, NAN, &m->conversion_gain);
	if (ret == 0)
		ret = yaml_reader_number_at(r, root, "", "read_noise", 0, 1e4, NAN, &m->read_noise);
	if (ret == 0)
		ret = yaml_reader_number_at(r, root, "", "adc_noise", 0, 1e4, 0, &m->adc_noise);
	if (ret == 0)
		ret = yaml_reader_number_at(r, root, "", "dark_current", 0, 1e6, 0, &m->dark_current);
	if (ret == 0)
		ret = yaml_reader_number_at(r, root, "", "sensitivity", 1e-3, 1e9, NAN, &m->sensitivity);
	n = yaml_reader_get(r, root, "defects");
	if (ret == 0 && n) {
		ret = yaml_reader_map(r, n, "defects", defect_keys, 0, NULL, NULL);
		if (ret == 0)
			ret = yaml_reader_number_at(r, n, "defects", "density", 0, 0.01, 0, &m->defect_density);
		if (ret == 0)
			ret = yaml_reader_number_at(r, n, "defects", "hot_fraction", 0, 1, 0.5, &m->hot_fraction);
		if (ret == 0)
			ret = yaml_reader_number_at(r, n, "defects", "seed", 0, 4294967295.0, 1, &v);
		if (ret == 0)
			m->defect_seed = (uint64_t)v;
	}
	if (ret == 0)
		ret = yaml_reader_numbers(r, yaml_reader_get(r, root, "analogue_gain"), "analogue_gain", 2, 1, 256, pair);
	if (ret == 0) {
		m->again_min = (int32_t)lround(pair[0] * CISP_SENSOR_GAIN_ONE);
		m->again_max = (int32_t)lround(pair[1] * CISP_SENSOR_GAIN_ONE);
		ret = yaml_reader_numbers(r, yaml_reader_get(r, root, "digital_gain"), "digital_gain", 2, 1, 256, pair);
	}
	if (ret == 0) {
		m->dgain_min = (int32_t)lround(pair[0] * CISP_SENSOR_GAIN_ONE);
		m->dgain_max = (int32_t)lround(pair[1] * CISP_SENSOR_GAIN_ONE);
	}
	if (ret == 0 && (m->again_min > m->again_max || m->dgain_min > m->dgain_max))
		ret = yaml_reader_fail(r, yaml_reader_get(r, root, "analogue_gain"), "analogue_gain, digital_gain",
				       "gain ranges must be [min, max]");
	if (ret == 0)
		ret = yaml_reader_number_at(r, root, "", "exposure_min", 1, 65535, 1, &v);
	if (ret == 0) {
		m->exposure_min = (uint32_t)v;
		ret = yaml_reader_number_at(r, root, "", "exposure_margin", 0, 65535, 0, &v);
	}
	if (ret == 0)
		m->exposure_margin = (uint32_t)v;
	if (ret == 0)
		ret = load_delays(r, root, m);
	if (ret == 0)
		ret = load_lens(r, root, m);
	if (ret == 0)
		ret = load_camera(r, root, m);
	n = yaml_reader_get(r, root, "modes");
	if (ret == 0 && (!n || n->type != YAML_SEQUENCE_NODE || n->data.sequence.items.top == n->data.sequence.items.start))
		ret = yaml_reader_fail(r, n, "modes", "must be a non-empty list");
	if (ret < 0)
		return ret;
	m->num_modes = (unsigned)(n->data.sequence.items.top - n->data.sequence.items.start);
	m->modes = calloc(m->num_modes, sizeof(*m->modes));
	if (!m->modes)
		return cisp_error(-ENOMEM, "sensor model %s: out of memory", r->name);
	for (unsigned i = 0; i < m->num_modes && ret == 0; i++)
		ret = load_mode(r, yaml_reader_node(r, n->data.sequence.items.start[i]), i, m, &m->modes[i]);
	return ret;
}

int vs_model_parse(const char *text, size_t length, const char *path, struct vs_model *m)
{
	struct yaml_reader r;
	yaml_node_t *root;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = yaml_reader_load(&r, path, text, length, &root);
	if (ret)
		return cisp_error_prefix(ret, "sensor model");
	ret = load(&r, m);
	if (ret)
		cisp_error_prefix(ret, "sensor model");
	yaml_reader_free(&r);
	if (ret < 0)
		vs_model_free(m);
	return ret;
}

int vs_model_load(const char *path, struct vs_model *m)
{
	char *text;
	size_t length;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = cisp_read_text_file(path, MODEL_FILE_MAX, &text, &length);
	if (ret)
		return cisp_error_prefix(ret, "sensor model");
	ret = vs_model_parse(text, length, path, m);
	free(text);
	return ret;
}

void vs_model_free(struct vs_model *m)
{
	free(m->modes);
	m->modes = NULL;
	m->num_modes = 0;
}

/* ---- search path ---- */

/* Call @fn for each folder of the search path; stop when it returns non-zero. */
static int for_each_dir(int (*fn)(void *ctx, const char *dir), void *ctx)
{
	const char *env = getenv("CISP_SENSOR_PATH");
	int ret = 0;

	if (env && *env) {
		char *copy = strdup(env), *save = NULL;

		if (!copy)
			return -ENOMEM;
		for (char *d = strtok_r(copy, ":", &save); d && !ret; d = strtok_r(NULL, ":", &save))
			ret = fn(ctx, d);
		free(copy);
	}
	if (!ret)
		ret = fn(ctx, CISP_SENSOR_INSTALL_DIR);
	return ret;
}

struct find_ctx {
	const char *name;
	char *path;
	size_t size;
};

static int find_in(void *p, const char *dir)
{
	struct find_ctx *f = p;

	snprintf(f->path, f->size, "%s/%s.yaml", dir, f->name);
	/* access(), not open(): a FIFO found here must not block (the model reader refuses it). */
	return access(f->path, R_OK) == 0;
}

int vs_model_find(const char *name, char *path, size_t size)
{
	struct find_ctx f = { name, path, size };

	if (strchr(name, '/') || !*name)
		return cisp_error(-EINVAL, "sensor model name '%s' is not a plain name", name);
	if (for_each_dir(find_in, &f) == 1)
		return 0;
	return cisp_error(-ENOENT, "no sensor model '%s' (looked in CISP_SENSOR_PATH and %s)", name,
			  CISP_SENSOR_INSTALL_DIR);
}

struct list_ctx {
	char (*names)[64];
	char (*paths)[512];
	unsigned count, cap;
};

static int list_in(void *p, const char *dir)
{
	struct list_ctx *l = p;
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		bool seen = false;

		if (len <= 5 || len - 5 >= 64 || strcmp(e->d_name + len - 5, ".yaml"))
			continue;
		for (unsigned i = 0; i < l->count && !seen; i++)
			seen = !strncmp(l->names[i], e->d_name, len - 5) && l->names[i][len - 5] == '\0';
		if (seen)
			continue;
		if (l->count == l->cap) {
			unsigned cap = l->cap ? 2 * l->cap : 16;
			void *n = realloc(l->names, cap * sizeof(*l->names)), *q;

			if (!n)
				break;
			l->names = n;
			q = realloc(l->paths, cap * sizeof(*l->paths));
			if (!q)
				break;
			l->paths = q;
			l->cap = cap;
		}
		memcpy(l->names[l->count], e->d_name, len - 5);
		l->names[l->count][len - 5] = '\0';
		snprintf(l->paths[l->count], sizeof(l->paths[0]), "%s/%s", dir, e->d_name);
		l->count++;
	}
	closedir(d);
	return 0;
}

int vs_model_list(void (*fn)(void *ctx, const char *name, const char *path), void *ctx)
{
	struct list_ctx l = { 0 };
	int ret = for_each_dir(list_in, &l);

	if (ret < 0)
		return cisp_error(ret, "sensor models: out of memory");
	/* Sorted by name, so the list does not depend on directory order. */
	for (unsigned i = 0; i < l.count; i++)
		for (unsigned j = i + 1; j < l.count; j++)
			if (strcmp(l.names[j], l.names[i]) < 0) {
				char tn[64], tp[512];

				memcpy(tn, l.names[i], sizeof(tn));
				memcpy(l.names[i], l.names[j], sizeof(tn));
				memcpy(l.names[j], tn, sizeof(tn));
				memcpy(tp, l.paths[i], sizeof(tp));
				memcpy(l.paths[i], l.paths[j], sizeof(tp));
				memcpy(l.paths[j], tp, sizeof(tp));
			}
	for (unsigned i = 0; i < l.count; i++)
		fn(ctx, l.names[i], l.paths[i]);
	ret = (int)l.count;
	free(l.names);
	free(l.paths);
	return ret;
}
