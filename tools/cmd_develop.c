/* SPDX-License-Identifier: MIT */
/* cisp develop: run the whole canonical pipeline on raw frames, one or many. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cisp/develop.h>
#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/image_file.h>
#include <cisp/isp.h>
#include <cisp/log.h>
#include <cisp/params_state.h>
#include <cisp/pool.h>
#include <cisp/raw_frame.h>
#include <cisp/vendor.h>

#include "commands.h"
#include "memory.h"
#include "options.h"
#include "peer.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cisp develop IN -o OUT [options]\n"
		"       cisp develop IN... -o DIR/ [-j N] [options]\n"
		"\n"
		"Run the canonical ISP pipeline on raw frames.\n"
		"\n"
		"IN is a camera raw file (DNG, and the Bayer raws LibRaw reads: CR2, NEF, ARW,\n"
		"...), a headerless raw dump (give --size and --format) or a grey PGM/PNG mosaic\n"
		"(give --cfa, and --black/--white when the levels are not 0 and the largest\n"
		"sample). OUT's extension picks the output: .jpg, .png, .tif (RGB; PNG 8-bit,\n"
		"TIFF 16-bit unless --depth says otherwise, 16-bit with --linear), .ppm,\n"
		".nv12 .i420 .yuv (raw YUV 4:2:0), .y4m. With several inputs, or when OUT is a\n"
		"directory (or ends in /), each IN is developed to DIR/NAME.EXT (--type).\n"
		"An existing output is never replaced unless --force is given.\n"
		"\n"
		"options:\n"
		"  -o, --output FILE|DIR|-  the developed image, the folder for several, or - for\n"
		"                          standard output (--type, default jpg; never a terminal)\n"
		"%s"
		"  --params FILE           ISP parameters (YAML or binary) applied over the defaults\n"
		"  --vendor PLUGIN.so      run a vendor stage, sandboxed (docs/vendor.md); its blocks\n"
		"                          come in --params; repeatable\n"
		"  --trusted-vendor PLUGIN.so  the same, loaded into this process\n"
		"  --demosaic fast|quality\n"
		"                          demosaic algorithm (default fast)\n"
		"  --wb camera|auto|daylight|<K>K[,<tint>]|<r>,<g>,<b>|box:X,Y,W,H\n"
		"                          white balance: the file's as-shot balance (daylight from\n"
		"                          its colour matrix, else grey world, when it has none;\n"
		"                          the default), grey world, daylight (D65) through the\n"
		"                          file's matrix, a colour temperature 2000..25000 K with a\n"
		"                          tint -100..100 (positive: magenta), multipliers, or the\n"
		"                          neutral of a rectangle of the picture (as written, before\n"
		"                          --crop)\n"
		"  --awb camera|grey|none  the older form: as --wb camera or auto, or no automatic\n"
		"                          balance (the file's or --params' gains)\n"
		"  --highlights clip|blend|reconstruct|none  clipped highlights: white (the\n"
		"                          default), neutral, the colour around them, or as clipped\n"
		"  --ev N                  exposure by hand: the file's BaselineExposure plus N\n"
		"                          stops, -4..4 (default: automatic exposure)\n"
		"  --no-auto-exposure      the file's BaselineExposure only\n"
		"  --tone standard|filmic|linear  tone curve: a highlight shoulder (the default),\n"
		"                          a longer shoulder with a toe, or none\n"
		"  --linear                16-bit linear output in the output colour space, for\n"
		"                          measurement: no defect correction, tone curve, 3D LUT or\n"
		"                          sharpening\n"
		"  --depth 8|16            bits per channel of PNG/TIFF/PPM output\n"
		"  --quality N             JPEG quality 1..100 (default 92)\n"
		"  --no-crop               keep the whole image area (ignore a DNG's default crop)\n"
		"  --crop X,Y,W,H          develop this rectangle of the picture (as written)\n"
		"  --output-size WxH[!]    scale the output to fit inside WxH, keeping its aspect\n"
		"                          ratio; WxH! stretches it to exactly WxH\n"
		"  --type EXT              output type for a folder: jpg (default; tif with --linear),\n"
		"                          png, tif, ppm, y4m, ...\n"
		"  -j, --jobs N            develop N files at once (default 1)\n"
		"  --force                 replace existing outputs\n"
		"  --threads N             worker threads per file (default: the CPUs shared by the jobs)\n"
		"  --isp software|vulkan   the software ISP (the default), or the ISP device's Vulkan\n"
		"                          backend (docs/gpu.md; as CISP_ISP=vulkan for cisp run)\n"
		"  --bench N               run the pipeline N times and print 'MPix/s <median>' last,\n"
		"                          with its ratio to OpenCV's demosaic of the frame, timed\n"
		"                          between the runs (cisp bench's peer)\n"
		"  -h, --help              this help\n",
		raw_input_usage);
}

struct develop_options {
	struct cisp_develop_source in;
	struct cisp_develop_options develop; /* the library's options; params is loaded once */
	char **inputs;
	int n_inputs;
	const char *output, *params, *type;
	bool force;
	bool vulkan; /* --isp vulkan */
	unsigned depth, quality, threads, bench, jobs;
	struct cisp_vendor_stage_config vendor[8];
	unsigned n_vendor;
	struct cisp_vendor_host *vendor_host;
	const char **protected; /* every file read: no output may replace one (NULL-terminated) */
	struct memory_budget *memory;
};

