/* SPDX-License-Identifier: MIT */
/* The row functions of dsp.h for x86-64 SSE4.1 (128-bit vectors). */
#define VEC_BITS 128
#define SIMD_SUFFIX sse4
#include "vec.h"

#include "isp/simd_kernels.h"
#include "isp/simd_demosaic_quality.h"
#include "isp/simd_bnr_quality.h"
#include "isp/simd_highlights.h"
#include "isp/simd_ltm.h"
#include "isp/simd_cnr.h"
