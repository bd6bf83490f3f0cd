/* SPDX-License-Identifier: MIT */
/*
 * Electronic image stabilisation (include/cisp/eis.h, docs/eis.md): the
 * virtual sensor's gyroscope against the shake it renders, the warp on
 * known shifts (exact), and the camera's stage on a rolling shutter: each
 * band of rows follows the path at its own readout time.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <cisp/camera.h>
#include <cisp/eis.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/gyro.h>
#include <cisp/sensor.h>

#include "test.h"

#define EIS_SENSOR "virtual:cisp-test"

/* ---- the gyroscope ---- */

TEST(gyro_integrates_to_the_rendered_shake)
{
	struct cisp_sensor *still = NULL, *shaken = NULL;
	static struct cisp_gyro_sample a[CISP_GYRO_MAX_SAMPLES], b[CISP_GYRO_MAX_SAMPLES];
	struct cisp_gyro_info info;
	double path[2] = { 0, 0 }, x0, y0, x1, y1, mean[3] = { 0 }, var[3] = { 0 };
	const uint64_t from = 100000000, to = 2100000000; /* 2 s */
	int n;

	CHECK_EQ(cisp_sensor_open(&still, EIS_SENSOR, "shake=0,seed=11"), 0);
	CHECK_EQ(cisp_sensor_open(&shaken, EIS_SENSOR, "shake=20,seed=11"), 0);
	if (!still || !shaken)
		goto out;
	CHECK_EQ(cisp_sensor_gyro_info(shaken, &info), 0);
	CHECK_EQ(info.period_ns, 2500000);
	CHECK_NEAR(info.focal_px, 160 / tan(35 * M_PI / 180), 1e-9); /* 320 pixels across 70 degrees */
	n = cisp_sensor_gyro(shaken, from, to, b, CISP_GYRO_MAX_SAMPLES);
	CHECK_EQ(n, 800);
	CHECK_EQ(cisp_sensor_gyro(still, from, to, a, CISP_GYRO_MAX_SAMPLES), 800);
	CHECK_EQ(b[0].timestamp_ns, from + info.period_ns);
	CHECK_EQ(b[n - 1].timestamp_ns, to);

	/* Bias and noise depend on the seed only: the difference is the rendered motion, to rounding. */
	for (int k = 0; k < n; k++) {
		path[0] += (b[k].rate[1] - a[k].rate[1]) * info.period_ns * 1e-9 * info.focal_px;
		path[1] += (b[k].rate[0] - a[k].rate[0]) * info.period_ns * 1e-9 * info.focal_px;
		CHECK(b[k].rate[2] == a[k].rate[2]); /* no roll is rendered */
		for (int axis = 0; axis < 3; axis++) {
			mean[axis] += a[k].rate[axis] / n;
			var[axis] += a[k].rate[axis] * a[k].rate[axis] / n;
		}
	}
	CHECK_EQ(cisp_vsensor_shake(shaken, from, 0, &x0, &y0), 0);
	CHECK_EQ(cisp_vsensor_shake(shaken, to, 0, &x1, &y1), 0);
	CHECK_NEAR(path[0], x1 - x0, 1e-6);
	CHECK_NEAR(path[1], y1 - y0, 1e-6);
	CHECK(fabs(x1 - x0) > 0.5 || fabs(y1 - y0) > 0.5);

	/* A still camera's gyroscope: a bias within the model's bound, white noise of the stated density. */
	for (int axis = 0; axis < 3; axis++) {
		double sigma = sqrt(var[axis] - mean[axis] * mean[axis]);
		double expected = info.noise_density * sqrt(0.5e9 / info.period_ns);

		printf("  axis %d: bias %.5f rad/s, noise %.5f rad/s (model %.5f)\n", axis, mean[axis], sigma, expected);
		CHECK(fabs(mean[axis]) <= info.bias_max + 4 * expected / sqrt(n));
		CHECK(fabs(mean[axis]) > 1e-6);
		CHECK_NEAR(sigma, expected, 0.1 * expected);
	}

	/* The same interval gives the same samples; bad intervals are refused. */
	CHECK_EQ(cisp_sensor_gyro(shaken, from, to, a, CISP_GYRO_MAX_SAMPLES), 800);
	CHECK(!memcmp(a, b, sizeof(a[0]) * 800));
	CHECK_EQ(cisp_sensor_gyro(shaken, from, from + 1000, a, 4), 0);
	CHECK_EQ(cisp_sensor_gyro(shaken, from, to, a, 4), 800); /* counts them all, writes 4 */
	CHECK_ERR(cisp_sensor_gyro(shaken, to, from, a, 4), -EINVAL, "before its start");
	CHECK_ERR(cisp_sensor_gyro(shaken, 0, 20000000000ull, a, 4), -EINVAL, "more than");
out:
	cisp_sensor_close(still);
	cisp_sensor_close(shaken);
}

