// SPDX-License-Identifier: GPL-2.0
/*
 * NeuronCore ownership (neuron_core.h): reservations and their holders,
 * the jobs counted on each, release, root's take-back, the vendor's range
 * marks, and what a NeuronCore reset takes from its holder. A holder is a
 * struct neuron_proc (neuron_device.h), which also keeps what root took
 * back from it until its last close.
 *
 * Everything a process holds is released with its last file on the
 * device: close, exit or SIGKILL (neuron_core_release_proc).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": core: " fmt

#include <linux/cred.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "neuron_abi.h"
#include "neuron_core.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_log.h"
#include "neuron_mem.h"
#include "neuron_nds_priv.h"
#include "neuron_nq_priv.h"

static struct neuron_core_slot *core_slot(struct neuron_device *nd, u32 nc)
{
	return &nd->cores->slots[nc];
}

/* True when @s is held by the process @tgid. Caller holds the slot's lock or the table's. */
static bool slot_held_by(const struct neuron_core_slot *s, struct pid *tgid)
{
	return s->holder && s->holder->tgid == tgid;
}

bool neuron_core_held_by_locked(struct neuron_device *nd, u32 nc, struct pid *tgid)
{
	lockdep_assert_held(&nd->cores->lock);
	return slot_held_by(core_slot(nd, nc), tgid);
}

/*
 * @nc's holder becomes @p (NULL: nobody) as of @since. Caller holds the
 * table's lock and the slot's.
 */
static void core_set_holder(struct neuron_device *nd, u32 nc, struct neuron_proc *p, u64 since)
{
	struct neuron_core_slot *s = core_slot(nd, nc);

	lockdep_assert_held(&nd->cores->lock);
	lockdep_assert_held(&s->lock);
	s->holder = p;
	s->since = since;
}

int neuron_core_reserve_locked(struct neuron_device *nd, u32 nc, struct neuron_proc *p)
{
	struct neuron_core_slot *s = core_slot(nd, nc);

	lockdep_assert_held(&nd->cores->lock);
	if (s->holder == p)
		return 0;
	if (p->cores_taken & BIT(nc))
		return -ECANCELED;
	if (s->holder)
		return -EBUSY;
	spin_lock(&s->lock);
	core_set_holder(nd, nc, p, ktime_get_boottime_ns());
	spin_unlock(&s->lock);
	return 0;
}


int neuron_core_job_begin(struct neuron_device *nd, u32 nc, struct neuron_proc *p)
{
	struct neuron_core_dev *cd = nd->cores;
	struct neuron_core_slot *s = core_slot(nd, nc);
	int ret;

	/*
	 * The holder's job (every job but a process's first on the core):
	 * the slot alone. A release or take-back checks @jobs and clears
	 * @holder under the same lock, so the job either counts before it
	 * (which refuses it) or finds the core gone and goes below.
	 */
	spin_lock(&s->lock);
	if (s->holder == p) {
		/* root is taking the core back: it waits for the running jobs only */
		ret = s->takers ? -ECANCELED : 0;
		if (!ret)
			s->jobs++;
		spin_unlock(&s->lock);
		return ret;
	}
	spin_unlock(&s->lock);

	mutex_lock(&cd->lock);
	ret = neuron_core_reserve_locked(nd, nc, p);
	if (!ret) {
		spin_lock(&s->lock);
		if (s->takers)
			ret = -ECANCELED;
		else
			s->jobs++;
		spin_unlock(&s->lock);
	}
	mutex_unlock(&cd->lock);
	return ret;
}

void neuron_core_job_end(struct neuron_device *nd, u32 nc)
{
	struct neuron_core_slot *s = core_slot(nd, nc);
	bool wake;

	spin_lock(&s->lock);
	s->jobs--;
	wake = !s->jobs && s->takers;
	spin_unlock(&s->lock);
	if (wake)
		wake_up_all(&nd->cores->idle_wq);
}

