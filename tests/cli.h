/* SPDX-License-Identifier: MIT */
/* Running the cisp command from tests, in the scratch folder. */
#ifndef CISP_TESTS_CLI_H
#define CISP_TESTS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* What the last cli_run() printed, stdout and stderr together. */
extern char cli_output[16384];

/*
 * Run "cisp ARGS" (shell words, printf-style) through the shell in the
 * scratch folder, output into cli_output; the exit status, or -1 when it
 * did not exit (a signal).
 */
int cli_run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* cli_run() of a whole shell command, which finds the cisp command in $CISP. */
int cli_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* @name in the scratch folder (a few results stay valid at once). */
const char *cli_tmp(const char *name);
bool cli_exists(const char *name);
/* Write @size bytes to @name in the scratch folder. */
void cli_write(const char *name, const void *data, size_t size);
/* The size of @name, or -1 when it does not exist. */
long long cli_size(const char *name);
/* The number of entries of the folder @path (hidden ones included), or -1. */
int cli_count_entries(const char *path);

/*
 * Start cisp with @argv (after "cisp"; NULL-terminated) in the scratch
 * folder @dir with the environment variable @env ("NAME=VALUE", or NULL)
 * added, stdout and stderr to /dev/null, every signal at its default.
 * Returns its process id.
 */
pid_t cli_spawn(const char *dir, const char *env, const char *const argv[]);

#endif
