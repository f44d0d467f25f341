// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/devices/virtual/neuron_device/neuron<N>/reset, mode 0600, as the
 * vendor driver has it (facts: fwio-nq-cdev-dkms 3.5, 3.9):
 *
 *   read:  the device state, 0 RESET, 1 READY, 2 INVALID
 *   write: anything resets the whole device, only while no process has
 *          it open (-EBUSY otherwise: nothing is reset)
 *
 * The backend does the reset (ops->reset; without one the write is
 * -EOPNOTSUPP). On a simulated device every NeuronCore that took an
 * uncorrectable error is usable again and the HBM contents are discarded;
 * the reset completes before the write returns. What a vendor reset frees
 * besides (the NeuronCores' notification rings, device memory) a process
 * holds here only while it has the device open, and everything it held
 * went with its last close, so with no process attached there is nothing
 * left to free. The lock that keeps opens out is procs_lock (an open
 * attaches its process under it): an open during a reset waits for it.
 * A failed reset leaves the device INVALID until a reset succeeds; so
 * does a PCI device whose reset at probe did not complete (the vendor
 * keeps such a device registered, INVALID). While INVALID an open of the
 * device fails with -EINVAL, as the vendor's does, its sysfs tree stays
 * readable, and nothing talks to its firmware: FW-IO exchanges fail with
 * -EIO, and the ECC poll, the power sampling and the metrics post skip
 * it. .../neuron<N>/state reads the state as a word: ready, reset or
 * invalid.
 *
 * A completed reset is the new baseline of the device's health
 * (neuron_health.c: ECC counts, firmware silence), and the reset's outcome
 * is reported as a health change before the write returns.
 *
 * Every reset, the probe's included, counts in each NeuronCore's
 * other_info/reset_req_count
 * (+1 on all NEURON_MAX_NC slots: a whole-device request covers them all,
 * as the vendor's does), a failed one in reset_fail_count (+1 on every
 * NeuronCore of the device). A refused write (EBUSY) is no request.
 *
 * Every device reset that ran, here or at probe, is also a sample of the
 * driver metrics the metrics post sends (CW 50..55, docs/fwio.md): its
 * duration when it completed, a failure when it did not.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/device.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sysfs.h>

#include "neuron_core.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_fwio.h"
#include "neuron_mem.h"
#include "neuron_reset.h"

/*
 * +1 into {total, present} (present: the last change, as for every counter)
 * of each NeuronCore slot of @map in reset_fail_count (@fail) or
 * reset_req_count.
 */
static void reset_count(struct neuron_device *nd, bool fail, u32 map)
{
	u64 (*cells)[2] = fail ? nd->resets.fail : nd->resets.req;
	u32 nc;

	spin_lock(&nd->resets.count_lock);
	for (nc = 0; nc < NEURON_MAX_NC; nc++) {
		if (map & BIT(nc)) {
			cells[nc][0]++;
			cells[nc][1] = 1;
		}
	}
	spin_unlock(&nd->resets.count_lock);
}

/* every slot: a whole-device request counts on all of them, as the vendor's */
#define RESET_ALL_SLOTS		GENMASK(NEURON_MAX_NC - 1, 0)
/* the NeuronCores the device has: a whole-device failure counts on them */
#define RESET_DEVICE_NCS(nd)	GENMASK((nd)->nc_count - 1, 0)

u64 neuron_reset_counter(struct neuron_device *nd, s32 nc, const char *name, bool total,
			 bool clear)
{
	bool fail = !strcmp(name, "reset_fail_count");
	u64 *cell, v;

	if (nc < 0 || nc >= NEURON_MAX_NC)
		return 0;
	spin_lock(&nd->resets.count_lock);
	cell = &(fail ? nd->resets.fail : nd->resets.req)[nc][total ? 0 : 1];
	v = *cell;
	if (clear)
		*cell = 0;
	spin_unlock(&nd->resets.count_lock);
	return v;
}

void neuron_reset_record(struct neuron_device *nd, u32 kind, int ret, u64 ms)
{
	struct neuron_metric_reset_window *w;

	if (kind >= NEURON_METRIC_RESET_KINDS)
		return;
	spin_lock(&nd->resets.window_lock);
	w = &nd->resets.window[kind];
	if (ret)
		neuron_metric_reset_failure(w);
	else
		neuron_metric_reset_sample(w, ms);
	spin_unlock(&nd->resets.window_lock);
}

/*
 * The reset a backend ran before the device existed (PCI probe, a strict
 * simulated device's creation) counts like any other, as the vendor's
 * probe reset does: reset_req_count reads 1 on every NeuronCore after it.
 */
void neuron_device_probe_reset(struct neuron_device *nd, int ret, u64 ms)
{
	reset_count(nd, false, RESET_ALL_SLOTS);
	if (ret)
		reset_count(nd, true, RESET_DEVICE_NCS(nd));
	neuron_reset_record(nd, NEURON_METRIC_RESET_DEV, ret, ms);
}

void neuron_reset_take_window(struct neuron_device *nd,
			      struct neuron_metric_reset_window w[NEURON_METRIC_RESET_KINDS])
{
	u32 k;

	spin_lock(&nd->resets.window_lock);
	for (k = 0; k < NEURON_METRIC_RESET_KINDS; k++) {
		neuron_metric_reset_merge(&w[k], &nd->resets.window[k]);
		memset(&nd->resets.window[k], 0, sizeof(nd->resets.window[k]));
	}
	spin_unlock(&nd->resets.window_lock);
}

static ssize_t reset_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_neuron_device(dev)->reset_state));
}

