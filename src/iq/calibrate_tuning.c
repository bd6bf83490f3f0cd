/* SPDX-License-Identifier: MIT */
/*
 * Writing a calibration as a tuning file (docs/tuning.md): the base tuning's
 * values (or the defaults), with what the captures measured in their place,
 * and a provenance section. The text is parsed back before it is written, so
 * a file that cisp would refuse is never produced.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cisp/tuning.h>

#include "calibrate_internal.h"
#include "control/tuning.h"
#include "core/error_internal.h"
#include "core/number.h"

#define GRID TUNING_LSC_GRID

/*
 * Denoise and sharpening strengths by gain are settings chosen for the loop,
 * not measurements: without a base tuning, this table (the shipped tunings')
 * is written, its sharpening scaled by the edge's.
 */
static const struct tuning_denoise standard_denoise[] = {
	{ 1, 0.75, 2.5, 1.0, 256, CISP_BNR_FAST },
	{ 4, 0.875, 3.0, 0.85, 384, CISP_BNR_FAST },
	{ 16, 1.0, 3.5, 0.6, 768, CISP_BNR_FAST },
	{ 64, 1.25, 4.0, 0.4, 1536, CISP_BNR_FAST },
};

/*
 * Local tone mapping is a setting too (docs/stages/ltm.md argues the values):
 * without a base tuning the camera gets it on at this strength.
 */
static const struct ltm_tuning standard_ltm = { .strength = 0.5, .boost = 3, .cut = 1, .range = 1.5 };

/* @s as a YAML double-quoted scalar; control characters become '?' (the provenance refuses them). */
static void quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fputc('?', f);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void numbers(FILE *f, const char *indent, const char *key, const float *v, unsigned n, unsigned per_line)
{
	fprintf(f, "%s%s: [", indent, key);
	for (unsigned i = 0; i < n; i++) {
		if (i && i % per_line == 0)
			fprintf(f, "\n%s    ", indent);
		fprintf(f, "%.4f%s", v[i], i + 1 < n ? ", " : "");
	}
	fprintf(f, "]\n");
}

/* The ltm section when it turns the stage on (without one, LTM is off). */
static void write_ltm(FILE *f, const struct ltm_tuning *l)
{
	if (l->strength > 0)
		fprintf(f, "ltm:\n  strength: %.6g\n  boost: %.6g\n  cut: %.6g\n  range: %.6g\n", l->strength, l->boost,
			l->cut, l->range);
}

/*
 * The level where the sensor clips at its lowest gain, in the tuning's codes,
 * as `saturation` (src/control/highlights.c), where the noise pairs found it
 * below the white level; otherwise @t keeps its base's.
 */
static void apply_saturation(const struct cisp_calib_result *r, double scale, struct cisp_tuning *t)
{
	const struct cisp_calib_noise_gain *g = &r->noise.gain[0];
	double black = r->black.frames ? (r->black.level[0] + r->black.level[1] + r->black.level[2] +
					  r->black.level[3]) / 4 : 0;

	if (r->noise.count && g->saturated && black + g->saturation < r->white)
		t->saturation = round((black + g->saturation) / scale);
}

