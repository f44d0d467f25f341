/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// The NRT_STATUS master table and the functions over the whole 32-bit
// value space (name, band, priority). constexpr so the other error-model
// tables can static_assert that every status they produce is assigned.
#pragma once

#include <nrt/nrt_error_model.h>
#include <nrt/nrt_status.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace nrt::status {

struct code_info {
	NRT_STATUS code;
	const char *name;	// the bare identifier, what as_str returns
	nrt_status_band_t band;
	int priority;		// master-table column; must agree with priority()
};

#define NRT_CODE(c, band, prio) code_info{ c, #c, NRT_STATUS_BAND_##band, prio }

// Ascending by value: enum values and names from the runtime's DWARF enum,
// priority column from the seed's master table.
inline constexpr std::array<code_info, NRT_STATUS_CODE_COUNT> codes = { {
	NRT_CODE(NRT_SUCCESS, GENERAL, 0),
	NRT_CODE(NRT_FAILURE, GENERAL, 1),
	NRT_CODE(NRT_INVALID, GENERAL, 1),
	NRT_CODE(NRT_INVALID_HANDLE, GENERAL, 1),
	NRT_CODE(NRT_RESOURCE, GENERAL, 1),
	NRT_CODE(NRT_TIMEOUT, GENERAL, 2),
	NRT_CODE(NRT_HW_ERROR, GENERAL, 2),
	NRT_CODE(NRT_QUEUE_FULL, GENERAL, 1),
	NRT_CODE(NRT_LOAD_NOT_ENOUGH_NC, GENERAL, 1),
	NRT_CODE(NRT_UNSUPPORTED_NEFF_VERSION, GENERAL, 1),
	NRT_CODE(NRT_FAIL_HOST_MEM_ALLOC, GENERAL, 1),
	NRT_CODE(NRT_UNINITIALIZED, GENERAL, 1),
	NRT_CODE(NRT_CLOSED, GENERAL, 1),
	NRT_CODE(NRT_QUEUE_EMPTY, GENERAL, 1),
	NRT_CODE(NRT_EXEC_UNIT_UNRECOVERABLE, EXEC_UNIT, 1),
	NRT_CODE(NRT_EXEC_BAD_INPUT, EXEC, 1),
	NRT_CODE(NRT_EXEC_COMPLETED_WITH_NUM_ERR, EXEC, 1),
	NRT_CODE(NRT_EXEC_COMPLETED_WITH_ERR, EXEC, 3),
	NRT_CODE(NRT_EXEC_NC_BUSY, EXEC, 1),
	NRT_CODE(NRT_EXEC_OOB, EXEC, 1),
	NRT_CODE(NRT_COLL_PENDING, COLL_PENDING, 1),
	NRT_CODE(NRT_EXEC_HW_ERR_COLLECTIVES, HW_EXEC, 3),
	NRT_CODE(NRT_EXEC_HW_ERR_HBM_UE, HW_EXEC, 3),
	NRT_CODE(NRT_EXEC_HW_ERR_NC_UE, HW_EXEC, 3),
	NRT_CODE(NRT_EXEC_HW_ERR_DMA_ABORT, HW_EXEC, 3),
	NRT_CODE(NRT_EXEC_SW_NQ_OVERFLOW, HW_EXEC, 2),
	NRT_CODE(NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE, HW_EXEC, 3),
	NRT_CODE(NRT_NETWORK_PROXY_FAILURE, HW_EXEC, 2),
} };

#undef NRT_CODE

// The numeric ranges of the bands. A value inside a range that is not an
// assigned code (8, 12) still has no band.
struct band_range {
	uint32_t lo, hi;
	nrt_status_band_t band;
};

inline constexpr std::array<band_range, 5> bands = { {
	{ 0, 15, NRT_STATUS_BAND_GENERAL },
	{ 101, 101, NRT_STATUS_BAND_EXEC_UNIT },
	{ 1002, 1006, NRT_STATUS_BAND_EXEC },
	{ 1100, 1100, NRT_STATUS_BAND_COLL_PENDING },
	{ 1200, 1206, NRT_STATUS_BAND_HW_EXEC },
} };

inline constexpr size_t band_slots = [] {
	size_t n = 0;
	for (const auto &b : bands)
		n += b.hi - b.lo + 1;
	return n;
}();

// Dense index: slot of (value - range.lo + range offset) -> index into
// codes, -1 for a hole. Derived from the two tables above.
inline constexpr std::array<int8_t, band_slots> slot_index = [] {
	std::array<int8_t, band_slots> s{};
	size_t off = 0;
	for (const auto &b : bands) {
		for (uint32_t v = b.lo; v <= b.hi; v++) {
			int8_t idx = -1;
			for (size_t i = 0; i < codes.size(); i++)
				if (static_cast<uint32_t>(codes[i].code) == v)
					idx = static_cast<int8_t>(i);
			s[off + (v - b.lo)] = idx;
		}
		off += b.hi - b.lo + 1;
	}
	return s;
}();

