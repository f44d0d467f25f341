/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// The driver's mappings fork() does not copy (an NDS slab, an NQ ring:
// the driver marks them VM_DONTCOPY). A forked child finds nothing at
// their addresses, and a mapping of its own may come to lie there, so
// writing a counter through an inherited instance, or its munmap() at
// nds_close() / nrt_nq_close(), would reach the child's own memory. In
// the child each such range gets an anonymous private mapping of zeros
// of its own (fork_maps.cpp): its reads see zeros, its writes stay in it,
// and the close unmaps only that. Should something of the child's lie
// there already (another fork handler mapped it), the close leaves it.
#pragma once

#include <cstddef>

namespace nrt::fork_maps {

// Record [@addr, @addr + @len), a mapping of the driver's; false when
// there is no memory to record it (the caller unmaps and fails).
bool add(void *addr, size_t len) noexcept;

// Forget the range that starts at @addr; whether the caller is to
// munmap() it: false only in a forked child where the range held
// something else before its zeros could be placed (it is not ours).
bool remove(void *addr) noexcept;

} // namespace nrt::fork_maps
