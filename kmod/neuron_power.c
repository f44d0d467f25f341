// SPDX-License-Identifier: GPL-2.0
/*
 * stats/power/utilization: the device's power utilization over the last
 * window, from the firmware's POWER_UTIL words (MiscRAM 0x54 + 4 * die:
 * [15:0] utilization in basis points of max power, [31:16] a sample
 * counter the firmware bumps with each new sample).
 *
 * Every power_sample_ms the sampler reads both dice (one, die 0, on v2:
 * Trn1 and Inf2, as the vendor's sampler does); a word whose counter
 * has not moved since the last read is a sample already taken and is
 * skipped, and the sample of an instant is the larger of the dice. Every
 * power_window_s the window is rolled up into the line the file shows,
 * as the vendor's file does:
 *
 *   <STATUS>,<unix seconds of the roll-up>,<min>,<max>,<avg>
 *
 * values in percent with two decimals; STATUS is POWER_STATUS_VALID with
 * at least power_min_samples samples in the window, POWER_STATUS_INVALID
 * with fewer, POWER_STATUS_NO_DATA with none (also before the first
 * roll-up, and with firmware API below 3, which has no power words).
 *
 * Locking: p->lock (spinlock) protects the published line's values; the
 * window being sampled is the sampler's own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "neuron_device.h"
#include "neuron_fw_profile.h"
#include "neuron_miscram_reg.h"
#include "neuron_power.h"
#include "neuron_reset.h"

#define NEURON_POWER_DICE		2
#define NEURON_POWER_MIN_API		3
#define NEURON_POWER_MAX_BIPS		10000

static struct neuron_uint_param power_sample_ms = { .value = 50, .min = 10, .max = 1000 };
static struct neuron_uint_param power_window_s = { .value = 60, .min = 1, .max = 3600 };
static struct neuron_uint_param power_min_samples = { .value = 60, .min = 1, .max = 360000 };

module_param_cb(power_sample_ms, &neuron_uint_range_ops, &power_sample_ms, 0644);
MODULE_PARM_DESC(power_sample_ms, "Power utilization sampling period (ms, 10..1000, default 50)");
module_param_cb(power_window_s, &neuron_uint_range_ops, &power_window_s, 0644);
MODULE_PARM_DESC(power_window_s,
		 "Power utilization roll-up window of stats/power/utilization (s, 1..3600, default 60)");
module_param_cb(power_min_samples, &neuron_uint_range_ops, &power_min_samples, 0644);
MODULE_PARM_DESC(power_min_samples,
		 "Samples a window needs to be POWER_STATUS_VALID (count, 1..360000, default 60)");

enum neuron_power_status {
	NEURON_POWER_NO_DATA,
	NEURON_POWER_VALID,
	NEURON_POWER_INVALID,
};

static const char *const neuron_power_status_names[] = {
	[NEURON_POWER_NO_DATA] = "POWER_STATUS_NO_DATA",
	[NEURON_POWER_VALID] = "POWER_STATUS_VALID",
	[NEURON_POWER_INVALID] = "POWER_STATUS_INVALID",
};

/**
 * struct neuron_power - one device's power sampling
 * @nd:		the device
 * @work:	the sampler
 * @lock:	protects @status .. @avg
 * @status:	of the last roll-up
 * @epoch_s:	wall-clock seconds of the last roll-up, 0 before the first
 * @min:	of the last roll-up, basis points
 * @max:	of the last roll-up, basis points
 * @avg:	of the last roll-up, basis points
 * @stopping:	the sampler does not requeue itself
 * @last_seq:	per die, the counter of the last sample taken (sampler)
 * @have_seq:	per die, @last_seq is valid (sampler)
 * @win_start:	monotonic start of the window being sampled (sampler)
 * @n:		samples in the window being sampled (sampler)
 * @wmin:	its smallest sample (sampler)
 * @wmax:	its largest sample (sampler)
 * @sum:	the sum of its samples (sampler)
 */
struct neuron_power {
	struct neuron_device *nd;
	struct delayed_work work;
	spinlock_t lock;
	enum neuron_power_status status;
	time64_t epoch_s;
	u32 min, max, avg;
	bool stopping;
	u16 last_seq[NEURON_POWER_DICE];
	bool have_seq[NEURON_POWER_DICE];
	ktime_t win_start;
	u32 n, wmin, wmax;
	u64 sum;
};

static void neuron_power_sample(struct neuron_power *p)
{
	struct neuron_device *nd = p->nd;
	/* v2 (Trn1, Inf2): one die's word, as the vendor reads it */
	u32 dice = nd->arch->fw_arch == NEURON_FW_ARCH_V2 ? 1 : NEURON_POWER_DICE;
	bool got = false;
	u32 api, die, util = 0;

	if (!neuron_misc_value(nd, NEURON_MISCRAM_API_VERSION, &api) || api < NEURON_POWER_MIN_API)
		return;
	for (die = 0; die < dice; die++) {
		u32 w;
		u16 seq;

		if (!neuron_misc_value(nd, NEURON_MISCRAM_POWER(die), &w))
			continue;
		seq = w >> 16;
		if (p->have_seq[die] && p->last_seq[die] == seq)
			continue;	/* the firmware has not sampled since */
		p->have_seq[die] = true;
		p->last_seq[die] = seq;
		util = max_t(u32, util, min_t(u32, w & 0xffff, NEURON_POWER_MAX_BIPS));
		got = true;
	}
	if (!got)
		return;
	p->wmin = p->n ? min(p->wmin, util) : util;
	p->wmax = p->n ? max(p->wmax, util) : util;
	p->sum += util;
	p->n++;
}

