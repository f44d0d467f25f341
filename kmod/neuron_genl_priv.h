/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "neuron" generic netlink family (<neuron/neuron_genl.h>): counters
 * dump and the "errors" multicast group.
 */
#ifndef NEURON_GENL_PRIV_H
#define NEURON_GENL_PRIV_H

#include <linux/types.h>

struct neuron_device;
struct pid;

int neuron_genl_init(void);
void neuron_genl_exit(void);

/*
 * A job of process @tgid on @nc wrote @count error entries of one kind
 * (enum neuron_genl_event_kind) and @code, whose recovery action is
 * @action. Process context, no lock held; may sleep. Takes the device's
 * next event sequence number even when nobody listens; a failure to build
 * or send the notification is counted as a drop, and the job never sees
 * it.
 */
void neuron_genl_error_event(struct neuron_device *nd, u32 nc, u32 kind, u32 code,
			     u32 count, u32 action, struct pid *tgid);

/*
 * The health of the device (@nc < 0) or of NeuronCore @nc went from @prev
 * to @state for @reason (enum neuron_health_state, _reason), with recovery
 * action @action; @tgid the process holding the NeuronCore, or NULL.
 * Process context; may sleep. Sequence and drops as above.
 */
void neuron_genl_health_event(struct neuron_device *nd, s32 nc, u32 prev, u32 state,
			      u32 reason, u32 action, struct pid *tgid);

#endif /* NEURON_GENL_PRIV_H */
