// SPDX-License-Identifier: GPL-2.0
/*
 * NEURON_IOCTL_APPS_INFO: the processes that have the device open, and the
 * NeuronCores each holds. What neuron-ls lists and where neuron-monitor
 * finds the NDS slabs to read (the SDK's ndl_get_all_apps_info()).
 * NEURON_IOCTL_CORE_HOLDERS: who holds one NeuronCore, since when: every
 * process whose file table has a file of the reservation's owner.
 *
 * The list is the device's process list (neuron_device.c) under
 * procs_lock; the NeuronCores each holds come from the reservation table
 * (neuron_core.c) under its lock (order procs_lock -> that lock, as at
 * release), and its memory from its struct neuron_proc. Processes
 * are reported by their number in the caller's pid namespace; one the
 * caller cannot see is left out.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fdtable.h>
#include <linux/idr.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include <neuron/neuron_vendor_ioctl.h>

#include "neuron_abi.h"
#include "neuron_apps.h"
#include "neuron_cdev.h"
#include "neuron_compat.h"
#include "neuron_core.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_mem.h"

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
		e->nc_map = neuron_core_held_map(nd, p);
	}
	mutex_unlock(&nd->procs_lock);
	arg->total = seen;
	neuron_ioctl_out(karg, arg, sizeof(*arg));
out:
	kfree(arg);
	return ret;
}

/*
 * The vendor's DEVICE_APP_PID: the process that has had the device open
 * longest (the list is in open order), in the caller's pid namespace; 0
 * when none is visible.
 */
s32 neuron_apps_first_pid(struct neuron_device *nd)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct neuron_proc *p;
	pid_t nr = 0;

	mutex_lock(&nd->procs_lock);
	list_for_each_entry(p, &nd->procs, node) {
		nr = pid_nr_ns(p->tgid, ns);
		if (nr)
			break;
	}
	mutex_unlock(&nd->procs_lock);
	return nr;
}

int neuron_apps_vendor_list(struct neuron_device *nd, u32 flags, u32 max,
			    struct neuron_ioctl_app_info *rec)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct neuron_proc *p;
	u32 n = 0;

	max = min_t(u32, max, NEURON_APP_INFO_MAX_APPS);
	mutex_lock(&nd->procs_lock);
	list_for_each_entry(p, &nd->procs, node) {
		pid_t nr = pid_nr_ns(p->tgid, ns);

		if (!nr)
			continue;	/* not in the caller's namespace */
		if (n >= max)
			break;
		memset(&rec[n], 0, sizeof(rec[n]));
		rec[n].pid = nr;
		if (flags & NEURON_APP_INFO_PID_NC_LOCK_INFO)
			rec[n].nc_lock_map = neuron_core_held_map(nd, p) & 0xff;
		if (flags & NEURON_APP_INFO_PID_MEM_USAGE)
			neuron_mem_proc_usage(p, &rec[n].host_mem_size, &rec[n].device_mem_size);
		n++;
	}
	mutex_unlock(&nd->procs_lock);
	return n;
}

/*
 * Processes whose file tables hold a file of @owner on @nd. Distinct
 * processes are told apart by their tgid; past HOLDERS_SEEN_MAX of them
 * the total stops growing (a lower bound, which the UAPI allows: each call
 * is a snapshot anyway).
 *
 * The walk visits every task by pid number (find_ge_pid(), as /proc's
 * readdir does), one task at a time with a reference and no RCU held in
 * between, so it schedules between tasks (cond_resched()) and stops on a
 * fatal signal. A file table that holds none of the owner's files is
 * scanned once, however many threads or processes share it: the tables
 * scanned are kept by address in @tables, with whether they held one. A
 * table that did is scanned again for each further process that shares
 * it, though not for more threads of a process listed (processes made
 * with CLONE_FILES but not CLONE_THREAD each hold the file: each is
 * listed), so an address reused for another task's table is never taken
 * for a holder; one found holding none then counts as none. A table that
 * held none, freed during the walk and reallocated at the same address
 * for another task, is not scanned again, which a snapshot allows. One
 * scan holds the table's lock for its length only (at most nr_open slots).
 */
#define HOLDERS_SEEN_MAX	64

struct holders_walk {
	struct neuron_device *nd;
	struct pid *owner;
	struct pid_namespace *ns;
	struct xarray tables;
	struct pid *seen[HOLDERS_SEEN_MAX];
	pid_t nr[HOLDERS_SEEN_MAX];
	u32 n_seen;
};

/* iterate_fd() callback, under the files' spinlock: no sleeping */
static int holders_match(const void *p, struct file *file, unsigned int fd)
{
	const struct holders_walk *w = p;
	const struct neuron_file *nf;

	if (file->f_op != &neuron_cdev_fops)
		return 0;
	nf = file->private_data;
	return nf && nf->nd == w->nd && nf->tgid == w->owner;
}

static bool holders_seen(struct holders_walk *w, struct pid *tgid)
{
	u32 i;

	for (i = 0; i < w->n_seen; i++)
		if (w->seen[i] == tgid)
			return true;
	return false;
}

/* @t's process is listed already */
static bool holders_seen_task(struct holders_walk *w, struct task_struct *t)
{
	bool seen;

	rcu_read_lock();
	seen = holders_seen(w, task_tgid(t));
	rcu_read_unlock();
	return seen;
}

