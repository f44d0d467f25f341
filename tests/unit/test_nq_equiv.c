// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ring drain and decode against a straightforward reference decoder
 * and drain, written out here as plain C (ref_*): one entry at a time,
 * the header checked against the phase of its lap, the body copied, the
 * SW-overflow bit cleared, the entry decoded by a switch on its type.
 * Every comparison runs the library and the reference on two
 * byte-identical copies of one ring and wants identical results: return
 * values, nrt_infer_errors_t, drop counts, entries copied out, the
 * published head, and a ring the consumer did not write.
 *
 * Inputs: every (header, error_id) pair; every entry of the benchmark's
 * mix (bench/bench_nq.cpp, same generator) at several ring positions,
 * including the end of the slot array and the u32 wrap of the indexes;
 * random entries, random fill levels, stale and bogus phase bits, random
 * `max`, and counts near saturation.
 */
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

/* ---- the reference: libnrt's decoder and drain as they were ----------- */

static const uint8_t ref_tpb_subtype[12] = { 0, 1, 0, 0, 3, 4, 5, 6, 7, 2, 8, 0 };

static void ref_bump(uint32_t *n)
{
	if (*n != UINT32_MAX)
		(*n)++;
}

static int ref_decode(nrt_infer_errors_t *e, uint8_t header, uint8_t error_id)
{
	switch (header & NEURON_NQ_HDR_TYPE_MASK) {
	case NEURON_NQ_NOTIFIC_TPB_ERROR:
		if (error_id >= 12) {
			ref_bump(&e->malformed);
			return -1;
		}
		e->infer_error_flags[ref_tpb_subtype[error_id]] = 1;
		break;
	case NEURON_NQ_NOTIFIC_ERROR:
		if (error_id < 1 || error_id > 5) {
			ref_bump(&e->malformed);
			return -1;
		}
		e->hw_error_flags[error_id] = 1;
		break;
	default:
		ref_bump(&e->malformed);
		return -1;
	}
	ref_bump(&e->entries);
	if (header & NEURON_NQ_HDR_SW_OVERFLOW)
		e->nq_overflow = 1;
	return 0;
}

struct ref_q {
	struct neuron_nq_ctrl *ctrl;
	struct neuron_nq_entry *ring;
	uint32_t entries;
	uint32_t head;
	uint64_t dropped_seen;
};

static void ref_attach(struct ref_q *q, uint8_t *map)
{
	q->ctrl = (struct neuron_nq_ctrl *)map;
	q->ring = (struct neuron_nq_entry *)(map + NEURON_NQ_RING_OFFSET);
	q->entries = q->ctrl->entries;
	q->head = q->ctrl->head;
	q->dropped_seen = q->ctrl->dropped;
}

static int ref_take(struct ref_q *q, struct neuron_nq_entry *out)
{
	const struct neuron_nq_entry *e = &q->ring[q->head & (q->entries - 1)];

	if ((e->header & NEURON_NQ_HDR_PHASE) != neuron_nq_phase(q->head, q->entries))
		return 0;
	*out = *e;
	q->head++;
	return 1;
}

static int ref_drain_entries(struct ref_q *q, struct neuron_nq_entry *out, uint32_t max)
{
	struct neuron_nq_entry e;
	uint32_t n = 0;

	while ((max == 0 || n < max) && ref_take(q, &e)) {
		if (out)
			out[n] = e;
		n++;
	}
	if (n)
		q->ctrl->head = q->head;
	return (int)n;
}

static int ref_drain(struct ref_q *q, nrt_infer_errors_t *errs, uint64_t *dropped)
{
	struct neuron_nq_entry e;
	uint32_t n = 0;
	uint64_t d, fresh;

	while (ref_take(q, &e)) {
		e.header &= (uint8_t)~NEURON_NQ_HDR_SW_OVERFLOW;
		ref_decode(errs, e.header, e.error_id);
		n++;
	}
	q->ctrl->head = q->head;
	d = q->ctrl->dropped;
	fresh = d - q->dropped_seen;
	q->dropped_seen = d;
	if (fresh)
		errs->nq_overflow = 1;
	if (dropped)
		*dropped = fresh;
	return (int)n;
}

/* ---- two copies of one ring ------------------------------------------- */

struct pair {
	uint32_t entries;
	size_t map_size;
	uint8_t *a, *b;		/* a: libnrt, b: the reference */
	nrt_nq_t *q;
	struct ref_q r;
};

