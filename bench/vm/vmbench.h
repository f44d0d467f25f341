/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the guest benchmarks share: the clock, the sysfs `total` read
 * both vm_bench_nds and vm_bench_scale time, and the paired measurement
 * of two kinds of job (vm_bench_exec, vm_bench_app).
 */
#ifndef VMBENCH_H
#define VMBENCH_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

/* neuron0's NeuronCore 0 success total: a counter sysfs folds on each read */
#define VMBENCH_TOTAL \
	"/sys/devices/virtual/neuron_device/neuron0/neuron_core0/stats/status/success/total"

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds one open + read + close of VMBENCH_TOTAL takes, over @reads. */
static inline double read_total_ns(int reads)
{
	char buf[64];
	uint64_t t0 = now_ns();
	int i;

	for (i = 0; i < reads; i++) {
		int fd = open(VMBENCH_TOTAL, O_RDONLY);

		if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0) {
			perror("read " VMBENCH_TOTAL);
			exit(1);
		}
		close(fd);
	}
	return (double)(now_ns() - t0) / reads;
}

/*
 * Paired measurement. Two kinds of job, A and B, run in turn,
 * one of each per pair, the order alternating from pair to pair; each job
 * is timed on its own with the cycle counter (the TSC: a few instructions,
 * where a clock read costs microseconds under emulation; elsewhere the
 * clock). Each kind's figure is its median. A pair's two jobs are
 * microseconds apart, so what the host does to one it does to the other,
 * and the median leaves out the jobs a host interruption hit. On a
 * shared 2-CPU machine the best of 24 blocks of 250 jobs each gave an
 * on/off ratio of 0.93 and then 0.78 in one boot; the medians of pairs
 * 0.974 both times (2026-12-02, at 6cabe90; docs/performance.md).
 */
/*
 * Not serialising, and a process that moves between CPUs may see their
 * counters differ a little: such a job's time is wrong, and lands at
 * either end of the sorted list, away from the median.
 */
static inline uint64_t vb_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	return now_ns();
#endif
}

struct vb_pairs {
	int n;
	uint64_t *a, *b;	/* ticks per job */
	uint64_t t0_ns, t0_ticks;	/* for ticks per ns */
	double ns_per_tick;
};

static inline void vb_pairs_init(struct vb_pairs *p, int n)
{
	if (n < 1) {
		fprintf(stderr, "vmbench: at least one pair\n");
		exit(2);
	}
	p->n = n;
	p->a = calloc((size_t)n, sizeof(*p->a));
	p->b = calloc((size_t)n, sizeof(*p->b));
	if (!p->a || !p->b) {
		fprintf(stderr, "vmbench: out of memory\n");
		exit(1);
	}
	p->t0_ns = now_ns();
	p->t0_ticks = vb_ticks();
}

static inline int vb_cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * Run @p->n pairs of @job_a and @job_b (each returns 0, or non-zero to
 * stop the run: the caller's error), then sort each side. 0 or the error.
 */
static inline int vb_pairs_run(struct vb_pairs *p, int (*job_a)(void *), int (*job_b)(void *),
			       void *ctx)
{
	int i, ret;

	for (i = 0; i < p->n; i++) {
		int a_first = !(i & 1);
		uint64_t t0, t1, t2;

		t0 = vb_ticks();
		ret = a_first ? job_a(ctx) : job_b(ctx);
		t1 = vb_ticks();
		if (!ret)
			ret = a_first ? job_b(ctx) : job_a(ctx);
		t2 = vb_ticks();
		if (ret)
			return ret;
		p->a[i] = a_first ? t1 - t0 : t2 - t1;
		p->b[i] = a_first ? t2 - t1 : t1 - t0;
	}
	p->ns_per_tick = (double)(now_ns() - p->t0_ns) / (double)(vb_ticks() - p->t0_ticks);
	qsort(p->a, (size_t)p->n, sizeof(*p->a), vb_cmp_u64);
	qsort(p->b, (size_t)p->n, sizeof(*p->b), vb_cmp_u64);
	return 0;
}

/* The median job of side @v (p->a or p->b), in ns. */
static inline double vb_median_ns(const struct vb_pairs *p, const uint64_t *v)
{
	return (double)v[p->n / 2] * p->ns_per_tick;
}

static inline void vb_pairs_free(struct vb_pairs *p)
{
	free(p->a);
	free(p->b);
}

/*
 * @n pairs of @job_a and @job_b (vb_pairs_run), each side's median job in
 * ns into *@a_ns and *@b_ns. 0, or the jobs' error.
 */
static inline int vb_pair_medians(int n, int (*job_a)(void *), int (*job_b)(void *), void *ctx,
				  double *a_ns, double *b_ns)
{
	struct vb_pairs p;
	int ret;

	vb_pairs_init(&p, n);
	ret = vb_pairs_run(&p, job_a, job_b, ctx);
	if (!ret) {
		*a_ns = vb_median_ns(&p, p.a);
		*b_ns = vb_median_ns(&p, p.b);
	}
	vb_pairs_free(&p);
	return ret;
}

/*
 * The whole of regular file @path in a malloc()ed buffer (free() it), its
 * size in *@size; NULL when it cannot be opened, is empty or reads short.
 */
static inline void *vb_slurp(const char *path, size_t *size)
{
	struct stat st;
	void *b = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0) {
		b = malloc((size_t)st.st_size);
		if (b && read(fd, b, (size_t)st.st_size) != st.st_size) {
			free(b);
			b = NULL;
		}
		*size = (size_t)st.st_size;
	}
	if (fd >= 0)
		close(fd);
	return b;
}

#endif /* VMBENCH_H */
