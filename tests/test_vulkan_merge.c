/* SPDX-License-Identifier: MIT */
/*
 * Exposure brackets and bursts on the GPU (shaders/merge.comp, docs/gpu.md):
 * the merge shader against cisp_merge_rows() on random frames with
 * saturated and moving regions at ratios 1..256, whole brackets in one
 * submission against the reference's merges chained, then whole
 * CISP_JOB_MERGE_HDR and CISP_JOB_SELECT_SHARPEST jobs through a device with
 * CISP_ISP=vulkan against the software backend byte for byte (outputs,
 * statistics, job result), with every stage on the GPU and handed over to
 * the CPU (CISP_VULKAN_HAND_OVER=1, a device without shaderInt64). Without a Vulkan
 * device the tests say so loudly and skip, unless CISP_REQUIRE_VULKAN=1
 * (CI): then that is a failure.
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
#include <cisp/params_state.h>

#include "test.h"

#ifdef CISP_VULKAN_BUILT
#include "device/vulkan_backend.h"
#include "device/vulkan_frame.h"
#include "isp/merge.h"

/* The device, or NULL: no device is a failure where CI requires one, else a loud skip. */
static struct vk_gpu *open_gpu(void)
{
	return test_vulkan_gpu("the Vulkan backend's bracket merge is");
}

/*
 * The merge so far (@acc, at the longer exposure) and the shorter frame
 * (@s), @ratio apart, in runs of columns: consistent (acc = ratio x s,
 * clipped), saturated, around the knee, a moved object (far apart), small
 * noise, and anything at random.
 */
static void bracket_rows(uint16_t *acc, uint16_t *s, uint32_t w, uint32_t h, uint32_t ratio)
{
	for (uint32_t y = 0; y < h; y++) {
		unsigned kind = 0;

		for (uint32_t x = 0; x < w; x++) {
			const size_t i = (size_t)y * w + x;
			uint32_t base = (uint32_t)(test_rand() % 65536) / ratio, a;

			if (x % 6 == 0)
				kind = (unsigned)(test_rand() % 6);
			s[i] = (uint16_t)base;
			a = base * ratio;
			switch (kind) {
			case 1: /* saturated */
				a = 65535;
				break;
			case 2: /* around the knee */
				a = CISP_MERGE_KNEE - 512 + (uint32_t)(test_rand() % 5120);
				break;
			case 3: /* something moved: far from the scaled frame */
				s[i] = (uint16_t)(test_rand() % 65536);
				break;
			case 4: /* noise */
				a += (uint32_t)(test_rand() % 64);
				break;
			case 5:
				a = (uint32_t)(test_rand() % 65536);
				s[i] = (uint16_t)(test_rand() % 65536);
				break;
			}
			acc[i] = (uint16_t)(a > 65535 ? 65535 : a);
		}
	}
}

/*
 * The shader against cisp_merge_rows() on 16-bit frames of every CFA order
 * (the unpack is the identity), 2x2 to 1030x2: pair counts odd and even, on
 * both sides of the 64-pair workgroup, rows shorter than the 9-column
 * window; ratios 1, 2, 4, 256 and random ones, with random shorter exposures.
 */
