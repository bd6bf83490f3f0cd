/* SPDX-License-Identifier: MIT */
/*
 * The chroma denoise rows of dsp.h (docs/stages/cnr.md), over the vector
 * layer; included after simd_kernels.h by the files of x86/ and arm/.
 *
 * Both passes compute N16 outputs at a time from whole vectors of taps:
 * the horizontal one from unaligned loads around the column, the vertical
 * one from the same column of the 2 r + 1 rows. The thresholds of a
 * centre come from two 32-entry tables indexed by Y >> 11, looked up in
 * registers (permutes or byte shuffles), loaded once a row. Each row runs
 * at its radius as a constant (CNR_AT_RADIUS), so that the compiler can
 * unroll the taps and keep their row pointers in registers; the
 * horizontal pass's first and last vectors read a copy of their columns
 * with the reflections made.
 */
#include "isp/cnr.h"

/*
 * The inverse thresholds of luma and chroma of Y bins, held in registers:
 * AVX-512 permutes 32 words; SSE4.1 and AVX2 shuffle bytes from four
 * 16-byte quarters (8 entries each; AVX2 has them in both 128-bit halves);
 * NEON looks up 64 bytes.
 */
#if defined(VEC_BITS) && VEC_BITS == 512
struct FN(cnr_bins) {
	__m512i y, c;
};

V_INLINE void FN(cnr_bins_load)(struct FN(cnr_bins) *b, const struct cisp_cnr_row_tables *t)
{
	b->y = _mm512_loadu_si512((const void *)t->inv_y);
	b->c = _mm512_loadu_si512((const void *)t->inv_c);
}

V_INLINE void FN(cnr_bins_at)(const struct FN(cnr_bins) *b, vu16 yv, vu16 *iy, vu16 *ic)
{
	const vu16 i = srl16(yv, 11);

	*iy = _mm512_permutexvar_epi16(i, b->y);
	*ic = _mm512_permutexvar_epi16(i, b->c);
}
#elif defined(VEC_BITS)
struct FN(cnr_bins) {
	vu16 y[4], c[4];
};

V_INLINE void FN(cnr_bins_load)(struct FN(cnr_bins) *b, const struct cisp_cnr_row_tables *t)
{
	for (int q = 0; q < 4; q++) {
		const __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(t->inv_y + 8 * q));
		const __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(t->inv_c + 8 * q));

#if VEC_BITS == 256
		b->y[q] = _mm256_broadcastsi128_si256(y);
		b->c[q] = _mm256_broadcastsi128_si256(c);
#else
		b->y[q] = y;
		b->c[q] = c;
#endif
	}
}

/* Entry i of a table: bytes 2 (i & 7) and 2 (i & 7) + 1 of quarter i >> 3. */
V_INLINE vu16 FN(cnr_bin_pick)(const vu16 q[4], vu16 j, vu16 m8, vu16 m16)
{
	return sel16(m16, sel16(m8, X(shuffle_epi8)(q[3], j), X(shuffle_epi8)(q[2], j)),
		     sel16(m8, X(shuffle_epi8)(q[1], j), X(shuffle_epi8)(q[0], j)));
}

V_INLINE void FN(cnr_bins_at)(const struct FN(cnr_bins) *b, vu16 yv, vu16 *iy, vu16 *ic)
{
	const vu16 i = srl16(yv, 11), eight = set16(8), sixteen = set16(16);
	const vu16 j = add16(mullo16(vand(i, set16(7)), set16(0x202)), set16(0x100));
	const vu16 m8 = X(cmpeq_epi16)(vand(i, eight), eight), m16 = X(cmpeq_epi16)(vand(i, sixteen), sixteen);

	*iy = FN(cnr_bin_pick)(b->y, j, m8, m16);
	*ic = FN(cnr_bin_pick)(b->c, j, m8, m16);
}
#else
struct FN(cnr_bins) {
	uint8x16x4_t y, c;
};

V_INLINE void FN(cnr_bins_load)(struct FN(cnr_bins) *b, const struct cisp_cnr_row_tables *t)
{
	b->y = vld1q_u8_x4((const uint8_t *)t->inv_y);
	b->c = vld1q_u8_x4((const uint8_t *)t->inv_c);
}

