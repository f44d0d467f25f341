// SPDX-License-Identifier: GPL-2.0
/*
 * One simulated Neuron device: its parts (MiscRAM, firmware emulator,
 * NeuronCore engine, fault knobs), the backend ops the core calls, and the
 * order they come and go in.
 *
 * Removal (neuron_sim_dev_destroy) runs in exact reverse order of creation,
 * with one step first: the NeuronCore engine stops, so a job sleeping in
 * an ioctl (a hung job waits up to a minute) ends with -ENODEV at once and
 * the core's removal, which waits for file operations in progress, is not
 * held up. A firmware exchange in flight is the core's to abort
 * (neuron_fwio_quiesce), and the firmware emulator stays until the core no
 * longer calls the ops.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": sim: " fmt

#include <linux/device.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/sysfs.h>
#include <linux/slab.h>

#include "../neuron_backend.h"
#include "neuron_fw_profile.h"
#include "neuron_miscram_reg.h"
#include "neuron_sim.h"
#include "neuron_sim_fw.h"

static u32 neuron_sim_misc_read(void *backend, u32 off)
{
	struct neuron_sim_dev *sd = backend;

	return neuron_sim_miscram_read(&sd->miscram, off);
}

static void neuron_sim_misc_write(void *backend, u32 off, u32 val)
{
	struct neuron_sim_dev *sd = backend;

	/* the doorbell: the firmware decides what a write of TRIGGER does */
	if (off == NEURON_MISCRAM_TRIGGER)
		neuron_sim_fw_trigger(sd->fw, val);
	else
		neuron_sim_miscram_write(&sd->miscram, off, val);
}

static void *neuron_sim_dma_alloc(void *backend, size_t size, u64 *dev_addr)
{
	struct neuron_sim_dev *sd = backend;

	return neuron_sim_fw_dma_alloc(sd->fw, size, dev_addr);
}

static void neuron_sim_dma_free(void *backend, size_t size, void *va, u64 dev_addr)
{
	struct neuron_sim_dev *sd = backend;

	neuron_sim_fw_dma_free(sd->fw, va);
}

/*
 * ops->reset: a full device reset. NeuronCores that took an uncorrectable
 * error work again; HBM contents are gone (the core holds no allocation:
 * no file is open). Armed faults are the tester's and stay armed. A
 * failure armed with inject/reset_fail fails it with -EIO, changing nothing.
 */
static int neuron_sim_reset(void *backend)
{
	struct neuron_sim_dev *sd = backend;

	if (neuron_sim_inject_take_reset(sd))
		return -EIO;
	neuron_sim_nc_reset(&sd->nc);
	neuron_sim_hbm_clear(&sd->hbm);
	return 0;
}

/*
 * ops->nc_reset: the NeuronCores of @nc_map that took an uncorrectable
 * error work again; HBM is untouched. inject/reset_fail fails it as it
 * fails a device reset.
 */
static int neuron_sim_nc_reset_op(void *backend, u32 nc_map)
{
	struct neuron_sim_dev *sd = backend;

	if (neuron_sim_inject_take_reset(sd))
		return -EIO;
	neuron_sim_nc_reset_map(&sd->nc, nc_map);
	return 0;
}

/* ops->nc_unrecoverable: inject/nc_unrecoverable until the next reset */
static bool neuron_sim_nc_unrecoverable(void *backend, u32 nc)
{
	struct neuron_sim_dev *sd = backend;

	return neuron_sim_nc_broken(&sd->nc, nc);
}

/* ops->stop: a failed creation ends the jobs its early openers started */
static void neuron_sim_stop(void *backend)
{
	struct neuron_sim_dev *sd = backend;

	neuron_sim_nc_stop(&sd->nc);
}

static int neuron_sim_op_create_fault(void *backend, u32 step)
{
	return neuron_sim_create_fault(backend, step);
}

static const struct neuron_backend_ops neuron_sim_ops = {
	.name = "sim",
	.kind = NEURON_BACKEND_SIM,
	.simulated = true,
	.instance_id = "sim",
	.misc_read = neuron_sim_misc_read,
	.misc_write = neuron_sim_misc_write,
	.dma_alloc = neuron_sim_dma_alloc,
	.dma_free = neuron_sim_dma_free,
	.exec = neuron_sim_nc_exec,
	.mem_size = neuron_sim_mem_size,
	.mem_read = neuron_sim_mem_read,
	.mem_write = neuron_sim_mem_write,
	.mem_set = neuron_sim_mem_set,
	.mem_page = neuron_sim_mem_page,
	.mem_unmap = neuron_sim_mem_unmap,
	.reset = neuron_sim_reset,
	.nc_reset = neuron_sim_nc_reset_op,
	.nc_unrecoverable = neuron_sim_nc_unrecoverable,
	.connected_devices = neuron_sim_topo_links,
	.stop = neuron_sim_stop,
	.create_fault = neuron_sim_op_create_fault,
};

/*
 * The simulated device presents itself like a v3 part (4 HBM channels,
 * repair state); fw_arch and fw_time_div are set per device (lenient or
 * strict firmware of an architecture).
 */
static const struct neuron_arch_desc neuron_sim_arch = {
	.arch_type = "NDsim",
	.nc_arch_type = "NCsim",
	.instance_type = "sim",
	.device_name = "SimulatedNeuron",
	.hbm_channels = NEURON_MISCRAM_HBM_CHANNELS,
	.has_repair_state = true,
	.fw_arch = NEURON_FW_ARCH_SIM,
};

static ssize_t nc_count_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", container_of(dev, struct neuron_sim_dev, dev)->nc_count);
}
static DEVICE_ATTR_RO(nc_count);