TEST(vulkan_merge_bitexact)
{
	static const struct {
		uint32_t w, h;
	} sizes[] = { { 2, 2 }, { 4, 2 }, { 6, 4 }, { 10, 2 }, { 130, 6 }, { 254, 4 }, { 1030, 2 } };
	static const uint32_t ratios[] = { 1, 2, 4, 256 };
	struct vk_gpu *g = open_gpu();
	size_t ghosts = 0, blended = 0; /* samples the reference took from the shorter frame: the inputs reach them */
	int trial = 0;

	for (unsigned z = 0; g && z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		const uint32_t w = sizes[z].w, h = sizes[z].h;
		uint16_t *acc = malloc((size_t)w * h * 2), *want = malloc((size_t)w * h * 2);

		for (int cfa = 0; cfa < 4; cfa++) {
			const uint32_t format = cisp_bayer_format((enum cisp_cfa)cfa, 16, false);
			struct vk_frame *f = NULL;
			struct cisp_image img;

			CHECK_EQ(cisp_image_alloc(&img, format, w, h), 0);
			CHECK_EQ(vk_frame_create(g, format, w, h, &f), 0);
			CHECK(f && !f->merge); /* made at the first bracket only */
			CHECK_EQ(f ? vk_frame_merge_open(f) : -1, 0);
			for (int r = 0; f && f->merge && r < 6; r++, trial++) {
				const uint32_t ratio = r < 4 ? ratios[r] : 1 + (uint32_t)(test_rand() % 256);
				const uint32_t shorter = 1 + (uint32_t)(test_rand() % 100000);
				uint16_t *s = (uint16_t *)img.plane[0].data;
				const struct plane16 pa = { acc, w, 0, (int)w, (int)h, 0 };
				const struct plane16 ps = { s, img.plane[0].stride / 2, 0, (int)w, (int)h, 0 };
				const struct plane16 po = { want, w, 0, (int)w, (int)h, 0 };
				struct cisp_merge_coeffs c;
				struct vk_step steps[2];
				const uint16_t *got;

				/* The frame's rows are padded: make them tight, then spread them out. */
				bracket_rows(acc, want, w, h, ratio);
				for (uint32_t y = h; y-- > 0;)
					memmove(s + (size_t)y * ps.stride, want + (size_t)y * w, (size_t)w * 2);
				cisp_merge_prepare(&c, shorter * ratio, shorter);
				memcpy(f->merge->acc[0].map, acc, (size_t)w * h * 2);
				cisp_merge_rows(&c, &pa, &ps, &po, 0, (int)h);
				vk_step_unpack(f, &steps[0]);
				vk_step_merge(f, &c, &steps[1]);
				CHECK_EQ(vk_frame_run(f, &img, steps, 2, &got), 0);
				for (size_t i = 0; i < (size_t)w * h; i++) {
					const uint16_t sv = s[(i / w) * (size_t)ps.stride + i % w];
					const uint16_t scaled = (uint16_t)(((uint32_t)acc[i] * c.scale + 8192) >> 14);

					ghosts += acc[i] < CISP_MERGE_KNEE && want[i] == sv && sv != scaled;
					blended += want[i] != sv && want[i] != scaled;
					if (got[i] != want[i]) {
						test_fail(__FILE__, __LINE__,
							  "%ux%u %s ratio %u (scale %u): sample (%zu, %zu) is %u, the reference's %u "
							  "(acc %u, s %u)",
							  w, h, cisp_format_name(format), ratio, c.scale, i % w, i / w, got[i], want[i],
							  acc[i], sv);
						break;
					}
				}
			}
			vk_frame_destroy(f);
			cisp_image_free(&img);
		}
		free(acc);
		free(want);
	}
	CHECK(!g || (ghosts > 1000 && blended > 1000));
	vk_gpu_close(g);
}

/*
 * Whole brackets at the frame level: 2, 3 and 8 16-bit frames (each an image
 * of its own, exposures out of order and equal ones), through
 * vk_frame_merge() and one vk_frame_run() with the unpack as the exposure
 * steps, against the reference's merges chained (cisp_merge_rows() over the
 * frames in cisp_merge_order()); the inputs imported where they are and
 * copied. One submission a bracket (the device's timeline moves by one),
 * and, importing, every frame imported. The merge shader copies nothing: the
 * first frame's unpack writes the merge buffer itself (an exposure step of
 * more than one dispatch is refused).
 */
