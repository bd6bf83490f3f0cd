/* SPDX-License-Identifier: MIT */
/*
 * Seccomp allow-lists as raw BPF programs, for the sandbox helper. A system
 * call not on the list raises SIGSYS (SECCOMP_RET_TRAP: the call is never
 * executed), and so does one of another architecture or ABI.
 */
#ifndef CISP_VENDOR_SECCOMP_FILTER_H
#define CISP_VENDOR_SECCOMP_FILTER_H

#include <stdint.h>

enum sc_check {
	SC_ANY,       /* any arguments */
	SC_ARG_EQ,    /* argument @arg equals @value (all 64 bits) */
	SC_ARG_CLEAR, /* argument @arg has none of the bits of @value (low 32 bits) */
};

struct sc_rule {
	long nr;        /* system call number; rules with nr < 0 are skipped */
	uint8_t check;  /* enum sc_check */
	uint8_t arg;    /* 0..5 */
	uint32_t value;
};

/*
 * Install a filter allowing only @rules (in addition to every filter already
 * installed: each one can only take permissions away). The caller has set
 * no_new_privs. Returns 0 or a negative errno (-ENOSYS: no filter for this
 * architecture).
 */
int sc_install(const struct sc_rule *rules, unsigned count);

#endif
