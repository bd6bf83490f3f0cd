/* SPDX-License-Identifier: MIT */
/*
 * Crop and scale of the outputs on the GPU (docs/gpu.md, "Crop and scale"):
 * the scale shader against the C scaler on random planes (down and up, odd
 * sizes, one-pixel outputs, extreme ratios, windows at the frame's edges),
 * then whole frames with cropped and scaled outputs through a device with
 * CISP_ISP=vulkan, against the software ISP, byte for byte. Without a
 * Vulkan device the tests say so loudly and skip, unless
 * CISP_REQUIRE_VULKAN=1 (CI): then that is a failure (a build without
 * Vulkan is reported by test_vulkan_rgb.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/params.h>
#include <cisp/params_state.h>

#include "test.h"

#ifdef CISP_VULKAN_BUILT
#include "device/vulkan_output.h"
#include "device/vulkan_rgb.h"
#include "isp/scale.h"

/* No device is a failure where CI requires one, else a loud skip; NULL then. */
static struct vk_gpu *open_gpu(void)
{
	return test_vulkan_gpu("the Vulkan backend's crop and scale are");
}

/* Frames, windows of them and output sizes for the scale shader. */
static const struct {
	uint32_t w, h;          /* the frame */
	uint32_t x, y, cw, ch;  /* the window (cw 0: the whole frame, uncropped) */
	uint32_t ow, oh;        /* the output */
} cases[] = {
	{ 64, 32, 0, 0, 0, 0, 32, 16 },           /* half size */
	{ 37, 23, 0, 0, 0, 0, 11, 7 },            /* odd, down */
	{ 5, 3, 0, 0, 0, 0, 67, 9 },              /* odd, up past a workgroup */
	{ 33, 17, 0, 0, 0, 0, 1, 1 },             /* one pixel */
	{ 1, 1, 0, 0, 0, 0, 130, 3 },             /* one pixel up to two workgroups and more */
	{ 1024, 2, 0, 0, 0, 0, 1, 2 },            /* 1024:1 across, 1:1 down */
	{ 2, 300, 0, 0, 0, 0, 129, 1 },           /* up across, 300:1 down */
	{ 96, 40, 96 - 27, 40 - 13, 27, 13, 63, 5 },  /* a window at the right and bottom edges, up and down */
	{ 96, 40, 0, 0, 65, 40, 64, 39 },         /* at the left, top and bottom edges, just under 1:1 */
	{ 96, 40, 31, 7, 65, 33, 65, 33 },        /* a crop alone (1:1), inside */
	{ 96, 40, 95, 39, 1, 1, 3, 2 },           /* the last pixel, enlarged */
	{ 48, 20, 7, 3, 24, 10, 48, 20 },         /* an output of the frame's size, cropped: scaled planes made then */
};
#define CASES (sizeof(cases) / sizeof(cases[0]))

/* The planes of @rgb (3 x w x h) random, a few at the ends of the range, every one at 65535 for @bright; into @copy too. */
static void random_planes(struct vk_rgb *rgb, uint16_t *copy, bool bright)
{
	const size_t n = (size_t)rgb->width * rgb->height * 3;
	uint32_t *words = rgb->planes.map;

	for (size_t i = 0; i < n; i++) {
		copy[i] = (uint16_t)(bright || i % 11 == 0 ? 65535 : i % 13 == 0 ? 0 : test_rand());
		words[i] = copy[i];
	}
}

static struct rgb16 as_rgb16(uint16_t *p, uint32_t w, uint32_t h)
{
	struct rgb16 v;

	for (int c = 0; c < 3; c++)
		v.c[c] = (struct plane16){ p + (size_t)c * w * h, (int)w, 0, (int)w, (int)h, 0 };
	return v;
}

