/* SPDX-License-Identifier: MIT */
/* The GstCispMeta custom meta: a frame's camera metadata as a GstStructure. */
#include "meta.h"

void cisp_gst_meta_register(void)
{
	static gsize once;

	if (g_once_init_enter(&once)) {
		static const gchar *tags[] = { NULL };

		/* Metadata of the frame, not of its pixels: no tags, so transforms drop it. */
		gst_meta_register_custom(CISP_GST_META_NAME, tags, NULL, NULL, NULL);
		g_once_init_leave(&once, 1);
	}
}

void cisp_gst_meta_add(GstBuffer *buffer, const struct cisp_camera_metadata *md)
{
	GstCustomMeta *meta = gst_buffer_add_custom_meta(buffer, CISP_GST_META_NAME);
	GstStructure *s;

	if (!meta)
		return;
	s = gst_custom_meta_get_structure(meta);
	gst_structure_set(s, "sequence", G_TYPE_UINT64, (guint64)md->sequence, "sensor-timestamp", G_TYPE_UINT64,
			  (guint64)md->timestamp_ns, "exposure-time", G_TYPE_DOUBLE, md->exposure_us, "analogue-gain",
			  G_TYPE_DOUBLE, md->analogue_gain, "digital-gain", G_TYPE_DOUBLE, md->digital_gain,
			  "frame-duration", G_TYPE_DOUBLE, md->frame_duration_us, "lens-position", G_TYPE_INT,
			  (gint)md->lens_position, "colour-temperature", G_TYPE_DOUBLE, md->colour_temperature,
			  "red-gain", G_TYPE_DOUBLE, md->colour_gains[0], "blue-gain", G_TYPE_DOUBLE,
			  md->colour_gains[1], "ae-state", G_TYPE_STRING, cisp_ae_state_name(md->ae_state),
			  "awb-state", G_TYPE_STRING, cisp_awb_state_name(md->awb_state), "af-state", G_TYPE_STRING,
			  cisp_af_state_name(md->af_state), "lux", G_TYPE_DOUBLE, md->control.lux, "flicker-hz",
			  G_TYPE_UINT, md->control.flicker_hz, "merged-frames", G_TYPE_UINT, md->merged.count, NULL);
}
