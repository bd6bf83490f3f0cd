// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The V4L2 front-end: the same pipe behind four video nodes, as the kernel's
 * memory-to-memory ISP drivers present themselves (ipu3-imgu, rkisp1's
 * params and statistics nodes):
 *
 *   cisp-isp input   VIDEO_OUTPUT  the raw Bayer frames
 *   cisp-isp params  META_OUTPUT   params deltas of the cisp ABI ('CISP')
 *   cisp-isp main    VIDEO_CAPTURE the processed frames (YU12, RGB3, XR24)
 *   cisp-isp stats   META_CAPTURE  the statistics (struct cisp_stats, 'CIST')
 *
 * While the input and main nodes stream, each time every streaming node has
 * a buffer queued, one buffer of each becomes one job of the pipe, on one
 * context made at stream start from the nodes' formats. The params and
 * statistics nodes are optional: a node that does not stream takes no part.
 * A params buffer is copied and validated when it is queued (QBUF fails
 * with EINVAL for a bad one, the reason in the kernel log at debug level),
 * so what the job applies is what was checked.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <media/v4l2-device.h>
#include <media/v4l2-fh.h>
#include <media/v4l2-ioctl.h>
#include <media/videobuf2-v4l2.h>
#include <media/videobuf2-vmalloc.h>

#include <cisp/format.h>
#include <cisp/params_state.h>
#include <cisp/stats.h>

#include "cisp_dev.h"
#include "cisp_error.h"

#define V4L2_META_FMT_CISP_PARAMS v4l2_fourcc('C', 'I', 'S', 'P')
#define V4L2_META_FMT_CISP_STATS v4l2_fourcc('C', 'I', 'S', 'T')

enum node_id { NODE_INPUT, NODE_PARAMS, NODE_MAIN, NODE_STATS, NUM_NODES };

struct cisp_v4l2_buffer {
	struct vb2_v4l2_buffer vb;
	struct list_head list;
	void *params; /* NODE_PARAMS: the copy validated at QBUF */
	u32 params_size;
};

struct cisp_node {
	struct cisp_v4l2 *v;
	enum node_id id;
	struct video_device vdev;
	struct vb2_queue queue;
	struct list_head ready; /* queued buffers not yet in a job (v->lock) */
	bool streaming; /* v->lock */
};

struct cisp_v4l2 {
	struct cisp_dev *dev;
	struct v4l2_device v4l2_dev;
	struct mutex ioctl_lock; /* every node's ioctls and vb2 queues */
	spinlock_t lock; /* the nodes' ready buffers and streaming state, @ctx */
	struct cisp_node node[NUM_NODES];
	struct v4l2_pix_format input, main;
	struct cisp_ctx *ctx; /* while input and main stream */
	u32 sequence;
	struct cisp_params_limits limits; /* for params validated before a context exists */
};

/* The buffers of one job, returned when it is done. */
struct v4l2_job {
	struct cisp_v4l2 *v;
	struct cisp_v4l2_buffer *buf[NUM_NODES];
};

static const char *const node_names[NUM_NODES] = {
	CISP_DEV_NAME " input",
	CISP_DEV_NAME " params",
	CISP_DEV_NAME " main",
	CISP_DEV_NAME " stats",
};

/*
 * NV12 is left out: Debian 12's v4l2-compliance (v4l-utils 1.22.1) expects
 * the description "Y/CbCr 4:2:0" that Linux 6.1 renamed "Y/UV 4:2:0", and
 * fails every driver that offers it (docs/kernel-uapi.md). The job ioctl
 * has it.
 */
static const u32 main_formats[] = { CISP_FMT_I420, CISP_FMT_RGB888, CISP_FMT_XBGR32 };

static struct cisp_v4l2_buffer *to_buf(struct vb2_buffer *vb)
{
	return container_of(to_vb2_v4l2_buffer(vb), struct cisp_v4l2_buffer, vb);
}

static u32 input_format(unsigned int index)
{
	static const unsigned int bits[] = { 8, 10, 12, 14, 16 };
	unsigned int n = 0, i, packed, cfa;

	for (i = 0; i < ARRAY_SIZE(bits); i++)
		for (packed = 0; packed < 2; packed++)
			for (cfa = 0; cfa < 4; cfa++) {
				u32 f = cisp_bayer_format(cfa, bits[i], packed);

				if (f && n++ == index)
					return f;
			}
	return 0;
}