/* The key of a file table in @tables: its address, less the bits every object shares. */
static unsigned long holders_table_key(const struct files_struct *files)
{
	return (unsigned long)files / L1_CACHE_BYTES;
}

/* The next task from pid number *@nr on (initial namespace), referenced; NULL past the last. */
static struct task_struct *holders_next_task(int *nr)
{
	struct task_struct *t = NULL;
	struct pid *pid;

	rcu_read_lock();
	while ((pid = neuron_find_ge_pid(*nr, &init_pid_ns))) {
		*nr = pid_nr(pid) + 1;
		t = pid_task(pid, PIDTYPE_PID);
		if (t) {
			get_task_struct(t);
			break;
		}
	}
	rcu_read_unlock();
	return t;
}

/*
 * Scan @t's file table unless it was scanned already; record @t's process
 * when it holds a file of the owner. -ENOMEM when the table cannot be
 * recorded (the walk ends with what it has).
 */
#define HOLDERS_TABLE_NONE	1	/* @tables: scanned, none of the owner's files */
#define HOLDERS_TABLE_HELD	2	/* scanned, one of them in it */

static int holders_visit(struct holders_walk *w, struct task_struct *t)
{
	unsigned long key = 0;
	struct pid *tgid;
	bool scanned = false;
	int match = 0;
	void *memo = NULL;

	task_lock(t);
	if (t->files) {
		key = holders_table_key(t->files);
		memo = xa_load(&w->tables, key);
		/* again for another process (its threads share its table and tgid) */
		scanned = !memo ||
			  (xa_to_value(memo) == HOLDERS_TABLE_HELD && !holders_seen_task(w, t));
		if (scanned)
			match = iterate_fd(t->files, 0, holders_match, w);
	}
	task_unlock(t);
	if (!scanned)
		return 0;
	if (match) {
		rcu_read_lock();
		tgid = task_tgid(t);
		if (tgid && !holders_seen(w, tgid)) {
			/* referenced: a pid freed during the walk is never taken for another */
			w->seen[w->n_seen] = get_pid(tgid);
			w->nr[w->n_seen++] = pid_nr_ns(tgid, w->ns);
		}
		rcu_read_unlock();
	}
	/* a held table found holding none (closed, or its address reused) becomes NONE */
	if (memo && xa_to_value(memo) == (match ? HOLDERS_TABLE_HELD : HOLDERS_TABLE_NONE))
		return 0;
	return xa_err(xa_store(&w->tables, key,
			       xa_mk_value(match ? HOLDERS_TABLE_HELD : HOLDERS_TABLE_NONE),
			       GFP_KERNEL | __GFP_NOWARN));
}

/* 0, or -EINTR on a fatal signal. */
static int holders_walk(struct holders_walk *w)
{
	struct task_struct *t;
	int nr = 1, ret = 0;

	while (w->n_seen < HOLDERS_SEEN_MAX && (t = holders_next_task(&nr))) {
		ret = holders_visit(w, t);
		put_task_struct(t);
		if (ret == -ENOMEM) {
			ret = 0;
			break;
		}
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		cond_resched();
	}
	xa_destroy(&w->tables);
	return ret;
}

long neuron_apps_ioctl_core_holders(struct neuron_file *nf, void *karg)
{
	struct neuron_device *nd = nf->nd;
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct neuron_core_holders arg;
	struct holders_walk *w;
	bool alive;
	u32 i;
	int ret;

	ret = neuron_ioctl_arg(&arg, karg, sizeof(arg), 0);
	if (ret)
		return ret;
	if (arg.state || arg.owner_pid || arg.owner_flags || arg.since_ns || arg.count ||
	    arg.total || arg.hidden || arg.reserved0 ||
	    !neuron_abi_all_zero(arg.reserved, sizeof(arg.reserved)) ||
	    !neuron_abi_all_zero(arg.pid, sizeof(arg.pid)))
		return -EINVAL;
	if (arg.nc >= nd->nc_count)
		return -EINVAL;

	/* about 800 bytes: off the stack */
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->nd = nd;
	w->owner = neuron_core_owner_get(nd, arg.nc, &arg.since_ns);
	if (!w->owner) {
		arg.state = NEURON_CORE_FREE;
		goto out;
	}
	arg.state = NEURON_CORE_HELD;

	rcu_read_lock();
	alive = pid_task(w->owner, PIDTYPE_TGID);
	rcu_read_unlock();
	if (!alive)
		arg.owner_flags |= NEURON_CORE_OWNER_EXITED;
	arg.owner_pid = pid_nr_ns(w->owner, ns);
	if (!arg.owner_pid)
		arg.owner_flags |= NEURON_CORE_OWNER_HIDDEN;

	w->ns = ns;
	xa_init(&w->tables);
	ret = holders_walk(w);
	for (i = 0; i < w->n_seen; i++)
		put_pid(w->seen[i]);
	if (ret) {
		put_pid(w->owner);
		kfree(w);
		return ret;
	}
	for (i = 0; i < w->n_seen; i++) {
		/* 0: in a namespace the caller cannot see, counted, not named */
		if (!w->nr[i])
			arg.hidden++;
		else if (arg.count < NEURON_CORE_HOLDERS_MAX)
			arg.pid[arg.count++] = w->nr[i];
	}
	arg.total = w->n_seen;
	put_pid(w->owner);
out:
	kfree(w);
	neuron_ioctl_out(karg, &arg, sizeof(arg));
	return 0;
}
