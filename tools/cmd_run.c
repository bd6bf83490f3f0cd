/* SPDX-License-Identifier: MIT */
/*
 * cisp run: stream a camera through the ISP and the 3A loop. Writes the
 * video, the last frame as PNG, the last raw frame as DNG and a JSON-lines
 * log of every frame's metadata, and prints how the loop converged.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cisp/burst.h>
#include <cisp/camera.h>
#include <cisp/dng.h>
#include <cisp/eis.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/image_file.h>
#include <cisp/output_file.h>
#include <cisp/raw_frame.h>
#include <cisp/y4m.h>

#include "commands.h"
#include "memory.h"
#include "options.h"

#define DEFAULT_CAMERA "virtual:cisp-8m10"
/* Requests in flight by default: enough to keep the sensor, the ISP and the writer busy. */
#define NUM_REQUESTS 4
#define MAX_REQUESTS 8
#define MAX_SETS 64

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cisp run [--camera NAME] [--frames N] [--mode NAME|INDEX] [options]\n"
		"\n"
		"Stream a camera (default " DEFAULT_CAMERA ") through the ISP with the 3A loop\n"
		"(AE, AWB, AF) running on every frame. By default the camera starts badly\n"
		"exposed and white-balanced (--start) so that the log shows the loop converge.\n"
		"Prints progress and a convergence summary.\n"
		"\n"
		"options:\n"
		"  --camera NAME          a camera from 'cisp list' (default " DEFAULT_CAMERA ")\n"
		"  --frames N             frames to stream (default 60)\n"
		"  --mode NAME|INDEX      sensor mode (default: the smallest)\n"
		"  --size WxH[!]          main output size: the frame scaled to fit inside WxH,\n"
		"                         or to exactly WxH with ! (default: the mode's)\n"
		"  --scene NAME           virtual sensor scene: colorchart (default), resolution,\n"
		"                         gradient, hdr, dominant[:patch], star, steps, flat,\n"
		"                         deadleaves, or an image file\n"
		"  --illuminant NAME      virtual sensor light: D65 (default), D50, A, F2, F11, LED,\n"
		"                         daylight:K, blackbody:K, ...\n"
		"  --lux X                scene illuminance (default 400)\n"
		"  --option KEY=VALUE     any other sensor option (seed, flicker, noise, ...);\n"
		"                         repeatable\n"
		"  -o, --output FILE.y4m  the video (NV12 main stream)\n"
		"  --hdr                  merge an exposure bracket into each frame (docs/hdr.md):\n"
		"                         -2, 0 and +2 EV around AE's exposure, local tone mapping on\n"
		"  --hdr-ev LIST          the bracket's exposure offsets in stops, 2..8 of them,\n"
		"                         comma-separated (implies --hdr), e.g. -3,0,2\n"
		"  --png FILE.png         the last frame as a PNG\n"
		"  --save-raw FILE.dng    the last raw frame as a DNG (with --hdr the merged linear\n"
		"                         frame, BaselineExposure lifting it to AE's exposure)\n"
		"  --burst N              the last frame is a burst of N (2..8) frames, aligned and\n"
		"                         merged before the ISP (docs/burst.md)\n"
		"  --still FILE.png|.dng  the last frame as a PNG or, merged raw, a DNG\n"
		"  --eis                  stabilise the video from the sensor's gyroscope, 10%% margin\n"
		"                         cropped on each side (docs/eis.md)\n"
		"  --metadata FILE.jsonl  one JSON object of metadata per frame\n"
		"  --force                replace existing output files\n"
		"  --set NAME=VALUE[@N]   a control, from frame N on (default 0); repeatable.\n"
		"                         AeEnable=0|1, ExposureTime=US, AnalogueGain=X,\n"
		"                         DigitalGain=X, ExposureValue=EV, AeMetering=centre|spot|matrix,\n"
		"                         AeFlickerMode=auto|off|50|60, AwbEnable=0|1,\n"
		"                         ColourTemperature=K, ColourGains=R,B, AfMode=manual|auto|\n"
		"                         continuous, AfTrigger=1, LensPosition=CODE,\n"
		"                         FrameDurationLimits=MIN,MAX (us). A manual value turns its\n"
		"                         automatic control off unless the enable is also given.\n"
		"  --start EXPOSURE_US,KELVIN|auto\n"
		"                         frame 0's manual exposure and colour temperature, after\n"
		"                         which AE and AWB take over (default 7200,2800: 8 times\n"
		"                         too dark and far too warm for the default scene);\n"
		"                         auto: the loop's own start\n"
		"  --tuning FILE|MODEL    tuning file, or a sensor model whose file is used\n"
		"                         (default: found by the camera's sensor model)\n"
		"  --requests N           requests in flight, 1..8 (default 4); with 1 the camera\n"
		"                         cannot take a frame while the ISP works on the one before\n"
		"  --isp DEVICE           run the ISP on a kernel ISP device (/dev/cisp-isp), or with\n"
		"                         'vulkan' on the Vulkan backend (docs/gpu.md), instead of the\n"
		"                         software one; the same as CISP_ISP=DEVICE\n"
		"  --quiet                no per-frame progress\n"
		"  -h, --help             this help\n");
}

/* One --set: a control request to merge into the request of frame @frame. */
struct set_control {
	unsigned long frame;
	struct cisp_control_request req;
};

struct run_options {
	const char *camera, *mode, *output, *png, *raw, *metadata, *tuning, *scene, *isp;
	unsigned long frames, requests, burst;
	uint32_t width, height;
	bool stretch; /* --size WxH!: exactly that size */
	char sensor_options[1024];
	bool start_auto, quiet, force, eis;
	double start_exposure_us, start_ct;
	struct set_control sets[MAX_SETS];
	unsigned num_sets;
	struct cisp_camera_bracket bracket; /* --hdr: every request's */
};

/* Stops from a bracket's shortest exposure up to its base (0 without a bracket). */
static double bracket_lift(const struct cisp_camera_bracket *b)
{
	double lo = INFINITY;

	for (unsigned k = 0; k < b->count; k++)
		lo = fmin(lo, b->ev[k]);
	return b->count ? -lo : 0;
}

/* --hdr-ev: 2..CISP_BRACKET_MAX_FRAMES offsets; the camera checks their range when the first frame is queued. */
static int parse_bracket(const char *arg, struct cisp_camera_bracket *b)
{
	const char *p = arg;

	memset(b, 0, sizeof(*b));
	for (;;) {
		char *end;
		double v = strtod(p, &end);

		if (end == p || b->count == CISP_BRACKET_MAX_FRAMES || (*end && *end != ',')) {
			fprintf(stderr, "cisp run: --hdr-ev '%s' is not a list of 2..%d exposure offsets in stops\n", arg,
				CISP_BRACKET_MAX_FRAMES);
			return -EINVAL;
		}
		b->ev[b->count++] = v;
		if (!*end)
			break;
		p = end + 1;
	}
	return 0;
}

