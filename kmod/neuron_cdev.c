// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/neuron<N>: open, release and the ioctl dispatcher.
 *
 * Every command is listed once in neuron_ioctls[]. The dispatcher checks the
 * magic and number (unknown -> -ENOTTY), then that the full command value
 * matches (wrong size or direction encoding -> -EINVAL), then calls the
 * handler, which validates the struct's own size, flags and reserved fields.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include "neuron.h"
#include "neuron_compat.h"
#include "neuron_abi.h"
#include "neuron_fwio.h"
#include "neuron_job.h"
#include "neuron_nds.h"
#include "neuron_nq.h"

static int neuron_cdev_open(struct inode *inode, struct file *filp)
{
	struct neuron_device *nd = container_of(inode->i_cdev, struct neuron_device, cdev);
	struct neuron_file *nf;
	int ret;

	nf = kzalloc(sizeof(*nf), GFP_KERNEL);
	if (!nf)
		return -ENOMEM;
	nf->nd = nd;
	nf->tgid = get_pid(task_tgid(current));

	down_read(&nd->gone_sem);
	if (nd->gone) {
		ret = -ENODEV;
		goto err;
	}
	ret = neuron_device_proc_attach(nd, nf->tgid);
	if (ret)
		goto err;
	get_device(&nd->dev);
	up_read(&nd->gone_sem);
	filp->private_data = nf;
	return 0;

err:
	up_read(&nd->gone_sem);
	put_pid(nf->tgid);
	kfree(nf);
	return ret;
}

static int neuron_cdev_release(struct inode *inode, struct file *filp)
{
	struct neuron_file *nf = filp->private_data;
	struct neuron_device *nd = nf->nd;

	neuron_device_proc_detach(nd, nf->tgid);
	put_pid(nf->tgid);
	kfree(nf);
	put_device(&nd->dev);
	return 0;
}

int neuron_ioctl_copy_in(void *karg, const void __user *uarg, size_t size, u32 allowed_flags)
{
	const u32 *hdr = karg;	/* every argument struct starts with size, flags */

	if (copy_from_user(karg, uarg, size))
		return -EFAULT;
	return neuron_abi_check_header(hdr[0], size, hdr[1], allowed_flags);
}

static long neuron_ioctl_get_info(struct neuron_file *nf, void __user *uarg)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_info info;
	int ret;

	ret = neuron_ioctl_copy_in(&info, uarg, sizeof(info), 0);
	if (ret)
		return ret;
	if (!neuron_abi_all_zero(info.reserved, sizeof(info.reserved)))
		return -EINVAL;

	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	info.abi_version = NEURON_ABI_VERSION;
	info.device_index = nd->index;
	info.nc_count = nd->nc_count;
	info.backend = nd->ops->kind;
	info.capabilities = NEURON_CAP_NDS | NEURON_CAP_NQ | NEURON_CAP_FWIO;
	if (nd->ops->exec)
		info.capabilities |= NEURON_CAP_SIM_EXEC;
	strscpy(info.driver_version, NEURON_DRIVER_VERSION, sizeof(info.driver_version));

	if (copy_to_user(uarg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

struct neuron_ioctl_desc {
	unsigned int cmd;
	long (*fn)(struct neuron_file *nf, void __user *uarg);
};

static const struct neuron_ioctl_desc neuron_ioctls[] = {
	{ NEURON_IOCTL_GET_INFO, neuron_ioctl_get_info },
	{ NEURON_IOCTL_NDS_ACQUIRE, neuron_nds_ioctl_acquire },
	{ NEURON_IOCTL_NDS_COUNTER_ADD, neuron_nds_ioctl_counter_add },
	{ NEURON_IOCTL_NQ_INIT, neuron_nq_ioctl_init },
	{ NEURON_IOCTL_NQ_RELEASE, neuron_nq_ioctl_release },
	{ NEURON_IOCTL_CORE_RESERVE, neuron_core_ioctl_reserve },
	{ NEURON_IOCTL_CORE_RELEASE, neuron_core_ioctl_release },
	{ NEURON_IOCTL_SIM_EXEC, neuron_job_ioctl_exec },
	{ NEURON_IOCTL_FW_READ, neuron_fwio_ioctl_read },
	{ NEURON_IOCTL_FW_POWER_PROFILE, neuron_fwio_ioctl_power_profile },
};

static long neuron_cdev_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct neuron_file *nf = filp->private_data;
	struct neuron_device *nd = nf->nd;
	long ret;
	size_t i;

	if (_IOC_TYPE(cmd) != NEURON_IOCTL_MAGIC)
		return -ENOTTY;
	for (i = 0; i < ARRAY_SIZE(neuron_ioctls); i++) {
		if (_IOC_NR(neuron_ioctls[i].cmd) != _IOC_NR(cmd))
			continue;
		if (neuron_ioctls[i].cmd != cmd)
			return -EINVAL;
		down_read(&nd->gone_sem);
		ret = nd->gone ? -ENODEV : neuron_ioctls[i].fn(nf, (void __user *)arg);
		up_read(&nd->gone_sem);
		return ret;
	}
	return -ENOTTY;
}

int neuron_map_owned(struct neuron_file *nf, struct vm_area_struct *vma, void *mem,
		     struct pid *owner)
{
	/*
	 * Writable only for the owner, through a file the owner opened: the
	 * mapping then pins a file counted for the owner, so the object cannot
	 * be released (and handed to another process) while the mapping lives.
	 */
	if (owner != task_tgid(current) || owner != nf->tgid) {
		if (vma->vm_flags & VM_WRITE)
			return -EACCES;
		/* and it cannot become writable through mprotect */
		neuron_vm_flags_clear(vma, VM_MAYWRITE);
	}
	neuron_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY);
	return remap_vmalloc_range(vma, mem, 0);
}

/*
 * mmap offsets are cookies handed out by the ioctls that create the
 * objects (NDS slabs, NQ rings); each subsystem recognises its own range.
 */
static int neuron_cdev_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct neuron_file *nf = filp->private_data;
	struct neuron_device *nd = nf->nd;
	int ret;

	/*
	 * No gone_sem here: mmap runs under mmap_lock, and ioctls fault under
	 * gone_sem, so taking it would invert the two. The NDS and ring tables
	 * live until the device's last reference, which this file holds.
	 */
	if (READ_ONCE(nd->gone))
		return -ENODEV;
	ret = neuron_nds_mmap(nf, vma);
	if (ret == NEURON_MMAP_NOT_MINE)
		ret = neuron_nq_mmap(nf, vma);
	if (ret == NEURON_MMAP_NOT_MINE)
		ret = -EINVAL;
	return ret;
}

const struct file_operations neuron_cdev_fops = {
	.owner = THIS_MODULE,
	.open = neuron_cdev_open,
	.release = neuron_cdev_release,
	.unlocked_ioctl = neuron_cdev_ioctl,
	.mmap = neuron_cdev_mmap,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};