/* Entry i of a table: bytes 2 i and 2 i + 1. */
V_INLINE void FN(cnr_bins_at)(const struct FN(cnr_bins) *b, vu16 yv, vu16 *iy, vu16 *ic)
{
	const uint8x16_t j = vreinterpretq_u8_u16(vmlaq_u16(set16(0x100), srl16(yv, 11), set16(0x202)));

	*iy = vreinterpretq_u16_u8(vqtbl4q_u8(b->y, j));
	*ic = vreinterpretq_u16_u8(vqtbl4q_u8(b->c, j));
}
#endif

/*
 * Chroma distances. x86 holds Cb and Cr flipped to signed (v ^ 0x8000), as
 * its sums want them. A u of 120 or more alone makes the weight 0 (t below
 * 16384 - 14400 < 2048); where every chroma inverse threshold is at least
 * CNR_SATURATES (@sat), a distance of 32767 gives u = (32767 * inv) >> 16
 * of at least 120, as any larger one does, so the distance may saturate
 * there: a saturating difference and an absolute value. Otherwise it is
 * exact. NEON takes the unsigned samples' absolute difference.
 */
#define CNR_SATURATES 241
#if defined(VEC_BITS) && VEC_BITS == 512
/*
 * Saturating: two port-0 instructions. Exact: at 512 bits Intel runs
 * min/max on port 0 only, so a - b, and b - a where a < b (a port-5
 * compare and two subtracts either port runs), spreads the work.
 */
V_INLINE vu16 FN(cnr_cdist)(vu16 a, vu16 b, const int sat)
{
	if (sat)
		return X(abs_epi16)(X(subs_epi16)(a, b));
	return _mm512_mask_sub_epi16(sub16(a, b), _mm512_cmplt_epi16_mask(a, b), b, a);
}
#elif defined(VEC_BITS)
V_INLINE vu16 FN(cnr_cdist)(vu16 a, vu16 b, const int sat)
{
	if (sat)
		return X(abs_epi16)(X(subs_epi16)(a, b));
	return sub16(X(max_epi16)(a, b), X(min_epi16)(a, b));
}
#else
V_INLINE vu16 FN(cnr_cdist)(vu16 a, vu16 b, const int sat)
{
	(void)sat;
	return vabdq_u16(a, b);
}
#endif

#ifdef VEC_BITS
/* Bytes 0, 8, 1, 9, ..., 7, 15 of each 128 bits: the bytes of packs_epi16(a, b) as (a[i], b[i]) pairs. */
V_INLINE vu16 FN(cnr_pairs_idx)(void)
{
	const __m128i q = _mm_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);

#if VEC_BITS == 512
	return _mm512_broadcast_i32x4(q);
#elif VEC_BITS == 256
	return _mm256_broadcastsi128_si256(q);
#else
	return q;
#endif
}
#endif

/*
 * The weight 0..64 of a tap of the chroma denoise (weight() of cnr_row.c), from its distances, in
 * 16-bit lanes; @sat: the chroma distances saturate (cnr_cdist()).
 */
V_INLINE vu16 FN(cnr_weight)(vu16 dy, vu16 db, vu16 dr, vu16 iy, vu16 ic, const int sat)
{
	const vu16 c16384 = set16(16384);
#ifdef VEC_BITS
	if (sat) {
		/*
		 * Chroma distances of at most 32767 make ub, ur at most 32766, so the signed
		 * pack caps them at 127 as bytes (127 caps as 128 does: below); a byte
		 * shuffle pairs each lane's (ub, ur) and one pmaddubsw squares and sums
		 * them. Two instructions fewer than two caps, a shift and an or.
		 */
		const vu16 uy = min16(mulhi16(dy, iy), set16(127));
		const vu16 br = X(shuffle_epi8)(X(packs_epi16)(mulhi16(db, ic), mulhi16(dr, ic)), FN(cnr_pairs_idx)());
		const vu16 t = subs16(c16384, add16(X(maddubs_epi16)(br, br), mullo16(uy, uy)));

		return srl16(mulhi16(t, t), 6);
	}
#else
	(void)sat;
#endif
#ifdef VEC_BITS
	/*
	 * u capped at 127, not 128: a u of 128 or more leaves t at most 255, so
	 * the weight is 0 either way. Then uy^2 + ub^2 is one pmaddubsw of the
	 * bytes (uy, ub) of each lane by themselves.
	 */
	const vu16 c127 = set16(127);
	vu16 uy = min16(mulhi16(dy, iy), c127), ub = min16(mulhi16(db, ic), c127), ur = min16(mulhi16(dr, ic), c127);
#if VEC_BITS == 512
	/*
	 * ub << 8 as a byte shift of each 128 bits: a port-5 shuffle where Intel runs 512-bit
	 * shifts on port 0 only (ub's high bytes are 0, so each lane gets ub's byte over a 0).
	 */
	vu16 yb = vor(uy, _mm512_bslli_epi128(ub, 1));
#else
	vu16 yb = vor(uy, sll16(ub, 8));
#endif
	vu16 t = subs16(c16384, add16(X(maddubs_epi16)(yb, yb), mullo16(ur, ur)));
#else
	const vu16 c128 = set16(128);
	vu16 uy = min16(mulhi16(dy, iy), c128), ub = min16(mulhi16(db, ic), c128), ur = min16(mulhi16(dr, ic), c128);
	vu16 t = subs16(c16384, add16(add16(mullo16(uy, uy), mullo16(ub, ub)), mullo16(ur, ur)));
#endif

	return srl16(mulhi16(t, t), 6);
}

