// SPDX-License-Identifier: GPL-2.0
/*
 * NDS: per-process counter slabs and the device totals they fold into.
 *
 * Each device has NEURON_NDS_PER_DEVICE slots. A process claims one with
 * NDS_ACQUIRE (pid 0) and maps it read-write; the runtime then counts with
 * plain atomic adds on the mapping, no syscall per update. Monitors look a
 * slab up by pid and may only map it read-only, or have a range of it
 * copied out (NDS_READ: no mapping, nothing granted).
 *
 * Folding: every (NeuronCore, counter id) has a cell {total, present}. A
 * slot keeps a shadow of the values already folded; folding adds
 * (current - shadow) to the cell. Sysfs reads fold the live slabs first, so
 * running processes are visible, and the owner's last close folds the slab
 * one final time before it is zeroed and freed. Nothing counted is lost:
 * not on exit, not on SIGKILL, not on the last close of the device.
 *
 * Memory: each owner gets a slab of its own. The claim allocates 256 KiB
 * in the owner's context, charged to the owner's memory cgroup; the
 * owner's last close folds it, zeroes it and frees it. A mapping holds its
 * own page references, so a monitor's read-only mapping keeps showing the
 * owner it was granted for (its counters while it lives, zeros after) and
 * never the slot's next owner, whose slab is other memory: not across an
 * exit, not across pid namespaces, not through pages spliced into a pipe.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": nds: " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "neuron_abi.h"
#include "neuron_core.h"
#include "neuron_counters.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_mem.h"
#include "neuron_nds_priv.h"
#include "neuron_sysfs.h"

/* mmap cookie space of the slabs: slot s maps at BASE + s * NEURON_NDS_SIZE */
#define NEURON_NDS_MMAP_BASE	0x10000000ULL

/* bytes of one "removed: nc<K> totals:" log line (printk's limit is 1024) */
#define NDS_LOG_LINE		512

/**
 * struct neuron_nds_slot - one slab
 * @owner:	the owning process, NULL when free (the proc entry holds the ref)
 * @mem:	the owner's slab, NEURON_NDS_SIZE bytes; NULL exactly when free
 * @shadow:	[nc_count][NEURON_NDS_ID_COUNT] values already folded (kernel
 *		only: allocated with the slot's first claim, kept)
 * @taken:	bit K: root took NeuronCore K back from the owner; its counts
 *		for K were folded then and are not folded again
 */
struct neuron_nds_slot {
	struct pid *owner;
	void *mem;
	u64 *shadow;
	u32 taken;
};

struct neuron_nds_cell {
	u64 total;	/* since load, or since the last write-to-clear */
	u64 present;	/* the last non-zero change */
};

/**
 * struct neuron_nds - NDS state of one device
 * @lock:	protects everything in this struct and the slab contents'
 *		zeroing (the runtime's own updates are lock-free atomics)
 * @nc_count:	NeuronCores folded (the device's count)
 * @slots:	the slabs
 * @cells:	[nc_count][NEURON_NDS_ID_COUNT] sysfs values
 * @mono:	[NEURON_NDS_ID_COUNT] monotonic sums over all NeuronCores,
 *		never cleared, for the metrics post
 * @exited_bitmap: ND FEATURE_BITMAP ORed from every released slab
 * @cluster_id:	last non-zero ND DEVICE_CLUSTER_ID seen
 * @exited_versions: per version metric (ND counters 0, 1, 2), the values of
 *		the slabs released since the metric was last delivered
 * @read_buffered: NDS_READ calls that took the kernel buffer (a page of
 *		the caller's buffer was not present and writable), counted once
 *		it is allocated; debugfs neuron<N>/nds_read_buffered
 */
struct neuron_nds {
	struct mutex lock;
	u32 nc_count;
	struct neuron_nds_slot slots[NEURON_NDS_PER_DEVICE];
	struct neuron_nds_cell *cells;
	u64 mono[NEURON_NDS_ID_COUNT];
	u64 exited_bitmap;
	u64 cluster_id;
	struct neuron_metric_hist exited_versions[NEURON_METRIC_VERSIONS];
	atomic64_t read_buffered;
};

