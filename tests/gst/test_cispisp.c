/* SPDX-License-Identifier: MIT */
/*
 * cispisp: known answers on synthetic Bayer frames through a harness, caps
 * negotiation and renegotiation, strides, bad settings, repeated state
 * changes, and the rgb2bayer round trip on the Kodak images against
 * plugins-bad's bayer2rgb.
 */
#include <math.h>
#include <string.h>

#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include <cisp/format.h>

#include "../../gst/caps.h"
#include "../sanitizer.h"
#include "gst_test.h"

#define MEASURE "awb=false ae=false transfer=linear sharpen=0 defect-threshold=0"

static guint flat(guint x, guint y, gpointer data)
{
	(void)x;
	(void)y;
	return GPOINTER_TO_UINT(data);
}

/* RGGB with a colour per site: data points at guint[3] = R, G, B. */
static guint rggb(guint x, guint y, gpointer data)
{
	const guint *rgb = data;

	return (y & 1) == 0 ? ((x & 1) == 0 ? rgb[0] : rgb[1]) : ((x & 1) == 0 ? rgb[1] : rgb[2]);
}

static guint noise(guint x, guint y, gpointer data)
{
	return (guint)((x * 7919u + y * 104729u + (x * y) * 31u) % GPOINTER_TO_UINT(data));
}

/* Push @in, pull the output and map it as a video frame; returns its caps' info in @info. */
static GstBuffer *push_pull(GstHarness *h, GstBuffer *in, GstVideoInfo *info)
{
	GstBuffer *out;
	GstCaps *caps;

	fail_unless_equals_int(gst_harness_push(h, in), GST_FLOW_OK);
	out = gst_harness_pull(h);
	fail_unless(out != NULL);
	caps = gst_pad_get_current_caps(h->sinkpad);
	fail_unless(gst_video_info_from_caps(info, caps));
	gst_caps_unref(caps);
	return out;
}

/* Every sample of component @c of an RGB frame is within @tol of @want. */
static void check_rgb_plane(GstBuffer *buf, const GstVideoInfo *info, guint c, guint want, guint tol)
{
	GstVideoFrame f;

	fail_unless(gst_video_frame_map(&f, info, buf, GST_MAP_READ));
	for (gint y = 0; y < GST_VIDEO_INFO_HEIGHT(info); y++) {
		/* Component c of RGB or BGRx: where it lies in the pixel and how far apart pixels are. */
		const guint8 *row = (const guint8 *)GST_VIDEO_FRAME_COMP_DATA(&f, c) + y * GST_VIDEO_FRAME_COMP_STRIDE(&f, c);

		for (gint x = 0; x < GST_VIDEO_INFO_WIDTH(info); x++) {
			guint v = row[GST_VIDEO_FRAME_COMP_PSTRIDE(&f, c) * x];

			fail_unless(v + tol >= want && v <= want + tol, "pixel (%d,%d) channel %u = %u, expected %u +- %u",
				    x, y, c, v, want, tol);
		}
	}
	gst_video_frame_unmap(&f);
}

GST_START_TEST(test_caps_names)
{
	fail_unless_equals_int(cisp_gst_bayer_format("rggb"), CISP_FMT_SRGGB8);
	fail_unless_equals_int(cisp_gst_bayer_format("bggr"), CISP_FMT_SBGGR8);
	fail_unless_equals_int(cisp_gst_bayer_format("grbg10le"), CISP_FMT_SGRBG10);
	fail_unless_equals_int(cisp_gst_bayer_format("gbrg12le"), CISP_FMT_SGBRG12);
	fail_unless_equals_int(cisp_gst_bayer_format("rggb14le"), CISP_FMT_SRGGB14);
	fail_unless_equals_int(cisp_gst_bayer_format("bggr16le"), CISP_FMT_SBGGR16);
	fail_unless_equals_int(cisp_gst_bayer_format("rggb10be"), 0);
	fail_unless_equals_int(cisp_gst_bayer_format("rggb10"), 0);
	fail_unless_equals_int(cisp_gst_bayer_format(NULL), 0);
	fail_unless_equals_string(cisp_gst_bayer_name(CISP_FMT_SGRBG12), "grbg12le");
	fail_unless_equals_string(cisp_gst_bayer_name(CISP_FMT_SBGGR8), "bggr");
	fail_unless(cisp_gst_bayer_name(CISP_FMT_SRGGB10P) == NULL);
	fail_unless(cisp_gst_bayer_name(CISP_FMT_NV12) == NULL);
	fail_unless_equals_int(cisp_gst_output_format(GST_VIDEO_FORMAT_NV12), CISP_FMT_NV12);
	fail_unless_equals_int(cisp_gst_output_format(GST_VIDEO_FORMAT_I420), CISP_FMT_I420);
	fail_unless_equals_int(cisp_gst_output_format(GST_VIDEO_FORMAT_RGB), CISP_FMT_RGB888);
	fail_unless_equals_int(cisp_gst_output_format(GST_VIDEO_FORMAT_BGRx), CISP_FMT_XBGR32);
	fail_unless_equals_int(cisp_gst_output_format(GST_VIDEO_FORMAT_RGBx), 0);
	/* plugins-bad's row layout: rounded up to 4 bytes. */
	fail_unless_equals_int(cisp_gst_bayer_stride(CISP_FMT_SRGGB8, 18), 20);
	fail_unless_equals_int(cisp_gst_bayer_stride(CISP_FMT_SRGGB8, 16), 16);
	fail_unless_equals_int(cisp_gst_bayer_stride(CISP_FMT_SRGGB12, 18), 36);
}
GST_END_TEST;