static int add_sensor_option(struct run_options *o, const char *key, const char *value)
{
	size_t len = strlen(o->sensor_options);
	int n = snprintf(o->sensor_options + len, sizeof(o->sensor_options) - len, "%s%s%s%s", len ? "," : "", key,
			 value ? "=" : "", value ? value : "");

	if (n < 0 || (size_t)n >= sizeof(o->sensor_options) - len) {
		fprintf(stderr, "cisp run: too many sensor options\n");
		return -EINVAL;
	}
	if (strchr(value ? value : key, ',') && value) {
		fprintf(stderr, "cisp run: the value of %s may not contain ','\n", key);
		return -EINVAL;
	}
	return 0;
}

static bool parse_bool(const char *v, bool *b)
{
	if (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "on")) {
		*b = true;
		return true;
	}
	if (!strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "off")) {
		*b = false;
		return true;
	}
	return false;
}

/* "A,B" as two numbers. */
static bool parse_pair(const char *v, double *a, double *b)
{
	char *end;

	*a = strtod(v, &end);
	if (end == v || *end != ',')
		return false;
	v = end + 1;
	*b = strtod(v, &end);
	return end != v && !*end;
}

static bool parse_number(const char *v, double *x)
{
	char *end;

	*x = strtod(v, &end);
	return end != v && !*end && isfinite(*x);
}

/* Parse NAME=VALUE into @req; false with a message on error. */
static bool parse_control(const char *name, const char *v, struct cisp_control_request *req)
{
	static const char *const metering[] = { "centre", "spot", "matrix" };
	static const char *const flicker[] = { "auto", "off", "50", "60" };
	static const char *const af[] = { "manual", "auto", "continuous" };
	double x, y;
	bool b;

	if (!strcasecmp(name, "AeEnable") && parse_bool(v, &b)) {
		req->mask |= CISP_REQ_AE_ENABLE;
		req->ae_enable = b;
	} else if (!strcasecmp(name, "ExposureTime") && parse_number(v, &x) && x > 0) {
		req->mask |= CISP_REQ_EXPOSURE;
		req->exposure_us = x;
	} else if (!strcasecmp(name, "AnalogueGain") && parse_number(v, &x) && x >= 1) {
		req->mask |= CISP_REQ_ANALOGUE_GAIN;
		req->analogue_gain = x;
	} else if (!strcasecmp(name, "DigitalGain") && parse_number(v, &x) && x >= 1) {
		req->mask |= CISP_REQ_DIGITAL_GAIN;
		req->digital_gain = x;
	} else if (!strcasecmp(name, "ExposureValue") && parse_number(v, &x) && x >= -4 && x <= 4) {
		req->mask |= CISP_REQ_EV;
		req->ev = x;
	} else if (!strcasecmp(name, "AwbEnable") && parse_bool(v, &b)) {
		req->mask |= CISP_REQ_AWB_ENABLE;
		req->awb_enable = b;
	} else if (!strcasecmp(name, "ColourTemperature") && parse_number(v, &x) && x >= 2000 && x <= 12000) {
		req->mask |= CISP_REQ_COLOUR_TEMPERATURE;
		req->colour_temperature = x;
	} else if (!strcasecmp(name, "ColourGains") && parse_pair(v, &x, &y) && x > 0 && y > 0) {
		req->mask |= CISP_REQ_COLOUR_GAINS;
		req->colour_gains[0] = x;
		req->colour_gains[1] = y;
	} else if (!strcasecmp(name, "LensPosition") && parse_number(v, &x) && x >= 0 && x <= 65535 &&
		   x == floor(x)) {
		req->mask |= CISP_REQ_LENS_POSITION;
		req->lens_position = (int32_t)x;
	} else if (!strcasecmp(name, "AfTrigger") && !strcmp(v, "1")) {
		req->mask |= CISP_REQ_AF_TRIGGER;
	} else if (!strcasecmp(name, "FrameDurationLimits") && parse_pair(v, &x, &y) && x >= 0 && y >= x) {
		req->mask |= CISP_REQ_FRAME_DURATION;
		req->frame_duration_us[0] = x;
		req->frame_duration_us[1] = y;
	} else if (!strcasecmp(name, "AeMetering") || !strcasecmp(name, "AeFlickerMode") ||
		   !strcasecmp(name, "AfMode")) {
		const char *const *names = !strcasecmp(name, "AeMetering") ? metering
					   : !strcasecmp(name, "AfMode")   ? af
									   : flicker;
		unsigned n = names == flicker ? 4 : 3;

		for (unsigned i = 0; i < n; i++) {
			if (strcasecmp(v, names[i]) && !(names == metering && i == 0 && !strcasecmp(v, "center")))
				continue;
			if (names == metering) {
				req->mask |= CISP_REQ_METERING;
				req->metering = (enum cisp_ae_metering)i;
			} else if (names == af) {
				req->mask |= CISP_REQ_AF_MODE;
				req->af_mode = (enum cisp_af_mode)i;
			} else {
				req->mask |= CISP_REQ_FLICKER;
				req->flicker = (enum cisp_flicker_mode)i;
			}
			return true;
		}
		fprintf(stderr, "cisp run: --set %s: '%s' is not one of", name, v);
		for (unsigned i = 0; i < n; i++)
			fprintf(stderr, " %s", names[i]);
		fprintf(stderr, "\n");
		return false;
	} else {
		static const char *const known[] = { "AeEnable", "ExposureTime", "AnalogueGain", "DigitalGain",
						     "ExposureValue", "AwbEnable", "ColourTemperature", "ColourGains",
						     "LensPosition", "AfTrigger", "FrameDurationLimits", "AeMetering",
						     "AeFlickerMode", "AfMode" };
		bool is_known = false;

		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			is_known |= !strcasecmp(name, known[i]);
		if (is_known)
			fprintf(stderr, "cisp run: --set %s: bad value '%s' (see cisp run --help)\n", name, v);
		else
			fprintf(stderr, "cisp run: --set: unknown control '%s' (see cisp run --help)\n", name);
		return false;
	}
	return true;
}

