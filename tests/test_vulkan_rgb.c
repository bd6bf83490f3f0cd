/* SPDX-License-Identifier: MIT */
/*
 * The RGB side of the Vulkan backend (docs/gpu.md, "The RGB side"): each
 * shader against the C reference on random inputs of several sizes and at
 * the extremes of its coefficients, then whole frames through a device with
 * CISP_ISP=vulkan, every stage on the GPU, against the software ISP, byte
 * for byte. Without a Vulkan device the tests say so loudly and skip, unless
 * CISP_REQUIRE_VULKAN=1 (CI): then that is a failure.
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
#include "isp/csc.h"
#include "isp/demosaic.h"
#include "isp/lut3d.h"
#include "isp/pack.h"
#include "isp/sharpen.h"
#include "isp/tone.h"

/* Sizes: odd widths and heights, widths that are not a multiple of the 64-pixel workgroup, one pixel. */
static const struct {
	uint32_t w, h;
} sizes[] = { { 1, 1 }, { 3, 5 }, { 65, 3 }, { 130, 4 }, { 257, 7 } };
#define SIZES (sizeof(sizes) / sizeof(sizes[0]))

/* No device is a failure where CI requires one, else a loud skip; NULL then. */
static struct vk_gpu *open_gpu(void)
{
	return test_vulkan_gpu("the Vulkan backend's RGB side is");
}

/* Three planes of w x h random samples, a few at the ends of the range, in @rgb's planes and in @copy. */
static void random_planes(struct vk_rgb *rgb, uint16_t *copy)
{
	const size_t n = (size_t)rgb->width * rgb->height * 3;
	uint32_t *words = rgb->planes.map;

	for (size_t i = 0; i < n; i++) {
		copy[i] = (uint16_t)(i % 11 == 0 ? 65535 : i % 13 == 0 ? 0 : test_rand());
		words[i] = copy[i];
	}
}

/* The planes of @rgb against @want (3 x w x h): 0, or the first wrong index + 1. */
static size_t planes_differ(const struct vk_rgb *rgb, const uint16_t *want)
{
	const size_t n = (size_t)rgb->width * rgb->height * 3;
	const uint32_t *got = rgb->planes.map;

	for (size_t i = 0; i < n; i++) {
		if (got[i] != want[i]) {
			fprintf(stderr, "  %ux%u: sample %zu (plane %zu) is %u, the reference's %u\n", rgb->width, rgb->height,
				i, i / ((size_t)rgb->width * rgb->height), got[i], want[i]);
			return i + 1;
		}
	}
	return 0;
}

/* The reference's planes of @p (3 planes of w x h, packed) as a struct rgb16. */
static struct rgb16 as_rgb16(uint16_t *p, uint32_t w, uint32_t h)
{
	struct rgb16 v;

	for (int c = 0; c < 3; c++)
		v.c[c] = (struct plane16){ p + (size_t)c * w * h, (int)w, 0, (int)w, (int)h, 0 };
	return v;
}

/* An RGB side of @w x @h without a Bayer frame, with outputs @format. */
static struct vk_rgb *rgb_side(struct vk_gpu *g, uint32_t w, uint32_t h, const uint32_t format[CISP_MAX_OUTPUTS])
{
	struct vk_rgb *rgb = NULL;

	CHECK_EQ(vk_rgb_create(g, w, h, NULL, format, &rgb), 0);
	return rgb;
}

/*
 * A random matrix: the third trial's rows are at the ABI's limit (sum of
 * |coeff| 32767) with negative entries, the fourth's push most samples
 * past either end; offsets up to +-2^20. The fifth's diagonal entries are
 * odd multiples of 2048, one negative: every odd sample lands exactly
 * half-way between two results, where only the reference's rounding gives
 * its answer.
 */
static void random_ccm(struct cisp_ccm_params *p, int trial)
{
	if (trial == 4) {
		for (int k = 0; k < 9; k++)
			p->coeff[k] = (int16_t)(k % 4 ? 0 : (k == 4 ? -2048 : 2048) * (k / 2 + 1));
		p->offset[0] = p->offset[2] = 0;
		p->offset[1] = 65535;
		return;
	}
	for (int row = 0; row < 3; row++) {
		int left = 32767;

		for (int k = 0; k < 3; k++) {
			int v = trial == 2 ? (k == 2 ? left : (int)(test_rand() % (uint64_t)(left + 1)))
					   : (int)(test_rand() % 10923); /* three of them within 32767 */

			left -= v;
			p->coeff[3 * row + k] = (int16_t)((trial >= 2 && (row + k) % 2) || (trial < 2 && test_rand() % 3 == 0)
								  ? -v
								  : v);
		}
		p->offset[row] = trial == 3 ? (row == 1 ? -(1 << 20) : 1 << 20) : (int32_t)(test_rand() % 8192) - 4096;
	}
}

