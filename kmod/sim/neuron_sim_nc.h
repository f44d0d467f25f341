/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulated NeuronCores of one device: the job engine behind the
 * backend op exec (sim/neuron_sim_nc.c).
 */
#ifndef NEURON_SIM_NC_H
#define NEURON_SIM_NC_H

#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "../neuron_backend.h"

struct neuron_sim_dev;

/**
 * struct neuron_sim_nc - the NeuronCores of one simulated device
 * @core:	per NeuronCore, on a cache line of its own (jobs on two
 *		NeuronCores share none): @core[K].job_lock is held while a job
 *		runs on K (one at a time)
 * @stop_wq:	jobs wait here for their time to pass, or for @stopping
 * @stopping:	set once at removal: jobs in progress end with -ENODEV and
 *		new ones are refused
 * @broken:	bit per NeuronCore that took an uncorrectable error: every job
 *		on it fails with -ENOTRECOVERABLE until a device reset
 *		(atomic bit operations)
 */
struct neuron_sim_nc {
	struct {
		struct mutex job_lock;	/* held while a job runs on the core */
	} ____cacheline_aligned_in_smp core[NEURON_MAX_NC];
	wait_queue_head_t stop_wq;	/* stopping, and a job's start */
	bool stopping;
	bool job_started;	/* a job has started since init */
	unsigned long broken;
};

void neuron_sim_nc_init(struct neuron_sim_nc *e);
/* End the jobs in progress (-ENODEV) and refuse new ones; returns at once. */
void neuron_sim_nc_stop(struct neuron_sim_nc *e);
/* Wait until a job has started, the engine stopped, or @ms passed. */
void neuron_sim_nc_wait_job(struct neuron_sim_nc *e, unsigned int ms);
/* After the device is destroyed: no job runs any more. */
void neuron_sim_nc_destroy(struct neuron_sim_nc *e);

/* An uncorrectable error on @nc (inject/nc_unrecoverable): unusable until reset. */
void neuron_sim_nc_break(struct neuron_sim_nc *e, u32 nc);
bool neuron_sim_nc_broken(struct neuron_sim_nc *e, u32 nc);
/* Device reset: every NeuronCore usable again. */
void neuron_sim_nc_reset(struct neuron_sim_nc *e);
/* NeuronCores of @nc_map that took an uncorrectable error work again. */
void neuron_sim_nc_reset_map(struct neuron_sim_nc *e, u32 nc_map);

/* backend op exec */
int neuron_sim_nc_exec(void *backend, struct neuron_job *job);

#endif /* NEURON_SIM_NC_H */
