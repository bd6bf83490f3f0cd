/* SPDX-License-Identifier: MIT */
/*
 * Clipped highlights on the GPU (shaders/highlights.comp, docs/gpu.md): the
 * shader against cisp_highlights_rows() on random Bayer frames with clipped
 * samples, then whole frames with highlights on through a device with
 * CISP_ISP=vulkan, every stage on the GPU, against the software ISP byte for
 * byte, and `cisp develop --isp vulkan` against `cisp develop` on a real raw
 * dump with clipped highlights. Without a Vulkan device the tests say so
 * loudly and skip, unless CISP_REQUIRE_VULKAN=1 (CI): then that is a failure.
 */
#include <errno.h>
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
#include "device/vulkan_highlights.h"

/* The device, or NULL: no device is a failure where CI requires one, else a loud skip. */
static struct vk_gpu *open_gpu(void)
{
	return test_vulkan_gpu("the Vulkan backend's highlights are");
}

/*
 * A 16-bit Bayer frame (its unpack on the GPU is the identity): samples at 0
 * and 65535, random ones, and many in the top half where the colours clip
 * after the gains, in runs so that some pixels have a clipped neighbourhood
 * and others unclipped samples around to measure a colour from.
 */
static struct cisp_image clipped_bayer(uint32_t w, uint32_t h)
{
	struct cisp_image img;

	CHECK_EQ(cisp_image_alloc(&img, CISP_FMT_SRGGB16, w, h), 0);
	for (uint32_t y = 0; y < h; y++) {
		uint16_t *row = (uint16_t *)(img.plane[0].data + y * img.plane[0].stride);

		for (uint32_t x = 0; x < w; x++) {
			unsigned r = (unsigned)(test_rand() % 8);

			row[x] = (uint16_t)(r == 0 ? 0 : r == 1 ? 65535 : r == 2 ? test_rand() : 32768 + test_rand() % 32768);
			if ((x / 8 + y / 3) % 5 == 0)
				row[x] = (uint16_t)(test_rand() % 24000); /* a patch far below clipping */
		}
	}
	return img;
}

/* The parameters of trial @t: white and knee at their limits and random; gains 0, 65535 (16x) and random. */
static void trial_params(int t, struct cisp_highlights_params *hp, struct cisp_wb_params *wb)
{
	static const uint16_t whites[] = { 65535, 1024, 40000, 15520 }, knees[] = { 3686, 2048, 4032, 3000 };

	hp->white = t < 4 ? whites[t] : (uint16_t)(1024 + test_rand() % 64512);
	hp->knee = t < 4 ? knees[t] : (uint16_t)(2048 + test_rand() % 1985);
	for (int c = 0; c < 4; c++)
		wb->gain[c] = (uint16_t)(t == 1 ? 65535 : 4096 + test_rand() % 8192);
	if (t == 2) {
		wb->gain[CISP_CH_R] = 0; /* a colour that clips at 0 */
		wb->gain[CISP_CH_B] = 65535;
	}
	if (t == 3)
		wb->gain[CISP_CH_GB] = 3000; /* two greens with different clip levels: the lower counts */
}

/* Runs the shader on @f's plane @plane (the frame already there): 0 or an error, the result in the other plane. */
static int run_highlights(struct vk_gpu *g, struct vk_rgb *rgb, const struct vk_frame *f,
			  const struct cisp_highlights_coeffs *c, unsigned *plane)
{
	int ret = vk_commands_begin(rgb->cmd);

	if (ret || (ret = vk_highlights_record(rgb, f, c, plane)) || (ret = vk_commands_end(rgb->cmd)))
		return ret;
	return vk_gpu_run(g, rgb->cmd);
}

/*
 * The shader against cisp_highlights_rows() on every CFA order, in each mode,
 * white balance on and off, at the extremes of white, knee and the gains; on
 * frames of 4x4 to 258x10 (pair counts on both sides of the 64-pair
 * workgroup, odd ones), from either of the frame's planes.
 */
