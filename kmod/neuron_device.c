// SPDX-License-Identifier: GPL-2.0
/*
 * Device core: the neuron_device class, char device region, index
 * allocation and the device lifetime shared by every backend.
 *
 * Lifetime: neuron_device_create() returns a device with one reference
 * (the backend's). Each open file takes another. neuron_device_destroy()
 * removes the node and the sysfs directory at once and drops the
 * backend's reference; the memory goes when the last file closes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/idr.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "neuron_cdev.h"
#include "neuron_compat.h"
#include "neuron_core.h"
#include "neuron_device.h"
#include "neuron_fwio.h"
#include "neuron_hwerr.h"
#include "neuron_main.h"
#include "neuron_mem.h"
#include "neuron_metrics.h"
#include "neuron_nds_priv.h"
#include "neuron_nq_priv.h"
#include "neuron_power.h"
#include "neuron_reset.h"
#include "neuron_sysfs.h"

static struct class *neuron_class;
static dev_t neuron_devt;
static DEFINE_IDA(neuron_ida);

/*
 * Live devices, for lookups by index (generic netlink). A device is on the
 * list from the end of neuron_device_create() to the start of
 * neuron_device_destroy().
 */
static DEFINE_MUTEX(neuron_devices_lock);	/* protects neuron_devices */
static LIST_HEAD(neuron_devices);

static ssize_t core_count_show(struct device *dev, struct device_attribute *attr,
			       char *buf)
{
	return sysfs_emit(buf, "%u\n", to_neuron_device(dev)->nc_count);
}
static DEVICE_ATTR_RO(core_count);

/*
 * The devices this one has a direct link to, as the vendor's file: their
 * indexes, ascending, separated by ", " (what Slurm's gpu/nrt splits);
 * an empty line without links. The backend knows its topology.
 */
static ssize_t connected_devices_show(struct device *dev, struct device_attribute *attr,
				      char *buf)
{
	struct neuron_device *nd = to_neuron_device(dev);
	u32 ids[NEURON_MAX_DEVICES], n = 0, i;
	ssize_t len = 0;

	down_read(&nd->gone_sem);
	if (!nd->gone && nd->ops->connected_devices)
		n = nd->ops->connected_devices(nd->backend, ids, ARRAY_SIZE(ids));
	up_read(&nd->gone_sem);
	for (i = 0; i < n; i++)
		len += sysfs_emit_at(buf, len, "%s%u", i ? ", " : "", ids[i]);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}
static DEVICE_ATTR_RO(connected_devices);

static struct attribute *neuron_dev_attrs[] = {
	&dev_attr_core_count.attr,
	&dev_attr_connected_devices.attr,
	&dev_attr_reset.attr,
	&dev_attr_state.attr,
	&dev_attr_health.attr,
	&dev_attr_health_reason.attr,
	NULL,
};

/* state and health are this driver's: not created with vendor_only */
static umode_t neuron_dev_visible(struct kobject *kobj, struct attribute *attr, int n)
{
	if (neuron_vendor_only() && (attr == &dev_attr_state.attr || attr == &dev_attr_health.attr ||
				     attr == &dev_attr_health_reason.attr))
		return 0;
	return attr->mode;
}

static const struct attribute_group neuron_dev_group = {
	.attrs = neuron_dev_attrs,
	.is_visible = neuron_dev_visible,
};
__ATTRIBUTE_GROUPS(neuron_dev);

static void neuron_device_release(struct device *dev)
{
	struct neuron_device *nd = to_neuron_device(dev);

	/* the last open file is gone: no process holds anything any more */
	WARN_ON(!list_empty(&nd->procs));
	neuron_nq_free(nd);
	neuron_core_free(nd);
	neuron_nds_exit(nd);
	neuron_hwerr_free(nd);
	neuron_power_free(nd);
	neuron_mem_free(nd);
	/* a fixed index went at destroy (or at the failed creation) */
	if (!nd->index_fixed)
		ida_free(&neuron_ida, nd->index);
	kfree(nd);
}

/*
 * Track the processes holding the device open. A process's last file
 * release frees what it held: its NDS slab is folded into the totals first,
 * so nothing it counted is lost, whether it closed, exited or was killed.
 */
struct neuron_proc *neuron_device_proc_attach(struct neuron_device *nd, struct pid *tgid)
{
	struct neuron_proc *p;

