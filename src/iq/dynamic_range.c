/* SPDX-License-Identifier: MIT */
/*
 * Dynamic range as the picture shows it (docs/iq.md): how many stops of a
 * stepped chart of textured bands keep visible texture in the output, and
 * the halo at a high-contrast edge; then the lab's chart for both, shot by
 * the camera and developed with its local tone mapping and without.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cisp/iq_contrast_range.h>
#include <cisp/iq_lab.h>
#include <cisp/raster.h>

#include "core/error_internal.h"
#include "lab_internal.h"

static bool rect_inside(const struct cisp_iq_image *img, const struct cisp_iq_rect *r)
{
	return r->x >= 0 && r->y >= 0 && r->width > 0 && r->height > 0 && r->x <= (int64_t)img->width - r->width &&
	       r->y <= (int64_t)img->height - r->height;
}

static double green(const struct cisp_iq_image *img, int32_t x, int32_t y)
{
	return img->data[(size_t)y * img->stride + (size_t)x * img->channels + 1];
}

/* Mean green of the central half of the squares of @b that are a whole square inside it, by parity. */
static void checker_means(const struct cisp_iq_image *img, const struct cisp_iq_checker_band *b, double sum[2],
			  double n[2])
{
	const int32_t q = b->square, cols = b->rect.width / q, rows = b->rect.height / q;

	sum[0] = sum[1] = n[0] = n[1] = 0;
	for (int32_t j = 1; j + 1 < rows; j++)
		for (int32_t i = 1; i + 1 < cols; i++) {
			const int dark = (i + j) & 1;
			const int32_t x0 = b->rect.x + i * q + q / 4, y0 = b->rect.y + j * q + q / 4;

			for (int32_t y = y0; y < y0 + q / 2; y++)
				for (int32_t x = x0; x < x0 + q / 2; x++) {
					sum[dark] += green(img, x, y);
					n[dark]++;
				}
		}
}

int cisp_iq_contrast_range(const struct cisp_iq_image *img, const struct cisp_iq_checker_band *bands,
			   unsigned count, double min_michelson, struct cisp_iq_contrast_range_result *out)
{
	memset(out, 0, sizeof(*out));
	out->top = out->bottom = -1;
	if (!img->data || img->channels != 3)
		return cisp_error(-EINVAL, "contrast range: the picture must have 3 channels");
	if (count < 1 || count > CISP_IQ_CONTRAST_MAX_BANDS)
		return cisp_error(-EINVAL, "contrast range: %u bands (1..%d)", count, CISP_IQ_CONTRAST_MAX_BANDS);
	for (unsigned k = 0; k < count; k++) {
		const struct cisp_iq_checker_band *b = &bands[k];
		struct cisp_iq_contrast_band *o = &out->band[k];
		double sum[2], n[2];

		if (b->square < 4 || !rect_inside(img, &b->rect))
			return cisp_error(-EINVAL, "contrast range: band %u (%dx%d at %d,%d, squares of %d) is not inside the "
						   "%ux%u picture or its squares are under 4 pixels",
					  k, b->rect.width, b->rect.height, b->rect.x, b->rect.y, b->square, img->width,
					  img->height);
		checker_means(img, b, sum, n);
		if (!n[0] || !n[1])
			return cisp_error(-EINVAL, "contrast range: band %u holds no bright and dark square a square "
						   "inside it (it needs 3x3 squares at least)",
					  k);
		o->stops = b->stops;
		o->bright = sum[0] / n[0];
		o->dark = sum[1] / n[1];
		o->michelson = o->bright + o->dark > 0 ? (o->bright - o->dark) / (o->bright + o->dark) : 0;
		/* At least one 8-bit code apart (less a hair for float sums), and enough contrast. */
		o->kept = o->bright - o->dark >= 0.999 / 255 && o->michelson >= min_michelson;
	}
	out->count = count;
	for (unsigned k = 0; k < count; k++)
		if (out->band[k].kept) {
			out->top = out->bottom = (int)k;
			while ((unsigned)out->bottom + 1 < count && out->band[out->bottom + 1].kept)
				out->bottom++;
			out->stops = fabs(out->band[out->top].stops - out->band[out->bottom].stops) + 1;
			break;
		}
	return 0;
}

