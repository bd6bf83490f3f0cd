/* SPDX-License-Identifier: MIT */
/*
 * The library's side of a sandboxed stage: the helper process (helper.c),
 * the memfds it shares, one job's round trip, and what to do when the helper
 * misbehaves.
 *
 * Nothing the helper writes is trusted: the library never reads back what it
 * wrote into shared memory itself (the geometry and the payload offsets are
 * kept here, and written out again before every helper starts), the reply
 * is copied out of shared memory before it is checked, its message is cut
 * to printable ASCII, the bytes of the output memfd before the image must
 * come back unchanged, and the shared sizes are fixed by seals so the
 * helper cannot shrink a buffer under the library's mapping. A job that fails for any reason but the
 * plugin's own error status kills the helper and starts a new one.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cisp/error.h>
#include <cisp/log.h>

#include "core/error_internal.h"
#include "vendor/vendor_internal.h"

/* Loading a plugin and creating its instance may take this long beyond the job limit. */
#define STARTUP_MS 5000u
/* What the bytes of the output memfd before the image must still hold after a job. */
#define CANARY 0xa5

struct sandbox {
	const struct vendor_stage *stage;
	struct cisp_vendor_stream stream;
	uint32_t payload_offset[CISP_VENDOR_MAX_STAGE_BLOCKS];
	unsigned num_planes;
	size_t image_bytes, memfd_bytes, shared_bytes;
	int shared_fd, in_fd, out_fd;
	struct helper_shared *shared;
	uint8_t *in_map, *out_map;
	pid_t pid; /* -1: no helper running */
	int sock;
	unsigned restarts;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Move @fd above the descriptors the helper's are renumbered to, close-on-exec. */
static int high_fd(int fd)
{
	int h;

	if (fd < 0)
		return -1;
	h = fcntl(fd, F_DUPFD_CLOEXEC, 16);
	close(fd);
	return h;
}

/* A sealed memfd of @size bytes mapped read-write here; @extra_seals on top of a fixed size. */
static int make_memfd(const char *name, size_t size, unsigned extra_seals, int *fd, void **map)
{
	*fd = high_fd(memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING));
	if (*fd < 0 || ftruncate(*fd, (off_t)size))
		return cisp_error(-errno, "cannot make a %zu-byte memfd for a vendor stage: %s", size, strerror(errno));
	*map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (*map == MAP_FAILED) {
		*map = NULL;
		return cisp_error(-errno, "cannot map a %zu-byte memfd: %s", size, strerror(errno));
	}
	if (fcntl(*fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | extra_seals | F_SEAL_SEAL))
		return cisp_error(-errno, "cannot seal a memfd: %s", strerror(errno));
	return 0;
}

/*
 * Start the helper in @mode with @fds (socket end, control, input, output;
 * -1 for none) as its descriptors 3.., an empty environment and nothing else.
 */
