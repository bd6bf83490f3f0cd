/* SPDX-License-Identifier: MIT */
/* Developing raw files (develop.h): the reading and the parameters of `cisp develop`. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/develop.h>
#include <cisp/error.h>
#include <cisp/input_file.h>
#include <cisp/log.h>
#include <cisp/raster.h>
#include <cisp/raw_file.h>

#include "abi/fixed_point.h"
#include "io/develop_internal.h"

void cisp_develop_source_init(struct cisp_develop_source *src)
{
	*src = (struct cisp_develop_source){ .cfa = -1, .black = -1, .white = -1 };
}

bool cisp_develop_is_mosaic(const char *path)
{
	unsigned char head[8] = { 0 };
	FILE *f;
	size_t n;

	if (cisp_input_file_open(path, &f, NULL))
		return false;
	n = fread(head, 1, sizeof(head), f);
	fclose(f);
	if (n >= 8 && !memcmp(head, "\x89PNG\r\n\x1a\n", 8))
		return true;
	return n >= 3 && head[0] == 'P' && (head[1] == '5' || head[1] == '6') &&
	       (head[2] == ' ' || head[2] == '\n' || head[2] == '\r' || head[2] == '\t' || head[2] == '#');
}

/* The readers name the file in their messages; add it only where they do not. */
static int name_file(int ret, const char *path)
{
	return strstr(cisp_last_error(), path) ? ret : cisp_error_prefix(ret, "%s", path);
}

static int read_mosaic(const char *path, const struct cisp_develop_source *src, struct cisp_raw_frame *frame)
{
	struct cisp_raster raster;
	int ret = cisp_raster_read(path, &raster);

	if (ret)
		return ret;
	ret = cisp_raw_from_raster(&raster, src->cfa >= 0 ? (enum cisp_cfa)src->cfa : CISP_CFA_RGGB,
				   src->black >= 0 ? (unsigned)src->black : 0, src->white >= 0 ? (unsigned)src->white : 0,
				   frame);
	cisp_raster_free(&raster);
	return ret;
}

static const char *cfa_name(enum cisp_cfa cfa)
{
	static const char *const names[] = { "RGGB", "GRBG", "GBRG", "BGGR" };

	return (unsigned)cfa < 4 ? names[cfa] : "?";
}

/* The CFA order and levels given replace the file's, with a warning where the file had its own. */
static int override_levels(const char *path, const struct cisp_develop_source *src, struct cisp_raw_frame *frame)
{
	const struct cisp_format_info *fi = cisp_format_info(frame->image.format);
	bool dump = src->dump_format != 0;

	if (src->cfa >= 0 && (enum cisp_cfa)src->cfa != fi->cfa) {
		if (!dump)
			cisp_log(CISP_LOG_WARN, "%s: CFA order %s given replaces the file's %s", path,
				 cfa_name((enum cisp_cfa)src->cfa), cfa_name(fi->cfa));
		frame->image.format = cisp_bayer_format((enum cisp_cfa)src->cfa, fi->bits, fi->packed);
	}
	if (src->black >= 0 && !dump && !(frame->defaults & CISP_RAW_DEFAULT_BLACK))
		cisp_log(CISP_LOG_WARN, "%s: black level %d given replaces the file's %u %u %u %u", path, (int)src->black,
			 frame->black[0], frame->black[1], frame->black[2], frame->black[3]);
	if (src->white >= 0 && !dump && !(frame->defaults & CISP_RAW_DEFAULT_WHITE))
		cisp_log(CISP_LOG_WARN, "%s: white level %d given replaces the file's %u", path, (int)src->white,
			 frame->white);
	for (int c = 0; c < 4 && src->black >= 0; c++)
		frame->black[c] = (uint16_t)src->black;
	if (src->white >= 0)
		frame->white = (uint16_t)src->white;
	frame->defaults &= ~((src->black >= 0 ? CISP_RAW_DEFAULT_BLACK : 0u) |
			     (src->white >= 0 ? CISP_RAW_DEFAULT_WHITE : 0u));
	for (int c = 0; c < 4; c++) {
		if (frame->black[c] >= frame->white) {
			int black = frame->black[c];
			cisp_raw_frame_free(frame);
			return cisp_error(-EINVAL, "%s: black level %d is not below the white level %d", path, black,
					  src->white >= 0 ? (int)src->white : (int)frame->white);
		}
	}
	return 0;
}