/*
 * One trial of a stage: make its params for @trial, run the reference over
 * @ref (the random input) into @ref, and fill @steps; the number of steps.
 */
typedef unsigned (*stage_trial)(struct vk_rgb *rgb, int trial, const struct rgb16 *ref, struct vk_rgb_step steps[2]);

/* @trials trials of a stage on random planes of each size from sizes[@first_size], against its reference. */
static void check_stage(unsigned first_size, int trials, stage_trial trial_fn)
{
	const uint32_t none[CISP_MAX_OUTPUTS] = { 0 };
	struct vk_gpu *g = open_gpu();

	for (unsigned s = first_size; g && s < SIZES; s++) {
		struct vk_rgb *rgb = rgb_side(g, sizes[s].w, sizes[s].h, none);
		uint16_t *want = malloc((size_t)sizes[s].w * sizes[s].h * 3 * 2);
		const struct rgb16 ref = as_rgb16(want, sizes[s].w, sizes[s].h);

		for (int trial = 0; rgb && trial < trials; trial++) {
			struct vk_rgb_step steps[2];
			unsigned n;

			random_planes(rgb, want);
			n = trial_fn(rgb, trial, &ref, steps);
			CHECK_EQ(vk_rgb_run(rgb, steps, n), 0);
			CHECK_EQ(planes_differ(rgb, want), 0);
		}
		free(want);
		vk_rgb_destroy(rgb);
	}
	vk_gpu_close(g);
}

static unsigned ccm_trial(struct vk_rgb *rgb, int trial, const struct rgb16 *ref, struct vk_rgb_step steps[2])
{
	struct cisp_ccm_params p = { .offset = { 0 } };

	random_ccm(&p, trial);
	cisp_ccm_rows(&p, ref, ref, 0, ref->c[0].height);
	vk_rgb_step_ccm(rgb, &p, &steps[0]);
	return 1;
}

TEST(vulkan_rgb_ccm_bitexact)
{
	check_stage(0, 5, ccm_trial);
}

/* Tone curves: the identity, random ones (rising and falling), and a step from 0 to 65535; each transfer. */
static void random_tone(struct cisp_tone_params *p, int trial)
{
	p->transfer = (uint16_t)(trial % 3);
	for (int k = 0; k < CISP_TONE_POINTS; k++)
		p->curve[k] = (uint16_t)(trial < 3	? (k * 256 > 65535 ? 65535 : k * 256)
					 : trial == 5 ? (k < 128 ? 0 : 65535)
						      : (uint16_t)test_rand());
}

static unsigned tone_trial(struct vk_rgb *rgb, int trial, const struct rgb16 *ref, struct vk_rgb_step steps[2])
{
	struct cisp_tone_params p = { .header = { .type = CISP_BLOCK_TONE, .size = sizeof(p) } };
	struct cisp_tone_coeffs *c = malloc(sizeof(*c));

	random_tone(&p, trial);
	cisp_tone_prepare(c, &p);
	cisp_tone_rows(c, ref, ref, 0, ref->c[0].height);
	free(c);
	CHECK_EQ(vk_rgb_step_tone(rgb, &p, &steps[0]), 0);
	return 1;
}

TEST(vulkan_rgb_tone_bitexact)
{
	check_stage(0, 6, tone_trial);
}

/* Every matrix in both ranges. */
static unsigned csc_trial(struct vk_rgb *rgb, int trial, const struct rgb16 *ref, struct vk_rgb_step steps[2])
{
	const struct cisp_csc_params p = { .matrix = (uint16_t)(trial / 2), .range = (uint16_t)(trial % 2) };

	cisp_csc_rows(&p, ref, ref, 0, ref->c[0].height);
	vk_rgb_step_csc(rgb, &p, &steps[0]);
	return 1;
}

TEST(vulkan_rgb_csc_bitexact)
{
	check_stage(0, 6, csc_trial);
}

/* A random 3D LUT: the smallest, the largest, and one between with nodes at the ends of the range. */
static void random_lut3d(struct cisp_lut3d_params *p, int trial)
{
	p->size = (uint16_t)(trial == 0 ? 2 : trial == 1 ? CISP_LUT3D_MAX_SIZE : 17);
	for (int k = 0; k < p->size * p->size * p->size; k++)
		for (int c = 0; c < 3; c++)
			p->table[k][c] = (uint16_t)(trial == 2 && k % 3 == 0 ? (c % 2 ? 65535 : 0) : test_rand());
}

