/* SPDX-License-Identifier: MIT */
/*
 * Sensor model files: YAML read with libyaml's document API, every key
 * checked (unknown keys are errors, so a typo never goes unnoticed).
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
#include "core/number.h"
#include "core/text_file.h"
#include "core/yaml_reader.h"
#include "model.h"
#include "sensor/sensor_config.h"

/* The file being read (core/yaml_reader.h) and its path for the messages. */
struct ctx {
	const char *path;
	struct yaml_reader reader;
};

static yaml_node_t *node(struct ctx *c, yaml_node_item_t id)
{
	return yaml_reader_node(&c->reader, id);
}

static yaml_node_t *map_get(struct ctx *c, yaml_node_t *map, const char *key)
{
	return yaml_reader_get(&c->reader, map, key);
}

/* Every key of @map must be in the NULL-terminated @known list. */
static int check_keys(struct ctx *c, yaml_node_t *map, const char *where, const char *const *known)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return cisp_error(-EINVAL, "sensor model %s: %s must be a mapping", c->path, where);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(c, p->key);
		const char *name = k && k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "?";
		bool ok = false;

		for (const char *const *n = known; *n && !ok; n++)
			ok = !strcmp(*n, name);
		if (!ok)
			return cisp_error(-EINVAL, "sensor model %s: unknown key '%s' in %s", c->path, name, where);
	}
	return 0;
}

static int scalar_number(struct ctx *c, yaml_node_t *n, const char *key, double *out)
{
	char *end;

	if (!n || n->type != YAML_SCALAR_NODE)
		return cisp_error(-EINVAL, "sensor model %s: %s must be a number", c->path, key);
	*out = cisp_strtod((const char *)n->data.scalar.value, &end);
	if (end == (const char *)n->data.scalar.value || *end || !isfinite(*out))
		return cisp_error(-EINVAL, "sensor model %s: %s = '%s' is not a number", c->path, key,
				  (const char *)n->data.scalar.value);
	return 0;
}

/* A number in [lo, hi]; required unless @def is not NAN. */
static int get_number(struct ctx *c, yaml_node_t *map, const char *key, double lo, double hi, double def,
		      double *out)
{
	yaml_node_t *n = map_get(c, map, key);
	int ret;

	if (!n) {
		if (isnan(def))
			return cisp_error(-EINVAL, "sensor model %s: missing key '%s'", c->path, key);
		*out = def;
		return 0;
	}
	ret = scalar_number(c, n, key, out);
	if (ret < 0)
		return ret;
	if (*out < lo || *out > hi)
		return cisp_error(-EINVAL, "sensor model %s: %s = %g is out of range [%g, %g]", c->path, key, *out,
				  lo, hi);
	return 0;
}

/* A sequence of exactly @n numbers in [lo, hi]. */
static int get_list(struct ctx *c, yaml_node_t *seq, const char *key, unsigned n, double lo, double hi,
		    double *out)
{
	unsigned i = 0;

	if (!seq || seq->type != YAML_SEQUENCE_NODE)
		return cisp_error(-EINVAL, "sensor model %s: %s must be a list of %u numbers", c->path, key, n);
	for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++, i++) {
		int ret;

		if (i == n)
			break;
		ret = scalar_number(c, node(c, *it), key, &out[i]);
		if (ret < 0)
			return ret;
		if (out[i] < lo || out[i] > hi)
			return cisp_error(-EINVAL, "sensor model %s: %s item %u = %g is out of range [%g, %g]", c->path,
					  key, i, out[i], lo, hi);
	}
	if (i != n || seq->data.sequence.items.start + n != seq->data.sequence.items.top)
		return cisp_error(-EINVAL, "sensor model %s: %s must have %u numbers", c->path, key, n);
	return 0;
}

static int get_string(struct ctx *c, yaml_node_t *map, const char *key, char *out, size_t size, bool required)
{
	yaml_node_t *n = map_get(c, map, key);

	if (!n) {
		if (required)
			return cisp_error(-EINVAL, "sensor model %s: missing key '%s'", c->path, key);
		return 0;
	}
	if (n->type != YAML_SCALAR_NODE)
		return cisp_error(-EINVAL, "sensor model %s: %s must be text", c->path, key);
	if (required && !n->data.scalar.length)
		return cisp_error(-EINVAL, "sensor model %s: %s must not be empty", c->path, key);
	if (n->data.scalar.length >= size)
		return cisp_error(-EINVAL, "sensor model %s: %s is longer than %zu characters", c->path, key, size - 1);
	snprintf(out, size, "%s", (const char *)n->data.scalar.value);
	return 0;
}

