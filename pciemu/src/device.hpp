// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The PCI function as the vfio-user client sees it: its regions (config
// space, BAR0, BAR4), the config space contents, and the access record
// (every config, BAR0 and BAR4 access in order). BAR0 goes to the
// firmware model, BAR4 to sparse storage (the device's DRAM).
#pragma once

#include <deque>
#include <optional>
#include <string>

#include "firmware.hpp"
#include "sparse_mem.hpp"

namespace pciemu {

// VFIO region indexes (linux/vfio.h VFIO_PCI_*_REGION_INDEX).
constexpr u32 kRegionBar0 = 0;
constexpr u32 kRegionBar4 = 4;
constexpr u32 kRegionConfig = 7;
constexpr u32 kNumRegions = 9;
constexpr u32 kConfigSize = 4096;
constexpr u16 kVendorId = 0x1D0F;
constexpr u8 kPcieCapOff = 0x40;

// One entry of the access record.
struct Access {
	u64 index;	// position in the whole run (entries dropped keep theirs)
	u64 t_ms;
	char dir;	// 'R', 'W', or 'X' (an event: device reset, connect, ...)
	u32 region;	// kRegionBar0, kRegionBar4, kRegionConfig; events: 0
	u64 off;
	u32 size;
	u64 value;	// the value read or written (size <= 8)
	const char *event; // 'X' entries
};

// BAR sizes a command line asks for (docs/pciemu.md, "Running it").
struct BarSizes {
	u64 bar0;
	u64 bar4;	// 0: no BAR4
};

// The sizes for @arch: @bar0 unset or 0 and @bar4 unset take the arch's.
// BAR0 must be a power of two holding MiscRAM, BAR4 0 or a power of two
// of at least 16 bytes (the smallest memory BAR). "" and *@out, or why
// not (a message naming the option).
std::string bar_sizes(const Arch &arch, std::optional<u64> bar0, std::optional<u64> bar4,
		      BarSizes *out);

class Device {
public:
	// BAR4 bytes kept at most, by default: 64 MiB, the size of the
	// smallest BAR4 the vendor's probe is known to succeed with. Every
	// BAR4 access is a message of at most 1 MiB, so a driver fills it
	// slowly; writes of zeros take no memory.
	static constexpr u64 kBar4StoreDefault = 64ull << 20;

	// @bar4_size 0: no BAR4. @bar4_store_max: BAR4 bytes kept at most
	// (SparseMem: a write needing more is dropped, counted).
	Device(const Arch &arch, Clock &clock, Firmware &fw, u8 revision, u64 bar0_size,
	       u64 bar4_size, size_t log_max, u64 bar4_store_max = kBar4StoreDefault);

	u64 region_size(u32 index) const;

	// REGION_READ / REGION_WRITE: 0 or a negative errno.
	int region_read(u32 region, u64 off, void *buf, u32 count);
	int region_write(u32 region, u64 off, const void *buf, u32 count);

	// VFIO_USER_DEVICE_RESET: power-on state of config space and firmware.
	void reset();
	void event(const char *what);

	const u8 *config() const { return cfg_; }
	const SparseMem &bar4() const { return bar4_; }
	const std::deque<Access> &log() const { return log_; }
	u64 log_dropped() const { return log_dropped_; }
	void clear_log() { log_.clear(); }
	// One line per entry (docs/pciemu.md, "Access record").
	std::string log_text() const;
	static std::string access_line(const Access &a, u32 miscram_off, u64 bar0_size);
	static const char *region_name(u32 region);

private:
	void config_init();
	void record(char dir, u32 region, u64 off, u32 size, u64 value);
	int bar0_read(u64 off, void *buf, u32 count);
	int bar0_write(u64 off, const void *buf, u32 count);

	const Arch &arch_;
	Clock &clock_;
	Firmware &fw_;
	u8 revision_;
	u64 bar0_size_;
	SparseMem bar4_;	// size 0: no BAR4
	u8 cfg_[kConfigSize];
	u8 wmask_[kConfigSize];	// bits the guest may change
	std::deque<Access> log_;
	size_t log_max_;
	u64 log_next_ = 0;
	u64 log_dropped_ = 0;
};

} // namespace pciemu
