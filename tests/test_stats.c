/* SPDX-License-Identifier: MIT */
/*
 * Statistics at the stats tap: histogram, AE/AWB zones, AF sharpness and
 * flicker row means, with answers computed here from the cell definitions,
 * and order independence of the per-worker accumulators.
 */
#include <errno.h>
#include <stdlib.h>

#include <cisp/error.h>
#include <cisp/stats.h>

#include "isp/dsp.h"
#include "isp/statistics.h"

#include "test.h"

static struct plane16 plane_new(int w, int h)
{
	struct plane16 p = { calloc((size_t)w * h, sizeof(uint16_t)), w, 0, w, h };

	if (!p.base)
		abort();
	return p;
}

/* Pixel of channel @ch (0 R, 1 Gr, 2 Gb, 3 B) in cell (i, j), from the order's name. */
static uint16_t *cell_px(const struct plane16 *p, enum cisp_cfa cfa, int ch, int i, int j)
{
	static const char *const names[] = { "RGGB", "GRBG", "GBRG", "BGGR" };
	const char *n = names[cfa];
	int red_row = n[0] == 'R' || n[1] == 'R' ? 0 : 1;

	for (int s = 0; s < 4; s++) {
		char c = n[s];
		int k = c == 'R' ? 0 : c == 'B' ? 3 : (s >> 1) == red_row ? 1 : 2;

		if (k == ch)
			return plane_row(p, 2 * j + (s >> 1)) + 2 * i + (s & 1);
	}
	abort();
}

static void set_cell(const struct plane16 *p, enum cisp_cfa cfa, int i, int j, int r, int gr, int gb, int b)
{
	*cell_px(p, cfa, 0, i, j) = (uint16_t)r;
	*cell_px(p, cfa, 1, i, j) = (uint16_t)gr;
	*cell_px(p, cfa, 2, i, j) = (uint16_t)gb;
	*cell_px(p, cfa, 3, i, j) = (uint16_t)b;
}

static struct cisp_stats_params default_cfg(void)
{
	struct cisp_stats_params c = { .zones_x = 16, .zones_y = 12, .saturation = 65000 };

	return c;
}

/* Whole frame through one accumulator. */
static struct cisp_stats *stats_of(const struct plane16 *f, const struct cisp_stats_params *cfg,
				   const struct cisp_wb_params *wb, enum cisp_cfa cfa)
{
	struct cisp_stats *s = calloc(1, sizeof(*s));
	struct cisp_stats_acc *a;

	if (!s)
		abort();
	CHECK_EQ(cisp_stats_acc_create(&a, cfg, wb, cfa, f->width, f->height), 0);
	if (!a)
		return s;
	cisp_stats_acc_rows(a, f, 0, f->height);
	cisp_stats_acc_finish(a, s);
	cisp_stats_acc_free(a);
	return s;
}

static int wb(int v, int gain)
{
	int r = (v * gain + 2048) / 4096;

	return r > 65535 ? 65535 : r;
}

static int luma(int r, int gr, int gb, int b, const struct cisp_wb_params *g)
{
	int gg = (wb(gr, g->gain[1]) + wb(gb, g->gain[2]) + 1) / 2;

	return (54 * wb(r, g->gain[0]) + 183 * gg + 19 * wb(b, g->gain[3]) + 128) / 256;
}

