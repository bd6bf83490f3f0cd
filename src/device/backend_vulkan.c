/* SPDX-License-Identifier: MIT */
/*
 * The Vulkan backend (vulkan_backend.h, docs/gpu.md). Each context shares the
 * process's Vulkan device, has a frame's buffers on it, and keeps a software
 * ISP for the frames the GPU cannot run whole. A frame goes:
 *
 *   raw input --import or copy--> GPU: unpack[, black level][, bracket merge][, defects]
 *                            [, Bayer denoise (either mode)][, lens shading][, statistics][, white balance]
 *
 * then, when the GPU can run the rest (plan.rgb: every stage has shaders, but
 * the quality Bayer denoise needs shaderInt64; the outputs fit the device's
 * buffers), on through the RGB side (vulkan_rgb.h) to the outputs without the
 * software ISP, else
 *
 *     --> 16-bit Bayer frame (host-visible) --> software ISP: the rest.
 *
 * The software ISP's part reads a 16-bit frame, whose unpack is the
 * identity, with the blocks the GPU ran disabled; since only the unpack
 * reads the input format, and vulkan_plan_frame() keeps white balance on the
 * CPU wherever a stage left there reads its enable bit, the outputs are the
 * software ISP's bit for bit; statistics the GPU reduced are finished by the
 * reference's own accumulator. vulkan_process() is the hand-over: the place
 * where the GPU's part ends and the CPU's begins. The GPU's job is submitted
 * with a timeline semaphore the worker waits on; the device signals the
 * job's cisp fence when process() returns. A bracket (CISP_JOB_MERGE_HDR)
 * is one command buffer: its other frames' unpack and black level first,
 * each from its own raw input, merged in turn (vulkan_merge.h); the merge
 * step of the shortest then stands after its black level. A burst
 * (CISP_JOB_SELECT_SHARPEST) has each input's AF statistics made on the GPU
 * as the software backend scores them, then runs the chosen input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/log.h>

#include "core/error_internal.h"
#include "device/select.h"
#include "device/vulkan_backend.h"
#include "device/vulkan_frame.h"
#include "device/vulkan_rgb.h"

struct vulkan_instance {
	struct vk_gpu *gpu;
	struct vk_frame *frame;
	struct cisp_isp *cpu; /* the stages after the GPU's, on 16-bit Bayer frames */
	struct vk_rgb *rgb;   /* the stages after white balance, when it packs the outputs (else NULL) */
	enum cisp_cfa cfa;
	uint32_t mid_format;  /* of the frames the GPU hands over */
	struct cisp_params_limits limits;
	struct cisp_param_state state;     /* after every delta the device applied */
	struct cisp_param_state cpu_state; /* what the software ISP holds */
	int logged_plan;                   /* the last plan logged (-1: none) */
	bool lsc_held;                     /* the frame's tables hold lens shading for lsc */
	struct cisp_lsc_params lsc;
	struct cisp_stats_sums *sums;      /* the GPU's statistics, read back */
};

struct vulkan_plan vulkan_plan_frame(const struct cisp_param_state *s, bool stats)
{
	return vulkan_plan_on(s, stats, true);
}

struct vulkan_plan vulkan_plan_on(const struct cisp_param_state *s, bool stats, bool int64)
{
	const bool bnr_on = s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_BNR);
	/* The Bayer denoise's quality filter's shaders (vulkan_bnrq.h) need 64-bit integers: without, the CPU runs it. */
	const bool bnr_gpu = bnr_on && (s->bnr.mode != CISP_BNR_QUALITY || int64);
	/* No stage before lens shading stays on the CPU (no vendor stages: create() refuses them). */
	const bool gpu_reaches_tap = !bnr_on || bnr_gpu;
	const bool tap = stats && (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_STATS));
	struct vulkan_plan p = { 0 };

	p.blc = s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_BLC);
	p.dpc = s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_DPC);
	p.bnr = bnr_gpu;
	p.lsc = (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_LSC)) && gpu_reaches_tap;
	p.stats = tap && gpu_reaches_tap;
	/* A tap left on the CPU reads the white-balance bit, and sits before white balance. */
	p.wb = (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_WB)) && gpu_reaches_tap && (!tap || p.stats);
	p.rgb = vulkan_rgb_covers(s, &p, stats);
	return p.rgb ? p : vulkan_plan_handed_over(p, s);
}

