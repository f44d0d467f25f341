// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection into a simulated device: every knob, all armed-fault
 * state, one parser. The knobs are debugfs files, root only, created when
 * the device is registered and removed before it is destroyed:
 *
 *   inject/ecc        "sram <uncorrected> [corrected]"
 *                     "hbm<ch> <uncorrected> [corrected]"   ch < 4
 *                     "repair <none|pending|failed>"
 *       sets the MiscRAM ECC words the firmware would (16-bit counts) and
 *       the HBM repair state; stats/hardware/ reads them back.
 *   inject/tpb_error  "<nc> <type> [count]"   type 0..10 or its name
 *   inject/hw_error   "<nc> <collectives|hbm_ue|nc_ue|dma_abort|repairable_hbm_ue> [count]"
 *   inject/nq_flood   "<nc> <entries>"         filler entries (FP_UNDERFLOW)
 *   inject/hang       "<nc>"
 *       armed on a NeuronCore, they wait for its next job
 *       (neuron_sim_nc.c); count defaults to 1 and is at most 65536, a
 *       flood at most 1048576 (an armed count saturates there).
 *   inject/nc_unrecoverable "<nc>"
 *       the NeuronCore takes an uncorrectable error now: every job on it
 *       fails with -ENOTRECOVERABLE until the device is reset (sysfs
 *       reset); inject/armed shows "unrecoverable" on its line meanwhile
 *   inject/reset_fail "<count 0..65536>"
 *       the next count device resets (sysfs reset, ops->reset) fail with
 *       -EIO and change nothing: the device is left INVALID until a reset
 *       succeeds; 0 disarms; read: the resets still to fail
 *   inject/armed      (read) what is armed, one NeuronCore per line
 *   fw/fault          "<mode> [count]": the next count firmware requests
 *                     (default 1; 0 = every request until "none") get the
 *                     fault (neuron_sim_fw.c); read: "<mode> <left>"
 *   fw/slow_ms        delay of the slow mode, ms, 0..10000 (default 20)
 *   fw/api_version    MiscRAM API_VERSION, as a firmware update would set it
 *   warn              write 1: raise a kernel warning on purpose, so the
 *                     test harness proves that its kernel-log scan fails a
 *                     run that warned (scripts/harness-selftest.sh)
 *
 * Text knobs go through one tokenizer (common/neuron_parse.c); malformed input
 * is -EINVAL and one log line giving the expected format.
 *
 * Locking: inject->lock (spinlock) protects the armed faults; it is never
 * held while taking another lock. A job or a firmware request takes what
 * is armed as a copy of plain data (neuron_sim_inject_take_nc/_fw). A
 * job on a NeuronCore with nothing armed (its armed_nc bit clear: the
 * common case) does not take the device's lock, which the jobs of every
 * NeuronCore would otherwise share.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": sim: " fmt

#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "../neuron_compat.h"
#include "../neuron_log.h"
#include "neuron_miscram_reg.h"
#include "neuron_names.h"
#include "neuron_parse.h"
#include "neuron_sim.h"
#include "neuron_sim_fw.h"
#include "neuron_sim_inject.h"

#define SIM_MAX_COUNT		65536
#define SIM_MAX_FLOOD		(1U << 20)
#define SIM_FW_SLOW_DEFAULT_MS	20
#define SIM_FW_SLOW_MAX_MS	10000

static const char *const repair_names[] = {
	[NEURON_HBM_REPAIR_NONE] = "none",
	[NEURON_HBM_REPAIR_PENDING] = "pending",
	[NEURON_HBM_REPAIR_FAILED] = "failed",
};

