/* SPDX-License-Identifier: MIT */
/*
 * Statistics at the stats tap (after lens shading, before white balance):
 * luma histogram, AE/AWB zones, AF sharpness, flicker row means.
 *
 * Rows are accumulated into integer sums per worker (order-independent, so
 * the result does not depend on threads), then finished into struct
 * cisp_stats.
 */
#ifndef CISP_ISP_STATISTICS_H
#define CISP_ISP_STATISTICS_H

#include <cisp/format.h>
#include <cisp/params.h>
#include <cisp/stats.h>

#include "core/plane.h"

struct cisp_stats_acc;

/* Accumulator for a frame of @width x @height; 0 or -ENOMEM. */
int cisp_stats_acc_create(struct cisp_stats_acc **acc, const struct cisp_stats_params *cfg,
			  const struct cisp_wb_params *wb, enum cisp_cfa cfa, int width, int height);
void cisp_stats_acc_free(struct cisp_stats_acc *acc);
/* Add the cells of frame rows [y0, y1) (both even) of @bayer; reads one cell row above and below. */
void cisp_stats_acc_rows(struct cisp_stats_acc *acc, const struct plane16 *bayer, int y0, int y1);
/*
 * The per-cell work of a cell row, split out for dsp.h: row0 and row1 are
 * Bayer rows 2j and 2j + 1, site[] the CFA site ((y & 1) * 2 + (x & 1)) of
 * R, Gr, Gb, B and wb[] their Q4.12 histogram gains. For each cell i:
 * out[0] the green (Gr + Gb + 1) >> 1, out[1] the histogram bin of the
 * white-balanced luma; when all four samples are below @saturation, R, the
 * green and B are added to column[0..2][i] and 1 to column[3][i] (the zone
 * sums, summed down a zone's rows before across its columns). Returns the
 * sum of out[0] (at most 8192 cells of 16 bits: it fits 32 bits).
 */
typedef uint32_t (*cisp_stats_cells_fn)(const uint16_t *row0, const uint16_t *row1, int cells, const uint8_t site[4],
					const uint16_t wb[4], int saturation, uint16_t *const out[2],
					uint32_t *const column[4]);
uint32_t cisp_stats_cells_c(const uint16_t *row0, const uint16_t *row1, int cells, const uint8_t site[4],
			    const uint16_t wb[4], int saturation, uint16_t *const out[2], uint32_t *const column[4]);
/*
 * The zone sums of the column sums, split out for dsp.h: sum[k][c] is the
 * sum of v[c][i] over the run of columns i in [start[k], start[k + 1]), for
 * k < runs, modulo 2^32 (the caller keeps it below); each v[c][i] summed is
 * set to 0, ready for the next rows.
 */
typedef void (*cisp_stats_run_sums_fn)(uint32_t *const v[4], const int *start, int runs, uint32_t (*sum)[4]);
void cisp_stats_run_sums_c(uint32_t *const v[4], const int *start, int runs, uint32_t (*sum)[4]);
/* cisp_stats_acc_rows() with the per-cell work done by @cells and the zone sums by @sums. */
void cisp_stats_acc_rows_with(struct cisp_stats_acc *acc, const struct plane16 *bayer, int y0, int y1,
			      cisp_stats_cells_fn cells, cisp_stats_run_sums_fn sums);
/* Zero the sums, keeping the configuration (to reuse an accumulator for the next frame). */
void cisp_stats_acc_reset(struct cisp_stats_acc *acc);
/* Add @from into @into (same configuration). */
void cisp_stats_acc_merge(struct cisp_stats_acc *into, const struct cisp_stats_acc *from);
/* Write the finished statistics. */
void cisp_stats_acc_finish(const struct cisp_stats_acc *acc, struct cisp_stats *out);
/*
 * For statistics summed elsewhere (the Vulkan backend's shader): the layout
 * an accumulator made from its configuration, and the whole frame's sums,
 * which cisp_stats_acc_load() puts in place of its own before
 * cisp_stats_acc_finish().
 */
struct cisp_stats_layout {
	int cells_x, cells_y, zones_x, zones_y, saturation, row_group, row_count, af_count;
	int af[CISP_STATS_MAX_AF][4]; /* the cells [i0, i1) x [j0, j1) of each AF window */
	uint8_t site[4];              /* CFA site of R, Gr, Gb, B */
	uint16_t wb[4];               /* Q4.12 histogram gains of R, Gr, Gb, B */
};
struct cisp_stats_sums {
	uint32_t hist[256];
	uint64_t zone_sum[CISP_STATS_MAX_ZONES * CISP_STATS_MAX_ZONES][3];
	uint32_t zone_count[CISP_STATS_MAX_ZONES * CISP_STATS_MAX_ZONES];
	uint32_t zone_total[CISP_STATS_MAX_ZONES * CISP_STATS_MAX_ZONES];
	uint64_t af_sum[CISP_STATS_MAX_AF];
	uint32_t af_cells[CISP_STATS_MAX_AF];
	uint64_t row_sum[CISP_STATS_MAX_ROWS];
};
void cisp_stats_acc_layout(const struct cisp_stats_acc *acc, struct cisp_stats_layout *out);
void cisp_stats_acc_load(struct cisp_stats_acc *acc, const struct cisp_stats_sums *sums);
/* Statistics of a @width x @height frame with nothing measured: the header, every sum 0. */
void cisp_stats_header(struct cisp_stats *out, uint32_t width, uint32_t height);

#endif
