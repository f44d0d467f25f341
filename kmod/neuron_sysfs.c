// SPDX-License-Identifier: GPL-2.0
/* The metrics sysfs tree: placeholder. */
#include "neuron.h"

int neuron_sysfs_init(struct neuron_device *nd)
{
	return 0;
}

void neuron_sysfs_exit(struct neuron_device *nd)
{
}