/*
 * The sums of a chroma denoise output: weights (16-bit), weight x Cb and
 * weight x Cr (32-bit, in the order of wlo()/whi()). The centre's weight is
 * 64 (no differences), so it starts them; taps are added in pairs.
 */
struct FN(cnr_sums) {
	vu16 sw;
	vs32 bl, bh, rl, rh;
};

/* @b0, @r0: the centres' samples as cnr_ldc() gives them. */
V_INLINE void FN(cnr_start)(struct FN(cnr_sums) *a, vu16 b0, vu16 r0)
{
	a->sw = set16(64);
#ifdef VEC_BITS
	/*
	 * x86 sums w (v - 32768) with pmaddwd (signed), 64 (v - 32768) for the centre: the flipped
	 * samples (signed) in the high halves of 32-bit lanes, shifted down arithmetically by 10.
	 * cnr_end() adds 32768 sw.
	 */
	a->bl = X(srai_epi32)(X(unpacklo_epi16)(zero(), b0), 10);
	a->bh = X(srai_epi32)(X(unpackhi_epi16)(zero(), b0), 10);
	a->rl = X(srai_epi32)(X(unpacklo_epi16)(zero(), r0), 10);
	a->rh = X(srai_epi32)(X(unpackhi_epi16)(zero(), r0), 10);
#else
	a->bl = sll32(wlo(b0), 6);
	a->bh = sll32(whi(b0), 6);
	a->rl = sll32(wlo(r0), 6);
	a->rh = sll32(whi(r0), 6);
#endif
}

/* Two taps of weights wa, wb on samples (ba, ra) and (bb, rb) (flipped on x86). */
V_INLINE void FN(cnr_add2)(struct FN(cnr_sums) *a, vu16 wa, vu16 wb, vu16 ba, vu16 bb, vu16 ra, vu16 rb)
{
	a->sw = add16(a->sw, add16(wa, wb));
#ifdef VEC_BITS
	{
		vu16 wl = X(unpacklo_epi16)(wa, wb), wh = X(unpackhi_epi16)(wa, wb);

#if VEC_BITS == 512 && defined(__AVX512VNNI__)
		/* vpdpwssd: the multiply-add and its add in one. */
		a->bl = _mm512_dpwssd_epi32(a->bl, wl, X(unpacklo_epi16)(ba, bb));
		a->bh = _mm512_dpwssd_epi32(a->bh, wh, X(unpackhi_epi16)(ba, bb));
		a->rl = _mm512_dpwssd_epi32(a->rl, wl, X(unpacklo_epi16)(ra, rb));
		a->rh = _mm512_dpwssd_epi32(a->rh, wh, X(unpackhi_epi16)(ra, rb));
#else
		a->bl = add32(a->bl, X(madd_epi16)(wl, X(unpacklo_epi16)(ba, bb)));
		a->bh = add32(a->bh, X(madd_epi16)(wh, X(unpackhi_epi16)(ba, bb)));
		a->rl = add32(a->rl, X(madd_epi16)(wl, X(unpacklo_epi16)(ra, rb)));
		a->rh = add32(a->rh, X(madd_epi16)(wh, X(unpackhi_epi16)(ra, rb)));
#endif
	}
#else
	{
		vs32 pl, ph, ql, qh;

		mul16x32(wa, ba, &pl, &ph);
		mul16x32(wb, bb, &ql, &qh);
		a->bl = add32(a->bl, add32(pl, ql));
		a->bh = add32(a->bh, add32(ph, qh));
		mul16x32(wa, ra, &pl, &ph);
		mul16x32(wb, rb, &ql, &qh);
		a->rl = add32(a->rl, add32(pl, ql));
		a->rh = add32(a->rh, add32(ph, qh));
	}
#endif
}

