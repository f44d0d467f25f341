/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Jobs on a NeuronCore (neuron_job.c): NEURON_IOCTL_SIM_EXEC, run by the
 * backend's exec op.
 */
#ifndef NEURON_JOB_H
#define NEURON_JOB_H

#include <linux/compiler_types.h>

struct neuron_file;

/* ioctl handler (neuron_cdev.c table): NEURON_IOCTL_SIM_EXEC */
long neuron_job_ioctl_exec(struct neuron_file *nf, void *karg);
long neuron_job_ioctl_exec_model(struct neuron_file *nf, void *karg);

#endif /* NEURON_JOB_H */
