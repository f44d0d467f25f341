// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-ls: list Neuron devices and what the driver reports for each.
#include <ndl/ndl.h>
#include <neuron/neuron_ioctl.h>

#include <cstdio>
#include <cstring>
#include <string_view>

namespace {

void usage(FILE *out)
{
	std::fputs("usage: neuron-ls [--json] [--help]\n"
		   "List /dev/neuron<N> devices with the driver's GET_INFO answer:\n"
		   "index, NeuronCores, backend, ABI version, driver version, capabilities.\n"
		   "  --json   one JSON object: {\"devices\": [...]}\n"
		   "Exit status: 0 ok (also with no device), 1 a device could not be queried,\n"
		   "2 bad usage.\n",
		   out);
}

const char *backend_name(unsigned type)
{
	switch (type) {
	case NDL_DEVICE_TYPE_SIM:
		return "sim";
	case NDL_DEVICE_TYPE_PCI:
		return "pci";
	default:
		return "unknown";
	}
}

} // namespace

int main(int argc, char **argv)
{
	bool json = false;
	for (int i = 1; i < argc; i++) {
		std::string_view a = argv[i];
		if (a == "--json") {
			json = true;
		} else if (a == "--help" || a == "-h") {
			usage(stdout);
			return 0;
		} else {
			std::fprintf(stderr, "neuron-ls: unknown argument '%s' (see --help)\n", argv[i]);
			return 2;
		}
	}

	int idx[MAX_NEURON_DEVICE_COUNT];
	int n = ndl_available_devices(idx, MAX_NEURON_DEVICE_COUNT);
	if (n < 0) {
		std::fprintf(stderr, "neuron-ls: cannot list devices: %s\n", std::strerror(-n));
		return 1;
	}
	if (n > MAX_NEURON_DEVICE_COUNT)
		n = MAX_NEURON_DEVICE_COUNT;

	int rc = 0;
	if (json)
		std::printf("{\"devices\": [");
	else
		std::printf("%-10s %4s %-8s %4s %-12s %s\n", "DEVICE", "NC", "BACKEND", "ABI",
			    "DRIVER", "CAPS");
	for (int i = 0; i < n; i++) {
		ndl_device_t *dev = nullptr;
		int ret = ndl_open_device(idx[i], nullptr, &dev);
		if (ret) {
			std::fprintf(stderr, "neuron-ls: /dev/neuron%d: %s\n", idx[i], std::strerror(-ret));
			rc = 1;
			continue;
		}
		if (json)
			std::printf("%s{\"index\": %u, \"nc_count\": %u, \"backend\": \"%s\", "
				    "\"abi_version\": %u, \"driver_version\": \"%s\", "
				    "\"capabilities\": %llu}",
				    i ? ", " : "", dev->device_index, dev->nc_count,
				    backend_name(dev->device_type), dev->abi_version,
				    dev->driver_version,
				    static_cast<unsigned long long>(dev->capabilities));
		else
			std::printf("neuron%-4u %4u %-8s %4u %-12s 0x%llx\n", dev->device_index,
				    dev->nc_count, backend_name(dev->device_type), dev->abi_version,
				    dev->driver_version,
				    static_cast<unsigned long long>(dev->capabilities));
		ndl_close_device(dev);
	}
	if (json)
		std::printf("]}\n");
	return rc;
}
