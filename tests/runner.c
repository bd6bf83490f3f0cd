/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/image.h>
#include <cisp/params_state.h>

#include "test.h"
#ifdef CISP_VULKAN_BUILT
#include "device/vulkan_gpu.h"
#endif

#define MAX_TESTS 2048

static struct {
	const char *name;
	test_fn fn;
} tests[MAX_TESTS];
static int n_tests;

static int failures_in_test;
static bool skipped_in_test;
static uint64_t rng_state;

void test_register(const char *name, test_fn fn)
{
	if (n_tests == MAX_TESTS) {
		fprintf(stderr, "too many tests (raise MAX_TESTS)\n");
		exit(2);
	}
	tests[n_tests].name = name;
	tests[n_tests].fn = fn;
	n_tests++;
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (failures_in_test++ >= 20)
		return; /* enough to diagnose */
	fprintf(stdout, "    %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

void test_skip(const char *fmt, ...)
{
	va_list ap;

	skipped_in_test = true;
	fprintf(stdout, "    SKIPPED: ");
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

const char *test_data_dir(void)
{
	static char path[4096];
	const char *env = getenv("CISP_TEST_DATA");
	struct stat st;

	snprintf(path, sizeof(path), "%s", env ? env : CISP_SHARED_DATA);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return path;
	return NULL;
}

const char *test_tmp_dir(void)
{
	static char path[256];

	if (!path[0]) {
		snprintf(path, sizeof(path), "%s/cisp-test-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!mkdtemp(path)) {
			perror("mkdtemp");
			exit(2);
		}
	}
	return path;
}

char *test_read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	long n = 0;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (text = malloc((size_t)n + 1)) && fread(text, 1, (size_t)n, f) != (size_t)n) {
		free(text);
		text = NULL;
	}
	if (text)
		text[n] = '\0';
	fclose(f);
	return text;
}

int test_run_cisp(const char *args, char *out, size_t size)
{
	char cmd[4096];
	size_t len = 0;
	FILE *p;
	int status;

	snprintf(cmd, sizeof(cmd), "%s/tools/cisp %s 2>&1", CISP_BUILD_DIR, args);
	if (!(p = popen(cmd, "r")))
		return -1;
	while (len + 1 < size && fgets(out + len, (int)(size - len), p))
		len += strlen(out + len);
	out[len] = 0;
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool test_comma_locale_begin(void)
{
	char dir[600], cmd[2600];

	snprintf(dir, sizeof(dir), "%s/locale", test_tmp_dir());
	snprintf(cmd, sizeof(cmd), "test -d '%s/de_DE.UTF-8' || { mkdir -p '%s' && localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' >/dev/null 2>&1; }",
		 dir, dir, dir);
	if (system(cmd) != 0) {
		test_skip("cannot build the de_DE locale (localedef and Debian's 'locales' package)");
		return false;
	}
	setenv("LOCPATH", dir, 1);
	if (!setlocale(LC_NUMERIC, "de_DE.UTF-8")) {
		test_skip("the de_DE locale built in %s does not load", dir);
		unsetenv("LOCPATH");
		return false;
	}
	return true;
}

void test_comma_locale_end(void)
{
	setlocale(LC_NUMERIC, "C");
	unsetenv("LOCPATH");
}

uint64_t test_rand(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

/*
 * A test's seed from its name (FNV-1a), never 0: the same numbers whatever
 * other tests there are or which of them run.
 */
static uint64_t seed_of(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *name; name++)
		h = (h ^ (uint8_t)*name) * 0x100000001b3ULL;
	return h ? h : 1;
}

static bool selected(const char *name, int argc, char **argv)
{
	if (argc < 2)
		return true;
	for (int i = 1; i < argc; i++)
		if (strstr(name, argv[i]))
			return true;
	return false;
}

static double now_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* CPU seconds of this process and of the children it has waited for (the commands tests run). */
static double cpu_seconds(void)
{
	struct rusage self, children;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &children);
	return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + children.ru_utime.tv_sec +
			children.ru_stime.tv_sec) +
	       (self.ru_utime.tv_usec + self.ru_stime.tv_usec + children.ru_utime.tv_usec + children.ru_stime.tv_usec) /
		       1e6;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!test_data_dir())
		printf("WARNING: shared test data not found at %s (set CISP_TEST_DATA); tests that need it are "
		       "SKIPPED\n",
		       CISP_SHARED_DATA);
	/* CISP_TEST_SHARD=K/N: every N-th selected test from the K-th, so that N processes share the suite. */
	unsigned shard = 0, shards = 1, index = 0;
	const char *shard_env = getenv("CISP_TEST_SHARD");

	if (shard_env && (sscanf(shard_env, "%u/%u", &shard, &shards) != 2 || shards == 0 || shard >= shards)) {
		fprintf(stderr, "CISP_TEST_SHARD=%s: expected K/N with K < N\n", shard_env);
		return 2;
	}
	for (int i = 0; i < n_tests; i++) {
		if (!selected(tests[i].name, argc, argv) || index++ % shards != shard)
			continue;
		failures_in_test = 0;
		skipped_in_test = false;
		rng_state = seed_of(tests[i].name);
		cisp_clear_error();
		printf("%s\n", tests[i].name);
		double start = now_seconds(), cpu_start = cpu_seconds();
		tests[i].fn();
		/* The slow ones say so: the suite has a time budget in CI. CPU time moves less with the load. */
		double took = now_seconds() - start;
		if (took >= 1.0)
			printf("  (%.1f s, %.1f s of CPU)\n", took, cpu_seconds() - cpu_start);
		if (failures_in_test) {
			printf("  FAIL %s (%d failed checks)\n", tests[i].name, failures_in_test);
			failed++;
		} else if (skipped_in_test) {
			skipped++;
		} else {
			passed++;
		}
	}
	if (skipped)
		printf("%d skipped (see SKIPPED lines above)\n", skipped);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