/* Flat 8-bit and 10-bit fields come out as the same grey: the white level maps to 255. */
GST_START_TEST(test_flat_known_answers)
{
	static const guint values8[] = { 0, 37, 128, 255 };
	GstVideoInfo info;

	for (guint i = 0; i < G_N_ELEMENTS(values8); i++) {
		GstHarness *h = gst_test_isp_harness(MEASURE, "video/x-bayer,format=grbg,width=32,height=16,framerate=30/1",
						     "video/x-raw,format=RGB");
		GstBuffer *out = push_pull(h, gst_test_bayer(32, 16, 1, 32, flat, GUINT_TO_POINTER(values8[i])), &info);

		fail_unless_equals_int(GST_VIDEO_INFO_WIDTH(&info), 32);
		fail_unless_equals_int(GST_VIDEO_INFO_HEIGHT(&info), 16);
		for (guint c = 0; c < 3; c++)
			check_rgb_plane(out, &info, c, values8[i], 0);
		gst_buffer_unref(out);
		gst_harness_teardown(h);
	}
	{
		/* 10 bits, 600 of 1023: round(600 * 255 / 1023) = 150. */
		GstHarness *h = gst_test_isp_harness(MEASURE, "video/x-bayer,format=bggr10le,width=32,height=16",
						     "video/x-raw,format=RGB");
		GstBuffer *out = push_pull(h, gst_test_bayer(32, 16, 2, 64, flat, GUINT_TO_POINTER(600)), &info);

		for (guint c = 0; c < 3; c++)
			check_rgb_plane(out, &info, c, 150, 0);
		gst_buffer_unref(out);
		gst_harness_teardown(h);
	}
	{
		/* Black and white levels: 10-bit black 64, white 1000; 532 is half way: 127.5 -> 127 or 128. */
		GstHarness *h = gst_test_isp_harness(MEASURE " black-level=64 white-level=1000",
						     "video/x-bayer,format=rggb10le,width=32,height=16",
						     "video/x-raw,format=RGB");
		GstBuffer *out = push_pull(h, gst_test_bayer(32, 16, 2, 64, flat, GUINT_TO_POINTER(532)), &info);
		for (guint c = 0; c < 3; c++)
			check_rgb_plane(out, &info, c, 128, 1);
		gst_buffer_unref(out);
		gst_harness_teardown(h);
	}
}
GST_END_TEST;

/* Manual white balance and digital gain; then the automatic ones on a colour cast and a dark field. */
GST_START_TEST(test_gains)
{
	GstVideoInfo info;
	GstHarness *h;
	GstElement *isp;
	GstBuffer *out;
	guint cast[3] = { 60, 120, 90 };

	h = gst_test_isp_harness(MEASURE " red-gain=2.0 blue-gain=1.5 digital-gain=1.0",
				 "video/x-bayer,format=rggb,width=32,height=32", "video/x-raw,format=RGB");
	out = push_pull(h, gst_test_bayer(32, 32, 1, 32, flat, GUINT_TO_POINTER(64)), &info);
	check_rgb_plane(out, &info, 0, 128, 0);
	check_rgb_plane(out, &info, 1, 64, 0);
	check_rgb_plane(out, &info, 2, 96, 0);
	gst_buffer_unref(out);
	/* A property changed while playing applies from the next frame. */
	isp = gst_harness_find_element(h, "cispisp");
	g_object_set(isp, "red-gain", 1.0, "blue-gain", 1.0, "digital-gain", 2.0, NULL);
	gst_object_unref(isp);
	out = push_pull(h, gst_test_bayer(32, 32, 1, 32, flat, GUINT_TO_POINTER(64)), &info);
	for (guint c = 0; c < 3; c++)
		check_rgb_plane(out, &info, c, 128, 0);
	gst_buffer_unref(out);
	gst_harness_teardown(h);

	/* Grey world turns the cast grey at green's level, from the first frame on. */
	h = gst_test_isp_harness("awb=true ae=false transfer=linear sharpen=0 defect-threshold=0",
				 "video/x-bayer,format=rggb,width=32,height=32", "video/x-raw,format=RGB");
	for (int frame = 0; frame < 2; frame++) {
		out = push_pull(h, gst_test_bayer(32, 32, 1, 32, rggb, cast), &info);
		for (guint c = 0; c < 3; c++)
			check_rgb_plane(out, &info, c, 120, 1);
		gst_buffer_unref(out);
	}
	gst_harness_teardown(h);

	/* Auto exposure brings a flat 20 to 18% grey (46), and ev=1 to twice that. */
	h = gst_test_isp_harness("awb=false ae=true transfer=linear sharpen=0 defect-threshold=0",
				 "video/x-bayer,format=rggb,width=32,height=32", "video/x-raw,format=RGB");
	out = push_pull(h, gst_test_bayer(32, 32, 1, 32, flat, GUINT_TO_POINTER(20)), &info);
	for (guint c = 0; c < 3; c++)
		check_rgb_plane(out, &info, c, (guint)lround(0.18 * 255), 1);
	gst_buffer_unref(out);
	gst_harness_teardown(h);
	h = gst_test_isp_harness("awb=false ae=true ev=1 transfer=linear sharpen=0 defect-threshold=0",
				 "video/x-bayer,format=rggb,width=32,height=32", "video/x-raw,format=RGB");
	out = push_pull(h, gst_test_bayer(32, 32, 1, 32, flat, GUINT_TO_POINTER(20)), &info);
	for (guint c = 0; c < 3; c++)
		check_rgb_plane(out, &info, c, (guint)lround(0.36 * 255), 1);
	gst_buffer_unref(out);
	gst_harness_teardown(h);
}
GST_END_TEST;

