/* SPDX-License-Identifier: MIT */
/* Small integer helpers shared by the stages' scalar arithmetic. */
#ifndef CISP_ISP_ARITH_H
#define CISP_ISP_ARITH_H

#include <stdint.h>

/* @v clamped to 0..65535. */
static inline uint16_t clamp16(int32_t v)
{
	return (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v);
}

/* |a - b|. */
static inline uint32_t absdiff_u32(uint32_t a, uint32_t b)
{
	return a > b ? a - b : b - a;
}

#endif
