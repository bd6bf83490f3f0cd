/* SPDX-License-Identifier: MIT */
/*
 * checkasm: every optimised row function of src/isp/dsp.h against its C
 * version, bit for bit, at every CPU level this machine and build have:
 * random and extreme inputs, tiny, odd and large widths, rows at odd
 * addresses, and guard samples after each output row that must stay
 * untouched. --bench times each function per level (ns per sample and the
 * speed-up over C).
 *
 * usage: checkasm [--bench] [--seed N] [--cpu LEVEL]
 * Ends with the line "N passed, N failed"; exits 1 on any mismatch.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkasm.h"
#include "isp/bnr.h"
#include "isp/cnr.h"
#include "isp/csc.h"
#include "isp/dsp.h"
#include "isp/lsc.h"
#include "isp/ltm.h"
#include "isp/tone.h"

#define MAXW 4200
#define GUARD 64
#define CANARY 0xA5A5

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static unsigned passed, failed;
/* Timing: inputs are made once and outputs are not compared. */
static int bench_mode, bench_ready;

static uint32_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

/* Sample distributions: the extremes matter most for saturation and signs. */
enum fill { FILL_RANDOM, FILL_ZERO, FILL_MAX, FILL_EXTREMES, FILL_SMALL, FILL_NEAR_MAX, FILL_KINDS };

static uint16_t sample(enum fill f)
{
	switch (f) {
	case FILL_ZERO:
		return 0;
	case FILL_MAX:
		return 65535;
	case FILL_EXTREMES:
		return rnd() & 1 ? 65535 : 0;
	case FILL_SMALL:
		return (uint16_t)(rnd() & 63);
	case FILL_NEAR_MAX:
		return (uint16_t)(65535 - (rnd() & 255));
	default:
		return (uint16_t)rnd();
	}
}

static void fill(uint16_t *p, int n, enum fill f)
{
	for (int i = 0; i < n; i++)
		p[i] = sample(f);
}

/* Input rows: MAXW + slack samples, handed out at a random odd or even offset. */
struct rows {
	uint16_t mem[10][MAXW + 2 * GUARD];
	const uint16_t *p[10];
};

static void make_rows(struct rows *r, int n, int w, enum fill f)
{
	if (bench_mode && bench_ready)
		return;
	for (int i = 0; i < n; i++) {
		fill(r->mem[i], MAXW + 2 * GUARD, f);
		r->p[i] = r->mem[i] + GUARD / 2 + (rnd() & 7);
	}
	(void)w;
}

/* Output rows for C and the tested level, with a canary after the row. */
struct outs {
	uint16_t c[3][MAXW + 2 * GUARD], t[3][MAXW + 2 * GUARD];
	uint16_t *pc[3], *pt[3];
};

static void make_outs(struct outs *o, int w)
{
	int off = (int)(rnd() & 7);

	if (bench_mode && bench_ready)
		return;
	for (int i = 0; i < 3; i++) {
		for (int k = 0; k < MAXW + 2 * GUARD; k++)
			o->c[i][k] = o->t[i][k] = CANARY;
		o->pc[i] = o->c[i] + off;
		o->pt[i] = o->t[i] + off;
	}
	(void)w;
}

static int check_outs(const struct outs *o, int planes, int w, const char *fn, const char *level, int width)
{
	if (bench_mode)
		return 1;
	for (int i = 0; i < planes; i++) {
		for (int x = 0; x < w + GUARD / 2; x++) {
			if (o->pc[i][x] != o->pt[i][x]) {
				printf("FAIL %s %s width %d: plane %d column %d: C %u, %s %u%s\n", fn, level, width, i, x,
				       o->pc[i][x], level, o->pt[i][x], x >= w ? " (past the row)" : "");
				return 0;
			}
		}
	}
	return 1;
}

static const int widths[] = { 16, 18, 20, 30, 32, 34, 46, 62, 64, 66, 94, 96, 98, 126, 128, 130, 190, 254, 258, 640, 1002, 4000 };
#define N_WIDTHS (int)(sizeof(widths) / sizeof(widths[0]))
/* Odd widths too, for the functions that take them. */
static const int odd_widths[] = { 1, 3, 7, 15, 17, 31, 33, 63, 65, 129, 1001 };
#define N_ODD (int)(sizeof(odd_widths) / sizeof(odd_widths[0]))

static void report(int ok, const char *fn, const char *level)
{
	if (ok)
		passed++;
	else
		failed++;
	printf("%s %-14s %s\n", ok ? "ok  " : "FAIL", fn, level);
}

