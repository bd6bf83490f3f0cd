/* SPDX-License-Identifier: MIT */
/*
 * rgb2raw: render an sRGB image as the raw mosaic a camera with a known
 * colour matrix would record, for DNGs whose right answer is known.
 *
 *   rgb2raw IN.png|IN.ppm|chart OUT.pgm --matrix M11,...,M33 [--cfa RGGB]
 *           [--black N] [--white N] [--level F]
 *
 * "chart" stands for a 576x384 image of 24 flat 96x96 patches with the
 * sRGB values commonly published for the ColorChecker chart.
 *
 * Each pixel: sRGB code -> linear sRGB (IEC 61966-2-1) -> XYZ (D65) ->
 * camera RGB = matrix * XYZ (the matrix is XYZ to camera, DNG ColorMatrix
 * convention) -> raw = black + camera * scale, rounded, with scale chosen
 * so that sRGB white reaches F (default 0.8) of white - black in the
 * camera's strongest channel. The mosaic keeps the colour of each pixel's
 * CFA site. Prints the AsShotNeutral of D65 light (camera RGB of white,
 * divided by its green) as "neutral R,G,B".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/raster.h>

static const double srgb_to_xyz[9] = { 0.4124564, 0.3575761, 0.1804375, 0.2126729, 0.7151522,
				       0.0721750, 0.0193339, 0.1191920, 0.9503041 };

/* ColorChecker patches in 8-bit sRGB, row by row (dark skin ... black). */
static const uint8_t chart[24][3] = {
	{ 115, 82, 68 },   { 194, 150, 130 }, { 98, 122, 157 },  { 87, 108, 67 },   { 133, 128, 177 }, { 103, 189, 170 },
	{ 214, 126, 44 },  { 80, 91, 166 },   { 193, 90, 99 },   { 94, 60, 108 },   { 157, 188, 64 },  { 224, 163, 46 },
	{ 56, 61, 150 },   { 70, 148, 73 },   { 175, 54, 60 },   { 231, 199, 31 },  { 187, 86, 149 },  { 8, 133, 161 },
	{ 243, 243, 242 }, { 200, 200, 200 }, { 160, 160, 160 }, { 122, 122, 121 }, { 85, 85, 85 },    { 52, 52, 52 },
};

static int make_chart(struct cisp_raster *r)
{
	if (cisp_raster_alloc(r, 576, 384, 3, 255))
		return -1;
	for (uint32_t y = 0; y < r->height; y++)
		for (uint32_t x = 0; x < r->width; x++)
			for (int c = 0; c < 3; c++)
				r->data[((size_t)y * r->width + x) * 3 + c] = chart[(y / 96) * 6 + x / 96][c];
	return 0;
}

static double srgb_decode(double v)
{
	return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

int main(int argc, char **argv)
{
	struct cisp_raster in, out;
	double m[9], cam_of_rgb[9], white_cam[3] = { 0 }, level = 0.8, scale, peak = 0;
	unsigned black = 0, white = 65535;
	enum cisp_cfa cfa = CISP_CFA_RGGB;
	bool have_matrix = false;

	if (argc < 3) {
		fprintf(stderr, "usage: rgb2raw IN OUT.pgm --matrix M11,...,M33 [--cfa RGGB] [--black N] [--white N] "
				"[--level F]\n");
		return 2;
	}
	for (int i = 3; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--matrix")) {
			have_matrix = sscanf(argv[i + 1], "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &m[0], &m[1], &m[2], &m[3],
					     &m[4], &m[5], &m[6], &m[7], &m[8]) == 9;
		} else if (!strcmp(argv[i], "--cfa")) {
			if (cisp_cfa_from_name(argv[i + 1], &cfa)) {
				fprintf(stderr, "rgb2raw: %s\n", cisp_last_error());
				return 2;
			}
		} else if (!strcmp(argv[i], "--black")) {
			black = (unsigned)atoi(argv[i + 1]);
		} else if (!strcmp(argv[i], "--white")) {
			white = (unsigned)atoi(argv[i + 1]);
		} else if (!strcmp(argv[i], "--level")) {
			level = atof(argv[i + 1]);
		} else {
			fprintf(stderr, "rgb2raw: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (!have_matrix || white <= black || white > 65535 || !(level > 0 && level <= 1)) {
		fprintf(stderr, "rgb2raw: need --matrix with 9 numbers, black < white <= 65535, 0 < level <= 1\n");
		return 2;
	}
	if (!strcmp(argv[1], "chart") ? make_chart(&in) : cisp_raster_read(argv[1], &in) || in.channels != 3) {
		fprintf(stderr, "rgb2raw: %s: %s\n", argv[1], in.channels != 3 ? "need an RGB image" : cisp_last_error());
		return 1;
	}
	/* Camera RGB of linear sRGB, and of sRGB white (D65). */
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			cam_of_rgb[3 * i + j] = 0;
			for (int k = 0; k < 3; k++)
				cam_of_rgb[3 * i + j] += m[3 * i + k] * srgb_to_xyz[3 * k + j];
			white_cam[i] += cam_of_rgb[3 * i + j];
		}
	for (int i = 0; i < 3; i++)
		peak = white_cam[i] > peak ? white_cam[i] : peak;
	scale = level * (white - black) / peak;
	printf("neutral %.6f,%.6f,%.6f\n", white_cam[0] / white_cam[1], 1.0, white_cam[2] / white_cam[1]);

	if (cisp_raster_alloc(&out, in.width & ~1u, in.height & ~1u, 1, 65535))
		return 1;
	for (uint32_t y = 0; y < out.height; y++) {
		for (uint32_t x = 0; x < out.width; x++) {
			const uint16_t *p = in.data + ((size_t)y * in.width + x) * 3;
			enum cisp_channel ch = cisp_cfa_channel(cfa, x, y);
			int c = ch == CISP_CH_R ? 0 : ch == CISP_CH_B ? 2 : 1;
			double v = 0;
			for (int j = 0; j < 3; j++)
				v += cam_of_rgb[3 * c + j] * srgb_decode(p[j] / (double)in.maxval);
			v = black + v * scale;
			out.data[(size_t)y * out.width + x] = (uint16_t)(v < 0 ? 0 : v > white ? white : lround(v));
		}
	}
	if (cisp_raster_write(argv[2], &out)) {
		fprintf(stderr, "rgb2raw: %s\n", cisp_last_error());
		return 1;
	}
	cisp_raster_free(&in);
	cisp_raster_free(&out);
	return 0;
}