static unsigned lut3d_trial(struct vk_rgb *rgb, int trial, const struct rgb16 *ref, struct vk_rgb_step steps[2])
{
	struct cisp_lut3d_params *p = calloc(1, sizeof(*p));

	random_lut3d(p, trial);
	cisp_lut3d_rows(p, ref, ref, 0, ref->c[0].height);
	vk_rgb_step_lut3d(rgb, p, &steps[0]);
	free(p);
	return 1;
}

TEST(vulkan_rgb_lut3d_bitexact)
{
	check_stage(0, 3, lut3d_trial);
}

/* The defaults, the largest gain and limit with no coring, all cored, a zero limit. */
static unsigned sharpen_trial(struct vk_rgb *rgb, int trial, const struct rgb16 *ref, struct vk_rgb_step steps[2])
{
	static const struct cisp_sharpen_params params[] = {
		{ .strength = 256, .coring = 256, .limit = 4096 },
		{ .strength = 65535, .coring = 0, .limit = 65535 },
		{ .strength = 2048, .coring = 65535, .limit = 65535 },
		{ .strength = 700, .coring = 30, .limit = 0 },
	};
	const size_t n = (size_t)ref->c[0].width * ref->c[0].height * 3;
	uint16_t *in = malloc(n * 2);
	struct rgb16 copy;

	/* Its reference writes into other planes than it reads. */
	memcpy(in, ref->c[0].base, n * 2);
	copy = as_rgb16(in, (uint32_t)ref->c[0].width, (uint32_t)ref->c[0].height);
	cisp_sharpen_rows(&params[trial], &copy, ref, 0, ref->c[0].height);
	free(in);
	vk_rgb_step_sharpen(rgb, &params[trial], steps);
	return 2;
}

TEST(vulkan_rgb_sharpen_bitexact)
{
	/* From 3x5: the reference reflects once, so its 5x5 window needs 3 pixels each way. */
	check_stage(1, 4, sharpen_trial);
}

/*
 * Chroma denoise against cisp_cnr_rows() on random planes: sizes down to
 * 3x5 with the largest radius each allows (the reference reflects once),
 * odd widths on both sides of the workgroup; noise from none (the largest
 * inverse thresholds) to far beyond full scale, with and without white
 * balance and a matrix with negative entries, strengths from 1 to the
 * largest, and 0 (no steps: the planes as they were).
 */
TEST(vulkan_rgb_cnr_bitexact)
{
	static const struct {
		uint32_t w, h;
	} cnr_sizes[] = { { 3, 5 }, { 9, 17 }, { 65, 9 }, { 130, 12 }, { 257, 9 } };
	const uint32_t none[CISP_MAX_OUTPUTS] = { 0 };
	struct vk_gpu *g = open_gpu();

	for (unsigned s = 0; g && s < sizeof(cnr_sizes) / sizeof(cnr_sizes[0]); s++) {
		const uint32_t w = cnr_sizes[s].w, h = cnr_sizes[s].h, n = w * h;
		struct vk_rgb *rgb = rgb_side(g, w, h, none);
		uint16_t *want = malloc((size_t)n * 3 * 2), *out = malloc((size_t)n * 3 * 2);
		const struct rgb16 ref = as_rgb16(want, w, h);
		struct rgb16 ref_out = as_rgb16(out, w, h);

		ref_out.c[0] = ref.c[0]; /* Y stays where it is, as in the pipeline */
		for (int trial = 0; rgb && want && out && trial < 5; trial++) {
			struct cisp_cnr_params p = { .strength = (uint16_t)(1 + test_rand() % 4096),
						     .luma_strength = (uint16_t)(1 + test_rand() % 4096) };
			struct cisp_noise_params noise = { .a = { 0 } };
			struct cisp_wb_params wb = { .gain = { 8000, 4096, 4096, 6000 } };
			struct cisp_ccm_params ccm = { .offset = { 0 } };
			struct cisp_csc_params csc = { .matrix = (uint8_t)(trial % 3), .range = (uint8_t)(trial % 2) };
			struct cisp_cnr_gains gains = { .csc = &csc };
			struct cisp_cnr_coeffs *c = NULL;
			struct cisp_param_state state;
			struct vk_rgb_step steps[2];
			int steps_n;

			p.radius = (uint16_t)(trial == 1 ? 1 : (w < h ? w : h) - 1 < CISP_CNR_MAX_RADIUS ? (w < h ? w : h) - 1
												: CISP_CNR_MAX_RADIUS);
			for (int k = 0; k < 4; k++) {
				/* Trial 0: no noise; 2: beyond full scale; else random, large enough to average. */
				noise.a[k] = trial == 0 ? 0 : trial == 2 ? 0xffffffffu : (uint32_t)(test_rand() % (1u << 28));
				noise.b[k] = trial == 0 ? 0 : trial == 2 ? 0xffffffffu : (uint32_t)(test_rand() % (1u << 30));
			}
			if (trial == 2)
				p.strength = p.luma_strength = 4096;
			if (trial == 3)
				p.strength = 0;
			if (trial >= 2) {
				random_ccm(&ccm, 2);
				gains.wb = &wb;
				gains.ccm = &ccm;
			}
			random_planes(rgb, want);
			CHECK_EQ(cisp_cnr_prepare(&c, &p, &noise, &gains), 0);
			cisp_cnr_rows(c, &ref, &ref_out, 0, (int)h);
			cisp_cnr_free(c);
			memcpy(want + n, out + n, (size_t)n * 2 * 2);
			cisp_param_state_init(&state);
			state.enabled = gains.wb ? CISP_BLOCK_BIT(CISP_BLOCK_WB) | CISP_BLOCK_BIT(CISP_BLOCK_CCM) : 0;
			state.cnr = p;
			state.noise = noise;
			state.wb = wb;
			state.ccm = ccm;
			state.csc = csc;
			steps_n = vk_rgb_step_cnr(rgb, &state, steps);
			CHECK_EQ(steps_n, trial == 3 ? 0 : 2);
			if (steps_n > 0)
				CHECK_EQ(vk_rgb_run(rgb, steps, (unsigned)steps_n), 0);
			CHECK_EQ(planes_differ(rgb, want), 0);
		}
		free(want);
		free(out);
		vk_rgb_destroy(rgb);
	}
	vk_gpu_close(g);
}

