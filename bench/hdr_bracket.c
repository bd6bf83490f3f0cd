/* SPDX-License-Identifier: MIT */
/*
 * HDR bracket figures against a peer (docs/hdr.md, "Quality against a peer").
 *
 *   bench-hdr-bracket capture OPTIONS DIR
 *       A bracket of +2, 0, -2 EV from the virtual test sensor with sensor
 *       options OPTIONS (e.g. scene=hdr,motion=6), in consecutive frames, and
 *       the same bracket of a still scene (every frame rendered at the
 *       reference frame's time, so the card stands where the shortest frame
 *       has it). Writes, for each: the three frames developed alone by cisp
 *       (8-bit sRGB PPM, what a peer that fuses developed frames is given),
 *       their exposure times, and cisp's own merge of the raw frames through
 *       the canonical pipeline with local tone mapping as the camera sets it
 *       for brackets (cisp.ppm), timed.
 *   bench-hdr-bracket ghosts DIR NAME...
 *       For each method NAME, the pixels whose luma in NAME.ppm (the moving
 *       bracket) differs from NAME-still.ppm (the same method on the still
 *       bracket) by more than 20 % of the latter plus 8 levels, both
 *       averaged over 5 x 5 pixels: its ghost area. Comparing each method
 *       with itself leaves its tone out; the average leaves out the noise
 *       that differs between the two brackets, and the coarser quantisation
 *       of a short frame taken alone, which are not ghosts.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>
#include <cisp/sensor.h>

#include "control/ltm_grid.h"

#define FRAMES 3
static const double ev[FRAMES] = { 2, 0, -2 };

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int die(const char *what)
{
	fprintf(stderr, "bench-hdr-bracket: %s: %s\n", what, cisp_last_error());
	return 1;
}

/* The raw frame as 16-bit linear Bayer: black level off, white at 65535. */
static void linearise(const struct cisp_image *raw, const struct cisp_sensor_mode *m, struct cisp_image *out)
{
	for (uint32_t y = 0; y < raw->height; y++) {
		const uint16_t *in = (const uint16_t *)(void *)(raw->plane[0].data + (size_t)y * raw->plane[0].stride);
		uint16_t *o = (uint16_t *)(void *)(out->plane[0].data + (size_t)y * out->plane[0].stride);

		for (uint32_t x = 0; x < raw->width; x++) {
			long v = ((long)in[x] - (long)m->black_level) * 65535 / (long)(m->white_level - m->black_level);

			o[x] = (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v);
		}
	}
}

/*
 * Frame @seq of a stream exposed @lines lines: the sensor restarted with
 * that exposure and read up to @seq, so its scene is the one at @seq.
 */
static int capture_at(const char *options, uint64_t seq, int32_t lines, struct cisp_image *lin,
		      struct cisp_sensor_mode *m)
{
	struct cisp_sensor *s = NULL;
	struct cisp_sensor_controls c = { 0 };
	struct cisp_sensor_metadata md;
	struct cisp_image raw = { 0 };
	int r = cisp_sensor_open(&s, "virtual:cisp-test", options);

	if (!r)
		r = cisp_sensor_get_mode(s, 0, m);
	if (!r)
		r = cisp_image_alloc(&raw, m->format, m->width, m->height);
	cisp_sensor_controls_set(&c, CISP_SENSOR_EXPOSURE, lines);
	if (!r)
		r = cisp_sensor_set_controls(s, &c);
	if (!r)
		r = cisp_sensor_start(s);
	for (uint64_t n = 0; !r && n <= seq; n++)
		r = cisp_sensor_capture(s, &raw, &md, 0);
	if (!r && !lin->owned)
		r = cisp_image_alloc(lin, CISP_FMT_SRGGB16, m->width, m->height);
	if (!r)
		linearise(&raw, m, lin);
	cisp_image_free(&raw);
	cisp_sensor_close(s);
	return r;
}

