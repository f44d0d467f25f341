// SPDX-License-Identifier: GPL-2.0
/*
 * Memory the driver allocates for a process: MEM_ALLOC / FREE / READ /
 * WRITE / SET.
 *
 * Device memory is the backend's HBM (ops mem_*): the core owns its
 * address space (a first-fit allocator of 4 KiB granules,
 * common/neuron_mem_range.c) and zeroes every allocation when it is made and
 * when it is freed, so no process ever reads another's data. Host memory
 * is vmalloc memory charged to the caller's memory cgroup
 * (GFP_KERNEL_ACCOUNT), at most mem_host_proc_max_mb per process and
 * device (page-rounded). Exhaustion of either is -ENOMEM, never a kernel
 * warning (__GFP_NOWARN, and the bounds are checked first).
 *
 * An allocation belongs to the file that made it: its handle is good on
 * that file only (the file's tag in the upper 32 bits, an index in the
 * lower), and the file's release frees whatever is left. Only the process
 * that opened the file uses its allocations (-EACCES otherwise), as with
 * rings and reservations. Every allocation is accounted
 * (neuron_memstat_account) to its NeuronCore and category while it lives.
 *
 * References: the handle table holds one; a READ/WRITE/SET or a model job
 * in progress holds another, so a concurrent FREE never frees memory in
 * use: the last put frees. Device memory is zeroed at the last put through
 * the backend, which needs gone_sem and a device that is not gone; after
 * removal the backend's whole HBM goes with it, so nothing is zeroed.
 *
 * READ, WRITE and SET move user data: they run without the dispatcher's
 * gone_sem and take it per chunk, around the backend call only, so a user
 * page that never arrives never holds up device removal.
 *
 * Mappings: a device allocation can be mmap()ed by its owner at
 * NEURON_MEM_MMAP_OFFSET(device address), the way a process reaches HBM
 * through a memory BAR. The pages come from the backend (ops mem_page) on
 * first touch, inserted by the fault handler under map_lock as special
 * PTEs of a VM_PFNMAP vma, as a BAR's would be: no page reference is
 * taken for a PTE, and get_user_pages() (vmsplice, O_DIRECT,
 * process_vm_readv, any pin) refuses them with -EFAULT, so nothing can
 * keep a reference to device memory past its unmapping. The backend keeps
 * a mapped page at its address until the core reports the allocation
 * unmapped (ops mem_unmap, after the unmap below).
 * The vmas of an allocation share one struct neuron_mem_map, which they
 * reference, never the allocation: FREE frees the memory at once. Revoking
 * (FREE, the file's release, the device's removal) marks the map revoked
 * under map_lock, then unmaps its range from the file's address space
 * (unmap_mapping_range) before the memory is zeroed and reused; a fault
 * after that sees the mark and gets SIGBUS. A fault that got the lock
 * first inserted its page before the unmap, which removes it. A device
 * reset runs only while no allocation has mapping state, and holds new
 * mappings off until it is done (neuron_mem_hold_maps()), so no page of
 * device memory is mapped while a reset discards it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": mem: " fmt

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "neuron_abi.h"
#include "neuron_compat.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_mem.h"

/* bytes moved per backend call (and per gone_sem hold) by READ/WRITE/SET */
#define NEURON_MEM_CHUNK	(64UL << 10)

static struct neuron_uint_param mem_host_proc_max_mb = { .value = 256, .min = 1, .max = 65536 };
module_param_cb(mem_host_proc_max_mb, &neuron_uint_range_ops, &mem_host_proc_max_mb, 0644);
MODULE_PARM_DESC(mem_host_proc_max_mb,
		 "Host memory one process may hold through MEM_ALLOC on one device, page-rounded (MiB, 1..65536, default 256)");

/* source of file tags (the upper half of handles), module-wide */
static atomic_t neuron_mem_tags = ATOMIC_INIT(0);

/**
 * struct neuron_mem_obj - one allocation
 * @ref:	the handle table's reference plus one per user in progress
 * @nd:		the device (the file holds a reference on it)
 * @proc:	its process (the opener of @owner, which keeps it alive), whose
 *		usage counts it
 * @nc:		NeuronCore it is accounted to
 * @location:	NEURON_MEM_LOC_*
 * @category:	NEURON_MEM_CAT_*
 * @bytes:	size asked for; handles address [0, @bytes)
 * @start:	device: first granule
 * @granules:	device: granules held
 * @host:	host: the memory (vmalloc, @host_size bytes)
 * @host_size:	host: page-rounded size
 * @owner:	the file whose handle table holds it
 * @map:	device: its mapping state once mapped, until revoked (map_lock)
 * @freed:	its handle is gone (FREE or release): never mapped again (map_lock)
 * @idx:	its index in @owner's handle table (0 until it has one)
 *
 * A dma-buf exported from it (neuron_dmabuf.c) holds a reference: the
 * memory outlives its handle while the dma-buf lives. @proc is cleared
 * (and the process's usage given back) when the handle goes, since the
 * process may end before the dma-buf does.
 */
