/* SPDX-License-Identifier: MIT */
/*
 * Local tone mapping on the Vulkan backend's RGB side (docs/gpu.md): the
 * shader against cisp_ltm_row_c() on random planes with grids of every
 * allowed size and extreme gains, levels and ranges; bad params; then whole
 * frames through a device with CISP_ISP=vulkan with LTM and chroma denoise
 * on, the frame whole on the GPU, against the software ISP byte for byte,
 * one of them with the parameters the control loop makes from the sensor
 * tuning data/tuning/cisp-test.yaml. Without a Vulkan device the tests say so
 * loudly and skip, unless CISP_REQUIRE_VULKAN=1 (CI): then that is a failure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/control.h>
#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/log.h>
#include <cisp/params_state.h>
#include <cisp/sensor.h>
#include <cisp/tuning.h>

#include "test.h"

#ifdef CISP_VULKAN_BUILT
#include "device/vulkan_rgb.h"
#include "isp/ccm.h"
#include "isp/lut3d.h"
#include "isp/ltm.h"
#include "isp/tone.h"

/* Widths and heights on both sides of the 64-pixel workgroup, odd ones; 1x1 the reference refuses. */
static const struct {
	uint32_t w, h;
} sizes[] = { { 1, 1 }, { 2, 2 }, { 3, 5 }, { 65, 3 }, { 130, 4 }, { 257, 7 } };
#define SIZES (sizeof(sizes) / sizeof(sizes[0]))

/* The shared device, or NULL after a loud skip (a failure where CI requires a device). */
static struct vk_gpu *ltm_gpu(void)
{
	const char *require = getenv("CISP_REQUIRE_VULKAN");
	struct vk_gpu *g = NULL;

	if (!vk_gpu_open(&g))
		return g;
	if (require && !strcmp(require, "1"))
		test_fail(__FILE__, __LINE__, "CISP_REQUIRE_VULKAN=1 and %s", cisp_last_error());
	else
		test_skip("NO VULKAN DEVICE, local tone mapping on the GPU is NOT tested: %s", cisp_last_error());
	return NULL;
}

/*
 * LTM params with a @gw x @gh grid for @trial: random levels, gains and
 * range (0); the extremes of gain (16 and 4095, a checkerboard) at the
 * narrowest range (1); every level at 4095 with dark pixels, so that no node
 * is within range and the spatial weights alone count (2); the widest range
 * with levels at 0 and 4095 alternately and random gains (3).
 */
static void ltm_params(struct cisp_ltm_params *p, int gw, int gh, int trial)
{
	const int n = gw * gh;

	memset(p, 0, sizeof(*p));
	p->header.type = CISP_BLOCK_LTM;
	p->header.size = (uint32_t)(16 + 4 * n);
	p->grid_w = (uint16_t)gw;
	p->grid_h = (uint16_t)gh;
	p->range = (uint16_t)(trial == 1 ? 64 : trial == 3 ? 1024 : 64 + test_rand() % 961);
	for (int k = 0; k < n; k++) {
		p->node[k] = (uint16_t)(trial == 2 ? 4095 : trial == 3 ? (k % 2 ? 4095 : 0) : test_rand() % 4096);
		p->node[n + k] = (uint16_t)(trial == 1 ? ((k / gw + k % gw) % 2 ? 16 : 4095) : 16 + test_rand() % 4080);
	}
}

/* Three planes of random samples, some at 0 and 65535, darker ones for @trial 2; in @rgb's planes and @copy. */
static void ltm_planes(struct vk_rgb *rgb, uint16_t *copy, int trial)
{
	const size_t n = (size_t)rgb->width * rgb->height * 3;
	uint32_t *words = rgb->planes.map;

	for (size_t i = 0; i < n; i++) {
		uint32_t v = (uint32_t)test_rand() & 0xffff;

		copy[i] = (uint16_t)(i % 7 == 0 ? 65535 : i % 5 == 0 ? 0 : trial == 2 ? v >> 8 : v);
		words[i] = copy[i];
	}
}

