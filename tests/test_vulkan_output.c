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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/log.h>
#include <cisp/params.h>
#include <cisp/params_state.h>

#include "test.h"

#ifdef CISP_VULKAN_BUILT
#include "device/vulkan_output.h"
#include "device/vulkan_rgb.h"
#include "isp/csc.h"
#include "isp/pack.h"
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
	struct cisp_image packed = { 0 };
	int n;

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
	/* No scaled planes before a frame needs them. */
	CHECK(!rgb->scaled.buffer);
	/* Widths of blocks of 8 are scaled and packed in one dispatch; RGB48 holds the samples as they are. */
	n = vk_output_steps(rgb, &state, 0, steps);
	CHECK_EQ(n, ow % 8 ? 2 : 1);
	CHECK_EQ(steps[0].shader, n == 1 ? VK_RGB_PACK_SCALED : VK_RGB_SCALE);
	/* Made for the two steps through them alone, at the output's size (the only one). */
	CHECK_EQ(!!rgb->scaled.buffer, n == 2);
	CHECK_EQ(rgb->scaled.size, n == 2 ? (VkDeviceSize)n_out * 4 : 0);
	CHECK(n == 1 || steps[1].source == VK_RGB_SCALED_TO_OUTPUT0);
	CHECK_EQ(vk_rgb_run(rgb, steps, 1), 0);
	if (n == 1) {
		CHECK_EQ(cisp_image_alloc(&packed, CISP_FMT_RGB48, ow, oh), 0);
		CHECK_EQ(vk_rgb_unload(rgb, 0, &packed), 0);
	}
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
		const size_t c = i / ((size_t)ow * oh), j = i / ow % oh, x = i % ow;
		const uint32_t got = n == 2 ? ((const uint32_t *)rgb->scaled.map)[i]
					    : packed.plane[0].data[j * packed.plane[0].stride + (x * 3 + c) * 2] |
						      (uint32_t)packed.plane[0].data[j * packed.plane[0].stride + (x * 3 + c) * 2 + 1] << 8;

		if (got != want[i]) {
			test_fail(__FILE__, __LINE__, "case %u (%ux%u of %ux%u to %ux%u%s): sample %zu is %u, the reference's %u",
				  k, cw, ch, w, h, ow, oh, bright ? ", all 65535" : "", i, got, want[i]);
			break;
		}
	}
out:
	cisp_image_free(&packed);
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

/* The device memory of @rgb's buffers: the planes, the tables, the scaled planes and the outputs' own. */
static VkDeviceSize held_bytes(const struct vk_rgb *rgb)
{
	VkDeviceSize n = rgb->planes.size + rgb->tables.size + rgb->scaled.size;

	for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
		n += rgb->out[i].size;
	return n;
}

/*
 * The scaled planes are made only for an output that scales through them (a
 * width not of blocks of 8), with its first frame: a 1920x1080 frame with a
 * 1280x720 NV12 output and one of the frame's size holds none, scaled or
 * cropped, where it held 1280 x 720 x 3 words before; with a 1276x720 one it
 * holds them from that output's first scaled frame, at that output's size.
 */
