/* SPDX-License-Identifier: GPL-2.0 */
/* stats/power/utilization (neuron_power.c): the firmware's power words, rolled up. */
#ifndef NEURON_POWER_H
#define NEURON_POWER_H

#include <linux/types.h>

struct neuron_device;

int neuron_power_init(struct neuron_device *nd);
/* Stop sampling (before the backend goes). */
void neuron_power_stop(struct neuron_device *nd);
/* Free what init allocated (the device's release). */
void neuron_power_free(struct neuron_device *nd);
/* The sysfs line "<STATUS>,<epoch_s>,<min>,<max>,<avg>\n" into @buf (PAGE_SIZE). */
ssize_t neuron_power_show(struct neuron_device *nd, char *buf);
/*
 * stats/power/utilization_raw: each die's power utilization now, as the
 * firmware's word holds it (percent, two decimals, comma-separated by
 * die), read at each read; POWER_STATUS_NO_DATA before the firmware
 * reports power.
 */
ssize_t neuron_power_raw_show(struct neuron_device *nd, char *buf);

#endif /* NEURON_POWER_H */
