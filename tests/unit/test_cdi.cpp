// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The CDI spec neuron-ls --cdi writes (tools/neuron-ls/cdi.hpp), parsed
// back with the JSON reader, and the scan of a directory without nodes.
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>
extern "C" {
#include <cmocka.h>
}

#include "common/json.hpp"
#include "neuron-ls/cdi.hpp"

namespace j = tools::json;

static bool parses(const char *text, j::value &v)
{
	j::parser p(text);
	return p.parse(v);
}

// neuron-ls --cdi's spec for nodes given here (the schema check of a
// scanned tree is scripts/test-cdi.sh).
static void cdi_spec(void **)
{
	namespace c = tools::cdi;
	std::vector<c::node> nodes = {
		{ 0, "/dev/neuron0", "/dev/neuron0", 240, 0 },
		{ 3, "/tmp/t/neuron3", "/dev/neuron3", 240, 3 },
	};
	j::value v;
	assert_true(parses(c::spec_json(nodes).c_str(), v));
	assert_string_equal(v.get("cdiVersion")->str.c_str(), "0.5.0");
	assert_string_equal(v.get("kind")->str.c_str(), "aws.amazon.com/neuron");
	const j::value *devs = v.get("devices");
	assert_non_null(devs);
	assert_int_equal(devs->arr.size(), 3);
	const char *names[] = { "0", "3", "all" };
	size_t counts[] = { 1, 1, 2 };
	for (size_t i = 0; i < 3; i++) {
		assert_string_equal(devs->arr[i].get("name")->str.c_str(), names[i]);
		const j::value *dn = devs->arr[i].get("containerEdits")->get("deviceNodes");
		assert_int_equal(dn->arr.size(), counts[i]);
	}
	const j::value &n0 = devs->arr[0].get("containerEdits")->get("deviceNodes")->arr[0];
	assert_string_equal(n0.get("path")->str.c_str(), "/dev/neuron0");
	assert_null(n0.get("hostPath"));	// the same as path: left out
	assert_string_equal(n0.get("type")->str.c_str(), "c");
	assert_true(n0.get("major")->num == 240 && n0.get("minor")->num == 0);
	const j::value &n3 = devs->arr[2].get("containerEdits")->get("deviceNodes")->arr[1];
	assert_string_equal(n3.get("path")->str.c_str(), "/dev/neuron3");
	assert_string_equal(n3.get("hostPath")->str.c_str(), "/tmp/t/neuron3");
	assert_true(n3.get("minor")->num == 3);

	// a directory with no Neuron node scans to nothing, without error
	std::vector<c::node> found;
	std::string err;
	assert_true(c::scan("/proc/self", found, err));
	assert_int_equal(found.size(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cdi_spec),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
