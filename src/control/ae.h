/* SPDX-License-Identifier: MIT */
/*
 * Auto exposure (AE/AGC): metering on the statistics zones, highlight
 * protection from the histogram, the exposure product to aim for, and its
 * split into exposure time, analogue gain and digital gain.
 *
 * AE works on the *exposure product*: exposure time in microseconds times
 * every gain (analogue, sensor digital, ISP digital). A frame's brightness is
 * proportional to its product, so each frame's statistics, together with the
 * product that frame really used (from its metadata), give an estimate of the
 * product that meets the target. That estimate does not depend on decisions
 * still in flight, so they are never counted twice.
 *
 * The loop runs AE as ae_algorithm (ae.c: the ae tuning section, the
 * exposure limits of the sensor mode, manual exposure); the functions
 * below are its core, also for tests.
 */
#ifndef CISP_CONTROL_AE_H
#define CISP_CONTROL_AE_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/control.h>
#include <cisp/stats.h>

#include "algorithm.h"
#include "faces.h"
#include "tuning.h"

/* Highlight protection lowers the exposure by at most this many stops below the mean's aim. */
#define AE_HIGHLIGHT_MAX_STOPS 2.0
/* Errors larger than this factor are corrected in one step (they are not noise). */
#define AE_JUMP_RATIO 1.5

/* What the exposure split may use: limits of the sensor mode and the tuning. */
struct ae_limits {
	double line_us;           /* one line, microseconds */
	int32_t exposure_min;     /* lines */
	int32_t exposure_max;     /* lines: the tuning's longest exposure and the frame length limit */
	int32_t exposure_step;    /* lines */
	int32_t exposure_margin;  /* exposure <= frame length - margin */
	int32_t frame_length_min; /* lines: the shortest frame AE uses, the requested frame period */
	int32_t frame_length_max; /* lines: the longest frame AE may stretch to in low light */
	int32_t again_min, again_max, again_step; /* analogue gain codes (256 = x1) */
	bool has_dgain;           /* the sensor has a digital gain */
	int32_t dgain_min, dgain_max, dgain_step; /* its codes */
	double max_digital_gain;  /* all digital gain together (sensor and ISP) */
};

struct ae {
	const struct cisp_tuning *t;
	enum cisp_ae_metering metering;
	double ev;            /* stops */
	double decided;       /* the latest decided product */
	bool have_frame;      /* a frame was judged since the reset */
	enum cisp_ae_state state;
	double error;         /* measured / target of the latest frame */
	double mean;          /* metered luma of the latest frame, fraction of full scale */
	double scene;         /* mean luma per unit product of the latest frame (scene brightness) */
};

/* What one frame's statistics say. */
struct ae_measure {
	double mean;            /* metered mean luma after WB and the ISP's digital gain, fraction of full scale */
	double green;           /* plain mean green of all cells at the statistics tap, fraction of full scale */
	double highlight;       /* luma under which all but the tuning's highlight fraction of cells lie */
	double saturated;       /* fraction of cells left out of the zone means as saturated */
};

void ae_init(struct ae *ae, const struct cisp_tuning *t);
/* Forget history; aim at @product until frames arrive. */
void ae_reset(struct ae *ae, double product);
/*
 * Measure one frame: zone luma with @metering weights and white-balance gains
 * @wb (R, G, B), saturated cells counted as full scale, times @isp_gain (the
 * digital gain the ISP's WB stage applied to the frame on top of @wb: the
 * zones are taken before it, the histogram after it); the histogram level
 * of the highlight fraction.
 */
void ae_measure(const struct cisp_tuning *t, enum cisp_ae_metering metering, const struct cisp_stats *stats,
		const double wb[3], double isp_gain, struct ae_measure *m);
/*
 * Face priority (docs/faces.md): the metered mean is the blend of logarithms
 * normal^(1 - AE_FACE_WEIGHT) * faces^AE_FACE_WEIGHT, the faces' mean taken
 * on the central AE_FACE_CORE of each face rectangle's width and height.
 */
#define AE_FACE_WEIGHT 0.9
#define AE_FACE_CORE 0.6
/*
 * The mean luma of the faces' central parts: each zone weighted by the
 * share of it they cover, with white-balance gains @wb and times
 * @isp_gain as in ae_measure(); -1 when they cover no zone.
 */
double ae_face_mean(const struct cisp_stats *stats, const double wb[3], double isp_gain,
		    const struct control_faces *faces);
/* Blend @face_mean (ae_face_mean(); ignored when negative) into @m's mean, and drop highlight protection. */
void ae_meter_faces(struct ae_measure *m, double face_mean);
/*
 * Judge one frame that used exposure product @frame_product (ISP digital gain
 * included) and decide the product to aim for, within [@min_product,
 * @max_product]. Returns the new decided product.
 */
double ae_process(struct ae *ae, const struct ae_measure *m, double frame_product, double min_product,
		  double max_product);
/*
 * Split @product into controls: exposure first, up to the longest that fits
 * the shortest frame (@l->frame_length_min, the requested frame rate), then
 * analogue gain; only past the largest analogue gain a longer exposure and
 * frame (up to @l->exposure_max, within @l->frame_length_max), then digital
 * gain (the sensor's, then the ISP's). Exposures are whole multiples of
 * @flicker_period_us when that is not 0 and the product allows one period.
 */
void ae_split(const struct ae_limits *l, double product, double flicker_period_us, struct ae_exposure *out);
/* The smallest and largest products the limits can give. */
double ae_min_product(const struct ae_limits *l);
double ae_max_product(const struct ae_limits *l);

#endif /* CISP_CONTROL_AE_H */
