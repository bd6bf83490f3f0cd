/* SPDX-License-Identifier: MIT */
/*
 * checkasm of the highlights row (dsp.h highlights_row): each mode and CFA
 * order, row parities, clip levels from random sensor whites and gains,
 * knees from the lowest to the highest the ABI takes, on rows of random,
 * extreme, near-clipping and near-floor samples (the roll-offs between the lowest knee
 * and the highest clip level are where the arithmetic is) at every even width from 16 (the least
 * dsp.h allows) to 72 and wide ones; guard samples after each output row
 * must stay untouched.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "checkasm.h"
#include "isp/dsp.h"
#include "isp/highlights.h"

#define MAXW 1030
#define GUARD 32
#define CANARY 0x5AA5

#define rnd32 checkasm_rnd

enum fill { F_RANDOM, F_EXTREMES, F_NEAR_CLIP, F_MAX, F_ZERO, F_NEAR_KNEE, F_KINDS };

/* The highest of the colours' clip levels: samples near clipping range up to it. */
static unsigned highest_clip(const struct cisp_highlights_coeffs *c)
{
	unsigned m = 0;

	for (int k = 0; k < 3; k++)
		m = c->clip[k] > m ? c->clip[k] : m;
	return m;
}

/* Sample of kind @f for the colours' clip levels and knees of @c. */
static uint16_t sample(enum fill f, const struct cisp_highlights_coeffs *c)
{
	unsigned white = highest_clip(c), knee = c->knee;

	switch (f) {
	case F_EXTREMES:
		return rnd32() & 1 ? 65535 : 0;
	case F_NEAR_CLIP: { /* mostly from a little below the knee to a little over the clip level */
		unsigned lo = knee - knee / 8, v = lo + rnd32() % (white - lo + 2048);

		if (rnd32() % 4 == 0)
			return (uint16_t)rnd32();
		return (uint16_t)(v > 65535 ? 65535 : v);
	}
	case F_MAX:
		return 65535;
	case F_ZERO:
		return 0;
	case F_NEAR_KNEE: { /* a colour's knee, clip level, floor or twice its floor give or take a few */
		unsigned k = rnd32() % 3, which = rnd32() % 4;

		knee = which == 0 ? c->knees[k] : which == 1 ? c->clip[k] : which == 2 ? c->floors[k] : 2u * c->floors[k];
		return (uint16_t)(knee - 4 + rnd32() % 9);
	}
	default:
		return (uint16_t)rnd32();
	}
}

/* Coefficients of @mode from a random sensor white, knee, white-balance gains and CFA order. */
static void rand_coeffs(struct cisp_highlights_coeffs *c, unsigned mode)
{
	struct cisp_highlights_params p = { .mode = (uint16_t)mode };
	struct cisp_wb_params wb;

	p.white = rnd32() % 4 ? (uint16_t)(1024 + rnd32() % 64512) : 65535;
	p.knee = (uint16_t)(rnd32() % 3 ? 2048 + rnd32() % 1985 : rnd32() & 1 ? 2048 : 4032);
	for (int k = 0; k < 4; k++)
		wb.gain[k] = (uint16_t)(rnd32() % 3 ? 2048 + rnd32() % 8192 : 4096);
	cisp_highlights_prepare(c, &p, rnd32() % 4 ? &wb : NULL, (enum cisp_cfa)(rnd32() % 4));
}

/* One row of width @w at parity @y through both tables; 1 when they agree. */
static int one_case(const struct cisp_dsp *ref, const struct cisp_dsp *t, const struct cisp_highlights_coeffs *c,
		    int w, int y, enum fill f)
{
	static uint16_t in[5][MAXW + 16], oc[MAXW + GUARD + 8], ot[MAXW + GUARD + 8];
	const uint16_t *rows[5];
	int off = (int)(rnd32() & 7);

	for (int r = 0; r < 5; r++) {
		for (int x = 0; x < w + 8; x++)
			in[r][x] = sample(f, c);
		rows[r] = in[r] + (rnd32() & 7);
	}
	for (int x = 0; x < MAXW + GUARD + 8; x++)
		oc[x] = ot[x] = CANARY;
	ref->highlights_row(c, rows, oc + off, w, y);
	t->highlights_row(c, rows, ot + off, w, y);
	for (int x = 0; x < w + GUARD; x++) {
		if (oc[off + x] != ot[off + x]) {
			printf("FAIL highlights_row %s mode %u width %d row parity %d: column %d: C %u, %u%s\n",
			       cisp_cpu_name(t->level), c->mode, w, y & 1, x, oc[off + x], ot[off + x],
			       x >= w ? " (past the row)" : "");
			return 0;
		}
	}
	return 1;
}

