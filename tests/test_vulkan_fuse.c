/* SPDX-License-Identifier: MIT */
/*
 * The Vulkan backend's fused RGB dispatches (docs/gpu.md, "Fewer passes on
 * the RGB side"): sharpening's luma made in the colour dispatch, the
 * conversion to YCbCr made by the colour dispatch or by sharpening, and a
 * 4:2:0 output packed by the dispatch that converts it, on random planes
 * against the reference's stages one after the other; then
 * whole frames through a device with CISP_ISP=vulkan against the software
 * ISP, byte for byte, with every output format, sharpening on and off, every
 * conversion, cropped and scaled outputs, fused and not. Without a Vulkan
 * device the tests say so loudly and skip, unless CISP_REQUIRE_VULKAN=1 (CI):
 * then that is a failure (a build without Vulkan is reported by
 * test_vulkan_rgb.c).
 */
#include <errno.h>
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
#include "isp/ccm.h"
#include "isp/cnr.h"
#include "isp/csc.h"
#include "isp/pack.h"
#include "isp/sharpen.h"

/* No device is a failure where CI requires one, else a loud skip; NULL then. */
static struct vk_gpu *open_gpu(void)
{
	return test_vulkan_gpu("the Vulkan backend's fused dispatches are");
}

/* From 3x5 (sharpening's reference reflects once); widths on both sides of the 64-pixel workgroup, odd ones. */
static const struct {
	uint32_t w, h;
} sizes[] = { { 3, 5 }, { 65, 3 }, { 130, 4 }, { 257, 7 } };

/* The stages of a trial. */
enum { FUSE_CCM = 1, FUSE_SHARPEN = 2, FUSE_CSC = 4 };

/* A matrix with negative entries, each row's |sum| at its 32767 limit, and offsets that clip. */
static const struct cisp_ccm_params ccm = {
	.coeff = { 14336, -10000, -8431, -6000, 20000, -6767, 3000, -12767, 17000 },
	.offset = { 2000, -3000, 0 },
};

/* The strongest sharpening (every detail through, unlimited), and a cored, limited one. */
static const struct cisp_sharpen_params sharpen[2] = {
	{ .strength = 65535, .coring = 0, .limit = 65535 },
	{ .strength = 700, .coring = 30, .limit = 4096 },
};

static struct rgb16 as_rgb16(uint16_t *p, uint32_t w, uint32_t h)
{
	struct rgb16 v;

	for (int c = 0; c < 3; c++)
		v.c[c] = (struct plane16){ p + (size_t)c * w * h, (int)w, 0, (int)w, (int)h, 0 };
	return v;
}

/*
 * Random planes into @want and the GPU's @words, samples at 0 and 65535 among
 * them, and every seventh pixel an odd multiple of 2048 in red alone, whose
 * luma (871 x 2048 x odd, Q12) falls exactly half-way between two values.
 */
static void random_planes(uint16_t *want, uint32_t *words, uint32_t w, uint32_t h)
{
	const size_t n = (size_t)w * h;

	for (size_t i = 0; i < 3 * n; i++)
		want[i] = (uint16_t)(i % 11 == 0 ? 65535 : i % 13 == 0 ? 0 : test_rand());
	for (size_t i = 3; i < n; i += 7) {
		want[i] = (uint16_t)(2048 * (1 + 2 * (i % 16)));
		want[n + i] = want[2 * n + i] = 0;
	}
	for (size_t i = 0; i < 3 * n; i++)
		words[i] = want[i];
}

