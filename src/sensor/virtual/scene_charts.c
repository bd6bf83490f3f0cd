/* SPDX-License-Identifier: MIT */
/*
 * Charts of the image-quality lab (docs/iq.md): a Siemens star, a grey step
 * chart, a flat field and a dead-leaves texture. Every material is a flat
 * (neutral) reflectance, so any colour in their pictures is the camera's.
 * Edges are anti-aliased by supersampling each pixel.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error_internal.h"
#include "scene.h"

#define STAR_CYCLES 36     /* black/white pairs around the star */
#define STAR_RADIUS 0.45   /* frame heights */
#define STEPS 24           /* grey steps, half a stop apart */
#define LEAVES 24000       /* discs of the dead-leaves texture */
#define LEAF_GREYS 16      /* grey levels of the discs */

static void flat(struct vs_material *m, double r)
{
	for (int i = 0; i < VS_BANDS; i++)
		m->spectrum[i] = r;
	m->emissive = false;
	m->luminance = 0;
}

double vs_step_reflectance(unsigned k)
{
	return 0.9 * pow(2.0, -0.5 * k);
}

int vs_chart_create(const char *spec, struct vs_scene *s)
{
	if (!strcasecmp(spec, "star")) {
		s->kind = VS_SCENE_STAR;
		s->distance = 1.0;
		flat(&s->materials[0], 0.8);
		flat(&s->materials[1], 0.04);
		flat(&s->materials[2], 0.18);
		s->num_materials = 3;
	} else if (!strcasecmp(spec, "steps")) {
		s->kind = VS_SCENE_STEPS;
		s->distance = 1.0;
		for (unsigned k = 0; k < STEPS; k++)
			flat(&s->materials[k], vs_step_reflectance(k));
		flat(&s->materials[STEPS], 0.03);
		flat(&s->materials[STEPS + 1], 0.18);
		s->num_materials = STEPS + 2;
	} else if (!strcasecmp(spec, "flat")) {
		s->kind = VS_SCENE_FLAT;
		s->distance = 0.5;
		flat(&s->materials[0], 0.8);
		s->num_materials = 1;
	} else if (!strcasecmp(spec, "deadleaves")) {
		s->kind = VS_SCENE_DEADLEAVES;
		s->distance = 1.0;
		for (unsigned k = 0; k < LEAF_GREYS; k++)
			flat(&s->materials[k], 0.05 + 0.85 * k / (LEAF_GREYS - 1));
		s->num_materials = LEAF_GREYS;
	} else {
		return 0;
	}
	return 1;
}

/* ---- layouts ---- */

void vs_steps_layout(double aspect, unsigned k, double box[4])
{
	/* The ColorChecker's layout: 6 x 4 patches of side 0.8/5.25, gaps a quarter patch. */
	double side = 0.8 / 5.25, gap, u0, v0;

	if (7.75 * side > 0.92 * aspect)
		side = 0.92 * aspect / 7.75;
	gap = side / 4;
	u0 = (aspect - (6 * side + 7 * gap)) / 2;
	v0 = (1 - (4 * side + 5 * gap)) / 2;
	box[0] = u0 + gap + (k % 6) * (side + gap);
	box[1] = v0 + gap + (k / 6) * (side + gap);
	box[2] = side;
	box[3] = side;
}

struct leaf {
	float u, v, r2;
	uint8_t grey;
};

struct leaves {
	struct leaf *leaf;
	unsigned n;
	unsigned cols, rows;
	double cell, u0, v0;
	unsigned *start, *list; /* per cell, indices of the discs touching it, top (last) first */
};

static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

static double uniform(uint64_t *s)
{
	return (next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * Discs with radii distributed as 1/r^3 between 0.003 and 0.12 frame heights
 * (a scale-invariant texture), uniform centres and grey levels, later discs
 * on top; a fixed seed, so the texture is the same in every frame and mode.
 */
static int leaves_build(struct leaves *L, double aspect)
{
	const double rmin = 0.003, rmax = 0.12, a = 1 / (rmin * rmin), b = 1 / (rmax * rmax);
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	size_t total = 0;
	unsigned *fill;

	memset(L, 0, sizeof(*L));
	L->n = LEAVES;
	L->cell = 0.04;
	L->u0 = -rmax;
	L->v0 = -rmax;
	L->cols = (unsigned)ceil((aspect + 2 * rmax) / L->cell);
	L->rows = (unsigned)ceil((1 + 2 * rmax) / L->cell);
	L->leaf = malloc(L->n * sizeof(*L->leaf));
	L->start = calloc((size_t)L->cols * L->rows + 1, sizeof(unsigned));
	if (!L->leaf || !L->start)
		return -ENOMEM;
	for (unsigned i = 0; i < L->n; i++) {
		double r = 1 / sqrt(a - uniform(&seed) * (a - b));

		L->leaf[i].u = (float)(L->u0 + uniform(&seed) * (aspect + 2 * rmax));
		L->leaf[i].v = (float)(L->v0 + uniform(&seed) * (1 + 2 * rmax));
		L->leaf[i].r2 = (float)(r * r);
		L->leaf[i].grey = (uint8_t)(next(&seed) % LEAF_GREYS);
	}
	/* Bucket the discs by the cells their bounding boxes touch (counting pass, then filling). */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = (int)L->n - 1; i >= 0; i--) {
			double r = sqrt(L->leaf[i].r2);
			int c0 = (int)floor((L->leaf[i].u - r - L->u0) / L->cell), c1 = (int)floor((L->leaf[i].u + r - L->u0) / L->cell);
			int r0 = (int)floor((L->leaf[i].v - r - L->v0) / L->cell), r1 = (int)floor((L->leaf[i].v + r - L->v0) / L->cell);

			for (int y = r0 < 0 ? 0 : r0; y <= r1 && y < (int)L->rows; y++)
				for (int x = c0 < 0 ? 0 : c0; x <= c1 && x < (int)L->cols; x++) {
					size_t c = (size_t)y * L->cols + x;

					if (pass == 0)
						L->start[c + 1]++;
					else
						L->list[fill[c]++] = (unsigned)i;
				}
		}
		if (pass == 0) {
			for (size_t c = 0; c < (size_t)L->cols * L->rows; c++)
				L->start[c + 1] += L->start[c];
			total = L->start[(size_t)L->cols * L->rows];
			L->list = malloc(total * sizeof(unsigned) + 1);
			fill = malloc((size_t)L->cols * L->rows * sizeof(unsigned));
			if (!L->list || !fill) {
				free(fill);
				return -ENOMEM;
			}
			memcpy(fill, L->start, (size_t)L->cols * L->rows * sizeof(unsigned));
		}
	}
	free(fill);
	return 0;
}

