/* SPDX-License-Identifier: MIT */
/*
 * The device on the software ISP: params deltas in the real ABI applied in
 * submission order (checked byte for byte against a serial ISP), hostile
 * params, multi-buffer jobs (burst selection by AF sharpness, exposure
 * bracket merge) and the merge stage's arithmetic.
 */
#include <errno.h>
#include <stdlib.h>

#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/params_state.h>

#include "isp/merge.h"

#include "test.h"

#define W 64
#define H 48

static const struct cisp_isp_config isp_config = {
	.input_format = CISP_FMT_SRGGB16, .width = W, .height = H, .output = { { CISP_FMT_RGB888, W, H } },
};

static void fill(struct cisp_image *img, uint16_t (*fn)(int x, int y, int arg), int arg)
{
	for (int y = 0; y < H; y++) {
		uint8_t *row = img->plane[0].data + (size_t)y * img->plane[0].stride;

		for (int x = 0; x < W; x++) {
			uint16_t v = fn(x, y, arg);

			row[2 * x] = (uint8_t)v;
			row[2 * x + 1] = (uint8_t)(v >> 8);
		}
	}
}

static struct cisp_image raw_new(uint16_t (*fn)(int x, int y, int arg), int arg)
{
	struct cisp_image img;

	if (cisp_image_alloc(&img, CISP_FMT_SRGGB16, W, H))
		abort();
	fill(&img, fn, arg);
	return img;
}

static struct cisp_image rgb_new(void)
{
	struct cisp_image img;

	if (cisp_image_alloc(&img, CISP_FMT_RGB888, W, H))
		abort();
	return img;
}

static struct cisp_context *isp_context(struct cisp_device *dev, const char *name)
{
	struct cisp_context_config c = { .name = name, .isp = isp_config, .queue_limit = 16 };
	struct cisp_context *ctx = NULL;

	if (cisp_context_create(&ctx, dev, &c)) {
		printf("    %s\n", cisp_last_error());
		abort();
	}
	return ctx;
}

/* A textured scene that changes with @arg, so outputs tell frames apart. */
static uint16_t texture(int x, int y, int arg)
{
	return (uint16_t)(((x * 1237 + y * 4327 + arg * 911) % 50000) + 4000);
}

static uint16_t flat(int x, int y, int arg)
{
	(void)x;
	(void)y;
	return (uint16_t)arg;
}

/* Cells (2x2 pixels) alternating between 20000 - arg and 20000 + arg. */
static uint16_t cell_checker(int x, int y, int arg)
{
	return (uint16_t)(((x / 2 + y / 2) & 1) ? 20000 + arg : 20000 - arg);
}

/* ---- the merge stage ---------------------------------------------------- */

TEST(merge_prepare_and_order)
{
	struct cisp_merge_coeffs c;
	unsigned order[5];
	static const uint32_t e[5] = { 100, 400, 100, 25, 400 };

	cisp_merge_prepare(&c, 4, 1);
	CHECK_EQ(c.scale, 4096);
	cisp_merge_prepare(&c, 256, 1);
	CHECK_EQ(c.scale, 64);
	cisp_merge_prepare(&c, 3, 2); /* 2/3 * 16384 = 10922.67 */
	CHECK_EQ(c.scale, 10923);
	cisp_merge_prepare(&c, 7, 7);
	CHECK_EQ(c.scale, 16384);
	cisp_merge_order(e, 5, order);
	CHECK_EQ(order[0], 1); /* 400, first of the two */
	CHECK_EQ(order[1], 4);
	CHECK_EQ(order[2], 0);
	CHECK_EQ(order[3], 2);
	CHECK_EQ(order[4], 3);
}

/* The documented arithmetic, recomputed here, on every acc value around the knee. */
TEST(merge_rows_known_answers)
{
	static uint16_t acc[16], frame[16], out[16];
	struct plane16 pa = { acc, 16, 0, 16, 1 }, pf = { frame, 16, 0, 16, 1 }, po = { out, 16, 0, 16, 1 };
	struct cisp_merge_coeffs c;
	/* literal answers: ratio 4, acc values and the shorter frame's sample */
	static const uint16_t a[6] = { 1000, 57344, 59392, 61440, 65535, 3 };
	static const uint16_t s[6] = { 250, 14000, 15000, 20000, 20000, 9 };
	static const uint16_t want[6] = { 250, 14336, 14924, 20000, 20000, 1 };

	cisp_merge_prepare(&c, 4, 1);
	for (int i = 0; i < 6; i++) {
		acc[i] = a[i];
		frame[i] = s[i];
	}
	cisp_merge_rows(&c, &pa, &pf, &po, 0, 1);
	for (int i = 0; i < 6; i++)
		CHECK_EQ(out[i], want[i]);

	/* Every acc value, ratio 3: 2, against the formula. */
	cisp_merge_prepare(&c, 3, 2);
	for (uint32_t v = 0; v < 65536; v += 16) {
		int bad = 0;

		for (int i = 0; i < 16; i++) {
			acc[i] = (uint16_t)(v + (uint32_t)i);
			frame[i] = (uint16_t)((v + (uint32_t)i) * 2 / 3 + (uint32_t)i);
		}
		cisp_merge_rows(&c, &pa, &pf, &pa, 0, 1); /* in place */
		for (int i = 0; i < 16; i++) {
			int64_t av = v + (uint32_t)i, sv = frame[i];
			int64_t scaled = (av * 10923 + 8192) >> 14;
			int64_t t = av - 57344 < 0 ? 0 : av - 57344 > 4096 ? 4096 : av - 57344;

			bad += acc[i] != ((scaled * (4096 - t) + sv * t + 2048) >> 12);
		}
		CHECK_EQ(bad, 0);
	}
}

