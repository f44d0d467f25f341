// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated firmware's power telemetry: every 20 ms it takes a sample
 * and writes it into both dice's POWER_UTIL words (MiscRAM 0x54, 0x58):
 * [15:0] the utilization in basis points, [31:16] a sample counter it
 * bumps with every sample, as the firmware does.
 *
 * Knob (root only): debugfs neuron<N>/power_util, the utilization the
 * samples report, basis points of max power, 0..10000 (default 0).
 *
 * Locking: none of its own: the utilization is one word (READ_ONCE), the
 * sample counter the worker's, MiscRAM has its own lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": sim: " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "../neuron_backend.h"
#include "neuron_miscram_reg.h"
#include "neuron_sim.h"

#define NEURON_SIM_POWER_PERIOD_MS	20
#define NEURON_SIM_POWER_MAX_BIPS	10000

/**
 * struct neuron_sim_power - one device's power telemetry
 * @sd:		the device
 * @work:	the sampler
 * @util:	what the samples report, basis points (knob)
 * @seq:	the sample counter (worker)
 * @stopping:	no requeue
 * @knob:	the debugfs file
 */
struct neuron_sim_power {
	struct neuron_sim_dev *sd;
	struct delayed_work work;
	u32 util;
	u16 seq;
	bool stopping;
	struct dentry *knob;
};

static void neuron_sim_power_work(struct work_struct *work)
{
	struct neuron_sim_power *p = container_of(to_delayed_work(work), struct neuron_sim_power,
						  work);
	u32 w;

	p->seq++;
	w = (u32)p->seq << 16 | READ_ONCE(p->util);
	neuron_sim_miscram_write(&p->sd->miscram, NEURON_MISCRAM_POWER(0), w);
	neuron_sim_miscram_write(&p->sd->miscram, NEURON_MISCRAM_POWER(1), w);
	if (!READ_ONCE(p->stopping))
		schedule_delayed_work(&p->work, msecs_to_jiffies(NEURON_SIM_POWER_PERIOD_MS));
}

static int neuron_sim_power_get(void *data, u64 *val)
{
	*val = READ_ONCE(((struct neuron_sim_power *)data)->util);
	return 0;
}

static int neuron_sim_power_set(void *data, u64 val)
{
	struct neuron_sim_power *p = data;

	if (val > NEURON_SIM_POWER_MAX_BIPS) {
		dev_err(neuron_device_dev(p->sd->nd),
			"power_util: expected basis points 0..%u\n", NEURON_SIM_POWER_MAX_BIPS);
		return -EINVAL;
	}
	WRITE_ONCE(p->util, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(neuron_sim_power_fops, neuron_sim_power_get, neuron_sim_power_set,
			 "%llu\n");

struct neuron_sim_power *neuron_sim_power_create(struct neuron_sim_dev *sd)
{
	struct neuron_sim_power *p;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return NULL;
	p->sd = sd;
	INIT_DELAYED_WORK(&p->work, neuron_sim_power_work);
	schedule_delayed_work(&p->work, msecs_to_jiffies(NEURON_SIM_POWER_PERIOD_MS));
	return p;
}

void neuron_sim_power_debugfs(struct neuron_sim_power *p, struct dentry *dir)
{
	p->knob = debugfs_create_file_unsafe("power_util", 0600, dir, p, &neuron_sim_power_fops);
}

void neuron_sim_power_debugfs_exit(struct neuron_sim_power *p)
{
	debugfs_remove(p->knob);
	p->knob = NULL;
}

void neuron_sim_power_destroy(struct neuron_sim_power *p)
{
	if (!p)
		return;
	WRITE_ONCE(p->stopping, true);
	cancel_delayed_work_sync(&p->work);
	kfree(p);
}
