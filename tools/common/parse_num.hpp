// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// A number from the command line, exactly: decimal digits (or, where a
// tool's help says so, "0x" and hex digits), nothing before or after, no
// sign, no octal from a leading 0, and in range.
#pragma once

#include <charconv>
#include <cstdint>
#include <string_view>
#include <system_error>

namespace tools {

// @s as a number <= @max into @out; false, with @out untouched, when it
// is not one. With @hex, "0x" or "0X" followed by hex digits is one too.
inline bool parse_uint(std::string_view s, uint64_t max, uint64_t &out, bool hex = false)
{
	int base = 10;
	if (hex && s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s.remove_prefix(2);
		base = 16;
	}
	if (s.empty() || s.find_first_not_of(base == 16 ? "0123456789abcdefABCDEF" : "0123456789") !=
				 std::string_view::npos)
		return false;
	uint64_t v = 0;
	auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
	if (ec != std::errc() || end != s.data() + s.size() || v > max)
		return false;
	out = v;
	return true;
}

} // namespace tools
