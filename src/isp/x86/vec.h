/* SPDX-License-Identifier: MIT */
/*
 * The vector layer of src/isp/simd_kernels.h for x86-64: 16-bit and 32-bit
 * integer lanes at the width the including file selects with VEC_BITS
 * (128: SSE4.1, 256: AVX2, 512: AVX-512BW). Built with that target's flags.
 */
#ifndef CISP_ISP_X86_VEC_H
#define CISP_ISP_X86_VEC_H

#include <immintrin.h>
#include <stdint.h>

#define V_INLINE static inline __attribute__((always_inline))

#if VEC_BITS == 128
typedef __m128i vu16;
typedef __m128i vs32;
#define X(op) _mm_##op
#define ld(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define st(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
#define set16(v) _mm_set1_epi16((short)(v))
#define ld8(p) _mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)(const void *)(p)))
#define set32(v) _mm_set1_epi32(v)
#define set32x2(a, b) _mm_set_epi32(b, a, b, a)
#define zero() _mm_setzero_si128()
#define vand(a, b) _mm_and_si128(a, b)
#define vor(a, b) _mm_or_si128(a, b)
#define vxor(a, b) _mm_xor_si128(a, b)
#define vandn(m, a) _mm_andnot_si128(m, a)
#elif VEC_BITS == 256
typedef __m256i vu16;
typedef __m256i vs32;
#define X(op) _mm256_##op
#define ld(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define st(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define set16(v) _mm256_set1_epi16((short)(v))
#define ld8(p) _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(p)))
#define set32(v) _mm256_set1_epi32(v)
#define set32x2(a, b) _mm256_set_epi32(b, a, b, a, b, a, b, a)
#define zero() _mm256_setzero_si256()
#define vand(a, b) _mm256_and_si256(a, b)
#define vor(a, b) _mm256_or_si256(a, b)
#define vxor(a, b) _mm256_xor_si256(a, b)
#define vandn(m, a) _mm256_andnot_si256(m, a)
#elif VEC_BITS == 512
typedef __m512i vu16;
typedef __m512i vs32;
#define X(op) _mm512_##op
#define ld(p) _mm512_loadu_si512((const void *)(p))
#define st(p, v) _mm512_storeu_si512((void *)(p), (v))
#define set16(v) _mm512_set1_epi16((short)(v))
#define ld8(p) _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(p)))
#define set32(v) _mm512_set1_epi32(v)
#define set32x2(a, b) _mm512_set_epi32(b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a)
#define zero() _mm512_setzero_si512()
#define vand(a, b) _mm512_and_si512(a, b)
#define vor(a, b) _mm512_or_si512(a, b)
#define vxor(a, b) _mm512_xor_si512(a, b)
#define vandn(m, a) _mm512_andnot_si512(m, a)
#else
#error "VEC_BITS must be 128, 256 or 512"
#endif

/* ld8(p): N16 bytes at p, zero-extended to 16-bit lanes. */
#define N16 (VEC_BITS / 16)
#define N32 (VEC_BITS / 32)

/* 16-bit lanes (unsigned unless named otherwise). */
#define add16(a, b) X(add_epi16)(a, b)
#define sub16(a, b) X(sub_epi16)(a, b)
#define adds16(a, b) X(adds_epu16)(a, b)
#define subs16(a, b) X(subs_epu16)(a, b)
#define min16(a, b) X(min_epu16)(a, b)
#define max16(a, b) X(max_epu16)(a, b)
#define avg16(a, b) X(avg_epu16)(a, b)
#define mulhi16(a, b) X(mulhi_epu16)(a, b)
#define mullo16(a, b) X(mullo_epi16)(a, b)
#define srl16(a, n) X(srli_epi16)(a, n)
#define sll16(a, n) X(slli_epi16)(a, n)

/* 32-bit lanes (signed unless named otherwise). */
#define vand32(a, b) vand(a, b)
#define vor32(a, b) vor(a, b)
#define vxor32(a, b) vxor(a, b)
#define ld32(p) ld(p)
#define st32(p, v) st(p, v)
#define add32(a, b) X(add_epi32)(a, b)
#define sub32(a, b) X(sub_epi32)(a, b)
#define mul32(a, b) X(mullo_epi32)(a, b)
#define min32(a, b) X(min_epi32)(a, b)
#define max32(a, b) X(max_epi32)(a, b)
#define abs32(a) X(abs_epi32)(a)
#define sra32(a, n) X(srai_epi32)(a, n)
#define srl32(a, n) X(srli_epi32)(a, n)
#define sll32(a, n) X(slli_epi32)(a, n)
#define as32(v) (v)
#define as16(v) (v)

