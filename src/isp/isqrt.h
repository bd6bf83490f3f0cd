/* SPDX-License-Identifier: MIT */
/* Integer square root for parameter-time tables. */
#ifndef CISP_ISP_ISQRT_H
#define CISP_ISP_ISQRT_H

#include <stdint.h>

/* floor(sqrt(v)) for any 64-bit v (bit-by-bit method, exact). */
static inline uint32_t cisp_isqrt64(uint64_t v)
{
	uint64_t r = 0, bit = (uint64_t)1 << 62;

	while (bit > v)
		bit >>= 2;
	while (bit) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return (uint32_t)r;
}

#endif
