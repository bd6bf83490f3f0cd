/* SPDX-License-Identifier: MIT */
/*
 * The reference pipeline: runs every stage of docs/pipeline.md over whole
 * frames, one stage after the other, each split into row bands on the pool.
 *
 * Bayer domain:  unpack -> BLC -> [merge of a bracket] -> DPC -> [vendor] -> BNR -> LSC -> [stats tap] -> WB
 * demosaic
 * RGB domain:    CCM -> tone -> 3D LUT -> [vendor] -> sharpen
 * per output:    (CSC -> CNR -> [vendor] for YUV outputs) -> crop and scale -> pack
 * [vendor]: the vendor stages at that tap point (src/vendor), if any.
 *
 * Stage coefficients are rebuilt when a params buffer changes their block,
 * never per frame.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/format.h>
#include <cisp/isp.h>

#include "core/error_internal.h"
#include "isp/blc.h"
#include "isp/bnr.h"
#include "isp/ccm.h"
#include "isp/cnr.h"
#include "isp/csc.h"
#include "isp/demosaic.h"
#include "isp/dpc.h"
#include "isp/lsc.h"
#include "isp/lut3d.h"
#include "isp/merge.h"
#include "isp/pack.h"
#include "isp/scale.h"
#include "isp/sharpen.h"
#include "isp/statistics.h"
#include "isp/tone.h"
#include "isp/unpack.h"
#include "isp/wb.h"
#include "isp/pipeline_internal.h"
#include "vendor/vendor_internal.h"

static struct plane16 make_plane(uint16_t *base, int width, int height)
{
	struct plane16 p = { base, width, 0, width, height };
	return p;
}

static struct rgb16 make_rgb(uint16_t *base, int width, int height)
{
	struct rgb16 r;
	size_t n = (size_t)width * height;

	for (int c = 0; c < 3; c++)
		r.c[c] = make_plane(base + n * c, width, height);
	return r;
}

/* ---- configuration ---- */

static int check_output(const struct cisp_output_config *o, int index)
{
	const struct cisp_format_info *f = cisp_format_info(o->format);

	if (!f || (f->kind != CISP_KIND_YUV && f->kind != CISP_KIND_RGB))
		return cisp_error(-EINVAL,
				  "output %d: format %s is not an ISP output (use NV12, YUV420, RGB24, RGB48 or XBGR32)",
				  index, cisp_format_name(o->format));
	if (o->width < 2 || o->height < 2 || o->width > CISP_MAX_DIMENSION || o->height > CISP_MAX_DIMENSION)
		return cisp_error(-EINVAL, "output %d: size %ux%u is outside 2x2..%ux%u", index, o->width, o->height,
				  CISP_MAX_DIMENSION, CISP_MAX_DIMENSION);
	if (f->kind == CISP_KIND_YUV && (o->width % 2 || o->height % 2))
		return cisp_error(-EINVAL, "output %d: %s size %ux%u must be even", index, f->name, o->width,
				  o->height);
	return 0;
}

int cisp_isp_check_config(const struct cisp_isp_config *c)
{
	const struct cisp_format_info *f = cisp_format_info(c->input_format);
	int ret;

	if (!f || f->kind != CISP_KIND_BAYER)
		return cisp_error(-EINVAL, "input format %s is not a Bayer format", cisp_format_name(c->input_format));
	if (c->width < 16 || c->height < 16 || c->width > CISP_MAX_DIMENSION || c->height > CISP_MAX_DIMENSION ||
	    c->width % 2 || c->height % 2)
		return cisp_error(-EINVAL, "input size %ux%u must be even and within 16x16..%ux%u", c->width,
				  c->height, CISP_MAX_DIMENSION, CISP_MAX_DIMENSION);
	if (f->packed && f->bits == 10 && c->width % 4)
		return cisp_error(-EINVAL, "input width %u of %s must be a multiple of 4", c->width, f->name);
	if (!c->output[0].format)
		return cisp_error(-EINVAL, "output 0 (main) must be configured");
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		if (c->output[i].format && (ret = check_output(&c->output[i], i)))
			return ret;
	}
	return 0;
}

