/* SPDX-License-Identifier: MIT */
/*
 * cisp iq: the image-quality suite, on a virtual camera (sensor + ISP, under
 * chosen illuminants) or on a photograph of a chart; prints a summary and
 * writes a JSON and an HTML report.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cisp/error.h>
#include <cisp/iq.h>
#include <cisp/iq_lab.h>
#include <cisp/isp.h>
#include <cisp/output_file.h>
#include <cisp/params_state.h>
#include <cisp/raster.h>
#include <cisp/raw_file.h>
#include <cisp/raw_frame.h>

#include "commands.h"
#include "options.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cisp iq [options]                      measure a virtual camera\n"
		"       cisp iq --chart KIND [options] IMAGE   measure a photograph of a chart\n"
		"\n"
		"Virtual camera: the virtual sensor photographs a ColorChecker under each\n"
		"illuminant and slanted-edge, grey-step, star and flat charts under the first,\n"
		"and (not in the ceiling) a stepped-range chart with local tone mapping and without,\n"
		"as the camera takes them: its tuning file and 3A loop (AE, AWB) settle on each\n"
		"chart and the software ISP develops the last frame with the loop's parameters;\n"
		"colour (against the patches' spectral truth), noise and sharpness are\n"
		"measured. A light the tuning was calibrated under is a fit, not accuracy, and\n"
		"is labelled so. --ceiling measures the ISP's ceiling instead: white balance\n"
		"and matrix fitted to the sensor's true responses of the very patches measured.\n"
		"Then the whole camera runs from a wrong start on the ColorChecker under each\n"
		"illuminant: frames to converge, final errors, colour against published values.\n"
		"\n"
		"options:\n"
		"  --sensor NAME         virtual sensor model (default cisp-8m10)\n"
		"  --tuning FILE         the camera's tuning (default: the sensor's own)\n"
		"  --ceiling             the ISP's ceiling: calibrated from the sensor's truth\n"
		"  --mode N              sensor mode index (default 0)\n"
		"  --illuminant LIST     comma-separated illuminants (default D65,A,F11)\n"
		"  --lux X               illuminance on the charts (default 400)\n"
		"  --demosaic fast|quality  (default quality)\n"
		"  --chart colorchecker|edge   measure IMAGE instead: a developed PNG/PPM, or a\n"
		"                        camera raw file (DNG, ...) developed here to linear\n"
		"                        sRGB with the file's own levels, white balance and\n"
		"                        colour matrix, without tone curve or sharpening\n"
		"  --corners X0,Y0,...,X3,Y3   colorchecker: outer corners of the patch grid,\n"
		"                        top-left, top-right, bottom-right, bottom-left\n"
		"                        (default: found automatically; the chart upright)\n"
		"  --roi X,Y,W,H         edge: the region holding the slanted edge\n"
		"  --transfer srgb|bt709|linear  IMAGE's transfer function (default srgb)\n"
		"  --normalize LIST      colorchecker: exposure and/or white (default exposure)\n"
		"  --json FILE           write the results as JSON\n"
		"  --html FILE           write the HTML report (one self-contained file)\n"
		"  --force               replace existing --json and --html files\n"
		"  --max-de00 X          fail (exit 1) when a mean dE00 exceeds X\n"
		"  --3a-frames N         frames of the 3A run per illuminant: the whole camera\n"
		"                        (tuning file, AE, AWB, AF) from a wrong start on the\n"
		"                        ColorChecker (default 40; 0: no 3A run)\n"
		"  -h, --help            this help\n");
}

struct iq_options {
	struct cisp_iq_lab lab;
	char illuminants[256];
	const char *chart, *corners, *roi, *json, *html, *image;
	enum cisp_transfer transfer;
	struct cisp_iq_color_options norm;
	double max_de00;
	unsigned long frames_3a;
	bool force;
};

static int parse_numbers(const char *option, const char *text, double *v, int n)
{
	const char *p = text;

	for (int i = 0; i < n; i++) {
		char *end;

		v[i] = strtod(p, &end);
		if (end == p || (i < n - 1 && *end != ',') || (i == n - 1 && *end)) {
			fprintf(stderr, "cisp iq: %s: '%s' is not %d comma-separated numbers\n", option, text, n);
			return -EINVAL;
		}
		p = end + 1;
	}
	return 0;
}

static int parse_options(int argc, char **argv, struct iq_options *o)
{
	enum { OPT_SENSOR = 256, OPT_MODE, OPT_ILL, OPT_LUX, OPT_DM, OPT_CHART, OPT_CORNERS, OPT_ROI, OPT_TRANSFER,
	       OPT_NORM, OPT_JSON, OPT_HTML, OPT_MAXDE, OPT_3A, OPT_FORCE, OPT_TUNING, OPT_CEILING };
	static const struct option longopts[] = {
		{ "sensor", required_argument, NULL, OPT_SENSOR }, { "mode", required_argument, NULL, OPT_MODE },
		{ "illuminant", required_argument, NULL, OPT_ILL }, { "lux", required_argument, NULL, OPT_LUX },
		{ "demosaic", required_argument, NULL, OPT_DM }, { "chart", required_argument, NULL, OPT_CHART },
		{ "corners", required_argument, NULL, OPT_CORNERS }, { "roi", required_argument, NULL, OPT_ROI },
		{ "transfer", required_argument, NULL, OPT_TRANSFER }, { "normalize", required_argument, NULL, OPT_NORM },
		{ "json", required_argument, NULL, OPT_JSON }, { "html", required_argument, NULL, OPT_HTML },
		{ "max-de00", required_argument, NULL, OPT_MAXDE }, { "3a-frames", required_argument, NULL, OPT_3A },
		{ "force", no_argument, NULL, OPT_FORCE }, { "tuning", required_argument, NULL, OPT_TUNING },
		{ "ceiling", no_argument, NULL, OPT_CEILING },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	int opt;

	memset(o, 0, sizeof(*o));
	o->lab.sensor = "cisp-8m10";
	o->lab.lux = 400;
	o->lab.demosaic = CISP_DEMOSAIC_QUALITY;
	snprintf(o->illuminants, sizeof(o->illuminants), "D65,A,F11");
	o->transfer = CISP_TRANSFER_SRGB;
	o->norm.exposure = true;
	o->max_de00 = INFINITY;
	o->frames_3a = 40;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_SENSOR: o->lab.sensor = optarg; break;
		case OPT_TUNING: o->lab.tuning = optarg; break;
		case OPT_CEILING: o->lab.calibration = CISP_IQ_LAB_CEILING; break;
		case OPT_MODE:
			if (parse_uint("--mode", optarg, 0, 63, &v))
				return -EINVAL;
			o->lab.mode = (unsigned)v;
			break;
		case OPT_ILL: snprintf(o->illuminants, sizeof(o->illuminants), "%s", optarg); break;
		case OPT_LUX:
			if (parse_double("--lux", optarg, 0.01, 1e6, &o->lab.lux))
				return -EINVAL;
			break;
		case OPT_DM:
			if (strcmp(optarg, "fast") && strcmp(optarg, "quality")) {
				fprintf(stderr, "cisp iq: --demosaic takes fast or quality, not '%s'\n", optarg);
				return -EINVAL;
			}
			o->lab.demosaic = strcmp(optarg, "fast") ? CISP_DEMOSAIC_QUALITY : CISP_DEMOSAIC_FAST;
			break;
		case OPT_CHART: o->chart = optarg; break;
		case OPT_CORNERS: o->corners = optarg; break;
		case OPT_ROI: o->roi = optarg; break;
		case OPT_TRANSFER:
			if (!strcmp(optarg, "srgb"))
				o->transfer = CISP_TRANSFER_SRGB;
			else if (!strcmp(optarg, "bt709"))
				o->transfer = CISP_TRANSFER_BT709;
			else if (!strcmp(optarg, "linear"))
				o->transfer = CISP_TRANSFER_LINEAR;
			else {
				fprintf(stderr, "cisp iq: --transfer takes srgb, bt709 or linear, not '%s'\n", optarg);
				return -EINVAL;
			}
			break;
		case OPT_NORM:
			o->norm.exposure = strstr(optarg, "exposure") != NULL;
			o->norm.white = strstr(optarg, "white") != NULL;
			if (!o->norm.exposure && !o->norm.white && strcmp(optarg, "none")) {
				fprintf(stderr, "cisp iq: --normalize takes exposure, white, both or none\n");
				return -EINVAL;
			}
			break;
		case OPT_JSON: o->json = optarg; break;
		case OPT_HTML: o->html = optarg; break;
		case OPT_FORCE: o->force = true; break;
		case OPT_3A:
			if (parse_uint("--3a-frames", optarg, 0, CISP_IQ_MAX_FRAMES, &o->frames_3a) ||
			    (o->frames_3a && o->frames_3a < 8)) {
				fprintf(stderr, "cisp iq: --3a-frames takes 0 or 8..%d\n", CISP_IQ_MAX_FRAMES);
				return -EINVAL;
			}
			break;
		case OPT_MAXDE:
			if (parse_double("--max-de00", optarg, 0, 1000, &o->max_de00))
				return -EINVAL;
			break;
		case 'h': usage(stdout); return 1;
		default:
			bad_option(argv, "h");
			return -EINVAL;
		}
	}
	if (o->chart) {
		if (optind != argc - 1) {
			fprintf(stderr, "cisp iq: --chart needs one IMAGE\n");
			return -EINVAL;
		}
		o->image = argv[optind];
		if (strcmp(o->chart, "colorchecker") && strcmp(o->chart, "edge")) {
			fprintf(stderr, "cisp iq: --chart takes colorchecker or edge, not '%s'\n", o->chart);
			return -EINVAL;
		}
		if (!strcmp(o->chart, "edge") && !o->roi) {
			fprintf(stderr, "cisp iq: --chart edge needs --roi X,Y,W,H\n");
			return -EINVAL;
		}
	} else if (optind != argc) {
		fprintf(stderr, "cisp iq: unexpected argument '%s' (IMAGE goes with --chart)\n", argv[optind]);
		return -EINVAL;
	}
	if (o->lab.tuning && o->lab.calibration == CISP_IQ_LAB_CEILING) {
		fprintf(stderr, "cisp iq: --tuning and --ceiling do not go together (the ceiling uses no tuning)\n");
		return -EINVAL;
	}
	return 0;
}

static void print_color(const char *label, const struct cisp_iq_color_result *c)
{
	printf("%-22s mean dE00 %5.2f  max %5.2f (%s)  chromatic %5.2f  WB error %4.2f deg\n", label, c->mean_de00,
	       c->max_de00, c->patch[c->max_patch].name, c->mean_de00_chromatic, c->wb_error_deg);
}

static void print_sfr(const char *label, const struct cisp_iq_sfr_result *s)
{
	printf("%-30s MTF50 %.3f c/p  MTF@Nyq/2 %.3f  MTF@Nyq %.3f  overshoot %.1f%%  angle %.1f\n", label, s->mtf50,
	       s->mtf_nyq2, s->mtf_nyq, s->overshoot_pct, s->angle_deg);
}

/* The grey steps, the Siemens star and the flat field, under the first illuminant. */
static int run_charts(struct iq_options *o, struct cisp_iq_report *r, const struct cisp_iq_lab_color *c)
{
	struct cisp_iq_lab_steps *st = calloc(1, sizeof(*st));
	struct cisp_iq_lab_star *star = calloc(1, sizeof(*star));
	struct cisp_iq_lab_flat *flat = calloc(1, sizeof(*flat));
	char label[96];
	int ret = st && star && flat ? 0 : cisp_error(-ENOMEM, "out of memory");

	if (!ret)
		ret = cisp_iq_lab_steps(&o->lab, c, true, st);
	if (!ret) {
		const struct cisp_iq_dynamic_range *d = st->noise.dr;

		printf("%-30s dynamic range %.1f EV%s at SNR 1, %.1f EV%s at SNR 10; SNR at 18%% grey %.1f dB\n",
		       "grey steps", d[0].ev, d[0].lower_bound ? "+" : "", d[1].ev, d[1].lower_bound ? "+" : "",
		       20 * log10(st->noise.step[4].snr_y));
		d = st->raw_noise.dr;
		printf("%-30s dynamic range %.1f EV%s at SNR 1, %.1f EV%s at SNR 10\n", "grey steps, raw green", d[0].ev,
		       d[0].lower_bound ? "+" : "", d[1].ev, d[1].lower_bound ? "+" : "");
		snprintf(label, sizeof(label), "grey step chart, %s, ISP output", c->illuminant);
		cisp_iq_report_noise(r, label, &st->noise);
		snprintf(label, sizeof(label), "grey step chart, %s, raw green (the sensor)", c->illuminant);
		cisp_iq_report_noise(r, label, &st->raw_noise);
		snprintf(label, sizeof(label), "grey step chart, %s", c->illuminant);
		cisp_iq_report_image(r, label, &st->picture, 1.0);
		ret = cisp_iq_lab_star(&o->lab, c, true, star);
	}
	if (!ret) {
		printf("%-30s false colour: mean C* %.2f, 99th percentile %.1f, %.2f%% of pixels above 5\n",
		       "Siemens star", star->false_color.mean_chroma, star->false_color.p99_chroma,
		       100 * star->false_color.fraction_visible);
		cisp_iq_report_false_color(r, "Siemens star (inscribed square)", &star->false_color);
		cisp_iq_report_image(r, "Siemens star", &star->picture, 1.0);
		ret = cisp_iq_lab_flat(&o->lab, c, true, flat);
	}
	if (!ret) {
		printf("%-30s darkest block %.1f%% of the centre before LSC, %.1f%% after; colour %.1f%% -> %.1f%%\n",
		       "flat field", 100 * flat->before.luma_min, 100 * flat->after.luma_min,
		       flat->before.color_max_pct, flat->after.color_max_pct);
		cisp_iq_report_shading(r, "flat field, no lens-shading correction", &flat->before);
		cisp_iq_report_shading(r,
				       o->lab.calibration == CISP_IQ_LAB_CEILING
					       ? "flat field, LSC calibrated from a noiseless flat field (ceiling)"
					       : "flat field, the camera's lens-shading correction (its tuning)",
				       &flat->after);
		cisp_iq_report_image(r, "flat field after LSC", &flat->picture, 1.0);
	}
	if (st)
		cisp_iq_image_free(&st->picture);
	if (star)
		cisp_iq_image_free(&star->picture);
	if (flat)
		cisp_iq_image_free(&flat->picture);
	free(st);
	free(star);
	free(flat);
	return ret;
}