	/* a whole-device reset holds it for as long as the firmware takes */
	if (mutex_lock_killable(&nd->procs_lock))
		return ERR_PTR(-EINTR);
	/*
	 * a reset did not complete: unusable until one does (the vendor's
	 * answer); under procs_lock, so an open that waited for a reset
	 * sees how it ended
	 */
	if (neuron_device_invalid(nd)) {
		mutex_unlock(&nd->procs_lock);
		return ERR_PTR(-EINVAL);
	}
	list_for_each_entry(p, &nd->procs, node) {
		if (p->tgid == tgid) {
			p->files++;
			mutex_unlock(&nd->procs_lock);
			return p;
		}
	}
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		mutex_unlock(&nd->procs_lock);
		return ERR_PTR(-ENOMEM);
	}
	p->tgid = get_pid(tgid);
	p->files = 1;
	list_add_tail(&p->node, &nd->procs);
	mutex_unlock(&nd->procs_lock);
	return p;
}

void neuron_device_proc_detach(struct neuron_device *nd, struct neuron_proc *p)
{
	bool last, folded = false;

	mutex_lock(&nd->procs_lock);
	last = --p->files == 0;
	/*
	 * Release under procs_lock: a new open by the same process (another
	 * thread) must not attach, acquire and map the slab or ring this
	 * release is about to free. Order: procs_lock -> nds->lock -> the
	 * core table's lock.
	 */
	if (last) {
		list_del(&p->node);
		neuron_core_release_proc(nd, p);
		folded = neuron_nds_release_tgid(nd, p->tgid);
	}
	mutex_unlock(&nd->procs_lock);

	if (last) {
		put_pid(p->tgid);
		kfree(p);
	}
	/* takes gone_sem, which orders before procs_lock: after the unlock */
	if (folded)
		neuron_sysfs_counters_changed(nd);
}

/*
 * @want: the index to take, or -1 for the lowest free one; @state: the
 * reset state it starts in (NEURON_DEVICE_STATE_READY, or _INVALID).
 */
static struct neuron_device *neuron_device_create_at(const struct neuron_backend_ops *ops,
						     const struct neuron_arch_desc *arch,
						     void *backend, u32 nc_count, int want,
						     u32 state)
{
	struct neuron_device *nd;
	int index, ret;

	if (!nc_count || nc_count > NEURON_MAX_NC || want >= NEURON_MAX_DEVICES)
		return ERR_PTR(-EINVAL);

	nd = kzalloc(sizeof(*nd), GFP_KERNEL);
	if (!nd)
		return ERR_PTR(-ENOMEM);

	if (want < 0)
		index = ida_alloc_max(&neuron_ida, NEURON_MAX_DEVICES - 1, GFP_KERNEL);
	else
		index = ida_alloc_range(&neuron_ida, want, want, GFP_KERNEL);
	if (index < 0) {
		kfree(nd);
		/* ida says -ENOSPC for a taken index */
		return ERR_PTR(want >= 0 && index == -ENOSPC ? -EEXIST : index);
	}
	nd->index = index;
	nd->index_fixed = want >= 0;
	nd->nc_count = nc_count;
	nd->reset_state = state;
	nd->ops = ops;
	nd->arch = arch;
	nd->backend = backend;
	init_rwsem(&nd->gone_sem);
	mutex_init(&nd->procs_lock);
	INIT_LIST_HEAD(&nd->procs);
	spin_lock_init(&nd->resets.count_lock);
	spin_lock_init(&nd->resets.window_lock);
	/* before sysfs can read it: the ECC counts now are the baseline */
	neuron_health_init(nd);

	device_initialize(&nd->dev);
	nd->dev.class = neuron_class;
	nd->dev.devt = MKDEV(MAJOR(neuron_devt), index);
	nd->dev.groups = neuron_dev_groups;
	nd->dev.release = neuron_device_release;
	ret = dev_set_name(&nd->dev, "neuron%u", index);
	if (ret)
		goto err_put;

	/* debugfs first: subsystems add their files under it */
	nd->debugfs = debugfs_create_dir(dev_name(&nd->dev), neuron_debugfs_root);

	ret = neuron_nds_init(nd);
	if (ret)
		goto err_debugfs;
	/* these three are freed by the release callback */
	ret = neuron_core_init(nd);
	if (ret)
		goto err_debugfs;
	ret = neuron_nq_init(nd);
	if (ret)
		goto err_debugfs;
	ret = neuron_mem_init(nd);
	if (ret)
		goto err_debugfs;
	/*
	 * A device whose memory has pages (the simulated one) imports dma-bufs
	 * with its own struct device: it reaches all of memory, with no IOMMU
	 * in front of it (neuron_dmabuf.c).
	 */
	if (neuron_mem_can_map(nd)) {
		nd->dev.dma_mask = &nd->dev.coherent_dma_mask;
		ret = dma_coerce_mask_and_coherent(&nd->dev, DMA_BIT_MASK(64));
		if (ret)
			goto err_debugfs;
	}
	ret = neuron_fwio_init(nd);
	if (ret)
		goto err_debugfs;

	cdev_init(&nd->cdev, &neuron_cdev_fops);
	nd->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&nd->cdev, &nd->dev);
	if (ret)
		goto err_fwio;

	ret = neuron_sysfs_init(nd);
	if (ret)
		goto err_cdev;

	ret = neuron_metrics_start(nd);
	if (ret)
		goto err_cdev;
	ret = neuron_hwerr_init(nd);
	if (ret)
		goto err_metrics;
	/* a device that starts unhealthy (INVALID at probe) says so once */
	neuron_health_check(nd);
	ret = neuron_power_init(nd);
	if (ret)
		goto err_metrics;

	mutex_lock(&neuron_devices_lock);
	list_add_tail(&nd->node, &neuron_devices);
	mutex_unlock(&neuron_devices_lock);

	dev_info(&nd->dev, "%s backend, %u NeuronCores\n", ops->name, nc_count);
	return nd;

