// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * NDS counters over caller memory (nds_open_memory): every bounds rule, the
 * read-only instance, the exact byte offset of every counter (computed here
 * from the layout, not with the uapi helpers), concurrent updates, and the
 * kmetric_* bridge moving exactly the counters the pure maps list.
 */
#define _POSIX_C_SOURCE 200809L	/* pthread_barrier_t under -std=c11 */

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <cmocka.h>

#include <neuron/neuron_nds.h>
#include <neuron/neuron_nq.h>
#include <nrt/kmetric.h>
#include <nrt/nds/neuron_ds.h>
#include <nrt/nrt_error_model.h>

#define SLAB	262144u

/* ---- the layout, written out independently ---------------------------- */

static size_t nd_off(uint32_t i)
{
	return 8 + 8 * (size_t)i;
}

static size_t nc_off(uint32_t n, uint32_t j)
{
	if (n < 4 && j < 31)
		return 256 + 8 * (31 * (size_t)n + j);
	if (n < 4)
		return 55936 + 512 * (size_t)n + 8 * ((size_t)j - 31);
	return 57984 + 768 * ((size_t)n - 4) + 8 * (size_t)j;
}

/* Little-endian u64 at @off, byte by byte. */
static uint64_t le_at(const uint8_t *p, size_t off)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[off + (size_t)i];
	return v;
}

static void le_add(uint8_t *p, size_t off, uint64_t d)
{
	uint64_t v = le_at(p, off) + d;
	int i;

	for (i = 0; i < 8; i++)
		p[off + (size_t)i] = (uint8_t)(v >> (8 * i));
}

static uint8_t *slab_new(void)
{
	uint8_t *p = aligned_alloc(64, SLAB);

	assert_non_null(p);
	memset(p, 0, SLAB);
	return p;
}

/* Compare the whole slab with the expected image, naming the first difference. */
static void assert_slab(const uint8_t *got, const uint8_t *want, const char *what)
{
	size_t i;

	if (memcmp(got, want, SLAB) == 0)
		return;
	for (i = 0; i < SLAB && got[i] == want[i]; i++)
		;
	fail_msg("%s: slab differs at byte %zu (u64 at %zu: got 0x%llx, want 0x%llx)", what, i,
		 i & ~(size_t)7, (unsigned long long)le_at(got, i & ~(size_t)7),
		 (unsigned long long)le_at(want, i & ~(size_t)7));
}

static nds_instance_t *open_mem(uint8_t *slab, uint32_t nc_count, bool writable)
{
	nds_instance_t *inst = NULL;

	assert_int_equal(nds_open_memory(slab, nc_count, writable, &inst), 0);
	assert_non_null(inst);
	return inst;
}

/* ---- tests -------------------------------------------------------------- */

static void layout_constants(void **state)
{
	(void)state;
	/* the formulas above agree with the section boundaries of the header */
	assert_int_equal(nd_off(30) + 8, 256);
	assert_int_equal(nc_off(3, 30) + 8, 1248);
	assert_int_equal(nc_off(3, 94) + 8, 57984);
	assert_int_equal(nc_off(15, 94) + 16, 67200);	/* + the pad slot */
	assert_int_equal(NEURON_NDS_SIZE, SLAB);
}

static void open_memory_args(void **state)
{
	uint8_t *slab = slab_new();
	uint8_t *zero = slab_new();
	nds_instance_t *inst = (nds_instance_t *)slab;

	(void)state;
	assert_int_equal(nds_open_memory(slab, 4, true, NULL), -EINVAL);
	assert_int_equal(nds_open_memory(NULL, 4, true, &inst), -EINVAL);
	assert_null(inst);
	inst = (nds_instance_t *)slab;
	assert_int_equal(nds_open_memory(slab + 4, 4, true, &inst), -EINVAL);	/* misaligned */
	assert_null(inst);
	assert_int_equal(nds_open_memory(slab + 1, 4, true, &inst), -EINVAL);
	assert_int_equal(nds_open_memory(slab, 0, true, &inst), -EINVAL);
	assert_int_equal(nds_open_memory(slab, 17, true, &inst), -EINVAL);
	assert_int_equal(nds_open_memory(slab, UINT32_MAX, true, &inst), -EINVAL);
	assert_null(inst);

	inst = open_mem(slab + 8, 1, true);	/* 8-byte aligned is enough */
	assert_int_equal(nds_close(inst), 0);
	inst = open_mem(slab, 16, true);
	assert_true(nds_is_writable(inst));
	assert_ptr_equal(nds_raw_slab(inst), slab);
	assert_int_equal(nds_slot(inst), -1);
	assert_int_equal(nds_close(inst), 0);
	inst = open_mem(slab, 1, false);
	assert_false(nds_is_writable(inst));
	assert_int_equal(nds_close(inst), 0);
	/* opening and closing wrote nothing (no header on caller memory) */
	assert_slab(slab, zero, "open/close");

	assert_int_equal(nds_close(NULL), -EINVAL);
	assert_false(nds_is_writable(NULL));
	assert_null(nds_raw_slab(NULL));
	assert_int_equal(nds_slot(NULL), -EINVAL);
	free(slab);
	free(zero);
}

