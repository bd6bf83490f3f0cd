/* SPDX-License-Identifier: MIT */
/*
 * The quality Bayer denoise's two tile filters (bnr_patch.c and
 * bnr_transform.c are the reference, docs/stages/bnr.md the arithmetic) over
 * the vector layer, for the files in x86/ and arm/, which include it after
 * simd_kernels.h. Same tiles, same bytes; 32-bit lanes, one lane per column
 * (patch filter) or per block column (transform).
 *
 * The reference works in 64 bits in a few places; here each is either
 * restructured into 32-bit steps that give the same integers, or computed in
 * double where every value is an integer below 2^53 (each place says why).
 * A patch tile whose limit Q reaches 2^30 anywhere (very strong noise and
 * strength) is left to the C version whole.
 */
#include <stdint.h>
#include <string.h>

#include "isp/bnr_quality.h"
#include "core/plane.h"

/*
 * Per architecture: the unsigned minimum, the high 32 bits of the
 * unsigned 64-bit product (with b's odd lanes moved down, bq_odd32, once
 * for every a), whether any lane of a mask is set, 32-bit lanes
 * truncated from the float quotient a / b, the even 32-bit lanes of e with
 * the odd ones of o (bq_odd_blend); and N64 = N32 / 2 lanes of
 * double: loaded from int32 (bq_ldf), stored truncated to int32 (bq_sti),
 * an integer in [0, 2^32) stored as uint32 (bq_stu),
 * floor, a < b ? x : y (bq_ltsel), |v|, v >= 0 with the sign of s
 * (bq_copysign) and arithmetic.
 */
#ifdef VEC_BITS
#if VEC_BITS == 512
#define bq_any(m) (_mm512_test_epi32_mask(m, m) != 0)
#define bq_odd_blend(e, o) _mm512_mask_blend_epi32(0xaaaa, e, o)
#elif VEC_BITS == 256
#define bq_any(m) (_mm256_movemask_epi8(m) != 0)
#define bq_odd_blend(e, o) _mm256_blend_epi32(e, o, 0xaa)
#else
#define bq_any(m) (_mm_movemask_epi8(m) != 0)
#define bq_odd_blend(e, o) _mm_blend_epi16(e, o, 0xcc)
#endif
#if VEC_BITS == 512
typedef __m512d vf64;
#define bq_ldf(p) _mm512_cvtepi32_pd(_mm256_loadu_si256((const __m256i *)(const void *)(p)))
#define bq_sti(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), _mm512_cvttpd_epi32(v))
#define bq_stu(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), _mm512_cvttpd_epu32(v))
#define bq_floor(v) _mm512_roundscale_pd(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
#define bq_ltsel(a, b, x, y) _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, b, _CMP_LT_OQ), y, x)
#define bq_absd(v) _mm512_abs_pd(v)
#define bq_copysign(v, s)                                                                                   \
	_mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(v),                                          \
					    _mm512_and_si512(_mm512_castpd_si512(s), _mm512_set1_epi64(INT64_MIN))))
#elif VEC_BITS == 256
typedef __m256d vf64;
#define bq_ldf(p) _mm256_cvtepi32_pd(_mm_loadu_si128((const __m128i *)(const void *)(p)))
#define bq_sti(p, v) _mm_storeu_si128((__m128i *)(void *)(p), _mm256_cvttpd_epi32(v))
/* Less 2^31 as a signed value, its top bit flipped back. */
#define bq_stu(p, v)                                                                                      \
	_mm_storeu_si128((__m128i *)(void *)(p),                                                          \
			 _mm_xor_si128(_mm256_cvttpd_epi32(_mm256_sub_pd(v, _mm256_set1_pd(2147483648.0))), \
				       _mm_set1_epi32(INT32_MIN)))
#define bq_floor(v) _mm256_floor_pd(v)
#define bq_ltsel(a, b, x, y) _mm256_blendv_pd(y, x, _mm256_cmp_pd(a, b, _CMP_LT_OQ))
#else
typedef __m128d vf64;
#define bq_ldf(p) _mm_cvtepi32_pd(_mm_loadl_epi64((const __m128i *)(const void *)(p)))
#define bq_sti(p, v) _mm_storel_epi64((__m128i *)(void *)(p), _mm_cvttpd_epi32(v))
#define bq_stu(p, v)                                                                                \
	_mm_storel_epi64((__m128i *)(void *)(p),                                                    \
			 _mm_xor_si128(_mm_cvttpd_epi32(_mm_sub_pd(v, _mm_set1_pd(2147483648.0))), \
				       _mm_set1_epi32(INT32_MIN)))
#define bq_floor(v) _mm_floor_pd(v)
#define bq_ltsel(a, b, x, y) _mm_blendv_pd(y, x, _mm_cmplt_pd(a, b))
#endif
#if VEC_BITS != 512
#define bq_absd(v) X(andnot_pd)(bq_setd(-0.0), v)
#define bq_copysign(v, s) X(or_pd)(v, X(and_pd)(s, bq_setd(-0.0)))
#endif
#define bq_ldd(p) X(loadu_pd)(p)
#define bq_std(p, v) X(storeu_pd)(p, v)
#define bq_setd(v) X(set1_pd)(v)
#define addd(a, b) X(add_pd)(a, b)
#define subd(a, b) X(sub_pd)(a, b)
#define muld(a, b) X(mul_pd)(a, b)
#define divd(a, b) X(div_pd)(a, b)
#define mind(a, b) X(min_pd)(a, b)
#define sqrtd(a) X(sqrt_pd)(a)
#define maxd(a, b) X(max_pd)(a, b)
#define N64 (N32 / 2)
#define bq_minu(a, b) X(min_epu32)(a, b)
#if VEC_BITS == 512
/* A coefficient x kept where |x| > c1 (zeroed elsewhere), counted into nz: on masks, no vector of them. */
#define bq_shrink(x, c1, nz)                                                              \
	do {                                                                              \
		const __mmask16 k_ = _mm512_cmpgt_epi32_mask(_mm512_abs_epi32(x), c1);    \
		(nz) = _mm512_mask_sub_epi32(nz, k_, nz, _mm512_set1_epi32(-1));          \
		(x) = _mm512_maskz_mov_epi32(k_, x);                                      \
	} while (0)
/* The weight of a block that kept nz (1..16) coefficients: bq_wtab[nz & 15], one permute. */
#define bq_block_weight(nz) _mm512_permutexvar_epi32(nz, ld32(bq_wtab))
#elif VEC_BITS == 256
/* bq_wtab[nz & 15] from its halves: bit 3 of nz (moved to the sign) picks the half. */
#define bq_block_weight(nz)                                                                                     \
	_mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(_mm256_permutevar8x32_epi32(ld32(bq_wtab), nz)),     \
					     _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(ld32(bq_wtab + 8), nz)), \
					     _mm256_castsi256_ps(sll32(nz, 28))))
