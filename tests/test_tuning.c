/* SPDX-License-Identifier: MIT */
/*
 * Tuning files: the shipped ones parse, every kind of mistake is an error
 * naming the line and the key, broken input never crashes, the search path
 * and the uncalibrated fallback.
 */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cisp/error.h>
#include <cisp/sensor.h>
#include <cisp/tuning.h>

#include "control/tuning.h"
#include "test.h"

/* The smallest valid file: the required keys only. */
static const char minimal[] =
	"version: 1\n"                                              /* 1 */
	"sensor: mysensor\n"                                        /* 2 */
	"awb:\n"                                                    /* 3 */
	"  ct:\n"                                                   /* 4 */
	"    - {ct: 2856, r_over_g: 1.0, b_over_g: 0.4}\n"          /* 5 */
	"    - {ct: 6500, r_over_g: 0.6, b_over_g: 0.7}\n"          /* 6 */
	"ccm:\n"                                                    /* 7 */
	"  - ct: 5000\n"                                            /* 8 */
	"    matrix: [[1.5, -0.4, -0.1], [-0.2, 1.4, -0.2], [0, -0.5, 1.5]]\n" /* 9 */
	"noise:\n"                                                  /* 10 */
	"  - {gain: 1, a: [10, 10, 10, 10], b: [100, 100, 100, 100]}\n"; /* 11 */

TEST(tuning_minimal_and_defaults)
{
	struct cisp_tuning *t = NULL;

	CHECK_EQ(cisp_tuning_parse(&t, minimal, strlen(minimal), "mini.yaml"), 0);
	if (!t)
		return;
	CHECK(!strcmp(cisp_tuning_name(t), "mini.yaml"));
	CHECK(!strcmp(t->sensor, "mysensor"));
	CHECK(!t->uncalibrated);
	CHECK_EQ(t->awb.ct_count, 2);
	CHECK_NEAR(t->awb.ct[1].b_over_g, 0.7, 1e-12);
	CHECK_EQ(t->ccm_count, 1);
	CHECK_NEAR(t->ccm[0].m[2][1], -0.5, 1e-12);
	CHECK_EQ(t->lsc_count, 0);
	CHECK_EQ(t->noise_count, 1);
	/* Defaults of the optional keys. */
	CHECK(t->black_level[0] < 0);
	CHECK_NEAR(t->ae.target, 0.18, 1e-12);
	CHECK_NEAR(t->awb.default_ct, 6500, 1e-9); /* the curve's middle entry */
	CHECK_EQ(t->denoise_count, 1);
	CHECK_EQ(t->gamma, 0);
	CHECK_EQ(t->defect_threshold, 4096);
	cisp_tuning_free(t);
	/* Not NUL-terminated: only @length bytes are read. */
	{
		char *copy = malloc(sizeof(minimal) + 8);

		memcpy(copy, minimal, sizeof(minimal) - 1);
		memcpy(copy + sizeof(minimal) - 1, "foo: [[[", 8);
		CHECK_EQ(cisp_tuning_parse(&t, copy, sizeof(minimal) - 1, NULL), 0);
		cisp_tuning_free(t);
		free(copy);
	}
}

TEST(tuning_shipped_files)
{
	static const char *const models[] = { "cisp-test", "cisp-8m10", "cisp-12m12" };

	for (unsigned i = 0; i < 3; i++) {
		struct cisp_tuning *t = NULL;
		const char *name;

		CHECK_EQ(cisp_tuning_find(&t, models[i], NULL), 0);
		if (!t) {
			test_fail(__FILE__, __LINE__, "%s: %s", models[i], cisp_last_error());
			continue;
		}
		name = cisp_tuning_name(t);
		CHECK(strstr(name, models[i]) && strstr(name, ".yaml"));
		CHECK(!strcmp(t->sensor, models[i]));
		CHECK(!t->uncalibrated);
		CHECK_EQ(t->version, CISP_TUNING_VERSION);
		{
			uint32_t aw, ah;

			/* The shading tables span the model's pixel array. */
			cisp_tuning_lsc_array(t, &aw, &ah);
			CHECK(aw == t->lsc_array_width && ah == t->lsc_array_height && aw >= 16 && ah >= 16);
		}
		CHECK_EQ(t->awb.ct_count, 12);
		CHECK_EQ(t->ccm_count, 6);
		CHECK_EQ(t->lsc_count, 1);
		CHECK(t->lsc_array_width > 0);
		CHECK(t->noise_count >= 5);
		CHECK(t->noise[t->noise_count - 1].a[0] > t->noise[0].a[0]);
		CHECK(t->denoise_count >= 1);
		CHECK(t->black_level[0] > 0);
		/* The curve runs from warm (red-heavy) to cool (blue-heavy). */
		CHECK(t->awb.ct[0].r_over_g > t->awb.ct[11].r_over_g);
		CHECK(t->awb.ct[0].b_over_g < t->awb.ct[11].b_over_g);
		/* Shading gains grow from the centre to the corners. */
		CHECK(t->lsc[0].gain[0][0] > 1.5f);
		CHECK_NEAR(t->lsc[0].gain[1][8 * 17 + 8], 1.0, 0.01);
		cisp_tuning_free(t);
	}
}

