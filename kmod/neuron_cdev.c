// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/neuron<N>: open, release and the ioctl dispatcher.
 *
 * Every command is listed once in neuron_ioctls[], with the privilege it
 * needs; numbers below 0xC0 are the vendor's ABI (neuron_vendor.c). The
 * dispatcher checks the magic and number (unknown -> -ENOTTY),
 * then that the full command value matches (wrong size or direction
 * encoding -> -EINVAL) and the privilege (-EPERM), copies the argument in
 * (-EFAULT), checks that the device is still there (-ENODEV), then calls
 * the handler on the kernel copy; the handler validates the struct's own
 * size, flags and reserved fields (neuron_file.c has the shared argument
 * and mapping helpers). The result is copied out after the device lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include "neuron_abi.h"
#include "neuron_apps.h"
#include "neuron_cdev.h"
#include "neuron_device.h"
#include "neuron_dmabuf.h"
#include "neuron_file.h"
#include "neuron_fwio_msg.h"
#include "neuron_job.h"
#include "neuron_main.h"
#include "neuron_mem.h"
#include "neuron_nds_priv.h"
#include "neuron_core.h"
#include "neuron_nq_priv.h"
#include "neuron_reset.h"
#include "neuron_vendor.h"

static bool neuron_cdev_accepting;

void neuron_cdev_accept_opens(void)
{
	/* pairs with the acquire in neuron_cdev_open(): init is complete */
	smp_store_release(&neuron_cdev_accepting, true);
}

static int neuron_cdev_open(struct inode *inode, struct file *filp)
{
	struct neuron_device *nd = container_of(inode->i_cdev, struct neuron_device, cdev);
	struct neuron_file *nf;
	int ret;

	/* pairs with neuron_cdev_accept_opens(): module init has succeeded */
	if (!smp_load_acquire(&neuron_cdev_accepting))
		return -EAGAIN;

	nf = kzalloc(sizeof(*nf), GFP_KERNEL);
	if (!nf)
		return -ENOMEM;
	nf->nd = nd;
	nf->tgid = get_pid(task_tgid(current));
	neuron_mem_file_init(nf);

	down_read(&nd->gone_sem);
	if (nd->gone) {
		ret = -ENODEV;
		goto err;
	}
	/* -EINVAL for a device whose reset did not complete */
	nf->proc = neuron_device_proc_attach(nd, nf->tgid);
	if (IS_ERR(nf->proc)) {
		ret = PTR_ERR(nf->proc);
		goto err;
	}
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

/*
 * The device has no byte stream: read and write are -EINVAL, and -ENODEV
 * once it is removed, like every other file operation.
 */
static ssize_t neuron_cdev_read(struct file *filp, char __user *buf, size_t len, loff_t *ppos)
{
	struct neuron_file *nf = filp->private_data;

	return READ_ONCE(nf->nd->gone) ? -ENODEV : -EINVAL;
}

static ssize_t neuron_cdev_write(struct file *filp, const char __user *buf, size_t len,
				 loff_t *ppos)
{
	struct neuron_file *nf = filp->private_data;

	return READ_ONCE(nf->nd->gone) ? -ENODEV : -EINVAL;
}

static int neuron_cdev_release(struct inode *inode, struct file *filp)
{
	struct neuron_file *nf = filp->private_data;
	struct neuron_device *nd = nf->nd;
	size_t i;

	neuron_mem_file_release(nf);
	neuron_device_proc_detach(nd, nf->proc);
	for (i = 0; i < ARRAY_SIZE(nf->nds_grant); i++)
		put_pid(nf->nds_grant[i]);
	put_pid(nf->tgid);
	kfree(nf);
	put_device(&nd->dev);
	return 0;
}

static long neuron_ioctl_get_info(struct neuron_file *nf, void *karg)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_info info;
	int ret;

	ret = neuron_ioctl_arg(&info, karg, sizeof(info), 0);
	if (ret)
		return ret;
	if (info.hbm_size || !neuron_abi_all_zero(info.reserved, sizeof(info.reserved)))
		return -EINVAL;

	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	info.abi_version = NEURON_ABI_VERSION;
	info.device_index = nd->index;
	info.nc_count = nd->nc_count;
	info.backend = nd->ops->kind;
	info.capabilities = NEURON_CAP_NDS | NEURON_CAP_NDS_READ | NEURON_CAP_NQ |
			    NEURON_CAP_FWIO | NEURON_CAP_APPS_INFO | NEURON_CAP_CORE_HOLDERS;
	if (nd->ops->exec)
		info.capabilities |= NEURON_CAP_SIM_EXEC | NEURON_CAP_JOB_TIME;
	if (nd->mem->hbm_size)
		info.capabilities |= NEURON_CAP_MEM;
	if (neuron_mem_can_map(nd))
		info.capabilities |= NEURON_CAP_MEM_MMAP | (NEURON_DMABUF ? NEURON_CAP_MEM_DMABUF : 0);
	info.hbm_size = nd->mem->hbm_size;
	strscpy(info.driver_version, NEURON_DRIVER_VERSION, sizeof(info.driver_version));

	neuron_ioctl_out(karg, &info, sizeof(info));
	return 0;
}

