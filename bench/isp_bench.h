/* SPDX-License-Identifier: MIT */
/*
 * The ISP benchmark that `cisp bench` runs (tools/cmd_bench.c): the whole
 * pipeline and each stage alone, the reference executor against the banded
 * one, printed as "bench key=value ..." lines (docs/fastpath.md).
 */
#ifndef CISP_BENCH_ISP_BENCH_H
#define CISP_BENCH_ISP_BENCH_H

#include <stdbool.h>
#include <stdint.h>

/* Most thread counts and repetitions a run takes. */
#define ISP_BENCH_MAX_THREADS 8
#define ISP_BENCH_MAX_REPS 50

struct isp_bench_options {
	const char *input;            /* a grey PGM or PNG mosaic, or NULL: a synthetic frame */
	uint32_t width, height;       /* the synthetic frame's size */
	uint32_t format;              /* Bayer input format (fourcc) */
	int reps;                     /* repetitions per figure, 1..ISP_BENCH_MAX_REPS */
	int band;                     /* rows per band of the banded executor */
	const char *cpu;              /* row functions' level by name, or NULL: the best */
	bool stages;                  /* each stage alone too */
	bool quality;                 /* the pipeline with the quality demosaic and chroma denoise too */
	bool reference;               /* time the reference executor (else the banded one only) */
	bool peer;                    /* time the peer (peer.h) in the same run, a ratio beside each figure */
	const char *isp;              /* "vulkan": the pipeline through device contexts, Vulkan beside software; NULL: the stages */
	int threads[ISP_BENCH_MAX_THREADS];
	int n_threads;
};

/* Run the benchmark; 0, or 1 after a message on stderr. */
int isp_bench_run(const struct isp_bench_options *o);

#endif
