/* SPDX-License-Identifier: MIT */
/*
 * The quality demosaic's three passes (demosaic_quality_row.c is the
 * reference, docs/stages/demosaic_quality.md the arithmetic) over the vector
 * layer, for the files in x86/ and arm/, which include it after
 * simd_kernels.h. Same rows, same bits; the scratch holds rings of the rows
 * each pass's steps read at once, whatever the rows of a call
 * (cisp_dmq_scratch_size() counts them), so that they stay in the L2 cache.
 *
 * Every step works on N32 columns as 32-bit lanes. Green and colour sites
 * alternate along a row: the green of the colour sites and the red and blue
 * of the green sites, the heaviest steps, gather the sites of two vectors
 * they compute into one (dmq_pick) and spread the result back; the
 * leave-one-out errors, 0 on the green sites, and pass 2's blend work on
 * the colour sites alone, packed (dmq_half); the other steps compute each
 * value on both kinds of site and keep the one the site needs (a select).
 * The scratch rows are padded
 * by reflection, so vectors cover whole rows with no edge columns; only the
 * Bayer reads of dh reach past the row, and its two columns at each end are
 * left to the C version. mlog is the exponent and top mantissa bits of the
 * single float of s (exact below 2^24); SIG and SOFT are lookups in 64-entry
 * byte tables (SIG as 256 - SIG(|t|) on |t| clamped to 63, 0 from 72 on).
 */
#include <stdint.h>

#include "isp/demosaic_quality.h"
#include "core/plane.h"

/*
 * The per-architecture part: N32 samples of 16 bits widened to 32-bit lanes
 * (dmq_ldw), stored back clamped to 0..65535 (dmq_stc; dmq_stc2 two vectors
 * at once, one pack), mlog, lookups in
 * a table of 64 bytes; dmq_pick() takes the lanes of one parity (ph 0: even,
 * 1: odd) of two vectors into one, in an order of its own, and dmq_spread()
 * puts a vector's lanes back where dmq_pick() took them from, into the lanes
 * of that parity of two vectors, zeros between.
 */
#ifdef VEC_BITS
#if VEC_BITS == 512
#define dmq_ldw(p) _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(p)))
#define dmq_stc(p, v) \
	_mm256_storeu_si256((__m256i *)(void *)(p), _mm512_cvtusepi32_epi16(max32(v, set32(0))))

V_INLINE void dmq_stc2(uint16_t *p, vs32 a, vs32 b)
{
	/* the pack works in 128-bit lanes: a0 b0 a1 b1 .. back into a0 a1 .. b0 b1 .. */
	st(p, _mm512_permutexvar_epi64(_mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0), packus32(a, b)));
}
#define dmq_asint(f) _mm512_castps_si512(f)
/*
 * Pass 3's output stores the red and blue of two vectors at once (one pack
 * each, fewer instructions here; at the other levels the step's greater
 * register pressure costs more than the packs save)
 */
#define DMQ_OUT_PAIRS 1

/* The 64 entries as 16-bit words, 32 a register. */
struct dmq_lut {
	__m512i t[2];
};

V_INLINE void dmq_lut_load(struct dmq_lut *l, const uint8_t tab[64])
{
	for (int k = 0; k < 2; k++)
		l->t[k] = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(tab + 32 * k)));
}

/*
 * tab[i], i in 0..63: one two-table permute of 16-bit words; the low word
 * of each lane is i, its result the entry, and the high word is zeroed.
 */
V_INLINE vs32 dmq_lut(const struct dmq_lut *l, vs32 i)
{
	return _mm512_maskz_permutex2var_epi16(0x55555555, l->t[0], i, l->t[1]);
}

V_INLINE vs32 dmq_pick(vs32 a, vs32 b, int ph)
{
	/* [a0 b0 a2 b2 ..] (ph 0) or [a1 b1 a3 b3 ..] (ph 1): in-lane shuffles, not permutes across lanes */
	return ph ? _mm512_mask_shuffle_epi32(b, 0x5555, a, _MM_PERM_DDBB)
		  : _mm512_mask_shuffle_epi32(a, 0xaaaa, b, _MM_PERM_CCAA);
}

V_INLINE void dmq_spread(vs32 c, int ph, vs32 *lo, vs32 *hi)
{
	*lo = ph ? _mm512_maskz_shuffle_epi32(0xaaaa, c, _MM_PERM_CCAA) : _mm512_maskz_mov_epi32(0x5555, c);
	*hi = ph ? _mm512_maskz_mov_epi32(0xaaaa, c) : _mm512_maskz_shuffle_epi32(0x5555, c, _MM_PERM_DDBB);
}

/* a0 b0 a1 b1 .. into lo, the rest into hi. */
V_INLINE void dmq_zip(vs32 a, vs32 b, vs32 *lo, vs32 *hi)
{
	*lo = _mm512_permutex2var_epi32(a, _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0), b);
	*hi = _mm512_permutex2var_epi32(a, _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8),
					b);
}
#else
#if VEC_BITS == 256
#define dmq_ldw(p) _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p)))
V_INLINE void dmq_stc(uint16_t *p, vs32 v)
{
	__m256i t = _mm256_permute4x64_epi64(_mm256_packus_epi32(v, v), 0x08);

	_mm_storeu_si128((__m128i *)(void *)p, _mm256_castsi256_si128(t));
}

V_INLINE void dmq_stc2(uint16_t *p, vs32 a, vs32 b)
{
	st(p, _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8));
}
#define dmq_asint(f) _mm256_castps_si256(f)
#define dmq_bcast(p) _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(p)))
#else
#define dmq_ldw(p) _mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(p)))
#define dmq_stc(p, v) _mm_storel_epi64((__m128i *)(void *)(p), _mm_packus_epi32(v, v))
#define dmq_stc2(p, a, b) st(p, _mm_packus_epi32(a, b))
#define dmq_asint(f) _mm_castps_si128(f)
#define dmq_bcast(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#endif

struct dmq_lut {
	vs32 t[4];
};

V_INLINE void dmq_lut_load(struct dmq_lut *l, const uint8_t tab[64])
{
	for (int k = 0; k < 4; k++)
		l->t[k] = dmq_bcast(tab + 16 * k);
}

/*
 * tab[i], i in 0..63, in the low byte of each lane whose low byte is i:
 * byte shuffles of the four 16-entry tables, bits 4 and 5 of i (moved to
 * bit 7 of the byte: b4 = i << 3, b5 = i << 2) choose.
 */
V_INLINE vs32 dmq_lut_bytes(const struct dmq_lut *l, vs32 i, vs32 b4, vs32 b5)
{
	vs32 lo = X(blendv_epi8)(X(shuffle_epi8)(l->t[0], i), X(shuffle_epi8)(l->t[1], i), b4);
	vs32 hi = X(blendv_epi8)(X(shuffle_epi8)(l->t[2], i), X(shuffle_epi8)(l->t[3], i), b4);

	return X(blendv_epi8)(lo, hi, b5);
}

/* tab[i], i in 0..63. */
V_INLINE vs32 dmq_lut(const struct dmq_lut *l, vs32 i)
{
	return vand(dmq_lut_bytes(l, i, sll32(i, 3), sll32(i, 2)), set32(255));
}

/*
 * ta[i0], ta[i1], tb[i0], tb[i1] into r[0..3], indices in 0..63: the two
 * index vectors packed into one of 16-bit lanes, so that each table takes
 * one lookup for both, whose shifts the two share.
 */
V_INLINE void dmq_lut2x2(const struct dmq_lut *ta, const struct dmq_lut *tb, vs32 i0, vs32 i1, vs32 r[4])
{
	vs32 i = packus32(i0, i1), b4 = sll16(i, 3), b5 = sll16(i, 2);
	vs32 a = vand(dmq_lut_bytes(ta, i, b4, b5), set16(255)), b = vand(dmq_lut_bytes(tb, i, b4, b5), set16(255));

	r[0] = wlo(a);
	r[1] = whi(a);
	r[2] = wlo(b);
	r[3] = whi(b);
}
#endif
#if VEC_BITS == 256
/* [a0 b0 a2 b2 ..] (ph 0) or [a1 b1 a3 b3 ..] (ph 1): a shift and a blend, no permute across the halves */
V_INLINE vs32 dmq_pick(vs32 a, vs32 b, int ph)
{
	return ph ? _mm256_blend_epi32(_mm256_srli_epi64(a, 32), b, 0xaa)
		  : _mm256_blend_epi32(a, _mm256_slli_epi64(b, 32), 0xaa);
}

V_INLINE void dmq_spread(vs32 c, int ph, vs32 *lo, vs32 *hi)
{
	*lo = ph ? _mm256_slli_epi64(c, 32) : _mm256_blend_epi32(c, zero(), 0xaa);
	*hi = ph ? _mm256_blend_epi32(c, zero(), 0x55) : _mm256_srli_epi64(c, 32);
}

/* a0 b0 a1 b1 .. into lo, the rest into hi. */
V_INLINE void dmq_zip(vs32 a, vs32 b, vs32 *lo, vs32 *hi)
{
	vs32 l = _mm256_unpacklo_epi32(a, b), h = _mm256_unpackhi_epi32(a, b);

	*lo = _mm256_permute2x128_si256(l, h, 0x20);
	*hi = _mm256_permute2x128_si256(l, h, 0x31);
}
#elif VEC_BITS == 128
V_INLINE vs32 dmq_pick(vs32 a, vs32 b, int ph)
{
	__m128 fa = _mm_castsi128_ps(a), fb = _mm_castsi128_ps(b);

	return _mm_castps_si128(ph ? _mm_shuffle_ps(fa, fb, 0xdd) : _mm_shuffle_ps(fa, fb, 0x88));
}

