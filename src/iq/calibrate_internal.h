/* SPDX-License-Identifier: MIT */
/*
 * The calibration session (calibrate.c) and its estimators, one per file:
 * calibrate_frame.c (a raw frame as four channel planes, robust statistics),
 * calibrate_dark.c, calibrate_flat.c, calibrate_shading.c, calibrate_noise.c,
 * calibrate_defects.c, calibrate_chart.c, calibrate_colour.c,
 * calibrate_edge.c; then the tuning writer (calibrate_tuning.c), the report
 * (calibrate_report.c) and the virtual lightbox (calibrate_camera.c).
 * docs/calibrate.md describes the methods.
 */
#ifndef CISP_IQ_CALIBRATE_INTERNAL_H
#define CISP_IQ_CALIBRATE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cisp/calibrate.h>
#include <cisp/calibrate_chart_frame.h>

#include "sensor/virtual/spectra.h"

/* ---- calibrate_frame.c: a Bayer frame as four half-size channel planes ---- */

/* The planes R, Gr, Gb, B of a frame, in its codes; channel c's sample (x, y) sits at frame pixel (2x + ox[c], 2y + oy[c]). */
struct calib_planes {
	uint32_t w, h;
	unsigned ox[4], oy[4];
	float *p[4];
};

/* Two exposures or gains the same to within 0.1% (of the larger). */
bool calib_same(double a, double b);

/* Split @raw into its channel planes. Return 0, -EINVAL or -ENOMEM. */
int calib_planes_from(struct calib_planes *pl, const struct cisp_image *raw);
void calib_planes_free(struct calib_planes *pl);

/* Median and robust standard deviation (1.4826 median absolute deviation) of @n values; @v is reordered. */
void calib_median_mad(float *v, size_t n, double *median, double *sigma);

/* The @q quantile (0..1) of @n values; @v is reordered. */
double calib_quantile(float *v, size_t n, double q);

/* A grid of block means over a channel plane: gw x gh blocks, block (i, j) spanning [i w / gw, (i + 1) w / gw). */
struct calib_blocks {
	unsigned gw, gh;
	double *mean; /* 4 channels x gw x gh, row-major per channel */
};

/* The grid size for a plane of @w x @h samples (at most 64 blocks across, blocks at least 4 x 4 samples). */
void calib_blocks_size(uint32_t w, uint32_t h, unsigned *gw, unsigned *gh);
/*
 * Block means of @pl (gw x gh from calib_blocks_size()) without the samples
 * that stand out of their block (defective pixels): the mean of those within
 * 5 robust standard deviations (and 2 % of the level) of the block's median.
 * @b->mean is allocated. Return 0 or -ENOMEM.
 */
int calib_blocks_of(const struct calib_planes *pl, struct calib_blocks *b);
void calib_blocks_free(struct calib_blocks *b);
/* Centre of block (@i, @j) of channel @c in frame pixels. */
void calib_block_centre(const struct calib_planes *pl, const struct calib_blocks *b, unsigned c, unsigned i,
			unsigned j, double *x, double *y);

/* ---- calibrate_dark.c ---- */

struct calib_dark_group {
	double exposure_s, gain;
	unsigned frames;
	double sum[4]; /* of the frames' robust channel means */
	double temporal_sum; /* of the pairs' temporal variances */
	unsigned pairs;
};

struct calib_dark {
	unsigned frames;
	unsigned groups;
	struct calib_dark_group group[CISP_CALIB_MAX_TABLE];
	float *deviation[4]; /* per pixel, the sum over darks of its departure from its frame's channel median */
	double frame_sigma;  /* the robust spread of the first dark, codes: the scale of the hot-pixel test */
};

/*
 * Check a dark (no light: its channel levels within 2 % of the range of the
 * stated black, and no region brighter than its surroundings) and gather it.
 */
int calib_dark_add(struct calib_dark *d, const struct calib_planes *pl, const struct cisp_calib_capture *cap);
/* The temporal variance of a pair of darks of this exposure and gain (calib_noise_add_pair()). */
void calib_dark_add_pair(struct calib_dark *d, double exposure_s, double gain, double variance);
/* The black level, dark current, DSNU and groups into @out; -ENODATA without darks. */
int calib_dark_solve(const struct calib_dark *d, const struct calib_planes *shape, struct cisp_calib_black *out);
void calib_dark_free(struct calib_dark *d);

