/* SPDX-License-Identifier: MIT */
/*
 * The image-quality report: its JSON parses and holds the numbers, its HTML is
 * self-contained, and headless Chromium renders it (the swatch colours and
 * the verdict banner are on screen).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cisp/error.h>
#include <cisp/iq.h>
#include <cisp/raster.h>

#include "test.h"

static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* ---- a strict JSON syntax check (RFC 8259 grammar, no extensions) ---- */

static const char *j_value(const char *p);

static const char *j_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
		p++;
	return p;
}

static const char *j_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
						return NULL;
				p += 4;
			} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
		p++;
	}
	return *p == '"' ? p + 1 : NULL;
}

static const char *j_number(const char *p)
{
	const char *s = p;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return NULL;
	if (*p == '.') {
		if (!(*++p >= '0' && *p <= '9'))
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return p > s ? p : NULL;
}

static const char *j_container(const char *p, char close, bool object)
{
	p = j_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (object) {
			p = j_string(j_ws(p));
			if (!p || *(p = j_ws(p)) != ':')
				return NULL;
			p++;
		}
		p = j_value(p);
		if (!p)
			return NULL;
		p = j_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *j_value(const char *p)
{
	p = j_ws(p);
	switch (*p) {
	case '{': return j_container(p, '}', true);
	case '[': return j_container(p, ']', false);
	case '"': return j_string(p);
	case 't': return strncmp(p, "true", 4) ? NULL : p + 4;
	case 'f': return strncmp(p, "false", 5) ? NULL : p + 5;
	case 'n': return strncmp(p, "null", 4) ? NULL : p + 4;
	default: return j_number(p);
	}
}

static bool json_valid(const char *text)
{
	const char *end = j_value(text);

	return end && *j_ws(end) == 0;
}

/* ---- a report with one of everything ---- */

static void fill_report(struct cisp_iq_report *r, struct cisp_iq_color_result *color)
{
	const struct cisp_iq_colorchecker_patch *cc = cisp_iq_colorchecker();
	double m[24][3];
	struct cisp_iq_image img;
	static struct cisp_iq_sfr_result sfr;
	static struct cisp_iq_noise_result noise;
	static struct cisp_iq_shading_result shading;
	static struct cisp_iq_convergence conv;
	struct cisp_iq_false_color_result fc = { 0.8, 3.1, 9.5, 0.002 };
	struct cisp_iq_rect rects[8];
	double levels[8];
	const double ae[] = { 20, 45, 70, 88, 96, 99, 100.5, 100, 100, 100 };

	CHECK_EQ(cisp_iq_report_info(r, "camera", "synthetic <test> & \"chart\""), 0);
	CHECK_EQ(cisp_iq_report_info(r, "illuminant", "D65"), 0);
	/* The chart rendered with a small error: red 4 % strong. */
	for (int i = 0; i < 24; i++) {
		double xyz[3];

		cisp_iq_lab_to_xyz(cc[i].lab_d50, cisp_iq_white_d50, xyz);
		cisp_iq_adapt(xyz, cisp_iq_white_d50, cisp_iq_white_d65, xyz);
		cisp_iq_xyz_to_srgb(xyz, m[i]);
		m[i][0] *= 1.04;
	}
	CHECK_EQ(cisp_iq_colorchecker_evaluate((const double(*)[3])m, NULL, color), 0);
	CHECK_EQ(cisp_iq_report_color(r, "ColorChecker, D65", color), 0);
	/* An edge with sigma 1. */
	CHECK_EQ(cisp_iq_image_alloc(&img, 96, 96, 1), 0);
	for (int y = 0; y < 96; y++)
		for (int x = 0; x < 96; x++)
			img.data[y * 96 + x] = (float)(0.1 + 0.7 * 0.5 * erfc(-((x - 48) - 0.0875 * (y - 48)) / sqrt(2.0)));
	CHECK_EQ(cisp_iq_sfr(&img, &(struct cisp_iq_rect){ 16, 16, 64, 64 }, -1, &sfr), 0);
	CHECK_EQ(cisp_iq_report_sfr(r, "centre, vertical edge", &sfr), 0);
	CHECK_EQ(cisp_iq_report_image(r, "the edge", &img, 1.0), 0);
	/* Eight grey steps of 1 EV with noise. */
	for (int k = 0; k < 8; k++) {
		rects[k] = (struct cisp_iq_rect){ (k % 4) * 24, (k / 4) * 24, 20, 20 };
		levels[k] = pow(2, -k);
		for (int y = 0; y < 20; y++)
			for (int x = 0; x < 20; x++)
				img.data[(rects[k].y + y) * 96 + rects[k].x + x] =
					(float)(levels[k] * 0.8 + 0.004 * ((int)(test_rand() % 1000) - 500) / 289.0);
	}
	CHECK_EQ(cisp_iq_noise(&img, rects, levels, 8, false, &noise), 0);
	CHECK_EQ(cisp_iq_report_noise(r, "grey steps, D65", &noise), 0);
	for (int i = 0; i < 96 * 96; i++)
		img.data[i] = (float)(0.5 * (1 - 0.3 * (pow((i % 96 - 48) / 48.0, 2) + pow((i / 96 - 48) / 48.0, 2))));
	CHECK_EQ(cisp_iq_shading(&img, 9, &shading), 0);
	CHECK_EQ(cisp_iq_report_shading(r, "flat field", &shading), 0);
	CHECK_EQ(cisp_iq_report_false_color(r, "Siemens star", &fc), 0);
	CHECK_EQ(cisp_iq_convergence(ae, 10, 100, 2, &conv), 0);
	CHECK_EQ(cisp_iq_report_convergence(r, "AE", "% of target", &conv), 0);
	CHECK(cisp_iq_report_check(r, "mean dE00", color->mean_de00, "", "<=", 3));
	CHECK(!cisp_iq_report_check(r, "MTF50", sfr.mtf50, "c/p", ">=", 0.3));
	CHECK(cisp_iq_report_check_text(r, "block lsc present", true, "capability bit set"));
	cisp_iq_image_free(&img);
}

/* Where Debian's browser is, or NULL. */
static const char *find_chromium(void)
{
	static const char *const paths[] = { "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome" };
	const char *env = getenv("CISP_CHROMIUM");

	if (env && access(env, X_OK) == 0)
		return env;
	for (unsigned i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (access(paths[i], X_OK) == 0)
			return paths[i];
	return NULL;
}

TEST(iq_report_json_and_html)
{
	struct cisp_iq_report *r;
	static struct cisp_iq_color_result color;
	char json[512], html[512];
	char *text;
	unsigned failed;

	CHECK_EQ(cisp_iq_report_create(&r, "test report"), 0);
	fill_report(r, &color);
	CHECK(!cisp_iq_report_passed(r, &failed));
	CHECK_EQ(failed, 1);
	snprintf(json, sizeof(json), "%s/report.json", test_tmp_dir());
	snprintf(html, sizeof(html), "%s/report.html", test_tmp_dir());
	CHECK_EQ(cisp_iq_report_write_json(r, json), 0);
	CHECK_EQ(cisp_iq_report_write_html(r, html), 0);
	text = test_read_text(json);
	CHECK(text != NULL);
	if (text) {
		char want[64];

		CHECK(json_valid(text));
		CHECK(strstr(text, "\"camera\": \"synthetic <test> & \\\"chart\\\"\"") != NULL);
		snprintf(want, sizeof(want), "\"mean_de00\": %.6g", color.mean_de00);
		CHECK(strstr(text, want) != NULL);
		CHECK(strstr(text, "\"passed\": false") != NULL);
		CHECK(strstr(text, "\"frames\": 5") != NULL);
		CHECK_EQ(count(text, "\"de00\""), 24);
		free(text);
	}
	text = test_read_text(html);
	CHECK(text != NULL);
	if (text) {
		/* Self-contained: no scripts, no external references (the SVG namespace is a name, not a fetch). */
		CHECK(!strstr(text, "<script"));
		CHECK(!strstr(text, "src=\"http"));
		CHECK(!strstr(text, "href="));
		CHECK(!strstr(text, "@import"));
		CHECK_EQ(count(text, "http"), count(text, "xmlns=\"http://www.w3.org/2000/svg\""));
		CHECK(strstr(text, "synthetic &lt;test&gt; &amp; &quot;chart&quot;") != NULL);
		CHECK(strstr(text, "data:image/png;base64,iVBORw0KGgo") != NULL);
		CHECK_EQ(count(text, "<g class=\"patch\">"), 24);
		CHECK_EQ(count(text, "<svg"), count(text, "</svg>"));
		CHECK(count(text, "<svg") >= 7);
		CHECK(strstr(text, "FAIL &mdash; 1 check failed") != NULL);
		free(text);
	}
	cisp_iq_report_destroy(r);
	cisp_iq_report_destroy(NULL);
}

/* Under a locale with a decimal comma the JSON stays JSON and the HTML shows points. */
TEST(iq_report_numbers_ignore_the_locale)
{
	struct cisp_iq_report *r;
	static struct cisp_iq_color_result color;
	char json[512], html[512], want[64];
	char *text;

	if (!test_comma_locale_begin())
		return;
	CHECK_EQ(cisp_iq_report_create(&r, "comma report"), 0);
	fill_report(r, &color);
	snprintf(json, sizeof(json), "%s/comma.json", test_tmp_dir());
	snprintf(html, sizeof(html), "%s/comma.html", test_tmp_dir());
	CHECK_EQ(cisp_iq_report_write_json(r, json), 0);
	CHECK_EQ(cisp_iq_report_write_html(r, html), 0);
	snprintf(want, sizeof(want), "%.1f", 0.5);
	CHECK(strcmp(want, "0,5") == 0); /* the locale is really in force here */
	test_comma_locale_end();
	text = test_read_text(json);
	CHECK(text != NULL);
	if (text) {
		CHECK(json_valid(text));
		snprintf(want, sizeof(want), "\"mean_de00\": %.6g", color.mean_de00);
		CHECK(strstr(text, want) != NULL);
		free(text);
	}
	text = test_read_text(html);
	CHECK(text != NULL);
	if (text) {
		char *point;

		snprintf(want, sizeof(want), "<b>%.2f</b>", color.mean_de00);
		CHECK(strstr(text, want) != NULL);
		point = strchr(want, '.');
		if (point)
			*point = ',';
		CHECK(!strstr(text, want));
		free(text);
	}
	cisp_iq_report_destroy(r);
}

/* Run a shell command; return its exit status. */
static int run(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(iq_report_renders_in_chromium)
{
	const char *chromium = find_chromium();
	struct cisp_iq_report *r;
	static struct cisp_iq_color_result color;
	char html[512], shot[512], dom[512], cmd[4096], profile[512];
	struct cisp_raster img;
	char *text;

	if (!chromium) {
		test_skip("CHROMIUM IS NOT INSTALLED: the HTML report was not rendered "
			  "(apt-get install chromium, or set CISP_CHROMIUM)");
		return;
	}
	CHECK_EQ(cisp_iq_report_create(&r, "render test"), 0);
	fill_report(r, &color);
	snprintf(html, sizeof(html), "%s/render.html", test_tmp_dir());
	snprintf(shot, sizeof(shot), "%s/render.png", test_tmp_dir());
	snprintf(dom, sizeof(dom), "%s/render.dom", test_tmp_dir());
	snprintf(profile, sizeof(profile), "%s/chromium-profile", test_tmp_dir());
	CHECK_EQ(cisp_iq_report_write_html(r, html), 0);
	cisp_iq_report_destroy(r);
	mkdir(profile, 0700);
#define CHROMIUM_ARGS "--headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run " \
		      "--disable-extensions --hide-scrollbars --force-color-profile=srgb"
	snprintf(cmd, sizeof(cmd),
		 "timeout 120 '%s' " CHROMIUM_ARGS " --user-data-dir='%s' --window-size=1280,2000 --screenshot='%s' "
		 "'file://%s' >'%s.log' 2>&1",
		 chromium, profile, shot, html, shot);
	CHECK_EQ(run(cmd), 0);
	if (cisp_raster_read(shot, &img) != 0) {
		test_fail(__FILE__, __LINE__, "no screenshot: %s (see %s.log)", cisp_last_error(), shot);
		return;
	}
	CHECK_EQ(img.width, 1280);
	CHECK_EQ(img.channels, 3);
	{
		/* The header band (#1d2b3a) at the top, and each reference swatch colour as a solid block. */
		uint16_t *p = img.data + (10 * img.width + 10) * 3;
		unsigned found = 0;

		CHECK(abs(p[0] - 0x1d) <= 2 && abs(p[1] - 0x2b) <= 2 && abs(p[2] - 0x3a) <= 2);
		for (unsigned k = 0; k < color.count; k++) {
			int want[3];
			unsigned n = 0;

			for (int c = 0; c < 3; c++)
				want[c] = (int)lrint(color.patch[k].ref_srgb[c] * 255);
			for (size_t i = 0; i < (size_t)img.width * img.height; i++)
				if (abs(img.data[3 * i] - want[0]) <= 2 && abs(img.data[3 * i + 1] - want[1]) <= 2 &&
				    abs(img.data[3 * i + 2] - want[2]) <= 2)
					n++;
			/* A swatch half is 100x50 pixels. */
			if (n >= 4000)
				found++;
			else
				test_fail(__FILE__, __LINE__, "swatch %s: only %u pixels of its colour on screen",
					  color.patch[k].name, n);
		}
		CHECK_EQ(found, color.count);
	}
	cisp_raster_free(&img);
	/* The DOM Chromium built holds every plot: nothing was dropped by a parse error. */
	snprintf(cmd, sizeof(cmd),
		 "timeout 120 '%s' " CHROMIUM_ARGS " --user-data-dir='%s' --dump-dom 'file://%s' >'%s' 2>'%s.log'",
		 chromium, profile, html, dom, dom);
	CHECK_EQ(run(cmd), 0);
	text = test_read_text(dom);
	CHECK(text != NULL);
	if (text) {
		char *orig = test_read_text(html);

		CHECK(strstr(text, "</html>") != NULL);
		CHECK(orig && count(text, "<svg") == count(orig, "<svg"));
		CHECK(orig && count(text, "<rect") == count(orig, "<rect"));
		CHECK(strstr(text, "render test") != NULL);
		free(orig);
		free(text);
	}
}
