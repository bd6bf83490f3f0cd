/* SPDX-License-Identifier: MIT */
/*
 * The device API on a test backend: ordering, params order, fences (poll,
 * chain, import, error, cancel, timeout), overload policies, priorities and
 * deadlines, counters, hostile job descriptions, concurrent submitters and
 * thousands of jobs with random cancels (no lost completion, no leaked fd).
 *
 * The test backend records what it ran. Its params are 8 bytes, "TPRM" and
 * a value; the backend logs the state each job saw. A gate fence
 * holds a job on the worker until the test opens it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/format.h>

#include "core/error_internal.h"
#include "device/device_internal.h"

#include "test.h"

#define TB_MAGIC 0x4d525054u /* "TPRM" */
#define TB_LOG 8192

/* What one context's backend instance saw. */
struct tb {
	struct cisp_device_backend backend;
	struct cisp_fence *gate; /* jobs wait for it before finishing, when set */
	int value;               /* the params state */
	int fail_value;          /* process fails while the state has this value (0: never) */
	atomic_int running;
	atomic_int overlap; /* set when two jobs of the context ran at once */
	atomic_uint processed;
	uint64_t seq_log[TB_LOG]; /* sequences in the order they ran */
	int value_log[TB_LOG];    /* the state each sequence saw */
	atomic_uint *global;      /* shared run counter across contexts, or NULL */
	unsigned global_log[TB_LOG];
	bool saw_pool;
};

struct tb_params {
	uint32_t magic;
	int32_t value;
};

static int tb_create(void **instance, const struct cisp_isp_config *config, void *opaque)
{
	(void)config;
	*instance = opaque;
	return 0;
}

static void tb_destroy(void *instance)
{
	(void)instance;
}

static int tb_check(void *instance, const void *buf, size_t size)
{
	struct tb_params p;

	(void)instance;
	if (size != sizeof(p))
		return cisp_error(-EMSGSIZE, "test params are %zu bytes, not %zu", size, sizeof(p));
	memcpy(&p, buf, sizeof(p));
	if (p.magic != TB_MAGIC)
		return cisp_error(-EPROTO, "test params magic 0x%08x is wrong", p.magic);
	return 0;
}

static int tb_set(void *instance, const void *buf, size_t size)
{
	struct tb *tb = instance;
	struct tb_params p;

	(void)size;
	memcpy(&p, buf, sizeof(p));
	tb->value = p.value;
	return 0;
}

static int tb_process(void *instance, struct cisp_device_frame *f)
{
	struct tb *tb = instance;
	unsigned n;

	if (atomic_fetch_add(&tb->running, 1))
		atomic_store(&tb->overlap, 1);
	if (tb->gate)
		cisp_fence_wait(tb->gate, -1);
	n = atomic_load(&tb->processed);
	if (n < TB_LOG) {
		tb->seq_log[n] = f->sequence;
		tb->value_log[n] = tb->value;
		if (tb->global)
			tb->global_log[n] = atomic_fetch_add(tb->global, 1);
	}
	if (f->pool)
		tb->saw_pool = true;
	atomic_fetch_sub(&tb->running, 1);
	atomic_store(&tb->processed, n + 1);
	if (tb->fail_value && tb->value == tb->fail_value)
		return cisp_error(-EIO, "test backend: told to fail at value %d", tb->value);
	return 0;
}

static void tb_init(struct tb *tb)
{
	memset(tb, 0, sizeof(*tb));
	tb->backend = (struct cisp_device_backend){
		.name = "test", .create = tb_create, .destroy = tb_destroy, .check_params = tb_check,
		.set_params = tb_set, .process = tb_process, .opaque = tb,
	};
}

static struct cisp_context_config tb_config(struct tb *tb, const char *name)
{
	struct cisp_context_config c = {
		.name = name,
		.isp = { .input_format = CISP_FMT_SRGGB10, .width = 16, .height = 16,
			 .output = { { CISP_FMT_RGB888, 16, 16 } } },
		.backend = &tb->backend,
	};
	return c;
}

/* Frames shared by every job of a test: the backend only writes one byte. */
static struct cisp_image test_in, test_out;

static void images_init(void)
{
	if (!test_in.plane[0].data) {
		cisp_image_alloc(&test_in, CISP_FMT_SRGGB10, 16, 16);
		cisp_image_alloc(&test_out, CISP_FMT_RGB888, 16, 16);
	}
}

static struct cisp_job tb_job(void)
{
	struct cisp_job j = { .num_inputs = 1 };

	images_init();
	j.input[0] = &test_in;
	j.output[0] = &test_out;
	return j;
}

static struct tb_params params_of(int value)
{
	struct tb_params p = { TB_MAGIC, value };
	return p;
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static struct cisp_device *make_device(unsigned workers, unsigned max_jobs)
{
	struct cisp_device_config c = { .workers = workers, .max_jobs = max_jobs };
	struct cisp_device *dev = NULL;

	if (cisp_device_create(&dev, &c))
		abort();
	return dev;
}

static struct cisp_context *make_context(struct cisp_device *dev, const struct cisp_context_config *c)
{
	struct cisp_context *ctx = NULL;
	int ret = cisp_context_create(&ctx, dev, c);

	if (ret) {
		printf("    cisp_context_create: %s\n", cisp_last_error());
		abort();
	}
	return ctx;
}

/* A user fence used as a gate, and its opening. */
static struct cisp_fence *gate_new(void)
{
	struct cisp_fence *f = NULL;

