// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated devices of the module: sim_devices=N of them, created at
 * load with sim_nc_per_device NeuronCores each, removed at unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": sim: " fmt

#include <linux/err.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>

#include "../neuron_backend.h"
#include "neuron_sim.h"

static struct neuron_uint_param sim_devices = { .value = 0, .min = 0, .max = 16 };
static struct neuron_uint_param sim_nc_per_device = {
	.value = 2, .min = 1, .max = NEURON_MAX_NC,
};

module_param_cb(sim_devices, &neuron_uint_range_ops, &sim_devices, 0444);
MODULE_PARM_DESC(sim_devices,
		 "Number of simulated Neuron devices to create (count, 0..16, default 0)");
module_param_cb(sim_nc_per_device, &neuron_uint_range_ops, &sim_nc_per_device, 0444);
MODULE_PARM_DESC(sim_nc_per_device,
		 "NeuronCores per simulated device (count, 1..8, default 2)");

static DEFINE_MUTEX(neuron_sim_lock);	/* protects neuron_sim_devs */
static LIST_HEAD(neuron_sim_devs);

int neuron_sim_init(void)
{
	struct neuron_sim_dev *sd;
	unsigned int i;

	for (i = 0; i < sim_devices.value; i++) {
		sd = neuron_sim_dev_create(i, sim_nc_per_device.value);
		if (IS_ERR(sd)) {
			neuron_sim_exit();
			return PTR_ERR(sd);
		}
		mutex_lock(&neuron_sim_lock);
		list_add_tail(&sd->node, &neuron_sim_devs);
		mutex_unlock(&neuron_sim_lock);
	}
	if (sim_devices.value)
		pr_info("%u simulated device%s, %u NeuronCores each\n", sim_devices.value,
			sim_devices.value == 1 ? "" : "s", sim_nc_per_device.value);
	return 0;
}

void neuron_sim_exit(void)
{
	struct neuron_sim_dev *sd;

	mutex_lock(&neuron_sim_lock);
	while (!list_empty(&neuron_sim_devs)) {
		/* newest first: the reverse of creation */
		sd = list_last_entry(&neuron_sim_devs, struct neuron_sim_dev, node);
		list_del(&sd->node);
		neuron_sim_dev_destroy(sd);
	}
	mutex_unlock(&neuron_sim_lock);
}
