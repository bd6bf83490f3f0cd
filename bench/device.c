/* SPDX-License-Identifier: MIT */
/*
 * bench-device: figures of the ISP device API (docs/device.md).
 *
 * (a) Submission: cisp_job_submit() time per job with a trivial pipeline
 *     (median, p99), and system calls per frame in steady state, counted by
 *     running the same loop under `strace -f -c` at two lengths and dividing
 *     the difference by the difference in frames (start-up cancels out).
 * (b) Deadlines: three contexts on 2 workers (1920x1080 at 30 fps high
 *     priority run-all, 1280x720 at 60 fps drop-oldest, 3840x2160 at 15 fps
 *     low priority skip-late) at 80% and 150% offered load. The load is
 *     relative to what this machine does now: right before each run the
 *     bench measures each context's job time with both workers busy, then
 *     scales all three frame periods by one factor (the fps ratios stay
 *     30:60:15) so that the sum over contexts of job time / period is the
 *     load times 2 workers. A frame's deadline is its arrival plus
 *     --latency-frames periods (default 2).
 *
 * Output: one line per figure,
 *   submit_us_median V / submit_us_p99 V / syscalls_per_frame V /
 *   misses CONTEXT LOAD_PERCENT COUNT
 * and lines starting with '#' that say how they were obtained.
 */
#include <errno.h>
#include <inttypes.h>
#include <dirent.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/format.h>

#define WORKERS 2

static void die(const char *what)
{
	fprintf(stderr, "bench-device: %s: %s\n", what, cisp_last_error());
	exit(1);
}