static inline u64 *nds_slab_u64(void *mem, s64 off)
{
	return (u64 *)((u8 *)mem + off);
}

static struct neuron_nds_cell *nds_cell(struct neuron_nds *nds, u32 nc, u32 id)
{
	return &nds->cells[nc * NEURON_NDS_ID_COUNT + id];
}

/* Fold one (nc, id) of one live slot into its cell. Caller holds the lock. */
static void nds_fold_one(struct neuron_nds *nds, struct neuron_nds_slot *slot,
			 u32 nc, u32 id)
{
	s64 off = neuron_nds_nc_offset(nc, id);
	u64 *shadow = &slot->shadow[nc * NEURON_NDS_ID_COUNT + id];
	u64 cur, delta;
	struct neuron_nds_cell *cell;

	if (off < 0 || (slot->taken & BIT(nc)))
		return;
	cur = READ_ONCE(*nds_slab_u64(slot->mem, off));
	delta = cur - *shadow;
	if (!delta)
		return;
	*shadow = cur;
	cell = nds_cell(nds, nc, id);
	cell->total += delta;
	/* a decrement (memory-style counters) shows as its magnitude */
	cell->present = (s64)delta < 0 ? -delta : delta;
	nds->mono[id] += delta;
}

static void nds_fold_cell(struct neuron_nds *nds, u32 nc, u32 id)
{
	unsigned int s;

	for (s = 0; s < NEURON_NDS_PER_DEVICE; s++)
		if (nds->slots[s].owner)
			nds_fold_one(nds, &nds->slots[s], nc, id);
}

static void nds_fold_slot(struct neuron_nds *nds, struct neuron_nds_slot *slot)
{
	u32 nc, id;
	u64 v;

	for (nc = 0; nc < nds->nc_count; nc++)
		for (id = 0; id < NEURON_NDS_ID_COUNT; id++)
			nds_fold_one(nds, slot, nc, id);
	v = READ_ONCE(*nds_slab_u64(slot->mem, neuron_nds_nd_offset(NDS_ND_COUNTER_DEVICE_CLUSTER_ID)));
	if (v)
		nds->cluster_id = v;
}

static u64 nds_slot_bitmap(struct neuron_nds_slot *slot)
{
	return READ_ONCE(*nds_slab_u64(slot->mem,
				       neuron_nds_nd_offset(NDS_ND_COUNTER_FEATURE_BITMAP)));
}

/* Version metric @ver (ND counter @ver: 0 runtime, 1 framework, 2 FAL) of a slab. */
static u64 nds_slot_version(struct neuron_nds_slot *slot, u32 ver)
{
	return READ_ONCE(*nds_slab_u64(slot->mem, neuron_nds_nd_offset(ver)));
}

static bool nds_valid_cell(struct neuron_device *nd, u32 nc, u32 id)
{
	return nd->nds && nc < nd->nds->nc_count && id < NEURON_NDS_ID_COUNT;
}

/*
 * Fold the live slabs into cell (@nc, @id), then read one of its fields,
 * clearing it when @clear. Folding first means counts made before a clear
 * never reappear after it.
 */
static u64 nds_cell_access(struct neuron_device *nd, u32 nc, u32 id, bool total, bool clear)
{
	struct neuron_nds *nds = nd->nds;
	u64 *field, v;

	if (!nds_valid_cell(nd, nc, id))
		return 0;
	mutex_lock(&nds->lock);
	nds_fold_cell(nds, nc, id);
	field = total ? &nds_cell(nds, nc, id)->total : &nds_cell(nds, nc, id)->present;
	v = *field;
	if (clear)
		*field = 0;
	mutex_unlock(&nds->lock);
	return v;
}

u64 neuron_nds_total(struct neuron_device *nd, u32 nc, u32 id)
{
	return nds_cell_access(nd, nc, id, true, false);
}

u64 neuron_nds_present(struct neuron_device *nd, u32 nc, u32 id)
{
	return nds_cell_access(nd, nc, id, false, false);
}