#endif
#define bq_divf(a, b) X(cvttps_epi32)(X(div_ps)(X(cvtepi32_ps)(a), X(cvtepi32_ps)(b)))
/*
 * A tap's weight (t t) >> 20 for 1 <= t <= 65536: the high halves of the
 * 16-bit products give (t t) >> 16 below 65536 and 0 at 65536 (t's high half
 * is 1 there, its square's high half 0), where t & 65536 adds 65536.
 */
#define bq_weight(t) srl32(add32(X(mulhi_epu16)(t, t), vand32(t, set32(65536))), 4)
#if VEC_BITS == 512
/* The taps kept as a mask register: tested and applied without a vector of them. */
typedef __mmask16 bq_keep;
#define bq_keep_gt(a, b) _mm512_cmpgt_epi32_mask(a, b)
#define bq_keep_any(k) ((k) != 0)
#define bq_keep_weight(k, t) \
	_mm512_maskz_srli_epi32(k, add32(_mm512_mulhi_epu16(t, t), vand32(t, set32(65536))), 4)
#endif


#if VEC_BITS == 512
/*
 * Port 0 bounds the taps at 512 bits on Intel (the multiplies and shifts
 * run there alone): the odd lanes moved down and the even products' high
 * halves moved up by shuffles (port 5), the latter merged into the odd products.
 */
#define bq_odd32(v) _mm512_shuffle_epi32(v, _MM_PERM_DDBB)
V_INLINE vs32 bq_mulhiu(vs32 a, vs32 b, vs32 b_odd)
{
	vs32 even = _mm512_mul_epu32(a, b);
	vs32 odd = _mm512_mul_epu32(bq_odd32(a), b_odd);

	return _mm512_mask_shuffle_epi32(odd, 0x5555, even, _MM_PERM_DDBB);
}
#else
#define bq_odd32(v) X(srli_epi64)(v, 32)
V_INLINE vs32 bq_mulhiu(vs32 a, vs32 b, vs32 b_odd)
{
	vs32 even = X(srli_epi64)(X(mul_epu32)(a, b), 32);
	vs32 odd = X(mul_epu32)(bq_odd32(a), b_odd);

	return bq_odd_blend(even, odd);
}
#endif
/* The low 16 bits of each 16-bit half's product: one short multiply (a 32-bit one is two uops on Intel). */
#define bq_mul16(a, b) X(mullo_epi16)(a, b)
/* Per 32-bit lane, the sum of its two signed 16-bit halves' products (modulo 2^32). */
#define bq_madd(a, b) X(madd_epi16)(a, b)
#else
#define N64 2
#define bq_u(v) vreinterpretq_u32_s32(v)
#define bq_s(v) vreinterpretq_s32_u32(v)
#define bq_minu(a, b) bq_s(vminq_u32(bq_u(a), bq_u(b)))
#define bq_odd_blend(e, o) vbslq_s32(vreinterpretq_u32_u64(vdupq_n_u64(0xffffffff00000000ull)), o, e)
#define bq_any(m) (vmaxvq_u32(bq_u(m)) != 0)
#define bq_divf(a, b) vcvtq_s32_f32(vdivq_f32(vcvtq_f32_s32(a), vcvtq_f32_s32(b)))
/* t t wraps to 0 at t = 65536, which gives 4096. */
#define bq_weight(t) add32(srl32(mul32(t, t), 20), sll32(srl32(t, 16), 12))
typedef float64x2_t vf64;
#define bq_ldf(p) vcvtq_f64_s64(vmovl_s32(vld1_s32((const int32_t *)(p))))
#define bq_sti(p, v) vst1_s32((int32_t *)(p), vmovn_s64(vcvtq_s64_f64(v)))
/* The 64-bit integer's low 32 bits. */
#define bq_stu(p, v) bq_sti(p, v)
#define bq_floor(v) vrndmq_f64(v)
#define bq_ltsel(a, b, x, y) vbslq_f64(vcltq_f64(a, b), x, y)
#define bq_absd(v) vabsq_f64(v)
#define bq_copysign(v, s) vbslq_f64(vdupq_n_u64(0x8000000000000000ull), s, v)
#define bq_ldd(p) vld1q_f64(p)
#define bq_std(p, v) vst1q_f64(p, v)
#define bq_setd(v) vdupq_n_f64(v)
#define addd(a, b) vaddq_f64(a, b)
#define subd(a, b) vsubq_f64(a, b)
#define muld(a, b) vmulq_f64(a, b)
#define divd(a, b) vdivq_f64(a, b)
#define mind(a, b) vminq_f64(a, b)
#define sqrtd(a) vsqrtq_f64(a)
#define maxd(a, b) vmaxq_f64(a, b)
#define bq_mul16(a, b) mul32(a, b)
V_INLINE vs32 bq_madd(vu16 a, vu16 b)
{
	const int16x8_t sa = vreinterpretq_s16_u16(a), sb = vreinterpretq_s16_u16(b);

	return vpaddq_s32(vmull_s16(vget_low_s16(sa), vget_low_s16(sb)), vmull_high_s16(sa, sb));
}

#define bq_odd32(v) (v)
V_INLINE vs32 bq_mulhiu(vs32 a, vs32 b, vs32 b_odd)
{
	uint64x2_t lo = vmull_u32(vget_low_u32(bq_u(a)), vget_low_u32(bq_u(b)));
	uint64x2_t hi = vmull_high_u32(bq_u(a), bq_u(b));

	(void)b_odd;
	return bq_s(vuzp2q_u32(vreinterpretq_u32_u64(lo), vreinterpretq_u32_u64(hi)));
}
#endif

#ifndef bq_shrink
#define bq_shrink(x, c1, nz)                                      \
	do {                                                      \
		const vs32 keep_ = gt32(abs32(x), c1);             \
		(x) = vand32(x, keep_);                            \
		(nz) = sub32(nz, keep_);                           \
	} while (0)
#endif
#ifndef bq_block_weight
/* Without a table lookup, (4096 + K / 2) / K in float: exact, the quotient is at least 1/16 from the next integer. */
#define bq_block_weight(nz) bq_divf(add32(set32(4096), srl32(nz, 1)), nz)
#endif

#ifndef bq_keep_gt
/* The taps kept as a vector of all-ones lanes. */
typedef vs32 bq_keep;
#define bq_keep_gt(a, b) gt32(a, b)
#define bq_keep_any(k) bq_any(k)
#define bq_keep_weight(k, t) vand32(k, bq_weight(t))
#endif

/* ---- patch filter ---- */

/*
 * Every other sample from p (p[0], p[2], ...) as 32-bit lanes: one parity of
 * the columns of a row (reads 2 N32 samples).
 */
#define bq_ld2(p) even32(ld(p))

#define BQ_GPAD 4
#define BQ_LPAD 5
/*
 * Column of x = 0 in the input copy and the guide (past the pads the loads
 * need, so the sums of lanes left of the tile read defined samples), and
 * their widths: whole vectors of guide columns, the input 16 more.
 */
