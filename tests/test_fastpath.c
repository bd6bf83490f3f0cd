/* SPDX-License-Identifier: MIT */
/*
 * The banded executor and the optimised row functions against the reference
 * executor (stage by stage, scalar reference stages): the same output bytes
 * and statistics for every band size, thread count and CPU level.
 */
#include <errno.h>
#include <stdlib.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>
#include <cisp/pool.h>

#include "isp/demosaic.h"
#include "isp/dsp.h"
#include "isp/pipeline_internal.h"
#include "isp/stage.h"
#include "test.h"

/* A mosaic with edges, gradients, noise, clipped and black areas. */
static void fill_input(struct cisp_image *in)
{
	const struct cisp_format_info *f = cisp_format_info(in->format);
	unsigned max = (1u << f->bits) - 1;

	for (uint32_t y = 0; y < in->height; y++) {
		uint8_t *row = in->plane[0].data + (size_t)y * in->plane[0].stride;

		for (uint32_t x = 0; x < in->width; x++) {
			unsigned v = ((x * 37 + y * 11) % 200) * max / 256 + (unsigned)(test_rand() % (max / 8 + 1));

			if ((x / 7 + y / 5) % 9 == 0)
				v = max; /* clipped */
			if ((x / 5 + y / 3) % 11 == 0)
				v = 0;
			if (v > max)
				v = max;
			if (f->packed) {
				/* Fill the packed bytes directly: any byte pattern is a valid frame. */
				if (x == 0)
					for (uint32_t k = 0; k < in->plane[0].stride; k++)
						row[k] = (uint8_t)test_rand();
			} else if (f->bits == 8) {
				row[x] = (uint8_t)v;
			} else {
				row[2 * x] = (uint8_t)(v & 255);
				row[2 * x + 1] = (uint8_t)(v >> 8);
			}
		}
	}
}

static void full_state(struct cisp_param_state *s, bool sharpen, bool cnr)
{
	cisp_param_state_init(s);
	s->enabled = ~0u;
	s->crop_enabled = 0;
	if (!sharpen)
		s->enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN);
	if (!cnr)
		s->enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_CNR);
	s->blc.black[0] = 4000;
	s->blc.black[3] = 3000;
	s->dpc.threshold = 3000;
	s->dpc.count = 3;
	s->dpc.pixels[0].x = 0;
	s->dpc.pixels[0].y = 0;
	s->dpc.pixels[1].x = 5;
	s->dpc.pixels[1].y = 6;
	s->dpc.pixels[2].x = 9;
	s->dpc.pixels[2].y = 15;
	s->lsc.grid_w = 7;
	s->lsc.grid_h = 5;
	for (int i = 0; i < 4 * 7 * 5; i++)
		s->lsc.gain[i] = (uint16_t)(4096 + (i * 197) % 4000);
	s->wb.gain[0] = 7800;
	s->wb.gain[3] = 6100;
	s->ccm.coeff[0] = 6000;
	s->ccm.coeff[1] = -1500;
	s->ccm.coeff[2] = -404;
	s->ccm.coeff[4] = 5000;
	s->ccm.coeff[3] = -904;
	s->ccm.offset[2] = -300;
	s->lut3d.size = 3;
	for (int i = 0; i < 27; i++)
		for (int k = 0; k < 3; k++)
			s->lut3d.table[i][k] = (uint16_t)((i * 2400 + k * 5000) % 65536);
	s->ltm.grid_w = 5;
	s->ltm.grid_h = 3;
	s->ltm.range = 300;
	for (int i = 0; i < 15; i++) {
		s->ltm.node[i] = (uint16_t)(2400 + (i * 331) % 1600);
		s->ltm.node[15 + i] = (uint16_t)(150 + (i * 277) % 900);
	}
	s->sharpen.strength = 700;
	s->sharpen.coring = 100;
	s->sharpen.limit = 9000;
	s->bnr.strength = 300;
	s->stats.af_count = 1;
	s->stats.af[0].x = 3;
	s->stats.af[0].y = 2;
	s->stats.af[0].width = 20;
	s->stats.af[0].height = 12;
}

static size_t image_bytes(const struct cisp_image *img)
{
	const struct cisp_format_info *f = cisp_format_info(img->format);

	return img->plane[0].stride * img->height * (f->kind == CISP_KIND_YUV ? 3 : 2) / 2;
}

