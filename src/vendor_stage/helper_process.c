/* SPDX-License-Identifier: MIT */
/*
 * One sandbox helper process, from the library's side (helper_process.h).
 *
 * The helper is started with vfork() and execve(), so that between the two
 * the child can ask for SIGKILL when its parent dies (PR_SET_PDEATHSIG) and
 * check that the parent is still the library: a library that dies, however
 * it dies, takes its helpers with it. The parent of a process is the thread
 * that started it, so a helper also dies when that thread ends; the sandbox
 * then starts a new one for the next job (helper_idle() says it is gone).
 *
 * The library's end of the socket is non-blocking and every wait is a
 * poll() bounded by a deadline on CLOCK_MONOTONIC. The helper is killed
 * through its pidfd and reaped through it, so no other process can be hit
 * even if something else in the program reaps children.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cisp/error.h>

#include "vendor_stage/helper_process.h"
#include "vendor_stage/vendor_internal.h"

uint64_t helper_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int helper_high_fd(int fd)
{
	int h;

	if (fd < 0)
		return -1;
	h = fcntl(fd, F_DUPFD_CLOEXEC, 16);
	close(fd);
	return h;
}

void helper_clean_message(char *out, size_t size, const char *in)
{
	size_t i;

	for (i = 0; i + 1 < size && in[i]; i++)
		out[i] = in[i] >= 0x20 && in[i] < 0x7f ? in[i] : '?';
	out[i] = '\0';
}

/*
 * vfork() and execve() @program with @argv, an empty environment, its
 * socket as descriptor 3 and @fds as 4.., nothing else open.
 */
static int spawn(struct helper_process *h, const char *program, char *const argv[], const int *fds, unsigned num_fds,
		 char *msg, size_t size)
{
	char *const envp[] = { NULL };
	volatile int child_errno = 0;
	const pid_t library = getpid();
	sigset_t all, old;
	int pair[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair)) {
		int err = errno;

		snprintf(msg, size, "cannot make a socket pair: %s", strerror(err));
		return -err;
	}
	/* Clear of the descriptors the child renumbers to; the library's end never blocks. */
	pair[1] = helper_high_fd(pair[1]);
	if (pair[1] < 0 || fcntl(pair[0], F_SETFL, O_NONBLOCK)) {
		int err = errno;

		close(pair[0]);
		if (pair[1] >= 0)
			close(pair[1]);
		snprintf(msg, size, "cannot set up the helper's socket: %s", strerror(err));
		return -err;
	}

	/* No signal handler of the library may run in the child, which shares its memory. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = vfork();
	if (pid == 0) {
		/* Until execve(), system calls only. A library that died first: ESRCH. */
		int err = ESRCH;

		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0)) {
			err = errno;
		} else if (getppid() == library) {
			bool ok = dup2(pair[1], HELPER_FD_SOCKET) == HELPER_FD_SOCKET;

			for (unsigned i = 0; ok && i < num_fds; i++)
				ok = dup2(fds[i], HELPER_FD_SHARED + (int)i) == HELPER_FD_SHARED + (int)i;
			if (ok && syscall(SYS_close_range, HELPER_FD_SHARED + num_fds, ~0u, 0) == 0)
				execve(program, argv, envp);
			err = errno;
		}
		child_errno = err;
		_exit(127);
	}
	if (pid < 0)
		child_errno = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(pair[1]);
	if (child_errno) {
		int err = child_errno;

		if (pid > 0)
			waitpid(pid, NULL, 0);
		close(pair[0]);
		snprintf(msg, size, "cannot start the vendor helper %s: %s", program, strerror(err));
		return -err;
	}
	/* Our child, not reaped yet: its pid is still its own. */
	h->pidfd = pidfd_open(pid, 0);
	if (h->pidfd < 0) {
		int err = errno;

		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(pair[0]);
		snprintf(msg, size, "cannot watch the vendor helper (pidfd_open, Linux 5.3): %s", strerror(err));
		return -err;
	}
	h->pid = pid;
	h->sock = pair[0];
	return 0;
}

