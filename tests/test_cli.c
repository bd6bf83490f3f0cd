/* SPDX-License-Identifier: MIT */
/*
 * The cisp command and the files of a careless user (docs/security.md):
 * outputs never written through links nor left half-written, existing files
 * and inputs never replaced, inputs that are not regular files refused at
 * once, one rule for params files, memory bounded, names printed escaped.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cisp/raster.h>

#include "cli.h"
#include "sanitizer.h"
#include "test.h"

/* A WxH 16-bit raw dump of random samples. */
static void make_dump(const char *name, unsigned width, unsigned height)
{
	size_t n = (size_t)width * height;
	uint16_t *s = malloc(n * 2);

	CHECK(s != NULL);
	if (!s)
		return;
	for (size_t i = 0; i < n; i++)
		s[i] = (uint16_t)test_rand();
	cli_write(name, s, n * 2);
	free(s);
}

/* A grey 32x32 PNG mosaic. */
static void make_mosaic(const char *name)
{
	struct cisp_raster r;

	CHECK_EQ(cisp_raster_alloc(&r, 32, 32, 1, 255), 0);
	for (size_t i = 0; i < 32 * 32; i++)
		r.data[i] = (uint16_t)(test_rand() % 256);
	CHECK_EQ(cisp_raster_write(cli_tmp(name), &r), 0);
	cisp_raster_free(&r);
}

static void make_folder(const char *name)
{
	CHECK(mkdir(cli_tmp(name), 0777) == 0 || errno == EEXIST);
}

/* The number of entries of a folder of the scratch folder, hidden ones included. */
static int entries(const char *folder)
{
	return cli_count_entries(cli_tmp(folder));
}

static bool same_text(const char *name, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(cli_tmp(name), "rb");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return !strcmp(buf, text);
}

static const char dump_args[] = "--size 64x48 --format SRGGB16";

