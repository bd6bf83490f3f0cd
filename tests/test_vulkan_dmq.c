/* SPDX-License-Identifier: MIT */
/*
 * The quality demosaic on the GPU (docs/gpu.md, "The quality demosaic"):
 * each pass of shaders/dmq_*.comp against the C rows of
 * src/isp/demosaic_quality_row.c on random Bayer frames of every CFA order
 * (each pass given the C output of the pass before, so each is checked
 * alone; dh and the leave-one-out errors against their C functions too),
 * then whole frames with the quality demosaic through a device with
 * CISP_ISP=vulkan, every stage on the GPU, against the software ISP, byte
 * for byte. Without a Vulkan device the tests say so loudly and skip,
 * unless CISP_REQUIRE_VULKAN=1 (CI): then that is a failure.
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
#include "device/vulkan_dmq.h"
#include "device/vulkan_rgb.h"
#include "isp/demosaic_quality.h"

/* No device is a failure where CI requires one, else a loud skip; NULL then. */
static struct vk_gpu *open_gpu(void)
{
	return test_vulkan_gpu("the quality demosaic on the GPU is");
}

enum pattern { P_RANDOM, P_EXTREMES, P_MAX, P_STRIPES, P_COUNT };

/* A 16-bit Bayer frame of @pattern: random, only 0 and 65535, all 65535, fine stripes of 65535 and dark noise. */
static struct cisp_image bayer_frame(uint32_t w, uint32_t h, enum pattern k)
{
	struct cisp_image img;

	CHECK_EQ(cisp_image_alloc(&img, CISP_FMT_SRGGB16, w, h), 0);
	for (uint32_t y = 0; y < h; y++) {
		uint16_t *row = (uint16_t *)(img.plane[0].data + y * img.plane[0].stride);

		for (uint32_t x = 0; x < w; x++)
			row[x] = (uint16_t)(k == P_EXTREMES ? (test_rand() & 1 ? 65535 : 0)
					    : k == P_MAX     ? 65535
					    : k == P_STRIPES ? (((x / 2 + y) & 1) ? 65535 : test_rand() & 1023)
							     : test_rand());
	}
	return img;
}

static struct plane16 plane_of(uint16_t *p, uint32_t w, uint32_t h)
{
	return (struct plane16){ p, (int)w, 0, (int)w, (int)h, 0 };
}

/* Plane @c of the RGB side's planes against @want: true when equal, else says where. */
static bool plane_same(const struct vk_rgb *rgb, int c, const uint16_t *want, const char *what, int cfa)
{
	const size_t n = (size_t)rgb->width * rgb->height;
	const uint32_t *got = (const uint32_t *)rgb->planes.map + c * n;

	for (size_t i = 0; i < n; i++) {
		if (got[i] != want[i]) {
			test_fail(__FILE__, __LINE__, "%s, %ux%u CFA %d: pixel (%zu, %zu) is %u, the reference's %u", what,
				  rgb->width, rgb->height, cfa, i % rgb->width, i / rgb->width, got[i], want[i]);
			return false;
		}
	}
	return true;
}

/* @want into plane @c of the RGB side's planes. */
static void plane_load(struct vk_rgb *rgb, int c, const uint16_t *want)
{
	const size_t n = (size_t)rgb->width * rgb->height;
	uint32_t *to = (uint32_t *)rgb->planes.map + c * n;

	for (size_t i = 0; i < n; i++)
		to[i] = want[i];
}

/*
 * The scratch against the C functions of every row: dh (@green NULL), or
 * the leave-one-out errors on @green. True when equal.
 */
static bool scratch_same(const struct vk_dmq *d, const struct plane16 *bayer, const struct plane16 *green,
			 enum cisp_cfa cfa)
{
	const int w = (int)d->width, h = (int)d->height;
	const int32_t *s = d->scratch.map;
	int32_t *ecd = malloc((size_t)w * 4 * 2), *eown = ecd + w;
	bool same = true;