/* The stepped-range chart through the camera, with its local tone mapping and without (camera mode only). */
static int run_dynamic_range(struct iq_options *o, struct cisp_iq_report *r, const struct cisp_iq_lab_color *c)
{
	struct cisp_iq_lab_dynamic_range *d = calloc(1, sizeof(*d));
	const struct cisp_iq_contrast_range_result *res[2];
	double x[2][CISP_IQ_LAB_RANGE_BANDS], y[2][CISP_IQ_LAB_RANGE_BANDS];
	char label[160], text[256];
	int ret = d ? cisp_iq_lab_dynamic_range(&o->lab, c, true, d) : cisp_error(-ENOMEM, "out of memory");

	if (ret) {
		free(d);
		return ret;
	}
	res[0] = &d->range;
	res[1] = &d->range_off;
	for (int i = 0; i < 2; i++) {
		const struct cisp_iq_contrast_range_result *e = res[i];
		const struct cisp_iq_halo_result *h = i ? &d->halo_off : &d->halo;

		snprintf(text, sizeof(text), "%.0f stops kept (bands %d to %d); halo at a 6-stop edge %.2f%% over, %.2f%% under",
			 e->stops, e->top < 0 ? 0 : (int)e->band[e->top].stops, e->bottom < 0 ? 0 : (int)e->band[e->bottom].stops,
			 h->overshoot_pct, h->undershoot_pct);
		snprintf(label, sizeof(label), "dynamic range, %s, camera, %s", c->illuminant,
			 i ? "LTM off" : d->ltm ? "LTM on (its tuning)" : "LTM off (its tuning)");
		printf("%-30s %s\n", label, text);
		cisp_iq_report_info(r, label, text);
		snprintf(label, sizeof(label), "halo at a 6-stop edge, %s, camera, %s (larger of over- and undershoot)",
			 c->illuminant, i ? "LTM off" : "its default");
		cisp_iq_report_check(r, label, fmax(h->overshoot_pct, h->undershoot_pct), "%", "<=", 3);
		for (unsigned k = 0; k < e->count; k++) {
			x[i][k] = e->band[k].stops;
			y[i][k] = e->band[k].michelson;
		}
	}
	snprintf(label, sizeof(label), "stepped-range chart, %s, camera: texture contrast per band (kept at 0.02 and 1 code)",
		 c->illuminant);
	cisp_iq_report_plot(r, label, "scene luminance, stops from the brightest band", "Michelson contrast of the output",
			    false, false,
			    (const struct cisp_iq_plot_series[]){ { "the camera's default", x[0], y[0], res[0]->count, true },
								  { "LTM off", x[1], y[1], res[1]->count, true } },
			    2);
	snprintf(label, sizeof(label), "stepped-range chart, %s, camera's default", c->illuminant);
	cisp_iq_report_image(r, label, &d->picture, 1.0);
	cisp_iq_image_free(&d->picture);
	free(d);
	return 0;
}