/* Every output format against cisp_pack_rows(), two at a time; odd sizes for the RGB ones, even for 4:2:0. */
TEST(vulkan_rgb_pack_bitexact)
{
	static const uint32_t pairs[][CISP_MAX_OUTPUTS] = { { CISP_FMT_RGB888, CISP_FMT_XBGR32 },
							     { CISP_FMT_RGB48, 0 },
							     { CISP_FMT_NV12, CISP_FMT_I420 } };
	struct vk_gpu *g = open_gpu();

	for (unsigned f = 0; g && f < sizeof(pairs) / sizeof(pairs[0]); f++) {
		for (unsigned s = 0; s < SIZES; s++) {
			const bool yuv = pairs[f][0] == CISP_FMT_NV12;
			const uint32_t w = yuv ? (sizes[s].w + 1) & ~1u : sizes[s].w, h = yuv ? (sizes[s].h + 1) & ~1u : sizes[s].h;
			struct vk_rgb *rgb = rgb_side(g, w, h, pairs[f]);
			uint16_t *planes = malloc((size_t)w * h * 3 * 2);
			struct rgb16 ref = as_rgb16(planes, w, h);
			struct vk_rgb_step steps[CISP_MAX_OUTPUTS];

			if (rgb) {
				random_planes(rgb, planes);
				for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
					vk_rgb_step_pack(rgb, pairs[f][i] ? i : 0, &steps[i]);
				CHECK_EQ(vk_rgb_run(rgb, steps, CISP_MAX_OUTPUTS), 0);
			}
			for (int i = 0; rgb && i < CISP_MAX_OUTPUTS && pairs[f][i]; i++) {
				struct cisp_image want, got;

				CHECK_EQ(cisp_image_alloc(&want, pairs[f][i], w, h), 0);
				CHECK_EQ(cisp_image_alloc(&got, pairs[f][i], w, h), 0);
				cisp_pack_rows(&ref, &want, 0, (int)h);
				CHECK_EQ(vk_rgb_unload(rgb, i, &got), 0);
				if (!test_same_pixels(&want, &got))
					test_fail(__FILE__, __LINE__, "%ux%u %s: not the reference's bytes", w, h,
						  cisp_format_name(pairs[f][i]));
				cisp_image_free(&want);
				cisp_image_free(&got);
			}
			free(planes);
			vk_rgb_destroy(rgb);
		}
	}
	vk_gpu_close(g);
}

/* A 16-bit Bayer frame of random samples, some at the ends of the range; its unpack on the GPU is the identity. */
static struct cisp_image random_bayer(uint32_t w, uint32_t h)
{
	struct cisp_image img;

	CHECK_EQ(cisp_image_alloc(&img, CISP_FMT_SRGGB16, w, h), 0);
	for (uint32_t y = 0; y < h; y++) {
		uint16_t *row = (uint16_t *)(img.plane[0].data + y * img.plane[0].stride);

		for (uint32_t x = 0; x < w; x++)
			row[x] = (uint16_t)(x % 5 == 0 ? (y % 2 ? 65535 : 0) : test_rand());
	}
	return img;
}

/*
 * The fast demosaic on every CFA order (the unpack of a 16-bit frame reads
 * no CFA, so one frame serves them all), from either Bayer plane, against
 * cisp_demosaic_fast_rows().
 */
