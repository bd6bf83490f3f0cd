/* SPDX-License-Identifier: MIT */
/*
 * Reading a small text file (tuning, camera configuration) whole, with a
 * bound on its size so that a wrong path (a device, a huge file) fails
 * clearly instead of filling memory.
 */
#ifndef CISP_CORE_TEXT_FILE_H
#define CISP_CORE_TEXT_FILE_H

#include <stddef.h>

/*
 * Read @path into a new buffer *@text (the caller frees it) of *@length
 * bytes. Errors, naming the file: -errno when it cannot be opened, -EIO on a
 * read error, -EFBIG over @max_bytes, -ENOMEM.
 */
int cisp_read_text_file(const char *path, size_t max_bytes, char **text, size_t *length);

#endif