#if VEC_BITS == 512
/* Masks as vectors of all-ones lanes, to keep one code path for every width. */
#define le16(a, b) _mm512_movm_epi16(_mm512_cmple_epu16_mask(a, b))
#define sel16(m, a, b) _mm512_mask_blend_epi16(_mm512_movepi16_mask(m), b, a)
#define gt32(a, b) _mm512_maskz_mov_epi32(_mm512_cmpgt_epi32_mask(a, b), _mm512_set1_epi32(-1))
/* acc + 1 in the lanes where a > b (signed): one masked add. */
#define count_gt32(acc, a, b) _mm512_mask_add_epi32(acc, _mm512_cmpgt_epi32_mask(a, b), acc, _mm512_set1_epi32(1))
/* x in the lanes where a > b (signed), y elsewhere: one masked blend. */
#define sel_gt32(a, b, x, y) _mm512_mask_blend_epi32(_mm512_cmpgt_epi32_mask(a, b), y, x)
/*
 * |a - b| of unsigned lanes: a - b, and b - a in the lanes where a < b. At 512 bits Intel runs
 * saturating subtracts on port 0 only; this takes a port-5 compare and two subtracts either port
 * takes, instead of two saturating subtracts and an or.
 */
#define absd16(a, b) _mm512_mask_sub_epi16(_mm512_sub_epi16(a, b), _mm512_cmplt_epu16_mask(a, b), b, a)
#else
/* a <= b (unsigned) when a - b saturates to 0. */
#define le16(a, b) X(cmpeq_epi16)(X(subs_epu16)(a, b), zero())
#define sel16(m, a, b) X(blendv_epi8)(b, a, m)
#define gt32(a, b) X(cmpgt_epi32)(a, b)
#define count_gt32(acc, a, b) X(sub_epi32)(acc, gt32(a, b))
#define sel_gt32(a, b, x, y) X(blendv_epi8)(y, x, gt32(a, b))
/* |a - b| of unsigned lanes: one of the two saturating differences is 0. */
#define absd16(a, b) vor(subs16(a, b), subs16(b, a))
#endif

#if VEC_BITS == 512
/*
 * x where a <= b (unsigned), else y: at 512 bits straight from the compare's mask, where le16()
 * and sel16() would move it to a vector and back (a port-0 and a port-5 uop on Intel).
 */
#define sel_le16(a, b, x, y) _mm512_mask_blend_epi16(_mm512_cmple_epu16_mask(a, b), y, x)
/*
 * Lane masks of 32-bit lanes: a mask register at 512 bits, where a compare can take the mask so
 * far and an add can be masked (no mask-to-vector moves, no ands); a vector elsewhere. all32m():
 * every lane; and_gt32(m, a, b): m and a > b (signed); add32_where(acc, m, v): acc + v where m.
 */
typedef __mmask16 vm32;
#define all32m() ((__mmask16)0xffff)
#define and_gt32(m, a, b) _mm512_mask_cmpgt_epi32_mask(m, a, b)
#define add32_where(acc, m, v) _mm512_mask_add_epi32(acc, m, acc, v)
#else
typedef vs32 vm32;
#define all32m() set32(-1)
#define and_gt32(m, a, b) vand32(m, gt32(a, b))
#define add32_where(acc, m, v) add32(acc, vand32(v, m))
#define sel_le16(a, b, x, y) sel16(le16(a, b), x, y)
#endif

/* Widen the low and high 16-bit halves of each 128-bit lane; packus32() undoes it, saturating to 0..65535. */
#define wlo(v) X(unpacklo_epi16)(v, zero())
#define whi(v) X(unpackhi_epi16)(v, zero())
#define packus32(lo, hi) X(packus_epi32)(lo, hi)

/* The 32-bit lanes of one vector added into 128 bits (four lanes), modulo 2^32. */
V_INLINE __m128i fold128(vs32 v)
{
#if VEC_BITS == 512
	__m256i h = _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));

	return _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
