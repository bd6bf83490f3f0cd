/* SPDX-License-Identifier: MIT */
/* The report model, its checks and the JSON writer. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "core/number.h"
#include "report_internal.h"

int cisp_iq_report_create(struct cisp_iq_report **report, const char *title)
{
	struct cisp_iq_report *r = calloc(1, sizeof(*r));

	*report = NULL;
	if (!r || !(r->title = strdup(title ? title : "cisp image quality"))) {
		free(r);
		return cisp_error(-ENOMEM, "out of memory for a report");
	}
	*report = r;
	return 0;
}

void cisp_iq_report_destroy(struct cisp_iq_report *r)
{
	if (!r)
		return;
	for (unsigned i = 0; i < r->count; i++) {
		struct report_entry *e = &r->entries[i];

		free(e->label);
		free(e->text);
		if (e->kind == ENTRY_CHECK && e->u.check)
			free(e->u.check->detail);
		for (unsigned k = 0; e->kind == ENTRY_PLOT && e->u.plot && k < e->u.plot->count; k++)
			free(e->u.plot->series[k].x);
		free(e->u.any);
	}
	free(r->entries);
	free(r->title);
	free(r);
}

/* Append an entry with a copy of @data (@size bytes, may be 0). */
static struct report_entry *add(struct cisp_iq_report *r, enum entry_kind kind, const char *label,
				const void *data, size_t size)
{
	struct report_entry *e;

	if (r->count == r->capacity) {
		unsigned cap = r->capacity ? 2 * r->capacity : 16;
		struct report_entry *n = realloc(r->entries, cap * sizeof(*n));

		if (!n)
			return NULL;
		r->entries = n;
		r->capacity = cap;
	}
	e = &r->entries[r->count];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->label = strdup(label ? label : "");
	if (size) {
		e->u.any = malloc(size);
		if (e->u.any)
			memcpy(e->u.any, data, size);
	}
	if (!e->label || (size && !e->u.any)) {
		free(e->label);
		free(e->u.any);
		return NULL;
	}
	r->count++;
	return e;
}

#define ADD_RESULT(kind, r, label, res)                                                       \
	(add((r), (kind), (label), (res), sizeof(*(res))) ? 0                                 \
							   : cisp_error(-ENOMEM, "out of memory for a report entry"))

int cisp_iq_report_info(struct cisp_iq_report *r, const char *key, const char *value)
{
	struct report_entry *e = add(r, ENTRY_INFO, key, NULL, 0);

	if (!e || !(e->text = strdup(value ? value : ""))) {
		if (e)
			r->count--, free(e->label);
		return cisp_error(-ENOMEM, "out of memory for a report entry");
	}
	return 0;
}

int cisp_iq_report_color(struct cisp_iq_report *r, const char *label, const struct cisp_iq_color_result *res)
{
	return ADD_RESULT(ENTRY_COLOR, r, label, res);
}

int cisp_iq_report_sfr(struct cisp_iq_report *r, const char *label, const struct cisp_iq_sfr_result *res)
{
	return ADD_RESULT(ENTRY_SFR, r, label, res);
}

int cisp_iq_report_noise(struct cisp_iq_report *r, const char *label, const struct cisp_iq_noise_result *res)
{
	return ADD_RESULT(ENTRY_NOISE, r, label, res);
}

int cisp_iq_report_shading(struct cisp_iq_report *r, const char *label, const struct cisp_iq_shading_result *res)
{
	return ADD_RESULT(ENTRY_SHADING, r, label, res);
}

int cisp_iq_report_false_color(struct cisp_iq_report *r, const char *label,
			       const struct cisp_iq_false_color_result *res)
{
	return ADD_RESULT(ENTRY_FALSE_COLOR, r, label, res);
}

int cisp_iq_report_convergence(struct cisp_iq_report *r, const char *label, const char *unit,
			       const struct cisp_iq_convergence *res)
{
	struct report_entry *e = add(r, ENTRY_CONVERGENCE, label, res, sizeof(*res));

	if (!e)
		return cisp_error(-ENOMEM, "out of memory for a report entry");
	snprintf(e->unit, sizeof(e->unit), "%s", unit ? unit : "");
	return 0;
}