static const char *const fw_fault_names[NEURON_SIM_FW_FAULT_COUNT] = {
	[NEURON_SIM_FW_NONE] = "none",
	[NEURON_SIM_FW_FAIL] = "fail",
	[NEURON_SIM_FW_UNKNOWN_COMMAND] = "unknown_command",
	[NEURON_SIM_FW_TIMEOUT] = "timeout",
	[NEURON_SIM_FW_BAD_SEQ] = "bad_seq",
	[NEURON_SIM_FW_BAD_CRC] = "bad_crc",
	[NEURON_SIM_FW_SLOW] = "slow",
	[NEURON_SIM_FW_OVERSIZE] = "oversize",
};

static struct device *sim_dev(struct neuron_sim_dev *sd)
{
	return neuron_device_dev(sd->nd);
}

/* ---- the armed faults ------------------------------------------------------ */

/* a bit per NeuronCore in armed_nc (and in the engine's broken map) */
static_assert(NEURON_MAX_NC <= BITS_PER_LONG);

void neuron_sim_inject_take_nc(struct neuron_sim_dev *sd, u32 nc,
			       struct neuron_sim_nc_faults *out)
{
	struct neuron_sim_inject *inj = &sd->inject;
	unsigned long flags;

	/* armed before this job takes its faults (the knob's write returned): set */
	if (!test_bit(nc, &inj->armed_nc)) {
		memset(out, 0, sizeof(*out));
		return;
	}
	spin_lock_irqsave(&inj->lock, flags);
	*out = inj->armed.nc[nc];
	memset(&inj->armed.nc[nc], 0, sizeof(inj->armed.nc[nc]));
	clear_bit(nc, &inj->armed_nc);
	spin_unlock_irqrestore(&inj->lock, flags);
}

enum neuron_sim_fw_fault neuron_sim_inject_take_fw(struct neuron_sim_dev *sd, u32 *slow_ms)
{
	struct neuron_sim_faults *a = &sd->inject.armed;
	enum neuron_sim_fw_fault f;
	unsigned long flags;

	spin_lock_irqsave(&sd->inject.lock, flags);
	f = a->fw;
	if (f != NEURON_SIM_FW_NONE && !a->fw_sticky && --a->fw_left == 0)
		a->fw = NEURON_SIM_FW_NONE;
	*slow_ms = a->fw_slow_ms;
	spin_unlock_irqrestore(&sd->inject.lock, flags);
	return f;
}

bool neuron_sim_inject_take_reset(struct neuron_sim_dev *sd)
{
	struct neuron_sim_faults *a = &sd->inject.armed;
	unsigned long flags;
	bool fail;

	spin_lock_irqsave(&sd->inject.lock, flags);
	fail = a->reset_fail > 0;
	if (fail)
		a->reset_fail--;
	spin_unlock_irqrestore(&sd->inject.lock, flags);
	return fail;
}

/* ---- text knobs: one parser, one apply function per knob ------------------- */

/* Parse "<nc> ..." (the first token) against the device's NeuronCores. */
static int knob_nc(struct neuron_sim_dev *sd, const struct neuron_tokens *t, u32 *nc)
{
	if (t->count < 1)
		return -EINVAL;
	return neuron_parse_u32_range(t->tok[0], 0, sd->nc_count - 1, nc) ? -EINVAL : 0;
}

/* Optional trailing count in [1, max] at token @i; 1 when absent. */
static int knob_count(const struct neuron_tokens *t, unsigned int i, u32 max, u32 *count)
{
	*count = 1;
	if (t->count <= i)
		return 0;
	return neuron_parse_u32_range(t->tok[i], 1, max, count) ? -EINVAL : 0;
}

static u32 sat_add(u32 have, u32 add, u32 max)
{
	return min_t(u32, have + add, max);
}