/* Replace lines @first..@last (1-based) of the minimal file by @text (which may hold several lines). */
static char *edit_lines(unsigned first, unsigned last, const char *text)
{
	char *out = malloc(sizeof(minimal) + strlen(text) + 8), *o = out;
	const char *p = minimal;

	for (unsigned l = 1; *p; l++) {
		const char *e = strchr(p, '\n') + 1;

		if (l == first && *text)
			o += sprintf(o, "%s\n", text);
		else if (l < first || l > last) {
			memcpy(o, p, (size_t)(e - p));
			o += e - p;
		}
		p = e;
	}
	*o = '\0';
	return out;
}

static char *edit(unsigned line, const char *text)
{
	return edit_lines(line, line, text);
}

/* Lines @first..@last of the minimal file replaced: must fail with @err and a message holding @needle. */
static void bad_lines(unsigned first, unsigned last, const char *text, int err, const char *needle)
{
	struct cisp_tuning *t = NULL;
	char *doc = edit_lines(first, last, text);
	int ret = cisp_tuning_parse(&t, doc, strlen(doc), "t.yaml");

	if (ret != err)
		test_fail(__FILE__, __LINE__, "'%s': returned %d, expected %d (%s)", text, ret, err, cisp_last_error());
	else if (!strstr(cisp_last_error(), needle))
		test_fail(__FILE__, __LINE__, "'%s': message '%s' lacks '%s'", text, cisp_last_error(), needle);
	CHECK(!t || ret == 0);
	cisp_tuning_free(t);
	free(doc);
}

static void bad(unsigned line, const char *text, int err, const char *needle)
{
	bad_lines(line, line, text, err, needle);
}