V_INLINE void dmq_spread(vs32 c, int ph, vs32 *lo, vs32 *hi)
{
	*lo = ph ? X(unpacklo_epi32)(zero(), c) : X(unpacklo_epi32)(c, zero());
	*hi = ph ? X(unpackhi_epi32)(zero(), c) : X(unpackhi_epi32)(c, zero());
}

/* a0 b0 a1 b1 into lo, a2 b2 a3 b3 into hi. */
V_INLINE void dmq_zip(vs32 a, vs32 b, vs32 *lo, vs32 *hi)
{
	*lo = X(unpacklo_epi32)(a, b);
	*hi = X(unpackhi_epi32)(a, b);
}
#endif
/*
 * mlog of s plus 2032 (1 <= s < 2^24): bits 19.. of the single float of s.
 * Every step takes differences of two of them (or of two minima of them),
 * in which the 2032 cancels.
 */
#define dmq_mlog2032(s) srl32(dmq_asint(X(cvtepi32_ps)(s)), 19)
#else /* NEON */
#define dmq_ldw(p) vreinterpretq_s32_u32(vmovl_u16(vld1_u16((const uint16_t *)(p))))
#define dmq_stc(p, v) vst1_u16((uint16_t *)(p), vqmovun_s32(v))
#define dmq_stc2(p, a, b) vst1q_u16((uint16_t *)(p), vcombine_u16(vqmovun_s32(a), vqmovun_s32(b)))
/* mlog of s plus 2032, as above. */
#define dmq_mlog2032(s) vreinterpretq_s32_u32(vshrq_n_u32(vreinterpretq_u32_f32(vcvtq_f32_s32(s)), 19))

struct dmq_lut {
	uint8x16x4_t t;
};

V_INLINE void dmq_lut_load(struct dmq_lut *l, const uint8_t tab[64])
{
	for (int k = 0; k < 4; k++)
		l->t.val[k] = vld1q_u8(tab + 16 * k);
}

/* tab[i], i in 0..63: one table lookup on the low byte of each lane. */
V_INLINE vs32 dmq_lut(const struct dmq_lut *l, vs32 i)
{
	return vandq_s32(vreinterpretq_s32_u8(vqtbl4q_u8(l->t, vreinterpretq_u8_s32(i))), vdupq_n_s32(255));
}

V_INLINE vs32 dmq_pick(vs32 a, vs32 b, int ph)
{
	return ph ? vuzp2q_s32(a, b) : vuzp1q_s32(a, b);
}

V_INLINE void dmq_spread(vs32 c, int ph, vs32 *lo, vs32 *hi)
{
	const int32x4_t z = vdupq_n_s32(0);

	*lo = ph ? vzip1q_s32(z, c) : vzip1q_s32(c, z);
	*hi = ph ? vzip2q_s32(z, c) : vzip2q_s32(c, z);
}

/* a0 b0 a1 b1 into lo, a2 b2 a3 b3 into hi. */
V_INLINE void dmq_zip(vs32 a, vs32 b, vs32 *lo, vs32 *hi)
{
	*lo = vzip1q_s32(a, b);
	*hi = vzip2q_s32(a, b);
}
#endif

#if !defined(VEC_BITS) || VEC_BITS == 512
/* ta[i0], ta[i1], tb[i0], tb[i1] into r[0..3]: one lookup each, where a lookup is one instruction or two. */
V_INLINE void dmq_lut2x2(const struct dmq_lut *ta, const struct dmq_lut *tb, vs32 i0, vs32 i1, vs32 r[4])
{
	r[0] = dmq_lut(ta, i0);
	r[1] = dmq_lut(ta, i1);
	r[2] = dmq_lut(tb, i0);
	r[3] = dmq_lut(tb, i1);
}
#endif

/* a where the mask m is all ones, b where it is 0: one instruction (its lanes are all ones or 0). */
#ifndef VEC_BITS
#define dmq_sel(m, a, b) vbslq_s32(vreinterpretq_u32_s32(m), a, b)
#elif VEC_BITS == 512
#define dmq_sel(m, a, b) _mm512_ternarylogic_epi32(m, a, b, 0xca)
#else
#define dmq_sel(m, a, b) X(blendv_epi8)(b, a, m)
#endif
#ifndef DMQ_OUT_PAIRS
#define DMQ_OUT_PAIRS 0
#endif

/*
 * Vectors of N32 columns at x = x0, x0 + N32, ..., the last one ending at x1
 * (it may overlap the one before and computes the same values again); needs
 * x1 - x0 >= N32. DMQ_FOR_STEP: steps of two vectors or more.
 */
#define DMQ_FOR_STEP(x, x0, x1, step)                                                                \
	for (int end_ = (x1) - (step), x = (x0); x <= end_ || (x < end_ + (step) && (x = end_, 1)); \
	     x += (step))
#define DMQ_FOR(x, x0, x1) DMQ_FOR_STEP(x, x0, x1, N32)

/* The SIG and SOFT tables as the lookups take them. */
struct dmq_tables {
	struct dmq_lut rsig; /* 256 - SIG(u), u = 0..63 (SIG is 255 from 60 to 71) */
	struct dmq_lut soft; /* SOFT(d), d = 0..63 */
};

V_INLINE void dmq_tables_load(struct dmq_tables *t)
{
	uint8_t rsig[64], soft[64];

	for (int i = 0; i < 64; i++) {
		rsig[i] = (uint8_t)(256 - cisp_dmq_sig_table[i]);
		soft[i] = i < 36 ? cisp_dmq_soft_table[i] : 0;
	}
	dmq_lut_load(&t->rsig, rsig);
	dmq_lut_load(&t->soft, soft);
}

/* SIG(t) from r = R(min(|t|, 63)) and u = |t|: R(u) = 256 - SIG_TABLE[u], 0 from u = 72. */
V_INLINE vs32 dmq_sig_of(vs32 t, vs32 u, vs32 r)
{
	r = vand32(r, gt32(set32(72), u));
	return dmq_sel(sra32(t, 31), r, sub32(set32(256), r));
}

/* SIG(t) = 256 - R(|t|) for t >= 0, R(|t|) for t < 0. */
V_INLINE vs32 dmq_sig(const struct dmq_tables *tb, vs32 t)
{
	vs32 u = abs32(t);

	return dmq_sig_of(t, u, dmq_lut(&tb->rsig, min32(u, set32(63))));
}

/*
 * SIG(t0), SIG(t1) into w[0], w[1] and SOFT(|t0|), SOFT(|t1|) into s[0],
 * s[1]: the four lookups share their two indices.
 */
V_INLINE void dmq_sig_soft2(const struct dmq_tables *tb, vs32 t0, vs32 t1, vs32 w[2], vs32 s[2])
{
	const vs32 top = set32(63);
	vs32 u0 = abs32(t0), u1 = abs32(t1), r[4];

	dmq_lut2x2(&tb->rsig, &tb->soft, min32(u0, top), min32(u1, top), r);
	w[0] = dmq_sig_of(t0, u0, r[0]);
	w[1] = dmq_sig_of(t1, u1, r[1]);
	s[0] = r[2];
	s[1] = r[3];
}

/* (w a + (256 - w) b + r) >> s as (w (a - b) + 256 b + r) >> s. */
V_INLINE vs32 dmq_blend(vs32 w, vs32 a, vs32 b, int r, int s)
{
	vs32 v = add32(mul32(w, sub32(a, b)), add32(sll32(b, 8), set32(r)));

	return s == 8 ? sra32(v, 8) : s == 9 ? sra32(v, 9) : sra32(v, 10);
}

/* Lanes of the green sites of a vector at column x of a row whose red/blue columns have parity rbx. */
V_INLINE vs32 dmq_green_lanes(int x, int rbx)
{
	return ((x ^ rbx) & 1) ? set32x2(-1, 0) : set32x2(0, -1);
}

V_INLINE vs32 dmq_sum4(const int32_t *p)
{
	return add32(add32(ld32(p), ld32(p + 1)), add32(ld32(p + 2), ld32(p + 3)));
}

/* The Hamilton-Adams estimate (2 (a + b) + 2c - p - q + 2) >> 2. */
V_INLINE vs32 dmq_ha(vs32 c, vs32 a, vs32 b, vs32 p, vs32 q)
{
	return sra32(add32(sub32(sll32(add32(add32(a, b), c), 1), add32(p, q)), set32(2)), 2);
}

/* Green minus the other colour: e - c at a colour site, c - e at a green site (gl). */
V_INLINE vs32 dmq_diff(vs32 e, vs32 c, vs32 gl)
{
	vs32 t = sub32(e, c);

	return sub32(vxor32(t, gl), gl);
}

/* The sums of 4 rows or columns the green of a row y reads (the scratch rows of them). */
struct dmq_green_in {
	const int32_t *ch4; /* CH(x) + .. + CH(x + 3) */
	const int32_t *h4;  /* dh(x, y) + .. + dh(x + 3, y) */
	const int32_t *n4;  /* CV of rows y - 4 .. y - 1 */
	const int32_t *s4;  /* CV of rows y + 1 .. y + 4 */
	const int32_t *en;  /* dv of rows y - 3 .. y */
	const int32_t *es;  /* dv of rows y .. y + 3 */
};

