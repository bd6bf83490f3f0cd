/* SPDX-License-Identifier: MIT */
/* Float images for the image-quality metrics, and converters into them. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/format.h>
#include <cisp/iq_image.h>

#include "core/error_internal.h"
#include "iq_internal.h"

int cisp_iq_image_alloc(struct cisp_iq_image *img, uint32_t width, uint32_t height, unsigned channels)
{
	memset(img, 0, sizeof(*img));
	if (width == 0 || height == 0 || width > CISP_MAX_DIMENSION || height > CISP_MAX_DIMENSION)
		return cisp_error(-EINVAL, "image size %ux%u is outside 1x1..%ux%u", width, height,
				  CISP_MAX_DIMENSION, CISP_MAX_DIMENSION);
	if (channels != 1 && channels != 3)
		return cisp_error(-EINVAL, "%u channels; images have 1 (grey) or 3 (RGB)", channels);
	img->data = calloc((size_t)width * height * channels, sizeof(float));
	if (!img->data)
		return cisp_error(-ENOMEM, "out of memory for a %ux%u float image", width, height);
	img->width = width;
	img->height = height;
	img->channels = channels;
	img->stride = (size_t)width * channels;
	return 0;
}

void cisp_iq_image_free(struct cisp_iq_image *img)
{
	if (!img)
		return;
	free(img->data);
	memset(img, 0, sizeof(*img));
}

int cisp_iq_rect_check(const struct cisp_iq_image *img, const struct cisp_iq_rect *r, int32_t min_size,
		       const char *what)
{
	if (r->width < min_size || r->height < min_size)
		return cisp_error(-EINVAL, "%s %dx%d is smaller than %dx%d pixels", what, r->width, r->height,
				  min_size, min_size);
	if (r->x < 0 || r->y < 0 || (int64_t)r->x + r->width > img->width ||
	    (int64_t)r->y + r->height > img->height)
		return cisp_error(-EINVAL, "%s (%d,%d) %dx%d is outside the %ux%u image", what, r->x, r->y,
				  r->width, r->height, img->width, img->height);
	return 0;
}

static double linearize_pos(enum cisp_transfer transfer, double v)
{
	switch (transfer) {
	case CISP_TRANSFER_SRGB:
		return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
	case CISP_TRANSFER_BT709:
		return v < 0.081 ? v / 4.5 : pow((v + 0.099) / 1.099, 1.0 / 0.45);
	default:
		return v;
	}
}

static double encode_pos(enum cisp_transfer transfer, double v)
{
	switch (transfer) {
	case CISP_TRANSFER_SRGB:
		return v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1.0 / 2.4) - 0.055;
	case CISP_TRANSFER_BT709:
		return v < 0.018 ? 4.5 * v : 1.099 * pow(v, 0.45) - 0.099;
	default:
		return v;
	}
}

double cisp_iq_linearize(enum cisp_transfer transfer, double v)
{
	return v < 0 ? -linearize_pos(transfer, -v) : linearize_pos(transfer, v);
}

double cisp_iq_encode(enum cisp_transfer transfer, double v)
{
	return v < 0 ? -encode_pos(transfer, -v) : encode_pos(transfer, v);
}

/* A table from code to linear value, so big images convert without pow() per sample. */
static float *code_table(enum cisp_transfer transfer, unsigned maxval)
{
	float *t = malloc(((size_t)maxval + 1) * sizeof(float));

	if (!t)
		return NULL;
	for (unsigned i = 0; i <= maxval; i++)
		t[i] = (float)cisp_iq_linearize(transfer, (double)i / maxval);
	return t;
}

int cisp_iq_image_from_cisp(struct cisp_iq_image *out, const struct cisp_image *img, enum cisp_transfer transfer)
{
	bool wide;
	float *table;
	int ret;

	memset(out, 0, sizeof(*out));
	if (img->format != CISP_FMT_RGB888 && img->format != CISP_FMT_RGB48)
		return cisp_error(-EINVAL, "image format %s: the metrics take RGB888 or RGB48 outputs",
				  cisp_format_name(img->format));
	ret = cisp_image_check(img, "image");
	if (ret)
		return ret;
	wide = img->format == CISP_FMT_RGB48;
	table = code_table(transfer, wide ? 65535 : 255);
	if (!table)
		return cisp_error(-ENOMEM, "out of memory for a transfer table");
	ret = cisp_iq_image_alloc(out, img->width, img->height, 3);
	if (ret) {
		free(table);
		return ret;
	}
	for (uint32_t y = 0; y < img->height; y++) {
		const uint8_t *row = img->plane[0].data + y * img->plane[0].stride;
		float *o = out->data + y * out->stride;

		for (uint32_t i = 0; i < img->width * 3; i++)
			o[i] = wide ? table[row[2 * i] | row[2 * i + 1] << 8] : table[row[i]];
	}
	free(table);
	return 0;
}

