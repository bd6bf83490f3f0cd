/* SPDX-License-Identifier: MIT */
/*
 * checkasm of the local tone mapping row (dsp.h ltm_row) at every width
 * from 1 to 130 and a few wide ones: random grids from 2 to 32 nodes across,
 * so that the runs of columns between two nodes are of every length, odd
 * ones and ones shorter than a vector included; random levels, gains and
 * range; rows of random, extreme and dark samples; in place and not.
 * Guard samples after each output row must stay untouched.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "checkasm.h"
#include "isp/dsp.h"
#include "isp/ltm.h"

#define MAXW 1632
#define GUARD 32
#define CANARY 0x5AA5
#define HEIGHT 48

#define rnd32 checkasm_rnd

enum fill { F_RANDOM, F_EXTREMES, F_DARK, F_KINDS };

static uint16_t sample(enum fill f)
{
	switch (f) {
	case F_EXTREMES:
		return rnd32() & 1 ? 65535 : 0;
	case F_DARK: /* levels near 0, where cisp_ltm_level() is steepest */
		return (uint16_t)(rnd32() % 64);
	default:
		return (uint16_t)rnd32();
	}
}

/* A random grid and range for a @w x HEIGHT frame; 0 when cisp_ltm_prepare() takes it. */
static int rand_coeffs(struct cisp_ltm_coeffs *c, int w)
{
	static struct cisp_ltm_params p;

	p.grid_w = (uint16_t)(2 + rnd32() % (CISP_LTM_MAX_GRID - 1));
	p.grid_h = (uint16_t)(2 + rnd32() % 8);
	p.range = (uint16_t)(rnd32() % 4 ? 64 + rnd32() % 961 : rnd32() & 1 ? 64 : 1024);
	for (int k = 0; k < p.grid_w * p.grid_h; k++) {
		p.node[k] = (uint16_t)(rnd32() % 4096);
		p.node[p.grid_w * p.grid_h + k] = (uint16_t)(16 + rnd32() % 4080);
	}
	return cisp_ltm_prepare(c, &p, w < 2 ? 2 : w, HEIGHT);
}

/* One row of width @w through both tables, in place or not; 1 when they agree. */
static int one_case(const struct cisp_dsp *ref, const struct cisp_dsp *t, const struct cisp_ltm_coeffs *c, int w,
		    enum fill f, int in_place)
{
	static uint16_t in[3][MAXW], oc[3][MAXW + GUARD + 8], ot[3][MAXW + GUARD + 8];
	const int y = (int)(rnd32() % HEIGHT), off = (int)(rnd32() & 7);
	const uint16_t *src_c[3], *src_t[3];
	uint16_t *dst_c[3], *dst_t[3];

	for (int k = 0; k < 3; k++) {
		for (int x = 0; x < MAXW + GUARD + 8; x++)
			oc[k][x] = ot[k][x] = CANARY;
		for (int x = 0; x < w; x++)
			in[k][x] = sample(f);
		dst_c[k] = oc[k] + off;
		dst_t[k] = ot[k] + off;
		if (in_place) {
			memcpy(dst_c[k], in[k], (size_t)w * sizeof(uint16_t));
			memcpy(dst_t[k], in[k], (size_t)w * sizeof(uint16_t));
		}
		src_c[k] = in_place ? dst_c[k] : in[k];
		src_t[k] = in_place ? dst_t[k] : in[k];
	}
	ref->ltm_row(c, src_c, dst_c, w, y);
	t->ltm_row(c, src_t, dst_t, w, y);
	for (int k = 0; k < 3; k++)
		for (int x = 0; x < off + w + GUARD; x++)
			if (oc[k][x] != ot[k][x]) {
				printf("FAIL ltm_row %s width %d grid %d%s: plane %d column %d: C %u, %u%s\n",
				       cisp_cpu_name(t->level), w, c->grid_w, in_place ? " in place" : "", k, x - off,
				       oc[k][x], ot[k][x], x < off || x >= off + w ? " (outside the row)" : "");
				return 0;
			}
	return 1;
}

void checkasm_ltm(const struct cisp_dsp *ref, const struct cisp_dsp levels[], const int have[], unsigned *passed,
		  unsigned *failed)
{
	static const int wide[] = { 254, 258, 640, 1001, 1280, 1632 };
	static struct cisp_ltm_coeffs c;

	for (int l = CISP_CPU_SCALAR + 1; l < CISP_CPU_LEVELS; l++) {
		const struct cisp_dsp *t = &levels[l];
		int ok = 1;

		if (!have[l] || t->ltm_row == ref->ltm_row)
			continue;
		for (int f = 0; ok && f < F_KINDS; f++) {
			for (int w = 1; ok && w <= 130; w++)
				for (int rep = 0; ok && rep < 4; rep++)
					ok = rand_coeffs(&c, w) == 0 && one_case(ref, t, &c, w, (enum fill)f, rep & 1);
			for (unsigned k = 0; ok && k < sizeof(wide) / sizeof(wide[0]); k++)
				for (int rep = 0; ok && rep < 4; rep++)
					ok = rand_coeffs(&c, wide[k]) == 0 &&
					     one_case(ref, t, &c, wide[k], (enum fill)f, rep & 1);
		}
		*passed += ok;
		*failed += !ok;
		printf("%s %-14s %s (widths 1..130, grids 2..32 across, in place and not)\n", ok ? "ok  " : "FAIL",
		       "ltm_row", cisp_cpu_name((enum cisp_cpu_level)l));
	}
}
