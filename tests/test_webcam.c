/* SPDX-License-Identifier: MIT */
/*
 * The webcam output (docs/webcam.md): NV12 packed into YUYV and NV12 byte
 * for byte, the writer's refusals (bad formats and sizes, files that are no
 * V4L2 output device, links), `cisp webcam` without a device (hand shake
 * with EIS off and on), and the video-conferencing profile's checks of the
 * webcam path on given figures. The path
 * into a real v4l2loopback device and a reader runs in the VM test
 * (tests/vm/webcam_vm_test.sh).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/iq_report.h>
#include <cisp/v4l2_output.h>

#include "../tools/webcam.h"
#include "cli.h"
#include "test.h"

/* An NV12 image whose every byte says where it is: luma x + 3y, chroma 100 + x + 7y. */
static void make_frame(struct cisp_image *img, uint32_t w, uint32_t h)
{
	CHECK_EQ(cisp_image_alloc(img, CISP_FMT_NV12, w, h), 0);
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++)
			img->plane[0].data[y * img->plane[0].stride + x] = (uint8_t)(x + 3 * y);
	for (uint32_t y = 0; y < h / 2; y++)
		for (uint32_t x = 0; x < w; x++)
			img->plane[1].data[y * img->plane[1].stride + x] = (uint8_t)(100 + x + 7 * y);
}

TEST(webcam_pack_yuyv_and_nv12)
{
	struct cisp_v4l2_output_config c = { CISP_V4L2_OUTPUT_YUYV, 6, 4, 30, 1 };
	struct cisp_image img;
	uint8_t out[6 * 4 * 2];

	make_frame(&img, 6, 4);
	CHECK_EQ(cisp_v4l2_output_frame_size(&c), 48);
	CHECK_EQ(cisp_v4l2_output_pack(&c, &img, out, sizeof(out)), 0);
	for (uint32_t y = 0; y < 4; y++)
		for (uint32_t x = 0; x < 6; x += 2) {
			const uint8_t *p = out + y * 12 + x * 2;

			/* Y0 Cb Y1 Cr; rows 2k and 2k + 1 share chroma row k. */
			CHECK_EQ(p[0], x + 3 * y);
			CHECK_EQ(p[1], 100 + x + 7 * (y / 2));
			CHECK_EQ(p[2], x + 1 + 3 * y);
			CHECK_EQ(p[3], 100 + x + 1 + 7 * (y / 2));
		}
	c.pixelformat = CISP_V4L2_OUTPUT_NV12;
	CHECK_EQ(cisp_v4l2_output_frame_size(&c), 36);
	CHECK_EQ(cisp_v4l2_output_pack(&c, &img, out, sizeof(out)), 0);
	for (uint32_t y = 0; y < 4; y++)
		for (uint32_t x = 0; x < 6; x++)
			CHECK_EQ(out[y * 6 + x], x + 3 * y);
	for (uint32_t y = 0; y < 2; y++)
		for (uint32_t x = 0; x < 6; x++)
			CHECK_EQ(out[24 + y * 6 + x], 100 + x + 7 * y);

	/* A frame of another size or format, or too little room. */
	CHECK_ERR(cisp_v4l2_output_pack(&c, &img, out, 35), -EINVAL, "35 bytes");
	c.width = 8;
	CHECK_ERR(cisp_v4l2_output_pack(&c, &img, out, sizeof(out)), -EINVAL, "6x4 NV12");
	cisp_image_free(&img);
	CHECK_EQ(cisp_image_alloc(&img, CISP_FMT_I420, 8, 4), 0);
	CHECK_ERR(cisp_v4l2_output_pack(&c, &img, out, sizeof(out)), -EINVAL, "8x4");
	cisp_image_free(&img);
}