/* The stages of @mask, with conversion @kind (matrix kind / 2, range kind % 2), on @want in place, as the reference. */
static void reference(unsigned mask, int kind, uint16_t *want, uint32_t w, uint32_t h)
{
	const struct cisp_csc_params csc = { .matrix = (uint16_t)(kind / 2), .range = (uint16_t)(kind % 2) };
	const size_t n = (size_t)w * h * 3;
	struct rgb16 v = as_rgb16(want, w, h);

	if (mask & FUSE_CCM)
		cisp_ccm_rows(&ccm, &v, &v, 0, (int)h);
	if (mask & FUSE_SHARPEN) {
		/* Its reference writes into other planes than it reads. */
		uint16_t *in = malloc(n * 2);
		struct rgb16 copy;

		CHECK(in);
		if (!in)
			return;
		memcpy(in, want, n * 2);
		copy = as_rgb16(in, w, h);
		cisp_sharpen_rows(&sharpen[kind % 2], &copy, &v, 0, (int)h);
		free(in);
	}
	if (mask & FUSE_CSC)
		cisp_csc_rows(&csc, &v, &v, 0, (int)h);
}

/* The dispatches of @mask as a frame without RGB outputs fuses them (vk_rgb_process()): their number. */
static unsigned fused_steps(struct vk_rgb *rgb, unsigned mask, int kind, struct vk_rgb_step steps[2])
{
	const struct cisp_csc_params csc = { .matrix = (uint16_t)(kind / 2), .range = (uint16_t)(kind % 2) };
	struct vk_rgb_step colour = { .push_size = 0 }, one, sharpening[2];
	unsigned n = 0;

	if (mask & FUSE_CCM) {
		vk_rgb_step_ccm(rgb, &ccm, &one);
		vk_rgb_step_fuse(&colour, &one);
	}
	if (mask & FUSE_SHARPEN) {
		vk_rgb_step_sharpen(rgb, &sharpen[kind % 2], sharpening);
		vk_rgb_step_fuse(&colour, &sharpening[0]);
	}
	if (mask & FUSE_CSC) {
		vk_rgb_step_csc(rgb, &csc, &one);
		vk_rgb_step_fuse(mask & FUSE_SHARPEN ? &sharpening[1] : &colour, &one);
	}
	steps[n++] = colour;
	if (mask & FUSE_SHARPEN)
		steps[n++] = sharpening[1];
	return n;
}

/*
 * Every subset of colour correction, sharpening and the conversion (each of
 * its six kinds), fused as a frame fuses them: one colour dispatch (with the
 * luma where sharpening is on, and the conversion where sharpening is off),
 * then sharpening (with the conversion), on random planes with samples at 0
 * and 65535, against the reference's stages in turn.
 */
TEST(vulkan_fuse_steps_bitexact)
{
	const uint32_t none[CISP_MAX_OUTPUTS] = { 0 };
	struct vk_gpu *g = open_gpu();

	for (unsigned s = 0; g && s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		const uint32_t w = sizes[s].w, h = sizes[s].h;
		uint16_t *want = malloc((size_t)w * h * 3 * 2);
		struct vk_rgb *rgb = NULL;

		CHECK_EQ(vk_rgb_create(g, w, h, NULL, none, &rgb), 0);
		for (unsigned mask = 1; rgb && want && mask < 8; mask++) {
			for (int kind = 0; kind < (mask & FUSE_CSC ? 6 : 2); kind++) {
				uint32_t *words = rgb->planes.map;
				struct vk_rgb_step steps[2];
				unsigned n;

				random_planes(want, words, w, h);
				reference(mask, kind, want, w, h);
				n = fused_steps(rgb, mask, kind, steps);
				CHECK_EQ(n, mask & FUSE_SHARPEN ? 2u : 1u);
				CHECK_EQ(vk_rgb_run(rgb, steps, n), 0);
				for (size_t i = 0; i < (size_t)w * h * 3; i++) {
					if (words[i] != want[i]) {
						test_fail(__FILE__, __LINE__,
							  "stages %#x, kind %d, %ux%u: sample %zu is %u, the reference's %u",
							  mask, kind, w, h, i, words[i], want[i]);
						break;
					}
				}
			}
		}
		free(want);
		vk_rgb_destroy(rgb);
	}
	vk_gpu_close(g);
}

/*
 * The packing fused with what comes before it: the conversion alone, after
 * colour correction, after sharpening (the luma from the colour dispatch
 * before), and after both, each conversion in turn, into NV12 and I420; the
 * same without the conversion (and with nothing before) into RGB888, XBGR32
 * and RGB48; frames 8 pixels wide to past a workgroup's 64 blocks, odd
 * heights (RGB: the last alone), against the reference's stages and
 * cisp_pack_rows(), byte for byte.
 */
