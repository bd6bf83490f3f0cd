/* SPDX-License-Identifier: MIT */
/*
 * The outputs of an instance (docs/pipeline.md, "Outputs"): each shows a
 * crop of the frame (CROP block), scaled to its size (stages/scale.md) and
 * packed into its format (stages/pack.md). Both executors make them here.
 */
#ifndef CISP_ISP_OUTPUT_H
#define CISP_ISP_OUTPUT_H

#include <stdbool.h>

#include <cisp/image.h>
#include <cisp/pool.h>

#include "core/plane.h"

struct cisp_dsp;
struct cisp_isp;

/* One output's geometry: the crop it shows and the scaler to its size. */
struct output_state {
	bool used;
	bool yuv;
	int crop_x, crop_y, crop_w, crop_h;
	struct cisp_scaler *scaler; /* NULL when the crop is the output size */
	uint16_t *scaled;           /* 3 planes at the output size, when scaling (made on first use) */
	struct rgb16 scaled_planes;
};

/* Output @index's crop and scaler from the parameter state; 0 or a negative errno. */
int cisp_output_update(struct cisp_isp *isp, int index);
void cisp_output_free(struct output_state *o);
/* Whether output @index shows a crop of the frame or another size: made from frame-sized planes. */
bool cisp_output_via_frame(const struct cisp_isp *isp, int index);
/*
 * Output @index from frame-sized planes @src of its final rows (RGB, or
 * YCbCr for YUV outputs): its crop, scaled to its size, packed into @img,
 * by the reference row code in bands on @pool. 0 or -ENOMEM.
 */
int cisp_output_finish(struct cisp_isp *isp, int index, const struct rgb16 *src, struct cisp_image *img,
		       struct cisp_pool *pool);
/* Rows [y0, y1) (even @y0) of an output of the frame's size from @src, with the row functions of @d. */
void cisp_output_pack_rows(const struct cisp_dsp *d, const struct rgb16 *src, struct cisp_image *img, int y0, int y1);
/* Bytes of the scaled planes the outputs hold. */
size_t cisp_output_bytes(const struct cisp_isp *isp);

#endif
