/* SPDX-License-Identifier: MIT */
/*
 * The control algorithms: AE (split, convergence with delays on a model
 * sensor), flicker detection on synthetic row means, contrast AF on a
 * synthetic focus curve; then the whole loop closed on the virtual sensor
 * (cisp-test, 320x240) and the ISP's statistics.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/control.h>
#include <cisp/error.h>
#include <cisp/image.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>
#include <cisp/sensor.h>

#include "control/ae.h"
#include "control/algorithm.h"
#include "control/af.h"
#include "control/flicker.h"
#include "control/tuning.h"
#include "test.h"

/*
 * A tuning filled in directly: the parser's defaults, then the values
 * docs/control.md uses as examples where they differ.
 */
static struct cisp_tuning *make_tuning(void)
{
	struct cisp_tuning *t = calloc(1, sizeof(*t));

	tuning_defaults(t);
	strcpy(t->name, "test");
	t->uncalibrated = true;
	t->ae.max_exposure_us = 66000;
	t->awb.ct_count = 2;
	t->awb.ct[0] = (struct tuning_ct_point){ 2850, 0.9, 0.35 };
	t->awb.ct[1] = (struct tuning_ct_point){ 6500, 0.55, 0.75 };
	t->awb.max_curve_distance = 0.1;
	t->awb.transverse = 0;
	t->awb.speed = 0.5;
	t->awb.default_ct = 5000;
	t->af.scene_change = 0.3;
	t->flicker.detect_threshold = 0.05;
	t->ccm_count = 1;
	t->ccm[0].ct = 5000;
	for (int i = 0; i < 3; i++)
		t->ccm[0].m[i][i] = 1.0;
	t->noise_count = 1;
	t->noise[0].gain = 1;
	for (int c = 0; c < 4; c++) {
		t->noise[0].a[c] = 16;
		t->noise[0].b[c] = 1000;
	}
	t->denoise[0].sharpen_coring = 64;
	t->defect_threshold = 0;
	return t;
}

/* The limits of the cisp-test sensor's full mode (100 us lines). */
static struct ae_limits test_limits(void)
{
	return (struct ae_limits){
		.line_us = 100,
		.exposure_min = 4,
		.exposure_max = 329,
		.exposure_step = 1,
		.exposure_margin = 4,
		.frame_length_min = 333,
		.frame_length_max = 333,
		.again_min = 256,
		.again_max = 4096,
		.again_step = 1,
		.has_dgain = true,
		.dgain_min = 256,
		.dgain_max = 4096,
		.dgain_step = 1,
		.max_digital_gain = 4,
	};
}

TEST(control_ae_split_exposure_first)
{
	struct ae_limits l = test_limits();
	struct ae_exposure e;

	/* Exposure first (gain x1), then analogue gain past the longest exposure, then the sensor's digital gain. */
	static const struct {
		double product;
		int32_t exposure, again, dgain;
	} cases[] = {
		{ 5000, 50, 256, 256 },
		{ 100000, 329, 778, 256 },
		{ 329 * 100 * 16 * 2.5, 329, 4096, 640 },
		{ 1e9, 329, 4096, 1024 }, /* capped: the tuning allows x4 digital gain */
		{ 1, 4, 256, 256 },       /* the shortest exposure */
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ae_split(&l, cases[i].product, 0, &e);
		CHECK_EQ(e.exposure, cases[i].exposure);
		CHECK_EQ(e.again, cases[i].again);
		CHECK_EQ(e.dgain, cases[i].dgain);
		CHECK_NEAR(e.isp_dgain, 1.0, 1e-12);
		CHECK_EQ(e.frame_length, 333);
		double want = fmin(fmax(cases[i].product, ae_min_product(&l)), ae_max_product(&l));
		CHECK_NEAR(e.product / want, 1.0, 0.005);
	}

	/* Products are kept within a gain step across the range, and grow with the request. */
	double last = 0;
	for (double p = ae_min_product(&l); p < ae_max_product(&l); p *= 1.07) {
		ae_split(&l, p, 0, &e);
		CHECK(e.product <= p * 1.000001);
		CHECK(e.product >= p * 0.99);
		CHECK(e.product >= last);
		last = e.product;
	}
}

TEST(control_ae_split_flicker_periods)
{
	struct ae_limits l = test_limits();
	struct ae_exposure e;

	/* 50 Hz mains: whole 10 ms periods, gain makes up the rest. */
	ae_split(&l, 25000, flicker_period_us(50), &e);
	CHECK_EQ(e.exposure, 200);
	CHECK_NEAR(e.again / 256.0, 1.25, 0.005);
	ae_split(&l, 32000, flicker_period_us(50), &e);
	CHECK_EQ(e.exposure, 300);
	/* 60 Hz: 8.33 ms periods, rounded to the nearest line. */
	ae_split(&l, 30000, flicker_period_us(60), &e);
	CHECK_EQ(e.exposure, 250);
	/* Too bright for one period: shorter, banding cannot be avoided. */
	ae_split(&l, 8000, flicker_period_us(50), &e);
	CHECK_EQ(e.exposure, 80);
	CHECK_EQ(e.again, 256);
	CHECK_NEAR(flicker_visibility(50, 0.02, false), 0, 1e-12);
	CHECK_NEAR(flicker_visibility(60, 0.025, false), 0, 1e-12);
	CHECK_NEAR(flicker_visibility(50, 0.003, false), sin(M_PI * 0.3) / (M_PI * 0.3), 1e-12);
}

/*
 * A model sensor for AE: a uniform scene of luma @scene per unit product,
 * clipped at full scale, as statistics with 16 x 12 zones.
 */
static void model_stats(struct cisp_stats *s, double scene, double product)
{
	memset(s, 0, sizeof(*s));
	s->valid = CISP_STATS_ZONES | CISP_STATS_HIST;
	s->zones_x = 16;
	s->zones_y = 12;
	double v = scene * product;
	for (int i = 0; i < 16 * 12; i++) {
		struct cisp_stats_zone *z = &s->zone[i];
		z->total = 100;
		/* A quarter of each zone is 3x brighter (highlights), the rest at 2/3 of the mean. */
		const double level[2] = { v * 2.0 / 3.0, v * 2.0 };
		const unsigned cells[2] = { 75, 25 };
		double sum = 0;
		unsigned count = 0;
		for (int k = 0; k < 2; k++) {
			bool clipped = level[k] >= 0.99;
			s->hist[clipped ? 255 : (int)fmin(level[k] * 256, 255)] += cells[k];
			if (!clipped) {
				sum += cells[k] * level[k];
				count += cells[k];
			}
		}
		z->count = count;
		uint16_t g = count ? (uint16_t)lround(sum / count * 65535) : 0;
		z->r = z->g = z->b = g;
	}
}

/*
 * Run AE against the model with the sensor's delays: a decision made on
 * frame n is first used by frame n + 3. Returns the first frame within 5%
 * of target from which every later frame stays within it; records the
 * largest overshoot past the target (relative) after the first crossing.
 */
static int run_ae_model(double start_ratio, double *overshoot, unsigned frames)
{
	struct cisp_tuning *t = make_tuning();
	struct ae_limits l = test_limits();
	l.frame_length_max = 1000;
	l.exposure_max = 660;
	struct ae ae;
	struct cisp_stats *s = malloc(sizeof(*s));
	const double wb[3] = { 1, 1, 1 };
	/* The scene's right product puts the mean at 0.18: 20 ms x 1. */
	double scene = 0.18 / 20000.0, truth = 20000;
	double applied[512];
	int settled = -1;

	ae_init(&ae, t);
	ae_reset(&ae, truth * start_ratio);
	for (unsigned n = 0; n < frames; n++)
		applied[n] = truth * start_ratio;
	*overshoot = 0;
	for (unsigned n = 0; n < frames; n++) {
		struct ae_measure m;
		model_stats(s, scene, applied[n]);
		ae_measure(t, CISP_AE_METERING_MATRIX, s, wb, 1.0, &m);
		double ratio = applied[n] / truth;
		if (fabs(ratio - 1) <= 0.05) {
			if (settled < 0)
				settled = (int)n;
		} else {
			settled = -1;
		}
		if (start_ratio < 1 && ratio > 1)
			*overshoot = fmax(*overshoot, ratio - 1);
		if (start_ratio > 1 && ratio < 1)
			*overshoot = fmax(*overshoot, 1 - ratio);
		double d = ae_process(&ae, &m, applied[n], ae_min_product(&l), ae_max_product(&l));
		struct ae_exposure e;
		ae_split(&l, d, 0, &e);
		for (unsigned k = n + 3; k < frames; k++)
			applied[k] = e.product;
	}
	free(s);
	free(t);
	return settled;
}

