/* SPDX-License-Identifier: MIT */
/*
 * A seccomp allow-list compiled to classic BPF. The program:
 *
 *   load arch; not this architecture -> kill the process
 *   load nr;   x32 system call (x86-64) -> kill the process
 *   for each rule: load nr; not the rule's -> next rule
 *                  each condition: load the argument word, test it;
 *                                  fails -> next rule
 *                  allow
 *   trap
 *
 * Arguments are 64-bit; BPF loads 32-bit words, low word first on the
 * little-endian architectures supported here.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "seccomp_filter.h"

#if defined(__x86_64__)
#define SC_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SC_ARCH AUDIT_ARCH_AARCH64
#endif

#define SC_MAX_INSNS 1024
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define ARG_HI(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)

/* Instructions a condition compiles to. */
static unsigned cond_length(const struct sc_cond *c)
{
	return c->test == SC_EQ ? 4 : c->test == SC_BITS ? 3 : 0;
}

int sc_install(const struct sc_rule *rules, unsigned count)
{
#ifndef SC_ARCH
	(void)rules;
	(void)count;
	(void)cond_length;
	return -ENOSYS;
#else
	struct sock_filter f[SC_MAX_INSNS];
	struct sock_fprog prog;
	unsigned n = 0;

#define EMIT(insn)                                          \
	do {                                                \
		struct sock_filter insn_ = insn;            \
		if (n == SC_MAX_INSNS)                      \
			return -E2BIG;                      \
		f[n++] = insn_;                             \
	} while (0)
/* A test whose false branch leaves the rule: jumps to instruction @end. */
#define TEST_OR_LEAVE(op, k, end) EMIT(BPF_JUMP(BPF_JMP | (op) | BPF_K, (k), 0, (uint8_t)((end) - n - 1)))

	EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
	EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SC_ARCH, 1, 0));
	EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
#ifdef __x86_64__
	EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
	EMIT(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
	EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
#endif
	for (unsigned i = 0; i < count; i++) {
		const struct sc_rule *r = &rules[i];
		unsigned end = n + 3; /* load nr, test it, ..., allow: the next rule starts at end */

		if (r->nr < 0)
			continue;
		for (unsigned c = 0; c < 2; c++) {
			if (r->cond[c].test > SC_BITS || r->cond[c].arg > 5)
				return -EINVAL;
			end += cond_length(&r->cond[c]);
		}
		EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
		TEST_OR_LEAVE(BPF_JEQ, (uint32_t)r->nr, end);
		for (unsigned c = 0; c < 2; c++) {
			const struct sc_cond *k = &r->cond[c];

			if (k->test == SC_EQ) {
				EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(k->arg)));
				TEST_OR_LEAVE(BPF_JEQ, k->value, end);
				EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_HI(k->arg)));
				TEST_OR_LEAVE(BPF_JEQ, 0, end);
			} else if (k->test == SC_BITS) {
				EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(k->arg)));
				EMIT(BPF_STMT(BPF_ALU | BPF_AND | BPF_K, k->mask));
				TEST_OR_LEAVE(BPF_JEQ, k->value, end);
			}
		}
		EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	}
	EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP));
#undef TEST_OR_LEAVE
#undef EMIT

	prog.len = (unsigned short)n;
	prog.filter = f;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return -errno;
	return 0;
#endif
}
