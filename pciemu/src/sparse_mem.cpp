// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Sparse byte storage (sparse_mem.hpp).
#include "sparse_mem.hpp"

#include <algorithm>
#include <cstring>

namespace pciemu {

SparseMem::SparseMem(u64 size, u64 max_bytes) : size_(size), max_pages_(max_bytes / kPageSize)
{
}

// @fn(page number, offset in the page, offset in the buffer, bytes) for
// each page [@off, @off + @len) touches, in order.
template <typename F> void SparseMem::each_page(u64 off, size_t len, F fn)
{
	size_t done = 0;

	while (done < len) {
		u64 at = off + done;
		u64 in = at % kPageSize;
		size_t n = size_t(std::min<u64>(kPageSize - in, len - done));

		fn(at / kPageSize, in, done, n);
		done += n;
	}
}

static bool all_zero(const u8 *p, size_t n)
{
	return std::all_of(p, p + n, [](u8 c) { return c == 0; });
}

void SparseMem::read(u64 off, void *buf, size_t len) const
{
	u8 *b = static_cast<u8 *>(buf);

	each_page(off, len, [&](u64 page, u64 in, size_t done, size_t n) {
		auto it = pages_.find(page);

		if (it == pages_.end())
			memset(b + done, 0, n);
		else
			memcpy(b + done, it->second.get() + in, n);
	});
}

bool SparseMem::write(u64 off, const void *buf, size_t len)
{
	const u8 *b = static_cast<const u8 *>(buf);
	u64 need = 0;

	// Zeros into a page that is not there change nothing a read sees: no
	// page for them, so clearing a range costs no memory. Counted before
	// anything is stored: a write that does not fit leaves no trace.
	each_page(off, len, [&](u64 page, u64, size_t done, size_t n) {
		if (!pages_.count(page) && !all_zero(b + done, n))
			need++;
	});
	if (need > max_pages_ - pages_.size()) {
		dropped_++;
		return false;
	}
	each_page(off, len, [&](u64 page, u64 in, size_t done, size_t n) {
		auto it = pages_.find(page);

		if (it == pages_.end()) {
			if (all_zero(b + done, n))
				return;
			// value-initialized: the rest of the page reads 0
			it = pages_.emplace(page, std::make_unique<u8[]>(kPageSize)).first;
		}
		memcpy(it->second.get() + in, b + done, n);
	});
	return true;
}

} // namespace pciemu
