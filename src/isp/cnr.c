/* SPDX-License-Identifier: MIT */
/*
 * Chroma denoise (docs/stages/cnr.md): a separable range-weighted mean of Cb
 * and Cr, a horizontal pass then a vertical one, each over 2 * radius + 1
 * taps. A tap's weight falls with its luma and chroma distance to the
 * centre, measured against thresholds that follow from the sensor noise
 * profile carried through the pipeline's gains, per Y-code bin.
 *
 * Work is done in column strips of STRIP pixels; rolling buffers on the
 * stack hold the horizontally filtered rows the vertical pass needs, so the
 * result does not depend on the strip width or on the band split.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "arith.h"
#include "cnr.h"
#include "isp/dsp.h"
#include "isp/stage.h"
#include "isp/tone.h"
#include "isqrt.h"
#include "scratch.h"

#define STRIP 256
#define BINS 32
#define WMAX 64
#define WSUM_MAX ((2 * CISP_CNR_MAX_RADIUS + 1) * WMAX)
/* Variances are clamped here: a deviation beyond full scale means nothing. */
#define VMAX ((uint64_t)1 << 32)

struct cisp_cnr_coeffs {
	int enabled, radius;
	uint32_t sigma_y[BINS], sigma_c[BINS];
	uint16_t inv_y[BINS], inv_c[BINS]; /* 2^23 / threshold, at most 65535 */
	uint32_t recip[WSUM_MAX + 1];      /* (2^32 + n / 2) / n for n >= WMAX */
};

/*
 * Per CSC matrix (enum cisp_csc_matrix): luma weights Kr, Kg, Kb and the
 * squares of the Y, Cb and Cr coefficients of R, G, B, all Q0.16, rounded.
 */
static const struct {
	uint32_t y[3], qy[3], qcb[3], qcr[3];
} csc_consts[3] = {
	{ { 19595, 38470, 7471 }, { 5859, 22582, 852 }, { 1866, 7192, 16384 }, { 16384, 11488, 433 } },
	{ { 13933, 46871, 4732 }, { 2962, 33522, 342 }, { 860, 9736, 16384 }, { 16384, 13517, 138 } },
	{ { 17216, 44433, 3886 }, { 4523, 30126, 230 }, { 1278, 8511, 16384 }, { 16384, 13855, 106 } },
};

static uint64_t vclamp(uint64_t v)
{
	return v > VMAX ? VMAX : v;
}

/* The grey model: output levels of R, G, B for a white-balanced grey of linear level L. */
static void grey_levels(const struct cisp_cnr_gains *g, uint32_t L, uint16_t lin[3], uint16_t out[3])
{
	for (int i = 0; i < 3; i++) {
		int64_t v = L;

		if (g->ccm) {
			const int16_t *m = &g->ccm->coeff[3 * i];
			int64_t sum = (int64_t)m[0] + m[1] + m[2];

			/* Arithmetic shift: floor division, as the CCM stage rounds. */
			v = ((sum * L + 2048) >> 12) + g->ccm->offset[i];
		}
		/* Within int32: the ABI bounds a matrix row's |sum| by 32767 and the offset by 65535. */
		lin[i] = clamp16((int32_t)v);
		out[i] = g->tone_lut ? g->tone_lut[lin[i]] : lin[i];
	}
}

static int csc_matrix(const struct cisp_cnr_gains *g)
{
	return g->csc && g->csc->matrix <= CISP_CSC_BT2020 ? g->csc->matrix : CISP_CSC_BT709;
}

static int csc_limited(const struct cisp_cnr_gains *g)
{
	return g->csc ? g->csc->range == CISP_RANGE_LIMITED : 1;
}

/* Y code of the grey of linear level L. */
static uint32_t grey_y(const struct cisp_cnr_gains *g, uint32_t L)
{
	const uint32_t *k = csc_consts[csc_matrix(g)].y;
	uint16_t lin[3], t[3];
	uint64_t y;

	grey_levels(g, L, lin, t);
	y = ((uint64_t)k[0] * t[0] + (uint64_t)k[1] * t[1] + (uint64_t)k[2] * t[2] + 32768) >> 16;
	if (csc_limited(g))
		y = ((y * 56284 + 32768) >> 16) + 16 * 257; /* 16..235 is 4112..60395, as the CSC */
	return (uint32_t)y;
}

