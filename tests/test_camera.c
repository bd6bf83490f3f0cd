/* SPDX-License-Identifier: MIT */
/*
 * The camera API: listing and opening, configuration checks, requests that
 * complete in order with their frame's metadata, manual controls reaching
 * the frames they apply to, start/stop cycles, two cameras streaming at
 * once on one device, and every request coming back when a camera stops or
 * closes with requests in flight. The small test sensor keeps it fast.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <cisp/camera.h>
#include <cisp/error.h>
#include <cisp/format.h>

#include "test.h"

#define TEST_CAMERA "virtual:cisp-test"
#define NREQ 4

/* A manager with two workers, shared by the tests' cameras. */
static struct cisp_camera_manager *manager(void)
{
	struct cisp_device_config dc = { .workers = 2 };
	struct cisp_camera_manager_config mc = { .device_config = &dc };
	struct cisp_camera_manager *m = NULL;

	CHECK_EQ(cisp_camera_manager_create(&m, &mc), 0);
	return m;
}

static struct cisp_camera *open_camera(struct cisp_camera_manager *m, const char *options)
{
	struct cisp_camera_options o = { .sensor_options = options };
	struct cisp_camera *cam = NULL;
	int r = cisp_camera_open(&cam, m, TEST_CAMERA, &o);

	if (r)
		test_fail(__FILE__, __LINE__, "open %s: %s", TEST_CAMERA, cisp_last_error());
	return cam;
}

/* Requests with main (and, when configured, raw) buffers of @cfg. */
struct requests {
	struct cisp_camera_request req[NREQ];
	struct cisp_image main[NREQ], raw[NREQ];
};

static void requests_alloc(struct requests *r, const struct cisp_camera_config *cfg,
			   const struct cisp_sensor_mode *mode)
{
	const struct cisp_stream_config *ms = &cfg->stream[CISP_STREAM_MAIN];

	memset(r, 0, sizeof(*r));
	for (int i = 0; i < NREQ; i++) {
		CHECK_EQ(cisp_image_alloc(&r->main[i], ms->format, ms->width, ms->height), 0);
		r->req[i].buffer[CISP_STREAM_MAIN] = &r->main[i];
		r->req[i].user = &r->req[i];
		if (cfg->stream[CISP_STREAM_RAW].format) {
			CHECK_EQ(cisp_image_alloc(&r->raw[i], cfg->stream[CISP_STREAM_RAW].format, mode->width,
						  mode->height), 0);
			r->req[i].buffer[CISP_STREAM_RAW] = &r->raw[i];
		}
	}
}

static void requests_free(struct requests *r)
{
	for (int i = 0; i < NREQ; i++) {
		cisp_image_free(&r->main[i]);
		cisp_image_free(&r->raw[i]);
	}
}

/* Configure @mode with the default streams; fills @mode_out. */
static int configure(struct cisp_camera *cam, unsigned mode, struct cisp_camera_config *cfg,
		     struct cisp_sensor_mode *mode_out)
{
	CHECK_EQ(cisp_camera_default_config(cam, mode, cfg), 0);
	CHECK_EQ(cisp_sensor_get_mode(cisp_camera_sensor(cam), mode, mode_out), 0);
	return cisp_camera_configure(cam, cfg);
}

static uint64_t hash_plane0(const struct cisp_image *img)
{
	size_t row = 0, rows = 0;
	uint64_t h = 1469598103934665603ull;

	cisp_image_plane_size(img->format, img->width, img->height, 0, &row, &rows);
	for (size_t y = 0; y < rows; y++)
		for (size_t i = 0; i < row; i++)
			h = (h ^ img->plane[0].data[y * img->plane[0].stride + i]) * 1099511628211ull;
	return h;
}

/*
 * Stream @frames frames with the first @in_flight of the NREQ requests,
 * re-queueing each when it completes; @md receives every frame's metadata
 * in completion order, @hash (when given) a hash of its main buffer. The
 * controls of frame n are @controls(n) when given.
 */
static int stream_in_flight(struct cisp_camera *cam, struct requests *r, unsigned in_flight, unsigned frames,
			    struct cisp_camera_metadata *md, uint64_t *hash,
			    void (*controls)(unsigned n, struct cisp_control_request *c))
{
	unsigned queued = 0, done = 0, next_req = 0;

	for (unsigned i = 0; i < in_flight && queued < frames; i++, queued++) {
		memset(&r->req[i].controls, 0, sizeof(r->req[i].controls));
		if (controls)
			controls(queued, &r->req[i].controls);
		CHECK_EQ(cisp_camera_queue(cam, &r->req[i]), 0);
	}
	CHECK_EQ(cisp_camera_start(cam), 0);
	while (done < frames) {
		struct cisp_camera_request *req = NULL;

		if (cisp_camera_wait(cam, &req, 10 * 1000000000LL)) {
			test_fail(__FILE__, __LINE__, "wait: %s", cisp_last_error());
			break;
		}
		/* Requests come back in the order they were queued. */
		CHECK(req == &r->req[next_req]);
		next_req = (next_req + 1) % in_flight;
		if (req->status)
			test_fail(__FILE__, __LINE__, "frame %u: %d %s", done, req->status, req->message);
		if (hash)
			hash[done] = hash_plane0(req->buffer[CISP_STREAM_MAIN]);
		md[done++] = req->metadata;
		if (queued < frames) {
			memset(&req->controls, 0, sizeof(req->controls));
			if (controls)
				controls(queued, &req->controls);
			CHECK_EQ(cisp_camera_queue(cam, req), 0);
			queued++;
		}
	}
	CHECK_EQ(cisp_camera_stop(cam), 0);
	return (int)done;
}

/* stream_in_flight() with every request. */
static int stream(struct cisp_camera *cam, struct requests *r, unsigned frames, struct cisp_camera_metadata *md,
		  void (*controls)(unsigned n, struct cisp_control_request *c))
{
	return stream_in_flight(cam, r, NREQ, frames, md, NULL, controls);
}

