// SPDX-License-Identifier: GPL-2.0
/*
 * The vendor's ioctl ABI (<neuron/neuron_vendor_ioctl.h>, docs/vendor-abi.md):
 * the commands of magic 'N' below this driver's own numbers.
 *
 * Each command is listed once in neuron_vendor_cmds[] with the bytes its
 * argument has in and out; the vendor's direction bits do not say which
 * way data flows (COMPATIBLE_VERSION is _IOW and only writes), so the
 * table does. The dispatcher copies the argument in (-EFAULT), calls the
 * handler on the kernel copy and copies the answer out. A command with an
 * equivalent among this driver's own calls the same code: the range marks
 * are reservations (neuron_core.c), the slab is the NDS slab (neuron_nds.c),
 * READ_HW_COUNTERS is FW_READ's exchange, the apps listing is APPS_INFO's
 * process list (neuron_apps.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_vendor_ioctl.h>

#include "neuron_apps.h"
#include "neuron_device.h"
#include "neuron_dmabuf.h"
#include "neuron_file.h"
#include "neuron_fw_profile.h"
#include "neuron_fwio_frame.h"
#include "neuron_fwio_msg.h"
#include "neuron_mem.h"
#include "neuron_nds_priv.h"
#include "neuron_core.h"
#include "neuron_nq_priv.h"
#include "neuron_reset.h"
#include "neuron_vendor.h"

/* READ_HW_COUNTERS: addresses one call may read (the vendor has no bound) */
#define NEURON_VENDOR_HW_READ_MAX	1024

/* neuron_vendor_cmd.flags */
#define V_OUT_ON_BUSY	BIT(0)	/* the answer goes back on -EBUSY too (range marks) */
#define V_UNLOCKED	BIT(1)	/* the handler copies user memory: it takes gone_sem itself */

struct neuron_vendor_cmd {
	unsigned int cmd;
	u16 in;		/* bytes of the argument read */
	u16 out;	/* bytes written back */
	u32 flags;
	long (*fn)(struct neuron_file *nf, void *karg);
};

/* enum neuron_arch of the device: the simulated contract is v2's */
static u32 vendor_arch(const struct neuron_device *nd)
{
	switch (nd->arch->fw_arch) {
	case NEURON_FW_ARCH_V3:
		return NEURON_ARCH_V3;
	case NEURON_FW_ARCH_V4:
		return NEURON_ARCH_V4;
	}
	return NEURON_ARCH_V2;
}

/* The PCI function's facts; false (all zero) for a simulated device. */
static bool vendor_pci(const struct neuron_device *nd, struct neuron_pci_info *pi)
{
	memset(pi, 0, sizeof(*pi));
	if (!nd->ops->pci_info)
		return false;
	nd->ops->pci_info(nd->backend, pi);
	return true;
}

static long vendor_basic_info(struct neuron_file *nf, void *karg)
{
	struct neuron_ioctl_device_basic_info *a = karg;
	struct neuron_pci_info pi;

	vendor_pci(nf->nd, &pi);
	a->architecture = vendor_arch(nf->nd);
	a->revision = pi.revision;
	return 0;
}

static long vendor_device_info(struct neuron_file *nf, void *karg)
{
	struct neuron_ioctl_device_info *a = karg;
	struct neuron_device *nd = nf->nd;
	struct neuron_pci_info pi;

	vendor_pci(nd, &pi);
	a->architecture = vendor_arch(nd);
	a->revision = pi.revision;
	if (nd->ops->connected_devices)
		a->connected_device_count =
			min_t(u32, nd->ops->connected_devices(nd->backend, a->connected_devices,
							      NEURON_IOCTL_MAX_CONNECTED_DEVICES),
			      NEURON_IOCTL_MAX_CONNECTED_DEVICES);
	/* never the kernel's addresses of the BARs: 0 */
	a->bar_size[0] = pi.bar0_len;
	return 0;
}

static long vendor_bdf(struct neuron_file *nf, void *karg)
{
	struct neuron_ioctl_device_bdf *a = karg;
	struct neuron_pci_info pi;

	if (!vendor_pci(nf->nd, &pi))
		return -EOPNOTSUPP;
	a->bus_number = pi.bus;
	a->slot = pi.slot;
	a->func = pi.func;
	return 0;
}

