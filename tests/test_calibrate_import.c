/* SPDX-License-Identifier: MIT */
/*
 * cisp tuning import (src/iq/calibrate_import.c): Raspberry Pi JSON and
 * rkisp1 YAML written here with known numbers, converted, and read back as a
 * cisp tuning; bad files refused with nothing written; the Raspberry Pi
 * tunings Debian installs, when present.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cisp/calibrate.h>
#include <cisp/error.h>
#include <cisp/output_file.h>
#include <cisp/tuning.h>

#include "cli.h"
#include "control/tuning.h"
#include "test.h"

static const char *tmp_path(const char *name)
{
	static char path[4][1024];
	static int k;

	k = (k + 1) % 4;
	snprintf(path[k], sizeof(path[k]), "%s/%s", test_tmp_dir(), name);
	return path[k];
}

static const char *write_text(const char *name, const char *text)
{
	const char *path = tmp_path(name);
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return path;
}

/* Import @src (written from @text) with @bits; the tuning read back into *@t (NULL on failure). */
static int import(const char *text, unsigned bits, struct cisp_tuning **t)
{
	const char *src = write_text("import-src.json", text), *dst = tmp_path("import-out.yaml");
	struct cisp_output_file *out = NULL;
	struct cisp_tuning_import opt = { .sensor = "imx000", .bits = bits };
	int ret;

	*t = NULL;
	remove(dst);
	CHECK_EQ(cisp_output_file_create(&out, dst, 0), 0);
	ret = cisp_output_file_finish(out, cisp_tuning_import(src, &opt, out));
	if (!ret)
		CHECK_EQ(cisp_tuning_load(t, dst), 0);
	else
		CHECK(access(dst, F_OK) != 0);
	return ret;
}

/* A 16 x 12 table as JSON: value(i, j). */
static void table(char *buf, size_t size, double (*value)(int i, int j))
{
	size_t n = 0;

	n += (size_t)snprintf(buf + n, size - n, "[");
	for (int j = 0; j < 12; j++)
		for (int i = 0; i < 16; i++)
			n += (size_t)snprintf(buf + n, size - n, "%.6f%s", value(i, j), i == 15 && j == 11 ? "]" : ", ");
}

static double flat2(int i, int j)
{
	(void)i;
	(void)j;
	return 2.0;
}

static double flat1(int i, int j)
{
	(void)i;
	(void)j;
	return 1.0;
}

/* Rising linearly to the right: 1 at the left cells' centres, 1 + 15 * 0.1 at the right's. */
static double ramp(int i, int j)
{
	(void)j;
	return 1 + 0.1 * i;
}

