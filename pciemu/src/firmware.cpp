// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The firmware model (firmware.hpp). docs/pciemu.md, "Firmware model".
#include "firmware.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "klib.hpp"

namespace pciemu {

u64 MonotonicClock::now_ms() const
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return u64(ts.tv_sec) * 1000 + u64(ts.tv_nsec) / 1000000;
}

// The product's constants come from the table the driver binds by
// (common/neuron_products); the BAR sizes and BAR0's device-side base are
// the emulator's own.
//
// BAR0 sizes: what the vendor's driver writes into. On v2 its highest
// offset (0x30FA0808) is inside the smallest power of two holding MiscRAM,
// 1 GiB. On v3 (and v4, the same register map) it writes up to 0xBC7E00D0,
// far past MiscRAM: 4 GiB, or a guest's driver writes off the end of the
// BAR.
//
// BAR4 sizes: the vendor's v2 probe fails without a BAR4 ("BAR4 len is
// 0"), and its offsets assume HBM0 and HBM1 of 16 GiB each behind it
// (never checking the size): 32 GiB. On v3/v4 its BAR4 is optional: none.
//
// Device-side BAR0 bases: where the vendor's readless regions put BAR0
// (v2 0x000fffc0000000, v3 0x00008000000000), so that MiscRAM lands at the
// device addresses the vendor's driver reads (0x000ffff0fa0000,
// 0x00008006c84000).
struct ArchBar {
	neuron_product_id product;
	u64 bar0_size;
	u64 bar0_dev_base;
	u64 bar4_size;
};
static const ArchBar kArchBars[] = {
	{ NEURON_PRODUCT_TRN1, 1ull << 30, 0x000fffc0000000ull, 1ull << 35 },
	{ NEURON_PRODUCT_INF2, 1ull << 30, 0x000fffc0000000ull, 1ull << 35 },
	{ NEURON_PRODUCT_TRN2, 1ull << 32, 0x00008000000000ull, 0 },
	{ NEURON_PRODUCT_TRN3, 1ull << 32, 0x00008000000000ull, 0 },
};

const Arch *arch_by_name(std::string_view name)
{
	static const auto archs = [] {
		std::array<Arch, std::size(kArchBars)> a{};
		for (size_t i = 0; i < a.size(); i++) {
			const neuron_product &p = neuron_products[kArchBars[i].product];
			a[i] = Arch{ p.name, p.device_id, p.fw_arch, p.miscram_off, p.host_base,
				     kArchBars[i].bar0_size, kArchBars[i].bar0_dev_base,
				     kArchBars[i].bar4_size };
		}
		return a;
	}();
	for (const Arch &a : archs)
		if (name == a.name)
			return &a;
	return nullptr;
}

const char *fault_name(FaultKind k)
{
	switch (k) {
	case FaultKind::none:
		return "none";
	case FaultKind::no_answer:
		return "no_answer";
	case FaultKind::late_answer:
		return "late_answer";
	case FaultKind::bad_crc:
		return "bad_crc";
	case FaultKind::wrong_seq:
		return "wrong_seq";
	case FaultKind::error:
		return "error";
	case FaultKind::unknown_cmd:
		return "unknown_cmd";
	}
	return "?";
}

