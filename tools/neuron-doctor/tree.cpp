// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-doctor's file layer (tree.hpp): every path under context::root.
#include "tree.hpp"

#include "common/parse_num.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace tools::doctor {

std::string under(const context &c, std::string_view path)
{
	std::string r = c.root;
	while (r.size() > 1 && r.back() == '/')
		r.pop_back();
	if (r.empty() || r == "/")
		return std::string(path);
	return r + std::string(path);
}

bool read_line_at(const context &c, std::string_view path, std::string &out)
{
	std::ifstream f(under(c, path));
	if (!f)
		return false;
	out.clear();
	std::getline(f, out);
	while (!out.empty() && (out.back() == '\r' || out.back() == ' ' || out.back() == '\t'))
		out.pop_back();
	return !f.bad();
}

std::optional<uint64_t> read_u64(const context &c, std::string_view path)
{
	std::string s;
	if (!read_line_at(c, path, s) || s.empty())
		return std::nullopt;
	uint64_t v;
	if (!tools::parse_uint(s, UINT64_MAX, v))
		return std::nullopt;
	return v;
}

bool exists_at(const context &c, std::string_view path)
{
	std::error_code ec;
	return std::filesystem::exists(under(c, path), ec);
}

bool is_dir_at(const context &c, std::string_view path)
{
	std::error_code ec;
	return std::filesystem::is_directory(under(c, path), ec);
}

std::vector<std::string> list_dir(const context &c, std::string_view path, bool dirs_only)
{
	std::vector<std::string> out;
	std::error_code ec;
	std::filesystem::directory_iterator it(under(c, path), ec), end;
	for (; !ec && it != end; it.increment(ec)) {
		std::error_code ec2;
		if (dirs_only && (it->is_symlink(ec2) || !it->is_directory(ec2)))
			continue;
		out.push_back(it->path().filename().string());
	}
	std::sort(out.begin(), out.end());
	return out;
}

int stat_at(const context &c, const std::string &path, struct stat &st)
{
	std::string p = under(c, path);
	if (c.stat_fn)
		return c.stat_fn(p, st);
	return ::stat(p.c_str(), &st);
}

} // namespace tools::doctor
