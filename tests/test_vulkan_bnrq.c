/* SPDX-License-Identifier: MIT */
/*
 * The quality Bayer denoise on the Vulkan device (src/device/vulkan_bnrq.h,
 * docs/gpu.md): the patch filter's shaders against cisp_bnr_patch_tile(),
 * the transform's against cisp_bnr_transform_tile(), the stage against
 * cisp_bnr_quality_rows(), on random Bayer frames of every CFA order from the
 * smallest the stage reads (8x8) to 258x34; then whole frames with it
 * through a device with CISP_ISP=vulkan against cisp_isp_process(), byte for
 * byte, statistics included. Without a device the tests say so and skip,
 * unless CISP_REQUIRE_VULKAN=1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>

#include "device/vulkan_backend.h"
#include "test.h"

#ifdef CISP_VULKAN_BUILT
#include "device/vulkan_frame.h"
#include "isp/bnr.h"
#include "isp/bnr_quality.h"

static struct vk_gpu *open_gpu(void)
{
	return test_vulkan_gpu("the quality Bayer denoise's shaders are");
}

/*
 * w x h 16-bit samples (a frame whose unpack is the identity): noise of
 * amplitude @noise around a ramp, with samples at 0 and 65535 among them.
 */
static void noisy_frame(struct cisp_image *img, unsigned noise)
{
	for (uint32_t y = 0; y < img->height; y++) {
		uint16_t *row = (uint16_t *)(img->plane[0].data + y * img->plane[0].stride);

		for (uint32_t x = 0; x < img->width; x++) {
			int64_t v = 300 * (int64_t)(x + 2 * y) + (int64_t)(test_rand() % (2 * noise + 1)) - noise;

			row[x] = (uint16_t)(x % 11 == 3 ? 0 : x % 11 == 7 ? 65535 : v < 0 ? 0 : v > 65535 ? 65535 : v);
		}
	}
}

typedef void tile_fn(const struct cisp_bnr_quality *q, const struct plane16 *in, int x0, int y0, int tw, int th,
		     uint16_t *dst, int stride);

/* @tile over the whole frame @in into @out (w x h, rows packed), as cisp_bnr_quality_rows() cuts it. */
static void reference_tiles(tile_fn *tile, const struct cisp_bnr_quality *q, const struct plane16 *in, uint16_t *out)
{
	for (int ty = 0; ty < in->height; ty += CISP_BNR_TILE_H)
		for (int tx = 0; tx < in->width; tx += CISP_BNR_TILE_W) {
			const int th = in->height - ty < CISP_BNR_TILE_H ? in->height - ty : CISP_BNR_TILE_H;
			const int tw = in->width - tx < CISP_BNR_TILE_W ? in->width - tx : CISP_BNR_TILE_W;

			tile(q, in, tx, ty, tw, th, out + (size_t)ty * in->width + tx, in->width);
		}
}

/* The first sample of @got that is not @want's: 0, or its index + 1, said on stderr. */
static size_t differs(const uint16_t *got, const uint16_t *want, uint32_t w, uint32_t h, const char *what)
{
	for (size_t i = 0; i < (size_t)w * h; i++)
		if (got[i] != want[i]) {
			fprintf(stderr, "  %ux%u %s: (%zu, %zu) is %u, the reference's %u\n", w, h, what, i % w, i / w,
				got[i], want[i]);
			return i + 1;
		}
	return 0;
}

/*
 * Each filter alone and the stage, on the GPU and in C: sizes from 8x8 (the
 * transform's blocks reach 7 rows and columns past a cell, reflected once)
 * to 258x34, 4, 65 and 129 pairs a row (both sides of the 64-invocation
 * workgroup); every CFA
 * order; strengths 1 (the weakest), 1024 (the strongest) and between;
 * profiles with no noise (Q and the thresholds 0: the centre alone, the
 * transform's mean alone), the default's gains, and all ones (64-bit
 * products that wrap, as in C).
 */