struct neuron_mem_obj {
	refcount_t ref;
	struct neuron_device *nd;
	struct neuron_proc *proc;
	u32 nc;
	u32 location;
	u32 category;
	u64 bytes;
	u32 start;
	u32 granules;
	void *host;
	size_t host_size;
	struct neuron_file *owner;
	struct neuron_mem_map *map;
	bool freed;
	u32 idx;
};

/**
 * struct neuron_mem_map - the mappings of one device allocation
 * @ref:	one for the allocation (until revoked) plus one per vma
 * @nd:		the device (every vma holds a file, which holds the device)
 * @addr:	device address of its first byte
 * @span:	bytes it covers (whole pages)
 * @mapping:	the address space its vmas are in (the owner's file's, or a
 *		dma-buf's)
 * @file_off:	the offset of @addr in @mapping (NEURON_MEM_MMAP_OFFSET of
 *		it for the owner's file, 0 for a dma-buf)
 * @inode:	a dma-buf's: its inode, which holds @mapping, referenced until
 *		the dma-buf's release; NULL for the owner's file's
 * @node:	in mem->maps until revoked
 * @revoked:	faults get SIGBUS (map_lock)
 */
struct neuron_mem_map {
	refcount_t ref;
	struct neuron_device *nd;
	u64 addr;
	u64 span;
	struct address_space *mapping;
	u64 file_off;
	struct inode *inode;
	struct list_head node;
	bool revoked;
};

static u64 obj_addr(const struct neuron_mem_obj *obj)
{
	return (u64)obj->start * NEURON_MEM_GRANULE;
}

static u64 obj_span(const struct neuron_mem_obj *obj)
{
	return (u64)obj->granules * NEURON_MEM_GRANULE;
}

/* ---- per-process usage ------------------------------------------------------ */

void neuron_mem_proc_usage(const struct neuron_proc *p, u64 *host, u64 *device)
{
	/* a snapshot: written under mem->lock, which the caller need not hold */
	*host = READ_ONCE(p->mem_host);
	*device = READ_ONCE(p->mem_device);
}

/* Add (@add) or take away @obj's bytes in its process's usage. Caller holds mem->lock. */
static void mem_proc_charge_locked(struct neuron_mem_dev *mem, struct neuron_mem_obj *obj,
				   bool add)
{
	struct neuron_proc *p = obj->proc;

	lockdep_assert_held(&mem->lock);
	if (obj->location == NEURON_MEM_LOC_DEVICE)
		WRITE_ONCE(p->mem_device, add ? p->mem_device + obj->bytes :
						p->mem_device - obj->bytes);
	else
		WRITE_ONCE(p->mem_host, add ? p->mem_host + obj->host_size :
					      p->mem_host - obj->host_size);
}

/* ---- allocations ------------------------------------------------------------ */

/*
 * Zero device memory through the backend. Caller holds gone_sem (@locked)
 * or it is taken here; nothing is done once the device is gone.
 */
static int mem_zero(struct neuron_device *nd, u64 addr, u64 len, bool locked)
{
	int ret = 0;

	if (!locked)
		down_read(&nd->gone_sem);
	if (!nd->gone)
		ret = nd->ops->mem_set(nd->backend, addr, 0, len);
	if (!locked)
		up_read(&nd->gone_sem);
	return ret;
}

/* The last reference went: unaccount and free. @locked: caller holds gone_sem. */
static void mem_obj_destroy(struct neuron_mem_obj *obj, bool locked)
{
	struct neuron_device *nd = obj->nd;
	struct neuron_mem_dev *mem = nd->mem;

	if (obj->location == NEURON_MEM_LOC_DEVICE) {
		/* mmap finds allocations there under map_lock only */
		mutex_lock(&mem->map_lock);
		xa_erase(&mem->by_start, obj->start);
		/*
		 * Every mapping of it (its file's, its dma-bufs') was revoked
		 * or ended, and every dma-buf attachment's pages were given
		 * back: the backend may drop the pages once zeroed.
		 */
		if (nd->ops->mem_unmap && !mem->maps_dead)
			nd->ops->mem_unmap(nd->backend, obj_addr(obj), obj_span(obj));
		mutex_unlock(&mem->map_lock);
	}
	neuron_memstat_account(nd, obj->nc, obj->location, obj->category, obj->bytes, false);
	if (obj->location == NEURON_MEM_LOC_DEVICE)
		/* before the range is free again: never zero a new owner's data */
		mem_zero(nd, obj_addr(obj), obj_span(obj), locked);
	else
		vfree(obj->host);

	mutex_lock(&mem->lock);
	if (obj->location == NEURON_MEM_LOC_DEVICE)
		WARN_ON_ONCE(neuron_mem_range_free(&mem->range, obj->start, obj->granules));
	/* given back when its handle went (neuron_mem_obj_unhandle) */
	WARN_ON_ONCE(obj->proc);
	mutex_unlock(&mem->lock);
	kfree(obj);
}

/*
 * @obj's handle is gone (FREE, its file's release): whatever still holds
 * it (an ioctl in progress, a job, a dma-buf) no longer counts against the
 * process, which may end first.
 */