/* ---- multi-buffer jobs -------------------------------------------------- */

/* Up to 17999: the long frame (4x) crosses the knee and clips in the brightest parts. */
static uint16_t short_exposure(int x, int y, int arg)
{
	return (uint16_t)(texture(x, y, arg) / 3);
}

/* Exactly 4x the short frame, clipped at full scale: a consistent bracket. */
static uint16_t long_exposure(int x, int y, int arg)
{
	uint32_t v = 4u * short_exposure(x, y, arg);

	return (uint16_t)(v > 65535 ? 65535 : v);
}

/* A bracket whose long frame is exactly 4x the short one (clipped) merges into the short frame. */
TEST(device_isp_bracket_consistent)
{
	struct cisp_device *dev = NULL;
	struct cisp_context *ctx;
	struct cisp_image lng = raw_new(long_exposure, 1), shrt = raw_new(short_exposure, 1);
	struct cisp_image out = rgb_new(), ref = rgb_new();
	struct cisp_image *outs[CISP_MAX_OUTPUTS] = { &ref };
	struct cisp_isp *isp = NULL;
	struct cisp_fence *f;
	struct cisp_stats *st = calloc(2, sizeof(*st));
	struct cisp_job j = { .mode = CISP_JOB_MERGE_HDR, .num_inputs = 2 };

	CHECK_EQ(cisp_device_create(&dev, NULL), 0);
	ctx = isp_context(dev, "hdr");
	CHECK_EQ(cisp_isp_create(&isp, &isp_config), 0);
	CHECK_EQ(cisp_isp_process(isp, &shrt, outs, &st[1], NULL), 0);
	/* The short frame second, then first: the order of inputs does not matter. */
	for (int order = 0; order < 2; order++) {
		j.input[order] = &lng;
		j.exposure[order] = 400;
		j.input[!order] = &shrt;
		j.exposure[!order] = 100;
		j.output[0] = &out;
		j.stats = &st[0];
		memset(out.plane[0].data, 0, (size_t)W * H * 3);
		CHECK_EQ(cisp_job_submit(ctx, &j, &f), 0);
		CHECK_EQ(cisp_fence_wait(f, -1), 0);
		CHECK(test_same_pixels(&out, &ref));
		CHECK(!memcmp(st[0].zone, st[1].zone, sizeof(st[0].zone)));
		cisp_fence_unref(f);
	}
	cisp_isp_destroy(isp);
	cisp_device_destroy(dev);
	cisp_image_free(&lng);
	cisp_image_free(&shrt);
	cisp_image_free(&out);
	cisp_image_free(&ref);
	free(st);
}

