/* SPDX-License-Identifier: MIT */
/**
 * @file input_file.h
 * @brief Opening input files: regular files only, without blocking.
 *
 * Every file cisp reads (raw files, dumps, mosaics, params, tuning, camera
 * configurations, sensor models, scene images, profiles) is opened here. A
 * wrong name given by mistake (a FIFO, which would wait forever for a
 * writer in open(); a device such as /dev/zero, which never ends; a
 * directory) fails at once with a message that says what it is.
 */
#ifndef CISP_INPUT_FILE_H
#define CISP_INPUT_FILE_H

#include <stdint.h>
#include <stdio.h>

#include <cisp/api.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * cisp_input_file_open() - open a regular file for reading.
 * @path: the file.
 * @file: receives the stream; close it with fclose().
 * @size: receives the file's size in bytes, or NULL.
 *
 * The file is looked at with stat() before it is opened (so that no device
 * is ever opened), opened with O_NONBLOCK (so that a FIFO put in its place
 * meanwhile cannot block), checked again with fstat(), and then read in the
 * ordinary blocking mode.
 *
 * Return: 0, or a negative errno with a message naming @path: "cannot open
 * PATH: REASON" with open()'s error (-ENOENT, -EACCES, ...), or -EINVAL
 * "PATH: not a regular file (a FIFO)" (a directory, a character device, a
 * block device, a socket).
 */
CISP_API int cisp_input_file_open(const char *path, FILE **file, uint64_t *size);

#ifdef __cplusplus
}
#endif

#endif /* CISP_INPUT_FILE_H */
