// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated firmware: owns the firmware words of MiscRAM (API version,
 * serial number, ECC, power, repair state) and serves the register-only
 * FW-IO mailbox the driver's transport speaks (neuron_fwio.c).
 *
 * A request is processed asynchronously: the doorbell queues a work item,
 * which snapshots the mailbox (TRIGGER, header, DATA), validates size, CRC
 * (the software CRC-32C of lib/neuron_fwio_frame.c, against the kernel's on
 * the driver side) and command, executes it, and answers: response header
 * into 0x1F0, payload into DATA, TRIGGER cleared. An answer is only written
 * while the request is still posted (TRIGGER set, header unchanged): a
 * request the driver withdrew or replaced is never completed, so a late
 * answer cannot corrupt the next request.
 *
 * Faults: each request takes the fault armed through fw/fault
 * (neuron_sim_inject.c, neuron_sim_inject_take_fw()) and behaves
 * accordingly: answer FAIL or UNKNOWN_COMMAND without executing, never
 * answer, answer with another sequence number, see a corrupted CRC, answer
 * late (slow), or answer 4 bytes too many.
 *
 * Locking: MiscRAM has its own lock (neuron_sim_miscram.c), the armed
 * faults theirs (neuron_sim_inject.c); fw->lock (spinlock) protects the
 * statistics, the posted-blob ring and the pending slow answer. None of
 * the three is taken while holding another.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": sim-fw: " fmt

#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "neuron_fwio_frame.h"
#include "neuron_metrics_pack.h"
#include "neuron_miscram_reg.h"
#include "neuron_sim.h"
#include "neuron_sim_fw.h"

#define NEURON_SIM_FW_API_VERSION	7	/* register-only mailbox */
#define NEURON_SIM_FW_SERIAL_HI		0x4e53494d	/* "NSIM" */
#define NEURON_SIM_FW_POSTED_MAX	64	/* POST_TO_CW blobs kept */
#define NEURON_SIM_FW_PROFILE_MAX	3	/* power profiles it accepts */

struct neuron_sim_blob {
	u8 len;
	u8 data[NEURON_METRIC_BLOB_MAX];
};

/* An answer, or an answer waiting for the slow fault's delay. */
struct neuron_sim_answer {
	u32 req_dw0;		/* the request it answers (must still be posted) */
	u32 req_dw1;
	u32 resp_dw0;
	u32 nwords;		/* DATA words to write */
	u32 words[NEURON_FWIO_DATA_SIZE / 4];
};

/**
 * struct neuron_sim_fw - the simulated firmware of one device
 * @sd:		its device (MiscRAM, armed faults)
 * @req_work:	processes the posted request (queued by the doorbell)
 * @slow_work:	delivers @pending after the slow fault's delay
 * @stopping:	no more work is queued
 * @dbg:	its debugfs files (posted, posted_blobs, sim_stats)
 * @lock:	protects everything below
 * @pending:	the delayed answer, valid when @pending_valid
 * @pending_valid: @pending waits for @slow_work
 * @power_profile: last profile SET_POWER_PROFILE accepted
 * @requests:	requests seen (doorbells that found TRIGGER set)
 * @zero_seq:	requests that carried sequence number 0 (must stay 0)
 * @seq_wraps:	times the sequence number went down (255 -> 1)
 * @seq_gaps:	requests whose number was not the one after the previous
 * @last_seq:	the last sequence number seen, valid when @seq_seen
 * @seq_seen:	a request with a non-zero number has arrived
 * @crc_errors:	requests whose CRC did not match (bad_crc included)
 * @dropped:	answers not written because the request was withdrawn
 * @slow_done:	delayed answers @slow_work has delivered (or dropped); with
 *		@pending_valid clear, no late answer is left to land
 * @posted:	ring of the last NEURON_SIM_FW_POSTED_MAX POST_TO_CW blobs
 * @posted_head: next slot of @posted to write
 * @posted_count: blobs in @posted
 */
struct neuron_sim_fw {
	struct neuron_sim_dev *sd;
	struct work_struct req_work;
	struct delayed_work slow_work;
	bool stopping;
	struct dentry *dbg[3];

	spinlock_t lock;
	struct neuron_sim_answer pending;
	bool pending_valid;
	u32 power_profile;
	u64 requests;
	u64 zero_seq;
	u64 seq_wraps;
	u64 seq_gaps;
	u8 last_seq;
	bool seq_seen;
	u64 crc_errors;
	u64 dropped;
	u64 slow_done;
	struct neuron_sim_blob posted[NEURON_SIM_FW_POSTED_MAX];
	u32 posted_head;
	u32 posted_count;
};

