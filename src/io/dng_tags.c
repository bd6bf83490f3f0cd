/* SPDX-License-Identifier: MIT */
/* A small TIFF directory walker for DNGs: structure checks and the tags cisp needs. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "io/dng_tags.h"

#define MAX_IFDS 64

/* One directory's facts that matter for picking the raw image. */
struct ifd_facts {
	uint32_t subfile, photometric, width, height;
	bool black, white, crop_origin, crop_size;
	double crop[4];
};

struct walk {
	const uint8_t *d;
	size_t size;
	bool big_endian;
	uint64_t seen[MAX_IFDS];
	struct ifd_facts facts[MAX_IFDS];
	int n;
	struct dng_tags *tags;
	char *why;
	size_t why_size;
};

static uint32_t rd16(const struct walk *w, size_t at)
{
	const uint8_t *p = w->d + at;
	return w->big_endian ? (uint32_t)(p[0] << 8 | p[1]) : (uint32_t)(p[1] << 8 | p[0]);
}

static uint32_t rd32(const struct walk *w, size_t at)
{
	return w->big_endian ? rd16(w, at) << 16 | rd16(w, at + 2) : rd16(w, at + 2) << 16 | rd16(w, at);
}

static unsigned type_size(uint32_t type)
{
	static const unsigned sizes[14] = { 0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4 };
	return type < 14 ? sizes[type] : 0;
}

/* Value @i of an entry of @type whose values start at @at: SHORT, LONG or RATIONAL; 0 for others. */
static double number(const struct walk *w, uint32_t type, size_t at, uint32_t i)
{
	if (type == 3)
		return rd16(w, at + 2 * i);
	if (type == 4)
		return rd32(w, at + 4 * i);
	if (type == 5) {
		uint32_t den = rd32(w, at + 8 * i + 4);
		return den ? (double)rd32(w, at + 8 * i) / den : 0;
	}
	return 0;
}

__attribute__((format(printf, 2, 3))) static int bad(struct walk *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->why, w->why_size, fmt, ap);
	va_end(ap);
	return -1;
}

/* Check the directory at @off and those it points to (SubIFDs, EXIF; the next one on the main chain). */
static int walk_ifd(struct walk *w, uint64_t off, int depth)
{
	while (off) {
		unsigned cfa_dim = 0, cfa_count = 0;
		struct ifd_facts *f;
		bool ifd0;
		uint32_t count;

		if (depth > 4 || w->n >= MAX_IFDS)
			return bad(w, "more than %d directories, or nested deeper than 4", MAX_IFDS);
		for (int i = 0; i < w->n; i++)
			if (w->seen[i] == off)
				return bad(w, "the directory at byte %llu is reached twice (a loop)", (unsigned long long)off);
		if (off + 2 > w->size)
			return bad(w, "a directory at byte %llu lies outside the %zu-byte file", (unsigned long long)off,
				   w->size);
		count = rd16(w, (size_t)off);
		if (off + 2 + 12ull * count + 4 > w->size)
			return bad(w, "the directory at byte %llu (%u entries) runs past the end of the file",
				   (unsigned long long)off, count);
		f = &w->facts[w->n];
		memset(f, 0, sizeof(*f));
		w->seen[w->n++] = off;
		ifd0 = w->n == 1;
		for (uint32_t i = 0; i < count; i++) {
			size_t e = (size_t)off + 2 + 12 * (size_t)i;
			uint32_t tag = rd16(w, e), type = rd16(w, e + 2), n = rd32(w, e + 4);
			uint64_t bytes = (uint64_t)type_size(type) * n;
			size_t at = bytes > 4 ? rd32(w, e + 8) : e + 8; /* where the values are */

			if (bytes > 4 && at + bytes > w->size)
				return bad(w, "tag %u's %u values lie outside the file", tag, n);
			switch (tag) {
			case 254: f->subfile = (uint32_t)number(w, type, at, 0); break;
			case 256: f->width = (uint32_t)number(w, type, at, 0); break;
			case 257: f->height = (uint32_t)number(w, type, at, 0); break;
			case 262: f->photometric = (uint32_t)number(w, type, at, 0); break;
			case 33421: cfa_dim = n == 2 ? (unsigned)(number(w, type, at, 0) * number(w, type, at, 1)) : 0; break;
			case 33422: cfa_count = n; break;
			case 50714: f->black = n > 0; break;
			case 50717: f->white = n > 0; break;
			case 50721: case 50722: w->tags->has_matrix |= ifd0 && n >= 9; break;
			case 50728: case 50729: w->tags->has_neutral |= ifd0 && n >= 2; break;
			case 50719:
				if ((f->crop_origin = n == 2)) {
					f->crop[0] = number(w, type, at, 0);
					f->crop[1] = number(w, type, at, 1);
				}
				break;
			case 50720:
				if ((f->crop_size = n == 2)) {
					f->crop[2] = number(w, type, at, 0);
					f->crop[3] = number(w, type, at, 1);
				}
				break;
			case 330: case 34665: /* SubIFDs, EXIF: one offset inline, several out of line */
				if ((type == 4 || type == 13) && n >= 1 && n <= 16)
					for (uint32_t k = 0; k < n; k++)
						if (walk_ifd(w, rd32(w, at + 4 * k), depth + 1))
							return -1;
				break;
			}
		}
		if (cfa_count && cfa_dim != cfa_count)
			return bad(w, "CFAPattern has %u entries for a %u-cell repeat pattern", cfa_count, cfa_dim);
		off = rd32(w, (size_t)off + 2 + 12 * (size_t)count);
		if (depth > 0)
			break; /* only the main chain is followed by its next pointers */
	}
	return 0;
}

