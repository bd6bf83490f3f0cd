/* SPDX-License-Identifier: MIT */
/* DNG opcode lists: lens corrections applied to the mosaic, the rest named and left out (dng_opcodes.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/log.h>

#include "io/dng_bytes.h"
#include "io/dng_opcodes.h"
#include "io/dng_warp.h"

#define FIX_VIGNETTE_RADIAL 3
#define GAIN_MAP 9
/* FixVignetteRadial's parameters: seven DOUBLEs; coefficients beyond the bound are no lens. */
#define VIGNETTE_BYTES 56
#define MAX_VIGNETTE_COEFFICIENT 1000.0
/* The fixed part of a GainMap's parameters: ten LONGs, four DOUBLEs, one LONG. */
#define GAIN_MAP_HEADER 76
/* Most points of a map in either direction, and the largest gain honoured. */
#define MAX_MAP_POINTS 4096
#define MAX_GAIN 16.0

static const char *const opcode_names[] = {
	"?", "WarpRectilinear", "WarpFisheye", "FixVignetteRadial", "FixBadPixelsConstant", "FixBadPixelsList",
	"TrimBounds", "MapTable", "MapPolynomial", "GainMap", "DeltaPerRow", "DeltaPerColumn", "ScalePerRow",
	"ScalePerColumn", "WarpRectilinear2",
};

struct gain_map {
	uint32_t top, left, bottom, right, plane, planes, row_pitch, col_pitch, points_v, points_h, map_planes;
	double spacing_v, spacing_h, origin_v, origin_h;
	const uint8_t *gains; /* points_v * points_h * map_planes big-endian floats, checked */
};

static int parse_gain_map(const uint8_t *p, size_t size, struct gain_map *m, char *why, size_t why_size)
{
	uint64_t need;

	if (size < GAIN_MAP_HEADER) {
		snprintf(why, why_size, "a GainMap of %zu bytes, fewer than its %d-byte header", size, GAIN_MAP_HEADER);
		return -EINVAL;
	}
	m->top = dng_be32(p), m->left = dng_be32(p + 4), m->bottom = dng_be32(p + 8), m->right = dng_be32(p + 12);
	m->plane = dng_be32(p + 16), m->planes = dng_be32(p + 20);
	m->row_pitch = dng_be32(p + 24), m->col_pitch = dng_be32(p + 28);
	m->points_v = dng_be32(p + 32), m->points_h = dng_be32(p + 36);
	m->spacing_v = dng_be_double(p + 40), m->spacing_h = dng_be_double(p + 48);
	m->origin_v = dng_be_double(p + 56), m->origin_h = dng_be_double(p + 64);
	m->map_planes = dng_be32(p + 72);
	m->gains = p + GAIN_MAP_HEADER;
	if (!m->points_v || !m->points_h || m->points_v > MAX_MAP_POINTS || m->points_h > MAX_MAP_POINTS ||
	    !m->map_planes || m->map_planes > 4 || !m->planes || !m->row_pitch || !m->col_pitch) {
		snprintf(why, why_size, "a GainMap of %ux%u points in %u planes, pitch %ux%u, for %u planes (points "
			 "1..%d, map planes 1..4, pitches and planes at least 1)", m->points_h, m->points_v,
			 m->map_planes, m->col_pitch, m->row_pitch, m->planes, MAX_MAP_POINTS);
		return -EINVAL;
	}
	need = GAIN_MAP_HEADER + 4ull * m->points_v * m->points_h * m->map_planes;
	if (need != size) {
		snprintf(why, why_size, "a GainMap of %ux%u points in %u planes needs %llu bytes, not %zu",
			 m->points_h, m->points_v, m->map_planes, (unsigned long long)need, size);
		return -EINVAL;
	}
	if (!isfinite(m->origin_v) || !isfinite(m->origin_h) || !(m->spacing_v > 0 && m->spacing_v < 1e6) ||
	    !(m->spacing_h > 0 && m->spacing_h < 1e6)) {
		snprintf(why, why_size, "a GainMap with spacing %g x %g and origin (%g, %g): spacing must be positive",
			 m->spacing_h, m->spacing_v, m->origin_h, m->origin_v);
		return -EINVAL;
	}
	for (uint64_t i = 0; i < (need - GAIN_MAP_HEADER) / 4; i++) {
		float g = dng_be_float(m->gains + 4 * i);
		if (!(g >= 0 && g <= MAX_GAIN)) {
			snprintf(why, why_size, "a GainMap gain of %g, not a number in 0..%g", (double)g, MAX_GAIN);
			return -EINVAL;
		}
	}
	return 0;
}

