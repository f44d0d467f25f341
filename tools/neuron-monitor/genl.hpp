// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-monitor with --counters/--events: the "neuron" generic netlink
// family's status counters of every NeuronCore (text, JSON, Prometheus)
// and its "errors" event group; on a driver without the family the
// counters come from sysfs (genl.cpp).
#pragma once

#include "options.hpp"

namespace tools::monitor::genl {

// The counters and/or events @opt asks for, as main.cpp checked them:
// 0 ok, 1 a netlink or kernel error (one line on stderr).
int run(const Options &opt);

} // namespace tools::monitor::genl