	cisp_fence_create(&f);
	return f;
}

/* Job slots in the device's free list: every slot comes back once jobs are done. */
static unsigned free_slots(struct cisp_device *dev)
{
	unsigned n = 0;

	pthread_mutex_lock(&dev->lock);
	for (const struct job *j = dev->free; j; j = j->next)
		n++;
	pthread_mutex_unlock(&dev->lock);
	return n;
}

/*
 * The free slots once they reach @want, or after 2 s: a job's fence is
 * signalled before its worker puts the slot back on the free list.
 */
static unsigned free_slots_settled(struct cisp_device *dev, unsigned want)
{
	unsigned n = free_slots(dev);

	for (int i = 0; i < 2000 && n != want; i++) {
		usleep(1000);
		n = free_slots(dev);
	}
	return n;
}

/* Wait until the worker is inside the gated job. */
static void wait_running(struct tb *tb)
{
	for (int i = 0; i < 20000 && !atomic_load(&tb->running); i++)
		usleep(100);
}

/* ---- device and context configuration ---------------------------------- */

TEST(device_config_errors)
{
	struct cisp_device_config dc = { .workers = 1000 };
	struct cisp_device *dev = NULL;
	struct cisp_context *ctx = NULL;
	struct tb tb;
	struct cisp_context_config c;

	CHECK_ERR(cisp_device_create(&dev, &dc), -EINVAL, "1000 workers");
	dc = (struct cisp_device_config){ .workers = 1, .max_jobs = 1000000 };
	CHECK_ERR(cisp_device_create(&dev, &dc), -EINVAL, "max_jobs 1000000");
	dev = make_device(1, 8);
	tb_init(&tb);
	c = tb_config(&tb, "cam");
	c.overload = 7;
	CHECK_ERR(cisp_context_create(&ctx, dev, &c), -EINVAL, "overload policy 7");
	c = tb_config(&tb, "cam");
	c.queue_limit = 9;
	CHECK_ERR(cisp_context_create(&ctx, dev, &c), -EINVAL, "queue_limit 9 is over the device's 8 job slots");
	c = tb_config(&tb, "cam");
	tb.backend.process = NULL;
	CHECK_ERR(cisp_context_create(&ctx, dev, &c), -EINVAL, "backend test lacks");
	CHECK(ctx == NULL);
	cisp_device_destroy(dev);
}

/* ---- ordering and params ------------------------------------------------ */

TEST(device_order_and_params)
{
	struct cisp_device *dev = make_device(2, 64);
	struct cisp_fence *f[300];
	struct cisp_job_result res[300];
	struct tb tb;
	struct cisp_context_config c;
	struct cisp_context *ctx;
	int expect = 0;

	tb_init(&tb);
	c = tb_config(&tb, "cam");
	c.queue_limit = 32;
	ctx = make_context(dev, &c);
	for (int i = 0; i < 300; i++) {
		struct cisp_job j = tb_job();
		struct tb_params p = params_of(i);

		if (i % 3 == 0) { /* a delta on every third job */
			j.params = &p;
			j.params_size = sizeof(p);
		}
		j.result = &res[i];
		/* Bounded queue: wait for an old job when the queue is full. */
		if (i >= 32)
			CHECK_EQ(cisp_fence_wait(f[i - 32], -1), 0);
		CHECK_EQ(cisp_job_submit(ctx, &j, &f[i]), 0);
	}
	for (int i = 0; i < 300; i++) {
		CHECK_EQ(cisp_fence_wait(f[i], -1), 0);
		CHECK_EQ(cisp_fence_status(f[i]), CISP_FENCE_OK);
		if (i)
			CHECK(cisp_fence_timestamp(f[i]) >= cisp_fence_timestamp(f[i - 1]));
		CHECK_EQ(res[i].sequence, i);
		CHECK_EQ(res[i].status, CISP_FENCE_OK);
		CHECK(res[i].start_ns >= res[i].submit_ns && res[i].end_ns >= res[i].start_ns);
		if (i)
			CHECK(res[i].start_ns >= res[i - 1].end_ns); /* one at a time, in order */
	}
	CHECK_EQ(atomic_load(&tb.processed), 300);
	CHECK_EQ(atomic_load(&tb.overlap), 0);
	for (int i = 0; i < 300; i++) {
		if (i % 3 == 0)
			expect = i;
		CHECK_EQ(tb.seq_log[i], i);
		CHECK_EQ(tb.value_log[i], expect);
	}
	for (int i = 0; i < 300; i++)
		cisp_fence_unref(f[i]);
	cisp_device_destroy(dev);
}

/* A cancelled job is not processed, but its params delta still applies in its turn. */
TEST(device_cancel_keeps_params_order)
{
	struct cisp_device *dev = make_device(1, 16);
	struct cisp_fence *f[4], *gate = gate_new();
	struct tb tb;
	struct cisp_context_config c;
	struct cisp_context *ctx;
	struct cisp_job_result res[4];

	tb_init(&tb);
	tb.gate = gate;
	c = tb_config(&tb, "cam");
	ctx = make_context(dev, &c);
	for (int i = 0; i < 4; i++) {
		struct cisp_job j = tb_job();
		struct tb_params p = params_of(10 + i);

		if (i != 3) {
			j.params = &p;
			j.params_size = sizeof(p);
		}
		j.result = &res[i];
		CHECK_EQ(cisp_job_submit(ctx, &j, &f[i]), 0);
		if (i == 0)
			wait_running(&tb);
	}
	CHECK_ERR(cisp_job_cancel(ctx, f[0]), -EBUSY, "is running");
	CHECK_EQ(cisp_job_cancel(ctx, f[2]), 0);
	CHECK_EQ(cisp_fence_status(f[2]), CISP_FENCE_CANCELLED);
	CHECK_EQ(cisp_fence_error(f[2]), -ECANCELED);
	CHECK_EQ(res[2].status, CISP_FENCE_CANCELLED);
	CHECK_EQ(res[2].start_ns, 0);
	CHECK_ERR(cisp_job_cancel(ctx, f[2]), -EALREADY, "already");
	cisp_fence_signal(gate, 0);
	CHECK_EQ(cisp_fence_wait(f[3], -1), 0);
	CHECK_ERR(cisp_job_cancel(ctx, f[3]), -EALREADY, "already completed");
	CHECK_EQ(atomic_load(&tb.processed), 3);
	/* Job 0 saw its delta (10), job 1 its own (11), job 3 had none and sees cancelled job 2's (12). */
	CHECK_EQ(tb.value_log[0], 10);
	CHECK_EQ(tb.value_log[1], 11);
	CHECK_EQ(tb.seq_log[2], 3);
	CHECK_EQ(tb.value_log[2], 12);
	for (int i = 0; i < 4; i++)
		cisp_fence_unref(f[i]);
	cisp_fence_unref(gate);
	cisp_device_destroy(dev);
}

/* ---- fences ------------------------------------------------------------- */

TEST(device_user_fence)
{
	struct cisp_fence *f = gate_new();
	struct pollfd p;
	uint64_t t0 = cisp_device_clock_ns();

	CHECK_EQ(cisp_fence_status(f), CISP_FENCE_PENDING);
	CHECK_EQ(cisp_fence_timestamp(f), 0);
	CHECK_EQ(cisp_fence_wait(f, 0), -ETIMEDOUT);
	CHECK_EQ(cisp_fence_wait(f, 2000000), -ETIMEDOUT); /* 2 ms */
	CHECK(cisp_device_clock_ns() - t0 >= 2000000);
	p.fd = cisp_fence_fd(f);
	p.events = POLLIN;
	CHECK(p.fd >= 0);
	CHECK_EQ(cisp_fence_fd(f), p.fd); /* the same one each time */
	CHECK_EQ(poll(&p, 1, 0), 0);
	CHECK_ERR(cisp_fence_signal(f, 5), -EINVAL, "negative errno");
	CHECK_EQ(cisp_fence_signal(f, -EIO), 0);
	CHECK_ERR(cisp_fence_signal(f, 0), -EALREADY, "already signalled");
	CHECK_EQ(poll(&p, 1, 0), 1);
	CHECK_EQ(cisp_fence_status(f), CISP_FENCE_ERROR);
	CHECK_EQ(cisp_fence_error(f), -EIO);
	CHECK_EQ(cisp_fence_wait(f, -1), -EIO);
	CHECK(cisp_fence_timestamp(f) >= t0);
	cisp_fence_unref(f);

	f = gate_new();
	CHECK_EQ(cisp_fence_signal(f, -ECANCELED), 0);
	CHECK_EQ(cisp_fence_status(f), CISP_FENCE_CANCELLED);
	CHECK_EQ(cisp_fence_wait(f, 0), -ECANCELED);
	cisp_fence_unref(f);
}

struct signal_later {
	struct cisp_fence *f;
	unsigned delay_us;
};

static void *signal_thread(void *arg)
{
	struct signal_later *s = arg;

	usleep(s->delay_us);
	cisp_fence_signal(s->f, 0);
	return NULL;
}

/* A waiter sleeping in cisp_fence_wait() is woken by a signal from another thread. */
TEST(device_fence_wait_wakes)
{
	struct signal_later s = { gate_new(), 5000 };
	pthread_t t;

	pthread_create(&t, NULL, signal_thread, &s);
	CHECK_EQ(cisp_fence_wait(s.f, 5000000000), 0);
	CHECK_EQ(cisp_fence_status(s.f), CISP_FENCE_OK);
	pthread_join(t, NULL);
	cisp_fence_unref(s.f);
}

TEST(device_out_fence_poll)
{
	struct cisp_device *dev = make_device(1, 8);
	struct cisp_fence *gate = gate_new(), *f, *g;
	struct tb tb;
	struct cisp_context_config c;
	struct cisp_context *ctx;
	struct cisp_job j = tb_job();
	struct pollfd p = { .events = POLLIN };
	int fds = open_fds();

	tb_init(&tb);
	tb.gate = gate;
	c = tb_config(&tb, "cam");
	ctx = make_context(dev, &c);
	CHECK_EQ(cisp_job_submit(ctx, &j, &f), 0);
	p.fd = cisp_fence_fd(f);
	CHECK(p.fd >= 0);
	CHECK_EQ(poll(&p, 1, 0), 0);
	CHECK_EQ(cisp_fence_wait(f, 1000000), -ETIMEDOUT);
	cisp_fence_signal(gate, 0);
	CHECK_EQ(poll(&p, 1, 5000), 1);
	CHECK(p.revents & POLLIN);
	CHECK_EQ(cisp_fence_status(f), CISP_FENCE_OK);
	cisp_fence_unref(f);
	/* The recycled fence (and its eventfd) must start unsignalled again. */
	tb.gate = NULL;
	cisp_fence_unref(gate);
	gate = gate_new();
	tb.gate = gate;
	CHECK_EQ(cisp_job_submit(ctx, &j, &g), 0);
	p.fd = cisp_fence_fd(g);
	CHECK_EQ(poll(&p, 1, 0), 0);
	cisp_fence_signal(gate, 0);
	CHECK_EQ(poll(&p, 1, 5000), 1);
	cisp_fence_unref(g);
	cisp_device_destroy(dev);
	cisp_fence_unref(gate);
	CHECK_EQ(open_fds(), fds);
}

/* A job chained on another context's job starts after it, with no call in between. */
TEST(device_fence_chain)
{
	struct cisp_device *dev = make_device(2, 16);
	struct cisp_fence *gate = gate_new(), *fa, *fb, *fc;
	struct tb ta, tb;
	struct cisp_context_config c;
	struct cisp_context *a, *b;
	struct cisp_job_result ra, rb, rc;
	struct cisp_job j = tb_job();

	tb_init(&ta);
	tb_init(&tb);
	ta.gate = gate;
	c = tb_config(&ta, "a");
	a = make_context(dev, &c);
	c = tb_config(&tb, "b");
	b = make_context(dev, &c);
	j.result = &ra;
	CHECK_EQ(cisp_job_submit(a, &j, &fa), 0);
	j.result = &rb;
	j.in_fence[0] = fa;
	j.num_in_fences = 1;
	CHECK_EQ(cisp_job_submit(b, &j, &fb), 0);
	j.result = &rc;
	j.in_fence[0] = fb;
	CHECK_EQ(cisp_job_submit(a, &j, &fc), 0);
	usleep(20000);
	CHECK_EQ(atomic_load(&tb.processed), 0); /* b waits for a's job although a worker is free */
	CHECK_EQ(cisp_fence_status(fb), CISP_FENCE_PENDING);
	cisp_fence_signal(gate, 0);
	CHECK_EQ(cisp_fence_wait(fc, -1), 0);
	CHECK_EQ(cisp_fence_status(fb), CISP_FENCE_OK);
	CHECK(rb.start_ns >= ra.end_ns);
	CHECK(rc.start_ns >= rb.end_ns);
	CHECK(cisp_fence_timestamp(fb) >= cisp_fence_timestamp(fa));
	cisp_fence_unref(fa);
	cisp_fence_unref(fb);
	cisp_fence_unref(fc);
	cisp_fence_unref(gate);
	cisp_device_destroy(dev);
}

/* A failure (error or cancellation) runs down a chain; the chained jobs do not run. */
TEST(device_fence_chain_error)
{
	struct cisp_device *dev = make_device(2, 16);
	struct cisp_fence *gate = gate_new(), *f[6];
	struct tb ta, tb;
	struct cisp_context_config c;
	struct cisp_context *a, *b;
	struct cisp_job_result r[6];
	struct tb_params p = params_of(7);

	tb_init(&ta);
	tb_init(&tb);
	ta.gate = gate;
	ta.fail_value = 7;
	c = tb_config(&ta, "a");
	a = make_context(dev, &c);
	c = tb_config(&tb, "b");
	b = make_context(dev, &c);
	for (int i = 0; i < 3; i++) {
		struct cisp_job j = tb_job();

		j.result = &r[i];
		if (i == 0) { /* fails on the backend */
			j.params = &p;
			j.params_size = sizeof(p);
		} else {
			j.in_fence[0] = f[i - 1];
			j.num_in_fences = 1;
		}
		CHECK_EQ(cisp_job_submit(i == 1 ? b : a, &j, &f[i]), 0);
	}
	cisp_fence_signal(gate, 0);
	CHECK_EQ(cisp_fence_wait(f[2], -1), -EIO);
	CHECK_EQ(cisp_fence_status(f[0]), CISP_FENCE_ERROR);
	CHECK_EQ(cisp_fence_status(f[1]), CISP_FENCE_ERROR);
	CHECK_EQ(cisp_fence_error(f[1]), -EIO);
	CHECK(strstr(r[0].message, "told to fail at value 7") != NULL);
	CHECK_EQ(r[1].start_ns, 0);
	CHECK_EQ(atomic_load(&tb.processed), 0);
	CHECK_EQ(atomic_load(&ta.processed), 1);

	/* Cancellation: a queued job behind a gated one is cancelled, its dependants follow. */
	cisp_fence_unref(gate);
	gate = gate_new();
	ta.gate = gate;
	ta.fail_value = 0;
	for (int i = 3; i < 6; i++) {
		struct cisp_job j = tb_job();

		j.result = &r[i];
		if (i > 3) {
			j.in_fence[0] = f[i - 1];
			j.num_in_fences = 1;
		}
		CHECK_EQ(cisp_job_submit(i == 5 ? b : a, &j, &f[i]), 0);
		if (i == 3)
			wait_running(&ta);
	}
	CHECK_EQ(cisp_job_cancel(a, f[4]), 0);
	CHECK_EQ(cisp_fence_wait(f[5], 5000000000), -ECANCELED);
	CHECK_EQ(cisp_fence_status(f[5]), CISP_FENCE_CANCELLED);
	CHECK_EQ(cisp_fence_status(f[3]), CISP_FENCE_PENDING);
	cisp_fence_signal(gate, 0);
	CHECK_EQ(cisp_fence_wait(f[3], -1), 0);
	{
		struct cisp_context_counters ca, cb;

		cisp_context_counters(a, &ca);
		cisp_context_counters(b, &cb);
		CHECK_EQ(ca.submitted, 4);
		CHECK_EQ(ca.completed, 1);
		CHECK_EQ(ca.failed, 2); /* the backend failure, and job 2 after the chain failed */
		CHECK_EQ(ca.cancelled, 1);
		CHECK_EQ(cb.failed, 1);
		CHECK_EQ(cb.cancelled, 1);
		CHECK_EQ(cb.completed, 0);
	}
	for (int i = 0; i < 6; i++)
		cisp_fence_unref(f[i]);
	cisp_fence_unref(gate);
	cisp_device_destroy(dev);
}

/* Any descriptor can be an in-fence: the job runs once it is readable. */
TEST(device_fence_import)
{
	int fds = open_fds();
	struct cisp_device *dev = make_device(1, 16);
	struct cisp_fence *f, *g, *imp;
	struct tb tb;
	struct cisp_context_config c;
	struct cisp_context *ctx;
	struct cisp_job j = tb_job();
	int efd = eventfd(0, EFD_CLOEXEC), pipefd[2], closed;
	char path[512];
	FILE *file;

	tb_init(&tb);
	c = tb_config(&tb, "cam");
	ctx = make_context(dev, &c);
	j.in_fence_fd[0] = efd;
	j.num_in_fence_fds = 1;
	CHECK_EQ(cisp_job_submit(ctx, &j, &f), 0);
	usleep(20000);
	CHECK_EQ(cisp_fence_status(f), CISP_FENCE_PENDING);
	CHECK_EQ(atomic_load(&tb.processed), 0);
	eventfd_write(efd, 1);
	CHECK_EQ(cisp_fence_wait(f, 5000000000), 0);
	CHECK_EQ(atomic_load(&tb.processed), 1);
	cisp_fence_unref(f);

	/* A pipe whose writer goes away without writing: the job fails with -EPIPE. */
	CHECK_EQ(pipe(pipefd), 0);
	CHECK_EQ(cisp_fence_import(&imp, pipefd[0]), 0);
	close(pipefd[0]);
	j.num_in_fence_fds = 0;
	j.in_fence[0] = imp;
	j.num_in_fences = 1;
	CHECK_EQ(cisp_job_submit(ctx, &j, &g), 0);
	CHECK_EQ(cisp_fence_status(imp), CISP_FENCE_PENDING);
	close(pipefd[1]);
	CHECK_EQ(cisp_fence_wait(g, 5000000000), -EPIPE);
	CHECK_EQ(cisp_fence_status(imp), CISP_FENCE_ERROR);
	CHECK_EQ(cisp_fence_fd(imp) >= 0, 1);
	cisp_fence_unref(g);
	cisp_fence_unref(imp);

	/* A regular file is always readable. */
	snprintf(path, sizeof(path), "%s/fence-file", test_tmp_dir());
	file = fopen(path, "w");
	CHECK(file != NULL);
	if (file) {
		CHECK_EQ(cisp_fence_import(&imp, fileno(file)), 0);
		CHECK_EQ(cisp_fence_status(imp), CISP_FENCE_OK);
		cisp_fence_unref(imp);
		fclose(file);
	}

	/* Closed and invalid descriptors (a high number, so no dup made meanwhile reuses it). */
	closed = dup2(efd, 900);
	CHECK_EQ(closed, 900);
	close(closed);
	CHECK_ERR(cisp_fence_import(&imp, closed), -EBADF, "is not an open file descriptor");
	CHECK_ERR(cisp_fence_import(&imp, -1), -EBADF, "descriptor -1");
	j = tb_job();
	j.in_fence_fd[0] = efd;
	j.in_fence_fd[1] = closed;
	j.num_in_fence_fds = 2;
	CHECK_ERR(cisp_job_submit(ctx, &j, &f), -EBADF, "job in-fence descriptor 1: fence descriptor");
	CHECK(f == NULL);
	close(efd);
	cisp_device_destroy(dev);
	CHECK_EQ(open_fds(), fds);
}

/* Destroying a context cancels jobs that wait for a fence that never comes. */
TEST(device_destroy_with_waiting_jobs)
{
	struct cisp_device *dev = make_device(1, 16);
	struct cisp_fence *never = gate_new(), *f[3];
	struct tb tb;
	struct cisp_context_config c;
	struct cisp_context *ctx;
	int efd = eventfd(0, EFD_CLOEXEC);

	tb_init(&tb);
	c = tb_config(&tb, "cam");
	ctx = make_context(dev, &c);
	for (int i = 0; i < 3; i++) {
		struct cisp_job j = tb_job();
		struct tb_params p = params_of(i);

		j.params = &p;
		j.params_size = sizeof(p);
		j.in_fence[0] = never;
		j.num_in_fences = 1;
		if (i == 2) {
			j.in_fence_fd[0] = efd;
			j.num_in_fence_fds = 1;
		}
		CHECK_EQ(cisp_job_submit(ctx, &j, &f[i]), 0);
	}
	cisp_context_destroy(ctx);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(cisp_fence_status(f[i]), CISP_FENCE_CANCELLED);
		cisp_fence_unref(f[i]);
	}
	CHECK_EQ(atomic_load(&tb.processed), 0);
	cisp_device_destroy(dev);
	cisp_fence_unref(never);
	close(efd);
}

