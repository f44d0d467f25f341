// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// nrt::mutex's slow paths (lock.hpp): wait for a held lock, wake a waiter.
#include "lock.hpp"

#include <cerrno>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace nrt {

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t), "the futex word is the atomic itself");

namespace {

uint32_t *word(std::atomic<uint32_t> *s)
{
	return reinterpret_cast<uint32_t *>(s);
}

} // namespace

// The lock was not free (@seen). From here on the word says "waited" while
// anyone is, or may be, asleep on it, so that unlock() wakes one: a
// waker cannot tell whether a sleeper remains, and an extra wake-up costs
// only a system call.
void mutex::lock_contended(uint32_t seen) noexcept
{
	if (seen != waited)
		seen = s_.exchange(waited, std::memory_order_acquire);
	while (seen != free) {
		// returns at once (EAGAIN) if the word changed since the exchange
		::syscall(SYS_futex, word(&s_), FUTEX_WAIT_PRIVATE, waited, nullptr, nullptr, 0);
		seen = s_.exchange(waited, std::memory_order_acquire);
	}
}

void mutex::wake_one() noexcept
{
	::syscall(SYS_futex, word(&s_), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

} // namespace nrt