/* ---- jobs ------------------------------------------------------------------- */

static void return_buffer(struct cisp_v4l2_buffer *b, enum vb2_buffer_state state)
{
	kvfree(b->params);
	b->params = NULL;
	vb2_buffer_done(&b->vb.vb2_buf, state);
}

static void try_run(struct cisp_v4l2 *v);

static void v4l2_job_done(struct cisp_kjob *job, int error)
{
	struct v4l2_job *vj = job->owner;
	struct cisp_v4l2_buffer *in = vj->buf[NODE_INPUT];
	enum vb2_buffer_state state = error ? VB2_BUF_STATE_ERROR : VB2_BUF_STATE_DONE;
	unsigned int i;

	for (i = NODE_PARAMS; i < NUM_NODES; i++) {
		struct cisp_v4l2_buffer *b = vj->buf[i];

		if (!b)
			continue;
		b->vb.sequence = in->vb.sequence;
		b->vb.vb2_buf.timestamp = in->vb.vb2_buf.timestamp;
		b->vb.field = V4L2_FIELD_NONE;
		return_buffer(b, state);
	}
	return_buffer(in, state);
	cisp_kjob_free(job);
	try_run(vj->v);
	kfree(vj);
}

static void image_of(struct cisp_kjob_image *im, struct vb2_buffer *vb, u32 format, u32 width,
		     u32 height)
{
	size_t row, rows, offset = 0;
	unsigned int p;

	im->vaddr = vb2_plane_vaddr(vb, 0);
	im->size = vb2_plane_size(vb, 0);
	im->num_planes = cisp_format_info(format)->planes;
	for (p = 0; p < im->num_planes; p++) {
		cisp_image_plane_size(format, width, height, p, &row, &rows);
		im->plane[p].offset = offset;
		im->plane[p].stride = row;
		offset += row * rows;
	}
}

/* Take one buffer of each streaming node, if each has one (v->lock held); false if not. */
static bool take_buffers(struct cisp_v4l2 *v, struct v4l2_job *vj)
{
	unsigned int i;

	if (!v->ctx || !v->node[NODE_INPUT].streaming || !v->node[NODE_MAIN].streaming)
		return false;
	for (i = 0; i < NUM_NODES; i++)
		if (v->node[i].streaming && list_empty(&v->node[i].ready))
			return false;
	for (i = 0; i < NUM_NODES; i++) {
		vj->buf[i] = NULL;
		if (!v->node[i].streaming)
			continue;
		vj->buf[i] = list_first_entry(&v->node[i].ready, struct cisp_v4l2_buffer, list);
		list_del(&vj->buf[i]->list);
	}
	return true;
}

static void give_back(struct cisp_v4l2 *v, struct v4l2_job *vj)
{
	unsigned int i;

	spin_lock_irq(&v->lock);
	for (i = 0; i < NUM_NODES; i++)
		if (vj->buf[i])
			list_add(&vj->buf[i]->list, &v->node[i].ready);
	spin_unlock_irq(&v->lock);
}

/* One job of the next buffer of each streaming node, if each has one; submit_lock held. */
static bool queue_one(struct cisp_v4l2 *v, struct cisp_ctx *ctx)
{
	struct v4l2_job *vj = kzalloc(sizeof(*vj), GFP_KERNEL);
	struct cisp_v4l2_buffer *params, *stats;
	struct cisp_kjob *job;
	bool taken;

	if (!vj)
		return false;
	vj->v = v;
	spin_lock_irq(&v->lock);
	taken = v->ctx == ctx && take_buffers(v, vj);
	spin_unlock_irq(&v->lock);
	job = taken ? cisp_kjob_alloc(ctx) : NULL;
	if (!job) {
		if (taken)
			give_back(v, vj);
		kfree(vj);
		return false;
	}
	job->done = v4l2_job_done;
	job->owner = vj;
	job->num_inputs = 1;
	job->mode = CISP_JOB_SINGLE;
	image_of(&job->input[0], &vj->buf[NODE_INPUT]->vb.vb2_buf, v->input.pixelformat,
		 v->input.width, v->input.height);
	image_of(&job->output[0], &vj->buf[NODE_MAIN]->vb.vb2_buf, v->main.pixelformat,
		 v->main.width, v->main.height);
	vb2_set_plane_payload(&vj->buf[NODE_MAIN]->vb.vb2_buf, 0, v->main.sizeimage);
	stats = vj->buf[NODE_STATS];
	if (stats) {
		job->stats.vaddr = vb2_plane_vaddr(&stats->vb.vb2_buf, 0);
		job->stats.size = sizeof(struct cisp_stats);
		vb2_set_plane_payload(&stats->vb.vb2_buf, 0, sizeof(struct cisp_stats));
	}
	params = vj->buf[NODE_PARAMS];
	if (params && params->params) {
		job->params = params->params;
		job->params_size = params->params_size;
		params->params = NULL;
	}
	vj->buf[NODE_INPUT]->vb.sequence = v->sequence++;
	job->sequence = ctx->next_sequence++;
	job->submit_ns = cisp_clock_ns();
	job->deadline_ns = U64_MAX;
	cisp_sched_queue(job);
	return true;
}

