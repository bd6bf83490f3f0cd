/* SPDX-License-Identifier: MIT */
/*
 * The calibration's report: what each estimator found, with the plots that
 * show it (photon transfer curves, shading before and after the tables, the
 * patches before and after each matrix, the white-balance curve, the edge).
 * A matrix measured on the patches it was fitted to is labelled a fit
 * residual; accuracy is what the patches left out and the lights left out
 * say.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate_internal.h"
#include "core/error_internal.h"

#define INFO(r, key, ...)                                        \
	do {                                                     \
		char text_[512];                                 \
		snprintf(text_, sizeof(text_), __VA_ARGS__);     \
		if (!ret)                                        \
			ret = cisp_iq_report_info((r), (key), text_); \
	} while (0)

static int report_black(const struct cisp_calib_result *res, struct cisp_iq_report *r)
{
	const struct cisp_calib_black *b = &res->black;
	int ret = 0;

	if (!b->frames)
		return cisp_iq_report_info(r, "black level", "no darks: the frames' stated black level is used");
	INFO(r, "black level", "R %.2f, Gr %.2f, Gb %.2f, B %.2f codes (%u darks); it moves by up to %.2f codes with gain",
	     b->level[0], b->level[1], b->level[2], b->level[3], b->frames, b->spread);
	INFO(r, "dark signal", "dark current %.3g codes/s at the lowest gain; DSNU %.3g codes rms%s", b->dark_current,
	     b->dsnu, b->dsnu > 0 ? "" : " (none above the darks' noise, or no pair of darks of one exposure to tell)");
	for (unsigned i = 0; i < b->groups; i++) {
		char key[64];

		snprintf(key, sizeof(key), "darks at gain %g, %g ms", b->group[i].gain, 1e3 * b->group[i].exposure_s);
		INFO(r, key, "%u frames: R %.2f, Gr %.2f, Gb %.2f, B %.2f codes; temporal noise %.3g codes rms",
		     b->group[i].frames, b->group[i].level[0], b->group[i].level[1], b->group[i].level[2],
		     b->group[i].level[3], b->group[i].temporal);
	}
	return ret;
}

static int report_noise(const struct cisp_calib_result *res, struct cisp_iq_report *r)
{
	const struct cisp_calib_noise *n = &res->noise;
	struct cisp_iq_plot_series s[8];
	double *x = NULL, *y = NULL;
	unsigned ns = 0;
	int ret = 0;

	if (!n->count)
		return cisp_iq_report_info(r, "noise", "no pairs of flats: no photon transfer curve");
	for (unsigned i = 0; i < n->count; i++) {
		const struct cisp_calib_noise_gain *g = &n->gain[i];
		char key[64];

		snprintf(key, sizeof(key), "noise at gain %g", g->gain);
		INFO(r, key,
		     "var = a s + b, a (R, Gr, Gb, B) %.4f %.4f %.4f %.4f, b %.4f %.4f %.4f %.4f; %.3f e/code, read noise "
		     "%.2f e, %s %.0f codes = %.0f e, dynamic range %.1f dB; %u tiles, rms %.1f%% off the line",
		     g->a[0], g->a[1], g->a[2], g->a[3], g->b[0], g->b[1], g->b[2], g->b[3], g->conversion_gain,
		     g->read_noise_e, g->saturated ? "saturation" : "saturation above", g->saturation, g->full_well_e,
		     g->dynamic_range_db, g->points, 100 * g->fit_rms);
	}
	/* The green tiles of the lowest gains (the plot holds 8 series: 4 gains, points and lines). */
	x = malloc(2 * ((size_t)n->num_points + 64) * sizeof(double));
	if (!x)
		return cisp_error(-ENOMEM, "out of memory");
	y = x + n->num_points + 64;
	for (unsigned i = 0, at = 0; i < n->count && ns + 2 <= 8; i++) {
		const struct cisp_calib_noise_gain *g = &n->gain[i];
		unsigned first = at, k = 0;
		char name[64];

		for (unsigned p = 0; p < n->num_points; p++)
			if (fabs(n->points[p].gain - g->gain) < 1e-3 * g->gain && n->points[p].channel == 1 &&
			    n->points[p].signal > 0) {
				x[at] = n->points[p].signal;
				y[at++] = n->points[p].variance;
				k++;
			}
		snprintf(name, sizeof(name), "gain %g, Gr tiles", g->gain);
		s[ns++] = (struct cisp_iq_plot_series){ strdup(name), x + first, y + first, k, false };
		first = at;
		for (int j = 0; j < 16 && at < n->num_points + 64; j++) {
			double sig = g->saturation * pow(1000, (j - 15) / 15.0);

			x[at] = sig;
			y[at++] = g->a[1] * sig + g->b[1];
		}
		snprintf(name, sizeof(name), "gain %g, fit", g->gain);
		s[ns++] = (struct cisp_iq_plot_series){ strdup(name), x + first, y + first, at - first, true };
	}
	if (!ret)
		ret = cisp_iq_report_plot(r, "photon transfer curve (temporal variance against signal)",
					  "signal above black, codes", "variance, codes^2", true, true, s, ns);
	for (unsigned i = 0; i < ns; i++)
		free((char *)s[i].name);
	free(x);
	return ret;
}