/* Variances of Y and of chroma (the mean of Cb's and Cr's) for the grey of linear level L. */
static void grey_variance(const struct cisp_noise_params *n, const struct cisp_cnr_gains *g, uint32_t L,
			  uint64_t *var_y, uint64_t *var_c)
{
	const int m = csc_matrix(g);
	uint64_t v[4], rgb[3], ccm[3];
	uint16_t lin[3], t[3];

	for (int c = 0; c < 4; c++) {
		uint32_t wb = g->wb ? g->wb->gain[c] : 4096;
		uint64_t s = wb ? (((uint64_t)L << 12) + wb / 2) / wb : 65535;

		if (s > 65535)
			s = 65535;
		v[c] = vclamp((((uint64_t)n->a[c] * s + 32768) >> 16) + n->b[c]);
		v[c] = vclamp((((v[c] * wb) >> 12) * wb) >> 12);
	}
	rgb[0] = v[0];
	rgb[1] = (v[1] + v[2] + 1) >> 1;
	rgb[2] = v[3];
	for (int i = 0; i < 3; i++) {
		ccm[i] = rgb[i];
		if (g->ccm) {
			uint64_t s = 0;

			for (int j = 0; j < 3; j++) {
				int64_t k = g->ccm->coeff[3 * i + j];

				s += (uint64_t)(k * k) * rgb[j];
			}
			ccm[i] = vclamp((s + ((uint64_t)1 << 23)) >> 24);
		}
	}
	grey_levels(g, L, lin, t);
	for (int i = 0; i < 3; i++) {
		if (g->tone_lut) {
			uint32_t lo = lin[i] >= 256 ? lin[i] - 256u : 0, hi = lin[i] <= 65279 ? lin[i] + 256u : 65535;
			int64_t dt = (int64_t)g->tone_lut[hi] - g->tone_lut[lo];
			uint64_t slope = (uint64_t)((dt < 0 ? -dt : dt) * 256 + (hi - lo) / 2) / (hi - lo);

			if (slope > 65535)
				slope = 65535;
			ccm[i] = vclamp((((ccm[i] * slope) >> 8) * slope) >> 8);
		}
	}
	{
		const uint32_t *qy = csc_consts[m].qy, *qcb = csc_consts[m].qcb, *qcr = csc_consts[m].qcr;
		uint64_t y = (qy[0] * ccm[0] + qy[1] * ccm[1] + qy[2] * ccm[2] + 32768) >> 16;
		uint64_t cb = (qcb[0] * ccm[0] + qcb[1] * ccm[1] + qcb[2] * ccm[2] + 32768) >> 16;
		uint64_t cr = (qcr[0] * ccm[0] + qcr[1] * ccm[1] + qcr[2] * ccm[2] + 32768) >> 16;
		uint64_t c = (cb + cr + 1) >> 1;

		if (csc_limited(g)) {
			y = (y * 48338 + 32768) >> 16;
			c = (c * 50570 + 32768) >> 16;
		}
		*var_y = y;
		*var_c = c;
	}
}

static uint16_t inv_threshold(uint32_t sigma, uint32_t strength)
{
	uint64_t t = ((uint64_t)sigma * strength + 128) >> 8, inv;

	if (t == 0)
		return 65535;
	inv = (((uint64_t)1 << 23) + t / 2) / t;
	return (uint16_t)(inv > 65535 ? 65535 : inv);
}

