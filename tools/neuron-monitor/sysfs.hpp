// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// The small readers of sysfs and /proc files both of neuron-monitor's
// modes use (sysfs.cpp).
#pragma once

#include <cstdint>
#include <string>

namespace tools::monitor {

// The first line of @path, without its newline ("" when unreadable).
std::string first_line(const std::string &path);

// The number at the start of @path into @v; false when there is none.
bool read_u64(const std::string &path, uint64_t &v);

// /sys/class/neuron_device/neuron<index>
std::string sysfs_dev(int index);

} // namespace tools::monitor
