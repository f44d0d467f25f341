// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Arbitrary bytes as notification-ring entries and as a whole ring.
 *
 * 1. Every 16-byte chunk is decoded with nrt_decode_nq_entry; acceptance
 *    is checked against the rule written out here, and the accumulated
 *    result must collapse to an assigned status and a bounded counter list.
 * 2. The input becomes a ring mapping: its first 64 bytes are the control
 *    area (entries, head, tail, dropped: anything), the rest the entries,
 *    in a buffer of exactly the mapping's size (ASan catches any access
 *    past it). If nrt_nq_attach_memory accepts it, it is drained, then the
 *    common/ producer writes into it from a fuzzed tail while the consumer
 *    drains: no drain may return more than the capacity, nothing may be
 *    touched outside the mapping. Before that, every path of the drain
 *    (scalar, AVX2, AVX-512, and the scalar one a copy 8 bytes off
 *    alignment takes) drains a copy of the mapping and must give what a
 *    one-entry-at-a-time reference gives.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <neuron/neuron_nq.h>
#include <nrt/nrt_error_model.h>
#include <nrt/nrt_nq.h>

#include "neuron_nq_ring.h"

#define CHECK(c)                        \
	do {                            \
		if (!(c))               \
			__builtin_trap(); \
	} while (0)

#define CTRL_BYTES	64

static int entry_valid(const struct neuron_nq_entry *e)
{
	unsigned type = e->header & 0x1f;

	if (type == 0x1f)
		return e->error_id <= 11;	/* 0..10 TPB types, 11 the table's NONE entry */
	if (type == 0x03)
		return e->error_id >= 1 && e->error_id <= 5;
	return 0;
}

static void check_errs(const nrt_infer_errors_t *e)
{
	uint32_t ids[NRT_BRIDGE_MAX_EXEC_COUNTERS];
	static const nrt_decode_config_t armed = { true };
	NRT_STATUS s;
	size_t i;

	for (i = 0; i < NRT_INFER_ERROR_SUBTYPE_MAX; i++)
		CHECK(e->infer_error_flags[i] <= 1);
	for (i = 0; i < NRT_HW_FAULT_SLOTS; i++)
		CHECK(e->hw_error_flags[i] <= 1);
	CHECK(e->hw_error_flags[0] == 0);
	CHECK(e->nq_overflow <= 1);
	s = nrt_infer_errors_status(e, NULL);
	CHECK(nrt_status_is_valid(s));
	CHECK(nrt_status_is_valid(nrt_infer_errors_status(e, &armed)));
	CHECK(nrt_bridge_counters_for_execution(s, e, ids, NRT_BRIDGE_MAX_EXEC_COUNTERS) <=
	      NRT_BRIDGE_MAX_EXEC_COUNTERS);
}

static void decode_chunks(const uint8_t *data, size_t size)
{
	nrt_infer_errors_t errs;
	size_t n = size / NEURON_NQ_ENTRY_SIZE, i, valid = 0;

	memset(&errs, 0, sizeof(errs));
	for (i = 0; i < n; i++) {
		struct neuron_nq_entry e;
		int r;

		memcpy(&e, data + i * NEURON_NQ_ENTRY_SIZE, sizeof(e));
		r = nrt_decode_nq_entry(&errs, &e);
		CHECK(r == (entry_valid(&e) ? 0 : -1));
		valid += r == 0;
		/* SW overflow only ever comes from an accepted entry */
		if (r == 0 && (e.header & NEURON_NQ_HDR_SW_OVERFLOW))
			CHECK(errs.nq_overflow == 1);
	}
	CHECK(errs.entries == valid);
	CHECK(errs.malformed == n - valid);
	check_errs(&errs);
}

/*
 * The drain of a whole mapping against a reference written out here: from
 * the control area's head, one entry at a time while its phase is the
 * lap's, each decoded by nrt_decode_nq_entry with the SW-overflow bit
 * cleared (the drain takes drops from the control area), at most one lap.
 * Run once per path of the drain (LIBNRT_NQ_ISA), each on its own copy.
 */
/* The path a queue attached with LIBNRT_NQ_ISA=@isa takes on this CPU. */
static const char *expected_path(const char *isa)
{
#if defined(__x86_64__)
	int avx2 = __builtin_cpu_supports("avx2");
	int avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");

	if (!strcmp(isa, "scalar"))
		return "scalar";
	if (!strcmp(isa, "avx2") && avx2)
		return "avx2";
	return avx512 ? "avx512" : avx2 ? "avx2" : "scalar";
#else
	(void)isa;
	return "scalar";
#endif
}

