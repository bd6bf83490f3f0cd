/* SPDX-License-Identifier: MIT */
/*
 * Local tone mapping figures (docs/stages/ltm.md, "Measurements"):
 *
 *   bench-ltm range    the stops of a stepped chart whose fine texture is
 *                      still visible in the 8-bit output, without and
 *                      with LTM, and the overshoot at a 6-stop edge;
 *   bench-ltm speed W H [frames]
 *                      milliseconds per frame of the stage alone on one
 *                      thread (bench/ltm_peer.sh sets it against OpenCV).
 *
 * The chart is rendered here as a 12-bit raw frame in linear light with
 * shot and read noise: 20 bands a stop apart, each a checkerboard of 4x4
 * squares at +-20 % (Michelson contrast 0.2), exposed so that the
 * brightest band sits at 90 % of full scale, as an exposure that keeps
 * the highlights of a high dynamic range scene does. The LTM grid comes
 * from the control algorithm (src/control/ltm.c) fed with the frame's own
 * statistics.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cisp/error.h>
#include <cisp/isp.h>

#include "control/ltm_grid.h"
#include "isp/dsp.h"
#include "isp/ltm.h"

#define BANDS 20
#define BAND_W 64
#define CHART_H 256

static uint64_t rng = 88172645463325252ull;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((rng >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* A 12-bit code for linear light @v (1.0 = full scale): 10000 e- full well, 2 e- read noise. */
static uint16_t sense(double v)
{
	double e = v * 10000, n = e + gauss() * sqrt(e + 4);
	long code = lround(n / 10000 * 4095);

	return (uint16_t)(code < 0 ? 0 : code > 4095 ? 4095 : code);
}

/* Band b's level, fraction of full scale: the last band at 0.9, each one a stop below the next. */
static double band_level(int b)
{
	return 0.9 * exp2(b - (BANDS - 1));
}

static void render_steps(struct cisp_image *img)
{
	for (uint32_t y = 0; y < img->height; y++) {
		uint16_t *row = (uint16_t *)(void *)(img->plane[0].data + y * img->plane[0].stride);

		for (uint32_t x = 0; x < img->width; x++) {
			int b = (int)(x / BAND_W), bright = ((x / 4) + (y / 4)) & 1;

			row[x] = sense(band_level(b) * (bright ? 1.2 : 0.8));
		}
	}
}

/* A dark half and a bright half 6 stops apart, flat: the edge LTM must not halo. */
static void render_edge(struct cisp_image *img)
{
	for (uint32_t y = 0; y < img->height; y++) {
		uint16_t *row = (uint16_t *)(void *)(img->plane[0].data + y * img->plane[0].stride);

		for (uint32_t x = 0; x < img->width; x++)
			row[x] = sense(x < img->width / 2 ? 0.9 / 64 : 0.9);
	}
}

/* The frame through the canonical pipeline (12-bit black 0, sRGB), with or without LTM, into 8-bit RGB. */
static int develop(const struct cisp_image *in, struct cisp_image *out, double strength)
{
	struct cisp_isp_config c = { CISP_FMT_SRGGB12, in->width, in->height, { { CISP_FMT_RGB888, in->width, in->height } } };
	struct cisp_image *outs[2] = { out, NULL };
	struct cisp_param_state s;
	struct cisp_stats *st = calloc(1, sizeof(*st));
	struct cisp_isp *isp;
	int ret = st ? cisp_isp_create(&isp, &c) : -1;

	if (ret) {
		free(st);
		return ret;
	}
	cisp_param_state_init(&s);
	ret = cisp_isp_set_state(isp, &s, ~0u);
	if (!ret)
		ret = cisp_isp_process(isp, in, outs, st, NULL);
	if (!ret && strength > 0) {
		const struct ltm_tuning t = { .strength = strength, .boost = 4, .cut = 1, .range = 1.5 };
		const double wb[3] = { 1, 1, 1 };

		ret = control_ltm_grid(st, wb, 0.18, &t, &s.ltm);
		s.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_LTM);
		if (!ret)
			ret = cisp_isp_set_state(isp, &s, CISP_BLOCK_BIT(CISP_BLOCK_LTM));
		if (!ret)
			ret = cisp_isp_process(isp, in, outs, NULL, NULL);
	}
	if (ret)
		fprintf(stderr, "bench-ltm: %s\n", cisp_last_error());
	cisp_isp_destroy(isp);
	free(st);
	return ret;
}

