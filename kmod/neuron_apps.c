// SPDX-License-Identifier: GPL-2.0
/*
 * NEURON_IOCTL_APPS_INFO: the processes that have the device open, and the
 * NeuronCores each holds. What neuron-ls lists and where neuron-monitor
 * finds the NDS slabs to read (the SDK's ndl_get_all_apps_info()).
 *
 * The list is the device's process list (neuron_device.c) under
 * procs_lock; the NeuronCore holders come from the ring/reservation table
 * under nq->lock (order procs_lock -> nq->lock, as at release). Processes
 * are reported by their number in the caller's pid namespace; one the
 * caller cannot see is left out.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "neuron_abi.h"
#include "neuron_apps.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_nq.h"

static u32 neuron_apps_nc_map(struct neuron_device *nd, struct pid *tgid)
{
	u32 nc, map = 0;

	mutex_lock(&nd->nq->lock);
	for (nc = 0; nc < nd->nc_count; nc++)
		if (nd->nq->core_owner[nc] == tgid)
			map |= BIT(nc);
	mutex_unlock(&nd->nq->lock);
	return map;
}

long neuron_apps_ioctl_info(struct neuron_file *nf, void *karg)
{
	struct neuron_device *nd = nf->nd;
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct neuron_apps_info *arg;
	struct neuron_proc *p;
	u32 seen = 0;
	int ret;

	/* 224 bytes: too big for the stack next to the dispatcher's buffer */
	arg = kmalloc(sizeof(*arg), GFP_KERNEL);
	if (!arg)
		return -ENOMEM;
	ret = neuron_ioctl_arg(arg, karg, sizeof(*arg), 0);
	if (ret)
		goto out;
	if (arg->count || arg->total || arg->reserved0 ||
	    !neuron_abi_all_zero(arg->reserved, sizeof(arg->reserved)) ||
	    !neuron_abi_all_zero(arg->app, sizeof(arg->app))) {
		ret = -EINVAL;
		goto out;
	}

	mutex_lock(&nd->procs_lock);
	list_for_each_entry(p, &nd->procs, node) {
		pid_t nr = pid_nr_ns(p->tgid, ns);
		struct neuron_app_entry *e;

		if (!nr)
			continue;	/* not in the caller's namespace */
		if (seen++ < arg->start || arg->count >= NEURON_APPS_INFO_MAX)
			continue;
		e = &arg->app[arg->count++];
		e->pid = nr;
		e->nc_map = neuron_apps_nc_map(nd, p->tgid);
	}
	mutex_unlock(&nd->procs_lock);
	arg->total = seen;
	neuron_ioctl_out(karg, arg, sizeof(*arg));
out:
	kfree(arg);
	return ret;
}
