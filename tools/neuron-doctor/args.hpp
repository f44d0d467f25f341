// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-doctor's command line (args.cpp).
#pragma once

#include <string>

namespace tools::doctor {

struct options {
	bool json = false;
	bool help = false;
	bool kmsg = true;
	std::string root = "/";
};

// False with @err (one line) on a bad argument.
bool parse_args(int argc, char **argv, options &o, std::string &err);

} // namespace tools::doctor