/* ---- scheduling --------------------------------------------------------- */

/*
 * One worker, held by a gated job, while two contexts (priorities -1 and 1)
 * queue three jobs each; returns the run order as "low" positions and "high"
 * positions. @overload makes the load estimate 200% of the worker.
 */
static void run_two_priorities(uint32_t schedule, bool overload, unsigned lo_pos[3], unsigned hi_pos[3])
{
	struct cisp_device_config dc = { .workers = 1, .max_jobs = 32, .schedule = schedule };
	struct cisp_device *dev = NULL;
	struct cisp_fence *gate = gate_new(), *first, *f[6];
	struct tb tg, tl, th;
	struct cisp_context_config c;
	struct cisp_context *g, *lo, *hi;
	atomic_uint global = 0;
	uint64_t now = cisp_device_clock_ns(), sec = 1000000000;
	/* context (0 low, 1 high), deadline in seconds from now */
	static const int which[6] = { 0, 1, 0, 1, 0, 1 };
	static const int due[6] = { 5, 9, 2, 3, 8, 6 };
	struct cisp_job j = tb_job();

	CHECK_EQ(cisp_device_create(&dev, &dc), 0);
	tb_init(&tg);
	tb_init(&tl);
	tb_init(&th);
	tg.gate = gate;
	c = tb_config(&tg, "gate");
	g = make_context(dev, &c);
	c = tb_config(&tl, "low");
	c.priority = -1;
	lo = make_context(dev, &c);
	c = tb_config(&th, "high");
	c.priority = 1;
	hi = make_context(dev, &c);
	tl.global = th.global = &global;
	CHECK_EQ(cisp_job_submit(g, &j, &first), 0);
	wait_running(&tg);
	for (int i = 0; i < 6; i++) {
		j.deadline_ns = now + (uint64_t)due[i] * sec;
		CHECK_EQ(cisp_job_submit(which[i] ? hi : lo, &j, &f[i]), 0);
	}
	if (overload) { /* each asks for a whole worker: 10 s of work every 10 s */
		pthread_mutex_lock(&dev->lock);
		lo->cost_ns = hi->cost_ns = lo->interval_ns = hi->interval_ns = 10 * sec;
		pthread_mutex_unlock(&dev->lock);
		CHECK_EQ(cisp_device_load(dev), 200);
	}
	cisp_fence_signal(gate, 0);
	for (int i = 0; i < 6; i++) {
		CHECK_EQ(cisp_fence_wait(f[i], -1), 0);
		cisp_fence_unref(f[i]);
	}
	memcpy(lo_pos, tl.global_log, 3 * sizeof(unsigned));
	memcpy(hi_pos, th.global_log, 3 * sizeof(unsigned));
	cisp_fence_unref(first);
	cisp_fence_unref(gate);
	cisp_device_destroy(dev);
}

