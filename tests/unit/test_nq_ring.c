// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Notification rings end to end on the host: the common/ producer
 * (neuron_nq_produce, what the device / simulated NeuronCore does) against
 * the libnrt consumer (nrt_nq_attach_memory + drain) over one ring in
 * memory laid out as the driver maps it. FIFO order and exact counts across
 * thousands of wraps, the phase bit per lap, overflow accounting, a
 * misbehaving consumer head, u32 index wrap-around, decode through
 * nrt_nq_drain and a two-thread producer/consumer run.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <neuron/neuron_nq.h>
#include <nrt/nrt_error_model.h>
#include <nrt/nrt_nq.h>

#include "neuron_nq_ring.h"
#include "nq_paths.h"

#define CANARY_BYTES	4096
#define CANARY		0xa5
#define TPB		NEURON_NQ_NOTIFIC_TPB_ERROR
#define HW		NEURON_NQ_NOTIFIC_ERROR
#define PHASE		NEURON_NQ_HDR_PHASE
#define SW_OVF		NEURON_NQ_HDR_SW_OVERFLOW

/* A ring as the driver maps it, followed by a canary region. */
struct ring {
	uint8_t *mem;
	size_t map_size;		/* control page + entries, no canary */
	uint32_t entries;
	struct neuron_nq_ctrl *ctrl;
	struct neuron_nq_entry *slots;
	struct neuron_nq_producer p;
	nrt_nq_t *q;
};

static void ring_alloc(struct ring *r, uint32_t entries)
{
	size_t total;

	memset(r, 0, sizeof(*r));
	r->entries = entries;
	r->map_size = NEURON_NQ_RING_OFFSET + (size_t)entries * NEURON_NQ_ENTRY_SIZE;
	total = r->map_size + CANARY_BYTES;
	r->mem = aligned_alloc(64, total);
	assert_non_null(r->mem);
	memset(r->mem, 0, r->map_size);
	memset(r->mem + r->map_size, CANARY, CANARY_BYTES);
	r->ctrl = (struct neuron_nq_ctrl *)r->mem;
	r->slots = (struct neuron_nq_entry *)(r->mem + NEURON_NQ_RING_OFFSET);
	neuron_nq_producer_init(&r->p, r->ctrl, entries);
}

static void ring_attach(struct ring *r)
{
	assert_int_equal(nrt_nq_attach_memory(r->mem, r->map_size, &r->q), 0);
	assert_non_null(r->q);
	assert_int_equal(nrt_nq_capacity(r->q), (int)r->entries);
}

static void ring_open(struct ring *r, uint32_t entries)
{
	ring_alloc(r, entries);
	ring_attach(r);
}

static void assert_canary(const struct ring *r)
{
	size_t i;

	for (i = 0; i < CANARY_BYTES; i++)
		if (r->mem[r->map_size + i] != CANARY)
			fail_msg("canary byte %zu after the ring overwritten", i);
	/* the control area past the struct, and its reserved words, stay 0 */
	assert_int_equal(r->ctrl->pad0, 0);
	for (i = 0; i < 4; i++)
		assert_true(r->ctrl->reserved[i] == 0);
	for (i = sizeof(struct neuron_nq_ctrl); i < NEURON_NQ_RING_OFFSET; i++)
		if (r->mem[i])
			fail_msg("control page byte %zu written", i);
}

static void ring_close(struct ring *r)
{
	assert_canary(r);
	if (r->q)
		assert_int_equal(nrt_nq_close(r->q), 0);
	free(r->mem);
	memset(r, 0, sizeof(*r));
}

/* Entry with every body field derived from @seq (to detect torn reads). */
static struct neuron_nq_entry seq_entry(uint32_t seq)
{
	struct neuron_nq_entry e;

	memset(&e, 0, sizeof(e));
	e.header = TPB;
	e.error_id = NEURON_TPB_ERROR_FP_UNDERFLOW;	/* decodes clean */
	e.metadata_lo[0] = (uint8_t)(seq >> 8);
	e.metadata_lo[1] = (uint8_t)(seq >> 16);
	e.metadata_hi = seq;
	e.timestamp_ps = (uint64_t)seq * 0x9e3779b97f4a7c15ULL;
	return e;
}

static int seq_body_ok(const struct neuron_nq_entry *e, uint32_t seq)
{
	return e->error_id == NEURON_TPB_ERROR_FP_UNDERFLOW &&
	       e->metadata_lo[0] == (uint8_t)(seq >> 8) &&
	       e->metadata_lo[1] == (uint8_t)(seq >> 16) && e->metadata_hi == seq &&
	       e->timestamp_ps == (uint64_t)seq * 0x9e3779b97f4a7c15ULL &&
	       (e->header & NEURON_NQ_HDR_TYPE_MASK) == TPB;
}

static struct neuron_nq_entry typed(uint8_t type, uint8_t error_id)
{
	struct neuron_nq_entry e;

	memset(&e, 0, sizeof(e));
	e.header = type;
	e.error_id = error_id;
	e.metadata_hi = 0x12345678;
	e.timestamp_ps = 42;
	return e;
}

static int produce(struct ring *r, const struct neuron_nq_entry *e)
{
	return neuron_nq_produce(&r->p, r->ctrl, r->slots, e);
}

static int produce_seq(struct ring *r, uint32_t seq)
{
	struct neuron_nq_entry e = seq_entry(seq);

	return produce(r, &e);
}

static uint64_t rng_state = 0x243f6a8885a308d3ULL;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

/*
 * Pretend the ring has been running and everything before @start was
 * consumed: each slot holds the last entry written to it before @start,
 * with the phase of that entry's lap (lap parity straight from the spec:
 * phase set on even laps).
 */
static void start_at(struct ring *r, uint32_t start)
{
	uint32_t mask = r->entries - 1;
	uint32_t s;

	for (s = 0; s < r->entries; s++) {
		/* the largest index < start that maps to slot s (u32 arithmetic) */
		uint32_t idx = (start - 1) - ((start - 1 - s) & mask);
		int odd_lap = (int)((idx / r->entries) % 2);

		r->slots[s] = seq_entry(0xdead0000u | s);
		r->slots[s].header = (uint8_t)(TPB | (odd_lap ? 0 : PHASE));
	}
	r->p.tail = start;
	r->ctrl->head = start;
	r->ctrl->tail = start;
}

