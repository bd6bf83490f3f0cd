/* SPDX-License-Identifier: MIT */
/*
 * The block table of params ABI version 1: every block's fields with their
 * ranges, its size, its slot in struct cisp_param_state and its default.
 * Validation, encoding and the YAML form are all driven by this table.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cisp/params_state.h>
#include <cisp/stats.h>

#include "core/error_internal.h"
#include "params_internal.h"

/*
 * The state's blocks are the buffer's blocks, copied byte for byte: the
 * library reads params buffers on little-endian hosts only.
 */
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the params ABI is little-endian; this host is not"
#endif

/* ---- the layouts of params.h and stats.h, pinned: any change here is an ABI break ---- */

#define ASSERT_LAYOUT(st, member, off) \
	_Static_assert(offsetof(struct st, member) == (off), #st "." #member " moved")
#define ASSERT_SIZE(st, size) _Static_assert(sizeof(struct st) == (size), #st " changed size")

ASSERT_SIZE(cisp_params_header, 16);
ASSERT_LAYOUT(cisp_params_header, magic, 0);
ASSERT_LAYOUT(cisp_params_header, version, 4);
ASSERT_LAYOUT(cisp_params_header, reserved0, 6);
ASSERT_LAYOUT(cisp_params_header, total_size, 8);
ASSERT_LAYOUT(cisp_params_header, reserved1, 12);

ASSERT_SIZE(cisp_block_header, 8);
ASSERT_LAYOUT(cisp_block_header, type, 0);
ASSERT_LAYOUT(cisp_block_header, flags, 2);
ASSERT_LAYOUT(cisp_block_header, size, 4);

ASSERT_SIZE(cisp_blc_params, 24);
ASSERT_LAYOUT(cisp_blc_params, black, 8);
ASSERT_LAYOUT(cisp_blc_params, white, 16);
ASSERT_LAYOUT(cisp_blc_params, reserved, 18);

ASSERT_SIZE(cisp_dpc_pixel, 4);
ASSERT_LAYOUT(cisp_dpc_pixel, x, 0);
ASSERT_LAYOUT(cisp_dpc_pixel, y, 2);
ASSERT_SIZE(cisp_dpc_params, 16 + 4 * CISP_DPC_MAX_PIXELS);
ASSERT_LAYOUT(cisp_dpc_params, threshold, 8);
ASSERT_LAYOUT(cisp_dpc_params, count, 10);
ASSERT_LAYOUT(cisp_dpc_params, reserved, 12);
ASSERT_LAYOUT(cisp_dpc_params, pixels, 16);

ASSERT_SIZE(cisp_noise_params, 40);
ASSERT_LAYOUT(cisp_noise_params, a, 8);
ASSERT_LAYOUT(cisp_noise_params, b, 24);

ASSERT_SIZE(cisp_bnr_params, 16);
ASSERT_LAYOUT(cisp_bnr_params, strength, 8);
ASSERT_LAYOUT(cisp_bnr_params, mode, 10);
ASSERT_LAYOUT(cisp_bnr_params, reserved, 12);

ASSERT_SIZE(cisp_lsc_params, 16 + 8 * CISP_LSC_MAX_GRID * CISP_LSC_MAX_GRID);
ASSERT_LAYOUT(cisp_lsc_params, grid_w, 8);
ASSERT_LAYOUT(cisp_lsc_params, grid_h, 10);
ASSERT_LAYOUT(cisp_lsc_params, reserved, 12);
ASSERT_LAYOUT(cisp_lsc_params, gain, 16);

ASSERT_SIZE(cisp_wb_params, 16);
ASSERT_LAYOUT(cisp_wb_params, gain, 8);

ASSERT_SIZE(cisp_demosaic_params, 16);
ASSERT_LAYOUT(cisp_demosaic_params, algorithm, 8);
ASSERT_LAYOUT(cisp_demosaic_params, false_colour, 10);
ASSERT_LAYOUT(cisp_demosaic_params, reserved, 12);

ASSERT_SIZE(cisp_ccm_params, 40);
ASSERT_LAYOUT(cisp_ccm_params, coeff, 8);
ASSERT_LAYOUT(cisp_ccm_params, reserved, 26);
ASSERT_LAYOUT(cisp_ccm_params, offset, 28);

ASSERT_SIZE(cisp_tone_params, 536);
ASSERT_LAYOUT(cisp_tone_params, transfer, 8);
ASSERT_LAYOUT(cisp_tone_params, reserved0, 10);
ASSERT_LAYOUT(cisp_tone_params, curve, 16);
ASSERT_LAYOUT(cisp_tone_params, reserved1, 530);

ASSERT_SIZE(cisp_lut3d_params, 16 + 6 * 33 * 33 * 33 + 2);
ASSERT_LAYOUT(cisp_lut3d_params, size, 8);
ASSERT_LAYOUT(cisp_lut3d_params, reserved, 10);
ASSERT_LAYOUT(cisp_lut3d_params, table, 16);
ASSERT_LAYOUT(cisp_lut3d_params, pad, 16 + 6 * 33 * 33 * 33);

ASSERT_SIZE(cisp_sharpen_params, 16);
ASSERT_LAYOUT(cisp_sharpen_params, strength, 8);
ASSERT_LAYOUT(cisp_sharpen_params, coring, 10);
ASSERT_LAYOUT(cisp_sharpen_params, limit, 12);
ASSERT_LAYOUT(cisp_sharpen_params, reserved, 14);

ASSERT_SIZE(cisp_csc_params, 16);
ASSERT_LAYOUT(cisp_csc_params, matrix, 8);
ASSERT_LAYOUT(cisp_csc_params, range, 10);
ASSERT_LAYOUT(cisp_csc_params, reserved, 12);

ASSERT_SIZE(cisp_crop_params, 24);
ASSERT_LAYOUT(cisp_crop_params, output, 8);
ASSERT_LAYOUT(cisp_crop_params, reserved0, 10);
ASSERT_LAYOUT(cisp_crop_params, x, 12);
ASSERT_LAYOUT(cisp_crop_params, y, 14);
ASSERT_LAYOUT(cisp_crop_params, width, 16);
ASSERT_LAYOUT(cisp_crop_params, height, 18);
ASSERT_LAYOUT(cisp_crop_params, reserved1, 20);

ASSERT_SIZE(cisp_stats_window, 8);
ASSERT_SIZE(cisp_stats_params, 88);
ASSERT_LAYOUT(cisp_stats_params, zones_x, 8);
ASSERT_LAYOUT(cisp_stats_params, zones_y, 10);
ASSERT_LAYOUT(cisp_stats_params, saturation, 12);
ASSERT_LAYOUT(cisp_stats_params, af_count, 14);
ASSERT_LAYOUT(cisp_stats_params, af, 16);
ASSERT_LAYOUT(cisp_stats_params, row_group, 80);
ASSERT_LAYOUT(cisp_stats_params, reserved, 82);

ASSERT_SIZE(cisp_cnr_params, 16);
ASSERT_LAYOUT(cisp_cnr_params, strength, 8);
ASSERT_LAYOUT(cisp_cnr_params, luma_strength, 10);
ASSERT_LAYOUT(cisp_cnr_params, radius, 12);
ASSERT_LAYOUT(cisp_cnr_params, reserved, 14);

ASSERT_SIZE(cisp_highlights_params, 16);
ASSERT_LAYOUT(cisp_highlights_params, mode, 8);
ASSERT_LAYOUT(cisp_highlights_params, white, 10);
ASSERT_LAYOUT(cisp_highlights_params, knee, 12);
ASSERT_LAYOUT(cisp_highlights_params, reserved, 14);

ASSERT_SIZE(cisp_ltm_params, 16 + 4 * CISP_LTM_MAX_GRID * CISP_LTM_MAX_GRID);
ASSERT_LAYOUT(cisp_ltm_params, grid_w, 8);
ASSERT_LAYOUT(cisp_ltm_params, grid_h, 10);
ASSERT_LAYOUT(cisp_ltm_params, range, 12);
ASSERT_LAYOUT(cisp_ltm_params, reserved, 14);
ASSERT_LAYOUT(cisp_ltm_params, node, 16);

ASSERT_SIZE(cisp_vendor_params, 24 + CISP_VENDOR_MAX_PAYLOAD);
ASSERT_LAYOUT(cisp_vendor_params, vendor_id, 8);
ASSERT_LAYOUT(cisp_vendor_params, type, 12);
ASSERT_LAYOUT(cisp_vendor_params, version, 14);
ASSERT_LAYOUT(cisp_vendor_params, payload_size, 16);
ASSERT_LAYOUT(cisp_vendor_params, reserved, 20);
ASSERT_LAYOUT(cisp_vendor_params, payload, 24);
ASSERT_SIZE(cisp_vendor_block_caps, 16);

ASSERT_SIZE(cisp_stats_zone, 16);
ASSERT_LAYOUT(cisp_stats_zone, r, 0);
ASSERT_LAYOUT(cisp_stats_zone, g, 2);
ASSERT_LAYOUT(cisp_stats_zone, b, 4);
ASSERT_LAYOUT(cisp_stats_zone, reserved, 6);
ASSERT_LAYOUT(cisp_stats_zone, count, 8);
ASSERT_LAYOUT(cisp_stats_zone, total, 12);
ASSERT_SIZE(cisp_stats_af, 16);
ASSERT_LAYOUT(cisp_stats_af, sharpness, 0);
ASSERT_LAYOUT(cisp_stats_af, count, 8);
ASSERT_LAYOUT(cisp_stats_af, reserved, 12);
ASSERT_SIZE(cisp_stats, 25784);
ASSERT_LAYOUT(cisp_stats, magic, 0);
ASSERT_LAYOUT(cisp_stats, version, 4);
ASSERT_LAYOUT(cisp_stats, reserved0, 6);
ASSERT_LAYOUT(cisp_stats, size, 8);
ASSERT_LAYOUT(cisp_stats, valid, 12);
ASSERT_LAYOUT(cisp_stats, sequence, 16);
ASSERT_LAYOUT(cisp_stats, width, 24);
ASSERT_LAYOUT(cisp_stats, height, 28);
ASSERT_LAYOUT(cisp_stats, hist, 32);
ASSERT_LAYOUT(cisp_stats, zones_x, 1056);
ASSERT_LAYOUT(cisp_stats, zones_y, 1058);
ASSERT_LAYOUT(cisp_stats, reserved1, 1060);
ASSERT_LAYOUT(cisp_stats, zone, 1064);
ASSERT_LAYOUT(cisp_stats, af_count, 17448);
ASSERT_LAYOUT(cisp_stats, reserved2, 17450);
ASSERT_LAYOUT(cisp_stats, af, 17456);
ASSERT_LAYOUT(cisp_stats, row_count, 17584);
ASSERT_LAYOUT(cisp_stats, row_group, 17586);
ASSERT_LAYOUT(cisp_stats, reserved3, 17588);
ASSERT_LAYOUT(cisp_stats, row_mean, 17592);

/* The state is compared with memcmp(): no padding between its members. */
_Static_assert(sizeof(struct cisp_param_state) ==
		       2 * sizeof(uint32_t) + sizeof(struct cisp_blc_params) + sizeof(struct cisp_dpc_params) +
			       sizeof(struct cisp_noise_params) + sizeof(struct cisp_bnr_params) +
			       sizeof(struct cisp_lsc_params) + sizeof(struct cisp_wb_params) +
			       sizeof(struct cisp_demosaic_params) + sizeof(struct cisp_ccm_params) +
			       sizeof(struct cisp_tone_params) + sizeof(struct cisp_lut3d_params) +
			       sizeof(struct cisp_sharpen_params) + sizeof(struct cisp_csc_params) +
			       CISP_MAX_OUTPUTS * sizeof(struct cisp_crop_params) + sizeof(struct cisp_stats_params) +
			       sizeof(struct cisp_cnr_params) + sizeof(struct cisp_highlights_params) +
			       sizeof(struct cisp_ltm_params),
	       "struct cisp_param_state has padding");

/* ---- fields ---- */

#define MEMBER_SIZE(st, m) sizeof(((struct st *)0)->m)

/* A field of @st: name, storage type, element range, then any more designators. */
#define FIELD(st, m, t, lo, hi, ...)                                                                     \
	{                                                                                                \
		.name = #m, .offset = offsetof(struct st, m), .type = t,                                 \
		.count = (uint32_t)(MEMBER_SIZE(st, m) / ABI_TYPE_BYTES(t)),                              \
		.min = lo, .max = hi, __VA_ARGS__                                                        \
	}
#define RESERVED(st, m, t) FIELD(st, m, t, 0, 0, .flags = ABI_RESERVED)

static const char *const transfer_names[] = { "linear", "srgb", "bt709", NULL };
static const char *const matrix_names[] = { "bt601", "bt709", "bt2020", NULL };
static const char *const range_names[] = { "limited", "full", NULL };
/* Demosaic algorithms and Bayer denoise modes share the names. */
static const char *const algorithm_names[] = { "fast", "quality", NULL };

const char *const abi_output_names[CISP_MAX_OUTPUTS] = { "main", "preview" };

static const struct abi_field blc_fields[] = {
	FIELD(cisp_blc_params, black, ABI_U16, 0, 65535),
	FIELD(cisp_blc_params, white, ABI_U16, 0, 65535),
	RESERVED(cisp_blc_params, reserved, ABI_U16),
	{ 0 },
};

static struct abi_span dpc_pixels(const void *block)
{
	const struct cisp_dpc_params *p = block;
	uint32_t n = p->count < CISP_DPC_MAX_PIXELS ? p->count : CISP_DPC_MAX_PIXELS;

	return (struct abi_span){ 0, 2 * n, 2 };
}

static uint32_t dpc_used(const void *block)
{
	return offsetof(struct cisp_dpc_params, pixels) + 2 * dpc_pixels(block).n;
}

static const struct abi_field dpc_fields[] = {
	FIELD(cisp_dpc_params, threshold, ABI_U16, 0, 65535),
	FIELD(cisp_dpc_params, count, ABI_U16, 0, CISP_DPC_MAX_PIXELS, .flags = ABI_COUNT | ABI_IMPLICIT),
	RESERVED(cisp_dpc_params, reserved, ABI_U32),
	FIELD(cisp_dpc_params, pixels, ABI_U16, 0, 65535, .row = 2, .span = dpc_pixels, .length_of = "count"),
	{ 0 },
};

static const struct abi_field noise_fields[] = {
	FIELD(cisp_noise_params, a, ABI_U32, 0, UINT32_MAX, .frac = 16),
	FIELD(cisp_noise_params, b, ABI_U32, 0, UINT32_MAX),
	{ 0 },
};

static const struct abi_field bnr_fields[] = {
	FIELD(cisp_bnr_params, strength, ABI_U16, 0, 1024, .frac = 8),
	FIELD(cisp_bnr_params, mode, ABI_U16, 0, CISP_BNR_QUALITY, .names = algorithm_names,
	      .flags = ABI_OPTIONAL),
	RESERVED(cisp_bnr_params, reserved, ABI_U16),
	{ 0 },
};

static const char *const highlights_mode_names[] = { "clip", "blend", "reconstruct", NULL };

static const struct abi_field highlights_fields[] = {
	FIELD(cisp_highlights_params, mode, ABI_U16, 0, CISP_HIGHLIGHTS_RECONSTRUCT, .names = highlights_mode_names),
	FIELD(cisp_highlights_params, white, ABI_U16, 1024, 65535),
	FIELD(cisp_highlights_params, knee, ABI_U16, 2048, 4032, .frac = 12),
	RESERVED(cisp_highlights_params, reserved, ABI_U16),
	{ 0 },
};

static const struct abi_field cnr_fields[] = {
	FIELD(cisp_cnr_params, strength, ABI_U16, 0, 4096, .frac = 8),
	FIELD(cisp_cnr_params, luma_strength, ABI_U16, 1, 4096, .frac = 8),
	FIELD(cisp_cnr_params, radius, ABI_U16, 1, CISP_CNR_MAX_RADIUS),
	RESERVED(cisp_cnr_params, reserved, ABI_U16),
	{ 0 },
};

/* Grid nodes per channel, with the grid clamped to its range so a bad state never reads past gain[]. */
static uint32_t lsc_nodes(const struct cisp_lsc_params *p)
{
	uint32_t w = p->grid_w < CISP_LSC_MAX_GRID ? p->grid_w : CISP_LSC_MAX_GRID;
	uint32_t h = p->grid_h < CISP_LSC_MAX_GRID ? p->grid_h : CISP_LSC_MAX_GRID;

	return w * h;
}

static struct abi_span lsc_channel(const void *block, uint32_t c)
{
	const struct cisp_lsc_params *p = block;
	uint32_t n = lsc_nodes(p);

	return (struct abi_span){ c * n, n, p->grid_w < CISP_LSC_MAX_GRID ? p->grid_w : CISP_LSC_MAX_GRID };
}

static struct abi_span lsc_r(const void *block)
{
	return lsc_channel(block, 0);
}

static struct abi_span lsc_gr(const void *block)
{
	return lsc_channel(block, 1);
}

static struct abi_span lsc_gb(const void *block)
{
	return lsc_channel(block, 2);
}

static struct abi_span lsc_b(const void *block)
{
	return lsc_channel(block, 3);
}

static uint32_t lsc_used(const void *block)
{
	return offsetof(struct cisp_lsc_params, gain) + 8 * lsc_nodes(block);
}

/* The four channel grids share gain[]; each is a field of its own in the YAML form. */
#define LSC_CHANNEL(key, fn)                                                                                \
	{                                                                                                   \
		.name = key, .offset = offsetof(struct cisp_lsc_params, gain), .type = ABI_U16, .frac = 12, \
		.flags = ABI_GRID, .count = 4 * CISP_LSC_MAX_GRID * CISP_LSC_MAX_GRID, .min = 0,            \
		.max = 65535, .span = fn                                                                    \
	}

static const struct abi_field lsc_fields[] = {
	FIELD(cisp_lsc_params, grid_w, ABI_U16, 2, CISP_LSC_MAX_GRID, .flags = ABI_COUNT),
	FIELD(cisp_lsc_params, grid_h, ABI_U16, 2, CISP_LSC_MAX_GRID, .flags = ABI_COUNT),
	RESERVED(cisp_lsc_params, reserved, ABI_U32),
	LSC_CHANNEL("r", lsc_r),
	LSC_CHANNEL("gr", lsc_gr),
	LSC_CHANNEL("gb", lsc_gb),
	LSC_CHANNEL("b", lsc_b),
	{ 0 },
};

/* Grid nodes, with the grid clamped to its range so a bad state never reads past node[]. */
static uint32_t ltm_nodes(const struct cisp_ltm_params *p, uint32_t *w)
{
	uint32_t h = p->grid_h < CISP_LTM_MAX_GRID ? p->grid_h : CISP_LTM_MAX_GRID;

	*w = p->grid_w < CISP_LTM_MAX_GRID ? p->grid_w : CISP_LTM_MAX_GRID;
	return *w * h;
}

static struct abi_span ltm_levels(const void *block)
{
	uint32_t w, n = ltm_nodes(block, &w);

	return (struct abi_span){ 0, n, w };
}

static struct abi_span ltm_gains(const void *block)
{
	uint32_t w, n = ltm_nodes(block, &w);

	return (struct abi_span){ n, n, w };
}

static uint32_t ltm_used(const void *block)
{
	uint32_t w;

	return offsetof(struct cisp_ltm_params, node) + 4 * ltm_nodes(block, &w);
}

/* Levels and gains share node[]; each is a field of its own in the YAML form. */
#define LTM_GRID(key, lo, hi, q, fn)                                                                          \
	{                                                                                                     \
		.name = key, .offset = offsetof(struct cisp_ltm_params, node), .type = ABI_U16, .frac = q,    \
		.flags = ABI_GRID, .count = 2 * CISP_LTM_MAX_GRID * CISP_LTM_MAX_GRID, .min = lo, .max = hi, \
		.span = fn                                                                                    \
	}

static const struct abi_field ltm_fields[] = {
	FIELD(cisp_ltm_params, grid_w, ABI_U16, 2, CISP_LTM_MAX_GRID, .flags = ABI_COUNT),
	FIELD(cisp_ltm_params, grid_h, ABI_U16, 2, CISP_LTM_MAX_GRID, .flags = ABI_COUNT),
	FIELD(cisp_ltm_params, range, ABI_U16, 64, 1024),
	RESERVED(cisp_ltm_params, reserved, ABI_U16),
	LTM_GRID("level", 0, 4095, 0, ltm_levels),
	LTM_GRID("gain", 16, 4095, 8, ltm_gains),
	{ 0 },
};

static const struct abi_field wb_fields[] = {
	FIELD(cisp_wb_params, gain, ABI_U16, 0, 65535, .frac = 12),
	{ 0 },
};

static const struct abi_field demosaic_fields[] = {
	FIELD(cisp_demosaic_params, algorithm, ABI_U16, 0, CISP_DEMOSAIC_QUALITY, .names = algorithm_names),
	FIELD(cisp_demosaic_params, false_colour, ABI_U16, 0, 256, .frac = 8),
	RESERVED(cisp_demosaic_params, reserved, ABI_U32),
	{ 0 },
};

static const struct abi_field ccm_fields[] = {
	FIELD(cisp_ccm_params, coeff, ABI_I16, INT16_MIN, INT16_MAX, .frac = 12, .row = 3, .flags = ABI_GRID),
	RESERVED(cisp_ccm_params, reserved, ABI_I16),
	FIELD(cisp_ccm_params, offset, ABI_I32, -65535, 65535),
	{ 0 },
};

static const struct abi_field tone_fields[] = {
	FIELD(cisp_tone_params, transfer, ABI_U16, 0, CISP_TRANSFER_BT709, .names = transfer_names),
	RESERVED(cisp_tone_params, reserved0, ABI_U16),
	FIELD(cisp_tone_params, curve, ABI_U16, 0, 65535),
	RESERVED(cisp_tone_params, reserved1, ABI_U16),
	{ 0 },
};

static uint32_t lut3d_nodes(const struct cisp_lut3d_params *p)
{
	uint32_t s = p->size < CISP_LUT3D_MAX_SIZE ? p->size : CISP_LUT3D_MAX_SIZE;

	return s * s * s;
}

static struct abi_span lut3d_table(const void *block)
{
	return (struct abi_span){ 0, 3 * lut3d_nodes(block), 3 };
}

static uint32_t lut3d_used(const void *block)
{
	return offsetof(struct cisp_lut3d_params, table) + 6 * lut3d_nodes(block);
}

static const struct abi_field lut3d_fields[] = {
	FIELD(cisp_lut3d_params, size, ABI_U16, 2, CISP_LUT3D_MAX_SIZE, .flags = ABI_COUNT),
	RESERVED(cisp_lut3d_params, reserved, ABI_U16),
	FIELD(cisp_lut3d_params, table, ABI_U16, 0, 65535, .row = 3, .span = lut3d_table),
	RESERVED(cisp_lut3d_params, pad, ABI_U16),
	{ 0 },
};

static const struct abi_field sharpen_fields[] = {
	FIELD(cisp_sharpen_params, strength, ABI_U16, 0, 2048, .frac = 8),
	FIELD(cisp_sharpen_params, coring, ABI_U16, 0, 65535),
	FIELD(cisp_sharpen_params, limit, ABI_U16, 0, 65535),
	RESERVED(cisp_sharpen_params, reserved, ABI_U16),
	{ 0 },
};

static const struct abi_field csc_fields[] = {
	FIELD(cisp_csc_params, matrix, ABI_U16, 0, CISP_CSC_BT2020, .names = matrix_names),
	FIELD(cisp_csc_params, range, ABI_U16, 0, CISP_RANGE_FULL, .names = range_names),
	RESERVED(cisp_csc_params, reserved, ABI_U32),
	{ 0 },
};

static const struct abi_field crop_fields[] = {
	FIELD(cisp_crop_params, output, ABI_U16, 0, CISP_MAX_OUTPUTS - 1, .flags = ABI_IMPLICIT),
	RESERVED(cisp_crop_params, reserved0, ABI_U16),
	FIELD(cisp_crop_params, x, ABI_U16, 0, 65535),
	FIELD(cisp_crop_params, y, ABI_U16, 0, 65535),
	FIELD(cisp_crop_params, width, ABI_U16, 0, 65535),
	FIELD(cisp_crop_params, height, ABI_U16, 0, 65535),
	RESERVED(cisp_crop_params, reserved1, ABI_U32),
	{ 0 },
};

static struct abi_span stats_af(const void *block)
{
	const struct cisp_stats_params *p = block;
	uint32_t n = p->af_count < CISP_STATS_MAX_AF ? p->af_count : CISP_STATS_MAX_AF;

	return (struct abi_span){ 0, 4 * n, 4 };
}

static const struct abi_field stats_fields[] = {
	FIELD(cisp_stats_params, zones_x, ABI_U16, 1, CISP_STATS_MAX_ZONES),
	FIELD(cisp_stats_params, zones_y, ABI_U16, 1, CISP_STATS_MAX_ZONES),
	FIELD(cisp_stats_params, saturation, ABI_U16, 0, 65535),
	FIELD(cisp_stats_params, af_count, ABI_U16, 0, CISP_STATS_MAX_AF, .flags = ABI_COUNT | ABI_IMPLICIT),
	FIELD(cisp_stats_params, af, ABI_U16, 0, 65535, .row = 4, .span = stats_af, .length_of = "af_count"),
	FIELD(cisp_stats_params, row_group, ABI_U16, 0, 65535),
	RESERVED(cisp_stats_params, reserved, ABI_U16),
	{ 0 },
};

/* ---- defaults ---- */

static void blc_defaults(void *block)
{
	((struct cisp_blc_params *)block)->white = 65535;
}

static void noise_defaults(void *block)
{
	struct cisp_noise_params *p = block;

	for (int c = 0; c < 4; c++) {
		p->a[c] = 4u << 16;
		p->b[c] = 64;
	}
}

static void bnr_defaults(void *block)
{
	((struct cisp_bnr_params *)block)->strength = 224;
}

static void cnr_defaults(void *block)
{
	struct cisp_cnr_params *p = block;

	p->strength = 768;
	p->luma_strength = 3072;
	p->radius = 4;
}

static void highlights_defaults(void *block)
{
	struct cisp_highlights_params *p = block;

	p->mode = CISP_HIGHLIGHTS_CLIP;
	p->white = 65535;
	p->knee = 3686;
}

static void ltm_defaults(void *block)
{
	struct cisp_ltm_params *p = block;

	p->grid_w = 2;
	p->grid_h = 2;
	p->range = 384;
	for (int i = 0; i < 4; i++)
		p->node[4 + i] = 256;
}

static void lsc_defaults(void *block)
{
	struct cisp_lsc_params *p = block;

	p->grid_w = 2;
	p->grid_h = 2;
	for (int i = 0; i < 4 * 2 * 2; i++)
		p->gain[i] = 4096;
}

static void wb_defaults(void *block)
{
	struct cisp_wb_params *p = block;

	for (int c = 0; c < 4; c++)
		p->gain[c] = 4096;
}

static void demosaic_defaults(void *block)
{
	struct cisp_demosaic_params *p = block;

	p->algorithm = CISP_DEMOSAIC_FAST;
	p->false_colour = 256;
}

static void ccm_defaults(void *block)
{
	struct cisp_ccm_params *p = block;

	p->coeff[0] = p->coeff[4] = p->coeff[8] = 4096;
}

static void tone_defaults(void *block)
{
	struct cisp_tone_params *p = block;

	p->transfer = CISP_TRANSFER_SRGB;
	for (int i = 0; i < CISP_TONE_POINTS; i++)
		p->curve[i] = (uint16_t)(i < 256 ? i * 256 : 65535);
}

static void lut3d_defaults(void *block)
{
	struct cisp_lut3d_params *p = block;

	p->size = 2;
	for (int i = 0; i < 8; i++)
		for (int c = 0; c < 3; c++)
			p->table[i][c] = (i >> c) & 1 ? 65535 : 0;
}

static void sharpen_defaults(void *block)
{
	struct cisp_sharpen_params *p = block;

	p->strength = 256;
	p->coring = 256;
	p->limit = 4096;
}

static void csc_defaults(void *block)
{
	struct cisp_csc_params *p = block;

	p->matrix = CISP_CSC_BT709;
	p->range = CISP_RANGE_LIMITED;
}

static void crop_defaults(void *block)
{
	struct cisp_crop_params *p = block;

	p->width = 16;
	p->height = 16;
}

static void stats_defaults(void *block)
{
	struct cisp_stats_params *p = block;

	p->zones_x = 16;
	p->zones_y = 12;
	p->saturation = 65000;
}

/* A vendor block: the ISP checks its framing and never reads the payload (any byte is valid). */
static struct abi_span vendor_payload(const void *block)
{
	const struct cisp_vendor_params *p = block;

	return (struct abi_span){ 0, p->payload_size < CISP_VENDOR_MAX_PAYLOAD ? p->payload_size : CISP_VENDOR_MAX_PAYLOAD,
				  0 };
}

static uint32_t vendor_used(const void *block)
{
	return offsetof(struct cisp_vendor_params, payload) + vendor_payload(block).n;
}

static const struct abi_field vendor_fields[] = {
	FIELD(cisp_vendor_params, vendor_id, ABI_U32, 1, UINT32_MAX, .flags = ABI_IMPLICIT),
	FIELD(cisp_vendor_params, type, ABI_U16, 1, 65535, .flags = ABI_IMPLICIT),
	FIELD(cisp_vendor_params, version, ABI_U16, 1, 65535),
	FIELD(cisp_vendor_params, payload_size, ABI_U32, 0, CISP_VENDOR_MAX_PAYLOAD, .flags = ABI_COUNT | ABI_IMPLICIT),
	RESERVED(cisp_vendor_params, reserved, ABI_U32),
	FIELD(cisp_vendor_params, payload, ABI_U8, 0, 255, .span = vendor_payload, .length_of = "payload_size"),
	{ 0 },
};

/* Not in struct cisp_param_state: vendor payloads are kept by the instance's vendor stages. */
static const struct abi_block vendor_block = {
	.name = "vendor", .size = sizeof(struct cisp_vendor_params), .flags = ABI_VENDOR, .fields = vendor_fields,
	.used_size = vendor_used, .check = abi_check_vendor,
};

/* ---- the table ---- */

#define BLOCK(tp, st, member, ...)                                                                            \
	[tp] = { .size = sizeof(struct st), .state_offset = offsetof(struct cisp_param_state, member), __VA_ARGS__ }

static const struct abi_block blocks[CISP_BLOCK_TYPE_COUNT] = {
	BLOCK(CISP_BLOCK_BLC, cisp_blc_params, blc, .name = "blc", .fields = blc_fields, .check = abi_check_blc,
	      .defaults = blc_defaults, .enabled_by_default = true),
	BLOCK(CISP_BLOCK_DPC, cisp_dpc_params, dpc, .name = "dpc", .fields = dpc_fields, .used_size = dpc_used,
	      .check = abi_check_dpc),
	BLOCK(CISP_BLOCK_NOISE, cisp_noise_params, noise, .name = "noise", .fields = noise_fields,
	      .flags = ABI_NO_FLAGS, .defaults = noise_defaults),
	BLOCK(CISP_BLOCK_BNR, cisp_bnr_params, bnr, .name = "bnr", .fields = bnr_fields, .defaults = bnr_defaults),
	BLOCK(CISP_BLOCK_LSC, cisp_lsc_params, lsc, .name = "lsc", .fields = lsc_fields, .used_size = lsc_used,
	      .defaults = lsc_defaults),
	BLOCK(CISP_BLOCK_WB, cisp_wb_params, wb, .name = "wb", .fields = wb_fields, .defaults = wb_defaults,
	      .enabled_by_default = true),
	BLOCK(CISP_BLOCK_DEMOSAIC, cisp_demosaic_params, demosaic, .name = "demosaic", .fields = demosaic_fields,
	      .flags = ABI_ALWAYS_ON, .check = abi_check_demosaic, .defaults = demosaic_defaults,
	      .enabled_by_default = true),
	BLOCK(CISP_BLOCK_CCM, cisp_ccm_params, ccm, .name = "ccm", .fields = ccm_fields, .check = abi_check_ccm,
	      .defaults = ccm_defaults, .enabled_by_default = true),
	BLOCK(CISP_BLOCK_TONE, cisp_tone_params, tone, .name = "tone", .fields = tone_fields,
	      .defaults = tone_defaults, .enabled_by_default = true),
	BLOCK(CISP_BLOCK_LUT3D, cisp_lut3d_params, lut3d, .name = "lut3d", .fields = lut3d_fields,
	      .used_size = lut3d_used, .defaults = lut3d_defaults),
	BLOCK(CISP_BLOCK_SHARPEN, cisp_sharpen_params, sharpen, .name = "sharpen", .fields = sharpen_fields,
	      .defaults = sharpen_defaults),
	BLOCK(CISP_BLOCK_CSC, cisp_csc_params, csc, .name = "csc", .fields = csc_fields, .flags = ABI_ALWAYS_ON,
	      .defaults = csc_defaults, .enabled_by_default = true),
	BLOCK(CISP_BLOCK_CROP, cisp_crop_params, crop, .name = "crop", .fields = crop_fields,
	      .flags = ABI_PER_OUTPUT, .check = abi_check_crop, .defaults = crop_defaults),
	BLOCK(CISP_BLOCK_STATS, cisp_stats_params, stats, .name = "stats", .fields = stats_fields,
	      .check = abi_check_stats, .defaults = stats_defaults, .enabled_by_default = true),
	BLOCK(CISP_BLOCK_CNR, cisp_cnr_params, cnr, .name = "cnr", .fields = cnr_fields, .defaults = cnr_defaults),
	BLOCK(CISP_BLOCK_HIGHLIGHTS, cisp_highlights_params, highlights, .name = "highlights",
	      .fields = highlights_fields, .defaults = highlights_defaults),
	BLOCK(CISP_BLOCK_LTM, cisp_ltm_params, ltm, .name = "ltm", .fields = ltm_fields, .used_size = ltm_used,
	      .defaults = ltm_defaults),
};

const struct abi_block *abi_block_info(unsigned type)
{
	if (type == CISP_BLOCK_VENDOR)
		return &vendor_block;
	if (type >= CISP_BLOCK_TYPE_COUNT || !blocks[type].name)
		return NULL;
	return &blocks[type];
}

const char *cisp_block_name(unsigned type)
{
	const struct abi_block *b = abi_block_info(type);

	return b ? b->name : "unknown";
}

unsigned cisp_block_type_from_name(const char *name)
{
	for (unsigned t = 0; t < CISP_BLOCK_TYPE_COUNT; t++)
		if (blocks[t].name && !strcmp(blocks[t].name, name))
			return t;
	return strcmp(name, vendor_block.name) ? 0 : CISP_BLOCK_VENDOR;
}

/* ---- helpers ---- */

int abi_error(const struct abi_ctx *ctx, int err, const char *fmt, ...)
{
	char message[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	return cisp_error(err, "%s: %s", ctx->where, message);
}

int64_t abi_get(const void *block, const struct abi_field *f, uint32_t i)
{
	const uint8_t *p = (const uint8_t *)block + f->offset + (size_t)i * abi_type_bytes(f->type);

	switch (f->type) {
	case ABI_U8:
		return p[0];
	case ABI_U16:
		return abi_rd16(p);
	case ABI_I16:
		return (int16_t)abi_rd16(p);
	case ABI_U32:
		return abi_rd32(p);
	default:
		return (int32_t)abi_rd32(p);
	}
}

void abi_set(void *block, const struct abi_field *f, uint32_t i, int64_t v)
{
	uint8_t *p = (uint8_t *)block + f->offset + (size_t)i * abi_type_bytes(f->type);
	uint32_t u = (uint32_t)v;

	p[0] = (uint8_t)u;
	if (f->type == ABI_U8)
		return;
	p[1] = (uint8_t)(u >> 8);
	if (abi_type_bytes(f->type) == 4) {
		p[2] = (uint8_t)(u >> 16);
		p[3] = (uint8_t)(u >> 24);
	}
}

struct abi_span abi_field_span(const struct abi_field *f, const void *block)
{
	if (f->span)
		return f->span(block);
	return (struct abi_span){ 0, f->count, f->row };
}

const struct abi_field *abi_find_field(const struct abi_block *b, const char *name)
{
	for (const struct abi_field *f = b->fields; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

/* "grid_w = 3, grid_h = 5": the values a variable-length block's size follows from. */
void abi_describe_counts(char *out, size_t size, const struct abi_block *b, const void *block)
{
	size_t n = 0;

	out[0] = '\0';
	for (const struct abi_field *f = b->fields; f->name && n < size; f++)
		if (f->flags & ABI_COUNT)
			n += (size_t)snprintf(out + n, size - n, "%s%s = %" PRId64, n ? ", " : "", f->name,
					      abi_get(block, f, 0));
}

uint32_t abi_block_encoded_size(const struct abi_block *b, const void *block)
{
	if (!b->used_size)
		return b->size;
	return (b->used_size(block) + 7) & ~7u;
}

void *abi_state_block(struct cisp_param_state *state, const struct abi_block *b, unsigned output)
{
	return (uint8_t *)state + b->state_offset + (size_t)output * b->size;
}

const void *abi_state_block_const(const struct abi_block *b, const struct cisp_param_state *state,
				  unsigned output)
{
	return (const uint8_t *)state + b->state_offset + (size_t)output * b->size;
}

bool abi_state_enabled(const struct abi_block *b, const struct cisp_param_state *state, unsigned output)
{
	unsigned type = (unsigned)(b - blocks);

	if (b->flags & ABI_PER_OUTPUT)
		return state->crop_enabled & (1u << output);
	return state->enabled & CISP_BLOCK_BIT(type);
}

void cisp_param_state_init(struct cisp_param_state *state)
{
	memset(state, 0, sizeof(*state));
	for (unsigned t = 0; t < CISP_BLOCK_TYPE_COUNT; t++) {
		const struct abi_block *b = abi_block_info(t);

		if (!b)
			continue;
		for (unsigned o = 0; o < abi_block_instances(b); o++) {
			struct cisp_block_header *h = abi_state_block(state, b, o);

			h->type = (uint16_t)t;
			h->size = b->size;
			if (b->defaults)
				b->defaults(h);
			if (b->flags & ABI_PER_OUTPUT) {
				abi_set(h, abi_find_field(b, "output"), 0, o);
				if (b->enabled_by_default)
					state->crop_enabled |= 1u << o;
			}
		}
		if (b->enabled_by_default && !(b->flags & ABI_PER_OUTPUT))
			state->enabled |= CISP_BLOCK_BIT(t);
	}
}