/* 6. The hidden file of an output is created exclusively, under a name no one can plant a link at. */
TEST(files_output_not_through_planted_links)
{
	char victim[512], link_name[512];
	int go[2], status = -1;
	pid_t pid;

	make_folder("plant");
	make_dump("plant.raw", 64, 48);
	cli_write("plant/victim", "precious\n", 9);
	snprintf(victim, sizeof(victim), "%s", cli_tmp("plant/victim"));
	CHECK_EQ(pipe(go), 0);
	pid = fork();
	if (pid == 0) {
		/* Wait until the parent has planted links at every name this process could use. */
		char c, cisp[512];

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		snprintf(cisp, sizeof(cisp), "%s/tools/cisp", CISP_BUILD_DIR);
		if (chdir(cli_tmp("plant")) == 0)
			execl(cisp, cisp, "develop", "../plant.raw", "--size", "64x48", "--format", "SRGGB16", "-o", "out.png",
			      (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	/* The names a process id makes predictable, as the temporary files of old did. */
	for (int k = 0; k < 4; k++) {
		snprintf(link_name, sizeof(link_name), "%s/.cisp-%d-%d.png", cli_tmp("plant"), (int)pid, k);
		CHECK_EQ(symlink(victim, link_name), 0);
	}
	CHECK_EQ(write(go[1], "x", 1), 1);
	close(go[1]);
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(same_text("plant/victim", "precious\n"));
	CHECK(cli_size("plant/out.png") > 100);
}

/* 6, 8. A link at the output's name: kept without --force; with it the link is replaced, never followed. */
TEST(files_output_replaces_links_not_their_targets)
{
	struct stat st;

	make_folder("links");
	make_dump("links/in.raw", 64, 48);
	cli_write("links/target", "keep me\n", 8);
	CHECK_EQ(symlink("target", cli_tmp("links/out.png")), 0);
	CHECK_EQ(symlink("target", cli_tmp("links/out.dng")), 0);
	CHECK_EQ(symlink("missing", cli_tmp("links/dangling.png")), 0);

	CHECK_EQ(cli_run("develop links/in.raw %s -o links/out.png", dump_args), 1);
	CHECK(strstr(cli_output, "links/out.png exists (use --force to replace it)") != NULL);
	CHECK_EQ(cli_run("develop links/in.raw %s -o links/dangling.png", dump_args), 1);
	CHECK(!cli_exists("links/missing"));
	CHECK_EQ(cli_run("convert links/in.raw %s -o links/out.dng", dump_args), 1);
	CHECK(same_text("links/target", "keep me\n"));

	CHECK_EQ(cli_run("develop links/in.raw %s -o links/out.png --force", dump_args), 0);
	CHECK_EQ(cli_run("convert links/in.raw %s -o links/out.dng --force", dump_args), 0);
	CHECK(same_text("links/target", "keep me\n"));
	CHECK(lstat(cli_tmp("links/out.png"), &st) == 0 && S_ISREG(st.st_mode));
	CHECK(lstat(cli_tmp("links/out.dng"), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 6144);

	/* What is not a regular file or a link is never replaced. */
	CHECK_EQ(mkfifo(cli_tmp("links/fifo.png"), 0666), 0);
	CHECK_EQ(cli_run("develop links/in.raw %s -o links/fifo.png --force", dump_args), 1);
	CHECK(strstr(cli_output, "fifo.png exists and is not a regular file; it is not replaced") != NULL);
	CHECK(lstat(cli_tmp("links/fifo.png"), &st) == 0 && S_ISFIFO(st.st_mode));
	CHECK_EQ(entries("links"), 6); /* in.raw, target, out.png, out.dng, dangling.png, fifo.png: no hidden file */
}

/* The output's hidden file: a new entry of @dir (a name), or an unnamed file of @pid in it (O_TMPFILE). */
static bool output_started(pid_t pid, const char *dir)
{
	char fds[64], link[400], target[1024], prefix[600];
	struct dirent *e;
	bool found = entries(dir) > 0;
	DIR *d;

	snprintf(fds, sizeof(fds), "/proc/%d/fd", (int)pid);
	snprintf(prefix, sizeof(prefix), "%s/#", cli_tmp(dir));
	d = opendir(fds);
	while (d && !found && (e = readdir(d))) {
		ssize_t n;

		snprintf(link, sizeof(link), "%s/%s", fds, e->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		found = !strncmp(target, prefix, strlen(prefix));
	}
	if (d)
		closedir(d);
	return found;
}

/* Start @argv in the empty folder @dir, signal it once its output is started; what waitpid() said. */
static int signal_midway(const char *dir, const char *env, const char *const argv[], int sig)
{
	struct timespec pause = { 0, 1000000 };
	int status = 0;
	pid_t pid;

	make_folder(dir);
	CHECK_EQ(entries(dir), 0);
	pid = cli_spawn(cli_tmp(dir), env, argv);
	for (int i = 0; i < 20000 && waitpid(pid, &status, WNOHANG) == 0; i++) {
		if (output_started(pid, dir)) {
			kill(pid, sig);
			waitpid(pid, &status, 0);
			return status;
		}
		nanosleep(&pause, NULL);
	}
	test_fail(__FILE__, __LINE__, "%s %s: ended before its output was started", argv[0], dir);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return status;
}

/* The names in @folder, for a message. */
static const char *names(const char *folder, char *buf, size_t size)
{
	DIR *d = opendir(cli_tmp(folder));
	struct dirent *e;
	size_t n = 0;

	buf[0] = '\0';
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && n < size)
			n += (size_t)snprintf(buf + n, size - n, " %s", e->d_name);
	if (d)
		closedir(d);
	return buf;
}

/* Whether @name (a PNG) ends with its IEND chunk: the whole file. */
static bool whole_png(const char *name)
{
	static const unsigned char iend[12] = { 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82 };
	unsigned char tail[12];
	FILE *f = fopen(cli_tmp(name), "rb");
	bool whole = f && fseek(f, -12, SEEK_END) == 0 && fread(tail, 1, 12, f) == 12 && !memcmp(tail, iend, 12);

	if (f)
		fclose(f);
	return whole;
}

/*
 * Whether what @dir holds after a signal is the whole output of @argv, put in
 * place before the signal came: on a loaded machine a short command can end
 * its output between the moment it was seen started and the signal. So: one
 * entry, the output's own name (never a hidden one), and whole: a PNG that
 * ends with its IEND chunk (its size varies by a byte or two from run to run,
 * with its time stamp), or a file of the size the same command writes when it
 * runs to the end (in @dir's "-complete" twin).
 */
static bool finished_before_signal(const char *dir, const char *const argv[])
{
	const char *output = NULL;
	char name[128], complete[128];
	int status = 0;
	pid_t pid;

	for (int i = 0; argv[i]; i++)
		if (!strcmp(argv[i], "-o"))
			output = argv[i + 1];
	snprintf(name, sizeof(name), "%s/%s", dir, output ? output : "");
	if (!output || argv[0][0] == 'r' || entries(dir) != 1 || cli_size(name) <= 0)
		return false; /* `run` writes 400 frames: it cannot have ended */
	if (strstr(output, ".png"))
		return whole_png(name);
	snprintf(complete, sizeof(complete), "%s-complete", dir);
	make_folder(complete);
	pid = cli_spawn(cli_tmp(complete), NULL, argv);
	waitpid(pid, &status, 0);
	snprintf(complete, sizeof(complete), "%s-complete/%s", dir, output);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 && cli_size(complete) == cli_size(name);
}

/* 7. SIGINT, SIGTERM and SIGHUP in the middle of develop, convert and run: nothing is left behind. */
TEST(files_signals_leave_no_files)
{
	static const char *const develop[] = { "develop", "../big.raw", "--size", "2048x1536", "--format", "SRGGB16",
					       "-o", "out.png", NULL };
	static const char *const convert[] = { "convert", "../big.raw", "--size", "2048x1536", "--format", "SRGGB16",
					       "-o", "out.dng", NULL };
	static const char *const run[] = { "run", "--frames", "400", "--quiet", "-o", "out.y4m", "--metadata",
					   "out.jsonl", "--png", "out.png", NULL };
	static const char *const *const commands[] = { develop, convert, run };
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
	/* Hidden names (file systems without O_TMPFILE) for every pair; unnamed files for three. */
	static const char *const envs[] = { "CISP_NAMED_TEMP_FILES=1", NULL };

	make_folder("signals");
	make_dump("signals/big.raw", 2048, 1536);
	for (int e = 0; e < 2; e++)
		for (int c = 0; c < 3; c++)
			for (int s = 0; s < 3; s++) {
				char dir[64], left[256];
				int status;

				if (e == 1 && s != c)
					continue;
				snprintf(dir, sizeof(dir), "signals/%s-%d-%d", commands[c][0], e, s);
				status = signal_midway(dir, envs[e], commands[c], signals[s]);
				/* It may have ended (or been killed) after its output was whole: nothing to check then. */
				if ((WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 0)) &&
				    entries(dir) != 0 && finished_before_signal(dir, commands[c])) {
					printf("    %s: the whole output was in place before the signal came\n", dir);
					continue;
				}
				/* Killed by the signal itself (its default action, after the cleanup). */
				if (!WIFSIGNALED(status) || WTERMSIG(status) != signals[s])
					test_fail(__FILE__, __LINE__, "%s: status 0x%x, not killed by signal %d", dir,
						  status, signals[s]);
				if (entries(dir) != 0)
					test_fail(__FILE__, __LINE__, "%s: %d files left behind:%s", dir, entries(dir),
						  names(dir, left, sizeof(left)));
			}
}

/* 8. A full disk (a file size limit here): an error, and no output, whole or partial. */
TEST(files_full_disk_leaves_nothing)
{
	make_folder("full");
	make_dump("full/big.raw", 1024, 768);
	CHECK_EQ(cli_sh("cd full && ulimit -f 256 && \"$CISP\" convert big.raw --size 1024x768 --format SRGGB16 "
			"-o out.dng"),
		 1);
	CHECK(strstr(cli_output, "cisp convert: out.dng: Write error") != NULL);
	CHECK_EQ(cli_sh("cd full && ulimit -f 256 && \"$CISP\" develop big.raw --size 1024x768 --format SRGGB16 "
			"-o out.ppm --depth 16"),
		 1);
	CHECK(strstr(cli_output, "cisp develop: out.ppm: write failed: File too large") != NULL);
	CHECK_EQ(entries("full"), 1);
	/* With room, the same commands work. */
	CHECK_EQ(cli_run("convert full/big.raw --size 1024x768 --format SRGGB16 -o full/out.dng"), 0);
	CHECK(cli_size("full/out.dng") > 1024 * 768 * 2);
}

/* 9. Every writer keeps an existing file unless --force. */
TEST(files_existing_files_are_kept)
{
	static const char yaml[] = "wb:\n  gain: [2, 1, 1, 1.5]\n";
	static const char *const files[] = { "keep/p.bin", "keep/p.yaml", "keep/dm.png", "keep/v.y4m", "keep/last.png",
					     "keep/last.dng", "keep/log.jsonl", "keep/r.json" };

	make_folder("keep");
	make_mosaic("keep/m.png");
	cli_write("keep/in.yaml", yaml, sizeof(yaml) - 1);
	CHECK_EQ(cli_run("params encode keep/in.yaml keep/in.bin"), 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		cli_write(files[i], "old\n", 4);

	CHECK_EQ(cli_run("params encode keep/in.yaml keep/p.bin"), 1);
	CHECK(strstr(cli_output, "keep/p.bin exists (use --force to replace it)") != NULL);
	CHECK_EQ(cli_run("params decode keep/in.bin -o keep/p.yaml"), 1);
	CHECK(strstr(cli_output, "keep/p.yaml exists (use --force to replace it)") != NULL);
	CHECK_EQ(cli_run("demosaic keep/m.png keep/dm.png"), 1);
	CHECK(strstr(cli_output, "keep/dm.png exists (use --force to replace it)") != NULL);
	CHECK_EQ(cli_run("run --camera virtual:cisp-test --frames 2 --quiet -o keep/v.y4m"), 1);
	CHECK(strstr(cli_output, "keep/v.y4m exists (use --force to replace it)") != NULL);
	CHECK_EQ(cli_run("run --camera virtual:cisp-test --frames 2 --quiet --png keep/last.png"), 1);
	CHECK_EQ(cli_run("run --camera virtual:cisp-test --frames 2 --quiet --save-raw keep/last.dng"), 1);
	CHECK_EQ(cli_run("run --camera virtual:cisp-test --frames 2 --quiet --metadata keep/log.jsonl"), 1);
	CHECK(strstr(cli_output, "keep/log.jsonl exists (use --force to replace it)") != NULL);
	CHECK_EQ(cli_run("iq --3a-frames 0 --json keep/r.json"), 1);
	CHECK(strstr(cli_output, "keep/r.json exists (use --force to replace it)") != NULL);
	CHECK_EQ(cli_run("conform --profile video-conferencing --no-iq --json keep/r.json"), 1);
	CHECK(strstr(cli_output, "keep/r.json exists (use --force to replace it)") != NULL);
	CHECK_EQ(cli_run("conform --generate keep"), 1);
	CHECK(strstr(cli_output, "keep holds files already (use --force to replace the vectors in it)") != NULL);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (!same_text(files[i], "old\n"))
			test_fail(__FILE__, __LINE__, "%s was replaced", files[i]);

	/* With --force they are replaced. */
	CHECK_EQ(cli_run("params encode keep/in.yaml keep/p.bin --force"), 0);
	CHECK_EQ(cli_size("keep/p.bin"), cli_size("keep/in.bin"));
	CHECK_EQ(cli_run("params decode keep/in.bin -o keep/p.yaml --force"), 0);
	CHECK_EQ(cli_run("demosaic --force keep/m.png keep/dm.png"), 0);
	CHECK_EQ(cli_run("run --camera virtual:cisp-test --frames 2 --quiet --force -o keep/v.y4m --png keep/last.png "
			 "--save-raw keep/last.dng --metadata keep/log.jsonl"),
		 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) - 1; i++)
		if (cli_size(files[i]) <= 4)
			test_fail(__FILE__, __LINE__, "%s was not replaced", files[i]);
}

/* 9. No output replaces an input of the same command, even with --force: same name, hard link, symbolic link. */
TEST(files_inputs_are_never_replaced)
{
	static const char yaml[] = "wb:\n  gain: [2, 1, 1, 1.5]\n";
	long long size;

	make_folder("self");
	make_mosaic("self/m.png");
	make_dump("self/d.raw", 64, 48);
	cli_write("self/p.yaml", yaml, sizeof(yaml) - 1);
	size = cli_size("self/m.png");
	CHECK_EQ(link(cli_tmp("self/m.png"), cli_tmp("self/hard.png")), 0);
	CHECK_EQ(symlink("m.png", cli_tmp("self/soft.png")), 0);

	CHECK_EQ(cli_run("develop self/m.png -o self/m.png --force"), 1);
	CHECK(strstr(cli_output, "self/m.png is the input self/m.png (the same file); an output never replaces an "
				 "input, even with --force") != NULL);
	CHECK_EQ(cli_run("develop self/m.png -o self/hard.png --force"), 1);
	CHECK(strstr(cli_output, "self/hard.png is the input self/m.png") != NULL);
	CHECK_EQ(cli_run("develop self/m.png -o self/soft.png --force"), 1);
	CHECK_EQ(cli_run("develop self/d.raw %s --params self/p.yaml -o self/p.yaml --force", dump_args), 1);
	CHECK(strstr(cli_output, "self/p.yaml is the input self/p.yaml") != NULL);
	CHECK_EQ(cli_run("demosaic --force self/m.png self/m.png"), 1);
	CHECK_EQ(cli_run("convert self/d.raw %s -o self/d.dng", dump_args), 0);
	CHECK_EQ(cli_run("convert self/d.dng -o self/d.dng --force"), 1);
	CHECK_EQ(cli_run("params encode self/p.yaml self/p.yaml --force"), 1);
	CHECK_EQ(cli_sh("cp %s/data/tuning/cisp-test.yaml self/t.yaml", CISP_SOURCE_DIR), 0);
	CHECK_EQ(cli_run("run --camera virtual:cisp-test --frames 2 --quiet --tuning self/t.yaml --force --metadata "
			 "self/t.yaml"),
		 1);
	CHECK(strstr(cli_output, "self/t.yaml is the input self/t.yaml") != NULL);
	CHECK_EQ(cli_size("self/m.png"), size);
	CHECK(same_text("self/p.yaml", yaml));
}

/* 10. FIFOs, folders and devices given as inputs fail at once with what they are; none blocks. */
TEST(files_inputs_must_be_regular_files)
{
	static const char *const commands[] = {
		"develop in/fifo -o in/a.png",
		"develop in/fifo --size 4x4 --format SRGGB8 -o in/b.png",
		"develop in/d.raw --size 64x48 --format SRGGB16 --params in/fifo -o in/c.png",
		"convert in/fifo -o in/d.dng",
		"demosaic in/fifo in/e.png",
		"params decode in/fifo",
		"params validate in/fifo",
		"params encode in/fifo in/f.bin",
		"run --camera virtual:cisp-test --frames 2 --quiet --tuning in/fifo",
		"run --camera virtual:cisp-test --frames 2 --quiet --scene in/fifo",
		"develop in/d.raw --size 64x48 --format SRGGB16 --vendor in/fifo -o in/h.png",
		"info --trusted-vendor in/fifo",
	};

	make_folder("in");
	make_dump("in/d.raw", 64, 48);
	CHECK_EQ(mkfifo(cli_tmp("in/fifo"), 0666), 0);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		/* A command that blocks in open() is stopped by timeout (status 124). */
		int status = cli_sh("timeout 60 \"$CISP\" %s", commands[i]);

		if (status != 1 || !strstr(cli_output, "in/fifo: not a regular file (a FIFO)"))
			test_fail(__FILE__, __LINE__, "%s: status %d, %s", commands[i], status, cli_output);
	}
	CHECK_EQ(cli_sh("CISP_CAMERA_CONFIG=in/fifo timeout 60 \"$CISP\" list"), 1);
	CHECK(strstr(cli_output, "in/fifo: not a regular file (a FIFO)") != NULL);
	CHECK_EQ(cli_run("develop in -o in/g.png"), 1);
	CHECK(strstr(cli_output, "in: not a regular file (a directory)") != NULL);
	CHECK_EQ(cli_run("params validate /dev/zero"), 1);
	CHECK(strstr(cli_output, "/dev/zero: not a regular file (a character device)") != NULL);
	CHECK_EQ(entries("in"), 2);
}

/* 11. Empty and too short params files: the same answer from validate, decode, encode and develop --params. */
TEST(files_params_files_one_rule)
{
	static const struct {
		const char *name, *text, *message;
	} files[] = {
		{ "empty.yaml", "", "the file is empty" },
		{ "comments.yaml", "# nothing yet\n\n   \n", "the file is empty" },
		{ "short.bin", "CISP\x01", "params buffer of 5 bytes is shorter than its 16-byte header" },
		{ "piece.bin", "CI", "params buffer of 2 bytes is shorter than its 16-byte header" },
	};

	make_folder("rule");
	make_dump("rule/d.raw", 64, 48);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char name[64];
		const char *commands[] = { "params validate rule/%s", "params decode rule/%s",
					   "develop rule/d.raw --size 64x48 --format SRGGB16 --params rule/%s -o rule/x.png" };

		snprintf(name, sizeof(name), "rule/%s", files[i].name);
		cli_write(name, files[i].text, strlen(files[i].text));
		for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++) {
			char cmd[256];
			int status;

			snprintf(cmd, sizeof(cmd), commands[c], files[i].name);
			status = cli_run("%s", cmd);
			if (status != 1 || !strstr(cli_output, name) || !strstr(cli_output, files[i].message))
				test_fail(__FILE__, __LINE__, "%s: status %d, %s", cmd, status, cli_output);
		}
	}
	CHECK_EQ(cli_run("params encode rule/empty.yaml rule/out.bin"), 1);
	CHECK(strstr(cli_output, "rule/empty.yaml: the file is empty") != NULL);
	/* An explicit empty YAML mapping is a params buffer with no blocks, valid everywhere. */
	cli_write("rule/none.yaml", "{}\n", 3);
	CHECK_EQ(cli_run("params validate rule/none.yaml"), 0);
	CHECK(strstr(cli_output, "valid, 16 bytes") != NULL);
	CHECK_EQ(cli_run("develop rule/d.raw --size 64x48 --format SRGGB16 --params rule/none.yaml -o rule/y.png"), 0);
	CHECK(!cli_exists("rule/x.png") && !cli_exists("rule/out.bin"));
}


