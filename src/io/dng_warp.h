/* SPDX-License-Identifier: MIT */
/*
 * A DNG's geometric warps (DNG 1.4 and 1.6, chapter 7): WarpRectilinear
 * (opcode 1), WarpFisheye (opcode 2) and WarpRectilinear2 (opcode 14), lens
 * distortion and lateral chromatic
 * aberration corrected by resampling the mosaic, each CFA colour from its
 * own samples (docs/raw.md).
 */
#ifndef CISP_IO_DNG_WARP_H
#define CISP_IO_DNG_WARP_H

#include <stddef.h>
#include <stdint.h>

#include <cisp/raw_frame.h>

#define DNG_WARP_RECTILINEAR 1
#define DNG_WARP_FISHEYE 2
#define DNG_WARP_RECTILINEAR2 14
/* WarpRectilinear2's radial coefficients per plane: of r^0 .. r^14. */
#define DNG_WARP_RADIAL_TERMS 15

/*
 * A warp's parameters, per plane. The rectilinear warps in WarpRectilinear2's
 * form (WarpRectilinear's kr0..kr3 are the coefficients of r^0, r^2, r^4,
 * r^6, over the whole radius range, not reciprocal); WarpFisheye's kr0..kr3
 * in radial[plane][0..3]. The optical centre in 0..1 of the image's width and
 * height.
 */
struct dng_warp {
	uint32_t id;
	uint32_t planes;
	double radial[3][DNG_WARP_RADIAL_TERMS];
	double tangential[3][2];     /* kt0, kt1 */
	double r_min[3], r_max[3];   /* the radius range the radial polynomial is evaluated in */
	uint32_t reciprocal;         /* 1: the radial ratio is 1 / polynomial */
	double cx, cy;
};

/*
 * Read warp opcode @id (DNG_WARP_*) from its @size bytes of parameters at
 * @p, for OpcodeList @list (one plane in lists 1 and 2, 1 or 3 planes in
 * list 3). 0, or -EINVAL with the reason in @why: a size that does not match
 * the plane count, a plane count cisp cannot use, coefficients that are not
 * finite or beyond +-1000, a centre outside 0..1, a radius range not within
 * 0..1, a reciprocal polynomial that nears 0 in its range.
 */
int dng_warp_parse(uint32_t id, const uint8_t *p, size_t size, int list, struct dng_warp *warp, char *why,
		   size_t why_size);

/*
 * Resample @frame's mosaic through @warp, whose coordinates span the
 * active area of @width x @height pixels. 0, or -ENOMEM (frame unchanged).
 */
int dng_warp_apply(const struct dng_warp *warp, uint32_t width, uint32_t height, struct cisp_raw_frame *frame);

#endif