/* @nd_index counts from this fd's device, as a container sees its devices */
static long vendor_bdf_ext(struct neuron_file *nf, void *karg)
{
	struct neuron_ioctl_device_bdf_ext *a = karg;
	struct neuron_pci_info pi;
	struct neuron_device *nd;
	u32 index = nf->nd->index + a->nd_index;
	long ret;

	if (index < nf->nd->index)
		return -ENODEV;
	nd = neuron_device_get(index);
	if (!nd)
		return -ENODEV;
	/* the backend only under gone_sem (the dispatcher holds none here) */
	down_read(&nd->gone_sem);
	ret = nd->gone ? -ENODEV : vendor_pci(nd, &pi) ? 0 : -EOPNOTSUPP;
	up_read(&nd->gone_sem);
	put_device(&nd->dev);
	if (ret)
		return ret;
	memset(a, 0, sizeof(*a));
	a->domain = pi.domain;
	a->bus_number = pi.bus;
	a->slot = pi.slot;
	a->func = pi.func;
	return 0;
}

static long vendor_host_device_id(struct neuron_file *nf, void *karg)
{
	struct neuron_ioctl_host_device_id *a = karg;

	a->host_device_id = nf->nd->index;
	return 0;
}

static long vendor_compatible_version(struct neuron_file *nf, void *karg)
{
	struct neuron_ioctl_compatible_version *a = karg;
	bool v3 = vendor_arch(nf->nd) >= NEURON_ARCH_V3;

	a->max = v3 ? 11 : 7;
	a->min = v3 ? 10 : 5;
	return 0;
}

/* DMABUF_FD: any device file of the caller; the mapping names the device */
static long vendor_dmabuf_fd(struct neuron_file *nf, void *karg)
{
	struct neuron_ioctl_dmabuf_fd *a = karg;

	return neuron_dmabuf_export(a->va, a->size, u64_to_user_ptr(a->fd));
}

static long vendor_driver_info(struct neuron_file *nf, void *karg)
{
	struct neuron_ioctl_device_driver_info *a = karg;
	struct neuron_pci_info pi;

	vendor_pci(nf->nd, &pi);
	a->architecture = vendor_arch(nf->nd);
	a->revision = pi.revision;
	a->version = NEURON_DEVICE_DRIVER_INFO_VERSION0;
	a->size = sizeof(*a);
	/* of the vendor's listed features, only DMABUF_FD (where memory can be mapped) */
	a->feature_flags1 = NEURON_DMABUF && neuron_mem_can_map(nf->nd) ?
			    NEURON_DRIVER_FEATURE_DMABUF : 0;
	return 0;
}

/* DEVICE_READY and DEVICE_RESET_STATUS: 1 while the device is ready */
static long vendor_ready(struct neuron_file *nf, void *karg)
{
	*(u8 *)karg = READ_ONCE(nf->nd->reset_state) == NEURON_DEVICE_STATE_READY;
	return 0;
}

static long vendor_retired(struct neuron_file *nf, void *karg)
{
	return 0;
}

static long vendor_queue_info(struct neuron_file *nf, void *karg)
{
	return -EOPNOTSUPP;
}

static long vendor_app_pid(struct neuron_file *nf, void *karg)
{
	*(s32 *)karg = neuron_apps_first_pid(nf->nd);
	return 0;
}

static long vendor_range_mark(struct neuron_file *nf, void *karg)
{
	/* the short and the EXT0 struct start alike; bitmap[0] is the short one's */
	struct neuron_ioctl_crwl_nc_map *a = karg;
	u64 map;
	u32 longest;
	long ret;

	ret = neuron_core_mark_range(nf, a->nc_count, a->start_nc_index, a->end_nc_index, &map,
				     &longest);
	a->max_nc_available = longest;
	a->bitmap = map;
	return ret;
}

static long vendor_range_mark_ext(struct neuron_file *nf, void *karg)
{
	struct neuron_ioctl_crwl_nc_map_ext *a = karg;

	/* the whole answer is the run found: the caller's bits go */
	memset(a->bitmap, 0, sizeof(a->bitmap));
	return vendor_range_mark(nf, karg);
}

static long vendor_range_unmark(struct neuron_file *nf, void *karg)
{
	struct neuron_ioctl_crwl_nc_map *a = karg;

	/* the device has at most 64 NeuronCores: bitmap[0] names them all */
	return neuron_core_unmark(nf, a->bitmap);
}

