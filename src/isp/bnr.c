/* SPDX-License-Identifier: MIT */
/*
 * Bayer-domain denoise (docs/stages/bnr.md): a range-weighted mean of the
 * centre and its 8 nearest same-colour samples, the weight of each sample
 * set by how far it and a low-noise luma guide differ from the centre,
 * measured in units of the noise standard deviation the profile gives at
 * the centre's level.
 *
 * Work is done in column strips of STRIP pixels with small rolling row
 * buffers on the stack: mirrored copies of the input rows and the guide
 * rows, so the inner loop reads without bounds checks. Each strip row is
 * filtered one CFA site at a time on deinterleaved lanes (see add_tap()).
 * The result does not depend on the strip width or on the band split.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "arith.h"
#include "bnr.h"
#include "bnr_quality.h"
#include "isp/dsp.h"
#include "isp/stage.h"
#include "isqrt.h"
#include "scratch.h"

/* Guide row buffers hold STRIP + 2 * GUIDE_PAD samples, input rows STRIP + 2 * IN_PAD. */
#define STRIP 256
#define GUIDE_PAD 2
#define IN_PAD 3
/* Rows of input above and below an output row: 2 for the taps, 1 for the guide. */
#define RADIUS 3
/* Largest weight, the centre's. */
#define WMAX 64

struct cisp_bnr_coeffs {
	int enabled;                /* strength > 0 */
	int mode;                   /* enum cisp_bnr_mode */
	struct cisp_bnr_quality quality; /* CISP_BNR_QUALITY's profile and scale */
	uint8_t green[4];           /* site (y & 1) * 2 + (x & 1) is a green site */
	uint16_t inv[4][256];       /* per site, per guide level >> 8: 2^24 / (6 sigma) at its bin's centre, at most 65535 */
};

uint16_t cisp_bnr_inv_sigma(uint32_t a, uint32_t b, uint16_t strength, uint32_t level)
{
	/* Variance at the level, squared 16-bit units: below 2^33. */
	uint64_t var = (((uint64_t)a * level + 32768) >> 16) + b;
	/* 6 * sigma * strength / 256: var * 36 * strength^2 < 2^59. */
	uint64_t d = cisp_isqrt64((var * 36u * strength * strength) >> 16);
	uint64_t inv;

	if (d == 0)
		return 65535;
	inv = (((uint64_t)1 << 24) + d / 2) / d;
	return (uint16_t)(inv > 65535 ? 65535 : inv);
}

int cisp_bnr_prepare(struct cisp_bnr_coeffs **out, const struct cisp_bnr_params *p,
		     const struct cisp_noise_params *noise, enum cisp_cfa cfa)
{
	struct cisp_bnr_coeffs *c = calloc(1, sizeof(*c));

	if (!c)
		return cisp_error(-ENOMEM, "out of memory for the Bayer denoise tables");
	/* Validation bounds the strength; the clamp keeps the arithmetic in range regardless. */
	uint16_t strength = p->strength > 1024 ? 1024 : p->strength;

	c->enabled = strength > 0;
	/* Validation rejects unknown modes; anything else runs the fast filter. */
	c->mode = p->mode == CISP_BNR_QUALITY ? CISP_BNR_QUALITY : CISP_BNR_FAST;
	c->quality.s2 = (uint32_t)strength * strength;
	for (int site = 0; site < 4; site++) {
		enum cisp_channel ch = cisp_cfa_channel(cfa, (unsigned)site & 1, (unsigned)site >> 1);

		c->green[site] = ch == CISP_CH_GR || ch == CISP_CH_GB;
		c->quality.green[site] = c->green[site];
		c->quality.a[site] = noise->a[ch];
		c->quality.b[site] = noise->b[ch];
		for (uint32_t i = 0; i < 256; i++) {
			const uint32_t bin = i >> (CISP_BNR_BIN_SHIFT - 8);

			c->inv[site][i] = cisp_bnr_inv_sigma(noise->a[ch], noise->b[ch], strength,
							     (bin << CISP_BNR_BIN_SHIFT) + (1u << (CISP_BNR_BIN_SHIFT - 1)));
		}
	}
	*out = c;
	return 0;
}

void cisp_bnr_free(struct cisp_bnr_coeffs *c)
{
	free(c);
}