TEST(vulkan_output_scaled_planes_on_need)
{
	const uint32_t w = 1920, h = 1080;
	const struct cisp_output_config blocks[CISP_MAX_OUTPUTS] = { { CISP_FMT_NV12, 1280, 720 },
								     { CISP_FMT_RGB888, w, h } };
	const struct cisp_output_config odd[CISP_MAX_OUTPUTS] = { { CISP_FMT_NV12, 1276, 720 } };
	struct vk_gpu *g = open_gpu();
	struct vk_rgb *rgb = NULL;
	struct vk_rgb_step steps[2];
	struct cisp_param_state state;
	VkDeviceSize held;

	cisp_param_state_init(&state);
	if (!g || vk_rgb_create_outputs(g, w, h, NULL, blocks, &rgb)) {
		CHECK(!g); /* a device that cannot hold a 1080p frame's planes fails here */
		goto out;
	}
	held = held_bytes(rgb);
	CHECK_EQ(rgb->scaled_words, 0);
	CHECK_EQ(vk_output_steps(rgb, &state, 0, steps), 1);
	state.crop_enabled = 2; /* output 1 cropped: scaled back to the frame's width, a multiple of 8 */
	state.crop[1] = (struct cisp_crop_params){ state.crop[1].header, 1, 0, 8, 4, 1280, 720, 0 };
	CHECK_EQ(vk_output_steps(rgb, &state, 1, steps), 1);
	CHECK_EQ(vk_rgb_run(rgb, steps, 1), 0);
	CHECK(!rgb->scaled.buffer);
	CHECK_EQ(held_bytes(rgb), held);
	printf("  1920x1080 to NV12 1280x720 and RGB888 1920x1080 cropped: %llu bytes on the device, %llu fewer "
	       "(the scaled planes) than when they were made for any scaled output\n",
	       (unsigned long long)held, 1280ull * 720 * 3 * 4);
	vk_rgb_destroy(rgb);
	rgb = NULL;
	state.crop_enabled = 0;
	CHECK_EQ(vk_rgb_create_outputs(g, w, h, NULL, odd, &rgb), 0);
	if (!rgb)
		goto out;
	held = held_bytes(rgb);
	CHECK_EQ(rgb->scaled_words, 1276ull * 720 * 3);
	CHECK(!rgb->scaled.buffer);
	CHECK_EQ(vk_output_steps(rgb, &state, 0, steps), 2);
	CHECK_EQ(held_bytes(rgb), held + 1276ull * 720 * 3 * 4);
out:
	vk_rgb_destroy(rgb);
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
	const struct cisp_output_config out[CISP_MAX_OUTPUTS] = { { CISP_FMT_RGB48, 15, 10 }, { CISP_FMT_NV12, w, h } };
	static const uint16_t windows[][4] = { { 0, 0, 48, 20 }, { 32, 10, 16, 10 }, { 2, 4, 40, 14 }, { 2, 4, 40, 14 } };
	struct vk_gpu *g = open_gpu();
	struct vk_rgb *rgb = NULL;
	uint16_t *in = malloc(sizeof(uint16_t) * w * h * 3), want[15 * 10 * 3]; /* 15 wide: through the scaled planes */
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
		struct rgb16 from = as_rgb16(in, w, h), to = as_rgb16(want, 15, 10);

		state.crop_enabled = 1;
		state.crop[0].x = windows[k][0];
		state.crop[0].y = windows[k][1];
		state.crop[0].width = windows[k][2];
		state.crop[0].height = windows[k][3];
		CHECK_EQ(vk_output_steps(rgb, &state, 0, steps), 2);
		CHECK_EQ(vk_rgb_run(rgb, steps, 1), 0);
		CHECK_EQ(cisp_scaler_create(&sc, windows[k][2], windows[k][3], 15, 10), 0);
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
	/* Two columns in, it is scaled, and packed in the same dispatch (48 wide: blocks of 8). */
	state.crop[1].x = 2;
	state.crop[1].width = w - 2;
	CHECK_EQ(vk_output_steps(rgb, &state, 1, steps), 1);
	CHECK_EQ(steps[0].shader, VK_RGB_PACK_SCALED);
	CHECK_EQ(steps[0].source, VK_RGB_TO_OUTPUT0 + 1);
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
	/* Outputs of no size, or whose scaled planes (not 8-wide blocks) the device's storage buffers cannot hold. */
	CHECK_ERR(vk_rgb_create_outputs(g, w, h, NULL,
					(const struct cisp_output_config[CISP_MAX_OUTPUTS]){ { CISP_FMT_RGB48, 0, 4 } }, &rgb),
		  -EINVAL, "no 0x4 output");
	vkGetPhysicalDeviceProperties(g->physical, &props);
	if (props.limits.maxStorageBufferRange < 12ull * CISP_MAX_DIMENSION * CISP_MAX_DIMENSION)
		CHECK_ERR(vk_rgb_create_outputs(g, w, h, NULL,
						(const struct cisp_output_config[CISP_MAX_OUTPUTS]){
							{ CISP_FMT_RGB48, CISP_MAX_DIMENSION - 1, CISP_MAX_DIMENSION } },
						&rgb),
			  -E2BIG, "the scaled planes of the outputs are over");
out:
	vk_rgb_destroy(rgb);
	vk_gpu_close(g);
	free(in);
}

/* Image layouts for the packing in place: bytes past a word, each row's padding, bytes between planes (-1: two import blocks). */
static const struct {
	unsigned shift, pad;
	int gap;
} layouts[] = {
	{ 0, 0, 0 },  /* tightly packed (cisp_image_wrap()) */
	{ 0, 8, 0 },  /* rows padded to a word and 8 bytes more */
	{ 0, 4, 0 },  /* rows padded by 4 bytes: words of one row's end, its padding and the next row's start */
	{ 1, 0, 0 },  /* a byte past a word */
	{ 0, 8, -1 }, /* planes two import blocks apart */
};
#define LAYOUTS (sizeof(layouts) / sizeof(layouts[0]))
#define ARENA (64 * 1024)
#define GUARD 0xa5