static uint64_t now_ns(void)
{
	return cisp_device_clock_ns();
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* ---- backends ------------------------------------------------------------ */

static int trivial_create(void **instance, const struct cisp_isp_config *config, void *opaque)
{
	(void)config;
	*instance = opaque;
	return 0;
}

static void trivial_destroy(void *instance)
{
	(void)instance;
}

static int trivial_set_params(void *instance, const void *buf, size_t size)
{
	(void)instance;
	(void)buf;
	(void)size;
	return 0;
}

static int trivial_process(void *instance, struct cisp_device_frame *frame)
{
	(void)instance;
	(void)frame;
	return 0;
}

static const struct cisp_device_backend trivial_backend = {
	.name = "trivial", .create = trivial_create, .destroy = trivial_destroy,
	.set_params = trivial_set_params, .process = trivial_process,
};

/*
 * The synthetic pipeline: a fixed amount of integer work per pixel, so a
 * job's cost is proportional to the frame size and, like a real pipeline,
 * grows when the worker does not get a CPU. Like the software ISP it works
 * in bands of SYNTHETIC_BAND_ROWS rows with a preemption point between them
 * (cisp_device_preempt_point()), unless --preempt no.
 */
#define SYNTHETIC_BAND_ROWS 16

struct synthetic {
	uint64_t iterations;
	uint64_t sleep_ns;
	uint32_t height;
	uint64_t sink;
};

static bool preempt_points = true;

static double iterations_per_pixel = 1.0;
/* The hardware model: a job occupies its worker for a time proportional to its pixels, without a CPU. */
static double sleep_ns_per_pixel;

static uint64_t work(uint64_t n, uint64_t x)
{
	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

static int synthetic_create(void **instance, const struct cisp_isp_config *config, void *opaque)
{
	struct synthetic *s = calloc(1, sizeof(*s));

	(void)opaque;
	if (!s)
		return -ENOMEM;
	s->iterations = (uint64_t)(iterations_per_pixel * config->width * config->height);
	s->sleep_ns = (uint64_t)(sleep_ns_per_pixel * config->width * config->height);
	s->height = config->height;
	*instance = s;
	return 0;
}

static void synthetic_destroy(void *instance)
{
	free(instance);
}

static int synthetic_process(void *instance, struct cisp_device_frame *frame)
{
	struct synthetic *s = instance;

	if (s->sleep_ns && !preempt_points) {
		struct timespec ts = { (time_t)(s->sleep_ns / 1000000000u), (long)(s->sleep_ns % 1000000000u) };

		while (nanosleep(&ts, &ts) == EINTR)
			;
		return 0;
	}
	if (s->sleep_ns) {
		/* A pipe that can stop between bands: each band ends at its share of the time, the stops not counted. */
		uint64_t end = now_ns();

		for (uint32_t y = 0; y < s->height; y += SYNTHETIC_BAND_ROWS) {
			uint32_t y1 = y + SYNTHETIC_BAND_ROWS < s->height ? y + SYNTHETIC_BAND_ROWS : s->height;
			uint64_t stop;

			end += s->sleep_ns * y1 / s->height - s->sleep_ns * y / s->height;
			sleep_until(end);
			stop = now_ns();
			cisp_device_preempt_point();
			end += now_ns() - stop;
		}
		return 0;
	}
	uint64_t x = frame->sequence | 1;

	for (uint32_t y = 0; y < s->height; y += SYNTHETIC_BAND_ROWS) {
		uint32_t y1 = y + SYNTHETIC_BAND_ROWS < s->height ? y + SYNTHETIC_BAND_ROWS : s->height;

		x = work(s->iterations * y1 / s->height - s->iterations * y / s->height, x);
		if (preempt_points)
			cisp_device_preempt_point();
	}
	s->sink = x;
	return 0;
}

static const struct cisp_device_backend synthetic_backend = {
	.name = "synthetic", .create = synthetic_create, .destroy = synthetic_destroy,
	.set_params = trivial_set_params, .process = synthetic_process,
};

/* ---- (a) submission ------------------------------------------------------ */

#define IN_FLIGHT 32

/* IN_FLIGHT jobs in flight, the oldest waited for before each submission; @durations gets each submit's time. */
static void submit_loop(unsigned jobs, uint64_t *durations)
{
	struct cisp_device_config dc = { .workers = WORKERS, .max_jobs = 256 };
	struct cisp_context_config cc = {
		.name = "submit",
		.isp = { .input_format = CISP_FMT_SRGGB10, .width = 16, .height = 16,
			 .output = { { CISP_FMT_NV12, 16, 16 } } },
		.queue_limit = 2 * IN_FLIGHT,
		.backend = &trivial_backend,
	};
	struct cisp_fence *f[IN_FLIGHT] = { 0 };
	struct cisp_image in, out;
	struct cisp_device *dev;
	struct cisp_context *ctx;
	struct cisp_job job = { .num_inputs = 1 };

	if (cisp_device_create(&dev, &dc) || cisp_context_create(&ctx, dev, &cc))
		die("device");
	cisp_image_alloc(&in, CISP_FMT_SRGGB10, 16, 16);
	cisp_image_alloc(&out, CISP_FMT_NV12, 16, 16);
	job.input[0] = &in;
	job.output[0] = &out;
	for (unsigned i = 0; i < jobs; i++) {
		struct cisp_fence **slot = &f[i % IN_FLIGHT];
		uint64_t t0;
		int ret;

		if (*slot) {
			cisp_fence_wait(*slot, -1);
			cisp_fence_unref(*slot);
		}
		t0 = now_ns();
		ret = cisp_job_submit(ctx, &job, slot);
		durations[i] = now_ns() - t0;
		if (ret)
			die("submit");
	}
	for (unsigned i = 0; i < IN_FLIGHT; i++) {
		if (f[i])
			cisp_fence_wait(f[i], -1);
		cisp_fence_unref(f[i]);
	}
	cisp_device_destroy(dev);
	cisp_image_free(&in);
	cisp_image_free(&out);
}

static void bench_submit(unsigned jobs)
{
	uint64_t *d = malloc(jobs * sizeof(*d));
	unsigned warm = jobs / 10, n = jobs - warm;

	submit_loop(jobs, d);
	qsort(d + warm, n, sizeof(*d), cmp_u64);
	printf("# submission: %u jobs after %u warm-up, trivial pipeline, %d in flight, %d workers; "
	       "time of each cisp_job_submit() call\n",
	       n, warm, IN_FLIGHT, WORKERS);
	printf("submit_us_median %.3f\n", d[warm + n / 2] / 1000.0);
	printf("submit_us_p99 %.3f\n", d[warm + n * 99 / 100] / 1000.0);
	free(d);
}

/*
 * The streams for counting system calls: every frame costs the synthetic
 * pipeline STEADY_WORK steps (a few hundred microseconds, far more than a
 * submission). Busy (LOOP_WAIT, LOOP_FD): the caller keeps STEADY_IN_FLIGHT
 * frames in flight and waits for the oldest before submitting the next, so
 * the device always has work queued; it waits in cisp_fence_wait() or in
 * poll() on the fence's descriptor. Idle (LOOP_IDLE): one frame at a time,
 * waited for in cisp_fence_wait(), then IDLE_GAP_US of pause, longer than a
 * worker spins, so every submission finds the workers asleep.
 */
#define STEADY_IN_FLIGHT 32
#define STEADY_WORK 300000
#define IDLE_GAP_US 2000

enum loop_mode { LOOP_WAIT, LOOP_FD, LOOP_IDLE };

static void steady_loop(unsigned frames, enum loop_mode mode)
{
	const unsigned in_flight = mode == LOOP_IDLE ? 1 : STEADY_IN_FLIGHT;
	struct cisp_device_config dc = { .workers = WORKERS, .max_jobs = 64 };
	struct cisp_context_config cc = {
		.name = "steady",
		.isp = { .input_format = CISP_FMT_SRGGB10, .width = 16, .height = 16,
			 .output = { { CISP_FMT_NV12, 16, 16 } } },
		.queue_limit = 2 * STEADY_IN_FLIGHT,
		.backend = &synthetic_backend,
	};
	struct cisp_fence *f[STEADY_IN_FLIGHT] = { 0 };
	struct cisp_image in, out;
	struct cisp_device *dev;
	struct cisp_context *ctx;
	struct cisp_job job = { .num_inputs = 1 };

	iterations_per_pixel = STEADY_WORK / 256.0;
	if (cisp_device_create(&dev, &dc) || cisp_context_create(&ctx, dev, &cc))
		die("device");
	cisp_image_alloc(&in, CISP_FMT_SRGGB10, 16, 16);
	cisp_image_alloc(&out, CISP_FMT_NV12, 16, 16);
	job.input[0] = &in;
	job.output[0] = &out;
	for (unsigned i = 0; i < frames + in_flight; i++) {
		struct cisp_fence **slot = &f[i % in_flight];

		if (*slot) {
			if (mode == LOOP_FD) {
				struct pollfd p = { .fd = cisp_fence_fd(*slot), .events = POLLIN };

				poll(&p, 1, -1);
			} else {
				cisp_fence_wait(*slot, -1);
			}
			cisp_fence_unref(*slot);
			*slot = NULL;
			if (mode == LOOP_IDLE)
				usleep(IDLE_GAP_US);
		}
		if (i < frames && cisp_job_submit(ctx, &job, slot))
			die("submit");
	}
	cisp_device_destroy(dev);
	cisp_image_free(&in);
	cisp_image_free(&out);
}

/* System calls of a traced run, by what they are for. */
struct syscall_tally {
	long caller_wait; /* the caller's own waits: poll(), a futex wait on a fence, its pause (idle loop) */
	long wake;        /* futex wakes in the caller's thread: cisp_job_submit() waking a sleeping worker */
	long signal;      /* out-fence signals: futex wake of a fence waiter, eventfd write */
	long rearm;       /* eventfd read that re-arms a recycled fence descriptor */
	long other;       /* anything else (locks, worker hand-over, start-up) */
};

static bool tally_strace(const char *path, struct syscall_tally *t)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	long main_tid = -1;

	memset(t, 0, sizeof(*t));
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *end, *name = line;
		long tid = strtol(line, &end, 10);
		bool caller;

		if (end == line)
			continue;
		name = end + strspn(end, " ");
		/* "<... futex resumed>" ends a call already counted; "+++" and "---" are not calls. */
		if (!strchr(name, '(') || name[0] == '<' || name[0] == '+' || name[0] == '-')
			continue;
		if (main_tid < 0)
			main_tid = tid; /* the first call (execve) is the main thread's */
		caller = tid == main_tid;
		if (!strncmp(name, "poll(", 5) || !strncmp(name, "ppoll(", 6))
			t->caller_wait += caller, t->other += !caller;
		else if (!strncmp(name, "futex(", 6) && strstr(name, "FUTEX_WAIT_BITSET_PRIVATE,") && caller)
			t->caller_wait++;
		else if (caller && (!strncmp(name, "clock_nanosleep(", 16) || !strncmp(name, "nanosleep(", 10)))
			t->caller_wait++;
		else if (caller && !strncmp(name, "futex(", 6) && strstr(name, "FUTEX_WAKE_PRIVATE"))
			t->wake++;
		else if (!strncmp(name, "futex(", 6) && strstr(name, "FUTEX_WAKE_BITSET_PRIVATE"))
			t->signal++;
		else if (!strncmp(name, "write(", 6))
			t->signal++;
		else if (!strncmp(name, "read(", 5))
			t->rearm++;
		else
			t->other++;
	}
	fclose(f);
	return main_tid >= 0;
}