/* One run of the shader with @p on fresh planes against cisp_ltm_row_c(), in place, row by row. */
static void check_ltm(struct vk_rgb *rgb, const struct cisp_ltm_params *p, struct cisp_ltm_coeffs *c, uint16_t *want,
		      int trial)
{
	const uint32_t w = rgb->width, h = rgb->height, n = w * h;
	const uint32_t *got = rgb->planes.map;
	struct vk_rgb_step step;

	ltm_planes(rgb, want, trial);
	CHECK_EQ(cisp_ltm_prepare(c, p, (int)w, (int)h), 0);
	for (uint32_t y = 0; y < h; y++) {
		uint16_t *row[3] = { want + y * w, want + n + y * w, want + 2 * n + y * w };

		cisp_ltm_row_c(c, (const uint16_t *const *)row, row, (int)w, (int)y);
	}
	CHECK_EQ(vk_rgb_step_ltm(rgb, p, &step), 0);
	CHECK_EQ(vk_rgb_run(rgb, &step, 1), 0);
	for (uint32_t i = 0; i < 3 * n; i++) {
		if (got[i] != want[i]) {
			test_fail(__FILE__, __LINE__, "%ux%u, grid %ux%u, trial %d: sample %u (plane %u) is %u, the reference's %u",
				  w, h, p->grid_w, p->grid_h, trial, i, i / n, got[i], want[i]);
			return;
		}
	}
}

/* Every grid width and height from 2 to 32 on every size, each of the four kinds of params in turn. */
TEST(vulkan_ltm_bitexact)
{
	const uint32_t none[CISP_MAX_OUTPUTS] = { 0 };
	struct vk_gpu *g = ltm_gpu();
	struct cisp_ltm_coeffs *c = malloc(sizeof(*c));
	struct cisp_ltm_params *p = malloc(sizeof(*p));

	for (unsigned s = 0; g && c && p && s < SIZES; s++) {
		struct vk_rgb *rgb = NULL;
		uint16_t *want = malloc((size_t)sizes[s].w * sizes[s].h * 3 * 2);
		struct vk_rgb_step step;

		CHECK_EQ(vk_rgb_create(g, sizes[s].w, sizes[s].h, NULL, none, &rgb), 0);
		if (!rgb || !want)
			break;
		if (sizes[s].w < 2) {
			/* The reference has no tables for a frame under 2x2: neither has the GPU. */
			ltm_params(p, 2, 2, 0);
			CHECK_EQ(vk_rgb_step_ltm(rgb, p, &step), -EINVAL);
		}
		for (int gw = 2; sizes[s].w >= 2 && gw <= CISP_LTM_MAX_GRID; gw++) {
			const int trial = (gw + (int)s) % 4;

			ltm_params(p, gw, CISP_LTM_MAX_GRID + 2 - gw, trial);
			check_ltm(rgb, p, c, want, trial);
			/* The same params again: the tables are kept, and still right. */
			if (gw == CISP_LTM_MAX_GRID)
				check_ltm(rgb, p, c, want, trial);
		}
		free(want);
		vk_rgb_destroy(rgb);
	}
	free(c);
	free(p);
	vk_gpu_close(g);
}

/* The colour stages of @mask (bit 0 CCM, 1 LTM, 2 tone, 3 the 3D LUT) on @want, in the reference executor's order. */
static void colour_reference(const struct cisp_param_state *st, unsigned mask, uint16_t *want, uint32_t w, uint32_t h)
{
	struct rgb16 v;
	struct cisp_ltm_coeffs *lc = malloc(sizeof(*lc));
	struct cisp_tone_coeffs *tc = malloc(sizeof(*tc));

	for (int c = 0; c < 3; c++)
		v.c[c] = (struct plane16){ want + (size_t)c * w * h, (int)w, 0, (int)w, (int)h, 0 };
	if (mask & 1)
		cisp_ccm_rows(&st->ccm, &v, &v, 0, (int)h);
	if ((mask & 2) && lc && !cisp_ltm_prepare(lc, &st->ltm, (int)w, (int)h))
		for (uint32_t y = 0; y < h; y++) {
			uint16_t *row[3] = { v.c[0].base + y * w, v.c[1].base + y * w, v.c[2].base + y * w };

			cisp_ltm_row_c(lc, (const uint16_t *const *)row, row, (int)w, (int)y);
		}
	if ((mask & 4) && tc) {
		cisp_tone_prepare(tc, &st->tone);
		cisp_tone_rows(tc, &v, &v, 0, (int)h);
	}
	if (mask & 8)
		cisp_lut3d_rows(&st->lut3d, &v, &v, 0, (int)h);
	free(lc);
	free(tc);
}

