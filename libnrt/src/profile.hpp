/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// The profile session behind <nrt/nrt_profile.h>: at most one per process,
// of one model handle, from nrt_profile_start() to nrt_profile_stop()
// (profile.cpp; what is recorded and the file: profile_trace.hpp).
#pragma once

#include <atomic>
#include <cstdint>

#include "profile_trace.hpp"

namespace nrt::profile {

// The model handle being profiled, 0 when none: one relaxed load is all an
// execution of another model pays.
extern std::atomic<uintptr_t> profiled_handle;

inline bool wanted(const void *handle)
{
	uintptr_t h = profiled_handle.load(std::memory_order_relaxed);
	return (h == reinterpret_cast<uintptr_t>(handle)) & (h != 0);	// one branch for the caller
}

// Record one execution of @handle (dropped silently when the profile
// stopped meanwhile or is of another model).
void record(const void *handle, const event &e) noexcept;

} // namespace nrt::profile
