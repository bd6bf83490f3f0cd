/* SPDX-License-Identifier: MIT */
/*
 * The HTML report: one file, inline CSS and SVG, no scripts and no links to
 * anything outside it, so it opens anywhere without a network.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "core/number.h"
#include "report_internal.h"

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
				       "#9467bd", "#8c564b", "#e377c2", "#17becf" };
#define PALETTE(i) palette[(i) % (sizeof(palette) / sizeof(palette[0]))]

static void esc(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
}

/* ---- SVG plots ---- */

struct plot {
	FILE *f;
	double x0, x1, y0, y1; /* data range */
	double left, top, w, h; /* plot area in SVG units */
	unsigned series;        /* legend entries so far */
};

static double px(const struct plot *p, double x)
{
	return p->left + (x - p->x0) / (p->x1 - p->x0) * p->w;
}

static double py(const struct plot *p, double y)
{
	return p->top + p->h - (y - p->y0) / (p->y1 - p->y0) * p->h;
}

/* A tick spacing of 1, 2 or 5 times a power of ten giving about @n ticks over @span. */
static double nice_step(double span, int n)
{
	double raw = span / n, mag = pow(10, floor(log10(raw))), r = raw / mag;

	return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
}

static void plot_begin(struct plot *p, FILE *f, int width, int height, const char *title, const char *xlabel,
		       const char *ylabel, double x0, double x1, double y0, double y1)
{
	double xs = nice_step(x1 - x0, 8), ys = nice_step(y1 - y0, 6);

	*p = (struct plot){ .f = f, .x0 = x0, .x1 = x1, .y0 = y0, .y1 = y1, .left = 56, .top = 30,
			    .w = width - 56 - 16, .h = height - 30 - 46 };
	fprintf(f, "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" role=\"img\"><title>", width, height, width, height);
	esc(f, title);
	fprintf(f, "</title>\n<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", width, height);
	fprintf(f, "<text x=\"%g\" y=\"18\" class=\"pt\">", p->left);
	esc(f, title);
	fputs("</text>\n", f);
	for (double x = ceil(x0 / xs - 1e-9) * xs; x <= x1 + 1e-9 * xs; x += xs) {
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>", px(p, x), p->top,
			px(p, x), p->top + p->h);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"tx\">%g</text>\n", px(p, x), p->top + p->h + 14,
			fabs(x) < 1e-12 ? 0 : x);
	}
	for (double y = ceil(y0 / ys - 1e-9) * ys; y <= y1 + 1e-9 * ys; y += ys) {
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>", p->left, py(p, y),
			p->left + p->w, py(p, y));
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"ty\">%g</text>\n", p->left - 5, py(p, y) + 4,
			fabs(y) < 1e-12 ? 0 : y);
	}
	fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" class=\"frame\"/>\n", p->left, p->top, p->w,
		p->h);
	fprintf(f, "<text x=\"%g\" y=\"%d\" class=\"xl\">", p->left + p->w / 2, height - 8);
	esc(f, xlabel);
	fprintf(f, "</text><text transform=\"translate(14 %g) rotate(-90)\" class=\"yl\">", p->top + p->h / 2);
	esc(f, ylabel);
	fputs("</text>\n", f);
}

static double clampy(const struct plot *p, double y)
{
	return fmin(fmax(y, p->y0 - 0.02 * (p->y1 - p->y0)), p->y1 + 0.02 * (p->y1 - p->y0));
}

static void plot_line(struct plot *p, const double *x, const double *y, unsigned n, const char *colour,
		      const char *dash)
{
	fprintf(p->f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s%s%s points=\"", colour,
		dash ? " stroke-dasharray=\"" : "", dash ? dash : "", dash ? "\"" : "");
	for (unsigned i = 0; i < n; i++)
		if (isfinite(x[i]) && isfinite(y[i]) && x[i] >= p->x0 && x[i] <= p->x1)
			fprintf(p->f, "%.1f,%.1f ", px(p, x[i]), py(p, clampy(p, y[i])));
	fputs("\"/>\n", p->f);
}

static void plot_points(struct plot *p, const double *x, const double *y, unsigned n, const char *colour)
{
	for (unsigned i = 0; i < n; i++)
		if (isfinite(x[i]) && isfinite(y[i]))
			fprintf(p->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>", px(p, x[i]),
				py(p, clampy(p, y[i])), colour);
	fputc('\n', p->f);
}

