// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "neuron_nq_ring.h"

bool neuron_nq_size_valid(u32 ring_size)
{
	return ring_size >= NEURON_NQ_MIN_SIZE && ring_size <= NEURON_NQ_MAX_SIZE &&
	       !(ring_size & (ring_size - 1));
}

void neuron_nq_producer_init(struct neuron_nq_producer *p, struct neuron_nq_ctrl *ctrl,
			     u32 entries)
{
	memset(p, 0, sizeof(*p));
	p->entries = entries;
	memset(ctrl, 0, sizeof(*ctrl));
	ctrl->entries = entries;
}

int neuron_nq_produce(struct neuron_nq_producer *p, struct neuron_nq_ctrl *ctrl,
		      struct neuron_nq_entry *ring, const struct neuron_nq_entry *e)
{
	u32 head = neuron_load_acquire(&ctrl->head);
	struct neuron_nq_entry *slot;
	u8 header;

	/*
	 * tail - head is the fill level; anything above the capacity (a head
	 * the consumer moved backwards or past the tail) is treated as full,
	 * so a misbehaving consumer only loses its own entries.
	 */
	if (p->tail - head >= p->entries) {
		p->dropped++;
		p->overflow_pending = true;
		neuron_write_once(&ctrl->dropped, p->dropped);
		return -ENOSPC;
	}

	header = e->header & ~(NEURON_NQ_HDR_PHASE | NEURON_NQ_HDR_SW_OVERFLOW);
	header |= neuron_nq_phase(p->tail, p->entries);
	if (p->overflow_pending)
		header |= NEURON_NQ_HDR_SW_OVERFLOW;

	slot = &ring[p->tail & (p->entries - 1)];
	neuron_write_once(&slot->error_id, e->error_id);
	neuron_write_once(&slot->metadata_lo[0], e->metadata_lo[0]);
	neuron_write_once(&slot->metadata_lo[1], e->metadata_lo[1]);
	neuron_write_once(&slot->metadata_hi, e->metadata_hi);
	neuron_write_once(&slot->timestamp_ps, e->timestamp_ps);
	/* the header (with the phase) makes the entry visible: last */
	neuron_store_release(&slot->header, header);

	p->tail++;
	p->written++;
	p->overflow_pending = false;
	neuron_write_once(&ctrl->written, p->written);
	neuron_store_release(&ctrl->tail, p->tail);
	return 0;
}
