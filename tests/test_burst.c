/* SPDX-License-Identifier: MIT */
/*
 * The burst merge (include/cisp/burst.h, docs/burst.md): alignment recovers
 * known shifts, identical frames merge to themselves, a static burst gains
 * SNR close to sqrt(N), a tile that moved is rejected instead of ghosting,
 * the result does not depend on the threads, and bad bursts get clear
 * errors. End to end through the virtual sensor's hand shake and the camera.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <cisp/burst.h>
#include <cisp/camera.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/sensor.h>

#include "test.h"

#define W 320
#define H 256
#define BLACK 64

static uint64_t hash2(int64_t x, int64_t y)
{
	uint64_t h = (uint64_t)x * 0x9E3779B97F4A7C15ull ^ (uint64_t)y * 0xC2B2AE3D27D4EB4Full;

	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ull;
	return h ^ (h >> 29);
}

/* A textured scene at two scales (blocks of 6 and 40 pixels, random levels), moved by (@mx, @my). */
static uint16_t texture(int64_t x, int64_t y, int mx, int my)
{
	int64_t X = x - mx + 1000, Y = y - my + 1000;

	return (uint16_t)(BLACK + 100 + hash2(X / 6, Y / 6) % 200 + hash2(X / 40 + 7, Y / 40) % 400);
}

