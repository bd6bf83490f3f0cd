/* SPDX-License-Identifier: MIT */
/* Big-endian numbers of a DNG's opcode lists, whatever the file's own byte order. */
#ifndef CISP_IO_DNG_BYTES_H
#define CISP_IO_DNG_BYTES_H

#include <stdint.h>
#include <string.h>

static inline uint32_t dng_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline double dng_be_double(const uint8_t *p)
{
	uint64_t v = (uint64_t)dng_be32(p) << 32 | dng_be32(p + 4);
	double d;

	memcpy(&d, &v, sizeof(d));
	return d;
}

static inline float dng_be_float(const uint8_t *p)
{
	uint32_t v = dng_be32(p);
	float f;

	memcpy(&f, &v, sizeof(f));
	return f;
}

#endif
