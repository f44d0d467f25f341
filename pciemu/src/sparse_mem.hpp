// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Byte storage for a large region a driver touches in few places (BAR4,
// the device's DRAM: 32 GiB on v2): 4 KiB pages, each allocated by the
// first write that puts a non-zero byte in it; a byte never written reads
// 0. The pages held are bounded; a write that would need a page past the
// bound is dropped whole (never stored in part) and counted. Nothing is
// allocated up front, whatever the size. docs/pciemu.md, "The emulated
// function".
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>

namespace pciemu {

using u8 = uint8_t;
using u64 = uint64_t;

class SparseMem {
public:
	static constexpr u64 kPageSize = 4096;

	// @size: the bytes addressable; @max_bytes: the most page memory held
	// (rounded down to whole pages; 0 stores nothing but zeros).
	SparseMem(u64 size, u64 max_bytes);

	u64 size() const { return size_; }
	// [@off, @off + @len) must lie inside size(): the caller checks.
	void read(u64 off, void *buf, size_t len) const;
	// false: dropped, the bound leaves too few pages for it.
	bool write(u64 off, const void *buf, size_t len);
	// Every byte 0 again, every page freed (the counters stay).
	void clear() { pages_.clear(); }

	u64 pages() const { return pages_.size(); }
	u64 max_pages() const { return max_pages_; }
	u64 dropped() const { return dropped_; }

private:
	template <typename F> static void each_page(u64 off, size_t len, F fn);

	u64 size_;
	u64 max_pages_;
	u64 dropped_ = 0;
	std::unordered_map<u64, std::unique_ptr<u8[]>> pages_;	// page number -> bytes
};

} // namespace pciemu