/* Frames to converge and the final error (times @scale, in @unit). */
static void print_convergence(const char *what, const struct cisp_iq_convergence *c, double scale, const char *unit)
{
	if (c->converged)
		printf(" %s %d frames (final error %.2f%s)", what, c->frames, c->final_error * scale, unit);
	else
		printf(" %s NOT converged (final error %.2f%s)", what, c->final_error * scale, unit);
}

/* The whole camera on the ColorChecker under each illuminant. */
static int run_3a(struct iq_options *o, struct cisp_iq_report *r)
{
	char list[256], *save = NULL;
	int ret = 0;

	snprintf(list, sizeof(list), "%s", o->illuminants);
	for (char *ill = strtok_r(list, ",", &save); ill && !ret; ill = strtok_r(NULL, ",", &save)) {
		struct cisp_iq_lab_3a *a = calloc(1, sizeof(*a));
		char label[128];

		if (!a)
			return cisp_error(-ENOMEM, "out of memory");
		ret = cisp_iq_lab_3a(&o->lab, ill, (unsigned)o->frames_3a, false, a);
		if (!ret) {
			snprintf(label, sizeof(label), "3A, %s", ill);
			printf("%-22s", label);
			print_convergence("AE", &a->ae, 100, "%");
			print_convergence("AWB", &a->awb, 1, " deg");
			print_convergence("AF", &a->af, 1, " steps");
			printf("\n");
			snprintf(label, sizeof(label), "ColorChecker, %s, camera tuning + AWB", ill);
			print_color(label, &a->color);
			snprintf(label, sizeof(label), "AE, %s", ill);
			cisp_iq_report_convergence(r, label, "measured / target", &a->ae);
			snprintf(label, sizeof(label), "AWB, %s", ill);
			cisp_iq_report_convergence(r, label, "degrees from neutral", &a->awb);
			snprintf(label, sizeof(label), "AF, %s", ill);
			cisp_iq_report_convergence(r, label, "lens position", &a->af);
			snprintf(label, sizeof(label), "ColorChecker through the camera's tuning and AWB, %s", ill);
			cisp_iq_report_color(r, label, &a->color);
			if (isfinite(o->max_de00)) {
				snprintf(label, sizeof(label), "camera mean dE00, %s", ill);
				cisp_iq_report_check(r, label, a->color.mean_de00, "", "<=", o->max_de00);
			}
		}
		free(a);
	}
	return ret;
}

