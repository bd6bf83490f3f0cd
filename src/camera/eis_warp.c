/* SPDX-License-Identifier: MIT */
/*
 * The EIS warp (docs/eis.md, "The warp"): each band of output rows is cut
 * out of the larger image at its own position, in 1/256 pixel, and scaled
 * by a fixed step, with bilinear interpolation in integers. The reference
 * for any faster version.
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
 * One output row of @width pixels of @bpp bytes: pixel x mixes input pixels
 * at (pos >> 16) and the next of rows @r0 (weight 256 - @fy) and @r1
 * (weight @fy), pos = @x_q16 + x * @step_q16, with weights in 1/256 from
 * bits 8..15 of pos. The four products sum to at most 255 * 65536: 32 bits
 * hold them with the rounding term.
 */
static void warp_row(const uint8_t *r0, const uint8_t *r1, uint8_t *dst, uint32_t width, unsigned bpp,
		     uint32_t x_q16, uint32_t step_q16, uint32_t fy)
{
	for (uint32_t x = 0; x < width; x++) {
		uint32_t pos = x_q16 + x * step_q16, fx = (pos >> 8) & 255;
		const uint32_t w00 = (256 - fx) * (256 - fy), w01 = fx * (256 - fy), w10 = (256 - fx) * fy, w11 = fx * fy;
		size_t at = (size_t)(pos >> 16) * bpp;
		/* A zero weight reads nothing past the edge: the pixel itself stands in for its right neighbour. */
		size_t right = fx ? at + bpp : at;

		for (unsigned c = 0; c < bpp; c++)
			dst[x * bpp + c] = (uint8_t)((r0[at + c] * w00 + r0[right + c] * w01 + r1[at + c] * w10 +
						      r1[right + c] * w11 + 32768) >> 16);
	}
}

struct warp_job {
	const struct cisp_image *in;
	struct cisp_image *out;
	const struct cisp_eis_band *bands;
	uint32_t step_x_q16, step_y_q16;
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
		const uint8_t *r0;
		uint32_t sy, fy;

		while (b + 1 < j->num_bands && j->bands[b + 1].first_row <= y << pl->shift)
			b++;
		/* Chroma planes of half the size: half the positions, the same steps. */
		sy = ((j->bands[b].y_q8 >> pl->shift) << 8) + y * j->step_y_q16;
		fy = (sy >> 8) & 255;
		r0 = src->data + (size_t)(sy >> 16) * src->stride;
		/* A zero weight reads nothing past the edge: the row itself stands in for the one below. */
		warp_row(r0, fy ? r0 + src->stride : r0, dst->data + (size_t)y * dst->stride, width, pl->bytes_per_pixel,
			 (j->bands[b].x_q8 >> pl->shift) << 8, j->step_x_q16, fy);
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

/* The input position, in 1/65536, that the last of @n output pixels reads in a plane subsampled by @shift. */
static uint64_t last_position(uint32_t start_q8, unsigned shift, uint32_t n, uint32_t step)
{
	return ((uint64_t)(start_q8 >> shift) << 8) + (uint64_t)((n >> shift) - 1) * step;
}

static int check_bands(const struct warp_job *j)
{
	const struct cisp_image *in = j->in, *out = j->out;

	if (j->num_bands < 1 || j->num_bands > CISP_EIS_MAX_BANDS)
		return cisp_error(-EINVAL, "eis warp: %u bands, not 1..%d", j->num_bands, CISP_EIS_MAX_BANDS);
	if (j->step_x_q16 < 1 || j->step_x_q16 > 65536 || j->step_y_q16 < 1 || j->step_y_q16 > 65536)
		return cisp_error(-EINVAL, "eis warp: steps %u, %u (1/65536) are outside 1..65536", j->step_x_q16,
				  j->step_y_q16);
	if (j->bands[0].first_row)
		return cisp_error(-EINVAL, "eis warp: the first band starts at row %u, not 0", j->bands[0].first_row);
	for (unsigned b = 0; b < j->num_bands; b++) {
		const struct cisp_eis_band *band = &j->bands[b];

		if (b && (band->first_row <= band[-1].first_row || band->first_row >= out->height))
			return cisp_error(-EINVAL, "eis warp: band %u starts at row %u, not after band %u's row %u and above row %u",
					  b, band->first_row, b - 1, band[-1].first_row, out->height);
		/* Each plane's last output pixel reads inside it (its right and lower neighbours weigh 0 at the edge). */
		for (unsigned p = 0; p < j->num_planes; p++) {
			unsigned sh = j->plane[p].shift;

			if (last_position(band->x_q8, sh, out->width, j->step_x_q16) > (uint64_t)((in->width >> sh) - 1) << 16 ||
			    last_position(band->y_q8, sh, out->height, j->step_y_q16) > (uint64_t)((in->height >> sh) - 1) << 16)
				return cisp_error(-EINVAL, "eis warp: band %u at (%u, %u)/256 reads outside the %ux%u input",
						  b, band->x_q8, band->y_q8, in->width, in->height);
		}
	}
	return 0;
}

int cisp_eis_warp(const struct cisp_image *in, struct cisp_image *out, uint32_t step_x_q16, uint32_t step_y_q16,
		  const struct cisp_eis_band *bands, unsigned num_bands, struct cisp_pool *pool)
{
	struct warp_job j = { .in = in, .out = out, .bands = bands, .step_x_q16 = step_x_q16, .step_y_q16 = step_y_q16,
			      .num_bands = num_bands };
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
	r = check_bands(&j);
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
