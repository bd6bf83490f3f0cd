/* SPDX-License-Identifier: MIT */
/*
 * cispisp: video/x-bayer in, video/x-raw out, through the canonical ISP, with
 * white balance and digital-gain exposure from its own statistics.
 */
#ifndef CISP_GST_CISPISP_H
#define CISP_GST_CISPISP_H

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_CISP_ISP (gst_cisp_isp_get_type())
G_DECLARE_FINAL_TYPE(GstCispIsp, gst_cisp_isp, GST, CISP_ISP, GstBaseTransform)

/* The enum types of the element's properties. */
#define GST_TYPE_CISP_DEMOSAIC (gst_cisp_demosaic_get_type())
GType gst_cisp_demosaic_get_type(void);

/* What runs the ISP of cispisp and cispsrc (their isp property). */
enum gst_cisp_isp_kind { GST_CISP_ISP_SOFTWARE, GST_CISP_ISP_VULKAN };
#define GST_TYPE_CISP_ISP_KIND (gst_cisp_isp_kind_get_type())
GType gst_cisp_isp_kind_get_type(void);
#define GST_TYPE_CISP_TRANSFER (gst_cisp_transfer_get_type())
GType gst_cisp_transfer_get_type(void);

G_END_DECLS

#endif
