/* SPDX-License-Identifier: MIT */
/*
 * The noise profile (the NOISE block) at the sensor's gain: the tuning's
 * profile linear in gain between entries; above the last, shot noise grows
 * with the gain and read noise with its square; below the first, the first.
 * It describes the raw data, so the ISP's own digital gain (after the
 * statistics) is not part of it.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "algorithm.h"
#include "block.h"
#include "core/error_internal.h"
#include "table.h"

/* ---- the noise section ---- */

static const char *const noise_keys[] = { "gain", "a", "b", NULL };

static int noise_key(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct tuning_noise *n = ctx;

	switch (i) {
	case 0: return yaml_reader_number(r, v, k, 1, 65536, &n->gain);
	case 1: return yaml_reader_numbers(r, v, k, 4, 0, 65535, n->a);
	default: return yaml_reader_numbers(r, v, k, 4, 0, 4294967295.0, n->b);
	}
}

static int noise_item(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *item)
{
	struct cisp_tuning *t = ctx;
	int ret = yaml_reader_map(r, item, k, noise_keys, 7, noise_key, &t->noise[i]);

	return ret ? ret : tuning_sorted(r, item, k, "gain", i ? t->noise[i - 1].gain : 0, t->noise[i].gain, i);
}

static int noise_profile_parse(struct yaml_reader *r, const yaml_node_t *v, const char *key, struct cisp_tuning *t)
{
	return yaml_reader_list(r, v, key, TUNING_MAX_GAIN, &t->noise_count, noise_item, t);
}

static void noise_profile_defaults(struct cisp_tuning *t, bool uncalibrated)
{
	if (!uncalibrated)
		return;
	/* Moderate noise: a 10-bit sensor at about 4 e per code, 2.5 e read noise. */
	t->noise_count = 2;
	t->noise[0] = (struct tuning_noise){ 1, { 16, 16, 16, 16 }, { 800, 800, 800, 800 } };
	t->noise[1] = (struct tuning_noise){ 16, { 256, 256, 256, 256 }, { 102400, 102400, 102400, 102400 } };
}

/* ---- the NOISE block ---- */

static int noise_profile_init(void *self, const struct control_context *ctx)
{
	(void)self;
	if (!ctx->tuning->noise_count)
		return cisp_error(-EINVAL, "control: tuning '%s' has no noise profile (noise)", ctx->tuning->name);
	return 0;
}

static void make_noise(const struct cisp_tuning *t, double gain, struct cisp_noise_params *p)
{
	struct bracket b = table_bracket(&t->noise[0].gain, sizeof(t->noise[0]), t->noise_count, gain, false);
	const struct tuning_noise *n0 = &t->noise[b.i0], *n1 = &t->noise[b.i1];
	double ka = 1, kb = 1;

	if (b.i0 == t->noise_count - 1 && gain > n0->gain) {
		ka = gain / n0->gain;
		kb = ka * ka;
	}
	memset(p, 0, sizeof(*p));
	p->header.type = CISP_BLOCK_NOISE;
	p->header.size = sizeof(*p);
	for (int c = 0; c < 4; c++) {
		double a = ka * table_lerp(n0->a[c], n1->a[c], b.f) * 65536, v = kb * table_lerp(n0->b[c], n1->b[c], b.f);

		p->a[c] = (uint32_t)fmin(fmax(round(a), 0), 4294967295.0);
		p->b[c] = (uint32_t)fmin(fmax(round(v), 0), 4294967295.0);
	}
}

static uint32_t noise_profile_prepare(void *self, const struct control_context *ctx, struct cisp_param_state *ps)
{
	struct cisp_noise_params noise;

	(void)self;
	make_noise(ctx->tuning, ctx->sensor_gain > 0 ? ctx->sensor_gain : 1.0, &noise);
	return control_write_block(&ps->noise, &noise, sizeof(noise), CISP_BLOCK_NOISE);
}

const struct control_algorithm noise_profile_algorithm = {
	.section = "noise",
	.required = true,
	.blocks = CISP_BLOCK_BIT(CISP_BLOCK_NOISE),
	.parse = noise_profile_parse,
	.defaults = noise_profile_defaults,
	.init = noise_profile_init,
	.prepare = noise_profile_prepare,
};