/* Every NC counter of every NeuronCore lands at its own offset. */
static void nc_offsets_exact(void **state)
{
	uint8_t *slab = slab_new();
	uint8_t *want = slab_new();
	nds_instance_t *inst = open_mem(slab, 16, true);
	uint32_t n, j;

	(void)state;
	for (n = 0; n < 16; n++)
		for (j = 0; j < 95; j++) {
			uint64_t v = 0x0101010101010101ULL * (n + 1) + ((uint64_t)j << 40) + j;

			assert_int_equal(nds_increment_nc_counter(inst, (int)n, j, v), 0);
			le_add(want, nc_off(n, j), v);
		}
	assert_slab(slab, want, "one increment per NC counter");
	for (n = 0; n < 16; n++)
		for (j = 0; j < 95; j++) {
			uint64_t v = 0;

			assert_int_equal(nds_get_nc_counter(inst, (int)n, j, &v), 0);
			assert_true(v == le_at(want, nc_off(n, j)));
		}

	/* one counter at a time, through every write call */
	for (n = 0; n < 16; n += 5)
		for (j = 0; j < 95; j += 7) {
			uint64_t v = 1000 + j;

			memset(slab, 0, SLAB);
			memset(want, 0, SLAB);
			assert_int_equal(nds_set_nc_counter(inst, (int)n, j, &v), 0);
			assert_int_equal(nds_increment_nc_counter(inst, (int)n, j, 50), 0);
			assert_int_equal(nds_decrement_nc_counter(inst, (int)n, j, 7), 0);
			le_add(want, nc_off(n, j), 1043 + j);
			assert_slab(slab, want, "set/inc/dec of one NC counter");
		}
	assert_int_equal(nds_close(inst), 0);
	free(slab);
	free(want);
}

static void nd_offsets_exact(void **state)
{
	uint8_t *slab = slab_new();
	uint8_t *want = slab_new();
	nds_instance_t *inst = open_mem(slab, 1, true);
	uint32_t i;

	(void)state;
	for (i = 0; i < 31; i++) {
		uint64_t v = 0xa5a5000000000000ULL | (i + 1);

		assert_int_equal(nds_increment_nd_counter(inst, i, v), 0);
		le_add(want, nd_off(i), v);
	}
	assert_slab(slab, want, "one increment per ND counter");
	for (i = 0; i < 31; i++) {
		uint64_t v = 0;

		assert_int_equal(nds_get_nd_counter(inst, i, &v), 0);
		assert_true(v == (0xa5a5000000000000ULL | (i + 1)));
	}

	memset(slab, 0, SLAB);
	memset(want, 0, SLAB);
	assert_int_equal(nds_or_nd_counter(inst, 3, 0), 0);
	assert_int_equal(nds_or_nd_counter(inst, 3, 5), 0);
	assert_int_equal(nds_or_nd_counter(inst, 3, 63), 0);
	assert_int_equal(nds_or_nd_counter(inst, 3, 5), 0);	/* idempotent */
	le_add(want, nd_off(3), 0x8000000000000021ULL);
	{
		uint64_t v = 77;

		assert_int_equal(nds_set_nd_counter(inst, 30, &v), 0);
		assert_int_equal(nds_decrement_nd_counter(inst, 30, 7), 0);
		le_add(want, nd_off(30), 70);
	}
	assert_slab(slab, want, "or/set/dec ND");
	assert_int_equal(nds_close(inst), 0);
	free(slab);
	free(want);
}

