/* SPDX-License-Identifier: MIT */
/* ICC profiles made by lcms2. */
#include <errno.h>
#include <stdlib.h>

#include <lcms2.h>

#include <cisp/icc.h>

#include "core/error_internal.h"

static cmsHPROFILE linear_srgb(void)
{
	/* BT.709 primaries and D65 (x, y), as IEC 61966-2-1 gives them. */
	static const cmsCIExyY d65 = { 0.3127, 0.3290, 1.0 };
	static const cmsCIExyYTRIPLE primaries = {
		{ 0.6400, 0.3300, 1.0 },
		{ 0.3000, 0.6000, 1.0 },
		{ 0.1500, 0.0600, 1.0 },
	};
	cmsToneCurve *linear = cmsBuildGamma(NULL, 1.0);
	cmsToneCurve *curves[3] = { linear, linear, linear };
	cmsHPROFILE p = linear ? cmsCreateRGBProfile(&d65, &primaries, curves) : NULL;
	cmsMLU *desc = cmsMLUalloc(NULL, 1);

	if (p && desc && cmsMLUsetASCII(desc, "en", "US", "Linear sRGB (BT.709 primaries, D65, gamma 1.0)"))
		cmsWriteTag(p, cmsSigProfileDescriptionTag, desc);
	if (desc)
		cmsMLUfree(desc);
	if (linear)
		cmsFreeToneCurve(linear);
	return p;
}

int cisp_icc_srgb(bool linear, uint8_t **data, size_t *size)
{
	cmsHPROFILE p = linear ? linear_srgb() : cmsCreate_sRGBProfile();
	cmsUInt32Number n = 0;
	uint8_t *buf = NULL;

	*data = NULL;
	*size = 0;
	if (p && cmsSaveProfileToMem(p, NULL, &n) && n && (buf = malloc(n)) && cmsSaveProfileToMem(p, buf, &n)) {
		cmsCloseProfile(p);
		*data = buf;
		*size = n;
		return 0;
	}
	free(buf);
	if (p)
		cmsCloseProfile(p);
	return cisp_error(-ENOMEM, "cannot make the %s ICC profile", linear ? "linear sRGB" : "sRGB");
}
