/* SPDX-License-Identifier: MIT */
/*
 * Hostile test plugins, one shared object per HOSTILE_* mode, each its own
 * vendor (0xffff0200 + mode) with block 1 at the RGB tap. While the
 * payload's first byte is 0 they copy input to output like a good stage;
 * when it is not 0 they misbehave as their mode says (some misbehave as
 * soon as they are loaded). The sandbox must contain every one of them
 * (tests/test_vendor.c); docs/security.md says what each one shows.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cisp/vendor.h>

#include "vendor_stage/protocol.h"

#define HOSTILE_OVERFLOW 1    /* writes one sample past the end of its output */
#define HOSTILE_CRASH 2       /* dereferences NULL */
#define HOSTILE_SPIN 3        /* loops forever */
#define HOSTILE_OPEN 4        /* creates a file */
#define HOSTILE_SOCKET 5      /* opens a socket */
#define HOSTILE_EXEC 6        /* runs a shell */
#define HOSTILE_WRITE_INPUT 7 /* writes into its input */
#define HOSTILE_UNDERFLOW 8   /* writes one sample before its output */
#define HOSTILE_ABORT 9       /* calls abort() */
#define HOSTILE_GARBAGE 10    /* returns a positive status with an unprintable message */
#define HOSTILE_CONSTRUCTOR 11 /* opens a socket as soon as it is loaded */
#define HOSTILE_CHATTER 12    /* writes its own byte on the helper's socket */
#define HOSTILE_SCRIBBLE 13   /* overwrites the control memfd's set-up fields, then answers well */
#define HOSTILE_PEEK 14       /* reads files and the library's memory when loaded, and again in jobs */
#define HOSTILE_FORGE 15      /* never returns from process(), answering jobs in the helper's place */
#define HOSTILE_SECCOMP 16    /* installs a seccomp filter of its own as soon as it is loaded */
#define HOSTILE_SHARED_MEMORY 17 /* maps 1500 MiB of shared anonymous memory */

#ifndef HOSTILE_MODE
#error "build with -DHOSTILE_MODE=n"
#endif

#if HOSTILE_MODE == HOSTILE_CONSTRUCTOR
__attribute__((constructor)) static void at_load(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);

	if (s >= 0)
		close(s);
}
#endif

#if HOSTILE_MODE == HOSTILE_PEEK
/*
 * Load-time code may open files read-only (the dynamic loader needs to).
 * This constructor tries to read what a plugin must not: a system file, and
 * through /proc the memory of the process that started the helper (the
 * library's, with every other context's frames in it). process() reports
 * what it got.
 */
static char peeked[160];

static bool read_some(const char *path, off_t at, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return false;
	n = pread(fd, buf, size - 1, at);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return true;
}

static void peek(void)
{
	char buf[4096], path[64];
	const char *ppid;
	unsigned long long start;
	size_t used = 0;

	if (read_some("/etc/passwd", 0, buf, sizeof(buf)))
		used += (size_t)snprintf(peeked + used, sizeof(peeked) - used, "/etc/passwd ");
	if (!read_some("/proc/self/status", 0, buf, sizeof(buf)) || !(ppid = strstr(buf, "PPid:")))
		return;
	used += (size_t)snprintf(peeked + used, sizeof(peeked) - used, "/proc/self/status ");
	snprintf(path, sizeof(path), "/proc/%d/maps", atoi(ppid + 5));
	if (!read_some(path, 0, buf, sizeof(buf)) || sscanf(buf, "%llx", &start) != 1)
		return;
	used += (size_t)snprintf(peeked + used, sizeof(peeked) - used, "the library's mappings ");
	snprintf(path, sizeof(path), "/proc/%d/mem", atoi(ppid + 5));
	if (read_some(path, (off_t)start, buf, 64))
		snprintf(peeked + used, sizeof(peeked) - used, "the library's memory ");
}

__attribute__((constructor)) static void at_load(void)
{
	peek();
}
#endif

#if HOSTILE_MODE == HOSTILE_SECCOMP
/*
 * A filter of its own, installed from a constructor, that answers 0 to
 * seccomp() and close_range() without running them: a helper that
 * installed its filters or closed its descriptors after loading the plugin
 * would believe it had.
 */
__attribute__((constructor)) static void at_load(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_seccomp, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_close_range, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}
#endif

static void copy(const struct cisp_vendor_frame *f)
{
	for (uint32_t c = 0; c < f->in.num_planes; c++)
		for (uint32_t y = 0; y < f->in.height; y++)
			memcpy(f->out.plane[c] + (size_t)y * f->out.stride, f->in.plane[c] + (size_t)y * f->in.stride,
			       f->in.width * sizeof(uint16_t));
}

/*
 * Never return: write each job's output and answer it in the helper's
 * place, as its job loop would, with the job's sequence number, then watch
 * the input for the next job's frame. The request stays unread on the
 * socket, so the answers cannot carry its nonce.
 */