static void plot_hline(struct plot *p, double y, const char *label)
{
	if (y < p->y0 || y > p->y1)
		return;
	fprintf(p->f, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" class=\"ref\"/>", p->left, py(p, y),
		p->left + p->w, py(p, y));
	fprintf(p->f, "<text x=\"%g\" y=\"%.1f\" class=\"rl\">", p->left + p->w - 4, py(p, y) - 4);
	esc(p->f, label);
	fputs("</text>\n", p->f);
}

static void plot_vline(struct plot *p, double x, const char *label)
{
	if (x < p->x0 || x > p->x1)
		return;
	fprintf(p->f, "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" class=\"ref\"/>", px(p, x), p->top,
		px(p, x), p->top + p->h);
	fprintf(p->f, "<text x=\"%.1f\" y=\"%g\" class=\"vl\">", px(p, x) + 3, p->top + 12);
	esc(p->f, label);
	fputs("</text>\n", p->f);
}

static void plot_legend(struct plot *p, const char *label, const char *colour)
{
	double y = p->top + 14 + 16 * p->series++, x = p->left + p->w - 200;

	fprintf(p->f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"%s\" stroke-width=\"3\"/>", x,
		y - 4, x + 18, y - 4, colour);
	fprintf(p->f, "<text x=\"%g\" y=\"%g\" class=\"lg\">", x + 24, y);
	esc(p->f, label);
	fputs("</text>\n", p->f);
}

static void plot_end(struct plot *p)
{
	fputs("</svg>\n", p->f);
}

/* ---- sections ---- */

static const char *de_class(double de)
{
	return de <= 2 ? "good" : de <= 5 ? "fair" : "bad";
}

static void rgb_attr(FILE *f, const double c[3])
{
	fprintf(f, "rgb(%d,%d,%d)", (int)lrint(c[0] * 255), (int)lrint(c[1] * 255), (int)lrint(c[2] * 255));
}

static void html_color(FILE *f, const struct report_entry *e)
{
	const struct cisp_iq_color_result *c = e->u.color;
	unsigned cols = c->count == 24 ? 6 : c->count < 8 ? c->count : 8;
	unsigned rows = (c->count + cols - 1) / cols, cell = 104, lab_h = 34;
	int width = (int)(cols * cell), height = (int)(rows * (cell + lab_h));
	struct plot p;

	fputs("<h3>", f);
	esc(f, e->label);
	fprintf(f, "</h3>\n<p class=\"fig\">mean &Delta;E<sub>00</sub> <b>%.2f</b> &middot; max <b>%.2f</b> (", c->mean_de00,
		c->max_de00);
	esc(f, c->patch[c->max_patch].name);
	fprintf(f, ") &middot; chromatic patches %.2f &middot; mean &Delta;E<sub>ab</sub> %.2f &middot; "
		   "white-balance error %.2f&deg; &middot; exposure scale %.3f</p>\n",
		c->mean_de00_chromatic, c->mean_de76, c->wb_error_deg, c->exposure_scale);
	fputs("<div class=\"row\">", f);
	fprintf(f, "<svg class=\"swatches\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" role=\"img\"><title>reference (top) and measured (bottom) colours</title>\n",
		width, height, width, height);
	for (unsigned i = 0; i < c->count; i++) {
		const struct cisp_iq_color_patch *pa = &c->patch[i];
		unsigned x = (i % cols) * cell, y = (i / cols) * (cell + lab_h);

		fprintf(f, "<g class=\"patch\"><rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"", x + 2, y + 2,
			cell - 4, (cell - 4) / 2);
		rgb_attr(f, pa->ref_srgb);
		fprintf(f, "\"/><rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"", x + 2,
			y + 2 + (cell - 4) / 2, cell - 4, (cell - 4) / 2);
		rgb_attr(f, pa->srgb);
		fprintf(f, "\"/><text x=\"%u\" y=\"%u\" class=\"pn\">", x + cell / 2, y + cell + 10);
		esc(f, pa->name);
		fprintf(f, "</text><text x=\"%u\" y=\"%u\" class=\"de %s\">&#916;E %.2f</text></g>\n", x + cell / 2,
			y + cell + 26, de_class(pa->de00), pa->de00);
	}
	fputs("</svg>\n", f);
	/* a*b* plane: reference (ring) to measured (dot). */
	plot_begin(&p, f, 420, 420, "a*b* reference (ring) to measured (dot)", "a*", "b*", -80, 80, -80, 100);
	for (unsigned i = 0; i < c->count; i++) {
		const struct cisp_iq_color_patch *pa = &c->patch[i];

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" stroke-width=\"1\"/>",
			px(&p, pa->ref_lab[1]), py(&p, pa->ref_lab[2]), px(&p, pa->lab[1]), py(&p, pa->lab[2]));
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"none\" stroke=\"", px(&p, pa->ref_lab[1]),
			py(&p, pa->ref_lab[2]));
		rgb_attr(f, pa->ref_srgb);
		fprintf(f, "\" stroke-width=\"2.5\"/><circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"", px(&p, pa->lab[1]),
			py(&p, pa->lab[2]));
		rgb_attr(f, pa->srgb);
		fputs("\" stroke=\"#000\" stroke-width=\"0.5\"/>\n", f);
	}
	plot_end(&p);
	fputs("</div>\n<details><summary>patch table</summary><table><tr><th>patch</th><th>reference L*a*b*</th>"
	      "<th>measured L*a*b*</th><th>&Delta;E<sub>00</sub></th><th>&Delta;E<sub>ab</sub></th></tr>\n", f);
	for (unsigned i = 0; i < c->count; i++) {
		const struct cisp_iq_color_patch *pa = &c->patch[i];

		fputs("<tr><td>", f);
		esc(f, pa->name);
		fprintf(f, "</td><td>%.1f, %.1f, %.1f</td><td>%.1f, %.1f, %.1f</td><td class=\"%s\">%.2f</td><td>%.2f</td></tr>\n",
			pa->ref_lab[0], pa->ref_lab[1], pa->ref_lab[2], pa->lab[0], pa->lab[1], pa->lab[2],
			de_class(pa->de00), pa->de00, pa->de76);
	}
	fputs("</table></details>\n", f);
}

