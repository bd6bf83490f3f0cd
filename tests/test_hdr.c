/* SPDX-License-Identifier: MIT */
/*
 * HDR brackets end to end (docs/hdr.md): the merge of real virtual-sensor
 * frames (a static scene merges into the long exposure where it is not
 * clipped; a moving card leaves no ghost), the camera's bracket requests
 * (each frame exposed as asked, checked in the metadata, the base exposure
 * back afterwards), the merged output at a single frame's brightness with fewer
 * clipped pixels, and bad brackets refused with clear errors.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/camera.h>
#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/fence.h>
#include <cisp/format.h>
#include <cisp/raw_file.h>

#include "isp/merge.h"
#include "test.h"

#define HDR_SENSOR "virtual:cisp-test"

/* Black-level-corrected samples at 16 bits, as the merge sees them after BLC (docs/stages/blc.md). */
static void to_linear(const struct cisp_image *raw, const struct cisp_sensor_mode *m, uint16_t *out)
{
	for (uint32_t y = 0; y < raw->height; y++) {
		const uint16_t *row = (const uint16_t *)(raw->plane[0].data + (size_t)y * raw->plane[0].stride);

		for (uint32_t x = 0; x < raw->width; x++) {
			int32_t v = (int32_t)row[x] - (int32_t)m->black_level;
			int64_t s = v <= 0 ? 0 : ((int64_t)v * 65535 + (m->white_level - m->black_level) / 2) /
							(m->white_level - m->black_level);

			out[(size_t)y * raw->width + x] = (uint16_t)(s > 65535 ? 65535 : s);
		}
	}
}

/*
 * Frames 1 (exposed @long_lines) and 2 (@short_lines) of a stream of the
 * hdr scene with @options, as 16-bit linear samples: the second frame is
 * the next one the sensor reads out, so a moving card has moved once.
 */
static void capture_pair(const char *options, int32_t long_lines, int32_t short_lines, uint16_t *lng,
			 uint16_t *shrt, struct cisp_sensor_mode *mode)
{
	struct cisp_sensor *s = NULL;
	struct cisp_sensor_controls c = { 0 };
	struct cisp_sensor_metadata md;
	struct cisp_image raw;

	CHECK_EQ(cisp_sensor_open(&s, HDR_SENSOR, options), 0);
	CHECK_EQ(cisp_sensor_get_mode(s, 0, mode), 0);
	CHECK_EQ(cisp_image_alloc(&raw, mode->format, mode->width, mode->height), 0);
	cisp_sensor_controls_set(&c, CISP_SENSOR_EXPOSURE, long_lines);
	CHECK_EQ(cisp_sensor_set_controls(s, &c), 0);
	CHECK_EQ(cisp_sensor_start(s), 0);
	c.value[CISP_SENSOR_EXPOSURE] = short_lines;
	CHECK_EQ(cisp_sensor_queue_controls(s, 2, &c), 0);
	for (int n = 0; n < 3; n++) {
		CHECK_EQ(cisp_sensor_capture(s, &raw, &md, 0), 0);
		if (n == 1) {
			CHECK_EQ(md.controls[CISP_SENSOR_EXPOSURE], long_lines);
			to_linear(&raw, mode, lng);
		}
	}
	CHECK_EQ(md.controls[CISP_SENSOR_EXPOSURE], short_lines);
	to_linear(&raw, mode, shrt);
	cisp_sensor_close(s);
	cisp_image_free(&raw);
}

static struct plane16 plane_of(uint16_t *p, const struct cisp_sensor_mode *m)
{
	return (struct plane16){ p, (ptrdiff_t)m->width, 0, (int)m->width, (int)m->height };
}

/* Frames exposed 160 and 40 lines (capture_pair()) and their merge by the merge stage's rows. */
static void merge_pair(const char *options, uint16_t *lng, uint16_t *shrt, uint16_t *merged,
		       struct cisp_sensor_mode *m)
{
	struct plane16 pl, ps;
	struct cisp_merge_coeffs c;

	capture_pair(options, 160, 40, lng, shrt, m);
	memcpy(merged, lng, (size_t)m->width * m->height * 2);
	pl = plane_of(merged, m);
	ps = plane_of(shrt, m);
	cisp_merge_prepare(&c, 160, 40);
	cisp_merge_rows(&c, &pl, &ps, &pl, 0, (int)m->height);
}

