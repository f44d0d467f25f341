// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware errors in the kernel log, in the form Node Problem Detector's
 * Neuron rules and the EKS node monitoring agent match
 * (".* NEURON_HW_ERR=<TYPE> .*"):
 *
 *   neuron_device neuron<N>: NEURON_HW_ERR=<TYPE> instance-id=<id> hostname=<host>
 *       nd-id=<N> nc-id=<K> serial-num=<serial> action=<ACTION> seq=<S>
 *       [pid=<pid> comm=<name>]
 *
 * ACTION is the error class's recovery action (common/neuron_names.c,
 * docs/recovery.md). S numbers the device's errors from 1, those the rate
 * limit kept out of the log included, so a gap in it is lines suppressed.
 * pid (initial namespace) and comm (escaped, neuron_log_escape()) name the
 * process whose job met the error, or the NeuronCore's holder for a health
 * change of a held core; an ECC rise has neither.
 *
 * Two sources:
 *  - the device's uncorrected ECC counts (MiscRAM SRAM_ECC, HBM_ECC(ch)),
 *    polled every hw_err_poll_ms: each rise of a count is one line
 *    (SRAM_UNCORRECTABLE_ERROR, HBM_UNCORRECTABLE_ERROR), nc-id=-1 since
 *    the counts are per device. The counts present when the device
 *    registers are the baseline, not logged; a count that goes down
 *    (firmware reset) becomes the new baseline;
 *  - every hardware-error notification a job wrote to its NeuronCore's
 *    ERROR ring, one line each: collectives -> HANG_ON_COLLECTIVES,
 *    hbm_ue and repairable_hbm_ue -> HBM_UNCORRECTABLE_ERROR, nc_ue ->
 *    NC_UNCORRECTABLE_ERROR, dma_abort -> DMA_ERROR.
 *
 * A simulated device (ops->simulated) logs the same lines under the token
 * NEURON_SIM_HW_ERR, its TYPE spelled with '-' for '_', and simulated=1
 * last, so that remediation never acts on a simulated fault; the module
 * parameter sim_hw_err_real gives it the real lines.
 *
 * Health changes (neuron_health.c) are lines of their own TYPE, HEALTH,
 * with the device's (nc-id=-1) or a NeuronCore's new health and its
 * reason before the action, never rate-limited (a change is rare, and
 * one per poll at most):
 *
 *   ... NEURON_HW_ERR=HEALTH ... serial-num=<serial> health=<state>
 *       reason=<reason> action=<NONE|RESET_DEVICE|TERMINATE_INSTANCE> seq=<S>
 *       [pid=<pid> comm=<name>]
 *
 * Rate limit, per device and TYPE: at most hw_err_ratelimit_burst lines
 * per hw_err_ratelimit_ms; the lines over it are counted, and the count is
 * logged on its own line ("neuron_device neuron<N>: hw_err <TYPE>: <n> lines suppressed"
 * — not matching the consumers' pattern, so nothing is counted twice)
 * right after the next line of that TYPE, or by the poller once the
 * period is over. Without a rate limit (hw_err_ratelimit_ms=0) one job
 * still logs at most NEURON_HWERR_MAX_PER_CALL lines of a fault kind; the
 * rest are counted the same way.
 *
 * Locking: h->lock (spinlock) protects the rate-limit state and the
 * sequence; nothing is
 * taken under it and nothing is logged under it. The ECC baselines are
 * the poller's own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/dmi.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/utsname.h>
#include <linux/workqueue.h>

#include "neuron_core.h"
#include "neuron_device.h"
#include "neuron_fwio.h"
#include "neuron_hwerr.h"
#include "neuron_log.h"
#include "neuron_miscram_reg.h"
#include "neuron_names.h"
#include "neuron_reset.h"
#include "neuron_sysfs.h"

static struct neuron_uint_param hw_err_poll_ms = { .value = 1000, .min = 10, .max = 60000 };
static struct neuron_uint_param hw_err_ratelimit_ms = { .value = 5000, .min = 0, .max = 3600000 };
static struct neuron_uint_param hw_err_ratelimit_burst = { .value = 10, .min = 1, .max = 1000 };

module_param_cb(hw_err_poll_ms, &neuron_uint_range_ops, &hw_err_poll_ms, 0644);
MODULE_PARM_DESC(hw_err_poll_ms,
		 "How often the ECC counts are checked for NEURON_HW_ERR lines (ms, 10..60000, default 1000)");
module_param_cb(hw_err_ratelimit_ms, &neuron_uint_range_ops, &hw_err_ratelimit_ms, 0644);
MODULE_PARM_DESC(hw_err_ratelimit_ms,
		 "NEURON_HW_ERR rate-limit period per device and type (ms, 0..3600000, 0 = no limit, default 5000)");
module_param_cb(hw_err_ratelimit_burst, &neuron_uint_range_ops, &hw_err_ratelimit_burst, 0644);
MODULE_PARM_DESC(hw_err_ratelimit_burst,
		 "NEURON_HW_ERR lines per device and type per period (count, 1..1000, default 10)");
static bool sim_hw_err_real;
module_param(sim_hw_err_real, bool, 0444);
MODULE_PARM_DESC(sim_hw_err_real,
		 "Simulated devices log the real NEURON_HW_ERR tokens, which node remediation acts on (default off: NEURON_SIM_HW_ERR, simulated=1)");

enum neuron_hwerr_type {
	NEURON_HWERR_SRAM,
	NEURON_HWERR_NC,
	NEURON_HWERR_HBM,
	NEURON_HWERR_DMA,
	NEURON_HWERR_COLLECTIVES,
	NEURON_HWERR_TYPE_COUNT,
};

static const char *const neuron_hwerr_names[NEURON_HWERR_TYPE_COUNT] = {
	[NEURON_HWERR_SRAM] = "SRAM_UNCORRECTABLE_ERROR",
	[NEURON_HWERR_NC] = "NC_UNCORRECTABLE_ERROR",
	[NEURON_HWERR_HBM] = "HBM_UNCORRECTABLE_ERROR",
	[NEURON_HWERR_DMA] = "DMA_ERROR",
	[NEURON_HWERR_COLLECTIVES] = "HANG_ON_COLLECTIVES",
};

#define NEURON_HWERR_INSTANCE_MAX	64
/* lines one call may print when the rate limit is off (hw_err_ratelimit_ms=0) */
#define NEURON_HWERR_MAX_PER_CALL	64

/**
 * struct neuron_hwerr_rl - rate-limit state of one TYPE
 * @begin:	jiffies the current period started
 * @printed:	lines logged in the current period
 * @suppressed:	lines not logged since the last count line
 */
struct neuron_hwerr_rl {
	unsigned long begin;
	u32 printed;
	u32 suppressed;
};

/**
 * struct neuron_hwerr - one device's hardware-error logging
 * @nd:		the device
 * @poll:	the ECC poller
 * @lock:	protects @rl and @stopping
 * @stopping:	no line and no poll after neuron_hwerr_stop()
 * @rl:		rate-limit state per TYPE
 * @seq:	the last sequence number taken (lines and suppressed lines)
 * @sram_unc:	the poller's baseline: uncorrected SRAM count at its last
 *		read (health_status/sram_ecc_uncorrected reads it)
 * @hbm_unc:	the poller's baseline per HBM channel (the same)
 * @instance_id: the backend's instance id, else the DMI board asset tag,
 *		escaped (neuron_log_escape())
 */
struct neuron_hwerr {
	struct neuron_device *nd;
	struct delayed_work poll;
	spinlock_t lock;
	bool stopping;
	struct neuron_hwerr_rl rl[NEURON_HWERR_TYPE_COUNT];
	u64 seq;
	u32 sram_unc;
	u32 hbm_unc[NEURON_MISCRAM_HBM_CHANNELS];
	char instance_id[NEURON_LOG_ESCAPED_MAX(NEURON_HWERR_INSTANCE_MAX)];
};

bool neuron_hwerr_sim_real(void)
{
	return sim_hw_err_real;
}

u64 neuron_hwerr_events(struct neuron_device *nd)
{
	/* pairs with neuron_hwerr_init(): @h is seen initialised */
	struct neuron_hwerr *h = smp_load_acquire(&nd->hwerr);
	unsigned long flags;
	u64 seq;

	if (!h)
		return 0;
	spin_lock_irqsave(&h->lock, flags);
	seq = h->seq;
	spin_unlock_irqrestore(&h->lock, flags);
	return seq;
}

bool neuron_hwerr_cached_ecc(struct neuron_device *nd, u32 *sram, u64 *hbm)
{
	/* pairs with neuron_hwerr_init(): @h is seen initialised */
	struct neuron_hwerr *h = smp_load_acquire(&nd->hwerr);
	u32 ch;

	if (!h)
		return false;
	*sram = READ_ONCE(h->sram_unc);
	*hbm = 0;
	for (ch = 0; ch < nd->arch->hbm_channels && ch < NEURON_MISCRAM_HBM_CHANNELS; ch++)
		*hbm += READ_ONCE(h->hbm_unc[ch]);
	return true;
}

/*
 * A simulated device's lines (unless sim_hw_err_real): the token
 * NEURON_SIM_HW_ERR, its TYPE spelled with '-' for '_', and simulated=1
 * last, so that no line of it carries a token remediation acts on (Node
 * Problem Detector's rule, the EKS node monitoring agent's fatal
 * conditions match the four TYPEs anywhere in a line).
 */
static bool neuron_hwerr_sim(const struct neuron_device *nd)
{
	return nd->ops->simulated && !sim_hw_err_real;
}

static const char *neuron_hwerr_token(const struct neuron_device *nd)
{
	return neuron_hwerr_sim(nd) ? "NEURON_SIM_HW_ERR" : "NEURON_HW_ERR";
}

static const char *neuron_hwerr_sim_tail(const struct neuron_device *nd)
{
	return neuron_hwerr_sim(nd) ? " simulated=1" : "";
}

/* TYPE as @nd's lines spell it, in @buf (NEURON_HWERR_NAME_MAX bytes) */
#define NEURON_HWERR_NAME_MAX	32
static const char *neuron_hwerr_type_name(const struct neuron_device *nd,
					  enum neuron_hwerr_type type, char *buf)
{
	size_t i;

	if (!neuron_hwerr_sim(nd))
		return neuron_hwerr_names[type];
	strscpy(buf, neuron_hwerr_names[type], NEURON_HWERR_NAME_MAX);
	for (i = 0; buf[i]; i++)
		if (buf[i] == '_')
			buf[i] = '-';
	return buf;
}

static void neuron_hwerr_serial(struct neuron_device *nd, char *serial, size_t size)
{
	u64 s;

	if (!neuron_fwio_serial_number(nd, &s) && s)
		snprintf(serial, size, "%016llx", s);
	else
		strscpy(serial, "0", size);
}

/* " pid=<pid> comm=<escaped name>" of @tgid, or "" (none, or it exited) */
#define NEURON_HWERR_PROC_MAX	(NEURON_LOG_ESCAPED_MAX(TASK_COMM_LEN) + 24)
static void neuron_hwerr_proc(struct pid *tgid, char *buf)
{
	char esc[NEURON_LOG_ESCAPED_MAX(TASK_COMM_LEN)];
	struct neuron_comm comm;

	buf[0] = '\0';
	if (!tgid || !neuron_pid_comm(tgid, &comm))
		return;
	neuron_log_escape(esc, sizeof(esc), comm.s);
	snprintf(buf, NEURON_HWERR_PROC_MAX, " pid=%d comm=%s", pid_nr(tgid), esc);
}

static void neuron_hwerr_line(struct neuron_hwerr *h, enum neuron_hwerr_type type, int nc,
			      u32 action, u64 seq, const char *proc)
{
	struct neuron_device *nd = h->nd;
	char serial[20], name[NEURON_HWERR_NAME_MAX];

	neuron_hwerr_serial(nd, serial, sizeof(serial));
	dev_err(&nd->dev,
		"%s=%s instance-id=%s hostname=%s nd-id=%u nc-id=%d serial-num=%s action=%s seq=%llu%s%s\n",
		neuron_hwerr_token(nd), neuron_hwerr_type_name(nd, type, name), h->instance_id,
		init_utsname()->nodename, nd->index, nc, serial, neuron_action_name(action), seq,
		proc, neuron_hwerr_sim_tail(nd));
}

void neuron_hwerr_health(struct neuron_device *nd, int nc, struct pid *tgid, const char *state,
			 const char *reason, u32 action)
{
	/* pairs with neuron_hwerr_init(): @h is seen initialised */
	struct neuron_hwerr *h = smp_load_acquire(&nd->hwerr);
	char serial[20], proc[NEURON_HWERR_PROC_MAX];
	unsigned long flags;
	u64 seq;

	if (!h)
		return;
	spin_lock_irqsave(&h->lock, flags);
	seq = ++h->seq;
	spin_unlock_irqrestore(&h->lock, flags);
	neuron_sysfs_hw_events_changed(nd);
	if (READ_ONCE(h->stopping))
		return;
	neuron_hwerr_serial(nd, serial, sizeof(serial));
	neuron_hwerr_proc(tgid, proc);
	dev_err(&nd->dev,
		"%s=HEALTH instance-id=%s hostname=%s nd-id=%u nc-id=%d serial-num=%s health=%s reason=%s action=%s seq=%llu%s%s\n",
		neuron_hwerr_token(nd), h->instance_id, init_utsname()->nodename, nd->index, nc,
		serial, state, reason, neuron_action_name(action), seq, proc,
		neuron_hwerr_sim_tail(nd));
}

static void neuron_hwerr_suppressed_line(struct neuron_hwerr *h, enum neuron_hwerr_type type,
					 u32 n)
{
	char name[NEURON_HWERR_NAME_MAX];

	dev_err(&h->nd->dev, "hw_err %s: %u lines suppressed\n",
		neuron_hwerr_type_name(h->nd, type, name), n);
}

/*
 * @n errors of @type met by process @tgid (NULL: none): log what the rate
 * limit allows, count the rest; each takes a sequence number.
 */
static void neuron_hwerr_report(struct neuron_hwerr *h, enum neuron_hwerr_type type, int nc,
				u32 action, u32 n, struct pid *tgid)
{
	struct neuron_hwerr_rl *rl = &h->rl[type];
	unsigned long period = msecs_to_jiffies(READ_ONCE(hw_err_ratelimit_ms.value));
	u32 burst = READ_ONCE(hw_err_ratelimit_burst.value);
	char proc[NEURON_HWERR_PROC_MAX];
	u32 print, report = 0, i;
	unsigned long flags;
	u64 seq;

	if (!n)
		return;
	neuron_hwerr_proc(tgid, proc);
	spin_lock_irqsave(&h->lock, flags);
	if (h->stopping) {
		spin_unlock_irqrestore(&h->lock, flags);
		return;
	}
	seq = h->seq + 1;
	h->seq += n;
	if (!period) {
		/* no rate limit, but never thousands of lines from one job */
		print = min_t(u32, n, NEURON_HWERR_MAX_PER_CALL);
		report = rl->suppressed;
		rl->suppressed = n - print;
	} else {
		if (time_after_eq(jiffies, rl->begin + period)) {
			rl->begin = jiffies;
			rl->printed = 0;
			report = rl->suppressed;
			rl->suppressed = 0;
		}
		print = min(n, burst > rl->printed ? burst - rl->printed : 0);
		rl->printed += print;
		rl->suppressed += n - print;
	}
	spin_unlock_irqrestore(&h->lock, flags);
	neuron_sysfs_hw_events_changed(h->nd);

	for (i = 0; i < print; i++) {
		neuron_hwerr_line(h, type, nc, action, seq + i, proc);
		if (i == 0 && report)
			neuron_hwerr_suppressed_line(h, type, report);
		cond_resched();
	}
}

/* The poller: a period that ended with lines suppressed gets its count line. */
static void neuron_hwerr_flush(struct neuron_hwerr *h)
{
	unsigned long period = msecs_to_jiffies(READ_ONCE(hw_err_ratelimit_ms.value));
	u32 pending[NEURON_HWERR_TYPE_COUNT] = {};
	unsigned long flags;
	int t;

	spin_lock_irqsave(&h->lock, flags);
	for (t = 0; t < NEURON_HWERR_TYPE_COUNT; t++) {
		struct neuron_hwerr_rl *rl = &h->rl[t];

		if (rl->suppressed && time_after_eq(jiffies, rl->begin + period)) {
			pending[t] = rl->suppressed;
			rl->suppressed = 0;
			rl->printed = 0;
			rl->begin = jiffies;
		}
	}
	spin_unlock_irqrestore(&h->lock, flags);
	for (t = 0; t < NEURON_HWERR_TYPE_COUNT; t++)
		if (pending[t])
			neuron_hwerr_suppressed_line(h, t, pending[t]);
}

/*
 * Uncorrected count of an ECC word; -1 (keep the baseline) when it is
 * unreadable: 0xDEADBEEF (firmware not ready) or all-ones (the function is
 * gone: surprise removal, link down; not 0xFFFF new errors).
 */
static s64 neuron_hwerr_ecc(struct neuron_device *nd, u32 off)
{
	u32 w;

	if (!neuron_misc_value(nd, off, &w))
		return -1;
	return neuron_miscram_ecc_uncorrected(w);
}

static u32 neuron_hwerr_rise(u32 *base, s64 now)
{
	u32 rise = 0;

	if (now < 0)
		return 0;
	if (now > *base)
		rise = now - *base;
	WRITE_ONCE(*base, now);
	return rise;
}

static void neuron_hwerr_poll_ecc(struct neuron_hwerr *h, bool baseline)
{
	struct neuron_device *nd = h->nd;
	u32 ch, rise;

	/* the baselines are also health_status/'s cached counts: written once each */
	rise = neuron_hwerr_rise(&h->sram_unc, neuron_hwerr_ecc(nd, NEURON_MISCRAM_SRAM_ECC));
	if (!baseline && rise)
		neuron_hwerr_report(h, NEURON_HWERR_SRAM, -1, NEURON_ECC_UE_ACTION, 1, NULL);
	for (ch = 0; ch < nd->arch->hbm_channels && ch < NEURON_MISCRAM_HBM_CHANNELS; ch++) {
		rise = neuron_hwerr_rise(&h->hbm_unc[ch],
					 neuron_hwerr_ecc(nd, NEURON_MISCRAM_HBM_ECC(ch)));
		if (!baseline && rise)
			neuron_hwerr_report(h, NEURON_HWERR_HBM, -1, NEURON_ECC_UE_ACTION, 1, NULL);
	}
}

static void neuron_hwerr_poll_work(struct work_struct *work)
{
	struct neuron_hwerr *h = container_of(to_delayed_work(work), struct neuron_hwerr, poll);

	/* a device whose reset did not complete: its words mean nothing */
	if (!neuron_device_invalid(h->nd))
		neuron_hwerr_poll_ecc(h, false);
	neuron_hwerr_flush(h);
	/* after the ECC lines: a health change follows what caused it */
	neuron_health_check(h->nd);
	if (!READ_ONCE(h->stopping))
		schedule_delayed_work(&h->poll,
				      msecs_to_jiffies(READ_ONCE(hw_err_poll_ms.value)));
}

/* The hardware faults a job writes, in the order their lines come, and each one's TYPE */
static const struct {
	u8 fault;
	u8 type;
} neuron_hwerr_of_fault[] = {
	{ NEURON_NQ_HW_COLLECTIVES, NEURON_HWERR_COLLECTIVES },
	{ NEURON_NQ_HW_HBM_UE, NEURON_HWERR_HBM },
	{ NEURON_NQ_HW_REPAIRABLE_HBM_UE, NEURON_HWERR_HBM },
	{ NEURON_NQ_HW_NC_UE, NEURON_HWERR_NC },
	{ NEURON_NQ_HW_DMA_ABORT, NEURON_HWERR_DMA },
};

void neuron_hwerr_job(struct neuron_device *nd, u32 nc, struct pid *tgid,
		      const struct neuron_job_faults *f)
{
	/* pairs with neuron_hwerr_init(): @h is seen initialised */
	struct neuron_hwerr *h = smp_load_acquire(&nd->hwerr);
	u32 i;

	if (!h)
		return;
	for (i = 0; i < ARRAY_SIZE(neuron_hwerr_of_fault); i++) {
		u8 fault = neuron_hwerr_of_fault[i].fault;

		neuron_hwerr_report(h, neuron_hwerr_of_fault[i].type, nc,
				    neuron_hw_fault_actions[fault], f->hw[fault], tgid);
	}
}

int neuron_hwerr_init(struct neuron_device *nd)
{
	char raw[NEURON_HWERR_INSTANCE_MAX];
	struct neuron_hwerr *h;
	const char *tag;
	size_t n;
	int t;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	h->nd = nd;
	spin_lock_init(&h->lock);
	INIT_DELAYED_WORK(&h->poll, neuron_hwerr_poll_work);
	/* the first period starts now (jiffies start 5 min before wrapping to 0) */
	for (t = 0; t < NEURON_HWERR_TYPE_COUNT; t++)
		h->rl[t].begin = jiffies;
	tag = nd->ops->instance_id ? nd->ops->instance_id : dmi_get_system_info(DMI_BOARD_ASSET_TAG);
	strscpy(raw, tag && *tag ? tag : "0", sizeof(raw));
	n = strlen(raw);
	while (n > 1 && isspace(raw[n - 1]))
		raw[--n] = '\0';
	/* the platform's string: escaped once, logged as it is from here on */
	neuron_log_escape(h->instance_id, sizeof(h->instance_id), raw);
	neuron_hwerr_poll_ecc(h, true);
	/* the device is visible already: publish @h initialised */
	smp_store_release(&nd->hwerr, h);
	schedule_delayed_work(&h->poll, msecs_to_jiffies(READ_ONCE(hw_err_poll_ms.value)));
	return 0;
}

void neuron_hwerr_stop(struct neuron_device *nd)
{
	/* pairs with neuron_hwerr_init(): @h is seen initialised */
	struct neuron_hwerr *h = smp_load_acquire(&nd->hwerr);
	unsigned long flags;

	if (!h)
		return;
	spin_lock_irqsave(&h->lock, flags);
	h->stopping = true;
	spin_unlock_irqrestore(&h->lock, flags);
	cancel_delayed_work_sync(&h->poll);
}

void neuron_hwerr_free(struct neuron_device *nd)
{
	kfree(nd->hwerr);
	nd->hwerr = NULL;
}