/* The power of @n rates at @hz (a discrete Fourier sum). */
static double power_at(const struct cisp_gyro_sample *s, int n, int axis, double hz)
{
	double re = 0, im = 0;

	for (int k = 0; k < n; k++) {
		double t = s[k].timestamp_ns * 1e-9;

		re += s[k].rate[axis] * cos(2 * M_PI * hz * t);
		im += s[k].rate[axis] * sin(2 * M_PI * hz * t);
	}
	return re * re + im * im;
}

TEST(gyro_spectrum_holds_drift_and_tremor)
{
	struct cisp_sensor *s = NULL;
	static struct cisp_gyro_sample g[CISP_GYRO_MAX_SAMPLES];
	int n;

	CHECK_EQ(cisp_sensor_open(&s, EIS_SENSOR, "shake=20,seed=3"), 0);
	if (!s)
		return;
	n = cisp_sensor_gyro(s, 0, 8000000000ull, g, CISP_GYRO_MAX_SAMPLES);
	CHECK_EQ(n, 3200);
	for (int axis = 0; axis < 2; axis++) {
		double tremor = 0, drift = 0, above = 0;

		/* Mean power per bin in the drift's and the tremor's bands, and above both (noise only). */
		for (double hz = 0.5; hz <= 3.5; hz += 0.125)
			drift += power_at(g, n, axis, hz) / 25;
		for (double hz = 8; hz <= 12; hz += 0.125)
			tremor += power_at(g, n, axis, hz) / 33;
		for (double hz = 16; hz <= 30; hz += 0.125)
			above += power_at(g, n, axis, hz) / 113;
		printf("  axis %d: mean rate power per bin: drift band %.3g, tremor band %.3g, 16-30 Hz %.3g\n", axis, drift,
		       tremor, above);
		CHECK(tremor > 20 * above);
		CHECK(drift > 20 * above);
	}
	cisp_sensor_close(s);
}

/* ---- the warp ---- */

static void fill_random(struct cisp_image *img)
{
	for (unsigned p = 0; p < img->num_planes; p++) {
		size_t row, rows;

		cisp_image_plane_size(img->format, img->width, img->height, p, &row, &rows);
		for (size_t y = 0; y < rows; y++)
			for (size_t x = 0; x < row; x++)
				img->plane[p].data[y * img->plane[p].stride + x] = (uint8_t)test_rand();
	}
}

/* Whether plane @p of @out equals @in's from byte (@bx, row @by) on. */
static bool plane_is_cut(const struct cisp_image *in, const struct cisp_image *out, unsigned p, size_t bx, size_t by)
{
	size_t row, rows;

	cisp_image_plane_size(out->format, out->width, out->height, p, &row, &rows);
	for (size_t y = 0; y < rows; y++)
		if (memcmp(out->plane[p].data + y * out->plane[p].stride,
			   in->plane[p].data + (y + by) * in->plane[p].stride + bx, row))
			return false;
	return true;
}