void neuron_nds_clear_total(struct neuron_device *nd, u32 nc, u32 id)
{
	nds_cell_access(nd, nc, id, true, true);
}

void neuron_nds_clear_present(struct neuron_device *nd, u32 nc, u32 id)
{
	nds_cell_access(nd, nc, id, false, true);
}

void neuron_nds_snapshot(struct neuron_device *nd, struct neuron_nds_snapshot *snap)
{
	struct neuron_nds *nds = nd->nds;
	unsigned int s;
	u32 v;

	memset(snap, 0, sizeof(*snap));
	if (!nds)
		return;
	mutex_lock(&nds->lock);
	snap->feature_bitmap = nds->exited_bitmap;
	memcpy(snap->exited_versions, nds->exited_versions, sizeof(snap->exited_versions));
	memcpy(snap->versions, nds->exited_versions, sizeof(snap->versions));
	for (s = 0; s < NEURON_NDS_PER_DEVICE; s++) {
		struct neuron_nds_slot *slot = &nds->slots[s];

		if (!slot->owner)
			continue;
		nds_fold_slot(nds, slot);
		snap->feature_bitmap |= nds_slot_bitmap(slot);
		for (v = 0; v < NEURON_METRIC_VERSIONS; v++)
			neuron_metric_hist_add(&snap->versions[v], nds_slot_version(slot, v), 1);
	}
	memcpy(snap->nc_total, nds->mono, sizeof(snap->nc_total));
	snap->cluster_id = nds->cluster_id;
	mutex_unlock(&nds->lock);
}

void neuron_nds_versions_delivered(struct neuron_device *nd, u32 ver,
				   const struct neuron_metric_hist *done)
{
	struct neuron_nds *nds = nd->nds;

	if (!nds || ver >= NEURON_METRIC_VERSIONS)
		return;
	mutex_lock(&nds->lock);
	neuron_metric_hist_sub(&nds->exited_versions[ver], done);
	mutex_unlock(&nds->lock);
}

static int nds_slot_by_owner(struct neuron_nds *nds, struct pid *tgid)
{
	unsigned int s;

	for (s = 0; s < NEURON_NDS_PER_DEVICE; s++)
		if (nds->slots[s].owner == tgid)
			return s;
	return -ENOENT;
}

/*
 * The slot of process @nr, a number in the caller's pid namespace, or
 * -ENOENT; *@found (when not NULL): its struct pid, NULL when there is
 * none, no reference taken: only to be compared with pids the caller keeps
 * alive, never dereferenced. Caller holds the lock.
 */
static int nds_slot_by_vpid(struct neuron_nds *nds, pid_t nr, struct pid **found)
{
	struct pid *target;
	int s;

	rcu_read_lock();
	target = find_vpid(nr);
	s = target ? nds_slot_by_owner(nds, target) : -ENOENT;
	rcu_read_unlock();
	if (found)
		*found = target;
	return s;
}

/*
 * Claim a free slot for @proc, the calling process: a new, zeroed slab
 * charged to its memory cgroup. Caller holds the lock; takes the core
 * table's lock under it (nds->lock -> the core table's lock).
 */
static int nds_claim(struct neuron_device *nd, struct neuron_nds *nds, struct neuron_proc *proc)
{
	size_t shadow_len = (size_t)nds->nc_count * NEURON_NDS_ID_COUNT;
	struct neuron_nds_slot *slot = NULL;
	int s;

	for (s = 0; s < NEURON_NDS_PER_DEVICE; s++) {
		if (!nds->slots[s].owner) {
			slot = &nds->slots[s];
			break;
		}
	}
	if (!slot)
		return -ENOSPC;

	if (!slot->shadow) {
		slot->shadow = kvcalloc(shadow_len, sizeof(u64), GFP_KERNEL | __GFP_NOWARN);
		if (!slot->shadow)
			return -ENOMEM;
	}
	slot->mem = neuron_alloc_user_mem(NEURON_NDS_SIZE);
	if (!slot->mem)
		return -ENOMEM;
	memset(slot->shadow, 0, shadow_len * sizeof(u64));
	/* a process that released its slab keeps what root took back from it */
	slot->taken = neuron_core_taken_map(nd, proc);
	slot->owner = proc->tgid;
	/* driver memory of the device while the owner holds it (facts: NCDEV, nc 0) */
	neuron_memstat_account(nd, 0, NEURON_MEM_LOC_HOST, NEURON_MEM_CAT_NCDEV,
			       NEURON_NDS_SIZE, true);
	return s;
}

