/* SPDX-License-Identifier: MIT */
/*
 * How many vector instructions of each kind this x86-64 CPU retires a cycle, at 256 and 512
 * bits: the figures that decide why the same row functions run at different speeds on two
 * machines whose scalar code runs alike (docs/fastpath.md, "The rows on an Intel Xeon").
 *
 * Each figure is 12 independent chains of one instruction (so no latency limits it), timed
 * against the clock measured by a chain of dependent 64-bit multiplies (3 cycles each on every
 * x86-64 core since 2011). Prints one 'ports key=value ...' line an instruction.
 *
 * usage: bench-x86-ports [--reps N]   (N millions of instructions a figure, default 100)
 */
#if defined(__x86_64__)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "peer.h"

static double seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Cycles a second, from a chain of dependent imul (latency 3). */
static double clock_hz(long n)
{
	long x = 3;
	double t = seconds();

	for (long i = 0; i < n / 4; i++)
		__asm__ volatile("imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0" : "+r"(x));
	return 3.0 * (double)(n / 4 * 4) / (seconds() - t);
}

/* The vector registers the chains use: 0..11 written, 15 read. */
#define CLOBBERS                                                                                           \
	"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", \
		"xmm15"

/* Twelve instructions of ONE's form, for the registers K = 0..11 (R the register prefix, e.g. "%%zmm"). */
#define TWELVE(one, op, r)                                                                                  \
	one(op, r, "0") one(op, r, "1") one(op, r, "2") one(op, r, "3") one(op, r, "4") one(op, r, "5")      \
		one(op, r, "6") one(op, r, "7") one(op, r, "8") one(op, r, "9") one(op, r, "10") one(op, r, "11")
/* The forms: OP src, acc, acc; OP src, dst; OP src, acc into mask k1. */
#define ACC(op, r, k) op " " r "15, " r k ", " r k "\n\t"
#define DST(op, r, k) op " " r "15, " r k "\n\t"
#define MASK(op, r, k) op " " r "15, " r k ", %%k1\n\t"
#define Z3(op) TWELVE(ACC, op, "%%zmm")
#define Y3(op) TWELVE(ACC, op, "%%ymm")
#define Z2(op) TWELVE(DST, op, "%%zmm")
#define Y2(op) TWELVE(DST, op, "%%ymm")
#define ZK(op) TWELVE(MASK, op, "%%zmm")

struct test {
	const char *name; /* the instruction, as the manuals name it */
	int bits;         /* vector width: 512 needs AVX-512BW */
	void (*run)(long n);
};

/* Every register the chains use starts at 1.0f (the bits do not matter to integer work). */
#define ONES                                                                                           \
	__asm__ volatile("mov $0x3f800000, %%eax\n\tvmovd %%eax, %%xmm15\n\tvbroadcastss %%xmm15, %%ymm15\n\t" \
			 Y2("vmovaps") ::: CLOBBERS, "eax")

/* Each test: its function, the instruction's name, the width, the twelve instructions. */
#define TESTS(T) \
	T(z_paddw, "vpaddw", 512, Z3("vpaddw")) \
	T(y_paddw, "vpaddw", 256, Y3("vpaddw")) \
	T(z_pord, "vpord", 512, Z3("vpord")) \
	T(y_por, "vpor", 256, Y3("vpor")) \
	T(z_psubusw, "vpsubusw", 512, Z3("vpsubusw")) \
	T(y_psubusw, "vpsubusw", 256, Y3("vpsubusw")) \
	T(z_pminuw, "vpminuw", 512, Z3("vpminuw")) \
	T(y_pminuw, "vpminuw", 256, Y3("vpminuw")) \
	T(z_pabsw, "vpabsw", 512, Z2("vpabsw")) \
	T(y_pabsw, "vpabsw", 256, Y2("vpabsw")) \
	T(z_psrlw, "vpsrlw-imm", 512, Z2("vpsrlw $3,")) \
	T(y_psrlw, "vpsrlw-imm", 256, Y2("vpsrlw $3,")) \
	T(z_psllvd, "vpsllvd", 512, Z3("vpsllvd")) \
	T(y_psllvd, "vpsllvd", 256, Y3("vpsllvd")) \
	T(z_pmulhuw, "vpmulhuw", 512, Z3("vpmulhuw")) \
	T(y_pmulhuw, "vpmulhuw", 256, Y3("vpmulhuw")) \
	T(z_pmaddwd, "vpmaddwd", 512, Z3("vpmaddwd")) \
	T(y_pmaddwd, "vpmaddwd", 256, Y3("vpmaddwd")) \
	T(z_pshufb, "vpshufb", 512, Z3("vpshufb")) \
	T(y_pshufb, "vpshufb", 256, Y3("vpshufb")) \
	T(z_punpcklwd, "vpunpcklwd", 512, Z3("vpunpcklwd")) \
	T(y_punpcklwd, "vpunpcklwd", 256, Y3("vpunpcklwd")) \
	T(z_permd, "vpermd", 512, Z3("vpermd")) \
	T(y_permd, "vpermd", 256, Y3("vpermd")) \
	T(z_permt2w, "vpermt2w", 512, Z3("vpermt2w")) \
	T(z_pcmpuw, "vpcmpuw-to-mask", 512, ZK("vpcmpuw $1,")) \
	T(z_pblendmw, "vpblendmw", 512, Z3("vpblendmw"))

