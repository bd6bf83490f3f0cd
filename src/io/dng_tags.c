/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include <tiffio.h>

#include "io/dng_tags.h"

#define MAX_IFDS 32

/* A read-only libtiff stream over a memory buffer. */
struct mem_stream {
	const uint8_t *data;
	size_t size;
	size_t pos;
};

static tmsize_t mem_read(thandle_t h, void *buf, tmsize_t n)
{
	struct mem_stream *m = (struct mem_stream *)h;
	size_t left = m->size - m->pos, k = n < 0 ? 0 : (size_t)n;

	if (k > left)
		k = left;
	memcpy(buf, m->data + m->pos, k);
	m->pos += k;
	return (tmsize_t)k;
}

static tmsize_t mem_write(thandle_t h, void *buf, tmsize_t n)
{
	(void)h;
	(void)buf;
	(void)n;
	return -1;
}

static toff_t mem_seek(thandle_t h, toff_t off, int whence)
{
	struct mem_stream *m = (struct mem_stream *)h;
	uint64_t base = whence == SEEK_CUR ? m->pos : whence == SEEK_END ? m->size : 0;

	if (off > UINT64_MAX - base || base + off > m->size)
		return (toff_t)-1;
	m->pos = (size_t)(base + off);
	return m->pos;
}

static int mem_close(thandle_t h)
{
	(void)h;
	return 0;
}

static toff_t mem_size(thandle_t h)
{
	return ((struct mem_stream *)h)->size;
}

static int quiet(TIFF *tif, void *user_data, const char *module, const char *fmt, va_list ap)
{
	(void)tif;
	(void)user_data;
	(void)module;
	(void)fmt;
	(void)ap;
	return 1;
}

/* Whether the current directory holds @tag (an array tag, fixed or variable count). */
static bool has_tag(TIFF *tif, uint32_t tag)
{
	const TIFFField *f = TIFFFieldWithTag(tif, tag);
	uint16_t count16 = 0;
	uint32_t count32 = 0;
	void *values = NULL;

	if (!f)
		return false;
	if (!TIFFFieldPassCount(f))
		return TIFFGetField(tif, tag, &values) == 1 && values;
	if (TIFFFieldReadCount(f) == TIFF_VARIABLE2)
		return TIFFGetField(tif, tag, &count32, &values) == 1 && count32 && values;
	return TIFFGetField(tif, tag, &count16, &values) == 1 && count16 && values;
}

int dng_scan_tags(const void *data, size_t size, struct dng_tags *tags)
{
	struct mem_stream m = { data, size, 0 };
	uint64_t ifds[MAX_IFDS];
	uint64_t best_pixels = 0;
	int n = 0, best = -1;
	TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
	TIFF *tif;

	memset(tags, 0, sizeof(*tags));
	if (!opts)
		return -1;
	TIFFOpenOptionsSetErrorHandlerExtR(opts, quiet, NULL);
	TIFFOpenOptionsSetWarningHandlerExtR(opts, quiet, NULL);
	TIFFOpenOptionsSetMaxSingleMemAlloc(opts, 16 << 20);
	tif = TIFFClientOpenExt("dng", "rm", (thandle_t)&m, mem_read, mem_write, mem_seek, mem_close, mem_size, NULL,
				NULL, opts);
	TIFFOpenOptionsFree(opts);
	if (!tif)
		return -1;
	/* IFD0 holds the colour tags; the main chain and its SubIFDs are the candidates for the raw image. */
	tags->has_matrix = has_tag(tif, TIFFTAG_COLORMATRIX1) || has_tag(tif, TIFFTAG_COLORMATRIX2);
	tags->has_neutral = has_tag(tif, TIFFTAG_ASSHOTNEUTRAL) || has_tag(tif, TIFFTAG_ASSHOTWHITEXY);
	do {
		uint16_t count = 0;
		uint64_t *sub = NULL;
		if (n < MAX_IFDS)
			ifds[n++] = TIFFCurrentDirOffset(tif);
		if (TIFFGetField(tif, TIFFTAG_SUBIFD, &count, &sub) == 1 && sub)
			for (uint16_t i = 0; i < count && n < MAX_IFDS; i++)
				ifds[n++] = sub[i];
	} while (n < MAX_IFDS && TIFFReadDirectory(tif));
	for (int i = 0; i < n; i++) {
		uint32_t w = 0, h = 0, subfile = 0;
		uint16_t photometric = 0;
		if (!TIFFSetSubDirectory(tif, ifds[i]))
			continue;
		TIFFGetField(tif, TIFFTAG_SUBFILETYPE, &subfile);
		TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric);
		TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
		TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
		if (photometric == PHOTOMETRIC_CFA && !(subfile & FILETYPE_REDUCEDIMAGE) &&
		    (uint64_t)w * h > best_pixels) {
			best_pixels = (uint64_t)w * h;
			best = i;
		}
	}
	if (best >= 0 && TIFFSetSubDirectory(tif, ifds[best])) {
		float *origin = NULL, *crop_size = NULL;
		tags->has_black = has_tag(tif, TIFFTAG_BLACKLEVEL);
		tags->has_white = has_tag(tif, TIFFTAG_WHITELEVEL);
		if (TIFFGetField(tif, TIFFTAG_DEFAULTCROPORIGIN, &origin) == 1 &&
		    TIFFGetField(tif, TIFFTAG_DEFAULTCROPSIZE, &crop_size) == 1 && origin && crop_size) {
			tags->has_crop = true;
			tags->crop[0] = origin[0];
			tags->crop[1] = origin[1];
			tags->crop[2] = crop_size[0];
			tags->crop[3] = crop_size[1];
		}
	}
	TIFFClose(tif);
	return best >= 0 ? 0 : -1;
}
