// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// ndl: device discovery and open/close over NEURON_IOCTL_GET_INFO, or the
// vendor's ABI on a driver without this one's extensions (docs/vendor-abi.md).
#include <ndl/ndl.h>
#include <nrt/nrt.h>
#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_vendor_ioctl.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <new>
#include <sstream>
#include <sys/ioctl.h>
#include <unistd.h>

#include "export.hpp"
#include "ndl_internal.hpp"
#include "unique_fd.hpp"

namespace nrt::ndl {

int device_path(int index, char *buf, size_t len)
{
	int n = std::snprintf(buf, len, NEURON_DEVICE_PREFIX "%d", index);
	return (n > 0 && static_cast<size_t>(n) < len) ? 0 : -EINVAL;
}

int query_info(int fd, neuron_info *info)
{
	std::memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	if (::ioctl(fd, NEURON_IOCTL_GET_INFO, info) != 0)
		return -errno;
	return 0;
}

bool extension_missing(int err)
{
	// this driver with vendor_only: -ENOTTY. The vendor's driver answers
	// -EINVAL to commands it does not know; this driver answers -EINVAL
	// to a wrong encoding of one of its own (a library built against
	// another version of its ABI), which must not pass for the vendor's
	// driver: that driver has no vendor_only parameter
	if (err == -ENOTTY)
		return true;
	return err == -EINVAL && ::access("/sys/module/neuron/parameters/vendor_only", F_OK) != 0;
}

std::string sysfs_dir(int index)
{
	return "/sys/class/neuron_device/neuron" + std::to_string(index);
}

std::vector<int> parse_connected(const std::string &text)
{
	std::vector<int> ids;
	std::stringstream in(text);
	std::string item;
	while (std::getline(in, item, ',')) {
		size_t b = item.find_first_not_of(" \t\n");
		if (b == std::string::npos)
			continue;
		char *end = nullptr;
		long v = std::strtol(item.c_str() + b, &end, 10);
		if (end == item.c_str() + b || v < 0 || v >= MAX_NEURON_DEVICE_COUNT)
			continue;
		ids.push_back(static_cast<int>(v));
	}
	return ids;
}

int generation_of(const std::string &arch_type)
{
	if (arch_type.rfind("NDsim", 0) == 0)
		return NDL_DEVICE_TYPE_V3;
	if (arch_type.size() > 3 && arch_type.rfind("NDv", 0) == 0)
		return std::atoi(arch_type.c_str() + 3);
	return 0;
}

namespace {

std::string read_line(const std::string &path)
{
	std::ifstream f(path);
	std::string line;
	std::getline(f, line);
	return line;
}

// The vendor's ABI: the index, the revision, and from sysfs the NeuronCore
// count and the driver's version. No extension: capabilities 0.
int query_vendor(int fd, ndl_device_t *pub, ndl_device_info_t *di)
{
	neuron_ioctl_host_device_id id{};
	neuron_ioctl_device_basic_info basic{};
	if (::ioctl(fd, NEURON_IOCTL_HOST_DEVICE_ID, &id) != 0 ||
	    ::ioctl(fd, NEURON_IOCTL_DEVICE_BASIC_INFO, &basic) != 0)
		return -errno;
	if (id.host_device_id >= MAX_NEURON_DEVICE_COUNT)
		return -ERANGE;
	pub->device_index = static_cast<uint8_t>(id.host_device_id);
	pub->device_revision = static_cast<uint16_t>(basic.revision);
	const std::string dir = sysfs_dir(static_cast<int>(id.host_device_id));
	char *end = nullptr;
	const std::string cores = read_line(dir + "/core_count");
	unsigned long nc = std::strtoul(cores.c_str(), &end, 10);
	if (cores.empty() || end == cores.c_str() || nc == 0 || nc > MAX_NC_PER_DEVICE)
		return -EPROTO;
	di->nc_count = static_cast<uint32_t>(nc);
	di->backend = read_line(dir + "/info/architecture/arch_type").rfind("NDsim", 0) == 0 ?
			      NDL_BACKEND_SIM : NDL_BACKEND_PCI;
	di->abi_version = 0;
	di->capabilities = 0;
	const std::string ver = read_line("/sys/module/neuron/version");
	std::snprintf(di->driver_version, sizeof(di->driver_version), "%s", ver.c_str());
	return 0;
}

} // namespace

bool vendor_abi(const ndl_device_t *device)
{
	// this driver answers GET_INFO with its capabilities, never none
	return ndl_device_get_info(device)->capabilities == 0;
}

int core_reserve(const ndl_device_t *device, uint32_t nc)
{
	int fd = impl_of(device)->fd.get();
	if (vendor_abi(device)) {
		neuron_ioctl_crwl_nc_map m{};
		m.nc_count = 1;
		m.start_nc_index = nc;
		m.end_nc_index = nc;
		return ::ioctl(fd, NEURON_IOCTL_CRWL_NC_RANGE_MARK, &m) != 0 ? errno : 0;
	}
	neuron_core_reserve arg{};
	arg.size = sizeof(arg);
	arg.nc = nc;
	return ::ioctl(fd, NEURON_IOCTL_CORE_RESERVE, &arg) != 0 ? errno : 0;
}

int core_release(const ndl_device_t *device, uint32_t nc)
{
	int fd = impl_of(device)->fd.get();
	if (vendor_abi(device)) {
		neuron_ioctl_crwl_nc_map m{};
		m.bitmap = 1ULL << nc;
		return ::ioctl(fd, NEURON_IOCTL_CRWL_NC_RANGE_UNMARK, &m) != 0 ? errno : 0;
	}
	neuron_core_reserve arg{};
	arg.size = sizeof(arg);
	arg.nc = nc;
	return ::ioctl(fd, NEURON_IOCTL_CORE_RELEASE, &arg) != 0 ? errno : 0;
}

// The vendor's DEVICE_GET_ALL_APPS_INFO: at most 16 processes, one call.
int vendor_apps_info(int fd, neuron_app_info **info, size_t *count, uint16_t flags)
{
	// the header, then the records: one 8-byte aligned buffer (a few KiB,
	// so on the stack: nothing here may throw across the C ABI)
	constexpr size_t bytes = sizeof(neuron_ioctl_get_apps_info) +
				 NEURON_APP_INFO_MAX_APPS * sizeof(neuron_ioctl_app_info);
	std::array<uint64_t, (bytes + sizeof(uint64_t) - 1) / sizeof(uint64_t)> mem{};
	auto *hdr = reinterpret_cast<neuron_ioctl_get_apps_info *>(mem.data());
	hdr->apps_info_flags = flags;
	hdr->capacity = NEURON_APP_INFO_MAX_APPS;
	if (::ioctl(fd, NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO, hdr) != 0)
		return -errno;
	const neuron_ioctl_app_info *rec = hdr->app_data;
	size_t n = std::min<size_t>(hdr->size, NEURON_APP_INFO_MAX_APPS);
	if (n == 0)
		return 0;
	auto *out = static_cast<neuron_app_info *>(std::calloc(n, sizeof(neuron_app_info)));
	if (!out)
		return -ENOMEM;
	static_assert(sizeof(out->uuid_data) == sizeof(rec[0].uuid_data));
	for (size_t i = 0; i < n; i++) {
		out[i].pid = rec[i].pid;
		out[i].nc_lock_map = rec[i].nc_lock_map;
		std::memcpy(out[i].uuid_data, rec[i].uuid_data, sizeof(out[i].uuid_data));
		out[i].host_mem_size = rec[i].host_mem_size;
		out[i].device_mem_size = rec[i].device_mem_size;
	}
	*info = out;
	*count = n;
	return 0;
}

} // namespace nrt::ndl

