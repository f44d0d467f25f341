// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated HBM: the device memory the core allocates (neuron_mem.c) and
 * the simulated NeuronCore computes on (neuron_sim_nc.c).
 *
 * Sparse on purpose: a device advertises sim_hbm_mb of HBM (256 MiB by
 * default) but holds only the 4 KiB blocks something wrote non-zero data
 * into, so a small guest can run several devices. A block that is absent
 * reads as zeros; setting a whole block to zero (the core zeroes every
 * allocation when it is made and when it is freed) gives the block back.
 * Blocks are charged to the memory cgroup of the process whose write
 * allocated them (GFP_KERNEL_ACCOUNT) and never warn when memory is short:
 * the write fails with -ENOMEM.
 *
 * Each block is a page of its own, so the core can map it into the process
 * that owns the allocation (backend op mem_page). A block handed out that
 * way is marked mapped until the core says the range is unmapped from
 * every process (op mem_unmap): while marked, zeroing it keeps the page in
 * place, so the mapping and the read/write ops never see two different
 * pages for one address. The core maps blocks with special PTEs (no page
 * reference, no GUP), so once unmapped nobody but the table should hold
 * the page; a block whose page someone still references all the same is
 * zeroed and dropped from the table rather than kept (that holder keeps
 * the zeroed page to itself), so a page another party may still reach is
 * never handed to the next owner of its address.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": sim: " fmt

#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "neuron_sim.h"
#include "neuron_sim_hbm.h"

#define SIM_HBM_BLOCK	4096UL
/* xarray mark: the block is (or may be) mapped into a process (mem_page) */
#define SIM_HBM_MAPPED	XA_MARK_1

static struct neuron_uint_param sim_hbm_mb = { .value = 256, .min = 16, .max = 65536 };
module_param_cb(sim_hbm_mb, &neuron_uint_range_ops, &sim_hbm_mb, 0644);
MODULE_PARM_DESC(sim_hbm_mb,
		 "HBM of each simulated device, allocated sparsely as it is written (MiB, 16..65536, default 256; read when a device is created)");

void neuron_sim_hbm_init(struct neuron_sim_hbm *h)
{
	mutex_init(&h->lock);
	xa_init(&h->blocks);
	h->size = (u64)READ_ONCE(sim_hbm_mb.value) << 20;
	h->present = 0;
	h->debugfs = NULL;
}