	for (int y = 0; y < h && same; y++) {
		const int rbx = cisp_dmq_rb_column(cfa, y);
		const int32_t *got0, *got1;

		if (green) {
			const uint16_t *mr[3] = { plane_row(bayer, mirror(y - 2, h)), plane_row(bayer, y),
						  plane_row(bayer, mirror(y + 2, h)) };
			const uint16_t *gr[3] = { plane_row(green, mirror(y - 2, h)), plane_row(green, y),
						  plane_row(green, mirror(y + 2, h)) };

			cisp_dmq_loo_range(mr, gr, w, rbx, ecd, eown, 0, w);
			got0 = s + ((size_t)VK_DMQ_ECD * h + y) * w;
			got1 = s + ((size_t)VK_DMQ_EOWN * h + y) * w;
		} else {
			cisp_dmq_diff_h_range(plane_row(bayer, y), w, rbx, ecd, 0, w);
			got0 = s + ((size_t)VK_DMQ_DH * h + y) * w;
			got1 = NULL;
		}
		for (int x = 0; x < w && same; x++) {
			if (got0[x] != ecd[x] || (got1 && got1[x] != eown[x])) {
				test_fail(__FILE__, __LINE__, "%s, %dx%d CFA %d: pixel (%d, %d) differs from the C function's",
					  green ? "the leave-one-out errors" : "dh", w, h, cfa, x, y);
				same = false;
			}
		}
	}
	free(ecd);
	return same;
}

/*
 * Each pass on frames of every CFA order and pattern against the C rows,
 * which run in chunks of random rows; widths down to 4 (the C scratch rows
 * then reflect more than once) and on both sides of the 64-pixel
 * workgroup, heights down to 8 (the C rows reflect once, reading 7 rows
 * away), heights that are not a multiple of the CPU's band (16 rows);
 * false-colour strengths 0, 256 and above it (taken as 256) and between.
 */