static int knob_ecc(struct neuron_sim_dev *sd, const struct neuron_tokens *t)
{
	struct neuron_sim_miscram *m = &sd->miscram;
	u32 unc, cor = 0, ch, off;
	int s;

	if (t->count < 2)
		return -EINVAL;
	if (!strcmp(t->tok[0], "repair")) {
		s = neuron_parse_name(t->tok[1], repair_names, ARRAY_SIZE(repair_names));
		if (s < 0 || t->count != 2)
			return -EINVAL;
		neuron_sim_miscram_write(m, NEURON_MISCRAM_REPAIR_STATE, s);
		return 0;
	}
	if (t->count > 3 || neuron_parse_u32_range(t->tok[1], 0, 0xffff, &unc))
		return -EINVAL;
	if (t->count == 3 && neuron_parse_u32_range(t->tok[2], 0, 0xffff, &cor))
		return -EINVAL;
	if (!strcmp(t->tok[0], "sram")) {
		off = NEURON_MISCRAM_SRAM_ECC;
	} else if (!strncmp(t->tok[0], "hbm", 3)) {
		if (neuron_parse_u32_range(t->tok[0] + 3, 0, NEURON_MISCRAM_HBM_CHANNELS - 1, &ch))
			return -EINVAL;
		off = NEURON_MISCRAM_HBM_ECC(ch);
	} else {
		return -EINVAL;
	}
	neuron_sim_miscram_write(m, off, neuron_miscram_ecc_word(unc, cor));
	return 0;
}

static int knob_tpb(struct neuron_sim_dev *sd, const struct neuron_tokens *t)
{
	struct neuron_sim_inject *inj = &sd->inject;
	u32 nc, type, count;
	unsigned long flags;
	int idx;

	if (knob_nc(sd, t, &nc) || t->count < 2 || t->count > 3)
		return -EINVAL;
	idx = neuron_parse_name(t->tok[1], neuron_tpb_error_names, NEURON_TPB_ERROR_COUNT);
	if (idx >= 0)
		type = idx;
	else if (neuron_parse_u32_range(t->tok[1], 0, NEURON_TPB_ERROR_COUNT - 1, &type))
		return -EINVAL;
	if (knob_count(t, 2, SIM_MAX_COUNT, &count))
		return -EINVAL;
	spin_lock_irqsave(&inj->lock, flags);
	inj->armed.nc[nc].emit.tpb[type] =
		sat_add(inj->armed.nc[nc].emit.tpb[type], count, SIM_MAX_COUNT);
	set_bit(nc, &inj->armed_nc);
	spin_unlock_irqrestore(&inj->lock, flags);
	return 0;
}

static int knob_hw(struct neuron_sim_dev *sd, const struct neuron_tokens *t)
{
	struct neuron_sim_inject *inj = &sd->inject;
	u32 nc, count;
	unsigned long flags;
	int kind;

	if (knob_nc(sd, t, &nc) || t->count < 2 || t->count > 3)
		return -EINVAL;
	kind = neuron_parse_name(t->tok[1], neuron_hw_fault_words, NEURON_NQ_HW_COUNT);
	if (kind < 0 || knob_count(t, 2, SIM_MAX_COUNT, &count))
		return -EINVAL;
	spin_lock_irqsave(&inj->lock, flags);
	inj->armed.nc[nc].emit.hw[kind] =
		sat_add(inj->armed.nc[nc].emit.hw[kind], count, SIM_MAX_COUNT);
	set_bit(nc, &inj->armed_nc);
	spin_unlock_irqrestore(&inj->lock, flags);
	return 0;
}

static int knob_flood(struct neuron_sim_dev *sd, const struct neuron_tokens *t)
{
	struct neuron_sim_inject *inj = &sd->inject;
	unsigned long flags;
	u32 nc, count;

	if (knob_nc(sd, t, &nc) || t->count != 2 ||
	    neuron_parse_u32_range(t->tok[1], 1, SIM_MAX_FLOOD, &count))
		return -EINVAL;
	spin_lock_irqsave(&inj->lock, flags);
	inj->armed.nc[nc].emit.flood = sat_add(inj->armed.nc[nc].emit.flood, count,
					       SIM_MAX_FLOOD);
	set_bit(nc, &inj->armed_nc);
	spin_unlock_irqrestore(&inj->lock, flags);
	return 0;
}

