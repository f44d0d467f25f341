// SPDX-License-Identifier: GPL-2.0
/*
 * Notification queues: host-memory rings the device writes entries into
 * (neuron_nq_emit) and the owning process drains through a mapping; and the
 * NeuronCore reservations jobs run under. The kernel never classifies
 * entries.
 *
 * Everything a process holds (rings, reservations) is released with its
 * last file on the device: close, exit or SIGKILL.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": nq: " fmt

#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "neuron_abi.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_log.h"
#include "neuron_mem.h"
#include "neuron_nds_priv.h"
#include "neuron_nq_priv.h"

/*
 * mmap cookie spaces of the rings: one 2 MiB window per (nc, type,
 * engine), the control page and entries of this driver's rings from
 * NEURON_NQ_MMAP_BASE, the entries alone of the vendor's from
 * NEURON_NQ_VMMAP_BASE (both below NEURON_MEM_MMAP_BASE)
 */
#define NEURON_NQ_MMAP_BASE	0x40000000ULL
#define NEURON_NQ_VMMAP_BASE	0x100000000ULL
#define NEURON_NQ_MMAP_STRIDE	0x200000ULL
#define NEURON_NQ_MMAP_SPAN	((u64)NEURON_MAX_NC * NEURON_NQ_PER_NC * NEURON_NQ_MMAP_STRIDE)

static u32 nq_index(u32 type, u32 engine)
{
	return type * NEURON_NQ_MAX_ENGINE + engine;
}

static u64 nq_cookie(u32 nc, u32 type, u32 engine, bool vendor)
{
	return (vendor ? NEURON_NQ_VMMAP_BASE : NEURON_NQ_MMAP_BASE) +
	       (u64)(nc * NEURON_NQ_PER_NC + nq_index(type, engine)) * NEURON_NQ_MMAP_STRIDE;
}

static struct neuron_nq_entry *nq_entries(struct neuron_nq *q)
{
	return (struct neuron_nq_entry *)((u8 *)q->mem + NEURON_NQ_RING_OFFSET);
}

/* What root took back from @tgid, or NULL. Caller holds nqd->lock. */
static struct neuron_core_taken *core_taken_of(struct neuron_nq_dev *nqd, struct pid *tgid)
{
	struct neuron_core_taken *t;

	lockdep_assert_held(&nqd->lock);
	list_for_each_entry(t, &nqd->taken, node)
		if (t->tgid == tgid)
			return t;
	return NULL;
}

/*
 * @nc's holder becomes @tgid (NULL: nobody) as of @since. Caller holds
 * nqd->lock and the slot's lock.
 */
static void core_set_owner(struct neuron_nq_dev *nqd, u32 nc, struct pid *tgid, u64 since)
{
	struct neuron_core_slot *s = &nqd->cores[nc];

	lockdep_assert_held(&nqd->lock);
	lockdep_assert_held(&s->lock);
	s->owner = tgid;
	s->since = since;
}

/*
 * Reserve @nc for @tgid: 0, -EBUSY when another process holds it, or
 * -ECANCELED when root took it back from @tgid. Caller holds nqd->lock.
 */
static int core_reserve_locked(struct neuron_nq_dev *nqd, u32 nc, struct pid *tgid)
{
	struct neuron_core_taken *t;

	lockdep_assert_held(&nqd->lock);
	if (nqd->cores[nc].owner == tgid)
		return 0;
	t = core_taken_of(nqd, tgid);
	if (t && (t->nc_map & BIT(nc)))
		return -ECANCELED;
	if (nqd->cores[nc].owner)
		return -EBUSY;
	spin_lock(&nqd->cores[nc].lock);
	core_set_owner(nqd, nc, tgid, ktime_get_boottime_ns());
	spin_unlock(&nqd->cores[nc].lock);
	return 0;
}

/*
 * A ring's memory is host memory the driver holds for the process,
 * accounted as notifications of its NeuronCore while the ring exists.
 */
static void nq_account(struct neuron_device *nd, struct neuron_nq *q, bool add)
{
	neuron_memstat_account(nd, q->nc, NEURON_MEM_LOC_HOST, NEURON_MEM_CAT_NOTIFICATION,
			       q->map_size, add);
}