int cisp_develop_read(const char *path, const struct cisp_develop_source *src, struct cisp_raw_frame *frame)
{
	struct cisp_develop_source none;
	int ret;

	if (!src) {
		cisp_develop_source_init(&none);
		src = &none;
	}
	memset(frame, 0, sizeof(*frame));
	if (src->cfa > CISP_CFA_BGGR || src->black > 65535 || src->white > 65535 || src->white == 0)
		return cisp_error(-EINVAL, "%s: CFA order %d, black %d or white %d out of range", path, src->cfa,
				  (int)src->black, (int)src->white);
	if (src->dump_format || src->width || src->height) {
		if (!src->dump_format || !src->width || !src->height)
			return cisp_error(-EINVAL, "%s: a raw dump needs both its size and its format", path);
		ret = cisp_raw_read_dump(path, src->dump_format, src->width, src->height, frame);
	} else if (cisp_develop_is_mosaic(path)) {
		/* The levels are the raster's: cisp_raw_from_raster() takes them. */
		ret = read_mosaic(path, src, frame);
		return ret ? name_file(ret, path) : 0;
	} else {
		ret = cisp_raw_read_file(path, frame);
	}
	if (ret)
		return name_file(ret, path);
	return override_levels(path, src, frame);
}

/* The area the frame's default crop leaves (or the whole image). */
static struct cisp_develop_area default_area(const struct cisp_raw_frame *frame, const struct cisp_develop_options *opt)
{
	const struct cisp_image *img = &frame->image;
	uint32_t x0 = (frame->crop.x + 1) & ~1u, y0 = (frame->crop.y + 1) & ~1u;
	uint32_t x1 = (frame->crop.x + frame->crop.width) & ~1u, y1 = (frame->crop.y + frame->crop.height) & ~1u;

	if ((opt && opt->full_frame) || !frame->crop.width || x1 < x0 + 2 || y1 < y0 + 2 || x1 > img->width ||
	    y1 > img->height)
		return (struct cisp_develop_area){ 0, 0, img->width, img->height };
	return (struct cisp_develop_area){ x0, y0, x1 - x0, y1 - y0 };
}

static bool turned(const struct cisp_raw_frame *frame)
{
	return frame->orientation >= 5 && frame->orientation <= 8;
}

/*
 * Rectangle @r of the upright picture of @area (as cisp_image_orient() turns
 * it) in the frame's coordinates; false when @r is empty or not inside.
 */
static bool to_frame(const struct cisp_raw_frame *frame, const struct cisp_develop_area *area,
		     const struct cisp_develop_area *r, struct cisp_develop_area *out)
{
	uint64_t w = area->width, h = area->height, uw = turned(frame) ? h : w, uh = turned(frame) ? w : h;
	uint32_t px[2], py[2];

	if (!r->width || !r->height || (uint64_t)r->x + r->width > uw || (uint64_t)r->y + r->height > uh)
		return false;
	for (int k = 0; k < 2; k++) {
		uint32_t x = k ? r->x + r->width - 1 : r->x, y = k ? r->y + r->height - 1 : r->y;
		uint32_t W = (uint32_t)w - 1, H = (uint32_t)h - 1;

		switch (frame->orientation) {
		case 2: px[k] = W - x, py[k] = y; break;
		case 3: px[k] = W - x, py[k] = H - y; break;
		case 4: px[k] = x, py[k] = H - y; break;
		case 5: px[k] = y, py[k] = x; break;
		case 6: px[k] = y, py[k] = H - x; break;
		case 7: px[k] = W - y, py[k] = H - x; break;
		case 8: px[k] = W - y, py[k] = x; break;
		default: px[k] = x, py[k] = y; break;
		}
	}
	out->x = area->x + (px[0] < px[1] ? px[0] : px[1]);
	out->y = area->y + (py[0] < py[1] ? py[0] : py[1]);
	out->width = (px[0] > px[1] ? px[0] - px[1] : px[1] - px[0]) + 1;
	out->height = (py[0] > py[1] ? py[0] - py[1] : py[1] - py[0]) + 1;
	return true;
}

struct cisp_develop_area cisp_develop_area(const struct cisp_raw_frame *frame, const struct cisp_develop_options *opt)
{
	struct cisp_develop_area area = default_area(frame, opt), r;
	uint32_t x0, y0, x1, y1;

	if (!opt || !opt->crop.width)
		return area;
	if (!to_frame(frame, &area, &opt->crop, &r))
		return (struct cisp_develop_area){ 0, 0, 0, 0 };
	/* Inwards to even coordinates, so that the crop starts on the CFA's first colour. */
	x0 = (r.x + 1) & ~1u;
	y0 = (r.y + 1) & ~1u;
	x1 = (r.x + r.width) & ~1u;
	y1 = (r.y + r.height) & ~1u;
	if (x1 < x0 + 2 || y1 < y0 + 2)
		return (struct cisp_develop_area){ 0, 0, 0, 0 };
	return (struct cisp_develop_area){ x0, y0, x1 - x0, y1 - y0 };
}

