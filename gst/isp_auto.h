/* SPDX-License-Identifier: MIT */
/*
 * The automatic white balance and digital-gain exposure of the cispisp
 * element, from the ISP's own statistics (docs/gstreamer.md).
 *
 * Both read the zone means, which are taken before the white-balance gains:
 * what they measure does not depend on what they set, so there is no loop to
 * stabilise and the first estimate is final for a still scene. Later frames
 * move a quarter of the way (in log scale) to each new estimate, so scene
 * changes fade in instead of jumping and noise does not flicker.
 */
#ifndef CISP_GST_ISP_AUTO_H
#define CISP_GST_ISP_AUTO_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/stats.h>

/** What the automatic algorithms run with. */
struct isp_auto_config {
	bool awb;        /**< grey-world white balance; false: keep red/blue as set */
	bool ae;         /**< digital-gain exposure; false: keep the gain as set */
	double ev;       /**< exposure compensation in stops */
	double max_gain; /**< largest digital gain */
};

/** The state: gains applied to the next frame, relative to green. */
struct isp_auto {
	bool primed;  /**< an estimate has been made since the last reset */
	double red;   /**< red gain */
	double blue;  /**< blue gain */
	double gain;  /**< digital gain on every channel */
};

/** The mean linear luma the exposure aims at, as a fraction of white. */
#define ISP_AUTO_TARGET 0.18

/* Back to unit gains, unprimed. */
void isp_auto_reset(struct isp_auto *a);

/*
 * Update from a frame's statistics. The first update after a reset takes the
 * estimate as it is; later ones move a quarter of the way to it. Returns
 * false, changing nothing, when the statistics have no zones or no usable
 * cell.
 */
bool isp_auto_update(struct isp_auto *a, const struct isp_auto_config *cfg, const struct cisp_stats *st);

/*
 * The WB block gains (R, Gr, Gb, B; Q4.12) for red, blue and digital gains,
 * rounded to nearest and clamped to 0..65535.
 */
void isp_auto_wb_gains(double red, double blue, double gain, uint16_t out[4]);

#endif