TEST(vulkan_merge_bracket_bitexact)
{
	static const struct {
		unsigned n;
		uint32_t exposure[CISP_JOB_MAX_INPUTS];
	} brackets[] = { { 2, { 100, 400 } },
			 { 3, { 400, 1600, 100 } },
			 { 8, { 800, 100, 3200, 100, 25600, 400, 200, 1600 } } };
	const uint32_t w = 130, h = 6, format = CISP_FMT_SGRBG16;
	struct vk_gpu *g = open_gpu();
	uint16_t *acc = malloc((size_t)w * h * 2), *next = malloc((size_t)w * h * 2);

	for (unsigned b = 0; g && b < sizeof(brackets) / sizeof(brackets[0]); b++) {
		for (int import = 0; import < 2; import++) {
			const unsigned n = brackets[b].n;
			struct cisp_device_frame job = { .mode = CISP_JOB_MERGE_HDR, .num_inputs = n };
			struct cisp_image in[CISP_JOB_MAX_INPUTS];
			unsigned order[CISP_JOB_MAX_INPUTS];
			const struct cisp_image *last = NULL;
			struct vk_frame *f = NULL;
			struct vk_step steps[2];
			const uint16_t *got = NULL;
			unsigned long imports;
			uint64_t submitted;

			CHECK_EQ(vk_frame_create(g, format, w, h, &f), 0);
			if (!f)
				break;
			f->import_input = import && g->host_import;
			/* A scene at each exposure, clipped, with noise and a square that moves. */
			for (unsigned k = 0; k < n; k++) {
				CHECK_EQ(cisp_image_alloc(&in[k], format, w, h), 0);
				for (uint32_t y = 0; y < h; y++)
					for (uint32_t x = 0; x < w; x++) {
						const bool square = x >= 8 * k && x < 8 * k + 12;
						uint64_t v = (uint64_t)(square ? 3000 : (x * 97 + y * 1013) % 4096) *
							     brackets[b].exposure[k] / 100;

						v += test_rand() % 64;
						((uint16_t *)(in[k].plane[0].data + y * in[k].plane[0].stride))[x] =
							(uint16_t)(v > 65535 ? 65535 : v);
					}
				job.input[k] = &in[k];
				job.exposure[k] = brackets[b].exposure[k];
			}
			cisp_merge_order(job.exposure, n, order);
			for (uint32_t y = 0; y < h; y++)
				memcpy(acc + (size_t)y * w, in[order[0]].plane[0].data + y * in[order[0]].plane[0].stride,
				       (size_t)w * 2);
			for (unsigned k = 1; k < n; k++) {
				const struct cisp_image *s = &in[order[k]];
				const struct plane16 pa = { acc, w, 0, (int)w, (int)h, 0 };
				const struct plane16 ps = { (uint16_t *)s->plane[0].data, s->plane[0].stride / 2, 0, (int)w,
							    (int)h, 0 };
				const struct plane16 po = { next, w, 0, (int)w, (int)h, 0 };
				struct cisp_merge_coeffs c;

				cisp_merge_prepare(&c, job.exposure[order[k - 1]], job.exposure[order[k]]);
				cisp_merge_rows(&c, &pa, &ps, &po, 0, (int)h);
				memcpy(acc, next, (size_t)w * h * 2);
			}
			vk_step_unpack(f, &steps[0]);
			CHECK_EQ(vk_frame_merge(f, &job, &steps[1], &last), 0);
			CHECK(last == &in[order[n - 1]]);
			imports = f->imports;
			submitted = g->timeline_value;
			CHECK_EQ(vk_frame_run(f, last, steps, 2, &got), 0);
			CHECK_EQ(g->timeline_value, submitted + 1);
			CHECK_EQ(f->imports - imports, f->import_input ? n : 0);
			for (size_t i = 0; got && i < (size_t)w * h; i++)
				if (got[i] != acc[i]) {
					test_fail(__FILE__, __LINE__, "a bracket of %u, %s: sample (%zu, %zu) is %u, the reference's %u",
						  n, f->import_input ? "imported" : "copied", i % w, i / w, got[i], acc[i]);
					break;
				}
			/* The first frame's last exposure step writes the merge buffer: one of one dispatch, or refused. */
			if (b == 0 && !import) {
				const struct vk_step two[3] = { steps[0], steps[1], steps[1] };

				CHECK_EQ(vk_frame_merge(f, &job, &steps[1], &last), 0);
				CHECK_ERR(vk_frame_run(f, last, two, 3, &got), -EINVAL, "stages of one dispatch each");
			}
			vk_frame_destroy(f);
			for (unsigned k = 0; k < n; k++)
				cisp_image_free(&in[k]);
		}
	}
	free(acc);
	free(next);
	vk_gpu_close(g);
}

/* One job in @mode of @n inputs (a bracket's @exposure, else NULL) on a new context of @dev: 0 or the job's error. */
static int multi_job(struct cisp_device *dev, const struct cisp_isp_config *cfg, const struct cisp_param_state *state,
		     uint32_t mode, const struct cisp_image *in, const uint32_t *exposure, unsigned n,
		     struct cisp_image *const *out, struct cisp_stats *stats, struct cisp_job_result *result)
{
	struct cisp_job job = { .mode = mode, .num_inputs = n, .stats = stats, .result = result };

