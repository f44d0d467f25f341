// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// The processes that have a Neuron device open and the NeuronCores each
// holds, as the driver lists them (NEURON_IOCTL_APPS_INFO through
// ndl_get_all_apps_info()). neuron-ls prints them; neuron-doctor checks
// that each is alive and running. Header only, like the tools' other
// shared parts.
#pragma once

#include <ndl/ndl.h>
#include <neuron/neuron_ioctl.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

namespace tools::apps {

struct process {
	int pid;
	std::string command;
	std::vector<int> nc_ids;	// global NeuronCore ids
};

// The first line of @path, without its newline ("" when unreadable).
inline std::string read_line(const std::string &path)
{
	std::ifstream f(path);
	std::string line;
	std::getline(f, line);
	return line;
}

// The process's command line (arguments joined by spaces), else its comm;
// @proc is where procfs is mounted.
inline std::string command_of(int pid, const std::string &proc = "/proc")
{
	std::string dir = proc + "/" + std::to_string(pid);
	std::ifstream f(dir + "/cmdline", std::ios::binary);
	std::string raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
	while (!raw.empty() && raw.back() == '\0')
		raw.pop_back();
	for (char &c : raw)
		if (c == '\0')
			c = ' ';
	if (!raw.empty())
		return raw;
	return read_line(dir + "/comm");
}

// The processes with @dev open, this one left out (it opened the device
// to ask), in the driver's order; the NeuronCores each holds as global ids
// counted from @first_nc, the device's first. 0, or a negative errno.
inline int holders(ndl_device_t *dev, int first_nc, std::vector<process> &out)
{
	neuron_app_info *apps = nullptr;
	size_t n = 0;
	int ret = ndl_get_all_apps_info(dev, &apps, &n, APP_INFO_PID_NC_LOCK_INFO);
	if (ret)
		return ret;
	try {
		for (size_t i = 0; i < n; i++) {
			if (apps[i].pid == ::getpid())
				continue;
			process p{ apps[i].pid, command_of(apps[i].pid), {} };
			for (int k = 0; k < 8; k++)
				if (apps[i].nc_lock_map & (1u << k))
					p.nc_ids.push_back(first_nc + k);
			out.push_back(std::move(p));
		}
	} catch (...) {
		std::free(apps);
		throw;
	}
	std::free(apps);
	return 0;
}

} // namespace tools::apps
