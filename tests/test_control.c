/* SPDX-License-Identifier: MIT */
/*
 * The control algorithms: AE (split, convergence with delays on a model
 * sensor), flicker detection on synthetic row means, contrast AF on a
 * synthetic focus curve.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/control.h>
#include <cisp/error.h>

#include "control/ae.h"
#include "control/af.h"
#include "control/flicker.h"
#include "control/tuning.h"
#include "test.h"

/* A tuning filled in directly, with the values docs/control.md uses as examples. */
static struct cisp_tuning *make_tuning(void)
{
	struct cisp_tuning *t = calloc(1, sizeof(*t));
	strcpy(t->name, "test");
	t->version = CISP_TUNING_VERSION;
	t->uncalibrated = true;
	for (int c = 0; c < 4; c++)
		t->black_level[c] = -1;
	t->ae.target = 0.18;
	t->ae.tolerance = 0.04;
	t->ae.highlight_fraction = 0.02;
	t->ae.highlight_level = 0.95;
	t->ae.speed = 0.6;
	t->ae.max_exposure_us = 66000;
	t->ae.max_analogue_gain = 16;
	t->ae.max_digital_gain = 4;
	t->ae.lux_scale = 0;
	t->awb.ct_count = 2;
	t->awb.ct[0] = (struct tuning_ct_point){ 2850, 0.9, 0.35 };
	t->awb.ct[1] = (struct tuning_ct_point){ 6500, 0.55, 0.75 };
	t->awb.prior_weight = 0.5;
	t->awb.max_curve_distance = 0.1;
	t->awb.speed = 0.5;
	t->awb.default_ct = 5000;
	t->af.position_min = 0;
	t->af.position_max = 1023;
	t->af.coarse_steps = 12;
	t->af.fine_steps = 7;
	t->af.scene_change = 0.3;
	t->af.min_contrast = 1.3;
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
	t->denoise_count = 1;
	t->denoise[0] = (struct tuning_denoise){ 1, 0.875, 3.0, 1.0, 64 };
	t->gamma = 0;
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
	double noise = ((*rng >> 11) * (1.0 / 9007199254740992.0) - 0.5) * 0.01;
	return 0.02 + 0.1 / fmin(sigma, 8.0) + noise;
}

/* Run AF with a lens that moves @latency frames after each decision; return the frames until focused. */
static int run_af(int32_t peak, bool flat, int32_t *final, enum cisp_af_state *state)
{
	struct cisp_tuning *t = make_tuning();
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
