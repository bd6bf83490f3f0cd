/* SPDX-License-Identifier: MIT */
/*
 * The optimised row functions of dsp.h, written once over a small vector
 * layer (x86/vec.h, arm/vec.h) and compiled once per instruction set by the
 * files in x86/ and arm/, which define SIMD_SUFFIX and include the layer
 * first. Each function gives the same bits as its C version in the stage
 * file (tests/checkasm); columns the vectors do not cover (frame edges,
 * tails) are left to the C versions.
 *
 * Two ways to reach 32-bit lanes, both order-preserving: wlo()/whi() then
 * packus32() for stages that treat every column alike, and even32()/odd32()
 * then join32() (the even and odd samples of one vector, as 32-bit lanes)
 * for stages whose arithmetic differs between CFA columns.
 */
#include <stdint.h>

#include "isp/blc.h"
#include "isp/bnr.h"
#include "isp/ccm.h"
#include "isp/csc.h"
#include "isp/demosaic.h"
#include "isp/dpc.h"
#include "isp/dsp.h"
#include "isp/lsc.h"
#include "isp/pack.h"
#include "isp/sharpen.h"
#include "isp/statistics.h"
#include "isp/tone.h"
#include "isp/unpack.h"
#include "isp/wb.h"

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define FN(name) CAT(name, SIMD_SUFFIX)

/*
 * Vectors at x = xs, xs + N16, ... and a last one at xe that may overlap the
 * one before (it writes the same values): no tail left to C but the columns
 * after xe + N16. Needs xe - xs to be even where the lanes' parity matters.
 */
#define FOR_VECTORS(x, xs, xe) \
	for (int more_ = (xs) <= (xe), x = (xs); more_; more_ = x < (xe), x = x + N16 < (xe) ? x + N16 : (xe))
#define AFTER_VECTORS(xs, xe) ((xs) <= (xe) ? (xe) + N16 : (xs))
/* FOR_VECTORS's vectors as whole steps, then the last one: x is not clamped in the loop. */
#define EACH_VECTOR(x, xs, xe, body)                          \
	do {                                                  \
		if ((xs) <= (xe)) {                           \
			int x = (xs);                         \
			for (; x < (xe); x += N16)            \
				body;                         \
			x = (xe);                             \
			body;                                 \
		}                                             \
	} while (0)

/*
 * (v + 2^(s-1)) >> s: with join_sat32()'s clamp to 0..65535, the fast demosaic's round_clip
 * (v <= 0 gives at most 0 here, as 2^(s-1) < 2^s).
 */
#define round32(v, s) sra32(add32(v, set32(1 << ((s)-1))), s)

/* Little-endian containers: both instruction sets this builds for are little-endian. */
static void FN(unpack16_row)(const uint8_t *s, uint16_t *d, int w, int bits)
{
	const vu16 top = set16((1 << bits) - 1), scale = set16(1 << (16 - bits));
	int x = 0;

	/* v << (16 - bits) as a product: v <= 2^bits - 1, so the low 16 bits hold it all. */
	for (; x + N16 <= w; x += N16)
		st(d + x, mullo16(min16(ld(s + 2 * x), top), scale));
	cisp_unpack16_row_c(s + 2 * x, d + x, w - x, bits);
}

static void FN(unpack8_row)(const uint8_t *s, uint16_t *d, int w)
{
	int x = 0;

	for (; x + N16 <= w; x += N16)
		st(d + x, sll16(ld8(s + x), 8));
	cisp_unpack8_row_c(s + x, d + x, w - x);
}

/* Per-site values (a cell's node gains, the black levels) as the lanes of a vector starting at an even and at an odd column. */
V_INLINE vu16 site_pair(const uint16_t g[2], int odd)
{
	return as16(set32((int32_t)((uint32_t)g[odd] | (uint32_t)g[!odd] << 16)));
}

static void FN(blc_row)(const uint16_t *s, uint16_t *d, int w, const uint16_t black[2], const uint16_t gain[2],
			uint16_t white)
{
	const vu16 b = site_pair(black, 0), g = site_pair(gain, 0), r = set16(8191), wh = set16(white);
	int x = 0;

	/*
	 * In 16-bit lanes: u = max(v - black, 0) is a saturating subtraction, and with hi and lo the
	 * halves of the product u g, (u g + 8192) >> 14 = 4 hi + ((lo + 8192) >> 14), whose second
	 * term is avg(lo, 8191) >> 13 (0 to 4). 4 hi as two saturating doublings: at least 65535
	 * where hi >= 16384, so the clamp to 65535 comes with them.
	 */
	for (; x + N16 <= w; x += N16) {
		vu16 v = ld(s + x), u = subs16(v, b);
		vu16 hi = mulhi16(u, g), h2 = adds16(hi, hi);
		vu16 q = adds16(adds16(h2, h2), srl16(avg16(mullo16(u, g), r), 13));

		/* Samples at or above white become 65535: or with the all-ones mask. */
		st(d + x, vor(q, le16(wh, v)));
	}
	cisp_blc_row_c(s + x, d + x, w - x, black, gain, white);
}

static void FN(wb_row)(const uint16_t *s, uint16_t *d, int w, const uint16_t gain[2])
{
	const vs32 g = set32x2(gain[0], gain[1]), r = set32(2048);
	int x = 0;

	for (; x + N16 <= w; x += N16) {
		vu16 v = ld(s + x);

		st(d + x, packus32(srl32(add32(mul32(wlo(v), g), r), 12), srl32(add32(mul32(whi(v), g), r), 12)));
	}
	cisp_wb_row_c(s + x, d + x, w - x, gain);
}

/*
 * Samples @v times the gains blended by the Q10 weights @k (cisp_lsc_cell_c()) from the
 * left node's gains @a and the right's less them @d, as 32-bit lanes: (a (1024 - k) + b k +
 * 512) >> 10 = a + ((b - a) k + 512) >> 10, the shift arithmetic, one multiply less.
 */
V_INLINE vu16 lsc_vec(vu16 v, vu16 k, vs32 a, vs32 d)
{
	const vs32 r10 = set32(512), r12 = set32(2048);
	vs32 glo = add32(a, sra32(add32(mul32(d, wlo(k)), r10), 10));
	vs32 ghi = add32(a, sra32(add32(mul32(d, whi(k)), r10), 10));

	return packus32(srl32(add32(mul32(wlo(v), glo), r12), 12), srl32(add32(mul32(whi(v), ghi), r12), 12));
}

static void FN(lsc_row)(const uint16_t *s, uint16_t *d, int w, const struct cisp_lsc_row *r)
{
	const uint16_t *const wx = r->wx; /* in a local: the vector stores may alias anything */

	/* Cell by cell: the node gains stay in registers. */
	for (int i = 0, x0 = 0; i < r->cells && x0 < w; i++) {
		const int x1 = r->end[i] < w ? r->end[i] : w, xt = x1 - N16;
		vs32 a[2], b[2];
		vu16 vt, kt;
		int x = x0;

		if (x1 - x0 < N16) {
			cisp_lsc_cell_c(s, d, r, i, x0, x1);
			x0 = x1;
			continue;
		}
		/* For vectors starting at x0's parity and at the other one; both halves of wlo() alike. */
		for (int p = 0; p < 2; p++) {
			a[p] = wlo(site_pair(r->left[i], (x0 + p) & 1));
			b[p] = sub32(wlo(site_pair(r->right[i], (x0 + p) & 1)), a[p]);
		}
		/* The last vector ends at x1 and may overlap the one before: its input first (s may be d). */
		vt = ld(s + xt);
		kt = ld(wx + xt);
		for (; x + N16 <= x1; x += N16)
			st(d + x, lsc_vec(ld(s + x), ld(wx + x), a[0], b[0]));
		if (x < x1)
			st(d + xt, lsc_vec(vt, kt, a[(xt - x0) & 1], b[(xt - x0) & 1]));
		x0 = x1;
	}
}

/*
 * The defect correction of one vector: p (mid at x) against its 8 same-colour neighbours, from
 * the max and min of up and down at x (ud_hi, ud_lo), of the four diagonals (dg_hi, dg_lo) and
 * the mid row's columns x - 2 and x + 2 (ml, mr).
 */
V_INLINE vu16 dpc_of(vu16 ud_hi, vu16 ud_lo, vu16 dg_hi, vu16 dg_lo, vu16 ml, vu16 p, vu16 mr, vu16 t)
{
	/* The axial four's order serves the extremes and the middle two alike. */
	vu16 lr_hi = max16(ml, mr), lr_lo = min16(ml, mr);
	vu16 hi = max16(max16(ud_hi, lr_hi), dg_hi), lo = min16(min16(ud_lo, lr_lo), dg_lo);
	/* The middle two of up, down, left, right, averaged rounding up. */
	vu16 m = avg16(max16(ud_lo, lr_lo), min16(ud_hi, lr_hi));
	/*
	 * p - hi > t or lo - p > t is p outside [sat(lo - t), sat(hi + t)], a range that is never
	 * empty (lo <= hi): p - low wraps above high - low exactly when p is outside.
	 */
	vu16 low = subs16(lo, t);

	return sel_le16(sub16(p, low), sub16(adds16(hi, t), low), p, m);
}