	for (unsigned k = 0; k < n; k++) {
		job.input[k] = &in[k];
		job.exposure[k] = exposure ? exposure[k] : 0;
	}
	memcpy(job.output, out, sizeof(job.output));
	return test_device_job(dev, cfg, state, &job);
}

/*
 * A 12-bit bracket (16-bit containers) of a scene: frame k at
 * exposure[k], clipped at the sensor's white, above a black level of 256,
 * with noise, and a square that moves between the frames.
 */
static void bracket_frames(struct cisp_image *in, const uint32_t *exposure, unsigned n, uint32_t format, uint32_t w,
			   uint32_t h)
{
	uint32_t lo = UINT32_MAX;
	uint16_t *scene = malloc((size_t)w * h * 2);

	/* Random, but smooth ramps across the whole range in the first rows: the longer frames cross the knee there. */
	for (size_t i = 0; i < (size_t)w * h; i++)
		scene[i] = (uint16_t)(i / w < 6 ? (i % w) * (4096 >> (i / w)) / w : test_rand() % 4096);
	for (unsigned k = 0; k < n; k++)
		lo = exposure[k] < lo ? exposure[k] : lo;
	for (unsigned k = 0; k < n; k++) {
		CHECK_EQ(cisp_image_alloc(&in[k], format, w, h), 0);
		for (uint32_t y = 0; y < h; y++) {
			uint16_t *row = (uint16_t *)(in[k].plane[0].data + y * in[k].plane[0].stride);

			for (uint32_t x = 0; x < w; x++) {
				const bool square = x >= 10 + 12 * k && x < 30 + 12 * k && y >= 4 && y < 14;
				uint64_t v = (uint64_t)(square ? 3000 : scene[(size_t)y * w + x]) * exposure[k] / lo / 8;

				v += 256 + test_rand() % 8;
				row[x] = (uint16_t)(v > 4095 ? 4095 : v);
			}
		}
	}
	free(scene);
}

/* What the backend's plan messages said: frames (brackets: merged) on the GPU, whole there or handed over to the CPU. */
struct plans {
	int whole, handed_over, merged;
};

static void catch_plan(enum cisp_log_level level, const char *message, void *opaque)
{
	struct plans *seen = opaque;
	const bool plan = strstr(message, "Vulkan backend: the GPU runs unpack") != NULL;

	seen->whole += plan && strstr(message, "and every later stage");
	seen->handed_over += plan && strstr(message, "the CPU the rest");
	seen->merged += plan && strstr(message, ", merge");
	if (level <= CISP_LOG_WARN)
		fprintf(stderr, "cisp: %s\n", message);
}

/* The Vulkan and the software device, each with one worker (NULL both where there is no Vulkan device). */
static bool open_devices(struct cisp_device **vk, struct cisp_device **sw)
{
	struct vk_gpu *g = open_gpu();

	*vk = *sw = NULL;
	if (!g)
		return false;
	vk_gpu_close(g);
	setenv("CISP_ISP", "vulkan", 1);
	CHECK_EQ(cisp_device_create(vk, &(struct cisp_device_config){ .workers = 1 }), 0);
	unsetenv("CISP_ISP");
	CHECK_EQ(cisp_device_create(sw, &(struct cisp_device_config){ .workers = 1 }), 0);
	return *vk && *sw;
}

/*
 * Job @j (@what: "bracket" or "burst") of @n inputs in @mode on @vk and on
 * @sw into new images of @cfg's two outputs: outputs and statistics byte for
 * byte; each backend's statistics and result in @stats and @result, [0]
 * the Vulkan one's.
 */
