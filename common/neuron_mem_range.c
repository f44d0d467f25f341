// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * First-fit granule allocator over a bitmap (see neuron_mem_range.h).
 * Whole free words are skipped 64 granules at a time, so a scan of a
 * 256 MiB device (65536 granules) touches at most 1024 words.
 */
#include "neuron_mem_range.h"

static bool range_bit(const struct neuron_mem_range *r, u32 i)
{
	return (r->bits[i / 64] >> (i % 64)) & 1;
}

static void range_set(struct neuron_mem_range *r, u32 start, u32 n, bool on)
{
	u32 i;

	for (i = start; i < start + n; i++) {
		if (on)
			r->bits[i / 64] |= 1ULL << (i % 64);
		else
			r->bits[i / 64] &= ~(1ULL << (i % 64));
	}
}

u32 neuron_mem_range_granules(u64 bytes)
{
	u64 n;

	if (!bytes || bytes > (u64)(u32)~0U * NEURON_MEM_GRANULE)
		return 0;
	n = (bytes + NEURON_MEM_GRANULE - 1) / NEURON_MEM_GRANULE;
	return (u32)n;
}

void neuron_mem_range_init(struct neuron_mem_range *r, u64 *bits, u32 granules)
{
	size_t w = neuron_mem_range_words(granules);

	r->bits = bits;
	r->granules = granules;
	r->free = granules;
	memset(bits, 0, w * sizeof(u64));
	/* the tail of the last word is never free */
	if (granules % 64)
		bits[w - 1] = ~0ULL << (granules % 64);
}

int neuron_mem_range_alloc(struct neuron_mem_range *r, u32 n, u32 *start)
{
	u32 i = 0, run = 0;

	if (!n || n > r->free)
		return -ENOMEM;
	while (i < r->granules) {
		/* a full word cannot hold the start or the rest of a run */
		if (i % 64 == 0 && r->bits[i / 64] == ~0ULL) {
			run = 0;
			i += 64;
			continue;
		}
		if (range_bit(r, i)) {
			run = 0;
		} else if (++run == n) {
			*start = i + 1 - n;
			range_set(r, *start, n, true);
			r->free -= n;
			return 0;
		}
		i++;
	}
	return -ENOMEM;
}

int neuron_mem_range_free(struct neuron_mem_range *r, u32 start, u32 n)
{
	u32 i;

	if (!n || start >= r->granules || n > r->granules - start)
		return -EINVAL;
	for (i = start; i < start + n; i++)
		if (!range_bit(r, i))
			return -EINVAL;
	range_set(r, start, n, false);
	r->free += n;
	return 0;
}