/* the NDS slab: NDS_ACQUIRE itself, on a struct of this driver's ABI */
static long vendor_ds_acquire(struct neuron_file *nf, void *karg)
{
	struct neuron_ioctl_neuron_ds_info *a = karg;
	struct neuron_nds_acquire ours = {
		.size = sizeof(ours),
		.pid = a->pid,
	};
	long ret;

	ret = neuron_nds_ioctl_acquire(nf, &ours);
	if (ret)
		return ret;
	memset(a, 0, sizeof(*a));
	a->mmap_offset = ours.mmap_offset;
	a->size = ours.mmap_size;
	return 0;
}

static long vendor_ds_release(struct neuron_file *nf, void *karg)
{
	struct neuron_ioctl_neuron_ds_info *a = karg;

	neuron_nds_release_own(nf, a->pid);
	return 0;
}

/*
 * READ_HW_COUNTERS: FW_READ's exchange, NEURON_FW_READ_MAX addresses at a
 * time. Without CAP_SYS_ADMIN only MiscRAM's identity words, read from
 * MiscRAM itself.
 */
static long vendor_read_hw_counters(struct neuron_file *nf, void *karg)
{
	struct neuron_ioctl_read_hw_counters *a = karg;
	struct neuron_device *nd = nf->nd;
	bool admin_needed = false;
	u32 *val, i, n, fw_arch;
	u64 *addr, base;
	long ret = 0;

	if (!a->count)
		return 0;
	if (a->count > NEURON_VENDOR_HW_READ_MAX)
		return -E2BIG;
	/* unlocked command: the backend's descriptor only while the device is there */
	down_read(&nd->gone_sem);
	if (nd->gone) {
		up_read(&nd->gone_sem);
		return -ENODEV;
	}
	fw_arch = nd->arch->fw_arch;
	up_read(&nd->gone_sem);
	base = neuron_fw_miscram_dev_addr(fw_arch);
	addr = kmalloc_array(a->count, sizeof(*addr), GFP_KERNEL);
	val = kcalloc(a->count, sizeof(*val), GFP_KERNEL);
	if (!addr || !val) {
		ret = -ENOMEM;
		goto out;
	}
	if (copy_from_user(addr, u64_to_user_ptr(a->address), a->count * sizeof(*addr))) {
		ret = -EFAULT;
		goto out;
	}
	for (i = 0; i < a->count; i++)
		if (!neuron_fw_identity_word(fw_arch, addr[i]))
			admin_needed = true;
	if (admin_needed && !capable(CAP_SYS_ADMIN)) {
		ret = -EPERM;
		goto out;
	}
	if (!admin_needed) {
		/*
		 * Only identity words: read where firmware would read them,
		 * MiscRAM, without a mailbox exchange, so that no caller
		 * can keep the mailbox from the metrics post and root's reads
		 */
		down_read(&nd->gone_sem);
		for (i = 0; i < a->count && !ret; i++) {
			if (nd->gone)
				ret = -ENODEV;
			else if (!neuron_misc_value(nd, (u32)(addr[i] - base), &val[i]))
				ret = -EIO;
		}
		up_read(&nd->gone_sem);
	}
	for (i = 0; admin_needed && i < a->count && !ret; i += n) {
		n = min_t(u32, a->count - i, NEURON_FW_READ_MAX);
		down_read(&nd->gone_sem);
		ret = nd->gone ? -ENODEV : neuron_fwio_read(nd, addr + i, n, val + i);
		up_read(&nd->gone_sem);
	}
	if (!ret && copy_to_user(u64_to_user_ptr(a->data), val, a->count * sizeof(*val)))
		ret = -EFAULT;
out:
	kfree(addr);
	kfree(val);
	return ret;
}

/*
 * POST_METRIC: the caller's blob posted to the firmware as it is, as the
 * metrics post does (POST_TO_CW). CAP_SYS_ADMIN only: it goes to the
 * device's telemetry under the device's name.
 */
static long vendor_post_metric(struct neuron_file *nf, void *karg)
{
	struct neuron_ioctl_post_metric *a = karg;
	struct neuron_device *nd = nf->nd;
	u8 blob[NEURON_FWIO_DATA_SIZE];
	long ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (!a->data_size)
		return -EINVAL;
	if (a->data_size > sizeof(blob))
		return -E2BIG;
	if (copy_from_user(blob, u64_to_user_ptr(a->data), a->data_size))
		return -EFAULT;
	down_read(&nd->gone_sem);
	ret = nd->gone ? -ENODEV : neuron_fwio_post_metric(nd, blob, a->data_size, NULL);
	up_read(&nd->gone_sem);
	return ret;
}

