/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// What the execution paths account per job beyond kmetric_record_execution()
// (kmetric.cpp).
#pragma once

#include <nrt/kmetric.h>
#include <nrt/nrt_error_model.h>

namespace nrt::kmetric {

// One job's two latency histograms: the total time, and the device's
// time when the device ran the job (@ran). Nothing when @inst is not a
// writable instance (what nds_record_latency() refuses).
void record_latencies(nds_instance_t *inst, uint64_t total_ns, uint64_t device_ns, bool ran);

} // namespace nrt::kmetric
