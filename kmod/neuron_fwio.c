// SPDX-License-Identifier: GPL-2.0
/*
 * FW-IO transport: the register-only MiscRAM mailbox ("new framework",
 * firmware API >= 7), one exchange in flight per device.
 *
 * An attempt:
 *   1. if TRIGGER is still set (it should not be: see 4), write 0 to it:
 *      the request is withdrawn; firmware must not complete a request whose
 *      TRIGGER was withdrawn or whose header was replaced;
 *   2. take a fresh sequence number (never 0);
 *   3. write the payload to DATA (0x100..), the header dw0 to 0x1F0, the
 *      CRC-32C (header with crc 0, then payload) to 0x1F4, zero the legacy
 *      response address words 0x1F8/0x1FC, write 1 to ACK (0xF0) and then 1
 *      to TRIGGER (0x800), and call the backend's doorbell hook;
 *   4. poll TRIGGER until firmware clears it or fwio_timeout_ms passes;
 *      on a timeout (or when the caller is killed) withdraw the request by
 *      writing 0 to TRIGGER;
 *   5. read the response header from 0x1F0 and, on SUCCESS, the payload
 *      from DATA.
 * Up to fwio_retries attempts: the loop and the per-attempt rules (what
 * retries, what is counted where) are neuron_fwio_loop() and
 * neuron_fwio_attempt_step() in lib/neuron_fwio_frame.c, shared with the
 * host tests.
 *
 * Locking: fw->lock (mutex) serializes exchanges: it covers the mailbox
 * registers and the sequence number for a whole exchange, all attempts.
 * Lock order: metrics lock -> fw->lock -> the backend's own lock, if any,
 * inside misc_read/misc_write. Nothing is called under fw->lock
 * that takes a lock of the NDS, sysfs or device core. The counters are
 * atomics, readable without the lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "neuron_compat.h"
#include "neuron_device.h"
#include "neuron_fwio.h"
#include "neuron_main.h"

/**
 * struct neuron_fwio - FW-IO state of one device
 * @nd:		the device
 * @lock:	serializes exchanges; protects the mailbox registers and @seq
 * @seq:	last sequence number used (written under @lock, read locklessly
 *		by debugfs)
 * @err_count:	error responses (error_code != SUCCESS), the vendor's
 *		fw_io_err_count
 * @timeout_count: attempts without a usable answer: timeouts, sequence
 *		mismatches, responses of the wrong size
 * @old_api_logged: "API too old" was logged once
 * @dying:	set once at device removal: exchanges abort at their next poll
 * @dbg:	debugfs fw/ directory
 */
struct neuron_fwio {
	struct neuron_device *nd;
	struct mutex lock;
	u8 seq;
	atomic64_t err_count;
	atomic64_t timeout_count;
	bool old_api_logged;
	bool dying;
	struct dentry *dbg;
};

/*
 * CRC-32C with the kernel's implementation (lib/crc32.c, built in): the
 * raw-register form, so the header and the payload chain; inverted at the
 * end. lib/neuron_fwio_frame.c has the same CRC as a software table, which
 * the host tests and a firmware model check against this one.
 */
static u32 neuron_fwio_req_crc(u32 dw0, const void *payload, size_t len)
{
	u8 hdr[NEURON_FWIO_REQ_HDR_SIZE];
	u32 crc;

	neuron_fwio_hdr_bytes(dw0, hdr);
	crc = neuron_crc32c_raw(~0u, hdr, sizeof(hdr));
	if (len)
		crc = neuron_crc32c_raw(crc, payload, len);
	return ~crc;
}

static inline u32 fw_rd(struct neuron_fwio *fw, u32 off)
{
	return neuron_misc_read(fw->nd, off);
}

static inline void fw_wr(struct neuron_fwio *fw, u32 off, u32 val)
{
	neuron_misc_write(fw->nd, off, val);
}

static bool neuron_fwio_should_abort(const struct neuron_fwio *fw,
				     const struct neuron_fwio_xfer *x)
{
	return (x->abort && READ_ONCE(*x->abort)) || READ_ONCE(fw->dying) ||
	       fatal_signal_pending(current);
}

/*
 * The device is going away: every exchange in progress gives up at its next
 * poll step and new ones fail at once, so nothing waiting for fw->lock (the
 * metrics worker at removal) waits longer than one poll step.
 */
