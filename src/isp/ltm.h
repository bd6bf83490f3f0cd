/* SPDX-License-Identifier: MIT */
/*
 * Local tone mapping (docs/stages/ltm.md): each pixel of linear RGB is
 * multiplied by a gain blended from the four grid nodes around it, each
 * node weighted by its distance in space and by how close the pixel's
 * brightness is to the node's level, so a gain never crosses an edge
 * between regions of different brightness.
 */
#ifndef CISP_ISP_LTM_H
#define CISP_ISP_LTM_H

#include <stdint.h>

#include <cisp/image.h>
#include <cisp/params.h>

/* Interpolation positions between two nodes are Q6: 64 is a whole node spacing. */
#define LTM_POS_ONE 64

struct cisp_ltm_coeffs {
	int grid_w, grid_h;
	uint32_t range;  /* the block's range, 1/256 stop */
	uint32_t rscale; /* floor(2^22 / range): range weights 0..64 */
	uint16_t level[CISP_LTM_MAX_GRID * CISP_LTM_MAX_GRID];
	uint16_t gain[CISP_LTM_MAX_GRID * CISP_LTM_MAX_GRID];
	/* Per frame column: the node on the left (0..grid_w - 2) and the position past it (0..64). */
	uint8_t col_node[CISP_MAX_DIMENSION], col_pos[CISP_MAX_DIMENSION];
	uint8_t row_node[CISP_MAX_DIMENSION], row_pos[CISP_MAX_DIMENSION];
	/* The column after the last whose left node is i: runs of columns that share their four nodes. */
	int node_end[CISP_LTM_MAX_GRID];
};

/*
 * log2 of @v in 1/256 stop, piecewise linear between powers of two: with
 * e = floor(log2 v), 256 e + (v << 8 >> e) - 256; 0 for v = 0. 0..4095.
 */
static inline uint32_t cisp_ltm_level(uint32_t v)
{
	uint32_t e;

	if (!v)
		return 0;
	e = 31 - (uint32_t)__builtin_clz(v);
	return 256 * e + (e <= 8 ? v << (8 - e) : v >> (e - 8)) - 256;
}

/* The luminance the levels measure: (77 R + 150 G + 29 B + 128) >> 8. */
static inline uint32_t cisp_ltm_luma(uint32_t r, uint32_t g, uint32_t b)
{
	return (77 * r + 150 * g + 29 * b + 128) >> 8;
}

/* The node and Q6 position of pixel @x of @n for @nodes nodes at the centres of equal zones. */
void cisp_ltm_node_pos(int x, int n, int nodes, uint8_t *node, uint8_t *pos);
/* Tables from @p for a @width x @height frame; 0 or -EINVAL with a message (a bad grid or range). */
int cisp_ltm_prepare(struct cisp_ltm_coeffs *c, const struct cisp_ltm_params *p, int width, int height);
/* The gain of a pixel of luminance @luma at column @x of row @y, Q8.8. */
uint32_t cisp_ltm_gain_at(const struct cisp_ltm_coeffs *c, uint32_t luma, int x, int y);
/* Columns [x0, x1) of row @y: in[k] to out[k] (in may be out). */
void cisp_ltm_span_c(const struct cisp_ltm_coeffs *c, const uint16_t *const in[3], uint16_t *const out[3], int x0,
		     int x1, int y);
/* Row @y of @w pixels: in[k] to out[k] (in may be out): the dsp.h entry's C version. */
void cisp_ltm_row_c(const struct cisp_ltm_coeffs *c, const uint16_t *const in[3], uint16_t *const out[3], int w,
		    int y);

#endif
