// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated devices' topology (connected_devices): the live simulated
 * devices, ordered by their index N of /dev/neuron<N>, form a ring; each
 * is linked to the previous and the next one (wrapping), never to itself.
 * Two devices are linked to each other, one device has no link. A device
 * added or removed at run time changes its neighbours' links.
 *
 * Locking: neuron_sim_topo_lock (spinlock) protects neuron_sim_topo_live.
 * It is a leaf, taken alone, so a sysfs read never waits for a device
 * being added or removed (which waits for sysfs readers).
 */
#include <linux/bitmap.h>
#include <linux/spinlock.h>

#include "../neuron_device.h"
#include "neuron_sim.h"

static DEFINE_SPINLOCK(neuron_sim_topo_lock);	/* protects neuron_sim_topo_live */
static DECLARE_BITMAP(neuron_sim_topo_live, NEURON_MAX_DEVICES);

void neuron_sim_topo_add(struct neuron_sim_dev *sd)
{
	spin_lock(&neuron_sim_topo_lock);
	__set_bit(sd->index, neuron_sim_topo_live);
	spin_unlock(&neuron_sim_topo_lock);
}

void neuron_sim_topo_del(struct neuron_sim_dev *sd)
{
	spin_lock(&neuron_sim_topo_lock);
	__clear_bit(sd->index, neuron_sim_topo_live);
	spin_unlock(&neuron_sim_topo_lock);
}

/* ops->connected_devices */
u32 neuron_sim_topo_links(void *backend, u32 *ids, u32 max)
{
	struct neuron_sim_dev *sd = backend;
	u32 self = sd->index, prev = self, next = self, i, n = 0;

	spin_lock(&neuron_sim_topo_lock);
	for (i = 1; i < NEURON_MAX_DEVICES; i++) {
		u32 j = (self + i) % NEURON_MAX_DEVICES;

		if (test_bit(j, neuron_sim_topo_live)) {
			next = j;
			break;
		}
	}
	for (i = 1; i < NEURON_MAX_DEVICES; i++) {
		u32 j = (self + NEURON_MAX_DEVICES - i) % NEURON_MAX_DEVICES;

		if (test_bit(j, neuron_sim_topo_live)) {
			prev = j;
			break;
		}
	}
	spin_unlock(&neuron_sim_topo_lock);

	if (prev != self && n < max)
		ids[n++] = min(prev, next);
	if (next != self && next != prev && n < max)
		ids[n++] = max(prev, next);
	return n;
}
