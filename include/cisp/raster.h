/* SPDX-License-Identifier: MIT */
/**
 * @file raster.h
 * @brief Plain image files: PGM/PPM (binary, 8 or 16 bits) and PNG (grey or
 * RGB, 8 or 16 bits), read into and written from 16-bit sample arrays.
 *
 * A raster is what these files hold: a grid of 1 (grey) or 3 (RGB) samples
 * per pixel with a maximum value. It is how mosaics (a grey raster holding a
 * Bayer pattern) and developed images enter and leave cisp.
 */
#ifndef CISP_RASTER_H
#define CISP_RASTER_H

#include <stddef.h>
#include <stdint.h>

#include <cisp/api.h>
#include <cisp/output_file.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct cisp_raster - samples of a grey or RGB image.
 * @width: pixels per row.
 * @height: rows.
 * @channels: 1 (grey) or 3 (R, G, B).
 * @maxval: the largest value a sample may take (255 for 8-bit files, 65535
 *          for 16-bit PNG, the header's value for PNM); 1..65535.
 * @data: @width * @height * @channels samples, row-major, channels
 *        interleaved; malloc()ed by cisp_raster_alloc() or a reader.
 */
struct cisp_raster {
	uint32_t width;
	uint32_t height;
	unsigned channels;
	unsigned maxval;
	uint16_t *data;
};

/**
 * cisp_raster_alloc() - allocate zeroed samples.
 * @r: the raster to fill in.
 * @width: pixels.
 * @height: rows.
 * @channels: 1 or 3.
 * @maxval: 1..65535.
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
CISP_API int cisp_raster_alloc(struct cisp_raster *r, uint32_t width, uint32_t height, unsigned channels,
			       unsigned maxval);

/**
 * cisp_raster_read() - read a PGM (P5), PPM (P6) or PNG file; the type is
 * taken from the file's first bytes, not its name.
 * @path: the file.
 * @r: receives the raster; free with cisp_raster_free().
 *
 * PNG palette images are expanded to RGB, alpha is dropped, grey+alpha is
 * read as grey.
 *
 * Sizes are checked against the file before samples are allocated: a PNM
 * header promising more samples than the file holds, or a PNG whose rows
 * could not come out of its compressed data, is refused, so a short hostile
 * file cannot make the reader allocate gigabytes.
 *
 * Return: 0, or a negative errno with a message naming the file and the
 * problem (-ENOENT, -EINVAL for a malformed or truncated file or a PNM
 * sample over the maximum value, -ENOTSUP for a kind of file not handled).
 */
CISP_API int cisp_raster_read(const char *path, struct cisp_raster *r);

/**
 * cisp_raster_read_memory() - cisp_raster_read() on a file's bytes in memory.
 * @data: the bytes.
 * @size: their number.
 * @name: what messages call the file.
 * @r: receives the raster; free with cisp_raster_free().
 *
 * Return: as cisp_raster_read() (-EINVAL for an empty buffer).
 */
CISP_API int cisp_raster_read_memory(const void *data, size_t size, const char *name, struct cisp_raster *r);

/**
 * cisp_raster_write() - write a raster; the type comes from the extension:
 * .pgm (grey), .ppm (RGB), .pnm (either), .png (either).
 * @path: the file, replaced if it exists; written as an output file
 *        (output_file.h): nothing appears there on failure, and a symbolic
 *        link there is replaced, not followed.
 * @r: the raster; @maxval up to 255 is written with 8 bits per sample,
 *     above that with 16 (PNG then scales to 65535 only if @maxval is 65535;
 *     other maxvals are written as-is, holding @maxval at most).
 *
 * Return: 0 or a negative errno with a message.
 */
CISP_API int cisp_raster_write(const char *path, const struct cisp_raster *r);

/**
 * cisp_raster_write_to() - cisp_raster_write() into an output file the
 * caller created (choosing whether it may replace a file) and then commits
 * or discards; the type comes from its final name's extension.
 * @out: the output file.
 * @r: the raster.
 *
 * Return: 0 or a negative errno with a message.
 */
CISP_API int cisp_raster_write_to(struct cisp_output_file *out, const struct cisp_raster *r);

/**
 * cisp_raster_free() - free the samples and zero the descriptor.
 * @r: the raster (may be NULL).
 */
CISP_API void cisp_raster_free(struct cisp_raster *r);

#ifdef __cplusplus
}
#endif

#endif /* CISP_RASTER_H */