/* At columns o..: gradient sums of the four sides (less 1) and the directional estimates. */
V_INLINE void dmq_green_sums(const struct dmq_green_in *r, int o, vs32 *se, vs32 *sw, vs32 *sn, vs32 *ss, vs32 *ee,
			     vs32 *ew, vs32 *en, vs32 *es)
{
	*se = ld32(r->ch4 + o + 1);
	*sw = ld32(r->ch4 + o - 4);
	*sn = ld32(r->n4 + o);
	*ss = ld32(r->s4 + o);
	*ee = ld32(r->h4 + o);
	*ew = ld32(r->h4 + o - 3);
	*en = ld32(r->en + o);
	*es = ld32(r->es + o);
}

/* The end of the chunk of C rows from y on a frame too narrow for the vectors (cisp_dmq_scratch_size()). */
V_INLINE int dmq_narrow_end(int y, int y1)
{
	return y1 - y > CISP_DMQ_NARROW_ROWS ? y + CISP_DMQ_NARROW_ROWS : y1;
}

/* Row r of a ring of n scratch rows ws apart that starts at frame row r0 (r >= r0). */
V_INLINE int32_t *dmq_ring_row(int32_t *ring, size_t ws, int n, int r, int r0)
{
	return ring + ws * (size_t)((r - r0) % n) + CISP_DMQ_PAD;
}

/* Row o = the Bayer row p widened, its CISP_DMQ_PAD columns each side filled by reflection. */
V_INLINE void dmq_widen_row(int32_t *o, const uint16_t *p, int w)
{
	DMQ_FOR(x, 0, w)
		st32(o + x, dmq_ldw(p + x));
	cisp_dmq_pad_row(o, w);
}

/*
 * Pass 1 keeps its scratch rows in rings too (dmq_ring_row): 3 rows of dh
 * and of their gradients Dh, 4 of dv and of CV, 6 of the sums of 4 rows of
 * each.
 */
#define DMQ_DH_RING 3
#define DMQ_DV_RING 4
#define DMQ_SUM_RING 6

/* The sum of rows r[0], r[1], r[2] at column x and v. */
V_INLINE vs32 dmq_sum3_rows_and(const int32_t *const r[3], int x, vs32 v)
{
	return add32(add32(ld32(r[0] + x), ld32(r[1] + x)), add32(ld32(r[2] + x), v));
}

/* dh of row r: green minus the other colour along the row; the C version at the two columns of each end. */
V_INLINE void dmq_diff_h_row(const struct plane16 *m, enum cisp_cfa cfa, int r, int32_t *o)
{
	const int w = m->width;
	const uint16_t *p = plane_row(m, mirror(r, m->height));
	const int rbx = cisp_dmq_rb_column(cfa, r);
	const vs32 gl = dmq_green_lanes(2, rbx); /* the same for every vector: x stays even */

	cisp_dmq_diff_h_range(p, w, rbx, o, 0, 2);
	DMQ_FOR(x, 2, w - 2) {
		vs32 c = dmq_ldw(p + x);
		vs32 e = dmq_ha(c, dmq_ldw(p + x - 1), dmq_ldw(p + x + 1), dmq_ldw(p + x - 2), dmq_ldw(p + x + 2));

		st32(o + x, dmq_diff(e, c, gl));
	}
	cisp_dmq_diff_h_range(p, w, rbx, o, w - 2, w);
	cisp_dmq_pad_row(o, w);
}

/* dv at column x of the row whose Bayer rows at -2 .. 2 are p[0] .. p[4]. */
V_INLINE vs32 dmq_diff_v(const uint16_t *const p[5], vs32 gl, int x)
{
	vs32 c = dmq_ldw(p[2] + x);

	return dmq_diff(dmq_ha(c, dmq_ldw(p[1] + x), dmq_ldw(p[3] + x), dmq_ldw(p[0] + x), dmq_ldw(p[4] + x)), c, gl);
}

/* The rows a sweep of dv of row t reads and writes (dmq_diff_v_row). */
struct dmq_dv_io {
	int32_t *dv;              /* dv of row t */
	int32_t *dvs;             /* the sum of the dv rows t - 3 .. t, or NULL */
	const int32_t *dvr[3];    /* the dv rows t - 3 .. t - 1 */
	const int32_t *up;        /* dv of row t - 2, or NULL */
	int32_t *g;               /* Dv of row t - 1: |dv(t - 2) - dv(t)| column by column */
	int32_t *gs;              /* the sum of the Dv rows t - 4 .. t - 1, or NULL */
	const int32_t *gr[3];     /* the Dv rows t - 4 .. t - 2 */
};

/* The sweep of dmq_diff_v_row(): the sums and the gradients when @sums, @grad and @gsum say so. */
V_INLINE void dmq_diff_v_sweep(const struct dmq_dv_io *io, const uint16_t *const p[5], vs32 gl, int w, const int sums,
			       const int grad, const int gsum)
{
	DMQ_FOR(x, 0, w) {
		vs32 d = dmq_diff_v(p, gl, x);

		st32(io->dv + x, d);
		if (sums)
			st32(io->dvs + x, dmq_sum3_rows_and(io->dvr, x, d));
		if (grad) {
			vs32 g = abs32(sub32(ld32(io->up + x), d));

			st32(io->g + x, g);
			if (gsum)
				st32(io->gs + x, dmq_sum3_rows_and(io->gr, x, g));
		}
	}
}

/*
 * dv of row t (green minus the other colour along the column), and in the
 * same sweep, as @io asks: the sum of the dv rows t - 3 .. t; the row of
 * Dv(x) = |dv(x, t - 2) - dv(x, t)| (row t - 1), and the sum of the Dv rows
 * t - 4 .. t - 1 (padded: CV is its sum over three columns).
 */
V_INLINE void dmq_diff_v_row(const struct plane16 *m, enum cisp_cfa cfa, int t, const struct dmq_dv_io *io)
{
	const int w = m->width, hgt = m->height;
	const uint16_t *const p[5] = { plane_row(m, mirror(t - 2, hgt)), plane_row(m, mirror(t - 1, hgt)),
				       plane_row(m, mirror(t, hgt)), plane_row(m, mirror(t + 1, hgt)),
				       plane_row(m, mirror(t + 2, hgt)) };
	const vs32 gl = dmq_green_lanes(0, cisp_dmq_rb_column(cfa, t)); /* x stays even */

	/* the rows of pass 1 that make the sums of dv make those of Dv, and those make Dv */
	if (io->dvs)
		dmq_diff_v_sweep(io, p, gl, w, 1, 1, 1);
	else if (io->gs)
		dmq_diff_v_sweep(io, p, gl, w, 0, 1, 1);
	else if (io->up)
		dmq_diff_v_sweep(io, p, gl, w, 0, 1, 0);
	else
		dmq_diff_v_sweep(io, p, gl, w, 0, 0, 0);
	cisp_dmq_pad_row(io->dv, w);
	if (io->gs)
		cisp_dmq_pad_row(io->gs, w);
}

/*
 * The sum of CV of 4 rows: CV(x) = sum over c = -1..1 of Dv(x + c), so
 * the sum over three columns of @gs, the Dv rows summed.
 */
V_INLINE void dmq_cv_sum_row(const int32_t *gs, int32_t *o, int w)
{
	DMQ_FOR(x, 0, w)
		st32(o + x, add32(add32(ld32(gs + x - 1), ld32(gs + x)), ld32(gs + x + 1)));
}

/* The rows the two greens of a row read and write, besides the sums (dmq_green_step). */
struct dmq_green_io {
	const int32_t *mw;         /* the row's samples, widened */
	const uint16_t *up, *dn;   /* the rows above and below */
	uint16_t *gr, *sr;         /* Gc and G2 out */
};

/*
 * The two greens of the two vectors at column x, their colour sites
 * gathered into one: ph, their parity, a constant in each copy, so that
 * the gathers and spreads take no test.
 */
V_INLINE void dmq_green_step(const struct dmq_green_in *rw, const struct dmq_green_io *io, const struct dmq_tables *tb,
			     int x, const int ph)
{
	const int32_t *mw = io->mw;
	const vs32 one = set32(1);
	vs32 se0, sw0, sn0, ss0, ee0, ew0, en0, es0, se1, sw1, sn1, ss1, ee1, ew1, en1, es1;

	dmq_green_sums(rw, x, &se0, &sw0, &sn0, &ss0, &ee0, &ew0, &en0, &es0);
	dmq_green_sums(rw, x + N32, &se1, &sw1, &sn1, &ss1, &ee1, &ew1, &en1, &es1);

	vs32 le = dmq_mlog2032(add32(dmq_pick(se0, se1, ph), one));
	vs32 lw = dmq_mlog2032(add32(dmq_pick(sw0, sw1, ph), one));
	vs32 ln = dmq_mlog2032(add32(dmq_pick(sn0, sn1, ph), one));
	vs32 ls = dmq_mlog2032(add32(dmq_pick(ss0, ss1, ph), one));
	vs32 ws[2], soft[2];

	/* the weights of east against west and north against south, SOFT of their log differences */
	dmq_sig_soft2(tb, sub32(lw, le), sub32(ls, ln), ws, soft);
	vs32 we = ws[0], wn = ws[1];
	vs32 eh = dmq_blend(we, dmq_pick(ee0, ee1, ph), dmq_pick(ew0, ew1, ph), 128, 8);
	vs32 ev = dmq_blend(wn, dmq_pick(en0, en1, ph), dmq_pick(es0, es1, ph), 128, 8);
	/* log of the summed weights of each axis, as a gradient */
	vs32 lh = sub32(min32(le, lw), soft[0]);
	vs32 lv = sub32(min32(ln, ls), soft[1]);
	vs32 wh = dmq_sig(tb, sub32(lv, lh)), d[2];
	/* the green from the four green neighbours alone, with the same weights */
	vs32 g2h = dmq_blend(we, dmq_pick(ld32(mw + x + 1), ld32(mw + x + N32 + 1), ph),
			     dmq_pick(ld32(mw + x - 1), ld32(mw + x + N32 - 1), ph), 128, 8);
	vs32 g2v = dmq_blend(wn, dmq_pick(dmq_ldw(io->up + x), dmq_ldw(io->up + x + N32), ph),
			     dmq_pick(dmq_ldw(io->dn + x), dmq_ldw(io->dn + x + N32), ph), 128, 8);
	vs32 mc = dmq_pick(ld32(mw + x), ld32(mw + x + N32), ph);

	/* green = M + d on the colour sites, M + 0 on the green sites */
	dmq_spread(dmq_blend(wh, eh, ev, 512, 10), ph, &d[0], &d[1]);
	dmq_stc2(io->gr + x, add32(ld32(mw + x), d[0]), add32(ld32(mw + x + N32), d[1]));
	dmq_spread(sub32(dmq_blend(wh, g2h, g2v, 128, 8), mc), ph, &d[0], &d[1]);
	dmq_stc2(io->sr + x, add32(ld32(mw + x), d[0]), add32(ld32(mw + x + N32), d[1]));
}

