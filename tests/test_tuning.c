/* SPDX-License-Identifier: MIT */
/*
 * Tuning files: the shipped ones parse, every kind of mistake is an error
 * naming the line and the key, broken input never crashes, the search path
 * and the uncalibrated fallback.
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdbool.h>
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
		/*
		 * Calibrated by cisp calibrate under six lights (docs/calibrate.md): one table each, one
		 * matrix each and those synthesised for other lights when the sensitivities are chosen.
		 */
		CHECK_EQ(t->awb.ct_count, 12);
		CHECK(t->ccm_count >= 6 && t->ccm_count <= TUNING_MAX_CT);
		CHECK_EQ(t->lsc_count, 6);
		CHECK(t->lsc_array_width > 0);
		CHECK(t->noise_count >= 4);
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
	/* Out of range, with the issue's example. */
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
	/* Matrices off the curve: one on it is needed, temperatures rise, no two entries at one place. */
	bad(8, "  - ct: 5000\n    tint: 0.05", -EINVAL, "ccm: needs an entry on the white-balance curve (tint 0)");
	bad(9, "    matrix: [[1.5, -0.4, -0.1], [-0.2, 1.4, -0.2], [0, -0.5, 1.5]]\n  - {ct: 4000, tint: 0.05, matrix: "
	       "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]}",
	    -EINVAL, "ccm[1].ct: 4000 must be above the previous entry's 5000");
	bad(9, "    matrix: [[1.5, -0.4, -0.1], [-0.2, 1.4, -0.2], [0, -0.5, 1.5]]\n  - {ct: 5000, tint: 0.05, matrix: "
	       "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]}\n  - {ct: 5000, tint: 0.05, matrix: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}",
	    -EINVAL, "ccm[2]: a second entry at ct 5000 and tint 0.05");
	bad(9, "    matrix: [[1.5, -0.4, -0.1], [-0.2, 1.4, -0.2], [0, -0.5, 1.5]]\n  - {ct: 5000, matrix: "
	       "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]}",
	    -EINVAL, "ccm[1]: a second entry at ct 5000 and tint 0");
	bad(9, "    matrix: [[1.5, -0.4, -0.1], [-0.2, 1.4, -0.2], [0, -0.5, 1.5]]\n  - {ct: 5000, tint: -0.005, matrix: "
	       "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]}",
	    -EINVAL, "ccm[1].tint: -0.005 is closer to the curve than 0.01: an entry on it has tint 0");
	bad(9, "    matrix: [[1.5, -0.4, -0.1], [-0.2, 1.4, -0.2], [0, -0.5, 1.5]]\n  - {ct: 5000, tint: x, matrix: "
	       "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]}",
	    -EINVAL, "ccm[1].tint: 'x' is not a number");
	bad(5, "    - {ct: 2856, r_over_g: 1.0}", -EINVAL, "t.yaml:5: awb.ct[0].b_over_g: missing (required)");
	bad(2, "sensor: mysensor\nsensor: other", -EINVAL, "t.yaml:3: sensor: appears twice");
	bad(2, "sensor: mysensor\ngamma: 0.5", -EINVAL, "t.yaml:3: gamma: 0.5 is outside 1..10 (or 0, the sRGB curve)");
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

/*
 * Every number of the schema and its range (docs/tuning.md): where it goes
 * in the minimal file (lines @first..@last replaced by @text, "%s" the
 * value), the key errors name, and the row of docs/tuning.md that documents
 * it (@section heading, @row key). @ends_parse: a file with the key at
 * either end of its range is valid (not for a matrix coefficient, whose row
 * must also sum to 1).
 */
struct range_rule {
	unsigned first, last;
	const char *text;
	const char *key;
	double min, max;
	bool whole, ends_parse;
	const char *section, *row;
};

