// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The execution latency histograms (<nrt/nds/nds_latency.h>): bucket
 * boundaries, representative values and their error bound, percentile
 * ranks, empty histograms, period deltas, and libnrt's record/read of the
 * block in a slab. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <neuron/neuron_nds.h>
#include <nrt/nds/neuron_ds.h>

#define NB NDS_LATENCY_BUCKETS

static void layout(void **state)
{
	(void)state;
	assert_int_equal(NB, 258);
	/* after the process tag (magic, length, up to 255 bytes) */
	assert_true(NDS_LATENCY_OFF >= NDS_PROCESS_TAG_OFF + 8 + NDS_PROCESS_TAG_MAX);
	assert_int_equal(NDS_LATENCY_HIST_OFF(NDS_LATENCY_TOTAL), 1544);
	assert_int_equal(NDS_LATENCY_HIST_OFF(NDS_LATENCY_DEVICE), 1544 + 8 * 258);
	assert_int_equal(NDS_LATENCY_END, 5672);
	assert_true(NDS_LATENCY_END <= 44588);
}

static void buckets(void **state)
{
	unsigned b;

	(void)state;
	/* the edges by hand */
	assert_int_equal(nds_latency_bucket(0), 0);
	assert_int_equal(nds_latency_bucket(1023), 0);
	assert_int_equal(nds_latency_bucket(1024), 1);
	assert_int_equal(nds_latency_bucket(1024 + 127), 1);
	assert_int_equal(nds_latency_bucket(1024 + 128), 2);
	assert_int_equal(nds_latency_bucket(2047), 8);
	assert_int_equal(nds_latency_bucket(2048), 9);
	assert_int_equal(nds_latency_bucket(1000000), 1 + 9 * 8 + 7);	/* 2^19 + 7 * 2^16 */
	assert_int_equal(nds_latency_bucket((UINT64_C(1) << 42) - 1), 256);
	assert_int_equal(nds_latency_bucket(UINT64_C(1) << 42), 257);
	assert_int_equal(nds_latency_bucket(UINT64_MAX), 257);
	assert_int_equal(nds_latency_bucket_lo(0), 0);
	assert_int_equal(nds_latency_bucket_hi(0), 1024);
	assert_int_equal(nds_latency_bucket_lo(2), 1152);
	assert_int_equal(nds_latency_bucket_hi(256), UINT64_C(1) << 42);
	assert_true(nds_latency_bucket_hi(257) == UINT64_MAX);

	/* every bucket: contiguous, its bounds map back to it, and the
	 * midpoint is within 1/16 of everything it holds */
	for (b = 0; b < NB; b++) {
		uint64_t lo = nds_latency_bucket_lo(b), hi = nds_latency_bucket_hi(b);
		uint64_t v = nds_latency_bucket_value(b);

		assert_true(lo < hi);
		assert_int_equal(nds_latency_bucket(lo), b);
		if (b + 1 < NB) {
			assert_int_equal(nds_latency_bucket(hi - 1), b);
			assert_int_equal(nds_latency_bucket_lo(b + 1), hi);
			assert_true(v >= lo && v < hi);
		} else {
			assert_true(v == lo);
		}
		if (b >= 1 && b + 1 < NB) {
			/* |v - x| <= (hi - lo) / 2 <= lo / 16 for any x in [lo, hi) */
			assert_true((hi - lo) * 8 <= lo);
			assert_true((v - lo) * 16 <= lo && (hi - v) * 16 <= lo);
		}
	}
	assert_int_equal(nds_latency_bucket_value(0), 512);
	assert_int_equal(nds_latency_bucket_value(1 + 9 * 8 + 7), 983040 + 32768);
}

