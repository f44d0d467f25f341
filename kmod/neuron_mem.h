/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory the driver allocates for processes (neuron_mem.c): device memory
 * (HBM) and host memory through MEM_ALLOC and its handles, and the
 * accounting every driver allocation goes through (neuron_memstat.c), which
 * the sysfs memory_usage trees show.
 *
 * Locking: mem->lock (mutex) protects the HBM address space and the
 * per-process usage list; mem->stat_lock (spinlock) protects the
 * accounting cells and is a leaf: it may be taken under any other lock of
 * the driver (nq_dev->lock, nds->lock) and nothing is taken under it.
 */
#ifndef NEURON_MEM_H
#define NEURON_MEM_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include <neuron/neuron_ioctl.h>

#include "neuron_backend.h"
#include "neuron_mem_range.h"

struct kobject;
struct neuron_device;
struct neuron_file;
struct neuron_job_buf;
struct neuron_proc;
struct vm_area_struct;

/* root stats/memory_usage/host_mem/<name> (facts: nds-sysfs-metrics 2.3c) */
#define NEURON_MEMSTAT_HOST_CATS	8

/**
 * struct neuron_memstat_cell - one memory_usage counter (nds-sysfs-metrics 2.4)
 * @total:	bytes in use now (allocations minus frees; never below 0)
 * @present:	size of the last allocation or free
 * @peak:	highest @total seen
 */
struct neuron_memstat_cell {
	u64 total;
	u64 present;
	u64 peak;
};

/**
 * struct neuron_mem_dev - memory state of one device
 * @lock:	protects @range and the usage of every process
 *		(neuron_proc.mem_host, .mem_device)
 * @hbm_size:	bytes of device memory (0: none)
 * @range:	the HBM address space in NEURON_MEM_GRANULE granules
 * @bits:	its bitmap
 * @stat_lock:	protects the cells below (a leaf lock)
 * @root_host:	root host_mem/<category>
 * @nc_host:	neuron_core<K>/stats/memory_usage/host_mem
 * @nc_dev:	neuron_core<K>/stats/memory_usage/device_mem
 * @nc_dev_cat:	neuron_core<K>/stats/memory_usage/device_mem/<category>
 * @nodes:	the memory_usage sysfs directories (neuron_memstat.c)
 * @map_lock:	protects @by_start's lookups and removals, @maps, @maps_dead
 *		and every mapping's state (struct neuron_mem_map, neuron_mem.c);
 *		taken under mmap_lock (mmap, faults), never held while taking
 *		gone_sem or mem->lock
 * @by_start:	first granule -> device allocation, while it lives
 * @maps:	mapped allocations' mapping state, until revoked
 * @maps_dead:	the device is gone: every mapping revoked, no new one
 * @maps_held:	a device reset runs: no new mapping (neuron_mem_hold_maps())
 * @exports:	dma-bufs exported from its allocations that are alive (map_lock)
 */
struct neuron_mem_dev {
	struct mutex lock;
	u64 hbm_size;
	struct neuron_mem_range range;
	u64 *bits;
	spinlock_t stat_lock;
	struct neuron_memstat_cell root_host[NEURON_MEMSTAT_HOST_CATS];
	struct neuron_memstat_cell nc_host[NEURON_MAX_NC];
	struct neuron_memstat_cell nc_dev[NEURON_MAX_NC];
	struct neuron_memstat_cell nc_dev_cat[NEURON_MAX_NC][NEURON_MEM_CAT_COUNT];
	struct list_head nodes;
	struct mutex map_lock;
	struct xarray by_start;
	struct list_head maps;
	bool maps_dead;
	bool maps_held;
	unsigned int exports;
};

/* Device creation (after the backend is known) and the device's release. */
int neuron_mem_init(struct neuron_device *nd);
void neuron_mem_free(struct neuron_device *nd);

/*
 * mmap of a device allocation by its cookie (NEURON_MEM_MMAP_OFFSET, UAPI):
 * NEURON_MMAP_NOT_MINE outside the cookie range. neuron_mem_revoke_all:
 * the device is gone (after @gone is set, before the backend goes): every
 * mapping's pages are unmapped and later faults get SIGBUS.
 */
int neuron_mem_mmap(struct neuron_file *nf, struct vm_area_struct *vma);
void neuron_mem_revoke_all(struct neuron_device *nd);
/* GET_INFO: allocations of this device can be mapped */
bool neuron_mem_can_map(struct neuron_device *nd);
/*
 * A device reset discards device memory, so no page of it may be mapped
 * while one runs. neuron_mem_hold_maps(): false while an allocation of the
 * device has mapping state (it was mapped and is not freed) or a dma-buf
 * of one lives; otherwise true, and until neuron_mem_release_maps() an
 * mmap of device memory is refused (EBUSY). A dma-buf export needs a
 * mapping, so none starts either. The caller holds procs_lock.
 */