static void arithmetic(void **state)
{
	uint8_t *slab = slab_new();
	nds_instance_t *inst = open_mem(slab, 2, true);
	uint64_t v;

	(void)state;
	assert_int_equal(nds_increment_nc_counter(inst, 1, 40, 5), 0);
	assert_int_equal(nds_increment_nc_counter(inst, 1, 40, 7), 0);
	assert_int_equal(nds_get_nc_counter(inst, 1, 40, &v), 0);
	assert_true(v == 12);
	assert_int_equal(nds_decrement_nc_counter(inst, 1, 40, 2), 0);
	assert_int_equal(nds_get_nc_counter(inst, 1, 40, &v), 0);
	assert_true(v == 10);
	v = 0;
	assert_int_equal(nds_set_nc_counter(inst, 1, 40, &v), 0);
	assert_int_equal(nds_decrement_nc_counter(inst, 1, 40, 1), 0);	/* modulo 2^64 */
	assert_int_equal(nds_get_nc_counter(inst, 1, 40, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(nds_increment_nc_counter(inst, 1, 40, 2), 0);
	assert_int_equal(nds_get_nc_counter(inst, 1, 40, &v), 0);
	assert_true(v == 1);
	assert_int_equal(nds_increment_nd_counter(inst, 0, UINT64_MAX), 0);
	assert_int_equal(nds_increment_nd_counter(inst, 0, 3), 0);
	assert_int_equal(nds_get_nd_counter(inst, 0, &v), 0);
	assert_true(v == 2);
	assert_int_equal(nds_close(inst), 0);
	free(slab);
}

/* Every out-of-range argument: -EINVAL, nothing written, no output written. */
static void bounds(void **state)
{
	static const int bad_nc[] = { -1, 3, 4, 15, 16, 17, INT_MAX, INT_MIN };
	static const uint32_t bad_id[] = { 95, 96, 127, 1000, UINT32_MAX };
	static const uint32_t bad_nd[] = { 31, 32, 95, UINT32_MAX };
	static const uint64_t bad_bit[] = { 64, 65, 128, UINT64_MAX };
	uint8_t *slab = slab_new();
	uint8_t *zero = slab_new();
	nds_instance_t *inst = open_mem(slab, 3, true);
	uint64_t v;
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(bad_nc) / sizeof(bad_nc[0]); i++) {
		int nc = bad_nc[i];

		v = 5;
		assert_int_equal(nds_increment_nc_counter(inst, nc, 1, 1), -EINVAL);
		assert_int_equal(nds_decrement_nc_counter(inst, nc, 1, 1), -EINVAL);
		assert_int_equal(nds_set_nc_counter(inst, nc, 1, &v), -EINVAL);
		v = 0x5a5a;
		assert_int_equal(nds_get_nc_counter(inst, nc, 1, &v), -EINVAL);
		assert_true(v == 0x5a5a);
	}
	for (k = 0; k < sizeof(bad_id) / sizeof(bad_id[0]); k++)
		for (i = 0; i < 3; i++) {
			v = 5;
			assert_int_equal(nds_increment_nc_counter(inst, (int)i, bad_id[k], 1), -EINVAL);
			assert_int_equal(nds_decrement_nc_counter(inst, (int)i, bad_id[k], 1), -EINVAL);
			assert_int_equal(nds_set_nc_counter(inst, (int)i, bad_id[k], &v), -EINVAL);
			v = 0x5a5a;
			assert_int_equal(nds_get_nc_counter(inst, (int)i, bad_id[k], &v), -EINVAL);
			assert_true(v == 0x5a5a);
		}
	for (k = 0; k < sizeof(bad_nd) / sizeof(bad_nd[0]); k++) {
		v = 5;
		assert_int_equal(nds_increment_nd_counter(inst, bad_nd[k], 1), -EINVAL);
		assert_int_equal(nds_decrement_nd_counter(inst, bad_nd[k], 1), -EINVAL);
		assert_int_equal(nds_or_nd_counter(inst, bad_nd[k], 0), -EINVAL);
		assert_int_equal(nds_set_nd_counter(inst, bad_nd[k], &v), -EINVAL);
		v = 0x5a5a;
		assert_int_equal(nds_get_nd_counter(inst, bad_nd[k], &v), -EINVAL);
		assert_true(v == 0x5a5a);
	}
	for (k = 0; k < sizeof(bad_bit) / sizeof(bad_bit[0]); k++)
		assert_int_equal(nds_or_nd_counter(inst, 0, bad_bit[k]), -EINVAL);
	/* NULL instance / output */
	v = 1;
	assert_int_equal(nds_increment_nc_counter(NULL, 0, 0, 1), -EINVAL);
	assert_int_equal(nds_decrement_nc_counter(NULL, 0, 0, 1), -EINVAL);
	assert_int_equal(nds_set_nc_counter(NULL, 0, 0, &v), -EINVAL);
	assert_int_equal(nds_get_nc_counter(NULL, 0, 0, &v), -EINVAL);
	assert_int_equal(nds_increment_nd_counter(NULL, 0, 1), -EINVAL);
	assert_int_equal(nds_decrement_nd_counter(NULL, 0, 1), -EINVAL);
	assert_int_equal(nds_or_nd_counter(NULL, 0, 1), -EINVAL);
	assert_int_equal(nds_set_nd_counter(NULL, 0, &v), -EINVAL);
	assert_int_equal(nds_get_nd_counter(NULL, 0, &v), -EINVAL);
	assert_int_equal(nds_get_nc_counter(inst, 0, 0, NULL), -EINVAL);
	assert_int_equal(nds_set_nc_counter(inst, 0, 0, NULL), -EINVAL);
	assert_int_equal(nds_get_nd_counter(inst, 0, NULL), -EINVAL);
	assert_int_equal(nds_set_nd_counter(inst, 0, NULL), -EINVAL);
	assert_slab(slab, zero, "rejected calls");

	/* the edges that are in range */
	assert_int_equal(nds_increment_nc_counter(inst, 2, 94, 1), 0);
	assert_int_equal(nds_increment_nc_counter(inst, 0, 0, 1), 0);
	assert_int_equal(nds_increment_nd_counter(inst, 30, 1), 0);
	assert_int_equal(nds_or_nd_counter(inst, 0, 63), 0);
	le_add(zero, nc_off(2, 94), 1);
	le_add(zero, nc_off(0, 0), 1);
	le_add(zero, nd_off(30), 1);
	le_add(zero, nd_off(0), 1ULL << 63);
	assert_slab(slab, zero, "edges");
	assert_int_equal(nds_close(inst), 0);
	free(slab);
	free(zero);
}

/* A read-only view refuses every write with -EPERM, writes nothing, reads fine. */
static void read_only(void **state)
{
	uint8_t *slab = slab_new();
	uint8_t *snap = slab_new();
	nds_instance_t *rw = open_mem(slab, 16, true);
	nds_instance_t *ro = open_mem(slab, 16, false);
	uint64_t v;

	(void)state;
	assert_int_equal(nds_increment_nc_counter(rw, 5, 33, 99), 0);
	assert_int_equal(nds_increment_nc_counter(rw, 0, 1, 7), 0);
	assert_int_equal(nds_increment_nd_counter(rw, 2, 3), 0);
	memcpy(snap, slab, SLAB);

	v = 1234;
	assert_int_equal(nds_increment_nc_counter(ro, 5, 33, 1), -EPERM);
	assert_int_equal(nds_decrement_nc_counter(ro, 5, 33, 1), -EPERM);
	assert_int_equal(nds_set_nc_counter(ro, 5, 33, &v), -EPERM);
	assert_int_equal(nds_increment_nc_counter(ro, 0, 1, 1), -EPERM);
	assert_int_equal(nds_increment_nd_counter(ro, 2, 1), -EPERM);
	assert_int_equal(nds_decrement_nd_counter(ro, 2, 1), -EPERM);
	assert_int_equal(nds_or_nd_counter(ro, 2, 9), -EPERM);
	assert_int_equal(nds_set_nd_counter(ro, 2, &v), -EPERM);
	/* out-of-range arguments are still -EINVAL on a read-only view */
	assert_int_equal(nds_increment_nc_counter(ro, 16, 0, 1), -EINVAL);
	assert_int_equal(nds_increment_nc_counter(ro, 0, 95, 1), -EINVAL);
	assert_int_equal(nds_decrement_nc_counter(ro, -1, 0, 1), -EINVAL);
	assert_int_equal(nds_increment_nc_counter(NULL, 0, 0, 1), -EINVAL);
	assert_int_equal(nds_increment_nd_counter(ro, 31, 1), -EINVAL);
	assert_int_equal(nds_or_nd_counter(ro, 0, 64), -EINVAL);
	assert_slab(slab, snap, "read-only writes");

	assert_int_equal(nds_get_nc_counter(ro, 5, 33, &v), 0);
	assert_true(v == 99);
	assert_int_equal(nds_get_nc_counter(ro, 0, 1, &v), 0);
	assert_true(v == 7);
	assert_int_equal(nds_get_nd_counter(ro, 2, &v), 0);
	assert_true(v == 3);

	/* the kmetric writers refuse too */
	{
		nrt_infer_errors_t e;
		nrt_exec_times_t t = { 1000, 2000, 3000, 4000 };

		memset(&e, 0, sizeof(e));
		e.infer_error_flags[NRT_INFER_ERROR_SUBTYPE_SW_EVENT_ERROR] = 1;
		assert_int_equal(kmetric_record_execution(ro, 0, NRT_SUCCESS, NULL, NULL), -EPERM);
		assert_int_equal(kmetric_record_execution(ro, 3, NRT_EXEC_HW_ERR_NC_UE, &e, &t),
				 -EPERM);
		assert_int_equal(kmetric_update_nds_generic_status(ro, 0, NRT_FAILURE), -EPERM);
		assert_int_equal(kmetric_update_nds_error_stats(ro, 0, &e, NULL), -EPERM);
		assert_int_equal(kmetric_update_nds_error_stats(ro, 0, NULL, &t), -EPERM);
		assert_int_equal(kmetric_update_nds_error_stats(ro, 0, &e, &t), -EPERM);
	}
	assert_slab(slab, snap, "read-only kmetric");
	assert_int_equal(nds_close(ro), 0);
	assert_int_equal(nds_close(rw), 0);
	free(slab);
	free(snap);
}

/* ---- threads ------------------------------------------------------------- */

#define THREADS		8
#define PER_THREAD	100000u

static pthread_barrier_t start_line;

struct worker {
	nds_instance_t *inst;
	int id;
	unsigned failures;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint32_t i;

	pthread_barrier_wait(&start_line);	/* all threads race from here */
	for (i = 0; i < PER_THREAD; i++) {
		/* shared counters, one per region, and one private to the thread */
		w->failures += nds_increment_nc_counter(w->inst, 0, NDS_NC_COUNTER_INFERENCE_COUNT, 1) != 0;
		w->failures += nds_increment_nc_counter(w->inst, 2, 40, 3) != 0;
		w->failures += nds_increment_nc_counter(w->inst, 9, 94, 1) != 0;
		w->failures += nds_decrement_nc_counter(w->inst, 15, 0, 1) != 0;
		w->failures += nds_increment_nc_counter(w->inst, w->id, 1, 1) != 0;
		w->failures += nds_increment_nd_counter(w->inst, 5, 2) != 0;
		if ((i & 1023) == 0)
			w->failures += nds_or_nd_counter(w->inst, 3, (uint64_t)w->id * 7) != 0;
	}
	return NULL;
}

static void threads_exact(void **state)
{
	uint8_t *slab = slab_new();
	uint8_t *want = slab_new();
	nds_instance_t *inst = open_mem(slab, 16, true);
	struct worker w[THREADS];
	pthread_t tid[THREADS];
	uint64_t total = (uint64_t)THREADS * PER_THREAD, bits = 0;
	int t;

	(void)state;
	assert_int_equal(pthread_barrier_init(&start_line, NULL, THREADS), 0);
	for (t = 0; t < THREADS; t++) {
		w[t].inst = inst;
		w[t].id = t;
		w[t].failures = 0;
		assert_int_equal(pthread_create(&tid[t], NULL, worker_main, &w[t]), 0);
	}
	for (t = 0; t < THREADS; t++) {
		assert_int_equal(pthread_join(tid[t], NULL), 0);
		assert_int_equal(w[t].failures, 0);
		le_add(want, nc_off((uint32_t)t, 1), PER_THREAD);
		bits |= 1ULL << (t * 7);
	}
	assert_int_equal(pthread_barrier_destroy(&start_line), 0);
	le_add(want, nc_off(0, 28), total);
	le_add(want, nc_off(2, 40), 3 * total);
	le_add(want, nc_off(9, 94), total);
	le_add(want, nc_off(15, 0), (uint64_t)0 - total);
	le_add(want, nd_off(5), 2 * total);
	le_add(want, nd_off(3), bits);
	assert_slab(slab, want, "8 threads x 1e5");
	assert_int_equal(nds_close(inst), 0);
	free(slab);
	free(want);
}

/* ---- kmetric --------------------------------------------------------------- */

static nrt_infer_errors_t errs_with(const uint8_t *subtypes, size_t ns, const uint8_t *hw,
				    size_t nh, int overflow)
{
	nrt_infer_errors_t e;
	size_t i;

	memset(&e, 0, sizeof(e));
	for (i = 0; i < ns; i++)
		e.infer_error_flags[subtypes[i]] = 1;
	for (i = 0; i < nh; i++)
		e.hw_error_flags[hw[i]] = 1;
	e.nq_overflow = (uint8_t)overflow;
	return e;
}

struct exec_case {
	NRT_STATUS status;
	int with_errs;
	uint8_t sub[4], nsub;
	uint8_t hw[3], nhw;
	int overflow;
	uint32_t ids[8], nids;	/* what the header's maps give, written out */
};

static const struct exec_case exec_cases[] = {
	{ NRT_SUCCESS, 0, { 0 }, 0, { 0 }, 0, 0, { 1 }, 1 },
	{ NRT_FAILURE, 0, { 0 }, 0, { 0 }, 0, 0, { 16 }, 1 },
	{ NRT_INVALID, 0, { 0 }, 0, { 0 }, 0, 0, { 19 }, 1 },
	{ NRT_INVALID_HANDLE, 0, { 0 }, 0, { 0 }, 0, 0, { 0 }, 0 },
	{ NRT_TIMEOUT, 0, { 0 }, 0, { 0 }, 0, 0, { 4 }, 1 },
	{ NRT_EXEC_COMPLETED_WITH_ERR, 1, { NRT_INFER_ERROR_SUBTYPE_MEMORY_ERROR }, 1, { 0 }, 0, 0,
	  { 2 }, 1 },
	{ NRT_EXEC_COMPLETED_WITH_NUM_ERR, 1,
	  { NRT_INFER_ERROR_SUBTYPE_NUMERICAL, NRT_INFER_ERROR_SUBTYPE_TRANSIENT }, 2, { 0 }, 0, 0,
	  { 3, 8, 10 }, 3 },
	{ NRT_EXEC_SW_NQ_OVERFLOW, 1, { 0 }, 0, { 0 }, 0, 1, { 2, 35 }, 2 },
	{ NRT_EXEC_HW_ERR_HBM_UE, 1,
	  { NRT_INFER_ERROR_SUBTYPE_NUMERICAL, NRT_INFER_ERROR_SUBTYPE_TRANSIENT,
	    NRT_INFER_ERROR_SUBTYPE_SW_SEMAPHORE_ERROR }, 3,
	  { NEURON_NQ_HW_HBM_UE }, 1, 1, { 2, 8, 10, 32, 35, 36 }, 6 },
	{ NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE, 1,
	  { NRT_INFER_ERROR_SUBTYPE_SW_SEQUENCER_ERROR, NRT_INFER_ERROR_SUBTYPE_SW_PSUM_COLLISION_ERROR,
	    NRT_INFER_ERROR_SUBTYPE_SW_EVENT_ERROR }, 3,
	  { NEURON_NQ_HW_REPAIRABLE_HBM_UE, NEURON_NQ_HW_COLLECTIVES }, 2, 0,
	  { 2, 31, 37, 38, 39, 40 }, 6 },
	{ NRT_EXEC_OOB, 0, { 0 }, 0, { 0 }, 0, 0, { 30 }, 1 },
	{ NRT_NETWORK_PROXY_FAILURE, 0, { 0 }, 0, { 0 }, 0, 0, { 0 }, 0 },
};

static void record_execution(void **state)
{
	static const int ncs[] = { 0, 3, 4, 15 };
	uint8_t *slab = slab_new();
	uint8_t *want = slab_new();
	nds_instance_t *inst = open_mem(slab, 16, true);
	size_t c, k;

	(void)state;
	for (c = 0; c < sizeof(exec_cases) / sizeof(exec_cases[0]); c++) {
		const struct exec_case *x = &exec_cases[c];
		nrt_infer_errors_t e = errs_with(x->sub, x->nsub, x->hw, x->nhw, x->overflow);
		const nrt_infer_errors_t *ep = x->with_errs ? &e : NULL;
		uint32_t ids[NRT_BRIDGE_MAX_EXEC_COUNTERS];
		size_t n = nrt_bridge_counters_for_execution(x->status, ep, ids,
							     NRT_BRIDGE_MAX_EXEC_COUNTERS);
		int nc = ncs[c % 4];
		char what[64];

		/* the map lists what the header documents */
		if (n != x->nids)
			fail_msg("status %d: %zu counters, want %u", x->status, n, x->nids);
		for (k = 0; k < n; k++)
			assert_int_equal(ids[k], x->ids[k]);

		/* without times: the listed ids + INFERENCE_COUNT, nothing else */
		memset(slab, 0, SLAB);
		memset(want, 0, SLAB);
		assert_int_equal(kmetric_record_execution(inst, nc, x->status, ep, NULL), 0);
		for (k = 0; k < n; k++)
			le_add(want, nc_off((uint32_t)nc, ids[k]), 1);
		le_add(want, nc_off((uint32_t)nc, 28), 1);
		snprintf(what, sizeof(what), "record status %d nc %d", x->status, nc);
		assert_slab(slab, want, what);

		/* twice more, with times: counts add up, times in rounded us */
		{
			nrt_exec_times_t t = { 1499, 2500, 999999499ULL, 0 };

			assert_int_equal(kmetric_record_execution(inst, nc, x->status, ep, &t), 0);
			assert_int_equal(kmetric_record_execution(inst, nc, x->status, ep, &t), 0);
			for (k = 0; k < n; k++)
				le_add(want, nc_off((uint32_t)nc, ids[k]), 2);
			le_add(want, nc_off((uint32_t)nc, 28), 2);
			le_add(want, nc_off((uint32_t)nc, 13), 2 * 1);
			le_add(want, nc_off((uint32_t)nc, 14), 2 * 3);
			le_add(want, nc_off((uint32_t)nc, 15), 2 * 999999);
			assert_slab(slab, want, what);
		}
	}

	/* errors write nothing */
	memset(slab, 0, SLAB);
	memset(want, 0, SLAB);
	{
		nrt_infer_errors_t e = errs_with((const uint8_t[]){ 6 }, 1, NULL, 0, 1);
		nrt_exec_times_t t = { 1000, 1000, 1000, 1000 };

		assert_int_equal(kmetric_record_execution(NULL, 0, NRT_SUCCESS, NULL, NULL), -EINVAL);
		assert_int_equal(kmetric_record_execution(inst, 16, NRT_SUCCESS, &e, &t), -EINVAL);
		assert_int_equal(kmetric_record_execution(inst, -1, NRT_EXEC_HW_ERR_NC_UE, &e, &t),
				 -EINVAL);
		assert_int_equal(kmetric_record_execution(inst, INT_MAX, NRT_FAILURE, NULL, NULL),
				 -EINVAL);
	}
	assert_slab(slab, want, "record errors");
	assert_int_equal(nds_close(inst), 0);

	/* nc_count limits the NeuronCores */
	inst = open_mem(slab, 2, true);
	assert_int_equal(kmetric_record_execution(inst, 2, NRT_SUCCESS, NULL, NULL), -EINVAL);
	assert_int_equal(kmetric_record_execution(inst, 1, NRT_SUCCESS, NULL, NULL), 0);
	le_add(want, nc_off(1, 1), 1);
	le_add(want, nc_off(1, 28), 1);
	assert_slab(slab, want, "record on nc 1 of 2");
	assert_int_equal(nds_close(inst), 0);
	free(slab);
	free(want);
}

static void generic_status(void **state)
{
	static const struct {
		NRT_STATUS status;
		int counter;	/* -1: none */
	} cases[] = {
		{ NRT_SUCCESS, -1 }, { NRT_FAILURE, 16 }, { NRT_INVALID, 19 },
		{ NRT_INVALID_HANDLE, -1 }, { NRT_RESOURCE, 17 }, { NRT_TIMEOUT, -1 },
		{ NRT_HW_ERROR, -1 }, { NRT_QUEUE_FULL, -1 }, { (NRT_STATUS)8, -1 },
		{ NRT_LOAD_NOT_ENOUGH_NC, 18 }, { NRT_UNSUPPORTED_NEFF_VERSION, 20 },
		{ NRT_FAIL_HOST_MEM_ALLOC, -1 }, { NRT_EXEC_COMPLETED_WITH_ERR, -1 },
		{ NRT_EXEC_HW_ERR_HBM_UE, -1 }, { (NRT_STATUS)-1, -1 },
	};
	uint8_t *slab = slab_new();
	uint8_t *want = slab_new();
	nds_instance_t *inst = open_mem(slab, 16, true);
	size_t c;

	(void)state;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		int nc = (int)(c % 16);

		assert_int_equal(nrt_bridge_generic_status_counter(cases[c].status), cases[c].counter);
		assert_int_equal(kmetric_update_nds_generic_status(inst, nc, cases[c].status), 0);
		if (cases[c].counter >= 0)
			le_add(want, nc_off((uint32_t)nc, (uint32_t)cases[c].counter), 1);
		assert_slab(slab, want, "generic status");
	}
	assert_int_equal(kmetric_update_nds_generic_status(NULL, 0, NRT_FAILURE), -EINVAL);
	assert_int_equal(kmetric_update_nds_generic_status(inst, 16, NRT_FAILURE), -EINVAL);
	assert_int_equal(kmetric_update_nds_generic_status(inst, -1, NRT_INVALID), -EINVAL);
	assert_slab(slab, want, "generic status errors");
	assert_int_equal(nds_close(inst), 0);
	free(slab);
	free(want);
}