static void html_sfr(FILE *f, const struct cisp_iq_report *r)
{
	struct plot p;
	double fx[CISP_IQ_SFR_POINTS], ex[CISP_IQ_ESF_POINTS];
	unsigned k = 0;

	for (int i = 0; i < CISP_IQ_SFR_POINTS; i++)
		fx[i] = i / 100.0;
	for (int i = 0; i < CISP_IQ_ESF_POINTS; i++)
		ex[i] = (i - (CISP_IQ_ESF_POINTS - 1) / 2) * 0.25;
	fputs("<div class=\"row\">", f);
	plot_begin(&p, f, 560, 360, "MTF (slanted edge)", "cycles per pixel", "MTF", 0, 1, 0, 1.3);
	plot_hline(&p, 0.5, "MTF50");
	plot_vline(&p, 0.25, "Nyquist/2");
	plot_vline(&p, 0.5, "Nyquist");
	for (unsigned i = 0; i < r->count; i++)
		if (r->entries[i].kind == ENTRY_SFR) {
			plot_line(&p, fx, r->entries[i].u.sfr->mtf, CISP_IQ_SFR_POINTS, PALETTE(k), NULL);
			plot_legend(&p, r->entries[i].label, PALETTE(k));
			k++;
		}
	plot_end(&p);
	k = 0;
	plot_begin(&p, f, 420, 360, "edge profile", "pixels across the edge", "normalised level", -5, 5, -0.2, 1.3);
	plot_hline(&p, 1, "");
	plot_hline(&p, 0, "");
	for (unsigned i = 0; i < r->count; i++)
		if (r->entries[i].kind == ENTRY_SFR)
			plot_line(&p, ex, r->entries[i].u.sfr->esf, CISP_IQ_ESF_POINTS, PALETTE(k++), NULL);
	plot_end(&p);
	fputs("</div>\n<table><tr><th>edge</th><th>angle</th><th>MTF50 (c/p)</th><th>MTF at Nyquist/2</th>"
	      "<th>MTF at Nyquist</th><th>overshoot</th><th>undershoot</th><th>10&ndash;90% rise (px)</th></tr>\n", f);
	for (unsigned i = 0; i < r->count; i++) {
		const struct cisp_iq_sfr_result *s = r->entries[i].u.sfr;

		if (r->entries[i].kind != ENTRY_SFR)
			continue;
		fputs("<tr><td>", f);
		esc(f, r->entries[i].label);
		fprintf(f, "</td><td>%.1f&deg; %s</td><td><b>%.3f</b></td><td>%.3f</td><td>%.3f</td><td>%.1f%%</td>"
			   "<td>%.1f%%</td><td>%.2f</td></tr>\n",
			s->angle_deg, s->vertical ? "V" : "H", s->mtf50, s->mtf_nyq2, s->mtf_nyq, s->overshoot_pct,
			s->undershoot_pct, s->rise_10_90);
	}
	fputs("</table>\n", f);
}

