/* SPDX-License-Identifier: MIT */
/* The cisp GStreamer plugin: registers its elements and the camera provider. */
#include <gst/gst.h>

#include "cispisp.h"
#include "cispsrc.h"
#include "device_provider.h"

static gboolean plugin_init(GstPlugin *plugin)
{
	return gst_element_register(plugin, "cispisp", GST_RANK_NONE, GST_TYPE_CISP_ISP) &&
	       gst_element_register(plugin, "cispsrc", GST_RANK_NONE, GST_TYPE_CISP_SRC) &&
	       gst_device_provider_register(plugin, "cispdeviceprovider", GST_RANK_PRIMARY,
					    GST_TYPE_CISP_DEVICE_PROVIDER);
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, cisp, "cisp camera stack: ISP and camera elements",
		  plugin_init, CISP_VERSION, "MIT", "cisp", "Unknown package origin")