static double green_at(const struct cisp_image *out, uint32_t x, uint32_t y)
{
	return out->plane[0].data[y * out->plane[0].stride + 3 * x + 1];
}

/*
 * The texture of band @b in the output: mean 8-bit green of the inner 2x2
 * pixels of its bright squares and of its dark ones, over the band's
 * middle (16 pixels in from each side, rows 64..191).
 */
static void band_texture(const struct cisp_image *out, int b, double *bright, double *dark)
{
	double sum[2] = { 0, 0 };
	int n[2] = { 0, 0 };

	for (uint32_t y = 64; y < 192; y++)
		for (uint32_t x = (uint32_t)b * BAND_W + 16; x < (uint32_t)(b + 1) * BAND_W - 16; x++) {
			int k = ((x / 4) + (y / 4)) & 1;

			if ((x % 4 == 1 || x % 4 == 2) && (y % 4 == 1 || y % 4 == 2)) {
				sum[k] += green_at(out, x, y);
				n[k]++;
			}
		}
	*bright = sum[1] / n[1];
	*dark = sum[0] / n[0];
}

/*
 * A band keeps detail when its squares differ by at least one 8-bit code and 2 % Michelson
 * contrast; the range is the bands kept from the brightest down to the first that is not.
 */
static int range_figures(void)
{
	struct cisp_image in, out[2];
	int kept[2] = { 0, 0 }, ok[2][BANDS];

	if (cisp_image_alloc(&in, CISP_FMT_SRGGB12, BANDS * BAND_W, CHART_H) ||
	    cisp_image_alloc(&out[0], CISP_FMT_RGB888, BANDS * BAND_W, CHART_H) ||
	    cisp_image_alloc(&out[1], CISP_FMT_RGB888, BANDS * BAND_W, CHART_H))
		return 1;
	render_steps(&in);
	if (develop(&in, &out[0], 0) || develop(&in, &out[1], 0.6))
		return 1;
	printf("band  stops  without LTM: bright dark michelson   with LTM: bright dark michelson\n");
	for (int b = 0; b < BANDS; b++) {
		printf("%4d  %+5.0f", b, log2(band_level(b) / 0.18));
		for (int k = 0; k < 2; k++) {
			double hi, lo, m;

			band_texture(&out[k], b, &hi, &lo);
			m = hi + lo > 0 ? (hi - lo) / (hi + lo) : 0;
			ok[k][b] = hi - lo >= 1 && m >= 0.02;
			printf("   %s %6.1f %6.1f %6.3f%s", k ? "  " : "", hi, lo, m, ok[k][b] ? " kept" : "     ");
		}
		printf("\n");
	}
	for (int k = 0; k < 2; k++)
		while (kept[k] < BANDS && ok[k][BANDS - 1 - kept[k]])
			kept[k]++;
	printf("stops of scene luminance kept from the brightest down: %d without LTM (to %+.0f), %d with LTM (to %+.0f)\n",
	       kept[0], log2(band_level(BANDS - kept[0]) / 0.18), kept[1], log2(band_level(BANDS - kept[1]) / 0.18));
	cisp_image_free(&in);
	cisp_image_free(&out[0]);
	cisp_image_free(&out[1]);
	return 0;
}

