/* SPDX-License-Identifier: MIT */
/*
 * Chroma denoise (docs/stages/cnr.md): known answers on synthetic Y, Cb, Cr
 * planes, a measured noise reduction that keeps a chroma edge, band and
 * strip independence, bit-exactness against a plain implementation of the
 * document's formulas (thresholds and both passes), the pipeline's table
 * rebuilds, and the block's YAML form.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/image.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>

#include "isp/cnr.h"
#include "isp/csc.h"
#include "isp/isqrt.h"

#include "test.h"

/* ---- helpers ---------------------------------------------------------- */

static struct rgb16 ycc_new(int w, int h)
{
	struct rgb16 p;

	for (int c = 0; c < 3; c++) {
		struct plane16 q = { calloc((size_t)w * h, sizeof(uint16_t)), w, 0, w, h };

		if (!q.base)
			abort();
		p.c[c] = q;
	}
	return p;
}

static void ycc_free(struct rgb16 *p)
{
	for (int c = 0; c < 3; c++)
		free(p->c[c].base);
}

static uint16_t *at(const struct rgb16 *p, int c, int x, int y)
{
	return plane_row(&p->c[c], y) + x;
}

static long differing(const struct rgb16 *a, const struct rgb16 *b)
{
	long n = 0;

	for (int c = 0; c < 3; c++)
		for (int y = 0; y < a->c[0].height; y++)
			n += memcmp(at(a, c, 0, y), at(b, c, 0, y), (size_t)a->c[0].width * 2) != 0;
	return n;
}

static uint16_t clamp16(double v)
{
	return (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : lrint(v));
}

