/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NeuronCore ownership of one device (neuron_core.c): which process holds
 * each NeuronCore (CORE_RESERVE, the vendor's range marks, a job's first
 * use), the jobs running on it, CORE_RELEASE, root's CORE_TAKE_BACK, and
 * what a reset of NeuronCores takes from their holder.
 *
 * Locking: neuron_core_dev.lock (mutex) protects the reservations, whose
 * holders change under it and the core slot's spinlock both (a holder's
 * job takes only the slot's), each holder process's @cores_taken, and the
 * notification ring table (neuron_nq.c): a ring exists only on a
 * NeuronCore its creator holds, and leaves with the reservation. Nothing
 * is taken under it but the slot locks and the memory accounting's leaf
 * spinlock. Order: procs_lock -> nds->lock -> neuron_core_dev.lock, and
 * health.lock -> neuron_core_dev.lock (a health change names the core's
 * holder).
 */
#ifndef NEURON_CORE_H
#define NEURON_CORE_H

#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "neuron_backend.h"

struct neuron_device;
struct neuron_file;
struct neuron_proc;
struct pid;

/**
 * struct neuron_core_slot - one NeuronCore's reservation, on a cache line
 * of its own: a job of its holder checks and counts itself here alone
 * (neuron_core_job_begin), so jobs on different NeuronCores of a device
 * share no lock and no line
 * @lock:	protects @jobs and @takers; @holder and @since are written
 *		under it and neuron_core_dev.lock both, and read under either
 * @jobs:	jobs running on it (CORE_RELEASE is refused with -EBUSY
 *		meanwhile, and CORE_TAKE_BACK waits: their entries belong to
 *		the holder)
 * @takers:	CORE_TAKE_BACKs waiting for @jobs to reach 0: no new job of
 *		the holder starts meanwhile (-ECANCELED)
 * @holder:	the process holding the reservation, NULL when free; cleared
 *		before that process's last close frees its struct neuron_proc
 * @since:	CLOCK_BOOTTIME ns of the reservation
 */
struct neuron_core_slot {
	spinlock_t lock;	/* @jobs, @takers; @holder and @since with neuron_core_dev.lock */
	u32 jobs;
	u32 takers;
	struct neuron_proc *holder;
	u64 since;
} ____cacheline_aligned_in_smp;

/**
 * struct neuron_core_dev - the NeuronCore reservations of a device
 * @lock:	see the top of this file
 * @slots:	per NeuronCore, its reservation
 * @idle_wq:	CORE_TAKE_BACK waits here for a core's last job to end
 */
struct neuron_core_dev {
	struct mutex lock;
	struct neuron_core_slot slots[NEURON_MAX_NC];
	wait_queue_head_t idle_wq;
};

int neuron_core_init(struct neuron_device *nd);
void neuron_core_free(struct neuron_device *nd);

/*
 * The last file of @p went: its reservations and the rings on them are
 * freed, and what root took back from it forgotten. Caller holds procs_lock.
 */
void neuron_core_release_proc(struct neuron_device *nd, struct neuron_proc *p);

/*
 * Reserve @nc for @p: 0, -EBUSY when another process holds it, or
 * -ECANCELED when root took it back from @p. Caller holds
 * neuron_core_dev.lock (a ring's creation reserves its core first).
 */
int neuron_core_reserve_locked(struct neuron_device *nd, u32 nc, struct neuron_proc *p);

/* True when @tgid holds @nc. Caller holds neuron_core_dev.lock. */
bool neuron_core_held_by_locked(struct neuron_device *nd, u32 nc, struct pid *tgid);

/* ioctl handlers (neuron_cdev.c table) */
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
 * A reset of NeuronCores *@nc_map asked through @nf (neuron_reset.c): each
 * must be the caller's (-EACCES; -ECANCELED when root took it back) with
 * no job running and no ring mapped (-EBUSY); with @held_only only those
 * the caller holds count, and *@nc_map becomes them. Their rings leave
 * the table and are freed. Caller holds procs_lock. Sleeps.
 */
int neuron_core_reset_rings(struct neuron_file *nf, u32 *nc_map, bool held_only);

/*
 * The NeuronCores root took back from @p (bit n = core n), until its last
 * close: a slab it claims anew does not count for them. Takes
 * neuron_core_dev.lock; may be called under nds->lock.
 */
u32 neuron_core_taken_map(struct neuron_device *nd, struct neuron_proc *p);

/* The NeuronCores @p holds (bit n = core n). Takes neuron_core_dev.lock. */
u32 neuron_core_held_map(struct neuron_device *nd, struct neuron_proc *p);

/* A process's name as the kernel keeps it (TASK_COMM_LEN bytes with the NUL) */
struct neuron_comm {
	char s[TASK_COMM_LEN];
};

/* The name of process @tgid (its thread group leader's) in @comm: false when it has exited. */
bool neuron_pid_comm(struct pid *tgid, struct neuron_comm *comm);

/*
 * The process holding NeuronCore @nc (a reference, to put_pid()) and the
 * CLOCK_BOOTTIME ns of its reservation in *@since_ns; NULL when free.
 */
struct pid *neuron_core_owner_get(struct neuron_device *nd, u32 nc, u64 *since_ns);

/*
 * A job on @nc: reserve it for @p (-EBUSY while another process holds it,
 * -ECANCELED when root took it back from @p) and count the job;
 * CORE_RELEASE and CORE_TAKE_BACK are refused until every job's
 * neuron_core_job_end(). A job of the core's holder takes only the core's
 * slot lock.
 */
int neuron_core_job_begin(struct neuron_device *nd, u32 nc, struct neuron_proc *p);
void neuron_core_job_end(struct neuron_device *nd, u32 nc);

#endif /* NEURON_CORE_H */