static void ranks(void **state)
{
	(void)state;
	assert_int_equal(nds_latency_rank(0, 50), 0);
	assert_int_equal(nds_latency_rank(1, 0), 1);
	assert_int_equal(nds_latency_rank(1, 100), 1);
	assert_int_equal(nds_latency_rank(3, 0), 1);
	assert_int_equal(nds_latency_rank(3, 1), 1);
	assert_int_equal(nds_latency_rank(3, 50), 2);
	assert_int_equal(nds_latency_rank(4, 50), 2);
	assert_int_equal(nds_latency_rank(4, 75), 3);
	assert_int_equal(nds_latency_rank(100, 99), 99);
	assert_int_equal(nds_latency_rank(101, 99), 100);
	assert_int_equal(nds_latency_rank(200, 1), 2);
	assert_int_equal(nds_latency_rank(200, 100), 200);
	assert_int_equal(nds_latency_rank(7, 250), 7);	/* clamped to 100 */
	/* no overflow near the top of u64 */
	assert_true(nds_latency_rank(UINT64_MAX, 100) == UINT64_MAX);
	assert_true(nds_latency_rank(UINT64_MAX, 50) == UINT64_MAX / 2 + 1);
}

static void percentiles(void **state)
{
	uint64_t *h = calloc(NB, sizeof(*h));
	static const unsigned qs[] = NDS_LATENCY_PERCENTILES;
	uint64_t v = 7, prev;
	unsigned i;

	(void)state;
	/* empty: no percentile, nothing written */
	assert_false(nds_latency_percentile(h, 50, &v));
	assert_int_equal(v, 7);
	assert_int_equal(nds_latency_count(h), 0);

	/* 100 values: 1 at ~2 us, 98 at ~1 ms, 1 at ~1 s */
	h[nds_latency_bucket(2000)] += 1;
	h[nds_latency_bucket(1000000)] += 98;
	h[nds_latency_bucket(1000000000)] += 1;
	assert_int_equal(nds_latency_count(h), 100);
	assert_true(nds_latency_percentile(h, 0, &v));
	assert_int_equal(v, nds_latency_bucket_value(nds_latency_bucket(2000)));
	assert_true(nds_latency_percentile(h, 1, &v));	/* rank 1 */
	assert_int_equal(v, nds_latency_bucket_value(nds_latency_bucket(2000)));
	assert_true(nds_latency_percentile(h, 25, &v));
	assert_int_equal(v, nds_latency_bucket_value(nds_latency_bucket(1000000)));
	assert_true(nds_latency_percentile(h, 99, &v));	/* rank 99: still ~1 ms */
	assert_int_equal(v, nds_latency_bucket_value(nds_latency_bucket(1000000)));
	assert_true(nds_latency_percentile(h, 100, &v));
	assert_int_equal(v, nds_latency_bucket_value(nds_latency_bucket(1000000000)));
	/* within 1/16 of the true value */
	assert_true(v > 1000000000 - 1000000000 / 16 && v < 1000000000 + 1000000000 / 16);

	/* the reported percentiles never decrease */
	prev = 0;
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		assert_true(nds_latency_percentile(h, qs[i], &v));
		assert_true(v >= prev);
		prev = v;
	}

	/* one value: every percentile is its bucket */
	memset(h, 0, NB * sizeof(*h));
	h[nds_latency_bucket(UINT64_C(1) << 50)] = 1;	/* overflow: its lower bound */
	assert_true(nds_latency_percentile(h, 50, &v));
	assert_true(v == UINT64_C(1) << 42);
	free(h);
}

static void deltas(void **state)
{
	uint64_t *a = calloc(NB, sizeof(*a)), *b = calloc(NB, sizeof(*b));
	uint64_t *d = calloc(NB, sizeof(*d));

	(void)state;
	a[3] = 5;
	a[100] = 2;
	memcpy(b, a, NB * sizeof(*a));
	b[3] = 9;
	b[200] = 1;
	nds_latency_delta(b, a, d);
	assert_int_equal(d[3], 4);
	assert_int_equal(d[100], 0);
	assert_int_equal(d[200], 1);
	assert_int_equal(nds_latency_count(d), 5);
	/* no previous copy: everything so far */
	nds_latency_delta(b, NULL, d);
	assert_int_equal(nds_latency_count(d), 12);
	/* a bucket went down (a new slab): counts from zero */
	b[100] = 1;
	nds_latency_delta(b, a, d);
	assert_int_equal(nds_latency_count(d), 11);
	assert_int_equal(d[100], 1);
	/* no change: empty */
	nds_latency_delta(a, a, d);
	assert_int_equal(nds_latency_count(d), 0);
	/* in place */
	memcpy(d, b, NB * sizeof(*b));
	b[100] = 2;
	nds_latency_delta(b, d, b);
	assert_int_equal(nds_latency_count(b), 1);
	free(a);
	free(b);
	free(d);
}

