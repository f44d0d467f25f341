/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NEURON_IOCTL_APPS_INFO and _CORE_HOLDERS (neuron_apps.c): the processes
 * using a device, and who holds each NeuronCore.
 */
#ifndef NEURON_APPS_H
#define NEURON_APPS_H

struct neuron_file;

/* ioctl handler (neuron_cdev.c table) */
long neuron_apps_ioctl_info(struct neuron_file *nf, void *karg);
long neuron_apps_ioctl_core_holders(struct neuron_file *nf, void *karg);

#endif /* NEURON_APPS_H */
