/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// The NDS instance behind the opaque nds_instance_t.
#pragma once

#include <nrt/nds/nds_latency.h>
#include <neuron/neuron_nds.h>

#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>

struct nds_instance {
	void *base = nullptr;	// the slab (mapping or caller memory)
	size_t size = 0;
	bool mapped = false;	// munmap on close
	// the process that mapped it: a forked child has no such mapping (the
	// driver does not copy it), so it never writes through @base
	pid_t pid = 0;
	bool writable = false;	// the caller's own slab
	uint32_t nc_count = 0;	// NeuronCores addressable through this instance
	int slot = -1;		// slab index on the device, -1 for memory instances
	// Derived from writable and nc_count (set_limits(), called wherever
	// those two are set), so that the hot paths test one number:
	// NeuronCores below nc_limit have counters here (nc_count, at most
	// the slab's NEURON_NDS_MAX_NC); below write_nc_limit they may also
	// be written (0 when read-only).
	uint32_t nc_limit = 0;
	uint32_t write_nc_limit = 0;

	void set_limits()
	{
		nc_limit = nc_count < NEURON_NDS_MAX_NC ? nc_count : NEURON_NDS_MAX_NC;
		write_nc_limit = writable ? nc_limit : 0;
	}
};

namespace nrt::nds {

// The slab's 64-bit cell at byte @off, for atomic access.
inline std::atomic_ref<uint64_t> cell(void *base, int64_t off)
{
	return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t *>(
		static_cast<uint8_t *>(base) + off));
}

// Every NC/EXT counter's byte offset, [nc][id]: neuron_nds_nc_offset()
// evaluated at compile time (every entry names a counter; callers check
// nc and id first). A look-up instead of the three-region arithmetic,
// whose branches on (nc, id) cost an update half again as much as a bare
// atomic add whenever the CPU was shared (bench_nds, docs/performance.md).
struct nc_offset_table {
	int32_t off[NEURON_NDS_MAX_NC][NEURON_NDS_ID_COUNT];
};

constexpr nc_offset_table make_nc_offset_table()
{
	nc_offset_table t{};
	for (uint32_t nc = 0; nc < NEURON_NDS_MAX_NC; nc++)
		for (uint32_t id = 0; id < NEURON_NDS_ID_COUNT; id++)
			t.off[nc][id] = static_cast<int32_t>(neuron_nds_nc_offset(nc, id));
	return t;
}

inline constexpr nc_offset_table k_nc_offsets = make_nc_offset_table();

static_assert(k_nc_offsets.off[0][0] == NEURON_NDS_NC_OFF);
static_assert(k_nc_offsets.off[NEURON_NDS_MAX_NC - 1][NEURON_NDS_ID_COUNT - 1] > 0);

// The NC/EXT counter's offset, or -1 when out of range for this instance.
// Inline, as the counter updates below: a call per update was half of an
// update's cost (bench_nds, docs/performance.md).
inline int64_t nc_offset(const nds_instance *inst, int nc, uint32_t id)
{
	if (static_cast<uint32_t>(nc) >= inst->nc_limit || id >= NEURON_NDS_ID_COUNT)
		return -1;
	return k_nc_offsets.off[nc][id];
}

// nc_add()'s answer when it did not add: -EINVAL without @inst or
// without counter (@nc, @id) in it, else -EPERM (read-only).
[[gnu::cold]] int nc_add_refused(const nds_instance *inst, int nc, uint32_t id);

// Add @delta to NC/EXT counter @id of NeuronCore @nc (atomic). 0, -EINVAL, -EPERM.
// One test for instance, NeuronCore and write access, one for the id.
inline int nc_add(nds_instance *inst, int nc, uint32_t id, uint64_t delta)
{
	if (inst && static_cast<uint32_t>(nc) < inst->write_nc_limit && id < NEURON_NDS_ID_COUNT)
		[[likely]] {
		cell(inst->base, k_nc_offsets.off[nc][id]).fetch_add(delta,
								     std::memory_order_relaxed);
		return 0;
	}
	return nc_add_refused(inst, nc, id);
}

// What every kmetric_* call checks first: -EINVAL without @inst or with
// no NeuronCore @nc in it, -EPERM when read-only, else 0.
inline int nc_target(const nds_instance *inst, int nc)
{
	if (!inst || nc_offset(inst, nc, 0) < 0)
		return -EINVAL;
	return inst->writable ? 0 : -EPERM;
}

// The execution path below is inline: one call per job instead of one per
// counter (calls and returns are what an emulated CPU pays most for,
// after system calls).

// nc_add() for a caller that has checked @inst (writable) and @nc
// (nc_target()) already: the counter's own range check only. 0 or -EINVAL.
inline int nc_add_checked(nds_instance *inst, int nc, uint32_t id, uint64_t delta)
{
	if (id >= NEURON_NDS_ID_COUNT)
		return -EINVAL;
	cell(inst->base, k_nc_offsets.off[nc][id]).fetch_add(delta, std::memory_order_relaxed);
	return 0;
}

// nds_close(): the objects of @inst (nds_obj.cpp) forget it, so a later
// commit is -ENODEV and a delete only frees the object.
void objects_detach(const nds_instance *inst) noexcept;

// The latency block's header, once (nds.cpp).
void latency_setup(void *base);

// One value into latency histogram @kind (< NDS_LATENCY_KINDS) of the
// writable slab at @base, whose latency block has its header
// (record_latency_checked made sure of it before).
inline void record_latency_set_up(void *base, unsigned kind, uint64_t ns)
{
	cell(base, NDS_LATENCY_HIST_OFF(kind) + 8 * int64_t{ nds_latency_bucket(ns) })
		.fetch_add(1, std::memory_order_relaxed);
}

// The same, first giving the block its header if it has none yet.
inline void record_latency_checked(void *base, unsigned kind, uint64_t ns)
{
	const auto *magic = reinterpret_cast<const uint32_t *>(
		static_cast<const uint8_t *>(base) + NDS_LATENCY_OFF);
	if (__atomic_load_n(magic, __ATOMIC_ACQUIRE) != NDS_LATENCY_MAGIC)
		latency_setup(base);
	record_latency_set_up(base, kind, ns);
}

} // namespace nrt::nds