/* The tables, for the row kernels of bnr_row.c. */
void cisp_bnr_tables(const struct cisp_bnr_coeffs *c, int y, struct cisp_bnr_row_tables *t)
{
	for (int k = 0; k < 2; k++) {
		t->inv[k] = c->inv[(y & 1) * 2 + k];
		t->green[k] = c->green[(y & 1) * 2 + k];
	}
	t->enabled = c->enabled;
}

int cisp_bnr_radius(const struct cisp_bnr_coeffs *c)
{
	return c->mode == CISP_BNR_QUALITY ? CISP_BNR_QUALITY_RADIUS : RADIUS;
}

int cisp_bnr_mode(const struct cisp_bnr_coeffs *c)
{
	return c->mode;
}

/* Mirrored copy of input row @y, columns [x0 - IN_PAD, x1 + IN_PAD): a plain copy but near the edges. */
static void load_row(const struct plane16 *in, int y, int x0, int x1, uint16_t *dst)
{
	const uint16_t *s = plane_row(in, mirror(y, in->height));
	const int w = in->width;
	int x = x0 - IN_PAD;

	for (; x < x1 + IN_PAD && x < 0; x++)
		dst[x - x0 + IN_PAD] = s[mirror(x, w)];
	if (x1 + IN_PAD <= w) {
		memcpy(dst + (x - x0 + IN_PAD), s + x, (size_t)(x1 + IN_PAD - x) * sizeof(*s));
		return;
	}
	for (; x < w; x++)
		dst[x - x0 + IN_PAD] = s[x];
	for (; x < x1 + IN_PAD; x++)
		dst[x - x0 + IN_PAD] = s[mirror(x, w)];
}

/* Guide of the row whose mirrored input rows are @a (above), @m, @b (below),
 * columns [x0 - GUIDE_PAD, x1 + GUIDE_PAD). */
static void guide_row(const uint16_t *a, const uint16_t *m, const uint16_t *b, int n, uint16_t *dst)
{
	/* input index i + 1 is guide index i (the pads differ by one). */
	for (int i = 0; i < n; i++)
		dst[i] = cisp_bnr_guide_at(cisp_bnr_guide_at(a[i], m[i], b[i]), cisp_bnr_guide_at(a[i + 1], m[i + 1], b[i + 1]),
					   cisp_bnr_guide_at(a[i + 2], m[i + 2], b[i + 2]));
}

/*
 * The filter works on one CFA site at a time: the strip's columns of one
 * parity, deinterleaved into HALF contiguous lanes (lane k is column
 * x0 + 2k + p), so every tap below is a fixed-length loop of 16- and 32-bit
 * lane arithmetic that compilers vectorise; only the table reads (inv by
 * guide level, R by weight sum) stay scalar.
 */
#define HALF (STRIP / 2)
/* Deinterleaved rows hold lanes -HPAD .. HALF + HPAD - 1. */
#define HPAD 1

/* Add one tap to the sums: the tap's sample and guide rows (@v, @g) against the centre's. */
static void add_tap(uint32_t *restrict sw, uint32_t *restrict swv, const uint16_t *restrict v,
		    const uint16_t *restrict g, const uint16_t *restrict v0, const uint16_t *restrict g0,
		    const uint16_t *restrict inv)
{
	for (int k = 0; k < HALF; k++) {
		uint32_t wt = cisp_bnr_tap_weight(absdiff_u32(g[k], g0[k]), absdiff_u32(v[k], v0[k]), inv[k]);

		sw[k] += wt;
		swv[k] += wt * v[k];
	}
}

/* Split @src (a padded strip row, index 0 = column x0 - @pad) into even and odd lanes. */
static void deinterleave(const uint16_t *src, int pad, uint16_t half[2][HALF + 2 * HPAD])
{
	for (int p = 0; p < 2; p++)
		for (int k = -HPAD; k < HALF + HPAD; k++)
			half[p][k + HPAD] = src[pad + 2 * k + p];
}

const struct cisp_bnr_quality *cisp_bnr_quality_params(const struct cisp_bnr_coeffs *c)
{
	return c->enabled && c->mode == CISP_BNR_QUALITY ? &c->quality : NULL;
}

