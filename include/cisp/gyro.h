/* SPDX-License-Identifier: MIT */
/**
 * @file gyro.h
 * @brief A sensor's gyroscope: angular rate samples on the frame clock.
 *
 * A camera module may carry a gyroscope whose samples share the clock of the
 * frames' timestamps (struct cisp_sensor_metadata.timestamp_ns), as phone
 * modules do. Electronic image stabilisation (eis.h) turns them into the
 * camera's path. The virtual sensor has one that reports the hand shake it
 * renders (docs/sensor.md, "Gyroscope"); V4L2 sensors have none.
 *
 * Axes, in the image's frame: x points right, y down, z along the optical
 * axis into the scene. A positive rate about y (a pan to the left) moves the
 * scene to the right in the image; a positive rate about x (a tilt up) moves
 * it down. A real module's mounting would need a rotation between the
 * gyroscope's axes and these.
 */
#ifndef CISP_GYRO_H
#define CISP_GYRO_H

#include <stdint.h>

#include <cisp/api.h>
#include <cisp/sensor.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most samples cisp_sensor_gyro() returns in one call. */
#define CISP_GYRO_MAX_SAMPLES 4096

/**
 * struct cisp_gyro_sample - one gyroscope sample.
 * @timestamp_ns: the end of the sample's interval, on the frame clock.
 * @rate: mean angular rate over the interval (struct cisp_gyro_info
 *        .period_ns before @timestamp_ns) about x, y and z, radians per
 *        second, bias and noise included.
 */
struct cisp_gyro_sample {
	uint64_t timestamp_ns;
	double rate[3];
};

/**
 * struct cisp_gyro_info - what a sensor's gyroscope is.
 * @period_ns: time between samples; sample k ends at k * @period_ns.
 * @focal_px: the lens's focal length in pixels of the current mode: a
 *            rotation of a radians moves the image's centre by
 *            a * @focal_px pixels.
 * @noise_density: white rate noise, radians per second per root hertz.
 * @bias_max: largest constant rate offset per axis, radians per second.
 */
struct cisp_gyro_info {
	uint64_t period_ns;
	double focal_px;
	double noise_density;
	double bias_max;
};

/**
 * cisp_sensor_gyro_info() - the sensor's gyroscope, if it has one.
 * @s: the sensor.
 * @info: receives its description.
 * Return: 0, or -ENOTSUP with a message for a sensor without one.
 */
CISP_API int cisp_sensor_gyro_info(struct cisp_sensor *s, struct cisp_gyro_info *info);

/**
 * cisp_sensor_gyro() - the gyroscope samples that end in (@from_ns, @to_ns],
 * oldest first.
 * @s: the sensor.
 * @from_ns: start of the interval, on the frame clock (excluded).
 * @to_ns: its end (included), at least @from_ns.
 * @samples: receives up to @max samples.
 * @max: room in @samples.
 * Return: the number of samples in the interval (may exceed @max: only the
 * first @max are written), -EINVAL for @to_ns before @from_ns or an
 * interval of more than CISP_GYRO_MAX_SAMPLES samples, or -ENOTSUP for a
 * sensor without a gyroscope.
 */
CISP_API int cisp_sensor_gyro(struct cisp_sensor *s, uint64_t from_ns, uint64_t to_ns, struct cisp_gyro_sample *samples,
			      unsigned max);

#ifdef __cplusplus
}
#endif

#endif /* CISP_GYRO_H */