#elif VEC_BITS == 256
	return _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
#else
	return v;
#endif
}

/* The sum of the 32-bit lanes of v, modulo 2^32. */
V_INLINE uint32_t hsum32(vs32 v)
{
	__m128i q = fold128(v);

	q = _mm_add_epi32(q, _mm_shuffle_epi32(q, 0x4e));
	return (uint32_t)_mm_cvtsi128_si32(_mm_add_epi32(q, _mm_shuffle_epi32(q, 0xb1)));
}

/* out[k] = the sum of the 32-bit lanes of v[k], modulo 2^32, for k < 4. */
V_INLINE void hsum32x4(const vs32 v[4], uint32_t out[4])
{
	__m128i s = _mm_hadd_epi32(_mm_hadd_epi32(fold128(v[0]), fold128(v[1])),
				   _mm_hadd_epi32(fold128(v[2]), fold128(v[3])));

	_mm_storeu_si128((__m128i *)(void *)out, s);
}

/* Even and odd 16-bit samples of a vector as 32-bit lanes, and back. */
#define even32(v) vand(v, set32(0xffff))
#define odd32(v) srl32(v, 16)
#define join32(e, o) vor(e, sll32(o, 16))
/*
 * The sum of each even and odd 16-bit lane as 32-bit lanes: one multiply-add of the lanes
 * offset by -32768 (which makes them signed), then the offsets back (an add the compiler
 * merges with the constants added after it).
 */
#define pairs32(v) add32(X(madd_epi16)(vxor(v, set16(0x8000)), set16(1)), set32(65536))

/*
 * The 32-bit lanes of e and o, each saturated to 0..65535, as the even and odd
 * 16-bit lanes of one vector: a pack and a shuffle, where join32() of clamped
 * lanes takes four clamps, a shift and an or.
 */
V_INLINE vu16 join_sat32(vs32 e, vs32 o)
{
#if VEC_BITS == 512
	/* The pack gives e's four lanes then o's in each 128 bits; word 2i is e[i], 2i + 1 o[i]. */
	const __m512i idx = _mm512_set_epi16(31, 27, 30, 26, 29, 25, 28, 24, 23, 19, 22, 18, 21, 17, 20, 16, 15, 11,
					     14, 10, 13, 9, 12, 8, 7, 3, 6, 2, 5, 1, 4, 0);

	return _mm512_permutexvar_epi16(idx, _mm512_packus_epi32(e, o));
#else
	const vu16 idx = X(set_epi8)(15, 14, 7, 6, 13, 12, 5, 4, 11, 10, 3, 2, 9, 8, 1, 0
#if VEC_BITS == 256
				     , 15, 14, 7, 6, 13, 12, 5, 4, 11, 10, 3, 2, 9, 8, 1, 0
#endif
	);

	return X(shuffle_epi8)(X(packus_epi32)(e, o), idx);
#endif
}

/*
 * acc + we (e - 32768) + wo (o - 32768) for the even and odd unsigned 16-bit lanes e and o of v,
 * as 32-bit lanes (|we|, |wo| < 2^15, the sum within int32): one multiply-add of the lanes
 * offset by -32768, which makes them signed; vpdpwssd with AVX512-VNNI, which takes the add too.
 */
#define madd16_w(we, wo) set32((int32_t)((uint32_t)(uint16_t)(wo) << 16 | (uint16_t)(we)))
#if VEC_BITS == 512 && defined(__AVX512VNNI__)
#define madd16(acc, v, we, wo) _mm512_dpwssd_epi32(acc, vxor(v, set16(0x8000)), madd16_w(we, wo))
#else
#define madd16(acc, v, we, wo) add32(acc, X(madd_epi16)(vxor(v, set16(0x8000)), madd16_w(we, wo)))
#endif
/* The even 16-bit lanes of e and the odd lanes of o. */
#if VEC_BITS == 512
#define blend_odd16(e, o) _mm512_mask_blend_epi16(0xaaaaaaaau, e, o)
/* acc + v in the lanes where a > b (signed): one masked add. */
#define add_gt32(acc, a, b, v) _mm512_mask_add_epi32(acc, _mm512_cmpgt_epi32_mask(a, b), acc, v)
#else
#define blend_odd16(e, o) X(blend_epi16)(e, o, 0xaa)
#define add_gt32(acc, a, b, v) add32(acc, vand(gt32(a, b), v))
#endif