/* A manual value switches its automatic control off unless the request says otherwise. */
static void imply_manual(struct cisp_control_request *req)
{
	if ((req->mask & (CISP_REQ_EXPOSURE | CISP_REQ_ANALOGUE_GAIN | CISP_REQ_DIGITAL_GAIN)) &&
	    !(req->mask & CISP_REQ_AE_ENABLE)) {
		req->mask |= CISP_REQ_AE_ENABLE;
		req->ae_enable = false;
	}
	if ((req->mask & (CISP_REQ_COLOUR_TEMPERATURE | CISP_REQ_COLOUR_GAINS)) && !(req->mask & CISP_REQ_AWB_ENABLE)) {
		req->mask |= CISP_REQ_AWB_ENABLE;
		req->awb_enable = false;
	}
	if ((req->mask & CISP_REQ_LENS_POSITION) && !(req->mask & CISP_REQ_AF_MODE)) {
		req->mask |= CISP_REQ_AF_MODE;
		req->af_mode = CISP_AF_MANUAL;
	}
}

static int parse_set(struct run_options *o, const char *text)
{
	char buf[256], *eq, *at;
	struct set_control *s;

	if (o->num_sets == MAX_SETS) {
		fprintf(stderr, "cisp run: at most %d --set options\n", MAX_SETS);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", text);
	eq = strchr(buf, '=');
	if (!eq) {
		fprintf(stderr, "cisp run: --set '%s' is not NAME=VALUE\n", text);
		return -EINVAL;
	}
	*eq = 0;
	s = &o->sets[o->num_sets];
	memset(s, 0, sizeof(*s));
	at = strchr(eq + 1, '@');
	if (at) {
		*at = 0;
		if (parse_uint("--set @frame", at + 1, 0, 1000000000, &s->frame))
			return -EINVAL;
	}
	if (!parse_control(buf, eq + 1, &s->req))
		return -EINVAL;
	imply_manual(&s->req);
	o->num_sets++;
	return 0;
}

/* Merge the fields of @from into @to. */
static void merge_request(struct cisp_control_request *to, const struct cisp_control_request *from)
{
	uint32_t m = from->mask;

	if (m & CISP_REQ_AE_ENABLE)
		to->ae_enable = from->ae_enable;
	if (m & CISP_REQ_EXPOSURE)
		to->exposure_us = from->exposure_us;
	if (m & CISP_REQ_ANALOGUE_GAIN)
		to->analogue_gain = from->analogue_gain;
	if (m & CISP_REQ_DIGITAL_GAIN)
		to->digital_gain = from->digital_gain;
	if (m & CISP_REQ_EV)
		to->ev = from->ev;
	if (m & CISP_REQ_METERING)
		to->metering = from->metering;
	if (m & CISP_REQ_FLICKER)
		to->flicker = from->flicker;
	if (m & CISP_REQ_AWB_ENABLE)
		to->awb_enable = from->awb_enable;
	if (m & CISP_REQ_COLOUR_TEMPERATURE)
		to->colour_temperature = from->colour_temperature;
	if (m & CISP_REQ_COLOUR_GAINS)
		memcpy(to->colour_gains, from->colour_gains, sizeof(to->colour_gains));
	if (m & CISP_REQ_AF_MODE)
		to->af_mode = from->af_mode;
	if (m & CISP_REQ_LENS_POSITION)
		to->lens_position = from->lens_position;
	if (m & CISP_REQ_FRAME_DURATION)
		memcpy(to->frame_duration_us, from->frame_duration_us, sizeof(to->frame_duration_us));
	to->mask |= m;
}

/* The controls of frame @n: the bad start on frame 0, the hand-over on frame 1, then the --set ones. */
static void frame_controls(const struct run_options *o, unsigned long n, struct cisp_control_request *req)
{
	uint32_t user = 0;

	memset(req, 0, sizeof(*req));
	for (unsigned i = 0; i < o->num_sets; i++)
		if (o->sets[i].frame <= 1)
			user |= o->sets[i].req.mask;
	if (!o->start_auto && n == 0) {
		req->mask = CISP_REQ_AE_ENABLE | CISP_REQ_EXPOSURE | CISP_REQ_ANALOGUE_GAIN | CISP_REQ_DIGITAL_GAIN |
			    CISP_REQ_AWB_ENABLE | CISP_REQ_COLOUR_TEMPERATURE;
		req->exposure_us = o->start_exposure_us;
		req->analogue_gain = 1.0;
		req->digital_gain = 1.0;
		req->colour_temperature = o->start_ct;
	} else if (!o->start_auto && n == 1) {
		/* Hand over to the loop, except what the user set by hand. */
		if (!(user & CISP_REQ_AE_ENABLE)) {
			req->mask |= CISP_REQ_AE_ENABLE;
			req->ae_enable = true;
		}
		if (!(user & CISP_REQ_AWB_ENABLE)) {
			req->mask |= CISP_REQ_AWB_ENABLE;
			req->awb_enable = true;
		}
	}
	for (unsigned i = 0; i < o->num_sets; i++)
		if (o->sets[i].frame == n || (n == 1 && o->sets[i].frame == 0 && !o->start_auto))
			merge_request(req, &o->sets[i].req);
}

/* --still FILE: a PNG (the preview stream) or a DNG (the raw stream), by its extension. */
static int parse_still(struct run_options *o, const char *path)
{
	const char *dot = strrchr(path, '.');
	bool dng = dot && !strcasecmp(dot, ".dng");

	if (!dot || (!dng && strcasecmp(dot, ".png"))) {
		fprintf(stderr, "cisp run: --still '%s': give a FILE.png or a FILE.dng\n", path);
		return -EINVAL;
	}
	if (dng ? o->raw != NULL : o->png != NULL) {
		fprintf(stderr, "cisp run: --still '%s' and --%s both name the last frame's %s\n", path,
			dng ? "save-raw" : "png", dng ? "DNG" : "PNG");
		return -EINVAL;
	}
	*(dng ? &o->raw : &o->png) = path;
	return 0;
}

static int parse_args(int argc, char **argv, struct run_options *o)
{
	enum { O_CAMERA = 256, O_FRAMES, O_MODE, O_SIZE, O_SCENE, O_ILLUMINANT, O_LUX, O_OPTION, O_PNG, O_RAW,
	       O_METADATA, O_SET, O_START, O_TUNING, O_QUIET, O_FORCE, O_ISP, O_REQUESTS, O_HDR, O_HDR_EV,
	       O_BURST, O_STILL, O_EIS };
	static const struct option longopts[] = {
		{ "camera", required_argument, NULL, O_CAMERA },
		{ "frames", required_argument, NULL, O_FRAMES },
		{ "mode", required_argument, NULL, O_MODE },
		{ "size", required_argument, NULL, O_SIZE },
		{ "scene", required_argument, NULL, O_SCENE },
		{ "illuminant", required_argument, NULL, O_ILLUMINANT },
		{ "lux", required_argument, NULL, O_LUX },
		{ "option", required_argument, NULL, O_OPTION },
		{ "output", required_argument, NULL, 'o' },
		{ "png", required_argument, NULL, O_PNG },
		{ "hdr", no_argument, NULL, O_HDR },
		{ "hdr-ev", required_argument, NULL, O_HDR_EV },
		{ "save-raw", required_argument, NULL, O_RAW },
		{ "burst", required_argument, NULL, O_BURST },
		{ "still", required_argument, NULL, O_STILL },
		{ "eis", no_argument, NULL, O_EIS },
		{ "metadata", required_argument, NULL, O_METADATA },
		{ "set", required_argument, NULL, O_SET },
		{ "start", required_argument, NULL, O_START },
		{ "tuning", required_argument, NULL, O_TUNING },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "force", no_argument, NULL, O_FORCE },
		{ "isp", required_argument, NULL, O_ISP },
		{ "requests", required_argument, NULL, O_REQUESTS },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	double x;
	int c;

	o->camera = DEFAULT_CAMERA;
	o->frames = 60;
	o->requests = NUM_REQUESTS;
	o->start_exposure_us = 7200;
	o->start_ct = 2800;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		int r = 0;

		switch (c) {
		case O_CAMERA: o->camera = optarg; break;
		case O_FRAMES: r = parse_uint("--frames", optarg, 1, 1000000, &o->frames); break;
		case O_MODE: o->mode = optarg; break;
		case O_ISP: o->isp = optarg; break;
		case O_REQUESTS: r = parse_uint("--requests", optarg, 1, MAX_REQUESTS, &o->requests); break;
		case O_SIZE: r = parse_output_size("--size", optarg, &o->width, &o->height, &o->stretch); break;
		case O_SCENE:
			o->scene = optarg;
			r = add_sensor_option(o, "scene", optarg);
			break;
		case O_ILLUMINANT: r = add_sensor_option(o, "illuminant", optarg); break;
		case O_LUX:
			r = parse_double("--lux", optarg, 0, 1e6, &x);
			if (!r)
				r = add_sensor_option(o, "lux", optarg);
			break;
		case O_OPTION:
			if (!strchr(optarg, '=')) {
				fprintf(stderr, "cisp run: --option '%s' is not KEY=VALUE\n", optarg);
				r = -EINVAL;
			} else {
				r = add_sensor_option(o, optarg, NULL);
			}
			break;
		case 'o': o->output = optarg; break;
		case O_PNG: o->png = optarg; break;
		case O_HDR:
			if (!o->bracket.count)
				o->bracket = (struct cisp_camera_bracket){ 3, { -2, 0, 2 } };
			break;
		case O_HDR_EV: r = parse_bracket(optarg, &o->bracket); break;
		case O_RAW: o->raw = optarg; break;
		case O_BURST: r = parse_uint("--burst", optarg, CISP_BURST_MIN_FRAMES, CISP_BURST_MAX_FRAMES, &o->burst); break;
		case O_STILL: r = parse_still(o, optarg); break;
		case O_EIS: o->eis = true; break;
		case O_METADATA: o->metadata = optarg; break;
		case O_SET: r = parse_set(o, optarg); break;
		case O_START:
			if (!strcmp(optarg, "auto")) {
				o->start_auto = true;
			} else if (!parse_pair(optarg, &o->start_exposure_us, &o->start_ct) || o->start_exposure_us <= 0 ||
				   o->start_ct < 2000 || o->start_ct > 12000) {
				fprintf(stderr, "cisp run: --start '%s' is not EXPOSURE_US,KELVIN (2000..12000 K) or auto\n",
					optarg);
				r = -EINVAL;
			}
			break;
		case O_TUNING: o->tuning = optarg; break;
		case O_QUIET: o->quiet = true; break;
		case O_FORCE: o->force = true; break;
		case 'h': usage(stdout); return 1;
		default: bad_option(argv, "o:h"); return 2;
		}
		if (r)
			return 2;
	}
	if (optind < argc) {
		fprintf(stderr, "cisp run: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (o->burst && o->bracket.count) {
		fprintf(stderr, "cisp run: --burst and --hdr: one or the other\n");
		return 2;
	}
	return 0;
}

/* The mode called @name (or numbered), or the smallest when @name is NULL. */
static int pick_mode(struct cisp_sensor *s, const char *name, unsigned *index)
{
	const struct cisp_sensor_info *info = cisp_sensor_info(s);
	uint64_t best = UINT64_MAX;
	struct cisp_sensor_mode m;
	char *end;
	unsigned long n;

	if (name) {
		n = strtoul(name, &end, 10);
		if (end != name && !*end && n < info->num_modes) {
			*index = (unsigned)n;
			return 0;
		}
		for (unsigned i = 0; i < info->num_modes; i++)
			if (!cisp_sensor_get_mode(s, i, &m) && !strcmp(m.name, name)) {
				*index = i;
				return 0;
			}
		fprintf(stderr, "cisp run: camera %s has no mode '%s'; its modes:", SHOWN(info->name), SHOWN(name));
		for (unsigned i = 0; i < info->num_modes; i++)
			if (!cisp_sensor_get_mode(s, i, &m))
				fprintf(stderr, " %u %s (%ux%u)%s", i, SHOWN(m.name), m.width, m.height,
					i + 1 < info->num_modes ? "," : "");
		fprintf(stderr, "\n");
		return -EINVAL;
	}
	for (unsigned i = 0; i < info->num_modes; i++)
		if (!cisp_sensor_get_mode(s, i, &m) && (uint64_t)m.width * m.height < best) {
			best = (uint64_t)m.width * m.height;
			*index = i;
		}
	return 0;
}

struct run_state {
	struct cisp_camera_request req[MAX_REQUESTS];
	struct cisp_image main[MAX_REQUESTS];
	struct cisp_image rgb;        /* preview stream: the last frame in RGB for --png */
	struct cisp_image raw;        /* raw stream: the last frame for --save-raw */
	/* The output files, made before the first frame and put in place after the last. */
	struct cisp_output_file *video, *png, *dng, *log;
	struct cisp_y4m_writer *y4m;
	FILE *jsonl;
	long ae_converged, awb_converged, af_focused; /* first frame of the final converged run, -1 */
	struct cisp_camera_metadata first, last;
	double isp_ms_total;
	double *ae_error, *ct; /* per frame: measured / target brightness, the colour temperature applied */
	double *latency_ms;    /* per frame: sensor readout start to the frame here */
	bool clock_ok;         /* the sensor's timestamps are on CLOCK_MONOTONIC */
	unsigned long copied;  /* raw frames copied out of the sensor's buffers */
	double cpu_s;          /* CPU time of the whole process while streaming */
	uint64_t dropped;      /* frames the sensor dropped */
	double period_ns, video_ns; /* the video's frame period, and the time its frames cover so far */
};

/* ,"key":value with @decimals (negative: 6 significant digits); null when not finite (JSON has no NaN). */
static void json_number(FILE *f, const char *key, double v, int decimals)
{
	fprintf(f, ",\"%s\":", key);
	if (!isfinite(v))
		fputs("null", f);
	else if (decimals < 0)
		fprintf(f, "%.6g", v);
	else
		fprintf(f, "%.*f", decimals, v);
}

static void log_json(FILE *f, const struct cisp_camera_metadata *m)
{
	const struct cisp_control_state *c = &m->control;

	fprintf(f, "{\"sequence\":%llu,\"timestamp_ns\":%llu", (unsigned long long)m->sequence,
		(unsigned long long)m->timestamp_ns);
	json_number(f, "exposure_us", m->exposure_us, 1);
	json_number(f, "analogue_gain", m->analogue_gain, 4);
	json_number(f, "digital_gain", m->digital_gain, 4);
	json_number(f, "frame_duration_us", m->frame_duration_us, 1);
	fprintf(f, ",\"lens_position\":%d", m->lens_position);
	json_number(f, "colour_temperature", m->colour_temperature, 0);
	fprintf(f, ",\"colour_gains\":[%.4f,%.4f],\"ccm\":[", isfinite(m->colour_gains[0]) ? m->colour_gains[0] : 0,
		isfinite(m->colour_gains[1]) ? m->colour_gains[1] : 0);
	for (int i = 0; i < 9; i++)
		fprintf(f, "%s%.4f", i ? "," : "", isfinite(m->ccm[i]) ? m->ccm[i] : 0);
	fprintf(f, "],\"ae_state\":\"%s\"", cisp_ae_state_name(m->ae_state));
	json_number(f, "ae_error", c->ae_error, 4);
	fprintf(f, ",\"awb_state\":\"%s\",\"af_state\":\"%s\"", cisp_awb_state_name(m->awb_state),
		cisp_af_state_name(m->af_state));
	json_number(f, "sharpness", c->sharpness, -1);
	fprintf(f, ",\"flicker_hz\":%u", c->flicker_hz);
	json_number(f, "lux", c->lux, 1);
	fprintf(f, ",\"next\":{\"lens_position\":%d", c->lens_position);
	json_number(f, "exposure_us", c->exposure_us, 1);
	json_number(f, "analogue_gain", c->analogue_gain, 4);
	json_number(f, "digital_gain", c->digital_gain, 4);
	json_number(f, "colour_temperature", c->colour_temperature, 0);
	fputc('}', f);
	json_number(f, "isp_ms", m->isp_ns / 1e6, 2);
	fputs("}\n", f);
}

static void print_progress(const struct cisp_camera_metadata *m)
{
	printf("frame %3llu: exposure %7.2f ms x%5.2f  AE %-9s (%.2f of target)  %5.0f K AWB %-9s  lens %4d AF %s\n",
	       (unsigned long long)m->sequence, m->exposure_us / 1000, m->analogue_gain * m->digital_gain,
	       cisp_ae_state_name(m->ae_state), m->control.ae_error, m->colour_temperature,
	       cisp_awb_state_name(m->awb_state), m->lens_position, cisp_af_state_name(m->af_state));
}

/* Track the start of the last run of frames in a state. */
static void track(long *since, bool in_state, uint64_t seq)
{
	if (!in_state)
		*since = -1;
	else if (*since < 0)
		*since = (long)seq;
}

static void print_converged(const char *what, long since, const char *state)
{
	if (since >= 0)
		printf("  %s: %s from frame %ld on\n", what, state, since);
	else
		printf("  %s: not %s by the last frame\n", what, state);
}

/* The first of @n frames from which |@v - @target| <= @tol holds to the end, or -1. */
static long settled(const double *v, unsigned long n, double target, double tol)
{
	long from = -1;

	for (unsigned long i = 0; i < n; i++)
		if (!(fabs(v[i] - target) <= tol))
			from = -1;
		else if (from < 0)
			from = (long)i;
	return from;
}

static void summary(const struct run_options *o, const struct run_state *st, unsigned long frames, double seconds)
{
	const struct cisp_camera_metadata *f = &st->first, *l = &st->last;
	double e0 = f->exposure_us * f->analogue_gain * f->digital_gain;
	double e1 = l->exposure_us * l->analogue_gain * l->digital_gain;
	long bright = settled(st->ae_error, frames, 1.0, 0.05), colour = settled(st->ct, frames, l->colour_temperature, 100);

	printf("\nsummary: %lu frames in %.2f s (%.1f frames/s, ISP %.1f ms a frame)\n", frames, seconds,
	       frames / seconds, st->isp_ms_total / (double)frames);
	if (st->clock_ok)
		printf("  latency, sensor readout start to the frame here: p50 %.1f ms, p99 %.1f ms\n",
		       quantile(st->latency_ms, (unsigned)frames, 0.5), quantile(st->latency_ms, (unsigned)frames, 0.99));
	else
		printf("  latency not measured: the sensor's clock is not CLOCK_MONOTONIC (a virtual sensor without "
		       "realtime=on)\n");
	printf("  CPU %.1f ms a frame (all threads), %llu frames dropped by the sensor, %lu of %lu raw frames "
	       "copied out of its buffers\n", st->cpu_s * 1e3 / (double)frames, (unsigned long long)st->dropped,
	       st->copied, frames);
	print_converged("AE", st->ae_converged, "converged");
	print_converged("AWB", st->awb_converged, "converged");
	print_converged("AF", st->af_focused, "focused");
	if (bright >= 0)
		printf("  brightness within 5%% of the AE target from frame %ld on\n", bright);
	else
		printf("  brightness not within 5%% of the AE target by the last frame\n");
	if (colour >= 0)
		printf("  applied colour temperature within 100 K of the final one from frame %ld on\n", colour);
	printf("  start: exposure %.2f ms x%.2f, %.0f K%s\n", f->exposure_us / 1000, f->analogue_gain * f->digital_gain,
	       f->colour_temperature, o->start_auto ? " (the loop's own start)" : " (--start)");
	printf("  final: exposure %.2f ms, analogue gain x%.2f, digital gain x%.2f, %.0f K (gains R %.3f B %.3f), "
	       "lens %d, AE error %.3f\n",
	       l->exposure_us / 1000, l->analogue_gain, l->digital_gain, l->colour_temperature, l->colour_gains[0],
	       l->colour_gains[1], l->lens_position, l->control.ae_error);
	if (e0 > 0 && e1 > 0)
		printf("  the start's exposure x gain was %.1fx %s the final one\n", e0 < e1 ? e1 / e0 : e0 / e1,
		       e0 < e1 ? "under" : "over");
}

/* @inv = @m^-1 for a 3x3 row-major matrix; false when singular. */
static bool invert3(const double m[9], double inv[9])
{
	double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
		     m[2] * (m[3] * m[7] - m[4] * m[6]);

	if (fabs(det) < 1e-12)
		return false;
	inv[0] = (m[4] * m[8] - m[5] * m[7]) / det;
	inv[1] = (m[2] * m[7] - m[1] * m[8]) / det;
	inv[2] = (m[1] * m[5] - m[2] * m[4]) / det;
	inv[3] = (m[5] * m[6] - m[3] * m[8]) / det;
	inv[4] = (m[0] * m[8] - m[2] * m[6]) / det;
	inv[5] = (m[2] * m[3] - m[0] * m[5]) / det;
	inv[6] = (m[3] * m[7] - m[4] * m[6]) / det;
	inv[7] = (m[1] * m[6] - m[0] * m[7]) / det;
	inv[8] = (m[0] * m[4] - m[1] * m[3]) / det;
	return true;
}

/*
 * The DNG colour matrix (XYZ to camera RGB) from the frame's colour
 * processing: XYZ = sRGB_to_XYZ x CCM x diag(white balance) x camera, so
 * camera = (sRGB_to_XYZ x CCM x diag(wb))^-1 x XYZ.
 */
static bool xyz_to_camera(const struct cisp_camera_metadata *m, float out[9])
{
	static const double srgb_to_xyz[9] = { 0.4124564, 0.3575761, 0.1804375, 0.2126729, 0.7151522,
					       0.0721750, 0.0193339, 0.1191920, 0.9503041 };
	const double wb[3] = { m->colour_gains[0], 1.0, m->colour_gains[1] };
	double fwd[9], inv[9];

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			double sum = 0;

			for (int k = 0; k < 3; k++)
				sum += srgb_to_xyz[3 * i + k] * m->ccm[3 * k + j];
			fwd[3 * i + j] = sum * wb[j];
		}
	if (!invert3(fwd, inv))
		return false;
	for (int i = 0; i < 9; i++)
		out[i] = (float)inv[i];
	return true;
}