/* What a colour result is: accuracy on a held-out light, or a fit. */
static const char *fit_note(const struct iq_options *o, enum cisp_iq_lab_fit fit)
{
	if (o->lab.calibration == CISP_IQ_LAB_CEILING)
		return "ceiling: fitted on these patches, not accuracy";
	return fit == CISP_IQ_LAB_HELD_OUT ? "camera, a light the tuning was not calibrated under: accuracy"
	       : fit == CISP_IQ_LAB_FITTED ? "camera, a light the tuning was calibrated under: a fit, not accuracy"
					   : "camera, a tuning that does not say what it was calibrated on";
}

/* The camera run: colour per illuminant, then sharpness under the first, then the 3A runs. */
static int run_camera(struct iq_options *o, struct cisp_iq_report *r)
{
	struct cisp_iq_lab_color *first = NULL;
	char list[256], *save = NULL, text[512];
	bool ceiling = o->lab.calibration == CISP_IQ_LAB_CEILING;
	int ret = 0, n = 0;

	snprintf(text, sizeof(text), "virtual:%s, mode %u, %g lux", o->lab.sensor, o->lab.mode, o->lab.lux);
	cisp_iq_report_info(r, "camera", text);
	if (ceiling) {
		snprintf(text, sizeof(text), "ISP ceiling: the software reference with BLC, DPC, WB and CCM calibrated from "
					     "the sensor's truth of the patches measured, %s demosaic, lens shading off but "
					     "for the flat field, linear output: not the camera's accuracy",
			 o->lab.demosaic ? "quality" : "fast");
	} else {
		snprintf(text, sizeof(text), "camera: tuning %s and its 3A loop (AE and AWB settle on each chart, the lens "
					     "focused on it); the software reference develops the last frame with the loop's "
					     "parameters; colour against the patches' spectral truth",
			 o->lab.tuning ? o->lab.tuning : "of the sensor (cisp_tuning_find)");
	}
	cisp_iq_report_info(r, "mode", text);
	cisp_iq_report_info(r, "illuminants", o->illuminants);
	snprintf(list, sizeof(list), "%s", o->illuminants);
	for (char *ill = strtok_r(list, ",", &save); ill && !ret; ill = strtok_r(NULL, ",", &save)) {
		struct cisp_iq_lab_color *c = calloc(1, sizeof(*c));
		char label[192];

		if (!c)
			return cisp_error(-ENOMEM, "out of memory");
		ret = cisp_iq_lab_color(&o->lab, ill, n == 0, c);
		if (ret) {
			free(c);
			break;
		}
		snprintf(label, sizeof(label), "ColorChecker, %s", ill);
		print_color(label, &c->color);
		printf("%-22s (%s)\n", "", fit_note(o, c->fit));
		snprintf(label, sizeof(label), "ColorChecker, %s (%s)", ill, fit_note(o, c->fit));
		printf("%-22s SNR (luma, dB) of the neutral row:", "");
		for (unsigned k = 0; k < c->noise.count; k++)
			printf(" %.1f", 20 * log10(c->noise.step[k].snr_y));
		printf("\n");
		cisp_iq_report_color(r, label, &c->color);
		snprintf(label, sizeof(label), "ColorChecker neutral row, %s, %s", ill, ceiling ? "ceiling" : "camera");
		cisp_iq_report_noise(r, label, &c->noise);
		snprintf(label, sizeof(label), "ColorChecker mean dE00, %s, %s", ill, ceiling ? "ceiling" : "camera");
		if (isfinite(o->max_de00))
			cisp_iq_report_check(r, label, c->color.mean_de00, "", "<=", o->max_de00);
		if (n++ == 0) {
			cisp_iq_report_image(r, "ColorChecker, first illuminant", &c->picture, 1.0);
			first = c;
		} else {
			free(c);
		}
	}
	if (!ret && first) {
		struct cisp_iq_lab_sharpness *s = calloc(1, sizeof(*s));

		ret = s ? cisp_iq_lab_sharpness(&o->lab, first, true, s) : -ENOMEM;
		for (int i = 0; !ret && i < CISP_IQ_LAB_EDGES; i++) {
			print_sfr(s->label[i], &s->sfr[i]);
			cisp_iq_report_sfr(r, s->label[i], &s->sfr[i]);
		}
		if (!ret)
			cisp_iq_report_image(r, "slanted-edge chart", &s->picture, 1.0);
		if (s)
			cisp_iq_image_free(&s->picture);
		free(s);
	}
	if (!ret && first)
		ret = run_charts(o, r, first);
	if (!ret && first && !ceiling)
		ret = run_dynamic_range(o, r, first);
	if (!ret && o->frames_3a)
		ret = run_3a(o, r);
	if (first)
		cisp_iq_image_free(&first->picture);
	free(first);
	return ret;
}

