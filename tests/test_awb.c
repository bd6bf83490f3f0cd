/* SPDX-License-Identifier: MIT */
/*
 * AWB on real statistics: frames of the virtual test sensor (shading and
 * noise on) go through the software ISP with the shipped tuning; AWB runs on
 * the ISP's zone statistics and the neutral surfaces of the developed,
 * linear picture must come out grey (angular error in linear RGB).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <cisp/error.h>
#include <cisp/iq_color.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>
#include <cisp/sensor.h>
#include <cisp/tuning.h>

#include "control/algorithm.h"
#include "control/awb.h"
#include "test.h"

struct shot {
	struct cisp_sensor *s;
	struct cisp_image raw;
	struct cisp_sensor_mode mode;
};

/* A frame of @scene under @light, exposed so a white would sit at about half of full scale. */
static int shoot(const char *scene, const char *light, struct shot *sh)
{
	char opts[200];
	struct cisp_vsensor_truth truth;
	struct cisp_sensor_controls c = { 0 };
	double lux = 400, lines;
	int ret;

	memset(sh, 0, sizeof(*sh));
	snprintf(opts, sizeof(opts), "scene=%s,illuminant=%s,lux=%g,seed=5", scene, light, lux);
	ret = cisp_sensor_open(&sh->s, "virtual:cisp-test", opts);
	if (!ret)
		ret = cisp_sensor_get_mode(sh->s, 0, &sh->mode);
	if (!ret)
		ret = cisp_vsensor_truth(sh->s, &truth);
	if (!ret)
		ret = cisp_image_alloc(&sh->raw, sh->mode.format, sh->mode.width, sh->mode.height);
	if (ret)
		return ret;
	/* electrons of a white = e/lux s * lux * t; half of the codes above black. */
	lines = 0.5 * (sh->mode.white_level - sh->mode.black_level) / truth.gain_dn_per_e /
		(truth.electrons_per_lux_s * lux) / (cisp_sensor_line_ns(&sh->mode) * 1e-9);
	if (lines > sh->mode.frame_length_default - sh->mode.exposure_margin)
		lines = sh->mode.frame_length_default - sh->mode.exposure_margin;
	cisp_sensor_controls_set(&c, CISP_SENSOR_EXPOSURE, (int32_t)lines);
	cisp_sensor_controls_set(&c, CISP_SENSOR_LENS_POSITION, truth.focus_position);
	ret = cisp_sensor_set_controls(sh->s, &c);
	if (!ret)
		ret = cisp_sensor_start(sh->s);
	if (!ret)
		ret = cisp_sensor_capture(sh->s, &sh->raw, NULL, 0);
	cisp_sensor_stop(sh->s);
	return ret;
}

static void shot_free(struct shot *sh)
{
	cisp_sensor_close(sh->s);
	cisp_image_free(&sh->raw);
}

/* Mean linear RGB of a rectangle of an RGB48 image. */
static void rect_mean(const struct cisp_image *img, int x0, int y0, int w, int h, double out[3])
{
	double sum[3] = { 0, 0, 0 };

	for (int y = y0; y < y0 + h; y++) {
		const uint16_t *row = (const uint16_t *)((const uint8_t *)img->plane[0].data + (size_t)y * img->plane[0].stride);

		for (int x = x0; x < x0 + w; x++)
			for (int c = 0; c < 3; c++)
				sum[c] += row[3 * x + c];
	}
	for (int c = 0; c < 3; c++)
		out[c] = sum[c] / ((double)w * h);
}

/*
 * Run AWB on the ISP's statistics of @sh for @frames frames, develop the frame
 * with the result (linear output) into @rgb. Returns the AWB result.
 */
static int develop(const struct cisp_tuning *t, struct shot *sh, unsigned frames, const double *manual,
		   struct cisp_image *rgb, struct awb_result *res)
{
	struct cisp_isp_config cfg = { .input_format = sh->mode.format, .width = sh->mode.width,
				       .height = sh->mode.height };
	struct cisp_param_state *st = calloc(1, sizeof(*st));
	struct cisp_stats *stats = calloc(1, sizeof(*stats));
	struct cisp_image *outs[CISP_MAX_OUTPUTS] = { rgb, NULL };
	struct cisp_isp *isp = NULL;
	struct awb *awb = NULL;
	int ret = st && stats ? 0 : -ENOMEM;
	/* The zone grid the control loop asks for. */
	struct cisp_stats_params zones = { .zones_x = 32, .zones_y = 24, .saturation = 65000 };

