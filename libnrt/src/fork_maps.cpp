// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// The driver's mappings a forked child does not inherit (fork_maps.hpp).
#include "fork_maps.hpp"

#include <pthread.h>
#include <sys/mman.h>

#include <algorithm>
#include <mutex>
#include <vector>

namespace nrt::fork_maps {
namespace {

struct range {
	void *addr;
	size_t len;
	bool ours;	// false: in a forked child, something else lay there
};

std::mutex lock;		// protects ranges
std::vector<range> ranges;

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

// In the child, one thread: the driver's mapping was not copied, so each
// range is free unless a fork handler that ran before this one mapped
// something there; zeros of the child's own go where it is free
// (MAP_FIXED_NOREPLACE), and a range that is not is marked not ours.
// Nothing here allocates.
void after_fork_child()
{
	for (range &r : ranges) {
		void *p = ::mmap(r.addr, r.len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p != MAP_FAILED && p != r.addr)
			::munmap(p, r.len);	// a kernel that took the address as a hint
		r.ours = p == r.addr;
	}
	lock.unlock();
}

[[maybe_unused]] const int registered = ::pthread_atfork(before_fork, after_fork_parent, after_fork_child);

} // namespace

bool add(void *addr, size_t len) noexcept
{
	std::lock_guard g(lock);
	try {
		ranges.push_back({ addr, len, true });
	} catch (...) {
		return false;
	}
	return true;
}

bool remove(void *addr) noexcept
{
	std::lock_guard g(lock);
	auto it = std::find_if(ranges.begin(), ranges.end(), [addr](const range &r) { return r.addr == addr; });
	if (it == ranges.end())
		return true;
	bool ours = it->ours;
	*it = ranges.back();
	ranges.pop_back();
	return ours;
}

} // namespace nrt::fork_maps