/* NV12 and I420: grey 128 at BT.709 limited range is Y 16 + 219 * 128 / 255, chroma 128. */
GST_START_TEST(test_yuv_outputs)
{
	static const gchar *const formats[] = { "NV12", "I420" };
	const guint y_want = (guint)lround(16 + 219 * 128 / 255.0);

	for (guint i = 0; i < G_N_ELEMENTS(formats); i++) {
		gchar *out_caps = g_strdup_printf("video/x-raw,format=%s", formats[i]);
		GstHarness *h = gst_test_isp_harness(MEASURE, "video/x-bayer,format=gbrg,width=32,height=16", out_caps);
		GstVideoInfo info;
		GstBuffer *out = push_pull(h, gst_test_bayer(32, 16, 1, 32, flat, GUINT_TO_POINTER(128)), &info);
		GstVideoFrame f;
		GstCaps *caps = gst_pad_get_current_caps(h->sinkpad);
		const GstStructure *s = gst_caps_get_structure(caps, 0);

		/* What the ISP produces is what the caps say. */
		fail_unless_equals_string(gst_structure_get_string(s, "chroma-site"), "jpeg");
		fail_unless_equals_int(info.colorimetry.matrix, GST_VIDEO_COLOR_MATRIX_BT709);
		fail_unless_equals_int(info.colorimetry.range, GST_VIDEO_COLOR_RANGE_16_235);
		fail_unless_equals_int(info.colorimetry.transfer, GST_VIDEO_TRANSFER_GAMMA10);
		gst_caps_unref(caps);
		fail_unless(gst_video_frame_map(&f, &info, out, GST_MAP_READ));
		for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&f); p++) {
			const guint8 *d = GST_VIDEO_FRAME_PLANE_DATA(&f, p);
			guint want = p == 0 ? y_want : 128, w = GST_VIDEO_FRAME_COMP_WIDTH(&f, p),
			      rows = GST_VIDEO_FRAME_COMP_HEIGHT(&f, p);

			if (p == 1 && GST_VIDEO_INFO_FORMAT(&info) == GST_VIDEO_FORMAT_NV12)
				w *= 2; /* Cb, Cr pairs */
			for (guint y = 0; y < rows; y++)
				for (guint x = 0; x < w; x++)
					fail_unless(abs((int)d[y * GST_VIDEO_FRAME_PLANE_STRIDE(&f, p) + x] - (int)want) <= 1,
						    "%s plane %u (%u,%u) = %u, expected %u", formats[i], p, x, y,
						    d[y * GST_VIDEO_FRAME_PLANE_STRIDE(&f, p) + x], want);
		}
		gst_video_frame_unmap(&f);
		gst_buffer_unref(out);
		gst_harness_teardown(h);
		g_free(out_caps);
	}
}
GST_END_TEST;

/* BGRx holds the same pixels as RGB, reordered, with the fourth byte 255; the manual gains land per channel. */
GST_START_TEST(test_bgrx_output)
{
	static const gchar *const formats[] = { "RGB", "BGRx" };
	GstBuffer *outs[2];
	GstVideoInfo infos[2];
	GstVideoFrame rgb, bgrx;
	GstHarness *h;

	for (guint i = 0; i < 2; i++) {
		gchar *out_caps = g_strdup_printf("video/x-raw,format=%s", formats[i]);

		h = gst_test_isp_harness("threads=2", "video/x-bayer,format=grbg12le,width=70,height=24", out_caps);
		outs[i] = push_pull(h, gst_test_bayer(70, 24, 2, 140, noise, GUINT_TO_POINTER(4096)), &infos[i]);
		gst_harness_teardown(h);
		g_free(out_caps);
	}
	fail_unless_equals_int(GST_VIDEO_INFO_FORMAT(&infos[1]), GST_VIDEO_FORMAT_BGRx);
	fail_unless(gst_video_frame_map(&rgb, &infos[0], outs[0], GST_MAP_READ));
	fail_unless(gst_video_frame_map(&bgrx, &infos[1], outs[1], GST_MAP_READ));
	for (gint y = 0; y < 24; y++) {
		const guint8 *a = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA(&rgb, 0) + y * GST_VIDEO_FRAME_PLANE_STRIDE(&rgb, 0);
		const guint8 *b = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA(&bgrx, 0) + y * GST_VIDEO_FRAME_PLANE_STRIDE(&bgrx, 0);

		for (gint x = 0; x < 70; x++)
			fail_unless(b[4 * x] == a[3 * x + 2] && b[4 * x + 1] == a[3 * x + 1] && b[4 * x + 2] == a[3 * x] &&
					    b[4 * x + 3] == 255,
				    "pixel (%d,%d): BGRx %u,%u,%u,%u against RGB %u,%u,%u", x, y, b[4 * x], b[4 * x + 1],
				    b[4 * x + 2], b[4 * x + 3], a[3 * x], a[3 * x + 1], a[3 * x + 2]);
	}
	gst_video_frame_unmap(&rgb);
	gst_video_frame_unmap(&bgrx);
	gst_buffer_unref(outs[0]);
	gst_buffer_unref(outs[1]);

	h = gst_test_isp_harness(MEASURE " red-gain=2.0 blue-gain=1.5 digital-gain=1.0",
				 "video/x-bayer,format=rggb,width=32,height=32", "video/x-raw,format=BGRx");
	outs[0] = push_pull(h, gst_test_bayer(32, 32, 1, 32, flat, GUINT_TO_POINTER(64)), &infos[0]);
	check_rgb_plane(outs[0], &infos[0], 0, 128, 0);
	check_rgb_plane(outs[0], &infos[0], 1, 64, 0);
	check_rgb_plane(outs[0], &infos[0], 2, 96, 0);
	gst_buffer_unref(outs[0]);
	gst_harness_teardown(h);
}
GST_END_TEST;