/* The N16 centres of a pass: their samples (Cb, Cr flipped on x86) and thresholds. */
struct FN(cnr_centre) {
	vu16 y, b, r, iy, ic;
};

/* Cb or Cr samples as the distances and sums take them: flipped to signed on x86. */
#ifdef VEC_BITS
#define CNR_FLIP 0x8000
#define cnr_ldc(p) vxor(ld(p), set16(CNR_FLIP))
#else
#define CNR_FLIP 0
#define cnr_ldc(p) ld(p)
#endif

/* The centres at @y, @cb, @cr (chroma as cnr_ldc() gives it), and their sums started. */
V_INLINE void FN(cnr_begin)(struct FN(cnr_centre) *c, struct FN(cnr_sums) *a, const struct FN(cnr_bins) *bins,
			    vu16 y, vu16 cb, vu16 cr)
{
	c->y = y;
	c->b = cb;
	c->r = cr;
	FN(cnr_bins_at)(bins, c->y, &c->iy, &c->ic);
	FN(cnr_start)(a, c->b, c->r);
}

/* The weight of the tap (yk, bk, rk) (chroma as cnr_ldc() gives it) for the centres @c. */
V_INLINE vu16 FN(cnr_tap)(const struct FN(cnr_centre) *c, vu16 yk, vu16 bk, vu16 rk, const int sat)
{
	return FN(cnr_weight)(absd16(yk, c->y), FN(cnr_cdist)(bk, c->b, sat),
			      FN(cnr_cdist)(rk, c->r, sat), c->iy, c->ic, sat);
}

/* Two taps (ya, ba, ra) and (yb, bb, rb) of the centres @c, chroma as cnr_ldc() gives it. */
V_INLINE void FN(cnr_pair)(struct FN(cnr_sums) *a, const struct FN(cnr_centre) *c, vu16 ya, vu16 ba, vu16 ra,
			   vu16 yb, vu16 bb, vu16 rb, const int sat)
{
	FN(cnr_add2)(a, FN(cnr_tap)(c, ya, ba, ra, sat), FN(cnr_tap)(c, yb, bb, rb, sat), ba, bb, ra, rb);
}

#ifdef VEC_BITS
/*
 * mulhi32r(): the even lanes' results, the high halves of their 64-bit products, moved down by a
 * dword shuffle merged into the odd lanes' products (one instruction at 512 bits, a shuffle and
 * a blend below), where mulhi32r() takes a shift, an and and an or.
 */
V_INLINE vs32 FN(cnr_mulhi32r)(vs32 a, vs32 b)
{
#if VEC_BITS == 512
	const vs32 half = _mm512_set1_epi64(1ll << 31);
#else
	const vs32 half = X(set1_epi64x)(1ll << 31);
#endif
	const vs32 even = X(add_epi64)(X(mul_epu32)(a, b), half);
	const vs32 odd = X(add_epi64)(X(mul_epu32)(X(srli_epi64)(a, 32), X(srli_epi64)(b, 32)), half);

#if VEC_BITS == 512
	return _mm512_mask_shuffle_epi32(odd, 0x5555, even, _MM_PERM_DDBB);
#elif VEC_BITS == 256
	return _mm256_blend_epi32(_mm256_shuffle_epi32(even, 0xf5), odd, 0xaa);
#else
	return _mm_blend_epi16(_mm_shuffle_epi32(even, 0xf5), odd, 0xcc);
#endif
}
#else
#define cnr_mulhi32r_neon mulhi32r
#endif

/*
 * The weighted means of Cb and Cr: Σw·v · R[Σw], R of each lane's Σw
 * computed (recip32()) once for both. Not gathered from the table: QEMU
 * 7.2's x86 emulator, which runs tests/vm, reads a gather whose index is
 * ymm4 as having no index (docs/fastpath.md).
 */
V_INLINE void FN(cnr_end)(struct FN(cnr_sums) *a, uint16_t *ocb, uint16_t *ocr)
{
	const vs32 rl = recip32(wlo(a->sw)), rh = recip32(whi(a->sw));
#ifdef VEC_BITS
	const vs32 bl = sll32(wlo(a->sw), 15), bh = sll32(whi(a->sw), 15);

	a->bl = add32(a->bl, bl);
	a->bh = add32(a->bh, bh);
	a->rl = add32(a->rl, bl);
	a->rh = add32(a->rh, bh);
#endif
	st(ocb, packus32(FN(cnr_mulhi32r)(a->bl, rl), FN(cnr_mulhi32r)(a->bh, rh)));
	st(ocr, packus32(FN(cnr_mulhi32r)(a->rl, rl), FN(cnr_mulhi32r)(a->rh, rh)));
}