/* The documented formula, pixel by pixel: output byte (x, y, c) of plane @p for band @b and steps @sx, @sy. */
static uint8_t formula(const struct cisp_image *in, unsigned p, unsigned shift, unsigned bpp,
		       const struct cisp_eis_band *b, uint32_t sx, uint32_t sy, uint32_t x, uint32_t y, unsigned c)
{
	uint32_t px = ((b->x_q8 >> shift) << 8) + x * sx, py = ((b->y_q8 >> shift) << 8) + y * sy;
	uint32_t fx = (px >> 8) & 255, fy = (py >> 8) & 255, ix = px >> 16, iy = py >> 16;
	const uint8_t *r0 = in->plane[p].data + (size_t)iy * in->plane[p].stride;
	const uint8_t *r1 = fy ? r0 + in->plane[p].stride : r0;
	uint32_t a = r0[ix * bpp + c], bb = fx ? r0[(ix + 1) * bpp + c] : 0, cc = r1[ix * bpp + c];
	uint32_t d = fx ? r1[(ix + 1) * bpp + c] : 0;

	return (uint8_t)((a * (256 - fx) * (256 - fy) + bb * fx * (256 - fy) + cc * (256 - fx) * fy + d * fx * fy + 32768) >>
			 16);
}

TEST(eis_warp_matches_its_formula)
{
	struct cisp_image in, out;
	struct cisp_pool *pool = NULL;
	unsigned mismatches = 0;

	CHECK_EQ(cisp_pool_create(&pool, 2), 0);
	CHECK_EQ(cisp_image_alloc(&in, CISP_FMT_NV12, 130, 98), 0);
	CHECK_EQ(cisp_image_alloc(&out, CISP_FMT_NV12, 100, 80), 0);
	fill_random(&in);
	for (int trial = 0; trial < 20; trial++) {
		uint32_t sx = 49152 + (uint32_t)(test_rand() % 16385), sy = 49152 + (uint32_t)(test_rand() % 16385);
		struct cisp_eis_band bands[3];

		for (int b = 0; b < 3; b++)
			bands[b] = (struct cisp_eis_band){ (uint32_t)(b * 27), (uint32_t)(test_rand() % (20 * 256)),
							   (uint32_t)(test_rand() % (12 * 256)) };
		CHECK_EQ(cisp_eis_warp(&in, &out, sx, sy, bands, 3, trial % 2 ? pool : NULL), 0);
		for (unsigned p = 0; p < 2; p++)
			for (uint32_t y = 0; y < out.height >> p; y++)
				for (uint32_t x = 0; x < out.width >> p; x++)
					for (unsigned c = 0; c < p + 1; c++) {
						const struct cisp_eis_band *b = &bands[(y << p) < 27 ? 0 : (y << p) < 54 ? 1 : 2];

						mismatches += out.plane[p].data[y * out.plane[p].stride + x * (p + 1) + c] !=
							      formula(&in, p, p, p + 1, b, sx, sy, x, y, c);
					}
	}
	CHECK_EQ(mismatches, 0);
	cisp_image_free(&in);
	cisp_image_free(&out);
	cisp_pool_destroy(pool);
}