#define BQ_LOFF 9
#define BQ_GOFF (BQ_LOFF - 1)
#define BQ_GW 112
#define BQ_LW (BQ_GW + 32)
/* Guide columns: whole vectors past the widest reads. */
#define BQ_GW16 (BQ_GW + 32)
/* Columns of one parity. */
#define BQ_PW (CISP_BNR_TILE_W / 2)
/* Rows of the largest tile. */
#define BQ_TH CISP_BNR_TILE_H_MAX
/* 3x3 sums of squared guide differences: lane of i = 0, lanes, rows (tile rows 0 .. th + 2). */
#define BQ_HOFF 2
#define BQ_HW 56
#define BQ_HH (BQ_TH + 3)
/* Squared distances are capped at this (see below); tiles with a larger Q go to C. */
#define BQ_CAP ((1u << 30) - 1)

/*
 * The 16 tap offsets as 8 pairs d, -d (indices into cisp_bnr_taps), two
 * pairs of each set of sites in turn: the first of each with dy < 0, or
 * dy = 0 and dx < 0. The squared guide differences of -d at x are those of
 * d at x - d, so one set of sums, on the rows and columns both need, serves
 * both taps.
 */
#define BQ_PAIRS (CISP_BNR_TAPS / 2)
static const uint8_t bq_pairs[BQ_PAIRS][2] = {
	{ 0, 3 }, { 1, 2 }, { 4, 7 }, { 5, 6 }, { 8, 11 }, { 9, 10 }, { 12, 15 }, { 13, 14 },
};

/*
 * Lane offset of parity @p's sums for the tap -d of a pair whose first
 * has @dx: x - dx = 2 (i + o) + p' with p' = (p - dx) & 1.
 */
static inline int bq_pair_lane(int p, int dx)
{
	return (p - dx - ((p - dx) & 1)) / 2;
}

/*
 * One row of a pair's squared guide differences D, each capped, summed over
 * 3 columns at both parities: @c and @t point at the guide's column 2 i - 1
 * of the centre's row and of the tap's (16-bit, every column), @o elements on.
 * D is the square of |G_t - G_c| taken at most 32768 (a signed 16-bit -32768),
 * summed by pairs of columns in 32-bit lanes with the 16-bit products
 * (bq_madd; two 2^30 give 2^31 as unsigned): each square is D below 2^30
 * (32767^2 < C) and 2^30 > C where D is larger, so each capped 3-sum (below
 * 3 2^30) is that of the capped D. Port 0 bounds this at 512 bits on Intel:
 * one short multiply for two columns where a 32-bit one took two uops a column.
 */
V_INLINE void bq_pair_row(const uint16_t *c, const uint16_t *t, int o, vs32 cap, vs32 *h0, vs32 *h1)
{
	const vu16 lim = set16(0x8000), lo = as16(set32(0xffff)), hi = as16(set32((int32_t)0xffff0000));
	/* Columns 2 i - 1 and 2 i (a), 2 i + 1 and 2 i + 2 (b) of lane i. */
	const vu16 a = min16(absd16(ld(t + o), ld(c + o)), lim), b = min16(absd16(ld(t + o + 2), ld(c + o + 2)), lim);

	/* x = 2 i: D(2i - 1) + D(2i) + D(2i + 1); x = 2 i + 1: D(2i) + D(2i + 1) + D(2i + 2). */
	*h0 = bq_minu(add32(bq_madd(a, a), bq_madd(b, vand(b, lo))), cap);
	*h1 = bq_minu(add32(bq_madd(a, vand(a, hi)), bq_madd(b, b)), cap);
}

/* Tile row @y's 3x3 sums, capped, from the 3-sums of rows y - 1 (a), y (b) and y + 1 (c), per parity. */
V_INLINE void bq_pair_sum3(int32_t *o0, int32_t *o1, int y, vs32 a0, vs32 a1, vs32 b0, vs32 b1, vs32 c0, vs32 c1,
			   vs32 cap)
{
	st32(o0 + y * BQ_HW, bq_minu(add32(add32(a0, b0), c0), cap));
	st32(o1 + y * BQ_HW, bq_minu(add32(add32(a1, b1), c1), cap));
}

/*
 * The sums of pair (dx, dy) (below) for lanes [@i0, @i1) into @hs, per
 * parity; @dx and @dy are constants at each call (BQ_PAIR_CASES), so that
 * every guide read is at a constant offset from the lane's.
 */
V_INLINE void bq_pair_sums(int dx, int dy, int i0, int i1, int th, uint16_t (*g)[BQ_GW16], int32_t (*hs)[BQ_HH][BQ_HW],
			   vs32 cap)
{
	for (int i = i0; i < i1; i += N32) {
		const uint16_t *c = &g[BQ_GPAD - 1][BQ_GOFF + 2 * i - 1], *t = &g[BQ_GPAD - 1 + dy][BQ_GOFF + 2 * i - 1 + dx];
		int32_t *o0 = &hs[0][0][BQ_HOFF + i], *o1 = &hs[1][0][BQ_HOFF + i];
		const int nj = th + 2 - dy;
		/* The 3-sums of three rows in turn, unrolled so none is copied from one register to another. */
		vs32 a0, a1, b0, b1, c0, c1;
		int j;

		bq_pair_row(c, t, 0, cap, &a0, &a1);
		bq_pair_row(c, t, BQ_GW16, cap, &b0, &b1);
		for (j = 2; j + 3 <= nj; j += 3) {
			bq_pair_row(c, t, j * BQ_GW16, cap, &c0, &c1);
			bq_pair_sum3(o0, o1, j - 2, a0, a1, b0, b1, c0, c1, cap);
			bq_pair_row(c, t, (j + 1) * BQ_GW16, cap, &a0, &a1);
			bq_pair_sum3(o0, o1, j - 1, b0, b1, c0, c1, a0, a1, cap);
			bq_pair_row(c, t, (j + 2) * BQ_GW16, cap, &b0, &b1);
			bq_pair_sum3(o0, o1, j, c0, c1, a0, a1, b0, b1, cap);
		}
		if (j < nj) {
			bq_pair_row(c, t, j * BQ_GW16, cap, &c0, &c1);
			bq_pair_sum3(o0, o1, j - 2, a0, a1, b0, b1, c0, c1, cap);
			if (j + 1 < nj) {
				bq_pair_row(c, t, (j + 1) * BQ_GW16, cap, &a0, &a1);
				bq_pair_sum3(o0, o1, j - 1, b0, b1, c0, c1, a0, a1, cap);
			}
		}
	}
}

/*
 * The taps d and -d of pairs (dxa, dya) and (dxb, dyb) added at parity @p
 * (below), rows @first to @th by @step, @n lanes; the offsets and @p are
 * constants at each call (BQ_PASS_CASES), so that every read is at a
 * constant offset from the position's.
 */
