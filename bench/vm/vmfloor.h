/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The floors of the job benchmarks (vm_bench_exec, vm_bench_app): the raw
 * job ioctl (NEURON_IOCTL_SIM_EXEC, duration 0) alone, and wrapped in the
 * least that the library's job path has to do however it is written:
 *
 *   - vf_adds:   the job, then the five relaxed atomic adds of a clean
 *                job's accounting (outcome, INFERENCE_COUNT, the total
 *                time, one bucket of each latency histogram) on a mapped
 *                page: what exact, immediately visible counters cost
 *                when other threads, and the driver, may add to the same
 *                words;
 *   - vf_plain:  the same five adds as plain read-modify-writes (which
 *                lose counts under concurrent writers): what is left of
 *                the accounting when the atomics are taken away;
 *   - vf_locked: a lock word taken with a compare-and-swap, the job, the
 *                error ring's two control words read, the five atomic
 *                adds, the lock released with an exchange: a locked and
 *                exactly counted library call with nothing else.
 *
 * Run in pairs against vf_raw (vmbench.h), they measure what those
 * steps add to a job in the same run: vm_bench_exec turns the adds into
 * the best on/off ratio its jobs could read, vm_bench_app compares the
 * locked job with the raw one as nrt_execute is. The words are those of
 * an anonymous mapping: an atomic add costs the same there as on an NDS
 * slab (docs/performance.md). The histograms sit at the slab's offsets
 * and the three counters near the library's, so for jobs under 196 us
 * every add lands on the first page, as the library's do; the floor's
 * adds are, if anything, a little cheaper than the library's (a shift for
 * the microseconds, no check of the histograms' header).
 */
#ifndef VMFLOOR_H
#define VMFLOOR_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <neuron/neuron_ioctl.h>
#include <nrt/nds/nds_latency.h>

#define VF_PAGE 4096
#define VF_WORDS (2 * VF_PAGE)	/* the slab's first pages: counters, histograms */
#define VF_COUNTERS 256		/* byte offset of the three counters */
_Static_assert(NDS_LATENCY_END <= VF_WORDS, "the histograms fit in the slab's first pages");

struct vf_ctx {
	int fd, own_fd;
	struct neuron_sim_exec job;
	uint8_t *words;		/* VF_WORDS bytes laid out as a slab's */
	uint64_t *ring;		/* the ring's control words (tail, dropped) */
	uint32_t *lock;
	uint64_t head, dropped_seen;
};

/*
 * Jobs on @nc through @fd, or through an fd of /dev/neuron0 of its own when
 * @fd is -1; 0, or -1 (said on stderr).
 */
static inline int vf_open(struct vf_ctx *c, int fd, uint32_t nc)
{
	void *m;

	c->own_fd = fd < 0;
	c->fd = c->own_fd ? open("/dev/neuron0", O_RDWR | O_CLOEXEC) : fd;
	if (c->fd < 0) {
		perror("vmfloor: /dev/neuron0");
		return -1;
	}
	m = mmap(NULL, VF_WORDS + VF_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		perror("vmfloor: mmap");
		if (c->own_fd)
			close(c->fd);
		return -1;
	}
	c->words = m;
	c->ring = (uint64_t *)((uint8_t *)m + VF_WORDS);
	c->lock = (uint32_t *)(c->ring + 8);
	c->head = c->dropped_seen = 0;
	c->job = (struct neuron_sim_exec){ .size = sizeof(c->job), .nc = nc };
	return 0;
}

static inline void vf_close(struct vf_ctx *c)
{
	munmap(c->words, VF_WORDS + VF_PAGE);
	if (c->own_fd)
		close(c->fd);
}

static inline int vf_raw(void *ctx)
{
	struct vf_ctx *c = ctx;

	c->job.entries = c->job.dropped = 0;
	if (ioctl(c->fd, NEURON_IOCTL_SIM_EXEC, &c->job)) {
		perror("vmfloor: SIM_EXEC");
		return 1;
	}
	return 0;
}

/* the accounting's five adds, atomic or plain, for a job of @ns */
static inline void vf_account(uint8_t *w, uint64_t ns, int atomic)
{
	unsigned b = nds_latency_bucket(ns);
	uint64_t *c = (uint64_t *)(w + VF_COUNTERS);
	uint64_t *t = (uint64_t *)(w + NDS_LATENCY_HIST_OFF(NDS_LATENCY_TOTAL)) + b;
	uint64_t *d = (uint64_t *)(w + NDS_LATENCY_HIST_OFF(NDS_LATENCY_DEVICE)) + b;

	if (atomic) {
		__atomic_fetch_add(&c[0], 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&c[1], 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&c[2], ns >> 10, __ATOMIC_RELAXED);
		__atomic_fetch_add(t, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(d, 1, __ATOMIC_RELAXED);
	} else {
		volatile uint64_t *vc = c, *vt = t, *vd = d;

		vc[0] = vc[0] + 1;
		vc[1] = vc[1] + 1;
		vc[2] = vc[2] + (ns >> 10);
		*vt = *vt + 1;
		*vd = *vd + 1;
	}
}

static inline int vf_adds(void *ctx)
{
	struct vf_ctx *c = ctx;
	int ret = vf_raw(c);

	vf_account(c->words, c->job.job_ns, 1);
	return ret;
}

static inline int vf_plain(void *ctx)
{
	struct vf_ctx *c = ctx;
	int ret = vf_raw(c);

	vf_account(c->words, c->job.job_ns, 0);
	return ret;
}

static inline int vf_locked(void *ctx)
{
	struct vf_ctx *c = ctx;
	uint32_t unlocked = 0;
	int ret;

	while (!__atomic_compare_exchange_n(c->lock, &unlocked, 1, 0, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED))
		unlocked = 0;
	ret = vf_raw(c);
	if (__atomic_load_n(&c->ring[0], __ATOMIC_ACQUIRE) != c->head ||
	    __atomic_load_n(&c->ring[1], __ATOMIC_ACQUIRE) != c->dropped_seen)
		ret = 1;	/* nothing produces into this page */
	vf_account(c->words, c->job.job_ns, 1);
	if (__atomic_exchange_n(c->lock, 0, __ATOMIC_RELEASE) != 1)
		ret = 1;	/* nobody else takes it */
	return ret;
}

#endif
