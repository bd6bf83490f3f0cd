/* SPDX-License-Identifier: MIT */
/**
 * @file iq_report.h
 * @brief The image-quality report: results of the metrics, pass/fail checks
 * and pictures, written as JSON (for machines) and as one self-contained
 * HTML file with inline SVG plots (for people; it opens in any browser
 * without a network and runs no scripts).
 */
#ifndef CISP_IQ_REPORT_H
#define CISP_IQ_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include <cisp/api.h>
#include <cisp/iq_color.h>
#include <cisp/iq_converge.h>
#include <cisp/iq_false_color.h>
#include <cisp/iq_image.h>
#include <cisp/iq_noise.h>
#include <cisp/output_file.h>
#include <cisp/iq_sfr.h>
#include <cisp/iq_shading.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An opaque report under construction. */
struct cisp_iq_report;

/**
 * cisp_iq_report_create() - start a report.
 * @report: receives it; free with cisp_iq_report_destroy().
 * @title: its title.
 * Return: 0 or -ENOMEM.
 */
CISP_API int cisp_iq_report_create(struct cisp_iq_report **report, const char *title);

/**
 * cisp_iq_report_destroy() - free a report.
 * @report: the report (may be NULL).
 */
CISP_API void cisp_iq_report_destroy(struct cisp_iq_report *report);

/**
 * cisp_iq_report_info() - add a line of context (camera, illuminant, command).
 * @report: the report.
 * @key: what it is.
 * @value: its value.
 * Return: 0 or -ENOMEM.
 */
CISP_API int cisp_iq_report_info(struct cisp_iq_report *report, const char *key, const char *value);

/*
 * Results. Each is copied into the report with a label that says what was
 * measured ("D65, 400 lux", "centre, horizontal").
 * Return: 0 or -ENOMEM.
 */

/** cisp_iq_report_color() - add a colour evaluation (swatches, a*b* plot). */
CISP_API int cisp_iq_report_color(struct cisp_iq_report *report, const char *label,
				  const struct cisp_iq_color_result *r);
/** cisp_iq_report_sfr() - add an edge response (MTF and edge-profile plots). */
CISP_API int cisp_iq_report_sfr(struct cisp_iq_report *report, const char *label, const struct cisp_iq_sfr_result *r);
/** cisp_iq_report_noise() - add a grey-step measurement (SNR against level). */
CISP_API int cisp_iq_report_noise(struct cisp_iq_report *report, const char *label,
				  const struct cisp_iq_noise_result *r);
/** cisp_iq_report_shading() - add a flat-field measurement (block map). */
CISP_API int cisp_iq_report_shading(struct cisp_iq_report *report, const char *label,
				    const struct cisp_iq_shading_result *r);
/** cisp_iq_report_false_color() - add a false-colour measurement. */
CISP_API int cisp_iq_report_false_color(struct cisp_iq_report *report, const char *label,
					const struct cisp_iq_false_color_result *r);
/**
 * cisp_iq_report_convergence() - add a 3A convergence record.
 * @report: the report.
 * @label: e.g. "AE".
 * @unit: unit of the values, e.g. "% of target", "degrees".
 * @r: the record.
 * Return: 0 or -ENOMEM.
 */
CISP_API int cisp_iq_report_convergence(struct cisp_iq_report *report, const char *label, const char *unit,
					const struct cisp_iq_convergence *r);

/**
 * struct cisp_iq_plot_series - one series of an x-y plot.
 * @name: its legend.
 * @x: @n abscissae.
 * @y: @n ordinates.
 * @n: points.
 * @line: joined by a line (else drawn as points).
 */
struct cisp_iq_plot_series {
	const char *name;
	const double *x;
	const double *y;
	unsigned n;
	bool line;
};

/**
 * cisp_iq_report_plot() - add an x-y plot (a photon transfer curve, a
 * white-balance curve); the series are copied.
 * @report: the report.
 * @label: the plot's title.
 * @xlabel: the x axis.
 * @ylabel: the y axis.
 * @log_x: a logarithmic x axis (the HTML plots log10 x; values <= 0 are left out).
 * @log_y: the same for y.
 * @series: the series.
 * @count: how many, 1..8.
 * Return: 0, -EINVAL or -ENOMEM.
 */