/* neuron_ioctl_desc.flags */
#define NEURON_IOCTL_ADMIN	BIT(0)	/* needs CAP_SYS_ADMIN, else -EPERM */
/*
 * The handler moves user buffers or walks every task: it runs without
 * gone_sem and takes it itself around each device access, if any (the
 * dispatcher still refuses a removed device).
 */
#define NEURON_IOCTL_UNLOCKED	BIT(1)
/*
 * The argument goes back to the caller on -ETIMEDOUT and -EINTR too: the
 * job ioctls, whose handlers then hold the job's time in it (UAPI).
 */
#define NEURON_IOCTL_JOB	BIT(2)

struct neuron_ioctl_desc {
	unsigned int cmd;
	long (*fn)(struct neuron_file *nf, void *karg);
	u32 flags;
};

/*
 * Every command, once. ADMIN: FW_READ makes firmware read arbitrary device
 * addresses, a power profile changes the device for every process,
 * CORE_TAKE_BACK takes a NeuronCore from another process.
 */
static const struct neuron_ioctl_desc neuron_ioctls[] = {
	{ NEURON_IOCTL_GET_INFO,	neuron_ioctl_get_info,			0 },
	{ NEURON_IOCTL_NDS_ACQUIRE,	neuron_nds_ioctl_acquire,		0 },
	{ NEURON_IOCTL_NDS_COUNTER_ADD,	neuron_nds_ioctl_counter_add,		0 },
	{ NEURON_IOCTL_NDS_READ,	neuron_nds_ioctl_read,			NEURON_IOCTL_UNLOCKED },
	{ NEURON_IOCTL_NQ_INIT,		neuron_nq_ioctl_init,			0 },
	{ NEURON_IOCTL_NQ_RELEASE,	neuron_nq_ioctl_release,		0 },
	{ NEURON_IOCTL_CORE_RESERVE,	neuron_core_ioctl_reserve,		0 },
	{ NEURON_IOCTL_CORE_RELEASE,	neuron_core_ioctl_release,		0 },
	{ NEURON_IOCTL_SIM_EXEC,	neuron_job_ioctl_exec,			NEURON_IOCTL_JOB },
	{ NEURON_IOCTL_SIM_EXEC_MODEL,	neuron_job_ioctl_exec_model,		NEURON_IOCTL_JOB },
	{ NEURON_IOCTL_FW_READ,		neuron_fwio_ioctl_read,			NEURON_IOCTL_ADMIN },
	{ NEURON_IOCTL_FW_POWER_PROFILE, neuron_fwio_ioctl_power_profile,	NEURON_IOCTL_ADMIN },
	{ NEURON_IOCTL_APPS_INFO,	neuron_apps_ioctl_info,			0 },
	{ NEURON_IOCTL_CORE_HOLDERS,	neuron_apps_ioctl_core_holders,		NEURON_IOCTL_UNLOCKED },
	{ NEURON_IOCTL_CORE_TAKE_BACK,	neuron_core_ioctl_take_back,		NEURON_IOCTL_ADMIN },
	{ NEURON_IOCTL_MEM_ALLOC,	neuron_mem_ioctl_alloc,			0 },
	{ NEURON_IOCTL_MEM_FREE,	neuron_mem_ioctl_free,			0 },
	{ NEURON_IOCTL_MEM_READ,	neuron_mem_ioctl_read,			NEURON_IOCTL_UNLOCKED },
	{ NEURON_IOCTL_MEM_WRITE,	neuron_mem_ioctl_write,			NEURON_IOCTL_UNLOCKED },
	{ NEURON_IOCTL_MEM_SET,		neuron_mem_ioctl_set,			NEURON_IOCTL_UNLOCKED },
	{ NEURON_IOCTL_MEM_DMABUF_READ,	neuron_dmabuf_ioctl_read,		NEURON_IOCTL_UNLOCKED },
};

