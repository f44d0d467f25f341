// SPDX-License-Identifier: GPL-2.0
/*
 * neuron.ko: module entry points and the core's parameters. The module is
 * the driver core plus the backends built into it (neuron_backend.h), which
 * it starts and stops here; the simulator's parameters are its own
 * (sim/neuron_sim.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>

#include "neuron_backend.h"
#include "neuron_cdev.h"
#include "neuron_device.h"
#include "neuron_genl_priv.h"
#include "neuron_hwerr.h"
#include "neuron_log.h"
#include "neuron_main.h"

struct dentry *neuron_debugfs_root;

static int neuron_param_set(const char *val, const struct kernel_param *kp)
{
	struct neuron_uint_param *p = kp->arg;
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v < p->min || v > p->max) {
		/* rate-limited, and without the written text (neuron_log.h) */
		neuron_knob_pr_err("%s: expected an integer in %u..%u\n",
				   kp->name, p->min, p->max);
		return -EINVAL;
	}
	/* read with READ_ONCE() by exchanges and the metrics worker */
	WRITE_ONCE(p->value, v);
	return 0;
}

const struct kernel_param_ops neuron_uint_range_ops = {
	.set = neuron_param_set,
	.get = param_get_uint,
};

/*
 * FW-IO and metrics (neuron_fwio.c, neuron_metrics.c). Writable at run
 * time; read at the start of every exchange / when the next post is
 * scheduled. The two FW-IO parameters apply to lenient simulated devices
 * only: every other device follows its architecture's firmware contract
 * (common/neuron_fw_profile.c). There a fully hung firmware blocks a caller
 * for at most fwio_timeout_ms x fwio_retries (3 s by default).
 */
static struct neuron_uint_param fwio_timeout_ms = { .value = 1000, .min = 1, .max = 60000 };
static struct neuron_uint_param fwio_retries = { .value = 3, .min = 1, .max = 30 };
static struct neuron_uint_param nmetric_post_delay_ms = {
	.value = 150000, .min = 100, .max = 86400000,
};

module_param_cb(fwio_timeout_ms, &neuron_uint_range_ops, &fwio_timeout_ms, 0644);
MODULE_PARM_DESC(fwio_timeout_ms,
		 "FW-IO, lenient simulated devices: wait for one firmware answer (milliseconds, 1..60000, default 1000)");
module_param_cb(fwio_retries, &neuron_uint_range_ops, &fwio_retries, 0644);
MODULE_PARM_DESC(fwio_retries,
		 "FW-IO, lenient simulated devices: attempts per exchange, the first included (count, 1..30, default 3)");
module_param_cb(nmetric_post_delay_ms, &neuron_uint_range_ops, &nmetric_post_delay_ms, 0644);
MODULE_PARM_DESC(nmetric_post_delay_ms,
		 "Metrics post period (milliseconds, 100..86400000, default 150000)");

/*
 * Look like the vendor's driver: this driver's own ioctls answer -ENOTTY,
 * its generic netlink family is not registered and its extra sysfs files
 * are not created (docs/vendor-abi.md). The tools' vendor-driver paths are
 * tested with it. Read at load only.
 */
static bool vendor_only;
module_param(vendor_only, bool, 0444);
MODULE_PARM_DESC(vendor_only,
		 "Hide this driver's extensions: only the vendor's ioctls, no netlink family, no extra sysfs files (default 0)");

bool neuron_vendor_only(void)
{
	return vendor_only;
}

unsigned int neuron_param_fwio_timeout_ms(void)
{
	return READ_ONCE(fwio_timeout_ms.value);
}

unsigned int neuron_param_fwio_retries(void)
{
	return READ_ONCE(fwio_retries.value);
}

unsigned int neuron_param_nmetric_post_delay_ms(void)
{
	return READ_ONCE(nmetric_post_delay_ms.value);
}

#ifdef CONFIG_FAULT_INJECTION
/*
 * The loading task's fault-injection countdown (/proc/<pid>/fail-nth) when
 * init began. The failed-init test (tests/vm/vm_failinit.c) reads it from
 * debugfs to aim its failures at this module's init, past the module
 * loader's own allocations.
 */
static u32 neuron_init_fail_nth;
#endif

static int __init neuron_init(void)
{
	int ret;

#ifdef CONFIG_FAULT_INJECTION
	neuron_init_fail_nth = READ_ONCE(current->fail_nth);
#endif
	neuron_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
#ifdef CONFIG_FAULT_INJECTION
	debugfs_create_u32("init_fail_nth", 0400, neuron_debugfs_root, &neuron_init_fail_nth);
#endif

	ret = neuron_device_class_init();
	if (ret)
		goto err_debugfs;

	ret = neuron_genl_init();
	if (ret)
		goto err_class;

	ret = neuron_pci_init();
	if (ret)
		goto err_genl;

	ret = neuron_sim_init();
	if (ret)
		goto err_pci;

	/* nothing fails from here on: only now may files be opened */
	neuron_cdev_accept_opens();
	pr_info("version %s loaded%s\n", NEURON_DRIVER_VERSION,
		vendor_only ? " (vendor_only: extensions hidden)" : "");
	if (neuron_hwerr_sim_real())
		pr_warn("sim_hw_err_real=1: simulated devices log the real NEURON_HW_ERR tokens, which node remediation acts on (Node Problem Detector, the EKS node monitoring agent)\n");
	return 0;

err_pci:
	neuron_pci_exit();
err_genl:
	neuron_genl_exit();
err_class:
	neuron_device_class_exit();
err_debugfs:
	debugfs_remove_recursive(neuron_debugfs_root);
	pr_err("init failed: %d\n", ret);
	return ret;
}

static void __exit neuron_exit(void)
{
	neuron_sim_exit();
	neuron_pci_exit();
	neuron_genl_exit();
	neuron_device_class_exit();
	debugfs_remove_recursive(neuron_debugfs_root);
	pr_info("unloaded\n");
}

module_init(neuron_init);
module_exit(neuron_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Neuron device driver: error and telemetry path (clean-room)");
MODULE_VERSION(NEURON_DRIVER_VERSION);