TEST(camera_list_and_open)
{
	struct cisp_camera_manager *m = manager();
	struct cisp_camera_desc list[32];
	struct cisp_camera_options bad_option = { .sensor_options = "lux=-1" };
	struct cisp_camera_options bad_tuning = { .tuning = "/no/such/tuning.yaml" };
	struct cisp_camera *cam = NULL;
	int n = cisp_camera_list(m, list, 32);
	bool test = false, m8 = false;

	CHECK(n >= 3);
	for (int i = 0; i < n && i < 32; i++) {
		test |= !strcmp(list[i].name, TEST_CAMERA);
		m8 |= !strcmp(list[i].name, "virtual:cisp-8m10");
		CHECK(!strcmp(list[i].backend, "virtual"));
	}
	CHECK(test && m8);
	CHECK_EQ(cisp_camera_list(m, NULL, 0), n);
	CHECK_ERR(cisp_camera_open(&cam, m, "virtual:no-such-model", NULL), -ENOENT, TEST_CAMERA);
	CHECK(cam == NULL);
	CHECK_ERR(cisp_camera_open(&cam, m, "", NULL), -EINVAL, "no camera name");
	CHECK_ERR(cisp_camera_open(&cam, m, TEST_CAMERA, &bad_option), -EINVAL, "lux");
	bad_option.sensor_options = "scene=/no/such/scene.png";
	CHECK_ERR(cisp_camera_open(&cam, m, TEST_CAMERA, &bad_option), -ENOENT, "/no/such/scene.png");
	CHECK(cisp_camera_open(&cam, m, TEST_CAMERA, &bad_tuning) < 0);
	CHECK(strstr(cisp_last_error(), "/no/such/tuning.yaml") != NULL);
	CHECK(cam == NULL);

	cam = open_camera(m, NULL);
	if (cam) {
		CHECK(cisp_camera_sensor(cam) != NULL);
		CHECK(strlen(cisp_camera_tuning_name(cam)) > 0);
		CHECK(!strcmp(cisp_sensor_info(cisp_camera_sensor(cam))->model, "cisp-test"));
	}
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(m);
	CHECK(!strcmp(cisp_camera_stream_name(CISP_STREAM_PREVIEW), "preview"));
	CHECK(!strcmp(cisp_camera_stream_name(7), "unknown"));
}

TEST(camera_bad_configs_rejected)
{
	struct cisp_camera_manager *m = manager();
	struct cisp_camera *cam = open_camera(m, NULL);
	struct cisp_camera_config cfg, good;
	struct cisp_camera_request req = { 0 };
	struct cisp_sensor_mode mode;
	struct cisp_image img, small;

	if (!cam)
		goto out;
	CHECK_ERR(cisp_camera_default_config(cam, 9, &cfg), -ERANGE, "no mode 9");
	CHECK_EQ(cisp_camera_default_config(cam, 1, &good), 0);
	CHECK_EQ(cisp_sensor_get_mode(cisp_camera_sensor(cam), 1, &mode), 0);
	CHECK_EQ(good.stream[CISP_STREAM_MAIN].format, CISP_FMT_NV12);
	CHECK_EQ(good.stream[CISP_STREAM_MAIN].width, mode.width);

	CHECK_EQ(cisp_image_alloc(&img, CISP_FMT_NV12, mode.width, mode.height), 0);
	req.buffer[CISP_STREAM_MAIN] = &img;
	CHECK_ERR(cisp_camera_queue(cam, &req), -ENODEV, "not configured");
	CHECK_ERR(cisp_camera_start(cam), -EINVAL, "not configured");

	cfg = good;
	cfg.mode = 5;
	CHECK_ERR(cisp_camera_configure(cam, &cfg), -ERANGE, "no mode 5");
	cfg = good;
	cfg.stream[CISP_STREAM_MAIN].format = 0;
	CHECK_ERR(cisp_camera_configure(cam, &cfg), -EINVAL, "main stream is required");
	cfg = good;
	cfg.stream[CISP_STREAM_MAIN].format = CISP_FMT_SRGGB10;
	CHECK_ERR(cisp_camera_configure(cam, &cfg), -EINVAL, "main stream: format");
	cfg = good;
	cfg.stream[CISP_STREAM_MAIN].width = 101;
	CHECK_ERR(cisp_camera_configure(cam, &cfg), -EINVAL, "even size");
	cfg = good;
	cfg.stream[CISP_STREAM_MAIN].crop_x = 100;
	cfg.stream[CISP_STREAM_MAIN].crop_width = 80;
	cfg.stream[CISP_STREAM_MAIN].crop_height = 60;
	CHECK_ERR(cisp_camera_configure(cam, &cfg), -EINVAL, "outside the 160x120 frame");
	cfg = good;
	cfg.stream[CISP_STREAM_PREVIEW] = (struct cisp_stream_config){ CISP_FMT_RGB888, 320, 240, 0, 0, 0, 0 };
	CHECK_ERR(cisp_camera_configure(cam, &cfg), -EINVAL, "larger than the main stream");
	cfg = good;
	cfg.stream[CISP_STREAM_RAW].format = CISP_FMT_SBGGR10;
	CHECK_ERR(cisp_camera_configure(cam, &cfg), -EINVAL, "raw stream: format SBGGR10");
	cfg = good;
	cfg.stream[CISP_STREAM_RAW].format = mode.format;
	cfg.stream[CISP_STREAM_RAW].crop_width = 8;
	CHECK_ERR(cisp_camera_configure(cam, &cfg), -EINVAL, "cannot be cropped");

	/* A crop and a scaled preview are fine. */
	cfg = good;
	cfg.stream[CISP_STREAM_MAIN] = (struct cisp_stream_config){ CISP_FMT_I420, 64, 48, 16, 8, 128, 96 };
	cfg.stream[CISP_STREAM_PREVIEW] = (struct cisp_stream_config){ CISP_FMT_RGB888, 32, 24, 0, 0, 0, 0 };
	CHECK_EQ(cisp_camera_configure(cam, &cfg), 0);
	/* A refused configuration leaves this one in place (the request checks below see it). */
	good.mode = 5;
	CHECK_ERR(cisp_camera_configure(cam, &good), -ERANGE, "no mode 5");
	good.mode = cfg.mode;
	/* Requests must match the streams. */
	CHECK_ERR(cisp_camera_queue(cam, &req), -EINVAL, "main buffer is 160x120 NV12 but the stream is 64x48 YUV420");
	CHECK_EQ(cisp_image_alloc(&small, CISP_FMT_RGB888, 32, 24), 0);
	req.buffer[CISP_STREAM_MAIN] = NULL;
	CHECK_ERR(cisp_camera_queue(cam, &req), -EINVAL, "no buffer");
	req.buffer[CISP_STREAM_RAW] = &small;
	CHECK_ERR(cisp_camera_queue(cam, &req), -EINVAL, "raw stream is off");
	req.buffer[CISP_STREAM_RAW] = NULL;
	req.buffer[CISP_STREAM_PREVIEW] = &small;
	req.controls.mask = 1u << 30;
	CHECK_ERR(cisp_camera_queue(cam, &req), -EINVAL, "unknown mask bits");
	req.controls.mask = 0;
	CHECK_EQ(cisp_camera_queue(cam, &req), 0);
	CHECK_ERR(cisp_camera_queue(cam, &req), -EBUSY, "already queued");
	CHECK_ERR(cisp_camera_configure(cam, &good), -EBUSY, "requests queued");
	/* Stopping a camera that never started hands the queued request back. */
	CHECK_EQ(cisp_camera_stop(cam), 0);
	{
		struct cisp_camera_request *back = NULL;

		CHECK_EQ(cisp_camera_wait(cam, &back, 0), 0);
		CHECK(back == &req);
		CHECK_EQ(req.status, -ECANCELED);
		CHECK_ERR(cisp_camera_wait(cam, &back, -1), -ENODATA, "none is in flight");
	}
	CHECK_EQ(cisp_camera_configure(cam, &good), 0);
	CHECK_EQ(cisp_camera_start(cam), 0);
	CHECK_ERR(cisp_camera_start(cam), -EBUSY, "already started");
	CHECK_ERR(cisp_camera_configure(cam, &good), -EBUSY, "while started");
	CHECK_EQ(cisp_camera_stop(cam), 0);
	cisp_image_free(&small);
	cisp_image_free(&img);
out:
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(m);
}