static void html_noise(FILE *f, const struct report_entry *e, unsigned index)
{
	const struct cisp_iq_noise_result *n = e->u.noise;
	double x[CISP_IQ_MAX_STEPS], yl[CISP_IQ_MAX_STEPS], yc[CISP_IQ_MAX_STEPS], top = 0, lo = 0, hi = 40;
	struct plot p;
	bool has_chroma = false, any_clipped = false;

	(void)index;
	for (unsigned i = 0; i < n->count; i++) {
		has_chroma |= n->step[i].snr_c < CISP_IQ_SNR_MAX;
		any_clipped |= n->step[i].clipped;
	}
	for (unsigned i = 0; i < n->count; i++)
		top = fmax(top, n->step[i].level);
	for (unsigned i = 0; i < n->count; i++) {
		x[i] = log2(n->step[i].level / top);
		yl[i] = 20 * log10(fmax(n->step[i].snr_y, 1e-3));
		yc[i] = 20 * log10(fmax(n->step[i].snr_c, 1e-3));
		lo = fmin(lo, x[i]);
		hi = fmax(hi, fmin(yl[i], 80));
	}
	fputs("<h3>", f);
	esc(f, e->label);
	fprintf(f, "</h3>\n<p class=\"fig\">dynamic range: <b>%.1f EV</b>%s at SNR&nbsp;1 (%u steps), <b>%.1f EV</b>%s at "
		   "SNR&nbsp;10 (%u steps)</p>\n",
		n->dr[0].ev, n->dr[0].lower_bound ? " or more" : "", n->dr[0].steps, n->dr[1].ev,
		n->dr[1].lower_bound ? " or more" : "", n->dr[1].steps);
	if (any_clipped)
		fputs("<p class=\"fig\">Hollow points: steps with clipped pixels (at white, or clamped at black), "
		      "left out of the dynamic range.</p>\n", f);
	fputs("<div class=\"row\">", f);
	plot_begin(&p, f, 560, 340, "SNR against scene level", "EV below the brightest step", "SNR (dB)",
		   floor(lo) - 0.5, 0.5, -10, ceil(hi / 10) * 10 + 5);
	plot_hline(&p, 0, "SNR 1");
	plot_hline(&p, 20, "SNR 10");
	plot_line(&p, x, yl, n->count, PALETTE(0), NULL);
	plot_points(&p, x, yl, n->count, PALETTE(0));
	for (unsigned i = 0; i < n->count; i++)
		if (n->step[i].clipped)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#fff\" stroke=\"%s\" stroke-width=\"2\"/>",
				px(&p, x[i]), py(&p, fmin(fmax(yl[i], p.y0), p.y1)), PALETTE(0));
	plot_legend(&p, "luma", PALETTE(0));
	if (has_chroma) {
		plot_line(&p, x, yc, n->count, PALETTE(1), "6 4");
		plot_points(&p, x, yc, n->count, PALETTE(1));
		plot_legend(&p, "chroma", PALETTE(1));
	}
	plot_end(&p);
	fputs("</div>\n<details><summary>step table</summary><table><tr><th>level</th><th>mean Y</th><th>&sigma; Y</th>"
	      "<th>SNR Y (dB)</th><th>&sigma; chroma</th><th>SNR chroma (dB)</th><th></th></tr>\n", f);
	for (unsigned i = 0; i < n->count; i++)
		fprintf(f, "<tr><td>%.4g</td><td>%.4g</td><td>%.3g</td><td>%.1f</td><td>%.3g</td><td>%.1f</td><td>%s</td></tr>\n",
			n->step[i].level, n->step[i].stats.mean_y, n->step[i].stats.sd_y, yl[i],
			n->step[i].stats.sd_chroma, yc[i], n->step[i].clipped ? "clipped" : "");
	fputs("</table></details>\n", f);
}

