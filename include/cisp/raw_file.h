/* SPDX-License-Identifier: MIT */
/**
 * @file raw_file.h
 * @brief Camera raw files (DNG and the Bayer raws LibRaw decodes) read into
 * a raw frame with its metadata.
 *
 * What is taken from the file (docs/raw.md has the details):
 *  - the visible area (LibRaw's margins removed), cut to an even size, and
 *    the CFA order at its top-left corner;
 *  - black level per channel: the common level, the per-colour levels and a
 *    repeating black pattern (a DNG's BlackLevel with BlackLevelRepeatDim, or
 *    levels measured on masked pixels) folded into one level per channel;
 *  - the white level, the as-shot white balance, the XYZ-to-camera colour
 *    matrix, the orientation, a DNG's default crop, make, model, exposure,
 *    ISO, aperture, focal length and capture time.
 * A DNG without BlackLevel, WhiteLevel, ColorMatrix or AsShotNeutral (and
 * any file without a colour matrix or white balance) gets the stated default
 * with a warning on the log, and the CISP_RAW_DEFAULT_* bit in the frame.
 *
 * Files whose data is not a 2x2 Bayer mosaic (X-Trans, Foveon, linear or
 * demosaiced DNG, YCbCr sRAW, monochrome, 4-colour filters, Fuji SuperCCD)
 * are refused with -ENOTSUP and a message that says what the file holds.
 */
#ifndef CISP_RAW_FILE_H
#define CISP_RAW_FILE_H

#include <stddef.h>

#include <cisp/api.h>
#include <cisp/raw_frame.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * cisp_raw_read_file() - read a camera raw file.
 * @path: the file.
 * @frame: receives the frame; free with cisp_raw_frame_free().
 *
 * Return: 0, or a negative errno with a message that names the file:
 * -ENOENT (and other open errors), -EINVAL for an empty or malformed file,
 * -ENOTSUP for a file LibRaw does not know or data that is not Bayer, -EIO
 * for truncated or corrupt raw data, -EFBIG for a frame over
 * CISP_MAX_DIMENSION, -ENOMEM. LibRaw's own error text is included.
 */
CISP_API int cisp_raw_read_file(const char *path, struct cisp_raw_frame *frame);

/**
 * cisp_raw_read_memory() - read a camera raw file held in memory (the same
 * decoding as cisp_raw_read_file(); the entry point for fuzzing).
 * @data: the file's bytes; only read, and not kept after the call.
 * @size: their number.
 * @name: a name for messages (a file name, or "<memory>").
 * @frame: receives the frame; free with cisp_raw_frame_free().
 *
 * Return: as cisp_raw_read_file().
 */
CISP_API int cisp_raw_read_memory(const void *data, size_t size, const char *name, struct cisp_raw_frame *frame);

#ifdef __cplusplus
}
#endif

#endif /* CISP_RAW_FILE_H */
