/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cisp/error.h>
#include <cisp/image.h>
#include <cisp/params.h>
#include <cisp/params_state.h>
#include <cisp/raster.h>
#include <cisp/raw_file.h>
#include <cisp/raw_frame.h>

#include "options.h"

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
	fprintf(stderr, "cisp: %s: '%s' is not a size WxH with both in 1..%d\n", option, text, CISP_MAX_DIMENSION);
	return -EINVAL;
}

int parse_uint(const char *option, const char *text, unsigned long min, unsigned long max, unsigned long *value)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(text, &end, 0);
	if (errno || end == text || *end || text[0] == '-' || v < min || v > max) {
		fprintf(stderr, "cisp: %s: '%s' is not a whole number in %lu..%lu\n", option, text, min, max);
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
		fprintf(stderr, "cisp: %s: '%s' is not a number in %g..%g\n", option, text, min, max);
		return -EINVAL;
	}
	*value = v;
	return 0;
}

int read_file(const char *path, void **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 65536, n = 0;
	char *buf;

	if (!f) {
		fprintf(stderr, "cisp: cannot open %s: %s\n", path, strerror(errno));
		return -errno;
	}
	buf = malloc(cap + 1);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n < cap)
			break;
		if (cap >= (size_t)256 << 20) {
			fprintf(stderr, "cisp: %s is larger than 256 MiB\n", path);
			free(buf);
			fclose(f);
			return -EFBIG;
		}
		cap *= 2;
		char *bigger = realloc(buf, cap + 1);
		if (!bigger)
			free(buf);
		buf = bigger;
	}
	if (!buf || ferror(f)) {
		fprintf(stderr, "cisp: cannot read %s\n", path);
		free(buf);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[n] = '\0';
	*data = buf;
	*size = n;
	return 0;
}

int load_params(const char *path, void **buf, size_t *size)
{
	void *data;
	size_t n;
	uint32_t magic = 0;
	int ret = read_file(path, &data, &n);

	if (ret)
		return ret;
	if (n >= 4)
		memcpy(&magic, data, 4);
	if (magic == CISP_PARAMS_MAGIC) {
		*buf = data;
		*size = n;
		return 0;
	}
	ret = cisp_params_from_yaml(data, n, buf, size);
	free(data);
	if (ret)
		fprintf(stderr, "cisp: %s: %s\n", path, cisp_last_error());
	return ret;
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

const char raw_input_usage[] =
	"  --size WxH              size of a headerless raw dump\n"
	"  --format NAME           V4L2 Bayer format of a raw dump (SRGGB10P, SGRBG12, ...)\n"
	"  --cfa ORDER             CFA order of a PGM/PNG mosaic: RGGB (default), GRBG, GBRG, BGGR\n"
	"  --black N               black level in the input's units (default: the file's, else 0)\n"
	"  --white N               white level in the input's units (default: the file's; the format's\n"
	"                          maximum for dumps, the largest sample for mosaics)\n";

int raw_input_option(struct raw_input *in, const char *opt, const char *value)
{
	unsigned long v;

	if (!strcmp(opt, "size"))
		return parse_size("--size", value, &in->width, &in->height) ? 2 : 0;
	if (!strcmp(opt, "format")) {
		in->format_name = value;
		return 0;
	}
	if (!strcmp(opt, "cfa")) {
		in->cfa_name = value;
		return 0;
	}
	if (!strcmp(opt, "black") || !strcmp(opt, "white")) {
		bool black = opt[0] == 'b';
		if (parse_uint(black ? "--black" : "--white", value, black ? 0 : 1, 65535, &v))
			return 2;
		*(black ? &in->black : &in->white) = (long)v;
		return 0;
	}
	return 1;
}

/* A PNG or a binary PGM/PPM, from the first bytes; everything else goes to LibRaw. */
static bool looks_like_raster(const char *path)
{
	unsigned char head[8] = { 0 };
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return false;
	n = fread(head, 1, sizeof(head), f);
	fclose(f);
	if (n >= 8 && !memcmp(head, "\x89PNG\r\n\x1a\n", 8))
		return true;
	return n >= 3 && head[0] == 'P' && (head[1] == '5' || head[1] == '6') &&
	       (head[2] == ' ' || head[2] == '\n' || head[2] == '\r' || head[2] == '\t' || head[2] == '#');
}

static int fail(char *err, size_t err_size, const char *path, int status)
{
	/* Readers name the file themselves; add it only where they do not. */
	const char *msg = cisp_last_error();

	if (strstr(msg, path))
		snprintf(err, err_size, "%s", msg);
	else
		snprintf(err, err_size, "%s: %s", path, msg);
	return status;
}

int load_raw_input(const struct raw_input *in, const char *path, struct cisp_raw_frame *frame, char *err,
		   size_t err_size)
{
	int ret;

	memset(frame, 0, sizeof(*frame));
	if (in->format_name || in->width) {
		uint32_t format;

		if (!in->format_name || !in->width) {
			snprintf(err, err_size, "a raw dump needs both --size WxH and --format NAME");
			return 2;
		}
		format = cisp_format_from_name(in->format_name);
		if (!format) {
			snprintf(err, err_size, "%s", cisp_last_error());
			return 2;
		}
		ret = cisp_raw_read_dump(path, format, in->width, in->height, frame);
	} else if (looks_like_raster(path)) {
		struct cisp_raster raster;
		enum cisp_cfa cfa = CISP_CFA_RGGB;

		if (in->cfa_name && cisp_cfa_from_name(in->cfa_name, &cfa)) {
			snprintf(err, err_size, "%s", cisp_last_error());
			return 2;
		}
		ret = cisp_raster_read(path, &raster);
		if (!ret) {
			ret = cisp_raw_from_raster(&raster, cfa, in->black >= 0 ? (unsigned)in->black : 0,
						   in->white >= 0 ? (unsigned)in->white : 0, frame);
			cisp_raster_free(&raster);
		}
		if (ret)
			return fail(err, err_size, path, 1);
		return 0;
	} else {
		if (in->cfa_name) {
			snprintf(err, err_size, "%s: --cfa applies to PGM/PNG mosaics; a raw file carries its own", path);
			return 2;
		}
		ret = cisp_raw_read_file(path, frame);
	}
	if (ret)
		return fail(err, err_size, path, 1);
	/* Levels given on the command line replace the file's (dumps: the format's defaults). */
	for (int c = 0; c < 4 && in->black >= 0; c++)
		frame->black[c] = (uint16_t)in->black;
	if (in->white >= 0)
		frame->white = (uint16_t)in->white;
	frame->defaults &= ~((in->black >= 0 ? CISP_RAW_DEFAULT_BLACK : 0u) | (in->white >= 0 ? CISP_RAW_DEFAULT_WHITE : 0u));
	return 0;
}