static int spawn(const char *helper, const char *mode, const char *plugin, const int fds[4], pid_t *pid)
{
	char *const argv[] = { (char *)helper, (char *)mode, (char *)plugin, NULL };
	char *const envp[] = { NULL };
	posix_spawn_file_actions_t fa;
	int ret;

	if (posix_spawn_file_actions_init(&fa))
		return cisp_error(-ENOMEM, "out of memory to start the vendor helper");
	ret = 0;
	for (int i = 0; i < 4 && !ret; i++)
		if (fds[i] >= 0)
			ret = posix_spawn_file_actions_adddup2(&fa, fds[i], HELPER_FD_SOCKET + i);
	if (!ret)
		ret = posix_spawn_file_actions_addclosefrom_np(&fa, HELPER_FD_OUTPUT + 1);
	if (!ret)
		ret = posix_spawn(pid, helper, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	if (ret)
		return cisp_error(-ret, "cannot start the vendor helper %s: %s", helper, strerror(ret));
	return 0;
}

/* Wait for 'D' on @sock: 0; -ETIMEDOUT; -EPIPE when the helper hung up; -EPROTO for another byte. */
static int wait_done(int sock, uint32_t limit_ms)
{
	uint64_t deadline = now_ms() + limit_ms;

	for (;;) {
		struct pollfd p = { .fd = sock, .events = POLLIN };
		uint64_t now = now_ms();
		int r = poll(&p, 1, now >= deadline ? 0 : (int)(deadline - now));
		char c;
		ssize_t n;

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return -ETIMEDOUT;
		n = recv(sock, &c, 1, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -EPIPE;
		return c == HELPER_MSG_DONE ? 0 : -EPROTO;
	}
}

static const char *syscall_name(int nr)
{
	static const struct {
		long nr;
		const char *name;
	} names[] = {
#ifdef SYS_open
		{ SYS_open, "open" },
#endif
		{ SYS_openat, "openat" },   { SYS_socket, "socket" },     { SYS_connect, "connect" },
		{ SYS_bind, "bind" },       { SYS_sendto, "sendto" },     { SYS_execve, "execve" },
		{ SYS_clone, "clone" },     { SYS_clone3, "clone3" },     { SYS_kill, "kill" },
		{ SYS_ptrace, "ptrace" },   { SYS_write, "write" },       { SYS_read, "read" },
		{ SYS_close, "close" },     { SYS_mmap, "mmap" },         { SYS_mprotect, "mprotect" },
		{ SYS_rt_sigaction, "rt_sigaction" }, { SYS_ioctl, "ioctl" }, { SYS_unlinkat, "unlinkat" },
		{ SYS_getpid, "getpid" },   { SYS_nanosleep, "nanosleep" }, { SYS_futex, "futex" },
		{ SYS_prctl, "prctl" },     { SYS_seccomp, "seccomp" }, { SYS_getrandom, "getrandom" },
#ifdef SYS_fork
		{ SYS_fork, "fork" },
#endif
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].nr == nr)
			return names[i].name;
	return "system call";
}

/* The helper's message: at most its buffer, printable ASCII only. */
static void clean_message(char *out, size_t size, const char *in)
{
	size_t i;

	for (i = 0; i + 1 < size && in[i]; i++)
		out[i] = in[i] >= 0x20 && in[i] < 0x7f ? in[i] : '?';
	out[i] = '\0';
}

/*
 * Reap a helper that failed (@why from wait_done(): one that hung up is
 * left to exit, any other is killed) and describe why in @msg; returns the
 * job's error code.
 */
static int reap(pid_t pid, int why, const struct helper_shared *shared, uint32_t limit_ms, char *msg, size_t size)
{
	struct helper_shared r;
	char text[CISP_VENDOR_MESSAGE_MAX];
	int status = 0;

	if (why != -EPIPE)
		kill(pid, SIGKILL);
	/* A helper that hung up is exiting; one that does not within a second is killed. */
	for (int i = 0; i < 1000 && waitpid(pid, &status, WNOHANG) == 0; i++) {
		if (i == 999)
			kill(pid, SIGKILL);
		usleep(1000);
	}
	if (waitpid(pid, &status, WNOHANG) == 0)
		waitpid(pid, &status, 0);
	memcpy(&r, shared, sizeof(r)); /* it is dead: nothing changes under the copy */
	clean_message(text, sizeof(text), r.message);

	if (why == -ETIMEDOUT) {
		snprintf(msg, size, "did not finish within its %" PRIu32 " ms time limit and was killed", limit_ms);
		return -ETIMEDOUT;
	}
	if (why == -EPROTO) {
		snprintf(msg, size, "answered with a message the protocol does not have and was killed");
		return -EPROTO;
	}
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		const char *abbrev = sigabbrev_np(sig);

		snprintf(msg, size, "crashed with SIG%s (%s)", abbrev ? abbrev : "?", sigdescr_np(sig) ? sigdescr_np(sig) : "?");
		return sig == SIGSEGV || sig == SIGBUS ? -EFAULT : sig == SIGSYS ? -EPERM : -EIO;
	}
	switch (WEXITSTATUS(status)) {
	case HELPER_EXIT_FAULT:
		switch (r.fault_where) {
		case HELPER_FAULT_PAST_OUTPUT:
			snprintf(msg, size, "accessed memory %" PRId64 " bytes past the end of its output buffer",
				 r.fault_offset);
			break;
		case HELPER_FAULT_BEFORE_OUTPUT:
			snprintf(msg, size, "accessed memory %" PRId64 " bytes before the start of its output buffer",
				 r.fault_offset);
			break;
		case HELPER_FAULT_INPUT_WRITE:
			snprintf(msg, size, "wrote into its read-only input buffer (byte %" PRId64 ")", r.fault_offset);
			break;
		case HELPER_FAULT_PAST_INPUT:
			snprintf(msg, size, "read %" PRId64 " bytes past the end of its input buffer", r.fault_offset);
			break;
		case HELPER_FAULT_BEFORE_INPUT:
			snprintf(msg, size, "read %" PRId64 " bytes before the start of its input buffer", r.fault_offset);
			break;
		default:
			snprintf(msg, size, "made an invalid memory access outside its buffers");
		}
		return -EFAULT;
	case HELPER_EXIT_SYSCALL:
		snprintf(msg, size, "made a forbidden system call: %s (%d)", syscall_name(r.syscall_nr), r.syscall_nr);
		return -EPERM;
	case HELPER_EXIT_SETUP:
		snprintf(msg, size, "could not be set up: %s", text);
		return -ENOEXEC;
	default:
		snprintf(msg, size, "exited with status %d in the middle of a job", WEXITSTATUS(status));
		return -EIO;
	}
}

