/* SPDX-License-Identifier: MIT */
/*
 * Global tone curve then transfer function, as one piecewise-linear function
 * over 112 segments spaced eight to an octave (docs/stages/tone.md).
 */
#ifndef CISP_ISP_TONE_H
#define CISP_ISP_TONE_H

#include <cisp/params.h>

#include "core/plane.h"

/* Segments of the tone function; tables are padded to 128 entries for two-register permutes. */
#define TONE_SEGMENTS 112
#define TONE_TABLE 128

struct cisp_tone_coeffs {
	uint16_t base[TONE_TABLE]; /* output at the segment's first input */
	int16_t rise[TONE_TABLE];  /* output change across the segment, clamped to 16 bits */
	uint16_t lut[65536];       /* the function at every input, for scalar rows and CNR */
};

/*
 * Segment of input @v (0..65535) and the position in it in 1/32768 of its width: with
 * s = max(0, floor(log2(v | 15)) - 3) the segment is 8 s + (v >> s) and the position
 * (v << (15 - s)) & 32767.
 */
static inline unsigned cisp_tone_segment(uint32_t v, uint32_t *pos)
{
	uint32_t x = v | 15, s = 0;

	while (x >= 16u << s)
		s++;
	*pos = (v << (15 - s)) & 32767;
	return 8 * s + (v >> s);
}

/* The tone function at input @v from the segment tables: base + rise * pos / 32768, rounded. */
static inline uint16_t cisp_tone_at(const struct cisp_tone_coeffs *c, uint32_t v)
{
	uint32_t pos;
	unsigned k = cisp_tone_segment(v, &pos);
	/* (rise * pos + 2^14) >> 15 as a floor division, kept non-negative for the shift. */
	int32_t r = (int32_t)(((uint32_t)((int32_t)c->rise[k] * (int32_t)pos + (1 << 14) + (1 << 30))) >> 15) -
		    (1 << 15);

	return (uint16_t)(c->base[k] + r);
}

void cisp_tone_prepare(struct cisp_tone_coeffs *c, const struct cisp_tone_params *p);
/* Rows [y0, y1); @in and @out may be the same planes. */
void cisp_tone_rows(const struct cisp_tone_coeffs *c, const struct rgb16 *in, const struct rgb16 *out, int y0,
		    int y1);
/* One row through the tone function (the dsp.h entry; this one reads c->lut); @s may be @d. */
void cisp_tone_row_c(const struct cisp_tone_coeffs *c, const uint16_t *s, uint16_t *d, int w);

#endif