/* Rebuild an output's crop and scaler from the state. */
static int update_output(struct cisp_isp *isp, int index)
{
	struct output_state *o = &isp->out[index];
	const struct cisp_output_config *oc = &isp->config.output[index];
	int x = 0, y = 0, w = (int)isp->config.width, h = (int)isp->config.height;

	if (!o->used)
		return 0;
	if (isp->state.crop_enabled & (1u << index)) {
		const struct cisp_crop_params *c = &isp->state.crop[index];
		x = c->x;
		y = c->y;
		w = c->width;
		h = c->height;
	}
	if (o->scaler && x == o->crop_x && y == o->crop_y && w == o->crop_w && h == o->crop_h)
		return 0;
	cisp_scaler_free(o->scaler);
	o->scaler = NULL;
	o->crop_x = x;
	o->crop_y = y;
	o->crop_w = w;
	o->crop_h = h;
	if (w == (int)oc->width && h == (int)oc->height)
		return 0; /* pack straight from the crop */
	return cisp_scaler_create(&o->scaler, w, h, (int)oc->width, (int)oc->height);
}

/* Rebuild what depends on the blocks in @changed (CISP_BLOCK_BIT mask). */
static int update_coeffs(struct cisp_isp *isp, uint32_t changed)
{
	const struct cisp_param_state *s = &isp->state;
	int ret;

	if (changed & CISP_BLOCK_BIT(CISP_BLOCK_BLC))
		cisp_blc_prepare(&isp->blc, &s->blc, isp->cfa);
	if (changed & CISP_BLOCK_BIT(CISP_BLOCK_DPC))
		cisp_dpc_prepare(&isp->dpc, &s->dpc);
	if (changed & (CISP_BLOCK_BIT(CISP_BLOCK_BNR) | CISP_BLOCK_BIT(CISP_BLOCK_NOISE))) {
		cisp_bnr_free(isp->bnr);
		isp->bnr = NULL;
		if ((ret = cisp_bnr_prepare(&isp->bnr, &s->bnr, &s->noise, isp->cfa)))
			return ret;
	}
	if (changed & CISP_BLOCK_BIT(CISP_BLOCK_LSC)) {
		cisp_lsc_free(isp->lsc);
		isp->lsc = NULL;
		ret = cisp_lsc_prepare(&isp->lsc, &s->lsc, isp->cfa, (int)isp->config.width,
				       (int)isp->config.height);
		if (ret)
			return ret;
	}
	if (changed & CISP_BLOCK_BIT(CISP_BLOCK_WB))
		cisp_wb_prepare(&isp->wb, &s->wb, isp->cfa);
	/* The banded executor's statistics accumulators hold the stats configuration and WB gains. */
	if (changed & (CISP_BLOCK_BIT(CISP_BLOCK_WB) | CISP_BLOCK_BIT(CISP_BLOCK_STATS)))
		cisp_isp_fused_stats_changed(isp);
	if (changed & CISP_BLOCK_BIT(CISP_BLOCK_TONE))
		cisp_tone_prepare(isp->tone, &s->tone);
	/* CNR's thresholds follow the noise through every gain up to the CSC (docs/stages/cnr.md). */
	if (changed & (CISP_BLOCK_BIT(CISP_BLOCK_CNR) | CISP_BLOCK_BIT(CISP_BLOCK_NOISE) | CISP_BLOCK_BIT(CISP_BLOCK_WB) |
		       CISP_BLOCK_BIT(CISP_BLOCK_CCM) | CISP_BLOCK_BIT(CISP_BLOCK_TONE) | CISP_BLOCK_BIT(CISP_BLOCK_CSC))) {
		struct cisp_cnr_gains g = {
			.wb = s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_WB) ? &s->wb : NULL,
			.ccm = s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_CCM) ? &s->ccm : NULL,
			.tone_lut = s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_TONE) ? isp->tone->lut : NULL,
			.csc = &s->csc,
		};

		cisp_cnr_free(isp->cnr);
		isp->cnr = NULL;
		if ((ret = cisp_cnr_prepare(&isp->cnr, &s->cnr, &s->noise, &g)))
			return ret;
	}
	if ((changed & CISP_BLOCK_BIT(CISP_BLOCK_DEMOSAIC)) && s->demosaic.algorithm != isp->demosaic_algorithm) {
		struct cisp_demosaic *dm;

		ret = cisp_demosaic_create(&dm, (enum cisp_demosaic_algorithm)s->demosaic.algorithm,
					   (int)isp->config.width, (int)isp->config.height);
		if (ret)
			return ret;
		cisp_demosaic_destroy(isp->demosaic);
		isp->demosaic = dm;
		isp->demosaic_algorithm = s->demosaic.algorithm;
	}
	if (changed & CISP_BLOCK_BIT(CISP_BLOCK_CROP))
		for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
			if ((ret = update_output(isp, i)))
				return ret;
	return 0;
}

