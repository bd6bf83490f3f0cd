/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "test.h"

char cli_output[16384];

/* Run @cmd through the shell in the scratch folder, output into cli_output. */
static int shell(const char *cmd)
{
	char line[8192];
	size_t n = 0;
	FILE *p;
	int status;

	snprintf(line, sizeof(line), "cd %s && CISP=%s/tools/cisp && (%s) 2>&1", test_tmp_dir(), CISP_BUILD_DIR, cmd);
	p = popen(line, "r");
	if (!p)
		return -1;
	while (n < sizeof(cli_output) - 1 && fgets(cli_output + n, (int)(sizeof(cli_output) - n), p))
		n += strlen(cli_output + n);
	cli_output[n] = '\0';
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int cli_run(const char *fmt, ...)
{
	char args[4096], cmd[4200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "\"$CISP\" %s", args);
	return shell(cmd);
}

int cli_sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return shell(cmd);
}

const char *cli_tmp(const char *name)
{
	static char path[8][512];
	static int next;
	char *p = path[next++ % 8];

	snprintf(p, 512, "%s/%s", test_tmp_dir(), name);
	return p;
}

bool cli_exists(const char *name)
{
	struct stat st;

	return lstat(cli_tmp(name), &st) == 0;
}

void cli_write(const char *name, const void *data, size_t size)
{
	FILE *f = fopen(cli_tmp(name), "wb");

	CHECK(f != NULL);
	if (f) {
		CHECK_EQ(fwrite(data, 1, size, f), size);
		fclose(f);
	}
}

long long cli_size(const char *name)
{
	struct stat st;

	return stat(cli_tmp(name), &st) ? -1 : (long long)st.st_size;
}

int cli_count_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

pid_t cli_spawn(const char *dir, const char *env, const char *const argv[])
{
	char cisp[512];
	const char *args[32] = { cisp };
	pid_t pid;
	int n = 1;

	snprintf(cisp, sizeof(cisp), "%s/tools/cisp", CISP_BUILD_DIR);
	while (argv[n - 1] && n < 31) {
		args[n] = argv[n - 1];
		n++;
	}
	args[n] = NULL;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		for (int sig = 1; sig < NSIG; sig++)
			signal(sig, SIG_DFL);
		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		if (env)
			putenv((char *)env);
		if (chdir(dir) == 0)
			execv(cisp, (char *const *)args);
		_exit(127);
	}
	return pid;
}