/* Standard normal from the test's generator (Box-Muller). */
static double gauss(void)
{
	double u = ((double)(test_rand() >> 11) + 0.5) * 0x1.0p-53, v = (double)(test_rand() >> 11) * 0x1.0p-53;

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* A mid-light profile: 128 16-bit units per electron, 2 electrons of read noise. */
static const struct cisp_noise_params mid_noise = { { CISP_BLOCK_NOISE, 0, 40 },
						    { 128u << 16, 128u << 16, 128u << 16, 128u << 16 },
						    { 65536, 65536, 65536, 65536 } };
static const struct cisp_csc_params bt709_limited = { { CISP_BLOCK_CSC, 0, 16 }, CISP_CSC_BT709, CISP_RANGE_LIMITED, 0 };

static struct cisp_cnr_coeffs *prepare(uint16_t strength, uint16_t luma, uint16_t radius,
				       const struct cisp_noise_params *n, const struct cisp_cnr_gains *g)
{
	struct cisp_cnr_params p = { { CISP_BLOCK_CNR, 0, 16 }, strength, luma, radius, 0 };
	struct cisp_cnr_coeffs *c = NULL;

	CHECK_EQ(cisp_cnr_prepare(&c, &p, n, g), 0);
	if (!c)
		abort();
	return c;
}

/* ---- known answers ---------------------------------------------------- */

TEST(cnr_flat_chroma_unchanged)
{
	const struct cisp_cnr_gains g = { .csc = &bt709_limited };
	const uint16_t chroma[3][2] = { { CISP_CSC_CHROMA_ZERO, CISP_CSC_CHROMA_ZERO }, { 20000, 47000 }, { 0, 65535 } };

	for (int radius = 1; radius <= CISP_CNR_MAX_RADIUS; radius += 7) {
		struct cisp_cnr_coeffs *c = prepare(4096, 4096, (uint16_t)radius, &mid_noise, &g);

		for (int k = 0; k < 3; k++) {
			struct rgb16 in = ycc_new(40, 18), out = ycc_new(40, 18);
			bool same = true;

			/* A Y ramp (the bins change along it), flat chroma. */
			for (int y = 0; y < 18; y++)
				for (int x = 0; x < 40; x++) {
					*at(&in, 0, x, y) = (uint16_t)(4112 + x * 1400 + y * 37);
					*at(&in, 1, x, y) = chroma[k][0];
					*at(&in, 2, x, y) = chroma[k][1];
				}
			cisp_cnr_rows(c, &in, &out, 0, 18);
			for (int y = 0; y < 18; y++)
				for (int x = 0; x < 40; x++)
					same &= *at(&out, 0, x, y) == *at(&in, 0, x, y) &&
						*at(&out, 1, x, y) == chroma[k][0] && *at(&out, 2, x, y) == chroma[k][1];
			CHECK(same);
			ycc_free(&in);
			ycc_free(&out);
		}
		cisp_cnr_free(c);
	}
}

TEST(cnr_strength_zero_is_identity)
{
	const struct cisp_cnr_gains g = { .csc = &bt709_limited };
	struct cisp_cnr_coeffs *c = prepare(0, 2048, 4, &mid_noise, &g);
	struct rgb16 in = ycc_new(300, 20), out = ycc_new(300, 20);

	for (int p = 0; p < 3; p++)
		for (int y = 0; y < 20; y++)
			for (int x = 0; x < 300; x++)
				*at(&in, p, x, y) = (uint16_t)test_rand();
	cisp_cnr_rows(c, &in, &out, 0, 20);
	CHECK_EQ(differing(&in, &out), 0);
	cisp_cnr_free(c);
	ycc_free(&in);
	ycc_free(&out);
}

/* ---- noise and edges -------------------------------------------------- */

/* Standard deviation of plane @p over columns [x0, x1), all rows. */
static double plane_sd(const struct rgb16 *f, int p, int x0, int x1)
{
	double s = 0, s2 = 0;
	long n = 0;

	for (int y = 0; y < f->c[0].height; y++)
		for (int x = x0; x < x1; x++) {
			double v = *at(f, p, x, y);

			s += v;
			s2 += v * v;
			n++;
		}
	return sqrt(s2 / n - (s / n) * (s / n));
}

static double column_mean(const struct rgb16 *f, int p, int x)
{
	double s = 0;

	for (int y = 0; y < f->c[0].height; y++)
		s += *at(f, p, x, y);
	return s / f->c[0].height;
}

/*
 * Flat Y, Cb and Cr with Gaussian noise of the derived chroma sigma, and a
 * Cb step of 12 sigma at column 96. Measured (this generator, strength 4.0,
 * radius 4): the noise's standard deviation falls by a factor of 5.6 in Cb
 * and 5.4 in Cr; the step keeps 99 % of its height between the two columns
 * beside it.
 */
TEST(cnr_reduces_chroma_noise_and_keeps_a_chroma_edge)
{
	const struct cisp_cnr_gains g = { .csc = &bt709_limited };
	struct cisp_cnr_coeffs *c = prepare(1024, 2048, 4, &mid_noise, &g);
	const int w = 192, h = 96, edge = 96, yv = 30000;
	struct rgb16 in = ycc_new(w, h), out = ycc_new(w, h);
	uint32_t sy, sc;
	double step, before[2], after[2], kept;

	cisp_cnr_sigma(c, yv >> 11, &sy, &sc);
	CHECK(sc > 100 && sy > 100);
	step = 12.0 * sc;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			*at(&in, 0, x, y) = yv;
			*at(&in, 1, x, y) = clamp16(CISP_CSC_CHROMA_ZERO + (x >= edge ? step : 0) + sc * gauss());
			*at(&in, 2, x, y) = clamp16(CISP_CSC_CHROMA_ZERO + sc * gauss());
		}
	cisp_cnr_rows(c, &in, &out, 0, h);
	/* Away from the edge by more than two radii. */
	before[0] = plane_sd(&in, 1, 10, edge - 10);
	before[1] = plane_sd(&in, 2, 10, w - 10);
	after[0] = plane_sd(&out, 1, 10, edge - 10);
	after[1] = plane_sd(&out, 2, 10, w - 10);
	CHECK_NEAR(before[0], sc, 0.05 * sc);
	CHECK(before[0] / after[0] > 4.5);
	CHECK(before[1] / after[1] > 4.5);
	if (getenv("CISP_TEST_VERBOSE"))
		printf("    noise factor Cb %.2f Cr %.2f, edge kept %.4f\n", before[0] / after[0], before[1] / after[1],
		       (column_mean(&out, 1, edge) - column_mean(&out, 1, edge - 1)) / step);
	/* The edge: the columns beside it keep the step; Y passes unchanged. */
	kept = (column_mean(&out, 1, edge) - column_mean(&out, 1, edge - 1)) / step;
	CHECK(kept > 0.97);
	CHECK_NEAR(column_mean(&out, 1, 20), CISP_CSC_CHROMA_ZERO, 0.1 * sc);
	CHECK_NEAR(column_mean(&out, 1, w - 20), CISP_CSC_CHROMA_ZERO + step, 0.1 * sc);
	for (int y = 0; y < h; y++)
		CHECK(!memcmp(at(&out, 0, 0, y), at(&in, 0, 0, y), (size_t)w * 2));
	cisp_cnr_free(c);
	ycc_free(&in);
	ycc_free(&out);
}

