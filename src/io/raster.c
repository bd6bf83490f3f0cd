/* SPDX-License-Identifier: MIT */
/* PGM/PPM and PNG files to and from struct cisp_raster. */
#include <errno.h>
#include <png.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/image.h>
#include <cisp/input_file.h>
#include <cisp/output_file.h>
#include <cisp/raster.h>

#include "core/error_internal.h"

int cisp_raster_alloc(struct cisp_raster *r, uint32_t width, uint32_t height, unsigned channels,
		      unsigned maxval)
{
	memset(r, 0, sizeof(*r));
	if (width == 0 || height == 0 || width > CISP_MAX_DIMENSION || height > CISP_MAX_DIMENSION)
		return cisp_error(-EINVAL, "image size %ux%u is outside 1x1..%ux%u", width, height,
				  CISP_MAX_DIMENSION, CISP_MAX_DIMENSION);
	if (channels != 1 && channels != 3)
		return cisp_error(-EINVAL, "%u channels; only grey (1) and RGB (3) are supported", channels);
	if (maxval == 0 || maxval > 65535)
		return cisp_error(-EINVAL, "maximum sample value %u is outside 1..65535", maxval);
	r->data = calloc((size_t)width * height * channels, sizeof(uint16_t));
	if (!r->data)
		return cisp_error(-ENOMEM, "out of memory for a %ux%u image", width, height);
	r->width = width;
	r->height = height;
	r->channels = channels;
	r->maxval = maxval;
	return 0;
}

void cisp_raster_free(struct cisp_raster *r)
{
	if (!r)
		return;
	free(r->data);
	memset(r, 0, sizeof(*r));
}

/* Bytes from the position of @f to its end, or -1 where it cannot seek (a pipe). */
static long bytes_left(FILE *f)
{
	long here = ftell(f), end;

	if (here < 0 || fseek(f, 0, SEEK_END))
		return -1;
	end = ftell(f);
	if (fseek(f, here, SEEK_SET) || end < here)
		return -1;
	return end - here;
}

/* ---- PNM ---- */

/* Read one header number, skipping whitespace and # comments. */
static int pnm_number(FILE *f, unsigned long *value)
{
	int c;
	unsigned long v = 0;
	int digits = 0;

	do {
		c = fgetc(f);
		if (c == '#')
			while (c != '\n' && c != EOF)
				c = fgetc(f);
	} while (c == ' ' || c == '\t' || c == '\n' || c == '\r');
	while (c >= '0' && c <= '9') {
		if (v > 100000000)
			return -1;
		v = v * 10 + (unsigned long)(c - '0');
		digits++;
		c = fgetc(f);
	}
	if (!digits || (c != ' ' && c != '\t' && c != '\n' && c != '\r'))
		return -1;
	*value = v;
	return 0;
}

static int read_pnm(FILE *f, const char *path, struct cisp_raster *r)
{
	unsigned long w, h, maxval;
	unsigned channels;
	size_t n, bytes;
	uint8_t *raw;
	long left;
	int type, ret;

	if (fgetc(f) != 'P')
		return cisp_error(-EINVAL, "%s: not a PNM file", path);
	type = fgetc(f);
	if (type != '5' && type != '6')
		return cisp_error(-ENOTSUP, "%s: PNM type P%c is not supported (only binary P5 grey and P6 RGB)",
				  path, type);
	channels = type == '5' ? 1 : 3;
	if (pnm_number(f, &w) || pnm_number(f, &h) || pnm_number(f, &maxval))
		return cisp_error(-EINVAL, "%s: malformed PNM header", path);
	if (w == 0 || h == 0 || w > CISP_MAX_DIMENSION || h > CISP_MAX_DIMENSION)
		return cisp_error(-EINVAL, "%s: image size %lux%lu is outside 1x1..%ux%u", path, w, h,
				  CISP_MAX_DIMENSION, CISP_MAX_DIMENSION);
	if (maxval == 0 || maxval > 65535)
		return cisp_error(-EINVAL, "%s: maximum value %lu is outside 1..65535", path, maxval);
	n = (size_t)w * h * channels;
	bytes = n * (maxval > 255 ? 2 : 1);
	/* Nothing allocated for samples a short file cannot hold. */
	left = bytes_left(f);
	if (left >= 0 && (unsigned long)left < bytes)
		return cisp_error(-EINVAL, "%s: truncated: the header promises %zu bytes of samples, the file holds %ld",
				  path, bytes, left);
	ret = cisp_raster_alloc(r, (uint32_t)w, (uint32_t)h, channels, (unsigned)maxval);
	if (ret)
		return cisp_error_prefix(ret, "%s", path);
	raw = malloc(bytes);
	if (!raw) {
		cisp_raster_free(r);
		return cisp_error(-ENOMEM, "%s: out of memory", path);
	}
	if (fread(raw, 1, bytes, f) != bytes) {
		free(raw);
		cisp_raster_free(r);
		return cisp_error(-EINVAL, "%s: truncated: the header promises %zu bytes of samples", path, bytes);
	}
	for (size_t i = 0; i < n; i++) {
		unsigned v = maxval > 255 ? (unsigned)raw[2 * i] << 8 | raw[2 * i + 1] : raw[i];

		if (v > maxval) {
			free(raw);
			cisp_raster_free(r);
			return cisp_error(-EINVAL, "%s: sample %zu is %u, over the maximum value %lu", path, i, v, maxval);
		}
		r->data[i] = (uint16_t)v;
	}
	free(raw);
	return 0;
}

