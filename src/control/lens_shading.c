/* SPDX-License-Identifier: MIT */
/*
 * Lens shading (the LSC block): the tuning's gain tables interpolated by
 * colour temperature (linear in mired between the two nearest tables,
 * clamped at the ends), sampled at each node of a 17 x 17 grid over the
 * mode's frame. The tables span the sensor's pixel array and a mode reads a
 * window of it (possibly binned), so each node is placed at its array
 * position. Without tables the stage is off.
 */
#include <math.h>
#include <string.h>

#include "algorithm.h"
#include "block.h"
#include "table.h"

/* ---- the lens_shading section ---- */

static const char *const table_keys[] = { "ct", "r", "gr", "gb", "b", NULL };

static int table_key(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct tuning_lsc *l = ctx;
	double g[TUNING_LSC_GRID * TUNING_LSC_GRID];
	int ret;

	if (i == 0)
		return yaml_reader_number(r, v, k, 1000, 20000, &l->ct);
	ret = yaml_reader_numbers(r, v, k, TUNING_LSC_GRID * TUNING_LSC_GRID, 1, 65535.0 / 4096, g);
	for (unsigned j = 0; !ret && j < TUNING_LSC_GRID * TUNING_LSC_GRID; j++)
		l->gain[i - 1][j] = (float)g[j];
	return ret;
}

static int table_item(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *item)
{
	struct cisp_tuning *t = ctx;
	int ret = yaml_reader_map(r, item, k, table_keys, 31, table_key, &t->lsc[i]);

	return ret ? ret : tuning_sorted(r, item, k, "ct", i ? t->lsc[i - 1].ct : 0, t->lsc[i].ct, i);
}

static const char *const section_keys[] = { "array", "tables", NULL };

static int section_key(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct cisp_tuning *t = ctx;
	double d[2];
	int ret;

	if (i == 1)
		return yaml_reader_list(r, v, k, TUNING_MAX_CT, &t->lsc_count, table_item, t);
	ret = yaml_reader_numbers(r, v, k, 2, 2, 65535, d);
	if (ret)
		return ret;
	if (d[0] != floor(d[0]) || d[1] != floor(d[1]))
		return yaml_reader_fail(r, v, k, "must be whole numbers of pixels");
	t->lsc_array_width = (uint32_t)d[0];
	t->lsc_array_height = (uint32_t)d[1];
	return 0;
}

static int lens_shading_parse(struct yaml_reader *r, const yaml_node_t *v, const char *key, struct cisp_tuning *t)
{
	return yaml_reader_map(r, v, key, section_keys, 2, section_key, t);
}

/* ---- the LSC block ---- */

/* Bilinear sample of one channel of a table at grid coordinates (@u, @v). */
static double table_at(const float *g, double u, double v)
{
	const int n = TUNING_LSC_GRID;
	int i, j;
	double fu, fv;

	u = u < 0 ? 0 : u > n - 1 ? n - 1 : u;
	v = v < 0 ? 0 : v > n - 1 ? n - 1 : v;
	i = (int)u < n - 1 ? (int)u : n - 2;
	j = (int)v < n - 1 ? (int)v : n - 2;
	fu = u - i;
	fv = v - j;
	return (1 - fv) * ((1 - fu) * g[j * n + i] + fu * g[j * n + i + 1]) +
	       fv * ((1 - fu) * g[(j + 1) * n + i] + fu * g[(j + 1) * n + i + 1]);
}

/* The shading gains at @ct on a TUNING_LSC_GRID grid over @mode's frame. */
static void make_lsc(const struct cisp_tuning *t, const struct cisp_sensor_mode *mode, double ct,
		     struct cisp_lsc_params *p)
{
	const int n = TUNING_LSC_GRID;
	struct bracket b = table_bracket(&t->lsc[0].ct, sizeof(t->lsc[0]), t->lsc_count, ct, true);
	bool array = t->lsc_array_width && t->lsc_array_height && mode->width > 1 && mode->height > 1;

	memset(p, 0, sizeof(*p));
	p->header.type = CISP_BLOCK_LSC;
	p->header.size = sizeof(*p);
	p->grid_w = p->grid_h = (uint16_t)n;
	for (int c = 0; c < 4; c++) {
		const float *g0 = t->lsc[b.i0].gain[c], *g1 = t->lsc[b.i1].gain[c];

		for (int j = 0; j < n; j++) {
			for (int i = 0; i < n; i++) {
				double u = i, v = j, gain;

				if (array) {
					unsigned bin = mode->binning ? mode->binning : 1;
					double x = (double)i * (mode->width - 1) / (n - 1);
					double y = (double)j * (mode->height - 1) / (n - 1);
					/* Centre of the output pixel in array pixels. */
					double ax = mode->crop_x + (x + 0.5) * bin - 0.5;
					double ay = mode->crop_y + (y + 0.5) * bin - 0.5;

					u = ax * (n - 1) / (t->lsc_array_width - 1.0);
					v = ay * (n - 1) / (t->lsc_array_height - 1.0);
				}
				gain = table_lerp(table_at(g0, u, v), table_at(g1, u, v), b.f);
				p->gain[c * n * n + j * n + i] = abi_fixed_u16(gain, 4096);
			}
		}
	}
}

static uint32_t lens_shading_prepare(void *self, const struct control_context *ctx, struct cisp_param_state *ps)
{
	const struct cisp_tuning *t = ctx->tuning;
	uint32_t changed = 0;

	(void)self;
	if (t->lsc_count) {
		struct cisp_lsc_params lsc;

		make_lsc(t, &ctx->mode, ctx->state.colour_temperature, &lsc);
		changed = control_write_block(&ps->lsc, &lsc, sizeof(lsc), CISP_BLOCK_LSC);
	}
	return changed | control_enable_block(ps, CISP_BLOCK_LSC, t->lsc_count > 0);
}

const struct control_algorithm lens_shading_algorithm = {
	.section = "lens_shading",
	.blocks = CISP_BLOCK_BIT(CISP_BLOCK_LSC),
	.parse = lens_shading_parse,
	.prepare = lens_shading_prepare,
};
