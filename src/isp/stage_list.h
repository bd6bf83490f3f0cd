/* SPDX-License-Identifier: MIT */
/*
 * The stages of the canonical ISP in pipeline order (docs/pipeline.md), one
 * line each: stage.h and stages.c include this with STAGE(name) defined, and
 * the stage's own file defines cisp_stage_<name>. No include guard.
 */
STAGE(unpack)
STAGE(blc)
STAGE(merge)
STAGE(dpc)
STAGE(vendor_bayer)
STAGE(bnr)
STAGE(lsc)
STAGE(statistics)
STAGE(wb)
STAGE(highlights)
STAGE(demosaic)
STAGE(ccm)
STAGE(ltm)
STAGE(tone)
STAGE(lut3d)
STAGE(vendor_rgb)
STAGE(sharpen)
STAGE(csc)
STAGE(cnr)
STAGE(vendor_yuv)