/* ---- argument checks -------------------------------------------------- */

static void attach_rejects(void **state)
{
	struct ring r;
	nrt_nq_t *q = (nrt_nq_t *)&r;
	nrt_infer_errors_t errs;
	uint64_t d;

	(void)state;
	ring_alloc(&r, 16);
	assert_int_equal(nrt_nq_attach_memory(r.mem, r.map_size, NULL), -EINVAL);
	assert_int_equal(nrt_nq_attach_memory(NULL, r.map_size, &q), -EINVAL);
	assert_null(q);
	q = (nrt_nq_t *)&r;
	assert_int_equal(nrt_nq_attach_memory(r.mem, NEURON_NQ_RING_OFFSET - 1, &q), -EINVAL);
	assert_null(q);
	/* one byte short of the last entry */
	assert_int_equal(nrt_nq_attach_memory(r.mem, r.map_size - 1, &q), -EINVAL);
	assert_null(q);
	r.ctrl->entries = 0;
	assert_int_equal(nrt_nq_attach_memory(r.mem, r.map_size, &q), -EINVAL);
	r.ctrl->entries = 12;	/* not a power of two */
	assert_int_equal(nrt_nq_attach_memory(r.mem, r.map_size, &q), -EINVAL);
	r.ctrl->entries = 32;	/* does not fit the map */
	assert_int_equal(nrt_nq_attach_memory(r.mem, r.map_size, &q), -EINVAL);
	r.ctrl->entries = 16;
	assert_int_equal(nrt_nq_attach_memory(r.mem, r.map_size, &q), 0);
	assert_int_equal(nrt_nq_capacity(q), 16);
	assert_int_equal(nrt_nq_close(q), 0);
	/* a larger map than needed is fine */
	assert_int_equal(nrt_nq_attach_memory(r.mem, r.map_size + CANARY_BYTES, &q), 0);
	assert_int_equal(nrt_nq_capacity(q), 16);
	assert_int_equal(nrt_nq_close(q), 0);

	assert_int_equal(nrt_nq_capacity(NULL), -EINVAL);
	assert_int_equal(nrt_nq_drain_entries(NULL, NULL, 0), -EINVAL);
	assert_int_equal(nrt_nq_drain(NULL, &errs, &d), -EINVAL);
	assert_int_equal(nrt_nq_close(NULL), -EINVAL);
	ring_attach(&r);
	assert_int_equal(nrt_nq_drain(r.q, NULL, &d), -EINVAL);
	ring_close(&r);
}

/* ---- basic behaviour ---------------------------------------------------- */

static void empty_ring(void **state)
{
	static const uint32_t caps[] = { 16, 32, 65536 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		struct ring r;
		struct neuron_nq_entry out[4];
		nrt_infer_errors_t errs, zero;
		uint64_t d = 99;

		ring_open(&r, caps[i]);
		memset(&zero, 0, sizeof(zero));
		memset(&errs, 0, sizeof(errs));
		assert_int_equal(nrt_nq_drain_entries(r.q, out, 4), 0);
		assert_int_equal(nrt_nq_drain_entries(r.q, NULL, 0), 0);
		assert_int_equal(nrt_nq_drain(r.q, &errs, &d), 0);
		assert_true(d == 0);
		assert_memory_equal(&errs, &zero, sizeof(errs));
		assert_int_equal(nrt_infer_errors_status(&errs, NULL), NRT_SUCCESS);
		assert_int_equal(r.ctrl->head, 0);
		assert_int_equal(nrt_nq_drain(r.q, &errs, NULL), 0);
		ring_close(&r);
	}
}

static void single_entry(void **state)
{
	struct ring r;
	struct neuron_nq_entry e, out[2];

	(void)state;
	ring_open(&r, 16);
	e = typed(HW, NEURON_NQ_HW_DMA_ABORT);
	e.metadata_lo[0] = 0xab;
	e.metadata_lo[1] = 0xcd;
	e.metadata_hi = 0xfeedf00d;
	e.timestamp_ps = 0x0123456789abcdefULL;
	assert_int_equal(produce(&r, &e), 0);
	assert_int_equal(r.ctrl->tail, 1);
	assert_true(r.ctrl->written == 1);
	assert_true(r.ctrl->dropped == 0);
	assert_int_equal(r.ctrl->head, 0);
	assert_int_equal(r.slots[0].header, HW | PHASE);
	assert_int_equal(r.slots[1].header, 0);

	memset(out, 0x5a, sizeof(out));
	assert_int_equal(nrt_nq_drain_entries(r.q, out, 2), 1);
	assert_int_equal(out[0].header, HW | PHASE);
	assert_int_equal(out[0].error_id, NEURON_NQ_HW_DMA_ABORT);
	assert_int_equal(out[0].metadata_lo[0], 0xab);
	assert_int_equal(out[0].metadata_lo[1], 0xcd);
	assert_int_equal(out[0].metadata_hi, 0xfeedf00d);
	assert_true(out[0].timestamp_ps == 0x0123456789abcdefULL);
	assert_int_equal(out[1].header, 0x5a);	/* nothing written past the count */
	assert_int_equal(r.ctrl->head, 1);
	assert_int_equal(nrt_nq_drain_entries(r.q, out, 2), 0);
	assert_int_equal(r.ctrl->head, 1);
	ring_close(&r);
}

/*
 * FIFO across @laps wraps: the producer writes batches of random size (and
 * regularly exactly capacity and capacity - 1 into an empty ring), never
 * more than fits; the consumer drains random amounts. Every entry comes out
 * once, in order, with the phase of its lap (tracked by counting wraps).
 */
