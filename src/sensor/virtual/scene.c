/* SPDX-License-Identifier: MIT */
/*
 * Built-in scenes: a ColorChecker chart, a slanted-edge resolution chart,
 * gradients, a high-dynamic-range room with a lamp, a scene dominated by one
 * colour; and image files taken as reflectance. Edges are anti-aliased by
 * the exact area of a pixel they cover (axis-aligned boxes) or by the
 * distance to the edge (slanted edges), like a pixel's box aperture does.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error_internal.h"
#include "scene.h"

#define CHART_PATCH_FRACTION 0.8 /* chart height over field height */
#define SLANT_DEGREES 5.0

static void flat(struct vs_material *m, double r)
{
	for (int i = 0; i < VS_BANDS; i++)
		m->spectrum[i] = r;
	m->emissive = false;
}

static void patch(struct vs_material *m, int index)
{
	memcpy(m->spectrum, vs_colorchecker[index].r, sizeof(m->spectrum));
	m->emissive = false;
}

static void srgb_primary(struct vs_material *m, int c)
{
	memcpy(m->spectrum, vs_srgb_basis()[c], sizeof(m->spectrum));
	m->emissive = false;
}

/* Fraction of [a0, a1] covered by [b0, b1]. */
static double overlap(double a0, double a1, double b0, double b1)
{
	double lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? (hi - lo) / (a1 - a0) : 0.0;
}

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* ---- the chart layout, shared by rendering and the patch rectangles ---- */

struct chart {
	double s, g, u0, v0, w, h; /* patch side, gap, chart corner and size */
};

static struct chart chart_layout(double aspect)
{
	struct chart c;

	c.s = CHART_PATCH_FRACTION / 5.25;
	if (7.75 * c.s > 0.92 * aspect)
		c.s = 0.92 * aspect / 7.75;
	c.g = c.s / 4;
	c.w = 6 * c.s + 7 * c.g;
	c.h = 4 * c.s + 5 * c.g;
	c.u0 = (aspect - c.w) / 2;
	c.v0 = (1 - c.h) / 2;
	return c;
}

int vs_scene_chart_rect(const struct vs_scene *s, const struct vs_view *v, unsigned index, int32_t rect[4])
{
	struct chart c = chart_layout((double)v->width / v->height);
	double left, top, h = v->height;
	int32_t x0, x1, y0, y1;

	if (s->kind != VS_SCENE_CHART)
		return cisp_error(-ENODATA, "scene %s has no ColorChecker chart", s->name);
	if (index >= VS_CC_PATCHES)
		return cisp_error(-ERANGE, "ColorChecker patch %u does not exist (0..23)", index);
	left = c.u0 + c.g + (index % 6) * (c.s + c.g);
	top = c.v0 + c.g + (index / 6) * (c.s + c.g);
	/* Pixel x spans u in [x, x + 1] / height: keep the pixels wholly inside. */
	x0 = (int32_t)ceil(left * h);
	x1 = (int32_t)floor((left + c.s) * h);
	y0 = (int32_t)ceil(top * h);
	y1 = (int32_t)floor((top + c.s) * h);
	if (v->hflip) {
		int32_t t = (int32_t)v->width - x1;

		x1 = (int32_t)v->width - x0;
		x0 = t;
	}
	if (v->vflip) {
		int32_t t = (int32_t)v->height - y1;

		y1 = (int32_t)v->height - y0;
		y0 = t;
	}
	rect[0] = x0;
	rect[1] = y0;
	rect[2] = x1 - x0;
	rect[3] = y1 - y0;
	return 0;
}

/* The materials one pixel sees: at most 4, with their area fractions. */
struct mix {
	unsigned n;
	unsigned m[4];
	double w[4];
	double light; /* the scene light on reflective materials here */
};

/* What a shade function knows of the raster. */
struct frame {
	double aspect; /* width / height of the field of view */
	double p;      /* pixel size in scene units */
	double shift;  /* scene units the hdr scene's moving card has travelled; 0: no card */
	struct chart chart;
};