/* The largest sample of columns x-4..x+4 of the row of pixel @i (the merge's ghost test's reach). */
static int row_max(const uint16_t *p, size_t i, uint32_t width)
{
	int x = (int)(i % width), top = 0;

	for (int k = -4; k <= 4; k++)
		if (x + k >= 0 && x + k < (int)width)
			top = p[i + k] > top ? p[i + k] : top;
	return top;
}

/*
 * The ghost rule's known answers (docs/stages/merge.md, ratio 4): runs of 10
 * equal samples, so the smoothed difference at a run's middle is its own.
 */
TEST(hdr_merge_ghost_known_answer)
{
	static const uint16_t acc0[6] = { 8000, 8000, 40000, 40000, 1000, 1000 };
	static const uint16_t frm0[6] = { 2100, 9000, 12000, 4000, 400, 600 };
	static const uint16_t want[6] = { 2000, 9000, 10000, 4000, 250, 600 };
	uint16_t acc[60], frm[60];
	struct plane16 a = { acc, 60, 0, 60, 1 }, f = { frm, 60, 0, 60, 1 };
	struct cisp_merge_coeffs c;

	for (int i = 0; i < 60; i++) {
		acc[i] = acc0[i / 10];
		frm[i] = frm0[i / 10];
	}
	cisp_merge_prepare(&c, 4, 1);
	cisp_merge_rows(&c, &a, &f, &a, 0, 1);
	for (int k = 0; k < 6; k++)
		CHECK_EQ(acc[10 * k + 5], want[k]);
}

/*
 * A static scene with noise: where the long frame is well below saturation
 * the merge is the long frame scaled to the short one's exposure (times 4 it
 * gives the long frame back to rounding) but for a few noise outliers in the
 * darkest parts; where it saturated (this sensor's full well is below its
 * white level), the merge follows the short frame.
 */
TEST(hdr_merge_static_matches_long)
{
	struct cisp_sensor_mode m;
	size_t n = 320 * 240, unclipped = 0, clipped = 0, off = 0, far = 0;
	uint16_t *lng = malloc(n * 2), *shrt = malloc(n * 2), *merged = malloc(n * 2);

	merge_pair("scene=hdr", lng, shrt, merged, &m);
	CHECK_EQ(m.width * m.height, n);
	for (size_t i = 0; i < n; i++) {
		if (row_max(lng, i, m.width) < 32768) {
			unclipped++;
			off += abs(4 * merged[i] - lng[i]) > 2;
		} else if (lng[i] >= 54000) {
			clipped++;
			far += abs(merged[i] - shrt[i]) > CISP_MERGE_GHOST_FLOOR + (shrt[i] >> CISP_MERGE_GHOST_SHIFT);
		}
	}
	/* The scene has both: the lamp saturates the long frame, the room does not. */
	CHECK(clipped > 100);
	CHECK(unclipped > n / 2);
	CHECK(off * 1000 < unclipped);
	CHECK_EQ(far, 0);
	free(lng);
	free(shrt);
	free(merged);
}

/*
 * The hdr scene's card moves 6 pixels between the long and the short frame
 * (noise off: the short frame is the scene's truth at its time). Pixels
 * more than half off the truth (a visible ghost): the long frame has
 * hundreds where the card moved, the merge a tenth of them at most, all in
 * the deepest shadows where the frames differ by less than the ghost test's
 * floor (docs/stages/merge.md).
 */
TEST(hdr_merge_ghosts)
{
	struct cisp_sensor_mode m;
	size_t n = 320 * 240, moved = 0, ghosts = 0, bright_ghosts = 0;
	uint16_t *lng = malloc(n * 2), *shrt = malloc(n * 2), *merged = malloc(n * 2);

	merge_pair("scene=hdr,motion=6,noise=off,defects=off", lng, shrt, merged, &m);
	for (size_t i = 0; i < n; i++) {
		int truth = shrt[i], tol = 256 + truth / 2, scaled = (lng[i] + 2) / 4;

		moved += abs(scaled - truth) > tol;
		ghosts += abs(merged[i] - truth) > tol;
		bright_ghosts += abs(merged[i] - truth) > tol && (scaled > 2048 || truth > 2048);
	}
	CHECK(moved > 500);
	CHECK(ghosts * 10 <= moved);
	CHECK_EQ(bright_ghosts, 0);
	free(lng);
	free(shrt);
	free(merged);
}