static void mem_obj_unhandle(struct neuron_mem_obj *obj)
{
	struct neuron_mem_dev *mem = obj->nd->mem;

	mutex_lock(&mem->lock);
	mem_proc_charge_locked(mem, obj, false);
	obj->proc = NULL;
	mutex_unlock(&mem->lock);
}

static void mem_obj_put(struct neuron_mem_obj *obj, bool locked)
{
	if (refcount_dec_and_test(&obj->ref))
		mem_obj_destroy(obj, locked);
}

void neuron_mem_put_locked(struct neuron_mem_obj *obj)
{
	mem_obj_put(obj, true);
}

static void mem_obj_revoke(struct neuron_mem_obj *obj);

static u32 handle_index(const struct neuron_file *nf, u64 handle)
{
	/* 0 (never an index) for a handle of another file */
	return (u32)(handle >> 32) == nf->mem_tag ? (u32)handle : 0;
}

struct neuron_mem_obj *neuron_mem_get(struct neuron_file *nf, u64 handle)
{
	struct neuron_mem_obj *obj;
	u32 idx = handle_index(nf, handle);

	if (!idx)
		return ERR_PTR(-ENOENT);
	xa_lock(&nf->mem_handles);
	obj = xa_load(&nf->mem_handles, idx);
	if (obj && !refcount_inc_not_zero(&obj->ref))
		obj = NULL;
	xa_unlock(&nf->mem_handles);
	return obj ? obj : ERR_PTR(-ENOENT);
}

/* [@off, @off + @bytes) within the allocation (@bytes may be 0). */
static bool obj_range_ok(const struct neuron_mem_obj *obj, u64 off, u64 bytes)
{
	return off <= obj->bytes && bytes <= obj->bytes - off;
}

int neuron_mem_job_buf(struct neuron_mem_obj *obj, u64 off, u64 bytes, struct neuron_job_buf *b)
{
	if (!obj_range_ok(obj, off, bytes))
		return -EINVAL;
	b->location = obj->location;
	b->addr = obj->location == NEURON_MEM_LOC_DEVICE ? obj_addr(obj) + off : 0;
	b->host = obj->location == NEURON_MEM_LOC_HOST ? (u8 *)obj->host + off : NULL;
	return 0;
}

bool neuron_mem_same(const struct neuron_mem_obj *a, const struct neuron_mem_obj *b)
{
	return a == b;
}

/*
 * Reserve the memory of a new allocation of @p: device granules, or host
 * bytes under the cap.
 */
static int mem_obj_reserve(struct neuron_device *nd, struct neuron_proc *p,
			   struct neuron_mem_obj *obj)
{
	struct neuron_mem_dev *mem = nd->mem;
	u64 cap = (u64)READ_ONCE(mem_host_proc_max_mb.value) << 20;
	int ret = 0;

	if (obj->location == NEURON_MEM_LOC_DEVICE) {
		obj->granules = neuron_mem_range_granules(obj->bytes);
		if (!obj->granules || obj->bytes > mem->hbm_size)
			return -ENOMEM;
	} else {
		if (obj->bytes > cap)
			return -ENOMEM;
		obj->host_size = PAGE_ALIGN(obj->bytes);
	}

	obj->proc = p;
	mutex_lock(&mem->lock);
	if (obj->location == NEURON_MEM_LOC_DEVICE)
		ret = neuron_mem_range_alloc(&mem->range, obj->granules, &obj->start);
	else if (p->mem_host + obj->host_size > cap)
		ret = -ENOMEM;
	if (!ret)
		mem_proc_charge_locked(mem, obj, true);
	mutex_unlock(&mem->lock);
	return ret;
}

/* Give back what mem_obj_reserve() took (an allocation that never got a handle). */
static void mem_obj_unreserve(struct neuron_device *nd, struct neuron_mem_obj *obj)
{
	struct neuron_mem_dev *mem = nd->mem;

	mutex_lock(&mem->lock);
	if (obj->location == NEURON_MEM_LOC_DEVICE)
		neuron_mem_range_free(&mem->range, obj->start, obj->granules);
	mem_proc_charge_locked(mem, obj, false);
	mutex_unlock(&mem->lock);
}

