// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// The processes that have a Neuron device open and the NeuronCores each
// holds, as the driver lists them (NEURON_IOCTL_APPS_INFO through
// ndl_get_all_apps_info()), and who holds each NeuronCore since when
// (NEURON_IOCTL_CORE_HOLDERS). neuron-ls prints them; neuron-doctor checks
// that each is alive and running. Shared by the tools (apps.cpp).
#pragma once

#include <ndl/ndl.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tools::apps {

struct process {
	int pid;
	std::string command;
	std::vector<int> nc_ids;	// global NeuronCore ids
};

// The first line of @path, without its newline ("" when unreadable).
std::string read_line(const std::string &path);

// The process's command line (arguments joined by spaces), else its comm;
// @proc is where procfs is mounted.
std::string command_of(int pid, const std::string &proc = "/proc");

// The processes with @dev open, this one left out (it opened the device
// to ask), in the driver's order; the NeuronCores each holds as global ids
// counted from @first_nc, the device's first. 0, or a negative errno.
int holders(ndl_device_t *dev, int first_nc, std::vector<process> &out);

// Who holds one NeuronCore (NEURON_IOCTL_CORE_HOLDERS): the process that
// reserved it and every process that can still use it through one of its
// files (a forked child keeps it), since when, in which cgroup.
struct core_holding {
	int nc = 0;			// global NeuronCore id
	bool held = false;
	int owner_pid = 0;		// 0: free, or in a pid namespace we cannot see
	bool owner_exited = false;
	bool owner_hidden = false;
	uint64_t since_ns = 0;		// CLOCK_BOOTTIME
	std::vector<int> pids;		// the holders we can see
	unsigned total = 0;		// holders, seen and hidden
	unsigned hidden = 0;		// in pid namespaces we cannot see
};

// The process's cgroup as /proc/<pid>/cgroup gives it (the unified
// hierarchy's "0::" line, else the first line's path); "" when unreadable.
std::string cgroup_of(int pid, const std::string &proc = "/proc");

// NeuronCore @nc of the device open on @fd, @global its global id. 0, or a
// negative errno (-ENOTTY: a driver without CORE_HOLDERS).
int core_holders(int fd, unsigned nc, int global, core_holding &out);

// Seconds a reservation made at @since_ns (CLOCK_BOOTTIME) has lasted, and
// the wall-clock time it was made at (UTC, seconds since the epoch).
void held_for(uint64_t since_ns, uint64_t &seconds, int64_t &at_epoch);

} // namespace tools::apps