V_INLINE void bq_taps(int p, int dxa, int dya, int dxb, int dyb, int first, int step, int n, int th,
		      const uint16_t (*l)[BQ_LW], int32_t (*hs)[2][BQ_HH][BQ_HW], const int32_t (*qv)[BQ_PW],
		      const int32_t (*ih)[BQ_PW], const int32_t (*il)[BQ_PW], int32_t (*sw)[BQ_PW], int32_t (*s0)[BQ_PW],
		      int32_t (*s1)[BQ_PW], vs32 cap)
{
	/* Per tap: its 3x3 sums at tile row 0, lane 0; its sample's offset from the centre in l. */
	const int32_t *hb[4];
	int lo[4];

	for (int t = 0; t < 4; t++) {
		const int m = t >> 1, neg = t & 1, dx = m ? dxb : dxa, dy = m ? dyb : dya;
		const int hp = neg ? (p - dx) & 1 : p;

		hb[t] = &hs[m][hp][neg ? -dy : 0][BQ_HOFF + (neg ? bq_pair_lane(p, dx) : 0)];
		lo[t] = neg ? -dy * BQ_LW - dx : dy * BQ_LW + dx;
	}
	for (int j = first; j < th; j += step) {
		const uint16_t *lc = &l[j + BQ_LPAD][BQ_LOFF + p];

		for (int i = 0; i < n; i += N32) {
			const vs32 v0 = bq_ld2(lc + 2 * i), qr = ld32(&qv[j][i]);
			const vs32 ihv = ld32(&ih[j][i]), ilv = ld32(&il[j][i]), ilo = bq_odd32(ilv);
			vs32 ws = ld32(&sw[j][i]), wv[2] = { ld32(&s0[j][i]), ld32(&s1[j][i]) };

			for (int t = 0; t < 4; t++) {
				vs32 v = bq_ld2(lc + lo[t] + 2 * i), dv = sub32(v, v0);
				vs32 e = add32(ld32(hb[t] + j * BQ_HW + i), bq_minu(mul32(dv, dv), cap));
				const bq_keep keep = bq_keep_gt(qr, e);
				vs32 u, tt, wt;

				if (!bq_keep_any(keep))
					continue;
				/*
				 * (E inv) >> 32 with inv = ih 2^32 + il: E ih + (E il) >> 32,
				 * exactly; E ih is at most the result, below 2^16. Kept lanes
				 * only count (E < Q): ih = floor(2^16 / Q) is 0 where Q > 2^16,
				 * else E < 2^16 and E ih < 2^16 (E = 0 where ih = 2^16), so
				 * the product of the 16-bit halves is E ih (bq_mul16).
				 */
				u = add32(bq_mul16(e, ihv), bq_mulhiu(e, ilv, ilo));
				tt = sub32(set32(65536), u);
				wt = bq_keep_weight(keep, tt);
				/*
				 * The weighted sum as two unsigned 32-bit sums:
				 * taps d into one (with the centre), -d into the other; at
				 * most 7 terms below 2^28 each.
				 */
				ws = add32(ws, wt);
				wv[t & 1] = add32(wv[t & 1], mul32(wt, v));
			}
			st32(&sw[j][i], ws);
			st32(&s0[j][i], wv[0]);
			st32(&s1[j][i], wv[1]);
		}
	}
}

/*
 * The first tap d of each pair (cisp_bnr_taps[bq_pairs[r][0]]) as
 * constants for the calls above: @f(r, dx, dy) per pair, @g(r, dx, dy, dx',
 * dy') per pass of pairs r and r + 1.
 */
#define BQ_PAIR_CASES(f) \
	f(0, 0, -2) f(1, -2, 0) f(2, -2, -2) f(3, 2, -2) f(4, -1, -1) f(5, 1, -1) f(6, -3, -1) f(7, 1, -3)
#define BQ_PASS_CASES(g) g(0, 0, -2, -2, 0) g(2, -2, -2, 2, -2) g(4, -1, -1, 1, -1) g(6, -3, -1, 1, -3)

/* The sums of 3 samples of a parity down each column at @c (the row's column p) into @v3, from lane -1. */
V_INLINE void bq_sums3(const uint16_t *c, int32_t *v3)
{
	for (int i = -1; i < BQ_PW + 1; i += N32)
		st32(&v3[i + 1], add32(add32(bq_ld2(c + 2 * i - 2 * BQ_LW), bq_ld2(c + 2 * i)), bq_ld2(c + 2 * i + 2 * BQ_LW)));
}

/*
 * The tile is worked in its two column parities p (x = 2 i + p; x0 is even,
 * so a parity is one CFA site per row), each a vector of N32 columns read
 * with bq_ld2: the taps of green sites only, or of red and blue sites
 * only, are then computed on the rows of a parity that take them. Tiles of
 * 60 columns (30 lanes a parity) keep a pair's sums, shifted by at most 2
 * lanes, within 32 lanes: whole vectors of 4, 8 or 16.
 */