long neuron_mem_ioctl_alloc(struct neuron_file *nf, void *karg)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_mem_alloc arg;
	struct neuron_mem_obj *obj;
	u64 device_addr;
	u32 idx;
	int ret;

	ret = neuron_ioctl_arg(&arg, karg, sizeof(arg), 0);
	if (ret)
		return ret;
	if (arg.reserved0 || !neuron_abi_all_zero(arg.reserved, sizeof(arg.reserved)))
		return -EINVAL;
	if (arg.nc >= nd->nc_count || arg.category >= NEURON_MEM_CAT_COUNT || !arg.bytes ||
	    (arg.location != NEURON_MEM_LOC_DEVICE && arg.location != NEURON_MEM_LOC_HOST))
		return -EINVAL;
	if (arg.location == NEURON_MEM_LOC_DEVICE && !nd->mem->hbm_size)
		return -EOPNOTSUPP;
	/* the memory dies with the opener's file: only the opener allocates */
	if (task_tgid(current) != nf->tgid)
		return -EACCES;

	obj = kzalloc(sizeof(*obj), GFP_KERNEL_ACCOUNT);
	if (!obj)
		return -ENOMEM;
	refcount_set(&obj->ref, 1);
	obj->nd = nd;
	obj->nc = arg.nc;
	obj->location = arg.location;
	obj->category = arg.category;
	obj->bytes = arg.bytes;
	obj->owner = nf;
	ret = mem_obj_reserve(nd, nf->proc, obj);
	if (ret)
		goto err_free;
	if (obj->location == NEURON_MEM_LOC_DEVICE) {
		/* what the previous owner left is gone already; zero anyway */
		ret = mem_zero(nd, obj_addr(obj), obj_span(obj), true) ? -ENOMEM : 0;
	} else {
		obj->host = __vmalloc(obj->host_size,
				      GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN);
		ret = obj->host ? 0 : -ENOMEM;
	}
	if (ret)
		goto err_unreserve;
	if (obj->location == NEURON_MEM_LOC_DEVICE) {
		/* its granules are its own: the slot is free */
		ret = xa_err(xa_store(&nd->mem->by_start, obj->start, obj,
				      GFP_KERNEL_ACCOUNT | __GFP_NOWARN));
		if (ret)
			goto err_unreserve;
	}

	/* everything the answer needs, before the handle is published */
	device_addr = obj->location == NEURON_MEM_LOC_DEVICE ? obj_addr(obj) : 0;
	/* accounted before anyone can free it */
	neuron_memstat_account(nd, obj->nc, obj->location, obj->category, obj->bytes, true);
	/*
	 * @obj->idx is written before the entry is visible (a dma-buf export
	 * checks it) and read back before the lock lets a FREE in.
	 */
	xa_lock(&nf->mem_handles);
	ret = __xa_alloc(&nf->mem_handles, &obj->idx, obj, xa_limit_32b, GFP_KERNEL_ACCOUNT);
	idx = obj->idx;
	xa_unlock(&nf->mem_handles);
	if (ret) {
		neuron_memstat_account(nd, obj->nc, obj->location, obj->category, obj->bytes,
				       false);
		ret = ret == -EBUSY ? -ENOSPC : ret;
		goto err_mem;
	}
	/*
	 * Published: another thread of the process may MEM_FREE it at once
	 * (the handle is easy to guess), so @obj is not touched again.
	 */
	arg.handle = ((u64)nf->mem_tag << 32) | idx;
	arg.device_addr = device_addr;
	neuron_ioctl_out(karg, &arg, sizeof(arg));
	return 0;

err_mem:
	if (obj->location == NEURON_MEM_LOC_HOST) {
		vfree(obj->host);
	} else {
		/*
		 * Another thread of the file may have mapped it already (but
		 * not exported it: it never had a handle).
		 */
		mem_obj_revoke(obj);
		mutex_lock(&nd->mem->map_lock);
		xa_erase(&nd->mem->by_start, obj->start);
		if (nd->ops->mem_unmap && !nd->mem->maps_dead)
			nd->ops->mem_unmap(nd->backend, obj_addr(obj), obj_span(obj));
		mutex_unlock(&nd->mem->map_lock);
	}
err_unreserve:
	mem_obj_unreserve(nd, obj);
err_free:
	kfree(obj);
	return ret;
}

/* ---- mappings ------------------------------------------------------------------ */

static void mem_map_put(struct neuron_mem_map *map)
{
	if (refcount_dec_and_test(&map->ref))
		kfree(map);
}

/* Unmap every page of @map from its processes. Caller holds map_lock. */
static void mem_map_zap_locked(struct neuron_mem_map *map)
{
	struct neuron_device *nd = map->nd;

	lockdep_assert_held(&nd->mem->map_lock);
	map->revoked = true;
	/*
	 * No PTE is left. The backend hears that the pages are mapped
	 * nowhere when the allocation goes (mem_obj_destroy): a dma-buf may
	 * still map or attach them until then.
	 */
	unmap_mapping_range(map->mapping, map->file_off, map->span, 1);
}

/*
 * @obj's handle is gone (FREE, release): revoke its mappings before its
 * memory can be zeroed and reused, and never map it again.
 */
static void mem_obj_revoke(struct neuron_mem_obj *obj)
{
	struct neuron_mem_dev *mem = obj->nd->mem;
	struct neuron_mem_map *map;

	mutex_lock(&mem->map_lock);
	obj->freed = true;
	map = obj->map;
	obj->map = NULL;
	if (map) {
		list_del(&map->node);
		mem_map_zap_locked(map);
	}
	mutex_unlock(&mem->map_lock);
	if (map)
		mem_map_put(map);
}

void neuron_mem_revoke_all(struct neuron_device *nd)
{
	struct neuron_mem_dev *mem = nd->mem;
	struct neuron_mem_map *map;

	/* the files still exist (each map is in the list until its file's release) */
	mutex_lock(&mem->map_lock);
	mem->maps_dead = true;
	list_for_each_entry(map, &mem->maps, node) {
		mem_map_zap_locked(map);
		cond_resched();
	}
	mutex_unlock(&mem->map_lock);
}

