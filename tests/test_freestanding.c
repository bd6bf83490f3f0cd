/* SPDX-License-Identifier: MIT */
/*
 * What the kernel module's freestanding build of the ISP changed in the
 * sources (kernel/, docs/kernel-uapi.md): the Bayer denoise's weighted mean
 * is computed in integers instead of single precision, and must give the
 * same bits as the float arithmetic the SIMD levels use.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "isp/bnr.h"
#include "test.h"

/* What cisp_bnr_mean() computed before, and what every SIMD level computes (div_round32()). */
static uint16_t float_mean(uint32_t swv, uint32_t sw)
{
	uint32_t o = (uint32_t)((float)(int32_t)swv / (float)(int32_t)sw + 0.5f);

	return (uint16_t)(o > 65535 ? 65535 : o);
}

TEST(freestanding_bnr_mean_is_the_float_one)
{
	unsigned long checked = 0, differ = 0;

	/*
	 * Every weight sum 64..576 with Σw·v on a stride over 0..2^26, and
	 * around multiples of each sum's half (the ties of the rounding). With
	 * CISP_TEST_EXHAUSTIVE=1, every one of the 513 * 2^26 pairs (minutes).
	 */
	const char *all = getenv("CISP_TEST_EXHAUSTIVE");
	const uint32_t stride = all && !strcmp(all, "1") ? 1 : 997;

	for (uint32_t sw = 64; sw <= 576; sw++) {
		for (uint32_t swv = 0; swv < (1u << 26); swv += stride == 1 ? 1 : stride + sw) {
			differ += cisp_bnr_mean(swv, sw) != float_mean(swv, sw);
			checked++;
		}
		for (uint32_t k = 1; k < (1u << 21) / sw; k += 7) {
			for (uint32_t d = 0; d < 3; d++) {
				uint32_t swv = k * sw / 2 + d - 1;

				differ += cisp_bnr_mean(swv, sw) != float_mean(swv, sw);
				checked++;
			}
		}
	}
	/*
	 * Where the float quotient rounds up onto the next half (means of 16384
	 * and more, sums of 256 and more: bnr.h), 3 below to 1 above each half.
	 */
	for (uint32_t sw = 256; sw <= 576; sw += 5) {
		for (uint32_t m = 16383; m < 65536; m += 13) {
			for (uint32_t d = 0; d < 5; d++) {
				uint32_t swv = (2 * m + 1) * sw / 2 + d - 3;

				differ += cisp_bnr_mean(swv, sw) != float_mean(swv, sw);
				checked++;
			}
		}
	}
	CHECK(checked > 20000000);
	CHECK_EQ(differ, 0);
	/* Known values: 0, exact quotients, a half rounded up, the clamp. */
	CHECK_EQ(cisp_bnr_mean(0, 64), 0);
	CHECK_EQ(cisp_bnr_mean(64 * 1000, 64), 1000);
	CHECK_EQ(cisp_bnr_mean(64 * 1000 + 32, 64), 1001);
	CHECK_EQ(cisp_bnr_mean((1u << 26) - 1, 64), 65535);
	/* 40000.5 - 1/576 in the float quotient rounds to the half (bnr.h). */
	CHECK_EQ(cisp_bnr_mean(40000 * 576 + 287, 576), 40001);
	CHECK_EQ(cisp_bnr_mean(40000 * 576 + 286, 576), 40000);
}
