/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/error_internal.h"
#include "io/tiff_common.h"

static int on_error(TIFF *tif, void *user_data, const char *module, const char *fmt, va_list ap)
{
	struct tiff_messages *msg = user_data;

	(void)tif;
	(void)module;
	if (!msg->error[0])
		vsnprintf(msg->error, sizeof(msg->error), fmt, ap);
	return 1;
}

static int on_warning(TIFF *tif, void *user_data, const char *module, const char *fmt, va_list ap)
{
	(void)tif;
	(void)user_data;
	(void)module;
	(void)fmt;
	(void)ap;
	return 1;
}

TIFF *tiff_create(struct cisp_output_file *out, struct tiff_messages *msg)
{
	TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
	/* libtiff closes what it is given; the output file keeps its own descriptor. */
	int fd = dup(cisp_output_file_fd(out));
	TIFF *tif = NULL;

	msg->error[0] = '\0';
	if (!opts || fd < 0) {
		snprintf(msg->error, sizeof(msg->error), "%s", opts ? strerror(errno) : "out of memory");
	} else {
		TIFFOpenOptionsSetErrorHandlerExtR(opts, on_error, msg);
		TIFFOpenOptionsSetWarningHandlerExtR(opts, on_warning, msg);
		tif = TIFFFdOpenExt(fd, cisp_output_file_path(out), "w", opts);
		if (!tif && !msg->error[0])
			snprintf(msg->error, sizeof(msg->error), "%s", strerror(errno));
	}
	if (!tif && fd >= 0)
		close(fd);
	TIFFOpenOptionsFree(opts);
	return tif;
}

int tiff_close(TIFF *tif, const char *path, struct tiff_messages *msg, int ret)
{
	TIFFClose(tif);
	if (!ret && msg->error[0])
		ret = -EIO;
	if (ret && msg->error[0])
		return cisp_error(ret, "%s: %s", path, msg->error);
	if (ret)
		return cisp_error(ret, "%s: write failed", path);
	return 0;
}
