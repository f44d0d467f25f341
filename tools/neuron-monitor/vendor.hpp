// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-monitor without --counters/--events: the vendor's report stream,
// one report per period (JSON, or the Prometheus companion's metrics) of
// what the applications' NDS slabs, sysfs, /proc and the instance
// metadata service say (vendor.cpp; the report itself is vendor_report.hpp).
#pragma once

#include "options.hpp"

namespace tools::monitor::vendor {

// Reports until --count of them or SIGINT/SIGTERM: 0 ok, 1 an error (one
// line on stderr).
int run(const Options &opt);

} // namespace tools::monitor::vendor