/* A 15 x 15 map of a level over the frame (@fn at each block's centre) into a shading result. */
static void shading_map(struct cisp_iq_shading_result *m, const struct cisp_calib_shading_table *t,
			const struct cisp_calib_result *res, bool corrected, const struct cisp_calib *c)
{
	const unsigned n = 15;
	double rgb[15 * 15][3], centre[3];
	int g = calib_flat_best_group(&c->flat, t->illuminant, 1);

	memset(m, 0, sizeof(*m));
	m->grid = n;
	for (unsigned j = 0; j < n; j++)
		for (unsigned i = 0; i < n; i++) {
			double x = (i + 0.5) * res->width / n, y = (j + 0.5) * res->height / n, v[4];

			for (unsigned ch = 0; ch < 4; ch++) {
				double gain = calib_shading_gain(t, res->width, res->height, ch, x, y);

				/* Uncorrected: the relative illumination the table undoes; corrected: the flat's blocks times it. */
				v[ch] = 1 / gain;
				if (corrected && g >= 0) {
					const struct calib_flat_group *fg = &c->flat.group[g];
					unsigned bi = (unsigned)(x / res->width * fg->sum.gw), bj = (unsigned)(y / res->height * fg->sum.gh);
					double black = res->black.frames ? res->black.level[ch] : 0;

					v[ch] = (fg->sum.mean[ch * fg->sum.gw * fg->sum.gh + bj * fg->sum.gw + bi] / fg->frames - black) *
						gain;
				}
			}
			rgb[j * n + i][0] = v[0];
			rgb[j * n + i][1] = (v[1] + v[2]) / 2;
			rgb[j * n + i][2] = v[3];
		}
	memcpy(centre, rgb[(n / 2) * n + n / 2], sizeof(centre));
	m->luma_min = INFINITY;
	for (unsigned k = 0; k < n * n; k++) {
		double l = (0.2126 * rgb[k][0] + 0.7152 * rgb[k][1] + 0.0722 * rgb[k][2]) /
			   (0.2126 * centre[0] + 0.7152 * centre[1] + 0.0722 * centre[2]);
		double cr = fabs(rgb[k][0] / rgb[k][1] / (centre[0] / centre[1]) - 1);
		double cb = fabs(rgb[k][2] / rgb[k][1] / (centre[2] / centre[1]) - 1);

		m->luma[k] = l;
		m->color[k] = 100 * fmax(cr, cb);
		m->luma_min = fmin(m->luma_min, l);
		m->color_max_pct = fmax(m->color_max_pct, m->color[k]);
		m->luma_nonuniformity_pct = fmax(m->luma_nonuniformity_pct, 100 * fabs(l - 1));
	}
	m->luma_corner = (m->luma[0] + m->luma[n - 1] + m->luma[n * (n - 1)] + m->luma[n * n - 1]) / 4;
}

static int report_shading(const struct cisp_calib *c, const struct cisp_calib_result *res, struct cisp_iq_report *r)
{
	const struct cisp_calib_shading *s = &res->shading;
	struct cisp_iq_shading_result *m = malloc(sizeof(*m));
	int ret = m ? 0 : cisp_error(-ENOMEM, "out of memory");

	if (!s->count) {
		free(m);
		return cisp_iq_report_info(r, "shading", "no usable flat (a flat at 15..90% of the range): no shading table");
	}
	for (unsigned i = 0; i < s->count && !ret; i++) {
		const struct cisp_calib_shading_table *t = &s->table[i];
		char key[128];

		snprintf(key, sizeof(key), "shading, %s (%.0f K)", t->illuminant[0] ? t->illuminant : "light not given",
			 t->ct);
		INFO(r, key,
		     "flats at %.0f%% of the range; corners at %.1f%% (R), %.1f%% (Gr), %.1f%% (Gb), %.1f%% (B) of the "
		     "brightest; after the table the flats' blocks depart at most %.2f%% from their mean",
		     100 * t->level, 100 * t->falloff[0], 100 * t->falloff[1], 100 * t->falloff[2], 100 * t->falloff[3],
		     t->residual_pct);
		shading_map(m, t, res, false, c);
		snprintf(key, sizeof(key), "relative illumination the table undoes, %.0f K", t->ct);
		if (!ret)
			ret = cisp_iq_report_shading(r, key, m);
		shading_map(m, t, res, true, c);
		snprintf(key, sizeof(key), "the flats after the table, %.0f K", t->ct);
		if (!ret)
			ret = cisp_iq_report_shading(r, key, m);
	}
	INFO(r, "PRNU", "%.3g%% rms (pixel gain errors, noise taken out)", 100 * s->prnu);
	free(m);
	return ret;
}