/* Without motion the option renders the scene as before it existed: no card. */
TEST(hdr_scene_motion_option)
{
	struct cisp_sensor *s = NULL;

	CHECK_EQ(cisp_sensor_open(&s, HDR_SENSOR, "scene=hdr"), 0);
	CHECK_ERR(cisp_sensor_set_option(s, "motion", "fast"), -EINVAL, "motion");
	CHECK_ERR(cisp_sensor_set_option(s, "motion", "5000"), -EINVAL, "motion");
	CHECK_EQ(cisp_sensor_set_option(s, "motion", "-3.5"), 0);
	cisp_sensor_close(s);
}

/* ---- the camera's bracket requests ---- */

static struct cisp_camera *open_hdr_camera(struct cisp_camera_manager **m, const char *options,
					   struct cisp_camera_config *cfg)
{
	struct cisp_device_config dc = { .workers = 2 };
	struct cisp_camera_manager_config mc = { .device_config = &dc };
	struct cisp_camera_options o = { .sensor_options = options };
	struct cisp_camera *cam = NULL;

	CHECK_EQ(cisp_camera_manager_create(m, &mc), 0);
	CHECK_EQ(cisp_camera_open(&cam, *m, HDR_SENSOR, &o), 0);
	CHECK_EQ(cisp_camera_default_config(cam, 0, cfg), 0);
	return cam;
}

/* Lines of exposure time @us in the test sensor's full mode (100 us a line). */
static double lines_of(double us)
{
	return us / 100.0;
}

/*
 * Manual exposure 80 lines, bracket -2, 0, +2 EV: frames of 20, 80 and 320
 * lines, consecutive, the metadata of the shortest; a normal request after
 * it gets 80 lines again.
 */
TEST(hdr_camera_bracket_exposures)
{
	struct cisp_camera_manager *m = NULL;
	struct cisp_camera_config cfg;
	struct cisp_camera *cam = open_hdr_camera(&m, "scene=hdr", &cfg);
	struct cisp_camera_request req[3], *done;
	struct cisp_image img[3];
	static const double want[3] = { 20, 80, 320 };

	CHECK_EQ(cisp_camera_configure(cam, &cfg), 0);
	memset(req, 0, sizeof(req));
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(cisp_image_alloc(&img[i], CISP_FMT_NV12, cfg.stream[0].width, cfg.stream[0].height), 0);
		req[i].buffer[CISP_STREAM_MAIN] = &img[i];
		if (i < 2)
			req[i].bracket = (struct cisp_camera_bracket){ 3, { -2, 0, 2 } };
	}
	req[0].controls.mask = CISP_REQ_AE_ENABLE | CISP_REQ_EXPOSURE | CISP_REQ_ANALOGUE_GAIN;
	req[0].controls.ae_enable = false;
	req[0].controls.exposure_us = 8000;
	req[0].controls.analogue_gain = 1;
	for (int i = 0; i < 3; i++)
		CHECK_EQ(cisp_camera_queue(cam, &req[i]), 0);
	CHECK_EQ(cisp_camera_start(cam), 0);
	for (int i = 0; i < 3; i++) {
		const struct cisp_camera_metadata *md;

		CHECK_EQ(cisp_camera_wait(cam, &done, -1), 0);
		CHECK(done == &req[i]);
		if (done->status)
			test_fail(__FILE__, __LINE__, "request %d: %s", i, done->message);
		md = &done->metadata;
		if (i == 2) {
			CHECK_EQ(md->merged.count, 0);
			CHECK_NEAR(lines_of(md->exposure_us), 80, 1e-6);
			CHECK(md->sequence > req[1].metadata.merged.sequence[2]);
			continue;
		}
		CHECK_EQ(md->merged.count, 3);
		for (int k = 0; k < 3; k++) {
			CHECK_NEAR(lines_of(md->merged.exposure_us[k]), want[k], 1e-6);
			CHECK_NEAR(md->merged.analogue_gain[k], 1, 1e-9);
			if (k)
				CHECK_EQ(md->merged.sequence[k], md->merged.sequence[k - 1] + 1);
		}
		CHECK_NEAR(lines_of(md->exposure_us), 20, 1e-6);
		CHECK_EQ(md->sequence, md->merged.sequence[0]);
		if (i == 1)
			CHECK(md->merged.sequence[0] > req[0].metadata.merged.sequence[2]);
		/* Something was rendered: the merged frame's luma is not flat black. */
		CHECK(img[i].plane[0].data[(cfg.stream[0].height / 2) * img[i].plane[0].stride + 10] > 16);
	}
	CHECK_EQ(cisp_camera_stop(cam), 0);
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(m);
	for (int i = 0; i < 3; i++)
		cisp_image_free(&img[i]);
}

