/* SPDX-License-Identifier: MIT */
/* libtiff files opened with their messages caught per file (no global handlers, thread-safe). */
#ifndef CISP_IO_TIFF_COMMON_H
#define CISP_IO_TIFF_COMMON_H

#include <tiffio.h>

#include <cisp/output_file.h>

/* The first error libtiff reported on a file. */
struct tiff_messages {
	char error[256];
};

/*
 * A TIFF written into @out (on a dup() of its descriptor), with an error
 * handler filling @msg and warnings dropped; NULL with @msg set on failure.
 */
TIFF *tiff_create(struct cisp_output_file *out, struct tiff_messages *msg);

/* Close @tif; returns 0, or cisp_error(-EIO) naming @path with libtiff's first message. */
int tiff_close(TIFF *tif, const char *path, struct tiff_messages *msg, int ret);

#endif
