/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Notification queues and NeuronCore reservations of one device.
 *
 * Locking: nq_dev->lock (mutex) protects the ring table, every ring's
 * producer state and contents, the core reservations and the armed faults.
 * A core's job_lock serialises jobs on that core and is taken before
 * nq_dev->lock, never while holding it.
 */
#ifndef NEURON_NQ_INTERNAL_H
#define NEURON_NQ_INTERNAL_H

#include <linux/mutex.h>
#include <linux/types.h>

#include <neuron/neuron_nq.h>

#include "neuron.h"
#include "neuron_nq_ring.h"

#define NEURON_NQ_PER_NC	(NEURON_NQ_TYPE_MAX * NEURON_NQ_MAX_ENGINE)

/**
 * struct neuron_nq - one ring
 * @owner:	the process that created it (the proc entry holds the ref)
 * @ring_size:	bytes of entries
 * @map_size:	bytes of the mapping (control page + entries, page aligned)
 * @mem:	the mapping's memory (vmalloc_user)
 * @prod:	producer state (device side)
 */
struct neuron_nq {
	struct pid *owner;
	u32 ring_size;
	size_t map_size;
	void *mem;
	struct neuron_nq_producer prod;
};

/**
 * struct neuron_core - one NeuronCore's host-side state
 * @owner:	the process holding the reservation, NULL when free
 * @job_lock:	held while a job runs on the core
 * @tpb:	armed TPB errors per NEURON_ISA_TPB_ERROR_TYPE (counts)
 * @hw:		armed hardware faults per enum neuron_nq_hw_error (counts)
 * @flood:	armed filler entries (an NQ flood)
 * @hang:	the next job hangs
 */
struct neuron_core {
	struct pid *owner;
	struct mutex job_lock;
	u32 tpb[NEURON_TPB_ERROR_COUNT];
	u32 hw[NEURON_NQ_HW_COUNT];
	u32 flood;
	bool hang;
};

struct neuron_nq_dev {
	struct mutex lock;
	struct neuron_nq *rings[NEURON_MAX_NC][NEURON_NQ_PER_NC];
	struct neuron_core cores[NEURON_MAX_NC];
};

/* ioctl handlers */
long neuron_nq_ioctl_init(struct neuron_file *nf, void __user *uarg);
long neuron_nq_ioctl_release(struct neuron_file *nf, void __user *uarg);
long neuron_core_ioctl_reserve(struct neuron_file *nf, void __user *uarg);
long neuron_core_ioctl_release(struct neuron_file *nf, void __user *uarg);
long neuron_sim_ioctl_exec(struct neuron_file *nf, void __user *uarg);

/*
 * Write @e into ring (@nc, @type, @engine). Caller holds nq_dev->lock.
 * 0, -ENOSPC (full: dropped and counted) or -ENOENT (no such ring).
 */
int neuron_nq_emit_locked(struct neuron_device *nd, u32 nc, u32 type, u32 engine,
			  const struct neuron_nq_entry *e);

/* Reserve @nc for @tgid: 0, or -EBUSY when another process holds it. Locked. */
int neuron_core_reserve_locked(struct neuron_device *nd, u32 nc, struct pid *tgid);

/* The simulated NeuronCore: fault knobs under inject/ (sim/neuron_sim_core.c). */
void neuron_sim_core_debugfs(struct neuron_device *nd);

#endif /* NEURON_NQ_INTERNAL_H */