/* The whole tuning @t as YAML. */
static void write_tuning(FILE *f, const struct cisp_tuning *t)
{
	static const char *const ch[4] = { "r", "gr", "gb", "b" };

	fprintf(f, "version: %u\nsensor: %s\n", t->version, t->sensor);
	if (t->lens[0])
		fprintf(f, "lens: %s\n", t->lens);
	if (t->black_level[0] >= 0)
		fprintf(f, "black_level: [%.2f, %.2f, %.2f, %.2f]\n", t->black_level[0], t->black_level[1],
			t->black_level[2], t->black_level[3]);
	fprintf(f, "ae:\n  target: %.6g\n  tolerance: %.6g\n  highlight_fraction: %.6g\n  highlight_level: %.6g\n",
		t->ae.target, t->ae.tolerance, t->ae.highlight_fraction, t->ae.highlight_level);
	fprintf(f, "  speed: %.6g\n  max_exposure_us: %.6g\n  max_analogue_gain: %.6g\n  max_digital_gain: %.6g\n",
		t->ae.speed, t->ae.max_exposure_us, t->ae.max_analogue_gain, t->ae.max_digital_gain);
	fprintf(f, "  lux_scale: %.6g\n", t->ae.lux_scale);
	fprintf(f, "awb:\n  prior_weight: %.6g\n  max_curve_distance: %.6g\n  transverse: %.6g\n  speed: %.6g\n",
		t->awb.prior_weight, t->awb.max_curve_distance, t->awb.transverse, t->awb.speed);
	fprintf(f, "  default_ct: %.6g\n  ct:\n", t->awb.default_ct ? t->awb.default_ct : t->awb.ct[t->awb.ct_count / 2].ct);
	for (unsigned i = 0; i < t->awb.ct_count; i++)
		fprintf(f, "    - {ct: %.0f, r_over_g: %.4f, b_over_g: %.4f}\n", t->awb.ct[i].ct, t->awb.ct[i].r_over_g,
			t->awb.ct[i].b_over_g);
	fprintf(f, "af:\n  position_range: [%d, %d]\n  coarse_steps: %u\n  fine_steps: %u\n", t->af.position_min,
		t->af.position_max, t->af.coarse_steps, t->af.fine_steps);
	fprintf(f, "  scene_change: %.6g\n  min_contrast: %.6g\n", t->af.scene_change, t->af.min_contrast);
	fprintf(f, "flicker:\n  detect_threshold: %.6g\n", t->flicker.detect_threshold);
	fprintf(f, "ccm:\n");
	for (unsigned i = 0; i < t->ccm_count; i++) {
		fprintf(f, "  - ct: %.0f\n", t->ccm[i].ct);
		if (t->ccm[i].tint)
			fprintf(f, "    tint: %.4f\n", t->ccm[i].tint);
		fprintf(f, "    matrix:\n");
		for (int r = 0; r < 3; r++)
			fprintf(f, "      - [%.4f, %.4f, %.4f]\n", t->ccm[i].m[r][0], t->ccm[i].m[r][1], t->ccm[i].m[r][2]);
	}
	if (t->lsc_count) {
		fprintf(f, "lens_shading:\n");
		if (t->lsc_array_width)
			fprintf(f, "  array: [%u, %u]\n", t->lsc_array_width, t->lsc_array_height);
		fprintf(f, "  tables:\n");
		for (unsigned i = 0; i < t->lsc_count; i++) {
			fprintf(f, "    - ct: %.0f\n", t->lsc[i].ct);
			for (int c = 0; c < 4; c++)
				numbers(f, "      ", ch[c], t->lsc[i].gain[c], GRID * GRID, GRID);
		}
	}
	fprintf(f, "noise:\n");
	for (unsigned i = 0; i < t->noise_count; i++) {
		const struct tuning_noise *n = &t->noise[i];

		fprintf(f, "  - {gain: %.6g, a: [%.3f, %.3f, %.3f, %.3f], b: [%.0f, %.0f, %.0f, %.0f]}\n", n->gain, n->a[0],
			n->a[1], n->a[2], n->a[3], n->b[0], n->b[1], n->b[2], n->b[3]);
	}
	fprintf(f, "denoise:\n");
	for (unsigned i = 0; i < t->denoise_count; i++) {
		const struct tuning_denoise *d = &t->denoise[i];

		fprintf(f, "  - {gain: %.6g, bnr: %.4g, cnr: %.4g, sharpen: %.4g, coring: %.6g%s}\n", d->gain, d->bnr_strength,
			d->cnr_strength, d->sharpen_strength, d->sharpen_coring,
			d->bnr_mode == CISP_BNR_QUALITY ? ", bnr_mode: quality" : "");
	}
	fprintf(f, "gamma: %.6g\ndefect_threshold: %.0f\n", t->gamma, t->defect_threshold);
	if (t->saturation > 0)
		fprintf(f, "saturation: %.0f\n", t->saturation);
	if (t->defect_count) {
		fprintf(f, "defect_pixels: [");
		for (unsigned i = 0; i < t->defect_count; i++)
			fprintf(f, "%s[%u, %u]", i ? (i % 8 ? ", " : ",\n    ") : "", t->defects[i].x, t->defects[i].y);
		fprintf(f, "]\n");
	}
	write_ltm(f, &t->ltm);
}

/* Put what the calibration measured into @t. */
static int apply_result(const struct cisp_calib *c, const struct cisp_calib_result *r, bool have_base,
			struct cisp_tuning *t)
{
	unsigned bits;
	double scale, full, sharpen0;

