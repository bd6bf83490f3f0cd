/* SPDX-License-Identifier: MIT */
/*
 * The quality demosaic's three passes on a chunk of rows: the reference
 * arithmetic (docs/stages/demosaic_quality.md), and the C entries of the
 * dispatch table (dsp.h); demosaic_quality.c runs them over the frame.
 *
 * Pass 1 (green): at every pixel, Hamilton-Adams estimates of the missing
 * colour along the row and along the column give two colour differences
 * (green minus the other colour). On the red and blue sites four directional
 * estimates (4-tap means of those differences towards N, S, E, W) are blended
 * with weights 1/s^2, s the sum of colour-difference gradients in a 3x4
 * window on that side, computed in a Q4 log domain with two small tables:
 * the colour-difference green. A second green from the four green
 * neighbours alone, blended with the same weights (so it takes the side the
 * first one takes at an edge), is kept beside it.
 *
 * Pass 2 (blend): how well colour differences predict each red or blue
 * sample from its same-colour neighbours, against the neighbours' mean alone
 * (leave-one-out errors summed over 5x5 same-colour sites), weighs the two
 * greens: where the colour channels do not move together, the second wins.
 *
 * Pass 3 (red and blue): the other colour on red/blue sites from a 7x7
 * filter of the known colour differences on the diagonal sites; red and
 * blue on green sites from the colour differences of the 4 neighbours,
 * horizontal and vertical pairs blended by the green gradients; then a
 * median of 5 on the colour differences suppresses false colour. The same
 * leave-one-out test, on the final green, blends that with the colour from
 * its own samples alone (a cubic along the row or column, or the 7x7 filter
 * on the diagonal samples).
 *
 * All intermediate values fit in int32 (ranges in the document). Each pass
 * computes scratch rows for the frame rows it needs (reflected at the frame
 * edges) and fills PAD columns each side by reflection: every step is
 * exactly symmetric under reflection, so this equals reflecting the input.
 */
#include <stdint.h>

#include "isp/arith.h"
#include "isp/demosaic_quality.h"

#define PAD CISP_DMQ_PAD

/* SIG[t] = round(256 / (1 + 2^(-t/8))) for t = 0..71; 256 from 72 on; SIG(-t) = 256 - SIG(t). */
const uint8_t cisp_dmq_sig_table[72] = {
	128, 134, 139, 145, 150, 155, 161, 166, 171, 176, 180, 185, 189, 193, 197, 201, 205, 208,
	212, 215, 218, 220, 223, 225, 228, 230, 232, 233, 235, 237, 238, 240, 241, 242, 243, 244,
	245, 246, 247, 248, 248, 249, 249, 250, 250, 251, 251, 252, 252, 252, 253, 253, 253, 253,
	254, 254, 254, 254, 254, 254, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
};