/*
 * Make jobs of the buffers queued on every streaming node while the context
 * has room; under its submit_lock, so that jobs are queued in the order of
 * the buffers and each params buffer goes with the frame it was queued for.
 */
static void try_run(struct cisp_v4l2 *v)
{
	struct cisp_ctx *ctx;

	spin_lock_irq(&v->lock);
	ctx = v->ctx;
	if (ctx)
		kref_get(&ctx->ref);
	spin_unlock_irq(&v->lock);
	if (!ctx)
		return;
	mutex_lock(&ctx->submit_lock);
	while (!cisp_sched_room(ctx) && queue_one(v, ctx))
		;
	mutex_unlock(&ctx->submit_lock);
	cisp_ctx_put(ctx);
}

/* Input and main stream: make the context their formats say. */
static int start_context(struct cisp_v4l2 *v)
{
	struct cisp_isp_context config = { 0 };
	struct cisp_ctx *ctx;
	struct cisp_msg msg;
	int ret;

	config.input = (struct cisp_isp_format){ v->input.pixelformat, v->input.width,
						 v->input.height, 0 };
	config.output[0] =
		(struct cisp_isp_format){ v->main.pixelformat, v->main.width, v->main.height, 0 };
	config.queue_limit = CISP_MAX_QUEUE;
	cisp_msg_begin(&msg);
	ret = cisp_ctx_create(&ctx, v->dev, &config);
	cisp_msg_end(&msg);
	if (ret) {
		v4l2_dbg(1, 1, &v->v4l2_dev, "cannot start: %s\n", msg.text);
		return ret;
	}
	v->sequence = 0;
	spin_lock_irq(&v->lock);
	v->ctx = ctx;
	spin_unlock_irq(&v->lock);
	return 0;
}

/* A node stops: the context goes (its waiting jobs return their buffers with an error). */
static void stop_context(struct cisp_v4l2 *v)
{
	struct cisp_ctx *ctx;

	spin_lock_irq(&v->lock);
	ctx = v->ctx;
	v->ctx = NULL;
	spin_unlock_irq(&v->lock);
	if (ctx)
		cisp_ctx_destroy(ctx);
}

/* ---- vb2 -------------------------------------------------------------------- */

static unsigned int node_size(struct cisp_node *n)
{
	switch (n->id) {
	case NODE_INPUT:
		return n->v->input.sizeimage;
	case NODE_MAIN:
		return n->v->main.sizeimage;
	case NODE_PARAMS:
		return CISP_PARAMS_MAX_SIZE;
	default:
		return sizeof(struct cisp_stats);
	}
}

static int queue_setup(struct vb2_queue *q, unsigned int *count, unsigned int *planes,
		       unsigned int sizes[], struct device *alloc_devs[])
{
	struct cisp_node *n = vb2_get_drv_priv(q);
	unsigned int size = node_size(n);

	if (*planes)
		return *planes != 1 || sizes[0] < size ? -EINVAL : 0;
	*planes = 1;
	sizes[0] = size;
	return 0;
}

static int buf_init(struct vb2_buffer *vb)
{
	INIT_LIST_HEAD(&to_buf(vb)->list);
	return 0;
}

static int buf_out_validate(struct vb2_buffer *vb)
{
	to_vb2_v4l2_buffer(vb)->field = V4L2_FIELD_NONE;
	return 0;
}