/* X,Y,W,H: four whole numbers, the size at least 1x1. */
static int parse_rect(const char *option, const char *text, struct cisp_develop_area *r)
{
	unsigned long v[4];
	const char *p = text;
	char *end;

	for (int i = 0; i < 4; i++) {
		errno = 0;
		v[i] = strtoul(p, &end, 10);
		if (errno || end == p || *p == '-' || *p == '+' || v[i] > CISP_MAX_DIMENSION || (i >= 2 && !v[i]) ||
		    *end != (i < 3 ? ',' : '\0')) {
			fprintf(stderr, "cisp develop: %s: '%s' is not X,Y,W,H (whole numbers up to %d, W and H at "
				"least 1)\n", option, SHOWN(text), CISP_MAX_DIMENSION);
			return -EINVAL;
		}
		p = end + 1;
	}
	*r = (struct cisp_develop_area){ (uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2], (uint32_t)v[3] };
	return 0;
}

/* --wb camera|auto|daylight|<K>K[,<tint>]|<r>,<g>,<b>|box:X,Y,W,H */
static int parse_wb(const char *text, struct cisp_develop_options *d)
{
	double v[3];
	char *end;
	int n = 0;

	if (!strcmp(text, "camera")) {
		d->awb = CISP_DEVELOP_AWB_CAMERA;
		return 0;
	}
	if (!strcmp(text, "auto")) {
		d->awb = CISP_DEVELOP_AWB_GREY;
		return 0;
	}
	if (!strcmp(text, "daylight")) {
		d->awb = CISP_DEVELOP_AWB_DAYLIGHT;
		return 0;
	}
	if (!strncmp(text, "box:", 4)) {
		d->awb = CISP_DEVELOP_AWB_BOX;
		return parse_rect("--wb box:", text + 4, &d->wb_box);
	}
	/* <K>K[,<tint>] */
	v[0] = strtod(text, &end);
	if (end != text && (*end == 'K' || *end == 'k')) {
		const char *rest = end + 1;

		d->awb = CISP_DEVELOP_AWB_TEMPERATURE;
		d->wb_kelvin = v[0];
		d->wb_tint = 0;
		if (*rest == ',') {
			d->wb_tint = strtod(rest + 1, &end);
			rest = end == rest + 1 ? "?" : end;
		}
		if (!*rest && v[0] >= 2000 && v[0] <= 25000 && fabs(d->wb_tint) <= 100)
			return 0;
	} else {
		/* <r>,<g>,<b> */
		for (const char *p = text; n < 3; p = end + 1) {
			v[n] = strtod(p, &end);
			if (end == p || !(v[n] >= 0.01 && v[n] <= 100) || *end != (n < 2 ? ',' : '\0'))
				break;
			n++;
		}
		if (n == 3) {
			d->awb = CISP_DEVELOP_AWB_GAINS;
			memcpy(d->wb_gains, v, sizeof(v));
			return 0;
		}
	}
	fprintf(stderr, "cisp develop: --wb takes camera, auto, daylight, <K>K[,<tint>] (2000..25000 K, tint "
		"-100..100), <r>,<g>,<b> (each 0.01..100) or box:X,Y,W,H, not '%s'\n", SHOWN(text));
	return -EINVAL;
}