/*
 * The fused colour dispatch: every subset of colour correction (a matrix
 * with negative entries, all odd multiples of 2048, so that about half the
 * pixels fall exactly half-way between two results, and offsets), LTM, a
 * falling tone curve with sRGB and a 17-node 3D LUT, one subset a run over
 * the sizes, against the reference stages one after the other.
 */
TEST(vulkan_ltm_fused_colour_bitexact)
{
	const uint32_t none[CISP_MAX_OUTPUTS] = { 0 };
	struct vk_gpu *g = ltm_gpu();
	struct cisp_param_state *st = malloc(sizeof(*st));

	if (!g || !st)
		goto out;
	cisp_param_state_init(st);
	for (int k = 0; k < 9; k++)
		st->ccm.coeff[k] = (int16_t)(k % 4 ? (k % 2 ? -6144 : 2048) : 14336);
	for (int c = 0; c < 3; c++)
		st->ccm.offset[c] = c == 1 ? -3000 : 2000;
	ltm_params(&st->ltm, 5, 7, 0);
	st->tone.transfer = CISP_TRANSFER_SRGB;
	for (int k = 0; k < CISP_TONE_POINTS; k++)
		st->tone.curve[k] = (uint16_t)(65535 - k * 65535 / (CISP_TONE_POINTS - 1));
	st->lut3d.size = 17;
	for (int k = 0; k < 17 * 17 * 17; k++)
		for (int c = 0; c < 3; c++)
			st->lut3d.table[k][c] = (uint16_t)test_rand();
	for (unsigned mask = 1; mask < 16; mask++) {
		const uint32_t w = sizes[1 + mask % (SIZES - 1)].w, h = sizes[1 + mask % (SIZES - 1)].h;
		struct vk_rgb *rgb = NULL;
		uint16_t *want = malloc((size_t)w * h * 3 * 2);
		struct vk_rgb_step colour = { .push_size = 0 }, one;
		const uint32_t *got;

		CHECK_EQ(vk_rgb_create(g, w, h, NULL, none, &rgb), 0);
		if (!rgb || !want) {
			free(want);
			vk_rgb_destroy(rgb);
			break;
		}
		ltm_planes(rgb, want, 0);
		colour_reference(st, mask, want, w, h);
		if (mask & 1) {
			vk_rgb_step_ccm(rgb, &st->ccm, &one);
			vk_rgb_step_fuse(&colour, &one);
		}
		if (mask & 2) {
			CHECK_EQ(vk_rgb_step_ltm(rgb, &st->ltm, &one), 0);
			vk_rgb_step_fuse(&colour, &one);
		}
		if (mask & 4) {
			CHECK_EQ(vk_rgb_step_tone(rgb, &st->tone, &one), 0);
			vk_rgb_step_fuse(&colour, &one);
		}
		if (mask & 8) {
			vk_rgb_step_lut3d(rgb, &st->lut3d, &one);
			vk_rgb_step_fuse(&colour, &one);
		}
		CHECK_EQ(vk_rgb_run(rgb, &colour, 1), 0);
		got = rgb->planes.map;
		for (uint32_t i = 0; i < 3 * w * h; i++) {
			if (got[i] != want[i]) {
				test_fail(__FILE__, __LINE__, "stages %#x, %ux%u: sample %u is %u, the reference's %u", mask, w,
					  h, i, got[i], want[i]);
				break;
			}
		}
		free(want);
		vk_rgb_destroy(rgb);
	}
out:
	free(st);
	vk_gpu_close(g);
}