static int report_colour(const struct cisp_calib_result *res, struct cisp_iq_report *r)
{
	const struct cisp_calib_colour *col = &res->colour;
	struct cisp_iq_plot_series s[3];
	double cx[CISP_CALIB_MAX_TABLE], cy[CISP_CALIB_MAX_TABLE], px[CISP_CALIB_MAX_TABLE], py[CISP_CALIB_MAX_TABLE];
	double ox[CISP_CALIB_MAX_TABLE], oy[CISP_CALIB_MAX_TABLE];
	unsigned np = 0, no = 0, ns = 0;
	int ret = 0;

	if (!col->count)
		return cisp_iq_report_info(r, "colour", "no charts: no colour matrices or white-balance curve");
	for (unsigned i = 0; i < col->count && !ret; i++) {
		const struct cisp_calib_chart *ch = &col->chart[i];
		char key[160];

		snprintf(key, sizeof(key), "chart under %s", ch->illuminant);
		INFO(r, key,
		     "%.0f K%s; white patch at %.0f%% of the range; grey R/G %.4f, B/G %.4f; matrix fit residual mean "
		     "dE00 %.2f, max %.2f (on the patches fitted); each patch left out of the fit: mean %.2f, max %.2f "
		     "(accuracy on colours not fitted)",
		     ch->ct, ch->on_locus ? "" : " (off the Planckian curve)", 100 * ch->white_level, ch->grey[0],
		     ch->grey[1], ch->fit.mean_de00, ch->fit.max_de00, ch->loo_mean_de00, ch->loo_max_de00);
		snprintf(key, sizeof(key), "%s: white-balanced, no matrix", ch->illuminant);
		if (!ret)
			ret = cisp_iq_report_color(r, key, &ch->raw);
		snprintf(key, sizeof(key), "%s: through its own matrix (fit residual on the fitted patches, not accuracy)",
			 ch->illuminant);
		if (!ret)
			ret = cisp_iq_report_color(r, key, &ch->fit);
		if (ch->on_locus) {
			px[np] = ch->grey[0];
			py[np++] = ch->grey[1];
		} else {
			ox[no] = ch->grey[0];
			oy[no++] = ch->grey[1];
		}
	}
	for (unsigned i = 0; i < col->count && col->count >= 3 && !ret; i++) {
		const struct cisp_calib_held_out *h = &col->held_out[i];
		char key[160];

		if (!h->ct)
			continue;
		snprintf(key, sizeof(key),
			 "%s left out: the other lights' curve (%.0f K, %.3f off it) and matrices (held out: accuracy)",
			 h->illuminant, h->ct, h->curve_distance);
		ret = cisp_iq_report_color(r, key, &h->color);
	}
	for (unsigned i = 0; i < col->curve_count; i++) {
		cx[i] = col->curve[i].r_over_g;
		cy[i] = col->curve[i].b_over_g;
	}
	s[ns++] = (struct cisp_iq_plot_series){ "the curve", cx, cy, col->curve_count, true };
	if (np)
		s[ns++] = (struct cisp_iq_plot_series){ "Planckian and daylight charts", px, py, np, false };
	if (no)
		s[ns++] = (struct cisp_iq_plot_series){ "fluorescent and LED charts", ox, oy, no, false };
	INFO(r, "white-balance curve", "%u points from %.0f K to %.0f K; transverse band %.3f; lux reference %.4g",
	     col->curve_count, col->curve[0].ct, col->curve[col->curve_count - 1].ct, col->transverse, col->lux_scale);
	if (!ret)
		ret = cisp_iq_report_plot(r, "white-balance curve: camera colour of a grey", "R/G", "B/G", false, false, s,
					  ns);
	return ret;
}

