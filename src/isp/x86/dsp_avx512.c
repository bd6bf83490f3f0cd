/* SPDX-License-Identifier: MIT */
/* The row functions of dsp.h for x86-64 AVX-512BW (512-bit vectors). */
#define VEC_BITS 512
#define SIMD_SUFFIX avx512
#include "vec.h"

#include "isp/simd_kernels.h"
#include "isp/simd_demosaic_quality.h"
#include "isp/simd_bnr_quality.h"
#include "isp/simd_highlights.h"
#include "isp/simd_ltm.h"
#include "isp/simd_cnr.h"