TEST(tuning_errors_name_line_and_key)
{
	/* Unknown keys, at the top and inside. */
	bad(2, "sensor: mysensor\nfoo: 1", -EINVAL, "t.yaml:3: foo: unknown key");
	bad(5, "    - {ct: 2856, r_over_g: 1.0, b_over_g: 0.4, g_over_r: 1}", -EINVAL,
	    "t.yaml:5: awb.ct[0].g_over_r: unknown key");
	bad(3, "awb:\n  speedy: 0.5", -EINVAL, "t.yaml:4: awb.speedy: unknown key");
	/* Out of range, with the example. */
	bad(6, "    - {ct: 6500, r_over_g: 0, b_over_g: 0.7}", -EINVAL, "t.yaml:6: awb.ct[1].r_over_g: 0 is outside 0.0625..16");
	bad(3, "awb:\n  prior_weight: 1.5", -EINVAL, "t.yaml:4: awb.prior_weight: 1.5 is outside 0..1");
	bad(11, "  - {gain: 0.5, a: [10, 10, 10, 10], b: [100, 100, 100, 100]}", -EINVAL,
	    "t.yaml:11: noise[0].gain: 0.5 is outside 1..65536");
	/* Not a number, wrong counts and shapes. */
	bad(6, "    - {ct: warm, r_over_g: 0.6, b_over_g: 0.7}", -EINVAL, "t.yaml:6: awb.ct[1].ct: 'warm' is not a number");
	bad(6, "    - {ct: nan, r_over_g: 0.6, b_over_g: 0.7}", -EINVAL, "awb.ct[1].ct: 'nan' is not a number");
	bad(2, "sensor: mysensor\nblack_level: [64, 64, 64]", -EINVAL, "t.yaml:3: black_level: must have 4 numbers");
	bad(11, "  - {gain: 1, a: [10, 10, 10, x], b: [100, 100, 100, 100]}", -EINVAL, "noise[0].a[3]: 'x' is not a number");
	bad(9, "    matrix: [[1.5, -0.4, -0.1], [-0.2, 1.4, -0.2]]", -EINVAL, "t.yaml:9: ccm[0].matrix: must be a list of 3 rows");
	bad_lines(3, 6, "awb: 5", -EINVAL, "t.yaml:3: awb: must be a mapping");
	bad(2, "sensor: [a, b]", -EINVAL, "t.yaml:2: sensor: must be text");
	bad(2, "sensor: mysensor\ndefect_threshold: 70000", -EINVAL, "t.yaml:3: defect_threshold");
	bad(2, "sensor: ../evil", -EINVAL, "sensor: '../evil' must be a plain name");
	/* Table rules. */
	bad(6, "    - {ct: 2000, r_over_g: 0.6, b_over_g: 0.7}", -EINVAL, "t.yaml:6: awb.ct[1].ct: 2000 must be above");
	bad(9, "    matrix: [[1.5, -0.4, -0.1], [-0.2, 1.4, -0.2], [0, -0.5, 1.7]]", -EINVAL,
	    "ccm[0].matrix[2]: the row sums to 1.2; it must sum to 1");
	bad(9, "    matrix: [[5, -4, 0], [-0.2, 1.4, -0.2], [0, -0.5, 1.5]]", -EINVAL,
	    "ccm[0].matrix[0]: the magnitudes add up to 9");
	bad_lines(4, 6, "  ct: []", -EINVAL, "t.yaml:4: awb.ct: must have at least one entry");
	bad(5, "    - {ct: 2856, r_over_g: 1.0}", -EINVAL, "t.yaml:5: awb.ct[0].b_over_g: missing (required)");
	bad(2, "sensor: mysensor\nsensor: other", -EINVAL, "t.yaml:3: sensor: appears twice");
	bad(2, "sensor: mysensor\ngamma: 0.5", -EINVAL, "t.yaml:3: gamma: must be 0 (the sRGB curve) or a power");
	bad(2, "sensor: mysensor\nlens_shading: {array: [640, 480], tables: [{ct: 5000, r: [1, 2]}]}", -EINVAL,
	    "lens_shading.tables[0].r: must have 289 numbers");
	bad(2, "sensor: mysensor\naf: {position_range: [500, 100]}", -EINVAL,
	    "t.yaml:3: af.position_range: the maximum 100 must be above the minimum 500");
	bad(2, "sensor: mysensor\naf: {coarse_steps: 2.5}", -EINVAL, "af.coarse_steps: must be a whole number");
	/* Required sections. */
	bad_lines(7, 9, "", -EINVAL, "t.yaml:1: ccm: missing (required)");
	bad(2, "", -EINVAL, "sensor: missing (required)");
	/* Versions. */
	bad(1, "version: 2", -EPROTONOSUPPORT, "t.yaml:1: version: 2 is not supported (this library reads 1)");
	bad(1, "", -EINVAL, "version: missing (required)");
	bad(1, "version: one", -EINVAL, "t.yaml:1: version: 'one' is not a number");
	/* Not YAML, not a mapping, nothing. */
	bad(5, "    - {ct: 2856, r_over_g: [1.0, b_over_g: 0.4}", -EINVAL, "t.yaml:");
	bad_lines(1, 11, "- version: 1", -EINVAL, "(top level): must be a mapping");
	{
		struct cisp_tuning *t = NULL;

		CHECK_ERR(cisp_tuning_parse(&t, "", 0, "empty.yaml"), -EINVAL, "empty.yaml:1: the file is empty");
		CHECK_ERR(cisp_tuning_parse(&t, "# only a comment\n", 17, NULL), -EINVAL, "tuning:1: the file is empty");
		CHECK(!t);
	}
}

