// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The control channel: one command per line, in; data lines then one
// status line ("ok" or "err <reason>"), out. docs/pciemu.md, "Control
// channel", lists the commands. The parser and executor are here; the
// socket plumbing is in main.cpp.
#pragma once

#include <string>
#include <string_view>

#include "device.hpp"
#include "firmware.hpp"

namespace pciemu {

class Control {
public:
	struct Result {
		std::string text;	// complete reply, every line '\n'-terminated
		bool vanish = false;	// fault vanish: exit at once after replying
	};

	Control(Device &dev, Firmware &fw) : dev_(dev), fw_(fw) {}
	Result execute(std::string_view line);

	static constexpr size_t kMaxLine = 1024;

private:
	Device &dev_;
	Firmware &fw_;
};

// Unsigned number: decimal or 0x-prefixed hex, whole token, no overflow.
bool parse_u64(std::string_view s, unsigned long long max, unsigned long long *out);

} // namespace pciemu