/* How the banded executor runs a configuration. */
enum path {
	BANDED,       /* in bands only: no frame-sized planes */
	BANDED_FRAME, /* in bands, with frame-sized planes (a whole-frame demosaic, outputs that crop or scale) */
	REFERENCE,    /* declined: the reference executor runs it */
};

/* Run @c with @s by the reference, then by the banded executor in every way; compare bytes. */
static void compare_all(const struct cisp_isp_config *c, const struct cisp_param_state *s, enum path path)
{
	static const int bands[] = { 2, 4, 6, 16, 64 };
	struct cisp_isp *isp;
	struct cisp_image in, ref[2], out[2];
	struct cisp_image *refs[2] = { &ref[0], &ref[1] }, *outs[2] = { &out[0], &out[1] };
	struct cisp_stats *st = calloc(2, sizeof(*st));
	struct cisp_isp_exec e = { false, 0, CISP_CPU_SCALAR };
	int levels[2] = { CISP_CPU_SCALAR, (int)cisp_cpu_detect() };
	int n_out = c->output[1].format ? 2 : 1;

	CHECK_EQ(cisp_isp_create(&isp, c), 0);
	CHECK_EQ(cisp_image_alloc(&in, c->input_format, c->width, c->height), 0);
	for (int i = 0; i < n_out; i++) {
		CHECK_EQ(cisp_image_alloc(&ref[i], c->output[i].format, c->output[i].width, c->output[i].height), 0);
		CHECK_EQ(cisp_image_alloc(&out[i], c->output[i].format, c->output[i].width, c->output[i].height), 0);
	}
	fill_input(&in);
	CHECK_EQ(cisp_isp_set_state(isp, s, ~0u), 0);
	CHECK_EQ(cisp_isp_set_exec(isp, &e), 0);
	for (int i = 0; i < n_out; i++)
		memset(ref[i].plane[0].data, 0x5a, image_bytes(&ref[i])); /* row padding compares equal */
	CHECK_EQ(cisp_isp_process(isp, &in, refs, &st[0], NULL), 0);
	for (int t = 1; t <= 3; t++) {
		struct cisp_pool *pool;

		CHECK_EQ(cisp_pool_create(&pool, (unsigned)t), 0);
		for (int l = 0; l < 2; l++) {
			for (unsigned b = 0; b < sizeof(bands) / sizeof(bands[0]); b++) {
				bool same = true;

				e = (struct cisp_isp_exec){ true, bands[b], levels[l] };
				CHECK_EQ(cisp_isp_set_exec(isp, &e), 0);
				for (int i = 0; i < n_out; i++)
					memset(out[i].plane[0].data, 0x5a, image_bytes(&out[i]));
				CHECK_EQ(cisp_isp_process(isp, &in, outs, &st[1], pool), 0);
				for (int i = 0; i < n_out; i++) {
					size_t k = 0, n = image_bytes(&ref[i]);

					while (k < n && ref[i].plane[0].data[k] == out[i].plane[0].data[k])
						k++;
					if (k < n) {
						same = false;
						printf("    output %d differs at byte %zu of %zu\n", i, k, n);
					}
				}
				if (memcmp(&st[0], &st[1], sizeof(st[0]))) {
					same = false;
					printf("    statistics differ\n");
				}
				if (!same)
					test_fail(__FILE__, __LINE__, "%s %ux%u: banded (%d rows, %d threads, %s) differs from the reference",
						  cisp_format_name(c->input_format), c->width, c->height, bands[b], t,
						  cisp_cpu_name((enum cisp_cpu_level)levels[l]));
			}
		}
		cisp_pool_destroy(pool);
	}
	/* It ran the way @path says: frame-sized planes only where needed, band buffers unless declined. */
	free(isp->memory);
	isp->memory = NULL;
	CHECK_EQ(cisp_isp_process(isp, &in, outs, &st[1], NULL), 0);
	CHECK_EQ(isp->memory != NULL, path != BANDED);
	CHECK_EQ(isp->fx != NULL, path != REFERENCE);
	for (int i = 0; i < n_out; i++) {
		cisp_image_free(&ref[i]);
		cisp_image_free(&out[i]);
	}
	cisp_image_free(&in);
	free(st);
	cisp_isp_destroy(isp);
}

