/* SPDX-License-Identifier: MIT */
/*
 * cisp-isp-counters.so: what a process did on the virtual canonical ISP,
 * read from the kernel module's own counters. Preloaded (LD_PRELOAD) into a
 * program that uses the device API's kernel backend (tests/vm/gst_vm_test.sh
 * runs gst-launch-1.0 with it), it notes each context the program creates on
 * a cisp-isp file and, just before the program closes that file (which
 * destroys the context), prints the context's CISP_IOC_COUNTERS to stderr:
 *
 *   cisp-isp context 3: submitted 5 completed 5 failed 0 timed-out 0 skipped 0
 *
 * Unlike tracing the program's system calls, this costs nothing per call.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/cisp-isp.h>

/* The contexts seen, by file; a process of the test has a handful. */
#define MAX_CONTEXTS 64

static struct {
	int fd;
	uint32_t id;
} contexts[MAX_CONTEXTS];
static unsigned n_contexts;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int (*next_ioctl)(int, unsigned long, ...);
static int (*next_close)(int);
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void find_next(void)
{
	next_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	next_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
}

int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;
	int ret;

	/* The third argument goes on as the pointer-sized word the kernel takes it as. */
	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	pthread_once(&once, find_next);
	ret = next_ioctl(fd, request, arg);
	if (ret == 0 && request == CISP_IOC_CREATE_CONTEXT) {
		pthread_mutex_lock(&lock);
		if (n_contexts < MAX_CONTEXTS) {
			contexts[n_contexts].fd = fd;
			contexts[n_contexts].id = ((const struct cisp_isp_context *)arg)->id;
			n_contexts++;
		} else {
			fprintf(stderr, "cisp-isp-counters: more than %d contexts, the rest not counted\n", MAX_CONTEXTS);
		}
		pthread_mutex_unlock(&lock);
	}
	return ret;
}

int close(int fd)
{
	pthread_once(&once, find_next);
	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < n_contexts;) {
		if (contexts[i].fd != fd) {
			i++;
			continue;
		}
		struct cisp_isp_counters c = { .context = contexts[i].id };

		if (next_ioctl(fd, CISP_IOC_COUNTERS, &c))
			perror("cisp-isp-counters: CISP_IOC_COUNTERS");
		else
			fprintf(stderr,
				"cisp-isp context %" PRIu32 ": submitted %llu completed %llu failed %llu timed-out %llu "
				"skipped %llu\n",
				c.context, (unsigned long long)c.submitted, (unsigned long long)c.completed,
				(unsigned long long)c.failed, (unsigned long long)c.timed_out,
				(unsigned long long)c.skipped);
		contexts[i] = contexts[--n_contexts];
	}
	pthread_mutex_unlock(&lock);
	return next_close(fd);
}
