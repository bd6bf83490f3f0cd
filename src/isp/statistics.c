/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/image.h>

#include "core/error_internal.h"
#include "isp/dsp.h"
#include "isp/stage.h"
#include "statistics.h"

/* The histogram's parts, summed at the end. */
#define HIST_PARTS 8

struct af_cells {
	int i0, i1, j0, j1; /* cells [i0, i1) x [j0, j1) */
};

struct cisp_stats_acc {
	/* Configuration (identical in accumulators that get merged). */
	int width, height, cells_x, cells_y;
	int zones_x, zones_y, saturation;
	int af_count;
	struct af_cells af[CISP_STATS_MAX_AF];
	int row_group, row_count;
	uint8_t site[4];   /* CFA site of R, Gr, Gb, B: (y & 1) * 2 + (x & 1) */
	uint16_t wb[4];    /* Q4.12 gains of R, Gr, Gb, B for the histogram */
	uint8_t *zone_col; /* zone column of each cell column */
	int zone_runs;     /* runs of cell columns in one zone column */
	int run_start[CISP_STATS_MAX_ZONES + 1], run_zone[CISP_STATS_MAX_ZONES];
	uint16_t *green;   /* scratch: greens of three cell rows */
	uint16_t *cells;   /* scratch: the green and histogram bin of each cell of a cell row (cisp_stats_cells_c()) */
	/*
	 * The zone sums' columns: R, green, B and the count of the cells below saturation,
	 * summed down the pending cell rows of one zone row, then over each run of columns
	 * (flush_columns()), at most max_pending rows at a time so that a run's sum fits 32 bits.
	 */
	uint32_t *column[4];
	int pending, pending_zrow, max_pending;

	/*
	 * Sums. The histogram in HIST_PARTS parts (cell i into part i % HIST_PARTS): neighbouring
	 * cells often share a bin, and each part's increments of one bin wait on each other.
	 */
	uint32_t hist[HIST_PARTS][256];
	uint64_t zone_sum[CISP_STATS_MAX_ZONES * CISP_STATS_MAX_ZONES][3];
	uint32_t zone_count[CISP_STATS_MAX_ZONES * CISP_STATS_MAX_ZONES];
	uint32_t zone_total[CISP_STATS_MAX_ZONES * CISP_STATS_MAX_ZONES];
	uint64_t af_sum[CISP_STATS_MAX_AF];
	uint32_t af_cells[CISP_STATS_MAX_AF];
	uint64_t *row_sum; /* row_count entries */
};

static int check_config(const struct cisp_stats_params *cfg, int width, int height)
{
	if (width < 16 || height < 16 || width > CISP_MAX_DIMENSION || height > CISP_MAX_DIMENSION ||
	    width % 2 || height % 2)
		return cisp_error(-EINVAL, "statistics: frame %dx%d must be even and within 16x16..%dx%d", width,
				  height, CISP_MAX_DIMENSION, CISP_MAX_DIMENSION);
	if (cfg->zones_x < 1 || cfg->zones_x > CISP_STATS_MAX_ZONES || cfg->zones_y < 1 ||
	    cfg->zones_y > CISP_STATS_MAX_ZONES)
		return cisp_error(-EINVAL, "statistics: zones %ux%u are outside 1x1..%dx%d", cfg->zones_x,
				  cfg->zones_y, CISP_STATS_MAX_ZONES, CISP_STATS_MAX_ZONES);
	if (cfg->af_count > CISP_STATS_MAX_AF)
		return cisp_error(-EINVAL, "statistics: af_count %u is over %d", cfg->af_count, CISP_STATS_MAX_AF);
	for (int k = 0; k < cfg->af_count; k++) {
		const struct cisp_stats_window *a = &cfg->af[k];

		if (a->width < 8 || a->height < 8)
			return cisp_error(-EINVAL, "statistics: AF window %d is %ux%u, smaller than 8x8", k, a->width,
					  a->height);
		if (a->x + a->width > width || a->y + a->height > height)
			return cisp_error(-EINVAL,
					  "statistics: AF window %d (%u,%u %ux%u) is outside the %dx%d frame", k,
					  a->x, a->y, a->width, a->height, width, height);
	}
	return 0;
}