static int knob_hang(struct neuron_sim_dev *sd, const struct neuron_tokens *t)
{
	struct neuron_sim_inject *inj = &sd->inject;
	unsigned long flags;
	u32 nc;

	if (knob_nc(sd, t, &nc) || t->count != 1)
		return -EINVAL;
	spin_lock_irqsave(&inj->lock, flags);
	inj->armed.nc[nc].hang = true;
	set_bit(nc, &inj->armed_nc);
	spin_unlock_irqrestore(&inj->lock, flags);
	return 0;
}

static int knob_nc_unrecoverable(struct neuron_sim_dev *sd, const struct neuron_tokens *t)
{
	u32 nc;

	if (knob_nc(sd, t, &nc) || t->count != 1)
		return -EINVAL;
	neuron_sim_nc_break(&sd->nc, nc);
	dev_err(sim_dev(sd), "nc%u: uncorrectable error (injected), unusable until the device is reset\n",
		nc);
	return 0;
}

static int knob_fw_fault(struct neuron_sim_dev *sd, const struct neuron_tokens *t)
{
	struct neuron_sim_inject *inj = &sd->inject;
	unsigned long flags;
	u32 n = 1;
	int f;

	if (t->count < 1 || t->count > 2)
		return -EINVAL;
	f = neuron_parse_name(t->tok[0], fw_fault_names, NEURON_SIM_FW_FAULT_COUNT);
	if (f < 0)
		return -EINVAL;
	if (t->count == 2 &&
	    (f == NEURON_SIM_FW_NONE || neuron_parse_u32_range(t->tok[1], 0, U32_MAX, &n)))
		return -EINVAL;
	spin_lock_irqsave(&inj->lock, flags);
	inj->armed.fw = f;
	inj->armed.fw_sticky = f != NEURON_SIM_FW_NONE && n == 0;
	inj->armed.fw_left = n;
	spin_unlock_irqrestore(&inj->lock, flags);
	return 0;
}

static int knob_reset_fail(struct neuron_sim_dev *sd, const struct neuron_tokens *t)
{
	struct neuron_sim_inject *inj = &sd->inject;
	unsigned long flags;
	u32 n;

	if (t->count != 1 || neuron_parse_u32_range(t->tok[0], 0, SIM_MAX_COUNT, &n))
		return -EINVAL;
	spin_lock_irqsave(&inj->lock, flags);
	inj->armed.reset_fail = n;
	spin_unlock_irqrestore(&inj->lock, flags);
	return 0;
}

/* ---- read-only views ------------------------------------------------------- */

static int knob_armed_show(struct seq_file *s, struct neuron_sim_dev *sd)
{
	struct neuron_sim_nc_faults c;
	unsigned long flags;
	pid_t holder;
	u32 nc, i;

	for (nc = 0; nc < sd->nc_count; nc++) {
		/* the holder first: the core's lock is never taken under ours */
		holder = neuron_core_holder(sd->nd, nc);
		spin_lock_irqsave(&sd->inject.lock, flags);
		c = sd->inject.armed.nc[nc];
		spin_unlock_irqrestore(&sd->inject.lock, flags);

		seq_printf(s, "nc%u owner %d flood %u hang %u", nc, holder, c.emit.flood, c.hang);
		for (i = 0; i < NEURON_TPB_ERROR_COUNT; i++)
			if (c.emit.tpb[i])
				seq_printf(s, " %s:%u", neuron_tpb_error_names[i], c.emit.tpb[i]);
		for (i = 1; i < NEURON_NQ_HW_COUNT; i++)
			if (c.emit.hw[i])
				seq_printf(s, " %s:%u", neuron_hw_fault_words[i], c.emit.hw[i]);
		if (neuron_sim_nc_broken(&sd->nc, nc))
			seq_puts(s, " unrecoverable");
		seq_putc(s, '\n');
	}
	return 0;
}