#define AFTER_SENSOR 2, 2
static const struct range_rule rules[] = {
	{ AFTER_SENSOR, "sensor: mysensor\nblack_level: [%s, 0, 0, 0]", "black_level[0]", 0, 65535, false, true,
	  "Top level", "black_level" },
	{ AFTER_SENSOR, "sensor: mysensor\ngamma: %s", "gamma", 1, 10, false, true, "Top level", "gamma" },
	{ AFTER_SENSOR, "sensor: mysensor\nsaturation: %s", "saturation", 1, 65535, false, true, "Top level",
	  "saturation" },
	{ AFTER_SENSOR, "sensor: mysensor\ndefect_threshold: %s", "defect_threshold", 0, 65535, true, true,
	  "Top level", "defect_threshold" },
	{ AFTER_SENSOR, "sensor: mysensor\nae: {target: %s}", "ae.target", 0.01, 0.5, false, true, "`ae`", "target" },
	{ AFTER_SENSOR, "sensor: mysensor\nae: {tolerance: %s}", "ae.tolerance", 0.01, 0.5, false, true, "`ae`",
	  "tolerance" },
	{ AFTER_SENSOR, "sensor: mysensor\nae: {highlight_fraction: %s}", "ae.highlight_fraction", 0, 0.5, false,
	  true, "`ae`", "highlight_fraction" },
	{ AFTER_SENSOR, "sensor: mysensor\nae: {highlight_level: %s}", "ae.highlight_level", 0.1, 1, false, true,
	  "`ae`", "highlight_level" },
	{ AFTER_SENSOR, "sensor: mysensor\nae: {speed: %s}", "ae.speed", 0.1, 1, false, true, "`ae`", "speed" },
	{ AFTER_SENSOR, "sensor: mysensor\nae: {max_exposure_us: %s}", "ae.max_exposure_us", 1, 1e7, false, true,
	  "`ae`", "max_exposure_us" },
	{ AFTER_SENSOR, "sensor: mysensor\nae: {max_analogue_gain: %s}", "ae.max_analogue_gain", 1, 256, false, true,
	  "`ae`", "max_analogue_gain" },
	{ AFTER_SENSOR, "sensor: mysensor\nae: {max_digital_gain: %s}", "ae.max_digital_gain", 1, 256, false, true,
	  "`ae`", "max_digital_gain" },
	{ AFTER_SENSOR, "sensor: mysensor\nae: {lux_scale: %s}", "ae.lux_scale", 0, 1e12, false, true, "`ae`",
	  "lux_scale" },
	{ 5, 6, "    - {ct: %s, r_over_g: 1.0, b_over_g: 0.4}", "awb.ct[0].ct", 1000, 20000, false, true, "`awb`",
	  "ct" },
	{ 5, 5, "    - {ct: 2856, r_over_g: %s, b_over_g: 0.4}", "awb.ct[0].r_over_g", 0.0625, 16, false, true,
	  "`awb`", "ct" },
	{ 5, 5, "    - {ct: 2856, r_over_g: 1.0, b_over_g: %s}", "awb.ct[0].b_over_g", 0.0625, 16, false, true,
	  "`awb`", "ct" },
	{ 3, 3, "awb:\n  prior_weight: %s", "awb.prior_weight", 0, 1, false, true, "`awb`", "prior_weight" },
	{ 3, 3, "awb:\n  max_curve_distance: %s", "awb.max_curve_distance", 0.01, 4, false, true, "`awb`",
	  "max_curve_distance" },
	{ 3, 3, "awb:\n  transverse: %s", "awb.transverse", 0, 4, false, true, "`awb`", "transverse" },
	{ 3, 3, "awb:\n  speed: %s", "awb.speed", 0.05, 1, false, true, "`awb`", "speed" },
	{ 3, 3, "awb:\n  default_ct: %s", "awb.default_ct", 1000, 20000, false, true, "`awb`", "default_ct" },
	{ AFTER_SENSOR, "sensor: mysensor\naf: {position_range: [%s, 1000000]}", "af.position_range[0]", -1e6, 1e6,
	  true, false, "`af`", "position_range" },
	{ AFTER_SENSOR, "sensor: mysensor\naf: {coarse_steps: %s}", "af.coarse_steps", 2, 256, true, true, "`af`",
	  "coarse_steps" },
	{ AFTER_SENSOR, "sensor: mysensor\naf: {fine_steps: %s}", "af.fine_steps", 0, 256, true, true, "`af`",
	  "fine_steps" },
	{ AFTER_SENSOR, "sensor: mysensor\naf: {scene_change: %s}", "af.scene_change", 0.05, 10, false, true, "`af`",
	  "scene_change" },
	{ AFTER_SENSOR, "sensor: mysensor\naf: {min_contrast: %s}", "af.min_contrast", 1, 1000, false, true, "`af`",
	  "min_contrast" },
	{ AFTER_SENSOR, "sensor: mysensor\nflicker: {detect_threshold: %s}", "flicker.detect_threshold", 0.005, 1,
	  false, true, "`flicker`", "detect_threshold" },
	{ 8, 8, "  - ct: %s", "ccm[0].ct", 1000, 20000, false, true, "`ccm`", "ct" },
	{ 9, 9, "    matrix: [[%s, -0.4, -0.1], [-0.2, 1.4, -0.2], [0, -0.5, 1.5]]", "ccm[0].matrix[0][0]", -7.99,
	  7.99, false, false, "`ccm`", "matrix" },
	{ 9, 9, "    matrix: [[1.5, -0.4, -0.1], [-0.2, 1.4, -0.2], [0, -0.5, 1.5]]\n  - ct: 5000\n    tint: %s\n"
		"    matrix: [[1.5, -0.4, -0.1], [-0.2, 1.4, -0.2], [0, -0.5, 1.5]]", "ccm[1].tint", -1, 1, false, true,
	  "`ccm`", "tint" },
	{ AFTER_SENSOR, "sensor: mysensor\nlens_shading: {array: [%s, 480], tables: [{ct: 5000, @R, @G, @G, @B}]}",
	  "lens_shading.array[0]", 2, 65535, true, true, "`lens_shading`", "array" },
	{ AFTER_SENSOR, "sensor: mysensor\nlens_shading: {tables: [{ct: %s, @R, @G, @G, @B}]}",
	  "lens_shading.tables[0].ct", 1000, 20000, false, true, "`lens_shading`", "tables" },
	{ AFTER_SENSOR, "sensor: mysensor\nlens_shading: {tables: [{ct: 5000, r: [%s, @1], @G, @G, @B}]}",
	  "lens_shading.tables[0].r[0]", 1, 65535.0 / 4096, false, true, "`lens_shading`", "tables" },
	{ 11, 11, "  - {gain: %s, a: [10, 10, 10, 10], b: [100, 100, 100, 100]}", "noise[0].gain", 1, 65536, false,
	  true, "`noise`", "gain" },
	{ 11, 11, "  - {gain: 1, a: [%s, 10, 10, 10], b: [100, 100, 100, 100]}", "noise[0].a[0]", 0, 65535, false,
	  true, "`noise`", "a" },
	{ 11, 11, "  - {gain: 1, a: [10, 10, 10, 10], b: [%s, 100, 100, 100]}", "noise[0].b[0]", 0, 4294967295.0,
	  false, true, "`noise`", "b" },
	{ AFTER_SENSOR, "sensor: mysensor\ndenoise: [{gain: %s, bnr: 1, cnr: 1, sharpen: 1, coring: 1}]",
	  "denoise[0].gain", 1, 65536, false, true, "`denoise`", "gain" },
	{ AFTER_SENSOR, "sensor: mysensor\ndenoise: [{gain: 1, bnr: %s, cnr: 1, sharpen: 1, coring: 1}]",
	  "denoise[0].bnr", 0, 4, false, true, "`denoise`", "bnr" },
	{ AFTER_SENSOR, "sensor: mysensor\ndenoise: [{gain: 1, bnr: 1, cnr: %s, sharpen: 1, coring: 1}]",
	  "denoise[0].cnr", 0, 16, false, true, "`denoise`", "cnr" },
	{ AFTER_SENSOR, "sensor: mysensor\ndenoise: [{gain: 1, bnr: 1, cnr: 1, sharpen: %s, coring: 1}]",
	  "denoise[0].sharpen", 0, 8, false, true, "`denoise`", "sharpen" },
	{ AFTER_SENSOR, "sensor: mysensor\ndenoise: [{gain: 1, bnr: 1, cnr: 1, sharpen: 1, coring: %s}]",
	  "denoise[0].coring", 0, 65535, false, true, "`denoise`", "coring" },
};