int cisp_isp_create(struct cisp_isp **out, const struct cisp_isp_config *config)
{
	struct cisp_isp *isp;
	int ret;

	if ((ret = cisp_isp_check_config(config)))
		return ret;
	isp = calloc(1, sizeof(*isp));
	if (!isp)
		return cisp_error(-ENOMEM, "out of memory for an ISP instance");
	isp->config = *config;
	isp->cfa = cisp_format_info(config->input_format)->cfa;
	isp->limits.width = config->width;
	isp->limits.height = config->height;
	isp->limits.blocks = 0;
	for (unsigned t = 1; t < CISP_BLOCK_TYPE_COUNT; t++)
		isp->limits.blocks |= CISP_BLOCK_BIT(t);
	isp->limits.demosaic_algorithms = cisp_demosaic_algorithms();
	cisp_param_state_init(&isp->state);
	isp->demosaic_algorithm = -1;

	isp->tone = malloc(sizeof(*isp->tone));
	if (!isp->tone) {
		cisp_isp_destroy(isp);
		return cisp_error(-ENOMEM, "out of memory for the tone table");
	}
	cisp_isp_exec_init(isp);

	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		const struct cisp_output_config *oc = &config->output[i];
		struct output_state *o = &isp->out[i];

		if (!oc->format)
			continue;
		o->used = true;
		o->yuv = cisp_format_info(oc->format)->kind == CISP_KIND_YUV;
	}
	ret = update_coeffs(isp, ~0u);
	if (!ret)
		ret = vendor_instance_create(&isp->vendor, config->vendor, config->width, config->height, isp->cfa);
	if (ret) {
		cisp_isp_destroy(isp);
		return ret;
	}
	vendor_instance_limits(isp->vendor, &isp->limits);
	*out = isp;
	return 0;
}

void cisp_isp_destroy(struct cisp_isp *isp)
{
	if (!isp)
		return;
	vendor_instance_destroy(isp->vendor);
	cisp_bnr_free(isp->bnr);
	cisp_cnr_free(isp->cnr);
	cisp_lsc_free(isp->lsc);
	cisp_demosaic_destroy(isp->demosaic);
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		cisp_scaler_free(isp->out[i].scaler);
		free(isp->out[i].scaled);
	}
	free(isp->tone);
	free(isp->memory);
	cisp_isp_fused_free(isp);
	free(isp);
}

void cisp_isp_limits(const struct cisp_isp *isp, struct cisp_params_limits *limits)
{
	*limits = isp->limits;
}

const struct cisp_param_state *cisp_isp_params(const struct cisp_isp *isp)
{
	return &isp->state;
}

/* Block types present in a buffer that has passed validation. */
static uint32_t blocks_in(const void *buf, size_t size)
{
	const uint8_t *p = buf;
	size_t off = sizeof(struct cisp_params_header);
	uint32_t mask = 0;

	while (off + sizeof(struct cisp_block_header) <= size) {
		struct cisp_block_header h;

		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h))
			break;
		if (h.type < 32)
			mask |= CISP_BLOCK_BIT(h.type);
		off += h.size;
	}
	return mask;
}

int cisp_isp_set_params(struct cisp_isp *isp, const void *buf, size_t size)
{
	int ret = cisp_param_state_apply(&isp->state, buf, size, &isp->limits);

	if (ret)
		return ret;
	vendor_instance_apply(isp->vendor, buf, size);
	/* The WB gains also feed the histogram; nothing else crosses blocks. */
	return update_coeffs(isp, blocks_in(buf, size));
}

