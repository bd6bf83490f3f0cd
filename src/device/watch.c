/* SPDX-License-Identifier: MIT */
/*
 * The watcher: a thread per device, started when a job first waits for an
 * imported descriptor, that sleeps in epoll_wait() on every such descriptor
 * and signals its fence when it becomes readable (or fails). The job then
 * becomes ready through the fence's callbacks, with no call from the caller.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cisp/log.h>

#include "core/error_internal.h"
#include "device/device_internal.h"

struct watch {
	struct watch *next;
	struct cisp_fence *fence; /* a reference */
};

struct watcher {
	int epfd;
	int wake_fd; /* written to stop the thread */
	pthread_t thread;
	struct watch *list;
};

static short poll_events(uint32_t e)
{
	return (short)(((e & EPOLLIN) ? POLLIN : 0) | ((e & EPOLLERR) ? POLLERR : 0) | ((e & EPOLLHUP) ? POLLHUP : 0));
}

/* Take @w off the list and epoll (watcher lock held). */
static void unwatch(struct cisp_device *dev, struct watch *w)
{
	struct watcher *wt = dev->watcher;

	for (struct watch **p = &wt->list; *p; p = &(*p)->next) {
		if (*p == w) {
			*p = w->next;
			break;
		}
	}
	epoll_ctl(wt->epfd, EPOLL_CTL_DEL, w->fence->import_fd, NULL);
}

static void *watcher_main(void *arg)
{
	struct cisp_device *dev = arg;
	struct watcher *wt = dev->watcher;
	struct epoll_event ev[16];

	for (;;) {
		int n = epoll_wait(wt->epfd, ev, 16, -1);

		for (int i = 0; i < n; i++) {
			struct watch *w = ev[i].data.ptr;

			if (!w)
				return NULL; /* the wake descriptor: stop */
			pthread_mutex_lock(&dev->watcher_lock);
			unwatch(dev, w);
			pthread_mutex_unlock(&dev->watcher_lock);
			fence_signal_from_revents(w->fence, poll_events(ev[i].events));
			cisp_fence_unref(w->fence);
			free(w);
		}
	}
}

static int watcher_start(struct cisp_device *dev)
{
	struct watcher *wt = calloc(1, sizeof(*wt));
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	int ret;

	if (!wt)
		return -ENOMEM;
	wt->epfd = epoll_create1(EPOLL_CLOEXEC);
	wt->wake_fd = eventfd(0, EFD_CLOEXEC);
	if (wt->epfd < 0 || wt->wake_fd < 0 || epoll_ctl(wt->epfd, EPOLL_CTL_ADD, wt->wake_fd, &ev) < 0) {
		ret = -errno;
		goto fail;
	}
	dev->watcher = wt;
	ret = -pthread_create(&wt->thread, NULL, watcher_main, dev);
	if (!ret)
		return 0;
	dev->watcher = NULL;
fail:
	if (wt->epfd >= 0)
		close(wt->epfd);
	if (wt->wake_fd >= 0)
		close(wt->wake_fd);
	free(wt);
	return ret;
}

void watcher_add(struct cisp_device *dev, struct cisp_fence *fence)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct watch *w;
	int ret = 0;

	if (cisp_fence_status(fence) != CISP_FENCE_PENDING)
		return;
	pthread_mutex_lock(&dev->watcher_lock);
	if (!dev->watcher && (ret = watcher_start(dev)))
		goto out;
	for (w = dev->watcher->list; w; w = w->next)
		if (w->fence == fence)
			goto out; /* already watched */
	w = malloc(sizeof(*w));
	if (!w) {
		ret = -ENOMEM;
		goto out;
	}
	w->fence = cisp_fence_ref(fence);
	ev.data.ptr = w;
	if (epoll_ctl(dev->watcher->epfd, EPOLL_CTL_ADD, fence->import_fd, &ev) < 0) {
		ret = -errno;
		cisp_fence_unref(fence);
		free(w);
		goto out;
	}
	w->next = dev->watcher->list;
	dev->watcher->list = w;
out:
	pthread_mutex_unlock(&dev->watcher_lock);
	if (ret) {
		/* Without a watcher the job would wait for ever: fail the fence instead. */
		cisp_log(CISP_LOG_ERROR, "device: cannot watch an imported fence descriptor: %s", strerror(-ret));
		fence_signal(fence, CISP_FENCE_ERROR, ret);
	}
}

void watcher_destroy(struct cisp_device *dev)
{
	struct watcher *wt = dev->watcher;

	if (!wt)
		return;
	eventfd_write(wt->wake_fd, 1);
	pthread_join(wt->thread, NULL);
	while (wt->list) {
		struct watch *w = wt->list;

		unwatch(dev, w);
		cisp_fence_unref(w->fence);
		free(w);
	}
	close(wt->epfd);
	close(wt->wake_fd);
	free(wt);
	dev->watcher = NULL;
}