/* Params: copy what user space wrote and validate it all now; the job applies the copy. */
static int prepare_params(struct cisp_node *n, struct cisp_v4l2_buffer *b)
{
	u32 size = vb2_get_plane_payload(&b->vb.vb2_buf, 0);
	struct cisp_msg *msg;
	int ret;

	kvfree(b->params);
	b->params = NULL;
	b->params_size = 0;
	if (!size)
		return 0;
	b->params = kvmalloc(size, GFP_KERNEL_ACCOUNT);
	msg = kmalloc(sizeof(*msg), GFP_KERNEL);
	if (!b->params || !msg) {
		kfree(msg);
		return -ENOMEM;
	}
	memcpy(b->params, vb2_plane_vaddr(&b->vb.vb2_buf, 0), size);
	b->params_size = size;
	cisp_msg_begin(msg);
	n->v->limits.width = n->v->input.width;
	n->v->limits.height = n->v->input.height;
	ret = cisp_params_validate(b->params, size, &n->v->limits);
	cisp_msg_end(msg);
	if (ret) {
		v4l2_dbg(1, 1, &n->v->v4l2_dev, "params buffer %u refused: %s\n",
			 b->vb.vb2_buf.index, msg->text);
		kvfree(b->params);
		b->params = NULL;
		ret = -EINVAL;
	}
	kfree(msg);
	return ret;
}

static int buf_prepare(struct vb2_buffer *vb)
{
	struct cisp_node *n = vb2_get_drv_priv(vb->vb2_queue);

	if (vb2_plane_size(vb, 0) < node_size(n) || !vb2_plane_vaddr(vb, 0))
		return -EINVAL;
	if (n->id == NODE_PARAMS)
		return prepare_params(n, to_buf(vb));
	if (n->id == NODE_INPUT && vb2_get_plane_payload(vb, 0) < n->v->input.sizeimage)
		return -EINVAL;
	return 0;
}

static void buf_cleanup(struct vb2_buffer *vb)
{
	struct cisp_v4l2_buffer *b = to_buf(vb);

	kvfree(b->params);
	b->params = NULL;
}

static void buf_queue(struct vb2_buffer *vb)
{
	struct cisp_node *n = vb2_get_drv_priv(vb->vb2_queue);

	spin_lock_irq(&n->v->lock);
	list_add_tail(&to_buf(vb)->list, &n->ready);
	spin_unlock_irq(&n->v->lock);
	try_run(n->v);
}

static void return_ready(struct cisp_node *n, enum vb2_buffer_state state)
{
	struct cisp_v4l2_buffer *b, *next;
	LIST_HEAD(list);

	spin_lock_irq(&n->v->lock);
	list_splice_init(&n->ready, &list);
	spin_unlock_irq(&n->v->lock);
	list_for_each_entry_safe(b, next, &list, list) {
		list_del(&b->list);
		return_buffer(b, state);
	}
}

static int start_streaming(struct vb2_queue *q, unsigned int count)
{
	struct cisp_node *n = vb2_get_drv_priv(q);
	struct cisp_v4l2 *v = n->v;
	bool start;
	int ret = 0;

	spin_lock_irq(&v->lock);
	n->streaming = true;
	start = v->node[NODE_INPUT].streaming && v->node[NODE_MAIN].streaming && !v->ctx;
	spin_unlock_irq(&v->lock);
	if (start)
		ret = start_context(v);
	if (ret) {
		spin_lock_irq(&v->lock);
		n->streaming = false;
		spin_unlock_irq(&v->lock);
		return_ready(n, VB2_BUF_STATE_QUEUED);
		return ret;
	}
	try_run(v);
	return 0;
}

static void stop_streaming(struct vb2_queue *q)
{
	struct cisp_node *n = vb2_get_drv_priv(q);
	struct cisp_v4l2 *v = n->v;

	bool restart;

	spin_lock_irq(&v->lock);
	n->streaming = false;
	restart = v->node[NODE_INPUT].streaming && v->node[NODE_MAIN].streaming;
	spin_unlock_irq(&v->lock);
	/* Jobs hold buffers of every node: they go with the context, then the node's own. */
	stop_context(v);
	return_ready(n, VB2_BUF_STATE_ERROR);
	/* The params or statistics node stopped: the others go on, on a new context. */
	if (restart && !start_context(v))
		try_run(v);
}

