/* SPDX-License-Identifier: MIT */
/*
 * The local tone mapping row of dsp.h (docs/stages/ltm.md), over the vector
 * layer; included after simd_kernels.h by the files of x86/ and arm/.
 *
 * Every pixel of a row is in a vector: a vector whose columns lie between
 * two or more pairs of grid nodes takes each lane's node values by blends,
 * so the grid's runs of columns need not be multiples of the vector width.
 * The last vector ends at the row's end and may overlap the one before it;
 * it is computed first, so that a row done in place reads its input intact.
 */
#include "isp/ltm.h"

/* cisp_ltm_level() of 32-bit lanes below 2^24: the float's exponent and top 8 mantissa bits are e and the fraction. */
V_INLINE vs32 FN(ltm_level_vec)(vs32 v)
{
	return max32(sub32(srl32(f32bits32(v), 15), set32(127 << 8)), set32(0));
}

/*
 * The gain of N32 pixels of luminance @luma whose four nodes are @lev and @gain, at horizontal
 * positions @px (0..64) of a row at @py: cisp_ltm_gain_at(). The quotient comes from a float
 * division (its error is below one unit: the sum is below 2^30, the quotient below 4096),
 * corrected to the integer quotient of the rounded sum by its remainder.
 */
V_INLINE vs32 FN(ltm_gain_vec)(const struct cisp_ltm_coeffs *c, vs32 luma, vs32 px, int py, const vs32 lev[4],
			       const vs32 gain[4])
{
	const vs32 one = set32(LTM_POS_ONE), zero = set32(0), range = set32((int32_t)c->range);
	const vs32 rscale = set32((int32_t)c->rscale), qy = set32(LTM_POS_ONE - py), y1 = set32(py);
	const vs32 qx = sub32(one, px);
	const vs32 s[4] = { mul32(qx, qy), mul32(px, qy), mul32(qx, y1), mul32(px, y1) };
	vs32 l = FN(ltm_level_vec)(luma), sum = zero, acc = zero, acc_s = zero, any, num, q, rem;

	for (int k = 0; k < 4; k++) {
		vs32 r = srl32(mul32(max32(sub32(range, abs32(sub32(l, lev[k]))), zero), rscale), 16);
		vs32 w = mul32(s[k], r);

		sum = add32(sum, w);
		acc = add32(acc, mul32(w, gain[k]));
		acc_s = add32(acc_s, mul32(s[k], gain[k]));
	}
	/* No node within range: the nodes by distance alone. */
	any = gt32(sum, zero);
	acc = sel32(any, acc, acc_s);
	sum = sel32(any, sum, set32(LTM_POS_ONE * LTM_POS_ONE));
	num = add32(acc, srl32(sum, 1));
	q = div_trunc32(num, sum);
	rem = sub32(num, mul32(q, sum));
	q = sub32(q, gt32(rem, sub32(sum, set32(1))));
	return add32(q, gt32(zero, rem));
}

/*
 * The four nodes' levels and gains of each lane whose left node is @nd (32-bit lanes), the
 * lanes' left nodes being @lo..@hi of the row whose first node is @k0: node @lo's values, then
 * each later node's in the lanes at or past it (the nodes rise along a row).
 */
V_INLINE void FN(ltm_nodes)(const struct cisp_ltm_coeffs *c, int k0, int lo, int hi, vs32 nd, vs32 lev[4],
			    vs32 gain[4])
{
	const int w = c->grid_w, at[4] = { 0, 1, w, w + 1 };

	for (int i = 0; i < 4; i++) {
		lev[i] = set32(c->level[k0 + lo + at[i]]);
		gain[i] = set32(c->gain[k0 + lo + at[i]]);
	}
	for (int nx = lo + 1; nx <= hi; nx++) {
		const vs32 past = gt32(nd, set32(nx - 1));

		for (int i = 0; i < 4; i++) {
			lev[i] = sel32(past, set32(c->level[k0 + nx + at[i]]), lev[i]);
			gain[i] = sel32(past, set32(c->gain[k0 + nx + at[i]]), gain[i]);
		}
	}
}

/* The N16 pixels of row @y from column @x (within the row): out[k] in @v. */
V_INLINE void FN(ltm_vector)(const struct cisp_ltm_coeffs *c, const uint16_t *const in[3], int x, int y, vu16 v[3])
{
	const int py = c->row_pos[y], k0 = c->row_node[y] * c->grid_w, lo = c->col_node[x], hi = c->col_node[x + N16 - 1];
	const vu16 r = ld(in[0] + x), g = ld(in[1] + x), b = ld(in[2] + x), pos = ld8(c->col_pos + x);
	const vs32 round = set32(128);
	vs32 gn[2];

	for (int h = 0; h < 2; h++) {
		const vs32 rh = h ? whi(r) : wlo(r), gh = h ? whi(g) : wlo(g), bh = h ? whi(b) : wlo(b);
		const vs32 lum = srl32(add32(add32(add32(mul32(rh, set32(77)), mul32(gh, set32(150))), mul32(bh, set32(29))),
					     round), 8);
		vs32 lev[4], gain[4];

		if (lo == hi) {
			FN(ltm_nodes)(c, k0, lo, lo, set32(lo), lev, gain);
		} else {
			const vu16 nd = ld8(c->col_node + x);

			FN(ltm_nodes)(c, k0, lo, hi, h ? whi(nd) : wlo(nd), lev, gain);
		}
		gn[h] = FN(ltm_gain_vec)(c, lum, h ? whi(pos) : wlo(pos), py, lev, gain);
	}
	v[0] = packus32(srl32(add32(mul32(wlo(r), gn[0]), round), 8), srl32(add32(mul32(whi(r), gn[1]), round), 8));
	v[1] = packus32(srl32(add32(mul32(wlo(g), gn[0]), round), 8), srl32(add32(mul32(whi(g), gn[1]), round), 8));
	v[2] = packus32(srl32(add32(mul32(wlo(b), gn[0]), round), 8), srl32(add32(mul32(whi(b), gn[1]), round), 8));
}

static void FN(ltm_row)(const struct cisp_ltm_coeffs *c, const uint16_t *const in[3], uint16_t *const out[3], int w,
			int y)
{
	vu16 last[3];

	if (w < N16) {
		cisp_ltm_span_c(c, in, out, 0, w, y);
		return;
	}
	FN(ltm_vector)(c, in, w - N16, y, last);
	for (int x = 0; x + N16 < w; x += N16) {
		vu16 v[3];

		FN(ltm_vector)(c, in, x, y, v);
		for (int k = 0; k < 3; k++)
			st(out[k] + x, v[k]);
	}
	for (int k = 0; k < 3; k++)
		st(out[k] + w - N16, last[k]);
}

void CAT(cisp_dsp_init_ltm, SIMD_SUFFIX)(struct cisp_dsp *d)
{
	d->ltm_row = FN(ltm_row);
}
