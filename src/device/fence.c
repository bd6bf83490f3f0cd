/* SPDX-License-Identifier: MIT */
/*
 * Fences. The state word is the whole truth: it goes from pending to a final
 * status once, under the fence's lock, after the error and time stamp are
 * written. Waiting goes through the state word as a futex, so a fence costs
 * no system call unless someone sleeps on it (one futex wake) or asked for a
 * descriptor (one eventfd write). Job fences are recycled through a pool, so
 * submitting a job allocates nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/error_internal.h"
#include "device/fence_internal.h"

/* Fences are added to a pool this many at a time; they are never freed before the pool. */
#define POOL_CHUNK 64

struct pool_chunk {
	struct pool_chunk *next;
	struct cisp_fence fence[POOL_CHUNK];
};

struct fence_pool {
	pthread_mutex_t lock;
	struct cisp_fence *free;
	struct pool_chunk *chunks;
	_Atomic long refs; /* the creator plus every fence handed out */
};

uint64_t fence_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void fence_init(struct cisp_fence *f, enum fence_kind kind)
{
	atomic_init(&f->state, CISP_FENCE_PENDING);
	atomic_init(&f->waiters, 0);
	atomic_init(&f->refs, 1);
	atomic_init(&f->efd, -1);
	f->error = 0;
	f->timestamp = 0;
	f->kind = kind;
	f->import_fd = -1;
	pthread_mutex_init(&f->lock, NULL);
	f->callbacks = NULL;
	f->pool = NULL;
	f->next_free = NULL;
	f->job = NULL;
	f->batch_next = NULL;
}

/* ---- pool ---- */

int fence_pool_create(struct fence_pool **out)
{
	struct fence_pool *pool = calloc(1, sizeof(*pool));

	if (!pool)
		return cisp_error(-ENOMEM, "out of memory for a fence pool");
	pthread_mutex_init(&pool->lock, NULL);
	atomic_init(&pool->refs, 1);
	*out = pool;
	return 0;
}

static void pool_unref(struct fence_pool *pool)
{
	if (atomic_fetch_sub(&pool->refs, 1) != 1)
		return;
	while (pool->chunks) {
		struct pool_chunk *c = pool->chunks;

		pool->chunks = c->next;
		for (int i = 0; i < POOL_CHUNK; i++) {
			int fd = atomic_load(&c->fence[i].efd);

			if (fd >= 0)
				close(fd);
			pthread_mutex_destroy(&c->fence[i].lock);
		}
		free(c);
	}
	pthread_mutex_destroy(&pool->lock);
	free(pool);
}

void fence_pool_release(struct fence_pool *pool)
{
	if (pool)
		pool_unref(pool);
}

struct cisp_fence *fence_pool_get(struct fence_pool *pool)
{
	struct cisp_fence *f;

	pthread_mutex_lock(&pool->lock);
	if (!pool->free) {
		struct pool_chunk *c = malloc(sizeof(*c));

		if (!c) {
			pthread_mutex_unlock(&pool->lock);
			return NULL;
		}
		c->next = pool->chunks;
		pool->chunks = c;
		for (int i = 0; i < POOL_CHUNK; i++) {
			fence_init(&c->fence[i], FENCE_JOB);
			c->fence[i].pool = pool;
			c->fence[i].next_free = pool->free;
			pool->free = &c->fence[i];
		}
	}
	f = pool->free;
	pool->free = f->next_free;
	pthread_mutex_unlock(&pool->lock);
	atomic_fetch_add(&pool->refs, 1);
	/* A recycled fence was reset when it was put back; only the count is new. */
	atomic_store_explicit(&f->refs, 1, memory_order_relaxed);
	return f;
}

/* Make a signalled job fence pending again and put it back. */
static void pool_put(struct cisp_fence *f)
{
	struct fence_pool *pool = f->pool;
	int fd = atomic_load(&f->efd);

	if (fd >= 0) {
		uint64_t v;
		/* Re-arm the eventfd: clear the count the signal wrote (EAGAIN if none). */
		ssize_t n = read(fd, &v, sizeof(v));
		(void)n;
	}
	atomic_store_explicit(&f->state, CISP_FENCE_PENDING, memory_order_relaxed);
	f->error = 0;
	f->timestamp = 0;
	f->callbacks = NULL;
	f->job = NULL;
	f->batch_next = NULL;
	pthread_mutex_lock(&pool->lock);
	f->next_free = pool->free;
	pool->free = f;
	pthread_mutex_unlock(&pool->lock);
	pool_unref(pool);
}

