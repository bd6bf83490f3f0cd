/* SPDX-License-Identifier: MIT */
/* The row-function table: C reference entries, CPU detection, CISP_CPU. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isp/blc.h"
#include "isp/bnr.h"
#include "isp/bnr_quality.h"
#include "isp/ccm.h"
#include "isp/cnr.h"
#include "isp/csc.h"
#include "isp/demosaic.h"
#include "isp/demosaic_quality.h"
#include "isp/dpc.h"
#include "isp/dsp.h"
#include "isp/highlights.h"
#include "isp/lsc.h"
#include "isp/pack.h"
#include "isp/sharpen.h"
#include "isp/statistics.h"
#include "isp/ltm.h"
#include "isp/tone.h"
#include "isp/unpack.h"
#include "isp/wb.h"

static const char *const names[CISP_CPU_LEVELS] = { "scalar", "sse4", "avx2", "avx512", "avx512vnni", "neon" };

const char *cisp_cpu_name(enum cisp_cpu_level level)
{
	return (unsigned)level < CISP_CPU_LEVELS ? names[level] : "?";
}

int cisp_cpu_from_name(const char *name)
{
	for (int i = 0; i < CISP_CPU_LEVELS; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

enum cisp_cpu_level cisp_cpu_detect(void)
{
#if defined(HAVE_X86_SIMD) && (defined(__x86_64__) || defined(__i386__))
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
	    __builtin_cpu_supports("avx512cd"))
		return __builtin_cpu_supports("avx512vnni") ? CISP_CPU_AVX512VNNI : CISP_CPU_AVX512;
	if (__builtin_cpu_supports("avx2"))
		return CISP_CPU_AVX2;
	if (__builtin_cpu_supports("sse4.1"))
		return CISP_CPU_SSE4;
#elif defined(HAVE_NEON_SIMD)
	return CISP_CPU_NEON; /* part of every AArch64 CPU */
#endif
	return CISP_CPU_SCALAR;
}

static void init_c(struct cisp_dsp *d)
{
	d->level = CISP_CPU_SCALAR;
	d->unpack16_row = cisp_unpack16_row_c;
	d->unpack8_row = cisp_unpack8_row_c;
	d->blc_row = cisp_blc_row_c;
	d->wb_row = cisp_wb_row_c;
	d->highlights_row = cisp_highlights_row_c;
	d->lsc_row = cisp_lsc_row_c;
	d->dpc_row = cisp_dpc_row_c;
	d->bnr_guide_row = cisp_bnr_guide_row_c;
	d->bnr_row = cisp_bnr_row_c;
	d->stats_cells = cisp_stats_cells_c;
	d->stats_run_sums = cisp_stats_run_sums_c;
	d->green_row = cisp_demosaic_green_row_c;
	d->rb_row = cisp_demosaic_rb_row_c;
	d->ccm_row = cisp_ccm_row_c;
	d->ltm_row = cisp_ltm_row_c;
	d->tone_row = cisp_tone_row_c;
	d->luma_row = cisp_sharpen_luma_row_c;
	d->sharpen_row = cisp_sharpen_row_c;
	d->csc_row = cisp_csc_row_c;
	d->cnr_h_row = cisp_cnr_h_row_c;
	d->cnr_v_row = cisp_cnr_v_row_c;
	d->to8_row = cisp_to8_row_c;
	d->chroma420_row = cisp_chroma420_row_c;
	d->rgb888_row = cisp_rgb888_row_c;
	d->xbgr32_row = cisp_xbgr32_row_c;
	d->recip_row = cisp_recip_row_c;
	d->dmq_green_rows = cisp_dmq_green_rows;
	d->dmq_blend_rows = cisp_dmq_blend_rows;
	d->dmq_colour_rows = cisp_dmq_colour_rows;
	d->bnr_patch_tile = cisp_bnr_patch_tile;
	d->bnr_transform_tile = cisp_bnr_transform_tile;
}

void cisp_recip_row_c(const uint32_t *n, uint32_t *r, int count)
{
	for (int i = 0; i < count; i++)
		r[i] = (uint32_t)((((uint64_t)1 << 32) + n[i] / 2) / n[i]);
}