/* One message from the helper by @deadline. */
static int receive(struct helper_process *h, uint64_t deadline, struct helper_msg *m, char *msg, size_t size)
{
	for (;;) {
		struct pollfd p = { .fd = h->sock, .events = POLLIN };
		uint64_t now = helper_now_ms(), left = now < deadline ? deadline - now : 0;
		ssize_t n;
		int r;

		r = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (r < 0 && errno != EINTR)
			return -EPIPE;
		if (r == 0 && helper_now_ms() >= deadline)
			return -ETIMEDOUT;
		if (r <= 0)
			continue;
		n = recv(h->sock, m, sizeof(*m), MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -EPIPE;
		if (n != (ssize_t)sizeof(*m)) {
			snprintf(msg, size, "sent a %zd-byte message, which the protocol does not have", n);
			return -EPROTO;
		}
		return 0;
	}
}

/* What /proc/PID/status says of a process's confinement. */
struct confinement {
	unsigned found; /* a bit per line read */
	int seccomp, filters, no_new_privs;
	unsigned long long cap_inh, cap_prm, cap_eff, cap_bnd, cap_amb;
	unsigned uid[4], gid[4];
	bool groups;
};

#define ALL_FOUND 0x3ffu

/* @pid's status, or the library's own with @pid 0. */
static int read_confinement(pid_t pid, struct confinement *c)
{
	char path[64], line[256];
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/status");
	memset(c, 0, sizeof(*c));
	if (!(f = fopen(path, "re")))
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		c->found |= (sscanf(line, "Seccomp: %d", &c->seccomp) == 1) << 0;
		c->found |= (sscanf(line, "Seccomp_filters: %d", &c->filters) == 1) << 1;
		c->found |= (sscanf(line, "NoNewPrivs: %d", &c->no_new_privs) == 1) << 2;
		c->found |= (sscanf(line, "CapInh: %llx", &c->cap_inh) == 1) << 3;
		c->found |= (sscanf(line, "CapPrm: %llx", &c->cap_prm) == 1) << 4;
		c->found |= (sscanf(line, "CapEff: %llx", &c->cap_eff) == 1) << 5;
		c->found |= (sscanf(line, "CapBnd: %llx", &c->cap_bnd) == 1) << 6;
		c->found |= (sscanf(line, "CapAmb: %llx", &c->cap_amb) == 1) << 7;
		c->found |= (sscanf(line, "Uid: %u %u %u %u", &c->uid[0], &c->uid[1], &c->uid[2], &c->uid[3]) == 4) << 8;
		c->found |= (sscanf(line, "Gid: %u %u %u %u", &c->gid[0], &c->gid[1], &c->gid[2], &c->gid[3]) == 4) << 9;
		if (!strncmp(line, "Groups:", 7))
			c->groups = strpbrk(line + 7, "0123456789") != NULL;
	}
	fclose(f);
	return 0;
}

static bool any_is(const unsigned id[4], unsigned value)
{
	return id[0] == value || id[1] == value || id[2] == value || id[3] == value;
}

static bool all_are(const unsigned id[4], unsigned value)
{
	return id[0] == value && id[1] == value && id[2] == value && id[3] == value;
}

/*
 * The kernel's word on the helper, never the helper's: one seccomp filter
 * more than the library runs under, no_new_privs, no capabilities, not
 * root; started by root, user and group HELPER_UNPRIVILEGED_ID, no
 * supplementary groups, an empty bounding set.
 */
static int check_confined(const struct helper_process *h, char *msg, size_t size)
{
	struct confinement self, c;

	if (read_confinement(0, &self) || read_confinement(h->pid, &c) || (self.found & c.found) != ALL_FOUND) {
		snprintf(msg, size, "cannot be checked: /proc/%d/status is unreadable or lacks lines (Linux 5.9 has "
			 "them all)", (int)h->pid);
		return -EPERM;
	}
	/* It has not exited since: the status read was its own. */
	if (helper_exited(h))
		return -EPIPE;
	if (c.seccomp != 2 || c.filters != self.filters + 1)
		snprintf(msg, size, "is not confined: Seccomp %d with %d filters, expected 2 with %d", c.seccomp,
			 c.filters, self.filters + 1);
	else if (c.no_new_privs != 1)
		snprintf(msg, size, "is not confined: NoNewPrivs %d", c.no_new_privs);
	else if (c.cap_inh || c.cap_prm || c.cap_eff || c.cap_amb)
		snprintf(msg, size, "is not confined: it holds capabilities (CapInh %llx, CapPrm %llx, CapEff %llx, "
			 "CapAmb %llx)", c.cap_inh, c.cap_prm, c.cap_eff, c.cap_amb);
	else if (any_is(c.uid, 0))
		snprintf(msg, size, "is not confined: it runs as root (Uid %u %u %u %u)", c.uid[0], c.uid[1], c.uid[2],
			 c.uid[3]);
	else if (geteuid() == 0 && (!all_are(c.uid, HELPER_UNPRIVILEGED_ID) || !all_are(c.gid, HELPER_UNPRIVILEGED_ID) ||
				    c.groups || c.cap_bnd))
		snprintf(msg, size, "is not confined: it is not user and group %u with no other groups and no bounding "
			 "set (Uid %u, Gid %u, CapBnd %llx)", HELPER_UNPRIVILEGED_ID, c.uid[0], c.gid[0], c.cap_bnd);
	else
		return 0;
	return -EPERM;
}

