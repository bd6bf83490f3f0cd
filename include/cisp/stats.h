/* SPDX-License-Identifier: MIT */
/**
 * @file stats.h
 * @brief The statistics buffer of the canonical ISP, ABI version 1.
 *
 * One struct cisp_stats is written per frame when the STATS block is
 * enabled. Layout rules are those of params.h: fixed little-endian integers,
 * no pointers, no implicit padding.
 *
 * Every statistic is computed on 2x2 cells of the Bayer frame (one R, Gr, Gb
 * and B sample each) taken after lens shading correction and before the
 * white-balance gains (the "stats tap"), so they see the scene's raw colour
 * with shading removed. A cell's green is (Gr + Gb + 1) >> 1. Cell (i, j)
 * covers input pixels (2i..2i+1, 2j..2j+1). docs/abi.md gives the exact
 * arithmetic of each statistic.
 */
#ifndef CISP_STATS_H
#define CISP_STATS_H

#include <stddef.h>
#include <stdint.h>

#include <cisp/api.h>
#include <cisp/params.h>

#ifdef __cplusplus
extern "C" {
#endif

/** "CSTA" read as a little-endian 32-bit integer. */
#define CISP_STATS_MAGIC 0x41545343u
/** The statistics ABI version this header describes. */
#define CISP_STATS_VERSION 1

/** Bits of struct cisp_stats.valid. */
#define CISP_STATS_HIST (1u << 0)  /**< @hist is filled */
#define CISP_STATS_ZONES (1u << 1) /**< @zone is filled */
#define CISP_STATS_AF (1u << 2)    /**< @af is filled */
#define CISP_STATS_ROWS (1u << 3)  /**< @row_mean is filled */

/**
 * struct cisp_stats_zone - one AE/AWB zone (16 bytes).
 * @r: mean red of the zone's unsaturated cells, 16-bit units, rounded.
 * @g: mean green.
 * @b: mean blue.
 * @reserved: 0.
 * @count: unsaturated cells that were averaged (0: the means are 0).
 * @total: all cells of the zone.
 */
struct cisp_stats_zone {
	uint16_t r;
	uint16_t g;
	uint16_t b;
	uint16_t reserved;
	uint32_t count;
	uint32_t total;
};

/**
 * struct cisp_stats_af - one AF window's sharpness (16 bytes).
 * @sharpness: sum over the window's cells of the absolute second
 *             differences of green across and down (see docs/abi.md).
 * @count: cells summed.
 * @reserved: 0.
 */
struct cisp_stats_af {
	uint64_t sharpness;
	uint32_t count;
	uint32_t reserved;
};

/**
 * struct cisp_stats - the statistics of one frame.
 * @magic: CISP_STATS_MAGIC.
 * @version: CISP_STATS_VERSION.
 * @reserved0: 0.
 * @size: sizeof(struct cisp_stats).
 * @valid: CISP_STATS_* bits of the parts that were computed.
 * @sequence: frame sequence number, set by the device layer (0 otherwise).
 * @width: input frame width.
 * @height: input frame height.
 * @hist: luma histogram over every cell: bin = Y >> 8 where
 *        Y = (54 * R' + 183 * G' + 19 * B' + 128) >> 8 and R', G', B' are
 *        the cell's samples with the white-balance gains applied.
 * @zones_x: zone columns in @zone.
 * @zones_y: zone rows.
 * @reserved1: 0.
 * @zone: zones row-major, @zones_x * @zones_y used.
 * @af_count: windows in @af.
 * @reserved2: 0.
 * @af: AF windows, in the order configured.
 * @row_count: entries of @row_mean in use.
 * @row_group: cell rows averaged per entry.
 * @reserved3: 0.
 * @row_mean: mean green of each group of cell rows across the full width,
 *            16-bit units, rounded; for flicker detection.
 */
struct cisp_stats {
	uint32_t magic;
	uint16_t version;
	uint16_t reserved0;
	uint32_t size;
	uint32_t valid;
	uint64_t sequence;
	uint32_t width;
	uint32_t height;
	uint32_t hist[256];
	uint16_t zones_x;
	uint16_t zones_y;
	uint32_t reserved1;
	struct cisp_stats_zone zone[CISP_STATS_MAX_ZONES * CISP_STATS_MAX_ZONES];
	uint16_t af_count;
	uint16_t reserved2[3];
	struct cisp_stats_af af[CISP_STATS_MAX_AF];
	uint16_t row_count;
	uint16_t row_group;
	uint32_t reserved3;
	uint16_t row_mean[CISP_STATS_MAX_ROWS];
};

/**
 * cisp_stats_validate() - check a statistics buffer before reading it, when
 * it comes from something the reader does not control (a hardware ISP,
 * another process, a file).
 * @buf: the buffer (any alignment).
 * @size: its size in bytes.
 *
 * Checks the header, the reserved fields, that every count is in range and
 * that the entries past it are 0, and the relations docs/abi.md guarantees:
 * the histogram counts every cell, the zones' totals add up to the cells,
 * no zone averages more cells than it has, an AF window's sharpness is
 * possible for its cells, row_count follows from row_group and the height.
 * The ISP's own statistics always pass.
 *
 * Return: 0; -EMSGSIZE for a wrong size; -EPROTO for a wrong magic;
 * -EPROTONOSUPPORT for another version; -EINVAL with a message naming the
 * field otherwise.
 */
CISP_API int cisp_stats_validate(const void *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* CISP_STATS_H */