/* ---- reference counting ---- */

struct cisp_fence *cisp_fence_ref(struct cisp_fence *f)
{
	atomic_fetch_add_explicit(&f->refs, 1, memory_order_relaxed);
	return f;
}

void cisp_fence_unref(struct cisp_fence *f)
{
	int fd;

	if (!f || atomic_fetch_sub_explicit(&f->refs, 1, memory_order_acq_rel) != 1)
		return;
	if (f->kind == FENCE_JOB) {
		pool_put(f);
		return;
	}
	fd = atomic_load(&f->efd);
	if (fd >= 0)
		close(fd);
	if (f->import_fd >= 0)
		close(f->import_fd);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

/* ---- creation ---- */

int cisp_fence_create(struct cisp_fence **out)
{
	struct cisp_fence *f = malloc(sizeof(*f));

	if (!f)
		return cisp_error(-ENOMEM, "out of memory for a fence");
	fence_init(f, FENCE_USER);
	*out = f;
	return 0;
}

int cisp_fence_import(struct cisp_fence **out, int fd)
{
	struct cisp_fence *f;
	struct stat st;
	int dup_fd;

	if (fd < 0 || fcntl(fd, F_GETFD) < 0)
		return cisp_error(-EBADF, "fence descriptor %d is not an open file descriptor", fd);
	dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0)
		return cisp_error(-errno, "cannot duplicate fence descriptor %d: %s", fd, strerror(errno));
	f = malloc(sizeof(*f));
	if (!f) {
		close(dup_fd);
		return cisp_error(-ENOMEM, "out of memory for a fence");
	}
	fence_init(f, FENCE_IMPORTED);
	f->import_fd = dup_fd;
	/* A regular file is always readable (and epoll refuses it). */
	if (fstat(dup_fd, &st) == 0 && S_ISREG(st.st_mode))
		fence_signal(f, CISP_FENCE_OK, 0);
	*out = f;
	return 0;
}

/* ---- signalling ---- */

static long futex(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *abs_time)
{
	return syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, val, abs_time, NULL, FUTEX_BITSET_MATCH_ANY);
}

bool fence_signal(struct cisp_fence *f, uint32_t status, int error)
{
	struct fence_cb *cb, *list = NULL;
	int fd;

	pthread_mutex_lock(&f->lock);
	if (atomic_load_explicit(&f->state, memory_order_relaxed) != CISP_FENCE_PENDING) {
		pthread_mutex_unlock(&f->lock);
		return false;
	}
	f->error = status == CISP_FENCE_OK ? 0 : error;
	f->timestamp = fence_clock_ns();
	atomic_store(&f->state, status); /* seq_cst: pairs with the loads of waiters and efd below */
	/* Reverse the list so callbacks run in the order they were added. */
	for (cb = f->callbacks; cb;) {
		struct fence_cb *next = cb->next;

		cb->next = list;
		list = cb;
		cb = next;
	}
	f->callbacks = NULL;
	pthread_mutex_unlock(&f->lock);

	if (atomic_load(&f->waiters))
		futex(&f->state, FUTEX_WAKE_BITSET, INT_MAX, NULL);
	fd = atomic_load(&f->efd);
	if (fd >= 0)
		eventfd_write(fd, 1);
	while (list) {
		cb = list;
		list = cb->next; /* the callback may free the structure @cb lives in */
		cb->fn(cb, f);
	}
	return true;
}

int cisp_fence_signal(struct cisp_fence *f, int error)
{
	if (f->kind != FENCE_USER)
		return cisp_error(-EINVAL, "only fences made by cisp_fence_create() can be signalled by the caller");
	if (error > 0)
		return cisp_error(-EINVAL, "fence error %d must be 0 or a negative errno", error);
	if (!fence_signal(f, error == 0 ? CISP_FENCE_OK : error == -ECANCELED ? CISP_FENCE_CANCELLED : CISP_FENCE_ERROR,
			  error))
		return cisp_error(-EALREADY, "the fence was already signalled");
	return 0;
}

bool fence_signal_from_revents(struct cisp_fence *f, short revents)
{
	if (revents & POLLIN)
		return fence_signal(f, CISP_FENCE_OK, 0);
	if (revents & (POLLERR | POLLHUP | POLLNVAL))
		return fence_signal(f, CISP_FENCE_ERROR, -EPIPE);
	return false;
}