static void html_shading(FILE *f, const struct report_entry *e)
{
	const struct cisp_iq_shading_result *s = e->u.shading;
	unsigned cell = 44, size = s->grid * cell;

	fputs("<h3>", f);
	esc(f, e->label);
	fprintf(f, "</h3>\n<p class=\"fig\">darkest block <b>%.1f%%</b> of the centre &middot; corners %.1f%% &middot; "
		   "non-uniformity %.1f%% &middot; largest colour deviation <b>%.1f%%</b></p>\n",
		100 * s->luma_min, 100 * s->luma_corner, s->luma_nonuniformity_pct, s->color_max_pct);
	fprintf(f, "<svg class=\"shading\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		   "role=\"img\"><title>block brightness relative to the centre</title>\n", size, size, size, size);
	for (unsigned j = 0; j < s->grid; j++)
		for (unsigned i = 0; i < s->grid; i++) {
			double v = s->luma[j * s->grid + i];
			int g = (int)lrint(fmin(fmax(v, 0), 1) * 255);

			fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"rgb(%d,%d,%d)\"/>"
				   "<text x=\"%u\" y=\"%u\" class=\"sv\" fill=\"%s\">%.0f</text>\n",
				i * cell, j * cell, cell, cell, g, g, g, i * cell + cell / 2, j * cell + cell / 2 + 4,
				g > 128 ? "#000" : "#fff", 100 * v);
		}
	fputs("</svg>\n", f);
}

/* An x-y plot; logarithmic axes plot log10 of the values. */
static void html_plot(FILE *f, const struct report_entry *e)
{
	const struct report_plot *p = e->u.plot;
	double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
	char xl[80], yl[80];
	struct plot pl;

	for (unsigned k = 0; k < p->count; k++)
		for (unsigned i = 0; i < p->series[k].n; i++) {
			double x = p->series[k].x[i], y = p->series[k].y[i];

			if ((p->log_x && !(x > 0)) || (p->log_y && !(y > 0)) || !isfinite(x) || !isfinite(y))
				continue;
			x = p->log_x ? log10(x) : x;
			y = p->log_y ? log10(y) : y;
			x0 = fmin(x0, x);
			x1 = fmax(x1, x);
			y0 = fmin(y0, y);
			y1 = fmax(y1, y);
		}
	if (!(x1 > x0)) {
		x0 -= 1;
		x1 += 1;
	}
	if (!(y1 > y0)) {
		y0 -= 1;
		y1 += 1;
	}
	snprintf(xl, sizeof(xl), "%s%s", p->log_x ? "log10 " : "", p->xlabel);
	snprintf(yl, sizeof(yl), "%s%s", p->log_y ? "log10 " : "", p->ylabel);
	plot_begin(&pl, f, 640, 360, e->label, xl, yl, x0, x1 + 0.02 * (x1 - x0), y0, y1 + 0.05 * (y1 - y0));
	for (unsigned k = 0; k < p->count; k++) {
		unsigned n = p->series[k].n, m = 0;
		double *x = malloc((n ? n : 1) * sizeof(double)), *y = malloc((n ? n : 1) * sizeof(double));

		for (unsigned i = 0; x && y && i < n; i++) {
			double a = p->series[k].x[i], b = p->series[k].y[i];

			if ((p->log_x && !(a > 0)) || (p->log_y && !(b > 0)))
				continue;
			x[m] = p->log_x ? log10(a) : a;
			y[m++] = p->log_y ? log10(b) : b;
		}
		if (x && y) {
			if (p->series[k].line)
				plot_line(&pl, x, y, m, PALETTE(k), NULL);
			else
				plot_points(&pl, x, y, m, PALETTE(k));
			plot_legend(&pl, p->series[k].name, PALETTE(k));
		}
		free(x);
		free(y);
	}
	plot_end(&pl);
}

