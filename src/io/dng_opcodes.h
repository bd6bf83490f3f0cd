/* SPDX-License-Identifier: MIT */
/*
 * A DNG's opcode lists (DNG 1.4, chapter 7): the lens corrections GainMap
 * (the lens-shading maps phone DNGs carry), FixVignetteRadial,
 * WarpRectilinear and WarpFisheye are applied to the mosaic, those of
 * OpcodeList3 too (docs/raw.md); every other opcode is named in a warning
 * and left out.
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
 * not positive, gains that are not finite numbers in 0..16, lens
 * coefficients that are not finite numbers in -1000..1000, an optical centre
 * outside the image, warp plane counts other than 1, or 3 in list 3), the
 * whole list checked before any of it is applied; -ENOMEM.
 */
int dng_opcodes_apply(const uint8_t *data, size_t size, int list, uint32_t width, uint32_t height,
		      struct cisp_raw_frame *frame, const char *name);

#endif