int cisp_stats_acc_create(struct cisp_stats_acc **out, const struct cisp_stats_params *cfg,
			  const struct cisp_wb_params *wb, enum cisp_cfa cfa, int width, int height)
{
	struct cisp_stats_acc *a;
	int ret = check_config(cfg, width, height);
	int cells_y = height / 2, group;

	*out = NULL;
	if (ret)
		return ret;
	/* The smallest group that fits CISP_STATS_MAX_ROWS, or the configured one if larger. */
	group = (cells_y + CISP_STATS_MAX_ROWS - 1) / CISP_STATS_MAX_ROWS;
	if (cfg->row_group > group)
		group = cfg->row_group;
	if (group > cells_y)
		group = cells_y;

	a = calloc(1, sizeof(*a));
	if (!a)
		return cisp_error(-ENOMEM, "out of memory for statistics");
	a->width = width;
	a->height = height;
	a->cells_x = width / 2;
	a->cells_y = cells_y;
	a->zones_x = cfg->zones_x;
	a->zones_y = cfg->zones_y;
	a->saturation = cfg->saturation;
	a->row_group = group;
	a->row_count = (cells_y + group - 1) / group;
	a->zone_col = malloc((size_t)a->cells_x);
	a->green = malloc(sizeof(uint16_t) * 3 * (size_t)a->cells_x);
	a->cells = malloc(sizeof(uint16_t) * 2 * (size_t)a->cells_x);
	a->column[0] = calloc(4 * (size_t)a->cells_x, sizeof(uint32_t));
	a->row_sum = calloc((size_t)a->row_count, sizeof(uint64_t));
	if (!a->zone_col || !a->green || !a->cells || !a->column[0] || !a->row_sum) {
		cisp_stats_acc_free(a);
		return cisp_error(-ENOMEM, "out of memory for statistics");
	}
	for (int i = 0; i < a->cells_x; i++) {
		a->zone_col[i] = (uint8_t)(i * a->zones_x / a->cells_x);
		if (!i || a->zone_col[i] != a->zone_col[i - 1]) {
			a->run_start[a->zone_runs] = i;
			a->run_zone[a->zone_runs++] = a->zone_col[i];
		}
	}
	a->run_start[a->zone_runs] = a->cells_x;
	for (int c = 1; c < 4; c++)
		a->column[c] = a->column[c - 1] + a->cells_x;
	/* A run's sum of column sums of 16-bit values below 2^32: rows * 65535 * longest run. */
	{
		int longest = 0;

		for (int k = 0; k < a->zone_runs; k++)
			if (a->run_start[k + 1] - a->run_start[k] > longest)
				longest = a->run_start[k + 1] - a->run_start[k];
		a->max_pending = (int)(0xffffffffu / (65535u * (uint32_t)longest));
	}
	for (int s = 0; s < 4; s++)
		a->site[cisp_cfa_channel(cfa, s & 1, s >> 1)] = (uint8_t)s;
	for (int c = 0; c < 4; c++)
		a->wb[c] = wb ? wb->gain[c] : 4096;
	a->af_count = cfg->af_count;
	for (int k = 0; k < cfg->af_count; k++) {
		const struct cisp_stats_window *w = &cfg->af[k];

		/* The cells lying wholly inside the window. */
		a->af[k] = (struct af_cells){ (w->x + 1) / 2, (w->x + w->width) / 2, (w->y + 1) / 2,
					      (w->y + w->height) / 2 };
	}
	*out = a;
	return 0;
}

void cisp_stats_acc_free(struct cisp_stats_acc *a)
{
	if (!a)
		return;
	free(a->zone_col);
	free(a->green);
	free(a->cells);
	free(a->column[0]);
	free(a->row_sum);
	free(a);
}