static const char *const top_keys[] = {
	"name", "description", "array", "cfa", "bit_depth", "black_level", "black_offset", "dsnu", "prnu", "full_well",
	"conversion_gain", "read_noise", "adc_noise", "dark_current", "sensitivity", "defects", "analogue_gain", "digital_gain",
	"exposure_min", "exposure_margin", "delays", "lens", "modes", "spectral_sensitivity", "colour_matrix",
	NULL,
};

static int load_delays(struct ctx *c, yaml_node_t *root, struct vs_model *m)
{
	static const char *const keys[] = { "exposure", "analogue_gain", "digital_gain", "frame_length",
					    "lens_position", "test_pattern", "flip", NULL };
	static const unsigned ids[] = { CISP_SENSOR_EXPOSURE, CISP_SENSOR_ANALOGUE_GAIN,
					CISP_SENSOR_DIGITAL_GAIN, CISP_SENSOR_FRAME_LENGTH,
					CISP_SENSOR_LENS_POSITION, CISP_SENSOR_TEST_PATTERN, CISP_SENSOR_HFLIP };
	yaml_node_t *d = map_get(c, root, "delays");
	int ret = check_keys(c, d, "delays", keys);

	for (unsigned i = 0; keys[i] && ret == 0; i++) {
		double v;

		ret = get_number(c, d, keys[i], 0, CISP_SENSOR_MAX_DELAY, NAN, &v);
		if (ret == 0 && v != floor(v))
			ret = cisp_error(-EINVAL, "sensor model %s: delay %s = %g is not whole frames", c->path,
					 keys[i], v);
		if (ret == 0)
			m->delay[ids[i]] = (unsigned)v;
	}
	m->delay[CISP_SENSOR_VFLIP] = m->delay[CISP_SENSOR_HFLIP];
	return ret;
}

static int load_lens(struct ctx *c, yaml_node_t *root, struct vs_model *m)
{
	static const char *const keys[] = { "position_range", "infinity", "per_dioptre", "blur_sigma",
					    "blur_per_step", "blur_max", "shading_corner", NULL };
	yaml_node_t *l = map_get(c, root, "lens");
	double range[2] = { 0, 1 }, v = 0;
	int ret = check_keys(c, l, "lens", keys);

	if (ret == 0)
		ret = get_list(c, map_get(c, l, "position_range"), "lens.position_range", 2, 0, 65535, range);
	if (ret == 0 && range[0] >= range[1])
		ret = cisp_error(-EINVAL, "sensor model %s: lens.position_range is empty", c->path);
	if (ret == 0) {
		m->lens_min = (int32_t)range[0];
		m->lens_max = (int32_t)range[1];
		ret = get_number(c, l, "infinity", range[0], range[1], NAN, &v);
	}
	if (ret == 0)
		m->lens_infinity = (int32_t)v;
	if (ret == 0)
		ret = get_number(c, l, "per_dioptre", 0, 65535, NAN, &m->lens_per_dioptre);
	if (ret == 0)
		ret = get_number(c, l, "blur_sigma", 0, 100, NAN, &m->blur_sigma);
	if (ret == 0)
		ret = get_number(c, l, "blur_per_step", 0, 100, NAN, &m->blur_per_step);
	if (ret == 0)
		ret = get_number(c, l, "blur_max", m->blur_sigma, 200, NAN, &m->blur_max);
	if (ret == 0)
		ret = get_list(c, map_get(c, l, "shading_corner"), "lens.shading_corner", 3, 0.01, 1, m->shading_corner);
	return ret;
}

static int load_mode(struct ctx *c, yaml_node_t *n, unsigned index, struct vs_model *m,
		     struct cisp_sensor_mode *mode)
{
	static const char *const keys[] = { "name", "size", "crop", "binning", "bits", "pixel_rate",
					    "line_length", "frame_length", NULL };
	char where[32];
	double size[2], crop[4], bin, bits, rate, ll, fl[3];
	int ret;