int cisp_iq_image_from_raster(struct cisp_iq_image *out, const struct cisp_raster *r, enum cisp_transfer transfer)
{
	size_t n = (size_t)r->width * r->height * r->channels;
	float *table;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!r->data || r->maxval == 0 || r->maxval > 65535)
		return cisp_error(-EINVAL, "raster without samples or with maximum value %u", r->maxval);
	table = code_table(transfer, r->maxval);
	if (!table)
		return cisp_error(-ENOMEM, "out of memory for a transfer table");
	ret = cisp_iq_image_alloc(out, r->width, r->height, r->channels);
	if (ret) {
		free(table);
		return ret;
	}
	for (size_t i = 0; i < n; i++)
		out->data[i] = table[r->data[i] > r->maxval ? r->maxval : r->data[i]];
	free(table);
	return 0;
}

int cisp_iq_image_from_bayer(struct cisp_iq_image *out, const struct cisp_image *img, unsigned channel,
			     double black, double white)
{
	const struct cisp_format_info *fi = cisp_format_info(img->format);
	unsigned ox = 0, oy = 0;
	bool found = false;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!fi || fi->kind != CISP_KIND_BAYER || fi->packed)
		return cisp_error(-EINVAL, "image format %s: expected an unpacked Bayer format",
				  cisp_format_name(img->format));
	if (channel > 3)
		return cisp_error(-EINVAL, "Bayer channel %u is outside 0..3 (R, Gr, Gb, B)", channel);
	if (!(white > black))
		return cisp_error(-EINVAL, "white level %g is not above the black level %g", white, black);
	ret = cisp_image_check(img, "raw frame");
	if (ret)
		return ret;
	for (unsigned y = 0; y < 2 && !found; y++)
		for (unsigned x = 0; x < 2 && !found; x++)
			if (cisp_cfa_channel(fi->cfa, x, y) == (enum cisp_channel)channel) {
				ox = x;
				oy = y;
				found = true;
			}
	ret = cisp_iq_image_alloc(out, img->width / 2, img->height / 2, 1);
	if (ret)
		return ret;
	for (uint32_t y = 0; y < out->height; y++) {
		const uint8_t *row = img->plane[0].data + (2 * y + oy) * img->plane[0].stride;

		for (uint32_t x = 0; x < out->width; x++) {
			unsigned sx = 2 * x + ox;
			unsigned v = fi->bits == 8 ? row[sx] : (unsigned)(row[2 * sx] | row[2 * sx + 1] << 8);

			out->data[y * out->stride + x] = (float)((v - black) / (white - black));
		}
	}
	return 0;
}

int cisp_iq_image_to_raster(struct cisp_raster *r, const struct cisp_iq_image *img, enum cisp_transfer transfer,
			    double gain)
{
	int ret = cisp_raster_alloc(r, img->width, img->height, img->channels, 255);

	if (ret)
		return ret;
	for (uint32_t y = 0; y < img->height; y++)
		for (uint32_t i = 0; i < img->width * img->channels; i++) {
			double v = cisp_iq_encode(transfer, img->data[y * img->stride + i] * gain);

			r->data[((size_t)y * img->width * img->channels) + i] =
				(uint16_t)lrint(v < 0 ? 0 : v > 1 ? 255 : v * 255);
		}
	return 0;
}

int iq_image_check(const struct cisp_iq_image *img, const char *what)
{
	if (!img || !img->data || img->width == 0 || img->height == 0)
		return cisp_error(-EINVAL, "%s: no image", what);
	if (img->channels != 1 && img->channels != 3)
		return cisp_error(-EINVAL, "%s: %u channels; images have 1 or 3", what, img->channels);
	if (img->stride < (size_t)img->width * img->channels)
		return cisp_error(-EINVAL, "%s: stride %zu is less than a row (%zu floats)", what, img->stride,
				  (size_t)img->width * img->channels);
	return 0;
}
