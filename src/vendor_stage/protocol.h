/* SPDX-License-Identifier: MIT */
/*
 * What the library and the sandbox helper (helper.c) share: the descriptors
 * the helper starts with, the messages on its socket, its exit codes and the
 * layout of the shared control memfd. The helper runs plugin code, so the
 * library trusts nothing it writes: replies are checked against the request
 * they answer, and what lies in shared memory is copied out before it is
 * looked at (docs/security.md).
 *
 * A helper runs one plugin for one stream. It starts with:
 *   fd 3: a SOCK_SEQPACKET socket to the library;
 *   fd 4: the control memfd (struct helper_shared, then the payloads);
 *   fd 5: the input image memfd (mapped read-only, sealed);
 *   fd 6: the output image memfd.
 * (Describe mode gets only the first two.) The image memfds are a whole
 * number of pages; the image lies at their end, so the first byte past it
 * is the guard page the helper maps after it.
 *
 * On the socket, every message one struct helper_msg:
 *   helper  READY  confined (limits, credentials, seccomp filter), no plugin
 *                  code loaded yet;
 *   library LOAD   after checking that from /proc/PID/status;
 *   helper  DONE   the plugin is loaded: describe mode, its declaration is in
 *                  the control memfd (then the helper exits); run mode,
 *                  @status is what create() returned;
 *   library RUN    one job (run mode; the block state is in the control
 *                  memfd), then the helper's DONE with process()'s @status,
 *                  again and again until the library closes the socket.
 * A DONE answers the request just before it: the same @sequence and @nonce.
 * The nonce is random and travels only on the socket, so an answer that
 * carries it proves that the helper read the request after the library
 * sent it; nothing proves which code in the helper wrote the answer.
 */
#ifndef CISP_VENDOR_PROTOCOL_H
#define CISP_VENDOR_PROTOCOL_H

#include <stdint.h>
#include <string.h>

#include <cisp/vendor.h>

/* Bump on any change to this file: library and helper must match. */
#define HELPER_PROTOCOL 2

#define HELPER_FD_SOCKET 3
#define HELPER_FD_SHARED 4
#define HELPER_FD_INPUT 5
#define HELPER_FD_OUTPUT 6

/* argv[1] of the helper. */
#define HELPER_MODE_DESCRIBE "describe" /* load the plugin, report its declaration, exit */
#define HELPER_MODE_RUN "run"           /* load, create an instance, run jobs until EOF */

/* The user and group a helper started by root runs as (nobody on Debian). */
#define HELPER_UNPRIVILEGED_ID 65534u

/* Message types. */
enum helper_msg_type {
	HELPER_MSG_READY = 'S',
	HELPER_MSG_LOAD = 'L',
	HELPER_MSG_RUN = 'R',
	HELPER_MSG_DONE = 'D',
};

struct helper_msg {
	uint32_t type;     /* enum helper_msg_type */
	int32_t status;    /* DONE: 0 or a negative errno */
	uint64_t sequence; /* RUN: the frame's sequence number (struct cisp_vendor_frame) */
	uint64_t nonce;    /* LOAD, RUN: random; DONE: the request's */
};

/* Exit codes of the helper that say why it stopped. */
enum helper_exit {
	HELPER_EXIT_OK = 0,
	HELPER_EXIT_SETUP = 100,   /* could not set up (message in struct helper_shared) */
	HELPER_EXIT_FAULT = 101,   /* a memory fault (fault_* fields) */
	HELPER_EXIT_SYSCALL = 102, /* a forbidden system call (syscall_nr) */
};

/* Where a memory fault hit, relative to the helper's buffers. */
enum helper_fault_where {
	HELPER_FAULT_ELSEWHERE = 0,
	HELPER_FAULT_PAST_OUTPUT = 1,   /* the guard page after the output */
	HELPER_FAULT_BEFORE_OUTPUT = 2, /* the guard page before the output */
	HELPER_FAULT_INPUT_WRITE = 3,   /* a write into the read-only input */
	HELPER_FAULT_PAST_INPUT = 4,    /* the guard page after the input */
	HELPER_FAULT_BEFORE_INPUT = 5,  /* the guard page before the input */
};

/* A plugin's declaration without its functions. */
struct helper_decl {
	uint32_t abi_version;
	uint32_t vendor_id;
	char name[CISP_VENDOR_NAME_MAX];
	char vendor_name[CISP_VENDOR_NAME_MAX];
	uint32_t tap;
	uint32_t num_blocks;
	struct cisp_vendor_block_decl blocks[CISP_VENDOR_MAX_STAGE_BLOCKS];
	uint32_t has_process; /* process() is not NULL */
	uint32_t reserved;
};

/* The data of a plugin's declaration (the library's and the helper's copy of it). */
static inline void helper_decl_of(struct helper_decl *d, const struct cisp_vendor_plugin *p)
{
	d->abi_version = p->abi_version;
	d->vendor_id = p->vendor_id;
	memcpy(d->name, p->name, sizeof(d->name));
	memcpy(d->vendor_name, p->vendor_name, sizeof(d->vendor_name));
	d->tap = p->tap;
	d->num_blocks = p->num_blocks;
	memcpy(d->blocks, p->blocks, sizeof(d->blocks));
	d->has_process = p->process != NULL;
}

/* One block's state for a job; its payload lies at payload_offset[i] of the control memfd. */
struct helper_block {
	uint16_t version;
	uint16_t enabled;
	uint32_t size;
};

struct helper_shared {
	/* Written by the library before the helper starts. */
	uint32_t protocol;
	uint32_t num_planes;
	struct cisp_vendor_stream stream;
	uint64_t image_bytes; /* bytes of one image: width * height * num_planes * 2 */
	uint64_t memfd_bytes; /* size of the input and of the output memfd */
	uint32_t payload_offset[CISP_VENDOR_MAX_STAGE_BLOCKS];

	/* A job's block state, written by the library before RUN. */
	struct helper_block block[CISP_VENDOR_MAX_STAGE_BLOCKS];

	/* Written by the helper. */
	uint32_t fault_where; /* enum helper_fault_where */
	int32_t syscall_nr;   /* the forbidden system call */
	int64_t fault_offset; /* bytes from the buffer edge named by fault_where */
	char message[CISP_VENDOR_MESSAGE_MAX];
	struct helper_decl decl; /* describe mode */
};

/* The payloads start at the first page boundary after the struct: at most 4 KiB in. */
#define HELPER_PAYLOAD_START 4096u
_Static_assert(sizeof(struct helper_shared) <= HELPER_PAYLOAD_START, "struct helper_shared grew past a page");

#endif
