/* SPDX-License-Identifier: MIT */
/*
 * The burst merge's working state (include/cisp/burst.h, docs/burst.md),
 * shared by its three files: burst.c checks the frames and runs the steps on
 * the pool, burst_align.c builds the grey pyramids and aligns the tiles,
 * burst_merge.c weighs the tiles and blends them.
 */
#ifndef CISP_CAMERA_BURST_H
#define CISP_CAMERA_BURST_H

#include <stdint.h>

#include <cisp/burst.h>

#define BURST_LEVELS 4     /* grey pyramid levels at most */
#define BURST_GREY_TILE 16 /* a tile at every level, grey pixels; tiles start every half tile */
#define BURST_ONE 256      /* a tile weight of 1 (Q8) */

/* One grey image of a pyramid level. */
struct burst_grey {
	uint16_t *data;
	uint32_t width, height;
};

struct burst {
	const struct cisp_burst_config *config;
	unsigned frames;
	uint32_t width, height;           /* the mosaic's */
	unsigned levels;
	struct burst_grey grey[CISP_BURST_MAX_FRAMES][BURST_LEVELS];
	unsigned tiles_x[BURST_LEVELS], tiles_y[BURST_LEVELS];
	/* Per level: (frames - 1) grids of offsets, grey pixels of that level. */
	int32_t (*offset[BURST_LEVELS])[2];
	unsigned level;                   /* the level being aligned */
	/* Level 0: per frame after the first and tile, the weight moved to the reference (Q8). */
	uint16_t *reject;
	int64_t noise_a, noise_b;         /* the noise model, Q16 codes */
	int64_t rejection;                /* Q8 */
};

/* Tiles a grey size of @n pixels needs: tile i starts at 8 * (i - 1). */
static inline unsigned burst_tiles(uint32_t n)
{
	return (n - 1) / (BURST_GREY_TILE / 2) + 2;
}

/* Index of tile (@i, @j) of frame @z (1..frames-1) at @level. */
static inline size_t burst_tile_index(const struct burst *b, unsigned level, unsigned z, unsigned i, unsigned j)
{
	return ((size_t)(z - 1) * b->tiles_y[level] + j) * b->tiles_x[level] + i;
}

/* burst_align.c: the grey pyramid of frame @z (all levels). */
void burst_pyramid(struct burst *b, unsigned z);
/* burst_align.c: align tile row @j of frame @z at b->level, from the level above's offsets. */
void burst_align_row(struct burst *b, unsigned z, unsigned j);

/* burst_merge.c: the weights of tile row @j of frame @z, from the level 0 offsets. */
void burst_weigh_row(struct burst *b, unsigned z, unsigned j);
/* burst_merge.c: merge Bayer rows [16 * @band, 16 * @band + 16) into @out. */
void burst_merge_band(const struct burst *b, struct cisp_image *out, unsigned band);

#endif
