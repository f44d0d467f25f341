/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NDS: per-process counter slabs (16 x 256 KiB per device) and the
 * device-level totals they fold into.
 *
 * Locking: nds->lock (a mutex) protects the slot table, the totals and the
 * per-slab shadows. Lock order: nds->lock before any sysfs/kernfs lock is
 * never needed (sysfs show callbacks take nds->lock, nothing under
 * nds->lock takes a sysfs lock).
 */
#ifndef NEURON_NDS_PRIV_H
#define NEURON_NDS_PRIV_H

#include <linux/types.h>

#include <neuron/neuron_nds.h>

#include "neuron_metrics_pack.h"

struct neuron_device;
struct neuron_file;
struct vm_area_struct;

int neuron_nds_init(struct neuron_device *nd);
void neuron_nds_exit(struct neuron_device *nd);

/* ioctl handlers (neuron_cdev.c table) */
long neuron_nds_ioctl_acquire(struct neuron_file *nf, void *karg);
long neuron_nds_ioctl_counter_add(struct neuron_file *nf, void *karg);
/* NDS_READ: the dispatcher calls it without gone_sem (it copies to a user buffer) */
long neuron_nds_ioctl_read(struct neuron_file *nf, void *karg);
/* mmap of a slab by its cookie offset; NEURON_MMAP_NOT_MINE outside the slab range */
int neuron_nds_mmap(struct neuron_file *nf, struct vm_area_struct *vma);
/*
 * The last fd of @tgid on the device is going away: fold and free its
 * slab. True when a slab was folded (the caller notifies sysfs pollers).
 */
bool neuron_nds_release_tgid(struct neuron_device *nd, struct pid *tgid);
/*
 * The vendor's RELEASE_NEURON_DS: when @pid is 0 or the caller's own and
 * @nf is a file its process opened, fold and free its slab as at its last
 * close; otherwise nothing. From an ioctl (the caller holds gone_sem).
 */
void neuron_nds_release_own(struct neuron_file *nf, pid_t pid);
/*
 * Root took NeuronCore @nc back from @tgid: fold what its slab counted for
 * @nc, as at its exit; what the slab counts for @nc later is not folded.
 * From an ioctl (the caller holds gone_sem).
 */
void neuron_nds_take_back(struct neuron_device *nd, struct pid *tgid, u32 nc);

/*
 * The device is being removed (its ioctls have drained): fold every live
 * slab into the totals, then log the non-zero status totals of each
 * NeuronCore ("removed: nc<K> totals: <name>=<value> ..."). That is where
 * the counts of the processes still holding the device go; what they add
 * through their mappings afterwards is not counted anywhere.
 */
void neuron_nds_remove(struct neuron_device *nd);

/*
 * Status counters for sysfs. @id is an NC counter id (0..94). Reads fold
 * the live slabs first (delta against a per-slab shadow), so running
 * processes are visible.
 */
u64 neuron_nds_total(struct neuron_device *nd, u32 nc, u32 id);
u64 neuron_nds_present(struct neuron_device *nd, u32 nc, u32 id);
void neuron_nds_clear_total(struct neuron_device *nd, u32 nc, u32 id);
void neuron_nds_clear_present(struct neuron_device *nd, u32 nc, u32 id);

/**
 * struct neuron_nds_snapshot - what the metrics post reads
 * @nc_total:	per NC counter id, the monotonic count summed over every
 *		NeuronCore: exited processes plus live slabs. Unaffected by
 *		sysfs write-to-clear, so deltas between two snapshots are
 *		exactly the work done in between.
 * @feature_bitmap: OR of ND counter FEATURE_BITMAP over live and exited slabs
 * @cluster_id:	last non-zero ND DEVICE_CLUSTER_ID seen
 * @versions:	per version metric (ND 0 runtime, 1 framework, 2 FAL), the
 *		live slabs' values plus @exited_versions
 * @exited_versions: per version metric, the values of the processes that
 *		exited since it was last delivered (neuron_nds_versions_delivered())
 */
struct neuron_nds_snapshot {
	u64 nc_total[NEURON_NDS_ID_COUNT];
	u64 feature_bitmap;
	u64 cluster_id;
	struct neuron_metric_hist versions[NEURON_METRIC_VERSIONS];
	struct neuron_metric_hist exited_versions[NEURON_METRIC_VERSIONS];
};

void neuron_nds_snapshot(struct neuron_device *nd, struct neuron_nds_snapshot *s);

/*
 * Version metric @ver went out with the values of @done (the snapshot's
 * exited_versions[@ver]): forget those exited processes' versions. Versions
 * of processes that exited since the snapshot stay for the next post.
 */
void neuron_nds_versions_delivered(struct neuron_device *nd, u32 ver,
				   const struct neuron_metric_hist *done);

#endif /* NEURON_NDS_PRIV_H */