int fence_add_callback(struct cisp_fence *f, struct fence_cb *cb)
{
	int ret = 0;

	pthread_mutex_lock(&f->lock);
	if (atomic_load_explicit(&f->state, memory_order_relaxed) != CISP_FENCE_PENDING) {
		ret = -EALREADY;
	} else {
		cb->next = f->callbacks;
		f->callbacks = cb;
	}
	pthread_mutex_unlock(&f->lock);
	return ret;
}

bool fence_remove_callback(struct cisp_fence *f, struct fence_cb *cb)
{
	bool found = false;

	pthread_mutex_lock(&f->lock);
	for (struct fence_cb **p = &f->callbacks; *p; p = &(*p)->next) {
		if (*p == cb) {
			*p = cb->next;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&f->lock);
	return found;
}

/* ---- observing ---- */

/* An imported fence learns its state by polling its descriptor. */
static void poll_import(struct cisp_fence *f, const struct timespec *timeout)
{
	struct pollfd p = { .fd = f->import_fd, .events = POLLIN };

	if (ppoll(&p, 1, timeout, NULL) > 0)
		fence_signal_from_revents(f, p.revents);
}

enum cisp_fence_status cisp_fence_status(struct cisp_fence *f)
{
	static const struct timespec zero = { 0, 0 };
	uint32_t s = atomic_load_explicit(&f->state, memory_order_acquire);

	if (s == CISP_FENCE_PENDING && f->kind == FENCE_IMPORTED) {
		poll_import(f, &zero);
		s = atomic_load_explicit(&f->state, memory_order_acquire);
	}
	return (enum cisp_fence_status)s;
}

int cisp_fence_error(const struct cisp_fence *f)
{
	uint32_t s = atomic_load_explicit(&f->state, memory_order_acquire);

	return s == CISP_FENCE_PENDING || s == CISP_FENCE_OK ? 0 : f->error;
}

uint64_t cisp_fence_timestamp(const struct cisp_fence *f)
{
	uint32_t s = atomic_load_explicit(&f->state, memory_order_acquire);

	return s == CISP_FENCE_PENDING ? 0 : f->timestamp;
}

static int wait_result(const struct cisp_fence *f, uint32_t s)
{
	return s == CISP_FENCE_OK ? 0 : f->error;
}

static struct timespec ns_to_timespec(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	return ts;
}

int cisp_fence_wait(struct cisp_fence *f, int64_t timeout_ns)
{
	uint32_t s = atomic_load_explicit(&f->state, memory_order_acquire);
	uint64_t end = 0;
	struct timespec abs;

	if (s != CISP_FENCE_PENDING)
		return wait_result(f, s);
	if (timeout_ns >= 0)
		end = fence_clock_ns() + (uint64_t)timeout_ns;

	if (f->kind == FENCE_IMPORTED) {
		for (;;) {
			uint64_t now = fence_clock_ns();
			struct timespec rel = ns_to_timespec(timeout_ns >= 0 && end > now ? end - now : 0);

			poll_import(f, timeout_ns >= 0 ? &rel : NULL);
			s = atomic_load_explicit(&f->state, memory_order_acquire);
			if (s != CISP_FENCE_PENDING)
				return wait_result(f, s);
			if (timeout_ns >= 0 && fence_clock_ns() >= end)
				return -ETIMEDOUT;
		}
	}

	abs = ns_to_timespec(end);
	atomic_fetch_add(&f->waiters, 1); /* seq_cst: the signaller sees us or we see its state */
	while ((s = atomic_load(&f->state)) == CISP_FENCE_PENDING) {
		if (timeout_ns >= 0 && fence_clock_ns() >= end)
			break;
		/* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC time. */
		futex(&f->state, FUTEX_WAIT_BITSET, CISP_FENCE_PENDING, timeout_ns >= 0 ? &abs : NULL);
	}
	atomic_fetch_sub(&f->waiters, 1);
	return s == CISP_FENCE_PENDING ? -ETIMEDOUT : wait_result(f, s);
}

int cisp_fence_fd(struct cisp_fence *f)
{
	int fd = atomic_load(&f->efd), expected = -1;

	if (f->kind == FENCE_IMPORTED)
		return f->import_fd;
	if (fd >= 0)
		return fd;
	fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fd < 0)
		return cisp_error(-errno, "cannot make an eventfd for a fence: %s", strerror(errno));
	if (!atomic_compare_exchange_strong(&f->efd, &expected, fd)) {
		close(fd); /* another thread made one first */
		return expected;
	}
	/* seq_cst against fence_signal(): if it missed our descriptor, we see its state. */
	if (atomic_load(&f->state) != CISP_FENCE_PENDING)
		eventfd_write(fd, 1);
	return fd;
}
