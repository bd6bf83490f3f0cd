/* SPDX-License-Identifier: MIT */
/*
 * The fast demosaic (docs/stages/demosaic_fast.md): green at red and blue
 * sites from a gradient-weighted blend of horizontal and vertical
 * Hamilton-Adams estimates (5x5), then red and blue from colour differences
 * to that green (3x3). Each band computes the green of its rows into the
 * output plane and of the row above and below it into @halo, then red and
 * blue row by row, so it needs no pass over the whole frame.
 */
#include "isp/demosaic.h"

static inline int32_t absdiff(int32_t a, int32_t b)
{
	return a > b ? a - b : b - a;
}

/* clamp(floor((v + 2^(s-1)) / 2^s), 0, 65535) without shifting negative values. */
static inline uint16_t round_clip(int32_t v, int s)
{
	if (v <= 0)
		return 0;
	v = (v + (1 << (s - 1))) >> s;
	return (uint16_t)(v > 65535 ? 65535 : v);
}

/* Forced inline: the per-pixel functions have two call sites each (edges, interior). */
#define PIXEL static inline __attribute__((always_inline))

/* The first red or blue column of row @y: 0 or 1. */
static int first_colour_column(enum cisp_cfa cfa, int y)
{
	enum cisp_channel ch = cisp_cfa_channel(cfa, 0, (unsigned)y);

	return ch == CISP_CH_R || ch == CISP_CH_B ? 0 : 1;
}

/*
 * Green at a red or blue site: r[0..4] are the Bayer rows y-2..y+2, x0..x4
 * the columns x-2..x+2 (reflected at the edges). Intermediates stay below
 * 2^27 in magnitude (see the document).
 */
PIXEL uint16_t green_at(const uint16_t *const r[5], int x0, int x1, int x2, int x3, int x4)
{
	int32_t v = r[2][x2];
	/* Laplacians of the centre colour along each direction. */
	int32_t lh = 2 * v - r[2][x0] - r[2][x4];
	int32_t lv = 2 * v - r[0][x2] - r[4][x2];
	/* Four times the Hamilton-Adams estimates. */
	int32_t gh = 2 * (r[2][x1] + r[2][x3]) + lh;
	int32_t gv = 2 * (r[1][x2] + r[3][x2]) + lv;
	/* Gradients over the 5x5 window, weighted towards the centre row / column. */
	int32_t dh = 4 * absdiff(r[2][x1], r[2][x3]) + 4 * (lh < 0 ? -lh : lh) +
		     2 * (absdiff(r[1][x1], r[1][x3]) + absdiff(r[3][x1], r[3][x3])) +
		     absdiff(r[1][x0], r[1][x2]) + absdiff(r[1][x2], r[1][x4]) + absdiff(r[3][x0], r[3][x2]) +
		     absdiff(r[3][x2], r[3][x4]);
	int32_t dv = 4 * absdiff(r[1][x2], r[3][x2]) + 4 * (lv < 0 ? -lv : lv) +
		     2 * (absdiff(r[1][x1], r[3][x1]) + absdiff(r[1][x3], r[3][x3])) +
		     absdiff(r[0][x1], r[2][x1]) + absdiff(r[2][x1], r[4][x1]) + absdiff(r[0][x3], r[2][x3]) +
		     absdiff(r[2][x3], r[4][x3]);
	/*
	 * The weight of the horizontal estimate in eighths, round(8 dv^2 / (dh^2 + dv^2)),
	 * found by comparing dv/dh with sqrt(t / (1 - t)) for t = 1/16, 3/16, .., 15/16
	 * (in 1/64: 16, 31, 43, 56 and their inverses). The two halves use >= and <
	 * so that swapping dh and dv gives exactly 8 - level.
	 */
	int32_t level = (64 * dv >= 16 * dh) + (64 * dv >= 31 * dh) + (64 * dv >= 43 * dh) + (64 * dv >= 56 * dh) +
			(64 * dh < 56 * dv) + (64 * dh < 43 * dv) + (64 * dh < 31 * dv) + (64 * dh < 16 * dv);

	return round_clip(gh * level + gv * (8 - level), 5);
}

void cisp_demosaic_green_range_c(const uint16_t *const r[5], uint16_t *dst, int w, int nx, int x0, int x1)
{
	for (int x = x0; x < x1; x++) {
		if ((x & 1) != nx)
			dst[x] = r[2][x];
		else
			dst[x] = green_at(r, mirror(x - 2, w), mirror(x - 1, w), x, mirror(x + 1, w), mirror(x + 2, w));
	}
}

void cisp_demosaic_green_row_c(const uint16_t *const r[5], uint16_t *dst, int w, int nx)
{
	for (int x = 1 - nx; x < w; x += 2)
		dst[x] = r[2][x];
	/* The first and last red or blue columns reach past the edges. */
	dst[nx] = green_at(r, mirror(nx - 2, w), mirror(nx - 1, w), nx, nx + 1, nx + 2);
	for (int x = nx + 2; x < w - 2; x += 2)
		dst[x] = green_at(r, x - 2, x - 1, x, x + 1, x + 2);
	dst[w - 2 + nx] = green_at(r, w - 4 + nx, w - 3 + nx, w - 2 + nx, mirror(w - 1 + nx, w), mirror(w + nx, w));
}

