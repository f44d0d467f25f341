// SPDX-License-Identifier: GPL-2.0
/*
 * dma-buf export of device memory, and the simulated device's import.
 *
 * Export (the vendor's DMABUF_FD, neuron_vendor.c): a process that mapped
 * a device allocation (NEURON_MEM_MMAP_OFFSET) names a page-aligned range
 * of that mapping by its virtual address and gets a dma-buf of exactly
 * that range, rounded up to whole pages of the allocation, never more: the
 * range must lie in one mapping and in the allocation (the vendor's driver
 * trusts the size; this one does not). The dma-buf holds the allocation
 * and the device: the memory stays while any descriptor, mapping or
 * attachment holds the dma-buf, even after MEM_FREE of its handle or the
 * exporter's exit, and is zeroed and given back at its release. A device
 * reset is refused while one lives (as while a mapping does). At the
 * device's removal its mappings are revoked (SIGBUS), new attachments get
 * -ENODEV, and pages an attachment holds stay referenced until it unmaps
 * them, so they are never another owner's memory.
 *
 * An importer gets a scatter-gather table of the pages (each referenced
 * until unmapped) mapped for its device with the DMA API; the dma-buf can
 * be mmap()ed (MAP_SHARED only, never executable, pages on first touch as
 * for the exporter's own mapping); DMA_BUF_IOCTL_SYNC succeeds while the
 * device is present (the simulated HBM is ordinary, coherent memory).
 *
 * Import (MEM_DMABUF_READ): a simulated device attaches a dma-buf of this
 * driver's, as a NIC registering it would, maps the attachment for DMA and
 * copies from it into one of its allocations, reading each segment at its
 * DMA address: no IOMMU sits in front of a simulated device, so the DMA
 * API maps it one to one and dma_to_phys() gives the page back (a kernel
 * whose DMA API has ops of its own, a hypervisor's, is refused). Devices
 * backed by PCI do not export or import (their HBM has no struct page
 * here).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": dmabuf: " fmt

#include <linux/dma-buf.h>
#include <linux/dma-direct.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "neuron_abi.h"
#include "neuron_compat.h"
#include "neuron_device.h"
#include "neuron_dmabuf.h"
#include "neuron_file.h"
#include "neuron_mem.h"

NEURON_IMPORT_NS_DMA_BUF;

/**
 * struct neuron_dmabuf - what one exported dma-buf holds
 * @obj:	the allocation (referenced, counted as exported)
 * @nd:		its device (referenced: the exporter's file may close first)
 * @off:	the range's offset in the allocation (whole pages)
 * @size:	its bytes (whole pages)
 * @map:	its mmap state once mapped (neuron_mem_export_mmap, map_lock)
 */
struct neuron_dmabuf {
	struct neuron_mem_obj *obj;
	struct neuron_device *nd;
	u64 off;
	u64 size;
	struct neuron_mem_map *map;
};

static void dmabuf_put_pages(struct sg_table *sgt)
{
	struct sg_page_iter it;

	for_each_sgtable_page(sgt, &it, 0)
		put_page(sg_page_iter_page(&it));
}

static struct sg_table *dmabuf_map(struct dma_buf_attachment *attach,
				   enum dma_data_direction dir)
{
	struct neuron_dmabuf *b = attach->dmabuf->priv;
	unsigned int n = b->size >> PAGE_SHIFT;
	struct sg_table *sgt;
	struct page **pages;
	int ret;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	pages = kvmalloc_array(n, sizeof(*pages), GFP_KERNEL | __GFP_NOWARN);
	if (!sgt || !pages) {
		ret = -ENOMEM;
		goto err_free;
	}
	ret = neuron_mem_export_pages(b->obj, b->off, n, pages);
	if (ret)
		goto err_free;
	ret = sg_alloc_table_from_pages(sgt, pages, n, 0, b->size, GFP_KERNEL | __GFP_NOWARN);
	if (ret) {
		while (n--)
			put_page(pages[n]);
		goto err_free;
	}
	/* the table holds the page references from here */
	kvfree(pages);
	ret = dma_map_sgtable(attach->dev, sgt, dir, 0);
	if (ret) {
		dmabuf_put_pages(sgt);
		sg_free_table(sgt);
		kfree(sgt);
		return ERR_PTR(ret);
	}
	return sgt;

err_free:
	kvfree(pages);
	kfree(sgt);
	return ERR_PTR(ret);
}