static int knob_fw_fault_show(struct seq_file *s, struct neuron_sim_dev *sd)
{
	struct neuron_sim_faults *a = &sd->inject.armed;
	enum neuron_sim_fw_fault f;
	unsigned long flags;
	u32 left;

	spin_lock_irqsave(&sd->inject.lock, flags);
	f = a->fw;
	left = f == NEURON_SIM_FW_NONE || a->fw_sticky ? 0 : a->fw_left;
	spin_unlock_irqrestore(&sd->inject.lock, flags);
	seq_printf(s, "%s %u\n", fw_fault_names[f], left);
	return 0;
}

static int knob_reset_fail_show(struct seq_file *s, struct neuron_sim_dev *sd)
{
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&sd->inject.lock, flags);
	n = sd->inject.armed.reset_fail;
	spin_unlock_irqrestore(&sd->inject.lock, flags);
	seq_printf(s, "%u\n", n);
	return 0;
}

/* ---- the knob table --------------------------------------------------------- */

enum sim_knob_id {
	KNOB_ECC,
	KNOB_TPB,
	KNOB_HW,
	KNOB_FLOOD,
	KNOB_HANG,
	KNOB_ARMED,
	KNOB_FW_FAULT,
	KNOB_NC_UNRECOVERABLE,
	KNOB_RESET_FAIL,
	KNOB_COUNT_TEXT,		/* text knobs above, typed files below */
	KNOB_FW_SLOW_MS = KNOB_COUNT_TEXT,
	KNOB_FW_API_VERSION,
	KNOB_WARN,
	KNOB_COUNT,
};

static_assert(KNOB_COUNT == NEURON_SIM_KNOBS);

enum sim_knob_dir { DIR_INJECT, DIR_FW, DIR_DEVICE };

/**
 * struct sim_knob - one text knob
 * @name:	file name
 * @dir:	where it lives
 * @mode:	file mode (root only)
 * @usage:	the expected input, for the log line
 * @per_nc:	its first token is a NeuronCore (the log line names the count)
 * @apply:	parse and arm; -EINVAL on malformed input (nothing changes)
 * @show:	read the knob back, or NULL
 */
struct sim_knob {
	const char *name;
	enum sim_knob_dir dir;
	umode_t mode;
	const char *usage;
	bool per_nc;
	int (*apply)(struct neuron_sim_dev *sd, const struct neuron_tokens *t);
	int (*show)(struct seq_file *s, struct neuron_sim_dev *sd);
};

static const struct sim_knob sim_knobs[KNOB_COUNT_TEXT] = {
	[KNOB_ECC] = { "ecc", DIR_INJECT, 0200,
		"\"sram|hbm<0..3> <uncorrected 0..65535> [corrected 0..65535]\" or \"repair none|pending|failed\"",
		false, knob_ecc, NULL },
	[KNOB_TPB] = { "tpb_error", DIR_INJECT, 0200,
		"\"<nc> <type 0..10 or name> [count 1..65536]\"", true, knob_tpb, NULL },
	[KNOB_HW] = { "hw_error", DIR_INJECT, 0200,
		"\"<nc> <collectives|hbm_ue|nc_ue|dma_abort|repairable_hbm_ue> [count 1..65536]\"",
		true, knob_hw, NULL },
	[KNOB_FLOOD] = { "nq_flood", DIR_INJECT, 0200, "\"<nc> <entries 1..1048576>\"", true,
		knob_flood, NULL },
	[KNOB_HANG] = { "hang", DIR_INJECT, 0200, "\"<nc>\"", true, knob_hang, NULL },
	[KNOB_ARMED] = { "armed", DIR_INJECT, 0400, NULL, false, NULL, knob_armed_show },
	[KNOB_FW_FAULT] = { "fault", DIR_FW, 0600,
		"\"<none|fail|unknown_command|timeout|bad_seq|bad_crc|slow|oversize> [count]\" (count: requests affected, default 1, 0 = until \"none\")",
		false, knob_fw_fault, knob_fw_fault_show },
	[KNOB_NC_UNRECOVERABLE] = { "nc_unrecoverable", DIR_INJECT, 0200, "\"<nc>\"", true,
		knob_nc_unrecoverable, NULL },
	[KNOB_RESET_FAIL] = { "reset_fail", DIR_INJECT, 0600, "\"<count 0..65536>\"", false,
		knob_reset_fail, knob_reset_fail_show },
};