/* Downstream asking for full range BT.601 gets it, and 2x smaller frames through the ISP's scaler. */
GST_START_TEST(test_negotiated_colorimetry_and_size)
{
	GstHarness *h = gst_test_isp_harness(MEASURE, "video/x-bayer,format=rggb,width=64,height=48",
					     "video/x-raw,format=I420,width=32,height=24,colorimetry=1:4:0:0");
	GstVideoInfo info;
	GstBuffer *out = push_pull(h, gst_test_bayer(64, 48, 1, 64, flat, GUINT_TO_POINTER(200)), &info);
	GstVideoFrame f;

	fail_unless_equals_int(GST_VIDEO_INFO_WIDTH(&info), 32);
	fail_unless_equals_int(GST_VIDEO_INFO_HEIGHT(&info), 24);
	fail_unless_equals_int(info.colorimetry.range, GST_VIDEO_COLOR_RANGE_0_255);
	fail_unless_equals_int(info.colorimetry.matrix, GST_VIDEO_COLOR_MATRIX_BT601);
	fail_unless(gst_video_frame_map(&f, &info, out, GST_MAP_READ));
	/* Full range grey: Y = 200 whatever the matrix. */
	fail_unless_equals_int(((guint8 *)GST_VIDEO_FRAME_PLANE_DATA(&f, 0))[5 * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0) + 7], 200);
	fail_unless_equals_int(((guint8 *)GST_VIDEO_FRAME_PLANE_DATA(&f, 1))[3], 128);
	gst_video_frame_unmap(&f);
	gst_buffer_unref(out);
	gst_harness_teardown(h);
}
GST_END_TEST;

/* Input rows of any stride through a video meta; without one, plugins-bad's 4-byte rounding. */
GST_START_TEST(test_input_strides)
{
	GstVideoInfo info;
	GstHarness *h = gst_test_isp_harness(MEASURE, "video/x-bayer,format=rggb,width=18,height=16",
					     "video/x-raw,format=RGB");
	gsize offset[GST_VIDEO_MAX_PLANES] = { 48 };
	gint stride[GST_VIDEO_MAX_PLANES] = { 48 };
	GstBuffer *in, *out;

	/* 18 columns: rows of 20 bytes; the padding holds 0xa5, which must not show. */
	out = push_pull(h, gst_test_bayer(18, 16, 1, 20, flat, GUINT_TO_POINTER(100)), &info);
	check_rgb_plane(out, &info, 1, 100, 0);
	gst_buffer_unref(out);
	/* Rows of 48 bytes from the second row on: a frame inside a larger buffer. */
	in = gst_test_bayer(18, 17, 1, 48, flat, GUINT_TO_POINTER(77));
	gst_buffer_add_video_meta_full(in, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8, 18, 16, 1, offset, stride);
	out = push_pull(h, in, &info);
	check_rgb_plane(out, &info, 1, 77, 0);
	gst_buffer_unref(out);
	gst_harness_teardown(h);
}
GST_END_TEST;

/* Results do not depend on the thread count. */
GST_START_TEST(test_threads_bit_exact)
{
	GstBuffer *outs[2];
	GstVideoInfo info;
	GstMapInfo a, b;

	for (guint i = 0; i < 2; i++) {
		GstHarness *h = gst_test_isp_harness(i ? "threads=3" : "threads=1",
						     "video/x-bayer,format=grbg12le,width=96,height=64",
						     "video/x-raw,format=NV12");

		outs[i] = push_pull(h, gst_test_bayer(96, 64, 2, 192, noise, GUINT_TO_POINTER(4096)), &info);
		gst_harness_teardown(h);
	}
	gst_buffer_map(outs[0], &a, GST_MAP_READ);
	gst_buffer_map(outs[1], &b, GST_MAP_READ);
	fail_unless_equals_int(a.size, b.size);
	fail_unless(memcmp(a.data, b.data, a.size) == 0);
	gst_buffer_unmap(outs[0], &a);
	gst_buffer_unmap(outs[1], &b);
	gst_buffer_unref(outs[0]);
	gst_buffer_unref(outs[1]);
}
GST_END_TEST;

/*
 * isp=vulkan gives the software ISP's bytes, frame after frame: with defect
 * correction, white balance and exposure from the element's own statistics
 * (which the Vulkan backend reduces on the GPU), so a statistic that differed
 * would change the next frame.
 */
GST_START_TEST(test_vulkan_bit_exact)
{
	GstBuffer *outs[2][3];
	GstVideoInfo info;
	GstMapInfo a, b;

	if (!gst_test_have_vulkan())
		return;
	for (guint i = 0; i < 2; i++) {
		GstHarness *h = gst_test_isp_harness(i ? "isp=vulkan defect-threshold=2000" : "defect-threshold=2000",
						     "video/x-bayer,format=bggr10le,width=96,height=64",
						     "video/x-raw,format=NV12");

		for (guint k = 0; k < 3; k++)
			outs[i][k] = push_pull(h, gst_test_bayer(96, 64, 2, 192, noise, GUINT_TO_POINTER(300 + 200 * k)),
					       &info);
		gst_harness_teardown(h);
	}
	for (guint k = 0; k < 3; k++) {
		gst_buffer_map(outs[0][k], &a, GST_MAP_READ);
		gst_buffer_map(outs[1][k], &b, GST_MAP_READ);
		fail_unless_equals_int(a.size, b.size);
		fail_unless(memcmp(a.data, b.data, a.size) == 0, "frame %u differs", k);
		gst_buffer_unmap(outs[0][k], &a);
		gst_buffer_unmap(outs[1][k], &b);
		gst_buffer_unref(outs[0][k]);
		gst_buffer_unref(outs[1][k]);
	}
}
GST_END_TEST;