/*
 * Drop a reference: the ring table's (when it lets the ring go) or a
 * mapping's. The last one frees the ring.
 */
static void nq_put(struct neuron_nq *q)
{
	if (!q || !refcount_dec_and_test(&q->refs))
		return;
	nq_account(q->nd, q, false);
	/* pages still mapped somewhere keep their own references */
	vfree(q->mem);
	kfree(q);
}

/*
 * The ring's mappings, counted so a mapped ring is never released by its
 * owner, and each holding a reference for a ring taken back while mapped.
 */
static void nq_vm_open(struct vm_area_struct *vma)
{
	struct neuron_nq *q = vma->vm_private_data;

	atomic_inc(&q->maps);
	refcount_inc(&q->refs);
}

static void nq_vm_close(struct vm_area_struct *vma)
{
	struct neuron_nq *q = vma->vm_private_data;

	atomic_dec(&q->maps);
	nq_put(q);
}

static const struct vm_operations_struct nq_vm_ops = {
	.open = nq_vm_open,
	.close = nq_vm_close,
};

/* Ring bytes @tgid holds on the device. Caller holds nqd->lock. */
static size_t nq_bytes_of(struct neuron_nq_dev *nqd, struct pid *tgid)
{
	size_t sum = 0;
	u32 nc, i;

	lockdep_assert_held(&nqd->lock);
	for (nc = 0; nc < NEURON_MAX_NC; nc++)
		for (i = 0; i < NEURON_NQ_PER_NC; i++)
			if (nqd->rings[nc][i] && nqd->rings[nc][i]->owner == tgid)
				sum += nqd->rings[nc][i]->map_size;
	return sum;
}

static int nq_check_key(struct neuron_device *nd, u32 nc, u32 type, u32 engine)
{
	if (nc >= nd->nc_count || type >= NEURON_NQ_TYPE_MAX || engine >= NEURON_NQ_MAX_ENGINE)
		return -EINVAL;
	return 0;
}

/*
 * The caller's ring (@nc, @type, @engine) of @ring_size bytes, created if
 * it has none; @vendor: the vendor's kind (entries alone, written on
 * around the ring). An existing ring of the caller's of that kind and
 * size is kept (its contents untouched), or replaced by a new one with
 * @replace unless it is mapped (-EBUSY); one of another kind or size is
 * -EBUSY. Reserves @nc for the caller first (-EBUSY, -ECANCELED). Caller
 * checked the key and the size.
 */
static int nq_get(struct neuron_file *nf, u32 nc, u32 type, u32 engine, u32 ring_size,
		  bool vendor, bool replace)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_nq_dev *nqd = nd->nq;
	struct neuron_nq **slot, *q, *old = NULL;
	struct pid *tgid = task_tgid(current);
	size_t map_size = PAGE_ALIGN(NEURON_NQ_RING_OFFSET + ring_size);
	int ret;

	/* the ring dies with the opener's last close: only the opener may own one */
	if (tgid != nf->tgid)
		return -EACCES;

	mutex_lock(&nqd->lock);
	/* a NeuronCore's rings belong to the process holding the core */
	ret = core_reserve_locked(nqd, nc, tgid);
	if (ret)
		goto out;
	slot = &nqd->rings[nc][nq_index(type, engine)];
	q = *slot;
	if (q && (q->owner != tgid || q->vendor != vendor ||
		  (q->ring_size != ring_size && !replace))) {
		ret = -EBUSY;
		goto out;
	}
	if (q && !replace)
		goto out;
	/* a mapped ring stays (unmap first): what a process pins stays counted */
	if (q && atomic_read(&q->maps)) {
		ret = -EBUSY;
		goto out;
	}
	if (nq_bytes_of(nqd, tgid) - (q ? q->map_size : 0) + map_size >
	    NEURON_NQ_PROC_BYTES_MAX) {
		ret = -ENOSPC;
		goto out;
	}
	old = q;
	q = kzalloc(sizeof(*q), GFP_KERNEL_ACCOUNT);
	if (!q) {
		ret = -ENOMEM;
		goto out;
	}
	q->owner = tgid;
	q->nd = nd;
	refcount_set(&q->refs, 1);
	q->nc = nc;
	q->vendor = vendor;
	q->ring_size = ring_size;
	q->map_size = map_size;
	q->mem = neuron_alloc_user_mem(q->map_size);
	if (!q->mem) {
		kfree(q);
		ret = -ENOMEM;
		goto out;
	}
	neuron_nq_producer_init(&q->prod, q->mem, ring_size / NEURON_NQ_ENTRY_SIZE);
	/* before the ring is visible: its free always comes after */
	nq_account(nd, q, true);
	*slot = q;