static int write_pnm(FILE *f, const char *path, const struct cisp_raster *r)
{
	size_t n = (size_t)r->width * r->height * r->channels;
	bool wide = r->maxval > 255;
	uint8_t *raw = malloc(n * (wide ? 2 : 1));

	if (!raw)
		return cisp_error(-ENOMEM, "%s: out of memory", path);
	for (size_t i = 0; i < n; i++) {
		uint16_t v = r->data[i] > r->maxval ? (uint16_t)r->maxval : r->data[i];
		if (wide) {
			raw[2 * i] = (uint8_t)(v >> 8);
			raw[2 * i + 1] = (uint8_t)v;
		} else {
			raw[i] = (uint8_t)v;
		}
	}
	fprintf(f, "P%c\n%u %u\n%u\n", r->channels == 1 ? '5' : '6', r->width, r->height, r->maxval);
	n = fwrite(raw, 1, n * (wide ? 2 : 1), f) == n * (wide ? 2 : 1);
	free(raw);
	return n ? 0 : cisp_error(-EIO, "%s: write failed: %s", path, strerror(errno));
}

/* ---- PNG ---- */

struct png_error_context {
	const char *path;
	char message[256];
};

static void png_error_fn(png_structp png, png_const_charp msg)
{
	struct png_error_context *ctx = png_get_error_ptr(png);

	snprintf(ctx->message, sizeof(ctx->message), "%s", msg);
	png_longjmp(png, 1);
}

static void png_warning_fn(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

/* Deflate's largest ratio of output to input (258 bytes from about two bits). */
#define DEFLATE_MAX_RATIO 1032

static int read_png(FILE *f, const char *path, struct cisp_raster *r)
{
	const long file_size = bytes_left(f);
	struct png_error_context ctx = { path, "" };
	png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, png_error_fn, png_warning_fn);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	uint8_t *volatile row = NULL;
	png_bytep *volatile rows = NULL;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	if (!info) {
		png_destroy_read_struct(&png, NULL, NULL);
		return cisp_error(-ENOMEM, "%s: out of memory", path);
	}
	if (setjmp(png_jmpbuf(png))) {
		free(row);
		free(rows);
		cisp_raster_free(r);
		png_destroy_read_struct(&png, &info, NULL);
		return cisp_error(-EINVAL, "%s: bad PNG: %s", path, ctx.message);
	}
	png_set_user_limits(png, CISP_MAX_DIMENSION, CISP_MAX_DIMENSION);
	png_init_io(png, f);
	png_read_info(png, info);
	{
		png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
		int depth = png_get_bit_depth(png, info), type = png_get_color_type(png, info);
		unsigned channels;

		if (type == PNG_COLOR_TYPE_PALETTE)
			png_set_palette_to_rgb(png);
		if (type == PNG_COLOR_TYPE_GRAY && depth < 8)
			png_set_expand_gray_1_2_4_to_8(png);
		if (type & PNG_COLOR_MASK_ALPHA)
			png_set_strip_alpha(png);
		png_set_interlace_handling(png);
		png_read_update_info(png, info);
		depth = png_get_bit_depth(png, info);
		channels = png_get_channels(png, info);
		if (channels != 1 && channels != 3) {
			png_destroy_read_struct(&png, &info, NULL);
			return cisp_error(-ENOTSUP, "%s: PNG with %u channels is not supported", path, channels);
		}
		/* The rows and their filter bytes come out of the file's deflate data: no more than it can hold. */
		if (file_size >= 0 &&
		    ((uint64_t)png_get_rowbytes(png, info) + 1) * h > (uint64_t)file_size * DEFLATE_MAX_RATIO + 4096) {
			png_destroy_read_struct(&png, &info, NULL);
			return cisp_error(-EINVAL, "%s: bad PNG: %ux%u needs more data than a file of %ld bytes can hold",
					  path, (unsigned)w, (unsigned)h, file_size);
		}
		ret = cisp_raster_alloc(r, w, h, channels, depth == 16 ? 65535 : 255);
		if (ret) {
			png_destroy_read_struct(&png, &info, NULL);
			return cisp_error_prefix(ret, "%s", path);
		}
		{
			size_t rowbytes = png_get_rowbytes(png, info);

			row = malloc(rowbytes * h);
			rows = malloc(sizeof(*rows) * h);
			if (!row || !rows)
				png_error(png, "out of memory");
			for (png_uint_32 y = 0; y < h; y++)
				rows[y] = row + rowbytes * y;
			png_read_image(png, rows);
			free(rows);
			rows = NULL;
		}
		for (size_t i = 0; i < (size_t)w * h * channels; i++)
			r->data[i] = depth == 16 ? (uint16_t)(row[2 * i] << 8 | row[2 * i + 1]) : row[i];
		png_read_end(png, NULL);
	}
	free(row);
	png_destroy_read_struct(&png, &info, NULL);
	return 0;
}

