/* SPDX-License-Identifier: MIT */
/*
 * The frame rate is a promise (docs/control.md, "AE/AGC"): AE raises the
 * analogue gain before it makes frames longer than the requested period,
 * and stretches them only as far as the frame duration limits allow. The
 * split on its own, then the camera on the virtual sensor in a dark room,
 * from every frame's metadata; then the Y4M header of `cisp run` against
 * the timestamps of its frames.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/camera.h>
#include <cisp/error.h>
#include <cisp/format.h>

#include "cli.h"
#include "control/ae.h"
#include "test.h"

/* The limits of the cisp-test sensor's full mode (100 us lines), allowed to stretch to 1000 lines. */
static struct ae_limits stretchable(void)
{
	return (struct ae_limits){
		.line_us = 100, .exposure_min = 4, .exposure_max = 996, .exposure_step = 1, .exposure_margin = 4,
		.frame_length_min = 333, .frame_length_max = 1000, .again_min = 256, .again_max = 4096,
		.again_step = 1, .has_dgain = true, .dgain_min = 256, .dgain_max = 4096, .dgain_step = 1,
		.max_digital_gain = 4,
	};
}

TEST(frame_rate_split_gain_before_longer_frames)
{
	struct ae_limits l = stretchable();
	struct ae_exposure e;
	static const struct {
		double product;
		int32_t exposure, again, frame_length;
	} cases[] = {
		{ 20000, 200, 256, 333 },              /* bright: exposure only */
		{ 32900 * 4, 329, 1024, 333 },         /* dim: the longest exposure of the period, x4 */
		{ 32900 * 16, 329, 4096, 333 },        /* all the analogue gain, still at the period */
		{ 32900 * 16 * 2, 658, 4096, 662 },    /* darker: the frame grows, gain stays at x16 */
		{ 99600 * 16 * 2, 996, 4096, 1000 },   /* the longest frame allowed, then digital gain */
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ae_split(&l, cases[i].product, 0, &e);
		CHECK_EQ(e.exposure, cases[i].exposure);
		CHECK_EQ(e.again, cases[i].again);
		CHECK_EQ(e.frame_length, cases[i].frame_length);
		CHECK(e.product <= cases[i].product * 1.000001 && e.product >= cases[i].product * 0.99);
	}
	ae_split(&l, 99600 * 16 * 2, 0, &e);
	CHECK_EQ(e.dgain, 512);

	/* Without room to stretch (the default) the frame keeps its period and digital gain follows. */
	l.frame_length_max = 333;
	l.exposure_max = 329;
	ae_split(&l, 32900 * 16 * 2, 0, &e);
	CHECK_EQ(e.exposure, 329);
	CHECK_EQ(e.again, 4096);
	CHECK_EQ(e.dgain, 512);
	CHECK_EQ(e.frame_length, 333);

	/* Flicker periods still apply inside the period: 3 x 10 ms, gain makes up the rest. */
	l = stretchable();
	ae_split(&l, 32900 * 2, 10000, &e);
	CHECK_EQ(e.exposure, 300);
	CHECK_NEAR(e.again / 256.0, 32900 * 2 / 30000.0, 0.01);
	CHECK_EQ(e.frame_length, 333);
}

