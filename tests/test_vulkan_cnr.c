/* SPDX-License-Identifier: MIT */
/*
 * Chroma denoise's tables on the GPU (docs/gpu.md, "The RGB side"): made and
 * written only when a block they are made from changes, and then the
 * reference's; checked step by step against cisp_cnr_rows() with the count
 * of tables written, and frame by frame through a device with
 * CISP_ISP=vulkan against the software backend. Without a Vulkan device the
 * tests say so loudly and skip, unless CISP_REQUIRE_VULKAN=1 (CI): then that
 * is a failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>

#include "test.h"

#ifdef CISP_VULKAN_BUILT
#include "device/vulkan_rgb.h"
#include "isp/cnr.h"
#include "isp/tone.h"

/* The device, or NULL: no device is a failure where CI requires one, else a loud skip. */
static struct vk_gpu *open_gpu(void)
{
	return test_vulkan_gpu("the Vulkan backend's chroma denoise tables are");
}

/*
 * Smooth Y, Cb and Cr with noise whose amplitude doubles every row (16 to
 * 8192), so that some rows sit near any threshold: into @rgb's planes and
 * @copy (3 planes of w x h).
 */
static void noisy_planes(struct vk_rgb *rgb, uint16_t *copy)
{
	const uint32_t w = rgb->width, h = rgb->height;
	uint32_t *words = rgb->planes.map;

	for (uint32_t c = 0; c < 3; c++)
		for (uint32_t y = 0; y < h; y++)
			for (uint32_t x = 0; x < w; x++) {
				const size_t i = ((size_t)c * h + y) * w + x;
				const uint32_t base = c ? 30000 + 40 * x : 4000 + 400 * x + 1000 * y;

				copy[i] = (uint16_t)((base + (uint32_t)test_rand() % (16u << y % 10)) & 0xffff);
				words[i] = copy[i];
			}
}

/* The reference's chroma denoise of @in (3 planes of w x h) into @out for the blocks of @s. */
static void reference(const struct cisp_param_state *s, uint16_t *in, uint16_t *out, uint32_t w, uint32_t h)
{
	struct cisp_tone_coeffs *tone = malloc(sizeof(*tone));
	struct cisp_cnr_coeffs *c = NULL;
	struct rgb16 a, b;

	for (int k = 0; k < 3; k++) {
		a.c[k] = (struct plane16){ in + (size_t)k * w * h, (int)w, 0, (int)w, (int)h, 0 };
		b.c[k] = (struct plane16){ out + (size_t)k * w * h, (int)w, 0, (int)w, (int)h, 0 };
	}
	cisp_tone_prepare(tone, &s->tone);
	CHECK_EQ(cisp_cnr_prepare(&c, &s->cnr, &s->noise,
				  &(const struct cisp_cnr_gains){
					  .wb = s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_WB) ? &s->wb : NULL,
					  .ccm = s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_CCM) ? &s->ccm : NULL,
					  .tone_lut = s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_TONE) ? tone->lut : NULL,
					  .csc = &s->csc }),
		 0);
	memcpy(out, in, (size_t)w * h * 2); /* Y passes through */
	cisp_cnr_rows(c, &a, &b, 0, (int)h);
	cisp_cnr_free(c);
	free(tone);
}

/* A state with chroma denoise, a noise profile, white balance, a matrix and a tone curve on. */
static void cnr_state(struct cisp_param_state *s)
{
	cisp_param_state_init(s);
	s->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_CNR) | CISP_BLOCK_BIT(CISP_BLOCK_NOISE) | CISP_BLOCK_BIT(CISP_BLOCK_WB) |
		      CISP_BLOCK_BIT(CISP_BLOCK_CCM) | CISP_BLOCK_BIT(CISP_BLOCK_TONE);
	s->cnr.strength = 1024;
	s->cnr.luma_strength = 512;
	s->cnr.radius = 3;
	for (int c = 0; c < 4; c++) {
		s->noise.a[c] = 1u << 22;
		s->noise.b[c] = 1u << 26;
	}
	s->wb.gain[0] = 8000;
	s->wb.gain[3] = 6000;
	for (int k = 0; k < 9; k++)
		s->ccm.coeff[k] = (int16_t)(k % 4 ? -300 : 4696);
	for (int k = 0; k < CISP_TONE_POINTS; k++)
		s->tone.curve[k] = (uint16_t)(k * 320 > 65535 ? 65535 : k * 320);
}