static ssize_t neuron_index_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", container_of(dev, struct neuron_sim_dev, dev)->index);
}
static DEVICE_ATTR_RO(neuron_index);

static struct attribute *neuron_sim_dev_attrs[] = {
	&dev_attr_nc_count.attr,
	&dev_attr_neuron_index.attr,
	NULL,
};
ATTRIBUTE_GROUPS(neuron_sim_dev);

static void neuron_sim_dev_release(struct device *dev)
{
	kfree(container_of(dev, struct neuron_sim_dev, dev));
}

struct neuron_sim_dev *neuron_sim_dev_create(u32 id, u32 nc_count, u32 fw_arch, u32 time_div)
{
	struct neuron_sim_dev *sd;
	struct neuron_device *nd;
	u64 reset_ms = 0;
	u32 rid, index;
	ktime_t start;
	int ret;

	sd = kzalloc(sizeof(*sd), GFP_KERNEL);
	if (!sd)
		return ERR_PTR(-ENOMEM);
	/* from here on the release callback frees sd */
	device_initialize(&sd->dev);
	sd->dev.bus = &neuron_sim_bus;
	sd->dev.groups = neuron_sim_dev_groups;
	sd->dev.release = neuron_sim_dev_release;
	sd->id = id;
	sd->nc_count = nc_count;
	sd->arch = neuron_sim_arch;
	sd->arch.fw_arch = fw_arch;
	sd->arch.fw_time_div = fw_arch == NEURON_FW_ARCH_SIM ? 0 : time_div;
	ret = dev_set_name(&sd->dev, "neuron_sim%u", id);
	if (ret)
		goto err_put;

	neuron_sim_miscram_init(&sd->miscram);
	neuron_sim_inject_init(sd);
	neuron_sim_nc_init(&sd->nc);
	neuron_sim_hbm_init(&sd->hbm);
	/* firmware before the device: the core may talk to it at once */
	sd->fw = neuron_sim_fw_create(sd);
	if (!sd->fw) {
		ret = -ENOMEM;
		goto err_nc;
	}
	sd->power = neuron_sim_power_create(sd);
	if (!sd->power) {
		ret = -ENOMEM;
		goto err_fw;
	}
	if (fw_arch == NEURON_FW_ARCH_SIM) {
		nd = neuron_device_create(&neuron_sim_ops, &sd->arch, sd, nc_count);
	} else {
		/* strict: the PCI probe's path, on simulated MiscRAM */
		ret = neuron_fw_wait_ready(&neuron_sim_ops, sd, time_div, &rid);
		if (!ret) {
			start = ktime_get();
			ret = neuron_fw_reset_device(&neuron_sim_ops, sd, fw_arch, time_div, 0);
			reset_ms = ktime_ms_delta(ktime_get(), start);
		}
		if (ret)
			goto err_fw;
		ret = neuron_fw_route_index(fw_arch == NEURON_FW_ARCH_V2 ? NEURON_FW_ROUTE_TRN1 :
					    NEURON_FW_ROUTE_TRN2, rid, 64, &index);
		if (ret)
			goto err_fw;
		nd = neuron_device_create_index(&neuron_sim_ops, &sd->arch, sd, nc_count, index,
						false);
		/* as the PCI probe's: the reset is a sample of metrics 50..55 */
		if (!IS_ERR(nd))
			neuron_device_probe_reset(nd, 0, reset_ms);
	}
	if (IS_ERR(nd)) {
		ret = PTR_ERR(nd);
		goto err_fw;
	}
	sd->nd = nd;
	sd->index = neuron_device_index(nd);
	neuron_sim_fw_debugfs(sd->fw, neuron_device_fw_debugfs(nd));
	neuron_sim_inject_debugfs(sd);
	neuron_sim_hbm_debugfs(&sd->hbm, neuron_device_debugfs(nd));
	neuron_sim_power_debugfs(sd->power, neuron_device_debugfs(nd));
	neuron_sim_topo_add(sd);

	/* last: the bus device appears complete, neuron_index included */
	ret = device_add(&sd->dev);
	if (ret)
		goto err_core;
	return sd;

err_core:
	neuron_sim_hbm_debugfs_exit(&sd->hbm);
	neuron_sim_topo_del(sd);
	neuron_sim_power_debugfs_exit(sd->power);
	neuron_sim_inject_exit(sd);
	neuron_sim_fw_debugfs_exit(sd->fw);
	neuron_sim_nc_stop(&sd->nc);
	neuron_device_destroy(nd);
	sd->nd = NULL;
err_fw:
	neuron_sim_power_destroy(sd->power);
	neuron_sim_fw_destroy(sd->fw);
err_nc:
	neuron_sim_hbm_destroy(&sd->hbm);
	neuron_sim_nc_destroy(&sd->nc);
err_put:
	put_device(&sd->dev);
	return ERR_PTR(ret);
}

void neuron_sim_dev_destroy(struct neuron_sim_dev *sd)
{
	device_del(&sd->dev);
	neuron_sim_hbm_debugfs_exit(&sd->hbm);
	neuron_sim_topo_del(sd);
	neuron_sim_power_debugfs_exit(sd->power);
	neuron_sim_inject_exit(sd);
	neuron_sim_fw_debugfs_exit(sd->fw);
	/* a job sleeping in an ioctl ends now: the core's removal waits for it */
	neuron_sim_nc_stop(&sd->nc);
	neuron_device_destroy(sd->nd);
	sd->nd = NULL;
	/* the core calls no op any more: the firmware can go */
	neuron_sim_power_destroy(sd->power);
	neuron_sim_fw_destroy(sd->fw);
	neuron_sim_hbm_destroy(&sd->hbm);
	neuron_sim_nc_destroy(&sd->nc);
	put_device(&sd->dev);
}
