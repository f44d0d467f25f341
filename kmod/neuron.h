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

#define NEURON_MAX_DEVICES	64	/* minors reserved, like the vendor driver */
#define NEURON_MAX_NC		8	/* NeuronCores per device */

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
 * struct neuron_backend_ops - what a device backend provides
 * @name:	backend name for logs ("sim", "pci")
 * @kind:	NEURON_BACKEND_* reported by GET_INFO
 * @misc_read:	read the 32-bit MiscRAM word at byte offset @off
 * @misc_write:	write the 32-bit MiscRAM word at byte offset @off
 * @fw_doorbell: optional; called after the driver rings the FW-IO doorbell
 *		(MiscRAM TRIGGER); the simulated firmware uses it to queue the
 *		request. May be called in process context only.
 *
 * MiscRAM offsets are those of the FW-IO register map; a backend returns
 * 0xDEADBEEF for an offset it cannot read, as the hardware does.
 */
struct neuron_backend_ops {
	const char *name;
	u32 kind;
	u32 (*misc_read)(struct neuron_device *nd, u32 off);
	void (*misc_write)(struct neuron_device *nd, u32 off, u32 val);
	void (*fw_doorbell)(struct neuron_device *nd);
};

/**
 * struct neuron_arch_desc - what info/architecture/ reports
 * @arch_type:		device architecture ("NDv2", "NDsim")
 * @nc_arch_type:	NeuronCore architecture ("NCv2")
 * @instance_type:	instance family ("Trn1", "sim")
 * @device_name:	product name ("Trainium1")
 * @hbm_channels:	HBM ECC words in MiscRAM (0x44 + 4 * ch)
 * @has_repair_state:	MiscRAM 0x64 carries the HBM repair state (v3+)
 */
struct neuron_arch_desc {
	const char *arch_type;
	const char *nc_arch_type;
	const char *instance_type;
	const char *device_name;
	u32 hbm_channels;
	bool has_repair_state;
};

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
 * @inject:	its inject/ directory (fault injection knobs)
 * @gone_sem:	protects @gone; file operations hold it for read while they
 *		touch backend state, removal takes it for write
 * @gone:	the backend is removed; open files only get -ENODEV
 * @procs_lock:	protects @procs
 * @procs:	processes with the device open (struct neuron_proc)
 * @nds:	NDS slabs and totals (neuron_nds.c)
 * @fwio:	FW-IO mailbox state (neuron_fwio.c)
 * @metrics:	metrics post worker (neuron_metrics.c)
 * @sysfs:	the metrics sysfs tree (neuron_sysfs.c)
 * @nq:		notification queues and simulated cores (neuron_nq.c)
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
	struct dentry *inject;
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
struct neuron_device *neuron_device_create(const struct neuron_backend_ops *ops,
					   const struct neuron_arch_desc *arch,
					   void *backend, u32 nc_count);
void neuron_device_destroy(struct neuron_device *nd);
struct neuron_device *neuron_device_get(u32 index);
struct neuron_device *neuron_device_get_next(u32 index);
int neuron_device_proc_attach(struct neuron_device *nd, struct pid *tgid);
void neuron_device_proc_detach(struct neuron_device *nd, struct pid *tgid);

/* neuron_nq.c: notification queues and the simulated NeuronCores */
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

/* neuron_pci.c */
int neuron_pci_init(void);
void neuron_pci_exit(void);

/* sim/neuron_sim.c */
int neuron_sim_init(unsigned int devices, unsigned int nc_per_device);
void neuron_sim_exit(void);

#endif /* NEURON_H */