/* Under the MiscRAM lock: write the answer if its request is still posted. */
static bool neuron_sim_fw_answer_words(u32 *w, void *ctx)
{
	const struct neuron_sim_answer *a = ctx;
	u32 i;

	if (!w[NEURON_MISCRAM_TRIGGER / 4] || w[NEURON_MISCRAM_HDR0 / 4] != a->req_dw0 ||
	    w[NEURON_MISCRAM_HDR1 / 4] != a->req_dw1)
		return false;
	for (i = 0; i < a->nwords; i++)
		w[NEURON_MISCRAM_DATA / 4 + i] = a->words[i];
	w[NEURON_MISCRAM_HDR0 / 4] = a->resp_dw0;
	w[NEURON_MISCRAM_TRIGGER / 4] = 0;
	return true;
}

/* Write @a if its request is still posted; false if it was withdrawn. */
static bool neuron_sim_fw_answer(struct neuron_sim_fw *fw, struct neuron_sim_answer *a)
{
	unsigned long flags;
	bool ok;

	ok = neuron_sim_miscram_update(&fw->sd->miscram, neuron_sim_fw_answer_words, a);
	if (!ok) {
		spin_lock_irqsave(&fw->lock, flags);
		fw->dropped++;
		spin_unlock_irqrestore(&fw->lock, flags);
	}
	return ok;
}

/* Account the request's sequence number. */
static void neuron_sim_fw_account(struct neuron_sim_fw *fw, u8 seq)
{
	unsigned long flags;

	spin_lock_irqsave(&fw->lock, flags);
	fw->requests++;
	if (!seq) {
		fw->zero_seq++;
	} else {
		if (fw->seq_seen && seq != neuron_fwio_seq_next(fw->last_seq))
			fw->seq_gaps++;
		if (fw->seq_seen && seq < fw->last_seq)
			fw->seq_wraps++;
		fw->last_seq = seq;
		fw->seq_seen = true;
	}
	spin_unlock_irqrestore(&fw->lock, flags);
}

static void neuron_sim_fw_record_post(struct neuron_sim_fw *fw, const u8 *blob, u32 len)
{
	unsigned long flags;
	struct neuron_sim_blob *b;

	spin_lock_irqsave(&fw->lock, flags);
	b = &fw->posted[fw->posted_head];
	b->len = len;
	memcpy(b->data, blob, len);
	fw->posted_head = (fw->posted_head + 1) % NEURON_SIM_FW_POSTED_MAX;
	if (fw->posted_count < NEURON_SIM_FW_POSTED_MAX)
		fw->posted_count++;
	spin_unlock_irqrestore(&fw->lock, flags);
}

/* Execute a validated request: error code, response payload in @resp. */
static u8 neuron_sim_fw_execute(struct neuron_sim_fw *fw, u8 cmd, const u8 *p, u32 len,
				u8 *resp, u32 *resp_len)
{
	unsigned long flags;
	u32 i, off = 0;
	u8 id, vlen;
	const u8 *val;
	int r;

	*resp_len = 0;
	switch (cmd) {
	case NEURON_FWIO_CMD_READ:
		if (!len || len % 8)
			return NEURON_FWIO_FAIL;
		for (i = 0; i < len / 8; i++) {
			u64 addr = 0;
			u32 v;
			int k;

			for (k = 7; k >= 0; k--)
				addr = addr << 8 | p[8 * i + k];
			/* the simulated device's address space is its MiscRAM */
			v = addr < NEURON_SIM_MISCRAM_SIZE ?
			    neuron_sim_miscram_read(&fw->sd->miscram, (u32)addr) :
			    NEURON_MISCRAM_BAD_READ;
			resp[4 * i] = v & 0xff;
			resp[4 * i + 1] = (v >> 8) & 0xff;
			resp[4 * i + 2] = (v >> 16) & 0xff;
			resp[4 * i + 3] = v >> 24;
		}
		*resp_len = 4 * (len / 8);
		return NEURON_FWIO_SUCCESS;

	case NEURON_FWIO_CMD_POST_TO_CW:
		if (!len)
			return NEURON_FWIO_FAIL;
		while ((r = neuron_metric_next(p, len, &off, &id, &val, &vlen)) > 0)
			;
		if (r < 0)
			return NEURON_FWIO_FAIL;
		neuron_sim_fw_record_post(fw, p, len);
		return NEURON_FWIO_SUCCESS;

	case NEURON_FWIO_CMD_SET_POWER_PROFILE:
		if (len != NEURON_FWIO_POWER_PAYLOAD || p[0] || p[1] || p[2] || p[3] ||
		    p[5] || p[6] || p[7] || p[4] > NEURON_SIM_FW_PROFILE_MAX)
			return NEURON_FWIO_FAIL;
		spin_lock_irqsave(&fw->lock, flags);
		fw->power_profile = p[4];
		spin_unlock_irqrestore(&fw->lock, flags);
		return NEURON_FWIO_SUCCESS;

	default:
		return NEURON_FWIO_UNKNOWN_COMMAND;
	}
}