static const struct cisp_develop_options default_options;

/* The output size: @opt's, fitted inside it keeping the aspect ratio unless stretched; the area's otherwise. */
static void output_size(const struct cisp_raw_frame *frame, const struct cisp_develop_options *opt,
			const struct cisp_develop_area *area, uint32_t *width, uint32_t *height)
{
	bool turn = turned(frame);
	double aw = turn ? area->height : area->width, ah = turn ? area->width : area->height;
	double w = opt->output_width, h = opt->output_height;

	if (!w && !h) {
		*width = area->width;
		*height = area->height;
		return;
	}
	if (!opt->output_stretch || !w || !h) {
		double scale = !w ? h / ah : !h ? w / aw : fmin(w / aw, h / ah);
		w = fmax(1, round(aw * scale));
		h = fmax(1, round(ah * scale));
	}
	*width = (uint32_t)(turn ? h : w);
	*height = (uint32_t)(turn ? w : h);
}

static int check_options(const struct cisp_raw_frame *frame, const struct cisp_develop_options *opt)
{
	struct cisp_develop_area area = default_area(frame, opt), box;
	uint32_t uw = turned(frame) ? area.height : area.width, uh = turned(frame) ? area.width : area.height;

	if (opt->demosaic > CISP_DEMOSAIC_QUALITY || opt->awb > CISP_DEVELOP_AWB_BOX || !(fabs(opt->ev) <= 4))
		return cisp_error(-EINVAL, "develop: demosaic %u, white balance %u or exposure %g stops out of range",
				  opt->demosaic, opt->awb, opt->ev);
	if (opt->highlights > CISP_DEVELOP_HIGHLIGHTS_NONE)
		return cisp_error(-EINVAL, "develop: highlights %u out of range 0..%u", opt->highlights,
				  CISP_DEVELOP_HIGHLIGHTS_NONE);
	if (opt->tone > CISP_DEVELOP_TONE_LINEAR)
		return cisp_error(-EINVAL, "develop: tone curve %u out of range 0..%u", opt->tone,
				  CISP_DEVELOP_TONE_LINEAR);
	if (opt->awb == CISP_DEVELOP_AWB_TEMPERATURE && !develop_temperature_valid(opt->wb_kelvin, opt->wb_tint))
		return cisp_error(-EINVAL, "develop: colour temperature %gK with tint %g: the temperature must lie in "
				  "2000..25000 and the tint in -100..100", opt->wb_kelvin, opt->wb_tint);
	for (int c = 0; c < 3 && opt->awb == CISP_DEVELOP_AWB_GAINS; c++)
		if (!(opt->wb_gains[c] >= 0.01 && opt->wb_gains[c] <= 100))
			return cisp_error(-EINVAL, "develop: white-balance multiplier %g out of range 0.01..100",
					  opt->wb_gains[c]);
	if (opt->awb == CISP_DEVELOP_AWB_BOX && !to_frame(frame, &area, &opt->wb_box, &box))
		return cisp_error(-EINVAL, "develop: the white-balance box %ux%u at (%u, %u) is not inside the %ux%u "
				  "picture", opt->wb_box.width, opt->wb_box.height, opt->wb_box.x, opt->wb_box.y, uw, uh);
	if (opt->crop.width && !cisp_develop_area(frame, opt).width)
		return cisp_error(-EINVAL, "develop: the crop %ux%u at (%u, %u) is not inside the %ux%u picture, or "
				  "smaller than 2x2", opt->crop.width, opt->crop.height, opt->crop.x, opt->crop.y, uw, uh);
	return 0;
}

int cisp_develop_config(const struct cisp_raw_frame *frame, const struct cisp_develop_options *opt,
			struct cisp_isp_config *config)
{
	struct cisp_develop_area area;
	int ret;

	if (!opt)
		opt = &default_options;
	if ((ret = check_options(frame, opt)))
		return ret;
	area = cisp_develop_area(frame, opt);
	memset(config, 0, sizeof(*config));
	config->input_format = frame->image.format;
	config->width = frame->image.width;
	config->height = frame->image.height;
	config->output[0].format = opt->output_format   ? opt->output_format
				   : opt->linear        ? CISP_FMT_RGB48
							: CISP_FMT_RGB888;
	output_size(frame, opt, &area, &config->output[0].width, &config->output[0].height);
	config->vendor = opt->vendor;
	return cisp_isp_check_config(config);
}