/*
 * A whole-device reset through the backend: 0 or its error (the device
 * is INVALID then). Caller holds procs_lock and checked that nothing of
 * another process can be lost (no other process has the device open).
 */
static int device_reset_locked(struct neuron_device *nd)
{
	ktime_t start;
	int ret;

	lockdep_assert_held(&nd->procs_lock);
	/* no exchange may be in flight when the reset rings the doorbell */
	ret = neuron_fwio_reset_lock(nd);
	if (ret)
		return ret;
	WRITE_ONCE(nd->reset_state, NEURON_DEVICE_STATE_RESET);
	reset_count(nd, false, RESET_ALL_SLOTS);
	start = ktime_get();
	ret = nd->ops->reset(nd->backend);
	neuron_fwio_reset_unlock(nd);
	/* -ENODEV: the device's removal began, which ends the wait; no failure of its own */
	if (ret != -ENODEV)
		neuron_reset_record(nd, NEURON_METRIC_RESET_DEV, ret,
				    ktime_ms_delta(ktime_get(), start));
	if (ret && ret != -ENODEV)
		reset_count(nd, true, RESET_DEVICE_NCS(nd));
	/* before READY: the health never reads the old counts as new */
	if (!ret)
		neuron_health_rebase(nd);
	WRITE_ONCE(nd->reset_state, ret ? NEURON_DEVICE_STATE_INVALID : NEURON_DEVICE_STATE_READY);
	if (ret == -ENODEV)
		dev_info(&nd->dev, "device reset ended: the device is being removed\n");
	else if (ret)
		dev_err(&nd->dev, "device reset failed: %d\n", ret);
	else
		dev_info(&nd->dev, "device reset\n");
	return ret;
}

/* True when no process but @tgid (NULL: none) has the device open. Caller holds procs_lock. */
static bool procs_only(struct neuron_device *nd, struct pid *tgid)
{
	struct neuron_proc *p;

	lockdep_assert_held(&nd->procs_lock);
	list_for_each_entry(p, &nd->procs, node)
		if (p->tgid != tgid)
			return false;
	return true;
}

static ssize_t reset_store(struct device *dev, struct device_attribute *attr, const char *buf,
			   size_t count)
{
	struct neuron_device *nd = to_neuron_device(dev);
	int ret = 0;

	down_read(&nd->gone_sem);
	if (nd->gone) {
		ret = -ENODEV;
		goto out;
	}
	if (!nd->ops->reset) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	mutex_lock(&nd->procs_lock);
	/* no process has it open, and no dma-buf holds its memory */
	if (procs_only(nd, NULL) && neuron_mem_hold_maps(nd)) {
		ret = device_reset_locked(nd);
		neuron_mem_release_maps(nd);
	} else {
		ret = -EBUSY;
	}
	mutex_unlock(&nd->procs_lock);
	/* the reset's outcome is a health change: reported now, not at the next poll */
	if (ret != -EBUSY && ret != -ENODEV)
		neuron_health_check(nd);
out:
	up_read(&nd->gone_sem);
	return ret ? ret : count;
}

