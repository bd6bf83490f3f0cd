/* SPDX-License-Identifier: MIT */
/*
 * Raw Bayer formats of V4L2: pixel formats (which cisp shares), the media
 * bus codes sensors put on their pads, and copying a device buffer into a
 * caller image of the same format, its CSI-2 packed or unpacked variant, or
 * 16-bit samples.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <linux/media-bus-format.h>

#include <cisp/checked.h>

#include "core/error_internal.h"
#include "v4l2.h"

#define B(cfa, bits, packed, fcc, mbus) { CISP_CFA_##cfa, bits, packed, fcc, MEDIA_BUS_FMT_##mbus }

/* Unpacked entries first: v4l2_bayer_by_mbus() returns the first match. */
static const struct v4l2_bayer table[] = {
	B(BGGR, 8, false, CISP_FMT_SBGGR8, SBGGR8_1X8),
	B(GBRG, 8, false, CISP_FMT_SGBRG8, SGBRG8_1X8),
	B(GRBG, 8, false, CISP_FMT_SGRBG8, SGRBG8_1X8),
	B(RGGB, 8, false, CISP_FMT_SRGGB8, SRGGB8_1X8),
	B(BGGR, 10, false, CISP_FMT_SBGGR10, SBGGR10_1X10),
	B(GBRG, 10, false, CISP_FMT_SGBRG10, SGBRG10_1X10),
	B(GRBG, 10, false, CISP_FMT_SGRBG10, SGRBG10_1X10),
	B(RGGB, 10, false, CISP_FMT_SRGGB10, SRGGB10_1X10),
	B(BGGR, 12, false, CISP_FMT_SBGGR12, SBGGR12_1X12),
	B(GBRG, 12, false, CISP_FMT_SGBRG12, SGBRG12_1X12),
	B(GRBG, 12, false, CISP_FMT_SGRBG12, SGRBG12_1X12),
	B(RGGB, 12, false, CISP_FMT_SRGGB12, SRGGB12_1X12),
	B(BGGR, 14, false, CISP_FMT_SBGGR14, SBGGR14_1X14),
	B(GBRG, 14, false, CISP_FMT_SGBRG14, SGBRG14_1X14),
	B(GRBG, 14, false, CISP_FMT_SGRBG14, SGRBG14_1X14),
	B(RGGB, 14, false, CISP_FMT_SRGGB14, SRGGB14_1X14),
	B(BGGR, 16, false, CISP_FMT_SBGGR16, SBGGR16_1X16),
	B(GBRG, 16, false, CISP_FMT_SGBRG16, SGBRG16_1X16),
	B(GRBG, 16, false, CISP_FMT_SGRBG16, SGRBG16_1X16),
	B(RGGB, 16, false, CISP_FMT_SRGGB16, SRGGB16_1X16),
	B(BGGR, 10, true, CISP_FMT_SBGGR10P, SBGGR10_1X10),
	B(GBRG, 10, true, CISP_FMT_SGBRG10P, SGBRG10_1X10),
	B(GRBG, 10, true, CISP_FMT_SGRBG10P, SGRBG10_1X10),
	B(RGGB, 10, true, CISP_FMT_SRGGB10P, SRGGB10_1X10),
	B(BGGR, 12, true, CISP_FMT_SBGGR12P, SBGGR12_1X12),
	B(GBRG, 12, true, CISP_FMT_SGBRG12P, SGBRG12_1X12),
	B(GRBG, 12, true, CISP_FMT_SGRBG12P, SGRBG12_1X12),
	B(RGGB, 12, true, CISP_FMT_SRGGB12P, SRGGB12_1X12),
};

#define N_TABLE (sizeof(table) / sizeof(table[0]))

const struct v4l2_bayer *v4l2_bayer_by_fourcc(uint32_t fourcc)
{
	for (size_t i = 0; i < N_TABLE; i++)
		if (table[i].fourcc == fourcc)
			return &table[i];
	return NULL;
}

const struct v4l2_bayer *v4l2_bayer_by_mbus(uint32_t mbus)
{
	for (size_t i = 0; i < N_TABLE; i++)
		if (table[i].mbus == mbus)
			return &table[i];
	return NULL;
}

