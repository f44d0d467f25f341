// SPDX-License-Identifier: GPL-2.0
/*
 * FW-IO transport: one exchange in flight per device, over the transport
 * the device's firmware contract names for the command
 * (common/neuron_fw_profile.c, the vendor's per-architecture table; the
 * lenient simulated firmware has a row of its own):
 *
 *  - register-only ("new framework", firmware API >= 7): the payload in
 *    DATA (0x100..), header dw0 in 0x1F0, the CRC-32C in 0x1F4, 0 in the
 *    legacy response-address words 0x1F8/0x1FC, 1 in ACK (0xF0), then 1 in
 *    TRIGGER (0x800); firmware clears TRIGGER when the response header is
 *    in 0x1F0 (and its payload in DATA);
 *  - legacy host memory: the request (header + payload) in a DMA-coherent
 *    buffer, the response in another; their device addresses in 0x1F4
 *    (request low), 0x1F0 (high), 0x1FC (response low), 0x1F8 (high), in
 *    that order; the response's sequence byte cleared, then 1 in TRIGGER;
 *    the response is complete when its sequence byte reads the request's.
 *    For POST_TO_CW the blob also goes to DATA first, as the vendor does.
 *
 * TRIGGER is only ever written with 1: the same doorbell starts device
 * resets, and firmware owns clearing it. An attempt that times out is not
 * withdrawn; the next attempt takes a fresh sequence number (never 0), so
 * a late answer to an abandoned request is told apart by its number and
 * never taken for the answer of the current one.
 *
 * Per command the profile gives the attempt's timeout, the attempts of an
 * exchange and the response-size rule. The loop and the per-attempt rules
 * (what retries, what is counted where) are neuron_fwio_loop() and
 * neuron_fwio_attempt_step() in common/neuron_fwio_frame.c, shared with the
 * host tests.
 *
 * Locking: fw->lock (mutex) serializes exchanges: it covers the mailbox
 * registers, the host buffers and the sequence number for a whole
 * exchange, all attempts. Lock order: metrics lock -> fw->lock -> the
 * backend's own lock, if any, inside misc_read/misc_write. Nothing is
 * called under fw->lock that takes a lock of the NDS, sysfs or device
 * core. The counters are atomics, readable without the lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/ratelimit.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "neuron_compat.h"
#include "neuron_device.h"
#include "neuron_fw_profile.h"
#include "neuron_fwio.h"
#include "neuron_main.h"
#include "neuron_reset.h"

/*
 * Legacy host buffers: header + payload always fits in one page (requests
 * and responses are at most 8 + 128 bytes here; the vendor allocates 64 KiB
 * but never sends more than its u16 size field and our callers' limits).
 */
#define NEURON_FWIO_HOSTBUF_SIZE	PAGE_SIZE

/**
 * struct neuron_fwio - FW-IO state of one device
 * @nd:		the device
 * @lock:	serializes exchanges; protects the mailbox registers, the host
 *		buffers and @seq
 * @seq:	last sequence number used (written under @lock, read locklessly
 *		by debugfs)
 * @err_count:	error responses (error_code != SUCCESS), the vendor's
 *		fw_io_err_count
 * @timeout_count: attempts without a usable answer: timeouts, sequence
 *		mismatches, responses of the wrong size
 * @unanswered: the last exchange that reached firmware ended without an
 *		answer (every attempt timed out); cleared by an answer of any
 *		kind and by a completed device reset (written under @lock,
 *		read locklessly by the health check)
 * @old_api_logged: the log last said the API version is too old
 * @api_rs:	how often a change of the API version's verdict is logged
 * @absent:	an attempt of the current exchange timed out and the function
 *		read all-ones (surprise removal): the exchange ends with -ENODEV
 * @dying:	set once at device removal: exchanges abort at their next poll
 * @dbg:	debugfs fw/ directory
 * @power_profile: the profile the last successful SET_POWER_PROFILE set
 * @req_buf:	legacy request buffer (DMA-coherent), allocated on first use
 * @resp_buf:	legacy response buffer
 * @req_dma:	device address of @req_buf
 * @resp_dma:	device address of @resp_buf
 */