TEST(camera_requests_complete_in_order_with_metadata)
{
	struct cisp_camera_manager *m = manager();
	struct cisp_camera *cam = open_camera(m, NULL);
	struct cisp_camera_metadata md[12];
	struct cisp_camera_config cfg;
	struct cisp_sensor_mode mode;
	struct requests r;
	double line_us;
	int n;

	if (!cam)
		goto out;
	CHECK_EQ(cisp_camera_default_config(cam, 1, &cfg), 0);
	CHECK_EQ(cisp_sensor_get_mode(cisp_camera_sensor(cam), 1, &mode), 0);
	cfg.stream[CISP_STREAM_RAW].format = mode.format;
	CHECK_EQ(cisp_camera_configure(cam, &cfg), 0);
	requests_alloc(&r, &cfg, &mode);
	line_us = cisp_sensor_line_ns(&mode) / 1000;
	n = stream(cam, &r, 12, md, NULL);
	CHECK_EQ(n, 12);
	for (int i = 0; i < n; i++) {
		const struct cisp_sensor_metadata *s = &md[i].sensor;

		CHECK_EQ(md[i].sequence, i);
		CHECK_EQ(s->sequence, i);
		if (i)
			CHECK_EQ(md[i].timestamp_ns, md[i - 1].timestamp_ns + md[i - 1].sensor.frame_duration_ns);
		/* What the frame used, in the camera's units. */
		CHECK_NEAR(md[i].exposure_us, s->controls[CISP_SENSOR_EXPOSURE] * line_us, 0.01);
		CHECK_NEAR(md[i].analogue_gain, s->controls[CISP_SENSOR_ANALOGUE_GAIN] / 256.0, 1e-9);
		CHECK_NEAR(md[i].frame_duration_us, s->controls[CISP_SENSOR_FRAME_LENGTH] * line_us, 0.01);
		CHECK_EQ(md[i].lens_position, s->controls[CISP_SENSOR_LENS_POSITION]);
		CHECK(md[i].colour_temperature >= 2000 && md[i].colour_temperature <= 12000);
		CHECK(md[i].colour_gains[0] > 0 && md[i].colour_gains[1] > 0);
		/* A colour matrix keeps white white: each row sums to 1 (Q3.12 rounding aside). */
		for (int row = 0; row < 3; row++)
			CHECK_NEAR(md[i].ccm[3 * row] + md[i].ccm[3 * row + 1] + md[i].ccm[3 * row + 2], 1.0, 0.002);
		CHECK_EQ(md[i].control.sequence, i);
		CHECK_EQ(md[i].ae_state, md[i].control.ae_state);
		CHECK(md[i].isp_ns > 0);
	}
	/* The colour applied to frame n + 1 is the one the loop chose after frame n. */
	for (int i = 1; i < n; i++)
		CHECK_NEAR(md[i].colour_temperature, md[i - 1].control.colour_temperature, 1e-9);
	/* The buffers hold the frame: raw samples above black, and a picture that is not flat. */
	{
		const uint16_t *raw = (const uint16_t *)r.raw[0].plane[0].data;
		const uint8_t *y = r.main[0].plane[0].data;
		unsigned lo = 255, hi = 0;

		CHECK(raw[mode.width * (mode.height / 2) + mode.width / 2] > mode.black_level);
		for (uint32_t i = 0; i < mode.width * mode.height; i++) {
			lo = y[i] < lo ? y[i] : lo;
			hi = y[i] > hi ? y[i] : hi;
		}
		CHECK(hi > lo + 40);
	}
	requests_free(&r);
out:
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(m);
}

/*
 * A request always counts as in flight until it is completed: polling
 * cisp_camera_wait() while the camera thread hands it back must never get
 * -ENODATA (the request was neither current nor done for a moment).
 */
