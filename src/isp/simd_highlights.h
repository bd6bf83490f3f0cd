/* SPDX-License-Identifier: MIT */
/*
 * The highlights row of dsp.h (docs/stages/highlights.md), over the vector
 * layer; included after simd_kernels.h by the files of x86/ and arm/.
 *
 * clip and blend are vectorised whole: the colours of a pixel's 3x3
 * neighbourhood need to know only which columns of the row are green,
 * because the level and the lowest and highest colour treat red and blue
 * alike. reconstruct's target (means of a 5x5 window, a division) stays in
 * C: the vectors copy the runs far from clipping and leave the others to
 * cisp_highlights_span_c(). The first and last columns (reflected
 * neighbours) are C's too.
 */
#include "isp/highlights.h"

/* Whether every lane of @a is at most the same lane of @b. */
#if defined(VEC_BITS) && VEC_BITS == 512
#define hl_all_le(a, b) (_mm512_cmple_epu16_mask(a, b) == 0xffffffffu)
#elif defined(VEC_BITS) && VEC_BITS == 256
#define hl_all_le(a, b) ((unsigned)_mm256_movemask_epi8(le16(a, b)) == 0xffffffffu)
#elif defined(VEC_BITS)
#define hl_all_le(a, b) (_mm_movemask_epi8(le16(a, b)) == 0xffff)
#else
#define hl_all_le(a, b) (vminvq_u16(le16(a, b)) == 0xffff)
#endif

/* (a + b + c + d + 2) >> 2 of 16-bit lanes, through 32-bit lanes. */
V_INLINE vu16 FN(hl_mean4)(vu16 a, vu16 b, vu16 c, vu16 d)
{
	const vs32 two = set32(2);
	vs32 lo = srl32(add32(add32(add32(wlo(a), wlo(b)), add32(wlo(c), wlo(d))), two), 2);
	vs32 hi = srl32(add32(add32(add32(whi(a), whi(b)), add32(whi(c), whi(d))), two), 2);

	return packus32(lo, hi);
}

/* s + (((t - s) * a + 16384) >> 15) of 32-bit lanes (a in Q15, the product within 31 bits). */
V_INLINE vs32 FN(hl_pull)(vs32 s, vs32 t, vs32 a)
{
	return add32(s, sra32(add32(mul32(sub32(t, s), a), set32(16384)), 15));
}

/*
 * Columns [x, x + N16) of a clip or blend row (x >= 1, x + N16 < w), whose
 * green lanes are those of @green, from the rows above, at and below it.
 */
V_INLINE vu16 FN(hl_vector)(const struct cisp_highlights_coeffs *c, const uint16_t *up, const uint16_t *mid,
			    const uint16_t *dn, int x, vu16 green)
{
	const vu16 white = set16(c->white), knee = set16(c->knee);
	const vs32 ramp = set32((int32_t)c->ramp), r9 = set32(256), one = set32(32768);
	vu16 s = min16(ld(mid + x), white), l = min16(ld(mid + x - 1), white), r = min16(ld(mid + x + 1), white);
	vu16 u = min16(ld(up + x), white), d = min16(ld(dn + x), white);
	/* Green site: the horizontal and vertical pairs; red or blue: the cross (green) and the diagonals. */
	vu16 e1 = sel16(green, avg16(l, r), FN(hl_mean4)(l, r, u, d));
	vu16 e2 = sel16(green, avg16(u, d),
			FN(hl_mean4)(min16(ld(up + x - 1), white), min16(ld(up + x + 1), white),
				     min16(ld(dn + x - 1), white), min16(ld(dn + x + 1), white)));
	vu16 g = sel16(green, s, e1);
	vu16 low = min16(s, min16(e1, e2)), top = max16(s, max16(e1, e2));
	/* The amount from the lowest colour: 0 at or below the knee (subs16 stops at 0). */
	vu16 over = subs16(low, knee);
	vs32 a_lo = min32(srl32(add32(mul32(wlo(over), ramp), r9), 9), one);
	vs32 a_hi = min32(srl32(add32(mul32(whi(over), ramp), r9), 9), one);
	vs32 t_lo, t_hi;

	if (c->mode == CISP_HIGHLIGHTS_BLEND) {
		/* The level (r + 2 g + b + 2) >> 2 is (s + e1 + e2 + green + 2) >> 2 on either kind of site. */
		const vs32 two = set32(2);

		t_lo = srl32(add32(add32(add32(wlo(s), wlo(e1)), add32(wlo(e2), wlo(g))), two), 2);
		t_hi = srl32(add32(add32(add32(whi(s), whi(e1)), add32(whi(e2), whi(g))), two), 2);
	} else {
		t_lo = wlo(top);
		t_hi = whi(top);
	}
	return packus32(FN(hl_pull)(wlo(s), t_lo, a_lo), FN(hl_pull)(whi(s), t_hi, a_hi));
}

static void FN(highlights_row)(const struct cisp_highlights_coeffs *c, const uint16_t *const rows[5], uint16_t *out,
			       int w, int y)
{
	const uint16_t *up = rows[1], *mid = rows[2], *dn = rows[3];
	const vu16 knee = set16(c->knee);
	/* Vectors start at odd columns: lane 2k is an odd column, lane 2k + 1 an even one. */
	const int green_odd = c->colour[(y & 1) * 2 + 1] == HL_GREEN;
	const vu16 green = as16(set32(green_odd ? 0x0000ffff : (int32_t)0xffff0000u));
	const int xe = w - 1 - N16; /* the last vector's first column: odd, as w is even */

	if (xe < 1 || (w & 1)) {
		cisp_highlights_span_c(c, rows, out, w, y, 0, w);
		return;
	}
	cisp_highlights_span_c(c, rows, out, w, y, 0, 1);
	FOR_VECTORS(x, 1, xe) {
		vu16 m = ld(mid + x);

		if (c->mode == CISP_HIGHLIGHTS_RECONSTRUCT) {
			/* reconstruct moves a pixel where any sample of its 3x3 neighbourhood passes the knee. */
			vu16 top = max16(max16(max16(m, ld(mid + x - 1)), max16(ld(mid + x + 1), ld(up + x))),
					 max16(max16(ld(up + x - 1), ld(up + x + 1)),
					       max16(ld(dn + x), max16(ld(dn + x - 1), ld(dn + x + 1)))));

			if (hl_all_le(top, knee))
				st(out + x, m);
			else
				cisp_highlights_span_c(c, rows, out, w, y, x, x + N16);
		} else if (hl_all_le(m, knee)) {
			/* clip and blend move only pixels whose own sample passes the knee. */
			st(out + x, m);
		} else {
			st(out + x, FN(hl_vector)(c, up, mid, dn, x, green));
		}
	}
	cisp_highlights_span_c(c, rows, out, w, y, w - 1, w);
}

void CAT(cisp_dsp_init_highlights, SIMD_SUFFIX)(struct cisp_dsp *d)
{
	d->highlights_row = FN(highlights_row);
}