/* Dh(x) = |dh(x - 1) - dh(x + 1)| of the row of dh @h. */
V_INLINE vs32 dmq_grad_h(const int32_t *h, int x)
{
	return abs32(sub32(ld32(h + x - 1), ld32(h + x + 1)));
}

/*
 * The two greens of row y (pass 1's last step): @h dh of rows y - 1 .. y + 1,
 * @dd their rows of Dh (made here: all three if @first, else the last),
 * @ns the sums of CV of rows y - 4 .. y - 1 and y + 1 .. y + 4, @ens those
 * of dv of rows y - 3 .. y and y .. y + 3; @ch, @ch4, @h4 and @mw rows of
 * scratch.
 */
static void FN(dmq_green_row)(const struct plane16 *m, enum cisp_cfa cfa, const struct plane16 *gc,
			      const struct plane16 *g2, int y, const int32_t *const h[3], int32_t *const dd[3], int first,
			      const int32_t *const ns[2], const int32_t *const ens[2], int32_t *ch, int32_t *ch4,
			      int32_t *h4, int32_t *mw, const struct dmq_tables *tb)
{
	const int w = m->width, hgt = m->height;
	const int32_t *h1 = h[1], *h2 = h[2];
	int32_t *d0 = dd[0], *d1 = dd[1], *d2 = dd[2];
	const struct dmq_green_in rw = { ch4, h4, ns[0], ns[1], ens[0], ens[1] };
	const uint16_t *mr = plane_row(m, y);
	const struct dmq_green_io io = { mw, plane_row(m, mirror(y - 1, hgt)), plane_row(m, mirror(y + 1, hgt)),
					 plane_row(gc, y), plane_row(g2, y) };
	const int rbx = cisp_dmq_rb_column(cfa, y);

	dmq_widen_row(mw, mr, w); /* the row's samples at x - 1 and x + 1 */
	/*
	 * CH(x) = sum over a = -1..1 of Dh(x, y + a): Dh of each row of dh made
	 * once, by the first output row that reads it (rows y - 1 and y by the
	 * first row of a call, made by the rows before it otherwise)
	 */
	if (first) {
		DMQ_FOR(x, -5, w + 5) {
			st32(d0 + x, dmq_grad_h(h[0], x));
			st32(d1 + x, dmq_grad_h(h1, x));
		}
	}
	DMQ_FOR(x, -5, w + 5) {
		vs32 g = dmq_grad_h(h2, x);

		st32(d2 + x, g);
		st32(ch + x, add32(add32(ld32(d0 + x), ld32(d1 + x)), g));
	}
	/* CH4 over [-4, w + 2) (reads CH up to w + 4), H4 too (read over [-3, w), reads dh up to w + 5) */
	DMQ_FOR(x, -4, w + 2) {
		st32(ch4 + x, dmq_sum4(ch + x));
		st32(h4 + x, dmq_sum4(h1 + x));
	}
	/* Two vectors at a time, their colour sites gathered into one. */
	DMQ_FOR_STEP(x, 0, w, 2 * N32) {
		if ((x ^ rbx) & 1)
			dmq_green_step(&rw, &io, tb, x, 1);
		else
			dmq_green_step(&rw, &io, tb, x, 0);
	}
}

static void FN(dmq_green_rows)(const struct plane16 *m, enum cisp_cfa cfa, const struct plane16 *gc,
			       const struct plane16 *g2, int y0, int y1, void *scratch)
{
	const int w = m->width;
	const size_t ws = (size_t)w + 2 * CISP_DMQ_PAD;
	int32_t *dh = scratch;                    /* rows from y0 - 1 */
	int32_t *dv = dh + ws * DMQ_DH_RING;       /* rows from y0 - 5 */
	int32_t *cv = dv + ws * DMQ_DV_RING;       /* Dv, rows from y0 - 4 */
	int32_t *cvs = cv + ws * DMQ_DV_RING;      /* CV of rows r .. r + 3, from y0 - 4 */
	int32_t *dvs = cvs + ws * DMQ_SUM_RING;    /* dv of rows r .. r + 3, from y0 - 3 */
	int32_t *dg = dvs + ws * DMQ_SUM_RING;    /* Dh of rows from y0 - 1 */
	int32_t *ch = dg + ws * DMQ_DH_RING + CISP_DMQ_PAD, *ch4 = ch + ws, *h4 = ch4 + ws, *mw = h4 + ws;
	int32_t *gvs = mw + ws;                   /* Dv of 4 rows summed */
	struct dmq_tables tb;

	if (w < 2 * N32 + 4) {
		for (int y = y0; y < y1; y += CISP_DMQ_NARROW_ROWS)
			cisp_dmq_green_rows(m, cfa, gc, g2, y, dmq_narrow_end(y, y1), scratch);
		return;
	}
	dmq_tables_load(&tb);
#define DH(r) dmq_ring_row(dh, ws, DMQ_DH_RING, r, y0 - 1)
#define DV(r) dmq_ring_row(dv, ws, DMQ_DV_RING, r, y0 - 5)
#define CV(r) dmq_ring_row(cv, ws, DMQ_DV_RING, r, y0 - 4) /* rows of Dv */
#define CVS(r) dmq_ring_row(cvs, ws, DMQ_SUM_RING, r, y0 - 4)
#define DVS(r) dmq_ring_row(dvs, ws, DMQ_SUM_RING, r, y0 - 3)
#define DG(r) dmq_ring_row(dg, ws, DMQ_DH_RING, r, y0 - 1)
	/*
	 * Each step as soon as the rows it reads are there: dv of row t, Dv of
	 * t - 1 (reads dv t - 2, t), the sums of 4 rows of Dv from t - 4 (and
	 * from them of CV) and of dv from t - 3, dh of t - 4, then the green of
	 * row y = t - 5, which reads the CV sums of y - 4 (north) and y + 1
	 * (south), the dv sums of y - 3 and y, dh of y - 1 .. y + 1.
	 */
	for (int t = y0 - 5; t < y1 + 5; t++) {
		const int y = t - 5;
		/* the sums of 4 rows of dv and of Dv in the sweep that makes their last row */
		const int sums = t - 3 >= y0 - 3 && t - 3 < y1, grad = t - 1 >= y0 - 4;
		const int gsum = t - 4 >= y0 - 4 && t - 4 < y1 + 1;
		const struct dmq_dv_io io = {
			.dv = DV(t), .dvs = sums ? DVS(t - 3) : NULL,
			.dvr = { sums ? DV(t - 3) : NULL, sums ? DV(t - 2) : NULL, sums ? DV(t - 1) : NULL },
			.up = grad ? DV(t - 2) : NULL, .g = grad ? CV(t - 1) : NULL, .gs = gsum ? gvs : NULL,
			.gr = { gsum ? CV(t - 4) : NULL, gsum ? CV(t - 3) : NULL, gsum ? CV(t - 2) : NULL },
		};

		dmq_diff_v_row(m, cfa, t, &io);
		if (gsum)
			dmq_cv_sum_row(gvs, CVS(t - 4), w);
		if (t - 4 >= y0 - 1 && t - 4 < y1 + 1)
			dmq_diff_h_row(m, cfa, t - 4, DH(t - 4));
		if (y >= y0) {
			const int32_t *const h[3] = { DH(y - 1), DH(y), DH(y + 1) };
			int32_t *const dd[3] = { DG(y - 1), DG(y), DG(y + 1) };
			const int32_t *const ns[2] = { CVS(y - 4), CVS(y + 1) }, *const ens[2] = { DVS(y - 3), DVS(y) };

			FN(dmq_green_row)(m, cfa, gc, g2, y, h, dd, y == y0, ns, ens, ch, ch4, h4, mw, &tb);
		}
	}
#undef DH
#undef DV
#undef CV
#undef CVS
#undef DVS
#undef DG
}

/* Weight (0..256) of the colour-difference estimate from the sums of the leave-one-out errors, each plus 1. */
V_INLINE vs32 dmq_cd_weight1(vs32 s_cd1, vs32 s_own1)
{
	vs32 t = sll32(sub32(dmq_mlog2032(s_own1), dmq_mlog2032(s_cd1)), 2);

	return min32(max32(add32(t, set32(128)), set32(0)), set32(256));
}

/* The same from the sums themselves. */
V_INLINE vs32 dmq_cd_weight(vs32 s_cd, vs32 s_own)
{
	const vs32 one = set32(1);

	return dmq_cd_weight1(add32(s_cd, one), add32(s_own, one));
}

