/* SPDX-License-Identifier: MIT */
/*
 * mosaic: keep, at each pixel of an RGB image, the one colour its CFA site
 * sees, as a 16-bit grey mosaic (v16 = round(v * 65535 / maxval), so an 8-bit
 * v becomes v * 257 exactly).
 *
 *   mosaic [--cfa RGGB|GRBG|GBRG|BGGR] IN.png|IN.ppm OUT.pgm|OUT.png
 *   mosaic [--cfa ORDER] --size WxH IN... OUT.pgm|OUT.png
 *
 * With --size, the inputs (all of one size) are laid side by side, left to
 * right then top to bottom, repeated as needed and cut at the right and
 * bottom edges, into a WxH picture first: a large natural test mosaic.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/raster.h>

static int usage(void)
{
	fprintf(stderr, "usage: mosaic [--cfa RGGB|GRBG|GBRG|BGGR] [--size WxH] IN... OUT.pgm|OUT.png\n"
			"(several inputs only with --size)\n");
	return 2;
}

int main(int argc, char **argv)
{
	enum cisp_cfa cfa = CISP_CFA_RGGB;
	unsigned long w = 0, h = 0;
	int first, count, status = 1;
	struct cisp_raster *in, out = { 0 };

	for (first = 1; first + 1 < argc && !strncmp(argv[first], "--", 2); first += 2) {
		if (!strcmp(argv[first], "--cfa")) {
			if (cisp_cfa_from_name(argv[first + 1], &cfa)) {
				fprintf(stderr, "mosaic: %s\n", cisp_last_error());
				return 2;
			}
		} else if (!strcmp(argv[first], "--size")) {
			char *end;

			w = strtoul(argv[first + 1], &end, 10);
			h = *end == 'x' ? strtoul(end + 1, &end, 10) : 0;
			if (*end || !w || !h || w > 65536 || h > 65536) {
				fprintf(stderr, "mosaic: --size '%s' is not WxH\n", argv[first + 1]);
				return 2;
			}
		} else {
			return usage();
		}
	}
	count = argc - first - 1;
	if (count < 1 || (count > 1 && !w))
		return usage();
	in = calloc((size_t)count, sizeof(*in));
	if (!in)
		return 1;
	for (int i = 0; i < count; i++) {
		if (cisp_raster_read(argv[first + i], &in[i])) {
			fprintf(stderr, "mosaic: %s\n", cisp_last_error());
			goto done;
		}
		if (in[i].channels != 3 || in[i].width != in[0].width || in[i].height != in[0].height) {
			fprintf(stderr, "mosaic: %s is not an RGB image of %ux%u\n", argv[first + i], in[0].width,
				in[0].height);
			goto done;
		}
	}
	if (!w) {
		w = in[0].width;
		h = in[0].height;
	}
	if (cisp_raster_alloc(&out, (uint32_t)w, (uint32_t)h, 1, 65535)) {
		fprintf(stderr, "mosaic: %s\n", cisp_last_error());
		goto done;
	}
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			uint32_t tw = in[0].width, th = in[0].height, cols = ((uint32_t)w + tw - 1) / tw;
			const struct cisp_raster *t = &in[((y / th) * cols + x / tw) % (uint32_t)count];
			size_t i = ((size_t)(y % th) * tw + x % tw) * 3;
			/* Channel index of the site: R 0, Gr/Gb 1, B 2. */
			enum cisp_channel ch = cisp_cfa_channel(cfa, x, y);
			int c = ch == CISP_CH_R ? 0 : ch == CISP_CH_B ? 2 : 1;

			out.data[(size_t)y * w + x] = (uint16_t)(((uint64_t)t->data[i + c] * 65535 + t->maxval / 2) / t->maxval);
		}
	if (cisp_raster_write(argv[argc - 1], &out)) {
		fprintf(stderr, "mosaic: %s\n", cisp_last_error());
		goto done;
	}
	status = 0;
done:
	for (int i = 0; i < count; i++)
		cisp_raster_free(&in[i]);
	free(in);
	cisp_raster_free(&out);
	return status;
}
