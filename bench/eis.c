/* SPDX-License-Identifier: MIT */
/*
 * Electronic image stabilisation on the virtual sensor (docs/eis.md,
 * "Figures"). For two scenes (dead leaves, a Kodak photograph) and two shake
 * amplitudes, a 1080p30 camera on 2 threads runs with EIS off and on over
 * the same frames (same seed), and prints the residual motion of the still
 * scene, RMS pixels from one frame to the next in output pixels:
 *  - truth: from the sensor's true per-row offsets (cisp_vsensor_shake())
 *    and the window EIS cut each band at (cisp_camera_eis_frame()), every
 *    16th row;
 *  - registration: the global shift between consecutive output frames'
 *    luma found by block matching (coarse to fine, parabolic sub-pixel).
 * Then the cost, as medians over each run's frames: the ISP job with EIS
 * off and on, and the EIS warp in the camera (cisp_eis_frame.warp_ns) in
 * the same frames as the ISP jobs it is compared with; and the warp alone on
 * 2 threads against 1, A B A B.
 *
 * usage: bench-eis [FRAMES [DATA_DIR]]  (default 45, ../shared/data)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cisp/camera.h>
#include <cisp/eis.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/pool.h>
#include <cisp/sensor.h>

#include "peer.h"

#define SENSOR "virtual:cisp-8m10"
#define SETTLE 6 /* frames left out while AE settles */

