/* SPDX-License-Identifier: MIT */
/* The vector layer of src/isp/simd_kernels.h for AArch64 NEON (128-bit). */
#ifndef CISP_ISP_ARM_VEC_H
#define CISP_ISP_ARM_VEC_H

#include <arm_neon.h>
#include <stdint.h>

#define V_INLINE static inline __attribute__((always_inline))

typedef uint16x8_t vu16;
typedef int32x4_t vs32;

#define N16 8
#define N32 4

#define ld(p) vld1q_u16((const uint16_t *)(p))
/* N16 bytes at p, zero-extended to 16-bit lanes. */
#define ld8(p) vmovl_u8(vld1_u8((const uint8_t *)(p)))
#define st(p, v) vst1q_u16((uint16_t *)(p), (v))
#define set16(v) vdupq_n_u16((uint16_t)(v))
#define set32(v) vdupq_n_s32(v)
V_INLINE vs32 set32x2(int32_t a, int32_t b)
{
	const int32_t v[4] = { a, b, a, b };

	return vld1q_s32(v);
}
#define zero() vdupq_n_u16(0)
#define vand(a, b) vandq_u16(a, b)
#define vor(a, b) vorrq_u16(a, b)

#define add16(a, b) vaddq_u16(a, b)
#define sub16(a, b) vsubq_u16(a, b)
#define adds16(a, b) vqaddq_u16(a, b)
#define subs16(a, b) vqsubq_u16(a, b)
#define min16(a, b) vminq_u16(a, b)
#define max16(a, b) vmaxq_u16(a, b)
/* |a - b| of unsigned lanes. */
#define absd16(a, b) vabdq_u16(a, b)
#define avg16(a, b) vrhaddq_u16(a, b)
#define srl16(a, n) vshrq_n_u16(a, n)
#define mullo16(a, b) vmulq_u16(a, b)
#define sll16(a, n) vshlq_n_u16(a, n)
#define le16(a, b) vcleq_u16(a, b)
#define sel16(m, a, b) vbslq_u16(m, a, b)
/* x where a <= b, else y. */
#define sel_le16(a, b, x, y) sel16(le16(a, b), x, y)
V_INLINE vu16 mulhi16(vu16 a, vu16 b)
{
	uint32x4_t lo = vmull_u16(vget_low_u16(a), vget_low_u16(b)), hi = vmull_high_u16(a, b);

	return vcombine_u16(vshrn_n_u32(lo, 16), vshrn_n_u32(hi, 16));
}

#define ld32(p) vld1q_s32((const int32_t *)(p))
#define st32(p, v) vst1q_s32((int32_t *)(p), (v))
#define add32(a, b) vaddq_s32(a, b)
#define sub32(a, b) vsubq_s32(a, b)
#define mul32(a, b) vmulq_s32(a, b)
#define min32(a, b) vminq_s32(a, b)
#define max32(a, b) vmaxq_s32(a, b)
#define abs32(a) vabsq_s32(a)
#define sra32(a, n) vshrq_n_s32(a, n)
#define srl32(a, n) vreinterpretq_s32_u32(vshrq_n_u32(vreinterpretq_u32_s32(a), n))
#define sll32(a, n) vshlq_n_s32(a, n)
#define gt32(a, b) vreinterpretq_s32_u32(vcgtq_s32(a, b))
/* acc + 1 in the lanes where a > b (signed). */
#define count_gt32(acc, a, b) vsubq_s32(acc, gt32(a, b))
/* x in the lanes where a > b (signed), y elsewhere. */
#define sel_gt32(a, b, x, y) vbslq_s32(vcgtq_s32(a, b), x, y)
#define as32(v) vreinterpretq_s32_u16(v)
#define as16(v) vreinterpretq_u16_s32(v)
#define vand32(a, b) vandq_s32(a, b)
#define vor32(a, b) vorrq_s32(a, b)
#define vxor32(a, b) veorq_s32(a, b)
/* Lane masks of 32-bit lanes as vectors: every lane; m and a > b; acc + v where m. */
typedef vs32 vm32;
#define all32m() vdupq_n_s32(-1)
#define and_gt32(m, a, b) vand32(m, gt32(a, b))
#define add32_where(acc, m, v) add32(acc, vand32(v, m))

#define wlo(v) vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(v)))
#define whi(v) vreinterpretq_s32_u32(vmovl_high_u16(v))
#define packus32(lo, hi) vcombine_u16(vqmovun_s32(lo), vqmovun_s32(hi))
/* The sum of the 32-bit lanes of v, modulo 2^32. */
#define hsum32(v) ((uint32_t)vaddvq_u32(vreinterpretq_u32_s32(v)))
/* out[k] = the sum of the 32-bit lanes of v[k], modulo 2^32, for k < 4. */
V_INLINE void hsum32x4(const vs32 v[4], uint32_t out[4])
{
	vst1q_u32(out, vreinterpretq_u32_s32(vpaddq_s32(vpaddq_s32(v[0], v[1]), vpaddq_s32(v[2], v[3]))));
}
#define narrow32(a, b) packus32(a, b)