	snprintf(where, sizeof(where), "modes[%u]", index);
	ret = check_keys(c, n, where, keys);
	if (ret == 0)
		ret = get_string(c, n, "name", mode->name, sizeof(mode->name), true);
	if (ret == 0)
		ret = get_list(c, map_get(c, n, "size"), "mode size", 2, 16, CISP_MAX_DIMENSION, size);
	if (ret == 0)
		ret = get_number(c, n, "binning", 1, 4, 1, &bin);
	if (ret == 0)
		ret = get_list(c, map_get(c, n, "crop"), "mode crop", 4, 0, CISP_MAX_DIMENSION, crop);
	if (ret == 0)
		ret = get_number(c, n, "bits", 8, 16, NAN, &bits);
	if (ret == 0)
		ret = get_number(c, n, "pixel_rate", 1e5, 1e11, NAN, &rate);
	if (ret == 0)
		ret = get_number(c, n, "line_length", 16, 1e6, NAN, &ll);
	if (ret == 0)
		ret = get_list(c, map_get(c, n, "frame_length"), "mode frame_length", 3, 16, 1e7, fl);
	if (ret < 0)
		return ret;
	if ((uint32_t)size[0] % 2 || (uint32_t)size[1] % 2 || (uint32_t)size[0] % 4)
		return cisp_error(-EINVAL, "sensor model %s: mode %s: width must be a multiple of 4 and height even",
				  c->path, mode->name);
	if (crop[2] != size[0] * bin || crop[3] != size[1] * bin || crop[0] + crop[2] > m->array_width ||
	    crop[1] + crop[3] > m->array_height)
		return cisp_error(-EINVAL, "sensor model %s: mode %s: crop must be size times binning, inside the array",
				  c->path, mode->name);
	if (bits != 8 && bits != 10 && bits != 12 && bits != 14 && bits != 16)
		return cisp_error(-EINVAL, "sensor model %s: mode %s: bits must be 8, 10, 12, 14 or 16", c->path,
				  mode->name);
	if (ll < size[0] || fl[0] < size[1] + m->exposure_margin || fl[0] > fl[2] || fl[2] > fl[1])
		return cisp_error(-EINVAL,
				  "sensor model %s: mode %s: need line_length >= width and frame_length "
				  "[min, max, default] with height + exposure_margin <= min <= default <= max",
				  c->path, mode->name);
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
		return cisp_error(-EINVAL, "sensor model %s: mode %s: black level %u is not below the white level %u",
				  c->path, mode->name, mode->black_level, mode->white_level);
	return 0;
}

static int load_camera(struct ctx *c, yaml_node_t *root, struct vs_model *m)
{
	yaml_node_t *ss = map_get(c, root, "spectral_sensitivity");
	yaml_node_t *cm = map_get(c, root, "colour_matrix");
	static const char *const keys[] = { "r", "g", "b", NULL };
	static const char *const names[] = { "spectral_sensitivity.r", "spectral_sensitivity.g",
					     "spectral_sensitivity.b" };
	int ret;

	if (!!ss == !!cm)
		return cisp_error(-EINVAL, "sensor model %s: give exactly one of spectral_sensitivity and colour_matrix",
				  c->path);
	if (ss) {
		ret = check_keys(c, ss, "spectral_sensitivity", keys);
		for (int ch = 0; ch < 3 && ret == 0; ch++)
			ret = get_list(c, map_get(c, ss, keys[ch]), names[ch], VS_BANDS, 0, 100, m->camera.q[ch]);
		return ret;
	}
	/* Camera RGB = M * XYZ: sensitivities are M times the CIE functions, without the photon factor. */
	if (cm->type != YAML_SEQUENCE_NODE || cm->data.sequence.items.top - cm->data.sequence.items.start != 3)
		return cisp_error(-EINVAL, "sensor model %s: colour_matrix must be 3 rows of 3 numbers", c->path);
	for (int r = 0; r < 3; r++) {
		double row[3];

		ret = get_list(c, node(c, cm->data.sequence.items.start[r]), "colour_matrix row", 3, -100, 100, row);
		if (ret < 0)
			return ret;
		for (int i = 0; i < VS_BANDS; i++)
			m->camera.q[r][i] = (row[0] * vs_cie1931[i][0] + row[1] * vs_cie1931[i][1] +
					     row[2] * vs_cie1931[i][2]) / vs_lambda(i);
	}
	return 0;
}

