// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated Neuron devices (sim_devices=N): the backend every test and the
 * demo run on. Implements the same ops table as the PCI backend.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": sim: " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/slab.h>

#include "../neuron.h"
#include "neuron_sim.h"
#include "neuron_sim_fw.h"

static struct neuron_sim_dev *neuron_sim_devs[16];
static unsigned int neuron_sim_count;

static u32 neuron_sim_misc_read(struct neuron_device *nd, u32 off)
{
	struct neuron_sim_dev *sd = nd->backend;
	unsigned long flags;
	u32 val;

	if (off >= NEURON_SIM_MISCRAM_SIZE || (off & 3))
		return 0xDEADBEEF;
	spin_lock_irqsave(&sd->lock, flags);
	val = sd->miscram[off / 4];
	spin_unlock_irqrestore(&sd->lock, flags);
	return val;
}

static void neuron_sim_misc_write(struct neuron_device *nd, u32 off, u32 val)
{
	struct neuron_sim_dev *sd = nd->backend;
	unsigned long flags;

	if (off >= NEURON_SIM_MISCRAM_SIZE || (off & 3))
		return;
	spin_lock_irqsave(&sd->lock, flags);
	sd->miscram[off / 4] = val;
	spin_unlock_irqrestore(&sd->lock, flags);
}

/*
 * debugfs neuron<N>/warn (root only): writing 1 raises a kernel warning on
 * purpose, so the test harness can prove that its kernel-log scan fails a
 * run that warned (scripts/harness-selftest.sh). Anything else is -EINVAL.
 */
static int neuron_sim_warn_set(void *data, u64 val)
{
	struct neuron_device *nd = data;

	if (val != 1)
		return -EINVAL;
	dev_warn(&nd->dev, "raising a deliberate warning (debugfs warn)\n");
	WARN(1, "neuron: deliberate warning from debugfs (harness self-test)\n");
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(neuron_sim_warn_fops, NULL, neuron_sim_warn_set, "%llu\n");

static const struct neuron_backend_ops neuron_sim_ops = {
	.name = "sim",
	.kind = NEURON_BACKEND_SIM,
	.misc_read = neuron_sim_misc_read,
	.misc_write = neuron_sim_misc_write,
	.fw_doorbell = neuron_sim_fw_doorbell,
};

/* The simulated device presents itself like a v3 part (4 HBM channels, repair state). */
static const struct neuron_arch_desc neuron_sim_arch = {
	.arch_type = "NDsim",
	.nc_arch_type = "NCsim",
	.instance_type = "sim",
	.device_name = "SimulatedNeuron",
	.hbm_channels = 4,
	.has_repair_state = true,
};

static void neuron_sim_dev_destroy(struct neuron_sim_dev *sd)
{
	neuron_device_destroy(sd->nd);
	neuron_sim_fw_destroy(sd->fw);
	kfree(sd);
}

int neuron_sim_init(unsigned int devices, unsigned int nc_per_device)
{
	unsigned int i;
	int ret;

	if (devices > ARRAY_SIZE(neuron_sim_devs))
		return -EINVAL;

	for (i = 0; i < devices; i++) {
		struct neuron_sim_dev *sd;
		struct neuron_device *nd;

		sd = kzalloc(sizeof(*sd), GFP_KERNEL);
		if (!sd) {
			ret = -ENOMEM;
			goto err_unwind;
		}
		spin_lock_init(&sd->lock);
		/* firmware first: the device's FW-IO users may talk to it at once */
		sd->fw = neuron_sim_fw_create(sd, i);
		if (!sd->fw) {
			ret = -ENOMEM;
			kfree(sd);
			goto err_unwind;
		}
		nd = neuron_device_create(&neuron_sim_ops, &neuron_sim_arch, sd, nc_per_device);
		if (IS_ERR(nd)) {
			ret = PTR_ERR(nd);
			neuron_sim_fw_destroy(sd->fw);
			kfree(sd);
			goto err_unwind;
		}
		sd->nd = nd;
		neuron_sim_fw_debugfs(sd->fw, nd);
		debugfs_create_file_unsafe("warn", 0200, nd->debugfs, nd, &neuron_sim_warn_fops);
		neuron_sim_devs[i] = sd;
		neuron_sim_count = i + 1;
	}
	return 0;

err_unwind:
	neuron_sim_exit();
	return ret;
}

void neuron_sim_exit(void)
{
	while (neuron_sim_count) {
		neuron_sim_count--;
		neuron_sim_dev_destroy(neuron_sim_devs[neuron_sim_count]);
		neuron_sim_devs[neuron_sim_count] = NULL;
	}
}