static int parse_options(int argc, char **argv, struct develop_options *o)
{
	enum { OPT_SIZE = 256, OPT_FORMAT, OPT_CFA, OPT_BLACK, OPT_WHITE, OPT_PARAMS, OPT_DEMOSAIC, OPT_AWB,
	       OPT_EV, OPT_LINEAR, OPT_DEPTH, OPT_OUTPUT_SIZE, OPT_THREADS, OPT_BENCH, OPT_ISP, OPT_QUALITY, OPT_NO_CROP,
	       OPT_TYPE, OPT_FORCE, OPT_VENDOR, OPT_TRUSTED_VENDOR, OPT_HIGHLIGHTS, OPT_WB, OPT_TONE, OPT_NO_AE,
	       OPT_CROP };
	static const char *const tones[] = { "standard", "filmic", "linear", NULL };
	static const char *const highlights[] = { "clip", "blend", "reconstruct", "none", NULL };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "cfa", required_argument, NULL, OPT_CFA },
		{ "black", required_argument, NULL, OPT_BLACK },
		{ "white", required_argument, NULL, OPT_WHITE },
		{ "params", required_argument, NULL, OPT_PARAMS },
		{ "vendor", required_argument, NULL, OPT_VENDOR },
		{ "trusted-vendor", required_argument, NULL, OPT_TRUSTED_VENDOR },
		{ "demosaic", required_argument, NULL, OPT_DEMOSAIC },
		{ "awb", required_argument, NULL, OPT_AWB },
		{ "wb", required_argument, NULL, OPT_WB },
		{ "tone", required_argument, NULL, OPT_TONE },
		{ "no-auto-exposure", no_argument, NULL, OPT_NO_AE },
		{ "crop", required_argument, NULL, OPT_CROP },
		{ "highlights", required_argument, NULL, OPT_HIGHLIGHTS },
		{ "ev", required_argument, NULL, OPT_EV },
		{ "linear", no_argument, NULL, OPT_LINEAR },
		{ "depth", required_argument, NULL, OPT_DEPTH },
		{ "quality", required_argument, NULL, OPT_QUALITY },
		{ "no-crop", no_argument, NULL, OPT_NO_CROP },
		{ "output-size", required_argument, NULL, OPT_OUTPUT_SIZE },
		{ "type", required_argument, NULL, OPT_TYPE },
		{ "jobs", required_argument, NULL, 'j' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "bench", required_argument, NULL, OPT_BENCH },
		{ "isp", required_argument, NULL, OPT_ISP },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	int c, index;

	memset(o, 0, sizeof(*o));
	cisp_develop_source_init(&o->in);
	o->jobs = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:j:h", longopts, &index)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case OPT_VENDOR:
		case OPT_TRUSTED_VENDOR:
			if (o->n_vendor == sizeof(o->vendor) / sizeof(o->vendor[0])) {
				fprintf(stderr, "cisp develop: at most 8 vendor stages\n");
				return 2;
			}
			o->vendor[o->n_vendor++] = (struct cisp_vendor_stage_config){ optarg, c == OPT_TRUSTED_VENDOR, 0 };
			break;
		case OPT_SIZE:
		case OPT_FORMAT:
		case OPT_CFA:
		case OPT_BLACK:
		case OPT_WHITE:
			if (raw_input_option(&o->in, longopts[index].name, optarg))
				return 2;
			break;
		case OPT_PARAMS:
			o->params = optarg;
			break;
		case OPT_DEMOSAIC:
			if (strcmp(optarg, "fast") && strcmp(optarg, "quality")) {
				fprintf(stderr, "cisp develop: --demosaic takes fast or quality, not '%s'\n", optarg);
				return 2;
			}
			o->develop.demosaic = !strcmp(optarg, "quality") ? CISP_DEMOSAIC_QUALITY : CISP_DEMOSAIC_FAST;
			break;
		case OPT_AWB:
			if (!strcmp(optarg, "camera")) {
				o->develop.awb = CISP_DEVELOP_AWB_CAMERA;
			} else if (!strcmp(optarg, "grey") || !strcmp(optarg, "gray")) {
				o->develop.awb = CISP_DEVELOP_AWB_GREY;
			} else if (!strcmp(optarg, "none")) {
				o->develop.awb = CISP_DEVELOP_AWB_NONE;
			} else {
				fprintf(stderr, "cisp develop: --awb takes camera, grey or none, not '%s'\n", optarg);
				return 2;
			}
			break;
		case OPT_HIGHLIGHTS: /* the names in enum cisp_develop_highlights' order */
			for (o->develop.highlights = 0; highlights[o->develop.highlights] &&
							strcmp(optarg, highlights[o->develop.highlights]);)
				o->develop.highlights++;
			if (!highlights[o->develop.highlights]) {
				fprintf(stderr, "cisp develop: --highlights takes clip, blend, reconstruct or none, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case OPT_WB:
			if (parse_wb(optarg, &o->develop))
				return 2;
			break;
		case OPT_TONE: /* the names in enum cisp_develop_tone's order */
			for (o->develop.tone = 0; tones[o->develop.tone] && strcmp(optarg, tones[o->develop.tone]);)
				o->develop.tone++;
			if (!tones[o->develop.tone]) {
				fprintf(stderr, "cisp develop: --tone takes standard, filmic or linear, not '%s'\n",
					SHOWN(optarg));
				return 2;
			}
			break;
		case OPT_EV:
			if (parse_double("--ev", optarg, -4, 4, &o->develop.ev))
				return 2;
			o->develop.manual_exposure = true;
			break;
		case OPT_NO_AE:
			o->develop.manual_exposure = true;
			break;
		case OPT_CROP:
			if (parse_rect("--crop", optarg, &o->develop.crop))
				return 2;
			break;
		case OPT_LINEAR:
			o->develop.linear = true;
			break;
		case OPT_DEPTH:
			if (parse_uint("--depth", optarg, 8, 16, &v) || (v != 8 && v != 16)) {
				fprintf(stderr, "cisp develop: --depth takes 8 or 16\n");
				return 2;
			}
			o->depth = (unsigned)v;
			break;
		case OPT_QUALITY:
			if (parse_uint("--quality", optarg, 1, 100, &v))
				return 2;
			o->quality = (unsigned)v;
			break;
		case OPT_NO_CROP:
			o->develop.full_frame = true;
			break;
		case OPT_OUTPUT_SIZE:
			if (parse_output_size("--output-size", optarg, &o->develop.output_width, &o->develop.output_height,
					      &o->develop.output_stretch))
				return 2;
			break;
		case OPT_TYPE:
			o->type = optarg[0] == '.' ? optarg + 1 : optarg;
			break;
		case 'j':
			if (parse_uint("--jobs", optarg, 1, 256, &v))
				return 2;
			o->jobs = (unsigned)v;
			break;
		case OPT_FORCE:
			o->force = true;
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
		case OPT_ISP:
			if (strcmp(optarg, "software") && strcmp(optarg, "vulkan")) {
				fprintf(stderr, "cisp develop: --isp '%s' is not software or vulkan\n", SHOWN(optarg));
				return 2;
			}
			o->vulkan = !strcmp(optarg, "vulkan");
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			bad_option(argv, "o:j:h");
			return 2;
		}
	}
	if (optind >= argc || !o->output) {
		fprintf(stderr, "cisp develop: %s; 'cisp help develop' lists the options\n",
			optind >= argc ? "no input file given" : "no output given (-o OUT)");
		return 2;
	}
	o->inputs = argv + optind;
	o->n_inputs = argc - optind;
	return 0;
}

