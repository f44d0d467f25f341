/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NEURON_IOCTL_APPS_INFO and _CORE_HOLDERS (neuron_apps.c): the processes
 * using a device, and who holds each NeuronCore.
 */
#ifndef NEURON_APPS_H
#define NEURON_APPS_H

#include <linux/types.h>

struct neuron_device;
struct neuron_file;
struct neuron_ioctl_app_info;

/* ioctl handler (neuron_cdev.c table) */
long neuron_apps_ioctl_info(struct neuron_file *nf, void *karg);
long neuron_apps_ioctl_core_holders(struct neuron_file *nf, void *karg);

/* the vendor's DEVICE_APP_PID (docs/vendor-abi.md) */
s32 neuron_apps_first_pid(struct neuron_device *nd);
/*
 * The vendor's DEVICE_GET_ALL_APPS_INFO: up to @max (at most 16) records
 * of the processes using @nd, in open order, each zeroed, then filled as
 * @flags (NEURON_APP_INFO_*) asks. Returns how many.
 */
int neuron_apps_vendor_list(struct neuron_device *nd, u32 flags, u32 max,
			    struct neuron_ioctl_app_info *rec);

#endif /* NEURON_APPS_H */