struct figures {
	double truth, registered; /* RMS frame-to-frame motion, output pixels */
	double isp_ms;            /* median ISP job time */
	double warp_ms;           /* median time of the EIS warp in the camera, same frames */
	int clamped;              /* frames whose window met the margin */
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sum of squared differences of @a against @b moved by (@dx, @dy), every @step pixels of the centre, mean removed. */
static double ssd(const uint8_t *a, const uint8_t *b, size_t stride, uint32_t w, uint32_t h, int dx, int dy,
		  unsigned step, uint32_t border)
{
	double s = 0, ma = 0, mb = 0, n = 0;

	for (uint32_t y = border; y < h - border; y += step)
		for (uint32_t x = border; x < w - border; x += step) {
			ma += a[y * stride + x];
			mb += b[(y + dy) * stride + x + dx];
			n++;
		}
	ma /= n;
	mb /= n;
	for (uint32_t y = border; y < h - border; y += step)
		for (uint32_t x = border; x < w - border; x += step) {
			double d = (a[y * stride + x] - ma) - (b[(y + dy) * stride + x + dx] - mb);

			s += d * d;
		}
	return s;
}

/* The vertex of the parabola through (-1, @l), (0, @c), (1, @r). */
static double vertex(double l, double c, double r)
{
	double den = l - 2 * c + r;

	return den > 0 ? 0.5 * (l - r) / den : 0;
}

/* A 4x box-downscaled copy of luma @y (@w x @h, @stride). */
static uint8_t *shrink4(const uint8_t *y, size_t stride, uint32_t w, uint32_t h)
{
	uint8_t *out = malloc((size_t)(w / 4) * (h / 4));

	for (uint32_t j = 0; out && j < h / 4; j++)
		for (uint32_t i = 0; i < w / 4; i++) {
			unsigned s = 0;

			for (int v = 0; v < 4; v++)
				for (int u = 0; u < 4; u++)
					s += y[(4 * j + v) * stride + 4 * i + u];
			out[j * (w / 4) + i] = (uint8_t)((s + 8) / 16);
		}
	return out;
}

/* The shift (@sx, @sy) by which frame @b shows the scene of frame @a: b(x + s) ~ a(x). */
static void register_luma(const struct cisp_image *a, const struct cisp_image *b, double *sx, double *sy)
{
	const uint32_t w = a->width, h = a->height, R = 12, border_small = 14, border = 64, F = 4;
	uint8_t *sa = shrink4(a->plane[0].data, a->plane[0].stride, w, h);
	uint8_t *sb = shrink4(b->plane[0].data, b->plane[0].stride, w, h);
	double best = INFINITY, e[2 * F + 1][2 * F + 1];
	int bx = 0, by = 0, fx = 0, fy = 0;

	for (int dy = -(int)R; dy <= (int)R; dy++)
		for (int dx = -(int)R; dx <= (int)R; dx++) {
			double s = ssd(sa, sb, w / 4, w / 4, h / 4, dx, dy, 2, border_small);

			if (s < best) {
				best = s;
				bx = dx;
				by = dy;
			}
		}
	/* Around the coarse shift at full size, then the parabola through the best and its neighbours. */
	best = INFINITY;
	for (int dy = -(int)F; dy <= (int)F; dy++)
		for (int dx = -(int)F; dx <= (int)F; dx++) {
			e[dy + F][dx + F] = ssd(a->plane[0].data, b->plane[0].data, a->plane[0].stride, w, h, 4 * bx + dx,
						4 * by + dy, 3, border);
			if (e[dy + F][dx + F] < best) {
				best = e[dy + F][dx + F];
				fx = dx;
				fy = dy;
			}
		}
	*sx = 4 * bx + fx;
	*sy = 4 * by + fy;
	if (abs(fx) < (int)F)
		*sx += vertex(e[fy + F][fx + F - 1], best, e[fy + F][fx + F + 1]);
	if (abs(fy) < (int)F)
		*sy += vertex(e[fy + F - 1][fx + F], best, e[fy + F + 1][fx + F]);
	free(sa);
	free(sb);
}

/* Where output row @y of a frame shows the still scene, output pixels, with the frame's EIS record @f (NULL: off). */
static int scene_at(struct cisp_sensor *s, uint64_t timestamp, uint32_t y, const struct cisp_eis_frame *f,
		    double *u, double *v)
{
	double row = y, dx, dy, wx = 0, wy = 0, kx = 1, ky = 1, sx = 1, sy = 1;
	int r;

	if (f) {
		unsigned b = 0;

		while (b + 1 < f->num_bands && f->band[b + 1].first_row <= y)
			b++;
		sx = f->step_x_q16 / 65536.0;
		sy = f->step_y_q16 / 65536.0;
		row = (f->centre_y_q8 / 256.0 + y * sy + 0.5) / f->scale_y - 0.5;
		wx = ((double)f->band[b].x_q8 - f->centre_x_q8) / 256;
		wy = ((double)f->band[b].y_q8 - f->centre_y_q8) / 256;
		kx = f->scale_x;
		ky = f->scale_y;
	}
	r = cisp_vsensor_shake(s, timestamp, (uint32_t)lround(row), &dx, &dy);
	/*
	 * Output column x shows the still scene at sensor column (wx + x sx) / k - dx: in output pixels
	 * (k / sx of them a sensor pixel) the scene moves by (wx - k dx) / sx.
	 */
	*u = (wx - kx * dx) / sx;
	*v = (wy - ky * dy) / sy;
	return r;
}

static int run(const char *options, bool eis, unsigned frames, struct figures *fig)
{
	struct cisp_device_config dc = { .workers = 1, .job_threads = 2 };
	struct cisp_camera_manager_config mc = { .device_config = &dc };
	struct cisp_camera_options o = { .sensor_options = options };
	struct cisp_eis_config ec = { .enable = eis };
	struct cisp_camera_manager *m = NULL;
	struct cisp_camera *cam = NULL;
	struct cisp_camera_config cfg;
	struct cisp_camera_request req[2], *done;
	struct cisp_image img[2];
	struct cisp_image *prev_img = NULL;
	double *isp = calloc(frames, sizeof(double)), *warp = calloc(frames, sizeof(double)), prev_u[128], prev_v[128], sum_truth = 0, sum_reg = 0;
	unsigned n_truth = 0, n_reg = 0, n_isp = 0;
	int r = -1;

	memset(fig, 0, sizeof(*fig));
	memset(req, 0, sizeof(req));
	memset(img, 0, sizeof(img));
	if (!isp || !warp || cisp_camera_manager_create(&m, &mc) || cisp_camera_open(&cam, m, SENSOR, &o) ||
	    cisp_camera_default_config(cam, 1, &cfg) || cisp_camera_configure(cam, &cfg) || cisp_camera_set_eis(cam, &ec))
		goto out;
	for (int i = 0; i < 2; i++) {
		if (cisp_image_alloc(&img[i], CISP_FMT_NV12, cfg.stream[0].width, cfg.stream[0].height))
			goto out;
		req[i].buffer[CISP_STREAM_MAIN] = &img[i];
		/* 1080p30: AE keeps every frame at 1/30 s. */
		req[i].controls.mask = CISP_REQ_FRAME_DURATION;
		req[i].controls.frame_duration_us[0] = req[i].controls.frame_duration_us[1] = 1e6 / 30;
		if (cisp_camera_queue(cam, &req[i]))
			goto out;
	}
	if (cisp_camera_start(cam))
		goto out;
	for (unsigned n = 0; n < frames; n++) {
		struct cisp_eis_frame f;
		unsigned k = 0;

		if (cisp_camera_wait(cam, &done, -1))
			goto out;
		if (done->status) {
			fprintf(stderr, "bench-eis: frame %u: %s\n", n, done->message);
			goto out;
		}
		if (eis && cisp_camera_eis_frame(cam, done, &f))
			goto out;
		fig->clamped += eis && f.clamped;
		warp[n_isp] = eis ? f.warp_ns / 1e6 : 0;
		isp[n_isp++] = done->metadata.isp_ns / 1e6;
		for (uint32_t y = 0; y < cfg.stream[0].height; y += 16, k++) {
			double u, v;

			if (scene_at(cisp_camera_sensor(cam), done->metadata.timestamp_ns, y, eis ? &f : NULL, &u, &v))
				goto out;
			if (n > SETTLE) {
				sum_truth += (u - prev_u[k]) * (u - prev_u[k]) + (v - prev_v[k]) * (v - prev_v[k]);
				n_truth++;
			}
			prev_u[k] = u;
			prev_v[k] = v;
		}
		if (n > SETTLE && prev_img) {
			double sx, sy;

			register_luma(prev_img, done->buffer[CISP_STREAM_MAIN], &sx, &sy);
			sum_reg += sx * sx + sy * sy;
			n_reg++;
		}
		/* Keep this frame for the next comparison; queue the other buffer again. */
		if (prev_img) {
			struct cisp_camera_request *again = prev_img == &img[0] ? &req[0] : &req[1];

			if (cisp_camera_queue(cam, again))
				goto out;
		}
		prev_img = done->buffer[CISP_STREAM_MAIN];
	}
	fig->truth = sqrt(sum_truth / n_truth);
	fig->registered = sqrt(sum_reg / n_reg);
	qsort(isp, n_isp, sizeof(double), cmp_double);
	qsort(warp, n_isp, sizeof(double), cmp_double);
	fig->isp_ms = isp[n_isp / 2];
	fig->warp_ms = warp[n_isp / 2];
	r = 0;
out:
	if (r)
		fprintf(stderr, "bench-eis: %s\n", cisp_last_error());
	if (cam)
		cisp_camera_stop(cam);
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(m);
	cisp_image_free(&img[0]);
	cisp_image_free(&img[1]);
	free(isp);
	free(warp);
	return r;
}

/*
 * Median time of the EIS warp the camera runs on a 1080p mode's NV12 frame
 * for a 1080p stream with 10 % margins: the ISP renders the sensor's 1920x1080
 * and the warp enlarges 1600x900 of it (step 1920 / 2304), on @pool.
 */
static double warp_ms(struct cisp_pool *pool, unsigned runs)
{
	struct cisp_image in, out;
	struct cisp_eis_band bands[16];
	const uint32_t step = (65536 * 1920 + 1152) / 2304;
	double t[64];

	if (cisp_image_alloc(&in, CISP_FMT_NV12, 1920, 1080) || cisp_image_alloc(&out, CISP_FMT_NV12, 1920, 1080))
		return -1;
	for (unsigned p = 0; p < 2; p++)
		memset(in.plane[p].data, 100 + 50 * p, in.plane[p].stride * (p ? 540 : 1080));
	for (unsigned b = 0; b < 16; b++) /* near the middle of the range, fractional */
		bands[b] = (struct cisp_eis_band){ 1080 * b / 16, 40000 + 11 * b, 22000 + 5 * b };
	for (unsigned i = 0; i < runs && i < 64; i++) {
		double t0 = now_ms();

		if (cisp_eis_warp(&in, &out, step, step, bands, 16, pool))
			fprintf(stderr, "bench-eis: %s\n", cisp_last_error());
		t[i] = now_ms() - t0;
	}
	qsort(t, runs, sizeof(double), cmp_double);
	cisp_image_free(&in);
	cisp_image_free(&out);
	return t[runs / 2];
}

int main(int argc, char **argv)
{
	unsigned frames = argc > 1 ? (unsigned)atoi(argv[1]) : 45;
	const char *data = argc > 2 ? argv[2] : "../shared/data";
	static const char *const scene_name[2] = { "dead leaves", "Kodak kodim05" };
	static const double shake[2] = { 6, 20 };
	char scenes[2][512], options[1100], model[256], load[64];
	struct figures off, on;
	struct cisp_pool *pool = NULL;
	double isp_off = 0, isp_on = 0, warp_cam = 0, ratio = 0, warp[2];
	unsigned runs = 0;

	if (frames < SETTLE + 4) {
		fprintf(stderr, "usage: bench-eis [FRAMES (at least %d) [DATA_DIR]]\n", SETTLE + 4);
		return 2;
	}
	snprintf(scenes[0], sizeof(scenes[0]), "deadleaves");
	snprintf(scenes[1], sizeof(scenes[1]), "%s/kodak/kodim05.png", data);
	if (access(scenes[1], R_OK)) {
		fprintf(stderr, "bench-eis: %s is missing (give the shared data folder)\n", scenes[1]);
		return 1;
	}
	bench_cpu_model(model, sizeof(model));
	bench_loadavg(load, sizeof(load));
	printf("bench machine cpu_model=\"%s\" cpus=%ld loadavg_before=\"%s\"\n", model, sysconf(_SC_NPROCESSORS_ONLN),
	       load);
	printf("%s 1080p30, ISP on 2 threads, %u frames (the first %d left out), EIS margin 10%%, 16 bands, "
	       "smoothing 2 x 0.25 s\n",
	       SENSOR, frames, SETTLE + 1);
	printf("residual motion, RMS output pixels per frame (with EIS the output shows 1/1.2 of the field of view);\n"
	       "cost, medians over the run's frames: ISP job without and with EIS, EIS warp on 2 threads in the same frames\n");
	printf("%-14s %5s | %8s %8s | %8s %8s | %7s | %8s %8s %8s %9s\n", "scene", "shake", "true off", "true on",
	       "reg off", "reg on", "clamped", "ISP off", "ISP on", "warp", "warp/ISP");
	for (int s = 0; s < 2; s++)
		for (int a = 0; a < 2; a++) {
			snprintf(options, sizeof(options), "scene=%s,shake=%g,seed=%d,lux=800", scenes[s], shake[a], 3 + a);
			if (run(options, false, frames, &off) || run(options, true, frames, &on))
				return 1;
			printf("%-14s %5g | %8.3f %8.3f | %8.3f %8.3f | %7d | %8.2f %8.2f %8.2f %9.3f\n", scene_name[s],
			       shake[a], off.truth, on.truth, off.registered, on.registered, on.clamped, off.isp_ms, on.isp_ms,
			       on.warp_ms, on.warp_ms / on.isp_ms);
			isp_off += off.isp_ms / 4;
			isp_on += on.isp_ms / 4;
			warp_cam += on.warp_ms / 4;
			ratio += on.warp_ms / on.isp_ms / 4;
			runs++;
		}
	if (cisp_pool_create(&pool, 2))
		return 1;
	/* A B A B: the warp alone on 2 threads and on one. */
	warp[0] = warp_ms(pool, 31);
	warp[1] = warp_ms(NULL, 31);
	warp[0] = fmin(warp[0], warp_ms(pool, 31));
	warp[1] = fmin(warp[1], warp_ms(NULL, 31));
	cisp_pool_destroy(pool);
	bench_loadavg(load, sizeof(load));
	printf("mean of the %u runs: ISP %.2f ms without EIS, %.2f ms with (%.3fx); EIS warp %.2f ms a frame, "
	       "%.3fx the ISP's time in the same frames\n",
	       runs, isp_off, isp_on, isp_on / isp_off, warp_cam, ratio);
	printf("the warp alone, 1080p NV12, A B A B, best median of 31: %.2f ms on 2 threads, %.2f ms on 1 (%.2fx)\n",
	       warp[0], warp[1], warp[1] / warp[0]);
	printf("loadavg_after=\"%s\"\n", load);
	return 0;
}
