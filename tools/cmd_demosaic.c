/* SPDX-License-Identifier: MIT */
/* cisp demosaic: demosaic a Bayer mosaic and nothing else, to measure quality and speed. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/image.h>
#include <cisp/isp.h>
#include <cisp/output_file.h>
#include <cisp/params_state.h>
#include <cisp/pool.h>
#include <cisp/raster.h>

#include "commands.h"
#include "memory.h"
#include "options.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cisp demosaic [options] IN.pgm|IN.png OUT.ppm|OUT.png\n"
		"\n"
		"Demosaic a grey Bayer mosaic into RGB: no white balance, colour matrix or\n"
		"gamma. The output has the input's maximum value (16-bit in, 16-bit out).\n"
		"\n"
		"options:\n"
		"  --algo fast|quality   demosaic algorithm (default fast)\n"
		"  --cfa ORDER           CFA order: RGGB (default), GRBG, GBRG, BGGR\n"
		"  --threads N           worker threads, 1..256 (default: one per CPU)\n"
		"  --bench N             run the demosaic N times, print 'MPix/s <median>' last\n"
		"  --force               replace an existing OUT\n"
		"  -h, --help            this help\n"
		"The optimised row functions are the CPU's best (CISP_CPU=scalar|sse4|avx2|avx512|avx512vnni|neon caps them).\n");
}

struct demosaic_options {
	enum cisp_demosaic_algorithm algorithm;
	enum cisp_cfa cfa;
	unsigned long threads, bench;
	bool force;
	const char *input, *output;
};

/* 0, 1 (stop with success: --help) or -EINVAL (bad usage, already reported). */
static int parse_options(int argc, char **argv, struct demosaic_options *o)
{
	enum { OPT_ALGO = 256, OPT_CFA, OPT_THREADS, OPT_BENCH, OPT_FORCE };
	static const struct option longopts[] = {
		{ "algo", required_argument, NULL, OPT_ALGO },
		{ "cfa", required_argument, NULL, OPT_CFA },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "bench", required_argument, NULL, OPT_BENCH },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	*o = (struct demosaic_options){ .algorithm = CISP_DEMOSAIC_FAST, .cfa = CISP_CFA_RGGB };
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_ALGO:
			if (!strcmp(optarg, "fast")) {
				o->algorithm = CISP_DEMOSAIC_FAST;
			} else if (!strcmp(optarg, "quality")) {
				o->algorithm = CISP_DEMOSAIC_QUALITY;
			} else {
				fprintf(stderr, "cisp demosaic: --algo '%s' is not fast or quality\n", optarg);
				return -EINVAL;
			}
			break;
		case OPT_CFA:
			if (cisp_cfa_from_name(optarg, &o->cfa)) {
				fprintf(stderr, "cisp demosaic: --cfa: %s\n", error_text());
				return -EINVAL;
			}
			break;
		case OPT_THREADS:
			if (parse_uint("--threads", optarg, 1, 256, &o->threads))
				return -EINVAL;
			break;
		case OPT_BENCH:
			if (parse_uint("--bench", optarg, 1, 100000, &o->bench))
				return -EINVAL;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			bad_option(argv, "h");
			return -EINVAL;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "cisp demosaic: expected an input and an output file, got %d file name%s\n",
			argc - optind, argc - optind == 1 ? "" : "s");
		return -EINVAL;
	}
	o->input = argv[optind];
	o->output = argv[optind + 1];
	return 0;
}

/*
 * An ISP instance that only demosaics: a 16-bit mosaic in, RGB48 out, every
 * block that can be off off (docs/pipeline.md: each then passes its input
 * through), so the output is the demosaic's own.
 */
static int demosaic_isp(const struct demosaic_options *o, uint32_t width, uint32_t height, struct cisp_isp **isp)
{
	struct cisp_isp_config cfg = {
		.input_format = cisp_bayer_format(o->cfa, 16, false),
		.width = width,
		.height = height,
		.output = { { CISP_FMT_RGB48, width, height } },
	};
	struct cisp_param_state state;
	int ret = cisp_isp_create(isp, &cfg);

	if (ret)
		return ret;
	cisp_param_state_init(&state);
	state.enabled = 0;
	state.demosaic.algorithm = (uint16_t)o->algorithm;
	return cisp_isp_set_state(*isp, &state, ~0u);
}

/* Run the demosaic once, or o->bench times printing the timings. */
static int run(const struct demosaic_options *o, struct cisp_isp *isp, const struct cisp_image *bayer,
	       struct cisp_image *rgb, struct cisp_pool *pool)
{
	struct cisp_image *outputs[CISP_MAX_OUTPUTS] = { rgb, NULL };
	long runs = o->bench ? (long)o->bench : 1;
	double *ms = malloc((size_t)runs * sizeof(double));
	int ret = 0;

