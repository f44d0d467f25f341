// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The emulated Neuron function's BAR0 and the firmware behind its MiscRAM
// window: readiness (DEVICE_ID 0xDEADBEEF), the reset handshake (RESET,
// TRIGGER, FW_STATUS bit 3), both FW-IO transports (legacy host memory,
// register-only) and the fault modes tests arm through the control
// channel. Time comes from a Clock, so tests drive it by hand; the model
// never sleeps and never blocks: a firmware that "does not answer" is
// register state only. Single-threaded.
//
// The framing (CRC-32C, header words, metric blobs) is the project's own
// common/ code, linked in: one reading of the contract. docs/pciemu.md
// describes the behaviour.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "klib.hpp"

namespace pciemu {

using u8 = uint8_t;
using u16 = uint16_t;
using u32 = uint32_t;
using u64 = uint64_t;

// Milliseconds from an arbitrary origin, never going backwards.
class Clock {
public:
	virtual ~Clock() = default;
	virtual u64 now_ms() const = 0;
};

class MonotonicClock : public Clock {
public:
	u64 now_ms() const override;
};

// For tests: time moves only when told to.
class ManualClock : public Clock {
public:
	u64 now_ms() const override { return t_; }
	void advance(u64 ms) { t_ += ms; }
	void set(u64 ms) { t_ = ms; }

private:
	u64 t_ = 0;
};

// Guest memory as the device reaches it (DMA). Addresses are guest
// physical (the host window bit already removed). false: not reachable.
class GuestMem {
public:
	virtual ~GuestMem() = default;
	virtual bool read(u64 gpa, void *buf, size_t len) = 0;
	virtual bool write(u64 gpa, const void *buf, size_t len) = 0;
};

// One emulated product.
struct Arch {
	const char *name;	// trn1, inf2, trn2, trn3
	u16 device_id;		// PCI device id (vendor 0x1D0F)
	unsigned fw_arch;	// enum neuron_fw_arch (V2, V3, V4)
	u32 miscram_off;	// MiscRAM offset within BAR0
	u64 host_window;	// pci_host_base: OR'd into host addresses the device is given
	u64 bar0_size;		// power of two, holds the MiscRAM window
	u64 bar0_dev_base;	// device-side address of BAR0 offset 0 (FW-IO READ)
	u64 bar4_size;		// device DRAM window: power of two, or 0 (none)
};

const Arch *arch_by_name(std::string_view name);

// Firmware timings, milliseconds.
struct FwTiming {
	u32 ready_ms = 1000;		// DEVICE_ID 0xDEADBEEF after power-on / device reset
	u32 reset_accept_ms = 300;	// RESET reads non-zero this long after the doorbell
	u32 reset_busy_ms = 200;	// FW_STATUS bit 3 stays set this long after that
	u32 reset_deadbeef_ms = 150;	// every MiscRAM word reads 0xDEADBEEF this long
};

// Faults that change how the firmware answers an FW-IO exchange.
enum class FaultKind {
	none,
	no_answer,	// latched, never answered: TRIGGER stays 1, no response
	late_answer,	// answered arg ms after the doorbell
	bad_crc,	// the firmware sees a CRC mismatch: answers FAIL
	wrong_seq,	// answers with another sequence number
	error,		// answers error_code arg without executing
	unknown_cmd,	// answers UNKNOWN_COMMAND without executing
};

struct ExchangeFault {
	FaultKind kind = FaultKind::none;
	u32 arg = 0;	// late_answer: ms; error: the code
	u32 times = 0;	// exchanges it applies to; 0 = until cleared
};

const char *fault_name(FaultKind k);

struct FwStats {
	u64 doorbells = 0;	// writes of 1 to TRIGGER
	u64 requests = 0;	// exchanges latched (legacy + regs)
	u64 legacy = 0;		// of which over host memory
	u64 regs = 0;		// of which register-only
	u64 answered = 0;	// answers delivered
	u64 resets = 0;		// resets started (RESET set when the doorbell rang)
	u64 reset_rings = 0;	// doorbells with RESET set while a reset was in progress
	u64 refused_busy = 0;	// doorbells while an exchange was in flight
	u64 refused_reset = 0;	// FW-IO doorbells while a reset was in progress
	u64 refused_regs = 0;	// register-only requests not served (v2, API < 7, no ACK)
	u64 trigger_zero = 0;	// writes of 0 to TRIGGER (only firmware clears it)
	u64 trigger_other = 0;	// writes of other values to TRIGGER
	u64 ro_writes = 0;	// writes to firmware-owned words (ignored)
	u64 crc_errors = 0;	// requests whose CRC did not match (bad_crc included)
	u64 bad_window = 0;	// legacy addresses without this arch's host window bit
	u64 dma_errors = 0;	// legacy addresses outside guest memory
	u64 dropped = 0;	// exchanges abandoned by a reset or fault clear
	u64 bad_posts = 0;	// POST_TO_CW blobs that did not decode
	u64 bar0_dropped = 0;	// BAR0 storage writes dropped at bar0_words_max
	neuron_fw_model_seq seq{};	// the requests' numbers: zero, gaps, wraps, last
	int power_profile = -1;	// last accepted SET_POWER_PROFILE
};

struct MetricRecord {
	u8 id;
	std::string value;
};

struct PostedBlob {
	u64 t_ms;
	std::vector<u8> data;
	std::vector<MetricRecord> records;
};

class Firmware {
public:
	static constexpr u32 kMiscSize = 0x1000;	// MiscRAM window bytes
	static constexpr u32 kDeadbeef = 0xDEADBEEFu;
	static constexpr size_t kPostedMax = 4096;	// blobs kept
	// Power telemetry: every kPowerSampleMs the firmware takes a sample
	// and writes each die's POWER word: [15:0] the die's utilization in
	// basis points of max power, [31:16] a sample counter (1 at power-on).
	static constexpr u32 kPowerDice = 2;
	static constexpr u32 kPowerSampleMs = 20;
	static constexpr u32 kPowerMaxBips = 10000;