/* @baseline_ev: a merged frame's lift from its shortest exposure to the bracket's base. */
static int save_raw(struct cisp_output_file *out, const struct cisp_image *raw, const struct cisp_sensor_mode *mode,
		    const struct cisp_camera_metadata *m, const char *model, double baseline_ev)
{
	struct cisp_raw_frame frame;
	unsigned shift = 16 - mode->bits;

	memset(&frame, 0, sizeof(frame));
	frame.image = *raw;
	frame.image.owned = NULL; /* borrowed */
	/* The raw stream is the 16-bit container format with samples shifted up (see configure). */
	for (int c = 0; c < 4; c++)
		frame.black[c] = (uint16_t)(mode->black_level << shift);
	frame.white = (uint16_t)(mode->white_level << shift);
	if (m->merged.count) { /* the merged linear frame, at the bracket's shortest exposure */
		for (int c = 0; c < 4; c++)
			frame.black[c] = 0;
		frame.white = 65535;
		frame.baseline_ev = (float)baseline_ev;
	}
	if (m->colour_gains[0] > 0 && m->colour_gains[1] > 0) {
		frame.has_wb = true;
		frame.wb_gains[0] = (float)m->colour_gains[0];
		frame.wb_gains[1] = 1.0f;
		frame.wb_gains[2] = (float)m->colour_gains[1];
	}
	frame.has_matrix = frame.has_wb && xyz_to_camera(m, frame.xyz_to_cam);
	frame.orientation = 1;
	snprintf(frame.make, sizeof(frame.make), "cisp");
	snprintf(frame.model, sizeof(frame.model), "%s", model);
	frame.exposure_s = (float)(m->exposure_us / 1e6);
	frame.iso = (float)(100 * m->analogue_gain * m->digital_gain);
	return cisp_dng_write_to(out, &frame);
}

