/* SPDX-License-Identifier: MIT */
/*
 * cisp calibrate: a tuning file from captures (darks, flats, charts, edges),
 * or from a lightbox session the command drives on a virtual sensor; with a
 * report. docs/calibrate.md.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include <cisp/calibrate.h>
#include <cisp/calibrate_chart_frame.h>
#include <cisp/develop.h>
#include <cisp/dng.h>
#include <cisp/error.h>
#include <cisp/iq_report.h>
#include <cisp/log.h>
#include <cisp/output_file.h>
#include <cisp/raw_frame.h>

#include "commands.h"
#include "options.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cisp calibrate [--dark FILE...] [--flat FILE[@LIGHT]...] [--chart FILE@LIGHT[@LUX]...]\n"
		"                      [--edge FILE[@X,Y,W,H]...] [--flat-from-chart FILE[@LIGHT]...]\n"
		"                      [--steps FILE...] [--sensor MODEL] [--base TUNING.yaml]\n"
		"                      -o TUNING.yaml [--report REPORT.html] [--json FILE] [--force]\n"
		"       cisp calibrate --camera NAME [--mode N] [--illuminants LIST] [--seed N]\n"
		"                      [--options K=V,...] [--save-captures DIR] -o TUNING.yaml [...]\n"
		"\n"
		"Calibrate a sensor and lens from captures: darks (lens covered: black level,\n"
		"dark signal, hot pixels), flats (an evenly lit diffuser: lens shading, and from\n"
		"pairs of one exposure and gain the noise profile), ColorChecker charts under\n"
		"named lights (colour matrices, white-balance curve) and a slanted edge\n"
		"(sharpening). Each option takes one or more files. A LIGHT is D65, D50, D55,\n"
		"D75, A, F2, F11, LED or a temperature such as 4000K; LUX the chart's\n"
		"illuminance (for the lux reference). With --camera, a virtual sensor takes the\n"
		"whole series itself. A bad capture is an error and nothing is written.\n"
		"\n"
		"options:\n"
		"  --dark FILE...        darks, the lens covered\n"
		"  --flat FILE[@LIGHT]...\n"
		"                        flats of an evenly lit diffuser\n"
		"  --chart FILE@LIGHT[@LUX]...\n"
		"                        ColorChecker charts under LIGHT, at LUX\n"
		"  --edge FILE[@X,Y,W,H]...\n"
		"                        slanted edges, in the area X,Y,W,H or found\n"
		"  --flat-from-chart FILE[@LIGHT]...\n"
		"                        lens shading from a chart frame's white areas (when\n"
		"                        no flats are given)\n"
		"  --steps FILE...       grey steps: black offset, clip point, channels'\n"
		"                        linearity (in the report and on the output)\n"
		"  -o, --output FILE     the tuning file to write\n"
		"  --base FILE           keep this tuning's values for what is not measured\n"
		"  --sensor MODEL        the sensor model the tuning is for (default: the files')\n"
		"  --report FILE         an HTML report with the curves and patches\n"
		"  --json FILE           the report as JSON\n"
		"  --force               replace existing output files\n"
		"  --camera NAME         photograph the series with virtual sensor NAME\n"
		"  --mode N              its mode (default 0; it must read the whole pixel array)\n"
		"  --illuminants LIST    the charts' lights, comma-separated (default D65,A)\n"
		"  --seed N              the sensor's noise seed (default 1)\n"
		"  --options K=V,...     more sensor options (defect_density=0.001, ...)\n"
		"  --save-captures DIR   save every capture as a DNG in DIR (new or empty)\n"
		"%s"
		"  -h, --help            this help\n",
		raw_input_usage);
}

/* What a file on the command line serves as: a capture of its kind, or a chart frame read on its own. */
enum input_use { USE_CAPTURE, USE_CHART_FLAT, USE_STEPS };

/* One file on the command line and what it is. */
struct input {
	enum cisp_calib_kind kind;
	enum input_use use;
	char *path;             /* the file (the argument up to its first '@') */
	const char *illuminant; /* after the first '@', or NULL */
	double lux;
	bool has_roi;
	struct cisp_iq_rect roi;
};

struct options {
	struct input *inputs;
	unsigned count;
	const char *output, *base, *sensor, *report, *json, *camera, *illuminants, *sensor_options, *save_dir;
	unsigned long mode, seed;
	bool force;
	struct cisp_develop_source raw;
};