/*
 * The notification rings: this driver's rings of the vendor's kind (the
 * entries alone in the mapping), on NeuronCores only, in host memory.
 */
static int vendor_nq_check(u32 dev_type, u32 on_host)
{
	if (dev_type == NEURON_NQ_DEVICE_TYPE_TOPSP)
		return -EOPNOTSUPP;	/* no TOP_SP is modelled */
	if (dev_type != NEURON_NQ_DEVICE_TYPE_NEURON_CORE)
		return -EINVAL;
	return on_host ? 0 : -EOPNOTSUPP;	/* rings live in host memory only */
}

static long vendor_nq_init_v1(struct neuron_file *nf, void *karg)
{
	struct neuron_ioctl_notifications_init_v1 *a = karg;
	u64 handle;

	return neuron_nq_vendor_init(nf, a->nc_id, a->nq_type, a->engine_index, a->size, false,
				     &a->mmap_offset, &handle);
}

static long vendor_nq_init_v2(struct neuron_file *nf, void *karg)
{
	struct neuron_ioctl_notifications_init_v2 *a = karg;
	int ret = vendor_nq_check(a->nq_dev_type, a->on_host_memory);

	if (ret)
		return ret;
	return neuron_nq_vendor_init(nf, a->nq_dev_id, a->nq_type, a->engine_index, a->size,
				     false, &a->mmap_offset, &a->mem_handle);
}

static long vendor_nq_init_realloc(struct neuron_file *nf, void *karg)
{
	struct neuron_ioctl_notifications_init_with_realloc_v2 *a = karg;
	int ret = vendor_nq_check(a->nq_dev_type, a->on_host_memory);

	/* pad0 is implicit in the vendor's struct, which its callers leave unset: not read */
	if (ret)
		return ret;
	return neuron_nq_vendor_init(nf, a->nq_dev_id, a->nq_type, a->engine_index, a->size,
				     a->force_alloc_mem, &a->mmap_offset, &a->mem_handle);
}

/*
 * The resets run before the command returns; the request's id (the
 * caller's process id) and outcome wait in the file for NC_RESET_READY.
 */
static long vendor_reset_request(struct neuron_file *nf, u32 nc_map, u32 *id)
{
	bool failed = false;
	long ret;

	/* the request is the opener's: its record stays in the opener's file */
	if (task_tgid(current) != nf->tgid)
		return -EACCES;
	ret = neuron_device_nc_reset(nf, nc_map, &failed);
	if (ret)
		return ret;
	*id = task_tgid_vnr(current);
	atomic64_set(&nf->vendor_reset, (u64)*id << 2 | (u64)failed << 1 | 1);
	return 0;
}

static long vendor_device_reset(struct neuron_file *nf, void *karg)
{
	u32 id;

	return vendor_reset_request(nf, NEURON_RESET_MAP_DEVICE, &id);
}

static long vendor_nc_reset(struct neuron_file *nf, void *karg)
{
	struct neuron_ioctl_device_reset *a = karg;

	return vendor_reset_request(nf, a->nc_map, &a->request_id);
}

/* the outcome of this file's last request, once: -ENOENT for any other id */
static long vendor_nc_reset_ready(struct neuron_file *nf, void *karg)
{
	struct neuron_ioctl_device_ready *a = karg;
	s64 v = atomic64_read(&nf->vendor_reset);

	do {
		if (!(v & 1) || (u64)v >> 2 != a->request_id)
			return -ENOENT;
	} while (!atomic64_try_cmpxchg(&nf->vendor_reset, &v, 0));
	a->result = (v >> 1) & 1;
	return 0;
}

/*
 * DEVICE_GET_ALL_APPS_INFO: the header in the argument, the records after
 * it in the caller's buffer.
 */
static long vendor_apps_info(struct neuron_file *nf, void *karg, void __user *uarg)
{
	struct neuron_ioctl_get_apps_info *a = karg;
	struct neuron_ioctl_app_info *rec;
	u32 max = min_t(u32, a->capacity, NEURON_APP_INFO_MAX_APPS);
	int n;
	long ret = 0;

	if (a->apps_info_flags & ~NEURON_APP_INFO_ALL)
		return -EINVAL;
	rec = kcalloc(NEURON_APP_INFO_MAX_APPS, sizeof(*rec), GFP_KERNEL);
	if (!rec)
		return -ENOMEM;
	down_read(&nf->nd->gone_sem);
	n = nf->nd->gone ? -ENODEV :
	    neuron_apps_vendor_list(nf->nd, a->apps_info_flags, max, rec);
	up_read(&nf->nd->gone_sem);
	if (n < 0)
		ret = n;
	else if (copy_to_user(uarg + sizeof(*a), rec, n * sizeof(*rec)))
		ret = -EFAULT;
	else
		a->size = n;
	kfree(rec);
	return ret;
}