V_INLINE vs32 dmq_sum5_rows(const int32_t *r0, const int32_t *r1, const int32_t *r2, const int32_t *r3,
			    const int32_t *r4, int x)
{
	return add32(add32(add32(ld32(r0 + x), ld32(r1 + x)), add32(ld32(r2 + x), ld32(r3 + x))), ld32(r4 + x));
}

/*
 * Pass 2 reads the errors only on the sites of its row's colour (they are 0
 * on the green sites), so it keeps them packed: entry i of a row is the
 * colour site 2i + rbx. A vector of 2 N32 samples of 16 bits read as N32
 * lanes of 32 bits holds the sites of one parity in the low halves and of
 * the other in the high ones (dmq_half: one instruction, where gathering
 * two widened vectors takes three).
 */
#define dmq_half(v, ph) ((ph) ? odd32(v) : even32(v))

/* The colour site of a packed row whose vector starts at column x (ph = (x ^ rbx) & 1). */
V_INLINE int dmq_packed_index(int x, int ph, int rbx)
{
	return (x + ph - rbx) >> 1;
}

/* The errors of the colour sites among the 2 N32 columns from x (2 <= x <= w - 2 N32 - 2) into ecd[0..], eown[0..]. */
V_INLINE void dmq_loo_packed_step(const uint16_t *const mr[3], const uint16_t *const gr[3], int x, const int ph,
				  int32_t *ecd, int32_t *eown)
{
	vs32 mc = dmq_half(ld(mr[1] + x), ph), ml = dmq_half(ld(mr[1] + x - 2), ph);
	vs32 mrr = dmq_half(ld(mr[1] + x + 2), ph), mu = dmq_half(ld(mr[0] + x), ph), md = dmq_half(ld(mr[2] + x), ph);
	vs32 kn = add32(add32(sub32(dmq_half(ld(gr[1] + x - 2), ph), ml), sub32(dmq_half(ld(gr[1] + x + 2), ph), mrr)),
			add32(sub32(dmq_half(ld(gr[0] + x), ph), mu), sub32(dmq_half(ld(gr[2] + x), ph), md)));
	vs32 mn = add32(add32(ml, mrr), add32(mu, md));

	st32(ecd, abs32(sub32(sll32(sub32(dmq_half(ld(gr[1] + x), ph), mc), 2), kn)));
	st32(eown, abs32(sub32(sll32(mc, 2), mn)));
}

/*
 * The errors of row r (reflected) packed: vectors inside, the C version for
 * the sites within 2 columns of an end, then 3 entries each side filled by
 * reflection (the row's columns -k and w - 1 + k are its columns k and
 * w - 1 - k).
 */
static void FN(dmq_loo_packed_row)(const struct plane16 *m, const struct plane16 *g, enum cisp_cfa cfa, int r,
				   int32_t *ecd, int32_t *eown)
{
	const int w = m->width, hgt = m->height, rbx = cisp_dmq_rb_column(cfa, r), nc = (w - rbx + 1) >> 1;
	const uint16_t *const mr[3] = { plane_row(m, mirror(r - 2, hgt)), plane_row(m, mirror(r, hgt)),
					plane_row(m, mirror(r + 2, hgt)) };
	const uint16_t *const gr[3] = { plane_row(g, mirror(r - 2, hgt)), plane_row(g, mirror(r, hgt)),
					plane_row(g, mirror(r + 2, hgt)) };

	cisp_dmq_loo_site(mr, gr, w, rbx, ecd, eown);
	DMQ_FOR_STEP(x, 2, w - 2, 2 * N32) {
		if ((x ^ rbx) & 1)
			dmq_loo_packed_step(mr, gr, x, 1, ecd + dmq_packed_index(x, 1, rbx),
					    eown + dmq_packed_index(x, 1, rbx));
		else
			dmq_loo_packed_step(mr, gr, x, 0, ecd + dmq_packed_index(x, 0, rbx),
					    eown + dmq_packed_index(x, 0, rbx));
	}
	for (int x = w - 2 + ((w ^ rbx) & 1); x < w; x += 2)
		cisp_dmq_loo_site(mr, gr, w, x, ecd + (x >> 1), eown + (x >> 1));
	for (int k = 1; k <= 3; k++) {
		ecd[-k] = ecd[k - rbx];
		eown[-k] = eown[k - rbx];
		ecd[nc - 1 + k] = ecd[w - nc - rbx - k];
		eown[nc - 1 + k] = eown[w - nc - rbx - k];
	}
}

/* The rows the green of a row reads and writes (dmq_blend_step). */
struct dmq_blend_io {
	const int32_t *vcd, *vown;    /* the sums of 5 rows of each error, packed */
	const uint16_t *mr, *cr, *sr; /* Bayer, Gc and G2 */
	uint16_t *gr;                 /* green out */
};

/* The sum of p[-2] .. p[2]. */
V_INLINE vs32 dmq_sum5(const int32_t *p)
{
	return add32(add32(add32(ld32(p - 2), ld32(p - 1)), add32(ld32(p), ld32(p + 1))), ld32(p + 2));
}

/*
 * The green of the 2 N32 columns from x, whose colour sites have parity ph
 * (a constant in each copy) and are entries i.. of the packed rows: the
 * blend of Gc and G2 on those, the Bayer sample on the others. The blend of
 * two samples lies in 0..65535, so taking its low 16 bits is the clamp.
 */
V_INLINE void dmq_blend_step(const struct dmq_blend_io *io, int x, int i, const int ph)
{
	vs32 wc = dmq_cd_weight(dmq_sum5(io->vcd + i), dmq_sum5(io->vown + i));
	vs32 w3 = sra32(add32(mul32(mul32(wc, wc), wc), set32(32768)), 16);
	vs32 c = dmq_blend(w3, dmq_half(ld(io->cr + x), ph), dmq_half(ld(io->sr + x), ph), 128, 8);
	vs32 mv = as32(ld(io->mr + x)), low = set32(0xffff);

	st(io->gr + x, as16(ph ? dmq_sel(low, mv, sll32(c, 16)) : dmq_sel(low, c, mv)));
}

/*
 * Pass 2 keeps the rows of errors it reads at once (y - 6 .. y + 4) in
 * rings, and the sums of 5 rows of errors of each row parity in two rows
 * each: a row's sums are those of the row two above, rolled (less row
 * y - 6, plus row y + 4), into the other row of its pair, since the last
 * vector of a row overlaps the one before and must read them unchanged.
 * All of them packed, over the row's nc colour sites and 2 more each side.
 */
#define DMQ_E_RING2 11

static void FN(dmq_blend_rows)(const struct plane16 *m, const struct plane16 *gc, const struct plane16 *g2,
			       enum cisp_cfa cfa, const struct plane16 *g, int y0, int y1, void *scratch)
{
	const int w = m->width;
	const size_t ws = (size_t)w + 2 * CISP_DMQ_PAD;
	int32_t *ecd = scratch; /* rings of the rows y - 6 .. y + 4, from y0 - 4 */
	int32_t *eown = ecd + ws * DMQ_E_RING2;
	int32_t *sums = eown + ws * DMQ_E_RING2 + CISP_DMQ_PAD; /* [parity][pair][cd, own] */

	if (w < 2 * N32 + 4) {
		for (int y = y0; y < y1; y += CISP_DMQ_NARROW_ROWS)
			cisp_dmq_blend_rows(m, gc, g2, cfa, g, y, dmq_narrow_end(y, y1), scratch);
		return;
	}
#define ECD(r) dmq_ring_row(ecd, ws, DMQ_E_RING2, r, y0 - 4)
#define EOWN(r) dmq_ring_row(eown, ws, DMQ_E_RING2, r, y0 - 4)
#define SUMS(y, k) (sums + ws * (size_t)(4 * ((y - y0) & 1) + 2 * (((y - y0) >> 1) & 1) + (k)))
	/* rows of errors just before they are first read, while the rows they come from are in cache */
	for (int r = y0 - 4; r < y0 + 4; r++)
		FN(dmq_loo_packed_row)(m, gc, cfa, r, ECD(r), EOWN(r));
	for (int y = y0; y < y1; y++) {
		const int rbx = cisp_dmq_rb_column(cfa, y), nc = (w - rbx + 1) >> 1;
		int32_t *vcd = SUMS(y, 0), *vown = SUMS(y, 1);
		const struct dmq_blend_io io = { vcd, vown, plane_row(m, y), plane_row(gc, y), plane_row(g2, y),
						 plane_row(g, y) };

		FN(dmq_loo_packed_row)(m, gc, cfa, y + 4, ECD(y + 4), EOWN(y + 4));
		/* sums over the rows y - 4, y - 2, .., y + 4 (the sites of the row's colour), then over 5 sites */
		if (y - 2 >= y0) {
			const int32_t *pcd = SUMS(y - 2, 0), *pown = SUMS(y - 2, 1);
			const int32_t *ocd = ECD(y - 6), *oown = EOWN(y - 6), *ncd = ECD(y + 4), *nown = EOWN(y + 4);

			DMQ_FOR(i, -2, nc + 2) {
				st32(vcd + i, add32(sub32(ld32(pcd + i), ld32(ocd + i)), ld32(ncd + i)));
				st32(vown + i, add32(sub32(ld32(pown + i), ld32(oown + i)), ld32(nown + i)));
			}
		} else {
			DMQ_FOR(i, -2, nc + 2) {
				st32(vcd + i, dmq_sum5_rows(ECD(y - 4), ECD(y - 2), ECD(y), ECD(y + 2), ECD(y + 4), i));
				st32(vown + i, dmq_sum5_rows(EOWN(y - 4), EOWN(y - 2), EOWN(y), EOWN(y + 2), EOWN(y + 4), i));
			}
		}
		/* 2 N32 columns at a time, their colour sites N32 packed entries */
		DMQ_FOR_STEP(x, 0, w, 2 * N32) {
			if ((x ^ rbx) & 1)
				dmq_blend_step(&io, x, dmq_packed_index(x, 1, rbx), 1);
			else
				dmq_blend_step(&io, x, dmq_packed_index(x, 0, rbx), 0);
		}
	}
#undef ECD
#undef EOWN
#undef SUMS
}