/* dpc_of() from the 9 samples, u/m/d the rows up, mid and down, l/c/r the columns x - 2, x, x + 2. */
V_INLINE vu16 dpc_vec(vu16 ul, vu16 uc, vu16 ur, vu16 ml, vu16 p, vu16 mr, vu16 dl, vu16 dc, vu16 dr, vu16 t)
{
	return dpc_of(max16(uc, dc), min16(uc, dc), max16(max16(ul, ur), max16(dl, dr)), min16(min16(ul, ur), min16(dl, dr)),
		      ml, p, mr, t);
}

/* The vector two columns back from @b, or two on from @a, of @a and @b side by side. */
#define back2(a, b) as16(prev32(as32(a), as32(b)))
#define on2(a, b) as16(next32(as32(a), as32(b)))

/*
 * dpc_vec() at x = x0, x0 + N16, ... while the next vector lies inside the row (x <= @xr), and
 * the column x after the last one. The diagonals' extremes are those of up and down at x - 2
 * and x + 2, so each vector's vertical max and min, and its mid row, serve its neighbours too,
 * taken two columns back or on across two vectors: one load a row a vector, where dpc_vec()
 * loads three, two of them two columns off.
 */
V_INLINE int FN(dpc_rolled)(const uint16_t *up, const uint16_t *mid, const uint16_t *dn, uint16_t *d, int x0, int xr,
			    vu16 t)
{
	vu16 u = ld(up + x0 - N16), v = ld(dn + x0 - N16);
	vu16 hi_p = max16(u, v), lo_p = min16(u, v), m_p = ld(mid + x0 - N16);
	vu16 hi, lo, m = ld(mid + x0);
	int x = x0;

	u = ld(up + x0);
	v = ld(dn + x0);
	hi = max16(u, v);
	lo = min16(u, v);
	for (; x <= xr; x += N16) {
		const vu16 un = ld(up + x + N16), vn = ld(dn + x + N16), m_n = ld(mid + x + N16);
		const vu16 hi_n = max16(un, vn), lo_n = min16(un, vn);

		st(d + x, dpc_of(hi, lo, max16(back2(hi_p, hi), on2(hi, hi_n)), min16(back2(lo_p, lo), on2(lo, lo_n)),
				 back2(m_p, m), m, on2(m, m_n), t));
		hi_p = hi;
		lo_p = lo;
		m_p = m;
		hi = hi_n;
		lo = lo_n;
		m = m_n;
	}
	return x;
}

/* Columns x - 2 of @row for x = 0.. (@right 0) or x + 2 for the vector ending at @w (@right 1), reflected as cisp_dpc_mirror(). */
V_INLINE vu16 dpc_ld_reflected(const uint16_t *row, int w, int right)
{
	uint16_t tmp[N16 + 2];

	if (!right) {
		st(tmp + 2, ld(row));
		tmp[0] = row[cisp_dpc_mirror(-2, w)];
		tmp[1] = row[cisp_dpc_mirror(-1, w)];
		return ld(tmp);
	}
	st(tmp, ld(row + w - N16));
	tmp[N16] = row[cisp_dpc_mirror(w, w)];
	tmp[N16 + 1] = row[cisp_dpc_mirror(w + 1, w)];
	return ld(tmp + 2);
}

static void FN(dpc_row)(const uint16_t *up, const uint16_t *mid, const uint16_t *dn, uint16_t *d, int w,
			int threshold)
{
	const vu16 t = set16(threshold);
	const int xe = w - 2 - N16, xr = w - N16;
	int xm;

	if (w < N16 + 4) {
		cisp_dpc_row_c(up, mid, dn, d, w, threshold);
		return;
	}
	/* The first and last vectors with their neighbours past the row's ends reflected; those between overlap them. */
	st(d, dpc_vec(dpc_ld_reflected(up, w, 0), ld(up), ld(up + 2), dpc_ld_reflected(mid, w, 0), ld(mid), ld(mid + 2),
		      dpc_ld_reflected(dn, w, 0), ld(dn), ld(dn + 2), t));
	xm = FN(dpc_rolled)(up, mid, dn, d, N16, w - 2 * N16 < xe ? w - 2 * N16 : xe, t);
	xm = xm < xe ? xm : xe;
	FOR_VECTORS(x, xm, xe) {
		st(d + x, dpc_vec(ld(up + x - 2), ld(up + x), ld(up + x + 2), ld(mid + x - 2), ld(mid + x), ld(mid + x + 2),
				  ld(dn + x - 2), ld(dn + x), ld(dn + x + 2), t));
	}
	cisp_dpc_row_range_c(up, mid, dn, d, w, threshold, AFTER_VECTORS(xm, xe), xr);
	st(d + xr, dpc_vec(ld(up + xr - 2), ld(up + xr), dpc_ld_reflected(up, w, 1), ld(mid + xr - 2), ld(mid + xr),
			   dpc_ld_reflected(mid, w, 1), ld(dn + xr - 2), ld(dn + xr), dpc_ld_reflected(dn, w, 1), t));
}

/* The vertical 1 2 1 of the guide (cisp_bnr_guide_at()) at columns x.. */
V_INLINE vu16 bnr_guide_col(const uint16_t *a, const uint16_t *m, const uint16_t *b, int x)
{
	return avg16(avg16(ld(a + x), ld(b + x)), ld(m + x));
}

#ifdef VEC_HAS_REFLECT
/* The vertical filter at columns x - 1.. (@off -1, x = 0) or x + 1.. (@off 1, the vector ending at the row's end), reflected. */
V_INLINE vu16 bnr_guide_col_reflected(const uint16_t *a, const uint16_t *m, const uint16_t *b, int x, int off)
{
	return avg16(avg16(ld_reflected(a + x, off), ld_reflected(b + x, off)), ld_reflected(m + x, off));
}
#define BNR_GUIDE_REFLECTS(w) ((w) >= N16 + 2)
#else
#define BNR_GUIDE_REFLECTS(w) 0
#endif

static void FN(bnr_guide_row)(const uint16_t *a, const uint16_t *m, const uint16_t *b, uint16_t *d, int w)
{
	const int xe = w - 1 - N16;
	int xs = 1;

	/* The 1 2 1 filter as avg(avg(outer, outer), middle), down the rows and then across (cisp_bnr_guide_at()). */
#ifdef VEC_HAS_REFLECT
	/* The first and last vectors reflect at the row's ends; those between overlap them. */
	if (BNR_GUIDE_REFLECTS(w)) {
		st(d, avg16(avg16(bnr_guide_col_reflected(a, m, b, 0, -1), bnr_guide_col(a, m, b, 1)),
			    bnr_guide_col(a, m, b, 0)));
		st(d + w - N16, avg16(avg16(bnr_guide_col(a, m, b, w - N16 - 1), bnr_guide_col_reflected(a, m, b, w - N16, 1)),
				      bnr_guide_col(a, m, b, w - N16)));
	}
#endif
	if (!BNR_GUIDE_REFLECTS(w))
		cisp_bnr_guide_range_c(a, m, b, d, w, 0, 1);
	if (w >= 2 * N16) {
		/* Each column's vertical filter once: v from column xs - 1, n the N16 columns after it. */
		vu16 v = bnr_guide_col(a, m, b, 0);

		for (; xs - 1 + 2 * N16 <= w; xs += N16) {
			vu16 n = bnr_guide_col(a, m, b, xs - 1 + N16);

			st(d + xs, avg16(avg16(v, ext16(v, n, 2)), ext16(v, n, 1)));
			v = n;
		}
		/* The rest as one vector ending at the last column but one. */
		if (xs > xe)
			xs = xe;
	}
	FOR_VECTORS(x, xs, xe) {
		vu16 l = bnr_guide_col(a, m, b, x - 1), c = bnr_guide_col(a, m, b, x), r = bnr_guide_col(a, m, b, x + 1);

		st(d + x, avg16(avg16(l, r), c));
	}
	cisp_bnr_guide_range_c(a, m, b, d, w, AFTER_VECTORS(xs, xe), BNR_GUIDE_REFLECTS(w) ? w - N16 : w);
}

static void FN(recip_row)(const uint32_t *n, uint32_t *r, int count)
{
	int i = 0;

	for (; i + N32 <= count; i += N32)
		st32(r + i, recip32(ld32(n + i)));
	cisp_recip_row_c(n + i, r + i, count - i);
}

#ifdef VEC_HAS_TONE
/* The tone function computed from the segment tables: no 128 KiB table in the cache. */
static void FN(tone_row)(const struct cisp_tone_coeffs *c, const uint16_t *s, uint16_t *d, int w)
{
	struct tone_lut t;
	int x = 0;

	tone_lut_load(&t, c->base, c->rise);
	for (; x + N16 <= w; x += N16)
		st(d + x, tone_vec(&t, ld(s + x)));
	cisp_tone_row_c(c, s + x, d + x, w - x);
}
#endif