static void run_fifo(uint32_t cap, uint32_t laps)
{
	struct ring r;
	struct neuron_nq_entry *out;
	uint64_t total = (uint64_t)cap * laps;
	uint64_t produced = 0, consumed = 0;
	uint8_t phase = PHASE;	/* lap 0 */
	uint32_t iter = 0;

	ring_open(&r, cap);
	out = malloc((size_t)cap * sizeof(*out));
	assert_non_null(out);
	while (consumed < total) {
		uint32_t outstanding = (uint32_t)(produced - consumed);
		uint32_t room = cap - outstanding;
		uint32_t batch, max, want, i;
		int got;

		switch (iter++ % 8) {
		case 0:
			batch = outstanding == 0 ? cap : room;	/* fill to exactly full */
			break;
		case 1:
			batch = outstanding == 0 ? cap - 1 : room / 2;
			break;
		default:
			batch = room ? 1 + rnd() % room : 0;
			break;
		}
		if (batch > total - produced)
			batch = (uint32_t)(total - produced);
		for (i = 0; i < batch; i++) {
			if (produce_seq(&r, (uint32_t)produced))
				fail_msg("produce %llu failed with room", (unsigned long long)produced);
			produced++;
		}
		if (outstanding + batch == cap)	/* exactly full */
			assert_int_equal(r.ctrl->tail - r.ctrl->head, cap);

		outstanding += batch;
		max = (iter % 3 == 0) ? 0 : 1 + rnd() % cap;	/* 0: all */
		want = (max == 0 || max > outstanding) ? outstanding : max;
		got = nrt_nq_drain_entries(r.q, out, max);
		if ((uint32_t)got != want)
			fail_msg("drain returned %d, want %u (consumed %llu)", got, want,
				 (unsigned long long)consumed);
		for (i = 0; i < (uint32_t)got; i++) {
			uint32_t seq = (uint32_t)consumed;

			if (consumed && (seq & (cap - 1)) == 0)
				phase ^= PHASE;	/* new lap */
			if (!seq_body_ok(&out[i], seq))
				fail_msg("entry %u: got seq %u", seq, out[i].metadata_hi);
			if (out[i].header != (TPB | phase))
				fail_msg("entry %u: header 0x%02x, want 0x%02x", seq, out[i].header,
					 TPB | phase);
			consumed++;
		}
		assert_int_equal(r.ctrl->head, (uint32_t)consumed);
		if (max == 0)	/* everything drained: nothing is read twice */
			assert_int_equal(nrt_nq_drain_entries(r.q, out, 0), 0);
	}
	assert_true(produced == total && consumed == total);
	assert_int_equal(nrt_nq_drain_entries(r.q, out, 0), 0);
	assert_int_equal(r.ctrl->tail, (uint32_t)total);
	assert_int_equal(r.ctrl->head, (uint32_t)total);
	assert_true(r.ctrl->written == total);
	assert_true(r.ctrl->dropped == 0);
	free(out);
	ring_close(&r);
}

static void fifo_wraps_16(void **state)
{
	(void)state;
	run_fifo(16, 5000);
}

static void fifo_wraps_32(void **state)
{
	(void)state;
	run_fifo(32, 5000);
}

static void fifo_wraps_65536(void **state)
{
	(void)state;
	run_fifo(65536, 1200);
}

/* Batches of exactly capacity and capacity - 1, drained completely each time. */
static void exact_batches(void **state)
{
	static const uint32_t caps[] = { 16, 32, 65536 };
	size_t c;

	(void)state;
	for (c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
		uint32_t cap = caps[c];
		uint32_t seq = 0, next = 0, round, i, full = 0;
		struct ring r;
		struct neuron_nq_entry *out = malloc((size_t)cap * sizeof(*out));

		assert_non_null(out);
		ring_open(&r, cap);
		for (round = 0; round < (cap > 1024 ? 40u : 2000u); round++) {
			uint32_t batch = (round & 1) ? cap - 1 : cap;

			for (i = 0; i < batch; i++)
				assert_int_equal(produce_seq(&r, seq++), 0);
			if (batch == cap) {	/* full: the next one is dropped */
				assert_int_equal(produce_seq(&r, 0xffffffffu), -ENOSPC);
				full++;
			}
			assert_int_equal(nrt_nq_drain_entries(r.q, out, 0), (int)batch);
			for (i = 0; i < batch; i++)
				if (!seq_body_ok(&out[i], next + i) ||
				    !!(out[i].header & SW_OVF) != (i == 0 && (round & 1)))
					fail_msg("round %u entry %u: seq %u header 0x%02x", round, i,
						 out[i].metadata_hi, out[i].header);
			next += batch;
			assert_int_equal(nrt_nq_drain_entries(r.q, out, 0), 0);
		}
		assert_int_equal(next, seq);
		assert_true(r.ctrl->written == seq);
		assert_true(r.ctrl->dropped == full);
		free(out);
		ring_close(&r);
	}
}

/* The raw phase bit of every slot, lap by lap. */
static void phase_per_lap(void **state)
{
	struct ring r;
	uint32_t lap, s;

	(void)state;
	ring_open(&r, 16);
	for (lap = 0; lap < 6; lap++) {
		uint8_t want = (lap % 2 == 0) ? PHASE : 0;

		for (s = 0; s < 16; s++) {
			assert_int_equal(produce_seq(&r, lap * 16 + s), 0);
			assert_int_equal(r.slots[s].header, TPB | want);
			/* slots not yet rewritten this lap still carry the old phase */
			if (s + 1 < 16)
				assert_int_equal(r.slots[s + 1].header & PHASE,
						 lap == 0 ? 0 : (want ^ PHASE));
		}
		assert_int_equal(nrt_nq_drain_entries(r.q, NULL, 0), 16);
		assert_int_equal(nrt_nq_drain_entries(r.q, NULL, 0), 0);
	}
	/* the rule itself, on values computed by hand */
	assert_int_equal(neuron_nq_phase(0, 16), PHASE);
	assert_int_equal(neuron_nq_phase(15, 16), PHASE);
	assert_int_equal(neuron_nq_phase(16, 16), 0);
	assert_int_equal(neuron_nq_phase(32, 16), PHASE);
	assert_int_equal(neuron_nq_phase(0xffffffffu, 16), 0);
	assert_int_equal(neuron_nq_phase(0xfffffff0u, 16), 0);
	assert_int_equal(neuron_nq_phase(0xffffffefu, 16), PHASE);
	assert_int_equal(neuron_nq_phase(0xffffffffu, 65536), 0);
	assert_int_equal(neuron_nq_phase(0xffff0000u, 65536), 0);
	assert_int_equal(neuron_nq_phase(0xfffeffffu, 65536), PHASE);
	ring_close(&r);
}