TEST(fastpath_full_pipeline_matches_reference)
{
	struct cisp_isp_config c = { CISP_FMT_SRGGB10, 128, 64, { { CISP_FMT_NV12, 128, 64 }, { CISP_FMT_RGB888, 128, 64 } } };
	struct cisp_param_state s;

	full_state(&s, true, true);
	compare_all(&c, &s, BANDED);
}

TEST(fastpath_odd_sizes_and_formats_match_reference)
{
	struct cisp_isp_config a = { CISP_FMT_SGRBG12, 98, 36, { { CISP_FMT_I420, 98, 36 }, { CISP_FMT_RGB48, 98, 36 } } };
	struct cisp_isp_config b = { CISP_FMT_SBGGR10P, 200, 40, { { CISP_FMT_NV12, 200, 40 } } };
	struct cisp_isp_config d = { CISP_FMT_SGBRG8, 34, 16, { { CISP_FMT_NV12, 34, 16 } } };
	struct cisp_isp_config x = { CISP_FMT_SRGGB10, 70, 24, { { CISP_FMT_XBGR32, 70, 24 }, { CISP_FMT_NV12, 70, 24 } } };
	struct cisp_param_state s;

	full_state(&s, true, false);
	compare_all(&a, &s, BANDED);
	full_state(&s, false, true);
	s.enabled &= ~(CISP_BLOCK_BIT(CISP_BLOCK_DPC) | CISP_BLOCK_BIT(CISP_BLOCK_LUT3D));
	compare_all(&b, &s, BANDED);
	full_state(&s, true, true);
	s.stats.af[0].x = 2;
	s.stats.af[0].y = 0;
	s.stats.af[0].width = 30;
	s.stats.af[0].height = 16;
	compare_all(&d, &s, BANDED);
	compare_all(&x, &s, BANDED);
	/* YCbCr only, sharpened, no chroma denoise: the sharpening writes YCbCr itself. */
	full_state(&s, true, false);
	compare_all(&b, &s, BANDED);
}

TEST(fastpath_quality_demosaic_matches_reference)
{
	struct cisp_isp_config c = { CISP_FMT_SGRBG10, 96, 40, { { CISP_FMT_NV12, 96, 40 }, { CISP_FMT_RGB888, 96, 40 } } };
	struct cisp_param_state s;

	if (!(cisp_demosaic_algorithms() & (1u << CISP_DEMOSAIC_QUALITY))) {
		test_skip("the quality demosaic is not part of this build");
		return;
	}
	full_state(&s, true, true);
	s.demosaic.algorithm = CISP_DEMOSAIC_QUALITY;
	compare_all(&c, &s, BANDED_FRAME);
}

TEST(fastpath_quality_bnr_matches_reference)
{
	/* +-7 rows of support: small bands, odd widths, a frame not a whole number of 64-column tiles. */
	struct cisp_isp_config a = { CISP_FMT_SRGGB10, 136, 46, { { CISP_FMT_NV12, 136, 46 }, { CISP_FMT_RGB888, 136, 46 } } };
	struct cisp_isp_config b = { CISP_FMT_SGBRG8, 34, 16, { { CISP_FMT_NV12, 34, 16 } } };
	struct cisp_param_state s;

	full_state(&s, true, true);
	s.bnr.mode = CISP_BNR_QUALITY;
	compare_all(&a, &s, BANDED);
	full_state(&s, false, false);
	s.bnr.mode = CISP_BNR_QUALITY;
	compare_all(&b, &s, BANDED);
}

