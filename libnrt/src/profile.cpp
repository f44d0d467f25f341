// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// C ABI of <nrt/nrt_profile.h>: nrt_profile_start / nrt_profile_stop, and
// the session the execute path records into (profile.hpp). The rules for
// a second start, another model, unload and nrt_close() are in
// docs/sdk-compat.md, "Profiling".
#include <nrt/nrt_profile.h>

#include <cerrno>
#include <memory>
#include <mutex>
#include <string>
#include <unistd.h>

#include "export.hpp"
#include "model.hpp"
#include "profile.hpp"

using namespace nrt;

namespace nrt::profile {

std::atomic<uintptr_t> profiled_handle{ 0 };

namespace {

struct session {
	uintptr_t handle = 0;
	trace_info info;
	recorder rec;
};

// protects current; taken before a recorder's own lock
std::mutex session_lock;
std::unique_ptr<session> current;

} // namespace

void record(const void *handle, const event &e) noexcept
{
	std::lock_guard<std::mutex> g(session_lock);
	if (current && current->handle == reinterpret_cast<uintptr_t>(handle))
		current->rec.add(e);
}

} // namespace nrt::profile

NRT_EXPORT NRT_STATUS nrt_profile_start(nrt_model_t *model, const char *filename)
{
	{
		rt::runtime &r = rt::rt();
		std::lock_guard<std::mutex> g(r.lock);
		NRT_STATUS st = rt::guard(r);
		if (st != NRT_SUCCESS)
			return st;
	}
	auto m = model::models().find(model);
	if (!m)
		return NRT_INVALID_HANDLE;
	if (!filename || !*filename)
		return NRT_INVALID;
	try {
		auto s = std::make_unique<profile::session>();
		s->handle = reinterpret_cast<uintptr_t>(model);
		s->info.model_name = m->desc.name;
		s->info.pid = ::getpid();
		s->info.max_events = s->rec.max_events();
		s->info.vnc = m->vnc_first;
		s->info.device = static_cast<uint16_t>(m->device_index);
		s->info.nc = static_cast<uint16_t>(m->nc_first);
		std::lock_guard<std::mutex> g(profile::session_lock);
		if (profile::current)
			return NRT_INVALID;	// one profile at a time: stop the running one first
		profile::current = std::move(s);
		profile::profiled_handle.store(profile::current->handle, std::memory_order_relaxed);
	} catch (...) {
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrt_profile_stop(const char *filename)
{
	if (!filename || !*filename)
		return NRT_INVALID;
	std::lock_guard<std::mutex> g(profile::session_lock);
	if (!profile::current)
		return NRT_INVALID;
	profile::session &s = *profile::current;
	int err;
	try {
		const std::string path = filename;
		err = s.rec.visit([&](const std::vector<profile::event> &events, uint64_t dropped) {
			s.info.dropped = dropped;
			return profile::save(path, s.info, events);
		});
	} catch (...) {
		err = ENOMEM;
	}
	if (err)
		return profile::status_from_save_errno(err);	// still recording: retry elsewhere
	profile::profiled_handle.store(0, std::memory_order_relaxed);
	profile::current.reset();
	return NRT_SUCCESS;
}