int cisp_cnr_prepare(struct cisp_cnr_coeffs **out, const struct cisp_cnr_params *p,
		     const struct cisp_noise_params *noise, const struct cisp_cnr_gains *g)
{
	struct cisp_cnr_coeffs *c = calloc(1, sizeof(*c));

	if (!c)
		return cisp_error(-ENOMEM, "out of memory for the chroma denoise tables");
	c->enabled = p->strength > 0;
	c->radius = p->radius < 1 ? 1 : p->radius > CISP_CNR_MAX_RADIUS ? CISP_CNR_MAX_RADIUS : p->radius;
	for (int b = 0; b < BINS; b++) {
		/* The smallest linear grey level whose Y reaches the bin's centre. */
		uint32_t target = (uint32_t)b * 2048 + 1024, lo = 0, hi = 65535;
		uint64_t vy, vc;

		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;

			if (grey_y(g, mid) >= target)
				hi = mid;
			else
				lo = mid + 1;
		}
		grey_variance(noise, g, lo, &vy, &vc);
		c->sigma_y[b] = cisp_isqrt64(vy);
		c->sigma_c[b] = cisp_isqrt64(vc);
		c->inv_y[b] = inv_threshold(c->sigma_y[b], p->luma_strength);
		c->inv_c[b] = inv_threshold(c->sigma_c[b], p->strength);
	}
	for (uint32_t n = WMAX; n <= WSUM_MAX; n++)
		c->recip[n] = (uint32_t)((((uint64_t)1 << 32) + n / 2) / n);
	*out = c;
	return 0;
}

void cisp_cnr_free(struct cisp_cnr_coeffs *c)
{
	free(c);
}

/* The tables, for the row kernels of cnr_row.c. */
void cisp_cnr_tables(const struct cisp_cnr_coeffs *c, struct cisp_cnr_row_tables *t)
{
	t->enabled = c->enabled;
	t->radius = c->radius;
	t->inv_y = c->inv_y;
	t->inv_c = c->inv_c;
	t->recip = c->recip;
}

int cisp_cnr_radius(const struct cisp_cnr_coeffs *c)
{
	return c->radius;
}

void cisp_cnr_sigma(const struct cisp_cnr_coeffs *c, int bin, uint32_t *sy, uint32_t *sc)
{
	*sy = c->sigma_y[bin];
	*sc = c->sigma_c[bin];
}

/*
 * Both passes run over STRIP lanes at once: a tap is a fixed-length loop of
 * 16- and 32-bit lane arithmetic that compilers vectorise; the table reads
 * (thresholds by Y bin, R by weight sum) are separate scalar loops. Lanes
 * past the frame's right edge compute on defined filler and are not stored.
 */
struct sums {
	uint16_t iy[STRIP], ic[STRIP];
	uint32_t sw[STRIP], swb[STRIP], swr[STRIP];
};

/* Thresholds of the centres, and the centres' own weight (WMAX: they differ by nothing). */
static void sums_start(const struct cisp_cnr_coeffs *c, struct sums *s, const uint16_t *y0, const uint16_t *b0,
		       const uint16_t *r0)
{
	for (int k = 0; k < STRIP; k++) {
		s->iy[k] = c->inv_y[y0[k] >> 11];
		s->ic[k] = c->inv_c[y0[k] >> 11];
		s->sw[k] = WMAX;
		s->swb[k] = WMAX * (uint32_t)b0[k];
		s->swr[k] = WMAX * (uint32_t)r0[k];
	}
}

/* Add one tap (@ty, @tb, @tr) against the centres (@y0, @b0, @r0). */
static void sums_tap(struct sums *restrict s, const uint16_t *restrict ty, const uint16_t *restrict tb,
		     const uint16_t *restrict tr, const uint16_t *restrict y0, const uint16_t *restrict b0,
		     const uint16_t *restrict r0)
{
	for (int k = 0; k < STRIP; k++) {
		uint32_t wt = cisp_cnr_weight(absdiff_u32(ty[k], y0[k]), absdiff_u32(tb[k], b0[k]),
					      absdiff_u32(tr[k], r0[k]), s->iy[k], s->ic[k]);

		s->sw[k] += wt;
		s->swb[k] += wt * tb[k];
		s->swr[k] += wt * tr[k];
	}
}

static void sums_finish(const struct cisp_cnr_coeffs *c, const struct sums *s, int n, uint16_t *ob, uint16_t *orr)
{
	for (int k = 0; k < n; k++) {
		ob[k] = cisp_cnr_mean(c->recip, s->sw[k], s->swb[k]);
		orr[k] = cisp_cnr_mean(c->recip, s->sw[k], s->swr[k]);
	}
}

