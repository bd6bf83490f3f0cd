/* SPDX-License-Identifier: MIT */
/* The report's contents, shared by its JSON and HTML writers. */
#ifndef CISP_IQ_REPORT_INTERNAL_H
#define CISP_IQ_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cisp/iq_report.h>

enum entry_kind {
	ENTRY_INFO,
	ENTRY_COLOR,
	ENTRY_SFR,
	ENTRY_NOISE,
	ENTRY_SHADING,
	ENTRY_FALSE_COLOR,
	ENTRY_CONVERGENCE,
	ENTRY_IMAGE,
	ENTRY_CHECK,
	ENTRY_PLOT,
};

/* An x-y plot: its axes and series, each series' points stored after the names (one allocation). */
struct report_plot {
	char xlabel[64], ylabel[64];
	bool log_x, log_y;
	unsigned count;
	struct {
		char name[64];
		bool line;
		unsigned n;
		double *x, *y;
	} series[8];
};

struct report_check {
	bool numeric;
	bool pass;
	double value;
	double limit;
	char op[3];
	char unit[24];
	char *detail;
};

struct report_entry {
	enum entry_kind kind;
	char *label;
	char *text;   /* info value; image: base64 PNG */
	char unit[32];
	unsigned width, height; /* image */
	union {
		struct cisp_iq_color_result *color;
		struct cisp_iq_sfr_result *sfr;
		struct cisp_iq_noise_result *noise;
		struct cisp_iq_shading_result *shading;
		struct cisp_iq_false_color_result *false_color;
		struct cisp_iq_convergence *conv;
		struct report_check *check;
		struct report_plot *plot;
		void *any;
	} u;
};

struct cisp_iq_report {
	char *title;
	struct report_entry *entries;
	unsigned count, capacity;
};

/* Count the entries of a kind. */
unsigned report_count(const struct cisp_iq_report *r, enum entry_kind kind);

/* Encode an image as a PNG, base64, scaled to at most @max_width; malloc()ed text. */
int report_png_base64(const struct cisp_iq_image *img, double gain, unsigned max_width, char **text,
		      unsigned *width, unsigned *height);

#endif
