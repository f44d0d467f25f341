// SPDX-License-Identifier: GPL-2.0
/*
 * Jobs on a NeuronCore: NEURON_IOCTL_SIM_EXEC.
 *
 * The core validates the request, reserves the NeuronCore for the caller
 * (another process gets -EBUSY) and hands the job to the backend's exec
 * op; a backend without one refuses it (-EOPNOTSUPP). The backend writes
 * the job's error entries into the core's ERROR ring through
 * neuron_job_emit() (neuron_nq_emit: only the ring of the core's holder
 * takes them) and reports what it wrote; once the op has returned, the
 * core multicasts one netlink ERROR_EVENT per fault kind and answers the
 * caller. Nothing goes back to the backend after the op returns.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include <neuron/neuron_genl.h>

#include "neuron_abi.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_genl.h"
#include "neuron_hwerr.h"
#include "neuron_job.h"
#include "neuron_nq.h"

void neuron_job_emit(struct neuron_job *job, const struct neuron_nq_entry *e, u32 n)
{
	neuron_nq_emit(job->nd, job->nc, NEURON_NQ_TYPE_ERROR, 0, e, n, &job->written,
		       &job->dropped);
}

/* One "errors" notification per fault kind the job wrote; no lock held. */
static void neuron_job_notify(struct neuron_device *nd, u32 nc, const struct neuron_job_faults *f)
{
	u32 i;

	neuron_genl_error_event(nd, nc, NEURON_GENL_EVENT_NQ_FLOOD,
				NEURON_TPB_ERROR_FP_UNDERFLOW, f->flood);
	for (i = 0; i < NEURON_TPB_ERROR_COUNT; i++)
		neuron_genl_error_event(nd, nc, NEURON_GENL_EVENT_TPB_ERROR, i, f->tpb[i]);
	for (i = 1; i < NEURON_NQ_HW_COUNT; i++)
		neuron_genl_error_event(nd, nc, NEURON_GENL_EVENT_HW_ERROR, i, f->hw[i]);
}

long neuron_job_ioctl_exec(struct neuron_file *nf, void *karg)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_sim_exec arg;
	struct neuron_job job = { .nd = nd };
	int ret;

	ret = neuron_ioctl_arg(&arg, karg, sizeof(arg), 0);
	if (ret)
		return ret;
	if (arg.reserved0 || arg.entries || arg.dropped ||
	    !neuron_abi_all_zero(arg.reserved, sizeof(arg.reserved)))
		return -EINVAL;
	if (arg.nc >= nd->nc_count || arg.duration_us > NEURON_EXEC_MAX_DURATION_US ||
	    arg.timeout_us > NEURON_EXEC_MAX_TIMEOUT_US)
		return -EINVAL;
	if (!nd->ops->exec)
		return -EOPNOTSUPP;
	/* the reservation ends with the opener's last close: opener only */
	if (task_tgid(current) != nf->tgid)
		return -EACCES;
	/* the core stays ours (CORE_RELEASE refused) until the job is done */
	ret = neuron_core_job_begin(nd, arg.nc, nf->tgid);
	if (ret)
		return ret;

	job.nc = arg.nc;
	job.duration_us = arg.duration_us;
	job.timeout_us = arg.timeout_us ? arg.timeout_us : NEURON_EXEC_DEFAULT_TIMEOUT_US;
	ret = nd->ops->exec(nd->backend, &job);
	neuron_core_job_end(nd, arg.nc);
	neuron_job_notify(nd, arg.nc, &job.faults);
	neuron_hwerr_job(nd, arg.nc, &job.faults);
	if (ret)
		return ret;

	arg.entries = job.written;
	arg.dropped = job.dropped;
	neuron_ioctl_out(karg, &arg, sizeof(arg));
	return 0;
}