/* Horizontal pass of frame row @y (mirrored), STRIP lanes from column x0 (n in the frame): Y copied, Cb and Cr filtered. */
static void hpass(const struct cisp_cnr_coeffs *c, const struct rgb16 *in, int y, int x0, int n, uint16_t *oy,
		  uint16_t *ocb, uint16_t *ocr, struct sums *s)
{
	const int r = c->radius, w = in->c[0].width, ry = mirror(y, in->c[0].height);
	const uint16_t *sy = plane_row(&in->c[0], ry), *sb = plane_row(&in->c[1], ry), *sr = plane_row(&in->c[2], ry);
	uint16_t py[STRIP + 2 * CISP_CNR_MAX_RADIUS], pb[STRIP + 2 * CISP_CNR_MAX_RADIUS],
		pr[STRIP + 2 * CISP_CNR_MAX_RADIUS];

	for (int i = 0; i < STRIP + 2 * r; i++) {
		int x = x0 + i - r;

		if (i < n + 2 * r) {
			x = mirror(x, w);
			py[i] = sy[x];
			pb[i] = sb[x];
			pr[i] = sr[x];
		} else {
			py[i] = pb[i] = pr[i] = 0;
		}
	}
	sums_start(c, s, py + r, pb + r, pr + r);
	for (int t = -r; t <= r; t++)
		if (t)
			sums_tap(s, py + r + t, pb + r + t, pr + r + t, py + r, pb + r, pr + r);
	memcpy(oy, py + r, STRIP * sizeof(*oy));
	sums_finish(c, s, STRIP, ocb, ocr);
}

void cisp_cnr_rows(const struct cisp_cnr_coeffs *c, const struct rgb16 *in, const struct rgb16 *out, int y0,
		   int y1)
{
	enum { ROWS = 2 * CISP_CNR_MAX_RADIUS + 1 };
	const int w = in->c[0].width, r = c->radius, nrows = 2 * r + 1;
	/* Y is copied unless the output shares the input's Y plane. */
	const int copy_y = out->c[0].base != in->c[0].base || out->c[0].first_row != in->c[0].first_row;
	CISP_SCRATCH uint16_t ry[ROWS][STRIP], rb[ROWS][STRIP], rr[ROWS][STRIP];
	CISP_SCRATCH struct sums sums;
	struct sums *s = &sums;

	if (!c->enabled) {
		for (int p = !copy_y; p < 3; p++)
			for (int y = y0; y < y1; y++)
				memcpy(plane_row(&out->c[p], y), plane_row(&in->c[p], y), (size_t)w * sizeof(uint16_t));
		return;
	}
	for (int x0 = 0; x0 < w; x0 += STRIP) {
		const int n = x0 + STRIP < w ? STRIP : w - x0;

		/* Row t lives at slot (t - y0 + r) % nrows, t in [y0 - r, y1 + r). */
		for (int t = y0 - r; t < y0 + r; t++) {
			int sl = (t - y0 + r) % nrows;

			hpass(c, in, t, x0, n, ry[sl], rb[sl], rr[sl], s);
		}
		for (int y = y0; y < y1; y++) {
			int sl = (y + r - y0 + r) % nrows, cs = (y - y0 + r) % nrows;

			hpass(c, in, y + r, x0, n, ry[sl], rb[sl], rr[sl], s);
			sums_start(c, s, ry[cs], rb[cs], rr[cs]);
			for (int k = 0; k < nrows; k++)
				if (k != cs)
					sums_tap(s, ry[k], rb[k], rr[k], ry[cs], rb[cs], rr[cs]);
			if (copy_y)
				memcpy(plane_row(&out->c[0], y) + x0, ry[cs], (size_t)n * sizeof(uint16_t));
			sums_finish(c, s, n, plane_row(&out->c[1], y) + x0, plane_row(&out->c[2], y) + x0);
		}
	}
}

/* ---- the stage (stage.h) ---- */

/* Its thresholds follow the noise through every gain up to the CSC (docs/stages/cnr.md). */
static int cnr_prepare(void **coeffs, const struct stage_env *env)
{
	const struct cisp_param_state *s = env->state;
	const struct cisp_tone_coeffs *tone = stage_coeffs(env, &cisp_stage_tone);
	struct cisp_cnr_gains g = {
		.wb = s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_WB) ? &s->wb : NULL,
		.ccm = s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_CCM) ? &s->ccm : NULL,
		.tone_lut = s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_TONE) ? tone->lut : NULL,
		.csc = &s->csc,
	};
	struct cisp_cnr_coeffs *c;
	int ret = cisp_cnr_prepare(&c, &s->cnr, &s->noise, &g);

	if (ret)
		return ret;
	cisp_cnr_free(*coeffs);
	*coeffs = c;
	return 0;
}

