/* SPDX-License-Identifier: MIT */
/*
 * Defective pixel correction (the DPC block): the hot and dead pixels every
 * sensor has, found per frame with the tuning's threshold (0 turns dynamic
 * detection off), and the static list of the tuning's defect_pixels
 * (calibrated: docs/calibrate.md) in pixel array coordinates, mapped onto
 * the sensor mode's window and binning. The list has a section of its own,
 * read here: defect_pixels_section.
 */
#include <stdlib.h>
#include <string.h>

#include "algorithm.h"
#include "block.h"

struct defects {
	struct cisp_dpc_params dpc; /* the static list of the mode (configure), and the threshold (prepare) */
};

static int defects_parse(struct yaml_reader *r, const yaml_node_t *v, const char *key, struct cisp_tuning *t)
{
	return yaml_reader_whole(r, v, key, 0, 65535, &t->defect_threshold);
}

static void defects_defaults(struct cisp_tuning *t, bool uncalibrated)
{
	(void)uncalibrated;
	t->defect_threshold = 4096;
}

/* The static defects that the mode reads, in its pixels (a binned pixel with a defective site is defective). */
static int defects_configure(void *self, struct control_context *ctx)
{
	struct defects *d = self;
	const struct cisp_tuning *t = ctx->tuning;
	const struct cisp_sensor_mode *m = &ctx->mode;
	unsigned bin = m->binning ? m->binning : 1, n = 0;

	for (unsigned i = 0; i < t->defect_count; i++) {
		uint32_t x = t->defects[i].x, y = t->defects[i].y, mx, my;

		if (x < m->crop_x || y < m->crop_y || x - m->crop_x >= m->width * bin || y - m->crop_y >= m->height * bin)
			continue;
		mx = (x - m->crop_x) / bin;
		my = (y - m->crop_y) / bin;
		/* The list is sorted by row then column; binning can only repeat the last pixels of a row. */
		bool seen = false;

		for (unsigned k = n; k-- > 0 && d->dpc.pixels[k].y == my && !seen;)
			seen = d->dpc.pixels[k].x == mx;
		if (!seen) {
			d->dpc.pixels[n].x = (uint16_t)mx;
			d->dpc.pixels[n].y = (uint16_t)my;
			n++;
		}
	}
	/* Binning folds two array rows into one: keep the list sorted. */
	for (unsigned i = 1; i < n; i++)
		for (unsigned k = i; k > 0 && (d->dpc.pixels[k].y < d->dpc.pixels[k - 1].y ||
					      (d->dpc.pixels[k].y == d->dpc.pixels[k - 1].y &&
					       d->dpc.pixels[k].x < d->dpc.pixels[k - 1].x));
		     k--) {
			struct cisp_dpc_pixel p = d->dpc.pixels[k];

			d->dpc.pixels[k] = d->dpc.pixels[k - 1];
			d->dpc.pixels[k - 1] = p;
		}
	d->dpc.count = (uint16_t)n;
	return 0;
}

static uint32_t defects_prepare(void *self, const struct control_context *ctx, struct cisp_param_state *ps)
{
	struct defects *d = self;

	d->dpc.header = ps->dpc.header;
	d->dpc.threshold = abi_fixed_u16(ctx->tuning->defect_threshold, 1);
	return control_write_block(&ps->dpc, &d->dpc, sizeof(d->dpc), CISP_BLOCK_DPC) |
	       control_enable_block(ps, CISP_BLOCK_DPC, ctx->tuning->defect_threshold > 0 || d->dpc.count);
}

const struct control_algorithm defects_algorithm = {
	.section = "defect_threshold",
	.size = sizeof(struct defects),
	.blocks = CISP_BLOCK_BIT(CISP_BLOCK_DPC),
	.parse = defects_parse,
	.defaults = defects_defaults,
	.configure = defects_configure,
	.prepare = defects_prepare,
};

/* ---- the defect_pixels section ---- */

static int pixel_item(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *item)
{
	struct cisp_tuning *t = ctx;
	double v[2];
	int ret = yaml_reader_numbers(r, item, k, 2, 0, 65535, v);

	if (ret)
		return ret;
	if (v[0] != (uint16_t)v[0] || v[1] != (uint16_t)v[1])
		return yaml_reader_fail(r, item, k, "must be whole numbers of pixels");
	t->defects[i].x = (uint16_t)v[0];
	t->defects[i].y = (uint16_t)v[1];
	/* Sorted by row, then column, each pixel once: what the DPC block takes. */
	if (i > 0 && (t->defects[i].y < t->defects[i - 1].y ||
		      (t->defects[i].y == t->defects[i - 1].y && t->defects[i].x <= t->defects[i - 1].x)))
		return yaml_reader_fail(r, item, k, "[%g, %g] must come after the previous pixel (sorted by row, then column)",
				   v[0], v[1]);
	return 0;
}

static int defect_pixels_parse(struct yaml_reader *r, const yaml_node_t *v, const char *key, struct cisp_tuning *t)
{
	return yaml_reader_list(r, v, key, TUNING_MAX_DEFECTS, &t->defect_count, pixel_item, t);
}

const struct control_algorithm defect_pixels_section = {
	.section = "defect_pixels",
	.parse = defect_pixels_parse,
};