static bool is_raster_path(const char *path)
{
	const char *dot = strrchr(path, '.');
	static const char *const ext[] = { "png", "ppm", "pgm", "pnm" };

	for (size_t i = 0; dot && i < sizeof(ext) / sizeof(ext[0]); i++)
		if (!strcasecmp(dot + 1, ext[i]))
			return true;
	return false;
}

/*
 * A camera raw file developed for measurement: 16-bit linear sRGB from the
 * file's black and white levels, white balance and colour matrix, with no
 * stage that changes what a metric sees (defect correction, tone curve,
 * 3D LUT, sharpening).
 */
static int develop_linear(const char *path, struct cisp_iq_image *img)
{
	struct cisp_raw_frame frame;
	struct cisp_isp_config cfg = { 0 };
	struct cisp_isp *isp = NULL;
	struct cisp_image out = { 0 };
	struct cisp_image *outputs[CISP_MAX_OUTPUTS] = { &out, NULL };
	struct cisp_param_state *state = malloc(sizeof(*state));
	int ret = state ? cisp_raw_read_file(path, &frame) : -ENOMEM;

	if (ret) {
		free(state);
		return ret;
	}
	cfg.input_format = frame.image.format;
	cfg.width = frame.image.width;
	cfg.height = frame.image.height;
	cfg.output[0].format = CISP_FMT_RGB48;
	cfg.output[0].width = frame.image.width;
	cfg.output[0].height = frame.image.height;
	cisp_param_state_init(state);
	ret = cisp_raw_frame_params(&frame, state);
	state->enabled &= ~(CISP_BLOCK_BIT(CISP_BLOCK_DPC) | CISP_BLOCK_BIT(CISP_BLOCK_TONE) |
			    CISP_BLOCK_BIT(CISP_BLOCK_LUT3D) | CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN));
	if (!ret)
		ret = cisp_isp_create(&isp, &cfg);
	if (!ret)
		ret = cisp_isp_set_state(isp, state, ~0u);
	if (!ret)
		ret = cisp_image_alloc(&out, CISP_FMT_RGB48, cfg.output[0].width, cfg.output[0].height);
	if (!ret)
		ret = cisp_isp_process(isp, &frame.image, outputs, NULL, NULL);
	if (!ret)
		ret = cisp_iq_image_from_cisp(img, &out, CISP_TRANSFER_LINEAR);
	if (ret)
		ret = cisp_error_prefix(ret, "%s", path);
	cisp_image_free(&out);
	cisp_isp_destroy(isp);
	cisp_raw_frame_free(&frame);
	free(state);
	return ret;
}