bool neuron_mem_hold_maps(struct neuron_device *nd);
void neuron_mem_release_maps(struct neuron_device *nd);

/* Per open file: its handle table. Release frees everything the file allocated. */
void neuron_mem_file_init(struct neuron_file *nf);
void neuron_mem_file_release(struct neuron_file *nf);

/* ioctl handlers (neuron_cdev.c table); READ/WRITE/SET take gone_sem themselves */
long neuron_mem_ioctl_alloc(struct neuron_file *nf, void *karg);
long neuron_mem_ioctl_free(struct neuron_file *nf, void *karg);
long neuron_mem_ioctl_read(struct neuron_file *nf, void *karg);
long neuron_mem_ioctl_write(struct neuron_file *nf, void *karg);
long neuron_mem_ioctl_set(struct neuron_file *nf, void *karg);

/*
 * A model job's data (neuron_job.c, under gone_sem): the allocation behind
 * @handle of @nf, referenced, or an ERR_PTR (-ENOENT). neuron_mem_job_buf
 * describes [@off, @off + @bytes) of it for the backend (-EINVAL out of
 * range); neuron_mem_put_locked drops the reference (caller holds gone_sem
 * and the device is not gone).
 */
struct neuron_mem_obj;
struct neuron_mem_obj *neuron_mem_get(struct neuron_file *nf, u64 handle);
int neuron_mem_job_buf(struct neuron_mem_obj *obj, u64 off, u64 bytes, struct neuron_job_buf *b);
bool neuron_mem_same(const struct neuron_mem_obj *a, const struct neuron_mem_obj *b);
void neuron_mem_put_locked(struct neuron_mem_obj *obj);
/* the same without gone_sem held */
void neuron_mem_put(struct neuron_mem_obj *obj);
/*
 * The dma-buf importer: [@off, @off + @bytes) is within a device
 * allocation; write @len bytes at @off of it (takes gone_sem; -ENODEV once
 * the device is gone).
 */
bool neuron_mem_dev_range_ok(const struct neuron_mem_obj *obj, u64 off, u64 bytes);
int neuron_mem_dev_write(struct neuron_mem_obj *obj, u64 off, const void *buf, size_t len);

/*
 * dma-buf export (neuron_dmabuf.c) of device memory a process mapped.
 * neuron_mem_export_get: the allocation the caller's mapping shows at
 * [@va, @va + @len) (@va page aligned, the range within one mapping of the
 * allocation through its own file, the allocation live), referenced and
 * counted as exported (a device reset is refused while it is), with its
 * device and the range's offset in it; ERR_PTR(-EINVAL) otherwise.
 * neuron_mem_export_pages: the pages of @n pages from @off, referenced
 * (put_page each); -ENODEV once the device is gone. neuron_mem_export_mmap:
 * map the range into @vma (a dma-buf's), creating its mapping state @mapp
 * (revoked at the device's removal) on the first call.
 * neuron_mem_export_put: the dma-buf is released.
 */
struct page;
struct neuron_mem_map;
struct neuron_mem_obj *neuron_mem_export_get(u64 va, u64 len, struct neuron_device **ndp,
					     u64 *offp);
u64 neuron_mem_export_addr(const struct neuron_mem_obj *obj);
int neuron_mem_export_pages(struct neuron_mem_obj *obj, u64 off, unsigned int n,
			    struct page **pages);
int neuron_mem_export_mmap(struct neuron_mem_obj *obj, u64 off, u64 len,
			   struct neuron_mem_map **mapp, struct vm_area_struct *vma);
void neuron_mem_export_put(struct neuron_mem_obj *obj, struct neuron_mem_map *map);

/*
 * Usage of one process on the device: bytes of MEM allocations it holds,
 * host (page-rounded, what the per-process cap counts) and device.
 */
void neuron_mem_proc_usage(const struct neuron_proc *p, u64 *host, u64 *device);

/* ---- accounting (neuron_memstat.c) ---------------------------------------- */

/*
 * The driver allocated (@add) or freed @bytes of @location memory of
 * @category (NEURON_MEM_CAT_*) for NeuronCore @nc: moves the core's
 * host_mem or device_mem counter and the category's counter (root
 * host_mem/<cat> for host memory, the core's device_mem/<cat> for device
 * memory). Any context; takes only stat_lock.
 */
void neuron_memstat_account(struct neuron_device *nd, u32 nc, u32 location, u32 category,
			    u64 bytes, bool add);

/* The memory_usage sysfs directories (called by neuron_sysfs.c). */
int neuron_memstat_sysfs_root(struct neuron_device *nd, struct kobject *stats);
int neuron_memstat_sysfs_core(struct neuron_device *nd, u32 nc, struct kobject *stats);
void neuron_memstat_sysfs_exit(struct neuron_device *nd);

#endif /* NEURON_MEM_H */