	// BAR0 words outside MiscRAM kept at most (each about 64 bytes of
	// the server's memory: 64 MiB for the lot).
	static constexpr size_t kBar0WordsMax = size_t(1) << 20;

	struct Config {
		u32 routing_id = 0;
		u32 api_version = 7;
		u64 serial = 0;
		FwTiming timing;
		size_t bar0_words_max = kBar0WordsMax;
	};

	Firmware(const Arch &arch, Clock &clock, const Config &cfg);

	void set_mem(GuestMem *mem) { mem_ = mem; }
	const Arch &arch() const { return arch_; }

	// Power-on state: firmware words, timers, no exchange, no reset.
	void power_on();

	// 32-bit BAR0 accesses (@off 4-aligned, inside BAR0). Reads return
	// what the guest sees (0xDEADBEEF windows included).
	u32 bar0_read32(u64 off);
	void bar0_write32(u64 off, u32 val);
	// The stored word, without time effects (sub-word write merging, tools).
	u32 bar0_peek32(u64 off) const;

	// MiscRAM-relative shorthands.
	u32 misc_read(u32 off) { return bar0_read32(u64(arch_.miscram_off) + off); }
	void misc_write(u32 off, u32 v) { bar0_write32(u64(arch_.miscram_off) + off, v); }
	u32 misc_peek(u32 off) const;
	void misc_poke(u32 off, u32 v);	// control channel: set any word as firmware
	// The tensor engine's PE activity counter whose low word is at BAR0
	// @lsb_off reads @value from now on (the counters are registers the
	// driver only reads: its writes change nothing, counted in ro_writes;
	// a reset leaves them). False, nothing set, when @lsb_off is no
	// counter's low word (or the architecture has none: Trn3).
	bool set_pe_counter(u64 lsb_off, u64 value);
	// What die @die's power samples report from the next sample on (basis
	// points, <= kPowerMaxBips): the workload's draw, kept over resets.
	// Returns false (and changes nothing) for a bad die or value.
	bool set_power_util(u32 die, u32 bips);

