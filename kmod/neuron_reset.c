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
 * A failed reset leaves the device INVALID until a reset succeeds.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/sysfs.h>

#include "neuron_device.h"
#include "neuron_reset.h"

static ssize_t reset_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_neuron_device(dev)->reset_state));
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
	if (!list_empty(&nd->procs)) {
		ret = -EBUSY;
	} else {
		WRITE_ONCE(nd->reset_state, NEURON_DEVICE_STATE_RESET);
		ret = nd->ops->reset(nd->backend);
		WRITE_ONCE(nd->reset_state,
			   ret ? NEURON_DEVICE_STATE_INVALID : NEURON_DEVICE_STATE_READY);
		if (ret)
			dev_err(dev, "device reset failed: %d\n", ret);
		else
			dev_info(dev, "device reset\n");
	}
	mutex_unlock(&nd->procs_lock);
out:
	up_read(&nd->gone_sem);
	return ret ? ret : count;
}

DEVICE_ATTR_ADMIN_RW(reset);