/* A tone function of a random transfer and a random curve: any shape, steep or falling segments too. */
static void rand_tone(struct cisp_tone_coeffs *c)
{
	struct cisp_tone_params p = { .transfer = (uint16_t)(rnd() % 3) };
	unsigned shape = rnd() % 3;

	for (int i = 0; i < CISP_TONE_POINTS; i++) {
		int identity = i * 256 > 65535 ? 65535 : i * 256;

		p.curve[i] = (uint16_t)(shape == 0 ? (int)(rnd() & 65535) : shape == 1 ? identity : 65535 - identity);
	}
	cisp_tone_prepare(c, &p);
}

/* @n random values in [0, @hi], in increasing order: cuts of a row into runs or cells. */
static void sorted_cuts(int *v, int n, int hi)
{
	for (int k = 0; k < n; k++) {
		int x = (int)(rnd() % (unsigned)(hi + 1)), i = k;

		for (; i > 0 && v[i - 1] > x; i--)
			v[i] = v[i - 1];
		v[i] = x;
	}
}

/* Random coefficients of each function, drawn per case. */
static void rand_ccm(int16_t m[9], int32_t off[3])
{
	for (int c = 0; c < 3; c++) {
		int budget = 32767;

		for (int k = 0; k < 3; k++) {
			int v = (int)(rnd() % (unsigned)(budget + 1));

			if (rnd() % 4 == 0)
				v = budget; /* the ABI's bound, exactly */
			m[3 * c + k] = (int16_t)(rnd() & 1 ? -v : v);
			budget -= v;
		}
		off[c] = (int32_t)(rnd() % 131071) - 65535;
	}
}

