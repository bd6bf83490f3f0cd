/* SPDX-License-Identifier: MIT */
/* Flat-field uniformity: block means relative to the centre block. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <cisp/iq_shading.h>

#include "core/error_internal.h"
#include "iq_internal.h"

int cisp_iq_shading(const struct cisp_iq_image *img, unsigned grid, struct cisp_iq_shading_result *res)
{
	double y[CISP_IQ_SHADING_MAX_GRID * CISP_IQ_SHADING_MAX_GRID];
	double rg[CISP_IQ_SHADING_MAX_GRID * CISP_IQ_SHADING_MAX_GRID];
	double bg[CISP_IQ_SHADING_MAX_GRID * CISP_IQ_SHADING_MAX_GRID];
	unsigned centre = (grid / 2) * grid + grid / 2;
	double lo = INFINITY, hi = -INFINITY;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = iq_image_check(img, "flat field");
	if (ret)
		return ret;
	if (grid < 3 || grid > CISP_IQ_SHADING_MAX_GRID || grid % 2 == 0)
		return cisp_error(-EINVAL, "shading grid %u: must be odd, 3..%d", grid, CISP_IQ_SHADING_MAX_GRID);
	if (img->width < 2 * grid || img->height < 2 * grid)
		return cisp_error(-EINVAL, "flat field %ux%u is too small for a %ux%u grid", img->width, img->height,
				  grid, grid);
	for (unsigned j = 0; j < grid; j++)
		for (unsigned i = 0; i < grid; i++) {
			unsigned x0 = i * img->width / grid, x1 = (i + 1) * img->width / grid;
			unsigned y0 = j * img->height / grid, y1 = (j + 1) * img->height / grid;
			double s[3] = { 0 }, n = (double)(x1 - x0) * (y1 - y0);

			for (unsigned yy = y0; yy < y1; yy++)
				for (unsigned xx = x0; xx < x1; xx++) {
					const float *p = img->data + (size_t)yy * img->stride + (size_t)xx * img->channels;

					for (unsigned c = 0; c < img->channels; c++)
						s[c] += p[c];
				}
			if (img->channels == 1) {
				y[j * grid + i] = s[0] / n;
				rg[j * grid + i] = bg[j * grid + i] = 1;
			} else {
				y[j * grid + i] = (IQ_KR * s[0] + IQ_KG * s[1] + IQ_KB * s[2]) / n;
				rg[j * grid + i] = s[1] > 0 ? s[0] / s[1] : 0;
				bg[j * grid + i] = s[1] > 0 ? s[2] / s[1] : 0;
			}
		}
	if (!(y[centre] > 0) || !(rg[centre] > 0) || !(bg[centre] > 0))
		return cisp_error(-EINVAL, "flat field: the centre block is black");
	res->grid = grid;
	for (unsigned k = 0; k < grid * grid; k++) {
		res->luma[k] = y[k] / y[centre];
		res->color[k] = 100 * fmax(fabs(rg[k] / rg[centre] - 1), fabs(bg[k] / bg[centre] - 1));
		lo = fmin(lo, res->luma[k]);
		hi = fmax(hi, res->luma[k]);
		res->color_max_pct = fmax(res->color_max_pct, res->color[k]);
	}
	res->luma_min = lo;
	res->luma_nonuniformity_pct = 100 * (hi - lo);
	res->luma_corner = (res->luma[0] + res->luma[grid - 1] + res->luma[grid * (grid - 1)] +
			    res->luma[grid * grid - 1]) / 4;
	return 0;
}