TEST(camera_wait_polling_sees_the_request_in_flight)
{
	struct cisp_camera_manager *m = manager();
	struct cisp_camera *cam = open_camera(m, NULL);
	struct cisp_camera_config cfg;
	struct cisp_sensor_mode mode;
	struct requests r;
	struct cisp_camera_request *req = &r.req[0];

	if (!cam)
		goto out;
	CHECK_EQ(configure(cam, 1, &cfg, &mode), 0);
	requests_alloc(&r, &cfg, &mode);
	CHECK_EQ(cisp_camera_queue(cam, req), 0);
	CHECK_EQ(cisp_camera_start(cam), 0);
	for (int frame = 0; frame < 120; frame++) {
		struct cisp_camera_request *got = NULL;
		int ret;

		do
			ret = cisp_camera_wait(cam, &got, 0);
		while (ret == -ETIMEDOUT);
		if (ret) {
			test_fail(__FILE__, __LINE__, "frame %d: wait: %d %s", frame, ret, cisp_last_error());
			break;
		}
		CHECK(got == req);
		CHECK_EQ(got->status, 0);
		CHECK_EQ(cisp_camera_queue(cam, got), 0);
	}
	CHECK_EQ(cisp_camera_stop(cam), 0);
	requests_free(&r);
out:
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(m);
}

TEST(camera_start_stop_repeatedly)
{
	struct cisp_camera_manager *m = manager();
	struct cisp_camera *cam = open_camera(m, NULL);
	struct cisp_camera_metadata md[3];

	for (int cycle = 0; cam && cycle < 4; cycle++) {
		unsigned mode_index = cycle % 2;
		struct cisp_camera_config cfg;
		struct cisp_sensor_mode mode;
		struct requests r;

		/* Reconfigure every other time; sequences restart at 0 on each start. */
		if (cycle < 2)
			CHECK_EQ(configure(cam, mode_index, &cfg, &mode), 0);
		else
			CHECK_EQ(configure(cam, 1, &cfg, &mode), 0);
		requests_alloc(&r, &cfg, &mode);
		CHECK_EQ(stream(cam, &r, 3, md, NULL), 3);
		for (int i = 0; i < 3; i++)
			CHECK_EQ(md[i].sequence, i);
		CHECK_EQ(md[0].sensor.mode, cfg.mode);
		requests_free(&r);
	}
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(m);
}

#define MANUAL_FRAME 3
#define MANUAL_EXPOSURE_US 4000.0
#define MANUAL_GAIN 2.0
#define MANUAL_CT 3100.0
#define MANUAL_LENS 333

static void manual_controls(unsigned n, struct cisp_control_request *c)
{
	if (n != MANUAL_FRAME)
		return;
	c->mask = CISP_REQ_AE_ENABLE | CISP_REQ_EXPOSURE | CISP_REQ_ANALOGUE_GAIN | CISP_REQ_AWB_ENABLE |
		  CISP_REQ_COLOUR_TEMPERATURE | CISP_REQ_AF_MODE | CISP_REQ_LENS_POSITION;
	c->ae_enable = false;
	c->exposure_us = MANUAL_EXPOSURE_US;
	c->analogue_gain = MANUAL_GAIN;
	c->awb_enable = false;
	c->colour_temperature = MANUAL_CT;
	c->af_mode = CISP_AF_MANUAL;
	c->lens_position = MANUAL_LENS;
}

/* The first frame from which @ok holds to the end, or -1. */
static int settled_from(const struct cisp_camera_metadata *md, int n, bool (*ok)(const struct cisp_camera_metadata *))
{
	int from = -1;

	for (int i = 0; i < n; i++)
		if (!ok(&md[i]))
			from = -1;
		else if (from < 0)
			from = i;
	return from;
}

static double g_line_us;

static bool manual_exposure(const struct cisp_camera_metadata *m)
{
	return fabs(m->exposure_us - MANUAL_EXPOSURE_US) <= g_line_us && fabs(m->analogue_gain - MANUAL_GAIN) < 0.01;
}

static bool manual_colour(const struct cisp_camera_metadata *m)
{
	return fabs(m->colour_temperature - MANUAL_CT) < 1;
}

static bool manual_lens(const struct cisp_camera_metadata *m)
{
	return m->lens_position == MANUAL_LENS;
}

TEST(camera_manual_controls_reach_their_frames)
{
	struct cisp_camera_manager *m = manager();
	struct cisp_camera *cam = open_camera(m, "lux=200");
	struct cisp_camera_metadata md[16];
	struct cisp_camera_config cfg;
	struct cisp_sensor_mode mode;
	struct requests r;
	int n, e, c, l;

	if (!cam)
		goto out;
	CHECK_EQ(configure(cam, 1, &cfg, &mode), 0);
	g_line_us = cisp_sensor_line_ns(&mode) / 1000;
	requests_alloc(&r, &cfg, &mode);
	n = stream(cam, &r, 16, md, manual_controls);
	CHECK_EQ(n, 16);
	e = settled_from(md, n, manual_exposure);
	c = settled_from(md, n, manual_colour);
	l = settled_from(md, n, manual_lens);
	/*
	 * The loop takes the request with frame 3 and decides, after that
	 * frame's statistics, for frame 3 + 1 + the largest delay of the
	 * controls it changes (here exposure's, the sensor's largest); the ISP
	 * colour goes with the next job. The metadata shows each value on
	 * exactly the first frame that used it, and on every frame after.
	 */
	{
		unsigned d = 0;

		for (unsigned id = 0; id < CISP_SENSOR_NUM_CONTROLS; id++) {
			struct cisp_sensor_control_info ci;

			if (!cisp_sensor_control_info(cisp_camera_sensor(cam), id, &ci) && ci.supported && ci.delay > d)
				d = ci.delay;
		}
		CHECK_EQ(e, MANUAL_FRAME + 1 + (int)d);
		CHECK_EQ(l, MANUAL_FRAME + 1 + (int)d);
		CHECK_EQ(c, MANUAL_FRAME + 1);
	}
	for (int i = MANUAL_FRAME + 1; i < n; i++) {
		CHECK_EQ(md[i].ae_state, CISP_AE_MANUAL);
		CHECK_EQ(md[i].awb_state, CISP_AWB_MANUAL);
		CHECK_EQ(md[i].af_state, CISP_AF_IDLE);
	}
	/* The metadata is what the sensor really applied. */
	for (int i = 0; i < n; i++)
		CHECK_NEAR(md[i].exposure_us, md[i].sensor.exposure_ns / 1000.0, 1e-6);
	requests_free(&r);
out:
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(m);
}

