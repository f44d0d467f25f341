/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device core (neuron_device.c): struct neuron_device, one
 * /dev/neuron<N>, its lifetime, the processes using it, lookups by index.
 * Core-private: a backend sees only neuron_backend.h.
 */
#ifndef NEURON_DEVICE_H
#define NEURON_DEVICE_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/types.h>

#include "neuron_backend.h"
#include "neuron_health.h"
#include "neuron_reset.h"

#define NEURON_MAX_DEVICES	64	/* minors reserved, like the vendor driver */

struct dentry;
struct pid;
struct neuron_nds;
struct neuron_fwio;
struct neuron_metrics;
struct neuron_sysfs;
struct neuron_core_dev;
struct neuron_nq_dev;
struct neuron_mem_dev;
struct neuron_hwerr;
struct neuron_power;

/**
 * struct neuron_device - one Neuron device (/dev/neuron<N>)
 * @dev:	the class device; its release frees this struct, so the
 *		struct lives until the last open file drops its reference
 * @cdev:	char device, added and removed together with @dev
 * @index:	N of /dev/neuron<N>
 * @index_fixed: @index was asked for (a routing id), not the lowest free
 *		one: freed at neuron_device_destroy(), not at the last reference
 * @nc_count:	NeuronCores on this device
 * @ops:	backend operations
 * @arch:	architecture strings and MiscRAM layout facts
 * @backend:	backend private data, owned by the backend
 * @debugfs:	/sys/kernel/debug/neuron/neuron<N>/ (NULL without debugfs)
 * @gone_sem:	protects @gone; file operations hold it for read while they
 *		touch backend state, removal takes it for write
 * @gone:	the backend is removed; open files only get -ENODEV
 * @procs_lock:	protects @procs
 * @procs:	processes with the device open (struct neuron_proc)
 * @nds:	NDS slabs and totals (neuron_nds.c)
 * @fwio:	FW-IO mailbox state (neuron_fwio.c)
 * @metrics:	metrics post worker (neuron_metrics.c)
 * @sysfs:	the metrics sysfs tree (neuron_sysfs.c)
 * @cores:	NeuronCore reservations (neuron_core.c)
 * @nq:		notification queues (neuron_nq.c)
 * @mem:		device memory and memory accounting (neuron_mem.c)
 * @reset_state: NEURON_DEVICE_STATE_* (neuron_reset.c); written under
 *		procs_lock, read locklessly
 * @resets:	reset counters of other_info (neuron_reset.c), under their
 *		own count_lock
 * @hwerr:	NEURON_HW_ERR kernel log lines (neuron_hwerr.c)
 * @health:	what the health needs besides the driver's facts: the ECC
 *		baselines and the last reported health (neuron_health.c)
 * @events:	netlink error and health events (neuron_genl.c): the last
 *		sequence number taken, and the events not delivered
 * @power:	power utilization sampling (neuron_power.c)
 * @node:	in the live-device list (neuron_device.c), for lookups by index
 */
struct neuron_device {
	struct device dev;
	struct cdev cdev;
	u32 index;
	bool index_fixed;
	u32 nc_count;
	const struct neuron_backend_ops *ops;
	const struct neuron_arch_desc *arch;
	void *backend;
	struct dentry *debugfs;
	struct rw_semaphore gone_sem;
	bool gone;
	struct mutex procs_lock;
	struct list_head procs;
	struct neuron_nds *nds;
	struct neuron_fwio *fwio;
	struct neuron_metrics *metrics;
	struct neuron_sysfs *sysfs;
	struct neuron_core_dev *cores;
	struct neuron_nq_dev *nq;
	struct neuron_mem_dev *mem;
	u32 reset_state;
	struct neuron_reset_counts resets;
	struct neuron_hwerr *hwerr;
	struct neuron_health_track health;
	struct {
		atomic64_t seq;
		atomic64_t dropped;
	} events;
	struct neuron_power *power;
	struct list_head node;
};

/**
 * struct neuron_proc - a process with the device open: the one per-process
 * object of the device, which every subsystem's per-process state extends
 * @node:	in neuron_device.procs
 * @tgid:	the process (a reference); every owner field of the
 *		subsystems (slab, ring, allocation) is this pid or this
 *		struct, and is cleared before the reference is dropped
 * @files:	its open files on this device (procs_lock); at 0 everything
 *		it held is released (slab folded, rings and cores freed) and
 *		the struct freed
 * @cores_taken: bit K: root took NeuronCore K back from it; its use is
 *		-ECANCELED until its last close (neuron_core.c, under the
 *		core table's lock)
 * @mem_host:	host bytes of its allocations, page-rounded, against
 *		mem_host_proc_max_mb (neuron_mem.c, written under mem->lock)
 * @mem_device:	device bytes of its allocations, as asked for (same)
 *
 * Every file of the process points here (neuron_file.proc) and keeps it
 * alive; an allocation, a ring or a reservation of the process is gone
 * before its last file's release frees it.
 */
struct neuron_proc {
	struct list_head node;
	struct pid *tgid;
	unsigned int files;
	u32 cores_taken;
	u64 mem_host;
	u64 mem_device;
};

static inline struct neuron_device *to_neuron_device(struct device *dev)
{
	return container_of(dev, struct neuron_device, dev);
}

/* MiscRAM word at byte offset @off (neuron_miscram_reg.h), through the backend. */
static inline u32 neuron_misc_read(struct neuron_device *nd, u32 off)
{
	return nd->ops->misc_read(nd->backend, off);
}

/*
 * The MiscRAM word at @off when it holds a value: false for
 * NEURON_MISCRAM_BAD_READ (firmware not ready, an offset nobody serves)
 * and NEURON_MISCRAM_GONE (all-ones: no function answers, as after a
 * surprise removal or a link down). Neither is ever a count, a version, a
 * serial or a sample: every reader of a device word but the FW-IO
 * exchange (which tells the two apart itself) reads through this.
 */
static inline bool neuron_misc_value(struct neuron_device *nd, u32 off, u32 *val)
{
	u32 w = neuron_misc_read(nd, off);

	if (w == NEURON_MISCRAM_BAD_READ || w == NEURON_MISCRAM_GONE)
		return false;
	*val = w;
	return true;
}

static inline void neuron_misc_write(struct neuron_device *nd, u32 off, u32 val)
{
	nd->ops->misc_write(nd->backend, off, val);
}

int neuron_device_class_init(void);
void neuron_device_class_exit(void);
/* The live device /dev/neuron<@index>, referenced (put_device); NULL when there is none. */
struct neuron_device *neuron_device_get(u32 index);
/* The live device with the lowest index >= @index, referenced; NULL when there is none. */
struct neuron_device *neuron_device_get_next(u32 index);
/* The backend's create_fault for @step (enum neuron_create_step), 0 without one. */
int neuron_device_create_fault(struct neuron_device *nd, u32 step);

/*
 * A file of @tgid on the device was opened / released. The last release of
 * a process frees what it held (NDS slab folded first, rings, cores). An
 * attach waits for a whole-device reset in progress: ERR_PTR(-EINTR) when
 * killed meanwhile, ERR_PTR(-EINVAL) when the device's last reset did not
 * complete.
 */
struct neuron_proc *neuron_device_proc_attach(struct neuron_device *nd, struct pid *tgid);
void neuron_device_proc_detach(struct neuron_device *nd, struct neuron_proc *p);

#endif /* NEURON_DEVICE_H */
