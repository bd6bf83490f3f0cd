/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cisp/develop.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/input_file.h>
#include <cisp/output_file.h>
#include <cisp/params.h>
#include <cisp/raw_frame.h>

#include "options.h"

const char *command_name = "";

void bad_option(char **argv, const char *shortopts)
{
	const char *word = argv[optind - 1];
	bool short_known = optopt > 0 && optopt < 256 && optopt != ':' && strchr(shortopts, optopt);

	/* optopt is 0 for an unknown long option, the option itself for one that lacks its value. */
	if (short_known || (optopt >= 256 && !strncmp(word, "--", 2)))
		fprintf(stderr, "cisp %s: option '%s' needs a value; 'cisp help %s' lists the options\n", command_name,
			SHOWN(word), command_name);
	else if (optopt > 0 && optopt < 256 && strncmp(word, "--", 2))
		fprintf(stderr, "cisp %s: unknown option '-%c'; 'cisp help %s' lists the options\n", command_name, optopt,
			command_name);
	else
		fprintf(stderr, "cisp %s: unknown option '%s'; 'cisp help %s' lists the options\n", command_name,
			SHOWN(word), command_name);
}

int parse_size(const char *option, const char *text, uint32_t *w, uint32_t *h)
{
	unsigned long a, b;
	char *end;

	errno = 0;
	a = strtoul(text, &end, 10);
	if (end != text && (*end == 'x' || *end == 'X')) {
		const char *second = end + 1;
		b = strtoul(second, &end, 10);
		if (!errno && end != second && !*end && a >= 1 && b >= 1 && a <= CISP_MAX_DIMENSION &&
		    b <= CISP_MAX_DIMENSION) {
			*w = (uint32_t)a;
			*h = (uint32_t)b;
			return 0;
		}
	}
	fprintf(stderr, "cisp %s: %s: '%s' is not a size WxH with both in 1..%d\n", command_name, option, SHOWN(text),
		CISP_MAX_DIMENSION);
	return -EINVAL;
}

int parse_output_size(const char *option, const char *text, uint32_t *w, uint32_t *h, bool *stretch)
{
	char buf[64];
	size_t len = strlen(text);

	*stretch = len && text[len - 1] == '!';
	if (*stretch && len < sizeof(buf)) {
		memcpy(buf, text, len - 1);
		buf[len - 1] = '\0';
		text = buf;
	}
	return parse_size(option, text, w, h);
}

void fit_inside(uint32_t width, uint32_t height, uint32_t *w, uint32_t *h)
{
	double scale = fmin((double)*w / width, (double)*h / height);

	*w = (uint32_t)fmax(1, round(width * scale));
	*h = (uint32_t)fmax(1, round(height * scale));
}

int parse_uint(const char *option, const char *text, unsigned long min, unsigned long max, unsigned long *value)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(text, &end, 0);
	if (errno || end == text || *end || text[0] == '-' || v < min || v > max) {
		fprintf(stderr, "cisp %s: %s: '%s' is not a whole number in %lu..%lu\n", command_name, option, SHOWN(text),
			min, max);
		return -EINVAL;
	}
	*value = v;
	return 0;
}

int parse_double(const char *option, const char *text, double min, double max, double *value)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (errno || end == text || *end || !(v >= min && v <= max)) {
		fprintf(stderr, "cisp %s: %s: '%s' is not a number in %g..%g\n", command_name, option, SHOWN(text), min,
			max);
		return -EINVAL;
	}
	*value = v;
	return 0;
}

int read_file(const char *path, size_t max, void **data, size_t *size)
{
	uint64_t length;
	char *buf;
	FILE *f;
	int ret = cisp_input_file_open(path, &f, &length);

	if (ret)
		return ret;
	if (length > max) {
		fclose(f);
		return cisp_error(-EFBIG, "%s: %llu bytes, larger than the %zu MiB allowed", path,
				  (unsigned long long)length, max >> 20);
	}
	buf = malloc((size_t)length + 1);
	if (!buf) {
		fclose(f);
		return cisp_error(-ENOMEM, "%s: out of memory", path);
	}
	/* One byte more than the size tells a file that grew since from one that did not. */
	if (fread(buf, 1, (size_t)length + 1, f) != length || ferror(f))
		ret = cisp_error(-EIO, "%s: read error, or the file changed while it was read", path);
	fclose(f);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[length] = '\0';
	*data = buf;
	*size = (size_t)length;
	return 0;
}

/* Params files, YAML or binary; a full state in YAML is a few MiB at most. */
#define PARAMS_FILE_MAX ((size_t)16 << 20)

/* Nothing but blanks and # comments. */
static bool blank_text(const char *text, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (text[i] == '#')
			while (i < n && text[i] != '\n')
				i++;
		else if (!strchr(" \t\r\n", text[i]))
			return false;
	}
	return true;
}

/* Starts with the binary magic, or is a piece of it (a truncated binary buffer). */
static bool binary_params(const char *data, size_t n)
{
	static const char magic[4] = { 'C', 'I', 'S', 'P' };

	return !memcmp(data, magic, n < 4 ? n : 4);
}