/* Completed requests collected by a callback. */
struct collector {
	pthread_mutex_t lock;
	struct cisp_camera_request *got[64];
	int count;
};

static void collect(struct cisp_camera_request *req, void *opaque)
{
	struct collector *c = opaque;

	pthread_mutex_lock(&c->lock);
	if (c->count < 64)
		c->got[c->count] = req;
	c->count++;
	pthread_mutex_unlock(&c->lock);
}

static int collected(struct collector *c)
{
	int n;

	pthread_mutex_lock(&c->lock);
	n = c->count;
	pthread_mutex_unlock(&c->lock);
	return n;
}

TEST(camera_two_cameras_at_once)
{
	struct cisp_camera_manager *m = manager();
	struct cisp_camera *a = open_camera(m, "scene=colorchart,seed=1");
	struct cisp_camera *b = open_camera(m, "scene=gradient,seed=2");
	struct cisp_camera_config ca, cb;
	struct cisp_sensor_mode mode;
	struct collector col = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct cisp_camera_request rb[8];
	struct cisp_image ib[8];
	struct requests ra;
	struct cisp_camera_metadata md[10];
	uint64_t bseq = 0;

	if (!a || !b)
		goto out;
	/* a: waits; b: a callback, 8 requests all queued up front, cropped and scaled. */
	CHECK_EQ(configure(a, 1, &ca, &mode), 0);
	CHECK_EQ(cisp_camera_default_config(b, 0, &cb), 0);
	cb.stream[CISP_STREAM_MAIN] = (struct cisp_stream_config){ CISP_FMT_NV12, 96, 64, 32, 24, 192, 128 };
	cb.complete = collect;
	cb.opaque = &col;
	CHECK_EQ(cisp_camera_configure(b, &cb), 0);
	memset(rb, 0, sizeof(rb));
	for (int i = 0; i < 8; i++) {
		CHECK_EQ(cisp_image_alloc(&ib[i], CISP_FMT_NV12, 96, 64), 0);
		rb[i].buffer[CISP_STREAM_MAIN] = &ib[i];
		CHECK_EQ(cisp_camera_queue(b, &rb[i]), 0);
	}
	{
		struct cisp_camera_request *none;

		CHECK_ERR(cisp_camera_wait(b, &none, 0), -EINVAL, "callback");
	}
	CHECK_EQ(cisp_camera_start(b), 0);
	requests_alloc(&ra, &ca, &mode);
	CHECK_EQ(stream(a, &ra, 10, md, NULL), 10);
	for (int i = 0; i < 10; i++)
		CHECK_EQ(md[i].sequence, i);
	/* b runs beside a; wait for its 8 frames. */
	for (int spin = 0; spin < 2000 && collected(&col) < 8; spin++) {
		struct timespec ts = { 0, 5000000 };

		nanosleep(&ts, NULL);
	}
	CHECK_EQ(cisp_camera_stop(b), 0);
	CHECK_EQ(collected(&col), 8);
	for (int i = 0; i < 8 && i < col.count; i++) {
		CHECK(col.got[i] == &rb[i]);
		CHECK_EQ(rb[i].status, 0);
		CHECK_EQ(rb[i].metadata.sequence, bseq++);
	}
	/* Different scenes gave different pictures. */
	CHECK(memcmp(ra.main[0].plane[0].data, ib[7].plane[0].data, 64) != 0);
	requests_free(&ra);
	for (int i = 0; i < 8; i++)
		cisp_image_free(&ib[i]);
out:
	cisp_camera_close(a);
	cisp_camera_close(b);
	cisp_camera_manager_destroy(m);
}

TEST(camera_close_returns_every_request)
{
	struct cisp_camera_manager *m = manager();
	struct collector col = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct cisp_camera *cam = open_camera(m, NULL);
	struct cisp_camera_request req[12];
	struct cisp_image img[12];
	struct cisp_camera_config cfg;
	struct cisp_sensor_mode mode;
	int ok = 0, cancelled = 0;

	if (!cam)
		goto out;
	CHECK_EQ(cisp_camera_default_config(cam, 0, &cfg), 0);
	CHECK_EQ(cisp_sensor_get_mode(cisp_camera_sensor(cam), 0, &mode), 0);
	cfg.complete = collect;
	cfg.opaque = &col;
	CHECK_EQ(cisp_camera_configure(cam, &cfg), 0);
	memset(req, 0, sizeof(req));
	for (int i = 0; i < 12; i++) {
		CHECK_EQ(cisp_image_alloc(&img[i], CISP_FMT_NV12, mode.width, mode.height), 0);
		req[i].buffer[CISP_STREAM_MAIN] = &img[i];
		CHECK_EQ(cisp_camera_queue(cam, &req[i]), 0);
	}
	CHECK_EQ(cisp_camera_start(cam), 0);
	while (collected(&col) < 2) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
	cisp_camera_close(cam); /* with requests in flight */
	cam = NULL;
	CHECK_EQ(col.count, 12);
	for (int i = 0; i < 12 && i < col.count; i++) {
		/* Every request once, in order: the processed ones first, then the cancelled ones. */
		CHECK(col.got[i] == &req[i]);
		if (req[i].status == 0) {
			CHECK_EQ(cancelled, 0);
			CHECK_EQ(req[i].metadata.sequence, ok);
			ok++;
		} else {
			CHECK_EQ(req[i].status, -ECANCELED);
			CHECK(strstr(req[i].message, "cancelled") != NULL);
			cancelled++;
		}
	}
	CHECK(ok >= 2);
	CHECK_EQ(ok + cancelled, 12);
	for (int i = 0; i < 12; i++)
		cisp_image_free(&img[i]);

	/* Without a callback, stop hands every request back to cisp_camera_wait(). */
	cam = open_camera(m, NULL);
	if (cam) {
		struct cisp_camera_request *back;
		int n = 0;

		CHECK_EQ(configure(cam, 1, &cfg, &mode), 0);
		CHECK_EQ(cisp_image_alloc(&img[0], CISP_FMT_NV12, mode.width, mode.height), 0);
		for (int i = 0; i < 6; i++) {
			memset(&req[i], 0, sizeof(req[i]));
			req[i].buffer[CISP_STREAM_MAIN] = &img[0]; /* one buffer shared: only the count matters */
			CHECK_EQ(cisp_camera_queue(cam, &req[i]), 0);
		}
		CHECK_EQ(cisp_camera_start(cam), 0);
		CHECK_EQ(cisp_camera_wait(cam, &back, -1), 0);
		CHECK(back == &req[0]);
		CHECK_EQ(cisp_camera_stop(cam), 0);
		n = 1;
		while (!cisp_camera_wait(cam, &back, 0)) {
			CHECK(back == &req[n]);
			n++;
		}
		CHECK_EQ(n, 6);
		cisp_image_free(&img[0]);
	}
out:
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(m);
}