TEST(vulkan_fuse_pack_fused_bitexact)
{
	static const struct {
		uint32_t w, h;
	} frames[] = { { 8, 3 }, { 24, 6 }, { 520, 5 } };
	static const uint32_t formats[] = { CISP_FMT_NV12, CISP_FMT_I420, CISP_FMT_RGB888, CISP_FMT_XBGR32, CISP_FMT_RGB48 };
	enum { FORMATS = sizeof(formats) / sizeof(formats[0]) };
	struct vk_gpu *g = open_gpu();
	int kind = 0;

	for (unsigned f = 0; g && f < FORMATS * sizeof(frames) / sizeof(frames[0]); f++) {
		const uint32_t w = frames[f / FORMATS].w, h = frames[f / FORMATS].h,
			       format[CISP_MAX_OUTPUTS] = { formats[f % FORMATS] };
		const bool yuv = f % FORMATS < 2;

		if (!yuv && f / FORMATS != 2)
			continue; /* the RGB formats on the frame of two workgroups and an odd height only: the test's time */
		uint16_t *want = malloc((size_t)w * h * 3 * 2);
		struct cisp_image got, packed;
		struct vk_rgb *rgb = NULL;
		struct cisp_param_state state;

		cisp_param_state_init(&state);
		CHECK_EQ(cisp_image_alloc(&got, format[0], w, h), 0);
		CHECK_EQ(cisp_image_alloc(&packed, format[0], w, h), 0);
		CHECK_EQ(vk_rgb_create(g, w, h, NULL, format, &rgb), 0);
		CHECK(!rgb || vk_rgb_packs_fused(rgb, &state, 0));
		for (unsigned mask = yuv ? FUSE_CSC : 0; rgb && want && mask < (yuv ? 8u : FUSE_CSC);
		     mask++, kind = (kind + 1) % 6) {
			const struct rgb16 planes = as_rgb16(want, w, h);
			uint32_t *words = rgb->planes.map;
			struct vk_rgb_step steps[2], last;
			unsigned n;

			random_planes(want, words, w, h);
			reference(mask, kind, want, w, h);
			cisp_pack_rows(&planes, &packed, 0, (int)h);
			/* As the frame makes them: the colour dispatch before where it sharpens, else folded in. */
			n = fused_steps(rgb, mask, kind, steps);
			last = steps[n - 1];
			vk_rgb_step_pack_fused(rgb, 0, &last, &steps[n - 1]);
			CHECK_EQ(vk_rgb_run(rgb, steps, n), 0);
			CHECK_EQ(vk_rgb_unload(rgb, 0, &got), 0);
			if (!test_same_pixels(&got, &packed))
				test_fail(__FILE__, __LINE__, "stages %#x, kind %d, %s %ux%u: not the reference's bytes", mask,
					  kind, cisp_format_name(format[0]), w, h);
		}
		vk_rgb_destroy(rgb);
		cisp_image_free(&got);
		cisp_image_free(&packed);
		free(want);
	}
	vk_gpu_close(g);
}

/*
 * Chroma denoise's vertical pass fused with the 4:2:0 packing
 * (pack420_cnr.comp) after its horizontal pass, into NV12 and I420 of 24x5
 * (odd height) and 520x6 (two workgroups), radii 1 and 3, on noisy planes
 * (a luma ramp, chroma about a level, noise from 16 to 8192 by row), against
 * cisp_cnr_rows() and cisp_pack_rows(), byte for byte.
 */