/*
 * ld(p + x + off), or for the row's first vector (@edge < 0, x = 0) and last
 * (@edge > 0, ending at the row's end) its lanes past the row reflected, where
 * the vector layer can (ld_reflected()).
 */
V_INLINE vu16 ld_edge(const uint16_t *p, int x, int off, int edge)
{
#ifdef VEC_HAS_REFLECT
	if ((edge < 0 && off < 0) || (edge > 0 && off > 0))
		return ld_reflected(p + x, off);
#else
	(void)edge;
#endif
	return ld(p + x + off);
}

/*
 * The weight 0..64 of a tap of the Bayer denoise (cisp_bnr_tap_weight()) on 16-bit lanes. The two
 * distances' terms are below 24576 and 12288 (the scales are), so their sum does not wrap.
 */
V_INLINE vu16 bnr_weight(vu16 v, vu16 g, vu16 v0, vu16 g0, vu16 scale_v, vu16 scale_g)
{
	vu16 dg = absd16(g, g0), dv = absd16(v, v0);

	return subs16(set16(64), add16(mulhi16(dg, scale_g), mulhi16(dv, scale_v)));
}

#if VEC_BITS == 512 && defined(__AVX512VNNI__)
/*
 * Σw·v two taps at a time: their weights and samples interleaved into 32-bit lanes, the samples
 * biased by -32768 to make them signed, and one vpdpwssd a half adds w_a (v_a - 32768) +
 * w_b (v_b - 32768) to each pixel's sum; FN(bnr_vec) adds 32768 Σw back once.
 */
#define BNR_PAIRS 1
#define BNR_TAP2_VG(va, ga, vb, gb)                                                                            \
	do {                                                                                                   \
		vu16 va_ = (va), vb_ = (vb);                                                                   \
		vu16 wa_ = bnr_weight(va_, (ga), v0, g0, scale_v, scale_g);                                    \
		vu16 wb_ = bnr_weight(vb_, (gb), v0, g0, scale_v, scale_g);                                    \
		sw = add16(sw, add16(wa_, wb_));                                                               \
		sl = _mm512_dpwssd_epi32(sl, _mm512_unpacklo_epi16(wa_, wb_),                                  \
					 vxor(_mm512_unpacklo_epi16(va_, vb_), set16(0x8000)));                \
		sh = _mm512_dpwssd_epi32(sh, _mm512_unpackhi_epi16(wa_, wb_),                                  \
					 vxor(_mm512_unpackhi_epi16(va_, vb_), set16(0x8000)));                \
	} while (0)
#else
/* One tap: its weight into sw, weight * sample into sl, sh. */
#define BNR_TAP_VG(vv, gv)                                                                                     \
	do {                                                                                                   \
		vu16 v_ = (vv);                                                                                \
		vu16 w_ = bnr_weight(v_, (gv), v0, g0, scale_v, scale_g);                                      \
		vs32 pl_, ph_;                                                                                 \
		sw = add16(sw, w_);                                                                            \
		mul16x32(w_, v_, &pl_, &ph_);                                                                  \
		sl = add32(sl, pl_);                                                                           \
		sh = add32(sh, ph_);                                                                           \
	} while (0)
#define BNR_TAP2_VG(va, ga, vb, gb) \
	do {                        \
		BNR_TAP_VG(va, ga); \
		BNR_TAP_VG(vb, gb); \
	} while (0)
#endif
/* The taps at column offsets @oa of row @ja and @ob of row @jb. */
#define BNR_LD(p, off) ld_edge(p, x, off, edge)
#define BNR_TAP2(ja, oa, jb, ob) BNR_TAP2_VG(BNR_LD(r[ja], oa), BNR_LD(g[ja], oa), BNR_LD(r[jb], ob), BNR_LD(g[jb], ob))
/* Green lanes take the diagonal (@jd, @od), the others the corner (@jc, @oc). */
#define BNR_MIXED_R(jd, od, jc, oc) sel16(k->diag, BNR_LD(r[jd], od), BNR_LD(r[jc], oc))
#define BNR_MIXED_G(jd, od, jc, oc) sel16(k->diag, BNR_LD(g[jd], od), BNR_LD(g[jc], oc))
#define BNR_TAP2_MIXED(a, b) BNR_TAP2_VG(BNR_MIXED_R a, BNR_MIXED_G a, BNR_MIXED_R b, BNR_MIXED_G b)

/* What every vector of a row of the Bayer denoise uses. */
struct FN(bnr_consts) {
	vu16 diag; /* lanes of green sites, which take the diagonal taps instead of the corners */
#ifdef VEC_HAS_LUT64
	struct lut64 inv; /* the even site's CISP_BNR_BINS noise scales, then the odd site's */
#endif
	const struct cisp_bnr_row_tables *t;
};

/* The noise scale of each lane's guide level g0, per site (x even: the lanes' sites follow x's parity). */
V_INLINE vu16 FN(bnr_inv)(vu16 g0, const struct FN(bnr_consts) *k)
{
#ifdef VEC_HAS_LUT64
	return lut64(&k->inv, vor(srl16(g0, CISP_BNR_BIN_SHIFT), as16(set32(CISP_BNR_BINS << 16))));
#else
	uint16_t tmp[N16];

	st(tmp, g0);
	for (int i = 0; i < N16; i++)
		tmp[i] = k->t->inv[i & 1][tmp[i] >> 8];
	return ld(tmp);
#endif
}

/* The denoised samples of columns x.. (x even), @inv their noise scales; @edge as ld_edge(). */
V_INLINE vu16 FN(bnr_vec)(const uint16_t *const r[5], const uint16_t *const g[5], int x, int edge, vu16 inv,
			  const struct FN(bnr_consts) *k)
{
	const vu16 c64 = set16(64);
	/* cisp_bnr_guide_scale() and cisp_bnr_sample_scale(): (3 inv) >> 3 is (inv * 8192 * 3) >> 16. */
	const vu16 scale_g = mulhi16(inv, set16(3 << 13)), scale_v = mulhi16(inv, set16(3 << 12));
	vu16 v0 = ld(r[2] + x), g0 = ld(g[2] + x), sw = c64;
#ifdef BNR_PAIRS
	vs32 sl = zero(), sh = zero();
#else
	vs32 sl, sh;

	/* The centre weighs 64. */
	mul16x32(c64, v0, &sl, &sh);
#endif
	BNR_TAP2(0, 0, 4, 0);
	BNR_TAP2(2, -2, 2, 2);
	BNR_TAP2_MIXED((1, -1, 0, -2), (1, 1, 0, 2));
	BNR_TAP2_MIXED((3, -1, 4, -2), (3, 1, 4, 2));
#ifdef BNR_PAIRS
	{
		/*
		 * The centre, 64 v0, and the bias back, 32768 Σw of the eight taps: as one more pair,
		 * 2 sw 16384 + 64 (v0 - 32768), sw with the centre's 64.
		 */
		const vs32 factors = set32(16384 | 64 << 16);
		vu16 s2 = add16(sw, sw), c = vxor(v0, set16(0x8000));

		sl = _mm512_dpwssd_epi32(sl, _mm512_unpacklo_epi16(s2, c), factors);
		sh = _mm512_dpwssd_epi32(sh, _mm512_unpackhi_epi16(s2, c), factors);
	}
#endif
	/* The mean: a single-precision division per lane (cisp_bnr_mean()). */
	return packus32(div_round32(sl, wlo(sw)), div_round32(sh, whi(sw)));
}

#undef BNR_TAP2_MIXED
#undef BNR_MIXED_G
#undef BNR_MIXED_R
#undef BNR_TAP2
#undef BNR_LD
#undef BNR_TAP2_VG
#undef BNR_TAP_VG
#undef BNR_PAIRS

/*
 * Vectors of a row's middle taken BNR_RUN at a time: see FN(bnr_run). Where the scales' lookup
 * is a vector operation (AVX-512's permute), one at a time: the runs' second loop would only
 * reload what the first stored (about 6% of the row's time at AVX-512).
 */
#ifdef VEC_HAS_LUT64
#define BNR_RUN 1
#else
#define BNR_RUN 8
#endif

/*
 * The vectors at columns x[0..n) (no edge): their noise scales first, then
 * their taps, in two loops, so that the scales' lookups (a copy through
 * memory but on AVX-512) do not make the taps' registers spill around them:
 * one loop of both took 1.8 more instructions a pixel at AVX2 (callgrind).
 */
V_INLINE void FN(bnr_run)(const uint16_t *const r[5], const uint16_t *const g[5], uint16_t *d, const int *x, int n,
			  const struct FN(bnr_consts) *k)
{
	vu16 inv[BNR_RUN];

	for (int i = 0; i < n; i++)
		inv[i] = FN(bnr_inv)(ld(g[2] + x[i]), k);
	for (int i = 0; i < n; i++)
		st(d + x[i], FN(bnr_vec)(r, g, x[i], 0, inv[i], k));
}