/* A photograph of a chart. */
static int run_chart(struct iq_options *o, struct cisp_iq_report *r)
{
	struct cisp_raster ras;
	struct cisp_iq_image img;
	int ret;

	if (is_raster_path(o->image)) {
		ret = cisp_raster_read(o->image, &ras);
		if (ret)
			return ret;
		ret = cisp_iq_image_from_raster(&img, &ras, o->transfer);
		cisp_raster_free(&ras);
	} else {
		ret = develop_linear(o->image, &img);
	}
	if (ret)
		return ret;
	cisp_iq_report_info(r, "image", o->image);
	if (!strcmp(o->chart, "colorchecker")) {
		double c[8], corners[4][2], meas[24][3];
		struct cisp_iq_rect rects[24];
		static struct cisp_iq_color_result res;

		if (o->corners) {
			ret = parse_numbers("--corners", o->corners, c, 8) ? -EINVAL : 0;
			for (int i = 0; i < 4; i++) {
				corners[i][0] = c[2 * i];
				corners[i][1] = c[2 * i + 1];
			}
		} else {
			double sc;
			char text[200];

			ret = cisp_iq_find_colorchecker(&img, corners, &sc);
			if (!ret) {
				snprintf(text, sizeof(text), "found at %.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f (match %.3f)",
					 corners[0][0], corners[0][1], corners[1][0], corners[1][1], corners[2][0],
					 corners[2][1], corners[3][0], corners[3][1], sc);
				printf("ColorChecker %s\n", text);
				cisp_iq_report_info(r, "chart corners", text);
			}
		}
		if (!ret)
			cisp_iq_chart_patches((const double(*)[2])corners, 6, 4, 0.5, rects);
		for (int i = 0; i < 24 && !ret; i++) {
			struct cisp_iq_patch_stats st;

			ret = cisp_iq_patch_stats(&img, &rects[i], false, &st);
			if (ret)
				ret = cisp_error_prefix(ret, "ColorChecker patch %d (%s)", i + 1,
							cisp_iq_colorchecker()[i].name);
			for (int k = 0; k < 3; k++)
				meas[i][k] = img.channels == 3 ? st.mean[k] : st.mean[0];
		}
		if (!ret)
			ret = cisp_iq_colorchecker_evaluate((const double(*)[3])meas, &o->norm, &res);
		if (!ret) {
			print_color("ColorChecker", &res);
			cisp_iq_report_color(r, "ColorChecker (published D50 values)", &res);
			if (isfinite(o->max_de00))
				cisp_iq_report_check(r, "ColorChecker mean dE00", res.mean_de00, "", "<=", o->max_de00);
		}
	} else {
		double v[4];
		static struct cisp_iq_sfr_result s;

		ret = parse_numbers("--roi", o->roi, v, 4) ? -EINVAL : 0;
		if (!ret)
			ret = cisp_iq_sfr(&img, &(struct cisp_iq_rect){ (int32_t)v[0], (int32_t)v[1], (int32_t)v[2],
									(int32_t)v[3] },
					  -1, &s);
		if (!ret) {
			print_sfr("edge", &s);
			cisp_iq_report_sfr(r, "edge", &s);
		}
	}
	if (!ret)
		ret = cisp_iq_report_image(r, o->image, &img, 1.0);
	cisp_iq_image_free(&img);
	return ret;
}

