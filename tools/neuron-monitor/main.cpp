// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-monitor: the vendor's report stream (no --counters/--events:
// one JSON report per period, or the Prometheus companion's metrics), and
// our netlink views: the status counters of every NeuronCore and the
// "errors" event group of the "neuron" generic netlink family. The two
// modes are vendor.cpp and genl.cpp; this is the command line.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "common/parse_num.hpp"
#include "genl.hpp"
#include "options.hpp"
#include "vendor.hpp"

namespace {

using tools::monitor::Format;
using tools::monitor::Options;

void usage(FILE *out)
{
	std::fputs("usage: neuron-monitor [-c|--config FILE] [--prometheus] [--count N]\n"
		   "       neuron-monitor [--counters] [--events] [--json] [--prometheus]\n"
		   "                      [--device N [--core K]] [--count N] [--help]\n"
		   "Without --counters/--events: the vendor's report stream. Every period one\n"
		   "complete JSON report on one line (neuron_runtime_data, system_data,\n"
		   "instance_info, neuron_hardware_info); per-application data from each\n"
		   "process's NDS slab, read-only, as deltas over the period (an application\n"
		   "is tagged by NEURON_PROCESS_TAG, else its pid).\n"
		   "  -c, --config FILE  the vendor's configuration (period, neuron_runtimes with\n"
		   "                tag_filter and metrics, system_metrics); default: every\n"
		   "                metric group every 5 s\n"
		   "  --prometheus  instead of JSON, the Prometheus companion's metrics in the\n"
		   "                text exposition format, one block per period, blank line after\n"
		   "  --count N     stop after N reports (default: run until killed)\n"
		   "instance_info comes from the EC2 instance metadata service, asked once at\n"
		   "start (IMDSv2, else IMDSv1; at most 3 s); NEURON_MONITOR_IMDS_ADDR=IPv4:PORT\n"
		   "asks another address than 169.254.169.254:80 (tests).\n"
		   "With --counters/--events: the \"neuron\" generic netlink family; on a\n"
		   "driver without it (the vendor's), --counters reads the same totals from\n"
		   "sysfs and --events fails.\n"
		   "  --counters    the 24 status counters of every NeuronCore, live totals\n"
		   "  --events      subscribe to the \"errors\" group, one line per event;\n"
		   "                \"neuron-monitor: subscribed\" goes to stderr once listening\n"
		   "  --json        JSON (counters: one object; events: one object per line)\n"
		   "  --prometheus  counters in Prometheus text exposition format\n"
		   "  --device N    only /dev/neuron<N>;  --core K  only its NeuronCore K\n"
		   "  --count N     with --events: exit after N events\n"
		   "Exit status: 0 ok, 1 a netlink or kernel error (one line on stderr),\n"
		   "2 bad usage.\n",
		   out);
}

// decimal (a leading 0 is not octal)
bool parse_num(const char *s, long max, long *out)
{
	uint64_t v;
	if (max < 0 || !tools::parse_uint(s, static_cast<uint64_t>(max), v))
		return false;
	*out = static_cast<long>(v);
	return true;
}

} // namespace

int main(int argc, char **argv)
{
	Options opt;
	for (int i = 1; i < argc; i++) {
		std::string_view a = argv[i];
		auto num = [&](long max, long *out) {
			if (i + 1 >= argc || !parse_num(argv[i + 1], max, out)) {
				std::fprintf(stderr, "neuron-monitor: %s needs a number 0..%ld (see --help)\n",
					     argv[i], max);
				return false;
			}
			i++;
			return true;
		};
		if (a == "-c" || a == "--config") {
			if (i + 1 >= argc) {
				std::fprintf(stderr, "neuron-monitor: %s needs a file (see --help)\n", argv[i]);
				return 2;
			}
			opt.config = argv[++i];
		} else if (a == "--counters") {
			opt.counters = true;
		} else if (a == "--events") {
			opt.events = true;
		} else if (a == "--json") {
			opt.format = Format::Json;
		} else if (a == "--prometheus") {
			opt.format = Format::Prometheus;
		} else if (a == "--count") {
			if (!num(1L << 30, &opt.count))
				return 2;
		} else if (a == "--device") {
			if (!num(UINT32_MAX, &opt.device))
				return 2;
		} else if (a == "--core") {
			if (!num(UINT32_MAX, &opt.core))
				return 2;
		} else if (a == "--help" || a == "-h") {
			usage(stdout);
			return 0;
		} else {
			std::fprintf(stderr, "neuron-monitor: unknown argument '%s' (see --help)\n", argv[i]);
			return 2;
		}
	}
	if (!opt.counters && !opt.events) {
		// the report stream covers every device; say so rather than ignore them
		if (opt.device >= 0 || opt.core >= 0) {
			std::fprintf(stderr, "neuron-monitor: --device and --core apply to --counters/--events, not the report stream\n");
			return 2;
		}
		return tools::monitor::vendor::run(opt);
	}
	if (opt.config) {
		std::fprintf(stderr, "neuron-monitor: -c applies to the report stream, not --counters/--events\n");
		return 2;
	}
	if (opt.core >= 0 && opt.device < 0) {
		std::fprintf(stderr, "neuron-monitor: --core needs --device\n");
		return 2;
	}
	if (opt.events && opt.format == Format::Prometheus) {
		std::fprintf(stderr, "neuron-monitor: --prometheus applies to --counters only\n");
		return 2;
	}
	return tools::monitor::genl::run(opt);
}
