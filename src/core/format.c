/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stddef.h>
#include <strings.h>

#include <cisp/format.h>

#include "error_internal.h"

#define BAYER(cfa_, bits_, packed_, fourcc_, name_) \
	{ fourcc_, name_, CISP_KIND_BAYER, bits_, CISP_CFA_##cfa_, packed_, 1 }

static const struct cisp_format_info formats[] = {
	BAYER(RGGB, 8, false, CISP_FMT_SRGGB8, "SRGGB8"),
	BAYER(GRBG, 8, false, CISP_FMT_SGRBG8, "SGRBG8"),
	BAYER(GBRG, 8, false, CISP_FMT_SGBRG8, "SGBRG8"),
	BAYER(BGGR, 8, false, CISP_FMT_SBGGR8, "SBGGR8"),
	BAYER(RGGB, 10, false, CISP_FMT_SRGGB10, "SRGGB10"),
	BAYER(GRBG, 10, false, CISP_FMT_SGRBG10, "SGRBG10"),
	BAYER(GBRG, 10, false, CISP_FMT_SGBRG10, "SGBRG10"),
	BAYER(BGGR, 10, false, CISP_FMT_SBGGR10, "SBGGR10"),
	BAYER(RGGB, 10, true, CISP_FMT_SRGGB10P, "SRGGB10P"),
	BAYER(GRBG, 10, true, CISP_FMT_SGRBG10P, "SGRBG10P"),
	BAYER(GBRG, 10, true, CISP_FMT_SGBRG10P, "SGBRG10P"),
	BAYER(BGGR, 10, true, CISP_FMT_SBGGR10P, "SBGGR10P"),
	BAYER(RGGB, 12, false, CISP_FMT_SRGGB12, "SRGGB12"),
	BAYER(GRBG, 12, false, CISP_FMT_SGRBG12, "SGRBG12"),
	BAYER(GBRG, 12, false, CISP_FMT_SGBRG12, "SGBRG12"),
	BAYER(BGGR, 12, false, CISP_FMT_SBGGR12, "SBGGR12"),
	BAYER(RGGB, 12, true, CISP_FMT_SRGGB12P, "SRGGB12P"),
	BAYER(GRBG, 12, true, CISP_FMT_SGRBG12P, "SGRBG12P"),
	BAYER(GBRG, 12, true, CISP_FMT_SGBRG12P, "SGBRG12P"),
	BAYER(BGGR, 12, true, CISP_FMT_SBGGR12P, "SBGGR12P"),
	BAYER(RGGB, 14, false, CISP_FMT_SRGGB14, "SRGGB14"),
	BAYER(GRBG, 14, false, CISP_FMT_SGRBG14, "SGRBG14"),
	BAYER(GBRG, 14, false, CISP_FMT_SGBRG14, "SGBRG14"),
	BAYER(BGGR, 14, false, CISP_FMT_SBGGR14, "SBGGR14"),
	BAYER(RGGB, 16, false, CISP_FMT_SRGGB16, "SRGGB16"),
	BAYER(GRBG, 16, false, CISP_FMT_SGRBG16, "SGRBG16"),
	BAYER(GBRG, 16, false, CISP_FMT_SGBRG16, "SGBRG16"),
	BAYER(BGGR, 16, false, CISP_FMT_SBGGR16, "SBGGR16"),
	{ CISP_FMT_NV12, "NV12", CISP_KIND_YUV, 8, 0, false, 2 },
	{ CISP_FMT_I420, "YUV420", CISP_KIND_YUV, 8, 0, false, 3 },
	{ CISP_FMT_RGB888, "RGB24", CISP_KIND_RGB, 8, 0, false, 1 },
	{ CISP_FMT_RGB48, "RGB48", CISP_KIND_RGB, 16, 0, false, 1 },
	{ CISP_FMT_XBGR32, "XBGR32", CISP_KIND_RGB, 8, 0, false, 1 },
};

#define N_FORMATS (sizeof(formats) / sizeof(formats[0]))

static const struct {
	const char *alias;
	uint32_t fourcc;
} aliases[] = {
	{ "I420", CISP_FMT_I420 },
	{ "YU12", CISP_FMT_I420 },
	{ "RGB888", CISP_FMT_RGB888 },
	{ "RGB3", CISP_FMT_RGB888 },
	{ "BGRx", CISP_FMT_XBGR32 },
	{ "XR24", CISP_FMT_XBGR32 },
};

const struct cisp_format_info *cisp_format_info(uint32_t fourcc)
{
	for (size_t i = 0; i < N_FORMATS; i++)
		if (formats[i].fourcc == fourcc)
			return &formats[i];
	return NULL;
}

uint32_t cisp_format_from_name(const char *name)
{
	if (!name) {
		cisp_error(-EINVAL, "no pixel format name given");
		return 0;
	}
	for (size_t i = 0; i < N_FORMATS; i++)
		if (!strcasecmp(formats[i].name, name))
			return formats[i].fourcc;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcasecmp(aliases[i].alias, name))
			return aliases[i].fourcc;
	cisp_error(-EINVAL,
		   "unknown pixel format '%s' (use a V4L2 name such as SRGGB10P, SGRBG12, SBGGR8, NV12, "
		   "YUV420, RGB24, RGB48 or XBGR32)",
		   name);
	return 0;
}

const char *cisp_format_name(uint32_t fourcc)
{
	const struct cisp_format_info *f = cisp_format_info(fourcc);

	return f ? f->name : "unknown";
}

uint32_t cisp_bayer_format(enum cisp_cfa cfa, unsigned bits, bool packed)
{
	for (size_t i = 0; i < N_FORMATS; i++)
		if (formats[i].kind == CISP_KIND_BAYER && formats[i].cfa == cfa && formats[i].bits == bits &&
		    formats[i].packed == packed)
			return formats[i].fourcc;
	return 0;
}

int cisp_cfa_from_name(const char *name, enum cisp_cfa *cfa)
{
	static const char *const names[] = { "RGGB", "GRBG", "GBRG", "BGGR" };

	for (int i = 0; name && i < 4; i++) {
		if (!strcasecmp(name, names[i])) {
			*cfa = (enum cisp_cfa)i;
			return 0;
		}
	}
	return cisp_error(-EINVAL, "unknown CFA order '%s' (use RGGB, GRBG, GBRG or BGGR)", name ? name : "");
}

enum cisp_channel cisp_cfa_channel(enum cisp_cfa cfa, unsigned x, unsigned y)
{
	/* Channel of each site (x & 1) + 2 * (y & 1) for each order. */
	static const unsigned char site[4][4] = {
		[CISP_CFA_RGGB] = { CISP_CH_R, CISP_CH_GR, CISP_CH_GB, CISP_CH_B },
		[CISP_CFA_GRBG] = { CISP_CH_GR, CISP_CH_R, CISP_CH_B, CISP_CH_GB },
		[CISP_CFA_GBRG] = { CISP_CH_GB, CISP_CH_B, CISP_CH_R, CISP_CH_GR },
		[CISP_CFA_BGGR] = { CISP_CH_B, CISP_CH_GB, CISP_CH_GR, CISP_CH_R },
	};

	return (enum cisp_channel)site[cfa & 3][(x & 1) + 2 * (y & 1)];
}