TEST(control_ae_converges_with_delays)
{
	double over;
	int under8 = run_ae_model(1.0 / 8, &over, 200);
	CHECK(under8 >= 0 && under8 <= 8);
	CHECK(over <= 0.10);
	int over8 = run_ae_model(8.0, &over, 200);
	CHECK(over8 >= 0 && over8 <= 8);
	CHECK(over <= 0.10);
	/* A small error is damped, not jumped, and still settles. */
	int small = run_ae_model(1.3, &over, 60);
	CHECK(small >= 0 && small <= 20);
	CHECK(over <= 0.05);
}

TEST(control_ae_highlights_and_states)
{
	struct cisp_tuning *t = make_tuning();
	struct cisp_stats *s = malloc(sizeof(*s));
	struct ae ae;
	struct ae_measure m;
	const double wb[3] = { 1, 1, 1 };

	/* The model scene's highlights sit at 2x the mean: a 0.95 limit at mean 0.5 caps the aim. */
	t->ae.target = 0.5;
	ae_init(&ae, t);
	ae_reset(&ae, 10000);
	model_stats(s, 0.2 / 10000, 10000);
	ae_measure(t, CISP_AE_METERING_CENTRE, s, wb, 1.0, &m);
	CHECK_NEAR(m.mean, 0.2, 0.002);
	CHECK_NEAR(m.highlight, (int)(0.4 * 256 + 1) / 256.0, 1e-9);
	double d = ae_process(&ae, &m, 10000, 1, 1e9);
	/* The mean alone asks 2.5x; the highlights allow 0.95 / 0.41 = 2.3x. */
	CHECK(d < 10000 * 2.4 && d > 10000 * 2.2);
	CHECK_EQ(ae.state, CISP_AE_SEARCHING);

	/* Too dark for the largest product: limited. */
	t->ae.target = 0.18;
	ae_reset(&ae, 1000);
	model_stats(s, 0.001 / 1000, 1000);
	ae_measure(t, CISP_AE_METERING_SPOT, s, wb, 1.0, &m);
	d = ae_process(&ae, &m, 1000, 1, 5000);
	CHECK_NEAR(d, 5000, 1e-9);
	CHECK_EQ(ae.state, CISP_AE_LIMITED);

	/* On target: converged, and the decision holds still. */
	ae_reset(&ae, 20000);
	model_stats(s, 0.18 / 20000, 20000);
	ae_measure(t, CISP_AE_METERING_CENTRE, s, wb, 1.0, &m);
	d = ae_process(&ae, &m, 20000, 1, 1e9);
	CHECK_EQ(ae.state, CISP_AE_CONVERGED);
	CHECK_NEAR(d, 20000, 1e-9);
	CHECK_NEAR(ae.error, 1.0, 0.01);
	/* EV +1 doubles the aim. */
	ae.ev = 1;
	d = ae_process(&ae, &m, 20000, 1, 1e9);
	CHECK_NEAR(d / 40000, 1.0, 0.01);
	free(s);
	free(t);
}

/*
 * Whatever the tuning parser accepts keeps AE's error finite and its decision
 * settling, at every EV and from far too dark and too bright: after 900
 * frames the decision no longer moves and AE says converged or limited (a
 * decision that holds just short of a limit is limited, not searching). AE
 * keys at the ends of their ranges; absurd values (ae.target 4.9e-324 made
 * the error infinite) must be refused instead.
 */
TEST(control_ae_converges_from_every_valid_tuning)
{
	static const char *const ae_keys[] = {
		"{target: 4.9e-324}",
		"{target: 1e-300, tolerance: 1e-300, speed: 1e-300}",
		"{target: 0.9}",
		"{tolerance: 1e-12}",
		"{speed: 1e-12}",
		"{highlight_level: 4.9e-324}",
		"{target: 0.01, tolerance: 0.01, speed: 0.1}",
		"{target: 0.5, tolerance: 0.01, speed: 0.1}",
		"{target: 0.5, highlight_level: 0.1, highlight_fraction: 0.5}",
		"{target: 0.01, highlight_level: 1, highlight_fraction: 0, tolerance: 0.5, speed: 1}",
	};
	static const double evs[] = { -4, 0, 4 }, starts[] = { 1.0 / 8, 8 };
	struct cisp_stats *s = malloc(sizeof(*s));
	const double wb[3] = { 1, 1, 1 };
	unsigned accepted = 0;

	for (size_t k = 0; k < sizeof(ae_keys) / sizeof(ae_keys[0]); k++) {
		char text[512];
		struct cisp_tuning *t = NULL;

		snprintf(text, sizeof(text),
			 "version: 1\nsensor: s\nawb: {ct: [{ct: 5000, r_over_g: 0.6, b_over_g: 0.6}]}\n"
			 "ccm: [{ct: 5000, matrix: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}]\n"
			 "noise: [{gain: 1, a: [1, 1, 1, 1], b: [1, 1, 1, 1]}]\nae: %s\n",
			 ae_keys[k]);
		if (cisp_tuning_parse(&t, text, strlen(text), "ae.yaml")) {
			CHECK(strstr(cisp_last_error(), "ae.yaml:6: ae.") && strstr(cisp_last_error(), "is outside"));
			continue;
		}
		accepted++;
		for (size_t e = 0; e < sizeof(evs) / sizeof(evs[0]); e++) {
			for (size_t st = 0; st < 2; st++) {
				struct ae_limits l = test_limits();
				double truth = 20000, scene = 0.18 / truth, applied[1000], settled_at = 0;
				struct ae ae;
				bool finite = true;

				ae_init(&ae, t);
				ae.ev = evs[e];
				ae_reset(&ae, truth * starts[st]);
				for (unsigned n = 0; n < 1000; n++)
					applied[n] = truth * starts[st];
				/* A decision reaches the frame 3 later, as on a sensor with an exposure delay of 2. */
				for (unsigned n = 0; n < 1000; n++) {
					struct ae_measure m;
					struct ae_exposure x;

					model_stats(s, scene, applied[n]);
					ae_measure(t, CISP_AE_METERING_CENTRE, s, wb, 1.0, &m);
					double d = ae_process(&ae, &m, applied[n], ae_min_product(&l), ae_max_product(&l));
					finite &= isfinite(ae.error) && ae.error > 0 && isfinite(d) && d > 0;
					ae_split(&l, d, 0, &x);
					for (unsigned f = n + 3; f < 1000; f++)
						applied[f] = x.product;
					if (n == 900)
						settled_at = d;
				}
				if (!finite || ae.decided != settled_at ||
				    (ae.state != CISP_AE_CONVERGED && ae.state != CISP_AE_LIMITED &&
				     fabs(ae.error - 1) > t->ae.tolerance))
					test_fail(__FILE__, __LINE__, "ae %s, EV %g, start x%g: finite %d, decision %g then %g, %s, "
						  "error %g", ae_keys[k], evs[e], starts[st], finite, settled_at, ae.decided,
						  cisp_ae_state_name(ae.state), ae.error);
			}
		}
		cisp_tuning_free(t);
	}
	CHECK_EQ(accepted, 4);
	free(s);
}

