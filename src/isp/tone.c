/* SPDX-License-Identifier: MIT */
/*
 * Global tone curve then transfer function (docs/stages/tone.md): the two are
 * evaluated at the 113 segment ends when the parameters change, and a pixel is
 * interpolated between them. The scalar rows read a 65536-entry table of that
 * interpolation; vector rows compute it from the two 112-entry segment tables.
 */
#include <stdlib.h>

#include "isp/dsp.h"
#include "isp/stage.h"
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

/* Input at which segment @k starts: k below 8, then eight segments an octave. */
static uint32_t segment_start(unsigned k)
{
	return k < 8 ? k : (8u + (k & 7)) << ((k >> 3) - 1);
}

void cisp_tone_prepare(struct cisp_tone_coeffs *c, const struct cisp_tone_params *p)
{
	const uint32_t *t = p->transfer == CISP_TRANSFER_SRGB	 ? tone_srgb
			    : p->transfer == CISP_TRANSFER_BT709 ? tone_bt709
								 : NULL;
	int32_t f[TONE_SEGMENTS + 1];

	/* The curve then the transfer at each segment's start; the last end, 65536, is past the range: 65535. */
	for (unsigned k = 0; k <= TONE_SEGMENTS; k++) {
		uint32_t lin = curve_at(p->curve, k < TONE_SEGMENTS ? segment_start(k) : 65535);

		f[k] = t ? transfer_at(t, lin) : lin;
	}
	for (unsigned k = 0; k < TONE_TABLE; k++) {
		int32_t rise = 0;

		if (k + 1 < TONE_SEGMENTS) {
			rise = f[k + 1] - f[k];
		} else if (k + 1 == TONE_SEGMENTS) {
			/* The last segment ends at 65535, 4095/4096 of its width: stretch its rise to reach it there. */
			int32_t d = f[k + 1] - f[k];

			rise = d >= 0 ? (d * 4096 + 2047) / 4095 : -((-d * 4096 + 2047) / 4095);
		}
		c->base[k] = (uint16_t)(k < TONE_SEGMENTS ? f[k] : 0);
		c->rise[k] = (int16_t)(rise > 32767 ? 32767 : rise < -32768 ? -32768 : rise);
	}
	for (uint32_t v = 0; v < 65536; v++)
		c->lut[v] = cisp_tone_at(c, v);
}

void cisp_tone_rows(const struct cisp_tone_coeffs *c, const struct rgb16 *in, const struct rgb16 *out, int y0,
		    int y1)
{
	const int w = in->c[0].width;

	for (int ch = 0; ch < 3; ch++) {
		for (int y = y0; y < y1; y++) {
			const uint16_t *src = plane_row(&in->c[ch], y);
			uint16_t *dst = plane_row(&out->c[ch], y);

			cisp_tone_row_c(c, src, dst, w);
		}
	}
}

void cisp_tone_row_c(const struct cisp_tone_coeffs *c, const uint16_t *s, uint16_t *d, int w)
{
	for (int x = 0; x < w; x++)
		d[x] = c->lut[s[x]];
}

/* ---- the stage (stage.h) ---- */

static int tone_prepare(void **coeffs, const struct stage_env *env)
{
	int ret = stage_alloc(coeffs, sizeof(struct cisp_tone_coeffs), "tone");

	if (!ret)
		cisp_tone_prepare(*coeffs, &env->state->tone);
	return ret;
}

static void tone_rows(const struct stage_ctx *c, const struct stage_io *io, int y0, int y1)
{
	cisp_tone_rows(c->coeffs, &io->in, &io->out, y0, y1);
}

static void tone_point(const struct stage_ctx *c, const uint16_t *const in[3], uint16_t *const out[3], int y)
{
	(void)y;
	for (int k = 0; k < 3; k++)
		c->dsp->tone_row(c->coeffs, in[k], out[k], c->width);
}

const struct cisp_stage cisp_stage_tone = {
	.name = "tone",
	.block = CISP_BLOCK_TONE,
	.planes_in = 3,
	.planes_out = 3,
	.prepare = tone_prepare,
	.release = free,
	.rows = tone_rows,
	.in_place = 7,
	.point = tone_point,
};
