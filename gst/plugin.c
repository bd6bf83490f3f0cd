/* SPDX-License-Identifier: MIT */
/* The cisp GStreamer plugin: registers its elements. */
#include <gst/gst.h>

#include "cispisp.h"

static gboolean plugin_init(GstPlugin *plugin)
{
	return gst_element_register(plugin, "cispisp", GST_RANK_NONE, GST_TYPE_CISP_ISP);
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, cisp, "cisp camera stack: ISP and camera elements",
		  plugin_init, CISP_VERSION, "MIT", "cisp", "Unknown package origin")