void cisp_bnr_rows(const struct cisp_bnr_coeffs *c, const struct plane16 *in, const struct plane16 *out,
		   int y0, int y1)
{
	const int w = in->width;
	/* Full-width rows are padded to a whole strip (+ the lanes' pads) so lanes past the frame stay defined. */
	CISP_SCRATCH uint16_t inbuf[2 * RADIUS + 1][STRIP + 2 * IN_PAD + 2];
	CISP_SCRATCH uint16_t gbuf[5][STRIP + 2 * GUIDE_PAD + 2];
	/* Deinterleaved input and guide rows y - 2 .. y + 2, by parity. */
	CISP_SCRATCH uint16_t vh[5][2][HALF + 2 * HPAD], gh[5][2][HALF + 2 * HPAD];
	CISP_SCRATCH uint16_t inv[HALF];
	CISP_SCRATCH uint32_t sw[HALF], swv[HALF];

	if (!c->enabled) {
		for (int y = y0; y < y1; y++)
			memcpy(plane_row(out, y), plane_row(in, y), (size_t)w * sizeof(uint16_t));
		return;
	}
	if (c->mode == CISP_BNR_QUALITY) {
		cisp_bnr_quality_rows(&c->quality, in, out, y0, y1);
		return;
	}
	memset(inbuf, 0, sizeof(inbuf));
	memset(gbuf, 0, sizeof(gbuf));
	for (int x0 = 0; x0 < w; x0 += STRIP) {
		const int x1 = x0 + STRIP < w ? x0 + STRIP : w, n = x1 - x0;

		/* Input rows y - 3 .. y + 3 live at inbuf[(row + 7 * k) % 7]; guide rows y - 2 .. y + 2 at gbuf[row % 5]. */
		for (int r = y0 - RADIUS; r < y0 + RADIUS; r++)
			load_row(in, r, x0, x1, inbuf[((r % 7) + 7) % 7]);
		for (int r = y0 - 2; r < y0 + 2; r++)
			guide_row(inbuf[(((r - 1) % 7) + 7) % 7], inbuf[((r % 7) + 7) % 7], inbuf[(((r + 1) % 7) + 7) % 7],
				  n + 2 * GUIDE_PAD, gbuf[((r % 5) + 5) % 5]);
		for (int y = y0; y < y1; y++) {
			uint16_t *d = plane_row(out, y) + x0;

			load_row(in, y + RADIUS, x0, x1, inbuf[(y + RADIUS) % 7]);
			guide_row(inbuf[(y + 1) % 7], inbuf[(y + 2) % 7], inbuf[(y + 3) % 7], n + 2 * GUIDE_PAD,
				  gbuf[(y + 2) % 5]);
			for (int j = 0; j < 5; j++) {
				deinterleave(inbuf[(((y + j - 2) % 7) + 7) % 7], IN_PAD, vh[j]);
				deinterleave(gbuf[(((y + j - 2) % 5) + 5) % 5], GUIDE_PAD, gh[j]);
			}
			/* x0 is even (STRIP is): lane k of parity p is column x0 + 2k + p. */
			for (int p = 0; p < 2; p++) {
				const int site = (y & 1) * 2 + p, q = !p;
				const uint16_t *tab = c->inv[site];
				/* Lane pointers at lane 0; +-1 lanes are the +-2 columns. */
				const uint16_t *v0 = vh[2][p] + HPAD, *g0 = gh[2][p] + HPAD;

				for (int k = 0; k < HALF; k++) {
					inv[k] = tab[g0[k] >> 8];
					/* The centre differs by nothing: weight WMAX. */
					sw[k] = WMAX;
					swv[k] = WMAX * (uint32_t)v0[k];
				}
				/* The 8 nearest samples of the site's colour: at green sites the
				 * axial ones and the diagonals, elsewhere the axial ones and the corners. */
				for (int j = 0; j < 5; j += 2)
					for (int dk = -1; dk <= 1; dk++)
						if ((j != 2 || dk) && !(c->green[site] && j != 2 && dk))
							add_tap(sw, swv, vh[j][p] + HPAD + dk, gh[j][p] + HPAD + dk, v0, g0,
								inv);
				if (c->green[site]) {
					/* Diagonal columns x -+ 1: lanes k - 1 + p and k + p of the other parity. */
					for (int j = 1; j < 5; j += 2)
						for (int dk = p - 1; dk <= p; dk++)
							add_tap(sw, swv, vh[j][q] + HPAD + dk, gh[j][q] + HPAD + dk, v0,
								g0, inv);
				}
				for (int k = 0; 2 * k + p < n; k++)
					d[2 * k + p] = cisp_bnr_mean(swv[k], sw[k]);
			}
		}
	}
}

