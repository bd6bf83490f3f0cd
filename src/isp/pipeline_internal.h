/* SPDX-License-Identifier: MIT */
/*
 * Internals of the pipeline shared by its two executors: pipeline.c (the
 * reference: each stage over the whole frame, then the next) and
 * pipeline_fused.c (row bands that run every stage while the rows are in
 * cache, with the dsp.h row functions). Both give the same bits.
 */
#ifndef CISP_ISP_PIPELINE_INTERNAL_H
#define CISP_ISP_PIPELINE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <cisp/isp.h>

#include "isp/blc.h"
#include "isp/dpc.h"
#include "isp/dsp.h"
#include "isp/plane.h"
#include "isp/wb.h"

/* One output's geometry: the crop it shows and the scaler to its size. */
struct output_state {
	bool used;
	bool yuv;
	int crop_x, crop_y, crop_w, crop_h;
	struct cisp_scaler *scaler; /* NULL when the crop is the output size */
	uint16_t *scaled;           /* 3 planes at the output size, when scaling (reference executor) */
	struct rgb16 scaled_planes;
};

struct cisp_fused;
struct cisp_stats_acc;
struct vendor_instance;

struct cisp_isp {
	struct cisp_isp_config config;
	enum cisp_cfa cfa;
	struct cisp_params_limits limits;
	struct cisp_param_state state;

	/* coefficients derived from the state */
	struct cisp_blc_coeffs blc;
	struct cisp_dpc_coeffs dpc;
	struct cisp_bnr_coeffs *bnr;
	struct cisp_lsc_coeffs *lsc;
	struct cisp_wb_coeffs wb;
	struct cisp_tone_coeffs *tone;
	struct cisp_cnr_coeffs *cnr;
	struct cisp_demosaic *demosaic;
	int demosaic_algorithm;
	struct output_state out[CISP_MAX_OUTPUTS];
	struct vendor_instance *vendor; /* vendor stages (src/vendor), or NULL */

	/* working planes at the input size (reference executor; made on its first frame) */
	uint16_t *memory;
	struct plane16 bayer[2];
	struct rgb16 rgb[2];

	/* execution: cisp_isp_set_exec() */
	bool fused;           /* banded executor where the configuration allows it */
	int band_rows;        /* rows per band of the banded executor */
	const struct cisp_dsp *dsp;
	struct cisp_dsp dsp_level; /* a forced level's table */
	struct cisp_fused *fx;     /* the banded executor's buffers (per worker) */
	struct cisp_stats_acc **acc; /* its statistics accumulators, one per worker */
	unsigned acc_count;
};

/*
 * How an instance executes. @fused: false runs the reference stage by stage
 * over whole frames with the scalar reference stages. @band_rows: rows per
 * band of the banded executor (even, >= 2; 0: the default). @cpu: a
 * cisp_cpu_level for the row functions, or -1 for cisp_dsp() (the best the
 * CPU has, capped by CISP_CPU). Returns 0 or -EINVAL / -ENOTSUP.
 */
struct cisp_isp_exec {
	bool fused;
	int band_rows;
	int cpu;
};
int cisp_isp_set_exec(struct cisp_isp *isp, const struct cisp_isp_exec *e);
/* Defaults at create time: banded, unless CISP_EXEC=reference. */
void cisp_isp_exec_init(struct cisp_isp *isp);
/* Bytes of working memory the instance holds now (tables, planes, band buffers). */
size_t cisp_isp_memory(const struct cisp_isp *isp);

/* The frame-sized planes bayer[], rgb[] (and scaled outputs), made once; 0 or -ENOMEM. */
int cisp_isp_frame_planes(struct cisp_isp *isp);
/*
 * Output @index from the frame-sized planes @src of its final rows (RGB, or
 * YCbCr for YUV outputs): its crop, scaled to its size, packed into @img.
 */
void cisp_isp_finish_output(struct cisp_isp *isp, int index, const struct rgb16 *src, struct cisp_image *img,
			    struct cisp_pool *pool);
/*
 * The banded executor, for one frame or a bracket of @count (its @exposure
 * as cisp_isp_process_bracket() takes them; unused for one frame): 1 when it
 * cannot run this configuration, else 0 or a negative errno.
 */
int cisp_isp_process_fused(struct cisp_isp *isp, const struct cisp_image *const input[], const uint32_t exposure[],
			   unsigned count, struct cisp_image *const output[CISP_MAX_OUTPUTS], struct cisp_stats *stats,
			   struct cisp_pool *pool);
/* Forget the statistics accumulators (their configuration changed). */
void cisp_isp_fused_stats_changed(struct cisp_isp *isp);
void cisp_isp_fused_free(struct cisp_isp *isp);

#endif
