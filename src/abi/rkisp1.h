/* SPDX-License-Identifier: MIT */
/*
 * The canonical params on a real ISP: cisp's parameter state translated
 * into the parameters buffer of Rockchip's RkISP1 (struct rkisp1_params_cfg
 * of linux/rkisp1-config.h, the most openly documented ISP upstream), with
 * what each canonical block becomes there: exact, approximate with the
 * error this translation measured, configured outside the params buffer,
 * or not expressible. docs/rkisp1.md gives the rules.
 */
#ifndef CISP_ABI_RKISP1_H
#define CISP_ABI_RKISP1_H

#include <stdint.h>

#include <linux/rkisp1-config.h>

#include <cisp/params_state.h>

/* What a canonical block becomes on the RkISP1. */
enum rkisp1_fit {
	RKISP1_OFF = 0,         /* the block changes nothing in this state; nothing to translate */
	RKISP1_EXACT,           /* the same result at the hardware's precision (|error| under one of its steps) */
	RKISP1_APPROXIMATE,     /* within RKISP1_APPROXIMATE_LIMIT of full scale; @error says how far */
	RKISP1_OUTSIDE_PARAMS,  /* set through V4L2 formats and selections, not the params buffer */
	RKISP1_NOT_EXPRESSIBLE, /* the hardware (or its uAPI) cannot do it; the module is left as it was */
};

/* Largest error of an approximation: 1% of full scale, in 16-bit units. */
#define RKISP1_APPROXIMATE_LIMIT 655

/* The RkISP1 revision: V10 (RK3399, RK3288) or V12 (PX30, RK3326). */
enum rkisp1_revision {
	RKISP1_REV_V10 = RKISP1_V10,
	RKISP1_REV_V12 = RKISP1_V12,
};

/**
 * struct rkisp1_block_report - one canonical block on the RkISP1.
 * @fit: enum rkisp1_fit.
 * @error: largest difference of the block's output, in 16-bit units (65535
 *         is full scale), over the inputs this translation evaluated (see
 *         docs/rkisp1.md for each block); 0 unless approximate or worse.
 * @how: what it became, or why it could not, in a few words.
 */
struct rkisp1_block_report {
	uint8_t fit;
	uint32_t error;
	const char *how;
};

/** The translation of every canonical block (indexed by enum cisp_block_type; 0 and gaps unused). */
struct rkisp1_report {
	struct rkisp1_block_report block[CISP_BLOCK_TYPE_COUNT];
};

/*
 * Translate @state for a @width x @height input of a @bits-bit sensor
 * (8..12: the RkISP1 takes up to 12 bits) into @out (module_ens,
 * module_en_update and module_cfg_update set for every module this writes;
 * the others untouched) and say per block in @report what it became.
 * 0, or -EINVAL with a message for a size or bit depth the RkISP1 cannot
 * take.
 */
int rkisp1_translate(const struct cisp_param_state *state, uint32_t width, uint32_t height, unsigned bits,
		     enum rkisp1_revision revision, struct rkisp1_params_cfg *out, struct rkisp1_report *report);

/* "exact", "approximate", ... */
const char *rkisp1_fit_name(unsigned fit);

#endif