struct neuron_fwio {
	struct neuron_device *nd;
	struct mutex lock;
	u8 seq;
	atomic64_t err_count;
	atomic64_t timeout_count;
	bool unanswered;
	bool old_api_logged;
	struct ratelimit_state api_rs;
	bool absent;
	bool dying;
	struct dentry *dbg;
	u32 power_profile;
	u8 *req_buf;
	u8 *resp_buf;
	u64 req_dma;
	u64 resp_dma;
};

/*
 * CRC-32C with the kernel's implementation (lib/crc32.c, built in): the
 * raw-register form, so the header and the payload chain; inverted at the
 * end. common/neuron_fwio_frame.c has the same CRC as a software table, which
 * the host tests and the simulated firmware check against this one.
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

/* Completion of an attempt: TRIGGER cleared (registers) or the seq byte (host memory). */
static bool neuron_fwio_done(struct neuron_fwio *fw, bool hostmem, u8 seq)
{
	if (hostmem)
		return READ_ONCE(fw->resp_buf[0]) == seq;
	return !fw_rd(fw, NEURON_MISCRAM_TRIGGER);
}

/*
 * Wait for completion: 1 done, 0 deadline passed, -EINTR.
 * The first look comes before any clock read: the simulated firmware
 * answers within the doorbell's write. Then for 100 us poll with
 * cond_resched() (a firmware answers in tens of microseconds; one that
 * answers from a work item on this CPU gets the CPU at the reschedule
 * point, or sooner where the kernel preempts), then sleep from a few
 * microseconds doubling up to 1 ms (the vendor's poll step), so a hung
 * firmware costs about 1000 wake-ups per second and nothing else.
 * The spin is timed with local_clock() (the scheduler's clock: a TSC read)
 * and the timekeeping clock is read only once the spin is over: where the
 * clocksource is an emulated HPET each ktime_get() costs microseconds,
 * more than a fast firmware takes to answer (docs/performance.md).
 */