int cisp_iq_report_image(struct cisp_iq_report *r, const char *label, const struct cisp_iq_image *img, double gain)
{
	char *text;
	unsigned w, h;
	struct report_entry *e;
	int ret = report_png_base64(img, gain, 480, &text, &w, &h);

	if (ret)
		return ret;
	e = add(r, ENTRY_IMAGE, label, NULL, 0);
	if (!e) {
		free(text);
		return cisp_error(-ENOMEM, "out of memory for a report entry");
	}
	e->text = text;
	e->width = w;
	e->height = h;
	return 0;
}

int cisp_iq_report_plot(struct cisp_iq_report *r, const char *label, const char *xlabel, const char *ylabel,
			bool log_x, bool log_y, const struct cisp_iq_plot_series *series, unsigned count)
{
	struct report_plot p;
	struct report_entry *e;

	if (!count || count > 8)
		return cisp_error(-EINVAL, "a plot has 1..8 series, not %u", count);
	memset(&p, 0, sizeof(p));
	snprintf(p.xlabel, sizeof(p.xlabel), "%s", xlabel ? xlabel : "");
	snprintf(p.ylabel, sizeof(p.ylabel), "%s", ylabel ? ylabel : "");
	p.log_x = log_x;
	p.log_y = log_y;
	e = add(r, ENTRY_PLOT, label, &p, sizeof(p));
	if (!e)
		return cisp_error(-ENOMEM, "out of memory for a report entry");
	for (unsigned k = 0; k < count; k++) {
		/* x and y in one block, freed with x. */
		double *xy = malloc(2 * (size_t)(series[k].n ? series[k].n : 1) * sizeof(double));

		if (!xy)
			return cisp_error(-ENOMEM, "out of memory for a plot");
		memcpy(xy, series[k].x, series[k].n * sizeof(double));
		memcpy(xy + series[k].n, series[k].y, series[k].n * sizeof(double));
		snprintf(e->u.plot->series[k].name, sizeof(e->u.plot->series[k].name), "%s",
			 series[k].name ? series[k].name : "");
		e->u.plot->series[k].line = series[k].line;
		e->u.plot->series[k].n = series[k].n;
		e->u.plot->series[k].x = xy;
		e->u.plot->series[k].y = xy + series[k].n;
		e->u.plot->count = k + 1;
	}
	return 0;
}

static struct report_check *add_check(struct cisp_iq_report *r, const char *name)
{
	struct report_check c = { 0 };
	struct report_entry *e = add(r, ENTRY_CHECK, name, &c, sizeof(c));

	return e ? e->u.check : NULL;
}

bool cisp_iq_report_check(struct cisp_iq_report *r, const char *name, double value, const char *unit,
			  const char *op, double limit)
{
	bool pass = !strcmp(op, ">=") ? value >= limit : value <= limit;
	struct report_check *c = add_check(r, name);

	if (c) {
		c->numeric = true;
		c->pass = pass;
		c->value = value;
		c->limit = limit;
		snprintf(c->op, sizeof(c->op), "%s", !strcmp(op, ">=") ? ">=" : "<=");
		snprintf(c->unit, sizeof(c->unit), "%s", unit ? unit : "");
	}
	return pass;
}

bool cisp_iq_report_check_text(struct cisp_iq_report *r, const char *name, bool pass, const char *detail)
{
	struct report_check *c = add_check(r, name);

	if (c) {
		c->pass = pass;
		c->detail = detail ? strdup(detail) : NULL;
	}
	return pass;
}

bool cisp_iq_report_passed(const struct cisp_iq_report *r, unsigned *failed)
{
	unsigned n = 0;

	for (unsigned i = 0; i < r->count; i++)
		if (r->entries[i].kind == ENTRY_CHECK && !r->entries[i].u.check->pass)
			n++;
	if (failed)
		*failed = n;
	return n == 0;
}

