/* SPDX-License-Identifier: GPL-2.0 */
/* Module-wide state and the core's parameters (neuron_main.c). */
#ifndef NEURON_MAIN_H
#define NEURON_MAIN_H

#include <linux/types.h>

struct dentry;

/* /sys/kernel/debug/neuron/ (NULL without debugfs) */
extern struct dentry *neuron_debugfs_root;

/* Parameters, read at the start of every exchange / when the next post is scheduled. */
unsigned int neuron_param_fwio_timeout_ms(void);
/* the vendor_only parameter: this driver's extensions are hidden */
bool neuron_vendor_only(void);
unsigned int neuron_param_fwio_retries(void);
unsigned int neuron_param_nmetric_post_delay_ms(void);

#endif /* NEURON_MAIN_H */
