/* SPDX-License-Identifier: MIT */
/*
 * Crop and scale (docs/stages/scale.md): separable, horizontal pass first.
 * Each axis has a table, built at create time with integer arithmetic, of the
 * first input sample and the Q14 weights (summing to 16384) of every output
 * sample: an area (box) filter with fractional coverage when shrinking,
 * centre-aligned linear interpolation when enlarging.
 */
#include <errno.h>
#include <stdlib.h>

#include <cisp/image.h>

#include "core/error_internal.h"
#include "scale.h"

struct axis {
	int taps;       /* weights per output sample (the widest one, others padded with 0) */
	int32_t *start; /* first input sample of each output sample */
	int32_t *w;     /* taps weights per output sample, Q14 */
};

struct cisp_scaler {
	int in_w, in_h, out_w, out_h;
	struct axis h, v;
};

/* round(t * 16384 / n), halves up: the cumulative weight of the first t of n units. */
static int32_t cumulative(int64_t t, int64_t n)
{
	return (int32_t)((2 * t * 16384 + n) / (2 * n));
}

/* Input span [*first, *last] and weights of output sample j (into @w, at most @max). */
static int sample_weights(int n, int m, int j, int *first, int32_t *w)
{
	if (m == n) {
		*first = j;
		w[0] = 16384;
		return 1;
	}
	if (m < n) {
		/* Area: output j covers [j*n, (j+1)*n) in units of 1/m input sample. */
		const int64_t lo = (int64_t)j * n, hi = lo + n;
		const int a = (int)(lo / m), b = (int)((hi - 1) / m);

		*first = a;
		for (int i = a; i <= b; i++) {
			int64_t s = (int64_t)i * m < lo ? lo : (int64_t)i * m;
			int64_t e = (int64_t)(i + 1) * m > hi ? hi : (int64_t)(i + 1) * m;
			w[i - a] = cumulative(e - lo, n) - cumulative(s - lo, n);
		}
		return b - a + 1;
	}
	/* Linear: the centre of output j is input position ((2j+1)*n - m) / 2m. */
	int64_t num = (int64_t)(2 * j + 1) * n - m;
	if (num < 0)
		num = 0;
	int i0 = (int)(num / (2 * m));
	if (i0 >= n - 1) {
		*first = n - 1;
		w[0] = 16384;
		return 1;
	}
	const int64_t rem = num - (int64_t)i0 * 2 * m;
	const int32_t f = (int32_t)((rem * 16384 + m) / (2 * m));
	*first = i0;
	w[0] = 16384 - f;
	w[1] = f;
	return 2;
}

static int axis_build(struct axis *ax, int n, int m)
{
	const int max = m < n ? n / m + 2 : 2;
	int32_t *tmp = malloc(sizeof(int32_t) * (size_t)max);
	int first;

	ax->start = malloc(sizeof(int32_t) * (size_t)m);
	if (!tmp || !ax->start) {
		free(tmp);
		return -ENOMEM;
	}
	ax->taps = 1;
	for (int j = 0; j < m; j++) {
		int k = sample_weights(n, m, j, &first, tmp);
		ax->taps = k > ax->taps ? k : ax->taps;
	}
	ax->w = calloc((size_t)m * (size_t)ax->taps, sizeof(int32_t));
	if (!ax->w) {
		free(tmp);
		return -ENOMEM;
	}
	for (int j = 0; j < m; j++) {
		int k = sample_weights(n, m, j, &first, tmp);
		/* Pad to ax->taps with zero weights, keeping every tap inside [0, n). */
		int s = first + ax->taps > n ? n - ax->taps : first;

		ax->start[j] = s;
		for (int i = 0; i < k; i++)
			ax->w[(size_t)j * ax->taps + (first - s) + i] = tmp[i];
	}
	free(tmp);
	return 0;
}

int cisp_scaler_create(struct cisp_scaler **s, int in_w, int in_h, int out_w, int out_h)
{
	struct cisp_scaler *sc;

	*s = NULL;
	if (in_w < 1 || in_h < 1 || out_w < 1 || out_h < 1 || in_w > CISP_MAX_DIMENSION ||
	    in_h > CISP_MAX_DIMENSION || out_w > CISP_MAX_DIMENSION || out_h > CISP_MAX_DIMENSION)
		return cisp_error(-EINVAL, "scaler: %dx%d to %dx%d is outside 1x1..%dx%d", in_w, in_h, out_w, out_h,
				  CISP_MAX_DIMENSION, CISP_MAX_DIMENSION);
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return cisp_error(-ENOMEM, "scaler: out of memory");
	sc->in_w = in_w;
	sc->in_h = in_h;
	sc->out_w = out_w;
	sc->out_h = out_h;
	if (axis_build(&sc->h, in_w, out_w) || axis_build(&sc->v, in_h, out_h)) {
		cisp_scaler_free(sc);
		return cisp_error(-ENOMEM, "scaler: out of memory for %dx%d to %dx%d tables", in_w, in_h, out_w,
				  out_h);
	}
	*s = sc;
	return 0;
}