/* The map's gain at relative position @v, @h (0..1 over the image) for map plane @mp: bilinear, edges held. */
static double gain_at(const struct gain_map *m, double v, double h, uint32_t mp)
{
	double fv = (v - m->origin_v) / m->spacing_v, fh = (h - m->origin_h) / m->spacing_h;
	uint32_t v0, h0, v1, h1;
	double g00, g01, g10, g11;

	fv = fv < 0 ? 0 : fv > m->points_v - 1 ? m->points_v - 1 : fv;
	fh = fh < 0 ? 0 : fh > m->points_h - 1 ? m->points_h - 1 : fh;
	v0 = (uint32_t)fv, h0 = (uint32_t)fh;
	v1 = v0 + 1 < m->points_v ? v0 + 1 : v0;
	h1 = h0 + 1 < m->points_h ? h0 + 1 : h0;
	fv -= v0, fh -= h0;
#define G(r, c) (double)dng_be_float(m->gains + 4 * (((size_t)(r) * m->points_h + (c)) * m->map_planes + mp))
	g00 = G(v0, h0), g01 = G(v0, h1), g10 = G(v1, h0), g11 = G(v1, h1);
#undef G
	return (g00 * (1 - fh) + g01 * fh) * (1 - fv) + (g10 * (1 - fh) + g11 * fh) * fv;
}

/* Scale a sample above black by @gain, up to white; saturated samples stay saturated. */
static void scale_sample(struct cisp_raw_frame *frame, unsigned bits, uint8_t *row, uint32_t x, enum cisp_channel ch,
			 double gain)
{
	unsigned v = bits == 8 ? row[x] : (unsigned)(row[2 * x] | row[2 * x + 1] << 8);
	double out;

	if (v >= frame->white || v <= frame->black[ch])
		return;
	out = frame->black[ch] + (v - frame->black[ch]) * gain + 0.5;
	v = out >= frame->white ? frame->white : (unsigned)out;
	if (bits == 8) {
		row[x] = (uint8_t)v;
	} else {
		row[2 * x] = (uint8_t)v;
		row[2 * x + 1] = (uint8_t)(v >> 8);
	}
}

/* The plane of a sample of colour @ch: a mosaic is one plane in lists 1 and 2; list 3's are R, G, B. */
static uint32_t plane_of(int list, enum cisp_channel ch)
{
	return list != 3 ? 0 : ch == CISP_CH_R ? 0 : ch == CISP_CH_B ? 2 : 1;
}

/*
 * Scale each sample of the map's area by its gain. List 3 works on R, G, B
 * planes, applied here to the samples of those colours.
 */
static void apply_gain_map(const struct gain_map *m, int list, uint32_t width, uint32_t height,
			   struct cisp_raw_frame *frame)
{
	struct cisp_image *img = &frame->image;
	const struct cisp_format_info *fi = cisp_format_info(img->format);
	uint32_t bottom = m->bottom < img->height ? m->bottom : img->height;
	uint32_t right = m->right < img->width ? m->right : img->width;
	/* A pitch past the image applies to the first row or column only (and cannot wrap the counters). */
	uint32_t row_pitch = m->row_pitch < 65536 ? m->row_pitch : 65536;
	uint32_t col_pitch = m->col_pitch < 65536 ? m->col_pitch : 65536;

