/* SPDX-License-Identifier: MIT */
/*
 * A small test harness. A test is a function declared with TEST(name); it
 * registers itself at start-up. CHECK* macros record a failure (file, line,
 * values) and let the test go on, so one run shows every broken assertion.
 *
 * The runner (runner.c) runs every test, or those whose name contains one of
 * its arguments, and ends with the line "N passed, N failed".
 */
#ifndef CISP_TEST_H
#define CISP_TEST_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef void (*test_fn)(void);

void test_register(const char *name, test_fn fn);
/* Record a failure of the running test; prints the message. */
void test_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Mark the running test as skipped, with a reason printed loudly. */
void test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * The shared test data folder (../shared/data of the source tree) or NULL
 * when it is absent; tests that need it call test_skip() with the reason.
 */
const char *test_data_dir(void);
/* A scratch folder for files a test writes (created once per run). */
const char *test_tmp_dir(void);
/*
 * Run `cisp @args` of the build folder, its standard output and error into
 * @out (NUL-terminated, cut at @size); its exit status, or -1.
 */
int test_run_cisp(const char *args, char *out, size_t size);
/* The whole file at @path, NUL-terminated (free() it), or NULL when it cannot be read. */
char *test_read_text(const char *path);
/*
 * Switch LC_NUMERIC to a German locale (decimal comma), built with localedef
 * into the scratch folder, as GStreamer applications set the user's. Returns
 * false, after test_skip(), when it cannot be built or loaded.
 */
bool test_comma_locale_begin(void);
/* Back to the "C" numeric locale. */
void test_comma_locale_end(void);
struct cisp_image;
/* Whether images @a and @b, of one format and size, have the same pixels (strides may differ). */
bool test_same_pixels(const struct cisp_image *a, const struct cisp_image *b);
/*
 * No Vulkan device (@why) for the tests of @what: a failure where CI requires
 * one (CISP_REQUIRE_VULKAN=1), else a loud skip.
 */
void test_no_vulkan(const char *what, const char *why);
struct vk_gpu;
/**
 * The Vulkan device (close it with vk_gpu_close()), or NULL after
 * test_no_vulkan() for the tests of @what. Only in builds with the backend.
 */
struct vk_gpu *test_vulkan_gpu(const char *what);
struct cisp_device;
struct cisp_isp_config;
struct cisp_param_state;
struct cisp_stats;
/*
 * One frame through a new context of @dev for @cfg, with params @state
 * (encoded whole), input @in, outputs @out (CISP_MAX_OUTPUTS of them, NULL:
 * none there) and @stats: 0 or the job's error.
 */
int test_device_frame(struct cisp_device *dev, const struct cisp_isp_config *cfg, const struct cisp_param_state *state,
		      const struct cisp_image *in, struct cisp_image *const *out, struct cisp_stats *stats);
struct cisp_job;
/* The same for @job (its inputs, outputs, mode...), whose params it sets: 0 or the job's error. */
int test_device_job(struct cisp_device *dev, const struct cisp_isp_config *cfg, const struct cisp_param_state *state,
		    struct cisp_job *job);
/* Deterministic pseudo-random numbers (xorshift64*), seeded per test from its name. */
uint64_t test_rand(void);

#define TEST(name)                                                          \
	static void name(void);                                             \
	__attribute__((constructor)) static void register_##name(void)      \
	{                                                                   \
		test_register(#name, name);                                 \
	}                                                                   \
	static void name(void)

#define CHECK(cond)                                                         \
	do {                                                                \
		if (!(cond))                                                \
			test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);  \
	} while (0)

#define CHECK_EQ(a, b)                                                                           \
	do {                                                                                     \
		long long va_ = (long long)(a), vb_ = (long long)(b);                            \
		if (va_ != vb_)                                                                  \
			test_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, va_, vb_); \
	} while (0)

#define CHECK_NEAR(a, b, tol)                                                                      \
	do {                                                                                       \
		double va_ = (double)(a), vb_ = (double)(b), t_ = (double)(tol);                   \
		if (!(va_ - vb_ <= t_ && vb_ - va_ <= t_))                                         \
			test_fail(__FILE__, __LINE__, "%s ~ %s: %g vs %g (tolerance %g)", #a, #b, va_, \
				  vb_, t_);                                                        \
	} while (0)

/* The call must fail with @err and leave a message containing @needle. */
#define CHECK_ERR(call, err, needle)                                                              \
	do {                                                                                      \
		int r_ = (call);                                                                  \
		if (r_ != (err))                                                                  \
			test_fail(__FILE__, __LINE__, "%s returned %d, expected %d (%s)", #call, r_, \
				  (int)(err), cisp_last_error());                                 \
		else if (!strstr(cisp_last_error(), (needle)))                                    \
			test_fail(__FILE__, __LINE__, "%s: message '%s' lacks '%s'", #call,       \
				  cisp_last_error(), (needle));                                   \
	} while (0)

#endif
