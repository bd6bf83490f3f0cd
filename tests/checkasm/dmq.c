/* SPDX-License-Identifier: MIT */
/*
 * checkasm of the quality demosaic's passes (dsp.h dmq_green_rows,
 * dmq_blend_rows and dmq_colour_rows): whole frames of every CFA order in
 * chunks of random rows (the vector passes sometimes the whole frame in one
 * call), random and extreme samples, widths around the vector sizes; each
 * pass gets the C output of the pass before, so each is checked alone.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkasm.h"
#include "isp/demosaic_quality.h"
#include "isp/dsp.h"
#include "core/plane.h"

#define CHUNK 16

/* checkasm's generator, so that --seed picks the frames, sizes and chunks here too */
#define rnd32() checkasm_rnd()

enum pattern { P_RANDOM, P_EXTREMES, P_ZERO, P_MAX, P_SMALL, P_SMOOTH, P_STRIPES, P_KINDS };

static void fill_frame(uint16_t *p, int w, int h, enum pattern k)
{
	for (int y = 0; y < h; y++) {
		for (int x = 0; x < w; x++) {
			uint16_t v;

			switch (k) {
			case P_EXTREMES:
				v = rnd32() & 1 ? 65535 : 0;
				break;
			case P_ZERO:
				v = 0;
				break;
			case P_MAX:
				v = 65535;
				break;
			case P_SMALL:
				v = (uint16_t)(rnd32() & 15);
				break;
			case P_SMOOTH: /* a slow ramp with a little noise: the weights away from their ends */
				v = (uint16_t)((x * 97 + y * 131 + (x & 1) * 9000 + (y & 1) * 5000 + (rnd32() & 255)) & 0xffff);
				break;
			case P_STRIPES: /* fine stripes: saturated colour differences and gradients */
				v = ((x / 2 + y) & 1) ? 65535 : (uint16_t)(rnd32() & 1023);
				break;
			default:
				v = (uint16_t)rnd32();
			}
			p[(size_t)y * (size_t)w + (size_t)x] = v;
		}
	}
}

static struct plane16 plane_of(uint16_t *p, int w, int h)
{
	return (struct plane16){ p, w, 0, w, h };
}

/* Random chunks of 1..CHUNK rows covering [0, h). */
static int next_chunk(int y, int h)
{
	int n = 1 + (int)(rnd32() % CHUNK);

	return y + n < h ? y + n : h;
}

/* For the vector passes, which take any rows in the same scratch: one time in four the rest of the frame. */
static int next_vector_chunk(int y, int h)
{
	return rnd32() % 4 ? next_chunk(y, h) : h;
}

static int compare(const uint16_t *a, const uint16_t *b, int w, int h, const char *what, const char *level,
		   enum cisp_cfa cfa, int kind)
{
	for (int i = 0; i < w * h; i++) {
		if (a[i] != b[i]) {
			printf("FAIL %s %s %dx%d cfa %d pattern %d: row %d column %d: C %u, %s %u\n", what, level, w, h,
			       (int)cfa, kind, i / w, i % w, a[i], level, b[i]);
			return 0;
		}
	}
	return 1;
}

#define PLANES 11 /* of a frame in run_frame() */

/* One frame through the three passes of @t and of @ref; 1 when they agree. */
static int run_frame(const struct cisp_dsp *ref, const struct cisp_dsp *t, const char *level, int w, int h,
		     enum pattern kind, enum cisp_cfa cfa, unsigned fc, void *scratch, uint16_t *mem)
{
	size_t n = (size_t)w * (size_t)h;
	uint16_t *bay = mem, *cc = bay + n, *c2 = cc + n, *tc = c2 + n, *t2 = tc + n, *gc = t2 + n, *gt = gc + n;
	uint16_t *rc = gt + n, *bc = rc + n, *rt = bc + n, *bt = rt + n;
	struct plane16 pb = plane_of(bay, w, h), pgc = plane_of(gc, w, h), pgt = plane_of(gt, w, h);
	struct plane16 pcc = plane_of(cc, w, h), pc2 = plane_of(c2, w, h), ptc = plane_of(tc, w, h);
	struct plane16 pt2 = plane_of(t2, w, h);
	struct rgb16 oc = { { plane_of(rc, w, h), pgc, plane_of(bc, w, h) } };
	struct rgb16 ot = { { plane_of(rt, w, h), pgc, plane_of(bt, w, h) } };

