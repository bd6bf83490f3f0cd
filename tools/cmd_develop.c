/* SPDX-License-Identifier: MIT */
/* cisp develop: run the whole canonical pipeline on a raw frame. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/image_file.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>
#include <cisp/pool.h>
#include <cisp/raster.h>
#include <cisp/raw_frame.h>

#include "commands.h"
#include "options.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cisp develop IN -o OUT [options]\n"
		"\n"
		"Run the canonical ISP pipeline on a raw frame.\n"
		"\n"
		"IN is a headerless raw dump (give --size and --format) or a grey PGM/PNG\n"
		"mosaic (give --cfa, and --black/--white when the levels are not 0 and the\n"
		"largest sample). OUT's extension picks the output: .png .ppm (RGB, 8-bit;\n"
		"16-bit with --linear or --depth 16), .nv12 .i420 .yuv (raw YUV 4:2:0), .y4m.\n"
		"\n"
		"options:\n"
		"  -o, --output FILE       the developed image\n"
		"  --size WxH              size of a headerless raw dump\n"
		"  --format NAME           V4L2 Bayer format of a raw dump (SRGGB10P, SGRBG12, ...)\n"
		"  --cfa ORDER             CFA order of a PGM/PNG mosaic: RGGB (default), GRBG, GBRG, BGGR\n"
		"  --black N               black level in the input's units (default 0)\n"
		"  --white N               white level in the input's units (default: the format's\n"
		"                          maximum for dumps, the largest sample for mosaics)\n"
		"  --params FILE           ISP parameters (YAML or binary) applied over the defaults\n"
		"  --demosaic fast|quality demosaic algorithm (default fast)\n"
		"  --awb grey|none         automatic white balance (default grey unless --params\n"
		"                          sets the wb block)\n"
		"  --ev N                  exposure compensation in stops, -4..4 (default 0)\n"
		"  --linear                16-bit linear output in the output colour space: no tone\n"
		"                          curve, 3D LUT or sharpening\n"
		"  --depth 8|16            bits per channel of PNG/PPM output (default 8)\n"
		"  --output-size WxH       scale the output to this size\n"
		"  --threads N             worker threads (default: one per CPU)\n"
		"  --bench N               run the pipeline N times and print 'MPix/s <median>' last\n"
		"  -h, --help              this help\n");
}

struct develop_options {
	const char *input, *output, *params, *format_name, *cfa_name, *demosaic;
	uint32_t width, height, out_w, out_h;
	long black, white;
	bool linear, awb, awb_given;
	double ev;
	unsigned depth, threads, bench;
};

static int parse_options(int argc, char **argv, struct develop_options *o)
{
	enum { OPT_SIZE = 256, OPT_FORMAT, OPT_CFA, OPT_BLACK, OPT_WHITE, OPT_PARAMS, OPT_DEMOSAIC, OPT_AWB,
	       OPT_EV, OPT_LINEAR, OPT_DEPTH, OPT_OUTPUT_SIZE, OPT_THREADS, OPT_BENCH };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "cfa", required_argument, NULL, OPT_CFA },
		{ "black", required_argument, NULL, OPT_BLACK },
		{ "white", required_argument, NULL, OPT_WHITE },
		{ "params", required_argument, NULL, OPT_PARAMS },
		{ "demosaic", required_argument, NULL, OPT_DEMOSAIC },
		{ "awb", required_argument, NULL, OPT_AWB },
		{ "ev", required_argument, NULL, OPT_EV },
		{ "linear", no_argument, NULL, OPT_LINEAR },
		{ "depth", required_argument, NULL, OPT_DEPTH },
		{ "output-size", required_argument, NULL, OPT_OUTPUT_SIZE },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "bench", required_argument, NULL, OPT_BENCH },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->black = -1;
	o->white = -1;
	o->awb = true;
	o->depth = 8;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case OPT_SIZE:
			if (parse_size("--size", optarg, &o->width, &o->height))
				return 2;
			break;
		case OPT_FORMAT:
			o->format_name = optarg;
			break;
		case OPT_CFA:
			o->cfa_name = optarg;
			break;
		case OPT_BLACK:
			if (parse_uint("--black", optarg, 0, 65535, &v))
				return 2;
			o->black = (long)v;
			break;
		case OPT_WHITE:
			if (parse_uint("--white", optarg, 1, 65535, &v))
				return 2;
			o->white = (long)v;
			break;
		case OPT_PARAMS:
			o->params = optarg;
			break;
		case OPT_DEMOSAIC:
			o->demosaic = optarg;
			break;
		case OPT_AWB:
			if (strcmp(optarg, "grey") && strcmp(optarg, "gray") && strcmp(optarg, "none")) {
				fprintf(stderr, "cisp develop: --awb takes grey or none, not '%s'\n", optarg);
				return 2;
			}
			o->awb = strcmp(optarg, "none") != 0;
			o->awb_given = true;
			break;
		case OPT_EV:
			if (parse_double("--ev", optarg, -4, 4, &o->ev))
				return 2;
			break;
		case OPT_LINEAR:
			o->linear = true;
			break;
		case OPT_DEPTH:
			if (parse_uint("--depth", optarg, 8, 16, &v) || (v != 8 && v != 16)) {
				fprintf(stderr, "cisp develop: --depth takes 8 or 16\n");
				return 2;
			}
			o->depth = (unsigned)v;
			break;
		case OPT_OUTPUT_SIZE:
			if (parse_size("--output-size", optarg, &o->out_w, &o->out_h))
				return 2;
			break;
		case OPT_THREADS:
			if (parse_uint("--threads", optarg, 1, 256, &v))
				return 2;
			o->threads = (unsigned)v;
			break;
		case OPT_BENCH:
			if (parse_uint("--bench", optarg, 1, 100000, &v))
				return 2;
			o->bench = (unsigned)v;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || !o->output) {
		fprintf(stderr, "cisp develop: %s\n", optind >= argc ? "no input file given" :
				    optind < argc - 1 ? "give one input file" : "no output file given (-o OUT)");
		usage(stderr);
		return 2;
	}
	o->input = argv[optind];
	return 0;
}

/* Read the input as a raw dump or a PGM/PNG mosaic, with its levels. */
static int load_input(const struct develop_options *o, struct cisp_raw_frame *frame)
{
	int ret;

	if (o->format_name || o->width) {
		uint32_t format;

		if (!o->format_name || !o->width) {
			fprintf(stderr, "cisp develop: a raw dump needs both --size WxH and --format NAME\n");
			return 2;
		}
		format = cisp_format_from_name(o->format_name);
		if (!format) {
			fprintf(stderr, "cisp develop: %s\n", cisp_last_error());
			return 2;
		}
		ret = cisp_raw_read_dump(o->input, format, o->width, o->height, frame);
		if (!ret) {
			for (int c = 0; c < 4 && o->black >= 0; c++)
				frame->black[c] = (uint16_t)o->black;
			if (o->white >= 0)
				frame->white = (uint16_t)o->white;
		}
	} else {
		struct cisp_raster raster;
		enum cisp_cfa cfa = CISP_CFA_RGGB;

		if (o->cfa_name && cisp_cfa_from_name(o->cfa_name, &cfa)) {
			fprintf(stderr, "cisp develop: %s\n", cisp_last_error());
			return 2;
		}
		ret = cisp_raster_read(o->input, &raster);
		if (!ret) {
			ret = cisp_raw_from_raster(&raster, cfa, o->black >= 0 ? (unsigned)o->black : 0,
						   o->white >= 0 ? (unsigned)o->white : 0, frame);
			cisp_raster_free(&raster);
		}
	}
	if (ret) {
		/* Readers name the file themselves; add it only where they do not. */
		const char *msg = cisp_last_error();
		if (strstr(msg, o->input))
			fprintf(stderr, "cisp develop: %s\n", msg);
		else
			fprintf(stderr, "cisp develop: %s: %s\n", o->input, msg);
		return 1;
	}
	return 0;
}