/* Run this program's steady-state loop under strace -f. */
static bool strace_run(const char *self, unsigned frames, enum loop_mode mode, struct syscall_tally *t)
{
	static const char *const loop_arg[] = { "--syscall-loop", "--syscall-loop-fd", "--syscall-loop-idle" };
	char path[] = "/tmp/bench-device-strace-XXXXXX", arg[32];
	int fd = mkstemp(path), status;
	bool ok = false;
	pid_t pid;

	if (fd < 0)
		return false;
	close(fd);
	snprintf(arg, sizeof(arg), "%u", frames);
	pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stderr))
			_exit(127);
		execlp("strace", "strace", "-f", "-qq", "-o", path, self, loop_arg[mode], arg, (char *)NULL);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		ok = tally_strace(path, t);
	unlink(path);
	return ok;
}

static void bench_syscalls(void)
{
	/* Frames of the short and the long traced run; the idle loop's frames take its pause each. */
	static const unsigned small[3] = { 1000, 1000, 200 }, large[3] = { 5000, 5000, 1000 };
	static const char *const mode_name[3] = {
		"busy, caller sleeps in cisp_fence_wait()",
		"busy, caller poll()s cisp_fence_fd()",
		"idle device, caller sleeps in cisp_fence_wait()",
	};
	double device[3] = { 0 }, wake[3] = { 0 };
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	printf("# syscalls: strace -f, every thread, a short and a long run, per frame = difference / their frames;\n"
	       "#   busy: the device always has work queued (%d frames in flight, synthetic job of %d steps);\n"
	       "#   idle: one frame at a time, %d us apart, so each submission finds the workers asleep\n",
	       STEADY_IN_FLIGHT, STEADY_WORK, IDLE_GAP_US);
	for (int mode = 0; mode < 3; mode++) {
		struct syscall_tally a, b;
		double n = large[mode] - small[mode];

		if (len <= 0 || (self[len] = '\0', !strace_run(self, small[mode], mode, &a)) ||
		    !strace_run(self, large[mode], mode, &b)) {
			printf("# syscalls: strace is missing or not permitted here\n");
			printf("syscalls_per_frame nan\n");
			return;
		}
		wake[mode] = (b.wake - a.wake) / n;
		device[mode] = (b.signal + b.rearm + b.wake + b.other - a.signal - a.rearm - a.wake - a.other) / n;
		printf("#   %s, %u and %u frames: device %.3f per frame (submission wake %.3f, out-fence signal %.3f, "
		       "fd re-arm %.3f, other %.3f); the caller's own waits %.3f\n",
		       mode_name[mode], small[mode], large[mode], device[mode], wake[mode], (b.signal - a.signal) / n,
		       (b.rearm - a.rearm) / n, (b.other - a.other) / n, (b.caller_wait - a.caller_wait) / n);
	}
	printf("syscalls_per_frame %.3f\n", device[0]);
	printf("syscalls_per_frame_idle %.3f\n", device[2]);
	printf("submit_syscalls_per_frame %.3f\n", wake[0]);
	printf("submit_syscalls_per_frame_idle %.3f\n", wake[2]);
}