const struct v4l2_bayer *v4l2_bayer_packed(const struct v4l2_bayer *b)
{
	for (size_t i = 0; b && i < N_TABLE; i++)
		if (table[i].packed && table[i].cfa == b->cfa && table[i].bits == b->bits)
			return &table[i];
	return NULL;
}

const char *v4l2_mbus_name(uint32_t mbus, char buf[24])
{
	static const char *const cfa_names[] = { "RGGB", "GRBG", "GBRG", "BGGR" };
	const struct v4l2_bayer *b = v4l2_bayer_by_mbus(mbus);

	if (b)
		snprintf(buf, 24, "S%s%u_1X%u", cfa_names[b->cfa], b->bits, b->bits);
	else
		snprintf(buf, 24, "0x%04x", mbus);
	return buf;
}

const char *v4l2_fourcc_str(uint32_t f, char buf[8])
{
	for (int i = 0; i < 4; i++) {
		char c = (char)((f >> (8 * i)) & 0xff);

		buf[i] = c >= 0x20 && c < 0x7f ? c : '?';
	}
	buf[4] = '\0';
	return buf;
}

size_t v4l2_bayer_row_bytes(const struct v4l2_bayer *b, uint32_t width)
{
	if (b->packed)
		return b->bits == 10 ? (size_t)width * 5 / 4 : (size_t)width * 3 / 2;
	return b->bits == 8 ? width : (size_t)width * 2;
}

/* One row of @b to samples of @b->bits bits. */
static void row_to_u16(const struct v4l2_bayer *b, const uint8_t *s, uint16_t *d, uint32_t w)
{
	uint16_t top = (uint16_t)((1u << b->bits) - 1);

	if (b->packed && b->bits == 10) {
		for (uint32_t x = 0; x + 4 <= w; x += 4, s += 5)
			for (int k = 0; k < 4; k++)
				d[x + k] = (uint16_t)(s[k] << 2 | ((s[4] >> (2 * k)) & 3));
	} else if (b->packed) {
		for (uint32_t x = 0; x + 2 <= w; x += 2, s += 3) {
			d[x] = (uint16_t)(s[0] << 4 | (s[2] & 0xf));
			d[x + 1] = (uint16_t)(s[1] << 4 | s[2] >> 4);
		}
	} else if (b->bits == 8) {
		for (uint32_t x = 0; x < w; x++)
			d[x] = s[x];
	} else {
		/* Containers can hold more than @bits bits: clamp, as the ISP does. */
		for (uint32_t x = 0; x < w; x++) {
			uint16_t v = (uint16_t)(s[2 * x] | s[2 * x + 1] << 8);

			d[x] = v > top ? top : v;
		}
	}
}

/* Samples of @bits bits to one row of @f. */
static void u16_to_row(const struct cisp_format_info *f, unsigned bits, const uint16_t *s, uint8_t *d, uint32_t w)
{
	unsigned shift = f->bits - bits; /* only the 16-bit target widens */

	if (f->packed && f->bits == 10) {
		for (uint32_t x = 0; x + 4 <= w; x += 4, d += 5) {
			d[4] = 0;
			for (int k = 0; k < 4; k++) {
				d[k] = (uint8_t)(s[x + k] >> 2);
				d[4] |= (uint8_t)((s[x + k] & 3) << (2 * k));
			}
		}
	} else if (f->packed) {
		for (uint32_t x = 0; x + 2 <= w; x += 2, d += 3) {
			d[0] = (uint8_t)(s[x] >> 4);
			d[1] = (uint8_t)(s[x + 1] >> 4);
			d[2] = (uint8_t)((s[x] & 0xf) | (s[x + 1] & 0xf) << 4);
		}
	} else if (f->bits == 8) {
		for (uint32_t x = 0; x < w; x++)
			d[x] = (uint8_t)s[x];
	} else {
		for (uint32_t x = 0; x < w; x++) {
			uint16_t v = (uint16_t)(s[x] << shift);

			d[2 * x] = (uint8_t)v;
			d[2 * x + 1] = (uint8_t)(v >> 8);
		}
	}
}