/* cisp @argv, run in the folder @dir, refused at CISP_MAX_MEMORY=@bytes: exit 1 and the message. */
static bool refused_at(const char *dir, const char *const argv[], long long bytes)
{
	char cmd[512];
	size_t n = 0;

	for (int i = 0; argv[i]; i++)
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, " %s", argv[i]);
	return cli_sh("cd %s && CISP_MAX_MEMORY=%lld \"$CISP\"%s", dir, bytes, cmd) == 1 &&
	       strstr(cli_output, "CISP_MAX_MEMORY=");
}

#if !TEST_SANITIZED
/* The peak memory of a finished child, in bytes. */
static long long child_peak(const char *dir, const char *const argv[], int *status)
{
	struct rusage ru;
	pid_t pid = cli_spawn(dir, NULL, argv);

	if (wait4(pid, status, 0, &ru) != pid)
		return -1;
	return (long long)ru.ru_maxrss * 1024;
}

/* Each estimate covers the measured peak (so a limit at the peak refuses) and is under twice it. */
static void estimates_cover_peaks(void)
{
	static const char *const develop[] = { "develop", "d.raw", "--size", "64x48", "--format", "SRGGB16",
					       "--output-size", "2048x1536", "-o", "out.jpg", "--force", NULL };
	static const char *const run[] = { "run", "--camera", "virtual:cisp-test", "--frames", "3", "--quiet",
					   "--size", "1280x960", "--png", "out.png", "--force", NULL };
	static const char *const demosaic[] = { "demosaic", "--force", "m.pgm", "out.ppm", NULL };
	static const char *const *const commands[] = { develop, run, demosaic };

	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++) {
		int status = -1;
		long long peak = child_peak(cli_tmp("mem"), commands[c], &status);

		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		if (!refused_at("mem", commands[c], peak))
			test_fail(__FILE__, __LINE__, "%s: not refused at its measured peak of %lld bytes", commands[c][0],
				  peak);
		if (refused_at("mem", commands[c], 2 * peak))
			test_fail(__FILE__, __LINE__, "%s: refused at twice its measured peak of %lld bytes",
				  commands[c][0], peak);
	}
}
#endif