TEST(vulkan_fuse_pack420_cnr_bitexact)
{
	static const uint32_t frames[][2] = { { 24, 5 }, { 520, 6 } };
	static const uint32_t formats[] = { CISP_FMT_NV12, CISP_FMT_I420 };
	struct vk_gpu *g = open_gpu();

	for (unsigned f = 0; g && f < 4; f++) {
		const uint32_t w = frames[f / 2][0], h = frames[f / 2][1], format[CISP_MAX_OUTPUTS] = { formats[f % 2] };
		uint16_t *in = malloc((size_t)w * h * 3 * 2), *out = malloc((size_t)w * h * 3 * 2);
		struct cisp_image got, want;
		struct vk_rgb *rgb = NULL;
		struct cisp_param_state state;
		struct cisp_cnr_coeffs *c = NULL;
		struct vk_rgb_step steps[2];

		cisp_param_state_init(&state);
		state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_CNR) | CISP_BLOCK_BIT(CISP_BLOCK_NOISE);
		state.enabled &= ~(CISP_BLOCK_BIT(CISP_BLOCK_WB) | CISP_BLOCK_BIT(CISP_BLOCK_CCM) |
				   CISP_BLOCK_BIT(CISP_BLOCK_TONE));
		state.cnr.strength = 1024;
		state.cnr.luma_strength = 512;
		state.cnr.radius = f / 2 ? 3 : 1;
		for (int k = 0; k < 4; k++) {
			state.noise.a[k] = 1u << 22;
			state.noise.b[k] = 1u << 26;
		}
		CHECK_EQ(cisp_image_alloc(&got, format[0], w, h), 0);
		CHECK_EQ(cisp_image_alloc(&want, format[0], w, h), 0);
		CHECK_EQ(vk_rgb_create(g, w, h, NULL, format, &rgb), 0);
		CHECK_EQ(cisp_cnr_prepare(&c, &state.cnr, &state.noise, &(const struct cisp_cnr_gains){ .csc = &state.csc }),
			 0);
		if (rgb && in && out && c) {
			const struct rgb16 a = as_rgb16(in, w, h), b = as_rgb16(out, w, h);
			uint32_t *words = rgb->planes.map;

			for (size_t i = 0; i < (size_t)w * h * 3; i++) {
				const uint32_t x = (uint32_t)(i % w), y = (uint32_t)(i / w % h);
				const uint32_t base = i < (size_t)w * h ? 4000 + 100 * x + 1000 * y : 30000 + 40 * x;

				in[i] = (uint16_t)((base + (uint32_t)test_rand() % (16u << y % 10)) & 0xffff);
				words[i] = in[i];
			}
			memcpy(out, in, (size_t)w * h * 2); /* Y passes through */
			cisp_cnr_rows(c, &a, &b, 0, (int)h);
			cisp_pack_rows(&b, &want, 0, (int)h);
			CHECK(vk_rgb_packs_fused(rgb, &state, 0));
			CHECK_EQ(vk_rgb_step_cnr(rgb, &state, steps), 2);
			vk_rgb_step_pack420_cnr(rgb, 0, &steps[1], &steps[1]);
			CHECK_EQ(vk_rgb_run(rgb, steps, 2), 0);
			CHECK_EQ(vk_rgb_unload(rgb, 0, &got), 0);
			if (!test_same_pixels(&got, &want))
				test_fail(__FILE__, __LINE__, "%s %ux%u, radius %u: not the reference's bytes",
					  cisp_format_name(format[0]), w, h, state.cnr.radius);
		}
		cisp_cnr_free(c);
		vk_rgb_destroy(rgb);
		cisp_image_free(&got);
		cisp_image_free(&want);
		free(in);
		free(out);
	}
	vk_gpu_close(g);
}

/*
 * Whole frames on a device with CISP_ISP=vulkan, whole on the GPU, byte for
 * byte against the software ISP: one 4:2:0 output of a frame 64 wide, packed
 * by the last dispatch (after sharpening, after the colour stages, LTM among
 * them); 60 wide, where the conversion is fused into sharpening, or alone in
 * the colour dispatch; two YUV outputs, a cropped and a scaled one, chroma
 * denoise; an RGB output beside a YUV one, where the conversion stays a
 * dispatch of its own; one NV12 output packed by chroma denoise's vertical
 * pass; one RGB output of a frame 64 wide, packed by the last dispatch
 * (chroma denoise on, which only YUV outputs run). Several conversions,
 * sharpening on and off.
 */
