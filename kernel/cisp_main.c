// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The virtual canonical ISP: a memory-to-memory ISP device whose "hardware"
 * is the cisp reference pipeline, run by a kernel thread (cisp_sched.c).
 * This file registers /dev/cisp-isp and dispatches its ioctls
 * (include/uapi/linux/cisp-isp.h); the V4L2 front-end (cisp_v4l2.c) drives
 * the same pipe through video nodes.
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <cisp/format.h>
#include <cisp/stats.h>

#include "core/error_internal.h"

#include "cisp_dev.h"
#include "cisp_error.h"

static unsigned int fence_timeout_ms = 5000;
module_param(fence_timeout_ms, uint, 0444);
MODULE_PARM_DESC(fence_timeout_ms,
		 "how long a job waits for its in-fence before it fails with -ETIMEDOUT");

static struct cisp_dev cisp_device;

static const u32 output_formats[] = {
	CISP_FMT_NV12, CISP_FMT_I420, CISP_FMT_RGB888, CISP_FMT_RGB48, CISP_FMT_XBGR32,
};

/* What an instance accepts: read once from a small one, since every instance accepts the same. */
static int read_limits(struct cisp_dev *dev)
{
	const struct cisp_isp_config config = {
		CISP_FMT_SRGGB10, 64, 64, { { CISP_FMT_NV12, 64, 64 } }, NULL
	};
	struct cisp_isp *isp;
	struct cisp_msg msg;
	int ret;

	cisp_msg_begin(&msg);
	ret = cisp_isp_create(&isp, &config);
	cisp_msg_end(&msg);
	if (ret) {
		pr_err("%s: cannot make an ISP instance: %s\n", CISP_DEV_NAME, msg.text);
		return ret;
	}
	cisp_isp_limits(isp, &dev->limits);
	dev->limits.width = 0;
	dev->limits.height = 0;
	cisp_isp_destroy(isp);
	return 0;
}

static void fill_caps(const struct cisp_dev *dev, struct cisp_isp_caps *caps)
{
	static const unsigned int bits[] = { 8, 10, 12, 14, 16 };
	unsigned int i, cfa, packed;

	memset(caps, 0, sizeof(*caps));
	caps->version = CISP_ISP_VERSION;
	caps->params_version = CISP_PARAMS_VERSION;
	caps->stats_version = CISP_STATS_VERSION;
	caps->stats_size = sizeof(struct cisp_stats);
	caps->blocks = dev->limits.blocks;
	caps->demosaic_algorithms = dev->limits.demosaic_algorithms;
	caps->job_modes =
		BIT(CISP_JOB_SINGLE) | BIT(CISP_JOB_SELECT_SHARPEST) | BIT(CISP_JOB_MERGE_HDR);
	caps->min_width = 16;
	caps->min_height = 16;
	caps->max_width = CISP_MAX_DIMENSION;
	caps->max_height = CISP_MAX_DIMENSION;
	caps->max_params_size = CISP_PARAMS_MAX_SIZE;
	caps->max_contexts = CISP_MAX_CONTEXTS;
	caps->max_queue = CISP_MAX_QUEUE;
	caps->pipes = 1;
	for (i = 0; i < ARRAY_SIZE(bits); i++)
		for (packed = 0; packed < 2; packed++)
			for (cfa = 0; cfa < 4; cfa++) {
				u32 f = cisp_bayer_format(cfa, bits[i], packed);

				if (f && caps->num_input_formats < CISP_ISP_MAX_FORMATS)
					caps->input_formats[caps->num_input_formats++] = f;
			}
	for (i = 0; i < ARRAY_SIZE(output_formats); i++)
		caps->output_formats[caps->num_output_formats++] = output_formats[i];
}

static long query_caps(const struct cisp_dev *dev, void __user *arg)
{
	struct cisp_isp_caps caps;

	fill_caps(dev, &caps);
	return copy_to_user(arg, &caps, sizeof(caps)) ? -EFAULT : 0;
}