/* Params the reference refuses are refused, and the tables held before are not used after. */
TEST(vulkan_ltm_errors)
{
	const uint32_t none[CISP_MAX_OUTPUTS] = { 0 };
	struct vk_gpu *g = ltm_gpu();
	struct cisp_ltm_coeffs *c = malloc(sizeof(*c));
	struct cisp_ltm_params *p = malloc(sizeof(*p)), *bad = malloc(sizeof(*bad));
	struct vk_rgb *rgb = NULL;
	uint16_t want[65 * 3 * 3];
	struct vk_rgb_step step;

	if (!g || !c || !p || !bad || vk_rgb_create(g, 65, 3, NULL, none, &rgb))
		goto out;
	ltm_params(p, 4, 3, 0);
	check_ltm(rgb, p, c, want, 0);
	for (int k = 0; k < 6; k++) {
		*bad = *p;
		switch (k) {
		case 0: bad->grid_w = 1; break;
		case 1: bad->grid_h = CISP_LTM_MAX_GRID + 1; break;
		case 2: bad->range = 63; break;
		case 3: bad->range = 1025; break;
		case 4: bad->node[5] = 4096; break;        /* a level */
		default: bad->node[12 + 7] = 15; break;    /* a gain */
		}
		CHECK_EQ(vk_rgb_step_ltm(rgb, bad, &step), -EINVAL);
		CHECK(strstr(cisp_last_error(), "LTM") != NULL);
		check_ltm(rgb, p, c, want, 0);
	}
out:
	vk_rgb_destroy(rgb);
	free(c);
	free(p);
	free(bad);
	vk_gpu_close(g);
}

/* What the backend's plan messages said: frames whole on the GPU, frames handed over to the CPU. */
struct plans {
	int whole, handed_over;
};

static void catch_plan(enum cisp_log_level level, const char *message, void *opaque)
{
	struct plans *seen = opaque;

	seen->whole += strstr(message, "Vulkan backend: the GPU runs") && strstr(message, "and every later stage");
	seen->handed_over += strstr(message, "Vulkan backend: the GPU runs") && strstr(message, "the CPU the rest");
	if (level <= CISP_LOG_WARN)
		fprintf(stderr, "cisp: %s\n", message);
}

/*
 * @count frames of @state[i] through one context on a CISP_ISP=vulkan device
 * against the software ISP, byte for byte; the backend's own plan message
 * (at the debug level) says each ran whole on the GPU.
 */