/* New input caps mid-stream (size, pattern, depth), then downstream asking for another format. */
GST_START_TEST(test_renegotiation)
{
	GstHarness *h = gst_test_isp_harness(MEASURE, "video/x-bayer,format=rggb,width=32,height=16",
					     "video/x-raw,format=RGB");
	GstVideoInfo info;
	GstBuffer *out;

	out = push_pull(h, gst_test_bayer(32, 16, 1, 32, flat, GUINT_TO_POINTER(50)), &info);
	check_rgb_plane(out, &info, 0, 50, 0);
	gst_buffer_unref(out);

	gst_harness_set_src_caps_str(h, "video/x-bayer,format=gbrg16le,width=48,height=20");
	out = push_pull(h, gst_test_bayer(48, 20, 2, 96, flat, GUINT_TO_POINTER(257 * 90)), &info);
	fail_unless_equals_int(GST_VIDEO_INFO_WIDTH(&info), 48);
	fail_unless_equals_int(GST_VIDEO_INFO_HEIGHT(&info), 20);
	check_rgb_plane(out, &info, 2, 90, 0);
	gst_buffer_unref(out);

	gst_harness_set_sink_caps_str(h, "video/x-raw,format=NV12");
	out = push_pull(h, gst_test_bayer(48, 20, 2, 96, flat, GUINT_TO_POINTER(257 * 90)), &info);
	fail_unless_equals_int(GST_VIDEO_INFO_FORMAT(&info), GST_VIDEO_FORMAT_NV12);
	gst_buffer_unref(out);
	gst_harness_teardown(h);
}
GST_END_TEST;

/*
 * Push @in into a cispisp taking @caps: the push fails with GST_FLOW_ERROR, no
 * frame comes out, and the error on the bus contains @needle.
 */
static void expect_buffer_refused(const gchar *caps, GstBuffer *in, const gchar *needle)
{
	GstHarness *h = gst_test_isp_harness(NULL, caps, "video/x-raw,format=RGB");
	GstBus *bus = gst_bus_new();
	GstMessage *msg;
	GError *err = NULL;

	gst_element_set_bus(h->element, bus);
	fail_unless_equals_int(gst_harness_push(h, in), GST_FLOW_ERROR);
	fail_unless(gst_harness_try_pull(h) == NULL);
	msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
	fail_unless(msg != NULL);
	gst_message_parse_error(msg, &err, NULL);
	fail_unless(strstr(err->message, needle) != NULL, "'%s' lacks '%s'", err->message, needle);
	g_error_free(err);
	gst_message_unref(msg);
	gst_element_set_bus(h->element, NULL);
	gst_object_unref(bus);
	gst_harness_teardown(h);
}

/* A buffer smaller than its caps say fails the stream with a message that says so. */
GST_START_TEST(test_short_buffer)
{
	expect_buffer_refused("video/x-bayer,format=rggb,width=32,height=32", gst_buffer_new_allocate(NULL, 100, NULL),
			      "100 bytes is too small for a 32x32 rggb frame");
}
GST_END_TEST;

/* A buffer of @size bytes of 100 with a video meta for a @width x @height 8-bit frame at @offset, @stride. */
static GstBuffer *with_meta(gsize size, guint width, guint height, gsize offset, gint stride)
{
	GstBuffer *buf = gst_buffer_new_allocate(NULL, size, NULL);
	gsize offsets[GST_VIDEO_MAX_PLANES] = { offset };
	gint strides[GST_VIDEO_MAX_PLANES] = { stride };

	gst_buffer_memset(buf, 0, 100, size);
	gst_buffer_add_video_meta_full(buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8, width, height, 1,
				       offsets, strides);
	return buf;
}

/*
 * Hostile buffers: a video meta whose offset or stride makes the frame's end
 * wrap round 2^64 (a plain bounds check passes it and the ISP reads the
 * memory before the buffer: foreign rows in a small frame, a crash in a large
 * one), a negative stride, and caps far larger than the buffer. Each fails
 * the stream with a message and no frame; nothing is read outside the
 * buffer (the ASan build would stop on it).
 */
GST_START_TEST(test_hostile_buffers)
{
	const gchar *small = "video/x-bayer,format=rggb,width=64,height=48";
	const gchar *large = "video/x-bayer,format=rggb,width=4096,height=4096";

	/* offset + 64 * 47 + 64 = 2^64 + 64: wraps to 64, inside the 3072-byte buffer. */
	expect_buffer_refused(small, with_meta(64 * 48, 64, 48, G_MAXSIZE - 64 * 48 + 65, 64),
			      "Input buffer of 3072 bytes is too small for a 64x48 rggb frame (64 bytes a row, stride 64, "
			      "from byte 18446744073709548608)");
	expect_buffer_refused(small, with_meta(64 * 48, 64, 48, G_MAXSIZE, 64), "is too small for a 64x48 rggb");
	/* 4096 rows of 4096 bytes from 16 MiB before a 16-byte buffer: the sum wraps to 16. */
	expect_buffer_refused(large, with_meta(16, 4096, 4096, G_MAXSIZE - 4096 * 4096 + 17, 4096),
			      "16 bytes is too small for a 4096x4096 rggb frame");
	/* Rows 2 GiB apart from 94 GiB before the buffer: the sum wraps to 64. */
	expect_buffer_refused(small, with_meta(64 * 48, 64, 48, G_MAXSIZE - (gsize)0x7fffffff * 47 + 1, 0x7fffffff),
			      "is too small for a 64x48 rggb");
	expect_buffer_refused(small, with_meta(64 * 48, 64, 48, 64 * 47, -64), "stride -64");
	/* Huge caps, a 16-byte buffer without a meta. */
	expect_buffer_refused(large, gst_buffer_new_allocate(NULL, 16, NULL),
			      "16 bytes is too small for a 4096x4096 rggb frame");
	expect_buffer_refused("video/x-bayer,format=rggb16le,width=16384,height=16384",
			      gst_buffer_new_allocate(NULL, 16, NULL), "16 bytes is too small for a 16384x16384");
}
GST_END_TEST;