long neuron_nds_ioctl_acquire(struct neuron_file *nf, void *karg)
{
	struct neuron_nds *nds = nf->nd->nds;
	struct neuron_nds_acquire arg;
	u32 access;
	int ret, s;

	ret = neuron_ioctl_arg(&arg, karg, sizeof(arg), 0);
	if (ret)
		return ret;
	if (arg.reserved0 || !neuron_abi_all_zero(arg.reserved, sizeof(arg.reserved)))
		return -EINVAL;
	if (arg.pid < 0)
		return -EINVAL;

	mutex_lock(&nds->lock);
	if (arg.pid == 0) {
		/*
		 * Only the process that opened this file may own a slab
		 * through it: its last close is what frees the slab.
		 */
		if (task_tgid(current) != nf->tgid) {
			ret = -EACCES;
			goto out_unlock;
		}
		s = nds_slot_by_owner(nds, nf->tgid);
		if (s < 0)
			s = nds_claim(nf->nd, nds, nf->proc);
		access = NEURON_NDS_ACCESS_RW;
	} else {
		struct pid *target;

		s = nds_slot_by_vpid(nds, arg.pid, &target);
		access = target == task_tgid(current) && target == nf->tgid ?
			 NEURON_NDS_ACCESS_RW : NEURON_NDS_ACCESS_RO;
	}
	if (s < 0) {
		ret = s;
		goto out_unlock;
	}
	/* what this file may map: this slab, while it has this owner */
	if (nf->nds_grant[s] != nds->slots[s].owner) {
		put_pid(nf->nds_grant[s]);
		nf->nds_grant[s] = get_pid(nds->slots[s].owner);
	}
	mutex_unlock(&nds->lock);

	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.slot = s;
	arg.mmap_offset = NEURON_NDS_MMAP_BASE + (u64)s * NEURON_NDS_SIZE;
	arg.mmap_size = NEURON_NDS_SIZE;
	arg.access = access;
	neuron_ioctl_out(karg, &arg, sizeof(arg));
	return 0;

out_unlock:
	mutex_unlock(&nds->lock);
	return ret;
}

long neuron_nds_ioctl_counter_add(struct neuron_file *nf, void *karg)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_nds *nds = nd->nds;
	struct neuron_nds_counter_add arg;
	s64 off;
	int ret, s;

	ret = neuron_ioctl_arg(&arg, karg, sizeof(arg), NEURON_NDS_ADD_ND);
	if (ret)
		return ret;
	if (!neuron_abi_all_zero(arg.reserved, sizeof(arg.reserved)))
		return -EINVAL;
	if (arg.flags & NEURON_NDS_ADD_ND) {
		if (arg.nc)
			return -EINVAL;
		off = neuron_nds_nd_offset(arg.id);
	} else {
		if (arg.nc >= nd->nc_count)
			return -EINVAL;
		off = neuron_nds_nc_offset(arg.nc, arg.id);
	}
	if (off < 0)
		return -EINVAL;

	mutex_lock(&nds->lock);
	s = nds_slot_by_owner(nds, nf->tgid);
	if (s < 0 || task_tgid(current) != nf->tgid) {
		mutex_unlock(&nds->lock);
		return s < 0 ? -ENOENT : -EACCES;
	}
	/* the runtime updates the same word with atomics through its mapping */
	atomic64_add(arg.delta, (atomic64_t *)nds_slab_u64(nds->slots[s].mem, off));
	mutex_unlock(&nds->lock);
	/* the ioctl path holds gone_sem: the status files show live slabs */
	if (arg.delta)
		neuron_sysfs_counters_changed_locked(nd);
	return 0;
}