/* Case @k's output, @bright or random, on the GPU against cisp_scale_rows() (or the window's samples, 1:1). */
static void check_case(struct vk_gpu *g, unsigned k, bool bright)
{
	const uint32_t w = cases[k].w, h = cases[k].h, ow = cases[k].ow, oh = cases[k].oh;
	const uint32_t cw = cases[k].cw ? cases[k].cw : w, ch = cases[k].cw ? cases[k].ch : h;
	const struct cisp_output_config out[CISP_MAX_OUTPUTS] = { { CISP_FMT_RGB48, ow, oh } };
	const size_t n_out = (size_t)ow * oh * 3;
	uint16_t *in = malloc(sizeof(uint16_t) * w * h * 3), *want = malloc(sizeof(uint16_t) * n_out);
	struct cisp_scaler *sc = NULL;
	struct vk_rgb *rgb = NULL;
	struct vk_rgb_step steps[2];
	struct cisp_param_state state;

	cisp_param_state_init(&state);
	if (cases[k].cw) {
		state.crop_enabled = 1;
		state.crop[0].x = (uint16_t)cases[k].x;
		state.crop[0].y = (uint16_t)cases[k].y;
		state.crop[0].width = (uint16_t)cw;
		state.crop[0].height = (uint16_t)ch;
	}
	CHECK(in && want);
	CHECK_EQ(vk_rgb_create_outputs(g, w, h, NULL, out, &rgb), 0);
	if (!in || !want || !rgb)
		goto out;
	random_planes(rgb, in, bright);
	/* Scaled planes from the start only for an output of another size than the frame; else with the first crop. */
	CHECK_EQ(!rgb->scaled.buffer, ow == w && oh == h);
	CHECK_EQ(vk_output_steps(rgb, &state, 0, steps), 2);
	CHECK(rgb->scaled.buffer);
	CHECK_EQ(steps[0].shader, VK_RGB_SCALE);
	CHECK_EQ(steps[1].source, VK_RGB_SCALED_TO_OUTPUT0);
	CHECK_EQ(vk_rgb_run(rgb, steps, 1), 0);
	if (cw == ow && ch == oh) {
		/* A crop alone: the reference packs the window's own samples. */
		for (uint32_t c = 0; c < 3; c++)
			for (uint32_t j = 0; j < oh; j++)
				for (uint32_t i = 0; i < ow; i++)
					want[((size_t)c * oh + j) * ow + i] =
						in[((size_t)c * h + cases[k].y + j) * w + cases[k].x + i];
	} else {
		struct rgb16 from = as_rgb16(in, w, h), to = as_rgb16(want, ow, oh);

		CHECK_EQ(cisp_scaler_create(&sc, (int)cw, (int)ch, (int)ow, (int)oh), 0);
		if (!sc)
			goto out;
		cisp_scale_rows(sc, &from, (int)cases[k].x, (int)cases[k].y, &to, 0, (int)oh);
	}
	for (size_t i = 0; i < n_out; i++) {
		const uint32_t got = ((const uint32_t *)rgb->scaled.map)[i];

		if (got != want[i]) {
			test_fail(__FILE__, __LINE__, "case %u (%ux%u of %ux%u to %ux%u%s): sample %zu is %u, the reference's %u",
				  k, cw, ch, w, h, ow, oh, bright ? ", all 65535" : "", i, got, want[i]);
			break;
		}
	}
out:
	cisp_scaler_free(sc);
	vk_rgb_destroy(rgb);
	free(in);
	free(want);
}

TEST(vulkan_output_scale_bitexact)
{
	struct vk_gpu *g = open_gpu();

	for (unsigned k = 0; g && k < CASES; k++) {
		check_case(g, k, false);
		check_case(g, k, true); /* the largest sums the weights make */
	}
	vk_gpu_close(g);
}

/*
 * One output whose window changes from frame to frame: its tables are made
 * again (and kept while it stays); the whole frame at the frame's size packs
 * straight from the planes; a window outside the frame is refused.
 */