pid_t neuron_core_holder(struct neuron_device *nd, u32 nc)
{
	struct neuron_proc *holder;
	pid_t nr = 0;

	if (nc >= nd->nc_count)
		return 0;
	mutex_lock(&nd->cores->lock);
	holder = core_slot(nd, nc)->holder;
	if (holder)
		nr = pid_nr(holder->tgid);
	mutex_unlock(&nd->cores->lock);
	return nr;
}

struct pid *neuron_core_owner_get(struct neuron_device *nd, u32 nc, u64 *since_ns)
{
	struct neuron_core_slot *s = core_slot(nd, nc);
	struct pid *owner = NULL;

	mutex_lock(&nd->cores->lock);
	if (s->holder)
		owner = get_pid(s->holder->tgid);
	*since_ns = owner ? s->since : 0;
	mutex_unlock(&nd->cores->lock);
	return owner;
}

u32 neuron_core_taken_map(struct neuron_device *nd, struct neuron_proc *p)
{
	u32 map;

	mutex_lock(&nd->cores->lock);
	map = p->cores_taken;
	mutex_unlock(&nd->cores->lock);
	return map;
}

u32 neuron_core_held_map(struct neuron_device *nd, struct neuron_proc *p)
{
	u32 nc, map = 0;

	mutex_lock(&nd->cores->lock);
	for (nc = 0; nc < nd->nc_count; nc++)
		if (core_slot(nd, nc)->holder == p)
			map |= BIT(nc);
	mutex_unlock(&nd->cores->lock);
	return map;
}

/* A struct neuron_core_reserve for @nd: 0 or -EINVAL. */
static int core_arg_parse(struct neuron_device *nd, const void *karg,
			  struct neuron_core_reserve *arg)
{
	int ret;

	ret = neuron_ioctl_arg(arg, karg, sizeof(*arg), 0);
	if (ret)
		return ret;
	if (arg->reserved0 || !neuron_abi_all_zero(arg->reserved, sizeof(arg->reserved)))
		return -EINVAL;
	if (arg->nc >= nd->nc_count)
		return -EINVAL;
	return 0;
}

static int core_arg(struct neuron_file *nf, const void *karg, struct neuron_core_reserve *arg)
{
	int ret = core_arg_parse(nf->nd, karg, arg);

	if (ret)
		return ret;
	/* a reservation ends with the opener's last close: opener only */
	if (task_tgid(current) != nf->tgid)
		return -EACCES;
	return 0;
}

/*
 * NeuronCore @nc stops being anyone's, unless a job runs on it (-EBUSY:
 * its entries are the holder's): its rings leave the table into @doomed
 * (for neuron_nq_put() after the lock) and it is free. Returns how many
 * rings, or -EBUSY. Caller holds the table's lock.
 */
static int core_free_locked(struct neuron_device *nd, u32 nc, struct neuron_nq **doomed)
{
	struct neuron_core_slot *s = core_slot(nd, nc);

	lockdep_assert_held(&nd->cores->lock);
	/* checked and cleared at once: a job of the holder starts before, or not at all */
	spin_lock(&s->lock);
	if (s->jobs) {
		spin_unlock(&s->lock);
		return -EBUSY;
	}
	core_set_holder(nd, nc, NULL, 0);
	spin_unlock(&s->lock);
	return neuron_nq_core_take_locked(nd, nc, doomed);
}

static void core_put_rings(struct neuron_nq **doomed, int n)
{
	int i;

	for (i = 0; i < n; i++)
		neuron_nq_put(doomed[i]);
}