/* 15. A command's memory is bounded: its estimate is refused over the limit, and it covers what is used. */
TEST(files_memory_is_bounded)
{
	static const char *const small[] = { "develop", "d.raw", "--size", "64x48", "--format", "SRGGB16", "-o", "x.png",
					     NULL };
	struct cisp_raster r;

	make_folder("mem");
	make_dump("mem/d.raw", 64, 48);
	CHECK_EQ(cisp_raster_alloc(&r, 1024, 768, 1, 1023), 0);
	CHECK_EQ(cisp_raster_write(cli_tmp("mem/m.pgm"), &r), 0);
	cisp_raster_free(&r);

	/* The review's case: a 6 KB dump to 16384x16384 is refused before anything is allocated. */
	CHECK_EQ(cli_run("develop mem/d.raw %s --output-size '16384x16384!' -o mem/huge.png", dump_args), 1);
	CHECK(strstr(cli_output, "mem/d.raw: developing 64x48 to 16384x16384 RGB24 needs about ") != NULL);
	CHECK(strstr(cli_output, "MiB of memory, over the limit of 2048 MiB (CISP_MAX_MEMORY=") != NULL);
	CHECK_EQ(cli_run("run --size 16384x16384 --frames 2 --quiet"), 1);
	CHECK(strstr(cli_output, "over the limit of 2048 MiB") != NULL);
	CHECK_EQ(cli_sh("CISP_MAX_MEMORY=lots \"$CISP\" develop mem/d.raw %s -o mem/x.png", dump_args), 2);
	CHECK(strstr(cli_output, "CISP_MAX_MEMORY=lots is not a size") != NULL);
	CHECK(refused_at("mem", small, 1 << 20));
	CHECK_EQ(cli_sh("cd mem && CISP_MAX_MEMORY=64M \"$CISP\" develop d.raw %s -o x.png", dump_args), 0);
	CHECK(cli_exists("mem/x.png") && !cli_exists("mem/huge.png"));

#if TEST_SANITIZED
	test_skip("peak memory is not measured under a sanitizer (its shadow memory counts)");
#else
	estimates_cover_peaks();
#endif
}