static void run_on_both(struct cisp_device *vk, struct cisp_device *sw, const struct cisp_isp_config *cfg,
			const struct cisp_param_state *state, uint32_t mode, const struct cisp_image *in,
			const uint32_t *exposure, unsigned n, const char *what, unsigned j, struct cisp_image out[2][2],
			struct cisp_stats stats[2], struct cisp_job_result result[2])
{
	memset(stats, 0, 2 * sizeof(*stats));
	memset(result, 0, 2 * sizeof(*result));
	for (int d = 0; d < 2; d++) {
		for (int i = 0; i < 2; i++)
			CHECK_EQ(cisp_image_alloc(&out[d][i], cfg->output[i].format, cfg->output[i].width,
						  cfg->output[i].height), 0);
		if (multi_job(d ? sw : vk, cfg, state, mode, in, exposure, n,
			      (struct cisp_image *const[CISP_MAX_OUTPUTS]){ &out[d][0], &out[d][1] }, &stats[d], &result[d]))
			test_fail(__FILE__, __LINE__, "%s %u on the %s backend: %s", what, j, d ? "software" : "Vulkan",
				  cisp_last_error());
	}
	for (int i = 0; i < 2; i++)
		if (!test_same_pixels(&out[0][i], &out[1][i]))
			test_fail(__FILE__, __LINE__, "%s %u: output %d differs from the software backend's", what, j, i);
	CHECK(!memcmp(&stats[0], &stats[1], sizeof(stats[0])));
}

/* The @n inputs and both backends' two outputs of run_on_both(). */
static void free_both(struct cisp_image *in, unsigned n, struct cisp_image out[2][2])
{
	for (unsigned k = 0; k < n; k++)
		cisp_image_free(&in[k]);
	for (int d = 0; d < 2; d++) {
		cisp_image_free(&out[d][0]);
		cisp_image_free(&out[d][1]);
	}
}

/*
 * Bracket @j of @n frames at @exposure (a SGBRG12 132x16 scene) with @state,
 * an RGB888 output and an NV12 one (@half: of half the size), on @vk and
 * on @sw: both outputs, the statistics and the job's result byte for byte.
 */
static void check_bracket(struct cisp_device *vk, struct cisp_device *sw, const struct cisp_param_state *state,
			  unsigned j, unsigned n, const uint32_t *exposure, bool half)
{
	const uint32_t w = 132, h = 16, format = CISP_FMT_SGBRG12;
	const uint32_t ow = half ? w / 2 : w, oh = half ? h / 2 : h;
	const struct cisp_isp_config cfg = { format, w, h, { { CISP_FMT_RGB888, w, h }, { CISP_FMT_NV12, ow, oh } }, NULL };
	struct cisp_image in[3], out[2][2];
	struct cisp_stats stats[2];
	struct cisp_job_result result[2];

	bracket_frames(in, exposure, n, format, w, h);
	run_on_both(vk, sw, &cfg, state, CISP_JOB_MERGE_HDR, in, exposure, n, "bracket", j, out, stats, result);
	CHECK(stats[0].hist[0] + stats[0].hist[255] < (uint32_t)w * h / 8); /* most of the w h / 4 cells between: an image */
	CHECK_EQ(result[0].status, result[1].status);
	CHECK_EQ(result[0].error, result[1].error);
	CHECK_EQ(result[0].sequence, result[1].sequence);
	CHECK_EQ(result[0].selected, result[1].selected);
	free_both(in, n, out);
}

/* The brackets' state: statistics and tone on, black level at 4096 where @blc, else off. */
static void bracket_state(struct cisp_param_state *state, bool blc)
{
	cisp_param_state_init(state);
	state->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_STATS) | CISP_BLOCK_BIT(CISP_BLOCK_TONE);
	if (blc) {
		state->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_BLC);
		state->blc.black[0] = state->blc.black[1] = state->blc.black[2] = state->blc.black[3] = 4096;
		state->blc.white = 65000;
	} else {
		state->enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_BLC);
	}
}

/*
 * Whole bracket jobs of 2 and 3 frames (exposures out of order, equal ones,
 * ratios up to 256) through a device with CISP_ISP=vulkan, against the
 * software backend: the outputs, the statistics and the job's result byte
 * for byte; with full-size and half-size outputs, and without black level
 * (the unpack alone before the merge). The backend's plan message says each
 * merged on the GPU and ran whole there. Bad brackets (an exposure 0, a
 * ratio over 256, one frame) fail at submission.
 */