int cisp_isp_set_state(struct cisp_isp *isp, const struct cisp_param_state *state, uint32_t blocks)
{
	size_t size;
	void *buf;
	int ret = cisp_params_encode(state, blocks, NULL, 0, &size);

	if (ret)
		return ret;
	buf = malloc(size);
	if (!buf)
		return cisp_error(-ENOMEM, "out of memory for a params buffer of %zu bytes", size);
	ret = cisp_params_encode(state, blocks, buf, size, &size);
	if (!ret)
		ret = cisp_isp_set_params(isp, buf, size);
	free(buf);
	return ret;
}

/* ---- processing ---- */

enum step {
	STEP_UNPACK,
	STEP_BLC,
	STEP_MERGE,
	STEP_DPC,
	STEP_BNR,
	STEP_LSC,
	STEP_STATS,
	STEP_WB,
	STEP_CCM,
	STEP_TONE,
	STEP_LUT3D,
	STEP_SHARPEN,
	STEP_CSC,
	STEP_CNR,
	STEP_SCALE,
	STEP_PACK,
};

struct frame {
	struct cisp_isp *isp;
	enum step step;
	int height;  /* rows of the current step's output */
	int bands;
	const struct cisp_image *input;
	const struct plane16 *bayer_in, *bayer_out;
	const struct plane16 *bayer_in2;  /* STEP_MERGE: the frame merged into bayer_in */
	struct cisp_merge_coeffs merge;
	const struct rgb16 *rgb_in, *rgb_out;
	struct cisp_stats_acc **acc; /* one per worker */
	int out_index;
	const struct cisp_image *image;
};

static void run_band(void *opaque, unsigned task, unsigned worker)
{
	struct frame *f = opaque;
	struct cisp_isp *isp = f->isp;
	const struct cisp_param_state *s = &isp->state;
	/* Bands start and end on even rows: 4:2:0 packing and 2x2 statistics cells need it. */
	int band = ((f->height + f->bands - 1) / f->bands + 1) & ~1;
	int y0 = (int)task * band, y1 = y0 + band;

	if (y1 > f->height)
		y1 = f->height;
	if (y0 >= y1)
		return;
	switch (f->step) {
	case STEP_UNPACK:
		cisp_unpack_rows(f->input, f->bayer_out, y0, y1);
		break;
	case STEP_BLC:
		cisp_blc_rows(&isp->blc, f->bayer_in, f->bayer_out, y0, y1);
		break;
	case STEP_MERGE:
		cisp_merge_rows(&f->merge, f->bayer_in, f->bayer_in2, f->bayer_out, y0, y1);
		break;
	case STEP_DPC:
		cisp_dpc_rows(&isp->dpc, f->bayer_in, f->bayer_out, y0, y1);
		break;
	case STEP_BNR:
		cisp_bnr_rows(isp->bnr, f->bayer_in, f->bayer_out, y0, y1);
		break;
	case STEP_LSC:
		cisp_lsc_rows(isp->lsc, f->bayer_in, f->bayer_out, y0, y1);
		break;
	case STEP_STATS:
		cisp_stats_acc_rows(f->acc[worker], f->bayer_in, y0, y1);
		break;
	case STEP_WB:
		cisp_wb_rows(&isp->wb, f->bayer_in, f->bayer_out, y0, y1);
		break;
	case STEP_CCM:
		cisp_ccm_rows(&s->ccm, f->rgb_in, f->rgb_out, y0, y1);
		break;
	case STEP_TONE:
		cisp_tone_rows(isp->tone, f->rgb_in, f->rgb_out, y0, y1);
		break;
	case STEP_LUT3D:
		cisp_lut3d_rows(&s->lut3d, f->rgb_in, f->rgb_out, y0, y1);
		break;
	case STEP_SHARPEN:
		cisp_sharpen_rows(&s->sharpen, f->rgb_in, f->rgb_out, y0, y1);
		break;
	case STEP_CSC:
		cisp_csc_rows(&s->csc, f->rgb_in, f->rgb_out, y0, y1);
		break;
	case STEP_CNR:
		cisp_cnr_rows(isp->cnr, f->rgb_in, f->rgb_out, y0, y1);
		break;
	case STEP_SCALE: {
		const struct output_state *o = &isp->out[f->out_index];
		cisp_scale_rows(o->scaler, f->rgb_in, o->crop_x, o->crop_y, f->rgb_out, y0, y1);
		break;
	}
	case STEP_PACK:
		cisp_pack_rows(f->rgb_in, f->image, y0, y1);
		break;
	}
}