/* Uniform frames: the merged zone means are known. */
TEST(device_isp_bracket_known_answer)
{
	struct cisp_isp *isp = NULL;
	struct cisp_image out = rgb_new();
	struct cisp_image *outs[CISP_MAX_OUTPUTS] = { &out };
	struct cisp_stats *st = calloc(1, sizeof(*st));
	/* long 25600 (below the knee) and short 6300 (agreeing): the long frame scaled by 1/4, 6400 */
	struct cisp_image a = raw_new(flat, 25600), b = raw_new(flat, 6300);
	/* long saturated and short 19200: the short frame */
	struct cisp_image c = raw_new(flat, 65535), d = raw_new(flat, 19200);
	const struct cisp_image *in1[2] = { &a, &b }, *in2[2] = { &c, &d };
	static const uint32_t e[2] = { 4, 1 };

	CHECK_EQ(cisp_isp_create(&isp, &isp_config), 0);
	CHECK_EQ(cisp_isp_process_bracket(isp, in1, e, 2, outs, st, NULL), 0);
	CHECK_EQ(st->zone[0].g, 6400);
	CHECK_EQ(st->zone[0].r, 6400);
	CHECK_EQ(st->zone[0].count, st->zone[0].total);
	CHECK_EQ(cisp_isp_process_bracket(isp, in2, e, 2, outs, st, NULL), 0);
	CHECK_EQ(st->zone[5].g, 19200);
	CHECK_EQ(st->zone[5].b, 19200);
	/* The argument checks. */
	CHECK_ERR(cisp_isp_process_bracket(isp, in1, e, 0, outs, st, NULL), -EINVAL, "a bracket has 1..8 frames, not 0");
	{
		static const uint32_t zero[2] = { 4, 0 }, wide[2] = { 1000, 3 };
		CHECK_ERR(cisp_isp_process_bracket(isp, in1, zero, 2, outs, st, NULL), -EINVAL, "bracket exposure 1 is 0");
		CHECK_ERR(cisp_isp_process_bracket(isp, in1, wide, 2, outs, st, NULL), -EINVAL,
			  "bracket exposures 3..1000 span more than the ratio 256");
		in1[1] = &out;
		CHECK_ERR(cisp_isp_process_bracket(isp, in1, e, 2, outs, st, NULL), -EINVAL, "input 1 is 64x48 RGB");
	}
	cisp_isp_destroy(isp);
	cisp_image_free(&a);
	cisp_image_free(&b);
	cisp_image_free(&c);
	cisp_image_free(&d);
	cisp_image_free(&out);
	free(st);
}

/* A burst: the ISP scores each frame with its AF statistics and processes the sharpest. */
TEST(device_isp_select_sharpest)
{
	struct cisp_device *dev = NULL;
	struct cisp_context *ctx;
	struct cisp_image flat_frame = raw_new(flat, 20000), sharp = raw_new(cell_checker, 10000),
			  soft = raw_new(cell_checker, 5000);
	struct cisp_image out = rgb_new(), ref = rgb_new();
	struct cisp_image *outs[CISP_MAX_OUTPUTS] = { &ref };
	struct cisp_isp *isp = NULL;
	struct cisp_job_result r;
	struct cisp_fence *f;
	struct cisp_job j = { .mode = CISP_JOB_SELECT_SHARPEST, .num_inputs = 3, .result = &r };

	CHECK_EQ(cisp_device_create(&dev, NULL), 0);
	ctx = isp_context(dev, "zsl");
	j.input[0] = &flat_frame;
	j.input[1] = &soft;
	j.input[2] = &sharp;
	j.output[0] = &out;
	CHECK_EQ(cisp_job_submit(ctx, &j, &f), 0);
	CHECK_EQ(cisp_fence_wait(f, -1), 0);
	CHECK_EQ(r.selected, 2);
	/*
	 * No AF window configured: one over the central half, pixels 16..47 x 12..35, so
	 * 16 x 12 cells. A cell checker of greens g1, g2 scores 4 |g1 - g2| per cell.
	 */
	CHECK_EQ(r.sharpness[0], 0);
	CHECK_EQ(r.sharpness[1], 192ull * 4 * 10000);
	CHECK_EQ(r.sharpness[2], 192ull * 4 * 20000);
	CHECK_EQ(cisp_isp_create(&isp, &isp_config), 0);
	CHECK_EQ(cisp_isp_process(isp, &sharp, outs, NULL, NULL), 0);
	CHECK(test_same_pixels(&out, &ref));
	cisp_fence_unref(f);

	/* The statistics pass checks a caller's configuration like a params buffer would. */
	{
		struct cisp_stats_params bad = cisp_isp_params(isp)->stats;
		struct cisp_stats *st = malloc(sizeof(*st));

		bad.af_count = 1;
		bad.af[0] = (struct cisp_stats_window){ 60, 0, 8, 8 };
		CHECK_ERR(cisp_isp_statistics(isp, &sharp, &bad, st, NULL), -EINVAL, "stats");
		bad.af[0].x = 0;
		CHECK_EQ(cisp_isp_statistics(isp, &sharp, &bad, st, NULL), 0);
		CHECK_EQ(st->af[0].count, 16);
		CHECK_EQ(st->af[0].sharpness, 16ull * 4 * 20000);
		free(st);
	}
	/* Too few inputs for a burst. */
	j.num_inputs = 1;
	j.input[1] = j.input[2] = NULL;
	CHECK_ERR(cisp_job_submit(ctx, &j, &f), -EINVAL, "a select-sharpest job takes 2..8 inputs, not 1");
	cisp_isp_destroy(isp);
	cisp_device_destroy(dev);
	cisp_image_free(&flat_frame);
	cisp_image_free(&sharp);
	cisp_image_free(&soft);
	cisp_image_free(&out);
	cisp_image_free(&ref);
}

/* ---- params in order, against a serial ISP ------------------------------ */

#define JOBS 10

