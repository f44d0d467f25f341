/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Notification queues and NeuronCore reservations of one device.
 *
 * Locking: nq_dev->lock (mutex) protects the ring table, every ring's
 * producer state and contents and the core reservations, whose owners
 * change under it and the core slot's spinlock both (struct
 * neuron_core_slot: a holder's job takes only the slot's). Nothing else
 * is taken under it but those slot locks and the memory accounting's
 * leaf spinlock.
 */
#ifndef NEURON_NQ_PRIV_H
#define NEURON_NQ_PRIV_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/wait.h>

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
 * struct neuron_core_slot - one NeuronCore's reservation, on a cache line
 * of its own: a job of its holder checks and counts itself here alone
 * (neuron_core_job_begin), so jobs on different NeuronCores of a device
 * share no lock and no line
 * @lock:	protects @jobs and @takers; @owner and @since are written
 *		under it and neuron_nq_dev.lock both, and read under either
 * @jobs:	jobs running on it (CORE_RELEASE is refused with -EBUSY
 *		meanwhile, and CORE_TAKE_BACK waits: their entries belong to
 *		the holder)
 * @takers:	CORE_TAKE_BACKs waiting for @jobs to reach 0: no new job of
 *		the holder starts meanwhile (-ECANCELED)
 * @owner:	the process holding the reservation (the proc entry holds the
 *		reference), NULL when free
 * @since:	CLOCK_BOOTTIME ns of the reservation
 */
struct neuron_core_slot {
	spinlock_t lock;	/* @jobs, @takers; @owner and @since with neuron_nq_dev.lock */
	u32 jobs;
	u32 takers;
	struct pid *owner;
	u64 since;
} ____cacheline_aligned_in_smp;

/**
 * struct neuron_nq_dev - the rings and NeuronCore reservations of a device
 * @lock:	protects everything here but what a core slot's own lock
 *		does, and every ring's producer state and contents
 * @rings:	per NeuronCore, per (type, engine)
 * @cores:	per NeuronCore, its reservation
 * @taken:	processes root took NeuronCores back from (struct
 *		neuron_core_taken), each until its last close
 * @idle_wq:	CORE_TAKE_BACK waits here for a core's last job to end
 */
struct neuron_nq_dev {
	struct mutex lock;
	struct neuron_nq *rings[NEURON_MAX_NC][NEURON_NQ_PER_NC];
	struct neuron_core_slot cores[NEURON_MAX_NC];
	struct list_head taken;
	wait_queue_head_t idle_wq;
};

/**
 * struct neuron_core_taken - the NeuronCores taken back from one process
 * @node:	in neuron_nq_dev.taken
 * @tgid:	the process (the proc entry holds the reference; the entry
 *		goes in neuron_nq_release_tgid, before it is dropped)
 * @nc_map:	bit K: NeuronCore K was taken; its use is -ECANCELED
 */
struct neuron_core_taken {
	struct list_head node;
	struct pid *tgid;
	u32 nc_map;
};

int neuron_nq_init(struct neuron_device *nd);
/* Device removal: nothing new may start (the tables stay for open files). */
void neuron_nq_exit(struct neuron_device *nd);
/* The device's last reference: free the tables and every ring left. */
void neuron_nq_free(struct neuron_device *nd);
/* The last file of @tgid went: free its rings and core reservations. */
void neuron_nq_release_tgid(struct neuron_device *nd, struct pid *tgid);
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
 * A reset of NeuronCores *@nc_map asked by @tgid (neuron_reset.c): each
 * must be @tgid's (-EACCES; -ECANCELED when root took it back) with no
 * job running and no ring mapped (-EBUSY); with @held_only only those
 * @tgid holds count, and *@nc_map becomes them. Their rings leave the
 * table and are freed. Sleeps.
 */
int neuron_core_reset_rings(struct neuron_device *nd, struct pid *tgid, u32 *nc_map,
			    bool held_only);
long neuron_core_ioctl_reserve(struct neuron_file *nf, void *karg);
long neuron_core_ioctl_release(struct neuron_file *nf, void *karg);
long neuron_core_ioctl_take_back(struct neuron_file *nf, void *karg);

/*
 * The vendor's range marks (docs/vendor-abi.md), reservations as
 * CORE_RESERVE makes them. Mark: the first run of @count NeuronCores in
 * @start..@end (past the last core: the last core) that nobody holds, the
 * caller included, becomes the caller's process's; *@map the run (bit n =
 * core n), *@longest the longest free run in the range; -EBUSY when none
 * fits, -EINVAL for a bad range, -EACCES through another process's file.
 * Unmark: each core of @map the caller holds is released as CORE_RELEASE
 * does; others are ignored; -EBUSY when one stays held.
 */
int neuron_core_mark_range(struct neuron_file *nf, u32 count, u32 start, u32 end, u64 *map,
			   u32 *longest);
int neuron_core_unmark(struct neuron_file *nf, u64 map);

/*
 * The NeuronCores root took back from @tgid (bit n = core n), until its
 * last close: a slab it claims anew does not count for them. Takes
 * nq->lock; may be called under nds->lock (order nds->lock -> nq->lock).
 */
u32 neuron_core_taken_map(struct neuron_device *nd, struct pid *tgid);

/*
 * The process holding NeuronCore @nc (a reference, to put_pid()) and the
 * CLOCK_BOOTTIME ns of its reservation in *@since_ns; NULL when free.
 */
struct pid *neuron_core_owner_get(struct neuron_device *nd, u32 nc, u64 *since_ns);

/*
 * The device writes @n entries into ring (@nc, @type, @engine), which
 * takes them only when it belongs to the process holding NeuronCore @nc.
 * Adds to *@written the entries written and to *@dropped the others (a
 * full ring, no such ring).
 */
void neuron_nq_emit(struct neuron_device *nd, u32 nc, u32 type, u32 engine,
		    const struct neuron_nq_entry *e, u32 n, u32 *written, u32 *dropped);
/*
 * A job on @nc: reserve it for @tgid (-EBUSY while another process holds
 * it, -ECANCELED when root took it back from @tgid) and count the job;
 * CORE_RELEASE and CORE_TAKE_BACK are refused until every job's
 * neuron_core_job_end(). A job of the core's holder takes only the
 * core's slot lock.
 */
int neuron_core_job_begin(struct neuron_device *nd, u32 nc, struct pid *tgid);
void neuron_core_job_end(struct neuron_device *nd, u32 nc);

#endif /* NEURON_NQ_PRIV_H */