static int write_ppm(const char *dir, const char *name, const struct cisp_image *rgb)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.ppm", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -errno;
	fprintf(f, "P6\n%u %u\n255\n", rgb->width, rgb->height);
	for (uint32_t y = 0; y < rgb->height; y++)
		fwrite(rgb->plane[0].data + (size_t)y * rgb->plane[0].stride, 3, rgb->width, f);
	return fclose(f) ? -errno : 0;
}

/*
 * One bracket (@still: every frame at the reference's time): developed frames, times, cisp's
 * merge. The still one first: it sets @grid, the LTM grid both use.
 */
static int bracket(const char *options, const char *dir, bool still, struct cisp_ltm_params *grid, double *cisp_ms)
{
	const int32_t base = 80; /* lines: 8 ms on the test sensor; the longest, 32 ms, fits its frame */
	const struct cisp_image *in[FRAMES];
	struct cisp_image lin[FRAMES] = { { 0 } }, rgb = { 0 };
	struct cisp_image *outs[CISP_MAX_OUTPUTS] = { &rgb };
	struct cisp_sensor_mode m;
	struct cisp_isp *isp = NULL;
	uint32_t exposure[FRAMES];
	char path[1024], name[64];
	FILE *times;
	int r = 0;

	for (int k = 0; !r && k < FRAMES; k++) {
		exposure[k] = (uint32_t)lround(base * exp2(ev[k]));
		/* The moving bracket's frames are 2, 3, 4 (after the exposure delay); the reference is 4. */
		r = capture_at(options, still ? FRAMES + 1 : 2 + (uint64_t)k, (int32_t)exposure[k], &lin[k], &m);
		in[k] = &lin[k];
	}
	if (r)
		return die("capture");
	struct cisp_isp_config cfg = { CISP_FMT_SRGGB16, m.width, m.height, { { CISP_FMT_RGB888, m.width, m.height } },
				       NULL };
	r = cisp_isp_create(&isp, &cfg);
	if (!r)
		r = cisp_image_alloc(&rgb, CISP_FMT_RGB888, m.width, m.height);
	snprintf(path, sizeof(path), "%s/times%s.txt", dir, still ? "-still" : "");
	times = fopen(path, "w");
	for (int k = 0; !r && k < FRAMES; k++) {
		r = cisp_isp_process(isp, in[k], outs, NULL, NULL);
		snprintf(name, sizeof(name), "frame%d%s", k, still ? "-still" : "");
		if (!r)
			r = write_ppm(dir, name, &rgb);
		if (times)
			fprintf(times, "%s/%s.ppm %g\n", dir, name, exposure[k] * 100e-6);
	}
	if (times)
		fclose(times);
	/*
	 * Local tone mapping as the camera sets it for brackets (docs/hdr.md), its grid from a first
	 * pass over the still bracket and kept for the moving one (as the peer's Debevec response is):
	 * what differs between the two is then the merge's, not the grid's.
	 */
	struct cisp_stats *st = calloc(1, sizeof(*st));
	struct cisp_param_state ps;
	const struct ltm_tuning t = { .strength = 0.7, .boost = 2, .cut = 1, .range = 1.5 };
	const double wb[3] = { 1, 1, 1 };

	cisp_param_state_init(&ps);
	if (!r && !st)
		r = -ENOMEM;
	if (!r && still)
		r = cisp_isp_process_bracket(isp, in, exposure, FRAMES, outs, st, NULL);
	if (!r && still)
		r = control_ltm_grid(st, wb, 0.18, &t, grid);
	ps.ltm = *grid;
	ps.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_LTM);
	if (!r)
		r = cisp_isp_set_state(isp, &ps, CISP_BLOCK_BIT(CISP_BLOCK_LTM));
	free(st);
	*cisp_ms = 1e30;
	for (int i = 0; !r && i < 5; i++) {
		double t0 = now_ms();

		r = cisp_isp_process_bracket(isp, in, exposure, FRAMES, outs, NULL, NULL);
		*cisp_ms = fmin(*cisp_ms, now_ms() - t0);
	}
	if (!r)
		r = write_ppm(dir, still ? "cisp-still" : "cisp", &rgb);
	cisp_isp_destroy(isp);
	for (int k = 0; k < FRAMES; k++)
		cisp_image_free(&lin[k]);
	cisp_image_free(&rgb);
	return r ? die("develop") : 0;
}

