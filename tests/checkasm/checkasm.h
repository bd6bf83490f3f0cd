/* SPDX-License-Identifier: MIT */
/* checkasm's parts in other files (checkasm.c runs them). */
#ifndef CISP_TESTS_CHECKASM_H
#define CISP_TESTS_CHECKASM_H

#include "isp/dsp.h"

/* checkasm.c's random numbers and monotonic clock (seconds), for the other files. */
uint32_t checkasm_rnd(void);
double checkasm_now(void);

/*
 * The quality demosaic's passes at each level @have marks, against @ref;
 * adds to the pass and fail counts; @bench: print ns per pixel too.
 */
void checkasm_dmq(const struct cisp_dsp *ref, const struct cisp_dsp levels[], const int have[], int bench,
		  unsigned *passed, unsigned *failed);

/* The quality Bayer denoise's tile filters, the same way. */
void checkasm_bnrq(const struct cisp_dsp *ref, const struct cisp_dsp levels[], const int have[], int bench,
		   unsigned *passed, unsigned *failed);

/* The highlights row in every mode, the same way. */
void checkasm_highlights(const struct cisp_dsp *ref, const struct cisp_dsp levels[], const int have[], int bench,
			 unsigned *passed, unsigned *failed);

/* The local tone mapping row at every width from 1 to 130 and wide ones, the same way (no bench). */
void checkasm_ltm(const struct cisp_dsp *ref, const struct cisp_dsp levels[], const int have[], unsigned *passed,
		  unsigned *failed);

#endif
