/* SPDX-License-Identifier: MIT */
#ifndef CISP_CORE_ERROR_INTERNAL_H
#define CISP_CORE_ERROR_INTERNAL_H

/*
 * Record the message of a failure for cisp_last_error() and return @err
 * (a negative errno), so callers can write: return cisp_error(-EINVAL, ...);
 */
int cisp_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Put "prefix: " in front of the current message (context from a caller) and return @err. */
int cisp_error_prefix(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