/* printf into a caller's message buffer; returns @status. */
__attribute__((format(printf, 4, 5))) static int failf(char *err, size_t size, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return status;
}

static const char *extension_of(const char *path)
{
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');

	return dot && (!slash || dot > slash) ? dot + 1 : "";
}

/* 16 bits for --linear and for TIFF unless --depth says otherwise. */
static bool sixteen_bit(const struct develop_options *o, const char *output)
{
	if (o->depth)
		return o->depth == 16;
	return o->develop.linear || !strcasecmp(extension_of(output), "tif") || !strcasecmp(extension_of(output), "tiff");
}

/*
 * The memory that developing @frame to @cfg's output holds at once
 * (docs/cli.md): the frame, the ISP's whole-frame planes (16 bytes a pixel),
 * its scaled planes (6 bytes an output pixel) when the output is scaled, the
 * output image, and what the writer adds: JPEG's coefficients (6 bytes a
 * pixel), PPM's samples (12), an upright copy of a turned RGB image.
 */
static size_t develop_memory(const struct cisp_raw_frame *frame, const struct cisp_isp_config *cfg,
			     const struct cisp_develop_area *area, const char *output)
{
	const struct cisp_output_config *oc = &cfg->output[0];
	size_t out_px = (size_t)oc->width * oc->height, image = mem_image(oc->format, oc->width, oc->height);
	const char *ext = extension_of(output);
	size_t need = mem_add(BASE_MEMORY, mem_image(frame->image.format, frame->image.width, frame->image.height));

	need = mem_add(need, mem_mul(16, mem_mul(cfg->width, cfg->height)));
	if (oc->width != area->width || oc->height != area->height)
		need = mem_add(need, mem_mul(6, out_px));
	need = mem_add(need, image);
	if (!strcasecmp(ext, "jpg") || !strcasecmp(ext, "jpeg"))
		need = mem_add(need, mem_mul(6, out_px));
	else if (!strcasecmp(ext, "ppm"))
		need = mem_add(need, mem_mul(12, out_px));
	if (frame->orientation > 1 && (oc->format == CISP_FMT_RGB888 || oc->format == CISP_FMT_RGB48))
		need = mem_add(need, image);
	return need;
}

/*
 * Standard output (-o -): the image is written to a file of a private
 * temporary folder, then copied out; the folder is removed either way.
 */
/*
 * --isp vulkan: frames go through a context of an ISP device on the Vulkan
 * backend, whose first job carries the whole state cisp_develop_prepare()
 * gave the instance.
 */
struct device_isp {
	struct cisp_device *dev;
	struct cisp_context *ctx;
	void *params; /* for the first job, then NULL */
	size_t params_size;
};

static void device_isp_close(struct device_isp *d)
{
	cisp_context_destroy(d->ctx);
	cisp_device_destroy(d->dev);
	free(d->params);
	memset(d, 0, sizeof(*d));
}

static int device_isp_open(struct device_isp *d, const struct cisp_isp *isp, const struct cisp_isp_config *cfg,
			   unsigned threads)
{
	const struct cisp_context_config cc = { .name = "develop", .isp = *cfg };
	int ret;

	memset(d, 0, sizeof(*d));
	/* The device reads CISP_ISP when it is made (docs/device.md, "Backends"). */
	setenv("CISP_ISP", "vulkan", 1);
	cisp_params_encode(cisp_isp_params(isp), ~0u, NULL, 0, &d->params_size);
	d->params = malloc(d->params_size);
	if (!d->params)
		return cisp_error(-ENOMEM, "out of memory for the params");
	if ((ret = cisp_params_encode(cisp_isp_params(isp), ~0u, d->params, d->params_size, &d->params_size)) ||
	    (ret = cisp_device_create(&d->dev, &(struct cisp_device_config){ .workers = 1, .job_threads = threads })) ||
	    (ret = cisp_context_create(&d->ctx, d->dev, &cc)))
		device_isp_close(d);
	return ret;
}

