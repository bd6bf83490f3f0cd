/* SPDX-License-Identifier: MIT */
/*
 * Denoise and sharpening strengths by gain (the BNR, CNR and SHARPEN
 * blocks): the tuning's `denoise` table, linear in the overall gain (the
 * sensor's times the ISP's digital gain) between entries and clamped at the
 * ends. A strength of 0 turns its stage off. The Bayer denoise filter is not
 * interpolated: the entry at or below the gain chooses it. The three share
 * one table in the file (version 1), so one algorithm writes them.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "algorithm.h"
#include "block.h"
#include "core/error_internal.h"
#include "table.h"

/* ---- the denoise section ---- */

static const char *const denoise_keys[] = { "gain", "bnr", "cnr", "sharpen", "coring", "bnr_mode", NULL };

static int denoise_key(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct tuning_denoise *d = ctx;

	switch (i) {
	case 0: return yaml_reader_number(r, v, k, 1, 65536, &d->gain);
	case 1: return yaml_reader_number(r, v, k, 0, 4, &d->bnr_strength);
	case 2: return yaml_reader_number(r, v, k, 0, 16, &d->cnr_strength);
	case 3: return yaml_reader_number(r, v, k, 0, 8, &d->sharpen_strength);
	case 4: return yaml_reader_number(r, v, k, 0, 65535, &d->sharpen_coring);
	default: {
		const char *s = yaml_reader_scalar(v);

		if (!s || (strcmp(s, "fast") && strcmp(s, "quality")))
			return yaml_reader_fail(r, v, k, "'%s' is not one of fast, quality", s ? s : "");
		d->bnr_mode = strcmp(s, "fast") ? CISP_BNR_QUALITY : CISP_BNR_FAST;
		return 0;
	}
	}
}

static int denoise_item(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *item)
{
	struct cisp_tuning *t = ctx;
	int ret = yaml_reader_map(r, item, k, denoise_keys, 31, denoise_key, &t->denoise[i]);

	return ret ? ret : tuning_sorted(r, item, k, "gain", i ? t->denoise[i - 1].gain : 0, t->denoise[i].gain, i);
}

static int denoise_parse(struct yaml_reader *r, const yaml_node_t *v, const char *key, struct cisp_tuning *t)
{
	return yaml_reader_list(r, v, key, TUNING_MAX_GAIN, &t->denoise_count, denoise_item, t);
}

static void denoise_defaults(struct cisp_tuning *t, bool uncalibrated)
{
	(void)uncalibrated;
	t->denoise_count = 1;
	t->denoise[0] = (struct tuning_denoise){ 1, 0.875, 3.0, 1.0, 256, CISP_BNR_FAST };
}

/* ---- the BNR, CNR and SHARPEN blocks ---- */

static int denoise_init(void *self, const struct control_context *ctx)
{
	(void)self;
	if (!ctx->tuning->denoise_count)
		return cisp_error(-EINVAL, "control: tuning '%s' has no denoise table", ctx->tuning->name);
	return 0;
}

static uint32_t denoise_prepare(void *self, const struct control_context *ctx, struct cisp_param_state *ps)
{
	const struct cisp_tuning *t = ctx->tuning;
	double overall = (ctx->sensor_gain > 0 ? ctx->sensor_gain : 1.0) * (ctx->isp_dgain > 0 ? ctx->isp_dgain : 1.0);
	struct bracket b = table_bracket(&t->denoise[0].gain, sizeof(t->denoise[0]), t->denoise_count, overall, false);
	const struct tuning_denoise *d0 = &t->denoise[b.i0], *d1 = &t->denoise[b.i1];
	struct cisp_bnr_params bnr = ps->bnr;
	struct cisp_cnr_params cnr = ps->cnr;
	struct cisp_sharpen_params sharpen = ps->sharpen;
	uint32_t changed = 0;

	(void)self;
	bnr.strength = abi_fixed_u16(fmin(table_lerp(d0->bnr_strength, d1->bnr_strength, b.f), 4.0), 256);
	bnr.mode = (uint16_t)(b.f >= 1 ? d1 : d0)->bnr_mode;
	changed |= control_write_block(&ps->bnr, &bnr, sizeof(bnr), CISP_BLOCK_BNR);
	changed |= control_enable_block(ps, CISP_BLOCK_BNR, ps->bnr.strength > 0);

	cnr.strength = abi_fixed_u16(fmin(table_lerp(d0->cnr_strength, d1->cnr_strength, b.f), 16.0), 256);
	changed |= control_write_block(&ps->cnr, &cnr, sizeof(cnr), CISP_BLOCK_CNR);
	changed |= control_enable_block(ps, CISP_BLOCK_CNR, ps->cnr.strength > 0);

	sharpen.strength = abi_fixed_u16(fmin(table_lerp(d0->sharpen_strength, d1->sharpen_strength, b.f), 8.0), 256);
	sharpen.coring = abi_fixed_u16(table_lerp(d0->sharpen_coring, d1->sharpen_coring, b.f), 1);
	changed |= control_write_block(&ps->sharpen, &sharpen, sizeof(sharpen), CISP_BLOCK_SHARPEN);
	return changed | control_enable_block(ps, CISP_BLOCK_SHARPEN, ps->sharpen.strength > 0);
}

const struct control_algorithm denoise_algorithm = {
	.section = "denoise",
	.blocks = CISP_BLOCK_BIT(CISP_BLOCK_BNR) | CISP_BLOCK_BIT(CISP_BLOCK_CNR) | CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN),
	.parse = denoise_parse,
	.defaults = denoise_defaults,
	.init = denoise_init,
	.prepare = denoise_prepare,
};
