// SPDX-License-Identifier: GPL-2.0
/*
 * The neuron_sim bus: simulated devices that come and go at run time, in
 * the style of netdevsim. Root writes to two bus files:
 *
 *   /sys/bus/neuron_sim/new_device   "<id> [nc_count [firmware]]"
 *       add device neuron_sim<id> (id 0..1023) with nc_count NeuronCores
 *       (1..8, default sim_nc_per_device). firmware "lenient" (default):
 *       the lenient simulated firmware, /dev/neuron<N> with the lowest free
 *       N; "v2", "v3", "v4": the strict firmware of that architecture
 *       (docs/fwio.md): the core follows that architecture's contract, the
 *       write waits for the firmware to be ready and N comes from the
 *       routing id (= id) through the architecture's map, as on PCI
 *       (devices/neuron_sim<id>/neuron_index)
 *   /sys/bus/neuron_sim/del_device   "<id>"
 *       remove it, whatever its files are doing (docs/ARCHITECTURE.md,
 *       "Removal"); returns once the device is gone from sysfs, debugfs
 *       and /dev. A lenient device's N is reused only once every file of
 *       it is closed; a strict one's (a routing id's) at once.
 *
 * Malformed input is -EINVAL with a log line giving the expected format;
 * an id in use is -EEXIST, an unknown one -ENOENT. Both files are mode 0200
 * and also need CAP_SYS_ADMIN (-EPERM). sim_devices=N at load adds ids
 * 0..N-1; unload removes every device left.
 *
 * A failed creation, on demand (root, debugfs):
 *
 *   /sys/kernel/debug/neuron/sim_create_fault   "sysfs" | "none"
 *       "sysfs": the next new_device fails (-ENOMEM) at the end of the
 *       core's sysfs setup, once a job runs on the new device (or after
 *       NEURON_SIM_CREATE_FAULT_WAIT_MS): the node is open to processes
 *       then, so a test proves what they see while the creation unwinds.
 *       One-shot; reads back what is armed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": sim: " fmt

#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

#include "../neuron_backend.h"
#include "../neuron_compat.h"
#include "../neuron_log.h"
#include "../neuron_main.h"
#include "neuron_fw_profile.h"
#include "neuron_parse.h"
#include "neuron_sim.h"

#define NEURON_SIM_MAX_ID	1023

/* how long an armed creation failure waits for a job on the new device */
#define NEURON_SIM_CREATE_FAULT_WAIT_MS	10000

/* sim_create_fault's words; the index is enum neuron_create_step + 1 */
static const char *const neuron_sim_create_fault_names[] = { "none", "sysfs" };

static struct neuron_uint_param sim_devices = { .value = 0, .min = 0, .max = 16 };
static struct neuron_uint_param sim_nc_per_device = {
	.value = 2, .min = 1, .max = NEURON_MAX_NC,
};

static struct neuron_uint_param sim_fw_time_div = { .value = 1, .min = 1, .max = 1000 };

module_param_cb(sim_devices, &neuron_uint_range_ops, &sim_devices, 0444);
MODULE_PARM_DESC(sim_devices,
		 "Number of simulated Neuron devices to create at load (count, 0..16, default 0)");
module_param_cb(sim_nc_per_device, &neuron_uint_range_ops, &sim_nc_per_device, 0444);
MODULE_PARM_DESC(sim_nc_per_device,
		 "NeuronCores per simulated device, unless new_device says (count, 1..8, default 2)");

module_param_cb(sim_fw_time_div, &neuron_uint_range_ops, &sim_fw_time_div, 0644);
MODULE_PARM_DESC(sim_fw_time_div,
		 "Strict simulated firmware: its times and the contract's timeouts divided by this, read at new_device (divisor, 1..1000, default 1 = real time)");

/* new_device's firmware word; the index is the enum neuron_fw_arch */
static const char *const neuron_sim_fw_names[NEURON_FW_ARCH_COUNT] = {
	"lenient", "v2", "v3", "v4",
};

/*
 * Serializes adding and removing devices: protects the list and @closing.
 * Held across a whole add or removal, which may wait (bounded) for the
 * file operations of the device in progress.
 */