TEST(vulkan_dmq_passes_bitexact)
{
	static const struct {
		uint32_t w, h;
	} sizes[] = { { 4, 8 }, { 66, 8 }, { 130, 18 }, { 258, 10 }, { 62, 34 } };
	static const unsigned false_colour[] = { 0, 256, 300, 200, 77 };
	const uint32_t none[CISP_MAX_OUTPUTS] = { 0 };
	struct vk_gpu *g = open_gpu();
	int trial = 0;

	for (unsigned s = 0; g && s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		const uint32_t w = sizes[s].w, h = sizes[s].h, n = w * h;
		uint16_t *ref = malloc((size_t)n * 2 * 5), *gc = ref, *g2 = ref + n, *gg = ref + 2 * n;
		struct rgb16 out = { { plane_of(ref + 3 * n, w, h), plane_of(gg, w, h), plane_of(ref + 4 * n, w, h) } };
		const struct plane16 pgc = plane_of(gc, w, h), pg2 = plane_of(g2, w, h);
		void *scratch = malloc(cisp_dmq_scratch_size((int)w, (int)h));
		struct vk_frame *f = NULL;
		struct vk_rgb *rgb = NULL;
		struct vk_dmq *dmq = NULL;

		CHECK_EQ(vk_frame_create(g, CISP_FMT_SRGGB16, w, h, &f), 0);
		if (f)
			CHECK_EQ(vk_rgb_create(g, w, h, f, none, &rgb), 0);
		if (rgb)
			CHECK_EQ(vk_dmq_create(g, f, &rgb->planes, &dmq), 0);
		/* Each CFA order with two patterns a size, and with each pattern over the sizes. */
		for (int k = 0; dmq && k < 8; k++, trial++) {
			const enum cisp_cfa cfa = (enum cisp_cfa)(k % 4);
			const unsigned fc = false_colour[trial % 5];
			struct cisp_image img = bayer_frame(w, h, (enum pattern)((k / 4 * 2 + k + (int)s) % P_COUNT));
			const struct plane16 bayer = { (uint16_t *)img.plane[0].data, img.plane[0].stride / 2, 0, (int)w,
						       (int)h, 0 };
			struct vk_step unpack;
			const uint16_t *loaded;

			for (int y = 0, e; y < (int)h; y = e) {
				e = y + 1 + (int)(test_rand() % 12);
				e = e > (int)h ? (int)h : e;
				cisp_dmq_green_rows(&bayer, cfa, &pgc, &pg2, y, e, scratch);
			}
			for (int y = 0, e; y < (int)h; y = e) {
				e = y + 1 + (int)(test_rand() % 12);
				e = e > (int)h ? (int)h : e;
				cisp_dmq_blend_rows(&bayer, &pgc, &pg2, cfa, &out.c[1], y, e, scratch);
			}
			for (int y = 0, e; y < (int)h; y = e) {
				e = y + 1 + (int)(test_rand() % 12);
				e = e > (int)h ? (int)h : e;
				cisp_dmq_colour_rows(&bayer, &out.c[1], cfa, fc, &out, y, e, scratch);
			}
			/* The unpack of a 16-bit frame is the identity: the samples in the Bayer frame's plane 0. */
			vk_step_unpack(f, &unpack);
			CHECK_EQ(vk_frame_run(f, &img, &unpack, 1, &loaded), 0);
			/* Pass 1: dh against its C function (the scratch keeps it until pass 3), the two greens. */
			CHECK_EQ(vk_dmq_run(dmq, cfa, 0, fc, VK_DMQ_DIFF, VK_DMQ_LOO_PASS1), 0);
			CHECK(scratch_same(dmq, &bayer, NULL, cfa));
			CHECK(plane_same(rgb, 0, gc, "pass 1's colour-difference green", (int)cfa));
			CHECK(plane_same(rgb, 2, g2, "pass 1's green from the green samples", (int)cfa));
			/* Pass 2 from the C greens: the errors, the green. */
			plane_load(rgb, 0, gc);
			plane_load(rgb, 2, g2);
			CHECK_EQ(vk_dmq_run(dmq, cfa, 0, fc, VK_DMQ_LOO_PASS1, VK_DMQ_LOO_GREEN), 0);
			CHECK(scratch_same(dmq, &bayer, &pgc, cfa));
			CHECK(plane_same(rgb, 1, gg, "pass 2's green", (int)cfa));
			/* Pass 3 from the C green: the errors (kept by its later steps), red and blue. */
			plane_load(rgb, 1, gg);
			CHECK_EQ(vk_dmq_run(dmq, cfa, 0, fc, VK_DMQ_LOO_GREEN, VK_DMQ_STEP_COUNT), 0);
			CHECK(scratch_same(dmq, &bayer, &out.c[1], cfa));
			CHECK(plane_same(rgb, 0, ref + 3 * n, "pass 3's red", (int)cfa));
			CHECK(plane_same(rgb, 2, ref + 4 * n, "pass 3's blue", (int)cfa));
			cisp_image_free(&img);
		}
		vk_dmq_destroy(dmq);
		vk_rgb_destroy(rgb);
		vk_frame_destroy(f);
		free(scratch);
		free(ref);
	}
	vk_gpu_close(g);
}

/*
 * Whole frames with the quality demosaic on a device with CISP_ISP=vulkan,
 * every stage on the GPU (black level, lens shading, white balance, the
 * quality demosaic, a matrix, a tone curve, the conversion and packing;
 * sharpening in the second), against cisp_isp_process(), byte for byte: a
 * 12-bit GRBG frame with false-colour suppression 200, a 16-bit BGGR one at
 * full strength; heights that are not a multiple of the CPU's bands.
 */