/* The scratch rows the red and blue of the green sites of a row read (and a, b: write). */
struct dmq_gsite_in {
	const int32_t *g[5];    /* green of rows r - 2 .. r + 2 */
	int32_t *a;             /* KR of row r */
	const int32_t *au, *ad; /* KR of rows r - 1, r + 1 */
	int32_t *b;             /* KB of row r */
	const int32_t *bu, *bd; /* KB of rows r - 1, r + 1 */
};

/*
 * At columns o..: the green gradients gh, gv, and the sums of the horizontal
 * and vertical neighbours' KR (ha, va) and KB (hb, vb).
 */
V_INLINE void dmq_gsite_sums(const struct dmq_gsite_in *r, int o, vs32 *gh, vs32 *gv, vs32 *ha, vs32 *va, vs32 *hb,
			     vs32 *vb)
{
	const int32_t *g2 = r->g[2] + o;
	vs32 gc2 = sll32(ld32(g2), 1);

	*gh = add32(abs32(sub32(ld32(g2 - 1), ld32(g2 + 1))), abs32(sub32(gc2, add32(ld32(g2 - 2), ld32(g2 + 2)))));
	*gv = add32(abs32(sub32(ld32(r->g[1] + o), ld32(r->g[3] + o))),
		    abs32(sub32(gc2, add32(ld32(r->g[0] + o), ld32(r->g[4] + o)))));
	*ha = add32(ld32(r->a + o - 1), ld32(r->a + o + 1));
	*va = add32(ld32(r->au + o), ld32(r->ad + o));
	*hb = add32(ld32(r->b + o - 1), ld32(r->b + o + 1));
	*vb = add32(ld32(r->bu + o), ld32(r->bd + o));
}

/* The median of five (the reference's exchanges, less the values it does not use). */
V_INLINE vs32 dmq_med5(vs32 a, vs32 b, vs32 c, vs32 d, vs32 e)
{
	vs32 lo_ab = min32(a, b), hi_ab = max32(a, b), lo_de = min32(d, e), hi_de = max32(d, e);
	vs32 d2 = max32(lo_ab, lo_de), b2 = min32(hi_ab, hi_de);
	vs32 b3 = min32(b2, c), c3 = max32(b2, c);

	return max32(b3, min32(c3, d2));
}

/*
 * The strengths of false-colour suppression the output sweep is made for:
 * at 0 the colour difference k is used as it is, at 256 its median is
 * (k + (((median - k) 256 + 128) >> 8) is the median exactly), and any
 * other strength blends the two.
 */
enum dmq_fc_kind { DMQ_FC_NONE, DMQ_FC_FULL, DMQ_FC_BLEND };

/* green - (k + (((median - k) fc + 128) >> 8)), before the clamp of the store. */
V_INLINE vs32 dmq_suppressed(vs32 green, const int32_t *k, const int32_t *ku, const int32_t *kd, vs32 fc,
			     enum dmq_fc_kind kind)
{
	vs32 kc = ld32(k), md;

	if (kind == DMQ_FC_NONE)
		return sub32(green, kc);
	md = dmq_med5(kc, ld32(k - 1), ld32(k + 1), ld32(ku), ld32(kd));
	if (kind == DMQ_FC_FULL)
		return sub32(green, md);
	return sub32(green, add32(kc, sra32(add32(mul32(sub32(md, kc), fc), set32(128)), 8)));
}

/* The cubic (-1 9 9 -1) / 16 of samples at -3, -1, 1, 3, from the sums s of those at +-1 and t at +-3. */
V_INLINE vs32 dmq_cubic(vs32 s, vs32 t)
{
	return sra32(add32(sub32(add32(sll32(s, 3), s), t), set32(8)), 4);
}

/*
 * The errors of a row summed over 9 columns, from the packed row e of its
 * nc colour sites (3 more each side): 5 of them around a colour site, 4
 * around a green one, into the row o (column 2i + rbx: entry i's sum of 5,
 * the next column its sum of 4).
 */
V_INLINE void dmq_box9_packed(int32_t *o, const int32_t *e, int rbx, int nc)
{
	int32_t *p = o + rbx;

	DMQ_FOR(i, -rbx, nc) {
		vs32 s4 = add32(add32(ld32(e + i - 1), ld32(e + i)), add32(ld32(e + i + 1), ld32(e + i + 2))), lo, hi;

		dmq_zip(add32(s4, ld32(e + i - 2)), s4, &lo, &hi);
		st32(p + 2 * i, lo);
		st32(p + 2 * i + N32, hi);
	}
}

/*
 * The sums of rows of errors over the rows of y's parity within 4 (five:
 * v5) and of the other parity (four: v4), from the rows: e[i] is the row of
 * errors y - 5 + i. Each sum is kept plus 1, which the weight's logarithm
 * takes, and which rolling keeps (the rows after roll them:
 * dmq_colour_out_row).
 */
V_INLINE void dmq_first_sums(int32_t *v5, int32_t *v4, const int32_t *const e[10], int w)
{
	const vs32 one = set32(1);

	DMQ_FOR(x, 0, w) {
		vs32 s4 = add32(add32(ld32(e[2] + x), ld32(e[4] + x)), add32(ld32(e[6] + x), ld32(e[8] + x)));
		vs32 s5 = add32(add32(ld32(e[1] + x), ld32(e[3] + x)), add32(ld32(e[5] + x), ld32(e[7] + x)));

		st32(v4 + x, add32(s4, one));
		st32(v5 + x, add32(add32(s5, one), ld32(e[9] + x)));
	}
}

/*
 * Pass 3 keeps only the scratch rows its steps read at once, in rings (row
 * r in slot (r - first) mod rows), so that they stay in the L2 cache
 * whatever the chunk: 7 rows of KR, KB and green, 10 of errors, 7 of
 * widened Bayer, 5 and 3 of the sums of the Bayer rows 1 and 3 above and
 * below a row. Its steps run one row each, in turn, each as soon as the rows
 * it reads are made (dmq_colour_rows).
 */
#define DMQ_K_RING 7
#define DMQ_E_RING 10
#define DMQ_M_RING 7
#define DMQ_V1_RING 5
#define DMQ_V3_RING 3

/* The state of pass 3 on a chunk of rows: its input, output and rings. */
struct dmq_colour {
	const struct plane16 *m, *g;
	enum cisp_cfa cfa;
	vs32 fc;
	enum dmq_fc_kind fck; /* which of the output sweeps fc takes */
	const struct rgb16 *out;
	int w, y0;
	size_t ws;
	int32_t *kr, *kb, *gp; /* rings of green minus red, green minus blue, green */
	int32_t *ecd, *eown;   /* rings of errors, summed over 9 columns */
	int32_t *mp;           /* ring of Bayer rows, widened */
	int32_t *v1, *v3;      /* rings of MP(r - 1) + MP(r + 1) and MP(r - 3) + MP(r + 3) of output rows r */
	int32_t *tmp;          /* two rows */
	/*
	 * [row parity][cd, own] rows of sums of 5 and 4 rows of errors: a row's
	 * sums are rolled from those of the row before, in the other pair
	 */
	int32_t *v5[2][2], *v4[2][2];
	struct dmq_tables tb;
};

/* KR, KB, green and Bayer from frame row y0 - 5, errors from y0 - 5 (only y0 - 4 on are read). */
#define KR(r) dmq_ring_row(c->kr, c->ws, DMQ_K_RING, r, c->y0 - 5)
#define KB(r) dmq_ring_row(c->kb, c->ws, DMQ_K_RING, r, c->y0 - 5)
#define GP(r) dmq_ring_row(c->gp, c->ws, DMQ_K_RING, r, c->y0 - 5)
#define ECD(r) dmq_ring_row(c->ecd, c->ws, DMQ_E_RING, r, c->y0 - 5)
#define EOWN(r) dmq_ring_row(c->eown, c->ws, DMQ_E_RING, r, c->y0 - 5)
#define MP(r) dmq_ring_row(c->mp, c->ws, DMQ_M_RING, r, c->y0 - 5)
#define V1(r) dmq_ring_row(c->v1, c->ws, DMQ_V1_RING, r, c->y0)
#define V3(r) dmq_ring_row(c->v3, c->ws, DMQ_V3_RING, r, c->y0)

/* The rows a sweep of dmq_colour_known_row() reads and writes. */
struct dmq_known_io {
	const uint16_t *gr, *mr;   /* green and Bayer of row r */
	int32_t *k, *gq, *mq;      /* the colour difference, green and widened Bayer of row r */
	const int32_t *m2, *m6;    /* widened Bayer of rows r - 2 and r - 6 */
	int32_t *v1, *v3;          /* the sums of rows r - 1 and r - 3 */
};

/* The sweep of dmq_colour_known_row(), making the sums of rows when @sums1 and @sums3 say so. */
V_INLINE void dmq_known_sweep(const struct dmq_known_io *io, int w, int sums1, int sums3)
{
	DMQ_FOR(x, 0, w) {
		vs32 gv = dmq_ldw(io->gr + x), mv = dmq_ldw(io->mr + x);

		st32(io->gq + x, gv);
		st32(io->mq + x, mv);
		st32(io->k + x, sub32(gv, mv));
		if (sums1)
			st32(io->v1 + x, add32(ld32(io->m2 + x), mv));
		if (sums3)
			st32(io->v3 + x, add32(ld32(io->m6 + x), mv));
	}
}