static void check_frames(const struct cisp_isp_config *cfg, const struct cisp_param_state *state, int count,
			 const struct cisp_image *in)
{
	struct cisp_device *dev = NULL;
	struct cisp_context *ctx = NULL;
	struct cisp_isp *isp = NULL;
	struct plans seen = { 0, 0 };
	int ret;

	setenv("CISP_ISP", "vulkan", 1);
	ret = cisp_device_create(&dev, &(struct cisp_device_config){ .workers = 1 });
	unsetenv("CISP_ISP");
	CHECK_EQ(ret, 0);
	ret = dev ? cisp_context_create(&ctx, dev, &(struct cisp_context_config){ .name = "ltm", .isp = *cfg }) : -ENODEV;
	if (ret == -ENODEV && !ltm_gpu())
		goto out; /* no device: said so */
	CHECK_EQ(ret, 0);
	CHECK_EQ(cisp_isp_create(&isp, cfg), 0);
	cisp_log_set_level(CISP_LOG_DEBUG);
	cisp_log_set_sink(catch_plan, &seen);
	for (int f = 0; ctx && isp && f < count; f++) {
		struct cisp_image got[2], want[2];
		struct cisp_stats *stats = calloc(2, sizeof(*stats)); /* padding too: they are compared whole */
		struct cisp_job job = { .num_inputs = 1, .input = { in }, .stats = stats, .output = { &got[0], &got[1] } };
		struct cisp_fence *fence = NULL;
		size_t size = 0;
		void *params;

		/* The whole frame stays on the GPU: every stage it runs has a shader. */
		CHECK(vulkan_plan_frame(&state[f], true).rgb);
		cisp_params_encode(&state[f], ~0u, NULL, 0, &size);
		params = malloc(size);
		CHECK_EQ(cisp_params_encode(&state[f], ~0u, params, size, &size), 0);
		job.params = params;
		job.params_size = size;
		for (int i = 0; i < 2; i++) {
			CHECK_EQ(cisp_image_alloc(&got[i], cfg->output[i].format, cfg->width, cfg->height), 0);
			CHECK_EQ(cisp_image_alloc(&want[i], cfg->output[i].format, cfg->width, cfg->height), 0);
		}
		CHECK_EQ(cisp_job_submit(ctx, &job, &fence), 0);
		CHECK_EQ(fence ? cisp_fence_wait(fence, -1) : -1, 0);
		CHECK_EQ(cisp_fence_error(fence), 0);
		CHECK_EQ(cisp_isp_set_state(isp, &state[f], ~0u), 0);
		CHECK_EQ(cisp_isp_process(isp, in, (struct cisp_image *const[CISP_MAX_OUTPUTS]){ &want[0], &want[1] },
					  &stats[1], NULL),
			 0);
		/* The device numbers the context's frames; the software ISP was given no sequence. */
		CHECK_EQ(stats[0].sequence, (uint64_t)f);
		stats[1].sequence = stats[0].sequence;
		CHECK(!memcmp(&stats[0], &stats[1], sizeof(*stats)));
		for (int i = 0; i < 2; i++) {
			if (!test_same_pixels(&got[i], &want[i]))
				test_fail(__FILE__, __LINE__, "frame %d: output %d (%s) differs from the software ISP's", f,
					  i, cisp_format_name(cfg->output[i].format));
			cisp_image_free(&got[i]);
			cisp_image_free(&want[i]);
		}
		cisp_fence_unref(fence);
		free(params);
		free(stats);
	}
	cisp_log_set_sink(NULL, NULL);
	cisp_log_set_level(CISP_LOG_WARN);
	CHECK(seen.whole >= 1);
	CHECK_EQ(seen.handed_over, 0);
out:
	cisp_isp_destroy(isp);
	cisp_context_destroy(ctx);
	cisp_device_destroy(dev);
}

/*
 * A 132x20 RAW12 frame with white balance, a matrix, LTM, a tone curve with
 * sRGB and chroma denoise, into NV12 and RGB888: a 4x3 grid with strong gains, the
 * same again (the tables kept), then a 32x32 grid at the extremes.
 */
TEST(vulkan_ltm_pipeline_bitexact)
{
	const uint32_t w = 132, h = 20;
	const struct cisp_isp_config cfg = { CISP_FMT_SGRBG12P, w, h,
					     { { CISP_FMT_NV12, w, h }, { CISP_FMT_RGB888, w, h } }, NULL };
	struct cisp_param_state *state = malloc(3 * sizeof(*state));
	struct cisp_image in;

	CHECK_EQ(cisp_image_alloc(&in, cfg.input_format, w, h), 0);
	for (size_t i = 0; i < (size_t)in.plane[0].stride * h; i++)
		in.plane[0].data[i] = (uint8_t)test_rand();
	cisp_param_state_init(&state[0]);
	state[0].enabled |= CISP_BLOCK_BIT(CISP_BLOCK_LTM) | CISP_BLOCK_BIT(CISP_BLOCK_CNR) |
			    CISP_BLOCK_BIT(CISP_BLOCK_NOISE) | CISP_BLOCK_BIT(CISP_BLOCK_STATS);
	state[0].wb.gain[0] = 8000;
	state[0].wb.gain[3] = 6000;
	state[0].tone.transfer = CISP_TRANSFER_SRGB;
	for (int c = 0; c < 4; c++) {
		state[0].noise.a[c] = 1u << 22;
		state[0].noise.b[c] = 1u << 26;
	}
	ltm_params(&state[0].ltm, 4, 3, 0);
	state[1] = state[0];
	state[2] = state[0];
	ltm_params(&state[2].ltm, CISP_LTM_MAX_GRID, CISP_LTM_MAX_GRID, 1);
	check_frames(&cfg, state, 3, &in);
	cisp_image_free(&in);
	free(state);
}

