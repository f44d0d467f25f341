// SPDX-License-Identifier: GPL-2.0
/* Notification queues and simulated NeuronCores: placeholder until that issue lands. */
#include "neuron.h"

int neuron_nq_init(struct neuron_device *nd)
{
	return 0;
}

void neuron_nq_exit(struct neuron_device *nd)
{
}

void neuron_nq_release_tgid(struct neuron_device *nd, pid_t tgid)
{
}

int neuron_nq_mmap(struct neuron_file *nf, struct vm_area_struct *vma)
{
	return NEURON_MMAP_NOT_MINE;
}
