/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// A mutex for the execution path: taking and giving back a free one is
// one atomic instruction each, inline, where std::mutex calls into the C
// library for both (under an emulated CPU the two calls cost as much as
// the rest of a lookup). A contended one sleeps in the kernel
// (futex), so it may be held across a system call that blocks, as the
// NeuronCore's lock is across its job. Not recursive, not robust; owns no
// resource, so a fork()ed child with no thread holding it may use it.
// lock(), try_lock(), unlock(): std::lock_guard and std::unique_lock
// take it.
#pragma once

#include <atomic>
#include <cstdint>

namespace nrt {

class mutex {
public:
	mutex() = default;
	mutex(const mutex &) = delete;
	mutex &operator=(const mutex &) = delete;

	void lock() noexcept
	{
		uint32_t c = free;
		if (!s_.compare_exchange_strong(c, held, std::memory_order_acquire,
						std::memory_order_relaxed)) [[unlikely]]
			lock_contended(c);
	}

	bool try_lock() noexcept
	{
		uint32_t c = free;
		return s_.compare_exchange_strong(c, held, std::memory_order_acquire,
						  std::memory_order_relaxed);
	}

	void unlock() noexcept
	{
		if (s_.exchange(free, std::memory_order_release) == waited) [[unlikely]]
			wake_one();
	}

private:
	static constexpr uint32_t free = 0, held = 1, waited = 2;	// waited: held, and someone may sleep on it

	void lock_contended(uint32_t seen) noexcept;	// lock.cpp
	void wake_one() noexcept;

	std::atomic<uint32_t> s_{ free };
	static_assert(std::atomic<uint32_t>::is_always_lock_free);
};

} // namespace nrt
