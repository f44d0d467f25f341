// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated NeuronCore: synthetic jobs and the faults they hit.
 *
 * A job (NEURON_IOCTL_SIM_EXEC) reserves its NeuronCore for the caller,
 * runs for the requested time, writes every fault armed on that core into
 * the core's ERROR ring (NQ type ERROR, engine 0) and completes; a job armed
 * to hang instead waits out the caller's timeout and fails with -ETIMEDOUT.
 *
 * Faults are armed through debugfs (root only) and wait for the next job on
 * that core; they never fire on their own. Within a job they are written in
 * this order: flood fillers, TPB errors (by type), hardware faults (by kind).
 *
 *   inject/tpb_error  "<nc> <type> [count]"   type 0..10 or its name
 *   inject/hw_error   "<nc> <collectives|hbm_ue|nc_ue|dma_abort|repairable_hbm_ue> [count]"
 *   inject/nq_flood   "<nc> <entries>"         filler entries (FP_UNDERFLOW)
 *   inject/hang       "<nc>"
 *   inject/armed      (read) what is armed, one core per line
 *
 * count defaults to 1 and is at most 65536; a flood is at most 1048576.
 * Malformed input: -EINVAL and one dmesg line with the expected format.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": sim: " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include <neuron/neuron_genl.h>

#include "../neuron.h"
#include "../neuron_compat.h"
#include "neuron_abi.h"
#include "../neuron_genl.h"
#include "../neuron_nq.h"
#include "neuron_parse.h"

#define SIM_MAX_COUNT	65536
#define SIM_MAX_FLOOD	(1U << 20)

static const char *const tpb_names[NEURON_TPB_ERROR_COUNT] = {
	"FP_UNDERFLOW", "FP_NAN", "FP_INF", "FP_OVERFLOW", "MEMORY_ERROR", "FAKE_ERROR",
	"SEMAPHORE_ERROR", "EVENT_ERROR", "PSUM_COLLISION", "SEQUENCER_NONFATAL",
	"SEQUENCER_FATAL",
};

static const char *const hw_names[NEURON_NQ_HW_COUNT] = {
	NULL, "collectives", "hbm_ue", "nc_ue", "dma_abort", "repairable_hbm_ue",
};

/*
 * Sleep @us microseconds, interruptibly. 0 when the time passed,
 * -EINTR on a signal.
 */
static int sim_sleep_us(u64 us)
{
	ktime_t end = ktime_add_us(ktime_get(), us);

	while (ktime_before(ktime_get(), end)) {
		s64 left = ktime_us_delta(end, ktime_get());

		if (signal_pending(current))
			return -EINTR;
		if (left > 20000)
			schedule_timeout_interruptible(usecs_to_jiffies(left));
		else if (left > 0)
			usleep_range(left, left + 50);
	}
	return signal_pending(current) ? -EINTR : 0;
}

static void sim_entry(struct neuron_nq_entry *e, u8 type, u8 id)
{
	memset(e, 0, sizeof(*e));
	e->error_id = id;
	e->header = type;
	e->timestamp_ps = ktime_get_ns() * 1000;
}

/* Write the armed faults of @nc (and disarm them). Caller holds nq->lock. */
static void sim_emit_faults(struct neuron_device *nd, u32 nc, struct neuron_core *armed,
			    u32 *written, u32 *dropped)
{
	struct neuron_nq_entry e;
	u32 i, k;

	for (k = 0; k < armed->flood; k++) {
		sim_entry(&e, NEURON_NQ_NOTIFIC_TPB_ERROR, NEURON_TPB_ERROR_FP_UNDERFLOW);
		if (neuron_nq_emit_locked(nd, nc, NEURON_NQ_TYPE_ERROR, 0, &e))
			(*dropped)++;
		else
			(*written)++;
	}
	for (i = 0; i < NEURON_TPB_ERROR_COUNT; i++)
		for (k = 0; k < armed->tpb[i]; k++) {
			sim_entry(&e, NEURON_NQ_NOTIFIC_TPB_ERROR, i);
			if (neuron_nq_emit_locked(nd, nc, NEURON_NQ_TYPE_ERROR, 0, &e))
				(*dropped)++;
			else
				(*written)++;
		}
	for (i = 1; i < NEURON_NQ_HW_COUNT; i++)
		for (k = 0; k < armed->hw[i]; k++) {
			sim_entry(&e, NEURON_NQ_NOTIFIC_ERROR, i);
			if (neuron_nq_emit_locked(nd, nc, NEURON_NQ_TYPE_ERROR, 0, &e))
				(*dropped)++;
			else
				(*written)++;
		}
}