/* "FILE@LIGHT@LUX", "FILE@X,Y,W,H" for edges. */
static int parse_input(struct options *o, enum cisp_calib_kind kind, const char *arg)
{
	struct input *in;
	char *at;
	void *p = realloc(o->inputs, (o->count + 1) * sizeof(*o->inputs));

	if (!p)
		return cisp_error(-ENOMEM, "out of memory");
	o->inputs = p;
	in = &o->inputs[o->count];
	memset(in, 0, sizeof(*in));
	in->kind = kind;
	in->path = strdup(arg);
	if (!in->path)
		return cisp_error(-ENOMEM, "out of memory");
	o->count++;
	at = strchr(in->path, '@');
	if (!at)
		return 0;
	*at++ = '\0';
	if (kind == CISP_CALIB_EDGE) {
		double v[4];
		char *end = at;

		for (int i = 0; i < 4; i++) {
			v[i] = strtod(end, &end);
			if ((i < 3 && *end != ',') || (i == 3 && *end) || !(v[i] >= 0 && v[i] <= 65535))
				return cisp_error(-EINVAL, "--edge %s: '%s' is not X,Y,W,H", in->path, at);
			end += i < 3;
		}
		in->has_roi = true;
		in->roi = (struct cisp_iq_rect){ (int32_t)v[0], (int32_t)v[1], (int32_t)v[2], (int32_t)v[3] };
		return 0;
	}
	if (kind == CISP_CALIB_DARK)
		return cisp_error(-EINVAL, "--dark %s: a dark has no light", arg);
	in->illuminant = at;
	at = strchr(at, '@');
	if (at) {
		char *end;

		*at++ = '\0';
		if (kind != CISP_CALIB_CHART)
			return cisp_error(-EINVAL, "--flat %s: only a chart takes a lux value", arg);
		in->lux = strtod(at, &end);
		if (end == at || (*end && strcmp(end, "lx") && strcmp(end, "lux")) || !(in->lux > 0 && in->lux <= 1e6))
			return cisp_error(-EINVAL, "--chart %s: '%s' is not an illuminance (400, 400lx)", arg, at);
	}
	return 0;
}

static int parse(int argc, char **argv, struct options *o)
{
	/* The options that take files, and what the files are (--steps: a kind that takes no light). */
	static const struct {
		const char *name;
		enum cisp_calib_kind kind;
		enum input_use use;
	} kinds[] = {
		{ "--dark", CISP_CALIB_DARK, USE_CAPTURE },
		{ "--flat", CISP_CALIB_FLAT, USE_CAPTURE },
		{ "--chart", CISP_CALIB_CHART, USE_CAPTURE },
		{ "--edge", CISP_CALIB_EDGE, USE_CAPTURE },
		{ "--flat-from-chart", CISP_CALIB_FLAT, USE_CHART_FLAT },
		{ "--steps", CISP_CALIB_DARK, USE_STEPS },
	};
	int kind = -1;

	memset(o, 0, sizeof(*o));
	cisp_develop_source_init(&o->raw);
	o->seed = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = true;
		int r;

		if (a[0] != '-' || !a[1]) {
			if (kind < 0) {
				fprintf(stderr,
					"cisp calibrate: '%s': name what it is (--dark, --flat, --chart, --edge, "
					"--flat-from-chart or --steps)\n",
					SHOWN(a));
				return 2;
			}
			if (kinds[kind].use == USE_STEPS && strchr(a, '@')) {
				fprintf(stderr, "cisp calibrate: --steps %s: grey steps take no light\n", SHOWN(a));
				return 2;
			}
			if (parse_input(o, kinds[kind].kind, a)) {
				fprintf(stderr, "cisp calibrate: %s\n", error_text());
				return 2;
			}
			o->inputs[o->count - 1].use = kinds[kind].use;
			continue;
		}
		kind = -1;
		for (int k = 0; k < (int)(sizeof(kinds) / sizeof(kinds[0])); k++)
			if (!strcmp(a, kinds[k].name))
				kind = k;
		if (kind >= 0)
			continue;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 1;
		}
		if (!strcmp(a, "--force")) {
			o->force = true;
			continue;
		}
		if (!v) {
			fprintf(stderr, "cisp calibrate: option '%s' needs a value; 'cisp help calibrate' lists the options\n",
				SHOWN(a));
			return 2;
		}
		if (!strcmp(a, "-o") || !strcmp(a, "--output"))
			o->output = v;
		else if (!strcmp(a, "--base"))
			o->base = v;
		else if (!strcmp(a, "--sensor"))
			o->sensor = v;
		else if (!strcmp(a, "--report"))
			o->report = v;
		else if (!strcmp(a, "--json"))
			o->json = v;
		else if (!strcmp(a, "--camera"))
			o->camera = v;
		else if (!strcmp(a, "--illuminants"))
			o->illuminants = v;
		else if (!strcmp(a, "--options"))
			o->sensor_options = v;
		else if (!strcmp(a, "--save-captures"))
			o->save_dir = v;
		else if (!strcmp(a, "--mode")) {
			if (parse_uint("--mode", v, 0, 63, &o->mode))
				return 2;
		} else if (!strcmp(a, "--seed")) {
			if (parse_uint("--seed", v, 1, 4294967295ul, &o->seed))
				return 2;
		} else if (!strncmp(a, "--", 2) && (r = raw_input_option(&o->raw, a + 2, v)) != 1) {
			if (r)
				return 2;
		} else {
			takes = false;
		}
		if (!takes) {
			fprintf(stderr, "cisp calibrate: unknown option '%s'; 'cisp help calibrate' lists the options\n",
				SHOWN(a));
			return 2;
		}
		i++;
	}
	if (!o->output) {
		fprintf(stderr, "cisp calibrate: -o TUNING.yaml is required; 'cisp help calibrate' lists the options\n");
		return 2;
	}
	if (!!o->camera == !!o->count) {
		fprintf(stderr, "cisp calibrate: give captures (--dark, --flat, --chart, --edge, ...) or --camera, not %s\n",
			o->camera ? "both" : "neither");
		return 2;
	}
	if (o->save_dir && !o->camera) {
		fprintf(stderr, "cisp calibrate: --save-captures goes with --camera\n");
		return 2;
	}
	return 0;
}