int cisp_iq_halo(const struct cisp_iq_image *img, const struct cisp_iq_rect *roi, struct cisp_iq_halo_result *out)
{
	const int32_t w = roi->width, eighth = w / 8;
	double *col, step, dark = 0, bright = 0;

	memset(out, 0, sizeof(*out));
	if (!img->data || img->channels != 3 || w < 16 || !rect_inside(img, roi))
		return cisp_error(-EINVAL, "halo: the region %dx%d at %d,%d is not inside the %ux%u picture or is under 16 "
					   "pixels wide",
				  roi->width, roi->height, roi->x, roi->y, img->width, img->height);
	col = calloc((size_t)w, sizeof(*col));
	if (!col)
		return cisp_error(-ENOMEM, "halo: out of memory");
	for (int32_t y = roi->y; y < roi->y + roi->height; y++)
		for (int32_t i = 0; i < w; i++)
			col[i] += green(img, roi->x + i, y) / roi->height;
	for (int32_t i = 0; i < eighth; i++) {
		dark += col[i] / eighth;
		bright += col[w - 1 - i] / eighth;
	}
	step = bright - dark;
	out->dark = dark;
	out->bright = bright;
	if (!(step > 0)) {
		free(col);
		return cisp_error(-EINVAL, "halo: the right side (%.4f) is not brighter than the left (%.4f)", bright, dark);
	}
	for (int32_t i = 0; i < w; i++) {
		if (i < w / 2)
			out->undershoot_pct = fmax(out->undershoot_pct, 100 * (dark - col[i]) / step);
		else
			out->overshoot_pct = fmax(out->overshoot_pct, 100 * (col[i] - bright) / step);
	}
	free(col);
	return 0;
}

/* ---- the lab's chart ---- */

/*
 * The chart, in fractions of the frame: the top three quarters hold the
 * bands in 5 columns and 4 rows, in reading order, band k at 0.8 * 2^-k
 * with squares of 1.2 and 0.8 times that (Michelson contrast 0.2); the
 * bottom quarter is the edge, its left half 6 stops darker than its right.
 */
#define DR_COLUMNS 5
#define DR_TOP 0.75
#define DR_EDGE_STOPS 6
#define DR_CONTRAST 0.2
#define DR_MIN_MICHELSON 0.02

static void band_layout(uint32_t w, uint32_t h, unsigned k, struct cisp_iq_checker_band *b)
{
	const unsigned rows = CISP_IQ_LAB_RANGE_BANDS / DR_COLUMNS;
	const int32_t x0 = (int32_t)(k % DR_COLUMNS * w / DR_COLUMNS), x1 = (int32_t)((k % DR_COLUMNS + 1) * w / DR_COLUMNS);
	const int32_t y0 = (int32_t)(k / DR_COLUMNS * DR_TOP * h / rows);
	const int32_t y1 = (int32_t)((k / DR_COLUMNS + 1) * DR_TOP * h / rows);

	b->rect = (struct cisp_iq_rect){ x0, y0, x1 - x0, y1 - y0 };
	b->square = (int32_t)(h / 48 < 4 ? 4 : h / 48);
	b->stops = -(double)k;
}

static struct cisp_iq_rect edge_layout(uint32_t w, uint32_t h)
{
	const int32_t y0 = (int32_t)((1 + DR_TOP) / 2 * h), y1 = (int32_t)h - (int32_t)h / 32;

	/* The strip's lower half, away from the bands (zones holding both have levels between) and the sides. */
	return (struct cisp_iq_rect){ (int32_t)w / 8, y0, (int32_t)(w - w / 4), y1 - y0 };
}

/* Scene reflectance of pixel (x, y) of the chart. */
static double chart_at(uint32_t w, uint32_t h, uint32_t x, uint32_t y)
{
	const unsigned rows = CISP_IQ_LAB_RANGE_BANDS / DR_COLUMNS;
	unsigned col = 0, row = 0;
	struct cisp_iq_checker_band b;
	int dark;

	if (y >= (uint32_t)(DR_TOP * h))
		return x < w / 2 ? 0.8 * exp2(-DR_EDGE_STOPS) : 0.8;
	/* The band holding the pixel: the boundaries band_layout() draws. */
	while (col + 1 < DR_COLUMNS && (col + 1) * w / DR_COLUMNS <= x)
		col++;
	while (row + 1 < rows && (uint32_t)((row + 1) * DR_TOP * h / rows) <= y)
		row++;
	band_layout(w, h, row * DR_COLUMNS + col, &b);
	dark = (((int32_t)x - b.rect.x) / b.square + ((int32_t)y - b.rect.y) / b.square) & 1;
	return 0.8 * exp2(b.stops) * (dark ? 1 - DR_CONTRAST : 1 + DR_CONTRAST);
}