/* One "errors" notification per fault kind the job wrote; no lock held. */
static void sim_notify_faults(struct neuron_device *nd, u32 nc, const struct neuron_core *armed)
{
	u32 i;

	neuron_genl_error_event(nd, nc, NEURON_GENL_EVENT_NQ_FLOOD,
				NEURON_TPB_ERROR_FP_UNDERFLOW, armed->flood);
	for (i = 0; i < NEURON_TPB_ERROR_COUNT; i++)
		neuron_genl_error_event(nd, nc, NEURON_GENL_EVENT_TPB_ERROR, i, armed->tpb[i]);
	for (i = 1; i < NEURON_NQ_HW_COUNT; i++)
		neuron_genl_error_event(nd, nc, NEURON_GENL_EVENT_HW_ERROR, i, armed->hw[i]);
}

long neuron_sim_ioctl_exec(struct neuron_file *nf, void __user *uarg)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_nq_dev *nqd = nd->nq;
	struct neuron_sim_exec arg;
	struct neuron_core *core, armed;
	u32 written = 0, dropped = 0;
	u64 timeout;
	int ret;

	ret = neuron_ioctl_copy_in(&arg, uarg, sizeof(arg), 0);
	if (ret)
		return ret;
	if (arg.reserved0 || arg.entries || arg.dropped ||
	    !neuron_abi_all_zero(arg.reserved, sizeof(arg.reserved)))
		return -EINVAL;
	if (arg.nc >= nd->nc_count || arg.duration_us > NEURON_EXEC_MAX_DURATION_US ||
	    arg.timeout_us > NEURON_EXEC_MAX_TIMEOUT_US)
		return -EINVAL;
	if (nd->ops->kind != NEURON_BACKEND_SIM)
		return -EOPNOTSUPP;
	if (task_tgid(current) != nf->tgid)
		return -EACCES;
	timeout = arg.timeout_us ? arg.timeout_us : NEURON_EXEC_DEFAULT_TIMEOUT_US;
	core = &nqd->cores[arg.nc];

	mutex_lock(&nqd->lock);
	ret = neuron_core_reserve_locked(nd, arg.nc, nf->tgid);
	mutex_unlock(&nqd->lock);
	if (ret)
		return ret;
	/* one job per core: a second concurrent job of the owner is busy too */
	if (!mutex_trylock(&core->job_lock))
		return -EBUSY;

	ret = sim_sleep_us(arg.duration_us);
	if (ret)
		goto out;

	mutex_lock(&nqd->lock);
	armed = *core;
	memset(core->tpb, 0, sizeof(core->tpb));
	memset(core->hw, 0, sizeof(core->hw));
	core->flood = 0;
	core->hang = false;
	sim_emit_faults(nd, arg.nc, &armed, &written, &dropped);
	mutex_unlock(&nqd->lock);
	sim_notify_faults(nd, arg.nc, &armed);

	if (armed.hang) {
		/* the job never completes: the caller gives up after its timeout */
		ret = sim_sleep_us(timeout);
		if (!ret)
			ret = -ETIMEDOUT;
	}
out:
	mutex_unlock(&core->job_lock);
	if (ret)
		return ret;
	arg.entries = written;
	arg.dropped = dropped;
	if (copy_to_user(uarg, &arg, sizeof(arg)))
		return -EFAULT;
	return 0;
}

/* ---- debugfs fault knobs -------------------------------------------------- */

enum sim_knob { KNOB_TPB, KNOB_HW, KNOB_FLOOD, KNOB_HANG };

struct sim_knob_desc {
	const char *name;
	const char *format;
};

static const struct sim_knob_desc knobs[] = {
	[KNOB_TPB] = { "tpb_error", "\"<nc> <type 0..10 or name> [count 1..65536]\"" },
	[KNOB_HW] = { "hw_error",
		      "\"<nc> <collectives|hbm_ue|nc_ue|dma_abort|repairable_hbm_ue> [count 1..65536]\"" },
	[KNOB_FLOOD] = { "nq_flood", "\"<nc> <entries 1..1048576>\"" },
	[KNOB_HANG] = { "hang", "\"<nc>\"" },
};

