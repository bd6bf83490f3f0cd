/* SPDX-License-Identifier: MIT */
/* RGB TIFF through libtiff, with the ICC profile and camera tags. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/format.h>

#include "core/error_internal.h"
#include "io/tiff_common.h"
#include "io/writers.h"

int io_write_tiff(struct cisp_output_file *out, const struct cisp_image *img, const struct file_meta *meta)
{
	const char *path = cisp_output_file_path(out);
	bool wide = img->format == CISP_FMT_RGB48;
	const struct cisp_raw_frame *frame = meta ? meta->frame : NULL;
	struct tiff_messages msg;
	uint8_t *row;
	TIFF *tif;
	int ret = 0;

	if (img->format != CISP_FMT_RGB888 && img->format != CISP_FMT_RGB48)
		return cisp_error(-EINVAL, "%s: cannot write a %s image as TIFF", path, cisp_format_name(img->format));
	row = malloc((size_t)img->width * 6);
	if (!row)
		return cisp_error(-ENOMEM, "%s: out of memory", path);
	tif = tiff_create(out, &msg);
	if (!tif) {
		free(row);
		return cisp_error(-EIO, "cannot create %s: %s", path, msg.error);
	}
	TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, img->width);
	TIFFSetField(tif, TIFFTAG_IMAGELENGTH, img->height);
	TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, wide ? 16 : 8);
	TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 3);
	TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
	TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
	TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
	TIFFSetField(tif, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT);
	/* TIFF 6.0 requires a resolution: 72 dpi, EXIF's default, as the image has no physical size. */
	TIFFSetField(tif, TIFFTAG_XRESOLUTION, 72.0f);
	TIFFSetField(tif, TIFFTAG_YRESOLUTION, 72.0f);
	TIFFSetField(tif, TIFFTAG_RESOLUTIONUNIT, RESUNIT_INCH);
	TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tif, 0));
	TIFFSetField(tif, TIFFTAG_SOFTWARE, "cisp");
	if (meta && meta->icc_size)
		TIFFSetField(tif, TIFFTAG_ICCPROFILE, (uint32_t)meta->icc_size, meta->icc);
	if (frame && frame->make[0])
		TIFFSetField(tif, TIFFTAG_MAKE, frame->make);
	if (frame && frame->model[0])
		TIFFSetField(tif, TIFFTAG_MODEL, frame->model);
	if (frame && frame->datetime[0])
		TIFFSetField(tif, TIFFTAG_DATETIME, frame->datetime);
	for (uint32_t y = 0; y < img->height && !ret; y++) {
		const uint8_t *src = img->plane[0].data + y * img->plane[0].stride;
		if (wide) {
			for (uint32_t i = 0; i < img->width * 3; i++) {
				uint16_t v = (uint16_t)(src[2 * i] | src[2 * i + 1] << 8);
				memcpy(row + 2 * i, &v, 2); /* libtiff takes native order */
			}
		} else {
			memcpy(row, src, (size_t)img->width * 3);
		}
		if (TIFFWriteScanline(tif, row, y, 0) < 0)
			ret = -EIO;
	}
	free(row);
	return tiff_close(tif, path, &msg, ret);
}