/*
 * A downstream buffer pool that hands out 64x48 RGB buffers whose video meta
 * says rows twice as far apart as they are: the frame maps (GStreamer checks
 * only the first byte) but its rows run 9 KiB past the buffer.
 */
static GstFlowReturn stretched_alloc(GstBufferPool *pool, GstBuffer **buf, GstBufferPoolAcquireParams *params)
{
	gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
	gint stride[GST_VIDEO_MAX_PLANES] = { 2 * 64 * 3 };

	(void)pool;
	(void)params;
	*buf = gst_buffer_new_allocate(NULL, 64 * 48 * 3, NULL);
	gst_buffer_add_video_meta_full(*buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_RGB, 64, 48, 1, offset, stride);
	return GST_FLOW_OK;
}

static void stretched_pool_class_init(gpointer klass, gpointer data)
{
	(void)data;
	GST_BUFFER_POOL_CLASS(klass)->alloc_buffer = stretched_alloc;
}

/* Answer cispisp's allocation query (after the harness has) with the stretched pool. */
static GstPadProbeReturn offer_stretched_pool(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	GstQuery *query = GST_PAD_PROBE_INFO_QUERY(info);

	(void)pad;
	if (GST_QUERY_TYPE(query) == GST_QUERY_ALLOCATION && (info->type & GST_PAD_PROBE_TYPE_PULL)) {
		GstBufferPool *pool = g_object_new(GPOINTER_TO_SIZE(data), NULL);

		gst_query_add_allocation_pool(query, pool, 64 * 48 * 3, 0, 0);
		gst_object_unref(pool);
	}
	return GST_PAD_PROBE_OK;
}

/* A downstream pool whose buffers' video meta puts the rows outside them: an error, no write past the buffer. */
GST_START_TEST(test_hostile_output_pool)
{
	GType type = g_type_register_static_simple(GST_TYPE_BUFFER_POOL, "CispTestStretchedPool",
						   sizeof(GstBufferPoolClass), stretched_pool_class_init,
						   sizeof(GstBufferPool), NULL, 0);
	GstHarness *h = gst_test_isp_harness(NULL, "video/x-bayer,format=rggb,width=64,height=48",
					     "video/x-raw,format=RGB,width=64,height=48");
	GstPad *src = gst_element_get_static_pad(h->element, "src");
	GstBus *bus = gst_bus_new();
	GstMessage *msg;
	GError *err = NULL;

	gst_harness_add_propose_allocation_meta(h, GST_VIDEO_META_API_TYPE, NULL);
	gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, offer_stretched_pool, GSIZE_TO_POINTER(type), NULL);
	gst_element_set_bus(h->element, bus);
	fail_unless_equals_int(gst_harness_push(h, gst_test_bayer(64, 48, 1, 64, flat, GUINT_TO_POINTER(100))),
			       GST_FLOW_ERROR);
	msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
	fail_unless(msg != NULL);
	gst_message_parse_error(msg, &err, NULL);
	fail_unless(strstr(err->message, "Output buffer's plane 0 (stride 384, from byte 0 of 9216) cannot hold 48 rows "
					 "of 192 bytes") != NULL,
		    "%s", err->message);
	g_error_free(err);
	gst_message_unref(msg);
	gst_element_set_bus(h->element, NULL);
	gst_object_unref(bus);
	gst_object_unref(src);
	gst_harness_teardown(h);
}
GST_END_TEST;

#define SOURCE "videotestsrc num-buffers=3 ! video/x-raw,width=64,height=48 ! rgb2bayer ! "

static void expect_error(const gchar *element, const gchar *needle)
{
	gchar *desc = g_strdup_printf(SOURCE "%s ! fakesink", element), *msg = NULL;

	fail_if(gst_test_run(desc, &msg), "'%s' ran", desc);
	fail_unless(msg && strstr(msg, needle), "'%s': message '%s' lacks '%s'", desc, msg, needle);
	g_free(msg);
	g_free(desc);
}

/* Bad settings stop the pipeline with a message that names the setting and the problem. */
GST_START_TEST(test_bad_settings)
{
	GstElement *isp;
	gdouble ev;

	expect_error("cispisp params-file=/nonexistent/p.yaml", "params-file '/nonexistent/p.yaml'");
	expect_error("cispisp params=\"{blc: {black: [0, 0, 0, 0], white: 70000}}\"",
		     "params: line 1: blc.white: 70000 is out of range 0..65535");
	expect_error("cispisp params=\"{sharpen: {strength: 1.0}}\"", "params: line 1: sharpen: missing key");
	expect_error("cispisp black-level=200 white-level=100",
		     "black-level 200 and white-level 100: the black level must be below the white level");
	expect_error("cispisp black-level=255", "black-level 255 and white-level 255 do not fit 8-bit input");
	expect_error("cispisp white-level=1023", "do not fit 8-bit input (need black < white <= 255)");
	/* Levels that leave too little range: the ISP's check of the BLC block says so. */
	expect_error("cispisp black-level=200 white-level=250", "blc");
	/* A crop outside the frame passes the YAML check but not the frame's limits. */
	expect_error("cispisp params=\"{crop_main: {enable: true, x: 0, y: 0, width: 128, height: 48}}\"", "crop");
	expect_error("cispisp ! video/x-raw,format=I420,colorimetry=1:2:0:0", "its matrix is not one the ISP converts");

	/* Out-of-range property values are refused by GObject and leave the value as it was. */
	isp = gst_element_factory_make("cispisp", NULL);
	ASSERT_WARNING(g_object_set(isp, "ev", 10.0, NULL));
	g_object_get(isp, "ev", &ev, NULL);
	fail_unless(ev == 0.0);
	ASSERT_WARNING(g_object_set(isp, "max-gain", 0.5, NULL));
	gst_object_unref(isp);
}
GST_END_TEST;

