/* SPDX-License-Identifier: MIT */
/*
 * The local tone mapping grid from statistics (ltm.c), for the algorithm,
 * its tests and the benchmark: one node per statistics zone, at the zone's
 * level, with a gain that pulls the level towards the exposure target.
 */
#ifndef CISP_CONTROL_LTM_GRID_H
#define CISP_CONTROL_LTM_GRID_H

#include <cisp/params.h>
#include <cisp/stats.h>

/* The tuning's `ltm` section (docs/tuning.md). */
struct ltm_tuning {
	double strength; /* 0..1: the fraction of a region's distance from the target (in stops) taken away */
	double boost;    /* most stops a region is raised, 0..4 */
	double cut;      /* most stops a region is lowered, 0..4 */
	double range;    /* the block's range, stops (0.25..4) */
};

/*
 * The LTM block for statistics @st of a frame whose white balance applied
 * @wb (R and B gains against G, times the ISP's digital gain in each) and
 * whose exposure target is @target (mean luma, fraction of full scale).
 * Returns 0, or -EINVAL when @st has no zones or fewer than 2x2.
 */
int control_ltm_grid(const struct cisp_stats *st, const double wb[3], double target, const struct ltm_tuning *t,
		     struct cisp_ltm_params *out);

#endif
