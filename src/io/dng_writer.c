/* SPDX-License-Identifier: MIT */
/* Raw frames as DNG files, through libtiff's DNG and EXIF tags. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/dng.h>

#include "core/error_internal.h"
#include "io/tiff_common.h"

/* One sample of a Bayer image in any of cisp's layouts. */
static unsigned sample_at(const struct cisp_image *img, const struct cisp_format_info *f, uint32_t x, uint32_t y)
{
	const uint8_t *row = img->plane[0].data + (size_t)y * img->plane[0].stride;

	if (f->packed && f->bits == 10) {
		const uint8_t *g = row + (size_t)(x / 4) * 5;
		return (unsigned)g[x % 4] << 2 | (g[4] >> (2 * (x % 4)) & 3);
	}
	if (f->packed) {
		const uint8_t *g = row + (size_t)(x / 2) * 3;
		return (unsigned)g[x % 2] << 4 | (g[2] >> (4 * (x % 2)) & 15);
	}
	if (f->bits == 8)
		return row[x];
	return (unsigned)(row[2 * x] | row[2 * x + 1] << 8);
}

/* DNG's CFAPattern colour codes (0 red, 1 green, 2 blue) of the 2x2 cell, row by row. */
static void cfa_pattern(enum cisp_cfa cfa, uint8_t pattern[4])
{
	for (unsigned i = 0; i < 4; i++) {
		enum cisp_channel ch = cisp_cfa_channel(cfa, i & 1, i >> 1);
		pattern[i] = ch == CISP_CH_R ? 0 : ch == CISP_CH_B ? 2 : 1;
	}
}

static int write_exif(TIFF *tif, const struct cisp_raw_frame *frame, uint64_t *offset)
{
	if (TIFFCreateEXIFDirectory(tif)) /* 0 on success */
		return -EIO;
	if (frame->exposure_s > 0)
		TIFFSetField(tif, EXIFTAG_EXPOSURETIME, (double)frame->exposure_s);
	if (frame->fnumber > 0)
		TIFFSetField(tif, EXIFTAG_FNUMBER, (double)frame->fnumber);
	if (frame->iso > 0) {
		uint16_t iso = (uint16_t)(frame->iso > 65535 ? 65535 : lroundf(frame->iso));
		TIFFSetField(tif, EXIFTAG_ISOSPEEDRATINGS, 1, &iso);
	}
	if (frame->focal_mm > 0)
		TIFFSetField(tif, EXIFTAG_FOCALLENGTH, (double)frame->focal_mm);
	if (frame->datetime[0])
		TIFFSetField(tif, EXIFTAG_DATETIMEORIGINAL, frame->datetime);
	return TIFFWriteCustomDirectory(tif, offset) ? 0 : -EIO;
}

static void set_tags(TIFF *tif, const struct cisp_raw_frame *frame, const struct cisp_format_info *f)
{
	static const uint8_t dng_version[4] = { 1, 4, 0, 0 }, backward[4] = { 1, 1, 0, 0 };
	static const uint16_t two_by_two[2] = { 2, 2 };
	const struct cisp_image *img = &frame->image;
	char unique[160];
	uint8_t pattern[4];

	TIFFSetField(tif, TIFFTAG_SUBFILETYPE, 0);
	TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, img->width);
	TIFFSetField(tif, TIFFTAG_IMAGELENGTH, img->height);
	TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, f->bits == 8 ? 8 : 16);
	TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
	TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_CFA);
	TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
	TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
	TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tif, 0));
	TIFFSetField(tif, TIFFTAG_ORIENTATION,
		     frame->orientation >= 1 && frame->orientation <= 8 ? frame->orientation : 1);
	TIFFSetField(tif, TIFFTAG_SOFTWARE, "cisp");
	if (frame->make[0])
		TIFFSetField(tif, TIFFTAG_MAKE, frame->make);
	if (frame->model[0])
		TIFFSetField(tif, TIFFTAG_MODEL, frame->model);
	snprintf(unique, sizeof(unique), "%s%s%s", frame->make, frame->make[0] && frame->model[0] ? " " : "",
		 frame->make[0] || frame->model[0] ? frame->model : "cisp raw frame");
	TIFFSetField(tif, TIFFTAG_DNGVERSION, dng_version);
	TIFFSetField(tif, TIFFTAG_DNGBACKWARDVERSION, backward);
	TIFFSetField(tif, TIFFTAG_UNIQUECAMERAMODEL, unique);
	cfa_pattern(f->cfa, pattern);
	TIFFSetField(tif, TIFFTAG_CFAREPEATPATTERNDIM, two_by_two);
	TIFFSetField(tif, TIFFTAG_CFAPATTERN, 4, pattern);

	if (!(frame->defaults & CISP_RAW_DEFAULT_BLACK)) {
		/* BlackLevel is row-major over the 2x2 repeat, like CFAPattern. */
		float black[4];
		for (unsigned i = 0; i < 4; i++)
			black[i] = frame->black[cisp_cfa_channel(f->cfa, i & 1, i >> 1)];
		TIFFSetField(tif, TIFFTAG_BLACKLEVELREPEATDIM, two_by_two);
		TIFFSetField(tif, TIFFTAG_BLACKLEVEL, 4, black);
	}
	if (!(frame->defaults & CISP_RAW_DEFAULT_WHITE)) {
		uint32_t white = frame->white;
		TIFFSetField(tif, TIFFTAG_WHITELEVEL, 1, &white);
	}
	if (frame->has_matrix) {
		TIFFSetField(tif, TIFFTAG_COLORMATRIX1, 9, frame->xyz_to_cam);
		TIFFSetField(tif, TIFFTAG_CALIBRATIONILLUMINANT1, 21); /* D65 */
	}
	if (frame->has_wb) {
		/* AsShotNeutral is the camera's response to the light: the reciprocal gains. */
		float neutral[3];
		for (int c = 0; c < 3; c++)
			neutral[c] = (float)(frame->wb_gains[1] / frame->wb_gains[c]);
		TIFFSetField(tif, TIFFTAG_ASSHOTNEUTRAL, 3, neutral);
	}
	/* The exposure the frame asks to add: develop reads it back as the file's own (raw_frame.h). */
	if (frame->baseline_ev != 0 && isfinite(frame->baseline_ev))
		TIFFSetField(tif, TIFFTAG_BASELINEEXPOSURE, (double)frame->baseline_ev);
	if (frame->crop.width && frame->crop.height) {
		float origin[2] = { (float)frame->crop.x, (float)frame->crop.y };
		float size[2] = { (float)frame->crop.width, (float)frame->crop.height };
		TIFFSetField(tif, TIFFTAG_DEFAULTCROPORIGIN, origin);
		TIFFSetField(tif, TIFFTAG_DEFAULTCROPSIZE, size);
	}
	if (frame->datetime[0])
		TIFFSetField(tif, TIFFTAG_DATETIME, frame->datetime);
}

