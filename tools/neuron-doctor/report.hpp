// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-doctor's walk of every check and its report: the first broken
// link, the status, the exit code, as text or JSON (report.cpp).
#pragma once

#include <string>
#include <vector>

#include "checks.hpp"
#include "tree.hpp"

namespace tools::doctor {

const char *json_name(severity s);

const char *text_tag(severity s);

struct report {
	std::vector<finding> findings;
	int first = -1;		// index of the first broken link, -1 when none
	severity status = severity::ok;
};

report run(const context &c);

// 0 ok, 1 warnings only, 2 errors, 4 no fault found but some checks could
// not be made (3, usage or internal error, is main's)
int exit_code(const report &r);

const char *status_name(const report &r);

// "health, fw_io": the checks that could not be made
std::string unknown_checks(const report &r);

std::string to_text(const report &r);

std::string finding_json(const finding &f);

std::string to_json(const report &r);

} // namespace tools::doctor