int cisp_demosaic_first_colour(enum cisp_cfa cfa, int y)
{
	return first_colour_column(cfa, y);
}

/* Green of Bayer row @y (reflected into the frame) into @dst. */
static void green_row(const struct plane16 *bayer, enum cisp_cfa cfa, int y, uint16_t *dst)
{
	const int h = bayer->height;
	const uint16_t *r[5];

	y = mirror(y, h);
	for (int k = 0; k < 5; k++)
		r[k] = plane_row(bayer, mirror(y + k - 2, h));
	cisp_demosaic_green_row_c(r, dst, bayer->width, first_colour_column(cfa, y));
}

/*
 * Red and blue at column x (neighbours xl, xr) of a row, from the Bayer rows
 * b[0..2] (y-1..y+1) and their green g[0..2]. At a green site, each missing
 * colour is the green plus the mean colour difference (C - G) of its two
 * neighbours of that colour; at a red or blue site, the other colour is the
 * green plus the mean difference of the four diagonal neighbours.
 */
PIXEL void rb_at(const uint16_t *const b[3], const uint16_t *const g[3], int x, int xl, int xr, int colour_site,
		 uint16_t *row_c, uint16_t *other_c)
{
	if (colour_site) {
		row_c[x] = b[1][x];
		other_c[x] = round_clip(4 * g[1][x] + b[0][xl] + b[0][xr] + b[2][xl] + b[2][xr] - g[0][xl] - g[0][xr] -
						g[2][xl] - g[2][xr],
					2);
	} else {
		row_c[x] = round_clip(2 * g[1][x] + b[1][xl] + b[1][xr] - g[1][xl] - g[1][xr], 1);
		other_c[x] = round_clip(2 * g[1][x] + b[0][x] + b[2][x] - g[0][x] - g[2][x], 1);
	}
}

void cisp_demosaic_rb_range_c(const uint16_t *const b[3], const uint16_t *const g[3], uint16_t *row_c,
			      uint16_t *other_c, int w, int nx, int x0, int x1)
{
	for (int x = x0; x < x1; x++)
		rb_at(b, g, x, mirror(x - 1, w), mirror(x + 1, w), (x & 1) == nx, row_c, other_c);
}

void cisp_demosaic_rb_row_c(const uint16_t *const b[3], const uint16_t *const g[3], uint16_t *row_c,
			    uint16_t *other_c, int w, int nx)
{
	/* The edge columns reflect: column -1 is 1, column w is w-2. */
	rb_at(b, g, 0, 1, 1, nx == 0, row_c, other_c);
	for (int x = 1 + nx; x < w - 1; x += 2)
		rb_at(b, g, x, x - 1, x + 1, 0, row_c, other_c);
	for (int x = 2 - nx; x < w - 1; x += 2)
		rb_at(b, g, x, x - 1, x + 1, 1, row_c, other_c);
	rb_at(b, g, w - 1, w - 2, w - 2, nx == 1, row_c, other_c);
}

int cisp_demosaic_red_first(enum cisp_cfa cfa, int y)
{
	int nx = first_colour_column(cfa, y);

	return cisp_cfa_channel(cfa, (unsigned)nx, (unsigned)y) == CISP_CH_R;
}

/* Red and blue of row @y, given the green g[0..2] of rows y-1..y+1. */
static void rb_row(const struct plane16 *bayer, enum cisp_cfa cfa, int y, const uint16_t *const g[3],
		   const struct rgb16 *out)
{
	const int h = bayer->height;
	const uint16_t *b[3];
	int c = cisp_demosaic_red_first(cfa, y) ? 0 : 2; /* the row's own colour */

	for (int k = 0; k < 3; k++)
		b[k] = plane_row(bayer, mirror(y + k - 1, h));
	cisp_demosaic_rb_row_c(b, g, plane_row(&out->c[c], y), plane_row(&out->c[2 - c], y), bayer->width,
			       first_colour_column(cfa, y));
}

void cisp_demosaic_fast_rows(const struct plane16 *bayer, enum cisp_cfa cfa, const struct rgb16 *out, int y0,
			     int y1, uint16_t *halo)
{
	const struct plane16 *gp = &out->c[1];
	uint16_t *above = halo, *below = halo + bayer->width;

	green_row(bayer, cfa, y0 - 1, above);
	green_row(bayer, cfa, y0, plane_row(gp, y0));
	for (int y = y0; y < y1; y++) {
		const uint16_t *g[3];
		uint16_t *next = y + 1 < y1 ? plane_row(gp, y + 1) : below;

		green_row(bayer, cfa, y + 1, next);
		g[0] = y > y0 ? plane_row(gp, y - 1) : above;
		g[1] = plane_row(gp, y);
		g[2] = next;
		rb_row(bayer, cfa, y, g, out);
	}
}