TEST(vulkan_merge_jobs_bitexact)
{
	static const struct {
		unsigned n;
		uint32_t exposure[3];
		bool half, blc;
	} jobs[] = {
		{ 2, { 100, 400 }, false, true },   { 3, { 400, 1600, 100 }, false, true },
		{ 3, { 300, 300, 75 }, true, true }, { 2, { 25600, 100 }, true, false },
		{ 3, { 7, 1000, 93 }, false, false },
	};
	const unsigned count = sizeof(jobs) / sizeof(jobs[0]);
	struct plans seen = { 0, 0, 0 };
	const uint32_t w = 132, h = 16, format = CISP_FMT_SGBRG12;
	struct cisp_device *vk = NULL, *sw = NULL;
	struct cisp_param_state state;

	if (!open_devices(&vk, &sw))
		return;
	cisp_log_set_level(CISP_LOG_DEBUG);
	cisp_log_set_sink(catch_plan, &seen);
	for (unsigned j = 0; j < count; j++) {
		struct vulkan_plan plan;

		bracket_state(&state, jobs[j].blc);
		plan = vulkan_plan_frame(&state, true);
		CHECK(plan.rgb && plan.blc == jobs[j].blc);
		check_bracket(vk, sw, &state, j, jobs[j].n, jobs[j].exposure, jobs[j].half);
	}
	cisp_log_set_sink(NULL, NULL);
	cisp_log_set_level(CISP_LOG_WARN);
	CHECK_EQ(seen.whole, (int)count); /* each a new context: one message each */
	CHECK_EQ(seen.merged, (int)count);
	CHECK_EQ(seen.handed_over, 0);
	/* Bad brackets fail at submission, on this backend as on any. */
	{
		const struct cisp_isp_config cfg = { format, w, h, { { CISP_FMT_RGB888, w, h } }, NULL };
		static const uint32_t exposure[3][2] = { { 100, 0 }, { 100, 25700 }, { 100, 0 } };
		static const char *const why[3] = { "job exposure 1 is 0", "more than the ratio 256",
						    "a merge-hdr job takes 2..8 inputs, not 1" };
		struct cisp_context *ctx = NULL;
		struct cisp_image in[2], out;

		bracket_frames(in, (const uint32_t[]){ 1, 1 }, 2, format, w, h);
		CHECK_EQ(cisp_image_alloc(&out, CISP_FMT_RGB888, w, h), 0);
		CHECK_EQ(cisp_context_create(&ctx, vk, &(struct cisp_context_config){ .name = "bad", .isp = cfg }), 0);
		for (int k = 0; ctx && k < 3; k++) {
			struct cisp_job job = { .mode = CISP_JOB_MERGE_HDR, .num_inputs = k < 2 ? 2 : 1,
						.input = { &in[0], k < 2 ? &in[1] : NULL },
						.exposure = { exposure[k][0], exposure[k][1] }, .output = { &out } };
			struct cisp_fence *fence = NULL;

			CHECK_ERR(cisp_job_submit(ctx, &job, &fence), -EINVAL, why[k]);
			CHECK(fence == NULL);
		}
		cisp_context_destroy(ctx);
		cisp_image_free(&in[0]);
		cisp_image_free(&in[1]);
		cisp_image_free(&out);
	}
	cisp_device_destroy(vk);
	cisp_device_destroy(sw);
}

/*
 * Frame @k of a burst of a random 12-bit scene: 0 as is, 1 blurred (each
 * sample the mean of its row's same-colour neighbours), 2 with more noise,
 * 3 as 0 (a tie with it).
 */
static void burst_frame(struct cisp_image *img, const uint16_t *scene, unsigned k, uint32_t w, uint32_t h)
{
	CHECK_EQ(cisp_image_alloc(img, CISP_FMT_SRGGB12, w, h), 0);
	for (uint32_t y = 0; y < h; y++) {
		uint16_t *row = (uint16_t *)(img->plane[0].data + y * img->plane[0].stride);
		const uint16_t *s = scene + (size_t)y * w;

		for (uint32_t x = 0; x < w; x++) {
			uint32_t v = s[x];

			if (k == 1 && x >= 2 && x + 2 < w)
				v = (s[x - 2] + 2u * s[x] + s[x + 2]) / 4;
			if (k == 2)
				v = v + (uint32_t)(test_rand() % 512) > 4095 ? 4095 : v + (uint32_t)(test_rand() % 512);
			row[x] = (uint16_t)v;
		}
	}
}

/* A burst's frames and outputs: 128x24. */
#define BURST_W 128
#define BURST_H 24

