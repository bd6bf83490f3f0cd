/* SPDX-License-Identifier: MIT */
/*
 * The colour matrix (the CCM block): the tuning's matrices interpolated by
 * colour temperature, linear in mired between the two nearest entries and
 * clamped at the ends, in Q3.12 with every row summing to exactly 4096 so
 * that white-balanced greys stay grey.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "abi/fixed_point.h"
#include "algorithm.h"
#include "block.h"
#include "core/error_internal.h"
#include "table.h"

/* ---- the ccm section ---- */

/* Coefficients and the sum of a row's magnitudes within what Q3.12 holds. */
#define MAX_COEFF 7.99
#define MAX_ROW_MAGNITUDE (32767.0 / 4096)

static const char *const ccm_keys[] = { "ct", "matrix", NULL };

static int ccm_key(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct tuning_ccm *c = ctx;
	char key[160];
	unsigned row = 0;

	if (i == 0)
		return yaml_reader_number(r, v, k, 1000, 20000, &c->ct);
	if (!v || v->type != YAML_SEQUENCE_NODE || v->data.sequence.items.top - v->data.sequence.items.start != 3)
		return yaml_reader_fail(r, v, k, "must be a list of 3 rows of 3 numbers");
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, row++) {
		yaml_node_t *n = yaml_reader_node(r, *it);
		double sum = 0, mag = 0;
		int ret;

		yaml_reader_place(key, sizeof(key), "%s[%u]", k, row);
		ret = yaml_reader_numbers(r, n, key, 3, -MAX_COEFF, MAX_COEFF, c->m[row]);
		if (ret)
			return ret;
		for (int j = 0; j < 3; j++) {
			sum += c->m[row][j];
			mag += fabs(c->m[row][j]);
		}
		/* Rows sum to 1 so that white-balanced greys stay grey. */
		if (fabs(sum - 1) > 0.01)
			return yaml_reader_fail(r, n, key, "the row sums to %g; it must sum to 1", sum);
		if (mag > MAX_ROW_MAGNITUDE)
			return yaml_reader_fail(r, n, key, "the magnitudes add up to %g, over %g (Q3.12)", mag, MAX_ROW_MAGNITUDE);
	}
	return 0;
}

static int ccm_item(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *item)
{
	struct cisp_tuning *t = ctx;
	int ret = yaml_reader_map(r, item, k, ccm_keys, 3, ccm_key, &t->ccm[i]);

	return ret ? ret : tuning_sorted(r, item, k, "ct", i ? t->ccm[i - 1].ct : 0, t->ccm[i].ct, i);
}

static int colour_matrix_parse(struct yaml_reader *r, const yaml_node_t *v, const char *key, struct cisp_tuning *t)
{
	return yaml_reader_list(r, v, key, TUNING_MAX_CT, &t->ccm_count, ccm_item, t);
}

static void colour_matrix_defaults(struct cisp_tuning *t, bool uncalibrated)
{
	if (!uncalibrated)
		return;
	/*
	 * A mild saturation boost (a virtual sensor's D50 matrix, halfway to
	 * identity): too little rather than too much for an unknown sensor.
	 * Rows sum to 1, greys stay grey.
	 */
	t->ccm_count = 1;
	t->ccm[0] = (struct tuning_ccm){ 5000, { { 1.38, -0.36, -0.02 }, { -0.12, 1.23, -0.11 }, { 0.02, -0.28, 1.26 } } };
}

/* ---- the CCM block ---- */

static int colour_matrix_init(void *self, const struct control_context *ctx)
{
	(void)self;
	if (!ctx->tuning->ccm_count)
		return cisp_error(-EINVAL, "control: tuning '%s' has no colour matrix (ccm)", ctx->tuning->name);
	return 0;
}

/* The CCM at @ct, Q3.12, every row summing to exactly 4096. */
static void make_ccm(const struct cisp_tuning *t, double ct, struct cisp_ccm_params *p)
{
	struct bracket b = table_bracket(&t->ccm[0].ct, sizeof(t->ccm[0]), t->ccm_count, ct, true);

	memset(p, 0, sizeof(*p));
	p->header.type = CISP_BLOCK_CCM;
	p->header.size = sizeof(*p);
	for (int i = 0; i < 3; i++) {
		double row[3];
		long q[3], mag;

		for (int j = 0; j < 3; j++)
			row[j] = table_lerp(t->ccm[b.i0].m[i][j], t->ccm[b.i1].m[i][j], b.f);
		/* The parser keeps rows within range; this only guards the ABI limit. */
		if (abi_fixed_ccm_row(row, i, true, q) && (mag = labs(q[0]) + labs(q[1]) + labs(q[2])) > 32767) {
			for (int j = 0; j < 3; j++)
				q[j] = q[j] * 32767 / mag;
		}
		for (int j = 0; j < 3; j++)
			p->coeff[3 * i + j] = (int16_t)q[j];
	}
}

static uint32_t colour_matrix_prepare(void *self, const struct control_context *ctx, struct cisp_param_state *ps)
{
	struct cisp_ccm_params ccm;

	(void)self;
	make_ccm(ctx->tuning, ctx->state.colour_temperature, &ccm);
	return control_write_block(&ps->ccm, &ccm, sizeof(ccm), CISP_BLOCK_CCM) |
	       control_enable_block(ps, CISP_BLOCK_CCM, true);
}

const struct control_algorithm colour_matrix_algorithm = {
	.section = "ccm",
	.required = true,
	.blocks = CISP_BLOCK_BIT(CISP_BLOCK_CCM),
	.parse = colour_matrix_parse,
	.defaults = colour_matrix_defaults,
	.init = colour_matrix_init,
	.prepare = colour_matrix_prepare,
};
