/* SPDX-License-Identifier: MIT */
/* Pictures for the HTML report: a scaled sRGB PNG in memory, then base64. */
#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/iq_image.h>

#include "core/error_internal.h"
#include "report_internal.h"

struct membuf {
	unsigned char *data;
	size_t size, cap;
	bool failed;
};

static void mem_write(png_structp png, png_bytep data, png_size_t len)
{
	struct membuf *m = png_get_io_ptr(png);

	if (m->failed)
		return;
	if (m->size + len > m->cap) {
		size_t cap = (m->cap + len) * 2;
		unsigned char *n = realloc(m->data, cap);

		if (!n) {
			m->failed = true;
			return;
		}
		m->data = n;
		m->cap = cap;
	}
	memcpy(m->data + m->size, data, len);
	m->size += len;
}

static void mem_flush(png_structp png)
{
	(void)png;
}

static char *base64(const unsigned char *d, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc(4 * ((n + 2) / 3) + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = d[i] << 16 | (i + 1 < n ? d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);

		*o++ = tab[v >> 18 & 63];
		*o++ = tab[v >> 12 & 63];
		*o++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? tab[v & 63] : '=';
	}
	*o = 0;
	return out;
}

/* Encode @w x @h RGB bytes as PNG into @m; false on a libpng error. */
static bool encode_png(const unsigned char *rgb, unsigned w, unsigned h, struct membuf *m)
{
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png ? png_create_info_struct(png) : NULL;

	if (!png || !info) {
		png_destroy_write_struct(&png, &info);
		return false;
	}
	if (setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		return false;
	}
	png_set_write_fn(png, m, mem_write, mem_flush);
	png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
		     PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	for (unsigned y = 0; y < h; y++)
		png_write_row(png, (png_const_bytep)(rgb + (size_t)y * w * 3));
	png_write_end(png, info);
	png_destroy_write_struct(&png, &info);
	return true;
}

int report_png_base64(const struct cisp_iq_image *img, double gain, unsigned max_width, char **text,
		      unsigned *width, unsigned *height)
{
	unsigned step, w, h;
	struct membuf m = { 0 };
	unsigned char *rgb;
	bool ok;

	*text = NULL;
	if (!img->data || img->width == 0 || img->height == 0 || (img->channels != 1 && img->channels != 3))
		return cisp_error(-EINVAL, "report picture: not an image");
	step = (img->width + max_width - 1) / max_width;
	if (step < 1)
		step = 1;
	w = img->width / step;
	h = img->height / step;
	if (w == 0 || h == 0)
		return cisp_error(-EINVAL, "report picture %ux%u is too small", img->width, img->height);
	rgb = malloc((size_t)w * h * 3);
	if (!rgb)
		return cisp_error(-ENOMEM, "out of memory for a report picture");
	/* Box-average step x step pixels, then encode as sRGB. */
	for (unsigned y = 0; y < h; y++)
		for (unsigned x = 0; x < w; x++)
			for (int c = 0; c < 3; c++) {
				double s = 0, v;
				unsigned ch = img->channels == 1 ? 0 : (unsigned)c;

				for (unsigned dy = 0; dy < step; dy++)
					for (unsigned dx = 0; dx < step; dx++)
						s += img->data[(size_t)(y * step + dy) * img->stride +
							       (size_t)(x * step + dx) * img->channels + ch];
				v = cisp_iq_encode(CISP_TRANSFER_SRGB, fmin(fmax(s * gain / (step * step), 0), 1));
				rgb[((size_t)y * w + x) * 3 + c] = (unsigned char)lrint(v * 255);
			}
	ok = encode_png(rgb, w, h, &m);
	free(rgb);
	if (!ok || m.failed) {
		free(m.data);
		return cisp_error(-EIO, "report picture: PNG encoding failed");
	}
	*text = base64(m.data, m.size);
	free(m.data);
	if (!*text)
		return cisp_error(-ENOMEM, "out of memory for a report picture");
	*width = w;
	*height = h;
	return 0;
}