static const struct sim_knob *knob_of(struct file *file, struct neuron_sim_dev **sd)
{
	const struct neuron_sim_knob_file *kf = file_inode(file)->i_private;

	*sd = kf->sd;
	return &sim_knobs[kf->id];
}

static ssize_t sim_knob_write(struct file *file, const char __user *ubuf, size_t len,
			      loff_t *ppos)
{
	char buf[NEURON_PARSE_MAX_LEN];
	struct neuron_sim_dev *sd;
	const struct sim_knob *k = knob_of(file, &sd);
	struct neuron_tokens t;
	int ret = -EINVAL;

	if (len <= sizeof(buf)) {
		if (copy_from_user(buf, ubuf, len))
			return -EFAULT;
		ret = neuron_tokenize(&t, buf, len);
		if (!ret)
			ret = k->apply(sd, &t);
	}
	if (!ret)
		return len;
	if (k->per_nc)
		neuron_knob_dev_err(sim_dev(sd), "inject/%s: expected %s with nc < %u\n",
				    k->name, k->usage, sd->nc_count);
	else
		neuron_knob_dev_err(sim_dev(sd), "%s/%s: expected %s\n",
				    k->dir == DIR_FW ? "fw" : "inject", k->name, k->usage);
	return ret;
}

static int sim_knob_show(struct seq_file *s, void *unused)
{
	const struct neuron_sim_knob_file *kf = s->private;

	return sim_knobs[kf->id].show(s, kf->sd);
}

static int sim_knob_open(struct inode *inode, struct file *file)
{
	const struct neuron_sim_knob_file *kf = inode->i_private;

	if (!sim_knobs[kf->id].show)
		return nonseekable_open(inode, file);
	return single_open(file, sim_knob_show, inode->i_private);
}

/*
 * Runs after debugfs_remove() too (a file still open when its device was
 * removed), when @inode->i_private may be freed already: decide from the
 * file alone. Only single_open() set private_data (its seq_file).
 */
static int sim_knob_release(struct inode *inode, struct file *file)
{
	return file->private_data ? single_release(inode, file) : 0;
}

static ssize_t sim_knob_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	struct neuron_sim_dev *sd;

	if (!knob_of(file, &sd)->show)
		return -EINVAL;
	return seq_read(file, ubuf, len, ppos);
}

static const struct file_operations sim_knob_fops = {
	.owner = THIS_MODULE,
	.open = sim_knob_open,
	.read = sim_knob_read,
	.write = sim_knob_write,
	.release = sim_knob_release,
	.llseek = neuron_no_llseek,
};

/* ---- typed knobs: one value each -------------------------------------------- */

static int fw_slow_ms_get(void *data, u64 *val)
{
	struct neuron_sim_dev *sd = data;
	unsigned long flags;

	spin_lock_irqsave(&sd->inject.lock, flags);
	*val = sd->inject.armed.fw_slow_ms;
	spin_unlock_irqrestore(&sd->inject.lock, flags);
	return 0;
}