TEST(vulkan_bnrq_bitexact)
{
	static const struct {
		uint32_t w, h;
	} sizes[] = { { 8, 8 }, { 130, 18 }, { 258, 34 } };
	static const uint16_t strengths[] = { 1, 1024, 224, 600 };
	struct vk_gpu *g = open_gpu();

	for (unsigned s = 0; g && s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		const uint32_t w = sizes[s].w, h = sizes[s].h;
		struct vk_frame *f = NULL;
		struct cisp_image img;
		uint16_t *want = malloc((size_t)w * h * 2);

		CHECK_EQ(cisp_image_alloc(&img, CISP_FMT_SRGGB16, w, h), 0);
		CHECK_EQ(vk_frame_create(g, img.format, w, h, &f), 0);
		for (int trial = 0; f && trial < 4; trial++) {
			const enum cisp_cfa cfa = (enum cisp_cfa)((s + (unsigned)trial) % 4);
			const struct plane16 in = { (uint16_t *)img.plane[0].data, img.plane[0].stride / 2, 0, (int)w, (int)h,
						    0 };
			const struct plane16 out = { want, w, 0, (int)w, (int)h, 0 };
			struct cisp_bnr_params p = { .strength = strengths[(s + (unsigned)trial) % 4], .mode = CISP_BNR_QUALITY };
			struct cisp_noise_params noise;
			struct cisp_bnr_coeffs *c = NULL;
			const struct cisp_bnr_quality *q;

			for (int ch = 0; ch < 4; ch++) {
				noise.a[ch] = trial == 0 ? 0 : trial == 3 ? 0xffffffffu : (8u << 16) * (1u << 2 * trial) + 977u * ch;
				noise.b[ch] = trial == 0 ? 0 : trial == 3 ? 0xffffffffu : 256u << 2 * trial;
			}
			noisy_frame(&img, trial == 0 ? 0 : 64u << 2 * trial);
			CHECK_EQ(cisp_bnr_prepare(&c, &p, &noise, cfa), 0);
			q = c ? cisp_bnr_quality_params(c) : NULL;
			CHECK(q != NULL);
			for (int filters = VK_BNRQ_PATCH; q && filters <= VK_BNRQ_BOTH; filters++) {
				struct vk_step steps[2];
				const uint16_t *got;
				char what[64];

				if (filters == VK_BNRQ_PATCH)
					reference_tiles(cisp_bnr_patch_tile, q, &in, want);
				else if (filters == VK_BNRQ_TRANSFORM)
					reference_tiles(cisp_bnr_transform_tile, q, &in, want);
				else
					cisp_bnr_quality_rows(q, &in, &out, 0, (int)h);
				vk_step_unpack(f, &steps[0]);
				CHECK_EQ(vk_step_bnrq(f, q, (enum vk_bnrq_filters)filters, &steps[1]), 0);
				CHECK_EQ(vk_frame_run(f, &img, steps, 2, &got), 0);
				snprintf(what, sizeof(what), "filters %d, CFA %d, strength %u, trial %d", filters, cfa,
					 p.strength, trial);
				CHECK(!differs(got, want, w, h, what));
			}
			cisp_bnr_free(c);
		}
		vk_frame_destroy(f);
		cisp_image_free(&img);
		free(want);
	}
	vk_gpu_close(g);
}

/* Without 64-bit integers in shaders the stage stays on the CPU, and every stage after it. */
TEST(vulkan_bnrq_plan)
{
	struct cisp_param_state s;
	struct vulkan_plan p;

	cisp_param_state_init(&s);
	s.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_BNR) | CISP_BLOCK_BIT(CISP_BLOCK_LSC) | CISP_BLOCK_BIT(CISP_BLOCK_STATS);
	s.bnr.mode = CISP_BNR_QUALITY;
	p = vulkan_plan_on(&s, true, true);
	CHECK(p.bnr && p.lsc && p.stats && p.wb && p.rgb);
	p = vulkan_plan_on(&s, true, false);
	CHECK(!p.bnr && !p.lsc && !p.stats && !p.wb && !p.rgb);
	s.bnr.mode = CISP_BNR_FAST;
	p = vulkan_plan_on(&s, true, false);
	CHECK(p.bnr && p.lsc && p.stats && p.wb && p.rgb);
}

/* The same frame through the software ISP. */
static void reference_frame(const struct cisp_isp_config *cfg, const struct cisp_param_state *state,
			    const struct cisp_image *in, struct cisp_image *const out[CISP_MAX_OUTPUTS],
			    struct cisp_stats *stats)
{
	struct cisp_isp *isp = NULL;