static void error_stats(void **state)
{
	uint8_t *slab = slab_new();
	uint8_t *want = slab_new();
	nds_instance_t *inst = open_mem(slab, 8, true);
	nrt_infer_errors_t all, some;
	nrt_exec_times_t t = { 10000, 20499, 30500, 40501 };
	uint32_t ids[NRT_INFER_ERROR_SUBTYPE_MAX];
	uint32_t s;

	(void)state;
	/* every subtype, every hw fault, overflow: only 36..39 move */
	memset(&all, 0, sizeof(all));
	for (s = 0; s < NRT_INFER_ERROR_SUBTYPE_MAX; s++)
		all.infer_error_flags[s] = 1;
	for (s = 1; s < NRT_HW_FAULT_SLOTS; s++)
		all.hw_error_flags[s] = 1;
	all.nq_overflow = 1;
	assert_int_equal(nrt_bridge_error_stats_counters(&all, ids, NRT_INFER_ERROR_SUBTYPE_MAX), 4);
	assert_int_equal(ids[0], 36);
	assert_int_equal(ids[3], 39);
	assert_int_equal(kmetric_update_nds_error_stats(inst, 6, &all, NULL), 0);
	for (s = 36; s <= 39; s++)
		le_add(want, nc_off(6, s), 1);
	assert_slab(slab, want, "error stats, all flags");

	/* non-SW subtypes move nothing */
	some = errs_with((const uint8_t[]){ 1, 2, 3, 4 }, 4, (const uint8_t[]){ 2 }, 1, 1);
	assert_int_equal(kmetric_update_nds_error_stats(inst, 1, &some, NULL), 0);
	assert_slab(slab, want, "error stats, no SW subtype");

	/* times only: 13, 14, 15, 21 in rounded microseconds */
	assert_int_equal(kmetric_update_nds_error_stats(inst, 2, NULL, &t), 0);
	le_add(want, nc_off(2, 13), 10);
	le_add(want, nc_off(2, 14), 20);
	le_add(want, nc_off(2, 15), 31);
	le_add(want, nc_off(2, 21), 41);
	assert_slab(slab, want, "error stats, times");

	/* both, on an extended NeuronCore */
	some = errs_with((const uint8_t[]){ 7 }, 1, NULL, 0, 0);
	assert_int_equal(kmetric_update_nds_error_stats(inst, 7, &some, &t), 0);
	le_add(want, nc_off(7, 38), 1);
	le_add(want, nc_off(7, 13), 10);
	le_add(want, nc_off(7, 14), 20);
	le_add(want, nc_off(7, 15), 31);
	le_add(want, nc_off(7, 21), 41);
	assert_slab(slab, want, "error stats, both");

	/* errors write nothing */
	assert_int_equal(kmetric_update_nds_error_stats(NULL, 0, &all, &t), -EINVAL);
	assert_int_equal(kmetric_update_nds_error_stats(inst, 0, NULL, NULL), -EINVAL);
	assert_int_equal(kmetric_update_nds_error_stats(inst, 8, &all, &t), -EINVAL);
	assert_int_equal(kmetric_update_nds_error_stats(inst, -1, &all, NULL), -EINVAL);
	assert_int_equal(kmetric_update_nds_error_stats(inst, 8, NULL, &t), -EINVAL);
	assert_slab(slab, want, "error stats errors");
	assert_int_equal(nds_close(inst), 0);
	free(slab);
	free(want);
}

