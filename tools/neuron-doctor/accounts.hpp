// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// The users and groups of the tree neuron-doctor checks: its /etc/passwd
// and /etc/group, and the system's own databases when the tree is /
// (accounts.cpp).
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tree.hpp"

namespace tools::doctor {

struct user_entry {
	std::string name;
	gid_t gid = 0;
};

struct group_entry {
	std::string name;
	gid_t gid = 0;
	std::vector<std::string> members;
};

std::vector<std::string> split(std::string_view s, char sep);

bool parse_id(const std::string &s, unsigned long &v);

std::optional<user_entry> user_of(const context &c, uid_t uid);

std::optional<group_entry> group_of(const context &c, gid_t gid);

std::string user_name(const context &c, uid_t uid);

std::string group_name(const context &c, gid_t gid);

// What open(O_RDWR) decides from the mode bits (ACLs and the device cgroup
// aside): root always; the owner by the owner bits; a member of the group
// by the group bits; anyone else by the other bits.
bool can_read_write(const struct stat &st, uid_t uid, gid_t gid, const std::vector<gid_t> &groups);

std::string mode_text(const context &c, const struct stat &st);

} // namespace tools::doctor
