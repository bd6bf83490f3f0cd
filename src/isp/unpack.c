/* SPDX-License-Identifier: MIT */
#include <string.h>

#include <cisp/format.h>

#include "isp/dsp.h"
#include "isp/stage.h"
#include "unpack.h"

/* A sample of @bits bits to 16-bit units: clamp to 2^bits - 1, then shift up. */
static inline uint16_t to16(unsigned v, unsigned bits)
{
	unsigned max = (1u << bits) - 1;

	return (uint16_t)((v > max ? max : v) << (16 - bits));
}

/* MIPI CSI-2 RAW10: 4 samples in 5 bytes, high bits first, then the 4 low 2-bit parts. */
static void row_raw10(const uint8_t *s, uint16_t *d, int w)
{
	/* Whole groups only: the image layer requires a width that is a multiple of 4. */
	for (int x = 0; x + 3 < w; x += 4, s += 5) {
		unsigned lo = s[4];

		for (int k = 0; k < 4; k++)
			d[x + k] = (uint16_t)((((unsigned)s[k] << 2) | ((lo >> (2 * k)) & 3)) << 6);
	}
}

/* MIPI CSI-2 RAW12: 2 samples in 3 bytes, high bits first, then the two low nibbles. */
static void row_raw12(const uint8_t *s, uint16_t *d, int w)
{
	for (int x = 0; x + 1 < w; x += 2, s += 3) {
		d[x] = (uint16_t)((((unsigned)s[0] << 4) | (s[2] & 0xf)) << 4);
		d[x + 1] = (uint16_t)((((unsigned)s[1] << 4) | (s[2] >> 4)) << 4);
	}
}

void cisp_unpack16_row_c(const uint8_t *s, uint16_t *d, int w, int bits)
{
	/* Little-endian 16-bit containers, whatever the host's byte order. */
	for (int x = 0; x < w; x++)
		d[x] = to16(s[2 * x] | (unsigned)s[2 * x + 1] << 8, (unsigned)bits);
}

void cisp_unpack8_row_c(const uint8_t *s, uint16_t *d, int w)
{
	for (int x = 0; x < w; x++)
		d[x] = (uint16_t)(s[x] << 8);
}

void cisp_unpack_rows(const struct cisp_image *in, const struct plane16 *out, int y0, int y1)
{
	const struct cisp_format_info *f = cisp_format_info(in->format);
	int w = out->width;

	for (int y = y0; y < y1; y++) {
		const uint8_t *s = in->plane[0].data + (size_t)y * in->plane[0].stride;
		uint16_t *d = plane_row(out, y);

		if (!f || f->kind != CISP_KIND_BAYER) {
			/* The pipeline checks formats first; never read what we cannot decode. */
			memset(d, 0, (size_t)w * sizeof(*d));
		} else if (f->packed && f->bits == 10) {
			row_raw10(s, d, w);
		} else if (f->packed) {
			row_raw12(s, d, w);
		} else if (f->bits == 8) {
			cisp_unpack8_row_c(s, d, w);
		} else {
			cisp_unpack16_row_c(s, d, w, (int)f->bits);
		}
	}
}

/* ---- the stage (stage.h) ---- */

static int unpack_prepare(void **coeffs, const struct stage_env *env)
{
	/* The input format, looked up once: every frame has it (the pipeline checks). */
	*coeffs = (void *)cisp_format_info(env->format);
	return 0;
}

static void unpack_rows(const struct stage_ctx *c, const struct stage_io *io, int y0, int y1)
{
	(void)c;
	cisp_unpack_rows(io->image, &io->out.c[0], y0, y1);
}

static void unpack_source(const struct stage_ctx *c, const struct cisp_image *img, int y, uint16_t *row)
{
	const struct cisp_format_info *f = c->coeffs;
	const uint8_t *src = img->plane[0].data + (size_t)y * img->plane[0].stride;

	if (!f->packed && f->bits > 8) {
		c->dsp->unpack16_row(src, row, c->width, (int)f->bits);
	} else if (!f->packed && f->bits == 8) {
		c->dsp->unpack8_row(src, row, c->width);
	} else {
		struct plane16 one = { row, c->width, y, c->width, c->height };

		cisp_unpack_rows(img, &one, y, y + 1);
	}
}

const struct cisp_stage cisp_stage_unpack = {
	.name = "unpack",
	.flags = STAGE_ALWAYS | STAGE_EXPOSURE,
	.planes_out = 1,
	.prepare = unpack_prepare,
	.rows = unpack_rows,
	.source = unpack_source,
};