static int load(struct ctx *c, struct vs_model *m)
{
	yaml_node_t *root = yaml_document_get_root_node(&c->reader.doc), *n;
	static const char *const defect_keys[] = { "density", "hot_fraction", "seed", NULL };
	char cfa[8] = "";
	double v = 0, pair[2] = { 0, 0 };
	int ret = check_keys(c, root, "the top level", top_keys);

	if (ret == 0)
		ret = get_string(c, root, "name", m->name, sizeof(m->name), true);
	if (ret == 0)
		ret = get_string(c, root, "description", m->description, sizeof(m->description), false);
	if (ret == 0)
		ret = get_list(c, map_get(c, root, "array"), "array", 2, 16, CISP_MAX_DIMENSION, pair);
	if (ret == 0) {
		m->array_width = (uint32_t)pair[0];
		m->array_height = (uint32_t)pair[1];
	}
	if (ret == 0)
		ret = get_string(c, root, "cfa", cfa, sizeof(cfa), true);
	if (ret == 0 && cisp_cfa_from_name(cfa, &m->cfa) < 0)
		ret = cisp_error_prefix(-EINVAL, "sensor model %s", c->path);
	if (ret == 0)
		ret = get_number(c, root, "bit_depth", 8, 16, NAN, &v);
	if (ret == 0)
		m->bit_depth = (unsigned)v;
	if (ret == 0)
		ret = get_number(c, root, "black_level", 0, 65535, NAN, &m->black_level);
	n = map_get(c, root, "black_offset");
	if (ret == 0 && n)
		ret = get_list(c, n, "black_offset", 4, -1000, 1000, m->black_offset);
	if (ret == 0)
		ret = get_number(c, root, "dsnu", 0, 1000, 0, &m->dsnu);
	if (ret == 0)
		ret = get_number(c, root, "prnu", 0, 0.5, 0, &m->prnu);
	if (ret == 0)
		ret = get_number(c, root, "full_well", 1, 1e7, NAN, &m->full_well);
	if (ret == 0)
		ret = get_number(c, root, "conversion_gain", 1e-4, 1e3, NAN, &m->conversion_gain);
	if (ret == 0)
		ret = get_number(c, root, "read_noise", 0, 1e4, NAN, &m->read_noise);
	if (ret == 0)
		ret = get_number(c, root, "adc_noise", 0, 1e4, 0, &m->adc_noise);
	if (ret == 0)
		ret = get_number(c, root, "dark_current", 0, 1e6, 0, &m->dark_current);
	if (ret == 0)
		ret = get_number(c, root, "sensitivity", 1e-3, 1e9, NAN, &m->sensitivity);
	n = map_get(c, root, "defects");
	if (ret == 0 && n) {
		ret = check_keys(c, n, "defects", defect_keys);
		if (ret == 0)
			ret = get_number(c, n, "density", 0, 0.01, 0, &m->defect_density);
		if (ret == 0)
			ret = get_number(c, n, "hot_fraction", 0, 1, 0.5, &m->hot_fraction);
		if (ret == 0)
			ret = get_number(c, n, "seed", 0, 4294967295.0, 1, &v);
		if (ret == 0)
			m->defect_seed = (uint64_t)v;
	}
	if (ret == 0)
		ret = get_list(c, map_get(c, root, "analogue_gain"), "analogue_gain", 2, 1, 256, pair);
	if (ret == 0) {
		m->again_min = (int32_t)lround(pair[0] * CISP_SENSOR_GAIN_ONE);
		m->again_max = (int32_t)lround(pair[1] * CISP_SENSOR_GAIN_ONE);
		ret = get_list(c, map_get(c, root, "digital_gain"), "digital_gain", 2, 1, 256, pair);
	}
	if (ret == 0) {
		m->dgain_min = (int32_t)lround(pair[0] * CISP_SENSOR_GAIN_ONE);
		m->dgain_max = (int32_t)lround(pair[1] * CISP_SENSOR_GAIN_ONE);
	}
	if (ret == 0 && (m->again_min > m->again_max || m->dgain_min > m->dgain_max))
		ret = cisp_error(-EINVAL, "sensor model %s: gain ranges must be [min, max]", c->path);
	if (ret == 0)
		ret = get_number(c, root, "exposure_min", 1, 65535, 1, &v);
	if (ret == 0) {
		m->exposure_min = (uint32_t)v;
		ret = get_number(c, root, "exposure_margin", 0, 65535, 0, &v);
	}
	if (ret == 0)
		m->exposure_margin = (uint32_t)v;
	if (ret == 0)
		ret = load_delays(c, root, m);
	if (ret == 0)
		ret = load_lens(c, root, m);
	if (ret == 0)
		ret = load_camera(c, root, m);
	n = map_get(c, root, "modes");
	if (ret == 0 && (!n || n->type != YAML_SEQUENCE_NODE || n->data.sequence.items.top == n->data.sequence.items.start))
		ret = cisp_error(-EINVAL, "sensor model %s: modes must be a non-empty list", c->path);
	if (ret < 0)
		return ret;
	m->num_modes = (unsigned)(n->data.sequence.items.top - n->data.sequence.items.start);
	m->modes = calloc(m->num_modes, sizeof(*m->modes));
	if (!m->modes)
		return cisp_error(-ENOMEM, "sensor model %s: out of memory", c->path);
	for (unsigned i = 0; i < m->num_modes && ret == 0; i++)
		ret = load_mode(c, node(c, n->data.sequence.items.start[i]), i, m, &m->modes[i]);
	return ret;
}

int vs_model_parse(const char *text, size_t length, const char *path, struct vs_model *m)
{
	struct ctx c = { .path = path };
	yaml_node_t *root;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = yaml_reader_load(&c.reader, path, text, length, &root);
	if (ret)
		return cisp_error_prefix(ret, "sensor model");
	ret = load(&c, m);
	yaml_reader_free(&c.reader);
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