/* The samples of channel @ch (R, Gr, Gb, B) of cell row @j: cell i at [2 * i]. */
static inline const uint16_t *channel_row(const struct cisp_stats_acc *a, const struct plane16 *p, int ch, int j)
{
	int s = a->site[ch];

	return plane_row(p, 2 * j + (s >> 1)) + (s & 1);
}

/* Greens (Gr + Gb + 1) >> 1 of cell row @j. */
static void green_row(const struct cisp_stats_acc *a, const struct plane16 *p, int j, uint16_t *g)
{
	const uint16_t *gr = channel_row(a, p, CISP_CH_GR, j), *gb = channel_row(a, p, CISP_CH_GB, j);

	for (int i = 0; i < a->cells_x; i++)
		g[i] = (uint16_t)((gr[2 * i] + gb[2 * i] + 1) >> 1);
}

static inline int wb_apply(int v, int gain)
{
	uint32_t r = ((uint32_t)v * (uint32_t)gain + 2048) >> 12;

	return r > 65535 ? 65535 : (int)r;
}

static inline int absd(int v)
{
	return v < 0 ? -v : v;
}

/* The AF sums of cell row @j, whose greens are @g with @up and @dn the rows above and below. */
static void af_row(struct cisp_stats_acc *a, int j, const uint16_t *up, const uint16_t *g, const uint16_t *dn)
{
	for (int k = 0; k < a->af_count; k++) {
		const struct af_cells *w = &a->af[k];
		uint64_t sum = 0;

		if (j < w->j0 || j >= w->j1)
			continue;
		for (int i = w->i0; i < w->i1; i++) {
			int l = g[mirror(i - 1, a->cells_x)], r = g[mirror(i + 1, a->cells_x)];

			sum += (uint64_t)(absd(2 * g[i] - l - r) + absd(2 * g[i] - up[i] - dn[i]));
		}
		a->af_sum[k] += sum;
		a->af_cells[k] += (uint32_t)(w->i1 - w->i0);
	}
}

uint32_t cisp_stats_cells_c(const uint16_t *row0, const uint16_t *row1, int cells, const uint8_t site[4],
			    const uint16_t wb[4], int saturation, uint16_t *const out[2], uint32_t *const column[4])
{
	const uint16_t *ch[4];
	uint32_t green = 0;

	for (int c = 0; c < 4; c++)
		ch[c] = (site[c] >> 1 ? row1 : row0) + (site[c] & 1);
	for (int i = 0; i < cells; i++) {
		int r = ch[CISP_CH_R][2 * i], gr = ch[CISP_CH_GR][2 * i], gb = ch[CISP_CH_GB][2 * i], b = ch[CISP_CH_B][2 * i];
		int g = (gr + gb + 1) >> 1;
		int y = (54 * wb_apply(r, wb[CISP_CH_R]) +
			 183 * ((wb_apply(gr, wb[CISP_CH_GR]) + wb_apply(gb, wb[CISP_CH_GB]) + 1) >> 1) +
			 19 * wb_apply(b, wb[CISP_CH_B]) + 128) >> 8;

		out[0][i] = (uint16_t)g;
		out[1][i] = (uint16_t)(y >> 8);
		if (r < saturation && gr < saturation && gb < saturation && b < saturation) {
			column[0][i] += (uint32_t)r;
			column[1][i] += (uint32_t)g;
			column[2][i] += (uint32_t)b;
			column[3][i]++;
		}
		green += (uint32_t)g;
	}
	return green;
}

void cisp_stats_run_sums_c(uint32_t *const v[4], const int *start, int runs, uint32_t (*sum)[4])
{
	for (int k = 0; k < runs; k++) {
		for (int c = 0; c < 4; c++) {
			uint32_t s = 0;

			for (int i = start[k]; i < start[k + 1]; i++) {
				s += v[c][i];
				v[c][i] = 0;
			}
			sum[k][c] = s;
		}
	}
}