	for (uint32_t y = m->top; y < bottom; y += row_pitch) {
		uint8_t *row = img->plane[0].data + (size_t)y * img->plane[0].stride;

		for (uint32_t x = m->left; x < right; x += col_pitch) {
			enum cisp_channel ch = cisp_cfa_channel(fi->cfa, x, y);
			uint32_t plane = plane_of(list, ch), map_plane;

			if (plane < m->plane || plane - m->plane >= m->planes)
				continue;
			/* Planes past the map's last take its last plane (DNG): never an index past the map. */
			map_plane = plane - m->plane < m->map_planes ? plane - m->plane : m->map_planes - 1;
			scale_sample(frame, fi->bits, row, x, ch,
				     gain_at(m, (double)y / height, (double)x / width, map_plane));
		}
	}
}

/* FixVignetteRadial: k0..k4 of the gain's even polynomial in r, the optical centre in 0..1. */
struct vignette {
	double k[5], cx, cy;
};

static int parse_vignette(const uint8_t *p, size_t size, struct vignette *v, char *why, size_t why_size)
{
	if (size != VIGNETTE_BYTES) {
		snprintf(why, why_size, "a FixVignetteRadial of %zu bytes, not %d", size, VIGNETTE_BYTES);
		return -EINVAL;
	}
	for (int i = 0; i < 5; i++)
		v->k[i] = dng_be_double(p + 8 * i);
	v->cx = dng_be_double(p + 40), v->cy = dng_be_double(p + 48);
	for (int i = 0; i < 5; i++) {
		if (!(fabs(v->k[i]) <= MAX_VIGNETTE_COEFFICIENT)) {
			snprintf(why, why_size, "a FixVignetteRadial coefficient of %g, not a number in -%g..%g",
				 v->k[i], MAX_VIGNETTE_COEFFICIENT, MAX_VIGNETTE_COEFFICIENT);
			return -EINVAL;
		}
	}
	if (!(v->cx >= 0 && v->cx <= 1 && v->cy >= 0 && v->cy <= 1)) {
		snprintf(why, why_size, "a FixVignetteRadial with its optical centre at (%g, %g), outside 0..1", v->cx,
			 v->cy);
		return -EINVAL;
	}
	return 0;
}

/*
 * Every sample gains 1 + k0 r^2 + k1 r^4 + k2 r^6 + k3 r^8 + k4 r^10, r its
 * distance from the optical centre with the farthest corner at 1 (DNG), the
 * gain held in 0..16.
 */
static void apply_vignette(const struct vignette *v, uint32_t width, uint32_t height, struct cisp_raw_frame *frame)
{
	struct cisp_image *img = &frame->image;
	const struct cisp_format_info *fi = cisp_format_info(img->format);
	double cx = v->cx * (width - 1), cy = v->cy * (height - 1);
	double mx = fmax(cx, width - 1 - cx), my = fmax(cy, height - 1 - cy), m2 = mx * mx + my * my;

	for (uint32_t y = 0; y < img->height; y++) {
		uint8_t *row = img->plane[0].data + (size_t)y * img->plane[0].stride;

		for (uint32_t x = 0; x < img->width; x++) {
			double r2 = ((x - cx) * (x - cx) + (y - cy) * (y - cy)) / m2;
			double g = 1 + r2 * (v->k[0] + r2 * (v->k[1] + r2 * (v->k[2] + r2 * (v->k[3] + r2 * v->k[4]))));

			scale_sample(frame, fi->bits, row, x, cisp_cfa_channel(fi->cfa, x, y),
				     g < 0 ? 0 : g > MAX_GAIN ? MAX_GAIN : g);
		}
	}
}

