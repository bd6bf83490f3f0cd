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
#include <cisp/raster.h>
#include <cisp/raw_file.h>

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
	} else if (src->cfa >= 0) {
		FILE *f;

		/* A file that cannot be read says so first. */
		if ((ret = cisp_input_file_open(path, &f, NULL)))
			return ret;
		fclose(f);
		return cisp_error(-EINVAL, "%s: a CFA order applies to PGM/PNG mosaics; a raw file carries its own", path);
	} else {
		ret = cisp_raw_read_file(path, frame);
	}
	if (ret)
		return name_file(ret, path);
	/* Levels given replace the file's (dumps: the format's defaults). */
	for (int c = 0; c < 4 && src->black >= 0; c++)
		frame->black[c] = (uint16_t)src->black;
	if (src->white >= 0)
		frame->white = (uint16_t)src->white;
	frame->defaults &= ~((src->black >= 0 ? CISP_RAW_DEFAULT_BLACK : 0u) |
			     (src->white >= 0 ? CISP_RAW_DEFAULT_WHITE : 0u));
	return 0;
}

struct cisp_develop_area cisp_develop_area(const struct cisp_raw_frame *frame, const struct cisp_develop_options *opt)
{
	const struct cisp_image *img = &frame->image;
	uint32_t x0 = (frame->crop.x + 1) & ~1u, y0 = (frame->crop.y + 1) & ~1u;
	uint32_t x1 = (frame->crop.x + frame->crop.width) & ~1u, y1 = (frame->crop.y + frame->crop.height) & ~1u;

	if ((opt && opt->full_frame) || !frame->crop.width || x1 < x0 + 2 || y1 < y0 + 2 || x1 > img->width ||
	    y1 > img->height)
		return (struct cisp_develop_area){ 0, 0, img->width, img->height };
	return (struct cisp_develop_area){ x0, y0, x1 - x0, y1 - y0 };
}

static const struct cisp_develop_options default_options;

int cisp_develop_config(const struct cisp_raw_frame *frame, const struct cisp_develop_options *opt,
			struct cisp_isp_config *config)
{
	struct cisp_develop_area area;

	if (!opt)
		opt = &default_options;
	if (opt->demosaic > CISP_DEMOSAIC_QUALITY || opt->awb > CISP_DEVELOP_AWB_NONE || !(fabs(opt->ev) <= 4))
		return cisp_error(-EINVAL, "develop: demosaic %u, white balance %u or exposure %g stops out of range",
				  opt->demosaic, opt->awb, opt->ev);
	if (opt->highlights > CISP_DEVELOP_HIGHLIGHTS_NONE)
		return cisp_error(-EINVAL, "develop: highlights %u out of range 0..%u", opt->highlights,
				  CISP_DEVELOP_HIGHLIGHTS_NONE);
	area = cisp_develop_area(frame, opt);
	memset(config, 0, sizeof(*config));
	config->input_format = frame->image.format;
	config->width = frame->image.width;
	config->height = frame->image.height;
	config->output[0].format = opt->output_format   ? opt->output_format
				   : opt->linear        ? CISP_FMT_RGB48
							: CISP_FMT_RGB888;
	config->output[0].width = opt->output_width ? opt->output_width : area.width;
	config->output[0].height = opt->output_height ? opt->output_height : area.height;
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

/* A gain as Q4.12, rounded, at most 65535. */
static uint16_t q12_gain(double gain)
{
	double q = gain * 4096 + 0.5;

	return (uint16_t)(q > 65535 ? 65535 : q);
}

/* Grey world on the statistics of a first pass: scale R and B to G's mean. */
static int grey_world(struct cisp_isp *isp, const struct cisp_image *input,
		      struct cisp_image *const outputs[CISP_MAX_OUTPUTS], struct cisp_pool *pool)
{
	struct cisp_param_state state = *cisp_isp_params(isp);
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
	state.wb.gain[CISP_CH_R] = q12_gain(gain[0]);
	state.wb.gain[CISP_CH_GR] = state.wb.gain[CISP_CH_GB] = q12_gain(gain[1]);
	state.wb.gain[CISP_CH_B] = q12_gain(gain[2]);
	state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_WB);
	return cisp_isp_set_state(isp, &state, CISP_BLOCK_BIT(CISP_BLOCK_WB));
}

/* Exposure compensation scales the white-balance gains. */
static int apply_ev(struct cisp_isp *isp, double ev)
{
	struct cisp_param_state s = *cisp_isp_params(isp);
	double scale = exp2(ev);

	for (int c = 0; c < 4; c++)
		s.wb.gain[c] = q12_gain(s.wb.gain[c] * scale / 4096);
	s.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_WB);
	return cisp_isp_set_state(isp, &s, CISP_BLOCK_BIT(CISP_BLOCK_WB));
}

int cisp_develop_prepare(struct cisp_isp *isp, const struct cisp_raw_frame *frame,
			 const struct cisp_develop_options *opt, struct cisp_image *const output[CISP_MAX_OUTPUTS],
			 struct cisp_pool *pool)
{
	bool params_wb = false, grey;
	int ret;

	if (!opt)
		opt = &default_options;
	if ((ret = set_params(isp, frame, opt)))
		return ret;
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
	if (grey && (ret = grey_world(isp, &frame->image, output, pool)))
		return ret;
	if (opt->ev != 0 && (ret = apply_ev(isp, opt->ev)))
		return cisp_error_prefix(ret, "develop: exposure compensation");
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