/*
 * Row r's green, Bayer samples (widened), and the colour difference of its
 * red or blue sites' own colour (written on the green sites too: those are
 * computed by the step on green sites before anything reads them); in the
 * same sweep, of the output rows r - 1 and r - 3, the sums of the Bayer rows
 * 1 above and below (V1) and 3 above and below (V3), which the output's
 * cubics and diagonal filter read.
 */
static void FN(dmq_colour_known_row)(const struct dmq_colour *c, int r, int y1)
{
	const int w = c->w, hgt = c->m->height;
	const int sums1 = r - 1 >= c->y0 && r - 1 < y1, sums3 = r - 3 >= c->y0 && r - 3 < y1;
	const struct dmq_known_io io = {
		.gr = plane_row(c->g, mirror(r, hgt)), .mr = plane_row(c->m, mirror(r, hgt)),
		.k = cisp_dmq_red_row(c->cfa, r) ? KR(r) : KB(r), .gq = GP(r), .mq = MP(r),
		.m2 = sums1 ? MP(r - 2) : NULL, .m6 = sums3 ? MP(r - 6) : NULL,
		.v1 = sums1 ? V1(r - 1) : NULL, .v3 = sums3 ? V3(r - 3) : NULL,
	};

	if (sums1 && sums3)
		dmq_known_sweep(&io, w, 1, 1);
	else if (sums1)
		dmq_known_sweep(&io, w, 1, 0);
	else if (sums3)
		dmq_known_sweep(&io, w, 0, 1);
	else
		dmq_known_sweep(&io, w, 0, 0);
	cisp_dmq_pad_row(io.gq, w);
	cisp_dmq_pad_row(io.mq, w);
	cisp_dmq_pad_row(io.k, w);
	if (sums1)
		cisp_dmq_pad_row(io.v1, w);
	if (sums3)
		cisp_dmq_pad_row(io.v3, w);
}

/* The other colour on row r's red or blue sites: 7x7 filter of the diagonal sites' differences. */
static void FN(dmq_colour_diag_row)(const struct dmq_colour *c, int r)
{
	const int w = c->w, red = cisp_dmq_red_row(c->cfa, r);
	int32_t *o = red ? KB(r) : KR(r);
	const int32_t *u3 = red ? KB(r - 3) : KR(r - 3), *u1 = red ? KB(r - 1) : KR(r - 1);
	const int32_t *d1 = red ? KB(r + 1) : KR(r + 1), *d3 = red ? KB(r + 3) : KR(r + 3);

	DMQ_FOR(x, 0, w) {
		vs32 near = add32(add32(ld32(u1 + x - 1), ld32(u1 + x + 1)), add32(ld32(d1 + x - 1), ld32(d1 + x + 1)));
		vs32 far = add32(add32(add32(ld32(u3 + x - 1), ld32(u3 + x + 1)), add32(ld32(d3 + x - 1), ld32(d3 + x + 1))),
				 add32(add32(ld32(u1 + x - 3), ld32(u1 + x + 3)), add32(ld32(d1 + x - 3), ld32(d1 + x + 3))));
		vs32 s = sub32(add32(sll32(near, 3), sll32(near, 1)), far);

		st32(o + x, sra32(add32(s, set32(16)), 5));
	}
	cisp_dmq_pad_row(o, w);
}

/*
 * Red and blue on the green sites of the two vectors at column x (in place
 * in rw's rows of the row), gathered into one: ph, their parity, a
 * constant in each copy (dmq_green_step); gl, the green lanes.
 */
V_INLINE void dmq_gsite_step(const struct dmq_gsite_in *rw, const struct dmq_tables *tb, vs32 gl, int x, const int ph)
{
	const vs32 one = set32(1);
	int32_t *a = rw->a, *b = rw->b;
	vs32 gh0, gv0, ha0, va0, hb0, vb0, gh1, gv1, ha1, va1, hb1, vb1, wh, d[2];

	dmq_gsite_sums(rw, x, &gh0, &gv0, &ha0, &va0, &hb0, &vb0);
	dmq_gsite_sums(rw, x + N32, &gh1, &gv1, &ha1, &va1, &hb1, &vb1);
	wh = dmq_sig(tb, sub32(dmq_mlog2032(add32(dmq_pick(gv0, gv1, ph), one)),
			       dmq_mlog2032(add32(dmq_pick(gh0, gh1, ph), one))));
	/* the spread leaves 0 on the colour sites: the select keeps their values */
	dmq_spread(dmq_blend(wh, dmq_pick(ha0, ha1, ph), dmq_pick(va0, va1, ph), 256, 9), ph, &d[0], &d[1]);
	st32(a + x, dmq_sel(gl, d[0], ld32(a + x)));
	st32(a + x + N32, dmq_sel(gl, d[1], ld32(a + x + N32)));
	dmq_spread(dmq_blend(wh, dmq_pick(hb0, hb1, ph), dmq_pick(vb0, vb1, ph), 256, 9), ph, &d[0], &d[1]);
	st32(b + x, dmq_sel(gl, d[0], ld32(b + x)));
	st32(b + x + N32, dmq_sel(gl, d[1], ld32(b + x + N32)));
}

/* Red and blue on row r's green sites: the 4 neighbours, axes blended by the green gradients. */
static void FN(dmq_colour_gsite_row)(const struct dmq_colour *c, int r)
{
	const int w = c->w, rbx = cisp_dmq_rb_column(c->cfa, r);
	int32_t *a = KR(r), *b = KB(r);
	const struct dmq_gsite_in rw = { { GP(r - 2), GP(r - 1), GP(r), GP(r + 1), GP(r + 2) }, a, KR(r - 1), KR(r + 1),
					 b, KB(r - 1), KB(r + 1) };
	/* x stays even, so the green lanes are the same for every vector */
	const vs32 gl = dmq_green_lanes(0, rbx);

	/*
	 * Two vectors at a time, their green sites gathered into one. In place:
	 * the vectors read the row's colour sites, which they store back
	 * unchanged.
	 */
	DMQ_FOR_STEP(x, 0, w, 2 * N32) {
		if ((x ^ rbx) & 1)
			dmq_gsite_step(&rw, &c->tb, gl, x, 0);
		else
			dmq_gsite_step(&rw, &c->tb, gl, x, 1);
	}
	cisp_dmq_pad_row(a, w);
	cisp_dmq_pad_row(b, w);
}

/* The errors of row r, each summed over 9 columns: packed, then their sums put back on the row's columns. */
static void FN(dmq_colour_error_row)(const struct dmq_colour *c, int r)
{
	const int rbx = cisp_dmq_rb_column(c->cfa, r), nc = (c->w - rbx + 1) >> 1;
	int32_t *pcd = c->tmp, *pown = c->tmp + c->ws;

	FN(dmq_loo_packed_row)(c->m, c->g, c->cfa, r, pcd, pown);
	dmq_box9_packed(ECD(r), pcd, rbx, nc);
	dmq_box9_packed(EOWN(r), pown, rbx, nc);
}

/* The rows the output of a row y reads and writes (dmq_colour_out_row). */
struct dmq_out_in {
	const uint16_t *gr;               /* green */
	uint16_t *ro, *bo;                /* red and blue out */
	const int32_t *a, *au, *ad;       /* KR of rows y, y - 1, y + 1 */
	const int32_t *b, *bu, *bd;       /* KB of the same rows */
	const int32_t *m, *v1, *v3;       /* Bayer of row y, V1 and V3 of row y */
	const int32_t *in5[2], *in4[2];   /* [cd, own] sums of 5 and 4 rows: of y - 1, or of y (not rolled) */
	int32_t *out5[2], *out4[2];       /* [cd, own] sums of 5 and 4 rows of y (made here) */
	const int32_t *eold[2], *enew[2]; /* [cd, own] rows of errors y - 5 and y + 4 */
	int red;                          /* whether row y holds red sites */
	vs32 gl, fc;                      /* the green lanes; the suppression strength */
};

/*
 * Red and blue of the vector at column x of a row (@o): false-colour
 * suppression (median of 5 of the colour differences), then the blend with
 * the colour from its own samples, weighed by the leave-one-out errors of
 * the colour's sites within 4 rows and columns (the rows of errors summed
 * over 9 columns, then 5 or 4 of them). @roll: the sums of rows are those
 * of the row before, rolled here: v5(y) = v4(y - 1) + e(y + 4) and
 * v4(y) = v5(y - 1) - e(y - 5).
 */