static void FN(bnr_patch_tile)(const struct cisp_bnr_quality *q, const struct plane16 *in, int x0, int y0, int tw,
			       int th, uint16_t *dst, int stride)
{
	const int lw = tw + 2 * BQ_LPAD, lh = th + 2 * BQ_LPAD, np[2] = { (tw + 1) / 2, tw / 2 };
	uint16_t l[BQ_TH + 2 * BQ_LPAD][BQ_LW];
	/* The guide at column x of its width BQ_GW is g[row][x]. */
	uint16_t g[BQ_TH + 2 * BQ_GPAD][BQ_GW16];
	/*
	 * Per parity and position: Q, floor(2^48 / Q) as high and low 32 bits,
	 * the sum of weights and two unsigned sums of weighted samples (below).
	 */
	int32_t qv[2][BQ_TH][BQ_PW], ih[2][BQ_TH][BQ_PW], il[2][BQ_TH][BQ_PW];
	int32_t sw[2][BQ_TH][BQ_PW], sv[2][2][BQ_TH][BQ_PW];
	/* Two pairs' squared guide differences D summed over 3x3, per parity and tile row y. */
	int32_t hs[2][2][BQ_HH][BQ_HW];
	/* Per pair: the first and past-the-last lane of its sums. */
	int ilo[BQ_PAIRS], ihi[BQ_PAIRS], gw = 0, hmin = BQ_HW;
	/* Per column of each parity: 1 in the tile, 0 past it; the means of 9; the output row; the largest Q. */
	double in_tile[2][BQ_PW], qmaxv[N64];
	int32_t t9[BQ_PW], out[2][BQ_PW];
	/*
	 * A row's sums of 3 same-colour samples down each column, from lane -1,
	 * per parity: made a parity ahead, so that their unaligned loads do not
	 * wait on the stores.
	 */
	int32_t v3[2][BQ_PW + 2 * 16];
	const vs32 cap = set32((int32_t)BQ_CAP);
	/* S^2 / 2^16: the products below are exact, so scaling a factor by a power of 2 scales them alike. */
	const vf64 s2 = bq_setd(q->s2 / 65536.0);
	vf64 qmax = bq_setd(0.0);

	cisp_bnr_load_region(in, x0 - BQ_LPAD, y0 - BQ_LPAD, lw, lh, &l[0][BQ_LOFF - BQ_LPAD], BQ_LW);
	for (int j = 0; j < lh; j++) {
		memset(&l[j][0], 0, (BQ_LOFF - BQ_LPAD) * sizeof(l[0][0]));
		memset(&l[j][BQ_LOFF - BQ_LPAD + lw], 0, (size_t)(BQ_LW - lw - BQ_LOFF + BQ_LPAD) * sizeof(l[0][0]));
	}
	for (int i = 0; i < BQ_PW; i++) {
		in_tile[0][i] = i < np[0];
		in_tile[1][i] = i < np[1];
	}
	/*
	 * Q first: a tile that needs the reference's 64-bit distances goes
	 * there. m = (sum9 + 4) / 9 in 32 bits, then in double, every step
	 * exact: a m < 2^48; var < 2^33 and var S^2 < 2^53; Q < 2^43. Past the
	 * tile Q = 0 (keeps no tap).
	 */
	bq_sums3(&l[BQ_LPAD][BQ_LOFF], v3[0]);
	for (int j = 0; j < th; j++)
		for (int p = 0; p < 2; p++) {
			const int site = ((y0 + j) & 1) * 2 + p, ly = j + BQ_LPAD;
			const vf64 pa = bq_setd(q->a[site] / 65536.0), pb = bq_setd(q->b[site]);

			/* The next: this row's other parity, or the next row's first. */
			if (p == 0)
				bq_sums3(&l[ly][BQ_LOFF + 1], v3[1]);
			else if (j + 1 < th)
				bq_sums3(&l[ly + 1][BQ_LOFF], v3[0]);
			for (int i = 0; i < BQ_PW; i += N32) {
				const vs32 s9 = add32(add32(ld32(&v3[p][i]), ld32(&v3[p][i + 1])), ld32(&v3[p][i + 2]));
				const vs32 v0 = bq_ld2(&l[ly][2 * i + p + BQ_LOFF]);

				/* (sum9 + 4) / 9 as the high half of a product: 9 * 477218589 = 2^32 + 5, exact below 2^29. */
				st32(&t9[i], bq_mulhiu(add32(s9, set32(4)), set32(477218589), bq_odd32(set32(477218589))));
				st32(&sw[p][j][i], set32(4096));
				/* Both sums start at 2^31, so that each reads as a signed 32-bit value less 2^31 (below). */
				st32(&sv[0][p][j][i], add32(sll32(v0, 12), set32(INT32_MIN)));
				st32(&sv[1][p][j][i], set32(INT32_MIN));
			}
			for (int i = 0; i < BQ_PW; i += N64) {
				const vf64 two48 = bq_setd(281474976710656.0);
				/* (a m + 2^15) / 2^16 = a m / 2^16 + 1 / 2, exactly (below 2^49 before the scaling). */
				vf64 var = addd(bq_floor(addd(muld(pa, bq_ldf(&t9[i])), bq_setd(0.5))), pb);
				vf64 qq = muld(muld(bq_floor(muld(var, s2)), bq_setd(36.0)), bq_ldd(&in_tile[p][i]));
				vf64 inv, hi;

				qmax = maxd(qmax, qq);
				/*
				 * floor(2^48 / Q) is the floor of the double quotient: 2^48 / Q
				 * is an integer or at least 1 / Q from one, and the quotient is
				 * rounded by at most 2^-53 2^48 / Q < 1 / Q. Where Q = 0 no tap
				 * is kept and any value serves: that of Q = 1. Split into its
				 * high and low 32 bits.
				 */
				inv = bq_floor(divd(two48, maxd(qq, bq_setd(1.0))));
				hi = bq_floor(muld(inv, bq_setd(1.0 / 4294967296.0)));
				bq_sti(&qv[p][j][i], mind(qq, bq_setd(BQ_CAP + 1.0)));
				bq_sti(&ih[p][j][i], hi);
				bq_stu(&il[p][j][i], subd(inv, muld(hi, bq_setd(4294967296.0))));
			}
		}
	bq_std(qmaxv, qmax);
	for (int i = 0; i < N64; i++)
		if (qmaxv[i] > BQ_CAP) {
			cisp_bnr_patch_tile(q, in, x0, y0, tw, th, dst, stride);
			return;
		}
	/*
	 * Each pair's lanes: those of d's sums at both parities, [0, np), and
	 * of -d's, [o, o + np) at parity p', in whole vectors; the guide's
	 * columns the widest reads (up to 3 past 2 ihi) need.
	 */
	for (int r = 0; r < BQ_PAIRS; r++) {
		const int dx = cisp_bnr_taps[bq_pairs[r][0]][0], o0 = bq_pair_lane(0, dx), o1 = bq_pair_lane(1, dx);
		const int lo = o0 < o1 ? (o0 < 0 ? o0 : 0) : (o1 < 0 ? o1 : 0);
		int hi = np[0];

		hi = o0 + np[0] > hi ? o0 + np[0] : hi;
		hi = o1 + np[1] > hi ? o1 + np[1] : hi;
		ilo[r] = lo;
		ihi[r] = lo + (hi - lo + N32 - 1) / N32 * N32;
		if (BQ_GOFF + 3 + 2 * ihi[r] > gw)
			gw = BQ_GOFF + 3 + 2 * ihi[r];
		if (ihi[r] < hmin)
			hmin = ihi[r];
	}
	/*
	 * The whole vectors read reach up to 2 lanes past the shortest pair's
	 * (outputs past the tile, Q = 0 there): defined once, never computed.
	 */
	for (int m = 0; m < 2; m++)
		for (int p = 0; p < 2; p++)
			for (int j = 0; j < BQ_HH; j++)
				for (int i = hmin; i < (np[0] + N32 - 1) / N32 * N32 + 2; i++)
					hs[m][p][j][BQ_HOFF + i] = 0;
	/*
	 * Guide, the reference's, on whole vectors of columns of each parity:
	 * the [1 2 1] sums down the input's columns 2 k .. 2 k + 3 (A, B, C, D),
	 * then A + 2 B + C at column 2 k and B + 2 C + D at 2 k + 1.
	 */
	for (int j = 0; j < th + 2 * BQ_GPAD; j++) {
		const uint16_t *a = l[j], *m = l[j + 1], *b = l[j + 2];

		for (int k = 0; 2 * k < gw; k += N32) {
			const vu16 ma = ld(a + 2 * k), mm = ld(m + 2 * k), mb = ld(b + 2 * k);
			const vu16 na = ld(a + 2 * k + 2), nm = ld(m + 2 * k + 2), nb = ld(b + 2 * k + 2);
			const vs32 va = add32(add32(even32(ma), even32(mb)), sll32(even32(mm), 1));
			const vs32 vb = add32(add32(odd32(ma), odd32(mb)), sll32(odd32(mm), 1));
			const vs32 vc = add32(add32(even32(na), even32(nb)), sll32(even32(nm), 1));
			const vs32 vd = add32(add32(odd32(na), odd32(nb)), sll32(odd32(nm), 1));

			/* Both below 2^16 (weights summing to 16): interleaved back into columns. */
			st(&g[j][2 * k], join32(srl32(add32(add32(add32(va, vc), sll32(vb, 1)), set32(8)), 4),
						srl32(add32(add32(add32(vb, vd), sll32(vc, 1)), set32(8)), 4)));
		}
	}
	/* Two pairs at a time (both used at the same sites): four taps added in one pass. */
	for (int r0 = 0; r0 < BQ_PAIRS; r0 += 2) {
		const int k0 = bq_pairs[r0][0];

		for (int m = 0; m < 2; m++) {
			const int r = r0 + m;

			/*
			 * Squared guide differences and their sums, capped at C = 2^30 - 1
			 * at each step so every sum fits 32 bits (the largest, 3 C, is
			 * unsigned; the distance, 2 C at most, signed). With Q <= C the
			 * capped distance E' decides as E does and equals it where it
			 * counts: where E < Q no term reaches C, so E' = E; where E >= Q
			 * either nothing was capped (E' = E) or a cap made E' >= C >= Q.
			 * D(x) for the lanes of the pair at rows -1 .. th - dy, their 3x3
			 * sums at rows 0 .. th - dy - 1 (-d reads row y - dy), G(x) at the
			 * guide's column x + BQ_GOFF.
			 */
#define BQ_PAIR_SUMS(rr, dx, dy) \
	case rr: \
		bq_pair_sums(dx, dy, ilo[r], ihi[r], th, g, hs[m], cap); \
		break;
			switch (r) {
				BQ_PAIR_CASES(BQ_PAIR_SUMS)
			}
#undef BQ_PAIR_SUMS
		}
		/*
		 * Taps d and -d of both pairs: at x, parity p, -d reads d's 3x3 sum
		 * at x - d, parity (p - dx) & 1, lane i + bq_pair_lane(p, dx), row
		 * y - dy. Only the rows of a parity whose site uses the taps, as a
		 * first row (past the tile: none) and a step.
		 */
		for (int p = 0; p < 2; p++) {
			const int u0 = cisp_bnr_tap_used(k0, q->green[(y0 & 1) * 2 + p]);
			const int u1 = cisp_bnr_tap_used(k0, q->green[((y0 + 1) & 1) * 2 + p]);
			const int first = u0 ? 0 : u1 ? 1 : BQ_TH, step = u0 && u1 ? 1 : 2, n = np[p];

#define BQ_TAPS_AT(pp, dxa, dya, dxb, dyb) \
	bq_taps(pp, dxa, dya, dxb, dyb, first, step, n, th, l, hs, qv[pp], ih[pp], il[pp], sw[pp], sv[0][pp], sv[1][pp], cap)
#define BQ_TAPS(rr, dxa, dya, dxb, dyb) \
	case rr: \
		if (p) \
			BQ_TAPS_AT(1, dxa, dya, dxb, dyb); \
		else \
			BQ_TAPS_AT(0, dxa, dya, dxb, dyb); \
		break;
			switch (r0) {
				BQ_PASS_CASES(BQ_TAPS)
			}
#undef BQ_TAPS
#undef BQ_TAPS_AT
		}
	}
	/*
	 * (swv + sw / 2) / sw in double: the numerator (below 2^34) is exact and
	 * the quotient (below 2^17) within 2^-36 of the true one, which is an
	 * integer or at least 1 / sw >= 2^-17 from one: the same floor.
	 */
	for (int j = 0; j < th; j++) {
		uint16_t *d = dst + (size_t)j * stride;
		int i = 0;

		for (int p = 0; p < 2; p++) {
			/* Each unsigned sum s, started at 2^31, reads as the signed s - 2^31: their total is s0 + s1 - 2^32. */
			for (int k = 0; k < np[p]; k += N64) {
				vf64 ws = bq_ldf(&sw[p][j][k]), s0 = bq_ldf(&sv[0][p][j][k]), s1 = bq_ldf(&sv[1][p][j][k]);
				vf64 num = addd(addd(s0, s1), addd(bq_floor(muld(ws, bq_setd(0.5))), bq_setd(4294967296.0)));

				/* Truncated to int32: the floor of the positive quotient. */
				bq_sti(&out[p][k], divd(num, ws));
			}
		}
		/* Both parities interleaved into whole vectors of the row, the rest one sample at a time. */
		for (; i + N32 <= np[1]; i += N32)
			st(d + 2 * i, join32(ld32(&out[0][i]), ld32(&out[1][i])));
		for (; 2 * i < tw; i++) {
			d[2 * i] = (uint16_t)out[0][i];
			if (2 * i + 1 < tw)
				d[2 * i + 1] = (uint16_t)out[1][i];
		}
	}
}