int sandbox_describe(const char *helper, const char *plugin, uint32_t time_limit_ms, struct helper_decl *decl)
{
	struct helper_shared *shared = NULL;
	int pair[2] = { -1, -1 }, shared_fd = -1;
	char msg[256];
	pid_t pid;
	int ret, status;

	if ((ret = make_memfd("cisp-vendor-describe", HELPER_PAYLOAD_START, 0, &shared_fd, (void **)&shared)))
		goto out;
	memset(shared, 0, HELPER_PAYLOAD_START);
	shared->protocol = HELPER_PROTOCOL;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) || (pair[1] = high_fd(pair[1])) < 0) {
		ret = cisp_error(-errno, "cannot make a socket pair: %s", strerror(errno));
		goto out;
	}
	if ((ret = spawn(helper, HELPER_MODE_DESCRIBE, plugin, (const int[4]){ pair[1], shared_fd, -1, -1 }, &pid)))
		goto out;
	close(pair[1]);
	pair[1] = -1;
	ret = wait_done(pair[0], STARTUP_MS + time_limit_ms);
	if (ret) {
		ret = reap(pid, ret, shared, STARTUP_MS + time_limit_ms, msg, sizeof(msg));
		ret = cisp_error(ret, "vendor plugin %s %s", plugin, msg);
		goto out;
	}
	memcpy(decl, &shared->decl, sizeof(*decl));
	close(pair[0]);
	pair[0] = -1;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		ret = cisp_error(-EIO, "the vendor helper describing %s did not exit cleanly", plugin);
out:
	if (shared)
		munmap(shared, HELPER_PAYLOAD_START);
	for (int i = 0; i < 2; i++)
		if (pair[i] >= 0)
			close(pair[i]);
	if (shared_fd >= 0)
		close(shared_fd);
	return ret;
}

/* What the helper reads from the control memfd to set itself up, from the library's own copies. */
static void write_setup(struct sandbox *sb)
{
	struct helper_shared *h = sb->shared;

	memset(h, 0, sizeof(*h));
	h->protocol = HELPER_PROTOCOL;
	h->num_planes = sb->num_planes;
	h->stream = sb->stream;
	h->image_bytes = sb->image_bytes;
	h->memfd_bytes = sb->memfd_bytes;
	memcpy(h->payload_offset, sb->payload_offset, sizeof(h->payload_offset));
	memset(sb->out_map, CANARY, sb->memfd_bytes - sb->image_bytes);
}

