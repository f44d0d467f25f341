// SPDX-License-Identifier: GPL-2.0
/* NDS slabs: placeholder. */
#include <linux/errno.h>

#include "neuron.h"
#include "neuron_nds.h"

int neuron_nds_init(struct neuron_device *nd)
{
	return 0;
}

void neuron_nds_exit(struct neuron_device *nd)
{
}

void neuron_nds_release_tgid(struct neuron_device *nd, pid_t tgid)
{
}

int neuron_nds_mmap(struct neuron_file *nf, struct vm_area_struct *vma)
{
	return -EINVAL;
}