/* Add the pending column sums to their zones (run sums by @sums, which clears the columns). */
static void flush_columns(struct cisp_stats_acc *a, cisp_stats_run_sums_fn sums)
{
	const int zrow = a->pending_zrow * a->zones_x;
	uint32_t run[CISP_STATS_MAX_ZONES][4];

	if (!a->pending)
		return;
	sums(a->column, a->run_start, a->zone_runs, run);
	for (int k = 0; k < a->zone_runs; k++) {
		const int z = zrow + a->run_zone[k];

		a->zone_sum[z][0] += run[k][0];
		a->zone_sum[z][1] += run[k][1];
		a->zone_sum[z][2] += run[k][2];
		a->zone_count[z] += run[k][3];
		a->zone_total[z] += (uint32_t)(a->run_start[k + 1] - a->run_start[k]) * (uint32_t)a->pending;
	}
	a->pending = 0;
}

void cisp_stats_acc_rows_with(struct cisp_stats_acc *a, const struct plane16 *bayer, int y0, int y1,
			      cisp_stats_cells_fn cells, cisp_stats_run_sums_fn sums)
{
	uint16_t *up = a->green, *dn = up + 2 * a->cells_x;
	uint16_t *const out[2] = { a->cells, a->cells + a->cells_x };

	for (int j = y0 / 2; j < y1 / 2; j++) {
		int zrow = j * a->zones_y / a->cells_y;
		int need_af = 0, i = 0;
		uint32_t row;

		if (a->pending && (zrow != a->pending_zrow || a->pending == a->max_pending))
			flush_columns(a, sums);
		/* The per-cell values and the zone columns first (a vector kernel may do this part), then the sums. */
		row = cells(plane_row(bayer, 2 * j), plane_row(bayer, 2 * j + 1), a->cells_x, a->site, a->wb, a->saturation,
			    out, a->column);
		a->pending_zrow = zrow;
		a->pending++;
		/* The parts' loop unrolled (-O3): one load and one increment a cell, no branch. */
		for (; i + HIST_PARTS <= a->cells_x; i += HIST_PARTS)
			for (int p = 0; p < HIST_PARTS; p++)
				a->hist[p][out[1][i + p]]++;
		for (int p = 0; i < a->cells_x; i++, p++)
			a->hist[p][out[1][i]]++;
		a->row_sum[j / a->row_group] += row;

		for (int k = 0; k < a->af_count; k++)
			need_af |= j >= a->af[k].j0 && j < a->af[k].j1;
		if (need_af) {
			/* One cell row above and below, reflected at the frame's top and bottom. */
			green_row(a, bayer, mirror(j - 1, a->cells_y), up);
			green_row(a, bayer, mirror(j + 1, a->cells_y), dn);
			af_row(a, j, up, out[0], dn);
		}
	}
	/* The sums are whole at the end of every call: the caller may merge or finish next. */
	flush_columns(a, sums);
}

void cisp_stats_acc_rows(struct cisp_stats_acc *a, const struct plane16 *bayer, int y0, int y1)
{
	cisp_stats_acc_rows_with(a, bayer, y0, y1, cisp_stats_cells_c, cisp_stats_run_sums_c);
}

void cisp_stats_acc_reset(struct cisp_stats_acc *a)
{
	memset(a->hist, 0, sizeof(a->hist));
	memset(a->zone_sum, 0, sizeof(a->zone_sum));
	memset(a->zone_count, 0, sizeof(a->zone_count));
	memset(a->zone_total, 0, sizeof(a->zone_total));
	memset(a->af_sum, 0, sizeof(a->af_sum));
	memset(a->af_cells, 0, sizeof(a->af_cells));
	memset(a->row_sum, 0, sizeof(uint64_t) * (size_t)a->row_count);
}