std::string misc_name(u32 off)
{
	static const struct {
		u32 off;
		const char *name;
	} names[] = {
		{ NEURON_MISCRAM_API_VERSION, "API_VERSION" },
		{ NEURON_MISCRAM_DEVICE_ID, "DEVICE_ID" },
		{ NEURON_MISCRAM_SERIAL_LO, "SERIAL_LO" },
		{ NEURON_MISCRAM_SERIAL_HI, "SERIAL_HI" },
		{ NEURON_MISCRAM_SRAM_ECC, "SRAM_ECC" },
		{ NEURON_MISCRAM_HBM_ECC(0), "HBM0_ECC" },
		{ NEURON_MISCRAM_HBM_ECC(1), "HBM1_ECC" },
		{ NEURON_MISCRAM_HBM_ECC(2), "HBM2_ECC" },
		{ NEURON_MISCRAM_HBM_ECC(3), "HBM3_ECC" },
		{ NEURON_MISCRAM_POWER(0), "POWER_D0" },
		{ NEURON_MISCRAM_POWER(1), "POWER_D1" },
		{ NEURON_MISCRAM_REPAIR_STATE, "REPAIR_STATE" },
		{ 0x070, "SERVER_RACK_ID" },
		{ NEURON_MISCRAM_ACK, "ACK" },
		{ NEURON_MISCRAM_RESET_TPB_MAP, "RESET_TPB_MAP" },
		{ NEURON_MISCRAM_RESET, "RESET" },
		{ NEURON_MISCRAM_REQ_HI, "REQ_HI" },
		{ NEURON_MISCRAM_REQ_LO, "REQ_LO" },
		{ NEURON_MISCRAM_RESP_HI, "RESP_HI" },
		{ NEURON_MISCRAM_RESP_LO, "RESP_LO" },
		{ NEURON_MISCRAM_TRIGGER, "TRIGGER" },
		{ NEURON_MISCRAM_FW_STATUS, "FW_STATUS" },
	};

	for (const auto &n : names)
		if (n.off == off)
			return n.name;
	if (off >= NEURON_MISCRAM_DATA && off < NEURON_MISCRAM_DATA + NEURON_MISCRAM_DATA_SIZE)
		return "DATA[" + std::to_string((off - NEURON_MISCRAM_DATA) / 4) + "]";
	return "";
}

Firmware::Firmware(const Arch &arch, Clock &clock, const Config &cfg)
	: arch_(arch), clock_(clock), cfg_(cfg), misc_(kMiscSize / 4, 0),
	  pe_layout_(neuron_pe_layout_of(arch.fw_arch))
{
	power_on();
}

void Firmware::power_on()
{
	u64 now = clock_.now_ms();

	std::fill(misc_.begin(), misc_.end(), 0);
	other_.clear();
	ex_ = Exchange();
	reset_ = ResetState();
	dead_from_ = dead_until_ = 0;
	ready_at_ = now + cfg_.timing.ready_ms;
	word(NEURON_MISCRAM_API_VERSION) = cfg_.api_version;
	word(NEURON_MISCRAM_DEVICE_ID) = cfg_.routing_id;
	word(NEURON_MISCRAM_SERIAL_LO) = u32(cfg_.serial);
	word(NEURON_MISCRAM_SERIAL_HI) = u32(cfg_.serial >> 32);
	// the power sampler starts over: sample counter 1
	power_t0_ = now;
	write_power(0);
}

bool Firmware::set_power_util(u32 die, u32 bips)
{
	if (die >= kPowerDice || bips > kPowerMaxBips)
		return false;
	power_util_[die] = bips;
	return true;
}

// The firmware samples every kPowerSampleMs from power-on, and a sample
// reports the utilization of its instant. Brought up to date whenever the
// words may be read: a driver polling slower than the firmware samples
// sees the counter skip, as on the device.
void Firmware::sample_power(u64 now)
{
	u64 n = (now - power_t0_) / kPowerSampleMs;

	if (n != power_sample_)
		write_power(n);
}

// Sample @n since power-on (counter 1 + @n, wrapping at 16 bits).
void Firmware::write_power(u64 n)
{
	power_sample_ = n;
	for (u32 die = 0; die < kPowerDice; die++)
		word(NEURON_MISCRAM_POWER(die)) = u32(u16(1 + n)) << 16 | power_util_[die];
}