/*
 * What streaming holds at once (docs/cli.md), in bytes measured on the
 * virtual sensors and rounded up: 38 a sensor pixel (the sensor's frames,
 * two of them while one is taken ahead, the ISP's planes), 14 an output
 * pixel (four requests' buffers, the scaled planes) and 2 more for each
 * request beyond four, 14 more with --png (the preview stream), 4 a sensor
 * pixel with --save-raw, 2 a sensor pixel for each frame of an --hdr bracket,
 * 3 a sensor pixel for each frame of a --burst (its raw frame and grey
 * pyramid), and 24 a frame for the summary.
 */
static size_t run_memory(const struct run_options *o, const struct cisp_sensor_mode *mode,
			   const struct cisp_stream_config *ms)
{
	size_t sensor_px = mem_mul(mode->width, mode->height), out_px = mem_mul(ms->width, ms->height);
	size_t need = mem_add(BASE_MEMORY, mem_mul(38, sensor_px));
	size_t extra = o->requests > NUM_REQUESTS ? 2 * (o->requests - NUM_REQUESTS) : 0;

	need = mem_add(need, mem_mul((o->png ? 28 : 14) + extra, out_px));
	if (o->raw)
		need = mem_add(need, mem_mul(4, sensor_px));
	need = mem_add(need, mem_mul(2 * o->bracket.count, sensor_px)); /* the camera's bracket frames */
	if (o->burst)
		need = mem_add(need, mem_mul(3 * o->burst, sensor_px));
	return mem_add(need, mem_mul(24, o->frames));
}