/* Whether IFD0 holds DNGVersion (looked at on its own, so that a broken directory elsewhere cannot hide it). */
static bool ifd0_is_dng(const struct walk *w)
{
	uint32_t off = rd32(w, 4), count;

	if ((uint64_t)off + 2 > w->size)
		return false;
	count = rd16(w, off);
	for (uint32_t i = 0; i < count && off + 2 + 12ull * (i + 1) <= w->size; i++)
		if (rd16(w, off + 2 + 12 * (size_t)i) == 50706)
			return true;
	return false;
}

int dng_inspect(const void *data, size_t size, struct dng_tags *tags, char *why, size_t why_size)
{
	const uint8_t *d = data;
	struct walk w = { .d = d, .size = size, .tags = tags, .why = why, .why_size = why_size };
	uint64_t best_pixels = 0;

	memset(tags, 0, sizeof(*tags));
	why[0] = '\0';
	if (size < 8 || !((d[0] == 'I' && d[1] == 'I' && d[2] == 42 && d[3] == 0) ||
			  (d[0] == 'M' && d[1] == 'M' && d[2] == 0 && d[3] == 42)))
		return 0;
	w.big_endian = d[0] == 'M';
	/* A camera's own TIFF-based raw, or not a raw file at all: LibRaw decides. */
	if (!ifd0_is_dng(&w))
		return 0;
	tags->is_dng = true;
	if (walk_ifd(&w, rd32(&w, 4), 0))
		return -1;
	/* The raw image: the largest full-resolution CFA directory. */
	for (int i = 0; i < w.n; i++) {
		const struct ifd_facts *f = &w.facts[i];
		if (f->photometric == 32803 && !(f->subfile & 1) && (uint64_t)f->width * f->height > best_pixels) {
			best_pixels = (uint64_t)f->width * f->height;
			tags->has_raw_ifd = true;
			tags->has_black = f->black;
			tags->has_white = f->white;
			tags->has_crop = f->crop_origin && f->crop_size;
			memcpy(tags->crop, f->crop, sizeof(tags->crop));
		}
	}
	return 0;
}
