// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-doctor's view of the system: the devices it checks and the
// context every check reads through (tree.cpp). Every path is read under
// context::root (a fake tree in the unit tests), and what comes from the
// caller (uid, groups, the environment, stat() of the nodes, the driver's
// process list) is injected through the context.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/apps.hpp"

namespace tools::doctor {

struct device {
	int index;
	std::string sysdir;	// /sys/class/neuron_device/neuron<N> (as seen in the system)
	int cores;		// core_count; -1 when it cannot be read
	int first_nc;		// global id of its NeuronCore 0: devices in index order
};

struct context {
	std::string root = "/";		// where the system's / is (tests: a fake tree)
	uid_t uid = 0;			// the caller, for the device nodes' modes
	gid_t gid = 0;
	std::vector<gid_t> groups;	// supplementary groups
	std::optional<std::string> visible_cores;	// NEURON_RT_VISIBLE_CORES
	bool read_kmsg = true;
	// stat() of a path under root; ::stat when empty (tests fake the nodes'
	// type, mode, owner and numbers, which a test cannot create)
	std::function<int(const std::string &, struct stat &)> stat_fn;
	// The processes holding device d: false with err set when the list
	// cannot be had. Empty: not checked (it needs the driver's ioctl, so
	// the tool leaves it out under another --root).
	std::function<bool(const device &d, std::vector<apps::process> &out, std::string &err)>
		list_holders;
	// Who holds each NeuronCore of device d (CORE_HOLDERS); empty, or
	// false, when the driver cannot say (the check then goes by pid only).
	std::function<bool(const device &d, std::vector<apps::core_holding> &out, std::string &err)>
		list_cores;
	// Whether process @pid exists though its /proc entry cannot be read
	// (another user's under hidepid=): kill(pid, 0). Empty: a process
	// whose stat cannot be read is gone.
	std::function<bool(int pid)> pid_exists;
};

// @path (absolute, as seen in the system) under c.root
std::string under(const context &c, std::string_view path);

bool read_line_at(const context &c, std::string_view path, std::string &out);

// A decimal file: its value, or nullopt when missing or not a number.
std::optional<uint64_t> read_u64(const context &c, std::string_view path);

bool exists_at(const context &c, std::string_view path);

bool is_dir_at(const context &c, std::string_view path);

// The entries of a directory (names only), sorted; empty when unreadable.
std::vector<std::string> list_dir(const context &c, std::string_view path, bool dirs_only = false);

int stat_at(const context &c, const std::string &path, struct stat &st);

} // namespace tools::doctor
