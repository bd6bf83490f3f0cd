/* SPDX-License-Identifier: MIT */
/* The lab's camera (lab.c), for the measurements kept in files of their own. */
#ifndef CISP_IQ_LAB_INTERNAL_H
#define CISP_IQ_LAB_INTERNAL_H

#include <stdbool.h>

#include <cisp/iq_lab.h>
#include <cisp/params_state.h>
#include <cisp/sensor.h>
#include <cisp/tuning.h>

/* A frame the camera took once its loop had settled, and the parameters it was developed with. */
struct camera_shot {
	struct cisp_sensor *s;
	struct cisp_image raw;
	struct cisp_sensor_mode mode;
	struct cisp_param_state *state;
	struct cisp_tuning *tuning;
	unsigned frames;
	int exposure;
	double ev;   /* the exposure compensation the lab dialled in, stops */
	double clip; /* where the sensor clipped in the frame, of its range above black */
};

/*
 * The camera on @scene under @illuminant (@extra: more sensor options, or
 * NULL): its tuning's loop runs until AE and AWB settle, on the colour chart
 * with an exposure compensation that puts the white patch below clipping
 * (lab.c, "Metering"); 0 or a negative errno with a message. Free @out with
 * camera_shot_free().
 */
int camera_shoot(const struct cisp_iq_lab *lab, const char *scene, const char *illuminant, const char *extra,
		 struct camera_shot *out);
void camera_shot_free(struct camera_shot *c);
/*
 * Develop @shot with the backend and @state as the camera outputs it:
 * @encoded, its values as they are (tone curve and transfer applied), else
 * linearised (both undone).
 */
int develop_camera(const struct cisp_iq_lab *lab, const struct camera_shot *shot, const struct cisp_param_state *state,
		   bool encoded, struct cisp_iq_image *out);

#endif
