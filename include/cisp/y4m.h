/* SPDX-License-Identifier: MIT */
/**
 * @file y4m.h
 * @brief YUV4MPEG2 (.y4m) video writer for 8-bit 4:2:0 frames.
 */
#ifndef CISP_Y4M_H
#define CISP_Y4M_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/api.h>
#include <cisp/image.h>
#include <cisp/output_file.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An open .y4m file. */
struct cisp_y4m_writer;

/**
 * cisp_y4m_open() - create a .y4m file and write its header.
 * @writer: receives the writer.
 * @path: the file, replaced if it exists; written as an output file
 *        (output_file.h): it appears at cisp_y4m_close(), only if every
 *        frame was written, and a symbolic link there is replaced, not followed.
 * @width: frame width.
 * @height: frame height.
 * @fps_num: frame rate numerator.
 * @fps_den: frame rate denominator.
 * @full_range: true when Y'CbCr use the full 0..255 range (written as the
 *              XCOLORRANGE=FULL extension), false for limited range.
 *
 * Return: 0 or a negative errno with a message.
 */
CISP_API int cisp_y4m_open(struct cisp_y4m_writer **writer, const char *path, uint32_t width, uint32_t height,
			   unsigned fps_num, unsigned fps_den, bool full_range);

/**
 * cisp_y4m_open_to() - cisp_y4m_open() into an output file the caller
 * created and, after cisp_y4m_close(), commits or discards.
 * @writer: receives the writer.
 * @file: the output file; messages name its final name.
 * @width: frame width.
 * @height: frame height.
 * @fps_num: frame rate numerator.
 * @fps_den: frame rate denominator.
 * @full_range: as for cisp_y4m_open().
 *
 * Return: 0 or a negative errno with a message.
 */
CISP_API int cisp_y4m_open_to(struct cisp_y4m_writer **writer, struct cisp_output_file *file, uint32_t width,
			      uint32_t height, unsigned fps_num, unsigned fps_den, bool full_range);

/**
 * cisp_y4m_write() - append one frame.
 * @writer: the writer.
 * @frame: an NV12 or I420 image of the writer's size (NV12 is converted).
 *
 * Return: 0, -EINVAL for a frame of another size or format, -EIO.
 */
CISP_API int cisp_y4m_write(struct cisp_y4m_writer *writer, const struct cisp_image *frame);

/**
 * cisp_y4m_close() - finish the video and free the writer.
 * @writer: the writer (may be NULL).
 *
 * A writer of cisp_y4m_open() commits its file (or, after a failed write,
 * discards it); one of cisp_y4m_open_to() flushes the stream and leaves the
 * file to its caller.
 *
 * Return: 0, or a negative errno with a message: -EIO if data could not be
 * written, or the output file's errors.
 */
CISP_API int cisp_y4m_close(struct cisp_y4m_writer *writer);

#ifdef __cplusplus
}
#endif

#endif /* CISP_Y4M_H */
