/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <string.h>

#include "io/exif.h"

enum { T_BYTE = 1, T_ASCII = 2, T_SHORT = 3, T_LONG = 4, T_RATIONAL = 5, T_UNDEFINED = 7 };

struct entry {
	uint16_t tag, type;
	uint32_t count;
	uint8_t value[64];
	size_t size;
};

struct ifd {
	struct entry e[16];
	int n;
};

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

static void add(struct ifd *d, uint16_t tag, uint16_t type, uint32_t count, const void *value, size_t size)
{
	struct entry *e = &d->e[d->n++];

	e->tag = tag;
	e->type = type;
	e->count = count;
	e->size = size;
	memcpy(e->value, value, size);
}

static void add_ascii(struct ifd *d, uint16_t tag, const char *s)
{
	size_t n = strnlen(s, 63);

	if (n) {
		char v[64];
		memcpy(v, s, n);
		v[n] = '\0';
		add(d, tag, T_ASCII, (uint32_t)n + 1, v, n + 1);
	}
}

static void add_short(struct ifd *d, uint16_t tag, unsigned v)
{
	uint8_t b[2];

	put16(b, v);
	add(d, tag, T_SHORT, 1, b, 2);
}

static void add_long(struct ifd *d, uint16_t tag, uint32_t v)
{
	uint8_t b[4];

	put32(b, v);
	add(d, tag, T_LONG, 1, b, 4);
}

static void add_rational(struct ifd *d, uint16_t tag, uint32_t num, uint32_t den)
{
	uint8_t b[8];

	put32(b, num);
	put32(b + 4, den);
	add(d, tag, T_RATIONAL, 1, b, 8);
}

/* Exposure times below a second as 1/N when that is what they are, else in 1/10000 s. */
static void add_exposure(struct ifd *d, double t)
{
	double inverse = 1.0 / t;

	if (t < 1 && fabs(inverse - floor(inverse + 0.5)) < 1e-3 * inverse)
		add_rational(d, 0x829a, 1, (uint32_t)floor(inverse + 0.5));
	else
		add_rational(d, 0x829a, (uint32_t)fmin(t * 10000 + 0.5, 4e9), 10000);
}

/* Writes @d at @off (values that do not fit in 4 bytes after it); returns the offset past it. */
static size_t write_ifd(uint8_t *buf, size_t off, const struct ifd *d, uint32_t next)
{
	size_t data = off + 2 + 12 * (size_t)d->n + 4;

	put16(buf + off, (unsigned)d->n);
	for (int i = 0; i < d->n; i++) {
		const struct entry *e = &d->e[i];
		uint8_t *p = buf + off + 2 + 12 * i;
		put16(p, e->tag);
		put16(p + 2, e->type);
		put32(p + 4, e->count);
		memset(p + 8, 0, 4);
		if (e->size <= 4) {
			memcpy(p + 8, e->value, e->size);
		} else {
			put32(p + 8, (uint32_t)data);
			memcpy(buf + data, e->value, e->size);
			data += (e->size + 1) & ~(size_t)1; /* values start on word boundaries */
		}
	}
	put32(buf + off + 2 + 12 * d->n, next);
	return data;
}

size_t exif_build(const struct cisp_raw_frame *meta, uint32_t width, uint32_t height, bool jpeg, uint8_t *buf)
{
	struct ifd ifd0 = { .n = 0 }, exif = { .n = 0 };
	size_t exif_off;
	uint8_t ptr[4] = { 0, 0, 0, 0 };

	/* Entries in ascending tag order, as TIFF requires. */
	add_ascii(&ifd0, 0x010f, meta->make);
	add_ascii(&ifd0, 0x0110, meta->model);
	add_short(&ifd0, 0x0112, 1);
	add_rational(&ifd0, 0x011a, 72, 1); /* XResolution: no physical size, EXIF's default */
	add_rational(&ifd0, 0x011b, 72, 1); /* YResolution */
	add_short(&ifd0, 0x0128, 2);        /* ResolutionUnit: inches */
	add_ascii(&ifd0, 0x0131, "cisp");
	add_ascii(&ifd0, 0x0132, meta->datetime);
	if (jpeg)
		add_short(&ifd0, 0x0213, 1); /* YCbCrPositioning: centred, as libjpeg subsamples */
	add(&ifd0, 0x8769, T_LONG, 1, ptr, 4); /* filled in below */

	if (meta->exposure_s > 0)
		add_exposure(&exif, meta->exposure_s);
	if (meta->fnumber > 0)
		add_rational(&exif, 0x829d, (uint32_t)lround(meta->fnumber * 100.0), 100);
	if (meta->iso > 0)
		add_short(&exif, 0x8827, meta->iso > 65535 ? 65535 : (unsigned)lround(meta->iso));
	add(&exif, 0x9000, T_UNDEFINED, 4, "0232", 4); /* ExifVersion */
	add_ascii(&exif, 0x9003, meta->datetime);
	if (jpeg)
		add(&exif, 0x9101, T_UNDEFINED, 4, "\1\2\3\0", 4); /* ComponentsConfiguration: Y, Cb, Cr */
	if (meta->focal_mm > 0)
		add_rational(&exif, 0x920a, (uint32_t)lround(meta->focal_mm * 100.0), 100);
	add(&exif, 0xa000, T_UNDEFINED, 4, "0100", 4); /* FlashpixVersion */
	add_short(&exif, 0xa001, 1);                    /* ColorSpace: sRGB */
	add_long(&exif, 0xa002, width);                 /* PixelXDimension */
	add_long(&exif, 0xa003, height);                /* PixelYDimension */

	memcpy(buf, "II", 2);
	put16(buf + 2, 42);
	put32(buf + 4, 8);
	/* IFD0's size does not depend on the pointer's value: lay it out once to find where EXIF goes. */
	exif_off = write_ifd(buf, 8, &ifd0, 0);
	put32(ifd0.e[ifd0.n - 1].value, (uint32_t)exif_off);
	write_ifd(buf, 8, &ifd0, 0);
	return write_ifd(buf, exif_off, &exif, 0);
}
