/* SPDX-License-Identifier: MIT */
/*
 * The EIS warp (docs/eis.md, "The warp"): each band of output rows is cut
 * out of the larger image at its own position, in 1/256 pixel, with
 * bilinear interpolation in integers. The reference for any faster version.
 */
#include <errno.h>

#include <cisp/eis.h>
#include <cisp/format.h>

#include "core/error_internal.h"

/* How one plane of a format is laid out: bytes per pixel, and its subsampling against the image (shift). */
struct warp_plane {
	unsigned bytes_per_pixel;
	unsigned shift;
};

/* The planes of @format, or 0 planes for a format the warp does not take. */
static unsigned warp_planes(uint32_t format, struct warp_plane planes[3])
{
	switch (format) {
	case CISP_FMT_NV12:
		planes[0] = (struct warp_plane){ 1, 0 };
		planes[1] = (struct warp_plane){ 2, 1 };
		return 2;
	case CISP_FMT_I420:
		planes[0] = (struct warp_plane){ 1, 0 };
		planes[1] = planes[2] = (struct warp_plane){ 1, 1 };
		return 3;
	case CISP_FMT_RGB888:
		planes[0] = (struct warp_plane){ 3, 0 };
		return 1;
	case CISP_FMT_XBGR32:
		planes[0] = (struct warp_plane){ 4, 0 };
		return 1;
	default:
		return 0;
	}
}

/*
 * One output row: @n bytes from input rows @r0 (weight 256 - @fy) and @r1
 * (weight @fy), each pixel mixed with the one @bpp bytes right of it
 * (weight @fx). The four products sum to at most 255 * 65536: 32 bits hold
 * them with the rounding term.
 */
static void warp_row(const uint8_t *r0, const uint8_t *r1, uint8_t *dst, uint32_t n, unsigned bpp, uint32_t fx,
		     uint32_t fy)
{
	const uint32_t w00 = (256 - fx) * (256 - fy), w01 = fx * (256 - fy), w10 = (256 - fx) * fy, w11 = fx * fy;

	for (uint32_t i = 0; i < n; i++)
		dst[i] = (uint8_t)((r0[i] * w00 + r0[i + bpp] * w01 + r1[i] * w10 + r1[i + bpp] * w11 + 32768) >> 16);
}

struct warp_job {
	const struct cisp_image *in;
	struct cisp_image *out;
	const struct cisp_eis_band *bands;
	unsigned num_bands, num_planes, num_tasks;
	struct warp_plane plane[3];
};

/* Output rows [y0, y1) of plane @p. */
static void warp_plane_rows(const struct warp_job *j, unsigned p, uint32_t y0, uint32_t y1)
{
	const struct warp_plane *pl = &j->plane[p];
	const struct cisp_plane *src = &j->in->plane[p];
	struct cisp_plane *dst = &j->out->plane[p];
	uint32_t width = j->out->width >> pl->shift;
	unsigned b = 0;

	for (uint32_t y = y0; y < y1; y++) {
		const uint8_t *r0, *r1;
		uint32_t x_q8, sy, fx, fy;

		while (b + 1 < j->num_bands && j->bands[b + 1].first_row <= y << pl->shift)
			b++;
		x_q8 = j->bands[b].x_q8 >> pl->shift;
		sy = (y << 8) + (j->bands[b].y_q8 >> pl->shift);
		fx = x_q8 & 255;
		fy = sy & 255;
		r0 = src->data + (size_t)(sy >> 8) * src->stride + (size_t)(x_q8 >> 8) * pl->bytes_per_pixel;
		/* A zero weight reads nothing past the edge: the row itself stands in for the one below. */
		r1 = fy ? r0 + src->stride : r0;
		if (!fx) {
			/* The pixel right of the last may lie past the edge: mix with the pixel itself. */
			warp_row(r0, r1, dst->data + (size_t)y * dst->stride, width * pl->bytes_per_pixel, 0, 0, fy);
			continue;
		}
		warp_row(r0, r1, dst->data + (size_t)y * dst->stride, width * pl->bytes_per_pixel, pl->bytes_per_pixel,
			 fx, fy);
	}
}

static void warp_task(void *opaque, unsigned task, unsigned worker)
{
	const struct warp_job *j = opaque;

	(void)worker;
	for (unsigned p = 0; p < j->num_planes; p++) {
		uint32_t rows = j->out->height >> j->plane[p].shift;

		warp_plane_rows(j, p, (uint32_t)((uint64_t)rows * task / j->num_tasks),
				(uint32_t)((uint64_t)rows * (task + 1) / j->num_tasks));
	}
}

static int check_bands(const struct cisp_image *in, const struct cisp_image *out, const struct cisp_eis_band *bands,
		       unsigned num_bands)
{
	uint64_t max_x = (uint64_t)(in->width - out->width) * 256, max_y = (uint64_t)(in->height - out->height) * 256;

	if (num_bands < 1 || num_bands > CISP_EIS_MAX_BANDS)
		return cisp_error(-EINVAL, "eis warp: %u bands, not 1..%d", num_bands, CISP_EIS_MAX_BANDS);
	if (bands[0].first_row)
		return cisp_error(-EINVAL, "eis warp: the first band starts at row %u, not 0", bands[0].first_row);
	for (unsigned b = 0; b < num_bands; b++) {
		if (b && (bands[b].first_row <= bands[b - 1].first_row || bands[b].first_row >= out->height))
			return cisp_error(-EINVAL, "eis warp: band %u starts at row %u, not after band %u's row %u and above row %u",
					  b, bands[b].first_row, b - 1, bands[b - 1].first_row, out->height);
		if (bands[b].x_q8 > max_x || bands[b].y_q8 > max_y)
			return cisp_error(-EINVAL, "eis warp: band %u at (%u, %u)/256 is outside 0..%llu, 0..%llu", b,
					  bands[b].x_q8, bands[b].y_q8, (unsigned long long)max_x,
					  (unsigned long long)max_y);
	}
	return 0;
}

int cisp_eis_warp(const struct cisp_image *in, struct cisp_image *out, const struct cisp_eis_band *bands,
		  unsigned num_bands, struct cisp_pool *pool)
{
	struct warp_job j = { .in = in, .out = out, .bands = bands, .num_bands = num_bands };
	int r = cisp_image_check(in, "eis input");

	if (!r)
		r = cisp_image_check(out, "eis output");
	if (r)
		return r;
	if (in->format != out->format)
		return cisp_error(-EINVAL, "eis warp: input %s and output %s differ", cisp_format_name(in->format),
				  cisp_format_name(out->format));
	j.num_planes = warp_planes(in->format, j.plane);
	if (!j.num_planes)
		return cisp_error(-EINVAL, "eis warp: format %s is not NV12, I420, RGB888 or XBGR32",
				  cisp_format_name(in->format));
	if (out->width > in->width || out->height > in->height)
		return cisp_error(-EINVAL, "eis warp: output %ux%u is larger than input %ux%u", out->width, out->height,
				  in->width, in->height);
	r = check_bands(in, out, bands, num_bands);
	if (r)
		return r;
	/* A few tasks per thread even out their speeds; each takes a share of every plane's rows. */
	j.num_tasks = pool && out->height >= 64 ? 4 * cisp_pool_threads(pool) : 1;
	if (pool)
		cisp_pool_run(pool, j.num_tasks, warp_task, &j);
	else
		warp_task(&j, 0, 0);
	return 0;
}