/* ---- calibrate_flat.c ---- */

struct calib_flat_group {
	double exposure_s, gain;
	char illuminant[32];
	unsigned frames;
	double level;        /* green level at the centre, fraction of the range */
	double clipped;      /* largest fraction of clipped samples of a frame */
	struct calib_blocks sum; /* summed block means */
};

struct calib_flat {
	unsigned groups;
	struct calib_flat_group group[64];
	/* Per pixel, the sum of the frames of the group kept for defects and PRNU (the best-exposed). */
	int pixel_group;
	unsigned pixel_frames;
	float *pixel[4];
};

/* The green level in the central tenth of a frame, fraction of the range above @black. */
double calib_centre_level(const struct calib_planes *pl, double black, double range);
/* Whether two flats' levels are the same (within 5 %): one group, or a pair. */
bool calib_same_level(double a, double b);
/* Check a flat (flat, not clipped all over) and gather it. */
int calib_flat_add(struct calib_flat *f, const struct calib_planes *pl, const struct cisp_calib_capture *cap,
		   double black_guess);
/*
 * The group whose block means serve the shading table for @illuminant (NULL:
 * any light): not clipped, its level (fraction of the range) within
 * 15..90 % and below 90 % of @saturation (1: unknown), nearest 50 %. -1: none.
 */
int calib_flat_best_group(const struct calib_flat *f, const char *illuminant, double saturation);
void calib_flat_free(struct calib_flat *f);

/* ---- calibrate_shading.c ---- */

/* Solve the n x n system @a x = @b (n <= 6; Gaussian elimination, partial pivoting); false when singular. */
bool calib_linear_solve(double a[6][6], double b[6], double x[6], int n);

/* A shading table from block means (@blocks of a flat, @black per channel) into @t; the residual is measured on them. */
int calib_shading_fit(const struct calib_planes *shape, const struct calib_blocks *blocks, const double black[4],
		      double white, struct cisp_calib_shading_table *t);
/* The gain of table @t for channel @c at frame pixel (@x, @y), as the LSC stage interpolates it. */
double calib_shading_gain(const struct cisp_calib_shading_table *t, uint32_t width, uint32_t height, unsigned c,
			  double x, double y);
/* The tables of the flats, one per light (rising colour temperature); @saturation as calib_flat_best_group() takes it. */
int calib_shading_solve(const struct calib_flat *f, const struct calib_planes *shape, const double black[4],
			double white, double saturation, struct cisp_calib_shading *out);

/* ---- calibrate_noise.c ---- */

struct calib_noise {
	unsigned count, capacity;
	struct cisp_calib_ptc_point *points;
	double *raw_signal; /* per point, its mean level before black is taken off */
	unsigned clip_gains;
	double clip_gain[CISP_CALIB_MAX_TABLE]; /* gains at which a pair reached the white level */
};

/*
 * Add the tiles of a pair (@a, @b: two frames of one exposure and gain) as
 * points; returns the pair's median temporal variance of its green tiles
 * through @variance. @white: the clip level; tiles that reach it are left out.
 */
int calib_noise_add_pair(struct calib_noise *n, const struct calib_planes *a, const struct calib_planes *b, double gain,
			 double white, double *variance);
/* Fit the curves per gain (@black per channel, @saturation per channel or 0) into @out. */
int calib_noise_solve(struct calib_noise *n, const double black[4], double white, struct cisp_calib_noise *out);
void calib_noise_free(struct calib_noise *n);

/* ---- calibrate_defects.c ---- */

/*
 * Defective pixels from the darks' departures and the kept flats; the list
 * is allocated into @out. With flats, @ratio_sigma and @central_level
 * receive per channel the robust spread of the pixels' ratios to their
 * neighbours in the central quarter and its mean level above black (codes).
 */