static DEFINE_MUTEX(neuron_sim_lock);
static LIST_HEAD(neuron_sim_devs);
static bool neuron_sim_closing;	/* module unload: no new device */
/* armed creation failure: 0 none, else enum neuron_create_step + 1 */
static u32 neuron_sim_create_fault_armed;
static struct dentry *neuron_sim_create_fault_knob;

/*
 * ops->create_fault of a device being created (neuron_sim_add holds
 * neuron_sim_lock): fail the armed step once, after a job started on the
 * device (bounded wait).
 */
int neuron_sim_create_fault(struct neuron_sim_dev *sd, u32 step)
{
	lockdep_assert_held(&neuron_sim_lock);
	if (neuron_sim_create_fault_armed != step + 1)
		return 0;
	neuron_sim_create_fault_armed = 0;
	neuron_sim_nc_wait_job(&sd->nc, NEURON_SIM_CREATE_FAULT_WAIT_MS);
	return -ENOMEM;
}

static ssize_t create_fault_read(struct file *f, char __user *ubuf, size_t len, loff_t *pos)
{
	char buf[16];
	int n;

	mutex_lock(&neuron_sim_lock);
	n = scnprintf(buf, sizeof(buf), "%s\n",
		      neuron_sim_create_fault_names[neuron_sim_create_fault_armed]);
	mutex_unlock(&neuron_sim_lock);
	return simple_read_from_buffer(ubuf, len, pos, buf, n);
}

static ssize_t create_fault_write(struct file *f, const char __user *ubuf, size_t len,
				  loff_t *pos)
{
	struct neuron_tokens t;
	char buf[32];
	int w;

	if (len >= sizeof(buf))
		goto bad;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	if (neuron_tokenize(&t, buf, len) || t.count != 1)
		goto bad;
	w = neuron_parse_name(t.tok[0], neuron_sim_create_fault_names,
			      ARRAY_SIZE(neuron_sim_create_fault_names));
	if (w < 0)
		goto bad;
	mutex_lock(&neuron_sim_lock);
	neuron_sim_create_fault_armed = w;
	mutex_unlock(&neuron_sim_lock);
	return len;
bad:
	neuron_knob_pr_err("sim_create_fault: expected \"sysfs\" or \"none\"\n");
	return -EINVAL;
}

static const struct file_operations neuron_sim_create_fault_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = create_fault_read,
	.write = create_fault_write,
	.llseek = neuron_no_llseek,
};

static struct neuron_sim_dev *neuron_sim_find_locked(u32 id)
{
	struct neuron_sim_dev *sd;

	lockdep_assert_held(&neuron_sim_lock);
	list_for_each_entry(sd, &neuron_sim_devs, node)
		if (sd->id == id)
			return sd;
	return NULL;
}

static int neuron_sim_add(u32 id, u32 nc_count, u32 fw_arch)
{
	struct neuron_sim_dev *sd;
	int ret = 0;

	mutex_lock(&neuron_sim_lock);
	if (neuron_sim_closing) {
		ret = -ENODEV;
		goto out;
	}
	if (neuron_sim_find_locked(id)) {
		neuron_knob_pr_err("new_device: device %u already exists\n", id);
		ret = -EEXIST;
		goto out;
	}
	sd = neuron_sim_dev_create(id, nc_count, fw_arch, READ_ONCE(sim_fw_time_div.value));
	if (IS_ERR(sd)) {
		ret = PTR_ERR(sd);
		neuron_knob_pr_err("new_device: cannot create device %u: %pe\n", id, sd);
		goto out;
	}
	list_add_tail(&sd->node, &neuron_sim_devs);
out:
	mutex_unlock(&neuron_sim_lock);
	return ret;
}

static int neuron_sim_del(u32 id)
{
	struct neuron_sim_dev *sd;
	int ret = 0;

	mutex_lock(&neuron_sim_lock);
	sd = neuron_sim_closing ? NULL : neuron_sim_find_locked(id);
	if (!sd) {
		neuron_knob_pr_err("del_device: no device %u\n", id);
		ret = -ENOENT;
		goto out;
	}
	list_del(&sd->node);
	neuron_sim_dev_destroy(sd);
out:
	mutex_unlock(&neuron_sim_lock);
	return ret;
}