static int device_isp_process(struct device_isp *d, const struct cisp_image *input,
			      struct cisp_image *const output[CISP_MAX_OUTPUTS])
{
	struct cisp_job j = { .num_inputs = 1, .input = { input }, .params = d->params, .params_size = d->params_size };
	struct cisp_fence *fence;
	int ret;

	memcpy(j.output, output, sizeof(j.output));
	if ((ret = cisp_job_submit(d->ctx, &j, &fence)))
		return ret;
	ret = cisp_fence_wait(fence, -1);
	cisp_fence_unref(fence);
	if (ret)
		return cisp_error(ret, "the Vulkan backend's job failed: %s", strerror(-ret));
	free(d->params);
	d->params = NULL;
	d->params_size = 0;
	return 0;
}

/* One frame through the software ISP, or the device of --isp vulkan. */
static int develop_process(struct cisp_isp *isp, struct device_isp *d, const struct cisp_image *input,
			   struct cisp_image *const output[CISP_MAX_OUTPUTS], struct cisp_pool *pool)
{
	return d->ctx ? device_isp_process(d, input, output) : cisp_isp_process(isp, input, output, NULL, pool);
}

struct stdout_file {
	char dir[4096], path[4200];
};

static int stdout_file_make(struct stdout_file *t, const char *type)
{
	const char *tmp = getenv("TMPDIR");

	if (strchr(type, '/'))
		return cisp_error(-EINVAL, "--type %s is not a file type", type);
	snprintf(t->dir, sizeof(t->dir), "%s/cisp-develop-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(t->dir))
		return cisp_error(-errno, "cannot make a temporary folder in %s for standard output: %s",
				  tmp && *tmp ? tmp : "/tmp", strerror(errno));
	snprintf(t->path, sizeof(t->path), "%s/out.%s", t->dir, type);
	return 0;
}

/* Copy the finished file to standard output (when @status is 0), then remove it and its folder. */
static int stdout_file_finish(struct stdout_file *t, int status)
{
	FILE *f = status ? NULL : fopen(t->path, "rb");
	char buf[65536];
	size_t n;

	if (!status && !f)
		status = cisp_error(-errno, "cannot read back %s: %s", t->path, strerror(errno));
	while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (fwrite(buf, 1, n, stdout) != n) {
			status = cisp_error(-EIO, "cannot write to standard output: %s", strerror(errno));
			break;
		}
	if (f)
		fclose(f);
	if (!status && fflush(stdout))
		status = cisp_error(-EIO, "cannot write to standard output: %s", strerror(errno));
	unlink(t->path);
	rmdir(t->dir);
	return status;
}

/* Develop one file; 0, 1 (failed) or 2 (bad usage), with the message in @err. */
static int develop_file(const struct develop_options *o, const char *input, const char *output, unsigned threads,
			char *err, size_t err_size)
{
	struct cisp_raw_frame frame;
	struct cisp_develop_options develop = o->develop;
	struct cisp_develop_area area;
	struct cisp_isp_config cfg;
	struct cisp_isp *isp = NULL;
	struct device_isp device = { 0 };
	struct cisp_pool *pool = NULL;
	struct cisp_image out = { 0 };
	struct cisp_image *outputs[CISP_MAX_OUTPUTS] = { &out, NULL };
	struct cisp_file_options fo = { 0 };
	struct cisp_output_file *file;
	size_t memory = 0;
	struct stdout_file tmp;
	bool to_stdout = !strcmp(output, "-");
	char what[512];
	int ret;

	if (to_stdout) {
		if (stdout_file_make(&tmp, o->type ? o->type : o->develop.linear ? "tif" : "jpg"))
			return failf(err, err_size, 1, "%s", cisp_last_error());
		output = tmp.path;
	}
	/* Made first: an existing output, or one that cannot be created, fails before any work. */
	if (create_output(&file, output, o->force, o->protected)) {
		ret = failf(err, err_size, 1, "%s", cisp_last_error());
		if (to_stdout)
			stdout_file_finish(&tmp, -1);
		return ret;
	}
	if ((ret = load_raw_input(&o->in, input, &frame, err, err_size))) {
		cisp_output_file_discard(file);
		return ret;
	}

	develop.output_format = cisp_output_format_for_path(output, sixteen_bit(o, output));
	if (!develop.output_format) {
		ret = failf(err, err_size, 2, "%s", cisp_last_error());
		goto done;
	}
	area = cisp_develop_area(&frame, &develop);
	if (cisp_develop_config(&frame, &develop, &cfg)) {
		ret = failf(err, err_size, 1, "%s: %s", input, cisp_last_error());
		goto done;
	}
	snprintf(what, sizeof(what), "%s: developing %ux%u to %ux%u %s", input, cfg.width, cfg.height,
		 cfg.output[0].width, cfg.output[0].height, cisp_format_name(cfg.output[0].format));
	memory = develop_memory(&frame, &cfg, &area, output);
	if (memory_budget_take(o->memory, what, memory)) {
		memory = 0;
		ret = failf(err, err_size, 1, "%s", cisp_last_error());
		goto done;
	}
	if (cisp_isp_create(&isp, &cfg) ||
	    cisp_image_alloc(&out, cfg.output[0].format, cfg.output[0].width, cfg.output[0].height) ||
	    cisp_pool_create(&pool, threads) || cisp_develop_prepare(isp, &frame, &develop, outputs, pool) ||
	    (o->vulkan && device_isp_open(&device, isp, &cfg, cisp_pool_threads(pool)))) {
		ret = failf(err, err_size, 1, "%s: %s", input, cisp_last_error());
		goto done;
	}

	if (o->bench) {
		double *times = calloc(2 * (size_t)o->bench, sizeof(double)), *peer_times = times ? times + o->bench : NULL;
		double mpix = (double)cfg.width * cfg.height / 1e6;
		struct bench_peer *peer = NULL;
		char model[256], load[64];

		bench_cpu_model(model, sizeof(model));
		bench_loadavg(load, sizeof(load));
		printf("cpu model: %s, %ld CPUs, load before: %s\n", model, sysconf(_SC_NPROCESSORS_ONLN), load);
		ret = times ? bench_peer_start(&peer, &frame.image) : cisp_error(-ENOMEM, "out of memory");
		/* The peer between the runs, A B B A. */
		for (unsigned i = 0; !ret && i < o->bench; i++) {
			double t0;

			if (peer && i % 2 && (ret = bench_peer_time(peer, (int)cisp_pool_threads(pool), &peer_times[i], NULL)))
				break;
			t0 = now_seconds();
			ret = develop_process(isp, &device, &frame.image, outputs, pool);
			times[i] = now_seconds() - t0;
			if (ret)
				break;
			if (peer && !(i % 2) &&
			    (ret = bench_peer_time(peer, (int)cisp_pool_threads(pool), &peer_times[i], NULL)))
				break;
			printf("run %u: %.2f ms", i + 1, times[i] * 1e3);
			if (peer)
				printf(", peer %.2f ms", peer_times[i] * 1e3);
			printf("\n");
		}
		bench_loadavg(load, sizeof(load));
		if (times && !ret) {
			double v = mpix / median(times, (int)o->bench);

			printf("%ux%u, %u threads, load after: %s\n", cfg.width, cfg.height, cisp_pool_threads(pool), load);
			if (peer)
				printf("peer: %s, MPix/s %.1f\nMPix/s %.1f ratio %.3f\n", bench_peer_name(peer),
				       mpix / median(peer_times, (int)o->bench), v,
				       v / (mpix / median(peer_times, (int)o->bench)));
			else
				printf("MPix/s %.1f (no peer, no ratio)\n", v);
		}
		bench_peer_stop(peer);
		free(times);
	} else {
		ret = develop_process(isp, &device, &frame.image, outputs, pool);
	}
	if (ret) {
		ret = failf(err, err_size, 1, "%s: %s", input, cisp_last_error());
		goto done;
	}
	fo.quality = (int)o->quality;
	fo.linear = develop.linear;
	fo.orientation = frame.orientation;
	fo.full_range = cisp_isp_params(isp)->csc.range == CISP_RANGE_FULL;
	fo.meta = &frame;
	if (finish_output(file, cisp_image_write_to(file, &out, &fo), o->force))
		ret = failf(err, err_size, 1, "%s", cisp_last_error());
	file = NULL;
done:
	cisp_output_file_discard(file);
	if (to_stdout && stdout_file_finish(&tmp, ret) && !ret)
		ret = failf(err, err_size, 1, "%s", cisp_last_error());
	if (memory)
		memory_budget_give(o->memory, memory);
	if (device.ctx)
		device_isp_close(&device);
	cisp_pool_destroy(pool);
	cisp_image_free(&out);
	cisp_isp_destroy(isp);
	cisp_raw_frame_free(&frame);
	return ret;
}

/* ---- many files ---- */

struct batch {
	const struct develop_options *o;
	char **outputs;
	int *status;
	char **messages;
	unsigned threads;
	int next, done, failed;
	bool tty;
	pthread_mutex_t lock;
};

/* The progress line on a terminal: a bar, the counts and the file last finished. Call with the lock held. */
static void draw_bar(const struct batch *b, const char *name)
{
	int total = b->o->n_inputs, width = 30, filled = total ? b->done * width / total : width;
	const char *base = strrchr(name, '/');

	fprintf(stderr, "\r\033[K[");
	for (int i = 0; i < width; i++)
		fputc(i < filled ? '#' : '.', stderr);
	fprintf(stderr, "] %d/%d", b->done, total);
	if (b->failed)
		fprintf(stderr, ", %d failed", b->failed);
	fprintf(stderr, "  %.40s", SHOWN(base ? base + 1 : name));
	fflush(stderr);
}

/* Library warnings during a batch: printed whole, above the progress bar. */
static void batch_log(enum cisp_log_level level, const char *message, void *opaque)
{
	struct batch *b = opaque;
	char shown[2048];

	pthread_mutex_lock(&b->lock);
	if (b->tty)
		fprintf(stderr, "\r\033[K");
	fprintf(stderr, "cisp: %s: %s\n", level == CISP_LOG_ERROR ? "error" : level == CISP_LOG_WARN ? "warning" : "info",
		cisp_printable(message, shown, sizeof(shown)));
	pthread_mutex_unlock(&b->lock);
}

static void *batch_worker(void *arg)
{
	struct batch *b = arg;
	char err[1024], shown[4096], in[1024], out[1024];

	for (;;) {
		int i, ret;

		pthread_mutex_lock(&b->lock);
		i = b->next++;
		pthread_mutex_unlock(&b->lock);
		if (i >= b->o->n_inputs)
			return NULL;
		err[0] = '\0';
		ret = develop_file(b->o, b->o->inputs[i], b->outputs[i], b->threads, err, sizeof(err));
		cisp_printable(err[0] ? err : "failed", shown, sizeof(shown));
		cisp_printable(b->o->inputs[i], in, sizeof(in));
		cisp_printable(b->outputs[i], out, sizeof(out));
		pthread_mutex_lock(&b->lock);
		b->status[i] = ret;
		b->done++;
		if (ret) {
			b->failed++;
			b->messages[i] = strdup(shown);
		}
		if (b->tty) {
			if (ret)
				fprintf(stderr, "\r\033[Kcisp develop: %s\n", shown);
			draw_bar(b, b->o->inputs[i]);
		} else if (ret) {
			fprintf(stderr, "[%d/%d] %s: failed: %s\n", b->done, b->o->n_inputs, in, shown);
		} else {
			fprintf(stderr, "[%d/%d] %s -> %s\n", b->done, b->o->n_inputs, in, out);
		}
		pthread_mutex_unlock(&b->lock);
	}
}

/* DIR/NAME.EXT for each input; fails when two inputs would write the same file. */
static int batch_outputs(const struct develop_options *o, const char *type, char **outputs)
{
	for (int i = 0; i < o->n_inputs; i++) {
		const char *in = o->inputs[i], *base = strrchr(in, '/'), *dot;
		size_t dlen = strlen(o->output), blen;
		char *path;

		base = base ? base + 1 : in;
		dot = strrchr(base, '.');
		blen = dot && dot != base ? (size_t)(dot - base) : strlen(base);
		path = malloc(dlen + blen + strlen(type) + 3);
		if (!path)
			return -ENOMEM;
		sprintf(path, "%s%s%.*s.%s", o->output, dlen && o->output[dlen - 1] == '/' ? "" : "/", (int)blen, base,
			type);
		outputs[i] = path;
		for (int j = 0; j < i; j++) {
			if (!strcmp(outputs[j], path)) {
				fprintf(stderr, "cisp develop: %s and %s would both be written to %s\n", SHOWN(o->inputs[j]),
					SHOWN(in), SHOWN(path));
				return -EEXIST;
			}
		}
	}
	return 0;
}

static int develop_batch(const struct develop_options *o)
{
	struct batch b = { .o = o, .tty = isatty(STDERR_FILENO) == 1 };
	const char *type = o->type ? o->type : o->develop.linear ? "tif" : "jpg";
	unsigned jobs = o->jobs < (unsigned)o->n_inputs ? o->jobs : (unsigned)o->n_inputs;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t *workers = NULL;
	struct stat st;
	unsigned started = 0;
	int ret = 0;

	if (o->bench) {
		fprintf(stderr, "cisp develop: --bench takes one input file\n");
		return 2;
	}
	if (stat(o->output, &st) ? mkdir(o->output, 0777) && errno != EEXIST : !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "cisp develop: %s is not a folder that can be written to\n", SHOWN(o->output));
		return 1;
	}
	b.outputs = calloc((size_t)o->n_inputs, sizeof(char *));
	b.messages = calloc((size_t)o->n_inputs, sizeof(char *));
	b.status = calloc((size_t)o->n_inputs, sizeof(int));
	workers = calloc(jobs, sizeof(pthread_t));
	if (!b.outputs || !b.messages || !b.status || !workers) {
		fprintf(stderr, "cisp develop: out of memory\n");
		ret = 1;
		goto done;
	}
	if (batch_outputs(o, type, b.outputs)) {
		ret = 2;
		goto done;
	}
	b.threads = o->threads ? o->threads : (unsigned)(cpus > (long)jobs ? cpus / (long)jobs : 1);
	pthread_mutex_init(&b.lock, NULL);
	cisp_log_set_sink(batch_log, &b);
	if (b.tty) {
		pthread_mutex_lock(&b.lock);
		draw_bar(&b, "");
		pthread_mutex_unlock(&b.lock);
	}
	for (started = 0; started < jobs; started++)
		if (pthread_create(&workers[started], NULL, batch_worker, &b))
			break;
	if (!started)
		batch_worker(&b);
	for (unsigned i = 0; i < started; i++)
		pthread_join(workers[i], NULL);
	cisp_log_set_sink(NULL, NULL);
	pthread_mutex_destroy(&b.lock);
	if (b.tty)
		fprintf(stderr, "\r\033[K");
	fprintf(stderr, "cisp develop: %d of %d files developed", o->n_inputs - b.failed, o->n_inputs);
	if (b.failed) {
		fprintf(stderr, "; %d failed:\n", b.failed);
		for (int i = 0; i < o->n_inputs; i++)
			if (b.status[i])
				fprintf(stderr, "  %s\n", b.messages[i] ? b.messages[i] : o->inputs[i]);
		ret = 1;
	} else {
		fprintf(stderr, "\n");
	}
done:
	for (int i = 0; b.outputs && i < o->n_inputs; i++)
		free(b.outputs[i]);
	for (int i = 0; b.messages && i < o->n_inputs; i++)
		free(b.messages[i]);
	free(b.outputs);
	free(b.messages);
	free(b.status);
	free(workers);
	return ret;
}

