/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/neuron<N> file operations (neuron_cdev.c). */
#ifndef NEURON_CDEV_H
#define NEURON_CDEV_H

#include <linux/fs.h>

extern const struct file_operations neuron_cdev_fops;

#endif /* NEURON_CDEV_H */