/* ---- a plain implementation of docs/stages/cnr.md ---------------------- */

#define VMAX ((uint64_t)1 << 32)

static uint64_t vmin(uint64_t v)
{
	return v > VMAX ? VMAX : v;
}

/* Kr, Kb of BT.601, BT.709, BT.2020. */
static const double kr_kb[3][2] = { { 0.299, 0.114 }, { 0.2126, 0.0722 }, { 0.2627, 0.0593 } };

/* Q16 luma weights (K) and squared Y, Cb, Cr coefficients (qY, qCb, qCr), from Kr and Kb. */
static void csc_q16(int m, uint32_t k[3], uint32_t qy[3], uint32_t qcb[3], uint32_t qcr[3])
{
	double kr = kr_kb[m][0], kb = kr_kb[m][1], kg = 1 - kr - kb;
	double y[3] = { kr, kg, kb }, cb[3] = { -kr / (2 * (1 - kb)), -kg / (2 * (1 - kb)), 0.5 },
	       cr[3] = { 0.5, -kg / (2 * (1 - kr)), -kb / (2 * (1 - kr)) };

	for (int i = 0; i < 3; i++) {
		k[i] = (uint32_t)lround(y[i] * 65536);
		qy[i] = (uint32_t)lround(y[i] * y[i] * 65536);
		qcb[i] = (uint32_t)lround(cb[i] * cb[i] * 65536);
		qcr[i] = (uint32_t)lround(cr[i] * cr[i] * 65536);
	}
}

struct model {
	const struct cisp_noise_params *noise;
	const struct cisp_wb_params *wb;
	const struct cisp_ccm_params *ccm;
	const uint16_t *lut;
	int matrix, limited;
};

/* Grey of linear level L after the CCM (l) and the tone table (t). */
static void model_levels(const struct model *m, uint32_t L, uint32_t l[3], uint32_t t[3])
{
	for (int i = 0; i < 3; i++) {
		int64_t v = L;

		if (m->ccm) {
			int64_t sum = (int64_t)m->ccm->coeff[3 * i] + m->ccm->coeff[3 * i + 1] + m->ccm->coeff[3 * i + 2];

			v = (int64_t)floor((double)(sum * L + 2048) / 4096.0) + m->ccm->offset[i];
		}
		l[i] = (uint32_t)(v < 0 ? 0 : v > 65535 ? 65535 : v);
		t[i] = m->lut ? m->lut[l[i]] : l[i];
	}
}

static uint32_t model_y(const struct model *m, uint32_t L)
{
	uint32_t k[3], qy[3], qcb[3], qcr[3], l[3], t[3];
	uint64_t y;

	csc_q16(m->matrix, k, qy, qcb, qcr);
	model_levels(m, L, l, t);
	y = ((uint64_t)k[0] * t[0] + (uint64_t)k[1] * t[1] + (uint64_t)k[2] * t[2] + 32768) >> 16;
	return (uint32_t)(m->limited ? ((y * 56284 + 32768) >> 16) + 16 * 257 : y);
}