// Words only the firmware writes: the driver's writes are ignored (counted).
bool Firmware::fw_owned(u32 off) const
{
	switch (off) {
	case NEURON_MISCRAM_API_VERSION:
	case NEURON_MISCRAM_DEVICE_ID:
	case NEURON_MISCRAM_SERIAL_LO:
	case NEURON_MISCRAM_SERIAL_HI:
	case NEURON_MISCRAM_SRAM_ECC:
	case NEURON_MISCRAM_REPAIR_STATE:
	case NEURON_MISCRAM_FW_STATUS:
		return true;
	}
	if (off >= NEURON_MISCRAM_HBM_ECC(0) && off <= NEURON_MISCRAM_POWER(1))
		return true;
	return false;
}

// Time-driven register changes; nothing here touches guest memory.
void Firmware::advance()
{
	u64 now = clock_.now_ms();

	if (reset_.active && !reset_never_) {
		u64 accept = reset_.t0 + cfg_.timing.reset_accept_ms;

		if (!reset_.accepted && now >= accept) {
			word(NEURON_MISCRAM_RESET) = 0;
			reset_.accepted = true;
		}
		if (reset_.accepted && now >= accept + cfg_.timing.reset_busy_ms) {
			word(NEURON_MISCRAM_FW_STATUS) &= ~u32(NEURON_MISCRAM_FW_STATUS_BUSY);
			reset_.active = false;
		}
	}
	if (ex_.active && !ex_.legacy && ex_.answered && !ex_.hung && now >= ex_.due_ms)
		deliver_regs();
	sample_power(now);
}

bool Firmware::deadbeef_now() const
{
	u64 now = clock_.now_ms();

	return (now >= dead_from_ && now < dead_until_) ||
	       (now >= storm_from_ && now < storm_until_);
}

u32 Firmware::misc_peek(u32 off) const
{
	return off < kMiscSize ? misc_[off / 4] : 0;
}

bool Firmware::set_pe_counter(u64 lsb_off, u64 value)
{
	u64 lsb;

	if (!pe_layout_ || !neuron_pe_is_counter(pe_layout_, lsb_off, &lsb) || lsb != lsb_off)
		return false;
	if (value)
		pe_[lsb] = value;
	else
		pe_.erase(lsb);
	return true;
}

void Firmware::misc_poke(u32 off, u32 v)
{
	if (off < kMiscSize && !(off & 3))
		word(off) = v;
}

u32 Firmware::bar0_peek32(u64 off) const
{
	u64 lsb;

	if (off >= arch_.miscram_off && off - arch_.miscram_off < kMiscSize)
		return misc_peek(u32(off - arch_.miscram_off));
	if (pe_layout_ && neuron_pe_is_counter(pe_layout_, off, &lsb)) {
		auto pe = pe_.find(lsb);
		u64 v = pe == pe_.end() ? 0 : pe->second;

		return off == lsb ? u32(v) : u32(v >> 32);
	}
	auto it = other_.find(off);
	return it == other_.end() ? 0 : it->second;
}

u32 Firmware::bar0_read32(u64 off)
{
	advance();
	if (off >= arch_.miscram_off && off - arch_.miscram_off < kMiscSize) {
		u32 m = u32(off - arch_.miscram_off);

		if (deadbeef_now())
			return kDeadbeef;
		if (m == NEURON_MISCRAM_DEVICE_ID && clock_.now_ms() < ready_at_)
			return kDeadbeef;
		return misc_[m / 4];
	}
	return bar0_peek32(off);
}

// BAR0 outside MiscRAM: plain storage (the DMA engines' queue registers,
// the notification queues', the counters: written, read back, no effect).
// A word that reads 0 has no entry, so a driver clearing a range costs
// nothing; past cfg_.bar0_words_max entries a write of a new word is
// dropped (counted) and the word keeps reading 0, while the words held
// still take writes.
void Firmware::store_word(u64 off, u32 val)
{
	auto it = other_.find(off);

	if (it != other_.end()) {
		if (val)
			it->second = val;
		else
			other_.erase(it);
		return;
	}
	if (!val)
		return;
	if (other_.size() >= cfg_.bar0_words_max) {
		st_.bar0_dropped++;
		return;
	}
	other_.emplace(off, val);
}

