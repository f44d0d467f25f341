// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// The processes holding a Neuron device and its NeuronCores (apps.hpp):
// the driver's lists, /proc for their command lines and cgroups.
#include "apps.hpp"
#include "read_all.hpp"

#include <neuron/neuron_ioctl.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <sys/ioctl.h>
#include <unistd.h>

namespace tools::apps {

std::string read_line(const std::string &path)
{
	std::ifstream f(path);
	std::string line;
	std::getline(f, line);
	return line;
}

std::string command_of(int pid, const std::string &proc)
{
	std::string dir = proc + "/" + std::to_string(pid);
	std::string raw;
	// a process reaped after the open fails the read (ESRCH): no command line
	if (tools::read_all(dir + "/cmdline", raw) != 0)
		raw.clear();
	while (!raw.empty() && raw.back() == '\0')
		raw.pop_back();
	for (char &c : raw)
		if (c == '\0')
			c = ' ';
	if (!raw.empty())
		return raw;
	return read_line(dir + "/comm");
}

int holders(ndl_device_t *dev, int first_nc, std::vector<process> &out)
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

std::string cgroup_of(int pid, const std::string &proc)
{
	std::ifstream f(proc + "/" + std::to_string(pid) + "/cgroup");
	std::string line, first;
	while (std::getline(f, line)) {
		if (line.rfind("0::", 0) == 0)
			return line.substr(3);
		if (first.empty()) {
			size_t c = line.find(':', line.find(':') + 1);
			if (c != std::string::npos)
				first = line.substr(c + 1);
		}
	}
	return first;
}

int core_holders(int fd, unsigned nc, int global, core_holding &out)
{
	neuron_core_holders h{};
	h.size = sizeof(h);
	h.nc = nc;
	if (::ioctl(fd, NEURON_IOCTL_CORE_HOLDERS, &h) != 0)
		return -errno;
	out = core_holding{};
	out.nc = global;
	out.held = h.state == NEURON_CORE_HELD;
	out.owner_pid = h.owner_pid;
	out.owner_exited = h.owner_flags & NEURON_CORE_OWNER_EXITED;
	out.owner_hidden = h.owner_flags & NEURON_CORE_OWNER_HIDDEN;
	out.since_ns = h.since_ns;
	out.pids.assign(h.pid, h.pid + (h.count <= NEURON_CORE_HOLDERS_MAX ? h.count : 0));
	out.total = h.total;
	out.hidden = h.hidden;
	return 0;
}

void held_for(uint64_t since_ns, uint64_t &seconds, int64_t &at_epoch)
{
	timespec boot{}, real{};
	::clock_gettime(CLOCK_BOOTTIME, &boot);
	::clock_gettime(CLOCK_REALTIME, &real);
	uint64_t now = static_cast<uint64_t>(boot.tv_sec) * 1000000000ull +
		       static_cast<uint64_t>(boot.tv_nsec);
	uint64_t age = now > since_ns ? now - since_ns : 0;
	seconds = age / 1000000000ull;
	at_epoch = static_cast<int64_t>(real.tv_sec) - static_cast<int64_t>(seconds);
}

} // namespace tools::apps