err_metrics:
	neuron_hwerr_stop(nd);
	neuron_metrics_stop(nd);
err_cdev:
	/*
	 * The node was visible: a racing open may hold a file, and a job of
	 * it may be running. Stop the jobs, then fence the files off (this
	 * waits for their ioctls), and only then free what they could reach.
	 */
	if (ops->stop)
		ops->stop(backend);
	down_write(&nd->gone_sem);
	WRITE_ONCE(nd->gone, true);
	up_write(&nd->gone_sem);
	neuron_mem_revoke_all(nd);
	neuron_sysfs_exit(nd);	/* also what a failed neuron_sysfs_init() built */
	cdev_device_del(&nd->cdev, &nd->dev);
err_fwio:
	neuron_fwio_exit(nd);
err_debugfs:
	debugfs_remove_recursive(nd->debugfs);
	nd->debugfs = NULL;
err_put:
	/* the release callback frees the NDS state, the index and the struct */
	if (nd->index_fixed)
		ida_free(&neuron_ida, nd->index);
	put_device(&nd->dev);
	return ERR_PTR(ret);
}

struct neuron_device *neuron_device_create(const struct neuron_backend_ops *ops,
					   const struct neuron_arch_desc *arch,
					   void *backend, u32 nc_count)
{
	return neuron_device_create_at(ops, arch, backend, nc_count, -1,
				       NEURON_DEVICE_STATE_READY);
}

struct neuron_device *neuron_device_create_index(const struct neuron_backend_ops *ops,
						 const struct neuron_arch_desc *arch,
						 void *backend, u32 nc_count, u32 index,
						 bool invalid)
{
	if (index >= NEURON_MAX_DEVICES)
		return ERR_PTR(-EINVAL);
	return neuron_device_create_at(ops, arch, backend, nc_count, index,
				       invalid ? NEURON_DEVICE_STATE_INVALID :
				       NEURON_DEVICE_STATE_READY);
}

/*
 * Remove a device, whatever its files are doing (docs/ARCHITECTURE.md,
 * "Removal"). In order:
 *  1. lookups (netlink) stop finding it;
 *  2. FW-IO exchanges in progress abort (-ENODEV) and the metrics worker
 *     stops, so nothing below waits for a hung firmware;
 *  3. @gone is set under gone_sem, which waits for the ioctls in progress
 *     (a backend's job ends by itself: the backend stopped it first); from
 *     here on every file operation gets -ENODEV;
 *     then every mapping of device memory is revoked (its pages unmapped,
 *     a later access SIGBUS: neuron_mem.c) before the backend can go;
 *  4. the live NDS slabs are folded into the totals, which are logged;
 *  5. sysfs, the char device node and debugfs go (each waits for its
 *     readers); then the backend-facing state.
 * What open files and mappings still reference (NDS slabs, rings, the
 * struct) goes with the last reference: mapped memory stays valid until
 * unmapped. The index of a device numbered by the lowest free one
 * (neuron_device_create()) is reused only after that too; a fixed index
 * (neuron_device_create_index(): a PCI function's routing id) is the
 * hardware's, freed here, so the function probed again gets its N back
 * while a process still holds the removed device's file.
 */
void neuron_device_destroy(struct neuron_device *nd)
{
	mutex_lock(&neuron_devices_lock);
	list_del(&nd->node);
	mutex_unlock(&neuron_devices_lock);

	/* a worker blocked behind an ioctl's exchange must not wait it out */
	neuron_fwio_quiesce(nd);
	neuron_metrics_stop(nd);
	down_write(&nd->gone_sem);
	WRITE_ONCE(nd->gone, true);
	up_write(&nd->gone_sem);
	/* device memory mappings: unmapped, faults get SIGBUS (before the backend goes) */
	neuron_mem_revoke_all(nd);
	/* no job runs any more: nothing logs or samples from here on */
	neuron_hwerr_stop(nd);
	neuron_power_stop(nd);
	neuron_nds_remove(nd);
	neuron_sysfs_exit(nd);
	cdev_device_del(&nd->cdev, &nd->dev);
	debugfs_remove_recursive(nd->debugfs);
	nd->debugfs = NULL;
	neuron_fwio_exit(nd);
	/* no op is called from here on; a stray use faults loudly */
	nd->backend = NULL;
	dev_info(&nd->dev, "removed\n");
	/* node, sysfs and debugfs names are free again: so is a fixed index */
	if (nd->index_fixed)
		ida_free(&neuron_ida, nd->index);
	put_device(&nd->dev);
}

