/* SPDX-License-Identifier: MIT */
/*
 * cispdeviceprovider: lists cisp cameras for gst-device-monitor-1.0 and
 * applications (GstDeviceMonitor); each device makes a cispsrc for itself.
 */
#include <gst/gst.h>
#include <gst/video/video.h>

#include <cisp/sensor.h>

#include "caps.h"
#include "device_provider.h"

/* One camera as a GstDevice. */
#define GST_TYPE_CISP_DEVICE (gst_cisp_device_get_type())
G_DECLARE_FINAL_TYPE(GstCispDevice, gst_cisp_device, GST, CISP_DEVICE, GstDevice)

struct _GstCispDevice {
	GstDevice parent;
	gchar *camera;
};

G_DEFINE_TYPE(GstCispDevice, gst_cisp_device, GST_TYPE_DEVICE)

static GstElement *gst_cisp_device_create_element(GstDevice *device, const gchar *name)
{
	GstElement *e = gst_element_factory_make("cispsrc", name);

	if (e)
		g_object_set(e, "camera", GST_CISP_DEVICE(device)->camera, NULL);
	return e;
}

static gboolean gst_cisp_device_reconfigure_element(GstDevice *device, GstElement *element)
{
	if (g_strcmp0(G_OBJECT_TYPE_NAME(element), "GstCispSrc"))
		return FALSE;
	g_object_set(element, "camera", GST_CISP_DEVICE(device)->camera, NULL);
	return TRUE;
}

static void gst_cisp_device_finalize(GObject *object)
{
	g_free(GST_CISP_DEVICE(object)->camera);
	G_OBJECT_CLASS(gst_cisp_device_parent_class)->finalize(object);
}

static void gst_cisp_device_init(GstCispDevice *self)
{
	(void)self;
}

static void gst_cisp_device_class_init(GstCispDeviceClass *klass)
{
	GST_DEVICE_CLASS(klass)->create_element = gst_cisp_device_create_element;
	GST_DEVICE_CLASS(klass)->reconfigure_element = gst_cisp_device_reconfigure_element;
	G_OBJECT_CLASS(klass)->finalize = gst_cisp_device_finalize;
}

/* The caps a camera offers: processed video up to its largest mode, and each mode's raw format. */
static GstCaps *device_caps(struct cisp_sensor *s)
{
	const struct cisp_sensor_info *info = cisp_sensor_info(s);
	GstCaps *caps = gst_caps_new_empty();

	for (unsigned i = 0; i < info->num_modes; i++) {
		struct cisp_sensor_mode m;

		if (cisp_sensor_get_mode(s, i, &m))
			continue;
		gst_caps_append(caps, gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, "NV12", "width",
							  GST_TYPE_INT_RANGE, 16, (gint)m.width, "height",
							  GST_TYPE_INT_RANGE, 16, (gint)m.height, NULL));
		if (cisp_gst_bayer_name(m.format))
			gst_caps_append(caps, gst_caps_new_simple("video/x-bayer", "format", G_TYPE_STRING,
								  cisp_gst_bayer_name(m.format), "width", G_TYPE_INT,
								  (gint)m.width, "height", G_TYPE_INT, (gint)m.height,
								  NULL));
	}
	return gst_caps_simplify(caps);
}

struct _GstCispDeviceProvider {
	GstDeviceProvider parent;
};

G_DEFINE_TYPE(GstCispDeviceProvider, gst_cisp_device_provider, GST_TYPE_DEVICE_PROVIDER)

static GList *gst_cisp_device_provider_probe(GstDeviceProvider *provider)
{
	struct cisp_sensor_desc list[64];
	int n = cisp_sensor_enumerate(list, G_N_ELEMENTS(list));
	GList *devices = NULL;

	(void)provider;
	for (int i = 0; i < n && i < (int)G_N_ELEMENTS(list); i++) {
		struct cisp_sensor *s;
		GstCispDevice *dev;
		GstStructure *props;
		GstCaps *caps;

		/* A camera that does not open now (busy, no permission) is not offered. */
		if (cisp_sensor_open(&s, list[i].name, NULL))
			continue;
		caps = device_caps(s);
		cisp_sensor_close(s);
		props = gst_structure_new("cisp-device-properties", "device.api", G_TYPE_STRING, "cisp",
					  "device.path", G_TYPE_STRING, list[i].name, "device.backend", G_TYPE_STRING,
					  list[i].backend, NULL);
		dev = g_object_new(GST_TYPE_CISP_DEVICE, "display-name", list[i].description[0] ? list[i].description
										: list[i].name,
				   "device-class", "Video/Source", "caps", caps, "properties", props, NULL);
		dev->camera = g_strdup(list[i].name);
		gst_caps_unref(caps);
		gst_structure_free(props);
		devices = g_list_append(devices, gst_object_ref_sink(dev));
	}
	return devices;
}

static void gst_cisp_device_provider_init(GstCispDeviceProvider *self)
{
	(void)self;
}

static void gst_cisp_device_provider_class_init(GstCispDeviceProviderClass *klass)
{
	GstDeviceProviderClass *dp = GST_DEVICE_PROVIDER_CLASS(klass);

	dp->probe = gst_cisp_device_provider_probe;
	gst_device_provider_class_set_static_metadata(dp, "cisp camera provider", "Source/Video",
						      "Lists the cameras cisp can open (virtual and V4L2 sensors)",
						      "cisp");
}
