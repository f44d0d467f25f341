// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest benchmark of device memory the CPU reaches, ratios from one run:
 *   - a device tensor written and read back through its CPU address
 *     (nrt_tensor_get_va: memcpy into and out of the mapping of its
 *     allocation) against memcpy of the same bytes between host buffers;
 *   - a dma-buf of that tensor (nrt_get_dmabuf_fd) mapped by a second
 *     process and read there, against memcpy between that process's own
 *     buffers.
 * Each figure is the best of BLOCKS blocks of ROUNDS copies of 1 MiB, after
 * one untimed pass that brings the pages in; the two sides' blocks
 * alternate (A, B, B, A, A, B, ...), so a stretch of host load falls on
 * both. Expects the module loaded with a simulated device.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nrt/nrt.h>

#include "vmbench.h"

#define BYTES	(1u << 20)
#define ROUNDS	64
#define BLOCKS	7

static double mbs(uint64_t ns, unsigned int copies)
{
	return (double)copies * BYTES / 1e6 / ((double)ns / 1e9);
}

/* one side of a comparison: copy @src to @dst and back to @back (NULL: one way only) */
struct side {
	uint8_t *dst, *back;
	const uint8_t *src;
	double best;	/* MB/s, the best block's */
};

/* one block of ROUNDS copies on @s, kept when it is the best so far */
static void copy_block(struct side *s)
{
	uint64_t t0 = now_ns(), t1;
	double r;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		memcpy(s->dst, s->src, BYTES);
		__asm__ volatile("" ::"r"(s->dst) : "memory");
		if (s->back) {
			memcpy(s->back, s->dst, BYTES);
			__asm__ volatile("" ::"r"(s->back) : "memory");
		}
	}
	t1 = now_ns();
	r = mbs(t1 - t0, s->back ? 2 * ROUNDS : ROUNDS);
	if (r > s->best)
		s->best = r;
}

/* BLOCKS blocks of each side, alternating: a, b, b, a, a, b, ... */
static void best_pair(struct side *a, struct side *b)
{
	int k;

	for (k = 0; k < BLOCKS; k++) {
		copy_block(k & 1 ? b : a);
		copy_block(k & 1 ? a : b);
	}
}

/* the second process: map the dma-buf, time reads from it against its own memcpy */
static int reader(int fd)
{
	uint8_t *m = mmap(NULL, BYTES, PROT_READ, MAP_SHARED, fd, 0);
	uint8_t *a = malloc(BYTES), *b = malloc(BYTES);
	struct side map = { .dst = a, .src = m }, own = { .dst = a, .src = b };

	if (m == MAP_FAILED || !a || !b)
		return 1;
	memset(b, 1, BYTES);
	memcpy(a, m, BYTES);	/* the pages come in */
	if (a[0] != 0x5a || a[BYTES - 1] != 0x5a)
		return 2;
	best_pair(&map, &own);
	printf("dma-buf read, 2nd process:  %10.0f MB/s\n", map.best);
	printf("memcpy there:               %10.0f MB/s\n", own.best);
	printf("ratio dma-buf mapped read in a second process/memcpy (throughput): %.3f\n",
	       map.best / own.best);
	fflush(stdout);
	return 0;
}

int main(void)
{
	uint8_t *buf = malloc(BYTES), *back = malloc(BYTES), *host = malloc(BYTES), *va;
	struct side dev = { .src = buf, .back = back }, mem = { .dst = host, .src = buf, .back = back };
	nrt_tensor_t *t = NULL;
	NRT_STATUS st;
	int fd = -1, status;
	pid_t pid;

	if (!buf || !back || !host)
		return 1;
	st = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
	if (st == NRT_SUCCESS)
		st = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, BYTES, "bench", &t);
	if (st != NRT_SUCCESS) {
		fprintf(stderr, "vm_bench_dmabuf: %s\n", nrt_get_status_as_str(st));
		return 1;
	}
	va = nrt_tensor_get_va(t);
	if (!va) {
		fprintf(stderr, "vm_bench_dmabuf: the device tensor has no CPU address\n");
		return 1;
	}
	memset(buf, 0x5a, BYTES);
	memcpy(va, buf, BYTES);	/* the pages come in */
	dev.dst = va;
	memcpy(host, buf, BYTES);	/* and the host buffers' */
	memcpy(back, buf, BYTES);
	best_pair(&dev, &mem);
	if (memcmp(va, buf, BYTES)) {
		fprintf(stderr, "vm_bench_dmabuf: the tensor's bytes differ\n");
		return 1;
	}
	printf("tensor write+read by address: %8.0f MB/s\n", dev.best);
	printf("memcpy there and back:      %10.0f MB/s\n", mem.best);
	printf("ratio device tensor write+read through its address/memcpy (throughput): %.3f\n",
	       dev.best / mem.best);
	fflush(stdout);

	st = nrt_get_dmabuf_fd((uintptr_t)va, BYTES, &fd);
	if (st != NRT_SUCCESS) {
		fprintf(stderr, "vm_bench_dmabuf: nrt_get_dmabuf_fd: %s\n", nrt_get_status_as_str(st));
		return 1;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid)
		_exit(reader(fd));
	close(fd);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "vm_bench_dmabuf: the second process failed\n");
		return 1;
	}
	nrt_tensor_free(&t);
	nrt_close();
	free(buf);
	free(back);
	free(host);
	return 0;
}