/* Every prefix of a shipped file and random bytes: an error or a tuning, never a crash. */
TEST(tuning_truncated_and_garbage)
{
	char path[1024], *text;
	struct cisp_tuning *t = NULL;
	FILE *f;
	long n;
	unsigned ok = 0, failed = 0;

	snprintf(path, sizeof(path), "%s/data/tuning/cisp-test.yaml", CISP_SOURCE_DIR);
	f = fopen(path, "rb");
	CHECK(f);
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = malloc((size_t)n);
	CHECK_EQ(fread(text, 1, (size_t)n, f), n);
	fclose(f);
	for (long len = 0; len <= n; len += len < 400 ? 7 : 97) {
		int ret = cisp_tuning_parse(&t, text, (size_t)len, "cut.yaml");

		if (ret == 0) {
			ok++;
			cisp_tuning_free(t);
		} else {
			failed++;
			CHECK(strstr(cisp_last_error(), "cut.yaml:"));
		}
		t = NULL;
	}
	CHECK(failed > 0);
	CHECK_EQ(cisp_tuning_parse(&t, text, (size_t)n, "whole.yaml"), 0);
	cisp_tuning_free(t);
	/* Random bytes, and the file with random bytes flipped. */
	for (int round = 0; round < 200; round++) {
		char junk[256];

		for (size_t i = 0; i < sizeof(junk); i++)
			junk[i] = (char)(test_rand() & 0xff);
		CHECK(cisp_tuning_parse(&t, junk, sizeof(junk), NULL) != 0);
		t = NULL;
		text[test_rand() % (uint64_t)n] = (char)(test_rand() & 0xff);
		if (cisp_tuning_parse(&t, text, (size_t)n, NULL) == 0)
			cisp_tuning_free(t);
		t = NULL;
	}
	free(text);
	printf("  %u prefixes parsed, %u rejected\n", ok, failed);
}

/* Aliases that refer to themselves, alias keys, and deep nesting: errors, never a crash. */
TEST(tuning_hostile_structure)
{
	static const char *const cases[] = {
		"version: 1\nsensor: s\nawb: &a {ct: *a}\n",
		"version: 1\nsensor: s\nccm: &a [*a, *a]\n",
		"version: 1\nsensor: s\nawb:\n  ct: &a [{ct: 3000, r_over_g: *a, b_over_g: 1}]\n",
		"version: &v 1\n*v : 2\n",
		"? [a, b]\n: 1\nversion: 1\n",
		"version: [1]\n",
		"version: 1\nsensor: s\nblack_level: {a: 1}\n",
		"version: 1\nsensor: s\nlens_shading: {array: [4, 4], tables: [{ct: 5000, r: [1]}]}\n",
		"--- 1\n--- 2\n",
		"",
	};
	struct cisp_tuning *t = NULL;
	size_t depth = 100000;
	char *deep = malloc(2 * depth + 32);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK(cisp_tuning_parse(&t, cases[i], strlen(cases[i]), "bad.yaml") != 0);
		CHECK(t == NULL);
	}
	/* 100000 nested lists and mappings: refused at once (libyaml alone takes quadratic time). */
	CHECK(deep);
	if (!deep)
		return;
	strcpy(deep, "version: 1\nawb: ");
	for (size_t i = 0, n = strlen(deep); i < depth; i++)
		deep[n + i] = i % 2 ? '[' : '{';
	deep[strlen("version: 1\nawb: ") + depth] = 0;
	CHECK_ERR(cisp_tuning_parse(&t, deep, strlen(deep), "deep.yaml"), -EINVAL, "deep.yaml:2: nested more than");
	CHECK(t == NULL);
	free(deep);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[1024];
	FILE *f;

	CHECK(snprintf(path, sizeof(path), "%s/%s", dir, name) < (int)sizeof(path));
	f = fopen(path, "wb");
	CHECK(f);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

