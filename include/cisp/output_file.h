/* SPDX-License-Identifier: MIT */
/**
 * @file output_file.h
 * @brief Creating output files safely: hidden until complete, never through
 * a symbolic link, never over an existing file unless asked.
 *
 * An output file is written in the folder of its final name, but under no
 * name at all (an O_TMPFILE file) or, on file systems without O_TMPFILE,
 * under a hidden name that cannot be guessed (".cisp-" and 16 random hex
 * digits, created with O_EXCL and O_NOFOLLOW). Nothing appears at the final
 * name until cisp_output_file_commit(), which flushes the data to the disk
 * (fsync) and then links the file into place in one step. A failure, a full
 * disk or a discarded file leaves nothing behind.
 *
 * The final name is never followed: without CISP_OUTPUT_REPLACE an existing
 * name (a file, a directory, a symbolic link, dangling or not) makes the
 * commit fail with -EEXIST, decided atomically by the kernel; with it, an
 * existing regular file or symbolic link is replaced by the new file (the
 * link itself, never the file it points to). Directories, FIFOs, devices
 * and sockets are never replaced. A replaced file's permissions are those of
 * a new file (0666 less the umask), not the old file's.
 *
 * A process killed by a signal loses an O_TMPFILE file with it. The hidden
 * names of the fallback (and the instant between linking and renaming a
 * replacement) are kept in a table that cisp_output_file_remove_temporaries()
 * empties from a signal handler.
 */
#ifndef CISP_OUTPUT_FILE_H
#define CISP_OUTPUT_FILE_H

#include <stdio.h>

#include <cisp/api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An output file being written; opaque. */
struct cisp_output_file;

/** Flags of cisp_output_file_create(). */
enum cisp_output_flags {
	/** Replace an existing regular file or symbolic link at the final name. */
	CISP_OUTPUT_REPLACE = 1 << 0,
};

/**
 * cisp_output_file_create() - start writing a new file that will become @path.
 * @out: receives the file.
 * @path: the final name; its folder must exist.
 * @flags: 0 or CISP_OUTPUT_REPLACE.
 *
 * An existing @path is reported now, before anything is written (and once
 * more, atomically, by the commit): -EEXIST "PATH exists" without
 * CISP_OUTPUT_REPLACE; with it, -EEXIST when @path is something other than
 * a regular file or a symbolic link.
 *
 * The environment variable CISP_NAMED_TEMP_FILES=1 makes every output take
 * the hidden-name path that file systems without O_TMPFILE take.
 *
 * Return: 0, or a negative errno with a message naming @path: -EEXIST,
 * -EINVAL for a name that is a folder ("DIR/", ".", ".."), -ENAMETOOLONG,
 * the error of creating a file in the folder (-ENOENT, -EACCES, -EROFS, ...),
 * -ENOMEM.
 */
CISP_API int cisp_output_file_create(struct cisp_output_file **out, const char *path, unsigned flags);

/**
 * cisp_output_file_path() - the final name, as given to cisp_output_file_create().
 * @file: the file.
 *
 * Return: the name; valid until the file is committed or discarded.
 */
CISP_API const char *cisp_output_file_path(const struct cisp_output_file *file);

/**
 * cisp_output_file_stream() - a stdio stream on the file, for writers that use one.
 * @file: the file.
 *
 * The stream belongs to @file: do not fclose() it. It cannot seek. Write
 * errors are caught by cisp_output_file_commit() even where a writer does
 * not check them, and reported with their reason ("No space left on
 * device").
 *
 * Return: the stream, the same one on every call, or NULL (-ENOMEM, with a
 * message) when it cannot be made.
 */
CISP_API FILE *cisp_output_file_stream(struct cisp_output_file *file);

/**
 * cisp_output_file_fd() - the file descriptor, for writers that want one (libtiff).
 * @file: the file.
 *
 * The descriptor belongs to @file: a writer that closes what it is given
 * gets a dup() of it. Do not mix it with cisp_output_file_stream().
 *
 * Return: the descriptor.
 */
CISP_API int cisp_output_file_fd(const struct cisp_output_file *file);

/**
 * cisp_output_file_commit() - put the finished file in place and free @file.
 * @file: the file (freed in every case).
 *
 * Flushes the stream, checks it for write errors, fsync()s the file, then
 * links it to its final name as cisp_output_file_create()'s flags say. On
 * any failure the new file is removed and @path is as it was.
 *
 * Return: 0, or a negative errno with a message naming the final name: -EIO
 * or the write's own error (-ENOSPC, -EFBIG, ...) for data that did not
 * reach the disk, -EEXIST when the name exists (see the flags).
 */
CISP_API int cisp_output_file_commit(struct cisp_output_file *file);

/**
 * cisp_output_file_discard() - drop the file: nothing appears at its name.
 * @file: the file (may be NULL); freed.
 */
CISP_API void cisp_output_file_discard(struct cisp_output_file *file);

/**
 * cisp_output_file_finish() - commit @file when @status is 0, else discard it.
 * @file: the file (freed in every case).
 * @status: 0, or the negative errno with which writing it failed.
 *
 * Return: @status when it is not 0, else cisp_output_file_commit()'s result.
 */
CISP_API int cisp_output_file_finish(struct cisp_output_file *file, int status);

/**
 * cisp_output_file_remove_temporaries() - remove the hidden names of every
 * output file of this process not yet committed.
 *
 * Async-signal-safe: for a SIGINT, SIGTERM or SIGHUP handler that then
 * re-raises the signal with its default action (the cisp command does).
 * Output files are unusable afterwards: a hidden file another thread makes
 * later removes itself, and its creation fails with -EINTR.
 */
CISP_API void cisp_output_file_remove_temporaries(void);

#ifdef __cplusplus
}
#endif

#endif /* CISP_OUTPUT_FILE_H */