static _Noreturn void forge(const struct cisp_vendor_frame *f)
{
	size_t bytes = (size_t)f->in.stride * f->in.height * sizeof(uint16_t);
	uint64_t sequence = f->sequence;
	uint16_t *seen = malloc(bytes);

	for (;;) {
		struct helper_msg answer = { HELPER_MSG_DONE, 0, sequence++, 0 };

		copy(f);
		if (seen)
			memcpy(seen, f->in.plane[0], bytes);
		if (write(HELPER_FD_SOCKET, &answer, sizeof(answer)) < 0)
			_exit(0);
		while (seen && !memcmp(seen, f->in.plane[0], bytes))
			;
	}
}

/* Whether @mib MiB of anonymous memory could be mapped with @flags (said in the message). */
static bool mapped(size_t mib, int flags, const struct cisp_vendor_frame *f)
{
	void *p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS, -1, 0);

	snprintf(f->message, f->message_size, "%s %zu MiB of %s memory", p == MAP_FAILED ? "could not map" : "mapped",
		 mib, flags & MAP_SHARED ? "shared" : "private");
	return p != MAP_FAILED;
}

static int misbehave(const struct cisp_vendor_frame *f)
{
	const struct cisp_vendor_image *o = &f->out;
	volatile uint16_t *last = o->plane[o->num_planes - 1] + (size_t)o->stride * o->height;

	switch (HOSTILE_MODE) {
	case HOSTILE_OVERFLOW:
		last[0] = 0xdead;
		return 0;
	case HOSTILE_CRASH: {
		volatile uintptr_t address = 64; /* not NULL, so the compiler cannot turn it into a trap */

		*(volatile int *)address = 1;
		return 0;
	}
	case HOSTILE_SPIN:
		for (volatile unsigned i = 0;; i++)
			;
	case HOSTILE_OPEN:
		return open("/tmp/cisp-escaped", O_WRONLY | O_CREAT, 0644) >= 0 ? 0 : -errno;
	case HOSTILE_SOCKET:
		return socket(AF_INET, SOCK_STREAM, 0) >= 0 ? 0 : -errno;
	case HOSTILE_EXEC:
		execl("/bin/sh", "sh", "-c", "echo escaped > /tmp/cisp-escaped", (char *)NULL);
		return -errno;
	case HOSTILE_WRITE_INPUT:
		((volatile uint16_t *)f->in.plane[0])[5] = 1;
		return 0;
	case HOSTILE_UNDERFLOW:
		((volatile uint16_t *)o->plane[0])[-1] = 0xdead;
		return 0;
	case HOSTILE_ABORT:
		abort();
	case HOSTILE_CHATTER:
		return write(3, "X", 1) == 1 ? 0 : -errno; /* the socket is descriptor 3 (src/vendor_stage/protocol.h) */
	case HOSTILE_SCRIBBLE: {
		/*
		 * The control memfd starts a page below the message buffer it holds
		 * (src/vendor_stage/protocol.h): overwrite its geometry and payload offsets
		 * with huge values, keeping the answer's own fields, as an attacker
		 * who wants the library to copy out of bounds would.
		 */
		uint8_t *page = (uint8_t *)((uintptr_t)f->message & ~(uintptr_t)4095);

		memset(page, 0x7f, (size_t)((uint8_t *)f->message - page) - 32);
		return 0;
	}
#if HOSTILE_MODE == HOSTILE_PEEK
	case HOSTILE_PEEK:
		if (!peeked[0])
			peek();
		if (!peeked[0])
			return 0;
		snprintf(f->message, f->message_size, "read %s", peeked);
		return -EACCES;
#endif
	case HOSTILE_FORGE:
		forge(f);
	case HOSTILE_SHARED_MEMORY:
		/* Over the data limit, privately; then shared, which the data limit does not count. */
		if (mapped(1500, MAP_PRIVATE, f) || mapped(1500, MAP_SHARED, f))
			return -EOVERFLOW;
		return -ENOMEM;
	case HOSTILE_GARBAGE:
		strcpy(f->message, "bad\x01\x7f\n reply");
		return 12345;
	default:
		return 0;
	}
}

static int process(void *state, const struct cisp_vendor_frame *f)
{
	const uint8_t *p = f->blocks[0].payload;

	(void)state;
	copy(f);
	return f->blocks[0].size && p[0] ? misbehave(f) : 0;
}

const struct cisp_vendor_plugin cisp_vendor_plugin = {
	.abi_version = CISP_VENDOR_PLUGIN_ABI,
	.vendor_id = 0xffff0200u + HOSTILE_MODE,
	.name = "test-hostile",
	.vendor_name = "cisp tests",
	.tap = CISP_VENDOR_TAP_RGB,
	.num_blocks = 1,
	.blocks = { { .type = 1, .min_version = 1, .max_version = 1, .max_payload = 8, .name = "misbehave" } },
	.process = process,
};