static ssize_t new_device_store(neuron_bus_attr_bus *bus, const char *buf, size_t count)
{
	u32 id, nc = sim_nc_per_device.value;
	struct neuron_tokens t;
	int ret, fw = NEURON_FW_ARCH_SIM;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = neuron_tokenize(&t, buf, count);
	if (!ret && t.count == 3)
		fw = neuron_parse_name(t.tok[2], neuron_sim_fw_names, NEURON_FW_ARCH_COUNT);
	if (ret || t.count < 1 || t.count > 3 || fw < 0 ||
	    neuron_parse_u32_range(t.tok[0], 0, NEURON_SIM_MAX_ID, &id) ||
	    (t.count >= 2 && neuron_parse_u32_range(t.tok[1], 1, NEURON_MAX_NC, &nc))) {
		neuron_knob_pr_err("new_device: expected \"<id 0..%u> [nc_count 1..%u [lenient|v2|v3|v4]]\"\n",
		       NEURON_SIM_MAX_ID, NEURON_MAX_NC);
		return -EINVAL;
	}
	ret = neuron_sim_add(id, nc, fw);
	return ret ? ret : count;
}
static BUS_ATTR_WO(new_device);

static ssize_t del_device_store(neuron_bus_attr_bus *bus, const char *buf, size_t count)
{
	struct neuron_tokens t;
	u32 id;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (neuron_tokenize(&t, buf, count) || t.count != 1 ||
	    neuron_parse_u32_range(t.tok[0], 0, NEURON_SIM_MAX_ID, &id)) {
		neuron_knob_pr_err("del_device: expected \"<id 0..%u>\"\n", NEURON_SIM_MAX_ID);
		return -EINVAL;
	}
	ret = neuron_sim_del(id);
	return ret ? ret : count;
}
static BUS_ATTR_WO(del_device);

static struct attribute *neuron_sim_bus_attrs[] = {
	&bus_attr_new_device.attr,
	&bus_attr_del_device.attr,
	NULL,
};
ATTRIBUTE_GROUPS(neuron_sim_bus);

struct bus_type neuron_sim_bus = {
	.name = "neuron_sim",
	.bus_groups = neuron_sim_bus_groups,
};

/* Remove every device, newest first; no new one after this. */
static void neuron_sim_del_all(void)
{
	struct neuron_sim_dev *sd;

	mutex_lock(&neuron_sim_lock);
	neuron_sim_closing = true;
	while (!list_empty(&neuron_sim_devs)) {
		sd = list_last_entry(&neuron_sim_devs, struct neuron_sim_dev, node);
		list_del(&sd->node);
		neuron_sim_dev_destroy(sd);
	}
	mutex_unlock(&neuron_sim_lock);
}

int neuron_sim_init(void)
{
	unsigned int i;
	int ret;

	ret = bus_register(&neuron_sim_bus);
	if (ret)
		return ret;
	neuron_sim_create_fault_knob = debugfs_create_file("sim_create_fault", 0600,
							   neuron_debugfs_root, NULL,
							   &neuron_sim_create_fault_fops);
	for (i = 0; i < sim_devices.value; i++) {
		ret = neuron_sim_add(i, sim_nc_per_device.value, NEURON_FW_ARCH_SIM);
		if (ret)
			goto err_del;
	}
	if (sim_devices.value)
		pr_info("%u simulated device%s, %u NeuronCores each\n", sim_devices.value,
			sim_devices.value == 1 ? "" : "s", sim_nc_per_device.value);
	return 0;

err_del:
	neuron_sim_del_all();
	debugfs_remove(neuron_sim_create_fault_knob);
	bus_unregister(&neuron_sim_bus);
	return ret;
}

void neuron_sim_exit(void)
{
	debugfs_remove(neuron_sim_create_fault_knob);
	neuron_sim_del_all();
	/* waits for new_device/del_device writers, who now get -ENODEV/-ENOENT */
	bus_unregister(&neuron_sim_bus);
}
