/* SPDX-License-Identifier: MIT */
/*
 * Output files: written unnamed (O_TMPFILE) or under a hidden random name in
 * the final name's folder, then linked into place. Every step after the
 * folder is opened is relative to its descriptor, so that the folder the
 * checks looked at is the one the file lands in.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cisp/output_file.h>

#include "core/error_internal.h"

/* ".cisp-" and 16 hex digits. */
#define TEMP_NAME_SIZE 24

struct cisp_output_file {
	char *path;         /* the final name, for messages */
	const char *base;   /* its last component, inside @path */
	int dir;            /* the folder (O_PATH) */
	int fd;             /* the new file */
	FILE *stream;       /* on @fd, made on demand */
	int write_error;    /* the errno of the stream's first failed write */
	unsigned flags;
	int slot;           /* in the table of hidden names, or -1 when the file has none */
	char temp[TEMP_NAME_SIZE];
};

/* ---- the hidden names still on disk, for a signal handler ---- */

/*
 * A slot's state is its generation << 2 | phase. The owner fills the name
 * while the slot is CLAIMED and publishes it as READY; the handler copies a
 * READY name and uses it only if the state did not change meanwhile (a
 * sequence lock: no lock a signal could interrupt).
 */
enum { SLOT_FREE, SLOT_CLAIMED, SLOT_READY };
#define MAX_HIDDEN 256

static struct hidden_name {
	_Atomic unsigned state;
	volatile int dir;
	volatile char name[TEMP_NAME_SIZE];
} hidden[MAX_HIDDEN];

/* Set by cisp_output_file_remove_temporaries(): a hidden file made after it removes itself. */
static atomic_bool removing;

static int remember(int dir, const char *name)
{
	for (int i = 0; i < MAX_HIDDEN; i++) {
		unsigned s = atomic_load(&hidden[i].state);

		if ((s & 3) != SLOT_FREE || !atomic_compare_exchange_strong(&hidden[i].state, &s, s | SLOT_CLAIMED))
			continue;
		hidden[i].dir = dir;
		for (int k = 0; k < TEMP_NAME_SIZE; k++)
			hidden[i].name[k] = name[k];
		atomic_store(&hidden[i].state, (s & ~3u) | SLOT_READY);
		return i;
	}
	return cisp_error(-EMFILE, "more than %d output files at once", MAX_HIDDEN);
}

static void forget(int slot)
{
	if (slot >= 0)
		atomic_store(&hidden[slot].state, (atomic_load(&hidden[slot].state) & ~3u) + 4);
}

void cisp_output_file_remove_temporaries(void)
{
	atomic_store(&removing, true);
	for (int i = 0; i < MAX_HIDDEN; i++) {
		unsigned before = atomic_load(&hidden[i].state);
		char name[TEMP_NAME_SIZE];
		int dir;

		if ((before & 3) != SLOT_READY)
			continue;
		dir = hidden[i].dir;
		for (int k = 0; k < TEMP_NAME_SIZE; k++)
			name[k] = hidden[i].name[k];
		if (atomic_load(&hidden[i].state) == before)
			unlinkat(dir, name, 0);
	}
}

/* ---- names ---- */

static int random_name(char name[TEMP_NAME_SIZE])
{
	uint64_t r;

	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		return -errno;
	snprintf(name, TEMP_NAME_SIZE, ".cisp-%016llx", (unsigned long long)r);
	return 0;
}