TEST(stats_zones_colours_and_saturation)
{
	/* 64x48: 32x24 cells, 4x3 zones of 8x8 cells, each zone its own colour. */
	struct cisp_stats_params cfg = default_cfg();
	struct cisp_wb_params g = { .gain = { 8192, 4096, 4096, 6144 } };

	cfg.zones_x = 4;
	cfg.zones_y = 3;
	for (int cfa = 0; cfa < 4; cfa++) {
		struct plane16 f = plane_new(64, 48);
		uint32_t hist[256] = { 0 };

		for (int j = 0; j < 24; j++)
			for (int i = 0; i < 32; i++) {
				int zx = i / 8, zy = j / 8;
				int r = 1000 + 1000 * zx + (zx == 0 && zy == 0 ? i & 1 : 0); /* zone 0: 1000/1001 */
				int gr = 5000 + 300 * zy, gb = gr + 2, b = 20000 - 4000 * zy + 7 * zx;

				if (zx == 1 && zy == 1 && i >= 10 && i < 14 && j >= 10 && j < 12)
					gb = 65000; /* 8 saturated cells: one sample at the limit is enough */
				if (zx == 3 && zy == 2 && i == 31 && j == 23)
					r = 64999; /* just below: kept */
				set_cell(&f, cfa, i, j, r, gr, gb, b);
				hist[luma(r, gr, gb, b, &g) >> 8]++;
			}
		struct cisp_stats *s = stats_of(&f, &cfg, &g, cfa);

		CHECK_EQ(s->magic, CISP_STATS_MAGIC);
		CHECK_EQ(s->version, CISP_STATS_VERSION);
		CHECK_EQ(s->size, sizeof(struct cisp_stats));
		CHECK_EQ(s->valid, CISP_STATS_HIST | CISP_STATS_ZONES | CISP_STATS_ROWS);
		CHECK_EQ(s->width, 64);
		CHECK_EQ(s->height, 48);
		CHECK_EQ(s->zones_x, 4);
		CHECK_EQ(s->zones_y, 3);
		CHECK_EQ(memcmp(s->hist, hist, sizeof(hist)), 0);
		for (int zy = 0; zy < 3; zy++)
			for (int zx = 0; zx < 4; zx++) {
				const struct cisp_stats_zone *z = &s->zone[zy * 4 + zx];
				int sat = zx == 1 && zy == 1 ? 8 : 0;

				CHECK_EQ(z->total, 64);
				CHECK_EQ(z->count, 64 - sat);
				/* Zone 0 averages 32 x 1000 and 32 x 1001: 1000.5 rounds up. */
				CHECK_EQ(z->r, zx == 3 && zy == 2 ? (63 * 4000 + 64999 + 32) / 64
								  : 1000 + 1000 * zx + (zx == 0 && zy == 0));
				CHECK_EQ(z->g, 5000 + 300 * zy + 1); /* (2 gr + 2 + 1) >> 1 */
				CHECK_EQ(z->b, 20000 - 4000 * zy + 7 * zx);
				CHECK_EQ(z->reserved, 0);
			}
		/* Zones past zones_x * zones_y are left zero. */
		CHECK_EQ(s->zone[12].total, 0);
		free(s);
		free(f.base);
	}
}

TEST(stats_zone_assignment_and_empty_zone)
{
	/* 32 cell columns into 5 zones: zone = i * 5 / 32 gives 7, 6, 7, 6, 6 columns. */
	struct cisp_stats_params cfg = default_cfg();
	struct plane16 f = plane_new(64, 32);
	static const int cols[5] = { 7, 6, 7, 6, 6 };

	cfg.zones_x = 5;
	cfg.zones_y = 1;
	cfg.saturation = 0; /* every cell counts as saturated: means 0 */
	struct cisp_stats *s = stats_of(&f, &cfg, NULL, CISP_CFA_RGGB);
	for (int z = 0; z < 5; z++) {
		CHECK_EQ(s->zone[z].total, cols[z] * 16);
		CHECK_EQ(s->zone[z].count, 0);
		CHECK_EQ(s->zone[z].g, 0);
	}
	CHECK_EQ(s->hist[0], 32 * 16);
	free(s);
	free(f.base);
}

/*
 * One zone of 512 x 512 cells near full scale, in one call: the zone's sums pass 2^32 many times
 * over, so the column sums must be folded into them before a run's 32-bit sum wraps.
 */