/* The default parameters of develop, then the frame's metadata, then the user's file. */
static int build_params(const struct develop_options *o, const struct cisp_raw_frame *frame,
			struct cisp_isp *isp)
{
	struct cisp_param_state state;
	void *buf = NULL;
	size_t size;
	int ret;

	cisp_param_state_init(&state);
	state.dpc.threshold = 4096;
	state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_DPC) | CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN);
	if (o->demosaic) {
		if (!strcmp(o->demosaic, "fast")) {
			state.demosaic.algorithm = CISP_DEMOSAIC_FAST;
		} else if (!strcmp(o->demosaic, "quality")) {
			state.demosaic.algorithm = CISP_DEMOSAIC_QUALITY;
		} else {
			fprintf(stderr, "cisp develop: --demosaic takes fast or quality, not '%s'\n", o->demosaic);
			return 2;
		}
	}
	if (cisp_raw_frame_params(frame, &state)) {
		fprintf(stderr, "cisp develop: %s: %s\n", o->input, cisp_last_error());
		return 1;
	}
	if (o->linear)
		state.enabled &= ~(CISP_BLOCK_BIT(CISP_BLOCK_TONE) | CISP_BLOCK_BIT(CISP_BLOCK_LUT3D) |
				   CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN));
	ret = cisp_params_encode(&state, ~0u, NULL, 0, &size);
	buf = ret ? NULL : malloc(size);
	if (!buf || cisp_params_encode(&state, ~0u, buf, size, &size) || cisp_isp_set_params(isp, buf, size)) {
		fprintf(stderr, "cisp develop: cannot set the default parameters: %s\n", cisp_last_error());
		free(buf);
		return 1;
	}
	free(buf);
	if (o->params) {
		if (load_params(o->params, &buf, &size))
			return 1;
		ret = cisp_isp_set_params(isp, buf, size);
		free(buf);
		if (ret) {
			fprintf(stderr, "cisp develop: %s: %s\n", o->params, cisp_last_error());
			return 1;
		}
	}
	return 0;
}

