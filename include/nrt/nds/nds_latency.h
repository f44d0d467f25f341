/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Execution latency histograms in the NDS slab's runtime-private area
 * (bytes 1248..44588 of the slab, not read by the driver), where
 * neuron-monitor, which maps each application's slab read-only, finds them.
 * libnrt writes them (nds_record_latency), readers copy them out
 * (nds_get_latency); the pure bucket and percentile math below is shared
 * by both, by neuron-monitor and by the tests. C and C++.
 *
 * Block layout, at NDS_LATENCY_OFF (after the process tag, which ends at
 * NDS_PROCESS_TAG_OFF + 8 + NDS_PROCESS_TAG_MAX = 1511), little-endian:
 *   +0   u32 NDS_LATENCY_MAGIC ("lat1"), written once the block is set up;
 *        a reader that does not see it treats the block as absent
 *   +4   u32 NDS_LATENCY_BUCKETS (a reader checks it: the layout version)
 *   +8   u64 counts[NDS_LATENCY_BUCKETS]: NDS_LATENCY_TOTAL, the time of
 *        each execution (nrt_execute / nrt_sim_execute): the job's time in
 *        the driver (its answer's job_ns, NEURON_CAP_JOB_TIME), or the
 *        call's wall time where the job's ioctl is not the whole call
 *        (host tensors staged) or the driver does not time jobs
 *   +8 + 8 * NDS_LATENCY_BUCKETS   u64 counts[...]: NDS_LATENCY_DEVICE, the
 *        device time of each execution the device ran (LATENCY_DEVICE, 13)
 * Counts only grow (relaxed 64-bit atomic adds); a reader takes the
 * difference of two copies for a period (nds_latency_delta).
 *
 * Buckets (values in nanoseconds), log-linear, NDS_LATENCY_SUB sub-buckets
 * per power of two from 2^NDS_LATENCY_MIN_SHIFT ns (1.024 us) to
 * 2^NDS_LATENCY_MAX_SHIFT ns (about 73 minutes):
 *   bucket 0                 [0, 1024)
 *   bucket 1 + 8 (e - 10) + s, for 10 <= e < 42 and s = 0..7:
 *                            [(8 + s) 2^(e-3), (9 + s) 2^(e-3))
 *   bucket NDS_LATENCY_BUCKETS - 1   [2^42, infinity)
 * A bucket's representative value (what a percentile reports) is its
 * midpoint; for the last, unbounded, one its lower bound. Every bucket
 * from 1 to 256 is at most 1/8 of its lower bound wide, so the midpoint
 * is within 1/16 (6.25 %) of any value the bucket holds; values below
 * 1.024 us are reported as 512 ns (absolute error < 512 ns).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NDS_LATENCY_OFF		1536
#define NDS_LATENCY_MAGIC	0x3174616cu	/* "lat1" little-endian */
#define NDS_LATENCY_MIN_SHIFT	10		/* first power of two: 1024 ns */
#define NDS_LATENCY_MAX_SHIFT	42		/* overflow from 2^42 ns */
#define NDS_LATENCY_SUB_SHIFT	3
#define NDS_LATENCY_SUB		(1u << NDS_LATENCY_SUB_SHIFT)	/* per power of two */
#define NDS_LATENCY_BUCKETS \
	((NDS_LATENCY_MAX_SHIFT - NDS_LATENCY_MIN_SHIFT) * NDS_LATENCY_SUB + 2)	/* 258 */

/* which histogram */
#define NDS_LATENCY_TOTAL	0
#define NDS_LATENCY_DEVICE	1
#define NDS_LATENCY_KINDS	2

/* byte offset of histogram @kind's counts in the slab, and the block's end */
#define NDS_LATENCY_HIST_OFF(kind)	(NDS_LATENCY_OFF + 8 + (kind) * 8 * NDS_LATENCY_BUCKETS)
#define NDS_LATENCY_END			NDS_LATENCY_HIST_OFF(NDS_LATENCY_KINDS)	/* 5672 */
#define NDS_LATENCY_PRIVATE_END		44588	/* the runtime-private area's end */

/* The percentiles neuron-monitor reports, in percent. */
#define NDS_LATENCY_PERCENTILES	{ 0, 1, 25, 50, 75, 99, 100 }

#ifdef __cplusplus
static_assert(NDS_LATENCY_END <= NDS_LATENCY_PRIVATE_END, "latency block outside the private area");
static_assert(NDS_LATENCY_OFF % 8 == 0, "latency block alignment");
#else
_Static_assert(NDS_LATENCY_END <= NDS_LATENCY_PRIVATE_END, "latency block outside the private area");
_Static_assert(NDS_LATENCY_OFF % 8 == 0, "latency block alignment");
#endif

/*
 * The bucket that counts @ns: 0 below 2^MIN_SHIFT, the last from
 * 2^MAX_SHIFT, else SUB per power of two. Computed on @ns clamped into the
 * bucketed range, then corrected at both ends, with selects rather than
 * branches (libnrt's execution path takes it on every job; under an
 * emulated CPU a branch costs about as much as an atomic add).
 */
static inline unsigned nds_latency_bucket(uint64_t ns)
{
	const uint64_t lo = UINT64_C(1) << NDS_LATENCY_MIN_SHIFT;
	const uint64_t hi = (UINT64_C(1) << NDS_LATENCY_MAX_SHIFT) - 1;
	uint64_t c = ns < lo ? lo : ns;
	unsigned e, b, below = ns < lo, above = ns > hi;

	c = c > hi ? hi : c;
	e = 63u - (unsigned)__builtin_clzll(c);
	b = 1u + (e - NDS_LATENCY_MIN_SHIFT) * NDS_LATENCY_SUB +
	    (unsigned)((c >> (e - NDS_LATENCY_SUB_SHIFT)) & (NDS_LATENCY_SUB - 1));
	/* below the range: 0; above it: one past hi's bucket, the last */
	return (1u - below) * b + above;
}

/* Smallest value bucket @b counts (@b < NDS_LATENCY_BUCKETS). */
static inline uint64_t nds_latency_bucket_lo(unsigned b)
{
	unsigned k, e;

	if (b == 0)
		return 0;
	if (b >= NDS_LATENCY_BUCKETS - 1)
		return UINT64_C(1) << NDS_LATENCY_MAX_SHIFT;
	k = b - 1;
	e = NDS_LATENCY_MIN_SHIFT + k / NDS_LATENCY_SUB;
	return (uint64_t)(NDS_LATENCY_SUB + k % NDS_LATENCY_SUB) << (e - NDS_LATENCY_SUB_SHIFT);
}

/* First value past bucket @b; UINT64_MAX for the last, unbounded, one. */
static inline uint64_t nds_latency_bucket_hi(unsigned b)
{
	if (b >= NDS_LATENCY_BUCKETS - 1)
		return UINT64_MAX;
	return nds_latency_bucket_lo(b + 1);
}

/* What a percentile falling in bucket @b reports: the midpoint (see above). */
static inline uint64_t nds_latency_bucket_value(unsigned b)
{
	uint64_t lo = nds_latency_bucket_lo(b);

	if (b >= NDS_LATENCY_BUCKETS - 1)
		return lo;
	return lo + (nds_latency_bucket_hi(b) - lo) / 2;
}

/* How many values @h counts. */
static inline uint64_t nds_latency_count(const uint64_t h[NDS_LATENCY_BUCKETS])
{
	uint64_t n = 0;
	unsigned b;

	for (b = 0; b < NDS_LATENCY_BUCKETS; b++)
		n += h[b];
	return n;
}

/*
 * The rank of percentile @q (0..100) among @n values: the smallest r >= 1
 * with r >= q/100 * n, i.e. max(1, ceil(q * n / 100)); 0 when @n is 0.
 */
static inline uint64_t nds_latency_rank(uint64_t n, unsigned q)
{
	uint64_t r;

	if (n == 0)
		return 0;
	if (q > 100)
		q = 100;
	/* ceil(q n / 100) without overflowing q n */
	r = (n / 100) * q + ((n % 100) * q + 99) / 100;
	return r ? r : 1;
}

/*
 * Percentile @q (0..100) of @h: the representative value (ns) of the bucket
 * holding the value of rank nds_latency_rank(count, q). false when @h is
 * empty (nothing written).
 */
static inline bool nds_latency_percentile(const uint64_t h[NDS_LATENCY_BUCKETS], unsigned q,
					  uint64_t *ns)
{
	uint64_t r = nds_latency_rank(nds_latency_count(h), q), seen = 0;
	unsigned b;

	if (r == 0)
		return false;
	for (b = 0; b < NDS_LATENCY_BUCKETS; b++) {
		seen += h[b];
		if (seen >= r) {
			*ns = nds_latency_bucket_value(b);
			return true;
		}
	}
	return false;	/* unreachable: the count was summed from @h */
}

/*
 * @out = @cur - @prev bucket by bucket: what was counted between two
 * copies. @prev NULL, or any bucket of @cur below @prev's (a new slab under
 * the same process), counts @cur from zero. @out may alias @cur.
 */
static inline void nds_latency_delta(const uint64_t cur[NDS_LATENCY_BUCKETS],
				     const uint64_t *prev, uint64_t out[NDS_LATENCY_BUCKETS])
{
	unsigned b;

	for (b = 0; prev && b < NDS_LATENCY_BUCKETS; b++)
		if (cur[b] < prev[b])
			prev = NULL;
	for (b = 0; b < NDS_LATENCY_BUCKETS; b++)
		out[b] = cur[b] - (prev ? prev[b] : 0);
}
