// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// nrt-status --explain's class/action table (tools/nrt-status/
// status_explain.hpp): one row per assigned code, the lookup by number or
// name, the text and JSON forms.
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
extern "C" {
#include <cmocka.h>
}

#include "common/json.hpp"
#include "nrt-status/status_explain.hpp"

namespace j = tools::json;

static bool parses(const char *text, j::value &v)
{
	j::parser p(text);
	return p.parse(v);
}

// Every NRT_STATUS value the vendor assigns (the 28 codes of the reference
// catalogue, docs/error-model.md), written out here rather than taken from
// the library, so a code the library lost or gained shows up as well.
static const uint32_t seed_codes[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 13, 14, 15, 101,
	1002, 1003, 1004, 1005, 1006, 1100,
	1200, 1201, 1202, 1203, 1204, 1205, 1206,
};

static void explain_table_complete(void **)
{
	namespace x = tools::explain;
	assert_int_equal(sizeof(seed_codes) / sizeof(seed_codes[0]), 28);
	// no code missing, none twice
	for (uint32_t c : seed_codes) {
		size_t rows = 0;
		for (const x::entry &e : x::table)
			rows += e.code == c;
		assert_int_equal(rows, 1);
	}
	// none extra
	for (const x::entry &e : x::table) {
		bool in_seed = false;
		for (uint32_t c : seed_codes)
			in_seed |= e.code == c;
		assert_true(in_seed);
		assert_true(nrt_status_is_valid(static_cast<NRT_STATUS>(e.code)));
		assert_non_null(e.why);
		assert_true(std::strlen(e.why) > 0);
		assert_true(std::strlen(e.action) > 0);
		// success alone is no failure
		assert_true((e.cls == x::failure_class::none) == (e.code == 0));
	}
	assert_int_equal(x::table_size, NRT_STATUS_CODE_COUNT);
	// the library's own list agrees, index by index
	NRT_STATUS s;
	for (size_t i = 0; nrt_status_code_at(i, &s); i++)
		assert_int_equal(x::table[i].code, static_cast<uint32_t>(s));
}

static void explain_output(void **)
{
	namespace x = tools::explain;
	const x::entry *e = nullptr;
	std::string why;

	// a name, with or without the prefix, any case; a number; 0x hex
	for (const char *arg : { "NRT_EXEC_HW_ERR_DMA_ABORT", "exec_hw_err_dma_abort",
				 "Nrt_Exec_Hw_Err_Dma_Abort", "1203", "0x4b3" }) {
		e = nullptr;
		assert_true(x::lookup(arg, &e, why));
		assert_non_null(e);
		assert_int_equal(e->code, 1203);
	}
	assert_true(e->cls == x::failure_class::hardware);
	assert_string_equal(x::to_text(*e).c_str(),
			    "NRT_EXEC_HW_ERR_DMA_ABORT (1203)\n"
			    "  class:    hardware: a fault of the Neuron device itself\n"
			    "  because:  the error model says \"1203 is a DMA-engine abort\", one of \"the "
			    "four hardware faults\"\n"
			    "  action:   RESTART_JOB; if it repeats on the same device, take the "
			    "device out of service\n"
			    "  priority: 3 (0..3, higher wins when statuses race)\n");

	// the classes of a few codes, each for the reason its row gives
	struct {
		const char *arg;
		x::failure_class cls;
	} const want[] = {
		{ "SUCCESS", x::failure_class::none },
		{ "invalid", x::failure_class::user_input },
		{ "EXEC_BAD_INPUT", x::failure_class::user_input },
		{ "NRT_TIMEOUT", x::failure_class::transient },
		{ "coll_pending", x::failure_class::transient },
		{ "EXEC_SW_NQ_OVERFLOW", x::failure_class::transient },
		{ "NETWORK_PROXY_FAILURE", x::failure_class::transient },
		{ "RESOURCE", x::failure_class::resource },
		{ "EXEC_NC_BUSY", x::failure_class::resource },
		{ "EXEC_COMPLETED_WITH_ERR", x::failure_class::execution },
		{ "HW_ERROR", x::failure_class::hardware },
		{ "EXEC_UNIT_UNRECOVERABLE", x::failure_class::hardware },
		{ "EXEC_HW_ERR_REPAIRABLE_HBM_UE", x::failure_class::hardware },
	};
	for (const auto &w : want) {
		assert_true(x::lookup(w.arg, &e, why));
		assert_true(e->cls == w.cls);
	}

	// JSON: the same fields, parsed back
	assert_true(x::lookup("1100", &e, why));
	j::value v;
	assert_true(parses(x::to_json(*e).c_str(), v));
	assert_true(v.get("value")->num == 1100);
	assert_string_equal(v.get("name")->str.c_str(), "NRT_COLL_PENDING");
	assert_string_equal(v.get("class")->str.c_str(), "transient");
	assert_string_equal(v.get("action")->str.c_str(), "the collective has not finished: poll again");
	assert_true(v.get("retry")->b);
	assert_true(v.get("priority")->num == 1);
	assert_non_null(v.get("because"));
	assert_non_null(v.get("class_text"));

	// what names no assigned code, each with its one-line reason
	struct {
		const char *arg;
		const char *why;
	} const bad[] = {
		{ "8", "8 is not an assigned NRT_STATUS code" },
		{ "1207", "1207 is not an assigned NRT_STATUS code" },
		{ "UNKNOWN", "'UNKNOWN' names no NRT_STATUS code" },
		{ "NRT_", "'NRT_' names no NRT_STATUS code" },
		{ "-1", "'-1' names no NRT_STATUS code" },
		{ "12x", "'12x' is not a status number" },
		{ "99999999999", "'99999999999' is not a status number" },
	};
	for (const auto &b : bad) {
		e = nullptr;
		assert_false(x::lookup(b.arg, &e, why));
		assert_null(e);
		assert_string_equal(why.c_str(), b.why);
		assert_null(std::strchr(why.c_str(), '\n'));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(explain_table_complete),
		cmocka_unit_test(explain_output),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
