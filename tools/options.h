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

struct cisp_raw_frame;

/*
 * How a raw input is read (cisp develop and cisp convert): a headerless dump
 * when @width and @format_name are given, a grey PGM/PNG mosaic when the file
 * starts like one, otherwise a camera raw file (DNG, CR2, NEF, ...) through
 * LibRaw. @black and @white (-1: not given) override the levels.
 */
struct raw_input {
	const char *format_name, *cfa_name;
	uint32_t width, height;
	long black, white;
};

/* Parse a --size, --format, --cfa, --black or --white option into @in; 1 if @opt is not one of them, 2 if bad. */
int raw_input_option(struct raw_input *in, const char *opt, const char *value);
/* The usage lines of those options. */
extern const char raw_input_usage[];
/*
 * Read @path into @frame; 0, 1 on failure or 2 for inconsistent options,
 * with the message (naming the file) in @err.
 */
int load_raw_input(const struct raw_input *in, const char *path, struct cisp_raw_frame *frame, char *err,
		   size_t err_size);

#endif
