/* SPDX-License-Identifier: MIT */
/*
 * brightness: how much brighter image A is than image B, in stops.
 *
 *   brightness A B
 *
 * A and B are sRGB-encoded RGB images (PNG or PPM, 8 or 16 bits, any
 * sizes). Each pixel's luminance is Y = 0.2126 R + 0.7152 G + 0.0722 B of
 * its values decoded by the sRGB curve (the light a display gives), and
 * each image's mean and median Y are compared: log2(A / B). Prints
 * "mean A B stops" and "median A B stops" lines.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cisp/error.h>
#include <cisp/raster.h>

#define BINS 65536

static double srgb_decode(double e)
{
	return e <= 0.04045 ? e / 12.92 : pow((e + 0.055) / 1.055, 2.4);
}

/* Mean and median display luminance of @path, 0..1. */
static int measure(const char *path, double *mean, double *median)
{
	struct cisp_raster r;
	double *lut, sum = 0;
	unsigned long *hist, n, half, total = 0;

	if (cisp_raster_read(path, &r) || r.channels != 3) {
		fprintf(stderr, "brightness: %s: %s\n", path, r.channels != 3 ? "not an RGB image" : cisp_last_error());
		return -1;
	}
	lut = malloc((r.maxval + 1) * sizeof(double));
	hist = calloc(BINS, sizeof(unsigned long));
	if (!lut || !hist) {
		free(lut);
		free(hist);
		cisp_raster_free(&r);
		return -1;
	}
	for (unsigned v = 0; v <= r.maxval; v++)
		lut[v] = srgb_decode((double)v / r.maxval);
	n = (unsigned long)r.width * r.height;
	for (unsigned long i = 0; i < n; i++) {
		const uint16_t *p = r.data + 3 * i;
		double y = 0.2126 * lut[p[0]] + 0.7152 * lut[p[1]] + 0.0722 * lut[p[2]];
		sum += y;
		hist[(unsigned)(y * (BINS - 1) + 0.5)]++;
	}
	*mean = sum / (double)n;
	half = (n + 1) / 2;
	for (unsigned b = 0; b < BINS; b++)
		if ((total += hist[b]) >= half) {
			*median = (double)b / (BINS - 1);
			break;
		}
	free(lut);
	free(hist);
	cisp_raster_free(&r);
	return 0;
}

int main(int argc, char **argv)
{
	double mean[2], median[2];

	if (argc != 3) {
		fprintf(stderr, "usage: brightness A B\n");
		return 2;
	}
	if (measure(argv[1], &mean[0], &median[0]) || measure(argv[2], &mean[1], &median[1]))
		return 1;
	printf("mean %.4f %.4f %+.2f\n", mean[0], mean[1], log2(mean[0] / mean[1]));
	printf("median %.4f %.4f %+.2f\n", median[0], median[1], log2(fmax(median[0], 1e-6) / fmax(median[1], 1e-6)));
	return 0;
}