struct vulkan_plan vulkan_plan_handed_over(struct vulkan_plan p, const struct cisp_param_state *s)
{
	p.rgb = false;
	/* Highlights and chroma denoise read the white-balance bit: on the CPU, white balance stays with them. */
	p.wb = p.wb && !(s->enabled & (CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS) | CISP_BLOCK_BIT(CISP_BLOCK_CNR)));
	return p;
}

/*
 * CISP_VULKAN_HAND_OVER=1: contexts made then have no RGB side, so that
 * every frame is handed over to the CPU after the Bayer side, as a context's
 * whose outputs the device cannot hold (a debugging switch; the tests' way
 * to that path).
 */
static bool vulkan_hand_over_forced(void)
{
	const char *forced = getenv("CISP_VULKAN_HAND_OVER");

	if (!forced || strcmp(forced, "1"))
		return false;
	cisp_log(CISP_LOG_INFO, "Vulkan backend: CISP_VULKAN_HAND_OVER=1: the stages after white balance run on the CPU");
	return true;
}

/* Whether @format is a YCbCr one (the conversion and chroma denoise run for it). */
static bool yuv_output(uint32_t format)
{
	return format == CISP_FMT_NV12 || format == CISP_FMT_I420;
}

/* The names of the stages @p runs on the GPU for @s and @config's outputs (vulkan_plan_describe()). */
static void plan_stages(const struct vulkan_plan *p, const struct cisp_param_state *s,
			const struct cisp_isp_config *config, char *buf, size_t size)
{
	const bool on_rgb = p->rgb; /* the stages after white balance too */
	bool yuv = false, scaled = false;
	size_t n = 0;

	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		const struct cisp_output_config *o = &config->output[i];

		yuv |= o->format && yuv_output(o->format);
		scaled |= o->format && (o->width != config->width || o->height != config->height ||
					(s->crop_enabled & (1u << i)));
	}
	{
		const struct {
			bool runs;
			const char *name;
		} stage[] = {
			{ true, "unpack" },
			{ p->blc, "blc" },
			{ p->dpc, "dpc" },
			{ p->bnr, "bnr" },
			{ p->lsc, "lsc" },
			{ p->stats, "stats" },
			{ p->wb, "wb" },
			{ on_rgb && (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS)), "highlights" },
			{ on_rgb, "demosaic" },
			{ on_rgb && (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_CCM)), "ccm" },
			{ on_rgb && (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_LTM)), "ltm" },
			{ on_rgb && (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_TONE)), "tone" },
			{ on_rgb && (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_LUT3D)), "lut3d" },
			{ on_rgb && (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN)), "sharpen" },
			{ on_rgb && yuv, "csc" },
			{ on_rgb && yuv && (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_CNR)), "cnr" },
			{ on_rgb && scaled, "scale" },
			{ on_rgb, "pack" },
		};

		if (size)
			buf[0] = 0;
		for (size_t k = 0; k < sizeof(stage) / sizeof(stage[0]); k++) {
			if (stage[k].runs && n < size) {
				int len = snprintf(buf + n, size - n, "%s%s", n ? "," : "", stage[k].name);

				n += len > 0 ? (size_t)len : 0;
			}
		}
	}
}

int vulkan_plan_describe(const struct cisp_isp_config *config, const struct cisp_param_state *s, bool stats,
			 char *buf, size_t size)
{
	struct vk_rgb *rgb = NULL;
	struct vulkan_plan plan;
	struct vk_gpu *gpu;
	int ret = vk_gpu_open(&gpu);

	if (ret)
		return ret;
	/* As vulkan_create() and vulkan_process() choose: the device's int64, and an RGB side where it holds one. */
	plan = vulkan_plan_on(s, stats, gpu->int64);
	if (!vulkan_hand_over_forced())
		ret = vk_rgb_open(gpu, NULL, config, &rgb);
	if (!rgb)
		plan = vulkan_plan_handed_over(plan, s);
	vk_rgb_destroy(rgb);
	vk_gpu_close(gpu);
	if (!ret)
		plan_stages(&plan, s, config, buf, size);
	return ret;
}