int neuron_core_reset_rings(struct neuron_file *nf, u32 *nc_map, bool held_only)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_proc *p = nf->proc;
	struct neuron_nq **doomed;
	u32 nc, map = 0, jobs;
	int n = 0, ret = 0;

	doomed = kcalloc(NEURON_MAX_NC * NEURON_NQ_PER_NC, sizeof(*doomed), GFP_KERNEL);
	if (!doomed)
		return -ENOMEM;
	mutex_lock(&nd->cores->lock);
	for (nc = 0; nc < nd->nc_count; nc++) {
		struct neuron_core_slot *s = core_slot(nd, nc);

		if (!(*nc_map & BIT(nc)))
			continue;
		if (s->holder != p) {
			if (held_only)
				continue;
			ret = p->cores_taken & BIT(nc) ? -ECANCELED : -EACCES;
			goto out;
		}
		spin_lock(&s->lock);
		jobs = s->jobs;
		spin_unlock(&s->lock);
		if (jobs) {
			ret = -EBUSY;
			goto out;
		}
		/* a mapped ring stays, as for CORE_RELEASE: unmap first */
		if (neuron_nq_core_mapped_locked(nd, nc)) {
			ret = -EBUSY;
			goto out;
		}
		map |= BIT(nc);
	}
	for (nc = 0; nc < nd->nc_count; nc++)
		if (map & BIT(nc))
			n += neuron_nq_core_take_locked(nd, nc, doomed + n);
	*nc_map = map;
out:
	mutex_unlock(&nd->cores->lock);
	core_put_rings(doomed, n);
	kfree(doomed);
	return ret;
}

long neuron_core_ioctl_reserve(struct neuron_file *nf, void *karg)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_core_reserve arg;
	int ret = core_arg(nf, karg, &arg);

	if (ret)
		return ret;
	mutex_lock(&nd->cores->lock);
	ret = neuron_core_reserve_locked(nd, arg.nc, nf->proc);
	mutex_unlock(&nd->cores->lock);
	return ret;
}

/*
 * Release @nc, which the caller holds: its rings leave the table into
 * @doomed (*@n of them, for neuron_nq_put() after the lock). -EBUSY
 * (nothing released) while one of them is mapped or a job runs on it.
 * Caller holds the table's lock.
 */
static int core_release_locked(struct neuron_device *nd, u32 nc, struct neuron_nq **doomed,
			       int *n)
{
	lockdep_assert_held(&nd->cores->lock);
	/*
	 * The core's rings go with it, so the next holder can create its
	 * own and gets its job's entries; a mapped ring keeps the
	 * reservation (unmap first), and so does a running job (its
	 * entries are ours).
	 */
	if (neuron_nq_core_mapped_locked(nd, nc))
		return -EBUSY;
	*n = core_free_locked(nd, nc, doomed);
	if (*n < 0) {
		*n = 0;
		return -EBUSY;
	}
	return 0;
}

long neuron_core_ioctl_release(struct neuron_file *nf, void *karg)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_nq *doomed[NEURON_NQ_PER_NC];
	struct neuron_core_reserve arg;
	int ret = core_arg(nf, karg, &arg);
	int n = 0;

	if (ret)
		return ret;
	mutex_lock(&nd->cores->lock);
	if (core_slot(nd, arg.nc)->holder != nf->proc)
		ret = -ENOENT;
	else
		ret = core_release_locked(nd, arg.nc, doomed, &n);
	mutex_unlock(&nd->cores->lock);
	core_put_rings(doomed, n);
	return ret;
}

/* @nc is nobody's, and was not taken back from @p. Caller holds the table's lock. */
static bool core_free_for(struct neuron_device *nd, u32 nc, struct neuron_proc *p)
{
	return !core_slot(nd, nc)->holder && !(p->cores_taken & BIT(nc));
}

int neuron_core_mark_range(struct neuron_file *nf, u32 count, u32 start, u32 end, u64 *map,
			   u32 *longest)
{
	struct neuron_device *nd = nf->nd;
	u32 nc, run = 0, first = U32_MAX;
	int ret = 0;

	*map = 0;
	*longest = 0;
	if (start >= nd->nc_count || start > end)
		return -EINVAL;
	if (task_tgid(current) != nf->tgid)
		return -EACCES;
	end = min(end, nd->nc_count - 1);
	if (!count)
		return 0;

	mutex_lock(&nd->cores->lock);
	for (nc = start; nc <= end; nc++) {
		run = core_free_for(nd, nc, nf->proc) ? run + 1 : 0;
		*longest = max(*longest, run);
		if (run == count && first == U32_MAX)
			first = nc + 1 - count;
	}
	if (first == U32_MAX) {
		ret = -EBUSY;
	} else {
		for (nc = first; nc < first + count && !ret; nc++)
			ret = neuron_core_reserve_locked(nd, nc, nf->proc);
		if (!ret)
			*map = GENMASK_ULL(first + count - 1, first);
	}
	mutex_unlock(&nd->cores->lock);
	return ret;
}