static void dmabuf_unmap(struct dma_buf_attachment *attach, struct sg_table *sgt,
			 enum dma_data_direction dir)
{
	dma_unmap_sgtable(attach->dev, sgt, dir, 0);
	dmabuf_put_pages(sgt);
	sg_free_table(sgt);
	kfree(sgt);
}

static int dmabuf_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	struct neuron_dmabuf *b = dmabuf->priv;

	return neuron_mem_export_mmap(b->obj, b->off, b->size, &b->map, vma);
}

/* DMA_BUF_IOCTL_SYNC: coherent memory, nothing to flush while the device is there */
static int dmabuf_cpu_access(struct dma_buf *dmabuf, enum dma_data_direction dir)
{
	struct neuron_dmabuf *b = dmabuf->priv;

	return READ_ONCE(b->nd->gone) ? -ENODEV : 0;
}

static void dmabuf_release(struct dma_buf *dmabuf)
{
	struct neuron_dmabuf *b = dmabuf->priv;

	/* no descriptor, mapping or attachment is left */
	neuron_mem_export_put(b->obj, b->map);
	put_device(&b->nd->dev);
	kfree(b);
}

static const struct dma_buf_ops neuron_dmabuf_ops = {
	.map_dma_buf = dmabuf_map,
	.unmap_dma_buf = dmabuf_unmap,
	.mmap = dmabuf_mmap,
	.begin_cpu_access = dmabuf_cpu_access,
	.end_cpu_access = dmabuf_cpu_access,
	.release = dmabuf_release,
};

int neuron_dmabuf_export(u64 va, u64 size, int __user *ufd)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct neuron_device *nd;
	struct neuron_mem_obj *obj;
	struct neuron_dmabuf *b;
	struct dma_buf *dmabuf;
	u64 off;
	int fd;

	if (!size || size > U64_MAX - PAGE_SIZE)
		return -EINVAL;
	size = PAGE_ALIGN(size);
	/* the allocation's pages are inside: a smaller range than asked is never given */
	obj = neuron_mem_export_get(va, size, &nd, &off);	/* and a device reference */
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);
	if (!b) {
		neuron_mem_export_put(obj, NULL);
		put_device(&nd->dev);
		return -ENOMEM;
	}
	b->obj = obj;
	b->nd = nd;
	b->off = off;
	b->size = size;

	info.ops = &neuron_dmabuf_ops;
	info.size = size;
	info.flags = O_RDWR;
	info.priv = b;
	dmabuf = dma_buf_export(&info);
	if (IS_ERR(dmabuf)) {
		neuron_mem_export_put(obj, NULL);
		put_device(&nd->dev);
		kfree(b);
		return PTR_ERR(dmabuf);
	}
	/* from here the dma-buf's release frees @b */
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		dma_buf_put(dmabuf);
		return fd;
	}
	if (put_user(fd, ufd)) {
		put_unused_fd(fd);
		dma_buf_put(dmabuf);
		return -EFAULT;
	}
	fd_install(fd, dmabuf->file);
	return 0;
}

/* ---- import: a simulated device reads a dma-buf by DMA ------------------------ */