TEST(tuning_import_raspberry_pi)
{
	char lum[4096], cr[4096], cb[4096], *text = malloc(65536);
	struct cisp_tuning *t;

	if (!text)
		return;
	table(lum, sizeof(lum), ramp);
	table(cr, sizeof(cr), flat2);
	table(cb, sizeof(cb), flat1);
	snprintf(text, 65536,
		 "{\"version\": 2.0, \"target\": \"bcm2835\", \"algorithms\": [\n"
		 " {\"rpi.black_level\": {\"black_level\": 4096}},\n"
		 " {\"rpi.noise\": {\"reference_constant\": 3, \"reference_slope\": 2.5}},\n"
		 " {\"rpi.lux\": {\"reference_shutter_speed\": 20000, \"reference_gain\": 2.0, \"reference_aperture\": 1.0,"
		 "  \"reference_lux\": 1000, \"reference_Y\": 10000}},\n"
		 " {\"rpi.awb\": {\"ct_curve\": [2800, 0.6, 0.3, 6500, 0.35, 0.7], \"transverse_pos\": 0.02,"
		 "  \"transverse_neg\": 0.05, \"priors\": []}},\n"
		 " {\"rpi.ccm\": {\"ccms\": [{\"ct\": 2800, \"ccm\": [1.5, -0.3, -0.2, -0.4, 1.6, -0.2, 0.0, -0.9, 1.9]},"
		 "  {\"ct\": 6500, \"ccm\": [1.8, -0.6, -0.2, -0.3, 1.5, -0.2, 0.0, -0.5, 1.5]}]}},\n"
		 " {\"rpi.alsc\": {\"luminance_strength\": 0.5, \"luminance_lut\": %s,"
		 "  \"calibrations_Cr\": [{\"ct\": 5000, \"table\": %s}], \"calibrations_Cb\": [{\"ct\": 5000, \"table\": %s}]}},\n"
		 " {\"rpi.sharpen\": {}}]}\n",
		 lum, cr, cb);
	CHECK_EQ(import(text, 12, &t), 0);
	if (t) {
		CHECK(!strcmp(t->sensor, "imx000"));
		/* 4096 in 16-bit units is 256 codes of 12 bits. */
		CHECK_NEAR(t->black_level[0], 256, 1e-9);
		CHECK_NEAR(t->black_level[3], 256, 1e-9);
		/*
		 * Deviation 3 + 2.5 sqrt(s): variance 6.25 s + 9 in the Pi's units
		 * (codes shifted to 16 bits); cisp's signal runs from black to
		 * white, 65535 / (65535 - 4096) times larger.
		 */
		CHECK_EQ(t->noise_count, 1);
		CHECK_NEAR(t->noise[0].a[1], 6.25 * 65535 / 61439, 1e-3);
		/* The file holds b as a whole number. */
		CHECK_NEAR(t->noise[0].b[2], 9 * (65535 / 61439.0) * (65535 / 61439.0), 0.5);
		/* 1000 lux = scale x 10000 / (0.02 s x 2). */
		CHECK_NEAR(t->ae.lux_scale, 1000 * 0.02 * 2 / 10000.0, 1e-12);
		CHECK_EQ(t->awb.ct_count, 2);
		CHECK_NEAR(t->awb.ct[1].ct, 6500, 1e-9);
		CHECK_NEAR(t->awb.ct[1].r_over_g, 0.35, 1e-9);
		CHECK_NEAR(t->awb.ct[0].b_over_g, 0.3, 1e-9);
		CHECK_NEAR(t->awb.transverse, 0.05, 1e-9);
		CHECK_EQ(t->ccm_count, 2);
		CHECK_NEAR(t->ccm[0].m[2][1], -0.9, 1e-4);
		CHECK_NEAR(t->ccm[1].m[0][0], 1.8, 1e-4);
		CHECK_EQ(t->lsc_count, 1);
		CHECK_NEAR(t->lsc[0].ct, 5000, 1e-9);
		/*
		 * The luminance ramp through the cells' centres, extended to the
		 * frame's edges: node i lies at cell i * 16 / 16 - 0.5, gain
		 * 1 + 0.1 (i - 0.5) over the smallest (the left edge's 0.95).
		 */
		for (int i = 0; i < 17; i++) {
			double want = (1 + 0.1 * (i - 0.5)) / 0.95;

			CHECK_NEAR(t->lsc[0].gain[1][8 * 17 + i], want, 1e-3);
			/* Red is twice green everywhere: after normalising, the same shape. */
			CHECK_NEAR(t->lsc[0].gain[0][i], want, 1e-3);
		}
		cisp_tuning_free(t);
	}
	free(text);
}

TEST(tuning_import_rkisp1)
{
	char *text = malloc(65536);
	size_t n = 0;
	struct cisp_tuning *t;
	static const char *const ch[4] = { "r", "gr", "gb", "b" };

	if (!text)
		return;
	/* Sectors narrowing towards the edge (0.09 ... 0.035), node values 1024 + 10 (i + j) + channel. */
	n += (size_t)snprintf(text + n, 65536 - n,
			      "version: 1\nalgorithms:\n  - Agc:\n  - BlackLevelCorrection: {R: 256, Gr: 260, Gb: 252, B: 248}\n"
			      "  - LensShadingCorrection:\n"
			      "      x-size: [0.09, 0.08, 0.07, 0.06, 0.06, 0.05, 0.045, 0.045]\n"
			      "      y-size: [0.0625, 0.0625, 0.0625, 0.0625, 0.0625, 0.0625, 0.0625, 0.0625]\n"
			      "      sets:\n        - ct: 5800\n");
	for (int c = 0; c < 4; c++) {
		n += (size_t)snprintf(text + n, 65536 - n, "          %s: [", ch[c]);
		for (int k = 0; k < 289; k++)
			n += (size_t)snprintf(text + n, 65536 - n, "%d%s", 1024 + 10 * (k % 17 + k / 17) + c, k < 288 ? ", " : "]\n");
	}
	snprintf(text + n, 65536 - n, "  - Dpf:\n      strength: {r: 64}\n");
	CHECK_EQ(import(text, 10, &t), 0);
	if (t) {
		/* 12-bit units: 256 is 64 codes of 10 bits. */
		CHECK_NEAR(t->black_level[0], 64, 1e-9);
		CHECK_NEAR(t->black_level[1], 65, 1e-9);
		CHECK_NEAR(t->black_level[3], 62, 1e-9);
		CHECK_EQ(t->lsc_count, 1);
		/* Rows: even sectors, the nodes carry over. Columns: resampled from the uneven sectors. */
		for (int j = 0; j < 17; j++) {
			double pos[17] = { 0 }, size[8] = { 0.09, 0.08, 0.07, 0.06, 0.06, 0.05, 0.045, 0.045 };

			for (int k = 0; k < 8; k++)
				pos[k + 1] = pos[k] + size[k];
			for (int k = 0; k < 8; k++)
				pos[16 - k] = 1 - pos[k];
			for (int i = 0; i < 17; i++) {
				double x = i / 16.0, want;
				int k = 0;

				while (k < 15 && x > pos[k + 1])
					k++;
				/* Node values are linear in the index: interpolate the index. */
				want = (1024 + 10 * (k + (x - pos[k]) / (pos[k + 1] - pos[k]) + j) + 3) / 1024;
				CHECK_NEAR(t->lsc[0].gain[3][j * 17 + i], want, 2e-4);
			}
		}
		/* No colour in the file: the uncalibrated tuning's, with a warning. */
		CHECK(t->ccm_count >= 1 && t->awb.ct_count >= 1 && t->noise_count >= 1);
		cisp_tuning_free(t);
	}
	free(text);
}

