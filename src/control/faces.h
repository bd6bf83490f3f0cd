/* SPDX-License-Identifier: MIT */
/*
 * Faces for the control loop (docs/faces.md): the camera hands the loop
 * the faces of its latest detection; AE meters them (ae.c) and the AF
 * statistics window moves onto the largest (statistics.c).
 */
#ifndef CISP_CONTROL_FACES_H
#define CISP_CONTROL_FACES_H

#include <cisp/control.h>

#define CONTROL_MAX_FACES 8

/* A face's rectangle, in fractions (0..1) of the sensor mode's frame. */
struct control_face {
	double x, y, width, height;
};

struct control_faces {
	unsigned count; /* 0: no face, the normal metering and AF window */
	struct control_face face[CONTROL_MAX_FACES];
};

/* The faces the loop uses from the next cisp_control_process() on (@faces NULL or count 0: none). */
void control_set_faces(struct cisp_control *c, const struct control_faces *faces);

#endif /* CISP_CONTROL_FACES_H */