static void run_step(struct frame *f, struct cisp_pool *pool, enum step step, int height)
{
	unsigned threads = cisp_pool_threads(pool);

	f->step = step;
	f->height = height;
	f->bands = threads > 1 ? (int)threads * 4 : 1;
	if (f->bands > height / 2)
		f->bands = height / 2;
	cisp_pool_run(pool, (unsigned)f->bands, run_band, f);
}

/* The window of @full that a crop shows, as planes whose row 0 is the crop's top row. */
static struct rgb16 crop_view(const struct rgb16 *full, const struct output_state *o)
{
	struct rgb16 v = *full;

	for (int c = 0; c < 3; c++) {
		v.c[c].base = plane_row(&full->c[c], o->crop_y) + o->crop_x;
		v.c[c].first_row = 0;
		v.c[c].width = o->crop_w;
		v.c[c].height = o->crop_h;
	}
	return v;
}

static int check_image(const struct cisp_image *img, uint32_t format, uint32_t width, uint32_t height,
		       const char *what)
{
	int ret = cisp_image_check(img, what);

	if (ret)
		return ret;
	if (img->format != format || img->width != width || img->height != height)
		return cisp_error(-EINVAL, "%s is %ux%u %s but the ISP is configured for %ux%u %s", what, img->width,
				  img->height, cisp_format_name(img->format), width, height,
				  cisp_format_name(format));
	return 0;
}

static int collect_stats(struct frame *f, struct cisp_pool *pool, const struct plane16 *bayer,
			 const struct cisp_stats_params *cfg, struct cisp_stats *stats)
{
	struct cisp_isp *isp = f->isp;
	unsigned workers = cisp_pool_threads(pool);
	struct cisp_stats_acc **acc = calloc(workers, sizeof(*acc));
	int ret = acc ? 0 : -ENOMEM;

	/* The histogram applies the white-balance gains the frame will get. */
	static const struct cisp_wb_params unity = { .gain = { 4096, 4096, 4096, 4096 } };
	const struct cisp_wb_params *wb =
		isp->state.enabled & CISP_BLOCK_BIT(CISP_BLOCK_WB) ? &isp->state.wb : &unity;

	for (unsigned w = 0; !ret && w < workers; w++)
		ret = cisp_stats_acc_create(&acc[w], cfg, wb, isp->cfa,
					    (int)isp->config.width, (int)isp->config.height);
	if (!ret) {
		f->acc = acc;
		f->bayer_in = bayer;
		run_step(f, pool, STEP_STATS, (int)isp->config.height);
		for (unsigned w = 1; w < workers; w++)
			cisp_stats_acc_merge(acc[0], acc[w]);
		cisp_stats_acc_finish(acc[0], stats);
	}
	for (unsigned w = 0; acc && w < workers; w++)
		cisp_stats_acc_free(acc[w]);
	free(acc);
	return ret ? cisp_error(ret, "out of memory for statistics") : 0;
}

/* The full-frame planes of the reference executor, made on its first frame and kept. */
int cisp_isp_frame_planes(struct cisp_isp *isp)
{
	const int w = (int)isp->config.width, h = (int)isp->config.height;
	size_t n = (size_t)w * h;

	if (!isp->memory) {
		isp->memory = malloc(n * sizeof(uint16_t) * 8);
		if (!isp->memory)
			return cisp_error(-ENOMEM, "out of memory for the working planes of a %dx%d frame", w, h);
		isp->bayer[0] = make_plane(isp->memory, w, h);
		isp->bayer[1] = make_plane(isp->memory + n, w, h);
		isp->rgb[0] = make_rgb(isp->memory + 2 * n, w, h);
		isp->rgb[1] = make_rgb(isp->memory + 5 * n, w, h);
	}
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		struct output_state *o = &isp->out[i];
		const struct cisp_output_config *oc = &isp->config.output[i];

		if (o->used && o->scaler && !o->scaled) {
			o->scaled = malloc((size_t)oc->width * oc->height * 3 * sizeof(uint16_t));
			if (!o->scaled)
				return cisp_error(-ENOMEM, "out of memory for output %d", i);
			o->scaled_planes = make_rgb(o->scaled, (int)oc->width, (int)oc->height);
		}
	}
	return 0;
}