/*
 * A @format image of @w x @h in @arena (a page-aligned block of ARENA bytes
 * at GUARD) in layout @k, whose bytes outside the planes' rows are marked 0
 * in @inside (1 inside). Returns whether its planes can be written in place
 * (vk_output_place(): each plane's first byte and the end of its last row
 * at a word, for @whole_words its stride too, the planes less than a block
 * apart).
 */
static bool layout_image(uint8_t *arena, uint8_t *inside, unsigned k, uint32_t format, uint32_t w, uint32_t h,
			 bool whole_words, size_t block, struct cisp_image *img)
{
	uint8_t *at = arena + 256 + layouts[k].shift;
	bool words = layouts[k].shift % 4 == 0;
	size_t row, rows;

	memset(arena, GUARD, ARENA);
	memset(inside, 0, ARENA);
	memset(img, 0, sizeof(*img));
	img->format = format;
	img->width = w;
	img->height = h;
	for (unsigned p = 0; p < 3 && !cisp_image_plane_size(format, w, h, p, &row, &rows); p++) {
		const size_t stride = layouts[k].pad == 8 ? ((row + 3) & ~(size_t)3) + 8 : row + layouts[k].pad;

		img->plane[p] = (struct cisp_plane){ at, stride };
		img->num_planes = p + 1;
		words &= (size_t)(at - arena) % 4 == 0 && (stride * (rows - 1) + row) % 4 == 0 &&
			 (!whole_words || stride % 4 == 0);
		for (size_t y = 0; y < rows; y++)
			memset(inside + (at - arena) + y * stride, 1, row);
		at += stride * rows + (layouts[k].gap < 0 ? 2 * block : (size_t)layouts[k].gap);
	}
	CHECK((size_t)(at - arena) < ARENA);
	return words && (layouts[k].gap >= 0 || img->num_planes == 1);
}

/*
 * Every output format packed into images of each layout, written in place
 * where the device imports them (the count of outputs in place says which
 * path ran) and copied otherwise, on odd sizes; 4:2:0 ones also by
 * pack_fused.comp after the conversion, on a width that is a multiple of 8:
 * the planes' bytes the reference's (cisp_pack_rows(), after cisp_csc_rows()
 * for pack_fused), every other byte of the block as it was.
 */
TEST(vulkan_output_in_place)
{
	static const uint32_t formats[] = { CISP_FMT_NV12, CISP_FMT_I420, CISP_FMT_RGB888, CISP_FMT_XBGR32, CISP_FMT_RGB48 };
	static const uint32_t sizes[][2] = { { 33, 4 }, { 24, 5 } };
	const struct cisp_csc_params csc = { .matrix = CISP_CSC_BT709, .range = 1 };
	struct vk_gpu *g = open_gpu();
	uint8_t *arena = aligned_alloc(4096, ARENA), *inside = malloc(ARENA);
	unsigned in_place = 0; /* images written in place */

	CHECK(arena && inside);
	for (unsigned f = 0; g && arena && inside && f < sizeof(formats) / sizeof(formats[0]); f++) {
		for (unsigned s = 0; s < 2; s++) {
			const uint32_t w = sizes[s][0], h = sizes[s][1], out[CISP_MAX_OUTPUTS] = { formats[f] };
			const bool fused = formats[f] == CISP_FMT_NV12 || formats[f] == CISP_FMT_I420;
			uint16_t *planes = malloc((size_t)w * h * 3 * 2);
			struct rgb16 ref = as_rgb16(planes, w, h);
			struct vk_rgb *rgb = NULL;
			struct cisp_image want;

			CHECK_EQ(vk_rgb_create(g, w, h, NULL, out, &rgb), 0);
			CHECK_EQ(cisp_image_alloc(&want, formats[f], w, h), 0);
			if (!rgb || !planes)
				goto next;
			random_planes(rgb, planes, false);
			/* pack_fused.comp on the 24-wide frame (the conversion in it), pack.comp on the other. */
			if (s == 1 && fused)
				cisp_csc_rows(&csc, &ref, &ref, 0, (int)h);
			cisp_pack_rows(&ref, &want, 0, (int)h);
			for (unsigned k = 0; k < LAYOUTS; k++) {
				const unsigned long before = rgb->outputs_in_place;
				struct cisp_image img;
				const bool expect = layout_image(arena, inside, k, formats[f], w, h, s == 1 && fused,
								 g->host_import_align, &img) &&
						    g->host_import;
				struct vk_rgb_step step, csc_step;
				int placed = vk_output_place(rgb, 0, &img);

				CHECK_EQ(placed, expect);
				in_place += placed == 1;
				if (s == 1 && fused) {
					vk_rgb_step_csc(rgb, &csc, &csc_step);
					vk_rgb_step_pack_fused(rgb, 0, &(struct vk_rgb_step){ .push_size = 0 }, &step);
				} else {
					vk_rgb_step_pack(rgb, 0, &step);
				}
				CHECK_EQ(vk_rgb_run(rgb, &step, 1), 0);
				if (!placed)
					CHECK_EQ(vk_rgb_unload(rgb, 0, &img), 0);
				vk_output_release(rgb);
				CHECK_EQ(rgb->outputs_in_place - before, (unsigned long)expect);
				CHECK(rgb->place[0].imported.buffer == NULL);
				if (!test_same_pixels(&img, &want))
					test_fail(__FILE__, __LINE__, "%ux%u %s, layout %u (%s): not the reference's bytes", w, h,
						  cisp_format_name(formats[f]), k, placed ? "in place" : "copied");
				for (size_t b = 0; b < ARENA; b++)
					if (!inside[b] && arena[b] != GUARD) {
						test_fail(__FILE__, __LINE__, "%ux%u %s, layout %u: byte %zu outside the planes written",
							  w, h, cisp_format_name(formats[f]), k, b);
						break;
					}
			}
next:
			cisp_image_free(&want);
			vk_rgb_destroy(rgb);
			free(planes);
		}
	}
	/* 28 of the 50 images are written in place where the device imports host memory (lavapipe does). */
	CHECK_EQ(in_place, g && g->host_import ? 28u : 0u);
	/* An image of another size is refused before anything runs. */
	if (g) {
		struct vk_rgb *rgb = NULL;
		struct cisp_image img;

		CHECK_EQ(vk_rgb_create(g, 8, 4, NULL, (const uint32_t[CISP_MAX_OUTPUTS]){ CISP_FMT_NV12 }, &rgb), 0);
		CHECK_EQ(cisp_image_alloc(&img, CISP_FMT_NV12, 8, 6), 0);
		if (rgb)
			CHECK_ERR(vk_output_place(rgb, 0, &img), -EINVAL, "a 8x6 NV12 image for output 0");
		cisp_image_free(&img);
		vk_rgb_destroy(rgb);
	}
	free(arena);
	free(inside);
	vk_gpu_close(g);
}