static uint64_t rng = 0x853c49e6748fea9bULL;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static void pair_alloc(struct pair *p, uint32_t entries)
{
	memset(p, 0, sizeof(*p));
	p->entries = entries;
	p->map_size = NEURON_NQ_RING_OFFSET + (size_t)entries * NEURON_NQ_ENTRY_SIZE;
	p->a = aligned_alloc(64, p->map_size);	/* exact size: ASan sees any overrun */
	p->b = aligned_alloc(64, p->map_size);
	assert_non_null(p->a);
	assert_non_null(p->b);
	memset(p->a, 0, p->map_size);
}

/* Copy a (as prepared) to b and attach both consumers. */
static void pair_attach(struct pair *p)
{
	memcpy(p->b, p->a, p->map_size);
	assert_int_equal(nrt_nq_attach_memory(p->a, p->map_size, &p->q), 0);
	ref_attach(&p->r, p->b);
}

static void pair_free(struct pair *p)
{
	if (p->q)
		assert_int_equal(nrt_nq_close(p->q), 0);
	free(p->a);
	free(p->b);
	memset(p, 0, sizeof(*p));
}

static void assert_same_errs(const nrt_infer_errors_t *got, const nrt_infer_errors_t *want)
{
	if (memcmp(got, want, sizeof(*got)) != 0)
		fail_msg("errs differ: entries %u/%u malformed %u/%u overflow %u/%u", got->entries,
			 want->entries, got->malformed, want->malformed, got->nq_overflow,
			 want->nq_overflow);
}

/* Both mappings byte for byte: the ring untouched by either consumer alike, same head. */
static void assert_same_maps(const struct pair *p)
{
	assert_memory_equal(p->a, p->b, p->map_size);
}

static void drain_both(struct pair *p, nrt_infer_errors_t *start)
{
	nrt_infer_errors_t ea = *start, eb = *start;
	uint64_t da = 1, db = 2;
	int na = nrt_nq_drain(p->q, &ea, &da);
	int nb = ref_drain(&p->r, &eb, &db);

	assert_int_equal(na, nb);
	assert_true(da == db);
	assert_same_errs(&ea, &eb);
	assert_same_maps(p);
	*start = ea;
}

static void drain_entries_both(struct pair *p, uint32_t max, int with_out)
{
	size_t bytes = (size_t)p->entries * sizeof(struct neuron_nq_entry);
	struct neuron_nq_entry *oa = NULL, *ob = NULL;
	int na, nb;

	if (with_out) {
		oa = malloc(bytes);
		ob = malloc(bytes);
		assert_non_null(oa);
		assert_non_null(ob);
		memset(oa, 0x5a, bytes);
		memset(ob, 0x5a, bytes);
	}
	na = nrt_nq_drain_entries(p->q, oa, max);
	nb = ref_drain_entries(&p->r, ob, max);
	assert_int_equal(na, nb);
	if (with_out)	/* the entries, and nothing written past them */
		assert_memory_equal(oa, ob, bytes);
	assert_same_maps(p);
	free(oa);
	free(ob);
}

/* ---- inputs ----------------------------------------------------------- */

/* bench/bench_nq.cpp's make_mix(), entry for entry. */
static void bench_mix(struct neuron_nq_entry *v, uint32_t n)
{
	static const uint8_t benign[] = { NEURON_TPB_ERROR_FP_UNDERFLOW, NEURON_TPB_ERROR_FP_INF,
					  NEURON_TPB_ERROR_FP_OVERFLOW,
					  NEURON_TPB_ERROR_SEQUENCER_NONFATAL };
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct neuron_nq_entry *e = &v[i];
		uint32_t r, pick;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		r = (uint32_t)(x >> 33);
		memset(e, 0, sizeof(*e));
		pick = r % 100;
		if (pick < 55) {
			e->header = NEURON_NQ_NOTIFIC_TPB_ERROR;
			e->error_id = benign[(r >> 8) % 4];
		} else if (pick < 75) {
			e->header = NEURON_NQ_NOTIFIC_TPB_ERROR;
			e->error_id = NEURON_TPB_ERROR_FP_NAN;
		} else if (pick < 88) {
			e->header = NEURON_NQ_NOTIFIC_TPB_ERROR;
			e->error_id = (uint8_t)(NEURON_TPB_ERROR_MEMORY_ERROR + (r >> 8) % 7);
		} else if (pick < 96) {
			e->header = NEURON_NQ_NOTIFIC_ERROR;
			e->error_id = (uint8_t)(1 + (r >> 8) % 5);
		} else {
			e->header = NEURON_NQ_NOTIFIC_DMA;
			e->error_id = (uint8_t)(r >> 8);
		}
		e->metadata_lo[0] = (uint8_t)(r >> 16);
		e->metadata_lo[1] = (uint8_t)(r >> 24);
		e->metadata_hi = (uint32_t)x;
		e->timestamp_ps = x ^ (x >> 17);
	}
}

