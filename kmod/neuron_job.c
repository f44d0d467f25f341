// SPDX-License-Identifier: GPL-2.0
/*
 * Jobs on a NeuronCore: NEURON_IOCTL_SIM_EXEC and NEURON_IOCTL_SIM_EXEC_MODEL.
 *
 * The core validates the request, reserves the NeuronCore for the caller
 * (another process gets -EBUSY) and hands the job to the backend's exec
 * op; a backend without one refuses it (-EOPNOTSUPP). The backend writes
 * the job's error entries into the core's ERROR ring through
 * neuron_job_emit() (neuron_nq_emit: only the ring of the core's holder
 * takes them) and reports what it wrote; once the op has returned, the
 * core multicasts one netlink ERROR_EVENT per fault kind and answers the
 * caller. Nothing goes back to the backend after the op returns.
 *
 * SIM_EXEC_MODEL is the same job with data: the core resolves the two
 * MEM_ALLOC handles of the caller's file, holds both allocations for the
 * job (a concurrent MEM_FREE frees them after it) and hands the backend
 * where the bytes are (device address or host memory).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <neuron/neuron_genl.h>

#include "neuron_abi.h"
#include "neuron_core.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_genl_priv.h"
#include "neuron_hwerr.h"
#include "neuron_job.h"
#include "neuron_mem.h"
#include "neuron_names.h"
#include "neuron_nq_priv.h"

void neuron_job_emit(struct neuron_job *job, const struct neuron_nq_entry *e, u32 n)
{
	neuron_nq_emit(job->nd, job->nc, NEURON_NQ_TYPE_ERROR, 0, e, n, &job->written,
		       &job->dropped);
}

/*
 * One "errors" notification per fault kind the job of process @tgid
 * wrote, each with its class's recovery action; no lock held.
 */
static void neuron_job_notify(struct neuron_device *nd, u32 nc, struct pid *tgid,
			      const struct neuron_job_faults *f)
{
	u32 i;

	neuron_genl_error_event(nd, nc, NEURON_GENL_EVENT_NQ_FLOOD,
				NEURON_TPB_ERROR_FP_UNDERFLOW, f->flood, NEURON_NQ_FLOOD_ACTION, tgid);
	for (i = 0; i < NEURON_TPB_ERROR_COUNT; i++)
		neuron_genl_error_event(nd, nc, NEURON_GENL_EVENT_TPB_ERROR, i, f->tpb[i],
					neuron_tpb_error_actions[i], tgid);
	for (i = 1; i < NEURON_NQ_HW_COUNT; i++)
		neuron_genl_error_event(nd, nc, NEURON_GENL_EVENT_HW_ERROR, i, f->hw[i],
					neuron_hw_fault_actions[i], tgid);
}

/*
 * Validate what SIM_EXEC and SIM_EXEC_MODEL share, reserve the core, run
 * @job on it and report. The caller has filled @job->model (or not).
 */
static int neuron_job_run(struct neuron_file *nf, struct neuron_job *job, u32 nc,
			  u64 duration_us, u64 timeout_us)
{
	struct neuron_device *nd = nf->nd;
	u64 t0 = local_clock();
	int ret;

	if (nc >= nd->nc_count || duration_us > NEURON_EXEC_MAX_DURATION_US ||
	    timeout_us > NEURON_EXEC_MAX_TIMEOUT_US)
		return -EINVAL;
	if (!nd->ops->exec)
		return -EOPNOTSUPP;
	/* the reservation ends with the opener's last close: opener only */
	if (task_tgid(current) != nf->tgid)
		return -EACCES;
	/* the core stays ours (CORE_RELEASE, CORE_TAKE_BACK refused) until the job is done */
	ret = neuron_core_job_begin(nd, nc, nf->proc);
	if (ret)
		return ret;

	job->nd = nd;
	job->nc = nc;
	job->duration_us = duration_us;
	job->timeout_us = timeout_us ? timeout_us : NEURON_EXEC_DEFAULT_TIMEOUT_US;
	ret = nd->ops->exec(nd->backend, job);
	neuron_core_job_end(nd, nc);
	/*
	 * A job without faults (the common case) has nothing to multicast
	 * or log: one test instead of a call per fault kind.
	 */
	if (memchr_inv(&job->faults, 0, sizeof(job->faults))) {
		neuron_job_notify(nd, nc, nf->tgid, &job->faults);
		neuron_hwerr_job(nd, nc, nf->tgid, &job->faults);
	}
	/*
	 * The job's time for the caller (@job_ns): local_clock() is the
	 * scheduler's clock, a TSC read where the TSC is not the clocksource
	 * (a guest under emulation), where ktime_get() would read the HPET.
	 * It is monotonic on one CPU; two CPUs' may differ a little, so a
	 * job that moved between them is clamped at 0.
	 */
	job->ns = max_t(s64, (s64)(local_clock() - t0), 0);
	return ret;
}