	fill_frame(bay, w, h, kind);
	for (int y = 0, e; y < h; y = e) {
		e = next_chunk(y, h);
		ref->dmq_green_rows(&pb, cfa, &pcc, &pc2, y, e, scratch);
	}
	for (int y = 0, e; y < h; y = e) {
		e = next_vector_chunk(y, h);
		t->dmq_green_rows(&pb, cfa, &ptc, &pt2, y, e, scratch);
	}
	if (!compare(cc, tc, w, h, "dmq_green_rows gc", level, cfa, kind) ||
	    !compare(c2, t2, w, h, "dmq_green_rows g2", level, cfa, kind))
		return 0;
	/* Both blend passes read the C greens. */
	for (int y = 0, e; y < h; y = e) {
		e = next_chunk(y, h);
		ref->dmq_blend_rows(&pb, &pcc, &pc2, cfa, &pgc, y, e, scratch);
	}
	for (int y = 0, e; y < h; y = e) {
		e = next_vector_chunk(y, h);
		t->dmq_blend_rows(&pb, &pcc, &pc2, cfa, &pgt, y, e, scratch);
	}
	if (!compare(gc, gt, w, h, "dmq_blend_rows", level, cfa, kind))
		return 0;
	/* Both colour passes read the C green. */
	for (int y = 0, e; y < h; y = e) {
		e = next_chunk(y, h);
		ref->dmq_colour_rows(&pb, &pgc, cfa, fc, &oc, y, e, scratch);
	}
	for (int y = 0, e; y < h; y = e) {
		e = next_vector_chunk(y, h);
		t->dmq_colour_rows(&pb, &pgc, cfa, fc, &ot, y, e, scratch);
	}
	return compare(rc, rt, w, h, "dmq_colour_rows R", level, cfa, kind) &&
	       compare(bc, bt, w, h, "dmq_colour_rows B", level, cfa, kind);
}

static const int dmq_widths[] = { 16, 18, 20, 22, 24, 30, 34, 36, 38, 62, 66, 98, 130, 258, 1002 };
#define N_DMQ_WIDTHS (int)(sizeof(dmq_widths) / sizeof(dmq_widths[0]))

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* ns per pixel of the three passes on a 4000x64 frame in chunks of CHUNK rows (median of 5). */
static double bench_passes(const struct cisp_dsp *d, uint16_t *mem, void *scratch)
{
	const int w = 4000, h = 64;
	size_t n = (size_t)w * h;
	struct plane16 pb = plane_of(mem, w, h), pg = plane_of(mem + n, w, h);
	struct rgb16 o = { { plane_of(mem + 2 * n, w, h), pg, plane_of(mem + 3 * n, w, h) } };
	double t[5];

	fill_frame(mem, w, h, P_SMOOTH);
	for (int r = 0; r < 5; r++) {
		double t0 = seconds();

		for (int y = 0; y < h; y += CHUNK)
			d->dmq_green_rows(&pb, CISP_CFA_RGGB, &o.c[0], &o.c[2], y, y + CHUNK, scratch);
		for (int y = 0; y < h; y += CHUNK)
			d->dmq_blend_rows(&pb, &o.c[0], &o.c[2], CISP_CFA_RGGB, &pg, y, y + CHUNK, scratch);
		for (int y = 0; y < h; y += CHUNK)
			d->dmq_colour_rows(&pb, &pg, CISP_CFA_RGGB, 256, &o, y, y + CHUNK, scratch);
		t[r] = seconds() - t0;
	}
	qsort(t, 5, sizeof(t[0]), by_value);
	return t[2] * 1e9 / (double)n;
}

void checkasm_dmq(const struct cisp_dsp *ref, const struct cisp_dsp levels[], const int have[],
		  int bench, unsigned *passed, unsigned *failed)
{
	const int maxw = 4000, maxh = 64;
	uint16_t *mem = malloc(PLANES * sizeof(uint16_t) * (size_t)maxw * maxh);
	void *scratch = malloc(cisp_dmq_scratch_size(maxw, CHUNK));
	static const unsigned fcs[] = { 0, 77, 256, 300 };

	if (!mem || !scratch) {
		printf("FAIL dmq: out of memory\n");
		(*failed)++;
		free(mem);
		free(scratch);
		return;
	}
	for (int l = CISP_CPU_SCALAR + 1; l < CISP_CPU_LEVELS; l++) {
		const char *level = cisp_cpu_name((enum cisp_cpu_level)l);
		int ok = 1;

		if (!have[l] || (levels[l].dmq_green_rows == ref->dmq_green_rows &&
				 levels[l].dmq_blend_rows == ref->dmq_blend_rows &&
				 levels[l].dmq_colour_rows == ref->dmq_colour_rows))
			continue;
		for (int k = 0; ok && k < N_DMQ_WIDTHS; k++)
			for (int kind = 0; ok && kind < P_KINDS; kind++)
				for (int cfa = 0; ok && cfa < 4; cfa++) {
					int h = 16 + 2 * (int)(rnd32() % 12);

					ok = run_frame(ref, &levels[l], level, dmq_widths[k], h, (enum pattern)kind,
						       (enum cisp_cfa)cfa, fcs[rnd32() % 4], scratch, mem);
				}
		if (ok)
			(*passed)++;
		else
			(*failed)++;
		printf("%s %-14s %s\n", ok ? "ok  " : "FAIL", "dmq passes", level);
	}
	if (bench) {
		double c = bench_passes(ref, mem, scratch);

		printf("\n%-14s %8.3f", "dmq passes", c);
		for (int l = CISP_CPU_SCALAR + 1; l < CISP_CPU_LEVELS; l++) {
			if (!have[l])
				continue;
			if (levels[l].dmq_green_rows != ref->dmq_green_rows) {
				double v = bench_passes(&levels[l], mem, scratch);

				printf(" %7.3f %5.1fx", v, c / v);
			} else {
				printf(" %14s", "(C)");
			}
		}
		printf("\n");
	}
	free(mem);
	free(scratch);
}
