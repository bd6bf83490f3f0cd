/* SPDX-License-Identifier: MIT */
/* WarpRectilinear, WarpFisheye and WarpRectilinear2 on the mosaic (dng_warp.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/format.h>

#include "io/dng_bytes.h"
#include "io/dng_warp.h"

/* Coefficients beyond this are no lens: refused, which also keeps every source position finite. */
#define MAX_COEFFICIENT 1000.0
/* A reciprocal polynomial nearer 0 than this moves samples more than 1000 times their radius: refused. */
#define MIN_RECIPROCAL 1e-3
/* Radii at which a reciprocal polynomial is checked over its range. */
#define RECIPROCAL_CHECKS 1024

static const char *warp_name(uint32_t id)
{
	return id == DNG_WARP_RECTILINEAR ? "WarpRectilinear"
	       : id == DNG_WARP_FISHEYE   ? "WarpFisheye"
					  : "WarpRectilinear2";
}

/* The DOUBLE at @p into @k: 0, or -EINVAL where it is not a number within +-MAX_COEFFICIENT. */
static int coefficient(const uint8_t *p, uint32_t id, double *k, char *why, size_t why_size)
{
	*k = dng_be_double(p);
	if (fabs(*k) <= MAX_COEFFICIENT)
		return 0;
	snprintf(why, why_size, "a %s coefficient of %g, not a number in -%g..%g", warp_name(id), *k, MAX_COEFFICIENT,
		 MAX_COEFFICIENT);
	return -EINVAL;
}

/*
 * The rectilinear warps' radial ratio (source over destination radius) at
 * radius @r, clamped to @plane's range: the polynomial in r, or its reciprocal.
 */
static double radial_ratio(const struct dng_warp *warp, uint32_t plane, double r)
{
	const double *kr = warp->radial[plane];
	double poly = kr[DNG_WARP_RADIAL_TERMS - 1];

	r = r < warp->r_min[plane] ? warp->r_min[plane] : r > warp->r_max[plane] ? warp->r_max[plane] : r;
	for (int i = DNG_WARP_RADIAL_TERMS - 2; i >= 0; i--)
		poly = poly * r + kr[i];
	return warp->reciprocal ? 1 / poly : poly;
}

/* One plane's coefficients at @p (6 for WarpRectilinear, 4 for WarpFisheye, 19 for WarpRectilinear2). */
static int parse_plane(struct dng_warp *warp, uint32_t plane, const uint8_t *p, char *why, size_t why_size)
{
	double *kr = warp->radial[plane];
	int ret = 0;

	warp->r_min[plane] = 0;
	warp->r_max[plane] = 1;
	if (warp->id == DNG_WARP_FISHEYE) {
		for (int i = 0; i < 4 && !ret; i++)
			ret = coefficient(p + 8 * i, warp->id, &kr[i], why, why_size);
		return ret;
	}
	if (warp->id == DNG_WARP_RECTILINEAR) {
		/* kr0..kr3 are the coefficients of r^0, r^2, r^4, r^6. */
		for (int i = 0; i < 4 && !ret; i++)
			ret = coefficient(p + 8 * i, warp->id, &kr[2 * i], why, why_size);
		for (int i = 0; i < 2 && !ret; i++)
			ret = coefficient(p + 32 + 8 * i, warp->id, &warp->tangential[plane][i], why, why_size);
		return ret;
	}
	for (int i = 0; i < DNG_WARP_RADIAL_TERMS && !ret; i++)
		ret = coefficient(p + 8 * i, warp->id, &kr[i], why, why_size);
	for (int i = 0; i < 2 && !ret; i++)
		ret = coefficient(p + 8 * (DNG_WARP_RADIAL_TERMS + i), warp->id, &warp->tangential[plane][i], why,
				  why_size);
	if (ret)
		return ret;
	warp->r_min[plane] = dng_be_double(p + 8 * (DNG_WARP_RADIAL_TERMS + 2));
	warp->r_max[plane] = dng_be_double(p + 8 * (DNG_WARP_RADIAL_TERMS + 3));
	if (!(warp->r_min[plane] >= 0 && warp->r_min[plane] < warp->r_max[plane] && warp->r_max[plane] <= 1)) {
		snprintf(why, why_size, "a WarpRectilinear2 with the radius range %g..%g, not within 0..1", warp->r_min[plane],
			 warp->r_max[plane]);
		return -EINVAL;
	}
	return 0;
}