TEST(device_schedule_modes)
{
	unsigned lo[3], hi[3];

	/* Priority: high first (its jobs in their order), then low. */
	run_two_priorities(CISP_SCHEDULE_PRIORITY, false, lo, hi);
	CHECK(hi[0] == 0 && hi[1] == 1 && hi[2] == 2);
	CHECK(lo[0] == 3 && lo[1] == 4 && lo[2] == 5);
	/* EDF over the heads: low (5) before high (9), low (2), low (8), then high. */
	run_two_priorities(CISP_SCHEDULE_EDF, false, lo, hi);
	CHECK(lo[0] == 0 && lo[1] == 1 && lo[2] == 2);
	CHECK(hi[0] == 3 && hi[1] == 4 && hi[2] == 5);
	/* Auto: EDF while the load fits (the burst of submissions is long over: estimate 0), priorities under overload. */
	run_two_priorities(CISP_SCHEDULE_AUTO, false, lo, hi);
	CHECK(lo[0] == 0 && hi[0] == 3);
	run_two_priorities(CISP_SCHEDULE_AUTO, true, lo, hi);
	CHECK(hi[0] == 0 && hi[2] == 2 && lo[0] == 3);
}

/*
 * Under overload one worker is kept for the highest active priority: with a
 * low-priority job running, a middle-priority job waits although a worker
 * is free, and a high-priority job gets that worker at once.
 */