out:
	mutex_unlock(&nqd->lock);
	/* the table's reference to the ring replaced (a mapping keeps its own) */
	if (!ret)
		nq_put(old);
	return ret;
}

long neuron_nq_ioctl_init(struct neuron_file *nf, void *karg)
{
	struct neuron_nq_init arg;
	int ret;

	ret = neuron_ioctl_arg(&arg, karg, sizeof(arg), 0);
	if (ret)
		return ret;
	if (!neuron_abi_all_zero(arg.reserved, sizeof(arg.reserved)))
		return -EINVAL;
	ret = nq_check_key(nf->nd, arg.nc, arg.nq_type, arg.engine);
	if (ret)
		return ret;
	if (!neuron_nq_size_valid(arg.ring_size))
		return -EINVAL;
	ret = nq_get(nf, arg.nc, arg.nq_type, arg.engine, arg.ring_size, false, false);
	if (ret)
		return ret;

	arg.mmap_offset = nq_cookie(arg.nc, arg.nq_type, arg.engine, false);
	arg.mmap_size = NEURON_NQ_RING_OFFSET + arg.ring_size;
	memset(arg.reserved, 0, sizeof(arg.reserved));
	neuron_ioctl_out(karg, &arg, sizeof(arg));
	return 0;
}

int neuron_nq_vendor_init(struct neuron_file *nf, u32 nc, u32 type, u32 engine, u32 size,
			  bool replace, u64 *mmap_offset, u64 *handle)
{
	int ret;

	/* the entries start one page into the ring's memory: 4 KiB pages only */
	if (PAGE_SIZE != NEURON_NQ_RING_OFFSET)
		return -EOPNOTSUPP;
	ret = nq_check_key(nf->nd, nc, type, engine);
	if (ret)
		return ret;
	if (!neuron_nq_size_valid(size))
		return -EINVAL;
	ret = nq_get(nf, nc, type, engine, size, true, replace);
	if (ret)
		return ret;
	*mmap_offset = nq_cookie(nc, type, engine, true);
	/* a small number per ring of the device, never 0 */
	*handle = (u64)nc * NEURON_NQ_PER_NC + nq_index(type, engine) + 1;
	return 0;
}

long neuron_nq_ioctl_release(struct neuron_file *nf, void *karg)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_nq_dev *nqd = nd->nq;
	struct neuron_nq_release arg;
	struct neuron_nq **slot, *q = NULL;
	int ret;

	ret = neuron_ioctl_arg(&arg, karg, sizeof(arg), 0);
	if (ret)
		return ret;
	if (arg.reserved0 || !neuron_abi_all_zero(arg.reserved, sizeof(arg.reserved)))
		return -EINVAL;
	ret = nq_check_key(nd, arg.nc, arg.nq_type, arg.engine);
	if (ret)
		return ret;

	mutex_lock(&nqd->lock);
	slot = &nqd->rings[arg.nc][nq_index(arg.nq_type, arg.engine)];
	if (!*slot || (*slot)->owner != task_tgid(current)) {
		ret = -ENOENT;
	} else if (atomic_read(&(*slot)->maps)) {
		/* unmap first: the mapping would keep the memory, uncounted */
		ret = -EBUSY;
	} else {
		q = *slot;
		*slot = NULL;
	}
	mutex_unlock(&nqd->lock);
	nq_put(q);
	return ret;
}

