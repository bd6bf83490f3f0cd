/* SPDX-License-Identifier: MIT */
/* cispdeviceprovider: cisp cameras for GstDeviceMonitor. */
#ifndef CISP_GST_DEVICE_PROVIDER_H
#define CISP_GST_DEVICE_PROVIDER_H

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_CISP_DEVICE_PROVIDER (gst_cisp_device_provider_get_type())
G_DECLARE_FINAL_TYPE(GstCispDeviceProvider, gst_cisp_device_provider, GST, CISP_DEVICE_PROVIDER, GstDeviceProvider)

G_END_DECLS

#endif
