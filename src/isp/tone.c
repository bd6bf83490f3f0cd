/* SPDX-License-Identifier: MIT */
/*
 * Global tone curve then transfer function (docs/stages/tone.md), merged at
 * prepare time into one 65536-entry table so a pixel costs one lookup.
 */
#include "tone.h"

#include "tone_tables.h"

/* Curve value at input @v: linear interpolation between nodes, rounded up. */
static uint32_t curve_at(const uint16_t *curve, uint32_t v)
{
	uint32_t i = v >> 8, f = v & 255;

	/* Rounding up makes the identity curve (node 256 = 65535) exact at the top. */
	return (curve[i] * (256 - f) + curve[i + 1] * f + 255) >> 8;
}

/* Transfer function @t (1/16 codes, TONE_TF_POINTS entries) at linear code @c. */
static uint16_t transfer_at(const uint32_t *t, uint32_t c)
{
	uint32_t v;

	if (c < TONE_TF_DIRECT) {
		v = (t[c] + 8) >> 4;
	} else {
		uint32_t k = TONE_TF_DIRECT + ((c - TONE_TF_DIRECT) >> 4), f = c & 15;

		v = (t[k] * (16 - f) + t[k + 1] * f + 128) >> 8;
	}
	return (uint16_t)(v > 65535 ? 65535 : v);
}

void cisp_tone_prepare(struct cisp_tone_coeffs *c, const struct cisp_tone_params *p)
{
	const uint32_t *t = p->transfer == CISP_TRANSFER_SRGB	 ? tone_srgb
			    : p->transfer == CISP_TRANSFER_BT709 ? tone_bt709
								 : NULL;

	for (uint32_t v = 0; v < 65536; v++) {
		uint32_t lin = curve_at(p->curve, v);

		c->lut[v] = t ? transfer_at(t, lin) : (uint16_t)lin;
	}
}

void cisp_tone_rows(const struct cisp_tone_coeffs *c, const struct rgb16 *in, const struct rgb16 *out, int y0,
		    int y1)
{
	const int w = in->c[0].width;

	for (int ch = 0; ch < 3; ch++) {
		for (int y = y0; y < y1; y++) {
			const uint16_t *src = plane_row(&in->c[ch], y);
			uint16_t *dst = plane_row(&out->c[ch], y);

			cisp_lut_row_c(c->lut, src, dst, w);
		}
	}
}

void cisp_lut_row_c(const uint16_t *lut, const uint16_t *s, uint16_t *d, int w)
{
	for (int x = 0; x < w; x++)
		d[x] = lut[s[x]];
}