int vulkan_describe(char *buf, size_t size)
{
	struct vk_gpu *gpu;
	int ret = vk_gpu_open(&gpu);

	if (ret)
		return ret;
	vk_gpu_describe(gpu, buf, size);
	vk_gpu_close(gpu);
	return 0;
}

static void vulkan_destroy(void *instance)
{
	struct vulkan_instance *v = instance;

	if (!v)
		return;
	vk_rgb_destroy(v->rgb);
	vk_frame_destroy(v->frame);
	vk_gpu_close(v->gpu);
	free(v->sums);
	cisp_isp_destroy(v->cpu);
	free(v);
}

static int vulkan_create(void **instance, const struct cisp_isp_config *config, void *opaque)
{
	const struct cisp_format_info *info = cisp_format_info(config->input_format);
	struct cisp_isp_config cpu = *config;
	struct vulkan_instance *v;
	char name[512];
	int ret;

	(void)opaque;
	if (config->vendor)
		return cisp_error(-ENOTSUP, "Vulkan backend: no vendor stages");
	if ((ret = cisp_isp_check_config(config)))
		return ret;
	v = calloc(1, sizeof(*v));
	if (v && !(v->sums = malloc(sizeof(*v->sums)))) {
		free(v);
		v = NULL;
	}
	if (!v)
		return cisp_error(-ENOMEM, "out of memory for a Vulkan context");
	v->cfa = info->cfa;
	v->mid_format = cisp_bayer_format(info->cfa, 16, false);
	cpu.input_format = v->mid_format;
	cisp_param_state_init(&v->state);
	cisp_param_state_init(&v->cpu_state);
	if ((ret = vk_gpu_open(&v->gpu)) ||
	    (ret = vk_frame_create(v->gpu, config->input_format, config->width, config->height, &v->frame)) ||
	    (ret = cisp_isp_create(&v->cpu, &cpu)) ||
	    (!vulkan_hand_over_forced() && (ret = vk_rgb_open(v->gpu, v->frame, config, &v->rgb)))) {
		vulkan_destroy(v);
		return ret;
	}
	cisp_isp_limits(v->cpu, &v->limits);
	vk_gpu_describe(v->gpu, name, sizeof(name));
	cisp_log(CISP_LOG_INFO, "Vulkan backend on %s", name);
	v->logged_plan = -1;
	*instance = v;
	return 0;
}

static void vulkan_limits(void *instance, struct cisp_params_limits *limits)
{
	*limits = ((struct vulkan_instance *)instance)->limits;
}

static int vulkan_check_params(void *instance, const void *buf, size_t size)
{
	return cisp_params_validate(buf, size, &((struct vulkan_instance *)instance)->limits);
}

static int vulkan_set_params(void *instance, const void *buf, size_t size)
{
	struct vulkan_instance *v = instance;

	return cisp_param_state_apply(&v->state, buf, size, &v->limits);
}

/* The software ISP's state for a frame whose @plan ran on the GPU: the state less those blocks. */
static int sync_cpu(struct vulkan_instance *v, const struct vulkan_plan *plan)
{
	struct cisp_param_state want = v->state;
	uint32_t changed;
	int ret;

	if (plan->blc)
		want.enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_BLC);
	if (plan->dpc)
		want.enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_DPC);
	if (plan->bnr)
		want.enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_BNR);
	if (plan->lsc)
		want.enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_LSC);
	if (plan->wb)
		want.enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_WB);
	if (plan->stats)
		want.enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_STATS);
	changed = cisp_params_diff(&v->cpu_state, &want);
	if (!changed)
		return 0;
	if ((ret = cisp_isp_set_state(v->cpu, &want, changed)))
		return cisp_error_prefix(ret, "Vulkan backend: the software ISP's state");
	v->cpu_state = want;
	return 0;
}

/* Lens shading's tables on the device, built only when its parameters changed since the last frame. */
static int load_lsc(struct vulkan_instance *v)
{
	struct cisp_lsc_coeffs *c;
	int ret;

	if (v->lsc_held && !memcmp(&v->lsc, &v->state.lsc, sizeof(v->lsc)))
		return 0;
	if ((ret = cisp_lsc_prepare(&c, &v->state.lsc, v->cfa, (int)v->frame->width, (int)v->frame->height)))
		return ret;
	vk_frame_lsc_tables(v->frame, c);
	cisp_lsc_free(c);
	v->lsc = v->state.lsc;
	v->lsc_held = true;
	return 0;
}