/* Outputs that crop or scale: banded up to frame-sized planes, then cropped and scaled over the frame. */
TEST(fastpath_crop_and_scale_match_reference)
{
	struct cisp_isp_config a = { CISP_FMT_SRGGB10, 128, 64, { { CISP_FMT_NV12, 64, 32 }, { CISP_FMT_RGB888, 40, 24 } } };
	struct cisp_isp_config b = { CISP_FMT_SGRBG12, 96, 40, { { CISP_FMT_I420, 96, 40 }, { CISP_FMT_XBGR32, 96, 40 } } };
	struct cisp_isp_config q = { CISP_FMT_SGRBG10, 96, 40, { { CISP_FMT_NV12, 96, 40 }, { CISP_FMT_NV12, 48, 20 } } };
	struct cisp_isp_config both = { CISP_FMT_SGRBG10, 96, 40, { { CISP_FMT_NV12, 48, 20 }, { CISP_FMT_RGB888, 48, 20 } } };
	struct cisp_param_state s;

	/* Scaled YUV main output; a cropped RGB preview, scaled from its crop. */
	full_state(&s, true, true);
	s.crop_enabled = 2;
	s.crop[1] = (struct cisp_crop_params){ .output = 1, .x = 10, .y = 6, .width = 80, .height = 48 };
	compare_all(&a, &s, BANDED_FRAME);
	/* Crops of the whole frame pack in the bands; RGB sharpened, no chroma denoise. */
	full_state(&s, true, false);
	s.crop_enabled = 3;
	s.crop[0] = (struct cisp_crop_params){ .output = 0, .x = 0, .y = 0, .width = 96, .height = 40 };
	s.crop[1] = (struct cisp_crop_params){ .output = 1, .x = 0, .y = 0, .width = 96, .height = 40 };
	compare_all(&b, &s, BANDED);
	/* Crops at the outputs' size (no scaling), then the same crops scaled down. */
	s.crop[0] = (struct cisp_crop_params){ .output = 0, .x = 8, .y = 4, .width = 80, .height = 32 };
	s.crop[1] = (struct cisp_crop_params){ .output = 1, .x = 2, .y = 6, .width = 80, .height = 32 };
	b.output[0] = (struct cisp_output_config){ CISP_FMT_I420, 80, 32 };
	b.output[1] = (struct cisp_output_config){ CISP_FMT_XBGR32, 80, 32 };
	compare_all(&b, &s, BANDED_FRAME);
	b.output[0] = (struct cisp_output_config){ CISP_FMT_I420, 48, 20 };
	b.output[1] = (struct cisp_output_config){ CISP_FMT_XBGR32, 48, 20 };
	compare_all(&b, &s, BANDED_FRAME);
	if (!(cisp_demosaic_algorithms() & (1u << CISP_DEMOSAIC_QUALITY))) {
		test_skip("the quality demosaic is not part of this build");
		return;
	}
	/* After a whole-frame demosaic: one kind of output may scale; RGB and YUV both scaling is declined. */
	full_state(&s, true, true);
	s.demosaic.algorithm = CISP_DEMOSAIC_QUALITY;
	compare_all(&q, &s, BANDED_FRAME);
	compare_all(&both, &s, REFERENCE);
}