TEST(webcam_output_refuses_what_it_cannot_feed)
{
	struct cisp_v4l2_output_config c = { CISP_V4L2_OUTPUT_YUYV, 640, 480, 30, 1 };
	struct cisp_v4l2_output *o = NULL;
	char link[512];

	/* Bad formats, sizes and rates, before the device is touched. */
	c.pixelformat = 0x34424752; /* RGB4 */
	CHECK_ERR(cisp_v4l2_output_open(&o, "/dev/null", &c), -EINVAL, "YUYV or NV12");
	c.pixelformat = CISP_V4L2_OUTPUT_NV12;
	c.width = 641;
	CHECK_EQ(cisp_v4l2_output_frame_size(&c), 0);
	CHECK_ERR(cisp_v4l2_output_open(&o, "/dev/null", &c), -EINVAL, "641x480");
	c.width = 640;
	c.height = 100000;
	CHECK_ERR(cisp_v4l2_output_open(&o, "/dev/null", &c), -EINVAL, "8192");
	c.height = 480;
	c.fps_den = 0;
	CHECK_ERR(cisp_v4l2_output_open(&o, "/dev/null", &c), -EINVAL, "frame rate");
	c.fps_den = 1;
	/* Files that are no V4L2 output device. */
	CHECK_ERR(cisp_v4l2_output_open(&o, "/dev/null", &c), -ENOTTY, "not a V4L2 video output");
	CHECK_ERR(cisp_v4l2_output_open(&o, "/no/such/video9", &c), -ENOENT, "/no/such/video9");
	/* A regular file is never written, a link is followed to what it names and judged by that. */
	snprintf(link, sizeof(link), "%s/webcam-file", test_tmp_dir());
	cli_write("webcam-file", "keep", 4);
	CHECK_ERR(cisp_v4l2_output_open(&o, link, &c), -ENOTTY, "not a device");
	CHECK_EQ(cli_size("webcam-file"), 4);
	snprintf(link, sizeof(link), "%s/webcam-link", test_tmp_dir());
	unlink(link);
	CHECK_EQ(symlink("/dev/null", link), 0);
	CHECK_ERR(cisp_v4l2_output_open(&o, link, &c), -ENOTTY, "not a V4L2 video output");
	unlink(link);
	CHECK(o == NULL);
	cisp_v4l2_output_close(NULL);
}

TEST(webcam_command_without_a_device)
{
	/* The whole path, paced on CLOCK_MONOTONIC, packed but not written anywhere. */
	CHECK_EQ(cli_run("webcam --camera virtual:cisp-test --device none --size 320x180 --fps 30 --frames 12 "
			 "--quiet --option lux=50"), 0);
	CHECK(strstr(cli_output, "camera virtual:cisp-test, mode full (320x240), 320x180 of it to 320x180") != NULL);
	CHECK(strstr(cli_output, "feeding no device with YUYV 320x180 at 30 fps") != NULL);
	CHECK(strstr(cli_output, "12 frames in ") != NULL);
	/* The virtual sensor's clock is CLOCK_MONOTONIC in real time: latency is measured. */
	CHECK(strstr(cli_output, "latency, sensor readout start to the device: p50 ") != NULL);

	/* Frames written first are left out of the figures: --frames counts those after them. */
	CHECK_EQ(cli_run("webcam --camera virtual:cisp-test --device none --size 320x180 --frames 6 --settle 4 "
			 "--quiet --option lux=50"), 0);
	CHECK(strstr(cli_output, "4 frames first, not measured: ") != NULL);
	CHECK(strstr(cli_output, "6 frames in ") != NULL);
	CHECK(strstr(cli_output, "latency, sensor readout start to the device: p50 ") != NULL);
	CHECK_EQ(cli_run("webcam --camera virtual:cisp-test --device none --size 320x180 --frames 2 --settle 5 "
			 "--quiet --option lux=50"), 0);
	CHECK(strstr(cli_output, "5 frames first, not measured: ") != NULL);
	CHECK(strstr(cli_output, "2 frames in ") != NULL);
	CHECK_EQ(cli_run("webcam --camera virtual:cisp-test --settle -1"), 2);

	/* Usage errors and devices that are none. */
	CHECK_EQ(cli_run("webcam --device none"), 2);
	CHECK(strstr(cli_output, "--camera is required") != NULL);
	CHECK_EQ(cli_run("webcam --camera virtual:cisp-test --size 321x240"), 2);
	CHECK(strstr(cli_output, "even width and height") != NULL);
	CHECK_EQ(cli_run("webcam --camera virtual:cisp-test --format rgb"), 2);
	CHECK(strstr(cli_output, "yuyv or nv12") != NULL);
	CHECK_EQ(cli_run("webcam --camera virtual:cisp-test --fps 15 --min-fps 30"), 2);
	CHECK(strstr(cli_output, "above --fps") != NULL);
	CHECK_EQ(cli_run("webcam --camera virtual:cisp-test --device /dev/null --frames 1"), 1);
	CHECK(strstr(cli_output, "/dev/null: not a V4L2 video output") != NULL);
	CHECK_EQ(cli_run("webcam --camera virtual:no-such --device none --frames 1"), 1);
	CHECK(strstr(cli_output, "no-such") != NULL);
}