/* Partial drains, drain after drain, and a second view of the same ring. */
static void no_double_read(void **state)
{
	struct ring r;
	struct neuron_nq_entry out[8];
	nrt_infer_errors_t errs, zero;
	nrt_nq_t *q2;
	uint64_t d;
	uint32_t i;

	(void)state;
	ring_open(&r, 16);
	for (i = 0; i < 5; i++)
		assert_int_equal(produce_seq(&r, i), 0);
	assert_int_equal(nrt_nq_drain_entries(r.q, out, 2), 2);
	assert_true(seq_body_ok(&out[0], 0) && seq_body_ok(&out[1], 1));
	assert_int_equal(r.ctrl->head, 2);
	assert_int_equal(nrt_nq_drain_entries(r.q, out, 0), 3);
	assert_true(seq_body_ok(&out[0], 2) && seq_body_ok(&out[2], 4));
	assert_int_equal(nrt_nq_drain_entries(r.q, out, 0), 0);
	memset(&errs, 0, sizeof(errs));
	memset(&zero, 0, sizeof(zero));
	assert_int_equal(nrt_nq_drain(r.q, &errs, &d), 0);
	assert_memory_equal(&errs, &zero, sizeof(errs));

	/* a new consumer starts at the published head */
	assert_int_equal(nrt_nq_attach_memory(r.mem, r.map_size, &q2), 0);
	assert_int_equal(nrt_nq_drain_entries(q2, out, 0), 0);
	assert_int_equal(produce_seq(&r, 5), 0);
	assert_int_equal(nrt_nq_drain_entries(q2, out, 0), 1);
	assert_true(seq_body_ok(&out[0], 5));
	assert_int_equal(nrt_nq_close(q2), 0);
	ring_close(&r);
}

/* ---- overflow ----------------------------------------------------------- */

static void full_ring_overflow(void **state)
{
	struct ring r;
	struct neuron_nq_entry out[20];
	nrt_infer_errors_t errs;
	uint64_t d = 77;
	uint32_t i;

	(void)state;
	ring_open(&r, 16);
	for (i = 0; i < 16; i++)
		assert_int_equal(produce_seq(&r, i), 0);
	assert_true(r.ctrl->dropped == 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(produce_seq(&r, 100 + i), -ENOSPC);
		assert_true(r.ctrl->dropped == i + 1);
		assert_true(r.p.dropped == i + 1);
	}
	/* the refused entries changed nothing in the ring */
	assert_int_equal(r.ctrl->tail, 16);
	assert_true(r.ctrl->written == 16);
	for (i = 0; i < 16; i++) {
		assert_true(seq_body_ok(&r.slots[i], i));
		assert_int_equal(r.slots[i].header, TPB | PHASE);
	}

	/* clean entries + 4 drops: overflow only, status 1204 */
	memset(&errs, 0, sizeof(errs));
	assert_int_equal(nrt_nq_drain(r.q, &errs, &d), 16);
	assert_true(d == 4);
	assert_int_equal(errs.entries, 16);
	assert_int_equal(errs.malformed, 0);
	assert_int_equal(errs.nq_overflow, 1);
	assert_int_equal(nrt_infer_errors_status(&errs, NULL), NRT_EXEC_SW_NQ_OVERFLOW);
	assert_int_equal(NRT_EXEC_SW_NQ_OVERFLOW, 1204);
	/* the drops are reported once */
	memset(&errs, 0, sizeof(errs));
	assert_int_equal(nrt_nq_drain(r.q, &errs, &d), 0);
	assert_true(d == 0);
	assert_int_equal(errs.nq_overflow, 0);

	/* the next entry written carries SW overflow, the one after does not */
	assert_int_equal(produce_seq(&r, 16), 0);
	assert_int_equal(produce_seq(&r, 17), 0);
	assert_int_equal(r.slots[0].header, TPB | SW_OVF);	/* lap 1: phase 0 */
	assert_int_equal(r.slots[1].header, TPB);
	assert_int_equal(nrt_nq_drain_entries(r.q, out, 0), 2);
	assert_int_equal(out[0].header, TPB | SW_OVF);
	assert_true(seq_body_ok(&out[0], 16) && seq_body_ok(&out[1], 17));

	/* drops while entries are pending: reported by the next drain */
	for (i = 0; i < 14; i++)
		assert_int_equal(produce_seq(&r, 18 + i), 0);
	assert_int_equal(produce_seq(&r, 999), 0);
	assert_int_equal(produce_seq(&r, 999), 0);
	assert_int_equal(produce_seq(&r, 999), -ENOSPC);
	assert_true(r.ctrl->dropped == 5);
	assert_int_equal(nrt_nq_drain_entries(r.q, NULL, 1), 1);	/* make room for one */
	assert_int_equal(produce_seq(&r, 1000), 0);
	memset(&errs, 0, sizeof(errs));
	assert_int_equal(nrt_nq_drain(r.q, &errs, &d), 16);
	assert_true(d == 1);
	assert_int_equal(errs.nq_overflow, 1);
	assert_int_equal(errs.entries, 16);
	/* the last entry written carries the bit (not counted a second time) */
	assert_int_equal(r.slots[(r.p.tail - 1) & 15].header & SW_OVF, SW_OVF);
	memset(&errs, 0, sizeof(errs));
	assert_int_equal(nrt_nq_drain(r.q, &errs, &d), 0);
	assert_true(d == 0);
	assert_int_equal(nrt_infer_errors_status(&errs, NULL), NRT_SUCCESS);
	ring_close(&r);
}

/*
 * One overflow is reported once: by the drop counter, at the first
 * nrt_nq_drain after the drops. The SW-overflow bit on the next entry
 * reports the same drops and is not counted again by nrt_nq_drain;
 * nrt_nq_drain_entries returns the bit untouched.
 */