	cfg.output[0] = (struct cisp_output_config){ CISP_FMT_RGB48, sh->mode.width, sh->mode.height };
	if (!ret)
		ret = cisp_isp_create(&isp, &cfg);
	if (!ret)
		ret = awb_create(&awb, t);
	if (!ret)
		ret = cisp_image_alloc(rgb, CISP_FMT_RGB48, sh->mode.width, sh->mode.height);
	if (ret)
		goto out;
	cisp_param_state_init(st);
	if (manual)
		awb_set_manual(awb, false, true, 0, manual);
	awb_current(awb, res);
	for (unsigned f = 0; f <= frames && !ret; f++) {
		ret = control_prepare_params(t, &sh->mode, (const double[2]){ res->gains[0], res->gains[2] },
					     res->colour_temperature, 1.0, 1.0, st);
		if (ret < 0)
			break;
		/* Linear output, nothing that moves colours around: the measurement is of white balance. */
		st->enabled &= ~(CISP_BLOCK_BIT(CISP_BLOCK_TONE) | CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN));
		st->dpc.threshold = 4096;
		st->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_DPC);
		ret = cisp_isp_set_state(isp, st, ~0u);
		if (ret || f == frames)
			break;
		ret = cisp_isp_statistics(isp, &sh->raw, &zones, stats, NULL);
		if (!ret)
			awb_process(awb, stats, res);
	}
	if (!ret)
		ret = cisp_isp_process(isp, &sh->raw, outs, NULL, NULL);
out:
	free(st);
	free(stats);
	awb_destroy(awb);
	cisp_isp_destroy(isp);
	return ret;
}

static double neutral_error(const double rgb[3])
{
	return cisp_iq_angular_error(rgb, (const double[3]){ 1, 1, 1 });
}

/* What one development of the chart gave. */
struct chart_result {
	double patch[5];       /* angular error from neutral of white 9.5 .. neutral 3.5, degrees */
	double illuminant;     /* angle between AWB's grey and the true grey in camera RGB, degrees */
	struct awb_result awb;
};

/*
 * The chart under @light, white-balanced by AWB or (@truth_wb) by the true
 * gains; its grey patches measured in the linear output.
 */
static int chart(const struct cisp_tuning *t, const char *light, bool truth_wb, struct chart_result *r)
{
	struct shot sh;
	struct cisp_image rgb = { 0 };
	struct cisp_vsensor_patch white;
	double gains[2], est[3];
	int ret = shoot("colorchart", light, &sh);

	if (!ret)
		ret = cisp_vsensor_chart_patch(sh.s, 18, &white);
	if (!ret) {
		gains[0] = 1 / white.white_camera[0];
		gains[1] = 1 / white.white_camera[2];
		ret = develop(t, &sh, 8, truth_wb ? gains : NULL, &rgb, &r->awb);
	}
	for (unsigned i = 0; i < 5 && !ret; i++) {
		struct cisp_vsensor_patch p;
		double m[3];

		ret = cisp_vsensor_chart_patch(sh.s, 18 + i, &p);
		rect_mean(&rgb, p.x + p.width / 4, p.y + p.height / 4, p.width / 2, p.height / 2, m);
		r->patch[i] = neutral_error(m);
	}
	est[0] = 1 / r->awb.gains[0];
	est[1] = 1;
	est[2] = 1 / r->awb.gains[2];
	r->illuminant = ret ? 180 : cisp_iq_angular_error(est, white.white_camera);
	cisp_image_free(&rgb);
	shot_free(&sh);
	return ret;
}

static struct cisp_tuning *test_tuning(void)
{
	struct cisp_tuning *t = NULL;

	if (cisp_tuning_find(&t, "cisp-test", NULL))
		test_fail(__FILE__, __LINE__, "tuning: %s", cisp_last_error());
	CHECK(t && !t->uncalibrated);
	return t;
}