static void add(struct mix *x, unsigned m, double w)
{
	if (w > 0) {
		x->m[x->n] = m;
		x->w[x->n++] = w;
	}
}

/* Material weights of the pixel [u0, u0 + p] x [v0, v0 + p]. */
typedef void (*shade_fn)(const struct frame *f, double u0, double v0, struct mix *x);

/* Materials: 0..23 patches, 24 chart frame, 25 wall. */
static void shade_chart(const struct frame *f, double u0, double v0, struct mix *x)
{
	const struct chart *c = &f->chart;
	double u1 = u0 + f->p, v1 = v0 + f->p;
	double in_chart = overlap(u0, u1, c->u0, c->u0 + c->w) * overlap(v0, v1, c->v0, c->v0 + c->h);
	double uc = (u0 + u1) / 2 - c->u0 - c->g / 2, vc = (v0 + v1) / 2 - c->v0 - c->g / 2;
	int col = (int)floor(uc / (c->s + c->g)), row = (int)floor(vc / (c->s + c->g));
	double in_patch = 0;

	if (col >= 0 && col < 6 && row >= 0 && row < 4) {
		double l = c->u0 + c->g + col * (c->s + c->g), t = c->v0 + c->g + row * (c->s + c->g);

		in_patch = overlap(u0, u1, l, l + c->s) * overlap(v0, v1, t, t + c->s);
		add(x, (unsigned)(row * 6 + col), in_patch);
	}
	add(x, 24, in_chart - in_patch);
	add(x, 25, 1 - in_chart);
}

/* Materials: 0 light ground (0.8), 1 dark squares (0.2), 4:1 as ISO 12233 asks. */
static void shade_resolution(const struct frame *f, double u0, double v0, struct mix *x)
{
	const double q = 0.2, th = SLANT_DEGREES * M_PI / 180, ct = cos(th), st = sin(th);
	double u = u0 + f->p / 2, v = v0 + f->p / 2;
	/* The squares are far apart: only the nearest one can touch this pixel. */
	double i = round((u - f->aspect / 2) / (0.3 * f->aspect)), j = round((v - 0.5) / 0.3);
	double du, dv, lx, ly, dark;

	i = i < -1 ? -1 : i > 1 ? 1 : i;
	j = j < -1 ? -1 : j > 1 ? 1 : j;
	du = u - (f->aspect / 2 + i * 0.3 * f->aspect);
	dv = v - (0.5 + j * 0.3);
	lx = du * ct + dv * st;
	ly = -du * st + dv * ct;
	dark = clamp01(0.5 - (fmax(fabs(lx), fabs(ly)) - q / 2) / f->p);
	add(x, 0, 1 - dark);
	add(x, 1, dark);
}

/* Materials: 0 flat white, 1..3 sRGB primaries; four bands ramping 0 to 1 left to right. */
static void shade_gradient(const struct frame *f, double u0, double v0, struct mix *x)
{
	double t = clamp01((u0 + f->p / 2) / f->aspect);
	int band = (int)floor((v0 + f->p / 2) * 4);

	add(x, (unsigned)(band < 0 ? 0 : band > 3 ? 3 : band), t);
}

/* Materials: 0 wall, 1..6 the chart's neutral patches, 7 the lamp, 8 the moving card. */
static void shade_hdr(const struct frame *f, double u0, double v0, struct mix *x)
{
	const double lu = 0.3 * f->aspect, lv = 0.3, radius = 0.04, r0 = 0.12;
	double u = u0 + f->p / 2, v = v0 + f->p / 2, r = hypot(u - lu, v - lv);
	double lamp = clamp01(0.5 - (r - radius) / f->p), rest = 1 - lamp, side = 0.8 * f->aspect / 6;
	double in_row = overlap(v0, v0 + f->p, 0.72, 0.86), a = 0, card = 0;
	int i = (int)floor((u - 0.1 * f->aspect) / side);

	/* The moving card (option motion): dark, in front of the wall, the lamp and the patches. */
	if (f->shift != 0) {
		double l = fmod(0.05 * f->aspect + f->shift, f->aspect);

		l = l < 0 ? l + f->aspect : l;
		card = overlap(u0, u0 + f->p, l, l + 0.12) * overlap(v0, v0 + f->p, 0.2, 0.8);
		lamp *= 1 - card;
		rest *= 1 - card;
	}
	/* The lamp lights the room with an inverse-square-like falloff. */
	x->light = 1 / (1 + (r / r0) * (r / r0));
	if (i >= 0 && i < 6 && in_row > 0) {
		double l = 0.1 * f->aspect + i * side;

		a = overlap(u0, u0 + f->p, l, l + 0.8 * side) * in_row;
		add(x, (unsigned)(1 + i), a * rest);
	}
	add(x, 0, (1 - a) * rest);
	add(x, 7, lamp);
	add(x, 8, card);
}