/* Create the output files (none replacing an input) and start the video and the log. */
static int create_outputs(const struct run_options *o, struct run_state *st, const struct cisp_stream_config *ms,
			  double fps)
{
	const char *read[3] = { NULL, NULL, NULL }; /* the files the run reads */
	int r = 0, n = 0;

	if (o->tuning)
		read[n++] = o->tuning;
	if (o->scene)
		read[n++] = o->scene;

	if (o->output)
		r = create_output(&st->video, o->output, o->force, read);
	if (!r && o->png)
		r = create_output(&st->png, o->png, o->force, read);
	if (!r && o->raw)
		r = create_output(&st->dng, o->raw, o->force, read);
	if (!r && o->metadata)
		r = create_output(&st->log, o->metadata, o->force, read);
	if (!r && st->video)
		r = cisp_y4m_open_to(&st->y4m, st->video, ms->width, ms->height, (unsigned)lround(fps * 1000), 1000,
				     false);
	st->period_ns = 1e9 / fps;
	if (!r && st->log && !(st->jsonl = cisp_output_file_stream(st->log)))
		r = -ENOMEM;
	return r;
}

/* Put the output files in place when @status is 0, else drop them; 0 or the first failure. */
static int finish_outputs(const struct run_options *o, struct run_state *st, int status)
{
	int r = cisp_y4m_close(st->y4m), log = 0;

	st->y4m = NULL;
	st->jsonl = NULL;
	if (st->video)
		r = finish_output(st->video, status ? status : r, o->force);
	if (st->log)
		log = finish_output(st->log, status, o->force);
	if (!r)
		r = log;
	/* The PNG and the DNG are written by stream(), which leaves them here only on failure. */
	cisp_output_file_discard(st->png);
	cisp_output_file_discard(st->dng);
	st->video = st->log = st->png = st->dng = NULL;
	return r;
}