/*
 * @words u64 from @src to the caller's @dst, each with one load and one
 * store: 0 or -EFAULT. copy_to_user() is one string move, on CPUs with
 * fast ones `rep movsb`, which an emulated CPU (QEMU's TCG) runs one byte
 * a step; word stores are an eighth of the steps (docs/performance.md).
 * The caller disables page faults: it fails at the first page that is not
 * present and writable, with what came before it written.
 */
static int nds_words_to_user(u64 __user *dst, const u64 *src, u32 words)
{
	u32 i;

	if (!user_write_access_begin(dst, (unsigned long)words * sizeof(*dst)))
		return -EFAULT;
	for (i = 0; i < words; i++)
		unsafe_put_user(READ_ONCE(src[i]), &dst[i], fault);
	user_write_access_end();
	return 0;
fault:
	user_write_access_end();
	return -EFAULT;
}

/*
 * NDS_READ: a range of a slab to the caller, each u64 with one load.
 * Under the lock the words go straight to the caller's buffer with page
 * faults disabled (a fault there may take mmap_lock, which
 * neuron_nds_mmap() holds around nds->lock). When a page of the buffer is
 * not present and writable, both locks are let go, a kernel buffer is
 * allocated, and the range is read again into it under them and copied to
 * the caller after them. Unlocked in the dispatcher: gone_sem is taken
 * here, around the slab access and the direct copy only.
 */
long neuron_nds_ioctl_read(struct neuron_file *nf, void *karg)
{
	struct neuron_device *nd = nf->nd;
	u64 __user *dst;
	struct neuron_nds_read arg;
	struct neuron_nds *nds;
	const u64 *src;
	u64 *buf = NULL;
	u32 i, words;
	int ret, s;

	ret = neuron_ioctl_arg(&arg, karg, sizeof(arg), 0);
	if (ret)
		return ret;
	if (arg.reserved0 || !neuron_abi_all_zero(arg.reserved, sizeof(arg.reserved)) ||
	    arg.pid < 0 || arg.offset % 8 || arg.bytes % 8 || !arg.bytes ||
	    arg.bytes > NEURON_NDS_READ_MAX || arg.offset > NEURON_NDS_SIZE - arg.bytes)
		return -EINVAL;
	dst = u64_to_user_ptr(arg.user_ptr);
	words = arg.bytes / 8;

retry:
	down_read(&nd->gone_sem);
	if (nd->gone) {
		ret = -ENODEV;
		goto out_unlock_gone;
	}
	nds = nd->nds;
	mutex_lock(&nds->lock);
	if (arg.pid == 0)
		s = nds_slot_by_owner(nds, task_tgid(current));
	else
		s = nds_slot_by_vpid(nds, arg.pid, NULL);
	if (s < 0 || !nds->slots[s].mem) {
		ret = -ENOENT;
		goto out_unlock;
	}
	if (!access_ok(dst, arg.bytes)) {
		ret = -EFAULT;
		goto out_unlock;
	}
	src = nds_slab_u64(nds->slots[s].mem, arg.offset);
	if (buf) {
		for (i = 0; i < words; i++)
			buf[i] = READ_ONCE(src[i]);
		goto out_unlock;
	}
	pagefault_disable();
	ret = nds_words_to_user(dst, src, words);
	pagefault_enable();
	if (ret) {
		/* the buffer is allocated with neither lock held; once */
		mutex_unlock(&nds->lock);
		up_read(&nd->gone_sem);
		buf = kvmalloc(arg.bytes, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!buf)
			return -ENOMEM;
		atomic64_inc(&nds->read_buffered);
		ret = 0;
		goto retry;
	}
out_unlock:
	mutex_unlock(&nds->lock);
out_unlock_gone:
	up_read(&nd->gone_sem);
	if (buf) {
		if (!ret && copy_to_user(dst, buf, arg.bytes))
			ret = -EFAULT;
		kvfree(buf);
	}
	return ret;
}