static bool has_exif(const struct cisp_raw_frame *frame)
{
	return frame->exposure_s > 0 || frame->fnumber > 0 || frame->iso > 0 || frame->focal_mm > 0 ||
	       frame->datetime[0];
}

int cisp_dng_write_to(struct cisp_output_file *out, const struct cisp_raw_frame *frame)
{
	const char *path = cisp_output_file_path(out);
	const struct cisp_image *img = &frame->image;
	const struct cisp_format_info *f = cisp_format_info(img->format);
	struct tiff_messages msg;
	uint64_t exif_offset = 0;
	uint8_t *row = NULL;
	TIFF *tif;
	int ret = 0;

	if (!f || f->kind != CISP_KIND_BAYER)
		return cisp_error(-EINVAL, "%s: a DNG holds a Bayer frame, not %s", path, cisp_format_name(img->format));
	if ((ret = cisp_image_check(img, "raw frame")))
		return cisp_error_prefix(ret, "%s", path);
	if (frame->white == 0 || frame->white > (1u << f->bits) - 1)
		return cisp_error(-EINVAL, "%s: white level %u is outside 1..%u for a %u-bit frame", path, frame->white,
				  (1u << f->bits) - 1, f->bits);
	for (int c = 0; c < 4; c++)
		if (frame->black[c] >= frame->white)
			return cisp_error(-EINVAL, "%s: black level %u is not below the white level %u", path,
					  frame->black[c], frame->white);
	row = malloc((size_t)img->width * 2);
	if (!row)
		return cisp_error(-ENOMEM, "%s: out of memory", path);
	tif = tiff_create(out, &msg);
	if (!tif) {
		free(row);
		return cisp_error(-EIO, "cannot create %s: %s", path, msg.error);
	}
	set_tags(tif, frame, f);
	/* Reserve the EXIF pointer now so that the directory keeps its size when it is rewritten. */
	if (has_exif(frame))
		TIFFSetField(tif, TIFFTAG_EXIFIFD, (uint64_t)0);
	for (uint32_t y = 0; y < img->height && !ret; y++) {
		for (uint32_t x = 0; x < img->width; x++) {
			unsigned v = sample_at(img, f, x, y);
			if (f->bits == 8) {
				row[x] = (uint8_t)v;
			} else {
				uint16_t s = (uint16_t)v;
				memcpy(row + 2 * x, &s, 2); /* libtiff takes native order */
			}
		}
		if (TIFFWriteScanline(tif, row, y, 0) < 0)
			ret = -EIO;
	}
	free(row);
	if (!ret && has_exif(frame)) {
		/* The EXIF directory goes after the main one, which is then rewritten to point at it. */
		if (!TIFFWriteDirectory(tif) || write_exif(tif, frame, &exif_offset) || !TIFFSetDirectory(tif, 0) ||
		    !TIFFSetField(tif, TIFFTAG_EXIFIFD, exif_offset) || !TIFFWriteDirectory(tif))
			ret = -EIO;
	}
	return tiff_close(tif, path, &msg, ret);
}

int cisp_dng_write(const char *path, const struct cisp_raw_frame *frame)
{
	struct cisp_output_file *out;
	int ret = cisp_output_file_create(&out, path, CISP_OUTPUT_REPLACE);

	return ret ? ret : cisp_output_file_finish(out, cisp_dng_write_to(out, frame));
}
