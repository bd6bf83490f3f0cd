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
 * call's 1280x720 and 30 fps in a dim room, where AE must raise gain and
 * keep the frame period. Latency is from the start of a frame's readout to
 * the frame handed to the device, so it includes one frame period.
 */
#define WEBCAM_FPS 30.0
#define WEBCAM_FRAMES 150
/*
 * Frames written before the measured ones: the 3A's start. The virtual
 * sensor renders its scene again at each lens position of the AF's first
 * scan (about 16, 60 ms of CPU each on a 2-core machine), a cost of the
 * simulation that a real sensor does not have; the measured frames follow.
 */
#define WEBCAM_SETTLE 60
#define WEBCAM_LUX "50"
#define WEBCAM_MAX_P50_MS 80.0
#define WEBCAM_MAX_P99_MS 120.0

/* An info line of the report, printed as well: the checks' table shows checks only. */
static void webcam_info(struct cisp_iq_report *r, const char *name, const char *text)
{
	cisp_iq_report_info(r, name, text);
	printf("%s: %s\n", name, text);
}

static int webcam_checks(struct cisp_iq_report *r)
{
	struct webcam_options o = {
		.camera = "virtual:cisp-8m10", .device = "none", .sensor_options = "lux=" WEBCAM_LUX,
		.width = 1280, .height = 720, .pixelformat = CISP_V4L2_OUTPUT_YUYV, .fps = WEBCAM_FPS,
		.frames = WEBCAM_FRAMES, .quiet = true, .settle = WEBCAM_SETTLE,
	};
	struct webcam_report w;
	char text[160];
	double load[1];

	if (webcam_run(&o, &w))
		return cisp_error(-EIO, "the webcam path did not run (see above)");
	snprintf(text, sizeof(text), "%s 1280x720 YUYV at %g fps, %s lux, %lu frames in %.1f s", o.camera, o.fps,
		 WEBCAM_LUX, w.written, w.seconds);
	webcam_info(r, "webcam path", text);
	snprintf(text, sizeof(text), "%d frames before those, not measured: %lu sensor frames left out", WEBCAM_SETTLE,
		 w.settle_dropped);
	webcam_info(r, "webcam: start", text);
	snprintf(text, sizeof(text), "%.1f ms a frame, the virtual sensor's rendering included", w.cpu_ms_per_frame);
	webcam_info(r, "webcam: CPU", text);
	/* Rate and latency are wall-clock: what else the machine ran stands beside them. */
	if (getloadavg(load, 1) == 1) {
		snprintf(text, sizeof(text), "%ld CPUs, load average %.2f after the run", sysconf(_SC_NPROCESSORS_ONLN),
			 load[0]);
		webcam_info(r, "webcam: machine", text);
	}
	/* The promise: every sensor frame at the period (to the line), the gain raised instead. */
	cisp_iq_report_check(r, "webcam: longest sensor frame, dim room", w.frame_duration_max_ms, "ms", "<=",
			     1000 / WEBCAM_FPS * 1.005);
	cisp_iq_report_check(r, "webcam: analogue x digital gain, dim room", w.analogue_gain * w.digital_gain, "x",
			     ">=", 1.5);
	cisp_iq_report_check(r, "webcam: frames delivered per second", w.fps, "fps", ">=", WEBCAM_FPS * 0.97);
	cisp_iq_report_check(r, "webcam: sensor frames left out", (double)w.dropped, "", "<=", WEBCAM_FRAMES / 50);
	if (w.latency_p50_ms < 0)
		return cisp_error(-EIO, "webcam path: latency not measured (the sensor's clock is not CLOCK_MONOTONIC)");
	cisp_iq_report_check(r, "webcam: latency p50, readout start to device", w.latency_p50_ms, "ms", "<=",
			     WEBCAM_MAX_P50_MS);
	cisp_iq_report_check(r, "webcam: latency p99, readout start to device", w.latency_p99_ms, "ms", "<=",
			     WEBCAM_MAX_P99_MS);
	/* Frames between the sensor and the device at once (Little's law): latency times the delivered rate. */
	snprintf(text, sizeof(text), "%.2f at p50 latency, %.2f at p99", w.latency_p50_ms * w.fps / 1000,
		 w.latency_p99_ms * w.fps / 1000);
	webcam_info(r, "webcam: frames held", text);
	/* Said, not checked: faces and EIS are measured by their benchmarks, not on this path yet. */
	cisp_iq_report_info(r, "webcam: not checked by this profile",
			    "face exposure (bench-faces, docs/faces.md), EIS on (bench-eis, docs/eis.md)");
	return 0;
}

/* Run the profile's checks and write the reports; the exit status. */
static int check(const char *profile, const char *golden, bool iq, const char *json, const char *html, bool force)
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
		ret = webcam_checks(r);
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
	enum { OPT_PROFILE = 256, OPT_GOLDEN, OPT_NOIQ, OPT_JSON, OPT_HTML, OPT_GENERATE, OPT_FORCE };
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, OPT_PROFILE }, { "golden", required_argument, NULL, OPT_GOLDEN },
		{ "no-iq", no_argument, NULL, OPT_NOIQ },           { "json", required_argument, NULL, OPT_JSON },
		{ "html", required_argument, NULL, OPT_HTML },      { "generate", required_argument, NULL, OPT_GENERATE },
		{ "force", no_argument, NULL, OPT_FORCE },          { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *profile = NULL, *golden = NULL, *json = NULL, *html = NULL, *generate = NULL;
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
	return check(profile, golden, iq, json, html, force);
}