TEST(device_worker_kept_for_high_priority)
{
	struct cisp_device_config dc = { .workers = 2, .max_jobs = 16, .schedule = CISP_SCHEDULE_PRIORITY };
	struct cisp_device *dev = NULL;
	struct cisp_fence *gate = gate_new(), *fl, *fm, *fh;
	struct tb t[3];
	struct cisp_context *ctx[3];
	struct cisp_job j = tb_job();

	CHECK_EQ(cisp_device_create(&dev, &dc), 0);
	for (int i = 0; i < 3; i++) {
		struct cisp_context_config c;

		tb_init(&t[i]);
		c = tb_config(&t[i], i == 0 ? "low" : i == 1 ? "middle" : "high");
		c.priority = i;
		ctx[i] = make_context(dev, &c);
	}
	t[0].gate = gate;
	/* The high stream is active: it submits every 10 s, the last time just now. */
	pthread_mutex_lock(&dev->lock);
	ctx[2]->interval_ns = 10000000000ull;
	ctx[2]->last_submit_ns = cisp_device_clock_ns();
	pthread_mutex_unlock(&dev->lock);
	CHECK_EQ(cisp_job_submit(ctx[0], &j, &fl), 0);
	wait_running(&t[0]);
	CHECK_EQ(cisp_job_submit(ctx[1], &j, &fm), 0);
	usleep(20000);
	CHECK_EQ(atomic_load(&t[1].processed), 0); /* the free worker is kept */
	CHECK_EQ(cisp_job_submit(ctx[2], &j, &fh), 0);
	CHECK_EQ(cisp_fence_wait(fh, 5000000000), 0);
	CHECK_EQ(cisp_fence_status(fl), CISP_FENCE_PENDING); /* the high job did not wait for the low one */
	CHECK_EQ(atomic_load(&t[1].processed), 0);
	/* Once the high stream goes quiet, the middle job may take the worker. */
	pthread_mutex_lock(&dev->lock);
	ctx[2]->interval_ns = 0;
	pthread_mutex_unlock(&dev->lock);
	CHECK_EQ(cisp_fence_wait(fm, 5000000000), 0);
	CHECK_EQ(cisp_fence_status(fl), CISP_FENCE_PENDING);
	cisp_fence_signal(gate, 0);
	CHECK_EQ(cisp_fence_wait(fl, -1), 0);
	cisp_fence_unref(fl);
	cisp_fence_unref(fm);
	cisp_fence_unref(fh);
	cisp_fence_unref(gate);
	cisp_device_destroy(dev);
}

/* The load estimate: processing time over submission interval, summed over active contexts. */
TEST(device_load_estimate)
{
	struct cisp_device *dev = make_device(2, 8);
	struct cisp_context *ctx[4];
	struct tb tb[4];
	static const uint64_t cost_ms[4] = { 4, 1, 16, 50 }, interval_ms[4] = { 10, 5, 20, 10 };
	uint64_t now = cisp_device_clock_ns();

	for (int i = 0; i < 4; i++) {
		struct cisp_context_config c;

		tb_init(&tb[i]);
		c = tb_config(&tb[i], "load");
		ctx[i] = make_context(dev, &c);
		ctx[i]->cost_ns = cost_ms[i] * 1000000;
		ctx[i]->interval_ns = interval_ms[i] * 1000000;
		/* The last one stopped submitting 5 intervals ago: it no longer counts. */
		ctx[i]->last_submit_ns = now - (i == 3 ? 50000000 : 0);
	}
	pthread_mutex_lock(&dev->lock);
	CHECK_EQ(sched_load(dev, now), 40 + 20 + 80);
	CHECK_EQ(sched_load(dev, now + 45000000), 80); /* 45 ms on, only the 20 ms stream is recent */
	pthread_mutex_unlock(&dev->lock);
	/* The interval is a moving average (weight 1/8) of the time between submissions. */
	sched_submitted(ctx[0], now + 18000000);
	CHECK_EQ(ctx[0]->interval_ns, (7 * 10000000ull + 18000000) / 8);
	/* After an idle gap (more than 4 intervals) the rate is measured afresh. */
	sched_submitted(ctx[1], now + 30000000);
	CHECK_EQ(ctx[1]->interval_ns, 0);
	sched_submitted(ctx[1], now + 33000000);
	CHECK_EQ(ctx[1]->interval_ns, 3000000);
	{
		struct cisp_device_config dc = { .workers = 1, .schedule = 3 };
		struct cisp_device *bad = NULL;
		CHECK_ERR(cisp_device_create(&bad, &dc), -EINVAL, "schedule 3 is not auto (0), priority (1) or edf (2)");
	}
	cisp_device_destroy(dev);
}