void Firmware::bar0_write32(u64 off, u32 val)
{
	u64 lsb;

	advance();
	if (!(off >= arch_.miscram_off && off - arch_.miscram_off < kMiscSize)) {
		// the PE counters are the hardware's: a write changes nothing
		if (pe_layout_ && neuron_pe_is_counter(pe_layout_, off, &lsb))
			st_.ro_writes++;
		else
			store_word(off, val);
		return;
	}
	u32 m = u32(off - arch_.miscram_off);

	if (m == NEURON_MISCRAM_TRIGGER) {
		doorbell(val);
		return;
	}
	if (fw_owned(m)) {
		st_.ro_writes++;
		return;
	}
	word(m) = val;
}

void Firmware::doorbell(u32 val)
{
	if (val == 0) {
		st_.trigger_zero++;
		return;
	}
	if (val != 1) {
		st_.trigger_other++;
		return;
	}
	st_.doorbells++;
	if (reset_.active) {
		if (word(NEURON_MISCRAM_RESET))
			st_.reset_rings++;
		else
			st_.refused_reset++;
		return;
	}
	if (word(NEURON_MISCRAM_RESET)) {
		start_reset(word(NEURON_MISCRAM_RESET));
		return;
	}
	word(NEURON_MISCRAM_TRIGGER) = 1;
	if (ex_.active) {
		st_.refused_busy++;
		return;
	}
	latch();
}

// RESET set when the doorbell rang: taken at once (TRIGGER clear, busy),
// RESET cleared reset_accept_ms later, busy reset_busy_ms after that. A
// device reset (type bit 0) also restarts the firmware: the exchange in
// flight is dropped, every MiscRAM word reads 0xDEADBEEF for
// reset_deadbeef_ms and DEVICE_ID for ready_ms.
void Firmware::start_reset(u32 type)
{
	u64 now = clock_.now_ms();

	st_.resets++;
	reset_.active = true;
	reset_.accepted = false;
	reset_.type = type;
	reset_.t0 = now;
	word(NEURON_MISCRAM_TRIGGER) = 0;
	word(NEURON_MISCRAM_FW_STATUS) |= NEURON_MISCRAM_FW_STATUS_BUSY;
	if (type & 1) {
		if (ex_.active)
			st_.dropped++;
		ex_ = Exchange();
		dead_from_ = now;
		dead_until_ = now + cfg_.timing.reset_deadbeef_ms;
		ready_at_ = now + cfg_.timing.ready_ms;
	}
}

ExchangeFault Firmware::take_fault()
{
	ExchangeFault f = fault_;

	if (fault_.kind != FaultKind::none && fault_.times) {
		if (--fault_.times == 0)
			fault_ = ExchangeFault();
	}
	return f;
}

void Firmware::latch()
{
	u64 resp = u64(word(NEURON_MISCRAM_RESP_HI)) << 32 | word(NEURON_MISCRAM_RESP_LO);

	if (resp) {
		// legacy: the request is in guest memory; service() reads it
		ex_ = Exchange();
		ex_.active = true;
		ex_.id = ++latches_;
		ex_.legacy = true;
		ex_.need_read = true;
		ex_.resp_addr = resp;
		ex_.req_addr = u64(word(NEURON_MISCRAM_REQ_HI)) << 32 | word(NEURON_MISCRAM_REQ_LO);
		ex_.fault = take_fault();
		st_.requests++;
		st_.legacy++;
		return;
	}
	// register-only: the vendor's firmware serves it on v3/v4 with API >= 7,
	// after ACK = 1; otherwise the doorbell is ignored (TRIGGER stays 1)
	if (arch_.fw_arch == NEURON_FW_ARCH_V2 || cfg_.api_version < NEURON_FWIO_MIN_API_VERSION ||
	    word(NEURON_MISCRAM_ACK) != 1) {
		st_.refused_regs++;
		return;
	}
	u8 data[NEURON_MISCRAM_DATA_SIZE];

	for (u32 i = 0; i < NEURON_MISCRAM_DATA_SIZE / 4; i++) {
		u32 w = word(NEURON_MISCRAM_DATA + 4 * i);

		for (u32 k = 0; k < 4; k++)
			data[4 * i + k] = u8(w >> (8 * k));
	}
	ex_ = Exchange();
	ex_.active = true;
	ex_.id = ++latches_;
	ex_.fault = take_fault();
	st_.requests++;
	st_.regs++;
	process(word(NEURON_MISCRAM_HDR0), word(NEURON_MISCRAM_HDR1), data, sizeof(data),
		NEURON_FWIO_REQ_HDR_SIZE + NEURON_MISCRAM_DATA_SIZE);
	advance();
}