static int run_case(const struct cisp_dsp *ref, const struct cisp_dsp *t, int fn, int w, enum fill f)
{
	static struct rows in;
	static struct outs o;
	const char *lv = cisp_cpu_name(t->level);
	int ok = 1;

	make_rows(&in, 10, w, f);
	make_outs(&o, w);
	bench_ready = bench_mode;
	switch (fn) {
	case 0: { /* blc */
		uint16_t black[2] = { (uint16_t)(rnd() & 0x3fff), (uint16_t)(rnd() & 0x3fff) };
		uint16_t gain[2] = { (uint16_t)(16384 + rnd() % 49152), (uint16_t)(16384 + rnd() % 49152) };

		uint16_t white = rnd() % 4 ? (uint16_t)(49152 + rnd() % 16384) : (uint16_t)rnd();

		if (rnd() % 4 == 0)
			gain[0] = gain[1] = 65535;
		ref->blc_row(in.p[0], o.pc[0], w, black, gain, white);
		t->blc_row(in.p[0], o.pt[0], w, black, gain, white);
		ok = check_outs(&o, 1, w, "blc_row", lv, w);
		break;
	}
	case 1: { /* wb */
		uint16_t gain[2] = { (uint16_t)rnd(), (uint16_t)rnd() };

		ref->wb_row(in.p[0], o.pc[0], w, gain);
		t->wb_row(in.p[0], o.pt[0], w, gain);
		ok = check_outs(&o, 1, w, "wb_row", lv, w);
		break;
	}
	case 2: { /* lsc: random cells (empty and narrow ones too), gains, Q10 weights; in place or not */
		static uint16_t wx[MAXW];
		static int end[CISP_LSC_MAX_GRID - 1];
		static struct cisp_lsc_row r = { .end = end, .wx = wx };
		static int made_for_bench; /* the timing runs make them once: time the row, not rnd() */

		if (!bench_mode || !made_for_bench) {
			r.cells = 1 + (int)(rnd() % (CISP_LSC_MAX_GRID - 1));
			if (bench_mode)
				r.cells = 16;
			for (int x = 0; x < w; x++)
				wx[x] = (uint16_t)(rnd() % 1025);
			for (int i = 0; i < r.cells; i++) {
				for (int k = 0; k < 2; k++) {
					r.left[i][k] = (uint16_t)rnd();
					r.right[i][k] = (uint16_t)rnd();
				}
				end[i] = w * (i + 1) / r.cells;
			}
			if (!bench_mode)
				sorted_cuts(end, r.cells - 1, w);
			made_for_bench = bench_mode;
		}
		if (!bench_mode && rnd() & 1) {
			memcpy(o.pc[0], in.p[0], (size_t)w * sizeof(uint16_t));
			memcpy(o.pt[0], in.p[0], (size_t)w * sizeof(uint16_t));
			ref->lsc_row(o.pc[0], o.pc[0], w, &r);
			t->lsc_row(o.pt[0], o.pt[0], w, &r);
		} else {
			ref->lsc_row(in.p[0], o.pc[0], w, &r);
			t->lsc_row(in.p[0], o.pt[0], w, &r);
		}
		ok = check_outs(&o, 1, w, "lsc_row", lv, w);
		break;
	}
	case 3: { /* dpc */
		int th = rnd() % 3 == 0 ? 1 + (int)(rnd() % 65535) : 1 + (int)(rnd() % 4096);

		ref->dpc_row(in.p[0], in.p[1], in.p[2], o.pc[0], w, th);
		t->dpc_row(in.p[0], in.p[1], in.p[2], o.pt[0], w, th);
		ok = check_outs(&o, 1, w, "dpc_row", lv, w);
		break;
	}
	case 4: { /* demosaic green, both phases */
		for (int nx = 0; nx < 2 && ok; nx++) {
			make_outs(&o, w);
			ref->green_row(in.p, o.pc[0], w, nx);
			t->green_row(in.p, o.pt[0], w, nx);
			ok = check_outs(&o, 1, w, "green_row", lv, w);
		}
		break;
	}
	case 5: { /* demosaic red and blue, both phases */
		for (int nx = 0; nx < 2 && ok; nx++) {
			make_outs(&o, w);
			ref->rb_row(in.p, in.p + 3, o.pc[0], o.pc[1], w, nx);
			t->rb_row(in.p, in.p + 3, o.pt[0], o.pt[1], w, nx);
			ok = check_outs(&o, 2, w, "rb_row", lv, w);
		}
		break;
	}
	case 6: { /* ccm */
		int16_t m[9];
		int32_t off[3];

		rand_ccm(m, off);
		ref->ccm_row(m, off, in.p, o.pc, w);
		t->ccm_row(m, off, in.p, o.pt, w);
		ok = check_outs(&o, 3, w, "ccm_row", lv, w);
		break;
	}
	case 7: { /* csc, every matrix and range */
		for (int k = 0; k < 6 && ok; k++) {
			struct cisp_csc_params p = { .matrix = (uint16_t)(k / 2), .range = (uint16_t)(k % 2) };
			int32_t yz;
			const int32_t *m = cisp_csc_matrix(&p, &yz);

			make_outs(&o, w);
			ref->csc_row(m, yz, in.p, o.pc, w);
			t->csc_row(m, yz, in.p, o.pt, w);
			ok = check_outs(&o, 3, w, "csc_row", lv, w);
		}
		break;
	}
	case 8: { /* tone */
		static struct cisp_tone_coeffs tone;
		static int tone_for_bench; /* the timing runs draw it once */

		if (!bench_mode || !tone_for_bench) {
			rand_tone(&tone);
			tone_for_bench = bench_mode;
		}
		ref->tone_row(&tone, in.p[0], o.pc[0], w);
		t->tone_row(&tone, in.p[0], o.pt[0], w);
		ok = check_outs(&o, 1, w, "tone_row", lv, w);
		break;
	}
	case 9: /* luma */
		ref->luma_row(in.p, o.pc[0], w);
		t->luma_row(in.p, o.pt[0], w);
		ok = check_outs(&o, 1, w, "luma_row", lv, w);
		break;
	case 10: { /* sharpen, in place or not */
		static int32_t tmp[MAXW + 8];
		int coring = rnd() % 4 ? (int)(rnd() % 2048) : (int)(rnd() & 0xffff);
		int strength = rnd() % 4 ? (int)(rnd() % 1024) : (int)(rnd() & 0xffff);
		int limit = rnd() % 4 ? (int)(rnd() % 8192) : (int)(rnd() & 0xffff);

		if (!bench_mode && rnd() & 1) {
			for (int c = 0; c < 3; c++) {
				memcpy(o.pc[c], in.p[5 + c], (size_t)w * sizeof(uint16_t));
				memcpy(o.pt[c], in.p[5 + c], (size_t)w * sizeof(uint16_t));
			}
			ref->sharpen_row(in.p, (const uint16_t *const *)o.pc, o.pc, w, coring, strength, limit, tmp);
			t->sharpen_row(in.p, (const uint16_t *const *)o.pt, o.pt, w, coring, strength, limit, tmp);
		} else {
			ref->sharpen_row(in.p, in.p + 5, o.pc, w, coring, strength, limit, tmp);
			t->sharpen_row(in.p, in.p + 5, o.pt, w, coring, strength, limit, tmp);
		}
		ok = check_outs(&o, 3, w, "sharpen_row", lv, w);
		break;
	}
	case 11: { /* to8 */
		uint8_t *c8 = (uint8_t *)o.pc[0], *t8 = (uint8_t *)o.pt[0];

		ref->to8_row(in.p[0], c8, w);
		t->to8_row(in.p[0], t8, w);
		ok = check_outs(&o, 1, w / 2 + 1, "to8_row", lv, w);
		break;
	}
	case 13: /* Bayer denoise guide */
		ref->bnr_guide_row(in.p[0], in.p[1], in.p[2], o.pc[0], w);
		t->bnr_guide_row(in.p[0], in.p[1], in.p[2], o.pt[0], w);
		ok = check_outs(&o, 1, w, "bnr_guide_row", lv, w);
		break;
	case 14: { /* Bayer denoise: tables from a random noise profile and strength, every CFA order and row parity */
		static const uint32_t cfas[4] = { CISP_CFA_RGGB, CISP_CFA_GRBG, CISP_CFA_GBRG, CISP_CFA_BGGR };
		static struct cisp_bnr_coeffs *bench_bc; /* the timing runs build one table, once: time the rows */
		struct cisp_bnr_params bp = { .strength = (uint16_t)(rnd() % 4 ? 1 + rnd() % 1024 : rnd() % 2 * 1024) };
		struct cisp_noise_params np;
		struct cisp_bnr_coeffs *bc = bench_mode ? bench_bc : NULL;
		struct cisp_bnr_row_tables tb;

		if (!bc) {
			for (int k = 0; k < 4; k++) {
				np.a[k] = rnd() % 4 ? rnd() % 20000 : rnd();
				np.b[k] = rnd() % 4 ? rnd() % 200000 : rnd() % 4000000;
			}
			if (rnd() % 8 == 0 && !bench_mode)
				bp.strength = 0;
			if (bench_mode)
				bp.strength = 256; /* timing: a fixed, typical table */
			if (cisp_bnr_prepare(&bc, &bp, &np, (enum cisp_cfa)cfas[rnd() % 4]))
				return 0;
			if (bench_mode)
				bench_bc = bc;
		}
		cisp_bnr_tables(bc, (int)(rnd() & 1), &tb);
		if (bench_mode) {
			/* Enough rows that the call, not the case around it, is timed. */
			for (int k = 0; k < 8; k++) {
				ref->bnr_row(in.p, in.p + 5, o.pc[0], w, &tb);
				t->bnr_row(in.p, in.p + 5, o.pt[0], w, &tb);
			}
		}
		ref->bnr_row(in.p, in.p + 5, o.pc[0], w, &tb);
		t->bnr_row(in.p, in.p + 5, o.pt[0], w, &tb);
		ok = check_outs(&o, 1, w, "bnr_row", lv, w);
		if (bc != bench_bc)
			cisp_bnr_free(bc);
		break;
	}
	case 15: { /* statistics cells: every CFA order, random gains and saturation, column sums from random values */
		static const uint8_t orders[4][4] = { { 0, 1, 2, 3 }, { 1, 0, 3, 2 }, { 2, 3, 0, 1 }, { 3, 2, 1, 0 } };
		static uint32_t colc[4][MAXW / 2 + GUARD], colt[4][MAXW / 2 + GUARD];
		const uint8_t *site = orders[rnd() % 4];
		uint16_t wb[4];
		int sat = rnd() % 4 ? (int)(rnd() % 65536) : 65535 + (int)(rnd() & 1);
		uint16_t *oc[2] = { o.pc[0], o.pc[1] }, *ot[2] = { o.pt[0], o.pt[1] };
		uint32_t *cc[4] = { colc[0], colc[1], colc[2], colc[3] }, *ct[4] = { colt[0], colt[1], colt[2], colt[3] };

		for (int k = 0; k < 4; k++)
			wb[k] = rnd() % 4 ? (uint16_t)(2048 + rnd() % 8192) : (uint16_t)rnd();
		for (int k = 0; k < 4 && !(bench_mode && bench_ready); k++)
			for (int i = 0; i < MAXW / 2 + GUARD; i++)
				colc[k][i] = colt[k][i] = rnd();
		uint32_t gc = ref->stats_cells(in.p[0], in.p[1], w / 2, site, wb, sat, oc, cc);
		uint32_t gt = t->stats_cells(in.p[0], in.p[1], w / 2, site, wb, sat, ot, ct);

		ok = check_outs(&o, 2, w / 2, "stats_cells", lv, w);
		if (ok && !bench_mode && gc != gt) {
			printf("FAIL stats_cells %s width %d: green sum C %u, %s %u\n", lv, w, gc, lv, gt);
			ok = 0;
		}
		for (int k = 0; ok && !bench_mode && k < 4; k++) {
			for (int i = 0; ok && i < MAXW / 2 + GUARD; i++) {
				if (colc[k][i] != colt[k][i]) {
					printf("FAIL stats_cells %s width %d: column sums %d cell %d: C %u, %s %u\n", lv, w, k, i,
					       colc[k][i], lv, colt[k][i]);
					ok = 0;
				}
			}
		}
		break;
	}
	case 22: { /* statistics zone sums: random runs over @w columns, empty and single ones too; each clears them */
		static uint32_t vc[4][MAXW], vt[4][MAXW];
		int start[CISP_STATS_MAX_ZONES + 1], runs = 1 + (int)(rnd() % CISP_STATS_MAX_ZONES);
		uint32_t sc[CISP_STATS_MAX_ZONES][4], st[CISP_STATS_MAX_ZONES][4];
		uint32_t *pc[4] = { vc[0], vc[1], vc[2], vc[3] }, *pt[4] = { vt[0], vt[1], vt[2], vt[3] };

		start[0] = 0;
		start[runs] = w;
		sorted_cuts(start + 1, runs - 1, w);
		for (int c = 0; c < 4; c++)
			for (int i = 0; i < MAXW; i++)
				vc[c][i] = vt[c][i] = i < w ? (rnd() % 8 ? in.p[c][i] : rnd()) : 7;
		ref->stats_run_sums(pc, start, runs, sc);
		t->stats_run_sums(pt, start, runs, st);
		for (int k = 0; !bench_mode && ok && k < runs; k++) {
			for (int c = 0; ok && c < 4; c++) {
				if (sc[k][c] != st[k][c]) {
					printf("FAIL stats_run_sums %s width %d: run %d [%d, %d) array %d: C %u, %s %u\n", lv, w, k,
					       start[k], start[k + 1], c, sc[k][c], lv, st[k][c]);
					ok = 0;
				}
			}
		}
		for (int c = 0; !bench_mode && ok && c < 4; c++) {
			for (int i = 0; ok && i < MAXW; i++) {
				if (vc[c][i] != vt[c][i] || vc[c][i] != (i < w ? 0u : 7u)) {
					printf("FAIL stats_run_sums %s width %d: array %d column %d left %u (C), %u (%s)\n", lv, w, c, i,
					       vc[c][i], vt[c][i], lv);
					ok = 0;
				}
			}
		}
		break;
	}
	case 16: { /* unpacking 16-bit containers of every depth; samples may exceed the depth */
		int bits = 10 + 2 * (int)(rnd() % 4);

		if (rnd() % 5 == 0)
			bits = 16;
		ref->unpack16_row((const uint8_t *)in.p[0], o.pc[0], w, bits);
		t->unpack16_row((const uint8_t *)in.p[0], o.pt[0], w, bits);
		ok = check_outs(&o, 1, w, "unpack16_row", lv, w);
		break;
	}
	case 20: { /* interleaved RGB, 3 bytes a pixel: rows of up to MAXW 16-bit words */
		const int n = w > 2 * MAXW / 3 ? 2 * MAXW / 3 : w;

		ref->rgb888_row(in.p[0], in.p[1], in.p[2], (uint8_t *)o.pc[0], n);
		t->rgb888_row(in.p[0], in.p[1], in.p[2], (uint8_t *)o.pt[0], n);
		ok = check_outs(&o, 1, (3 * n + 1) / 2, "rgb888_row", lv, n);
		break;
	}
	case 21: { /* B,G,R,255, 4 bytes a pixel: rows of up to MAXW 16-bit words */
		const int n = w > MAXW / 2 ? MAXW / 2 : w;

		ref->xbgr32_row(in.p[0], in.p[1], in.p[2], (uint8_t *)o.pc[0], n);
		t->xbgr32_row(in.p[0], in.p[1], in.p[2], (uint8_t *)o.pt[0], n);
		ok = check_outs(&o, 1, 2 * n, "xbgr32_row", lv, n);
		break;
	}
	case 19: /* unpacking 8-bit samples */
		ref->unpack8_row((const uint8_t *)in.p[0], o.pc[0], w);
		t->unpack8_row((const uint8_t *)in.p[0], o.pt[0], w);
		ok = check_outs(&o, 1, w, "unpack8_row", lv, w);
		break;
	case 17:
	case 18: { /* chroma denoise passes: random thresholds and radius; tables as cisp_cnr_tables() gives them */
		static uint16_t inv_y[32], inv_c[32];
		static uint32_t recip[(2 * CISP_CNR_MAX_RADIUS + 1) * 64 + 1];
		struct cisp_cnr_row_tables tb = { 1, 1 + (int)(rnd() % CISP_CNR_MAX_RADIUS), inv_y, inv_c, recip };
		const uint16_t *ys[2 * CISP_CNR_MAX_RADIUS + 1], *bs[2 * CISP_CNR_MAX_RADIUS + 1], *rs[2 * CISP_CNR_MAX_RADIUS + 1];

		/*
		 * A third of the calls with every chroma threshold at least 241, many
		 * at it, where the rows' chroma distances saturate; a third with them
		 * at least 240, many at it, where they must not.
		 */
		const uint32_t kind = rnd() % 3, least = 239 + kind;

		for (int k = 0; k < 32; k++) {
			inv_y[k] = rnd() % 4 ? (uint16_t)(rnd() % (rnd() % 2 ? 2048 : 16)) : (uint16_t)rnd();
			inv_c[k] = rnd() % 4 ? (uint16_t)(rnd() % 2048) : (uint16_t)rnd();
			if (kind)
				inv_c[k] = rnd() % 2 ? (uint16_t)least : (uint16_t)(least + rnd() % (65536 - least));
		}
		/* Once: its thousand 64-bit divisions would be most of a --bench figure. */
		for (uint32_t n = recip[64] ? UINT32_MAX : 64; n <= (2 * CISP_CNR_MAX_RADIUS + 1) * 64; n++)
			recip[n] = (uint32_t)((((uint64_t)1 << 32) + n / 2) / n);
		if (fn == 17) {
			if (w < 2 * tb.radius + 2)
				tb.radius = 1;
			ref->cnr_h_row(in.p[0], in.p[1], in.p[2], o.pc[0], o.pc[1], w, &tb);
			t->cnr_h_row(in.p[0], in.p[1], in.p[2], o.pt[0], o.pt[1], w, &tb);
			ok = check_outs(&o, 2, w, "cnr_h_row", lv, w);
		} else {
			/* 2 r + 1 rows from the 10 there are (rows repeat, as reflections do). */
			for (int k = 0; k <= 2 * tb.radius; k++) {
				ys[k] = in.p[k % 10];
				bs[k] = in.p[(k + 3) % 10];
				rs[k] = in.p[(k + 7) % 10];
			}
			ref->cnr_v_row(ys, bs, rs, o.pc[0], o.pc[1], w, &tb);
			t->cnr_v_row(ys, bs, rs, o.pt[0], o.pt[1], w, &tb);
			ok = check_outs(&o, 2, w, "cnr_v_row", lv, w);
		}
		break;
	}
	case 23: { /* local tone mapping: a random grid over a frame of this width, a random row; in place or not */
		static struct cisp_ltm_coeffs ltm;
		static struct cisp_ltm_params p;
		static int made_for_bench;
		const int h = 64;
		int y = (int)(rnd() % h);

		if (!bench_mode || !made_for_bench) {
			p.grid_w = (uint16_t)(bench_mode ? 16 : 2 + rnd() % (CISP_LTM_MAX_GRID - 1));
			p.grid_h = (uint16_t)(bench_mode ? 12 : 2 + rnd() % 8);
			p.range = (uint16_t)(64 + rnd() % 961);
			for (int k = 0; k < p.grid_w * p.grid_h; k++) {
				p.node[k] = (uint16_t)(rnd() % 4096);
				p.node[p.grid_w * p.grid_h + k] = (uint16_t)(16 + rnd() % 4080);
			}
			if (cisp_ltm_prepare(&ltm, &p, w, h))
				return 0;
			made_for_bench = bench_mode;
		}
		if (!bench_mode && rnd() & 1) {
			for (int k = 0; k < 3; k++) {
				memcpy(o.pc[k], in.p[k], (size_t)w * sizeof(uint16_t));
				memcpy(o.pt[k], in.p[k], (size_t)w * sizeof(uint16_t));
			}
			ref->ltm_row(&ltm, (const uint16_t *const *)o.pc, o.pc, w, y);
			t->ltm_row(&ltm, (const uint16_t *const *)o.pt, o.pt, w, y);
		} else {
			ref->ltm_row(&ltm, in.p, o.pc, w, y);
			t->ltm_row(&ltm, in.p, o.pt, w, y);
		}
		ok = check_outs(&o, 3, w, "ltm_row", lv, w);
		break;
	}
	case 12: { /* chroma, interleaved and planar */
		for (int step = 1; step <= 2 && ok; step++) {
			uint8_t *c8 = (uint8_t *)o.pc[0], *t8 = (uint8_t *)o.pt[0];

			make_outs(&o, w);
			ref->chroma420_row(in.p[0], in.p[1], in.p[2], in.p[3], c8, step == 2 ? c8 + 1 : (uint8_t *)o.pc[1],
					   step, w);
			t->chroma420_row(in.p[0], in.p[1], in.p[2], in.p[3], t8, step == 2 ? t8 + 1 : (uint8_t *)o.pt[1],
					 step, w);
			ok = check_outs(&o, 2, w / 2, "chroma420_row", lv, w);
		}
		break;
	}
	}
	return ok;
}