/* The vendor stages of --vendor and --trusted-vendor, shared by every file's ISP. */
static int load_vendor(struct develop_options *o)
{
	if (cisp_vendor_host_create(&o->vendor_host, NULL))
		goto fail;
	for (unsigned i = 0; i < o->n_vendor; i++)
		if (cisp_vendor_host_add(o->vendor_host, &o->vendor[i]))
			goto fail;
	return 0;
fail:
	fprintf(stderr, "cisp develop: %s\n", error_text());
	cisp_vendor_host_destroy(o->vendor_host);
	o->vendor_host = NULL;
	return 1;
}

/* The files an output must never replace: the inputs, the params file, the plugins. */
static const char **files_read(const struct develop_options *o)
{
	const char **list = calloc((size_t)o->n_inputs + o->n_vendor + 2, sizeof(*list));
	size_t n = 0;

	if (!list)
		return NULL;
	for (int i = 0; i < o->n_inputs; i++)
		list[n++] = o->inputs[i];
	for (unsigned i = 0; i < o->n_vendor; i++)
		list[n++] = o->vendor[i].path;
	if (o->params)
		list[n++] = o->params;
	return list;
}

int cmd_develop(int argc, char **argv)
{
	struct develop_options o;
	struct memory_budget memory;
	struct stat st;
	char err[1024], shown[4096];
	void *params = NULL;
	size_t len;
	int ret = parse_options(argc, argv, &o);

	if (ret)
		return ret < 0 ? 0 : ret;
	if (memory_budget_init(&memory)) {
		fprintf(stderr, "cisp develop: %s\n", error_text());
		return 2;
	}
	o.memory = &memory;
	o.protected = files_read(&o);
	if (!o.protected) {
		fprintf(stderr, "cisp develop: out of memory\n");
		memory_budget_destroy(&memory);
		return 1;
	}
	if (o.n_vendor && (ret = load_vendor(&o)))
		goto out;
	o.develop.vendor = o.vendor_host;
	if (o.params && load_params(o.params, PARAMS_ANY, (void **)&params, &o.develop.params_size)) {
		fprintf(stderr, "cisp develop: %s\n", error_text());
		ret = 1;
		goto out;
	}
	o.develop.params = params;
	o.develop.params_name = o.params;
	len = strlen(o.output);
	if (!strcmp(o.output, "-")) {
		ret = 2;
		if (isatty(STDOUT_FILENO))
			fprintf(stderr, "cisp develop: -o - writes the image to standard output, which is a terminal; "
				"redirect it to a file or a pipe\n");
		else if (o.n_inputs > 1)
			fprintf(stderr, "cisp develop: -o - takes one input file\n");
		else if (o.bench)
			fprintf(stderr, "cisp develop: --bench prints to standard output; it cannot be used with -o -\n");
		else if ((ret = develop_file(&o, o.inputs[0], o.output, o.threads, err, sizeof(err))))
			fprintf(stderr, "cisp develop: %s\n", cisp_printable(err, shown, sizeof(shown)));
	} else if (o.n_inputs > 1 || (len && o.output[len - 1] == '/') || (stat(o.output, &st) == 0 && S_ISDIR(st.st_mode))) {
		ret = develop_batch(&o);
	} else if (o.type) {
		fprintf(stderr, "cisp develop: --type applies when developing into a folder\n");
		ret = 2;
	} else {
		err[0] = '\0';
		ret = develop_file(&o, o.inputs[0], o.output, o.threads, err, sizeof(err));
		if (ret)
			fprintf(stderr, "cisp develop: %s\n", cisp_printable(err, shown, sizeof(shown)));
	}
out:
	cisp_vendor_host_destroy(o.vendor_host);
	free(params);
	free(o.protected);
	memory_budget_destroy(&memory);
	return ret;
}