static int neuron_fwio_poll(struct neuron_fwio *fw, const struct neuron_fwio_xfer *x,
			    bool hostmem, u8 seq, unsigned int timeout_ms)
{
	ktime_t deadline;
	unsigned int us = 4;
	u64 t0;

	if (neuron_fwio_done(fw, hostmem, seq))
		return 1;
	t0 = local_clock();
	/*
	 * Signed: after cond_resched() this may be another CPU, whose
	 * local_clock() can be a little behind the first one's.
	 */
	do {
		cond_resched();
		cpu_relax();
		if (neuron_fwio_done(fw, hostmem, seq))
			return 1;
	} while ((s64)(local_clock() - t0) < 100 * NSEC_PER_USEC);
	/* the attempt's budget runs from here: the spin (about 100 us) comes on top */
	deadline = ktime_add_ms(ktime_get(), timeout_ms);
	for (;;) {
		bool late = ktime_after(ktime_get(), deadline);

		/* one last look after the deadline: never time out on a done request */
		if (neuron_fwio_done(fw, hostmem, seq))
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

/* The transport's side of neuron_fwio_loop() (common/neuron_fwio_frame.c). */
struct neuron_fwio_loop_ctx {
	struct neuron_fwio *fw;
	struct neuron_fwio_xfer *x;
	const struct neuron_fw_cmd_profile *prof;
	unsigned int timeout_ms;
};

/* Copy the accepted response payload (@len bytes from @words) and zero the rest. */
static void neuron_fwio_take_payload(struct neuron_fwio_xfer *x, const u32 *words, u16 len)
{
	if (!x->resp_len)
		return;
	neuron_fwio_unpack_words(words, len, x->resp);
	memset((u8 *)x->resp + len, 0, x->resp_len - len);
}

/* One register-only attempt; its classification or -EINTR. fw->lock held. */
static int neuron_fwio_attempt_regs(struct neuron_fwio_loop_ctx *c, u8 seq)
{
	struct neuron_fwio *fw = c->fw;
	struct neuron_fwio_xfer *x = c->x;
	u32 words[NEURON_FWIO_DATA_SIZE / 4];
	u16 size = NEURON_FWIO_REQ_HDR_SIZE + x->req_len;
	enum neuron_fwio_attempt att;
	u32 dw0, rsp, nwords, i;
	int done;
	u16 len;

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

	done = neuron_fwio_poll(fw, x, false, seq, c->timeout_ms);
	if (done < 0)
		return done;
	x->attempts++;
	rsp = done ? fw_rd(fw, NEURON_MISCRAM_HDR0) : 0;
	att = neuron_fwio_classify_rule(done, seq, rsp, x->resp_len, c->prof->resp);
	if (att == NEURON_FWIO_ATT_OK && x->resp_len) {
		len = neuron_fwio_resp_copy_len(rsp, x->resp_len);
		for (i = 0; i < DIV_ROUND_UP(len, 4); i++)
			words[i] = fw_rd(fw, NEURON_MISCRAM_DATA + 4 * i);
		/* at most resp_len bytes: never past the caller's buffer */
		neuron_fwio_take_payload(x, words, len);
	}
	if (att != NEURON_FWIO_ATT_OK)
		dev_dbg(&fw->nd->dev, "fw-io: cmd %u seq %u attempt %u: %s (response 0x%08x)\n",
			x->cmd, seq, x->attempts, neuron_fwio_attempt_name(att), rsp);
	return att;
}

static void neuron_fwio_put_le32(u8 *p, u32 v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

static u32 neuron_fwio_get_le32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

/* One legacy host-memory attempt; its classification or -EINTR. fw->lock held. */
static int neuron_fwio_attempt_hostmem(struct neuron_fwio_loop_ctx *c, u8 seq)
{
	struct neuron_fwio *fw = c->fw;
	struct neuron_fwio_xfer *x = c->x;
	u32 words[NEURON_FWIO_DATA_SIZE / 4];
	u16 size = NEURON_FWIO_REQ_HDR_SIZE + x->req_len;
	enum neuron_fwio_attempt att;
	u32 dw0, rsp = 0, nwords, i;
	int done;
	u16 len;

	/*
	 * POST_TO_CW: the vendor also puts the blob in the DATA window, and
	 * first, before the address words (its order, measured)
	 */
	if (x->cmd == NEURON_FWIO_CMD_POST_TO_CW) {
		nwords = neuron_fwio_pack_words(x->req, x->req_len, words);
		for (i = 0; i < nwords; i++)
			fw_wr(fw, NEURON_MISCRAM_DATA + 4 * i, words[i]);
	}

	/* the vendor rewrites the four address words before every attempt */
	fw_wr(fw, NEURON_MISCRAM_REQ_LO, lower_32_bits(fw->req_dma));
	fw_wr(fw, NEURON_MISCRAM_REQ_HI, upper_32_bits(fw->req_dma));
	fw_wr(fw, NEURON_MISCRAM_RESP_LO, lower_32_bits(fw->resp_dma));
	fw_wr(fw, NEURON_MISCRAM_RESP_HI, upper_32_bits(fw->resp_dma));

	dw0 = neuron_fwio_req_dw0(seq, x->cmd, size);
	neuron_fwio_put_le32(fw->req_buf, dw0);
	neuron_fwio_put_le32(fw->req_buf + 4, neuron_fwio_req_crc(dw0, x->req, x->req_len));
	memcpy(fw->req_buf + NEURON_FWIO_REQ_HDR_SIZE, x->req, x->req_len);
	/* the number we wait for is not in the response buffer yet */
	WRITE_ONCE(fw->resp_buf[0], 0);
	/* request and cleared seq byte reach memory before the doorbell */
	dma_wmb();
	fw_wr(fw, NEURON_MISCRAM_TRIGGER, 1);

	done = neuron_fwio_poll(fw, x, true, seq, c->timeout_ms);
	if (done < 0)
		return done;
	x->attempts++;
	if (done) {
		/* the seq byte is written last: read the rest after it */
		dma_rmb();
		rsp = neuron_fwio_get_le32(fw->resp_buf);
	}
	att = neuron_fwio_classify_rule(done, seq, rsp, x->resp_len, c->prof->resp);
	if (att == NEURON_FWIO_ATT_OK && x->resp_len) {
		len = neuron_fwio_resp_copy_len(rsp, x->resp_len);
		memcpy(x->resp, fw->resp_buf + NEURON_FWIO_RESP_HDR_SIZE, len);
		memset((u8 *)x->resp + len, 0, x->resp_len - len);
	}
	if (att != NEURON_FWIO_ATT_OK)
		dev_dbg(&fw->nd->dev, "fw-io: legacy cmd %u seq %u attempt %u: %s (response 0x%08x)\n",
			x->cmd, seq, x->attempts, neuron_fwio_attempt_name(att), rsp);
	return att;
}

/*
 * A device that vanished (surprise removal, link down) reads all-ones, and
 * its firmware never answers: after an attempt without an answer, a read of
 * API_VERSION (a word firmware always holds) tells the two apart, so the
 * caller gets -ENODEV after one attempt, not after every retry.
 */
static bool neuron_fwio_vanished(struct neuron_fwio *fw)
{
	if (fw_rd(fw, NEURON_MISCRAM_API_VERSION) != NEURON_MISCRAM_GONE)
		return false;
	dev_err_ratelimited(&fw->nd->dev, "fw-io: the device reads all-ones: gone\n");
	fw->absent = true;
	return true;
}

static int neuron_fwio_loop_attempt(void *ctx)
{
	struct neuron_fwio_loop_ctx *c = ctx;
	int att;
	u8 seq;

	/* a fresh number for every attempt, retries included */
	seq = neuron_fwio_seq_next(c->fw->seq);
	WRITE_ONCE(c->fw->seq, seq);
	if (c->prof->transport == NEURON_FW_XPORT_HOSTMEM)
		att = neuron_fwio_attempt_hostmem(c, seq);
	else
		att = neuron_fwio_attempt_regs(c, seq);
	if (att == NEURON_FWIO_ATT_TIMEOUT && neuron_fwio_vanished(c->fw))
		return -ENODEV;
	return att;
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

/*
 * API version gate of the register-only mailbox, checked on every
 * exchange. Each change of the verdict is logged, at most two lines a
 * minute per device (a device whose version word toggles would otherwise
 * log two lines an exchange); a change the limit held back is logged at
 * the first exchange after it lifts, so the log ends with the truth.
 * fw->lock held.
 */
static bool neuron_fwio_api_ok(struct neuron_fwio *fw)
{
	u32 v = fw_rd(fw, NEURON_MISCRAM_API_VERSION);
	bool ok = v != NEURON_MISCRAM_BAD_READ && v >= NEURON_FWIO_MIN_API_VERSION;

	lockdep_assert_held(&fw->lock);
	/* the log already says so, or it may not say more yet */
	if (ok != fw->old_api_logged || !__ratelimit(&fw->api_rs))
		return ok;
	fw->old_api_logged = !ok;
	if (ok)
		dev_info(&fw->nd->dev, "fw-io: firmware API version is supported again\n");
	else
		dev_warn(&fw->nd->dev,
			 "fw-io: firmware API version %#x is below %u: the mailbox is unavailable\n",
			 v, NEURON_FWIO_MIN_API_VERSION);
	return ok;
}

/* Legacy buffers on first use: where a PCI function first needs bus mastering. fw->lock held. */
static int neuron_fwio_hostbuf(struct neuron_fwio *fw)
{
	const struct neuron_backend_ops *ops = fw->nd->ops;

	if (fw->req_buf)
		return 0;
	if (!ops->dma_alloc || !ops->dma_free)
		return -EOPNOTSUPP;
	fw->req_buf = ops->dma_alloc(fw->nd->backend, NEURON_FWIO_HOSTBUF_SIZE, &fw->req_dma);
	if (!fw->req_buf)
		return -ENOMEM;
	fw->resp_buf = ops->dma_alloc(fw->nd->backend, NEURON_FWIO_HOSTBUF_SIZE, &fw->resp_dma);
	if (!fw->resp_buf) {
		ops->dma_free(fw->nd->backend, NEURON_FWIO_HOSTBUF_SIZE, fw->req_buf, fw->req_dma);
		fw->req_buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Timeout of one attempt of @p on this device, ms (never 0). */
static unsigned int neuron_fwio_timeout_ms(struct neuron_fwio *fw,
					   const struct neuron_fw_cmd_profile *p)
{
	unsigned int ms = p->timeout_ms ? p->timeout_ms : neuron_param_fwio_timeout_ms();
	u32 div = fw->nd->arch->fw_time_div;

	if (div > 1)
		ms /= div;
	return max(ms, 1u);
}

int neuron_fwio_exchange(struct neuron_device *nd, struct neuron_fwio_xfer *x)
{
	struct neuron_fwio *fw = nd->fwio;
	struct neuron_fwio_loop_ctx ctx = { .fw = fw, .x = x };
	const struct neuron_fw_cmd_profile *prof;
	enum neuron_fwio_outcome out;
	unsigned int attempts;
	bool gone = false;
	int ret;

	x->attempts = 0;
	x->outcome = NEURON_FWIO_OUT_INTR;
	if (!fw || READ_ONCE(fw->dying))
		return -ENODEV;
	/* its reset did not complete: the firmware is not there to answer */
	if (neuron_device_invalid(nd))
		return -EIO;
	if (x->req_len > NEURON_FWIO_MAX_PAYLOAD || x->resp_len > NEURON_FWIO_MAX_PAYLOAD) {
		x->outcome = NEURON_FWIO_OUT_TOO_BIG;
		return neuron_fwio_outcome_errno(x->outcome);
	}
	prof = neuron_fw_profile(nd->arch->fw_arch, x->cmd);
	if (!prof || prof->transport == NEURON_FW_XPORT_NONE) {
		/* the vendor never sends this command to this architecture: nor do we */
		x->outcome = NEURON_FWIO_OUT_OLD_API;
		return -EOPNOTSUPP;
	}
	ctx.prof = prof;
	ctx.timeout_ms = neuron_fwio_timeout_ms(fw, prof);
	attempts = prof->attempts ? prof->attempts : neuron_param_fwio_retries();

	if (mutex_lock_killable(&fw->lock))
		return -EINTR;
	/* removal began while this caller queued behind another exchange */
	if (READ_ONCE(fw->dying)) {
		mutex_unlock(&fw->lock);
		return -ENODEV;
	}

	if (prof->transport == NEURON_FW_XPORT_HOSTMEM) {
		ret = neuron_fwio_hostbuf(fw);
		if (ret) {
			mutex_unlock(&fw->lock);
			return ret;
		}
	} else if (!neuron_fwio_api_ok(fw)) {
		/* the vendor gates only its register-only path on the API version */
		out = NEURON_FWIO_OUT_OLD_API;
		goto unlock;
	}

	fw->absent = false;
	out = neuron_fwio_loop(attempts, &neuron_fwio_loop_ops, &ctx);
	gone = fw->absent;
	/* an interrupted exchange says nothing about the firmware */
	if (out == NEURON_FWIO_OUT_TIMEOUT)
		WRITE_ONCE(fw->unanswered, true);
	else if (out != NEURON_FWIO_OUT_INTR)
		WRITE_ONCE(fw->unanswered, false);

	if (out != NEURON_FWIO_OUT_OK && out != NEURON_FWIO_OUT_INTR)
		dev_warn_ratelimited(&nd->dev, "fw-io: cmd %u failed after %u attempt(s): %pe\n",
				     x->cmd, x->attempts,
				     ERR_PTR(neuron_fwio_outcome_errno(out)));
unlock:
	mutex_unlock(&fw->lock);
	x->outcome = out;
	/* aborted because the device is going away, not because of the caller */
	if (out == NEURON_FWIO_OUT_INTR && (READ_ONCE(fw->dying) || gone))
		return -ENODEV;
	return neuron_fwio_outcome_errno(out);
}

/*
 * Probe-time readiness, as the vendor's probe reads DEVICE_ID: up to
 * NEURON_FW_READY_TRIES reads, NEURON_FW_READY_SLEEP_MS apart, each
 * re-reading every 10 to 15 ms (the vendor's cadence) while the word is 0xDEADBEEF for up to
 * NEURON_FW_READY_READ_MS. Only reads. A word reading all-ones is no
 * routing id: nothing answers at that address any more (-ENODEV at once).
 */
int neuron_fw_wait_ready(const struct neuron_backend_ops *ops, void *backend, u32 time_div,
			 u32 *routing_id)
{
	u32 div = time_div > 1 ? time_div : 1;
	unsigned int try;
	ktime_t deadline;
	u32 v;

	for (try = 0; try < NEURON_FW_READY_TRIES; try++) {
		if (try)
			msleep(max(NEURON_FW_READY_SLEEP_MS / div, 1u));
		deadline = ktime_add_ms(ktime_get(), max(NEURON_FW_READY_READ_MS / div, 1u));
		do {
			v = ops->misc_read(backend, NEURON_MISCRAM_DEVICE_ID);
			/* all-ones: no function answers (removed, link down) */
			if (v == NEURON_MISCRAM_GONE)
				return -ENODEV;
			if (v != NEURON_MISCRAM_BAD_READ) {
				*routing_id = v;
				return 0;
			}
			if (fatal_signal_pending(current))
				return -EINTR;
			/*
			 * The vendor's msleep(1) is a tick or two, not 1 ms:
			 * its reads came about 12 ms apart (measured in a
			 * guest); this cadence, not seven times its rate
			 */
			usleep_range(10000, 15000);
		} while (ktime_before(ktime_get(), deadline));
	}
	return -ENODEV;
}

/* Sleep @ms / @div ms (at least 1); -EINTR when killed. */
static int neuron_fw_sleep(unsigned int ms, u32 div)
{
	msleep(max(ms / div, 1u));
	return fatal_signal_pending(current) ? -EINTR : 0;
}

/* @tpb_map 0: a device reset; else a TPB reset of that map */
static void neuron_fw_ring_reset(const struct neuron_backend_ops *ops, void *backend, u32 tpb_map)
{
	if (tpb_map) {
		ops->misc_write(backend, NEURON_MISCRAM_RESET_TPB_MAP, tpb_map);
		/* the map before the request that names it */
		wmb();
		ops->misc_write(backend, NEURON_MISCRAM_RESET, 2);
	} else {
		ops->misc_write(backend, NEURON_MISCRAM_RESET, 1);
	}
	/* the request word before the doorbell */
	mb();
	ops->misc_write(backend, NEURON_MISCRAM_TRIGGER, 1);
}

/*
 * @max_ms: give up after this long (0: the vendor's budget for @fw_arch,
 * neuron_fw_reset_max_ms(), divided by @time_div); -ETIMEDOUT then.
 */
static int neuron_fw_reset(const struct neuron_backend_ops *ops, void *backend, u32 fw_arch,
			   u32 tpb_map, u32 time_div, u32 max_ms)
{
	u32 div = time_div > 1 ? time_div : 1;
	u32 reissue_ms = (tpb_map ? NEURON_FW_RESET_TPB_REISSUE_MS : NEURON_FW_RESET_REISSUE_MS) / div;
	ktime_t start = ktime_get(), issued = start;
	unsigned int i;
	u32 v;
	int ret;

	/* no reset on this architecture (the simulator's own firmware) */
	if (!neuron_fw_reset_max_ms(fw_arch))
		return 0;
	if (!max_ms)
		max_ms = max(neuron_fw_reset_max_ms(fw_arch) / div, 1u);
	neuron_fw_ring_reset(ops, backend, tpb_map);
	for (;;) {
		ret = neuron_fw_sleep(NEURON_FW_RESET_POLL_MS, div);
		if (ret)
			return ret;
		/* 0: firmware took the request (0xDEADBEEF: not readable yet) */
		v = ops->misc_read(backend, NEURON_MISCRAM_RESET);
		if (!v)
			break;
		if (v == NEURON_MISCRAM_GONE)
			return -ENODEV;	/* the function is gone: no reset to wait for */
		if (ktime_ms_delta(ktime_get(), start) >= max_ms)
			return -ETIMEDOUT;
		if (ktime_ms_delta(ktime_get(), issued) >= reissue_ms) {
			neuron_fw_ring_reset(ops, backend, tpb_map);
			issued = ktime_get();
		}
	}
	/* the vendor's schedule: 100 ms x i after try i, from 0 */
	for (i = 0; ; i++) {
		v = ops->misc_read(backend, NEURON_MISCRAM_FW_STATUS);
		if (v == NEURON_MISCRAM_GONE)
			return -ENODEV;
		if (v != NEURON_MISCRAM_BAD_READ && !(v & NEURON_MISCRAM_FW_STATUS_BUSY))
			return 0;
		if (i + 1 == NEURON_FW_RESET_DONE_TRIES)
			return -ETIMEDOUT;
		ret = neuron_fw_sleep(NEURON_FW_RESET_DONE_STEP_MS * i, div);
		if (ret)
			return ret;
	}
}

int neuron_fw_reset_device(const struct neuron_backend_ops *ops, void *backend, u32 fw_arch,
			   u32 time_div, u32 max_ms)
{
	return neuron_fw_reset(ops, backend, fw_arch, 0, time_div, max_ms);
}

/*
 * The firmware's map of a TPB reset of NeuronCores @nc_map: v2 adds each
 * NeuronCore's three TOP_SPs (bits 8 + 3n .. 10 + 3n), v3 and v4 each
 * NeuronCore's SDMA group (bit 8 + n) and TOP_SP group (bit 16 + n).
 */
static u32 neuron_fw_tpb_map(u32 fw_arch, u32 nc_map)
{
	u32 map = nc_map & 0xff, nc;

	for (nc = 0; nc < 8; nc++) {
		if (!(nc_map & BIT(nc)))
			continue;
		if (fw_arch == NEURON_FW_ARCH_V2)
			map |= (nc < 2 ? 7u : 0u) << (8 + 3 * nc);
		else
			map |= BIT(8 + nc) | BIT(16 + nc);
	}
	return map;
}

int neuron_fw_reset_tpb(const struct neuron_backend_ops *ops, void *backend, u32 fw_arch,
			u32 nc_map, u32 max_ms)
{
	if (!nc_map)
		return -EINVAL;
	return neuron_fw_reset(ops, backend, fw_arch, neuron_fw_tpb_map(fw_arch, nc_map), 1,
			       max_ms);
}

int neuron_fwio_reset_lock(struct neuron_device *nd)
{
	struct neuron_fwio *fw = nd->fwio;

	if (!fw)
		return 0;
	if (mutex_lock_killable(&fw->lock))
		return -EINTR;
	if (READ_ONCE(fw->dying)) {
		mutex_unlock(&fw->lock);
		return -ENODEV;
	}
	return 0;
}

void neuron_fwio_reset_unlock(struct neuron_device *nd)
{
	if (nd->fwio)
		mutex_unlock(&nd->fwio->lock);
}

u64 neuron_fwio_err_count(struct neuron_device *nd)
{
	return nd->fwio ? atomic64_read(&nd->fwio->err_count) : 0;
}

u64 neuron_fwio_timeout_count(struct neuron_device *nd)
{
	return nd->fwio ? atomic64_read(&nd->fwio->timeout_count) : 0;
}

u32 neuron_fwio_power_profile(struct neuron_device *nd)
{
	return nd->fwio ? READ_ONCE(nd->fwio->power_profile) : 0;
}

void neuron_fwio_power_profile_set(struct neuron_device *nd, u8 profile)
{
	if (nd->fwio)
		WRITE_ONCE(nd->fwio->power_profile, profile);
}

bool neuron_fwio_unanswered(struct neuron_device *nd)
{
	return nd->fwio && READ_ONCE(nd->fwio->unanswered);
}

void neuron_fwio_reset_done(struct neuron_device *nd)
{
	if (nd->fwio)
		WRITE_ONCE(nd->fwio->unanswered, false);
}

/* Firmware-owned words are read directly (no exchange): MiscRAM is mapped. */
int neuron_fwio_serial_number(struct neuron_device *nd, u64 *serial)
{
	u32 lo, hi;

	if (!nd->fwio)
		return -ENODEV;
	if (!neuron_misc_value(nd, NEURON_MISCRAM_SERIAL_LO, &lo) ||
	    !neuron_misc_value(nd, NEURON_MISCRAM_SERIAL_HI, &hi))
		return -EIO;
	*serial = (u64)hi << 32 | lo;
	return 0;
}

int neuron_fwio_api_version(struct neuron_device *nd, u32 *version)
{
	u32 v;

	if (!nd->fwio)
		return -ENODEV;
	if (!neuron_misc_value(nd, NEURON_MISCRAM_API_VERSION, &v))
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
	/* no "callbacks suppressed" line: the next change logged tells the state */
	ratelimit_state_init(&fw->api_rs, 60 * HZ, 2);
	ratelimit_set_flags(&fw->api_rs, RATELIMIT_MSG_ON_RELEASE);
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
	if (fw->req_buf) {
		nd->ops->dma_free(nd->backend, NEURON_FWIO_HOSTBUF_SIZE, fw->resp_buf, fw->resp_dma);
		nd->ops->dma_free(nd->backend, NEURON_FWIO_HOSTBUF_SIZE, fw->req_buf, fw->req_dma);
	}
	nd->fwio = NULL;
	mutex_destroy(&fw->lock);
	kfree(fw);
}