void cisp_stats_acc_merge(struct cisp_stats_acc *into, const struct cisp_stats_acc *from)
{
	for (int p = 0; p < HIST_PARTS; p++)
		for (int i = 0; i < 256; i++)
			into->hist[p][i] += from->hist[p][i];
	for (int z = 0; z < CISP_STATS_MAX_ZONES * CISP_STATS_MAX_ZONES; z++) {
		for (int c = 0; c < 3; c++)
			into->zone_sum[z][c] += from->zone_sum[z][c];
		into->zone_count[z] += from->zone_count[z];
		into->zone_total[z] += from->zone_total[z];
	}
	for (int k = 0; k < CISP_STATS_MAX_AF; k++) {
		into->af_sum[k] += from->af_sum[k];
		into->af_cells[k] += from->af_cells[k];
	}
	for (int r = 0; r < into->row_count; r++)
		into->row_sum[r] += from->row_sum[r];
}

void cisp_stats_acc_layout(const struct cisp_stats_acc *a, struct cisp_stats_layout *out)
{
	*out = (struct cisp_stats_layout){ a->cells_x, a->cells_y, a->zones_x, a->zones_y, a->saturation,
					   a->row_group, a->row_count, a->af_count };
	for (int k = 0; k < a->af_count; k++) {
		out->af[k][0] = a->af[k].i0;
		out->af[k][1] = a->af[k].i1;
		out->af[k][2] = a->af[k].j0;
		out->af[k][3] = a->af[k].j1;
	}
	memcpy(out->site, a->site, sizeof(a->site));
	memcpy(out->wb, a->wb, sizeof(a->wb));
}

void cisp_stats_acc_load(struct cisp_stats_acc *a, const struct cisp_stats_sums *s)
{
	cisp_stats_acc_reset(a);
	memcpy(a->hist[0], s->hist, sizeof(s->hist));
	memcpy(a->zone_sum, s->zone_sum, sizeof(s->zone_sum));
	memcpy(a->zone_count, s->zone_count, sizeof(s->zone_count));
	memcpy(a->zone_total, s->zone_total, sizeof(s->zone_total));
	memcpy(a->af_sum, s->af_sum, sizeof(s->af_sum));
	memcpy(a->af_cells, s->af_cells, sizeof(s->af_cells));
	memcpy(a->row_sum, s->row_sum, sizeof(uint64_t) * (size_t)a->row_count);
}

/* sum / n rounded half up; 0 when n is 0. */
static uint16_t mean(uint64_t sum, uint64_t n)
{
	return n ? (uint16_t)((sum + n / 2) / n) : 0;
}

void cisp_stats_header(struct cisp_stats *out, uint32_t width, uint32_t height)
{
	memset(out, 0, sizeof(*out));
	out->magic = CISP_STATS_MAGIC;
	out->version = CISP_STATS_VERSION;
	out->size = sizeof(*out);
	out->width = width;
	out->height = height;
}

void cisp_stats_acc_finish(const struct cisp_stats_acc *a, struct cisp_stats *out)
{
	cisp_stats_header(out, (uint32_t)a->width, (uint32_t)a->height);
	out->valid = CISP_STATS_HIST | CISP_STATS_ZONES | CISP_STATS_ROWS | (a->af_count ? CISP_STATS_AF : 0);
	for (int i = 0; i < 256; i++) {
		out->hist[i] = 0;
		for (int p = 0; p < HIST_PARTS; p++)
			out->hist[i] += a->hist[p][i];
	}

	out->zones_x = (uint16_t)a->zones_x;
	out->zones_y = (uint16_t)a->zones_y;
	for (int z = 0; z < a->zones_x * a->zones_y; z++) {
		struct cisp_stats_zone *o = &out->zone[z];

		o->r = mean(a->zone_sum[z][0], a->zone_count[z]);
		o->g = mean(a->zone_sum[z][1], a->zone_count[z]);
		o->b = mean(a->zone_sum[z][2], a->zone_count[z]);
		o->count = a->zone_count[z];
		o->total = a->zone_total[z];
	}

	out->af_count = (uint16_t)a->af_count;
	for (int k = 0; k < a->af_count; k++) {
		out->af[k].sharpness = a->af_sum[k];
		out->af[k].count = a->af_cells[k];
	}

	out->row_count = (uint16_t)a->row_count;
	out->row_group = (uint16_t)a->row_group;
	for (int r = 0; r < a->row_count; r++) {
		int rows = a->cells_y - r * a->row_group < a->row_group ? a->cells_y - r * a->row_group : a->row_group;

		out->row_mean[r] = mean(a->row_sum[r], (uint64_t)rows * a->cells_x);
	}
}