int neuron_nds_mmap(struct neuron_file *nf, struct vm_area_struct *vma)
{
	struct neuron_nds *nds = nf->nd->nds;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	unsigned long len = vma->vm_end - vma->vm_start;
	struct neuron_nds_slot *slot;
	u64 s;
	int ret;

	if (off < NEURON_NDS_MMAP_BASE ||
	    off >= NEURON_NDS_MMAP_BASE + (u64)NEURON_NDS_PER_DEVICE * NEURON_NDS_SIZE)
		return NEURON_MMAP_NOT_MINE;
	s = off - NEURON_NDS_MMAP_BASE;
	if (s % NEURON_NDS_SIZE || len != NEURON_NDS_SIZE)
		return -EINVAL;
	s /= NEURON_NDS_SIZE;

	mutex_lock(&nds->lock);
	slot = &nds->slots[s];
	if (!slot->owner || !slot->mem) {
		ret = -ENOENT;
		goto out;
	}
	/* only a slab an acquire through this file handed out, same owner */
	if (nf->nds_grant[s] != slot->owner) {
		ret = -EACCES;
		goto out;
	}
	ret = neuron_map_owned(nf, vma, slot->mem, slot->owner, NULL, NULL);
out:
	mutex_unlock(&nds->lock);
	return ret;
}

void neuron_nds_take_back(struct neuron_device *nd, struct pid *tgid, u32 nc)
{
	struct neuron_nds *nds = nd->nds;
	struct neuron_nds_slot *slot;
	u32 id;
	int s;

	if (!nds || nc >= nds->nc_count)
		return;
	mutex_lock(&nds->lock);
	s = nds_slot_by_owner(nds, tgid);
	if (s >= 0) {
		slot = &nds->slots[s];
		for (id = 0; id < NEURON_NDS_ID_COUNT; id++)
			nds_fold_one(nds, slot, nc, id);
		slot->taken |= BIT(nc);
	}
	mutex_unlock(&nds->lock);
	if (s >= 0)
		neuron_sysfs_counters_changed_locked(nd);
}

/*
 * Slot @s's owner is done with it (its last close, or the vendor's
 * RELEASE_NEURON_DS): its counts are folded into the totals, its versions
 * kept for the metrics post, and the slab is freed. Caller holds the lock.
 */
static void nds_release_slot_locked(struct neuron_device *nd, struct neuron_nds *nds, int s)
{
	struct neuron_nds_slot *slot = &nds->slots[s];
	u32 v;

	lockdep_assert_held(&nds->lock);
	nds_fold_slot(nds, slot);
	nds->exited_bitmap |= nds_slot_bitmap(slot);
	/* posted with the next delivered post of each version metric */
	for (v = 0; v < NEURON_METRIC_VERSIONS; v++)
		neuron_metric_hist_add(&nds->exited_versions[v], nds_slot_version(slot, v), 1);
	/*
	 * A mapping keeps these pages: it shows zeros from now on, never the
	 * slot's next owner (a new slab).
	 */
	memset(slot->mem, 0, NEURON_NDS_SIZE);
	vfree(slot->mem);
	slot->mem = NULL;
	slot->owner = NULL;
	neuron_memstat_account(nd, 0, NEURON_MEM_LOC_HOST, NEURON_MEM_CAT_NCDEV,
			       NEURON_NDS_SIZE, false);
}

bool neuron_nds_release_tgid(struct neuron_device *nd, struct pid *tgid)
{
	struct neuron_nds *nds = nd->nds;
	int s;

	if (!nds)
		return false;
	mutex_lock(&nds->lock);
	s = nds_slot_by_owner(nds, tgid);
	if (s >= 0)
		nds_release_slot_locked(nd, nds, s);
	mutex_unlock(&nds->lock);
	return s >= 0;
}

void neuron_nds_release_own(struct neuron_file *nf, pid_t pid)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_nds *nds = nd->nds;
	struct pid *me = task_tgid(current);
	bool mine;
	int s = -ENOENT;

	/* only the process's own slab, through a file it opened */
	rcu_read_lock();
	mine = me == nf->tgid && (!pid || find_vpid(pid) == me);
	rcu_read_unlock();
	if (!mine || !nds)
		return;
	mutex_lock(&nds->lock);
	s = nds_slot_by_owner(nds, me);
	if (s >= 0)
		nds_release_slot_locked(nd, nds, s);
	mutex_unlock(&nds->lock);
	if (s >= 0)
		neuron_sysfs_counters_changed_locked(nd);
}