static char text_buf[4096];

TEST(tuning_import_refuses_bad_files)
{
	struct cisp_tuning *t;
	struct cisp_output_file *out = NULL;
	struct cisp_tuning_import opt = { .sensor = "x", .bits = 10 };

	CHECK_ERR(import("{\"rpi.black_level\": {\"black_level\": 4096", 10, &t), -EINVAL, "import-src.json:");
	CHECK_ERR(import("just text\n", 10, &t), -EINVAL, "not a tuning file");
	CHECK_ERR(import("{\"a\": 1}", 10, &t), -EINVAL, "neither a Raspberry Pi tuning");
	CHECK_ERR(import("{\"rpi.black_level\": {\"black_level\": \"dark\"}}", 10, &t), -EINVAL, "'dark' is not a number");
	CHECK_ERR(import("{\"rpi.black_level\": [1]}", 10, &t), -EINVAL, "rpi.black_level must be a mapping");
	CHECK_ERR(import("{\"rpi.awb\": {\"ct_curve\": [2800, 0.6]}}", 10, &t), -EINVAL, "(ct, r, b) triples");
	CHECK_ERR(import("{\"rpi.ccm\": {\"ccms\": [{\"ct\": 5000, \"ccm\": [1, 0, 0]}]}}", 10, &t), -EINVAL,
		  "has 3 numbers, not 9");
	CHECK_ERR(import("{\"rpi.alsc\": {\"luminance_lut\": [1, 2]}}", 10, &t), -EINVAL, "has 2 numbers, not 192");
	/* A gain of 0 in a shading table; nesting far deeper than any tuning. */
	{
		char lut[2048], deep[300];
		size_t n = 0;

		for (int i = 0; i < 192; i++)
			n += (size_t)snprintf(lut + n, sizeof(lut) - n, "%s%d", i ? ", " : "", i == 5 ? 0 : 1);
		snprintf(text_buf, sizeof(text_buf), "{\"rpi.alsc\": {\"luminance_lut\": [%s]}}", lut);
		CHECK_ERR(import(text_buf, 10, &t), -EINVAL, "gain 0 is not positive");
		memset(deep, '[', sizeof(deep) - 1);
		deep[sizeof(deep) - 1] = '\0';
		CHECK_ERR(import(deep, 10, &t), -EINVAL, "nested more than");
	}
	/* A mapping key that is a list. */
	CHECK_ERR(import("algorithms:\n  - {[1]: 2}\n", 10, &t), -EINVAL, "an algorithm without a name");
	CHECK_ERR(import("algorithms:\n  - LensShadingCorrection: {x-size: [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1], "
			 "y-size: [0.0625, 0.0625, 0.0625, 0.0625, 0.0625, 0.0625, 0.0625, 0.0625], sets: [{ct: 5000}]}\n",
			 10, &t),
		  -EINVAL, "add up to 0.8, not 0.5");
	/* Values cisp refuses: a matrix whose rows do not keep white. */
	CHECK_ERR(import("{\"rpi.ccm\": {\"ccms\": [{\"ct\": 5000, \"ccm\": [2, 0, 0, 0, 1, 0, 0, 0, 1]}]}}", 10, &t), -EINVAL,
		  "does not read back");
	/* Options. */
	CHECK_EQ(cisp_output_file_create(&out, tmp_path("import-opt.yaml"), CISP_OUTPUT_REPLACE), 0);
	opt.bits = 20;
	CHECK_ERR(cisp_output_file_finish(out, cisp_tuning_import(tmp_path("import-src.json"), &opt, out)), -EINVAL,
		  "bit depth must be 8..16");
	CHECK_EQ(cisp_output_file_create(&out, tmp_path("import-opt.yaml"), CISP_OUTPUT_REPLACE), 0);
	opt = (struct cisp_tuning_import){ .sensor = "../x", .bits = 10 };
	CHECK_ERR(cisp_output_file_finish(out, cisp_tuning_import(tmp_path("import-src.json"), &opt, out)), -EINVAL,
		  "not a plain name");
}

