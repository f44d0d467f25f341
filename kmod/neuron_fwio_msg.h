/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FW-IO typed messages (neuron_fwio_msg.c): READ, POST_TO_CW,
 * SET_POWER_PROFILE on the transport, and the two ioctls. Each returns 0
 * or a negative errno (neuron_fwio_exchange()).
 */
#ifndef NEURON_FWIO_MSG_H
#define NEURON_FWIO_MSG_H

#include <linux/compiler_types.h>
#include <linux/types.h>

struct neuron_device;
struct neuron_file;

int neuron_fwio_read(struct neuron_device *nd, const u64 *addr, u32 n, u32 *val);
int neuron_fwio_post_metric(struct neuron_device *nd, const void *blob, u32 len,
			    const bool *abort);
int neuron_fwio_set_power_profile(struct neuron_device *nd, u8 profile);

/* ioctl handlers (neuron_cdev.c table, CAP_SYS_ADMIN): FW_READ, FW_POWER_PROFILE */
long neuron_fwio_ioctl_read(struct neuron_file *nf, void *karg);
long neuron_fwio_ioctl_power_profile(struct neuron_file *nf, void *karg);

#endif /* NEURON_FWIO_MSG_H */