static void leaves_free(struct leaves *L)
{
	free(L->leaf);
	free(L->start);
	free(L->list);
}

/* ---- rendering ---- */

struct ctx {
	const struct vs_scene *s;
	double aspect;
	struct leaves leaves;
};

/* The material at scene point (u, v). */
static unsigned material_at(const struct ctx *c, double u, double v)
{
	switch (c->s->kind) {
	case VS_SCENE_STAR: {
		double du = u - c->aspect / 2, dv = v - 0.5, t;

		if (du * du + dv * dv > STAR_RADIUS * STAR_RADIUS)
			return 2;
		t = atan2(dv, du) / (2 * M_PI) + 0.5; /* 0..1 around the centre */
		return (unsigned)floor(t * 2 * STAR_CYCLES) & 1;
	}
	case VS_SCENE_STEPS: {
		double box[4], side, gap;

		vs_steps_layout(c->aspect, 0, box);
		side = box[2];
		gap = side / 4;
		double fu = (u - (box[0] - gap)) / (side + gap), fv = (v - (box[1] - gap)) / (side + gap);
		int col = (int)floor(fu), row = (int)floor(fv);

		if (fu < 0 || fv < 0 || col > 6 || row > 4 || (col == 6 && (fu - col) * (side + gap) >= gap) ||
		    (row == 4 && (fv - row) * (side + gap) >= gap))
			return STEPS + 1; /* the wall */
		if (col < 6 && row < 4 && (fu - col) * (side + gap) >= gap && (fv - row) * (side + gap) >= gap)
			return (unsigned)(row * 6 + col);
		return STEPS; /* the chart's black frame */
	}
	case VS_SCENE_DEADLEAVES: {
		const struct leaves *L = &c->leaves;
		int cx = (int)floor((u - L->u0) / L->cell), cy = (int)floor((v - L->v0) / L->cell);
		size_t cell;

		if (cx < 0 || cy < 0 || cx >= (int)L->cols || cy >= (int)L->rows)
			return 0;
		cell = (size_t)cy * L->cols + cx;
		for (unsigned k = L->start[cell]; k < L->start[cell + 1]; k++) {
			const struct leaf *l = &L->leaf[L->list[k]];
			double du = u - l->u, dv = v - l->v;

			if (du * du + dv * dv <= l->r2)
				return l->grey;
		}
		return LEAF_GREYS / 2;
	}
	default:
		return 0;
	}
}

void vs_chart_render(const struct vs_scene *s, const struct vs_view *v, const double (*resp)[3], float *planes[3])
{
	struct ctx c = { .s = s, .aspect = (double)v->width / v->height };
	int n = s->kind == VS_SCENE_FLAT ? 1 : s->kind == VS_SCENE_DEADLEAVES ? 2 : 4; /* samples per pixel side */
	double p = 1.0 / v->height;

	if (s->kind == VS_SCENE_DEADLEAVES && leaves_build(&c.leaves, c.aspect)) {
		/* Out of memory: a mid-grey frame rather than garbage. */
		leaves_free(&c.leaves);
		for (size_t i = 0; i < (size_t)v->width * v->height; i++)
			for (int k = 0; k < 3; k++)
				planes[k][i] = (float)resp[LEAF_GREYS / 2][k];
		return;
	}
	for (uint32_t y = 0; y < v->height; y++) {
		uint32_t sy = v->vflip ? v->height - 1 - y : y;

		for (uint32_t x = 0; x < v->width; x++) {
			uint32_t sx = v->hflip ? v->width - 1 - x : x;
			double rgb[3] = { 0, 0, 0 };

			for (int j = 0; j < n; j++)
				for (int i = 0; i < n; i++) {
					unsigned m = material_at(&c, (sx + (i + 0.5) / n) * p, (sy + (j + 0.5) / n) * p);

					for (int k = 0; k < 3; k++)
						rgb[k] += resp[m][k];
				}
			for (int k = 0; k < 3; k++)
				planes[k][(size_t)y * v->width + x] = (float)(rgb[k] / (n * n));
		}
	}
	leaves_free(&c.leaves);
}
