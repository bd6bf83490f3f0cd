/* SPDX-License-Identifier: MIT */
/*
 * Bayer-domain denoise (docs/stages/bnr.md): a range-weighted mean of the
 * same-colour samples of the 5x5 window, the weight of each sample set by
 * how far it and a low-noise luma guide differ from the centre, measured in
 * units of the noise standard deviation the profile gives at the centre's
 * level.
 *
 * Work is done in column strips of STRIP pixels with small rolling row
 * buffers on the stack: mirrored copies of the input rows and the guide
 * rows, so the inner loop reads without bounds checks. The result does not
 * depend on the strip width or on the band split.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/error_internal.h"
#include "bnr.h"
#include "isqrt.h"

/* Guide row buffers hold STRIP + 2 * GUIDE_PAD samples, input rows STRIP + 2 * IN_PAD. */
#define STRIP 256
#define GUIDE_PAD 2
#define IN_PAD 3
/* Rows of input above and below an output row: 2 for the taps, 1 for the guide. */
#define RADIUS 3
/* Largest weight, the centre's; weights sum to at most 13 * WMAX. */
#define WMAX 64
#define WSUM_MAX (13 * WMAX)

struct cisp_bnr_coeffs {
	int enabled;                /* strength > 0 */
	uint8_t green[4];           /* site (y & 1) * 2 + (x & 1) is a green site */
	uint16_t inv[4][256];       /* per site, per guide level >> 8: 2^24 / (6 sigma), at most 65535 */
	uint32_t recip[WSUM_MAX + 1]; /* (2^32 + n / 2) / n for n >= WMAX */
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
	for (int site = 0; site < 4; site++) {
		enum cisp_channel ch = cisp_cfa_channel(cfa, (unsigned)site & 1, (unsigned)site >> 1);

		c->green[site] = ch == CISP_CH_GR || ch == CISP_CH_GB;
		for (uint32_t i = 0; i < 256; i++)
			c->inv[site][i] = cisp_bnr_inv_sigma(noise->a[ch], noise->b[ch], strength, i * 256 + 128);
	}
	for (uint32_t n = WMAX; n <= WSUM_MAX; n++)
		c->recip[n] = (uint32_t)((((uint64_t)1 << 32) + n / 2) / n);
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
	t->recip = c->recip;
	t->enabled = c->enabled;
}

int cisp_bnr_radius(const struct cisp_bnr_coeffs *c)
{
	(void)c;
	return RADIUS;
}

/* Mirrored copy of input row @y, columns [x0 - IN_PAD, x1 + IN_PAD). */
static void load_row(const struct plane16 *in, int y, int x0, int x1, uint16_t *dst)
{
	const uint16_t *s = plane_row(in, mirror(y, in->height));

	for (int x = x0 - IN_PAD; x < x1 + IN_PAD; x++)
		dst[x - x0 + IN_PAD] = s[mirror(x, in->width)];
}

/* Guide of the row whose mirrored input rows are @a (above), @m, @b (below),
 * columns [x0 - GUIDE_PAD, x1 + GUIDE_PAD). */
static void guide_row(const uint16_t *a, const uint16_t *m, const uint16_t *b, int n, uint16_t *dst)
{
	/* input index i + 1 is guide index i (the pads differ by one). */
	for (int i = 0; i < n; i++) {
		uint32_t s = 4u * m[i + 1] + 2u * ((uint32_t)m[i] + m[i + 2] + a[i + 1] + b[i + 1]) + a[i] +
			     a[i + 2] + b[i] + b[i + 2];

		dst[i] = (uint16_t)((s + 8) >> 4);
	}
}

/* Weight of one tap: dg and dv are absolute differences to the centre. */
static inline uint32_t tap_weight(uint32_t dg, uint32_t dv, uint32_t inv)
{
	uint32_t ug = (dg * inv) >> 16, uv = (dv * inv) >> 17;
	int32_t t;

	if (ug > 128)
		ug = 128;
	if (uv > 128)
		uv = 128;
	t = 16384 - (int32_t)(ug * ug + uv * uv);
	if (t <= 0)
		return 0;
	return ((uint32_t)t * (uint32_t)t) >> 22;
}

