/* SPDX-License-Identifier: MIT */
/* Small helpers shared by the subcommands: option values, files, timing. */
#ifndef CISP_TOOLS_OPTIONS_H
#define CISP_TOOLS_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cisp/error.h>

/*
 * The running command's name ("develop"), set by main() before it runs.
 * Every message of the cisp command starts with "cisp NAME: ".
 */
extern const char *command_name;

/*
 * Print the one line for an option getopt_long() refused (argv[optind - 1],
 * optopt): unknown, or lacking its value, with the hint to `cisp help NAME`.
 * @shortopts is the getopt string of the command.
 */
void bad_option(char **argv, const char *shortopts);

/* Parse "WxH" with both in 1..max; prints an error naming @option on failure. */
int parse_size(const char *option, const char *text, uint32_t *w, uint32_t *h);
/* WxH, or WxH! (@stretch: exactly that size; otherwise the picture is fitted inside it). */
int parse_output_size(const char *option, const char *text, uint32_t *w, uint32_t *h, bool *stretch);
/* Scale @width x @height to fit inside *@w x *@h, keeping the aspect ratio (ImageMagick's WxH). */
void fit_inside(uint32_t width, uint32_t height, uint32_t *w, uint32_t *h);
/* Parse an integer in [min, max]; prints an error naming @option on failure. */
int parse_uint(const char *option, const char *text, unsigned long min, unsigned long max, unsigned long *value);
/* Parse a decimal number in [min, max]. */
int parse_double(const char *option, const char *text, double min, double max, double *value);
/*
 * Read a whole regular file of at most @max bytes into a malloc()ed buffer
 * (NUL-terminated for text use); a negative errno with the message in
 * cisp_last_error().
 */
int read_file(const char *path, size_t max, void **data, size_t *size);

/* The kinds of params file a command takes. */
enum params_kind { PARAMS_BINARY = 1, PARAMS_YAML = 2, PARAMS_ANY = 3 };
/*
 * Load a params file: the one rule of every command that reads them. A file
 * that is empty (or holds only blanks and comments) is refused; one that
 * starts like the binary magic ("CISP", or a piece of it) is a binary
 * buffer, returned as it is for the ABI's checks (which refuse one shorter
 * than its header); anything else is YAML, encoded, or with only
 * PARAMS_BINARY in @kinds returned as it is for those checks. A binary file
 * without PARAMS_BINARY is refused. A negative errno with the message in
 * cisp_last_error().
 */
int load_params(const char *path, enum params_kind kinds, void **buf, size_t *size);

struct cisp_output_file;
/*
 * Create the output file @path (cisp_output_file_create()): an existing file
 * is replaced only with @force, and never when it is one of @inputs (NULL or
 * NULL-terminated; the same file under any name or through a link), even
 * with @force. A negative errno with the message in cisp_last_error().
 */
int create_output(struct cisp_output_file **out, const char *path, bool force, const char *const *inputs);
/* cisp_output_file_finish() with the --force hint when the name appeared meanwhile. */
int finish_output(struct cisp_output_file *out, int status, bool force);

/* cisp_printable() of cisp_last_error(), in a buffer of the calling thread. */
const char *error_text(void);
/*
 * cisp_printable() into a buffer of its own (a compound literal): for a name
 * from a file, a device, a plugin or the command line as an argument of one
 * printf(), so that it cannot move the cursor or recolour a terminal.
 */
#define SHOWN(s) cisp_printable((s), (char[512]){ 0 }, 512)
/* The command line as one line ("cisp ARGV..."), malloc()ed, or NULL: what reports record. */
char *command_line(int argc, char **argv);
/* Now in UTC, ISO 8601 ("2025-01-31T12:00:00Z"), into @buf; SOURCE_DATE_EPOCH's date when it is set. */
void utc_date(char *buf, size_t size);
/* Monotonic time in seconds. */
double now_seconds(void);
/* Median of @n values (sorts them). */
double median(double *values, int n);
/* The @q quantile of @n values, 0 < @n (sorts them): the value with floor(@q * @n) below it. */
double quantile(double *values, unsigned n, double q);

struct cisp_develop_source;
struct cisp_raw_frame;

/*
 * How a raw input is read (cisp develop and cisp convert): cisp_develop_read()
 * with the options --size, --format, --cfa, --black and --white. Parse one of
 * them into @src: 0, 1 if @opt is not one of them, 2 if bad (reported).
 */
int raw_input_option(struct cisp_develop_source *src, const char *opt, const char *value);
/* The usage lines of those options. */
extern const char raw_input_usage[];
/*
 * Read @path into @frame; 0, 1 on failure or 2 for options that do not fit
 * the file, with the message (naming the file) in @err.
 */
int load_raw_input(const struct cisp_develop_source *src, const char *path, struct cisp_raw_frame *frame, char *err,
		   size_t err_size);

#endif