/* Check the inputs of a frame or bracket against the configuration. */
static int check_inputs(const struct cisp_isp *isp, const struct cisp_image *const input[], unsigned count)
{
	const struct cisp_isp_config *cfg = &isp->config;

	for (unsigned k = 0; k < count; k++) {
		char what[24];
		int ret;

		snprintf(what, sizeof(what), count > 1 ? "input %u" : "input", k);
		if ((ret = check_image(input[k], cfg->input_format, cfg->width, cfg->height, what)))
			return ret;
	}
	return 0;
}

int cisp_isp_set_exec(struct cisp_isp *isp, const struct cisp_isp_exec *e)
{
	if (e->band_rows < 0 || e->band_rows % 2 || e->band_rows > 4096)
		return cisp_error(-EINVAL, "band of %d rows: it must be even, 2..4096 (0 for the default)",
				  e->band_rows);
	if (e->cpu >= 0) {
		if (cisp_dsp_init(&isp->dsp_level, (enum cisp_cpu_level)e->cpu))
			return cisp_error(-ENOTSUP, "CPU level %s is not available on this machine or build",
					  cisp_cpu_name((enum cisp_cpu_level)e->cpu));
		isp->dsp = &isp->dsp_level;
	} else {
		isp->dsp = cisp_dsp();
	}
	isp->fused = e->fused;
	isp->band_rows = e->band_rows ? e->band_rows : 16;
	return 0;
}

/* CISP_EXEC=reference selects the reference executor for every instance (tests of correctness do). */
void cisp_isp_exec_init(struct cisp_isp *isp)
{
	const char *env = getenv("CISP_EXEC");
	struct cisp_isp_exec e = { !(env && !strcmp(env, "reference")), 0, -1 };

	cisp_isp_set_exec(isp, &e);
}

/*
 * Unpack and black level of each input, a bracket merged into bayer[0]
 * longest exposure first (the next frame goes through bayer[1]), then DPC,
 * the Bayer vendor stages, BNR and LSC. Returns the index of the Bayer plane
 * that holds the result, or a vendor stage's error.
 */
static int bayer_front(struct frame *f, struct cisp_pool *pool, const struct cisp_image *const input[],
		       const uint32_t exposure[], unsigned count)
{
	struct cisp_isp *isp = f->isp;
	const struct cisp_param_state *s = &isp->state;
	unsigned order[CISP_BRACKET_MAX_FRAMES] = { 0 };
	int h = (int)isp->config.height, cur = 0, ret;

	if (count > 1)
		cisp_merge_order(exposure, count, order);
	for (unsigned k = 0; k < count; k++) {
		f->input = input[order[k]];
		f->bayer_in = f->bayer_out = &isp->bayer[k > 0];
		run_step(f, pool, STEP_UNPACK, h);
		if (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_BLC))
			run_step(f, pool, STEP_BLC, h);
		if (k > 0) {
			cisp_merge_prepare(&f->merge, exposure[order[k - 1]], exposure[order[k]]);
			f->bayer_in = f->bayer_out = &isp->bayer[0];
			f->bayer_in2 = &isp->bayer[1];
			run_step(f, pool, STEP_MERGE, h);
		}
	}
	if (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_DPC)) {
		f->bayer_in = &isp->bayer[cur];
		f->bayer_out = &isp->bayer[cur ^ 1];
		run_step(f, pool, STEP_DPC, h);
		cur ^= 1;
	}
	if ((ret = vendor_instance_run(isp->vendor, CISP_VENDOR_TAP_BAYER, &isp->bayer[cur], 1)))
		return ret;
	if (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_BNR)) {
		f->bayer_in = &isp->bayer[cur];
		f->bayer_out = &isp->bayer[cur ^ 1];
		run_step(f, pool, STEP_BNR, h);
		cur ^= 1;
	}
	f->bayer_in = f->bayer_out = &isp->bayer[cur];
	if (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_LSC))
		run_step(f, pool, STEP_LSC, h);
	return cur;
}