static const char *write_config(const char *name, const char *text)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", test_tmp_dir(), name);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return path;
}

TEST(camera_configuration_file)
{
	struct cisp_camera_manager_config mc = { 0 };
	struct cisp_camera_manager *m = NULL;
	struct cisp_camera_desc list[32];
	struct cisp_camera *cam = NULL;
	int n;

	mc.config = write_config("cam-cameras.yaml", "version: 1\n"
						 "cameras:\n"
						 "  - name: lab-a\n"
						 "    sensor: virtual:cisp-test\n"
						 "    options: scene=gradient,illuminant=A\n"
						 "    description: test sensor under tungsten\n"
						 "  - {name: bench, sensor: 'virtual:cisp-8m10'}\n");
	CHECK_EQ(cisp_camera_manager_create(&m, &mc), 0);
	if (!m)
		return;
	n = cisp_camera_list(m, list, 32);
	CHECK(n >= 5);
	CHECK(!strcmp(list[0].name, "lab-a") && !strcmp(list[0].backend, "virtual"));
	CHECK(!strcmp(list[0].description, "test sensor under tungsten"));
	CHECK(!strcmp(list[1].name, "bench"));
	CHECK(strncmp(list[2].name, "virtual:", 8) == 0);
	/* The file's options, then the caller's. */
	{
		struct cisp_camera_options o = { .sensor_options = "lux=-5" };

		CHECK_ERR(cisp_camera_open(&cam, m, "lab-a", &o), -EINVAL, "lux");
	}
	/* Options too long to merge are refused, not cut short (lux=2000 read as lux=20). */
	{
		char longer[1100];
		struct cisp_camera_options o = { .sensor_options = longer };

		memset(longer, 'x', sizeof(longer) - 1);
		longer[sizeof(longer) - 1] = 0;
		CHECK_ERR(cisp_camera_open(&cam, m, "lab-a", &o), -EINVAL, "longer than");
		CHECK(cam == NULL);
	}
	CHECK_EQ(cisp_camera_open(&cam, m, "lab-a", NULL), 0);
	if (cam) {
		struct cisp_vsensor_patch p;

		CHECK(!strcmp(cisp_sensor_info(cisp_camera_sensor(cam))->model, "cisp-test"));
		/* scene=gradient took effect: there is no chart. */
		CHECK_EQ(cisp_vsensor_chart_patch(cisp_camera_sensor(cam), 0, &p), -ENODATA);
	}
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(m);

	mc.config = write_config("cam-bad1.yaml",
				 "version: 1\ncameras:\n  - name: x\n    sensor: virtual:cisp-test\n    lens: big\n");
	CHECK_ERR(cisp_camera_manager_create(&m, &mc), -EINVAL, ":5: cameras[0].lens: unknown key");
	mc.config = write_config("cam-bad2.yaml", "version: 1\ncameras:\n  - name: x\n");
	CHECK_ERR(cisp_camera_manager_create(&m, &mc), -EINVAL, "needs a 'name' and a 'sensor'");
	mc.config = write_config("cam-bad3.yaml", "version: 2\ncameras: []\n");
	CHECK_ERR(cisp_camera_manager_create(&m, &mc), -EPROTONOSUPPORT, "version must be 1");
	mc.config = write_config("cam-bad4.yaml", "version: 1\ncameras: [{name: a, sensor: s}, {name: a, sensor: t}]\n");
	CHECK_ERR(cisp_camera_manager_create(&m, &mc), -EINVAL, "camera 'a' is named twice");
	/* Hostile shapes: each refused with its line and place, never read past. */
	mc.config = write_config("cam-bad5.yaml", "version: 1\ncameras:\n  - just-a-name\n");
	CHECK_ERR(cisp_camera_manager_create(&m, &mc), -EINVAL, "cam-bad5.yaml:3: cameras[0]: must be a mapping");
	mc.config = write_config("cam-bad6.yaml", "version: 1\ncameras: []\n");
	CHECK_ERR(cisp_camera_manager_create(&m, &mc), -EINVAL, "cam-bad6.yaml:2: cameras: must have at least one");
	mc.config = write_config("cam-bad7.yaml", "version: 1\n");
	CHECK_ERR(cisp_camera_manager_create(&m, &mc), -EINVAL, "cameras: missing (required)");
	mc.config = write_config("cam-bad8.yaml", "version: 1\ncameras: [{name: [x], sensor: s}]\n");
	CHECK_ERR(cisp_camera_manager_create(&m, &mc), -EINVAL, "cam-bad8.yaml:2: cameras[0].name: must be text");
	mc.config = write_config("cam-bad9.yaml", "version: 1\ncameras: [{name: a, sensor: s, name: b}]\n");
	CHECK_ERR(cisp_camera_manager_create(&m, &mc), -EINVAL, "cameras[0].name: appears twice");
	CHECK(m == NULL);
	mc.config = "/no/such/cameras.yaml";
	CHECK_ERR(cisp_camera_manager_create(&m, &mc), -ENOENT, "/no/such/cameras.yaml");
	CHECK(m == NULL);
}