/*
 * The statistics tap's accumulator for this frame: @config (the state's,
 * or a burst's scoring one), and the histogram's white-balance gains as its stage takes
 * them (unity when white balance is off).
 */
static int stats_accumulator(const struct vulkan_instance *v, const struct cisp_stats_params *config,
			     struct cisp_stats_acc **acc)
{
	const bool wb = v->state.enabled & CISP_BLOCK_BIT(CISP_BLOCK_WB);

	return cisp_stats_acc_create(acc, config, wb ? &v->state.wb : NULL, v->cfa, (int)v->frame->width,
				     (int)v->frame->height);
}

/* The statistics the GPU reduced, as the reference's accumulator @acc finishes them, into @stats. */
static void load_stats(struct vulkan_instance *v, const struct cisp_stats_layout *layout, struct cisp_stats_acc *acc,
		       struct cisp_stats *stats)
{
	vk_frame_stats_sums(v->frame, layout, v->sums);
	cisp_stats_acc_load(acc, v->sums);
	cisp_stats_acc_finish(acc, stats);
}

/*
 * The steps of @plan before the statistics tap into @steps, *@count of them.
 * @bracket: a bracket's job (else NULL), whose other frames the frame's
 * record runs first (vulkan_merge.h), *@input then the one these steps
 * take, merge and go on with.
 */
static int steps_before_tap(struct vulkan_instance *v, const struct vulkan_plan *plan,
			    const struct cisp_device_frame *bracket, struct vk_step *steps, unsigned *count,
			    const struct cisp_image **input)
{
	unsigned n = 0;
	int ret;

	vk_step_unpack(v->frame, &steps[n++]);
	if (plan->blc) {
		struct cisp_blc_coeffs c;

		cisp_blc_prepare(&c, &v->state.blc, v->cfa);
		vk_step_blc(v->frame, &c, &steps[n++]);
	}
	if (bracket) {
		if ((ret = vk_frame_merge(v->frame, bracket, &steps[n], input)))
			return ret;
		n++;
	}
	if (plan->dpc) {
		struct cisp_dpc_coeffs c;

		cisp_dpc_prepare(&c, &v->state.dpc);
		vk_step_dpc(v->frame, &c, &steps[n++]);
	}
	if (plan->bnr) {
		const struct cisp_bnr_quality *q;
		struct cisp_bnr_coeffs *c;

		if ((ret = cisp_bnr_prepare(&c, &v->state.bnr, &v->state.noise, v->cfa)))
			return ret;
		/* The quality filter's parameters, or none at strength 0, where either mode copies. */
		if ((q = cisp_bnr_quality_params(c)))
			ret = vk_step_bnrq(v->frame, q, VK_BNRQ_BOTH, &steps[n++]);
		else
			ret = vk_step_bnr(v->frame, c, &steps[n++]);
		cisp_bnr_free(c);
		if (ret)
			return ret;
	}
	if (plan->lsc) {
		if ((ret = load_lsc(v)))
			return ret;
		vk_step_lsc(v->frame, &steps[n++]);
	}
	*count = n;
	return 0;
}

/*
 * CISP_JOB_SELECT_SHARPEST: each input's AF statistics on the GPU with the
 * configuration device_select_sharpest() scores with, after the stages
 * before the tap whatever the statistics' enable bit says, and the
 * reference's choice (the largest sum, ties to the earliest) into @f.
 */
