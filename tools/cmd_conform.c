/* SPDX-License-Identifier: MIT */
/*
 * cisp conform: check an ISP backend against a conformance profile (required
 * blocks, bit-exact golden vectors, IQ thresholds on the virtual sensor);
 * print a pass/fail table and exit 1 on any failure. Also regenerates the
 * golden vectors from the reference.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cisp/error.h>
#include <cisp/iq_conform.h>
#include <cisp/output_file.h>
#include <cisp/v4l2_output.h>

#include "commands.h"
#include "options.h"
#include "webcam.h"

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
		"  --no-iq          skip the image-quality checks (they take seconds), and\n"
		"                   video-conferencing's measurements of the webcam path\n"
		"  --face-scene IMAGE  video-conferencing: a portrait photograph (PNG, PPM,\n"
		"                   JPEG) for the face-exposure check, shown at a quarter of\n"
		"                   its reflectance against a bright window; without it the\n"
		"                   check fails\n"
		"  --json FILE      write the checks and results as JSON\n"
		"  --html FILE      write the HTML report\n"
		"  --generate DIR   write the golden vectors from the reference ISP into DIR\n"
		"                   (a new or empty folder, unless --force)\n"
		"  --force          replace existing --json and --html files, and vectors in DIR\n"
		"  -h, --help       this help\n");
}

/* Whether @dir holds anything (false for a folder that does not exist yet). */
static bool has_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d)))
		found = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return found;
}

static int generate_vectors(const char *dir, bool force)
{
	char shown[1024];
	int n;

	cisp_printable(dir, shown, sizeof(shown));
	if (!force && has_entries(dir)) {
		fprintf(stderr, "cisp conform: %s holds files already (use --force to replace the vectors in it)\n",
			shown);
		return 1;
	}
	n = cisp_iq_golden_generate(dir, cisp_iq_software_backend());
	if (n < 0) {
		fprintf(stderr, "cisp conform: %s\n", error_text());
		return 1;
	}
	printf("wrote %d golden vectors to %s\n", n, shown);
	return 0;
}

/*
 * The video-conferencing profile measures the webcam path as well (camera,
 * tuning, 3A, pacing, packing: docs/webcam.md), on the virtual sensor at a
 * call's 1280x720 and 30 fps in a dim room with hand shake, where AE must
 * raise gain and keep the frame period: EIS off, then on; then both again
 * taking every sensor frame (not in real time) for the residual motion,
 * which compares frames that follow each other. Latency is from
 * the start of a frame's readout to the frame handed to the device, so it
 * includes one frame period. The start (WEBCAM_SETTLE frames) is left out:
 * the virtual sensor renders its scene again at each lens position of the
 * AF's first scan (about 16, 60 ms of CPU each on a 2-core machine), a cost
 * of the simulation that a real sensor does not have.
 *
 * Then face exposure: @portrait, an image, at a quarter of its reflectance (a
 * light skin tone becomes a dark one) in front of a white window (the virtual sensor's
 * backlit: scene) under tungsten light, with face priority and without.
 */
#define FACE_SCENE_OPTIONS ",illuminant=A,lux=150"
/*
 * At a tenth, the face under the window's metering (Y 40 to 50) is seldom
 * found at all, so face priority never starts: no frame with a face in 300 on
 * a quiet machine (docs/faces.md).
 */
#define FACE_REFLECTANCE "0.25"
#define FACE_SETTLE 90 /* detections at 5 Hz (a dark face is not always found at once) and AE's steps to it */
#define FACE_FRAMES 15

static void face_runs(const char *portrait, struct webcam_conformance *c)
{
	char options[4200];
	struct webcam_options o = {
		.camera = "virtual:cisp-8m10", .device = "none", .sensor_options = options, .width = 1280,
		.height = 720, .pixelformat = CISP_V4L2_OUTPUT_YUYV, .fps = WEBCAM_FPS, .frames = FACE_FRAMES,
		.quiet = true, .settle = FACE_SETTLE, .faces = 5,
	};

	if (!portrait) {
		snprintf(c->faces_error, sizeof(c->faces_error),
			 "not run: no portrait given (--face-scene IMAGE, docs/conformance.md)");
		return;
	}
	if (strchr(portrait, ',') || strlen(portrait) > 4000) {
		snprintf(c->faces_error, sizeof(c->faces_error),
			 "not run: --face-scene: a path without ',' and under 4000 characters");
		return;
	}
	snprintf(options, sizeof(options), "scene=backlit:" FACE_REFLECTANCE ":%s" FACE_SCENE_OPTIONS, portrait);
	if (webcam_run(&o, &c->faces)) {
		snprintf(c->faces_error, sizeof(c->faces_error), "not run: %s", cisp_last_error());
		return;
	}
	/* Without face priority: the same rectangle, read in the frames of a run without detection. */
	if (!c->faces.face_frames)
		return;
	o.faces = 0;
	o.meter = &c->faces.face;
	if (webcam_run(&o, &c->no_faces))
		snprintf(c->faces_error, sizeof(c->faces_error), "not run without face priority: %s", cisp_last_error());
}