/* Saving each capture of a virtual session as a DNG. */
struct saver {
	const char *dir;
	const char *model;
	unsigned n;
};

static int save_capture(void *opaque, const struct cisp_calib_capture *cap)
{
	struct saver *s = opaque;
	struct cisp_raw_frame frame;
	char path[4096];

	memset(&frame, 0, sizeof(frame));
	frame.image = *cap->raw;
	frame.image.owned = NULL;
	for (int c = 0; c < 4; c++)
		frame.black[c] = (uint16_t)lround(cap->black);
	frame.white = (uint16_t)lround(cap->white);
	frame.orientation = 1;
	frame.exposure_s = (float)cap->exposure_s;
	frame.iso = (float)(100 * cap->gain);
	snprintf(frame.make, sizeof(frame.make), "cisp");
	snprintf(frame.model, sizeof(frame.model), "%s", s->model);
	snprintf(path, sizeof(path), "%s/%03u-%s%s%s.dng", s->dir, ++s->n, cisp_calib_kind_name(cap->kind),
		 cap->illuminant ? "-" : "", cap->illuminant ? cap->illuminant : "");
	return cisp_dng_write(path, &frame);
}

/*
 * The raw reader's warnings concern developing a picture (no colour matrix,
 * no as-shot white balance, a crop); a calibration reads only the mosaic and
 * its levels, and checks those itself: while a capture loads, only errors
 * are shown.
 */
static void errors_only(enum cisp_log_level level, const char *message, void *opaque)
{
	(void)opaque;
	if (level == CISP_LOG_ERROR)
		fprintf(stderr, "cisp: error: %s\n", message);
}

static int load_capture(const struct cisp_develop_source *raw, const char *path, struct cisp_raw_frame *frame,
			char *err, size_t size)
{
	int ret;

	cisp_log_set_sink(errors_only, NULL);
	ret = load_raw_input(raw, path, frame, err, size);
	cisp_log_set_sink(NULL, NULL);
	return ret;
}

