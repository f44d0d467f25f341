// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// The driver's mappings a forked child does not inherit (fork_maps.hpp).
#include "fork_maps.hpp"

#include <pthread.h>
#include <sys/mman.h>

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

namespace nrt::fork_maps {
namespace {

std::mutex lock;					// protects ranges
std::vector<std::pair<void *, size_t>> ranges;	// (address, length)

// Around fork(): no thread holds the lock while the child is made, so the
// child's copy of the list is whole.
void before_fork()
{
	lock.lock();
}

void after_fork_parent()
{
	lock.unlock();
}

// In the child, one thread: each range is free (the driver's mapping was
// not copied, and nothing ran since); zeros of the child's own go there.
// MAP_FIXED_NOREPLACE: should anything be there all the same, it stays.
void after_fork_child()
{
	for (auto &[addr, len] : ranges) {
		void *p = ::mmap(addr, len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p != MAP_FAILED && p != addr)
			::munmap(p, len);	// a kernel that took the address as a hint
	}
	lock.unlock();
}

[[maybe_unused]] const int registered = ::pthread_atfork(before_fork, after_fork_parent, after_fork_child);

} // namespace

bool add(void *addr, size_t len) noexcept
{
	std::lock_guard g(lock);
	try {
		ranges.emplace_back(addr, len);
	} catch (...) {
		return false;
	}
	return true;
}

void remove(void *addr) noexcept
{
	std::lock_guard g(lock);
	auto it = std::find_if(ranges.begin(), ranges.end(), [addr](const auto &r) { return r.first == addr; });
	if (it != ranges.end()) {
		*it = ranges.back();
		ranges.pop_back();
	}
}

} // namespace nrt::fork_maps
