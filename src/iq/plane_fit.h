/* SPDX-License-Identifier: MIT */
/*
 * A least-squares plane v = a + b dx + c dy through samples at offsets
 * (dx, dy) from a point, and its value a at that point: a smoothed local
 * level that follows a slope (lens shading) instead of being pulled by it.
 */
#ifndef CISP_IQ_PLANE_FIT_H
#define CISP_IQ_PLANE_FIT_H

/* The sums of the normal equations; start from all zero. */
struct plane_fit {
	double n, sx, sy, sxx, syy, sxy, sv, svx, svy;
};

/* Add sample @v at offset (@dx, @dy). */
static inline void plane_fit_add(struct plane_fit *f, double dx, double dy, double v)
{
	f->n++;
	f->sx += dx;
	f->sy += dy;
	f->sxx += dx * dx;
	f->syy += dy * dy;
	f->sxy += dx * dy;
	f->sv += v;
	f->svx += v * dx;
	f->svy += v * dy;
}

/*
 * The plane's value at offset (0, 0); the samples' mean where their offsets
 * do not span a plane (all on one line), 0 without samples.
 */
double plane_fit_at_origin(const struct plane_fit *f);

#endif /* CISP_IQ_PLANE_FIT_H */
