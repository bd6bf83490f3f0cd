/* SPDX-License-Identifier: MIT */
/*
 * Faces (docs/faces.md): AE's face metering on a synthetic backlit frame
 * (numbers, and a closed loop that brings the face to its documented
 * level), the AF window on a face, and the camera's face metadata: faces
 * of a portrait scene through cisp_camera_request_faces() with their
 * errors, or, in a build without OpenCV's objdetect, the "face detection
 * not built" error.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/camera.h>
#include <cisp/error.h>
#include <cisp/format.h>

#include "control/ae.h"
#include "control/af.h"
#include "faces/detector.h"
#include "test.h"

#define TEST_CAMERA "virtual:cisp-test"

/* The face: x 0.4..0.6, y 0.3..0.7 of a 32 x 24 zone grid. */
static const struct control_faces one_face = { 1, { { 0.4, 0.3, 0.2, 0.4 } } };

/* 32 x 24 zones of grey @window, the face's zones @face (fractions of full scale, unsaturated). */
static void backlit_stats(struct cisp_stats *s, double window, double face)
{
	memset(s, 0, sizeof(*s));
	s->valid = CISP_STATS_ZONES;
	s->zones_x = 32;
	s->zones_y = 24;
	for (unsigned y = 0; y < 24; y++)
		for (unsigned x = 0; x < 32; x++) {
			double u = (x + 0.5) / 32, v = (y + 0.5) / 24;
			double level = u > 0.4 && u < 0.6 && v > 0.3 && v < 0.7 ? face : window;
			uint16_t q = (uint16_t)lround(fmin(level, 1.0) * 65535);
			s->zone[y * 32 + x] = (struct cisp_stats_zone){ q, q, q, 0, 64, 64 };
		}
	s->hist[255] = 100; /* the window: highlight protection would pull the exposure down */
}

TEST(ae_faces_metering)
{
	struct cisp_tuning *t = calloc(1, sizeof(*t));
	struct cisp_stats *s = calloc(1, sizeof(*s));
	const double wb[3] = { 1, 1, 1 };
	struct ae_measure m;

	tuning_defaults(t);
	backlit_stats(s, 0.8, 0.02);
	/* The central 60% of the face lies inside its dark zones: exactly their level. */
	CHECK_NEAR(ae_face_mean(s, wb, 1.0, &one_face), round(0.02 * 65535) / 65535, 1e-9);
	/* ... times the ISP's gain, as the normal mean. */
	CHECK_NEAR(ae_face_mean(s, wb, 2.0, &one_face), 2 * round(0.02 * 65535) / 65535, 1e-9);
	/* A face off the grid meters nothing. */
	const struct control_faces outside = { 1, { { 1.5, 1.5, 0.1, 0.1 } } };
	CHECK_EQ(ae_face_mean(s, wb, 1.0, &outside) < 0, 1);

	ae_measure(t, CISP_AE_METERING_CENTRE, s, wb, 1.0, &m);
	double normal = m.mean, face = ae_face_mean(s, wb, 1.0, &one_face);
	CHECK(normal > 0.5);
	CHECK(m.highlight > 0.99);
	ae_meter_faces(&m, face);
	CHECK_NEAR(m.mean, pow(normal, 1 - AE_FACE_WEIGHT) * pow(face, AE_FACE_WEIGHT), 1e-12);
	CHECK_EQ(m.highlight == 0, 1);
	/* No face: the measure stays. */
	struct ae_measure before = m;
	ae_meter_faces(&m, -1);
	CHECK_EQ(memcmp(&m, &before, sizeof(m)), 0);
	free(s);
	free(t);
}

/*
 * A closed loop on a scene whose window reflects 40 times the face's light:
 * without faces the face settles under 1/50 of the target, with faces
 * within (face/normal)^(1 - AE_FACE_WEIGHT) of it, as docs/faces.md says.
 */