// Validate and execute the latched request with the shared firmware model
// (common/neuron_fw_model.c, the simulated firmware's too); the answer
// goes into ex_. @avail: payload bytes readable at @payload; @max_size: the
// largest request.
void Firmware::process(u32 dw0, u32 dw1, const u8 *payload, size_t avail, size_t max_size)
{
	const ExchangeFault &f = ex_.fault;
	neuron_fw_model_dev dev{};
	neuron_fw_model_fault fault = NEURON_FW_MODEL_NONE;
	neuron_fw_model_answer a;

	dev.read_word = [](void *ctx, u64 addr) -> u32 {
		auto *fw = static_cast<Firmware *>(ctx);
		// the device's view of its own BAR0 (the readless-read base)
		if (addr >= fw->arch_.bar0_dev_base &&
		    addr - fw->arch_.bar0_dev_base < fw->arch_.bar0_size && !(addr & 3))
			return fw->bar0_peek32(addr - fw->arch_.bar0_dev_base);
		return kDeadbeef;
	};
	dev.posted = [](void *ctx, const u8 *blob, u32 len) {
		static_cast<Firmware *>(ctx)->record_post(blob, len);
	};
	dev.power_profile = [](void *ctx, u8 profile) {
		static_cast<Firmware *>(ctx)->st_.power_profile = profile;
	};
	dev.ctx = this;
	switch (f.kind) {
	case FaultKind::bad_crc: fault = NEURON_FW_MODEL_BAD_CRC; break;
	case FaultKind::error: fault = NEURON_FW_MODEL_ERROR; break;
	case FaultKind::unknown_cmd: fault = NEURON_FW_MODEL_UNKNOWN_COMMAND; break;
	case FaultKind::wrong_seq: fault = NEURON_FW_MODEL_WRONG_SEQ; break;
	default: break;	// the others change when it answers, not what
	}

	ex_.dw0 = dw0;
	ex_.dw1 = dw1;
	neuron_fw_model_account_seq(&st_.seq, neuron_fwio_dw0_seq(dw0));
	neuron_fw_model_serve(&dev, dw0, dw1, payload, u32(avail), u32(max_size), fault,
			      u8(f.arg), &a);
	if (a.crc_error)
		st_.crc_errors++;
	if (a.bad_post)
		st_.bad_posts++;
	ex_.resp.assign(a.data, a.data + a.len);
	ex_.resp_dw0 = a.resp_dw0;
	ex_.answered = true;
	ex_.hung = f.kind == FaultKind::no_answer;
	ex_.due_ms = clock_.now_ms() + (f.kind == FaultKind::late_answer ? f.arg : 0);
}

// A POST_TO_CW blob the model accepted: kept, decoded, for `get blobs`.
void Firmware::record_post(const u8 *p, u32 len)
{
	PostedBlob b;
	u32 off = 0;
	const u8 *val;
	u8 id, vlen;

	while (neuron_metric_next(p, len, &off, &id, &val, &vlen) > 0)
		b.records.push_back({ id, std::string(reinterpret_cast<const char *>(val), vlen) });
	b.t_ms = clock_.now_ms();
	b.data.assign(p, p + len);
	posted_.push_back(std::move(b));
	if (posted_.size() > kPostedMax)
		posted_.pop_front();
}