void cisp_scaler_free(struct cisp_scaler *s)
{
	if (!s)
		return;
	free(s->h.start);
	free(s->h.w);
	free(s->v.start);
	free(s->v.w);
	free(s);
}

void cisp_scaler_table(const struct cisp_scaler *s, bool vertical, int *taps, const int32_t **start,
		       const int32_t **weights)
{
	const struct axis *ax = vertical ? &s->v : &s->h;

	*taps = ax->taps;
	*start = ax->start;
	*weights = ax->w;
}

/*
 * The horizontal pass of output samples [i0, i0 + n) of one input row @src,
 * in Q1 (0..131070), with @taps weights each: inlined with a constant for
 * the common counts, so that the tap loop unrolls.
 */
static inline void scale_row_h_taps(const struct cisp_scaler *s, const uint16_t *src, int i0, int n, int32_t *dst,
				    const int taps)
{
	for (int i = 0; i < n; i++) {
		const int32_t *hw = s->h.w + (size_t)(i0 + i) * taps;
		const uint16_t *p = src + s->h.start[i0 + i];
		int32_t sum = 4096;

		for (int t = 0; t < taps; t++)
			sum += hw[t] * p[t];
		/* Q1 keeps a 2x2 mean exact. */
		dst[i] = sum >> 13;
	}
}

static void scale_row_h(const struct cisp_scaler *s, const uint16_t *src, int i0, int n, int32_t *dst)
{
	switch (s->h.taps) {
	case 1: scale_row_h_taps(s, src, i0, n, dst, 1); break;
	case 2: scale_row_h_taps(s, src, i0, n, dst, 2); break;
	case 3: scale_row_h_taps(s, src, i0, n, dst, 3); break;
	case 4: scale_row_h_taps(s, src, i0, n, dst, 4); break;
	default: scale_row_h_taps(s, src, i0, n, dst, s->h.taps); break;
	}
}

/*
 * Neighbouring output rows share input rows: each input row's horizontal
 * pass is kept in a ring of v.taps rows (input row r in slot r mod taps, the
 * rows of one output sample being consecutive) and reused, not done again
 * for every output row that covers it. Without memory for the ring it is
 * done again each time: the same numbers.
 */
void cisp_scale_rows(const struct cisp_scaler *s, const struct rgb16 *in, int x, int y, const struct rgb16 *out,
		     int y0, int y1)
{
	enum { CHUNK = 128 }; /* two chunks of int32 on the stack: within the kernel build's 2 KiB frame limit */
	const int vt = s->v.taps;
	int32_t acc[CHUNK], once[CHUNK];
	int32_t *ring = malloc(sizeof(int32_t) * ((size_t)vt * CHUNK + (size_t)vt));
	int32_t *held = ring ? ring + (size_t)vt * CHUNK : NULL; /* the input row in each slot, or -1 */

	for (int c = 0; c < 3; c++) {
		for (int i0 = 0; i0 < s->out_w; i0 += CHUNK) {
			const int n = s->out_w - i0 < CHUNK ? s->out_w - i0 : CHUNK;

			for (int k = 0; held && k < vt; k++)
				held[k] = -1;
			for (int j = y0; j < y1; j++) {
				const int32_t *vw = s->v.w + (size_t)j * vt;
				uint16_t *dst = plane_row(&out->c[c], j) + i0;

				for (int i = 0; i < n; i++)
					acc[i] = 16384;
				for (int k = 0; k < vt; k++) {
					if (!vw[k])
						continue; /* padding: adds nothing */
					const int r = s->v.start[j] + k;
					const uint16_t *src = plane_row(&in->c[c], y + r) + x;
					int32_t *h = once;

					if (ring) {
						h = ring + (size_t)(r % vt) * CHUNK;
						if (held[r % vt] != r)
							scale_row_h(s, src, i0, n, h);
						held[r % vt] = r;
					} else {
						scale_row_h(s, src, i0, n, h);
					}
					for (int i = 0; i < n; i++)
						acc[i] += vw[k] * h[i];
				}
				for (int i = 0; i < n; i++)
					dst[i] = (uint16_t)(acc[i] >> 15);
			}
		}
	}
	free(ring);
}
