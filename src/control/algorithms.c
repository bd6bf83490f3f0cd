/* SPDX-License-Identifier: MIT */
/*
 * The algorithms of each loop configuration, in the order they run. Within a
 * frame AWB goes before AE (AE meters with its gains), flicker before AE (AE
 * avoids its frequency) and AE before AF (AF waits for exposure); the blocks
 * are written after all have processed. A new algorithm is a file of its own
 * (struct control_algorithm), a line here and one in algorithm.h.
 */
#include <stddef.h>

#include "algorithm.h"

const struct control_algorithm *const control_camera_algorithms[] = {
	&statistics_algorithm,
	&black_level_algorithm,
	&defects_algorithm,
	&defect_pixels_section,
	&lens_shading_algorithm,
	&awb_algorithm,
	&flicker_algorithm,
	&ae_algorithm,
	&af_algorithm,
	&colour_matrix_algorithm,
	&noise_profile_algorithm,
	&denoise_algorithm,
	&tone_curve_algorithm,
	&ltm_algorithm,
	&highlights_algorithm,
	&provenance_section,
	NULL,
};

const struct control_algorithm *const control_grey_world_algorithms[] = {
	&grey_world_algorithm,
	NULL,
};