/* With AE on the bracket keeps its ratio (the step is one line) around AE's exposure, or the frame's limit. */
TEST(hdr_camera_bracket_auto_exposure)
{
	struct cisp_camera_manager *m = NULL;
	struct cisp_camera_config cfg;
	struct cisp_camera *cam = open_hdr_camera(&m, "scene=hdr,motion=4", &cfg);
	struct cisp_camera_request req = { 0 }, *done;
	struct cisp_image img;

	CHECK_EQ(cisp_camera_configure(cam, &cfg), 0);
	CHECK_EQ(cisp_image_alloc(&img, CISP_FMT_NV12, cfg.stream[0].width, cfg.stream[0].height), 0);
	req.buffer[CISP_STREAM_MAIN] = &img;
	req.bracket = (struct cisp_camera_bracket){ 2, { 1, -1 } };
	CHECK_EQ(cisp_camera_start(cam), 0);
	for (int i = 0; i < 6; i++) {
		const struct cisp_camera_merged *mg = &req.metadata.merged;
		double l0, l1;

		CHECK_EQ(cisp_camera_queue(cam, &req), 0);
		CHECK_EQ(cisp_camera_wait(cam, &done, -1), 0);
		if (done->status)
			test_fail(__FILE__, __LINE__, "bracket %d: %s", i, done->message);
		CHECK_EQ(mg->count, 2);
		l0 = lines_of(mg->exposure_us[0]);
		l1 = lines_of(mg->exposure_us[1]);
		/* 4 times, or as long as the frame allows (333 lines less the margin of 4). */
		CHECK(l0 > l1);
		CHECK(fabs(l0 / 4 - l1) <= 1 || (l0 == 329 && l0 < 4 * l1));
		CHECK_NEAR(lines_of(req.metadata.exposure_us), l1, 1e-6);
	}
	CHECK_EQ(cisp_camera_stop(cam), 0);
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(m);
	cisp_image_free(&img);
}

/* What a stream of @frames requests (brackets -2, 0, +2 EV when @bracket) leaves in its last output. */
struct developed {
	unsigned median;            /* the luma's median */
	unsigned clipped;           /* pixels at 233..235 luma (white of video range) */
	enum cisp_ae_state ae_state;
	double ae_error;
};

static struct developed develop(bool bracket, int frames)
{
	struct cisp_camera_manager *m = NULL;
	struct cisp_camera_config cfg;
	struct cisp_camera *cam = open_hdr_camera(&m, "scene=hdr", &cfg);
	struct cisp_camera_request req = { 0 }, *done;
	struct developed d = { 0 };
	unsigned hist[256] = { 0 }, n, below = 0;
	struct cisp_image img;

	cfg.stream[CISP_STREAM_MAIN].format = CISP_FMT_NV12;
	CHECK_EQ(cisp_camera_configure(cam, &cfg), 0);
	CHECK_EQ(cisp_image_alloc(&img, CISP_FMT_NV12, cfg.stream[0].width, cfg.stream[0].height), 0);
	req.buffer[CISP_STREAM_MAIN] = &img;
	if (bracket)
		req.bracket = (struct cisp_camera_bracket){ 3, { -2, 0, 2 } };
	CHECK_EQ(cisp_camera_start(cam), 0);
	for (int i = 0; i < frames; i++) {
		CHECK_EQ(cisp_camera_queue(cam, &req), 0);
		CHECK_EQ(cisp_camera_wait(cam, &done, -1), 0);
		if (done->status)
			test_fail(__FILE__, __LINE__, "request %d: %s", i, done->message);
	}
	d.ae_state = req.metadata.ae_state;
	d.ae_error = req.metadata.control.ae_error;
	for (uint32_t y = 0; y < img.height; y++)
		for (uint32_t x = 0; x < img.width; x++)
			hist[img.plane[0].data[(size_t)y * img.plane[0].stride + x]]++;
	n = img.width * img.height;
	while (below + hist[d.median] <= n / 2)
		below += hist[d.median++];
	d.clipped = hist[233] + hist[234] + hist[235];
	CHECK_EQ(cisp_camera_stop(cam), 0);
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(m);
	cisp_image_free(&img);
	return d;
}