TEST(vulkan_dmq_pipeline_bitexact)
{
	static const struct {
		uint32_t format, w, h, out, false_colour;
	} frames[] = { { CISP_FMT_SGRBG12P, 68, 36, CISP_FMT_NV12, 200 }, { CISP_FMT_SBGGR16, 130, 22, CISP_FMT_RGB48, 256 } };
	struct cisp_device *dev = NULL;
	struct cisp_param_state state;

	setenv("CISP_ISP", "vulkan", 1);
	CHECK_EQ(cisp_device_create(&dev, &(struct cisp_device_config){ .workers = 1 }), 0);
	unsetenv("CISP_ISP");
	cisp_param_state_init(&state);
	state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_LSC);
	state.blc.black[0] = state.blc.black[1] = state.blc.black[3] = 4096;
	state.blc.black[2] = 4300;
	state.wb.gain[0] = 8000;
	state.wb.gain[3] = 6000;
	state.lsc.grid_w = state.lsc.grid_h = 3;
	for (int i = 0; i < 4 * 9; i++)
		state.lsc.gain[i] = (uint16_t)(4096 + test_rand() % 4096);
	state.demosaic.algorithm = CISP_DEMOSAIC_QUALITY;
	state.tone.transfer = CISP_TRANSFER_SRGB;
	for (unsigned k = 0; dev && k < sizeof(frames) / sizeof(frames[0]); k++) {
		const uint32_t w = frames[k].w, h = frames[k].h;
		const struct cisp_isp_config cfg = { frames[k].format, w, h, { { frames[k].out, w, h } }, NULL };
		struct cisp_image in, got, want;
		struct cisp_isp *isp = NULL;
		int ret;

		state.demosaic.false_colour = (uint16_t)frames[k].false_colour;
		if (k == 1) {
			state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN);
			state.sharpen.strength = 2048;
			state.sharpen.coring = 100;
			state.sharpen.limit = 30000;
		}
		/* The whole frame stays on the GPU. */
		CHECK(vulkan_plan_frame(&state, false).rgb);
		CHECK_EQ(cisp_image_alloc(&in, cfg.input_format, w, h), 0);
		CHECK_EQ(cisp_image_alloc(&got, cfg.output[0].format, w, h), 0);
		CHECK_EQ(cisp_image_alloc(&want, cfg.output[0].format, w, h), 0);
		for (size_t i = 0; i < (size_t)in.plane[0].stride * h; i++)
			in.plane[0].data[i] = (uint8_t)(i % 7 == 0 ? 0xff : test_rand());
		ret = test_device_frame(dev, &cfg, &state, &in, (struct cisp_image *const[CISP_MAX_OUTPUTS]){ &got }, NULL);
		if (ret == -ENODEV && !open_gpu())
			k = sizeof(frames) / sizeof(frames[0]); /* no device: said so */
		else if (ret)
			test_fail(__FILE__, __LINE__, "the Vulkan backend's job: %s", cisp_last_error());
		else {
			CHECK_EQ(cisp_isp_create(&isp, &cfg), 0);
			CHECK_EQ(cisp_isp_set_state(isp, &state, ~0u), 0);
			CHECK_EQ(cisp_isp_process(isp, &in, (struct cisp_image *const[CISP_MAX_OUTPUTS]){ &want }, NULL, NULL), 0);
			cisp_isp_destroy(isp);
			if (!test_same_pixels(&got, &want))
				test_fail(__FILE__, __LINE__, "frame %u (%s) differs from the software ISP's", k,
					  cisp_format_name(cfg.output[0].format));
		}
		cisp_image_free(&in);
		cisp_image_free(&got);
		cisp_image_free(&want);
	}
	cisp_device_destroy(dev);
}
#else
TEST(vulkan_dmq_not_built)
{
	const char *require = getenv("CISP_REQUIRE_VULKAN");

	if (require && !strcmp(require, "1"))
		test_fail(__FILE__, __LINE__, "CISP_REQUIRE_VULKAN=1 and this build has no Vulkan backend");
	else
		test_skip("NO VULKAN DEVICE, the quality demosaic on the GPU is NOT tested: this build has no Vulkan backend");
}
#endif
