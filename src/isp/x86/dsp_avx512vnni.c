/* SPDX-License-Identifier: MIT */
/*
 * The row functions of dsp.h for x86-64 AVX-512BW with AVX512-VNNI: the AVX-512 rows compiled
 * again, the Bayer denoise's sums of weighted samples by vpdpwssd (simd_kernels.h, BNR_PAIRS), and
 * the chroma denoise's likewise (simd_cnr.h, cnr_add2()).
 */
#define VEC_BITS 512
#define SIMD_SUFFIX avx512vnni
#include "vec.h"

#include "isp/simd_kernels.h"
#include "isp/simd_cnr.h"
