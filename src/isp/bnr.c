/* SPDX-License-Identifier: MIT */
#define SUB ref



#include <errno.h>
#include <stdlib.h>

#include "core/error_internal.h"
#include "bnr.h"

/* The threshold table is indexed by the centre sample >> LEVEL_SHIFT. */
#define LEVEL_SHIFT 6
#define LEVELS (65536 >> LEVEL_SHIFT)

struct cisp_bnr_coeffs {
	uint16_t thr[4][LEVELS]; /* per CFA site: strength * sigma, 16-bit units */
};

/* floor(sqrt(v)), exact. */
static uint64_t isqrt64(uint64_t v)
{
	uint64_t r = 0, bit = (uint64_t)1 << 62;

	while (bit > v)
		bit >>= 2;
	while (bit) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

/*
 * Reflect the coordinate of a same-colour neighbour (offset +-2) into [0, n)
 * within the colour's half-resolution plane (column -1 maps to 3, not to 1).
 */
static inline int mirror_cfa(int i, int n)
{
	if (i < 0)
		i = 2 * (i & 1) - i;
	if (i >= n)
		i = 2 * n - 4 - i + 2 * (i & 1);
	return i;
}

int cisp_bnr_prepare(struct cisp_bnr_coeffs **out, const struct cisp_bnr_params *p,
		     const struct cisp_noise_params *noise, enum cisp_cfa cfa)
{
	struct cisp_bnr_coeffs *c = malloc(sizeof(*c));

	*out = c;
	if (!c)
		return cisp_error(-ENOMEM, "out of memory for Bayer denoise tables");
	for (int site = 0; site < 4; site++) {
		enum cisp_channel ch = cisp_cfa_channel(cfa, site & 1, site >> 1);

		for (int k = 0; k < LEVELS; k++) {
			uint64_t s = ((uint64_t)k << LEVEL_SHIFT) + (1u << (LEVEL_SHIFT - 1));
			/* Variance in Q16.16, so its square root is sigma in Q8. */
			uint64_t var = noise->a[ch] * s + ((uint64_t)noise->b[ch] << 16);
			uint64_t t = (isqrt64(var) * p->strength + 32768) >> 16;

			c->thr[site][k] = (uint16_t)(t > 65535 ? 65535 : t);
		}
	}
	return 0;
}

void cisp_bnr_free(struct cisp_bnr_coeffs *c)
{
	free(c);
}

int cisp_bnr_radius(const struct cisp_bnr_coeffs *c)
{
	(void)c;
	return 2;
}

static inline int max2(int a, int b)
{
	return a > b ? a : b;
}

static inline int min2(int a, int b)
{
	return a < b ? a : b;
}

/* Median of five: drop the larger pair minimum and the smaller pair maximum, then median of three. */
static inline int median5(int a, int b, int c, int d, int e)
{
	int lo = max2(min2(a, b), min2(c, d)), hi = min2(max2(a, b), max2(c, d));

	return max2(min2(lo, hi), min2(max2(lo, hi), e));
}

/*
 * A neighbour @n less than @t from the reference @ref is averaged in; any
 * other counts as the centre @p (so strength 0 leaves the frame unchanged).
 */
static inline int take(int n, int ref, int t, int p)
{
	int d = n - ref;

	return (d < 0 ? -d : d) < t ? n : p;
}

/* One pixel: @l and @r are the same-colour columns left and right of @x. */
static inline uint16_t bnr_pixel(const uint16_t *thr, const uint16_t *up, const uint16_t *mid,
				 const uint16_t *dn, int x, int l, int r)
{
	int p = mid[x];
	/* A robust estimate of the local signal, for the noise level and the comparisons. */
	int ref = median5(p, up[x], dn[x], mid[l], mid[r]), t = thr[ref >> LEVEL_SHIFT];
	int edge = take(up[x], ref, t, p) + take(dn[x], ref, t, p) + take(mid[l], ref, t, p) +
		   take(mid[r], ref, t, p);
	int corner = take(up[l], ref, t, p) + take(up[r], ref, t, p) + take(dn[l], ref, t, p) +
		     take(dn[r], ref, t, p);

	/* 3x3 binomial kernel 1 2 1 / 2 4 2 / 1 2 1 on the colour plane. */
	return (uint16_t)((4 * p + 2 * edge + corner + 8) >> 4);
}

void cisp_bnr_rows(const struct cisp_bnr_coeffs *c, const struct plane16 *in, const struct plane16 *out,
		   int y0, int y1)
{
	int w = in->width, h = in->height;

	for (int y = y0; y < y1; y++) {
		const uint16_t *up = plane_row(in, mirror_cfa(y - 2, h));
		const uint16_t *mid = plane_row(in, y);
		const uint16_t *dn = plane_row(in, mirror_cfa(y + 2, h));
		const uint16_t *thr0 = c->thr[(y & 1) * 2], *thr1 = c->thr[(y & 1) * 2 + 1];
		uint16_t *d = plane_row(out, y);

		for (int x = 0; x < 2; x++)
			d[x] = bnr_pixel(x & 1 ? thr1 : thr0, up, mid, dn, x, mirror_cfa(x - 2, w), x + 2);
		for (int x = 2; x < w - 2; x++)
			d[x] = bnr_pixel(x & 1 ? thr1 : thr0, up, mid, dn, x, x - 2, x + 2);
		for (int x = w - 2; x < w; x++)
			d[x] = bnr_pixel(x & 1 ? thr1 : thr0, up, mid, dn, x, x - 2, mirror_cfa(x + 2, w));
	}
}
