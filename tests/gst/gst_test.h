/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the GStreamer check tests: set-up that finds the plugin
 * in the build tree, Bayer test frames, running pipelines to a result.
 */
#ifndef CISP_GST_TEST_H
#define CISP_GST_TEST_H

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

/* Point GStreamer at the build tree's plugin and a private registry; call before gst_check_init(). */
void gst_test_env(void);

/* A Bayer buffer of @width x @height with rows of @stride bytes; value(x, y) fills each sample. */
typedef guint (*gst_test_pixel_fn)(guint x, guint y, gpointer data);
GstBuffer *gst_test_bayer(guint width, guint height, guint bytes_per_sample, gsize stride, gst_test_pixel_fn value,
			  gpointer data);

/* A harness around a new cispisp with @props ("name=value ..." as gst-launch takes, may be NULL). */
GstHarness *gst_test_isp_harness(const gchar *props, const gchar *in_caps, const gchar *out_caps);

/*
 * Run a gst-launch description to EOS or an error. Returns TRUE at EOS; on an
 * error returns FALSE and, if @message is not NULL, its text (g_free it).
 */
gboolean gst_test_run(const gchar *description, gchar **message);

/*
 * Run a description that ends in "appsink name=out" and return the first
 * sample (NULL on an error, with the message printed).
 */
GstSample *gst_test_pull_sample(const gchar *description);

/*
 * Whether a context on the Vulkan backend can be made (isp=vulkan); if not,
 * it says so loudly, and fails the test where CISP_REQUIRE_VULKAN=1. Never
 * in a sanitizer build (gst_test.c says why), loudly too.
 */
gboolean gst_test_have_vulkan(void);

#endif