static void slab_record_read(void **state)
{
	uint8_t *slab = aligned_alloc(8, NEURON_NDS_SIZE);
	nds_instance_t *w = NULL, *r = NULL;
	uint64_t *h = calloc(NB, sizeof(*h)), v;
	uint32_t magic, nb;
	size_t off;

	(void)state;
	memset(slab, 0, NEURON_NDS_SIZE);
	assert_int_equal(nds_open_memory(slab, 2, true, &w), 0);
	assert_int_equal(nds_open_memory(slab, 2, false, &r), 0);
	/* nothing recorded yet: no block */
	assert_int_equal(nds_get_latency(r, NDS_LATENCY_TOTAL, h), -ENOENT);
	assert_int_equal(nds_record_latency(r, NDS_LATENCY_TOTAL, 5000), -EPERM);
	assert_int_equal(nds_record_latency(w, NDS_LATENCY_KINDS, 5000), -EINVAL);
	assert_int_equal(nds_record_latency(NULL, NDS_LATENCY_TOTAL, 5000), -EINVAL);
	assert_int_equal(nds_get_latency(r, 2, h), -EINVAL);
	assert_int_equal(nds_get_latency(r, 0, NULL), -EINVAL);
	for (off = 0; off < NEURON_NDS_SIZE; off++)
		assert_int_equal(slab[off], 0);

	assert_int_equal(nds_record_latency(w, NDS_LATENCY_TOTAL, 1500000), 0);
	assert_int_equal(nds_record_latency(w, NDS_LATENCY_TOTAL, 1500000), 0);
	assert_int_equal(nds_record_latency(w, NDS_LATENCY_DEVICE, 1000000), 0);
	/* the documented bytes */
	memcpy(&magic, slab + NDS_LATENCY_OFF, 4);
	memcpy(&nb, slab + NDS_LATENCY_OFF + 4, 4);
	assert_int_equal(magic, NDS_LATENCY_MAGIC);
	assert_int_equal(nb, NB);
	memcpy(&v, slab + NDS_LATENCY_HIST_OFF(NDS_LATENCY_TOTAL) + 8 * nds_latency_bucket(1500000), 8);
	assert_int_equal(v, 2);
	memcpy(&v, slab + NDS_LATENCY_HIST_OFF(NDS_LATENCY_DEVICE) + 8 * nds_latency_bucket(1000000), 8);
	assert_int_equal(v, 1);
	/* nothing outside the block moved */
	for (off = 0; off < NEURON_NDS_SIZE; off++)
		if (off < NDS_LATENCY_OFF || off >= NDS_LATENCY_END)
			assert_int_equal(slab[off], 0);

	/* read back through a read-only instance */
	assert_int_equal(nds_get_latency(r, NDS_LATENCY_TOTAL, h), 0);
	assert_int_equal(nds_latency_count(h), 2);
	assert_int_equal(h[nds_latency_bucket(1500000)], 2);
	assert_int_equal(nds_get_latency(r, NDS_LATENCY_DEVICE, h), 0);
	assert_int_equal(nds_latency_count(h), 1);
	assert_true(nds_latency_percentile(h, 50, &v));
	assert_true(v > 1000000 - 1000000 / 16 && v < 1000000 + 1000000 / 16);

	/* another layout (bucket count) reads as absent */
	nb = 100;
	memcpy(slab + NDS_LATENCY_OFF + 4, &nb, 4);
	assert_int_equal(nds_get_latency(r, NDS_LATENCY_TOTAL, h), -ENOENT);
	nds_close(w);
	nds_close(r);
	free(h);
	free(slab);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layout),
		cmocka_unit_test(buckets),
		cmocka_unit_test(ranks),
		cmocka_unit_test(percentiles),
		cmocka_unit_test(deltas),
		cmocka_unit_test(slab_record_read),
	};
	return cmocka_run_group_tests_name("latency", tests, NULL, NULL);
}
