// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-doctor's command line (args.hpp).
#include "args.hpp"

#include <string_view>

namespace tools::doctor {

bool parse_args(int argc, char **argv, options &o, std::string &err)
{
	for (int i = 1; i < argc; i++) {
		std::string_view a = argv[i];
		if (a == "--json" || a == "-j") {
			o.json = true;
		} else if (a == "--no-kmsg") {
			o.kmsg = false;
		} else if (a == "--help" || a == "-h") {
			o.help = true;
		} else if (a == "--root") {
			if (i + 1 >= argc || argv[i + 1][0] == '\0') {
				err = "--root needs a directory (see --help)";
				return false;
			}
			o.root = argv[++i];
		} else if (a.rfind("--root=", 0) == 0) {
			if (a.size() == 7) {
				err = "--root needs a directory (see --help)";
				return false;
			}
			o.root = std::string(a.substr(7));
		} else {
			err = "unknown argument '" + std::string(a) + "' (see --help)";
			return false;
		}
	}
	return true;
}

} // namespace tools::doctor
