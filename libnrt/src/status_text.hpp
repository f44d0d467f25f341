/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// Allocation-free name matching shared by the error-model lookups
// (status names, syscall sites, errno names).
#pragma once

#include <cstddef>

namespace nrt::text {

constexpr char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// Case-insensitive equality of two NUL-terminated strings.
constexpr bool ieq(const char *a, const char *b)
{
	while (*a && lower(*a) == lower(*b)) {
		a++;
		b++;
	}
	return lower(*a) == lower(*b);
}

// @s past a case-insensitive @prefix, or @s itself when it does not start
// with it.
constexpr const char *skip_prefix(const char *s, const char *prefix)
{
	const char *p = s;
	while (*prefix) {
		if (lower(*p) != lower(*prefix))
			return s;
		p++;
		prefix++;
	}
	return p;
}

static_assert(ieq("NRT_exec_OOB", "nrt_EXEC_oob"));
static_assert(!ieq("NRT_EXEC", "NRT_EXEC_OOB"));
static_assert(ieq(skip_prefix("nrt_exec_oob", "NRT_"), "EXEC_OOB"));
static_assert(ieq(skip_prefix("EXEC_OOB", "NRT_"), "EXEC_OOB"));

} // namespace nrt::text