static void model_sigma(const struct model *m, uint32_t L, uint32_t *sy, uint32_t *sc)
{
	uint32_t k[3], qy[3], qcb[3], qcr[3], l[3], t[3];
	uint64_t v[4], rgb[3], out[3], vy, vcb, vcr, vc;

	csc_q16(m->matrix, k, qy, qcb, qcr);
	for (int c = 0; c < 4; c++) {
		uint64_t wb = m->wb ? m->wb->gain[c] : 4096, s = wb ? ((uint64_t)L * 4096 + wb / 2) / wb : 65535;

		s = s > 65535 ? 65535 : s;
		v[c] = vmin((((uint64_t)m->noise->a[c] * s + 32768) >> 16) + m->noise->b[c]);
		v[c] = vmin((((v[c] * wb) >> 12) * wb) >> 12);
	}
	rgb[0] = v[0];
	rgb[1] = (v[1] + v[2] + 1) >> 1;
	rgb[2] = v[3];
	model_levels(m, L, l, t);
	for (int i = 0; i < 3; i++) {
		out[i] = rgb[i];
		if (m->ccm) {
			uint64_t s = 0;

			for (int j = 0; j < 3; j++)
				s += (uint64_t)((int64_t)m->ccm->coeff[3 * i + j] * m->ccm->coeff[3 * i + j]) * rgb[j];
			out[i] = vmin((s + ((uint64_t)1 << 23)) >> 24);
		}
		if (m->lut) {
			uint32_t lo = l[i] >= 256 ? l[i] - 256 : 0, hi = l[i] + 256 <= 65535 ? l[i] + 256 : 65535;
			uint64_t dt = (uint64_t)abs((int)m->lut[hi] - (int)m->lut[lo]);
			uint64_t slope = (dt * 256 + (hi - lo) / 2) / (hi - lo);

			slope = slope > 65535 ? 65535 : slope;
			out[i] = vmin((((out[i] * slope) >> 8) * slope) >> 8);
		}
	}
	vy = (qy[0] * out[0] + qy[1] * out[1] + qy[2] * out[2] + 32768) >> 16;
	vcb = (qcb[0] * out[0] + qcb[1] * out[1] + qcb[2] * out[2] + 32768) >> 16;
	vcr = (qcr[0] * out[0] + qcr[1] * out[1] + qcr[2] * out[2] + 32768) >> 16;
	vc = (vcb + vcr + 1) >> 1;
	if (m->limited) {
		vy = (vy * 48338 + 32768) >> 16;
		vc = (vc * 50570 + 32768) >> 16;
	}
	*sy = cisp_isqrt64(vy);
	*sc = cisp_isqrt64(vc);
}

/* Per bin: the two sigmas, and the inverse thresholds for the strengths. */
struct bins {
	uint32_t sy[32], sc[32], inv_y[32], inv_c[32];
};

static uint32_t model_inv(uint32_t sigma, uint32_t strength)
{
	uint64_t t = ((uint64_t)sigma * strength + 128) >> 8, inv;

	if (!t)
		return 65535;
	inv = (((uint64_t)1 << 23) + t / 2) / t;
	return (uint32_t)(inv > 65535 ? 65535 : inv);
}

static void model_bins(const struct model *m, uint32_t strength, uint32_t luma, struct bins *b)
{
	for (int k = 0; k < 32; k++) {
		uint32_t L = 0;

		/* The smallest L whose grey Y reaches the bin's centre (Y(L) is not decreasing here). */
		while (L < 65535 && model_y(m, L) < (uint32_t)k * 2048 + 1024)
			L += L + 4096 <= 65535 && model_y(m, L + 4096) < (uint32_t)k * 2048 + 1024 ? 4096 : 1;
		model_sigma(m, L, &b->sy[k], &b->sc[k]);
		b->inv_y[k] = model_inv(b->sy[k], luma);
		b->inv_c[k] = model_inv(b->sc[k], strength);
	}
}

static uint32_t model_u(uint32_t d, uint32_t inv)
{
	uint32_t u = (uint32_t)(((uint64_t)d * inv) >> 16);

	return u > 128 ? 128 : u;
}

/* One output sample of a pass: centre (y0, b0, r0), taps at @n positions; results in *ob, *or. */
static void model_pass(const struct bins *b, int n, const uint32_t *ty, const uint32_t *tb, const uint32_t *tr,
		       uint32_t y0, uint32_t b0, uint32_t r0, uint32_t *ob, uint32_t *orr)
{
	uint64_t sw = 0, swb = 0, swr = 0;
	uint32_t iy = b->inv_y[y0 >> 11], ic = b->inv_c[y0 >> 11];

	for (int k = 0; k < n; k++) {
		uint32_t uy = model_u((uint32_t)abs((int)ty[k] - (int)y0), iy);
		uint32_t ub = model_u((uint32_t)abs((int)tb[k] - (int)b0), ic);
		uint32_t ur = model_u((uint32_t)abs((int)tr[k] - (int)r0), ic);
		int64_t t = 16384 - (int64_t)(uy * uy + ub * ub + ur * ur);
		uint64_t w = t <= 0 ? 0 : (uint64_t)(t * t) >> 22;

		sw += w;
		swb += w * tb[k];
		swr += w * tr[k];
	}
	{
		uint64_t r = (((uint64_t)1 << 32) + sw / 2) / sw;
		uint64_t vb = (swb * r + ((uint64_t)1 << 31)) >> 32, vr = (swr * r + ((uint64_t)1 << 31)) >> 32;

		*ob = (uint32_t)(vb > 65535 ? 65535 : vb);
		*orr = (uint32_t)(vr > 65535 ? 65535 : vr);
	}
}