static void neuron_power_rollup(struct neuron_power *p)
{
	enum neuron_power_status st;
	unsigned long flags;

	if (!p->n)
		st = NEURON_POWER_NO_DATA;
	else if (p->n >= READ_ONCE(power_min_samples.value))
		st = NEURON_POWER_VALID;
	else
		st = NEURON_POWER_INVALID;
	spin_lock_irqsave(&p->lock, flags);
	p->status = st;
	p->epoch_s = ktime_get_real_seconds();
	p->min = p->n ? p->wmin : 0;
	p->max = p->n ? p->wmax : 0;
	p->avg = p->n ? div_u64(p->sum, p->n) : 0;
	spin_unlock_irqrestore(&p->lock, flags);
	p->n = 0;
	p->sum = 0;
	p->wmin = 0;
	p->wmax = 0;
}

static void neuron_power_work(struct work_struct *work)
{
	struct neuron_power *p = container_of(to_delayed_work(work), struct neuron_power, work);
	s64 window_ms = (s64)READ_ONCE(power_window_s.value) * MSEC_PER_SEC;

	/* a device whose reset did not complete: its words mean nothing */
	if (!neuron_device_invalid(p->nd))
		neuron_power_sample(p);
	if (ktime_ms_delta(ktime_get(), p->win_start) >= window_ms) {
		neuron_power_rollup(p);
		p->win_start = ktime_get();
	}
	if (!READ_ONCE(p->stopping))
		schedule_delayed_work(&p->work, msecs_to_jiffies(READ_ONCE(power_sample_ms.value)));
}

ssize_t neuron_power_show(struct neuron_device *nd, char *buf)
{
	/* pairs with neuron_power_init(): @p is seen initialised */
	struct neuron_power *p = smp_load_acquire(&nd->power);
	enum neuron_power_status st = NEURON_POWER_NO_DATA;
	u32 mn = 0, mx = 0, avg = 0;
	time64_t ts = 0;
	unsigned long flags;

	if (p) {
		spin_lock_irqsave(&p->lock, flags);
		st = p->status;
		ts = p->epoch_s;
		mn = p->min;
		mx = p->max;
		avg = p->avg;
		spin_unlock_irqrestore(&p->lock, flags);
	}
	return sysfs_emit(buf, "%s,%lld,%u.%02u,%u.%02u,%u.%02u\n", neuron_power_status_names[st],
			  (long long)ts, mn / 100, mn % 100, mx / 100, mx % 100, avg / 100, avg % 100);
}

ssize_t neuron_power_raw_show(struct neuron_device *nd, char *buf)
{
	u32 dice = nd->arch->fw_arch == NEURON_FW_ARCH_V2 ? 1 : NEURON_POWER_DICE;
	u32 api, die, w, util;
	ssize_t n = 0;

	/* a device whose reset did not complete: its words mean nothing */
	if (neuron_device_invalid(nd) ||
	    !neuron_misc_value(nd, NEURON_MISCRAM_API_VERSION, &api) || api < NEURON_POWER_MIN_API)
		return sysfs_emit(buf, "%s\n", neuron_power_status_names[NEURON_POWER_NO_DATA]);
	for (die = 0; die < dice; die++) {
		util = neuron_misc_value(nd, NEURON_MISCRAM_POWER(die), &w) ?
		       min_t(u32, w & 0xffff, NEURON_POWER_MAX_BIPS) : 0;
		n += sysfs_emit_at(buf, n, "%s%u.%02u", die ? "," : "", util / 100, util % 100);
	}
	return n + sysfs_emit_at(buf, n, "\n");
}

int neuron_power_init(struct neuron_device *nd)
{
	struct neuron_power *p;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->nd = nd;
	spin_lock_init(&p->lock);
	INIT_DELAYED_WORK(&p->work, neuron_power_work);
	p->win_start = ktime_get();
	/* the device is visible already: publish @p initialised */
	smp_store_release(&nd->power, p);
	schedule_delayed_work(&p->work, msecs_to_jiffies(READ_ONCE(power_sample_ms.value)));
	return 0;
}

void neuron_power_stop(struct neuron_device *nd)
{
	if (!nd->power)
		return;
	WRITE_ONCE(nd->power->stopping, true);
	cancel_delayed_work_sync(&nd->power->work);
}

void neuron_power_free(struct neuron_device *nd)
{
	kfree(nd->power);
	nd->power = NULL;
}