/* A posted request as the firmware reads it. */
struct neuron_sim_request {
	u32 dw0;
	u32 dw1;
	u32 words[NEURON_FWIO_DATA_SIZE / 4];
};

/*
 * Under the MiscRAM lock: copy the request out. A request is complete once
 * TRIGGER is set (the driver writes it last); false when it is not.
 */
static bool neuron_sim_fw_read_request(u32 *w, void *ctx)
{
	struct neuron_sim_request *r = ctx;

	if (!w[NEURON_MISCRAM_TRIGGER / 4])
		return false;
	r->dw0 = w[NEURON_MISCRAM_HDR0 / 4];
	r->dw1 = w[NEURON_MISCRAM_HDR1 / 4];
	memcpy(r->words, &w[NEURON_MISCRAM_DATA / 4], sizeof(r->words));
	return true;
}

static void neuron_sim_fw_req_work(struct work_struct *work)
{
	struct neuron_sim_fw *fw = container_of(work, struct neuron_sim_fw, req_work);
	struct neuron_sim_request req;
	u8 payload[NEURON_FWIO_DATA_SIZE];
	u8 resp[NEURON_FWIO_DATA_SIZE];
	struct neuron_sim_answer a = { 0 };
	enum neuron_sim_fw_fault fault;
	u32 dw0, dw1, plen = 0, rlen = 0, i, slow_ms;
	unsigned long flags;
	u16 size;
	u8 seq, cmd, code;

	if (!neuron_sim_miscram_update(&fw->sd->miscram, neuron_sim_fw_read_request, &req))
		return;
	dw0 = req.dw0;
	dw1 = req.dw1;

	seq = neuron_fwio_dw0_seq(dw0);
	cmd = neuron_fwio_dw0_code(dw0);
	size = neuron_fwio_dw0_size(dw0);
	neuron_sim_fw_account(fw, seq);
	fault = neuron_sim_inject_take_fw(fw->sd, &slow_ms);
	if (fault == NEURON_SIM_FW_TIMEOUT)
		return;

	if (size < NEURON_FWIO_REQ_HDR_SIZE ||
	    size > NEURON_FWIO_REQ_HDR_SIZE + NEURON_FWIO_MAX_PAYLOAD) {
		code = NEURON_FWIO_FAIL;
	} else {
		plen = size - NEURON_FWIO_REQ_HDR_SIZE;
		neuron_fwio_unpack_words(req.words, plen, payload);
		if (fault == NEURON_SIM_FW_BAD_CRC ||
		    neuron_fwio_req_crc_sw(dw0, payload, plen) != dw1) {
			spin_lock_irqsave(&fw->lock, flags);
			fw->crc_errors++;
			spin_unlock_irqrestore(&fw->lock, flags);
			code = NEURON_FWIO_FAIL;
		} else if (fault == NEURON_SIM_FW_FAIL) {
			code = NEURON_FWIO_FAIL;
		} else if (fault == NEURON_SIM_FW_UNKNOWN_COMMAND) {
			code = NEURON_FWIO_UNKNOWN_COMMAND;
		} else {
			code = neuron_sim_fw_execute(fw, cmd, payload, plen, resp, &rlen);
		}
	}
	if (code != NEURON_FWIO_SUCCESS)
		rlen = 0;

	a.req_dw0 = dw0;
	a.req_dw1 = dw1;
	if (fault == NEURON_SIM_FW_BAD_SEQ && code == NEURON_FWIO_SUCCESS)
		seq = (seq ^ 0x80) ? (seq ^ 0x80) : 0x55;
	if (fault == NEURON_SIM_FW_OVERSIZE && code == NEURON_FWIO_SUCCESS) {
		for (i = rlen; i < rlen + 4 && i < sizeof(resp); i++)
			resp[i] = 0xA5;
		rlen = min_t(u32, rlen + 4, sizeof(resp));
	}
	a.resp_dw0 = neuron_fwio_resp_dw0(seq, code, NEURON_FWIO_RESP_HDR_SIZE + rlen);
	a.nwords = neuron_fwio_pack_words(resp, rlen, a.words);

	if (fault == NEURON_SIM_FW_SLOW) {
		spin_lock_irqsave(&fw->lock, flags);
		fw->pending = a;
		fw->pending_valid = true;
		spin_unlock_irqrestore(&fw->lock, flags);
		if (!READ_ONCE(fw->stopping))
			mod_delayed_work(system_wq, &fw->slow_work, msecs_to_jiffies(slow_ms));
		return;
	}
	neuron_sim_fw_answer(fw, &a);
}

