/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
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

/* ---- structure check ---- */

struct tiff_walk {
	const uint8_t *d;
	size_t size;
	bool big_endian;
	uint64_t seen[64];
	int n_seen;
	bool dng;
	unsigned cfa_dim[2];
	uint32_t cfa_count;
	char *why;
	size_t why_size;
};

static uint32_t rd16(const struct tiff_walk *w, size_t at)
{
	const uint8_t *p = w->d + at;
	return w->big_endian ? (uint32_t)(p[0] << 8 | p[1]) : (uint32_t)(p[1] << 8 | p[0]);
}

static uint32_t rd32(const struct tiff_walk *w, size_t at)
{
	return w->big_endian ? rd16(w, at) << 16 | rd16(w, at + 2) : rd16(w, at + 2) << 16 | rd16(w, at);
}

static unsigned type_size(uint32_t type)
{
	static const unsigned sizes[14] = { 0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4 };
	return type < 14 ? sizes[type] : 0;
}

__attribute__((format(printf, 2, 3))) static int bad(struct tiff_walk *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->why, w->why_size, fmt, ap);
	va_end(ap);
	return -1;
}

/* Check the directory at @off and the directories it points to (SubIFDs, EXIF, next). */
static int walk_ifd(struct tiff_walk *w, uint64_t off, int depth)
{
	uint32_t count;

	while (off) {
		if (depth > 4 || w->n_seen >= 64)
			return bad(w, "more than 64 directories, or nested deeper than 4");
		for (int i = 0; i < w->n_seen; i++)
			if (w->seen[i] == off)
				return bad(w, "the directory at byte %llu is reached twice (a loop)", (unsigned long long)off);
		w->seen[w->n_seen++] = off;
		if (off + 2 > w->size)
			return bad(w, "a directory at byte %llu lies outside the %zu-byte file", (unsigned long long)off, w->size);
		count = rd16(w, (size_t)off);
		if (off + 2 + 12ull * count + 4 > w->size)
			return bad(w, "the directory at byte %llu (%u entries) runs past the end of the file",
				   (unsigned long long)off, count);
		for (uint32_t i = 0; i < count; i++) {
			size_t e = (size_t)off + 2 + 12 * (size_t)i;
			uint32_t tag = rd16(w, e), type = rd16(w, e + 2), n = rd32(w, e + 4), value = rd32(w, e + 8);
			uint64_t bytes = (uint64_t)type_size(type) * n;
			if (bytes > 4 && (uint64_t)value + bytes > w->size)
				return bad(w, "tag %u's %u values lie outside the file", tag, n);
			if (tag == 50706)
				w->dng = true;
			if (tag == 33421 && type == 3 && n == 2) {
				w->cfa_dim[0] = rd16(w, e + 8);
				w->cfa_dim[1] = rd16(w, e + 10);
			}
			if (tag == 33422)
				w->cfa_count = n;
			/* SubIFDs and the EXIF directory (one offset inline, several out of line). */
			if ((tag == 330 || tag == 34665) && (type == 4 || type == 13) && n >= 1 && n <= 16) {
				for (uint32_t k = 0; k < n; k++) {
					uint32_t sub = n == 1 ? value : rd32(w, (size_t)value + 4 * k);
					if (walk_ifd(w, sub, depth + 1))
						return -1;
				}
			}
		}
		if (w->cfa_count && w->cfa_dim[0] * w->cfa_dim[1] != w->cfa_count)
			return bad(w, "CFAPattern has %u entries for a %u-cell repeat pattern", w->cfa_count,
				   w->cfa_dim[0] * w->cfa_dim[1]);
		w->cfa_count = 0;
		w->cfa_dim[0] = w->cfa_dim[1] = 0;
		off = rd32(w, (size_t)off + 2 + 12 * (size_t)count);
		if (depth > 0)
			break; /* only the main chain is followed by its next pointers */
	}
	return 0;
}

int dng_check_structure(const void *data, size_t size, char *why, size_t why_size)
{
	struct tiff_walk w = { .d = data, .size = size, .why = why, .why_size = why_size };
	char ignored[160];
	const uint8_t *d = data;

	why[0] = '\0';
	if (size < 8 || !((d[0] == 'I' && d[1] == 'I' && d[2] == 42 && d[3] == 0) ||
			  (d[0] == 'M' && d[1] == 'M' && d[2] == 0 && d[3] == 42)))
		return 0;
	w.big_endian = d[0] == 'M';
	if (walk_ifd(&w, rd32(&w, 4), 0) == 0)
		return 0;
	if (w.dng)
		return -1;
	/* Not a DNG (maybe a camera's own TIFF-based raw): LibRaw decides. Did IFD0 say DNG? */
	{
		struct tiff_walk first = { .d = data, .size = size, .big_endian = w.big_endian, .why = ignored,
					   .why_size = sizeof(ignored) };
		uint32_t off = rd32(&first, 4);
		if (off + 2 <= size) {
			uint32_t count = rd16(&first, off);
			for (uint32_t i = 0; i < count && off + 2 + 12ull * (i + 1) <= size; i++)
				if (rd16(&first, off + 2 + 12 * (size_t)i) == 50706)
					return -1;
		}
	}
	return 0;
}