/* Develop's defaults, then the frame's metadata, the crop, then the params buffer. */
static int set_params(struct cisp_isp *isp, const struct cisp_raw_frame *frame, const struct cisp_develop_options *opt)
{
	struct cisp_develop_area area = cisp_develop_area(frame, opt);
	struct cisp_param_state state;
	int ret;

	cisp_param_state_init(&state);
	state.dpc.threshold = 4096;
	state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_DPC) | CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN);
	state.demosaic.algorithm = (uint16_t)opt->demosaic;
	if ((ret = cisp_raw_frame_params(frame, &state)))
		return ret;
	if (opt->highlights != CISP_DEVELOP_HIGHLIGHTS_NONE) {
		state.highlights.mode = (uint16_t)opt->highlights;
		state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS);
	}
	develop_tone_curve((enum cisp_develop_tone)opt->tone, state.tone.curve);
	/* Measurement output: no cosmetic stages (dynamic defect correction also flattens fine detail). */
	if (opt->linear)
		state.enabled &= ~(CISP_BLOCK_BIT(CISP_BLOCK_DPC) | CISP_BLOCK_BIT(CISP_BLOCK_TONE) |
				   CISP_BLOCK_BIT(CISP_BLOCK_LUT3D) | CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN));
	if (area.width != frame->image.width || area.height != frame->image.height) {
		state.crop[0].output = 0;
		state.crop[0].x = (uint16_t)area.x;
		state.crop[0].y = (uint16_t)area.y;
		state.crop[0].width = (uint16_t)area.width;
		state.crop[0].height = (uint16_t)area.height;
		state.crop_enabled |= 1u;
	}
	if ((ret = cisp_isp_set_state(isp, &state, ~0u)))
		return cisp_error_prefix(ret, "develop: the default parameters");
	if (opt->params && (ret = cisp_isp_set_params(isp, opt->params, opt->params_size)))
		return cisp_error_prefix(ret, "%s", opt->params_name ? opt->params_name : "params buffer");
	return 0;
}

/* White-balance gains R, G, B into the ISP. */
static int set_wb(struct cisp_isp *isp, const double gain[3])
{
	struct cisp_param_state state = *cisp_isp_params(isp);

	state.wb.gain[CISP_CH_R] = abi_fixed_u16(gain[0], 4096);
	state.wb.gain[CISP_CH_GR] = state.wb.gain[CISP_CH_GB] = abi_fixed_u16(gain[1], 4096);
	state.wb.gain[CISP_CH_B] = abi_fixed_u16(gain[2], 4096);
	state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_WB);
	return cisp_isp_set_state(isp, &state, CISP_BLOCK_BIT(CISP_BLOCK_WB));
}

/* Grey world on the statistics of a first pass: scale R and B to G's mean. */
static int grey_world(struct cisp_isp *isp, const struct cisp_image *input,
		      struct cisp_image *const outputs[CISP_MAX_OUTPUTS], struct cisp_pool *pool)
{
	struct cisp_stats *stats = calloc(1, sizeof(*stats));
	double sum[3] = { 0, 0, 0 }, gain[3];
	int ret;

	if (!stats)
		return cisp_error(-ENOMEM, "develop: out of memory");
	ret = cisp_isp_process(isp, input, outputs, stats, pool);
	if (!ret && (stats->valid & CISP_STATS_ZONES)) {
		for (unsigned i = 0; i < (unsigned)stats->zones_x * stats->zones_y; i++) {
			const struct cisp_stats_zone *z = &stats->zone[i];
			sum[0] += (double)z->r * z->count;
			sum[1] += (double)z->g * z->count;
			sum[2] += (double)z->b * z->count;
		}
	}
	free(stats);
	if (ret)
		return cisp_error_prefix(ret, "develop: automatic white balance");
	for (int c = 0; c < 3; c++) {
		gain[c] = sum[c] > 0 ? sum[1] / sum[c] : 1.0;
		gain[c] = gain[c] < 0.25 ? 0.25 : gain[c] > 8 ? 8 : gain[c];
	}
	return set_wb(isp, gain);
}

/*
 * Exposure scales the white-balance gains by 2^@ev, at most as far as the
 * largest gain can go (Q4.12 holds up to 16): a warning says when it cannot.
 */
