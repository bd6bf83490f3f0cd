/* SPDX-License-Identifier: MIT */
/*
 * A DNG's directories, read by cisp itself before LibRaw sees the file:
 *  - to check their structure (LibRaw 0.20 can crash on some malformed
 *    directories): every directory and tag value inside the file, no loops,
 *    a CFAPattern as long as CFARepeatPatternDim says;
 *  - to tell which metadata the file really carries (LibRaw fills in
 *    defaults for missing levels) and to get the default crop (LibRaw does
 *    not pass it on).
 */
#ifndef CISP_IO_DNG_TAGS_H
#define CISP_IO_DNG_TAGS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * What a DNG carries. is_dng: IFD0 has DNGVersion (nothing else is set
 * otherwise). has_black, has_white, has_crop: tags of the raw directory (the
 * largest full-resolution CFA one); has_matrix, has_neutral: ColorMatrix1/2
 * and AsShotNeutral/AsShotWhiteXY in IFD0. crop: DefaultCropOrigin x, y and
 * DefaultCropSize width, height, relative to the active area.
 */
struct dng_tags {
	bool is_dng, has_raw_ifd, has_black, has_white, has_matrix, has_neutral, has_crop;
	double crop[4];
};

/*
 * Inspect a file held in memory. Returns 0 (a DNG with @tags filled in, or
 * any other file, which is left to LibRaw), or -1 for a DNG whose
 * structure is broken, with the problem in @why.
 */
int dng_inspect(const void *data, size_t size, struct dng_tags *tags, char *why, size_t why_size);

#endif
