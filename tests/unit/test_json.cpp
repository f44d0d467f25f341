// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The tools' JSON reader and string escaper (tools/common/json.hpp): RFC
// 8259 documents with every escape, the malformed ones refused.
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
extern "C" {
#include <cmocka.h>
}

#include "common/json.hpp"

namespace j = tools::json;

static bool parses(const char *text, j::value &v)
{
	j::parser p(text);
	return p.parse(v);
}

static void json_reader(void **)
{
	j::value v;
	assert_true(parses("{\"a\": [1, -2.5e3, true, null, \"x\\u00e9\\ud83d\\ude00\"]}", v));
	const j::value *a = v.get("a");
	assert_non_null(a);
	assert_int_equal(a->arr.size(), 5);
	assert_true(a->arr[1].num == -2500.0);
	assert_string_equal(a->arr[4].str.c_str(), "x\xc3\xa9\xf0\x9f\x98\x80");
	for (const char *bad : { "", "{", "[1,]", "{\"a\" 1}", "01", "\"\\x\"", "tru", "{} x",
				 "\"a\nb\"", "[\"\\ud800\"]" })
		assert_false(parses(bad, v));
	assert_string_equal(j::quote("a\"b\\\n\x01").c_str(), "\"a\\\"b\\\\\\n\\u0001\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_reader),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
