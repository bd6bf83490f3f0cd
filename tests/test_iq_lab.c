/* SPDX-License-Identifier: MIT */
/* The software IQ lab on the small test sensor: calibration, colour, noise, sharpness, and cisp iq. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cisp/error.h>
#include <cisp/iq.h>
#include <cisp/iq_lab.h>
#include <cisp/sensor.h>

#include "test.h"

static const struct cisp_iq_lab test_lab = { .sensor = "cisp-test", .lux = 400, .seed = 3, .demosaic = 1 };

TEST(iq_lab_colour_under_three_illuminants)
{
	const char *const ill[] = { "D65", "A", "F11" };

	for (int i = 0; i < 3; i++) {
		struct cisp_iq_lab_color *c = calloc(1, sizeof(*c));

		CHECK_EQ(cisp_iq_lab_color(&test_lab, ill[i], i == 0, c), 0);
		/* The bar: mean dE00 <= 3 (goal 2) with a calibrated matrix. */
		if (!(c->color.mean_de00 <= 2))
			test_fail(__FILE__, __LINE__, "%s: mean dE00 %.2f over 2", ill[i], c->color.mean_de00);
		CHECK(c->color.wb_error_deg < 1.0);
		CHECK_EQ(c->color.count, 24);
		/* White balance: a perfect white's camera response is neutral after the gains. */
		CHECK_NEAR(c->wb_gain[1], 1, 1e-12);
		CHECK(c->wb_gain[0] > 0.3 && c->wb_gain[2] > 0.3);
		/* Tungsten is poor in blue: blue needs more gain than red. */
		if (i == 1)
			CHECK(c->wb_gain[2] > 1.5 * c->wb_gain[0]);
		for (int r = 0; r < 3; r++)
			CHECK_NEAR(c->ccm[r][0] + c->ccm[r][1] + c->ccm[r][2], 1, 1e-9);
		/* SNR falls with the patch's level along the neutral row. */
		CHECK_EQ(c->noise.count, 6);
		CHECK(c->noise.step[0].snr_y > c->noise.step[5].snr_y);
		CHECK(c->noise.step[5].snr_y > 3);
		if (i == 0) {
			CHECK_EQ(c->picture.width, 320);
			CHECK_EQ(c->picture.height, 240);
		}
		cisp_iq_image_free(&c->picture);
		free(c);
	}
}

TEST(iq_lab_sharpness_and_focus)
{
	struct cisp_iq_lab_color *c = calloc(1, sizeof(*c));
	struct cisp_iq_lab_sharpness *s = calloc(1, sizeof(*s));

	CHECK_EQ(cisp_iq_lab_color(&test_lab, "D65", false, c), 0);
	CHECK_EQ(cisp_iq_lab_sharpness(&test_lab, c, false, s), 0);
	for (int i = 0; i < CISP_IQ_LAB_EDGES; i++) {
		/* Focused lens (PSF sigma 0.5 px) and a full pixel aperture: MTF50 near 0.33 c/p. */
		CHECK(s->sfr[i].mtf50 > 0.25 && s->sfr[i].mtf50 < 0.45);
		CHECK_NEAR(fabs(s->sfr[i].angle_deg), 5, 0.3);
	}
	CHECK(s->sfr[0].vertical && !s->sfr[1].vertical);
	free(s);
	free(c);
}

TEST(iq_lab_rejects_unknown_sensor)
{
	struct cisp_iq_lab_color *c = calloc(1, sizeof(*c));
	struct cisp_iq_lab bad = test_lab;

	bad.sensor = "no-such-sensor";
	CHECK(cisp_iq_lab_color(&bad, "D65", false, c) < 0);
	CHECK(strstr(cisp_last_error(), "no-such-sensor") != NULL);
	CHECK_ERR(cisp_iq_lab_color(&test_lab, "Z99", false, c), -EINVAL, "Z99");
	free(c);
}

TEST(iq_cli_runs_the_suite)
{
	char cmd[2048], json[512];
	FILE *f;
	int st;

	snprintf(json, sizeof(json), "%s/cli-iq.json", test_tmp_dir());
	snprintf(cmd, sizeof(cmd),
		 "%s/tools/cisp iq --sensor cisp-test --illuminant D65,A --max-de00 3 --json %s --html %s/cli-iq.html "
		 ">%s/cli-iq.out 2>&1",
		 CISP_BUILD_DIR, json, test_tmp_dir(), test_tmp_dir());
	st = system(cmd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	f = fopen(json, "r");
	CHECK(f != NULL);
	if (f) {
		char buf[1 << 16];
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);

		buf[n] = 0;
		fclose(f);
		CHECK(strstr(buf, "\"label\": \"ColorChecker, A\"") != NULL);
		CHECK(strstr(buf, "\"passed\": true") != NULL);
		CHECK(strstr(buf, "\"mtf50\"") != NULL);
	}
	/* A bar no camera meets: exit 1 and a FAIL line. */
	snprintf(cmd, sizeof(cmd), "%s/tools/cisp iq --sensor cisp-test --illuminant D65 --max-de00 0.01 >/dev/null 2>&1",
		 CISP_BUILD_DIR);
	st = system(cmd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	snprintf(cmd, sizeof(cmd), "%s/tools/cisp iq --chart colorchecker x.png >/dev/null 2>&1", CISP_BUILD_DIR);
	st = system(cmd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2);
}
