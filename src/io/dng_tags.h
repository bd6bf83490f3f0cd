/* SPDX-License-Identifier: MIT */
/*
 * A DNG's directories, read by cisp itself before LibRaw sees the file:
 *  - to check their structure (LibRaw 0.20 can crash on some malformed
 *    directories, and decodes garbage from others): every directory and tag
 *    value inside the file, no loops, a CFAPattern as long as
 *    CFARepeatPatternDim says, and in every directory with image data
 *    BitsPerSample 1..32, as many strips or tiles as its geometry has, each
 *    inside the file, and uncompressed CFA data as large as its rows need;
 *  - to tell which metadata the file really carries (LibRaw fills in
 *    defaults for missing levels, and replaces a WhiteLevel of 0) and to get
 *    the default crop (LibRaw does not pass it on).
 */
#ifndef CISP_IO_DNG_TAGS_H
#define CISP_IO_DNG_TAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What a DNG carries. is_dng: IFD0 has DNGVersion (nothing else is set
 * otherwise). has_black, has_white, has_crop: tags of the raw directory (the
 * largest full-resolution CFA one); white: its WhiteLevel (the first value,
 * as written: 0 and values over 16 bits included); black_max: the largest
 * of its BlackLevel values (SHORT, LONG or RATIONAL); has_matrix, has_neutral:
 * ColorMatrix1/2 and AsShotNeutral/AsShotWhiteXY in IFD0. crop:
 * DefaultCropOrigin x, y and DefaultCropSize width, height, relative to the
 * active area. raw_tiled: the raw directory's data is in tiles;
 * raw_scattered: it is uncompressed but not one run of rows from its first
 * byte (strips out of order or apart, tiles other than one as wide as the
 * image), which LibRaw reads as one run all the same: 0.20 for strips and
 * tiles, later versions for strips. baseline_exposure: IFD0's
 * BaselineExposure in stops (has_baseline_exposure). opcodes: where the raw
 * directory's OpcodeList1, 2 and 3 lie in the file (size 0: none), checked
 * to be inside it.
 */
struct dng_bytes {
	size_t offset, size;
};

struct dng_tags {
	bool is_dng, has_raw_ifd, has_black, has_white, has_matrix, has_neutral, has_crop;
	bool raw_tiled, raw_scattered, has_baseline_exposure;
	uint32_t white;
	double black_max, crop[4], baseline_exposure;
	struct dng_bytes opcodes[3];
};

/*
 * Inspect a file held in memory. Returns 0 (a DNG with @tags filled in, or
 * any other file, which is left to LibRaw), or for a DNG whose structure is
 * broken -EIO (image data that runs past the end of the file: cut short, or
 * a bad offset) or -EINVAL (anything else), with the problem in @why.
 */
int dng_inspect(const void *data, size_t size, struct dng_tags *tags, char *why, size_t why_size);

#endif