using namespace nrt;

NRT_EXPORT const ndl_device_info_t *ndl_device_get_info(const ndl_device_t *device)
{
	if (!device)
		return nullptr;
	return reinterpret_cast<const ndl_device_info_t *>(device->context);
}

NRT_EXPORT int ndl_available_devices(int *device_indexes, int device_indexes_size)
{
	if (device_indexes_size < 0 || (device_indexes_size > 0 && !device_indexes))
		return -EINVAL;
	int found = 0;
	char path[64];
	for (int i = 0; i < MAX_NEURON_DEVICE_COUNT; i++) {
		if (ndl::device_path(i, path, sizeof(path)) != 0)
			continue;
		if (::access(path, F_OK) != 0)
			continue;
		if (found < device_indexes_size)
			device_indexes[found] = i;
		found++;
	}
	return found;
}

NRT_EXPORT int ndl_open_device(int device_index, ndl_device_init_param_t *params,
			       ndl_device_t **device)
{
	(void)params;
	if (!device)
		return -EINVAL;
	*device = nullptr;
	if (device_index < 0 || device_index >= MAX_NEURON_DEVICE_COUNT)
		return -EINVAL;

	char path[64];
	if (ndl::device_path(device_index, path, sizeof(path)) != 0)
		return -EINVAL;
	unique_fd fd(::open(path, O_RDWR | O_CLOEXEC));
	if (!fd)
		return -errno;

	neuron_info info;
	int ret = ndl::query_info(fd.get(), &info);
	if (ret && !ndl::extension_missing(ret))
		return ret;

	auto *dev = new (std::nothrow) ndl::device_impl();
	if (!dev)
		return -ENOMEM;
	ndl_device_t *pub = dev->pub();
	ndl_device_info_t *di = dev->info();
	if (ret) {
		try {
			ret = ndl::query_vendor(fd.get(), pub, di);
		} catch (...) {
			ret = -ENOMEM;
		}
		if (ret) {
			delete dev;
			return ret;
		}
		info.device_index = pub->device_index;
	} else {
		pub->device_index = static_cast<uint8_t>(info.device_index);
		pub->hbm_size = static_cast<size_t>(info.hbm_size);
		di->backend = info.backend;
		di->nc_count = info.nc_count;
		di->abi_version = info.abi_version;
		di->capabilities = info.capabilities;
		static_assert(sizeof(di->driver_version) == sizeof(info.driver_version));
		std::memcpy(di->driver_version, info.driver_version, sizeof(di->driver_version));
		di->driver_version[sizeof(di->driver_version) - 1] = '\0';
	}
	// sysfs: best effort; a missing file leaves the SDK fields zero
	try {
		std::string dir = ndl::sysfs_dir(static_cast<int>(info.device_index));
		pub->device_type = static_cast<uint8_t>(
			ndl::generation_of(ndl::read_line(dir + "/info/architecture/arch_type")));
		for (int id : ndl::parse_connected(ndl::read_line(dir + "/connected_devices"))) {
			if (pub->connected_device_count >= MAX_NEURON_DEVICE_COUNT)
				break;
			pub->connected_devices[pub->connected_device_count++] = static_cast<uint8_t>(id);
		}
	} catch (...) {
		delete dev;
		return -ENOMEM;
	}
	dev->fd = std::move(fd);
	*device = pub;
	return 0;
}

