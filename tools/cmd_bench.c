/* SPDX-License-Identifier: MIT */
/*
 * cisp bench: the command line of the ISP benchmark in bench/isp_bench.c
 * (speed of each stage and of the whole pipeline, reference against
 * banded executor).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/format.h>

#include "commands.h"
#include "isp_bench.h"
#include "options.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cisp bench [options]\n"
		"\n"
		"Time the ISP on a synthetic frame (or a mosaic from a file): each stage and\n"
		"the whole pipeline, the reference executor against the optimised one, at 1\n"
		"and 2 threads; print one 'bench key=value ...' line per figure and the peak\n"
		"memory. A peer, OpenCV's edge-aware demosaic of the same frame, runs in the\n"
		"same process's turns (A B B A with the optimised pipeline) and each figure\n"
		"has its ratio to it (ratio=); the CPU model and the load before and after\n"
		"go with them. The peer is the program in $CISP_BENCH_PEER, else the one the\n"
		"build made when it found OpenCV; without one the figures have no ratio.\n"
		"\n"
		"options:\n"
		"  --size WxH        frame size (default 4000x3000)\n"
		"  --format NAME     Bayer input format (default SRGGB10)\n"
		"  --input FILE      the frame from a grey PGM or PNG mosaic (its size; samples\n"
		"                    scaled to the format's bits; its CFA must be the format's,\n"
		"                    e.g. build/bench/mosaic output is RGGB); unpacked formats\n"
		"  --reps N          repetitions per figure, median reported (default 5)\n"
		"  --threads LIST    thread counts, comma-separated (default 1,2)\n"
		"  --cpu LEVEL       row functions: scalar, sse4, avx2, avx512, avx512vnni, neon (default: best)\n"
		"  --band N          rows per band of the optimised executor (default 16)\n"
		"  --no-stages       the pipelines only\n"
		"  --no-quality      skip the quality pipelines (quality demosaic and chroma\n"
		"                    denoise; with the fast and with the quality Bayer denoise)\n"
		"  --no-reference    time the optimised executor only (for profiling)\n"
		"  --no-peer         no peer and no ratios\n"
		"  --isp vulkan      instead: the canonical pipeline as jobs of a device context\n"
		"                    on the Vulkan backend beside the software ISP, in turns\n"
		"                    (A B B A): frames/s and the time of a frame of each, and\n"
		"                    their ratio (docs/gpu.md)\n"
		"  -h, --help        this help\n");
}

static int parse_threads(const char *text, struct isp_bench_options *o)
{
	const char *p = text;
	char *end;

	o->n_threads = 0;
	while (*p && o->n_threads < ISP_BENCH_MAX_THREADS) {
		long t = strtol(p, &end, 10);

		if (end == p || t < 1 || t > 256 || (*end && *end != ',')) {
			fprintf(stderr, "cisp bench: --threads %s: a list of counts 1..256 like 1,2\n", text);
			return -EINVAL;
		}
		o->threads[o->n_threads++] = (int)t;
		p = *end ? end + 1 : end;
	}
	return 0;
}

static int parse(int argc, char **argv, struct isp_bench_options *o)
{
	enum { OPT_SIZE = 256, OPT_FORMAT, OPT_REPS, OPT_THREADS, OPT_CPU, OPT_BAND, OPT_NO_STAGES, OPT_NO_QUALITY,
	       OPT_NO_REFERENCE, OPT_INPUT, OPT_NO_PEER, OPT_ISP };
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, OPT_SIZE },	     { "format", required_argument, NULL, OPT_FORMAT },
		{ "reps", required_argument, NULL, OPT_REPS },	     { "threads", required_argument, NULL, OPT_THREADS },
		{ "cpu", required_argument, NULL, OPT_CPU },	     { "band", required_argument, NULL, OPT_BAND },
		{ "no-stages", no_argument, NULL, OPT_NO_STAGES }, { "no-quality", no_argument, NULL, OPT_NO_QUALITY },
		{ "no-reference", no_argument, NULL, OPT_NO_REFERENCE }, { "input", required_argument, NULL, OPT_INPUT },
		{ "no-peer", no_argument, NULL, OPT_NO_PEER },		     { "isp", required_argument, NULL, OPT_ISP },
		{ "help", no_argument, NULL, 'h' },		     { NULL, 0, NULL, 0 }
	};
	unsigned long v;
	int opt;

	*o = (struct isp_bench_options){ .width = 4000, .height = 3000, .format = CISP_FMT_SRGGB10, .reps = 5, .band = 16,
					 .stages = true, .quality = true, .reference = true, .peer = true,
					 .threads = { 1, 2 }, .n_threads = 2 };
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_SIZE:
			if (parse_size("--size", optarg, &o->width, &o->height))
				return -EINVAL;
			if (o->width < 16 || o->height < 16 || o->width % 2 || o->height % 2) {
				fprintf(stderr, "cisp bench: --size %s: width and height must be even and at least 16\n",
					optarg);
				return -EINVAL;
			}
			break;
		case OPT_FORMAT: {
			uint32_t fmt = cisp_format_from_name(optarg);
			const struct cisp_format_info *f = cisp_format_info(fmt);

			if (!f || f->kind != CISP_KIND_BAYER) {
				fprintf(stderr, "cisp bench: --format %s is not a Bayer format\n", optarg);
				return -EINVAL;
			}
			o->format = fmt;
			break;
		}
		case OPT_REPS:
			if (parse_uint("--reps", optarg, 1, ISP_BENCH_MAX_REPS, &v))
				return -EINVAL;
			o->reps = (int)v;
			break;
		case OPT_THREADS:
			if (parse_threads(optarg, o))
				return -EINVAL;
			break;
		case OPT_CPU:
			o->cpu = optarg; /* checked against the machine by the benchmark */
			break;
		case OPT_BAND:
			if (parse_uint("--band", optarg, 2, 4096, &v) || v % 2) {
				fprintf(stderr, "cisp bench: --band %s: an even number of rows, 2..4096\n", optarg);
				return -EINVAL;
			}
			o->band = (int)v;
			break;
		case OPT_NO_STAGES:
			o->stages = false;
			break;
		case OPT_NO_QUALITY:
			o->quality = false;
			break;
		case OPT_NO_REFERENCE:
			o->reference = false;
			break;
		case OPT_NO_PEER:
			o->peer = false;
			break;
		case OPT_INPUT:
			o->input = optarg;
			break;
		case OPT_ISP:
			if (strcmp(optarg, "vulkan")) {
				fprintf(stderr, "cisp bench: --isp %s: the choice is vulkan (the software ISP is the default)\n",
					optarg);
				return -EINVAL;
			}
			o->isp = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			bad_option(argv, "h");
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cisp bench: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	struct isp_bench_options o;
	int ret = parse(argc, argv, &o);

	if (ret)
		return ret > 0 ? 0 : 2;
	return isp_bench_run(&o);
}