/* Row means of a scene with vertical structure under light modulated at twice @mains. */
static void flicker_rows(struct cisp_stats *s, unsigned mains, double depth, uint64_t ts_ns, double exposure_s,
			 double line_s, uint64_t *rng)
{
	memset(s, 0, sizeof(*s));
	s->valid = CISP_STATS_ROWS;
	s->row_group = 1;
	s->row_count = 120;
	for (unsigned k = 0; k < 120; k++) {
		double scene = 12000 + 6000 * sin(k * 0.37) + (k % 20 < 8 ? 5000 : 0);
		double t1 = ts_ns * 1e-9 + (2.0 * k + 0.5) * line_s;
		double band = 1;
		if (mains) {
			double w = 2 * M_PI * 2 * mains;
			band += depth * (sin(w * t1) - sin(w * (t1 - exposure_s))) / (w * exposure_s);
		}
		*rng ^= *rng << 13;
		*rng ^= *rng >> 7;
		*rng ^= *rng << 17;
		double noise = ((*rng >> 11) * (1.0 / 9007199254740992.0) - 0.5) * 20;
		s->row_mean[k] = (uint16_t)lround(scene * band + noise);
	}
}

/* Feed @frames frames of the given light; return the detection. */
static unsigned run_flicker(unsigned mains, double depth, double frame_s, double exposure_s, unsigned frames)
{
	struct flicker *f = malloc(sizeof(*f));
	struct cisp_stats *s = malloc(sizeof(*s));
	struct cisp_sensor_metadata md = { 0 };
	uint64_t rng = 0x9e3779b97f4a7c15ull;

	flicker_init(f, 0.05);
	for (unsigned n = 0; n < frames; n++) {
		md.sequence = n;
		md.timestamp_ns = 1000000000ull + (uint64_t)llround(n * frame_s * 1e9);
		md.exposure_ns = (uint64_t)llround(exposure_s * 1e9);
		flicker_rows(s, mains, depth, md.timestamp_ns, exposure_s, 100e-6, &rng);
		flicker_process(f, s, &md, 100e3);
	}
	unsigned hz = f->detected_hz;
	free(s);
	free(f);
	return hz;
}

TEST(control_flicker_detects_mains)
{
	/* 30 frames/s, 15 ms exposure: 50 Hz bands move a third of a period per frame. */
	CHECK_EQ(run_flicker(50, 0.3, 1 / 30.0, 0.015, 8), 50);
	CHECK_EQ(run_flicker(0, 0.3, 1 / 30.0, 0.015, 20), 0);
	/* Weak light modulation under the threshold is not flicker. */
	CHECK_EQ(run_flicker(50, 0.02, 1 / 30.0, 0.015, 20), 0);
	/* 60 Hz mains at 25 frames/s. */
	CHECK_EQ(run_flicker(60, 0.3, 1 / 25.0, 0.012, 8), 60);
	/* Two frames are not enough to decide. */
	CHECK_EQ(run_flicker(50, 0.3, 1 / 30.0, 0.015, 2), 0);
}

/* Feed frames @n .. @end - 1 at 30 frames/s with the given light and exposure. */
static void feed_flicker(struct flicker *f, struct cisp_stats *s, unsigned *n, unsigned end, unsigned mains,
			 double exposure_s, uint64_t *rng)
{
	struct cisp_sensor_metadata md = { 0 };
	for (; *n < end; (*n)++) {
		md.sequence = *n;
		md.timestamp_ns = (uint64_t)*n * 33333333;
		md.exposure_ns = (uint64_t)llround(exposure_s * 1e9);
		flicker_rows(s, mains, 0.3, md.timestamp_ns, exposure_s, 100e-6, rng);
		flicker_process(f, s, &md, 100e3);
	}
}

TEST(control_flicker_clears_and_skips_blind_frames)
{
	struct flicker *f = malloc(sizeof(*f));
	struct cisp_stats *s = malloc(sizeof(*s));
	uint64_t rng = 1;
	unsigned n = 0;

	flicker_init(f, 0.05);
	feed_flicker(f, s, &n, 6, 50, 0.015, &rng);
	CHECK_EQ(f->detected_hz, 50);
	/* Exposures of whole periods show no bands: those frames say nothing, the detection stays. */
	feed_flicker(f, s, &n, 60, 50, 0.020, &rng);
	CHECK_EQ(f->detected_hz, 50);
	/* The light turns steady: after enough visible frames, the detection goes. */
	feed_flicker(f, s, &n, 120, 0, 0.015, &rng);
	CHECK_EQ(f->detected_hz, 0);
	free(s);
	free(f);
}

/* A focus curve like the virtual sensor's: figure ~ 1 / blur sigma, a noise floor. */
static double focus_curve(int32_t p, int32_t peak, uint64_t *rng)
{
	double sigma = sqrt(0.25 + pow(0.03 * (p - peak), 2));
	*rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
	/* +-2% noise, as the virtual sensor's figure shows. */
	double noise = ((*rng >> 11) * (1.0 / 9007199254740992.0) - 0.5) * 0.04;
	return (0.02 + 0.1 / fmin(sigma, 8.0)) * (1 + noise);
}

/* Run AF with a lens that moves 3 frames after each decision; return the frames until focused. */
static int run_af_steps(int32_t peak, bool flat, unsigned coarse, unsigned fine, int32_t *final,
			enum cisp_af_state *state)
{
	struct cisp_tuning *t = make_tuning();
	if (coarse)
		t->af.coarse_steps = coarse;
	if (fine)
		t->af.fine_steps = fine;
	struct af af;
	int32_t lens[256];
	uint64_t rng = 7;
	int frames = -1;

	af_init(&af, t, 0, 1023, 3, 500);
	for (int n = 0; n < 256; n++)
		lens[n] = 500;
	for (int n = 0; n < 200; n++) {
		double s = flat ? 0.05 + ((rng = rng * 6364136223846793005ull + 1) >> 60) * 1e-4 : focus_curve(lens[n], peak, &rng);
		int32_t p = af_process(&af, s, 0.1, lens[n], true);
		for (int k = n + 3; k < 256; k++)
			lens[k] = p;
		if (af.state != CISP_AF_SCANNING && frames < 0)
			frames = n;
	}
	*final = af.position;
	*state = af.state;
	free(t);
	return frames;
}

static int run_af(int32_t peak, bool flat, int32_t *final, enum cisp_af_state *state)
{
	return run_af_steps(peak, flat, 0, 0, final, state);
}

TEST(control_af_finds_peak)
{
	static const int32_t peaks[] = { 300, 417, 20, 1000, 655 };
	for (unsigned i = 0; i < sizeof(peaks) / sizeof(peaks[0]); i++) {
		int32_t pos;
		enum cisp_af_state st;
		int frames = run_af(peaks[i], false, &pos, &st);
		CHECK_EQ(st, CISP_AF_FOCUSED);
		CHECK(abs(pos - peaks[i]) <= 20);
		CHECK(frames > 0 && frames <= 30);
	}
	int32_t pos;
	enum cisp_af_state st;
	/* The tuning's largest sweeps are cut to the points AF keeps, over the whole range. */
	int frames = run_af_steps(900, false, 256, 256, &pos, &st);
	CHECK_EQ(st, CISP_AF_FOCUSED);
	CHECK(abs(pos - 900) <= 20);
	CHECK(frames > 0 && frames < 200);
	run_af(400, true, &pos, &st);
	CHECK_EQ(st, CISP_AF_FAILED);
	CHECK_EQ(pos, 500);
}

TEST(control_af_modes)
{
	struct cisp_tuning *t = make_tuning();
	struct af af;

	af_init(&af, t, 0, 1023, 2, 100);
	af_set_mode(&af, CISP_AF_MANUAL, 640);
	CHECK_EQ(af_process(&af, 1, 1, 100, true), 640);
	CHECK_EQ(af.state, CISP_AF_IDLE);
	/* Auto: nothing until triggered. */
	af_set_mode(&af, CISP_AF_AUTO, 640);
	CHECK_EQ(af_process(&af, 1, 1, 640, true), 640);
	CHECK_EQ(af.state, CISP_AF_IDLE);
	af_trigger(&af);
	af_process(&af, 1, 1, 640, true);
	CHECK_EQ(af.state, CISP_AF_SCANNING);
	/* Not settled: the scan waits. */
	af_set_mode(&af, CISP_AF_CONTINUOUS, 640);
	CHECK_EQ(af.phase, AF_PHASE_WAIT);
	af_process(&af, 1, 1, 640, false);
	CHECK_EQ(af.phase, AF_PHASE_WAIT);
	free(t);
}