/*
 * The file of @rule with @value. In lens shading rules "@R", "@G" and "@B"
 * stand for a channel of 17 x 17 gains of 1 ("r: [1, 1, ...]", "gr" or
 * "gb", "b"), "@1" for the 288 gains after the first.
 */
static char *rule_file(const struct range_rule *rule, const char *value)
{
	static const char *const names[] = { "r", "gr", "gb", "b" };
	char ones[17 * 17 * 3 + 1] = "", text[16384], *o = text;
	unsigned green = 1;

	for (int i = 0; i < 17 * 17; i++)
		strcat(ones, i ? ", 1" : "1");
	snprintf(text, sizeof(text), rule->text, value);
	while ((o = strchr(o, '@'))) {
		char rest[16384];
		int n = 0;

		snprintf(rest, sizeof(rest), "%s", o + 2);
		if (o[1] == '1')
			n = snprintf(o, sizeof(text) - (size_t)(o - text), "%s", ones + 3);
		else
			n = snprintf(o, sizeof(text) - (size_t)(o - text), "%s: [%s]",
				     names[o[1] == 'R' ? 0 : o[1] == 'B' ? 3 : green++], ones);
		snprintf(o + n, sizeof(text) - (size_t)(o + n - text), "%s", rest);
		o += n;
	}
	return edit_lines(rule->first, rule->last, text);
}