/* ---- (b) deadlines --------------------------------------------------------- */

struct stream {
	const char *name;
	uint32_t width, height;
	double fps;
	int priority;
	uint32_t policy;
	unsigned queue_limit;
};

/* Their sizes divided by --size-divisor, for slow machines (an emulated VM). */
static struct stream streams[3] = {
	{ "1080p30", 1920, 1080, 30, 2, CISP_OVERLOAD_RUN_ALL, 4 },
	{ "720p60", 1280, 720, 60, 1, CISP_OVERLOAD_DROP_OLDEST, 2 },
	{ "2160p15", 3840, 2160, 15, 0, CISP_OVERLOAD_SKIP_LATE, 2 },
};

static const char *policy_name(uint32_t p)
{
	return p == CISP_OVERLOAD_RUN_ALL ? "run-all" : p == CISP_OVERLOAD_DROP_OLDEST ? "drop-oldest" : "skip-late";
}

struct options {
	unsigned frames[2];
	int loads[2];
	double job_ms;
	double latency_frames;
	const char *pipeline; /* "synthetic", "hw" or "isp" */
};

struct rig {
	struct cisp_device *dev;
	struct cisp_context *ctx[3];
	struct cisp_image in[3], out[3];
};

static void rig_create(struct rig *r, const struct options *o)
{
	struct cisp_device_config dc = { .workers = WORKERS, .max_jobs = 64 };

	if (cisp_device_create(&r->dev, &dc))
		die("device");
	for (int c = 0; c < 3; c++) {
		const struct stream *s = &streams[c];
		struct cisp_context_config cc = {
			.name = s->name,
			.isp = { .input_format = CISP_FMT_SRGGB10, .width = s->width, .height = s->height,
				 .output = { { CISP_FMT_NV12, s->width, s->height } } },
			.priority = s->priority,
			.overload = s->policy,
			.queue_limit = s->queue_limit,
			.backend = strcmp(o->pipeline, "isp") ? &synthetic_backend : NULL,
		};

		if (cisp_image_alloc(&r->in[c], CISP_FMT_SRGGB10, s->width, s->height) ||
		    cisp_image_alloc(&r->out[c], CISP_FMT_NV12, s->width, s->height))
			die("images");
		/* A mid-grey ramp, so the real pipeline has something to do. */
		for (uint32_t y = 0; y < s->height; y++) {
			uint16_t *row = (uint16_t *)(r->in[c].plane[0].data + y * r->in[c].plane[0].stride);
			for (uint32_t x = 0; x < s->width; x++)
				row[x] = (uint16_t)(64 + (x + y) % 900);
		}
		if (cisp_context_create(&r->ctx[c], r->dev, &cc))
			die("context");
	}
}