void neuron_nq_emit(struct neuron_device *nd, u32 nc, u32 type, u32 engine,
		    const struct neuron_nq_entry *e, u32 n, u32 *written, u32 *dropped)
{
	struct neuron_nq_dev *nqd = nd->nq;
	struct neuron_nq *q;
	u32 i;

	mutex_lock(&nqd->lock);
	q = nqd->rings[nc][nq_index(type, engine)];
	/* only the ring of the process that holds the core gets its entries */
	if (!q || q->owner != nqd->cores[nc].owner) {
		*dropped += n;
		goto out;
	}
	for (i = 0; i < n; i++) {
		/*
		 * The vendor's kind has no consumer index: the device writes
		 * on around the ring, and a consumer a lap behind sees the
		 * phase of the later lap. Its control page is the driver's.
		 */
		if (q->vendor)
			WRITE_ONCE(((struct neuron_nq_ctrl *)q->mem)->head, q->prod.tail);
		if (neuron_nq_produce(&q->prod, q->mem, nq_entries(q), &e[i]))
			(*dropped)++;
		else
			(*written)++;
	}
out:
	mutex_unlock(&nqd->lock);
}

int neuron_nq_mmap(struct neuron_file *nf, struct vm_area_struct *vma)
{
	struct neuron_nq_dev *nqd = nf->nd->nq;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	unsigned long len = vma->vm_end - vma->vm_start;
	u64 rel, idx;
	struct neuron_nq *q;
	bool vendor;
	int ret;

	if (off >= NEURON_NQ_MMAP_BASE && off < NEURON_NQ_MMAP_BASE + NEURON_NQ_MMAP_SPAN)
		vendor = false;
	else if (off >= NEURON_NQ_VMMAP_BASE && off < NEURON_NQ_VMMAP_BASE + NEURON_NQ_MMAP_SPAN)
		vendor = true;
	else
		return NEURON_MMAP_NOT_MINE;
	rel = off - (vendor ? NEURON_NQ_VMMAP_BASE : NEURON_NQ_MMAP_BASE);
	if (rel % NEURON_NQ_MMAP_STRIDE)
		return -EINVAL;
	idx = rel / NEURON_NQ_MMAP_STRIDE;

	mutex_lock(&nqd->lock);
	q = idx / NEURON_NQ_PER_NC < nf->nd->nc_count ?
	    nqd->rings[idx / NEURON_NQ_PER_NC][idx % NEURON_NQ_PER_NC] : NULL;
	if (!q) {
		ret = -ENOENT;
		goto out;
	}
	/* each kind through its own cookie, and the whole of what that shows */
	if (q->vendor != vendor ||
	    len != q->map_size - (vendor ? NEURON_NQ_RING_OFFSET : 0)) {
		ret = -EINVAL;
		goto out;
	}
	/*
	 * Only what an NQ_INIT through this file handed out: NQ_INIT is for
	 * the ring's owner on a file it opened, so that file and that owner.
	 */
	if (q->owner != nf->tgid || q->owner != task_tgid(current)) {
		ret = -EACCES;
		goto out;
	}
	ret = neuron_map_owned(nf, vma, (u8 *)q->mem + (vendor ? NEURON_NQ_RING_OFFSET : 0),
			       q->owner, &nq_vm_ops, q);
out:
	mutex_unlock(&nqd->lock);
	return ret;
}

/* ---- NeuronCore reservations ------------------------------------------ */

int neuron_core_job_begin(struct neuron_device *nd, u32 nc, struct pid *tgid)
{
	struct neuron_nq_dev *nqd = nd->nq;
	struct neuron_core_slot *s = &nqd->cores[nc];
	int ret;

	/*
	 * The holder's job (every job but a process's first on the core):
	 * the slot alone. A release or take-back checks @jobs and clears
	 * @owner under the same lock, so the job either counts before it
	 * (which refuses it) or finds the core gone and goes below.
	 */
	spin_lock(&s->lock);
	if (s->owner == tgid) {
		/* root is taking the core back: it waits for the running jobs only */
		ret = s->takers ? -ECANCELED : 0;
		if (!ret)
			s->jobs++;
		spin_unlock(&s->lock);
		return ret;
	}
	spin_unlock(&s->lock);

	mutex_lock(&nqd->lock);
	ret = core_reserve_locked(nqd, nc, tgid);
	if (!ret) {
		spin_lock(&s->lock);
		if (s->takers)
			ret = -ECANCELED;
		else
			s->jobs++;
		spin_unlock(&s->lock);
	}
	mutex_unlock(&nqd->lock);
	return ret;
}