bool neuron_mem_hold_maps(struct neuron_device *nd)
{
	struct neuron_mem_dev *mem = nd->mem;
	bool held;

	mutex_lock(&mem->map_lock);
	held = list_empty(&mem->maps) && !mem->exports;
	if (held)
		mem->maps_held = true;
	mutex_unlock(&mem->map_lock);
	return held;
}

void neuron_mem_release_maps(struct neuron_device *nd)
{
	mutex_lock(&nd->mem->map_lock);
	nd->mem->maps_held = false;
	mutex_unlock(&nd->mem->map_lock);
}

bool neuron_mem_can_map(struct neuron_device *nd)
{
	return nd->mem->hbm_size && nd->ops->mem_page && nd->ops->mem_unmap &&
	       PAGE_SIZE == NEURON_MEM_GRANULE;
}

static void mem_vm_open(struct vm_area_struct *vma)
{
	struct neuron_mem_map *map = vma->vm_private_data;

	refcount_inc(&map->ref);
}

static void mem_vm_close(struct vm_area_struct *vma)
{
	mem_map_put(vma->vm_private_data);
}

static vm_fault_t mem_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct neuron_mem_map *map = vma->vm_private_data;
	struct neuron_device *nd = map->nd;
	/* wraps to a huge value below the map's start */
	u64 off = ((u64)vmf->pgoff << PAGE_SHIFT) - map->file_off;
	u64 addr = map->addr + off;
	struct page *page;
	vm_fault_t ret;

	mutex_lock(&nd->mem->map_lock);
	if (map->revoked || off >= map->span) {
		/* freed, or the device is gone: never another allocation's memory */
		ret = VM_FAULT_SIGBUS;
	} else {
		page = nd->ops->mem_page(nd->backend, addr);
		if (!page) {
			ret = VM_FAULT_OOM;
		} else {
			/*
			 * Inserted under map_lock: a revocation after this
			 * unmaps it. A special PTE: no reference for it, and
			 * no GUP through it (the backend keeps the page until
			 * mem_unmap).
			 */
			ret = vmf_insert_pfn(vma, vmf->address, page_to_pfn(page));
			put_page(page);
		}
	}
	mutex_unlock(&nd->mem->map_lock);
	return ret;
}

static const struct vm_operations_struct mem_vm_ops = {
	.open = mem_vm_open,
	.close = mem_vm_close,
	.fault = mem_vm_fault,
};

/* the same, for a dma-buf's mappings: never exported again */
static const struct vm_operations_struct mem_dmabuf_vm_ops = {
	.open = mem_vm_open,
	.close = mem_vm_close,
	.fault = mem_vm_fault,
};

/* ---- dma-buf export (neuron_dmabuf.c) ------------------------------------------ */

struct neuron_mem_obj *neuron_mem_export_get(u64 va, u64 len, struct neuron_device **ndp,
					     u64 *offp)
{
	struct mm_struct *mm = current->mm;
	struct neuron_mem_obj *obj = ERR_PTR(-EINVAL);
	struct vm_area_struct *vma;
	struct neuron_mem_map *map;
	struct neuron_file *owner;
	struct neuron_mem_dev *mem;
	u64 off;

	if (!len || va % PAGE_SIZE || len > U64_MAX - va)
		return ERR_PTR(-EINVAL);
	mmap_read_lock(mm);
	vma = find_vma(mm, va);
	/* a mapping of a device allocation through its own file, wholly covering the range */
	if (!vma || va < vma->vm_start || vma->vm_ops != &mem_vm_ops ||
	    len > vma->vm_end - va)
		goto out;
	owner = vma->vm_file->private_data;
	if (owner->tgid != task_tgid(current))
		goto out;
	map = vma->vm_private_data;
	mem = map->nd->mem;
	off = ((u64)vma->vm_pgoff << PAGE_SHIFT) - map->file_off + (va - vma->vm_start);

	mutex_lock(&mem->map_lock);
	/* the allocation is destroyed only after it leaves @by_start, under this lock */
	obj = map->revoked || mem->maps_dead ? NULL :
		xa_load(&mem->by_start, (unsigned long)(map->addr / NEURON_MEM_GRANULE));
	/*
	 * Still its handle's, and not freed: an allocation whose MEM_ALLOC
	 * failed after another thread mapped it never had a handle, and is
	 * freed by that failure path alone.
	 */
	if (!obj || obj->map != map || obj->freed || !obj->idx ||
	    xa_load(&owner->mem_handles, obj->idx) != obj ||
	    off > obj_span(obj) || len > obj_span(obj) - off ||
	    !refcount_inc_not_zero(&obj->ref)) {
		obj = ERR_PTR(-EINVAL);
	} else {
		mem->exports++;
		/* the device too: the mapping (and its file) may go once mmap_lock is dropped */
		get_device(&obj->nd->dev);
		*ndp = obj->nd;
		*offp = off;
	}
	mutex_unlock(&mem->map_lock);
out:
	mmap_read_unlock(mm);
	return obj;
}

u64 neuron_mem_export_addr(const struct neuron_mem_obj *obj)
{
	return obj_addr(obj);
}

int neuron_mem_export_pages(struct neuron_mem_obj *obj, u64 off, unsigned int n,
			    struct page **pages)
{
	struct neuron_device *nd = obj->nd;
	unsigned int i;
	int ret = 0;