/* The whole frame: horizontal pass into hb/hr, then vertical. */
static void model_frame(const struct bins *b, int radius, const struct rgb16 *in, struct rgb16 *out)
{
	const int w = in->c[0].width, h = in->c[0].height, n = 2 * radius + 1;
	uint32_t *hb = malloc(sizeof(uint32_t) * w * h), *hr = malloc(sizeof(uint32_t) * w * h);
	uint32_t ty[17], tb[17], tr[17];

	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			for (int k = 0; k < n; k++) {
				int xx = mirror(x + k - radius, w);

				ty[k] = *at(in, 0, xx, y);
				tb[k] = *at(in, 1, xx, y);
				tr[k] = *at(in, 2, xx, y);
			}
			model_pass(b, n, ty, tb, tr, *at(in, 0, x, y), *at(in, 1, x, y), *at(in, 2, x, y),
				   &hb[(size_t)y * w + x], &hr[(size_t)y * w + x]);
		}
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			uint32_t ob, orr;

			for (int k = 0; k < n; k++) {
				int yy = mirror(y + k - radius, h);

				ty[k] = *at(in, 0, x, yy);
				tb[k] = hb[(size_t)yy * w + x];
				tr[k] = hr[(size_t)yy * w + x];
			}
			model_pass(b, n, ty, tb, tr, *at(in, 0, x, y), hb[(size_t)y * w + x], hr[(size_t)y * w + x],
				   &ob, &orr);
			*at(out, 0, x, y) = *at(in, 0, x, y);
			*at(out, 1, x, y) = (uint16_t)ob;
			*at(out, 2, x, y) = (uint16_t)orr;
		}
	free(hb);
	free(hr);
}

/* Noisy planes with some structure: a Y ramp with steps, chroma patches, noise of about @sd. */
static void structured_frame(struct rgb16 *f, double sd)
{
	const int w = f->c[0].width, h = f->c[0].height;

	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			double yy = 6000 + 180.0 * x + ((x / 37 + y / 11) & 1) * 9000;
			double cb = CISP_CSC_CHROMA_ZERO + ((x / 23) & 1) * 5000 - ((y / 7) & 1) * 3000;
			double cr = CISP_CSC_CHROMA_ZERO - ((x / 31) % 3) * 2500;

			*at(f, 0, x, y) = clamp16(yy + sd * gauss());
			*at(f, 1, x, y) = clamp16(cb + sd * gauss());
			*at(f, 2, x, y) = clamp16(cr + sd * gauss());
		}
	/* A few saturated samples. */
	*at(f, 1, 3, 2) = 65535;
	*at(f, 2, w - 2, h - 1) = 0;
}

/* A tone table like a 2.2 gamma, and a CCM with negative terms and offsets. */
static uint16_t tone_lut[65536];
static const struct cisp_ccm_params ccm = { { CISP_BLOCK_CCM, 0, 40 },
					    { 6000, -1500, -404, -800, 5400, -504, 100, -1900, 5896 },
					    0,
					    { 120, -60, 0 } };
static const struct cisp_wb_params wb = { { CISP_BLOCK_WB, 0, 16 }, { 7800, 4096, 4120, 6500 } };