/* Luma of a P6 file written by write_ppm() or the peer; NULL on error. */
static float *read_luma(const char *path, unsigned *w, unsigned *h)
{
	FILE *f = fopen(path, "rb");
	float *y = NULL;
	unsigned max;

	if (!f || fscanf(f, "P6 %u %u %u", w, h, &max) != 3 || max != 255 || fgetc(f) == EOF || *w > 16384 ||
	    *h > 16384 || !(y = malloc((size_t)*w * *h * sizeof(*y)))) {
		if (f)
			fclose(f);
		return NULL;
	}
	for (size_t i = 0; i < (size_t)*w * *h; i++) {
		unsigned char p[3];

		if (fread(p, 3, 1, f) != 1) {
			free(y);
			y = NULL;
			break;
		}
		y[i] = 0.299f * p[0] + 0.587f * p[1] + 0.114f * p[2];
	}
	fclose(f);
	return y;
}

/* @y replaced by its 5 x 5 means (edges: the part inside): pixel noise and quantisation average out, ghosts do not. */
static void box5(float *y, unsigned w, unsigned h)
{
	float *t = malloc((size_t)w * h * sizeof(*t));

	if (!t)
		return;
	for (unsigned r = 0; r < h; r++)
		for (unsigned c = 0; c < w; c++) {
			float sum = 0;
			int n = 0;

			for (int dy = -2; dy <= 2; dy++)
				for (int dx = -2; dx <= 2; dx++) {
					int yy = (int)r + dy, xx = (int)c + dx;

					if (yy >= 0 && yy < (int)h && xx >= 0 && xx < (int)w) {
						sum += y[(size_t)yy * w + (size_t)xx];
						n++;
					}
				}
			t[(size_t)r * w + c] = sum / (float)n;
		}
	memcpy(y, t, (size_t)w * h * sizeof(*t));
	free(t);
}

static int ghosts(const char *dir, int n, char **names)
{
	for (int i = 0; i < n; i++) {
		char a[1024], b[1024];
		unsigned w, h, w2, h2;
		float *ya, *yb;
		size_t count = 0;

		snprintf(a, sizeof(a), "%s/%s.ppm", dir, names[i]);
		snprintf(b, sizeof(b), "%s/%s-still.ppm", dir, names[i]);
		ya = read_luma(a, &w, &h);
		yb = read_luma(b, &w2, &h2);
		if (!ya || !yb || w != w2 || h != h2) {
			fprintf(stderr, "bench-hdr-bracket: cannot read %s and %s alike\n", a, b);
			free(ya);
			free(yb);
			return 1;
		}
		double mean = 0;

		box5(ya, w, h);
		box5(yb, w, h);
		for (size_t p = 0; p < (size_t)w * h; p++) {
			count += fabsf(ya[p] - yb[p]) > 0.2f * yb[p] + 8;
			mean += yb[p];
		}
		printf("%s ghost-area %zu pixels of %u (mean luma %.0f)\n", names[i], count, w * h, mean / ((double)w * h));
		free(ya);
		free(yb);
	}
	return 0;
}

int main(int argc, char **argv)
{
	double ms_moving, ms_still;

	if (argc >= 4 && !strcmp(argv[1], "capture")) {
		static struct cisp_ltm_params grid;

		if (bracket(argv[2], argv[3], true, &grid, &ms_still) || bracket(argv[2], argv[3], false, &grid, &ms_moving))
			return 1;
		printf("cisp merge+pipeline+ltm %.3f ms\n", fmin(ms_moving, ms_still));
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "ghosts"))
		return ghosts(argv[2], argc - 3, argv + 3);
	fprintf(stderr, "usage: bench-hdr-bracket capture OPTIONS DIR | ghosts DIR NAME...\n");
	return 2;
}
