/* SPDX-License-Identifier: MIT */
/**
 * @file burst.h
 * @brief Burst merge for low light: several short exposures of one scene,
 * aligned tile by tile in the Bayer domain and averaged where they agree,
 * into one raw mosaic with less noise (docs/burst.md).
 *
 * The first frame is the reference. Each other frame is aligned to it on a
 * pyramid of grey images (2x2 averages of the mosaic), coarse to fine, one
 * even offset per tile (the CFA phase is kept). Overlapping tiles are then
 * merged with a weight per tile and frame that turns to the reference where
 * the aligned frame differs from it by more than the noise model predicts
 * (motion the alignment could not follow), and blended with a raised-cosine
 * window. The arithmetic is integer and does not depend on the number of
 * threads.
 */
#ifndef CISP_BURST_H
#define CISP_BURST_H

#include <stdint.h>

#include <cisp/api.h>
#include <cisp/image.h>
#include <cisp/pool.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The fewest and the most frames of a burst. */
#define CISP_BURST_MIN_FRAMES 2
#define CISP_BURST_MAX_FRAMES 8

/** Tiles are this many Bayer pixels square and start every half of it. */
#define CISP_BURST_TILE 32

/**
 * struct cisp_burst_config - the frames of a burst and their noise.
 * @num_frames: how many frames (CISP_BURST_MIN_FRAMES..CISP_BURST_MAX_FRAMES).
 * @frame: the frames, the reference first: the same unpacked Bayer format
 *         of 10 to 16 bits and the same size.
 * @black_level: the frames' black level, codes.
 * @noise_a: the variance of a code grows by @noise_a per code of signal
 *           above @black_level (shot noise; codes; 0..4096).
 * @noise_b: the variance of a code at the black level (read noise; codes
 *           squared; 0..2^24).
 * @rejection: how readily a tile that differs from the reference is
 *             rejected: a tile whose mean squared difference exceeds the
 *             two frames' noise by @rejection times the noise variance
 *             gets half weight. 0 means the default, 4; at most 256.
 */
struct cisp_burst_config {
	unsigned num_frames;
	const struct cisp_image *frame[CISP_BURST_MAX_FRAMES];
	uint32_t black_level;
	double noise_a;
	double noise_b;
	double rejection;
};

/**
 * struct cisp_burst_result - what the merge did.
 * @tiles_x: tiles across (the grid of cisp_burst_align()).
 * @tiles_y: tiles down.
 * @rejected: tile and frame pairs whose weight went mostly (over half) to
 *            the reference.
 * @variance_factor: the merged mosaic's noise variance relative to one
 *                   frame's, averaged over tiles: 1 / num_frames when every
 *                   tile merged fully, 1 when every tile was rejected.
 */
struct cisp_burst_result {
	unsigned tiles_x;
	unsigned tiles_y;
	unsigned rejected;
	double variance_factor;
};

/**
 * cisp_burst_merge() - align and merge a burst into one mosaic.
 * @config: the frames and their noise.
 * @out: receives the merged mosaic: the frames' format and size; it may be
 *       the reference frame itself, but none of the others.
 * @pool: threads to use (tiles and rows are shared among them), or NULL.
 * @result: receives what the merge did, or NULL.
 * Return: 0; -EINVAL with a message for a frame count out of range, a
 * missing frame, a frame or output descriptor cisp_image_check() refuses,
 * frames of different formats or sizes, a format that is not unpacked Bayer
 * of 10 to 16 bits, an output that does not match or that is another frame,
 * or a noise model or rejection out of range; -ENOMEM.
 */
CISP_API int cisp_burst_merge(const struct cisp_burst_config *config, struct cisp_image *out, struct cisp_pool *pool,
			      struct cisp_burst_result *result);

/**
 * cisp_burst_align() - the alignment alone: the offset of every tile of
 * every frame after the first, in Bayer pixels (even), such that the
 * reference's pixel (x, y) of that tile is frame z's pixel (x + dx, y + dy).
 * @config: the frames (the noise fields are not used).
 * @pool: threads to use, or NULL.
 * @offset: receives (num_frames - 1) * tiles_x * tiles_y pairs (dx, dy):
 *          frame 1's tiles row by row, then frame 2's, ...
 * @max: room in @offset, in pairs.
 * @tiles_x: receives the tiles across: the tile starting at Bayer column
 *           CISP_BURST_TILE / 2 * (i - 1) is tile i.
 * @tiles_y: receives the tiles down.
 * Return: 0; the errors of cisp_burst_merge(); -ENOSPC when @max is too
 * small (@tiles_x and @tiles_y are set).
 */
CISP_API int cisp_burst_align(const struct cisp_burst_config *config, struct cisp_pool *pool, int32_t (*offset)[2],
			      size_t max, unsigned *tiles_x, unsigned *tiles_y);

#ifdef __cplusplus
}
#endif

#endif /* CISP_BURST_H */