/* The Raspberry Pi tunings Debian's libcamera-ipa installs: each imports and loads. */
TEST(tuning_import_installed_raspberry_pi_files)
{
	static const char *const sensors[] = { "imx219", "imx290", "imx296", "imx378", "imx477", "imx519", "ov5647", "se327m12" };
	char path[256];
	unsigned found = 0;

	for (size_t i = 0; i < sizeof(sensors) / sizeof(sensors[0]); i++) {
		struct cisp_output_file *out = NULL;
		struct cisp_tuning_import opt = { .sensor = sensors[i], .bits = 12 };
		struct cisp_tuning *t = NULL;
		const char *dst = tmp_path("import-rpi.yaml");

		snprintf(path, sizeof(path), "/usr/share/libcamera/ipa/raspberrypi/%s.json", sensors[i]);
		if (access(path, R_OK))
			continue;
		found++;
		CHECK_EQ(cisp_output_file_create(&out, dst, CISP_OUTPUT_REPLACE), 0);
		CHECK_EQ(cisp_output_file_finish(out, cisp_tuning_import(path, &opt, out)), 0);
		CHECK_EQ(cisp_tuning_load(&t, dst), 0);
		if (t) {
			CHECK(t->black_level[0] > 0 && t->ccm_count >= 1 && t->noise_count == 1);
			cisp_tuning_free(t);
		}
	}
	if (!found)
		test_skip("Debian's libcamera-ipa is not installed (/usr/share/libcamera/ipa/raspberrypi)");
}

TEST(tuning_import_cli)
{
	const char *json = "{\"rpi.black_level\": {\"black_level\": 4096}, \"rpi.geq\": {\"offset\": 1}}";

	cli_write("imx000.json", json, strlen(json));
	CHECK_EQ(cli_sh("rm -f imx000.yaml"), 0);
	CHECK_EQ(cli_run("tuning import imx000.json --bits 10 -o imx000.yaml"), 0);
	/* Named: what has no equivalent, and what came from the uncalibrated tuning. */
	CHECK(strstr(cli_output, "rpi.geq: no cisp equivalent") != NULL);
	CHECK(strstr(cli_output, "colour matrices: none in the file: the uncalibrated tuning's") != NULL);
	CHECK(strstr(cli_output, "wrote imx000.yaml") != NULL);
	/* The sensor is the file's name; black 4096 / 64. */
	CHECK_EQ(cli_sh("grep -q '^sensor: imx000$' imx000.yaml && grep -q '^black_level: \\[64.00, 64.00, 64.00, 64.00\\]' "
			"imx000.yaml"),
		 0);
	/* Replaced only with --force; usage errors. */
	CHECK_EQ(cli_run("tuning import imx000.json --bits 10 -o imx000.yaml"), 1);
	CHECK(strstr(cli_output, "--force") != NULL);
	CHECK_EQ(cli_run("tuning import imx000.json --bits 10 -o imx000.yaml --force"), 0);
	CHECK_EQ(cli_run("tuning import imx000.json -o x.yaml"), 2);
	CHECK_EQ(cli_run("tuning import imx000.json --bits 7 -o x.yaml"), 2);
	CHECK_EQ(cli_run("tuning export imx000.json"), 2);
	CHECK_EQ(cli_run("tuning import a.json b.json --bits 10 -o x.yaml"), 2);
	CHECK(!cli_exists("x.yaml"));
}
