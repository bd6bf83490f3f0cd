/* SPDX-License-Identifier: MIT */
/*
 * gradcorr: how strongly the colour channels of RGB images move together,
 * as the correlation of their gradients (what colour-difference demosaics
 * rely on).
 *
 *   gradcorr IMAGE.png...
 *
 * For each image: the horizontal and vertical differences of neighbouring
 * pixels of R, G and B (pixels within 10 of the edges left out), and the
 * Pearson correlation of the R and G differences, of G and B, of R and B,
 * each pooled over both directions. Prints the three and their mean per
 * image, then the mean over the images of each column.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/raster.h>

#define BORDER 10

/* Sums for the correlation of two series. */
struct corr {
	double n, a, b, aa, bb, ab;
};

static void corr_add(struct corr *c, double a, double b)
{
	c->n++;
	c->a += a;
	c->b += b;
	c->aa += a * a;
	c->bb += b * b;
	c->ab += a * b;
}

static double corr_value(const struct corr *c)
{
	double va = c->aa - c->a * c->a / c->n, vb = c->bb - c->b * c->b / c->n;

	return va > 0 && vb > 0 ? (c->ab - c->a * c->b / c->n) / sqrt(va * vb) : 1;
}

int main(int argc, char **argv)
{
	double total[4] = { 0 };
	int images = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: gradcorr IMAGE.png...\n");
		return 2;
	}
	printf("%-24s %7s %7s %7s %7s\n", "# image", "R-G", "G-B", "R-B", "mean");
	for (int i = 1; i < argc; i++) {
		struct cisp_raster r = { 0 };
		struct corr c[3];
		const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		double v[4];

		if (cisp_raster_read(argv[i], &r)) {
			fprintf(stderr, "gradcorr: %s\n", cisp_last_error());
			return 1;
		}
		if (r.channels != 3 || r.width <= 2 * BORDER + 1 || r.height <= 2 * BORDER + 1) {
			fprintf(stderr, "gradcorr: %s is not an RGB image larger than %dx%d\n", argv[i], 2 * BORDER + 1,
				2 * BORDER + 1);
			cisp_raster_free(&r);
			return 1;
		}
		memset(c, 0, sizeof(c));
		for (uint32_t y = BORDER; y + BORDER < r.height; y++)
			for (uint32_t x = BORDER; x + BORDER < r.width; x++) {
				const uint16_t *p = r.data + ((size_t)y * r.width + x) * 3;
				const uint16_t *e = p + 3, *s = p + 3 * (size_t)r.width;
				double dx[3], dy[3];

				for (int k = 0; k < 3; k++) {
					dx[k] = (double)e[k] - p[k];
					dy[k] = (double)s[k] - p[k];
				}
				for (int k = 0; k < 3; k++) {
					int a = k == 2 ? 0 : k, b = k == 0 ? 1 : 2; /* R-G, G-B, R-B */

					corr_add(&c[k], dx[a], dx[b]);
					corr_add(&c[k], dy[a], dy[b]);
				}
			}
		v[3] = 0;
		for (int k = 0; k < 3; k++) {
			v[k] = corr_value(&c[k]);
			v[3] += v[k] / 3;
		}
		printf("%-24s %7.3f %7.3f %7.3f %7.3f\n", name, v[0], v[1], v[2], v[3]);
		for (int k = 0; k < 4; k++)
			total[k] += v[k];
		images++;
		cisp_raster_free(&r);
	}
	printf("%-24s %7.3f %7.3f %7.3f %7.3f\n", "mean", total[0] / images, total[1] / images, total[2] / images,
	       total[3] / images);
	return 0;
}