/* ---- the loop closed on the virtual sensor ---- */

struct loop {
	struct cisp_tuning *t;
	struct cisp_sensor *s;
	struct cisp_sensor_mode mode;
	struct cisp_isp *isp;
	struct cisp_control *c;
	struct cisp_image raw;
	struct cisp_stats *stats;
	struct cisp_sensor_metadata md;
	struct cisp_control_result res;
	unsigned late; /* results too late to queue, written at once */
};

static void loop_params(struct loop *l)
{
	size_t size;
	CHECK_EQ(cisp_params_encode(l->res.params, l->res.params_changed, NULL, 0, &size), 0);
	void *buf = malloc(size);
	CHECK_EQ(cisp_params_encode(l->res.params, l->res.params_changed, buf, size, &size), 0);
	CHECK_EQ(cisp_isp_set_params(l->isp, buf, size), 0);
	free(buf);
}

/* @hide: controls (1u << id) the loop is told the sensor lacks. */
static bool loop_open_with(struct loop *l, const char *options, const struct cisp_control_request *req,
			   uint32_t hide)
{
	memset(l, 0, sizeof(*l));
	l->t = make_tuning();
	if (cisp_sensor_open(&l->s, "virtual:cisp-test", options) < 0) {
		test_fail(__FILE__, __LINE__, "cannot open the virtual sensor: %s", cisp_last_error());
		return false;
	}
	struct cisp_control_config cfg = { .tuning = l->t };
	CHECK_EQ(cisp_sensor_get_mode(l->s, 0, &l->mode), 0);
	cfg.mode = l->mode;
	for (int i = 0; i < CISP_SENSOR_NUM_CONTROLS; i++)
		CHECK_EQ(cisp_sensor_control_info(l->s, (enum cisp_sensor_control)i, &cfg.controls[i]), 0);
	for (int i = 0; i < CISP_SENSOR_NUM_CONTROLS; i++)
		if (hide & (1u << i))
			cfg.controls[i].supported = false;
	CHECK_EQ(cisp_control_create(&l->c, &cfg), 0);
	if (req)
		CHECK_EQ(cisp_control_request(l->c, req), 0);
	struct cisp_isp_config ic = { .input_format = l->mode.format, .width = l->mode.width, .height = l->mode.height };
	ic.output[0] = (struct cisp_output_config){ CISP_FMT_NV12, l->mode.width, l->mode.height };
	CHECK_EQ(cisp_isp_create(&l->isp, &ic), 0);
	CHECK_EQ(cisp_image_alloc(&l->raw, l->mode.format, l->mode.width, l->mode.height), 0);
	l->stats = malloc(sizeof(*l->stats));
	CHECK_EQ(cisp_control_start(l->c, &l->res), 0);
	CHECK_EQ(cisp_sensor_set_controls(l->s, &l->res.sensor), 0);
	loop_params(l);
	CHECK_EQ(cisp_sensor_start(l->s), 0);
	return l->c && l->isp;
}

static bool loop_open(struct loop *l, const char *options, const struct cisp_control_request *req)
{
	return loop_open_with(l, options, req, 0);
}

/* One frame: capture, statistics, the loop, its decisions back to the sensor and the ISP. */
static void loop_step(struct loop *l)
{
	CHECK_EQ(cisp_sensor_capture(l->s, &l->raw, &l->md, 0), 0);
	CHECK_EQ(cisp_isp_statistics(l->isp, &l->raw, NULL, l->stats, NULL), 0);
	CHECK_EQ(cisp_control_process(l->c, l->stats, &l->md, &l->res), 0);
	if (l->res.sensor.mask) {
		int r = cisp_sensor_queue_controls(l->s, l->res.sensor_sequence, &l->res.sensor);
		if (r == -EAGAIN) {
			l->late++;
			r = cisp_sensor_set_controls(l->s, &l->res.sensor);
		}
		CHECK_EQ(r, 0);
	}
	if (l->res.params_changed)
		loop_params(l);
}

static void loop_close(struct loop *l)
{
	cisp_control_destroy(l->c);
	cisp_isp_destroy(l->isp);
	cisp_sensor_close(l->s);
	cisp_image_free(&l->raw);
	free(l->stats);
	free(l->t);
}

/* Frames until every later frame (of @frames) is within 5% of the target (-1 if never); the largest error. */
static int frames_to_settle(struct loop *l, unsigned frames, double *worst)
{
	int settled = -1;
	*worst = 0;
	for (unsigned n = 0; n < frames; n++) {
		loop_step(l);
		double e = l->res.state.ae_error;
		*worst = fmax(*worst, fabs(e - 1));
		if (fabs(e - 1) <= 0.05) {
			if (settled < 0)
				settled = (int)n;
		} else {
			settled = -1;
		}
	}
	return settled;
}

TEST(control_loop_ae_steps)
{
	struct loop l;
	double worst;
	if (!loop_open(&l, "scene=colorchart,lux=400,seed=3", NULL))
		return;
	/* From the 10 ms start to the target, then steady. */
	int first = frames_to_settle(&l, 30, &worst);
	CHECK(first >= 0 && first <= 10);
	CHECK_EQ(l.res.state.ae_state, CISP_AE_CONVERGED);
	CHECK_EQ(l.late, 0);
	double base_exposure = l.res.state.exposure_us * l.res.state.analogue_gain * l.res.state.digital_gain;

	/* 8x less light: 8x the product, within 8 frames; 8x more: back. */
	CHECK_EQ(cisp_sensor_set_option(l.s, "lux", "50"), 0);
	int under = frames_to_settle(&l, 40, &worst);
	CHECK(under >= 0 && under <= 8);
	double p = l.res.state.exposure_us * l.res.state.analogue_gain * l.res.state.digital_gain;
	CHECK_NEAR(p / base_exposure, 8.0, 8.0 * 0.08);
	CHECK_EQ(cisp_sensor_set_option(l.s, "lux", "400"), 0);
	int over = frames_to_settle(&l, 40, &worst);
	CHECK(over >= 0 && over <= 8);
	p = l.res.state.exposure_us * l.res.state.analogue_gain * l.res.state.digital_gain;
	CHECK_NEAR(p / base_exposure, 1.0, 0.08);
	/* Exposure goes first, within the mode's 33.3 ms frame: at 400 lux hardly any gain is needed. */
	CHECK_EQ(l.md.frame_duration_ns, 33300000);
	CHECK(l.res.state.analogue_gain < 1.1);
	loop_close(&l);
}

