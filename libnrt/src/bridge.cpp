// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// C ABI of the result -> NDS counter bridge, and the counter naming of
// common/neuron_counters for tools that only link libnrt.so.
#include <nrt/nrt_error_model.h>

#include "bridge.hpp"
#include "export.hpp"

extern "C" {
#include "neuron_counters.h"
}

using namespace nrt;

NRT_EXPORT int nrt_bridge_generic_status_counter(NRT_STATUS status)
{
	return bridge::generic_counter(static_cast<uint32_t>(status));
}

NRT_EXPORT int nrt_bridge_hw_status_counter(NRT_STATUS status)
{
	return bridge::hw_counter(static_cast<uint32_t>(status));
}

NRT_EXPORT int nrt_bridge_outcome_counter(NRT_STATUS status)
{
	return bridge::outcome_counter(static_cast<uint32_t>(status));
}

NRT_EXPORT int nrt_bridge_error_stats_counters(const nrt_infer_errors_t *errs,
					       uint32_t out_ids[], size_t cap)
{
	if (!errs)
		return -1;
	int n = 0;
	for (uint32_t s = 0; s < NRT_INFER_ERROR_SUBTYPE_MAX; s++) {
		int id = bridge::subtype_counter(s);
		if (id < 0 || !errs->infer_error_flags[s])
			continue;
		if (out_ids && static_cast<size_t>(n) < cap)
			out_ids[n] = static_cast<uint32_t>(id);
		n++;
	}
	return n;
}

NRT_EXPORT size_t nrt_bridge_counters_for_execution(NRT_STATUS final_status,
						    const nrt_infer_errors_t *errs,
						    uint32_t out_ids[], size_t cap)
{
	bridge::id_mask m = bridge::exec_counters(static_cast<uint32_t>(final_status), errs);
	size_t n = 0;
	for (uint32_t id = 0; m; id++, m >>= 1) {
		if (!(m & 1))
			continue;
		if (out_ids && n < cap)
			out_ids[n] = id;
		n++;
	}
	return n;
}

NRT_EXPORT size_t nrt_bridge_time_counters(const nrt_exec_times_t *times,
					   nrt_counter_add_t out[], size_t cap)
{
	if (!times)
		return 0;
	const auto adds = bridge::time_adds(*times);
	for (size_t i = 0; i < NRT_BRIDGE_TIME_COUNTERS && i < cap && out; i++)
		out[i] = adds[i];
	return NRT_BRIDGE_TIME_COUNTERS;
}

NRT_EXPORT bool nrt_bridge_counter_info(uint32_t id, nrt_counter_info_t *out)
{
	const char *name = neuron_nc_counter_name(id);
	if (!name || !out)
		return false;
	out->id = id;
	out->cw_id = neuron_nc_counter_cw_id(id);
	out->name = name;
	out->sysfs_group = nullptr;
	out->sysfs_attr = nullptr;
	if (const neuron_status_attr *a = neuron_status_attr_by_counter(id)) {
		out->sysfs_group = "status";
		out->sysfs_attr = a->name;
	} else if (const neuron_other_attr *o = neuron_other_attr_by_counter(id)) {
		out->sysfs_group = "other_info";
		out->sysfs_attr = o->name;
	}
	return true;
}
