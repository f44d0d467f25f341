/* SPDX-License-Identifier: GPL-2.0 */
/* The vendor's ioctl ABI (neuron_vendor.c, docs/vendor-abi.md). */
#ifndef NEURON_VENDOR_H
#define NEURON_VENDOR_H

#include <linux/compiler.h>

struct neuron_file;

/*
 * A command of magic 'N' numbered below this driver's own (0xC0): the
 * vendor's command @cmd on @nf with the user argument @uarg, or -ENOTTY.
 */
long neuron_vendor_ioctl(struct neuron_file *nf, unsigned int cmd, void __user *uarg);

#endif /* NEURON_VENDOR_H */
