/* SPDX-License-Identifier: MIT */
/*
 * cisp conform: check an ISP backend against a conformance profile (required
 * blocks, bit-exact golden vectors, IQ thresholds on the virtual sensor);
 * print a pass/fail table and exit 1 on any failure. Also regenerates the
 * golden vectors from the reference.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/iq_conform.h>

#include "commands.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cisp conform --profile NAME [options]\n"
		"       cisp conform --generate DIR\n"
		"\n"
		"Check the ISP backend against a conformance profile (profiles/NAME.yaml):\n"
		"the blocks it must offer, its golden vectors bit for bit, and image-quality\n"
		"thresholds measured on the virtual sensor. Exits 0 when every check passes,\n"
		"1 when one fails, 2 on bad usage.\n"
		"\n"
		"options:\n"
		"  --profile NAME   a profile name or a .yaml path\n"
		"  --golden DIR     the golden vectors (default: the shipped ones)\n"
		"  --no-iq          skip the image-quality checks (they take seconds)\n"
		"  --json FILE      write the checks and results as JSON\n"
		"  --html FILE      write the HTML report\n"
		"  --generate DIR   write the golden vectors from the reference ISP into DIR\n"
		"  -h, --help       this help\n");
}

int cmd_conform(int argc, char **argv)
{
	enum { OPT_PROFILE = 256, OPT_GOLDEN, OPT_NOIQ, OPT_JSON, OPT_HTML, OPT_GENERATE };
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, OPT_PROFILE }, { "golden", required_argument, NULL, OPT_GOLDEN },
		{ "no-iq", no_argument, NULL, OPT_NOIQ },           { "json", required_argument, NULL, OPT_JSON },
		{ "html", required_argument, NULL, OPT_HTML },      { "generate", required_argument, NULL, OPT_GENERATE },
		{ "help", no_argument, NULL, 'h' },                 { NULL, 0, NULL, 0 },
	};
	const char *profile = NULL, *golden = NULL, *json = NULL, *html = NULL, *generate = NULL;
	bool iq = true;
	struct cisp_iq_profile *p;
	struct cisp_iq_report *r = NULL;
	unsigned failed = 0;
	int opt, ret;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_PROFILE: profile = optarg; break;
		case OPT_GOLDEN: golden = optarg; break;
		case OPT_NOIQ: iq = false; break;
		case OPT_JSON: json = optarg; break;
		case OPT_HTML: html = optarg; break;
		case OPT_GENERATE: generate = optarg; break;
		case 'h': usage(stdout); return 0;
		default:
			fprintf(stderr, "cisp conform: unknown option '%s'\n\n", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || (!profile && !generate)) {
		fprintf(stderr, "cisp conform: %s\n\n", optind != argc ? "unexpected argument" : "--profile is required");
		usage(stderr);
		return 2;
	}
	if (generate) {
		ret = cisp_iq_golden_generate(generate, cisp_iq_software_backend());
		if (ret < 0) {
			fprintf(stderr, "cisp conform: %s\n", cisp_last_error());
			return 1;
		}
		printf("wrote %d golden vectors to %s\n", ret, generate);
		return 0;
	}
	p = calloc(1, sizeof(*p));
	if (!p || cisp_iq_profile_load(profile, p) || cisp_iq_report_create(&r, "cisp conform")) {
		fprintf(stderr, "cisp conform: %s\n", p ? cisp_last_error() : "out of memory");
		free(p);
		return 1;
	}
	printf("profile %s: %s\n", p->name, p->description);
	ret = cisp_iq_conform(p, cisp_iq_software_backend(), golden, iq, r);
	if (ret) {
		fprintf(stderr, "cisp conform: %s\n", cisp_last_error());
		cisp_iq_report_destroy(r);
		free(p);
		return 1;
	}
	cisp_iq_report_print_checks(r, stdout);
	if ((json && cisp_iq_report_write_json(r, json)) || (html && cisp_iq_report_write_html(r, html))) {
		fprintf(stderr, "cisp conform: %s\n", cisp_last_error());
		cisp_iq_report_destroy(r);
		free(p);
		return 1;
	}
	cisp_iq_report_passed(r, &failed);
	printf("%s: profile %s, %u check%s failed\n", failed ? "FAIL" : "PASS", p->name, failed, failed == 1 ? "" : "s");
	cisp_iq_report_destroy(r);
	free(p);
	return failed ? 1 : 0;
}