/* Mostly decodable entries, every header bit pattern now and then. */
static struct neuron_nq_entry random_entry(void)
{
	struct neuron_nq_entry e;
	uint32_t r = rnd();

	memset(&e, 0, sizeof(e));
	switch (r % 4) {
	case 0:
		e.header = NEURON_NQ_NOTIFIC_TPB_ERROR;
		e.error_id = (uint8_t)(rnd() % 14);
		break;
	case 1:
		e.header = NEURON_NQ_NOTIFIC_ERROR;
		e.error_id = (uint8_t)(rnd() % 7);
		break;
	default:
		e.header = (uint8_t)rnd();
		e.error_id = (uint8_t)rnd();
		break;
	}
	e.header |= (uint8_t)(rnd() & 0xe0);	/* the producer owns these bits */
	e.metadata_lo[0] = (uint8_t)rnd();
	e.metadata_lo[1] = (uint8_t)rnd();
	e.metadata_hi = rnd();
	e.timestamp_ps = ((uint64_t)rnd() << 32) | rnd();
	return e;
}

/*
 * A ring whose consumer is at @start, as if everything before it had been
 * consumed (each slot holds a stale entry of the previous lap), then
 * @count entries from @src produced from @start on (dropping past a full
 * ring, which the producer counts). With @bogus, the stale slots instead
 * carry random phase bits, as a ring nobody initialised would.
 */
static void prepare(struct pair *p, uint32_t start, const struct neuron_nq_entry *src,
		    uint32_t count, int bogus)
{
	struct neuron_nq_ctrl *ctrl = (struct neuron_nq_ctrl *)p->a;
	struct neuron_nq_entry *ring = (struct neuron_nq_entry *)(p->a + NEURON_NQ_RING_OFFSET);
	struct neuron_nq_producer prod;
	uint32_t mask = p->entries - 1, s, i;

	neuron_nq_producer_init(&prod, ctrl, p->entries);
	for (s = 0; s < p->entries; s++) {
		uint32_t idx = (start - 1) - ((start - 1 - s) & mask);

		ring[s] = random_entry();
		ring[s].header &= (uint8_t)~NEURON_NQ_HDR_PHASE;
		if (bogus ? (rnd() & 1) : neuron_nq_phase(idx, p->entries))
			ring[s].header |= NEURON_NQ_HDR_PHASE;
	}
	prod.tail = start;
	ctrl->head = start;
	ctrl->tail = start;
	for (i = 0; i < count; i++) {
		int r = neuron_nq_produce(&prod, ctrl, ring, &src[i]);

		assert_true(r == 0 || r == -ENOSPC);
	}
}

/* ---- tests ------------------------------------------------------------ */

/* Every (header, error_id) pair through nrt_decode_nq_entry. */
static void every_header_and_id(void **state)
{
	uint32_t h, id;

	(void)state;
	for (h = 0; h < 256; h++) {
		for (id = 0; id < 256; id++) {
			struct neuron_nq_entry e;
			nrt_infer_errors_t ea, eb;
			int ra, rb;

			memset(&e, 0, sizeof(e));
			e.header = (uint8_t)h;
			e.error_id = (uint8_t)id;
			memset(&ea, 0, sizeof(ea));
			ea.entries = (id & 1) ? UINT32_MAX : id;
			ea.malformed = (id & 2) ? UINT32_MAX : h;
			ea.infer_error_flags[id % 9] = 1;
			eb = ea;
			ra = nrt_decode_nq_entry(&ea, &e);
			rb = ref_decode(&eb, (uint8_t)h, (uint8_t)id);
			if (ra != rb || memcmp(&ea, &eb, sizeof(ea)) != 0)
				fail_msg("header 0x%02x error_id %u: %d vs %d", h, id, ra, rb);
		}
	}
}