void neuron_core_job_end(struct neuron_device *nd, u32 nc)
{
	struct neuron_nq_dev *nqd = nd->nq;
	struct neuron_core_slot *s = &nqd->cores[nc];
	bool wake;

	spin_lock(&s->lock);
	s->jobs--;
	wake = !s->jobs && s->takers;
	spin_unlock(&s->lock);
	if (wake)
		wake_up_all(&nqd->idle_wq);
}

pid_t neuron_core_holder(struct neuron_device *nd, u32 nc)
{
	pid_t nr;

	if (nc >= nd->nc_count)
		return 0;
	mutex_lock(&nd->nq->lock);
	nr = pid_nr(nd->nq->cores[nc].owner);
	mutex_unlock(&nd->nq->lock);
	return nr;
}

struct pid *neuron_core_owner_get(struct neuron_device *nd, u32 nc, u64 *since_ns)
{
	struct pid *owner;

	mutex_lock(&nd->nq->lock);
	owner = get_pid(nd->nq->cores[nc].owner);
	*since_ns = owner ? nd->nq->cores[nc].since : 0;
	mutex_unlock(&nd->nq->lock);
	return owner;
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
 * (for nq_put() after the lock) and it is free. Returns how many rings,
 * or -EBUSY. Caller holds nqd->lock.
 */
/* True when one of @nc's rings is mapped. Caller holds nqd->lock. */
static bool core_rings_mapped_locked(struct neuron_nq_dev *nqd, u32 nc)
{
	int i;

	lockdep_assert_held(&nqd->lock);
	for (i = 0; i < NEURON_NQ_PER_NC; i++)
		if (nqd->rings[nc][i] && atomic_read(&nqd->rings[nc][i]->maps))
			return true;
	return false;
}

/*
 * @nc's rings leave the table into @doomed (for nq_put() after the lock):
 * how many. Caller holds nqd->lock.
 */
static int core_take_rings_locked(struct neuron_nq_dev *nqd, u32 nc, struct neuron_nq **doomed)
{
	int i, n = 0;

	lockdep_assert_held(&nqd->lock);
	for (i = 0; i < NEURON_NQ_PER_NC; i++) {
		doomed[n] = nqd->rings[nc][i];
		if (doomed[n]) {
			nqd->rings[nc][i] = NULL;
			n++;
		}
	}
	return n;
}

static int core_free_locked(struct neuron_nq_dev *nqd, u32 nc, struct neuron_nq **doomed)
{
	struct neuron_core_slot *s = &nqd->cores[nc];

	lockdep_assert_held(&nqd->lock);
	/* checked and cleared at once: a job of the holder starts before, or not at all */
	spin_lock(&s->lock);
	if (s->jobs) {
		spin_unlock(&s->lock);
		return -EBUSY;
	}
	core_set_owner(nqd, nc, NULL, 0);
	spin_unlock(&s->lock);
	return core_take_rings_locked(nqd, nc, doomed);
}

int neuron_core_reset_rings(struct neuron_device *nd, struct pid *tgid, u32 *nc_map,
			    bool held_only)
{
	struct neuron_nq_dev *nqd = nd->nq;
	struct neuron_core_taken *t;
	struct neuron_nq **doomed;
	u32 nc, map = 0, jobs;
	int i, n = 0, ret = 0;

	doomed = kcalloc(NEURON_MAX_NC * NEURON_NQ_PER_NC, sizeof(*doomed), GFP_KERNEL);
	if (!doomed)
		return -ENOMEM;
	mutex_lock(&nqd->lock);
	t = core_taken_of(nqd, tgid);
	for (nc = 0; nc < nd->nc_count; nc++) {
		if (!(*nc_map & BIT(nc)))
			continue;
		if (nqd->cores[nc].owner != tgid) {
			if (held_only)
				continue;
			ret = t && (t->nc_map & BIT(nc)) ? -ECANCELED : -EACCES;
			goto out;
		}
		spin_lock(&nqd->cores[nc].lock);
		jobs = nqd->cores[nc].jobs;
		spin_unlock(&nqd->cores[nc].lock);
		if (jobs) {
			ret = -EBUSY;
			goto out;
		}
		/* a mapped ring stays, as for CORE_RELEASE: unmap first */
		if (core_rings_mapped_locked(nqd, nc)) {
			ret = -EBUSY;
			goto out;
		}
		map |= BIT(nc);
	}
	for (nc = 0; nc < nd->nc_count; nc++)
		if (map & BIT(nc))
			n += core_take_rings_locked(nqd, nc, doomed + n);
	*nc_map = map;
out:
	mutex_unlock(&nqd->lock);
	for (i = 0; i < n; i++)
		nq_put(doomed[i]);
	kfree(doomed);
	return ret;
}

long neuron_core_ioctl_reserve(struct neuron_file *nf, void *karg)
{
	struct neuron_nq_dev *nqd = nf->nd->nq;
	struct neuron_core_reserve arg;
	int ret = core_arg(nf, karg, &arg);

	if (ret)
		return ret;
	mutex_lock(&nqd->lock);
	ret = core_reserve_locked(nqd, arg.nc, nf->tgid);
	mutex_unlock(&nqd->lock);
	return ret;
}

/*
 * Release @nc, which @tgid holds: its rings leave the table into @doomed
 * (*@n of them, for nq_put() after the lock). -EBUSY (nothing released)
 * while one of them is mapped or a job runs on it. Caller holds nqd->lock.
 */
static int core_release_locked(struct neuron_nq_dev *nqd, u32 nc, struct neuron_nq **doomed,
			       int *n)
{
	lockdep_assert_held(&nqd->lock);
	/*
	 * The core's rings go with it, so the next holder can create its
	 * own and gets its job's entries; a mapped ring keeps the
	 * reservation (unmap first), and so does a running job (its
	 * entries are ours).
	 */
	if (core_rings_mapped_locked(nqd, nc))
		return -EBUSY;
	*n = core_free_locked(nqd, nc, doomed);
	if (*n < 0) {
		*n = 0;
		return -EBUSY;
	}
	return 0;
}

long neuron_core_ioctl_release(struct neuron_file *nf, void *karg)
{
	struct neuron_nq_dev *nqd = nf->nd->nq;
	struct neuron_nq *doomed[NEURON_NQ_PER_NC];
	struct neuron_core_reserve arg;
	int ret = core_arg(nf, karg, &arg);
	int i, n = 0;

	if (ret)
		return ret;
	mutex_lock(&nqd->lock);
	if (nqd->cores[arg.nc].owner != nf->tgid)
		ret = -ENOENT;
	else
		ret = core_release_locked(nqd, arg.nc, doomed, &n);
	mutex_unlock(&nqd->lock);
	for (i = 0; i < n; i++)
		nq_put(doomed[i]);
	return ret;
}

u32 neuron_core_taken_map(struct neuron_device *nd, struct pid *tgid)
{
	struct neuron_core_taken *t;
	u32 map;

	mutex_lock(&nd->nq->lock);
	t = core_taken_of(nd->nq, tgid);
	map = t ? t->nc_map : 0;
	mutex_unlock(&nd->nq->lock);
	return map;
}

/* @nc is nobody's, and was not taken back from @tgid. Caller holds nqd->lock. */
static bool core_free_for(struct neuron_nq_dev *nqd, u32 nc, struct pid *tgid)
{
	struct neuron_core_taken *t = core_taken_of(nqd, tgid);

	return !nqd->cores[nc].owner && !(t && (t->nc_map & BIT(nc)));
}

int neuron_core_mark_range(struct neuron_file *nf, u32 count, u32 start, u32 end, u64 *map,
			   u32 *longest)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_nq_dev *nqd = nd->nq;
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

