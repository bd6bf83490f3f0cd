/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "core/text_file.h"

int cisp_read_text_file(const char *path, size_t max_bytes, char **text, size_t *length)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;
	int ret = 0;

	*text = NULL;
	*length = 0;
	if (!f)
		return cisp_error(-errno, "%s: %s", path, strerror(errno));
	buf = malloc(max_bytes + 1);
	if (!buf) {
		fclose(f);
		return cisp_error(-ENOMEM, "%s: out of memory", path);
	}
	/* One byte more than allowed tells a file at the limit from a larger one. */
	n = fread(buf, 1, max_bytes + 1, f);
	if (ferror(f))
		ret = cisp_error(-EIO, "%s: read error", path);
	else if (n > max_bytes)
		ret = cisp_error(-EFBIG, "%s: larger than %zu bytes", path, max_bytes);
	fclose(f);
	if (ret) {
		free(buf);
		return ret;
	}
	*text = buf;
	*length = n;
	return 0;
}
