/* SPDX-License-Identifier: MIT */
/*
 * The colour matrix (the CCM block). The tuning's matrices of lights on the
 * white-balance curve (tint 0) are interpolated by colour temperature,
 * linear in mired between the two nearest entries and clamped at the ends.
 * Lights off the curve (fluorescent lamps: entries with a tint) say how the
 * matrix changes away from it: each entry's difference from the on-curve
 * matrix at its temperature, taken in proportion to AWB's tint over the
 * entry's (both less the 0.01 AWB cannot tell from the curve; up to all of
 * it, never beyond), is averaged over the entries of
 * the grey's side weighted by inverse squared distance in (mired, tint), so
 * that at an entry's own place its matrix comes out exactly. The result
 * goes to Q3.12 with every row summing to exactly 4096, so that
 * white-balanced greys stay grey.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "abi/fixed_point.h"
#include "algorithm.h"
#include "awb.h"
#include "block.h"
#include "colour_matrix.h"
#include "core/error_internal.h"
#include "table.h"

/* ---- the ccm section ---- */

/* Coefficients and the sum of a row's magnitudes within what Q3.12 holds. */
#define MAX_COEFF 7.99
#define MAX_ROW_MAGNITUDE (32767.0 / 4096)

/* The distances that count as much in weighing the entries off the curve: about F2's and F11's apart. */
#define MIRED_SCALE 50.0
#define TINT_SCALE 0.02

static const char *const ccm_keys[] = { "ct", "matrix", "tint", NULL };

static int ccm_key(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct tuning_ccm *c = ctx;
	char key[160];
	unsigned row = 0;

	if (i == 0)
		return yaml_reader_number(r, v, k, 1000, 20000, &c->ct);
	if (i == 2) {
		int ret = yaml_reader_number(r, v, k, -TUNING_MAX_TINT, TUNING_MAX_TINT, &c->tint);

		if (!ret && c->tint && fabs(c->tint) <= TUNING_NEAR_CURVE)
			return yaml_reader_fail(r, v, k, "%g is closer to the curve than %g: an entry on it has tint 0",
						c->tint, TUNING_NEAR_CURVE);
		return ret;
	}
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

/* -1, 0 or 1: the side of the curve an entry's light lies on. */
static int side(double tint)
{
	return (tint > 0) - (tint < 0);
}

/*
 * Entries rise in colour temperature, those on the curve strictly; lights
 * off it may share a temperature (AWB places several lamps at one point of
 * the curve) but not a tint too.
 */
static int ccm_item(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *item)
{
	struct cisp_tuning *t = ctx;
	struct tuning_ccm *c = &t->ccm[i];
	int ret;

	c->tint = 0;
	ret = yaml_reader_map(r, item, k, ccm_keys, 3, ccm_key, c);
	if (ret || !i)
		return ret;
	if (c->ct < t->ccm[i - 1].ct)
		return tuning_sorted(r, item, k, "ct", t->ccm[i - 1].ct, c->ct, i);
	for (unsigned j = 0; j < i; j++)
		if (t->ccm[j].ct == c->ct && t->ccm[j].tint == c->tint)
			return yaml_reader_fail(r, item, k, "a second entry at ct %g and tint %g", c->ct, c->tint);
	return 0;
}

static int colour_matrix_parse(struct yaml_reader *r, const yaml_node_t *v, const char *key, struct cisp_tuning *t)
{
	int ret = yaml_reader_list(r, v, key, TUNING_MAX_CT, &t->ccm_count, ccm_item, t);

	for (unsigned i = 0; !ret; i++) {
		if (i == t->ccm_count)
			return yaml_reader_fail(r, v, key, "needs an entry on the white-balance curve (tint 0)");
		if (t->ccm[i].tint == 0)
			break;
	}
	return ret;
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
	t->ccm[0] = (struct tuning_ccm){ .ct = 5000, .m = { { 1.38, -0.36, -0.02 }, { -0.12, 1.23, -0.11 }, { 0.02, -0.28, 1.26 } } };
}

/* ---- the CCM block ---- */

static int colour_matrix_init(void *self, const struct control_context *ctx)
{
	(void)self;
	if (!ctx->tuning->ccm_count)
		return cisp_error(-EINVAL, "control: tuning '%s' has no colour matrix (ccm)", ctx->tuning->name);
	return 0;
}

/* The entries of @t on the curve (tint 0) into @out; returns their number. */
static unsigned on_curve(const struct cisp_tuning *t, struct tuning_ccm *out)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->ccm_count; i++)
		if (!t->ccm[i].tint)
			out[n++] = t->ccm[i];
	return n;
}