	calib_code_scale(c, &bits, &scale);
	snprintf(t->sensor, sizeof(t->sensor), "%s", c->sensor);
	if (r->black.frames)
		for (int k = 0; k < 4; k++)
			t->black_level[k] = r->black.level[k] / scale;
	if (c->setup.max_analogue_gain >= 1)
		t->ae.max_analogue_gain = c->setup.max_analogue_gain;
	if (c->setup.max_digital_gain >= 1)
		t->ae.max_digital_gain = fmin(c->setup.max_digital_gain, 4);
	if (c->setup.lens_max > c->setup.lens_min) {
		t->af.position_min = c->setup.lens_min;
		t->af.position_max = c->setup.lens_max;
	}
	/* Noise in 16-bit units after black level: codes above black times 65535 / (white - black). */
	full = 65535 / (r->white - (r->black.frames ? (r->black.level[1] + r->black.level[2]) / 2 : 0));
	apply_saturation(r, scale, t);
	if (r->noise.count) {
		t->noise_count = r->noise.count;
		for (unsigned i = 0; i < r->noise.count; i++) {
			t->noise[i].gain = r->noise.gain[i].gain;
			for (int k = 0; k < 4; k++) {
				t->noise[i].a[k] = fmin(fmax(r->noise.gain[i].a[k] * full, 0), 65535);
				t->noise[i].b[k] = fmin(fmax(r->noise.gain[i].b[k] * full * full, 0), 4294967295.0);
			}
		}
	}
	if (r->shading.count) {
		t->lsc_count = r->shading.count;
		t->lsc_array_width = c->setup.array_width ? c->setup.array_width : r->width;
		t->lsc_array_height = c->setup.array_height ? c->setup.array_height : r->height;
		for (unsigned i = 0; i < r->shading.count; i++) {
			t->lsc[i].ct = fmin(fmax(r->shading.table[i].ct, 1000), 20000);
			memcpy(t->lsc[i].gain, r->shading.table[i].gain, sizeof(t->lsc[i].gain));
		}
	}
	if (r->defects.count > TUNING_MAX_DEFECTS)
		return cisp_error(-EINVAL, "%u defective pixels: a tuning holds at most %d", r->defects.count,
				  TUNING_MAX_DEFECTS);
	if (r->defects.count || r->black.frames) {
		t->defect_count = r->defects.count;
		for (unsigned i = 0; i < r->defects.count; i++) {
			t->defects[i].x = (uint16_t)r->defects.list[i].x;
			t->defects[i].y = (uint16_t)r->defects.list[i].y;
		}
	}
	if (r->colour.count) {
		t->awb.ct_count = r->colour.curve_count;
		for (unsigned i = 0; i < r->colour.curve_count; i++)
			t->awb.ct[i] = (struct tuning_ct_point){ r->colour.curve[i].ct, r->colour.curve[i].r_over_g,
								 r->colour.curve[i].b_over_g };
		/* Zones as far off the curve as the band reaches must count (a zone weighs fully within half max_curve_distance). */
		t->awb.transverse = r->colour.transverse;
		t->awb.max_curve_distance = fmax(t->awb.max_curve_distance, 2 * r->colour.transverse);
		/* AWB starts between indoor light and daylight, as the uncalibrated tuning does: a setting, not a measurement. */
		t->awb.default_ct = fmin(fmax(5000, r->colour.curve[0].ct), r->colour.curve[r->colour.curve_count - 1].ct);
		t->ccm_count = calib_spectral_matrices(&c->spectral, t);
		for (unsigned i = 0; i < r->colour.count && !c->spectral.chosen; i++) {
			/* Two charts of one colour temperature: the first serves (the table rises strictly). */
			if (t->ccm_count && r->colour.chart[i].ct <= t->ccm[t->ccm_count - 1].ct + 0.5)
				continue;
			t->ccm[t->ccm_count].ct = fmin(fmax(round(r->colour.chart[i].ct), 1000), 20000);
			t->ccm[t->ccm_count].tint = 0;
			memcpy(t->ccm[t->ccm_count].m, r->colour.chart[i].ccm, sizeof(t->ccm[0].m));
			t->ccm_count++;
		}
		if (r->colour.lux_scale > 0)
			t->ae.lux_scale = r->colour.lux_scale;
	}
	if (!have_base) {
		t->denoise_count = sizeof(standard_denoise) / sizeof(standard_denoise[0]);
		memcpy(t->denoise, standard_denoise, sizeof(standard_denoise));
		t->ltm = standard_ltm;
	}
	sharpen0 = t->denoise[0].sharpen_strength;
	if (r->sharpness.valid)
		for (unsigned i = 0; i < t->denoise_count; i++)
			t->denoise[i].sharpen_strength = sharpen0 > 0 ? r->sharpness.sharpen * t->denoise[i].sharpen_strength / sharpen0
								      : r->sharpness.sharpen;
	if (!t->awb.ct_count || !t->ccm_count)
		return cisp_error(-EINVAL, "no chart and no base tuning: the white-balance curve and the colour matrices "
					   "need a ColorChecker (--chart FILE@ILLUMINANT) or --base");
	if (!t->noise_count)
		return cisp_error(-EINVAL, "no pair of flats and no base tuning: the noise profile needs two flats of "
					   "one exposure (--flat A --flat B) or --base");
	return 0;
}