	// Work the register path cannot do: guest memory (legacy requests and
	// answers) and answers that have come due. Call after every message
	// and when next_deadline() passes. Not re-entrant (returns at once).
	void service();
	// The next time something changes by itself (absolute ms), if any.
	std::optional<u64> next_deadline() const;

	// Faults.
	void set_fault(const ExchangeFault &f) { fault_ = f; }
	void deadbeef_storm(u32 ms);
	void set_reset_never(bool on) { reset_never_ = on; }
	// Clears every fault; a request the firmware sits on is abandoned.
	void clear_faults();
	std::string faults_text() const;

	// Inspection.
	const FwStats &stats() const { return st_; }
	std::string stats_text() const;
	const std::deque<PostedBlob> &posted() const { return posted_; }
	void clear_posted() { posted_.clear(); }
	bool in_flight() const { return ex_.active; }
	bool reset_in_progress() const { return reset_.active; }

private:
	struct Exchange {
		bool active = false;
		u64 id = 0;			// latch number: a reset or clear between steps shows
		bool legacy = false;
		bool need_read = false;		// legacy: request still in guest memory
		bool answered = false;		// answer computed (resp_*)
		bool hung = false;		// no_answer: never delivered
		u64 due_ms = 0;
		u64 req_addr = 0;		// device addresses (legacy)
		u64 resp_addr = 0;
		u32 dw0 = 0, dw1 = 0;
		std::vector<u8> payload;	// request payload (register-only)
		ExchangeFault fault;
		u32 resp_dw0 = 0;
		std::vector<u8> resp;		// response payload
	};

	struct ResetState {
		bool active = false;
		bool accepted = false;
		u32 type = 0;
		u64 t0 = 0;
	};

	void advance();
	void store_word(u64 off, u32 val);
	void sample_power(u64 now);
	void write_power(u64 n);
	bool deadbeef_now() const;
	u32 &word(u32 off) { return misc_[off / 4]; }
	bool fw_owned(u32 off) const;
	void doorbell(u32 val);
	void start_reset(u32 type);
	void latch();
	ExchangeFault take_fault();
	void process(u32 dw0, u32 dw1, const u8 *payload, size_t avail, size_t max_size);
	void record_post(const u8 *p, u32 len);
	void deliver_regs();
	void service_legacy();
	bool gpa_of(u64 dev_addr, u64 *gpa);
	void abandon();

	const Arch &arch_;
	Clock &clock_;
	Config cfg_;
	GuestMem *mem_ = nullptr;

	std::vector<u32> misc_;		// MiscRAM words
	std::map<u64, u32> other_;	// BAR0 words outside MiscRAM that read non-zero
	// the tensor engine's PE activity counters (read-only registers), by
	// the BAR0 offset of their low word; absent ones read 0
	std::map<u64, u64> pe_;
	const struct neuron_pe_layout *pe_layout_ = nullptr;
	u64 ready_at_ = 0;		// DEVICE_ID readable from then on
	u64 power_t0_ = 0;		// power-on: sample 1 of the power counter
	u64 power_sample_ = 0;		// samples since power-on the words show
	std::array<u32, kPowerDice> power_util_{};	// basis points per die
	u64 dead_from_ = 0, dead_until_ = 0;	// reset's 0xDEADBEEF window
	u64 storm_from_ = 0, storm_until_ = 0;	// deadbeef_storm window
	ResetState reset_;
	Exchange ex_;
	ExchangeFault fault_;
	bool reset_never_ = false;
	bool in_service_ = false;
	u64 latches_ = 0;
	FwStats st_;
	std::deque<PostedBlob> posted_;
};

// Name of a MiscRAM offset ("TRIGGER", "DATA[3]"), or "" if it has none.
std::string misc_name(u32 off);

} // namespace pciemu