void neuron_fwio_quiesce(struct neuron_device *nd)
{
	if (nd->fwio)
		WRITE_ONCE(nd->fwio->dying, true);
}

/*
 * Wait for firmware to clear TRIGGER: 1 done, 0 deadline passed, -EINTR.
 * For the first 100 us poll with cond_resched() (a firmware answers in
 * tens of microseconds; one that answers from a work item on this CPU gets
 * it at the reschedule point), then sleep from a few microseconds
 * doubling up to 1 ms, so a hung firmware costs about 1000 wake-ups per
 * second and nothing else.
 */
static int neuron_fwio_poll(struct neuron_fwio *fw, const struct neuron_fwio_xfer *x,
			    unsigned int timeout_ms)
{
	ktime_t deadline = ktime_add_ms(ktime_get(), timeout_ms);
	ktime_t spin_end = ktime_add_us(ktime_get(), 100);
	unsigned int us = 4;

	while (ktime_before(ktime_get(), spin_end)) {
		if (!fw_rd(fw, NEURON_MISCRAM_TRIGGER))
			return 1;
		cond_resched();
		cpu_relax();
	}
	for (;;) {
		bool late = ktime_after(ktime_get(), deadline);

		/* one last look after the deadline: never time out on a done request */
		if (!fw_rd(fw, NEURON_MISCRAM_TRIGGER))
			return 1;
		if (late)
			return 0;
		if (neuron_fwio_should_abort(fw, x))
			return -EINTR;
		usleep_range(us, us + us / 2);
		us = min(us * 2, 1000u);
	}
}

static const char *neuron_fwio_attempt_name(enum neuron_fwio_attempt a)
{
	switch (a) {
	case NEURON_FWIO_ATT_OK:
		return "ok";
	case NEURON_FWIO_ATT_FW_FAIL:
		return "FW_IO_FAIL";
	case NEURON_FWIO_ATT_FW_UNKNOWN:
		return "FW_IO_UNKNOWN_COMMAND";
	case NEURON_FWIO_ATT_TIMEOUT:
		return "timeout";
	case NEURON_FWIO_ATT_BAD_SEQ:
		return "sequence mismatch";
	case NEURON_FWIO_ATT_BAD_SIZE:
		return "wrong response size";
	}
	return "?";
}

/* One attempt; returns its classification or -EINTR. Called with fw->lock held. */
static int neuron_fwio_attempt(struct neuron_fwio *fw, struct neuron_fwio_xfer *x,
			       unsigned int timeout_ms)
{
	u32 words[NEURON_FWIO_DATA_SIZE / 4];
	u16 size = NEURON_FWIO_REQ_HDR_SIZE + x->req_len;
	enum neuron_fwio_attempt att;
	u32 dw0, rsp, nwords, i;
	int done;
	u8 seq;

	if (fw_rd(fw, NEURON_MISCRAM_TRIGGER))
		fw_wr(fw, NEURON_MISCRAM_TRIGGER, 0);

	seq = neuron_fwio_seq_next(fw->seq);
	WRITE_ONCE(fw->seq, seq);
	dw0 = neuron_fwio_req_dw0(seq, x->cmd, size);

	nwords = neuron_fwio_pack_words(x->req, x->req_len, words);
	for (i = 0; i < nwords; i++)
		fw_wr(fw, NEURON_MISCRAM_DATA + 4 * i, words[i]);
	fw_wr(fw, NEURON_MISCRAM_HDR0, dw0);
	fw_wr(fw, NEURON_MISCRAM_HDR1, neuron_fwio_req_crc(dw0, x->req, x->req_len));
	fw_wr(fw, NEURON_MISCRAM_RESP_HI, 0);
	fw_wr(fw, NEURON_MISCRAM_RESP_LO, 0);
	fw_wr(fw, NEURON_MISCRAM_ACK, 1);
	fw_wr(fw, NEURON_MISCRAM_TRIGGER, 1);
	if (fw->nd->ops->fw_doorbell)
		fw->nd->ops->fw_doorbell(fw->nd->backend);

	done = neuron_fwio_poll(fw, x, timeout_ms);
	if (done <= 0)
		/* withdraw: firmware must not complete an abandoned request */
		fw_wr(fw, NEURON_MISCRAM_TRIGGER, 0);
	if (done < 0)
		return done;
	x->attempts++;
	rsp = done ? fw_rd(fw, NEURON_MISCRAM_HDR0) : 0;

	att = neuron_fwio_classify(done, seq, rsp, x->resp_len);
	if (att == NEURON_FWIO_ATT_OK && x->resp_len) {
		nwords = DIV_ROUND_UP(x->resp_len, 4);
		for (i = 0; i < nwords; i++)
			words[i] = fw_rd(fw, NEURON_MISCRAM_DATA + 4 * i);
		/* exactly resp_len bytes: never past the caller's buffer */
		neuron_fwio_unpack_words(words, x->resp_len, x->resp);
	}
	if (att != NEURON_FWIO_ATT_OK)
		dev_dbg(&fw->nd->dev, "fw-io: cmd %u seq %u attempt %u: %s (response 0x%08x)\n",
			x->cmd, seq, x->attempts, neuron_fwio_attempt_name(att), rsp);
	return att;
}