/* Mean 8-bit green of each column over the middle rows. */
static void column_profile(const struct cisp_image *out, double *p)
{
	for (uint32_t x = 0; x < out->width; x++) {
		p[x] = 0;
		for (uint32_t y = 64; y < 192; y++)
			p[x] += green_at(out, x, y);
		p[x] /= 128;
	}
}

/*
 * Overshoot at the edge: how far the columns near the edge go above the
 * bright side's level (the mean of its outer eighth) or below the dark
 * side's, as a fraction of the step between the two levels.
 */
static int halo_figures(void)
{
	const uint32_t w = 1024;
	struct cisp_image in, out;
	double *p = calloc(w, sizeof(*p));
	int ret;

	if (!p || cisp_image_alloc(&in, CISP_FMT_SRGGB12, w, CHART_H) || cisp_image_alloc(&out, CISP_FMT_RGB888, w, CHART_H))
		return 1;
	render_edge(&in);
	for (int k = 0; k < 2; k++) {
		double dark = 0, bright = 0, over = 0, under = 0, step;

		ret = develop(&in, &out, k ? 0.6 : 0);
		if (ret)
			return 1;
		column_profile(&out, p);
		for (uint32_t x = 0; x < w / 8; x++) {
			dark += p[x] / (w / 8);
			bright += p[w - 1 - x] / (w / 8);
		}
		step = bright - dark;
		for (uint32_t x = w / 8; x < w / 2 - 2; x++)
			under = fmax(under, dark - p[x]);
		for (uint32_t x = w / 2 + 2; x < w - w / 8; x++)
			over = fmax(over, p[x] - bright);
		printf("edge of 6 stops %s LTM: dark %.1f, bright %.1f; overshoot %.2f %% bright side, %.2f %% dark side\n",
		       k ? "with" : "without", dark, bright, 100 * over / step, 100 * under / step);
	}
	cisp_image_free(&in);
	cisp_image_free(&out);
	free(p);
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The stage's rows over a W x H frame of linear RGB, one thread, with a 16x12 grid: ms per frame. */
static int speed_figures(int w, int h, int frames)
{
	const struct cisp_dsp *dsp = cisp_dsp();
	struct cisp_ltm_coeffs *c = calloc(1, sizeof(*c));
	struct cisp_ltm_params p;
	uint16_t *plane = malloc(sizeof(uint16_t) * 3 * (size_t)w * h);
	double best = INFINITY;

	if (!c || !plane)
		return 1;
	memset(&p, 0, sizeof(p));
	p.grid_w = 16;
	p.grid_h = 12;
	p.range = 384;
	for (int k = 0; k < 16 * 12; k++) {
		p.node[k] = (uint16_t)(2000 + (k * 397) % 2000);
		p.node[16 * 12 + k] = (uint16_t)(128 + (k * 131) % 1500);
	}
	if (cisp_ltm_prepare(c, &p, w, h))
		return 1;
	for (size_t i = 0; i < 3 * (size_t)w * h; i++)
		plane[i] = (uint16_t)(65535 * exp2(-12 * uniform()));
	for (int f = 0; f < frames; f++) {
		double t0 = now_ms();

		for (int y = 0; y < h; y++) {
			uint16_t *row[3];

			for (int k = 0; k < 3; k++)
				row[k] = plane + ((size_t)k * h + y) * w;
			dsp->ltm_row(c, (const uint16_t *const *)row, row, w, y);
		}
		best = fmin(best, now_ms() - t0);
	}
	printf("cisp-ltm %dx%d %.2f ms\n", w, h, best);
	free(plane);
	free(c);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "range"))
		return range_figures() || halo_figures();
	if (argc >= 4 && !strcmp(argv[1], "speed"))
		return speed_figures(atoi(argv[2]), atoi(argv[3]), argc > 4 ? atoi(argv[4]) : 5);
	fprintf(stderr, "usage: bench-ltm range | speed WIDTH HEIGHT [FRAMES]\n");
	return 2;
}