TEST(eis_warp_known_shifts_are_exact)
{
	static const uint32_t formats[] = { CISP_FMT_NV12, CISP_FMT_I420, CISP_FMT_RGB888, CISP_FMT_XBGR32 };
	struct cisp_pool *pool = NULL;

	CHECK_EQ(cisp_pool_create(&pool, 2), 0);
	for (unsigned f = 0; f < 4; f++) {
		struct cisp_image in, out, other;
		unsigned bpp = formats[f] == CISP_FMT_RGB888 ? 3 : formats[f] == CISP_FMT_XBGR32 ? 4 : 1;
		bool yuv = bpp == 1;
		struct cisp_eis_band whole = { 0, 6 * 256, 4 * 256 }, odd = { 0, 5 * 256, 3 * 256 };
		struct cisp_eis_band half = { 0, 5 * 256 + 128, 0 }, bands[3] = { { 0, 0, 0 }, { 30, 16 * 256, 12 * 256 }, { 70, 2 * 256, 9 * 256 } };

		CHECK_EQ(cisp_image_alloc(&in, formats[f], 96, 112), 0);
		CHECK_EQ(cisp_image_alloc(&out, formats[f], 80, 96), 0);
		CHECK_EQ(cisp_image_alloc(&other, formats[f], 80, 96), 0);
		fill_random(&in);

		/* An even whole shift copies every plane. */
		CHECK_EQ(cisp_eis_warp(&in, &out, 65536, 65536, &whole, 1, pool), 0);
		CHECK(plane_is_cut(&in, &out, 0, 6 * bpp, 4));
		if (yuv) {
			CHECK(plane_is_cut(&in, &out, 1, formats[f] == CISP_FMT_NV12 ? 6 : 3, 2));
			if (formats[f] == CISP_FMT_I420)
				CHECK(plane_is_cut(&in, &out, 2, 3, 2));
		}
		/* An odd whole shift copies luma (and RGB) exactly. */
		CHECK_EQ(cisp_eis_warp(&in, &out, 65536, 65536, &odd, 1, NULL), 0);
		CHECK(plane_is_cut(&in, &out, 0, 5 * bpp, 3));
		/* Half a pixel: the mean of two neighbours, halves up. */
		CHECK_EQ(cisp_eis_warp(&in, &out, 65536, 65536, &half, 1, pool), 0);
		for (uint32_t y = 0; y < out.height; y += 7)
			for (uint32_t x = 0; x < out.width * bpp; x += 5) {
				const uint8_t *s = in.plane[0].data + y * in.plane[0].stride + 5 * bpp + x;

				CHECK_EQ(out.plane[0].data[y * out.plane[0].stride + x], (s[0] + s[bpp] + 1) >> 1);
			}
		/* A step of one half: every other output pixel is an input pixel, those between the mean of two. */
		CHECK_EQ(cisp_eis_warp(&in, &out, 32768, 65536, &whole, 1, pool), 0);
		for (uint32_t y = 0; y < out.height; y += 9)
			for (uint32_t x = 0; x < out.width; x++)
				for (unsigned c = 0; c < bpp; c++) {
					const uint8_t *s = in.plane[0].data + (y + 4) * in.plane[0].stride + (6 + x / 2) * bpp + c;

					CHECK_EQ(out.plane[0].data[y * out.plane[0].stride + x * bpp + c],
						 x % 2 ? (s[0] + s[bpp] + 1) >> 1 : s[0]);
				}
		/* Bands: each band's rows come from its own position; threads change nothing. */
		CHECK_EQ(cisp_eis_warp(&in, &out, 65536, 65536, bands, 3, pool), 0);
		CHECK_EQ(cisp_eis_warp(&in, &other, 65536, 65536, bands, 3, NULL), 0);
		CHECK(plane_is_cut(&in, &out, 0, 0, 0) == false);
		for (uint32_t y = 0; y < out.height; y++) {
			const struct cisp_eis_band *b = &bands[y < 30 ? 0 : y < 70 ? 1 : 2];
			size_t row = out.width * bpp;

			CHECK(!memcmp(out.plane[0].data + y * out.plane[0].stride,
				      in.plane[0].data + (y + b->y_q8 / 256) * in.plane[0].stride + b->x_q8 / 256 * bpp, row));
			CHECK(!memcmp(out.plane[0].data + y * out.plane[0].stride, other.plane[0].data + y * other.plane[0].stride,
				      row));
		}
		/* The far corner of the range reads nothing past the input's edge (ASan would say). */
		whole = (struct cisp_eis_band){ 0, 16 * 256, 16 * 256 };
		CHECK_EQ(cisp_eis_warp(&in, &out, 65536, 65536, &whole, 1, pool), 0);
		CHECK(plane_is_cut(&in, &out, 0, 16 * bpp, 16));
		whole.x_q8 = 15 * 256 + 255;
		whole.y_q8 = 15 * 256 + 255;
		CHECK_EQ(cisp_eis_warp(&in, &out, 65536, 65536, &whole, 1, pool), 0);
		cisp_image_free(&in);
		cisp_image_free(&out);
		cisp_image_free(&other);
	}
	cisp_pool_destroy(pool);
}

