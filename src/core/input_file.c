/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cisp/input_file.h>

#include "core/error_internal.h"

static const char *kind_of(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "of an unknown kind";
}

static int not_regular(const char *path, mode_t mode)
{
	return cisp_error(-EINVAL, "%s: not a regular file (%s)", path, kind_of(mode));
}

int cisp_input_file_open(const char *path, FILE **file, uint64_t *size)
{
	struct stat st;
	FILE *f;
	int fd;

	*file = NULL;
	/* Devices are refused before they are opened: opening one can have effects of its own. */
	if (stat(path, &st))
		return cisp_error(-errno, "cannot open %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return not_regular(path, st.st_mode);
	/* O_NONBLOCK: a FIFO swapped in since the stat() cannot make open() wait for a writer. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return cisp_error(-errno, "cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &st)) {
		int err = errno;
		close(fd);
		return cisp_error(-err, "cannot open %s: %s", path, strerror(err));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return not_regular(path, st.st_mode);
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) || !(f = fdopen(fd, "rb"))) {
		int err = errno;
		close(fd);
		return cisp_error(-err, "cannot open %s: %s", path, strerror(err));
	}
	*file = f;
	if (size)
		*size = (uint64_t)st.st_size;
	return 0;
}
