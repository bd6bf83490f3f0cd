/* SPDX-License-Identifier: MIT */
/*
 * Working planes of the ISP: 16-bit samples addressed by frame row.
 *
 * Every stage reads and writes planes of uint16_t. A plane may hold the whole
 * frame or only a window of its rows (a band, held in a ring of rows):
 * plane_row() maps a frame row to memory, so a stage written for whole
 * frames also runs on bands. A stage that runs in bands reaches every row
 * through it, never by stepping from another row by the stride. Stages
 * reflect coordinates at the frame edges with mirror(), which keeps the CFA
 * colour of a Bayer pixel because frame sizes are even.
 */
#ifndef CISP_CORE_PLANE_H
#define CISP_CORE_PLANE_H

#include <stddef.h>
#include <stdint.h>

struct plane16 {
	uint16_t *base;   /* memory of row first_row */
	ptrdiff_t stride; /* elements from one row to the next */
	int first_row;    /* frame row held at base */
	int width;        /* frame width */
	int height;       /* frame height (not the rows held) */
	int ring;         /* 0, or the rows of a ring: row y is at row (y - first_row) mod ring of base (y - first_row < 2 ring) */
};

/* Three planes of the same size: R, G, B or Y, Cb, Cr. */
struct rgb16 {
	struct plane16 c[3];
};

static inline uint16_t *plane_row(const struct plane16 *p, int y)
{
	int i = y - p->first_row;

	/* A ring (the banded executor's windows) wraps instead of moving the rows it keeps. */
	if (p->ring && i >= p->ring)
		i -= p->ring;
	return p->base + (ptrdiff_t)i * p->stride;
}

/* Reflect i into [0, n) without repeating the edge sample: -1 -> 1, n -> n-2. */
static inline int mirror(int i, int n)
{
	if (i < 0)
		i = -i;
	if (i >= n)
		i = 2 * (n - 1) - i;
	return i;
}

#endif /* CISP_CORE_PLANE_H */
