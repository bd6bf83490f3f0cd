/* SPDX-License-Identifier: MIT */
/* The row functions of dsp.h for AArch64 NEON. */
#define SIMD_SUFFIX neon
#include "vec.h"

#include "isp/simd_kernels.h"
#include "isp/simd_demosaic_quality.h"
#include "isp/simd_bnr_quality.h"
#include "isp/simd_highlights.h"
#include "isp/simd_ltm.h"
#include "isp/simd_cnr.h"