static long create_context(struct cisp_file *file, void __user *arg)
{
	struct cisp_isp_context config;
	struct cisp_ctx *ctx;
	struct cisp_msg *msg;
	u32 id;
	int ret;

	if (copy_from_user(&config, arg, sizeof(config)))
		return -EFAULT;
	msg = kmalloc(sizeof(*msg), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	cisp_msg_begin(msg);
	ret = cisp_ctx_create(&ctx, file->dev, &config);
	if (!ret) {
		ret = xa_alloc(&file->contexts, &id, ctx, XA_LIMIT(1, CISP_MAX_CONTEXTS),
			       GFP_KERNEL);
		if (ret == -EBUSY)
			ret = cisp_error(-EMFILE, "this file already has %d contexts",
					 CISP_MAX_CONTEXTS);
		if (ret) {
			cisp_ctx_destroy(ctx);
		} else {
			ctx->id = id;
			ctx->counters.context = id;
			config.id = id;
			if (copy_to_user(arg, &config, sizeof(config))) {
				xa_erase(&file->contexts, id);
				cisp_ctx_destroy(ctx);
				ret = -EFAULT;
			}
		}
	}
	cisp_msg_end(msg);
	if (ret && msg->text[0] &&
	    cisp_message_to_user(config.message, config.message_size, msg->text))
		ret = -EFAULT;
	kfree(msg);
	return ret;
}

static long destroy_context(struct cisp_file *file, void __user *arg)
{
	struct cisp_ctx *ctx;
	u32 id;

	if (get_user(id, (u32 __user *)arg))
		return -EFAULT;
	ctx = xa_erase(&file->contexts, id);
	if (!ctx)
		return -ENOENT;
	cisp_ctx_destroy(ctx);
	return 0;
}

struct cisp_ctx *cisp_file_context(struct cisp_file *file, u32 id)
{
	struct cisp_ctx *ctx;

	xa_lock(&file->contexts);
	ctx = xa_load(&file->contexts, id);
	if (ctx)
		kref_get(&ctx->ref);
	xa_unlock(&file->contexts);
	return ctx;
}

static long read_counters(struct cisp_file *file, void __user *arg)
{
	struct cisp_isp_counters *c;
	struct cisp_ctx *ctx;
	long ret = 0;
	u32 id;

	if (get_user(id, (u32 __user *)arg))
		return -EFAULT;
	c = kmalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	ctx = cisp_file_context(file, id);
	if (ctx) {
		cisp_ctx_counters(ctx, c);
		cisp_ctx_put(ctx);
		if (copy_to_user(arg, c, sizeof(*c)))
			ret = -EFAULT;
	} else {
		ret = -ENOENT;
	}
	kfree(c);
	return ret;
}

static long read_job_result(struct cisp_file *file, void __user *arg)
{
	struct cisp_isp_job_result r;
	struct cisp_ctx *ctx;
	long ret;

	if (copy_from_user(&r, arg, sizeof(r)))
		return -EFAULT;
	if (r.reserved0 || memchr_inv(r.reserved, 0, sizeof(r.reserved)))
		return -EINVAL;
	ctx = cisp_file_context(file, r.context);
	if (!ctx)
		return -ENOENT;
	ret = cisp_ctx_result(ctx, &r);
	cisp_ctx_put(ctx);
	if (!ret && copy_to_user(arg, &r, sizeof(r)))
		ret = -EFAULT;
	return ret;
}

static long cisp_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct cisp_file *file = f->private_data;
	void __user *p = (void __user *)arg;

	switch (cmd) {
	case CISP_IOC_QUERY_CAPS:
		return query_caps(file->dev, p);
	case CISP_IOC_CREATE_CONTEXT:
		return create_context(file, p);
	case CISP_IOC_DESTROY_CONTEXT:
		return destroy_context(file, p);
	case CISP_IOC_SUBMIT:
		return cisp_submit_ioctl(file, p);
	case CISP_IOC_COUNTERS:
		return read_counters(file, p);
	case CISP_IOC_ALLOC_BUFFER:
		return cisp_buffer_alloc_ioctl(file->dev, p);
	case CISP_IOC_JOB_RESULT:
		return read_job_result(file, p);
	default:
		return -ENOTTY;
	}
}