#define even32(v) vandq_s32(as32(v), vdupq_n_s32(0xffff))
#define odd32(v) srl32(as32(v), 16)
#define join32(e, o) as16(vorrq_s32(e, sll32(o, 16)))
/* The sum of each even and odd 16-bit lane as 32-bit lanes. */
#define pairs32(v) vreinterpretq_s32_u32(vpaddlq_u16(v))
/* The 32-bit lanes of e and o, each saturated to 0..65535, as the even and odd 16-bit lanes of one vector. */
V_INLINE vu16 join_sat32(vs32 e, vs32 o)
{
	uint16x4x2_t z = vzip_u16(vqmovun_s32(e), vqmovun_s32(o));

	return vcombine_u16(z.val[0], z.val[1]);
}
/* acc + we (e - 32768) + wo (o - 32768) for the even and odd unsigned 16-bit lanes e and o of v, as 32-bit lanes. */
#define madd16(acc, v, we, wo) \
	vmlaq_n_s32(vmlaq_n_s32(vaddq_s32(acc, vdupq_n_s32(-32768 * ((we) + (wo)))), even32(v), we), odd32(v), wo)
/* The even 16-bit lanes of e and the odd lanes of o. */
#define blend_odd16(e, o) vbslq_u16(vreinterpretq_u16_u32(vdupq_n_u32(0xffff0000u)), o, e)
/* acc + v in the lanes where a > b (signed). */
#define add_gt32(acc, a, b, v) vaddq_s32(acc, vandq_s32(gt32(a, b), v))

V_INLINE void dot3(vu16 a, vu16 b, vu16 c, int m0, int m1, int m2, vs32 *lo, vs32 *hi)
{
	const uint16x8_t flip = vdupq_n_u16(0x8000);
	int16x8_t sa = vreinterpretq_s16_u16(veorq_u16(a, flip)), sb = vreinterpretq_s16_u16(veorq_u16(b, flip));
	int16x8_t sc = vreinterpretq_s16_u16(veorq_u16(c, flip));
	int32x4_t l = vmull_n_s16(vget_low_s16(sa), (int16_t)m0), h = vmull_high_n_s16(sa, (int16_t)m0);

	l = vmlal_n_s16(l, vget_low_s16(sb), (int16_t)m1);
	h = vmlal_high_n_s16(h, sb, (int16_t)m1);
	*lo = vmlal_n_s16(l, vget_low_s16(sc), (int16_t)m2);
	*hi = vmlal_high_n_s16(h, sc, (int16_t)m2);
}

/* k + dot3(). */
V_INLINE void dot3k(vu16 a, vu16 b, vu16 c, int m0, int m1, int m2, vs32 k, vs32 *lo, vs32 *hi)
{
	dot3(a, b, c, m0, m1, m2, lo, hi);
	*lo = add32(*lo, k);
	*hi = add32(*hi, k);
}

V_INLINE void mul16x32(vu16 a, vu16 b, vs32 *lo, vs32 *hi)
{
	*lo = vreinterpretq_s32_u32(vmull_u16(vget_low_u16(a), vget_low_u16(b)));
	*hi = vreinterpretq_s32_u32(vmull_high_u16(a, b));
}

V_INLINE vs32 mulhi32r(vs32 a, vs32 b)
{
	uint32x4_t ua = vreinterpretq_u32_s32(a), ub = vreinterpretq_u32_s32(b);
	const uint64x2_t half = vdupq_n_u64(1ull << 31);
	uint64x2_t lo = vaddq_u64(vmull_u32(vget_low_u32(ua), vget_low_u32(ub)), half);
	uint64x2_t hi = vaddq_u64(vmull_high_u32(ua, ub), half);

	return vreinterpretq_s32_u32(vcombine_u32(vshrn_n_u64(lo, 32), vshrn_n_u64(hi, 32)));
}

/* (2^32 + n/2) / n for 64 <= n <= 65536: see the x86 layer. */
V_INLINE vs32 recip32(vs32 n)
{
	const float32x4_t nf = vcvtq_f32_s32(n);
	const int32x4_t q0 = vcvtq_s32_f32(vdivq_f32(vdupq_n_f32(4294967296.0f), nf));
	const int32x4_t rem = vsubq_s32(vshrq_n_s32(n, 1), vmulq_s32(q0, n));

	return vaddq_s32(q0, vcvtmq_s32_f32(vdivq_f32(vcvtq_f32_s32(rem), nf)));
}

/* (int32_t)((float)a / (float)b + 0.5f) of 32-bit lanes: see the x86 layer. */
V_INLINE vs32 div_round32(vs32 a, vs32 b)
{
	return vcvtq_s32_f32(vaddq_f32(vdivq_f32(vcvtq_f32_s32(a), vcvtq_f32_s32(b)), vdupq_n_f32(0.5f)));
}

/* (int32_t)((float)a / (float)b) of 32-bit lanes, a >= 0, b > 0: IEEE single precision, truncated, as in C. */
V_INLINE vs32 div_trunc32(vs32 a, vs32 b)
{
	return vcvtq_s32_f32(vdivq_f32(vcvtq_f32_s32(a), vcvtq_f32_s32(b)));
}

