/* SPDX-License-Identifier: MIT */
/*
 * A seccomp allow-list compiled to classic BPF. The program:
 *
 *   load arch; not this architecture -> kill the process
 *   load nr;   x32 system call (x86-64) -> kill the process
 *   for each rule: nr matches -> check its argument -> allow or trap (a
 *                  rule that matches always returns, so the accumulator
 *                  still holds nr for the next one)
 *   otherwise -> trap
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

#define SC_MAX_INSNS 512
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define ARG_HI(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)

int sc_install(const struct sc_rule *rules, unsigned count)
{
#ifndef SC_ARCH
	(void)rules;
	(void)count;
	return -ENOSYS;
#else
	struct sock_filter f[SC_MAX_INSNS];
	struct sock_fprog prog;
	unsigned n = 0;

#define EMIT(insn)                              \
	do {                                    \
		if (n == SC_MAX_INSNS)          \
			return -E2BIG;          \
		f[n++] = (struct sock_filter)insn; \
	} while (0)

	EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
	EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SC_ARCH, 1, 0));
	EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
	EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
#ifdef __x86_64__
	EMIT(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
	EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
#endif
	for (unsigned i = 0; i < count; i++) {
		const struct sc_rule *r = &rules[i];

		if (r->nr < 0)
			continue;
		switch (r->check) {
		case SC_ANY:
			EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)r->nr, 0, 1));
			EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
			break;
		case SC_ARG_EQ:
			EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)r->nr, 0, 6));
			EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(r->arg)));
			EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, r->value, 0, 2));
			EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_HI(r->arg)));
			EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0));
			EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP));
			EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
			break;
		case SC_ARG_CLEAR:
			EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)r->nr, 0, 4));
			EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(r->arg)));
			EMIT(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, r->value, 0, 1));
			EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP));
			EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
			break;
		default:
			return -EINVAL;
		}
	}
	EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP));
#undef EMIT

	prog.len = (unsigned short)n;
	prog.filter = f;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return -errno;
	return 0;
#endif
}
