/* SPDX-License-Identifier: MIT */
/*
 * cisp tuning import: another camera stack's tuning (the Raspberry Pi
 * tuning tool's JSON, libcamera's rkisp1 YAML) as a cisp tuning file.
 * docs/calibrate.md.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cisp/calibrate.h>
#include <cisp/output_file.h>

#include "commands.h"
#include "options.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cisp tuning import FILE --bits N -o TUNING.yaml [--sensor MODEL] [--array WxH]\n"
		"                          [--base TUNING.yaml] [--force]\n"
		"\n"
		"Convert a Raspberry Pi tuning (JSON, e.g. /usr/share/libcamera/ipa/raspberrypi/imx477.json)\n"
		"or a libcamera rkisp1 tuning (YAML) into a cisp tuning file: black level, noise,\n"
		"lux reference, white-balance curve, colour matrices and lens shading, as far as the\n"
		"file has them. What has no cisp equivalent is named in a warning; what the file\n"
		"lacks comes from --base (default: the uncalibrated tuning), also with a warning.\n"
		"\n"
		"options:\n"
		"  --bits N              the sensor mode's bit depth (the black level is written in its codes)\n"
		"  -o, --output FILE     the tuning file to write\n"
		"  --sensor MODEL        the sensor model (default: FILE's name without its extension)\n"
		"  --array WxH           the pixel array the shading tables span (default: each mode's frame)\n"
		"  --base FILE           a tuning whose values stand for what FILE lacks\n"
		"  --force               replace an existing output file\n"
		"  -h, --help            this help\n");
}

int cmd_tuning(int argc, char **argv)
{
	struct cisp_tuning_import opt = { 0 };
	const char *input = NULL, *output = NULL;
	char sensor[64];
	unsigned long bits = 0;
	bool force = false;
	struct cisp_output_file *out = NULL;
	int ret;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc < 2) {
		fprintf(stderr, "cisp tuning: import what? 'cisp help tuning' says more\n");
		return 2;
	}
	if (strcmp(argv[1], "import")) {
		fprintf(stderr, "cisp tuning: %s '%s'; 'cisp help tuning' lists the options\n",
			argv[1][0] == '-' ? "unknown option" : "unknown subcommand", SHOWN(argv[1]));
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--force")) {
			force = true;
			continue;
		} else if (a[0] != '-') {
			if (input) {
				fprintf(stderr, "cisp tuning import: one file at a time; 'cisp help tuning' lists the options\n");
				return 2;
			}
			input = a;
			continue;
		}
		if (!v) {
			fprintf(stderr, "cisp tuning import: option '%s' needs a value; 'cisp help tuning' lists the options\n",
				SHOWN(a));
			return 2;
		}
		i++;
		if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			output = v;
		} else if (!strcmp(a, "--sensor")) {
			opt.sensor = v;
		} else if (!strcmp(a, "--base")) {
			opt.base = v;
		} else if (!strcmp(a, "--bits") || !strcmp(a, "--array")) {
			if (!strcmp(a, "--bits") ? parse_uint(a, v, 8, 16, &bits)
						 : parse_size(a, v, &opt.array_width, &opt.array_height))
				return 2; /* the parser said why */
		} else {
			fprintf(stderr, "cisp tuning import: unknown option '%s'; 'cisp help tuning' lists the options\n",
				SHOWN(a));
			return 2;
		}
	}
	if (!input || !output || !bits) {
		fprintf(stderr,
			"cisp tuning import: give a FILE, --bits N and -o TUNING.yaml; 'cisp help tuning' lists the options\n");
		return 2;
	}
	opt.bits = (unsigned)bits;
	if (!opt.sensor) {
		/* imx477.json -> imx477 */
		const char *name = strrchr(input, '/') ? strrchr(input, '/') + 1 : input;

		snprintf(sensor, sizeof(sensor), "%.*s", (int)strcspn(name, "."), name);
		opt.sensor = sensor;
	}
	ret = create_output(&out, output, force, (const char *const[]){ input, opt.base, NULL });
	if (!ret)
		ret = finish_output(out, cisp_tuning_import(input, &opt, out), force);
	if (ret) {
		fprintf(stderr, "cisp tuning import: %s\n", error_text());
		return 1;
	}
	printf("imported %s: wrote %s\n", SHOWN(input), SHOWN(output));
	return 0;
}
