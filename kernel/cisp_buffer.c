// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * CISP_IOC_ALLOC_BUFFER: dma-bufs of the device's memory. The virtual ISP's
 * memory is vmalloc memory: the buffer can be mapped by user space (mmap),
 * by the kernel (vmap, which the pipe uses) and by other devices (a
 * scatterlist of its pages), so images can travel between a camera, this
 * ISP and a display without a copy. Debian's kernel has neither udmabuf nor
 * the dma-buf heaps, so the device offers its own, as a real ISP driver
 * would point at a heap.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "cisp_dev.h"

#define MAX_BUFFER_SIZE SZ_1G

struct cisp_buffer {
	struct cisp_dev *dev;
	void *vaddr;
	size_t size;
};

static struct sg_table *buffer_map(struct dma_buf_attachment *attach, enum dma_data_direction dir)
{
	struct cisp_buffer *b = attach->dmabuf->priv;
	unsigned int i, pages = b->size >> PAGE_SHIFT;
	struct scatterlist *sg;
	struct sg_table *sgt;
	int ret;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table(sgt, pages, GFP_KERNEL);
	if (ret)
		goto fail;
	for_each_sgtable_sg(sgt, sg, i)
		sg_set_page(sg, vmalloc_to_page((u8 *)b->vaddr + ((size_t)i << PAGE_SHIFT)),
			    PAGE_SIZE, 0);
	ret = dma_map_sgtable(attach->dev, sgt, dir, 0);
	if (ret) {
		sg_free_table(sgt);
		goto fail;
	}
	return sgt;

fail:
	kfree(sgt);
	return ERR_PTR(ret);
}

static void buffer_unmap(struct dma_buf_attachment *attach, struct sg_table *sgt,
			 enum dma_data_direction dir)
{
	dma_unmap_sgtable(attach->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
}

static void buffer_release(struct dma_buf *dmabuf)
{
	struct cisp_buffer *b = dmabuf->priv;

	atomic_dec(&b->dev->live.buffers);
	vfree(b->vaddr);
	kfree(b);
}

static int buffer_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	struct cisp_buffer *b = dmabuf->priv;

	/* dma_buf_mmap_internal() has checked that the range lies in the buffer. */
	return remap_vmalloc_range(vma, b->vaddr, vma->vm_pgoff);
}

static int buffer_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct cisp_buffer *b = dmabuf->priv;

	iosys_map_set_vaddr(map, b->vaddr);
	return 0;
}

static const struct dma_buf_ops cisp_buffer_ops = {
	.map_dma_buf = buffer_map,
	.unmap_dma_buf = buffer_unmap,
	.release = buffer_release,
	.mmap = buffer_mmap,
	.vmap = buffer_vmap,
};

long cisp_buffer_alloc_ioctl(struct cisp_dev *dev, void __user *arg)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct cisp_isp_alloc a;
	struct cisp_buffer *b;
	struct dma_buf *dmabuf;
	int fd;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.flags || memchr_inv(a.reserved, 0, sizeof(a.reserved)))
		return -EINVAL;
	if (!a.size || a.size > MAX_BUFFER_SIZE)
		return -EINVAL;
	b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);
	if (!b)
		return -ENOMEM;
	b->dev = dev;
	b->size = PAGE_ALIGN(a.size);
	b->vaddr = vmalloc_user(b->size);
	if (!b->vaddr) {
		kfree(b);
		return -ENOMEM;
	}
	info.ops = &cisp_buffer_ops;
	info.size = b->size;
	info.flags = O_RDWR;
	info.priv = b;
	dmabuf = dma_buf_export(&info);
	if (IS_ERR(dmabuf)) {
		vfree(b->vaddr);
		kfree(b);
		return PTR_ERR(dmabuf);
	}
	atomic_inc(&dev->live.buffers);
	fd = dma_buf_fd(dmabuf, O_CLOEXEC);
	if (fd < 0) {
		dma_buf_put(dmabuf);
		return fd;
	}
	a.fd = fd;
	if (copy_to_user(arg, &a, sizeof(a))) {
		/* The descriptor is installed: it stays the caller's, to close. */
		return -EFAULT;
	}
	return 0;
}