TEST(camera_bad_control_values_fail_their_request)
{
	struct cisp_camera_manager *m = manager();
	struct cisp_camera *cam = open_camera(m, NULL);
	struct cisp_camera_request req[3], *back;
	struct cisp_camera_config cfg;
	struct cisp_sensor_mode mode;
	struct cisp_image img[3];

	if (!cam)
		goto out;
	CHECK_EQ(configure(cam, 1, &cfg, &mode), 0);
	memset(req, 0, sizeof(req));
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(cisp_image_alloc(&img[i], CISP_FMT_NV12, mode.width, mode.height), 0);
		req[i].buffer[CISP_STREAM_MAIN] = &img[i];
	}
	/* The first request's bad value must not stop the start either. */
	req[0].controls.mask = CISP_REQ_EV;
	req[0].controls.ev = 9;
	req[1].controls.mask = CISP_REQ_AE_ENABLE | CISP_REQ_EXPOSURE;
	req[1].controls.exposure_us = -1;
	for (int i = 0; i < 3; i++)
		CHECK_EQ(cisp_camera_queue(cam, &req[i]), 0);
	CHECK_EQ(cisp_camera_start(cam), 0);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(cisp_camera_wait(cam, &back, 10 * 1000000000LL), 0);
		CHECK(back == &req[i]);
	}
	CHECK_EQ(req[0].status, -EINVAL);
	CHECK(strstr(req[0].message, "EV") != NULL);
	CHECK_EQ(req[1].status, -EINVAL);
	CHECK(strstr(req[1].message, "exposure") != NULL);
	CHECK_EQ(req[2].status, 0);
	CHECK_EQ(req[2].metadata.sequence, 0); /* failed requests took no frame */
	CHECK_EQ(cisp_camera_stop(cam), 0);
	for (int i = 0; i < 3; i++)
		cisp_image_free(&img[i]);
out:
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(m);
}

/* Run `cisp ARGS` in the scratch folder; its output (stdout and stderr) into @out; the exit status. */
static int cisp_command(const char *args, char *out, size_t size)
{
	char cmd[2048], log[512];
	size_t n = 0;
	FILE *f;
	int status;

	snprintf(log, sizeof(log), "%s/cisp-run.log", test_tmp_dir());
	snprintf(cmd, sizeof(cmd), "cd %s && %s/tools/cisp %s > %s 2>&1", test_tmp_dir(), CISP_BUILD_DIR, args, log);
	status = system(cmd);
	out[0] = 0;
	f = fopen(log, "r");
	if (f) {
		n = fread(out, 1, size - 1, f);
		out[n] = 0;
		fclose(f);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static long file_size(const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", test_tmp_dir(), name);
	return stat(path, &st) ? -1 : (long)st.st_size;
}

TEST(camera_cli_list_and_run)
{
	static char out[65536];
	char path[512], line[4096];
	int lines = 0;
	FILE *f;

	CHECK_EQ(cisp_command("list", out, sizeof(out)), 0);
	CHECK(strstr(out, "virtual:cisp-test\n  backend virtual") != NULL);
	CHECK(strstr(out, "mode 1 binned") != NULL);

	CHECK_EQ(cisp_command("run --camera virtual:cisp-test --frames 12 -o cam-run.y4m --png cam-run.png "
			      "--metadata cam-run.jsonl --save-raw cam-run.dng --set LensPosition=300@2",
			      out, sizeof(out)),
		 0);
	CHECK(strstr(out, "frame  11:") != NULL);
	CHECK(strstr(out, "summary: 12 frames") != NULL);
	CHECK(strstr(out, "  AE: ") != NULL && strstr(out, "  AWB: ") != NULL);
	CHECK(strstr(out, "  brightness ") != NULL && strstr(out, "  applied colour temperature ") != NULL);
	/* The smallest mode, 160x120: a short header, then 12 frames of a 6-byte FRAME line and 160 x 120 x 3 / 2 bytes. */
	CHECK(file_size("cam-run.y4m") > 12 * (6 + 160 * 120 * 3 / 2));
	CHECK(file_size("cam-run.y4m") < 12 * (6 + 160 * 120 * 3 / 2) + 200);
	CHECK(file_size("cam-run.png") > 1000);
	CHECK(file_size("cam-run.dng") > 160 * 120 * 2);
	snprintf(path, sizeof(path), "%s/cam-run.jsonl", test_tmp_dir());
	f = fopen(path, "r");
	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f)) {
		char want[64];

		CHECK(line[0] == '{' && strstr(line, "}\n"));
		snprintf(want, sizeof(want), "{\"sequence\":%d,", lines);
		CHECK(!strncmp(line, want, strlen(want)));
		/* LensPosition from frame 2: at the latest on frame 2 + 1 + the largest delay (2) and after. */
		if (lines >= 5)
			CHECK(strstr(line, "\"lens_position\":300,\"colour_temperature\"") != NULL);
		lines++;
	}
	if (f)
		fclose(f);
	CHECK_EQ(lines, 12);

	CHECK_EQ(cisp_command("run --camera nope --frames 1", out, sizeof(out)), 1);
	CHECK(strstr(out, "no camera 'nope' (cameras: ") != NULL);
	CHECK_EQ(cisp_command("run --set Foo=1", out, sizeof(out)), 2);
	CHECK(strstr(out, "unknown control 'Foo'") != NULL);
	CHECK_EQ(cisp_command("run --camera virtual:cisp-test --mode 7x", out, sizeof(out)), 1);
	CHECK(strstr(out, "has no mode '7x'; its modes: 0 full (320x240), 1 binned (160x120)") != NULL);
}

/* A callback that queues every request again while @requeue is set. */
struct requeuer {
	struct cisp_camera *cam;
	pthread_mutex_t lock;
	bool requeue;
	int completed, cancelled;
};