/* 14. Names from files, devices and the command line are printed with their control characters escaped. */
TEST(files_names_printed_escaped)
{
	static const char config[] = "version: 1\n"
				     "cameras:\n"
				     "  - name: \"evil\\e[31mred\\x07\"\n"
				     "    sensor: virtual:cisp-test\n"
				     "    description: \"title\\e]0;owned\\x07 \\u009b2J\"\n";

	cli_write("cameras.yaml", config, sizeof(config) - 1);
	CHECK_EQ(cli_sh("CISP_CAMERA_CONFIG=cameras.yaml \"$CISP\" list"), 0);
	CHECK(strstr(cli_output, "evil\\x1b[31mred\\x07\n") != NULL);
	CHECK(strstr(cli_output, "title\\x1b]0;owned\\x07 \\xc2\\x9b2J") != NULL);
	CHECK_EQ(cli_sh("\"$CISP\" develop \"$(printf 'bad\\033[2J.dng')\" -o never.png"), 1);
	CHECK(strstr(cli_output, "bad\\x1b[2J.dng") != NULL);
	for (const unsigned char *p = (const unsigned char *)cli_output; *p; p++)
		if ((*p < 0x20 && *p != '\n') || *p == 0x7f) {
			test_fail(__FILE__, __LINE__, "control character 0x%02x printed", *p);
			break;
		}
}