/* Allocate the buffers and create the outputs. */
static int prepare(const struct run_options *o, struct run_state *st, const struct cisp_camera_config *cfg,
		   const struct cisp_sensor_mode *mode)
{
	const struct cisp_stream_config *ms = &cfg->stream[CISP_STREAM_MAIN];
	double line_ns = cisp_sensor_line_ns(mode), lines = mode->frame_length_default;
	int r = 0;

	/* The video's rate is the frames': the shortest duration asked from frame 0, to the line, as AE keeps it. */
	for (unsigned i = 0; i < o->num_sets; i++)
		if (o->sets[i].frame == 0 && (o->sets[i].req.mask & CISP_REQ_FRAME_DURATION) &&
		    o->sets[i].req.frame_duration_us[0] > 0)
			lines = fmax(1, round(o->sets[i].req.frame_duration_us[0] * 1000 / line_ns));
	double fps = 1e9 / (line_ns * lines);

	st->ae_error = calloc(o->frames, sizeof(double));
	st->ct = calloc(o->frames, sizeof(double));
	st->latency_ms = calloc(o->frames, sizeof(double));
	if (!st->ae_error || !st->ct || !st->latency_ms) {
		fprintf(stderr, "cisp run: out of memory\n");
		return -ENOMEM;
	}
	for (unsigned i = 0; !r && i < o->requests; i++) {
		r = cisp_image_alloc(&st->main[i], ms->format, ms->width, ms->height);
		st->req[i].buffer[CISP_STREAM_MAIN] = &st->main[i];
	}
	if (!r && o->png)
		r = cisp_image_alloc(&st->rgb, CISP_FMT_RGB888, ms->width, ms->height);
	if (!r && o->raw)
		r = cisp_image_alloc(&st->raw, cfg->stream[CISP_STREAM_RAW].format, mode->width, mode->height);
	if (!r)
		r = create_outputs(o, st, ms, fps);
	if (r)
		fprintf(stderr, "cisp run: %s\n", error_text());
	return r;
}

/*
 * Append a frame to the video. Y4M has one frame rate: a frame that lasted
 * longer than the period (AE stretched it in low light, as the frame
 * duration limits allowed) is repeated, so that the video keeps the
 * camera's time.
 */
static int write_video(struct run_state *st, const struct cisp_camera_metadata *m, const struct cisp_image *frame)
{
	double end = (double)(m->timestamp_ns - st->first.timestamp_ns) + m->frame_duration_us * 1000;
	int r;

	do {
		r = cisp_y4m_write(st->y4m, frame);
		st->video_ns += st->period_ns;
	} while (!r && st->video_ns + st->period_ns / 2 <= end);
	return r;
}

/* Queue @req for frame @n: its controls, and on the last frame its RGB and raw copies. */
static int queue_frame(const struct run_options *o, struct run_state *st, struct cisp_camera *cam,
		       struct cisp_camera_request *req, unsigned long n)
{
	bool last = n + 1 == o->frames;

	frame_controls(o, n, &req->controls);
	req->bracket = o->bracket;
	req->buffer[CISP_STREAM_PREVIEW] = last && o->png ? &st->rgb : NULL;
	req->buffer[CISP_STREAM_RAW] = last && o->raw ? &st->raw : NULL;
	req->burst = last ? (unsigned)o->burst : 0;
	return cisp_camera_queue(cam, req);
}