/* API version gate of the register-only mailbox, checked on every exchange. */
static bool neuron_fwio_api_ok(struct neuron_fwio *fw)
{
	u32 v = fw_rd(fw, NEURON_MISCRAM_API_VERSION);

	if (v != NEURON_MISCRAM_BAD_READ && v >= NEURON_FWIO_MIN_API_VERSION)
		return true;
	if (!fw->old_api_logged) {
		fw->old_api_logged = true;
		dev_warn(&fw->nd->dev,
			 "fw-io: firmware API version %#x is below %u: the mailbox is unavailable\n",
			 v, NEURON_FWIO_MIN_API_VERSION);
	}
	return false;
}

/* The transport's side of neuron_fwio_loop() (lib/neuron_fwio_frame.c). */
struct neuron_fwio_loop_ctx {
	struct neuron_fwio *fw;
	struct neuron_fwio_xfer *x;
	unsigned int timeout_ms;
};

static int neuron_fwio_loop_attempt(void *ctx)
{
	struct neuron_fwio_loop_ctx *c = ctx;

	return neuron_fwio_attempt(c->fw, c->x, c->timeout_ms);
}

static void neuron_fwio_loop_count(void *ctx, const struct neuron_fwio_step *step)
{
	struct neuron_fwio_loop_ctx *c = ctx;

	if (step->err_count)
		atomic64_inc(&c->fw->err_count);
	if (step->timeout_count)
		atomic64_inc(&c->fw->timeout_count);
}

static const struct neuron_fwio_loop_ops neuron_fwio_loop_ops = {
	.attempt = neuron_fwio_loop_attempt,
	.count = neuron_fwio_loop_count,
};

int neuron_fwio_exchange(struct neuron_device *nd, struct neuron_fwio_xfer *x)
{
	struct neuron_fwio *fw = nd->fwio;
	struct neuron_fwio_loop_ctx ctx = {
		.fw = fw, .x = x, .timeout_ms = neuron_param_fwio_timeout_ms(),
	};
	enum neuron_fwio_outcome out;

	x->attempts = 0;
	x->outcome = NEURON_FWIO_OUT_INTR;
	if (!fw || READ_ONCE(fw->dying))
		return -ENODEV;
	if (x->req_len > NEURON_FWIO_MAX_PAYLOAD || x->resp_len > NEURON_FWIO_MAX_PAYLOAD) {
		x->outcome = NEURON_FWIO_OUT_TOO_BIG;
		return neuron_fwio_outcome_errno(x->outcome);
	}
	if (mutex_lock_killable(&fw->lock))
		return -EINTR;
	/* removal began while this caller queued behind another exchange */
	if (READ_ONCE(fw->dying)) {
		mutex_unlock(&fw->lock);
		return -ENODEV;
	}

	if (!neuron_fwio_api_ok(fw)) {
		out = NEURON_FWIO_OUT_OLD_API;
		goto unlock;
	}
	if (fw->old_api_logged) {
		fw->old_api_logged = false;
		dev_info(&nd->dev, "fw-io: firmware API version is supported again\n");
	}

	out = neuron_fwio_loop(neuron_param_fwio_retries(), &neuron_fwio_loop_ops, &ctx);

	if (out != NEURON_FWIO_OUT_OK && out != NEURON_FWIO_OUT_INTR)
		dev_warn_ratelimited(&nd->dev, "fw-io: cmd %u failed after %u attempt(s): %pe\n",
				     x->cmd, x->attempts,
				     ERR_PTR(neuron_fwio_outcome_errno(out)));
unlock:
	mutex_unlock(&fw->lock);
	x->outcome = out;
	/* aborted because the device is going away, not because of the caller */
	if (out == NEURON_FWIO_OUT_INTR && READ_ONCE(fw->dying))
		return -ENODEV;
	return neuron_fwio_outcome_errno(out);
}