/* Numbers below this one are the vendor's (neuron_vendor.c). */
#define NEURON_IOCTL_OWN_FIRST	0xC0

/* The largest argument struct (FW_READ) fits; checked for every command below. */
#define NEURON_IOCTL_ARG_MAX	256

static_assert(_IOC_SIZE(NEURON_IOCTL_GET_INFO) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_NDS_ACQUIRE) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_NDS_COUNTER_ADD) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_NDS_READ) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_NQ_INIT) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_NQ_RELEASE) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_CORE_RESERVE) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_CORE_RELEASE) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_SIM_EXEC) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_FW_READ) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_FW_POWER_PROFILE) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_APPS_INFO) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_CORE_HOLDERS) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_CORE_TAKE_BACK) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_SIM_EXEC_MODEL) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_MEM_ALLOC) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_MEM_FREE) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_MEM_READ) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_MEM_WRITE) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_MEM_SET) <= NEURON_IOCTL_ARG_MAX);
static_assert(_IOC_SIZE(NEURON_IOCTL_MEM_DMABUF_READ) <= NEURON_IOCTL_ARG_MAX);

/*
 * The argument is copied in before gone_sem is taken and out after it is
 * released: a copy that faults on a page nobody provides (userfaultfd,
 * FUSE) then blocks only its own caller, never device removal or the
 * opens and ioctls queued behind a removal.
 */
static long neuron_cdev_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct neuron_file *nf = filp->private_data;
	const struct neuron_ioctl_desc *d = NULL;
	void __user *uarg = (void __user *)arg;
	u64 kbuf[NEURON_IOCTL_ARG_MAX / sizeof(u64)];
	size_t i, size;
	long ret;

	if (_IOC_TYPE(cmd) != NEURON_IOCTL_MAGIC)
		return -ENOTTY;
	if (_IOC_NR(cmd) < NEURON_IOCTL_OWN_FIRST)
		return neuron_vendor_ioctl(nf, cmd, uarg);
	if (neuron_vendor_only())
		return -ENOTTY;
	for (i = 0; i < ARRAY_SIZE(neuron_ioctls) && !d; i++)
		if (_IOC_NR(neuron_ioctls[i].cmd) == _IOC_NR(cmd))
			d = &neuron_ioctls[i];
	if (!d)
		return -ENOTTY;
	if (d->cmd != cmd)
		return -EINVAL;
	if ((d->flags & NEURON_IOCTL_ADMIN) && !capable(CAP_SYS_ADMIN))
		return -EPERM;

	size = _IOC_SIZE(cmd);
	if (copy_from_user(kbuf, uarg, size))
		return -EFAULT;
	ret = neuron_ioctl_call(nf, d->fn, kbuf, d->flags & NEURON_IOCTL_UNLOCKED);
	if ((!ret || ((d->flags & NEURON_IOCTL_JOB) && neuron_ioctl_job_answers(ret))) &&
	    (_IOC_DIR(cmd) & _IOC_READ) && copy_to_user(uarg, kbuf, size) && !ret)
		ret = -EFAULT;
	return ret;
}

/*
 * mmap offsets are cookies handed out by the ioctls that create the
 * objects (NDS slabs, NQ rings) or derived from them (device allocations:
 * NEURON_MEM_MMAP_OFFSET); each subsystem recognises its own range.
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
		ret = neuron_mem_mmap(nf, vma);
	if (ret == NEURON_MMAP_NOT_MINE)
		ret = -EINVAL;
	return ret;
}

const struct file_operations neuron_cdev_fops = {
	.owner = THIS_MODULE,
	.open = neuron_cdev_open,
	.release = neuron_cdev_release,
	.read = neuron_cdev_read,
	.write = neuron_cdev_write,
	.unlocked_ioctl = neuron_cdev_ioctl,
	.mmap = neuron_cdev_mmap,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};