/*
 * Frame by frame on one RGB side: each change of a block the tables are made
 * from (chroma denoise's own, the noise profile, white balance, the matrix,
 * tone, the conversion, and the enable bits of the three gains) makes and
 * writes them once, and the passes then give the reference's planes; a
 * frame with nothing changed, or a change of a block they are not made from
 * (sharpening; white balance's gains while it is off), writes nothing.
 */
TEST(vulkan_cnr_tables_reused)
{
	enum { CHANGES = 16 };
	const uint32_t w = 65, h = 20, none[CISP_MAX_OUTPUTS] = { 0 };
	struct vk_gpu *g = open_gpu();
	struct vk_rgb *rgb = NULL;
	struct cisp_param_state *s = malloc(sizeof(*s));
	uint16_t *in = malloc((size_t)w * h * 3 * 2), *want = malloc((size_t)w * h * 3 * 2);

	if (g)
		CHECK_EQ(vk_rgb_create(g, w, h, NULL, none, &rgb), 0);
	cnr_state(s);
	for (int k = 0; rgb && k < CHANGES; k++) {
		/* Whether change k is of a block the tables are made from. */
		static const bool remade[CHANGES] = { true, false, false, true, true, true, true, true,
						      true, true, true,  true,  false, true, true, true };
		const unsigned long before = rgb->cnr_uploads;
		struct vk_rgb_step steps[2];
		int n;

		switch (k) {
		case 1: break; /* the same state */
		case 2: s->sharpen.strength ^= 1000; break;
		case 3: s->cnr.strength = 3000; break;
		case 4: s->cnr.luma_strength = 2000; break;
		case 5: s->cnr.radius = 1; break;
		case 6: s->noise.a[1] <<= 2; s->noise.b[2] >>= 3; break;
		case 7: s->wb.gain[0] = 12000; break;
		case 8: s->ccm.coeff[4] = 4096; break;
		case 9: s->tone.curve[40] = 20000; break;
		case 10: s->csc.range = 1; break;
		case 11: s->enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_WB); break;
		case 12: s->wb.gain[3] = 9000; break; /* white balance off: not read */
		case 13: s->enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_TONE); break;
		case 14: s->cnr.strength = 0; break; /* the reference copies */
		case 15: cnr_state(s); break; /* back to the first */
		}
		noisy_planes(rgb, in);
		reference(s, in, want, w, h);
		n = vk_rgb_step_cnr(rgb, s, steps);
		CHECK_EQ(n, k == 14 ? 0 : 2);
		if (n > 0)
			CHECK_EQ(vk_rgb_run(rgb, steps, (unsigned)n), 0);
		if (rgb->cnr_uploads != before + remade[k])
			test_fail(__FILE__, __LINE__, "change %d: the tables written %lu times, not %d", k,
				  rgb->cnr_uploads - before, remade[k]);
		for (size_t i = 0; i < (size_t)w * h * 3; i++)
			if (((const uint32_t *)rgb->planes.map)[i] != want[i]) {
				test_fail(__FILE__, __LINE__, "change %d: sample %zu (plane %zu) is %u, the reference's %u", k,
					  i, i / ((size_t)w * h), ((const uint32_t *)rgb->planes.map)[i], want[i]);
				break;
			}
	}
	vk_rgb_destroy(rgb);
	free(s);
	free(in);
	free(want);
	vk_gpu_close(g);
}

/* Submit one frame of @s on @ctx: 0 or the job's error. */
static int run_frame(struct cisp_context *ctx, const struct cisp_param_state *s, const struct cisp_image *in,
		     struct cisp_image *out)
{
	struct cisp_job job = { .num_inputs = 1, .input = { in }, .output = { out } };
	struct cisp_fence *fence = NULL;
	size_t size = 0;
	int ret;