/*
 * The chart's grey patches after the ISP within 2 degrees of neutral under
 * D65, A and F2. The darkest grey (neutral 3.5, 9% reflectance) is off by
 * about 2.2..2.7 degrees even with the true white balance (the patch itself
 * is 1 degree off neutral, and noise clipped at black biases its dark
 * channels); there AWB may add at most 1.1 degrees to what the true white
 * balance gives (measured 0.4 to 1.0).
 */
TEST(awb_chart_d65_a_f2)
{
	static const char *const lights[] = { "D65", "A", "F2" };
	static const char *const names[] = { "white 9.5", "neutral 8", "neutral 6.5", "neutral 5", "neutral 3.5" };
	struct cisp_tuning *t = test_tuning();

	for (unsigned i = 0; t && i < 3; i++) {
		struct chart_result truth, awb;

		if (chart(t, lights[i], true, &truth) || chart(t, lights[i], false, &awb)) {
			test_fail(__FILE__, __LINE__, "%s: %s", lights[i], cisp_last_error());
			continue;
		}
		printf("  %s: AWB %.0f K, illuminant error %.2f deg; neutral errors (AWB / true WB):", lights[i],
		       awb.awb.colour_temperature, awb.illuminant);
		for (unsigned p = 0; p < 5; p++)
			printf(" %s %.2f/%.2f", names[p], awb.patch[p], truth.patch[p]);
		printf("\n");
		CHECK(awb.illuminant <= 1.0);
		for (unsigned p = 0; p < 4; p++)
			CHECK(awb.patch[p] <= 2.0);
		CHECK(awb.patch[4] <= truth.patch[4] + 1.1);
		CHECK_EQ(awb.awb.state, CISP_AWB_CONVERGED);
	}
	cisp_tuning_free(t);
}

/* A frame filled by one colour with a small grey card: the card must come out within 5 degrees. */
static double dominant_error(const struct cisp_tuning *t, const char *scene, const char *light)
{
	struct shot sh;
	struct cisp_image rgb = { 0 };
	struct awb_result res;
	double m[3], e = 180;
	int h;

	if (shoot(scene, light, &sh) || develop(t, &sh, 8, NULL, &rgb, &res)) {
		test_fail(__FILE__, __LINE__, "%s: %s", scene, cisp_last_error());
		shot_free(&sh);
		return e;
	}
	/* The card: scene units are frame heights, [aspect - 0.2, aspect - 0.1] x [0.8, 0.9]; its middle half. */
	h = (int)sh.mode.height;
	rect_mean(&rgb, (int)sh.mode.width - h / 5 + h / 40, h * 8 / 10 + h / 40, h / 20, h / 20, m);
	e = neutral_error(m);
	printf("  awb %s under %s: ct %.0f K, card rgb %.0f %.0f %.0f, error %.2f deg\n", scene, light,
	       res.colour_temperature, m[0], m[1], m[2], e);
	cisp_image_free(&rgb);
	shot_free(&sh);
	return e;
}

TEST(awb_dominant_colour)
{
	struct cisp_tuning *t = test_tuning();

	if (t) {
		CHECK(dominant_error(t, "dominant:green", "D65") <= 5.0);
		CHECK(dominant_error(t, "dominant:green", "A") <= 5.0);
		CHECK(dominant_error(t, "dominant:green", "F2") <= 5.0);
		CHECK(dominant_error(t, "dominant:red", "D65") <= 5.0);
		/* A blue under tungsten has the camera colour of a grey under a cooler light; the brighter card wins. */
		CHECK(dominant_error(t, "dominant:blue", "A") <= 5.0);
		/*
		 * The rest of the chart's colours (CISP_AWB_SWEEP=1): bright colours whose camera colour
		 * lies near the curve (yellow, orange, cyan, blue sky) are taken for grey, docs/tuning.md.
		 */
		if (getenv("CISP_AWB_SWEEP")) {
			static const char *const more[] = { "yellow", "orange", "purple", "cyan", "blue sky",
							    "foliage", "moderate red", "blue flower" };
			static const char *const lights[] = { "D65", "A", "F2" };
			char scene[64];

			for (int i = 0; i < 8; i++)
				for (int j = 0; j < 3; j++) {
					snprintf(scene, sizeof(scene), "dominant:%s", more[i]);
					dominant_error(t, scene, lights[j]);
				}
		}
	}
	cisp_tuning_free(t);
}

