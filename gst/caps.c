/* SPDX-License-Identifier: MIT */
#include <cisp/format.h>
#include <cisp/image.h>

#include "caps.h"

/* Every Bayer format with a caps name, 8-bit first (the order caps list them). */
static const struct {
	guint32 format;
	const gchar *name;
} bayer_formats[] = {
	{ CISP_FMT_SRGGB8, "rggb" },      { CISP_FMT_SGRBG8, "grbg" },
	{ CISP_FMT_SGBRG8, "gbrg" },      { CISP_FMT_SBGGR8, "bggr" },
	{ CISP_FMT_SRGGB10, "rggb10le" }, { CISP_FMT_SGRBG10, "grbg10le" },
	{ CISP_FMT_SGBRG10, "gbrg10le" }, { CISP_FMT_SBGGR10, "bggr10le" },
	{ CISP_FMT_SRGGB12, "rggb12le" }, { CISP_FMT_SGRBG12, "grbg12le" },
	{ CISP_FMT_SGBRG12, "gbrg12le" }, { CISP_FMT_SBGGR12, "bggr12le" },
	{ CISP_FMT_SRGGB14, "rggb14le" }, { CISP_FMT_SGRBG14, "grbg14le" },
	{ CISP_FMT_SGBRG14, "gbrg14le" }, { CISP_FMT_SBGGR14, "bggr14le" },
	{ CISP_FMT_SRGGB16, "rggb16le" }, { CISP_FMT_SGRBG16, "grbg16le" },
	{ CISP_FMT_SGBRG16, "gbrg16le" }, { CISP_FMT_SBGGR16, "bggr16le" },
};

guint32 cisp_gst_bayer_format(const gchar *name)
{
	for (guint i = 0; name && i < G_N_ELEMENTS(bayer_formats); i++)
		if (!strcmp(name, bayer_formats[i].name))
			return bayer_formats[i].format;
	return 0;
}

const gchar *cisp_gst_bayer_name(guint32 format)
{
	for (guint i = 0; i < G_N_ELEMENTS(bayer_formats); i++)
		if (bayer_formats[i].format == format)
			return bayer_formats[i].name;
	return NULL;
}

GstCaps *cisp_gst_bayer_caps(void)
{
	GValue list = G_VALUE_INIT, v = G_VALUE_INIT;
	GstStructure *s;

	g_value_init(&list, GST_TYPE_LIST);
	g_value_init(&v, G_TYPE_STRING);
	for (guint i = 0; i < G_N_ELEMENTS(bayer_formats); i++) {
		g_value_set_string(&v, bayer_formats[i].name);
		gst_value_list_append_value(&list, &v);
	}
	s = gst_structure_new_empty("video/x-bayer");
	gst_structure_take_value(s, "format", &list);
	gst_structure_set(s, "width", GST_TYPE_INT_RANGE, 16, CISP_MAX_DIMENSION, "height", GST_TYPE_INT_RANGE, 16,
			  CISP_MAX_DIMENSION, NULL);
	g_value_unset(&v);
	return gst_caps_new_full(s, NULL);
}

GstCaps *cisp_gst_output_caps(void)
{
	return gst_caps_from_string("video/x-raw, format = (string) { NV12, I420, RGB, BGRx }, "
				    "width = (int) [ 2, 16384 ], height = (int) [ 2, 16384 ]");
}

guint32 cisp_gst_output_format(GstVideoFormat format)
{
	switch (format) {
	case GST_VIDEO_FORMAT_NV12:
		return CISP_FMT_NV12;
	case GST_VIDEO_FORMAT_I420:
		return CISP_FMT_I420;
	case GST_VIDEO_FORMAT_RGB:
		return CISP_FMT_RGB888;
	case GST_VIDEO_FORMAT_BGRx:
		return CISP_FMT_XBGR32;
	default:
		return 0;
	}
}

gsize cisp_gst_bayer_stride(guint32 format, guint width)
{
	size_t row = 0, rows;

	if (cisp_image_plane_size(format, width, 2, 0, &row, &rows))
		return 0;
	return GST_ROUND_UP_4(row);
}