/* Open the folder of @f->path and point @f->base at the last component. */
static int open_folder(struct cisp_output_file *f)
{
	char *slash = strrchr(f->path, '/');
	const char *base = slash ? slash + 1 : f->path;

	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return cisp_error(-EINVAL, "%s: names a folder, not a file", f->path);
	if (strlen(base) > NAME_MAX)
		return cisp_error(-ENAMETOOLONG, "%s: the name is longer than %d bytes", f->path, NAME_MAX);
	if (slash) {
		*slash = '\0';
		f->dir = open(slash == f->path ? "/" : f->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		*slash = '/';
	} else {
		f->dir = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (f->dir < 0)
		return cisp_error(-errno, "cannot create %s: its folder: %s", f->path, strerror(errno));
	f->base = base;
	return 0;
}

/* What may stand at the final name: nothing, or with REPLACE a regular file or a link. */
static int check_target(const struct cisp_output_file *f)
{
	struct stat st;

	if (fstatat(f->dir, f->base, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : cisp_error(-errno, "cannot create %s: %s", f->path, strerror(errno));
	if (!(f->flags & CISP_OUTPUT_REPLACE))
		return cisp_error(-EEXIST, "%s exists", f->path);
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return cisp_error(-EEXIST, "%s exists and is not a regular file; it is not replaced", f->path);
	return 0;
}

/* ---- creating ---- */

/*
 * An unnamed file in the folder, when the file system and /proc allow linking
 * it later. Opened for reading too: libtiff reads back what it wrote.
 */
static bool create_unnamed(struct cisp_output_file *f)
{
	const char *env = getenv("CISP_NAMED_TEMP_FILES");
	char proc[64];

	if (env && !strcmp(env, "1"))
		return false;
	f->fd = openat(f->dir, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
	if (f->fd < 0)
		return false;
	/* It is linked through /proc/self/fd; without /proc it could never be named. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
	if (access(proc, F_OK) == 0)
		return true;
	close(f->fd);
	f->fd = -1;
	return false;
}

/*
 * A hidden random name, registered for removal on signals, made exclusively:
 * a new file (@proc NULL), or a link to the unnamed file /proc/self/fd/N.
 */
static int make_hidden(struct cisp_output_file *f, const char *proc)
{
	for (int tries = 0; tries < 16; tries++) {
		int ret = random_name(f->temp);
		bool made;

		if (ret)
			return cisp_error(ret, "cannot create %s: no random name: %s", f->path, strerror(-ret));
		if ((f->slot = remember(f->dir, f->temp)) < 0)
			return f->slot;
		if (proc)
			made = linkat(AT_FDCWD, proc, f->dir, f->temp, AT_SYMLINK_FOLLOW) == 0;
		else
			made = (f->fd = openat(f->dir, f->temp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
					       0666)) >= 0;
		/* Another thread's signal handler may have swept the table before the file was made. */
		if (made && atomic_load(&removing)) {
			unlinkat(f->dir, f->temp, 0);
			return cisp_error(-EINTR, "cannot create %s: the process is being stopped", f->path);
		}
		if (made)
			return 0;
		ret = -errno;
		forget(f->slot);
		f->slot = -1;
		if (ret != -EEXIST)
			return cisp_error(ret, "cannot create %s: %s", f->path, strerror(-ret));
	}
	return cisp_error(-EEXIST, "cannot create %s: no free temporary name", f->path);
}

static void free_file(struct cisp_output_file *f)
{
	if (f->stream)
		fclose(f->stream);
	if (f->fd >= 0)
		close(f->fd);
	if (f->dir >= 0)
		close(f->dir);
	free(f->path);
	free(f);
}

int cisp_output_file_create(struct cisp_output_file **out, const char *path, unsigned flags)
{
	struct cisp_output_file *f = calloc(1, sizeof(*f));
	int ret;

	*out = NULL;
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return cisp_error(-ENOMEM, "%s: out of memory", path);
	}
	f->dir = f->fd = f->slot = -1;
	f->flags = flags;
	ret = open_folder(f);
	if (!ret)
		ret = check_target(f);
	if (!ret && !create_unnamed(f))
		ret = make_hidden(f, NULL);
	if (ret) {
		cisp_output_file_discard(f);
		return ret;
	}
	*out = f;
	return 0;
}

const char *cisp_output_file_path(const struct cisp_output_file *f)
{
	return f->path;
}

/* The stream's writes, keeping the reason of a failure (a full disk) for the commit's message. */
static ssize_t stream_write(void *cookie, const char *data, size_t size)
{
	struct cisp_output_file *f = cookie;
	size_t done = 0;

	while (done < size) {
		ssize_t n = write(f->fd, data + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!f->write_error)
				f->write_error = n < 0 ? errno : EIO;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

FILE *cisp_output_file_stream(struct cisp_output_file *f)
{
	static const cookie_io_functions_t io = { .write = stream_write };

	if (!f->stream && !(f->stream = fopencookie(f, "wb", io)))
		cisp_error(-ENOMEM, "%s: cannot make a stream: %s", f->path, strerror(errno));
	return f->stream;
}

int cisp_output_file_fd(const struct cisp_output_file *f)
{
	return f->fd;
}

/* ---- committing ---- */

/* Everything written is on the disk, or the write's error. */
static int flush(struct cisp_output_file *f)
{
	if (f->stream && (fflush(f->stream) || ferror(f->stream))) {
		int err = f->write_error ? f->write_error : EIO;

		return cisp_error(-err, "%s: write failed: %s", f->path, strerror(err));
	}
	if (fsync(f->fd))
		return cisp_error(-errno, "%s: write failed: %s", f->path, strerror(errno));
	return 0;
}

static int link_error(const struct cisp_output_file *f, int err)
{
	if (err == EEXIST)
		return cisp_error(-EEXIST, "%s exists", f->path);
	return cisp_error(-err, "cannot create %s: %s", f->path, strerror(err));
}

/* Put the file at its final name: only where none exists, or replacing it. */
static int place(struct cisp_output_file *f)
{
	bool replace = f->flags & CISP_OUTPUT_REPLACE;
	char proc[64];
	int ret;

	if (f->slot < 0) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
		/* linkat() never replaces: it fails on any existing name, links included. */
		if (!replace)
			return linkat(AT_FDCWD, proc, f->dir, f->base, AT_SYMLINK_FOLLOW) ? link_error(f, errno) : 0;
		/* A hidden name first, for a rename over the final one. */
		if ((ret = make_hidden(f, proc)))
			return ret;
	}
	if (replace) {
		/* rename() replaces the name itself: a link there is replaced, not followed. */
		if ((ret = check_target(f)))
			return ret;
		return renameat(f->dir, f->temp, f->dir, f->base) ? link_error(f, errno) : 0;
	}
	if (renameat2(f->dir, f->temp, f->dir, f->base, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return link_error(f, errno);
	/* A file system without RENAME_NOREPLACE: a hard link also never replaces. */
	if (linkat(f->dir, f->temp, f->dir, f->base, 0))
		return link_error(f, errno);
	unlinkat(f->dir, f->temp, 0);
	return 0;
}

int cisp_output_file_commit(struct cisp_output_file *f)
{
	int ret = flush(f);

	if (!ret)
		ret = place(f);
	if (ret) {
		cisp_output_file_discard(f);
		return ret;
	}
	forget(f->slot);
	free_file(f);
	return 0;
}

void cisp_output_file_discard(struct cisp_output_file *f)
{
	if (!f)
		return;
	if (f->slot >= 0) {
		unlinkat(f->dir, f->temp, 0);
		forget(f->slot);
	}
	free_file(f);
}

int cisp_output_file_finish(struct cisp_output_file *f, int status)
{
	if (status) {
		cisp_output_file_discard(f);
		return status;
	}
	return cisp_output_file_commit(f);
}