	mutex_lock(&nd->mem->map_lock);
	for (i = 0; i < n && !ret; i++) {
		/* a large range: let faults and the scheduler in between batches */
		if (i && !(i % 512)) {
			mutex_unlock(&nd->mem->map_lock);
			cond_resched();
			mutex_lock(&nd->mem->map_lock);
		}
		pages[i] = nd->mem->maps_dead ? NULL :
			   nd->ops->mem_page(nd->backend, obj_addr(obj) + off + (u64)i * PAGE_SIZE);
		if (!pages[i])
			ret = nd->mem->maps_dead ? -ENODEV : -ENOMEM;
	}
	mutex_unlock(&nd->mem->map_lock);
	if (ret)
		while (--i)
			put_page(pages[i - 1]);
	return ret;
}

int neuron_mem_export_mmap(struct neuron_mem_obj *obj, u64 off, u64 len,
			   struct neuron_mem_map **mapp, struct vm_area_struct *vma)
{
	struct neuron_mem_dev *mem = obj->nd->mem;
	struct neuron_mem_map *map, *fresh;
	int ret = 0;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
	if (!fresh)
		return -ENOMEM;
	mutex_lock(&mem->map_lock);
	map = *mapp;
	if (mem->maps_dead) {
		ret = -ENODEV;
	} else if (!map) {
		map = fresh;
		fresh = NULL;
		refcount_set(&map->ref, 1);	/* the dma-buf's */
		map->nd = obj->nd;
		map->addr = obj_addr(obj) + off;
		map->span = len;
		map->mapping = vma->vm_file->f_mapping;
		map->file_off = 0;
		/*
		 * The dma-buf's inode goes before its release runs (which
		 * takes this map off the list): held until then, so a
		 * removal in between never unmaps a freed address space.
		 */
		ihold(file_inode(vma->vm_file));
		map->inode = file_inode(vma->vm_file);
		list_add_tail(&map->node, &mem->maps);
		*mapp = map;
	}
	if (!ret)
		refcount_inc(&map->ref);	/* this vma's */
	mutex_unlock(&mem->map_lock);
	kfree(fresh);
	if (ret)
		return ret;
	neuron_vm_flags_clear(vma, VM_MAYEXEC);
	neuron_vm_flags_set(vma, VM_IO | VM_DONTEXPAND | VM_DONTDUMP | VM_PFNMAP);
	vma->vm_ops = &mem_dmabuf_vm_ops;
	vma->vm_private_data = map;
	return 0;
}

void neuron_mem_export_put(struct neuron_mem_obj *obj, struct neuron_mem_map *map)
{
	struct neuron_mem_dev *mem = obj->nd->mem;

	mutex_lock(&mem->map_lock);
	/* its vmas are gone (each held the dma-buf's file) */
	if (map)
		list_del(&map->node);
	mem->exports--;
	mutex_unlock(&mem->map_lock);
	if (map) {
		iput(map->inode);
		mem_map_put(map);
	}
	mem_obj_put(obj, false);
}

int neuron_mem_mmap(struct neuron_file *nf, struct vm_area_struct *vma)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_mem_dev *mem = nd->mem;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 len = vma->vm_end - vma->vm_start;
	struct neuron_mem_map *map, *fresh;
	struct neuron_mem_obj *obj;
	u64 addr;
	int ret;

	/* the cookie range: every device address of the largest HBM */
	if (off < NEURON_MEM_MMAP_BASE ||
	    off - NEURON_MEM_MMAP_BASE >= (u64)U32_MAX * NEURON_MEM_GRANULE)
		return NEURON_MMAP_NOT_MINE;
	addr = off - NEURON_MEM_MMAP_BASE;
	if (!neuron_mem_can_map(nd))
		return -EINVAL;
	/* the memory dies with the opener's file: only the opener maps it */
	if (task_tgid(current) != nf->tgid)
		return -EACCES;
	/* a private copy would not be device memory */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	if (addr >= mem->hbm_size || addr % NEURON_MEM_GRANULE)
		return -EINVAL;

	/* before the lock: allocating under map_lock would wait on reclaim */
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
	if (!fresh)
		return -ENOMEM;
	mutex_lock(&mem->map_lock);
	obj = xa_load(&mem->by_start, (unsigned long)(addr / NEURON_MEM_GRANULE));
	if (mem->maps_dead) {
		ret = -ENODEV;
	} else if (mem->maps_held) {
		/* a device reset runs: its memory is being discarded */
		ret = -EBUSY;
	} else if (!obj || obj->owner != nf || obj->freed) {
		/* no allocation starts there, or not this file's, or freed */
		ret = -EINVAL;
	} else if (len > obj_span(obj)) {
		ret = -EINVAL;
	} else {
		map = obj->map;
		if (!map) {
			map = fresh;
			fresh = NULL;
			refcount_set(&map->ref, 1);	/* the allocation's */
			map->nd = nd;
			map->addr = obj_addr(obj);
			map->span = obj_span(obj);
			map->mapping = vma->vm_file->f_mapping;
			map->file_off = NEURON_MEM_MMAP_OFFSET(map->addr);
			list_add_tail(&map->node, &mem->maps);
			obj->map = map;
		}
		refcount_inc(&map->ref);	/* this vma's */
		ret = 0;
	}
	mutex_unlock(&mem->map_lock);
	kfree(fresh);
	if (ret)
		return ret;

	/*
	 * Never in another process (VM_DONTCOPY; VM_IO keeps MADV_DOFORK
	 * out), never executable, never grown; pages are inserted by the
	 * fault handler as special PTEs (VM_PFNMAP: vmf_insert_pfn at fault
	 * time), which no get_user_pages() user can pin.
	 */
	neuron_vm_flags_clear(vma, VM_MAYEXEC);
	neuron_vm_flags_set(vma, VM_IO | VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY | VM_PFNMAP);
	vma->vm_ops = &mem_vm_ops;
	vma->vm_private_data = map;
	return 0;
}