TEST(device_earliest_deadline_first)
{
	struct cisp_device *dev = make_device(1, 32);
	struct cisp_fence *gate = gate_new(), *first, *f[4];
	struct tb tg, t[4];
	struct cisp_context_config c;
	struct cisp_context *g, *ctx[4];
	atomic_uint global = 0;
	uint64_t now = cisp_device_clock_ns();
	static const int due_ms[4] = { 400, 100, 300, 200 };
	struct cisp_job j = tb_job();

	tb_init(&tg);
	tg.gate = gate;
	c = tb_config(&tg, "gate");
	g = make_context(dev, &c);
	CHECK_EQ(cisp_job_submit(g, &j, &first), 0);
	wait_running(&tg);
	for (int i = 0; i < 4; i++) {
		tb_init(&t[i]);
		t[i].global = &global;
		c = tb_config(&t[i], "edf");
		ctx[i] = make_context(dev, &c);
		j.deadline_ns = now + (uint64_t)due_ms[i] * 1000000;
		CHECK_EQ(cisp_job_submit(ctx[i], &j, &f[i]), 0);
	}
	cisp_fence_signal(gate, 0);
	for (int i = 0; i < 4; i++)
		CHECK_EQ(cisp_fence_wait(f[i], -1), 0);
	CHECK_EQ(t[1].global_log[0], 0);
	CHECK_EQ(t[3].global_log[0], 1);
	CHECK_EQ(t[2].global_log[0], 2);
	CHECK_EQ(t[0].global_log[0], 3);
	for (int i = 0; i < 4; i++)
		cisp_fence_unref(f[i]);
	cisp_fence_unref(first);
	cisp_fence_unref(gate);
	cisp_device_destroy(dev);
}

static int submit_n(struct cisp_context *ctx, int n, struct cisp_fence **f, uint64_t deadline)
{
	int failures = 0;

	for (int i = 0; i < n; i++) {
		struct cisp_job j = tb_job();

		j.deadline_ns = deadline;
		failures += cisp_job_submit(ctx, &j, &f[i]) != 0;
	}
	return failures;
}

TEST(device_overload_policies)
{
	struct cisp_device *dev = make_device(1, 32);
	struct cisp_fence *gate = gate_new(), *first, *f[4];
	struct tb tg, tb;
	struct cisp_context_config c;
	struct cisp_context *g, *ctx;
	struct cisp_context_counters k;
	struct cisp_job j = tb_job();

	tb_init(&tg);
	tb_init(&tb);
	tg.gate = gate;
	c = tb_config(&tg, "gate");
	g = make_context(dev, &c);
	CHECK_EQ(cisp_job_submit(g, &j, &first), 0);
	wait_running(&tg);

	/* Run-all: back-pressure at the queue limit, nothing dropped. */
	c = tb_config(&tb, "runall");
	c.queue_limit = 2;
	ctx = make_context(dev, &c);
	CHECK_EQ(submit_n(ctx, 2, f, 0), 0);
	CHECK_ERR(cisp_job_submit(ctx, &j, &f[2]), -EAGAIN, "context 'runall' already has 2 jobs waiting");
	CHECK(f[2] == NULL);
	cisp_context_destroy(ctx);
	CHECK_EQ(cisp_fence_error(f[0]), -ECANCELED);
	cisp_fence_unref(f[0]);
	cisp_fence_unref(f[1]);

	/* Drop-oldest: the oldest waiting job makes room for the newest. */
	c.name = "dropoldest";
	c.overload = CISP_OVERLOAD_DROP_OLDEST;
	ctx = make_context(dev, &c);
	CHECK_EQ(submit_n(ctx, 4, f, 0), 0);
	CHECK_EQ(cisp_fence_status(f[0]), CISP_FENCE_CANCELLED);
	CHECK_EQ(cisp_fence_error(f[0]), -ENOBUFS);
	CHECK_EQ(cisp_fence_error(f[1]), -ENOBUFS);
	CHECK_EQ(cisp_fence_status(f[2]), CISP_FENCE_PENDING);
	cisp_context_counters(ctx, &k);
	CHECK_EQ(k.dropped, 2);
	CHECK_EQ(k.queued, 2);
	CHECK_EQ(free_slots(dev), 32 - 3); /* the gate's job and two waiting; dropped ones came back */
	cisp_context_destroy(ctx);
	for (int i = 0; i < 4; i++)
		cisp_fence_unref(f[i]);

	/* Skip-late: the newest is dropped at the limit; jobs already late are skipped when taken. */
	c.name = "skiplate";
	c.overload = CISP_OVERLOAD_SKIP_LATE;
	ctx = make_context(dev, &c);
	CHECK_EQ(submit_n(ctx, 1, f, cisp_device_clock_ns() + 1000000), 0);          /* late by then */
	CHECK_EQ(submit_n(ctx, 1, f + 1, cisp_device_clock_ns() + 60000000000ull), 0); /* in time */
	CHECK_EQ(submit_n(ctx, 1, f + 2, 0), 0);
	CHECK_EQ(cisp_fence_error(f[2]), -ENOBUFS);
	usleep(2000);
	cisp_fence_signal(gate, 0);
	CHECK_EQ(cisp_fence_wait(f[1], -1), 0);
	CHECK_EQ(cisp_fence_wait(f[0], -1), -ETIME);
	CHECK_EQ(cisp_fence_status(f[0]), CISP_FENCE_CANCELLED);
	cisp_context_counters(ctx, &k);
	CHECK_EQ(k.dropped, 2);
	CHECK_EQ(k.completed, 1);
	CHECK_EQ(k.deadline_misses, 0);
	CHECK_EQ(atomic_load(&tb.processed), 1);
	CHECK_EQ(free_slots_settled(dev, 32), 32);
	for (int i = 0; i < 3; i++)
		cisp_fence_unref(f[i]);
	cisp_fence_unref(first);
	cisp_fence_unref(gate);
	cisp_device_destroy(dev);
}

TEST(device_counters)
{
	struct cisp_device *dev = make_device(1, 32);
	struct cisp_fence *f[20];
	struct tb tb;
	struct cisp_context_config c;
	struct cisp_context *ctx;
	struct cisp_context_counters k;

	tb_init(&tb);
	c = tb_config(&tb, "cam");
	c.queue_limit = 32;
	ctx = make_context(dev, &c);
	/* Deadline 1 ns after boot: long past, every job that runs misses it. */
	CHECK_EQ(submit_n(ctx, 20, f, 1), 0);
	for (int i = 0; i < 20; i++) {
		CHECK_EQ(cisp_fence_wait(f[i], -1), 0);
		cisp_fence_unref(f[i]);
	}
	cisp_context_counters(ctx, &k);
	CHECK_EQ(k.submitted, 20);
	CHECK_EQ(k.completed, 20);
	CHECK_EQ(k.deadline_misses, 20);
	CHECK_EQ(k.dropped + k.cancelled + k.failed + k.queued, 0);
	CHECK(k.latency_p50_ns > 0);
	CHECK(k.latency_p50_ns <= k.latency_p90_ns && k.latency_p90_ns <= k.latency_p99_ns);
	CHECK(k.latency_p99_ns <= k.latency_max_ns);
	CHECK(k.busy_ns > 0);
	cisp_device_destroy(dev);
}