TEST(vulkan_rgb_demosaic_bitexact)
{
	/* Bayer frames are even; widths around the workgroup's, down to 4x4 (the reference reflects once). */
	static const struct {
		uint32_t w, h;
	} bayer_sizes[] = { { 4, 4 }, { 66, 4 }, { 130, 6 }, { 258, 10 } };
	const uint32_t none[CISP_MAX_OUTPUTS] = { 0 };
	struct vk_gpu *g = open_gpu();

	for (unsigned s = 0; g && s < sizeof(bayer_sizes) / sizeof(bayer_sizes[0]); s++) {
		const uint32_t w = bayer_sizes[s].w, h = bayer_sizes[s].h;
		uint16_t *want = malloc((size_t)w * h * 3 * 2), *halo = malloc((size_t)w * 2 * 2);
		struct rgb16 ref = as_rgb16(want, w, h);
		struct vk_frame *f = NULL;
		struct vk_rgb *rgb = NULL;

		CHECK_EQ(vk_frame_create(g, CISP_FMT_SRGGB16, w, h, &f), 0);
		if (f)
			CHECK_EQ(vk_rgb_create(g, w, h, f, none, &rgb), 0);
		for (int cfa = 0; rgb && cfa < 4; cfa++) {
			struct cisp_image img = random_bayer(w, h);
			struct vk_step unpack[2];
			struct vk_rgb_step steps[2];
			const uint16_t *bayer;

			cisp_demosaic_fast_rows(&(struct plane16){ (uint16_t *)img.plane[0].data, img.plane[0].stride / 2, 0,
								   (int)w, (int)h, 0 },
						(enum cisp_cfa)cfa, &ref, 0, (int)h, halo);
			/* One step leaves the samples in plane 0, two (an identity white balance) in plane 1. */
			for (int n = 1; n <= 2; n++) {
				vk_step_unpack(f, &unpack[0]);
				vk_step_wb(f, &(struct cisp_wb_coeffs){ .gain = { 4096, 4096, 4096, 4096 } }, &unpack[1]);
				CHECK_EQ(vk_frame_run(f, &img, unpack, (unsigned)n, &bayer), 0);
				CHECK(bayer == f->plane[n - 1].map);
				vk_rgb_step_demosaic(rgb, (enum cisp_cfa)cfa, (unsigned)n - 1, steps);
				CHECK_EQ(vk_rgb_run(rgb, steps, 2), 0);
				CHECK_EQ(planes_differ(rgb, want), 0);
			}
			cisp_image_free(&img);
		}
		vk_rgb_destroy(rgb);
		vk_frame_destroy(f);
		free(want);
		free(halo);
	}
	vk_gpu_close(g);
}

/* Sizes and outputs the RGB side refuses, and the contexts that keep the hand-over. */
TEST(vulkan_rgb_errors)
{
	const uint32_t none[CISP_MAX_OUTPUTS] = { 0 }, nv12[CISP_MAX_OUTPUTS] = { CISP_FMT_NV12 };
	struct cisp_isp_config cfg = { CISP_FMT_SRGGB10, 64, 48, { { CISP_FMT_NV12, 64, 48 } }, NULL };
	struct vk_gpu *g = open_gpu();
	struct vk_frame *f = NULL;
	struct vk_rgb *rgb = NULL;

	if (!g)
		return;
	CHECK_ERR(vk_rgb_create(g, 0, 4, NULL, none, &rgb), -EINVAL, "no RGB side for a 0x4 frame");
	CHECK_ERR(vk_rgb_create(g, 4, CISP_MAX_DIMENSION + 1, NULL, none, &rgb), -EINVAL, "no RGB side");
	CHECK_ERR(vk_rgb_create(g, 4, 4, NULL, (const uint32_t[CISP_MAX_OUTPUTS]){ CISP_FMT_SRGGB10 }, &rgb), -ENOTSUP,
		  "the GPU does not pack SRGGB10 outputs");
	/* Four planes of 32-bit words at the largest size: over any device's storage buffer range (32 bits). */
	CHECK_ERR(vk_rgb_create(g, CISP_MAX_DIMENSION, CISP_MAX_DIMENSION, NULL, none, &rgb), -E2BIG,
		  "storage buffers");
	CHECK_EQ(vk_frame_create(g, CISP_FMT_SRGGB16, 64, 48, &f), 0);
	CHECK_ERR(vk_rgb_create(g, 64, 46, f, nv12, &rgb), -EINVAL, "no RGB side for a 64x46 frame");
	/* A context whose outputs the GPU packs has an RGB side, scaled ones too. */
	CHECK_EQ(vk_rgb_open(g, f, &cfg, &rgb), 0);
	CHECK(rgb != NULL);
	if (rgb) {
		struct cisp_image img;

		/* An image that is not the output's. */
		CHECK_EQ(cisp_image_alloc(&img, CISP_FMT_NV12, 64, 46), 0);
		CHECK_ERR(vk_rgb_unload(rgb, 0, &img), -EINVAL, "a 64x46 NV12 image for output 0");
		CHECK_ERR(vk_rgb_unload(rgb, 1, &img), -EINVAL, "for output 1");
		cisp_image_free(&img);
	}
	vk_rgb_destroy(rgb);
	cfg.output[1] = (struct cisp_output_config){ CISP_FMT_RGB888, 33, 24 };
	CHECK_EQ(vk_rgb_open(g, f, &cfg, &rgb), 0);
	CHECK(rgb != NULL);
	vk_rgb_destroy(rgb);
	/* One too big for the device's buffers has none: it runs, handed over. */
	cfg = (struct cisp_isp_config){ CISP_FMT_SRGGB10, CISP_MAX_DIMENSION, CISP_MAX_DIMENSION,
					{ { CISP_FMT_NV12, CISP_MAX_DIMENSION, CISP_MAX_DIMENSION } }, NULL };
	CHECK_EQ(vk_rgb_open(g, NULL, &cfg, &rgb), 0);
	CHECK(rgb == NULL);
	vk_frame_destroy(f);
	vk_gpu_close(g);
}