/* A reciprocal model's polynomial stays away from 0 over each plane's range (at RECIPROCAL_CHECKS + 1 radii). */
static int check_reciprocal(const struct dng_warp *warp, char *why, size_t why_size)
{
	for (uint32_t plane = 0; plane < warp->planes; plane++) {
		for (int i = 0; i <= RECIPROCAL_CHECKS; i++) {
			double r = warp->r_min[plane] + (warp->r_max[plane] - warp->r_min[plane]) * i / RECIPROCAL_CHECKS;

			if (!(fabs(radial_ratio(warp, plane, r)) <= 1 / MIN_RECIPROCAL)) {
				snprintf(why, why_size, "a reciprocal WarpRectilinear2 whose polynomial nears 0 at radius %g",
					 r);
				return -EINVAL;
			}
		}
	}
	return 0;
}

int dng_warp_parse(uint32_t id, const uint8_t *p, size_t size, int list, struct dng_warp *warp, char *why,
		   size_t why_size)
{
	const char *name = warp_name(id);
	unsigned per_plane = id == DNG_WARP_RECTILINEAR ? 6 : id == DNG_WARP_FISHEYE ? 4 : DNG_WARP_RADIAL_TERMS + 4;
	/* After the planes: the centre, and WarpRectilinear2's reciprocal flag. */
	unsigned tail = id == DNG_WARP_RECTILINEAR2 ? 20 : 16;
	uint64_t need;
	int ret;

	memset(warp, 0, sizeof(*warp));
	warp->id = id;
	if (size < 4) {
		snprintf(why, why_size, "a %s of %zu bytes has no plane count", name, size);
		return -EINVAL;
	}
	warp->planes = dng_be32(p);
	/* A mosaic is one plane; the demosaiced image of list 3 is three. */
	if (warp->planes != 1 && (list != 3 || warp->planes != 3)) {
		snprintf(why, why_size, "a %s for %u planes in OpcodeList%d (1 plane%s)", name, warp->planes, list,
			 list == 3 ? ", or 3" : "");
		return -EINVAL;
	}
	need = 4 + 8ull * per_plane * warp->planes + tail;
	if (size != need) {
		snprintf(why, why_size, "a %s for %u planes needs %llu bytes, not %zu", name, warp->planes,
			 (unsigned long long)need, size);
		return -EINVAL;
	}
	for (uint32_t plane = 0; plane < warp->planes; plane++)
		if ((ret = parse_plane(warp, plane, p + 4 + 8 * per_plane * plane, why, why_size)))
			return ret;
	warp->cx = dng_be_double(p + size - tail);
	warp->cy = dng_be_double(p + size - tail + 8);
	if (!(warp->cx >= 0 && warp->cx <= 1 && warp->cy >= 0 && warp->cy <= 1)) {
		snprintf(why, why_size, "a %s with its optical centre at (%g, %g), outside 0..1", name, warp->cx,
			 warp->cy);
		return -EINVAL;
	}
	if (id == DNG_WARP_RECTILINEAR2 && (warp->reciprocal = dng_be32(p + size - 4) != 0))
		return check_reciprocal(warp, why, why_size);
	return 0;
}

/*
 * Where destination offset @dx, @dy from the optical centre (in units of the
 * distance to the farthest corner) takes its sample from, by @plane's
 * coefficients (DNG 1.4 WarpRectilinear and WarpFisheye, DNG 1.6
 * WarpRectilinear2).
 */
static void source_offset(const struct dng_warp *warp, uint32_t plane, double dx, double dy, double *sx, double *sy)
{
	double r2 = dx * dx + dy * dy;

	if (warp->id != DNG_WARP_FISHEYE) {
		const double *kt = warp->tangential[plane];
		double f = radial_ratio(warp, plane, sqrt(r2));

		*sx = f * dx + kt[0] * 2 * dx * dy + kt[1] * (r2 + 2 * dx * dx);
		*sy = f * dy + kt[1] * 2 * dx * dy + kt[0] * (r2 + 2 * dy * dy);
	} else {
		const double *k = warp->radial[plane];
		double r = sqrt(r2), t = atan(r), t2 = t * t;
		double rd = t * (k[0] + t2 * (k[1] + t2 * (k[2] + t2 * k[3])));
		double scale = r > 0 ? rd / r : k[0]; /* atan(r) / r tends to 1 at the centre */

		*sx = scale * dx;
		*sy = scale * dy;
	}
}

