/* SPDX-License-Identifier: MIT */
/* A small TIFF directory walker for DNGs: structure checks and the tags cisp needs. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cisp/checked.h>
#include <cisp/image.h>

#include "io/dng_tags.h"

#define MAX_IFDS 64
/* Most strips or tiles a directory may have: a 16384x16384 image in 16x16 tiles (keeps the checks short). */
#define MAX_CHUNKS (1u << 20)
/* Most BlackLevel values: a repeat pattern LibRaw holds (LIBRAW_CBLACK_SIZE less its 8 other entries). */
#define MAX_BLACK_LEVELS 4096

/* Where a tag's values lie: @n values of TIFF @type from byte @at (inside the file, checked). */
struct values {
	uint32_t type, n;
	size_t at;
};

/* One directory's facts that matter for picking the raw image and for checking its image data. */
struct ifd_facts {
	uint32_t subfile, photometric, width, height;
	uint32_t bits, samples, planar, compression, rows_per_strip, tile_width, tile_length;
	bool tiled;                   /* TileOffsets rather than StripOffsets */
	struct values offsets, counts; /* of the strips or tiles */
	bool scattered;               /* uncompressed data that is not one run of rows (see dng_tags.h) */
	bool black, white, crop_origin, crop_size;
	uint32_t white_level;
	double black_max, crop[4];
	struct dng_bytes opcodes[3]; /* OpcodeList1..3 */
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

/* Bytes per value of a TIFF type; unknown types count 1, as LibRaw counts them, so both look in the same place. */
static unsigned type_size(uint32_t type)
{
	static const unsigned sizes[14] = { 1, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4 };
	return type < 14 ? sizes[type] : 1;
}

/* Value @i of an entry of @type whose values start at @at: SHORT, LONG, RATIONAL or SRATIONAL; 0 for others. */
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
	if (type == 10) {
		int32_t num = (int32_t)rd32(w, at + 8 * i), den = (int32_t)rd32(w, at + 8 * i + 4);
		return den ? (double)num / den : 0;
	}
	return 0;
}

/*
 * The first value of an integer tag as LibRaw reads it: a SHORT as 16 bits,
 * anything else as 32 (inline, the entry's 4-byte field holds them; out of
 * line, more than 4 bytes were checked to be inside the file).
 */
static uint32_t first_integer(const struct walk *w, uint32_t type, size_t at)
{
	return type == 3 ? rd16(w, at) : rd32(w, at);
}

/* Value @i of a SHORT or LONG array (strip and tile offsets and byte counts). */
static uint32_t array_value(const struct walk *w, const struct values *v, uint32_t i)
{
	return v->type == 3 ? rd16(w, v->at + 2 * (size_t)i) : rd32(w, v->at + 4 * (size_t)i);
}

__attribute__((format(printf, 3, 4))) static int bad(struct walk *w, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->why, w->why_size, fmt, ap);
	va_end(ap);
	return err;
}

/*
 * The strips or tiles of directory @f: as many as its geometry has, each
 * inside the file. For a CFA image without compression, also as large as
 * its rows need, and whether they follow one another row by row from the
 * first byte (the only layout LibRaw reads right, see dng_tags.h).
 */
