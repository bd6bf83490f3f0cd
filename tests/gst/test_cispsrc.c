/* SPDX-License-Identifier: MIT */
/*
 * cispsrc: pipelines from the virtual test camera (320x240), negotiated
 * formats and sizes, raw Bayer out, the per-frame metadata, manual controls
 * reaching the frames, repeated state changes, renegotiation across READY
 * and while playing, bad settings, and the device provider.
 */
#include <math.h>
#include <string.h>

#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include "gst_test.h"

#define CAMERA "cispsrc camera=virtual:cisp-test sensor-options=\"scene=colorchart,seed=2\""

/* The metadata structure of a buffer (fails the test when it has none). */
static const GstStructure *frame_meta(GstBuffer *buf)
{
	GstCustomMeta *meta = gst_buffer_get_custom_meta(buf, "GstCispMeta");

	fail_unless(meta != NULL, "no GstCispMeta on the buffer");
	return gst_custom_meta_get_structure(meta);
}

/* Pull @n samples from "... ! appsink name=out"; returns the last (unref it). */
static GstSample *pull_nth(const gchar *description, int n, guint64 *sequences)
{
	GError *err = NULL;
	GstElement *pipe = gst_parse_launch(description, &err);
	GstElement *sink;
	GstSample *sample = NULL;

	fail_unless(pipe != NULL, "%s: %s", description, err ? err->message : "?");
	sink = gst_bin_get_by_name(GST_BIN(pipe), "out");
	fail_unless(gst_element_set_state(pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
	for (int i = 0; i < n; i++) {
		guint64 seq = 0;

		if (sample)
			gst_sample_unref(sample);
		sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 20 * GST_SECOND);
		fail_unless(sample != NULL, "no sample %d from %s", i, description);
		fail_unless(gst_structure_get_uint64(frame_meta(gst_sample_get_buffer(sample)), "sequence", &seq));
		if (sequences)
			sequences[i] = seq;
	}
	gst_element_set_state(pipe, GST_STATE_NULL);
	gst_object_unref(sink);
	gst_object_unref(pipe);
	return sample;
}

/* isp=vulkan: the camera's frames, its 3A on the statistics included, are the software ISP's, byte for byte. */
GST_START_TEST(test_vulkan_bit_exact)
{
	GstSample *s[2];
	GstMapInfo a, b;

	if (!gst_test_have_vulkan())
		return;
	s[0] = pull_nth(CAMERA " ! video/x-raw,format=NV12 ! appsink name=out sync=false", 4, NULL);
	s[1] = pull_nth(CAMERA " isp=vulkan ! video/x-raw,format=NV12 ! appsink name=out sync=false", 4, NULL);
	gst_buffer_map(gst_sample_get_buffer(s[0]), &a, GST_MAP_READ);
	gst_buffer_map(gst_sample_get_buffer(s[1]), &b, GST_MAP_READ);
	fail_unless_equals_int(a.size, b.size);
	fail_unless(memcmp(a.data, b.data, a.size) == 0);
	gst_buffer_unmap(gst_sample_get_buffer(s[0]), &a);
	gst_buffer_unmap(gst_sample_get_buffer(s[1]), &b);
	gst_sample_unref(s[0]);
	gst_sample_unref(s[1]);
}
GST_END_TEST;

GST_START_TEST(test_num_buffers_to_eos)
{
	gchar *msg = NULL;

	fail_unless(gst_test_run(CAMERA " num-buffers=30 ! videoconvert ! fakesink", &msg), "%s", msg);
}
GST_END_TEST;

/* Formats and sizes downstream asks for; sequences count up from 0; the meta carries the 3A state. */
GST_START_TEST(test_caps_and_metadata)
{
	static const struct {
		const char *format;
		int width, height;
	} want[] = { { "NV12", 320, 240 }, { "I420", 160, 120 }, { "RGB", 200, 100 }, { "BGRx", 96, 64 } };

	for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
		gchar *desc = g_strdup_printf(CAMERA " ! video/x-raw,format=%s,width=%d,height=%d ! appsink name=out",
					      want[i].format, want[i].width, want[i].height);
		guint64 seq[5];
		GstSample *s = pull_nth(desc, 5, seq);
		GstVideoInfo info;
		const GstStructure *md;
		gdouble exposure = 0, ct = 0;

		fail_unless(gst_video_info_from_caps(&info, gst_sample_get_caps(s)));
		fail_unless_equals_string(gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info)), want[i].format);
		fail_unless_equals_int(GST_VIDEO_INFO_WIDTH(&info), want[i].width);
		fail_unless_equals_int(GST_VIDEO_INFO_HEIGHT(&info), want[i].height);
		fail_unless(gst_buffer_get_size(gst_sample_get_buffer(s)) >= GST_VIDEO_INFO_SIZE(&info));
		for (int k = 0; k < 5; k++)
			fail_unless_equals_uint64(seq[k], (guint64)k);
		md = frame_meta(gst_sample_get_buffer(s));
		fail_unless(gst_structure_get_double(md, "exposure-time", &exposure) && exposure > 0);
		fail_unless(gst_structure_get_double(md, "colour-temperature", &ct) && ct >= 1500 && ct <= 15000);
		fail_unless(gst_structure_get_string(md, "ae-state") != NULL);
		fail_unless(GST_BUFFER_PTS_IS_VALID(gst_sample_get_buffer(s)));
		/* The buffer lasts as long as the sensor's frame did. */
		gdouble duration_us = 0;
		fail_unless(gst_structure_get_double(md, "frame-duration", &duration_us) && duration_us > 0);
		fail_unless_equals_uint64(GST_BUFFER_DURATION(gst_sample_get_buffer(s)),
					  (guint64)llround(duration_us * 1000));
		gst_sample_unref(s);
		g_free(desc);
	}
}
GST_END_TEST;