/* Materials: 0 the dominant colour, 1 a small neutral card. */
static void shade_dominant(const struct frame *f, double u0, double v0, struct mix *x)
{
	double card = overlap(u0, u0 + f->p, f->aspect - 0.2, f->aspect - 0.1) * overlap(v0, v0 + f->p, 0.8, 0.9);

	add(x, 0, 1 - card);
	add(x, 1, card);
}

static void render_procedural(const struct vs_scene *s, const struct vs_view *v, const double (*resp)[3],
			      float *planes[3], shade_fn shade)
{
	struct frame f;

	f.aspect = (double)v->width / v->height;
	f.p = 1.0 / v->height;
	f.shift = v->shift * f.p;
	f.chart = chart_layout(f.aspect);
	for (uint32_t y = 0; y < v->height; y++) {
		uint32_t sy = v->vflip ? v->height - 1 - y : y;

		for (uint32_t x = 0; x < v->width; x++) {
			uint32_t sx = v->hflip ? v->width - 1 - x : x;
			struct mix mx = { .n = 0, .light = 1 };
			double rgb[3] = { 0, 0, 0 };
			size_t i = (size_t)y * v->width + x;

			shade(&f, sx * f.p, sy * f.p, &mx);
			for (unsigned k = 0; k < mx.n; k++) {
				const struct vs_material *m = &s->materials[mx.m[k]];
				double wgt = m->emissive ? mx.w[k] : mx.w[k] * mx.light;

				for (int c = 0; c < 3; c++)
					rgb[c] += wgt * resp[mx.m[k]][c];
			}
			for (int c = 0; c < 3; c++)
				planes[c][i] = rgb[c] > 0 ? (float)rgb[c] : 0.0f;
		}
	}
}

/*
 * Image scenes fill the field of view ("cover": scaled to the larger ratio,
 * centred, the excess cropped). Each output pixel averages the image pixels
 * its footprint covers when the image is larger, or interpolates bilinearly
 * when it is smaller.
 */
