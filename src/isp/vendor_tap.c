/* SPDX-License-Identifier: MIT */
/*
 * The vendor stages' tap points (docs/vendor.md) as stages of the pipeline:
 * at each, the vendor stages with an enabled block run in place on the whole
 * frame (src/vendor_stage). The banded executor stops its bands there.
 */
#include <stdlib.h>

#include "isp/stage.h"
#include "vendor_stage/vendor_internal.h"

struct vendor_tap {
	struct vendor_instance *vendor;
	enum cisp_vendor_tap tap;
};

static int prepare_tap(void **coeffs, const struct stage_env *env, enum cisp_vendor_tap tap)
{
	int ret = stage_alloc(coeffs, sizeof(struct vendor_tap), "vendor stage");
	struct vendor_tap *t = *coeffs;

	if (!ret)
		*t = (struct vendor_tap){ env->vendor, tap };
	return ret;
}

static int bayer_prepare(void **coeffs, const struct stage_env *env)
{
	return prepare_tap(coeffs, env, CISP_VENDOR_TAP_BAYER);
}

static int rgb_prepare(void **coeffs, const struct stage_env *env)
{
	return prepare_tap(coeffs, env, CISP_VENDOR_TAP_RGB);
}

static int yuv_prepare(void **coeffs, const struct stage_env *env)
{
	return prepare_tap(coeffs, env, CISP_VENDOR_TAP_YUV);
}

static bool tap_active(const struct stage_ctx *c)
{
	const struct vendor_tap *t = c->coeffs;

	return vendor_instance_active_at(t->vendor, t->tap);
}

static int tap_frame(const struct stage_ctx *c, const struct stage_io *io)
{
	const struct vendor_tap *t = c->coeffs;

	return vendor_instance_run(t->vendor, t->tap, io->in.c, t->tap == CISP_VENDOR_TAP_BAYER ? 1 : 3);
}

#define VENDOR_TAP(where, planes, more_flags)                                                                        \
	const struct cisp_stage cisp_stage_vendor_##where = {                                                        \
		.name = "vendor_" #where,                                                                            \
		.flags = STAGE_ALWAYS | (more_flags),                                                                \
		.planes_in = (planes),                                                                               \
		.planes_out = (planes),                                                                              \
		.prepare = where##_prepare,                                                                          \
		.release = free,                                                                                     \
		.active = tap_active,                                                                                \
		.frame = tap_frame,                                                                                  \
		.in_place = 7,                                                                                       \
	}

VENDOR_TAP(bayer, 1, 0);
VENDOR_TAP(rgb, 3, 0);
VENDOR_TAP(yuv, 3, STAGE_YUV);
