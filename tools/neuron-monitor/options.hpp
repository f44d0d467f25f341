// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-monitor's command line, as main.cpp parses it for both of its
// modes: the vendor's report stream (vendor.hpp) and the "neuron" generic
// netlink family's counters and events (genl.hpp).
#pragma once

namespace tools::monitor {

enum class Format { Text, Json, Prometheus };

struct Options {
	const char *config = nullptr;	// vendor mode: -c FILE
	bool counters = false;
	bool events = false;
	Format format = Format::Text;
	long count = -1;	// events to wait for; -1: forever
	long device = -1;	// --device filter
	long core = -1;		// --core (needs --device): a single "do" request
};

} // namespace tools::monitor