/* What the whole frame needs to stay on the GPU (vulkan_rgb_covers()). */
TEST(vulkan_rgb_plan)
{
	struct cisp_param_state s;

	cisp_param_state_init(&s);
	s.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_LSC);
	CHECK(vulkan_plan_frame(&s, false).rgb);
	/* The statistics are reduced on the GPU too, unless a Bayer stage before their tap is on the CPU. */
	s.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_STATS);
	CHECK(vulkan_plan_frame(&s, true).rgb);
	s.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_BNR);
	CHECK(vulkan_plan_frame(&s, true).rgb);
	s.bnr.mode = CISP_BNR_QUALITY; /* its shaders need 64-bit integers */
	CHECK(vulkan_plan_frame(&s, true).rgb);
	CHECK(!vulkan_plan_on(&s, true, false).rgb);
	s.bnr.mode = CISP_BNR_FAST;
	s.enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_BNR);
	/* A stage neither side has, anywhere in the pipeline. */
	for (unsigned b = CISP_BLOCK_BLC; b < CISP_BLOCK_TYPE_COUNT; b++) {
		const uint32_t gpu = CISP_BLOCK_BIT(CISP_BLOCK_BLC) | CISP_BLOCK_BIT(CISP_BLOCK_DPC) |
				     CISP_BLOCK_BIT(CISP_BLOCK_BNR) | CISP_BLOCK_BIT(CISP_BLOCK_LSC) |
				     CISP_BLOCK_BIT(CISP_BLOCK_WB) | CISP_BLOCK_BIT(CISP_BLOCK_DEMOSAIC) |
				     CISP_BLOCK_BIT(CISP_BLOCK_CCM) | CISP_BLOCK_BIT(CISP_BLOCK_TONE) |
				     CISP_BLOCK_BIT(CISP_BLOCK_LUT3D) | CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN) |
				     CISP_BLOCK_BIT(CISP_BLOCK_CSC) | CISP_BLOCK_BIT(CISP_BLOCK_CNR) | CISP_BLOCK_BIT(CISP_BLOCK_LTM) |
				     CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS) |
				     CISP_BLOCK_BIT(CISP_BLOCK_STATS) |
				     CISP_BLOCK_BIT(CISP_BLOCK_NOISE) | CISP_BLOCK_BIT(CISP_BLOCK_CROP);
		struct cisp_param_state t = s;

		t.enabled |= CISP_BLOCK_BIT(b);
		CHECK_EQ(vulkan_plan_frame(&t, false).rgb, !!(gpu & CISP_BLOCK_BIT(b)));
	}
	s.demosaic.algorithm = CISP_DEMOSAIC_QUALITY; /* its shaders: tests/test_vulkan_dmq.c */
	CHECK(vulkan_plan_frame(&s, false).rgb);
	s.demosaic.algorithm = CISP_DEMOSAIC_FAST;
	s.crop_enabled = 1; /* crops are the GPU's too (test_vulkan_output.c) */
	CHECK(vulkan_plan_frame(&s, false).rgb);
}

