/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/neuron<N> file operations (neuron_cdev.c). */
#ifndef NEURON_CDEV_H
#define NEURON_CDEV_H

#include <linux/fs.h>

extern const struct file_operations neuron_cdev_fops;

/*
 * Module init calls this as its last step, once nothing can fail any more.
 * Until then every open is refused (-EAGAIN): a file opened during an init
 * that then fails would hold a module the loader frees regardless.
 */
void neuron_cdev_accept_opens(void);

#endif /* NEURON_CDEV_H */