/* The bursts' state: black level and defect correction on, the statistics where @stats, AF windows where @windows. */
static void burst_state(struct cisp_param_state *state, bool stats, bool windows)
{
	cisp_param_state_init(state);
	state->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_BLC) | CISP_BLOCK_BIT(CISP_BLOCK_DPC);
	state->blc.black[0] = state->blc.black[1] = state->blc.black[2] = state->blc.black[3] = 4096;
	state->dpc.threshold = 3000;
	if (stats)
		state->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_STATS);
	else
		state->enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_STATS);
	if (windows) {
		state->stats.af_count = 2;
		state->stats.af[0] = (struct cisp_stats_window){ 0, 0, 64, 12 };
		state->stats.af[1] = (struct cisp_stats_window){ 66, 8, 62, 16 };
	}
}

/*
 * Burst @j, the frames @order (burst_frame()'s) of @scene, with @state, an
 * RGB888 output and an NV12 one, on @vk and on @sw: the input chosen (also
 * @selected), every score, the outputs and the statistics byte for byte.
 */
static void check_burst(struct cisp_device *vk, struct cisp_device *sw, const struct cisp_param_state *state,
			unsigned j, const uint16_t *scene, const unsigned *order, unsigned n, unsigned selected)
{
	const uint32_t w = BURST_W, h = BURST_H;
	const struct cisp_isp_config cfg = { CISP_FMT_SRGGB12, w, h, { { CISP_FMT_RGB888, w, h }, { CISP_FMT_NV12, w, h } },
					     NULL };
	struct cisp_image in[4], out[2][2];
	struct cisp_stats stats[2];
	struct cisp_job_result result[2];

	for (unsigned k = 0; k < n; k++)
		burst_frame(&in[k], scene, order[k], w, h);
	run_on_both(vk, sw, &cfg, state, CISP_JOB_SELECT_SHARPEST, in, NULL, n, "burst", j, out, stats, result);
	CHECK_EQ(result[0].selected, selected);
	CHECK_EQ(result[1].selected, selected);
	CHECK(!memcmp(result[0].sharpness, result[1].sharpness, sizeof(result[0].sharpness)));
	CHECK(result[0].sharpness[0] > 0);
	CHECK_EQ(result[0].status, result[1].status);
	CHECK_EQ(result[0].error, result[1].error);
	free_both(in, n, out);
}

/* A random 12-bit scene for the bursts (free() it). */
static uint16_t *burst_scene(void)
{
	uint16_t *scene = malloc((size_t)BURST_W * BURST_H * 2);

	for (size_t i = 0; scene && i < (size_t)BURST_W * BURST_H; i++)
		scene[i] = (uint16_t)(256 + test_rand() % 3840);
	return scene;
}

/*
 * Bursts (CISP_JOB_SELECT_SHARPEST) of 2 to 4 frames through a device with
 * CISP_ISP=vulkan against the software backend: the chosen input, every
 * score, the outputs and the statistics byte for byte; with the context's
 * AF windows and with none (the centred window), the statistics off (the
 * scores all the same), and a tie (the earliest wins).
 */
TEST(vulkan_burst_jobs_bitexact)
{
	static const struct {
		unsigned order[4], n;
		bool windows, stats;
		unsigned selected; /* the frame as is: the reference's scores rank it above the blurred and the noisier one */
	} jobs[] = {
		{ { 1, 0, 2 }, 3, true, true, 1 },  { { 1, 0 }, 2, false, true, 1 },
		{ { 0, 3, 1 }, 3, false, false, 0 }, { { 1, 2, 0, 3 }, 4, true, false, 2 },
	};
	struct cisp_device *vk = NULL, *sw = NULL;
	struct cisp_param_state state;
	uint16_t *scene;

	if (!open_devices(&vk, &sw))
		return;
	scene = burst_scene();
	for (unsigned j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		burst_state(&state, jobs[j].stats, jobs[j].windows);
		check_burst(vk, sw, &state, j, scene, jobs[j].order, jobs[j].n, jobs[j].selected);
	}
	free(scene);
	cisp_device_destroy(vk);
	cisp_device_destroy(sw);
}

