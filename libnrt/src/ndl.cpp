// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// ndl: device discovery and open/close over NEURON_IOCTL_GET_INFO.
#include <ndl/ndl.h>
#include <nrt/nrt.h>
#include <neuron/neuron_ioctl.h>

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

} // namespace

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
	if (ret)
		return ret;

	auto *dev = new (std::nothrow) ndl::device_impl();
	if (!dev)
		return -ENOMEM;
	ndl_device_t *pub = dev->pub();
	ndl_device_info_t *di = dev->info();
	pub->device_index = static_cast<uint8_t>(info.device_index);
	pub->hbm_size = static_cast<size_t>(info.hbm_size);
	di->backend = info.backend;
	di->nc_count = info.nc_count;
	di->abi_version = info.abi_version;
	di->capabilities = info.capabilities;
	static_assert(sizeof(di->driver_version) == sizeof(info.driver_version));
	std::memcpy(di->driver_version, info.driver_version, sizeof(di->driver_version));
	di->driver_version[sizeof(di->driver_version) - 1] = '\0';
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
