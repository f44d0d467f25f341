/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// The NDS instance behind the opaque nds_instance_t.
#pragma once

#include <cstddef>
#include <cstdint>

struct nds_instance {
	void *base = nullptr;	// the slab (mapping or caller memory)
	size_t size = 0;
	bool mapped = false;	// munmap on close
	bool writable = false;	// the caller's own slab
	uint32_t nc_count = 0;	// NeuronCores addressable through this instance
	int slot = -1;		// slab index on the device, -1 for memory instances
};

namespace nrt::nds {

// Add @delta to NC/EXT counter @id of NeuronCore @nc (atomic). 0, -EINVAL, -EPERM.
int nc_add(nds_instance *inst, int nc, uint32_t id, uint64_t delta);

// nc_add() for a caller that has checked @inst (writable) and @nc already:
// the counter's own range check only. 0 or -EINVAL.
int nc_add_checked(nds_instance *inst, int nc, uint32_t id, uint64_t delta);

} // namespace nrt::nds
