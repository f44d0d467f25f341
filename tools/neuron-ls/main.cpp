// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-ls: list Neuron devices the way the vendor's neuron-ls does
// (table by default, -j/--json-output for the JSON array Ray and others
// parse, --topology), plus what this driver reports (backend, ABI, caps);
// --cdi writes a Container Device Interface spec for the device nodes.
#include <ndl/ndl.h>
#include <neuron/neuron_ioctl.h>

#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <ctime>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <vector>

#include "cdi.hpp"
#include "common/apps.hpp"
#include "common/json.hpp"
#include "common/parse_num.hpp"

namespace {

constexpr const char *kClassDir = "/sys/class/neuron_device";

void usage(FILE *out)
{
	std::fputs("usage: neuron-ls [-j|--json-output|--output-format json] [-t|--topology] [--help]\n"
		   "       neuron-ls --cdi [--dev-dir DIR]\n"
		   "       neuron-ls --take-back DEVICE:CORE\n"
		   "List the Neuron devices: index, NeuronCores and their ids, memory,\n"
		   "connected devices, PCI BDF, CPU affinity, NUMA node and the processes\n"
		   "using each device (pid, command, NeuronCores held); then each held\n"
		   "NeuronCore: since when, the process that reserved it, every process\n"
		   "that can still use it (a forked child keeps a core held after its\n"
		   "parent exits) and their cgroups. Processes in pid namespaces this one\n"
		   "cannot see are counted, never named.\n"
		   "  -j, --json-output  a JSON array, one object per device (the vendor's\n"
		   "                     schema: neuron_device, bdf, cpu_affinity, numa_node,\n"
		   "                     connected_to, nc_count, memory_size, neuroncore_ids,\n"
		   "                     neuron_processes; plus backend, driver_version,\n"
		   "                     abi_version, capabilities, device_type)\n"
		   "      --json         the same as --json-output\n"
		   "      --output-format FORMAT\n"
		   "                     table (the default) or json: the vendor's newer\n"
		   "                     spelling of -j; its json is -j's array (the\n"
		   "                     vendor's layout under this option is not public)\n"
		   "  -t, --topology     the links between devices, one line per device\n"
		   "      --cdi          a Container Device Interface spec (CDI 0.5.0, JSON,\n"
		   "                     kind aws.amazon.com/neuron) for /etc/cdi: one CDI\n"
		   "                     device per /dev/neuron<N>, named <N>, and \"all\";\n"
		   "                     each node's major/minor from stat(). Needs only the\n"
		   "                     device nodes, not the driver's sysfs\n"
		   "      --dev-dir DIR  with --cdi: look for neuron<N> in DIR instead of /dev\n"
		   "                     (the spec's hostPath says where; the container path\n"
		   "                     stays /dev/neuron<N>)\n"
		   "      --take-back DEVICE:CORE\n"
		   "                     (root) take NeuronCore CORE (0-based, of the device)\n"
		   "                     of /dev/neuron<DEVICE> from the process holding it,\n"
		   "                     for a holder that is stuck: its next use of the\n"
		   "                     core fails (NRT_EXEC_NC_BUSY), what it counted on it\n"
		   "                     is folded into the totals as at its exit, and the\n"
		   "                     kernel log names who took what from whom\n"
		   "A simulated device has no PCI address: its bdf is the placeholder\n"
		   "\"ffff:00:<N>.0\" (PCI domain ffff, never a real function; N in hex).\n"
		   "Exit status: 0 ok; 1 no driver, no device, or a device could not be\n"
		   "queried, or (--cdi) a neuron<N> that is not a character device, or\n"
		   "(--take-back) the core could not be taken (one line on stderr, nothing\n"
		   "on stdout); 2 bad usage.\n",
		   out);
}

using tools::apps::core_holding;
using tools::apps::process;
using tools::apps::read_line;

struct device {
	int index = 0;
	ndl_device_info_t info{};
	int device_type = 0;
	std::vector<int> connected;
	bool has_links_file = false;
	std::string bdf;
	std::string cpu_affinity;
	std::string numa_node;
	uint64_t memory_size = 0;
	int first_nc = 0;
	std::vector<process> procs;
	bool cores_known = false;		// the driver has CORE_HOLDERS
	std::vector<core_holding> cores;	// every NeuronCore, held or not
};

const char *backend_name(unsigned b)
{
	switch (b) {
	case NDL_BACKEND_SIM:
		return "sim";
	case NDL_BACKEND_PCI:
		return "pci";
	default:
		return "unknown";
	}
}

std::string ids_text(const std::vector<int> &ids, const char *sep)
{
	std::string o;
	for (size_t i = 0; i < ids.size(); i++)
		o += (i ? sep : "") + std::to_string(ids[i]);
	return o;
}

std::string ids_json(const std::vector<int> &ids)
{
	return "[" + ids_text(ids, ", ") + "]";
}

int query(int index, int first_nc, device &d, std::string &err)
{
	ndl_device_t *dev = nullptr;
	int ret = ndl_open_device(index, nullptr, &dev);
	if (ret) {
		err = "/dev/neuron" + std::to_string(index) + ": " + std::strerror(-ret);
		return ret;
	}
	d.index = dev->device_index;
	d.info = *ndl_device_get_info(dev);
	d.device_type = dev->device_type;
	d.connected.assign(dev->connected_devices, dev->connected_devices + dev->connected_device_count);
	d.memory_size = dev->hbm_size;
	d.first_nc = first_nc;
	std::string dir = std::string(kClassDir) + "/neuron" + std::to_string(index);
	d.has_links_file = ::access((dir + "/connected_devices").c_str(), R_OK) == 0;
	if (d.info.backend == NDL_BACKEND_SIM) {
		char bdf[32];
		std::snprintf(bdf, sizeof(bdf), "ffff:00:%02x.0", index & 0xff);
		d.bdf = bdf;
	}
	d.numa_node = "-1";
	d.cpu_affinity = read_line("/sys/devices/system/cpu/online");

	ret = tools::apps::holders(dev, first_nc, d.procs);
	d.cores_known = d.info.capabilities & NEURON_CAP_CORE_HOLDERS;
	for (uint32_t k = 0; !ret && d.cores_known && k < d.info.nc_count; k++) {
		core_holding c;
		ret = tools::apps::core_holders(ndl_device_fd(dev), k, first_nc + static_cast<int>(k), c);
		d.cores.push_back(std::move(c));
	}
	ndl_close_device(dev);
	if (ret) {
		err = "/dev/neuron" + std::to_string(index) + ": listing processes: " +
		      std::strerror(-ret);
		return ret;
	}
	return 0;
}

std::string utc_text(int64_t epoch)
{
	time_t t = static_cast<time_t>(epoch);
	struct tm tm {};
	char buf[32];
	if (!::gmtime_r(&t, &tm) || !std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return "?";
	return buf;
}

std::string duration_text(uint64_t s)
{
	char buf[40];
	if (s >= 86400)
		std::snprintf(buf, sizeof(buf), "%llud%lluh", static_cast<unsigned long long>(s / 86400),
			      static_cast<unsigned long long>(s % 86400 / 3600));
	else if (s >= 3600)
		std::snprintf(buf, sizeof(buf), "%lluh%llum", static_cast<unsigned long long>(s / 3600),
			      static_cast<unsigned long long>(s % 3600 / 60));
	else if (s >= 60)
		std::snprintf(buf, sizeof(buf), "%llum%llus", static_cast<unsigned long long>(s / 60),
			      static_cast<unsigned long long>(s % 60));
	else
		std::snprintf(buf, sizeof(buf), "%llus", static_cast<unsigned long long>(s));
	return buf;
}

// "pid (exited)", "pid", or "hidden" for the process that reserved a core
std::string reserver_text(const core_holding &c)
{
	if (c.owner_hidden)
		return "hidden";
	return std::to_string(c.owner_pid) + (c.owner_exited ? " (exited)" : "");
}

std::string core_json(const core_holding &c)
{
	std::ostringstream o;
	o << "{\"neuroncore_id\": " << c.nc << ", \"held\": " << (c.held ? "true" : "false");
	if (c.held) {
		uint64_t secs = 0;
		int64_t at = 0;
		tools::apps::held_for(c.since_ns, secs, at);
		o << ", \"since\": " << tools::json::quote(utc_text(at))
		  << ", \"held_seconds\": " << secs << ", \"reserved_by\": {\"pid\": "
		  << (c.owner_hidden ? 0 : c.owner_pid)
		  << ", \"exited\": " << (c.owner_exited ? "true" : "false")
		  << ", \"hidden\": " << (c.owner_hidden ? "true" : "false") << "}, \"holders\": [";
		for (size_t i = 0; i < c.pids.size(); i++)
			o << (i ? ", " : "") << "{\"pid\": " << c.pids[i] << ", \"command\": "
			  << tools::json::quote(tools::apps::command_of(c.pids[i])) << ", \"cgroup\": "
			  << tools::json::quote(tools::apps::cgroup_of(c.pids[i])) << "}";
		o << "], \"hidden_holders\": " << c.hidden;
	}
	o << "}";
	return o.str();
}

std::string to_json(const std::vector<device> &devs)
{
	std::ostringstream o;
	o << "[\n";
	for (size_t i = 0; i < devs.size(); i++) {
		const device &d = devs[i];
		std::vector<int> ncs;
		for (uint32_t k = 0; k < d.info.nc_count; k++)
			ncs.push_back(d.first_nc + static_cast<int>(k));
		o << "  {\n"
		  << "    \"neuron_device\": " << d.index << ",\n"
		  << "    \"bdf\": " << tools::json::quote(d.bdf) << ",\n"
		  << "    \"cpu_affinity\": " << tools::json::quote(d.cpu_affinity) << ",\n"
		  << "    \"numa_node\": " << tools::json::quote(d.numa_node) << ",\n"
		  << "    \"connected_to\": "
		  << (d.connected.empty() ? std::string("null") : ids_json(d.connected)) << ",\n"
		  << "    \"nc_count\": " << d.info.nc_count << ",\n"
		  << "    \"memory_size\": " << d.memory_size << ",\n"
		  << "    \"neuroncore_ids\": " << ids_json(ncs) << ",\n"
		  << "    \"neuron_processes\": [";
		for (size_t p = 0; p < d.procs.size(); p++)
			o << (p ? ", " : "") << "{\"pid\": " << d.procs[p].pid
			  << ", \"command\": " << tools::json::quote(d.procs[p].command)
			  << ", \"neuroncore_ids\": " << ids_json(d.procs[p].nc_ids) << "}";
		o << "],\n";
		if (d.cores_known) {
			o << "    \"neuroncores\": [";
			for (size_t k = 0; k < d.cores.size(); k++)
				o << (k ? ",\n      " : "\n      ") << core_json(d.cores[k]);
			o << (d.cores.empty() ? "],\n" : "\n    ],\n");
		}
		o << "    \"device_type\": " << d.device_type << ",\n"
		  << "    \"backend\": \"" << backend_name(d.info.backend) << "\",\n"
		  << "    \"driver_version\": " << tools::json::quote(d.info.driver_version) << ",\n"
		  << "    \"abi_version\": " << d.info.abi_version << ",\n"
		  << "    \"capabilities\": " << d.info.capabilities << "\n"
		  << "  }" << (i + 1 < devs.size() ? "," : "") << "\n";
	}
	o << "]\n";
	return o.str();
}

// printf() of @fmt onto @o, however long the line
[[gnu::format(printf, 2, 3)]] void put_line(std::ostringstream &o, const char *fmt, ...)
{
	va_list ap, again;
	va_start(ap, fmt);
	va_copy(again, ap);
	char small[256];
	int n = std::vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n >= 0 && static_cast<size_t>(n) < sizeof(small)) {
		o << small;
	} else if (n >= 0) {
		std::string big(static_cast<size_t>(n) + 1, '\0');
		std::vsnprintf(big.data(), big.size(), fmt, again);
		big.resize(static_cast<size_t>(n));
		o << big;
	}
	va_end(again);
}

std::string to_table(const std::vector<device> &devs)
{
	std::ostringstream o;
	put_line(o, "%-8s %-6s %-10s %-14s %-12s %-14s %-9s %-12s %s\n",
		      "DEVICE", "CORES", "CORE IDS", "MEMORY", "CONNECTED", "BDF", "BACKEND",
		      "DRIVER", "PROCESSES");
	for (const device &d : devs) {
		std::string procs;
		for (const process &p : d.procs)
			procs += (procs.empty() ? "" : "; ") + std::to_string(p.pid) + " " +
				 p.command + " [" + ids_text(p.nc_ids, ",") + "]";
		std::string cores = std::to_string(d.first_nc) + "-" +
				    std::to_string(d.first_nc + static_cast<int>(d.info.nc_count) - 1);
		put_line(o, "%-8d %-6u %-10s %-14llu %-12s %-14s %-9s %-12s %s\n",
			      d.index, d.info.nc_count, cores.c_str(),
			      static_cast<unsigned long long>(d.memory_size),
			      d.connected.empty() ? "-" : ids_text(d.connected, ",").c_str(),
			      d.bdf.empty() ? "-" : d.bdf.c_str(), backend_name(d.info.backend),
			      d.info.driver_version, procs.empty() ? "-" : procs.c_str());
	}
	bool header = false;
	for (const device &d : devs) {
		for (const core_holding &c : d.cores) {
			if (!c.held)
				continue;
			if (!header) {
				put_line(o, "\n%-10s %-7s %-21s %-8s %-14s %s\n",
					      "NEURONCORE", "DEVICE", "HELD SINCE (UTC)", "FOR",
					      "RESERVED BY", "HOLDERS (pid command [cgroup])");
				header = true;
			}
			uint64_t secs = 0;
			int64_t at = 0;
			tools::apps::held_for(c.since_ns, secs, at);
			std::string holders;
			for (int pid : c.pids)
				holders += (holders.empty() ? "" : "; ") + std::to_string(pid) + " " +
					   tools::apps::command_of(pid) + " [" +
					   tools::apps::cgroup_of(pid) + "]";
			if (c.hidden)
				holders += (holders.empty() ? "" : "; ") + std::to_string(c.hidden) +
					   " in other pid namespaces";
			put_line(o, "%-10d %-7d %-21s %-8s %-14s %s\n", c.nc,
				      d.index, utc_text(at).c_str(), duration_text(secs).c_str(),
				      reserver_text(c).c_str(), holders.empty() ? "-" : holders.c_str());
		}
	}
	return o.str();
}

std::string to_topology(const std::vector<device> &devs)
{
	std::ostringstream o;
	for (const device &d : devs)
		o << "neuron" << d.index << ": "
		  << (d.connected.empty() ? std::string("no links") : "linked to " + ids_text(d.connected, ", "))
		  << "\n";
	return o.str();
}

int write_cdi(const std::string &dev_dir)
{
	std::vector<tools::cdi::node> nodes;
	std::string err;
	try {
		if (!tools::cdi::scan(dev_dir, nodes, err)) {
			std::fprintf(stderr, "neuron-ls: %s\n", err.c_str());
			return 1;
		}
		if (nodes.empty()) {
			std::fprintf(stderr, "neuron-ls: no Neuron device nodes in %s\n", dev_dir.c_str());
			return 1;
		}
		std::fputs(tools::cdi::spec_json(nodes).c_str(), stdout);
	} catch (const std::exception &e) {
		std::fprintf(stderr, "neuron-ls: %s\n", e.what());
		return 1;
	}
	return std::fflush(stdout) == 0 ? 0 : 1;
}

// "N:K" -> device N, NeuronCore K; false when malformed
bool parse_core(std::string_view a, int &dev, unsigned &nc)
{
	size_t colon = a.find(':');
	if (colon == std::string_view::npos || colon == 0 || colon + 1 == a.size() || a.size() > 16)
		return false;
	// decimal digits only, each number in range (no sign, no wrap)
	uint64_t d, k;
	if (!tools::parse_uint(a.substr(0, colon), MAX_NEURON_DEVICE_COUNT - 1, d) ||
	    !tools::parse_uint(a.substr(colon + 1), 63, k))
		return false;
	dev = static_cast<int>(d);
	nc = static_cast<unsigned>(k);
	return true;
}

int take_back(int index, unsigned nc)
{
	std::string path = "/dev/neuron" + std::to_string(index);
	int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		std::fprintf(stderr, "neuron-ls: %s: %s\n", path.c_str(), std::strerror(errno));
		return 1;
	}
	core_holding before;
	int ret = tools::apps::core_holders(fd, nc, static_cast<int>(nc), before);
	neuron_core_reserve arg{};
	arg.size = sizeof(arg);
	arg.nc = nc;
	if (ret == 0 && ::ioctl(fd, NEURON_IOCTL_CORE_TAKE_BACK, &arg) != 0)
		ret = -errno;
	::close(fd);
	switch (-ret) {
	case 0:
		std::printf("neuron-ls: NeuronCore %u of %s taken back from pid %s\n", nc, path.c_str(),
			    reserver_text(before).c_str());
		return 0;
	case EPERM:
		std::fprintf(stderr, "neuron-ls: taking a NeuronCore back needs CAP_SYS_ADMIN (run as root)\n");
		break;
	case ENOENT:
		std::fprintf(stderr, "neuron-ls: NeuronCore %u of %s is not held by any process\n", nc,
			     path.c_str());
		break;
	case EBUSY:
		std::fprintf(stderr, "neuron-ls: a job is running on NeuronCore %u of %s; try again\n", nc,
			     path.c_str());
		break;
	case EINVAL:
		std::fprintf(stderr, "neuron-ls: %s has no NeuronCore %u\n", path.c_str(), nc);
		break;
	case ENOTTY:
		std::fprintf(stderr, "neuron-ls: the loaded driver cannot take NeuronCores back\n");
		break;
	default:
		std::fprintf(stderr, "neuron-ls: NeuronCore %u of %s: %s\n", nc, path.c_str(),
			     std::strerror(-ret));
	}
	return 1;
}

} // namespace