/* ---- transform shrinkage ---- */

/*
 * Not at 512 bits: that level keeps the 256-bit tile, which ran the
 * denoise's rows in less time on a Zen 4 core (docs/fastpath.md, "The
 * quality Bayer denoise: taller tiles").
 */
#if !defined(VEC_BITS) || VEC_BITS != 512

#define BQ_CH (BQ_TH / 2 + 1)
#define BQ_CW (CISP_BNR_TILE_W / 2)
#define BQ_MH (BQ_CH + 6)
/*
 * Block columns computed (whole vectors past the tile's 35 at most), and the
 * cell columns they read (a vector past the 48 the cells' mix computes at most).
 */
#define BQ_BW 48
#define BQ_MW (BQ_BW + 16)

/*
 * ceil(sqrt(thr)) of the thresholds of blocks whose M_0 sum to @sum, N64 of
 * them: |U| >= it exactly where U^2 >= thr. In double, every step exact:
 * A m < 2^50; var < 2^33 and var S^2 < 2^53; thr = 368 X + (164 X) / 256
 * (94372 = 368 * 256 + 164) with each part below 2^46. The floor f of the
 * rounded root is floor(sqrt(thr)) or, when the root lies just below an
 * integer, that integer; the answer is f + 1 where f^2 < thr, else f.
 */
V_INLINE vf64 bq_cut(vf64 m, vf64 sa, vf64 sbq, vf64 s2)
{
	vf64 var = addd(bq_floor(muld(addd(muld(sa, m), bq_setd(131072.0)), bq_setd(1.0 / 262144))), sbq);
	vf64 x = bq_floor(muld(muld(var, s2), bq_setd(1.0 / 65536)));
	vf64 thr = addd(muld(x, bq_setd(368.0)), bq_floor(muld(muld(x, bq_setd(164.0)), bq_setd(1.0 / 256))));
	vf64 f = bq_floor(sqrtd(thr));

	return bq_ltsel(muld(f, f), thr, addd(f, bq_setd(1.0)), f);
}

/*
 * The block weights (4096 + K / 2) / K (bnr_transform.c's block_weight) at
 * K & 15 for K = 1..16, which bq_block_weight() looks up on AVX2 and AVX-512.
 */
static const int32_t bq_wtab[16] __attribute__((aligned(64))) = {
	256, 4096, 2048, 1365, 1024, 819, 683, 585, 512, 455, 410, 372, 341, 315, 293, 273,
};

/* The unscaled 4-point Walsh-Hadamard transform of four vectors, in place (wht4() of bnr_transform.c). */
V_INLINE void bq_wht4(vs32 *a, vs32 *b, vs32 *c, vs32 *d)
{
	vs32 s0 = add32(*a, *b), s1 = sub32(*a, *b), s2 = add32(*c, *d), s3 = sub32(*c, *d);

	*a = add32(s0, s2);
	*b = add32(s1, s3);
	*c = sub32(s0, s2);
	*d = sub32(s1, s3);
}