static void render_image(const struct vs_scene *s, const struct vs_view *v, const double (*resp)[3],
			 float *planes[3])
{
	double sx_ = (double)v->width / s->image_width, sy_ = (double)v->height / s->image_height;
	double scale = sx_ > sy_ ? sx_ : sy_; /* output pixels per image pixel */
	double ox = (s->image_width - v->width / scale) / 2, oy = (s->image_height - v->height / scale) / 2;
	const float *img = s->image;
	uint32_t iw = s->image_width, ih = s->image_height;

	for (uint32_t y = 0; y < v->height; y++) {
		uint32_t sy = v->vflip ? v->height - 1 - y : y;

		for (uint32_t x = 0; x < v->width; x++) {
			uint32_t sx = v->hflip ? v->width - 1 - x : x;
			double lin[3] = { 0, 0, 0 };

			if (scale < 0.67) {
				/* Box average over the footprint [fx0, fx1) x [fy0, fy1). */
				long fx0 = lround(ox + sx / scale), fx1 = lround(ox + (sx + 1) / scale);
				long fy0 = lround(oy + sy / scale), fy1 = lround(oy + (sy + 1) / scale);
				double n = 0;

				for (long j = fy0 < 0 ? 0 : fy0; j < fy1 && j < (long)ih; j++)
					for (long i = fx0 < 0 ? 0 : fx0; i < fx1 && i < (long)iw; i++) {
						const float *px = img + ((size_t)j * iw + (size_t)i) * 3;

						lin[0] += px[0];
						lin[1] += px[1];
						lin[2] += px[2];
						n++;
					}
				for (int c = 0; c < 3 && n > 0; c++)
					lin[c] /= n;
			} else {
				double fx = ox + (sx + 0.5) / scale - 0.5, fy = oy + (sy + 0.5) / scale - 0.5;
				long ix = (long)floor(fx), iy = (long)floor(fy);
				double ax = fx - ix, ay = fy - iy;

				for (int j = 0; j < 2; j++)
					for (int i = 0; i < 2; i++) {
						long cx = ix + i < 0 ? 0 : ix + i >= (long)iw ? (long)iw - 1 : ix + i;
						long cy = iy + j < 0 ? 0 : iy + j >= (long)ih ? (long)ih - 1 : iy + j;
						double wgt = (i ? ax : 1 - ax) * (j ? ay : 1 - ay);
						const float *px = img + ((size_t)cy * iw + (size_t)cx) * 3;

						for (int c = 0; c < 3; c++)
							lin[c] += wgt * px[c];
					}
			}
			for (int c = 0; c < 3; c++) {
				double val = lin[0] * resp[0][c] + lin[1] * resp[1][c] + lin[2] * resp[2][c];

				planes[c][(size_t)y * v->width + x] = val > 0 ? (float)val : 0.0f;
			}
		}
	}
}

void vs_scene_render(const struct vs_scene *s, const struct vs_view *v, const double (*resp)[3], float *planes[3])
{
	switch (s->kind) {
	case VS_SCENE_CHART:
		render_procedural(s, v, resp, planes, shade_chart);
		break;
	case VS_SCENE_RESOLUTION:
		render_procedural(s, v, resp, planes, shade_resolution);
		break;
	case VS_SCENE_GRADIENT:
		render_procedural(s, v, resp, planes, shade_gradient);
		break;
	case VS_SCENE_HDR:
		render_procedural(s, v, resp, planes, shade_hdr);
		break;
	case VS_SCENE_DOMINANT:
		render_procedural(s, v, resp, planes, shade_dominant);
		break;
	case VS_SCENE_IMAGE:
		render_image(s, v, resp, planes);
		break;
	default:
		vs_chart_render(s, v, resp, planes);
		break;
	}
}

/*
 * "backlit:R:FILE": a portrait against a window. The image, its reflectance
 * times R (0.01..1: 0.1 is about a dark skin tone in a well-exposed
 * photograph), fills the middle 70% of the width and height of a white
 * (reflectance 1) window, box-sampled; the window is the bright part the
 * face must be exposed against (docs/faces.md).
 */
static int backlit_create(const char *spec, struct vs_scene *s)
{
	const char *file = strchr(spec + 8, ':');
	char factor[32];
	char *end;
	float *img;
	int ret;

	s->kind = VS_SCENE_IMAGE;
	s->distance = 2.0;
	for (int c = 0; c < 3; c++)
		srgb_primary(&s->materials[c], c);
	s->num_materials = 3;
	if (!file || (size_t)(file - spec - 8) >= sizeof(factor))
		return cisp_error(-EINVAL, "scene '%s': backlit:REFLECTANCE:FILE, such as backlit:0.1:portrait.png",
				  spec);
	snprintf(factor, sizeof(factor), "%.*s", (int)(file - spec - 8), spec + 8);
	double r = strtod(factor, &end);
	if (end == factor || *end || !(r >= 0.01 && r <= 1))
		return cisp_error(-EINVAL, "scene '%s': the reflectance '%s' is not a number from 0.01 to 1", spec,
				  factor);
	ret = vs_image_load(file + 1, &s->image_width, &s->image_height, &s->image);
	if (ret)
		return ret;
	uint32_t w = s->image_width, h = s->image_height, pw = w * 7 / 10, ph = h * 7 / 10;
	uint32_t x0 = (w - pw) / 2, y0 = (h - ph) / 2;
	img = malloc((size_t)w * h * 3 * sizeof(*img));
	if (!img)
		return cisp_error(-ENOMEM, "scene '%s': out of memory", spec);
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			float *o = img + ((size_t)y * w + x) * 3;
			bool inside = pw && ph && x >= x0 && x < x0 + pw && y >= y0 && y < y0 + ph;
			const float *in = inside ? s->image + ((size_t)((y - y0) * (uint64_t)h / ph) * w +
							       (size_t)((x - x0) * (uint64_t)w / pw)) * 3 : NULL;

			for (int c = 0; c < 3; c++)
				o[c] = in ? (float)(in[c] * r) : 1.0f;
		}
	free(s->image);
	s->image = img;
	return 0;
}

