/* SPDX-License-Identifier: MIT */
/* Small helpers shared by the subcommands: option values, files, timing. */
#ifndef CISP_TOOLS_OPTIONS_H
#define CISP_TOOLS_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parse "WxH" with both in 1..max; prints an error naming @option on failure. */
int parse_size(const char *option, const char *text, uint32_t *w, uint32_t *h);
/* Parse an integer in [min, max]; prints an error naming @option on failure. */
int parse_uint(const char *option, const char *text, unsigned long min, unsigned long max, unsigned long *value);
/* Parse a decimal number in [min, max]. */
int parse_double(const char *option, const char *text, double min, double max, double *value);
/* Read a whole file into a malloc()ed buffer (NUL-terminated for text use). */
int read_file(const char *path, void **data, size_t *size);
/* Load a params buffer from a .yaml or binary file (detected by content). */
int load_params(const char *path, void **buf, size_t *size);
/* Monotonic time in seconds. */
double now_seconds(void);
/* Median of @n values (sorts them). */
double median(double *values, int n);

#endif