static double gaussian(void)
{
	double u = ((double)(test_rand() >> 11) + 0.5) * 0x1p-53, v = (double)(test_rand() >> 11) * 0x1p-53;

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static uint16_t *pixel(struct cisp_image *img, uint32_t x, uint32_t y)
{
	return (uint16_t *)(img->plane[0].data + (size_t)y * img->plane[0].stride) + x;
}

/* Frame of the textured scene moved by (@mx, @my) (a flat @flat level when @flat > 0), noise @sigma. */
static void make_frame(struct cisp_image *img, int mx, int my, int flat, double sigma)
{
	CHECK_EQ(cisp_image_alloc(img, CISP_FMT_SRGGB10, W, H), 0);
	for (uint32_t y = 0; y < H; y++)
		for (uint32_t x = 0; x < W; x++) {
			double v = (flat > 0 ? flat : texture(x, y, mx, my)) + sigma * gaussian();

			*pixel(img, x, y) = (uint16_t)lround(fmin(fmax(v, 0), 1023));
		}
}

static void free_frames(struct cisp_image *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		cisp_image_free(&f[i]);
}

static struct cisp_burst_config config_of(struct cisp_image *f, unsigned n, double sigma)
{
	struct cisp_burst_config c = { .num_frames = n, .black_level = BLACK, .noise_a = 0, .noise_b = sigma * sigma };

	for (unsigned i = 0; i < n; i++)
		c.frame[i] = &f[i];
	return c;
}

TEST(burst_align_recovers_known_shifts)
{
	/* 320x256 has three levels: a reach of (4 * 4 + 2 + 1) grey pixels, 38 mosaic pixels (docs/burst.md). */
	static const int shift[4][2] = { { 0, 0 }, { 6, -4 }, { -22, 10 }, { 36, -30 } };
	struct cisp_image f[4];
	struct cisp_burst_config c;
	int32_t(*off)[2] = calloc(4096, sizeof(*off));
	unsigned tx, ty, inner = 0, exact = 0;

	for (int i = 0; i < 4; i++)
		make_frame(&f[i], shift[i][0], shift[i][1], 0, 4);
	c = config_of(f, 4, 4);
	CHECK_EQ(cisp_burst_align(&c, NULL, off, 4096, &tx, &ty), 0);
	CHECK_EQ(tx, (W - 1) / 16 + 2);
	CHECK_EQ(ty, (H - 1) / 16 + 2);
	/* Tiles whose match lies inside the frame: every one of them finds the shift. */
	for (unsigned z = 1; z < 4; z++)
		for (unsigned j = 0; j < ty; j++)
			for (unsigned i = 0; i < tx; i++) {
				int x0 = 16 * (int)i - 16, y0 = 16 * (int)j - 16;
				const int32_t *o = off[((z - 1) * ty + j) * tx + i];

				if (x0 + shift[z][0] < 0 || y0 + shift[z][1] < 0 || x0 + 32 + shift[z][0] > W ||
				    y0 + 32 + shift[z][1] > H || x0 < 0 || y0 < 0 || x0 + 32 > W || y0 + 32 > H)
					continue;
				inner++;
				exact += o[0] == shift[z][0] && o[1] == shift[z][1];
				CHECK(o[0] % 2 == 0 && o[1] % 2 == 0);
			}
	CHECK(inner > 100);
	CHECK_EQ(exact, inner);
	/* Too little room: -ENOSPC with the grid's size. */
	CHECK_ERR(cisp_burst_align(&c, NULL, off, 10, &tx, &ty), -ENOSPC, "room for 10");
	free(off);
	free_frames(f, 4);
}

TEST(burst_merge_of_identical_frames_is_the_frame)
{
	struct cisp_image f[5], out;
	struct cisp_burst_config c;
	struct cisp_burst_result res;

	make_frame(&f[0], 0, 0, 0, 6);
	for (int i = 1; i < 5; i++) {
		CHECK_EQ(cisp_image_alloc(&f[i], CISP_FMT_SRGGB10, W, H), 0);
		for (uint32_t y = 0; y < H; y++)
			memcpy(pixel(&f[i], 0, y), pixel(&f[0], 0, y), W * 2);
	}
	CHECK_EQ(cisp_image_alloc(&out, CISP_FMT_SRGGB10, W, H), 0);
	c = config_of(f, 5, 6);
	CHECK_EQ(cisp_burst_merge(&c, &out, NULL, &res), 0);
	for (uint32_t y = 0; y < H; y++)
		CHECK(!memcmp(pixel(&out, 0, y), pixel(&f[0], 0, y), W * 2));
	CHECK_EQ(res.rejected, 0);
	CHECK_NEAR(res.variance_factor, 1.0 / 5, 1e-9);
	/* In place, on the reference: the same. */
	CHECK_EQ(cisp_burst_merge(&c, &f[0], NULL, NULL), 0);
	for (uint32_t y = 0; y < H; y++)
		CHECK(!memcmp(pixel(&out, 0, y), pixel(&f[0], 0, y), W * 2));
	cisp_image_free(&out);
	free_frames(f, 5);
}

/* Standard deviation of @img over the interior (tiles at the edges included: the whole frame is flat). */
static double flat_sigma(struct cisp_image *img)
{
	double sum = 0, sq = 0, n = 0;

	for (uint32_t y = 0; y < H; y++)
		for (uint32_t x = 0; x < W; x++) {
			double v = *pixel(img, x, y);

			sum += v;
			sq += v * v;
			n++;
		}
	return sqrt(sq / n - (sum / n) * (sum / n));
}

/*
 * A static flat burst with noise sigma: a full merge leaves sigma / sqrt(N).
 * What can cost gain: a tile's mean squared difference over its 1024 pixels
 * has a relative spread of sqrt(2 / 1024) = 4.4 %, so a static tile sees an
 * excess E of at most ~3 spreads = 0.27 sigma^2 and a weight
 * A = E / (E + 4 sigma^2) <= 0.07 to the reference; the variance then grows
 * by less than 15 % (N = 8, every frame at that weight), a gain of at least
 * sqrt(N) / sqrt(1.15) = 0.93 sqrt(N). The bound: 0.9 sqrt(N).
 * It can exceed sqrt(N) a little: on pure noise each tile's alignment
 * settles on an offset of its own, and the blend of overlapping tiles then
 * averages more than N samples (docs/burst.md); 1.25 sqrt(N) bounds that.
 */
TEST(burst_merge_static_snr_gain)
{
	static const unsigned counts[] = { 2, 4, 8 };

	for (unsigned k = 0; k < 3; k++) {
		unsigned n = counts[k];
		struct cisp_image f[8], out;
		struct cisp_burst_config c;
		struct cisp_burst_result res;
		double single, merged;

		for (unsigned i = 0; i < n; i++)
			make_frame(&f[i], 0, 0, 400, 10);
		CHECK_EQ(cisp_image_alloc(&out, CISP_FMT_SRGGB10, W, H), 0);
		c = config_of(f, n, 10);
		CHECK_EQ(cisp_burst_merge(&c, &out, NULL, &res), 0);
		single = flat_sigma(&f[0]);
		merged = flat_sigma(&out);
		printf("  burst of %u: sigma %.3f -> %.3f, gain %.3f (sqrt(N) %.3f), variance factor %.4f\n", n,
		       single, merged, single / merged, sqrt(n), res.variance_factor);
		CHECK(single / merged >= 0.9 * sqrt(n));
		CHECK(single / merged <= 1.25 * sqrt(n));
		CHECK(res.variance_factor <= 1.15 / n);
		CHECK_EQ(res.rejected, 0);
		cisp_image_free(&out);
		free_frames(f, n);
	}
}

/*
 * A bright square that sits elsewhere in every other frame: where the
 * reference has background, the merge must keep background (no ghost of the
 * square), and the static background around still merges.
 */
TEST(burst_merge_rejects_a_moved_tile)
{
	struct cisp_image f[4], out;
	struct cisp_burst_config c;
	struct cisp_burst_result res;
	double ghost = 0, naive = 0, n = 0;

	for (int i = 0; i < 4; i++) {
		make_frame(&f[i], 0, 0, 300, 8);
		/* The square: 40x40 at x = 40 + 60 i. */
		for (uint32_t y = 100; y < 140; y++)
			for (uint32_t x = 40 + 60 * (uint32_t)i; x < 80 + 60 * (uint32_t)i; x++)
				*pixel(&f[i], x, y) += 500;
	}
	CHECK_EQ(cisp_image_alloc(&out, CISP_FMT_SRGGB10, W, H), 0);
	c = config_of(f, 4, 8);
	CHECK_EQ(cisp_burst_merge(&c, &out, NULL, &res), 0);
	/* Where frames 1-3 had the square and the reference background: x 100..259. */
	for (uint32_t y = 100; y < 140; y++)
		for (uint32_t x = 100; x < 260; x++) {
			ghost += fabs((double)*pixel(&out, x, y) - 300);
			naive += 500.0 / 4; /* a plain mean's ghost: one frame of four has the square */
			n++;
		}
	printf("  moved square: residual ghost %.2f codes, a plain mean's %.1f, %u tile-frame pairs rejected\n",
	       ghost / n, naive / n, res.rejected);
	CHECK(ghost / n < 8); /* the reference's own noise, not the square (125 codes) */
	/* The square of the reference stays whole: within its noise. */
	for (uint32_t y = 104; y < 136; y += 7)
		for (uint32_t x = 44; x < 76; x += 5)
			CHECK(abs((int)*pixel(&out, x, y) - (int)*pixel(&f[0], x, y)) < 40);
	CHECK(res.rejected > 0);
	/* Far from the squares the burst still merged: the variance is well below one frame's. */
	CHECK(res.variance_factor < 0.5);
	cisp_image_free(&out);
	free_frames(f, 4);
}

TEST(burst_merge_does_not_depend_on_threads)
{
	static const int shift[3][2] = { { 0, 0 }, { 4, 2 }, { -8, 12 } };
	struct cisp_image f[3], one, two;
	struct cisp_burst_config c;
	struct cisp_pool *pool;

	for (int i = 0; i < 3; i++)
		make_frame(&f[i], shift[i][0], shift[i][1], 0, 12);
	CHECK_EQ(cisp_image_alloc(&one, CISP_FMT_SRGGB10, W, H), 0);
	CHECK_EQ(cisp_image_alloc(&two, CISP_FMT_SRGGB10, W, H), 0);
	CHECK_EQ(cisp_pool_create(&pool, 2), 0);
	c = config_of(f, 3, 12);
	c.noise_a = 0.5;
	CHECK_EQ(cisp_burst_merge(&c, &one, NULL, NULL), 0);
	CHECK_EQ(cisp_burst_merge(&c, &two, pool, NULL), 0);
	for (uint32_t y = 0; y < H; y++)
		CHECK(!memcmp(pixel(&one, 0, y), pixel(&two, 0, y), W * 2));
	cisp_pool_destroy(pool);
	cisp_image_free(&one);
	cisp_image_free(&two);
	free_frames(f, 3);
}

TEST(burst_bad_inputs)
{
	struct cisp_image f[3], out, small, packed;
	struct cisp_burst_config c;

	for (int i = 0; i < 3; i++)
		make_frame(&f[i], 0, 0, 200, 2);
	CHECK_EQ(cisp_image_alloc(&out, CISP_FMT_SRGGB10, W, H), 0);
	CHECK_EQ(cisp_image_alloc(&small, CISP_FMT_SRGGB10, W - 2, H), 0);
	CHECK_EQ(cisp_image_alloc(&packed, CISP_FMT_SRGGB10P, W, H), 0);

	c = config_of(f, 1, 2);
	CHECK_ERR(cisp_burst_merge(&c, &out, NULL, NULL), -EINVAL, "1 frames; a burst has 2 to 8");
	c.num_frames = 9;
	CHECK_ERR(cisp_burst_merge(&c, &out, NULL, NULL), -EINVAL, "9 frames");
	c = config_of(f, 3, 2);
	c.frame[2] = NULL;
	CHECK_ERR(cisp_burst_merge(&c, &out, NULL, NULL), -EINVAL, "frame 2 of 3 is missing");
	c = config_of(f, 3, 2);
	c.frame[1] = &small;
	CHECK_ERR(cisp_burst_merge(&c, &out, NULL, NULL), -EINVAL, "frame 1 is SRGGB10 318x256");
	c.frame[1] = &packed;
	CHECK_ERR(cisp_burst_merge(&c, &out, NULL, NULL), -EINVAL, "frame 1 is SRGGB10P");
	c = config_of(f, 3, 2);
	c.frame[0] = &packed;
	c.frame[1] = &packed;
	c.frame[2] = &packed;
	CHECK_ERR(cisp_burst_merge(&c, &out, NULL, NULL), -EINVAL, "not an unpacked Bayer format");
	c = config_of(f, 3, 2);
	CHECK_ERR(cisp_burst_merge(&c, &small, NULL, NULL), -EINVAL, "the output must be a SRGGB10 320x256");
	CHECK_ERR(cisp_burst_merge(&c, &f[2], NULL, NULL), -EINVAL, "the output is frame 2");
	c.noise_a = -1;
	CHECK_ERR(cisp_burst_merge(&c, &out, NULL, NULL), -EINVAL, "noise model");
	c.noise_a = NAN;
	CHECK_ERR(cisp_burst_merge(&c, &out, NULL, NULL), -EINVAL, "noise model");
	c.noise_a = 0;
	c.noise_b = 1e30;
	CHECK_ERR(cisp_burst_merge(&c, &out, NULL, NULL), -EINVAL, "noise model");
	c.noise_b = 4;
	c.rejection = 300;
	CHECK_ERR(cisp_burst_merge(&c, &out, NULL, NULL), -EINVAL, "rejection");
	CHECK_ERR(cisp_burst_merge(NULL, &out, NULL, NULL), -EINVAL, "no configuration");
	/* A descriptor whose rows overlap. */
	c = config_of(f, 3, 2);
	{
		struct cisp_image narrow = f[1];

		narrow.plane[0].stride = W; /* half a row of 16-bit samples */
		c.frame[1] = &narrow;
		CHECK_ERR(cisp_burst_merge(&c, &out, NULL, NULL), -EINVAL, "burst frame 1");
	}
	/* A worst-case noise model and saturated frames neither overflow nor fail. */
	c = config_of(f, 3, 4096);
	c.noise_a = 4096;
	c.rejection = 256;
	CHECK_EQ(cisp_burst_merge(&c, &out, NULL, NULL), 0);
	cisp_image_free(&packed);
	cisp_image_free(&small);
	cisp_image_free(&out);
	free_frames(f, 3);
}

/* ---- the virtual sensor's hand shake, and bursts through the camera ---- */

#define SHAKE_SENSOR "virtual:cisp-test"

TEST(burst_virtual_shake_is_recovered_by_alignment)
{
	struct cisp_sensor *s = NULL;
	struct cisp_sensor_mode mode;
	struct cisp_sensor_metadata md[4];
	struct cisp_image f[4];
	struct cisp_burst_config c = { .num_frames = 4 };
	int32_t(*off)[2] = calloc(4096, sizeof(*off));
	unsigned tx = 0, ty = 0, inner = 0, close_enough = 0;
	double spread = 0;

	CHECK_EQ(cisp_sensor_open(&s, SHAKE_SENSOR, "scene=deadleaves,shake=30,lux=2000,seed=7"), 0);
	if (!s)
		return;
	CHECK_EQ(cisp_sensor_get_mode(s, 0, &mode), 0);
	CHECK_EQ(cisp_sensor_start(s), 0);
	for (int z = 0; z < 4; z++) {
		CHECK_EQ(cisp_image_alloc(&f[z], mode.format, mode.width, mode.height), 0);
		CHECK_EQ(cisp_sensor_capture(s, &f[z], &md[z], 0), 0);
		c.frame[z] = &f[z];
	}
	CHECK_EQ(cisp_burst_align(&c, NULL, off, 4096, &tx, &ty), 0);
	/* Interior tiles: within one pixel of the true offset at the tile's middle row (even offsets round). */
	for (unsigned z = 1; z < 4; z++)
		for (unsigned j = 2; j + 2 < ty; j++)
			for (unsigned i = 2; i + 2 < tx; i++) {
				const int32_t *o = off[((z - 1) * ty + j) * tx + i];
				double x0, y0, xz, yz, ex, ey;
				uint32_t row = 16 * j < mode.height ? 16 * j : mode.height - 1;

				CHECK_EQ(cisp_vsensor_shake(s, md[0].timestamp_ns, row, &x0, &y0), 0);
				CHECK_EQ(cisp_vsensor_shake(s, md[z].timestamp_ns, row, &xz, &yz), 0);
				ex = fabs(o[0] - (xz - x0));
				ey = fabs(o[1] - (yz - y0));
				spread = fmax(spread, fabs(xz - x0) + fabs(yz - y0));
				inner++;
				close_enough += ex <= 1.5 && ey <= 1.5;
			}
	printf("  shake: %u of %u interior tiles within 1.5 px, largest true offset %.1f px\n", close_enough, inner,
	       spread);
	CHECK(spread > 3); /* the frames did move */
	CHECK(close_enough >= inner * 9 / 10);
	/* The accessor's bad input, and a still sensor. */
	CHECK_ERR(cisp_vsensor_shake(s, 0, mode.height, &spread, &spread), -EINVAL, "outside");
	CHECK_EQ(cisp_sensor_stop(s), 0);
	CHECK_ERR(cisp_sensor_set_option(s, "shake", "-1"), -EINVAL, "shake=-1");
	CHECK_ERR(cisp_sensor_set_option(s, "shake", "far"), -EINVAL, "shake=far");
	CHECK_EQ(cisp_sensor_set_option(s, "shake", "0"), 0);
	{
		double dx = 1, dy = 1;

		CHECK_EQ(cisp_vsensor_shake(s, md[3].timestamp_ns, 0, &dx, &dy), 0);
		CHECK(dx == 0 && dy == 0);
	}
	cisp_sensor_close(s);
	free(off);
	free_frames(f, 4);
}

/* Standard deviation of the green sites of @img in a @size square at the centre. */
static double centre_green_sigma(const struct cisp_image *img, uint32_t size)
{
	double sum = 0, sq = 0, n = 0;

	for (uint32_t y = (img->height - size) / 2; y < (img->height + size) / 2; y++)
		for (uint32_t x = (img->width - size) / 2; x < (img->width + size) / 2; x++) {
			double v;

			if ((x + y) % 2 == 0) /* RGGB: greens where x + y is odd */
				continue;
			v = ((const uint16_t *)(img->plane[0].data + (size_t)y * img->plane[0].stride))[x];
			sum += v;
			sq += v * v;
			n++;
		}
	return sqrt(sq / n - (sum / n) * (sum / n));
}

/* Run one request of @burst frames on @cam, its raw buffer into @raw; the request's status. */
static int one_request(struct cisp_camera *cam, struct cisp_image *main, struct cisp_image *raw, unsigned burst)
{
	struct cisp_camera_request req = { .buffer = { main, NULL, raw }, .burst = burst }, *done = NULL;
	int r;

	/* The same manual exposure for every request: noise comparable from one to the next. */
	req.controls.mask = CISP_REQ_AE_ENABLE | CISP_REQ_EXPOSURE | CISP_REQ_ANALOGUE_GAIN;
	req.controls.exposure_us = 20000;
	req.controls.analogue_gain = 4;
	r = cisp_camera_queue(cam, &req);

	if (r)
		return r;
	CHECK_EQ(cisp_camera_start(cam), 0);
	CHECK_EQ(cisp_camera_wait(cam, &done, 60 * 1000000000LL), 0);
	CHECK(done == &req);
	CHECK_EQ(cisp_camera_stop(cam), 0);
	if (req.status)
		printf("  request: %s\n", req.message);
	return req.status;
}

TEST(burst_through_the_camera)
{
	struct cisp_device_config dc = { .workers = 2 };
	struct cisp_camera_manager_config mc = { .device_config = &dc };
	struct cisp_camera_options o = { .sensor_options = "scene=flat,lux=5,shake=6,seed=3" };
	struct cisp_camera_manager *m = NULL;
	struct cisp_camera *cam = NULL;
	struct cisp_camera_config cfg;
	struct cisp_sensor_mode mode;
	struct cisp_image main, raw1, raw8, packed;
	struct cisp_camera_request bad = { 0 };
	double s1, s8;

	CHECK_EQ(cisp_camera_manager_create(&m, &mc), 0);
	CHECK_EQ(cisp_camera_open(&cam, m, SHAKE_SENSOR, &o), 0);
	if (!cam)
		goto out;
	CHECK_EQ(cisp_camera_default_config(cam, 0, &cfg), 0);
	CHECK_EQ(cisp_sensor_get_mode(cisp_camera_sensor(cam), 0, &mode), 0);
	cfg.stream[CISP_STREAM_RAW].format = mode.format;
	CHECK_EQ(cisp_camera_configure(cam, &cfg), 0);
	CHECK_EQ(cisp_image_alloc(&main, cfg.stream[CISP_STREAM_MAIN].format, cfg.stream[CISP_STREAM_MAIN].width,
				  cfg.stream[CISP_STREAM_MAIN].height), 0);
	CHECK_EQ(cisp_image_alloc(&raw1, mode.format, mode.width, mode.height), 0);
	CHECK_EQ(cisp_image_alloc(&raw8, mode.format, mode.width, mode.height), 0);
	CHECK_EQ(cisp_image_alloc(&packed, cisp_bayer_format(mode.cfa, 10, true), mode.width, mode.height), 0);

	/* A single frame, then a burst of 8 of the same flat, dim scene: the merge's noise is lower. */
	CHECK_EQ(one_request(cam, &main, &raw1, 1), 0);
	CHECK_EQ(one_request(cam, &main, &raw8, 8), 0);
	s1 = centre_green_sigma(&raw1, 64);
	s8 = centre_green_sigma(&raw8, 64);
	printf("  camera burst of 8 at 5 lux: green sigma %.2f -> %.2f (%.2fx)\n", s1, s8, s1 / s8);
	CHECK(s1 / s8 > 2.0);
	/* A single frame after the burst works as before. */
	CHECK_EQ(one_request(cam, &main, NULL, 0), 0);

	/* Bad bursts are refused when queued. */
	bad.buffer[CISP_STREAM_MAIN] = &main;
	bad.burst = 9;
	CHECK_ERR(cisp_camera_queue(cam, &bad), -EINVAL, "burst of 9 frames: 0 or 1 (one frame), or 2 to 8");
	bad.burst = 2;
	bad.bracket = (struct cisp_camera_bracket){ 2, { -1, 1 } };
	CHECK_ERR(cisp_camera_queue(cam, &bad), -EINVAL, "an exposure bracket; one or the other");
	bad.bracket.count = 0;
	cfg.stream[CISP_STREAM_RAW].format = packed.format;
	CHECK_EQ(cisp_camera_configure(cam, &cfg), 0);
	bad.burst = 2;
	CHECK_ERR(cisp_camera_queue(cam, &bad), -EINVAL, "a burst needs unpacked frames");
	cisp_image_free(&packed);
	cisp_image_free(&raw8);
	cisp_image_free(&raw1);
	cisp_image_free(&main);
out:
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(m);
}

/* Whether the file at @path starts with @magic. */
static bool starts_with(const char *path, const char *magic, size_t n)
{
	char buf[8] = { 0 };
	FILE *f = fopen(path, "rb");
	bool ok = f && fread(buf, 1, n, f) == n && !memcmp(buf, magic, n);

	if (f)
		fclose(f);
	return ok;
}

TEST(burst_cli_still)
{
	static char out[65536];
	char args[1024], png[512], dng[512];

	snprintf(png, sizeof(png), "%s/burst-still.png", test_tmp_dir());
	snprintf(dng, sizeof(dng), "%s/burst-still.dng", test_tmp_dir());
	remove(png);
	remove(dng);
	snprintf(args, sizeof(args),
		 "run --camera " SHAKE_SENSOR " --frames 3 --quiet --lux 5 --option shake=8 --burst 4 --still %s", png);
	CHECK_EQ(test_run_cisp(args, out, sizeof(out)), 0);
	CHECK(starts_with(png, "\x89PNG", 4));
	snprintf(args, sizeof(args), "run --camera " SHAKE_SENSOR " --frames 2 --quiet --burst 8 --still %s", dng);
	CHECK_EQ(test_run_cisp(args, out, sizeof(out)), 0);
	CHECK(starts_with(dng, "II*\0", 4) || starts_with(dng, "MM\0*", 4));
	/* The still is not replaced without --force. */
	CHECK(test_run_cisp(args, out, sizeof(out)) != 0);
	CHECK(strstr(out, "--force") != NULL);
	/* Bad values. */
	CHECK_EQ(test_run_cisp("run --camera " SHAKE_SENSOR " --burst 1", out, sizeof(out)), 2);
	CHECK(strstr(out, "--burst: '1' is not a whole number in 2..8") != NULL);
	CHECK_EQ(test_run_cisp("run --camera " SHAKE_SENSOR " --burst 9", out, sizeof(out)), 2);
	CHECK_EQ(test_run_cisp("run --camera " SHAKE_SENSOR " --burst 2 --still x.jpg", out, sizeof(out)), 2);
	CHECK(strstr(out, "give a FILE.png or a FILE.dng") != NULL);
	CHECK_EQ(test_run_cisp("run --camera " SHAKE_SENSOR " --png a.png --still b.png", out, sizeof(out)), 2);
	CHECK(strstr(out, "both name the last frame's PNG") != NULL);
}
