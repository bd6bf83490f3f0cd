/* SPDX-License-Identifier: MIT */
/*
 * Tuning files (cisp_tuning_parse(), libyaml under it). Properties: an
 * accepted file keeps every promise of src/control/tuning.h (counts within
 * bounds, tables sorted, matrix rows summing to 1), the parameters made from
 * it are valid ABI at any colour temperature and gain, and AWB on it gives
 * finite, positive gains.
 */
#include <math.h>
#include <string.h>

#include <cisp/params_state.h>
#include <cisp/tuning.h>

#include "control/algorithm.h"
#include "control/awb.h"
#include "fuzz.h"

static void check_tables(const struct cisp_tuning *t)
{
	FUZZ_CHECK(t->version == CISP_TUNING_VERSION);
	FUZZ_CHECK(t->awb.ct_count >= 1 && t->awb.ct_count <= TUNING_MAX_CT);
	FUZZ_CHECK(t->ccm_count >= 1 && t->ccm_count <= TUNING_MAX_CT);
	FUZZ_CHECK(t->lsc_count <= TUNING_MAX_CT);
	FUZZ_CHECK(t->noise_count >= 1 && t->noise_count <= TUNING_MAX_GAIN);
	FUZZ_CHECK(t->denoise_count >= 1 && t->denoise_count <= TUNING_MAX_GAIN);
	for (unsigned i = 1; i < t->awb.ct_count; i++)
		FUZZ_CHECK(t->awb.ct[i].ct > t->awb.ct[i - 1].ct);
	for (unsigned i = 0; i < t->awb.ct_count; i++)
		FUZZ_CHECK(t->awb.ct[i].r_over_g > 0 && t->awb.ct[i].b_over_g > 0);
	for (unsigned i = 0; i < t->ccm_count; i++)
		for (int r = 0; r < 3; r++)
			FUZZ_CHECK(fabs(t->ccm[i].m[r][0] + t->ccm[i].m[r][1] + t->ccm[i].m[r][2] - 1) <= 0.01 + 1e-12);
	for (unsigned i = 1; i < t->noise_count; i++)
		FUZZ_CHECK(t->noise[i].gain > t->noise[i - 1].gain);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const double cts[] = { 1000, 2856, 4150, 6504, 20000 };
	static const double gains[] = { 1, 3, 100, 70000 };
	struct cisp_sensor_mode mode = { .width = 64, .height = 48, .bits = 10, .crop_x = 16, .crop_width = 64,
					 .crop_height = 48, .binning = 1, .black_level = 64, .white_level = 1023 };
	struct cisp_tuning *t = NULL;
	struct cisp_param_state *ps;
	struct cisp_stats *stats;
	struct awb *awb = NULL;
	struct awb_result res;
	size_t n;

	if (size > 256 * 1024 || cisp_tuning_parse(&t, (const char *)data, size, "fuzz.yaml"))
		return 0;
	check_tables(t);
	ps = calloc(1, sizeof(*ps));
	stats = calloc(1, sizeof(*stats));
	FUZZ_CHECK(ps && stats);
	cisp_param_state_init(ps);
	for (size_t i = 0; i < sizeof(cts) / sizeof(cts[0]); i++) {
		/* A black level the mode cannot take is refused; anything else encodes. */
		int changed = control_prepare_params(t, &mode, (const double[2]){ 1.5, 2 }, cts[i], gains[i % 4],
						     1 + (double)i, ps);

		if (changed >= 0)
			FUZZ_CHECK(cisp_params_encode(ps, ~0u, NULL, 0, &n) == 0);
	}
	/* AWB on zones of one grey of the curve's first point and of a second colour. */
	FUZZ_CHECK(awb_create(&awb, t) == 0);
	stats->valid = CISP_STATS_ZONES;
	stats->width = 64;
	stats->height = 48;
	stats->zones_x = 4;
	stats->zones_y = 4;
	for (unsigned i = 0; i < 16; i++) {
		double k = i & 1 ? 1.0 : 0.5;

		stats->zone[i].g = 20000;
		stats->zone[i].r = (uint16_t)fmin(65535, 20000 * k * t->awb.ct[0].r_over_g);
		stats->zone[i].b = (uint16_t)fmin(65535, 20000 * t->awb.ct[0].b_over_g / k);
		stats->zone[i].count = stats->zone[i].total = 48;
	}
	for (int f = 0; f < 3; f++) {
		awb_process(awb, stats, &res);
		FUZZ_CHECK(isfinite(res.gains[0]) && res.gains[0] > 0 && isfinite(res.gains[2]) && res.gains[2] > 0);
		FUZZ_CHECK(isfinite(res.colour_temperature) && res.colour_temperature > 0);
	}
	awb_destroy(awb);
	free(stats);
	free(ps);
	cisp_tuning_free(t);
	return 0;
}