/*
 * m0 (a - 32768) + m1 (b - 32768) + m2 (c - 32768) in 32 bits, for the
 * widened halves of wlo()/whi(): the offsets make the samples signed 16-bit
 * so one multiply-add takes two of them.
 */
V_INLINE void dot3(vu16 a, vu16 b, vu16 c, int m0, int m1, int m2, vs32 *lo, vs32 *hi)
{
	const vu16 flip = set16(0x8000);
	const vs32 k01 = set32((int32_t)(((uint32_t)(uint16_t)m1 << 16) | (uint16_t)m0));
	const vs32 k2 = set32((int32_t)(uint16_t)m2);
	vu16 sa = vxor(a, flip), sb = vxor(b, flip), sc = vxor(c, flip);

	*lo = add32(X(madd_epi16)(X(unpacklo_epi16)(sa, sb), k01), X(madd_epi16)(X(unpacklo_epi16)(sc, zero()), k2));
	*hi = add32(X(madd_epi16)(X(unpackhi_epi16)(sa, sb), k01), X(madd_epi16)(X(unpackhi_epi16)(sc, zero()), k2));
}

/*
 * k + dot3(): at 512 bits with VNNI the multiply-adds accumulate (vpdpwssd, modulo 2^32 as
 * the adds), which takes the four 32-bit adds away.
 */
V_INLINE void dot3k(vu16 a, vu16 b, vu16 c, int m0, int m1, int m2, vs32 k, vs32 *lo, vs32 *hi)
{
#if VEC_BITS == 512 && defined(__AVX512VNNI__)
	const vu16 flip = set16(0x8000);
	const vs32 k01 = set32((int32_t)(((uint32_t)(uint16_t)m1 << 16) | (uint16_t)m0));
	const vs32 k2 = set32((int32_t)(uint16_t)m2);
	vu16 sa = vxor(a, flip), sb = vxor(b, flip), sc = vxor(c, flip);

	*lo = _mm512_dpwssd_epi32(_mm512_dpwssd_epi32(k, _mm512_unpacklo_epi16(sa, sb), k01),
				  _mm512_unpacklo_epi16(sc, zero()), k2);
	*hi = _mm512_dpwssd_epi32(_mm512_dpwssd_epi32(k, _mm512_unpackhi_epi16(sa, sb), k01),
				  _mm512_unpackhi_epi16(sc, zero()), k2);
#else
	dot3(a, b, c, m0, m1, m2, lo, hi);
	*lo = add32(*lo, k);
	*hi = add32(*hi, k);
#endif
}

/* The 32-bit products a * b of 16-bit lanes, in the order of wlo() and whi(). */
V_INLINE void mul16x32(vu16 a, vu16 b, vs32 *lo, vs32 *hi)
{
	vu16 l = X(mullo_epi16)(a, b), h = X(mulhi_epu16)(a, b);

	*lo = X(unpacklo_epi16)(l, h);
	*hi = X(unpackhi_epi16)(l, h);
}

/* (a * b + 2^31) >> 32 of unsigned 32-bit lanes, a 64-bit product per lane. */
V_INLINE vs32 mulhi32r(vs32 a, vs32 b)
{
#if VEC_BITS == 128
	const __m128i half = _mm_set1_epi64x(1ll << 31), top = _mm_set1_epi64x((long long)0xffffffff00000000ull);
#elif VEC_BITS == 256
	const __m256i half = _mm256_set1_epi64x(1ll << 31), top = _mm256_set1_epi64x((long long)0xffffffff00000000ull);
#else
	const __m512i half = _mm512_set1_epi64(1ll << 31), top = _mm512_set1_epi64((long long)0xffffffff00000000ull);
#endif
	vs32 even = X(srli_epi64)(X(add_epi64)(X(mul_epu32)(a, b), half), 32);
	vs32 odd = X(add_epi64)(X(mul_epu32)(X(srli_epi64)(a, 32), X(srli_epi64)(b, 32)), half);

	return vor(even, vand(odd, top));
}