/*
 * A stream of brackets develops at the brightness of a single frame at the
 * base exposure (docs/hdr.md, "Brightness"): on the hdr scene, with AE on,
 * the median luma within 12 % of a stream of single frames', AE converged on
 * the brackets, and fewer clipped pixels (the window) than a single frame.
 */
TEST(hdr_camera_bracket_brightness)
{
	/*
	 * 14 bracket frames: the exposure loop's damped steps reach its tolerance of 0.04 at the
	 * 12th or the 13th frame, as the Bayer denoise moves the statistics.
	 */
	struct developed single = develop(false, 24), merged = develop(true, 14);

	printf("single frame: median %u, clipped %u; bracket: median %u, clipped %u, AE %s error %.3f\n",
	       single.median, single.clipped, merged.median, merged.clipped, cisp_ae_state_name(merged.ae_state),
	       merged.ae_error);
	CHECK(single.median > 40);
	CHECK(fabs((double)merged.median / single.median - 1) <= 0.12);
	CHECK_EQ(merged.ae_state, CISP_AE_CONVERGED);
	CHECK(fabs(merged.ae_error - 1) < 0.1);
	CHECK(single.clipped > 100);
	CHECK(2 * merged.clipped < single.clipped);
}

TEST(hdr_camera_bracket_bad)
{
	struct cisp_camera_manager *m = NULL;
	struct cisp_camera_config cfg;
	struct cisp_camera *cam = open_hdr_camera(&m, "scene=hdr", &cfg);
	struct cisp_sensor_mode mode;
	struct cisp_camera_request req = { 0 };
	struct cisp_image img, raw;

	CHECK_EQ(cisp_sensor_get_mode(cisp_camera_sensor(cam), 0, &mode), 0);
	cfg.stream[CISP_STREAM_RAW].format = mode.format;
	CHECK_EQ(cisp_camera_configure(cam, &cfg), 0);
	CHECK_EQ(cisp_image_alloc(&img, CISP_FMT_NV12, cfg.stream[0].width, cfg.stream[0].height), 0);
	CHECK_EQ(cisp_image_alloc(&raw, mode.format, mode.width, mode.height), 0);
	req.buffer[CISP_STREAM_MAIN] = &img;
	req.bracket = (struct cisp_camera_bracket){ 1, { 0 } };
	CHECK_ERR(cisp_camera_queue(cam, &req), -EINVAL, "bracket: 1 exposures; a bracket has 2..8");
	req.bracket.count = 9;
	CHECK_ERR(cisp_camera_queue(cam, &req), -EINVAL, "bracket: 9 exposures; a bracket has 2..8");
	req.bracket = (struct cisp_camera_bracket){ 2, { 0, NAN } };
	CHECK_ERR(cisp_camera_queue(cam, &req), -EINVAL, "bracket: exposure 1 is nan stops");
	req.bracket = (struct cisp_camera_bracket){ 2, { 0, 12 } };
	CHECK_ERR(cisp_camera_queue(cam, &req), -EINVAL, "bracket: exposure 1 is 12 stops; offsets are -8..8");
	req.bracket = (struct cisp_camera_bracket){ 3, { -5, 0, 4 } };
	CHECK_ERR(cisp_camera_queue(cam, &req), -EINVAL, "bracket: exposures -5 to 4 stops are 9 stops apart; at most 8");
	req.bracket = (struct cisp_camera_bracket){ 2, { -2, 2 } };
	req.buffer[CISP_STREAM_RAW] = &raw;
	CHECK_ERR(cisp_camera_queue(cam, &req), -EINVAL, "the raw stream must be 16-bit Bayer, not SRGGB10");
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(m);
	cisp_image_free(&img);
	cisp_image_free(&raw);
}

