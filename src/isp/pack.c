/* SPDX-License-Identifier: MIT */
/*
 * Pack 16-bit planes into the output image (docs/stages/pack.md). 4:2:0
 * chroma is the rounded mean of each 2x2 block (centre-sited), taken in 16
 * bits before the conversion to 8 bits.
 */
#include <cisp/format.h>

#include "pack.h"

/* Rounded mean of the 16-bit samples of 2x2 block (cx, cy) that lie inside the w x h frame. */
static inline uint8_t chroma(const struct plane16 *p, int w, int h, int cx, int cy)
{
	const int x = 2 * cx, y = 2 * cy;
	const int nx = x + 1 < w ? 2 : 1, ny = y + 1 < h ? 2 : 1;
	uint32_t sum = 0;

	for (int j = 0; j < ny; j++) {
		const uint16_t *row = plane_row(p, y + j);
		for (int i = 0; i < nx; i++)
			sum += row[x + i];
	}
	const uint32_t n = (uint32_t)(nx * ny); /* 1, 2 or 4 */
	return cisp_to8((sum + n / 2) / n);
}

void cisp_to8_row_c(const uint16_t *s, uint8_t *d, int w)
{
	for (int x = 0; x < w; x++)
		d[x] = cisp_to8(s[x]);
}

void cisp_rgb888_row_c(const uint16_t *r, const uint16_t *g, const uint16_t *b, uint8_t *d, int w)
{
	for (int x = 0; x < w; x++) {
		d[3 * x] = cisp_to8(r[x]);
		d[3 * x + 1] = cisp_to8(g[x]);
		d[3 * x + 2] = cisp_to8(b[x]);
	}
}

void cisp_xbgr32_row_c(const uint16_t *r, const uint16_t *g, const uint16_t *b, uint8_t *d, int w)
{
	for (int x = 0; x < w; x++) {
		d[4 * x] = cisp_to8(b[x]);
		d[4 * x + 1] = cisp_to8(g[x]);
		d[4 * x + 2] = cisp_to8(r[x]);
		d[4 * x + 3] = 255;
	}
}

void cisp_chroma420_row_c(const uint16_t *cb0, const uint16_t *cb1, const uint16_t *cr0, const uint16_t *cr1,
			  uint8_t *dcb, uint8_t *dcr, int step, int w)
{
	/* Whole 2x2 blocks: the rounded mean is (sum + 2) / 4, as chroma() computes it. */
	for (int i = 0; i < w / 2; i++) {
		dcb[step * i] = cisp_to8((cb0[2 * i] + cb0[2 * i + 1] + cb1[2 * i] + cb1[2 * i + 1] + 2u) >> 2);
		dcr[step * i] = cisp_to8((cr0[2 * i] + cr0[2 * i + 1] + cr1[2 * i] + cr1[2 * i + 1] + 2u) >> 2);
	}
}

static void pack_yuv420(const struct rgb16 *in, const struct cisp_image *out, int y0, int y1)
{
	const int w = (int)out->width, h = (int)out->height, cw = (w + 1) / 2;
	const bool nv12 = out->format == CISP_FMT_NV12;

	for (int y = y0; y < y1; y++) {
		const uint16_t *src = plane_row(&in->c[0], y);
		uint8_t *dst = out->plane[0].data + (size_t)y * out->plane[0].stride;

		for (int x = 0; x < w; x++)
			dst[x] = cisp_to8(src[x]);
	}
	/* Chroma row cy belongs to the band holding luma row 2*cy (bands start on even rows). */
	for (int cy = y0 / 2; 2 * cy < y1; cy++) {
		if (nv12) {
			uint8_t *dst = out->plane[1].data + (size_t)cy * out->plane[1].stride;

			for (int cx = 0; cx < cw; cx++) {
				dst[2 * cx] = chroma(&in->c[1], w, h, cx, cy);
				dst[2 * cx + 1] = chroma(&in->c[2], w, h, cx, cy);
			}
		} else {
			uint8_t *cb = out->plane[1].data + (size_t)cy * out->plane[1].stride;
			uint8_t *cr = out->plane[2].data + (size_t)cy * out->plane[2].stride;

			for (int cx = 0; cx < cw; cx++) {
				cb[cx] = chroma(&in->c[1], w, h, cx, cy);
				cr[cx] = chroma(&in->c[2], w, h, cx, cy);
			}
		}
	}
}

void cisp_pack_rows(const struct rgb16 *in, const struct cisp_image *out, int y0, int y1)
{
	const int w = (int)out->width;

	if (out->format == CISP_FMT_NV12 || out->format == CISP_FMT_I420) {
		pack_yuv420(in, out, y0, y1);
		return;
	}
	for (int y = y0; y < y1; y++) {
		const uint16_t *r = plane_row(&in->c[0], y), *g = plane_row(&in->c[1], y), *b = plane_row(&in->c[2], y);
		uint8_t *dst = out->plane[0].data + (size_t)y * out->plane[0].stride;

		if (out->format == CISP_FMT_RGB888) {
			cisp_rgb888_row_c(r, g, b, dst, w);
		} else if (out->format == CISP_FMT_XBGR32) {
			cisp_xbgr32_row_c(r, g, b, dst, w);
		} else if (out->format == CISP_FMT_RGB48) {
			/* Little-endian words, written byte by byte whatever the host order. */
			for (int x = 0; x < w; x++) {
				const uint16_t v[3] = { r[x], g[x], b[x] };
				for (int c = 0; c < 3; c++) {
					dst[6 * x + 2 * c] = (uint8_t)(v[c] & 255);
					dst[6 * x + 2 * c + 1] = (uint8_t)(v[c] >> 8);
				}
			}
		}
	}
}
