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
	int bits;         /* vector width */
	int avx512;       /* needs AVX-512BW (and VL at 256 bits) */
	void (*run)(long n);
};

/* Every register the chains use starts at 1.0f (the bits do not matter to integer work). */
#define ONES                                                                                           \
	__asm__ volatile("mov $0x3f800000, %%eax\n\tvmovd %%eax, %%xmm15\n\tvbroadcastss %%xmm15, %%ymm15\n\t" \
			 Y2("vmovaps") ::: CLOBBERS, "eax")

#define TEST(fn, text)                                                  \
	__attribute__((target("avx2"))) static void fn(long n)          \
	{                                                               \
		ONES;                                                   \
		for (long i = 0; i < n; i++)                            \
			__asm__ volatile(text ::: CLOBBERS);            \
	}
/* At 512 bits, the same. */
#define TESTZ(fn, text)                                                                \
	__attribute__((target("avx512f,avx512bw,avx512vl"))) static void fn(long n)    \
	{                                                                              \
		__asm__ volatile("mov $0x3f800000, %%eax\n\tvpbroadcastd %%eax, %%zmm15\n\t" \
				 Z2("vmovaps") ::: CLOBBERS, "eax"); \
		for (long i = 0; i < n; i++)                                           \
			__asm__ volatile(text ::: CLOBBERS, "k1");                     \
	}

TESTZ(z_paddw, Z3("vpaddw"))
TEST(y_paddw, Y3("vpaddw"))
TESTZ(z_pord, Z3("vpord"))
TEST(y_por, Y3("vpor"))
TESTZ(z_psubusw, Z3("vpsubusw"))
TEST(y_psubusw, Y3("vpsubusw"))
TESTZ(z_pminuw, Z3("vpminuw"))
TEST(y_pminuw, Y3("vpminuw"))
TESTZ(z_pabsw, Z2("vpabsw"))
TEST(y_pabsw, Y2("vpabsw"))
TESTZ(z_psrlw, Z2("vpsrlw $3,"))
TEST(y_psrlw, Y2("vpsrlw $3,"))
TESTZ(z_psllvd, Z3("vpsllvd"))
TEST(y_psllvd, Y3("vpsllvd"))
TESTZ(z_pmulhuw, Z3("vpmulhuw"))
TEST(y_pmulhuw, Y3("vpmulhuw"))
TESTZ(z_pmaddwd, Z3("vpmaddwd"))
TEST(y_pmaddwd, Y3("vpmaddwd"))
TESTZ(z_pshufb, Z3("vpshufb"))
TEST(y_pshufb, Y3("vpshufb"))
TESTZ(z_punpcklwd, Z3("vpunpcklwd"))
TEST(y_punpcklwd, Y3("vpunpcklwd"))
TESTZ(z_permd, Z3("vpermd"))
TEST(y_permd, Y3("vpermd"))
TESTZ(z_permt2w, Z3("vpermt2w"))
TESTZ(z_pcmpuw, ZK("vpcmpuw $1,"))
TESTZ(z_pblendmw, Z3("vpblendmw"))

static const struct test tests[] = {
	{ "vpaddw", 512, 1, z_paddw },         { "vpaddw", 256, 0, y_paddw },
	{ "vpord", 512, 1, z_pord },           { "vpor", 256, 0, y_por },
	{ "vpsubusw", 512, 1, z_psubusw },     { "vpsubusw", 256, 0, y_psubusw },
	{ "vpminuw", 512, 1, z_pminuw },       { "vpminuw", 256, 0, y_pminuw },
	{ "vpabsw", 512, 1, z_pabsw },         { "vpabsw", 256, 0, y_pabsw },
	{ "vpsrlw-imm", 512, 1, z_psrlw },     { "vpsrlw-imm", 256, 0, y_psrlw },
	{ "vpsllvd", 512, 1, z_psllvd },       { "vpsllvd", 256, 0, y_psllvd },
	{ "vpmulhuw", 512, 1, z_pmulhuw },     { "vpmulhuw", 256, 0, y_pmulhuw },
	{ "vpmaddwd", 512, 1, z_pmaddwd },     { "vpmaddwd", 256, 0, y_pmaddwd },
	{ "vpshufb", 512, 1, z_pshufb },       { "vpshufb", 256, 0, y_pshufb },
	{ "vpunpcklwd", 512, 1, z_punpcklwd }, { "vpunpcklwd", 256, 0, y_punpcklwd },
	{ "vpermd", 512, 1, z_permd },         { "vpermd", 256, 0, y_permd },
	{ "vpermt2w", 512, 1, z_permt2w },     { "vpcmpuw-to-mask", 512, 1, z_pcmpuw },
	{ "vpblendmw", 512, 1, z_pblendmw },
};

int main(int argc, char **argv)
{
	long reps = 100;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = strtol(argv[++i], NULL, 10);
			if (reps < 1 || reps > 100000) {
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
	char model[128] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (f) {
		char line[256];

		while (fgets(line, sizeof line, f))
			if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
				snprintf(model, sizeof model, "%s", strchr(line, ':') + 2);
				model[strcspn(model, "\n")] = 0;
				break;
			}
		fclose(f);
	}
	printf("ports cpu_model=\"%s\" avx512=%s\n", model, avx512 ? "yes" : "no");
	for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
		const struct test *t = &tests[i];
		double best = 0, hz = 0;

		if (t->avx512 && !avx512)
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
