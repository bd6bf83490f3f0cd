/* SPDX-License-Identifier: MIT */
/* False colour: chroma statistics of a neutral chart region. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/iq_color.h>
#include <cisp/iq_false_color.h>

#include "core/error_internal.h"
#include "iq_internal.h"

/* Histogram of C*ab in 0.1 steps up to 200 for the percentile. */
#define BINS 2001

int cisp_iq_false_color(const struct cisp_iq_image *img, const struct cisp_iq_rect *roi,
			struct cisp_iq_false_color_result *res)
{
	unsigned *hist;
	double sum = 0, n = (double)roi->width * roi->height, need, acc = 0;
	unsigned visible = 0;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = iq_image_check(img, "false-colour image");
	if (ret)
		return ret;
	if (img->channels != 3)
		return cisp_error(-EINVAL, "false colour needs an RGB image, not a grey one");
	ret = cisp_iq_rect_check(img, roi, 4, "false-colour region");
	if (ret)
		return ret;
	hist = calloc(BINS, sizeof(*hist));
	if (!hist)
		return cisp_error(-ENOMEM, "out of memory for a histogram");
	for (int y = roi->y; y < roi->y + roi->height; y++)
		for (int x = roi->x; x < roi->x + roi->width; x++) {
			const float *p = img->data + (size_t)y * img->stride + (size_t)x * 3;
			double rgb[3] = { p[0], p[1], p[2] }, xyz[3], lab[3], c;
			int b;

			cisp_iq_srgb_to_xyz(rgb, xyz);
			cisp_iq_xyz_to_lab(xyz, cisp_iq_white_d65, lab);
			c = hypot(lab[1], lab[2]);
			sum += c;
			res->max_chroma = fmax(res->max_chroma, c);
			visible += c > 5;
			b = (int)lrint(c * 10);
			hist[b < 0 ? 0 : b >= BINS ? BINS - 1 : b]++;
		}
	res->mean_chroma = sum / n;
	res->fraction_visible = visible / n;
	need = 0.99 * n;
	for (int b = 0; b < BINS; b++) {
		acc += hist[b];
		if (acc >= need) {
			res->p99_chroma = b / 10.0;
			break;
		}
	}
	free(hist);
	return 0;
}