TEST(eis_warp_refuses_bad_arguments)
{
	struct cisp_image in, out, rgb, big, wide;
	struct cisp_eis_band ok = { 0, 0, 0 }, far = { 0, 16 * 256 + 1, 0 }, two[2] = { { 0, 0, 0 }, { 0, 0, 0 } };

	CHECK_EQ(cisp_image_alloc(&in, CISP_FMT_NV12, 96, 112), 0);
	CHECK_EQ(cisp_image_alloc(&out, CISP_FMT_NV12, 80, 96), 0);
	CHECK_EQ(cisp_image_alloc(&rgb, CISP_FMT_RGB888, 80, 96), 0);
	CHECK_EQ(cisp_image_alloc(&big, CISP_FMT_NV12, 98, 96), 0);
	CHECK_EQ(cisp_image_alloc(&wide, CISP_FMT_RGB48, 80, 96), 0);
	memset(out.plane[0].data, 7, out.plane[0].stride * out.height);
	CHECK_ERR(cisp_eis_warp(&in, &rgb, 65536, 65536, &ok, 1, NULL), -EINVAL, "differ");
	CHECK_ERR(cisp_eis_warp(&wide, &wide, 65536, 65536, &ok, 1, NULL), -EINVAL, "RGB48");
	CHECK_ERR(cisp_eis_warp(&in, &big, 65536, 65536, &ok, 1, NULL), -EINVAL, "larger");
	CHECK_ERR(cisp_eis_warp(&in, &out, 65536, 65536, &far, 1, NULL), -EINVAL, "reads outside");
	CHECK_ERR(cisp_eis_warp(&in, &out, 0, 65536, &ok, 1, NULL), -EINVAL, "steps 0");
	CHECK_ERR(cisp_eis_warp(&in, &out, 65536, 65537, &ok, 1, NULL), -EINVAL, "outside 1..65536");
	CHECK_ERR(cisp_eis_warp(&in, &out, 65536, 65536, &ok, 0, NULL), -EINVAL, "0 bands");
	CHECK_ERR(cisp_eis_warp(&in, &out, 65536, 65536, two, 2, NULL), -EINVAL, "band 1 starts at row 0");
	two[1].first_row = 96;
	CHECK_ERR(cisp_eis_warp(&in, &out, 65536, 65536, two, 2, NULL), -EINVAL, "band 1");
	two[0].first_row = 2;
	CHECK_ERR(cisp_eis_warp(&in, &out, 65536, 65536, two, 2, NULL), -EINVAL, "first band starts at row 2");
	CHECK_EQ(out.plane[0].data[0], 7); /* nothing written */
	cisp_image_free(&in);
	cisp_image_free(&out);
	cisp_image_free(&rgb);
	cisp_image_free(&big);
	cisp_image_free(&wide);
}

/* ---- the camera's stage ---- */

struct run_result {
	double spread;   /* mean over frames of the largest minus the smallest band position of the scene, sensor pixels */
	double residual; /* RMS frame-to-frame motion of the scene at the middle band, sensor pixels */
	double truth;    /* the same without correction */
	double truth_spread;
	int clamped;
};

/*
 * Run @frames frames with EIS of @bands bands and compare where each band
 * shows the scene (its window against the true offset of its rows).
 */