// Register-only answer: payload into DATA, header into 0x1F0, TRIGGER 0.
void Firmware::deliver_regs()
{
	u32 words[NEURON_MISCRAM_DATA_SIZE / 4];
	u32 n = neuron_fwio_pack_words(ex_.resp.data(), ex_.resp.size(), words);

	for (u32 i = 0; i < n; i++)
		word(NEURON_MISCRAM_DATA + 4 * i) = words[i];
	word(NEURON_MISCRAM_HDR0) = ex_.resp_dw0;
	word(NEURON_MISCRAM_TRIGGER) = 0;
	ex_ = Exchange();
	st_.answered++;
}

// A legacy address is the guest address with this arch's window bit set.
bool Firmware::gpa_of(u64 dev_addr, u64 *gpa)
{
	if (!(dev_addr & arch_.host_window)) {
		st_.bad_window++;
		return false;
	}
	*gpa = dev_addr & ~arch_.host_window;
	return true;
}

// The firmware gives up on the exchange: no answer, TRIGGER clear.
void Firmware::abandon()
{
	ex_ = Exchange();
	word(NEURON_MISCRAM_TRIGGER) = 0;
}

void Firmware::service_legacy()
{
	// the largest legacy request: a READ of 128 addresses
	constexpr size_t kMaxReq = NEURON_FWIO_REQ_HDR_SIZE + 8 * 128;
	const u64 id = ex_.id;
	// guest memory over messages lets the client's commands in meanwhile:
	// a reset (or a fault clear) may have ended this exchange
	auto gone = [this, id] { return !ex_.active || ex_.id != id; };
	u64 gpa;

	if (ex_.need_read) {
		u8 hdr[NEURON_FWIO_REQ_HDR_SIZE];
		std::vector<u8> payload;

		ex_.need_read = false;
		if (!gpa_of(ex_.req_addr, &gpa)) {
			abandon();
			return;
		}
		if (!mem_ || !mem_->read(gpa, hdr, sizeof(hdr))) {
			if (gone())
				return;
			st_.dma_errors++;
			abandon();
			return;
		}
		if (gone())
			return;
		u32 dw0 = u32(hdr[0]) | u32(hdr[1]) << 8 | u32(hdr[2]) << 16 | u32(hdr[3]) << 24;
		u32 dw1 = u32(hdr[4]) | u32(hdr[5]) << 8 | u32(hdr[6]) << 16 | u32(hdr[7]) << 24;
		u16 size = neuron_fwio_dw0_size(dw0);

		if (size > NEURON_FWIO_REQ_HDR_SIZE && size <= kMaxReq) {
			payload.resize(size - NEURON_FWIO_REQ_HDR_SIZE);
			bool ok = mem_->read(gpa + NEURON_FWIO_REQ_HDR_SIZE, payload.data(),
					     payload.size());
			if (gone())
				return;
			if (!ok) {
				st_.dma_errors++;
				abandon();
				return;
			}
		}
		process(dw0, dw1, payload.data(), payload.size(), kMaxReq);
	}
	if (!ex_.answered || ex_.hung || clock_.now_ms() < ex_.due_ms)
		return;
	// TRIGGER clear, then payload, header bytes 1..3, the sequence byte last
	word(NEURON_MISCRAM_TRIGGER) = 0;
	Exchange ex = ex_;
	ex_ = Exchange();
	if (!gpa_of(ex.resp_addr, &gpa) || !mem_)
		return;
	// the response's bytes must not wrap past the top of the address space
	if (gpa > UINT64_MAX - NEURON_FWIO_RESP_HDR_SIZE - ex.resp.size()) {
		st_.dma_errors++;
		return;
	}
	u8 hdr[4] = { u8(ex.resp_dw0), u8(ex.resp_dw0 >> 8), u8(ex.resp_dw0 >> 16),
		      u8(ex.resp_dw0 >> 24) };
	bool ok = ex.resp.empty() ||
		  mem_->write(gpa + NEURON_FWIO_RESP_HDR_SIZE, ex.resp.data(), ex.resp.size());
	ok = ok && mem_->write(gpa + 1, hdr + 1, 3) && mem_->write(gpa, hdr, 1);
	if (!ok)
		st_.dma_errors++;
	else
		st_.answered++;
}

