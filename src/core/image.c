/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/format.h>
#include <cisp/image.h>

#include "error_internal.h"

static int check_size(const struct cisp_format_info *f, uint32_t width, uint32_t height)
{
	if (width == 0 || height == 0 || width > CISP_MAX_DIMENSION || height > CISP_MAX_DIMENSION)
		return cisp_error(-EINVAL, "image size %ux%u is outside 1x1..%ux%u", width, height,
				  CISP_MAX_DIMENSION, CISP_MAX_DIMENSION);
	if (f->kind == CISP_KIND_BAYER && (width % 2 || height % 2))
		return cisp_error(-EINVAL, "Bayer image size %ux%u must be even in both directions", width,
				  height);
	if (f->packed && f->bits == 10 && width % 4)
		return cisp_error(-EINVAL, "%s width %u must be a multiple of 4 (4 samples in 5 bytes)", f->name,
				  width);
	return 0;
}

int cisp_image_plane_size(uint32_t format, uint32_t width, uint32_t height, unsigned plane, size_t *row_bytes,
			  size_t *rows)
{
	const struct cisp_format_info *f = cisp_format_info(format);
	size_t w = width, h = height, cw = (w + 1) / 2, ch = (h + 1) / 2;
	int ret;

	if (!f)
		return cisp_error(-EINVAL, "unknown pixel format 0x%08x", format);
	ret = check_size(f, width, height);
	if (ret)
		return ret;
	if (plane >= f->planes)
		return cisp_error(-EINVAL, "%s has no plane %u", f->name, plane);

	switch (f->kind) {
	case CISP_KIND_BAYER:
		if (f->packed)
			*row_bytes = f->bits == 10 ? w * 5 / 4 : w * 3 / 2;
		else
			*row_bytes = f->bits == 8 ? w : w * 2;
		*rows = h;
		break;
	case CISP_KIND_RGB:
		*row_bytes = f->fourcc == CISP_FMT_XBGR32 ? w * 4 : w * 3 * (f->bits > 8 ? 2 : 1);
		*rows = h;
		break;
	case CISP_KIND_YUV:
		if (plane == 0) {
			*row_bytes = w;
			*rows = h;
		} else {
			*row_bytes = f->fourcc == CISP_FMT_NV12 ? cw * 2 : cw;
			*rows = ch;
		}
		break;
	}
	return 0;
}

size_t cisp_image_packed_size(uint32_t format, uint32_t width, uint32_t height)
{
	const struct cisp_format_info *f = cisp_format_info(format);
	size_t total = 0, row_bytes, rows;

	if (!f)
		return 0;
	for (unsigned p = 0; p < f->planes; p++) {
		if (cisp_image_plane_size(format, width, height, p, &row_bytes, &rows))
			return 0;
		total += row_bytes * rows;
	}
	return total;
}

int cisp_image_alloc(struct cisp_image *img, uint32_t format, uint32_t width, uint32_t height)
{
	const struct cisp_format_info *f = cisp_format_info(format);
	size_t stride[3], rows[3], total = 0, row_bytes;
	uint8_t *mem;
	int ret;

	memset(img, 0, sizeof(*img));
	if (!f)
		return cisp_error(-EINVAL, "unknown pixel format 0x%08x", format);
	for (unsigned p = 0; p < f->planes; p++) {
		ret = cisp_image_plane_size(format, width, height, p, &row_bytes, &rows[p]);
		if (ret)
			return ret;
		stride[p] = (row_bytes + 63) & ~(size_t)63;
		total += stride[p] * rows[p];
	}
	mem = aligned_alloc(64, total);
	if (!mem)
		return cisp_error(-ENOMEM, "out of memory for a %ux%u %s image (%zu bytes)", width, height, f->name,
				  total);
	memset(mem, 0, total);
	img->format = format;
	img->width = width;
	img->height = height;
	img->num_planes = f->planes;
	img->owned = mem;
	for (unsigned p = 0; p < f->planes; p++) {
		img->plane[p].data = mem;
		img->plane[p].stride = stride[p];
		mem += stride[p] * rows[p];
	}
	return 0;
}

int cisp_image_wrap(struct cisp_image *img, uint32_t format, uint32_t width, uint32_t height, void *data,
		    size_t size)
{
	const struct cisp_format_info *f = cisp_format_info(format);
	size_t need, row_bytes, rows;
	uint8_t *mem = data;
	int ret;

	memset(img, 0, sizeof(*img));
	if (!f)
		return cisp_error(-EINVAL, "unknown pixel format 0x%08x", format);
	ret = check_size(f, width, height);
	if (ret)
		return ret;
	need = cisp_image_packed_size(format, width, height);
	if (size != need)
		return cisp_error(-EMSGSIZE, "a %ux%u %s image is %zu bytes, but %zu bytes were given", width,
				  height, f->name, need, size);
	img->format = format;
	img->width = width;
	img->height = height;
	img->num_planes = f->planes;
	for (unsigned p = 0; p < f->planes; p++) {
		cisp_image_plane_size(format, width, height, p, &row_bytes, &rows);
		img->plane[p].data = mem;
		img->plane[p].stride = row_bytes;
		mem += row_bytes * rows;
	}
	return 0;
}

int cisp_image_check(const struct cisp_image *img, const char *what)
{
	const struct cisp_format_info *f;
	size_t row_bytes, rows;

	if (!img)
		return cisp_error(-EINVAL, "%s: no image given", what);
	f = cisp_format_info(img->format);
	if (!f)
		return cisp_error(-EINVAL, "%s: unknown pixel format 0x%08x", what, img->format);
	for (unsigned p = 0; p < f->planes; p++) {
		int ret = cisp_image_plane_size(img->format, img->width, img->height, p, &row_bytes, &rows);

		if (ret)
			return cisp_error_prefix(ret, "%s", what);
		if (!img->plane[p].data)
			return cisp_error(-EINVAL, "%s: plane %u has no memory", what, p);
		if (img->plane[p].stride < row_bytes)
			return cisp_error(-EINVAL, "%s: plane %u stride %zu is less than its row size %zu", what, p,
					  img->plane[p].stride, row_bytes);
	}
	return 0;
}

void cisp_image_free(struct cisp_image *img)
{
	if (!img)
		return;
	free(img->owned);
	memset(img, 0, sizeof(*img));
}