/* The largest argument (the EXT0 range mark) fits the dispatcher's buffer. */
#define NEURON_VENDOR_ARG_MAX	80
/* every size in the table, checked against the buffer at build time */
#define VSIZE(t)	\
	((u16)(sizeof(struct t) + BUILD_BUG_ON_ZERO(sizeof(struct t) > NEURON_VENDOR_ARG_MAX)))

static const struct neuron_vendor_cmd neuron_vendor_cmds[] = {
	{ NEURON_IOCTL_DEVICE_RESET, 0, 0, 0, vendor_device_reset },
	{ NEURON_IOCTL_DEVICE_READY, 0, 1, 0, vendor_ready },
	{ NEURON_IOCTL_DEVICE_RESET_STATUS, 0, 1, 0, vendor_ready },
	{ NEURON_IOCTL_DEVICE_INFO, 0, VSIZE(neuron_ioctl_device_info), 0, vendor_device_info },
	{ NEURON_IOCTL_DEVICE_INIT, 0, 0, 0, vendor_retired },
	{ NEURON_IOCTL_DEVICE_RELEASE, 0, 0, 0, vendor_retired },
	{ NEURON_IOCTL_NOTIFICATIONS_INIT_V1, VSIZE(neuron_ioctl_notifications_init_v1),
	  VSIZE(neuron_ioctl_notifications_init_v1), 0, vendor_nq_init_v1 },
	{ NEURON_IOCTL_NOTIFICATIONS_DESTROY_V1, 0, 0, 0, vendor_retired },
	{ NEURON_IOCTL_NOTIFICATIONS_INIT_V2, VSIZE(neuron_ioctl_notifications_init_v2),
	  VSIZE(neuron_ioctl_notifications_init_v2), 0, vendor_nq_init_v2 },
	{ NEURON_IOCTL_NOTIFICATIONS_INIT_WITH_REALLOC_V2,
	  VSIZE(neuron_ioctl_notifications_init_with_realloc_v2),
	  VSIZE(neuron_ioctl_notifications_init_with_realloc_v2), 0, vendor_nq_init_realloc },
	{ NEURON_IOCTL_NOTIFICATIONS_QUEUE_INFO, 0, 0, 0, vendor_queue_info },
	{ NEURON_IOCTL_DEVICE_APP_PID, 0, 4, 0, vendor_app_pid },
	{ NEURON_IOCTL_READ_HW_COUNTERS, VSIZE(neuron_ioctl_read_hw_counters), 0, V_UNLOCKED,
	  vendor_read_hw_counters },
	{ NEURON_IOCTL_POST_METRIC, VSIZE(neuron_ioctl_post_metric), 0, V_UNLOCKED,
	  vendor_post_metric },
	{ NEURON_IOCTL_ACQUIRE_NEURON_DS, VSIZE(neuron_ioctl_neuron_ds_info),
	  VSIZE(neuron_ioctl_neuron_ds_info), 0, vendor_ds_acquire },
	{ NEURON_IOCTL_RELEASE_NEURON_DS, VSIZE(neuron_ioctl_neuron_ds_info), 0, 0,
	  vendor_ds_release },
	{ NEURON_IOCTL_CRWL_NC_RANGE_MARK, VSIZE(neuron_ioctl_crwl_nc_map),
	  VSIZE(neuron_ioctl_crwl_nc_map), V_OUT_ON_BUSY, vendor_range_mark },
	{ NEURON_IOCTL_CRWL_NC_RANGE_MARK_EXT0, VSIZE(neuron_ioctl_crwl_nc_map_ext),
	  VSIZE(neuron_ioctl_crwl_nc_map_ext), V_OUT_ON_BUSY, vendor_range_mark_ext },
	{ NEURON_IOCTL_CRWL_NC_RANGE_UNMARK, VSIZE(neuron_ioctl_crwl_nc_map), 0, 0,
	  vendor_range_unmark },
	{ NEURON_IOCTL_CRWL_NC_RANGE_UNMARK_EXT0, VSIZE(neuron_ioctl_crwl_nc_map_ext), 0, 0,
	  vendor_range_unmark },
	{ NEURON_IOCTL_COMPATIBLE_VERSION, 0, VSIZE(neuron_ioctl_compatible_version), 0,
	  vendor_compatible_version },
	{ NEURON_IOCTL_DEVICE_BASIC_INFO, 0, VSIZE(neuron_ioctl_device_basic_info), 0,
	  vendor_basic_info },
	{ NEURON_IOCTL_DEVICE_BDF, 0, VSIZE(neuron_ioctl_device_bdf), 0, vendor_bdf },
	{ NEURON_IOCTL_NC_RESET, VSIZE(neuron_ioctl_device_reset), VSIZE(neuron_ioctl_device_reset),
	  0, vendor_nc_reset },
	{ NEURON_IOCTL_NC_RESET_READY, VSIZE(neuron_ioctl_device_ready),
	  VSIZE(neuron_ioctl_device_ready), 0, vendor_nc_reset_ready },
	{ NEURON_IOCTL_DEVICE_BDF_EXT, VSIZE(neuron_ioctl_device_bdf_ext),
	  VSIZE(neuron_ioctl_device_bdf_ext), V_UNLOCKED, vendor_bdf_ext },
	{ NEURON_IOCTL_HOST_DEVICE_ID, 0, VSIZE(neuron_ioctl_host_device_id), 0,
	  vendor_host_device_id },
	{ NEURON_IOCTL_DRIVER_INFO_GET, 0, VSIZE(neuron_ioctl_device_driver_info), 0,
	  vendor_driver_info },
	/* takes mmap_lock, which the mmap path holds while it takes gone_sem */
	{ NEURON_IOCTL_DMABUF_FD, VSIZE(neuron_ioctl_dmabuf_fd), 0, V_UNLOCKED, vendor_dmabuf_fd },
};


