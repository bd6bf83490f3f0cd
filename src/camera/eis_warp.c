/* SPDX-License-Identifier: MIT */
/*
 * The EIS warp (docs/eis.md, "The warp"): each band of output rows is cut
 * out of the larger image at its own position, in 1/256 pixel, and scaled
 * by a fixed step, with bilinear interpolation in integers. The reference
 * for any faster version.
 */
#include <errno.h>
#include <stdlib.h>

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

/* Where one output column reads: the byte of its left input pixel, and the right one's weight in 1/256. */
struct warp_column {
	uint32_t at;
	uint32_t fx;
};

struct warp_job {
	const struct cisp_image *in;
	struct cisp_image *out;
	const struct cisp_eis_band *bands;
	uint32_t step_x_q16, step_y_q16;
	unsigned num_bands, num_planes, num_tasks;
	struct warp_plane plane[3];
	uint16_t *mixed;              /* per task: an input row's bytes mixed vertically */
	struct warp_column *columns;  /* per task: the output columns of the current band */
	size_t mixed_size, columns_size; /* entries per task */
};

/*
 * Output pixel x reads input position pos = @x_q16 + x * @step_q16: pixel
 * pos >> 16 and the next, the next weighing bits 8..15 of pos.
 */
static void plan_columns(struct warp_column *cols, uint32_t width, unsigned bpp, uint32_t x_q16, uint32_t step_q16)
{
	for (uint32_t x = 0; x < width; x++) {
		uint32_t pos = x_q16 + x * step_q16;

		cols[x] = (struct warp_column){ (pos >> 16) * bpp, (pos >> 8) & 255 };
	}
}

/*
 * One output row, in two passes: the rows @r0 and @r1 mixed with weights
 * 256 - @fy and @fy over the bytes the row reads, then each output byte
 * from two mixed bytes with weights 256 - fx and fx, rounded: the same sum
 * of four products as the 2-D formula, in at most 255 * 65536 + 32768.
 */
static void warp_row(const uint8_t *r0, const uint8_t *r1, uint32_t fy, uint16_t *mixed, uint8_t *dst,
		     const struct warp_column *cols, uint32_t width, unsigned bpp)
{
	uint32_t first = cols[0].at, end = cols[width - 1].at + (cols[width - 1].fx ? 2 * bpp : bpp);

	for (uint32_t i = first; i < end; i++)
		mixed[i] = (uint16_t)(r0[i] * (256 - fy) + r1[i] * fy);
	for (uint32_t x = 0; x < width; x++) {
		const uint16_t *m = mixed + cols[x].at;
		uint32_t fx = cols[x].fx;
		/* A zero weight reads nothing past the edge: the pixel itself stands in for its right neighbour. */
		unsigned right = fx ? bpp : 0;

		for (unsigned c = 0; c < bpp; c++)
			dst[x * bpp + c] = (uint8_t)((m[c] * (256 - fx) + m[right + c] * fx + 32768) >> 16);
	}
}

/* Output rows [y0, y1) of plane @p, with task @task's scratch. */
static void warp_plane_rows(const struct warp_job *j, unsigned task, unsigned p, uint32_t y0, uint32_t y1)
{
	const struct warp_plane *pl = &j->plane[p];
	const struct cisp_plane *src = &j->in->plane[p];
	struct cisp_plane *dst = &j->out->plane[p];
	uint16_t *mixed = j->mixed + task * j->mixed_size;
	struct warp_column *cols = j->columns + task * j->columns_size;
	uint32_t width = j->out->width >> pl->shift;
	unsigned b = 0, planned = UINT32_MAX;

	for (uint32_t y = y0; y < y1; y++) {
		const uint8_t *r0;
		uint32_t sy, fy;

		while (b + 1 < j->num_bands && j->bands[b + 1].first_row <= y << pl->shift)
			b++;
		/* Chroma planes of half the size: half the positions, the same steps. */
		if (planned != b) {
			plan_columns(cols, width, pl->bytes_per_pixel, (j->bands[b].x_q8 >> pl->shift) << 8, j->step_x_q16);
			planned = b;
		}
		sy = ((j->bands[b].y_q8 >> pl->shift) << 8) + y * j->step_y_q16;
		fy = (sy >> 8) & 255;
		r0 = src->data + (size_t)(sy >> 16) * src->stride;
		/* A zero weight reads nothing past the edge: the row itself stands in for the one below. */
		warp_row(r0, fy ? r0 + src->stride : r0, fy, mixed, dst->data + (size_t)y * dst->stride, cols, width,
			 pl->bytes_per_pixel);
	}
}

static void warp_task(void *opaque, unsigned task, unsigned worker)
{
	const struct warp_job *j = opaque;

	(void)worker;
	for (unsigned p = 0; p < j->num_planes; p++) {
		uint32_t rows = j->out->height >> j->plane[p].shift;

		warp_plane_rows(j, task, p, (uint32_t)((uint64_t)rows * task / j->num_tasks),
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

	if (!j->bands || j->num_bands < 1 || j->num_bands > CISP_EIS_MAX_BANDS)
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
	j.mixed_size = (size_t)in->width * 4;
	j.columns_size = out->width;
	j.mixed = malloc(j.num_tasks * j.mixed_size * sizeof(*j.mixed));
	j.columns = malloc(j.num_tasks * j.columns_size * sizeof(*j.columns));
	if (!j.mixed || !j.columns) {
		free(j.mixed);
		free(j.columns);
		return cisp_error(-ENOMEM, "eis warp: out of memory");
	}
	if (pool)
		cisp_pool_run(pool, j.num_tasks, warp_task, &j);
	else
		warp_task(&j, 0, 0);
	free(j.mixed);
	free(j.columns);
	return 0;
}
