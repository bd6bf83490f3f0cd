/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "dpc.h"
#include "isp/dsp.h"
#include "isp/stage.h"

static inline int max2(int a, int b)
{
	return a > b ? a : b;
}

static inline int min2(int a, int b)
{
	return a < b ? a : b;
}

/* The mean of the middle two of four samples, rounded half up. */
static inline uint16_t mid4(int a, int b, int c, int d)
{
	int hi = max2(max2(a, b), max2(c, d)), lo = min2(min2(a, b), min2(c, d));

	return (uint16_t)((a + b + c + d - hi - lo + 1) >> 1);
}

/* One pixel: @l and @r are the same-colour columns left and right of @x. */
static inline uint16_t dpc_pixel(const uint16_t *up, const uint16_t *mid, const uint16_t *dn, int x, int l,
				 int r, int threshold)
{
	int p = mid[x];
	int hi = max2(max2(max2(up[l], up[x]), max2(up[r], mid[l])), max2(max2(mid[r], dn[l]), max2(dn[x], dn[r])));
	int lo = min2(min2(min2(up[l], up[x]), min2(up[r], mid[l])), min2(min2(mid[r], dn[l]), min2(dn[x], dn[r])));

	if (p - hi > threshold || lo - p > threshold)
		return mid4(up[x], dn[x], mid[l], mid[r]);
	return (uint16_t)p;
}

void cisp_dpc_prepare(struct cisp_dpc_coeffs *c, const struct cisp_dpc_params *p)
{
	c->threshold = p->threshold;
	c->pixels = p->pixels;
	c->count = p->count > CISP_DPC_MAX_PIXELS ? CISP_DPC_MAX_PIXELS : p->count;
}

/* Index of the first static defect on row @y or below (the list is sorted by row). */
unsigned cisp_dpc_first_static(const struct cisp_dpc_coeffs *c, int y)
{
	unsigned lo = 0, hi = c->count;

	while (lo < hi) {
		unsigned m = lo + (hi - lo) / 2;

		if (c->pixels[m].y < y)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

void cisp_dpc_row_range_c(const uint16_t *up, const uint16_t *mid, const uint16_t *dn, uint16_t *d, int w,
			  int t, int x0, int x1)
{
	for (int x = x0; x < x1; x++) {
		/* Edge columns reflect; the interior needs no index checks. */
		if (x < 2 || x >= w - 2)
			d[x] = dpc_pixel(up, mid, dn, x, cisp_dpc_mirror(x - 2, w), cisp_dpc_mirror(x + 2, w), t);
		else
			d[x] = dpc_pixel(up, mid, dn, x, x - 2, x + 2, t);
	}
}

void cisp_dpc_row_c(const uint16_t *up, const uint16_t *mid, const uint16_t *dn, uint16_t *d, int w, int t)
{
	cisp_dpc_row_range_c(up, mid, dn, d, w, t, 0, 2);
	for (int x = 2; x < w - 2; x++)
		d[x] = dpc_pixel(up, mid, dn, x, x - 2, x + 2, t);
	cisp_dpc_row_range_c(up, mid, dn, d, w, t, w - 2, w);
}

void cisp_dpc_static_row(const struct cisp_dpc_coeffs *c, unsigned *k, int y, const uint16_t *up,
			 const uint16_t *mid, const uint16_t *dn, uint16_t *d, int w)
{
	/* Static defects: always replaced, from the uncorrected input. */
	for (; *k < c->count && c->pixels[*k].y == y; (*k)++) {
		int x = c->pixels[*k].x;

		if (x < w)
			d[x] = mid4(up[x], dn[x], mid[cisp_dpc_mirror(x - 2, w)], mid[cisp_dpc_mirror(x + 2, w)]);
	}
}

void cisp_dpc_rows(const struct cisp_dpc_coeffs *c, const struct plane16 *in, const struct plane16 *out,
		   int y0, int y1)
{
	int w = in->width, h = in->height, t = c->threshold;
	unsigned k = cisp_dpc_first_static(c, y0);

	for (int y = y0; y < y1; y++) {
		const uint16_t *up = plane_row(in, cisp_dpc_mirror(y - 2, h));
		const uint16_t *mid = plane_row(in, y);
		const uint16_t *dn = plane_row(in, cisp_dpc_mirror(y + 2, h));
		uint16_t *d = plane_row(out, y);

		if (t)
			cisp_dpc_row_c(up, mid, dn, d, w, t);
		else
			memcpy(d, mid, (size_t)w * sizeof(*d));
		cisp_dpc_static_row(c, &k, y, up, mid, dn, d, w);
	}
}

/* ---- the stage (stage.h) ---- */

static int dpc_prepare(void **coeffs, const struct stage_env *env)
{
	int ret = stage_alloc(coeffs, sizeof(struct cisp_dpc_coeffs), "defective pixel");

	if (!ret)
		cisp_dpc_prepare(*coeffs, &env->state->dpc);
	return ret;
}

static void dpc_rows(const struct stage_ctx *c, const struct stage_io *io, int y0, int y1)
{
	cisp_dpc_rows(c->coeffs, &io->in.c[0], &io->out.c[0], y0, y1);
}

/* cisp_dpc_rows() with the dsp.h row function. */
static void dpc_pass(const struct stage_ctx *c, const struct pass_io *io, int y0, int y1)
{
	const struct cisp_dpc_coeffs *dpc = c->coeffs;
	const struct plane16 *in = &io->in[0].c[0], *out = &io->out.c[0];
	const int w = c->width, h = c->height;
	unsigned k = cisp_dpc_first_static(dpc, y0);

	for (int y = y0; y < y1; y++) {
		const uint16_t *up = plane_row(in, cisp_dpc_mirror(y - 2, h)), *mid = plane_row(in, y);
		const uint16_t *dn = plane_row(in, cisp_dpc_mirror(y + 2, h));
		uint16_t *o = plane_row(out, y);

		if (dpc->threshold)
			c->dsp->dpc_row(up, mid, dn, o, w, dpc->threshold);
		else
			memcpy(o, mid, (size_t)w * sizeof(*o));
		cisp_dpc_static_row(dpc, &k, y, up, mid, dn, o, w);
		pass_emit(io, y, NULL);
	}
}

static int dpc_passes(const struct stage_ctx *c, struct stage_pass pass[STAGE_MAX_PASSES])
{
	(void)c;
	pass[0] = (struct stage_pass){ .planes = 1, .n_in = 1, .in = { { STAGE_INPUT, 2 } }, .rows = dpc_pass };
	return 1;
}

const struct cisp_stage cisp_stage_dpc = {
	.name = "dpc",
	.block = CISP_BLOCK_DPC,
	.planes_in = 1,
	.planes_out = 1,
	.prepare = dpc_prepare,
	.release = free,
	.rows = dpc_rows,
	.passes = dpc_passes,
};