NRT_EXPORT int ndl_close_device(ndl_device_t *device)
{
	if (!device)
		return -EINVAL;
	delete ndl::impl_of(device);
	return 0;
}

NRT_EXPORT int ndl_device_fd(const ndl_device_t *device)
{
	if (!device)
		return -EINVAL;
	return ndl::impl_of(device)->fd.get();
}

NRT_EXPORT int ndl_get_all_apps_info(ndl_device_t *device, struct neuron_app_info **info,
				     size_t *count, uint16_t apps_info_flags)
{
	if (!device || !info || !count || (apps_info_flags & ~APP_INFO_ALL))
		return -EINVAL;
	*info = nullptr;
	*count = 0;
	int fd = ndl::impl_of(device)->fd.get();
	size_t n = 0, cap = 0;
	neuron_app_info *out = nullptr;
	for (uint32_t start = 0;;) {
		neuron_apps_info arg{};
		arg.size = sizeof(arg);
		arg.start = start;
		if (::ioctl(fd, NEURON_IOCTL_APPS_INFO, &arg) != 0) {
			int err = errno;
			std::free(out);
			if (start == 0 && ndl::extension_missing(-err))
				return ndl::vendor_apps_info(fd, info, count, apps_info_flags);
			return -err;
		}
		if (n + arg.count > cap) {
			size_t ncap = n + arg.count + 8;
			auto *grown = static_cast<neuron_app_info *>(
				std::realloc(out, ncap * sizeof(*out)));
			if (!grown) {
				std::free(out);
				return -ENOMEM;
			}
			out = grown;
			cap = ncap;
		}
		for (uint32_t i = 0; i < arg.count; i++) {
			neuron_app_info &a = out[n++];
			std::memset(&a, 0, sizeof(a));
			a.pid = arg.app[i].pid;
			if (apps_info_flags & APP_INFO_PID_NC_LOCK_INFO)
				a.nc_lock_map = static_cast<uint8_t>(arg.app[i].nc_map);
		}
		start += arg.count;
		if (arg.count == 0 || start >= arg.total)
			break;
	}
	*info = out;
	*count = n;
	return 0;
}

NRT_EXPORT const char *nrt_get_version_string(void)
{
	return NRT_VERSION_STRING;
}