int cisp_dsp_init(struct cisp_dsp *d, enum cisp_cpu_level level)
{
	enum cisp_cpu_level best = cisp_cpu_detect();

	init_c(d);
	if (level == CISP_CPU_SCALAR)
		return 0;
	if ((unsigned)level >= CISP_CPU_LEVELS || level > best || (best == CISP_CPU_NEON) != (level == CISP_CPU_NEON))
		return -ENOTSUP;
#ifdef HAVE_X86_SIMD
	/* Each level starts from the one below, so a level may leave entries to it. */
	if (level >= CISP_CPU_SSE4)
		cisp_dsp_init_sse4(d);
	if (level >= CISP_CPU_AVX2)
		cisp_dsp_init_avx2(d);
	if (level >= CISP_CPU_AVX512)
		cisp_dsp_init_avx512(d);
	if (level >= CISP_CPU_AVX512VNNI)
		cisp_dsp_init_avx512vnni(d);
	if (level >= CISP_CPU_SSE4)
		cisp_dsp_init_dmq_sse4(d);
	if (level >= CISP_CPU_AVX2)
		cisp_dsp_init_dmq_avx2(d);
	if (level >= CISP_CPU_AVX512)
		cisp_dsp_init_dmq_avx512(d);
	if (level >= CISP_CPU_SSE4)
		cisp_dsp_init_bnrq_sse4(d);
	if (level >= CISP_CPU_AVX2)
		cisp_dsp_init_bnrq_avx2(d);
	if (level >= CISP_CPU_AVX512)
		cisp_dsp_init_bnrq_avx512(d);
	if (level >= CISP_CPU_SSE4)
		cisp_dsp_init_highlights_sse4(d);
	if (level >= CISP_CPU_AVX2)
		cisp_dsp_init_highlights_avx2(d);
	if (level >= CISP_CPU_AVX512)
		cisp_dsp_init_highlights_avx512(d);
	if (level >= CISP_CPU_SSE4)
		cisp_dsp_init_ltm_sse4(d);
	if (level >= CISP_CPU_AVX2)
		cisp_dsp_init_ltm_avx2(d);
	if (level >= CISP_CPU_AVX512)
		cisp_dsp_init_ltm_avx512(d);
	if (level >= CISP_CPU_SSE4)
		cisp_dsp_init_cnr_sse4(d);
	if (level >= CISP_CPU_AVX2)
		cisp_dsp_init_cnr_avx2(d);
	if (level >= CISP_CPU_AVX512)
		cisp_dsp_init_cnr_avx512(d);
	if (level >= CISP_CPU_AVX512VNNI)
		cisp_dsp_init_cnr_avx512vnni(d);
#endif
#ifdef HAVE_NEON_SIMD
	cisp_dsp_init_neon(d);
	cisp_dsp_init_dmq_neon(d);
	cisp_dsp_init_bnrq_neon(d);
	cisp_dsp_init_highlights_neon(d);
	cisp_dsp_init_ltm_neon(d);
	cisp_dsp_init_cnr_neon(d);
#endif
	d->level = level;
	return 0;
}

static struct cisp_dsp table;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_table(void)
{
	enum cisp_cpu_level level = cisp_cpu_detect();
	const char *env = getenv("CISP_CPU");

	if (env && *env) {
		int want = cisp_cpu_from_name(env);

		/* A cap: asking for more than the CPU has gives what it has. */
		if (want < 0)
			fprintf(stderr, "cisp: CISP_CPU=%s is not one of scalar, sse4, avx2, avx512, avx512vnni, neon; using %s\n",
				env, cisp_cpu_name(level));
		else if (want == CISP_CPU_SCALAR || (want < (int)level && level != CISP_CPU_NEON))
			level = (enum cisp_cpu_level)want;
	}
	if (cisp_dsp_init(&table, level))
		cisp_dsp_init(&table, CISP_CPU_SCALAR);
}

const struct cisp_dsp *cisp_dsp(void)
{
	pthread_once(&once, init_table);
	return &table;
}
