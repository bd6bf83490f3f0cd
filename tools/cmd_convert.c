/* SPDX-License-Identifier: MIT */
/* cisp convert: a raw frame (dump, mosaic or camera raw file) to a DNG. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cisp/develop.h>
#include <cisp/dng.h>
#include <cisp/error.h>
#include <cisp/output_file.h>
#include <cisp/raw_frame.h>

#include "commands.h"
#include "options.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cisp convert IN -o OUT.dng [options]\n"
		"\n"
		"Write a raw frame as a DNG: the mosaic unchanged, with its CFA pattern, levels\n"
		"and what is known of its colour and camera.\n"
		"\n"
		"IN is a headerless raw dump (give --size and --format), a grey PGM/PNG mosaic\n"
		"(give --cfa, --black, --white) or a camera raw file LibRaw reads (its metadata\n"
		"is carried over; the options below replace it).\n"
		"\n"
		"options:\n"
		"  -o, --output FILE       the DNG to write\n"
		"%s"
		"  --matrix M11,...,M33    XYZ-to-camera colour matrix for D65 light, row by row\n"
		"                          (the DNG's ColorMatrix1)\n"
		"  --neutral R,G,B         the camera's response to the scene's white (AsShotNeutral)\n"
		"  --make TEXT             camera maker\n"
		"  --model TEXT            camera model\n"
		"  --orientation N         EXIF orientation 1..8\n"
		"  --crop X,Y,W,H          default crop (the part of the image meant to be shown)\n"
		"  --exposure SECONDS      exposure time\n"
		"  --iso N                 ISO speed\n"
		"  --force                 replace an existing OUT\n"
		"  -h, --help              this help\n",
		raw_input_usage);
}

/* Parse @n comma-separated numbers. */
static int parse_list(const char *option, const char *text, int n, double *v)
{
	const char *p = text;
	char *end;

	for (int i = 0; i < n; i++) {
		v[i] = strtod(p, &end);
		if (end == p || (i < n - 1 && *end != ',') || (i == n - 1 && *end)) {
			fprintf(stderr, "cisp convert: %s: '%s' is not %d numbers separated by commas\n", option, text, n);
			return -1;
		}
		p = end + 1;
	}
	return 0;
}

struct convert_options {
	struct cisp_develop_source in;
	const char *input, *output, *make, *model;
	double matrix[9], neutral[3], crop[4], exposure;
	bool has_matrix, has_neutral, has_crop, force;
	unsigned long orientation, iso;
};

static int parse_options(int argc, char **argv, struct convert_options *o)
{
	enum { OPT_SIZE = 256, OPT_FORMAT, OPT_CFA, OPT_BLACK, OPT_WHITE, OPT_MATRIX, OPT_NEUTRAL, OPT_MAKE, OPT_MODEL,
	       OPT_ORIENTATION, OPT_CROP, OPT_EXPOSURE, OPT_ISO, OPT_FORCE };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "cfa", required_argument, NULL, OPT_CFA },
		{ "black", required_argument, NULL, OPT_BLACK },
		{ "white", required_argument, NULL, OPT_WHITE },
		{ "matrix", required_argument, NULL, OPT_MATRIX },
		{ "neutral", required_argument, NULL, OPT_NEUTRAL },
		{ "make", required_argument, NULL, OPT_MAKE },
		{ "model", required_argument, NULL, OPT_MODEL },
		{ "orientation", required_argument, NULL, OPT_ORIENTATION },
		{ "crop", required_argument, NULL, OPT_CROP },
		{ "exposure", required_argument, NULL, OPT_EXPOSURE },
		{ "iso", required_argument, NULL, OPT_ISO },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, index;

	memset(o, 0, sizeof(*o));
	cisp_develop_source_init(&o->in);
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, &index)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case OPT_SIZE:
		case OPT_FORMAT:
		case OPT_CFA:
		case OPT_BLACK:
		case OPT_WHITE:
			if (raw_input_option(&o->in, longopts[index].name, optarg))
				return 2;
			break;
		case OPT_MATRIX:
			if (parse_list("--matrix", optarg, 9, o->matrix))
				return 2;
			o->has_matrix = true;
			break;
		case OPT_NEUTRAL:
			if (parse_list("--neutral", optarg, 3, o->neutral))
				return 2;
			if (!(o->neutral[0] > 0 && o->neutral[1] > 0 && o->neutral[2] > 0)) {
				fprintf(stderr, "cisp convert: --neutral values must be above 0\n");
				return 2;
			}
			o->has_neutral = true;
			break;
		case OPT_MAKE:
			o->make = optarg;
			break;
		case OPT_MODEL:
			o->model = optarg;
			break;
		case OPT_ORIENTATION:
			if (parse_uint("--orientation", optarg, 1, 8, &o->orientation))
				return 2;
			break;
		case OPT_CROP:
			if (parse_list("--crop", optarg, 4, o->crop))
				return 2;
			o->has_crop = true;
			break;
		case OPT_EXPOSURE:
			if (parse_double("--exposure", optarg, 1e-6, 1e5, &o->exposure))
				return 2;
			break;
		case OPT_ISO:
			if (parse_uint("--iso", optarg, 1, 1000000, &o->iso))
				return 2;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			bad_option(argv, "o:h");
			return 2;
		}
	}
	if (optind != argc - 1 || !o->output) {
		fprintf(stderr, "cisp convert: %s; 'cisp help convert' lists the options\n",
			optind >= argc	     ? "no input file given"
			: optind < argc - 1 ? "give one input file"
					     : "no output file given (-o OUT.dng)");
		return 2;
	}
	if (strlen(o->output) < 4 || strcasecmp(o->output + strlen(o->output) - 4, ".dng")) {
		fprintf(stderr, "cisp convert: %s: the output must be a .dng file\n", SHOWN(o->output));
		return 2;
	}
	o->input = argv[optind];
	return 0;
}

