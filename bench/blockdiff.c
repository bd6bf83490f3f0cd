/* SPDX-License-Identifier: MIT */
/*
 * blockdiff: compare two linear RGB images (16-bit TIFF, PNG or PPM of the
 * same size) by the means of their 16x16 blocks, per channel.
 *
 *   blockdiff A B [--border N]
 *
 * For every block and channel: d = |mean_A - mean_B| / mean_B, over blocks
 * whose mean in B is at least 1% of full scale (darker ones are noise) and
 * no pixel of which is clipped in either image; blocks within N pixels of
 * the edge (default 16) are left out, since demosaics treat edges
 * differently. Prints the mean, 95th percentile and largest d in percent,
 * the ratio of the channel means (A/B), and "mean_diff_percent X" last.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <tiffio.h>

#include <cisp/error.h>
#include <cisp/raster.h>

static int read_tiff(const char *path, struct cisp_raster *r)
{
	TIFF *tif = TIFFOpen(path, "r");
	uint32_t w = 0, h = 0;
	uint16_t bps = 0, spp = 0, planar = PLANARCONFIG_CONTIG;
	int ret = -1;

	if (!tif)
		return -1;
	TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
	TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
	TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
	TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
	TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
	if ((bps == 8 || bps == 16) && spp == 3 && planar == PLANARCONFIG_CONTIG &&
	    !cisp_raster_alloc(r, w, h, 3, bps == 16 ? 65535 : 255)) {
		uint8_t *line = malloc((size_t)TIFFScanlineSize(tif));
		ret = line ? 0 : -1;
		for (uint32_t y = 0; y < h && !ret; y++) {
			if (TIFFReadScanline(tif, line, y, 0) < 0) {
				ret = -1;
				break;
			}
			for (uint32_t i = 0; i < 3 * w; i++)
				r->data[(size_t)y * 3 * w + i] = bps == 16 ? ((uint16_t *)line)[i] : line[i];
		}
		free(line);
	} else {
		fprintf(stderr, "blockdiff: %s: need an 8/16-bit RGB TIFF\n", path);
	}
	TIFFClose(tif);
	return ret;
}

static int read_image(const char *path, struct cisp_raster *r)
{
	const char *dot = strrchr(path, '.');

	if (dot && (!strcasecmp(dot, ".tif") || !strcasecmp(dot, ".tiff")))
		return read_tiff(path, r);
	if (cisp_raster_read(path, r)) {
		fprintf(stderr, "blockdiff: %s\n", cisp_last_error());
		return -1;
	}
	return r->channels == 3 ? 0 : -1;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	struct cisp_raster a, b;
	unsigned border = 16;
	double sum_a[3] = { 0 }, sum_b[3] = { 0 };
	double *d;
	size_t n = 0, skipped = 0;

	if (argc != 3 && !(argc == 5 && !strcmp(argv[3], "--border"))) {
		fprintf(stderr, "usage: blockdiff A B [--border N]\n");
		return 2;
	}
	if (argc == 5)
		border = (unsigned)atoi(argv[4]);
	if (read_image(argv[1], &a) || read_image(argv[2], &b))
		return 1;
	if (a.width != b.width || a.height != b.height) {
		fprintf(stderr, "blockdiff: sizes differ: %ux%u and %ux%u\n", a.width, a.height, b.width, b.height);
		return 1;
	}
	d = malloc(sizeof(double) * 3 * (a.width / 16 + 1) * (a.height / 16 + 1));
	if (!d)
		return 1;
	for (unsigned by = border; by + 16 + border <= a.height; by += 16) {
		for (unsigned bx = border; bx + 16 + border <= a.width; bx += 16) {
			double ma[3] = { 0 }, mb[3] = { 0 };
			bool clipped = false;
			for (unsigned y = by; y < by + 16; y++)
				for (unsigned x = bx; x < bx + 16; x++)
					for (int c = 0; c < 3; c++) {
						size_t i = ((size_t)y * a.width + x) * 3 + c;
						double va = a.data[i] / (double)a.maxval, vb = b.data[i] / (double)b.maxval;
						clipped |= a.data[i] >= a.maxval || b.data[i] >= b.maxval;
						ma[c] += va / 256;
						mb[c] += vb / 256;
					}
			if (clipped) {
				skipped++;
				continue;
			}
			for (int c = 0; c < 3; c++) {
				sum_a[c] += ma[c];
				sum_b[c] += mb[c];
				if (mb[c] >= 0.01)
					d[n++] = fabs(ma[c] - mb[c]) / mb[c];
			}
		}
	}
	if (!n) {
		fprintf(stderr, "blockdiff: no block to compare\n");
		return 1;
	}
	double mean = 0;
	for (size_t i = 0; i < n; i++)
		mean += d[i];
	mean /= (double)n;
	qsort(d, n, sizeof(double), compare_double);
	printf("blocks x channels compared: %zu (%zu blocks with clipped pixels left out)\n", n, skipped);
	printf("channel mean ratio A/B: R %.4f G %.4f B %.4f\n", sum_a[0] / sum_b[0], sum_a[1] / sum_b[1],
	       sum_a[2] / sum_b[2]);
	printf("block difference: 95th percentile %.2f %%, largest %.2f %%\n", 100 * d[(size_t)(0.95 * (double)(n - 1))],
	       100 * d[n - 1]);
	printf("mean_diff_percent %.3f\n", 100 * mean);
	free(d);
	cisp_raster_free(&a);
	cisp_raster_free(&b);
	return 0;
}