/* Where the backend said output 0 and output 1 went (its debug messages): bit 0 in place, bit 1 copied. */
static void catch_place(enum cisp_log_level level, const char *message, void *opaque)
{
	unsigned *seen = opaque;
	const char *at = strstr(message, "Vulkan backend: output ");

	if (at && (at[23] == '0' || at[23] == '1'))
		seen[at[23] - '0'] |= strstr(message, "where it is") ? 1u : strstr(message, "copied") ? 2u : 0u;
	if (level <= CISP_LOG_WARN)
		fprintf(stderr, "cisp: %s\n", message);
}

/*
 * Whole frames on a device with CISP_ISP=vulkan, whole on the GPU (the plan
 * keeps them there and the context has an RGB side): a cropped NV12 output at
 * the frame's bottom right beside a half-size NV12 one; a scaled RGB888
 * output beside a cropped and scaled I420 one (chroma denoise on, before
 * the crop); two outputs of the frame's size, one cropped (the scaled planes
 * made with the first frame); byte for byte with the software ISP. Output 0
 * is an image of cisp_image_alloc(), packed in place where the device
 * imports host memory and its planes end at a word; output 1 starts a byte
 * past a word, and is copied.
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
	unsigned seen[2] = { 0, 0 };

	cisp_log_set_level(CISP_LOG_DEBUG);
	cisp_log_set_sink(catch_place, seen);
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
		uint8_t *unaligned = NULL; /* output 1's bytes, a byte past a word */
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
		{
			const size_t size = cisp_image_packed_size(cfg.output[1].format, cfg.output[1].width, cfg.output[1].height);

			cisp_image_free(&got[1]);
			unaligned = malloc(size + 1);
			CHECK(unaligned != NULL);
			if (unaligned)
				CHECK_EQ(cisp_image_wrap(&got[1], cfg.output[1].format, cfg.output[1].width,
							 cfg.output[1].height, unaligned + 1, size),
					 0);
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
		free(unaligned);
	}
	cisp_log_set_sink(NULL, NULL);
	cisp_log_set_level(CISP_LOG_WARN);
	if (g) {
		/* In place but for the 67-wide RGB888 image, whose last row ends past a word. */
		CHECK_EQ(seen[0], g->host_import ? 3u : 2u);
		CHECK_EQ(seen[1], 2u);
	}
	vk_gpu_close(g);
	cisp_image_free(&in);
	cisp_device_destroy(dev);
}
#endif /* a build without Vulkan: test_vulkan_rgb.c says so */