static unsigned get(const uint8_t *row, unsigned bytes, uint32_t x)
{
	return bytes == 1 ? row[x] : (unsigned)(row[2 * x] | row[2 * x + 1] << 8);
}

/*
 * The mosaic @src at position @sx, @sy, interpolated bilinearly from the
 * samples of the CFA site at parity @px, @py (one colour, 2 pixels apart),
 * positions outside the image held at its edge. A value drawn from a
 * saturated sample stays saturated, so that highlight handling still sees
 * the clip.
 */
static unsigned site_sample(const struct cisp_image *src, unsigned bytes, unsigned white, uint32_t px, uint32_t py,
			    double sx, double sy)
{
	uint32_t nu = src->width / 2, nv = src->height / 2, u0, v0, u1, v1;
	double u = (sx - px) / 2, v = (sy - py) / 2, fu, fv, out;
	const uint8_t *r0, *r1;
	unsigned s00, s01, s10, s11;

	u = u > 0 ? (u < nu - 1 ? u : nu - 1) : 0;
	v = v > 0 ? (v < nv - 1 ? v : nv - 1) : 0;
	u0 = (uint32_t)u, v0 = (uint32_t)v;
	u1 = u0 + 1 < nu ? u0 + 1 : u0;
	v1 = v0 + 1 < nv ? v0 + 1 : v0;
	fu = u - u0, fv = v - v0;
	r0 = src->plane[0].data + (size_t)(py + 2 * v0) * src->plane[0].stride;
	r1 = src->plane[0].data + (size_t)(py + 2 * v1) * src->plane[0].stride;
	s00 = get(r0, bytes, px + 2 * u0), s01 = get(r0, bytes, px + 2 * u1);
	s10 = get(r1, bytes, px + 2 * u0), s11 = get(r1, bytes, px + 2 * u1);
	if ((s00 >= white && (1 - fu) * (1 - fv) > 0) || (s01 >= white && fu * (1 - fv) > 0) ||
	    (s10 >= white && (1 - fu) * fv > 0) || (s11 >= white && fu * fv > 0))
		return white;
	out = (s00 * (1 - fu) + s01 * fu) * (1 - fv) + (s10 * (1 - fu) + s11 * fu) * fv;
	return (unsigned)(out + 0.5);
}

int dng_warp_apply(const struct dng_warp *warp, uint32_t width, uint32_t height, struct cisp_raw_frame *frame)
{
	struct cisp_image *img = &frame->image, src = *img;
	const struct cisp_format_info *fi = cisp_format_info(img->format);
	unsigned bytes = fi->bits == 8 ? 1 : 2;
	size_t row_bytes = (size_t)img->width * bytes;
	/* The spec's coordinates: the first pixel at 0, the last at width - 1 and height - 1. */
	double cx = warp->cx * (width - 1), cy = warp->cy * (height - 1);
	double mx = fmax(cx, width - 1 - cx), my = fmax(cy, height - 1 - cy), m = hypot(mx, my);
	uint8_t *copy = malloc(row_bytes * img->height);
	unsigned plane_at[2][2]; /* the coefficients' plane of each CFA site */

	if (!copy)
		return -ENOMEM;
	for (uint32_t y = 0; y < img->height; y++)
		memcpy(copy + y * row_bytes, img->plane[0].data + (size_t)y * img->plane[0].stride, row_bytes);
	src.plane[0].data = copy;
	src.plane[0].stride = row_bytes;
	for (unsigned i = 0; i < 4; i++) {
		enum cisp_channel ch = cisp_cfa_channel(fi->cfa, i & 1, i >> 1);
		plane_at[i >> 1][i & 1] = warp->planes == 1 ? 0 : ch == CISP_CH_R ? 0 : ch == CISP_CH_B ? 2 : 1;
	}
	for (uint32_t y = 0; y < img->height; y++) {
		uint8_t *row = img->plane[0].data + (size_t)y * img->plane[0].stride;
		double dy = (y - cy) / m;

		for (uint32_t x = 0; x < img->width; x++) {
			double sx, sy;
			unsigned v;

			source_offset(warp, plane_at[y & 1][x & 1], (x - cx) / m, dy, &sx, &sy);
			v = site_sample(&src, bytes, frame->white, x & 1, y & 1, cx + m * sx, cy + m * sy);
			if (bytes == 1) {
				row[x] = (uint8_t)v;
			} else {
				row[2 * x] = (uint8_t)v;
				row[2 * x + 1] = (uint8_t)(v >> 8);
			}
		}
	}
	free(copy);
	return 0;
}
