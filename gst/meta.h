/* SPDX-License-Identifier: MIT */
/*
 * Per-frame camera metadata on GStreamer buffers: a custom meta named
 * "GstCispMeta" (gst_meta_register_custom()) whose structure holds the
 * fields docs/gstreamer.md lists, so applications read it without a cisp
 * header: gst_buffer_get_custom_meta(buffer, "GstCispMeta").
 */
#ifndef CISP_GST_META_H
#define CISP_GST_META_H

#include <gst/gst.h>

#include <cisp/camera.h>

G_BEGIN_DECLS

/* The meta's registered name. */
#define CISP_GST_META_NAME "GstCispMeta"

/* Register the meta (once; later calls do nothing). */
void cisp_gst_meta_register(void);

/* Attach a frame's metadata to @buffer. */
void cisp_gst_meta_add(GstBuffer *buffer, const struct cisp_camera_metadata *md);

G_END_DECLS

#endif