static int fw_slow_ms_set(void *data, u64 val)
{
	struct neuron_sim_dev *sd = data;
	unsigned long flags;

	if (val > SIM_FW_SLOW_MAX_MS) {
		neuron_knob_dev_err(sim_dev(sd), "fw/slow_ms: expected milliseconds 0..%u\n",
			SIM_FW_SLOW_MAX_MS);
		return -EINVAL;
	}
	spin_lock_irqsave(&sd->inject.lock, flags);
	sd->inject.armed.fw_slow_ms = val;
	spin_unlock_irqrestore(&sd->inject.lock, flags);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(fw_slow_ms_fops, fw_slow_ms_get, fw_slow_ms_set, "%llu\n");

/* MiscRAM API_VERSION, as a firmware update would change it. */
static int fw_api_get(void *data, u64 *val)
{
	struct neuron_sim_dev *sd = data;

	*val = neuron_sim_miscram_read(&sd->miscram, NEURON_MISCRAM_API_VERSION);
	return 0;
}

static int fw_api_set(void *data, u64 val)
{
	struct neuron_sim_dev *sd = data;

	if (val > U32_MAX)
		return -EINVAL;
	neuron_sim_miscram_write(&sd->miscram, NEURON_MISCRAM_API_VERSION, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(fw_api_fops, fw_api_get, fw_api_set, "%llu\n");

static int warn_set(void *data, u64 val)
{
	struct neuron_sim_dev *sd = data;

	if (val != 1)
		return -EINVAL;
	dev_warn(sim_dev(sd), "raising a deliberate warning (debugfs warn)\n");
	WARN(1, "neuron: deliberate warning from debugfs (harness self-test)\n");
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(warn_fops, NULL, warn_set, "%llu\n");

/* ---- life cycle ----------------------------------------------------------- */

void neuron_sim_inject_init(struct neuron_sim_dev *sd)
{
	struct neuron_sim_inject *inj = &sd->inject;
	unsigned int i;

	spin_lock_init(&inj->lock);
	memset(&inj->armed, 0, sizeof(inj->armed));
	inj->armed_nc = 0;
	inj->armed.fw = NEURON_SIM_FW_NONE;
	inj->armed.fw_slow_ms = SIM_FW_SLOW_DEFAULT_MS;
	for (i = 0; i < KNOB_COUNT; i++) {
		inj->knob[i].sd = sd;
		inj->knob[i].id = i;
		inj->files[i] = NULL;
	}
	inj->dir = NULL;
}

void neuron_sim_inject_debugfs(struct neuron_sim_dev *sd)
{
	struct neuron_sim_inject *inj = &sd->inject;
	struct dentry *fw = neuron_device_fw_debugfs(sd->nd);
	struct dentry *dirs[3];
	unsigned int i;

	inj->dir = debugfs_create_dir("inject", neuron_device_debugfs(sd->nd));
	dirs[DIR_INJECT] = inj->dir;
	dirs[DIR_FW] = fw;
	dirs[DIR_DEVICE] = neuron_device_debugfs(sd->nd);
	for (i = 0; i < KNOB_COUNT_TEXT; i++)
		inj->files[i] = debugfs_create_file(sim_knobs[i].name, sim_knobs[i].mode,
						    dirs[sim_knobs[i].dir], &inj->knob[i],
						    &sim_knob_fops);
	inj->files[KNOB_FW_SLOW_MS] = debugfs_create_file_unsafe("slow_ms", 0600, fw, sd,
								 &fw_slow_ms_fops);
	inj->files[KNOB_FW_API_VERSION] = debugfs_create_file_unsafe("api_version", 0600, fw, sd,
								     &fw_api_fops);
	inj->files[KNOB_WARN] = debugfs_create_file_unsafe("warn", 0200, dirs[DIR_DEVICE], sd,
							   &warn_fops);
}

void neuron_sim_inject_exit(struct neuron_sim_dev *sd)
{
	struct neuron_sim_inject *inj = &sd->inject;
	unsigned int i;

	for (i = 0; i < KNOB_COUNT; i++) {
		debugfs_remove(inj->files[i]);
		inj->files[i] = NULL;
	}
	debugfs_remove(inj->dir);
	inj->dir = NULL;
}