static int write_png(FILE *f, const char *path, const struct cisp_raster *r)
{
	struct png_error_context ctx = { path, "" };
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &ctx, png_error_fn, png_warning_fn);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	bool wide = r->maxval > 255;
	size_t row_samples = (size_t)r->width * r->channels;
	uint8_t *volatile row = NULL;

	if (!info) {
		png_destroy_write_struct(&png, NULL);
		return cisp_error(-ENOMEM, "%s: out of memory", path);
	}
	if (setjmp(png_jmpbuf(png))) {
		free(row);
		png_destroy_write_struct(&png, &info);
		return cisp_error(-EIO, "%s: cannot write PNG: %s", path, ctx.message);
	}
	png_init_io(png, f);
	png_set_IHDR(png, info, r->width, r->height, wide ? 16 : 8,
		     r->channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_set_compression_level(png, 3);
	png_write_info(png, info);
	row = malloc(row_samples * (wide ? 2 : 1));
	if (!row)
		png_error(png, "out of memory");
	for (uint32_t y = 0; y < r->height; y++) {
		const uint16_t *src = r->data + (size_t)y * row_samples;
		for (size_t i = 0; i < row_samples; i++) {
			uint16_t v = src[i] > r->maxval ? (uint16_t)r->maxval : src[i];
			if (wide) {
				row[2 * i] = (uint8_t)(v >> 8);
				row[2 * i + 1] = (uint8_t)v;
			} else {
				row[i] = (uint8_t)v;
			}
		}
		png_write_row(png, row);
	}
	png_write_end(png, NULL);
	free(row);
	png_destroy_write_struct(&png, &info);
	return 0;
}

/* Read @f (named @path in messages) by its first bytes, then close it. */
static int read_stream(FILE *f, const char *path, struct cisp_raster *r)
{
	uint8_t magic[8];
	size_t got = fread(magic, 1, sizeof(magic), f);
	int ret;

	rewind(f);
	if (got == 8 && !png_sig_cmp(magic, 0, 8))
		ret = read_png(f, path, r);
	else if (got >= 2 && magic[0] == 'P')
		ret = read_pnm(f, path, r);
	else if (got == 0)
		ret = cisp_error(-EINVAL, "%s: the file is empty", path);
	else
		ret = cisp_error(-ENOTSUP, "%s: not a PNG, PGM or PPM file", path);
	fclose(f);
	return ret;
}

int cisp_raster_read(const char *path, struct cisp_raster *r)
{
	FILE *f;
	int ret;

	memset(r, 0, sizeof(*r));
	if ((ret = cisp_input_file_open(path, &f, NULL)))
		return ret;
	return read_stream(f, path, r);
}

int cisp_raster_read_memory(const void *data, size_t size, const char *name, struct cisp_raster *r)
{
	FILE *f;

	memset(r, 0, sizeof(*r));
	if (!size)
		return cisp_error(-EINVAL, "%s: the file is empty", name);
	f = fmemopen((void *)(uintptr_t)data, size, "rb");
	if (!f)
		return cisp_error(-errno, "%s: cannot read from memory: %s", name, strerror(errno));
	return read_stream(f, name, r);
}

static bool has_extension(const char *path, const char *ext)
{
	size_t n = strlen(path), e = strlen(ext);

	return n > e && !strcasecmp(path + n - e, ext);
}

int cisp_raster_write_to(struct cisp_output_file *out, const struct cisp_raster *r)
{
	const char *path = cisp_output_file_path(out);
	bool png = has_extension(path, ".png");
	FILE *f;

	if (!png && !has_extension(path, ".pgm") && !has_extension(path, ".ppm") && !has_extension(path, ".pnm"))
		return cisp_error(-EINVAL, "%s: unknown image extension (use .png, .pgm, .ppm or .pnm)", path);
	if (has_extension(path, ".pgm") && r->channels != 1)
		return cisp_error(-EINVAL, "%s: a .pgm file holds grey images; use .ppm for RGB", path);
	if (has_extension(path, ".ppm") && r->channels != 3)
		return cisp_error(-EINVAL, "%s: a .ppm file holds RGB images; use .pgm for grey", path);
	if (!(f = cisp_output_file_stream(out)))
		return -ENOMEM;
	return png ? write_png(f, path, r) : write_pnm(f, path, r);
}

int cisp_raster_write(const char *path, const struct cisp_raster *r)
{
	struct cisp_output_file *out;
	int ret = cisp_output_file_create(&out, path, CISP_OUTPUT_REPLACE);

	return ret ? ret : cisp_output_file_finish(out, cisp_raster_write_to(out, r));
}