/* Grey world on the statistics of a first pass: scale R and B to G's mean. */
static int auto_white_balance(struct cisp_isp *isp, const struct cisp_image *input,
			      struct cisp_image *const outputs[CISP_MAX_OUTPUTS], struct cisp_pool *pool)
{
	struct cisp_param_state state = *cisp_isp_params(isp);
	struct cisp_stats *stats = calloc(1, sizeof(*stats));
	double sum[3] = { 0, 0, 0 }, gain[3];
	size_t size;
	void *buf;
	int ret;

	if (!stats)
		return -ENOMEM;
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
		return ret;
	for (int c = 0; c < 3; c++) {
		gain[c] = sum[c] > 0 ? sum[1] / sum[c] : 1.0;
		gain[c] = gain[c] < 0.25 ? 0.25 : gain[c] > 8 ? 8 : gain[c];
	}
	state.wb.gain[CISP_CH_R] = (uint16_t)(gain[0] * 4096 + 0.5 > 65535 ? 65535 : gain[0] * 4096 + 0.5);
	state.wb.gain[CISP_CH_GR] = state.wb.gain[CISP_CH_GB] = (uint16_t)(gain[1] * 4096 + 0.5);
	state.wb.gain[CISP_CH_B] = (uint16_t)(gain[2] * 4096 + 0.5 > 65535 ? 65535 : gain[2] * 4096 + 0.5);
	state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_WB);
	if ((ret = cisp_params_encode(&state, CISP_BLOCK_BIT(CISP_BLOCK_WB), NULL, 0, &size)))
		return ret;
	buf = malloc(size);
	ret = buf ? cisp_params_encode(&state, CISP_BLOCK_BIT(CISP_BLOCK_WB), buf, size, &size) : -ENOMEM;
	if (!ret)
		ret = cisp_isp_set_params(isp, buf, size);
	free(buf);
	return ret;
}