TEST(vulkan_highlights_bitexact)
{
	static const struct {
		uint32_t w, h;
	} sizes[] = { { 4, 4 }, { 6, 6 }, { 126, 4 }, { 130, 6 }, { 258, 10 } };
	const uint32_t none[CISP_MAX_OUTPUTS] = { 0 };
	struct vk_gpu *g = open_gpu();
	size_t moved = 0; /* samples the reference changed: the frames reach the stage's work */
	int trial = 0;

	for (unsigned s = 0; g && s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		const uint32_t w = sizes[s].w, h = sizes[s].h;
		uint16_t *want = malloc((size_t)w * h * 2);
		struct vk_frame *f = NULL;
		struct vk_rgb *rgb = NULL;

		CHECK_EQ(vk_frame_create(g, CISP_FMT_SRGGB16, w, h, &f), 0);
		if (f)
			CHECK_EQ(vk_rgb_create(g, w, h, f, none, &rgb), 0);
		for (int cfa = 0; rgb && cfa < 4; cfa++) {
			struct cisp_image img = clipped_bayer(w, h);
			const struct plane16 in = { (uint16_t *)img.plane[0].data, img.plane[0].stride / 2, 0, (int)w, (int)h, 0 };
			const struct plane16 out = { want, w, 0, (int)w, (int)h, 0 };

			for (int mode = 0; mode < 3; mode++, trial++) {
				/* White balance on and off in turn: each mode gets both over the CFA orders. */
				const int wb_on = (cfa + mode) & 1;
				/* Even trials leave the frame in plane 0 (the unpack), odd ones in plane 1 (and an identity white balance). */
				const unsigned n = 1 + (unsigned)(trial & 1);
				unsigned plane = n - 1;
				struct cisp_highlights_params hp = { .mode = (uint16_t)mode };
				struct cisp_wb_params wb;
				struct cisp_highlights_coeffs c;
				struct vk_step steps[2];
				const uint16_t *bayer, *got;

				trial_params(trial % 8, &hp, &wb);
				cisp_highlights_prepare(&c, &hp, wb_on ? &wb : NULL, (enum cisp_cfa)cfa);
				cisp_highlights_rows(&c, &in, &out, 0, (int)h);
				vk_step_unpack(f, &steps[0]);
				vk_step_wb(f, &(struct cisp_wb_coeffs){ .gain = { 4096, 4096, 4096, 4096 } }, &steps[1]);
				CHECK_EQ(vk_frame_run(f, &img, steps, n, &bayer), 0);
				CHECK_EQ(run_highlights(g, rgb, f, &c, &plane), 0);
				CHECK_EQ(plane, 2 - n);
				got = f->plane[plane].map;
				for (size_t i = 0; i < (size_t)w * h; i++) {
					moved += want[i] != in.base[(i / w) * (size_t)in.stride + i % w];
					if (got[i] != want[i]) {
						test_fail(__FILE__, __LINE__,
							  "%ux%u cfa %d mode %d wb %d (white %u knee %u): sample (%zu, %zu) is %u, "
							  "the reference's %u",
							  w, h, cfa, mode, wb_on, hp.white, hp.knee, i % w, i / w, got[i], want[i]);
						break;
					}
				}
			}
			cisp_image_free(&img);
		}
		vk_rgb_destroy(rgb);
		vk_frame_destroy(f);
		free(want);
	}
	CHECK(!g || moved > 10000);
	vk_gpu_close(g);
}

/* A frame of another size than the RGB side's is refused. */
TEST(vulkan_highlights_errors)
{
	const uint32_t none[CISP_MAX_OUTPUTS] = { 0 };
	struct cisp_highlights_coeffs c = { 0 };
	struct vk_gpu *g = open_gpu();
	struct vk_frame *f = NULL;
	struct vk_rgb *rgb = NULL;
	unsigned plane = 0;

	if (!g)
		return;
	CHECK_EQ(vk_frame_create(g, CISP_FMT_SRGGB16, 8, 4, &f), 0);
	CHECK_EQ(vk_rgb_create(g, 8, 6, NULL, none, &rgb), 0);
	if (f && rgb) {
		CHECK_ERR(vk_highlights_record(rgb, f, &c, &plane), -EINVAL, "highlights of a 8x4 frame on a 8x6 RGB side");
		CHECK_EQ(plane, 0);
	}
	vk_rgb_destroy(rgb);
	vk_frame_destroy(f);
	vk_gpu_close(g);
}

/*
 * Whole frames (132x20 RAW12 with clipped patches, black level, statistics,
 * RGB888 and NV12 outputs) with highlights in each mode after white balance
 * with gains above 1, and reconstruct without white balance, through a
 * device with CISP_ISP=vulkan, every stage on the GPU (white balance too),
 * against cisp_isp_process(), byte for byte with the statistics.
 */
