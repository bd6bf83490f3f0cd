/* SPDX-License-Identifier: MIT */
/*
 * Image files as scenes: PNG, PPM and PGM through raster.h, JPEG through
 * libjpeg when cisp was built with it. Samples are sRGB-encoded; they are
 * decoded to linear sRGB, which the scene then takes as reflectance (1 is
 * a perfect white).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/image.h>
#include <cisp/input_file.h>
#include <cisp/raster.h>

#include "core/error_internal.h"
#include "scene.h"
#include "sensor/sensor_config.h"

#if CISP_HAVE_JPEG
#include <jpeglib.h>
#endif

/* The sRGB decoding function (IEC 61966-2-1). */
static double srgb_to_linear(double v)
{
	return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

/* 8-bit or deeper interleaved samples to linear floats, through a table. */
static int linearise(const void *samples, bool bytes, unsigned channels, unsigned maxval, uint32_t w, uint32_t h,
		     float **rgb)
{
	size_t n = (size_t)w * h;
	float *lut = malloc(((size_t)maxval + 1) * sizeof(*lut));
	float *out = malloc(n * 3 * sizeof(*out));

	if (!lut || !out) {
		free(lut);
		free(out);
		return cisp_error(-ENOMEM, "scene image: out of memory");
	}
	for (unsigned i = 0; i <= maxval; i++)
		lut[i] = (float)srgb_to_linear((double)i / maxval);
	for (size_t i = 0; i < n; i++)
		for (unsigned c = 0; c < 3; c++) {
			size_t k = i * channels + (channels == 3 ? c : 0);
			unsigned v = bytes ? ((const uint8_t *)samples)[k] : ((const uint16_t *)samples)[k];

			out[i * 3 + c] = lut[v > maxval ? maxval : v];
		}
	free(lut);
	*rgb = out;
	return 0;
}

#if CISP_HAVE_JPEG
struct jpeg_err {
	struct jpeg_error_mgr mgr;
	jmp_buf jump;
	char message[JMSG_LENGTH_MAX];
};

static void jpeg_fail(j_common_ptr cinfo)
{
	struct jpeg_err *e = (struct jpeg_err *)cinfo->err;

	e->mgr.format_message(cinfo, e->message);
	longjmp(e->jump, 1);
}

static int load_jpeg(FILE *f, const char *path, uint32_t *width, uint32_t *height, float **rgb)
{
	struct jpeg_decompress_struct cinfo;
	struct jpeg_err err;
	uint8_t *volatile pixels = NULL;
	int ret;

	cinfo.err = jpeg_std_error(&err.mgr);
	err.mgr.error_exit = jpeg_fail;
	if (setjmp(err.jump)) {
		jpeg_destroy_decompress(&cinfo);
		free(pixels);
		return cisp_error(-EINVAL, "scene image %s: %s", path, err.message);
	}
	jpeg_create_decompress(&cinfo);
	jpeg_stdio_src(&cinfo, f);
	jpeg_read_header(&cinfo, TRUE);
	cinfo.out_color_space = JCS_RGB;
	jpeg_start_decompress(&cinfo);
	if (cinfo.output_width > CISP_MAX_DIMENSION || cinfo.output_height > CISP_MAX_DIMENSION) {
		jpeg_destroy_decompress(&cinfo);
		return cisp_error(-EINVAL, "scene image %s: %ux%u is too large", path, cinfo.output_width,
				  cinfo.output_height);
	}
	pixels = malloc((size_t)cinfo.output_width * cinfo.output_height * 3);
	if (!pixels) {
		jpeg_destroy_decompress(&cinfo);
		return cisp_error(-ENOMEM, "scene image %s: out of memory", path);
	}
	while (cinfo.output_scanline < cinfo.output_height) {
		JSAMPROW row = pixels + (size_t)cinfo.output_scanline * cinfo.output_width * 3;

		jpeg_read_scanlines(&cinfo, &row, 1);
	}
	*width = cinfo.output_width;
	*height = cinfo.output_height;
	jpeg_finish_decompress(&cinfo);
	jpeg_destroy_decompress(&cinfo);
	ret = linearise(pixels, true, 3, 255, *width, *height, rgb);
	free(pixels);
	return ret;
}
#endif

int vs_image_load(const char *path, uint32_t *width, uint32_t *height, float **rgb)
{
	struct cisp_raster r;
	uint8_t magic[3] = { 0 };
	FILE *f;
	int ret = cisp_input_file_open(path, &f, NULL);

	if (ret) /* what is not a regular file is said as such, not as an unknown scene */
		return cisp_error_prefix(ret == -EINVAL ? -EINVAL : -ENOENT, "scene image");
	if (fread(magic, 1, 3, f) == 3 && magic[0] == 0xFF && magic[1] == 0xD8 && magic[2] == 0xFF) {
#if CISP_HAVE_JPEG
		rewind(f);
		ret = load_jpeg(f, path, width, height, rgb);
		fclose(f);
		return ret;
#else
		fclose(f);
		return cisp_error(-ENOTSUP, "scene image %s: this cisp was built without JPEG support (libjpeg)", path);
#endif
	}
	fclose(f);
	ret = cisp_raster_read(path, &r);
	if (ret < 0)
		return cisp_error_prefix(ret == -ENOENT ? -EINVAL : ret, "scene image");
	*width = r.width;
	*height = r.height;
	ret = linearise(r.data, false, r.channels, r.maxval, r.width, r.height, rgb);
	cisp_raster_free(&r);
	return ret;
}
