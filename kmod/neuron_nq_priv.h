/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Notification queues of one device.
 *
 * Locking: the core table's lock (neuron_core.h) protects the ring table
 * and every ring's producer state and contents: a ring belongs to its
 * NeuronCore's reservation.
 */
#ifndef NEURON_NQ_PRIV_H
#define NEURON_NQ_PRIV_H

#include <linux/refcount.h>
#include <linux/types.h>

#include <neuron/neuron_nq.h>

#include "neuron_backend.h"
#include "neuron_nq_ring.h"

struct neuron_device;
struct neuron_file;
struct pid;
struct vm_area_struct;

#define NEURON_NQ_PER_NC	(NEURON_NQ_TYPE_MAX * NEURON_NQ_MAX_ENGINE)

/**
 * struct neuron_nq - one ring
 * @owner:	the process that created it (the proc entry holds the ref)
 * @nc:		its NeuronCore (memory accounting)
 * @vendor:	the vendor's kind (NOTIFICATIONS_INIT_*): mapped without its
 *		control page, written on around the ring with no consumer
 *		index (the driver keeps the control page's head at the tail)
 * @ring_size:	bytes of entries
 * @map_size:	bytes of the mapping (control page + entries, page aligned)
 * @mem:	the mapping's memory (neuron_alloc_user_mem: charged to the
 *		creator's memory cgroup)
 * @maps:	live mappings (vm_ops open/close); NQ_RELEASE and CORE_RELEASE
 *		refuse a mapped ring (-EBUSY), so a ring's memory is never
 *		pinned by a mapping after the driver let it go
 * @refs:	the ring table's reference and one per mapping: CORE_TAKE_BACK
 *		takes a mapped ring out of the table, and the last unmap
 *		frees it (and ends its accounting)
 * @nd:		its device (alive while a mapping is: the mapping holds a
 *		file, the file the device)
 * @prod:	producer state (device side)
 */
struct neuron_nq {
	struct pid *owner;
	u32 nc;
	bool vendor;
	u32 ring_size;
	size_t map_size;
	void *mem;
	atomic_t maps;
	refcount_t refs;
	struct neuron_device *nd;
	struct neuron_nq_producer prod;
};

/*
 * Ring bytes (mapping sizes) one process may hold on one device; NQ_INIT
 * past it is -ENOSPC. 16 MiB: 16 rings of the largest size, or every
 * error ring of 8 NeuronCores at 1 MiB twice over.
 */
#define NEURON_NQ_PROC_BYTES_MAX	(16UL << 20)

/**
 * struct neuron_nq_dev - the rings of a device, under the core table's lock
 * @rings:	per NeuronCore, per (type, engine)
 */
struct neuron_nq_dev {
	struct neuron_nq *rings[NEURON_MAX_NC][NEURON_NQ_PER_NC];
};

int neuron_nq_init(struct neuron_device *nd);
/* The device's last reference: free the table and every ring left. */
void neuron_nq_free(struct neuron_device *nd);
/*
 * Drop a reference: the ring table's (when it lets the ring go) or a
 * mapping's. The last one frees the ring. Never under the core table's
 * lock (a ring taken out of the table is put after it).
 */
void neuron_nq_put(struct neuron_nq *q);
/*
 * For neuron_core.c, under the core table's lock: whether a ring of @nc
 * is mapped; @nc's rings (those of @tgid) taken out of the table into
 * @doomed (room for NEURON_NQ_PER_NC), how many.
 */
bool neuron_nq_core_mapped_locked(struct neuron_device *nd, u32 nc);
int neuron_nq_core_take_locked(struct neuron_device *nd, u32 nc, struct neuron_nq **doomed);
int neuron_nq_proc_take_locked(struct neuron_device *nd, u32 nc, struct pid *tgid,
			       struct neuron_nq **doomed);
/* mmap of a ring by its cookie offset; NEURON_MMAP_NOT_MINE outside the ring range */
int neuron_nq_mmap(struct neuron_file *nf, struct vm_area_struct *vma);

/* ioctl handlers (neuron_cdev.c table) */
long neuron_nq_ioctl_init(struct neuron_file *nf, void *karg);
long neuron_nq_ioctl_release(struct neuron_file *nf, void *karg);
/*
 * The vendor's NOTIFICATIONS_INIT_*: the caller's ring of the vendor's
 * kind (entries alone in the mapping) on NeuronCore @nc; @replace: a new
 * ring even if one exists (-EBUSY while that one is mapped). The mmap
 * cookie and a handle back.
 */
int neuron_nq_vendor_init(struct neuron_file *nf, u32 nc, u32 type, u32 engine, u32 size,
			  bool replace, u64 *mmap_offset, u64 *handle);
/*
 * The device writes @n entries into ring (@nc, @type, @engine), which
 * takes them only when it belongs to the process holding NeuronCore @nc.
 * Adds to *@written the entries written and to *@dropped the others (a
 * full ring, no such ring).
 */
void neuron_nq_emit(struct neuron_device *nd, u32 nc, u32 type, u32 engine,
		    const struct neuron_nq_entry *e, u32 n, u32 *written, u32 *dropped);

#endif /* NEURON_NQ_PRIV_H */