TEST(tuning_search_path_and_fallback)
{
	char dir[1024], dir2[1024], env[2100], *doc;
	const char *old = getenv("CISP_TUNING_PATH");
	char *saved = old ? strdup(old) : NULL;
	struct cisp_tuning *t = NULL;

	snprintf(dir, sizeof(dir), "%s/tuning-a", test_tmp_dir());
	snprintf(dir2, sizeof(dir2), "%s/tuning-b", test_tmp_dir());
	mkdir(dir, 0755);
	mkdir(dir2, 0755);
	/* The first folder of CISP_TUNING_PATH wins, also over the shipped file. */
	doc = edit(2, "sensor: cisp-test\ngamma: 2.2");
	write_file(dir2, "cisp-test.yaml", doc);
	free(doc);
	doc = edit(2, "sensor: cisp-test\ngamma: 1.8");
	write_file(dir2, "cisp-test-tele.yaml", doc);
	free(doc);
	snprintf(env, sizeof(env), "%s:%s", dir, dir2);
	setenv("CISP_TUNING_PATH", env, 1);
	CHECK_EQ(cisp_tuning_find(&t, "cisp-test", NULL), 0);
	CHECK(t && t->gamma == 2.2 && strstr(cisp_tuning_name(t), "tuning-b/cisp-test.yaml"));
	cisp_tuning_free(t);
	/* A lens file for that lens; another lens falls back to the sensor's file. */
	CHECK_EQ(cisp_tuning_find(&t, "cisp-test", "tele"), 0);
	CHECK(t && t->gamma == 1.8);
	cisp_tuning_free(t);
	CHECK_EQ(cisp_tuning_find(&t, "cisp-test", "wide"), 0);
	CHECK(t && t->gamma == 2.2);
	cisp_tuning_free(t);

	/* Unknown sensor: the uncalibrated tuning (its lens shading, if any, spans the frame). */
	CHECK_EQ(cisp_tuning_find(&t, "no-such-sensor", NULL), 0);
	CHECK(t && t->uncalibrated && !strcmp(cisp_tuning_name(t), "uncalibrated"));
	CHECK(t && t->awb.ct_count >= 2 && t->ccm_count == 1 && t->noise_count >= 1);
	{
		uint32_t aw = 1, ah = 1;

		cisp_tuning_lsc_array(t, &aw, &ah);
		CHECK(aw == 0 && ah == 0);
	}
	cisp_tuning_free(t);
	t = NULL;

	/* A file that does not parse is an error, never replaced by the fallback. */
	write_file(dir, "broken.yaml", "version: 1\nsensor: broken\nawb: {ct: [{ct: 5000}]}\n");
	CHECK_ERR(cisp_tuning_find(&t, "broken", NULL), -EINVAL, "broken.yaml:3: awb.ct[0].r_over_g: missing");
	CHECK(!t);
	/* A file for another sensor. */
	doc = edit(2, "sensor: other");
	write_file(dir, "named-wrong.yaml", doc);
	free(doc);
	CHECK_ERR(cisp_tuning_find(&t, "named-wrong", NULL), -EINVAL, "the file is for 'other', not 'named-wrong'");
	/* Names that are paths. */
	CHECK_ERR(cisp_tuning_find(&t, "../etc/passwd", NULL), -EINVAL, "not a plain name");
	CHECK_ERR(cisp_tuning_find(&t, "cisp-test", "a/b"), -EINVAL, "not a plain name");
	/* load() names the missing file. */
	CHECK_ERR(cisp_tuning_load(&t, "/nonexistent/x.yaml"), -ENOENT, "/nonexistent/x.yaml");

	if (saved) {
		setenv("CISP_TUNING_PATH", saved, 1);
		free(saved);
	} else {
		unsetenv("CISP_TUNING_PATH");
	}
	/* Without the variable: the shipped (source tree) file. */
	CHECK_EQ(cisp_tuning_find(&t, "cisp-test", NULL), 0);
	CHECK(t && t->gamma == 0 && !t->uncalibrated);
	cisp_tuning_free(t);
}

/*
 * An application that set a locale with a decimal comma (GStreamer
 * applications set the user's) still reads "0.4" as 0.4: in tuning files and
 * in sensor options.
 */
TEST(tuning_numbers_ignore_the_locale)
{
	struct cisp_tuning *t = NULL;
	struct cisp_sensor *s = NULL;

	if (!test_comma_locale_begin())
		return;
	CHECK_NEAR(strtod("0.5", NULL), 0, 0); /* the locale is really in force */
	CHECK_EQ(cisp_tuning_parse(&t, minimal, strlen(minimal), "mini.yaml"), 0);
	if (t)
		CHECK_NEAR(t->awb.ct[1].b_over_g, 0.7, 1e-12);
	cisp_tuning_free(t);
	CHECK_EQ(cisp_sensor_open(&s, "virtual:cisp-test", "lux=400.5,flicker_depth=0.25"), 0);
	cisp_sensor_close(s);
	test_comma_locale_end();
}