/* The vectors x = xs, xs + N16, ... and one at xe, as FOR_VECTORS, BNR_RUN at a time. */
V_INLINE void FN(bnr_middle)(const uint16_t *const r[5], const uint16_t *const g[5], uint16_t *d, int xs, int xe,
			     const struct FN(bnr_consts) *k)
{
	int x[BNR_RUN], n = 0;

	FOR_VECTORS(xv, xs, xe) {
		x[n++] = xv;
		if (n == BNR_RUN) {
			FN(bnr_run)(r, g, d, x, n, k);
			n = 0;
		}
	}
	if (n)
		FN(bnr_run)(r, g, d, x, n, k);
}

static void FN(bnr_row)(const uint16_t *const rows[5], const uint16_t *const guides[5], uint16_t *d, int w,
			const struct cisp_bnr_row_tables *t)
{
	/* The row pointers in locals: the vector stores may alias anything, so the arguments' would be read again. */
	const uint16_t *const r[5] = { rows[0], rows[1], rows[2], rows[3], rows[4] };
	const uint16_t *const g[5] = { guides[0], guides[1], guides[2], guides[3], guides[4] };
	struct FN(bnr_consts) k;

	if (!t->enabled || w < N16 + 4) {
		cisp_bnr_row_c(r, g, d, w, t);
		return;
	}
	k.diag = as16(set32((int32_t)((t->green[0] ? 0xffffu : 0) | (t->green[1] ? 0xffff0000u : 0))));
	k.t = t;
#ifdef VEC_HAS_LUT64
	uint16_t bins[2 * CISP_BNR_BINS];

	for (int i = 0; i < 2 * CISP_BNR_BINS; i++)
		bins[i] = t->inv[i / CISP_BNR_BINS][(i % CISP_BNR_BINS) << (CISP_BNR_BIN_SHIFT - 8)];
	lut64_load(&k.inv, bins);
#endif
#ifdef VEC_HAS_REFLECT
	/* The first and last vectors reflect at the row's ends; those between overlap them. */
	st(d, FN(bnr_vec)(r, g, 0, -1, FN(bnr_inv)(ld(g[2]), &k), &k));
	FN(bnr_middle)(r, g, d, N16, w - 2 - N16, &k);
	st(d + w - N16, FN(bnr_vec)(r, g, w - N16, 1, FN(bnr_inv)(ld(g[2] + w - N16), &k), &k));
#else
	cisp_bnr_range_c(r, g, d, w, t, 0, 2);
	FN(bnr_middle)(r, g, d, 2, w - 2 - N16, &k);
	cisp_bnr_range_c(r, g, d, w, t, AFTER_VECTORS(2, w - 2 - N16), w);
#endif
}

/*
 * The luma weights as vectors the compiler cannot see into: it would expand each multiply
 * by them into shifts and adds, four or five instructions where x86 has one.
 */
#ifdef __x86_64__
#define OPAQUE_VEC(v) __asm__("" : "+v"(v))
#else
#define OPAQUE_VEC(v) ((void)(v))
#endif

/*
 * stats_cells() for a Bayer order: @rg the row of R and Gr, @gb the row of Gb
 * and B, R at odd columns when @odd (a constant where this is inlined).
 */