static int webcam_checks(struct cisp_iq_report *r, const char *portrait)
{
	struct webcam_options o = {
		.camera = "virtual:cisp-8m10", .device = "none",
		.sensor_options = "lux=" WEBCAM_LUX ",shake=" WEBCAM_SHAKE ",seed=3", .width = 1280, .height = 720,
		.pixelformat = CISP_V4L2_OUTPUT_YUYV, .fps = WEBCAM_FPS, .frames = WEBCAM_FRAMES, .quiet = true,
		.settle = WEBCAM_SETTLE,
	};
	struct webcam_conformance *c = calloc(1, sizeof(*c));
	char text[160];

	if (!c)
		return cisp_error(-ENOMEM, "out of memory");
	snprintf(text, sizeof(text), "%s 1280x720 YUYV at %g fps, %s lux, hand shake %s px, %d frames after %d",
		 o.camera, o.fps, WEBCAM_LUX, WEBCAM_SHAKE, WEBCAM_FRAMES, WEBCAM_SETTLE);
	cisp_iq_report_info(r, "webcam runs", text);
	printf("webcam runs: %s\n", text);
	fflush(stdout);
	/* The residual motion needs frames that follow each other: every sensor frame, not in real time. */
	struct webcam_options m = o;

	m.sensor_options = "lux=" WEBCAM_LUX ",shake=" WEBCAM_SHAKE ",seed=3,realtime=0";
	m.settle = WEBCAM_MOTION_SETTLE;
	m.frames = WEBCAM_MOTION_FRAMES;
	if (webcam_run(&o, &c->eis_off) || (o.eis = true, webcam_run(&o, &c->eis_on)) ||
	    webcam_run(&m, &c->motion_off) || (m.eis = true, webcam_run(&m, &c->motion_on))) {
		free(c);
		return cisp_error(-EIO, "the webcam path did not run (see above)");
	}
	face_runs(portrait, c);
	webcam_conformance_check(r, c);
	free(c);
	return 0;
}

/* Run the profile's checks and write the reports; the exit status. */
static int check(const char *profile, const char *golden, bool iq, const char *portrait, const char *json,
		 const char *html, bool force)
{
	const char *inputs[] = { profile, NULL };
	struct cisp_output_file *json_file = NULL, *html_file = NULL;
	struct cisp_iq_profile *p = calloc(1, sizeof(*p));
	struct cisp_iq_report *r = NULL;
	unsigned failed = 0;
	int ret = p ? 0 : cisp_error(-ENOMEM, "out of memory");

	/* The reports are made first: an existing one fails before the checks, which take a while. */
	if (!ret && json)
		ret = create_output(&json_file, json, force, inputs);
	if (!ret && html)
		ret = create_output(&html_file, html, force, inputs);
	if (!ret)
		ret = cisp_iq_profile_load(profile, p);
	if (!ret)
		ret = cisp_iq_report_create(&r, "cisp conform");
	if (!ret) {
		printf("profile %s: %s\n", SHOWN(p->name), SHOWN(p->description));
		ret = cisp_iq_conform(p, cisp_iq_software_backend(), golden, iq, r);
	}
	if (!ret && iq && !strcmp(p->name, "video-conferencing"))
		ret = webcam_checks(r, portrait);
	if (!ret)
		cisp_iq_report_print_checks(r, stdout);
	if (json_file) {
		ret = finish_output(json_file, ret ? ret : cisp_iq_report_write_json_to(r, json_file), force);
		json_file = NULL;
	}
	if (html_file) {
		ret = finish_output(html_file, ret ? ret : cisp_iq_report_write_html_to(r, html_file), force);
		html_file = NULL;
	}
	if (ret) {
		fprintf(stderr, "cisp conform: %s\n", error_text());
	} else {
		cisp_iq_report_passed(r, &failed);
		printf("%s: profile %s, %u check%s failed\n", failed ? "FAIL" : "PASS", SHOWN(p->name), failed,
		       failed == 1 ? "" : "s");
	}
	cisp_iq_report_destroy(r);
	free(p);
	return ret || failed ? 1 : 0;
}

int cmd_conform(int argc, char **argv)
{
	enum { OPT_PROFILE = 256, OPT_GOLDEN, OPT_NOIQ, OPT_JSON, OPT_HTML, OPT_GENERATE, OPT_FORCE, OPT_FACE_SCENE };
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, OPT_PROFILE }, { "golden", required_argument, NULL, OPT_GOLDEN },
		{ "no-iq", no_argument, NULL, OPT_NOIQ },           { "json", required_argument, NULL, OPT_JSON },
		{ "html", required_argument, NULL, OPT_HTML },      { "generate", required_argument, NULL, OPT_GENERATE },
		{ "force", no_argument, NULL, OPT_FORCE },          { "help", no_argument, NULL, 'h' },
		{ "face-scene", required_argument, NULL, OPT_FACE_SCENE },
		{ NULL, 0, NULL, 0 },
	};
	const char *profile = NULL, *golden = NULL, *json = NULL, *html = NULL, *generate = NULL, *portrait = NULL;
	bool iq = true, force = false;
	int opt;

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
		case OPT_FORCE: force = true; break;
		case OPT_FACE_SCENE: portrait = optarg; break;
		case 'h': usage(stdout); return 0;
		default:
			bad_option(argv, "h");
			return 2;
		}
	}
	if (optind != argc || (!profile && !generate)) {
		fprintf(stderr, "cisp conform: %s; 'cisp help conform' lists the options\n",
			optind != argc ? "unexpected argument" : "--profile is required");
		return 2;
	}
	if (generate)
		return generate_vectors(generate, force);
	return check(profile, golden, iq, portrait, json, html, force);
}