/* The command line's metadata over the frame's own. */
static int apply_metadata(const struct convert_options *o, struct cisp_raw_frame *frame)
{
	if (o->has_matrix) {
		for (int i = 0; i < 9; i++)
			frame->xyz_to_cam[i] = (float)o->matrix[i];
		frame->has_matrix = true;
		frame->defaults &= ~CISP_RAW_DEFAULT_MATRIX;
	}
	if (o->has_neutral) {
		for (int c = 0; c < 3; c++)
			frame->wb_gains[c] = (float)(o->neutral[1] / o->neutral[c]);
		frame->has_wb = true;
		frame->defaults &= ~CISP_RAW_DEFAULT_WB;
	}
	if (o->make)
		snprintf(frame->make, sizeof(frame->make), "%s", o->make);
	if (o->model)
		snprintf(frame->model, sizeof(frame->model), "%s", o->model);
	if (o->orientation)
		frame->orientation = (int)o->orientation;
	if (o->exposure > 0)
		frame->exposure_s = (float)o->exposure;
	if (o->iso)
		frame->iso = (float)o->iso;
	if (o->has_crop) {
		const double *c = o->crop;
		if (c[0] < 0 || c[1] < 0 || c[2] < 1 || c[3] < 1 || c[0] + c[2] > frame->image.width ||
		    c[1] + c[3] > frame->image.height) {
			fprintf(stderr, "cisp convert: --crop %g,%g,%g,%g is outside the %ux%u frame\n", c[0], c[1], c[2],
				c[3], frame->image.width, frame->image.height);
			return 2;
		}
		frame->crop.x = (uint32_t)c[0];
		frame->crop.y = (uint32_t)c[1];
		frame->crop.width = (uint32_t)c[2];
		frame->crop.height = (uint32_t)c[3];
	}
	return 0;
}

int cmd_convert(int argc, char **argv)
{
	struct convert_options o;
	struct cisp_output_file *out;
	struct cisp_raw_frame frame;
	const char *inputs[2] = { NULL, NULL };
	char err[1024], shown[2048];
	int ret = parse_options(argc, argv, &o);

	if (ret)
		return ret < 0 ? 0 : ret;
	inputs[0] = o.input;
	/* Made first: an existing output, or one that cannot be created, fails before the input is read. */
	if (create_output(&out, o.output, o.force, inputs)) {
		fprintf(stderr, "cisp convert: %s\n", error_text());
		return 1;
	}
	if ((ret = load_raw_input(&o.in, o.input, &frame, err, sizeof(err)))) {
		fprintf(stderr, "cisp convert: %s\n", cisp_printable(err, shown, sizeof(shown)));
		cisp_output_file_discard(out);
		return ret;
	}
	ret = apply_metadata(&o, &frame);
	if (ret) {
		cisp_output_file_discard(out);
	} else if (finish_output(out, cisp_dng_write_to(out, &frame), o.force)) {
		fprintf(stderr, "cisp convert: %s\n", error_text());
		ret = 1;
	}
	cisp_raw_frame_free(&frame);
	return ret;
}