V_INLINE uint32_t FN(stats_cells_bayer)(const uint16_t *rg, const uint16_t *gbb, int cells, int odd,
					const uint16_t wb[4], int saturation, uint16_t *const out[2],
					uint32_t *const column[4])
{
	static const int32_t lane[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	const vs32 g_r = set32(wb[0]), g_gr = set32(wb[1]), g_gb = set32(wb[2]), g_b = set32(wb[3]);
	const vs32 sat = set32(saturation), r2048 = set32(2048), top = set32(65535), one = set32(1);
	vs32 k54 = set32(54), k183 = set32(183), k19 = set32(19);
	/* In locals: the vector stores may alias anything. */
	uint16_t *const dst[2] = { out[0], out[1] };
	uint32_t *const col[4] = { column[0], column[1], column[2], column[3] };
	vs32 green = set32(0);
	int i = 0, summed = 0; /* cells [0, summed) are in green and the columns */

	OPAQUE_VEC(k54);
	OPAQUE_VEC(k183);
	OPAQUE_VEC(k19);

	/*
	 * Cells are pairs of samples: the even and odd samples of a vector are a cell row's two
	 * columns. N16 cells a step; the last ends at the row's end and may overlap the one before.
	 */
	for (;;) {
		vs32 res[2][2];

		for (int h = 0; h < 2; h++) {
			const int c0 = i + h * N32, x = 2 * c0;
			vu16 a = ld(rg + x), b = ld(gbb + x);
			vs32 r = odd ? odd32(a) : even32(a), gr = odd ? even32(a) : odd32(a);
			vs32 gb = odd ? odd32(b) : even32(b), bl = odd ? even32(b) : odd32(b);
			vs32 g = sra32(add32(add32(gr, gb), one), 1);
			/* White balance as wb_apply(): unsigned product, clamp to 65535. */
			vs32 wr = min32(srl32(add32(mul32(r, g_r), r2048), 12), top);
			vs32 wgr = min32(srl32(add32(mul32(gr, g_gr), r2048), 12), top);
			vs32 wgb = min32(srl32(add32(mul32(gb, g_gb), r2048), 12), top);
			vs32 wbl = min32(srl32(add32(mul32(bl, g_b), r2048), 12), top);
			vs32 y = add32(add32(mul32(wr, k54), mul32(sra32(add32(add32(wgr, wgb), one), 1), k183)),
				       add32(mul32(wbl, k19), set32(128)));
			/* Only the cells the step before did not take. */
			vm32 fresh = all32m(), ok;

			if (c0 < summed)
				fresh = and_gt32(fresh, ld32(lane), set32(summed - c0 - 1));
			/* As lane masks (vm32): at 512 bits the compares chain through the mask, no ands. */
			ok = and_gt32(and_gt32(and_gt32(and_gt32(fresh, sat, r), sat, gr), sat, gb), sat, bl);
			green = add32_where(green, fresh, g);
			st32(col[0] + c0, add32_where(ld32(col[0] + c0), ok, r));
			st32(col[1] + c0, add32_where(ld32(col[1] + c0), ok, g));
			st32(col[2] + c0, add32_where(ld32(col[2] + c0), ok, bl));
			st32(col[3] + c0, add32_where(ld32(col[3] + c0), ok, one));
			res[0][h] = g;
			res[1][h] = sra32(y, 16);
		}
		for (int k = 0; k < 2; k++)
			st(dst[k] + i, narrow32(res[k][0], res[k][1]));
		summed = i + N16;
		if (summed >= cells)
			return hsum32(green);
		i = i + 2 * N16 <= cells ? i + N16 : cells - N16;
	}
}

static uint32_t FN(stats_cells)(const uint16_t *row0, const uint16_t *row1, int cells, const uint8_t site[4],
			       const uint16_t wb[4], int saturation, uint16_t *const out[2], uint32_t *const column[4])
{
	const int p = site[CISP_CH_R]; /* (row & 1) * 2 + (column & 1) of R */

	/* Bayer orders only (Gr beside R, Gb below it, B diagonal), and a whole step of cells. */
	if (cells < N16 || site[CISP_CH_GR] != (p ^ 1) || site[CISP_CH_GB] != (p ^ 2) || site[CISP_CH_B] != (p ^ 3))
		return cisp_stats_cells_c(row0, row1, cells, site, wb, saturation, out, column);
	if (p & 1)
		return FN(stats_cells_bayer)(p & 2 ? row1 : row0, p & 2 ? row0 : row1, cells, 1, wb, saturation, out,
					     column);
	return FN(stats_cells_bayer)(p & 2 ? row1 : row0, p & 2 ? row0 : row1, cells, 0, wb, saturation, out, column);
}

/*
 * cisp_stats_run_sums_c(): whole vectors, each cleared once summed, then the vector ending at
 * the run's end, whose lanes before the run's rest are cleared already.
 */
static void FN(stats_run_sums)(uint32_t *const v[4], const int *start, int runs, uint32_t (*sum)[4])
{
	uint32_t *const p[4] = { v[0], v[1], v[2], v[3] };
	const vs32 zero32 = set32(0);

	for (int k = 0; k < runs; k++) {
		const int i1 = start[k + 1];
		vs32 acc[4] = { zero32, zero32, zero32, zero32 };
		int i = start[k];

		for (; i + N32 <= i1; i += N32) {
			for (int c = 0; c < 4; c++) {
				acc[c] = add32(acc[c], ld32(p[c] + i));
				st32(p[c] + i, zero32);
			}
		}
		if (i < i1 && i1 >= N32) {
			for (int c = 0; c < 4; c++) {
				acc[c] = add32(acc[c], ld32(p[c] + i1 - N32));
				st32(p[c] + i1 - N32, zero32);
			}
			i = i1;
		}
		hsum32x4(acc, sum[k]);
		for (; i < i1; i++) {
			for (int c = 0; c < 4; c++) {
				sum[k][c] += p[c][i];
				p[c][i] = 0;
			}
		}
	}
}

/*
 * ld(p + x) of a row of @w samples, or for the row's first and last vectors (@edge, x in
 * [-2, w - N16 + 2]) with the lanes before its start or past its end reflected, where the
 * vector layer can (ld_reflected()).
 */
V_INLINE vu16 ld_row(const uint16_t *p, int x, int w, int edge)
{
#ifdef VEC_HAS_REFLECT
	if (edge && x < 0)
		return ld_reflected(p, x);
	if (edge && x > w - N16)
		return ld_reflected(p + w - N16, x - (w - N16));
#else
	(void)w;
	(void)edge;
#endif
	return ld(p + x);
}

/*
 * The sample at column (colour site + o) of row p for each pair, as 32-bit
 * lanes: from the vector at the even column below it (odd o: its odd
 * samples), so the loads at x - 2, x and x + 2 serve all five offsets.
 */
#define L(p, o) (((o) & 1) ? odd32(ld_row(p, x + (o) - 1, w, edge)) : even32(ld_row(p, x + (o), w, edge)))

/* The pairs (red or blue site, green site) of the fast demosaic's green from column x (@edge: ld_row()). */
V_INLINE vu16 FN(green_vec)(const uint16_t *const r[5], int x, int w, int edge)
{
	const uint16_t *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3], *r4 = r[4];
	/*
	 * The samples of a pair at site column c as 16-bit lane pairs: the load at x + o holds
	 * columns c + o and c + o + 1, blend_odd16() of two loads any two columns. The absolute
	 * differences are made two a vector in 16-bit lanes (absd16()) and added into the
	 * pairs' 32-bit lanes weighted by one multiply-add each (madd16()), where 32-bit lanes
	 * take a shift to part the samples and an abs a difference, both port 0 only at 512
	 * bits on Intel. madd16() offsets the lanes by -32768: the sums start from the offsets.
	 */
	const vu16 b_l = ld_row(r1, x - 2, w, edge), b_c = ld_row(r1, x, w, edge);
	const vu16 c_l = ld_row(r3, x - 2, w, edge), c_c = ld_row(r3, x, w, edge);
	const vu16 a_c = ld_row(r2, x, w, edge), u_c = ld_row(r0, x, w, edge), e_c = ld_row(r4, x, w, edge);
	const vu16 a13 = blend_odd16(ld_row(r2, x - 1, w, edge), a_c); /* (a1, a3) */
	const vu16 u13 = blend_odd16(ld_row(r0, x - 1, w, edge), u_c), e13 = blend_odd16(ld_row(r4, x - 1, w, edge), e_c);
	const vu16 bc2 = blend_odd16(b_c, ld_row(r3, x - 1, w, edge)); /* (b2, c2) */
	const vu16 bc4 = blend_odd16(ld_row(r1, x + 2, w, edge), ld_row(r3, x + 1, w, edge)); /* (b4, c4) */
	const vs32 v = even32(a_c), v2 = add32(v, v), z = set32(0);
	const vs32 lh = sub32(sub32(v2, even32(ld_row(r2, x - 2, w, edge))), even32(ld_row(r2, x + 2, w, edge)));
	const vs32 lv = sub32(sub32(v2, even32(u_c)), even32(e_c));
	/* The estimates gh and gv less 131072 each, from the offsets. */
	const vs32 gh = madd16(lh, a13, 2, 2), gv = madd16(lv, bc2, 2, 2);
	/* 4 (|a1 - a3| + |lh|) + 2 (|b1 - b3| + |c1 - c3|) + |b0 - b2| + |c0 - c2| + |b2 - b4| + |c2 - c4| */
	const vs32 dh = add32(sll32(add32(abs32(madd16(z, a13, 1, -1)), abs32(lh)), 2),
			      madd16(madd16(madd16(set32(8 * 32768), absd16(b_l, b_c), 1, 2), absd16(c_l, c_c), 1, 2),
				     absd16(bc2, bc4), 1, 1));
	/* 4 (|b2 - c2| + |lv|) + 2 (|b1 - c1| + |b3 - c3|) + |u1 - a1| + |u3 - a3| + |a1 - e1| + |a3 - e3| */
	const vs32 dv = add32(sll32(abs32(lv), 2),
			      madd16(madd16(madd16(madd16(set32(12 * 32768), absd16(b_c, c_c), 4, 2), absd16(b_l, c_l), 0, 2),
					    absd16(u13, a13), 1, 1),
				     absd16(a13, e13), 1, 1));
	/*
	 * g = gh level + gv (8 - level), level = 4 + #(k dv > 64 dh) - #(k dh > 64 dv) for
	 * k = 16, 31, 43, 56. As k < 64, the first count needs dv > dh and the second dh > dv:
	 * one count n of k big > 64 small, with big and small the larger and smaller gradient,
	 * added where dv is the larger, else taken away. So g = 4 (gh + gv) + n s, with s = gh - gv
	 * where dv is the larger, else gv - gh: a masked add of s a count, no multiply.
	 */
	const vs32 small64 = sll32(min32(dh, dv), 6), big = max32(dh, dv), big8 = sll32(big, 3);
	const vs32 s = sel_gt32(dh, dv, sub32(gv, gh), sub32(gh, gv));
	vs32 g = sll32(add32(gh, gv), 2);

	g = add_gt32(g, sll32(big, 4), small64, s);
	g = add_gt32(g, sub32(sll32(big, 5), big), small64, s);
	g = add_gt32(g, mul32(big, set32(43)), small64, s);
	g = add_gt32(g, sub32(sll32(big, 6), big8), small64, s);
	/* The offsets of gh and gv back, in round32()'s add. */
	return join_sat32(round32(add32(g, set32(8 * 131072)), 5), odd32(a_c));
}

/*
 * Whether a row's first and last vectors can reflect at its ends (pairs from column nx to
 * w - nx, whole vectors apart from the middle ones), leaving to C only column 0 or w - 1
 * where it is half a pair.
 */
#ifdef VEC_HAS_REFLECT
#define DEMOSAIC_REFLECTS(w) (!((w)&1) && (w) >= 2 * N16 + 4)
#else
#define DEMOSAIC_REFLECTS(w) 0
#endif

static void FN(green_row)(const uint16_t *const r[5], uint16_t *dst, int w, int nx)
{
	/* The row pointers in locals: the vector stores may alias anything. */
	const uint16_t *const rows[5] = { r[0], r[1], r[2], r[3], r[4] };
	const int xs = nx + 2, xe = w - 2 - N16 - nx;

	/* Vectors of pairs (red or blue site, green site) starting at a red or blue column. */
	if (DEMOSAIC_REFLECTS(w)) {
		cisp_demosaic_green_range_c(r, dst, w, nx, 0, nx);
		st(dst + nx, FN(green_vec)(rows, nx, w, 1));
		EACH_VECTOR(x, nx + N16, xe, st(dst + x, FN(green_vec)(rows, x, w, 0)));
		st(dst + w - N16 - nx, FN(green_vec)(rows, w - N16 - nx, w, 1));
		cisp_demosaic_green_range_c(r, dst, w, nx, w - nx, w);
		return;
	}
	cisp_demosaic_green_range_c(r, dst, w, nx, 0, xs);
	EACH_VECTOR(x, xs, xe, st(dst + x, FN(green_vec)(rows, x, w, 0)));
	cisp_demosaic_green_range_c(r, dst, w, nx, AFTER_VECTORS(xs, xe), w);
}

/* The pairs (red or blue site c, green site c + 1) of the fast demosaic's red and blue from column x. */
V_INLINE void FN(rb_vec)(const uint16_t *const b[3], const uint16_t *const g[3], uint16_t *row_c, uint16_t *other_c,
			 int x, int w, int edge)
{
	const uint16_t *b0 = b[0], *b1 = b[1], *b2 = b[2], *g0 = g[0], *g1 = g[1], *g2 = g[2];
	/* The green site's neighbours are at offsets + 1. */
	vs32 g1c = L(g1, 0), g1g = L(g1, 1);
	vs32 b0m = L(b0, -1), b0p = L(b0, 1), b2m = L(b2, -1), b2p = L(b2, 1);
	vs32 g0m = L(g0, -1), g0p = L(g0, 1), g2m = L(g2, -1), g2p = L(g2, 1);
	/* Red or blue site: the other colour from the four diagonals. */
	vs32 oc = sub32(add32(sll32(g1c, 2), add32(add32(b0m, b0p), add32(b2m, b2p))), add32(add32(g0m, g0p), add32(g2m, g2p)));
	/* Green site: the row's colour from left and right, the other from above and below. */
	vs32 rg = sub32(add32(sll32(g1g, 1), add32(L(b1, 0), L(b1, 2))), add32(g1c, L(g1, 2)));
	vs32 og = sub32(add32(sll32(g1g, 1), add32(b0p, b2p)), add32(g0p, g2p));

	st(row_c + x, join_sat32(even32(ld(b1 + x)), round32(rg, 1)));
	st(other_c + x, join_sat32(round32(oc, 2), round32(og, 1)));
}

