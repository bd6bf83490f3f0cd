/* SPDX-License-Identifier: MIT */
/*
 * A DNG's opcode lists (DNG 1.4, chapter 7): GainMap, the lens-shading maps
 * phone DNGs carry, is applied to the mosaic; every other opcode is named in
 * a warning and left out.
 */
#ifndef CISP_IO_DNG_OPCODES_H
#define CISP_IO_DNG_OPCODES_H

#include <stddef.h>
#include <stdint.h>

#include <cisp/raw_frame.h>

/*
 * Apply OpcodeList @list (1, 2 or 3), @size bytes at @data, to @frame,
 * whose image is the active area of @width x @height pixels cut to an even
 * size. 0, or -EINVAL with a message naming @name for a malformed list
 * (counts or sizes that do not add up, a map with no points, spacing that is
 * not positive, gains that are not finite numbers in 0..16).
 */
int dng_opcodes_apply(const uint8_t *data, size_t size, int list, uint32_t width, uint32_t height,
		      struct cisp_raw_frame *frame, const char *name);

#endif