TEST(control_loop_isp_digital_gain_and_frame_duration)
{
	struct loop l;
	double worst;
	/* Dark, a 30 frames/s limit and no sensor digital gain: the longest exposure, x16, then the ISP's gain. */
	const struct cisp_control_request r = { .mask = CISP_REQ_FRAME_DURATION, .frame_duration_us = { 0, 33333 } };
	if (!loop_open_with(&l, "scene=colorchart,lux=10,seed=10", &r, 1u << CISP_SENSOR_DIGITAL_GAIN))
		return;
	int settled = frames_to_settle(&l, 40, &worst);
	CHECK(settled >= 0 && settled <= 12);
	CHECK_EQ(l.md.controls[CISP_SENSOR_EXPOSURE], 329);
	CHECK_EQ(l.md.controls[CISP_SENSOR_ANALOGUE_GAIN], 16 * 256);
	CHECK_EQ(l.md.controls[CISP_SENSOR_DIGITAL_GAIN], 256);
	CHECK(l.md.frame_duration_ns <= 33333333);
	CHECK(l.res.state.digital_gain > 1.5 && l.res.state.digital_gain < 4.0);
	/* The ISP's share is in the WB gains: green carries it alone. */
	CHECK_NEAR(l.res.params->wb.gain[CISP_CH_GR] / 4096.0, l.res.state.digital_gain, 0.01);
	CHECK_EQ(l.res.state.ae_state, CISP_AE_CONVERGED);
	/* Stable: the ISP's gain reaches the same frames as it is judged on. */
	frames_to_settle(&l, 30, &worst);
	CHECK(worst < 0.03);
	loop_close(&l);

	/* No sensor gains at all: past the longest exposure only the ISP's gain moves, alone. */
	if (!loop_open_with(&l, "scene=colorchart,lux=150,seed=10", &r,
			    1u << CISP_SENSOR_DIGITAL_GAIN | 1u << CISP_SENSOR_ANALOGUE_GAIN))
		return;
	settled = frames_to_settle(&l, 40, &worst);
	CHECK(settled >= 0 && settled <= 12);
	CHECK_EQ(l.md.controls[CISP_SENSOR_EXPOSURE], 329);
	CHECK(l.res.state.digital_gain > 1.5 && l.res.state.digital_gain < 4.0);
	CHECK_EQ(l.res.state.ae_state, CISP_AE_CONVERGED);
	/* The light falls by a fifth: the ISP's gain alone follows. */
	CHECK_EQ(cisp_sensor_set_option(l.s, "lux", "120"), 0);
	double before = l.res.state.digital_gain;
	settled = frames_to_settle(&l, 30, &worst);
	CHECK(settled >= 0 && settled <= 8);
	CHECK_NEAR(l.res.state.digital_gain / before, 1.25, 0.05);
	CHECK_EQ(l.md.controls[CISP_SENSOR_EXPOSURE], 329);
	loop_close(&l);
}

TEST(control_loop_without_exposure_control)
{
	struct loop l;
	double worst;
	/* A sensor that only has gains (like vimc): the exposure stays the sensor's, AE uses the gain. */
	if (!loop_open_with(&l, "scene=colorchart,lux=100,seed=15", NULL, 1u << CISP_SENSOR_EXPOSURE))
		return;
	loop_step(&l);
	int32_t exposure = l.md.controls[CISP_SENSOR_EXPOSURE];
	int settled = frames_to_settle(&l, 30, &worst);
	CHECK(settled >= 0 && settled <= 10);
	CHECK_EQ(l.md.controls[CISP_SENSOR_EXPOSURE], exposure);
	CHECK(l.md.controls[CISP_SENSOR_ANALOGUE_GAIN] > 256);
	CHECK_NEAR(l.res.state.exposure_us, l.md.exposure_ns / 1000.0, 100);
	CHECK_EQ(l.res.state.ae_state, CISP_AE_CONVERGED);
	loop_close(&l);
}

TEST(control_loop_frames_get_their_decisions)
{
	struct loop l;
	if (!loop_open(&l, "scene=resolution,lux=150,seed=4", NULL))
		return;
	struct cisp_sensor_control_info info[CISP_SENSOR_NUM_CONTROLS];
	for (int i = 0; i < CISP_SENSOR_NUM_CONTROLS; i++)
		CHECK_EQ(cisp_sensor_control_info(l.s, (enum cisp_sensor_control)i, &info[i]), 0);
	/*
	 * Each result names frame n + 1 + the largest delay of the controls it
	 * changes (exposure 2: n + 3; the lens alone, 1: n + 2), and that frame
	 * uses them. AE converges and AF sweeps meanwhile, so both kinds occur.
	 */
	int32_t want[80][CISP_SENSOR_NUM_CONTROLS];
	uint32_t have[80] = { 0 };
	unsigned lens_only = 0, with_exposure = 0;
	for (unsigned n = 0; n < 60; n++) {
		loop_step(&l);
		uint64_t seq = l.md.sequence;
		for (int i = 0; i < CISP_SENSOR_NUM_CONTROLS; i++)
			if (have[seq] & (1u << i))
				CHECK_EQ(l.md.controls[i], want[seq][i]);
		uint32_t mask = l.res.sensor.mask;
		if (!mask)
			continue;
		unsigned delay = 0;
		for (int i = 0; i < CISP_SENSOR_NUM_CONTROLS; i++)
			if ((mask & (1u << i)) && info[i].delay > delay)
				delay = info[i].delay;
		CHECK_EQ(l.res.sensor_sequence, seq + 1 + delay);
		lens_only += mask == 1u << CISP_SENSOR_LENS_POSITION;
		with_exposure += (mask & (1u << CISP_SENSOR_EXPOSURE)) != 0;
		uint64_t f = l.res.sensor_sequence;
		for (int i = 0; i < CISP_SENSOR_NUM_CONTROLS && f < 80; i++) {
			if (mask & (1u << i)) {
				want[f][i] = l.res.sensor.value[i];
				have[f] |= 1u << i;
			}
		}
	}
	CHECK(lens_only >= 10);
	CHECK(with_exposure >= 1);
	CHECK_EQ(l.late, 0);
	loop_close(&l);
}

TEST(control_loop_flicker_50hz)
{
	struct loop l;
	/* Bright enough for about 15 ms: bands of 6% until detected. */
	if (!loop_open(&l, "scene=colorchart,lux=900,flicker=50,seed=5", NULL))
		return;
	int found = -1;
	for (unsigned n = 0; n < 40; n++) {
		loop_step(&l);
		if (found < 0 && l.res.state.flicker_hz == 50)
			found = (int)n;
	}
	CHECK(found >= 0 && found < 20);
	CHECK(l.res.state.flicker_detected);
	/* Exposure in whole 10 ms periods (100 lines), brightness on target with gain. */
	CHECK_EQ(l.md.controls[CISP_SENSOR_EXPOSURE] % 100, 0);
	CHECK(l.md.controls[CISP_SENSOR_EXPOSURE] >= 100);
	CHECK_NEAR(l.res.state.ae_error, 1.0, 0.05);
	loop_close(&l);

	/* Steady light: nothing detected, exposure unrestricted. */
	if (!loop_open(&l, "scene=colorchart,lux=700,seed=5", NULL))
		return;
	for (unsigned n = 0; n < 40; n++)
		loop_step(&l);
	CHECK_EQ(l.res.state.flicker_hz, 0);
	CHECK(!l.res.state.flicker_detected);
	loop_close(&l);

	/* 60 Hz mains at 25 frames/s (at 30 the bands would stand still): detected too. */
	const struct cisp_control_request r25 = { .mask = CISP_REQ_FRAME_DURATION, .frame_duration_us = { 40000, 40000 } };
	if (!loop_open(&l, "scene=colorchart,lux=1100,flicker=60,seed=5", &r25))
		return;
	found = -1;
	for (unsigned n = 0; n < 40; n++) {
		loop_step(&l);
		if (found < 0 && l.res.state.flicker_hz == 60)
			found = (int)n;
	}
	CHECK(found >= 0 && found < 20);
	CHECK_EQ(l.md.frame_duration_ns, 40000000);
	double periods = l.md.controls[CISP_SENSOR_EXPOSURE] / 83.333;
	CHECK_NEAR(periods, round(periods), 0.01);
	CHECK(round(periods) >= 1);
	loop_close(&l);

	/* Forced 60 Hz: 8.33 ms periods without detection. */
	const struct cisp_control_request r = { .mask = CISP_REQ_FLICKER, .flicker = CISP_FLICKER_60HZ };
	if (!loop_open(&l, "scene=colorchart,lux=700,seed=5", &r))
		return;
	for (unsigned n = 0; n < 30; n++)
		loop_step(&l);
	CHECK_EQ(l.res.state.flicker_hz, 60);
	CHECK(!l.res.state.flicker_detected);
	periods = l.md.controls[CISP_SENSOR_EXPOSURE] / 83.333;
	CHECK_NEAR(periods, round(periods), 0.01);
	loop_close(&l);
}