static void overflow_counted_once(void **state)
{
	struct ring r;
	struct neuron_nq_entry out[16];
	nrt_infer_errors_t errs;
	uint64_t d = 5;
	uint32_t i;

	(void)state;
	ring_open(&r, 16);
	for (i = 0; i < 16; i++)
		assert_int_equal(produce_seq(&r, i), 0);
	assert_int_equal(produce_seq(&r, 16), -ENOSPC);
	memset(&errs, 0, sizeof(errs));
	assert_int_equal(nrt_nq_drain(r.q, &errs, &d), 16);
	assert_true(d == 1);
	assert_int_equal(errs.nq_overflow, 1);
	assert_int_equal(nrt_infer_errors_status(&errs, NULL), NRT_EXEC_SW_NQ_OVERFLOW);
	/* the entry after the drop carries the bit; the drain does not recount */
	assert_int_equal(produce_seq(&r, 17), 0);
	assert_int_equal(r.slots[0].header, TPB | SW_OVF);
	memset(&errs, 0, sizeof(errs));
	assert_int_equal(nrt_nq_drain(r.q, &errs, &d), 1);
	assert_true(d == 0);
	assert_int_equal(errs.entries, 1);
	assert_int_equal(errs.nq_overflow, 0);
	assert_int_equal(nrt_infer_errors_status(&errs, NULL), NRT_SUCCESS);

	/* drained raw: the bit comes back untouched; the counter is still
	 * reported by the next nrt_nq_drain (drain_entries does not read it) */
	for (i = 0; i < 16; i++)
		assert_int_equal(produce_seq(&r, 18 + i), 0);
	assert_int_equal(produce_seq(&r, 99), -ENOSPC);
	assert_int_equal(produce_seq(&r, 99), -ENOSPC);
	assert_int_equal(nrt_nq_drain_entries(r.q, out, 0), 16);
	assert_int_equal(produce_seq(&r, 34), 0);
	assert_int_equal(nrt_nq_drain_entries(r.q, out, 0), 1);
	assert_int_equal(out[0].header, TPB | PHASE | SW_OVF);	/* index 33: lap 2 */
	assert_true(seq_body_ok(&out[0], 34));
	memset(&errs, 0, sizeof(errs));
	assert_int_equal(nrt_nq_drain(r.q, &errs, &d), 0);
	assert_true(d == 2);
	assert_int_equal(errs.nq_overflow, 1);
	assert_int_equal(errs.entries, 0);
	assert_int_equal(nrt_infer_errors_status(&errs, NULL), NRT_EXEC_SW_NQ_OVERFLOW);

	/*
	 * A view attached after drops starts from the counter's value then:
	 * those drops are not its to report, even though the next entry still
	 * carries the bit.
	 */
	assert_int_equal(nrt_nq_close(r.q), 0);
	r.q = NULL;
	for (i = 0; i < 16; i++)
		assert_int_equal(produce_seq(&r, 35 + i), 0);
	assert_int_equal(produce_seq(&r, 99), -ENOSPC);
	assert_true(r.ctrl->dropped == 4);
	ring_attach(&r);
	assert_int_equal(nrt_nq_drain_entries(r.q, NULL, 0), 16);
	assert_int_equal(produce_seq(&r, 51), 0);
	memset(&errs, 0, sizeof(errs));
	assert_int_equal(nrt_nq_drain(r.q, &errs, &d), 1);
	assert_true(d == 0);
	assert_int_equal(errs.nq_overflow, 0);
	assert_int_equal(r.slots[(r.p.tail - 1) & 15].header & SW_OVF, SW_OVF);
	ring_close(&r);
}

/* The producer owns the phase and SW-overflow bits; HW overflow passes through. */
static void header_bits_owned_by_producer(void **state)
{
	struct ring r;
	struct neuron_nq_entry e;

	(void)state;
	ring_open(&r, 16);
	e = typed(TPB, NEURON_TPB_ERROR_FP_INF);
	e.header = TPB | PHASE | SW_OVF | NEURON_NQ_HDR_HW_OVERFLOW;
	assert_int_equal(produce(&r, &e), 0);
	assert_int_equal(r.slots[0].header, TPB | PHASE | NEURON_NQ_HDR_HW_OVERFLOW);
	e.header = HW;
	e.error_id = NEURON_NQ_HW_HBM_UE;
	assert_int_equal(produce(&r, &e), 0);
	assert_int_equal(r.slots[1].header, HW | PHASE);
	ring_close(&r);
}

/* ---- a misbehaving consumer --------------------------------------------- */

/*
 * With ctrl->head forced to @head (tail 10 in a 16-entry ring, everything
 * consumed), produce up to 40 entries. Exactly the room the head implies
 * (none when the head is not within the last lap) is written, at the slots
 * from the tail on, nothing else in the ring changes and nothing outside it.
 */
static void bogus_head_case(uint32_t head)
{
	struct ring r;
	struct neuron_nq_entry before[16];
	uint32_t fill = 10u - head;	/* fill level as the producer computes it */
	uint32_t room = fill < 16 ? 16 - fill : 0;
	uint32_t i, ok = 0, s;
	uint64_t dropped;

	ring_open(&r, 16);
	for (i = 0; i < 10; i++)
		assert_int_equal(produce_seq(&r, i), 0);
	assert_int_equal(nrt_nq_drain_entries(r.q, NULL, 0), 10);
	memcpy(before, r.slots, sizeof(before));

	r.ctrl->head = head;
	for (i = 0; i < 40; i++) {
		int ret = produce_seq(&r, 1000 + i);

		if (ret == 0) {
			assert_int_equal(i, ok);	/* successes come first */
			ok++;
		} else {
			assert_int_equal(ret, -ENOSPC);
		}
	}
	dropped = r.ctrl->dropped;
	assert_int_equal(ok, room);
	assert_true(dropped == 40 - room);
	assert_int_equal(r.ctrl->tail, 10 + room);
	assert_int_equal(r.ctrl->head, head);	/* the producer never writes it */
	for (s = 0; s < 16; s++) {
		/* slot s holds index 10 + k for k < room when (10 + k) % 16 == s */
		uint32_t k = (s + 16 - 10) % 16;

		if (k < room)
			assert_true(seq_body_ok(&r.slots[s], 1000 + k));
		else
			assert_memory_equal(&r.slots[s], &before[s], sizeof(before[s]));
	}
	ring_close(&r);
}

