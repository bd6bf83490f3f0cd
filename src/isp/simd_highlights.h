/* SPDX-License-Identifier: MIT */
/*
 * The highlights row of dsp.h (docs/stages/highlights.md), over the vector
 * layer; included after simd_kernels.h by the files of x86/ and arm/.
 *
 * clip and blend are vectorised whole: the colours of a pixel's 3x3
 * neighbourhood need to know only which columns of the row are green, and
 * each colour's clip level, knee and slope are constants per lane parity of
 * a row. reconstruct's target (means of a 5x5 window, a division) stays in
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

/*
 * (a + b + c + d + 2) >> 2 of 16-bit lanes, from the means m = avg(a, b) and n = avg(c, d)
 * (pavgw keeps the 17th bit): avg(m, n), one less where m + n is odd and a + b or c + d is
 * odd (those round up twice). No 32-bit lanes: half the uops, no widening shuffles.
 */
V_INLINE vu16 FN(hl_mean4)(vu16 a, vu16 b, vu16 c, vu16 d)
{
	vu16 m = avg16(a, b), n = avg16(c, d);
	vu16 odd = vand(add16(m, n), vor(add16(a, b), add16(c, d)));

	return sub16(avg16(m, n), vand(odd, set16(1)));
}

/*
 * s + (((t - s) * a + 16384) >> 15) of 16-bit lanes, a in Q15 (0 to 32768), >> rounding towards
 * minus infinity: between s and t. |t - s| * a < 2^31 is hi * 2^16 + lo: s goes up by
 * 2 hi + ((lo + 16384) >> 15) where t >= s, down by 2 hi + ((lo + 16383) >> 15) where t < s;
 * (lo + c + 1) >> 15 is avg(lo, c) >> 14 (pavgw keeps the 17th bit).
 */
V_INLINE vu16 FN(hl_pull)(vu16 s, vu16 t, vu16 a)
{
	vu16 d = absd16(t, s), hi = mulhi16(d, a);
	vu16 r = add16(add16(hi, hi), srl16(avg16(mullo16(d, a), sel_le16(s, t, set16(16383), set16(16382))), 14));

	return sel_le16(s, t, add16(s, r), sub16(s, r));
}

/* A row's constants per lane: lane 2k is an odd column, lane 2k + 1 an even one. */
struct FN(hl_lanes) {
	vu16 green;                     /* all ones in the lanes of green sites */
	vu16 cap_x, cap_x1;             /* clip levels of the row's samples at the column and beside it */
	vu16 cap_ud, cap_ud1;           /* those of the rows above and below, at the column and beside it */
	vu16 knee_s, knee_e1, knee_e2;  /* the knees of the colours s, e1, e2 (hl_vector) */
	vu16 clip_e1, clip_e2;          /* the clip levels of e1 and e2 */
	vs32 ramp_s, ramp_e1, ramp_e2;  /* their slopes */
	vu16 floor_s, floor_e1, floor_e2; /* their floors */
	vs32 framp_s, framp_e1, framp_e2; /* and the slopes above them */
	vu16 ramp16_s, ramp16_e1, ramp16_e2, framp16_s, framp16_e1, framp16_e2; /* the slopes in 16 bits */
	int narrow;                     /* every slope below 2^16: the amounts from 16-bit products */
};

/* A 16-bit value per lane parity: @odd in the lanes of odd columns, @even in the others. */
V_INLINE vu16 FN(hl_pair)(uint32_t odd, uint32_t even)
{
	return as16(set32((int32_t)(odd | even << 16)));
}