/* Raw Bayer at the mode's size, 10 bits in 16-bit words: every sample below 1024. */
GST_START_TEST(test_raw_stream)
{
	GstSample *s = pull_nth(CAMERA " ! video/x-bayer,format=rggb10le,width=320,height=240 ! appsink name=out", 3,
				NULL);
	GstBuffer *buf = gst_sample_get_buffer(s);
	GstMapInfo map;
	guint max = 0, nonzero = 0;

	fail_unless(gst_buffer_map(buf, &map, GST_MAP_READ));
	fail_unless(map.size >= 320 * 240 * 2);
	for (gsize i = 0; i + 1 < 320 * 240 * 2; i += 2) {
		guint v = map.data[i] | (guint)map.data[i + 1] << 8;

		max = MAX(max, v);
		nonzero += v != 0;
	}
	gst_buffer_unmap(buf, &map);
	fail_unless(max < 1024, "sample %u does not fit 10 bits", max);
	fail_unless(nonzero > 320 * 240 / 2);
	gst_sample_unref(s);
}
GST_END_TEST;

/* Manual exposure and gain reach the frames: after the sensor's delays, the meta shows them. */
GST_START_TEST(test_manual_controls)
{
	GstSample *s = pull_nth(CAMERA " ae=false exposure-time=5000 analogue-gain=2.0 awb=false "
				       "colour-temperature=3000 ! video/x-raw,width=160,height=120 ! appsink name=out",
				8, NULL);
	const GstStructure *md = frame_meta(gst_sample_get_buffer(s));
	gdouble exposure = 0, gain = 0, ct = 0;
	const gchar *ae;

	fail_unless(gst_structure_get_double(md, "exposure-time", &exposure));
	fail_unless(gst_structure_get_double(md, "analogue-gain", &gain));
	fail_unless(gst_structure_get_double(md, "colour-temperature", &ct));
	/* Exposure is a whole number of lines (100 us on this sensor). */
	fail_unless(fabs(exposure - 5000) <= 100, "exposure %.1f us", exposure);
	fail_unless(fabs(gain - 2.0) < 0.01, "gain %.3f", gain);
	fail_unless(fabs(ct - 3000) < 1, "colour temperature %.0f", ct);
	ae = gst_structure_get_string(md, "ae-state");
	fail_unless(ae && !strcmp(ae, "manual"), "ae-state %s", ae);
	gst_sample_unref(s);
}
GST_END_TEST;

/* hdr=true: each buffer merges a bracket of three frames, taken one after the other. */
GST_START_TEST(test_hdr)
{
	guint64 seq[4];
	GstSample *s = pull_nth(CAMERA " hdr=true sensor-options=\"scene=hdr,realtime=0\" ! "
				       "video/x-raw,width=160,height=120 ! appsink name=out", 4, seq);
	const GstStructure *md = frame_meta(gst_sample_get_buffer(s));
	guint merged = 0;

	fail_unless(gst_structure_get_uint(md, "merged-frames", &merged));
	fail_unless_equals_int(merged, 3);
	for (int k = 1; k < 4; k++)
		fail_unless(seq[k] >= seq[k - 1] + 3, "buffer %d: sequence %" G_GUINT64_FORMAT " after %" G_GUINT64_FORMAT,
			    k, seq[k], seq[k - 1]);
	gst_sample_unref(s);
}
GST_END_TEST;