/* Exposure brackets: each frame unpacked and merged in the bands, the same bytes as whole frames. */
TEST(fastpath_brackets_match_reference)
{
	static const uint32_t exposure[3] = { 2, 37, 9 }; /* not in order: the merge sorts them */
	struct cisp_isp_config c = { CISP_FMT_SGBRG12, 70, 34, { { CISP_FMT_NV12, 70, 34 }, { CISP_FMT_RGB888, 34, 16 } } };
	struct cisp_image in[3], ref[2], out[2];
	const struct cisp_image *ins[3] = { &in[0], &in[1], &in[2] };
	struct cisp_image *refs[2] = { &ref[0], &ref[1] }, *outs[2] = { &out[0], &out[1] };
	struct cisp_stats *st = calloc(2, sizeof(*st));
	struct cisp_param_state s;
	struct cisp_isp *isp;
	struct cisp_pool *pool;

	full_state(&s, true, true);
	CHECK_EQ(cisp_isp_create(&isp, &c), 0);
	CHECK_EQ(cisp_isp_set_state(isp, &s, ~0u), 0);
	CHECK_EQ(cisp_pool_create(&pool, 3), 0);
	for (int k = 0; k < 3; k++) {
		CHECK_EQ(cisp_image_alloc(&in[k], c.input_format, c.width, c.height), 0);
		fill_input(&in[k]);
	}
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(cisp_image_alloc(&ref[i], c.output[i].format, c.output[i].width, c.output[i].height), 0);
		CHECK_EQ(cisp_image_alloc(&out[i], c.output[i].format, c.output[i].width, c.output[i].height), 0);
	}
	for (unsigned count = 2; count <= 3; count++) {
		for (int b = 0; b < 2; b++) {
			struct cisp_isp_exec e = { false, 0, -1 };

			CHECK_EQ(cisp_isp_set_exec(isp, &e), 0);
			for (int i = 0; i < 2; i++)
				memset(ref[i].plane[0].data, 0x5a, image_bytes(&ref[i]));
			CHECK_EQ(cisp_isp_process_bracket(isp, ins, exposure, count, refs, &st[0], NULL), 0);
			e = (struct cisp_isp_exec){ true, b ? 16 : 2, -1 };
			CHECK_EQ(cisp_isp_set_exec(isp, &e), 0);
			for (int i = 0; i < 2; i++)
				memset(out[i].plane[0].data, 0x5a, image_bytes(&out[i]));
			CHECK_EQ(cisp_isp_process_bracket(isp, ins, exposure, count, outs, &st[1], pool), 0);
			for (int i = 0; i < 2; i++)
				if (memcmp(ref[i].plane[0].data, out[i].plane[0].data, image_bytes(&ref[i])))
					test_fail(__FILE__, __LINE__, "bracket of %u, band %d: output %d differs from the reference",
						  count, b ? 16 : 2, i);
			CHECK(!memcmp(&st[0], &st[1], sizeof(st[0])));
		}
	}
	/* The banded executor ran (its buffers exist) and the merge changed the picture. */
	CHECK(isp->fx != NULL);
	CHECK_EQ(cisp_isp_process(isp, ins[0], outs, &st[1], pool), 0);
	CHECK(memcmp(ref[0].plane[0].data, out[0].plane[0].data, image_bytes(&ref[0])) != 0);
	for (int k = 0; k < 3; k++)
		cisp_image_free(&in[k]);
	for (int i = 0; i < 2; i++) {
		cisp_image_free(&ref[i]);
		cisp_image_free(&out[i]);
	}
	cisp_pool_destroy(pool);
	free(st);
	cisp_isp_destroy(isp);
}

TEST(fastpath_defaults_match_reference)
{
	struct cisp_isp_config c = { CISP_FMT_SRGGB12, 66, 18, { { CISP_FMT_NV12, 66, 18 } } };
	struct cisp_param_state s;

	cisp_param_state_init(&s);
	compare_all(&c, &s, BANDED);
}

TEST(fastpath_rejects_bad_exec)
{
	struct cisp_isp_config c = { CISP_FMT_SRGGB10, 64, 32, { { CISP_FMT_NV12, 64, 32 } } };
	struct cisp_isp *isp;
	struct cisp_isp_exec e = { true, 3, -1 };

	CHECK_EQ(cisp_isp_create(&isp, &c), 0);
	CHECK_ERR(cisp_isp_set_exec(isp, &e), -EINVAL, "must be even");
	e.band_rows = 8;
	e.cpu = CISP_CPU_LEVELS;
	CHECK_EQ(cisp_isp_set_exec(isp, &e), -ENOTSUP);
	cisp_isp_destroy(isp);
}

/* ---- the stage descriptors (src/isp/stage.h) ---- */

/* What the executors rely on in each descriptor, for the passes of @isp's state. */
static void check_descriptors(struct cisp_isp *isp)
{
	for (unsigned i = 0; i < CISP_STAGE_COUNT; i++) {
		const struct cisp_stage *s = cisp_stages[i];
		struct stage_ctx ctx = cisp_isp_stage_ctx(isp, i, isp->dsp);
		struct stage_pass pass[STAGE_MAX_PASSES];
		int n = s->passes ? s->passes(&ctx, pass) : 0;

		CHECK(n >= 0 && n <= STAGE_MAX_PASSES);
		for (int k = 0; k < n; k++) {
			bool reads_input = false;

			CHECK(pass[k].planes == 1 || pass[k].planes == 3);
			CHECK(pass[k].n_in >= 1 && pass[k].n_in <= 2 && pass[k].rows);
			for (int q = 0; q < pass[k].n_in; q++) {
				/* Its stage's input or an earlier pass, with rows of support. */
				CHECK(pass[k].in[q].from >= STAGE_INPUT && pass[k].in[q].from < k);
				CHECK(pass[k].in[q].radius >= 0 && pass[k].in[q].radius <= 16);
				reads_input |= pass[k].in[q].from == STAGE_INPUT && pass[k].in[q].radius == 0;
			}
			/* A pass that writes over its input reads it, row for row. */
			CHECK(!pass[k].in_place || reads_input);
		}
		if (n > 0)
			CHECK_EQ(pass[n - 1].planes, s->planes_out);
		CHECK(!(s->point && n)); /* one banded form */
	}
}