static int sim_knob_apply(struct neuron_device *nd, enum sim_knob knob, struct neuron_tokens *t)
{
	struct neuron_core *core;
	u32 nc, what = 0, count = 1;
	int idx;

	if (t->count < 1 || neuron_parse_u32_range(t->tok[0], 0, nd->nc_count - 1, &nc))
		return -EINVAL;
	switch (knob) {
	case KNOB_TPB:
	case KNOB_HW:
		if (t->count < 2 || t->count > 3)
			return -EINVAL;
		if (knob == KNOB_TPB) {
			idx = neuron_parse_name(t->tok[1], tpb_names, NEURON_TPB_ERROR_COUNT);
			if (idx < 0 && neuron_parse_u32_range(t->tok[1], 0,
							      NEURON_TPB_ERROR_COUNT - 1, &what))
				return -EINVAL;
			if (idx >= 0)
				what = idx;
		} else {
			idx = neuron_parse_name(t->tok[1], hw_names, NEURON_NQ_HW_COUNT);
			if (idx < 0)
				return -EINVAL;
			what = idx;
		}
		if (t->count == 3 && neuron_parse_u32_range(t->tok[2], 1, SIM_MAX_COUNT, &count))
			return -EINVAL;
		break;
	case KNOB_FLOOD:
		if (t->count != 2 || neuron_parse_u32_range(t->tok[1], 1, SIM_MAX_FLOOD, &count))
			return -EINVAL;
		break;
	case KNOB_HANG:
		if (t->count != 1)
			return -EINVAL;
		break;
	}

	mutex_lock(&nd->nq->lock);
	core = &nd->nq->cores[nc];
	switch (knob) {
	case KNOB_TPB:
		core->tpb[what] = min_t(u32, core->tpb[what] + count, SIM_MAX_COUNT);
		break;
	case KNOB_HW:
		core->hw[what] = min_t(u32, core->hw[what] + count, SIM_MAX_COUNT);
		break;
	case KNOB_FLOOD:
		core->flood = min_t(u32, core->flood + count, SIM_MAX_FLOOD);
		break;
	case KNOB_HANG:
		core->hang = true;
		break;
	}
	mutex_unlock(&nd->nq->lock);
	return 0;
}

static ssize_t sim_knob_write(struct file *file, const char __user *ubuf, size_t len,
			      loff_t *ppos, enum sim_knob knob)
{
	struct neuron_device *nd = file->private_data;
	char buf[NEURON_PARSE_MAX_LEN];
	struct neuron_tokens t;
	int ret = -EINVAL;

	if (len <= sizeof(buf)) {
		if (copy_from_user(buf, ubuf, len))
			return -EFAULT;
		ret = neuron_tokenize(&t, buf, len);
		if (!ret)
			ret = sim_knob_apply(nd, knob, &t);
	}
	if (!ret)
		return len;
	dev_err(&nd->dev, "inject/%s: expected %s with nc < %u\n", knobs[knob].name,
		knobs[knob].format, nd->nc_count);
	return ret;
}

#define SIM_KNOB_FOPS(fn, knob)                                                       \
static ssize_t fn##_write(struct file *f, const char __user *u, size_t l, loff_t *p) \
{                                                                                     \
	return sim_knob_write(f, u, l, p, knob);                                      \
}                                                                                     \
static const struct file_operations fn##_fops = {                                    \
	.owner = THIS_MODULE,                                                         \
	.open = simple_open,                                                          \
	.write = fn##_write,                                                          \
	.llseek = neuron_no_llseek,                                                   \
}

SIM_KNOB_FOPS(knob_tpb, KNOB_TPB);
SIM_KNOB_FOPS(knob_hw, KNOB_HW);
SIM_KNOB_FOPS(knob_flood, KNOB_FLOOD);
SIM_KNOB_FOPS(knob_hang, KNOB_HANG);

static int armed_show(struct seq_file *s, void *unused)
{
	struct neuron_device *nd = s->private;
	u32 nc, i;

	mutex_lock(&nd->nq->lock);
	for (nc = 0; nc < nd->nc_count; nc++) {
		struct neuron_core *c = &nd->nq->cores[nc];

		seq_printf(s, "nc%u owner %d flood %u hang %u", nc, pid_nr(c->owner), c->flood,
			   c->hang);
		for (i = 0; i < NEURON_TPB_ERROR_COUNT; i++)
			if (c->tpb[i])
				seq_printf(s, " %s:%u", tpb_names[i], c->tpb[i]);
		for (i = 1; i < NEURON_NQ_HW_COUNT; i++)
			if (c->hw[i])
				seq_printf(s, " %s:%u", hw_names[i], c->hw[i]);
		seq_putc(s, '\n');
	}
	mutex_unlock(&nd->nq->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(armed);

void neuron_sim_core_debugfs(struct neuron_device *nd)
{
	debugfs_create_file("tpb_error", 0200, nd->inject, nd, &knob_tpb_fops);
	debugfs_create_file("hw_error", 0200, nd->inject, nd, &knob_hw_fops);
	debugfs_create_file("nq_flood", 0200, nd->inject, nd, &knob_flood_fops);
	debugfs_create_file("hang", 0200, nd->inject, nd, &knob_hang_fops);
	debugfs_create_file("armed", 0400, nd->inject, nd, &armed_fops);
}
