/* SPDX-License-Identifier: MIT */
/*
 * lowcorr: render two sets of test images whose colour channels are weakly
 * correlated (the kind of content the McMaster/IMAX demosaic set is known
 * for), as full-RGB ground truth for demosaic quality (bench/lowcorr_cpsnr.sh).
 *
 *   lowcorr [--seed N] [--force] design|heldout OUT_DIR
 *
 * OUT_DIR must exist; a file of the same name there is replaced only with
 * --force.
 * Every image is a scene of materials with reflectance spectra (380..730 nm,
 * 10 nm), lit by an illuminant and seen through a virtual sensor's spectral
 * sensitivities (data/sensors), white balanced, taken to linear sRGB by a
 * colour matrix fitted on the ColorChecker, sRGB-encoded and written as an
 * 8-bit PNG. Scenes are rendered at 4 x 4 samples per pixel and averaged, as
 * a sensor pixel integrates its area, so fine detail aliases as it would.
 *
 * design (16 images, 512 x 512, D65, cisp-12m12): flowers with veined petals
 * and seed heads, woven dyed threads, high-chroma charts of fine patterns
 * between two dyes, CMYK halftone prints. Dyes are steep long-pass,
 * short-pass, band-pass and band-stop reflectances.
 *
 * heldout (14 images, 512 x 384, D50, cisp-8m10): a different generator for
 * a final check only: dead leaves, beads, stained glass and strands of
 * fibre, coloured by random smooth spectra raised to a power.
 *
 * The same seed gives the same files on every machine (a private generator,
 * no libc random numbers; results rounded to 8 bits).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/output_file.h>
#include <cisp/raster.h>

#include "sensor/virtual/model.h"
#include "sensor/virtual/spectra.h"

#define SS 4 /* samples per pixel along each axis */
#define GRAIN 0.15
#define LIGHTNESS 0.3
#define ZOOM 3.5 /* image pixels per scene unit: the distance the scenes are seen from */


/* ------------------------------------------------------------------------ */
/* Random numbers: splitmix64. */

struct rng {
	uint64_t s;
};