static void neuron_sim_fw_slow_work(struct work_struct *work)
{
	struct neuron_sim_fw *fw = container_of(to_delayed_work(work), struct neuron_sim_fw,
						slow_work);
	struct neuron_sim_answer a;
	unsigned long flags;
	bool valid;

	spin_lock_irqsave(&fw->lock, flags);
	valid = fw->pending_valid;
	fw->pending_valid = false;
	a = fw->pending;
	spin_unlock_irqrestore(&fw->lock, flags);
	if (!valid)
		return;
	neuron_sim_fw_answer(fw, &a);
	spin_lock_irqsave(&fw->lock, flags);
	fw->slow_done++;
	spin_unlock_irqrestore(&fw->lock, flags);
}

void neuron_sim_fw_doorbell(struct neuron_sim_fw *fw)
{
	if (!READ_ONCE(fw->stopping))
		queue_work(system_wq, &fw->req_work);
}

/* ---- debugfs: what the firmware saw (fw/posted, posted_blobs, sim_stats) -- */

/* The @i-th oldest recorded blob (i < posted_count). Caller holds fw->lock. */
static const struct neuron_sim_blob *neuron_sim_fw_posted_blob(const struct neuron_sim_fw *fw,
							       u32 i)
{
	u32 slot = (fw->posted_head + NEURON_SIM_FW_POSTED_MAX - fw->posted_count + i) %
		   NEURON_SIM_FW_POSTED_MAX;

	return &fw->posted[slot];
}

/* fw/posted: one "<cw_id> <value>" line per record, oldest blob first. */
static int neuron_sim_fw_posted_show(struct seq_file *m, void *unused)
{
	struct neuron_sim_fw *fw = m->private;
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&fw->lock, flags);
	for (i = 0; i < fw->posted_count; i++) {
		const struct neuron_sim_blob *b = neuron_sim_fw_posted_blob(fw, i);
		const u8 *val;
		u32 off = 0;
		u8 id, vlen;

		while (neuron_metric_next(b->data, b->len, &off, &id, &val, &vlen) > 0)
			seq_printf(m, "%u %.*s\n", id, vlen, val);
	}
	spin_unlock_irqrestore(&fw->lock, flags);
	return 0;
}

static int neuron_sim_fw_posted_open(struct inode *inode, struct file *file)
{
	return single_open(file, neuron_sim_fw_posted_show, inode->i_private);
}

/* Any write forgets the recorded blobs. */
static ssize_t neuron_sim_fw_posted_write(struct file *file, const char __user *ubuf,
					  size_t count, loff_t *ppos)
{
	struct neuron_sim_fw *fw = ((struct seq_file *)file->private_data)->private;
	unsigned long flags;

	spin_lock_irqsave(&fw->lock, flags);
	fw->posted_count = 0;
	fw->posted_head = 0;
	spin_unlock_irqrestore(&fw->lock, flags);
	return count;
}