TEST(cnr_thresholds_and_passes_match_the_document)
{
	static const struct cisp_csc_params csc[2] = {
		{ { CISP_BLOCK_CSC, 0, 16 }, CISP_CSC_BT601, CISP_RANGE_FULL, 0 },
		{ { CISP_BLOCK_CSC, 0, 16 }, CISP_CSC_BT2020, CISP_RANGE_LIMITED, 0 },
	};
	static const struct {
		uint16_t strength, luma, radius;
		int gains, csc;
	} cases[] = {
		{ 1024, 2048, 4, 0, 0 }, { 768, 3072, 1, 1, 1 }, { 4096, 1, 8, 1, 0 }, { 300, 4096, 5, 0, 1 },
	};
	const int w = 300, h = 40;

	for (int i = 0; i < 65536; i++)
		tone_lut[i] = (uint16_t)lrint(65535 * pow(i / 65535.0, 1 / 2.2));
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct cisp_cnr_gains g = { cases[k].gains ? &wb : NULL, cases[k].gains ? &ccm : NULL,
						  cases[k].gains ? tone_lut : NULL, &csc[cases[k].csc] };
		const struct model m = { &mid_noise, g.wb, g.ccm, g.tone_lut, csc[cases[k].csc].matrix,
					 csc[cases[k].csc].range == CISP_RANGE_LIMITED };
		struct cisp_cnr_coeffs *c = prepare(cases[k].strength, cases[k].luma, cases[k].radius, &mid_noise, &g);
		struct rgb16 in = ycc_new(w, h), out = ycc_new(w, h), ref = ycc_new(w, h);
		struct bins b;
		int bad = 0;

		model_bins(&m, cases[k].strength, cases[k].luma, &b);
		for (int bin = 0; bin < 32; bin++) {
			uint32_t sy, sc;

			cisp_cnr_sigma(c, bin, &sy, &sc);
			bad += sy != b.sy[bin] || sc != b.sc[bin];
		}
		CHECK_EQ(bad, 0);
		CHECK_EQ(cisp_cnr_radius(c), cases[k].radius);
		/* Noise of about the derived chroma sigma of mid-grey, so weights span 0..64. */
		structured_frame(&in, b.sc[16] ? b.sc[16] : 500);
		cisp_cnr_rows(c, &in, &out, 0, h);
		model_frame(&b, cases[k].radius, &in, &ref);
		CHECK_EQ(differing(&out, &ref), 0);
		CHECK(differing(&out, &in) > h); /* the filter did change the chroma */
		cisp_cnr_free(c);
		ycc_free(&in);
		ycc_free(&out);
		ycc_free(&ref);
	}
}

/* Known sigmas without gains: BT.709 limited, a = 128, b = 65536 on every channel. */
TEST(cnr_sigma_known_answer)
{
	const struct cisp_cnr_gains g = { .csc = &bt709_limited };
	struct cisp_cnr_coeffs *c = prepare(1024, 2048, 4, &mid_noise, &g);
	uint32_t sy, sc;

	/*
	 * Bin 16 (Y 32768..34815): Y(L) = ((L * 56284 + 32768) >> 16) + 4112 (the
	 * luma weights sum to 65536) first reaches 33792 at L = 34559; the variance
	 * of each channel is 128 * 34559 + 65536 = 4489088; var_Y = (4489088 *
	 * (2962 + 33522 + 342) + 32768) >> 16 = 2522509, limited 1860551, sigma
	 * 1364; var_Cb = 4489088 * (860 + 9736 + 16384) -> 1848077, var_Cr =
	 * 4489088 * (16384 + 13517 + 138) -> 2057613, var_C 1952845, limited
	 * 1506887, sigma 1227.
	 */
	cisp_cnr_sigma(c, 16, &sy, &sc);
	CHECK_EQ(sy, 1364);
	CHECK_EQ(sc, 1227);
	cisp_cnr_free(c);
}

/* ---- bands and strips ------------------------------------------------- */

TEST(cnr_bands_and_strips_are_independent)
{
	const struct cisp_cnr_gains g = { .csc = &bt709_limited };
	const int w = 530, h = 48; /* three strips, the last one short */

	for (int radius = 1; radius <= CISP_CNR_MAX_RADIUS; radius += 3) {
		struct cisp_cnr_coeffs *c = prepare(2048, 3072, (uint16_t)radius, &mid_noise, &g);
		struct rgb16 in = ycc_new(w, h), full = ycc_new(w, h);
		static const int cuts[] = { 0, 1, 9, 10, 31, 48 };
		long bad = 0;

		structured_frame(&in, 900);
		cisp_cnr_rows(c, &in, &full, 0, h);
		for (int k = 0; k + 1 < (int)(sizeof(cuts) / sizeof(cuts[0])); k++) {
			/* A band from a buffer of only the rows it reads, into a buffer of only its rows. */
			const int y0 = cuts[k], y1 = cuts[k + 1];
			const int lo = y0 - radius < 0 ? 0 : y0 - radius, hi = y1 + radius > h ? h : y1 + radius;
			struct rgb16 bi = ycc_new(w, hi - lo), bo = ycc_new(w, y1 - y0);

			for (int p = 0; p < 3; p++) {
				bi.c[p].first_row = lo;
				bi.c[p].height = h;
				bo.c[p].first_row = y0;
				bo.c[p].height = h;
				for (int y = lo; y < hi; y++)
					memcpy(at(&bi, p, 0, y), at(&in, p, 0, y), (size_t)w * 2);
			}
			cisp_cnr_rows(c, &bi, &bo, y0, y1);
			for (int p = 0; p < 3; p++)
				for (int y = y0; y < y1; y++)
					bad += memcmp(at(&bo, p, 0, y), at(&full, p, 0, y), (size_t)w * 2) != 0;
			ycc_free(&bi);
			ycc_free(&bo);
		}
		CHECK_EQ(bad, 0);
		cisp_cnr_free(c);
		ycc_free(&in);
		ycc_free(&full);
	}
}

