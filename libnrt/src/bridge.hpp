/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// Result -> NDS NeuronCore counter ids (<neuron/neuron_nds.h>): the one
// source of truth for what an execution's outcome increments. Pure: it
// computes ids; applying them to a slab is the caller's business.
#pragma once

#include <nrt/nrt_error_model.h>
#include <neuron/neuron_nds.h>
#include <neuron/neuron_nq.h>

#include <array>
#include <cstdint>

#include "decode.hpp"
#include "status.hpp"

namespace nrt::bridge {

// kmetric_update_nds_generic_status's CSWTCH.6, indexed by status - 1.
inline constexpr std::array<int8_t, 10> generic_by_status = {
	NDS_NC_COUNTER_GENERIC_FAIL,			// 1 NRT_FAILURE
	NDS_NC_COUNTER_ERR_INVALID,			// 2 NRT_INVALID
	-1,						// 3 NRT_INVALID_HANDLE
	NDS_NC_COUNTER_ERR_RESOURCE,			// 4 NRT_RESOURCE
	-1, -1, -1, -1,					// 5..8: other paths
	NDS_NC_COUNTER_ERR_RESOURCE_NC,			// 9 NRT_LOAD_NOT_ENOUGH_NC
	NDS_NC_COUNTER_ERR_UNSUPPORTED_NEFF_VERSION,	// 10
};

constexpr int generic_counter(uint32_t s)
{
	return (s - 1u <= 9u) ? generic_by_status[s - 1u] : -1;
}

// The 1200-band mirror: status - 1200 -> EXT id, except repairable HBM.
inline constexpr std::array<int8_t, 7> hw_by_status = {
	NDS_EXT_NC_COUNTER_HW_ERR_COLLECTIVES,		// 1200
	NDS_EXT_NC_COUNTER_HW_ERR_HBM_UE,		// 1201
	NDS_EXT_NC_COUNTER_HW_ERR_NC_UE,		// 1202
	NDS_EXT_NC_COUNTER_HW_ERR_DMA_ABORT,		// 1203
	NDS_EXT_NC_COUNTER_ERR_SW_NQ_OVERFLOW,		// 1204
	NDS_EXT_NC_COUNTER_HW_ERR_REPAIRABLE_HBM_UE,	// 1205
	-1,						// 1206: no counter
};

constexpr int hw_counter(uint32_t s)
{
	return (s - 1200u <= 6u) ? hw_by_status[s - 1200u] : -1;
}

constexpr int outcome_counter(uint32_t s)
{
	switch (s) {
	case NRT_SUCCESS:
		return NDS_NC_COUNTER_INFER_COMPLETED;
	case NRT_EXEC_COMPLETED_WITH_ERR:
	case NRT_EXEC_HW_ERR_COLLECTIVES:
	case NRT_EXEC_HW_ERR_HBM_UE:
	case NRT_EXEC_HW_ERR_NC_UE:
	case NRT_EXEC_HW_ERR_DMA_ABORT:
	case NRT_EXEC_SW_NQ_OVERFLOW:
	case NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE:
		return NDS_NC_COUNTER_INFER_COMPLETED_WITH_ERR;
	case NRT_EXEC_COMPLETED_WITH_NUM_ERR:
		return NDS_NC_COUNTER_INFER_COMPLETED_WITH_NUM_ERR;
	case NRT_TIMEOUT:
		return NDS_NC_COUNTER_INFER_TIMED_OUT;
	case NRT_EXEC_BAD_INPUT:
		return NDS_NC_COUNTER_INFER_INCORRECT_INPUT;
	case NRT_QUEUE_FULL:
		return NDS_NC_COUNTER_INFER_FAILED_TO_QUEUE;
	case NRT_HW_ERROR:
		return NDS_NC_COUNTER_ERR_HW;
	case NRT_EXEC_OOB:
		return NDS_NC_COUNTER_OOB;
	default:
		return -1;
	}
}

// kmetric_update_nds_error_stats: SW subtype bx (5..8) -> counter bx + 31.
constexpr int subtype_counter(uint32_t sub)
{
	if (sub >= NRT_INFER_ERROR_SUBTYPE_SW_SEMAPHORE_ERROR &&
	    sub <= NRT_INFER_ERROR_SUBTYPE_SW_SEQUENCER_ERROR)
		return static_cast<int>(sub) + 31;
	return -1;
}

// Counter of hardware fault slot @h (enum neuron_nq_hw_error).
constexpr int hw_fault_counter(uint32_t h)
{
	return h < decode::hw_status.size() ? hw_counter(decode::hw_status[h]) : -1;
}

using id_mask = uint64_t;	// bit i: counter id i
static_assert(NDS_EXT_NC_COUNTER_LAST <= 64, "every named id fits the mask");

constexpr void set(id_mask &m, int id)
{
	if (id >= 0)
		m |= id_mask{ 1 } << id;
}

// What an execution's final status alone moves.
constexpr id_mask status_counters(uint32_t final_status)
{
	id_mask m = 0;
	set(m, outcome_counter(final_status));
	set(m, generic_counter(final_status));
	set(m, hw_counter(final_status));
	return m;
}

// What the errors an execution saw move, beyond its status.
constexpr id_mask error_counters(const nrt_infer_errors_t *e)
{
	id_mask m = 0;
	for (uint32_t h = 0; h < NRT_HW_FAULT_SLOTS; h++)
		if (e->hw_error_flags[h])
			set(m, hw_fault_counter(h));
	if (e->nq_overflow)
		set(m, NDS_EXT_NC_COUNTER_ERR_SW_NQ_OVERFLOW);
	for (uint32_t s = 0; s < NRT_INFER_ERROR_SUBTYPE_MAX; s++)
		if (e->infer_error_flags[s])
			set(m, subtype_counter(s));
	if (e->infer_error_flags[NRT_INFER_ERROR_SUBTYPE_NUMERICAL])
		set(m, NDS_NC_COUNTER_ERR_NUMERICAL);
	if (e->infer_error_flags[NRT_INFER_ERROR_SUBTYPE_TRANSIENT])
		set(m, NDS_NC_COUNTER_ERR_TRANSIENT);
	return m;
}

constexpr id_mask exec_counters(uint32_t final_status, const nrt_infer_errors_t *e)
{
	return status_counters(final_status) | (e ? error_counters(e) : 0);
}

constexpr size_t popcount(id_mask m)
{
	size_t n = 0;
	for (; m; m &= m - 1)
		n++;
	return n;
}

// Nearest microsecond of @ns without overflowing at UINT64_MAX; halves
// round up. Without a branch: for a remainder r of 0..999, (r + 524) >> 10
// is 1 exactly when r >= 500.
constexpr uint64_t ns_to_us(uint64_t ns)
{
	uint64_t q = ns / 1000;
	return q + ((ns - q * 1000 + 524) >> 10);
}

// The time counters one execution adds to, in nrt_bridge_time_counters()'s
// order: 13, 14, 15, 21.
constexpr std::array<nrt_counter_add_t, NRT_BRIDGE_TIME_COUNTERS> time_adds(const nrt_exec_times_t &t)
{
	return { {
		{ NDS_NC_COUNTER_LATENCY_DEVICE, 0, ns_to_us(t.device_ns) },
		{ NDS_NC_COUNTER_LATENCY_TOTAL, 0, ns_to_us(t.total_ns) },
		{ NDS_NC_COUNTER_NC_TIME, 0, ns_to_us(t.nc_ns) },
		{ NDS_NC_COUNTER_CC_TIME, 0, ns_to_us(t.cc_ns) },
	} };
}

// ---- compile-time checks ----------------------------------------------

constexpr bool every_produced_id_named()
{
	for (uint32_t s = 0; s < 1300; s++) {
		int ids[3] = { outcome_counter(s), generic_counter(s), hw_counter(s) };
		for (int id : ids)
			if (id >= NDS_EXT_NC_COUNTER_LAST)
				return false;
	}
	return true;
}

constexpr size_t max_exec_counters()
{
	nrt_infer_errors_t all{};
	for (auto &f : all.infer_error_flags)
		f = 1;
	for (auto &f : all.hw_error_flags)
		f = 1;
	all.nq_overflow = 1;
	size_t worst = 0;
	for (const auto &c : status::codes) {
		size_t n = popcount(exec_counters(c.code, &all));
		worst = n > worst ? n : worst;
	}
	return worst;
}

static_assert(every_produced_id_named());
static_assert(max_exec_counters() <= NRT_BRIDGE_MAX_EXEC_COUNTERS);
static_assert(generic_counter(0) == -1 && generic_counter(11) == -1 &&
	      generic_counter(0xffffffffu) == -1);
static_assert(hw_counter(1199) == -1 && hw_counter(1207) == -1);
static_assert(subtype_counter(NRT_INFER_ERROR_SUBTYPE_SW_PSUM_COLLISION_ERROR) ==
	      NDS_EXT_NC_COUNTER_ERR_SW_PSUM_COLLISION);
constexpr bool ns_to_us_rounds()
{
	for (uint64_t r = 0; r < 1000; r++)
		if (ns_to_us(7000 + r) != 7 + (r >= 500 ? 1 : 0))
			return false;
	return true;
}
static_assert(ns_to_us_rounds());
static_assert(ns_to_us(1499) == 1 && ns_to_us(1500) == 2 &&
	      ns_to_us(UINT64_MAX) == UINT64_MAX / 1000 + 1);

} // namespace nrt::bridge