int neuron_device_create_fault(struct neuron_device *nd, u32 step)
{
	return nd->ops->create_fault ? nd->ops->create_fault(nd->backend, step) : 0;
}

u32 neuron_device_index(const struct neuron_device *nd)
{
	return nd->index;
}

struct device *neuron_device_dev(struct neuron_device *nd)
{
	return &nd->dev;
}

struct dentry *neuron_device_debugfs(const struct neuron_device *nd)
{
	return nd->debugfs;
}

struct dentry *neuron_device_fw_debugfs(const struct neuron_device *nd)
{
	return neuron_fwio_debugfs_dir(nd);
}

/*
 * The live device with the lowest index >= @index, with a reference the
 * caller drops with put_device(); NULL when there is none.
 */
struct neuron_device *neuron_device_get_next(u32 index)
{
	struct neuron_device *nd, *best = NULL;

	mutex_lock(&neuron_devices_lock);
	list_for_each_entry(nd, &neuron_devices, node)
		if (nd->index >= index && (!best || nd->index < best->index))
			best = nd;
	if (best)
		get_device(&best->dev);
	mutex_unlock(&neuron_devices_lock);
	return best;
}

/* The live device /dev/neuron<@index>, referenced; NULL when there is none. */
struct neuron_device *neuron_device_get(u32 index)
{
	struct neuron_device *nd = neuron_device_get_next(index);

	if (nd && nd->index != index) {
		put_device(&nd->dev);
		nd = NULL;
	}
	return nd;
}

/*
 * The vendor's class files of UltraServer topology
 * (/sys/class/neuron_device/...). No device here is part of an
 * UltraServer (none is modelled): every file answers what the vendor's
 * Trn1 and Inf2 driver answers, which is also what its Trn2 driver
 * answers for a server outside one. One value per file.
 */
static ssize_t node_id_show(neuron_class_attr_class *c, neuron_class_attr_attr *a, char *buf)
{
	return sysfs_emit(buf, "-1\n");
}

static ssize_t server_id_show(neuron_class_attr_class *c, neuron_class_attr_attr *a, char *buf)
{
	return sysfs_emit(buf, "%016llx\n", 0ULL);
}

static ssize_t ultraserver_mode_show(neuron_class_attr_class *c, neuron_class_attr_attr *a,
				     char *buf)
{
	/* the modes the server supports, comma separated: none */
	return sysfs_emit(buf, "\n");
}

static struct class_attribute neuron_class_attrs[] = {
	__ATTR(node_id_2, 0444, node_id_show, NULL),
	__ATTR(node_id_4, 0444, node_id_show, NULL),
	__ATTR(server_id_2, 0444, server_id_show, NULL),
	__ATTR(server_id_4, 0444, server_id_show, NULL),
	__ATTR(ultraserver_mode, 0444, ultraserver_mode_show, NULL),
};

int neuron_device_class_init(void)
{
	size_t i;
	int ret;

	ret = alloc_chrdev_region(&neuron_devt, 0, NEURON_MAX_DEVICES, KBUILD_MODNAME);
	if (ret)
		return ret;

	neuron_class = neuron_class_create("neuron_device");
	if (IS_ERR(neuron_class)) {
		ret = PTR_ERR(neuron_class);
		unregister_chrdev_region(neuron_devt, NEURON_MAX_DEVICES);
		return ret;
	}
	for (i = 0; i < ARRAY_SIZE(neuron_class_attrs); i++) {
		ret = class_create_file(neuron_class, &neuron_class_attrs[i]);
		if (ret) {
			while (i--)
				class_remove_file(neuron_class, &neuron_class_attrs[i]);
			class_destroy(neuron_class);
			unregister_chrdev_region(neuron_devt, NEURON_MAX_DEVICES);
			return ret;
		}
	}
	return 0;
}

void neuron_device_class_exit(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(neuron_class_attrs); i++)
		class_remove_file(neuron_class, &neuron_class_attrs[i]);
	class_destroy(neuron_class);
	unregister_chrdev_region(neuron_devt, NEURON_MAX_DEVICES);
	ida_destroy(&neuron_ida);
}
