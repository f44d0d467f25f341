/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron.ko: structures shared across the module's files.
 *
 * A struct neuron_device is one /dev/neuron<N>. Everything above the
 * backend ops table is backend-agnostic: the simulated device (sim/) and the
 * PCI device (neuron_pci.c) differ only in the ops they install.
 */
#ifndef NEURON_H
#define NEURON_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/types.h>

#include <neuron/neuron_ioctl.h>

#include "neuron_backend.h"

#define NEURON_MAX_DEVICES	64	/* minors reserved, like the vendor driver */

struct neuron_device;
struct dentry;
struct neuron_nds;
struct neuron_fwio;
struct neuron_metrics;
struct neuron_sysfs;
struct neuron_nq_dev;
struct vm_area_struct;
struct neuron_file;

/**
 * struct neuron_device - one Neuron device (/dev/neuron<N>)
 * @dev:	the class device; its release frees this struct, so the
 *		struct lives until the last open file drops its reference
 * @cdev:	char device, added and removed together with @dev
 * @index:	N of /dev/neuron<N>
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
 * @nq:		notification queues and NeuronCore reservations (neuron_nq.c)
 * @node:	in the live-device list (neuron_device.c), for lookups by index
 */
struct neuron_device {
	struct device dev;
	struct cdev cdev;
	u32 index;
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
	struct neuron_nq_dev *nq;
	struct list_head node;
};

/**
 * struct neuron_proc - a process with the device open
 * @node:	in neuron_device.procs
 * @tgid:	the process (a reference); every owner field of the
 *		subsystems (slab, ring, core) points at one of these and is
 *		cleared before the reference is dropped
 * @files:	its open files on this device; at 0 everything it held is
 *		released (slab folded, queues and cores freed)
 */
struct neuron_proc {
	struct list_head node;
	struct pid *tgid;
	unsigned int files;
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

static inline void neuron_misc_write(struct neuron_device *nd, u32 off, u32 val)
{
	nd->ops->misc_write(nd->backend, off, val);
}

/**
 * struct neuron_file - per-open state of /dev/neuron<N>
 * @nd:		the device; the file holds a reference on nd->dev
 * @tgid:	process that opened the file (a reference: processes are told
 *		apart by struct pid, never by number, so a reused pid or another
 *		pid namespace is never mistaken for the owner)
 */
struct neuron_file {
	struct neuron_device *nd;
	struct pid *tgid;
};

/* returned by a subsystem's mmap handler for an offset outside its range */
#define NEURON_MMAP_NOT_MINE	1

/*
 * neuron_cdev.c: map @mem (vmalloc_user, exactly the vma's length) owned by
 * @owner: writable for the owner through its own file, read-only (and never
 * upgradable) for everyone else.
 */
int neuron_map_owned(struct neuron_file *nf, struct vm_area_struct *vma, void *mem,
		     struct pid *owner);

/* neuron_main.c */
extern struct class *neuron_class;
extern struct dentry *neuron_debugfs_root;

/* neuron_device.c */
int neuron_device_class_init(void);
void neuron_device_class_exit(void);
struct neuron_device *neuron_device_get(u32 index);
struct neuron_device *neuron_device_get_next(u32 index);
int neuron_device_proc_attach(struct neuron_device *nd, struct pid *tgid);
void neuron_device_proc_detach(struct neuron_device *nd, struct pid *tgid);

/* neuron_nq.c: notification queues and NeuronCore reservations */
int neuron_nq_init(struct neuron_device *nd);
void neuron_nq_exit(struct neuron_device *nd);
void neuron_nq_free(struct neuron_device *nd);
void neuron_nq_release_tgid(struct neuron_device *nd, struct pid *tgid);
int neuron_nq_mmap(struct neuron_file *nf, struct vm_area_struct *vma);

/* neuron_sysfs.c */
int neuron_sysfs_init(struct neuron_device *nd);
void neuron_sysfs_exit(struct neuron_device *nd);
/* counters folded outside a sysfs read changed: notify pollers if enabled */
void neuron_sysfs_counters_changed(struct neuron_device *nd);

/* neuron_cdev.c */
extern const struct file_operations neuron_cdev_fops;
/*
 * Copy an ioctl argument in and check the header every argument struct
 * starts with: __u32 size (must be @size), __u32 flags (only
 * @allowed_flags). 0, -EFAULT or -EINVAL; the caller checks the rest.
 */
int neuron_ioctl_copy_in(void *karg, const void __user *uarg, size_t size, u32 allowed_flags);

#endif /* NEURON_H */
