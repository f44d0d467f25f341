// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated firmware: owns the firmware words of MiscRAM (API version,
 * device id, serial number, ECC, power, repair state) and serves both FW-IO
 * transports the driver speaks (neuron_fwio.c): the register-only mailbox
 * and the legacy host-memory path.
 *
 * The doorbell is the driver's write of TRIGGER (the backend's misc_write
 * hands it to neuron_sim_fw_trigger()). A write of 1 while TRIGGER is clear
 * latches the request: the registers, and for the legacy path (non-zero
 * response address) the request in the host buffer at the request address
 * (the simulator's DMA buffers, neuron_sim_fw_dma_alloc()). The serving
 * (in the doorbell's write itself, below) validates size, CRC
 * (the software CRC-32C of common/neuron_fwio_frame.c, against the kernel's
 * on the driver side) and command, executes and builds the answer as the
 * shared firmware model does it (common/neuron_fw_model.c, also the emulated
 * PCI device's), then delivers it: register-only, the response header
 * into 0x1F0, its payload into DATA, then TRIGGER cleared; legacy,
 * TRIGGER cleared, then the response payload and header in the response
 * buffer, its sequence byte last.
 *
 * Two modes (per device, new_device's firmware word):
 *  - lenient (the default; the fault-injection suites): a write of 1 while
 *    a request is in flight replaces it, a write of 0 withdraws it; the
 *    answer of a replaced or withdrawn request is dropped.
 *  - strict (v2, v3, v4): the strictest reading of the vendor's contract.
 *    TRIGGER belongs to the firmware once set: a write of 0 and a write of
 *    1 while a request is in flight are refused (ignored, counted, logged);
 *    the request in flight is answered all the same, with its own sequence
 *    number, into whatever the driver wrote since. A register-only request
 *    without ACK = 1 is refused; v2 does not serve the register-only
 *    mailbox at all (never answers it). SET_POWER_PROFILE takes
 *    NEURON_SIM_FW_STRICT_POWER_MS (longer than the 1 s READ timeout).
 *    DEVICE_ID reads 0xDEADBEEF for NEURON_SIM_FW_STRICT_READY_MS after
 *    the device appears, then the routing id (= the simulator's id). A
 *    doorbell with RESET set is a device reset: TRIGGER clear and FW_STATUS
 *    busy at once, RESET 0 and FW_STATUS idle NEURON_SIM_FW_STRICT_RESET_MS
 *    later.
 *    Every time divided by the device's fw_time_div.
 *
 * Faults: each request takes the fault armed through fw/fault
 * (neuron_sim_inject.c, neuron_sim_inject_take_fw()) and behaves
 * accordingly: answer FAIL or UNKNOWN_COMMAND without executing, never
 * answer, answer with another sequence number, see a corrupted CRC, answer
 * late (slow), or answer 4 bytes too many.
 *
 * A request the firmware can answer at once is served in the doorbell's
 * write, before it returns to the driver, which then finds the answer at
 * its poll's first look: the same answer a device's firmware gives while
 * the driver polls, without a hand-over to another context (an interrupt
 * or a thread costs most of an FW-IO round trip under emulation,
 * docs/performance.md). Whatever takes time takes it as on a device: a
 * slow answer, a reset and readiness are delayed work items, a request
 * that is never answered leaves TRIGGER set.
 *
 * Locking: MiscRAM has its own lock (neuron_sim_miscram.c), the armed
 * faults theirs (neuron_sim_inject.c); fw->lock (spinlock) protects the
 * statistics, the posted-blob ring and the pending slow answer;
 * fw->dma_lock the DMA buffer table and the buffers' contents as the
 * firmware sees them. None of them is taken while holding another, except
 * under fw->serve_lock, which a doorbell holds from the latch to the end
 * of the serving (one request latched and served at a time) and takes
 * before any of them. Every one of these locks is taken with
 * spin_lock_irqsave(), as the MiscRAM lock is. fw->gen changes only under
 * the MiscRAM lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": sim-fw: " fmt

#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "neuron_fw_model.h"
#include "neuron_fw_profile.h"
#include "neuron_fwio_frame.h"
#include "neuron_metrics_pack.h"
#include "neuron_miscram_reg.h"
#include "neuron_sim.h"
#include "neuron_sim_fw.h"

#define NEURON_SIM_FW_API_VERSION	7	/* register-only mailbox */
#define NEURON_SIM_FW_SERIAL_HI		0x4e53494d	/* "NSIM" */
#define NEURON_SIM_FW_POSTED_MAX	64	/* POST_TO_CW blobs kept */
#define NEURON_SIM_FW_DMA_MAX		4	/* host buffers a device may hand it */
#define NEURON_SIM_FW_DMA_BASE		(1ull << 46)	/* device addresses start here */
#define NEURON_SIM_FW_DMA_STRIDE	(1ull << 24)
#define NEURON_SIM_FW_STRICT_POWER_MS	1500	/* strict: a power profile takes this long */
#define NEURON_SIM_FW_STRICT_READY_MS	2500	/* strict: DEVICE_ID 0xDEADBEEF after creation */
#define NEURON_SIM_FW_STRICT_RESET_MS	1000	/* strict: a device reset takes this long */
/* legacy request/response bytes the firmware looks at: header + the largest payload */
#define NEURON_SIM_FW_HOST_MAX	(NEURON_FWIO_REQ_HDR_SIZE + NEURON_FWIO_MAX_PAYLOAD)

struct neuron_sim_blob {
	u8 len;
	u8 data[NEURON_METRIC_BLOB_MAX];
};

/* An answer, or an answer waiting for a delay (slow fault, strict power profile). */
struct neuron_sim_answer {
	u32 gen;		/* the latch it answers: dropped if TRIGGER was re-latched */
	bool legacy;		/* write to the host response buffer */
	u64 resp_addr;		/* legacy: device address of the response buffer */
	u32 resp_dw0;
	u32 nwords;		/* payload words */
	u32 words[NEURON_FWIO_DATA_SIZE / 4];
};

/* A latched request as the firmware read it when the doorbell rang. */
struct neuron_sim_request {
	u32 gen;
	bool legacy;
	bool no_ack;		/* register-only without ACK = 1 */
	u32 dw0;
	u32 dw1;
	u64 resp_addr;
	u32 nwords;		/* register-only: the DATA words the header's size covers */
	u32 words[NEURON_FWIO_DATA_SIZE / 4];	/* register-only: DATA */
	u8 host[NEURON_SIM_FW_HOST_MAX];	/* legacy: the request buffer */
	bool host_ok;		/* legacy: the request address was a buffer of ours */
};

struct neuron_sim_dma {
	void *va;
	size_t size;
	u64 dev_addr;
};

/**
 * struct neuron_sim_fw - the simulated firmware of one device
 * @sd:		its device (MiscRAM, armed faults)
 * @strict:	strict mode (the device's fw_arch is not SIM)
 * @arch:	enum neuron_fw_arch of the device
 * @div:	time divisor (>= 1)
 * @serve_lock:	held by a doorbell from the latch to the end of the serving
 * @work_req:	the latched request (under @serve_lock)
 * @work_ans:	the serving's answer from the shared model
 * @work_answer: the answer as it is delivered
 * @work_payload: the serving's request payload (register-only)
 * @slow_work:	delivers @pending after its delay
 * @ready_work:	strict: makes DEVICE_ID readable
 * @reset_work:	strict: completes a device reset
 * @stopping:	no more work is queued
 * @dbg:	its debugfs files (posted, posted_blobs, sim_stats)
 * @gen:	latch generation; changes only under the MiscRAM lock
 * @dma_lock:	protects @dma and what the firmware reads and writes in the buffers
 * @dma:	host buffers handed out by neuron_sim_fw_dma_alloc()
 * @lock:	protects everything below
 * @pending:	the delayed answer, valid when @pending_valid
 * @pending_valid: @pending waits for @slow_work
 * @power_profile: last profile SET_POWER_PROFILE accepted
 * @requests:	requests latched (doorbells that found TRIGGER clear, and in
 *		lenient mode the ones that replaced a request in flight)
 * @legacy:	of which over the legacy host-memory path
 * @trigger_zero: writes of 0 to TRIGGER (the driver must never make one)
 * @rewrites:	writes of 1 while a request was in flight
 * @resets:	strict: device resets taken (RESET set when the doorbell rang)
 * @refused:	strict: requests not served (no ACK, register-only on v2,
 *		a legacy address that is not one of our buffers)
 * @seq:	the requests' sequence numbers (zero, gaps, wraps, last)
 * @crc_errors:	requests whose CRC did not match (bad_crc included)
 * @dropped:	answers not written because the request was withdrawn or replaced
 * @slow_done:	delayed answers @slow_work has delivered (or dropped); with
 *		@pending_valid clear, no late answer is left to land
 * @posted:	ring of the last NEURON_SIM_FW_POSTED_MAX POST_TO_CW blobs
 * @posted_head: next slot of @posted to write
 * @posted_count: blobs in @posted
 */
struct neuron_sim_fw {
	struct neuron_sim_dev *sd;
	bool strict;
	u32 arch;
	u32 div;
	spinlock_t serve_lock;
	struct neuron_sim_request work_req;
	struct neuron_fw_model_answer work_ans;
	struct neuron_sim_answer work_answer;
	u8 work_payload[NEURON_FWIO_DATA_SIZE];
	struct delayed_work slow_work;
	struct delayed_work ready_work;
	struct delayed_work reset_work;
	bool stopping;
	struct dentry *dbg[3];
	u32 gen;

	spinlock_t dma_lock;
	struct neuron_sim_dma dma[NEURON_SIM_FW_DMA_MAX];

	spinlock_t lock;
	struct neuron_sim_answer pending;
	bool pending_valid;
	u32 power_profile;
	u64 requests;
	u64 legacy;
	u64 trigger_zero;
	u64 rewrites;
	u64 resets;
	u64 refused;
	struct neuron_fw_model_seq seq;
	u64 crc_errors;
	u64 dropped;
	u64 slow_done;
	struct neuron_sim_blob posted[NEURON_SIM_FW_POSTED_MAX];
	u32 posted_head;
	u32 posted_count;
};

static void neuron_sim_fw_count(struct neuron_sim_fw *fw, u64 *counter)
{
	unsigned long flags;

	spin_lock_irqsave(&fw->lock, flags);
	(*counter)++;
	spin_unlock_irqrestore(&fw->lock, flags);
}

/* ---- host memory: the buffers the driver hands the device --------------- */

void *neuron_sim_fw_dma_alloc(struct neuron_sim_fw *fw, size_t size, u64 *dev_addr)
{
	unsigned long flags;
	void *va;
	int i;

	va = kzalloc(size, GFP_KERNEL);
	if (!va)
		return NULL;
	spin_lock_irqsave(&fw->dma_lock, flags);
	for (i = 0; i < NEURON_SIM_FW_DMA_MAX; i++) {
		if (!fw->dma[i].va) {
			fw->dma[i].va = va;
			fw->dma[i].size = size;
			fw->dma[i].dev_addr = NEURON_SIM_FW_DMA_BASE +
					      (i + 1) * NEURON_SIM_FW_DMA_STRIDE;
			*dev_addr = fw->dma[i].dev_addr;
			break;
		}
	}
	spin_unlock_irqrestore(&fw->dma_lock, flags);
	if (i == NEURON_SIM_FW_DMA_MAX) {
		kfree(va);
		return NULL;
	}
	return va;
}

void neuron_sim_fw_dma_free(struct neuron_sim_fw *fw, void *va)
{
	unsigned long flags;
	int i;

	/* after this the firmware cannot reach the buffer any more */
	spin_lock_irqsave(&fw->dma_lock, flags);
	for (i = 0; i < NEURON_SIM_FW_DMA_MAX; i++)
		if (fw->dma[i].va == va)
			fw->dma[i].va = NULL;
	spin_unlock_irqrestore(&fw->dma_lock, flags);
	kfree(va);
}

/* Buffer holding [@addr, @addr + @len), or NULL. fw->dma_lock held. */
static u8 *neuron_sim_fw_dma_find(struct neuron_sim_fw *fw, u64 addr, size_t len)
{
	int i;

	for (i = 0; i < NEURON_SIM_FW_DMA_MAX; i++) {
		struct neuron_sim_dma *d = &fw->dma[i];

		if (d->va && addr >= d->dev_addr && len <= d->size &&
		    addr - d->dev_addr <= d->size - len)
			return (u8 *)d->va + (addr - d->dev_addr);
	}
	return NULL;
}

/* Legacy: read the request buffer at @addr (the device's DMA read). */
static bool neuron_sim_fw_dma_read(struct neuron_sim_fw *fw, u64 addr, u8 *out, size_t len)
{
	unsigned long flags;
	u8 *p;

	spin_lock_irqsave(&fw->dma_lock, flags);
	p = neuron_sim_fw_dma_find(fw, addr, len);
	if (p)
		memcpy(out, p, len);
	spin_unlock_irqrestore(&fw->dma_lock, flags);
	return p;
}

/*
 * Legacy: write the response at @addr: payload, then error code and size,
 * then the sequence byte, which the driver polls.
 */
static bool neuron_sim_fw_dma_respond(struct neuron_sim_fw *fw, const struct neuron_sim_answer *a)
{
	u32 len = NEURON_FWIO_RESP_HDR_SIZE + 4 * a->nwords;
	unsigned long flags;
	u8 *p;

	spin_lock_irqsave(&fw->dma_lock, flags);
	p = neuron_sim_fw_dma_find(fw, a->resp_addr, len);
	if (p) {
		neuron_fwio_unpack_words(a->words, 4 * a->nwords, p + NEURON_FWIO_RESP_HDR_SIZE);
		p[1] = (a->resp_dw0 >> 8) & 0xff;
		p[2] = (a->resp_dw0 >> 16) & 0xff;
		p[3] = a->resp_dw0 >> 24;
		/* everything else before the sequence byte, as a device's DMA orders it */
		smp_wmb();
		WRITE_ONCE(p[0], a->resp_dw0 & 0xff);
	}
	spin_unlock_irqrestore(&fw->dma_lock, flags);
	return p;
}

/* ---- the doorbell ---------------------------------------------------------- */

enum neuron_sim_fw_trig {
	NEURON_SIM_TRIG_LATCH,		/* a new request */
	NEURON_SIM_TRIG_REPLACE,	/* lenient: replaced the one in flight */
	NEURON_SIM_TRIG_REWRITE,	/* strict: refused, the one in flight goes on */
	NEURON_SIM_TRIG_ZERO,		/* a write of 0 */
	NEURON_SIM_TRIG_RESET,		/* strict: a device reset request (RESET set) */
};

struct neuron_sim_trig_ctx {
	struct neuron_sim_fw *fw;
	u32 val;
	enum neuron_sim_fw_trig action;
	struct neuron_sim_request *req;
	u64 req_addr;
};

/* Under the MiscRAM lock: what a write of TRIGGER does; latch the registers. */
static bool neuron_sim_fw_trigger_words(u32 *w, void *ctx)
{
	struct neuron_sim_trig_ctx *c = ctx;
	struct neuron_sim_fw *fw = c->fw;
	struct neuron_sim_request *r = c->req;
	bool busy = w[NEURON_MISCRAM_TRIGGER / 4];

	if (!c->val) {
		c->action = NEURON_SIM_TRIG_ZERO;
		if (!fw->strict && busy) {
			/* lenient: withdrawn; its answer will be dropped */
			WRITE_ONCE(w[NEURON_MISCRAM_TRIGGER / 4], 0);
			fw->gen++;
		}
		return false;
	}
	if (busy && fw->strict) {
		c->action = NEURON_SIM_TRIG_REWRITE;
		return false;
	}
	if (fw->strict && w[NEURON_MISCRAM_RESET / 4]) {
		/* taken at once: TRIGGER clear, reset in progress until reset_work */
		c->action = NEURON_SIM_TRIG_RESET;
		WRITE_ONCE(w[NEURON_MISCRAM_FW_STATUS / 4],
			   w[NEURON_MISCRAM_FW_STATUS / 4] | NEURON_MISCRAM_FW_STATUS_BUSY);
		return false;
	}
	c->action = busy ? NEURON_SIM_TRIG_REPLACE : NEURON_SIM_TRIG_LATCH;
	WRITE_ONCE(w[NEURON_MISCRAM_TRIGGER / 4], 1);
	r->gen = ++fw->gen;
	r->resp_addr = (u64)w[NEURON_MISCRAM_RESP_HI / 4] << 32 | w[NEURON_MISCRAM_RESP_LO / 4];
	r->legacy = r->resp_addr != 0;
	if (r->legacy) {
		c->req_addr = (u64)w[NEURON_MISCRAM_REQ_HI / 4] << 32 | w[NEURON_MISCRAM_REQ_LO / 4];
	} else {
		u32 plen, i;

		r->no_ack = w[NEURON_MISCRAM_ACK / 4] != 1;
		r->dw0 = w[NEURON_MISCRAM_HDR0 / 4];
		r->dw1 = w[NEURON_MISCRAM_HDR1 / 4];
		/* the payload the header announces: the model looks at nothing past it */
		plen = neuron_fwio_dw0_size(r->dw0);
		plen = plen > NEURON_FWIO_REQ_HDR_SIZE ? plen - NEURON_FWIO_REQ_HDR_SIZE : 0;
		r->nwords = min_t(u32, DIV_ROUND_UP(plen, 4), ARRAY_SIZE(r->words));
		for (i = 0; i < r->nwords; i++)
			r->words[i] = w[NEURON_MISCRAM_DATA / 4 + i];
	}
	return true;
}

static void neuron_sim_fw_serve(struct neuron_sim_fw *fw, struct neuron_sim_request *req);

void neuron_sim_fw_trigger(struct neuron_sim_fw *fw, u32 val)
{
	struct neuron_sim_request *r = &fw->work_req;
	struct neuron_sim_trig_ctx c = { .fw = fw, .val = val, .req = r };
	unsigned long flags;
	bool latched;

	/* the request is latched into, and served from, fw->work_req */
	spin_lock_irqsave(&fw->serve_lock, flags);
	latched = neuron_sim_miscram_update(&fw->sd->miscram, neuron_sim_fw_trigger_words, &c);
	if (latched && r->legacy) {
		/* the device reads the request from host memory when it takes it */
		r->host_ok = neuron_sim_fw_dma_read(fw, c.req_addr, r->host, sizeof(r->host));
		/* a failed read leaves no earlier request behind to be taken */
		if (!r->host_ok)
			memset(r->host, 0, sizeof(r->host));
		r->dw0 = (u32)r->host[0] | (u32)r->host[1] << 8 | (u32)r->host[2] << 16 |
			 (u32)r->host[3] << 24;
		r->dw1 = (u32)r->host[4] | (u32)r->host[5] << 8 | (u32)r->host[6] << 16 |
			 (u32)r->host[7] << 24;
	}

	switch (c.action) {
	case NEURON_SIM_TRIG_ZERO:
		neuron_sim_fw_count(fw, &fw->trigger_zero);
		break;
	case NEURON_SIM_TRIG_REWRITE:
	case NEURON_SIM_TRIG_REPLACE:
		neuron_sim_fw_count(fw, &fw->rewrites);
		break;
	case NEURON_SIM_TRIG_RESET:
		neuron_sim_fw_count(fw, &fw->resets);
		break;
	case NEURON_SIM_TRIG_LATCH:
		break;
	}
	if (latched && !READ_ONCE(fw->stopping))
		neuron_sim_fw_serve(fw, r);
	spin_unlock_irqrestore(&fw->serve_lock, flags);

	if (c.action == NEURON_SIM_TRIG_ZERO)
		dev_err(&fw->sd->dev, "driver wrote 0 to TRIGGER: only firmware clears it\n");
	else if (c.action == NEURON_SIM_TRIG_REWRITE)
		dev_warn_ratelimited(&fw->sd->dev,
				     "doorbell rung while a request is in flight: refused\n");
	if (c.action == NEURON_SIM_TRIG_RESET && !READ_ONCE(fw->stopping))
		mod_delayed_work(system_wq, &fw->reset_work,
				 msecs_to_jiffies(NEURON_SIM_FW_STRICT_RESET_MS / fw->div));
}

/* ---- answers ---------------------------------------------------------------- */

struct neuron_sim_ans_ctx {
	struct neuron_sim_fw *fw;
	const struct neuron_sim_answer *a;
};

/* Under the MiscRAM lock: complete the request if it is still the latched one. */
static bool neuron_sim_fw_answer_words(u32 *w, void *ctx)
{
	struct neuron_sim_ans_ctx *c = ctx;
	const struct neuron_sim_answer *a = c->a;
	u32 i;

	if (!w[NEURON_MISCRAM_TRIGGER / 4] || a->gen != c->fw->gen)
		return false;
	if (!a->legacy) {
		for (i = 0; i < a->nwords; i++)
			WRITE_ONCE(w[NEURON_MISCRAM_DATA / 4 + i], a->words[i]);
		WRITE_ONCE(w[NEURON_MISCRAM_HDR0 / 4], a->resp_dw0);
	}
	/* last: a driver that reads TRIGGER clear reads the answer after it */
	smp_store_release(&w[NEURON_MISCRAM_TRIGGER / 4], 0);
	return true;
}

/* Deliver @a; false if its request was withdrawn or replaced (lenient). */
static bool neuron_sim_fw_answer(struct neuron_sim_fw *fw, struct neuron_sim_answer *a)
{
	struct neuron_sim_ans_ctx c = { .fw = fw, .a = a };
	bool ok;

	ok = neuron_sim_miscram_update(&fw->sd->miscram, neuron_sim_fw_answer_words, &c);
	/* legacy: TRIGGER is clear before the driver can see the answer */
	if (ok && a->legacy && !neuron_sim_fw_dma_respond(fw, a))
		ok = false;
	if (!ok)
		neuron_sim_fw_count(fw, &fw->dropped);
	return ok;
}

/* Account the request's sequence number. */
static void neuron_sim_fw_account(struct neuron_sim_fw *fw, u8 seq, bool legacy)
{
	unsigned long flags;

	spin_lock_irqsave(&fw->lock, flags);
	fw->requests++;
	if (legacy)
		fw->legacy++;
	neuron_fw_model_account_seq(&fw->seq, seq);
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

/* The shared firmware model's view of this device (neuron_fw_model.h). */
static u32 neuron_sim_fw_read_word(void *ctx, u64 addr)
{
	struct neuron_sim_fw *fw = ctx;
	u64 base = neuron_fw_miscram_dev_addr(fw->arch);

	/*
	 * The simulated device's address space is its MiscRAM, at offset 0
	 * and at the architecture's device address (the vendor's reads).
	 */
	if (addr >= base && addr - base < NEURON_SIM_MISCRAM_SIZE)
		addr -= base;
	return addr < NEURON_SIM_MISCRAM_SIZE ?
	       neuron_sim_miscram_read(&fw->sd->miscram, (u32)addr) : NEURON_MISCRAM_BAD_READ;
}

static void neuron_sim_fw_posted(void *ctx, const u8 *blob, u32 len)
{
	neuron_sim_fw_record_post(ctx, blob, len);
}

static void neuron_sim_fw_power_profile(void *ctx, u8 profile)
{
	struct neuron_sim_fw *fw = ctx;
	unsigned long flags;

	spin_lock_irqsave(&fw->lock, flags);
	fw->power_profile = profile;
	spin_unlock_irqrestore(&fw->lock, flags);
}

/* The armed fault of this exchange as the shared model knows it (timing aside). */
static enum neuron_fw_model_fault neuron_sim_fw_model_fault(enum neuron_sim_fw_fault f)
{
	switch (f) {
	case NEURON_SIM_FW_FAIL:
		return NEURON_FW_MODEL_ERROR;
	case NEURON_SIM_FW_UNKNOWN_COMMAND:
		return NEURON_FW_MODEL_UNKNOWN_COMMAND;
	case NEURON_SIM_FW_BAD_SEQ:
		return NEURON_FW_MODEL_WRONG_SEQ;
	case NEURON_SIM_FW_BAD_CRC:
		return NEURON_FW_MODEL_BAD_CRC;
	case NEURON_SIM_FW_OVERSIZE:
		return NEURON_FW_MODEL_OVERSIZE;
	default:
		return NEURON_FW_MODEL_NONE;
	}
}

/* Strict: a request the firmware does not serve at all. */
static bool neuron_sim_fw_refuses(struct neuron_sim_fw *fw, const struct neuron_sim_request *r)
{
	if (!fw->strict)
		return false;
	if (r->legacy)
		return !r->host_ok;
	return r->no_ack || fw->arch == NEURON_FW_ARCH_V2;
}

/*
 * Serve the request just latched in @req (fw->work_req). fw->serve_lock
 * held. Request, answers and payload live in @fw, not on the stack and not
 * allocated per request, and only the words the request fills are copied:
 * under emulation a copy or an allocation (zeroed, init_on_alloc) of a
 * whole request costs a good part of a round trip.
 */
static void neuron_sim_fw_serve(struct neuron_sim_fw *fw, struct neuron_sim_request *req)
{
	const struct neuron_fw_model_dev dev = {
		.read_word = neuron_sim_fw_read_word,
		.posted = neuron_sim_fw_posted,
		.power_profile = neuron_sim_fw_power_profile,
		.ctx = fw,
	};
	struct neuron_fw_model_answer *ans = &fw->work_ans;
	struct neuron_sim_answer *a = &fw->work_answer;
	enum neuron_sim_fw_fault fault;
	u32 slow_ms, delay_ms = 0;
	unsigned long flags;
	const u8 *payload;

	if (neuron_sim_fw_refuses(fw, req)) {
		neuron_sim_fw_count(fw, &fw->refused);
		return;
	}
	neuron_sim_fw_account(fw, neuron_fwio_dw0_seq(req->dw0), req->legacy);
	fault = neuron_sim_inject_take_fw(fw->sd, &slow_ms);
	if (fault == NEURON_SIM_FW_TIMEOUT)
		return;

	if (req->legacy) {
		payload = req->host + NEURON_FWIO_REQ_HDR_SIZE;
	} else {
		neuron_fwio_unpack_words(req->words, 4 * req->nwords, fw->work_payload);
		payload = fw->work_payload;
	}
	neuron_fw_model_serve(&dev, req->dw0, req->dw1, payload, NEURON_FWIO_MAX_PAYLOAD,
			      NEURON_FWIO_REQ_HDR_SIZE + NEURON_FWIO_MAX_PAYLOAD,
			      neuron_sim_fw_model_fault(fault), NEURON_FWIO_FAIL, ans);
	if (ans->crc_error)
		neuron_sim_fw_count(fw, &fw->crc_errors);
	if (fw->strict && ans->code == NEURON_FWIO_SUCCESS &&
	    neuron_fwio_dw0_code(req->dw0) == NEURON_FWIO_CMD_SET_POWER_PROFILE)
		delay_ms = NEURON_SIM_FW_STRICT_POWER_MS / fw->div;

	a->gen = req->gen;
	a->legacy = req->legacy;
	a->resp_addr = req->resp_addr;
	a->resp_dw0 = ans->resp_dw0;
	a->nwords = neuron_fwio_pack_words(ans->data,
					   min_t(u32, ans->len, NEURON_FWIO_DATA_SIZE), a->words);

	if (fault == NEURON_SIM_FW_SLOW)
		delay_ms = max(delay_ms, slow_ms);
	if (delay_ms) {
		spin_lock_irqsave(&fw->lock, flags);
		fw->pending = *a;
		fw->pending_valid = true;
		spin_unlock_irqrestore(&fw->lock, flags);
		if (!READ_ONCE(fw->stopping))
			mod_delayed_work(system_wq, &fw->slow_work, msecs_to_jiffies(delay_ms));
		return;
	}
	neuron_sim_fw_answer(fw, a);
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
	neuron_sim_fw_count(fw, &fw->slow_done);
}

/*
 * Strict: a device reset is over: RESET reads 0 (taken), FW_STATUS no
 * longer busy. (The vendor polls RESET for "taken", then FW_STATUS.)
 */
static bool neuron_sim_fw_reset_words(u32 *w, void *ctx)
{
	WRITE_ONCE(w[NEURON_MISCRAM_FW_STATUS / 4],
		   w[NEURON_MISCRAM_FW_STATUS / 4] & ~NEURON_MISCRAM_FW_STATUS_BUSY);
	/* last: a driver that reads RESET 0 reads FW_STATUS idle after it */
	smp_store_release(&w[NEURON_MISCRAM_RESET / 4], 0);
	return true;
}

static void neuron_sim_fw_reset_work(struct work_struct *work)
{
	struct neuron_sim_fw *fw = container_of(to_delayed_work(work), struct neuron_sim_fw,
						reset_work);

	neuron_sim_miscram_update(&fw->sd->miscram, neuron_sim_fw_reset_words, NULL);
}

/* Strict: the firmware is up; DEVICE_ID reads the routing id. */
static void neuron_sim_fw_ready_work(struct work_struct *work)
{
	struct neuron_sim_fw *fw = container_of(to_delayed_work(work), struct neuron_sim_fw,
						ready_work);

	neuron_sim_miscram_write(&fw->sd->miscram, NEURON_MISCRAM_DEVICE_ID, fw->sd->id);
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
	seq_printf(m, "legacy %llu\n", fw->legacy);
	seq_printf(m, "trigger_zero %llu\n", fw->trigger_zero);
	seq_printf(m, "rewrites %llu\n", fw->rewrites);
	seq_printf(m, "resets %llu\n", fw->resets);
	seq_printf(m, "refused %llu\n", fw->refused);
	seq_printf(m, "last_seq %u\n", fw->seq.last_seq);
	seq_printf(m, "zero_seq %llu\n", fw->seq.zero_seq);
	seq_printf(m, "seq_wraps %llu\n", fw->seq.seq_wraps);
	seq_printf(m, "seq_gaps %llu\n", fw->seq.seq_gaps);
	seq_printf(m, "crc_errors %llu\n", fw->crc_errors);
	seq_printf(m, "dropped %llu\n", fw->dropped);
	seq_printf(m, "slow_pending %u\n", fw->pending_valid);
	seq_printf(m, "slow_done %llu\n", fw->slow_done);
	seq_printf(m, "power_profile %u\n", fw->power_profile);
	seq_printf(m, "mode %s\n", fw->strict ? neuron_fw_arch_name(fw->arch) : "lenient");
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
	fw->arch = sd->arch.fw_arch;
	fw->strict = fw->arch != NEURON_FW_ARCH_SIM;
	fw->div = max(sd->arch.fw_time_div, 1u);
	spin_lock_init(&fw->lock);
	spin_lock_init(&fw->dma_lock);
	spin_lock_init(&fw->serve_lock);
	INIT_DELAYED_WORK(&fw->slow_work, neuron_sim_fw_slow_work);
	INIT_DELAYED_WORK(&fw->ready_work, neuron_sim_fw_ready_work);
	INIT_DELAYED_WORK(&fw->reset_work, neuron_sim_fw_reset_work);

	neuron_sim_miscram_write(m, NEURON_MISCRAM_API_VERSION, NEURON_SIM_FW_API_VERSION);
	if (fw->strict) {
		/* not ready yet: the probe path waits for it */
		neuron_sim_miscram_write(m, NEURON_MISCRAM_DEVICE_ID, NEURON_MISCRAM_BAD_READ);
		schedule_delayed_work(&fw->ready_work,
				      msecs_to_jiffies(NEURON_SIM_FW_STRICT_READY_MS / fw->div));
	} else {
		neuron_sim_miscram_write(m, NEURON_MISCRAM_DEVICE_ID, sd->id);
	}
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
	cancel_delayed_work_sync(&fw->ready_work);
	cancel_delayed_work_sync(&fw->reset_work);
	cancel_delayed_work_sync(&fw->slow_work);
	kfree(fw);
}