/*
 * Brackets and bursts handed over to the CPU, against the software backend
 * as above: with CISP_VULKAN_HAND_OVER=1 (contexts without an RGB side, as
 * one whose outputs are too big for the device's buffers: the GPU's part
 * ends after white balance), a bracket of 2 and one of 3 with black level,
 * a burst with AF windows and the statistics and one without either; and on
 * a device without shaderInt64 (the test's device with its int64 turned off
 * for the while), a bracket with the quality Bayer denoise (handed over
 * after the merge), and a burst with it, which fails as documented. The
 * plan messages say each was handed over.
 */
TEST(vulkan_merge_handed_over_bitexact)
{
	static const unsigned order[2][3] = { { 1, 0, 2 }, { 0, 2 } };
	struct plans seen = { 0, 0, 0 };
	struct cisp_device *vk = NULL, *sw = NULL;
	struct cisp_param_state state;
	struct vk_gpu *g = NULL;
	uint16_t *scene;
	bool int64;

	if (!open_devices(&vk, &sw) || vk_gpu_open(&g))
		return;
	int64 = g->int64;
	scene = burst_scene();
	cisp_log_set_level(CISP_LOG_DEBUG);
	cisp_log_set_sink(catch_plan, &seen);
	setenv("CISP_VULKAN_HAND_OVER", "1", 1);
	bracket_state(&state, true);
	check_bracket(vk, sw, &state, 0, 2, (const uint32_t[]){ 100, 400 }, false);
	check_bracket(vk, sw, &state, 1, 3, (const uint32_t[]){ 300, 300, 75 }, true);
	burst_state(&state, true, true);
	check_burst(vk, sw, &state, 0, scene, order[0], 3, 1);
	burst_state(&state, false, false);
	check_burst(vk, sw, &state, 1, scene, order[1], 2, 0);
	unsetenv("CISP_VULKAN_HAND_OVER");
	CHECK_EQ(seen.whole, 0);
	CHECK_EQ(seen.handed_over, 4);
	CHECK_EQ(seen.merged, 2);

	/* Without shaderInt64: the quality Bayer denoise, and every stage after it, on the CPU. */
	g->int64 = false;
	bracket_state(&state, true);
	state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_BNR);
	state.bnr.mode = CISP_BNR_QUALITY;
	state.bnr.strength = 400;
	CHECK(!vulkan_plan_on(&state, true, false).bnr && !vulkan_plan_on(&state, true, false).stats);
	check_bracket(vk, sw, &state, 2, 2, (const uint32_t[]){ 400, 100 }, false);
	CHECK_EQ(seen.handed_over, 5);
	CHECK_EQ(seen.merged, 3);
	{
		const struct cisp_isp_config cfg = { CISP_FMT_SRGGB12, BURST_W, BURST_H,
						     { { CISP_FMT_RGB888, BURST_W, BURST_H } }, NULL };
		struct cisp_job_result result = { .error = 0 };
		struct cisp_image in[2], out;

		burst_state(&state, true, false);
		state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_BNR);
		state.bnr.mode = CISP_BNR_QUALITY;
		burst_frame(&in[0], scene, 0, BURST_W, BURST_H);
		burst_frame(&in[1], scene, 1, BURST_W, BURST_H);
		CHECK_EQ(cisp_image_alloc(&out, CISP_FMT_RGB888, BURST_W, BURST_H), 0);
		CHECK(multi_job(vk, &cfg, &state, CISP_JOB_SELECT_SHARPEST, in, NULL, 2,
				(struct cisp_image *const[CISP_MAX_OUTPUTS]){ &out }, NULL, &result) != 0);
		CHECK_EQ(result.error, -ENOTSUP);
		CHECK(strstr(result.message, "a burst's statistics need the stages before them on the GPU") != NULL);
		cisp_image_free(&in[0]);
		cisp_image_free(&in[1]);
		cisp_image_free(&out);
	}
	g->int64 = int64;
	cisp_log_set_sink(NULL, NULL);
	cisp_log_set_level(CISP_LOG_WARN);
	free(scene);
	vk_gpu_close(g);
	cisp_device_destroy(vk);
	cisp_device_destroy(sw);
}
#else
/* Not "merge" in its name: CI runs the tests named so in a build without Vulkan (ThreadSanitizer's). */
TEST(vulkan_brackets_not_built)
{
	test_no_vulkan("the Vulkan backend's bracket merge is", "this build has no Vulkan backend");
}
#endif