bool test_same_pixels(const struct cisp_image *a, const struct cisp_image *b)
{
	for (unsigned p = 0; p < a->num_planes; p++) {
		size_t row, rows;

		if (cisp_image_plane_size(a->format, a->width, a->height, p, &row, &rows))
			return false;
		for (size_t y = 0; y < rows; y++)
			if (memcmp(a->plane[p].data + y * a->plane[p].stride, b->plane[p].data + y * b->plane[p].stride, row))
				return false;
	}
	return true;
}

int test_device_job(struct cisp_device *dev, const struct cisp_isp_config *cfg, const struct cisp_param_state *state,
		    struct cisp_job *job)
{
	struct cisp_context *ctx = NULL;
	struct cisp_fence *fence = NULL;
	size_t size = 0;
	void *params;
	int ret;

	cisp_params_encode(state, ~0u, NULL, 0, &size);
	if (!(params = malloc(size)))
		return -ENOMEM;
	CHECK_EQ(cisp_params_encode(state, ~0u, params, size, &size), 0);
	job->params = params;
	job->params_size = size;
	ret = cisp_context_create(&ctx, dev, &(struct cisp_context_config){ .name = "test", .isp = *cfg });
	if (!ret && !(ret = cisp_job_submit(ctx, job, &fence)))
		ret = cisp_fence_wait(fence, -1) ? -EIO : cisp_fence_error(fence);
	cisp_fence_unref(fence);
	cisp_context_destroy(ctx);
	free(params);
	job->params = NULL;
	return ret;
}

int test_device_frame(struct cisp_device *dev, const struct cisp_isp_config *cfg, const struct cisp_param_state *state,
		      const struct cisp_image *in, struct cisp_image *const *out, struct cisp_stats *stats)
{
	struct cisp_job job = { .num_inputs = 1, .input = { in }, .stats = stats };

	memcpy(job.output, out, sizeof(job.output));
	return test_device_job(dev, cfg, state, &job);
}

void test_no_vulkan(const char *what, const char *why)
{
	const char *require = getenv("CISP_REQUIRE_VULKAN");

	if (require && !strcmp(require, "1"))
		test_fail(__FILE__, __LINE__, "CISP_REQUIRE_VULKAN=1 and %s", why);
	else
		test_skip("NO VULKAN DEVICE, %s NOT tested: %s", what, why);
}

#ifdef CISP_VULKAN_BUILT
struct vk_gpu *test_vulkan_gpu(const char *what)
{
	struct vk_gpu *g = NULL;

	if (!vk_gpu_open(&g))
		return g;
	test_no_vulkan(what, cisp_last_error());
	return NULL;
}
#endif