static void print_checks(const struct cisp_iq_report *r, FILE *out)
{
	fprintf(out, "%-44s %-6s %s\n", "check", "result", "measured / detail");
	for (unsigned i = 0; i < r->count; i++) {
		const struct report_check *c = r->entries[i].u.check;

		if (r->entries[i].kind != ENTRY_CHECK)
			continue;
		fprintf(out, "%-44s %-6s ", r->entries[i].label, c->pass ? "pass" : "FAIL");
		if (c->numeric)
			fprintf(out, "%.4g %s (required %s %.4g)\n", c->value, c->unit, c->op, c->limit);
		else
			fprintf(out, "%s\n", c->detail ? c->detail : "");
	}
}

unsigned report_count(const struct cisp_iq_report *r, enum entry_kind kind)
{
	unsigned n = 0;

	for (unsigned i = 0; i < r->count; i++)
		n += r->entries[i].kind == kind;
	return n;
}

/* ---- JSON ---- */

struct json {
	FILE *f;
	int depth;
	bool first;
};

static void j_indent(struct json *j)
{
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

static void j_sep(struct json *j)
{
	if (!j->first)
		fputc(',', j->f);
	j->first = false;
	j_indent(j);
}

static void j_string(struct json *j, const char *s)
{
	fputc('"', j->f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(j->f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", j->f);
		else if (c < 0x20)
			fprintf(j->f, "\\u%04x", c);
		else
			fputc(c, j->f);
	}
	fputc('"', j->f);
}

static void j_key(struct json *j, const char *key)
{
	j_sep(j);
	if (key) {
		j_string(j, key);
		fputs(": ", j->f);
	}
}

static void j_open(struct json *j, const char *key, char bracket)
{
	j_key(j, key);
	fputc(bracket, j->f);
	j->depth++;
	j->first = true;
}

static void j_close(struct json *j, char bracket)
{
	j->depth--;
	if (!j->first)
		j_indent(j);
	fputc(bracket, j->f);
	j->first = false;
}

static void j_num(struct json *j, const char *key, double v)
{
	j_key(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.6g", v);
	else
		fputs("null", j->f);
}

static void j_bool(struct json *j, const char *key, bool v)
{
	j_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

static void j_str(struct json *j, const char *key, const char *v)
{
	j_key(j, key);
	j_string(j, v);
}

/* A numeric array on one line. */
static void j_array(struct json *j, const char *key, const double *v, unsigned n)
{
	j_key(j, key);
	fputc('[', j->f);
	for (unsigned i = 0; i < n; i++) {
		if (i)
			fputs(", ", j->f);
		if (isfinite(v[i]))
			fprintf(j->f, "%.6g", v[i]);
		else
			fputs("null", j->f);
	}
	fputc(']', j->f);
}

static void json_color(struct json *j, const struct cisp_iq_color_result *c)
{
	j_num(j, "mean_de00", c->mean_de00);
	j_num(j, "max_de00", c->max_de00);
	j_str(j, "max_patch", c->patch[c->max_patch].name);
	j_num(j, "mean_de00_chromatic", c->mean_de00_chromatic);
	j_num(j, "mean_de76", c->mean_de76);
	j_num(j, "wb_error_deg", c->wb_error_deg);
	j_num(j, "exposure_scale", c->exposure_scale);
	j_open(j, "patches", '[');
	for (unsigned i = 0; i < c->count; i++) {
		const struct cisp_iq_color_patch *p = &c->patch[i];

		j_open(j, NULL, '{');
		j_str(j, "name", p->name);
		j_bool(j, "neutral", p->neutral);
		j_array(j, "ref_lab", p->ref_lab, 3);
		j_array(j, "lab", p->lab, 3);
		j_num(j, "de00", p->de00);
		j_num(j, "de76", p->de76);
		j_close(j, '}');
	}
	j_close(j, ']');
}

static void json_sfr(struct json *j, const struct cisp_iq_sfr_result *s)
{
	j_bool(j, "vertical", s->vertical);
	j_num(j, "angle_deg", s->angle_deg);
	j_num(j, "mtf50", s->mtf50);
	j_num(j, "mtf_nyquist_half", s->mtf_nyq2);
	j_num(j, "mtf_nyquist", s->mtf_nyq);
	j_num(j, "overshoot_pct", s->overshoot_pct);
	j_num(j, "undershoot_pct", s->undershoot_pct);
	j_num(j, "rise_10_90_px", s->rise_10_90);
	j_num(j, "low", s->low);
	j_num(j, "high", s->high);
	j_num(j, "mtf_step", 0.01);
	j_array(j, "mtf", s->mtf, CISP_IQ_SFR_POINTS);
	j_num(j, "esf_step_px", 0.25);
	j_array(j, "esf", s->esf, CISP_IQ_ESF_POINTS);
}

static void json_noise(struct json *j, const struct cisp_iq_noise_result *n)
{
	j_open(j, "steps", '[');
	for (unsigned i = 0; i < n->count; i++) {
		const struct cisp_iq_noise_step *s = &n->step[i];

		j_open(j, NULL, '{');
		j_num(j, "level", s->level);
		j_num(j, "mean_y", s->stats.mean_y);
		j_num(j, "sd_y", s->stats.sd_y);
		j_num(j, "sd_chroma", s->stats.sd_chroma);
		j_num(j, "snr_y", s->snr_y);
		j_num(j, "snr_c", s->snr_c);
		j_num(j, "snr_y_db", 20 * log10(s->snr_y > 0 ? s->snr_y : 1e-6));
		j_bool(j, "clipped", s->clipped);
		j_close(j, '}');
	}
	j_close(j, ']');
	for (int k = 0; k < 2; k++) {
		j_open(j, k ? "dynamic_range_snr10" : "dynamic_range_snr1", '{');
		j_num(j, "steps", n->dr[k].steps);
		j_num(j, "ev", n->dr[k].ev);
		j_bool(j, "lower_bound", n->dr[k].lower_bound);
		j_close(j, '}');
	}
}

static void json_entry(struct json *j, const struct report_entry *e)
{
	switch (e->kind) {
	case ENTRY_COLOR:
		json_color(j, e->u.color);
		break;
	case ENTRY_SFR:
		json_sfr(j, e->u.sfr);
		break;
	case ENTRY_NOISE:
		json_noise(j, e->u.noise);
		break;
	case ENTRY_SHADING: {
		const struct cisp_iq_shading_result *s = e->u.shading;

		j_num(j, "grid", s->grid);
		j_num(j, "luma_min", s->luma_min);
		j_num(j, "luma_corner", s->luma_corner);
		j_num(j, "luma_nonuniformity_pct", s->luma_nonuniformity_pct);
		j_num(j, "color_max_pct", s->color_max_pct);
		j_array(j, "luma", s->luma, s->grid * s->grid);
		j_array(j, "color_pct", s->color, s->grid * s->grid);
		break;
	}
	case ENTRY_FALSE_COLOR:
		j_num(j, "mean_chroma", e->u.false_color->mean_chroma);
		j_num(j, "p99_chroma", e->u.false_color->p99_chroma);
		j_num(j, "max_chroma", e->u.false_color->max_chroma);
		j_num(j, "fraction_visible", e->u.false_color->fraction_visible);
		break;
	case ENTRY_PLOT:
		j_str(j, "x", e->u.plot->xlabel);
		j_str(j, "y", e->u.plot->ylabel);
		j_open(j, "series", '[');
		for (unsigned k = 0; k < e->u.plot->count; k++) {
			j_open(j, NULL, '{');
			j_str(j, "name", e->u.plot->series[k].name);
			j_array(j, "x", e->u.plot->series[k].x, e->u.plot->series[k].n);
			j_array(j, "y", e->u.plot->series[k].y, e->u.plot->series[k].n);
			j_close(j, '}');
		}
		j_close(j, ']');
		break;
	case ENTRY_CONVERGENCE:
		j_str(j, "unit", e->unit);
		j_num(j, "target", e->u.conv->target);
		j_num(j, "tolerance", e->u.conv->tolerance);
		j_bool(j, "converged", e->u.conv->converged);
		j_num(j, "frames", e->u.conv->frames);
		j_num(j, "final_error", e->u.conv->final_error);
		j_array(j, "values", e->u.conv->value, e->u.conv->count);
		break;
	default:
		break;
	}
}

static const char *const section_names[] = {
	[ENTRY_COLOR] = "color", [ENTRY_SFR] = "sharpness", [ENTRY_NOISE] = "noise",
	[ENTRY_SHADING] = "shading", [ENTRY_FALSE_COLOR] = "false_color", [ENTRY_CONVERGENCE] = "convergence",
	[ENTRY_PLOT] = "plots",
};

static int write_json(const struct cisp_iq_report *r, struct cisp_output_file *out)
{
	struct json j = { .first = true };
	unsigned failed;
	bool passed = cisp_iq_report_passed(r, &failed);

	j.f = cisp_output_file_stream(out);
	if (!j.f)
		return -ENOMEM;
	fputc('{', j.f);
	j.depth = 1;
	j_str(&j, "title", r->title);
	j_str(&j, "generator", "cisp iq");
	j_open(&j, "info", '{');
	for (unsigned i = 0; i < r->count; i++)
		if (r->entries[i].kind == ENTRY_INFO)
			j_str(&j, r->entries[i].label, r->entries[i].text);
	j_close(&j, '}');
	for (int kind = ENTRY_COLOR; kind <= ENTRY_PLOT; kind++) {
		if (!section_names[kind] || !report_count(r, kind))
			continue;
		j_open(&j, section_names[kind], '[');
		for (unsigned i = 0; i < r->count; i++) {
			if (r->entries[i].kind != (enum entry_kind)kind)
				continue;
			j_open(&j, NULL, '{');
			j_str(&j, "label", r->entries[i].label);
			json_entry(&j, &r->entries[i]);
			j_close(&j, '}');
		}
		j_close(&j, ']');
	}
	if (report_count(r, ENTRY_CHECK)) {
		j_open(&j, "checks", '[');
		for (unsigned i = 0; i < r->count; i++) {
			const struct report_check *c = r->entries[i].u.check;

			if (r->entries[i].kind != ENTRY_CHECK)
				continue;
			j_open(&j, NULL, '{');
			j_str(&j, "name", r->entries[i].label);
			j_bool(&j, "pass", c->pass);
			if (c->numeric) {
				j_num(&j, "value", c->value);
				j_str(&j, "op", c->op);
				j_num(&j, "limit", c->limit);
				j_str(&j, "unit", c->unit);
			}
			if (c->detail)
				j_str(&j, "detail", c->detail);
			j_close(&j, '}');
		}
		j_close(&j, ']');
		j_bool(&j, "passed", passed);
		j_num(&j, "failed", failed);
	}
	j.depth = 0;
	j_indent(&j);
	fputs("}\n", j.f);
	return 0;
}

/* Numbers with a decimal point whatever the application's locale. */
int cisp_iq_report_write_json_to(const struct cisp_iq_report *r, struct cisp_output_file *out)
{
	locale_t previous = cisp_c_numeric_begin();
	int ret = write_json(r, out);

	cisp_c_numeric_end(previous);
	return ret;
}

int cisp_iq_report_write_json(const struct cisp_iq_report *r, const char *path)
{
	struct cisp_output_file *out;
	int ret = cisp_output_file_create(&out, path, CISP_OUTPUT_REPLACE);

	return ret ? ret : cisp_output_file_finish(out, cisp_iq_report_write_json_to(r, out));
}

void cisp_iq_report_print_checks(const struct cisp_iq_report *r, FILE *out)
{
	locale_t previous = cisp_c_numeric_begin();

	print_checks(r, out);
	cisp_c_numeric_end(previous);
}