long neuron_job_ioctl_exec(struct neuron_file *nf, void *karg)
{
	struct neuron_sim_exec arg;
	struct neuron_job job = { };
	int ret;

	ret = neuron_ioctl_arg(&arg, karg, sizeof(arg), NEURON_SIM_EXEC_COLL_ERROR);
	if (ret)
		return ret;
	if (arg.reserved0 || arg.entries || arg.dropped ||
	    !neuron_abi_all_zero(arg.reserved, sizeof(arg.reserved)))
		return -EINVAL;
	job.coll_error = arg.flags & NEURON_SIM_EXEC_COLL_ERROR;
	/*
	 * With sim_hw_err_real the fault's log line carries the real token,
	 * which node remediation acts on: only root may ask for one then.
	 */
	if (job.coll_error && neuron_hwerr_sim_real() && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = neuron_job_run(nf, &job, arg.nc, arg.duration_us, arg.timeout_us);
	if (ret && !neuron_ioctl_job_answers(ret))
		return ret;

	/* cut short: the time only (@entries, @dropped stay 0 for reuse) */
	if (!ret) {
		arg.entries = job.written;
		arg.dropped = job.dropped;
	}
	arg.job_ns = job.ns;
	neuron_ioctl_out(karg, &arg, sizeof(arg));
	return ret;
}

/* The operation's own arguments: -EINVAL for anything it does not define. */
static int model_check_op(const struct neuron_sim_exec_model *a)
{
	switch (a->op) {
	case NEURON_SIM_OP_NONE:
		return a->in_handle || a->out_handle || a->in_offset || a->out_offset ||
		       a->bytes || a->arg0 || a->arg1 ? -EINVAL : 0;
	case NEURON_SIM_OP_COPY:
		return a->arg0 || a->arg1 ? -EINVAL : 0;
	case NEURON_SIM_OP_AFFINE_U32:
		return a->bytes % 4 ? -EINVAL : 0;
	case NEURON_SIM_OP_XOR_U8:
		return a->arg0 > 0xff || a->arg1 ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

/* In place, or apart: a partial overlap has no defined result. */
static bool model_overlap_ok(const struct neuron_sim_exec_model *a)
{
	if (a->in_offset == a->out_offset)
		return true;
	return a->in_offset >= a->out_offset + a->bytes || a->out_offset >= a->in_offset + a->bytes;
}

long neuron_job_ioctl_exec_model(struct neuron_file *nf, void *karg)
{
	struct neuron_mem_obj *in = NULL, *out = NULL;
	struct neuron_sim_exec_model arg;
	struct neuron_job_model model = { };
	struct neuron_job job = { };
	int ret;

	ret = neuron_ioctl_arg(&arg, karg, sizeof(arg), 0);
	if (ret)
		return ret;
	if (arg.entries || arg.dropped || !neuron_abi_all_zero(arg.reserved, sizeof(arg.reserved)))
		return -EINVAL;
	ret = model_check_op(&arg);
	if (ret)
		return ret;
	if (arg.op != NEURON_SIM_OP_NONE) {
		if (!arg.bytes)
			return -EINVAL;
		in = neuron_mem_get(nf, arg.in_handle);
		if (IS_ERR(in))
			return PTR_ERR(in);
		out = neuron_mem_get(nf, arg.out_handle);
		if (IS_ERR(out)) {
			ret = PTR_ERR(out);
			out = NULL;
			goto out;
		}
		ret = neuron_mem_job_buf(in, arg.in_offset, arg.bytes, &model.in);
		if (!ret)
			ret = neuron_mem_job_buf(out, arg.out_offset, arg.bytes, &model.out);
		if (!ret && neuron_mem_same(in, out) && !model_overlap_ok(&arg))
			ret = -EINVAL;
		if (ret)
			goto out;
		model.op = arg.op;
		model.arg0 = arg.arg0;
		model.arg1 = arg.arg1;
		model.bytes = arg.bytes;
		job.model = &model;
	}
	ret = neuron_job_run(nf, &job, arg.nc, arg.duration_us, arg.timeout_us);
	if (ret && !neuron_ioctl_job_answers(ret))
		goto out;

	/* cut short: the time only (@entries, @dropped stay 0 for reuse) */
	if (!ret) {
		arg.entries = job.written;
		arg.dropped = job.dropped;
	}
	arg.job_ns = job.ns;
	neuron_ioctl_out(karg, &arg, sizeof(arg));
out:
	if (out)
		neuron_mem_put_locked(out);
	if (in)
		neuron_mem_put_locked(in);
	return ret;
}