TEST(vulkan_output_windows)
{
	const uint32_t w = 48, h = 20;
	const struct cisp_output_config out[CISP_MAX_OUTPUTS] = { { CISP_FMT_RGB48, 16, 10 }, { CISP_FMT_NV12, w, h } };
	static const uint16_t windows[][4] = { { 0, 0, 48, 20 }, { 32, 10, 16, 10 }, { 2, 4, 40, 14 }, { 2, 4, 40, 14 } };
	struct vk_gpu *g = open_gpu();
	struct vk_rgb *rgb = NULL;
	uint16_t *in = malloc(sizeof(uint16_t) * w * h * 3), want[16 * 10 * 3];
	struct vk_rgb_step steps[2];
	struct cisp_param_state state;
	VkPhysicalDeviceProperties props;

	cisp_param_state_init(&state);
	CHECK(in != NULL);
	if (g && in)
		CHECK_EQ(vk_rgb_create_outputs(g, w, h, NULL, out, &rgb), 0);
	if (!rgb)
		goto out;
	random_planes(rgb, in, false);
	for (unsigned k = 0; k < sizeof(windows) / sizeof(windows[0]); k++) {
		struct cisp_scaler *sc = NULL;
		struct rgb16 from = as_rgb16(in, w, h), to = as_rgb16(want, 16, 10);

		state.crop_enabled = 1;
		state.crop[0].x = windows[k][0];
		state.crop[0].y = windows[k][1];
		state.crop[0].width = windows[k][2];
		state.crop[0].height = windows[k][3];
		CHECK_EQ(vk_output_steps(rgb, &state, 0, steps), 2);
		CHECK_EQ(vk_rgb_run(rgb, steps, 1), 0);
		CHECK_EQ(cisp_scaler_create(&sc, windows[k][2], windows[k][3], 16, 10), 0);
		if (!sc)
			break;
		cisp_scale_rows(sc, &from, windows[k][0], windows[k][1], &to, 0, 10);
		cisp_scaler_free(sc);
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			if (((const uint32_t *)rgb->scaled.map)[i] != want[i]) {
				test_fail(__FILE__, __LINE__, "window %u: sample %zu differs from the reference's", k, i);
				break;
			}
	}
	/* Output 1, of the frame's size and uncropped: one step, the packing from the planes. */
	CHECK_EQ(vk_output_steps(rgb, &state, 1, steps), 1);
	CHECK_EQ(steps[0].shader, VK_RGB_PACK);
	CHECK_EQ(steps[0].source, VK_RGB_TO_OUTPUT0 + 1);
	/* Cropped to the whole frame, the same. */
	state.crop_enabled = 3; /* output 0 keeps its window */
	state.crop[1] = (struct cisp_crop_params){ state.crop[1].header, 1, 0, 0, 0, w, h, 0 };
	CHECK_EQ(vk_output_steps(rgb, &state, 1, steps), 1);
	/* Two columns in, it goes through the scaled planes. */
	state.crop[1].x = 2;
	state.crop[1].width = w - 2;
	CHECK_EQ(vk_output_steps(rgb, &state, 1, steps), 2);
	/* Hostile windows never reach the shader: past either edge, or empty. */
	state.crop[1].width = w - 1;
	CHECK_ERR(vk_output_steps(rgb, &state, 1, steps), -EINVAL, "outside the 48x20 frame");
	state.crop[1] = (struct cisp_crop_params){ state.crop[1].header, 1, 0, 0, 65535, 2, 2, 0 };
	CHECK_ERR(vk_output_steps(rgb, &state, 1, steps), -EINVAL, "outside");
	state.crop[1] = (struct cisp_crop_params){ state.crop[1].header, 1, 0, 0, 0, 0, h, 0 };
	CHECK_ERR(vk_output_steps(rgb, &state, 1, steps), -EINVAL, "outside");
	/* A bad window leaves the good tables of another output alone. */
	CHECK_EQ(vk_output_steps(rgb, &state, 0, steps), 2);
	CHECK_EQ(vk_rgb_run(rgb, steps, 1), 0);
	CHECK_EQ(rgb->window[0].x, 2);
	CHECK_EQ(rgb->window[0].width, 40);
	vk_rgb_destroy(rgb);
	rgb = NULL;
	/* Outputs of no size, or whose scaled planes the device's storage buffers cannot hold. */
	CHECK_ERR(vk_rgb_create_outputs(g, w, h, NULL,
					(const struct cisp_output_config[CISP_MAX_OUTPUTS]){ { CISP_FMT_RGB48, 0, 4 } }, &rgb),
		  -EINVAL, "no 0x4 output");
	vkGetPhysicalDeviceProperties(g->physical, &props);
	if (props.limits.maxStorageBufferRange < 12ull * CISP_MAX_DIMENSION * CISP_MAX_DIMENSION)
		CHECK_ERR(vk_rgb_create_outputs(g, w, h, NULL,
						(const struct cisp_output_config[CISP_MAX_OUTPUTS]){
							{ CISP_FMT_RGB48, CISP_MAX_DIMENSION, CISP_MAX_DIMENSION } },
						&rgb),
			  -E2BIG, "the scaled planes of the outputs are over");
out:
	vk_rgb_destroy(rgb);
	vk_gpu_close(g);
	free(in);
}

/*
 * Whole frames on a device with CISP_ISP=vulkan, whole on the GPU (the plan
 * keeps them there and the context has an RGB side): a cropped NV12 output at
 * the frame's bottom right beside a half-size NV12 one; a scaled RGB888
 * output beside a cropped and scaled I420 one (chroma denoise on, before
 * the crop); two outputs of the frame's size, one cropped (the scaled planes
 * made with the first frame); byte for byte with the software ISP.
 */