/* The up and down neighbours' sum at the green sites from column x, less the green rows' (rb_vec()'s og without the centre). */
V_INLINE vs32 rb_vertical(const uint16_t *b0, const uint16_t *b2, const uint16_t *g0, const uint16_t *g2, int x)
{
	return sub32(add32(odd32(ld(b0 + x)), odd32(ld(b2 + x))), add32(odd32(ld(g0 + x)), odd32(ld(g2 + x))));
}

/*
 * rb_vec() at x = x0, x0 + N16, ... while the next vector lies inside the row (x <= @xr), from
 * sums that neighbouring pairs share, and the column x after the last one. The red or blue
 * site's diagonals are the green sites' vertical sums p of this pair and the one before, and
 * the green site's left and right are the row's differences d of this pair and the one after:
 * each is made once and taken one 32-bit lane on or back with next32() and prev32(), where
 * rb_vec() loads the rows again two columns off. The same integer sums, regrouped: no sum
 * leaves int32.
 */
V_INLINE int FN(rb_rolled)(const uint16_t *const b[3], const uint16_t *const g[3], uint16_t *row_c, uint16_t *other_c,
			   int x0, int xr)
{
	const uint16_t *const b0 = b[0], *const b1 = b[1], *const b2 = b[2];
	const uint16_t *const g0 = g[0], *const g1 = g[1], *const g2 = g[2];
	vs32 p = rb_vertical(b0, b2, g0, g2, x0 - N16);
	vu16 g1v = ld(g1 + x0);
	vs32 e = even32(ld(b1 + x0)), gc = even32(g1v), d = sub32(e, gc);
	int x = x0;

	for (; x <= xr; x += N16) {
		const vu16 g1n = ld(g1 + x + N16);
		const vs32 pn = rb_vertical(b0, b2, g0, g2, x), en = even32(ld(b1 + x + N16)), gn = even32(g1n);
		/* The doubled green as an add: shifts issue half as often (AVX-512 on Zen 4 and Intel). */
		const vs32 g1o = odd32(g1v), dn = sub32(en, gn), gg2 = add32(g1o, g1o);
		const vs32 oc = add32(add32(sll32(gc, 2), pn), prev32(p, pn));
		const vs32 rg = add32(add32(gg2, d), next32(d, dn));

		st(row_c + x, join_sat32(e, round32(rg, 1)));
		st(other_c + x, join_sat32(round32(oc, 2), round32(add32(gg2, pn), 1)));
		p = pn;
		g1v = g1n;
		e = en;
		gc = gn;
		d = dn;
	}
	return x;
}

static void FN(rb_row)(const uint16_t *const b[3], const uint16_t *const g[3], uint16_t *row_c, uint16_t *other_c,
		       int w, int nx)
{
	/* In locals: the vector stores may alias anything. */
	const uint16_t *const br[3] = { b[0], b[1], b[2] }, *const gr[3] = { g[0], g[1], g[2] };
	const int reflects = DEMOSAIC_REFLECTS(w);
	/* Without reflection the first pair is at column 2 or 3: the loads at x - 2 stay inside the row. */
	const int xs = reflects ? nx : nx + 2, xe = w - 2 - N16 - nx;
	/* The last vector the rolled loop makes: its next one, which it loads, ends inside the row. */
	const int xr = w - 2 * N16 < xe ? w - 2 * N16 : xe;
	int x;

	cisp_demosaic_rb_range_c(b, g, row_c, other_c, w, nx, 0, xs);
	if (xs > xe) {
		cisp_demosaic_rb_range_c(b, g, row_c, other_c, w, nx, xs, w);
		return;
	}
	FN(rb_vec)(br, gr, row_c, other_c, xs, w, reflects);
	x = FN(rb_rolled)(br, gr, row_c, other_c, xs + N16, xr);
	EACH_VECTOR(xv, x < xe ? x : xe, xe, FN(rb_vec)(br, gr, row_c, other_c, xv, w, 0));
	if (reflects) {
		FN(rb_vec)(br, gr, row_c, other_c, w - N16 - nx, w, 1);
		cisp_demosaic_rb_range_c(b, g, row_c, other_c, w, nx, w - nx, w);
	} else {
		cisp_demosaic_rb_range_c(b, g, row_c, other_c, w, nx, xe + N16, w);
	}
}

#undef DEMOSAIC_REFLECTS
#undef L

/*
 * Whether sum m x + 2048 + 4096 off[c] lies inside int32 for every input of each row c: its
 * extremes take 65535 at the coefficients of one sign and 0 at the others.
 */
static inline int ccm_offset_folds(const int mc[9], const int32_t off[3])
{
	for (int c = 0; c < 3; c++) {
		int64_t pos = 0, neg = 0;

		for (int j = 0; j < 3; j++) {
			if (mc[3 * c + j] > 0)
				pos += mc[3 * c + j];
			else
				neg += mc[3 * c + j];
		}
		if (65535 * pos + 2048 + 4096 * (int64_t)off[c] > INT32_MAX ||
		    65535 * neg + 2048 + 4096 * (int64_t)off[c] < INT32_MIN)
			return 0;
	}
	return 1;
}

/*
 * The whole vectors of ccm_row() from x = 0; the columns done. With @fold (a constant where
 * this is inlined) the offsets are in @k as 4096 off: (a + 4096 off) >> 12 = (a >> 12) + off
 * for the arithmetic shift, one add less per output where the sum cannot overflow.
 */
V_INLINE int FN(ccm_vectors)(const int mc[9], const vs32 k[3], const vs32 o[3], const uint16_t *const src[3],
			     uint16_t *const dst[3], int w, int fold)
{
	int x = 0;

	for (; x + N16 <= w; x += N16) {
		vu16 r = ld(src[0] + x), g = ld(src[1] + x), b = ld(src[2] + x);

		for (int c = 0; c < 3; c++) {
			vs32 lo, hi;

			dot3k(r, g, b, mc[3 * c], mc[3 * c + 1], mc[3 * c + 2], k[c], &lo, &hi);
			lo = sra32(lo, 12);
			hi = sra32(hi, 12);
			if (!fold) {
				lo = add32(lo, o[c]);
				hi = add32(hi, o[c]);
			}
			st(dst[c] + x, packus32(lo, hi));
		}
	}
	return x;
}

static void FN(ccm_row)(const int16_t m[9], const int32_t off[3], const uint16_t *const in[3], uint16_t *const out[3],
			int w)
{
	/*
	 * The pointers and coefficients in locals: the vector stores may alias anything, so
	 * the arguments' arrays would be read again (and the constants made again) every step.
	 */
	const uint16_t *const src[3] = { in[0], in[1], in[2] };
	uint16_t *const dst[3] = { out[0], out[1], out[2] };
	int mc[9], x, fold;
	vs32 k[3], o[3];

	for (int i = 0; i < 9; i++)
		mc[i] = m[i];
	fold = ccm_offset_folds(mc, off);
	/* With samples offset by -32768: sum m (x - 32768) + 32768 sum m = sum m x. */
	for (int c = 0; c < 3; c++) {
		const int32_t folded = fold ? 4096 * off[c] : 0;

		k[c] = set32(32768 * (mc[3 * c] + mc[3 * c + 1] + mc[3 * c + 2]) + 2048 + folded);
		o[c] = set32(off[c]);
	}
	if (fold)
		x = FN(ccm_vectors)(mc, k, o, src, dst, w, 1);
	else
		x = FN(ccm_vectors)(mc, k, o, src, dst, w, 0);
	if (x < w) {
		const uint16_t *i2[3] = { in[0] + x, in[1] + x, in[2] + x };
		uint16_t *o2[3] = { out[0] + x, out[1] + x, out[2] + x };

		cisp_ccm_row_c(m, off, i2, o2, w - x);
	}
}

static void FN(csc_row)(const int32_t m[9], int32_t y_zero, const uint16_t *const in[3], uint16_t *const out[3], int w)
{
	/* Pointers and coefficients in locals, as in ccm_row(). */
	const uint16_t *const src[3] = { in[0], in[1], in[2] };
	uint16_t *const dst[3] = { out[0], out[1], out[2] };
	int mc[9];
	vs32 k[3];
	int x = 0;

	for (int i = 0; i < 9; i++)
		mc[i] = m[i];
	/*
	 * The output's zero goes in before the shift, as zero * 2^15: with the standard matrices
	 * (sum |coeff| <= 32768, chroma rows summing to 0) the sum lies in [0, 2^32) for every
	 * input, so a logical shift gives the reference's value (at most 65536, which packus32()
	 * clamps as the reference does) with one add less per output.
	 */
	for (int c = 0; c < 3; c++) {
		const uint32_t zero = (uint32_t)(c ? CISP_CSC_CHROMA_ZERO : y_zero);

		k[c] = set32((int32_t)(32768u * (uint32_t)(mc[3 * c] + mc[3 * c + 1] + mc[3 * c + 2]) + 16384u + (zero << 15)));
	}
	for (; x + N16 <= w; x += N16) {
		vu16 r = ld(src[0] + x), g = ld(src[1] + x), b = ld(src[2] + x);

		for (int c = 0; c < 3; c++) {
			vs32 lo, hi;

			dot3k(r, g, b, mc[3 * c], mc[3 * c + 1], mc[3 * c + 2], k[c], &lo, &hi);
			st(dst[c] + x, packus32(srl32(lo, 15), srl32(hi, 15)));
		}
	}
	if (x < w) {
		const uint16_t *i2[3] = { in[0] + x, in[1] + x, in[2] + x };
		uint16_t *o2[3] = { out[0] + x, out[1] + x, out[2] + x };

		cisp_csc_row_c(m, y_zero, i2, o2, w - x);
	}
}