/* The matrix at @ct of @n entries (n >= 1), linear in mired, clamped at the ends. */
static void interpolate(const struct tuning_ccm *e, unsigned n, double ct, double m[3][3])
{
	struct bracket b = table_bracket(&e[0].ct, sizeof(e[0]), n, ct, true);

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			m[i][j] = table_lerp(e[b.i0].m[i][j], e[b.i1].m[i][j], b.f);
}

void colour_matrix_at(const struct cisp_tuning *t, double ct, double tint, double m[3][3])
{
	struct tuning_ccm on[TUNING_MAX_CT] = { { 0 } };
	unsigned n_on = on_curve(t, on);
	double d[3][3] = { { 0 } }, wsum = 0;

	interpolate(on, n_on, ct, m);
	for (unsigned k = 0; k < t->ccm_count && tint; k++) {
		const struct tuning_ccm *e = &t->ccm[k];
		double base[3][3], dm, dt, w, share;

		if (side(e->tint) != side(tint))
			continue;
		/* How near the entry is: a tint of TINT_SCALE counts as much as MIRED_SCALE mired. */
		dm = (1e6 / ct - 1e6 / e->ct) / MIRED_SCALE;
		dt = (tint - e->tint) / TINT_SCALE;
		w = 1 / (dm * dm + dt * dt + 1e-12);
		/*
		 * Its difference from the curve, in proportion to the tint beyond
		 * what AWB cannot tell from the curve, up to its own: never
		 * extrapolated.
		 */
		interpolate(on, n_on, e->ct, base);
		share = fmin(fmax(fabs(tint) - TUNING_NEAR_CURVE, 0) / (fabs(e->tint) - TUNING_NEAR_CURVE), 1);
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++)
				d[i][j] += w * share * (e->m[i][j] - base[i][j]);
		wsum += w;
	}
	for (int i = 0; i < 3 && wsum > 0; i++)
		for (int j = 0; j < 3; j++)
			m[i][j] += d[i][j] / wsum;
}

/* The CCM for AWB's decision (@ct and the grey its gains undo), Q3.12, every row summing to exactly 4096. */
static void make_ccm(const struct cisp_tuning *t, double ct, const double gains[2], struct cisp_ccm_params *p)
{
	double m[3][3], tint = 0, grey[2], on_curve_ct;

	if (gains[0] > 0 && gains[1] > 0) {
		grey[0] = 1 / gains[0];
		grey[1] = 1 / gains[1];
		tint = awb_curve_tint(t, grey, &on_curve_ct);
	}
	colour_matrix_at(t, ct, tint, m);
	memset(p, 0, sizeof(*p));
	p->header.type = CISP_BLOCK_CCM;
	p->header.size = sizeof(*p);
	for (int i = 0; i < 3; i++) {
		long q[3], mag;

		/* The parser keeps rows within range; this only guards the ABI limit. */
		if (abi_fixed_ccm_row(m[i], i, true, q) && (mag = labs(q[0]) + labs(q[1]) + labs(q[2])) > 32767) {
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
	make_ccm(ctx->tuning, ctx->state.colour_temperature, ctx->state.colour_gains, &ccm);
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