/* Load file @in and add it to the session (made from the first file's sensor model). */
static int add_file(struct cisp_calib **c, const struct options *o, const struct input *in, char *model, size_t size)
{
	struct cisp_raw_frame frame;
	char err[1024];
	struct cisp_calib_capture cap;
	int ret = 0;

	if (load_capture(&o->raw, in->path, &frame, err, sizeof(err)))
		return cisp_error(-EINVAL, "%s", err);
	if (!*c) {
		struct cisp_calib_setup setup = { .sensor = o->sensor ? o->sensor : frame.model };

		snprintf(model, size, "%s", setup.sensor);
		if (!model[0])
			ret = cisp_error(-EINVAL, "%s names no sensor model: give --sensor MODEL", in->path);
		if (!ret)
			ret = cisp_calib_create(c, &setup);
	}
	cap = (struct cisp_calib_capture){
		.kind = in->kind,
		.raw = &frame.image,
		.black = (frame.defaults & CISP_RAW_DEFAULT_BLACK)
				 ? -1
				 : (frame.black[0] + frame.black[1] + frame.black[2] + frame.black[3]) / 4.0,
		.white = frame.white,
		.exposure_s = frame.exposure_s,
		.gain = frame.iso > 0 ? frame.iso / 100 : 0,
		.illuminant = in->illuminant,
		.lux = in->lux,
		.roi = in->has_roi ? &in->roi : NULL,
		.name = in->path,
	};
	if (!ret)
		ret = in->use == USE_CHART_FLAT ? cisp_calib_add_chart_flat(*c, &cap)
		      : in->use == USE_STEPS    ? cisp_calib_add_steps(*c, &cap)
						: cisp_calib_add(*c, &cap);
	cisp_raw_frame_free(&frame);
	return ret;
}

/*
 * The captures named on the command line, darks first, then flats, charts
 * and edges; then the chart frames read on their own (which use the darks'
 * black level).
 */
static int add_files(struct cisp_calib **c, const struct options *o, char *model, size_t size)
{
	int ret = 0;

	for (int kind = CISP_CALIB_DARK; kind <= CISP_CALIB_EDGE && !ret; kind++)
		for (unsigned i = 0; i < o->count && !ret; i++)
			if (o->inputs[i].use == USE_CAPTURE && o->inputs[i].kind == (enum cisp_calib_kind)kind)
				ret = add_file(c, o, &o->inputs[i], model, size);
	for (int use = USE_CHART_FLAT; use <= USE_STEPS && !ret; use++)
		for (unsigned i = 0; i < o->count && !ret; i++)
			if (o->inputs[i].use == (enum input_use)use)
				ret = add_file(c, o, &o->inputs[i], model, size);
	return ret;
}

/* What the chart frames said, for the terminal (the report has it all). */
static void print_chart_frames(const struct cisp_calib *c)
{
	const struct cisp_calib_chart_flat *f;
	const struct cisp_calib_tone *t;

	cisp_calib_chart_frames(c, &f, &t);
	if (f)
		printf("flat from chart: %u white blocks (%.0f%% of the frame) reaching %.0f%% of the half-diagonal; "
		       "corner falloff R %.3f Gr %.3f Gb %.3f B %.3f; fit residual %.2f%% rms, %.2f%% largest; "
		       "brightest at (%.0f, %.0f)\n",
		       f->blocks, 100 * f->coverage, 100 * f->radius_reached, f->falloff[0], f->falloff[1], f->falloff[2],
		       f->falloff[3], f->residual_rms_pct, f->table.residual_pct, f->centre[0], f->centre[1]);
	if (!t)
		return;
	printf("grey steps: %u found; black offset ", t->count);
	if (t->black_found)
		printf("%.2f codes (R and B estimates %.2f apart)", t->black, 2 * t->black_spread);
	else
		printf("not told (too few neutral steps, or channels of equal gain)");
	printf("; R/G %.4f, B/G %.4f; channels' largest departure from linear %.2f%%\n", t->channel_ratio[0],
	       t->channel_ratio[1], t->linearity_pct);
	for (int k = 0; k < 4; k++)
		printf("  clip %s: %s %.1f codes (%.3f%% of samples)\n", (const char *[]){ "R", "Gr", "Gb", "B" }[k],
		       t->clip_found[k] ? "samples pile up at" : "none (largest sample)", t->clip[k],
		       100 * t->clip_fraction[k]);
	for (unsigned i = 0; i < t->count; i++)
		printf("  step %2u at (%4.0f, %4.0f), %3u blocks: R %7.1f Gr %7.1f Gb %7.1f B %7.1f%s\n", i, t->step[i].x,
		       t->step[i].y, t->step[i].blocks, t->step[i].level[0], t->step[i].level[1], t->step[i].level[2],
		       t->step[i].level[3],
		       t->step[i].clipped ? " (clipped)" : t->step[i].neutral ? "" : " (not neutral: left out)");
}