V_INLINE void FN(hl_lanes_init)(struct FN(hl_lanes) *l, const struct cisp_highlights_coeffs *c, int y)
{
	int col[2][5]; /* per column parity (odd, even): own, beside, above, above beside, e2 */

	for (int j = 0; j < 2; j++) {
		int p = j == 0, row = (y & 1) * 2, ud = ((y + 1) & 1) * 2;

		col[j][0] = c->colour[row + p];
		col[j][1] = c->colour[row + !p];
		col[j][2] = c->colour[ud + p];
		col[j][3] = c->colour[ud + !p];
		/* e2: the vertical pair on a green site, the diagonals on the others */
		col[j][4] = col[j][0] == HL_GREEN ? col[j][2] : col[j][3];
	}
#define HL_PAIR(tab, i) FN(hl_pair)(c->tab[col[0][i]], c->tab[col[1][i]])
	l->green = FN(hl_pair)(col[0][0] == HL_GREEN ? 0xffff : 0, col[1][0] == HL_GREEN ? 0xffff : 0);
	l->cap_x = HL_PAIR(clip, 0);
	l->cap_x1 = HL_PAIR(clip, 1);
	l->cap_ud = HL_PAIR(clip, 2);
	l->cap_ud1 = HL_PAIR(clip, 3);
	l->knee_s = HL_PAIR(knees, 0);
	l->knee_e1 = HL_PAIR(knees, 1);
	l->knee_e2 = HL_PAIR(knees, 4);
	l->clip_e1 = l->cap_x1;
	l->clip_e2 = HL_PAIR(clip, 4);
	l->floor_s = HL_PAIR(floors, 0);
	l->floor_e1 = HL_PAIR(floors, 1);
	l->floor_e2 = HL_PAIR(floors, 4);
#undef HL_PAIR
	/* Each slope in 32-bit lanes, and in 16-bit ones for the narrow path (hl_amount()). */
#define HL_SLOPE(tab, name, i)                                                                      \
	do {                                                                                        \
		l->tab##_##name = set32x2((int32_t)c->tab[col[0][i]], (int32_t)c->tab[col[1][i]]);  \
		l->tab##16_##name = FN(hl_pair)((uint16_t)c->tab[col[0][i]], (uint16_t)c->tab[col[1][i]]); \
	} while (0)
	HL_SLOPE(ramp, s, 0);
	HL_SLOPE(ramp, e1, 1);
	HL_SLOPE(ramp, e2, 4);
	HL_SLOPE(framp, s, 0);
	HL_SLOPE(framp, e1, 1);
	HL_SLOPE(framp, e2, 4);
#undef HL_SLOPE
	l->narrow = 1;
	for (int k = 0; k < 3; k++)
		l->narrow &= c->ramp[k] < 65536 && c->framp[k] < 65536;
}

/*
 * Q15 amounts (0 to 32768) of a colour @v over @knee (a knee or a floor) with slope @ramp
 * (@ramp16 the same in 16 bits when @narrow). 16-bit lanes where the slope is below 2^16:
 * at 512 bits Intel runs vpmulld as two port-0 uops and 32-bit shifts and min on port 0 only.
 */
V_INLINE vu16 FN(hl_amount)(vu16 v, vu16 knee, vs32 ramp, vu16 ramp16, int narrow)
{
	const vs32 r9 = set32(256), one = set32(32768);
	vu16 over = subs16(v, knee); /* 0 at or below the knee */
	vs32 lo32, hi32;

	if (narrow) {
		/*
		 * over * ramp < 2^32 (both below 2^16) as hi * 2^16 + lo; (lo + 256) >> 9 is
		 * avg(lo, 255) >> 8 (pavgw keeps the 17th bit), at most 128. Below hi = 256
		 * the sum is (over * ramp + 256) >> 9 exactly; from it on the amount is 1.0.
		 */
		vu16 lo = srl16(avg16(mullo16(over, ramp16), set16(255)), 8), hi = mulhi16(over, ramp16);

		return min16(add16(sll16(min16(hi, set16(256)), 7), lo), set16(32768));
	}
	lo32 = min32(srl32(add32(mul32(wlo(over), ramp), r9), 9), one);
	hi32 = min32(srl32(add32(mul32(whi(over), ramp), r9), 9), one);
	return packus32(lo32, hi32); /* at most 32768: exact */
}

/*
 * (over * a + 16384) >> 15 of 16-bit lanes, a in Q15 (0 to 32768): how far a colour of amount @a
 * limits a sample @over its clip level. over * a < 2^31 is hi * 2^16 + lo: the result is
 * 2 hi + ((lo + 16384) >> 15), the latter avg(lo, 16383) >> 14 (pavgw keeps the 17th bit).
 */
V_INLINE vu16 FN(hl_cut)(vu16 over, vu16 a)
{
	vu16 hi = mulhi16(over, a);

	return add16(add16(hi, hi), srl16(avg16(mullo16(over, a), set16(16383)), 14));
}

/*
 * Columns [x, x + N16) of a clip or blend row (x >= 1, x + N16 < w) from the
 * rows above, at and below it. s is the pixel's own colour, e1 the colour
 * beside it in its row, e2 the colour of the rows above and below that is
 * not green on a red or blue site (as highlights_pixel() of highlights.c).
 */