static const struct vb2_ops cisp_vb2_ops = {
	.queue_setup = queue_setup,
	.buf_init = buf_init,
	.buf_out_validate = buf_out_validate,
	.buf_prepare = buf_prepare,
	.buf_cleanup = buf_cleanup,
	.buf_queue = buf_queue,
	.start_streaming = start_streaming,
	.stop_streaming = stop_streaming,
	.wait_prepare = vb2_ops_wait_prepare,
	.wait_finish = vb2_ops_wait_finish,
};

/* ---- formats ---------------------------------------------------------------- */

/* @f adjusted to what the ISP takes: a size within its limits and its format's rules. */
static void adjust_pix(struct v4l2_pix_format *f, bool input)
{
	const struct cisp_format_info *info = cisp_format_info(f->pixelformat);
	unsigned int i;
	size_t row, rows, size = 0;

	if (input && (!info || info->kind != CISP_KIND_BAYER))
		f->pixelformat = CISP_FMT_SRGGB10;
	if (!input) {
		for (i = 0; i < ARRAY_SIZE(main_formats) && main_formats[i] != f->pixelformat; i++)
			;
		if (i == ARRAY_SIZE(main_formats))
			f->pixelformat = main_formats[0];
	}
	info = cisp_format_info(f->pixelformat);
	f->width = clamp_t(u32, f->width, input ? 16 : 2, CISP_MAX_DIMENSION) & ~1u;
	f->height = clamp_t(u32, f->height, input ? 16 : 2, CISP_MAX_DIMENSION) & ~1u;
	if (info->packed && info->bits == 10)
		f->width &= ~3u;
	for (i = 0; i < info->planes; i++) {
		cisp_image_plane_size(f->pixelformat, f->width, f->height, i, &row, &rows);
		if (i == 0)
			f->bytesperline = row;
		size += row * rows;
	}
	f->sizeimage = size;
	f->field = V4L2_FIELD_NONE;
	/* The main output's colorimetry is the default params' (BT.709, limited range YCbCr). */
	f->colorspace = input ? V4L2_COLORSPACE_RAW : V4L2_COLORSPACE_REC709;
	f->xfer_func = input ? V4L2_XFER_FUNC_NONE : V4L2_XFER_FUNC_709;
	f->ycbcr_enc = info->kind == CISP_KIND_YUV ? V4L2_YCBCR_ENC_709 : V4L2_YCBCR_ENC_DEFAULT;
	f->quantization = info->kind == CISP_KIND_YUV ? V4L2_QUANTIZATION_LIM_RANGE
						      : V4L2_QUANTIZATION_FULL_RANGE;
	f->flags = 0;
}

static struct cisp_node *node_of(struct file *file)
{
	return video_drvdata(file);
}

static int querycap(struct file *file, void *fh, struct v4l2_capability *cap)
{
	strscpy(cap->driver, CISP_DEV_NAME, sizeof(cap->driver));
	strscpy(cap->card, "cisp virtual canonical ISP", sizeof(cap->card));
	strscpy(cap->bus_info, "platform:" CISP_DEV_NAME, sizeof(cap->bus_info));
	return 0;
}

static int enum_fmt_input(struct file *file, void *fh, struct v4l2_fmtdesc *f)
{
	f->pixelformat = input_format(f->index);
	return f->pixelformat ? 0 : -EINVAL;
}

static int enum_fmt_main(struct file *file, void *fh, struct v4l2_fmtdesc *f)
{
	if (f->index >= ARRAY_SIZE(main_formats))
		return -EINVAL;
	f->pixelformat = main_formats[f->index];
	return 0;
}

static int g_fmt_pix(struct file *file, void *fh, struct v4l2_format *f)
{
	struct cisp_node *n = node_of(file);

	f->fmt.pix = n->id == NODE_INPUT ? n->v->input : n->v->main;
	return 0;
}

static int try_fmt_pix(struct file *file, void *fh, struct v4l2_format *f)
{
	adjust_pix(&f->fmt.pix, node_of(file)->id == NODE_INPUT);
	return 0;
}

static int s_fmt_pix(struct file *file, void *fh, struct v4l2_format *f)
{
	struct cisp_node *n = node_of(file);

	if (vb2_is_busy(&n->queue))
		return -EBUSY;
	adjust_pix(&f->fmt.pix, n->id == NODE_INPUT);
	if (n->id == NODE_INPUT)
		n->v->input = f->fmt.pix;
	else
		n->v->main = f->fmt.pix;
	return 0;
}