CISP_API int cisp_iq_report_plot(struct cisp_iq_report *report, const char *label, const char *xlabel,
				 const char *ylabel, bool log_x, bool log_y, const struct cisp_iq_plot_series *series,
				 unsigned count);

/**
 * cisp_iq_report_image() - add a picture (shown scaled to at most 480
 * pixels wide, embedded as PNG).
 * @report: the report.
 * @label: its caption.
 * @img: the image, linear.
 * @gain: multiplier before sRGB encoding (1.0 for none).
 * Return: 0, -EINVAL or -ENOMEM.
 */
CISP_API int cisp_iq_report_image(struct cisp_iq_report *report, const char *label, const struct cisp_iq_image *img,
				  double gain);

/**
 * cisp_iq_report_check() - add a numeric pass/fail check.
 * @report: the report.
 * @name: what is checked ("ColorChecker mean dE00, D65").
 * @value: the measured value.
 * @unit: its unit ("" for none).
 * @op: "<=" (the value must not exceed @limit) or ">=".
 * @limit: the threshold.
 * Return: whether the check passed (it is recorded either way).
 */
CISP_API bool cisp_iq_report_check(struct cisp_iq_report *report, const char *name, double value, const char *unit,
				   const char *op, double limit);

/**
 * cisp_iq_report_check_text() - add a pass/fail check that is not a number.
 * @report: the report.
 * @name: what is checked ("block lsc present").
 * @pass: the outcome.
 * @detail: why (shown beside it), or NULL.
 * Return: @pass.
 */
CISP_API bool cisp_iq_report_check_text(struct cisp_iq_report *report, const char *name, bool pass, const char *detail);

/**
 * cisp_iq_report_passed() - whether every check so far passed.
 * @report: the report.
 * @failed: receives the number of failed checks, or NULL.
 * Return: true when none failed (also when there are no checks).
 */
CISP_API bool cisp_iq_report_passed(const struct cisp_iq_report *report, unsigned *failed);

/**
 * cisp_iq_report_print_checks() - print the checks as a pass/fail table.
 * @report: the report.
 * @out: where to print.
 */
CISP_API void cisp_iq_report_print_checks(const struct cisp_iq_report *report, FILE *out);

/**
 * cisp_iq_report_write_json() - write the report as JSON (docs/iq.md
 * describes the schema).
 * @report: the report.
 * @path: the file, replaced if it exists; written as an output file
 *        (output_file.h): nothing appears there on failure.
 * Return: 0 or a negative errno with a message.
 */
CISP_API int cisp_iq_report_write_json(const struct cisp_iq_report *report, const char *path);

/**
 * cisp_iq_report_write_json_to() - cisp_iq_report_write_json() into an
 * output file the caller created and then commits or discards.
 * @report: the report.
 * @out: the output file.
 * Return: 0 or a negative errno with a message.
 */
CISP_API int cisp_iq_report_write_json_to(const struct cisp_iq_report *report, struct cisp_output_file *out);

/**
 * cisp_iq_report_write_html() - write the report as one self-contained HTML
 * file: inline CSS, SVG plots and PNG pictures, no scripts, no links out.
 * @report: the report.
 * @path: the file, replaced if it exists; written as an output file
 *        (output_file.h): nothing appears there on failure.
 * Return: 0 or a negative errno with a message.
 */
CISP_API int cisp_iq_report_write_html(const struct cisp_iq_report *report, const char *path);

/**
 * cisp_iq_report_write_html_to() - cisp_iq_report_write_html() into an
 * output file the caller created and then commits or discards.
 * @report: the report.
 * @out: the output file.
 * Return: 0 or a negative errno with a message.
 */
CISP_API int cisp_iq_report_write_html_to(const struct cisp_iq_report *report, struct cisp_output_file *out);

#ifdef __cplusplus
}
#endif

#endif /* CISP_IQ_REPORT_H */