static int check_image_data(struct walk *w, struct ifd_facts *f)
{
	const char *what = f->tiled ? "tile" : "strip", *tag = f->tiled ? "Tile" : "Strip";
	uint32_t chunk_width = f->tiled ? f->tile_width : f->width, chunk_rows;
	size_t planes = f->planar == 2 ? f->samples : 1, chunks, row_bytes, need, first;
	uint64_t held = 0;
	bool fits;

	if (!f->offsets.n && !f->counts.n)
		return 0; /* no image data here (an EXIF directory) */
	if (f->bits == 0 || f->bits > 32)
		return bad(w, -EINVAL, "BitsPerSample %u is not 1..32", f->bits);
	if (f->samples == 0)
		return bad(w, -EINVAL, "SamplesPerPixel 0");
	if (f->offsets.type != 4 || (f->counts.type != 3 && f->counts.type != 4))
		return bad(w, -EINVAL, "%sOffsets and %sByteCounts of TIFF types %u and %u, not LONG and SHORT or LONG",
			   tag, tag, f->offsets.type, f->counts.type);
	if (f->offsets.n > MAX_CHUNKS)
		return bad(w, -EINVAL, "%sOffsets has %u entries, more than the %u of a %ux%u image in 16x16 tiles", tag,
			   f->offsets.n, MAX_CHUNKS, CISP_MAX_DIMENSION, CISP_MAX_DIMENSION);
	/* The number of strips or tiles the geometry gives; one that does not fit size_t matches no count. */
	if (f->tiled) {
		if (!f->tile_width || !f->tile_length)
			return bad(w, -EINVAL, "tiles of %ux%u", f->tile_width, f->tile_length);
		chunk_rows = f->tile_length;
		fits = cisp_size_mul(((uint64_t)f->width + f->tile_width - 1) / f->tile_width,
				     ((uint64_t)f->height + f->tile_length - 1) / f->tile_length, &chunks) &&
		       cisp_size_mul(chunks, planes, &chunks);
		if (!fits || f->offsets.n != chunks)
			return bad(w, -EINVAL, "TileOffsets has %u entries for the %zu tiles of %ux%u in a %ux%u image",
				   f->offsets.n, fits ? chunks : SIZE_MAX, f->tile_width, f->tile_length, f->width,
				   f->height);
	} else {
		chunk_rows = f->rows_per_strip && f->rows_per_strip < f->height ? f->rows_per_strip : f->height;
		chunks = 1; /* no rows: one empty strip */
		fits = !chunk_rows || cisp_size_mul(((uint64_t)f->height + chunk_rows - 1) / chunk_rows, planes, &chunks);
		if (!fits || f->offsets.n != chunks)
			return bad(w, -EINVAL, "StripOffsets has %u entries for the %zu strips of %u rows in a %ux%u image",
				   f->offsets.n, fits ? chunks : SIZE_MAX, chunk_rows, f->width, f->height);
	}
	if (f->counts.n != f->offsets.n)
		return bad(w, -EINVAL, "%sByteCounts has %u entries, %sOffsets %u", tag, f->counts.n, tag, f->offsets.n);
	for (uint32_t i = 0; i < f->offsets.n; i++) {
		uint32_t at = array_value(w, &f->offsets, i), bytes = array_value(w, &f->counts, i);

		if (!cisp_span_inside(at, bytes, w->size))
			return bad(w, -EIO, "%s %u is %u bytes at byte %u, the file %zu bytes", what, i, bytes, at, w->size);
		held += bytes;
	}
	if (f->photometric != 32803 || f->compression != 1)
		return 0;
	/* Uncompressed CFA data: rows of whole bytes (ceil(width * samples * bits / 8)), computed without wrapping. */
	if (!cisp_size_mul(chunk_width, planes > 1 ? 1 : f->samples, &row_bytes) ||
	    !cisp_size_mul(row_bytes, f->bits, &row_bytes) || !cisp_size_add(row_bytes, 7, &row_bytes) ||
	    !cisp_size_mul(row_bytes / 8, chunk_rows, &need) || !cisp_size_mul(need, chunks, &need))
		return bad(w, -EINVAL, "a %ux%u image of %u %u-bit samples a pixel is larger than any file", f->width,
			   f->height, f->samples, f->bits);
	row_bytes /= 8;
	if (!f->tiled) /* the last strip holds only the rows that are left */
		need = row_bytes * f->height * planes;
	if (held < need)
		return bad(w, -EINVAL, "the %ss hold %llu bytes, but %u rows of %u %u-bit samples need %zu", what,
			   (unsigned long long)held, f->height, f->width, f->bits, need);
	/* LibRaw reads the rows one after another from the first strip or tile, planes interleaved. */
	first = array_value(w, &f->offsets, 0);
	f->scattered = planes > 1 || (f->tiled && (chunks > 1 || f->tile_width != f->width));
	for (uint32_t i = 1; i < f->offsets.n && !f->scattered; i++)
		f->scattered = array_value(w, &f->offsets, i) != first + (size_t)i * chunk_rows * row_bytes;
	return 0;
}