TEST(webcam_residual_motion_with_and_without_eis)
{
	double off, on;
	const char *line;

	/*
	 * The virtual sensor's hand shake, measured from its truth: EIS takes most of it out.
	 * Every sensor frame (not in real time), so that frames follow each other on a slow machine.
	 */
	CHECK_EQ(cli_run("webcam --camera virtual:cisp-test --device none --size 320x180 --frames 10 --quiet "
			 "--option lux=300 --option shake=6 --option seed=3 --option realtime=0"), 0);
	line = strstr(cli_output, "residual motion of the still scene (the virtual sensor's shake): ");
	CHECK(line && sscanf(strchr(line, ':') + 2, "%lf", &off) == 1);
	CHECK(strstr(cli_output, ", 9 frame pairs") != NULL);
	CHECK_EQ(cli_run("webcam --camera virtual:cisp-test --device none --size 320x180 --frames 10 --quiet "
			 "--option lux=300 --option shake=6 --option seed=3 --option realtime=0 --eis"), 0);
	line = strstr(cli_output, "residual motion of the still scene (the virtual sensor's shake, less EIS): ");
	CHECK(line && sscanf(strchr(line, ':') + 2, "%lf", &on) == 1);
	if (!line)
		return;
	CHECK(off > 0.2);
	CHECK(on < off / 2);
	/* Without shake there is nothing to say. */
	CHECK_EQ(cli_run("webcam --camera virtual:cisp-test --device none --size 320x180 --frames 3 --quiet"), 0);
	CHECK(strstr(cli_output, "residual motion") == NULL);
}

/* Figures that pass every check of the profile's webcam part. */
static void good_figures(struct webcam_conformance *c)
{
	struct webcam_report w = {
		.written = WEBCAM_FRAMES, .seconds = 5, .fps = 29.8, .latency_p50_ms = 50, .latency_p99_ms = 70,
		.frame_duration_ms = 33.3, .frame_duration_max_ms = 33.32, .analogue_gain = 4, .digital_gain = 2,
		.cpu_ms_per_frame = 40, .motion_rms_px = 1.5, .motion_pairs = 140, .face_luma = -1,
	};

	memset(c, 0, sizeof(*c));
	c->eis_off = c->eis_on = c->motion_off = c->motion_on = w;
	c->motion_on.motion_rms_px = 0.2;
	c->faces = c->no_faces = w;
	c->faces.face_frames = 14;
	c->faces.written = 15;
	c->faces.face = (struct cisp_camera_face){ 500, 200, 240, 240, 0.9, 1, 2 };
	c->faces.face_luma = 105;
	c->no_faces.face_luma = 45;
}

/* The count of failed checks for @c. */
static unsigned failed_checks(const struct webcam_conformance *c)
{
	struct cisp_iq_report *r = NULL;
	unsigned failed = 99;

	CHECK_EQ(cisp_iq_report_create(&r, "test"), 0);
	if (!r)
		return failed;
	webcam_conformance_check(r, c);
	cisp_iq_report_passed(r, &failed);
	cisp_iq_report_destroy(r);
	return failed;
}

TEST(webcam_conformance_checks)
{
	struct webcam_conformance c;

	good_figures(&c);
	CHECK_EQ(failed_checks(&c), 0);
	/* EIS on: its rate, frames left out, latency and residual motion are checked on their own. */
	good_figures(&c);
	c.eis_on.fps = 20;
	CHECK_EQ(failed_checks(&c), 1);
	c.eis_on.dropped = 40;
	c.eis_on.latency_p99_ms = 300;
	CHECK_EQ(failed_checks(&c), 3);
	good_figures(&c);
	c.motion_on.motion_rms_px = 0.8;
	CHECK_EQ(failed_checks(&c), 1);
	c.motion_on.motion_rms_px = -1; /* not measured is a failure, not a pass */
	CHECK_EQ(failed_checks(&c), 1);
	/* The EIS-off figure stands beside it, unchecked; the longest frame counts over both runs. */
	good_figures(&c);
	c.motion_off.motion_rms_px = 9;
	CHECK_EQ(failed_checks(&c), 0);
	c.eis_on.frame_duration_max_ms = 40;
	CHECK_EQ(failed_checks(&c), 1);
	/* Faces: the share of frames with one, the face's luma within its range. */
	good_figures(&c);
	c.faces.face_frames = 10;
	CHECK_EQ(failed_checks(&c), 1);
	good_figures(&c);
	c.faces.face_luma = 50;
	CHECK_EQ(failed_checks(&c), 1);
	c.faces.face_luma = 200;
	CHECK_EQ(failed_checks(&c), 1);
	c.faces.face_frames = 0;
	CHECK_EQ(failed_checks(&c), 2);
	/* Runs that did not happen (no portrait, no face module) fail with their reason. */
	good_figures(&c);
	snprintf(c.faces_error, sizeof(c.faces_error), "not run: face detection not built");
	CHECK_EQ(failed_checks(&c), 1);
	/* The latency of a sensor on another clock is a failure, not a pass. */
	good_figures(&c);
	c.eis_off.latency_p50_ms = c.eis_off.latency_p99_ms = -1;
	CHECK_EQ(failed_checks(&c), 1);
}
