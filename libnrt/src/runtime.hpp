/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// The runtime's shared state (nrt_init .. nrt_close): the devices this
// process opened, their NDS slabs and per-NeuronCore error rings. Used by
// runtime.cpp (lifecycle, nrt_sim_execute) and model.cpp (the application
// API).
#pragma once

#include <nrt/nrt.h>
#include <nrt/nrt_nq.h>
#include <nrt/nds/neuron_ds.h>
#include <ndl/ndl.h>
#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nq.h>

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <sys/ioctl.h>
#include <vector>

#include "kmetric.hpp"
#include "lock.hpp"
#include "ndl_internal.hpp"

namespace nrt::rt {

constexpr uint32_t kErrorRingBytes = 1024 * NEURON_NQ_ENTRY_SIZE;	// 1024 entries
constexpr uint64_t kDefaultTimeoutUs = 2000000;

enum class state { uninitialized, initialized, closed };

struct core_ctx {
	nrt::mutex lock;	// one execute at a time on this core, in this process
	nrt_nq_t *error_ring = nullptr;
	bool owned = false;		// reserved by nrt_init() (every visible NeuronCore) until close
	// the execution path's accounting of this NeuronCore in the device's
	// slab (set with it, never changed: the slab lives until the device goes)
	kmetric::core_account acct;
};

// fork() calls this process is the child of (its own and its ancestors'
// since the library was loaded); a device opened before the last of them
// is the parent's (inherited()).
inline std::atomic<uint32_t> fork_generation{ 0 };

struct device_ctx {
	ndl_device_t *dev = nullptr;
	uint32_t generation = fork_generation.load(std::memory_order_relaxed);	// when it was opened
	nds_instance_t *nds = nullptr;
	nds_obj_handle_t process_info = nullptr;	// published in the slab by nrt_init()
	int fd = -1;		// ndl_device_fd(dev), for the execution path
	bool job_time = false;	// the driver answers a job with its time (NEURON_CAP_JOB_TIME)
	std::array<core_ctx, MAX_NC_PER_DEVICE> cores;

	~device_ctx()
	{
		for (size_t i = 0; i < cores.size(); i++) {
			if (!cores[i].error_ring && !cores[i].owned)
				continue;
			if (cores[i].error_ring)
				nrt_nq_close(cores[i].error_ring);
			// nrt_init() or nrt_sim_execute() reserved the core: give it back (ENOENT if it never was)
			nrt::ndl::core_release(dev, static_cast<uint32_t>(i));
		}
		if (process_info)
			nds_obj_delete(process_info);	// taken out of the slab
		if (nds)
			nds_close(nds);
		if (dev)
			ndl_close_device(dev);
	}
};

struct runtime {
	std::mutex lock;	// protects everything below; written under it only
	// Atomic too, for the execution path: one load instead of the lock.
	// nrt_init() sets cfg and timeout_us before st (release),
	// so whoever sees initialized (guard(), acquire) sees them.
	std::atomic<state> st{ state::uninitialized };
	// by device index; an execute holds its own reference, so nrt_close()
	// never frees a device an execute is still using
	std::vector<std::shared_ptr<device_ctx>> devices;
	std::atomic<nrt_decode_config_t> cfg{};
	std::atomic<uint64_t> timeout_us{ kDefaultTimeoutUs };
	static_assert(std::atomic<nrt_decode_config_t>::is_always_lock_free &&
		      std::atomic<uint64_t>::is_always_lock_free && std::atomic<state>::is_always_lock_free);
	// the NeuronCores this process may use (NEURON_RT_VISIBLE_CORES,
	// NEURON_RT_NUM_CORES, or all): global indexes visible_first .. visible_first + visible_count - 1
	uint32_t visible_first = 0;
	uint32_t visible_count = 0;
};

// A version string as nrt_init() takes it -> the NDS version encoding of
// framework @type (runtime.cpp says what parses); false for a string with
// a control character.
bool encode_version(const char *s, uint64_t type, uint64_t *out);

// The process info nrt_init() publishes in each device's slab (the NDS
// object monitoring tools read): @framework, NEURON_PROCESS_TAG (@tag, may
// be null; its first 31 bytes), and the three versions as encode_version()
// encoded them.
nds_process_info_t process_info(int framework, const char *tag, uint64_t fw_ver, uint64_t fal_ver,
				uint64_t rt_ver);

// NEURON_RT_VISIBLE_CORES against @total NeuronCores: the run it names
// (*@set false and the whole range when it is unset or empty), or
// NRT_INVALID (malformed, not one ascending contiguous run, past @total).
NRT_STATUS visible_cores(const char *env, uint32_t total, uint32_t *first, uint32_t *count, bool *set);

// NEURON_RT_NUM_CORES against @total NeuronCores: *@count NeuronCores
// wanted (*@set false when it is unset, empty or 0, the SDK's "all"),
// NRT_INVALID when it is not a plain decimal number, NRT_RESOURCE when it
// asks for more than @total.
NRT_STATUS num_cores(const char *env, uint32_t total, uint32_t *count, bool *set);

// What nrt_init() reserves, all of it until nrt_close(): every NeuronCore
// present (all: first 0, count the total; the SDK's default, also for
// NEURON_RT_NUM_CORES=0), the run NEURON_RT_VISIBLE_CORES names (named:
// first, count), or count free NeuronCores in one run (NEURON_RT_NUM_CORES;
// first is found at nrt_init()). NEURON_RT_VISIBLE_CORES takes precedence,
// as the SDK documents: NEURON_RT_NUM_CORES is not read when it is set.
struct core_request {
	enum class kind { all, named, number } how = kind::all;
	uint32_t first = 0;
	uint32_t count = 0;
};
NRT_STATUS request_cores(const char *visible, const char *num, uint32_t total, core_request *out);


// The process's runtime (inline: every API call reaches it).
inline runtime &rt()
{
	static runtime r;
	return r;
}
// NRT_UNINITIALIZED, NRT_CLOSED or NRT_SUCCESS (one load, inline: every
// API call makes it).
inline NRT_STATUS guard(const runtime &r)
{
	switch (r.st.load(std::memory_order_acquire)) {
	case state::uninitialized:
		return NRT_UNINITIALIZED;
	case state::closed:
		return NRT_CLOSED;
	default:
		return NRT_SUCCESS;
	}
}

// Whether @d came from the parent through fork(): its NeuronCores are
// the parent's (the driver refuses this process their jobs), and their
// locks may be held by a thread the child does not have, so an execution
// on one is refused before it takes them (NRT_FAILURE). nrt_close() drops
// such a device; nrt_init() opens the child's own.
inline bool inherited(const device_ctx &d)
{
	return d.generation != fork_generation.load(std::memory_order_relaxed);
}

// The error ring of @nc, opened on first use (the caller holds c.lock).
NRT_STATUS error_ring_locked(device_ctx &d, uint32_t nc);

// Nanoseconds since @t0 (steady clock).
inline uint64_t elapsed_ns(std::chrono::steady_clock::time_point t0)
{
	return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
		std::chrono::steady_clock::now() - t0).count());
}

} // namespace nrt::rt