/* What chart frames said: the flat from their white areas, and the grey steps with their red and blue against green. */
static int report_chart_frames(const struct cisp_calib *c, struct cisp_iq_report *r)
{
	const struct cisp_calib_tone *t = c->tone;
	/* Series red, blue, and the left-out steps' red and blue. */
	double x[3][2 * CISP_CALIB_MAX_STEPS], y[3][2 * CISP_CALIB_MAX_STEPS];
	unsigned n[3] = { 0 };
	int ret = 0;

	for (unsigned i = 0; i < c->num_chart_flats; i++) {
		const struct cisp_calib_chart_flat *f = &c->chart_flat[i];

		INFO(r, "flat from a chart",
		     "%u white blocks (%.0f%% of the frame) reaching %.0f%% of the half-diagonal (the falloff beyond is "
		     "extrapolated); corner falloff R %.3f, Gr %.3f, Gb %.3f, B %.3f; fit residual %.2f%% rms, %.2f%% "
		     "largest",
		     f->blocks, 100 * f->coverage, 100 * f->radius_reached, f->falloff[0], f->falloff[1], f->falloff[2],
		     f->falloff[3], f->residual_rms_pct, f->table.residual_pct);
	}
	if (!t)
		return ret;
	if (t->black_found)
		INFO(r, "grey steps", "%u steps; black offset %.2f codes (red and blue estimates %.2f apart); channels' "
				      "largest departure from linear %.2f%%",
		     t->count, t->black, 2 * t->black_spread, t->linearity_pct);
	else
		INFO(r, "grey steps", "%u steps; the black offset cannot be told (too few neutral steps, or channels of "
				      "equal gain)",
		     t->count);
	INFO(r, "clip points", "R %.1f%s, Gr %.1f%s, Gb %.1f%s, B %.1f%s codes", t->clip[0],
	     t->clip_found[0] ? "" : " (no pile-up)", t->clip[1], t->clip_found[1] ? "" : " (no pile-up)", t->clip[2],
	     t->clip_found[2] ? "" : " (no pile-up)", t->clip[3], t->clip_found[3] ? "" : " (no pile-up)");
	for (unsigned i = 0; i < t->count; i++) {
		const struct cisp_calib_step *st = &t->step[i];

		for (int k = 0; k < 2; k++) {
			int d = st->neutral ? k : 2;

			x[d][n[d]] = (st->level[1] + st->level[2]) / 2;
			y[d][n[d]++] = st->level[k ? 3 : 0];
		}
	}
	if (!ret && n[0]) {
		const struct cisp_iq_plot_series s[3] = { { "red", x[0], y[0], n[0], false },
							  { "blue", x[1], y[1], n[1], false },
							  { "left out (clipped or not neutral)", x[2], y[2], n[2], false } };

		ret = cisp_iq_report_plot(r, "grey steps: red and blue against green (straight lines for linear channels)",
					  "green, codes", "red, blue, codes", false, false, s, n[2] ? 3 : 2);
	}
	return ret;
}

int cisp_calib_report(struct cisp_calib *c, struct cisp_iq_report *r)
{
	const struct cisp_calib_result *res = &c->result;
	unsigned kinds[4] = { 0 };
	int ret = 0;

	if (!c->solved)
		return cisp_error(-EINVAL, "calibration: not solved");
	for (unsigned i = 0; i < c->num_inputs; i++)
		kinds[c->inputs[i].kind]++;
	INFO(r, "sensor", "%s: %ux%u frames, white level %g, tuning in %u-bit codes", c->sensor, res->width, res->height,
	     res->white, res->bits);
	INFO(r, "captures", "%u darks, %u flats, %u charts, %u edges", kinds[0], kinds[1], kinds[2], kinds[3]);
	if (!ret)
		ret = report_black(res, r);
	if (!ret)
		ret = report_noise(res, r);
	if (!ret)
		ret = report_shading(c, res, r);
	INFO(r, "defects", "%u pixels for the static list (darks: above black by %.1f codes; flats: %.0f%% off their "
			   "neighbours)",
	     res->defects.count, res->defects.threshold_dark, 100 * res->defects.threshold_flat);
	if (!ret)
		ret = report_chart_frames(c, r);
	if (!ret)
		ret = report_colour(res, r);
	if (!ret && res->sharpness.valid) {
		INFO(r, "edge", "MTF50 %.3f c/p, MTF at 0.25 c/p %.3f (after the quality demosaic, before sharpening); "
				"sharpening %.2f lifts 0.25 c/p to 0.6",
		     res->sharpness.sfr.mtf50, res->sharpness.sfr.mtf_nyq2, res->sharpness.sharpen);
		if (!ret)
			ret = cisp_iq_report_sfr(r, "slanted edge, demosaicked, before sharpening", &res->sharpness.sfr);
	}
	return ret;
}
