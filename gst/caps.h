/* SPDX-License-Identifier: MIT */
/*
 * Mapping between GStreamer caps and cisp formats, shared by the elements.
 *
 * Bayer: "video/x-bayer" with format "rggb", "grbg", "gbrg" or "bggr" for 8
 * bits (as plugins-bad defines them), and "rggb10le" ... "bggr16le" for 10,
 * 12, 14 and 16 bits in 16-bit little-endian containers (the names
 * GStreamer 1.24 and libcamera use; cisp's unpacked Bayer layout).
 * Processed: "video/x-raw" NV12, I420 and RGB.
 */
#ifndef CISP_GST_CAPS_H
#define CISP_GST_CAPS_H

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/*
 * The caps of every Bayer format cisp accepts, any size. No framerate field:
 * raw dumps often have none, and whatever the input has carries over.
 */
GstCaps *cisp_gst_bayer_caps(void);

/* The caps of every processed format the ISP writes, any size. */
GstCaps *cisp_gst_output_caps(void);

/* The cisp Bayer format of a caps format name ("rggb", "grbg12le"), or 0. */
guint32 cisp_gst_bayer_format(const gchar *name);

/* The caps format name of a cisp Bayer format, or NULL (packed formats). */
const gchar *cisp_gst_bayer_name(guint32 format);

/* The cisp output format of a GStreamer video format, or 0. */
guint32 cisp_gst_output_format(GstVideoFormat format);

/*
 * Bytes of one row of a Bayer frame in a buffer without a video meta: the
 * row size rounded up to 4 bytes, the layout plugins-bad's rgb2bayer and
 * bayer2rgb use.
 */
gsize cisp_gst_bayer_stride(guint32 format, guint width);

G_END_DECLS

#endif