int helper_start(struct helper_process *h, const char *program, const char *mode, const char *plugin,
		 const int *fds, unsigned num_fds, uint64_t deadline, const struct helper_shared *shared, char *msg,
		 size_t size)
{
	char *const argv[] = { (char *)program, (char *)mode, (char *)plugin, NULL };
	uint64_t limit = deadline - helper_now_ms();
	struct helper_msg m;
	int ret;

	*h = HELPER_PROCESS_NONE;
	if ((ret = spawn(h, program, argv, fds, num_fds, msg, size)))
		return ret;
	ret = receive(h, deadline, &m, msg, size);
	if (!ret && m.type != HELPER_MSG_READY) {
		snprintf(msg, size, "sent a message of type 0x%x before it said it was confined", m.type);
		ret = -EPROTO;
	}
	if (!ret)
		ret = check_confined(h, msg, size);
	return ret ? helper_end(h, ret, shared, limit, msg, size) : 0;
}

int helper_request(struct helper_process *h, uint32_t type, uint64_t sequence, uint64_t deadline, int32_t *status,
		   char *msg, size_t size)
{
	struct helper_msg request = { .type = type, .sequence = sequence }, answer;
	ssize_t n;
	int ret;

	if (getrandom(&request.nonce, sizeof(request.nonce), 0) != (ssize_t)sizeof(request.nonce)) {
		snprintf(msg, size, "got no random nonce for its request: %s", strerror(errno));
		return -EPROTO;
	}
	n = send(h->sock, &request, sizeof(request), MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n < 0 && errno == EAGAIN) {
		snprintf(msg, size, "did not take its request");
		return -EPROTO;
	}
	if (n != (ssize_t)sizeof(request))
		return -EPIPE;
	if ((ret = receive(h, deadline, &answer, msg, size)))
		return ret;
	if (answer.type != HELPER_MSG_DONE) {
		snprintf(msg, size, "sent a message of type 0x%x instead of an answer", answer.type);
		return -EPROTO;
	}
	if (answer.sequence != sequence || answer.nonce != request.nonce) {
		snprintf(msg, size, "sent an answer to a request it was not sent");
		return -EPROTO;
	}
	*status = answer.status;
	return 0;
}

bool helper_exited(const struct helper_process *h)
{
	struct pollfd p = { .fd = h->pidfd, .events = POLLIN };

	return poll(&p, 1, 0) != 0;
}

int helper_idle(struct helper_process *h, char *msg, size_t size)
{
	char byte;
	ssize_t n = recv(h->sock, &byte, 1, MSG_DONTWAIT | MSG_PEEK);

	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n <= 0)
		return -EPIPE;
	snprintf(msg, size, "sent a message between jobs");
	return -EPROTO;
}

/* Kill it (a process already exiting keeps its own status) and reap it; @info: how it ended. */
static void reap(struct helper_process *h, siginfo_t *info)
{
	memset(info, 0, sizeof(*info));
	pidfd_send_signal(h->pidfd, SIGKILL, NULL, 0);
	while (waitid(P_PIDFD, (id_t)h->pidfd, info, WEXITED) && errno == EINTR)
		;
	close(h->pidfd);
	close(h->sock);
	*h = HELPER_PROCESS_NONE;
}

void helper_stop(struct helper_process *h)
{
	siginfo_t info;

	if (h->pid >= 0)
		reap(h, &info);
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
		{ SYS_memfd_create, "memfd_create" }, { SYS_close_range, "close_range" }, { SYS_mremap, "mremap" },
		{ SYS_shmget, "shmget" },
#ifdef SYS_fork
		{ SYS_fork, "fork" },
#endif
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].nr == nr)
			return names[i].name;
	return "system call";
}

int helper_end(struct helper_process *h, int why, const struct helper_shared *shared, uint64_t limit_ms, char *msg,
	       size_t size)
{
	struct helper_shared r;
	char text[CISP_VENDOR_MESSAGE_MAX];
	siginfo_t info;

	reap(h, &info);
	memcpy(&r, shared, sizeof(r)); /* it is dead: nothing changes under the copy */
	helper_clean_message(text, sizeof(text), r.message);

	if (why == -ETIMEDOUT) {
		snprintf(msg, size, "did not finish within its %" PRIu64 " ms time limit and was killed", limit_ms);
		return -ETIMEDOUT;
	}
	if (why != -EPIPE)
		return why; /* the reason is in @msg already */
	if (info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED) {
		int sig = info.si_status;
		const char *abbrev = sigabbrev_np(sig), *descr = sigdescr_np(sig);

		snprintf(msg, size, "crashed with SIG%s (%s)", abbrev ? abbrev : "?", descr ? descr : "?");
		return sig == SIGSEGV || sig == SIGBUS ? -EFAULT : sig == SIGSYS ? -EPERM : -EIO;
	}
	if (info.si_code != CLD_EXITED) {
		snprintf(msg, size, "ended, and its exit status was taken by another part of the program");
		return -EIO;
	}
	switch (info.si_status) {
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
		snprintf(msg, size, "exited with status %d in the middle of a job", info.si_status);
		return -EIO;
	}
}
