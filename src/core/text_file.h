/* SPDX-License-Identifier: MIT */
/*
 * Reading a small text file (tuning, camera configuration, sensor model)
 * whole, with a bound on its size so that a wrong path fails clearly instead
 * of filling memory.
 */
#ifndef CISP_CORE_TEXT_FILE_H
#define CISP_CORE_TEXT_FILE_H

#include <stddef.h>

/*
 * Read @path into a new NUL-terminated buffer *@text (the caller frees it)
 * of *@length bytes. The file is opened by cisp_input_file_open(): anything
 * but a regular file is refused at once. Errors, naming the file: those of
 * cisp_input_file_open(), -EFBIG over @max_bytes, -EIO on a read error or a
 * file that grew while it was read, -ENOMEM.
 */
int cisp_read_text_file(const char *path, size_t max_bytes, char **text, size_t *length);

#endif
