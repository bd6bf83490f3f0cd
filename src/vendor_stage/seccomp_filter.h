/* SPDX-License-Identifier: MIT */
/*
 * Seccomp allow-lists as raw BPF programs, for the sandbox helper. A system
 * call no rule allows raises SIGSYS (SECCOMP_RET_TRAP: the call is never
 * executed); one of another architecture or ABI kills the process.
 */
#ifndef CISP_VENDOR_SECCOMP_FILTER_H
#define CISP_VENDOR_SECCOMP_FILTER_H

#include <stdint.h>

enum sc_test {
	SC_NONE, /* no condition */
	SC_EQ,   /* argument @arg equals @value, all 64 bits */
	SC_BITS, /* the low 32 bits of argument @arg, and @mask, equal @value */
};

/* A condition on one argument of a system call. */
struct sc_cond {
	uint8_t test; /* enum sc_test */
	uint8_t arg;  /* 0..5 */
	uint32_t mask;
	uint32_t value;
};

#define SC_ARG_EQ(arg, value) { SC_EQ, (arg), 0, (value) }
#define SC_ARG_BITS(arg, mask, value) { SC_BITS, (arg), (mask), (value) }

/*
 * Allow system call @nr when both conditions hold (unused ones are
 * SC_NONE). Several rules for one call are alternatives: the first that
 * matches allows it. Rules with @nr < 0 are skipped.
 */
struct sc_rule {
	long nr;
	struct sc_cond cond[2];
};

/*
 * Install a filter allowing only @rules, in addition to every filter
 * already installed (each one can only take permissions away). The caller
 * has set no_new_privs. Returns 0 or a negative errno (-ENOSYS: no filter
 * for this architecture).
 */
int sc_install(const struct sc_rule *rules, unsigned count);

#endif