/*
 * Row @r of a tile's cells: the sums of the four column offsets' lo, hi
 * and ws (below), with @s a constant at each call, so that every row and
 * column read is a constant offset from the cell's.
 */
V_INLINE void bq_cell_row(int s, int r, int ncx, int32_t (*alo)[BQ_MH][BQ_BW], int32_t (*ahi)[BQ_MH][BQ_BW],
			  int32_t (*aws)[BQ_BW], int32_t *tlo, int32_t *thi, int32_t *tws)
{
	for (int c = 0; c < ncx; c += N32) {
		vs32 lo = set32(0), hi = set32(0), ws = set32(0);

		for (int i = 0; i < 4; i++) {
			/* Parity of the block columns of the even lanes. */
			const int e = (3 - i + s) & 1, re = r + 3 - e, ro = r + 2 + e, bc = c + 3 - i;

			lo = add32(lo, bq_odd_blend(ld32(&alo[i][re][bc]), ld32(&alo[i][ro][bc])));
			hi = add32(hi, bq_odd_blend(ld32(&ahi[i][re][bc]), ld32(&ahi[i][ro][bc])));
			ws = add32(ws, bq_odd_blend(ld32(&aws[re][bc]), ld32(&aws[ro][bc])));
		}
		/* acc - 4096 hi is the sum of W (R & 4095), 8 terms below 2^24: lo modulo 2^32 gives it. */
		st32(&tlo[c], sub32(lo, sll32(hi, 12)));
		st32(&thi[c], hi);
		st32(&tws[c], ws);
	}
}

/*
 * The blocks of the quincunx (bnr_transform.c), one lane per block column:
 * block row br holds every other column, so the vectors run on sheared rows
 * of blocks: in sheared row R (even), lane c holds the block of row R + p,
 * p = (c + s) & 1, s = (cy0 + cx0) & 1, whose rows are blended from the
 * rows of h of both parities. Each block's rows are transformed once per
 * row of cells (shared by the blocks that hold the row), the columns per
 * block. The weighted sum acc of a cell (up to 2^41) is kept as two 32-bit
 * sums, of W R modulo 2^32 and of W (R >> 12) (8 terms below 2^26), one
 * pair per column offset i of the estimate in its block so each
 * vector adds at its own column, on the sheared rows (row R + j of lane c
 * is cell row R + j + p); acc = 4096 hi + lo exactly, lo the sum of
 * W (R & 4095), which the first sum less 4096 hi gives modulo 2^32. The sums of weights
 * are kept the same way.
 */