static void rig_destroy(struct rig *r)
{
	cisp_device_destroy(r->dev);
	for (int c = 0; c < 3; c++) {
		cisp_image_free(&r->in[c]);
		cisp_image_free(&r->out[c]);
	}
}

static int submit_frame(struct rig *r, int c, uint64_t deadline, struct cisp_fence **fence,
			struct cisp_job_result *result)
{
	struct cisp_job job = { .num_inputs = 1, .deadline_ns = deadline, .result = result };

	job.input[0] = &r->in[c];
	job.output[0] = &r->out[c];
	return cisp_job_submit(r->ctx[c], &job, fence);
}

/*
 * Each context's job time with both workers busy: jobs of all three
 * contexts at once, two in flight per context, no deadline. Gives the mean
 * processing time per job (ns). The synthetic pipeline's work is exactly
 * proportional to the pixels, so its three costs come from one figure, the
 * time per pixel over all the jobs, which averages out the noise of a
 * shared machine.
 */
static void measure_costs(struct rig *r, unsigned rounds, bool proportional, double cost_ns[3])
{
	double busy = 0, pixels = 0;
	struct cisp_context_counters before[3], after[3];
	struct cisp_fence *f[3][2] = { { 0 } };

	for (int c = 0; c < 3; c++)
		cisp_context_counters(r->ctx[c], &before[c]);
	for (unsigned i = 0; i < rounds; i++) {
		for (int c = 0; c < 3; c++) {
			/* Fewer large frames: each context busy for about the same time as the 720p one. */
			unsigned n = rounds * (streams[1].width * streams[1].height) /
				     (streams[c].width * streams[c].height);

			if (i >= (n ? n : 1))
				continue;
			if (f[c][i % 2]) {
				cisp_fence_wait(f[c][i % 2], -1);
				cisp_fence_unref(f[c][i % 2]);
			}
			if (submit_frame(r, c, UINT64_MAX, &f[c][i % 2], NULL))
				die("calibration job");
		}
	}
	for (int c = 0; c < 3; c++) {
		for (int k = 0; k < 2; k++) {
			if (f[c][k])
				cisp_fence_wait(f[c][k], -1);
			cisp_fence_unref(f[c][k]);
		}
		cisp_context_counters(r->ctx[c], &after[c]);
		cost_ns[c] = (double)(after[c].busy_ns - before[c].busy_ns) / (double)(after[c].completed - before[c].completed);
		busy += (double)(after[c].busy_ns - before[c].busy_ns);
		pixels += (double)(after[c].completed - before[c].completed) * streams[c].width * streams[c].height;
	}
	for (int c = 0; proportional && c < 3; c++)
		cost_ns[c] = busy / pixels * streams[c].width * streams[c].height;
}

