/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The periodic metrics post to firmware (neuron_metrics.c): started last
 * when a device is created, stopped first when it is removed; stopping
 * never blocks on a hung firmware.
 */
#ifndef NEURON_METRICS_H
#define NEURON_METRICS_H

struct neuron_device;

int neuron_metrics_start(struct neuron_device *nd);
void neuron_metrics_stop(struct neuron_device *nd);
/* Post now (debugfs fw/post_now); 0 or a negative errno. */
int neuron_metrics_post_now(struct neuron_device *nd);

#endif /* NEURON_METRICS_H */
