/* SPDX-License-Identifier: MIT */
/**
 * @file error.h
 * @brief Error reporting: negative errno codes plus a readable message.
 *
 * Every cisp function that can fail returns 0 (or a non-negative count) on
 * success and a negative errno value on failure, for example -EINVAL for bad
 * input or -ENOMEM. The failing call also leaves a message in a per-thread
 * slot that says what was wrong in words ("params block 3 (lsc): field
 * grid_w = 1 is out of range [2, 64]"). Read it with cisp_last_error().
 */
#ifndef CISP_ERROR_H
#define CISP_ERROR_H

#include <stddef.h>

#include <cisp/api.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * cisp_last_error() - the message of the last failed call on this thread.
 *
 * Messages name files and devices; their control characters are written
 * as \xNN (see cisp_printable()), so a message is safe to print.
 *
 * Return: a NUL-terminated string owned by the library, valid until the next
 * cisp call on the same thread fails. Empty if no call has failed yet.
 */
CISP_API const char *cisp_last_error(void);

/**
 * cisp_clear_error() - forget the message of the last failed call.
 */
CISP_API void cisp_clear_error(void);

/**
 * cisp_error() - leave a message for cisp_last_error() and return @err.
 * @err: the negative errno the caller returns.
 * @fmt: printf format of the message.
 *
 * What every cisp function does when it fails, for code built on cisp that
 * reports its own failures the same way (the cisp command, the GStreamer
 * elements): `return cisp_error(-EINVAL, "%s: not a mosaic", path);`.
 *
 * Return: @err.
 */
CISP_API int cisp_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * cisp_error_prefix() - put "prefix: " in front of the current message.
 * @err: the negative errno the caller returns.
 * @fmt: printf format of the prefix: the caller's context, such as a file name.
 *
 * Return: @err.
 */
CISP_API int cisp_error_prefix(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * cisp_printable() - @s with its control characters written as \xNN.
 * @s: text from outside (a file name, a device's name), NUL-terminated.
 * @buf: where the printable copy goes.
 * @size: bytes at @buf; the copy is cut to fit.
 *
 * C0 controls, DEL and the C1 controls (U+0080..U+009F in UTF-8) become
 * "\x1b"-style text, so a hostile name cannot send escape sequences to
 * the terminal it is printed on. Everything else, UTF-8 included, is kept.
 *
 * Return: @buf.
 */
CISP_API const char *cisp_printable(const char *s, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* CISP_ERROR_H */
