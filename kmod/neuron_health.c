// SPDX-License-Identifier: GPL-2.0
/*
 * Health of a device and of each NeuronCore: ok, degraded, needs_reset or
 * failed, with a reason, derived on every read from what the driver
 * already holds (common/neuron_health_lib.c has the rules):
 *
 *  - the reset state (neuron_reset.c): INVALID -> failed (reset_failed),
 *    RESET -> degraded (reset_in_progress);
 *  - the uncorrected SRAM and HBM ECC counts in MiscRAM, counted from
 *    their values at the last completed reset (or at registration) ->
 *    needs_reset (sram_uncorrectable, hbm_uncorrectable);
 *  - the backend's unrecoverable NeuronCores (ops->nc_unrecoverable) ->
 *    needs_reset (nc_unrecoverable), on the device and on that core;
 *  - the last FW-IO exchange got no answer (neuron_fwio.c) -> degraded
 *    (fw_not_answering).
 *
 * A completed reset takes the ECC counts as the new baseline and forgets
 * the firmware's silence, so a device a reset repaired reads ok again.
 * Nothing else repairs an uncorrected error: once a check of a ready
 * device counted one, a word that later reads lower (cleared, or toggling
 * across the baseline) keeps the device needs_reset. A device whose words
 * toggle therefore makes one change, not one per poll.
 *
 * Changes are found by neuron_health_check(): the ECC poller runs it every
 * hw_err_poll_ms (neuron_hwerr.c), the reset file right after a reset. A
 * reset in progress is not reported (its outcome is, when it ends).
 * Each change of the device or of a NeuronCore is one NEURON_HW_ERR=HEALTH
 * kernel log line, one netlink HEALTH_EVENT on the "errors" group and one
 * KOBJ_CHANGE uevent of the device; only
 * the last reported health is kept, to tell a change.
 *
 * Locking: t->lock (mutex) serializes checks and rebases; under it only
 * MiscRAM reads, the backend's nc_unrecoverable, the NeuronCore's holder
 * (the core table's lock: t->lock -> cores->lock), the log line with its
 * sysfs_notify, the netlink send and the uevent. The reset file takes it
 * under procs_lock (rebase).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kobject.h>

#include "neuron_core.h"
#include "neuron_device.h"
#include "neuron_fwio.h"
#include "neuron_genl_priv.h"
#include "neuron_health.h"
#include "neuron_hwerr.h"
#include "neuron_main.h"
#include "neuron_reset.h"

/* An unreadable word (firmware not ready, function gone): nothing counted. */
static bool health_ecc(struct neuron_device *nd, u32 off, u32 *count)
{
	u32 w;

	if (!neuron_misc_value(nd, off, &w))
		return false;
	*count = neuron_miscram_ecc_uncorrected(w);
	return true;
}

static u32 health_channels(struct neuron_device *nd)
{
	return min_t(u32, nd->arch->hbm_channels, NEURON_MISCRAM_HBM_CHANNELS);
}

/* Uncorrected errors in the word at @off since @base (none when it cannot be read) */
static u32 health_ecc_since(struct neuron_device *nd, u32 off, const u32 *base)
{
	u32 v;

	return health_ecc(nd, off, &v) ? neuron_health_since(v, READ_ONCE(*base)) : 0;
}

/*
 * @track: a check's read (t->lock held), which keeps what it counted; only
 * on a ready device (what its words read during a reset means nothing)
 */
static void health_inputs(struct neuron_device *nd, struct neuron_health_in *in, bool track)
{
	struct neuron_health_track *t = &nd->health;
	u32 state = READ_ONCE(nd->reset_state);
	u32 nc, ch;

	memset(in, 0, sizeof(*in));
	in->reset_failed = state == NEURON_DEVICE_STATE_INVALID;
	in->resetting = state == NEURON_DEVICE_STATE_RESET;
	in->fw_unanswered = neuron_fwio_unanswered(nd);
	if (nd->ops->nc_unrecoverable)
		for (nc = 0; nc < nd->nc_count; nc++)
			if (nd->ops->nc_unrecoverable(nd->backend, nc))
				in->nc_unrecoverable |= BIT(nc);
	/* an INVALID device's words mean nothing */
	if (in->reset_failed)
		return;
	in->sram_ue = health_ecc_since(nd, NEURON_MISCRAM_SRAM_ECC, &t->sram_base);
	for (ch = 0; ch < health_channels(nd); ch++)
		in->hbm_ue += health_ecc_since(nd, NEURON_MISCRAM_HBM_ECC(ch), &t->hbm_base[ch]);
	in->sram_ue = max(in->sram_ue, READ_ONCE(t->sram_seen));
	in->hbm_ue = max(in->hbm_ue, READ_ONCE(t->hbm_seen));
	if (track && state == NEURON_DEVICE_STATE_READY) {
		WRITE_ONCE(t->sram_seen, in->sram_ue);
		WRITE_ONCE(t->hbm_seen, in->hbm_ue);
	}
}

u32 neuron_health_components_now(struct neuron_device *nd)
{
	struct neuron_health_in in;

	health_inputs(nd, &in, false);
	return neuron_health_components(&in);
}

u64 neuron_health_heartbeat(struct neuron_device *nd)
{
	return atomic64_read(&nd->health.checks);
}

struct neuron_health neuron_health_get(struct neuron_device *nd, s32 nc)
{
	struct neuron_health_in in;

	health_inputs(nd, &in, false);
	return nc < 0 ? neuron_health_device(&in) : neuron_health_core(&in, nc);
}

/*
 * The ECC counts now become the baseline, and nothing is counted since;
 * an unreadable one keeps its own. t->lock held.
 */
