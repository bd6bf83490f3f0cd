/* SPDX-License-Identifier: MIT */
/* DNG opcode lists: GainMap applied to the mosaic, the rest named and left out (dng_opcodes.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/log.h>

#include "io/dng_opcodes.h"

#define GAIN_MAP 9
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

/* Opcode lists are big-endian whatever the file's byte order. */
static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static double be_double(const uint8_t *p)
{
	uint64_t v = (uint64_t)be32(p) << 32 | be32(p + 4);
	double d;

	memcpy(&d, &v, sizeof(d));
	return d;
}

static float be_float(const uint8_t *p)
{
	uint32_t v = be32(p);
	float f;

	memcpy(&f, &v, sizeof(f));
	return f;
}

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
	m->top = be32(p), m->left = be32(p + 4), m->bottom = be32(p + 8), m->right = be32(p + 12);
	m->plane = be32(p + 16), m->planes = be32(p + 20), m->row_pitch = be32(p + 24), m->col_pitch = be32(p + 28);
	m->points_v = be32(p + 32), m->points_h = be32(p + 36);
	m->spacing_v = be_double(p + 40), m->spacing_h = be_double(p + 48);
	m->origin_v = be_double(p + 56), m->origin_h = be_double(p + 64);
	m->map_planes = be32(p + 72);
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
		float g = be_float(m->gains + 4 * i);
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
#define G(r, c) (double)be_float(m->gains + 4 * (((size_t)(r) * m->points_h + (c)) * m->map_planes + mp))
	g00 = G(v0, h0), g01 = G(v0, h1), g10 = G(v1, h0), g11 = G(v1, h1);
#undef G
	return (g00 * (1 - fh) + g01 * fh) * (1 - fv) + (g10 * (1 - fh) + g11 * fh) * fv;
}

/*
 * Scale each sample of the map's area above black by its gain. A mosaic
 * is one plane in lists 1 and 2; list 3 works on R, G, B planes, applied
 * here to the samples of those colours. Saturated samples stay saturated.
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
			uint32_t colour = ch == CISP_CH_R ? 0 : ch == CISP_CH_B ? 2 : 1, plane = list == 3 ? colour : 0;
			unsigned v = fi->bits == 8 ? row[x] : (unsigned)(row[2 * x] | row[2 * x + 1] << 8);
			uint32_t map_plane;
			double g, out;

			if (plane < m->plane || plane - m->plane >= m->planes || v >= frame->white || v <= frame->black[ch])
				continue;
			/* Planes past the map's last take its last plane (DNG): never an index past the map. */
			map_plane = plane - m->plane < m->map_planes ? plane - m->plane : m->map_planes - 1;
			g = gain_at(m, (double)y / height, (double)x / width, map_plane);
			out = frame->black[ch] + (v - frame->black[ch]) * g + 0.5;
			v = out >= frame->white ? frame->white : (unsigned)out;
			if (fi->bits == 8) {
				row[x] = (uint8_t)v;
			} else {
				row[2 * x] = (uint8_t)v;
				row[2 * x + 1] = (uint8_t)(v >> 8);
			}
		}
	}
}

int dng_opcodes_apply(const uint8_t *data, size_t size, int list, uint32_t width, uint32_t height,
		      struct cisp_raw_frame *frame, const char *name)
{
	char why[200], skipped[200] = "";
	size_t at = 4, len = 0;
	uint32_t count;

	if (size < 4)
		return cisp_error(-EINVAL, "%s: a malformed DNG: OpcodeList%d of %zu bytes has no count", name, list, size);
	count = be32(data);
	for (uint32_t i = 0; i < count; i++) {
		uint32_t id, flags, bytes;
		struct gain_map m;

		if (size - at < 16)
			return cisp_error(-EINVAL, "%s: a malformed DNG: OpcodeList%d says %u opcodes, but opcode %u "
					  "starts past its %zu bytes", name, list, count, i + 1, size);
		id = be32(data + at), flags = be32(data + at + 8), bytes = be32(data + at + 12);
		at += 16;
		if (bytes > size - at)
			return cisp_error(-EINVAL, "%s: a malformed DNG: OpcodeList%d's opcode %u has %u bytes of "
					  "parameters, past the list's end", name, list, i + 1, bytes);
		if (id == GAIN_MAP) {
			if (parse_gain_map(data + at, bytes, &m, why, sizeof(why)))
				return cisp_error(-EINVAL, "%s: a malformed DNG: OpcodeList%d's opcode %u: %s", name, list,
						  i + 1, why);
			apply_gain_map(&m, list, width, height, frame);
		} else if (len < sizeof(skipped) - 40) {
			len += (size_t)snprintf(skipped + len, sizeof(skipped) - len, "%s%s%s", len ? ", " : "",
						id < sizeof(opcode_names) / sizeof(opcode_names[0]) ? opcode_names[id]
												     : "unknown",
						flags & 1 ? " (optional)" : "");
		}
		at += bytes;
	}
	if (len)
		cisp_log(CISP_LOG_WARN, "%s: OpcodeList%d: not applied: %s", name, list, skipped);
	return 0;
}
