// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics post: every nmetric_post_delay_ms a per-device delayed work
 * samples the NDS totals (neuron_nds_snapshot) and the FW-IO error count,
 * turns them into CloudWatch records (deltas since the last delivered post,
 * common/neuron_metrics_pack.c) and sends them to firmware in one POST_TO_CW
 * blob of at most 128 bytes. As on the reference, each post is a tick and
 * ticks alternate between two metric sets (0, 1, 0, ...; the constants go
 * out on every tick); a record that does not fit is left out. debugfs
 * fw/post_now posts (one tick) at once; fw/post_tick shows the tick the
 * next post uses; fw/post_times shows when the last periodic posts ran.
 *
 * A record's baseline moves only when the blob carrying it was delivered,
 * so a failed post, or a record left out, loses nothing: the next post of
 * that tick carries the sum. The same holds for what is not a counter: the
 * versions of processes that exited (ND 0, 1, 2; CW 180..196) are forgotten
 * only once a blob carried every record of their metric, and the resets
 * recorded for CW 50..55 (neuron_reset.c) wait in @reset until the record
 * of each metric was delivered (max and average over the resets since
 * then, failures counted since then).
 *
 * Locking: m->lock (mutex) serializes posts (worker and post_now) and
 * protects the baselines and the scratch buffers. Order: m->lock -> NDS
 * lock (inside neuron_nds_snapshot and neuron_nds_versions_delivered, never
 * held while posting), m->lock -> the reset window's spinlock and m->lock ->
 * FW-IO mailbox lock. neuron_metrics_stop() never waits longer than one
 * poll step of an exchange: it sets m->stopping, which aborts an exchange
 * in progress.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/dmi.h>
#include <linux/ktime.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "neuron_device.h"
#include "neuron_fwio.h"
#include "neuron_fwio_msg.h"
#include "neuron_main.h"
#include "neuron_metrics.h"
#include "neuron_metrics_pack.h"
#include "neuron_nds_priv.h"
#include "neuron_reset.h"

/* periodic posts whose times fw/post_times keeps */
#define NEURON_METRICS_TIMES	16

/**
 * struct neuron_metrics - metrics post state of one device
 * @nd:		the device
 * @work:	the periodic post
 * @lock:	serializes posts; protects everything below it
 * @stopping:	set once by neuron_metrics_stop(); read locklessly by the
 *		exchange in progress (abort) and the worker (no requeue)
 * @tick:	the tick the next post uses (0 or 1); advances on every post,
 *		delivered or not, as the reference's does
 * @full_logged: a record was left out of a full blob once (logged once)
 * @state:	per-slot baselines (value at the last delivered post)
 * @reset:	per NEURON_METRIC_RESET_DEV/NC, the resets not yet delivered,
 *		each field cleared when its metric's record is delivered
 * @snap:	scratch: the NDS sample
 * @recs:	scratch: this post's records
 * @packed:	scratch: which of @recs the blob carries
 * @instance_id: metric 12
 * @post_now:	debugfs fw/post_now
 * @times:	start and end (ms, CLOCK_MONOTONIC) of the last
 *		NEURON_METRICS_TIMES periodic posts, a ring
 * @ntimes:	periodic posts so far
 * @post_times:	debugfs fw/post_times
 * @post_tick:	debugfs fw/post_tick
 */
struct neuron_metrics {
	struct neuron_device *nd;
	struct delayed_work work;
	struct mutex lock;
	bool stopping;
	u32 tick;
	bool full_logged;
	struct neuron_metric_state state;
	struct neuron_metric_reset_window reset[NEURON_METRIC_RESET_KINDS];
	struct neuron_nds_snapshot snap;
	struct neuron_metric_rec recs[NEURON_METRIC_MAX_RECS];
	u8 packed[NEURON_METRIC_MAX_RECS];
	char instance_id[NEURON_METRIC_TEXT_MAX + 1];
	struct dentry *post_now;
	u64 times[NEURON_METRICS_TIMES][2];
	u32 ntimes;
	struct dentry *post_times;
	struct dentry *post_tick;
};

/*
 * Metric 12: the backend's fixed instance id when it has one; else the
 * instance's DMI board asset tag (the EC2 instance id) with trailing
 * whitespace removed, or "0" when there is none.
 */