static void FN(bnr_transform_tile)(const struct cisp_bnr_quality *q, const struct plane16 *in, int x0, int y0,
				   int tw, int th, uint16_t *dst, int stride)
{
	const int cy0 = y0 >> 1, cx0 = x0 >> 1, s = (cy0 + cx0) & 1;
	const int ncy = ((y0 + th - 1) >> 1) - cy0 + 1, ncx = ((x0 + tw - 1) >> 1) - cx0 + 1;
	const int nbr = ncy + 3, nbc = ncx + 3;
	/* Cells: one row more than the blocks read, for the odd lanes of the last sheared row. */
	uint16_t raw[2 * BQ_MH + 2][2 * BQ_MW];
	int32_t m[4][BQ_MH + 1][BQ_MW], h[4][BQ_MH + 1][BQ_BW];
	int32_t cut[(BQ_CH + 4) / 2][BQ_BW];
	int32_t alo[4][BQ_MH][BQ_BW], ahi[4][BQ_MH][BQ_BW], aws[BQ_MH][BQ_BW];
	/* One row of cells' lo, hi and ws; every plane's q; the output per position in the cell. */
	int32_t tlo[BQ_CW], thi[BQ_CW], tws[BQ_CW], pix[4][BQ_CH][BQ_CW];
	double qd[4][BQ_CH][BQ_CW];
	uint64_t sa = 0, sb = 0;

	for (int i = 0; i < 4; i++) {
		sa += q->a[i];
		sb += q->b[i];
	}
	cisp_bnr_load_region(in, 2 * (cx0 - 3), 2 * (cy0 - 3), 2 * (ncx + 6), 2 * (ncy + 6), &raw[0][0], 2 * BQ_MW);
	/* Zeros past the cells, as far as the mix's whole vectors read: fewer than 2 N32 samples. */
	for (int r = 0; r < 2 * (ncy + 6); r++)
		st(&raw[r][2 * (ncx + 6)], zero());
	/*
	 * The cell row past the blocks' (the last sheared row's odd lanes, whose
	 * blocks do not exist) is zeros, not read: a small frame's reflection
	 * reaches only one frame beyond either edge.
	 */
	memset(&raw[2 * (ncy + 6)][0], 0, 2 * sizeof(raw[0]));
	/*
	 * The cells' mix, whole vectors of cells (those past the tile's read
	 * zeros, so are zeros), then a vector of zeros past them, as far as the
	 * transforms along the rows read (fewer than N32 + 3 past the blocks).
	 */
	for (int r = 0; r < ncy + 7; r++) {
		int c;

		for (c = 0; c < ncx + 6; c += N32) {
			vs32 p0 = bq_ld2(&raw[2 * r][2 * c]), p1 = bq_ld2(&raw[2 * r][2 * c + 1]);
			vs32 p2 = bq_ld2(&raw[2 * r + 1][2 * c]), p3 = bq_ld2(&raw[2 * r + 1][2 * c + 1]);

			bq_wht4(&p0, &p1, &p2, &p3);
			st32(&m[0][r][c], p0);
			st32(&m[1][r][c], p1);
			st32(&m[2][r][c], p2);
			st32(&m[3][r][c], p3);
		}
		for (int k = 0; k < 4; k++)
			st32(&m[k][r][c], set32(0));
	}
	/* The sums' lanes past the blocks' whole vectors, which the cells' sums read: zeros. */
	for (int row = 2; row < ncy + 3; row++)
		for (int c = (nbc + N32 - 1) / N32 * N32; c < BQ_BW; c += N32) {
			for (int i = 0; i < 4; i++) {
				st32(&alo[i][row][c], set32(0));
				st32(&ahi[i][row][c], set32(0));
			}
			st32(&aws[row][c], set32(0));
		}
	for (int k = 0; k < 4; k++) {
		/* The 4-point transform of the 4 cells from each column, per row of cells. */
		for (int r = 0; r < ncy + 7; r++)
			for (int c = 0; c < nbc; c += N32) {
				vs32 a = ld32(&m[k][r][c]), b = ld32(&m[k][r][c + 1]);
				vs32 e = ld32(&m[k][r][c + 2]), f = ld32(&m[k][r][c + 3]);

				bq_wht4(&a, &b, &e, &f);
				st32(&h[0][r][c], a);
				st32(&h[1][r][c], b);
				st32(&h[2][r][c], e);
				st32(&h[3][r][c], f);
			}
		if (k == 0) {
			/* Thresholds from the blocks' sums of M_0: the sums of their rows' h[0]. */
			const vf64 dsa = bq_setd((double)sa), dsb = bq_setd((double)((sb + 2) >> 2)), ds2 = bq_setd(q->s2);

			for (int br = 0; br < nbr; br += 2) {
				/* The block's mean level (sum + 32) >> 6 first (sums are below 2^22). */
				for (int c = 0; c < nbc; c += N32) {
					vs32 sum = set32(32);

					for (int j = 0; j < 4; j++)
						sum = add32(sum, bq_odd_blend(ld32(&h[0][br + j + s][c]), ld32(&h[0][br + j + 1 - s][c])));
					st32(&cut[br / 2][c], srl32(sum, 6));
				}
				for (int c = 0; c < nbc; c += N64)
					bq_sti(&cut[br / 2][c], bq_cut(bq_ldf(&cut[br / 2][c]), dsa, dsb, ds2));
				for (int c = nbc; c < BQ_BW; c++)
					cut[br / 2][c] = 0;
			}
		}
		/*
		 * Sheared rows 2 .. ncy + 2 hold the tile's cell rows 3 .. ncy + 2 at
		 * one parity or the other. Row R's first estimates come from block
		 * row j = 2 + (R & 1) of sheared row R - j (its others from j - 2,
		 * two sheared rows on): they are stored, the others added.
		 */
		for (int br = 0; br < nbr; br += 2)
			for (int bc = 0; bc < nbc; bc += N32) {
				const vs32 c1 = sub32(ld32(&cut[br / 2][bc]), set32(1));
				vs32 x[4][4], nz = set32(1), wt;

				for (int j = 0; j < 4; j++)
					for (int n = 0; n < 4; n++)
						x[j][n] = bq_odd_blend(ld32(&h[n][br + j + s][bc]), ld32(&h[n][br + j + 1 - s][bc]));
				for (int n = 0; n < 4; n++)
					bq_wht4(&x[0][n], &x[1][n], &x[2][n], &x[3][n]);
				/* Without branches, as the reference; U(0, 0) stays. */
				for (int j = 0; j < 4; j++)
					for (int n = 0; n < 4; n++)
						if (j || n)
							bq_shrink(x[j][n], c1, nz);
				wt = bq_block_weight(nz);
				for (int n = 0; n < 4; n++)
					bq_wht4(&x[0][n], &x[1][n], &x[2][n], &x[3][n]);
				for (int j = 0; j < 4; j++) {
					const int row = br + j;

					/* Only the sheared rows that hold cells of the tile are read. */
					if (row < 2 || row >= ncy + 3)
						continue;
					bq_wht4(&x[j][0], &x[j][1], &x[j][2], &x[j][3]);
					for (int i = 0; i < 4; i++) {
						int32_t *lo = &alo[i][row][bc], *hi = &ahi[i][row][bc];
						const vs32 l1 = mul32(wt, x[j][i]), h1 = mul32(wt, sra32(x[j][i], 12));

						st32(lo, j >= 2 ? l1 : add32(ld32(lo), l1));
						st32(hi, j >= 2 ? h1 : add32(ld32(hi), h1));
					}
					st32(&aws[row][bc], j >= 2 ? wt : add32(ld32(&aws[row][bc]), wt));
				}
			}
		/*
		 * Per cell (r, c) of the tile: block column c + 3 - i holds the cell
		 * at offset i, on sheared row r + 3 - p of its parity p; acc = 4096
		 * hi + lo and ws summed over the four, then q = 64 acc / ws rounded
		 * half away from 0 in double: |acc| 64 + ws / 2 (below 2^48) is an
		 * exact integer, and the floor of the rounded quotient is the true
		 * one: acc / ws is a mean of estimates below 2^26 (16 coefficients
		 * below 2^22), so the quotient is below 2^33, within 2^-21 of the
		 * true one, which is an integer or at least 1 / ws >= 2^-15 below
		 * the next.
		 */
		for (int r = 0; r < ncy; r++) {
			if (s)
				bq_cell_row(1, r, ncx, alo, ahi, aws, tlo, thi, tws);
			else
				bq_cell_row(0, r, ncx, alo, ahi, aws, tlo, thi, tws);
			for (int c = 0; c < ncx; c += N64) {
				vf64 n = addd(muld(bq_ldf(&thi[c]), bq_setd(4096.0)), bq_ldf(&tlo[c]));
				vf64 ws = bq_ldf(&tws[c]), a = addd(muld(bq_absd(n), bq_setd(64.0)), bq_floor(muld(ws, bq_setd(0.5))));

				/* n is never -0: the sign of n on the rounded quotient. */
				bq_std(&qd[k][r][c], bq_copysign(bq_floor(divd(a, ws)), n));
			}
		}
	}
	/* Back to the mosaic: sum and differences of the planes per position p of the cell, in double (exact below 2^35). */
	for (int r = 0; r < ncy; r++)
		for (int c = 0; c < ncx; c += N64) {
			const vf64 q0 = bq_ldd(&qd[0][r][c]), q1 = bq_ldd(&qd[1][r][c]);
			const vf64 q2 = bq_ldd(&qd[2][r][c]), q3 = bq_ldd(&qd[3][r][c]);
			const vf64 s0 = addd(q0, q1), s1 = subd(q0, q1), s2 = addd(q2, q3), s3 = subd(q2, q3);
			const vf64 v[4] = { addd(s0, s2), addd(s1, s3), subd(s0, s2), subd(s1, s3) };

			/*
			 * min(65535, max(0, floor((v + 2048) / 4096))): 0 for every v <= 0, as
			 * the reference; the floor is the truncation to int32 of the clamped value.
			 */
			for (int p = 0; p < 4; p++)
				bq_sti(&pix[p][r][c], mind(bq_setd(65535.0), maxd(bq_setd(0.0), muld(addd(v[p], bq_setd(2048.0)),
											       bq_setd(1.0 / 4096)))));
		}
	for (int r = 0; r < ncy; r++)
		for (int p = 0; p < 4; p += 2) {
			/*
			 * Positions p and p + 1 of the cell are samples (2 (cx0 + c),
			 * 2 (cy0 + r) + (p >> 1)) and the next (x0 is even): interleaved
			 * into whole vectors of the row, the rest one sample at a time.
			 */
			const int j = 2 * (cy0 + r) + (p >> 1) - y0;
			uint16_t *d;
			int c = 0;

			if (j < 0 || j >= th)
				continue;
			d = dst + (size_t)j * stride;
			for (; c + N32 <= tw / 2; c += N32)
				st(d + 2 * c, join32(ld32(&pix[p][r][c]), ld32(&pix[p + 1][r][c])));
			for (; 2 * c < tw; c++) {
				d[2 * c] = (uint16_t)pix[p][r][c];
				if (2 * c + 1 < tw)
					d[2 * c + 1] = (uint16_t)pix[p + 1][r][c];
			}
		}
}
#endif

void CAT(cisp_dsp_init_bnrq, SIMD_SUFFIX)(struct cisp_dsp *d)
{
	d->bnr_patch_tile = FN(bnr_patch_tile);
#if !defined(VEC_BITS) || VEC_BITS != 512
	d->bnr_transform_tile = FN(bnr_transform_tile);
#endif
}
