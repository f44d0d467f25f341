// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// ndl: device discovery and open/close over NEURON_IOCTL_GET_INFO.
#include <ndl/ndl.h>
#include <nrt/nrt.h>
#include <neuron/neuron_ioctl.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <new>
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

} // namespace nrt::ndl

using namespace nrt;

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
	ndl_device_t *pub = &dev->pub;
	pub->device_index = static_cast<uint8_t>(info.device_index);
	pub->device_type = static_cast<uint8_t>(info.backend);
	pub->nc_count = info.nc_count;
	pub->abi_version = info.abi_version;
	pub->capabilities = info.capabilities;
	static_assert(sizeof(pub->driver_version) == sizeof(info.driver_version));
	std::memcpy(pub->driver_version, info.driver_version, sizeof(pub->driver_version));
	pub->driver_version[sizeof(pub->driver_version) - 1] = '\0';
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

NRT_EXPORT const char *nrt_get_version_string(void)
{
	return NRT_VERSION_STRING;
}