TEST(stats_zone_sums_past_32_bits)
{
	struct cisp_stats_params cfg = { .zones_x = 1, .zones_y = 1, .saturation = 65535 };
	struct plane16 f = plane_new(1024, 1024);
	const struct cisp_dsp *d = cisp_dsp();
	struct cisp_stats *s = calloc(1, sizeof(*s));

	if (!s)
		abort();
	for (int y = 0; y < f.height; y++)
		for (int x = 0; x < f.width; x++)
			plane_row(&f, y)[x] = (uint16_t)(65534 - (x & 1));
	for (int simd = 0; simd < 2; simd++) {
		struct cisp_stats_acc *a;

		CHECK_EQ(cisp_stats_acc_create(&a, &cfg, NULL, CISP_CFA_RGGB, f.width, f.height), 0);
		if (!a)
			break;
		if (simd)
			cisp_stats_acc_rows_with(a, &f, 0, f.height, d->stats_cells, d->stats_run_sums);
		else
			cisp_stats_acc_rows(a, &f, 0, f.height);
		cisp_stats_acc_finish(a, s);
		cisp_stats_acc_free(a);
		CHECK_EQ(s->zone[0].count, 512 * 512);
		CHECK_EQ(s->zone[0].total, 512 * 512);
		CHECK_EQ(s->zone[0].r, 65534);
		CHECK_EQ(s->zone[0].g, 65534); /* (65533 + 65534 + 1) >> 1 */
		CHECK_EQ(s->zone[0].b, 65533);
	}
	free(s);
	free(f.base);
}

TEST(stats_row_means_banding)
{
	/* 40x60: 30 cell rows, green 8000 + 100 * (j % 7) with a 4-row banding on red only. */
	struct cisp_stats_params cfg = default_cfg();
	struct plane16 f = plane_new(40, 60);

	for (int j = 0; j < 30; j++)
		for (int i = 0; i < 20; i++) {
			int g = 8000 + 100 * (j % 7);

			set_cell(&f, CISP_CFA_GBRG, i, j, 3000 + 500 * (j % 4), g - (i & 1), g + (i & 1), 100);
		}
	for (int group = 0; group <= 7; group += 7) {
		cfg.row_group = (uint16_t)group;
		struct cisp_stats *s = stats_of(&f, &cfg, NULL, CISP_CFA_GBRG);

		if (group == 0) {
			/* Automatic: one cell row per entry. */
			CHECK_EQ(s->row_group, 1);
			CHECK_EQ(s->row_count, 30);
			for (int j = 0; j < 30; j++)
				CHECK_EQ(s->row_mean[j], 8000 + 100 * (j % 7));
		} else {
			/* Groups of 7: the first four of 0,100,..,600 = 300; the last holds rows 28, 29. */
			CHECK_EQ(s->row_group, 7);
			CHECK_EQ(s->row_count, 5);
			for (int r = 0; r < 4; r++)
				CHECK_EQ(s->row_mean[r], 8300);
			CHECK_EQ(s->row_mean[4], 8050); /* (8000 + 8100) / 2 */
			CHECK_EQ(s->row_mean[5], 0);
		}
		free(s);
	}
	/* A group larger than the frame: one entry over everything. */
	cfg.row_group = 1000;
	struct cisp_stats *s = stats_of(&f, &cfg, NULL, CISP_CFA_GBRG);
	CHECK_EQ(s->row_group, 30);
	CHECK_EQ(s->row_count, 1);
	/* 4 whole periods (2100 per 7 rows) and rows 28, 29: (4 * 2100 + 100) / 30 = 283.3 */
	CHECK_EQ(s->row_mean[0], 8283);
	free(s);
	free(f.base);
}

TEST(stats_row_group_automatic_for_tall_frames)
{
	/* 8196 rows are 4098 cell rows: more than CISP_STATS_MAX_ROWS, so groups of 2. */
	struct cisp_stats_params cfg = default_cfg();
	struct plane16 f = plane_new(16, 8196);

	for (int j = 0; j < 4098; j++)
		for (int i = 0; i < 8; i++)
			set_cell(&f, CISP_CFA_RGGB, i, j, 0, j & 1 ? 1001 : 1000, 1000, 0);
	struct cisp_stats *s = stats_of(&f, &cfg, NULL, CISP_CFA_RGGB);
	CHECK_EQ(s->row_group, 2);
	CHECK_EQ(s->row_count, 2049);
	/* Odd rows: green (1001 + 1000 + 1) >> 1 = 1001; a pair averages 1000.5 -> 1001. */
	CHECK_EQ(s->row_mean[0], 1001);
	CHECK_EQ(s->row_mean[2048], 1001);
	free(s);
	free(f.base);
}