static double settled_face_level(bool faces)
{
	struct cisp_tuning *t = calloc(1, sizeof(*t));
	struct cisp_stats *s = calloc(1, sizeof(*s));
	const double wb[3] = { 1, 1, 1 };
	const double window_per_product = 0.8 / 4000, face_per_product = 0.02 / 4000;
	double product = 4000;
	struct ae ae;

	tuning_defaults(t);
	ae_init(&ae, t);
	ae_reset(&ae, product);
	for (unsigned n = 0; n < 60; n++) {
		struct ae_measure m;
		backlit_stats(s, window_per_product * product, face_per_product * product);
		ae_measure(t, CISP_AE_METERING_CENTRE, s, wb, 1.0, &m);
		if (faces)
			ae_meter_faces(&m, ae_face_mean(s, wb, 1.0, &one_face));
		product = ae_process(&ae, &m, product, 1, 1e9);
	}
	free(s);
	free(t);
	return face_per_product * product;
}

TEST(ae_faces_backlit_loop)
{
	double target = 0.18; /* the default tuning's */
	double off = settled_face_level(false), on = settled_face_level(true);

	CHECK(off < target / 50);
	/* Normal mean over face mean is about 25 here (the centre weighting counts the face too). */
	CHECK(on > target * pow(1.0 / 40, 1 - AE_FACE_WEIGHT) * 0.9);
	CHECK(on < target * 1.05);
}

TEST(af_window_on_face)
{
	struct control_face f = { 0.5, 0.25, 0.1, 0.2 };
	struct cisp_stats_window w = af_face_window(&f, 320, 240);

	CHECK_EQ(w.x, 160);
	CHECK_EQ(w.y, 60);
	CHECK_EQ(w.width, 32);
	CHECK_EQ(w.height, 48);
	/* A tiny face in the corner: the smallest window, inside the frame. */
	f = (struct control_face){ 0.99, 0.99, 0.01, 0.01 };
	w = af_face_window(&f, 320, 240);
	CHECK_EQ(w.width, AF_FACE_MIN_WINDOW);
	CHECK_EQ(w.height, AF_FACE_MIN_WINDOW);
	CHECK_EQ(w.x, 320 - AF_FACE_MIN_WINDOW);
	CHECK_EQ(w.y, 240 - AF_FACE_MIN_WINDOW);
	/* Hostile values stay inside too. */
	f = (struct control_face){ -5, 7, 100, -1 };
	w = af_face_window(&f, 320, 240);
	CHECK(w.x + w.width <= 320 && w.y + w.height <= 240 && w.width >= 32 && w.height >= 32);
}

static struct cisp_camera_manager *manager(void)
{
	struct cisp_device_config dc = { .workers = 2 };
	struct cisp_camera_manager_config mc = { .device_config = &dc };
	struct cisp_camera_manager *m = NULL;

	CHECK_EQ(cisp_camera_manager_create(&m, &mc), 0);
	return m;
}

#ifdef CISP_FACES_BUILT
/*
 * The portrait kodim04 on the small test sensor (320 x 240): a face is
 * reported within 30 frames, inside the frame and on the face's side of
 * it, with its frame, age and confidence; the errors of the API.
 */