static int apply_exposure(struct cisp_isp *isp, double ev)
{
	struct cisp_param_state s = *cisp_isp_params(isp);
	double scale = exp2(ev);
	unsigned top = 1;

	for (int c = 0; c < 4; c++)
		top = s.wb.gain[c] > top ? s.wb.gain[c] : top;
	if (scale * top > 65535) {
		cisp_log(CISP_LOG_WARN, "develop: exposure %+.2f stops is beyond the white-balance gains' range; "
			 "using %+.2f", ev, log2(65535.0 / top));
		scale = 65535.0 / top;
	}
	for (int c = 0; c < 4; c++)
		s.wb.gain[c] = abi_fixed_u16(s.wb.gain[c] * scale / 4096, 4096);
	s.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_WB);
	return cisp_isp_set_state(isp, &s, CISP_BLOCK_BIT(CISP_BLOCK_WB));
}

/* White balance as @opt asks (the file's, and the params buffer's, already set). */
static int white_balance(struct cisp_isp *isp, const struct cisp_raw_frame *frame,
			 const struct cisp_develop_options *opt, struct cisp_image *const output[CISP_MAX_OUTPUTS],
			 struct cisp_pool *pool)
{
	bool params_wb = false, grey;
	double gains[3];
	int ret;

	if (opt->awb >= CISP_DEVELOP_AWB_DAYLIGHT) {
		struct cisp_develop_area area = default_area(frame, opt), box = { 0, 0, 0, 0 };

		if (opt->awb == CISP_DEVELOP_AWB_BOX)
			to_frame(frame, &area, &opt->wb_box, &box); /* checked by check_options() */
		if ((ret = develop_wb_gains(frame, opt, &box, cisp_isp_params(isp), gains)))
			return ret;
		return set_wb(isp, gains);
	}
	if (opt->params) {
		/* A params buffer that sets white balance turns automatic white balance off. */
		struct cisp_param_state defaults;
		cisp_param_state_init(&defaults);
		params_wb = memcmp(&defaults.wb.gain, &cisp_isp_params(isp)->wb.gain, sizeof(defaults.wb.gain)) != 0;
	}
	/* Grey world when asked, or as the last resort of the camera's balance. */
	grey = opt->awb == CISP_DEVELOP_AWB_GREY ||
	       ((opt->awb == CISP_DEVELOP_AWB_CAMERA || (opt->awb == CISP_DEVELOP_AWB_AUTO && !params_wb)) &&
		!frame->has_wb && !frame->has_matrix);
	return grey ? grey_world(isp, &frame->image, output, pool) : 0;
}

int cisp_develop_prepare(struct cisp_isp *isp, const struct cisp_raw_frame *frame,
			 const struct cisp_develop_options *opt, struct cisp_image *const output[CISP_MAX_OUTPUTS],
			 struct cisp_pool *pool)
{
	double ev;
	int ret;

	if (!opt)
		opt = &default_options;
	if ((ret = check_options(frame, opt)) || (ret = set_params(isp, frame, opt)) ||
	    (ret = white_balance(isp, frame, opt, output, pool)))
		return ret;
	/* Linear output is the sensor's exposure; otherwise the automatic one, or the file's baseline. */
	ev = opt->ev;
	if (!opt->linear && opt->manual_exposure) {
		ev += frame->baseline_ev;
	} else if (!opt->linear) {
		struct cisp_develop_area area = cisp_develop_area(frame, opt);
		double gain;

		if ((ret = develop_auto_exposure(frame, &area, cisp_isp_params(isp), (enum cisp_develop_tone)opt->tone,
						 &gain)))
			return ret;
		ev += log2(gain);
	}
	if (ev != 0 && (ret = apply_exposure(isp, ev)))
		return cisp_error_prefix(ret, "develop: exposure");
	return 0;
}

int cisp_develop(const struct cisp_raw_frame *frame, const struct cisp_develop_options *opt, struct cisp_image *out,
		 struct cisp_pool *pool)
{
	struct cisp_isp_config config;
	struct cisp_isp *isp = NULL;
	struct cisp_image *outputs[CISP_MAX_OUTPUTS] = { out, NULL };
	int ret;

	memset(out, 0, sizeof(*out));
	ret = cisp_develop_config(frame, opt, &config);
	if (!ret)
		ret = cisp_isp_create(&isp, &config);
	if (!ret)
		ret = cisp_image_alloc(out, config.output[0].format, config.output[0].width, config.output[0].height);
	if (!ret)
		ret = cisp_develop_prepare(isp, frame, opt, outputs, pool);
	if (!ret)
		ret = cisp_isp_process(isp, &frame->image, outputs, NULL, pool);
	cisp_isp_destroy(isp);
	if (ret)
		cisp_image_free(out);
	return ret;
}
