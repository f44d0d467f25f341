/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hardware errors in the kernel log (neuron_hwerr.c): the documented
 * "NEURON_HW_ERR=<TYPE> ..." lines Node Problem Detector and the EKS node
 * monitoring agent match.
 */
#ifndef NEURON_HWERR_H
#define NEURON_HWERR_H

#include <linux/types.h>

struct neuron_device;
struct neuron_job_faults;

/* Start watching the device's ECC counts (baseline: the counts now). */
int neuron_hwerr_init(struct neuron_device *nd);
/* Stop the watcher; no line is logged afterwards. Before the backend goes. */
void neuron_hwerr_stop(struct neuron_device *nd);
/* Free what init allocated (the device's release). */
void neuron_hwerr_free(struct neuron_device *nd);
/* A job of process @tgid on NeuronCore @nc wrote these hardware-error notifications. */
void neuron_hwerr_job(struct neuron_device *nd, u32 nc, struct pid *tgid,
		      const struct neuron_job_faults *f);

/*
 * The NEURON_HW_ERR=HEALTH line of a health change of the device (@nc -1)
 * or of NeuronCore @nc (neuron_health.c); @tgid the process holding the
 * NeuronCore, or NULL. Nothing once stopped.
 */
void neuron_hwerr_health(struct neuron_device *nd, int nc, struct pid *tgid, const char *state,
			 const char *reason, u32 action);

/*
 * The device's NEURON_HW_ERR events so far (error lines, those the rate
 * limit held back included, and health changes): the last sequence
 * number. health_status/hw_error_events; sysfs_notify on each change.
 */
u64 neuron_hwerr_events(struct neuron_device *nd);
/*
 * The uncorrected ECC counts as the poller last read them (SRAM, the sum
 * of the HBM channels): false before the poller starts.
 */
bool neuron_hwerr_cached_ecc(struct neuron_device *nd, u32 *sram, u64 *hbm);

/*
 * sim_hw_err_real: simulated devices log the real tokens (the module says
 * so at load).
 */
bool neuron_hwerr_sim_real(void);

#endif /* NEURON_HWERR_H */