/*
 * (2^32 + n/2) / n of 32-bit lanes, 64 <= n <= 65536 (the reciprocal
 * tables R of the Bayer and chroma denoise), without a table read and with
 * one division. f = 2^32 / n in float is within 256 / n of it, so q = (int)f
 * is within 6 of the result and the remainder rem = 2^32 + n/2 - q n (exact
 * modulo 2^32) within 7 n of 0; the result is q + floor(rem / n). That floor
 * is floor((rem + 1/2) / n), whose argument, at most 8 in magnitude, lies at
 * least 1 / (2 n) >= 2^-17 from an integer; (rem + 1/2) * f * 2^-32 is within
 * 2^-20 of it, so its floor is exact.
 * Exact for every such n: tests/checkasm checks each one (recip_row).
 */
#if VEC_BITS == 128
typedef __m128 vf32;
#define floor_f32(v) _mm_floor_ps(v)
#elif VEC_BITS == 256
typedef __m256 vf32;
#define floor_f32(v) _mm256_floor_ps(v)
#else
typedef __m512 vf32;
#define floor_f32(v) _mm512_roundscale_ps(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
#endif
V_INLINE vs32 recip32(vs32 n)
{
	const vf32 f = X(div_ps)(X(set1_ps)(4294967296.0f), X(cvtepi32_ps)(n));
	const vs32 q = X(cvttps_epi32)(f);
	const vs32 rem = sub32(srl32(n, 1), mul32(q, n));
	const vf32 x = X(mul_ps)(X(add_ps)(X(cvtepi32_ps)(rem), X(set1_ps)(0.5f)),
				  X(mul_ps)(f, X(set1_ps)(1.0f / 4294967296.0f)));

	return add32(q, X(cvttps_epi32)(floor_f32(x)));
}

/*
 * (int32_t)((float)a / (float)b + 0.5f) of 32-bit lanes, 0 <= a < 2^31, b > 0: IEEE single-precision
 * conversion, division and sum, each rounded to nearest, then truncation, as in C.
 */
V_INLINE vs32 div_round32(vs32 a, vs32 b)
{
	return X(cvttps_epi32)(X(add_ps)(X(div_ps)(X(cvtepi32_ps)(a), X(cvtepi32_ps)(b)), X(set1_ps)(0.5f)));
}

/* (int32_t)((float)a / (float)b) of 32-bit lanes, a >= 0, b > 0: IEEE single precision, truncated, as in C. */
V_INLINE vs32 div_trunc32(vs32 a, vs32 b)
{
	return X(cvttps_epi32)(X(div_ps)(X(cvtepi32_ps)(a), X(cvtepi32_ps)(b)));
}

/* Lanes n .. n + N16 - 1 of a and b side by side (a's lanes first), for n = 1 to 4: a vector n columns on. */
#if VEC_BITS == 128
#define ext16(a, b, n) _mm_alignr_epi8(b, a, 2 * (n))
#elif VEC_BITS == 256
#define ext16(a, b, n) _mm256_alignr_epi8(_mm256_permute2x128_si256(a, b, 0x21), a, 2 * (n))
#else
V_INLINE vu16 ext16(vu16 a, vu16 b, int n)
{
	static const uint16_t idx[36] = { 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17,
					  18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35 };

	return _mm512_permutex2var_epi16(a, ld(idx + n), b);
}
#endif

/*
 * The vector one 32-bit lane on from a, or one lane back from b, of a and b side by side (a's
 * lanes first): lanes 1 .. N32 (next32()) and N32 - 1 .. 2 N32 - 2 (prev32()).
 */
#if VEC_BITS == 128
#define next32(a, b) _mm_alignr_epi8(b, a, 4)
#define prev32(a, b) _mm_alignr_epi8(b, a, 12)
#elif VEC_BITS == 256
#define next32(a, b) ext16(a, b, 2)
#define prev32(a, b) _mm256_alignr_epi8(b, _mm256_permute2x128_si256(a, b, 0x21), 12)
#else
#define next32(a, b) _mm512_alignr_epi32(b, a, 1)
#define prev32(a, b) _mm512_alignr_epi32(b, a, 15)
#endif