long neuron_mem_ioctl_free(struct neuron_file *nf, void *karg)
{
	struct neuron_mem_free arg;
	struct neuron_mem_obj *obj;
	u32 idx;
	int ret;

	ret = neuron_ioctl_arg(&arg, karg, sizeof(arg), 0);
	if (ret)
		return ret;
	if (!neuron_abi_all_zero(arg.reserved, sizeof(arg.reserved)))
		return -EINVAL;
	if (task_tgid(current) != nf->tgid)
		return -EACCES;
	idx = handle_index(nf, arg.handle);
	obj = idx ? xa_erase(&nf->mem_handles, idx) : NULL;
	if (!obj)
		return -ENOENT;
	/* unmapped now: the memory is zeroed and reused once the last user is done */
	mem_obj_revoke(obj);
	mem_obj_unhandle(obj);
	/* a READ/WRITE, a job or a dma-buf still using it frees it when done */
	mem_obj_put(obj, true);
	return 0;
}

enum mem_rw_op { MEM_OP_READ, MEM_OP_WRITE, MEM_OP_SET };

/* One chunk of device memory through the backend, under gone_sem. */
static int mem_dev_chunk(struct neuron_device *nd, enum mem_rw_op op, u64 addr, void *buf,
			 size_t len, u8 value)
{
	int ret;

	down_read(&nd->gone_sem);
	if (nd->gone)
		ret = -ENODEV;
	else if (op == MEM_OP_READ)
		ret = nd->ops->mem_read(nd->backend, addr, buf, len);
	else if (op == MEM_OP_WRITE)
		ret = nd->ops->mem_write(nd->backend, addr, buf, len);
	else
		ret = nd->ops->mem_set(nd->backend, addr, value, len);
	up_read(&nd->gone_sem);
	return ret;
}

static int mem_rw_device(struct neuron_mem_obj *obj, enum mem_rw_op op,
			 const struct neuron_mem_rw *arg)
{
	u8 __user *uptr = u64_to_user_ptr(arg->user_ptr);
	u64 addr = obj_addr(obj) + arg->offset, left = arg->bytes;
	void *buf = NULL;
	int ret = 0;

	if (op != MEM_OP_SET) {
		buf = kmalloc(min_t(u64, left, NEURON_MEM_CHUNK), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!buf)
			return -ENOMEM;
	}
	while (left && !ret) {
		size_t n = min_t(u64, left, NEURON_MEM_CHUNK);

		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		if (op == MEM_OP_WRITE && copy_from_user(buf, uptr, n)) {
			ret = -EFAULT;
			break;
		}
		ret = mem_dev_chunk(obj->nd, op, addr, buf, n, arg->value);
		if (!ret && op == MEM_OP_READ && copy_to_user(uptr, buf, n))
			ret = -EFAULT;
		uptr += n;
		addr += n;
		left -= n;
		cond_resched();
	}
	kfree(buf);
	return ret;
}

static int mem_rw_host(struct neuron_mem_obj *obj, enum mem_rw_op op,
		       const struct neuron_mem_rw *arg)
{
	u8 __user *uptr = u64_to_user_ptr(arg->user_ptr);
	u8 *p = (u8 *)obj->host + arg->offset;
	u64 left = arg->bytes;

	/*
	 * Process memory, not the device's: no gone_sem needed. In chunks,
	 * like the device path, so a large transfer can be killed and never
	 * holds the CPU for long.
	 */
	while (left) {
		size_t n = min_t(u64, left, NEURON_MEM_CHUNK);

		if (fatal_signal_pending(current))
			return -EINTR;
		if (op == MEM_OP_READ) {
			if (copy_to_user(uptr, p, n))
				return -EFAULT;
		} else if (op == MEM_OP_WRITE) {
			if (copy_from_user(p, uptr, n))
				return -EFAULT;
		} else {
			memset(p, arg->value, n);
		}
		p += n;
		if (op != MEM_OP_SET)
			uptr += n;
		left -= n;
		cond_resched();
	}
	return 0;
}