	mutex_lock(&nqd->lock);
	for (nc = start; nc <= end; nc++) {
		run = core_free_for(nqd, nc, nf->tgid) ? run + 1 : 0;
		*longest = max(*longest, run);
		if (run == count && first == U32_MAX)
			first = nc + 1 - count;
	}
	if (first == U32_MAX) {
		ret = -EBUSY;
	} else {
		for (nc = first; nc < first + count && !ret; nc++)
			ret = core_reserve_locked(nqd, nc, nf->tgid);
		if (!ret)
			*map = GENMASK_ULL(first + count - 1, first);
	}
	mutex_unlock(&nqd->lock);
	return ret;
}

int neuron_core_unmark(struct neuron_file *nf, u64 map)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_nq_dev *nqd = nd->nq;
	struct neuron_nq *doomed[NEURON_NQ_PER_NC];
	int ret = 0, i, n, r;
	u32 nc;

	if (task_tgid(current) != nf->tgid)
		return -EACCES;
	for (nc = 0; nc < nd->nc_count; nc++) {
		if (!(map & BIT_ULL(nc)))
			continue;
		n = 0;
		mutex_lock(&nqd->lock);
		r = nqd->cores[nc].owner == nf->tgid ?
		    core_release_locked(nqd, nc, doomed, &n) : 0;
		mutex_unlock(&nqd->lock);
		for (i = 0; i < n; i++)
			nq_put(doomed[i]);
		if (r)
			ret = r;
	}
	return ret;
}