TEST(vulkan_output_pipeline_bitexact)
{
	const uint32_t w = 96, h = 64;
	static const struct {
		struct cisp_output_config out[CISP_MAX_OUTPUTS];
		uint16_t crop[CISP_MAX_OUTPUTS][4]; /* x, y, width, height; width 0: none */
	} frames[] = {
		{ { { CISP_FMT_NV12, 40, 22 }, { CISP_FMT_NV12, 48, 32 } }, { { 56, 42, 40, 22 }, { 0 } } },
		{ { { CISP_FMT_RGB888, 67, 45 }, { CISP_FMT_I420, 30, 18 } }, { { 0 }, { 10, 4, 70, 52 } } },
		/* Outputs of the frame's size, one cropped: the scaled planes are made with the first frame. */
		{ { { CISP_FMT_RGB888, 96, 64 }, { CISP_FMT_NV12, 96, 64 } }, { { 0 }, { 8, 6, 48, 32 } } },
	};
	struct cisp_device *dev = NULL;
	struct vk_gpu *g = NULL;
	struct cisp_image in;
	struct cisp_param_state state;

	setenv("CISP_ISP", "vulkan", 1);
	CHECK_EQ(cisp_device_create(&dev, &(struct cisp_device_config){ .workers = 1 }), 0);
	unsetenv("CISP_ISP");
	CHECK_EQ(cisp_image_alloc(&in, CISP_FMT_SGRBG12P, w, h), 0);
	for (size_t i = 0; i < (size_t)in.plane[0].stride * h; i++)
		in.plane[0].data[i] = (uint8_t)test_rand();
	cisp_param_state_init(&state);
	state.wb.gain[0] = 8000;
	state.wb.gain[3] = 6000;
	state.csc.matrix = CISP_CSC_BT709;
	for (unsigned k = 0; dev && k < sizeof(frames) / sizeof(frames[0]); k++) {
		const struct cisp_isp_config cfg = { in.format, w, h, { frames[k].out[0], frames[k].out[1] }, NULL };
		struct cisp_image got[CISP_MAX_OUTPUTS], want[CISP_MAX_OUTPUTS];
		struct cisp_isp *isp = NULL;
		struct vk_rgb *rgb = NULL;
		int ret;

		state.crop_enabled = 0;
		for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
			const uint16_t *c = frames[k].crop[i];

			if (c[2]) {
				state.crop_enabled |= 1u << i;
				state.crop[i].x = c[0];
				state.crop[i].y = c[1];
				state.crop[i].width = c[2];
				state.crop[i].height = c[3];
			}
			CHECK_EQ(cisp_image_alloc(&got[i], cfg.output[i].format, cfg.output[i].width, cfg.output[i].height), 0);
			CHECK_EQ(cisp_image_alloc(&want[i], cfg.output[i].format, cfg.output[i].width, cfg.output[i].height), 0);
		}
		if (k == 1) {
			state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_CNR) | CISP_BLOCK_BIT(CISP_BLOCK_NOISE);
			for (int c = 0; c < 4; c++) {
				state.noise.a[c] = 1u << 22;
				state.noise.b[c] = 1u << 26;
			}
		}
		/* Whole on the GPU: the plan keeps the frame there and the context has an RGB side for these outputs. */
		CHECK(vulkan_plan_frame(&state, false).rgb);
		ret = test_device_frame(dev, &cfg, &state, &in,
					(struct cisp_image *const[CISP_MAX_OUTPUTS]){ &got[0], &got[1] }, NULL);
		if (ret == -ENODEV && !(g = open_gpu())) {
			k = sizeof(frames) / sizeof(frames[0]); /* no device: said so */
		} else if (ret) {
			test_fail(__FILE__, __LINE__, "the Vulkan backend's job: %s", cisp_last_error());
		} else {
			if ((g = g ? g : open_gpu())) {
				CHECK_EQ(vk_rgb_open(g, NULL, &cfg, &rgb), 0);
				CHECK(rgb != NULL);
				vk_rgb_destroy(rgb);
			}
			CHECK_EQ(cisp_isp_create(&isp, &cfg), 0);
			if (isp) {
				CHECK_EQ(cisp_isp_set_state(isp, &state, ~0u), 0);
				CHECK_EQ(cisp_isp_process(isp, &in,
							  (struct cisp_image *const[CISP_MAX_OUTPUTS]){ &want[0], &want[1] }, NULL,
							  NULL),
					 0);
				cisp_isp_destroy(isp);
			}
			for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
				if (!test_same_pixels(&got[i], &want[i]))
					test_fail(__FILE__, __LINE__, "frame %u: output %d (%s %ux%u) differs from the software ISP's",
						  k, i, cisp_format_name(cfg.output[i].format), cfg.output[i].width,
						  cfg.output[i].height);
		}
		for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
			cisp_image_free(&got[i]);
			cisp_image_free(&want[i]);
		}
	}
	vk_gpu_close(g);
	cisp_image_free(&in);
	cisp_device_destroy(dev);
}
#endif /* a build without Vulkan: test_vulkan_rgb.c says so */