static int score_burst(struct vulkan_instance *v, struct cisp_device_frame *f)
{
	struct cisp_param_state tapped = v->state;
	struct vk_step steps[VK_SHADER_COUNT];
	struct cisp_stats *stats = malloc(sizeof(*stats));
	struct cisp_stats_acc *acc = NULL;
	struct cisp_stats_layout layout;
	struct cisp_stats_params config;
	const struct cisp_image *input = NULL; /* steps_before_tap()'s for brackets: unused */
	const uint16_t *samples;
	struct vulkan_plan plan;
	unsigned n;
	int ret;

	if (!stats)
		return cisp_error(-ENOMEM, "out of memory for burst statistics");
	tapped.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_STATS);
	plan = vulkan_plan_on(&tapped, true, v->gpu->int64);
	if (!plan.stats) {
		free(stats);
		return cisp_error(-ENOTSUP, "Vulkan backend: a burst's statistics need the stages before them on the GPU "
					    "(the quality Bayer denoise needs 64-bit integers there)");
	}
	device_select_config(&v->state.stats, v->frame->width, v->frame->height, &config);
	if (!(ret = steps_before_tap(v, &plan, NULL, steps, &n, &input)) &&
	    !(ret = stats_accumulator(v, &config, &acc)))
		cisp_stats_acc_layout(acc, &layout);
	f->selected = 0;
	for (unsigned i = 0; i < f->num_inputs && !ret; i++) {
		uint64_t sum = 0;

		vk_step_stats(v->frame, &layout, &steps[n]); /* zeroes the sums */
		if ((ret = vk_frame_run(v->frame, f->input[i], steps, n + 1, &samples)))
			break;
		cisp_stats_header(stats, v->frame->width, v->frame->height);
		load_stats(v, &layout, acc, stats);
		for (unsigned w = 0; w < stats->af_count; w++)
			sum += stats->af[w].sharpness;
		f->sharpness[i] = sum;
		if (sum > f->sharpness[f->selected])
			f->selected = i;
	}
	cisp_stats_acc_free(acc);
	free(stats);
	return ret ? cisp_error_prefix(ret, "burst frame scoring") : 0;
}

static int vulkan_process(void *instance, struct cisp_device_frame *f)
{
	struct vulkan_instance *v = instance;
	/* Without an RGB side (outputs it cannot pack: vk_rgb_open()), every frame is handed over. */
	const struct vulkan_plan gpu_plan = vulkan_plan_on(&v->state, f->stats != NULL, v->gpu->int64);
	const struct vulkan_plan plan = v->rgb ? gpu_plan : vulkan_plan_handed_over(gpu_plan, &v->state);
	const bool whole = plan.rgb; /* the whole frame on the GPU */
	const bool bracket = f->mode == CISP_JOB_MERGE_HDR;
	const int plan_bits = plan.blc | plan.dpc << 1 | plan.lsc << 2 | plan.stats << 3 | plan.wb << 4 | whole << 5 |
			      plan.bnr << 6 | bracket << 7;
	struct vk_step steps[VK_SHADER_COUNT + 1]; /* a bracket's merge besides */
	const struct cisp_image *input = f->input[0];
	struct cisp_stats_acc *acc = NULL;
	struct cisp_stats_layout layout;
	unsigned n;
	const uint16_t *samples;
	struct cisp_image mid;
	int ret;

	if (v->logged_plan != plan_bits) {
		v->logged_plan = plan_bits;
		cisp_log(CISP_LOG_DEBUG, "Vulkan backend: the GPU runs unpack%s%s%s%s%s%s%s%s", plan.blc ? ", blc" : "",
			 bracket ? ", merge" : "", plan.dpc ? ", dpc" : "", plan.bnr ? ", bnr" : "", plan.lsc ? ", lsc" : "",
			 plan.stats ? ", statistics" : "", plan.wb ? ", wb" : "",
			 whole ? " and every later stage" : ", the CPU the rest");
	}
	/* A burst: the chosen input, processed as a single frame. */
	if (f->mode == CISP_JOB_SELECT_SHARPEST) {
		if ((ret = score_burst(v, f)))
			return ret;
		input = f->input[f->selected];
	}
	if ((ret = steps_before_tap(v, &plan, bracket ? f : NULL, steps, &n, &input)))
		return ret;
	if (plan.stats) {
		if ((ret = stats_accumulator(v, &v->state.stats, &acc)))
			return ret;
		cisp_stats_acc_layout(acc, &layout);
		vk_step_stats(v->frame, &layout, &steps[n++]);
	}
	if (plan.wb) {
		struct cisp_wb_coeffs c;

		cisp_wb_prepare(&c, &v->state.wb, v->cfa);
		vk_step_wb(v->frame, &c, &steps[n++]);
	}
	if (whole) {
		if (f->stats && !plan.stats) /* the statistics off: the header, every sum 0, as cisp_isp_process() */
			cisp_stats_header(f->stats, v->frame->width, v->frame->height);
		if (!(ret = vk_rgb_process(v->rgb, v->frame, v->cfa, &v->state, input, steps, n, f->output)) &&
		    plan.stats)
			load_stats(v, &layout, acc, f->stats);
		goto out;
	}
	if ((ret = sync_cpu(v, &plan)) || (ret = vk_frame_run(v->frame, input, steps, n, &samples)))
		goto out;
	if (plan.stats)
		load_stats(v, &layout, acc, f->stats); /* the software ISP makes none */
	ret = cisp_image_wrap(&mid, v->mid_format, v->frame->width, v->frame->height, (void *)samples,
			      (size_t)v->frame->width * v->frame->height * 2);
	if (!ret)
		ret = cisp_isp_process(v->cpu, &mid, f->output, plan.stats ? NULL : f->stats, f->pool);
out:
	vk_frame_release_input(v->frame); /* a bracket set up but not run included */
	cisp_stats_acc_free(acc);
	return ret;
}