/* Log the non-zero status totals of @nc, as many lines as they need. */
static void nds_log_totals(struct neuron_device *nd, u32 nc, char *buf, size_t size)
{
	struct neuron_nds *nds = nd->nds;
	size_t len = 0;
	u32 i;

	lockdep_assert_held(&nds->lock);
	for (i = 0; i < neuron_status_attr_count(); i++) {
		const struct neuron_status_attr *a = &neuron_status_attrs[i];
		u64 v = nds_cell(nds, nc, a->counter)->total;

		if (!v)
			continue;
		/* a full line goes out and the next one continues the list */
		if (len && len + strlen(a->name) + 24 > size) {
			dev_info(&nd->dev, "removed: nc%u totals:%s\n", nc, buf);
			len = 0;
		}
		len += scnprintf(buf + len, size - len, " %s=%llu", a->name, v);
	}
	if (len)
		dev_info(&nd->dev, "removed: nc%u totals:%s\n", nc, buf);
}

void neuron_nds_remove(struct neuron_device *nd)
{
	struct neuron_nds *nds = nd->nds;
	unsigned int s, live = 0;
	char *buf;
	u32 nc;

	if (!nds)
		return;
	buf = kmalloc(NDS_LOG_LINE, GFP_KERNEL);
	mutex_lock(&nds->lock);
	for (s = 0; s < NEURON_NDS_PER_DEVICE; s++) {
		if (!nds->slots[s].owner)
			continue;
		nds_fold_slot(nds, &nds->slots[s]);
		live++;
	}
	if (live)
		dev_info(&nd->dev,
			 "removed with %u process%s holding an NDS slab: counted so far, folded into the totals\n",
			 live, live == 1 ? "" : "es");
	for (nc = 0; buf && nc < nds->nc_count; nc++)
		nds_log_totals(nd, nc, buf, NDS_LOG_LINE);
	mutex_unlock(&nds->lock);
	kfree(buf);
}

static int neuron_nds_read_buffered_get(void *data, u64 *val)
{
	struct neuron_nds *nds = data;

	*val = atomic64_read(&nds->read_buffered);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(neuron_nds_read_buffered_fops, neuron_nds_read_buffered_get, NULL,
			 "%llu\n");

int neuron_nds_init(struct neuron_device *nd)
{
	struct neuron_nds *nds;

	nds = kzalloc(sizeof(*nds), GFP_KERNEL);
	if (!nds)
		return -ENOMEM;
	mutex_init(&nds->lock);
	nds->nc_count = nd->nc_count;
	nds->cells = kvcalloc((size_t)nd->nc_count * NEURON_NDS_ID_COUNT,
			      sizeof(*nds->cells), GFP_KERNEL | __GFP_NOWARN);
	if (!nds->cells) {
		kfree(nds);
		return -ENOMEM;
	}
	atomic64_set(&nds->read_buffered, 0);
	/* removed with the device's directory, before the release frees nds */
	debugfs_create_file_unsafe("nds_read_buffered", 0400, nd->debugfs, nds,
				   &neuron_nds_read_buffered_fops);
	nd->nds = nds;
	return 0;
}

void neuron_nds_exit(struct neuron_device *nd)
{
	struct neuron_nds *nds = nd->nds;
	unsigned int s;

	if (!nds)
		return;
	/* every owner's last close freed its slab: only the shadows are left */
	for (s = 0; s < NEURON_NDS_PER_DEVICE; s++) {
		if (WARN_ON_ONCE(nds->slots[s].mem))
			vfree(nds->slots[s].mem);
		kvfree(nds->slots[s].shadow);
	}
	kvfree(nds->cells);
	mutex_destroy(&nds->lock);
	kfree(nds);
	nd->nds = NULL;
}