/* The output may share the input's Y plane: Y is then left as it is, Cb and Cr are the same. */
TEST(cnr_shared_luma_plane)
{
	const struct cisp_cnr_gains g = { .csc = &bt709_limited };
	struct cisp_cnr_coeffs *c = prepare(1024, 2048, 4, &mid_noise, &g);
	struct rgb16 in = ycc_new(64, 20), out = ycc_new(64, 20), shared = ycc_new(64, 20);

	structured_frame(&in, 700);
	free(shared.c[0].base);
	shared.c[0] = in.c[0];
	cisp_cnr_rows(c, &in, &out, 0, 20);
	cisp_cnr_rows(c, &in, &shared, 0, 20);
	CHECK_EQ(differing(&out, &shared), 0);
	shared.c[0].base = NULL;
	cisp_cnr_free(c);
	ycc_free(&in);
	ycc_free(&out);
	ycc_free(&shared);
}

/* ---- in the pipeline -------------------------------------------------- */

static void noisy_mosaic(struct cisp_image *img)
{
	for (uint32_t y = 0; y < img->height; y++) {
		uint16_t *row = (uint16_t *)(img->plane[0].data + y * img->plane[0].stride);

		for (uint32_t x = 0; x < img->width; x++) {
			double level = (x & 1) == (y & 1) ? 1400 : (y & 1) ? 900 : 2200; /* 12-bit G, B, R */

			row[x] = (uint16_t)(level + (x > img->width / 2 ? 600 : 0) + 60 * gauss());
		}
	}
}

/* The three planes of two I420 images of one size are equal. */
static bool same_i420(const struct cisp_image *a, const struct cisp_image *b)
{
	for (int p = 0; p < 3; p++)
		if (memcmp(a->plane[p].data, b->plane[p].data, a->plane[p].stride * (p ? a->height / 2 : a->height)))
			return false;
	return true;
}

static void process(struct cisp_isp *isp, const struct cisp_image *in, struct cisp_image *out)
{
	struct cisp_image *outs[2] = { out, NULL };

	CHECK_EQ(cisp_isp_process(isp, in, outs, NULL, NULL), 0);
}

/*
 * CNR's tables follow NOISE, WB, CCM, TONE and CSC: an ISP given a state and
 * then only the changed block gives the bytes of one given the final state
 * at once. And CNR changes only chroma: Y matches the output without it.
 */
