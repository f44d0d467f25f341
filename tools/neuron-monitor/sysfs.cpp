// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-monitor's file readers (sysfs.hpp).
#include "sysfs.hpp"

#include <fstream>

#include "common/parse_num.hpp"

namespace tools::monitor {

std::string first_line(const std::string &path)
{
	std::ifstream f(path);
	std::string l;
	std::getline(f, l);
	return l;
}

bool read_u64(const std::string &path, uint64_t &v)
{
	std::ifstream f(path);
	std::string l;
	if (!std::getline(f, l))
		return false;
	// one decimal number: no sign, nothing else on the line
	return tools::parse_uint(l, UINT64_MAX, v);
}

std::string sysfs_dev(int index)
{
	return "/sys/class/neuron_device/neuron" + std::to_string(index);
}

} // namespace tools::monitor