static void cnr_release(void *coeffs)
{
	cisp_cnr_free(coeffs);
}

static void cnr_rows(const struct stage_ctx *c, const struct stage_io *io, int y0, int y1)
{
	cisp_cnr_rows(c->coeffs, &io->in, &io->out, y0, y1);
}

/* The horizontal pass of each row (cisp_cnr_h_row_c()); Y copied. */
static void h_pass(const struct stage_ctx *c, const struct pass_io *io, int y0, int y1)
{
	const struct rgb16 *in = &io->in[0], *out = &io->out;
	struct cisp_cnr_row_tables tb;

	cisp_cnr_tables(c->coeffs, &tb);
	for (int y = y0; y < y1; y++) {
		memcpy(plane_row(&out->c[0], y), plane_row(&in->c[0], y), (size_t)c->width * sizeof(uint16_t));
		c->dsp->cnr_h_row(plane_row(&in->c[0], y), plane_row(&in->c[1], y), plane_row(&in->c[2], y),
				  plane_row(&out->c[1], y), plane_row(&out->c[2], y), c->width, &tb);
		pass_emit(io, y, NULL);
	}
}

/* The vertical pass of each row from 2 * radius + 1 rows of the horizontal one (cisp_cnr_v_row_c()). */
static void v_pass(const struct stage_ctx *c, const struct pass_io *io, int y0, int y1)
{
	const struct rgb16 *hp = &io->in[0], *out = &io->out;
	struct cisp_cnr_row_tables tb;

	cisp_cnr_tables(c->coeffs, &tb);
	for (int y = y0; y < y1; y++) {
		const uint16_t *ys[2 * CISP_CNR_MAX_RADIUS + 1], *cbs[2 * CISP_CNR_MAX_RADIUS + 1],
			*crs[2 * CISP_CNR_MAX_RADIUS + 1];

		for (int k = 0; k <= 2 * tb.radius; k++) {
			int yy = mirror(y + k - tb.radius, c->height);

			ys[k] = plane_row(&hp->c[0], yy);
			cbs[k] = plane_row(&hp->c[1], yy);
			crs[k] = plane_row(&hp->c[2], yy);
		}
		memcpy(plane_row(&out->c[0], y), ys[tb.radius], (size_t)c->width * sizeof(uint16_t));
		c->dsp->cnr_v_row(ys, cbs, crs, plane_row(&out->c[1], y), plane_row(&out->c[2], y), c->width, &tb);
		pass_emit(io, y, NULL);
	}
}

/* Separable: the horizontal pass per row, the vertical one over its rows. */
static int cnr_passes(const struct stage_ctx *c, struct stage_pass pass[STAGE_MAX_PASSES])
{
	pass[0] = (struct stage_pass){ .planes = 3, .n_in = 1, .in = { { STAGE_INPUT, 0 } }, .rows = h_pass };
	pass[1] = (struct stage_pass){ .planes = 3, .n_in = 1, .in = { { 0, cisp_cnr_radius(c->coeffs) } }, .rows = v_pass };
	return 2;
}

const struct cisp_stage cisp_stage_cnr = {
	.name = "cnr",
	.block = CISP_BLOCK_CNR,
	.reads = CISP_BLOCK_BIT(CISP_BLOCK_NOISE) | CISP_BLOCK_BIT(CISP_BLOCK_WB) | CISP_BLOCK_BIT(CISP_BLOCK_CCM) |
		 CISP_BLOCK_BIT(CISP_BLOCK_TONE) | CISP_BLOCK_BIT(CISP_BLOCK_CSC),
	.flags = STAGE_YUV,
	.planes_in = 3,
	.planes_out = 3,
	.prepare = cnr_prepare,
	.release = cnr_release,
	.rows = cnr_rows,
	.in_place = 1, /* Y passes through */
	.passes = cnr_passes,
};