/* The histogram's percentiles on known data, within its documented 1/16. */
TEST(device_latency_percentiles)
{
	static struct latency_hist h;

	memset(&h, 0, sizeof(h));
	CHECK_EQ(latency_percentile(&h, 500), 0);
	for (uint64_t v = 1; v <= 1000; v++)
		latency_add(&h, v * 1000); /* 1 us .. 1 ms */
	CHECK_NEAR(latency_percentile(&h, 500), 500000, 500000 / 16);
	CHECK(latency_percentile(&h, 500) >= 500000);
	CHECK_NEAR(latency_percentile(&h, 990), 990000, 990000 / 16);
	CHECK_EQ(latency_percentile(&h, 1000), 1000000);
	for (uint64_t v = 0; v < 16; v++) { /* exact below 16 */
		memset(&h, 0, sizeof(h));
		latency_add(&h, v);
		latency_add(&h, 100);
		CHECK_EQ(latency_percentile(&h, 500), v);
	}
	memset(&h, 0, sizeof(h));
	latency_add(&h, UINT64_MAX);
	CHECK_EQ(latency_percentile(&h, 500), UINT64_MAX);
}

TEST(device_job_threads)
{
	struct cisp_device_config dc = { .workers = 1, .job_threads = 2 };
	struct cisp_device *dev = NULL;
	struct cisp_fence *f;
	struct tb tb;
	struct cisp_context_config c;
	struct cisp_job j = tb_job();

	CHECK_EQ(cisp_device_create(&dev, &dc), 0);
	tb_init(&tb);
	c = tb_config(&tb, "cam");
	CHECK_EQ(cisp_job_submit(make_context(dev, &c), &j, &f), 0);
	CHECK_EQ(cisp_fence_wait(f, -1), 0);
	CHECK(tb.saw_pool);
	cisp_fence_unref(f);
	cisp_device_destroy(dev);
}

/* ---- hostile descriptions ------------------------------------------------ */

TEST(device_hostile_jobs)
{
	struct cisp_device *dev = make_device(1, 4);
	struct tb tb;
	struct cisp_context_config c;
	struct cisp_context *ctx;
	struct cisp_fence *f = (struct cisp_fence *)1;
	struct cisp_image small, yuv, bad;
	struct tb_params p = params_of(1);
	struct cisp_job j = tb_job();
	char big[8];

	tb_init(&tb);
	c = tb_config(&tb, "cam");
	ctx = make_context(dev, &c);
	cisp_image_alloc(&small, CISP_FMT_SRGGB10, 32, 16);
	cisp_image_alloc(&yuv, CISP_FMT_NV12, 16, 16);

	CHECK_ERR(cisp_job_submit(ctx, NULL, &f), -EINVAL, "the job is NULL");
	CHECK(f == NULL);
	CHECK_ERR(cisp_job_submit(NULL, &j, NULL), -EINVAL, "the context is NULL");
	j = tb_job();
	j.num_inputs = 0;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "a single job takes 1..1 inputs, not 0");
	j = tb_job();
	j.input[0] = NULL;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "job input 0 is missing (NULL)");
	j = tb_job();
	j.input[1] = &small;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "job input 1 is set but num_inputs is 1");
	j = tb_job();
	j.input[0] = &small;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL,
		  "job input 0 is 32x16 SRGGB10 but context 'cam' takes 16x16 SRGGB10");
	j = tb_job();
	bad = test_in;
	bad.plane[0].stride = 4;
	j.input[0] = &bad;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "job input 0");
	bad = test_in;
	bad.plane[0].data = NULL;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "job input 0");
	j = tb_job();
	j.output[0] = NULL;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "job output 0 is missing (NULL); context 'cam' configures it as 16x16");
	j = tb_job();
	j.output[0] = &yuv;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "job output 0 is 16x16 NV12 but context 'cam' takes 16x16 RGB");
	j = tb_job();
	j.output[1] = &yuv;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "job output 1 is set but context 'cam' has no output 1");
	j = tb_job();
	j.mode = 9;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "job mode 9 is not");
	j.mode = CISP_JOB_MERGE_HDR;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -ENOTSUP, "context 'cam' (backend test) cannot run merge-hdr jobs");
	j = tb_job();
	j.params = &p;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "job params is set but params_size is 0");
	j.params = NULL;
	j.params_size = 8;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "job params is NULL but params_size is 8");
	j.params = big;
	j.params_size = 9u << 20;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EMSGSIZE, "over the largest params buffer");
	memset(big, 0, sizeof(big));
	j.params_size = sizeof(big);
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EPROTO, "job params: test params magic 0x00000000 is wrong");
	j = tb_job();
	j.num_in_fences = 1;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "job in-fence 0 is NULL");
	j.num_in_fences = 100;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "job num_in_fences 100 is over 8");
	j = tb_job();
	j.num_in_fence_fds = 9;
	CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EINVAL, "job num_in_fence_fds 9 is over 8");
	/* Cancel with a fence that is not a job of this context. */
	{
		struct cisp_fence *user = gate_new();
		CHECK_ERR(cisp_job_cancel(ctx, user), -ENOENT, "is not the out-fence of a job of context 'cam'");
		CHECK_ERR(cisp_job_cancel(ctx, NULL), -ENOENT, "not the out-fence");
		cisp_fence_unref(user);
	}
	/* Nothing was queued by any of it. */
	{
		struct cisp_context_counters k;
		cisp_context_counters(ctx, &k);
		CHECK_EQ(k.submitted, 0);
	}
	/* Out of job slots. */
	{
		struct cisp_fence *gate = gate_new(), *fs[4];

		tb.gate = gate;
		j = tb_job();
		CHECK_EQ(submit_n(ctx, 4, fs, 0), 0);
		CHECK_ERR(cisp_job_submit(ctx, &j, NULL), -EAGAIN, "all 4 job slots of the device are in use");
		cisp_fence_signal(gate, 0);
		for (int i = 0; i < 4; i++) {
			CHECK_EQ(cisp_fence_wait(fs[i], -1), 0);
			cisp_fence_unref(fs[i]);
		}
		cisp_fence_unref(gate);
	}
	cisp_image_free(&small);
	cisp_image_free(&yuv);
	cisp_device_destroy(dev);
}

/* A large params delta (over the inline slot) is copied at submission. */
TEST(device_large_params)
{
	struct cisp_device *dev = make_device(1, 4);
	struct tb tb;
	struct cisp_context_config c;
	struct cisp_context *ctx;
	struct cisp_fence *f;
	struct cisp_job j = tb_job();
	uint8_t *buf = calloc(1, 8192);

	tb_init(&tb);
	tb.backend.check_params = NULL;
	c = tb_config(&tb, "cam");
	ctx = make_context(dev, &c);
	j.params = buf;
	j.params_size = 8192;
	CHECK_ERR(cisp_job_submit(ctx, &j, &f), -ENOTSUP, "context 'cam' (backend test) takes no params");
	tb.backend.check_params = tb_check;
	CHECK_ERR(cisp_job_submit(ctx, &j, &f), -EMSGSIZE, "test params are 8192 bytes");
	free(buf);
	cisp_device_destroy(dev);
}