/*
 * e[n - 1] = ext16(a, b, n) for n = 1 to 4. At 512 bits a two-source permute takes two cycles of
 * port 5 on Intel: here one lane-crossing align (a's 128-bit lanes 1 to 3, then b's lane 0) and
 * four in-lane byte aligns, one cycle each.
 */
V_INLINE void ext16x4(vu16 a, vu16 b, vu16 e[4])
{
#if VEC_BITS == 512
	const __m512i c = _mm512_alignr_epi32(b, a, 4);

	e[0] = _mm512_alignr_epi8(c, a, 2);
	e[1] = _mm512_alignr_epi8(c, a, 4);
	e[2] = _mm512_alignr_epi8(c, a, 6);
	e[3] = _mm512_alignr_epi8(c, a, 8);
#else
	e[0] = ext16(a, b, 1);
	e[1] = ext16(a, b, 2);
	e[2] = ext16(a, b, 3);
	e[3] = ext16(a, b, 4);
#endif
}

/* The bits of (float)v of 32-bit lanes (exact below 2^24). */
#if VEC_BITS == 128
#define f32bits32(v) _mm_castps_si128(_mm_cvtepi32_ps(v))
#elif VEC_BITS == 256
#define f32bits32(v) _mm256_castps_si256(_mm256_cvtepi32_ps(v))
#else
#define f32bits32(v) _mm512_castps_si512(_mm512_cvtepi32_ps(v))
#endif

/* a where the 32-bit mask lane m is all ones, b where it is 0. */
#define sel32(m, a, b) vor(vand(m, a), vandn(m, b))

#if VEC_BITS == 512
#define VEC_HAS_LUT64 1
/* A 64-entry table of 16-bit values in two registers, looked up per lane with one two-source permute. */
struct lut64 {
	__m512i t[2];
};

V_INLINE void lut64_load(struct lut64 *l, const uint16_t *tab)
{
	l->t[0] = _mm512_loadu_si512((const void *)tab);
	l->t[1] = _mm512_loadu_si512((const void *)(tab + 32));
}

/* tab[idx] for idx in 0..63. */
V_INLINE vu16 lut64(const struct lut64 *l, vu16 idx)
{
	return _mm512_permutex2var_epi16(l->t[0], idx, l->t[1]);
}

#define VEC_HAS_REFLECT 1
/*
 * The samples p[mirror(i + off)] of lanes i = 0..31: for off = -2 or -1 at a
 * row's start (p its first sample), for off = 1 or 2 at its end (p the first
 * sample of the vector ending there). The reflection (-1 -> 1, -2 -> 2,
 * n -> n - 2, n + 1 -> n - 3) is a permute of the vector itself, reading
 * nothing outside the row.
 */
V_INLINE vu16 ld_reflected(const uint16_t *p, int off)
{
	static const uint16_t idx[4][32] = {
		{ 2, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
		  14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29 },
		{ 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
		  15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30 },
		{ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
		  17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 30 },
		{ 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
		  18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 30, 29 },
	};

	return _mm512_permutexvar_epi16(ld(idx[off < 0 ? off + 2 : off + 1]), ld(p));
}

#define VEC_HAS_TONE 1
/*
 * The tone function's segment tables (src/isp/tone.h), four registers each, the quarters
 * turned by one: register i holds entries 32 (i - 1) mod 128 on, so that tone_vec() looks
 * segment k up at index k + 32 (mod 128), which it computes with one add less. The odd
 * segments' bases hold base + rise (mod 2^16), for tone_vec()'s position without its mask.
 */
struct tone_lut {
	__m512i base[4], rise[4];
};

V_INLINE void tone_lut_load(struct tone_lut *l, const uint16_t *base, const int16_t *rise)
{
	for (int k = 0; k < 4; k++) {
		const __m512i r = _mm512_loadu_si512((const void *)(rise + 32 * k));

		l->base[(k + 1) & 3] = _mm512_mask_add_epi16(_mm512_loadu_si512((const void *)(base + 32 * k)), 0xaaaaaaaa,
							     _mm512_loadu_si512((const void *)(base + 32 * k)), r);
		l->rise[(k + 1) & 3] = r;
	}
}