V_INLINE void dmq_out_vec(const struct dmq_out_in *o, int x, int roll, enum dmq_fc_kind fck, vs32 *rgb)
{
	const int32_t *mr = o->m, *v1 = o->v1, *v3 = o->v3;
	vs32 s5[2], s4[2];

	for (int k = 0; k < 2; k++) {
		s5[k] = ld32(o->in5[k] + x);
		s4[k] = ld32(o->in4[k] + x);
		if (roll) {
			vs32 n5 = add32(s4[k], ld32(o->enew[k] + x));

			s4[k] = sub32(s5[k], ld32(o->eold[k] + x));
			s5[k] = n5;
			st32(o->out5[k] + x, s5[k]);
			st32(o->out4[k] + x, s4[k]);
		}
	}
	vs32 gc = dmq_ldw(o->gr + x), mv = ld32(mr + x);
	vs32 rv = dmq_suppressed(gc, o->a + x, o->au + x, o->ad + x, o->fc, fck);
	vs32 bv = dmq_suppressed(gc, o->b + x, o->bu + x, o->bd + x, o->fc, fck);
	/* the colours from their own samples: the row's colour along the row, the other one
	   along the column on green sites and from the diagonal ones on colour sites */
	vs32 row = dmq_cubic(add32(ld32(mr + x - 1), ld32(mr + x + 1)), add32(ld32(mr + x - 3), ld32(mr + x + 3)));
	vs32 col = dmq_cubic(ld32(v1 + x), ld32(v3 + x));
	vs32 near = add32(ld32(v1 + x - 1), ld32(v1 + x + 1));
	vs32 far = add32(add32(ld32(v3 + x - 1), ld32(v3 + x + 1)), add32(ld32(v1 + x - 3), ld32(v1 + x + 3)));
	vs32 diag = sra32(add32(sub32(add32(sll32(near, 3), sll32(near, 1)), far), set32(16)), 5);
	vs32 other = dmq_sel(o->gl, col, diag);
	/* the sums (plus 1) over the rows of y's parity (five) and the others (four): red sites on a red row */
	vs32 wr = o->red ? dmq_cd_weight1(s5[0], s5[1]) : dmq_cd_weight1(s4[0], s4[1]);
	vs32 wb = o->red ? dmq_cd_weight1(s4[0], s4[1]) : dmq_cd_weight1(s5[0], s5[1]);

	rv = dmq_blend(wr, rv, o->red ? row : other, 128, 8);
	bv = dmq_blend(wb, bv, o->red ? other : row, 128, 8);
	/* The colour of a red or blue site is its own sample. */
	if (o->red)
		rv = dmq_sel(o->gl, rv, mv);
	else
		bv = dmq_sel(o->gl, bv, mv);
	rgb[0] = rv;
	rgb[1] = bv;
}

/* Red and blue of the two vectors at column x, each colour's two stored with one pack (dmq_stc2). */
V_INLINE void dmq_out_step(const struct dmq_out_in *o, int x, int roll, enum dmq_fc_kind fck)
{
	vs32 a[2], b[2];

	dmq_out_vec(o, x, roll, fck, a);
	dmq_out_vec(o, x + N32, roll, fck, b);
	dmq_stc2(o->ro + x, a[0], b[0]);
	dmq_stc2(o->bo + x, a[1], b[1]);
}

/* The same for the vector at column x alone. */
V_INLINE void dmq_out_one(const struct dmq_out_in *o, int x, int roll, enum dmq_fc_kind fck)
{
	vs32 a[2];

	dmq_out_vec(o, x, roll, fck, a);
	dmq_stc(o->ro + x, a[0]);
	dmq_stc(o->bo + x, a[1]);
}

/* The vectors of a row, a sweep for each kind of suppression and of sums of rows, so that neither is tested a vector. */
V_INLINE void dmq_out_sweep(const struct dmq_out_in *o, int w, int roll, enum dmq_fc_kind fck)
{
	if (DMQ_OUT_PAIRS && roll) {
		DMQ_FOR_STEP(x, 0, w, 2 * N32)
			dmq_out_step(o, x, 1, fck);
	} else if (DMQ_OUT_PAIRS) {
		DMQ_FOR_STEP(x, 0, w, 2 * N32)
			dmq_out_step(o, x, 0, fck);
	} else if (roll) {
		DMQ_FOR(x, 0, w)
			dmq_out_one(o, x, 1, fck);
	} else {
		DMQ_FOR(x, 0, w)
			dmq_out_one(o, x, 0, fck);
	}
}

/*
 * Red and blue of row y (dmq_out_vec). Makes the row of errors it is the
 * first to read, while the rows they come from are in cache; the sums of
 * rows of errors of the first row from the rows, of the others rolled from
 * those of the row before (in the other pair of rows, so that the last
 * vector of a row, which overlaps the one before, reads them unchanged).
 */
static void FN(dmq_colour_out_row)(const struct dmq_colour *c, int y)
{
	const int w = c->w, cur = (y - c->y0) & 1, roll = y != c->y0;
	struct dmq_out_in o = {
		.gr = plane_row(c->g, y), .ro = plane_row(&c->out->c[0], y), .bo = plane_row(&c->out->c[2], y),
		.a = KR(y), .au = KR(y - 1), .ad = KR(y + 1), .b = KB(y), .bu = KB(y - 1), .bd = KB(y + 1),
		.m = MP(y), .v1 = V1(y), .v3 = V3(y),
		.red = cisp_dmq_red_row(c->cfa, y), .gl = dmq_green_lanes(0, cisp_dmq_rb_column(c->cfa, y)), /* x stays even */
		.fc = c->fc,
	};

	FN(dmq_colour_error_row)(c, y + 4);
	for (int k = 0; k < 2; k++) {
		int32_t *const ring = k ? c->eown : c->ecd;

		o.in5[k] = c->v5[roll ? cur ^ 1 : cur][k];
		o.in4[k] = c->v4[roll ? cur ^ 1 : cur][k];
		o.out5[k] = c->v5[cur][k];
		o.out4[k] = c->v4[cur][k];
		if (roll) {
			o.eold[k] = dmq_ring_row(ring, c->ws, DMQ_E_RING, y - 5, c->y0 - 5);
			o.enew[k] = dmq_ring_row(ring, c->ws, DMQ_E_RING, y + 4, c->y0 - 5);
		} else {
			const int32_t *e[10];

			for (int i = 1; i < 10; i++)
				e[i] = dmq_ring_row(ring, c->ws, DMQ_E_RING, y - 5 + i, c->y0 - 5);
			e[0] = e[1]; /* row y0 - 5 is not made, nor read */
			dmq_first_sums(o.out5[k], o.out4[k], e, w);
		}
	}
	if (c->fck == DMQ_FC_FULL)
		dmq_out_sweep(&o, w, roll, DMQ_FC_FULL);
	else if (c->fck == DMQ_FC_NONE)
		dmq_out_sweep(&o, w, roll, DMQ_FC_NONE);
	else
		dmq_out_sweep(&o, w, roll, DMQ_FC_BLEND);
}

static void FN(dmq_colour_rows)(const struct plane16 *m, const struct plane16 *g, enum cisp_cfa cfa,
				unsigned false_colour, const struct rgb16 *out, int y0, int y1, void *scratch)
{
	const int w = m->width;
	const size_t ws = (size_t)w + 2 * CISP_DMQ_PAD;
	struct dmq_colour cs = { .m = m, .g = g, .cfa = cfa, .out = out, .w = w, .y0 = y0, .ws = ws };
	struct dmq_colour *c = &cs;

	if (w < 2 * N32 + 4) {
		for (int y = y0; y < y1; y += CISP_DMQ_NARROW_ROWS)
			cisp_dmq_colour_rows(m, g, cfa, false_colour, out, y, dmq_narrow_end(y, y1), scratch);
		return;
	}
	cs.fc = set32(false_colour > 256 ? 256 : (int32_t)false_colour);
	cs.fck = false_colour >= 256 ? DMQ_FC_FULL : false_colour == 0 ? DMQ_FC_NONE : DMQ_FC_BLEND;
	cs.kr = scratch;
	cs.kb = cs.kr + ws * DMQ_K_RING;
	cs.gp = cs.kb + ws * DMQ_K_RING;
	cs.ecd = cs.gp + ws * DMQ_K_RING;
	cs.eown = cs.ecd + ws * DMQ_E_RING;
	cs.mp = cs.eown + ws * DMQ_E_RING;
	cs.v1 = cs.mp + ws * DMQ_M_RING;
	cs.v3 = cs.v1 + ws * DMQ_V1_RING;
	cs.tmp = cs.v3 + ws * DMQ_V3_RING + CISP_DMQ_PAD;
	for (int p = 0; p < 2; p++) {
		for (int k = 0; k < 2; k++) {
			cs.v5[p][k] = cs.tmp + ws * (size_t)(2 + 4 * p + k);
			cs.v4[p][k] = cs.tmp + ws * (size_t)(4 + 4 * p + k);
		}
	}
	dmq_tables_load(&cs.tb);
	for (int r = y0 - 4; r < y0 + 4; r++)
		FN(dmq_colour_error_row)(c, r);
	/*
	 * Each step as soon as the rows it reads are there: row t's knowns (and
	 * V1 of t - 1, V3 of t - 3: they read Bayer t - 6 .. t), the diagonal
	 * filter of t - 3 (reads t - 6 .. t), the green sites of t - 4 (reads
	 * green t - 6 .. t - 2), the output row t - 5 (reads t - 6 .. t - 4, its
	 * V1 and V3, and Bayer t - 5).
	 */
	for (int t = y0 - 5; t < y1 + 5; t++) {
		FN(dmq_colour_known_row)(c, t, y1);
		if (t - 3 >= y0 - 2)
			FN(dmq_colour_diag_row)(c, t - 3);
		if (t - 4 >= y0 - 1 && t - 4 < y1 + 1)
			FN(dmq_colour_gsite_row)(c, t - 4);
		if (t - 5 >= y0)
			FN(dmq_colour_out_row)(c, t - 5);
	}
}
#undef KR
#undef KB
#undef GP
#undef ECD
#undef EOWN
#undef MP
#undef V1
#undef V3

void CAT(cisp_dsp_init_dmq, SIMD_SUFFIX)(struct cisp_dsp *d)
{
	d->dmq_green_rows = FN(dmq_green_rows);
	d->dmq_blend_rows = FN(dmq_blend_rows);
	d->dmq_colour_rows = FN(dmq_colour_rows);
}
