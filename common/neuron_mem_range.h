/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Device memory address space: a first-fit allocator of granules over a
 * caller-provided bitmap (pure logic, host-testable). The core carves HBM
 * into fixed granules (NEURON_MEM_GRANULE bytes) and hands out runs of
 * them; a set bit is an allocated granule. No allocation, no locking here:
 * the caller owns the bitmap and serialises every call.
 */
#ifndef NEURON_MEM_RANGE_H
#define NEURON_MEM_RANGE_H

#include "neuron_pure.h"

/* Bytes per granule: device allocations start and end on this boundary. */
#define NEURON_MEM_GRANULE	4096ULL

/**
 * struct neuron_mem_range - the allocator state
 * @bits:	one bit per granule, @words 64-bit words (caller-owned)
 * @granules:	granules managed (bits past it stay set: never handed out)
 * @free:	granules not allocated
 */
struct neuron_mem_range {
	u64 *bits;
	u32 granules;
	u32 free;
};

/* 64-bit words of bitmap needed for @granules granules. */
static inline size_t neuron_mem_range_words(u32 granules)
{
	return ((size_t)granules + 63) / 64;
}

/* Granules needed for @bytes (> 0); 0 when it cannot be represented. */
u32 neuron_mem_range_granules(u64 bytes);

/* Start with everything free. @bits must hold neuron_mem_range_words(@granules) words. */
void neuron_mem_range_init(struct neuron_mem_range *r, u64 *bits, u32 granules);

/*
 * Allocate @n (> 0) consecutive granules, lowest address first: 0 and the
 * first granule in *@start, or -ENOMEM when no run of @n is free.
 */
int neuron_mem_range_alloc(struct neuron_mem_range *r, u32 n, u32 *start);

/*
 * Free @n granules at @start. -EINVAL (nothing changes) when the run is out
 * of range or any of it is not allocated.
 */
int neuron_mem_range_free(struct neuron_mem_range *r, u32 start, u32 n);

#endif /* NEURON_MEM_RANGE_H */