/*
 * The N16 outputs of the horizontal pass at the centres @y, @cb, @cr, whose
 * r columns either side are all there, into @ocb, @ocr; the chroma already
 * as cnr_ldc() gives it (cnr_h_span()'s copies).
 */
V_INLINE void FN(cnr_h_vec)(const uint16_t *y, const uint16_t *cb, const uint16_t *cr, uint16_t *ocb, uint16_t *ocr,
			    const struct FN(cnr_bins) *bins, const int r, const int sat)
{
	struct FN(cnr_centre) c;
	struct FN(cnr_sums) a;

	FN(cnr_begin)(&c, &a, bins, ld(y), ld(cb), ld(cr));
	for (int k = 1; k <= r; k++)
		FN(cnr_pair)(&a, &c, ld(y - k), ld(cb - k), ld(cr - k), ld(y + k), ld(cb + k), ld(cr + k), sat);
	FN(cnr_end)(&a, ocb + 0, ocr + 0);
}

/* Columns of the horizontal pass's copies (cnr_h_span()). */
#define CNR_CHUNK 256

/*
 * A row at a constant radius, in chunks of CNR_CHUNK outputs (the last one
 * moved back to end at the row's end, overlapping the one before where it
 * is short): each reads a copy of its columns and r either side, with the
 * columns outside the row reflected and the chroma as cnr_ldc() gives it,
 * so that the taps' loads take no flip and the row's ends no other code.
 */
V_INLINE void FN(cnr_h_span)(const uint16_t *y, const uint16_t *cb, const uint16_t *cr, uint16_t *ocb,
			     uint16_t *ocr, int w, const struct FN(cnr_bins) *bins, const int r, const int sat)
{
	uint16_t py[CNR_CHUNK + 2 * CISP_CNR_MAX_RADIUS], pb[CNR_CHUNK + 2 * CISP_CNR_MAX_RADIUS],
		pr[CNR_CHUNK + 2 * CISP_CNR_MAX_RADIUS];

	for (int x0 = 0; x0 < w; x0 += CNR_CHUNK) {
		const int xs = w - x0 < N16 ? w - N16 : x0, n = w - xs < CNR_CHUNK ? w - xs : CNR_CHUNK;
		/* Columns xs - r + i, i = 0 .. n + 2 r - 1: [ia, ib) inside the row, the rest reflected. */
		const int ia = xs - r < 0 ? r - xs : 0, ib = xs + n + r > w ? w - xs + r : n + 2 * r;

		for (int i = 0; i < ia; i++) {
			const int X = mirror(xs - r + i, w);

			py[i] = y[X];
			pb[i] = (uint16_t)(cb[X] ^ CNR_FLIP);
			pr[i] = (uint16_t)(cr[X] ^ CNR_FLIP);
		}
		FOR_VECTORS(i, ia, ib - N16) {
			st(py + i, ld(y + xs - r + i));
			st(pb + i, cnr_ldc(cb + xs - r + i));
			st(pr + i, cnr_ldc(cr + xs - r + i));
		}
		for (int i = ib; i < n + 2 * r; i++) {
			const int X = mirror(xs - r + i, w);

			py[i] = y[X];
			pb[i] = (uint16_t)(cb[X] ^ CNR_FLIP);
			pr[i] = (uint16_t)(cr[X] ^ CNR_FLIP);
		}
		FOR_VECTORS(x, 0, n - N16)
			FN(cnr_h_vec)(py + r + x, pb + r + x, pr + r + x, ocb + xs + x, ocr + xs + x, bins, r, sat);
	}
}

/* The radius as a constant: the body of each case is the span at that radius. */
#define CNR_AT_RADIUS(r, span, sat)              \
	do {                                     \
		switch (r) {                     \
		case 1: span(1, sat); break;     \
		case 2: span(2, sat); break;     \
		case 3: span(3, sat); break;     \
		case 4: span(4, sat); break;     \
		case 5: span(5, sat); break;     \
		case 6: span(6, sat); break;     \
		case 7: span(7, sat); break;     \
		default: span(8, sat); break;    \
		}                                \
	} while (0)

/*
 * The span at the row's radius, with the chroma distances saturating where
 * every chroma inverse threshold allows it (cnr_cdist()); NEON has one kind.
 */