TEST(camera_faces_metadata)
{
	struct cisp_camera_manager *m = manager();
	struct cisp_camera_options o = { .sensor_options = "scene=" CISP_SHARED_DATA "/kodak/kodim04.png" };
	struct cisp_camera_request req[2] = { 0 }, *done = NULL, stale = { 0 };
	struct cisp_image img[2] = { 0 };
	struct cisp_camera_config cfg;
	struct cisp_camera_face f[CISP_CAMERA_MAX_FACES];
	struct cisp_camera *cam = NULL;
	int found = 0;

	CHECK_EQ(cisp_camera_open(&cam, m, TEST_CAMERA, &o), 0);
	CHECK_EQ(cisp_camera_default_config(cam, 0, &cfg), 0);
	CHECK_EQ(cisp_camera_configure(cam, &cfg), 0);
	CHECK_ERR(cisp_camera_request_faces(cam, &stale, f, 1), -ENODATA, "face detection is off");
	CHECK_ERR(cisp_camera_detect_faces(cam, -1), -EINVAL, "face detection rate");
	CHECK_ERR(cisp_camera_detect_faces(cam, NAN), -EINVAL, "face detection rate");
	CHECK_EQ(cisp_camera_detect_faces(cam, 1000), 0);
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(cisp_image_alloc(&img[i], CISP_FMT_NV12, cfg.stream[0].width, cfg.stream[0].height), 0);
		req[i].buffer[CISP_STREAM_MAIN] = &img[i];
		CHECK_EQ(cisp_camera_queue(cam, &req[i]), 0);
	}
	CHECK_EQ(cisp_camera_start(cam), 0);
	CHECK_ERR(cisp_camera_detect_faces(cam, 5), -EBUSY, "while stopped");
	for (unsigned n = 0; n < 30 && found <= 0; n++) {
		CHECK_EQ(cisp_camera_wait(cam, &done, -1), 0);
		CHECK_EQ(done->status, 0);
		found = cisp_camera_request_faces(cam, done, f, CISP_CAMERA_MAX_FACES);
		CHECK(found >= 0);
		if (found <= 0)
			CHECK_EQ(cisp_camera_queue(cam, done), 0);
	}
	CHECK(found >= 1);
	CHECK(found <= CISP_CAMERA_MAX_FACES);
	/* kodim04's face is in the frame's upper middle, about a third of its height. */
	CHECK(f[0].x >= 0 && f[0].y >= 0 && f[0].x + f[0].width <= 320 && f[0].y + f[0].height <= 240);
	CHECK(f[0].height >= 40 && f[0].height <= 200);
	CHECK(f[0].x + f[0].width / 2 > 80 && f[0].x + f[0].width / 2 < 240);
	CHECK(f[0].confidence >= 0.5 && f[0].confidence <= 1);
	CHECK(f[0].sequence <= done->metadata.sequence);
	CHECK_EQ(f[0].age, done->metadata.sequence - f[0].sequence);
	/* Counted with no room to copy into. */
	CHECK_EQ(cisp_camera_request_faces(cam, done, NULL, 0), found);
	stale.metadata.sequence = done->metadata.sequence + 1000;
	CHECK_ERR(cisp_camera_request_faces(cam, &stale, f, 1), -ENOENT, "not among the last");
	CHECK_EQ(cisp_camera_stop(cam), 0);
	/* Off again: no faces. */
	CHECK_EQ(cisp_camera_detect_faces(cam, 0), 0);
	CHECK_ERR(cisp_camera_request_faces(cam, done, f, 1), -ENODATA, "face detection is off");
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(m);
	for (int i = 0; i < 2; i++)
		cisp_image_free(&img[i]);
}

TEST(camera_faces_bad_cascade)
{
	struct face_detector *d = NULL;
	struct face_box b;

	CHECK_ERR(face_detector_create(&d, "/no/such/cascade.xml"), -ENOENT, "/no/such/cascade.xml");
	CHECK(d == NULL);
	/* A file that is not a cascade. */
	CHECK(face_detector_create(&d, CISP_SOURCE_DIR "/meson.build") < 0);
	CHECK(d == NULL);
	CHECK_EQ(face_detector_create(&d, NULL), 0);
	uint8_t luma[64] = { 0 };
	CHECK_ERR(face_detector_find(d, luma, 8, 8, 4, 20, &b, 1), -EINVAL, "bad 8x8 image");
	CHECK_EQ(face_detector_find(d, luma, 8, 8, 8, 20, &b, 1), 0);
	face_detector_destroy(d);
}
#else
TEST(camera_faces_not_built)
{
	struct cisp_camera_manager *m = manager();
	struct cisp_camera *cam = NULL;
	struct cisp_camera_request req = { 0 };
	struct cisp_camera_face f;

	CHECK_EQ(cisp_camera_open(&cam, m, TEST_CAMERA, NULL), 0);
	CHECK_ERR(cisp_camera_detect_faces(cam, 5), -ENOTSUP, "face detection not built");
	CHECK_ERR(cisp_camera_request_faces(cam, &req, &f, 1), -ENODATA, "face detection is off");
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(m);
}
#endif
