/* SPDX-License-Identifier: MIT */
/* Helpers shared by the image-quality metrics. */
#ifndef CISP_IQ_INTERNAL_H
#define CISP_IQ_INTERNAL_H

#include <cisp/iq_image.h>

/* BT.709 / sRGB luminance weights. */
#define IQ_KR 0.2126
#define IQ_KG 0.7152
#define IQ_KB 0.0722

/* Pixel (x, y): channel @c of an RGB image, or luminance (c < 0) / the only channel of a grey one. */
static inline double iq_sample(const struct cisp_iq_image *img, int x, int y, int c)
{
	const float *p = img->data + (size_t)y * img->stride + (size_t)x * img->channels;

	if (img->channels == 1)
		return p[0];
	if (c >= 0)
		return p[c];
	return IQ_KR * p[0] + IQ_KG * p[1] + IQ_KB * p[2];
}

/* Check an image descriptor; return 0 or -EINVAL with a message naming @what. */
int iq_image_check(const struct cisp_iq_image *img, const char *what);

#endif