/* Check the directory at @off and those it points to (SubIFDs, EXIF; the next one on the main chain). */
static int walk_ifd(struct walk *w, uint64_t off, int depth)
{
	while (off) {
		uint64_t cfa_rows = 0, cfa_cols = 0;
		uint32_t cfa_count = 0, count;
		struct ifd_facts *f;
		bool ifd0;
		int ret;

		if (depth > 4 || w->n >= MAX_IFDS)
			return bad(w, -EINVAL, "more than %d directories, or nested deeper than 4", MAX_IFDS);
		for (int i = 0; i < w->n; i++)
			if (w->seen[i] == off)
				return bad(w, -EINVAL, "the directory at byte %llu is reached twice (a loop)",
					   (unsigned long long)off);
		if (!cisp_span_inside(off, 2, w->size))
			return bad(w, -EINVAL, "a directory at byte %llu lies outside the %zu-byte file",
				   (unsigned long long)off, w->size);
		count = rd16(w, (size_t)off);
		if (!cisp_span_inside(off + 2, 12 * (size_t)count + 4, w->size))
			return bad(w, -EINVAL, "the directory at byte %llu (%u entries) runs past the end of the file",
				   (unsigned long long)off, count);
		f = &w->facts[w->n];
		memset(f, 0, sizeof(*f));
		/* TIFF's defaults */
		f->bits = f->samples = f->planar = f->compression = 1;
		f->rows_per_strip = UINT32_MAX;
		w->seen[w->n++] = off;
		ifd0 = w->n == 1;
		for (uint32_t i = 0; i < count; i++) {
			size_t e = (size_t)off + 2 + 12 * (size_t)i;
			uint32_t tag = rd16(w, e), type = rd16(w, e + 2), n = rd32(w, e + 4);
			size_t bytes = (size_t)type_size(type) * n; /* below 2^35 */
			size_t at = bytes > 4 ? rd32(w, e + 8) : e + 8; /* where the values are */
			struct values values = { type, n, at };

			if (bytes > 4 && !cisp_span_inside(at, bytes, w->size))
				return bad(w, -EINVAL, "tag %u's %u values lie outside the file", tag, n);
			switch (tag) {
			case 254: f->subfile = first_integer(w, type, at); break;
			case 256: f->width = first_integer(w, type, at); break;
			case 257: f->height = first_integer(w, type, at); break;
			case 258: f->bits = first_integer(w, type, at); break;
			case 259: f->compression = first_integer(w, type, at); break;
			case 262: f->photometric = first_integer(w, type, at); break;
			case 273: f->offsets = values; break;
			case 277: f->samples = first_integer(w, type, at); break;
			case 278: f->rows_per_strip = first_integer(w, type, at); break;
			case 279: f->counts = values; break;
			case 284: f->planar = first_integer(w, type, at); break;
			case 322: f->tile_width = first_integer(w, type, at); break;
			case 323: f->tile_length = first_integer(w, type, at); break;
			case 324: f->offsets = values, f->tiled = true; break;
			case 325: f->counts = values; break;
			case 33421:
				if (n == 2) {
					cfa_rows = (uint64_t)number(w, type, at, 0); /* each below 2^32 */
					cfa_cols = (uint64_t)number(w, type, at, 1);
				}
				break;
			case 33422: cfa_count = n; break;
			case 50714:
				if (n > MAX_BLACK_LEVELS)
					return bad(w, -EINVAL, "BlackLevel has %u values, more than the %u of any repeat pattern",
						   n, MAX_BLACK_LEVELS);
				f->black = n > 0;
				for (uint32_t k = 0; k < n; k++) /* inside the entry, or checked inside the file */
					f->black_max = fmax(f->black_max, number(w, type, at, k));
				break;
			case 50717:
				if ((f->white = n > 0))
					f->white_level = first_integer(w, type, at);
				break;
			case 50730:
				if (ifd0 && n >= 1 && (type == 10 || type == 5)) {
					w->tags->baseline_exposure = number(w, type, at, 0);
					w->tags->has_baseline_exposure = true;
				}
				break;
			case 51008: case 51009: case 51022:
				f->opcodes[tag == 51008 ? 0 : tag == 51009 ? 1 : 2] = (struct dng_bytes){ at, bytes };
				break;
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
						if ((ret = walk_ifd(w, rd32(w, at + 4 * k), depth + 1)))
							return ret;
				break;
			}
		}
		if (cfa_count && cfa_rows * cfa_cols != cfa_count)
			return bad(w, -EINVAL, "CFAPattern has %u entries for a %llux%llu repeat pattern", cfa_count,
				   (unsigned long long)cfa_rows, (unsigned long long)cfa_cols);
		if ((ret = check_image_data(w, f)))
			return ret;
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
	int ret;

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
	if ((ret = walk_ifd(&w, rd32(&w, 4), 0)))
		return ret;
	/* The raw image: the largest full-resolution CFA directory. */
	for (int i = 0; i < w.n; i++) {
		const struct ifd_facts *f = &w.facts[i];
		if (f->photometric == 32803 && !(f->subfile & 1) && (uint64_t)f->width * f->height > best_pixels) {
			best_pixels = (uint64_t)f->width * f->height;
			tags->has_raw_ifd = true;
			tags->has_black = f->black;
			tags->has_white = f->white;
			tags->white = f->white_level;
			tags->black_max = f->black_max;
			tags->raw_scattered = f->scattered;
			tags->raw_tiled = f->tiled;
			tags->has_crop = f->crop_origin && f->crop_size;
			memcpy(tags->crop, f->crop, sizeof(tags->crop));
			memcpy(tags->opcodes, f->opcodes, sizeof(tags->opcodes));
		}
	}
	return 0;
}