/* CPU time of the process so far (every thread: the camera's, the ISP workers'), seconds. */
static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* Stream the frames; 0 or 1 on failure. */
static int stream(const struct run_options *o, struct cisp_camera *cam, struct run_state *st,
		  const struct cisp_sensor_mode *mode)
{
	unsigned long queued = 0, done = 0;
	double t0 = now_seconds(), cpu0 = cpu_seconds();
	int failed = 0;

	st->ae_converged = st->awb_converged = st->af_focused = -1;
	st->clock_ok = true;
	for (unsigned i = 0; i < o->requests && queued < o->frames; i++, queued++) {
		if (queue_frame(o, st, cam, &st->req[i], queued)) {
			fprintf(stderr, "cisp run: %s\n", error_text());
			return 1;
		}
	}
	if (cisp_camera_start(cam)) {
		fprintf(stderr, "cisp run: %s\n", error_text());
		return 1;
	}
	while (done < o->frames) {
		struct cisp_camera_request *req;
		const struct cisp_camera_metadata *m;

		if (cisp_camera_wait(cam, &req, -1)) {
			fprintf(stderr, "cisp run: %s\n", error_text());
			failed = 1;
			break;
		}
		done++;
		if (req->status) {
			fprintf(stderr, "cisp run: frame %lu failed: %s\n", done - 1, req->message);
			failed = 1;
			break;
		}
		m = &req->metadata;
		/* Readout start to here, where the sensor's clock is CLOCK_MONOTONIC (V4L2, real-time virtual). */
		st->latency_ms[done - 1] = (now_seconds() * 1e9 - (double)m->timestamp_ns) / 1e6;
		if (st->latency_ms[done - 1] < 0 || (double)m->timestamp_ns < (t0 - 1) * 1e9)
			st->clock_ok = false; /* another clock: a frame before the start, or in the future */
		st->copied += (m->sensor.flags & CISP_SENSOR_MD_COPIED) != 0;
		if (done == 1)
			st->first = *m;
		st->ae_error[done - 1] = m->control.ae_error;
		st->ct[done - 1] = m->colour_temperature;
		st->last = *m;
		st->isp_ms_total += m->isp_ns / 1e6;
		track(&st->ae_converged, m->ae_state == CISP_AE_CONVERGED, m->sequence);
		track(&st->awb_converged, m->awb_state == CISP_AWB_CONVERGED, m->sequence);
		track(&st->af_focused, m->af_state == CISP_AF_FOCUSED, m->sequence);
		if (!o->quiet)
			print_progress(m);
		if (st->jsonl)
			log_json(st->jsonl, m);
		if (st->y4m && write_video(st, m, req->buffer[CISP_STREAM_MAIN])) {
			fprintf(stderr, "cisp run: %s\n", error_text());
			failed = 1;
			break;
		}
		if (queued < o->frames) {
			if (queue_frame(o, st, cam, req, queued)) {
				fprintf(stderr, "cisp run: %s\n", error_text());
				failed = 1;
				break;
			}
			queued++;
		}
	}
	cisp_camera_stop(cam);
	st->cpu_s = cpu_seconds() - cpu0;
	st->dropped = cisp_sensor_dropped(cisp_camera_sensor(cam));
	if (failed)
		return 1;
	summary(o, st, done, now_seconds() - t0);
	if (st->png) {
		failed = finish_output(st->png, cisp_image_write_to(st->png, &st->rgb, NULL), o->force);
		st->png = NULL;
	}
	if (!failed && st->dng) {
		failed = finish_output(st->dng, save_raw(st->dng, &st->raw, mode, &st->last,
							cisp_sensor_info(cisp_camera_sensor(cam))->model,
							bracket_lift(&o->bracket)), o->force);
		st->dng = NULL;
	}
	if (failed) {
		fprintf(stderr, "cisp run: %s\n", error_text());
		return 1;
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_options o = { 0 };
	struct cisp_camera_options co = { 0 };
	struct cisp_camera_manager *mgr = NULL;
	struct cisp_camera_manager_config mc = { 0 };
	struct cisp_device_config dc = { 0 };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct cisp_camera *cam = NULL;
	struct cisp_camera_config cfg;
	struct cisp_sensor_mode mode;
	struct run_state *st = NULL;
	unsigned index = 0;
	char what[128];
	int r = 1;

	r = parse_args(argc, argv, &o);
	if (r)
		return r == 1 ? 0 : r;
	r = 1;
	if (o.output && !strstr(o.output, ".y4m")) {
		fprintf(stderr, "cisp run: -o %s: the video is written as .y4m\n", o.output);
		return 2;
	}
	/* The device reads CISP_ISP when it is made (docs/device.md, "Backends"). */
	if (o.isp)
		setenv("CISP_ISP", o.isp, 1);
	co.sensor_options = o.sensor_options[0] ? o.sensor_options : NULL;
	co.tuning = o.tuning;
	st = calloc(1, sizeof(*st));
	/* One camera, one frame at a time: one ISP worker, every CPU on its frame. */
	dc.workers = 1;
	dc.job_threads = cpus > 1 ? (unsigned)cpus : 1;
	mc.device_config = &dc;
	if (!st || cisp_camera_manager_create(&mgr, &mc) || cisp_camera_open(&cam, mgr, o.camera, &co)) {
		fprintf(stderr, "cisp run: %s\n", st ? error_text() : "out of memory");
		goto out;
	}
	if (pick_mode(cisp_camera_sensor(cam), o.mode, &index))
		goto out;
	cisp_camera_default_config(cam, index, &cfg);
	cisp_sensor_get_mode(cisp_camera_sensor(cam), index, &mode);
	if (o.width) {
		if (!o.stretch)
			fit_inside(cfg.stream[CISP_STREAM_MAIN].width, cfg.stream[CISP_STREAM_MAIN].height, &o.width, &o.height);
		cfg.stream[CISP_STREAM_MAIN].width = o.width;
		cfg.stream[CISP_STREAM_MAIN].height = o.height;
	}
	if (o.png) /* the preview stream gives the last frame in RGB */
		cfg.stream[CISP_STREAM_PREVIEW] = (struct cisp_stream_config){
			CISP_FMT_RGB888, cfg.stream[CISP_STREAM_MAIN].width, cfg.stream[CISP_STREAM_MAIN].height, 0, 0, 0, 0
		};
	if (o.raw || o.burst) /* 16-bit samples: what the DNG writer stores, and what a burst merges */
		cfg.stream[CISP_STREAM_RAW].format = cisp_bayer_format(mode.cfa, 16, false);
	snprintf(what, sizeof(what), "streaming %ux%u to %ux%u", mode.width, mode.height,
		 cfg.stream[CISP_STREAM_MAIN].width, cfg.stream[CISP_STREAM_MAIN].height);
	if (memory_check(what, run_memory(&o, &mode, &cfg.stream[CISP_STREAM_MAIN])) ||
	    (o.eis && cisp_camera_set_eis(cam, &(struct cisp_eis_config){ .enable = true })) ||
	    cisp_camera_configure(cam, &cfg)) {
		fprintf(stderr, "cisp run: %s\n", error_text());
		goto out;
	}
	printf("camera %s, mode %s (%ux%u, %u-bit), output %ux%u, tuning %s\n", SHOWN(o.camera), SHOWN(mode.name),
	       mode.width, mode.height, mode.bits, cfg.stream[CISP_STREAM_MAIN].width,
	       cfg.stream[CISP_STREAM_MAIN].height, SHOWN(cisp_camera_tuning_name(cam)));
	if (o.eis)
		printf("EIS on: gyroscope path, 10%% margin on each side, 16 rolling-shutter bands\n");
	if (prepare(&o, st, &cfg, &mode))
		goto out;
	r = stream(&o, cam, st, &mode);
out:
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(mgr);
	if (st) {
		if (finish_outputs(&o, st, r ? -EIO : 0) && !r) {
			fprintf(stderr, "cisp run: %s\n", error_text());
			r = 1;
		}
		for (unsigned i = 0; i < MAX_REQUESTS; i++)
			cisp_image_free(&st->main[i]);
		cisp_image_free(&st->rgb);
		cisp_image_free(&st->raw);
		free(st->ae_error);
		free(st->ct);
		free(st->latency_ms);
		free(st);
	}
	if (!r) {
		const char *written[] = { o.output, o.png, o.raw, o.metadata };

		for (size_t i = 0; i < sizeof(written) / sizeof(written[0]); i++)
			if (written[i])
				printf("wrote %s\n", SHOWN(written[i]));
	}
	return r;
}