/*
 * CPU time of this process's threads (ns), and the time they were runnable
 * but waiting for a CPU: on a shared machine, what other programs took.
 */
static void cpu_times(double *on_cpu, double *waiting)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	*on_cpu = *waiting = 0;
	while (d && (e = readdir(d))) {
		char path[300];
		unsigned long long run = 0, wait = 0;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", e->d_name);
		f = fopen(path, "r");
		if (f && fscanf(f, "%llu %llu", &run, &wait) == 2) {
			*on_cpu += (double)run;
			*waiting += (double)wait;
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
}

/*
 * Under a real-time policy (chrt), workers and the submitting thread share
 * one priority, and a worker in the middle of a band keeps its CPU: with
 * both workers busy a frame would reach the device only when one of them
 * blocks. The submitting thread stands for the cameras' interrupts, so once
 * the workers are made it moves @delta priorities (1: above them, -1: back).
 */
static void submitter_priority(int delta)
{
	int policy = sched_getscheduler(0);
	struct sched_param sp;

	if (policy != SCHED_FIFO && policy != SCHED_RR)
		return;
	sched_getparam(0, &sp);
	if (sp.sched_priority + delta > sched_get_priority_max(policy) ||
	    sp.sched_priority + delta < sched_get_priority_min(policy))
		return;
	sp.sched_priority += delta;
	if (pthread_setschedparam(pthread_self(), policy, &sp) == 0 && delta > 0)
		printf("# real-time policy %s: the submitting thread at priority %d, the workers at %d\n",
		       policy == SCHED_FIFO ? "FIFO" : "RR", sp.sched_priority, sp.sched_priority - delta);
}

static void run_load(const struct options *o, int load_percent, unsigned frames)
{
	double cpu0, wait0, cpu1, wait1;
	uint64_t start;
	double wall;
	struct rig r;
	double cost[3], demand = 0, scale;
	uint64_t period[3], next[3], t0, preempted_before[3];
	struct cisp_context_counters before[3], after[3];
	struct cisp_job_result *res = calloc(frames, sizeof(*res));
	int *which = calloc(frames, sizeof(*which));
	uint64_t *arrival = calloc(frames, sizeof(*arrival)), submit_late[3] = { 0 };
	unsigned rejected[3] = { 0 };
	double load[3] = { 0 }, loadavg[1] = { 0 };

	if (!res || !which || !arrival)
		die("memory");
	rig_create(&r, o);
	submitter_priority(1);
	measure_costs(&r, strcmp(o->pipeline, "isp") ? 60 : 8, strcmp(o->pipeline, "isp") != 0, cost);
	for (int c = 0; c < 3; c++)
		demand += cost[c] * 1e-9 * streams[c].fps;
	/* demand: worker-seconds per second at the nominal rates; scale every rate by one factor. */
	scale = load_percent / 100.0 * WORKERS / demand;
	getloadavg(loadavg, 1);
	printf("# load %d%% (machine load average %.2f): job time with both workers busy, measured just before: ",
	       load_percent, loadavg[0]);
	for (int c = 0; c < 3; c++)
		printf("%s %.2f ms%s", streams[c].name, cost[c] / 1e6, c < 2 ? ", " : "\n");
	printf("#   frame rates scaled by %.3f (offered = %d%% of %d workers): ", scale, load_percent, WORKERS);
	for (int c = 0; c < 3; c++) {
		period[c] = (uint64_t)(1e9 / (streams[c].fps * scale));
		load[c] = cost[c] / (double)period[c];
		printf("%s every %.2f ms (%.0f%% of a worker)%s", streams[c].name, period[c] / 1e6, 100 * load[c],
		       c < 2 ? ", " : "\n");
	}
	printf("#   deadline = arrival + %.1f periods; %u frames\n", o->latency_frames, frames);

	for (int c = 0; c < 3; c++) {
		cisp_context_counters(r.ctx[c], &before[c]);
		preempted_before[c] = cisp_context_preemptions(r.ctx[c]);
	}
	cpu_times(&cpu0, &wait0);
	start = now_ns();
	t0 = start + 20000000;
	/* Staggered phases: the three sensors are not synchronised. */
	for (int c = 0; c < 3; c++)
		next[c] = t0 + period[c] * (uint64_t)c / 3;
	for (unsigned i = 0; i < frames; i++) {
		int c = 0;

		for (int k = 1; k < 3; k++)
			if (next[k] < next[c])
				c = k;
		sleep_until(next[c]);
		which[i] = c;
		arrival[i] = next[c];
		/* A run-all context at its queue limit refuses the frame: the sensor's frame is lost. */
		if (submit_frame(&r, c, next[c] + (uint64_t)(o->latency_frames * (double)period[c]), NULL, &res[i])) {
			if (cisp_last_error()[0] && strstr(cisp_last_error(), "queue limit"))
				rejected[c]++;
			else
				die("frame");
		}
		next[c] += period[c];
	}
	for (unsigned i = 0; i < frames; i++)
		if (res[i].submit_ns > arrival[i] && res[i].submit_ns - arrival[i] > submit_late[which[i]])
			submit_late[which[i]] = res[i].submit_ns - arrival[i];
	for (int c = 0; c < 3; c++) {
		struct cisp_context_counters k;

		do {
			usleep(1000);
			cisp_context_counters(r.ctx[c], &k);
		} while (k.queued);
		after[c] = k;
	}
	cpu_times(&cpu1, &wait1);
	wall = now_ns() - start;
	printf("#   %.1f s: this process's threads ran %.1f s on a CPU and waited %.1f s runnable without one "
	       "(other programs' share of the machine)\n",
	       wall / 1e9, (cpu1 - cpu0) / 1e9, (wait1 - wait0) / 1e9);
	/* Against the run's length: the hardware model hardly uses a CPU, so its own CPU time says little. */
	if (wait1 - wait0 > 0.02 * wall)
		printf("#   WARNING: other programs kept this one off the CPUs for long; its misses say more about them\n");
	for (int c = 0; c < 3; c++) {
		uint64_t *lat = calloc(frames, sizeof(*lat)), n = 0;

		for (unsigned i = 0; i < frames; i++)
			if (which[i] == c && res[i].status == CISP_FENCE_OK)
				lat[n++] = res[i].end_ns - arrival[i];
		qsort(lat, n, sizeof(*lat), cmp_u64);
		printf("misses %s %d %" PRIu64 "\n", streams[c].name, load_percent,
		       after[c].deadline_misses - before[c].deadline_misses);
		printf("#   %s (priority %d, %s): %" PRIu64 " submitted, %u refused (queue full), %" PRIu64 " ran, %" PRIu64
		       " dropped, %" PRIu64 " failed, %" PRIu64 " preempted; latency from arrival p50 %.2f ms, p99 %.2f ms, max %.2f ms; "
		       "submitted at most %.2f ms after arrival\n",
		       streams[c].name, streams[c].priority, policy_name(streams[c].policy),
		       after[c].submitted - before[c].submitted, rejected[c], after[c].completed - before[c].completed,
		       after[c].dropped - before[c].dropped, after[c].failed - before[c].failed,
		       cisp_context_preemptions(r.ctx[c]) - preempted_before[c],
		       n ? lat[n / 2] / 1e6 : 0.0, n ? lat[n * 99 / 100] / 1e6 : 0.0, n ? lat[n - 1] / 1e6 : 0.0, submit_late[c] / 1e6);
		free(lat);
	}
	submitter_priority(-1);
	rig_destroy(&r);
	free(res);
	free(which);
	free(arrival);
}

static volatile uint64_t calibration_sink;

static void calibrate_work(double job_ms)
{
	const uint64_t n = 20000000;
	uint64_t t0 = now_ns(), t;

	calibration_sink = work(n, 1);
	t = now_ns() - t0;
	double ns_per_iteration = (double)t / (double)n;

	/* The 3840x2160 job gets about job_ms of work on an idle core. */
	iterations_per_pixel = job_ms * 1e6 / ns_per_iteration / (3840.0 * 2160.0);
	printf("# synthetic pipeline: %.3f ns per work step, %.3f steps per pixel (a 3840x2160 job ~%.1f ms alone)\n",
	       ns_per_iteration, iterations_per_pixel, job_ms);
}

static void usage(void)
{
	fprintf(stderr, "usage: bench-device [--part all|submit|deadline] [--jobs N] [--frames N[,N2]] "
			"[--loads L1,L2] [--job-ms MS] [--latency-frames K] [--pipeline synthetic|hw|isp] "
			"[--preempt yes|no]\n"
			"       [--size-divisor D]   (the deadline streams' width and height divided by D, 1..16)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct options o = { .frames = { 10000, 10000 }, .loads = { 80, 150 }, .job_ms = 16, .latency_frames = 2,
			     .pipeline = "synthetic" };
	const char *part = "all";
	unsigned jobs = 200000, divisor = 1;
	double loadavg[1] = { 0 };

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strncmp(a, "--syscall-loop", 14) && v) {
			steady_loop((unsigned)atoi(v), !strcmp(a, "--syscall-loop-fd")     ? LOOP_FD
						       : !strcmp(a, "--syscall-loop-idle") ? LOOP_IDLE
											   : LOOP_WAIT);
			return 0;
		}
		if (!v)
			usage();
		if (!strcmp(a, "--part"))
			part = v;
		else if (!strcmp(a, "--jobs"))
			jobs = (unsigned)atoi(v);
		else if (!strcmp(a, "--frames")) {
			if (sscanf(v, "%u,%u", &o.frames[0], &o.frames[1]) == 1)
				o.frames[1] = o.frames[0]; /* one count for both runs */
		}
		else if (!strcmp(a, "--loads"))
			sscanf(v, "%d,%d", &o.loads[0], &o.loads[1]);
		else if (!strcmp(a, "--job-ms"))
			o.job_ms = atof(v);
		else if (!strcmp(a, "--latency-frames"))
			o.latency_frames = atof(v);
		else if (!strcmp(a, "--pipeline"))
			o.pipeline = v;
		else if (!strcmp(a, "--size-divisor"))
			divisor = (unsigned)atoi(v);
		else if (!strcmp(a, "--preempt") && (!strcmp(v, "yes") || !strcmp(v, "no")))
			preempt_points = !strcmp(v, "yes");
		else
			usage();
	}
	if (jobs < 1000 || !o.frames[0] || !o.frames[1] || o.job_ms <= 0 || o.latency_frames <= 0 || divisor < 1 ||
	    divisor > 16)
		usage();
	for (int c = 0; divisor > 1 && c < 3; c++) {
		streams[c].width = (streams[c].width / divisor) & ~1u;
		streams[c].height = (streams[c].height / divisor) & ~1u;
		printf("# %s at 1/%u size: %ux%u\n", streams[c].name, divisor, streams[c].width, streams[c].height);
	}
	getloadavg(loadavg, 1);
	printf("# bench-device: %d workers, %ld CPUs online, load average %.2f at start\n", WORKERS,
	       sysconf(_SC_NPROCESSORS_ONLN), loadavg[0]);
	if (!strcmp(part, "all") || !strcmp(part, "submit")) {
		bench_submit(jobs);
		bench_syscalls();
	}
	if (!strcmp(part, "all") || !strcmp(part, "deadline")) {
		if (!strcmp(o.pipeline, "isp")) {
			printf("# pipeline: the canonical ISP (NV12 output at the input size)\n");
		} else if (!strcmp(o.pipeline, "hw")) {
			sleep_ns_per_pixel = o.job_ms * 1e6 / (3840.0 * 2160.0);
			printf("# pipeline: hardware model, a job holds its worker %.3f ns per pixel without using a CPU "
			       "(a 3840x2160 job %.1f ms)\n", sleep_ns_per_pixel, o.job_ms);
		} else if (!strcmp(o.pipeline, "synthetic")) {
			calibrate_work(o.job_ms);
			printf("# synthetic pipeline: bands of %d rows, %s\n", SYNTHETIC_BAND_ROWS,
			       preempt_points ? "a preemption point between them" : "no preemption points (--preempt no)");
		} else {
			usage();
		}
		run_load(&o, o.loads[0], o.frames[0]);
		run_load(&o, o.loads[1], o.frames[1]);
	}
	return 0;
}