u64 neuron_fwio_err_count(struct neuron_device *nd)
{
	return nd->fwio ? atomic64_read(&nd->fwio->err_count) : 0;
}

u64 neuron_fwio_timeout_count(struct neuron_device *nd)
{
	return nd->fwio ? atomic64_read(&nd->fwio->timeout_count) : 0;
}

/* Firmware-owned words are read directly (no exchange): MiscRAM is mapped. */
int neuron_fwio_serial_number(struct neuron_device *nd, u64 *serial)
{
	u32 lo, hi;

	if (!nd->fwio)
		return -ENODEV;
	lo = neuron_misc_read(nd, NEURON_MISCRAM_SERIAL_LO);
	hi = neuron_misc_read(nd, NEURON_MISCRAM_SERIAL_HI);
	if (lo == NEURON_MISCRAM_BAD_READ || hi == NEURON_MISCRAM_BAD_READ)
		return -EIO;
	*serial = (u64)hi << 32 | lo;
	return 0;
}

int neuron_fwio_api_version(struct neuron_device *nd, u32 *version)
{
	u32 v;

	if (!nd->fwio)
		return -ENODEV;
	v = neuron_misc_read(nd, NEURON_MISCRAM_API_VERSION);
	if (v == NEURON_MISCRAM_BAD_READ)
		return -EIO;
	*version = v;
	return 0;
}

struct dentry *neuron_fwio_debugfs_dir(const struct neuron_device *nd)
{
	return nd->fwio ? nd->fwio->dbg : NULL;
}

/* ---- debugfs: fw/last_seq, fw/stats (read-only, root) ------------------- */

static int neuron_fwio_last_seq_get(void *data, u64 *val)
{
	struct neuron_fwio *fw = data;

	*val = READ_ONCE(fw->seq);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(neuron_fwio_last_seq_fops, neuron_fwio_last_seq_get, NULL, "%llu\n");

static int neuron_fwio_stats_show(struct seq_file *m, void *unused)
{
	struct neuron_fwio *fw = m->private;

	seq_printf(m, "err_count %lld\n", (long long)atomic64_read(&fw->err_count));
	seq_printf(m, "timeout_count %lld\n", (long long)atomic64_read(&fw->timeout_count));
	seq_printf(m, "last_seq %u\n", READ_ONCE(fw->seq));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(neuron_fwio_stats);

int neuron_fwio_init(struct neuron_device *nd)
{
	struct neuron_fwio *fw;

	fw = kzalloc(sizeof(*fw), GFP_KERNEL);
	if (!fw)
		return -ENOMEM;
	fw->nd = nd;
	mutex_init(&fw->lock);
	/* the first request uses 2, as on the reference driver */
	fw->seq = 1;
	atomic64_set(&fw->err_count, 0);
	atomic64_set(&fw->timeout_count, 0);

	fw->dbg = debugfs_create_dir("fw", nd->debugfs);
	debugfs_create_file_unsafe("last_seq", 0400, fw->dbg, fw, &neuron_fwio_last_seq_fops);
	debugfs_create_file("stats", 0400, fw->dbg, fw, &neuron_fwio_stats_fops);

	nd->fwio = fw;
	return 0;
}

void neuron_fwio_exit(struct neuron_device *nd)
{
	struct neuron_fwio *fw = nd->fwio;

	if (!fw)
		return;
	/*
	 * On device removal the whole debugfs tree is already gone (and
	 * nd->debugfs is NULL); on a failed create it is still there, so
	 * remove our files before freeing what they point to.
	 */
	if (nd->debugfs)
		debugfs_remove_recursive(fw->dbg);
	nd->fwio = NULL;
	mutex_destroy(&fw->lock);
	kfree(fw);
}