static void FN(luma_row)(const uint16_t *const rgb[3], uint16_t *luma, int w)
{
	const vs32 k = set32(32768 * 4096 + 2048);
	int x = 0;

	const uint16_t *const r = rgb[0], *const g = rgb[1], *const b = rgb[2]; /* in locals, as in ccm_row() */

	for (; x + N16 <= w; x += N16) {
		vs32 lo, hi;

		dot3k(ld(r + x), ld(g + x), ld(b + x), 871, 2929, 296, k, &lo, &hi);
		st(luma + x, packus32(sra32(lo, 12), sra32(hi, 12)));
	}
	if (x < w) {
		const uint16_t *i2[3] = { rgb[0] + x, rgb[1] + x, rgb[2] + x };

		cisp_sharpen_luma_row_c(i2, luma + x, w - x);
	}
}

/*
 * min((cored * strength + 128) >> 8, limit) per lane, the product's high half @ph and low
 * half @pl. (cored * strength + 128) >> 8 = 256 hi + ((lo + 128) >> 8), at least 65536 when
 * hi > 255; with @weak (strength <= 256, a constant where this is inlined) the product is at
 * most 65535 * 256, so hi is at most 255 and the sum, the exact value, at most 65535.
 */
V_INLINE vu16 sharpen_gain(vu16 ph, vu16 pl, vu16 lim, int weak)
{
	const vu16 r127 = set16(127), c255 = set16(255);

	if (weak)
		return min16(add16(sll16(ph, 8), srl16(avg16(pl, r127), 7)), lim);

	vu16 e = adds16(sll16(min16(ph, c255), 8), srl16(avg16(pl, r127), 7));
	vu16 big = sub16(zero(), min16(subs16(ph, c255), set16(1)));

	return min16(vor(e, big), lim);
}

/* The constants of sharpen_delta(). */
struct sharpen_consts {
	vu16 r128, cor, str, lim;
};

/*
 * The blur from the horizontal sums @bh, @bl of the high and low bytes (sharpen_row()),
 * the detail of the middle luma @y against it, cored, and its gain: the change to add to
 * R, G and B, @e where it is positive and @en where it is negative (the other 0). @weak as
 * sharpen_gain().
 */
V_INLINE vu16 sharpen_change(vu16 bh, vu16 bl, vu16 y, const struct sharpen_consts *k, int weak, vu16 *blur)
{
	/* |d| and coring; d <= 0 where y <= blur (d = 0 changes nothing). */
	vu16 cored;

	*blur = add16(bh, srl16(add16(bl, k->r128), 8));
	cored = subs16(absd16(y, *blur), k->cor);
	return sharpen_gain(mulhi16(cored, k->str), mullo16(cored, k->str), k->lim, weak);
}

V_INLINE void sharpen_delta_of(vu16 bh, vu16 bl, vu16 y, const struct sharpen_consts *k, int weak, vu16 *ep,
			       vu16 *en)
{
	vu16 blur, e = sharpen_change(bh, bl, y, k, weak, &blur);

	*en = vand(le16(y, blur), e);
	*ep = sub16(e, *en);
}

/*
 * The horizontal 1 4 6 4 1 of the five vectors of vertical sums @s0 .. @s4, one column apart.
 * 2 s2 as s2 + s2: adds issue twice as often as shifts (AVX-512 on Zen 4 and Intel).
 */
V_INLINE vu16 sharpen_hsum(vu16 s0, vu16 s1, vu16 s2, vu16 s3, vu16 s4)
{
	return add16(add16(add16(s0, s4), sll16(add16(add16(s1, s3), s2), 2)), add16(s2, s2));
}

/* sharpen_delta_of() at columns x.. from the vertical sums @vh, @vl and the middle luma row @l2. */
V_INLINE void sharpen_delta(const uint16_t *vh, const uint16_t *vl, const uint16_t *l2, int x,
			    const struct sharpen_consts *k, int weak, vu16 *ep, vu16 *en)
{
	vu16 bh = sharpen_hsum(ld(vh + x), ld(vh + x + 1), ld(vh + x + 2), ld(vh + x + 3), ld(vh + x + 4));
	vu16 bl = sharpen_hsum(ld(vl + x), ld(vl + x + 1), ld(vl + x + 2), ld(vl + x + 3), ld(vl + x + 4));

	sharpen_delta_of(bh, bl, ld(l2 + x), k, weak, ep, en);
}

/* The vertical 1 4 6 4 1 of the high and low bytes of luma rows @l0 .. @l4 at columns x.. into @sh, @sl. */
V_INLINE void sharpen_vsum_of(const uint16_t *l0, const uint16_t *l1, const uint16_t *l2, const uint16_t *l3,
			      const uint16_t *l4, int x, vu16 *sh, vu16 *sl)
{
	const vu16 lo8 = set16(255);
	vu16 r0 = ld(l0 + x), r1 = ld(l1 + x), r2 = ld(l2 + x), r3 = ld(l3 + x), r4 = ld(l4 + x);
	vu16 h2 = srl16(r2, 8), o2 = vand(r2, lo8);

	/* 1 4 6 4 1 as (a + e) + 4 (b + c + d) + 2 c. */
	*sh = add16(add16(add16(srl16(r0, 8), srl16(r4, 8)), sll16(add16(add16(srl16(r1, 8), srl16(r3, 8)), h2), 2)),
		    add16(h2, h2));
	*sl = add16(add16(add16(vand(r0, lo8), vand(r4, lo8)), sll16(add16(add16(vand(r1, lo8), vand(r3, lo8)), o2), 2)),
		    add16(o2, o2));
}

/* sharpen_vsum_of() at columns x.. stored at vh[x + 2], vl[x + 2] (sharpen_row()). */
V_INLINE void sharpen_vsum(const uint16_t *const l[5], uint16_t *vh, uint16_t *vl, int x)
{
	vu16 sh, sl;

	sharpen_vsum_of(l[0], l[1], l[2], l[3], l[4], x, &sh, &sl);
	st(vh + x + 2, sh);
	st(vl + x + 2, sl);
}

/* The change @ep, @en added to the three planes' samples @m0 .. @m2, saturated, into @o0 .. @o2. */
V_INLINE void sharpen_put(uint16_t *o0, uint16_t *o1, uint16_t *o2, vu16 m0, vu16 m1, vu16 m2, vu16 ep, vu16 en)
{
	st(o0, subs16(adds16(m0, ep), en));
	st(o1, subs16(adds16(m1, ep), en));
	st(o2, subs16(adds16(m2, ep), en));
}

/*
 * sharpen_delta() added to the three planes @mid into @out, whole vectors, then one
 * that ends at the row's end and may overlap the one before. @weak as sharpen_gain().
 */
