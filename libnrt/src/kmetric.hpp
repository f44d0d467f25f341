/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// What the execution paths account per job: kmetric_record_execution()
// (kmetric.cpp) behind an inline straight path for the common job, and
// the two latency histograms.
#pragma once

#include <nrt/kmetric.h>
#include <nrt/nrt_error_model.h>

#include "bridge.hpp"
#include "decode.hpp"
#include "nds_internal.hpp"

namespace nrt::kmetric {

// One job's two latency histograms: the total time, and the device's
// time when the device ran the job (@ran). Nothing when @inst is not a
// writable instance (what nds_record_latency() refuses).
inline void record_latencies(nds_instance_t *inst, uint64_t total_ns, uint64_t device_ns, bool ran)
{
	if (!inst || !inst->writable)
		return;
	auto *slab = static_cast<uint8_t *>(inst->base);
	nds::record_latency_checked(slab, NDS_LATENCY_TOTAL, total_ns);
	if (ran)	// the block's header was checked just above
		nds::record_latency_set_up(slab, NDS_LATENCY_DEVICE, device_ns);
}

namespace detail {

// The counters a successful job moves (one: its outcome), all in the
// first region of a NeuronCore's block, so one base serves them.
inline constexpr bridge::id_mask success_ids = bridge::status_counters(NRT_SUCCESS);
static_assert(bridge::popcount(success_ids) == 1, "a success moves its outcome only");
inline constexpr uint32_t success_id = static_cast<uint32_t>(__builtin_ctzll(success_ids));
static_assert(success_id < NEURON_NDS_NC_COUNT && NDS_NC_COUNTER_INFERENCE_COUNT < NEURON_NDS_NC_COUNT &&
		      NDS_NC_COUNTER_LATENCY_DEVICE < NEURON_NDS_NC_COUNT &&
		      NDS_NC_COUNTER_LATENCY_TOTAL < NEURON_NDS_NC_COUNT &&
		      NDS_NC_COUNTER_NC_TIME < NEURON_NDS_NC_COUNT &&
		      NDS_NC_COUNTER_CC_TIME < NEURON_NDS_NC_COUNT,
	      "the straight path's counters share the NeuronCore's first region");

// A time counter's add (one of 0 us moves nothing, as the bridge's own
// skip of it)
inline void add_us(uint8_t *block, uint32_t id, uint64_t ns)
{
	nds::cell(block, 8 * int64_t{ id }).fetch_add(bridge::ns_to_us(ns), std::memory_order_relaxed);
}

} // namespace detail

// Where one NeuronCore's accounting goes on the straight path: the
// slab and the NeuronCore's counter block in its first region, kept
// beside the core's lock (rt::core_ctx) so that a job's accounting reads
// nothing but what the job already touched and the slab itself (under an
// emulated CPU each further page a job touches after its system call
// costs about as much as an atomic add). Empty (slab null)
// where the straight path never applies: no slab, a read-only one, or a
// NeuronCore past the first region.
struct core_account {
	uint8_t *slab = nullptr;
	uint8_t *block = nullptr;
};

// @nc's straight-path accounting in @inst (empty when there is none)
inline core_account core_account_for(nds_instance_t *inst, uint32_t nc)
{
	// writable, and in the slab's first region
	if (!inst || nc >= inst->write_nc_limit || nc >= NEURON_NDS_NC_BASE_COUNT)
		return {};
	auto *slab = static_cast<uint8_t *>(inst->base);
	// neuron_nds_nc_offset(nc, 0) of the first region (nc < NEURON_NDS_NC_BASE_COUNT)
	return { slab, slab + NEURON_NDS_NC_OFF + 8 * NEURON_NDS_NC_COUNT * nc };
}

// kmetric_record_execution(@inst, @nc, @st, &@errs, &@times), the same
// counters moved by the same amounts, @a being core_account_for(@inst,
// @nc). A successful job without error flags whose NeuronCore has a
// straight path takes it: no call, no look-up, one relaxed add per
// counter (under an emulated CPU each call, return and table jump costs
// about as much as an add).
[[gnu::always_inline]] inline void record_execution(const core_account &a, nds_instance_t *inst, int nc,
						      NRT_STATUS st, const nrt_infer_errors_t &errs,
						      const nrt_exec_times_t &times)
{
	// few branches: each costs about as much as an add under emulation
	if ((a.block == nullptr) | (static_cast<uint32_t>(st) != NRT_SUCCESS) | decode::any_flag(errs)) {
		kmetric_record_execution(inst, nc, st, &errs, &times);
		return;
	}
	uint8_t *block = a.block;
	nds::cell(block, 8 * int64_t{ detail::success_id }).fetch_add(1, std::memory_order_relaxed);
	nds::cell(block, 8 * int64_t{ NDS_NC_COUNTER_INFERENCE_COUNT })
		.fetch_add(1, std::memory_order_relaxed);
	// bridge::time_adds(); a job without device time (the common case
	// here: the total is its only time) tests one word for the three
	detail::add_us(block, NDS_NC_COUNTER_LATENCY_TOTAL, times.total_ns);
	if (times.device_ns | times.nc_ns | times.cc_ns) {
		detail::add_us(block, NDS_NC_COUNTER_LATENCY_DEVICE, times.device_ns);
		detail::add_us(block, NDS_NC_COUNTER_NC_TIME, times.nc_ns);
		detail::add_us(block, NDS_NC_COUNTER_CC_TIME, times.cc_ns);
	}
}

// record_latencies(@inst, ...) through @a when it has a slab (inline
// in the execution path: NRT_HOT_PATH)
[[gnu::always_inline]] inline void record_latencies(const core_account &a, nds_instance_t *inst,
						      uint64_t total_ns, uint64_t device_ns, bool ran)
{
	if (!a.slab) {
		record_latencies(inst, total_ns, device_ns, ran);
		return;
	}
	nds::record_latency_checked(a.slab, NDS_LATENCY_TOTAL, total_ns);
	if (ran)	// the block's header was checked just above
		nds::record_latency_set_up(a.slab, NDS_LATENCY_DEVICE, device_ns);
}

} // namespace nrt::kmetric