static void misbehaving_consumer(void **state)
{
	(void)state;
	bogus_head_case(10);			/* honest: 16 free */
	bogus_head_case(11);			/* beyond the tail by one */
	bogus_head_case(10 + 16);		/* a whole lap ahead */
	bogus_head_case(0x80000000u);		/* far ahead */
	bogus_head_case(0xffffffffu);		/* "-1" */
	bogus_head_case(3);			/* backwards inside the lap: 9 free */
	bogus_head_case(10u - 15u);		/* backwards, 1 free */
	bogus_head_case(10u - 16u);		/* backwards a full lap: full */
	bogus_head_case(10u - 17u);		/* not within the last lap */
	bogus_head_case(0);			/* back to the start: 6 free */
}

/* Random heads, random tails, big ring: never a byte outside the ring. */
static void misbehaving_consumer_random(void **state)
{
	struct ring r;
	uint32_t round;

	(void)state;
	ring_open(&r, 64);
	for (round = 0; round < 2000; round++) {
		uint32_t head = rnd() ^ (rnd() << 16);
		uint32_t fill, room, i, ok = 0;

		if (round & 1)	/* near the tail half the time */
			head = r.p.tail + (rnd() % 160) - 80;
		r.ctrl->head = head;
		fill = r.p.tail - head;
		room = fill < 64 ? 64 - fill : 0;
		for (i = 0; i < 70; i++)
			ok += produce_seq(&r, i) == 0;
		if (ok != room)
			fail_msg("head %u tail %u: wrote %u, room %u", head, r.p.tail - ok, ok, room);
		/* the producer advances by what it wrote, even if the head was bogus */
	}
	assert_canary(&r);
	ring_close(&r);
}

/* ---- u32 index wrap-around ---------------------------------------------- */

static void wrap_case(uint32_t cap, uint32_t start, uint32_t total)
{
	struct ring r;
	struct neuron_nq_entry *out = malloc((size_t)cap * sizeof(*out));
	uint32_t produced = 0, consumed = 0;

	assert_non_null(out);
	ring_alloc(&r, cap);
	start_at(&r, start);
	ring_attach(&r);
	/* the pre-filled previous lap reads as empty */
	assert_int_equal(nrt_nq_drain_entries(r.q, out, 0), 0);

	while (consumed < total) {
		uint32_t batch = 1 + rnd() % cap, i;
		int got;

		if (batch > cap - (produced - consumed))
			batch = cap - (produced - consumed);
		if (batch > total - produced)
			batch = total - produced;
		for (i = 0; i < batch; i++) {
			uint32_t idx = start + produced;

			assert_int_equal(produce_seq(&r, produced), 0);
			/* phase from the lap parity, with the u32 index */
			assert_int_equal(r.slots[idx & (cap - 1)].header & PHASE,
					 ((idx / cap) % 2 == 0) ? PHASE : 0);
			produced++;
		}
		if (produced - consumed == cap)
			assert_int_equal(produce_seq(&r, 0xeeeeeeeeu), -ENOSPC);
		got = nrt_nq_drain_entries(r.q, out, 0);
		assert_int_equal(got, (int)(produced - consumed));
		for (i = 0; i < (uint32_t)got; i++, consumed++)
			if (!seq_body_ok(&out[i], consumed))
				fail_msg("start 0x%x: entry %u has seq %u", start, consumed,
					 out[i].metadata_hi);
		assert_int_equal(r.ctrl->head, start + consumed);
		assert_int_equal(nrt_nq_drain_entries(r.q, out, 0), 0);
	}
	/* the indexes went through 2^32 */
	assert_true(start + total < start);
	assert_int_equal(r.ctrl->tail, start + total);
	free(out);
	ring_close(&r);
}

static void u32_wrap(void **state)
{
	(void)state;
	wrap_case(16, 0xfffffff0u, 16 * 200);
	wrap_case(16, 0xfffffff0u - 5, 16 * 200);	/* mid-lap start */
	wrap_case(16, 0xffffffe0u, 16 * 200);	/* lap parity even at start */
	wrap_case(16, 0xffffffffu, 16 * 50);
	wrap_case(32, 0xffffffe3u, 32 * 200);
	wrap_case(65536, 0xffff0000u - 7, 65536 * 3);
	wrap_case(65536, 0xffffffffu - 100, 65536 * 2);
}

/* Exactly full across the boundary: tail wrapped, head not yet. */
static void u32_wrap_full(void **state)
{
	struct ring r;
	uint32_t i;

	(void)state;
	ring_alloc(&r, 16);
	start_at(&r, 0xfffffff8u);
	ring_attach(&r);
	for (i = 0; i < 16; i++)
		assert_int_equal(produce_seq(&r, i), 0);
	assert_int_equal(r.p.tail, 8);
	assert_int_equal(produce_seq(&r, 16), -ENOSPC);
	assert_int_equal(nrt_nq_drain_entries(r.q, NULL, 3), 3);
	assert_int_equal(r.ctrl->head, 0xfffffffbu);
	for (i = 0; i < 3; i++)
		assert_int_equal(produce_seq(&r, 17 + i), 0);
	assert_int_equal(produce_seq(&r, 20), -ENOSPC);
	assert_true(r.ctrl->dropped == 2);
	assert_int_equal(nrt_nq_drain_entries(r.q, NULL, 0), 16);
	assert_int_equal(r.ctrl->head, 11);
	assert_int_equal(nrt_nq_drain_entries(r.q, NULL, 0), 0);
	ring_close(&r);
}

/* ---- decode through nrt_nq_drain ---------------------------------------- */

struct mix_case {
	const char *name;
	uint8_t types[6];
	uint8_t ids[6];
	uint32_t n;
	NRT_STATUS disarmed, armed;
	uint32_t entries, malformed;
};