/* The bits of (float)v of 32-bit lanes (exact below 2^24). */
#define f32bits32(v) vreinterpretq_s32_f32(vcvtq_f32_s32(v))
/* a where the 32-bit mask lane m is all ones, b where it is 0. */
#define sel32(m, a, b) vbslq_s32(vreinterpretq_u32_s32(m), a, b)

/* N16 pixels of r, g, b (each lane <= 255) as 3 N16 interleaved bytes. */
V_INLINE void st_rgb8(uint8_t *d, vu16 r, vu16 g, vu16 b)
{
	uint8x8x3_t v = { { vmovn_u16(r), vmovn_u16(g), vmovn_u16(b) } };

	vst3_u8(d, v);
}

/* N16 pixels of r, g, b (each lane <= 255) as B, G, R, 255. */
V_INLINE void st_xbgr8(uint8_t *d, vu16 r, vu16 g, vu16 b)
{
	uint8x8x4_t v = { { vmovn_u16(b), vmovn_u16(g), vmovn_u16(r), vdup_n_u8(255) } };

	vst4_u8(d, v);
}

V_INLINE void st8(uint8_t *d, vu16 a, vu16 b)
{
	vst1q_u8(d, vcombine_u8(vqmovn_u16(a), vqmovn_u16(b)));
}

/* Lanes n .. n + N16 - 1 of a and b side by side (a's lanes first), for n = 1 or 2: a vector n columns on. */
#define ext16(a, b, n) vextq_u16(a, b, n)
/* The vector one 32-bit lane on from a (next32()), or one lane back from b (prev32()), of a and b side by side. */
#define next32(a, b) vextq_s32(a, b, 1)
#define prev32(a, b) vextq_s32(a, b, 3)
/* e[n - 1] = ext16(a, b, n) for n = 1 to 4. */
V_INLINE void ext16x4(vu16 a, vu16 b, vu16 e[4])
{
	e[0] = vextq_u16(a, b, 1);
	e[1] = vextq_u16(a, b, 2);
	e[2] = vextq_u16(a, b, 3);
	e[3] = vextq_u16(a, b, 4);
}

#define VEC_HAS_TONE 1
/* The tone function's segment tables (src/isp/tone.h) as bytes, 64 to a table register group. */
struct tone_lut {
	uint8x16x4_t base[4], rise[4];
};

V_INLINE void tone_lut_load(struct tone_lut *l, const uint16_t *base, const int16_t *rise)
{
	for (int k = 0; k < 4; k++) {
		l->base[k] = vld1q_u8_x4((const uint8_t *)(base + 32 * k));
		l->rise[k] = vld1q_u8_x4((const uint8_t *)(rise + 32 * k));
	}
}

/* The 16-bit entries @idx (bytes 2k, 2k + 1 of each lane) of a 256-byte table: 64 bytes a lookup. */
V_INLINE uint8x16_t lut128_bytes(const uint8x16x4_t t[4], uint8x16_t i0, uint8x16_t i1, uint8x16_t i2,
				 uint8x16_t i3)
{
	return vqtbx4q_u8(vqtbx4q_u8(vqtbx4q_u8(vqtbl4q_u8(t[0], i0), t[1], i1), t[2], i2), t[3], i3);
}

/* cisp_tone_at() of each lane. */
V_INLINE vu16 tone_vec(const struct tone_lut *l, vu16 v)
{
	/* s = floor(log2(v | 15)) - 3 = 12 - clz(v | 15). */
	const int16x8_t s = vsubq_s16(vdupq_n_s16(12), vreinterpretq_s16_u16(vclzq_u16(vorrq_u16(v, vdupq_n_u16(15)))));
	const vu16 k = vaddq_u16(vreinterpretq_u16_s16(vshlq_n_s16(s, 3)), vshlq_u16(v, vnegq_s16(s)));
	const vu16 pos = vandq_u16(vshlq_u16(v, vsubq_s16(vdupq_n_s16(15), s)), vdupq_n_u16(32767));
	/* Byte indices 2k (low byte) and 2k + 1 (high byte), then less 64, 128 and 192 for the later groups. */
	const uint8x16_t i0 = vreinterpretq_u8_u16(vmlaq_n_u16(vdupq_n_u16(0x100), k, 0x202));
	const uint8x16_t i1 = vsubq_u8(i0, vdupq_n_u8(64)), i2 = vsubq_u8(i0, vdupq_n_u8(128));
	const uint8x16_t i3 = vsubq_u8(i0, vdupq_n_u8(192));
	const vu16 base = vreinterpretq_u16_u8(lut128_bytes(l->base, i0, i1, i2, i3));
	const int16x8_t rise = vreinterpretq_s16_u8(lut128_bytes(l->rise, i0, i1, i2, i3));

	return vaddq_u16(base, vreinterpretq_u16_s16(vqrdmulhq_s16(rise, vreinterpretq_s16_u16(pos))));
}

#endif