/* The 4 KiB blocks held now: how tests see that freed memory went back. */
static int hbm_blocks_get(void *data, u64 *val)
{
	struct neuron_sim_hbm *h = data;

	mutex_lock(&h->lock);
	*val = h->present;
	mutex_unlock(&h->lock);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(hbm_blocks_fops, hbm_blocks_get, NULL, "%llu\n");

void neuron_sim_hbm_debugfs(struct neuron_sim_hbm *h, struct dentry *dir)
{
	h->debugfs = debugfs_create_file_unsafe("hbm_blocks", 0400, dir, h, &hbm_blocks_fops);
}

void neuron_sim_hbm_debugfs_exit(struct neuron_sim_hbm *h)
{
	debugfs_remove(h->debugfs);
	h->debugfs = NULL;
}

/* Drop the table's reference on a block. */
static void hbm_block_put(u8 *b)
{
	put_page(virt_to_page(b));
}

/* Someone besides the table references the block's page. */
static bool hbm_block_referenced(u8 *b)
{
	return page_count(virt_to_page(b)) > 1;
}

void neuron_sim_hbm_clear(struct neuron_sim_hbm *h)
{
	unsigned long idx;
	void *b;

	mutex_lock(&h->lock);
	xa_for_each(&h->blocks, idx, b) {
		xa_erase(&h->blocks, idx);
		hbm_block_put(b);
		cond_resched();
	}
	h->present = 0;
	mutex_unlock(&h->lock);
}

void neuron_sim_hbm_destroy(struct neuron_sim_hbm *h)
{
	neuron_sim_hbm_clear(h);
	xa_destroy(&h->blocks);
	mutex_destroy(&h->lock);
}

static bool hbm_range_ok(struct neuron_sim_hbm *h, u64 addr, u64 len)
{
	return addr <= h->size && len <= h->size - addr;
}

/* The block at @idx, allocated (zeroed) when absent and @create. Caller holds the lock. */
static u8 *hbm_block(struct neuron_sim_hbm *h, unsigned long idx, bool create)
{
	u8 *b = xa_load(&h->blocks, idx);
	struct page *page;
	void *old;

	lockdep_assert_held(&h->lock);
	if (b || !create)
		return b;
	/* a page of its own (never highmem): mappable by mem_page */
	page = alloc_pages(GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN,
			   get_order(SIM_HBM_BLOCK));
	if (!page)
		return NULL;
	b = page_address(page);
	old = xa_store(&h->blocks, idx, b, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (xa_is_err(old)) {
		hbm_block_put(b);
		return NULL;
	}
	h->present++;
	return b;
}

int neuron_sim_hbm_read(struct neuron_sim_hbm *h, u64 addr, void *buf, size_t len)
{
	u8 *dst = buf;

	if (!hbm_range_ok(h, addr, len))
		return -EINVAL;
	mutex_lock(&h->lock);
	while (len) {
		size_t off = addr % SIM_HBM_BLOCK, n = min_t(size_t, len, SIM_HBM_BLOCK - off);
		u8 *b = hbm_block(h, addr / SIM_HBM_BLOCK, false);

		if (b)
			memcpy(dst, b + off, n);
		else
			memset(dst, 0, n);
		dst += n;
		addr += n;
		len -= n;
	}
	mutex_unlock(&h->lock);
	return 0;
}

int neuron_sim_hbm_write(struct neuron_sim_hbm *h, u64 addr, const void *buf, size_t len)
{
	const u8 *src = buf;
	int ret = 0;

	if (!hbm_range_ok(h, addr, len))
		return -EINVAL;
	mutex_lock(&h->lock);
	while (len) {
		size_t off = addr % SIM_HBM_BLOCK, n = min_t(size_t, len, SIM_HBM_BLOCK - off);
		u8 *b = hbm_block(h, addr / SIM_HBM_BLOCK, true);

		if (!b) {
			ret = -ENOMEM;
			break;
		}
		memcpy(b + off, src, n);
		src += n;
		addr += n;
		len -= n;
	}
	mutex_unlock(&h->lock);
	return ret;
}

int neuron_sim_hbm_set(struct neuron_sim_hbm *h, u64 addr, u8 value, u64 len)
{
	int ret = 0;

	if (!hbm_range_ok(h, addr, len))
		return -EINVAL;
	mutex_lock(&h->lock);
	while (len) {
		u64 off = addr % SIM_HBM_BLOCK, n = min_t(u64, len, SIM_HBM_BLOCK - off);
		unsigned long idx = addr / SIM_HBM_BLOCK;
		u8 *b;

		if (!value && n == SIM_HBM_BLOCK) {
			/*
			 * Whole blocks of zeros are absent blocks: free the
			 * ones present, visiting only those (zeroing all of a
			 * large HBM costs what it holds, not its size).
			 */
			unsigned long last = idx + len / SIM_HBM_BLOCK - 1, i = idx;

			while ((b = xa_find(&h->blocks, &i, last, XA_PRESENT))) {
				if (xa_get_mark(&h->blocks, i, SIM_HBM_MAPPED)) {
					/* mapped: the same page must stay at the address */
					memset(b, 0, SIM_HBM_BLOCK);
				} else {
					/*
					 * Given back. A page referenced elsewhere
					 * all the same is zeroed first and never
					 * reused: the next write takes a new one.
					 */
					if (hbm_block_referenced(b))
						memset(b, 0, SIM_HBM_BLOCK);
					xa_erase(&h->blocks, i);
					hbm_block_put(b);
					h->present--;
				}
				cond_resched();
				if (i++ == last)
					break;
			}
			n = (u64)(last - idx + 1) * SIM_HBM_BLOCK;
		} else {
			b = hbm_block(h, idx, value != 0);
			if (b) {
				memset(b + off, value, n);
			} else if (value) {
				ret = -ENOMEM;
				break;
			}
		}
		addr += n;
		len -= n;
		if (!(idx % 256))
			cond_resched();
	}
	mutex_unlock(&h->lock);
	return ret;
}

u64 neuron_sim_mem_size(void *backend)
{
	return ((struct neuron_sim_dev *)backend)->hbm.size;
}

int neuron_sim_mem_read(void *backend, u64 addr, void *buf, size_t len)
{
	return neuron_sim_hbm_read(&((struct neuron_sim_dev *)backend)->hbm, addr, buf, len);
}

int neuron_sim_mem_write(void *backend, u64 addr, const void *buf, size_t len)
{
	return neuron_sim_hbm_write(&((struct neuron_sim_dev *)backend)->hbm, addr, buf, len);
}

int neuron_sim_mem_set(void *backend, u64 addr, u8 value, u64 len)
{
	return neuron_sim_hbm_set(&((struct neuron_sim_dev *)backend)->hbm, addr, value, len);
}

struct page *neuron_sim_mem_page(void *backend, u64 addr)
{
	struct neuron_sim_hbm *h = &((struct neuron_sim_dev *)backend)->hbm;
	struct page *page = NULL;
	u8 *b;

	if (addr % SIM_HBM_BLOCK || !hbm_range_ok(h, addr, SIM_HBM_BLOCK))
		return NULL;
	mutex_lock(&h->lock);
	b = hbm_block(h, addr / SIM_HBM_BLOCK, true);
	if (b) {
		/* kept at its address until mem_unmap says it is unmapped */
		xa_set_mark(&h->blocks, addr / SIM_HBM_BLOCK, SIM_HBM_MAPPED);
		page = virt_to_page(b);
		get_page(page);
	}
	mutex_unlock(&h->lock);
	return page;
}

void neuron_sim_mem_unmap(void *backend, u64 addr, u64 len)
{
	struct neuron_sim_hbm *h = &((struct neuron_sim_dev *)backend)->hbm;
	unsigned long i, last;
	void *b;

	if (!len || !hbm_range_ok(h, addr, len))
		return;
	i = addr / SIM_HBM_BLOCK;
	last = (addr + len - 1) / SIM_HBM_BLOCK;
	mutex_lock(&h->lock);
	while ((b = xa_find(&h->blocks, &i, last, SIM_HBM_MAPPED))) {
		xa_clear_mark(&h->blocks, i, SIM_HBM_MAPPED);
		cond_resched();
		if (i++ == last)
			break;
	}
	mutex_unlock(&h->lock);
}
