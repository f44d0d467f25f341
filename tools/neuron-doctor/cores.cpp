// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-doctor's reading of NEURON_RT_VISIBLE_CORES (cores.hpp), through
// common/neuron_cores, the parser nrt_init() uses.
#include "cores.hpp"

extern "C" {
#include "neuron_cores.h"
}

namespace tools::doctor {

core_run parse_visible_cores(std::string_view s, uint32_t total)
{
	neuron_cores_result res;
	core_run r;

	if (!neuron_parse_cores(s.data(), s.size(), total, &res)) {
		r.ok = true;
		r.first = res.first;
		r.count = res.count;
		return r;
	}
	switch (res.error) {
	case NEURON_CORES_NUMBER:
		r.why = "malformed at offset " + std::to_string(res.at) + " (expected a core number)";
		break;
	case NEURON_CORES_NUMBER_AFTER_DASH:
		r.why = "malformed at offset " + std::to_string(res.at) +
			" (expected a core number after '-')";
		break;
	case NEURON_CORES_BACKWARDS:
		r.why = "the range " + std::string(s.substr(res.piece, res.at - res.piece)) +
			" runs backwards";
		break;
	case NEURON_CORES_TOO_HIGH:
		r.why = "names NeuronCore " + std::to_string(res.core) + " but there " +
			(total == 1 ? "is 1" : "are " + std::to_string(total)) +
			(total ? " (0-" + std::to_string(total - 1) + ")" : "");
		break;
	case NEURON_CORES_GAP:
		r.why = "is not one ascending run without gaps (" + std::to_string(res.core) +
			" after " + std::to_string(res.last) + ")";
		break;
	case NEURON_CORES_SEPARATOR:
	default:
		r.why = "malformed at offset " + std::to_string(res.at) + " (expected ',' or '-')";
		break;
	}
	return r;
}

std::string range_text(uint32_t first, uint32_t count)
{
	if (count == 1)
		return std::to_string(first);
	return std::to_string(first) + "-" + std::to_string(first + count - 1);
}

std::string ids_text(const std::vector<int> &ids)
{
	std::string o;
	for (size_t i = 0; i < ids.size(); i++)
		o += (i ? "," : "") + std::to_string(ids[i]);
	return o.empty() ? "none" : o;
}

} // namespace tools::doctor