TEST(vulkan_fuse_pipeline_bitexact)
{
	const uint32_t h = 32;
	enum { CCM = 1, TONE = 2, SHARPEN = 4, CNR = 8, LTM = 16 };
	static const struct {
		uint32_t w; /* the frame's */
		struct cisp_output_config out[CISP_MAX_OUTPUTS];
		uint16_t crop[4]; /* output 0's: x, y, width, height; width 0: none */
		unsigned stages;
		int csc; /* matrix csc / 2, range csc % 2 */
	} frames[] = {
		/* One 4:2:0 output of the whole frame, 8 pixels to a block: converted and packed by the last dispatch. */
		{ 64, { { CISP_FMT_NV12, 64, 32 } }, { 0 }, CCM | TONE | SHARPEN, 2 },
		{ 64, { { CISP_FMT_I420, 64, 32 } }, { 0 }, CCM | LTM | TONE, 1 },
		/* Not 8 pixels to a block: the conversion fused into sharpening, or alone in the colour dispatch. */
		{ 60, { { CISP_FMT_NV12, 60, 32 } }, { 0 }, CCM | SHARPEN, 3 },
		{ 60, { { CISP_FMT_I420, 60, 32 } }, { 0 }, 0, 5 },
		/* Two YUV outputs, a cropped one, a scaled one with chroma denoise: the conversion fused, packed apart. */
		{ 64, { { CISP_FMT_NV12, 30, 18 }, { CISP_FMT_I420, 64, 32 } }, { 10, 4, 40, 22 }, SHARPEN, 5 },
		{ 64, { { CISP_FMT_I420, 34, 18 } }, { 0 }, CCM | SHARPEN | CNR, 3 },
		/* One 4:2:0 output of the whole frame with chroma denoise: packed by its vertical pass. */
		{ 64, { { CISP_FMT_NV12, 64, 32 } }, { 0 }, CCM | SHARPEN | CNR, 1 },
		/* One RGB output of the whole frame, 8 pixels to a block: packed by the last dispatch. */
		{ 64, { { CISP_FMT_RGB888, 64, 32 } }, { 0 }, CCM | TONE | SHARPEN | CNR, 0 },
		/* An RGB output beside: the conversion a dispatch of its own. */
		{ 64, { { CISP_FMT_RGB888, 64, 32 }, { CISP_FMT_NV12, 64, 32 } }, { 0 }, CCM | SHARPEN, 0 },
	};
	struct cisp_device *dev = NULL;
	struct cisp_param_state state;
	bool no_device = false;

	setenv("CISP_ISP", "vulkan", 1);
	CHECK_EQ(cisp_device_create(&dev, &(struct cisp_device_config){ .workers = 1 }), 0);
	unsetenv("CISP_ISP");
	for (unsigned k = 0; dev && !no_device && k < sizeof(frames) / sizeof(frames[0]); k++) {
		const uint32_t w = frames[k].w;
		const struct cisp_isp_config cfg = { CISP_FMT_SGRBG12P, w, h, { frames[k].out[0], frames[k].out[1] }, NULL };
		const unsigned st = frames[k].stages;
		struct cisp_image in, got[CISP_MAX_OUTPUTS], want[CISP_MAX_OUTPUTS];
		struct cisp_isp *isp = NULL;
		int ret;

		CHECK_EQ(cisp_image_alloc(&in, cfg.input_format, w, h), 0);
		for (size_t i = 0; i < (size_t)in.plane[0].stride * h; i++)
			in.plane[0].data[i] = (uint8_t)test_rand();

		cisp_param_state_init(&state);
		state.wb.gain[0] = 8000;
		state.wb.gain[3] = 6000;
		state.csc.matrix = (uint16_t)(frames[k].csc / 2);
		state.csc.range = (uint16_t)(frames[k].csc % 2);
		state.enabled &= ~(CISP_BLOCK_BIT(CISP_BLOCK_CCM) | CISP_BLOCK_BIT(CISP_BLOCK_TONE) |
				   CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN) | CISP_BLOCK_BIT(CISP_BLOCK_CNR) |
				   CISP_BLOCK_BIT(CISP_BLOCK_LTM));
		if (st & LTM) {
			/* A 4x3 grid of random levels and gains: each pixel's gain depends on where it is. */
			state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_LTM);
			state.ltm.header.size = 16 + 4 * 12;
			state.ltm.grid_w = 4;
			state.ltm.grid_h = 3;
			state.ltm.range = 512;
			for (int i = 0; i < 12; i++) {
				state.ltm.node[i] = (uint16_t)(test_rand() % 4096);
				state.ltm.node[12 + i] = (uint16_t)(16 + test_rand() % 4080);
			}
		}
		if (st & CCM) {
			state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_CCM);
			memcpy(state.ccm.coeff, ccm.coeff, sizeof(ccm.coeff));
			memcpy(state.ccm.offset, ccm.offset, sizeof(ccm.offset));
		}
		if (st & TONE)
			state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_TONE);
		if (st & SHARPEN) {
			state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN);
			state.sharpen.strength = 2048;
			state.sharpen.coring = 100;
			state.sharpen.limit = 30000;
		}
		if (st & CNR) {
			state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_CNR) | CISP_BLOCK_BIT(CISP_BLOCK_NOISE);
			for (int c = 0; c < 4; c++) {
				state.noise.a[c] = 1u << 22;
				state.noise.b[c] = 1u << 26;
			}
		}
		if (frames[k].crop[2]) {
			state.crop_enabled = 1;
			state.crop[0].x = frames[k].crop[0];
			state.crop[0].y = frames[k].crop[1];
			state.crop[0].width = frames[k].crop[2];
			state.crop[0].height = frames[k].crop[3];
		}
		memset(got, 0, sizeof(got));
		memset(want, 0, sizeof(want));
		for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
			if (!cfg.output[i].format)
				continue;
			CHECK_EQ(cisp_image_alloc(&got[i], cfg.output[i].format, cfg.output[i].width, cfg.output[i].height), 0);
			CHECK_EQ(cisp_image_alloc(&want[i], cfg.output[i].format, cfg.output[i].width, cfg.output[i].height), 0);
		}
		/* Whole on the GPU: the plan keeps the frame there. */
		CHECK(vulkan_plan_frame(&state, false).rgb);
		ret = test_device_frame(dev, &cfg, &state, &in,
					(struct cisp_image *const[CISP_MAX_OUTPUTS]){ &got[0], cfg.output[1].format ? &got[1] : NULL },
					NULL);
		if (ret == -ENODEV) {
			struct vk_gpu *g = open_gpu(); /* says so */

			no_device = !g;
			vk_gpu_close(g);
		} else if (ret) {
			test_fail(__FILE__, __LINE__, "frame %u: the Vulkan backend's job: %s", k, cisp_last_error());
		} else {
			CHECK_EQ(cisp_isp_create(&isp, &cfg), 0);
			if (isp) {
				CHECK_EQ(cisp_isp_set_state(isp, &state, ~0u), 0);
				CHECK_EQ(cisp_isp_process(isp, &in,
							  (struct cisp_image *const[CISP_MAX_OUTPUTS]){
								  &want[0], cfg.output[1].format ? &want[1] : NULL },
							  NULL,
							  NULL),
					 0);
				cisp_isp_destroy(isp);
			}
			for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
				if (cfg.output[i].format && !test_same_pixels(&got[i], &want[i]))
					test_fail(__FILE__, __LINE__, "frame %u: output %d (%s %ux%u) differs from the software ISP's",
						  k, i, cisp_format_name(cfg.output[i].format), cfg.output[i].width,
						  cfg.output[i].height);
		}
		for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
			if (cfg.output[i].format) {
				cisp_image_free(&got[i]);
				cisp_image_free(&want[i]);
			}
		}
		cisp_image_free(&in);
	}
	cisp_device_destroy(dev);
}
#endif /* a build without Vulkan: test_vulkan_rgb.c says so */