static void html_convergence(FILE *f, const struct cisp_iq_report *r)
{
	fputs("<div class=\"row\">", f);
	for (unsigned i = 0; i < r->count; i++) {
		const struct report_entry *e = &r->entries[i];
		const struct cisp_iq_convergence *c;
		double x[CISP_IQ_MAX_FRAMES], lo, hi, band[2], bx[2];
		struct plot p;
		char title[160];

		if (e->kind != ENTRY_CONVERGENCE)
			continue;
		c = e->u.conv;
		lo = hi = c->target;
		for (unsigned k = 0; k < c->count; k++) {
			x[k] = k;
			lo = fmin(lo, c->value[k]);
			hi = fmax(hi, c->value[k]);
		}
		lo = fmin(lo, c->target - c->tolerance);
		hi = fmax(hi, c->target + c->tolerance);
		if (hi - lo < 1e-9)
			hi = lo + 1;
		snprintf(title, sizeof(title), "%s: %s", e->label,
			 c->converged ? "converged" : "did not converge");
		plot_begin(&p, f, 420, 300, title, "frame", e->unit, 0, c->count > 1 ? c->count - 1 : 1,
			   lo - 0.1 * (hi - lo), hi + 0.1 * (hi - lo));
		fprintf(f, "<rect x=\"%g\" y=\"%.1f\" width=\"%g\" height=\"%.1f\" class=\"band\"/>\n", p.left,
			py(&p, c->target + c->tolerance), p.w,
			py(&p, c->target - c->tolerance) - py(&p, c->target + c->tolerance));
		bx[0] = 0;
		bx[1] = c->count > 1 ? c->count - 1 : 1;
		band[0] = band[1] = c->target;
		plot_line(&p, bx, band, 2, "#888", "4 3");
		if (c->converged)
			plot_vline(&p, c->frames, "settled");
		plot_line(&p, x, c->value, c->count, PALETTE(0), NULL);
		plot_points(&p, x, c->value, c->count, PALETTE(0));
		plot_end(&p);
	}
	fputs("</div>\n<table><tr><th>loop</th><th>frames to converge</th><th>final error</th><th>tolerance</th></tr>\n", f);
	for (unsigned i = 0; i < r->count; i++) {
		const struct report_entry *e = &r->entries[i];

		if (e->kind != ENTRY_CONVERGENCE)
			continue;
		fputs("<tr><td>", f);
		esc(f, e->label);
		if (e->u.conv->converged)
			fprintf(f, "</td><td><b>%d</b></td>", e->u.conv->frames);
		else
			fputs("</td><td class=\"bad\">not converged</td>", f);
		fprintf(f, "<td>%.3g ", e->u.conv->final_error);
		esc(f, e->unit);
		fprintf(f, "</td><td>%.3g</td></tr>\n", e->u.conv->tolerance);
	}
	fputs("</table>\n", f);
}