int load_params(const char *path, enum params_kind kinds, void **buf, size_t *size)
{
	char *data;
	size_t n;
	int ret = read_file(path, PARAMS_FILE_MAX, (void **)&data, &n);

	if (ret)
		return ret;
	if (blank_text(data, n)) {
		free(data);
		return cisp_error(-EINVAL, "%s: the file is empty; a params file holds a params buffer or its YAML form "
				  "(docs/abi.md)", path);
	}
	/* Where only binary is taken, the ABI's checks say what else the file is. */
	if (binary_params(data, n) || !(kinds & PARAMS_YAML)) {
		if (!(kinds & PARAMS_BINARY)) {
			free(data);
			return cisp_error(-EINVAL, "%s: a binary params buffer, not YAML", path);
		}
		*buf = data;
		*size = n;
		return 0;
	}
	ret = cisp_params_from_yaml(data, n, buf, size);
	free(data);
	return ret ? cisp_error_prefix(ret, "%s", path) : 0;
}

/* ---- output files ---- */

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

int create_output(struct cisp_output_file **out, const char *path, bool force, const char *const *inputs)
{
	struct stat link, target, in;
	bool has_link = lstat(path, &link) == 0, has_target = stat(path, &target) == 0;
	int ret;

	*out = NULL;
	for (; inputs && *inputs; inputs++)
		if (stat(*inputs, &in) == 0 &&
		    ((has_link && same_file(&link, &in)) || (has_target && same_file(&target, &in))))
			return cisp_error(-EINVAL,
					  "%s is the input %s (the same file); an output never replaces an input, "
					  "even with --force",
					  path, *inputs);
	ret = cisp_output_file_create(out, path, force ? CISP_OUTPUT_REPLACE : 0);
	if (ret == -EEXIST && !force)
		return cisp_error(ret, "%s exists (use --force to replace it)", path);
	return ret;
}

int finish_output(struct cisp_output_file *out, int status, bool force)
{
	char path[4096];
	int ret;

	snprintf(path, sizeof(path), "%s", cisp_output_file_path(out));
	ret = cisp_output_file_finish(out, status);
	if (ret == -EEXIST && !status && !force)
		return cisp_error(ret, "%s exists (use --force to replace it)", path);
	return ret;
}

/* ---- what a report records ---- */

char *command_line(int argc, char **argv)
{
	size_t n = sizeof("cisp");
	char *s;

	for (int i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
	s = malloc(n);
	if (!s)
		return NULL;
	snprintf(s, n, "cisp");
	for (int i = 0; i < argc; i++) {
		strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

void utc_date(char *buf, size_t size)
{
	/* SOURCE_DATE_EPOCH (reproducible builds): the date of the sources, so that regenerated files compare equal. */
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	time_t now = epoch && *epoch ? (time_t)strtoll(epoch, NULL, 10) : time(NULL);
	struct tm tm;

	if (!gmtime_r(&now, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, size, "unknown");
}

/* ---- printing ---- */

const char *error_text(void)
{
	static _Thread_local char buf[4096];

	return cisp_printable(cisp_last_error(), buf, sizeof(buf));
}

double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double median(double *values, int n)
{
	qsort(values, (size_t)n, sizeof(double), compare_double);
	return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double quantile(double *values, unsigned n, double q)
{
	qsort(values, n, sizeof(double), compare_double);
	return values[(unsigned)fmin(n - 1, floor(q * n))];
}

const char raw_input_usage[] =
	"  --size WxH              size of a headerless raw dump\n"
	"  --format NAME           V4L2 Bayer format of a raw dump (SRGGB10P, SGRBG12, ...)\n"
	"  --cfa ORDER             CFA order of a PGM/PNG mosaic: RGGB (default), GRBG, GBRG, BGGR;\n"
	"                          for a raw file or dump, replaces its own (with a warning)\n"
	"  --black N               black level in the input's units (default: the file's, else 0;\n"
	"                          replacing a raw file's is logged)\n"
	"  --white N               white level in the input's units (default: the file's; the format's\n"
	"                          maximum for dumps, the largest sample for mosaics)\n";

int raw_input_option(struct cisp_develop_source *src, const char *opt, const char *value)
{
	unsigned long v = 0;

	if (!strcmp(opt, "size"))
		return parse_size("--size", value, &src->width, &src->height) ? 2 : 0;
	if (!strcmp(opt, "format")) {
		src->dump_format = cisp_format_from_name(value);
		if (src->dump_format)
			return 0;
		fprintf(stderr, "cisp %s: --format: %s\n", command_name, error_text());
		return 2;
	}
	if (!strcmp(opt, "cfa")) {
		enum cisp_cfa cfa;

		if (cisp_cfa_from_name(value, &cfa)) {
			fprintf(stderr, "cisp %s: --cfa: %s\n", command_name, error_text());
			return 2;
		}
		src->cfa = (int)cfa;
		return 0;
	}
	if (!strcmp(opt, "black") || !strcmp(opt, "white")) {
		bool black = opt[0] == 'b';
		if (parse_uint(black ? "--black" : "--white", value, black ? 0 : 1, 65535, &v))
			return 2;
		*(black ? &src->black : &src->white) = (int32_t)v;
		return 0;
	}
	return 1;
}

int load_raw_input(const struct cisp_develop_source *src, const char *path, struct cisp_raw_frame *frame, char *err,
		   size_t err_size)
{
	bool dump = src->dump_format || src->width;

	if (dump && (!src->dump_format || !src->width)) {
		snprintf(err, err_size, "a raw dump needs both --size WxH and --format NAME");
		return 2;
	}
	if (cisp_develop_read(path, src, frame)) {
		snprintf(err, err_size, "%s", cisp_last_error());
		return 1;
	}
	return 0;
}