static void stats_header(const struct cisp_isp *isp, struct cisp_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	stats->magic = CISP_STATS_MAGIC;
	stats->version = CISP_STATS_VERSION;
	stats->size = sizeof(*stats);
	stats->width = isp->config.width;
	stats->height = isp->config.height;
}

/* One frame, or a bracket of @count frames merged first. */
static int process_frames(struct cisp_isp *isp, const struct cisp_image *const input[], const uint32_t exposure[],
			  unsigned count, struct cisp_image *const output[CISP_MAX_OUTPUTS], struct cisp_stats *stats,
			  struct cisp_pool *pool)
{
	const struct cisp_param_state *s = &isp->state;
	const struct cisp_isp_config *cfg = &isp->config;
	struct frame f = { .isp = isp };
	int h = (int)cfg->height, cur, ret;
	const struct rgb16 *rgb;
	const struct rgb16 *ycc = NULL;
	struct rgb16 cnr_out;

	if ((ret = check_inputs(isp, input, count)))
		return ret;
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		char what[16];

		if (!isp->out[i].used)
			continue;
		snprintf(what, sizeof(what), "output %d", i);
		ret = check_image(output ? output[i] : NULL, cfg->output[i].format, cfg->output[i].width,
				  cfg->output[i].height, what);
		if (ret)
			return ret;
	}

	if (isp->fused) {
		ret = cisp_isp_process_fused(isp, input, exposure, count, output, stats, pool);
		if (ret <= 0)
			return ret;
	}
	if ((ret = cisp_isp_frame_planes(isp)))
		return ret;

	/* Bayer domain; the current plane is bayer[cur]. */
	if ((cur = bayer_front(&f, pool, input, exposure, count)) < 0)
		return cur;
	if (stats) {
		stats_header(isp, stats);
		if ((s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_STATS)) &&
		    (ret = collect_stats(&f, pool, &isp->bayer[cur], &s->stats, stats)))
			return ret;
	}
	f.bayer_in = f.bayer_out = &isp->bayer[cur];
	if (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_WB))
		run_step(&f, pool, STEP_WB, h);

	cisp_demosaic_run(isp->demosaic, &isp->bayer[cur], isp->cfa, &s->demosaic, &isp->rgb[0], pool);

	/* RGB domain, in place on rgb[0] except sharpening. */
	f.rgb_in = f.rgb_out = rgb = &isp->rgb[0];
	if (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_CCM))
		run_step(&f, pool, STEP_CCM, h);
	if (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_TONE))
		run_step(&f, pool, STEP_TONE, h);
	if (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_LUT3D))
		run_step(&f, pool, STEP_LUT3D, h);
	if ((ret = vendor_instance_run(isp->vendor, CISP_VENDOR_TAP_RGB, isp->rgb[0].c, 3)))
		return ret;
	if (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN)) {
		f.rgb_out = &isp->rgb[1];
		run_step(&f, pool, STEP_SHARPEN, h);
		rgb = &isp->rgb[1];
	}

	/* Outputs; YCbCr goes into the RGB set that is free now. */
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		struct output_state *o = &isp->out[i];
		const struct rgb16 *src;

		if (!o->used)
			continue;
		src = rgb;
		if (o->yuv) {
			if (!ycc) {
				ycc = rgb == &isp->rgb[0] ? &isp->rgb[1] : &isp->rgb[0];
				f.rgb_in = rgb;
				f.rgb_out = ycc;
				run_step(&f, pool, STEP_CSC, h);
				/* CNR reads rows around each band: new Cb, Cr planes in the free Bayer planes; Y stays. */
				if (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_CNR)) {
					cnr_out = *ycc;
					cnr_out.c[1] = isp->bayer[0];
					cnr_out.c[2] = isp->bayer[1];
					f.rgb_in = ycc;
					f.rgb_out = &cnr_out;
					run_step(&f, pool, STEP_CNR, h);
					ycc = &cnr_out;
				}
				if ((ret = vendor_instance_run(isp->vendor, CISP_VENDOR_TAP_YUV, ycc->c, 3)))
					return ret;
			}
			src = ycc;
		}
		cisp_isp_finish_output(isp, i, src, output[i], pool);
	}
	return 0;
}