int cmd_iq(int argc, char **argv)
{
	struct iq_options o;
	struct cisp_iq_report *r = NULL;
	struct cisp_output_file *json = NULL, *html = NULL;
	const char *inputs[2] = { NULL, NULL };
	unsigned failed = 0;
	int ret = parse_options(argc, argv, &o);

	if (ret)
		return ret < 0 ? 2 : 0;
	inputs[0] = o.image;
	/* Made first: an existing report fails before the measurements, which take a while. */
	if ((o.json && create_output(&json, o.json, o.force, inputs)) ||
	    (o.html && create_output(&html, o.html, o.force, inputs)) ||
	    cisp_iq_report_create(&r, o.chart ? "cisp iq: chart photograph" : "cisp iq: virtual camera"))
		goto fail;
	{
		char date[32], *cmd = command_line(argc, argv);

		utc_date(date, sizeof(date));
		cisp_iq_report_info(r, "cisp version", CISP_VERSION);
		cisp_iq_report_info(r, "command", cmd ? cmd : "");
		cisp_iq_report_info(r, "date", date);
		free(cmd);
	}
	cisp_clear_error();
	ret = o.chart ? run_chart(&o, r) : run_camera(&o, r);
	if (ret == -EINVAL && !cisp_last_error()[0])
		goto usage_fail;
	if (ret)
		goto fail;
	if (json) {
		ret = finish_output(json, cisp_iq_report_write_json_to(r, json), o.force);
		json = NULL;
		if (ret)
			goto fail;
	}
	if (html) {
		ret = finish_output(html, cisp_iq_report_write_html_to(r, html), o.force);
		html = NULL;
		if (ret)
			goto fail;
	}
	if (!cisp_iq_report_passed(r, &failed))
		printf("FAIL: %u check%s failed\n", failed, failed == 1 ? "" : "s");
	cisp_iq_report_destroy(r);
	return failed ? 1 : 0;
usage_fail:
	cisp_output_file_discard(json);
	cisp_output_file_discard(html);
	cisp_iq_report_destroy(r);
	return 2;
fail:
	fprintf(stderr, "cisp iq: %s\n", error_text());
	cisp_output_file_discard(json);
	cisp_output_file_discard(html);
	cisp_iq_report_destroy(r);
	return 1;
}
