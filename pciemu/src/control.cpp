// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Control channel commands (control.hpp).
#include "control.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "klib.hpp"

namespace pciemu {

// Numbers and words are read by the project's own knob parser (common/,
// neuron_parse.h): the same reading as the driver's debugfs knobs.
bool parse_u64(std::string_view s, unsigned long long max, unsigned long long *out)
{
	std::string text(s);
	u64 v;

	if (neuron_parse_u64(text.c_str(), &v) || v > max)
		return false;
	*out = v;
	return true;
}

namespace {

const char kHelp[] =
	"fault no_answer|bad_crc|wrong_seq|unknown_cmd [times=N]\n"
	"fault late_answer MS [times=N]\n"
	"fault error CODE [times=N]\n"
	"fault deadbeef_storm MS\n"
	"fault reset_never_completes\n"
	"fault vanish\n"
	"fault clear\n"
	"get log|metrics|blobs|words|stats|faults\n"
	"clear log|metrics\n"
	"set word OFFSET VALUE\n"
	"set power DIE BIPS\n"
	"set pe OFFSET VALUE\n"
	"help\n";

Control::Result err(const std::string &why)
{
	return { "err " + why + "\n", false };
}

Control::Result ok(std::string data = "")
{
	return { data + "ok\n", false };
}

} // namespace

Control::Result Control::execute(std::string_view line)
{
	if (!line.empty() && line.back() == '\r')
		line.remove_suffix(1);
	if (line.size() > kMaxLine)
		return err("line too long");
	struct neuron_tokens words;

	if (neuron_tokenize(&words, line.data(), line.size()))
		return err("malformed line: at most 8 words of printable text, 127 bytes");
	std::vector<std::string_view> t(words.tok, words.tok + words.count);
	unsigned long long v, w;

	if (t.empty())
		return err("empty command");
	if (t[0] == "help" && t.size() == 1)
		return ok(kHelp);

	if (t[0] == "fault" && t.size() >= 2) {
		std::string_view kind = t[1];
		ExchangeFault f;
		size_t nargs = 0;

		if (kind == "clear" || kind == "vanish" || kind == "reset_never_completes") {
			if (t.size() != 2)
				return err("fault " + std::string(kind) + " takes no argument");
			if (kind == "clear")
				fw_.clear_faults();
			else if (kind == "reset_never_completes")
				fw_.set_reset_never(true);
			else
				return { "ok\n", true };
			return ok();
		}
		if (kind == "deadbeef_storm") {
			if (t.size() != 3 || !parse_u64(t[2], 24ull * 3600 * 1000, &v))
				return err("usage: fault deadbeef_storm MS");
			fw_.deadbeef_storm(u32(v));
			return ok();
		}
		if (kind == "no_answer") {
			f.kind = FaultKind::no_answer;
		} else if (kind == "bad_crc") {
			f.kind = FaultKind::bad_crc;
		} else if (kind == "wrong_seq") {
			f.kind = FaultKind::wrong_seq;
		} else if (kind == "unknown_cmd") {
			f.kind = FaultKind::unknown_cmd;
		} else if (kind == "late_answer") {
			f.kind = FaultKind::late_answer;
			nargs = 1;
			if (t.size() < 3 || !parse_u64(t[2], 24ull * 3600 * 1000, &v))
				return err("usage: fault late_answer MS [times=N]");
			f.arg = u32(v);
		} else if (kind == "error") {
			f.kind = FaultKind::error;
			nargs = 1;
			// 0 is SUCCESS: not an error
			if (t.size() < 3 || !parse_u64(t[2], 255, &v) || v == 0)
				return err("usage: fault error CODE [times=N] (CODE 1..255)");
			f.arg = u32(v);
		} else {
			return err("unknown fault '" + std::string(kind) + "'");
		}
		size_t rest = 2 + nargs;
		if (t.size() > rest + 1)
			return err("too many arguments");
		if (t.size() == rest + 1) {
			std::string_view a = t[rest];

			if (a.substr(0, 6) != "times=" || !parse_u64(a.substr(6), 1000000000, &w) || !w)
				return err("expected times=N (N >= 1), got '" + std::string(a) + "'");
			f.times = u32(w);
		}
		fw_.set_fault(f);
		return ok();
	}

	if (t[0] == "get" && t.size() == 2) {
		std::string s;

		if (t[1] == "log") {
			s = dev_.log_text();
			return ok(s);
		}
		if (t[1] == "metrics" || t[1] == "blobs") {
			for (const PostedBlob &b : fw_.posted()) {
				if (t[1] == "blobs") {
					std::string ids;

					for (const MetricRecord &r : b.records)
						ids += (ids.empty() ? "" : ",") + std::to_string(r.id);
					s += std::to_string(b.t_ms) + " " + std::to_string(b.data.size()) + " " +
					     std::to_string(b.records.size()) + " " +
					     (ids.empty() ? std::string("-") : ids) + "\n";
					continue;
				}
				for (const MetricRecord &r : b.records)
					s += std::to_string(r.id) + " " + r.value + "\n";
			}
			return ok(s);
		}
		if (t[1] == "words") {
			char buf[64];

			for (u32 off = 0; off < Firmware::kMiscSize; off += 4) {
				u32 val = fw_.misc_peek(off);

				if (!val)
					continue;
				std::string name = misc_name(off);
				snprintf(buf, sizeof(buf), "0x%03x 0x%08x%s%s\n", off, val,
					 name.empty() ? "" : " ", name.c_str());
				s += buf;
			}
			return ok(s);
		}
		if (t[1] == "stats") {
			s = fw_.stats_text();
			s += "bar4_pages " + std::to_string(dev_.bar4().pages()) + "\n";
			s += "bar4_dropped " + std::to_string(dev_.bar4().dropped()) + "\n";
			s += "log_entries " + std::to_string(dev_.log().size()) + "\n";
			s += "log_dropped " + std::to_string(dev_.log_dropped()) + "\n";
			return ok(s);
		}
		if (t[1] == "faults")
			return ok(fw_.faults_text());
		return err("unknown item '" + std::string(t[1]) + "'");
	}

	if (t[0] == "clear" && t.size() == 2) {
		if (t[1] == "log") {
			dev_.clear_log();
			return ok();
		}
		if (t[1] == "metrics") {
			fw_.clear_posted();
			return ok();
		}
		return err("unknown item '" + std::string(t[1]) + "'");
	}

	if (t[0] == "set" && t.size() == 4 && t[1] == "word") {
		if (!parse_u64(t[2], Firmware::kMiscSize - 4, &v) || (v & 3))
			return err("OFFSET: a 4-aligned MiscRAM offset below 0x1000");
		if (!parse_u64(t[3], 0xFFFFFFFFull, &w))
			return err("VALUE: a 32-bit number");
		fw_.misc_poke(u32(v), u32(w));
		return ok();
	}
	if (t[0] == "set" && t.size() == 4 && t[1] == "pe") {
		if (!parse_u64(t[2], ~0ull, &v))
			return err("OFFSET: a BAR0 offset");
		if (!parse_u64(t[3], ~0ull, &w))
			return err("VALUE: a 64-bit number");
		if (!fw_.set_pe_counter(v, w))
			return err("OFFSET: not the low word of a PE activity counter of this architecture");
		return ok();
	}
	if (t[0] == "set" && t.size() == 4 && t[1] == "power") {
		if (!parse_u64(t[2], Firmware::kPowerDice - 1, &v))
			return err("DIE: 0 or 1");
		if (!parse_u64(t[3], Firmware::kPowerMaxBips, &w))
			return err("BIPS: basis points of max power, 0..10000");
		fw_.set_power_util(u32(v), u32(w));
		return ok();
	}
	return err("unknown command (try help)");
}

} // namespace pciemu