/* Start a helper and wait for its instance; 0, or an error with the reason in @msg. */
static int start(struct sandbox *sb, char *msg, size_t size)
{
	int pair[2] = { -1, -1 }, ret, status;

	/* A previous helper may have scribbled over all of it. */
	write_setup(sb);

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) || (pair[1] = high_fd(pair[1])) < 0) {
		ret = -errno;
		if (pair[0] >= 0)
			close(pair[0]);
		snprintf(msg, size, "cannot make a socket pair: %s", strerror(-ret));
		return ret;
	}
	ret = spawn(sb->stage->helper, HELPER_MODE_RUN, sb->stage->path,
		    (const int[4]){ pair[1], sb->shared_fd, sb->in_fd, sb->out_fd }, &sb->pid);
	close(pair[1]);
	if (ret) {
		close(pair[0]);
		sb->pid = -1;
		snprintf(msg, size, "%s", cisp_last_error());
		return ret;
	}
	sb->sock = pair[0];
	ret = wait_done(sb->sock, STARTUP_MS + sb->stage->time_limit_ms);
	status = sb->shared->status; /* read once */
	if (!ret && status) {
		char text[CISP_VENDOR_MESSAGE_MAX], raw[CISP_VENDOR_MESSAGE_MAX];

		memcpy(raw, sb->shared->message, sizeof(raw));
		raw[sizeof(raw) - 1] = '\0';
		clean_message(text, sizeof(text), raw);
		snprintf(msg, size, "create() failed: %s (error %d)", text, status);
		ret = vendor_status_error(status);
	} else if (ret) {
		ret = reap(sb->pid, ret, sb->shared, STARTUP_MS + sb->stage->time_limit_ms, msg, size);
		sb->pid = -1;
	}
	if (ret && sb->pid > 0) {
		kill(sb->pid, SIGKILL);
		waitpid(sb->pid, NULL, 0);
		sb->pid = -1;
	}
	if (ret) {
		close(sb->sock);
		sb->sock = -1;
	}
	return ret;
}

static void stop(struct sandbox *sb)
{
	if (sb->pid > 0) {
		close(sb->sock);
		kill(sb->pid, SIGKILL);
		waitpid(sb->pid, NULL, 0);
	}
	sb->pid = -1;
	sb->sock = -1;
}

int sandbox_create(struct sandbox **out, const struct vendor_stage *stage, const struct cisp_vendor_stream *stream,
		   unsigned num_planes)
{
	struct sandbox *sb = calloc(1, sizeof(*sb));
	size_t page = (size_t)sysconf(_SC_PAGESIZE), off = HELPER_PAYLOAD_START;
	char msg[256];
	int ret;

	if (!sb)
		return cisp_error(-ENOMEM, "out of memory for a vendor stage");
	sb->stage = stage;
	sb->num_planes = num_planes;
	sb->pid = -1;
	sb->sock = sb->shared_fd = sb->in_fd = sb->out_fd = -1;
	sb->image_bytes = (size_t)stream->width * stream->height * num_planes * sizeof(uint16_t);
	sb->memfd_bytes = (sb->image_bytes + page - 1) / page * page;
	sb->stream = *stream;
	for (unsigned i = 0; i < stage->decl.num_blocks; i++) {
		sb->payload_offset[i] = (uint32_t)off;
		off += (stage->decl.blocks[i].max_payload + 7) & ~(size_t)7;
	}
	sb->shared_bytes = off;

	ret = make_memfd("cisp-vendor-control", sb->shared_bytes, 0, &sb->shared_fd, (void **)&sb->shared);
	if (!ret)
		ret = make_memfd("cisp-vendor-input", sb->memfd_bytes, F_SEAL_FUTURE_WRITE, &sb->in_fd, (void **)&sb->in_map);
	if (!ret)
		ret = make_memfd("cisp-vendor-output", sb->memfd_bytes, 0, &sb->out_fd, (void **)&sb->out_map);
	if (ret) {
		sandbox_destroy(sb);
		return ret;
	}
	if ((ret = start(sb, msg, sizeof(msg)))) {
		sandbox_destroy(sb);
		return cisp_error(ret, "vendor stage %s: %s", stage->decl.name, msg);
	}
	*out = sb;
	return 0;
}

void sandbox_destroy(struct sandbox *sb)
{
	if (!sb)
		return;
	stop(sb);
	if (sb->shared)
		munmap(sb->shared, sb->shared_bytes);
	if (sb->in_map)
		munmap(sb->in_map, sb->memfd_bytes);
	if (sb->out_map)
		munmap(sb->out_map, sb->memfd_bytes);
	if (sb->shared_fd >= 0)
		close(sb->shared_fd);
	if (sb->in_fd >= 0)
		close(sb->in_fd);
	if (sb->out_fd >= 0)
		close(sb->out_fd);
	free(sb);
}

unsigned sandbox_restarts(const struct sandbox *sb)
{
	return sb->restarts;
}

int sandbox_pid(const struct sandbox *sb)
{
	return sb->pid;
}

