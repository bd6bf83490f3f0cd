// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Out-fences: one dma_fence per job, on its context's fence timeline (seqno
 * = sequence + 1), handed to user space as a sync_file. A sync_file can be
 * polled, merged with others (SYNC_IOC_MERGE), read for its status and time
 * stamp (SYNC_IOC_FILE_INFO), and given to any driver that takes in-fences,
 * this one included.
 *
 * A fence may outlive its context and its open file (another process may
 * hold its sync_file), so it carries its own lock, and it holds a reference
 * on the module: the module cannot be unloaded while a fence of it is alive.
 */
#include <linux/file.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sync_file.h>

#include "cisp_dev.h"

struct cisp_kfence {
	struct dma_fence base;
	spinlock_t lock; /* the fence's own (dma_fence_init()): it may outlive its context */
	struct cisp_dev *dev;
};

static const char *fence_driver_name(struct dma_fence *fence)
{
	return CISP_DEV_NAME;
}

static const char *fence_timeline_name(struct dma_fence *fence)
{
	return "context";
}

static void fence_release(struct dma_fence *fence)
{
	struct cisp_kfence *f = container_of(fence, struct cisp_kfence, base);

	atomic_dec(&f->dev->live.fences);
	dma_fence_free(fence);
	module_put(THIS_MODULE);
}

static const struct dma_fence_ops cisp_fence_ops = {
	.get_driver_name = fence_driver_name,
	.get_timeline_name = fence_timeline_name,
	.release = fence_release,
};

struct dma_fence *cisp_kfence_create(struct cisp_dev *dev, u64 context, u64 seqno)
{
	struct cisp_kfence *f;

	if (!try_module_get(THIS_MODULE))
		return NULL;
	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f) {
		module_put(THIS_MODULE);
		return NULL;
	}
	spin_lock_init(&f->lock);
	f->dev = dev;
	dma_fence_init(&f->base, &cisp_fence_ops, &f->lock, context, seqno);
	atomic_inc(&dev->live.fences);
	return &f->base;
}

int cisp_kfence_fd(struct dma_fence *fence, struct file **file)
{
	struct sync_file *sync;
	int fd;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;
	sync = sync_file_create(fence);
	if (!sync) {
		put_unused_fd(fd);
		return -ENOMEM;
	}
	*file = sync->file;
	return fd;
}

void cisp_kfence_fd_undo(int fd, struct file *file)
{
	put_unused_fd(fd);
	fput(file);
}

void cisp_kfence_done(struct dma_fence *fence, int error)
{
	if (error)
		dma_fence_set_error(fence, error);
	dma_fence_signal(fence);
}
