/* SPDX-License-Identifier: MIT */
#include <math.h>

#include "isp_auto.h"

/* Grey-world gains are kept within this factor of 1. */
#define AWB_LIMIT 8.0
/* Weight of a new estimate against the running value (in log scale). */
#define SMOOTHING 0.25

void isp_auto_reset(struct isp_auto *a)
{
	a->primed = false;
	a->red = a->blue = a->gain = 1.0;
}

static double clampd(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Move @cur towards @target: all the way when not primed, else SMOOTHING of the way in log scale. */
static double approach(double cur, double target, bool primed)
{
	return primed ? cur * pow(target / cur, SMOOTHING) : target;
}

bool isp_auto_update(struct isp_auto *a, const struct isp_auto_config *cfg, const struct cisp_stats *st)
{
	double r = 0, g = 0, b = 0, cells = 0, saturated = 0;
	double red = a->red, blue = a->blue;

	if (!st || !(st->valid & CISP_STATS_ZONES))
		return false;
	for (unsigned i = 0; i < (unsigned)st->zones_x * st->zones_y && i < CISP_STATS_MAX_ZONES * CISP_STATS_MAX_ZONES;
	     i++) {
		const struct cisp_stats_zone *z = &st->zone[i];

		r += (double)z->r * z->count;
		g += (double)z->g * z->count;
		b += (double)z->b * z->count;
		cells += z->count;
		saturated += (double)z->total - z->count;
	}
	if (cfg->awb) {
		if (r <= 0 || g <= 0 || b <= 0)
			return false;
		red = clampd(g / r, 1 / AWB_LIMIT, AWB_LIMIT);
		blue = clampd(g / b, 1 / AWB_LIMIT, AWB_LIMIT);
	}
	if (cfg->ae) {
		/* Mean luma of the frame once balanced; saturated cells count as white. */
		double luma = (54 * r * red + 183 * g + 19 * b * blue) / 256 + 65535.0 * saturated;
		double target = ISP_AUTO_TARGET * 65535.0 * pow(2.0, cfg->ev);
		double lo = fmin(1.0, pow(2.0, cfg->ev));

		if (cells + saturated <= 0 || luma <= 0)
			return false;
		luma /= cells + saturated;
		a->gain = approach(a->gain, clampd(target / luma, lo, cfg->max_gain), a->primed);
	}
	if (cfg->awb) {
		a->red = approach(a->red, red, a->primed);
		a->blue = approach(a->blue, blue, a->primed);
	}
	a->primed = true;
	return true;
}

static uint16_t q12(double v)
{
	return (uint16_t)clampd(floor(v * 4096.0 + 0.5), 0, 65535);
}

void isp_auto_wb_gains(double red, double blue, double gain, uint16_t out[4])
{
	out[0] = q12(red * gain);
	out[1] = out[2] = q12(gain);
	out[3] = q12(blue * gain);
}