static int cisp_open(struct inode *inode, struct file *f)
{
	struct cisp_file *file = kzalloc(sizeof(*file), GFP_KERNEL);

	if (!file)
		return -ENOMEM;
	file->dev = &cisp_device;
	xa_init_flags(&file->contexts, XA_FLAGS_ALLOC1);
	f->private_data = file;
	return nonseekable_open(inode, f);
}

/*
 * The last reference to the file is gone (closed, or its process died):
 * every waiting job of every context is cancelled first, so that none of
 * them starts while another context waits for its running job; then the
 * contexts go.
 */
static int cisp_release(struct inode *inode, struct file *f)
{
	struct cisp_file *file = f->private_data;
	struct cisp_ctx *ctx;
	unsigned long id;

	xa_for_each(&file->contexts, id, ctx)
		cisp_sched_cancel(ctx);
	xa_for_each(&file->contexts, id, ctx) {
		xa_erase(&file->contexts, id);
		cisp_ctx_destroy(ctx);
	}
	xa_destroy(&file->contexts);
	kfree(file);
	return 0;
}

static const struct file_operations cisp_fops = {
	.owner = THIS_MODULE,
	.open = cisp_open,
	.release = cisp_release,
	.unlocked_ioctl = cisp_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = no_llseek,
};

static int __init cisp_init(void)
{
	struct cisp_dev *dev = &cisp_device;
	int ret;

	ret = read_limits(dev);
	if (ret)
		return ret;
	spin_lock_init(&dev->lock);
	INIT_LIST_HEAD(&dev->contexts);
	init_waitqueue_head(&dev->wake);
	init_waitqueue_head(&dev->idle);
	dev->fence_timeout_ns = (u64)fence_timeout_ms * NSEC_PER_MSEC;
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = CISP_DEV_NAME;
	dev->misc.fops = &cisp_fops;
	dev->misc.mode = 0666;
	ret = cisp_sched_start(dev);
	if (ret)
		return ret;
	/* The V4L2 nodes' parent is the character device. */
	ret = misc_register(&dev->misc);
	if (ret)
		goto fail_sched;
	ret = cisp_v4l2_register(dev);
	if (ret)
		goto fail_misc;
	return 0;

fail_misc:
	misc_deregister(&dev->misc);
fail_sched:
	cisp_sched_stop(dev);
	return ret;
}

static void __exit cisp_exit(void)
{
	struct cisp_dev *dev = &cisp_device;
	int contexts, jobs, fences, buffers;

	cisp_v4l2_unregister(dev);
	misc_deregister(&dev->misc);
	cisp_sched_stop(dev);
	contexts = atomic_read(&dev->live.contexts);
	jobs = atomic_read(&dev->live.jobs);
	fences = atomic_read(&dev->live.fences);
	buffers = atomic_read(&dev->live.buffers);
	if (contexts || jobs || fences || buffers)
		pr_err("%s: unloaded with %d contexts, %d jobs, %d fences and %d buffers still allocated\n",
		       CISP_DEV_NAME, contexts, jobs, fences, buffers);
	else
		pr_info("%s: unloaded, nothing left allocated\n", CISP_DEV_NAME);
}

module_init(cisp_init);
module_exit(cisp_exit);
MODULE_DESCRIPTION("Virtual canonical ISP: the cisp reference pipeline behind a job ioctl and V4L2 nodes");
MODULE_LICENSE("Dual MIT/GPL");
MODULE_IMPORT_NS(DMA_BUF);