static u32 meta_format(struct cisp_node *n)
{
	return n->id == NODE_PARAMS ? V4L2_META_FMT_CISP_PARAMS : V4L2_META_FMT_CISP_STATS;
}

static int enum_fmt_meta(struct file *file, void *fh, struct v4l2_fmtdesc *f)
{
	struct cisp_node *n = node_of(file);

	if (f->index)
		return -EINVAL;
	f->pixelformat = meta_format(n);
	strscpy(f->description, n->id == NODE_PARAMS ? "cisp params" : "cisp statistics",
		sizeof(f->description));
	return 0;
}

static int g_fmt_meta(struct file *file, void *fh, struct v4l2_format *f)
{
	struct cisp_node *n = node_of(file);

	memset(&f->fmt.meta, 0, sizeof(f->fmt.meta));
	f->fmt.meta.dataformat = meta_format(n);
	f->fmt.meta.buffersize = node_size(n);
	return 0;
}

/* One input (capture nodes) or output (output nodes), always selected: the ISP itself. */
static int enum_input(struct file *file, void *fh, struct v4l2_input *i)
{
	if (i->index)
		return -EINVAL;
	strscpy(i->name, CISP_DEV_NAME, sizeof(i->name));
	i->type = V4L2_INPUT_TYPE_CAMERA;
	return 0;
}

static int enum_output(struct file *file, void *fh, struct v4l2_output *o)
{
	if (o->index)
		return -EINVAL;
	strscpy(o->name, CISP_DEV_NAME, sizeof(o->name));
	o->type = V4L2_OUTPUT_TYPE_ANALOG;
	return 0;
}

static int g_io(struct file *file, void *fh, unsigned int *i)
{
	*i = 0;
	return 0;
}

static int s_io(struct file *file, void *fh, unsigned int i)
{
	return i ? -EINVAL : 0;
}

static const struct v4l2_ioctl_ops cisp_ioctl_ops = {
	.vidioc_querycap = querycap,
	.vidioc_enum_input = enum_input,
	.vidioc_g_input = g_io,
	.vidioc_s_input = s_io,
	.vidioc_enum_output = enum_output,
	.vidioc_g_output = g_io,
	.vidioc_s_output = s_io,
	.vidioc_enum_fmt_vid_out = enum_fmt_input,
	.vidioc_g_fmt_vid_out = g_fmt_pix,
	.vidioc_try_fmt_vid_out = try_fmt_pix,
	.vidioc_s_fmt_vid_out = s_fmt_pix,
	.vidioc_enum_fmt_vid_cap = enum_fmt_main,
	.vidioc_g_fmt_vid_cap = g_fmt_pix,
	.vidioc_try_fmt_vid_cap = try_fmt_pix,
	.vidioc_s_fmt_vid_cap = s_fmt_pix,
	.vidioc_enum_fmt_meta_out = enum_fmt_meta,
	.vidioc_g_fmt_meta_out = g_fmt_meta,
	.vidioc_try_fmt_meta_out = g_fmt_meta,
	.vidioc_s_fmt_meta_out = g_fmt_meta,
	.vidioc_enum_fmt_meta_cap = enum_fmt_meta,
	.vidioc_g_fmt_meta_cap = g_fmt_meta,
	.vidioc_try_fmt_meta_cap = g_fmt_meta,
	.vidioc_s_fmt_meta_cap = g_fmt_meta,
	.vidioc_reqbufs = vb2_ioctl_reqbufs,
	.vidioc_create_bufs = vb2_ioctl_create_bufs,
	.vidioc_prepare_buf = vb2_ioctl_prepare_buf,
	.vidioc_querybuf = vb2_ioctl_querybuf,
	.vidioc_qbuf = vb2_ioctl_qbuf,
	.vidioc_dqbuf = vb2_ioctl_dqbuf,
	.vidioc_expbuf = vb2_ioctl_expbuf,
	.vidioc_streamon = vb2_ioctl_streamon,
	.vidioc_streamoff = vb2_ioctl_streamoff,
};

static const struct v4l2_file_operations cisp_v4l2_fops = {
	.owner = THIS_MODULE,
	.open = v4l2_fh_open,
	.release = vb2_fop_release,
	.poll = vb2_fop_poll,
	.mmap = vb2_fop_mmap,
	.unlocked_ioctl = video_ioctl2,
};

/* ---- registration ------------------------------------------------------------ */