/* ---- stress ------------------------------------------------------------- */

#define STRESS_CONTEXTS 4
#define STRESS_JOBS 2500

struct stress {
	struct cisp_context *ctx[STRESS_CONTEXTS];
	struct cisp_fence *fence[STRESS_CONTEXTS][STRESS_JOBS];
	struct cisp_job_result result[STRESS_CONTEXTS][STRESS_JOBS];
	atomic_int submitted[STRESS_CONTEXTS];
	atomic_int rejected;
};

struct submitter {
	struct stress *s;
	int index;
};

static void *stress_submit(void *arg)
{
	struct submitter *sub = arg;
	struct stress *s = sub->s;
	int c = sub->index;

	for (int i = 0; i < STRESS_JOBS; i++) {
		struct cisp_job j = tb_job();
		struct tb_params p = params_of(i);

		j.result = &s->result[c][i];
		if (i % 5 == 0) {
			j.params = &p;
			j.params_size = sizeof(p);
		}
		/* Chain on an earlier job of the next context now and then. */
		if (i % 7 == 3) {
			int other = (c + 1) % STRESS_CONTEXTS;
			int k = atomic_load(&s->submitted[other]) - 1;

			if (k >= 0) {
				j.in_fence[0] = s->fence[other][k];
				j.num_in_fences = 1;
			}
		}
		while (cisp_job_submit(s->ctx[c], &j, &s->fence[c][i]) == -EAGAIN) {
			atomic_fetch_add(&s->rejected, 1);
			if (i > 0)
				cisp_fence_wait(s->fence[c][i - 1], 1000000);
		}
		atomic_store(&s->submitted[c], i + 1);
	}
	return NULL;
}

static void *stress_cancel(void *arg)
{
	struct stress *s = arg;
	uint64_t x = 88172645463325252ull;

	for (int n = 0; n < 4000; n++) {
		int c, k;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		c = (int)(x % STRESS_CONTEXTS);
		k = atomic_load(&s->submitted[c]) - 1 - (int)((x >> 8) % 8);
		if (k >= 0)
			cisp_job_cancel(s->ctx[c], s->fence[c][k]);
	}
	return NULL;
}

/* Concurrent submitters, chains across contexts and random cancels: every job completes once. */
TEST(device_stress_concurrent)
{
	int fds = open_fds();
	struct cisp_device *dev = make_device(2, 64);
	struct stress *s = calloc(1, sizeof(*s));
	struct tb *tb = calloc(STRESS_CONTEXTS, sizeof(*tb));
	struct submitter sub[STRESS_CONTEXTS];
	pthread_t t[STRESS_CONTEXTS], canceller;
	static const uint32_t policy[STRESS_CONTEXTS] = { CISP_OVERLOAD_RUN_ALL, CISP_OVERLOAD_DROP_OLDEST,
							  CISP_OVERLOAD_SKIP_LATE, CISP_OVERLOAD_RUN_ALL };

	for (int c = 0; c < STRESS_CONTEXTS; c++) {
		struct cisp_context_config cc;

		tb_init(&tb[c]);
		cc = tb_config(&tb[c], "stress");
		cc.overload = policy[c];
		cc.queue_limit = 8;
		cc.priority = c % 2;
		cc.frame_period_ns = 200000; /* tight deadlines: skip-late acts */
		s->ctx[c] = make_context(dev, &cc);
	}
	for (int c = 0; c < STRESS_CONTEXTS; c++) {
		sub[c] = (struct submitter){ s, c };
		pthread_create(&t[c], NULL, stress_submit, &sub[c]);
	}
	pthread_create(&canceller, NULL, stress_cancel, s);
	for (int c = 0; c < STRESS_CONTEXTS; c++)
		pthread_join(t[c], NULL);
	pthread_join(canceller, NULL);

	for (int c = 0; c < STRESS_CONTEXTS; c++) {
		struct cisp_context_counters k;
		uint64_t ok = 0, cancelled = 0, failed = 0, last = 0;
		int ordered = 1;

		for (int i = 0; i < STRESS_JOBS; i++) {
			struct cisp_fence *f = s->fence[c][i];
			int r = cisp_fence_wait(f, 20000000000ll);
			enum cisp_fence_status st = cisp_fence_status(f);

			CHECK(r != -ETIMEDOUT);
			CHECK_EQ(s->result[c][i].status, st);
			CHECK_EQ(s->result[c][i].sequence, i);
			ok += st == CISP_FENCE_OK;
			cancelled += st == CISP_FENCE_CANCELLED;
			failed += st == CISP_FENCE_ERROR;
			/* Jobs that ran completed in order. */
			if (st == CISP_FENCE_OK) {
				ordered &= s->result[c][i].end_ns >= last;
				last = s->result[c][i].end_ns;
			}
		}
		CHECK(ordered);
		cisp_context_counters(s->ctx[c], &k);
		CHECK_EQ(k.submitted, STRESS_JOBS);
		CHECK_EQ(k.queued, 0);
		CHECK_EQ(k.completed, ok);
		CHECK_EQ(k.failed, failed);
		CHECK_EQ(k.cancelled + k.dropped, cancelled);
		CHECK_EQ(k.completed + k.failed + k.cancelled + k.dropped, STRESS_JOBS);
		CHECK_EQ(atomic_load(&tb[c].overlap), 0);
		CHECK_EQ(atomic_load(&tb[c].processed), ok);
		if (policy[c] == CISP_OVERLOAD_RUN_ALL)
			CHECK_EQ(k.dropped, 0);
		printf("    context %d: %" PRIu64 " ok, %" PRIu64 " cancelled, %" PRIu64 " dropped, %" PRIu64
		       " failed; p50 %" PRIu64 " us\n",
		       c, k.completed, k.cancelled, k.dropped, k.failed, k.latency_p50_ns / 1000);
	}
	/* The params state a job saw is the last delta at or before it, whether or not those jobs ran. */
	for (int c = 0; c < STRESS_CONTEXTS; c++) {
		unsigned n = atomic_load(&tb[c].processed);
		int wrong = 0;

		for (unsigned i = 0; i < n && i < TB_LOG; i++)
			wrong += tb[c].value_log[i] != (int)(tb[c].seq_log[i] / 5 * 5);
		CHECK_EQ(wrong, 0);
	}
	/* A worker frees a job's slot just after signalling its fence: give it a moment. */
	for (int i = 0; i < 2000 && free_slots(dev) != 64; i++)
		usleep(1000);
	CHECK_EQ(free_slots(dev), 64);
	for (int c = 0; c < STRESS_CONTEXTS; c++)
		for (int i = 0; i < STRESS_JOBS; i++)
			cisp_fence_unref(s->fence[c][i]);
	cisp_device_destroy(dev);
	free(s);
	free(tb);
	CHECK_EQ(open_fds(), fds);
}