/*
 * The last frame of a description ending in "appsink name=out", run to EOS.
 * Every sensor frame must arrive, numbered from 0: a frame dropped on the
 * way would leave the comparisons below comparing different frames.
 */
static GstBuffer *last_frame(const gchar *description)
{
	GError *error = NULL;
	GstElement *pipeline = gst_parse_launch(description, &error), *sink;
	GstBuffer *last = NULL;
	GstSample *sample;
	guint64 n = 0;

	fail_unless(pipeline != NULL && !error, "cannot parse '%s': %s", description, error ? error->message : "");
	sink = gst_bin_get_by_name(GST_BIN(pipeline), "out");
	fail_unless(sink != NULL);
	gst_element_set_state(pipeline, GST_STATE_PLAYING);
	while ((sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 60 * GST_SECOND))) {
		fail_unless_equals_uint64(GST_BUFFER_OFFSET(gst_sample_get_buffer(sample)), n++);
		gst_clear_buffer(&last);
		last = gst_buffer_ref(gst_sample_get_buffer(sample));
		gst_sample_unref(sample);
	}
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(sink);
	gst_object_unref(pipeline);
	fail_unless(last != NULL, "no frame from '%s'", description);
	return last;
}

/*
 * With the camera's tuning file, cispisp runs the camera's 3A loop and
 * parameters: a virtual camera's raw stream through it gives the camera's own
 * pictures, to the bit, once the loops have settled (the first frames differ
 * while the camera's exposure moves, which cispisp sees only in the data).
 * The three runs must see the same frames: in real time a loaded machine makes
 * the sensor drop frames (docs/camera.md), so its frames are rendered on demand.
 */
#define TEST_CAMERA "cispsrc camera=virtual:cisp-test sensor-options=realtime=0 num-buffers=20 ! "

GST_START_TEST(test_tuning_file)
{
	const gchar *tuning = CISP_SOURCE_ROOT "/data/tuning/cisp-test.yaml";
	gchar *through = g_strdup_printf(TEST_CAMERA "video/x-bayer ! cispisp tuning=%s ! video/x-raw,format=RGB ! "
					 "appsink name=out sync=false",
					 tuning);
	GstBuffer *camera = last_frame(TEST_CAMERA "video/x-raw,format=RGB ! appsink name=out sync=false");
	GstBuffer *isp = last_frame(through);
	/* The sensor model's name finds the same file on the tuning search path, as cispsrc does. */
	GstBuffer *named = last_frame(TEST_CAMERA "video/x-bayer ! cispisp tuning=cisp-test ! video/x-raw,format=RGB ! "
				      "appsink name=out sync=false");
	GstMapInfo a, b, c;

	fail_unless(gst_buffer_map(camera, &a, GST_MAP_READ) && gst_buffer_map(isp, &b, GST_MAP_READ) &&
		    gst_buffer_map(named, &c, GST_MAP_READ));
	fail_unless_equals_uint64(a.size, b.size);
	fail_unless(memcmp(a.data, b.data, a.size) == 0, "cispisp with the camera's tuning differs from the camera");
	fail_unless_equals_uint64(b.size, c.size);
	fail_unless(memcmp(b.data, c.data, b.size) == 0, "tuning=cisp-test differs from the file's path");
	gst_buffer_unmap(camera, &a);
	gst_buffer_unmap(isp, &b);
	gst_buffer_unmap(named, &c);
	gst_buffer_unref(camera);
	gst_buffer_unref(isp);
	gst_buffer_unref(named);
	g_free(through);

	expect_error("cispisp tuning=/nonexistent/t.yaml", "Tuning file: ");
	expect_error("cispisp tuning=no-such-model", "no tuning file for sensor model 'no-such-model'");
}
GST_END_TEST;