/* ---- the stage (stage.h) ---- */

static int bnr_prepare(void **coeffs, const struct stage_env *env)
{
	struct cisp_bnr_coeffs *c;
	int ret = cisp_bnr_prepare(&c, &env->state->bnr, &env->state->noise, env->cfa);

	if (ret)
		return ret;
	cisp_bnr_free(*coeffs);
	*coeffs = c;
	return 0;
}

static void bnr_release(void *coeffs)
{
	cisp_bnr_free(coeffs);
}

static void bnr_rows(const struct stage_ctx *c, const struct stage_io *io, int y0, int y1)
{
	cisp_bnr_rows(c->coeffs, &io->in.c[0], &io->out.c[0], y0, y1);
}

/* The fast filter's guide rows (cisp_bnr_guide_row_c()). */
static void guide_pass(const struct stage_ctx *c, const struct pass_io *io, int y0, int y1)
{
	const struct plane16 *in = &io->in[0].c[0], *out = &io->out.c[0];
	const int w = c->width, h = c->height;

	for (int y = y0; y < y1; y++) {
		c->dsp->bnr_guide_row(plane_row(in, mirror(y - 1, h)), plane_row(in, y), plane_row(in, mirror(y + 1, h)),
				      plane_row(out, y), w);
		pass_emit(io, y, NULL);
	}
}

/*
 * The fast filter's rows from the input rows and their guide (cisp_bnr_row_c()),
 * handed on once all are made: a row's ten rows of support would push the
 * tables of what runs on it next (lens shading's column weights) out of the
 * first-level cache between one row and the next.
 */
static void fast_pass(const struct stage_ctx *c, const struct pass_io *io, int y0, int y1)
{
	const struct plane16 *in = &io->in[0].c[0], *guide = &io->in[1].c[0];
	const int h = c->height;

	for (int y = y0; y < y1; y++) {
		const uint16_t *r[5], *g[5];
		struct cisp_bnr_row_tables tb;

		for (int k = 0; k < 5; k++) {
			r[k] = plane_row(in, mirror(y + k - 2, h));
			g[k] = plane_row(guide, mirror(y + k - 2, h));
		}
		cisp_bnr_tables(c->coeffs, y, &tb);
		c->dsp->bnr_row(r, g, plane_row(&io->out.c[0], y), c->width, &tb);
	}
	for (int y = y0; y < y1; y++)
		pass_emit(io, y, NULL);
}

/* The quality filter, tile by tile over the rows (it reads its input rows directly). */
static void quality_pass(const struct stage_ctx *c, const struct pass_io *io, int y0, int y1)
{
	const struct cisp_bnr_quality *bq = cisp_bnr_quality_params(c->coeffs);

	if (bq)
		cisp_bnr_quality_rows_dsp(c->dsp, bq, &io->in[0].c[0], &io->out.c[0], y0, y1);
	else
		cisp_bnr_rows(c->coeffs, &io->in[0].c[0], &io->out.c[0], y0, y1);
	for (int y = y0; y < y1; y++)
		pass_emit(io, y, NULL);
}

static int bnr_passes(const struct stage_ctx *c, struct stage_pass pass[STAGE_MAX_PASSES])
{
	if (cisp_bnr_mode(c->coeffs) == CISP_BNR_QUALITY) {
		pass[0] = (struct stage_pass){ .planes = 1, .n_in = 1, .in = { { STAGE_INPUT, cisp_bnr_radius(c->coeffs) } },
					       .rows = quality_pass, .min_band = CISP_BNR_TILE_H_MAX };
		return 1;
	}
	pass[0] = (struct stage_pass){ .planes = 1, .n_in = 1, .in = { { STAGE_INPUT, 1 } }, .rows = guide_pass };
	pass[1] = (struct stage_pass){ .planes = 1, .n_in = 2, .in = { { STAGE_INPUT, 2 }, { 0, 2 } }, .rows = fast_pass };
	return 2;
}

const struct cisp_stage cisp_stage_bnr = {
	.name = "bnr",
	.block = CISP_BLOCK_BNR,
	.reads = CISP_BLOCK_BIT(CISP_BLOCK_NOISE),
	.planes_in = 1,
	.planes_out = 1,
	.prepare = bnr_prepare,
	.release = bnr_release,
	.rows = bnr_rows,
	.passes = bnr_passes,
};