/*
 * "<pid> (<comm>)" of @tgid in the initial pid namespace, for the log. The
 * name is the process's to choose: escaped (neuron_log_escape()), so it
 * can never end the line or look like one of the driver's fields.
 */
static void core_describe(struct pid *tgid, char *buf, size_t size)
{
	char comm[TASK_COMM_LEN], esc[NEURON_LOG_ESCAPED_MAX(TASK_COMM_LEN)];
	struct task_struct *task;

	rcu_read_lock();
	task = pid_task(tgid, PIDTYPE_TGID);
	if (task)
		get_task_comm(comm, task);
	rcu_read_unlock();
	if (task) {
		neuron_log_escape(esc, sizeof(esc), comm);
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
	idle = !s->jobs || s->owner != owner;
	spin_unlock(&s->lock);
	return idle;
}

long neuron_core_ioctl_take_back(struct neuron_file *nf, void *karg)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_nq_dev *nqd = nd->nq;
	struct neuron_nq *doomed[NEURON_NQ_PER_NC];
	char from[NEURON_LOG_ESCAPED_MAX(TASK_COMM_LEN) + 24];
	char by[NEURON_LOG_ESCAPED_MAX(TASK_COMM_LEN) + 24];
	struct neuron_core_taken *t, *fresh;
	struct neuron_core_reserve arg;
	struct neuron_core_slot *s;
	struct pid *owner = NULL;
	long left;
	int i, n;
	int ret;

	/* any file of the device: root need not be its opener */
	ret = core_arg_parse(nd, karg, &arg);
	if (ret)
		return ret;
	s = &nqd->cores[arg.nc];
	/* before the lock: the record of the first core taken from a process */
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
	if (!fresh)
		return -ENOMEM;

	/*
	 * Stop the holder's new jobs on the core, then wait for the running
	 * ones without any lock: a holder looping jobs on several threads
	 * cannot keep root out.
	 */
	mutex_lock(&nqd->lock);
	owner = get_pid(s->owner);
	if (owner) {
		spin_lock(&s->lock);
		s->takers++;
		spin_unlock(&s->lock);
	}
	mutex_unlock(&nqd->lock);
	if (!owner) {
		kfree(fresh);
		return -ENOENT;
	}
	left = wait_event_killable_timeout(nqd->idle_wq, core_idle_for(s, owner),
					   msecs_to_jiffies(CORE_TAKE_BACK_WAIT_MS));

	mutex_lock(&nqd->lock);
	/*
	 * @takers drops only once the core is freed (or found gone): dropped
	 * before, it would let a looping holder start a job in between. A
	 * mapped ring lives on until its last unmap, with no new entry.
	 */
	n = s->owner == owner ? core_free_locked(nqd, arg.nc, doomed) : -ENOENT;
	spin_lock(&s->lock);
	s->takers--;
	spin_unlock(&s->lock);
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
	t = core_taken_of(nqd, owner);
	if (!t) {
		t = fresh;
		fresh = NULL;
		t->tgid = owner;
		list_add_tail(&t->node, &nqd->taken);
	}
	t->nc_map |= BIT(arg.nc);
	mutex_unlock(&nqd->lock);

	for (i = 0; i < n; i++)
		nq_put(doomed[i]);
	neuron_nds_take_back(nd, owner, arg.nc);
	core_describe(owner, from, sizeof(from));
	core_describe(task_tgid(current), by, sizeof(by));
	dev_notice(&nd->dev, "NeuronCore %u taken back from pid %s by pid %s (uid %u)\n",
		   arg.nc, from, by, from_kuid(&init_user_ns, current_uid()));
	put_pid(owner);
	kfree(fresh);
	return 0;
out:
	mutex_unlock(&nqd->lock);
	put_pid(owner);
	kfree(fresh);
	return ret;
}