#define DEFINE_256(fn, text)                                            \
	__attribute__((target("avx2"))) static void fn(long n)          \
	{                                                               \
		ONES;                                                   \
		for (long i = 0; i < n; i++)                            \
			__asm__ volatile(text ::: CLOBBERS);            \
	}
/* At 512 bits, the same. */
#define DEFINE_512(fn, text)                                                           \
	__attribute__((target("avx512f,avx512bw,avx512vl"))) static void fn(long n)    \
	{                                                                              \
		__asm__ volatile("mov $0x3f800000, %%eax\n\tvpbroadcastd %%eax, %%zmm15\n\t" \
				 Z2("vmovaps") ::: CLOBBERS, "eax"); \
		for (long i = 0; i < n; i++)                                           \
			__asm__ volatile(text ::: CLOBBERS, "k1");                     \
	}
#define DEFINE(fn, name, bits, text) DEFINE_##bits(fn, text)
TESTS(DEFINE)

#define ENTRY(fn, name, bits, text) { name, bits, fn },
static const struct test tests[] = { TESTS(ENTRY) };

int main(int argc, char **argv)
{
	long reps = 100;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			char *end;

			reps = strtol(argv[++i], &end, 10);
			if (end == argv[i] || *end || reps < 1 || reps > 100000) {
				fprintf(stderr, "bench-x86-ports: --reps takes 1 to 100000 (millions)\n");
				return 2;
			}
		} else {
			fprintf(stderr, "usage: bench-x86-ports [--reps N]\n");
			return 2;
		}
	}
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx2")) {
		fprintf(stderr, "bench-x86-ports: this CPU has no AVX2; nothing to measure\n");
		return 1;
	}
	const int avx512 = __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
	const long n = reps * 1000000 / 12;
	char model[256];

	bench_cpu_model(model, sizeof(model));
	printf("ports cpu_model=\"%s\" avx512=%s\n", model, avx512 ? "yes" : "no");
	for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
		const struct test *t = &tests[i];
		double best = 0, hz = 0;

		if (t->bits == 512 && !avx512)
			continue;
		/*
		 * The fastest of 20 short rounds of each, the clock's and the instruction's, taken
		 * apart: on a shared machine a round the scheduler interrupts only reads slow.
		 */
		for (int round = 0; round < 20; round++) {
			const double h = clock_hz(n * 12 / 20);
			double s = seconds();

			t->run(n / 20);
			s = 12.0 * (double)(n / 20) / (seconds() - s);
			best = s > best ? s : best;
			hz = h > hz ? h : hz;
		}
		best /= hz;
		const double ghz = hz / 1e9;
		printf("ports instruction=%s bits=%d per_cycle=%.2f clock_ghz=%.2f\n", t->name, t->bits, best, ghz);
	}
	return 0;
}
#else
#include <stdio.h>

int main(void)
{
	fprintf(stderr, "bench-x86-ports: x86-64 only\n");
	return 1;
}
#endif
