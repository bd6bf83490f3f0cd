/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include <cisp/format.h>
#include <cisp/orient.h>

#include "core/error_internal.h"

int cisp_image_orient(const struct cisp_image *src, int orientation, struct cisp_image *dst)
{
	size_t bpp = src->format == CISP_FMT_RGB48 ? 6 : 3;
	bool swap = orientation >= 5;
	uint32_t w = src->width, h = src->height;
	int ret;

	memset(dst, 0, sizeof(*dst));
	if (src->format != CISP_FMT_RGB888 && src->format != CISP_FMT_RGB48)
		return cisp_error(-EINVAL, "orientation applies to RGB images, not %s", cisp_format_name(src->format));
	if (orientation < 1 || orientation > 8)
		return cisp_error(-EINVAL, "orientation %d is outside 1..8", orientation);
	if ((ret = cisp_image_alloc(dst, src->format, swap ? h : w, swap ? w : h)))
		return ret;
	for (uint32_t y = 0; y < dst->height; y++) {
		uint8_t *out = dst->plane[0].data + y * dst->plane[0].stride;
		for (uint32_t x = 0; x < dst->width; x++) {
			uint32_t sx, sy;
			switch (orientation) {
			case 2: sx = w - 1 - x; sy = y; break;
			case 3: sx = w - 1 - x; sy = h - 1 - y; break;
			case 4: sx = x; sy = h - 1 - y; break;
			case 5: sx = y; sy = x; break;
			case 6: sx = y; sy = h - 1 - x; break;
			case 7: sx = w - 1 - y; sy = h - 1 - x; break;
			case 8: sx = w - 1 - y; sy = x; break;
			default: sx = x; sy = y; break;
			}
			memcpy(out + x * bpp, src->plane[0].data + sy * src->plane[0].stride + sx * bpp, bpp);
		}
	}
	return 0;
}
