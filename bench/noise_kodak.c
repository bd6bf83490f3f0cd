/* SPDX-License-Identifier: MIT */
/*
 * noise_kodak: denoise quality on Kodak with simulated sensor noise, and the
 * speed of the denoise stages.
 *
 *   noise_kodak [options] REF.png...          quality table
 *   noise_kodak --speed [options] MOSAIC.pgm  MPix/s of BNR and CNR
 *
 * Quality: each reference (8-bit RGB, taken as linear light) becomes an RGGB
 * 16-bit mosaic (v16 = v8 * 257); seeded Poisson-Gaussian noise is added at
 * each level (docs/stages/cnr.md, "Noise levels and figures"); then
 *   demosaic only:     demosaic -> RGB
 *   with denoise:      BNR -> demosaic -> CSC -> CNR -> inverse CSC -> RGB
 * with the project's stages (src/isp/), the noise profile of the level in
 * the NOISE block and the ABI's default BNR and CNR parameters unless
 * options say otherwise. CPSNR against the reference on an 8-bit scale
 * (16-bit values * 255 / 65535), 10-pixel border; the mean is the mean of the
 * per-image dB values.
 *
 * Options:
 *   --levels LIST       comma list of low, mid, high, clean (default low,mid,high)
 *   --bnr S             BNR strength, Q8.8 (0 = off)
 *   --bnr-mode M        BNR filter: fast (the default) or quality
 *   --cnr S             CNR strength, Q8.8 (0 = off)
 *   --cnr-luma S        CNR luma_strength, Q8.8
 *   --cnr-radius R      CNR radius
 *   --demosaic A        fast (default) or quality
 *   --threads N         worker threads (default 1)
 *   --crop X,Y,W,H      with --crops: the rectangle to cut (repeatable)
 *   --crops DIR         write DIR/<image>_<level>_<x>_<y>.png: reference,
 *                       demosaic only, with denoise, side by side, 3x enlarged
 *   --quiet             only the summary lines
 *   --speed             time BNR and CNR on MOSAIC (a 16-bit grey mosaic,
 *                       RGGB) at the mid level: median MPix/s of --runs runs;
 *                       the quality BNR also through the dsp.h tile
 *                       functions of this CPU (CISP_CPU caps them), checked
 *                       for the reference's bytes
 *   --runs N            speed runs (default 5)
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cisp/error.h>
#include <cisp/params_state.h>
#include <cisp/pool.h>
#include <cisp/raster.h>

#include "isp/bnr.h"
#include "isp/bnr_quality.h"
#include "isp/cnr.h"
#include "isp/csc.h"
#include "isp/demosaic.h"
#include "isp/dsp.h"

/* ---- seeded noise: xoshiro256** seeded by splitmix64 ---- */

struct rng {
	uint64_t s[4];
	int have;
	double spare;
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
	r->have = 0;
}

/* Uniform in [0, 1) with 53 bits. */
static double rng_u01(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* Standard normal, Marsaglia's polar method (pairs). */
static double rng_gauss(struct rng *r)
{
	double u, v, q;

	if (r->have) {
		r->have = 0;
		return r->spare;
	}
	do {
		u = 2 * rng_u01(r) - 1;
		v = 2 * rng_u01(r) - 1;
		q = u * u + v * v;
	} while (q >= 1 || q == 0);
	q = sqrt(-2 * log(q) / q);
	r->spare = v * q;
	r->have = 1;
	return u * q;
}

/* Poisson of mean @lam: inversion below 10, Hörmann's transformed rejection (PTRS) above. */
static long rng_poisson(struct rng *r, double lam)
{
	if (lam <= 0)
		return 0;
	if (lam < 10) {
		double p = exp(-lam), f = p, u = rng_u01(r);
		long k = 0;

		while (u > f && k < 1000) {
			k++;
			p *= lam / (double)k;
			f += p;
		}
		return k;
	}
	double slam = sqrt(lam), loglam = log(lam);
	double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
	double inva = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);

	for (;;) {
		double u = rng_u01(r) - 0.5, v = rng_u01(r), us = 0.5 - fabs(u);
		long k = (long)floor((2 * a / us + b) * u + lam + 0.43);

		if (us >= 0.07 && v <= vr)
			return k;
		if (k < 0 || (us < 0.013 && v > us))
			continue;
		if (log(v) + log(inva) - log(a / (us * us) + b) <= -lam + (double)k * loglam - lgamma((double)k + 1))
			return k;
	}
}