/* PLAYING -> NULL -> PLAYING several times on the same pipeline, each run to EOS. */
GST_START_TEST(test_state_changes)
{
	GstElement *pipeline = gst_parse_launch(SOURCE "cispisp ! videoconvert ! fakesink", NULL);
	GstBus *bus = gst_element_get_bus(pipeline);

	for (int i = 0; i < 5; i++) {
		GstMessage *msg;

		fail_unless(gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
		msg = gst_bus_timed_pop_filtered(bus, 30 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
		fail_unless(msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_EOS, "run %d did not reach EOS", i);
		gst_message_unref(msg);
		fail_unless_equals_int(gst_element_set_state(pipeline, i % 2 ? GST_STATE_NULL : GST_STATE_READY),
				       GST_STATE_CHANGE_SUCCESS);
	}
	fail_unless_equals_int(gst_element_set_state(pipeline, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
	gst_object_unref(bus);
	gst_object_unref(pipeline);
}
GST_END_TEST;

/* ---- the rgb2bayer round trip on real images ---- */

struct score {
	double mse;         /* mean squared error over the three channels */
	double bias[3];     /* mean difference per channel */
};

/* Compare two RGB frames away from a 10-pixel border (as the peers kit scores demosaics). */
static struct score compare(GstSample *ref, GstSample *test)
{
	GstVideoInfo ri, ti;
	GstVideoFrame rf, tf;
	struct score s = { 0 };
	double n = 0, sum[3] = { 0 };
	const gint border = 10;

	fail_unless(gst_video_info_from_caps(&ri, gst_sample_get_caps(ref)));
	fail_unless(gst_video_info_from_caps(&ti, gst_sample_get_caps(test)));
	fail_unless_equals_int(GST_VIDEO_INFO_WIDTH(&ri), GST_VIDEO_INFO_WIDTH(&ti));
	fail_unless_equals_int(GST_VIDEO_INFO_HEIGHT(&ri), GST_VIDEO_INFO_HEIGHT(&ti));
	fail_unless(gst_video_frame_map(&rf, &ri, gst_sample_get_buffer(ref), GST_MAP_READ));
	fail_unless(gst_video_frame_map(&tf, &ti, gst_sample_get_buffer(test), GST_MAP_READ));
	for (gint y = border; y < GST_VIDEO_INFO_HEIGHT(&ri) - border; y++) {
		const guint8 *a = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA(&rf, 0) + y * GST_VIDEO_FRAME_PLANE_STRIDE(&rf, 0);
		const guint8 *b = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA(&tf, 0) + y * GST_VIDEO_FRAME_PLANE_STRIDE(&tf, 0);

		for (gint x = border; x < GST_VIDEO_INFO_WIDTH(&ri) - border; x++) {
			for (int c = 0; c < 3; c++) {
				double d = (double)b[3 * x + c] - a[3 * x + c];

				s.mse += d * d;
				sum[c] += d;
			}
			n++;
		}
	}
	gst_video_frame_unmap(&rf);
	gst_video_frame_unmap(&tf);
	s.mse /= 3 * n;
	for (int c = 0; c < 3; c++)
		s.bias[c] = sum[c] / n;
	return s;
}

static double cpsnr(double mse)
{
	return 10 * log10(255.0 * 255.0 / mse);
}

/*
 * Kodak PNG -> rgb2bayer (RGGB, 8 bits) -> cispisp measuring (no white balance,
 * gain, tone, sharpening or defect correction) / bayer2rgb -> RGB, against the
 * PNG. cispisp must be far better than bilinear bayer2rgb and keep colour.
 */
GST_START_TEST(test_kodak_round_trip)
{
	const gchar *data = g_getenv("CISP_TEST_DATA") ? g_getenv("CISP_TEST_DATA") : CISP_SHARED_DATA;
	gchar *dir = g_build_filename(data, "kodak", NULL);
	static const gchar *const names[] = { "cispisp fast", "cispisp quality", "bayer2rgb" };
	static const gchar *const filters[] = {
		"cispisp " MEASURE " demosaic=fast",
		"cispisp " MEASURE " demosaic=quality",
		"bayer2rgb ! videoconvert",
	};
	double total[3] = { 0 }, worst_bias = 0;
	int images = 0;

	if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
		g_print("\n*** SKIPPED test_kodak_round_trip: %s is absent (the shared data set; set CISP_TEST_DATA) ***\n\n",
			dir);
		g_free(dir);
		return;
	}
	/* A sanitizer build develops every sixth image: four, each through all three filters. */
	for (int i = 1; i <= 24; i += TEST_SANITIZED ? 6 : 1) {
		gchar *png = g_strdup_printf("%s/kodim%02d.png", dir, i);
		gchar *desc = g_strdup_printf("filesrc location=%s ! pngdec ! videoconvert ! "
					      "video/x-raw,format=RGB ! appsink name=out", png);
		GstSample *ref = gst_test_pull_sample(desc);

		fail_unless(ref != NULL, "cannot decode %s", png);
		g_free(desc);
		for (int k = 0; k < 3; k++) {
			GstSample *test;
			struct score s;

			desc = g_strdup_printf("filesrc location=%s ! pngdec ! videoconvert ! video/x-raw,format=ARGB ! "
					       "rgb2bayer ! video/x-bayer,format=rggb ! %s ! video/x-raw,format=RGB ! "
					       "appsink name=out", png, filters[k]);
			test = gst_test_pull_sample(desc);
			fail_unless(test != NULL, "%s failed", desc);
			s = compare(ref, test);
			total[k] += cpsnr(s.mse);
			if (k < 2)
				for (int c = 0; c < 3; c++)
					worst_bias = MAX(worst_bias, fabs(s.bias[c]));
			gst_sample_unref(test);
			g_free(desc);
		}
		gst_sample_unref(ref);
		g_free(png);
		images++;
	}
	g_free(dir);
	g_print("Kodak rgb2bayer round trip, %d images, mean CPSNR (10-pixel border): ", images);
	for (int k = 0; k < 3; k++)
		g_print("%s%s %.2f dB", k ? ", " : "", names[k], total[k] / images);
	g_print("; cispisp's largest mean channel shift %.3f levels\n", worst_bias);
	/* Bilinear is about 30 dB on this set; the fast demosaic gains several dB, the quality one more. */
	fail_unless(total[0] / images >= total[2] / images + 4.0);
	fail_unless(total[1] / images >= total[0] / images);
	/* Colour is kept: no channel of any image moves by a level (of 255) on average. */
	fail_unless(worst_bias < 1.0, "mean channel shift %.3f", worst_bias);
}
GST_END_TEST;

static Suite *cispisp_suite(void)
{
	Suite *s = suite_create("cispisp");
	TCase *tc = tcase_create("general");

	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	tcase_add_test(tc, test_caps_names);
	tcase_add_test(tc, test_flat_known_answers);
	tcase_add_test(tc, test_gains);
	tcase_add_test(tc, test_yuv_outputs);
	tcase_add_test(tc, test_bgrx_output);
	tcase_add_test(tc, test_negotiated_colorimetry_and_size);
	tcase_add_test(tc, test_input_strides);
	tcase_add_test(tc, test_threads_bit_exact);
	tcase_add_test(tc, test_vulkan_bit_exact);
	tcase_add_test(tc, test_renegotiation);
	tcase_add_test(tc, test_short_buffer);
	tcase_add_test(tc, test_hostile_buffers);
	tcase_add_test(tc, test_hostile_output_pool);
	tcase_add_test(tc, test_bad_settings);
	tcase_add_test(tc, test_state_changes);
	tcase_add_test(tc, test_kodak_round_trip);
	tcase_add_test(tc, test_tuning_file);
	return s;
}

int main(int argc, char **argv)
{
	gst_test_env();
	gst_check_init(&argc, &argv);
	return gst_check_run_suite(cispisp_suite(), "cispisp", __FILE__);
}