/* A range's end as docs/tuning.md writes it: whole numbers in full, others to 10 digits. */
static const char *format(char buf[32], double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, 32, "%.0f", v);
	else
		snprintf(buf, 32, "%.10g", v);
	return buf;
}

/* Parse @rule's file with @value: 0, or the error with its message checked to hold @needle. */
static int parse_rule(const struct range_rule *rule, const char *value)
{
	struct cisp_tuning *t = NULL;
	char *doc = rule_file(rule, value);
	int ret = cisp_tuning_parse(&t, doc, strlen(doc), "t.yaml");

	cisp_tuning_free(t);
	free(doc);
	return ret;
}

/*
 * Every number has a closed range, enforced with a message naming the file,
 * the line, the key and the range: just outside either end is refused, both
 * ends parse; so are absurdly small positive numbers (ae.target 4.9e-324
 * made AE's error infinite).
 */
TEST(tuning_ranges_are_enforced_and_named)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct range_rule *r = &rules[i];
		double below = r->whole || r->min <= 0 ? r->min - 1 : r->min / 2, above = r->whole ? r->max + 1 : r->max * 2;
		const double outside[] = { below, above };
		char value[64], want[160], lo[32], hi[32];

		for (int k = 0; k < 2; k++) {
			snprintf(value, sizeof(value), "%.17g", outside[k]);
			snprintf(want, sizeof(want), ": %s: %s is outside %s..%s", r->key, value, format(lo, r->min),
				 format(hi, r->max));
			if (parse_rule(r, value) != -EINVAL || strncmp(cisp_last_error(), "t.yaml:", 7) ||
			    !strstr(cisp_last_error(), want))
				test_fail(__FILE__, __LINE__, "%s = %s: '%s', expected '%s'", r->key, value, cisp_last_error(),
					  want);
		}
		for (int k = 0; k < 2 && r->ends_parse; k++) {
			snprintf(value, sizeof(value), "%.17g", k ? r->max : r->min);
			if (parse_rule(r, value))
				test_fail(__FILE__, __LINE__, "%s = %s is in range: %s", r->key, value, cisp_last_error());
		}
	}
	/* Tiny positive numbers, denormals among them. */
	bad(2, "sensor: mysensor\nae: {target: 4.9e-324}", -EINVAL, "t.yaml:3: ae.target: 4.9e-324 is outside 0.01..0.5");
	bad(2, "sensor: mysensor\nae: {tolerance: 1e-300}", -EINVAL, "ae.tolerance: 1e-300 is outside 0.01..0.5");
	bad(2, "sensor: mysensor\nae: {speed: 2.2e-308}", -EINVAL, "ae.speed: 2.2e-308 is outside 0.1..1");
	bad(5, "    - {ct: 2856, r_over_g: 5e-324, b_over_g: 0.4}", -EINVAL,
	    "awb.ct[0].r_over_g: 5e-324 is outside 0.0625..16");
	bad(3, "awb:\n  speed: 1e-200", -EINVAL, "awb.speed: 1e-200 is outside 0.05..1");
	bad(2, "sensor: mysensor\naf: {scene_change: 1e-12}", -EINVAL, "af.scene_change: 1e-12 is outside 0.05..10");
	bad(2, "sensor: mysensor\nflicker: {detect_threshold: 1e-9}", -EINVAL,
	    "flicker.detect_threshold: 1e-9 is outside 0.005..1");
	/* Whole numbers. */
	bad(2, "sensor: mysensor\ndefect_threshold: 4096.5", -EINVAL, "defect_threshold: must be a whole number");
	bad(2, "sensor: mysensor\naf: {fine_steps: 1.5}", -EINVAL, "af.fine_steps: must be a whole number");
}

