/* SPDX-License-Identifier: MIT */
/*
 * The provenance section: what calibrated a tuning file (`cisp calibrate`
 * writes it, docs/calibrate.md): the tool, the date, the command, every
 * input, each chart's light with its fit's figures, the fits' residuals,
 * and the colour methods tried.
 * Everything is checked as the rest of the file is; the loop does not use
 * it. The lab reads the charts' lights, so that a chart measured under a
 * light the tuning was calibrated under is reported as a fit, not as
 * accuracy (docs/iq.md).
 */
#include <string.h>

#include "algorithm.h"

/* Text meant for people: any characters but control characters, shorter than @size. */
static int free_text(struct yaml_reader *r, const yaml_node_t *n, const char *key, char *out, size_t size)
{
	const char *s = yaml_reader_scalar(n);

	if (!s)
		return yaml_reader_fail(r, n, key, "must be text");
	if (strlen(s) >= size)
		return yaml_reader_fail(r, n, key, "is longer than %zu characters", size - 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return yaml_reader_fail(r, n, key, "holds a control character");
	if (out)
		snprintf(out, size, "%s", s);
	return 0;
}

/* One word of @words (a NULL-ended list), or an error that names them as @choices. */
static int one_of(struct yaml_reader *r, const yaml_node_t *n, const char *key, const char *const *words,
		  const char *choices)
{
	char text[64];
	int ret = free_text(r, n, key, text, sizeof(text));

	for (unsigned j = 0; !ret && words[j]; j++)
		if (!strcmp(words[j], text))
			return 0;
	return ret ? ret : yaml_reader_fail(r, n, key, "'%s' is not %s", text, choices);
}

static const char *const kinds[] = { "dark", "flat", "chart", "edge", NULL };
static const char *const input_keys[] = { "kind", "file", "illuminant", "exposure_s", "gain", "lux", NULL };

static int input_key(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	double d;

	(void)ctx;
	switch (i) {
	case 0: return one_of(r, v, k, kinds, "dark, flat, chart or edge");
	case 1: return free_text(r, v, k, NULL, 4096);
	case 2: return free_text(r, v, k, NULL, 32);
	case 3: return yaml_reader_number(r, v, k, 0, 3600, &d);
	case 4: return yaml_reader_number(r, v, k, 0, 65536, &d);
	default: return yaml_reader_number(r, v, k, 0, 1000000, &d);
	}
}

static int input_item(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *item)
{
	(void)i;
	return yaml_reader_map(r, item, k, input_keys, 3, input_key, ctx);
}

static const char *const chart_keys[] = { "illuminant", "ct", "fit_mean_de00", "fit_max_de00", "loo_mean_de00", NULL };

static int chart_key(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct cisp_tuning *t = ctx;
	double d;

	switch (i) {
	case 0:
		return free_text(r, v, k, t->provenance.chart[t->provenance.chart_count].illuminant,
				 sizeof(t->provenance.chart[0].illuminant));
	case 1: return yaml_reader_number(r, v, k, 1000, 25000, &t->provenance.chart[t->provenance.chart_count].ct);
	default: return yaml_reader_number(r, v, k, 0, 100, &d);
	}
}

static int chart_item(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *item)
{
	struct cisp_tuning *t = ctx;
	int ret;

	t->provenance.chart_count = i;
	ret = yaml_reader_map(r, item, k, chart_keys, 3, chart_key, t);
	t->provenance.chart_count = i + 1;
	return ret;
}

/* How the colour matrices were made (docs/calibrate.md, "Colour"): each method tried, by leaving each chart out. */
static const char *const methods[] = { "interpolated", "sensitivities", "corrected sensitivities", NULL };
static const char *const method_keys[] = { "method", "penalty", "loo_mean_de00", "loo_max_de00", NULL };

static int method_key(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	double d;

	(void)ctx;
	switch (i) {
	case 0: return one_of(r, v, k, methods, "interpolated, sensitivities or corrected sensitivities");
	case 1: return yaml_reader_number(r, v, k, 0, 1e6, &d);
	default: return yaml_reader_number(r, v, k, 0, 100, &d);
	}
}

static int method_item(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *item)
{
	(void)i;
	return yaml_reader_map(r, item, k, method_keys, 1, method_key, ctx);
}

static const char *const fit_keys[] = { "black_spread", "shading_residual_pct", "noise_fit_rms", "defects",
					"colour_method", "sensitivity_fit_rms", NULL };

static int fit_key(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	double d;

	(void)ctx;
	switch (i) {
	case 0: return yaml_reader_number(r, v, k, 0, 65535, &d);
	case 1: return yaml_reader_number(r, v, k, 0, 100, &d);
	case 2: return yaml_reader_number(r, v, k, 0, 100, &d);
	case 3: return yaml_reader_whole(r, v, k, 0, TUNING_MAX_DEFECTS, &d);
	case 4: return yaml_reader_whole(r, v, k, 0, 15, &d);
	default: return yaml_reader_number(r, v, k, 0, 100, &d);
	}
}

static const char *const keys[] = { "tool", "date", "command", "inputs", "charts", "fits", "colour_methods", NULL };

static int provenance_key(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct cisp_tuning *t = ctx;
	unsigned count;

	switch (i) {
	case 0: return free_text(r, v, k, NULL, 256);
	case 1: return free_text(r, v, k, NULL, 64);
	case 2: return free_text(r, v, k, NULL, 65536);
	case 3: return yaml_reader_list(r, v, k, 4096, &count, input_item, t);
	case 4: return yaml_reader_list(r, v, k, TUNING_MAX_CHARTS, &count, chart_item, t);
	case 5: return yaml_reader_map(r, v, k, fit_keys, 0, fit_key, t);
	default: return yaml_reader_list(r, v, k, 16, &count, method_item, t);
	}
}

static int provenance_parse(struct yaml_reader *r, const yaml_node_t *v, const char *key, struct cisp_tuning *t)
{
	t->provenance.present = true;
	return yaml_reader_map(r, v, key, keys, 1, provenance_key, t);
}

const struct control_algorithm provenance_section = {
	.section = "provenance",
	.parse = provenance_parse,
};
