/* SPDX-License-Identifier: MIT */
/* Crop and scale three planes to an output size (area filter down, interpolation up). */
#ifndef CISP_ISP_SCALE_H
#define CISP_ISP_SCALE_H

#include <stdbool.h>

#include "core/plane.h"

struct cisp_scaler;

/* A scaler from a @in_w x @in_h rectangle to @out_w x @out_h; 0, -EINVAL or -ENOMEM. */
int cisp_scaler_create(struct cisp_scaler **s, int in_w, int in_h, int out_w, int out_h);
void cisp_scaler_free(struct cisp_scaler *s);
/*
 * One axis's table (@vertical: the rows', else the columns'), for a GPU to
 * run the same arithmetic: *@taps weights per output sample, *@start the
 * first input sample of each output sample and *@weights their Q14 weights,
 * @taps a sample (padding weights 0), both owned by @s.
 */
void cisp_scaler_table(const struct cisp_scaler *s, bool vertical, int *taps, const int32_t **start,
		       const int32_t **weights);
/* Output rows [y0, y1) of @out from the rectangle at (@x, @y) of @in. */
void cisp_scale_rows(const struct cisp_scaler *s, const struct rgb16 *in, int x, int y, const struct rgb16 *out,
		     int y0, int y1);

#endif
