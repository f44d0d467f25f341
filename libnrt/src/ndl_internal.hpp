/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// Private side of ndl_device_t: the SDK's struct ends in a flexible
// context[] the library owns. device_impl's storage holds the public
// struct and, at its context[], the library's ndl_device_info_t; a public
// pointer converts back with impl_of().
#pragma once

#include <ndl/ndl.h>
#include <neuron/neuron_ioctl.h>

#include <cstddef>
#include <string>
#include <vector>

#include "unique_fd.hpp"

namespace nrt::ndl {

static_assert(offsetof(ndl_device_t, context) % alignof(ndl_device_info_t) == 0,
	      "ndl_device_info_t sits at context[]");

struct device_impl {
	// must stay first: the C ABI hands out a pointer to it
	alignas(ndl_device_t) unsigned char storage[offsetof(ndl_device_t, context) +
						     sizeof(ndl_device_info_t)]{};
	unique_fd fd;

	ndl_device_t *pub() { return reinterpret_cast<ndl_device_t *>(storage); }
	ndl_device_info_t *info()
	{
		return reinterpret_cast<ndl_device_info_t *>(storage + offsetof(ndl_device_t, context));
	}
};

inline device_impl *impl_of(ndl_device_t *d)
{
	return reinterpret_cast<device_impl *>(d);
}

inline const device_impl *impl_of(const ndl_device_t *d)
{
	return reinterpret_cast<const device_impl *>(d);
}

int device_path(int index, char *buf, size_t len);
int query_info(int fd, neuron_info *info);
// -ENOTTY or -EINVAL from one of this driver's own commands: a driver
// without its extensions (the vendor's, or this one with vendor_only).
bool extension_missing(int err);
// The device was opened through the vendor's ABI (no GET_INFO: no
// capability of this driver's).
bool vendor_abi(const ndl_device_t *device);
// Reserve / release NeuronCore @nc of @device for this process: this
// driver's CORE_RESERVE / CORE_RELEASE, or on the vendor's ABI its range
// mark / unmark of that one core. 0 or the errno (EBUSY: another holds it).
int core_reserve(const ndl_device_t *device, uint32_t nc);
int core_release(const ndl_device_t *device, uint32_t nc);
// ndl_get_all_apps_info() through the vendor's DEVICE_GET_ALL_APPS_INFO.
int vendor_apps_info(int fd, neuron_app_info **info, size_t *count, uint16_t flags);
// The device's sysfs directory, /sys/class/neuron_device/neuron<N>.
std::string sysfs_dir(int index);
// "1, 3" -> {1, 3}; what the driver's connected_devices holds. Ids out of
// 0..MAX_NEURON_DEVICE_COUNT-1 and malformed items are skipped.
std::vector<int> parse_connected(const std::string &text);
// "NDv2" -> 2; "NDsim" -> 3 (a simulated device models a v3 part); else 0.
int generation_of(const std::string &arch_type);

} // namespace nrt::ndl
