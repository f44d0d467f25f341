// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-doctor's passwd/group parser and the mode-bit access rule (accounts.hpp).
#include "accounts.hpp"

#include <grp.h>
#include <pwd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace tools::doctor {

std::vector<std::string> split(std::string_view s, char sep)
{
	std::vector<std::string> out;
	size_t b = 0;
	for (size_t i = 0; i <= s.size(); i++)
		if (i == s.size() || s[i] == sep) {
			out.emplace_back(s.substr(b, i - b));
			b = i + 1;
		}
	return out;
}

bool parse_id(const std::string &s, unsigned long &v)
{
	if (s.empty() || s.size() > 10 || s.find_first_not_of("0123456789") != std::string::npos)
		return false;
	v = std::stoul(s);
	return true;
}

std::optional<user_entry> user_of(const context &c, uid_t uid)
{
	std::ifstream f(under(c, "/etc/passwd"));
	std::string line;
	while (std::getline(f, line)) {
		auto fl = split(line, ':');
		unsigned long u, g;
		if (fl.size() >= 4 && parse_id(fl[2], u) && parse_id(fl[3], g) && u == uid)
			return user_entry{ fl[0], static_cast<gid_t>(g) };
	}
	if (under(c, "/") == "/") {
		if (const struct passwd *pw = ::getpwuid(uid))
			return user_entry{ pw->pw_name, pw->pw_gid };
	}
	return std::nullopt;
}

std::optional<group_entry> group_of(const context &c, gid_t gid)
{
	std::ifstream f(under(c, "/etc/group"));
	std::string line;
	while (std::getline(f, line)) {
		auto fl = split(line, ':');
		unsigned long g;
		if (fl.size() >= 3 && parse_id(fl[2], g) && g == gid) {
			group_entry e{ fl[0], gid, {} };
			if (fl.size() >= 4 && !fl[3].empty())
				e.members = split(fl[3], ',');
			return e;
		}
	}
	if (under(c, "/") == "/") {
		if (const struct group *gr = ::getgrgid(gid)) {
			group_entry e{ gr->gr_name, gid, {} };
			for (char **m = gr->gr_mem; m && *m; m++)
				e.members.emplace_back(*m);
			return e;
		}
	}
	return std::nullopt;
}

std::string user_name(const context &c, uid_t uid)
{
	auto u = user_of(c, uid);
	return u ? u->name : std::to_string(uid);
}

std::string group_name(const context &c, gid_t gid)
{
	auto g = group_of(c, gid);
	return g ? g->name : std::to_string(gid);
}

bool can_read_write(const struct stat &st, uid_t uid, gid_t gid, const std::vector<gid_t> &groups)
{
	if (uid == 0)
		return true;
	if (st.st_uid == uid)
		return (st.st_mode & (S_IRUSR | S_IWUSR)) == (S_IRUSR | S_IWUSR);
	if (st.st_gid == gid || std::find(groups.begin(), groups.end(), st.st_gid) != groups.end())
		return (st.st_mode & (S_IRGRP | S_IWGRP)) == (S_IRGRP | S_IWGRP);
	return (st.st_mode & (S_IROTH | S_IWOTH)) == (S_IROTH | S_IWOTH);
}

std::string mode_text(const context &c, const struct stat &st)
{
	char m[8];
	std::snprintf(m, sizeof(m), "%04o", static_cast<unsigned>(st.st_mode & 07777));
	return std::string(m) + " " + user_name(c, st.st_uid) + ":" + group_name(c, st.st_gid);
}

} // namespace tools::doctor