/* DEVICE_GET_ALL_APPS_INFO writes past its header: its own copies */
static long vendor_apps_entry(struct neuron_file *nf, void __user *uarg)
{
	struct neuron_ioctl_get_apps_info hdr;
	long ret;

	if (copy_from_user(&hdr, uarg, sizeof(hdr)))
		return -EFAULT;
	if (READ_ONCE(nf->nd->gone))
		return -ENODEV;
	ret = vendor_apps_info(nf, &hdr, uarg);
	if (!ret && copy_to_user(uarg, &hdr, sizeof(hdr)))
		ret = -EFAULT;
	return ret;
}

long neuron_vendor_ioctl(struct neuron_file *nf, unsigned int cmd, void __user *uarg)
{
	const struct neuron_vendor_cmd *d = NULL;
	u64 kbuf[NEURON_VENDOR_ARG_MAX / sizeof(u64)] = { 0 };
	long ret;
	size_t i;

	if (cmd == NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO)
		return vendor_apps_entry(nf, uarg);
	/*
	 * DRIVER_INFO is matched on its number, as the vendor does: a read of
	 * 24 bytes or more is GET (24 bytes copied), SET is not supported,
	 * any other encoding is -EINVAL.
	 */
	if (_IOC_NR(cmd) == _IOC_NR(NEURON_IOCTL_DRIVER_INFO_GET)) {
		if (cmd == NEURON_IOCTL_DRIVER_INFO_SET)
			return -EOPNOTSUPP;
		if (_IOC_DIR(cmd) != _IOC_READ ||
		    _IOC_SIZE(cmd) < sizeof(struct neuron_ioctl_device_driver_info))
			return -EINVAL;
		cmd = NEURON_IOCTL_DRIVER_INFO_GET;
	}
	for (i = 0; i < ARRAY_SIZE(neuron_vendor_cmds) && !d; i++)
		if (neuron_vendor_cmds[i].cmd == cmd)
			d = &neuron_vendor_cmds[i];
	if (!d)
		return -ENOTTY;

	if (d->in && copy_from_user(kbuf, uarg, d->in))
		return -EFAULT;
	ret = neuron_ioctl_call(nf, d->fn, kbuf, d->flags & V_UNLOCKED);
	if ((!ret || (ret == -EBUSY && (d->flags & V_OUT_ON_BUSY))) && d->out &&
	    copy_to_user(uarg, kbuf, d->out))
		ret = -EFAULT;
	return ret;
}