/* The chart as a 16-bit sRGB PPM for the virtual sensor's image scene, at the frame's size: @path. */
static int write_chart(uint32_t w, uint32_t h, char *dir, size_t dir_size, char *path, size_t path_size)
{
	struct cisp_raster r;
	const char *tmp = getenv("TMPDIR");
	int ret;

	snprintf(dir, dir_size, "%s/cisp-range-XXXXXX", tmp && *tmp && !strchr(tmp, ',') ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return cisp_error(-errno, "dynamic range: cannot make a directory %s for the chart", dir);
	snprintf(path, path_size, "%s/chart.ppm", dir);
	ret = cisp_raster_alloc(&r, w, h, 3, 65535);
	for (uint32_t y = 0; !ret && y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			uint16_t v = (uint16_t)lrint(cisp_iq_encode(CISP_TRANSFER_SRGB, chart_at(w, h, x, y)) * 65535);

			for (int c = 0; c < 3; c++)
				r.data[((size_t)y * w + x) * 3 + c] = v;
		}
	if (!ret)
		ret = cisp_raster_write(path, &r);
	cisp_raster_free(&r);
	if (ret) {
		unlink(path);
		rmdir(dir);
	}
	return ret;
}

/* The picture and both measurements of one development of the chart. */
static int measure(const struct cisp_iq_image *img, struct cisp_iq_contrast_range_result *range,
		   struct cisp_iq_halo_result *halo)
{
	struct cisp_iq_checker_band b[CISP_IQ_LAB_RANGE_BANDS];
	struct cisp_iq_rect edge = edge_layout(img->width, img->height);

	for (unsigned k = 0; k < CISP_IQ_LAB_RANGE_BANDS; k++)
		band_layout(img->width, img->height, k, &b[k]);
	int ret = cisp_iq_contrast_range(img, b, CISP_IQ_LAB_RANGE_BANDS, DR_MIN_MICHELSON, range);

	return ret ? ret : cisp_iq_halo(img, &edge, halo);
}

int cisp_iq_lab_dynamic_range(const struct cisp_iq_lab *lab, const struct cisp_iq_lab_color *color, bool keep_picture,
			      struct cisp_iq_lab_dynamic_range *out)
{
	char name[300], dir[256], path[300];
	struct cisp_sensor *s = NULL;
	struct cisp_sensor_mode m;
	struct camera_shot shot = { 0 };
	struct cisp_iq_image img = { 0 };
	int ret;

	memset(out, 0, sizeof(*out));
	if (lab->calibration == CISP_IQ_LAB_CEILING)
		return cisp_error(-EINVAL, "dynamic range: the chart measures the camera's tone mapping, not the ceiling's "
					   "linear output");
	/* The frame's size first: the chart is drawn at it, a pixel of the chart a pixel of the frame. */
	snprintf(name, sizeof(name), "virtual:%s", lab->sensor);
	ret = cisp_sensor_open(&s, name, NULL);
	if (!ret)
		ret = cisp_sensor_set_mode(s, lab->mode);
	if (!ret)
		ret = cisp_sensor_get_mode(s, lab->mode, &m);
	cisp_sensor_close(s);
	if (!ret)
		ret = write_chart(m.width, m.height, dir, sizeof(dir), path, sizeof(path));
	if (ret)
		return ret;
	ret = camera_shoot(lab, path, color->illuminant, NULL, &shot);
	unlink(path);
	rmdir(dir);
	if (ret)
		return ret;
	out->exposure = shot.exposure;
	out->ltm = shot.state->enabled & CISP_BLOCK_BIT(CISP_BLOCK_LTM);
	ret = develop_camera(lab, &shot, shot.state, true, &img);
	if (!ret)
		ret = measure(&img, &out->range, &out->halo);
	if (!ret && keep_picture) {
		/* As the output shows it: its code values taken for sRGB, which the report encodes back. */
		for (size_t i = 0; i < (size_t)img.height * img.stride; i++)
			img.data[i] = (float)cisp_iq_linearize(CISP_TRANSFER_SRGB, fmin(fmax(img.data[i], 0), 1));
		out->picture = img;
		img.data = NULL;
	}
	cisp_iq_image_free(&img);
	/* The same frame and parameters with the LTM block off. */
	shot.state->enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_LTM);
	if (!ret)
		ret = develop_camera(lab, &shot, shot.state, true, &img);
	if (!ret)
		ret = measure(&img, &out->range_off, &out->halo_off);
	cisp_iq_image_free(&img);
	camera_shot_free(&shot);
	if (ret)
		cisp_iq_image_free(&out->picture);
	return ret;
}