/* Green of every cell from @fn, red and blue 0. */
static void fill_green(const struct plane16 *f, int (*fn)(int i, int j))
{
	for (int j = 0; j < f->height / 2; j++)
		for (int i = 0; i < f->width / 2; i++)
			set_cell(f, CISP_CFA_GRBG, i, j, 0, fn(i, j), fn(i, j), 0);
}

static int checker(int i, int j)
{
	return (i + j) & 1 ? 30000 : 10000;
}

static int checker_blurred(int i, int j)
{
	/* The checkerboard through a 3x3 box filter: 4/9 and 5/9 mixes. */
	return (i + j) & 1 ? (5 * 30000 + 4 * 10000) / 9 : (5 * 10000 + 4 * 30000) / 9;
}

static int parabola(int i, int j)
{
	(void)j;
	return 10 * i * i;
}

TEST(stats_af_sharpness)
{
	struct cisp_stats_params cfg = default_cfg();
	struct plane16 f = plane_new(64, 48); /* 32x24 cells */

	cfg.af_count = 3;
	cfg.af[0] = (struct cisp_stats_window){ 0, 0, 64, 48 };  /* whole frame: 768 cells */
	cfg.af[1] = (struct cisp_stats_window){ 3, 5, 10, 8 };   /* odd corner: cells 2..5 x 3..5 */
	cfg.af[2] = (struct cisp_stats_window){ 56, 40, 8, 8 };  /* bottom-right corner */

	/* Checkerboard: every cell differs by 20000 from all 4 neighbours, edges reflect alike. */
	fill_green(&f, checker);
	struct cisp_stats *sharp = stats_of(&f, &cfg, NULL, CISP_CFA_GRBG);
	CHECK_EQ(sharp->valid, CISP_STATS_HIST | CISP_STATS_ZONES | CISP_STATS_ROWS | CISP_STATS_AF);
	CHECK_EQ(sharp->af_count, 3);
	CHECK_EQ(sharp->af[0].count, 768);
	CHECK_EQ(sharp->af[0].sharpness, 768ull * 80000);
	CHECK_EQ(sharp->af[1].count, 12);
	CHECK_EQ(sharp->af[1].sharpness, 12ull * 80000);
	CHECK_EQ(sharp->af[2].count, 16);

	fill_green(&f, checker_blurred);
	struct cisp_stats *soft = stats_of(&f, &cfg, NULL, CISP_CFA_GRBG);
	CHECK(sharp->af[0].sharpness > 8 * soft->af[0].sharpness);
		/* 190000 / 9 = 21111 and 170000 / 9 = 18888: 4 x 2223 per cell. */
	CHECK_EQ(soft->af[0].sharpness, 768ull * 4 * (21111 - 18888));

	/*
	 * A parabola across: second difference 20 everywhere; at column 0 the
	 * reflected neighbour gives |0 - 10 - 10| = 20 as well; at column 31,
	 * |2 * 9610 - 2 * 9000| = 1220. Neighbours outside a window are read.
	 */
	fill_green(&f, parabola);
	struct cisp_stats *par = stats_of(&f, &cfg, NULL, CISP_CFA_GRBG);
	CHECK_EQ(par->af[1].sharpness, 12 * 20);
	CHECK_EQ(par->af[2].sharpness, 4 * (3 * 20 + 1220));
	CHECK_EQ(par->af[0].sharpness, 24 * (31 * 20 + 1220));
	free(sharp);
	free(soft);
	free(par);
	free(f.base);
}