TEST(control_loop_af_focuses)
{
	struct loop l;
	if (!loop_open(&l, "scene=resolution,lux=400,seed=6", NULL))
		return;
	struct cisp_vsensor_truth truth;
	CHECK_EQ(cisp_vsensor_truth(l.s, &truth), 0);
	int focused = -1;
	for (unsigned n = 0; n < 60 && focused < 0; n++) {
		loop_step(&l);
		if (l.res.state.af_state == CISP_AF_FOCUSED)
			focused = (int)n;
	}
	CHECK(focused > 0 && focused <= 40);
	CHECK(abs(l.res.state.lens_position - truth.focus_position) <= 20);
	/* The scene moves closer: continuous AF notices and refocuses. */
	CHECK_EQ(cisp_sensor_set_option(l.s, "distance", "0.3"), 0);
	CHECK_EQ(cisp_vsensor_truth(l.s, &truth), 0);
	bool rescanned = false;
	for (unsigned n = 0; n < 60; n++) {
		loop_step(&l);
		rescanned |= l.res.state.af_state == CISP_AF_SCANNING;
	}
	CHECK(rescanned);
	CHECK_EQ(l.res.state.af_state, CISP_AF_FOCUSED);
	CHECK(abs(l.res.state.lens_position - truth.focus_position) <= 20);
	loop_close(&l);
}

TEST(control_loop_manual_and_auto_af)
{
	struct loop l;
	const struct cisp_control_request r = {
		.mask = CISP_REQ_AE_ENABLE | CISP_REQ_EXPOSURE | CISP_REQ_ANALOGUE_GAIN | CISP_REQ_AF_MODE |
			CISP_REQ_LENS_POSITION | CISP_REQ_AWB_ENABLE | CISP_REQ_COLOUR_GAINS,
		.ae_enable = false,
		.exposure_us = 12345,
		.analogue_gain = 100, /* over the sensor's x16: clamped */
		.af_mode = CISP_AF_MANUAL,
		.lens_position = 5000, /* over the motor's 1023: clamped */
		.awb_enable = false,
		.colour_gains = { 2.0, 1.5 },
	};
	if (!loop_open(&l, "scene=resolution,lux=400,seed=7", &r))
		return;
	for (unsigned n = 0; n < 6; n++)
		loop_step(&l);
	CHECK_EQ(l.md.controls[CISP_SENSOR_EXPOSURE], 123);
	CHECK_EQ(l.md.controls[CISP_SENSOR_ANALOGUE_GAIN], 16 * 256);
	CHECK_EQ(l.md.controls[CISP_SENSOR_LENS_POSITION], 1023);
	CHECK_EQ(l.res.state.ae_state, CISP_AE_MANUAL);
	CHECK_EQ(l.res.state.awb_state, CISP_AWB_MANUAL);
	CHECK_EQ(l.res.state.af_state, CISP_AF_IDLE);
	CHECK_NEAR(l.res.state.colour_gains[0], 2.0, 1e-9);
	CHECK_NEAR(l.res.state.colour_gains[1], 1.5, 1e-9);
	CHECK_EQ(l.res.params->wb.gain[CISP_CH_R], 2 * 4096);
	/* Back to auto exposure; auto AF scans once on a trigger. */
	const struct cisp_control_request r2 = { .mask = CISP_REQ_AE_ENABLE | CISP_REQ_AF_MODE | CISP_REQ_AF_TRIGGER,
						 .ae_enable = true,
						 .af_mode = CISP_AF_AUTO };
	CHECK_EQ(cisp_control_request(l.c, &r2), 0);
	bool scanned = false;
	for (unsigned n = 0; n < 60; n++) {
		loop_step(&l);
		scanned |= l.res.state.af_state == CISP_AF_SCANNING;
	}
	CHECK(scanned);
	CHECK_EQ(l.res.state.af_state, CISP_AF_FOCUSED);
	CHECK_EQ(l.res.state.ae_state, CISP_AE_CONVERGED);
	loop_close(&l);
}

TEST(control_errors_and_names)
{
	struct loop l;
	if (!loop_open(&l, "scene=flat,seed=8", NULL))
		return;
	struct cisp_control_request r = { .mask = CISP_REQ_EV, .ev = 5 };
	CHECK_ERR(cisp_control_request(l.c, &r), -EINVAL, "EV");
	r = (struct cisp_control_request){ .mask = 1u << 20 };
	CHECK_ERR(cisp_control_request(l.c, &r), -EINVAL, "unknown request bits");
	r = (struct cisp_control_request){ .mask = CISP_REQ_COLOUR_TEMPERATURE, .colour_temperature = 900 };
	CHECK_ERR(cisp_control_request(l.c, &r), -EINVAL, "colour temperature");
	r = (struct cisp_control_request){ .mask = CISP_REQ_FRAME_DURATION, .frame_duration_us = { 40000, 20000 } };
	CHECK_ERR(cisp_control_request(l.c, &r), -EINVAL, "frame duration");
	r = (struct cisp_control_request){ .mask = CISP_REQ_EXPOSURE, .exposure_us = NAN };
	CHECK_ERR(cisp_control_request(l.c, &r), -EINVAL, "exposure");

	loop_step(&l);
	/* The same frame again, and statistics without zones. */
	CHECK_ERR(cisp_control_process(l.c, l.stats, &l.md, &l.res), -EINVAL, "out of order");
	l.md.sequence++;
	l.stats->valid &= ~CISP_STATS_ZONES;
	CHECK_ERR(cisp_control_process(l.c, l.stats, &l.md, &l.res), -EINVAL, "no zones");

	struct cisp_control_config cfg = { .tuning = NULL };
	struct cisp_control *c;
	CHECK_ERR(cisp_control_create(&c, &cfg), -EINVAL, "no tuning");
	cfg.tuning = l.t;
	CHECK_ERR(cisp_control_create(&c, &cfg), -EINVAL, "mode size");

	CHECK(!strcmp(cisp_ae_state_name(CISP_AE_LIMITED), "limited"));
	CHECK(!strcmp(cisp_awb_state_name(CISP_AWB_CONVERGED), "converged"));
	CHECK(!strcmp(cisp_af_state_name(CISP_AF_FAILED), "failed"));
	CHECK(!strcmp(cisp_af_state_name((enum cisp_af_state)9), "unknown"));
	loop_close(&l);
}

/*
 * The start result carries every block the loop writes, defect correction
 * and highlights included: clip, at the sensor's white level (the test
 * tuning has no saturation, and cisp-test's mode clips at 1023).
 */
TEST(control_start_reports_every_managed_block)
{
	struct loop l;
	struct cisp_control_result res;
	if (!loop_open(&l, "scene=flat,seed=8", NULL))
		return;
	l.t->defect_threshold = 4096;
	CHECK_EQ(cisp_control_start(l.c, &res), 0);
	CHECK(res.params->enabled & CISP_BLOCK_BIT(CISP_BLOCK_DPC));
	CHECK(res.params_changed & CISP_BLOCK_BIT(CISP_BLOCK_DPC));
	CHECK_EQ(res.params->dpc.threshold, 4096);
	CHECK(res.params_changed & CISP_BLOCK_BIT(CISP_BLOCK_STATS));
	CHECK(res.params->enabled & CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS));
	CHECK(res.params_changed & CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS));
	CHECK_EQ(res.params->highlights.mode, CISP_HIGHLIGHTS_CLIP);
	CHECK_EQ(res.params->highlights.white, 65535);
	loop_close(&l);
}

/*
 * The highlights block's clip level: the tuning's saturation (codes at the
 * mode's bit depth) above black, over the range from black to the white
 * level, times the sensor gain, up to the full scale; the mode's white
 * level without the key. A saturation at or below black is refused.
 */
