/* SPDX-License-Identifier: MIT */
/*
 * Which metadata tags a DNG really carries. LibRaw fills in defaults for
 * missing levels and does not pass on the default crop, so the reader looks
 * at the file's directories itself (through libtiff) to tell "absent" from
 * "present" and to get the crop.
 */
#ifndef CISP_IO_DNG_TAGS_H
#define CISP_IO_DNG_TAGS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Tags of the raw (CFA, full-resolution) directory and of IFD0.
 * crop: DefaultCropOrigin x, y and DefaultCropSize width, height, relative
 * to the active area; has_crop when both tags are present.
 */
struct dng_tags {
	bool has_black, has_white, has_matrix, has_neutral, has_crop;
	double crop[4];
};

/* Scan a DNG held in memory; 0, or -1 when libtiff cannot read it or it has no CFA directory. */
int dng_scan_tags(const void *data, size_t size, struct dng_tags *tags);

/*
 * Check the directory structure of a TIFF-based DNG before LibRaw parses it
 * (LibRaw 0.20 can crash on some malformed directories): every directory and
 * every tag value lies inside the file, and CFAPattern has as many entries
 * as CFARepeatPatternDim says. Files that are not DNGs pass unchecked.
 * Returns 0, or -1 with the problem in @why.
 */
int dng_check_structure(const void *data, size_t size, char *why, size_t why_size);

#endif