/*
 * Every (header, error_id) pair through the drain as well: each header's
 * 256 ids as one ring-full, drained whole and copied out, at two
 * positions (one of them across the end of the slot array), so each pair
 * meets the vector paths' groups.
 */
static void every_pair_drained(void **state)
{
	static const uint32_t starts[] = { 0, 256 - 5 };
	struct neuron_nq_entry src[256];
	uint32_t h, id, k;

	(void)state;
	for (h = 0; h < 256; h++) {
		for (id = 0; id < 256; id++) {
			memset(&src[id], 0, sizeof(src[id]));
			src[id].header = (uint8_t)h;
			src[id].error_id = (uint8_t)id;
			src[id].metadata_hi = h << 8 | id;
		}
		for (k = 0; k < sizeof(starts) / sizeof(starts[0]); k++) {
			struct pair p;
			nrt_infer_errors_t e;

			pair_alloc(&p, 256);
			prepare(&p, starts[k], src, 256, 0);
			pair_attach(&p);
			memset(&e, 0, sizeof(e));
			drain_both(&p, &e);
			pair_free(&p);

			pair_alloc(&p, 256);
			prepare(&p, starts[k], src, 256, 0);
			pair_attach(&p);
			drain_entries_both(&p, 0, 1);
			pair_free(&p);
		}
	}
}

/*
 * A ring whose entries are not 16-byte aligned (a mapping attached at an
 * odd address) takes the scalar path whatever is asked, and drains as the
 * reference does.
 */
static void unaligned_ring_scalar(void **state)
{
	const uint32_t entries = 64;
	size_t map_size = NEURON_NQ_RING_OFFSET + (size_t)entries * NEURON_NQ_ENTRY_SIZE;
	uint8_t *mem = aligned_alloc(64, map_size + 64);
	struct neuron_nq_entry src[48], out[64];
	struct neuron_nq_producer prod;
	nrt_infer_errors_t e, want;
	nrt_nq_t *q = NULL;
	uint8_t *map;
	uint32_t i;

	(void)state;
	assert_non_null(mem);
	map = mem + 8;
	memset(map, 0, map_size);
	neuron_nq_producer_init(&prod, (struct neuron_nq_ctrl *)map, entries);
	memset(&want, 0, sizeof(want));
	for (i = 0; i < 48; i++) {
		src[i] = random_entry();
		assert_int_equal(neuron_nq_produce(&prod, (struct neuron_nq_ctrl *)map,
						   (struct neuron_nq_entry *)(map + NEURON_NQ_RING_OFFSET),
						   &src[i]),
				 0);
		ref_decode(&want, (uint8_t)(src[i].header & ~NEURON_NQ_HDR_SW_OVERFLOW), src[i].error_id);
	}
	assert_int_equal(nrt_nq_attach_memory(map, map_size, &q), 0);
	assert_string_equal(nrt_nq_path(q), "scalar");
	memset(&e, 0, sizeof(e));
	assert_int_equal(nrt_nq_drain(q, &e, NULL), 48);
	assert_same_errs(&e, &want);
	assert_int_equal(nrt_nq_close(q), 0);
	/* and copied out, from the start again */
	((struct neuron_nq_ctrl *)map)->head = 0;
	assert_int_equal(nrt_nq_attach_memory(map, map_size, &q), 0);
	assert_int_equal(nrt_nq_drain_entries(q, out, 0), 48);
	assert_memory_equal(out, map + NEURON_NQ_RING_OFFSET, 48 * sizeof(out[0]));
	assert_int_equal(nrt_nq_close(q), 0);
	free(mem);
}

/* Every entry of the benchmark's mix, one ring-full, at several positions. */
static void bench_mix_drain(void **state)
{
	static const uint32_t starts[] = { 0, 1, 65536 - 7, 65536 * 3 + 1000, 0xffffffffu - 300,
					   0x80000000u };
	const uint32_t cap = 65536;
	struct neuron_nq_entry *mix = malloc(cap * sizeof(*mix));
	size_t k;

	(void)state;
	assert_non_null(mix);
	bench_mix(mix, cap);
	for (k = 0; k < sizeof(starts) / sizeof(starts[0]); k++) {
		struct pair p;
		nrt_infer_errors_t errs;

		pair_alloc(&p, cap);
		prepare(&p, starts[k], mix, cap, 0);
		pair_attach(&p);
		memset(&errs, 0, sizeof(errs));
		drain_both(&p, &errs);
		assert_int_equal(errs.entries + errs.malformed, cap);
		drain_both(&p, &errs);	/* nothing more */
		pair_free(&p);

		/* the raw drain over the same mix */
		pair_alloc(&p, cap);
		prepare(&p, starts[k], mix, cap, 0);
		pair_attach(&p);
		drain_entries_both(&p, 0, 1);
		pair_free(&p);
	}
	/* and the whole mix decoded entry by entry, as the bench checks it */
	{
		nrt_infer_errors_t ea, eb;
		uint32_t i;

		memset(&ea, 0, sizeof(ea));
		memset(&eb, 0, sizeof(eb));
		for (i = 0; i < cap; i++) {
			assert_int_equal(nrt_decode_nq_entry(&ea, &mix[i]),
					 ref_decode(&eb, mix[i].header, mix[i].error_id));
		}
		assert_same_errs(&ea, &eb);
	}
	free(mix);
}