TEST(stats_merge_order_and_bands)
{
	/* Bands into separate accumulators, merged in two orders: identical to one pass. */
	struct cisp_stats_params cfg = default_cfg();
	struct cisp_wb_params g = { .gain = { 7000, 4096, 4100, 9000 } };
	struct plane16 f = plane_new(96, 70);

	cfg.zones_x = 7;
	cfg.zones_y = 5;
	cfg.row_group = 3;
	cfg.af_count = 2;
	cfg.af[0] = (struct cisp_stats_window){ 10, 9, 50, 40 };
	cfg.af[1] = (struct cisp_stats_window){ 0, 0, 96, 70 };
	for (int y = 0; y < 70; y++)
		for (int x = 0; x < 96; x++)
			plane_row(&f, y)[x] = (uint16_t)test_rand();
	struct cisp_stats *whole = stats_of(&f, &cfg, &g, CISP_CFA_BGGR);
	static const int cuts[] = { 0, 2, 10, 12, 36, 50, 70 };
	struct cisp_stats_acc *acc[6];
	struct cisp_stats *s = calloc(2, sizeof(*s));

	for (int order = 0; order < 2; order++) {
		for (int b = 0; b < 6; b++) {
			CHECK_EQ(cisp_stats_acc_create(&acc[b], &cfg, &g, CISP_CFA_BGGR, 96, 70), 0);
			/* Each band from a buffer holding only its rows and one cell row around. */
			int y0 = cuts[b], y1 = cuts[b + 1], lo = y0 ? y0 - 2 : 0, hi = y1 < 70 ? y1 + 2 : 70;
			struct plane16 band = plane_new(96, hi - lo);

			band.first_row = lo;
			band.height = 70;
			memcpy(band.base, plane_row(&f, lo), (size_t)96 * 2 * (hi - lo));
			cisp_stats_acc_rows(acc[b], &band, y0, y1);
			free(band.base);
		}
		/* First to last into band 0, or last to first into band 5. */
		for (int b = 1; b < 6; b++) {
			if (order)
				cisp_stats_acc_merge(acc[5], acc[5 - b]);
			else
				cisp_stats_acc_merge(acc[0], acc[b]);
		}
		cisp_stats_acc_finish(order ? acc[5] : acc[0], &s[order]);
		for (int b = 0; b < 6; b++)
			cisp_stats_acc_free(acc[b]);
	}
	CHECK_EQ(memcmp(whole, &s[0], sizeof(*whole)), 0);
	CHECK_EQ(memcmp(whole, &s[1], sizeof(*whole)), 0);
	CHECK(whole->af[0].sharpness > 0);
	CHECK_EQ(whole->af[0].count, 25 * 19); /* cells 5..29 x 5..23 */
	free(s);
	free(whole);
	free(f.base);
}

TEST(stats_bad_config)
{
	struct cisp_stats_params cfg = default_cfg();
	struct cisp_stats_acc *a = (void *)1;

	cfg.zones_x = 0;
	CHECK_ERR(cisp_stats_acc_create(&a, &cfg, NULL, CISP_CFA_RGGB, 64, 48), -EINVAL, "zones 0x12");
	CHECK(a == NULL);
	cfg = default_cfg();
	cfg.zones_y = 33;
	CHECK_ERR(cisp_stats_acc_create(&a, &cfg, NULL, CISP_CFA_RGGB, 64, 48), -EINVAL, "zones 16x33");
	cfg = default_cfg();
	cfg.af_count = 9;
	CHECK_ERR(cisp_stats_acc_create(&a, &cfg, NULL, CISP_CFA_RGGB, 64, 48), -EINVAL, "af_count 9");
	cfg.af_count = 2;
	cfg.af[0] = (struct cisp_stats_window){ 0, 0, 8, 8 };
	cfg.af[1] = (struct cisp_stats_window){ 60, 0, 8, 8 };
	CHECK_ERR(cisp_stats_acc_create(&a, &cfg, NULL, CISP_CFA_RGGB, 64, 48), -EINVAL,
		  "AF window 1 (60,0 8x8) is outside the 64x48 frame");
	cfg.af[1] = (struct cisp_stats_window){ 0, 0, 8, 7 };
	CHECK_ERR(cisp_stats_acc_create(&a, &cfg, NULL, CISP_CFA_RGGB, 64, 48), -EINVAL, "smaller than 8x8");
	cfg.af_count = 0;
	CHECK_ERR(cisp_stats_acc_create(&a, &cfg, NULL, CISP_CFA_RGGB, 63, 48), -EINVAL, "frame 63x48");
}