static int run_eis(const char *options, unsigned bands, unsigned frames, struct run_result *res)
{
	struct cisp_device_config dc = { .workers = 2 };
	struct cisp_camera_manager_config mc = { .device_config = &dc };
	struct cisp_camera_options o = { .sensor_options = options };
	struct cisp_eis_config ec = { .enable = true, .bands = bands };
	struct cisp_camera_manager *m = NULL;
	struct cisp_camera *cam = NULL;
	struct cisp_camera_config cfg;
	struct cisp_camera_request req = { 0 }, *done;
	struct cisp_image main = { 0 }, preview = { 0 };
	double prev = 0, prev_truth = 0, sum = 0, sum_truth = 0;
	int r = -1;

	memset(res, 0, sizeof(*res));
	CHECK_EQ(cisp_camera_manager_create(&m, &mc), 0);
	CHECK_EQ(cisp_camera_open(&cam, m, EIS_SENSOR, &o), 0);
	if (!cam)
		goto out;
	CHECK_EQ(cisp_camera_default_config(cam, 0, &cfg), 0);
	cfg.stream[CISP_STREAM_PREVIEW] = (struct cisp_stream_config){ CISP_FMT_RGB888, 160, 120, 0, 0, 0, 0 };
	CHECK_EQ(cisp_camera_configure(cam, &cfg), 0);
	CHECK_EQ(cisp_camera_set_eis(cam, &ec), 0);
	CHECK_EQ(cisp_image_alloc(&main, CISP_FMT_NV12, cfg.stream[0].width, cfg.stream[0].height), 0);
	CHECK_EQ(cisp_image_alloc(&preview, CISP_FMT_RGB888, 160, 120), 0);
	req.buffer[CISP_STREAM_MAIN] = &main;
	req.buffer[CISP_STREAM_PREVIEW] = &preview;
	CHECK_EQ(cisp_camera_queue(cam, &req), 0);
	CHECK_EQ(cisp_camera_start(cam), 0);
	for (unsigned n = 0; n < frames; n++) {
		struct cisp_eis_frame f;
		double lo = 1e9, hi = -1e9, tlo = 1e9, thi = -1e9, mid = 0, mid_truth = 0;

		if (cisp_camera_wait(cam, &done, -1) || done->status) {
			printf("  frame %u: %s\n", n, done ? done->message : cisp_last_error());
			goto out;
		}
		CHECK_EQ(cisp_camera_eis_frame(cam, done, &f), 0);
		CHECK_EQ(f.num_bands, bands);
		if (n == 3) {
			/* The frame's gyroscope samples: from its first row's exposure to its last row's readout (23.9 ms). */
			struct cisp_gyro_sample g[64];
			int k = cisp_camera_request_gyro(cam, done, g, 64);
			uint64_t from = done->metadata.timestamp_ns - done->metadata.sensor.exposure_ns;

			CHECK(k >= (int)((done->metadata.sensor.exposure_ns + 23900000) / 2500000) - 1 && k <= 64);
			CHECK(k > 0 && g[0].timestamp_ns > from && g[0].timestamp_ns <= from + 2500000);
			CHECK(k > 0 && g[k - 1].timestamp_ns <= done->metadata.timestamp_ns + 23900000);
		}
		res->clamped += f.clamped;
		/* Every 4th row: the band it belongs to, against the true offset of its sensor row. */
		for (uint32_t y = 0, b = 0; y < cfg.stream[0].height; y += 4) {
			double row, dx, dy, scene;

			while (b + 1 < f.num_bands && f.band[b + 1].first_row <= y)
				b++;
			row = (f.centre_y_q8 / 256.0 + y * f.step_y_q16 / 65536.0 + 0.5) / f.scale_y - 0.5;
			/*
			 * Output column x shows the still scene at sensor column (x_q8 / 256 + x step) / scale - dx:
			 * the scene's motion, in sensor pixels, is x_q8 / 256 / scale - dx (less the still position).
			 */
			scene = ((double)f.band[b].x_q8 - f.centre_x_q8) / 256 / f.scale_x;
			CHECK_EQ(cisp_vsensor_shake(cisp_camera_sensor(cam), done->metadata.timestamp_ns, (uint32_t)lround(row),
						    &dx, &dy), 0);
			lo = fmin(lo, scene - dx);
			hi = fmax(hi, scene - dx);
			tlo = fmin(tlo, -dx);
			thi = fmax(thi, -dx);
			if (y == cfg.stream[0].height / 2) {
				mid = scene - dx;
				mid_truth = -dx;
			}
		}
		res->spread += (hi - lo) / frames;
		res->truth_spread += (thi - tlo) / frames;
		if (n) {
			sum += (mid - prev) * (mid - prev);
			sum_truth += (mid_truth - prev_truth) * (mid_truth - prev_truth);
		}
		prev = mid;
		prev_truth = mid_truth;
		CHECK_EQ(cisp_camera_queue(cam, done), 0);
	}
	res->residual = sqrt(sum / (frames - 1));
	res->truth = sqrt(sum_truth / (frames - 1));
	r = 0;
out:
	if (cam)
		cisp_camera_stop(cam);
	cisp_camera_close(cam);
	cisp_image_free(&main);
	cisp_image_free(&preview);
	cisp_camera_manager_destroy(m);
	return r;
}