/* The device refuses merge jobs with missing frames, too many, or frames of another size. */
TEST(hdr_device_merge_bad_inputs)
{
	struct cisp_device *dev = NULL;
	struct cisp_context *ctx = NULL;
	struct cisp_context_config cc = { .name = "hdr" };
	struct cisp_image a, b, small, out;
	struct cisp_job j = { .mode = CISP_JOB_MERGE_HDR, .num_inputs = 2 };

	cc.isp.width = 64;
	cc.isp.height = 48;
	cc.isp.input_format = CISP_FMT_SRGGB10;
	cc.isp.output[0] = (struct cisp_output_config){ CISP_FMT_RGB888, 64, 48 };
	CHECK_EQ(cisp_device_create(&dev, NULL), 0);
	CHECK_EQ(cisp_context_create(&ctx, dev, &cc), 0);
	CHECK_EQ(cisp_image_alloc(&a, CISP_FMT_SRGGB10, 64, 48), 0);
	CHECK_EQ(cisp_image_alloc(&b, CISP_FMT_SRGGB10, 64, 48), 0);
	CHECK_EQ(cisp_image_alloc(&small, CISP_FMT_SRGGB10, 32, 48), 0);
	CHECK_EQ(cisp_image_alloc(&out, CISP_FMT_RGB888, 64, 48), 0);
	j.input[0] = &a;
	j.exposure[0] = 4;
	j.exposure[1] = 1;
	j.output[0] = &out;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "job input 1");
	j.input[1] = &small;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "job input 1");
	j.input[1] = &b;
	j.num_inputs = 1;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "a merge-hdr job takes 2..8 inputs, not 1");
	j.num_inputs = CISP_JOB_MAX_INPUTS + 1;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "a merge-hdr job takes 2..8 inputs, not 9");
	j.num_inputs = 2;
	j.exposure[1] = 0;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "exposure");
	j.exposure[1] = 1;
	j.exposure[0] = 257;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "exposure");
	j.exposure[0] = 256;
	{
		struct cisp_fence *f = NULL;

		CHECK_EQ(cisp_job_submit(ctx, &j, &f), 0);
		CHECK_EQ(cisp_fence_wait(f, -1), 0);
		cisp_fence_unref(f);
	}
	cisp_context_destroy(ctx);
	cisp_device_destroy(dev);
	cisp_image_free(&a);
	cisp_image_free(&b);
	cisp_image_free(&small);
	cisp_image_free(&out);
}

/*
 * cisp run --hdr end to end: a PNG, and a DNG of the merged linear frame
 * (white 65535, black 0, BaselineExposure 3 for offsets -3..1) read back.
 */
TEST(hdr_cli_run_still)
{
	char out[8192], args[2048], png[512], dng[512];
	struct cisp_raw_frame f;

	snprintf(png, sizeof(png), "%s/hdr.png", test_tmp_dir());
	snprintf(dng, sizeof(dng), "%s/hdr.dng", test_tmp_dir());
	snprintf(args, sizeof(args),
		 "run --camera virtual:cisp-test --scene hdr --option motion=3 --hdr-ev -3,0,1 --frames 3 --quiet "
		 "--png %s --save-raw %s --force", png, dng);
	CHECK_EQ(test_run_cisp(args, out, sizeof(out)), 0);
	CHECK(strstr(out, "wrote") != NULL);
	CHECK_EQ(cisp_raw_read_file(dng, &f), 0);
	CHECK_EQ(f.white, 65535);
	CHECK_EQ(f.black[0], 0);
	CHECK_NEAR(f.baseline_ev, 3, 1e-3);
	CHECK_EQ(f.image.width, 160);
	cisp_raw_frame_free(&f);
	/* Bad lists are refused before anything runs. */
	CHECK(test_run_cisp("run --camera virtual:cisp-test --hdr-ev 0 --frames 1 --quiet", out, sizeof(out)) != 0);
	CHECK(strstr(out, "a bracket has 2..8") != NULL);
	CHECK(test_run_cisp("run --camera virtual:cisp-test --hdr-ev 0,x --frames 1 --quiet", out, sizeof(out)) != 0);
	CHECK(strstr(out, "--hdr-ev '0,x' is not a list") != NULL);
}