/* Stream @frames frames of the cisp-test camera with @options and @limits; every frame's metadata into @md. */
static int stream_dark(const char *options, const double limits[2], unsigned frames, struct cisp_camera_metadata *md)
{
	struct cisp_device_config dc = { .workers = 1 };
	struct cisp_camera_manager_config mc = { .device_config = &dc };
	struct cisp_camera_options co = { .sensor_options = options };
	struct cisp_camera_manager *m = NULL;
	struct cisp_camera *cam = NULL;
	struct cisp_camera_config cfg;
	struct cisp_camera_request req[4];
	struct cisp_image img[4];
	unsigned queued = 0, done = 0;

	memset(req, 0, sizeof(req));
	memset(img, 0, sizeof(img));
	CHECK_EQ(cisp_camera_manager_create(&m, &mc), 0);
	if (cisp_camera_open(&cam, m, "virtual:cisp-test", &co)) {
		test_fail(__FILE__, __LINE__, "open: %s", cisp_last_error());
		goto out;
	}
	CHECK_EQ(cisp_camera_default_config(cam, 0, &cfg), 0);
	CHECK_EQ(cisp_camera_configure(cam, &cfg), 0);
	for (unsigned i = 0; i < 4; i++) {
		CHECK_EQ(cisp_image_alloc(&img[i], cfg.stream[CISP_STREAM_MAIN].format, cfg.stream[CISP_STREAM_MAIN].width,
					  cfg.stream[CISP_STREAM_MAIN].height), 0);
		req[i].buffer[CISP_STREAM_MAIN] = &img[i];
		if (limits) {
			req[i].controls.mask = CISP_REQ_FRAME_DURATION;
			memcpy(req[i].controls.frame_duration_us, limits, sizeof(req[i].controls.frame_duration_us));
		}
		CHECK_EQ(cisp_camera_queue(cam, &req[i]), 0);
		queued++;
	}
	CHECK_EQ(cisp_camera_start(cam), 0);
	while (done < frames) {
		struct cisp_camera_request *r = NULL;

		if (cisp_camera_wait(cam, &r, 20 * 1000000000LL) || r->status) {
			test_fail(__FILE__, __LINE__, "frame %u: %s", done, r ? r->message : cisp_last_error());
			break;
		}
		md[done++] = r->metadata;
		if (queued < frames) {
			r->controls.mask = 0;
			CHECK_EQ(cisp_camera_queue(cam, r), 0);
			queued++;
		}
	}
	CHECK_EQ(cisp_camera_stop(cam), 0);
out:
	for (unsigned i = 0; i < 4; i++)
		cisp_image_free(&img[i]);
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(m);
	return (int)done;
}

#define FRAMES 40

TEST(frame_rate_dark_scene_keeps_the_period)
{
	struct cisp_camera_metadata md[FRAMES];
	int n = stream_dark("lux=3", NULL, FRAMES, md);

	CHECK_EQ(n, FRAMES);
	/* The mode's 333 lines of 100 us: 30 fps on every frame, however dark. */
	for (int i = 0; i < n; i++)
		CHECK_NEAR(md[i].frame_duration_us, 33300, 0.5);
	for (int i = 1; i < n; i++)
		CHECK_EQ(md[i].timestamp_ns - md[i - 1].timestamp_ns, 33300000);
	/* The light is made up by gain at the longest exposure of the period. */
	CHECK(md[n - 1].analogue_gain >= 8);
	/* (In whole 10 ms flicker periods where the loop assumes mains lighting.) */
	CHECK(md[n - 1].exposure_us >= 30000 && md[n - 1].exposure_us <= 32900.5);
}

TEST(frame_rate_dark_scene_stretches_when_allowed)
{
	const double limits[2] = { 33333, 66666 }; /* 30 fps, down to 15 in low light */
	struct cisp_camera_metadata md[FRAMES];
	int n = stream_dark("lux=1", limits, FRAMES, md);

	CHECK_EQ(n, FRAMES);
	for (int i = 0; i < n; i++)
		CHECK(md[i].frame_duration_us >= 33300 && md[i].frame_duration_us <= 66666);
	/* Settled: all the analogue gain, and frames longer than the period (666 lines of 100 us). */
	CHECK_NEAR(md[n - 1].analogue_gain, 16, 1e-9);
	CHECK_NEAR(md[n - 1].frame_duration_us, 66600, 0.5);
	for (int i = 1; i < n; i++)
		CHECK_EQ(md[i].timestamp_ns - md[i - 1].timestamp_ns, (uint64_t)(md[i - 1].frame_duration_us * 1000 + 0.5));

	/* A brighter room at the same limits: gain first, the frames keep 30 fps. */
	n = stream_dark("lux=40", limits, FRAMES, md);
	CHECK_EQ(n, FRAMES);
	CHECK_NEAR(md[n - 1].frame_duration_us, 33300, 0.5);
	CHECK(md[n - 1].analogue_gain > 1 && md[n - 1].analogue_gain < 16);
}