static void copy_planes_in(struct sandbox *sb, const struct plane16 *planes)
{
	uint16_t *dst = (uint16_t *)(sb->in_map + sb->memfd_bytes - sb->image_bytes);
	const struct cisp_vendor_stream *s = &sb->stream;

	for (unsigned c = 0; c < sb->num_planes; c++)
		for (uint32_t y = 0; y < s->height; y++, dst += s->width)
			memcpy(dst, plane_row(&planes[c], (int)y), s->width * sizeof(uint16_t));
}

static void copy_planes_out(struct sandbox *sb, const struct plane16 *planes)
{
	const uint16_t *src = (const uint16_t *)(sb->out_map + sb->memfd_bytes - sb->image_bytes);
	const struct cisp_vendor_stream *s = &sb->stream;

	for (unsigned c = 0; c < sb->num_planes; c++)
		for (uint32_t y = 0; y < s->height; y++, src += s->width)
			memcpy(plane_row(&planes[c], (int)y), src, s->width * sizeof(uint16_t));
}

/* Bytes before the output image that no longer hold the canary (and restore them). */
static size_t canary_damage(struct sandbox *sb)
{
	size_t n = sb->memfd_bytes - sb->image_bytes, bad = 0;

	for (size_t i = 0; i < n; i++)
		bad += sb->out_map[i] != CANARY;
	if (bad)
		memset(sb->out_map, CANARY, n);
	return bad;
}

/* One job with a running helper; *restart says whether it must be replaced. */
static int round_trip(struct sandbox *sb, const struct plane16 *planes, const struct cisp_vendor_block_value *values,
		      uint64_t sequence, char *msg, size_t size, bool *restart)
{
	const char run = HELPER_MSG_RUN;
	struct helper_shared r;
	size_t damage;
	int ret;

	copy_planes_in(sb, planes);
	sb->shared->sequence = sequence;
	for (unsigned i = 0; i < sb->stage->decl.num_blocks; i++) {
		sb->shared->block[i] = (struct helper_block){ values[i].version, (uint16_t)values[i].enabled,
							      values[i].size };
		memcpy((uint8_t *)sb->shared + sb->payload_offset[i], values[i].payload, values[i].size);
	}
	*restart = true;
	if (send(sb->sock, &run, 1, MSG_NOSIGNAL) != 1)
		ret = -EPIPE;
	else
		ret = wait_done(sb->sock, sb->stage->time_limit_ms);
	if (ret) {
		ret = reap(sb->pid, ret, sb->shared, sb->stage->time_limit_ms, msg, size);
		sb->pid = -1;
		close(sb->sock);
		sb->sock = -1;
		return ret;
	}
	memcpy(&r, sb->shared, sizeof(r)); /* check a copy: the helper could still write the original */
	if (r.reply_sequence != sequence) {
		snprintf(msg, size, "answered job %" PRIu64 " instead of job %" PRIu64, r.reply_sequence, sequence);
		return -EPROTO;
	}
	if ((damage = canary_damage(sb))) {
		snprintf(msg, size, "wrote %zu bytes before the start of its output buffer", damage);
		return -EFAULT;
	}
	*restart = false;
	if (r.status) {
		char text[CISP_VENDOR_MESSAGE_MAX];

		clean_message(text, sizeof(text), r.message);
		snprintf(msg, size, "failed: %s (error %d)", text[0] ? text : "no message", r.status);
		return vendor_status_error(r.status);
	}
	copy_planes_out(sb, planes);
	return 0;
}

int sandbox_run(struct sandbox *sb, const struct plane16 *planes, const struct cisp_vendor_block_value *values,
		uint64_t sequence)
{
	char msg[256], again[256];
	bool restart = false;
	int ret;

	if (sb->pid < 0 && (ret = start(sb, msg, sizeof(msg)))) {
		sb->restarts++;
		return cisp_error(ret, "%s (the helper could not be restarted)", msg);
	}
	ret = round_trip(sb, planes, values, sequence, msg, sizeof(msg), &restart);
	if (!restart)
		return ret ? cisp_error(ret, "%s", msg) : 0;
	stop(sb);
	sb->restarts++;
	cisp_log(CISP_LOG_WARN, "vendor stage %s: job %" PRIu64 " %s; restarting its helper", sb->stage->decl.name,
		 sequence, msg);
	if (start(sb, again, sizeof(again)))
		return cisp_error(ret, "%s; restarting the helper failed: %s", msg, again);
	return cisp_error(ret, "%s; the helper was restarted", msg);
}
