/* SPDX-License-Identifier: MIT */
/*
 * Anti-flicker: the exposure period that cancels the banding of lamps on
 * 50 or 60 Hz mains, and detection of such light from the statistics' row
 * means (docs/control.md, "Flicker").
 *
 * A lamp on f Hz mains flickers at 2f. With a rolling shutter each row
 * integrates a different part of the flicker cycle, so the frame shows
 * horizontal bands of period 1 / (2f * line time) rows; an exposure of a
 * whole number of flicker periods collects the same light on every row.
 *
 * The loop runs detection as flicker_algorithm (flicker.c), which publishes
 * the frequency AE avoids; the functions below are its core, also for tests.
 */
#ifndef CISP_CONTROL_FLICKER_H
#define CISP_CONTROL_FLICKER_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/sensor.h>
#include <cisp/stats.h>

/* Analysable frames in a row that must agree before a detection switches. */
#define FLICKER_VOTES 3
/* Analysable frames without flicker after which a detection is dropped. */
#define FLICKER_CLEAR_FRAMES 30

struct flicker {
	double threshold;        /* light modulation depth that counts as flicker */
	/* The previous frame's log row means and its timing. */
	double prev[CISP_STATS_MAX_ROWS];
	bool prev_ok[CISP_STATS_MAX_ROWS];
	unsigned prev_count, prev_group;
	uint64_t prev_sequence, prev_timestamp_ns;
	double prev_exposure_s;
	bool have_prev;
	unsigned detected_hz;    /* 0, 50 or 60 */
	unsigned candidate_hz, votes, quiet;
	double depth[2];         /* latest estimates of the modulation depth at 100 and 120 Hz (-1: not analysable) */
	/* Scratch rows of one analysis (kept here, not on the stack). */
	double x[CISP_STATS_MAX_ROWS], d[CISP_STATS_MAX_ROWS], tau[CISP_STATS_MAX_ROWS];
	bool ok[CISP_STATS_MAX_ROWS], usable[CISP_STATS_MAX_ROWS];
};

void flicker_init(struct flicker *f, double threshold);
/* Forget the previous frame and the detection (stream start). */
void flicker_reset(struct flicker *f);
/* Analyse one frame (row means of @stats, timing from @md, line time @line_ns). */
void flicker_process(struct flicker *f, const struct cisp_stats *stats, const struct cisp_sensor_metadata *md,
		     double line_ns);
/* The flicker period of light on @mains_hz mains, microseconds (0 for 0). */
double flicker_period_us(unsigned mains_hz);
/*
 * Relative amplitude of the banding an exposure of @exposure_s shows under
 * light modulated by 1 + cos(2 pi * 2 * mains_hz * t): |sin(x) / x| with
 * x = pi * 2 * mains_hz * exposure_s (signed when @signed_ is true).
 */
double flicker_visibility(unsigned mains_hz, double exposure_s, bool signed_);

#endif /* CISP_CONTROL_FLICKER_H */