TEST(device_isp_params_in_order)
{
	struct cisp_device_config dc = { .workers = 2 };
	struct cisp_device *dev = NULL;
	struct cisp_context *ctx;
	struct cisp_isp *isp = NULL;
	struct cisp_image in[JOBS], out[JOBS], ref = rgb_new();
	struct cisp_image *outs[CISP_MAX_OUTPUTS] = { &ref };
	struct cisp_fence *f[JOBS], *gate = NULL;
	uint8_t *params[JOBS] = { 0 };
	size_t size[JOBS] = { 0 };
	struct cisp_param_state st;

	CHECK_EQ(cisp_device_create(&dev, &dc), 0);
	ctx = isp_context(dev, "cam");
	CHECK_EQ(cisp_isp_create(&isp, &isp_config), 0);
	CHECK_EQ(cisp_fence_create(&gate), 0);
	cisp_param_state_init(&st);
	for (int i = 0; i < JOBS; i++) {
		struct cisp_job j = { .num_inputs = 1 };

		in[i] = raw_new(texture, i);
		out[i] = rgb_new();
		if (i % 3 != 1) { /* a WB delta on most jobs */
			st.wb.gain[0] = (uint16_t)(4096 + 900 * i);
			st.wb.gain[3] = (uint16_t)(8192 - 300 * i);
			params[i] = malloc(4096);
			CHECK_EQ(cisp_params_encode(&st, CISP_BLOCK_BIT(CISP_BLOCK_WB), params[i], 4096, &size[i]), 0);
		}
		j.input[0] = &in[i];
		j.output[0] = &out[i];
		j.params = params[i];
		j.params_size = size[i];
		if (i == 0) { /* hold the queue until every job is in */
			j.in_fence[0] = gate;
			j.num_in_fences = 1;
		}
		CHECK_EQ(cisp_job_submit(ctx, &j, &f[i]), 0);
	}
	CHECK_EQ(cisp_job_cancel(ctx, f[6]), 0);
	cisp_fence_signal(gate, 0);
	for (int i = 0; i < JOBS; i++) {
		CHECK_EQ(cisp_fence_wait(f[i], -1), i == 6 ? -ECANCELED : 0);
		/* The serial reference applies every delta, the cancelled job's too. */
		if (params[i])
			CHECK_EQ(cisp_isp_set_params(isp, params[i], size[i]), 0);
		if (i == 6)
			continue;
		CHECK_EQ(cisp_isp_process(isp, &in[i], outs, NULL, NULL), 0);
		CHECK(test_same_pixels(&out[i], &ref));
	}
	for (int i = 0; i < JOBS; i++) {
		cisp_fence_unref(f[i]);
		cisp_image_free(&in[i]);
		cisp_image_free(&out[i]);
		free(params[i]);
	}
	cisp_fence_unref(gate);
	cisp_isp_destroy(isp);
	cisp_device_destroy(dev);
	cisp_image_free(&ref);
}

/* Bad params are refused at submission with the ABI's message; nothing is queued. */
TEST(device_isp_hostile_params)
{
	struct cisp_device *dev = NULL;
	struct cisp_context *ctx;
	struct cisp_image in = raw_new(texture, 0), out = rgb_new();
	struct cisp_param_state st;
	struct cisp_context_counters k;
	struct cisp_job j = { .num_inputs = 1 };
	uint8_t buf[4096];
	size_t size;

	CHECK_EQ(cisp_device_create(&dev, NULL), 0);
	ctx = isp_context(dev, "cam");
	cisp_param_state_init(&st);
	CHECK_EQ(cisp_params_encode(&st, CISP_BLOCK_BIT(CISP_BLOCK_WB), buf, sizeof(buf), &size), 0);
	j.input[0] = &in;
	j.output[0] = &out;
	j.params = buf;
	j.params_size = size;
	buf[0] ^= 0xff;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EPROTO, "job params: ");
	buf[0] ^= 0xff;
	j.params_size = size - 8; /* truncated */
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EMSGSIZE, "job params: ");
	/* A crop outside the 64x48 frame: the instance's limits are checked at submission. */
	st.crop[0] = (struct cisp_crop_params){ .x = 32, .y = 0, .width = 64, .height = 48 };
	st.crop_enabled = 1;
	CHECK_EQ(cisp_params_encode(&st, CISP_BLOCK_BIT(CISP_BLOCK_CROP), buf, sizeof(buf), &size), 0);
	j.params_size = size;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "job params: params block 0 (crop) at offset 16: 64x48 at (32, 0) runs outside the 64x48 frame");
	cisp_context_counters(ctx, &k);
	CHECK_EQ(k.submitted, 0);
	cisp_device_destroy(dev);
	cisp_image_free(&in);
	cisp_image_free(&out);
}