/* tab[idx] for idx in 0..127: a permute per 64 entries, then bit 6 chooses. */
V_INLINE __m512i lut128(const __m512i t[4], __m512i idx, __mmask32 b6)
{
	return _mm512_mask_blend_epi16(b6, _mm512_permutex2var_epi16(t[0], idx, t[1]),
				       _mm512_permutex2var_epi16(t[2], idx, t[3]));
}

/* cisp_tone_at() of each lane. */
V_INLINE __m512i tone_vec(const struct tone_lut *l, __m512i v)
{
	/*
	 * Leading zeros of x = v | 15 per 16-bit lane from the 32-bit count (AVX-512CD): the upper
	 * lane's is the dword's (the lane is not zero), the lower lane's that of the dword shifted up.
	 */
	const __m512i x = _mm512_or_si512(v, _mm512_set1_epi16(15));
	const __m512i lz = _mm512_or_si512(_mm512_lzcnt_epi32(_mm512_slli_epi32(x, 16)),
					   _mm512_slli_epi32(_mm512_lzcnt_epi32(x), 16));
	/*
	 * With s = 12 - lz, the segment is 8 s + (v >> s) and the position (v << (lz + 3)) & 32767.
	 * t = v << lz has v's leading one at bit 15 where v >= 16, so v >> s = t >> 12 (its top four
	 * bits) and the position is (t << 3) & 32767; where v < 16 (lz = 12, s = 0), t >> 12 = v and
	 * the position is 0 both ways. The segment plus 32, mod 128, is (t >> 12) - 8 lz.
	 * t << 3 without the mask is pos - 32768 where bit 12 of t, the segment's lowest bit, is
	 * set: the rounded product is then rise less (exactly, as rise 2^15 is a multiple of 2^15),
	 * which the odd segments' bases hold added (tone_lut_load(); all sums mod 2^16).
	 */
	const __m512i t = _mm512_sllv_epi16(v, lz);
	const __m512i k = _mm512_sub_epi16(_mm512_srli_epi16(t, 12), _mm512_slli_epi16(lz, 3));
	const __m512i pos = _mm512_slli_epi16(t, 3);
	const __mmask32 m = _mm512_test_epi16_mask(k, _mm512_set1_epi16(64));

	return _mm512_add_epi16(lut128(l->base, k, m), _mm512_mulhrs_epi16(lut128(l->rise, k, m), pos));
}
#endif

/* Bytes of a and b (each lane <= 255), a's first, in memory order. */
V_INLINE void st8(uint8_t *d, vu16 a, vu16 b)
{
#if VEC_BITS == 128
	st(d, _mm_packus_epi16(a, b));
#elif VEC_BITS == 256
	st(d, _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xd8));
#else
	st(d, _mm512_permutexvar_epi64(_mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0), _mm512_packus_epi16(a, b)));
#endif
}

/* Eight pixels of 16-bit lanes r, g, b (each <= 255) as 24 interleaved bytes. */
V_INLINE void st_rgb8_128(uint8_t *d, __m128i r, __m128i g, __m128i b)
{
	const __m128i rg = _mm_packus_epi16(r, g), bb = _mm_packus_epi16(b, b);
	const __m128i m0 = _mm_setr_epi8(0, 8, -1, 1, 9, -1, 2, 10, -1, 3, 11, -1, 4, 12, -1, 5);
	const __m128i m1 = _mm_setr_epi8(-1, -1, 0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1);
	const __m128i m2 = _mm_setr_epi8(13, -1, 6, 14, -1, 7, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1);
	const __m128i m3 = _mm_setr_epi8(-1, 5, -1, -1, 6, -1, -1, 7, -1, -1, -1, -1, -1, -1, -1, -1);

	_mm_storeu_si128((__m128i *)(void *)d, _mm_or_si128(_mm_shuffle_epi8(rg, m0), _mm_shuffle_epi8(bb, m1)));
	_mm_storel_epi64((__m128i *)(void *)(d + 16), _mm_or_si128(_mm_shuffle_epi8(rg, m2), _mm_shuffle_epi8(bb, m3)));
}