	if (!ms)
		return cisp_error(-ENOMEM, "out of memory");
	for (long i = 0; i < runs && !ret; i++) {
		double t0 = now_seconds();

		ret = cisp_isp_process(isp, bayer, outputs, NULL, pool);
		ms[i] = (now_seconds() - t0) * 1e3;
	}
	if (o->bench && !ret) {
		double mpix = (double)bayer->width * bayer->height * 1e-6;

		printf("demosaic %s, %ux%u, %u thread%s, %ld runs (ms):", o->algorithm ? "quality" : "fast",
		       bayer->width, bayer->height, cisp_pool_threads(pool), cisp_pool_threads(pool) == 1 ? "" : "s",
		       runs);
		for (long i = 0; i < runs; i++)
			printf(" %.2f", ms[i]);
		double median_ms = median(ms, (int)runs);
		printf("\nmedian_ms %.3f\nMPix/s %.1f\n", median_ms, mpix / (median_ms * 1e-3));
	}
	free(ms);
	return ret;
}

/*
 * What the demosaic of a @width x @height mosaic holds at once (docs/cli.md):
 * the mosaic read (2 bytes a pixel) and its 16-bit copy (2), the ISP's
 * whole-frame planes (16), its RGB48 output (6), the output raster (6), and
 * a PPM writer's samples (6) or PNG's rows.
 */
static size_t demosaic_memory(uint32_t width, uint32_t height)
{
	return mem_add(BASE_MEMORY, mem_mul(38, mem_mul(width, height)));
}

int cmd_demosaic(int argc, char **argv)
{
	struct demosaic_options o;
	struct cisp_raster in = { 0 }, out = { 0 };
	struct cisp_isp *isp = NULL;
	struct cisp_pool *pool = NULL;
	struct cisp_output_file *file = NULL;
	struct cisp_image bayer = { 0 }, rgb = { 0 };
	const char *inputs[2] = { NULL, NULL };
	char what[1100];
	int ret, status = 1;

	ret = parse_options(argc, argv, &o);
	if (ret)
		return ret > 0 ? 0 : 2;
	inputs[0] = o.input;
	/* Made first: an existing output, or one that cannot be created, fails before the input is read. */
	if (create_output(&file, o.output, o.force, inputs) || cisp_raster_read(o.input, &in)) {
		fprintf(stderr, "cisp demosaic: %s\n", error_text());
		goto done;
	}
	cisp_printable(o.input, what, sizeof(what));
	if (in.channels != 1) {
		fprintf(stderr, "cisp demosaic: %s is an RGB image; a Bayer mosaic is a grey image\n", what);
		goto done;
	}
	if (in.width < 16 || in.height < 16 || (in.width | in.height) & 1 || in.width > 65536 || in.height > 65536) {
		fprintf(stderr, "cisp demosaic: %s is %ux%u; a mosaic needs an even width and height of 16..65536\n",
			what, in.width, in.height);
		goto done;
	}
	snprintf(what + strlen(what), sizeof(what) - strlen(what), ": demosaicing %ux%u", in.width, in.height);
	if (memory_check(what, demosaic_memory(in.width, in.height)) ||
	    demosaic_isp(&o, in.width, in.height, &isp) || cisp_pool_create(&pool, (unsigned)o.threads) ||
	    cisp_image_alloc(&bayer, cisp_bayer_format(o.cfa, 16, false), in.width, in.height) ||
	    cisp_image_alloc(&rgb, CISP_FMT_RGB48, in.width, in.height) ||
	    cisp_raster_alloc(&out, in.width, in.height, 3, in.maxval)) {
		fprintf(stderr, "cisp demosaic: %s\n", error_text());
		goto done;
	}

	/* Samples to 16-bit units, rounded: v * 65535 / maxval (exact for 8 and 16 bits). */
	for (uint32_t y = 0; y < in.height; y++) {
		uint16_t *row = (uint16_t *)(bayer.plane[0].data + y * bayer.plane[0].stride);
		const uint16_t *src = in.data + (size_t)y * in.width;

		for (uint32_t x = 0; x < in.width; x++)
			row[x] = (uint16_t)(((uint64_t)src[x] * 65535 + in.maxval / 2) / in.maxval);
	}
	if (run(&o, isp, &bayer, &rgb, pool)) {
		fprintf(stderr, "cisp demosaic: %s\n", error_text());
		goto done;
	}

	/* Back to the input's scale, rounded. */
	for (uint32_t y = 0; y < in.height; y++) {
		const uint16_t *row = (const uint16_t *)(rgb.plane[0].data + y * rgb.plane[0].stride);
		uint16_t *dst = out.data + (size_t)y * in.width * 3;

		for (uint32_t i = 0; i < in.width * 3; i++)
			dst[i] = (uint16_t)(((uint64_t)row[i] * in.maxval + 32767) / 65535);
	}
	ret = finish_output(file, cisp_raster_write_to(file, &out), o.force);
	file = NULL;
	if (ret) {
		fprintf(stderr, "cisp demosaic: %s\n", error_text());
		goto done;
	}
	status = 0;
done:
	cisp_output_file_discard(file);
	cisp_pool_destroy(pool);
	cisp_isp_destroy(isp);
	cisp_image_free(&bayer);
	cisp_image_free(&rgb);
	cisp_raster_free(&out);
	cisp_raster_free(&in);
	return status;
}