int calib_defects_solve(const struct calib_dark *d, const struct calib_flat *f, const struct calib_planes *shape,
			double white, const double black[4], struct cisp_calib_defects *out, double ratio_sigma[4],
			double central_level[4]);

/* ---- calibrate_chart.c ---- */

/* A ColorChecker found in a frame: per patch the mean of each channel R, Gr, Gb, B (codes) and the patch centre. */
struct calib_chart_shot {
	char name[128];
	char illuminant[32];
	double lux, exposure_s, gain;
	double corners[4][2];
	double patch[CISP_IQ_COLORCHECKER_PATCHES][4];
	double centre[CISP_IQ_COLORCHECKER_PATCHES][2];
	double green_mean; /* the frame's mean green above black, shading flattened, codes (for the lux reference) */
	double white_level; /* the white patch's green, fraction of the range */
};

/*
 * Find the chart in a frame and measure its patches. @black: per channel;
 * @shading: a provisional table to flatten the frame with (NULL: none);
 * @clip: the level (codes) where the sensor clips. Refuses a chart that is
 * not found, clipped or underexposed.
 */
int calib_chart_measure(const struct calib_planes *pl, const struct cisp_calib_capture *cap, const double black[4],
			double clip, double white, const struct cisp_calib_shading_table *shading,
			struct calib_chart_shot *out);

/* The spectrum of a light by name (D65, F2, blackbody:3200, 4000K, ...); whether it lies on the Planckian locus. */
int calib_light_spectrum(const char *name, double spd[VS_BANDS], bool *on_locus);
/* The reference of the chart under a light: per patch XYZ (Y of a perfect white 1) and the white's XYZ. */
int calib_chart_reference(const char *illuminant, double xyz[CISP_IQ_COLORCHECKER_PATCHES][3], double white[3]);

/* ---- calibrate_colour.c ---- */

/* The colour calibration of the chart shots (black level and shading known) into @out. */
int calib_colour_solve(const struct calib_chart_shot *shots, unsigned count, const double black[4], double white,
		       const struct cisp_calib_shading *shading, uint32_t width, uint32_t height,
		       struct cisp_calib_colour *out);
/* The white-balance curve at @ct (linear in mired between points, clamped), as AWB reads it. */
void calib_curve_at(const struct cisp_calib_ct_point *curve, unsigned n, double ct, double grey[2]);
/* The nearest point of a curve to a grey: its colour temperature and distance. */
double calib_curve_project(const struct cisp_calib_ct_point *curve, unsigned n, const double grey[2], double *ct);
/* The colour matrix of a chart table at @ct (linear in mired between the two nearest, clamped). */
void calib_ccm_at(const struct cisp_calib_chart *const *charts, unsigned count, double ct, double m[3][3]);

/* The ColorChecker's patch names, and which are neutral. */
void calib_patch_names(const char *names[CISP_IQ_COLORCHECKER_PATCHES], bool neutral[CISP_IQ_COLORCHECKER_PATCHES]);

/* ---- calibrate_spectral.c: sensitivities, and matrices for lights not measured ---- */

/*
 * Method 0 (the measured matrices interpolated by colour temperature), then
 * synthesis with each penalty tried, then the same corrected by the
 * measured charts' differences from their synthesised matrices.
 */
#define CALIB_SPECTRAL_CANDIDATES 11

/* A method's figures with each calibration light left out in turn. */
struct calib_spectral_candidate {
	double penalty;   /* on the sensitivities' second differences; 0 for method 0 */
	bool corrected;   /* synthesised matrices corrected by the measured ones */
	double mean_de00; /* the mean over the lights left out of their charts' mean */
	double max_de00;  /* the largest patch of those charts */
};

/* A colour matrix for the tuning. */
struct calib_light_matrix {
	char light[32];
	double ct;    /* the light's own, on the locus; else where AWB finds it on the curve */
	double tint;  /* its grey's signed distance from the curve (0: on it) */
	bool measured; /* a chart's own matrix, not synthesised */
	double m[3][3];
};

