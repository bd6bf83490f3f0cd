/* SPDX-License-Identifier: MIT */
/*
 * Readout of the virtual sensor: the rolling shutter's view of flickering
 * light, test patterns, and rows stored in the delivered format.
 */
#include <math.h>
#include <string.h>

#include <cisp/format.h>

#include "vsensor.h"

double vs_flicker_mean(double depth, unsigned mains_hz, uint64_t t_end_ns, double exposure_ns)
{
	uint64_t f2 = 2ull * mains_hz; /* lamps flicker at twice the mains frequency */
	double ph1, w;

	if (!mains_hz || depth == 0)
		return 1.0;
	/* The phase at the end, from integers so it stays exact for any clock value. */
	ph1 = 2 * M_PI * (double)((t_end_ns % 1000000000ull) * f2 % 1000000000ull) / 1e9;
	w = 2 * M_PI * (double)f2 * exposure_ns * 1e-9; /* phase swept during the exposure */
	if (w < 1e-9)
		return 1.0 + depth * cos(ph1);
	return 1.0 + depth * (sin(ph1) - sin(ph1 - w)) / w;
}

void vs_pattern_row(int pattern, const struct cisp_sensor_mode *mode, uint32_t y, uint16_t *out)
{
	static const uint8_t bars[8][3] = { { 1, 1, 1 }, { 1, 1, 0 }, { 0, 1, 1 }, { 0, 1, 0 },
					    { 1, 0, 1 }, { 1, 0, 0 }, { 0, 0, 1 }, { 0, 0, 0 } };
	uint32_t black = mode->black_level, white = mode->white_level, w = mode->width;

	for (uint32_t x = 0; x < w; x++) {
		enum cisp_channel ch = cisp_cfa_channel(mode->cfa, x, y);
		int c = ch == CISP_CH_R ? 0 : ch == CISP_CH_B ? 2 : 1;

		switch (pattern) {
		case CISP_SENSOR_PATTERN_BARS:
			out[x] = (uint16_t)(bars[(uint64_t)x * 8 / w][c] ? white : black);
			break;
		case CISP_SENSOR_PATTERN_SOLID:
			out[x] = (uint16_t)(black + (white - black) / 2);
			break;
		default:
			out[x] = (uint16_t)(black + ((uint64_t)(white - black) * x + (w - 1) / 2) / (w - 1));
			break;
		}
	}
}

void vs_write_row(struct cisp_image *img, uint32_t y, const uint16_t *row, unsigned bits)
{
	const struct cisp_format_info *f = cisp_format_info(img->format);
	uint8_t *dst = img->plane[0].data + (size_t)y * img->plane[0].stride;
	uint32_t w = img->width;

	if (f->packed && f->bits == 10) {
		for (uint32_t x = 0; x < w; x += 4, dst += 5) {
			dst[0] = (uint8_t)(row[x] >> 2);
			dst[1] = (uint8_t)(row[x + 1] >> 2);
			dst[2] = (uint8_t)(row[x + 2] >> 2);
			dst[3] = (uint8_t)(row[x + 3] >> 2);
			dst[4] = (uint8_t)((row[x] & 3) | (row[x + 1] & 3) << 2 | (row[x + 2] & 3) << 4 |
					   (row[x + 3] & 3) << 6);
		}
	} else if (f->packed) {
		for (uint32_t x = 0; x < w; x += 2, dst += 3) {
			dst[0] = (uint8_t)(row[x] >> 4);
			dst[1] = (uint8_t)(row[x + 1] >> 4);
			dst[2] = (uint8_t)((row[x] & 15) | (row[x + 1] & 15) << 4);
		}
	} else if (f->bits == 8) {
		for (uint32_t x = 0; x < w; x++)
			dst[x] = (uint8_t)row[x];
	} else {
		unsigned shift = f->bits - bits; /* 0, or 16 - bits for the 16-bit variant */

		for (uint32_t x = 0; x < w; x++) {
			uint16_t v = (uint16_t)(row[x] << shift);

			dst[2 * x] = (uint8_t)v; /* little-endian whatever the host */
			dst[2 * x + 1] = (uint8_t)(v >> 8);
		}
	}
}