static void health_take_baseline(struct neuron_device *nd)
{
	struct neuron_health_track *t = &nd->health;
	u32 ch, v;

	lockdep_assert_held(&t->lock);
	WRITE_ONCE(t->sram_seen, 0);
	WRITE_ONCE(t->hbm_seen, 0);
	if (health_ecc(nd, NEURON_MISCRAM_SRAM_ECC, &v))
		WRITE_ONCE(t->sram_base, v);
	for (ch = 0; ch < health_channels(nd); ch++)
		if (health_ecc(nd, NEURON_MISCRAM_HBM_ECC(ch), &v))
			WRITE_ONCE(t->hbm_base[ch], v);
}

void neuron_health_init(struct neuron_device *nd)
{
	struct neuron_health_track *t = &nd->health;

	mutex_init(&t->lock);
	/* last_*: all zero, ok: a device that starts unhealthy reports it */
	mutex_lock(&t->lock);
	if (READ_ONCE(nd->reset_state) != NEURON_DEVICE_STATE_INVALID)
		health_take_baseline(nd);
	mutex_unlock(&t->lock);
}

void neuron_health_rebase(struct neuron_device *nd)
{
	mutex_lock(&nd->health.lock);
	health_take_baseline(nd);
	mutex_unlock(&nd->health.lock);
	neuron_fwio_reset_done(nd);
}

/*
 * The change as a KOBJ_CHANGE uevent of the device, for udev rules
 * (docs/tools.md, "Health"): NEURON_HEALTH, NEURON_HEALTH_REASON,
 * NEURON_HEALTH_PREVIOUS, NEURON_ACTION, NEURON_NC (-1: the device) and,
 * on a simulated device, NEURON_SIMULATED=1. Not with vendor_only (the
 * vendor's driver sends none).
 */
static void health_uevent(struct neuron_device *nd, s32 nc, struct neuron_health prev,
			  struct neuron_health now)
{
	char env[6][48];
	char *envp[ARRAY_SIZE(env) + 1];
	int n = 0;

	if (neuron_vendor_only())
		return;
	snprintf(env[n++], sizeof(env[0]), "NEURON_HEALTH=%s", neuron_health_state_name(now.state));
	snprintf(env[n++], sizeof(env[0]), "NEURON_HEALTH_REASON=%s",
		 neuron_health_reason_name(now.reason));
	snprintf(env[n++], sizeof(env[0]), "NEURON_HEALTH_PREVIOUS=%s",
		 neuron_health_state_name(prev.state));
	snprintf(env[n++], sizeof(env[0]), "NEURON_ACTION=%s", neuron_health_action(now));
	snprintf(env[n++], sizeof(env[0]), "NEURON_NC=%d", nc);
	if (nd->ops->simulated)
		snprintf(env[n++], sizeof(env[0]), "NEURON_SIMULATED=1");
	for (envp[n] = NULL; n > 0; n--)
		envp[n - 1] = env[n - 1];
	kobject_uevent_env(&nd->dev.kobj, KOBJ_CHANGE, envp);
}

/* A change, with the NeuronCore's holder when one holds it. */
static void health_report(struct neuron_device *nd, s32 nc, struct neuron_health prev,
			  struct neuron_health now)
{
	struct pid *holder = NULL;
	u64 since;

	if (nc >= 0)
		holder = neuron_core_owner_get(nd, nc, &since);
	neuron_hwerr_health(nd, nc, holder, neuron_health_state_name(now.state),
			    neuron_health_reason_name(now.reason), neuron_health_action_id(now));
	neuron_genl_health_event(nd, nc, prev.state, now.state, now.reason,
				 neuron_health_action_id(now), holder);
	health_uevent(nd, nc, prev, now);
	put_pid(holder);
}

static bool health_same(struct neuron_health a, struct neuron_health b)
{
	return a.state == b.state && a.reason == b.reason;
}

void neuron_health_check(struct neuron_device *nd)
{
	struct neuron_health_track *t = &nd->health;
	struct neuron_health_in in;
	struct neuron_health h;
	u32 nc;

	might_sleep();
	atomic64_inc(&t->checks);
	mutex_lock(&t->lock);
	health_inputs(nd, &in, true);
	/*
	 * A reset in progress is no change to report: the reset file
	 * reports its outcome when it ends (the files read degraded,
	 * reset_in_progress meanwhile). Without this a poll during a reset
	 * logged two lines for one reset.
	 */
	if (in.resetting) {
		mutex_unlock(&t->lock);
		return;
	}
	h = neuron_health_device(&in);
	if (!health_same(h, t->last_dev)) {
		health_report(nd, -1, t->last_dev, h);
		t->last_dev = h;
	}
	for (nc = 0; nc < nd->nc_count; nc++) {
		h = neuron_health_core(&in, nc);
		if (!health_same(h, t->last_nc[nc])) {
			health_report(nd, nc, t->last_nc[nc], h);
			t->last_nc[nc] = h;
		}
	}
	mutex_unlock(&t->lock);
}

/* .../neuron<N>/health and health_reason: one word each, any time */
static ssize_t health_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct neuron_health h = neuron_health_get(to_neuron_device(dev), -1);

	return sysfs_emit(buf, "%s\n", neuron_health_state_name(h.state));
}
DEVICE_ATTR_RO(health);

static ssize_t health_reason_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct neuron_health h = neuron_health_get(to_neuron_device(dev), -1);

	return sysfs_emit(buf, "%s\n", neuron_health_reason_name(h.reason));
}
DEVICE_ATTR_RO(health_reason);
