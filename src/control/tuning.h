/* SPDX-License-Identifier: MIT */
/*
 * The contents of a parsed tuning (struct cisp_tuning): one member per
 * section of the file, each parsed and read by one algorithm (its file is
 * named below). docs/tuning.md gives each key's meaning, unit and range; the
 * parsers guarantee every field is within those ranges, tables are sorted
 * by their first column and counts are within bounds.
 */
#ifndef CISP_CONTROL_TUNING_H
#define CISP_CONTROL_TUNING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cisp/params.h>
#include <cisp/tuning.h>

#include "ltm_grid.h"

#define TUNING_MAX_CT 16   /* colour temperatures in a table */
/* A grey this close to the awb.ct curve (r/g, b/g) is not told from a Planckian light's (about AWB's noise): ccm tint 0. */
#define TUNING_NEAR_CURVE 0.01
#define TUNING_MAX_TINT 1.0 /* the furthest a ccm entry's light may lie off the curve: far beyond any lamp's */
#define TUNING_MAX_GAIN 16 /* gains in a table */
#define TUNING_LSC_GRID 17 /* lens shading tables are 17 x 17 nodes */
#define TUNING_MAX_DEFECTS CISP_DPC_MAX_PIXELS /* static defects */
#define TUNING_MAX_CHARTS 16 /* charts a provenance section names */

/* One point of the AWB colour-temperature curve: grey under a Planckian or daylight illuminant. */
struct tuning_ct_point {
	double ct;        /* kelvin */
	double r_over_g;  /* camera R/G of a grey under that light (shading removed, before WB) */
	double b_over_g;  /* camera B/G */
};

/* A colour matrix for one colour temperature: white-balanced camera RGB -> linear sRGB, rows sum to 1. */
struct tuning_ccm {
	double ct;      /* for tint 0, the light's; else the temperature AWB finds for it on the awb.ct curve */
	double tint;    /* the light's grey off the awb.ct curve (awb_curve_tint()); 0: on it */
	double m[3][3];
};

/* A lens shading gain table for one colour temperature, TUNING_LSC_GRID^2 nodes per channel R, Gr, Gb, B. */
struct tuning_lsc {
	double ct;
	float gain[4][TUNING_LSC_GRID * TUNING_LSC_GRID]; /* >= 1.0 */
};

/* Noise profile at one total gain: variance = a * s + b, 16-bit units after black level. */
struct tuning_noise {
	double gain;
	double a[4];
	double b[4];
};

/* Denoise and sharpening strengths at one total gain (Q8.8 values of the params blocks, as doubles). */
struct tuning_denoise {
	double gain;
	double bnr_strength;     /* cisp_bnr_params.strength / 256 */
	double cnr_strength;     /* cisp_cnr_params.strength / 256 */
	double sharpen_strength; /* cisp_sharpen_params.strength / 256 */
	double sharpen_coring;   /* 16-bit units */
	unsigned bnr_mode;       /* enum cisp_bnr_mode, the Bayer denoise filter from this gain on */
};

struct cisp_tuning {
	char name[256];   /* the file's path, or "uncalibrated" */
	unsigned version; /* CISP_TUNING_VERSION */
	char sensor[64];  /* sensor model the file is for ("" for uncalibrated) */
	char lens[64];    /* lens name ("" for the default lens) */
	bool uncalibrated;

	/* black_level (black_level.c): per channel R, Gr, Gb, B in codes of the sensor's bit depth; < 0: the mode's. */
	double black_level[4];

	struct { /* ae (ae.c) */
		double target;            /* mean luma target, fraction of full scale after WB (e.g. 0.18) */
		double tolerance;         /* |measured / target - 1| counted as converged (e.g. 0.04) */
		double highlight_fraction; /* at most this fraction of cells may reach the top histogram bins */
		double highlight_level;   /* the luma level (fraction of full scale) those cells must stay under */
		double speed;             /* fraction of the remaining error corrected per decision */
		double max_exposure_us;   /* longest exposure AE uses (frame duration permitting) */
		double max_analogue_gain; /* highest analogue gain AE uses */
		double max_digital_gain;  /* highest digital gain AE uses (after analogue is exhausted) */
		double lux_scale;         /* lux = lux_scale * mean green / (exposure_s * gain); 0: no lux estimate */
	} ae;

	struct { /* awb (awb.c) */
		unsigned ct_count;
		struct tuning_ct_point ct[TUNING_MAX_CT]; /* sorted by ct */
		double prior_weight;   /* pull of the CT curve on the grey-world estimate */
		double max_curve_distance; /* zones further than this from the curve (in r/g,b/g) are not grey */
		double transverse;     /* an estimate this far off the curve is not pulled (fluorescent and LED lights) */
		double speed;          /* fraction of the change applied per frame */
		double default_ct;     /* starting estimate, kelvin */
	} awb;

	struct { /* af (af.c) */
		int32_t position_min;  /* lens range AF scans (codes) */
		int32_t position_max;
		unsigned coarse_steps; /* positions of the coarse sweep */
		unsigned fine_steps;   /* positions of the hill-climb around the coarse peak */
		double scene_change;   /* relative change of mean luma or sharpness that restarts continuous AF */
		double min_contrast;   /* peak / valley sharpness below this: AF fails */
	} af;

	struct { /* flicker (flicker.c) */
		double detect_threshold; /* light modulation depth that counts as flicker */
	} flicker;

	/* ccm (colour_matrix.c) */
	unsigned ccm_count;
	struct tuning_ccm ccm[TUNING_MAX_CT]; /* sorted by ct; at least 1 */

	/* lens_shading (lens_shading.c) */
	unsigned lsc_count;                   /* 0: no shading correction */
	/* The pixel array the tables span (a mode reads part of it); 0 x 0: each mode's whole frame. */
	uint32_t lsc_array_width, lsc_array_height;
	struct tuning_lsc lsc[TUNING_MAX_CT]; /* sorted by ct */

	/* noise (noise_profile.c) */
	unsigned noise_count;                      /* at least 1 */
	struct tuning_noise noise[TUNING_MAX_GAIN]; /* sorted by gain */

	/* denoise (denoise.c) */
	unsigned denoise_count;                        /* at least 1 */
	struct tuning_denoise denoise[TUNING_MAX_GAIN]; /* sorted by gain */

	struct ltm_tuning ltm;   /* ltm (ltm.c): local tone mapping */

	/* saturation (highlights.c): where the sensor clips at gain x1, codes of the mode's bit depth; < 0: its white level */
	double saturation;

	double gamma;            /* gamma (tone_curve.c): 0 = the sRGB curve, else a pure power 1/gamma */
	double defect_threshold; /* defect_threshold (defects.c): dynamic defect correction, 16-bit units; 0: off */

	/* defect_pixels (defects.c): static defects, pixel array coordinates, sorted by row then column */
	unsigned defect_count;
	struct {
		uint16_t x, y;
	} defects[TUNING_MAX_DEFECTS];

	/* provenance (provenance.c): what calibrated the file; the lab reads the charts' lights */
	struct {
		bool present;
		unsigned chart_count;
		struct {
			char illuminant[32];
			double ct;
		} chart[TUNING_MAX_CHARTS];
	} provenance;
};

/* The values of every optional key (docs/tuning.md); tables empty. */
void tuning_defaults(struct cisp_tuning *t);
/* Parse a tuning file into @t (filled by tuning_defaults()); @name names it in errors. */
int tuning_parse_into(struct cisp_tuning *t, const char *text, size_t length, const char *name);

#endif /* CISP_CONTROL_TUNING_H */