static void html_checks(FILE *f, const struct cisp_iq_report *r)
{
	unsigned failed;
	bool pass = cisp_iq_report_passed(r, &failed);

	fprintf(f, "<p class=\"verdict %s\">%s", pass ? "pass" : "fail", pass ? "PASS" : "FAIL");
	if (!pass)
		fprintf(f, " &mdash; %u check%s failed", failed, failed == 1 ? "" : "s");
	fputs("</p>\n<table><tr><th>check</th><th>result</th><th>measured</th><th>required</th></tr>\n", f);
	for (unsigned i = 0; i < r->count; i++) {
		const struct report_check *c = r->entries[i].u.check;

		if (r->entries[i].kind != ENTRY_CHECK)
			continue;
		fputs("<tr><td>", f);
		esc(f, r->entries[i].label);
		fprintf(f, "</td><td class=\"%s\">%s</td><td>", c->pass ? "good" : "bad", c->pass ? "pass" : "FAIL");
		if (c->numeric) {
			fprintf(f, "%.4g ", c->value);
			esc(f, c->unit);
			fprintf(f, "</td><td>%s %.4g ", !strcmp(c->op, ">=") ? "&ge;" : "&le;", c->limit);
			esc(f, c->unit);
		} else {
			esc(f, c->detail ? c->detail : "");
			fputs("</td><td>", f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static const char css[] =
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;margin:0;color:#222;"
	"background:#f4f5f7}\n"
	"header{background:#1d2b3a;color:#fff;padding:18px 28px}header h1{margin:0;font-size:24px}"
	"header p{margin:4px 0 0;color:#b8c4d0}\n"
	"main{padding:8px 28px 40px;max-width:1200px}\n"
	"section{background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.12);padding:10px 20px 16px;"
	"margin:16px 0}\n"
	"h2{font-size:19px;margin:6px 0 10px;border-bottom:1px solid #e3e6ea;padding-bottom:6px}h3{font-size:16px;"
	"margin:14px 0 4px}\n"
	"table{border-collapse:collapse;margin:8px 0;font-size:14px}td,th{border:1px solid #dde1e6;padding:3px 9px;"
	"text-align:left}th{background:#eef1f4}\n"
	".row{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}\n"
	".fig{margin:4px 0 8px}.good{color:#17803d}.fair{color:#b06800}.bad{color:#c0282d;font-weight:bold}\n"
	".verdict{font-size:22px;font-weight:bold;padding:8px 14px;border-radius:6px;display:inline-block;margin:6px 0}"
	".verdict.pass{background:#dff3e4;color:#17803d}.verdict.fail{background:#fbe1e1;color:#c0282d}\n"
	"svg text{font-family:system-ui,'DejaVu Sans',sans-serif}\n"
	".grid{stroke:#e6e8eb;stroke-width:1}.frame{fill:none;stroke:#999}.ref{stroke:#777;stroke-dasharray:5 4}"
	".band{fill:#2ca02c;fill-opacity:.12}\n"
	".pt{font-size:14px;font-weight:bold}.tx{font-size:11px;text-anchor:middle;fill:#555}"
	".ty{font-size:11px;text-anchor:end;fill:#555}.xl,.yl{font-size:12px;text-anchor:middle;fill:#333}"
	".rl{font-size:11px;text-anchor:end;fill:#555}.vl{font-size:11px;fill:#555}.lg{font-size:12px}\n"
	".pn{font-size:11px;text-anchor:middle;fill:#333}.de{font-size:12px;text-anchor:middle;font-weight:bold}"
	".de.good{fill:#17803d}.de.fair{fill:#b06800}.de.bad{fill:#c0282d}"
	".sv{font-size:12px;text-anchor:middle}\n"
	"figure{margin:0}figcaption{font-size:13px;color:#555}img{border:1px solid #ccc;image-rendering:auto}\n"
	"details summary{cursor:pointer;color:#1f5f9f;margin:6px 0}\n";

static int write_html(const struct cisp_iq_report *r, struct cisp_output_file *out)
{
	FILE *f = cisp_output_file_stream(out);
	unsigned k;

	if (!f)
		return -ENOMEM;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", f);
	esc(f, r->title);
	fprintf(f, "</title>\n<style>\n%s</style></head>\n<body>\n<header><h1>", css);
	esc(f, r->title);
	fputs("</h1><p>cisp image-quality report</p></header>\n<main>\n", f);
	if (report_count(r, ENTRY_INFO)) {
		fputs("<section id=\"setup\"><h2>Setup</h2><table>\n", f);
		for (unsigned i = 0; i < r->count; i++)
			if (r->entries[i].kind == ENTRY_INFO) {
				fputs("<tr><th>", f);
				esc(f, r->entries[i].label);
				fputs("</th><td>", f);
				esc(f, r->entries[i].text);
				fputs("</td></tr>\n", f);
			}
		fputs("</table></section>\n", f);
	}
	if (report_count(r, ENTRY_CHECK)) {
		fputs("<section id=\"checks\"><h2>Checks</h2>\n", f);
		html_checks(f, r);
		fputs("</section>\n", f);
	}
	if (report_count(r, ENTRY_IMAGE)) {
		fputs("<section id=\"pictures\"><h2>Pictures</h2><div class=\"row\">\n", f);
		for (unsigned i = 0; i < r->count; i++)
			if (r->entries[i].kind == ENTRY_IMAGE) {
				fprintf(f, "<figure><img width=\"%u\" height=\"%u\" alt=\"", r->entries[i].width,
					r->entries[i].height);
				esc(f, r->entries[i].label);
				fprintf(f, "\" src=\"data:image/png;base64,%s\"><figcaption>", r->entries[i].text);
				esc(f, r->entries[i].label);
				fputs("</figcaption></figure>\n", f);
			}
		fputs("</div></section>\n", f);
	}
	if (report_count(r, ENTRY_COLOR)) {
		fputs("<section id=\"color\"><h2>Colour</h2>\n<p>Top half of each swatch: the true colour; bottom half: "
		      "what the camera produced. &Delta;E<sub>00</sub> is CIEDE2000 (about 1 is just noticeable side by "
		      "side; green &le; 2, orange &le; 5, red above).</p>\n", f);
		for (unsigned i = 0; i < r->count; i++)
			if (r->entries[i].kind == ENTRY_COLOR)
				html_color(f, &r->entries[i]);
		fputs("</section>\n", f);
	}
	if (report_count(r, ENTRY_SFR)) {
		fputs("<section id=\"sharpness\"><h2>Sharpness</h2>\n<p>Slanted-edge spatial frequency response (ISO "
		      "12233 method). MTF50 is the frequency where contrast halves; 0.5 cycles per pixel is "
		      "Nyquist.</p>\n", f);
		html_sfr(f, r);
		fputs("</section>\n", f);
	}
	if (report_count(r, ENTRY_NOISE)) {
		fputs("<section id=\"noise\"><h2>Noise and dynamic range</h2>\n", f);
		k = 0;
		for (unsigned i = 0; i < r->count; i++)
			if (r->entries[i].kind == ENTRY_NOISE)
				html_noise(f, &r->entries[i], k++);
		fputs("</section>\n", f);
	}
	if (report_count(r, ENTRY_SHADING)) {
		fputs("<section id=\"shading\"><h2>Shading</h2>\n<p>Brightness of each block of a flat field, in percent "
		      "of the centre.</p>\n<div class=\"row\">", f);
		for (unsigned i = 0; i < r->count; i++)
			if (r->entries[i].kind == ENTRY_SHADING) {
				fputs("<div>", f);
				html_shading(f, &r->entries[i]);
				fputs("</div>", f);
			}
		fputs("</div></section>\n", f);
	}
	if (report_count(r, ENTRY_FALSE_COLOR)) {
		fputs("<section id=\"false-colour\"><h2>False colour</h2>\n<p>Chroma C*<sub>ab</sub> measured on a "
		      "neutral (black and white) chart, where any colour is an artefact.</p>\n<table><tr><th>region</th>"
		      "<th>mean C*</th><th>99th percentile C*</th><th>max C*</th><th>pixels above C* 5</th></tr>\n", f);
		for (unsigned i = 0; i < r->count; i++)
			if (r->entries[i].kind == ENTRY_FALSE_COLOR) {
				const struct cisp_iq_false_color_result *fc = r->entries[i].u.false_color;

				fputs("<tr><td>", f);
				esc(f, r->entries[i].label);
				fprintf(f, "</td><td><b>%.2f</b></td><td>%.1f</td><td>%.1f</td><td>%.2f%%</td></tr>\n",
					fc->mean_chroma, fc->p99_chroma, fc->max_chroma, 100 * fc->fraction_visible);
			}
		fputs("</table></section>\n", f);
	}
	if (report_count(r, ENTRY_PLOT)) {
		fputs("<section id=\"plots\"><h2>Curves</h2>\n", f);
		for (unsigned i = 0; i < r->count; i++)
			if (r->entries[i].kind == ENTRY_PLOT)
				html_plot(f, &r->entries[i]);
		fputs("</section>\n", f);
	}
	if (report_count(r, ENTRY_CONVERGENCE)) {
		fputs("<section id=\"convergence\"><h2>3A convergence</h2>\n<p>Each loop's value per frame; the green "
		      "band is the tolerance around the goal.</p>\n", f);
		html_convergence(f, r);
		fputs("</section>\n", f);
	}
	fputs("</main>\n</body></html>\n", f);
	return 0;
}

/* Numbers with a decimal point whatever the application's locale. */
int cisp_iq_report_write_html_to(const struct cisp_iq_report *r, struct cisp_output_file *out)
{
	locale_t previous = cisp_c_numeric_begin();
	int ret = write_html(r, out);

	cisp_c_numeric_end(previous);
	return ret;
}

int cisp_iq_report_write_html(const struct cisp_iq_report *r, const char *path)
{
	struct cisp_output_file *out;
	int ret = cisp_output_file_create(&out, path, CISP_OUTPUT_REPLACE);

	return ret ? ret : cisp_output_file_finish(out, cisp_iq_report_write_html_to(r, out));
}