static const struct {
	u32 caps;
	u32 type;
	enum vfl_devnode_direction dir;
} node_kinds[NUM_NODES] = {
	[NODE_INPUT] = { V4L2_CAP_VIDEO_OUTPUT, V4L2_BUF_TYPE_VIDEO_OUTPUT, VFL_DIR_TX },
	[NODE_PARAMS] = { V4L2_CAP_META_OUTPUT, V4L2_BUF_TYPE_META_OUTPUT, VFL_DIR_TX },
	[NODE_MAIN] = { V4L2_CAP_VIDEO_CAPTURE, V4L2_BUF_TYPE_VIDEO_CAPTURE, VFL_DIR_RX },
	[NODE_STATS] = { V4L2_CAP_META_CAPTURE, V4L2_BUF_TYPE_META_CAPTURE, VFL_DIR_RX },
};

static int register_node(struct cisp_v4l2 *v, enum node_id id)
{
	struct cisp_node *n = &v->node[id];
	struct vb2_queue *q = &n->queue;
	int ret;

	n->v = v;
	n->id = id;
	INIT_LIST_HEAD(&n->ready);
	q->type = node_kinds[id].type;
	q->io_modes = VB2_MMAP | VB2_USERPTR | VB2_DMABUF;
	q->drv_priv = n;
	q->buf_struct_size = sizeof(struct cisp_v4l2_buffer);
	q->ops = &cisp_vb2_ops;
	q->mem_ops = &vb2_vmalloc_memops;
	q->timestamp_flags = V4L2_BUF_FLAG_TIMESTAMP_COPY;
	q->lock = &v->ioctl_lock;
	q->dev = v->dev->misc.this_device;
	/* An empty params buffer is allowed: it changes nothing. */
	q->allow_zero_bytesused = id == NODE_PARAMS;
	ret = vb2_queue_init(q);
	if (ret)
		return ret;
	strscpy(n->vdev.name, node_names[id], sizeof(n->vdev.name));
	n->vdev.fops = &cisp_v4l2_fops;
	n->vdev.ioctl_ops = &cisp_ioctl_ops;
	n->vdev.release = video_device_release_empty;
	n->vdev.v4l2_dev = &v->v4l2_dev;
	n->vdev.queue = q;
	n->vdev.lock = &v->ioctl_lock;
	n->vdev.vfl_dir = node_kinds[id].dir;
	n->vdev.device_caps = node_kinds[id].caps | V4L2_CAP_STREAMING;
	video_set_drvdata(&n->vdev, n);
	return video_register_device(&n->vdev, VFL_TYPE_VIDEO, -1);
}

int cisp_v4l2_register(struct cisp_dev *dev)
{
	struct cisp_v4l2 *v = kzalloc(sizeof(*v), GFP_KERNEL);
	unsigned int i;
	int ret;

	if (!v)
		return -ENOMEM;
	v->dev = dev;
	mutex_init(&v->ioctl_lock);
	spin_lock_init(&v->lock);
	v->input.pixelformat = CISP_FMT_SRGGB10;
	v->input.width = 640;
	v->input.height = 480;
	adjust_pix(&v->input, true);
	v->main.pixelformat = CISP_FMT_I420;
	v->main.width = 640;
	v->main.height = 480;
	adjust_pix(&v->main, false);
	v->limits.blocks = dev->limits.blocks;
	v->limits.demosaic_algorithms = dev->limits.demosaic_algorithms;
	strscpy(v->v4l2_dev.name, CISP_DEV_NAME, sizeof(v->v4l2_dev.name));
	ret = v4l2_device_register(dev->misc.this_device, &v->v4l2_dev);
	if (ret) {
		kfree(v);
		return ret;
	}
	dev->v4l2 = v;
	for (i = 0; i < NUM_NODES; i++) {
		ret = register_node(v, i);
		if (ret) {
			cisp_v4l2_unregister(dev);
			return ret;
		}
	}
	return 0;
}

void cisp_v4l2_unregister(struct cisp_dev *dev)
{
	struct cisp_v4l2 *v = dev->v4l2;
	unsigned int i;

	if (!v)
		return;
	for (i = 0; i < NUM_NODES; i++)
		vb2_video_unregister_device(&v->node[i].vdev);
	v4l2_device_unregister(&v->v4l2_dev);
	mutex_destroy(&v->ioctl_lock);
	kfree(v);
	dev->v4l2 = NULL;
}