TEST(fastpath_stage_descriptors_are_well_formed)
{
	struct cisp_isp_config c = { CISP_FMT_SRGGB10, 64, 32, { { CISP_FMT_NV12, 64, 32 } } };
	struct cisp_isp *isp;
	struct cisp_param_state s;
	unsigned sources = 0, merges = 0, first_yuv = CISP_STAGE_COUNT, last_exposure = 0, merge_at = 0;

	for (unsigned i = 0; i < CISP_STAGE_COUNT; i++) {
		const struct cisp_stage *st = cisp_stages[i];

		CHECK(st->name && *st->name);
		for (unsigned k = 0; k < i; k++) {
			if (!strcmp(st->name, cisp_stages[k]->name))
				test_fail(__FILE__, __LINE__, "two stages are named %s", st->name);
			if (st->block && st->block == cisp_stages[k]->block)
				test_fail(__FILE__, __LINE__, "%s and %s share block %u", st->name, cisp_stages[k]->name,
					  st->block);
		}
		/* A reference: rows, whole-frame work, a tap, or the merge's rows. */
		CHECK(st->rows || st->frame || st->tap || st->merge);
		CHECK(st->planes_out == 1 || st->planes_out == 3);
		CHECK(st->planes_in == (st->source ? 0 : st->planes_out) || (st->planes_in == 1 && st->planes_out == 3));
		CHECK(!st->tap || (!st->rows && !st->point && !st->passes && st->tap->radius >= 0));
		CHECK(!st->source || (st->rows && i == 0));
		sources += st->source != NULL;
		merges += st->merge != NULL;
		merge_at = st->merge ? i : merge_at;
		if (st->flags & STAGE_EXPOSURE) {
			/* The banded executor runs exposure stages only as points of the input's node. */
			CHECK(st->source || st->point);
			last_exposure = i;
		}
		if (st->flags & STAGE_YUV)
			first_yuv = i < first_yuv ? i : first_yuv;
		else
			CHECK(i < first_yuv); /* the YUV stages come last: one place where the outputs part */
	}
	CHECK_EQ(sources, 1);
	CHECK_EQ(merges, 1);
	CHECK(last_exposure < merge_at);

	/* The passes of each state that changes them: every block on, each Bayer denoise and demosaic. */
	CHECK_EQ(cisp_isp_create(&isp, &c), 0);
	for (int q = 0; q < 4; q++) {
		full_state(&s, true, true);
		s.bnr.mode = q & 1 ? CISP_BNR_QUALITY : CISP_BNR_FAST;
		s.demosaic.algorithm = q & 2 && (cisp_demosaic_algorithms() & (1u << CISP_DEMOSAIC_QUALITY))
					       ? CISP_DEMOSAIC_QUALITY
					       : CISP_DEMOSAIC_FAST;
		s.cnr.radius = (uint8_t)(1 + q);
		CHECK_EQ(cisp_isp_set_state(isp, &s, ~0u), 0);
		check_descriptors(isp);
	}
	cisp_isp_destroy(isp);
}

/* Frame-sized planes of @w x @h: @n planes of random samples. */
static uint16_t *random_planes(struct rgb16 *p, int n, int w, int h)
{
	uint16_t *mem = malloc((size_t)w * h * n * sizeof(uint16_t));

	for (int c = 0; c < 3; c++)
		p->c[c] = (struct plane16){ mem + (size_t)w * h * (c < n ? c : 0), w, 0, w, h };
	for (size_t k = 0; k < (size_t)w * h * n; k++)
		mem[k] = (uint16_t)(test_rand() >> (k % 7 == 0 ? 0 : 3)); /* mostly mid-range, some extremes */
	return mem;
}

