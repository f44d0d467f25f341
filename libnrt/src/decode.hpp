/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// Error-notification decode: TPB error type (L3) -> INFER_ERROR_SUBTYPE
// (L2) -> NRT_STATUS (L1). Pure and constexpr; the ring itself is drained
// elsewhere, this only decodes and accumulates entries.
#pragma once

#include <nrt/nrt_error_model.h>
#include <neuron/neuron_nq.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "status.hpp"
#include "status_text.hpp"

namespace nrt::decode {

// sunda_error_subtypes: indexed by TPB error type. 12 entries, one more
// than there are TPB types; the last maps to NONE.
inline constexpr std::array<uint8_t, NRT_TPB_REMAP_COUNT> tpb_subtype = {
	0, 1, 0, 0, 3, 4, 5, 6, 7, 2, 8, 0,
};

static_assert(NEURON_TPB_ERROR_COUNT == 11 && NEURON_TPB_ERROR_COUNT < NRT_TPB_REMAP_COUNT);
static_assert(tpb_subtype[NEURON_TPB_ERROR_FP_NAN] == NRT_INFER_ERROR_SUBTYPE_NUMERICAL);
static_assert(tpb_subtype[NEURON_TPB_ERROR_FP_INF] == NRT_INFER_ERROR_SUBTYPE_NONE);
static_assert(tpb_subtype[NEURON_TPB_ERROR_MEMORY_ERROR] == NRT_INFER_ERROR_SUBTYPE_MEMORY_ERROR);
static_assert(tpb_subtype[NEURON_TPB_ERROR_SEQUENCER_NONFATAL] == NRT_INFER_ERROR_SUBTYPE_TRANSIENT);
static_assert(tpb_subtype[NEURON_TPB_ERROR_SEQUENCER_FATAL] ==
	      NRT_INFER_ERROR_SUBTYPE_SW_SEQUENCER_ERROR);

// enum neuron_nq_hw_error -> status; slot 0 is no fault.
inline constexpr std::array<NRT_STATUS, NRT_HW_FAULT_SLOTS> hw_status = {
	NRT_SUCCESS,
	NRT_EXEC_HW_ERR_COLLECTIVES,
	NRT_EXEC_HW_ERR_HBM_UE,
	NRT_EXEC_HW_ERR_NC_UE,
	NRT_EXEC_HW_ERR_DMA_ABORT,
	NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE,
};

static_assert(NEURON_NQ_HW_COUNT == NRT_HW_FAULT_SLOTS);
static_assert(hw_status[NEURON_NQ_HW_REPAIRABLE_HBM_UE] == NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE);
static_assert(sizeof(nrt_infer_errors_t) == 24, "C ABI layout");
static_assert(sizeof(struct neuron_nq_entry) == NEURON_NQ_ENTRY_SIZE);

// Every index of sunda_error_subtypes is a type the seed's table maps:
// 0..10 are the TPB types and 11 maps to NONE (accepted, no flag), so only
// ids past the table are malformed (docs/error-model.md).
constexpr bool tpb_type_valid(uint32_t t)
{
	return t < NRT_TPB_REMAP_COUNT;
}

constexpr bool hw_error_valid(uint32_t h)
{
	return h >= NEURON_NQ_HW_COLLECTIVES && h < NEURON_NQ_HW_COUNT;
}

// Subtypes that fail an execution with NRT_EXEC_COMPLETED_WITH_ERR.
constexpr bool subtype_fails(uint32_t sub)
{
	return sub >= NRT_INFER_ERROR_SUBTYPE_MEMORY_ERROR &&
	       sub <= NRT_INFER_ERROR_SUBTYPE_SW_SEQUENCER_ERROR;
}

constexpr void bump(uint32_t &n)
{
	if (n != UINT32_MAX)
		n++;
}

constexpr int add_tpb(nrt_infer_errors_t &e, uint32_t tpb_type)
{
	if (!tpb_type_valid(tpb_type)) {
		bump(e.malformed);
		return -1;
	}
	e.infer_error_flags[tpb_subtype[tpb_type]] = 1;
	bump(e.entries);
	return 0;
}

constexpr int add_hw(nrt_infer_errors_t &e, uint32_t hw_error)
{
	if (!hw_error_valid(hw_error)) {
		bump(e.malformed);
		return -1;
	}
	e.hw_error_flags[hw_error] = 1;
	bump(e.entries);
	return 0;
}

// One entry given by its header and error_id bytes.
constexpr int add_entry(nrt_infer_errors_t &e, uint8_t header, uint8_t error_id)
{
	int ret;
	switch (header & NEURON_NQ_HDR_TYPE_MASK) {
	case NEURON_NQ_NOTIFIC_TPB_ERROR:
		ret = add_tpb(e, error_id);
		break;
	case NEURON_NQ_NOTIFIC_ERROR:
		ret = add_hw(e, error_id);
		break;
	default:
		bump(e.malformed);
		return -1;
	}
	if (ret == 0 && (header & NEURON_NQ_HDR_SW_OVERFLOW))
		e.nq_overflow = 1;
	return ret;
}

// ---- the ring drain's decoder: one table look-up per entry -----------
//
// What an entry contributes depends on 13 bits only: its notific_type
// (header bits [4:0]) and its error_id. The drain ignores the SW-overflow
// bit (the control area's drop counter reports those drops), bit 6 and
// the phase, so one look-up gives an entry's whole outcome: the byte of
// nrt_infer_errors_t it sets. Bytes 0..8 are infer_error_flags[], 10 + h
// is hw_error_flags[h]; hw_error_flags[0] (byte 10) is never set by an
// entry, so lane 10 stands for "malformed". The table is computed from
// add_entry() above, so the two cannot disagree.

inline constexpr uint32_t entry_key_bits = 13;
inline constexpr uint8_t lane_malformed = 10;
inline constexpr uint32_t lane_count = 16;

static_assert(offsetof(nrt_infer_errors_t, infer_error_flags) == 0);
static_assert(offsetof(nrt_infer_errors_t, hw_error_flags) == lane_malformed);
static_assert(lane_malformed + NRT_HW_FAULT_SLOTS == lane_count);

// The key of an entry from its first four bytes read as a little-endian
// word (error_id in bits 7:0, the header in bits 31:24).
constexpr uint32_t entry_key(uint32_t word)
{
	uint32_t k = word & (uint32_t{NEURON_NQ_HDR_TYPE_MASK} << 24 | 0xffu);
	// k * 0x10001 adds the id into bits 23:16, under the type in 28:24
	// (the type's copy shifted past bit 31 is lost): one multiply
	return (k * 0x10001u) >> 16;
}

constexpr uint32_t entry_key(uint8_t header, uint8_t error_id)
{
	return static_cast<uint32_t>(header & NEURON_NQ_HDR_TYPE_MASK) << 8 | error_id;
}

static_assert(entry_key(0x9fu << 24 | 0xabcd07u) == 0x1f07);
static_assert(entry_key(uint8_t{0xe3}, uint8_t{5}) == 0x305);

constexpr uint8_t lane_of(uint32_t key)
{
	nrt_infer_errors_t e{};
	if (add_entry(e, static_cast<uint8_t>(key >> 8), static_cast<uint8_t>(key)) != 0)
		return lane_malformed;
	for (uint8_t s = 0; s < NRT_INFER_ERROR_SUBTYPE_MAX; s++)
		if (e.infer_error_flags[s])
			return s;
	for (uint8_t h = 1; h < NRT_HW_FAULT_SLOTS; h++)
		if (e.hw_error_flags[h])
			return static_cast<uint8_t>(lane_malformed + h);
	return lane_malformed;	// unreachable: an accepted entry sets a flag
}

inline constexpr auto entry_lane = [] {
	std::array<uint8_t, size_t{1} << entry_key_bits> t{};
	for (uint32_t k = 0; k < t.size(); k++)
		t[k] = lane_of(k);
	return t;
}();

static_assert(entry_lane[entry_key(NEURON_NQ_NOTIFIC_TPB_ERROR, NEURON_TPB_ERROR_FP_NAN)] ==
	      NRT_INFER_ERROR_SUBTYPE_NUMERICAL);
static_assert(entry_lane[entry_key(NEURON_NQ_NOTIFIC_TPB_ERROR, 11)] ==
	      NRT_INFER_ERROR_SUBTYPE_NONE);
static_assert(entry_lane[entry_key(NEURON_NQ_NOTIFIC_TPB_ERROR, 12)] == lane_malformed);
static_assert(entry_lane[entry_key(NEURON_NQ_NOTIFIC_ERROR, NEURON_NQ_HW_HBM_UE)] ==
	      lane_malformed + NEURON_NQ_HW_HBM_UE);
static_assert(entry_lane[entry_key(NEURON_NQ_NOTIFIC_ERROR, 0)] == lane_malformed);
static_assert(entry_lane[entry_key(NEURON_NQ_NOTIFIC_DMA, 1)] == lane_malformed);

constexpr uint32_t add_saturated(uint32_t a, uint32_t b)
{
	uint64_t s = uint64_t{a} + b;
	return s > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(s);
}

// Fold @n entries into @e given which lanes they hit (bit l + 1 of
// @lane_bits for lane l; bit 0 stands for malformed entries, of which there
// were @bad): what add_entry() on each entry (SW-overflow bit clear) would
// have left. The ring drain's vector decoders (nq.cpp) count this way.
constexpr void add_lane_bits(nrt_infer_errors_t &e, uint32_t lane_bits, uint32_t bad, uint32_t n)
{
	for (uint32_t s = 0; s < NRT_INFER_ERROR_SUBTYPE_MAX; s++)
		e.infer_error_flags[s] = (lane_bits >> (s + 1)) & 1 ? 1 : e.infer_error_flags[s];
	for (uint32_t h = 1; h < NRT_HW_FAULT_SLOTS; h++)
		e.hw_error_flags[h] = (lane_bits >> (lane_malformed + h + 1)) & 1 ? 1 : e.hw_error_flags[h];
	e.entries = add_saturated(e.entries, n - bad);
	e.malformed = add_saturated(e.malformed, bad);
}

// The same from per-lane entry counts (the scalar decoder's).
constexpr void add_lane_counts(nrt_infer_errors_t &e, const uint8_t (&count)[lane_count],
			       uint32_t n)
{
	uint32_t bits = 0;
	for (uint32_t l = 0; l < lane_count; l++)
		bits |= count[l] ? uint32_t{1} << (l + 1) : 0;
	add_lane_bits(e, bits, count[lane_malformed], n);
}

constexpr NRT_STATUS collapse(const nrt_infer_errors_t &e, bool numerical_armed)
{
	std::array<NRT_STATUS, NRT_HW_FAULT_SLOTS + 3> cand{};
	size_t n = 0;
	for (uint32_t h = NEURON_NQ_HW_COLLECTIVES; h < NEURON_NQ_HW_COUNT; h++)
		if (e.hw_error_flags[h])
			cand[n++] = hw_status[h];
	bool fails = false;
	for (uint32_t s = 0; s < NRT_INFER_ERROR_SUBTYPE_MAX; s++)
		fails |= e.infer_error_flags[s] && subtype_fails(s);
	if (fails)
		cand[n++] = NRT_EXEC_COMPLETED_WITH_ERR;
	if (e.nq_overflow)
		cand[n++] = NRT_EXEC_SW_NQ_OVERFLOW;
	if (numerical_armed && e.infer_error_flags[NRT_INFER_ERROR_SUBTYPE_NUMERICAL])
		cand[n++] = NRT_EXEC_COMPLETED_WITH_NUM_ERR;
	return status::fold(cand.data(), n);
}

// Whether @e has any flag set (a subtype, the overflow, a hardware
// fault): its first 16 bytes, read as two words at run time.
static_assert(offsetof(nrt_infer_errors_t, entries) == 16 &&
		      NRT_INFER_ERROR_SUBTYPE_MAX + 1 + NRT_HW_FAULT_SLOTS == 16,
	      "the flags, and only they, are the first 16 bytes");
constexpr bool any_flag(const nrt_infer_errors_t &e)
{
	if (std::is_constant_evaluated()) {
		bool any = e.nq_overflow;
		for (uint8_t f : e.infer_error_flags)
			any |= f != 0;
		for (uint8_t f : e.hw_error_flags)
			any |= f != 0;
		return any;
	}
	uint64_t w[2];
	std::memcpy(w, &e, sizeof(w));
	return (w[0] | w[1]) != 0;
}

// An execution's status: its job ioctl's and what its ring decoded, folded
// (nrt_status_fold of { exec, nrt_infer_errors_status }), inline for the
// execution paths. A successful job without a flag is the common case,
// and the fold of it is NRT_SUCCESS: no loop over the flags, and no call,
// for it (fold_job_status() is the rest).
constexpr NRT_STATUS fold_job_status(NRT_STATUS exec, const nrt_infer_errors_t &e, bool numerical_armed)
{
	const NRT_STATUS s[2] = { exec, collapse(e, numerical_armed) };
	return status::fold(s, 2);
}

[[gnu::always_inline]] constexpr NRT_STATUS job_status(NRT_STATUS exec, const nrt_infer_errors_t &e,
							bool numerical_armed)
{
	// one branch: each costs about as much as an add under emulation
	if ((exec != NRT_SUCCESS) | any_flag(e))
		return fold_job_status(exec, e, numerical_armed);
	return NRT_SUCCESS;
}

// A decimal integer other than zero: optional sign, then digits only.
constexpr bool nonzero_integer(const char *s)
{
	if (!s)
		return false;
	if (*s == '+' || *s == '-')
		s++;
	if (!*s)
		return false;
	bool nonzero = false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		nonzero |= *s != '0';
	}
	return nonzero;
}