TEST(eis_rolling_shutter_bands_follow_the_rows)
{
	struct run_result one, many;

	/* Shake of 12 pixels on a 320x240 sensor read out over 24 ms of its 33 ms frames. */
	if (run_eis("scene=deadleaves,shake=12,seed=5,lux=500", 1, 24, &one) ||
	    run_eis("scene=deadleaves,shake=12,seed=5,lux=500", 16, 24, &many))
		return;
	printf("  within a frame, the scene's horizontal spread over the rows: %.3f px uncorrected, %.3f px with one "
	       "offset a frame, %.3f px with 16 bands\n",
	       one.truth_spread, one.spread, many.spread);
	printf("  frame to frame at mid-frame: %.3f px uncorrected, %.3f px with EIS\n", many.truth, many.residual);
	CHECK(one.truth_spread > 0.5);
	CHECK_NEAR(one.spread, one.truth_spread, 0.05 * one.truth_spread); /* one offset moves all rows alike */
	CHECK(many.spread < 0.25 * one.spread);
	CHECK(many.residual < 0.5 * many.truth);
	CHECK_EQ(many.clamped, 0);
}

TEST(eis_from_the_command_line)
{
	char out[8192];

	CHECK_EQ(test_run_cisp("run --camera " EIS_SENSOR " --frames 3 --quiet --option shake=5 --eis", out, sizeof(out)), 0);
	CHECK(strstr(out, "EIS on") != NULL);
	CHECK_EQ(test_run_cisp("run --camera " EIS_SENSOR " --frames 2 --quiet --eis --hdr", out, sizeof(out)), 0);
	CHECK_EQ(test_run_cisp("webcam --camera " EIS_SENSOR " --device none --size 160x120 --frames 3 --quiet --eis", out,
			       sizeof(out)), 0);
	CHECK(strstr(out, "warning") == NULL);
}

TEST(eis_settings_are_checked)
{
	struct cisp_camera_manager *m = NULL;
	struct cisp_camera *cam = NULL;
	struct cisp_camera_config cfg;
	struct cisp_eis_config ec = { .enable = true, .margin = 0.3 };
	struct cisp_camera_request req = { 0 };
	struct cisp_eis_frame f;

	CHECK_EQ(cisp_camera_manager_create(&m, NULL), 0);
	CHECK_EQ(cisp_camera_open(&cam, m, EIS_SENSOR, NULL), 0);
	if (!cam)
		goto out;
	CHECK_ERR(cisp_camera_set_eis(cam, &ec), -EINVAL, "margin 0.3");
	ec = (struct cisp_eis_config){ .enable = true, .smoothing_s = 9 };
	CHECK_ERR(cisp_camera_set_eis(cam, &ec), -EINVAL, "smoothing");
	ec = (struct cisp_eis_config){ .enable = true, .bands = 65 };
	CHECK_ERR(cisp_camera_set_eis(cam, &ec), -EINVAL, "65 bands");
	CHECK_ERR(cisp_camera_eis_frame(cam, &req, &f), -ENOENT, "EIS is off");
	CHECK_EQ(cisp_camera_default_config(cam, 0, &cfg), 0);
	cfg.stream[0].format = CISP_FMT_RGB48;
	CHECK_EQ(cisp_camera_configure(cam, &cfg), 0);
	ec = (struct cisp_eis_config){ .enable = true };
	CHECK_ERR(cisp_camera_set_eis(cam, &ec), -EINVAL, "RGB48");
	CHECK_ERR(cisp_camera_eis_frame(cam, &req, &f), -ENOENT, "EIS is off");
	cfg.stream[0].format = CISP_FMT_NV12;
	CHECK_EQ(cisp_camera_configure(cam, &cfg), 0);
	CHECK_EQ(cisp_camera_set_eis(cam, &ec), 0);
	CHECK_ERR(cisp_camera_eis_frame(cam, &req, &f), -ENOENT, "no EIS record of frame 0");
	CHECK_EQ(cisp_camera_set_eis(cam, NULL), 0);
out:
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(m);
}