static void neuron_metrics_instance_id(struct neuron_metrics *m)
{
	const char *tag = NULL;
	size_t n;

	if (m->nd->ops->instance_id) {
		strscpy(m->instance_id, m->nd->ops->instance_id, sizeof(m->instance_id));
		return;
	}
	tag = dmi_get_system_info(DMI_BOARD_ASSET_TAG);
	strscpy(m->instance_id, tag && *tag ? tag : "0", sizeof(m->instance_id));
	n = strlen(m->instance_id);
	while (n > 1 && isspace(m->instance_id[n - 1]))
		m->instance_id[--n] = '\0';
}

/*
 * A blob of @tick carrying m->recs[0..@n) as m->packed says was delivered:
 * move the counters' baselines, forget the exited processes' versions that
 * went out and the resets whose metrics went out.
 */
static void neuron_metrics_delivered(struct neuron_metrics *m, u32 n, u32 tick)
{
	u32 done = neuron_metric_delivered(m->recs, n, m->packed, tick);
	u32 i, kind, field;

	for (i = 0; i < n; i++)
		if (m->packed[i])
			neuron_metric_commit(&m->state, &m->recs[i]);
	for (i = 0; i < NEURON_METRIC_VERSIONS; i++)
		if (done & NEURON_METRIC_GRP_BIT(NEURON_METRIC_GRP_VER(i)))
			neuron_nds_versions_delivered(m->nd, i, &m->snap.exited_versions[i]);
	for (kind = 0; kind < NEURON_METRIC_RESET_KINDS; kind++)
		for (field = 0; field < NEURON_METRIC_RESET_FIELDS; field++)
			if (done & NEURON_METRIC_GRP_BIT(NEURON_METRIC_GRP_RESET(kind, field)))
				neuron_metric_reset_clear(&m->reset[kind], field);
}

/*
 * One post (one tick), m->lock held: the records due on this tick in one
 * blob. 0 (also when there is nothing to send) or the post's errno.
 */
static int neuron_metrics_post(struct neuron_metrics *m)
{
	struct neuron_device *nd = m->nd;
	struct neuron_metric_input in;
	u8 blob[NEURON_METRIC_BLOB_MAX];
	u32 tick = m->tick;
	u32 n, len, i;
	int ret;

	neuron_nds_snapshot(nd, &m->snap);
	/* no NeuronCore-level reset exists here: m->reset[_NC] stays 0 */
	neuron_reset_take_window(nd, m->reset);
	in = (struct neuron_metric_input) {
		.nc_total = m->snap.nc_total,
		.nc_ids = ARRAY_SIZE(m->snap.nc_total),
		.feature_bitmap = m->snap.feature_bitmap,
		.cluster_id = m->snap.cluster_id,
		.fw_io_err = neuron_fwio_err_count(nd),
		.instance_id = m->instance_id,
		.driver_version = NEURON_DRIVER_VERSION,
		.perf_profile = neuron_fwio_power_profile(nd),
		.versions = m->snap.versions,
	};
	memcpy(in.reset, m->reset, sizeof(in.reset));
	m->tick = (tick + 1) % NEURON_METRIC_TICKS;
	n = neuron_metric_build_tick(&in, &m->state, m->recs, ARRAY_SIZE(m->recs), tick);
	len = neuron_metric_pack_one(m->recs, n, blob, sizeof(blob), m->packed);
	if (!len)
		return 0;
	for (i = 0; i < n && !m->full_logged; i++) {
		if (m->packed[i])
			continue;
		/* nothing is lost: the next post of this tick carries it */
		m->full_logged = true;
		dev_info(&nd->dev, "metrics: blob full, records left for a later post\n");
	}
	ret = neuron_fwio_post_metric(nd, blob, len, &m->stopping);
	if (ret)
		return ret;
	neuron_metrics_delivered(m, n, tick);
	return 0;
}