/*
 * The documented errors hold even when the status maps to no counter:
 * a bad NeuronCore is -EINVAL and a read-only instance -EPERM, and the
 * slab is untouched either way.
 */
static void kmetric_errors_when_nothing_maps(void **state)
{
	static uint8_t m[NEURON_NDS_SIZE] __attribute__((aligned(8)));
	static uint8_t before[NEURON_NDS_SIZE];
	nds_instance_t *w = NULL, *ro = NULL;
	nrt_infer_errors_t zeroed;

	(void)state;
	memset(m, 0, sizeof(m));
	nrt_infer_errors_clear(&zeroed);
	assert_int_equal(nds_open_memory(m, 4, true, &w), 0);
	assert_int_equal(nds_open_memory(m, 4, false, &ro), 0);
	memcpy(before, m, sizeof(m));
	assert_int_equal(kmetric_update_nds_generic_status(w, 7, NRT_INVALID_HANDLE), -EINVAL);
	assert_int_equal(kmetric_update_nds_generic_status(w, -1, NRT_SUCCESS), -EINVAL);
	assert_int_equal(kmetric_update_nds_generic_status(ro, 0, NRT_INVALID_HANDLE), -EPERM);
	assert_int_equal(kmetric_update_nds_generic_status(NULL, 0, NRT_FAILURE), -EINVAL);
	assert_int_equal(kmetric_update_nds_error_stats(w, -1, &zeroed, NULL), -EINVAL);
	assert_int_equal(kmetric_update_nds_error_stats(ro, 0, &zeroed, NULL), -EPERM);
	assert_int_equal(kmetric_update_nds_error_stats(w, 0, NULL, NULL), -EINVAL);
	assert_int_equal(kmetric_record_execution(ro, 0, NRT_SUCCESS, NULL, NULL), -EPERM);
	assert_memory_equal(before, m, sizeof(m));
	/* and the valid no-op still succeeds */
	assert_int_equal(kmetric_update_nds_generic_status(w, 0, NRT_INVALID_HANDLE), 0);
	assert_memory_equal(before, m, sizeof(m));
	nds_close(w);
	nds_close(ro);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layout_constants),
		cmocka_unit_test(open_memory_args),
		cmocka_unit_test(nc_offsets_exact),
		cmocka_unit_test(nd_offsets_exact),
		cmocka_unit_test(arithmetic),
		cmocka_unit_test(bounds),
		cmocka_unit_test(read_only),
		cmocka_unit_test(threads_exact),
		cmocka_unit_test(record_execution),
		cmocka_unit_test(generic_status),
		cmocka_unit_test(error_stats),
		cmocka_unit_test(kmetric_errors_when_nothing_maps),
	};
	return cmocka_run_group_tests_name("nds_mem", tests, NULL, NULL);
}