/*
 * The sensor tuning's own parameters: the control loop with
 * data/tuning/cisp-test.yaml (LTM and chroma denoise on) sets the params
 * from a frame of the virtual sensor's HDR scene, and the next frame runs
 * whole on the GPU with them, byte for byte with the software ISP.
 */
TEST(vulkan_ltm_tuning_bitexact)
{
	struct cisp_sensor *sensor = NULL;
	struct cisp_tuning *t = NULL;
	struct cisp_control *loop = NULL;
	struct cisp_control_config cfg = { 0 };
	struct cisp_control_result res;
	struct cisp_sensor_metadata md;
	struct cisp_image raw = { 0 };
	struct cisp_stats *st = calloc(1, sizeof(*st));
	struct cisp_isp *isp = NULL;
	struct cisp_param_state state;

	CHECK_EQ(cisp_tuning_load(&t, CISP_SOURCE_DIR "/data/tuning/cisp-test.yaml"), 0);
	CHECK_EQ(cisp_sensor_open(&sensor, "virtual:cisp-test", "scene=hdr,seed=4"), 0);
	if (!t || !sensor || !st)
		goto out;
	CHECK_EQ(cisp_sensor_get_mode(sensor, 0, &cfg.mode), 0);
	for (int i = 0; i < CISP_SENSOR_NUM_CONTROLS; i++)
		CHECK_EQ(cisp_sensor_control_info(sensor, (enum cisp_sensor_control)i, &cfg.controls[i]), 0);
	cfg.tuning = t;
	CHECK_EQ(cisp_control_create(&loop, &cfg), 0);
	CHECK_EQ(cisp_control_start(loop, &res), 0);

	const struct cisp_isp_config ic = { cfg.mode.format, cfg.mode.width, cfg.mode.height,
					    { { CISP_FMT_NV12, cfg.mode.width, cfg.mode.height },
					      { CISP_FMT_RGB888, cfg.mode.width, cfg.mode.height } },
					    NULL };

	CHECK_EQ(cisp_isp_create(&isp, &ic), 0);
	CHECK_EQ(cisp_image_alloc(&raw, cfg.mode.format, cfg.mode.width, cfg.mode.height), 0);
	CHECK_EQ(cisp_isp_set_state(isp, res.params, ~0u), 0);
	CHECK_EQ(cisp_sensor_set_controls(sensor, &res.sensor), 0);
	CHECK_EQ(cisp_sensor_start(sensor), 0);
	CHECK_EQ(cisp_sensor_capture(sensor, &raw, &md, 0), 0);
	cisp_sensor_stop(sensor);
	CHECK_EQ(cisp_isp_statistics(isp, &raw, NULL, st, NULL), 0);
	CHECK_EQ(cisp_control_process(loop, st, &md, &res), 0);
	/* The tuning turns both on; LTM used to send the frame to the CPU after the statistics. */
	CHECK(res.params->enabled & CISP_BLOCK_BIT(CISP_BLOCK_LTM));
	CHECK(res.params->enabled & CISP_BLOCK_BIT(CISP_BLOCK_CNR));
	/* Every stage the tuning and the control loop turn on (highlights too) is on the GPU. */
	CHECK(res.params->enabled & CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS));
	state = *res.params;
	check_frames(&ic, &state, 1, &raw);
out:
	cisp_image_free(&raw);
	cisp_isp_destroy(isp);
	cisp_control_destroy(loop);
	cisp_sensor_close(sensor);
	cisp_tuning_free(t);
	free(st);
}
#else
TEST(vulkan_ltm_not_built)
{
	const char *require = getenv("CISP_REQUIRE_VULKAN");

	if (require && !strcmp(require, "1"))
		test_fail(__FILE__, __LINE__, "CISP_REQUIRE_VULKAN=1 and this build has no Vulkan backend");
	else
		test_skip("NO VULKAN DEVICE, local tone mapping on the GPU is NOT tested: this build has no Vulkan backend");
}
#endif