static void write_provenance(FILE *f, const struct cisp_calib *c, const struct cisp_calib_result *r,
			     const struct cisp_calib_provenance *prov)
{
	char date[32];
	time_t now = time(NULL);
	struct tm tm;
	double rms = 0, shading = 0;

	if (!prov->date && gmtime_r(&now, &tm))
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(f, "provenance:\n  tool: ");
	quoted(f, prov->tool ? prov->tool : "cisp calibrate");
	fprintf(f, "\n  date: ");
	quoted(f, prov->date ? prov->date : date);
	if (prov->command) {
		fprintf(f, "\n  command: ");
		quoted(f, prov->command);
	}
	fprintf(f, "\n  inputs:\n");
	for (unsigned i = 0; i < c->num_inputs; i++) {
		const struct calib_input *in = &c->inputs[i];

		fprintf(f, "    - {kind: %s, file: ", cisp_calib_kind_name(in->kind));
		quoted(f, in->name);
		if (in->illuminant[0]) {
			fprintf(f, ", illuminant: ");
			quoted(f, in->illuminant);
		}
		fprintf(f, ", exposure_s: %.6g, gain: %.6g", in->exposure_s, in->gain);
		if (in->lux > 0)
			fprintf(f, ", lux: %.6g", in->lux);
		fprintf(f, "}\n");
	}
	if (r->colour.count) {
		fprintf(f, "  charts:\n");
		for (unsigned i = 0; i < r->colour.count; i++) {
			const struct cisp_calib_chart *ch = &r->colour.chart[i];

			fprintf(f, "    - {illuminant: ");
			quoted(f, ch->illuminant);
			fprintf(f, ", ct: %.0f, fit_mean_de00: %.3f, fit_max_de00: %.3f, loo_mean_de00: %.3f}\n", ch->ct,
				ch->fit.mean_de00, ch->fit.max_de00, ch->loo_mean_de00);
		}
	}
	for (unsigned i = 0; i < r->noise.count; i++)
		rms = fmax(rms, r->noise.gain[i].fit_rms);
	for (unsigned i = 0; i < r->shading.count; i++)
		shading = fmax(shading, r->shading.table[i].residual_pct);
	fprintf(f, "  fits: {black_spread: %.3f, shading_residual_pct: %.3f, noise_fit_rms: %.4f, defects: %u",
		r->black.spread, fmin(shading, 100), fmin(rms, 100), r->defects.count);
	calib_spectral_provenance(f, &c->spectral);
}

int calib_tuning_emit(const struct cisp_tuning *t, const char *comment,
		      void (*more)(FILE *f, const void *ctx), const void *ctx, struct cisp_output_file *out)
{
	struct cisp_tuning *check = NULL;
	char *text = NULL;
	size_t length = 0;
	FILE *mem = open_memstream(&text, &length);
	int ret;

	if (!mem)
		return cisp_error(-ENOMEM, "out of memory");
	{
		/* Numbers in the "C" locale whatever the application set. */
		locale_t previous = cisp_c_numeric_begin();

		fprintf(mem, "# %s Schema: docs/tuning.md.\n", comment);
		write_tuning(mem, t);
		if (more)
			more(mem, ctx);
		cisp_c_numeric_end(previous);
	}
	fclose(mem);
	ret = cisp_tuning_parse(&check, text, length, "the tuning written");
	cisp_tuning_free(check);
	if (ret)
		ret = cisp_error_prefix(ret, "the tuning written does not read back");
	if (!ret && fwrite(text, 1, length, cisp_output_file_stream(out)) != length)
		ret = cisp_error(-EIO, "%s: write failed", cisp_output_file_path(out));
	free(text);
	return ret;
}

struct provenance_ctx {
	const struct cisp_calib *c;
	const struct cisp_calib_provenance *prov;
};

static void more_provenance(FILE *f, const void *ctx)
{
	const struct provenance_ctx *p = ctx;

	write_provenance(f, p->c, &p->c->result, p->prov);
}

int cisp_calib_write_tuning(struct cisp_calib *c, const char *base, const struct cisp_calib_provenance *prov,
			    struct cisp_output_file *out)
{
	struct cisp_tuning *t = NULL;
	const struct cisp_calib_result *r;
	char comment[160];
	int ret = c->solved ? 0 : cisp_calib_solve(c, &r);

	r = &c->result;
	if (!ret && base)
		ret = cisp_tuning_load(&t, base);
	if (!ret && !base) {
		if (!(t = malloc(sizeof(*t))))
			return cisp_error(-ENOMEM, "out of memory");
		tuning_defaults(t);
	}
	if (!ret)
		ret = apply_result(c, r, base != NULL, t);
	snprintf(comment, sizeof(comment), "Tuning of %s, calibrated by cisp calibrate (docs/calibrate.md).", c->sensor);
	if (!ret)
		ret = calib_tuning_emit(t, comment, more_provenance, &(struct provenance_ctx){ c, prov }, out);
	cisp_tuning_free(t);
	return ret;
}