int cmd_develop(int argc, char **argv)
{
	struct develop_options o;
	struct cisp_raw_frame frame;
	struct cisp_isp_config cfg = { 0 };
	struct cisp_isp *isp = NULL;
	struct cisp_pool *pool = NULL;
	struct cisp_image out = { 0 };
	struct cisp_image *outputs[CISP_MAX_OUTPUTS] = { &out, NULL };
	bool params_set_wb = false;
	int ret = parse_options(argc, argv, &o);

	if (ret)
		return ret < 0 ? 0 : ret;
	if ((ret = load_input(&o, &frame)))
		return ret;

	cfg.input_format = frame.image.format;
	cfg.width = frame.image.width;
	cfg.height = frame.image.height;
	cfg.output[0].format = cisp_output_format_for_path(o.output, o.linear || o.depth == 16);
	cfg.output[0].width = o.out_w ? o.out_w : cfg.width;
	cfg.output[0].height = o.out_h ? o.out_h : cfg.height;
	if (!cfg.output[0].format) {
		fprintf(stderr, "cisp develop: %s\n", cisp_last_error());
		ret = 2;
		goto done;
	}
	if (cisp_isp_create(&isp, &cfg) || cisp_image_alloc(&out, cfg.output[0].format, cfg.output[0].width,
							    cfg.output[0].height) ||
	    cisp_pool_create(&pool, o.threads)) {
		fprintf(stderr, "cisp develop: %s\n", cisp_last_error());
		ret = 1;
		goto done;
	}
	if ((ret = build_params(&o, &frame, isp)))
		goto done;
	if (o.params) {
		/* A params file that sets white balance turns automatic white balance off. */
		struct cisp_param_state defaults;
		cisp_param_state_init(&defaults);
		params_set_wb = memcmp(&defaults.wb.gain, &cisp_isp_params(isp)->wb.gain, sizeof(defaults.wb.gain)) != 0;
	}
	if (o.awb && !(params_set_wb && !o.awb_given) && !frame.has_wb) {
		if (auto_white_balance(isp, &frame.image, outputs, pool)) {
			fprintf(stderr, "cisp develop: automatic white balance failed: %s\n", cisp_last_error());
			ret = 1;
			goto done;
		}
	}
	if (o.ev != 0) {
		/* Exposure compensation scales the white-balance gains. */
		struct cisp_param_state s = *cisp_isp_params(isp);
		double scale = exp2(o.ev);
		size_t size;
		uint8_t buf[64];

		for (int c = 0; c < 4; c++) {
			double g = s.wb.gain[c] * scale + 0.5;
			s.wb.gain[c] = (uint16_t)(g > 65535 ? 65535 : g);
		}
		s.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_WB);
		if (cisp_params_encode(&s, CISP_BLOCK_BIT(CISP_BLOCK_WB), buf, sizeof(buf), &size) ||
		    cisp_isp_set_params(isp, buf, size)) {
			fprintf(stderr, "cisp develop: %s\n", cisp_last_error());
			ret = 1;
			goto done;
		}
	}

	if (o.bench) {
		double *times = calloc(o.bench, sizeof(double));
		double mpix = (double)cfg.width * cfg.height / 1e6;

		for (unsigned i = 0; times && i < o.bench; i++) {
			double t0 = now_seconds();
			ret = cisp_isp_process(isp, &frame.image, outputs, NULL, pool);
			times[i] = now_seconds() - t0;
			if (ret)
				break;
			printf("run %u: %.2f ms\n", i + 1, times[i] * 1e3);
		}
		if (times && !ret)
			printf("%ux%u, %u threads\nMPix/s %.1f\n", cfg.width, cfg.height, cisp_pool_threads(pool),
			       mpix / median(times, (int)o.bench));
		free(times);
	} else {
		ret = cisp_isp_process(isp, &frame.image, outputs, NULL, pool);
	}
	if (ret || (ret = cisp_image_write_file(o.output, &out, cisp_isp_params(isp)->csc.range == CISP_RANGE_FULL))) {
		fprintf(stderr, "cisp develop: %s\n", cisp_last_error());
		ret = 1;
	}
done:
	cisp_pool_destroy(pool);
	cisp_image_free(&out);
	cisp_isp_destroy(isp);
	cisp_raw_frame_free(&frame);
	return ret;
}