static const struct file_operations neuron_sim_fw_posted_fops = {
	.owner = THIS_MODULE,
	.open = neuron_sim_fw_posted_open,
	.read = seq_read,
	.write = neuron_sim_fw_posted_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* fw/posted_blobs: "<bytes> <records>" per recorded blob, oldest first. */
static int neuron_sim_fw_blobs_show(struct seq_file *m, void *unused)
{
	struct neuron_sim_fw *fw = m->private;
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&fw->lock, flags);
	for (i = 0; i < fw->posted_count; i++) {
		const struct neuron_sim_blob *b = neuron_sim_fw_posted_blob(fw, i);
		u32 off = 0, recs = 0;
		const u8 *val;
		u8 id, vlen;

		while (neuron_metric_next(b->data, b->len, &off, &id, &val, &vlen) > 0)
			recs++;
		seq_printf(m, "%u %u\n", b->len, recs);
	}
	spin_unlock_irqrestore(&fw->lock, flags);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(neuron_sim_fw_blobs);

static int neuron_sim_fw_stats_show(struct seq_file *m, void *unused)
{
	struct neuron_sim_fw *fw = m->private;
	unsigned long flags;

	spin_lock_irqsave(&fw->lock, flags);
	seq_printf(m, "requests %llu\n", fw->requests);
	seq_printf(m, "last_seq %u\n", fw->last_seq);
	seq_printf(m, "zero_seq %llu\n", fw->zero_seq);
	seq_printf(m, "seq_wraps %llu\n", fw->seq_wraps);
	seq_printf(m, "seq_gaps %llu\n", fw->seq_gaps);
	seq_printf(m, "crc_errors %llu\n", fw->crc_errors);
	seq_printf(m, "dropped %llu\n", fw->dropped);
	seq_printf(m, "slow_pending %u\n", fw->pending_valid);
	seq_printf(m, "slow_done %llu\n", fw->slow_done);
	seq_printf(m, "power_profile %u\n", fw->power_profile);
	spin_unlock_irqrestore(&fw->lock, flags);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(neuron_sim_fw_stats);

void neuron_sim_fw_debugfs(struct neuron_sim_fw *fw, struct dentry *dir)
{
	fw->dbg[0] = debugfs_create_file("posted", 0600, dir, fw, &neuron_sim_fw_posted_fops);
	fw->dbg[1] = debugfs_create_file("posted_blobs", 0400, dir, fw,
					 &neuron_sim_fw_blobs_fops);
	fw->dbg[2] = debugfs_create_file("sim_stats", 0400, dir, fw, &neuron_sim_fw_stats_fops);
}

void neuron_sim_fw_debugfs_exit(struct neuron_sim_fw *fw)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fw->dbg); i++) {
		debugfs_remove(fw->dbg[i]);
		fw->dbg[i] = NULL;
	}
}

/* ---- life cycle ----------------------------------------------------------- */

struct neuron_sim_fw *neuron_sim_fw_create(struct neuron_sim_dev *sd)
{
	struct neuron_sim_miscram *m = &sd->miscram;
	struct neuron_sim_fw *fw;
	u32 ch;

	fw = kzalloc(sizeof(*fw), GFP_KERNEL);
	if (!fw)
		return NULL;
	fw->sd = sd;
	spin_lock_init(&fw->lock);
	INIT_WORK(&fw->req_work, neuron_sim_fw_req_work);
	INIT_DELAYED_WORK(&fw->slow_work, neuron_sim_fw_slow_work);

	neuron_sim_miscram_write(m, NEURON_MISCRAM_API_VERSION, NEURON_SIM_FW_API_VERSION);
	neuron_sim_miscram_write(m, NEURON_MISCRAM_DEVICE_ID, sd->id);
	neuron_sim_miscram_write(m, NEURON_MISCRAM_SERIAL_LO, 0x00010000 + sd->id);
	neuron_sim_miscram_write(m, NEURON_MISCRAM_SERIAL_HI, NEURON_SIM_FW_SERIAL_HI);
	/* ECC counts start at 0; inject/ecc writes them */
	neuron_sim_miscram_write(m, NEURON_MISCRAM_SRAM_ECC, 0);
	for (ch = 0; ch < NEURON_MISCRAM_HBM_CHANNELS; ch++)
		neuron_sim_miscram_write(m, NEURON_MISCRAM_HBM_ECC(ch), 0);
	/* two dice, utilization 0, sample counter 1 (one sample taken) */
	neuron_sim_miscram_write(m, NEURON_MISCRAM_POWER(0), 1u << 16);
	neuron_sim_miscram_write(m, NEURON_MISCRAM_POWER(1), 1u << 16);
	neuron_sim_miscram_write(m, NEURON_MISCRAM_REPAIR_STATE, NEURON_HBM_REPAIR_NONE);
	neuron_sim_miscram_write(m, NEURON_MISCRAM_TRIGGER, 0);
	return fw;
}

void neuron_sim_fw_destroy(struct neuron_sim_fw *fw)
{
	if (!fw)
		return;
	WRITE_ONCE(fw->stopping, true);
	cancel_work_sync(&fw->req_work);
	cancel_delayed_work_sync(&fw->slow_work);
	kfree(fw);
}