/* ---- lifetime ----------------------------------------------------------- */

void neuron_nq_release_tgid(struct neuron_device *nd, struct pid *tgid)
{
	struct neuron_nq_dev *nqd = nd->nq;
	struct neuron_nq *doomed[NEURON_NQ_PER_NC];
	struct neuron_core_taken *taken;
	u32 nc, i, n;

	if (!nqd)
		return;
	for (nc = 0; nc < nd->nc_count; nc++) {
		n = 0;
		mutex_lock(&nqd->lock);
		/*
		 * No job of @tgid runs (each holds a file, and this is the
		 * last one's release): no job count to check.
		 */
		if (nqd->cores[nc].owner == tgid) {
			spin_lock(&nqd->cores[nc].lock);
			core_set_owner(nqd, nc, NULL, 0);
			spin_unlock(&nqd->cores[nc].lock);
		}
		for (i = 0; i < NEURON_NQ_PER_NC; i++) {
			struct neuron_nq *q = nqd->rings[nc][i];

			if (q && q->owner == tgid) {
				doomed[n++] = q;
				nqd->rings[nc][i] = NULL;
			}
		}
		mutex_unlock(&nqd->lock);
		for (i = 0; i < n; i++)
			nq_put(doomed[i]);
	}
	mutex_lock(&nqd->lock);
	taken = core_taken_of(nqd, tgid);
	if (taken)
		list_del(&taken->node);
	mutex_unlock(&nqd->lock);
	kfree(taken);
}

int neuron_nq_init(struct neuron_device *nd)
{
	struct neuron_nq_dev *nqd;
	u32 nc;

	nqd = kzalloc(sizeof(*nqd), GFP_KERNEL);
	if (!nqd)
		return -ENOMEM;
	mutex_init(&nqd->lock);
	init_waitqueue_head(&nqd->idle_wq);
	for (nc = 0; nc < NEURON_MAX_NC; nc++)
		spin_lock_init(&nqd->cores[nc].lock);
	INIT_LIST_HEAD(&nqd->taken);
	nd->nq = nqd;
	return 0;
}

/*
 * Called at device removal. Open files may still release their rings
 * later (neuron_nq_release_tgid), so the table itself stays until the
 * device struct goes; here only nothing new may start.
 */
void neuron_nq_exit(struct neuron_device *nd)
{
}

void neuron_nq_free(struct neuron_device *nd)
{
	struct neuron_nq_dev *nqd = nd->nq;
	struct neuron_core_taken *t, *next;
	u32 nc, i;

	if (!nqd)
		return;
	for (nc = 0; nc < NEURON_MAX_NC; nc++)
		for (i = 0; i < NEURON_NQ_PER_NC; i++)
			nq_put(nqd->rings[nc][i]);
	/* every process's last close came first: normally nothing is left */
	list_for_each_entry_safe(t, next, &nqd->taken, node)
		kfree(t);
	mutex_destroy(&nqd->lock);
	kfree(nqd);
	nd->nq = NULL;
}