static void neuron_metrics_work(struct work_struct *work)
{
	struct neuron_metrics *m = container_of(to_delayed_work(work),
						struct neuron_metrics, work);
	u64 *t;
	int ret = 0;

	mutex_lock(&m->lock);
	if (!READ_ONCE(m->stopping)) {
		t = m->times[m->ntimes % NEURON_METRICS_TIMES];
		t[0] = ktime_to_ms(ktime_get());
		ret = neuron_metrics_post(m);
		t[1] = ktime_to_ms(ktime_get());
		m->ntimes++;
	}
	mutex_unlock(&m->lock);
	if (ret && ret != -EINTR)
		dev_dbg(&m->nd->dev, "metrics post failed: %d\n", ret);

	if (!READ_ONCE(m->stopping))
		queue_delayed_work(system_long_wq, &m->work,
				   msecs_to_jiffies(neuron_param_nmetric_post_delay_ms()));
}

int neuron_metrics_post_now(struct neuron_device *nd)
{
	struct neuron_metrics *m = nd->metrics;
	int ret;

	if (!m)
		return -ENODEV;
	if (mutex_lock_killable(&m->lock))
		return -EINTR;
	ret = READ_ONCE(m->stopping) ? -ESHUTDOWN : neuron_metrics_post(m);
	mutex_unlock(&m->lock);
	return ret;
}

/* fw/post_now: any write posts at once; the write fails with the post's errno. */
static ssize_t neuron_metrics_post_now_write(struct file *file, const char __user *buf,
					     size_t count, loff_t *ppos)
{
	struct neuron_metrics *m = file->private_data;
	int ret = neuron_metrics_post_now(m->nd);

	return ret ? ret : count;
}

static const struct file_operations neuron_metrics_post_now_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = neuron_metrics_post_now_write,
	.llseek = noop_llseek,
};

/*
 * fw/post_times: "<start_ms> <end_ms>" of each of the last periodic posts,
 * oldest first, on the monotonic clock. The cadence is visible in it: each
 * post starts one period after the previous one ended.
 */
static int neuron_metrics_times_show(struct seq_file *s, void *unused)
{
	struct neuron_metrics *m = s->private;
	u32 i, first;

	if (mutex_lock_killable(&m->lock))
		return -EINTR;
	first = m->ntimes > NEURON_METRICS_TIMES ? m->ntimes - NEURON_METRICS_TIMES : 0;
	for (i = first; i < m->ntimes; i++)
		seq_printf(s, "%llu %llu\n", m->times[i % NEURON_METRICS_TIMES][0],
			   m->times[i % NEURON_METRICS_TIMES][1]);
	mutex_unlock(&m->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(neuron_metrics_times);

/* fw/post_tick: the tick (0 or 1) the next post, periodic or post_now, uses. */
static int neuron_metrics_tick_show(struct seq_file *s, void *unused)
{
	struct neuron_metrics *m = s->private;

	if (mutex_lock_killable(&m->lock))
		return -EINTR;
	seq_printf(s, "%u\n", m->tick);
	mutex_unlock(&m->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(neuron_metrics_tick);

int neuron_metrics_start(struct neuron_device *nd)
{
	struct neuron_metrics *m;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->nd = nd;
	mutex_init(&m->lock);
	INIT_DELAYED_WORK(&m->work, neuron_metrics_work);
	neuron_metrics_instance_id(m);
	nd->metrics = m;

	m->post_now = debugfs_create_file("post_now", 0200, neuron_fwio_debugfs_dir(nd), m,
					  &neuron_metrics_post_now_fops);
	m->post_times = debugfs_create_file("post_times", 0400, neuron_fwio_debugfs_dir(nd), m,
					    &neuron_metrics_times_fops);
	m->post_tick = debugfs_create_file("post_tick", 0400, neuron_fwio_debugfs_dir(nd), m,
					   &neuron_metrics_tick_fops);
	/* the first post is one full period after start, as on the reference */
	queue_delayed_work(system_long_wq, &m->work,
			   msecs_to_jiffies(neuron_param_nmetric_post_delay_ms()));
	return 0;
}

void neuron_metrics_stop(struct neuron_device *nd)
{
	struct neuron_metrics *m = nd->metrics;

	if (!m)
		return;
	WRITE_ONCE(m->stopping, true);
	/* waits for a post_now writer, whose exchange aborts on m->stopping */
	debugfs_remove(m->post_now);
	debugfs_remove(m->post_times);
	debugfs_remove(m->post_tick);
	/* likewise for a post in progress; the worker does not requeue */
	cancel_delayed_work_sync(&m->work);
	nd->metrics = NULL;
	mutex_destroy(&m->lock);
	kfree(m);
}