/* ---- levels ---- */

struct level {
	const char *name;
	double gain; /* 16-bit units per electron */
	double read; /* read noise, electrons */
};

static const struct level levels[] = {
	{ "low", 16.0, 3.0 },
	{ "mid", 128.0, 2.0 },
	{ "high", 512.0, 1.5 },
	{ "clean", 0.0, 0.0 },
};
#define NLEVELS ((int)(sizeof(levels) / sizeof(levels[0])))

/* The level's profile: variance = gain * s + (read * gain)^2, 16-bit units. */
static void level_profile(const struct level *l, struct cisp_noise_params *n)
{
	for (int c = 0; c < 4; c++) {
		n->a[c] = (uint32_t)lrint(l->gain * 65536);
		n->b[c] = (uint32_t)lrint(l->read * l->gain * l->read * l->gain);
	}
}

/* Electrons e ~ Poisson(s / gain); v = round(e * gain + gain * read * N(0, 1)), clamped to 0..65535. */
static void add_noise(uint16_t *m, size_t n, const struct level *l, uint64_t seed)
{
	struct rng r;

	if (l->gain <= 0)
		return;
	rng_seed(&r, seed);
	for (size_t i = 0; i < n; i++) {
		double e = (double)rng_poisson(&r, m[i] / l->gain);
		double v = e * l->gain + l->read * l->gain * rng_gauss(&r);

		m[i] = (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : lrint(v));
	}
}

/* ---- stages over a pool ---- */

struct planes {
	int w, h;
	uint16_t *mem;
	struct plane16 bayer[2];
	struct rgb16 rgb, ycc, cnr;
};

static struct plane16 mk_plane(uint16_t *base, int w, int h)
{
	struct plane16 p = { base, w, 0, w, h };
	return p;
}

static int planes_alloc(struct planes *p, int w, int h)
{
	size_t n = (size_t)w * h;

	p->w = w;
	p->h = h;
	p->mem = malloc(n * 11 * sizeof(uint16_t));
	if (!p->mem)
		return -ENOMEM;
	for (int i = 0; i < 2; i++)
		p->bayer[i] = mk_plane(p->mem + n * i, w, h);
	for (int c = 0; c < 3; c++) {
		p->rgb.c[c] = mk_plane(p->mem + n * (2 + c), w, h);
		p->ycc.c[c] = mk_plane(p->mem + n * (5 + c), w, h);
		p->cnr.c[c] = mk_plane(p->mem + n * (8 + c), w, h);
	}
	return 0;
}

enum job_kind { JOB_BNR, JOB_BNR_DSP, JOB_CSC, JOB_CNR };

struct job {
	enum job_kind kind;
	int h, bands;
	const struct cisp_bnr_coeffs *bnr;
	const struct cisp_cnr_coeffs *cnr;
	const struct cisp_csc_params *csc;
	const struct plane16 *bin, *bout;
	const struct rgb16 *in, *out;
};

static void job_band(void *opaque, unsigned task, unsigned worker)
{
	const struct job *j = opaque;
	int band = ((j->h + j->bands - 1) / j->bands + 1) & ~1, y0 = (int)task * band, y1 = y0 + band;

	(void)worker;
	if (y1 > j->h)
		y1 = j->h;
	if (y0 >= y1)
		return;
	if (j->kind == JOB_BNR)
		cisp_bnr_rows(j->bnr, j->bin, j->bout, y0, y1);
	else if (j->kind == JOB_BNR_DSP)
		cisp_bnr_quality_rows_dsp(cisp_dsp(), cisp_bnr_quality_params(j->bnr), j->bin, j->bout, y0, y1);
	else if (j->kind == JOB_CSC)
		cisp_csc_rows(j->csc, j->in, j->out, y0, y1);
	else
		cisp_cnr_rows(j->cnr, j->in, j->out, y0, y1);
}

