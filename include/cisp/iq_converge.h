/* SPDX-License-Identifier: MIT */
/**
 * @file iq_converge.h
 * @brief 3A convergence: how many frames an algorithm (auto exposure, white
 * balance, focus) takes to settle within a tolerance of its goal, and how
 * far off it ends.
 */
#ifndef CISP_IQ_CONVERGE_H
#define CISP_IQ_CONVERGE_H

#include <stdbool.h>

#include <cisp/api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most frames a convergence record holds. */
#define CISP_IQ_MAX_FRAMES 512

/**
 * struct cisp_iq_convergence - a per-frame series and what it shows.
 * @count: frames.
 * @value: the per-frame quantity (mean level, WB angle, lens position...).
 * @target: its goal.
 * @tolerance: the largest |value - target| counted as converged.
 * @converged: the series ends within @tolerance and stays there from
 *             @frames on.
 * @frames: the first frame from which every later frame is within
 *          @tolerance (the frames needed to converge); -1 if not converged.
 * @final_error: |value - target| of the last frame.
 */
struct cisp_iq_convergence {
	unsigned count;
	double value[CISP_IQ_MAX_FRAMES];
	double target;
	double tolerance;
	bool converged;
	int frames;
	double final_error;
};

/**
 * cisp_iq_convergence() - analyse a series.
 * @values: per-frame values.
 * @count: frames, 1..CISP_IQ_MAX_FRAMES.
 * @target: the goal.
 * @tolerance: >= 0.
 * @result: receives the analysis.
 * Return: 0 or -EINVAL.
 */
CISP_API int cisp_iq_convergence(const double *values, unsigned count, double target, double tolerance,
				 struct cisp_iq_convergence *result);

#ifdef __cplusplus
}
#endif

#endif /* CISP_IQ_CONVERGE_H */