int vs_scene_create(const char *spec, struct vs_scene **out)
{
	struct vs_scene *s = calloc(1, sizeof(*s));
	int ret = 0;

	*out = NULL;
	if (!s)
		return cisp_error(-ENOMEM, "scene: out of memory");
	snprintf(s->name, sizeof(s->name), "%s", spec);
	if (!strcasecmp(spec, "colorchart")) {
		s->kind = VS_SCENE_CHART;
		s->distance = 1.0;
		for (int i = 0; i < VS_CC_PATCHES; i++)
			patch(&s->materials[i], i);
		flat(&s->materials[24], 0.03);
		flat(&s->materials[25], 0.2);
		s->num_materials = 26;
	} else if (!strcasecmp(spec, "resolution")) {
		s->kind = VS_SCENE_RESOLUTION;
		s->distance = 0.8;
		flat(&s->materials[0], 0.8);
		flat(&s->materials[1], 0.2);
		s->num_materials = 2;
	} else if (!strcasecmp(spec, "gradient")) {
		s->kind = VS_SCENE_GRADIENT;
		s->distance = 2.0;
		flat(&s->materials[0], 1.0);
		for (int c = 0; c < 3; c++)
			srgb_primary(&s->materials[1 + c], c);
		s->num_materials = 4;
	} else if (!strcasecmp(spec, "hdr")) {
		s->kind = VS_SCENE_HDR;
		s->distance = 3.0;
		flat(&s->materials[0], 0.5);
		for (int i = 0; i < 6; i++)
			patch(&s->materials[1 + i], 18 + i);
		/* A 2700 K tungsten lamp, 300 times as bright as white paper next to it. */
		vs_blackbody(2700, s->materials[7].spectrum);
		s->materials[7].emissive = true;
		s->materials[7].luminance = 300;
		flat(&s->materials[8], 0.05); /* the moving card */
		s->num_materials = 9;
	} else if (!strncasecmp(spec, "dominant", 8) && (spec[8] == '\0' || spec[8] == ':')) {
		int idx = vs_patch_index(spec[8] ? spec + 9 : "green");

		if (idx < 0)
			ret = cisp_error(-EINVAL, "scene '%s': no ColorChecker patch named '%s'", spec, spec + 9);
		s->kind = VS_SCENE_DOMINANT;
		s->distance = 1.5;
		patch(&s->materials[0], idx < 0 ? 0 : idx);
		patch(&s->materials[1], 21); /* neutral 5 */
		s->num_materials = 2;
	} else if (vs_chart_create(spec, s)) {
		/* an IQ lab chart */
	} else if (!strncasecmp(spec, "backlit:", 8)) {
		ret = backlit_create(spec, s);
	} else {
		s->kind = VS_SCENE_IMAGE;
		s->distance = 2.0;
		for (int c = 0; c < 3; c++)
			srgb_primary(&s->materials[c], c);
		s->num_materials = 3;
		ret = vs_image_load(spec, &s->image_width, &s->image_height, &s->image);
		if (ret == -ENOENT)
			ret = cisp_error_prefix(ret, "scene '%s' is neither colorchart, resolution, gradient, hdr, "
					       "dominant[:patch], backlit:R:FILE, star, steps, flat, deadleaves nor a readable image", spec);
	}
	if (ret < 0) {
		vs_scene_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

void vs_scene_free(struct vs_scene *s)
{
	if (!s)
		return;
	free(s->image);
	free(s);
}
