/* SPDX-License-Identifier: MIT */
/* RGB PNG through libpng, with iCCP and eXIf chunks. */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include <cisp/format.h>

#include "core/error_internal.h"
#include "io/writers.h"

static void on_error(png_structp png, png_const_charp msg)
{
	char *out = png_get_error_ptr(png);

	snprintf(out, 256, "%s", msg);
	png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

int io_write_png(struct cisp_output_file *out, const struct cisp_image *img, const struct file_meta *meta)
{
	const char *path = cisp_output_file_path(out);
	bool wide = img->format == CISP_FMT_RGB48;
	char message[256] = "";
	png_structp png;
	png_infop info;
	uint8_t *volatile row = NULL;
	FILE *f;

	if (img->format != CISP_FMT_RGB888 && img->format != CISP_FMT_RGB48)
		return cisp_error(-EINVAL, "%s: cannot write a %s image as PNG", path, cisp_format_name(img->format));
	f = cisp_output_file_stream(out);
	if (!f)
		return -ENOMEM;
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, message, on_error, on_warning);
	info = png ? png_create_info_struct(png) : NULL;
	if (!info) {
		png_destroy_write_struct(&png, NULL);
		return cisp_error(-ENOMEM, "%s: out of memory", path);
	}
	if (setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		free(row);
		return cisp_error(-EIO, "%s: %s", path, message);
	}
	png_init_io(png, f);
	png_set_IHDR(png, info, img->width, img->height, wide ? 16 : 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	if (meta && meta->icc_size)
		png_set_iCCP(png, info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, meta->icc, (png_uint_32)meta->icc_size);
	if (meta && meta->exif_size)
		png_set_eXIf_1(png, info, (png_uint_32)meta->exif_size, (png_bytep)meta->exif);
	png_write_info(png, info);
	row = malloc((size_t)img->width * (wide ? 6 : 3));
	if (!row)
		png_error(png, "out of memory");
	for (uint32_t y = 0; y < img->height; y++) {
		const uint8_t *src = img->plane[0].data + y * img->plane[0].stride;
		if (wide) {
			/* PNG is big-endian; RGB48 is little-endian. */
			for (uint32_t i = 0; i < img->width * 3; i++) {
				row[2 * i] = src[2 * i + 1];
				row[2 * i + 1] = src[2 * i];
			}
		} else {
			memcpy(row, src, (size_t)img->width * 3);
		}
		png_write_row(png, row);
	}
	/* Every chunk went before the pixels: libpng would write eXIf again after them from @info. */
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &info);
	free(row);
	return 0;
}