GST_START_TEST(test_state_changes)
{
	GstElement *pipe = gst_parse_launch(CAMERA " ! video/x-raw,width=160,height=120 ! appsink name=out "
						   "max-buffers=2 drop=true",
					    NULL);
	GstElement *sink = gst_bin_get_by_name(GST_BIN(pipe), "out");

	for (int i = 0; i < 4; i++) {
		GstSample *s;

		fail_unless(gst_element_set_state(pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
		s = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 20 * GST_SECOND);
		fail_unless(s != NULL, "no frame after start %d", i);
		gst_sample_unref(s);
		fail_unless_equals_int(gst_element_set_state(pipe, i % 2 ? GST_STATE_NULL : GST_STATE_READY),
				       GST_STATE_CHANGE_SUCCESS);
	}
	gst_object_unref(sink);
	gst_object_unref(pipe);
}
GST_END_TEST;

/* Other caps after READY: the camera is configured anew (another size, format and mode). */
GST_START_TEST(test_renegotiation)
{
	GstElement *pipe = gst_parse_launch(CAMERA " ! capsfilter name=f caps=video/x-raw,format=NV12,width=320,"
						   "height=240 ! appsink name=out",
					    NULL);
	GstElement *sink = gst_bin_get_by_name(GST_BIN(pipe), "out");
	GstElement *filter = gst_bin_get_by_name(GST_BIN(pipe), "f");
	GstSample *s;
	GstVideoInfo info;
	GstCaps *caps;

	fail_unless(gst_element_set_state(pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
	s = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 20 * GST_SECOND);
	fail_unless(s != NULL);
	gst_sample_unref(s);
	gst_element_set_state(pipe, GST_STATE_READY);
	caps = gst_caps_from_string("video/x-raw,format=RGB,width=80,height=60");
	g_object_set(filter, "caps", caps, NULL);
	gst_caps_unref(caps);
	fail_unless(gst_element_set_state(pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
	s = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 20 * GST_SECOND);
	fail_unless(s != NULL);
	fail_unless(gst_video_info_from_caps(&info, gst_sample_get_caps(s)));
	fail_unless_equals_int(GST_VIDEO_INFO_FORMAT(&info), GST_VIDEO_FORMAT_RGB);
	fail_unless_equals_int(GST_VIDEO_INFO_WIDTH(&info), 80);
	gst_sample_unref(s);
	gst_element_set_state(pipe, GST_STATE_NULL);
	gst_object_unref(filter);
	gst_object_unref(sink);
	gst_object_unref(pipe);
}
GST_END_TEST;

/*
 * Other caps while PLAYING: the element stops the camera, takes back the
 * requests the stop cancelled and configures anew, here from the processed
 * stream to the raw one and back.
 */
GST_START_TEST(test_renegotiation_playing)
{
	static const char *const steps[] = { "video/x-bayer,format=rggb10le,width=320,height=240",
					     "video/x-raw,format=RGB,width=80,height=60" };
	GstElement *pipe = gst_parse_launch(CAMERA " ! capsfilter name=f caps=video/x-raw,format=NV12,width=160,"
						   "height=120 ! appsink name=out",
					    NULL);
	GstElement *sink = gst_bin_get_by_name(GST_BIN(pipe), "out");
	GstElement *filter = gst_bin_get_by_name(GST_BIN(pipe), "f");
	GstSample *s;

	fail_unless(gst_element_set_state(pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
	s = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 20 * GST_SECOND);
	fail_unless(s != NULL);
	gst_sample_unref(s);
	for (size_t i = 0; i < G_N_ELEMENTS(steps); i++) {
		GstCaps *caps = gst_caps_from_string(steps[i]);
		gboolean matched = FALSE;

		g_object_set(filter, "caps", caps, NULL);
		/* Frames already in flight still carry the old caps. */
		for (int k = 0; k < 10 && !matched; k++) {
			s = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 20 * GST_SECOND);
			fail_unless(s != NULL, "no frame after switching to %s", steps[i]);
			matched = gst_caps_is_subset(gst_sample_get_caps(s), caps);
			gst_sample_unref(s);
		}
		fail_unless(matched, "no frame in %s", steps[i]);
		gst_caps_unref(caps);
	}
	gst_element_set_state(pipe, GST_STATE_NULL);
	gst_object_unref(filter);
	gst_object_unref(sink);
	gst_object_unref(pipe);
}
GST_END_TEST;

/* Errors on the bus with a human message: unknown camera, bad sensor option, impossible size. */
GST_START_TEST(test_bad_settings)
{
	static const struct {
		const char *desc, *needle;
	} cases[] = {
		{ "cispsrc camera=virtual:no-such-model num-buffers=1 ! fakesink", "no-such-model" },
		{ "cispsrc camera=virtual:cisp-test sensor-options=scene=nowhere.png num-buffers=1 ! fakesink",
		  "Could not open camera" },
		{ "cispsrc camera=virtual:cisp-test num-buffers=1 ! video/x-raw,width=4000,height=3000 ! fakesink",
		  "" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		gchar *msg = NULL;

		fail_if(gst_test_run(cases[i].desc, &msg), "%s ran", cases[i].desc);
		fail_unless(msg != NULL);
		fail_unless(strstr(msg, cases[i].needle) != NULL, "'%s' lacks '%s'", msg, cases[i].needle);
		g_free(msg);
	}
}
GST_END_TEST;

/* gst-device-monitor's view: every virtual model is a Video/Source whose element streams. */
GST_START_TEST(test_device_provider)
{
	GstDeviceMonitor *mon = gst_device_monitor_new();
	GList *devices;
	gboolean found = FALSE;

	gst_device_monitor_add_filter(mon, "Video/Source", NULL);
	fail_unless(gst_device_monitor_start(mon));
	devices = gst_device_monitor_get_devices(mon);
	for (GList *l = devices; l; l = l->next) {
		GstDevice *dev = l->data;
		GstStructure *props = gst_device_get_properties(dev);
		const gchar *path = props ? gst_structure_get_string(props, "device.path") : NULL;

		if (path && !strcmp(path, "virtual:cisp-test")) {
			GstElement *e = gst_device_create_element(dev, NULL);

			found = TRUE;
			fail_unless(e != NULL);
			fail_unless_equals_string(G_OBJECT_TYPE_NAME(e), "GstCispSrc");
			gst_object_unref(e);
		}
		if (props)
			gst_structure_free(props);
	}
	g_list_free_full(devices, gst_object_unref);
	gst_device_monitor_stop(mon);
	gst_object_unref(mon);
	fail_unless(found, "virtual:cisp-test not listed");
}
GST_END_TEST;

/* Standard deviation of the raw frame's green samples (RGGB) in the centre 64x64, from a pipeline's 6th frame. */
static double raw_green_sigma(const gchar *description)
{
	GstSample *s = pull_nth(description, 6, NULL);
	GstMapInfo map;
	double sum = 0, sq = 0, n = 0;

	fail_unless(gst_buffer_map(gst_sample_get_buffer(s), &map, GST_MAP_READ));
	for (guint y = 88; y < 152; y++)
		for (guint x = 128; x < 192; x++) {
			gsize i = 2 * ((gsize)y * 320 + x);
			double v = map.data[i] | (guint)map.data[i + 1] << 8;

			if ((x + y) % 2 == 0)
				continue;
			sum += v;
			sq += v * v;
			n++;
		}
	gst_buffer_unmap(gst_sample_get_buffer(s), &map);
	gst_sample_unref(s);
	return sqrt(sq / n - (sum / n) * (sum / n));
}

/* burst=8 merges 8 frames into each: the raw frame of a dim flat scene is far less noisy. */
GST_START_TEST(test_burst)
{
	const char *pipe = "cispsrc camera=virtual:cisp-test sensor-options=\"scene=flat,lux=5,shake=4,seed=2\" "
			   "ae=false exposure-time=20000 analogue-gain=4 burst=%u ! "
			   "video/x-bayer,format=rggb10le,width=320,height=240 ! appsink name=out";
	gchar *one = g_strdup_printf(pipe, 0), *eight = g_strdup_printf(pipe, 8);
	double s1 = raw_green_sigma(one), s8 = raw_green_sigma(eight);

	fail_unless(s1 / s8 > 2.0, "burst=8: green sigma %.2f against %.2f for one frame", s8, s1);
	g_free(one);
	g_free(eight);
}
GST_END_TEST;

#ifdef CISP_FACES_BUILT
/* faces=: the portrait's face as a "face" region of interest in output pixels, with its confidence. */
GST_START_TEST(test_faces_meta)
{
	GstElement *pipe = gst_parse_launch("cispsrc camera=virtual:cisp-test faces=1000 sensor-options="
					    "scene=" CISP_SHARED_DATA "/kodak/kodim04.png ! "
					    "video/x-raw,format=NV12,width=320,height=240 ! appsink name=out",
					    NULL);
	GstElement *sink = gst_bin_get_by_name(GST_BIN(pipe), "out");
	GstVideoRegionOfInterestMeta *roi = NULL;
	GstSample *s = NULL;

	fail_unless(gst_element_set_state(pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
	for (int i = 0; i < 30 && !roi; i++) {
		if (s)
			gst_sample_unref(s);
		s = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 20 * GST_SECOND);
		fail_unless(s != NULL, "no sample %d", i);
		roi = gst_buffer_get_video_region_of_interest_meta_id(gst_sample_get_buffer(s), 0);
	}
	fail_unless(roi != NULL, "no face in 30 frames");
	fail_unless_equals_string(g_quark_to_string(roi->roi_type), "face");
	fail_unless(roi->w >= 40 && roi->h >= 40 && roi->x + roi->w <= 320 && roi->y + roi->h <= 240);
	GstStructure *det = gst_video_region_of_interest_meta_get_param(roi, "detection");
	gdouble confidence = 0;
	fail_unless(det && gst_structure_get_double(det, "confidence", &confidence));
	fail_unless(confidence >= 0.5 && confidence <= 1);
	gst_sample_unref(s);
	gst_element_set_state(pipe, GST_STATE_NULL);
	gst_object_unref(sink);
	gst_object_unref(pipe);
}
GST_END_TEST;
#else
/* faces= in a build without face detection: the pipeline fails saying so. */
GST_START_TEST(test_faces_meta)
{
	gchar *msg = NULL;

	fail_if(gst_test_run(CAMERA " faces=5 num-buffers=3 ! fakesink", &msg));
	fail_unless(msg && strstr(msg, "face detection not built"), "%s", msg ? msg : "no message");
	g_free(msg);
}
GST_END_TEST;
#endif

/* eis=true: the same frame of a shaking camera comes out cut from a moved, enlarged window. */
GST_START_TEST(test_eis)
{
	const char *pipe = CAMERA " sensor-options=\"scene=deadleaves,shake=8,seed=4,realtime=0\" ae=false "
			   "exposure-time=10000 awb=false eis=%s ! video/x-raw,format=NV12,width=320,height=240 ! "
			   "appsink name=out";
	gchar *off = g_strdup_printf(pipe, "false"), *on = g_strdup_printf(pipe, "true");
	GstSample *a = pull_nth(off, 4, NULL), *b = pull_nth(on, 4, NULL);
	GstMapInfo ma, mb;
	guint differ = 0;

	fail_unless(gst_buffer_map(gst_sample_get_buffer(a), &ma, GST_MAP_READ));
	fail_unless(gst_buffer_map(gst_sample_get_buffer(b), &mb, GST_MAP_READ));
	fail_unless_equals_int(ma.size, mb.size);
	for (gsize i = 0; i < 320 * 240; i++)
		differ += ma.data[i] != mb.data[i];
	fail_unless(differ > 320 * 240 / 2, "eis=true changed only %u luma samples", differ);
	gst_buffer_unmap(gst_sample_get_buffer(a), &ma);
	gst_buffer_unmap(gst_sample_get_buffer(b), &mb);
	gst_sample_unref(a);
	gst_sample_unref(b);
	g_free(off);
	g_free(on);
}
GST_END_TEST;

static Suite *cispsrc_suite(void)
{
	Suite *s = suite_create("cispsrc");
	TCase *tc = tcase_create("general");

	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	tcase_add_test(tc, test_num_buffers_to_eos);
	tcase_add_test(tc, test_vulkan_bit_exact);
	tcase_add_test(tc, test_caps_and_metadata);
	tcase_add_test(tc, test_raw_stream);
	tcase_add_test(tc, test_manual_controls);
	tcase_add_test(tc, test_hdr);
	tcase_add_test(tc, test_state_changes);
	tcase_add_test(tc, test_renegotiation);
	tcase_add_test(tc, test_renegotiation_playing);
	tcase_add_test(tc, test_bad_settings);
	tcase_add_test(tc, test_device_provider);
	tcase_add_test(tc, test_burst);
	tcase_add_test(tc, test_faces_meta);
	tcase_add_test(tc, test_eis);
	return s;
}

int main(int argc, char **argv)
{
	gst_test_env();
	gst_check_init(&argc, &argv);
	return gst_check_run_suite(cispsrc_suite(), "cispsrc", __FILE__);
}
