/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/input_file.h>

#include "core/error_internal.h"
#include "core/text_file.h"

int cisp_read_text_file(const char *path, size_t max_bytes, char **text, size_t *length)
{
	uint64_t size;
	FILE *f;
	char *buf;
	size_t n;
	int ret;

	*text = NULL;
	*length = 0;
	if ((ret = cisp_input_file_open(path, &f, &size)))
		return ret;
	if (size > max_bytes) {
		fclose(f);
		return cisp_error(-EFBIG, "%s: larger than %zu bytes", path, max_bytes);
	}
	buf = malloc((size_t)size + 1);
	if (!buf) {
		fclose(f);
		return cisp_error(-ENOMEM, "%s: out of memory", path);
	}
	/* One byte more than the size tells a file that grew since from one that did not. */
	n = fread(buf, 1, (size_t)size + 1, f);
	if (ferror(f))
		ret = cisp_error(-EIO, "%s: read error", path);
	else if (n > size)
		ret = cisp_error(-EIO, "%s: grew while it was read", path);
	fclose(f);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[n] = '\0';
	*text = buf;
	*length = n;
	return 0;
}