/* Copy [@pos, @pos + @len) of one DMA segment at @dma into @obj at @dst. */
static int dmabuf_copy_segment(struct neuron_device *nd, struct neuron_mem_obj *obj, u64 dst,
			       dma_addr_t dma, u64 len)
{
	while (len) {
		phys_addr_t phys = dma_to_phys(&nd->dev, dma);
		unsigned int in_page = offset_in_page(phys);
		size_t n = min_t(u64, len, PAGE_SIZE - in_page);
		struct page *page;
		void *kaddr;
		int ret;

		/* memory with a page of its own, never device memory (ZONE_DEVICE) */
		if (!pfn_valid(PHYS_PFN(phys)))
			return -EFAULT;
		page = pfn_to_page(PHYS_PFN(phys));
		if (is_zone_device_page(page))
			return -EFAULT;
		kaddr = neuron_kmap_local(page);
		ret = neuron_mem_dev_write(obj, dst, kaddr + in_page, n);
		neuron_kunmap_local(page, kaddr);
		if (ret)
			return ret;
		if (fatal_signal_pending(current))
			return -EINTR;
		dma += n;
		dst += n;
		len -= n;
		cond_resched();
	}
	return 0;
}

static int dmabuf_read_into(struct neuron_device *nd, struct dma_buf *dmabuf,
			    struct neuron_mem_obj *obj, const struct neuron_mem_dmabuf_read *a)
{
	struct dma_buf_attachment *attach;
	struct scatterlist *sg;
	struct sg_table *sgt;
	u64 pos = 0, done = 0;
	unsigned int i;
	int ret = 0;

	attach = dma_buf_attach(dmabuf, &nd->dev);
	if (IS_ERR(attach))
		return PTR_ERR(attach);
	sgt = neuron_dma_buf_map_attachment(attach, DMA_TO_DEVICE);
	if (IS_ERR(sgt)) {
		ret = PTR_ERR(sgt);
		goto out_detach;
	}
	for_each_sgtable_dma_sg(sgt, sg, i) {
		u64 len = sg_dma_len(sg), from, n;

		if (done == a->bytes)
			break;
		if (pos + len > a->src_offset + done) {
			from = a->src_offset + done - pos;
			n = min_t(u64, len - from, a->bytes - done);
			ret = dmabuf_copy_segment(nd, obj, a->offset + done,
						  sg_dma_address(sg) + from, n);
			if (ret)
				break;
			done += n;
		}
		pos += len;
	}
	/* an exporter whose table is shorter than its size */
	if (!ret && done != a->bytes)
		ret = -EIO;
	neuron_dma_buf_unmap_attachment(attach, sgt, DMA_TO_DEVICE);
out_detach:
	dma_buf_detach(dmabuf, attach);
	return ret;
}

long neuron_dmabuf_ioctl_read(struct neuron_file *nf, void *karg)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_mem_dmabuf_read a;
	struct neuron_mem_obj *obj;
	struct dma_buf *dmabuf;
	int ret;

	ret = neuron_ioctl_arg(&a, karg, sizeof(a), 0);
	if (ret)
		return ret;
	if (a.flags || a.reserved0 || !neuron_abi_all_zero(a.reserved, sizeof(a.reserved)) ||
	    !a.bytes || a.fd < 0)
		return -EINVAL;
	/* a device whose memory has pages: the simulated one */
	if (!neuron_mem_can_map(nd))
		return -EOPNOTSUPP;
	if (task_tgid(current) != nf->tgid)
		return -EACCES;
	obj = neuron_mem_get(nf, a.handle);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	if (!neuron_mem_dev_range_ok(obj, a.offset, a.bytes)) {
		ret = -EINVAL;
		goto out_obj;
	}
	dmabuf = dma_buf_get(a.fd);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		goto out_obj;
	}
	/*
	 * Only this driver's dma-bufs, and only where the DMA API maps the
	 * device one to one (no DMA ops of a hypervisor's or an IOMMU's):
	 * the copy reads what the DMA addresses name, which another
	 * exporter's table need not describe so.
	 */
	if (dmabuf->ops != &neuron_dmabuf_ops || get_dma_ops(&nd->dev))
		ret = -EOPNOTSUPP;
	else if (a.src_offset > dmabuf->size || a.bytes > dmabuf->size - a.src_offset)
		ret = -EINVAL;
	else
		ret = dmabuf_read_into(nd, dmabuf, obj, &a);
	dma_buf_put(dmabuf);
out_obj:
	neuron_mem_put(obj);
	return ret;
}
