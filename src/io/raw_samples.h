/* SPDX-License-Identifier: MIT */
/*
 * Raw samples into an unpacked Bayer image: the bit depth a white level
 * needs, and rows stored at that depth. Raw files (raw_file.c) and mosaics
 * from image files (raw_frame.c) both make their frames so.
 */
#ifndef CISP_IO_RAW_SAMPLES_H
#define CISP_IO_RAW_SAMPLES_H

#include <stdint.h>

/* The smallest of 8, 10, 12, 14 and 16 bits whose largest code is at least @white (16 above). */
unsigned raw_depth_for(unsigned white);

/*
 * Store @width samples of @src as row @dst of an unpacked image of @bits
 * bits: each clamped to the largest code, one byte at 8 bits, else two
 * (little-endian).
 */
void raw_store_row(uint8_t *dst, const uint16_t *src, uint32_t width, unsigned bits);

#endif /* CISP_IO_RAW_SAMPLES_H */