/* N16 pixels of r, g, b (each lane <= 255) as 3 N16 interleaved bytes, eight pixels at a time. */
V_INLINE void st_rgb8(uint8_t *d, vu16 r, vu16 g, vu16 b)
{
#if VEC_BITS == 128
	st_rgb8_128(d, r, g, b);
#elif VEC_BITS == 256
	st_rgb8_128(d, _mm256_castsi256_si128(r), _mm256_castsi256_si128(g), _mm256_castsi256_si128(b));
	st_rgb8_128(d + 24, _mm256_extracti128_si256(r, 1), _mm256_extracti128_si256(g, 1), _mm256_extracti128_si256(b, 1));
#else
	/*
	 * Two pixels are the three words r0 | g0 << 8, b0 | r1 << 8, g1 | b1 << 8. e holds the
	 * first at the even lanes and the third at the odd ones, o the second at the even ones; a
	 * permute of e merged with one of o (same indices) makes each output vector: four
	 * single-source permutes on port 5, where eight 128-bit rounds took 41 instructions.
	 */
	static const uint16_t idx[48] = { 0,  0,  1,  2,  2,  3,  4,  4,  5,  6,  6,  7,  8,  8,  9,  10,
					  10, 11, 12, 12, 13, 14, 14, 15, 16, 16, 17, 18, 18, 19, 20, 20,
					  21, 22, 22, 23, 24, 24, 25, 26, 26, 27, 28, 28, 29, 30, 30, 31 };
	const __mmask32 odd = 0xaaaaaaaa;
	const __m512i e = _mm512_or_si512(_mm512_mask_blend_epi16(odd, r, g),
					  _mm512_slli_epi16(_mm512_mask_blend_epi16(odd, g, b), 8));
	/* The even lanes of r's 32-bit lanes shifted down by 8: r1 << 8 (r0 <= 255 goes). */
	const __m512i o = _mm512_or_si512(b, _mm512_srli_epi32(r, 8));
	const __m512i i0 = ld(idx), i1 = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)(idx + 32)));

	/* The words 3j + 1 come from o. */
	st(d, _mm512_mask_permutexvar_epi16(_mm512_permutexvar_epi16(i0, e), 0x92492492, i0, o));
	_mm256_storeu_si256((__m256i *)(void *)(d + 64),
			    _mm512_castsi512_si256(_mm512_mask_permutexvar_epi16(_mm512_permutexvar_epi16(i1, e), 0x4924, i1, o)));
#endif
}

/* N16 pixels of r, g, b (each lane <= 255) as B, G, R, 255: the 16-bit words b | g << 8 and r | 0xff00 interleaved. */
V_INLINE void st_xbgr8(uint8_t *d, vu16 r, vu16 g, vu16 b)
{
	const vu16 lo = vor(b, sll16(g, 8)), hi = vor(r, set16(0xff00));
#if VEC_BITS == 128
	st(d, _mm_unpacklo_epi16(lo, hi));
	st(d + 16, _mm_unpackhi_epi16(lo, hi));
#elif VEC_BITS == 256
	/* The unpacks work within 128-bit halves: pixels 0-3 and 8-11, then 4-7 and 12-15. */
	const __m256i a = _mm256_unpacklo_epi16(lo, hi), c = _mm256_unpackhi_epi16(lo, hi);

	st(d, _mm256_permute2x128_si256(a, c, 0x20));
	st(d + 32, _mm256_permute2x128_si256(a, c, 0x31));
#else
	/*
	 * The unpacks work within 128-bit lanes: lane k of each input first gets the pixels 4k..4k + 3
	 * (low half) and 16 + 4k.. (high half). A qword permute is one port-5 cycle on Intel, a
	 * two-source word permute two.
	 */
	const __m512i q = _mm512_set_epi64(7, 3, 6, 2, 5, 1, 4, 0);
	const __m512i l2 = _mm512_permutexvar_epi64(q, lo), h2 = _mm512_permutexvar_epi64(q, hi);

	st(d, _mm512_unpacklo_epi16(l2, h2));
	st(d + 64, _mm512_unpackhi_epi16(l2, h2));
#endif
}

/* 16-bit lanes of a then b (32-bit lanes, each 0..65535), in memory order. */
V_INLINE vu16 narrow32(vs32 a, vs32 b)
{
#if VEC_BITS == 128
	return _mm_packus_epi32(a, b);
#elif VEC_BITS == 256
	return _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8);
#else
	return _mm512_permutexvar_epi64(_mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0), _mm512_packus_epi32(a, b));
#endif
}

#endif