/* ---- the stage (stage.h): a tap, one accumulator per worker ---- */

struct stats_tap {
	struct cisp_stats_acc **acc;
	unsigned count;
	bool custom; /* made for a configuration other than the state's */
};

static void free_accumulators(struct stats_tap *t)
{
	for (unsigned i = 0; i < t->count; i++)
		cisp_stats_acc_free(t->acc[i]);
	t->count = 0;
}

/* The accumulators hold the configuration and the WB gains: made again when either changes. */
static int stats_prepare(void **coeffs, const struct stage_env *env)
{
	int ret = stage_alloc(coeffs, sizeof(struct stats_tap), "statistics");

	(void)env;
	if (!ret)
		free_accumulators(*coeffs);
	return ret;
}

static void stats_release(void *coeffs)
{
	struct stats_tap *t = coeffs;

	if (t) {
		free_accumulators(t);
		free(t->acc);
		free(t);
	}
}

static int stats_begin(const struct stage_ctx *c, const void *params, unsigned workers)
{
	/* The histogram applies the white-balance gains the frame will get. */
	static const struct cisp_wb_params unity = { .gain = { 4096, 4096, 4096, 4096 } };
	const struct cisp_wb_params *wb = c->state->enabled & CISP_BLOCK_BIT(CISP_BLOCK_WB) ? &c->state->wb : &unity;
	struct stats_tap *t = c->coeffs;

	if (params || t->custom)
		free_accumulators(t);
	t->custom = params != NULL;
	if (t->count < workers) {
		struct cisp_stats_acc **acc = realloc(t->acc, workers * sizeof(*acc));

		if (!acc)
			return cisp_error(-ENOMEM, "out of memory for statistics");
		t->acc = acc;
		for (; t->count < workers; t->count++) {
			int ret = cisp_stats_acc_create(&acc[t->count], params ? params : &c->state->stats, wb, c->cfa,
							c->width, c->height);

			if (ret)
				return ret;
		}
	}
	for (unsigned i = 0; i < workers; i++)
		cisp_stats_acc_reset(t->acc[i]);
	return 0;
}

static void stats_rows(const struct stage_ctx *c, unsigned worker, const struct plane16 *in, int y0, int y1)
{
	const struct stats_tap *t = c->coeffs;

	if (c->dsp)
		cisp_stats_acc_rows_with(t->acc[worker], in, y0, y1, c->dsp->stats_cells, c->dsp->stats_run_sums);
	else
		cisp_stats_acc_rows(t->acc[worker], in, y0, y1);
}

static void stats_finish(const struct stage_ctx *c, unsigned workers, struct cisp_stats *stats)
{
	const struct stats_tap *t = c->coeffs;

	for (unsigned i = 1; i < workers; i++)
		cisp_stats_acc_merge(t->acc[0], t->acc[i]);
	cisp_stats_acc_finish(t->acc[0], stats);
}

/* Reads one cell row (two rows) above and below its rows (AF sharpness). */
static const struct stage_tap stats_tap = { 2, stats_begin, stats_rows, stats_finish };

const struct cisp_stage cisp_stage_statistics = {
	.name = "statistics",
	.block = CISP_BLOCK_STATS,
	.reads = CISP_BLOCK_BIT(CISP_BLOCK_WB),
	.planes_in = 1,
	.planes_out = 1,
	.prepare = stats_prepare,
	.release = stats_release,
	.tap = &stats_tap,
};