/* The Y4M header's frame rate and frame count; false when @path is not a Y4M file. */
static bool read_y4m(const char *path, unsigned *num, unsigned *den, unsigned *frames)
{
	FILE *f = fopen(path, "rb");
	char line[256], *fr;

	*frames = 0;
	if (!f || !fgets(line, sizeof(line), f) || strncmp(line, "YUV4MPEG2 ", 10) || !(fr = strstr(line, " F")) ||
	    sscanf(fr, " F%u:%u", num, den) != 2) {
		if (f)
			fclose(f);
		return false;
	}
	/* Count the frames: a "FRAME" line, then a 4:2:0 frame of the header's size. */
	unsigned w = 0, h = 0;
	sscanf(strstr(line, " W"), " W%u", &w);
	sscanf(strstr(line, " H"), " H%u", &h);
	size_t size = (size_t)w * h * 3 / 2;
	char *buf = malloc(size);
	while (buf && fgets(line, sizeof(line), f) && !strcmp(line, "FRAME\n") && fread(buf, 1, size, f) == size)
		(*frames)++;
	free(buf);
	fclose(f);
	return true;
}

/* Timestamps (ns) and frame durations (us) of a `cisp run --metadata` log; the number of frames. */
static unsigned read_log(const char *path, double *ts, double *dur, unsigned max)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	unsigned n = 0;

	while (f && n < max && fgets(line, sizeof(line), f)) {
		const char *t = strstr(line, "\"timestamp_ns\":"), *d = strstr(line, "\"frame_duration_us\":");

		if (!t || !d)
			break;
		ts[n] = strtod(t + 15, NULL);
		dur[n] = strtod(d + 20, NULL);
		n++;
	}
	if (f)
		fclose(f);
	return n;
}

TEST(frame_rate_y4m_header_tells_the_truth)
{
	double ts[64], dur[64];
	unsigned num = 0, den = 0, frames = 0, n;

	/* Frames at the mode's rate: the header's rate is the timestamps', one video frame per frame. */
	CHECK_EQ(cli_run("run --camera virtual:cisp-test --frames 20 --start auto --quiet --option lux=3 "
			 "-o fr1.y4m --metadata fr1.jsonl"), 0);
	CHECK(read_y4m(cli_tmp("fr1.y4m"), &num, &den, &frames));
	n = read_log(cli_tmp("fr1.jsonl"), ts, dur, 64);
	CHECK_EQ(n, 20);
	CHECK_EQ(frames, 20);
	if (n == 20 && den)
		CHECK_NEAR((double)num / den, 19 / ((ts[19] - ts[0]) / 1e9), 0.001);

	/* Frames stretched in the dark (allowed down to 15 fps): the rate asked for, frames repeated to keep time. */
	CHECK_EQ(cli_run("run --camera virtual:cisp-test --frames 30 --start auto --quiet --option lux=1 "
			 "--set FrameDurationLimits=33333,66666 -o fr2.y4m --metadata fr2.jsonl"), 0);
	CHECK(read_y4m(cli_tmp("fr2.y4m"), &num, &den, &frames));
	n = read_log(cli_tmp("fr2.jsonl"), ts, dur, 64);
	CHECK_EQ(n, 30);
	CHECK(den && fabs((double)num / den - 1e6 / 33300) < 0.01);
	if (n == 30 && den) {
		double covered = (ts[29] - ts[0]) / 1e9 + dur[29] / 1e6;

		CHECK(dur[29] > 60000); /* stretched */
		/* The video lasts as long as the frames did, within a frame. */
		CHECK_NEAR(frames * (double)den / num, covered, (double)den / num);
		CHECK(frames > 40);
	}
}
