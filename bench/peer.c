/* SPDX-License-Identifier: MIT */
/*
 * The benchmarks' yardstick (peer.h): the peer program runs as a child
 * process with its stdin and stdout on two pipes; it reads the mosaic from
 * a temporary file once, then times one demosaic per "run" line it is sent.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cisp/error.h>
#include <cisp/format.h>

#include "isp/unpack.h"
#include "peer.h"

extern char **environ;

struct bench_peer {
	pid_t pid;
	FILE *to;   /* the peer's stdin */
	FILE *from; /* the peer's stdout, unbuffered so that poll() on it tells the truth */
	double slowest; /* the longest a "run" took to be answered, seconds */
	char name[160];
};

/* How long the peer may take to read the mosaic, and at least to answer a "run". */
#define PEER_START_MS 60000
#define PEER_RUN_MS 5000

/* Whether the peer has written within @ms milliseconds: one that hangs must not hang the benchmark. */
static bool answers(const struct bench_peer *p, int ms)
{
	struct pollfd pfd = { .fd = fileno(p->from), .events = POLLIN };
	int n;

	do
		n = poll(&pfd, 1, ms);
	while (n < 0 && errno == EINTR);
	return n > 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const char *cfa_name(enum cisp_cfa cfa)
{
	static const char *const names[] = { "RGGB", "GRBG", "GBRG", "BGGR" };

	return (unsigned)cfa < 4 ? names[cfa] : "RGGB";
}

/* The mosaic as 16-bit samples into a new temporary file; its name in @path. */
static int write_mosaic(const struct cisp_image *bayer, char *path, size_t size)
{
	const int w = (int)bayer->width, h = (int)bayer->height;
	const char *dir = getenv("TMPDIR");
	uint16_t *rows = malloc((size_t)w * h * sizeof(*rows));
	int fd, ret = 0;
	FILE *f;

	if (!rows)
		return cisp_error(-ENOMEM, "out of memory for the peer's mosaic");
	cisp_unpack_rows(bayer, &(struct plane16){ rows, w, 0, w, h }, 0, h);
	snprintf(path, size, "%s/cisp-bench-peer-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!f || fwrite(rows, sizeof(*rows), (size_t)w * h, f) != (size_t)w * h)
		ret = cisp_error(-errno ? -errno : -EIO, "%s: cannot write the peer's mosaic: %s", path, strerror(errno));
	if (f && fclose(f) && !ret)
		ret = cisp_error(-EIO, "%s: cannot write the peer's mosaic", path);
	if (!f && fd >= 0)
		close(fd);
	if (ret && fd >= 0)
		unlink(path);
	free(rows);
	return ret;
}

#ifdef CISP_BENCH_PEER_BUILT
/*
 * The build's peer, found from where this program is (build/tools/cisp and
 * build/bench/ both reach build/bench/), so that no path of the checkout is
 * written into the program; an installed cisp has no peer beside it.
 */
static const char *built_peer(void)
{
	static char path[4200];
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	if ((size_t)snprintf(path, sizeof(path), "%s/../bench/cisp-bench-peer-opencv", exe) >= sizeof(path))
		return NULL;
	return access(path, X_OK) == 0 ? path : NULL;
}
#endif

/* The program: $CISP_BENCH_PEER, else the build's; NULL (and why in @why) for none. */
static const char *peer_program(const char **why)
{
	const char *env = getenv("CISP_BENCH_PEER");

	if (env) {
		*why = "CISP_BENCH_PEER is empty";
		return *env ? env : NULL;
	}
#ifdef CISP_BENCH_PEER_BUILT
	const char *built = built_peer();

	if (built)
		return built;
	*why = "no bench/cisp-bench-peer-opencv beside this program (an installed cisp has none: "
	       "set CISP_BENCH_PEER to the program)";
#else
	*why = "this build found no OpenCV (install libopencv-imgproc-dev, reconfigure; or set CISP_BENCH_PEER)";
#endif
	return NULL;
}

static void absent(const char *why)
{
	fprintf(stderr, "\n*** NO PEER: %s.\n*** The figures below have no ratio to OpenCV's demosaic.\n\n", why);
}

int bench_peer_start(struct bench_peer **peer, const struct cisp_image *bayer)
{
	const struct cisp_format_info *f = cisp_format_info(bayer->format);
	const char *why = NULL, *program = peer_program(&why);
	char path[4096], width[16], height[16], line[160], message[4400];
	int in[2] = { -1, -1 }, out[2] = { -1, -1 };
	posix_spawn_file_actions_t fa;
	struct bench_peer *p;
	int ret;

	*peer = NULL;
	/* A peer that dies makes the next write fail (EPIPE) instead of ending this process. */
	signal(SIGPIPE, SIG_IGN);
	if (!program) {
		absent(why);
		return 0;
	}
	if (!f || f->kind != CISP_KIND_BAYER) {
		absent("the input is not a Bayer frame");
		return 0;
	}
	if (!(p = calloc(1, sizeof(*p))))
		return cisp_error(-ENOMEM, "out of memory for the peer");
	if ((ret = write_mosaic(bayer, path, sizeof(path)))) {
		free(p);
		return ret;
	}
	snprintf(width, sizeof(width), "%u", bayer->width);
	snprintf(height, sizeof(height), "%u", bayer->height);
	if (pipe(in) || pipe(out)) {
		ret = cisp_error(-errno, "pipe: %s", strerror(errno));
		goto fail;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_addclose(&fa, in[1]);
	posix_spawn_file_actions_addclose(&fa, out[0]);
	ret = posix_spawn(&p->pid, program, &fa, NULL,
			  (char *[]){ (char *)program, path, width, height, (char *)cfa_name(f->cfa), NULL }, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	in[0] = out[1] = -1;
	if (ret) {
		snprintf(message, sizeof(message), "%s does not start: %s", program, strerror(ret));
		absent(message);
		ret = 0;
		goto fail;
	}
	/* Each descriptor belongs to its stream from here on. */
	if ((p->to = fdopen(in[1], "w")))
		in[1] = -1;
	if ((p->from = fdopen(out[0], "r"))) {
		out[0] = -1;
		setvbuf(p->from, NULL, _IONBF, 0);
	}
	if (!p->to || !p->from) {
		ret = cisp_error(-ENOMEM, "out of memory for the peer's pipes");
		goto fail;
	}
	/* Its first line comes once it has read the mosaic. */
	if (!answers(p, PEER_START_MS) || !fgets(line, sizeof(line), p->from) || strncmp(line, "peer ", 5)) {
		snprintf(message, sizeof(message), "%s failed on the frame (its message above)", program);
		absent(message);
		goto fail;
	}
	line[strcspn(line, "\n")] = 0;
	snprintf(p->name, sizeof(p->name), "%s", line + 5);
	unlink(path);
	*peer = p;
	return 0;

fail:
	unlink(path);
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
	}
	bench_peer_stop(p);
	return ret;
}

int bench_peer_time(struct bench_peer *peer, int threads, double *seconds, double *cpu_seconds)
{
	char line[128];
	double wall, cpu;

	/* Five seconds, or twenty times its slowest answer so far. */
	double limit = peer ? (20 * peer->slowest > PEER_RUN_MS / 1000.0 ? 20 * peer->slowest : PEER_RUN_MS / 1000.0) : 0;
	double asked = now();

	if (!peer || !peer->to)
		return cisp_error(-EPIPE, "the peer is not running");
	if (fprintf(peer->to, "run %d\n", threads) < 0 || fflush(peer->to) || !answers(peer, (int)(limit * 1000)) ||
	    !fgets(line, sizeof(line), peer->from) || sscanf(line, "time %lf %lf", &wall, &cpu) != 2) {
		bool hung = now() - asked >= limit;

		fclose(peer->to);
		peer->to = NULL;
		if (hung)
			kill(peer->pid, SIGKILL);
		if (hung)
			return cisp_error(-EPIPE, "the peer (%s) gave no answer within %.0f s", peer->name, limit);
		return cisp_error(-EPIPE, "the peer (%s) stopped answering", peer->name);
	}
	if (now() - asked > peer->slowest)
		peer->slowest = now() - asked;
	*seconds = wall;
	if (cpu_seconds)
		*cpu_seconds = cpu;
	return 0;
}

const char *bench_peer_name(const struct bench_peer *peer)
{
	return peer ? peer->name : "none";
}

void bench_peer_stop(struct bench_peer *peer)
{
	if (!peer)
		return;
	/* End of its input ends it. */
	if (peer->to)
		fclose(peer->to);
	if (peer->from)
		fclose(peer->from);
	if (peer->pid > 0)
		waitpid(peer->pid, NULL, 0);
	free(peer);
}

/*
 * The value of the first line of @path whose name is @key (the text before its ':', less trailing
 * blanks: "model" is not "model name"), or of the first line when @key is NULL.
 */
static void read_value(const char *path, const char *key, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	char line[512];

	snprintf(buf, size, "unknown");
	while (f && fgets(line, sizeof(line), f)) {
		const char *v = line;

		if (key) {
			if (strncmp(line, key, strlen(key)) || !(v = strchr(line, ':')) ||
			    strspn(line + strlen(key), " \t") != (size_t)(v - line) - strlen(key))
				continue;
			v += 1 + strspn(v + 1, " \t");
		}
		snprintf(buf, size, "%.*s", (int)strcspn(v, "\n"), v);
		break;
	}
	if (f)
		fclose(f);
}

void bench_cpu_model(char *buf, size_t size)
{
	char name[256], family[32], model[32], stepping[32];

	/*
	 * Virtual machines often name only the vendor ("AMD EPYC"), under which cores of different
	 * vector units hide; the family, model and stepping tell them apart.
	 */
	read_value("/proc/cpuinfo", "model name", name, sizeof(name));
	read_value("/proc/cpuinfo", "cpu family", family, sizeof(family));
	read_value("/proc/cpuinfo", "model", model, sizeof(model));
	read_value("/proc/cpuinfo", "stepping", stepping, sizeof(stepping));
	if (!strcmp(family, "unknown"))
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "%s, family %s model %s stepping %s", name, family, model, stepping);
}

void bench_loadavg(char *buf, size_t size)
{
	char line[128];
	double a[3];

	read_value("/proc/loadavg", NULL, line, sizeof(line));
	/* The three averages, not the task counts after them. */
	if (sscanf(line, "%lf %lf %lf", &a[0], &a[1], &a[2]) == 3)
		snprintf(buf, size, "%.2f %.2f %.2f", a[0], a[1], a[2]);
	else
		snprintf(buf, size, "unknown");
}
