/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cisp/error.h>
#include <cisp/image.h>
#include <cisp/params.h>
#include <cisp/params_state.h>

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
