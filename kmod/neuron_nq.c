// SPDX-License-Identifier: GPL-2.0
/*
 * Notification queues: host-memory rings the device writes entries into
 * (neuron_nq_emit) and the owning process drains through a mapping. The
 * kernel never classifies entries. A ring lives on a NeuronCore its
 * creator holds (neuron_core.c), under the core table's lock, and leaves
 * the table with the reservation: release, take-back, reset, or the
 * process's last close.
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
#include "neuron_core.h"
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
void neuron_nq_put(struct neuron_nq *q)
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
	neuron_nq_put(q);
}

static const struct vm_operations_struct nq_vm_ops = {
	.open = nq_vm_open,
	.close = nq_vm_close,
};

/* Ring bytes @tgid holds on the device. Caller holds the core table's lock. */
static size_t nq_bytes_of(struct neuron_device *nd, struct pid *tgid)
{
	struct neuron_nq_dev *nqd = nd->nq;
	size_t sum = 0;
	u32 nc, i;

	lockdep_assert_held(&nd->cores->lock);
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

	mutex_lock(&nd->cores->lock);
	/* a NeuronCore's rings belong to the process holding the core */
	ret = neuron_core_reserve_locked(nd, nc, nf->proc);
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
	if (nq_bytes_of(nd, tgid) - (q ? q->map_size : 0) + map_size >
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
	mutex_unlock(&nd->cores->lock);
	/* the table's reference to the ring replaced (a mapping keeps its own) */
	if (!ret)
		neuron_nq_put(old);
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

	mutex_lock(&nd->cores->lock);
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
	mutex_unlock(&nd->cores->lock);
	neuron_nq_put(q);
	return ret;
}

void neuron_nq_emit(struct neuron_device *nd, u32 nc, u32 type, u32 engine,
		    const struct neuron_nq_entry *e, u32 n, u32 *written, u32 *dropped)
{
	struct neuron_nq_dev *nqd = nd->nq;
	struct neuron_nq *q;
	u32 i;

	mutex_lock(&nd->cores->lock);
	q = nqd->rings[nc][nq_index(type, engine)];
	/* only the ring of the process that holds the core gets its entries */
	if (!q || !neuron_core_held_by_locked(nd, nc, q->owner)) {
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
	mutex_unlock(&nd->cores->lock);
}

int neuron_nq_mmap(struct neuron_file *nf, struct vm_area_struct *vma)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_nq_dev *nqd = nd->nq;
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

	mutex_lock(&nd->cores->lock);
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
	mutex_unlock(&nd->cores->lock);
	return ret;
}

/* ---- the ring table's side of NeuronCore ownership (neuron_core.c) ---- */

bool neuron_nq_core_mapped_locked(struct neuron_device *nd, u32 nc)
{
	struct neuron_nq_dev *nqd = nd->nq;
	int i;

	lockdep_assert_held(&nd->cores->lock);
	for (i = 0; i < NEURON_NQ_PER_NC; i++)
		if (nqd->rings[nc][i] && atomic_read(&nqd->rings[nc][i]->maps))
			return true;
	return false;
}

int neuron_nq_core_take_locked(struct neuron_device *nd, u32 nc, struct neuron_nq **doomed)
{
	struct neuron_nq_dev *nqd = nd->nq;
	int i, n = 0;

	lockdep_assert_held(&nd->cores->lock);
	for (i = 0; i < NEURON_NQ_PER_NC; i++) {
		doomed[n] = nqd->rings[nc][i];
		if (doomed[n]) {
			nqd->rings[nc][i] = NULL;
			n++;
		}
	}
	return n;
}

int neuron_nq_proc_take_locked(struct neuron_device *nd, u32 nc, struct pid *tgid,
			       struct neuron_nq **doomed)
{
	struct neuron_nq_dev *nqd = nd->nq;
	int i, n = 0;

	lockdep_assert_held(&nd->cores->lock);
	for (i = 0; i < NEURON_NQ_PER_NC; i++) {
		struct neuron_nq *q = nqd->rings[nc][i];

		if (q && q->owner == tgid) {
			doomed[n++] = q;
			nqd->rings[nc][i] = NULL;
		}
	}
	return n;
}

/* ---- lifetime ----------------------------------------------------------- */

int neuron_nq_init(struct neuron_device *nd)
{
	nd->nq = kzalloc(sizeof(*nd->nq), GFP_KERNEL);
	return nd->nq ? 0 : -ENOMEM;
}

void neuron_nq_free(struct neuron_device *nd)
{
	struct neuron_nq_dev *nqd = nd->nq;
	u32 nc, i;

	if (!nqd)
		return;
	/* every process's last close came first: normally nothing is left */
	for (nc = 0; nc < NEURON_MAX_NC; nc++)
		for (i = 0; i < NEURON_NQ_PER_NC; i++)
			neuron_nq_put(nqd->rings[nc][i]);
	kfree(nqd);
	nd->nq = NULL;
}
