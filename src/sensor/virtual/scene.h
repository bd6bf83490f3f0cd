/* SPDX-License-Identifier: MIT */
/*
 * Scenes of the virtual sensor: what is in front of the lens, as a few
 * materials (reflectance spectra, or emitters with their own spectrum) laid
 * out over the field of view. Rendering mixes the camera responses of the
 * materials, so all spectral work is per material, never per pixel.
 *
 * Scene coordinates: v runs from 0 (top) to 1 (bottom) of the field of view,
 * u from 0 (left) to its aspect ratio (width / height); the scene is framed
 * to each mode's field of view.
 */
#ifndef CISP_SENSOR_VIRTUAL_SCENE_H
#define CISP_SENSOR_VIRTUAL_SCENE_H

#include <stdbool.h>
#include <stdint.h>

#include "spectra.h"

#define VS_SCENE_MAX_MATERIALS 32

struct vs_material {
	double spectrum[VS_BANDS]; /* reflectance, or relative emission of an emitter */
	bool emissive;             /* lights itself, unaffected by the scene light */
	double luminance;          /* emitters: luminance relative to a white diffuser in the scene light */
};

enum vs_scene_kind {
	VS_SCENE_CHART,
	VS_SCENE_RESOLUTION,
	VS_SCENE_GRADIENT,
	VS_SCENE_HDR,
	VS_SCENE_DOMINANT,
	VS_SCENE_IMAGE,
	VS_SCENE_STAR,        /* scene_charts.c: the IQ lab's charts */
	VS_SCENE_STEPS,
	VS_SCENE_FLAT,
	VS_SCENE_DEADLEAVES,
};

struct vs_scene {
	enum vs_scene_kind kind;
	char name[256];
	double distance;  /* metres from the lens */
	unsigned num_materials;
	struct vs_material materials[VS_SCENE_MAX_MATERIALS];
	/* Image scenes: linear sRGB reflectance, 3 floats a pixel. */
	uint32_t image_width, image_height;
	float *image;
};

/* The output raster a scene is rendered on. */
struct vs_view {
	uint32_t width, height;
	bool hflip, vflip;
	double shift; /* pixels the hdr scene's moving card has travelled; 0: no card */
};

/*
 * Make a scene from its name (see cisp_sensor_set_option(), "scene").
 * Return 0, -ENOENT for a missing file, -EINVAL with a message.
 */
int vs_scene_create(const char *spec, struct vs_scene **out);
void vs_scene_free(struct vs_scene *s);

/*
 * Render: planes[c][y * width + x] = sum over materials of the material's
 * area fraction in pixel (x, y) times resp[material][c] (times the scene's
 * lighting for reflective materials), clamped at 0.
 */
void vs_scene_render(const struct vs_scene *s, const struct vs_view *v, const double (*resp)[3], float *planes[3]);

/*
 * Pixels fully inside ColorChecker patch @index of a chart scene (flips
 * applied): rect = x, y, width, height. Return 0, -ENODATA if not a chart.
 */
int vs_scene_chart_rect(const struct vs_scene *s, const struct vs_view *v, unsigned index, int32_t rect[4]);

/*
 * The IQ lab's charts (scene_charts.c): "star", "steps", "flat", "deadleaves".
 * vs_chart_create() fills @s and returns 1 when @spec names one, else 0.
 */
int vs_chart_create(const char *spec, struct vs_scene *s);
void vs_chart_render(const struct vs_scene *s, const struct vs_view *v, const double (*resp)[3], float *planes[3]);
/* Step @k (0..23) of the "steps" chart: its reflectance and its box (u, v, width, height). */
double vs_step_reflectance(unsigned k);
void vs_steps_layout(double aspect, unsigned k, double box[4]);

/* Load an image file as linear sRGB floats (scene_image.c). */
int vs_image_load(const char *path, uint32_t *width, uint32_t *height, float **rgb);

#endif
