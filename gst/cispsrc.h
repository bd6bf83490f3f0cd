/* SPDX-License-Identifier: MIT */
/*
 * cispsrc: a live source for any cisp camera (camera.h), with the 3A loop
 * running inside and the per-frame metadata on every buffer.
 */
#ifndef CISP_GST_CISPSRC_H
#define CISP_GST_CISPSRC_H

#include <gst/base/gstpushsrc.h>

G_BEGIN_DECLS

#define GST_TYPE_CISP_SRC (gst_cisp_src_get_type())
G_DECLARE_FINAL_TYPE(GstCispSrc, gst_cisp_src, GST, CISP_SRC, GstPushSrc)

/* The enum type of the af-mode property. */
#define GST_TYPE_CISP_AF_MODE (gst_cisp_af_mode_get_type())
GType gst_cisp_af_mode_get_type(void);

/*
 * The default camera: the first V4L2 camera cisp lists that opens, else
 * virtual:cisp-8m10, else the first listed, or NULL (g_free() the result).
 */
gchar *cisp_gst_default_camera(void);

G_END_DECLS

#endif