static bool same_planes(const struct rgb16 *a, const struct rgb16 *b, int n)
{
	for (int c = 0; c < n; c++)
		for (int y = 0; y < a->c[c].height; y++)
			if (memcmp(plane_row(&a->c[c], y), plane_row(&b->c[c], y), (size_t)a->c[c].width * 2))
				return false;
	return true;
}

/*
 * Each stage alone, by its banded form between frame-sized planes (the
 * stage benchmark's way, cisp_banded_stage()) against its reference on the
 * same input: the same output bytes and statistics for every band size,
 * thread count and CPU level.
 */
static void compare_each_stage(const struct cisp_isp_config *c, const struct cisp_param_state *s)
{
	const int w = (int)c->width, h = (int)c->height;
	static const int bands[] = { 2, 6, 16 };
	int levels[2] = { CISP_CPU_SCALAR, (int)cisp_cpu_detect() };
	struct cisp_stats *st = calloc(2, sizeof(*st));
	struct cisp_image image;
	struct cisp_isp *isp;
	struct rgb16 bayer, rgb, ref, out;
	uint16_t *m[4] = { random_planes(&bayer, 1, w, h), random_planes(&rgb, 3, w, h), random_planes(&ref, 3, w, h),
			   random_planes(&out, 3, w, h) };
	int tested = 0;

	CHECK_EQ(cisp_isp_create(&isp, c), 0);
	CHECK_EQ(cisp_isp_set_state(isp, s, ~0u), 0);
	CHECK_EQ(cisp_image_alloc(&image, c->input_format, c->width, c->height), 0);
	fill_input(&image);
	for (int t = 1; t <= 3; t += 2) {
		struct cisp_pool *pool;

		CHECK_EQ(cisp_pool_create(&pool, (unsigned)t), 0);
		for (unsigned i = 0; i < CISP_STAGE_COUNT; i++) {
			const struct cisp_stage *stage = cisp_stages[i];
			struct stage_ctx ctx = cisp_isp_stage_ctx(isp, i, NULL);
			const struct stage_io io = { &image, stage->planes_in == 3 ? rgb : bayer, ref, NULL };
			const struct stage_io bio = { &image, io.in, out, NULL };

			if (stage->merge || !stage_active(stage, &ctx))
				continue;
			CHECK_EQ(cisp_reference_stage(isp, i, NULL, &io, &st[0], pool), 0);
			for (int l = 0; l < 2; l++) {
				for (unsigned b = 0; b < sizeof(bands) / sizeof(bands[0]); b++) {
					struct cisp_isp_exec e = { true, bands[b], levels[l] };
					int ret;

					CHECK_EQ(cisp_isp_set_exec(isp, &e), 0);
					memset(&st[1], 0x5a, sizeof(st[1]));
					if ((ret = cisp_banded_stage(isp, i, &bio, &st[1], pool)) == 1)
						continue; /* no banded form: the executors run its reference */
					CHECK_EQ(ret, 0);
					tested++;
					if (stage->tap ? memcmp(&st[0], &st[1], sizeof(st[0])) != 0
						       : !same_planes(&ref, &out, stage->planes_out))
						test_fail(__FILE__, __LINE__,
							  "stage %s alone: banded (%d rows, %d threads, %s) differs", stage->name,
							  bands[b], t, cisp_cpu_name((enum cisp_cpu_level)levels[l]));
				}
			}
		}
		cisp_pool_destroy(pool);
	}
	CHECK(tested > 0);
	cisp_image_free(&image);
	cisp_isp_destroy(isp);
	for (int k = 0; k < 4; k++)
		free(m[k]);
	free(st);
}

TEST(fastpath_each_stage_matches_its_reference)
{
	struct cisp_isp_config c = { CISP_FMT_SGRBG10, 70, 34, { { CISP_FMT_NV12, 70, 34 } } };
	struct cisp_param_state s;

	full_state(&s, true, true);
	compare_each_stage(&c, &s);
	/* The other Bayer denoise, a wider chroma denoise, another CFA order, the widest highlights mode. */
	s.bnr.mode = CISP_BNR_QUALITY;
	s.highlights.mode = CISP_HIGHLIGHTS_RECONSTRUCT;
	s.cnr.radius = 4;
	c.input_format = CISP_FMT_SBGGR12;
	compare_each_stage(&c, &s);
}
