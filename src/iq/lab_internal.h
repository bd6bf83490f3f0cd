/* SPDX-License-Identifier: MIT */
/* The lab's camera (lab.c), for the measurements kept in files of their own. */
#ifndef CISP_IQ_LAB_INTERNAL_H
#define CISP_IQ_LAB_INTERNAL_H

#include <stdbool.h>

#include <cisp/iq_lab.h>
#include <cisp/image.h>
#include <cisp/params.h>
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

/*
 * Where the virtual sensor @s clips in a frame taken with @controls, as a
 * fraction of @m's range above black: its full well times the conversion
 * gain at the frame's gains, the white level when that comes first, and the
 * clip level of @tuning's highlights stage (its `saturation`) when lower.
 */
double lab_clip_level(struct cisp_sensor *s, const struct cisp_sensor_mode *m, const int32_t *controls,
		      const struct cisp_tuning *tuning);
/*
 * The raw levels of @n patches of @raw (@rects in output pixels), times the
 * lens-shading gain @lsc applies at each patch's centre (NULL: none), as the
 * highlights stage sees them: each colour's mean above black as a fraction of
 * the clip level @clip (of the range above black) into @level, and whether
 * the patch clipped (lab.c, "Metering") into @clipped. 0 or a negative errno.
 */
int lab_patch_levels(const struct cisp_image *raw, const struct cisp_sensor_mode *m, double clip,
		     const struct cisp_lsc_params *lsc, const struct cisp_iq_rect *rects, unsigned n, double (*level)[3],
		     bool *clipped);
/*
 * The exposure normalisation of cisp_iq_color_evaluate() on the patches
 * @use marks: the factor k minimising the sum of (k Y_measured - Y_reference)^2,
 * both at D50 (@rgb: measured linear sRGB; @xyz: references under @white).
 * 0 when no patch is used.
 */
double lab_exposure_scale(const double (*rgb)[3], const double (*xyz)[3], const double white[3], const bool *use,
			  unsigned n);

#endif