/* SOFT[d] = round(8 log2(1 + 2^(-d/8))) for d = 0..35; 0 from 36 on. */
const uint8_t cisp_dmq_soft_table[36] = {
	8, 8, 7, 7, 6, 6, 5, 5, 5, 4, 4, 4, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* Weight (0..256) of the side whose log gradient is t below the other's. */
static inline int32_t sig(int32_t t)
{
	if (t >= 72)
		return 256;
	if (t <= -72)
		return 0;
	return t >= 0 ? cisp_dmq_sig_table[t] : 256 - cisp_dmq_sig_table[-t];
}

static inline int32_t soft(int32_t d)
{
	return d < 36 ? cisp_dmq_soft_table[d] : 0;
}

/*
 * Piecewise-linear log2 in Q4: 16 n + floor(16 (s - 2^n) / 2^n) with
 * n = floor(log2 s), for 1 <= s < 2^24 (the bits 19.. of the IEEE single
 * float of s, less 2032).
 */
static inline int32_t mlog(uint32_t s)
{
	int n = 31 - __builtin_clz(s);

	return 16 * n + (int32_t)(((s << 4) >> n) & 15);
}

static inline int32_t iabs(int32_t v)
{
	return v < 0 ? -v : v;
}

static inline int32_t min32(int32_t a, int32_t b)
{
	return a < b ? a : b;
}

static inline const uint16_t *row_reflected(const struct plane16 *p, int y)
{
	return plane_row(p, mirror(y, p->height));
}

/* Fill the PAD columns on each side of a row of w values by reflection. */
void cisp_dmq_pad_row(int32_t *r, int w)
{
	for (int k = 1; k <= PAD; k++) {
		r[-k] = r[k];
		r[w - 1 + k] = r[w - 1 - k];
	}
}

/* Rows of scratch the C passes need for up to @rows output rows. */
static size_t c_rows(size_t r)
{
	size_t green = 3 * r + 21;                /* dh r + 2, dv r + 10, cv r + 8, ch 1 */
	size_t blend = 2 * (r + 8) + 2;           /* e_cd, e_own r + 8; their two column sums */
	size_t colour = 3 * (r + 10) + blend + 2; /* kr, kb, gp r + 10; as blend with four column sums */

	return green > colour ? green : colour;
}

size_t cisp_dmq_scratch_size(int width, int rows)
{
	size_t w = (size_t)width + 2 * PAD, most = c_rows((size_t)rows);

	if (most < c_rows(CISP_DMQ_NARROW_ROWS))
		most = c_rows(CISP_DMQ_NARROW_ROWS);
	if (most < CISP_DMQ_VECTOR_ROWS)
		most = CISP_DMQ_VECTOR_ROWS;
	return sizeof(int32_t) * w * most;
}

/* ------------------------------------------------------------------------ */
/* Pass 1: green */

/* The Hamilton-Adams estimate of the missing colour: centre c, neighbours a, b at +-1, p, q at +-2. */
static inline int32_t ha(int32_t c, int32_t a, int32_t b, int32_t p, int32_t q)
{
	return (2 * (a + b) + 2 * c - p - q + 2) >> 2;
}

void cisp_dmq_diff_h_range(const uint16_t *r, int w, int rbx, int32_t *out, int x0, int x1)
{
	for (int x = x0; x < x1; x++) {
		int32_t c = r[x], e;

		if (x >= 2 && x < w - 2)
			e = ha(c, r[x - 1], r[x + 1], r[x - 2], r[x + 2]);
		else
			e = ha(c, r[mirror(x - 1, w)], r[mirror(x + 1, w)], r[mirror(x - 2, w)], r[mirror(x + 2, w)]);
		out[x] = ((x ^ rbx) & 1) ? c - e : e - c;
	}
}

/* dh of row y: green minus the other colour along the row; rbx the parity of the red/blue columns. */
static void diff_h_row(const struct plane16 *m, int y, int rbx, int32_t *out)
{
	cisp_dmq_diff_h_range(row_reflected(m, y), m->width, rbx, out, 0, m->width);
	cisp_dmq_pad_row(out, m->width);
}

/* dv of row y: green minus the other colour along the column. */
static void diff_v_row(const struct plane16 *m, int y, int rbx, int32_t *out)
{
	const uint16_t *r0 = row_reflected(m, y - 2), *r1 = row_reflected(m, y - 1), *r2 = row_reflected(m, y);
	const uint16_t *r3 = row_reflected(m, y + 1), *r4 = row_reflected(m, y + 2);
	int w = m->width;

	for (int x = 0; x < w; x++) {
		int32_t c = r2[x], e = ha(c, r1[x], r3[x], r0[x], r4[x]);

		out[x] = ((x ^ rbx) & 1) ? c - e : e - c;
	}
	cisp_dmq_pad_row(out, w);
}

int32_t cisp_dmq_green_only(const struct plane16 *m, int x, int y, int32_t we, int32_t wn, int32_t wh)
{
	const uint16_t *r = row_reflected(m, y);
	int w = m->width;
	int32_t gh = (we * r[mirror(x + 1, w)] + (256 - we) * r[mirror(x - 1, w)] + 128) >> 8;
	int32_t gv = (wn * row_reflected(m, y - 1)[x] + (256 - wn) * row_reflected(m, y + 1)[x] + 128) >> 8;

	return (wh * gh + (256 - wh) * gv + 128) >> 8;
}

void cisp_dmq_green_rows(const struct plane16 *m, enum cisp_cfa cfa, const struct plane16 *gc,
			 const struct plane16 *g2, int y0, int y1, void *scratch)
{
	int w = m->width, n = y1 - y0;
	size_t ws = (size_t)w + 2 * PAD;
	int32_t *dh = scratch;                    /* rows [y0 - 1, y1 + 1) */
	int32_t *dv = dh + ws * (size_t)(n + 2);  /* rows [y0 - 5, y1 + 5) */
	int32_t *cv = dv + ws * (size_t)(n + 10); /* rows [y0 - 4, y1 + 4) */
	int32_t *ch = cv + ws * (size_t)(n + 8) + PAD;

#define DH(r) (dh + ws * (size_t)((r) - (y0 - 1)) + PAD)
#define DV(r) (dv + ws * (size_t)((r) - (y0 - 5)) + PAD)
#define CV(r) (cv + ws * (size_t)((r) - (y0 - 4)) + PAD)
	for (int r = y0 - 1; r < y1 + 1; r++)
		diff_h_row(m, r, cisp_dmq_rb_column(cfa, r), DH(r));
	for (int r = y0 - 5; r < y1 + 5; r++)
		diff_v_row(m, r, cisp_dmq_rb_column(cfa, r), DV(r));
	/* CV(x, r) = sum over a = -1..1 of |dv(x + a, r - 1) - dv(x + a, r + 1)| */
	for (int r = y0 - 4; r < y1 + 4; r++) {
		const int32_t *a = DV(r - 1), *b = DV(r + 1);
		int32_t *o = CV(r);

		for (int x = 0; x < w; x++)
			o[x] = iabs(a[x - 1] - b[x - 1]) + iabs(a[x] - b[x]) + iabs(a[x + 1] - b[x + 1]);
	}
	for (int y = y0; y < y1; y++) {
		const int32_t *h0 = DH(y - 1), *h1 = DH(y), *h2 = DH(y + 1);
		const int32_t *v1 = DV(y - 3), *v2 = DV(y - 2), *v3 = DV(y - 1), *v4 = DV(y);
		const int32_t *v5 = DV(y + 1), *v6 = DV(y + 2), *v7 = DV(y + 3);
		const int32_t *n4 = CV(y - 4), *n3 = CV(y - 3), *n2 = CV(y - 2), *n1 = CV(y - 1);
		const int32_t *s1 = CV(y + 1), *s2 = CV(y + 2), *s3 = CV(y + 3), *s4 = CV(y + 4);
		const uint16_t *mr = plane_row(m, y);
		uint16_t *gr = plane_row(gc, y), *g2r = plane_row(g2, y);
		int rbx = cisp_dmq_rb_column(cfa, y);

		/* CH(x) = sum over a = -1..1 of |dh(x - 1, y + a) - dh(x + 1, y + a)| */
		for (int x = -5; x < w + 5; x++)
			ch[x] = iabs(h0[x - 1] - h0[x + 1]) + iabs(h1[x - 1] - h1[x + 1]) + iabs(h2[x - 1] - h2[x + 1]);
		for (int x = 1 - rbx; x < w; x += 2)
			gr[x] = g2r[x] = mr[x];
		for (int x = rbx; x < w; x += 2) {
			/* gradient sums of the four sides, their logs */
			int32_t le = mlog(1 + (uint32_t)(ch[x + 1] + ch[x + 2] + ch[x + 3] + ch[x + 4]));
			int32_t lw = mlog(1 + (uint32_t)(ch[x - 1] + ch[x - 2] + ch[x - 3] + ch[x - 4]));
			int32_t ln = mlog(1 + (uint32_t)(n1[x] + n2[x] + n3[x] + n4[x]));
			int32_t ls = mlog(1 + (uint32_t)(s1[x] + s2[x] + s3[x] + s4[x]));
			/* directional estimates, 4 x the colour difference */
			int32_t ee = h1[x] + h1[x + 1] + h1[x + 2] + h1[x + 3];
			int32_t ew = h1[x] + h1[x - 1] + h1[x - 2] + h1[x - 3];
			int32_t en = v4[x] + v3[x] + v2[x] + v1[x];
			int32_t es = v4[x] + v5[x] + v6[x] + v7[x];
			int32_t ae = sig(lw - le), an = sig(ls - ln);
			int32_t eh = (ae * ee + (256 - ae) * ew + 128) >> 8;
			int32_t ev = (an * en + (256 - an) * es + 128) >> 8;
			/* log of the summed weights of each axis, as a gradient */
			int32_t lh = min32(le, lw) - soft(iabs(le - lw));
			int32_t lv = min32(ln, ls) - soft(iabs(ln - ls));
			int32_t ah = sig(lv - lh);
			int32_t d = (ah * eh + (256 - ah) * ev + 512) >> 10;

			gr[x] = clamp16(mr[x] + d);
			g2r[x] = (uint16_t)cisp_dmq_green_only(m, x, y, ae, an, ah);
		}
	}
#undef DH
#undef DV
#undef CV
}

/* ------------------------------------------------------------------------ */
/* The leave-one-out test, for pass 2 and pass 3 */

void cisp_dmq_loo_range(const uint16_t *const mr[3], const uint16_t *const gr[3], int w, int rbx, int32_t *ecd,
			int32_t *eown, int x0, int x1)
{
	for (int x = x0; x < x1; x++) {
		if ((x ^ rbx) & 1)
			ecd[x] = eown[x] = 0;
		else
			cisp_dmq_loo_site(mr, gr, w, x, &ecd[x], &eown[x]);
	}
}

/* The errors of row r (reflected) into scratch rows padded by reflection. */
static void loo_row(const struct plane16 *m, const struct plane16 *g, enum cisp_cfa cfa, int r, int32_t *ecd,
		    int32_t *eown)
{
	const uint16_t *mr[3] = { row_reflected(m, r - 2), row_reflected(m, r), row_reflected(m, r + 2) };
	const uint16_t *gr[3] = { row_reflected(g, r - 2), row_reflected(g, r), row_reflected(g, r + 2) };

	cisp_dmq_loo_range(mr, gr, m->width, cisp_dmq_rb_column(cfa, r), ecd, eown, 0, m->width);
	cisp_dmq_pad_row(ecd, m->width);
	cisp_dmq_pad_row(eown, m->width);
}

/*
 * Weight (0..256) of the colour-difference estimate, from the sums of its
 * errors and of the own samples' errors: linear in the log of their ratio,
 * 128 at equal sums, 0 or 256 from a factor 4 on.
 */
static inline int32_t cd_weight(int32_t s_cd, int32_t s_own)
{
	int32_t t = 128 + 4 * (mlog((uint32_t)s_own + 1) - mlog((uint32_t)s_cd + 1));

	return t < 0 ? 0 : t > 256 ? 256 : t;
}

/* ------------------------------------------------------------------------ */
/* Pass 2: the blend of the two greens */

void cisp_dmq_blend_rows(const struct plane16 *m, const struct plane16 *gc, const struct plane16 *g2,
			 enum cisp_cfa cfa, const struct plane16 *g, int y0, int y1, void *scratch)
{
	int w = m->width, n = y1 - y0;
	size_t ws = (size_t)w + 2 * PAD;
	int32_t *ecd = scratch;                      /* rows [y0 - 4, y1 + 4) */
	int32_t *eown = ecd + ws * (size_t)(n + 8);   /* the same rows */
	int32_t *vcd = eown + ws * (size_t)(n + 8) + PAD, *vown = vcd + ws;

#define ECD(r) (ecd + ws * (size_t)((r) - (y0 - 4)) + PAD)
#define EOWN(r) (eown + ws * (size_t)((r) - (y0 - 4)) + PAD)
	for (int r = y0 - 4; r < y1 + 4; r++)
		loo_row(m, gc, cfa, r, ECD(r), EOWN(r));
	for (int y = y0; y < y1; y++) {
		const uint16_t *mr = plane_row(m, y), *cr = plane_row(gc, y), *sr = plane_row(g2, y);
		uint16_t *gr = plane_row(g, y);
		int rbx = cisp_dmq_rb_column(cfa, y);

		/* sums over the rows y - 4, y - 2, .., y + 4 (the sites of the row's colour), then over 5 columns */
		for (int x = -4; x < w + 4; x++) {
			vcd[x] = ECD(y - 4)[x] + ECD(y - 2)[x] + ECD(y)[x] + ECD(y + 2)[x] + ECD(y + 4)[x];
			vown[x] = EOWN(y - 4)[x] + EOWN(y - 2)[x] + EOWN(y)[x] + EOWN(y + 2)[x] + EOWN(y + 4)[x];
		}
		for (int x = 1 - rbx; x < w; x += 2)
			gr[x] = mr[x];
		for (int x = rbx; x < w; x += 2) {
			int32_t scd = vcd[x - 4] + vcd[x - 2] + vcd[x] + vcd[x + 2] + vcd[x + 4];
			int32_t sown = vown[x - 4] + vown[x - 2] + vown[x] + vown[x + 2] + vown[x + 4];
			int32_t wc = cd_weight(scd, sown), w3 = (wc * wc * wc + 32768) >> 16;

			gr[x] = (uint16_t)((w3 * cr[x] + (256 - w3) * sr[x] + 128) >> 8);
		}
	}
#undef ECD
#undef EOWN
}

/* ------------------------------------------------------------------------ */
/* Pass 3: red and blue */

/* The median of five values (7 compare-exchanges). */
static inline int32_t med5(int32_t a, int32_t b, int32_t c, int32_t d, int32_t e)
{
	int32_t t;

#define SORT2(p, q)              \
	do {                     \
		if (p > q) {     \
			t = p;   \
			p = q;   \
			q = t;   \
		}                \
	} while (0)
	SORT2(a, b);
	SORT2(d, e);
	SORT2(a, d); /* a: the smallest of a, b, d, e */
	SORT2(b, e); /* e: the largest */
	SORT2(b, c);
	SORT2(c, d);
	SORT2(b, c); /* c: the median of b, c, d */
#undef SORT2
	return c;
}

/* A colour difference k after false-colour suppression at strength fc, then the colour (not clamped). */
static inline int32_t suppressed(int32_t green, int32_t k, int32_t median, int32_t fc)
{
	k += ((median - k) * fc + 128) >> 8;
	return green - k;
}

/* The cubic (-1 9 9 -1) / 16 of the samples at -3, -1, 1, 3. */
static inline int32_t cubic(int32_t a, int32_t b, int32_t p, int32_t q)
{
	return (9 * (a + b) - p - q + 8) >> 4;
}

/*
 * A colour at (x, y) from its own samples alone, Bayer rows r[0..6] at
 * y - 3 .. y + 3: the cubic of the samples left and right (kind 0), above
 * and below (kind 1), or the 7x7 filter of pass 3's step 2 on the diagonal
 * samples (kind 2).
 */
static inline int32_t own_samples(const uint16_t *const r[7], int w, int x, int kind)
{
	int x1 = mirror(x - 1, w), x2 = mirror(x + 1, w), x0 = mirror(x - 3, w), x3 = mirror(x + 3, w);

	if (kind == 0)
		return cubic(r[3][x1], r[3][x2], r[3][x0], r[3][x3]);
	if (kind == 1)
		return cubic(r[2][x], r[4][x], r[0][x], r[6][x]);
	return (10 * (r[2][x1] + r[2][x2] + r[4][x1] + r[4][x2]) -
		(r[0][x1] + r[0][x2] + r[6][x1] + r[6][x2] + r[2][x0] + r[2][x3] + r[4][x0] + r[4][x3]) + 16) >> 5;
}

/* Sum of v[x - 4 .. x + 4]. */
static inline int32_t sum9(const int32_t *v, int x)
{
	return v[x - 4] + v[x - 3] + v[x - 2] + v[x - 1] + v[x] + v[x + 1] + v[x + 2] + v[x + 3] + v[x + 4];
}

void cisp_dmq_colour_rows(const struct plane16 *m, const struct plane16 *g, enum cisp_cfa cfa,
			  unsigned false_colour, const struct rgb16 *out, int y0, int y1, void *scratch)
{
	int w = m->width, n = y1 - y0;
	int32_t fc = false_colour > 256 ? 256 : (int32_t)false_colour;
	size_t ws = (size_t)w + 2 * PAD, nr = (size_t)(n + 10), ne = (size_t)(n + 8);
	int32_t *kr = scratch, *kb = kr + ws * nr, *gp = kb + ws * nr;
	int32_t *ecd = gp + ws * nr, *eown = ecd + ws * ne; /* rows [y0 - 4, y1 + 4) */
	int32_t *v[2][2];                                  /* [rows of y's parity, the others][cd, own] */

	for (int k = 0; k < 4; k++)
		v[k >> 1][k & 1] = eown + ws * (ne + (size_t)k) + PAD;

/* rows [y0 - 5, y1 + 5): green minus red, green minus blue, green */
#define KR(r) (kr + ws * (size_t)((r) - (y0 - 5)) + PAD)
#define KB(r) (kb + ws * (size_t)((r) - (y0 - 5)) + PAD)
#define GP(r) (gp + ws * (size_t)((r) - (y0 - 5)) + PAD)
#define ECD(r) (ecd + ws * (size_t)((r) - (y0 - 4)) + PAD)
#define EOWN(r) (eown + ws * (size_t)((r) - (y0 - 4)) + PAD)
	for (int r = y0 - 4; r < y1 + 4; r++)
		loo_row(m, g, cfa, r, ECD(r), EOWN(r));
	/* green, and the colour differences of the red and blue sites' own colour */
	for (int r = y0 - 5; r < y1 + 5; r++) {
		const uint16_t *mr = row_reflected(m, r), *gr = row_reflected(g, r);
		int32_t *k = cisp_dmq_red_row(cfa, r) ? KR(r) : KB(r), *gq = GP(r);

		for (int x = 0; x < w; x++)
			gq[x] = gr[x];
		cisp_dmq_pad_row(gq, w);
		for (int x = cisp_dmq_rb_column(cfa, r); x < w; x += 2)
			k[x] = gr[x] - mr[x];
		cisp_dmq_pad_row(k, w);
	}
	/* the other colour on red and blue sites: 7x7 filter of the diagonal sites' differences */
	for (int r = y0 - 2; r < y1 + 2; r++) {
		int red = cisp_dmq_red_row(cfa, r);
		int32_t *o = red ? KB(r) : KR(r);
		const int32_t *u3 = red ? KB(r - 3) : KR(r - 3), *u1 = red ? KB(r - 1) : KR(r - 1);
		const int32_t *d1 = red ? KB(r + 1) : KR(r + 1), *d3 = red ? KB(r + 3) : KR(r + 3);

		for (int x = cisp_dmq_rb_column(cfa, r); x < w; x += 2) {
			int32_t s = 10 * (u1[x - 1] + u1[x + 1] + d1[x - 1] + d1[x + 1]) -
				    (u3[x - 1] + u3[x + 1] + d3[x - 1] + d3[x + 1] + u1[x - 3] + u1[x + 3] + d1[x - 3] +
				     d1[x + 3]);

			o[x] = (s + 16) >> 5;
		}
		cisp_dmq_pad_row(o, w);
	}
	/* red and blue on green sites: the 4 neighbours, axes blended by the green gradients */
	for (int r = y0 - 1; r < y1 + 1; r++) {
		const int32_t *g0 = GP(r - 2), *g1 = GP(r - 1), *g2 = GP(r), *g3 = GP(r + 1), *g4 = GP(r + 2);
		int32_t *a = KR(r), *b = KB(r);
		const int32_t *au = KR(r - 1), *ad = KR(r + 1), *bu = KB(r - 1), *bd = KB(r + 1);

		for (int x = 1 - cisp_dmq_rb_column(cfa, r); x < w; x += 2) {
			int32_t gc = g2[x];
			int32_t gh = iabs(g2[x - 1] - g2[x + 1]) + iabs(2 * gc - g2[x - 2] - g2[x + 2]);
			int32_t gv = iabs(g1[x] - g3[x]) + iabs(2 * gc - g0[x] - g4[x]);
			int32_t ah = sig(mlog((uint32_t)gv + 1) - mlog((uint32_t)gh + 1)), av = 256 - ah;

			a[x] = (ah * (a[x - 1] + a[x + 1]) + av * (au[x] + ad[x]) + 256) >> 9;
			b[x] = (ah * (b[x - 1] + b[x + 1]) + av * (bu[x] + bd[x]) + 256) >> 9;
		}
		cisp_dmq_pad_row(a, w);
		cisp_dmq_pad_row(b, w);
	}
	/*
	 * False-colour suppression (median of 5 of the colour differences), then
	 * the blend with the colour from its own samples, weighed by the leave-one-out
	 * errors of the colour's sites within 4 rows and columns.
	 */
	for (int y = y0; y < y1; y++) {
		const uint16_t *gr = plane_row(g, y), *mr = plane_row(m, y);
		const uint16_t *m7[7] = { row_reflected(m, y - 3), row_reflected(m, y - 2), row_reflected(m, y - 1), mr,
					  row_reflected(m, y + 1), row_reflected(m, y + 2), row_reflected(m, y + 3) };
		uint16_t *ro = plane_row(&out->c[0], y), *bo = plane_row(&out->c[2], y);
		const int32_t *a = KR(y), *au = KR(y - 1), *ad = KR(y + 1);
		const int32_t *b = KB(y), *bu = KB(y - 1), *bd = KB(y + 1);
		int rbx = cisp_dmq_rb_column(cfa, y), red = cisp_dmq_red_row(cfa, y);

		/* column sums of the errors over rows y - 4, y - 2, .., y + 4 and over y - 3, y - 1, .., y + 3 */
		for (int x = -4; x < w + 4; x++) {
			v[0][0][x] = ECD(y - 4)[x] + ECD(y - 2)[x] + ECD(y)[x] + ECD(y + 2)[x] + ECD(y + 4)[x];
			v[0][1][x] = EOWN(y - 4)[x] + EOWN(y - 2)[x] + EOWN(y)[x] + EOWN(y + 2)[x] + EOWN(y + 4)[x];
			v[1][0][x] = ECD(y - 3)[x] + ECD(y - 1)[x] + ECD(y + 1)[x] + ECD(y + 3)[x];
			v[1][1][x] = EOWN(y - 3)[x] + EOWN(y - 1)[x] + EOWN(y + 1)[x] + EOWN(y + 3)[x];
		}
		for (int x = 0; x < w; x++) {
			int32_t gc = gr[x];
			int green = (x ^ rbx) & 1;
			/* red: rows of y's parity hold red sites on a red row; the taps of own_samples() */
			int32_t *const *vr = v[!red], *const *vb = v[red];

			if (green || !red) {
				int32_t wr = cd_weight(sum9(vr[0], x), sum9(vr[1], x));
				int32_t cd = suppressed(gc, a[x], med5(a[x], a[x - 1], a[x + 1], au[x], ad[x]), fc);
				int32_t own = own_samples(m7, w, x, green ? !red : 2);

				ro[x] = clamp16((wr * cd + (256 - wr) * own + 128) >> 8);
			} else {
				ro[x] = mr[x];
			}
			if (green || red) {
				int32_t wb = cd_weight(sum9(vb[0], x), sum9(vb[1], x));
				int32_t cd = suppressed(gc, b[x], med5(b[x], b[x - 1], b[x + 1], bu[x], bd[x]), fc);
				int32_t own = own_samples(m7, w, x, green ? red : 2);

				bo[x] = clamp16((wb * cd + (256 - wb) * own + 128) >> 8);
			} else {
				bo[x] = mr[x];
			}
		}
	}
#undef KR
#undef KB
#undef GP
#undef ECD
#undef EOWN
}