void Firmware::service()
{
	if (in_service_)
		return;
	in_service_ = true;
	advance();
	if (ex_.active && ex_.legacy)
		service_legacy();
	in_service_ = false;
}

std::optional<u64> Firmware::next_deadline() const
{
	std::optional<u64> d;
	auto take = [&d](u64 t) {
		if (!d || t < *d)
			d = t;
	};
	u64 now = clock_.now_ms();

	if (ex_.active && ex_.legacy && ex_.need_read)
		take(now);
	if (ex_.active && ex_.answered && !ex_.hung)
		take(ex_.due_ms);
	if (reset_.active && !reset_never_) {
		u64 accept = reset_.t0 + cfg_.timing.reset_accept_ms;

		take(reset_.accepted ? accept + cfg_.timing.reset_busy_ms : accept);
	}
	return d;
}

void Firmware::deadbeef_storm(u32 ms)
{
	storm_from_ = clock_.now_ms();
	storm_until_ = storm_from_ + ms;
}

void Firmware::clear_faults()
{
	fault_ = ExchangeFault();
	storm_from_ = storm_until_ = 0;
	reset_never_ = false;
	if (ex_.active && ex_.hung) {
		st_.dropped++;
		abandon();
	}
}

std::string Firmware::faults_text() const
{
	std::string s = "exchange ";

	s += fault_name(fault_.kind);
	if (fault_.kind == FaultKind::late_answer || fault_.kind == FaultKind::error)
		s += " " + std::to_string(fault_.arg);
	if (fault_.times)
		s += " times=" + std::to_string(fault_.times);
	s += "\n";
	u64 now = clock_.now_ms();
	s += "deadbeef_storm " + std::to_string(storm_until_ > now ? storm_until_ - now : 0) + "\n";
	s += std::string("reset_never_completes ") + (reset_never_ ? "1" : "0") + "\n";
	return s;
}

std::string Firmware::stats_text() const
{
	std::string s;
	auto line = [&s](const char *k, u64 v) { s += std::string(k) + " " + std::to_string(v) + "\n"; };

	line("doorbells", st_.doorbells);
	line("requests", st_.requests);
	line("legacy", st_.legacy);
	line("regs", st_.regs);
	line("answered", st_.answered);
	line("resets", st_.resets);
	line("reset_rings", st_.reset_rings);
	line("refused_busy", st_.refused_busy);
	line("refused_reset", st_.refused_reset);
	line("refused_regs", st_.refused_regs);
	line("trigger_zero", st_.trigger_zero);
	line("trigger_other", st_.trigger_other);
	line("ro_writes", st_.ro_writes);
	line("crc_errors", st_.crc_errors);
	line("bad_window", st_.bad_window);
	line("dma_errors", st_.dma_errors);
	line("dropped", st_.dropped);
	line("zero_seq", st_.seq.zero_seq);
	line("seq_gaps", st_.seq.seq_gaps);
	line("last_seq", st_.seq.last_seq);
	line("bad_posts", st_.bad_posts);
	line("posted", posted_.size());
	line("bar0_words", other_.size());
	line("bar0_dropped", st_.bar0_dropped);
	s += "power_profile " + std::to_string(st_.power_profile) + "\n";
	line("in_flight", ex_.active);
	line("reset_in_progress", reset_.active);
	return s;
}

} // namespace pciemu