TEST(vulkan_highlights_pipeline_bitexact)
{
	const uint32_t w = 132, h = 20;
	const struct cisp_isp_config cfg = { CISP_FMT_SGRBG12P, w, h, { { CISP_FMT_RGB888, w, h }, { CISP_FMT_NV12, w, h } },
					     NULL };
	struct cisp_device *dev = NULL;
	struct cisp_image in;
	struct cisp_param_state state;

	setenv("CISP_ISP", "vulkan", 1);
	CHECK_EQ(cisp_device_create(&dev, &(struct cisp_device_config){ .workers = 1 }), 0);
	unsetenv("CISP_ISP");
	CHECK_EQ(cisp_image_alloc(&in, cfg.input_format, w, h), 0);
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t i = 0; i < in.plane[0].stride; i++) /* clipped (all ones) in patches */
			in.plane[0].data[y * in.plane[0].stride + i] = (uint8_t)((i / 12 + y / 4) % 3 ? test_rand() : 0xff);
	cisp_param_state_init(&state);
	state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS);
	state.blc.black[0] = state.blc.black[1] = state.blc.black[2] = state.blc.black[3] = 4096;
	state.wb.gain[CISP_CH_R] = 8000;
	state.wb.gain[CISP_CH_B] = 6000;
	for (int k = 0; dev && k < 4; k++) {
		struct cisp_image got[2], want[2];
		struct cisp_stats got_stats, want_stats;
		struct cisp_isp *isp = NULL;
		int ret;

		state.highlights.mode = (uint16_t)(k < 3 ? k : CISP_HIGHLIGHTS_RECONSTRUCT);
		if (k == 3)
			state.enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_WB);
		CHECK(vulkan_plan_frame(&state, true).rgb);
		CHECK_EQ(vulkan_plan_frame(&state, true).wb, k < 3);
		memset(&got_stats, 0, sizeof(got_stats));
		memset(&want_stats, 0, sizeof(want_stats));
		for (int i = 0; i < 2; i++) {
			CHECK_EQ(cisp_image_alloc(&got[i], cfg.output[i].format, w, h), 0);
			CHECK_EQ(cisp_image_alloc(&want[i], cfg.output[i].format, w, h), 0);
		}
		ret = test_device_frame(dev, &cfg, &state, &in, (struct cisp_image *const[CISP_MAX_OUTPUTS]){ &got[0], &got[1] },
				   &got_stats);
		if (ret == -ENODEV && !open_gpu()) {
			k = 4; /* no device: said so */
		} else if (ret) {
			test_fail(__FILE__, __LINE__, "the Vulkan backend's job: %s", cisp_last_error());
		} else {
			CHECK_EQ(cisp_isp_create(&isp, &cfg), 0);
			if (isp) {
				CHECK_EQ(cisp_isp_set_state(isp, &state, ~0u), 0);
				CHECK_EQ(cisp_isp_process(isp, &in, (struct cisp_image *const[CISP_MAX_OUTPUTS]){ &want[0], &want[1] },
							  &want_stats, NULL),
					 0);
				cisp_isp_destroy(isp);
			}
			CHECK(!memcmp(&got_stats, &want_stats, sizeof(got_stats)));
			for (int i = 0; i < 2; i++)
				if (!test_same_pixels(&got[i], &want[i]))
					test_fail(__FILE__, __LINE__, "frame %d: output %d differs from the software ISP's", k, i);
		}
		for (int i = 0; i < 2; i++) {
			cisp_image_free(&got[i]);
			cisp_image_free(&want[i]);
		}
	}
	cisp_image_free(&in);
	cisp_device_destroy(dev);
}

/* The whole file at @path into a new buffer of *@size bytes, or NULL. */
static uint8_t *read_whole(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t n = 0, got;

	if (!f)
		return NULL;
	do {
		uint8_t *more = realloc(data, n + 65536);

		if (!more) {
			free(data);
			fclose(f);
			return NULL;
		}
		data = more;
		got = fread(data + n, 1, 65536, f);
		n += got;
	} while (got == 65536);
	fclose(f);
	*size = n;
	return data;
}

/*
 * `cisp develop --isp vulkan` on the 14-bit rose crop (517 clipped samples),
 * with its default highlights (clip) and defect correction on, writes the
 * same PPM as `cisp develop`, with the whole frame on the GPU (its debug log
 * says so).
 */
TEST(vulkan_highlights_develop_rose)
{
	static const char opts[] = "--size 768x512 --format SRGGB14 --black 600 --white 15520";
	char raw[600], path[2][700], args[2400], out[8192];
	uint8_t *file[2];
	size_t size[2] = { 0, 0 };
	struct vk_gpu *g = open_gpu();

	if (!g)
		return;
	vk_gpu_close(g);
	snprintf(raw, sizeof(raw), "%s/raw/nikon_rose_768x512_rggb14.raw", test_data_dir());
	for (int k = 0; k < 2; k++) {
		snprintf(path[k], sizeof(path[k]), "%s/rose-highlights-%s.ppm", test_tmp_dir(), k ? "vulkan" : "software");
		remove(path[k]);
		snprintf(args, sizeof(args), "develop '%s' %s%s -o '%s'", raw, opts, k ? " --isp vulkan" : "", path[k]);
		if (k)
			setenv("CISP_LOG", "debug", 1);
		CHECK_EQ(test_run_cisp(args, out, sizeof(out)), 0);
		unsetenv("CISP_LOG");
		if (k && !strstr(out, "and every later stage"))
			test_fail(__FILE__, __LINE__, "the frame did not stay whole on the GPU:\n%s", out);
		file[k] = read_whole(path[k], &size[k]);
		CHECK(file[k] != NULL);
	}
	CHECK(size[0] > 768 * 512 * 3);
	CHECK(file[0] && file[1] && size[0] == size[1] && !memcmp(file[0], file[1], size[0]));
	free(file[0]);
	free(file[1]);
}
#else
TEST(vulkan_highlights_not_built)
{
	test_no_vulkan("the Vulkan backend's highlights are", "this build has no Vulkan backend");
}
#endif