V_INLINE vu16 FN(hl_vector)(const struct cisp_highlights_coeffs *c, const struct FN(hl_lanes) *k,
			    const uint16_t *up, const uint16_t *mid, const uint16_t *dn, int x)
{
	const vu16 green = k->green;
	vu16 s = min16(ld(mid + x), k->cap_x), l = min16(ld(mid + x - 1), k->cap_x1);
	vu16 r = min16(ld(mid + x + 1), k->cap_x1), u = min16(ld(up + x), k->cap_ud), d = min16(ld(dn + x), k->cap_ud);
	/* Green site: the horizontal and vertical pairs; red or blue: the cross (green) and the diagonals. */
	vu16 e1 = sel16(green, avg16(l, r), FN(hl_mean4)(l, r, u, d));
	vu16 e2 = sel16(green, avg16(u, d),
			FN(hl_mean4)(min16(ld(up + x - 1), k->cap_ud1), min16(ld(up + x + 1), k->cap_ud1),
				     min16(ld(dn + x - 1), k->cap_ud1), min16(ld(dn + x + 1), k->cap_ud1)));
	vu16 g = sel16(green, s, e1);
	vu16 t;
	vu16 as = FN(hl_amount)(s, k->knee_s, k->ramp_s, k->ramp16_s, k->narrow);
	vu16 a1 = FN(hl_amount)(e1, k->knee_e1, k->ramp_e1, k->ramp16_e1, k->narrow);
	vu16 a2 = FN(hl_amount)(e2, k->knee_e2, k->ramp_e2, k->ramp16_e2, k->narrow);
	vu16 bs = FN(hl_amount)(s, k->floor_s, k->framp_s, k->framp16_s, k->narrow);
	vu16 b1 = FN(hl_amount)(e1, k->floor_e1, k->framp_e1, k->framp16_e1, k->narrow);
	vu16 b2 = FN(hl_amount)(e2, k->floor_e2, k->framp_e2, k->framp16_e2, k->narrow);
	/* The limit from the other colours' clip levels (the own colour's is never passed): at most s. */
	vu16 sl = sub16(s, max16(FN(hl_cut)(subs16(s, k->clip_e1), a1), FN(hl_cut)(subs16(s, k->clip_e2), a2)));
	/* Towards a neutral by the most clipped colour's amount where no colour is below its floor. */
	vu16 n = FN(hl_cut)(max16(as, max16(a1, a2)), min16(bs, min16(b1, b2)));

	if (c->mode == CISP_HIGHLIGHTS_BLEND)
		/* The level (r + 2 g + b + 2) >> 2 is (s + e1 + e2 + green + 2) >> 2 on either kind of site. */
		t = min16(FN(hl_mean4)(s, e1, e2, g), set16(c->white));
	else
		t = min16(max16(s, max16(e1, e2)), set16(c->white));
	return FN(hl_pull)(sl, t, n);
}

static void FN(highlights_row)(const struct cisp_highlights_coeffs *c, const uint16_t *const rows[5], uint16_t *out,
			       int w, int y)
{
	const uint16_t *up = rows[1], *mid = rows[2], *dn = rows[3];
	const vu16 knee = set16(c->knee);
	const int xe = w - 1 - N16; /* the last vector's first column: odd, as w is even */
	struct FN(hl_lanes) lanes;

	if (xe < 1 || (w & 1)) {
		cisp_highlights_span_c(c, rows, out, w, y, 0, w);
		return;
	}
	FN(hl_lanes_init)(&lanes, c, y);
	cisp_highlights_span_c(c, rows, out, w, y, 0, 1);
	FOR_VECTORS(x, 1, xe) {
		vu16 m = ld(mid + x);
		/* Every colour is a mean of samples no higher than these: none past the lowest knee, nothing moves. */
		vu16 top = max16(max16(max16(m, ld(mid + x - 1)), max16(ld(mid + x + 1), ld(up + x))),
				 max16(max16(ld(up + x - 1), ld(up + x + 1)),
				       max16(ld(dn + x), max16(ld(dn + x - 1), ld(dn + x + 1)))));

		if (hl_all_le(top, knee))
			st(out + x, m);
		else if (c->mode == CISP_HIGHLIGHTS_RECONSTRUCT)
			cisp_highlights_span_c(c, rows, out, w, y, x, x + N16);
		else
			st(out + x, FN(hl_vector)(c, &lanes, up, mid, dn, x));
	}
	cisp_highlights_span_c(c, rows, out, w, y, w - 1, w);
}

void CAT(cisp_dsp_init_highlights, SIMD_SUFFIX)(struct cisp_dsp *d)
{
	d->highlights_row = FN(highlights_row);
}