V_INLINE void FN(sharpen_apply)(const uint16_t *vh, const uint16_t *vl, const uint16_t *const l[5],
				const uint16_t *const mid[3], uint16_t *const out[3], int w, int xf, int coring, int strength,
				int limit, int weak)
{
	const uint16_t *const l2 = l[2];
	const struct sharpen_consts k = { set16(128), set16(coring), set16(strength), set16(limit) };
	/* Row pointers in locals: the vector stores may alias anything, so array elements would be reloaded. */
	const uint16_t *const mid0 = mid[0], *const mid1 = mid[1], *const mid2 = mid[2];
	uint16_t *const out0 = out[0], *const out1 = out[1], *const out2 = out[2];
	/* The last vector's samples first: mid may be out. */
	const int xt = w - N16;
	const vu16 t0 = ld(mid0 + xt), t1 = ld(mid1 + xt), t2 = ld(mid2 + xt);
	vu16 ep, en;
	int x = 0;

#if VEC_BITS == 512
	/*
	 * Below @xf the vertical sums of columns x - 2.. come from the vector before, those of the
	 * next N16 columns are made here, and the neighbours' columns are shifted in across the two
	 * (ext16x4()): no store and reload of the sums, and no loads one column apart, each of which
	 * spans two cache lines.
	 */
	const uint16_t *const l0 = l[0], *const l1 = l[1], *const l3 = l[3], *const l4 = l[4];
	vu16 ah = ld(vh), al = ld(vl), nh, nl, eh[4], el[4];

	for (; x < xf; x += N16) {
		sharpen_vsum_of(l0, l1, l2, l3, l4, x + N16 - 2, &nh, &nl);
		ext16x4(ah, nh, eh);
		ext16x4(al, nl, el);
		const vu16 y = ld(l2 + x), m0 = ld(mid0 + x), m1 = ld(mid1 + x), m2 = ld(mid2 + x);
		vu16 blur, e = sharpen_change(sharpen_hsum(ah, eh[0], eh[1], eh[2], eh[3]),
					      sharpen_hsum(al, el[0], el[1], el[2], el[3]), y, &k, weak, &blur);
		/*
		 * The change goes down where y < blur (at y = blur it is 0): the compare absd16() makes,
		 * and masked subtracts, instead of a vector of the sign and the changes split by it.
		 */
		const __mmask32 neg = _mm512_cmplt_epu16_mask(y, blur);

		st(out0 + x, _mm512_mask_subs_epu16(adds16(m0, e), neg, m0, e));
		st(out1 + x, _mm512_mask_subs_epu16(adds16(m1, e), neg, m1, e));
		st(out2 + x, _mm512_mask_subs_epu16(adds16(m2, e), neg, m2, e));
		ah = nh;
		al = nl;
	}
#else
	(void)xf;
#endif
	for (; x + N16 <= w; x += N16) {
		sharpen_delta(vh, vl, l2, x, &k, weak, &ep, &en);
		sharpen_put(out0 + x, out1 + x, out2 + x, ld(mid0 + x), ld(mid1 + x), ld(mid2 + x), ep, en);
	}
	if (x < w) {
		sharpen_delta(vh, vl, l2, xt, &k, weak, &ep, &en);
		sharpen_put(out0 + xt, out1 + xt, out2 + xt, t0, t1, t2, ep, en);
	}
}

/*
 * The blur in 16-bit lanes: with luma l = 256 h + o (h, o <= 255), the blur
 * sum S = sum k l (k sums to 256) is 256 H + L with H = sum k h and
 * L = sum k o, each at most 65280; (S + 128) >> 8 = H + ((L + 128) >> 8).
 */
static void FN(sharpen_row)(const uint16_t *const l[5], const uint16_t *const mid[3], uint16_t *const out[3], int w,
			    int coring, int strength, int limit, int32_t *tmp)
{
	/* The vertical sums of H and L of column x at vh[x + 2], vl[x + 2], x in [-2, w + 2). */
	uint16_t *vh = (uint16_t *)(void *)tmp, *vl = vh + w + 4;
	/* Row pointers in a local array: the vector stores may alias anything, so l[] would be reloaded. */
	const uint16_t *const rows[5] = { l[0], l[1], l[2], l[3], l[4] };
	/* The columns the apply loop makes the sums of itself: all but the first vector's and the last ones'. */
#if VEC_BITS == 512
	const int xf = ((w + 2 - 2 * N16) / N16 + 1) * N16;
#else
	const int xf = 0;
#endif
	int x = xf < w - N16 ? xf : w - N16;

	if (w < 2 * N16) {
		cisp_sharpen_row_c(l, mid, out, w, coring, strength, limit, tmp);
		return;
	}
	if (xf)
		sharpen_vsum(rows, vh, vl, 0);
	/* Whole vectors from the first column the apply loop reads from vh, vl, then the last one ending at the row's end. */
	for (x = xf ? x - 2 : 0; x + N16 <= w; x += N16)
		sharpen_vsum(rows, vh, vl, x);
	if (x < w)
		sharpen_vsum(rows, vh, vl, w - N16);
	/* Columns -2, -1, w, w + 1 reflect to 2, 1, w - 2, w - 3. */
	vh[0] = vh[4];
	vh[1] = vh[3];
	vh[w + 2] = vh[w];
	vh[w + 3] = vh[w - 1];
	vl[0] = vl[4];
	vl[1] = vl[3];
	vl[w + 2] = vl[w];
	vl[w + 3] = vl[w - 1];
	/* The usual strengths are at most 1.0, where the gain needs no clamp of its own. */
	if (strength <= 256)
		FN(sharpen_apply)(vh, vl, rows, mid, out, w, xf, coring, strength, limit, 1);
	else
		FN(sharpen_apply)(vh, vl, rows, mid, out, w, xf, coring, strength, limit, 0);
}

/* cisp_to8(v) = floor((v + 128) / 257) = floor(min(v + 128, 65535) * 65281 / 2^24), in 16-bit lanes. */
static inline vu16 to8_lanes(vu16 v)
{
	return srl16(mulhi16(adds16(v, set16(128)), set16(65281)), 8);
}

static void FN(to8_row)(const uint16_t *s, uint8_t *d, int w)
{
	if (w < 2 * N16) {
		cisp_to8_row_c(s, d, w);
		return;
	}
	/* 2 N16 samples a step; the last ends at the row's end and may overlap the one before. */
	for (int x = 0;; x = x + 4 * N16 <= w ? x + 2 * N16 : w - 2 * N16) {
		st8(d + x, to8_lanes(ld(s + x)), to8_lanes(ld(s + x + N16)));
		if (x + 2 * N16 >= w)
			break;
	}
}

static void FN(rgb888_row)(const uint16_t *r, const uint16_t *g, const uint16_t *b, uint8_t *d, int w)
{
	int x = 0;

	/* The three bytes of each pixel together. */
	for (; x + N16 <= w; x += N16)
		st_rgb8(d + 3 * x, to8_lanes(ld(r + x)), to8_lanes(ld(g + x)), to8_lanes(ld(b + x)));
	cisp_rgb888_row_c(r + x, g + x, b + x, d + 3 * x, w - x);
}

static void FN(xbgr32_row)(const uint16_t *r, const uint16_t *g, const uint16_t *b, uint8_t *d, int w)
{
	int x = 0;

	/* The four bytes of each pixel together. */
	for (; x + N16 <= w; x += N16)
		st_xbgr8(d + 4 * x, to8_lanes(ld(r + x)), to8_lanes(ld(g + x)), to8_lanes(ld(b + x)));
	cisp_xbgr32_row_c(r + x, g + x, b + x, d + 4 * x, w - x);
}

/* The 2x2 means (sum + 2) >> 2 of one plane's rows @a, @b, as 32-bit lanes. */
V_INLINE vs32 chroma_mean(vu16 a, vu16 b)
{
	return sra32(add32(add32(pairs32(a), pairs32(b)), set32(2)), 2);
}

static void FN(chroma420_row)(const uint16_t *cb0, const uint16_t *cb1, const uint16_t *cr0, const uint16_t *cr1,
			      uint8_t *dcb, uint8_t *dcr, int step, int w)
{
	int x = 0;

	/*
	 * Interleaved NV12 only: the means of Cb and Cr side by side as the even and odd 16-bit
	 * lanes, then to 8 bits in 16-bit lanes, 2 N16 columns a step; the last step ends at the
	 * row's end and may overlap the one before (w is even).
	 */
	if (step == 2 && dcr == dcb + 1 && w >= 2 * N16) {
		for (;;) {
			vu16 q[2];

			for (int h = 0; h < 2; h++) {
				const int o = x + h * N16;

				q[h] = to8_lanes(join_sat32(chroma_mean(ld(cb0 + o), ld(cb1 + o)),
							    chroma_mean(ld(cr0 + o), ld(cr1 + o))));
			}
			st8(dcb + x, q[0], q[1]);
			if (x + 2 * N16 >= w)
				return;
			x = x + 4 * N16 <= w ? x + 2 * N16 : w - 2 * N16;
		}
	}
	cisp_chroma420_row_c(cb0 + x, cb1 + x, cr0 + x, cr1 + x, dcb + x / 2 * step, dcr + x / 2 * step, step, w - x);
}

void CAT(cisp_dsp_init, SIMD_SUFFIX)(struct cisp_dsp *d)
{
	d->unpack16_row = FN(unpack16_row);
	d->unpack8_row = FN(unpack8_row);
	d->blc_row = FN(blc_row);
	d->wb_row = FN(wb_row);
	d->lsc_row = FN(lsc_row);
	d->dpc_row = FN(dpc_row);
	d->bnr_guide_row = FN(bnr_guide_row);
	d->bnr_row = FN(bnr_row);
	d->stats_cells = FN(stats_cells);
	d->stats_run_sums = FN(stats_run_sums);
	d->green_row = FN(green_row);
	d->rb_row = FN(rb_row);
	d->ccm_row = FN(ccm_row);
#ifdef VEC_HAS_TONE
	d->tone_row = FN(tone_row);
#endif
	d->csc_row = FN(csc_row);
	d->luma_row = FN(luma_row);
	d->sharpen_row = FN(sharpen_row);
	d->to8_row = FN(to8_row);
	d->chroma420_row = FN(chroma420_row);
	d->rgb888_row = FN(rgb888_row);
	d->xbgr32_row = FN(xbgr32_row);
	d->recip_row = FN(recip_row);
}