/* Called without gone_sem (the table's unlocked column). */
static long mem_ioctl_rw(struct neuron_file *nf, void *karg, enum mem_rw_op op)
{
	struct neuron_mem_obj *obj;
	struct neuron_mem_rw arg;
	int ret;

	ret = neuron_ioctl_arg(&arg, karg, sizeof(arg), 0);
	if (ret)
		return ret;
	if (arg.reserved0 || !neuron_abi_all_zero(arg.reserved, sizeof(arg.reserved)))
		return -EINVAL;
	if (op == MEM_OP_SET ? arg.user_ptr || arg.value > 0xff : arg.value != 0)
		return -EINVAL;
	if (!arg.bytes)
		return -EINVAL;
	if (task_tgid(current) != nf->tgid)
		return -EACCES;
	obj = neuron_mem_get(nf, arg.handle);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	if (!obj_range_ok(obj, arg.offset, arg.bytes))
		ret = -EINVAL;
	else if (obj->location == NEURON_MEM_LOC_DEVICE)
		ret = mem_rw_device(obj, op, &arg);
	else
		ret = mem_rw_host(obj, op, &arg);
	mem_obj_put(obj, false);
	return ret;
}

long neuron_mem_ioctl_read(struct neuron_file *nf, void *karg)
{
	return mem_ioctl_rw(nf, karg, MEM_OP_READ);
}

long neuron_mem_ioctl_write(struct neuron_file *nf, void *karg)
{
	return mem_ioctl_rw(nf, karg, MEM_OP_WRITE);
}

long neuron_mem_ioctl_set(struct neuron_file *nf, void *karg)
{
	return mem_ioctl_rw(nf, karg, MEM_OP_SET);
}

/* ---- for the dma-buf importer (neuron_dmabuf.c) ---------------------------------- */

bool neuron_mem_dev_range_ok(const struct neuron_mem_obj *obj, u64 off, u64 bytes)
{
	return obj->location == NEURON_MEM_LOC_DEVICE && obj_range_ok(obj, off, bytes);
}

int neuron_mem_dev_write(struct neuron_mem_obj *obj, u64 off, const void *buf, size_t len)
{
	if (!neuron_mem_dev_range_ok(obj, off, len))
		return -EINVAL;
	return mem_dev_chunk(obj->nd, MEM_OP_WRITE, obj_addr(obj) + off, (void *)buf, len, 0);
}

void neuron_mem_put(struct neuron_mem_obj *obj)
{
	mem_obj_put(obj, false);
}

/* ---- files and devices -------------------------------------------------------- */

void neuron_mem_file_init(struct neuron_file *nf)
{
	xa_init_flags(&nf->mem_handles, XA_FLAGS_ALLOC1);
	/* 0 is never a tag, so a zero handle is never valid */
	do {
		nf->mem_tag = (u32)atomic_inc_return(&neuron_mem_tags);
	} while (!nf->mem_tag);
}

void neuron_mem_file_release(struct neuron_file *nf)
{
	struct neuron_mem_obj *obj;
	unsigned long idx;

	/* no ioctl of this file runs any more: the table's references are the last */
	xa_for_each(&nf->mem_handles, idx, obj) {
		xa_erase(&nf->mem_handles, idx);
		mem_obj_revoke(obj);
		mem_obj_unhandle(obj);
		mem_obj_put(obj, false);
		cond_resched();
	}
	xa_destroy(&nf->mem_handles);
}

int neuron_mem_init(struct neuron_device *nd)
{
	struct neuron_mem_dev *mem;
	u64 size = 0;
	u32 granules = 0;

	mem = kzalloc(sizeof(*mem), GFP_KERNEL);
	if (!mem)
		return -ENOMEM;
	mutex_init(&mem->lock);
	spin_lock_init(&mem->stat_lock);
	INIT_LIST_HEAD(&mem->nodes);
	mutex_init(&mem->map_lock);
	xa_init(&mem->by_start);
	INIT_LIST_HEAD(&mem->maps);
	if (nd->ops->mem_size && nd->ops->mem_read && nd->ops->mem_write && nd->ops->mem_set)
		size = nd->ops->mem_size(nd->backend);
	/* whole granules, at most 2^32 of them (16 TiB) */
	size = min_t(u64, size, (u64)U32_MAX * NEURON_MEM_GRANULE);
	granules = size / NEURON_MEM_GRANULE;
	if (granules) {
		/* sim_hbm_mb up to 64 GiB: a 2 MiB map, ENOMEM without a stack dump */
		mem->bits = kvcalloc(neuron_mem_range_words(granules), sizeof(u64),
				     GFP_KERNEL | __GFP_NOWARN);
		if (!mem->bits) {
			kfree(mem);
			return -ENOMEM;
		}
		neuron_mem_range_init(&mem->range, mem->bits, granules);
		mem->hbm_size = (u64)granules * NEURON_MEM_GRANULE;
	}
	nd->mem = mem;
	return 0;
}

void neuron_mem_free(struct neuron_device *nd)
{
	struct neuron_mem_dev *mem = nd->mem;

	if (!mem)
		return;
	/* every file is gone, and with it every allocation */
	WARN_ON(!list_empty(&mem->maps));
	xa_destroy(&mem->by_start);
	mutex_destroy(&mem->map_lock);
	kvfree(mem->bits);
	mutex_destroy(&mem->lock);
	kfree(mem);
	nd->mem = NULL;
}