static void run_job(struct job *j, struct cisp_pool *pool, int h)
{
	unsigned t = cisp_pool_threads(pool);

	j->h = h;
	j->bands = t > 1 ? (int)t * 4 : 1;
	cisp_pool_run(pool, (unsigned)j->bands, job_band, j);
}

/* ---- inverse CSC (double), the bench's own ---- */

static void ycc_to_rgb(const struct cisp_csc_params *csc, const struct rgb16 *in, const struct rgb16 *out)
{
	static const double kr[3] = { 0.299, 0.2126, 0.2627 }, kb[3] = { 0.114, 0.0722, 0.0593 };
	const double r_ = kr[csc->matrix], b_ = kb[csc->matrix], g_ = 1 - r_ - b_;
	const int lim = csc->range == CISP_RANGE_LIMITED;
	const double ys = lim ? 255.0 / 219 : 1, cs = lim ? 255.0 / 224 : 1, y0 = lim ? 16 * 257 : 0;

	for (int y = 0; y < in->c[0].height; y++) {
		const uint16_t *py = plane_row(&in->c[0], y), *pb = plane_row(&in->c[1], y),
			       *pr = plane_row(&in->c[2], y);
		uint16_t *o[3] = { plane_row(&out->c[0], y), plane_row(&out->c[1], y), plane_row(&out->c[2], y) };

		for (int x = 0; x < in->c[0].width; x++) {
			double yy = (py[x] - y0) * ys, cb = (pb[x] - CISP_CSC_CHROMA_ZERO) * cs,
			       cr = (pr[x] - CISP_CSC_CHROMA_ZERO) * cs;
			double r = yy + 2 * (1 - r_) * cr, b = yy + 2 * (1 - b_) * cb, g = (yy - r_ * r - b_ * b) / g_;
			double v[3] = { r, g, b };

			for (int c = 0; c < 3; c++)
				o[c][x] = (uint16_t)(v[c] < 0 ? 0 : v[c] > 65535 ? 65535 : lrint(v[c]));
		}
	}
}

/* ---- scores ---- */

static double cpsnr(const struct cisp_raster *ref, const struct rgb16 *t, int border)
{
	double se = 0, k = 255.0 / ref->maxval;
	long n = 0;

	for (int y = border; y < (int)ref->height - border; y++) {
		const uint16_t *row[3] = { plane_row(&t->c[0], y), plane_row(&t->c[1], y), plane_row(&t->c[2], y) };

		for (int x = border; x < (int)ref->width - border; x++) {
			for (int c = 0; c < 3; c++) {
				double d = ref->data[((size_t)y * ref->width + x) * 3 + c] * k - row[c][x] * (255.0 / 65535);

				se += d * d;
			}
			n++;
		}
	}
	return 10 * log10(255.0 * 255.0 / (se / (3.0 * (double)n)));
}

/* ---- crops ---- */

struct rect {
	int x, y, w, h;
};

#define ZOOM 3

/* Reference | demosaic only | with denoise, each ZOOM times enlarged, 8-bit PNG. */
static int write_crop(const char *dir, const char *name, const char *level, const struct rect *r,
		      const struct cisp_raster *ref, const struct rgb16 *a, const struct rgb16 *b)
{
	struct cisp_raster out = { 0 };
	const int gap = 4, pw = r->w * ZOOM;
	char path[1024];
	int ret;

	if (r->x < 0 || r->y < 0 || r->x + r->w > (int)ref->width || r->y + r->h > (int)ref->height) {
		fprintf(stderr, "noise_kodak: crop %d,%d,%d,%d is outside %s (%ux%u)\n", r->x, r->y, r->w, r->h, name,
			ref->width, ref->height);
		return -EINVAL;
	}
	if ((ret = cisp_raster_alloc(&out, (uint32_t)(3 * pw + 2 * gap), (uint32_t)(r->h * ZOOM), 3, 255)))
		return ret;
	for (int y = 0; y < r->h * ZOOM; y++)
		for (int x = 0; x < (int)out.width; x++) {
			int panel = x / (pw + gap), px = x % (pw + gap), sx = r->x + px / ZOOM, sy = r->y + y / ZOOM;
			uint16_t *o = out.data + ((size_t)y * out.width + x) * 3;

			for (int c = 0; c < 3; c++) {
				if (px >= pw)
					o[c] = 255;
				else if (panel == 0)
					o[c] = (uint16_t)(ref->data[((size_t)sy * ref->width + sx) * 3 + c] * 255 / ref->maxval);
				else
					o[c] = (uint16_t)((plane_row(&(panel == 1 ? a : b)->c[c], sy)[sx] * 255 + 32767) /
							  65535);
			}
		}
	snprintf(path, sizeof(path), "%s/%s_%s_%d_%d.png", dir, name, level, r->x, r->y);
	ret = cisp_raster_write(path, &out);
	cisp_raster_free(&out);
	return ret;
}