static inline uint32_t absdiff(uint32_t a, uint32_t b)
{
	return a > b ? a - b : b - a;
}

void cisp_bnr_rows(const struct cisp_bnr_coeffs *c, const struct plane16 *in, const struct plane16 *out,
		   int y0, int y1)
{
	const int w = in->width;
	uint16_t inbuf[2 * RADIUS + 1][STRIP + 2 * IN_PAD];
	uint16_t gbuf[5][STRIP + 2 * GUIDE_PAD];

	if (!c->enabled) {
		for (int y = y0; y < y1; y++) {
			const uint16_t *s = plane_row(in, y);
			uint16_t *d = plane_row(out, y);

			for (int x = 0; x < w; x++)
				d[x] = s[x];
		}
		return;
	}
	for (int x0 = 0; x0 < w; x0 += STRIP) {
		const int x1 = x0 + STRIP < w ? x0 + STRIP : w, n = x1 - x0;

		/* Input rows y - 3 .. y + 3 live at inbuf[(row + 7 * k) % 7]; guide rows y - 2 .. y + 2 at gbuf[row % 5]. */
		for (int r = y0 - RADIUS; r < y0 + RADIUS; r++)
			load_row(in, r, x0, x1, inbuf[((r % 7) + 7) % 7]);
		for (int r = y0 - 2; r < y0 + 2; r++)
			guide_row(inbuf[(((r - 1) % 7) + 7) % 7], inbuf[((r % 7) + 7) % 7], inbuf[(((r + 1) % 7) + 7) % 7],
				  n + 2 * GUIDE_PAD, gbuf[((r % 5) + 5) % 5]);
		for (int y = y0; y < y1; y++) {
			const uint16_t *row[5], *g[5];
			uint16_t *d = plane_row(out, y) + x0;
			const uint16_t *inv = NULL;

			load_row(in, y + RADIUS, x0, x1, inbuf[(y + RADIUS) % 7]);
			guide_row(inbuf[(y + 1) % 7], inbuf[(y + 2) % 7], inbuf[(y + 3) % 7], n + 2 * GUIDE_PAD,
				  gbuf[(y + 2) % 5]);
			for (int j = 0; j < 5; j++) {
				/* Both point at column x0. */
				row[j] = inbuf[(((y + j - 2) % 7) + 7) % 7] + IN_PAD;
				g[j] = gbuf[(((y + j - 2) % 5) + 5) % 5] + GUIDE_PAD;
			}
			for (int i = 0; i < n; i++) {
				const int x = x0 + i, site = (y & 1) * 2 + (x & 1);
				const uint32_t v0 = row[2][i], g0 = g[2][i];
				uint32_t sw = 0, swv = 0, wt;
				uint64_t o;

				inv = c->inv[site];
				for (int jj = 0; jj < 5; jj += 2)
					for (int ii = -2; ii <= 2; ii += 2) {
						uint32_t v = row[jj][i + ii];

						wt = tap_weight(absdiff(g[jj][i + ii], g0), absdiff(v, v0), inv[g0 >> 8]);
						sw += wt;
						swv += wt * v;
					}
				if (c->green[site])
					for (int jj = 1; jj < 5; jj += 2)
						for (int ii = -1; ii <= 1; ii += 2) {
							uint32_t v = row[jj][i + ii];

							wt = tap_weight(absdiff(g[jj][i + ii], g0), absdiff(v, v0),
									inv[g0 >> 8]);
							sw += wt;
							swv += wt * v;
						}
				o = ((uint64_t)swv * c->recip[sw] + (1u << 31)) >> 32;
				d[i] = (uint16_t)(o > 65535 ? 65535 : o);
			}
		}
	}
}