static uint64_t next64(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double uni(struct rng *r)
{
	return (double)(next64(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform in [a, b). */
static double range(struct rng *r, double a, double b)
{
	return a + (b - a) * uni(r);
}

/* Uniform integer in [0, n). */
static int pick(struct rng *r, int n)
{
	return (int)(uni(r) * n);
}

/* ------------------------------------------------------------------------ */
/* Light, sensor and colour: a reflectance to white-balanced camera RGB. */

struct camera {
	struct vs_camera cam;
	double blur;      /* the lens's point spread, sigma in pixels */
	double spd[VS_BANDS];
	double white[3];  /* camera RGB of a perfect white */
	double ccm[3][3]; /* white-balanced camera RGB to linear sRGB */
};

typedef double spectrum[VS_BANDS];

/* White-balanced camera RGB of a surface (a perfect white gives 1, 1, 1). */
static void camera_rgb(const struct camera *c, const double *refl, double rgb[3])
{
	vs_camera_rgb(&c->cam, c->spd, refl, rgb);
	for (int k = 0; k < 3; k++)
		rgb[k] /= c->white[k];
}

static int solve3(double a[3][3], double b[3][3], double x[3][3])
{
	/* x = b a^-1 (rows of b against the matrix a), by the adjugate. */
	double inv[3][3], det;

	inv[0][0] = a[1][1] * a[2][2] - a[1][2] * a[2][1];
	inv[0][1] = a[0][2] * a[2][1] - a[0][1] * a[2][2];
	inv[0][2] = a[0][1] * a[1][2] - a[0][2] * a[1][1];
	inv[1][0] = a[1][2] * a[2][0] - a[1][0] * a[2][2];
	inv[1][1] = a[0][0] * a[2][2] - a[0][2] * a[2][0];
	inv[1][2] = a[0][2] * a[1][0] - a[0][0] * a[1][2];
	inv[2][0] = a[1][0] * a[2][1] - a[1][1] * a[2][0];
	inv[2][1] = a[0][1] * a[2][0] - a[0][0] * a[2][1];
	inv[2][2] = a[0][0] * a[1][1] - a[0][1] * a[1][0];
	det = a[0][0] * inv[0][0] + a[0][1] * inv[1][0] + a[0][2] * inv[2][0];
	if (fabs(det) < 1e-12)
		return -1;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			x[i][j] = 0;
			for (int k = 0; k < 3; k++)
				x[i][j] += b[i][k] * inv[k][j] / det;
		}
	return 0;
}

/*
 * The colour matrix: least squares from the camera's white-balanced RGB of
 * the 24 ColorChecker patches to their linear sRGB under D65, each row then
 * scaled so that white stays white.
 */
static int fit_ccm(struct camera *c)
{
	static const double xyz_to_srgb[3][3] = { { 3.2406, -1.5372, -0.4986 },
						  { -0.9689, 1.8758, 0.0415 },
						  { 0.0557, -0.2040, 1.0570 } };
	double ctc[3][3] = { { 0 } }, ttc[3][3] = { { 0 } }, wxyz[3];

	vs_xyz(vs_d65, NULL, wxyz);
	for (int p = 0; p < VS_CC_PATCHES; p++) {
		double cam[3], xyz[3], t[3];

		camera_rgb(c, vs_colorchecker[p].r, cam);
		vs_xyz(vs_d65, vs_colorchecker[p].r, xyz);
		for (int i = 0; i < 3; i++) {
			t[i] = 0;
			for (int k = 0; k < 3; k++)
				t[i] += xyz_to_srgb[i][k] * xyz[k] / wxyz[1];
		}
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++) {
				ctc[i][j] += cam[i] * cam[j];
				ttc[i][j] += t[i] * cam[j];
			}
	}
	if (solve3(ctc, ttc, c->ccm))
		return -1;
	for (int i = 0; i < 3; i++) {
		double s = c->ccm[i][0] + c->ccm[i][1] + c->ccm[i][2];

		for (int j = 0; j < 3; j++)
			c->ccm[i][j] /= s;
	}
	return 0;
}

static int camera_init(struct camera *c, const char *sensor, const char *illuminant)
{
	struct vs_model m;
	char path[4096];

	memset(&m, 0, sizeof(m));
	if (vs_model_find(sensor, path, sizeof(path)) || vs_model_load(path, &m)) {
		fprintf(stderr, "lowcorr: sensor model %s: %s\n", sensor, cisp_last_error());
		return -1;
	}
	c->cam = m.camera;
	c->blur = m.blur_sigma;
	vs_model_free(&m);
	if (vs_illuminant(illuminant, c->spd)) {
		fprintf(stderr, "lowcorr: %s\n", cisp_last_error());
		return -1;
	}
	vs_camera_rgb(&c->cam, c->spd, NULL, c->white);
	if (fit_ccm(c)) {
		fprintf(stderr, "lowcorr: the colour matrix of %s under %s is singular\n", sensor, illuminant);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Materials: a reflectance's white-balanced camera RGB, and mixtures of them. */

struct colour {
	double c[3];
};

static struct colour material(const struct camera *cam, const spectrum refl)
{
	struct colour m;

	camera_rgb(cam, refl, m.c);
	return m;
}

static struct colour mix(struct colour a, struct colour b, double t)
{
	struct colour m;

	for (int k = 0; k < 3; k++)
		m.c[k] = a.c[k] + (b.c[k] - a.c[k]) * t;
	return m;
}

static struct colour scale(struct colour a, double s)
{
	for (int k = 0; k < 3; k++)
		a.c[k] *= s;
	return a;
}

static double sigmoid(double t)
{
	return 1 / (1 + exp(-t));
}

static double gauss(double x, double mu, double sigma)
{
	return exp(-0.5 * (x - mu) * (x - mu) / (sigma * sigma));
}

/* The dye families of the design set: steep edges, low minima. */
enum hue { RED, ORANGE, YELLOW, GREEN, CYAN, BLUE, VIOLET, MAGENTA, HUES };

static void dye(struct rng *r, enum hue h, spectrum refl)
{
	double lo = range(r, 0.03, 0.12), hi = range(r, 0.5, 0.9), w = range(r, 10, 25);
	double e = range(r, 0, 1), s = range(r, 0, 1);

	for (int i = 0; i < VS_BANDS; i++) {
		double l = vs_lambda(i), f = 0;

		switch (h) {
		case RED: f = sigmoid((l - (595 + 25 * e)) / w); break;
		case ORANGE: f = sigmoid((l - (565 + 20 * e)) / w); break;
		case YELLOW: f = sigmoid((l - (500 + 25 * e)) / w); break;
		case GREEN: f = gauss(l, 525 + 30 * e, 25 + 20 * s); break;
		case CYAN: f = sigmoid((505 + 30 * e - l) / w) * sigmoid((l - 410) / 8); break;
		case BLUE: f = gauss(l, 450 + 20 * e, 25 + 20 * s); break;
		case VIOLET: f = fmax(gauss(l, 420 + 20 * e, 25), 0.8 * sigmoid((l - (640 + 30 * s)) / w)); break;
		case MAGENTA: f = 1 - gauss(l, 540 + 25 * e, 28 + 16 * s); break;
		case HUES: break;
		}
		refl[i] = lo + (hi - lo) * f;
	}
}

/* A dye of random hue, on a surface of random lightness (a dyed cloth, a dark petal, ...). */
static struct colour random_dye(struct rng *r, const struct camera *cam)
{
	spectrum refl;

	dye(r, (enum hue)pick(r, HUES), refl);
	return scale(material(cam, refl), range(r, LIGHTNESS, 1));
}

/*
 * The spectra of the held-out set: one or two random Gaussian bands,
 * normalised to a peak of 1 and raised to a power (a higher power, a
 * purer colour).
 */
static struct colour random_smooth(struct rng *r, const struct camera *cam)
{
	spectrum refl;
	double mu[2] = { range(r, 400, 700), range(r, 400, 700) };
	double sd[2] = { range(r, 15, 60), range(r, 15, 60) }, w2 = uni(r) < 0.4 ? range(r, 0.3, 1) : 0;
	double p = range(r, 1.5, 4), lo = range(r, 0.01, 0.06), hi = range(r, 0.5, 0.9), peak = 0;

	for (int i = 0; i < VS_BANDS; i++) {
		refl[i] = gauss(vs_lambda(i), mu[0], sd[0]) + w2 * gauss(vs_lambda(i), mu[1], sd[1]);
		peak = fmax(peak, refl[i]);
	}
	for (int i = 0; i < VS_BANDS; i++)
		refl[i] = lo + (hi - lo) * pow(refl[i] / peak, p);
	return material(cam, refl);
}

static struct colour grey(const struct camera *cam, double v)
{
	spectrum refl;

	for (int i = 0; i < VS_BANDS; i++)
		refl[i] = v;
	return material(cam, refl);
}

/* ------------------------------------------------------------------------ */
/* The canvas: SS x SS samples per pixel of white-balanced camera RGB. */

struct canvas {
	int w, h;     /* in samples */
	float *rgb;   /* 3 per sample */
	float *layer; /* per sample: the layer of the object painted there, for shadows */
	float now;    /* the layer put() paints */
	double scale; /* scene units per sample: 1 / (SS zoom) */
};

static void put(struct canvas *cv, int x, int y, struct colour c)
{
	size_t i = (size_t)y * cv->w + x;

	for (int k = 0; k < 3; k++)
		cv->rgb[3 * i + k] = (float)c.c[k];
	cv->layer[i] = cv->now;
}

/* Later objects lie above earlier ones. */
static void next_layer(struct canvas *cv)
{
	cv->now++;
}

/* Centre of sample x (or y) in scene units (pixels of the image at zoom 1). */
static double px(const struct canvas *cv, int x)
{
	return (x + 0.5) * cv->scale;
}

/* The sample rows and columns a box of scene coordinates covers, clipped to the canvas. */
static void box(const struct canvas *cv, double x0, double y0, double x1, double y1, int b[4])
{
	b[0] = (int)fmax(0, floor(x0 / cv->scale));
	b[1] = (int)fmax(0, floor(y0 / cv->scale));
	b[2] = (int)fmin(cv->w, ceil(x1 / cv->scale) + 1);
	b[3] = (int)fmin(cv->h, ceil(y1 / cv->scale) + 1);
}

static double frac(double v)
{
	return v - floor(v);
}

/* A random value in [-1, 1] for lattice point (i, j), fixed by @seed. */
static double lattice(uint64_t seed, int i, int j)
{
	struct rng g = { seed ^ ((uint64_t)(uint32_t)i * 0x9e3779b1u) ^ ((uint64_t)(uint32_t)j << 32) };

	return 2 * uni(&g) - 1;
}

/* Smooth noise: the lattice values at spacing @cell interpolated with smoothstep weights. */
static double value_noise(uint64_t seed, double x, double y, double cell)
{
	double u = x / cell, v = y / cell, fu = frac(u), fv = frac(v);
	int i = (int)floor(u), j = (int)floor(v);

	fu = fu * fu * (3 - 2 * fu);
	fv = fv * fv * (3 - 2 * fv);
	return (1 - fv) * ((1 - fu) * lattice(seed, i, j) + fu * lattice(seed, i + 1, j)) +
	       fv * ((1 - fu) * lattice(seed, i, j + 1) + fu * lattice(seed, i + 1, j + 1));
}

/*
 * Light over a finished scene: a smooth field (three random long waves,
 * scaled to lo..1) times cast shadows. A sample is shaded where objects of
 * a higher layer lie towards the light, looked up at 8 distances from 0.5 to
 * 1 times @reach pixels, so shadows have soft edges. reach 0: no shadows.
 * Then the grain of every surface (fibres, cells, paper): a multiplicative
 * noise of GRAIN in amplitude at 1, 2 and 4 scene units.
 */
static void light(struct canvas *cv, struct rng *r, double lo, double reach)
{
	double kx[3], ky[3], ph[3], dir = range(r, 0, 2 * M_PI), wpx = cv->w * cv->scale;
	uint64_t grain = next64(r);

	for (int j = 0; j < 3; j++) {
		double wl = range(r, 0.4, 1.6) * wpx, a = range(r, 0, M_PI);

		kx[j] = 2 * M_PI * cos(a) / wl;
		ky[j] = 2 * M_PI * sin(a) / wl;
		ph[j] = range(r, 0, 2 * M_PI);
	}
	for (int y = 0; y < cv->h; y++)
		for (int x = 0; x < cv->w; x++) {
			size_t i = (size_t)y * cv->w + x;
			double f = 0, shade = 1;

			for (int j = 0; j < 3; j++)
				f += cos(kx[j] * px(cv, x) + ky[j] * px(cv, y) + ph[j]) / 6;
			f = lo + (1 - lo) * (0.5 + f);
			for (int k = 0; reach > 0 && k < 8; k++) {
				double d = reach * (0.5 + k / 14.0) / cv->scale;
				int sx = x + (int)lround(d * cos(dir)), sy = y + (int)lround(d * sin(dir));

				if (sx >= 0 && sy >= 0 && sx < cv->w && sy < cv->h && cv->layer[(size_t)sy * cv->w + sx] > cv->layer[i])
					shade -= 0.6 / 8;
			}
			f *= 1 + GRAIN * (0.5 * value_noise(grain, px(cv, x), px(cv, y), 1) +
					  0.3 * value_noise(grain + 1, px(cv, x), px(cv, y), 2) +
					  0.2 * value_noise(grain + 2, px(cv, x), px(cv, y), 4));
			for (int k = 0; k < 3; k++)
				cv->rgb[3 * i + k] *= (float)(f * shade);
		}
}

/* ------------------------------------------------------------------------ */
/* Design set: flowers. */

static void leaves(struct canvas *cv, struct rng *r, const struct camera *cam)
{
	struct colour soil = scale(random_dye(r, cam), 0.3);
	double wpx = cv->w * cv->scale, hpx = cv->h * cv->scale;
	int n = 30 + pick(r, 30);

	for (int y = 0; y < cv->h; y++)
		for (int x = 0; x < cv->w; x++)
			put(cv, x, y, soil);
	for (int i = 0; i < n; i++) {
		spectrum refl;
		struct colour leaf, vein;

		next_layer(cv);
		double cx = range(r, 0, wpx), cy = range(r, 0, hpx), len = range(r, 0.06, 0.22) * wpx, wid = len * range(r, 0.25, 0.45);
		double a = range(r, 0, M_PI), ca = cos(a), sa = sin(a), nv = range(r, 0.12, 0.25);
		int b[4];

		dye(r, GREEN, refl);
		leaf = scale(material(cam, refl), range(r, 0.5, 1));
		dye(r, uni(r) < 0.5 ? YELLOW : GREEN, refl);
		vein = material(cam, refl);
		box(cv, cx - len, cy - len, cx + len, cy + len, b);
		for (int y = b[1]; y < b[3]; y++)
			for (int x = b[0]; x < b[2]; x++) {
				double u = ((px(cv, x) - cx) * ca + (px(cv, y) - cy) * sa) / len;
				double v = (-(px(cv, x) - cx) * sa + (px(cv, y) - cy) * ca) / wid;
				double edge = 1 - u * u, side;

				if (edge <= 0 || v * v >= edge)
					continue;
				/* midrib and side veins, shading across the leaf */
				side = fabs(frac((u - fabs(v) * 0.6) / nv) - 0.5);
				struct colour c = scale(leaf, 0.7 + 0.3 * v / sqrt(edge));

				if (fabs(v) * wid < 1.0)
					c = vein;
				else if (side < 0.06)
					c = mix(c, vein, 0.7);
				put(cv, x, y, c);
			}
	}
}

static void flower(struct canvas *cv, struct rng *r, const struct camera *cam)
{
	double wpx = cv->w * cv->scale, hpx = cv->h * cv->scale;
	double cx = range(r, 0, wpx), cy = range(r, 0, hpx), rad = range(r, 0.1, 0.33) * wpx, rc = rad * range(r, 0.16, 0.3);
	int k = 5 + pick(r, 8), nv = k * (3 + pick(r, 4));
	double phi = range(r, 0, 2 * M_PI), sharp = range(r, 0.4, 1.2), ring = range(r, 0.25, 0.6);
	struct colour petal = random_dye(r, cam), eye = random_dye(r, cam);
	/* veins of a second dye, or darker ridges of the petal's own */
	struct colour vein = uni(r) < 0.5 ? random_dye(r, cam) : scale(petal, 0.35);
	struct colour floret = random_dye(r, cam), gap = scale(random_dye(r, cam), 0.35);
	int b[4];

	next_layer(cv);
	box(cv, cx - rad, cy - rad, cx + rad, cy + rad, b);
	for (int y = b[1]; y < b[3]; y++)
		for (int x = b[0]; x < b[2]; x++) {
			double dx = px(cv, x) - cx, dy = px(cv, y) - cy, d = sqrt(dx * dx + dy * dy), t = atan2(dy, dx);
			double outer = rad * (0.35 + 0.65 * pow(fabs(cos(k * (t - phi) / 2)), sharp));
			double inner = 0.7 * rad * (0.35 + 0.65 * pow(fabs(sin(k * (t - phi) / 2)), sharp));
			double edge = d < inner ? inner : outer, veins;
			struct colour c;

			if (d >= edge)
				continue;
			/* fine veins, an eye of another dye near the centre */
			veins = pow(0.5 + 0.5 * cos(nv * (t - phi)), 10) * fmin(1, d / (0.5 * rad));
			c = mix(petal, vein, veins);
			if (d < rc * (1 + ring * 2))
				c = mix(eye, c, fmax(0, (d - rc) / (rc * ring * 2)));
			/* darker towards the centre, fine lengthwise ridges */
			put(cv, x, y, scale(c, (0.55 + 0.45 * d / edge) * (0.8 + 0.2 * cos(2.3 * nv * (t - phi)))));
		}
	/* the seed head: florets on a Fibonacci spiral, each a shaded dome */
	int n = (int)(rc * rc / 6);
	box(cv, cx - rc, cy - rc, cx + rc, cy + rc, b);
	for (int y = b[1]; y < b[3]; y++)
		for (int x = b[0]; x < b[2]; x++) {
			double dx = px(cv, x) - cx, dy = px(cv, y) - cy;

			if (dx * dx + dy * dy < rc * rc)
				put(cv, x, y, gap);
		}
	for (int i = 0; i < n; i++) {
		double fr = rc * sqrt((i + 0.5) / n), fa = i * 2.39996323, fx = cx + fr * cos(fa), fy = cy + fr * sin(fa);
		double s = 0.9 * rc / sqrt((double)n);

		box(cv, fx - s, fy - s, fx + s, fy + s, b);
		for (int y = b[1]; y < b[3]; y++)
			for (int x = b[0]; x < b[2]; x++) {
				double dx = px(cv, x) - fx, dy = px(cv, y) - fy, q = (dx * dx + dy * dy) / (s * s);

				if (q < 1)
					put(cv, x, y, scale(floret, 1 - 0.5 * q));
			}
	}
}

static void scene_flowers(struct canvas *cv, struct rng *r, const struct camera *cam)
{
	int n = 3 + pick(r, 4);

	leaves(cv, r, cam);
	for (int i = 0; i < n; i++)
		flower(cv, r, cam);
	light(cv, r, 0.45, range(r, 3, 9));
}

/* ------------------------------------------------------------------------ */
/* Design set: woven threads. */

struct weave {
	double pitch, angle, fold, fold_f;
	int kind;            /* 0 plain, 1 twill 2/2, 2 satin 5 */
	int nwarp, nweft;    /* lengths of the colour sequences */
	struct colour warp[12], weft[12];
};

static void weave_init(struct weave *wv, struct rng *r, const struct camera *cam)
{
	struct colour palette[4];
	int np = 2 + pick(r, 3);

	for (int i = 0; i < np; i++)
		palette[i] = random_dye(r, cam);
	wv->pitch = range(r, 4, 10);
	wv->angle = range(r, -0.5, 0.5);
	wv->fold = range(r, 0, 2) * wv->pitch;
	wv->fold_f = range(r, 0.01, 0.04);
	wv->kind = pick(r, 3);
	/* tartan-like sequences: runs of 1..4 threads of a palette colour */
	for (int s = 0; s < 2; s++) {
		struct colour *seq = s ? wv->weft : wv->warp;
		int n = 0;

		while (n < 12) {
			struct colour c = palette[pick(r, np)];

			for (int run = 1 + pick(r, 4); run > 0 && n < 12; run--)
				seq[n++] = c;
		}
		*(s ? &wv->nweft : &wv->nwarp) = 4 + pick(r, 9);
	}
}

static struct colour weave_at(const struct weave *wv, double x, double y)
{
	double u = x * cos(wv->angle) + y * sin(wv->angle), v = -x * sin(wv->angle) + y * cos(wv->angle);
	double fu, fv, across, along;
	int i, j, warp_up;

	v += wv->fold * sin(u * wv->fold_f);
	i = (int)floor(u / wv->pitch);
	j = (int)floor(v / wv->pitch);
	fu = frac(u / wv->pitch);
	fv = frac(v / wv->pitch);
	switch (wv->kind) {
	case 0: warp_up = (i + j) & 1; break;
	case 1: warp_up = ((i + j) & 3) < 2; break;
	default: warp_up = ((2 * i + j) % 5 + 5) % 5 == 0; break;
	}
	/* the thread on top, shaded round across it, twisted fibres along it */
	across = warp_up ? fu : fv;
	along = warp_up ? fv : fu;
	double shade = sqrt(fmax(0, sin(M_PI * across))) * (0.75 + 0.25 * cos(2 * M_PI * (3 * along + across)));
	int k = warp_up ? ((i % wv->nwarp) + wv->nwarp) % wv->nwarp : ((j % wv->nweft) + wv->nweft) % wv->nweft;

	return scale(warp_up ? wv->warp[k] : wv->weft[k], 0.25 + 0.75 * shade);
}

static void scene_threads(struct canvas *cv, struct rng *r, const struct camera *cam)
{
	struct weave wv[3];
	double wpx = cv->w * cv->scale, hpx = cv->h * cv->scale;
	double bx = range(r, 0.3, 0.7) * wpx, by = range(r, 0.3, 0.7) * hpx, wav = range(r, 0.02, 0.08) * wpx;
	int n = 2 + pick(r, 2);

	for (int i = 0; i < n; i++)
		weave_init(&wv[i], r, cam);
	/* swatches split by wavy seams, darkened along them */
	for (int y = 0; y < cv->h; y++)
		for (int x = 0; x < cv->w; x++) {
			double X = px(cv, x), Y = px(cv, y);
			double sx = X - bx - wav * sin(Y / (0.07 * wpx)), sy = Y - by - wav * sin(X / (0.1 * wpx));
			int s = sx < 0 ? 0 : (n == 2 || sy < 0) ? 1 : 2;

			cv->now = (float)s; /* swatches overlap in order */
			put(cv, x, y, weave_at(&wv[s], X, Y));
		}
	light(cv, r, 0.5, range(r, 2, 6));
}

/* ------------------------------------------------------------------------ */
/* Design set: high-chroma charts. */

/* Fraction of dye b (against dye a) of a chart panel at (u, v) in 0..1 across a panel of s pixels. */
static double panel_pattern(int kind, double u, double v, double s, const double prm[3])
{
	double x = (u - 0.5) * s, y = (v - 0.5) * s;

	switch (kind) {
	case 0: /* zone plate up to 0.3 cycles per pixel at the edge */
		return 0.5 + 0.5 * cos(M_PI * 0.3 * (x * x + y * y) / (0.5 * s));
	case 1: /* a grating chirping from 0.03 to 0.3 cycles per pixel */
	{
		double t = x * cos(prm[0]) + y * sin(prm[0]), f0 = 0.03, f1 = 0.3;
		double ph = 2 * M_PI * (f0 * (t + s / 2) + (f1 - f0) * (t + s / 2) * (t + s / 2) / (2 * s));

		return 0.5 + 0.5 * sin(ph);
	}
	case 2: /* Siemens star of 48 spokes */
		return cos(24 * atan2(y, x)) > 0;
	case 3: /* rotated checkerboard */
	{
		double p = prm[1], c = cos(prm[0]), sn = sin(prm[0]);

		return ((int)floor((x * c + y * sn) / p) + (int)floor((-x * sn + y * c) / p)) & 1;
	}
	case 4: /* "text": cells of 2..4 strokes 1.2 to 3 pixels wide */
	{
		double cell = 8 + 6 * prm[2];
		int cx = (int)floor(x / cell), cy = (int)floor(y / cell);
		struct rng g = { (uint64_t)(cx * 7919 + cy * 104729) ^ (uint64_t)(prm[1] * 1e6) };
		double lx = frac(x / cell) * cell, ly = frac(y / cell) * cell;
		int strokes = 2 + pick(&g, 3);

		for (int i = 0; i < strokes; i++) {
			double w = range(&g, 1.2, 3), p = range(&g, 1.5, cell - 1.5), q0 = range(&g, 0, cell / 2);
			double q1 = range(&g, cell / 2, cell);
			int dir = pick(&g, 3);
			double a = dir == 0 ? lx : dir == 1 ? ly : (lx + ly) / 2, b = dir == 0 ? ly : dir == 1 ? lx : lx - ly + cell / 2;

			if (fabs(b - p) < w / 2 && a > q0 && a < q1)
				return 1;
		}
		return 0;
	}
	default: /* concentric rings, 3 to 8 pixels wide */
		return frac(sqrt(x * x + y * y) / (2 * prm[1])) < 0.5;
	}
}

static void scene_chart(struct canvas *cv, struct rng *r, const struct camera *cam)
{
	enum { P = 4 };
	struct colour a[P][P], b[P][P], white = grey(cam, 0.85);
	double prm[P][P][3], s = cv->w * cv->scale / P;
	int kind[P][P];

	for (int i = 0; i < P; i++)
		for (int j = 0; j < P; j++) {
			/* two dyes, or a dye and a lighter or darker version of it */
			a[i][j] = random_dye(r, cam);
			b[i][j] = uni(r) < 0.5 ? random_dye(r, cam) : scale(a[i][j], uni(r) < 0.5 ? 0.3 : 1.6);
			kind[i][j] = pick(r, 6);
			prm[i][j][0] = range(r, 0, M_PI);
			prm[i][j][1] = range(r, 3, 8);
			prm[i][j][2] = uni(r);
		}
	for (int y = 0; y < cv->h; y++)
		for (int x = 0; x < cv->w; x++) {
			double X = px(cv, x), Y = px(cv, y);
			int i = (int)(Y / s), j = (int)(X / s);
			double u = X / s - j, v = Y / s - i;

			if (fmin(fmin(u, v), fmin(1 - u, 1 - v)) * s < 2) {
				put(cv, x, y, white);
				continue;
			}
			put(cv, x, y, mix(a[i][j], b[i][j], panel_pattern(kind[i][j], u, v, s, prm[i][j])));
		}
	light(cv, r, 0.8, 0);
}

/* ------------------------------------------------------------------------ */
/* Design set: CMYK halftone prints. */

/* Ink transmittances (one pass), paper reflectance. */
static void inks(struct rng *r, spectrum t[4], spectrum paper)
{
	double ec = range(r, -10, 10), em = range(r, -10, 10), ey = range(r, -10, 10);

	for (int i = 0; i < VS_BANDS; i++) {
		double l = vs_lambda(i);

		t[0][i] = 0.06 + 0.9 * sigmoid((585 + ec - l) / 14) * sigmoid((l - 405) / 10); /* cyan */
		t[1][i] = 0.05 + 0.93 * (1 - gauss(l, 545 + em, 38));                           /* magenta */
		t[2][i] = 0.04 + 0.94 * sigmoid((l - (495 + ey)) / 10);                          /* yellow */
		t[3][i] = 0.12;                                                                  /* black */
		paper[i] = 0.86 + 0.04 * sigmoid((l - 430) / 15);
	}
}

struct blob {
	double x, y, s, c[4];
};

static void scene_halftone(struct canvas *cv, struct rng *r, const struct camera *cam)
{
	enum { NB = 24, NS = 6 };
	static const double angles[4] = { 15, 75, 0, 45 };
	spectrum t[4], paper;
	struct colour neugebauer[16];
	struct blob blobs[NB], solids[NS];
	double wpx = cv->w * cv->scale, hpx = cv->h * cv->scale, pitch = range(r, 6, 12);

	inks(r, t, paper);
	/* the 16 overprints of the 4 inks on paper, light passing each ink twice */
	for (int m = 0; m < 16; m++) {
		spectrum refl;

		for (int i = 0; i < VS_BANDS; i++) {
			refl[i] = paper[i];
			for (int k = 0; k < 4; k++)
				if (m >> k & 1)
					refl[i] *= t[k][i] * t[k][i];
		}
		neugebauer[m] = material(cam, refl);
	}
	/* the picture: smooth blobs of ink coverage, and solid discs of strong colours */
	for (int i = 0; i < NB; i++) {
		blobs[i] = (struct blob){ range(r, 0, wpx), range(r, 0, hpx), range(r, 0.04, 0.23) * wpx, { 0 } };
		blobs[i].c[pick(r, 3)] = range(r, 0.3, 0.9);
		if (uni(r) < 0.5)
			blobs[i].c[pick(r, 3)] += range(r, 0, 0.6);
		blobs[i].c[3] = uni(r) < 0.1 ? range(r, 0, 0.4) : 0;
	}
	for (int i = 0; i < NS; i++) {
		solids[i] = (struct blob){ range(r, 0, wpx), range(r, 0, hpx), range(r, 0.03, 0.12) * wpx, { 0 } };
		for (int k = 0; k < 3; k++)
			solids[i].c[k] = uni(r) < 0.5 ? range(r, 0.6, 1) : range(r, 0, 0.15);
	}
	for (int y = 0; y < cv->h; y++)
		for (int x = 0; x < cv->w; x++) {
			double X = px(cv, x), Y = px(cv, y), cov[4] = { 0 };
			int m = 0;

			for (int i = 0; i < NB; i++) {
				double g = exp(-((X - blobs[i].x) * (X - blobs[i].x) + (Y - blobs[i].y) * (Y - blobs[i].y)) /
					       (2 * blobs[i].s * blobs[i].s));

				for (int k = 0; k < 4; k++)
					cov[k] += blobs[i].c[k] * g;
			}
			for (int i = 0; i < NS; i++)
				if ((X - solids[i].x) * (X - solids[i].x) + (Y - solids[i].y) * (Y - solids[i].y) <
				    solids[i].s * solids[i].s)
					memcpy(cov, solids[i].c, sizeof(cov));
			/* each ink a screen of round dots at its angle; a dot covers where the spot function is below the coverage */
			for (int k = 0; k < 4; k++) {
				double a = angles[k] * M_PI / 180, u = (X * cos(a) + Y * sin(a)) / pitch;
				double v = (-X * sin(a) + Y * cos(a)) / pitch;
				double spot = 0.5 - 0.25 * (cos(2 * M_PI * u) + cos(2 * M_PI * v));

				if (spot < fmin(1, cov[k]))
					m |= 1 << k;
			}
			put(cv, x, y, neugebauer[m]);
		}
	light(cv, r, 0.75, 0);
}

/* ------------------------------------------------------------------------ */
/* Held-out set: dead leaves, beads, stained glass, strands. */

static void fill(struct canvas *cv, struct colour c)
{
	for (int y = 0; y < cv->h; y++)
		for (int x = 0; x < cv->w; x++)
			put(cv, x, y, c);
}

static void scene_dead_leaves(struct canvas *cv, struct rng *r, const struct camera *cam)
{
	double wpx = cv->w * cv->scale, hpx = cv->h * cv->scale;

	fill(cv, random_smooth(r, cam));
	/* radii with density ~ 1 / r^3 between 3 and 150 pixels, painted in order */
	for (int i = 0; i < 3000; i++) {
		double rad = 3 / sqrt(1 - uni(r) * (1 - 9.0 / 22500)), cx = range(r, -rad, wpx + rad);
		double cy = range(r, -rad, hpx + rad), gx = range(r, -0.3, 0.3), gy = range(r, -0.3, 0.3);
		double stripes = uni(r) < 0.1 ? range(r, 3, 8) : 0, sa = range(r, 0, M_PI);
		struct colour c = random_smooth(r, cam), c2 = random_smooth(r, cam);
		int b[4];

		box(cv, cx - rad, cy - rad, cx + rad, cy + rad, b);
		for (int y = b[1]; y < b[3]; y++)
			for (int x = b[0]; x < b[2]; x++) {
				double dx = (px(cv, x) - cx) / rad, dy = (px(cv, y) - cy) / rad;
				struct colour s = c;

				if (dx * dx + dy * dy >= 1)
					continue;
				if (stripes > 0 && frac(((px(cv, x) - cx) * cos(sa) + (px(cv, y) - cy) * sin(sa)) / stripes) < 0.5)
					s = c2;
				put(cv, x, y, scale(s, 0.75 + gx * dx + gy * dy));
			}
	}
}

static void scene_beads(struct canvas *cv, struct rng *r, const struct camera *cam)
{
	double wpx = cv->w * cv->scale, hpx = cv->h * cv->scale;
	struct colour white = grey(cam, 1.0);
	double lx = range(r, -0.5, 0.5), ly = range(r, -0.7, -0.2), lz = sqrt(1 - lx * lx - ly * ly);

	fill(cv, scale(random_smooth(r, cam), 0.3));
	/* about three layers of beads over the frame */
	for (int i = 0, n = (int)(3 * wpx * hpx / (M_PI * 100)); i < n; i++) {
		double rad = range(r, 5, 14), cx = range(r, 0, wpx), cy = range(r, 0, hpx);
		struct colour c = random_smooth(r, cam);
		int b[4];

		box(cv, cx - rad, cy - rad, cx + rad, cy + rad, b);
		for (int y = b[1]; y < b[3]; y++)
			for (int x = b[0]; x < b[2]; x++) {
				double dx = (px(cv, x) - cx) / rad, dy = (px(cv, y) - cy) / rad, q = dx * dx + dy * dy, nz, d, h;

				if (q >= 1)
					continue;
				nz = sqrt(1 - q);
				d = fmax(0, dx * lx + dy * ly + nz * lz);
				/* Blinn highlight towards a viewer on the z axis */
				h = pow(fmax(0, (dx * lx + dy * ly + nz * (lz + 1)) / sqrt(lx * lx + ly * ly + (lz + 1) * (lz + 1))), 60);
				put(cv, x, y, mix(scale(c, 0.15 + 0.85 * d), white, 0.6 * h));
			}
	}
}

static void scene_glass(struct canvas *cv, struct rng *r, const struct camera *cam)
{
	enum { MAXC = 300 };
	double wpx = cv->w * cv->scale, hpx = cv->h * cv->scale, sx[MAXC], sy[MAXC], lead = range(r, 2, 4);
	struct colour cc[MAXC], dark = grey(cam, 0.03);
	int n = 40 + pick(r, 160);

	for (int i = 0; i < n; i++) {
		sx[i] = range(r, 0, wpx);
		sy[i] = range(r, 0, hpx);
		cc[i] = random_smooth(r, cam);
	}
	for (int y = 0; y < cv->h; y++)
		for (int x = 0; x < cv->w; x++) {
			double X = px(cv, x), Y = px(cv, y), d1 = 1e30, edge = 1e30;
			int best = 0;

			for (int i = 0; i < n; i++) {
				double d = (X - sx[i]) * (X - sx[i]) + (Y - sy[i]) * (Y - sy[i]);

				if (d < d1) {
					d1 = d;
					best = i;
				}
			}
			/* distance to the cell's edge: to the nearest bisector of its seed and another */
			for (int i = 0; i < n; i++) {
				double ux = sx[i] - sx[best], uy = sy[i] - sy[best], len = sqrt(ux * ux + uy * uy);

				if (i != best)
					edge = fmin(edge, (len / 2 - ((X - sx[best]) * ux + (Y - sy[best]) * uy) / len));
			}
			if (edge < lead / 2)
				put(cv, x, y, dark);
			else
				put(cv, x, y, scale(cc[best], 0.8 + 0.2 * sin(X * 0.21 + 3 * sin(Y * 0.05)) * sin(Y * 0.17)));
		}
}

static void scene_strands(struct canvas *cv, struct rng *r, const struct camera *cam)
{
	double wpx = cv->w * cv->scale, hpx = cv->h * cv->scale, flow = range(r, 0, M_PI);
	int n = 100 + pick(r, 200);

	fill(cv, random_smooth(r, cam));
	for (int i = 0; i < n; i++) {
		double x0 = range(r, -0.1, 1.1) * wpx, y0 = range(r, -0.1, 1.1) * hpx, len = range(r, 0.1, 0.8) * wpx;
		double a = flow + range(r, -0.4, 0.4), bend = range(r, -2, 2) / wpx, w = range(r, 1.5, 4);
		struct colour c = random_smooth(r, cam);

		/* a curve of slowly turning direction, drawn as discs a quarter of its width apart */
		for (double t = 0; t < len; t += w / 4) {
			double cx = x0 + t * cos(a + bend * t), cy = y0 + t * sin(a + bend * t);
			int b[4];

			box(cv, cx - w, cy - w, cx + w, cy + w, b);
			for (int y = b[1]; y < b[3]; y++)
				for (int x = b[0]; x < b[2]; x++) {
					double dx = px(cv, x) - cx, dy = px(cv, y) - cy, q = (dx * dx + dy * dy) / (w * w / 4);

					if (q < 1)
						put(cv, x, y, scale(c, 1 - 0.4 * q));
				}
		}
	}
}

/* ------------------------------------------------------------------------ */
/* The sets, and writing an image. */

typedef void (*scene_fn)(struct canvas *cv, struct rng *r, const struct camera *cam);

struct set {
	const char *name, *sensor, *illuminant, *prefix;
	int width, height, count;
	double zoom; /* image pixels per scene unit */
	const char *const *kinds;
	const scene_fn *scenes;
	int nkinds;
};

static const char *const design_kinds[] = { "flowers", "threads", "chart", "halftone" };
static const scene_fn design_scenes[] = { scene_flowers, scene_threads, scene_chart, scene_halftone };
static const char *const heldout_kinds[] = { "leaves", "beads", "glass", "strands" };
static const scene_fn heldout_scenes[] = { scene_dead_leaves, scene_beads, scene_glass, scene_strands };

static const struct set sets[] = {
	{ "design", "cisp-12m12", "D65", "a", 512, 512, 16, ZOOM, design_kinds, design_scenes, 4 },
	{ "heldout", "cisp-8m10", "D50", "b", 512, 384, 14, ZOOM, heldout_kinds, heldout_scenes, 4 },
};

/* The lens: a Gaussian point spread of sigma @blur pixels over the samples, rows then columns, reflected at the edges. */
static int lens_blur(struct canvas *cv, double blur)
{
	double sigma = blur * SS;
	int rad = (int)ceil(3 * sigma), n = cv->w > cv->h ? cv->w : cv->h;
	float *k = malloc((size_t)(2 * rad + 1) * sizeof(float)), *line = malloc((size_t)n * 3 * sizeof(float));
	double sum = 0;

	if (!k || !line) {
		free(k);
		free(line);
		fprintf(stderr, "lowcorr: out of memory\n");
		return -1;
	}
	for (int i = -rad; i <= rad; i++)
		sum += k[i + rad] = (float)gauss(i, 0, sigma);
	for (int i = 0; i <= 2 * rad; i++)
		k[i] /= (float)sum;
	for (int pass = 0; pass < 2; pass++) {
		int len = pass ? cv->h : cv->w, lines = pass ? cv->w : cv->h;
		size_t step = pass ? (size_t)cv->w * 3 : 3, next = pass ? 3 : (size_t)cv->w * 3;

		for (int l = 0; l < lines; l++) {
			float *p = cv->rgb + (size_t)l * next;

			for (int i = 0; i < len; i++)
				for (int c = 0; c < 3; c++)
					line[3 * i + c] = p[(size_t)i * step + c];
			for (int i = 0; i < len; i++)
				for (int c = 0; c < 3; c++) {
					float v = 0;

					for (int j = -rad; j <= rad; j++) {
						int t = i + j < 0 ? -(i + j) : i + j >= len ? 2 * len - 2 - (i + j) : i + j;

						v += k[j + rad] * line[3 * t + c];
					}
					p[(size_t)i * step + c] = v;
				}
		}
	}
	free(k);
	free(line);
	return 0;
}

static double srgb_encode(double v)
{
	v = fmin(1, fmax(0, v));
	return v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055;
}

/*
 * Into the sRGB gamut: a colour with a channel outside 0..1 is moved towards
 * the grey of its luminance just far enough (hue kept, chroma reduced), as
 * a photograph renders colours more saturated than sRGB holds.
 */
static void gamut_map(double c[3])
{
	double y = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2], t = 1;

	y = fmin(1, fmax(0, y));
	for (int k = 0; k < 3; k++) {
		if (c[k] < 0)
			t = fmin(t, y / (y - c[k]));
		else if (c[k] > 1)
			t = fmin(t, (1 - y) / (c[k] - y));
	}
	for (int k = 0; k < 3; k++)
		c[k] = y + t * (c[k] - y);
}

/* Average each pixel's samples, colour matrix, gamut mapping, sRGB encoding, 8 bits. */
/* The image as 8-bit sRGB at @path, replacing a file there only with @replace (--force). */
static int write_image(const struct canvas *cv, const struct camera *cam, const char *path, int replace)
{
	struct cisp_output_file *file;
	struct cisp_raster out = { 0 };
	int w = cv->w / SS, h = cv->h / SS, ret;

	ret = cisp_raster_alloc(&out, (uint32_t)w, (uint32_t)h, 3, 255);
	if (ret)
		return ret;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			double cam_rgb[3] = { 0 };

			for (int j = 0; j < SS; j++)
				for (int i = 0; i < SS; i++)
					for (int k = 0; k < 3; k++)
						cam_rgb[k] += cv->rgb[3 * ((size_t)(y * SS + j) * cv->w + x * SS + i) + k];
			double srgb[3] = { 0 };

			for (int k = 0; k < 3; k++)
				for (int m = 0; m < 3; m++)
					srgb[k] += cam->ccm[k][m] * cam_rgb[m] / (SS * SS);
			gamut_map(srgb);
			for (int k = 0; k < 3; k++)
				out.data[((size_t)y * w + x) * 3 + k] = (uint16_t)lround(255 * srgb_encode(srgb[k]));
		}
	ret = cisp_output_file_create(&file, path, replace ? CISP_OUTPUT_REPLACE : 0);
	if (!ret)
		ret = cisp_output_file_finish(file, cisp_raster_write_to(file, &out));
	cisp_raster_free(&out);
	return ret;
}

static int render_set(const struct set *s, uint64_t seed, const char *dir, int replace)
{
	struct camera cam;
	struct canvas cv = { s->width * SS, s->height * SS, NULL, NULL, 0, 1.0 / (SS * s->zoom) };
	int ret = 0;

	if (camera_init(&cam, s->sensor, s->illuminant))
		return -1;
	cv.rgb = malloc((size_t)cv.w * cv.h * 3 * sizeof(float));
	cv.layer = malloc((size_t)cv.w * cv.h * sizeof(float));
	if (!cv.rgb || !cv.layer) {
		free(cv.rgb);
		free(cv.layer);
		fprintf(stderr, "lowcorr: out of memory\n");
		return -1;
	}
	for (int i = 0; i < s->count && !ret; i++) {
		/* image i: kind i mod the kinds, its own stream of random numbers */
		struct rng r = { seed * 1000003u + (uint64_t)i * 7777777u + (s->prefix[0] == 'b' ? 0x5bd1e995u : 0) };
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s%02d-%s.png", dir, s->prefix, i + 1, s->kinds[i % s->nkinds]);
		cv.now = 0;
		s->scenes[i % s->nkinds](&cv, &r, &cam);
		ret = lens_blur(&cv, cam.blur);
		if (!ret)
			ret = write_image(&cv, &cam, path, replace);
		if (ret)
			fprintf(stderr, "lowcorr: %s%s\n", cisp_last_error(), ret == -EEXIST ? " (--force replaces it)" : "");
	}
	free(cv.rgb);
	free(cv.layer);
	return ret;
}

int main(int argc, char **argv)
{
	uint64_t seed = 1;
	int a = 1, replace = 0;

	for (; a < argc && argv[a][0] == '-'; a++) {
		char *end;

		if (!strcmp(argv[a], "--force")) {
			replace = 1;
		} else if (!strcmp(argv[a], "--seed") && a + 1 < argc) {
			seed = strtoull(argv[++a], &end, 10);
			if (!*argv[a] || *end) {
				fprintf(stderr, "lowcorr: --seed '%s' is not a number\n", argv[a]);
				return 2;
			}
		} else {
			break;
		}
	}
	if (argc - a != 2) {
		fprintf(stderr, "usage: lowcorr [--seed N] [--force] design|heldout OUT_DIR\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		if (!strcmp(argv[a], sets[i].name)) {
			return render_set(&sets[i], seed, argv[a + 1], replace) ? 1 : 0;
		}
	fprintf(stderr, "lowcorr: unknown set '%s' (design or heldout)\n", argv[a]);
	return 2;
}