struct calib_spectral {
	struct calib_spectral_candidate candidate[CALIB_SPECTRAL_CANDIDATES];
	unsigned chosen; /* the candidate with the lowest mean; 0: nothing below is filled */
	double sensitivity[3][VS_BANDS]; /* R, G, B, relative */
	double fit_rms;                  /* the fit's relative rms error over the calibration patches */
	unsigned count;                  /* entries of @light, by rising colour temperature */
	struct calib_light_matrix light[CISP_CALIB_MAX_TABLE];
	/* Each chart (as in cisp_calib_colour) through the matrix synthesised for its light. */
	struct cisp_iq_color_result chart_fit[CISP_CALIB_MAX_TABLE];
};

/*
 * Estimate the sensitivities from the charts of @col (solved) and
 * synthesise matrices for the standard lights (docs/calibrate.md), when
 * leaving each calibration light out says that beats interpolation; with
 * fewer than two charts on the curve, nothing is chosen.
 */
int calib_spectral_solve(const struct cisp_calib_colour *col, struct calib_spectral *out);
struct cisp_tuning;
/* The matrices of @sp as the tuning's ccm entries (what the tuning writes: rounded); returns their number. */
unsigned calib_spectral_matrices(const struct calib_spectral *sp, struct cisp_tuning *t);
/* Close the provenance's fits with the method chosen, and list the methods tried (when any was). */
void calib_spectral_provenance(FILE *f, const struct calib_spectral *sp);
/* Chart @ch's patches (white-balanced by its own grey) through @m, against its spectral truth. */
int calib_chart_through(const struct cisp_calib_chart *ch, const double m[3][3], struct cisp_iq_color_result *out);

/* ---- calibrate_edge.c ---- */

/* Find (or take @cap->roi) and measure a slanted edge in a frame; @black per channel. */
int calib_edge_measure(const struct calib_planes *pl, const struct cisp_calib_capture *cap, const double black[4],
		       double white, struct cisp_calib_sharpness *out);
/* The sharpening strength that lifts the response at 0.25 cycles per pixel to the target. */
double calib_edge_sharpen(const struct cisp_iq_sfr_result *sfr);

/* ---- calibrate.c: the session ---- */

struct calib_input {
	enum cisp_calib_kind kind;
	char name[256];
	char illuminant[32];
	double exposure_s, gain, lux;
};

struct cisp_calib {
	struct cisp_calib_setup setup;
	char sensor[64];

	/* the frames' shape, from the first capture */
	bool have_shape;
	uint32_t width, height, format;
	enum cisp_cfa cfa;
	double white, stated_black;
	struct calib_planes shape; /* offsets and sizes only (no planes) */

	/* the previous dark or flat, waiting for its pair */
	struct calib_planes pending;
	double pending_level;
	bool have_pending;
	struct cisp_calib_capture pending_cap;

	struct calib_dark dark;
	struct calib_flat flat;
	struct calib_noise noise;
	struct calib_chart_shot *charts;
	unsigned num_charts;
	struct cisp_calib_sharpness edge;
	/* chart frames: lens shading from their white areas (per light), and grey steps */
	struct cisp_calib_chart_flat *chart_flat;
	unsigned num_chart_flats;
	struct cisp_calib_tone *tone;
	struct calib_spectral spectral;

	struct calib_input *inputs;
	unsigned num_inputs;

	bool solved;
	struct cisp_calib_result result;
	struct cisp_calib_defect *defect_list;
};

/* The black level to work with before the darks are solved: the darks' so far, else the stated one, per channel. */
void calib_black_guess(const struct cisp_calib *c, double black[4]);
/* The bit depth of the tuning's codes, and frame codes per tuning code (a 10-bit mode's samples shifted to 16 bits: 64). */
void calib_code_scale(const struct cisp_calib *c, unsigned *bits, double *scale);

struct cisp_tuning;
/*
 * Write tuning @t to @out as YAML after a comment line (@comment), then what
 * @more writes (NULL: nothing); the text is parsed back first, so a file
 * that cisp would refuse is never written.
 */
int calib_tuning_emit(const struct cisp_tuning *t, const char *comment, void (*more)(FILE *f, const void *ctx),
		      const void *ctx, struct cisp_output_file *out);

#endif /* CISP_IQ_CALIBRATE_INTERNAL_H */