/*
 * Random rings: size, start, fill (overfilled rings drop, and the first
 * entry after drops carries SW overflow), stale or bogus phase bits after
 * the last entry written, random prior errs, drains of every kind.
 */
static void random_rings(void **state)
{
	struct neuron_nq_entry *src = malloc(4096 * 2 * sizeof(*src));
	uint32_t round;

	(void)state;
	assert_non_null(src);
	for (round = 0; round < 3000; round++) {
		uint32_t cap = 16u << (rnd() % 9);	/* 16 .. 4096 */
		uint32_t start = (round & 1) ? rnd() ^ (rnd() << 16) : rnd() % (3 * cap);
		uint32_t count = rnd() % (cap + cap / 2 + 2);
		int bogus = (rnd() % 4) == 0;
		nrt_infer_errors_t errs;
		struct pair p;
		uint32_t i;

		if (round % 8 == 7)	/* near the u32 wrap of the indexes */
			start = 0u - (rnd() % (2 * cap));
		for (i = 0; i < count; i++)
			src[i] = random_entry();
		pair_alloc(&p, cap);
		prepare(&p, start, src, count, bogus);
		pair_attach(&p);
		memset(&errs, 0, sizeof(errs));
		if (rnd() & 1) {
			errs.entries = (rnd() & 1) ? UINT32_MAX - (rnd() % 300) : rnd();
			errs.malformed = (rnd() & 1) ? UINT32_MAX - (rnd() % 300) : rnd();
			errs.infer_error_flags[rnd() % 9] = 1;
			errs.hw_error_flags[1 + rnd() % 5] = 1;
		}
		switch (rnd() % 3) {
		case 0:
			drain_both(&p, &errs);
			break;
		case 1:
			/* partial raw drains, then decode the rest */
			drain_entries_both(&p, 1 + rnd() % (cap + 8), 1);
			drain_entries_both(&p, rnd() % 300, rnd() & 1);
			drain_both(&p, &errs);
			break;
		default:
			drain_entries_both(&p, 0, rnd() & 1);
			drain_both(&p, &errs);
			break;
		}
		pair_free(&p);
	}
	free(src);
}

/*
 * A drain that stops inside a run: the producer's next slot holds an
 * entry of the previous lap, at each offset within an 8-entry block and
 * around the publication batch (240 entries) and the end of the slot array.
 */
static void stops_at_every_offset(void **state)
{
	struct neuron_nq_entry src[300];
	uint32_t count, i;

	(void)state;
	for (i = 0; i < 300; i++)
		src[i] = random_entry();
	for (count = 0; count <= 260; count++) {
		uint32_t start;

		for (start = 0; start < 3; start++) {
			uint32_t s0 = start == 0 ? 0 : start == 1 ? 256 - (count % 17) : 5;
			nrt_infer_errors_t errs;
			struct pair p;

			pair_alloc(&p, 256);
			prepare(&p, s0, src, count, 0);
			pair_attach(&p);
			memset(&errs, 0, sizeof(errs));
			if (count & 1)
				drain_both(&p, &errs);
			else
				drain_entries_both(&p, 0, 1);
			pair_free(&p);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_header_and_id),
		cmocka_unit_test(every_pair_drained),
		cmocka_unit_test(unaligned_ring_scalar),
		cmocka_unit_test(bench_mix_drain),
		cmocka_unit_test(random_rings),
		cmocka_unit_test(stops_at_every_offset),
	};

	return run_per_isa("nq_equiv", tests, sizeof(tests) / sizeof(tests[0]));
}
