/* SPDX-License-Identifier: GPL-2.0 */
/* debugfs fault injection: /sys/kernel/debug/neuron/neuron<N>/inject/ (root only). */
#ifndef NEURON_INJECT_H
#define NEURON_INJECT_H

struct neuron_device;
struct dentry;

/* Create inject/ and its knobs; returns the directory (or an error pointer). */
struct dentry *neuron_inject_init(struct neuron_device *nd);

#endif /* NEURON_INJECT_H */