#ifdef VEC_BITS
#define CNR_SPAN(t, span)                                       \
	do {                                                    \
		if (FN(cnr_saturates)(t))                       \
			CNR_AT_RADIUS((t)->radius, span, 1);    \
		else                                            \
			CNR_AT_RADIUS((t)->radius, span, 0);    \
	} while (0)
#else
#define CNR_SPAN(t, span) CNR_AT_RADIUS((t)->radius, span, 0)
#endif

/* Whether every chroma inverse threshold is at least CNR_SATURATES (cnr_cdist()). */
V_INLINE int FN(cnr_saturates)(const struct cisp_cnr_row_tables *t)
{
	for (int b = 0; b < 32; b++)
		if (t->inv_c[b] < CNR_SATURATES)
			return 0;
	return 1;
}

static void FN(cnr_h_row)(const uint16_t *y, const uint16_t *cb, const uint16_t *cr, uint16_t *ocb, uint16_t *ocr,
			  int w, const struct cisp_cnr_row_tables *t)
{
	struct FN(cnr_bins) bins;

	if (!t->enabled || w < N16 + 2 * t->radius) {
		cisp_cnr_h_row_c(y, cb, cr, ocb, ocr, w, t);
		return;
	}
	FN(cnr_bins_load)(&bins, t);
#define CNR_H_SPAN(r, sat) FN(cnr_h_span)(y, cb, cr, ocb, ocr, w, &bins, r, sat)
	CNR_SPAN(t, CNR_H_SPAN);
#undef CNR_H_SPAN
}

/*
 * A row at a constant radius. The row pointers are copied into locals,
 * above (a, row r - k) and below (b, row r + k) the centre: the stores
 * may alias anything, and would otherwise make the compiler load each
 * pointer again for every vector.
 */
V_INLINE void FN(cnr_v_span)(const uint16_t *const y[], const uint16_t *const cb[], const uint16_t *const cr[],
			     uint16_t *ocb, uint16_t *ocr, int w, const struct FN(cnr_bins) *bins, const int r,
			     const int sat)
{
	const uint16_t *const yc = y[r], *const bc = cb[r], *const rc = cr[r];
	const uint16_t *ya[CISP_CNR_MAX_RADIUS + 1], *ba[CISP_CNR_MAX_RADIUS + 1], *ra[CISP_CNR_MAX_RADIUS + 1];
	const uint16_t *yb[CISP_CNR_MAX_RADIUS + 1], *bb[CISP_CNR_MAX_RADIUS + 1], *rb[CISP_CNR_MAX_RADIUS + 1];

	for (int k = 1; k <= r; k++) {
		ya[k] = y[r - k];
		ba[k] = cb[r - k];
		ra[k] = cr[r - k];
		yb[k] = y[r + k];
		bb[k] = cb[r + k];
		rb[k] = cr[r + k];
	}
	FOR_VECTORS(x, 0, w - N16) {
		struct FN(cnr_centre) c;
		struct FN(cnr_sums) a;

		FN(cnr_begin)(&c, &a, bins, ld(yc + x), cnr_ldc(bc + x), cnr_ldc(rc + x));
		for (int k = 1; k <= r; k++)
			FN(cnr_pair)(&a, &c, ld(ya[k] + x), cnr_ldc(ba[k] + x), cnr_ldc(ra[k] + x), ld(yb[k] + x),
				     cnr_ldc(bb[k] + x), cnr_ldc(rb[k] + x), sat);
		FN(cnr_end)(&a, ocb + x, ocr + x);
	}
}

static void FN(cnr_v_row)(const uint16_t *const y[], const uint16_t *const cb[], const uint16_t *const cr[],
			  uint16_t *ocb, uint16_t *ocr, int w, const struct cisp_cnr_row_tables *t)
{
	struct FN(cnr_bins) bins;

	if (!t->enabled || w < N16) {
		cisp_cnr_v_row_c(y, cb, cr, ocb, ocr, w, t);
		return;
	}
	FN(cnr_bins_load)(&bins, t);
#define CNR_V_SPAN(r, sat) FN(cnr_v_span)(y, cb, cr, ocb, ocr, w, &bins, r, sat)
	CNR_SPAN(t, CNR_V_SPAN);
#undef CNR_V_SPAN
}

void CAT(cisp_dsp_init_cnr, SIMD_SUFFIX)(struct cisp_dsp *d)
{
	d->cnr_h_row = FN(cnr_h_row);
	d->cnr_v_row = FN(cnr_v_row);
}
