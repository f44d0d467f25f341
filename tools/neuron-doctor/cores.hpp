// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// NEURON_RT_VISIBLE_CORES as nrt_init() reads it, and the NeuronCore lists
// neuron-doctor's findings name (cores.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tools::doctor {

// The list nrt_init() accepts, parsed by the same code (common/neuron_cores):
// pieces "A" or "A-B" separated by commas, together one ascending run with
// no gap ("3", "3-6", "3,4,5", "3-4,5"), every core below @total. Empty:
// all cores.
struct core_run {
	bool ok = false;
	uint32_t first = 0;
	uint32_t count = 0;
	std::string why;	// when !ok: what nrt_init() objects to
};

core_run parse_visible_cores(std::string_view s, uint32_t total);

std::string range_text(uint32_t first, uint32_t count);

std::string ids_text(const std::vector<int> &ids);

} // namespace tools::doctor