static void ring_against_reference(const uint8_t *map, size_t map_size)
{
	/* the last: the widest path asked for on a copy 8 bytes off alignment */
	static const char *const isas[] = { "scalar", "avx2", "avx512", "avx512" };
	const struct neuron_nq_ctrl *ctrl = (const struct neuron_nq_ctrl *)map;
	const struct neuron_nq_entry *slots = (const struct neuron_nq_entry *)(map + NEURON_NQ_RING_OFFSET);
	nrt_infer_errors_t want, got;
	uint32_t cap = ctrl->entries, head = ctrl->head, n = 0;
	size_t i;

	memset(&want, 0, sizeof(want));
	while (n < cap) {
		uint32_t idx = head + n;
		struct neuron_nq_entry e = slots[idx & (cap - 1)];

		if ((e.header & NEURON_NQ_HDR_PHASE) != ((idx & cap) ? 0 : NEURON_NQ_HDR_PHASE))
			break;
		e.header &= (uint8_t)~NEURON_NQ_HDR_SW_OVERFLOW;
		nrt_decode_nq_entry(&want, &e);
		n++;
	}
	for (i = 0; i < sizeof(isas) / sizeof(isas[0]); i++) {
		const int odd = i == sizeof(isas) / sizeof(isas[0]) - 1;
		uint8_t *mem = malloc(map_size + 8), *copy;
		nrt_nq_t *q = NULL;
		uint64_t dropped = 1;

		if (!mem)
			return;
		copy = mem + (odd ? 8 : 0);
		memcpy(copy, map, map_size);
		setenv("LIBNRT_NQ_ISA", isas[i], 1);
		CHECK(nrt_nq_attach_memory(copy, map_size, &q) == 0);
		CHECK(!strcmp(nrt_nq_path(q), odd ? "scalar" : expected_path(isas[i])));
		memset(&got, 0, sizeof(got));
		CHECK(nrt_nq_drain(q, &got, &dropped) == (int)n);
		CHECK(dropped == 0);
		CHECK(memcmp(&got, &want, sizeof(got)) == 0);
		CHECK(((struct neuron_nq_ctrl *)copy)->head == head + n);
		CHECK(nrt_nq_close(q) == 0);
		/* and the copy-out path: the same count, the entries as they are */
		memcpy(copy, map, map_size);
		CHECK(nrt_nq_attach_memory(copy, map_size, &q) == 0);
		{
			struct neuron_nq_entry *out = malloc((size_t)cap * sizeof(*out));
			uint32_t k;

			if (out) {
				CHECK(nrt_nq_drain_entries(q, out, 0) == (int)n);
				for (k = 0; k < n; k++)
					CHECK(memcmp(&out[k], &slots[(head + k) & (cap - 1)], sizeof(*out)) == 0);
				free(out);
			}
		}
		CHECK(nrt_nq_close(q) == 0);
		free(mem);
	}
	unsetenv("LIBNRT_NQ_ISA");
}

static void ring(const uint8_t *data, size_t size)
{
	size_t map_size, i;
	uint8_t *map;
	nrt_nq_t *q = NULL;
	nrt_infer_errors_t errs;
	struct neuron_nq_producer p;
	struct neuron_nq_entry *out;
	uint64_t dropped;
	int cap, n, r;

	if (size < CTRL_BYTES)
		return;
	map_size = NEURON_NQ_RING_OFFSET + (size - CTRL_BYTES);
	map = malloc(map_size);
	if (!map)
		return;
	memset(map, 0, NEURON_NQ_RING_OFFSET);
	memcpy(map, data, CTRL_BYTES);
	memcpy(map + NEURON_NQ_RING_OFFSET, data + CTRL_BYTES, size - CTRL_BYTES);

	r = nrt_nq_attach_memory(map, map_size, &q);
	if (r != 0) {
		CHECK(r == -EINVAL && q == NULL);
		free(map);
		return;
	}
	cap = nrt_nq_capacity(q);
	CHECK(cap > 0 && (cap & (cap - 1)) == 0);
	CHECK(NEURON_NQ_RING_OFFSET + (size_t)cap * NEURON_NQ_ENTRY_SIZE <= map_size);
	ring_against_reference(map, map_size);
	out = malloc((size_t)cap * sizeof(*out));
	if (!out) {
		nrt_nq_close(q);
		free(map);
		return;
	}

	/* whatever the ring holds: at most one lap per drain */
	memset(&errs, 0, sizeof(errs));
	n = nrt_nq_drain(q, &errs, &dropped);
	CHECK(n >= 0 && n <= cap);
	CHECK(errs.entries + errs.malformed == (uint32_t)n);
	check_errs(&errs);
	n = nrt_nq_drain_entries(q, out, (uint32_t)cap);
	CHECK(n >= 0 && n <= cap);

	/* the producer from a fuzzed tail, against the consumer's head */
	memset(&p, 0, sizeof(p));
	p.entries = (uint32_t)cap;
	memcpy(&p.tail, data + 8, sizeof(p.tail));
	for (i = 0; i < 3 * (size_t)cap; i++) {
		struct neuron_nq_entry e;
		size_t off = (i * NEURON_NQ_ENTRY_SIZE) % (size - NEURON_NQ_ENTRY_SIZE + 1);

		memcpy(&e, data + off, sizeof(e));
		r = neuron_nq_produce(&p, (struct neuron_nq_ctrl *)map,
				      (struct neuron_nq_entry *)(map + NEURON_NQ_RING_OFFSET), &e);
		CHECK(r == 0 || r == -ENOSPC);
		if (data[i % size] & 1) {
			n = nrt_nq_drain_entries(q, out, (uint32_t)cap);
			CHECK(n >= 0 && n <= cap);
		}
		if (data[i % size] & 2) {
			memset(&errs, 0, sizeof(errs));
			n = nrt_nq_drain(q, &errs, NULL);
			CHECK(n >= 0 && n <= cap);
			check_errs(&errs);
		}
	}
	CHECK(p.written + p.dropped == 3 * (uint64_t)cap);
	CHECK(nrt_nq_close(q) == 0);
	free(out);
	free(map);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	decode_chunks(data, size);
	ring(data, size);
	return 0;
}