static void requeue_cb(struct cisp_camera_request *req, void *opaque)
{
	struct requeuer *q = opaque;
	bool again;

	pthread_mutex_lock(&q->lock);
	q->completed += req->status == 0;
	q->cancelled += req->status == -ECANCELED;
	again = q->requeue;
	pthread_mutex_unlock(&q->lock);
	/* The callback cannot stop its own camera (the thread would join itself). */
	CHECK_ERR(cisp_camera_stop(q->cam), -EDEADLK, "own completion callback");
	if (again)
		CHECK_EQ(cisp_camera_queue(q->cam, req), 0);
}

TEST(camera_callback_queues_again)
{
	struct cisp_camera_manager *m = manager();
	struct requeuer q = { .lock = PTHREAD_MUTEX_INITIALIZER, .requeue = true };
	struct cisp_camera_request req[3];
	struct cisp_camera_config cfg;
	struct cisp_sensor_mode mode;
	struct cisp_image img;
	int done;

	q.cam = open_camera(m, NULL);
	if (!q.cam)
		goto out;
	CHECK_EQ(cisp_camera_default_config(q.cam, 1, &cfg), 0);
	CHECK_EQ(cisp_sensor_get_mode(cisp_camera_sensor(q.cam), 1, &mode), 0);
	cfg.complete = requeue_cb;
	cfg.opaque = &q;
	CHECK_EQ(cisp_camera_configure(q.cam, &cfg), 0);
	CHECK_EQ(cisp_image_alloc(&img, CISP_FMT_NV12, mode.width, mode.height), 0);
	memset(req, 0, sizeof(req));
	for (int i = 0; i < 3; i++) {
		req[i].buffer[CISP_STREAM_MAIN] = &img;
		CHECK_EQ(cisp_camera_queue(q.cam, &req[i]), 0);
	}
	CHECK_EQ(cisp_camera_start(q.cam), 0);
	do {
		struct timespec ts = { 0, 2000000 };

		nanosleep(&ts, NULL);
		pthread_mutex_lock(&q.lock);
		done = q.completed;
		pthread_mutex_unlock(&q.lock);
	} while (done < 10);
	/* Stop cancels what is queued once, even though the callback queues it again. */
	CHECK_EQ(cisp_camera_stop(q.cam), 0);
	CHECK(q.completed >= 10);
	CHECK_EQ(q.cancelled, 3); /* the callback had queued all three again before the thread stopped */
	/* The requests queued again wait for the next start, and run then. */
	pthread_mutex_lock(&q.lock);
	done = q.completed;
	pthread_mutex_unlock(&q.lock);
	CHECK_EQ(cisp_camera_start(q.cam), 0);
	for (;;) {
		struct timespec ts = { 0, 2000000 };
		int now;

		nanosleep(&ts, NULL);
		pthread_mutex_lock(&q.lock);
		now = q.completed;
		if (now >= done + 3)
			q.requeue = false;
		pthread_mutex_unlock(&q.lock);
		if (now >= done + 3)
			break;
	}
	cisp_camera_close(q.cam);
	cisp_image_free(&img);
out:
	cisp_camera_manager_destroy(m);
}

/*
 * @frames frames with @in_flight requests queued: one gives the camera no
 * next request to take while the ISP works (frames one after the other),
 * NREQ lets it overlap them. Records each frame's metadata and output hash.
 */
static void run_in_flight(unsigned in_flight, unsigned frames, struct cisp_camera_metadata *md, uint64_t *hash)
{
	struct cisp_camera_manager *m = manager();
	struct cisp_camera *cam = open_camera(m, "lux=40,seed=7");
	struct cisp_camera_config cfg;
	struct cisp_sensor_mode mode;
	struct requests r;

	if (!cam) {
		cisp_camera_manager_destroy(m);
		return;
	}
	CHECK_EQ(configure(cam, 1, &cfg, &mode), 0);
	requests_alloc(&r, &cfg, &mode);
	CHECK_EQ(stream_in_flight(cam, &r, in_flight, frames, md, hash, NULL), (int)frames);
	cisp_camera_close(cam);
	requests_free(&r);
	cisp_camera_manager_destroy(m);
}

/*
 * Overlapping capture with the ISP changes nothing a frame shows: with AE
 * and AWB converging from a dark start, frames taken while the previous one
 * is in the ISP have the same exposure, gains, colour and bytes as frames
 * taken one after the other (the loop's decisions land on the same frames).
 */
TEST(camera_overlap_changes_no_frame)
{
	enum { FRAMES = 16 };
	struct cisp_camera_metadata one[FRAMES], overlapped[FRAMES];
	uint64_t hash_one[FRAMES], hash_overlapped[FRAMES];
	bool exposure_moved = false;

	memset(one, 0, sizeof(one));
	memset(overlapped, 0, sizeof(overlapped));
	run_in_flight(1, FRAMES, one, hash_one);
	run_in_flight(NREQ, FRAMES, overlapped, hash_overlapped);
	for (int i = 0; i < FRAMES; i++) {
		CHECK_EQ(overlapped[i].sequence, (uint64_t)i);
		CHECK_EQ(one[i].sequence, (uint64_t)i);
		CHECK_EQ(overlapped[i].sensor.controls[CISP_SENSOR_EXPOSURE], one[i].sensor.controls[CISP_SENSOR_EXPOSURE]);
		CHECK_EQ(overlapped[i].sensor.controls[CISP_SENSOR_ANALOGUE_GAIN],
			 one[i].sensor.controls[CISP_SENSOR_ANALOGUE_GAIN]);
		CHECK(overlapped[i].colour_temperature == one[i].colour_temperature);
		CHECK_EQ(hash_overlapped[i], hash_one[i]);
		exposure_moved |= one[i].sensor.controls[CISP_SENSOR_EXPOSURE] != one[0].sensor.controls[CISP_SENSOR_EXPOSURE];
	}
	/* The loop did change the sensor's controls on the way. */
	CHECK(exposure_moved);
}