/*
 * One opcode's parameters, @bytes at @p: checked, then applied when @apply.
 * 1 for an opcode cisp does not apply, 0, or a negative errno with the reason
 * in @why.
 */
static int run_opcode(uint32_t id, const uint8_t *p, uint32_t bytes, int list, uint32_t width, uint32_t height,
		      struct cisp_raw_frame *frame, bool apply, char *why, size_t why_size)
{
	struct gain_map map;
	struct vignette vignette;
	struct dng_warp warp;
	int ret;

	switch (id) {
	case GAIN_MAP:
		if ((ret = parse_gain_map(p, bytes, &map, why, why_size)) == 0 && apply)
			apply_gain_map(&map, list, width, height, frame);
		return ret;
	case FIX_VIGNETTE_RADIAL:
		if ((ret = parse_vignette(p, bytes, &vignette, why, why_size)) == 0 && apply)
			apply_vignette(&vignette, width, height, frame);
		return ret;
	case DNG_WARP_RECTILINEAR:
	case DNG_WARP_FISHEYE:
	case DNG_WARP_RECTILINEAR2:
		ret = dng_warp_parse(id, p, bytes, list, &warp, why, why_size);
		if (!ret && apply && (ret = dng_warp_apply(&warp, width, height, frame)))
			snprintf(why, why_size, "out of memory for a %ux%u warp", frame->image.width,
				 frame->image.height);
		return ret;
	default:
		return 1;
	}
}

/*
 * Walk the list: each opcode's header and parameters checked, and applied
 * when @apply (after a walk that checked them all, so that an error leaves
 * the frame as it was).
 */
static int walk(const uint8_t *data, size_t size, int list, uint32_t width, uint32_t height,
		struct cisp_raw_frame *frame, const char *name, bool apply)
{
	char why[200], skipped[200] = "";
	size_t at = 4, len = 0;
	uint32_t count = dng_be32(data);

	for (uint32_t i = 0; i < count; i++) {
		uint32_t id, flags, bytes;
		int ret;

		if (size - at < 16)
			return cisp_error(-EINVAL, "%s: a malformed DNG: OpcodeList%d says %u opcodes, but opcode %u "
					  "starts past its %zu bytes", name, list, count, i + 1, size);
		id = dng_be32(data + at), flags = dng_be32(data + at + 8), bytes = dng_be32(data + at + 12);
		at += 16;
		if (bytes > size - at)
			return cisp_error(-EINVAL, "%s: a malformed DNG: OpcodeList%d's opcode %u has %u bytes of "
					  "parameters, past the list's end", name, list, i + 1, bytes);
		ret = run_opcode(id, data + at, bytes, list, width, height, frame, apply, why, sizeof(why));
		if (ret < 0)
			return cisp_error(ret, "%s: %sOpcodeList%d's opcode %u: %s", name,
					  ret == -EINVAL ? "a malformed DNG: " : "", list, i + 1, why);
		if (ret > 0 && apply && len < sizeof(skipped) - 40)
			len += (size_t)snprintf(skipped + len, sizeof(skipped) - len, "%s%s%s", len ? ", " : "",
						id < sizeof(opcode_names) / sizeof(opcode_names[0]) ? opcode_names[id]
												     : "unknown",
						flags & 1 ? " (optional)" : "");
		at += bytes;
	}
	if (len)
		cisp_log(CISP_LOG_WARN, "%s: OpcodeList%d: not applied: %s", name, list, skipped);
	return 0;
}

int dng_opcodes_apply(const uint8_t *data, size_t size, int list, uint32_t width, uint32_t height,
		      struct cisp_raw_frame *frame, const char *name)
{
	int ret;

	if (size < 4)
		return cisp_error(-EINVAL, "%s: a malformed DNG: OpcodeList%d of %zu bytes has no count", name, list,
				  size);
	ret = walk(data, size, list, width, height, frame, name, false);
	return ret ? ret : walk(data, size, list, width, height, frame, name, true);
}
