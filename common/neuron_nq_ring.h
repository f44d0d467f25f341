/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The producer side of a notification ring (pure logic, host-tested): what
 * the device does when it writes an entry. The simulated NeuronCore uses
 * it in the kernel; host tests pair it with libnrt's consumer.
 */
#ifndef NEURON_NQ_RING_H
#define NEURON_NQ_RING_H

#include "neuron_pure.h"

#include <neuron/neuron_nq.h>

/**
 * struct neuron_nq_producer - producer state, private to the device
 * @tail:	next index to write (free-running)
 * @entries:	ring capacity, a power of two
 * @dropped:	entries dropped because the ring was full
 * @written:	entries written
 * @overflow_pending: an entry was dropped since the last one written; the
 *		next entry written carries NEURON_NQ_HDR_SW_OVERFLOW
 *
 * The producer never trusts the shared control area except for the
 * consumer's head, which it only compares.
 */
struct neuron_nq_producer {
	u32 tail;
	u32 entries;
	u64 dropped;
	u64 written;
	bool overflow_pending;
};

/* True for a valid ring size in bytes (power of two within the limits). */
bool neuron_nq_size_valid(u32 ring_size);

/* Start an empty ring of @entries (a power of two); zeroes @ctrl. */
void neuron_nq_producer_init(struct neuron_nq_producer *p, struct neuron_nq_ctrl *ctrl,
			     u32 entries);

/*
 * Write @e (its phase and SW-overflow header bits are set here) at the
 * tail. 0 when written; -ENOSPC when the ring is full (the entry is
 * dropped and counted). The entry body is written before its header byte,
 * and the header before the tail, each with release ordering.
 */
int neuron_nq_produce(struct neuron_nq_producer *p, struct neuron_nq_ctrl *ctrl,
		      struct neuron_nq_entry *ring, const struct neuron_nq_entry *e);

#endif /* NEURON_NQ_RING_H */
