// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// The runtime -> kernel counter bridge wired to a real slab: the pure maps
// of bridge.cpp decide which counters move; this file moves them.
#include <nrt/kmetric.h>
#include <nrt/nrt_error_model.h>

#include <neuron/neuron_nds.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

#include "bridge.hpp"
#include "decode.hpp"
#include "export.hpp"
#include "kmetric.hpp"
#include "nds_internal.hpp"

using namespace nrt;

// Every kmetric_* call checks its target first (nds::nc_target): -EINVAL
// for a bad instance or NeuronCore, -EPERM when read-only, whether or not
// a counter moves.

NRT_EXPORT int kmetric_update_nds_generic_status(nds_instance_t *inst, int nc, NRT_STATUS status)
{
	int ret = nds::nc_target(inst, nc);
	if (ret)
		return ret;
	int id = nrt_bridge_generic_status_counter(status);
	if (id < 0)
		return 0;	// the map skips this status
	return nds::nc_add(inst, nc, static_cast<uint32_t>(id), 1);
}

NRT_EXPORT int kmetric_update_nds_error_stats(nds_instance_t *inst, int nc,
					      const nrt_infer_errors_t *errs,
					      const nrt_exec_times_t *times)
{
	if (!errs && !times)
		return -EINVAL;
	int ret = nds::nc_target(inst, nc);
	if (ret)
		return ret;
	if (errs) {
		uint32_t ids[NRT_INFER_ERROR_SUBTYPE_MAX];
		int n = nrt_bridge_error_stats_counters(errs, ids, NRT_INFER_ERROR_SUBTYPE_MAX);
		for (int i = 0; i < n; i++) {
			ret = nds::nc_add(inst, nc, ids[i], 1);
			if (ret)
				return ret;
		}
	}
	if (times) {
		nrt_counter_add_t adds[NRT_BRIDGE_TIME_COUNTERS];
		size_t n = nrt_bridge_time_counters(times, adds, NRT_BRIDGE_TIME_COUNTERS);
		for (size_t i = 0; i < n; i++) {
			ret = nds::nc_add(inst, nc, adds[i].id, adds[i].value);
			if (ret)
				return ret;
		}
	}
	return 0;
}

NRT_EXPORT int kmetric_record_execution(nds_instance_t *inst, int nc, NRT_STATUS final_status,
					const nrt_infer_errors_t *errs,
					const nrt_exec_times_t *times)
{
	int ret = nds::nc_target(inst, nc);	// so a bad @nc writes nothing at all
	if (ret)
		return ret;
	// every execution: @inst and @nc are checked once above,
	// the adds go straight to the cells, a clean execution's errors are
	// not looked at flag by flag, and a time that adds 0 is not added.
	// The ids are nrt_bridge_counters_for_execution()'s, in its order.
	bridge::id_mask m = bridge::status_counters(static_cast<uint32_t>(final_status));
	if (errs && decode::any_flag(*errs))
		m |= bridge::error_counters(errs);
	for (; m; m &= m - 1)
		nds::nc_add_checked(inst, nc, static_cast<uint32_t>(__builtin_ctzll(m)), 1);
	nds::nc_add_checked(inst, nc, NDS_NC_COUNTER_INFERENCE_COUNT, 1);
	if (times) {
		for (const auto &a : bridge::time_adds(*times))
			if (a.value)
				nds::nc_add_checked(inst, nc, a.id, a.value);
	}
	return 0;
}