TEST(control_highlights_white_from_the_sensor)
{
	struct cisp_tuning *t = make_tuning();
	struct cisp_param_state *ps = calloc(1, sizeof(*ps));
	struct cisp_sensor_mode m = { .width = 320, .height = 240, .bits = 10, .crop_width = 320, .crop_height = 240,
				      .binning = 1, .black_level = 64, .white_level = 1023 };
	const double gains[2] = { 2, 1.5 };
	/* cisp-test's full well at gain x1 (its tuning: 839): (839 - 64) / 959 of 65535, and twice that at x2 */
	static const struct {
		double saturation, gain;
		int white;
	} cases[] = {
		{ -1, 1, 65535 },  { 839, 1, 52961 },  { 839, 1.2, 63553 }, { 839, 2, 65535 },
		{ 1023, 1, 65535 }, { 2000, 1, 65535 }, { 65, 1, 1024 },
	};

	if (!ps)
		abort();
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cisp_param_state_init(ps);
		t->saturation = cases[i].saturation;
		CHECK(control_prepare_params(t, &m, gains, 5000, cases[i].gain, 1, ps) >= 0);
		CHECK(ps->enabled & CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS));
		CHECK_EQ(ps->highlights.mode, CISP_HIGHLIGHTS_CLIP);
		CHECK_EQ(ps->highlights.white, cases[i].white);
		CHECK_EQ(ps->highlights.knee, 3686);
	}
	/* The tuning's black level counts: (839 - 100) / 923. */
	for (int c = 0; c < 4; c++)
		t->black_level[c] = 100;
	t->saturation = 839;
	CHECK(control_prepare_params(t, &m, gains, 5000, 1, 1, ps) >= 0);
	CHECK_EQ(ps->highlights.white, 52471);
	t->saturation = 100;
	CHECK_ERR(control_prepare_params(t, &m, gains, 5000, 1, 1, ps), -EINVAL,
		  "saturation 100 is not above the black level 100");
	free(ps);
	free(t);
}

TEST(control_loop_af_fails_on_flat_scene)
{
	struct loop l;
	if (!loop_open(&l, "scene=flat,lux=400,seed=9", NULL))
		return;
	int32_t start = l.res.state.lens_position;
	for (unsigned n = 0; n < 60; n++)
		loop_step(&l);
	CHECK_EQ(l.res.state.af_state, CISP_AF_FAILED);
	CHECK_EQ(l.res.state.lens_position, start);
	loop_close(&l);
}

/*
 * Each result's params_changed is exactly the blocks that differ from the
 * previous result's parameters (each algorithm reports its own blocks), with
 * requests between frames.
 */
TEST(control_params_changed_is_the_difference)
{
	struct loop l;
	struct cisp_param_state *prev = malloc(sizeof(*prev));
	static const struct cisp_control_request reqs[] = {
		{ .mask = CISP_REQ_AWB_ENABLE | CISP_REQ_COLOUR_TEMPERATURE, .colour_temperature = 3000 },
		{ .mask = CISP_REQ_AE_ENABLE | CISP_REQ_EXPOSURE, .exposure_us = 5000 },
		{ .mask = CISP_REQ_AWB_ENABLE | CISP_REQ_AE_ENABLE, .awb_enable = true, .ae_enable = true },
		{ .mask = CISP_REQ_MAX_DIGITAL_GAIN, .max_digital_gain = 1 },
	};
	unsigned changes = 0;

	if (!prev || !loop_open(&l, "scene=colorchart,lux=30,seed=5", NULL)) {
		free(prev);
		return;
	}
	*prev = *l.res.params;
	for (unsigned n = 0; n < 48; n++) {
		if (n % 12 == 6)
			CHECK_EQ(cisp_control_request(l.c, &reqs[n / 12]), 0);
		loop_step(&l);
		CHECK_EQ(l.res.params_changed, cisp_params_diff(prev, l.res.params));
		changes += l.res.params_changed != 0;
		*prev = *l.res.params;
	}
	CHECK(changes >= 10);
	free(prev);
	loop_close(&l);
}

/* The largest digital gain AE may use: the tuning's, or a request's; out-of-range requests change nothing. */
TEST(control_loop_max_digital_gain)
{
	struct loop l;
	double worst;
	const struct cisp_control_request r = { .mask = CISP_REQ_FRAME_DURATION | CISP_REQ_MAX_DIGITAL_GAIN,
						.frame_duration_us = { 0, 33333 }, .max_digital_gain = 1.5 };
	/* Too dark for the longest exposure at x16: digital gain makes up what it may. */
	if (!loop_open(&l, "scene=colorchart,lux=0.5,seed=10", &r))
		return;
	frames_to_settle(&l, 30, &worst);
	/* At the longest exposure and x16, and the largest digital gain (AE holds within half its tolerance). */
	CHECK_EQ(l.md.controls[CISP_SENSOR_EXPOSURE], 329);
	CHECK_EQ(l.md.controls[CISP_SENSOR_ANALOGUE_GAIN], 16 * 256);
	CHECK(l.res.state.digital_gain <= 1.5 && l.res.state.digital_gain > 1.5 * 0.98);
	struct cisp_control_request bad = { .mask = CISP_REQ_MAX_DIGITAL_GAIN, .max_digital_gain = 0.5 };
	CHECK_ERR(cisp_control_request(l.c, &bad), -EINVAL, "largest digital gain 0.5 outside 1..256");
	bad.max_digital_gain = NAN;
	CHECK_ERR(cisp_control_request(l.c, &bad), -EINVAL, "largest digital gain");
	/* 0: the tuning's (x4). */
	bad.max_digital_gain = 0;
	CHECK_EQ(cisp_control_request(l.c, &bad), 0);
	frames_to_settle(&l, 30, &worst);
	CHECK(l.res.state.digital_gain <= 4.0 && l.res.state.digital_gain > 4.0 * 0.98);
	loop_close(&l);
}

/* A tuning black level that leaves the mode too small a range is refused when the loop is made, naming it. */
TEST(control_black_level_must_fit_the_mode)
{
	struct cisp_tuning *t = make_tuning();
	struct cisp_control_config cfg = { .tuning = t };
	struct cisp_control *c = NULL;

	cfg.mode = (struct cisp_sensor_mode){ .name = "full", .width = 320, .height = 240, .bits = 10,
					      .line_length = 400, .pixel_rate = 4000000, .frame_length_default = 333,
					      .black_level = 64, .white_level = 1023 };
	CHECK_EQ(cisp_control_create(&c, &cfg), 0);
	cisp_control_destroy(c);
	/* 800 of 1023: white - black is 223 codes, under a quarter of the 10-bit range. */
	t->black_level[0] = t->black_level[1] = t->black_level[2] = t->black_level[3] = 800;
	CHECK_ERR(cisp_control_create(&c, &cfg), -EINVAL, "black_level [800, 800, 800, 800] for mode 'full'");
	CHECK(strstr(cisp_last_error(), "too small a signal range"));
	/* A mode whose own levels are too close, and one without a white level. */
	t->black_level[0] = t->black_level[1] = t->black_level[2] = t->black_level[3] = -1;
	cfg.mode.black_level = 900;
	CHECK_ERR(cisp_control_create(&c, &cfg), -EINVAL, "black_level [900, 900, 900, 900]");
	cfg.mode.black_level = 0;
	cfg.mode.white_level = 0;
	CHECK_ERR(cisp_control_create(&c, &cfg), -EINVAL, "too small a signal range");
	free(t);
}

/* ---- the grey-world configuration ---- */

static void fill_zones(struct cisp_stats *st, unsigned r, unsigned g, unsigned b, unsigned count, unsigned total)
{
	memset(st, 0, sizeof(*st));
	st->valid = CISP_STATS_ZONES;
	st->zones_x = 4;
	st->zones_y = 3;
	for (int i = 0; i < 12; i++) {
		st->zone[i].r = (uint16_t)r;
		st->zone[i].g = (uint16_t)g;
		st->zone[i].b = (uint16_t)b;
		st->zone[i].count = count;
		st->zone[i].total = total;
	}
}

/* A grey-world loop for a 64 x 48 stream, started, with request @r (mask 0: none). */
static struct cisp_control *grey_world(const struct cisp_control_request *r, struct cisp_control_result *res)
{
	struct cisp_control_config cfg = { .algorithms = CISP_CONTROL_GREY_WORLD };
	struct cisp_control *c = NULL;

	cfg.mode = (struct cisp_sensor_mode){ .name = "stream", .width = 64, .height = 48, .bits = 10, .line_length = 64,
					      .pixel_rate = 64 * 64 * 30, .frame_length_default = 64, .white_level = 1023 };
	CHECK_EQ(cisp_control_create(&c, &cfg), 0);
	if (c)
		CHECK_EQ(cisp_control_start(c, res), 0);
	if (c && r->mask)
		CHECK_EQ(cisp_control_request(c, r), 0);
	return c;
}