	CHECK_EQ(cisp_isp_create(&isp, cfg), 0);
	CHECK_EQ(cisp_isp_set_state(isp, state, ~0u), 0);
	CHECK_EQ(cisp_isp_process(isp, in, out, stats, NULL), 0);
	cisp_isp_destroy(isp);
}

/*
 * Whole frames with the quality Bayer denoise, black level, lens shading,
 * white balance and the statistics: the first on the GPU from the raw input
 * to its outputs (RGB888 and NV12), the second with highlight clipping on
 * too, still whole on the GPU; byte for byte with cisp_isp_process(),
 * statistics included.
 */
TEST(vulkan_bnrq_pipeline_bitexact)
{
	const uint32_t w = 132, h = 20;
	const struct cisp_isp_config cfg = { CISP_FMT_SGBRG10P, w, h,
					     { { CISP_FMT_RGB888, w, h }, { CISP_FMT_NV12, w, h } }, NULL };
	struct cisp_device *dev = NULL;
	struct vk_gpu *g = open_gpu();
	struct cisp_param_state state;
	struct cisp_image in;

	if (!g)
		return;
	setenv("CISP_ISP", VULKAN_ISP_NAME, 1);
	CHECK_EQ(cisp_device_create(&dev, &(struct cisp_device_config){ .workers = 1 }), 0);
	unsetenv("CISP_ISP");
	CHECK_EQ(cisp_image_alloc(&in, cfg.input_format, w, h), 0);
	for (size_t i = 0; i < (size_t)in.plane[0].stride * h; i++)
		in.plane[0].data[i] = (uint8_t)test_rand();
	cisp_param_state_init(&state);
	state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_BNR) | CISP_BLOCK_BIT(CISP_BLOCK_NOISE) |
			 CISP_BLOCK_BIT(CISP_BLOCK_LSC) | CISP_BLOCK_BIT(CISP_BLOCK_STATS);
	state.bnr.mode = CISP_BNR_QUALITY;
	state.bnr.strength = 400;
	for (int c = 0; c < 4; c++) {
		state.noise.a[c] = (64u << 16) + 4099u * c;
		state.noise.b[c] = 1u << 16;
	}
	state.blc.black[0] = state.blc.black[1] = state.blc.black[2] = state.blc.black[3] = 4096;
	state.wb.gain[0] = 7800;
	state.wb.gain[3] = 6100;
	state.lsc.grid_w = state.lsc.grid_h = 3;
	for (int i = 0; i < 4 * 9; i++)
		state.lsc.gain[i] = (uint16_t)(4096 + test_rand() % 4096);
	for (int k = 0; dev && k < 2; k++) {
		struct cisp_image got[2], want[2];
		struct cisp_stats got_stats, want_stats;
		struct vulkan_plan plan;

		if (k == 1)
			state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS);
		plan = vulkan_plan_on(&state, true, g->int64);
		CHECK(plan.bnr == g->int64 && plan.lsc == g->int64 && plan.stats == g->int64);
		CHECK_EQ(plan.rgb, g->int64); /* the whole frame on the GPU, with highlights too */
		memset(&got_stats, 0, sizeof(got_stats)); /* padding too: they are compared whole */
		memset(&want_stats, 0, sizeof(want_stats));
		for (int i = 0; i < 2; i++) {
			CHECK_EQ(cisp_image_alloc(&got[i], cfg.output[i].format, w, h), 0);
			CHECK_EQ(cisp_image_alloc(&want[i], cfg.output[i].format, w, h), 0);
		}
		if (test_device_frame(dev, &cfg, &state, &in, (struct cisp_image *const[CISP_MAX_OUTPUTS]){ &got[0], &got[1] },
				 &got_stats))
			test_fail(__FILE__, __LINE__, "the Vulkan backend's job: %s", cisp_last_error());
		reference_frame(&cfg, &state, &in, (struct cisp_image *const[CISP_MAX_OUTPUTS]){ &want[0], &want[1] },
				&want_stats);
		CHECK(!memcmp(&got_stats, &want_stats, sizeof(got_stats)));
		CHECK(test_same_pixels(&got[0], &want[0]));
		CHECK(test_same_pixels(&got[1], &want[1]));
		for (int i = 0; i < 2; i++) {
			cisp_image_free(&got[i]);
			cisp_image_free(&want[i]);
		}
	}
	cisp_image_free(&in);
	cisp_device_destroy(dev);
	vk_gpu_close(g);
}
#endif