/* ---- main ---- */

struct options {
	unsigned level_mask;
	struct cisp_param_state s;
	enum cisp_demosaic_algorithm algo;
	unsigned threads;
	int runs, speed, quiet;
	const char *crops;
	struct rect crop[16];
	int ncrop;
};

static int usage(void)
{
	fprintf(stderr, "usage: noise_kodak [--levels low,mid,high,clean] [--bnr S] [--bnr-mode fast|quality]\n"
			"         [--cnr S] [--cnr-luma S] [--cnr-radius R] [--demosaic fast|quality] [--threads N] [--crops DIR\n"
			"         --crop X,Y,W,H...] [--quiet] REF.png...\n"
			"       noise_kodak --speed [--threads N] [--runs N] [options] MOSAIC.pgm\n");
	return 2;
}

static int parse_levels(const char *s, unsigned *mask)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	*mask = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; i < NLEVELS && strcmp(t, levels[i].name); i++)
			;
		if (i == NLEVELS)
			return -1;
		*mask |= 1u << i;
	}
	return *mask ? 0 : -1;
}

static long number(const char *s, long lo, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	return *end || end == s || v < lo || v > hi ? -1 : v;
}

/* Basename without extension. */
static void image_name(const char *path, char *out, size_t size)
{
	const char *b = strrchr(path, '/');
	char *dot;

	snprintf(out, size, "%s", b ? b + 1 : path);
	if ((dot = strrchr(out, '.')))
		*dot = '\0';
}

/* Run one image at one level; returns the two CPSNRs. */
static int run_image(const struct options *o, struct cisp_pool *pool, const struct cisp_raster *ref, int index,
		     int lv, const char *name, double *base, double *den)
{
	const int w = (int)ref->width, h = (int)ref->height;
	const size_t n = (size_t)w * h;
	struct cisp_param_state s = o->s;
	struct cisp_bnr_coeffs *bnr = NULL;
	struct cisp_cnr_coeffs *cnr = NULL;
	struct cisp_demosaic *dm = NULL;
	struct cisp_cnr_gains gains = { .csc = &s.csc };
	struct planes p = { 0 };
	struct job j = { 0 };
	uint16_t *noisy, *base_rgb = NULL;
	struct rgb16 base_planes;
	int ret;

	level_profile(&levels[lv], &s.noise);
	if ((ret = planes_alloc(&p, w, h)) || (ret = cisp_demosaic_create(&dm, o->algo, w, h)) ||
	    (ret = cisp_bnr_prepare(&bnr, &s.bnr, &s.noise, CISP_CFA_RGGB)) ||
	    (ret = cisp_cnr_prepare(&cnr, &s.cnr, &s.noise, &gains)))
		goto done;
	base_rgb = malloc(n * 3 * sizeof(uint16_t));
	if (!base_rgb) {
		ret = -ENOMEM;
		goto done;
	}
	for (int c = 0; c < 3; c++)
		base_planes.c[c] = mk_plane(base_rgb + n * c, w, h);

	/* RGGB mosaic of the reference, v16 = v8 * 257 for 8-bit files. */
	noisy = p.bayer[0].base;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			int c = (x & 1) + (y & 1); /* R at (0,0), G, B at (1,1) */

			noisy[(size_t)y * w + x] =
				(uint16_t)((ref->data[((size_t)y * w + x) * 3 + c] * 65535u + ref->maxval / 2) / ref->maxval);
		}
	add_noise(noisy, n, &levels[lv], 0x5EED0000ull + (uint64_t)lv * 1000 + (uint64_t)index);

	cisp_demosaic_run(dm, &p.bayer[0], CISP_CFA_RGGB, &s.demosaic, &base_planes, pool);
	*base = cpsnr(ref, &base_planes, 10);

	j.kind = JOB_BNR;
	j.bnr = bnr;
	j.bin = &p.bayer[0];
	j.bout = &p.bayer[1];
	run_job(&j, pool, h);
	cisp_demosaic_run(dm, &p.bayer[1], CISP_CFA_RGGB, &s.demosaic, &p.rgb, pool);
	j.kind = JOB_CSC;
	j.csc = &s.csc;
	j.in = &p.rgb;
	j.out = &p.ycc;
	run_job(&j, pool, h);
	j.kind = JOB_CNR;
	j.cnr = cnr;
	j.in = &p.ycc;
	j.out = &p.cnr;
	run_job(&j, pool, h);
	ycc_to_rgb(&s.csc, &p.cnr, &p.rgb);
	*den = cpsnr(ref, &p.rgb, 10);

	for (int i = 0; o->crops && i < o->ncrop && !ret; i++)
		ret = write_crop(o->crops, name, levels[lv].name, &o->crop[i], ref, &base_planes, &p.rgb);