/* Synthetic zones: every zone one colour. */
static void fill_zones(struct cisp_stats *s, const double rgb[3])
{
	memset(s, 0, sizeof(*s));
	s->valid = CISP_STATS_ZONES;
	s->width = 320;
	s->height = 240;
	s->zones_x = 16;
	s->zones_y = 12;
	for (unsigned i = 0; i < 16 * 12; i++) {
		s->zone[i].r = (uint16_t)lround(rgb[0]);
		s->zone[i].g = (uint16_t)lround(rgb[1]);
		s->zone[i].b = (uint16_t)lround(rgb[2]);
		s->zone[i].count = s->zone[i].total = 100;
	}
}

TEST(awb_manual_and_damping)
{
	struct cisp_tuning *t = test_tuning();
	struct cisp_stats *s = calloc(1, sizeof(*s));
	struct awb *awb = NULL;
	struct awb_result r, r2;
	const struct tuning_ct_point *a, *d65;

	if (!t || !s || awb_create(&awb, t)) {
		CHECK(0);
		goto out;
	}
	a = &t->awb.ct[2];   /* 2856 K */
	d65 = &t->awb.ct[10]; /* 6504 K */
	CHECK_NEAR(a->ct, 2856, 1);
	CHECK_NEAR(d65->ct, 6504, 1);

	/* A grey scene under A: the first estimate is taken whole, lands on the curve's A point. */
	fill_zones(s, (double[3]){ 20000 * a->r_over_g, 20000, 20000 * a->b_over_g });
	awb_process(awb, s, &r);
	CHECK_NEAR(r.colour_temperature, 2856, 30);
	CHECK_NEAR(r.gains[0], 1 / a->r_over_g, 0.01);
	CHECK_NEAR(r.gains[2], 1 / a->b_over_g, 0.01);
	CHECK_EQ(r.gains[1], 1);
	awb_process(awb, s, &r);
	CHECK_EQ(r.state, CISP_AWB_CONVERGED);

	/* The light changes to D65: damped steps, searching until close, monotonic. */
	fill_zones(s, (double[3]){ 20000 * d65->r_over_g, 20000, 20000 * d65->b_over_g });
	awb_process(awb, s, &r);
	CHECK_EQ(r.state, CISP_AWB_SEARCHING);
	CHECK(r.colour_temperature > 2900 && r.colour_temperature < 6000);
	for (int i = 0; i < 60; i++) {
		awb_process(awb, s, &r2);
		CHECK(r2.colour_temperature >= r.colour_temperature - 1);
		r = r2;
	}
	CHECK_EQ(r.state, CISP_AWB_CONVERGED);
	CHECK_NEAR(r.colour_temperature, 6504, 60);

	/* Nothing grey (saturated green everywhere): the decision stays. */
	fill_zones(s, (double[3]){ 3000, 30000, 2000 });
	awb_process(awb, s, &r2);
	CHECK_NEAR(r2.colour_temperature, r.colour_temperature, 1);

	/* Manual colour temperature: the curve's gains, state manual, statistics ignored. */
	awb_set_manual(awb, false, false, 2856, NULL);
	awb_process(awb, s, &r);
	CHECK_EQ(r.state, CISP_AWB_MANUAL);
	CHECK_NEAR(r.colour_temperature, 2856, 1);
	CHECK_NEAR(r.gains[0], 1 / a->r_over_g, 1e-9);
	CHECK_NEAR(r.gains[2], 1 / a->b_over_g, 1e-9);

	/* Manual gains win; the temperature reported is the curve's nearest. */
	awb_set_manual(awb, false, true, 0, (double[2]){ 1 / d65->r_over_g, 1 / d65->b_over_g });
	awb_current(awb, &r);
	CHECK_EQ(r.state, CISP_AWB_MANUAL);
	CHECK_NEAR(r.gains[0], 1 / d65->r_over_g, 1e-9);
	CHECK_NEAR(r.colour_temperature, 6504, 20);

	/* Back to auto: searching again from the manual point. */
	awb_set_manual(awb, true, false, 0, NULL);
	awb_current(awb, &r);
	CHECK_EQ(r.state, CISP_AWB_SEARCHING);
	CHECK_NEAR(r.colour_temperature, 6504, 20);
out:
	awb_destroy(awb);
	free(s);
	cisp_tuning_free(t);
}