static const struct mix_case mixes[] = {
	{ "nan only", { TPB }, { NEURON_TPB_ERROR_FP_NAN }, 1,
	  NRT_SUCCESS, NRT_EXEC_COMPLETED_WITH_NUM_ERR, 1, 0 },
	{ "benign tpb", { TPB, TPB, TPB }, { 0, 2, 9 }, 3, NRT_SUCCESS, NRT_SUCCESS, 3, 0 },
	{ "memory error", { TPB, TPB }, { NEURON_TPB_ERROR_FP_INF, NEURON_TPB_ERROR_MEMORY_ERROR },
	  2, NRT_EXEC_COMPLETED_WITH_ERR, NRT_EXEC_COMPLETED_WITH_ERR, 2, 0 },
	{ "hw beats 1004", { TPB, HW, TPB },
	  { NEURON_TPB_ERROR_PSUM_COLLISION, NEURON_NQ_HW_HBM_UE, NEURON_TPB_ERROR_FP_NAN }, 3,
	  NRT_EXEC_HW_ERR_HBM_UE, NRT_EXEC_HW_ERR_HBM_UE, 3, 0 },
	{ "two hw faults", { HW, HW }, { NEURON_NQ_HW_DMA_ABORT, NEURON_NQ_HW_NC_UE }, 2,
	  NRT_EXEC_HW_ERR_NC_UE, NRT_EXEC_HW_ERR_NC_UE, 2, 0 },
	{ "repairable", { HW, TPB }, { NEURON_NQ_HW_REPAIRABLE_HBM_UE, NEURON_TPB_ERROR_FP_NAN }, 2,
	  NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE, NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE, 2, 0 },
	{ "collectives", { HW }, { NEURON_NQ_HW_COLLECTIVES }, 1,
	  NRT_EXEC_HW_ERR_COLLECTIVES, NRT_EXEC_HW_ERR_COLLECTIVES, 1, 0 },
	{ "malformed only", { NEURON_NQ_NOTIFIC_DMA, TPB, HW, HW, 0 },
	  { 0, NRT_TPB_REMAP_COUNT, 0, NEURON_NQ_HW_COUNT, 1 }, 5,
	  NRT_SUCCESS, NRT_SUCCESS, 0, 5 },
	{ "malformed + fatal seq", { 0x1e, TPB, TPB }, { 3, NEURON_TPB_ERROR_SEQUENCER_FATAL, 200 }, 3,
	  NRT_EXEC_COMPLETED_WITH_ERR, NRT_EXEC_COMPLETED_WITH_ERR, 1, 2 },
};

static void decode_mixed(void **state)
{
	static const nrt_decode_config_t armed = { true }, disarmed = { false };
	size_t c;

	(void)state;
	for (c = 0; c < sizeof(mixes) / sizeof(mixes[0]); c++) {
		const struct mix_case *m = &mixes[c];
		struct ring r;
		nrt_infer_errors_t errs;
		uint64_t d = 9;
		uint32_t i, round;

		ring_open(&r, 16);
		/* twice: once in lap 0, once from slot 15 (straddling the wrap) */
		for (round = 0; round < 2; round++) {
			if (round == 1)
				for (i = 0; (r.p.tail & 15) != 15; i++) {
					assert_int_equal(produce_seq(&r, i), 0);
					assert_int_equal(nrt_nq_drain_entries(r.q, NULL, 0), 1);
				}
			for (i = 0; i < m->n; i++) {
				struct neuron_nq_entry e = typed(m->types[i], m->ids[i]);

				assert_int_equal(produce(&r, &e), 0);
			}
			memset(&errs, 0, sizeof(errs));
			assert_int_equal(nrt_nq_drain(r.q, &errs, &d), (int)m->n);
			assert_true(d == 0);
			if (errs.entries != m->entries || errs.malformed != m->malformed)
				fail_msg("%s: entries %u malformed %u", m->name, errs.entries,
					 errs.malformed);
			assert_int_equal(errs.nq_overflow, 0);
			if (nrt_infer_errors_status(&errs, &disarmed) != m->disarmed ||
			    nrt_infer_errors_status(&errs, &armed) != m->armed)
				fail_msg("%s: status %d / %d", m->name,
					 nrt_infer_errors_status(&errs, &disarmed),
					 nrt_infer_errors_status(&errs, &armed));
		}
		ring_close(&r);
	}
}

/*
 * Every notific_type 0..31 with a spread of error_ids: malformed entries are
 * consumed and counted, the valid ones between them decode.
 */
static void malformed_counted(void **state)
{
	static const uint8_t ids[] = { 0, 1, 5, 10, 11, 255 };
	struct ring r;
	nrt_infer_errors_t errs;
	uint32_t t, k, n = 0;

	(void)state;
	ring_open(&r, 256);
	for (t = 0; t < 32; t++)
		for (k = 0; k < sizeof(ids); k++) {
			struct neuron_nq_entry e = typed((uint8_t)t, ids[k]);

			assert_int_equal(produce(&r, &e), 0);
			n++;
		}
	assert_int_equal(n, 192);
	memset(&errs, 0, sizeof(errs));
	assert_int_equal(nrt_nq_drain(r.q, &errs, NULL), 192);
	/* valid: TPB with 0, 1, 5, 10, 11 (NONE) and ERROR with 1, 5 */
	assert_int_equal(errs.entries, 7);
	assert_int_equal(errs.malformed, 185);
	assert_int_equal(errs.nq_overflow, 0);
	assert_int_equal(errs.hw_error_flags[1], 1);
	assert_int_equal(errs.hw_error_flags[5], 1);
	assert_int_equal(errs.hw_error_flags[2] | errs.hw_error_flags[3] | errs.hw_error_flags[4], 0);
	/* types 0, 1 (NONE), 5 (SW_FAKE_ERROR), 10 (SW_SEQUENCER_ERROR) */
	assert_int_equal(errs.infer_error_flags[NRT_INFER_ERROR_SUBTYPE_NONE], 1);
	assert_int_equal(errs.infer_error_flags[NRT_INFER_ERROR_SUBTYPE_NUMERICAL], 1);
	assert_int_equal(errs.infer_error_flags[NRT_INFER_ERROR_SUBTYPE_SW_FAKE_ERROR], 1);
	assert_int_equal(errs.infer_error_flags[NRT_INFER_ERROR_SUBTYPE_SW_SEQUENCER_ERROR], 1);
	assert_int_equal(errs.infer_error_flags[NRT_INFER_ERROR_SUBTYPE_TRANSIENT], 0);
	assert_int_equal(nrt_infer_errors_status(&errs, NULL), NRT_EXEC_HW_ERR_COLLECTIVES);
	ring_close(&r);
}

