// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The PCI function as the vfio-user client sees it: its regions (config
// space, BAR0), the config space contents, and the access record (every
// config and BAR0 access in order). BAR0 goes to the firmware model.
#pragma once

#include <deque>
#include <string>

#include "firmware.hpp"

namespace pciemu {

// VFIO region indexes (linux/vfio.h VFIO_PCI_*_REGION_INDEX).
constexpr u32 kRegionBar0 = 0;
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
	u32 region;	// kRegionBar0, kRegionConfig; events: 0
	u64 off;
	u32 size;
	u64 value;	// the value read or written (size <= 8)
	const char *event; // 'X' entries
};

class Device {
public:
	Device(const Arch &arch, Clock &clock, Firmware &fw, u8 revision, u64 bar0_size,
	       size_t log_max);

	u64 region_size(u32 index) const;

	// REGION_READ / REGION_WRITE: 0 or a negative errno.
	int region_read(u32 region, u64 off, void *buf, u32 count);
	int region_write(u32 region, u64 off, const void *buf, u32 count);

	// VFIO_USER_DEVICE_RESET: power-on state of config space and firmware.
	void reset();
	void event(const char *what);

	const u8 *config() const { return cfg_; }
	const std::deque<Access> &log() const { return log_; }
	u64 log_dropped() const { return log_dropped_; }
	void clear_log() { log_.clear(); }
	// One line per entry (docs/pciemu.md, "Access record").
	std::string log_text() const;
	static std::string access_line(const Access &a, u32 miscram_off, u64 bar0_size);

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
	u8 cfg_[kConfigSize];
	u8 wmask_[kConfigSize];	// bits the guest may change
	std::deque<Access> log_;
	size_t log_max_;
	u64 log_next_ = 0;
	u64 log_dropped_ = 0;
};

} // namespace pciemu
