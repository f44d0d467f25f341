// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Config space, region dispatch and the access record (device.hpp).
#include "device.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace pciemu {

namespace {

void put16(u8 *p, u16 v)
{
	p[0] = u8(v);
	p[1] = u8(v >> 8);
}

void put32(u8 *p, u32 v)
{
	put16(p, u16(v));
	put16(p + 2, u16(v >> 16));
}

u64 get_le(const u8 *p, u32 n)
{
	u64 v = 0;

	for (u32 i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

void put_le(u8 *p, u32 n, u64 v)
{
	for (u32 i = 0; i < n; i++)
		p[i] = u8(v >> (8 * i));
}

} // namespace

std::string bar_sizes(const Arch &arch, std::optional<u64> bar0, std::optional<u64> bar4,
		      BarSizes *out)
{
	u64 b0 = bar0.value_or(0) ? *bar0 : arch.bar0_size;
	u64 b4 = bar4.value_or(arch.bar4_size);
	u64 need = u64(arch.miscram_off) + Firmware::kMiscSize;

	if (b0 & (b0 - 1))
		return "--bar0-size: " + std::to_string(b0) + " is not a power of two";
	if (b0 < need)
		return "--bar0-size: must hold MiscRAM (at least " + std::to_string(need) +
		       " bytes for " + arch.name + ")";
	if (b4 & (b4 - 1))
		return "--bar4-size: " + std::to_string(b4) + " is not a power of two (0: no BAR4)";
	if (b4 && b4 < 16)
		return "--bar4-size: " + std::to_string(b4) + " is below 16, the smallest memory BAR";
	*out = { b0, b4 };
	return "";
}

Device::Device(const Arch &arch, Clock &clock, Firmware &fw, u8 revision, u64 bar0_size,
	       u64 bar4_size, size_t log_max, u64 bar4_store_max)
	: arch_(arch), clock_(clock), fw_(fw), revision_(revision), bar0_size_(bar0_size),
	  bar4_(bar4_size, bar4_store_max), log_max_(log_max)
{
	config_init();
}

// Type 0 header, 64-bit prefetchable memory BARs (BAR0, and BAR4 when
// there is one; QEMU emulates the BAR registers, sizing them from
// GET_REGION_INFO, and takes the type bits from here), INTA, and a PCIe
// endpoint capability so the function sits behind a pcie-root-port.
void Device::config_init()
{
	memset(cfg_, 0, sizeof(cfg_));
	memset(wmask_, 0, sizeof(wmask_));
	put16(cfg_ + 0x00, kVendorId);
	put16(cfg_ + 0x02, arch_.device_id);
	put16(cfg_ + 0x06, 0x0010);		// status: capabilities list
	cfg_[0x08] = revision_;
	cfg_[0x09] = 0x00;			// prog-if
	cfg_[0x0A] = 0x80;			// subclass: other
	cfg_[0x0B] = 0x08;			// class: base system peripheral
	cfg_[0x0E] = 0x00;			// header type 0, single function
	put32(cfg_ + 0x10, 0x0000000C);		// BAR0: memory, 64-bit, prefetchable
	if (bar4_.size())
		put32(cfg_ + 0x20, 0x0000000C);	// BAR4 (and 5, its upper half): the same
	put16(cfg_ + 0x2C, kVendorId);		// subsystem vendor
	put16(cfg_ + 0x2E, arch_.device_id);	// subsystem id
	cfg_[0x34] = kPcieCapOff;
	cfg_[0x3D] = 0x01;			// INTA

	u8 *cap = cfg_ + kPcieCapOff;
	cap[0x00] = 0x10;			// PCI Express
	cap[0x01] = 0x00;			// last capability
	put16(cap + 0x02, 0x0002);		// version 2, endpoint
	put32(cap + 0x04, 0x00008000);		// devcap: role-based error reporting, MPS 128
	put32(cap + 0x0C, 0x00000103);		// linkcap: 8 GT/s x16, port 0
	put16(cap + 0x12, 0x0103);		// linkstatus: 8 GT/s x16
	put32(cap + 0x24, 0x00000000);		// devcap2
	put32(cap + 0x2C, 0x00000008);		// linkcap2: 2.5-8 GT/s
	put16(cap + 0x30, 0x0003);		// linkctl2: target 8 GT/s

	// command: I/O, memory, bus master, parity, SERR#, INTx disable
	put16(wmask_ + 0x04, 0x0547);
	wmask_[0x0C] = 0xFF;			// cache line size
	wmask_[0x3C] = 0xFF;			// interrupt line
	put16(wmask_ + kPcieCapOff + 0x08, 0x7CFF);	// device control
	put16(wmask_ + kPcieCapOff + 0x10, 0x01C3);	// link control
	put16(wmask_ + kPcieCapOff + 0x28, 0x040F);	// device control 2
	put16(wmask_ + kPcieCapOff + 0x30, 0x000F);	// link control 2
}

u64 Device::region_size(u32 index) const
{
	if (index == kRegionBar0)
		return bar0_size_;
	if (index == kRegionBar4)
		return bar4_.size();
	if (index == kRegionConfig)
		return kConfigSize;
	return 0;
}

void Device::record(char dir, u32 region, u64 off, u32 size, u64 value)
{
	if (log_max_ == 0)
		return;
	if (log_.size() >= log_max_) {
		log_.pop_front();
		log_dropped_++;
	}
	log_.push_back({ log_next_++, clock_.now_ms(), dir, region, off, size, value, nullptr });
}

void Device::event(const char *what)
{
	record('X', 0, 0, 0, 0);
	if (!log_.empty())
		log_.back().event = what;
}

// Power-on state, BAR4 included: all zeros again, its pages freed.
void Device::reset()
{
	event("reset");
	config_init();
	fw_.power_on();
	bar4_.clear();
}

int Device::bar0_read(u64 off, void *buf, u32 count)
{
	u8 *b = static_cast<u8 *>(buf);

	if (count == 8) {
		put32(b, fw_.bar0_read32(off));
		put32(b + 4, fw_.bar0_read32(off + 4));
	} else {
		u32 w = fw_.bar0_read32(off & ~u64(3));

		put_le(b, count, w >> (8 * (off & 3)));
	}
	return 0;
}

int Device::bar0_write(u64 off, const void *buf, u32 count)
{
	const u8 *b = static_cast<const u8 *>(buf);

	if (count == 8) {
		fw_.bar0_write32(off, u32(get_le(b, 4)));
		fw_.bar0_write32(off + 4, u32(get_le(b + 4, 4)));
	} else if (count == 4) {
		fw_.bar0_write32(off, u32(get_le(b, 4)));
	} else {
		u64 base = off & ~u64(3);
		u32 shift = 8 * u32(off & 3);
		u32 mask = (count == 1 ? 0xFFu : 0xFFFFu) << shift;
		u32 w = fw_.bar0_peek32(base);

		w = (w & ~mask) | ((u32(get_le(b, count)) << shift) & mask);
		fw_.bar0_write32(base, w);
	}
	return 0;
}

// BAR0 takes naturally aligned 1, 2, 4 and 8-byte accesses.
static bool bar0_access_ok(u64 off, u32 count, u64 size)
{
	if (count != 1 && count != 2 && count != 4 && count != 8)
		return false;
	if (off & (count - 1))
		return false;
	return off < size && count <= size - off;
}

// BAR4 is memory: any access inside it, whatever its size and alignment.
static bool bar4_access_ok(u64 off, u32 count, u64 size)
{
	return count && off < size && count <= size - off;
}

int Device::region_read(u32 region, u64 off, void *buf, u32 count)
{
	u8 *b = static_cast<u8 *>(buf);

	if (region == kRegionConfig) {
		if (!count || off >= kConfigSize || count > kConfigSize - off)
			return -EINVAL;
		memcpy(b, cfg_ + off, count);
		record('R', region, off, count, count <= 8 ? get_le(b, count) : 0);
		return 0;
	}
	if (region == kRegionBar0) {
		if (!bar0_access_ok(off, count, bar0_size_))
			return -EINVAL;
		bar0_read(off, b, count);
		record('R', region, off, count, get_le(b, count));
		return 0;
	}
	if (region == kRegionBar4) {
		if (!bar4_access_ok(off, count, bar4_.size()))
			return -EINVAL;
		bar4_.read(off, b, count);
		record('R', region, off, count, count <= 8 ? get_le(b, count) : 0);
		return 0;
	}
	return -EINVAL;
}

int Device::region_write(u32 region, u64 off, const void *buf, u32 count)
{
	const u8 *b = static_cast<const u8 *>(buf);

	if (region == kRegionConfig) {
		if (!count || off >= kConfigSize || count > kConfigSize - off)
			return -EINVAL;
		record('W', region, off, count, count <= 8 ? get_le(b, count) : 0);
		for (u32 i = 0; i < count; i++) {
			u8 m = wmask_[off + i];

			cfg_[off + i] = u8((cfg_[off + i] & ~m) | (b[i] & m));
		}
		return 0;
	}
	if (region == kRegionBar0) {
		if (!bar0_access_ok(off, count, bar0_size_))
			return -EINVAL;
		// recorded before the firmware acts on it (a doorbell's effects follow it)
		record('W', region, off, count, get_le(b, count));
		bar0_write(off, b, count);
		return 0;
	}
	if (region == kRegionBar4) {
		if (!bar4_access_ok(off, count, bar4_.size()))
			return -EINVAL;
		// recorded even when the store drops it: the record is what the
		// driver did; a posted write cannot fail on the bus either
		record('W', region, off, count, count <= 8 ? get_le(b, count) : 0);
		bar4_.write(off, b, count);
		return 0;
	}
	return -EINVAL;
}

const char *Device::region_name(u32 region)
{
	switch (region) {
	case kRegionBar0:
		return "bar0";
	case kRegionBar4:
		return "bar4";
	case kRegionConfig:
		return "cfg";
	}
	return "?";
}

std::string Device::access_line(const Access &a, u32 miscram_off, u64 bar0_size)
{
	char buf[160];

	if (a.dir == 'X') {
		snprintf(buf, sizeof(buf), "%llu %llu X %s", (unsigned long long)a.index,
			 (unsigned long long)a.t_ms, a.event ? a.event : "?");
		return buf;
	}
	int n = snprintf(buf, sizeof(buf), "%llu %llu %c %s 0x%llx %u ", (unsigned long long)a.index,
			 (unsigned long long)a.t_ms, a.dir, region_name(a.region),
			 (unsigned long long)a.off, a.size);
	if (a.size <= 8)
		n += snprintf(buf + n, sizeof(buf) - n, "0x%0*llx", int(2 * a.size),
			      (unsigned long long)a.value);
	else
		n += snprintf(buf + n, sizeof(buf) - n, "-");
	if (a.region == kRegionBar0 && a.off >= miscram_off &&
	    a.off - miscram_off < Firmware::kMiscSize && a.off < bar0_size) {
		u32 m = u32(a.off - miscram_off);
		std::string name = misc_name(m & ~3u);

		snprintf(buf + n, sizeof(buf) - n, " m=0x%x%s%s", m, name.empty() ? "" : " ",
			 name.c_str());
	}
	return buf;
}

std::string Device::log_text() const
{
	std::string s;

	for (const Access &a : log_) {
		s += access_line(a, arch_.miscram_off, bar0_size_);
		s += "\n";
	}
	return s;
}

} // namespace pciemu
