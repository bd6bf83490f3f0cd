/* SPDX-License-Identifier: MIT */
/**
 * @file sensor_levels.h
 * @brief A sensor's black and white levels as the BLC block.
 *
 * Sensors, raw files and tuning files give levels in codes of the sample's
 * bit depth; the BLC block (params.h) takes them in 16-bit units. This is
 * the one conversion, with the one rule for levels the block cannot take.
 */
#ifndef CISP_SENSOR_LEVELS_H
#define CISP_SENSOR_LEVELS_H

#include <cisp/api.h>
#include <cisp/params.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * cisp_blc_from_sensor_levels() - the BLC levels of a sensor.
 * @blc: receives @black[] and @white in 16-bit units: each times
 *       2^(16 - @bits), rounded to nearest, the white level at most 65535.
 *       Its header and reserved fields are left as they are; nothing is
 *       written on error.
 * @black: black level of each channel R, Gr, Gb, B in codes of @bits (a
 *         measured mean may have a fraction).
 * @white: white (saturation) level in codes of @bits.
 * @bits: the sample depth, 8..16.
 * Return: 0; -EINVAL, with a message giving the levels, for a depth outside
 * 8..16, a level that is negative or not finite, or levels that leave a
 * channel less than a quarter of the range (white - black below 16384 in
 * 16-bit units, the block's limit).
 */
CISP_API int cisp_blc_from_sensor_levels(struct cisp_blc_params *blc, const double black[4], double white, unsigned bits);

#ifdef __cplusplus
}
#endif

#endif /* CISP_SENSOR_LEVELS_H */