int main(int argc, char **argv)
{
	enum { table, json, topology, cdi, takeback } mode = table;
	const char *dev_dir = nullptr;
	int tb_dev = 0;
	unsigned tb_nc = 0;
	for (int i = 1; i < argc; i++) {
		std::string_view a = argv[i];
		if (a == "-j" || a == "--json-output" || a == "--json") {
			mode = json;
		} else if (a == "--output-format" || a.substr(0, 16) == "--output-format=") {
			if (a == "--output-format" && i + 1 >= argc) {
				std::fprintf(stderr, "neuron-ls: --output-format needs table or json (see --help)\n");
				return 2;
			}
			std::string_view v = a == "--output-format" ? argv[++i] : a.substr(16);
			if (v == "json") {
				mode = json;
			} else if (v == "table") {
				mode = table;
			} else {
				std::fprintf(stderr, "neuron-ls: --output-format: '%.*s' is not table or json\n",
					     static_cast<int>(v.size()), v.data());
				return 2;
			}
		} else if (a == "--take-back" || a.substr(0, 12) == "--take-back=") {
			if (a == "--take-back" && i + 1 >= argc) {
				std::fprintf(stderr, "neuron-ls: --take-back needs DEVICE:CORE (see --help)\n");
				return 2;
			}
			std::string_view v = a == "--take-back" ? argv[++i] : a.substr(12);
			if (!parse_core(v, tb_dev, tb_nc)) {
				std::fprintf(stderr, "neuron-ls: --take-back: '%.*s' is not DEVICE:CORE (e.g. 0:1)\n",
					     static_cast<int>(v.size()), v.data());
				return 2;
			}
			mode = takeback;
		} else if (a == "--cdi") {
			mode = cdi;
		} else if (a == "--dev-dir" || a.substr(0, 10) == "--dev-dir=") {
			if (a == "--dev-dir" && i + 1 >= argc) {
				std::fprintf(stderr, "neuron-ls: --dev-dir needs a directory (see --help)\n");
				return 2;
			}
			dev_dir = a == "--dev-dir" ? argv[++i] : argv[i] + 10;
		} else if (a == "-t" || a == "--topology") {
			mode = topology;
		} else if (a == "--help" || a == "-h") {
			usage(stdout);
			return 0;
		} else {
			std::fprintf(stderr, "neuron-ls: unknown argument '%s' (see --help)\n", argv[i]);
			return 2;
		}
	}

	if (dev_dir && mode != cdi) {
		std::fprintf(stderr, "neuron-ls: --dev-dir goes with --cdi (see --help)\n");
		return 2;
	}
	if (mode == cdi)
		return write_cdi(dev_dir ? dev_dir : tools::cdi::default_dev_dir);
	if (mode == takeback)
		return take_back(tb_dev, tb_nc);

	if (::access(kClassDir, F_OK) != 0) {
		std::fprintf(stderr, "neuron-ls: no Neuron driver: %s is missing (is neuron.ko loaded?)\n",
			     kClassDir);
		return 1;
	}
	int idx[MAX_NEURON_DEVICE_COUNT];
	int n = ndl_available_devices(idx, MAX_NEURON_DEVICE_COUNT);
	if (n < 0) {
		std::fprintf(stderr, "neuron-ls: cannot list devices: %s\n", std::strerror(-n));
		return 1;
	}
	if (n == 0) {
		std::fprintf(stderr, "neuron-ls: no Neuron devices found\n");
		return 1;
	}
	if (n > MAX_NEURON_DEVICE_COUNT)
		n = MAX_NEURON_DEVICE_COUNT;

	// everything is gathered first: stdout stays empty on any error
	std::vector<device> devs;
	int first_nc = 0;
	try {
		for (int i = 0; i < n; i++) {
			device d;
			std::string err;
			if (query(idx[i], first_nc, d, err) != 0) {
				std::fprintf(stderr, "neuron-ls: %s\n", err.c_str());
				return 1;
			}
			first_nc += static_cast<int>(d.info.nc_count);
			devs.push_back(std::move(d));
		}
		std::string out = mode == json ? to_json(devs) :
				  mode == topology ? to_topology(devs) : to_table(devs);
		std::fputs(out.c_str(), stdout);
	} catch (const std::exception &e) {
		std::fprintf(stderr, "neuron-ls: %s\n", e.what());
		return 1;
	}
	return std::fflush(stdout) == 0 ? 0 : 1;
}