constexpr bool numerical_armed(const char *fail_on_nan, const char *verbosity)
{
	return nonzero_integer(fail_on_nan) && !(verbosity && text::ieq(verbosity, "none"));
}

// ---- compile-time checks ----------------------------------------------

constexpr NRT_STATUS collapse_of_tpb(uint32_t tpb, bool armed)
{
	nrt_infer_errors_t e{};
	add_tpb(e, tpb);
	return collapse(e, armed);
}

static_assert(collapse_of_tpb(NEURON_TPB_ERROR_FP_NAN, true) == NRT_EXEC_COMPLETED_WITH_NUM_ERR);
// the straight path of job_status() is the fold's answer
static_assert(collapse(nrt_infer_errors_t{}, true) == NRT_SUCCESS &&
	      status::fold(std::array<NRT_STATUS, 2>{}.data(), 2) == NRT_SUCCESS);
static_assert(collapse_of_tpb(NEURON_TPB_ERROR_FP_NAN, false) == NRT_SUCCESS);
static_assert(collapse_of_tpb(NEURON_TPB_ERROR_SEQUENCER_NONFATAL, true) == NRT_SUCCESS);
static_assert(collapse_of_tpb(NEURON_TPB_ERROR_PSUM_COLLISION, false) == NRT_EXEC_COMPLETED_WITH_ERR);
static_assert(numerical_armed("1", nullptr) && numerical_armed("-7", "error"));
static_assert(!numerical_armed("1", "NONE") && !numerical_armed("0", nullptr) &&
	      !numerical_armed(nullptr, nullptr) && !numerical_armed("1x", nullptr) &&
	      !numerical_armed("", nullptr) && !numerical_armed("+", nullptr));

} // namespace nrt::decode