done:
	if (ret)
		fprintf(stderr, "noise_kodak: %s: %s\n", name, cisp_last_error());
	cisp_bnr_free(bnr);
	cisp_cnr_free(cnr);
	cisp_demosaic_destroy(dm);
	free(base_rgb);
	free(p.mem);
	return ret;
}

static int quality(const struct options *o, struct cisp_pool *pool, int count, char **paths)
{
	double sum[NLEVELS][2] = { { 0 } }, mind[NLEVELS];
	char worst[NLEVELS][64];
	int done = 0;

	for (int lv = 0; lv < NLEVELS; lv++)
		mind[lv] = INFINITY;
	printf("# noise_kodak: BNR %s strength %u, CNR strength %u luma_strength %u radius %u, %s demosaic, CSC %s %s\n",
	       o->s.bnr.mode == CISP_BNR_QUALITY ? "quality" : "fast", o->s.bnr.strength, o->s.cnr.strength,
	       o->s.cnr.luma_strength, o->s.cnr.radius, o->algo == CISP_DEMOSAIC_FAST ? "fast" : "quality",
	       o->s.csc.matrix == CISP_CSC_BT601 ? "BT.601" : o->s.csc.matrix == CISP_CSC_BT709 ? "BT.709" : "BT.2020",
	       o->s.csc.range == CISP_RANGE_FULL ? "full" : "limited");
	printf("# CPSNR dB (8-bit scale, border 10): demosaic only / with denoise / gain\n");
	if (!o->quiet) {
		printf("%-10s", "image");
		for (int lv = 0; lv < NLEVELS; lv++)
			if (o->level_mask & (1u << lv))
				printf(" %8s %8s %7s", levels[lv].name, "+dn", "gain");
		printf("\n");
	}
	for (int i = 0; i < count; i++) {
		struct cisp_raster ref = { 0 };
		char name[64];

		image_name(paths[i], name, sizeof(name));
		if (cisp_raster_read(paths[i], &ref) || ref.channels != 3) {
			fprintf(stderr, "noise_kodak: %s: %s\n", paths[i],
				ref.channels != 3 && ref.data ? "not an RGB image" : cisp_last_error());
			cisp_raster_free(&ref);
			return 1;
		}
		if (!o->quiet)
			printf("%-10s", name);
		for (int lv = 0; lv < NLEVELS; lv++) {
			double b = 0, d = 0;

			if (!(o->level_mask & (1u << lv)))
				continue;
			/* The seed index is the image's position, 1-based (kodim01 is 1 when all are given in order). */
			if (run_image(o, pool, &ref, i + 1, lv, name, &b, &d)) {
				cisp_raster_free(&ref);
				return 1;
			}
			sum[lv][0] += b;
			sum[lv][1] += d;
			if (d - b < mind[lv]) {
				mind[lv] = d - b;
				snprintf(worst[lv], sizeof(worst[lv]), "%s", name);
			}
			if (!o->quiet)
				printf(" %8.3f %8.3f %+7.3f", b, d, d - b);
		}
		if (!o->quiet) {
			printf("\n");
			fflush(stdout);
		}
		cisp_raster_free(&ref);
		done++;
	}
	printf("%-6s %12s %12s %8s %16s\n", "level", "demosaic", "+denoise", "gain", "worst image");
	for (int lv = 0; lv < NLEVELS; lv++)
		if (o->level_mask & (1u << lv))
			printf("%-6s %12.3f %12.3f %+8.3f %+8.3f %-7s\n", levels[lv].name, sum[lv][0] / done,
			       sum[lv][1] / done, (sum[lv][1] - sum[lv][0]) / done, mind[lv], worst[lv]);
	return 0;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int speed(const struct options *o, struct cisp_pool *pool, const char *path)
{
	struct cisp_raster m = { 0 };
	struct cisp_param_state s = o->s;
	struct cisp_bnr_coeffs *bnr = NULL;
	struct cisp_cnr_coeffs *cnr = NULL;
	struct cisp_demosaic *dm = NULL;
	struct cisp_cnr_gains gains = { .csc = &s.csc };
	struct planes p = { 0 };
	struct job j = { 0 };
	double t[2][64];
	int w, h, ret = 1;

	if (cisp_raster_read(path, &m) || m.channels != 1) {
		fprintf(stderr, "noise_kodak: %s: %s\n", path, m.data ? "not a grey mosaic" : cisp_last_error());
		goto done;
	}
	w = (int)m.width;
	h = (int)m.height;
	level_profile(&levels[1], &s.noise);
	if (planes_alloc(&p, w, h) || cisp_demosaic_create(&dm, o->algo, w, h) ||
	    cisp_bnr_prepare(&bnr, &s.bnr, &s.noise, CISP_CFA_RGGB) || cisp_cnr_prepare(&cnr, &s.cnr, &s.noise, &gains)) {
		fprintf(stderr, "noise_kodak: %s\n", cisp_last_error());
		goto done;
	}
	for (size_t i = 0; i < (size_t)w * h; i++)
		p.bayer[0].base[i] = (uint16_t)((m.data[i] * 65535u + m.maxval / 2) / m.maxval);
	add_noise(p.bayer[0].base, (size_t)w * h, &levels[1], 0x5EED0000ull + 1000);
	cisp_demosaic_run(dm, &p.bayer[0], CISP_CFA_RGGB, &s.demosaic, &p.rgb, pool);
	j.kind = JOB_CSC;
	j.csc = &s.csc;
	j.in = &p.rgb;
	j.out = &p.ycc;
	run_job(&j, pool, h);
	for (int r = 0; r < o->runs; r++) {
		double t0 = now();

		j.kind = JOB_BNR;
		j.bnr = bnr;
		j.bin = &p.bayer[0];
		j.bout = &p.bayer[1];
		run_job(&j, pool, h);
		t[0][r] = now() - t0;
		t0 = now();
		j.kind = JOB_CNR;
		j.cnr = cnr;
		j.in = &p.ycc;
		j.out = &p.cnr;
		run_job(&j, pool, h);
		t[1][r] = now() - t0;
	}
	for (int k = 0; k < 2; k++) {
		qsort(t[k], (size_t)o->runs, sizeof(double), cmp_double);
		printf("%s%s %dx%d threads %u: median %.1f ms, %.1f MPix/s\n", k ? "CNR" : "BNR", k ? "" : s.bnr.mode == CISP_BNR_QUALITY ? " quality" : " fast", w, h,
		       cisp_pool_threads(pool), t[k][o->runs / 2] * 1e3, (double)w * h * 1e-6 / t[k][o->runs / 2]);
	}
	if (cisp_bnr_quality_params(bnr)) {
		/* The same rows through the optimised tile functions, after the reference (its output is in bayer[1]). */
		size_t n = (size_t)w * h;
		uint16_t *ref = malloc(n * sizeof(*ref));
		struct plane16 dsp_out = p.bayer[1];

		if (!ref) {
			fprintf(stderr, "noise_kodak: out of memory\n");
			goto done;
		}
		memcpy(ref, p.bayer[1].base, n * sizeof(*ref));
		for (int r = 0; r < o->runs; r++) {
			double t0 = now();

			j.kind = JOB_BNR_DSP;
			j.bin = &p.bayer[0];
			j.bout = &dsp_out;
			run_job(&j, pool, h);
			t[0][r] = now() - t0;
		}
		qsort(t[0], (size_t)o->runs, sizeof(double), cmp_double);
		printf("BNR quality %s %dx%d threads %u: median %.1f ms, %.1f MPix/s, %s bytes\n",
		       cisp_cpu_name(cisp_dsp()->level), w, h, cisp_pool_threads(pool), t[0][o->runs / 2] * 1e3,
		       (double)w * h * 1e-6 / t[0][o->runs / 2], memcmp(ref, p.bayer[1].base, n * sizeof(*ref)) ? "DIFFERENT" : "the reference's");
		free(ref);
	}
	ret = 0;
done:
	cisp_raster_free(&m);
	cisp_bnr_free(bnr);
	cisp_cnr_free(cnr);
	cisp_demosaic_destroy(dm);
	free(p.mem);
	return ret;
}

int main(int argc, char **argv)
{
	struct options o = { .level_mask = 7, .algo = CISP_DEMOSAIC_FAST, .threads = 1, .runs = 5 };
	struct cisp_pool *pool = NULL;
	int i, ret;

	cisp_param_state_init(&o.s);
	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i++) {
		const char *opt = argv[i], *arg = i + 1 < argc ? argv[i + 1] : NULL;
		long v = 0;

		if (!strcmp(opt, "--speed")) {
			o.speed = 1;
			continue;
		}
		if (!strcmp(opt, "--quiet")) {
			o.quiet = 1;
			continue;
		}
		if (!arg)
			return usage();
		i++;
		if (!strcmp(opt, "--levels")) {
			if (parse_levels(arg, &o.level_mask))
				return usage();
		} else if (!strcmp(opt, "--bnr") && (v = number(arg, 0, 1024)) >= 0) {
			o.s.bnr.strength = (uint16_t)v;
		} else if (!strcmp(opt, "--bnr-mode") && (!strcmp(arg, "fast") || !strcmp(arg, "quality"))) {
			o.s.bnr.mode = strcmp(arg, "fast") ? CISP_BNR_QUALITY : CISP_BNR_FAST;
		} else if (!strcmp(opt, "--cnr") && (v = number(arg, 0, 4096)) >= 0) {
			o.s.cnr.strength = (uint16_t)v;
		} else if (!strcmp(opt, "--cnr-luma") && (v = number(arg, 1, 4096)) >= 0) {
			o.s.cnr.luma_strength = (uint16_t)v;
		} else if (!strcmp(opt, "--cnr-radius") && (v = number(arg, 1, CISP_CNR_MAX_RADIUS)) >= 0) {
			o.s.cnr.radius = (uint16_t)v;
		} else if (!strcmp(opt, "--threads") && (v = number(arg, 1, 256)) >= 0) {
			o.threads = (unsigned)v;
		} else if (!strcmp(opt, "--runs") && (v = number(arg, 1, 64)) >= 0) {
			o.runs = (int)v;
		} else if (!strcmp(opt, "--demosaic") && (!strcmp(arg, "fast") || !strcmp(arg, "quality"))) {
			o.algo = strcmp(arg, "fast") ? CISP_DEMOSAIC_QUALITY : CISP_DEMOSAIC_FAST;
			o.s.demosaic.algorithm = (uint16_t)o.algo;
		} else if (!strcmp(opt, "--crops")) {
			o.crops = arg;
		} else if (!strcmp(opt, "--crop") && o.ncrop < 16) {
			struct rect *r = &o.crop[o.ncrop++];

			if (sscanf(arg, "%d,%d,%d,%d", &r->x, &r->y, &r->w, &r->h) != 4 || r->w < 1 || r->h < 1)
				return usage();
		} else {
			return usage();
		}
	}
	if (i >= argc || (o.speed && i + 1 != argc))
		return usage();
	if (cisp_pool_create(&pool, o.threads)) {
		fprintf(stderr, "noise_kodak: %s\n", cisp_last_error());
		return 1;
	}
	ret = o.speed ? speed(&o, pool, argv[i]) : quality(&o, pool, argc - i, argv + i);
	cisp_pool_destroy(pool);
	return ret;
}