void checkasm_highlights(const struct cisp_dsp *ref, const struct cisp_dsp levels[], const int have[], int bench,
			 unsigned *passed, unsigned *failed)
{
	static const int wide[] = { 64, 66, 96, 130, 254, 258, 640, 1022, 1024 };

	for (int l = CISP_CPU_SCALAR + 1; l < CISP_CPU_LEVELS; l++) {
		const struct cisp_dsp *t = &levels[l];
		int ok = 1;

		if (!have[l] || t->highlights_row == ref->highlights_row)
			continue;
		for (unsigned mode = 0; ok && mode < 3; mode++) {
			for (int f = 0; ok && f < F_KINDS; f++) {
				for (int w = 16; ok && w <= 72; w += 2)
					for (int rep = 0; ok && rep < 4; rep++) {
						struct cisp_highlights_coeffs c;

						rand_coeffs(&c, mode);
						ok = one_case(ref, t, &c, w, rep, (enum fill)f);
					}
				for (unsigned k = 0; ok && k < sizeof(wide) / sizeof(wide[0]); k++)
					for (int rep = 0; ok && rep < 4; rep++) {
						struct cisp_highlights_coeffs c;

						rand_coeffs(&c, mode);
						ok = one_case(ref, t, &c, wide[k], rep, (enum fill)f);
					}
			}
		}
		*passed += ok;
		*failed += !ok;
		printf("%s %-14s %s\n", ok ? "ok  " : "FAIL", "highlights_row", cisp_cpu_name((enum cisp_cpu_level)l));
	}
	if (!bench)
		return;
	/* ns per sample of a 1024-sample row near clipping (every pixel computed), per mode and level. */
	printf("\n%-22s %8s", "highlights_row", "C ns/px");
	for (int l = CISP_CPU_SCALAR + 1; l < CISP_CPU_LEVELS; l++)
		if (have[l])
			printf(" %14s", cisp_cpu_name((enum cisp_cpu_level)l));
	printf("\n");
	for (unsigned mode = 0; mode < 3; mode++) {
		static uint16_t in[5][1024], out[1024];
		const uint16_t *rows[5] = { in[0], in[1], in[2], in[3], in[4] };
		struct cisp_highlights_params p = { .mode = (uint16_t)mode, .white = 65535, .knee = 3686 };
		struct cisp_highlights_coeffs c;
		double base = 0;

		cisp_highlights_prepare(&c, &p, NULL, CISP_CFA_RGGB);
		for (int r = 0; r < 5; r++)
			for (int x = 0; x < 1024; x++)
				in[r][x] = (uint16_t)(c.knee + rnd32() % (65536 - c.knee));
		printf("%-22s", mode == 0 ? "  clip" : mode == 1 ? "  blend" : "  reconstruct");
		for (int l = CISP_CPU_SCALAR; l < CISP_CPU_LEVELS; l++) {
			const struct cisp_dsp *d = l == CISP_CPU_SCALAR ? ref : &levels[l];
			double best = 1e30;

			if (l != CISP_CPU_SCALAR && !have[l])
				continue;
			for (int k = 0; k < 15; k++) {
				double t0 = checkasm_now();

				for (int rep = 0; rep < 50; rep++)
					d->highlights_row(&c, rows, out, 1024, rep);
				t0 = checkasm_now() - t0;
				best = t0 < best ? t0 : best;
			}
			best = best * 1e9 / (50.0 * 1024);
			if (l == CISP_CPU_SCALAR) {
				base = best;
				printf(" %8.3f", best);
			} else {
				printf(" %7.3f %5.1fx", best, base / best);
			}
		}
		printf("\n");
	}
}