/* The same frame through the software ISP. */
static void reference_frame(const struct cisp_isp_config *cfg, const struct cisp_param_state *state,
			    const struct cisp_image *in, struct cisp_image *const out[CISP_MAX_OUTPUTS], struct cisp_stats *stats)
{
	struct cisp_isp *isp = NULL;

	CHECK_EQ(cisp_isp_create(&isp, cfg), 0);
	if (!isp)
		return;
	CHECK_EQ(cisp_isp_set_state(isp, state, ~0u), 0);
	CHECK_EQ(cisp_isp_process(isp, in, out, stats, NULL), 0);
	cisp_isp_destroy(isp);
}

/*
 * Whole frames on a device with CISP_ISP=vulkan, every stage on the GPU
 * (black level, lens shading, white balance, the fast demosaic, a matrix
 * with negative entries, a tone curve with a transfer function, the
 * conversion, sharpening from the second pair on, a 3D LUT and defect
 * correction from the third, and the packing), with the statistics, against
 * the software ISP, byte for byte, in every output format; the fourth pair
 * with chroma denoise on too, the last with highlights on as well (both
 * read the white-balance bit), still all on the GPU.
 */
TEST(vulkan_rgb_pipeline_bitexact)
{
	static const uint32_t pairs[][2] = { { CISP_FMT_RGB888, CISP_FMT_NV12 },
					     { CISP_FMT_I420, CISP_FMT_XBGR32 },
					     { CISP_FMT_RGB48, 0 },
					     { CISP_FMT_NV12, CISP_FMT_RGB888 },
					     { CISP_FMT_I420, 0 } };
	const uint32_t w = 132, h = 20;
	struct cisp_device *dev = NULL;
	struct cisp_image in;
	struct cisp_param_state state;

	setenv("CISP_ISP", "vulkan", 1);
	CHECK_EQ(cisp_device_create(&dev, &(struct cisp_device_config){ .workers = 1 }), 0);
	unsetenv("CISP_ISP");
	CHECK_EQ(cisp_image_alloc(&in, CISP_FMT_SGRBG12P, w, h), 0);
	for (size_t i = 0; i < (size_t)in.plane[0].stride * h; i++)
		in.plane[0].data[i] = (uint8_t)test_rand();
	cisp_param_state_init(&state);
	state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_LSC);
	state.blc.black[0] = state.blc.black[1] = state.blc.black[3] = 4096;
	state.blc.black[2] = 4300;
	state.wb.gain[0] = 8000;
	state.wb.gain[3] = 6000;
	state.lsc.grid_w = state.lsc.grid_h = 3;
	for (int i = 0; i < 4 * 9; i++)
		state.lsc.gain[i] = (uint16_t)(4096 + test_rand() % 4096);
	random_ccm(&state.ccm, 2);
	random_tone(&state.tone, 4);
	state.tone.transfer = CISP_TRANSFER_SRGB;
	state.csc.matrix = CISP_CSC_BT709;
	for (unsigned k = 0; dev && k < sizeof(pairs) / sizeof(pairs[0]); k++) {
		const struct cisp_isp_config cfg = { in.format, w, h, { { pairs[k][0], w, h }, { pairs[k][1], w, h } }, NULL };
		struct cisp_image got[CISP_MAX_OUTPUTS], want[CISP_MAX_OUTPUTS];
		struct cisp_stats got_stats, want_stats;
		int ret;

		memset(&got_stats, 0, sizeof(got_stats)); /* padding too: they are compared whole */
		memset(&want_stats, 0, sizeof(want_stats));

		if (k == 1) {
			state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN);
			state.sharpen.strength = 2048;
			state.sharpen.coring = 100;
			state.sharpen.limit = 30000;
		}
		if (k == 2) {
			state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_LUT3D);
			random_lut3d(&state.lut3d, 0);
			state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_DPC);
			state.dpc.threshold = 300;
		}
		if (k == 3) {
			/* Noise that the filter averages away: thresholds far above the default profile's. */
			state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_CNR) | CISP_BLOCK_BIT(CISP_BLOCK_NOISE);
			for (int c = 0; c < 4; c++) {
				state.noise.a[c] = 1u << 22;
				state.noise.b[c] = 1u << 26;
			}
		}
		if (k == 4)
			state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS);
		/* Every pair runs whole on the GPU, highlights too (chroma denoise and they read the white-balance bit). */
		CHECK(vulkan_plan_frame(&state, true).rgb);
		CHECK(vulkan_plan_frame(&state, true).wb);
		for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
			CHECK_EQ(cisp_image_alloc(&got[i], pairs[k][i] ? pairs[k][i] : CISP_FMT_RGB888, w, h), 0);
			CHECK_EQ(cisp_image_alloc(&want[i], got[i].format, w, h), 0);
		}
		ret = test_device_frame(dev, &cfg, &state, &in,
				   (struct cisp_image *const[CISP_MAX_OUTPUTS]){ &got[0], pairs[k][1] ? &got[1] : NULL },
				   &got_stats);
		if (ret == -ENODEV && !open_gpu())
			k = sizeof(pairs) / sizeof(pairs[0]); /* no device: said so */
		else if (ret)
			test_fail(__FILE__, __LINE__, "the Vulkan backend's job: %s", cisp_last_error());
		else {
			reference_frame(&cfg, &state, &in,
					(struct cisp_image *const[CISP_MAX_OUTPUTS]){ &want[0], pairs[k][1] ? &want[1] : NULL },
					&want_stats);
			if (memcmp(&got_stats, &want_stats, sizeof(got_stats)))
				test_fail(__FILE__, __LINE__, "the statistics of pair %u differ from the software ISP's", k);
			for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
				if (pairs[k][i] && !test_same_pixels(&got[i], &want[i]))
					test_fail(__FILE__, __LINE__, "output %d (%s) of pair %u differs from the software ISP's",
						  i, cisp_format_name(pairs[k][i]), k);
		}
		for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
			cisp_image_free(&got[i]);
			cisp_image_free(&want[i]);
		}
	}
	cisp_image_free(&in);
	cisp_device_destroy(dev);
}