TEST(cnr_pipeline_rebuilds_tables_and_keeps_luma)
{
	struct cisp_isp_config cfg = { CISP_FMT_SRGGB12, 64, 48, { { CISP_FMT_I420, 64, 48 } } };
	struct cisp_param_state s0, s1;
	struct cisp_image in, a, b;
	static const unsigned blocks[] = { CISP_BLOCK_NOISE, CISP_BLOCK_WB, CISP_BLOCK_CCM, CISP_BLOCK_TONE,
					   CISP_BLOCK_CSC, CISP_BLOCK_CNR };

	CHECK_EQ(cisp_image_alloc(&in, cfg.input_format, 64, 48), 0);
	CHECK_EQ(cisp_image_alloc(&a, CISP_FMT_I420, 64, 48), 0);
	CHECK_EQ(cisp_image_alloc(&b, CISP_FMT_I420, 64, 48), 0);
	noisy_mosaic(&in);
	cisp_param_state_init(&s0);
	s0.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_CNR) | CISP_BLOCK_BIT(CISP_BLOCK_WB) | CISP_BLOCK_BIT(CISP_BLOCK_CCM);
	s0.noise = mid_noise;
	s0.cnr.strength = 2048;
	for (size_t k = 0; k < sizeof(blocks) / sizeof(blocks[0]); k++) {
		struct cisp_isp *ia, *ib;

		s1 = s0;
		switch (blocks[k]) {
		case CISP_BLOCK_NOISE:
			for (int c = 0; c < 4; c++)
				s1.noise.b[c] = 400000;
			break;
		case CISP_BLOCK_WB:
			s1.wb.gain[0] = 8000;
			break;
		case CISP_BLOCK_CCM:
			s1.ccm = ccm;
			break;
		case CISP_BLOCK_TONE:
			s1.tone.transfer = CISP_TRANSFER_LINEAR;
			break;
		case CISP_BLOCK_CSC:
			s1.csc.matrix = CISP_CSC_BT601;
			s1.csc.range = CISP_RANGE_FULL;
			break;
		default:
			s1.cnr.strength = 700;
			s1.cnr.radius = 2;
		}
		CHECK_EQ(cisp_isp_create(&ia, &cfg), 0);
		CHECK_EQ(cisp_isp_create(&ib, &cfg), 0);
		CHECK_EQ(cisp_isp_set_state(ia, &s0, ~0u), 0);
		process(ia, &in, &a);
		CHECK_EQ(cisp_isp_set_state(ia, &s1, CISP_BLOCK_BIT(blocks[k])), 0);
		process(ia, &in, &a);
		CHECK_EQ(cisp_isp_set_state(ib, &s1, ~0u), 0);
		process(ib, &in, &b);
		if (!same_i420(&a, &b))
			test_fail(__FILE__, __LINE__, "after a change of block %u alone the output differs", blocks[k]);
		cisp_isp_destroy(ia);
		cisp_isp_destroy(ib);
	}
	{
		/* Without CNR: the same Y plane, other chroma. */
		struct cisp_isp *ib;
		size_t ysize = a.plane[0].stride * 48;

		s1 = s0;
		s1.enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_CNR);
		CHECK_EQ(cisp_isp_create(&ib, &cfg), 0);
		CHECK_EQ(cisp_isp_set_state(ib, &s0, ~0u), 0);
		process(ib, &in, &a);
		CHECK_EQ(cisp_isp_set_state(ib, &s1, ~0u), 0);
		process(ib, &in, &b);
		CHECK(!memcmp(a.plane[0].data, b.plane[0].data, ysize));
		CHECK(memcmp(a.plane[1].data, b.plane[1].data, a.plane[1].stride * 24) != 0 ||
		      memcmp(a.plane[2].data, b.plane[2].data, a.plane[2].stride * 24) != 0);
		cisp_isp_destroy(ib);
	}
	cisp_image_free(&in);
	cisp_image_free(&a);
	cisp_image_free(&b);
}

/* ---- YAML ------------------------------------------------------------- */

TEST(cnr_yaml_known_bytes)
{
	static const char text[] = "cnr:\n"
				   "  enable: true\n"
				   "  strength: 3.0\n"
				   "  luma_strength: 12.5\n"
				   "  radius: 6\n";
	static const uint8_t bytes[32] = {
		'C', 'I', 'S', 'P', 1, 0, 0, 0, 32, 0, 0, 0, 0, 0, 0, 0, /* header, 32 bytes */
		15, 0, 2, 0, 16, 0, 0, 0, /* type 15, ENABLE, 16 bytes */
		0x00, 0x03, 0x80, 0x0c, 6, 0, 0, 0, /* 768, 3200, 6, reserved */
	};
	void *buf = NULL;
	size_t size = 0;
	char *back = NULL;

	CHECK_EQ(cisp_params_from_yaml(text, strlen(text), &buf, &size), 0);
	CHECK_EQ(size, sizeof(bytes));
	CHECK(buf && !memcmp(buf, bytes, sizeof(bytes)));
	CHECK_EQ(cisp_params_to_yaml(bytes, sizeof(bytes), &back), 0);
	CHECK(back && !strcmp(back, text));
	free(buf);
	free(back);
	buf = NULL;
	{
		static const char bad[] = "cnr: {strength: 1.0, luma_strength: 1.0, radius: 9}\n";

		CHECK_ERR(cisp_params_from_yaml(bad, strlen(bad), &buf, &size), -EINVAL, "cnr.radius");
	}
	free(buf);
}