// Index into codes of @v, or -1.
constexpr int index_of(uint32_t v)
{
	size_t off = 0;
	for (const auto &b : bands) {
		if (v - b.lo <= b.hi - b.lo)	// unsigned: lo <= v <= hi
			return slot_index[off + (v - b.lo)];
		off += b.hi - b.lo + 1;
	}
	return -1;
}

constexpr bool is_valid(uint32_t v)
{
	return index_of(v) >= 0;
}

constexpr const char *as_str(uint32_t v)
{
	int i = index_of(v);
	return i < 0 ? "UNKNOWN" : codes[static_cast<size_t>(i)].name;
}

constexpr nrt_status_band_t band(uint32_t v)
{
	int i = index_of(v);
	return i < 0 ? NRT_STATUS_BAND_UNKNOWN : codes[static_cast<size_t>(i)].band;
}

// The vendor nrt_get_status_priority, gate by gate (unsigned compares).
constexpr int priority(uint32_t s)
{
	if (s == NRT_EXEC_COMPLETED_WITH_ERR)
		return 3;
	if (s <= NRT_EXEC_COMPLETED_WITH_ERR) {
		if (s == NRT_SUCCESS)
			return 0;
		return (s - 5u < 2u) ? 2 : 1;	// 5, 6
	}
	if (s == NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE)
		return 3;
	if (s > NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE)
		return s == NRT_NETWORK_PROXY_FAILURE ? 2 : 1;
	if (s == NRT_EXEC_SW_NQ_OVERFLOW)
		return 2;
	if (s >= NRT_EXEC_HW_ERR_COLLECTIVES)
		return 3;	// 1200..1203
	return 1;		// 1005..1199
}

// Fold with the documented tie rule: the first of equal priority wins.
constexpr NRT_STATUS fold(const NRT_STATUS *s, size_t n)
{
	NRT_STATUS best = NRT_SUCCESS;
	int best_prio = -1;
	for (size_t i = 0; i < n; i++) {
		int p = priority(static_cast<uint32_t>(s[i]));
		if (p > best_prio) {
			best = s[i];
			best_prio = p;
		}
	}
	return best;
}

// ---- compile-time checks of the tables --------------------------------

constexpr bool codes_sorted_unique()
{
	for (size_t i = 1; i < codes.size(); i++)
		if (!(static_cast<uint32_t>(codes[i - 1].code) < static_cast<uint32_t>(codes[i].code)))
			return false;
	return true;
}

constexpr bool codes_in_their_band()
{
	for (const auto &c : codes) {
		bool found = false;
		for (const auto &b : bands)
			if (static_cast<uint32_t>(c.code) >= b.lo &&
			    static_cast<uint32_t>(c.code) <= b.hi)
				found = (b.band == c.band);
		if (!found)
			return false;
	}
	return true;
}

constexpr bool priority_column_matches()
{
	for (const auto &c : codes)
		if (priority(static_cast<uint32_t>(c.code)) != c.priority)
			return false;
	return true;
}

constexpr bool every_code_indexed()
{
	for (size_t i = 0; i < codes.size(); i++)
		if (index_of(static_cast<uint32_t>(codes[i].code)) != static_cast<int>(i))
			return false;
	size_t valid = 0;
	for (int8_t s : slot_index)
		valid += s >= 0;
	return valid == codes.size();
}

constexpr bool names_are_prefixed()
{
	for (const auto &c : codes)
		if (!(c.name[0] == 'N' && c.name[1] == 'R' && c.name[2] == 'T' && c.name[3] == '_'))
			return false;
	return true;
}

static_assert(codes.size() == 28, "28 assigned codes");
static_assert(names_are_prefixed(), "every name starts with NRT_");
static_assert(codes_sorted_unique(), "codes ascending and unique");
static_assert(codes_in_their_band(), "each code inside its band's range");
static_assert(priority_column_matches(), "priority column == verbatim model");
static_assert(every_code_indexed(), "dense index covers exactly the codes");
static_assert(band_slots == 30, "0..15, 101, 1002..1006, 1100, 1200..1206");
static_assert(!is_valid(8) && !is_valid(12) && !is_valid(16) && !is_valid(1207),
	      "holes have no code");
static_assert(priority(1004) > priority(1206), "rank is not monotonic in value");
static_assert(priority(0xffffffffu) == 1, "past 1206 -> 1");

} // namespace nrt::status
