/* SPDX-License-Identifier: MIT */
/*
 * Sensor model files (the .yaml files of data/sensors): what a virtual sensor is made
 * of. docs/sensor.md describes every key.
 */
#ifndef CISP_SENSOR_VIRTUAL_MODEL_H
#define CISP_SENSOR_VIRTUAL_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include <cisp/sensor.h>

#include "spectra.h"

/* Model files are a few kilobytes; this bound keeps a wrong path from filling memory. */
#define MODEL_FILE_MAX (1 << 20)

struct vs_model {
	char name[64];
	char description[128];
	uint32_t array_width, array_height;
	enum cisp_cfa cfa;        /* of the array */
	unsigned bit_depth;       /* the depth black_level and conversion_gain are given at */
	double black_level;       /* DN at bit_depth: what the modes report */
	double black_offset[4];   /* DN at bit_depth per channel R, Gr, Gb, B: the true pedestal less black_level */
	double dsnu;              /* DN rms at bit_depth: a fixed offset per pixel (dark signal non-uniformity) */
	double prnu;              /* fraction rms: a fixed gain error per pixel (photo-response non-uniformity) */
	double full_well;         /* e */
	double conversion_gain;   /* DN per e at bit_depth, analogue gain x1 */
	double read_noise;        /* e rms before the analogue gain */
	double adc_noise;         /* DN rms at bit_depth after the gain */
	double dark_current;      /* e per second */
	double sensitivity;       /* green e per lux s, white under D65 */
	double defect_density;    /* fraction of array pixels */
	double hot_fraction;      /* of the defects, stuck white */
	uint64_t defect_seed;
	int32_t again_min, again_max, dgain_min, dgain_max; /* 8 fractional bits */
	uint32_t exposure_min, exposure_margin;
	unsigned delay[CISP_SENSOR_NUM_CONTROLS];
	int32_t lens_min, lens_max, lens_infinity;
	double lens_per_dioptre;
	double blur_sigma, blur_per_step, blur_max; /* array pixels */
	double shading_corner[3];                   /* R, G, B */
	struct vs_camera camera;
	struct cisp_sensor_mode *modes;
	unsigned num_modes;
};

/* Load a model file (at most MODEL_FILE_MAX bytes). Return 0, or -ENOENT/-EINVAL with a message naming the file and key. */
int vs_model_load(const char *path, struct vs_model *m);
/* The same for the file's @length bytes of @text, named @path in messages. */
int vs_model_parse(const char *text, size_t length, const char *path, struct vs_model *m);
void vs_model_free(struct vs_model *m);

/*
 * Find the model file for @name ("cisp-8m10") in the search path
 * (CISP_SENSOR_PATH, the installed folder, the source tree's data/sensors).
 * Return 0 with the path in @path, or -ENOENT.
 */
int vs_model_find(const char *name, char *path, size_t size);

/*
 * Call @fn for every model file in the search path (a name found in an
 * earlier folder hides later ones). Return the number of files, or a
 * negative errno.
 */
int vs_model_list(void (*fn)(void *ctx, const char *name, const char *path), void *ctx);

#endif
