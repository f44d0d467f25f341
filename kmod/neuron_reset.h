/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device's sysfs reset file (neuron_reset.c), with the vendor's
 * semantics: read the device state, write to reset the whole device.
 */
#ifndef NEURON_RESET_H
#define NEURON_RESET_H

#include <linux/device.h>

/* device states, as the vendor's reset file reads (facts: fwio-nq-cdev-dkms 3.5) */
#define NEURON_DEVICE_STATE_RESET	0
#define NEURON_DEVICE_STATE_READY	1
#define NEURON_DEVICE_STATE_INVALID	2

extern struct device_attribute dev_attr_reset;

#endif /* NEURON_RESET_H */
