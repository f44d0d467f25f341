/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// Private side of ndl_device_t: the public struct is the first member of
// device_impl, so a public pointer converts back with impl_of().
#pragma once

#include <ndl/ndl.h>
#include <neuron/neuron_ioctl.h>

#include <cstddef>

#include "unique_fd.hpp"

namespace nrt::ndl {

struct device_impl {
	ndl_device_t pub{};	// must stay first: the C ABI hands out &pub
	unique_fd fd;
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

} // namespace nrt::ndl