int neuron_core_unmark(struct neuron_file *nf, u64 map)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_nq *doomed[NEURON_NQ_PER_NC];
	int ret = 0, n, r;
	u32 nc;

	if (task_tgid(current) != nf->tgid)
		return -EACCES;
	for (nc = 0; nc < nd->nc_count; nc++) {
		if (!(map & BIT_ULL(nc)))
			continue;
		n = 0;
		mutex_lock(&nd->cores->lock);
		r = core_slot(nd, nc)->holder == nf->proc ?
		    core_release_locked(nd, nc, doomed, &n) : 0;
		mutex_unlock(&nd->cores->lock);
		core_put_rings(doomed, n);
		if (r)
			ret = r;
	}
	return ret;
}

bool neuron_pid_comm(struct pid *tgid, struct neuron_comm *comm)
{
	struct task_struct *task;

	rcu_read_lock();
	task = pid_task(tgid, PIDTYPE_TGID);
	if (task)
		get_task_comm(comm->s, task);
	rcu_read_unlock();
	return task;
}

/*
 * "<pid> (<comm>)" of @tgid in the initial pid namespace, for the log. The
 * name is the process's to choose: escaped (neuron_log_escape()), so it
 * can never end the line or look like one of the driver's fields.
 */
static void core_describe(struct pid *tgid, char *buf, size_t size)
{
	char esc[NEURON_LOG_ESCAPED_MAX(TASK_COMM_LEN)];
	struct neuron_comm comm;

	if (neuron_pid_comm(tgid, &comm)) {
		neuron_log_escape(esc, sizeof(esc), comm.s);
		snprintf(buf, size, "%d (%s)", pid_nr(tgid), esc);
	} else {
		snprintf(buf, size, "%d (exited)", pid_nr(tgid));
	}
}

/*
 * How long CORE_TAKE_BACK waits for the holder's running job: the longest
 * a job may run and wait, with a second to spare. Past it the answer is
 * -EBUSY, as when the wait is ended by a fatal signal (-EINTR).
 */
#define CORE_TAKE_BACK_WAIT_MS							\
	((NEURON_EXEC_MAX_DURATION_US + NEURON_EXEC_MAX_TIMEOUT_US) / 1000 + 1000)


/* No job of @owner runs on @s any more, or @owner does not hold it. */
static bool core_idle_for(struct neuron_core_slot *s, struct pid *owner)
{
	bool idle;

	spin_lock(&s->lock);
	idle = !s->jobs || !slot_held_by(s, owner);
	spin_unlock(&s->lock);
	return idle;
}

