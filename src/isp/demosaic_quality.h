/* SPDX-License-Identifier: MIT */
/*
 * The quality demosaic's three passes, for demosaic_quality.c, its tests and
 * optimised versions. docs/stages/demosaic_quality.md defines the arithmetic.
 *
 * Pass 1 writes two greens on every pixel, from colour differences and from
 * the green samples alone; pass 2 reads them (rows above and below its own)
 * and writes their blend, the green; pass 3 reads that green plane and
 * writes red and blue. Each pass computes any rows [y0, y1) with the same
 * result whatever the split into bands.
 */
#ifndef CISP_ISP_DEMOSAIC_QUALITY_H
#define CISP_ISP_DEMOSAIC_QUALITY_H

#include <stddef.h>
#include <stdint.h>

#include <cisp/format.h>

#include "core/plane.h"

/* Bayer rows pass 1 reads above and below an output row (reflected at the frame edges). */
#define CISP_DMQ_GREEN_RADIUS 7
/* Rows of the two greens and of Bayer pass 2 reads above and below an output row (reflected). */
#define CISP_DMQ_BLEND_RADIUS 6
/* Green and Bayer rows pass 3 reads above and below an output row (reflected). */
#define CISP_DMQ_COLOUR_RADIUS 6

/*
 * Bytes of scratch any pass needs for a frame @width wide: the C passes for
 * up to @rows output rows a call, the vector ones for any number (they keep
 * rings of rows, and run the C ones CISP_DMQ_NARROW_ROWS rows at a time on
 * frames too narrow for their vectors).
 */
size_t cisp_dmq_scratch_size(int width, int rows);

/* Rows of the C passes a call of a vector pass runs at a time on a narrow frame. */
#define CISP_DMQ_NARROW_ROWS 16
/* Scratch rows the vector passes keep (the colour pass's rings and rows, the most). */
#define CISP_DMQ_VECTOR_ROWS 66

/*
 * Pass 1: of rows [y0, y1), the colour-difference green into @gc and the
 * green from the green samples alone into @g2 (both the Bayer sample on
 * green sites).
 */
void cisp_dmq_green_rows(const struct plane16 *bayer, enum cisp_cfa cfa, const struct plane16 *gc,
			 const struct plane16 *g2, int y0, int y1, void *scratch);

/* Pass 2: the green of rows [y0, y1) into @g, from @bayer and the planes @gc and @g2 of pass 1. */
void cisp_dmq_blend_rows(const struct plane16 *bayer, const struct plane16 *gc, const struct plane16 *g2,
			 enum cisp_cfa cfa, const struct plane16 *g, int y0, int y1, void *scratch);

/*
 * Pass 3: red and blue of rows [y0, y1) into out->c[0] and out->c[2], from
 * @bayer and the green plane @g of pass 2. @false_colour is the suppression
 * strength, 0..256 (Q8.8).
 */
void cisp_dmq_colour_rows(const struct plane16 *bayer, const struct plane16 *g, enum cisp_cfa cfa,
			  unsigned false_colour, const struct rgb16 *out, int y0, int y1, void *scratch);

/*
 * The layout of the scratch: rows of int32 with CISP_DMQ_PAD columns each
 * side (filled by reflection), width + 2 * CISP_DMQ_PAD apart. The C passes:
 * pass 1, rows of dh for frame rows [y0 - 1, y1 + 1), of dv for
 * [y0 - 5, y1 + 5), of CV for [y0 - 4, y1 + 4), one row of CH; pass 2, rows
 * of the errors e_cd and e_own for [y0 - 4, y1 + 4), then two rows of their
 * sums over 5 rows; pass 3, rows of KR, KB and green for [y0 - 5, y1 + 5),
 * of e_cd and e_own for [y0 - 4, y1 + 4), then four rows of their sums over
 * 5 and 4 rows. The vector passes keep only the rows their steps read at
 * once, in rings (simd_demosaic_quality.h).
 */
#define CISP_DMQ_PAD 8

/* The tables SIG and SOFT of the document (entries 0..71 and 0..35). */
extern const uint8_t cisp_dmq_sig_table[72];
extern const uint8_t cisp_dmq_soft_table[36];

/* Parity of the columns of the red and blue sites on frame row y (mirror() keeps it). */
static inline int cisp_dmq_rb_column(enum cisp_cfa cfa, int y)
{
	int rx = cfa == CISP_CFA_GRBG || cfa == CISP_CFA_BGGR;
	int ry = cfa == CISP_CFA_GBRG || cfa == CISP_CFA_BGGR;

	return (rx + ry + y) & 1;
}

/* Whether frame row y holds red (rather than blue) sites. */
static inline int cisp_dmq_red_row(enum cisp_cfa cfa, int y)
{
	int ry = cfa == CISP_CFA_GBRG || cfa == CISP_CFA_BGGR;

	return ((y - ry) & 1) == 0;
}

/*
 * dh (green minus the other colour along the row) of the Bayer row @r of
 * width @w, columns [x0, x1), reflecting at the row's ends; rbx is the parity
 * of its red/blue columns.
 */
void cisp_dmq_diff_h_range(const uint16_t *r, int w, int rbx, int32_t *out, int x0, int x1);
/* Fill the CISP_DMQ_PAD columns on each side of a scratch row of @w values by reflection. */
void cisp_dmq_pad_row(int32_t *r, int w);
/*
 * The green from the green samples alone at the red or blue site (x, y): the
 * four neighbours, @we the weight (0..256) of the east one against the west,
 * @wn of the north one against the south, @wh of the row against the column.
 */
int32_t cisp_dmq_green_only(const struct plane16 *bayer, int x, int y, int32_t we, int32_t wn, int32_t wh);
/*
 * The leave-one-out errors e_cd and e_own of columns [x0, x1) of a row whose
 * red/blue columns have parity @rbx, 0 on its green columns: Bayer rows and
 * green rows mr, gr at y - 2, y, y + 2, reflecting at the row's ends.
 */
void cisp_dmq_loo_range(const uint16_t *const mr[3], const uint16_t *const gr[3], int w, int rbx, int32_t *ecd,
			int32_t *eown, int x0, int x1);

/* The leave-one-out errors e_cd and e_own of the red or blue site x, as cisp_dmq_loo_range(). */
static inline void cisp_dmq_loo_site(const uint16_t *const mr[3], const uint16_t *const gr[3], int w, int x,
				     int32_t *ecd, int32_t *eown)
{
	const int xl = mirror(x - 2, w), xr = mirror(x + 2, w);
	const int32_t kn = gr[1][xl] - mr[1][xl] + gr[1][xr] - mr[1][xr] + gr[0][x] - mr[0][x] + gr[2][x] - mr[2][x];
	const int32_t mn = mr[1][xl] + mr[1][xr] + mr[0][x] + mr[2][x];
	const int32_t cd = 4 * (gr[1][x] - mr[1][x]) - kn, own = 4 * mr[1][x] - mn;

	*ecd = cd < 0 ? -cd : cd;
	*eown = own < 0 ? -own : own;
}

#endif