/*
 * A context whose output is too big for the device's buffers (scaled up to
 * 3388x3400, not 8-wide blocks, whose scaled planes are over lavapipe's
 * 2^27-byte storage buffers; a device with larger ones runs it whole): every frame is handed
 * over, even one whose stages the GPU all has; with chroma denoise on, which
 * reads the white-balance bit, white balance must then stay on the CPU too.
 * Byte for byte with the software ISP.
 */
TEST(vulkan_rgb_handed_over_outputs_bitexact)
{
	const uint32_t w = 64, h = 32, ow = 3388, oh = 3400;
	const struct cisp_isp_config cfg = { CISP_FMT_SRGGB12P, w, h, { { CISP_FMT_NV12, ow, oh } }, NULL };
	struct cisp_device *dev = NULL;
	struct cisp_image in, got, want;
	struct cisp_stats got_stats, want_stats;
	struct cisp_param_state state;
	int ret;

	memset(&got_stats, 0, sizeof(got_stats));
	memset(&want_stats, 0, sizeof(want_stats));
	setenv("CISP_ISP", "vulkan", 1);
	CHECK_EQ(cisp_device_create(&dev, &(struct cisp_device_config){ .workers = 1 }), 0);
	unsetenv("CISP_ISP");
	CHECK_EQ(cisp_image_alloc(&in, cfg.input_format, w, h), 0);
	CHECK_EQ(cisp_image_alloc(&got, CISP_FMT_NV12, ow, oh), 0);
	CHECK_EQ(cisp_image_alloc(&want, CISP_FMT_NV12, ow, oh), 0);
	for (size_t i = 0; i < (size_t)in.plane[0].stride * h; i++)
		in.plane[0].data[i] = (uint8_t)test_rand();
	cisp_param_state_init(&state);
	state.wb.gain[0] = 9000;
	state.wb.gain[3] = 7000;
	state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_CNR) | CISP_BLOCK_BIT(CISP_BLOCK_NOISE);
	for (int c = 0; c < 4; c++) {
		state.noise.a[c] = 1u << 22;
		state.noise.b[c] = 1u << 26;
	}
	CHECK(vulkan_plan_frame(&state, true).rgb); /* the stages alone would stay on the GPU */
	ret = dev ? test_device_frame(dev, &cfg, &state, &in, (struct cisp_image *const[CISP_MAX_OUTPUTS]){ &got }, &got_stats)
		  : -ENODEV;
	if (ret == -ENODEV && !open_gpu())
		; /* no device: said so */
	else if (ret)
		test_fail(__FILE__, __LINE__, "the Vulkan backend's job: %s", cisp_last_error());
	else {
		reference_frame(&cfg, &state, &in, (struct cisp_image *const[CISP_MAX_OUTPUTS]){ &want }, &want_stats);
		CHECK(test_same_pixels(&got, &want));
		CHECK(!memcmp(&got_stats, &want_stats, sizeof(got_stats)));
	}
	cisp_image_free(&in);
	cisp_image_free(&got);
	cisp_image_free(&want);
	cisp_device_destroy(dev);
}
#else
TEST(vulkan_rgb_not_built)
{
	const char *require = getenv("CISP_REQUIRE_VULKAN");

	if (require && !strcmp(require, "1"))
		test_fail(__FILE__, __LINE__, "CISP_REQUIRE_VULKAN=1 and this build has no Vulkan backend");
	else
		test_skip("NO VULKAN DEVICE, the Vulkan backend's RGB side is NOT tested: this build has no Vulkan backend");
}
#endif