void cisp_isp_finish_output(struct cisp_isp *isp, int index, const struct rgb16 *src, struct cisp_image *img,
			    struct cisp_pool *pool)
{
	const struct output_state *o = &isp->out[index];
	const int height = (int)isp->config.output[index].height;
	struct frame f = { .isp = isp, .out_index = index, .image = img };
	struct rgb16 view = crop_view(src, o);

	if (o->scaler) {
		f.rgb_in = src;
		f.rgb_out = &o->scaled_planes;
		run_step(&f, pool, STEP_SCALE, height);
		view = o->scaled_planes;
	}
	f.rgb_in = &view;
	run_step(&f, pool, STEP_PACK, height);
}

int cisp_isp_process(struct cisp_isp *isp, const struct cisp_image *input,
		     struct cisp_image *const output[CISP_MAX_OUTPUTS], struct cisp_stats *stats,
		     struct cisp_pool *pool)
{
	return process_frames(isp, &input, NULL, 1, output, stats, pool);
}

int cisp_isp_process_bracket(struct cisp_isp *isp, const struct cisp_image *const input[],
			     const uint32_t exposure[], unsigned count,
			     struct cisp_image *const output[CISP_MAX_OUTPUTS], struct cisp_stats *stats,
			     struct cisp_pool *pool)
{
	uint32_t lo = UINT32_MAX, hi = 0;

	if (count < 1 || count > CISP_BRACKET_MAX_FRAMES)
		return cisp_error(-EINVAL, "a bracket has 1..%d frames, not %u", CISP_BRACKET_MAX_FRAMES, count);
	for (unsigned k = 0; k < count; k++) {
		if (!exposure[k])
			return cisp_error(-EINVAL, "bracket exposure %u is 0; exposures must be > 0", k);
		lo = exposure[k] < lo ? exposure[k] : lo;
		hi = exposure[k] > hi ? exposure[k] : hi;
	}
	if ((uint64_t)hi > (uint64_t)lo * CISP_BRACKET_MAX_RATIO)
		return cisp_error(-EINVAL, "bracket exposures %u..%u span more than the ratio %d", lo, hi,
				  CISP_BRACKET_MAX_RATIO);
	return process_frames(isp, input, exposure, count, output, stats, pool);
}

/* A caller's statistics configuration gets the checks it would get in a params buffer. */
static int check_stats_config(const struct cisp_isp *isp, const struct cisp_stats_params *config)
{
	struct {
		struct cisp_params_header h;
		struct cisp_stats_params s;
	} buf = { .h = { .magic = CISP_PARAMS_MAGIC, .version = CISP_PARAMS_VERSION, .total_size = sizeof(buf) } };

	buf.s = *config;
	buf.s.header = (struct cisp_block_header){ CISP_BLOCK_STATS, CISP_BLOCK_FL_ENABLE, sizeof(buf.s) };
	return cisp_params_validate(&buf, sizeof(buf), &isp->limits);
}

int cisp_isp_statistics(struct cisp_isp *isp, const struct cisp_image *input, const struct cisp_stats_params *config,
			struct cisp_stats *stats, struct cisp_pool *pool)
{
	struct frame f = { .isp = isp };
	int ret, cur;

	if ((ret = check_inputs(isp, &input, 1)) || (config && (ret = check_stats_config(isp, config))))
		return ret;
	if ((ret = cisp_isp_frame_planes(isp)))
		return ret;
	if ((cur = bayer_front(&f, pool, &input, NULL, 1)) < 0)
		return cur;
	stats_header(isp, stats);
	return collect_stats(&f, pool, &isp->bayer[cur], config ? config : &isp->state.stats, stats);
}
