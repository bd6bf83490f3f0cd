/* SPDX-License-Identifier: MIT */
/*
 * cpsnr: colour PSNR of a test RGB image against a reference.
 *
 *   cpsnr [-b BORDER] REF TEST
 *
 * Both images go to an 8-bit scale (v * 255 / maxval, as doubles), peak 255;
 * CPSNR = 10 log10(255^2 / MSE) with the MSE over the three channels of every
 * pixel at least BORDER (default 10) pixels from the edges. Prints
 * "CPSNR <dB> dB  R <dB> G <dB> B <dB>  (<n> px, border <b>)".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/raster.h>

static double psnr(double mse)
{
	return mse > 0 ? 10 * log10(255.0 * 255.0 / mse) : INFINITY;
}

int main(int argc, char **argv)
{
	struct cisp_raster ref = { 0 }, test = { 0 };
	long border = 10;
	double se[3] = { 0, 0, 0 };
	long long n = 0;
	int status = 1;

	if (argc == 5 && !strcmp(argv[1], "-b")) {
		char *end;

		border = strtol(argv[2], &end, 10);
		if (*end || end == argv[2] || border < 0) {
			fprintf(stderr, "cpsnr: -b '%s' is not a border width\n", argv[2]);
			return 2;
		}
		argv += 2;
		argc -= 2;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: cpsnr [-b BORDER] REF TEST\n");
		return 2;
	}
	if (cisp_raster_read(argv[1], &ref) || cisp_raster_read(argv[2], &test)) {
		fprintf(stderr, "cpsnr: %s\n", cisp_last_error());
		goto done;
	}
	if (ref.channels != 3 || test.channels != 3 || ref.width != test.width || ref.height != test.height) {
		fprintf(stderr, "cpsnr: need two RGB images of one size (%ux%u x%u, %ux%u x%u)\n", ref.width,
			ref.height, ref.channels, test.width, test.height, test.channels);
		goto done;
	}
	for (long y = border; y < (long)ref.height - border; y++)
		for (long x = border; x < (long)ref.width - border; x++) {
			size_t i = ((size_t)y * ref.width + (size_t)x) * 3;

			for (int c = 0; c < 3; c++) {
				double d = ref.data[i + c] * 255.0 / ref.maxval - test.data[i + c] * 255.0 / test.maxval;

				se[c] += d * d;
			}
			n++;
		}
	if (!n) {
		fprintf(stderr, "cpsnr: no pixels left inside a border of %ld\n", border);
		goto done;
	}
	printf("CPSNR %.4f dB  R %.4f G %.4f B %.4f  (%lld px, border %ld)\n", psnr((se[0] + se[1] + se[2]) / (3.0 * n)),
	       psnr(se[0] / n), psnr(se[1] / n), psnr(se[2] / n), n, border);
	status = 0;
done:
	cisp_raster_free(&ref);
	cisp_raster_free(&test);
	return status;
}