const char *const vulkan_stage_names[VULKAN_STAGE_COUNT] = { "unpack", "blc", "dpc", "bnr", "lsc", "stats", "wb" };

int vulkan_time_stages(const struct cisp_image *in, const struct cisp_param_state *s, int reps,
		       double ns[VULKAN_STAGE_COUNT])
{
	const enum cisp_cfa cfa = cisp_format_info(in->format)->cfa;
	struct vk_gpu *g = NULL;
	struct vk_frame *f = NULL;
	struct vk_step steps[VULKAN_STAGE_COUNT];
	struct cisp_blc_coeffs blc;
	struct cisp_dpc_coeffs dpc;
	struct cisp_bnr_coeffs *bnr = NULL;
	struct cisp_lsc_coeffs *lsc = NULL;
	struct cisp_stats_acc *acc = NULL;
	struct cisp_stats_layout layout;
	struct cisp_wb_coeffs wb;
	const uint16_t *out;
	int ret;

	if ((ret = vk_gpu_open(&g)) || (ret = vk_frame_create(g, in->format, in->width, in->height, &f)) ||
	    (ret = cisp_bnr_prepare(&bnr, &s->bnr, &s->noise, cfa)) ||
	    (ret = cisp_lsc_prepare(&lsc, &s->lsc, cfa, (int)in->width, (int)in->height)) ||
	    (ret = cisp_stats_acc_create(&acc, &s->stats, &s->wb, cfa, (int)in->width, (int)in->height)))
		goto out;
	if (!f->timestamps) {
		ret = cisp_error(-ENODATA, "Vulkan device %s gives no timestamps", g->name);
		goto out;
	}
	cisp_blc_prepare(&blc, &s->blc, cfa);
	cisp_dpc_prepare(&dpc, &s->dpc);
	cisp_wb_prepare(&wb, &s->wb, cfa);
	cisp_stats_acc_layout(acc, &layout);
	vk_frame_lsc_tables(f, lsc);
	vk_step_unpack(f, &steps[0]);
	vk_step_blc(f, &blc, &steps[1]);
	vk_step_dpc(f, &dpc, &steps[2]);
	if ((ret = vk_step_bnr(f, bnr, &steps[3])))
		goto out;
	vk_step_lsc(f, &steps[4]);
	vk_step_stats(f, &layout, &steps[5]);
	vk_step_wb(f, &wb, &steps[6]);
	/* An untimed first run, then the smallest of @reps. */
	for (int k = -1; k < reps && !ret; k++) {
		ret = vk_frame_run(f, in, steps, VULKAN_STAGE_COUNT, &out);
		for (int i = 0; i < VULKAN_STAGE_COUNT && !ret && k >= 0; i++)
			ns[i] = k == 0 || f->step_ns[i] < ns[i] ? f->step_ns[i] : ns[i];
	}
out:
	cisp_stats_acc_free(acc);
	cisp_lsc_free(lsc);
	cisp_bnr_free(bnr);
	vk_frame_destroy(f);
	vk_gpu_close(g);
	return ret;
}

const struct cisp_device_backend device_backend_vulkan = {
	.name = VULKAN_ISP_NAME,
	.create = vulkan_create,
	.destroy = vulkan_destroy,
	.check_params = vulkan_check_params,
	.set_params = vulkan_set_params,
	.process = vulkan_process,
	.modes = (1u << CISP_JOB_SELECT_SHARPEST) | (1u << CISP_JOB_MERGE_HDR),
	.limits = vulkan_limits,
};
