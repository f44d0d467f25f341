/* SPDX-License-Identifier: GPL-2.0 */
/* The metrics sysfs tree of a device (neuron_sysfs.c). */
#ifndef NEURON_SYSFS_H
#define NEURON_SYSFS_H

struct neuron_device;

/*
 * Build the tree under the class device: 0 or a negative errno. On an
 * error, what was built stays until neuron_sysfs_exit(), which the caller
 * calls once the device is marked gone.
 */
int neuron_sysfs_init(struct neuron_device *nd);
/* Remove it; waits for readers in progress. */
void neuron_sysfs_exit(struct neuron_device *nd);
/* Counters folded outside a sysfs read changed: notify pollers if enabled. */
void neuron_sysfs_counters_changed(struct neuron_device *nd);
/* The same with @nd->gone_sem held by the caller (an ioctl). */
void neuron_sysfs_counters_changed_locked(struct neuron_device *nd);
/*
 * health_status/hw_error_events changed: sysfs_notify (always, as the
 * vendor's). Any context; only before neuron_sysfs_exit().
 */
void neuron_sysfs_hw_events_changed(struct neuron_device *nd);

#endif /* NEURON_SYSFS_H */