long neuron_core_ioctl_take_back(struct neuron_file *nf, void *karg)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_core_dev *cd = nd->cores;
	struct neuron_nq *doomed[NEURON_NQ_PER_NC];
	char from[NEURON_LOG_ESCAPED_MAX(TASK_COMM_LEN) + 24];
	char by[NEURON_LOG_ESCAPED_MAX(TASK_COMM_LEN) + 24];
	struct neuron_core_reserve arg;
	struct neuron_core_slot *s;
	struct pid *owner = NULL;
	long left;
	int n;
	int ret;

	/* any file of the device: root need not be its opener */
	ret = core_arg_parse(nd, karg, &arg);
	if (ret)
		return ret;
	s = core_slot(nd, arg.nc);

	/*
	 * Stop the holder's new jobs on the core, then wait for the running
	 * ones without any lock: a holder looping jobs on several threads
	 * cannot keep root out. The holder is followed by its struct pid,
	 * which the wait keeps: its struct neuron_proc may go meanwhile.
	 */
	mutex_lock(&cd->lock);
	if (s->holder) {
		owner = get_pid(s->holder->tgid);
		spin_lock(&s->lock);
		s->takers++;
		spin_unlock(&s->lock);
	}
	mutex_unlock(&cd->lock);
	if (!owner)
		return -ENOENT;
	left = wait_event_killable_timeout(cd->idle_wq, core_idle_for(s, owner),
					   msecs_to_jiffies(CORE_TAKE_BACK_WAIT_MS));

	mutex_lock(&cd->lock);
	/*
	 * @takers drops only once the core is freed (or found gone): dropped
	 * before, it would let a looping holder start a job in between. A
	 * mapped ring lives on until its last unmap, with no new entry. The
	 * holder found here is alive: its last close frees the core under
	 * this lock before its struct goes.
	 */
	if (slot_held_by(s, owner)) {
		struct neuron_proc *holder = s->holder;

		n = core_free_locked(nd, arg.nc, doomed);
		if (n >= 0)
			holder->cores_taken |= BIT(arg.nc);
	} else {
		n = -ENOENT;
	}
	spin_lock(&s->lock);
	s->takers--;
	spin_unlock(&s->lock);
	mutex_unlock(&cd->lock);
	if (n == -ENOENT) {
		/* released, or taken back by another caller, meanwhile */
		ret = -ENOENT;
		goto out;
	}
	if (n < 0) {
		/* a job still runs: the wait ended on a fatal signal or its bound */
		ret = left < 0 ? -EINTR : -EBUSY;
		goto out;
	}

	core_put_rings(doomed, n);
	neuron_nds_take_back(nd, owner, arg.nc);
	core_describe(owner, from, sizeof(from));
	core_describe(task_tgid(current), by, sizeof(by));
	dev_notice(&nd->dev, "NeuronCore %u taken back from pid %s by pid %s (uid %u)\n",
		   arg.nc, from, by, from_kuid(&init_user_ns, current_uid()));
out:
	put_pid(owner);
	return ret;
}

/* ---- lifetime ----------------------------------------------------------- */

void neuron_core_release_proc(struct neuron_device *nd, struct neuron_proc *p)
{
	struct neuron_core_dev *cd = nd->cores;
	struct neuron_nq *doomed[NEURON_NQ_PER_NC];
	int n;
	u32 nc;

	lockdep_assert_held(&nd->procs_lock);
	if (!cd)
		return;
	for (nc = 0; nc < nd->nc_count; nc++) {
		struct neuron_core_slot *s = core_slot(nd, nc);

		mutex_lock(&cd->lock);
		/*
		 * No job of @p runs (each holds a file, and this is the last
		 * one's release): no job count to check.
		 */
		if (s->holder == p) {
			spin_lock(&s->lock);
			core_set_holder(nd, nc, NULL, 0);
			spin_unlock(&s->lock);
		}
		n = neuron_nq_proc_take_locked(nd, nc, p->tgid, doomed);
		mutex_unlock(&cd->lock);
		core_put_rings(doomed, n);
	}
	mutex_lock(&cd->lock);
	p->cores_taken = 0;
	mutex_unlock(&cd->lock);
}

int neuron_core_init(struct neuron_device *nd)
{
	struct neuron_core_dev *cd;
	u32 nc;

	cd = kzalloc(sizeof(*cd), GFP_KERNEL);
	if (!cd)
		return -ENOMEM;
	mutex_init(&cd->lock);
	init_waitqueue_head(&cd->idle_wq);
	for (nc = 0; nc < NEURON_MAX_NC; nc++)
		spin_lock_init(&cd->slots[nc].lock);
	nd->cores = cd;
	return 0;
}

void neuron_core_free(struct neuron_device *nd)
{
	struct neuron_core_dev *cd = nd->cores;

	if (!cd)
		return;
	mutex_destroy(&cd->lock);
	kfree(cd);
	nd->cores = NULL;
}