	cisp_params_encode(s, ~0u, NULL, 0, &size);
	if (!(job.params = malloc(size)))
		return -1;
	CHECK_EQ(cisp_params_encode(s, ~0u, (void *)job.params, size, &size), 0);
	job.params_size = size;
	if (!(ret = cisp_job_submit(ctx, &job, &fence)))
		ret = cisp_fence_wait(fence, -1) ? -1 : cisp_fence_error(fence);
	cisp_fence_unref(fence);
	free((void *)job.params);
	return ret;
}

/*
 * Frames of one context through a device with CISP_ISP=vulkan, chroma
 * denoise on, its strength, the white balance's gains and the noise profile
 * changing between them and back: each NV12 output the software backend's.
 */
TEST(vulkan_cnr_frames_bitexact)
{
	enum { FRAMES = 5 };
	const uint32_t w = 64, h = 32;
	const struct cisp_isp_config cfg = { CISP_FMT_SRGGB12P, w, h, { { CISP_FMT_NV12, w, h } }, NULL };
	struct cisp_device *vk = NULL, *sw = NULL;
	struct cisp_context *ctx = NULL;
	struct cisp_param_state *s = malloc(sizeof(*s));
	struct cisp_image in, got, want;
	struct vk_gpu *g = open_gpu();

	if (!g) {
		free(s);
		return;
	}
	vk_gpu_close(g);
	setenv("CISP_ISP", "vulkan", 1);
	CHECK_EQ(cisp_device_create(&vk, &(struct cisp_device_config){ .workers = 1 }), 0);
	unsetenv("CISP_ISP");
	CHECK_EQ(cisp_device_create(&sw, &(struct cisp_device_config){ .workers = 1 }), 0);
	CHECK_EQ(cisp_context_create(&ctx, vk, &(struct cisp_context_config){ .name = "cnr", .isp = cfg }), 0);
	CHECK_EQ(cisp_image_alloc(&in, cfg.input_format, w, h), 0);
	CHECK_EQ(cisp_image_alloc(&got, CISP_FMT_NV12, w, h), 0);
	CHECK_EQ(cisp_image_alloc(&want, CISP_FMT_NV12, w, h), 0);
	/* A grey ramp with noise: the filter has something to average. */
	for (uint32_t y = 0; y < h; y++)
		for (size_t x = 0; x < (size_t)in.plane[0].stride; x++)
			in.plane[0].data[y * in.plane[0].stride + x] =
				(uint8_t)(x % 3 == 2 ? test_rand() : 40 + x / 2 + y + test_rand() % 24);
	cnr_state(s);
	s->enabled &= ~(CISP_BLOCK_BIT(CISP_BLOCK_CCM) | CISP_BLOCK_BIT(CISP_BLOCK_TONE));
	for (int k = 0; ctx && k < FRAMES; k++) {
		if (k == 1)
			s->cnr.strength = 4000;
		if (k == 2)
			s->wb.gain[0] = 12000;
		if (k == 3)
			s->noise.a[0] = s->noise.a[1] = 1u << 24;
		if (k == 4)
			cnr_state(s), s->enabled &= ~(CISP_BLOCK_BIT(CISP_BLOCK_CCM) | CISP_BLOCK_BIT(CISP_BLOCK_TONE));
		CHECK(vulkan_plan_frame(s, false).rgb);
		if (run_frame(ctx, s, &in, &got))
			test_fail(__FILE__, __LINE__, "frame %d on the Vulkan backend: %s", k, cisp_last_error());
		CHECK_EQ(test_device_frame(sw, &cfg, s, &in, (struct cisp_image *const[CISP_MAX_OUTPUTS]){ &want }, NULL), 0);
		if (!test_same_pixels(&got, &want))
			test_fail(__FILE__, __LINE__, "frame %d differs from the software backend's", k);
	}
	cisp_context_destroy(ctx);
	cisp_image_free(&in);
	cisp_image_free(&got);
	cisp_image_free(&want);
	cisp_device_destroy(vk);
	cisp_device_destroy(sw);
	free(s);
}
#else
TEST(vulkan_cnr_not_built)
{
	test_no_vulkan("the Vulkan backend's chroma denoise tables are", "this build has no Vulkan backend");
}
#endif