static void grey_frame(struct cisp_control *c, const struct cisp_stats *st, uint64_t seq,
		       struct cisp_control_result *res)
{
	const struct cisp_sensor_metadata md = { .sequence = seq };

	CHECK_EQ(cisp_control_process(c, st, &md, res), 0);
}

TEST(control_grey_world_estimates)
{
	struct cisp_stats *st = malloc(sizeof(*st));
	struct cisp_control_result res;
	const struct cisp_control_request awb_only = { .mask = CISP_REQ_AE_ENABLE | CISP_REQ_DIGITAL_GAIN |
								CISP_REQ_MAX_DIGITAL_GAIN,
						       .digital_gain = 1, .max_digital_gain = 8 };
	const struct cisp_control_request both = { .mask = CISP_REQ_MAX_DIGITAL_GAIN, .max_digital_gain = 8 };
	struct cisp_control_request ev1 = both;
	struct cisp_control *c;

	if (!st)
		return;
	/* Grey world: green over red and over blue, the first estimate whole. */
	c = grey_world(&awb_only, &res);
	fill_zones(st, 1000, 2000, 4000, 100, 100);
	grey_frame(c, st, 0, &res);
	CHECK_NEAR(res.state.colour_gains[0], 2.0, 1e-12);
	CHECK_NEAR(res.state.colour_gains[1], 0.5, 1e-12);
	CHECK_EQ(res.state.digital_gain, 1.0);
	CHECK_EQ(res.params->wb.gain[CISP_CH_R], 8192);
	CHECK_EQ(res.params->wb.gain[CISP_CH_GR], 4096);
	CHECK_EQ(res.params->wb.gain[CISP_CH_B], 2048);
	CHECK_EQ(res.params_changed, CISP_BLOCK_BIT(CISP_BLOCK_WB));
	/* Later estimates move a quarter of the way in log scale: 2 -> 4 goes to 2 * 2^0.25. */
	fill_zones(st, 500, 2000, 4000, 100, 100);
	grey_frame(c, st, 1, &res);
	CHECK_NEAR(res.state.colour_gains[0], 2.0 * pow(2.0, 0.25), 1e-12);
	CHECK_NEAR(res.state.colour_gains[1], 0.5, 1e-12);
	cisp_control_destroy(c);

	/* Exposure: balanced luma (54 * 2 * 2500 + 183 * 5000 + 19 * 10000 / 2) / 256 = 5000. */
	c = grey_world(&both, &res);
	fill_zones(st, 2500, 5000, 10000, 100, 100);
	grey_frame(c, st, 0, &res);
	CHECK_NEAR(res.state.digital_gain, 0.18 * 65535 / 5000, 1e-9);
	CHECK_EQ(res.params->wb.gain[CISP_CH_GB], lround(0.18 * 65535 / 5000 * 4096));
	/* A new stream forgets the estimates; one stop up doubles the gain. */
	ev1.mask |= CISP_REQ_EV;
	ev1.ev = 1;
	CHECK_EQ(cisp_control_request(c, &ev1), 0);
	CHECK_EQ(cisp_control_start(c, &res), 0);
	CHECK_EQ(res.params->wb.gain[CISP_CH_GR], 4096);
	grey_frame(c, st, 0, &res);
	CHECK_NEAR(res.state.digital_gain, 2 * 0.18 * 65535 / 5000, 1e-9);
	cisp_control_destroy(c);
	/*
	 * The gain is capped at the largest and never below 1 at ev 0; saturated
	 * cells count as white (half the cells at 65535, the others at 1000, is
	 * above the target).
	 */
	static const struct {
		unsigned level, count;
		double gain;
	} caps[] = { { 100, 100, 8.0 }, { 60000, 100, 1.0 }, { 1000, 50, 1.0 } };
	for (unsigned i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		c = grey_world(&both, &res);
		fill_zones(st, caps[i].level, caps[i].level, caps[i].level, caps[i].count, 100);
		grey_frame(c, st, 0, &res);
		CHECK_EQ(res.state.digital_gain, caps[i].gain);
		cisp_control_destroy(c);
	}

	/* No usable cell: nothing changes; no zones: an error. */
	c = grey_world(&both, &res);
	fill_zones(st, 0, 0, 0, 0, 100);
	grey_frame(c, st, 0, &res);
	CHECK_EQ(res.params_changed, 0);
	CHECK_EQ(res.params->wb.gain[CISP_CH_R], 4096);
	st->valid = 0;
	const struct cisp_sensor_metadata md = { .sequence = 1 };
	CHECK_ERR(cisp_control_process(c, st, &md, &res), -EINVAL, "no zones");
	cisp_control_destroy(c);
	free(st);
}

/* Manual gains: in the parameters at once (Q4.12, rounded, clamped), and in the next result's changes. */
TEST(control_grey_world_manual_gains)
{
	struct cisp_stats *st = malloc(sizeof(*st));
	struct cisp_control_result res;
	struct cisp_control_request r = { .mask = CISP_REQ_AWB_ENABLE | CISP_REQ_COLOUR_GAINS | CISP_REQ_AE_ENABLE |
						  CISP_REQ_DIGITAL_GAIN,
					  .colour_gains = { 2.0, 0.5 }, .digital_gain = 1.5 };
	const struct cisp_control_request none = { 0 };
	struct cisp_control *c = grey_world(&r, &res);

	if (!st || !c)
		goto out;
	CHECK_EQ(res.params->wb.gain[CISP_CH_R], 12288);
	CHECK_EQ(res.params->wb.gain[CISP_CH_GR], 6144);
	CHECK_EQ(res.params->wb.gain[CISP_CH_GB], 6144);
	CHECK_EQ(res.params->wb.gain[CISP_CH_B], 3072);
	fill_zones(st, 1000, 2000, 4000, 100, 100);
	grey_frame(c, st, 0, &res);
	CHECK_EQ(res.params_changed, CISP_BLOCK_BIT(CISP_BLOCK_WB));
	CHECK_EQ(res.state.awb_state, CISP_AWB_MANUAL);
	r.colour_gains[0] = 1.0 / 3;
	r.colour_gains[1] = 8;
	r.digital_gain = 4;
	CHECK_EQ(cisp_control_request(c, &r), 0);
	CHECK_EQ(res.params->wb.gain[CISP_CH_R], 5461);
	CHECK_EQ(res.params->wb.gain[CISP_CH_GR], 16384);
	CHECK_EQ(res.params->wb.gain[CISP_CH_B], 65535);
	/* With both manual nothing was estimated: the first automatic estimate is taken whole. */
	r = (struct cisp_control_request){ .mask = CISP_REQ_AE_ENABLE, .ae_enable = true };
	CHECK_EQ(cisp_control_request(c, &r), 0);
	grey_frame(c, st, 1, &res);
	CHECK_NEAR(res.state.colour_gains[0], 1.0 / 3, 1e-12);
	CHECK_NEAR(res.state.digital_gain, 0.18 * 65535 / ((54 * 1000 / 3.0 + 183 * 2000 + 19 * 4000 * 8) / 256), 1e-9);
	/* Automatic white balance from the manual values: a quarter of the way to the estimate (red 2). */
	r = (struct cisp_control_request){ .mask = CISP_REQ_AWB_ENABLE, .awb_enable = true };
	CHECK_EQ(cisp_control_request(c, &r), 0);
	grey_frame(c, st, 2, &res);
	CHECK_NEAR(res.state.colour_gains[0], 1.0 / 3 * pow(6.0, 0.25), 1e-12);
	CHECK_EQ(res.state.awb_state, CISP_AWB_SEARCHING);
	/* Fields grey world has no use for are refused. */
	r = (struct cisp_control_request){ .mask = CISP_REQ_METERING | CISP_REQ_EV };
	CHECK_ERR(cisp_control_request(c, &r), -EINVAL, "request bits 0x20 do nothing in this loop's configuration");
	CHECK_ERR(cisp_control_request(c, &none), 0, "");
out:
	cisp_control_destroy(c);
	free(st);
}
