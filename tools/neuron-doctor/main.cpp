// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-doctor: walk the chain a Neuron job depends on, from the driver to
// the kernel log, name the first broken link with one action, then list
// every finding. The checks are the library of this folder (doctor.hpp);
// this is the command line.
#include <ndl/ndl.h>
#include <neuron/neuron_ioctl.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "common/apps.hpp"
#include "doctor.hpp"

namespace {

namespace doc = tools::doctor;

void usage(FILE *out)
{
	std::fputs("usage: neuron-doctor [--json] [--root DIR] [--no-kmsg] [--help]\n"
		   "Check what a Neuron job needs, in order, and name the first broken link\n"
		   "with one action, then every finding:\n"
		   "  module         neuron.ko loaded (/sys/module/neuron), its version against\n"
		   "                 DKMS's neuron-oss builds and the running kernel\n"
		   "  devices        the devices the driver has (/sys/class/neuron_device)\n"
		   "  nodes          /dev/neuron<N> for each: there, a character device with\n"
		   "                 the driver's numbers, read-write for this user by its mode\n"
		   "  container      whether this looks like a container (/.dockerenv,\n"
		   "                 /run/.containerenv, /proc/1/cgroup)\n"
		   "  visible_cores  NEURON_RT_VISIBLE_CORES against the NeuronCores there are\n"
		   "  state          each device's state: ready, reset or invalid\n"
		   "  ecc            uncorrectable SRAM/HBM ECC counts (stats/hardware)\n"
		   "  fw_io          firmware mailbox errors and timeouts (stats/fw_io)\n"
		   "  holders        processes holding NeuronCores that are stopped, zombies or\n"
		   "                 gone (the driver's list, as neuron-ls gets it)\n"
		   "  kmsg           NEURON_HW_ERR lines in the kernel log (/dev/kmsg)\n"
		   "Output: \"neuron-doctor: OK\" or \"neuron-doctor: <check>: <action>\" (the first\n"
		   "error, else the first warning), then \"[ok|note|warn|error] <check>: <detail>\"\n"
		   "per finding, \" -> <action>\" appended when there is one.\n"
		   "  -j, --json     {\"status\": \"ok|warning|error\", \"first\": {...}|null,\n"
		   "                 \"findings\": [{\"check\", \"severity\", \"detail\", \"action\"}]};\n"
		   "                 severity is ok, note, warning or error\n"
		   "      --root DIR read /sys, /dev, /proc, /etc and /var/lib/dkms under DIR\n"
		   "                 (a mounted image, a test tree); the holders check is\n"
		   "                 skipped there: it needs the driver\n"
		   "      --no-kmsg  do not read the kernel log\n"
		   "  -h, --help     this text\n"
		   "Exit status: 0 ok (notes only); 1 warnings, no error; 2 at least one\n"
		   "error; 3 bad usage or an internal error (one line on stderr); 4 no\n"
		   "fault found, but some checks could not be made on this driver\n"
		   "(\"unknown\": the vendor's driver has no health, state or fw_io files).\n",
		   out);
}

// The driver's list of the processes holding device @d (needs its node).
bool driver_holders(const doc::device &d, std::vector<tools::apps::process> &out, std::string &err)
{
	ndl_device_t *dev = nullptr;
	int ret = ndl_open_device(d.index, nullptr, &dev);
	if (ret) {
		err = "/dev/neuron" + std::to_string(d.index) + ": " + std::strerror(-ret);
		return false;
	}
	try {
		ret = tools::apps::holders(dev, d.first_nc, out);
	} catch (...) {
		ndl_close_device(dev);
		throw;
	}
	ndl_close_device(dev);
	if (ret) {
		err = "listing processes: " + std::string(std::strerror(-ret));
		return false;
	}
	return true;
}

// Who holds each NeuronCore of device @d (CORE_HOLDERS); false with @err
// set when the driver cannot say.
bool driver_cores(const doc::device &d, std::vector<tools::apps::core_holding> &out, std::string &err)
{
	ndl_device_t *dev = nullptr;
	int ret = ndl_open_device(d.index, nullptr, &dev);
	if (ret) {
		err = "/dev/neuron" + std::to_string(d.index) + ": " + std::strerror(-ret);
		return false;
	}
	const ndl_device_info_t *info = ndl_device_get_info(dev);
	if (!(info->capabilities & NEURON_CAP_CORE_HOLDERS)) {
		ndl_close_device(dev);
		err = "the driver does not list NeuronCore holders";
		return false;
	}
	for (uint32_t k = 0; !ret && k < info->nc_count; k++) {
		tools::apps::core_holding h;
		ret = tools::apps::core_holders(ndl_device_fd(dev), k, d.first_nc + static_cast<int>(k), h);
		out.push_back(std::move(h));
	}
	ndl_close_device(dev);
	if (ret) {
		err = "listing NeuronCore holders: " + std::string(std::strerror(-ret));
		return false;
	}
	return true;
}

} // namespace

int main(int argc, char **argv)
{
	doc::options o;
	std::string err;
	if (!doc::parse_args(argc, argv, o, err)) {
		std::fprintf(stderr, "neuron-doctor: %s\n", err.c_str());
		return 3;
	}
	if (o.help) {
		usage(stdout);
		return 0;
	}
	struct stat st;
	if (::stat(o.root.c_str(), &st) != 0) {
		std::fprintf(stderr, "neuron-doctor: --root %s: %s\n", o.root.c_str(), std::strerror(errno));
		return 3;
	}
	if (!S_ISDIR(st.st_mode)) {
		std::fprintf(stderr, "neuron-doctor: --root %s: not a directory\n", o.root.c_str());
		return 3;
	}
	try {
		doc::context c;
		c.root = o.root;
		c.read_kmsg = o.kmsg;
		c.uid = ::geteuid();
		c.gid = ::getegid();
		int n = ::getgroups(0, nullptr);
		if (n > 0) {
			c.groups.resize(static_cast<size_t>(n));
			n = ::getgroups(n, c.groups.data());
			c.groups.resize(n > 0 ? static_cast<size_t>(n) : 0);
		}
		if (const char *v = std::getenv("NEURON_RT_VISIBLE_CORES"))
			c.visible_cores = v;
		if (doc::under(c, "/") == "/") {
			c.list_holders = driver_holders;
			c.list_cores = driver_cores;
			c.pid_exists = [](int pid) { return ::kill(pid, 0) == 0 || errno == EPERM; };
		}
		doc::report r = doc::run(c);
		std::string out = o.json ? doc::to_json(r) : doc::to_text(r);
		std::fputs(out.c_str(), stdout);
		if (std::fflush(stdout) != 0) {
			std::fprintf(stderr, "neuron-doctor: writing the report: %s\n", std::strerror(errno));
			return 3;
		}
		return doc::exit_code(r);
	} catch (const std::exception &e) {
		std::fprintf(stderr, "neuron-doctor: %s\n", e.what());
		return 3;
	}
}