int v4l2_check_payload(const struct v4l2_bayer *b, size_t stride, size_t bytes, uint32_t width, uint32_t height)
{
	size_t row = v4l2_bayer_row_bytes(b, width), need;

	/* The driver's stride may be anything: a sum that wraps needs more than any buffer holds. */
	if (!cisp_size_mul_add(stride, height - 1, row, &need))
		need = SIZE_MAX;
	if (stride < row || bytes < need)
		return cisp_error(-EINVAL, "v4l2: the buffer holds %zu bytes, a %ux%u %s frame with %zu-byte rows needs %zu",
				  bytes, width, height, cisp_format_name(b->fourcc), stride, need);
	return 0;
}

int v4l2_copy_frame(const struct v4l2_bayer *b, const uint8_t *src, size_t stride, size_t bytes,
		    struct cisp_image *dst)
{
	const struct cisp_format_info *f = cisp_format_info(dst->format);
	size_t row = v4l2_bayer_row_bytes(b, dst->width);
	uint16_t buf[CISP_MAX_DIMENSION];
	int ret;

	if (!f || f->kind != CISP_KIND_BAYER || f->cfa != b->cfa || (f->bits != b->bits && f->bits != 16))
		return cisp_error(-EINVAL, "v4l2: cannot copy %s frames into %s images",
				  cisp_format_name(b->fourcc), cisp_format_name(dst->format));
	ret = v4l2_check_payload(b, stride, bytes, dst->width, dst->height);
	if (ret < 0)
		return ret;
	for (uint32_t y = 0; y < dst->height; y++) {
		const uint8_t *s = src + (size_t)y * stride;
		uint8_t *d = dst->plane[0].data + (size_t)y * dst->plane[0].stride;

		if (f->fourcc == b->fourcc) {
			memcpy(d, s, row);
			continue;
		}
		row_to_u16(b, s, buf, dst->width);
		u16_to_row(f, b->bits, buf, d, dst->width);
	}
	return 0;
}

size_t v4l2_payload(size_t len, uint32_t bytesused, uint32_t data_offset, size_t *offset)
{
	size_t used = bytesused && bytesused < len ? bytesused : len;

	*offset = data_offset < used ? data_offset : 0;
	return used - *offset;
}

unsigned v4l2_range_sizes(uint32_t min_w, uint32_t max_w, uint32_t step_w, uint32_t min_h, uint32_t max_h,
			  uint32_t step_h, uint32_t *w, uint32_t *h, unsigned max)
{
	static const uint32_t common[][2] = { { 640, 480 }, { 1280, 720 }, { 1920, 1080 }, { 3840, 2160 } };
	unsigned n = 0;

	if (step_w == 0)
		step_w = 1;
	if (step_h == 0)
		step_h = 1;
	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]) && n < max; i++) {
		uint32_t cw = common[i][0], ch = common[i][1];

		if (cw >= min_w && cw <= max_w && ch >= min_h && ch <= max_h && (cw - min_w) % step_w == 0 &&
		    (ch - min_h) % step_h == 0) {
			w[n] = cw;
			h[n] = ch;
			n++;
		}
	}
	/* The largest size, made even (Bayer images have whole 2x2 cells). */
	if (n < max && max_w >= 16 && max_h >= 16 && (n == 0 || w[n - 1] != (max_w & ~1u) || h[n - 1] != (max_h & ~1u))) {
		w[n] = max_w & ~1u;
		h[n] = max_h & ~1u;
		n++;
	}
	return n;
}

int v4l2_open_error(const char *path, int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return cisp_error(-err, "v4l2: no permission to open %s: add the user to the group owning it "
				  "(usually 'video') or change its mode",
				  path);
	case EBUSY:
		return cisp_error(-err, "v4l2: %s is busy: another program holds it", path);
	case ENOENT:
	case ENODEV:
	case ENXIO:
		return cisp_error(-ENOENT, "v4l2: %s does not exist (device unplugged or driver not loaded?)", path);
	default:
		return cisp_error(-err, "v4l2: cannot open %s: %s", path, strerror(err));
	}
}