/* ---- two threads -------------------------------------------------------- */

#define THREAD_ENTRIES	1000000u

struct mt {
	struct ring *r;
	uint32_t n;
	/* producer results */
	uint64_t enospc;		/* produce() calls refused */
	uint64_t ovf_marked;		/* successes right after >= 1 refusal */
	int gave_up;			/* the consumer stopped making room */
	int done;			/* set (release) after the last produce */
	/* consumer results */
	uint64_t received;
	uint64_t seen_ovf;		/* entries with the SW overflow bit */
	uint32_t first_bad;		/* first sequence mismatch, or UINT32_MAX */
	uint32_t bad_got;
	uint64_t drain_calls;
	/* decode consumer */
	int use_decode;
	nrt_infer_errors_t errs;
	uint64_t dropped_sum;
};

static void *producer_thread(void *arg)
{
	struct mt *m = arg;
	uint32_t seq;
	int refused = 0;

	for (seq = 0; seq < m->n && !m->gave_up; seq++) {
		struct neuron_nq_entry e = seq_entry(seq);
		uint32_t spins = 0;

		while (neuron_nq_produce(&m->r->p, m->r->ctrl, m->r->slots, &e) == -ENOSPC) {
			m->enospc++;
			refused = 1;
			/* livelock guard: a consumer that never frees a slot fails
			 * the test instead of hanging it */
			if (++spins == 20000000u) {
				m->gave_up = 1;
				break;
			}
			sched_yield();
		}
		if (refused)
			m->ovf_marked++;
		refused = 0;
	}
	__atomic_store_n(&m->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *consumer_thread(void *arg)
{
	struct mt *m = arg;
	struct neuron_nq_entry buf[64];

	for (;;) {
		int done = __atomic_load_n(&m->done, __ATOMIC_ACQUIRE);
		int got, i;

		if (m->use_decode) {
			uint64_t d = 0;

			got = nrt_nq_drain(m->r->q, &m->errs, &d);
			m->dropped_sum += d;
		} else {
			got = nrt_nq_drain_entries(m->r->q, buf, 64);
			for (i = 0; i < got; i++) {
				uint32_t want = (uint32_t)m->received;

				if (!seq_body_ok(&buf[i], want) && m->first_bad == UINT32_MAX) {
					m->first_bad = want;
					m->bad_got = buf[i].metadata_hi;
				}
				if (buf[i].header & SW_OVF)
					m->seen_ovf++;
				m->received++;
			}
		}
		if (m->use_decode && got > 0)
			m->received += (uint64_t)got;
		m->drain_calls++;
		/* stop once the producer had finished before an empty drain (or
		 * when the ring is clearly broken, so a bug cannot hang the test) */
		if (done && (got == 0 || m->first_bad != UINT32_MAX || m->received > m->n))
			break;
		if (got == 0)
			sched_yield();
	}
	return NULL;
}

static void run_threads(uint32_t cap, int use_decode)
{
	struct ring r;
	struct mt m;
	pthread_t pt, ct;

	ring_open(&r, cap);
	memset(&m, 0, sizeof(m));
	m.r = &r;
	m.n = THREAD_ENTRIES;
	m.first_bad = UINT32_MAX;
	m.use_decode = use_decode;
	assert_int_equal(pthread_create(&ct, NULL, consumer_thread, &m), 0);
	assert_int_equal(pthread_create(&pt, NULL, producer_thread, &m), 0);
	assert_int_equal(pthread_join(pt, NULL), 0);
	assert_int_equal(pthread_join(ct, NULL), 0);

	assert_int_equal(m.gave_up, 0);
	if (m.first_bad != UINT32_MAX)
		fail_msg("cap %u: entry %u carried seq %u", cap, m.first_bad, m.bad_got);
	assert_true(m.received == THREAD_ENTRIES);
	assert_true(r.ctrl->written == THREAD_ENTRIES);
	assert_int_equal(r.ctrl->tail, THREAD_ENTRIES);
	assert_int_equal(r.ctrl->head, THREAD_ENTRIES);
	/* the only "drops" are refusals the producer retried: all counted */
	assert_true(r.ctrl->dropped == m.enospc);
	if (use_decode) {
		assert_int_equal(m.errs.entries, THREAD_ENTRIES);
		assert_int_equal(m.errs.malformed, 0);
		assert_true(m.dropped_sum == m.enospc);
		assert_int_equal(m.errs.nq_overflow, m.enospc ? 1 : 0);
	} else {
		assert_true(m.seen_ovf == m.ovf_marked);
	}
	print_message("# cap %u %s: %llu refusals retried, %llu drain calls\n", cap,
		      use_decode ? "nrt_nq_drain" : "nrt_nq_drain_entries",
		      (unsigned long long)m.enospc, (unsigned long long)m.drain_calls);
	ring_close(&r);
}

static void threads_cap16(void **state)
{
	(void)state;
	run_threads(16, 0);
}

static void threads_cap4096(void **state)
{
	(void)state;
	run_threads(4096, 0);
}

static void threads_decode(void **state)
{
	(void)state;
	run_threads(64, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(attach_rejects),
		cmocka_unit_test(empty_ring),
		cmocka_unit_test(single_entry),
		cmocka_unit_test(fifo_wraps_16),
		cmocka_unit_test(fifo_wraps_32),
		cmocka_unit_test(fifo_wraps_65536),
		cmocka_unit_test(exact_batches),
		cmocka_unit_test(phase_per_lap),
		cmocka_unit_test(no_double_read),
		cmocka_unit_test(full_ring_overflow),
		cmocka_unit_test(overflow_counted_once),
		cmocka_unit_test(header_bits_owned_by_producer),
		cmocka_unit_test(misbehaving_consumer),
		cmocka_unit_test(misbehaving_consumer_random),
		cmocka_unit_test(u32_wrap),
		cmocka_unit_test(u32_wrap_full),
		cmocka_unit_test(decode_mixed),
		cmocka_unit_test(malformed_counted),
		cmocka_unit_test(threads_cap16),
		cmocka_unit_test(threads_cap4096),
		cmocka_unit_test(threads_decode),
	};
	return run_per_isa("nq_ring", tests, sizeof(tests) / sizeof(tests[0]));
}
