/* SPDX-License-Identifier: MIT */
#include <string.h>

#include <gst/app/gstappsink.h>

#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/format.h>

#include "../sanitizer.h"
#include "gst_test.h"

/*
 * Sanitizer builds: GLib allocates in its library constructor and never frees
 * that; and the first run scans the system's GStreamer plugins into the
 * registry in this process, where some of them (and the libraries they start:
 * fontconfig, OpenNI2's drivers) keep what they allocate for the life of the
 * process. Those modules are excused, and GLib's interned strings, which
 * the scan creates and GLib keeps for the life of the process by design
 * (a fresh machine's first run reported them); nothing of cisp's is.
 * Matching needs
 * whole stacks through the system libraries, which the fast unwinder cannot
 * walk.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:_dl_init\n"
	       "leak:/gstreamer-1.0/libgst\n"
	       "leak:g_intern_string\n"
	       "leak:OpenNI2\n"
	       "leak:libfontconfig.so\n";
}

const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "fast_unwind_on_malloc=0";
}

void gst_test_env(void)
{
	g_setenv("GST_PLUGIN_PATH", CISP_GST_PLUGIN_DIR, TRUE);
	g_setenv("GST_REGISTRY", CISP_GST_REGISTRY, TRUE);
	/* Scan in-process: a sanitizer build's plugin cannot load in the uninstrumented scanner. */
	g_setenv("GST_REGISTRY_FORK", "no", TRUE);
}

GstBuffer *gst_test_bayer(guint width, guint height, guint bytes_per_sample, gsize stride, gst_test_pixel_fn value,
			  gpointer data)
{
	GstBuffer *buf = gst_buffer_new_allocate(NULL, stride * height, NULL);
	GstMapInfo map;

	gst_buffer_map(buf, &map, GST_MAP_WRITE);
	memset(map.data, 0xa5, map.size); /* padding the element must not read */
	for (guint y = 0; y < height; y++) {
		for (guint x = 0; x < width; x++) {
			guint v = value(x, y, data);
			guint8 *p = map.data + y * stride + x * bytes_per_sample;

			p[0] = (guint8)(v & 255);
			if (bytes_per_sample == 2)
				p[1] = (guint8)(v >> 8);
		}
	}
	gst_buffer_unmap(buf, &map);
	return buf;
}

GstHarness *gst_test_isp_harness(const gchar *props, const gchar *in_caps, const gchar *out_caps)
{
	gchar *desc = g_strdup_printf("cispisp %s", props ? props : "");
	GstHarness *h = gst_harness_new_parse(desc);

	g_free(desc);
	gst_harness_set_src_caps_str(h, in_caps);
	gst_harness_set_sink_caps_str(h, out_caps);
	return h;
}

/* Wait for EOS or an error on the pipeline's bus. */
static gboolean wait_end(GstElement *pipeline, gchar **message)
{
	GstBus *bus = gst_element_get_bus(pipeline);
	GstMessage *msg = gst_bus_timed_pop_filtered(bus, 60 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
	gboolean ok = msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_EOS;

	if (msg && !ok) {
		GError *err = NULL;
		gchar *debug = NULL;

		gst_message_parse_error(msg, &err, &debug);
		if (message)
			*message = g_strdup(err->message);
		else
			g_printerr("pipeline error: %s (%s)\n", err->message, debug ? debug : "");
		g_error_free(err);
		g_free(debug);
	} else if (!msg && message) {
		*message = g_strdup("timeout");
	}
	if (msg)
		gst_message_unref(msg);
	gst_object_unref(bus);
	return ok;
}

gboolean gst_test_run(const gchar *description, gchar **message)
{
	GError *error = NULL;
	GstElement *pipeline = gst_parse_launch(description, &error);
	gboolean ok;

	fail_unless(pipeline != NULL, "cannot parse '%s': %s", description, error ? error->message : "");
	if (error) { /* a warning, e.g. a property that does not exist */
		if (message)
			*message = g_strdup(error->message);
		g_error_free(error);
		gst_object_unref(pipeline);
		return FALSE;
	}
	gst_element_set_state(pipeline, GST_STATE_PLAYING);
	ok = wait_end(pipeline, message);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(pipeline);
	return ok;
}

GstSample *gst_test_pull_sample(const gchar *description)
{
	GError *error = NULL;
	GstElement *pipeline = gst_parse_launch(description, &error);
	GstElement *sink;
	GstSample *sample;

	fail_unless(pipeline != NULL && !error, "cannot parse '%s': %s", description, error ? error->message : "");
	sink = gst_bin_get_by_name(GST_BIN(pipeline), "out");
	fail_unless(sink != NULL, "no appsink named out in '%s'", description);
	gst_element_set_state(pipeline, GST_STATE_PLAYING);
	sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 60 * GST_SECOND);
	if (!sample)
		wait_end(pipeline, NULL);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(sink);
	gst_object_unref(pipeline);
	return sample;
}

gboolean gst_test_have_vulkan(void)
{
	const struct cisp_context_config cc = {
		.name = "probe", .isp = { CISP_FMT_SRGGB10, 64, 48, { { CISP_FMT_NV12, 64, 48 } }, NULL },
		.backend = cisp_device_vulkan_backend()
	};
	struct cisp_device *dev = NULL;
	struct cisp_context *ctx = NULL;
	gboolean ok;

	/*
	 * Under AddressSanitizer lavapipe's LLVM JIT, compiling in a streaming
	 * thread, deadlocks in libgcc's unwinder (registering its frames, it
	 * allocates, and the sanitizer's malloc unwinds into the lock it holds):
	 * cisp-test vulkan covers the backend under the sanitizers.
	 */
	if (TEST_SANITIZED) {
		g_print("*** isp=vulkan is NOT tested under a sanitizer (lavapipe's JIT deadlocks in the unwinder) ***\n");
		return FALSE;
	}
	ok = !cisp_device_create(&dev, &(struct cisp_device_config){ .workers = 1 }) &&
	     !cisp_context_create(&ctx, dev, &cc);
	if (!ok) {
		fail_if(g_strcmp0(g_getenv("CISP_REQUIRE_VULKAN"), "1") == 0, "CISP_REQUIRE_VULKAN=1 and %s",
			cisp_last_error());
		g_print("*** NO VULKAN DEVICE, isp=vulkan is NOT tested: %s ***\n", cisp_last_error());
	}
	cisp_context_destroy(ctx);
	cisp_device_destroy(dev);
	return ok;
}