static const char *const fn_names[] = { "blc_row", "wb_row", "lsc_row", "dpc_row", "green_row", "rb_row", "ccm_row",
					"csc_row", "tone_row", "luma_row", "sharpen_row", "to8_row", "chroma420_row",
					"bnr_guide_row", "bnr_row", "stats_cells", "unpack16_row", "cnr_h_row", "cnr_v_row", "unpack8_row", "rgb888_row",
					"xbgr32_row", "stats_run_sums", "ltm_row" };
#define N_FNS (int)(sizeof(fn_names) / sizeof(fn_names[0]))
/* Functions that take any width (the others need even widths of at least 16). */
static const int any_width[N_FNS] = { 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 0 };

static int entry_differs(const struct cisp_dsp *a, const struct cisp_dsp *b, int fn)
{
	const void *const pa[N_FNS] = { (void *)a->blc_row, (void *)a->wb_row, (void *)a->lsc_row, (void *)a->dpc_row,
					(void *)a->green_row, (void *)a->rb_row, (void *)a->ccm_row, (void *)a->csc_row,
					(void *)a->tone_row, (void *)a->luma_row, (void *)a->sharpen_row,
					(void *)a->to8_row, (void *)a->chroma420_row, (void *)a->bnr_guide_row,
					(void *)a->bnr_row, (void *)a->stats_cells, (void *)a->unpack16_row,
					(void *)a->cnr_h_row, (void *)a->cnr_v_row, (void *)a->unpack8_row, (void *)a->rgb888_row,
					(void *)a->xbgr32_row, (void *)a->stats_run_sums, (void *)a->ltm_row };
	const void *const pb[N_FNS] = { (void *)b->blc_row, (void *)b->wb_row, (void *)b->lsc_row, (void *)b->dpc_row,
					(void *)b->green_row, (void *)b->rb_row, (void *)b->ccm_row, (void *)b->csc_row,
					(void *)b->tone_row, (void *)b->luma_row, (void *)b->sharpen_row,
					(void *)b->to8_row, (void *)b->chroma420_row, (void *)b->bnr_guide_row,
					(void *)b->bnr_row, (void *)b->stats_cells, (void *)b->unpack16_row,
					(void *)b->cnr_h_row, (void *)b->cnr_v_row, (void *)b->unpack8_row, (void *)b->rgb888_row,
					(void *)b->xbgr32_row, (void *)b->stats_run_sums, (void *)b->ltm_row };
	return pa[fn] != pb[fn];
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Calls of the function per case (phases, matrices, layouts), twice (as C and as tested). */
static const int calls[] = { 2, 2, 2, 2, 4, 4, 2, 12, 2, 2, 2, 2, 4, 2, 18, 2, 2, 2, 2, 2, 2, 2, 2, 2 };

uint32_t checkasm_rnd(void)
{
	return rnd();
}

double checkasm_now(void)
{
	return now();
}

/*
 * The fastest of 15 runs of enough calls on a 4000-sample row, in ns per sample: on a shared
 * machine the other runs measure the neighbours too.
 */
static double bench_one(const struct cisp_dsp *d, int fn)
{
	const int w = 4000, reps = 100;
	double best = 1e30;

	bench_mode = 1;
	bench_ready = 0;
	for (int r = 0; r < 15; r++) {
		double t = now();

		for (int k = 0; k < reps; k++)
			run_case(d, d, fn, w, FILL_RANDOM);
		t = now() - t;
		if (t < best)
			best = t;
	}
	bench_mode = 0;
	return best * 1e9 / ((double)reps * w * calls[fn]);
}

/* The denoise reciprocal at every n it is defined for (64..65536), each level against C. */
static void check_recip(const struct cisp_dsp *ref, const struct cisp_dsp levels[], const int have[])
{
	enum { FIRST = 64, COUNT = 65536 - 64 + 1 };
	uint32_t *n = malloc(COUNT * sizeof(*n)), *want = malloc(COUNT * sizeof(*want)), *got = malloc(COUNT * sizeof(*got));

	if (!n || !want || !got) {
		fprintf(stderr, "checkasm: out of memory\n");
		exit(1);
	}
	for (int i = 0; i < COUNT; i++)
		n[i] = FIRST + (uint32_t)i;
	ref->recip_row(n, want, COUNT);
	for (int l = CISP_CPU_SCALAR + 1; l < CISP_CPU_LEVELS; l++) {
		if (!have[l] || levels[l].recip_row == ref->recip_row)
			continue;
		levels[l].recip_row(n, got, COUNT);
		report(!memcmp(want, got, COUNT * sizeof(*got)), "recip_row", cisp_cpu_name((enum cisp_cpu_level)l));
	}
	free(n);
	free(want);
	free(got);
}

/*
 * The tone row at every input 0..65535, each level against C, for each
 * transfer with an identity, a falling and a random curve: the segment
 * arithmetic of the vector rows meets every segment and position.
 */
static void check_tone(const struct cisp_dsp *ref, const struct cisp_dsp levels[], const int have[])
{
	static struct cisp_tone_coeffs c;
	static uint16_t in[65536], want[65536], got[65536];
	int ok[CISP_CPU_LEVELS];

	for (int l = 0; l < CISP_CPU_LEVELS; l++)
		ok[l] = 1;
	for (int i = 0; i < 65536; i++)
		in[i] = (uint16_t)i;
	for (int transfer = 0; transfer < 3; transfer++)
		for (int shape = 0; shape < 3; shape++) {
			struct cisp_tone_params p = { .transfer = (uint16_t)transfer };

			for (int i = 0; i < CISP_TONE_POINTS; i++) {
				int identity = i * 256 > 65535 ? 65535 : i * 256;

				p.curve[i] = (uint16_t)(shape == 0 ? identity : shape == 1 ? 65535 - identity : (int)(rnd() & 65535));
			}
			cisp_tone_prepare(&c, &p);
			ref->tone_row(&c, in, want, 65536);
			for (int l = CISP_CPU_SCALAR + 1; l < CISP_CPU_LEVELS; l++) {
				if (!have[l] || levels[l].tone_row == ref->tone_row)
					continue;
				levels[l].tone_row(&c, in, got, 65536);
				ok[l] &= !memcmp(want, got, sizeof(got));
			}
		}
	for (int l = CISP_CPU_SCALAR + 1; l < CISP_CPU_LEVELS; l++)
		if (have[l] && levels[l].tone_row != ref->tone_row)
			report(ok[l], "tone_row, every input", cisp_cpu_name((enum cisp_cpu_level)l));
}

int main(int argc, char **argv)
{
	struct cisp_dsp ref, levels[CISP_CPU_LEVELS];
	int have[CISP_CPU_LEVELS] = { 0 }, bench = 0, only = -1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--bench")) {
			bench = 1;
		} else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			rng_state = strtoull(argv[++i], NULL, 0) | 1;
		} else if (!strcmp(argv[i], "--cpu") && i + 1 < argc) {
			only = cisp_cpu_from_name(argv[++i]);
			if (only < 0) {
				fprintf(stderr, "checkasm: unknown CPU level '%s'\n", argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "usage: checkasm [--bench] [--seed N] [--cpu LEVEL]\n");
			return 2;
		}
	}
	cisp_dsp_init(&ref, CISP_CPU_SCALAR);
	printf("checkasm: CPU supports up to %s\n", cisp_cpu_name(cisp_cpu_detect()));
	for (int l = CISP_CPU_SCALAR + 1; l < CISP_CPU_LEVELS; l++)
		have[l] = (only < 0 || only == l) && !cisp_dsp_init(&levels[l], (enum cisp_cpu_level)l);

	for (int l = CISP_CPU_SCALAR + 1; l < CISP_CPU_LEVELS; l++) {
		if (!have[l])
			continue;
		for (int fn = 0; fn < N_FNS; fn++) {
			int ok = 1;

			if (!entry_differs(&ref, &levels[l], fn))
				continue; /* this level leaves the function to C */
			for (int k = 0; ok && k < N_WIDTHS; k++)
				for (int f = 0; ok && f < FILL_KINDS; f++)
					for (int rep = 0; ok && rep < (widths[k] > 1000 ? 2 : 6); rep++)
						ok = run_case(&ref, &levels[l], fn, widths[k], (enum fill)f);
			for (int k = 0; ok && any_width[fn] && k < N_ODD; k++)
				for (int f = 0; ok && f < FILL_KINDS; f++)
					ok = run_case(&ref, &levels[l], fn, odd_widths[k], (enum fill)f);
			report(ok, fn_names[fn], cisp_cpu_name((enum cisp_cpu_level)l));
		}
	}
	if (bench) {
		printf("\n%-14s %8s", "function", "C ns/px");
		for (int l = 1; l < CISP_CPU_LEVELS; l++)
			if (have[l])
				printf(" %14s", cisp_cpu_name((enum cisp_cpu_level)l));
		printf("\n");
		for (int fn = 0; fn < N_FNS; fn++) {
			double c = bench_one(&ref, fn);

			printf("%-14s %8.3f", fn_names[fn], c);
			for (int l = 1; l < CISP_CPU_LEVELS; l++) {
				if (!have[l])
					continue;
				if (entry_differs(&ref, &levels[l], fn)) {
					double v = bench_one(&levels[l], fn);

					printf(" %7.3f %5.1fx", v, c / v);
				} else {
					printf(" %14s", "(C)");
				}
			}
			printf("\n");
		}
	}
	check_recip(&ref, levels, have);
	check_tone(&ref, levels, have);
	checkasm_dmq(&ref, levels, have, bench, &passed, &failed);
	checkasm_bnrq(&ref, levels, have, bench, &passed, &failed);
	checkasm_highlights(&ref, levels, have, bench, &passed, &failed);
	checkasm_ltm(&ref, levels, have, &passed, &failed);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
