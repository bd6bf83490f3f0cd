/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cisp/format.h>
#include <cisp/icc.h>
#include <cisp/image_file.h>
#include <cisp/orient.h>
#include <cisp/output_file.h>
#include <cisp/raster.h>
#include <cisp/y4m.h>

#include "core/error_internal.h"
#include "io/exif.h"
#include "io/writers.h"

static const char *extension(const char *path)
{
	const char *dot = strrchr(path, '.');
	const char *slash = strrchr(path, '/');

	return dot && (!slash || dot > slash) ? dot + 1 : "";
}

uint32_t cisp_output_format_for_path(const char *path, bool sixteen_bit)
{
	const char *ext = extension(path);

	if (!strcasecmp(ext, "png") || !strcasecmp(ext, "ppm") || !strcasecmp(ext, "tif") || !strcasecmp(ext, "tiff"))
		return sixteen_bit ? CISP_FMT_RGB48 : CISP_FMT_RGB888;
	if (!strcasecmp(ext, "jpg") || !strcasecmp(ext, "jpeg")) {
		if (!sixteen_bit)
			return CISP_FMT_RGB888;
		cisp_error(-EINVAL, "%s: JPEG holds 8 bits per channel; use .png or .tif for 16-bit output", path);
		return 0;
	}
	if (!sixteen_bit && !strcasecmp(ext, "nv12"))
		return CISP_FMT_NV12;
	if (!sixteen_bit && (!strcasecmp(ext, "i420") || !strcasecmp(ext, "yuv") || !strcasecmp(ext, "y4m")))
		return CISP_FMT_I420;
	cisp_error(-EINVAL, "%s: %s", path,
		   sixteen_bit ? "16-bit output needs a .png, .tif or .ppm file"
			       : "unknown output type (use .jpg, .png, .tif, .ppm, .nv12, .i420, .yuv or .y4m)");
	return 0;
}

static int write_rgb(struct cisp_output_file *out, const struct cisp_image *img)
{
	bool wide = img->format == CISP_FMT_RGB48;
	struct cisp_raster r;
	int ret = cisp_raster_alloc(&r, img->width, img->height, 3, wide ? 65535 : 255);

	if (ret)
		return ret;
	for (uint32_t y = 0; y < img->height; y++) {
		const uint8_t *src = img->plane[0].data + y * img->plane[0].stride;
		uint16_t *dst = r.data + (size_t)y * img->width * 3;
		for (uint32_t i = 0; i < img->width * 3; i++)
			dst[i] = wide ? (uint16_t)(src[2 * i] | src[2 * i + 1] << 8) : src[i];
	}
	ret = cisp_raster_write_to(out, &r);
	cisp_raster_free(&r);
	return ret;
}

static int write_planes(struct cisp_output_file *out, const struct cisp_image *img)
{
	FILE *f = cisp_output_file_stream(out);

	if (!f)
		return -ENOMEM;
	for (unsigned p = 0; p < img->num_planes; p++) {
		size_t row_bytes, rows;
		cisp_image_plane_size(img->format, img->width, img->height, p, &row_bytes, &rows);
		for (size_t y = 0; y < rows; y++)
			if (fwrite(img->plane[p].data + y * img->plane[p].stride, 1, row_bytes, f) != row_bytes)
				return cisp_error(-EIO, "%s: write failed: %s", cisp_output_file_path(out), strerror(errno));
	}
	return 0;
}

/* The files without metadata: PNG or PPM from a raster, YUV planes, Y4M. */
static int write_plain(struct cisp_output_file *out, const struct cisp_image *img, bool full_range)
{
	const char *path = cisp_output_file_path(out), *ext = extension(path);

	if (img->format == CISP_FMT_RGB888 || img->format == CISP_FMT_RGB48)
		return write_rgb(out, img);
	if (!strcasecmp(ext, "y4m")) {
		struct cisp_y4m_writer *w;
		int ret = cisp_y4m_open_to(&w, out, img->width, img->height, 30, 1, full_range);
		if (ret)
			return ret;
		ret = cisp_y4m_write(w, img);
		if (cisp_y4m_close(w) && !ret)
			ret = -EIO;
		return ret;
	}
	if (img->format == CISP_FMT_NV12 || img->format == CISP_FMT_I420)
		return write_planes(out, img);
	return cisp_error(-EINVAL, "%s: cannot write a %s image", path, cisp_format_name(img->format));
}

int cisp_image_write_file(const char *path, const struct cisp_image *img, bool full_range)
{
	struct cisp_output_file *out;
	int ret = cisp_output_file_create(&out, path, CISP_OUTPUT_REPLACE);

	return ret ? ret : cisp_output_file_finish(out, write_plain(out, img, full_range));
}

static bool is_ext(const char *path, const char *a, const char *b)
{
	const char *ext = extension(path);

	return !strcasecmp(ext, a) || (b && !strcasecmp(ext, b));
}

int cisp_image_write_to(struct cisp_output_file *out, const struct cisp_image *img,
			const struct cisp_file_options *opts)
{
	static const struct cisp_file_options defaults = { 0 };
	const char *path = cisp_output_file_path(out);
	bool rgb = img->format == CISP_FMT_RGB888 || img->format == CISP_FMT_RGB48;
	bool jpeg = is_ext(path, "jpg", "jpeg"), png = is_ext(path, "png", NULL), tiff = is_ext(path, "tif", "tiff");
	struct cisp_image upright = { 0 };
	const struct cisp_image *img_out = img;
	struct file_meta meta = { NULL, 0, NULL, 0, NULL };
	uint8_t *icc = NULL, exif[EXIF_MAX_SIZE];
	int ret = 0;

	if (!opts)
		opts = &defaults;
	if (!rgb && (jpeg || png || tiff))
		return cisp_error(-EINVAL, "%s: cannot write a %s image there", path, cisp_format_name(img->format));
	if (opts->quality < 0 || opts->quality > 100)
		return cisp_error(-EINVAL, "%s: JPEG quality %d is outside 1..100", path, opts->quality);
	if (rgb && opts->orientation > 1) {
		if ((ret = cisp_image_orient(img, opts->orientation, &upright)))
			return ret;
		img_out = &upright;
	}
	if (!(jpeg || png || tiff)) {
		/* PPM, YUV planes and Y4M carry no metadata. */
		ret = write_plain(out, img_out, opts->full_range);
		cisp_image_free(&upright);
		return ret;
	}
	if (!opts->no_icc && (ret = cisp_icc_srgb(opts->linear, &icc, &meta.icc_size)) == 0)
		meta.icc = icc;
	if (!ret && opts->meta && (jpeg || png)) {
		meta.exif_size = exif_build(opts->meta, img_out->width, img_out->height, jpeg, exif);
		meta.exif = exif;
	}
	meta.frame = opts->meta;
	if (!ret) {
		if (jpeg)
			ret = io_write_jpeg(out, img_out, opts->quality ? opts->quality : 92, &meta);
		else if (png)
			ret = io_write_png(out, img_out, &meta);
		else
			ret = io_write_tiff(out, img_out, &meta);
	}
	free(icc);
	cisp_image_free(&upright);
	return ret;
}

int cisp_image_write_file_opts(const char *path, const struct cisp_image *img, const struct cisp_file_options *opts)
{
	struct cisp_output_file *out;
	int ret = cisp_output_file_create(&out, path, CISP_OUTPUT_REPLACE);

	return ret ? ret : cisp_output_file_finish(out, cisp_image_write_to(out, img, opts));
}