static int run(const struct options *o, int argc, char **argv, struct cisp_output_file **files)
{
	struct cisp_calib *c = NULL;
	struct cisp_iq_report *r = NULL;
	const struct cisp_calib_result *res;
	char model[64] = "", *cmd = command_line(argc, argv), date[32] = "";
	struct cisp_calib_provenance prov = { .tool = "cisp calibrate " CISP_VERSION, .command = cmd, .date = date };
	int ret = cmd ? 0 : cisp_error(-ENOMEM, "out of memory");

	utc_date(date, sizeof(date));
	if (!ret && o->camera) {
		struct saver saver = { .dir = o->save_dir, .model = model };
		struct cisp_calib_camera cam = {
			.sensor = o->camera, .mode = (unsigned)o->mode, .illuminants = o->illuminants ? o->illuminants : "D65,A",
			.seed = (unsigned)o->seed, .options = o->sensor_options, .save = o->save_dir ? save_capture : NULL,
			.opaque = &saver,
		};
		struct cisp_calib_setup setup;

		ret = cisp_calib_virtual_setup(&cam, &setup, model, sizeof(model));
		if (!ret && o->sensor)
			setup.sensor = o->sensor;
		if (!ret)
			ret = cisp_calib_create(&c, &setup);
		if (!ret)
			ret = cisp_calib_capture_virtual(c, &cam);
	} else if (!ret) {
		ret = add_files(&c, o, model, sizeof(model));
	}
	if (!ret)
		ret = cisp_calib_solve(c, &res);
	if (!ret)
		ret = cisp_calib_write_tuning(c, o->base, &prov, files[0]);
	if (!ret && (files[1] || files[2])) {
		ret = cisp_iq_report_create(&r, "cisp calibrate");
		if (!ret)
			ret = cisp_iq_report_info(r, "cisp version", CISP_VERSION);
		if (!ret)
			ret = cisp_iq_report_info(r, "command", cmd);
		if (!ret)
			ret = cisp_iq_report_info(r, "date", date);
		if (!ret)
			ret = cisp_calib_report(c, r);
		if (!ret && files[1])
			ret = cisp_iq_report_write_html_to(r, files[1]);
		if (!ret && files[2])
			ret = cisp_iq_report_write_json_to(r, files[2]);
	}
	if (!ret)
		print_chart_frames(c);
	if (!ret)
		printf("calibrated %s: wrote %s\n", model, o->output);
	cisp_iq_report_destroy(r);
	cisp_calib_destroy(c);
	free(cmd);
	return ret;
}

int cmd_calibrate(int argc, char **argv)
{
	struct options o;
	struct cisp_output_file *files[3] = { NULL, NULL, NULL };
	const char *paths[3];
	const char **inputs = NULL;
	int status = parse(argc, argv, &o), ret = 0;

	if (status) {
		for (unsigned i = 0; i < o.count; i++)
			free(o.inputs[i].path);
		free(o.inputs);
		return status == 1 ? 0 : 2;
	}
	paths[0] = o.output;
	paths[1] = o.report;
	paths[2] = o.json;
	inputs = calloc(o.count + 2, sizeof(*inputs));
	if (!inputs)
		ret = cisp_error(-ENOMEM, "out of memory");
	for (unsigned i = 0; inputs && i < o.count; i++)
		inputs[i] = o.inputs[i].path;
	if (inputs)
		inputs[o.count] = o.base;
	if (!ret && o.save_dir) {
		/* A new folder, or an empty one: the captures never replace files without --force. */
		DIR *d;
		struct dirent *e;
		bool empty = true;

		if (mkdir(o.save_dir, 0777) && errno != EEXIST)
			ret = cisp_error(-errno, "%s: %s", o.save_dir, strerror(errno));
		d = ret ? NULL : opendir(o.save_dir);
		while (d && empty && (e = readdir(d)))
			empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
		if (d)
			closedir(d);
		if (!ret && !empty && !o.force)
			ret = cisp_error(-EEXIST, "%s holds files already (use --force to save the captures there)",
					 o.save_dir);
	}
	/* The outputs are made first: an existing one fails before the captures, which take a while. */
	for (int i = 0; i < 3 && !ret; i++)
		if (paths[i])
			ret = create_output(&files[i], paths[i], o.force, inputs);
	if (!ret)
		ret = run(&o, argc, argv, files);
	for (int i = 0; i < 3; i++)
		if (files[i]) {
			int r = finish_output(files[i], ret, o.force);

			if (!ret)
				ret = r;
		}
	if (ret)
		fprintf(stderr, "cisp calibrate: %s\n", error_text());
	for (unsigned i = 0; i < o.count; i++)
		free(o.inputs[i].path);
	free(o.inputs);
	free(inputs);
	return ret ? 1 : 0;
}