/* docs/tuning.md gives each number the range the parser enforces, in the row of its key. */
TEST(tuning_ranges_are_documented)
{
	char path[1024], *doc;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/docs/tuning.md", CISP_SOURCE_DIR);
	f = fopen(path, "rb");
	CHECK(f);
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	doc = calloc(1, (size_t)n + 1);
	CHECK_EQ(fread(doc, 1, (size_t)n, f), n);
	fclose(f);
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct range_rule *r = &rules[i];
		char heading[64], row[64], range[80], lo[32], hi[32], *sec, *end, *line;

		snprintf(heading, sizeof(heading), "\n### %s", r->section);
		snprintf(row, sizeof(row), "\n| `%s` |", r->row);
		snprintf(range, sizeof(range), "%s..%s", format(lo, r->min), format(hi, r->max));
		sec = strstr(doc, heading);
		end = sec ? strstr(sec + 1, "\n### ") : NULL;
		line = sec ? strstr(sec, row) : NULL;
		if (!line || (end && line > end)) {
			test_fail(__FILE__, __LINE__, "%s: no row `%s` under '%s' in docs/tuning.md", r->key, r->row,
				  r->section);
			continue;
		}
		line++;
		*strchr(line, '\n') = '\0';
		if (!strstr(line, range))
			test_fail(__FILE__, __LINE__, "%s: the row of `%s` does not give %s: %s", r->key, r->row, range, line);
		line[strlen(line)] = '\n';
	}
	free(doc);
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
	/* Every 7 bytes of the start, then about 200 cuts through the rest (fuzz_tuning goes further). */
	for (long len = 0; len <= n; len += len < 400 ? 7 : 1 + n / 200) {
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
		/* The whole file is parsed after every fourth flip: 50 parses of 80 KB. */
		if (round % 4 == 3 && cisp_tuning_parse(&t, text, (size_t)n, NULL) == 0)
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