int neuron_device_nc_reset(struct neuron_file *nf, u32 nc_map, bool *failed)
{
	struct neuron_device *nd = nf->nd;
	struct pid *tgid = nf->tgid;
	u32 map = nc_map;
	ktime_t start;
	int ret, rc;

	if (nc_map == NEURON_RESET_MAP_DEVICE) {
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		if (!nd->ops->reset)
			return -EOPNOTSUPP;
		mutex_lock(&nd->procs_lock);
		/*
		 * Nothing of another process may be lost, and no page of device
		 * memory may be mapped, before or during the reset (the caller's
		 * other threads may mmap): the reset discards device memory
		 */
		if (!procs_only(nd, tgid) || !neuron_mem_hold_maps(nd)) {
			ret = -EBUSY;
		} else {
			/* the caller's rings go, as the vendor's reset frees them */
			map = RESET_DEVICE_NCS(nd);
			ret = neuron_core_reset_rings(nf, &map, true);
			if (!ret) {
				rc = device_reset_locked(nd);
				/* killed, or removal began, before the reset ran */
				if (rc == -EINTR || rc == -ENODEV)
					ret = rc;
				*failed = rc != 0;
			}
			neuron_mem_release_maps(nd);
		}
		mutex_unlock(&nd->procs_lock);
		goto out;
	}

	if (!nc_map || (nc_map & ~RESET_DEVICE_NCS(nd)))
		return -EINVAL;
	if (!nd->ops->nc_reset)
		return -EOPNOTSUPP;
	/* NeuronCores of a device that is not ready: a device reset first */
	if (READ_ONCE(nd->reset_state) != NEURON_DEVICE_STATE_READY)
		return -EIO;
	/*
	 * The checks, the rings and the request counts under procs_lock (the
	 * caller's last close cannot release the cores meanwhile); the
	 * backend's reset, which may take the firmware minutes, outside it:
	 * opens and closes of the device never wait for it. Two resets, and a
	 * reset and an exchange, are serialized by the mailbox's lock.
	 */
	mutex_lock(&nd->procs_lock);
	ret = neuron_core_reset_rings(nf, &map, false);
	if (!ret)
		reset_count(nd, false, nc_map);
	mutex_unlock(&nd->procs_lock);
	if (ret)
		return ret;
	rc = neuron_fwio_reset_lock(nd);
	if (!rc) {
		start = ktime_get();
		rc = nd->ops->nc_reset(nd->backend, nc_map);
		neuron_fwio_reset_unlock(nd);
		neuron_reset_record(nd, NEURON_METRIC_RESET_NC, rc,
				    ktime_ms_delta(ktime_get(), start));
	}
	if (rc) {
		reset_count(nd, true, nc_map);
		dev_err(&nd->dev, "NeuronCore reset of 0x%x failed: %d\n", nc_map, rc);
	} else {
		dev_info(&nd->dev, "NeuronCore reset of 0x%x\n", nc_map);
	}
	*failed = rc != 0;
out:
	/* a NeuronCore usable again is a health change, reported now */
	if (!ret)
		neuron_health_check(nd);
	return ret;
}

DEVICE_ATTR_ADMIN_RW(reset);

bool neuron_device_invalid(const struct neuron_device *nd)
{
	return READ_ONCE(nd->reset_state) == NEURON_DEVICE_STATE_INVALID;
}

static ssize_t state_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	static const char * const names[] = {
		[NEURON_DEVICE_STATE_RESET] = "reset",
		[NEURON_DEVICE_STATE_READY] = "ready",
		[NEURON_DEVICE_STATE_INVALID] = "invalid",
	};
	u32 s = READ_ONCE(to_neuron_device(dev)->reset_state);

	return sysfs_emit(buf, "%s\n", s < ARRAY_SIZE(names) ? names[s] : "unknown");
}
DEVICE_ATTR_RO(state);
