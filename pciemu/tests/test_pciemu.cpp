// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * neuron-pciemu: the vfio-user protocol over a socketpair (the test is the
 * client; the server handles one message per handle_one() call), the
 * firmware model on a hand-driven clock with a memfd as guest RAM, and the
 * control channel parser. No sleeps: time is the ManualClock's.
 */
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <linux/vfio.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
extern "C" {
#include <cmocka.h>
}

#include "control.hpp"
#include "device.hpp"
#include "firmware.hpp"
#include "klib.hpp"
#include "vfio_server.hpp"

using namespace pciemu;

namespace {

// MiscRAM offsets, written out from the fact sheet (not from the headers).
constexpr u32 M_API = 0x000, M_DEVID = 0x024, M_SERLO = 0x038, M_ACK = 0x0F0, M_DATA = 0x100,
	      M_RESET = 0x1EC, M_REQ_HI = 0x1F0, M_REQ_LO = 0x1F4, M_RESP_HI = 0x1F8,
	      M_RESP_LO = 0x1FC, M_TRIGGER = 0x800, M_FW_STATUS = 0x808, M_SRAM_ECC = 0x040,
	      M_POWER0 = 0x054, M_POWER1 = 0x058;
constexpr u32 DEADBEEF = 0xDEADBEEFu;

// Guest RAM: a memfd, mapped here, at guest physical kRamBase.
constexpr u64 kRamBase = 0x100000;
constexpr size_t kRamSize = 1 << 20;

struct Ram {
	int fd;
	u8 *p;
	Ram()
	{
		fd = memfd_create("guest-ram", MFD_CLOEXEC);
		assert_true(fd >= 0);
		assert_int_equal(ftruncate(fd, kRamSize), 0);
		p = static_cast<u8 *>(mmap(nullptr, kRamSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
		assert_true(p != MAP_FAILED);
	}
	~Ram()
	{
		munmap(p, kRamSize);
		close(fd);
	}
	u8 *at(u64 gpa) { return p + (gpa - kRamBase); }
};

// GuestMem straight onto a Ram (firmware tests without a server).
struct RamMem : GuestMem {
	Ram &ram;
	explicit RamMem(Ram &r) : ram(r) {}
	bool read(u64 gpa, void *b, size_t n) override
	{
		if (gpa < kRamBase || gpa + n > kRamBase + kRamSize)
			return false;
		memcpy(b, ram.at(gpa), n);
		return true;
	}
	bool write(u64 gpa, const void *b, size_t n) override
	{
		if (gpa < kRamBase || gpa + n > kRamBase + kRamSize)
			return false;
		memcpy(ram.at(gpa), b, n);
		return true;
	}
};

void put32(u8 *p, u32 v)
{
	for (int i = 0; i < 4; i++)
		p[i] = u8(v >> (8 * i));
}

u32 get32(const u8 *p)
{
	return u32(p[0]) | u32(p[1]) << 8 | u32(p[2]) << 16 | u32(p[3]) << 24;
}

Firmware::Config fw_config(u32 rid = 5)
{
	Firmware::Config c;

	c.routing_id = rid;
	c.api_version = 7;
	c.serial = 0x1122334455667788ull;
	c.timing.ready_ms = 1000;
	c.timing.reset_accept_ms = 300;
	c.timing.reset_busy_ms = 200;
	c.timing.reset_deadbeef_ms = 150;
	return c;
}

// ---- firmware rig -----------------------------------------------------------

struct FwRig {
	const Arch &arch;
	ManualClock clk;
	Ram ram;
	RamMem mem{ ram };
	Firmware fw;
	u8 seq = 1;

	explicit FwRig(const char *a = "trn1", Firmware::Config c = fw_config())
		: arch(*arch_by_name(a)), fw(arch, clk, c)
	{
		fw.set_mem(&mem);
		clk.advance(c.timing.ready_ms);	// past the power-on window
	}

	// A legacy exchange as the driver makes it: request at gpa 0x2000,
	// response at 0x3000, addresses LOW then HIGH, response seq cleared,
	// TRIGGER = 1. Returns the sequence number used.
	u8 legacy(u8 cmd, const void *payload, u16 len, u64 window = ~0ull)
	{
		u64 w = window == ~0ull ? arch.host_window : window;
		u64 req = (kRamBase + 0x2000) | w, resp = (kRamBase + 0x3000) | w;
		u8 *r = ram.at(kRamBase + 0x2000);

		seq = neuron_fwio_seq_next(seq);
		u32 dw0 = neuron_fwio_req_dw0(seq, cmd, u16(8 + len));
		put32(r, dw0);
		put32(r + 4, neuron_fwio_req_crc_sw(dw0, payload, len));
		memcpy(r + 8, payload, len);
		memset(ram.at(kRamBase + 0x3000), 0, 256);
		fw.misc_write(M_REQ_LO, u32(req));
		fw.misc_write(M_REQ_HI, u32(req >> 32));
		fw.misc_write(M_RESP_LO, u32(resp));
		fw.misc_write(M_RESP_HI, u32(resp >> 32));
		fw.misc_write(M_TRIGGER, 1);
		fw.service();
		return seq;
	}
	const u8 *resp() { return ram.at(kRamBase + 0x3000); }

	// A register-only exchange (the new framework).
	u8 regs(u8 cmd, const void *payload, u16 len, bool ack = true)
	{
		u32 words[32];
		u32 n = neuron_fwio_pack_words(payload, len, words);

		seq = neuron_fwio_seq_next(seq);
		u32 dw0 = neuron_fwio_req_dw0(seq, cmd, u16(8 + len));
		for (u32 i = 0; i < n; i++)
			fw.misc_write(M_DATA + 4 * i, words[i]);
		fw.misc_write(M_REQ_HI, dw0);
		fw.misc_write(M_REQ_LO, neuron_fwio_req_crc_sw(dw0, payload, len));
		fw.misc_write(M_RESP_HI, 0);
		fw.misc_write(M_RESP_LO, 0);
		fw.misc_write(M_ACK, ack ? 1 : 0);
		fw.misc_write(M_TRIGGER, 1);
		fw.service();
		return seq;
	}
};

// A READ of two MiscRAM words (API_VERSION, SERIAL_LO) at their device addresses.
std::vector<u8> read_payload(const Arch &a)
{
	std::vector<u8> p(16);
	u64 base = a.bar0_dev_base + a.miscram_off;
	u64 addrs[2] = { base + M_API, base + M_SERLO };

	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 8; k++)
			p[8 * i + k] = u8(addrs[i] >> (8 * k));
	return p;
}

void check_read_answer(FwRig &r, u8 seq)
{
	const u8 *resp = r.resp();

	assert_int_equal(resp[0], seq);
	assert_int_equal(resp[1], 0);	// SUCCESS
	assert_int_equal(resp[2] | resp[3] << 8, 4 + 8);
	assert_int_equal(get32(resp + 4), 7);
	assert_int_equal(get32(resp + 8), 0x55667788);
}

void fw_ready_delay(void **)
{
	ManualClock clk;
	Firmware fw(*arch_by_name("trn1"), clk, fw_config(9));

	assert_int_equal(fw.misc_read(M_DEVID), DEADBEEF);
	clk.advance(999);
	assert_int_equal(fw.misc_read(M_DEVID), DEADBEEF);
	assert_int_equal(fw.misc_read(M_API), 7);	// only DEVICE_ID waits
	clk.advance(1);
	assert_int_equal(fw.misc_read(M_DEVID), 9);
	// the driver cannot overwrite a firmware word
	fw.misc_write(M_DEVID, 3);
	assert_int_equal(fw.misc_read(M_DEVID), 9);
	assert_int_equal(fw.stats().ro_writes, 1);
	// power-on again (VFIO device reset): not ready again
	fw.power_on();
	assert_int_equal(fw.misc_read(M_DEVID), DEADBEEF);
	clk.advance(1000);
	assert_int_equal(fw.misc_read(M_DEVID), 9);
}

void fw_reset_handshake(void **)
{
	FwRig r;
	Firmware &fw = r.fw;

	fw.misc_write(M_RESET, 1);
	assert_false(fw.reset_in_progress());
	fw.misc_write(M_TRIGGER, 1);
	assert_true(fw.reset_in_progress());
	assert_int_equal(fw.stats().resets, 1);
	// the 0xDEADBEEF window: every word
	assert_int_equal(fw.misc_read(M_RESET), DEADBEEF);
	assert_int_equal(fw.misc_read(M_FW_STATUS), DEADBEEF);
	assert_int_equal(fw.misc_read(M_API), DEADBEEF);
	r.clk.advance(150);
	assert_int_equal(fw.misc_read(M_RESET), 1);		// not taken yet
	assert_int_equal(fw.misc_read(M_FW_STATUS) & 8, 8);	// busy
	assert_int_equal(fw.misc_read(M_TRIGGER), 0);
	assert_int_equal(fw.misc_read(M_API), 7);
	assert_int_equal(*fw.next_deadline(), 1000 + 300);
	r.clk.advance(149);
	assert_int_equal(fw.misc_read(M_RESET), 1);
	r.clk.advance(1);
	assert_int_equal(fw.misc_read(M_RESET), 0);		// accepted at 300 ms
	assert_int_equal(fw.misc_read(M_FW_STATUS) & 8, 8);
	r.clk.advance(199);
	assert_int_equal(fw.misc_read(M_FW_STATUS) & 8, 8);
	r.clk.advance(1);
	assert_int_equal(fw.misc_read(M_FW_STATUS) & 8, 0);	// done at 500 ms
	assert_false(fw.reset_in_progress());
	// DEVICE_ID: ready_ms after the reset started
	assert_int_equal(fw.misc_read(M_DEVID), DEADBEEF);
	r.clk.advance(500);
	assert_int_equal(fw.misc_read(M_DEVID), 5);
	assert_false(fw.next_deadline().has_value());
}

void fw_reset_never_completes(void **)
{
	FwRig r;

	r.fw.set_reset_never(true);
	r.fw.misc_write(M_RESET, 1);
	r.fw.misc_write(M_TRIGGER, 1);
	r.clk.advance(120000);
	assert_int_equal(r.fw.misc_read(M_RESET), 1);
	assert_int_equal(r.fw.misc_read(M_FW_STATUS) & 8, 8);
	// the driver rings again: counted, the reset goes on
	r.fw.misc_write(M_RESET, 1);
	r.fw.misc_write(M_TRIGGER, 1);
	assert_int_equal(r.fw.stats().reset_rings, 1);
	assert_int_equal(r.fw.stats().resets, 1);
	// an FW-IO doorbell during a reset is not served
	r.fw.clear_faults();
	r.clk.advance(1);
	assert_int_equal(r.fw.misc_read(M_RESET), 0);	// clear lets it complete
}

void fw_legacy_read_roundtrip(void **)
{
	for (const char *a : { "trn1", "trn2" }) {
		FwRig r(a);
		std::vector<u8> p = read_payload(r.arch);
		u8 seq = r.legacy(NEURON_FWIO_CMD_READ, p.data(), u16(p.size()));

		check_read_answer(r, seq);
		assert_int_equal(r.fw.misc_read(M_TRIGGER), 0);
		assert_int_equal(r.fw.stats().legacy, 1);
		assert_int_equal(r.fw.stats().answered, 1);
		assert_false(r.fw.in_flight());
	}
}

void fw_legacy_window_bit(void **)
{
	// v2 takes bit 44, v3 bit 46: the other arch's bit is not a host address
	FwRig r("trn1");
	std::vector<u8> p = read_payload(r.arch);

	r.legacy(NEURON_FWIO_CMD_READ, p.data(), u16(p.size()), 1ull << 46);
	assert_int_equal(r.resp()[0], 0);
	assert_int_equal(r.fw.stats().bad_window, 1);
	assert_int_equal(r.fw.misc_read(M_TRIGGER), 0);
	FwRig r3("trn2");
	p = read_payload(r3.arch);
	r3.legacy(NEURON_FWIO_CMD_READ, p.data(), u16(p.size()), 1ull << 44);
	assert_int_equal(r3.fw.stats().bad_window, 1);
	u8 seq = r3.legacy(NEURON_FWIO_CMD_READ, p.data(), u16(p.size()));
	check_read_answer(r3, seq);
}

void fw_legacy_post_metrics(void **)
{
	FwRig r;
	const u8 blob[] = { 12, 3, 'i', '-', '1', 13, 5, '2', '.', '2', '5', 'x', 11, 2, '4', '2' };
	u8 seq = r.legacy(NEURON_FWIO_CMD_POST_TO_CW, blob, sizeof(blob));

	assert_int_equal(r.resp()[0], seq);
	assert_int_equal(r.resp()[1], 0);
	assert_int_equal(r.fw.posted().size(), 1);
	const PostedBlob &b = r.fw.posted().front();
	assert_int_equal(b.records.size(), 3);
	assert_int_equal(b.records[2].id, 11);
	assert_string_equal(b.records[2].value.c_str(), "42");
	assert_string_equal(b.records[1].value.c_str(), "2.25x");
	// a malformed blob (record runs past the end): FAIL, not recorded
	const u8 bad[] = { 12, 9, 'x' };
	seq = r.legacy(NEURON_FWIO_CMD_POST_TO_CW, bad, sizeof(bad));
	assert_int_equal(r.resp()[0], seq);
	assert_int_equal(r.resp()[1], NEURON_FWIO_FAIL);
	assert_int_equal(r.fw.posted().size(), 1);
	assert_int_equal(r.fw.stats().bad_posts, 1);

	// the version metrics ("major.minor.build", a type digit), 56, 50..55
	const u8 vers[] = { 56, 1, '2', 180, 9, '2', '.', '2', '5', '.', '1', '0', '0', '0',
			    190, 6, '1', '.', '1', '3', '.', '7', 191, 1, '3',
			    195, 5, '1', '.', '0', '.', '2', 50, 3, '5', '0', '1', 54, 1, '0' };
	seq = r.legacy(NEURON_FWIO_CMD_POST_TO_CW, vers, sizeof(vers));
	assert_int_equal(r.resp()[0], seq);
	assert_int_equal(r.resp()[1], 0);
	assert_int_equal(r.fw.posted().size(), 2);
	const PostedBlob &v = r.fw.posted().back();
	assert_int_equal(v.records.size(), 7);
	assert_int_equal(v.records[1].id, 180);
	assert_string_equal(v.records[1].value.c_str(), "2.25.1000");
	assert_string_equal(v.records[3].value.c_str(), "3");
	assert_string_equal(v.records[5].value.c_str(), "501");
	// a value out of its metric's format: FAIL, not recorded
	const u8 badver[][6] = {
		{ 180, 4, '2', '.', '2', '5' },	// two parts
		{ 191, 2, '1', '3', 0, 0 },		// type: one digit
		{ 50, 4, '1', '.', '5', 0 },		// driver metric: decimal
	};
	for (size_t i = 0; i < 3; i++) {
		seq = r.legacy(NEURON_FWIO_CMD_POST_TO_CW, badver[i], u16(2 + badver[i][1]));
		assert_int_equal(r.resp()[1], NEURON_FWIO_FAIL);
	}
	assert_int_equal(r.fw.posted().size(), 2);
	assert_int_equal(r.fw.stats().bad_posts, 4);
}

void fw_regs_power_profile(void **)
{
	const u8 prof[8] = { 0, 0, 0, 0, 2, 0, 0, 0 };
	{
		FwRig r("trn2");
		u8 seq = r.regs(NEURON_FWIO_CMD_SET_POWER_PROFILE, prof, 8);

		assert_int_equal(r.fw.misc_read(M_TRIGGER), 0);
		assert_int_equal(r.fw.misc_read(M_REQ_HI), neuron_fwio_resp_dw0(seq, 0, 4));
		assert_int_equal(r.fw.stats().power_profile, 2);
		assert_int_equal(r.fw.stats().regs, 1);
		// without ACK = 1: not served, TRIGGER stays set
		r.regs(NEURON_FWIO_CMD_SET_POWER_PROFILE, prof, 8, false);
		assert_int_equal(r.fw.misc_read(M_TRIGGER), 1);
		assert_int_equal(r.fw.stats().refused_regs, 1);
	}
	{
		FwRig r("trn1");	// v2: no register-only mailbox

		r.regs(NEURON_FWIO_CMD_SET_POWER_PROFILE, prof, 8);
		assert_int_equal(r.fw.misc_read(M_TRIGGER), 1);
		assert_int_equal(r.fw.stats().refused_regs, 1);
		assert_int_equal(r.fw.stats().power_profile, -1);
		// the legacy path still works after it
		std::vector<u8> p = read_payload(r.arch);
		u8 seq = r.legacy(NEURON_FWIO_CMD_READ, p.data(), u16(p.size()));
		check_read_answer(r, seq);
	}
	{
		Firmware::Config c = fw_config();
		c.api_version = 6;
		FwRig r("trn2", c);

		r.regs(NEURON_FWIO_CMD_SET_POWER_PROFILE, prof, 8);
		assert_int_equal(r.fw.stats().refused_regs, 1);
	}
}

void fw_bad_crc_in_request(void **)
{
	FwRig r;
	std::vector<u8> p = read_payload(r.arch);
	u8 seq = r.legacy(NEURON_FWIO_CMD_READ, p.data(), u16(p.size()));

	// corrupt the stored CRC and ring again with the same request bytes
	u8 *req = r.ram.at(kRamBase + 0x2000);
	req[0] = u8(++seq);
	r.fw.misc_write(M_TRIGGER, 1);
	r.fw.service();
	assert_int_equal(r.resp()[0], seq);
	assert_int_equal(r.resp()[1], NEURON_FWIO_FAIL);
	assert_int_equal(r.fw.stats().crc_errors, 1);
}

void fw_fault_no_answer(void **)
{
	FwRig r;
	std::vector<u8> p = read_payload(r.arch);

	r.fw.set_fault({ FaultKind::no_answer, 0, 0 });
	r.legacy(NEURON_FWIO_CMD_READ, p.data(), u16(p.size()));
	r.clk.advance(60000);
	r.fw.service();
	assert_int_equal(r.resp()[0], 0);
	assert_int_equal(r.fw.misc_read(M_TRIGGER), 1);
	assert_true(r.fw.in_flight());
	// a retry finds the firmware busy
	r.legacy(NEURON_FWIO_CMD_READ, p.data(), u16(p.size()));
	assert_int_equal(r.fw.stats().refused_busy, 1);
	assert_int_equal(r.resp()[0], 0);
	// fault clear abandons it; the next attempt is answered
	r.fw.clear_faults();
	assert_false(r.fw.in_flight());
	assert_int_equal(r.fw.stats().dropped, 1);
	u8 seq = r.legacy(NEURON_FWIO_CMD_READ, p.data(), u16(p.size()));
	check_read_answer(r, seq);
}

void fw_fault_late_answer(void **)
{
	FwRig r;
	std::vector<u8> p = read_payload(r.arch);

	r.fw.set_fault({ FaultKind::late_answer, 700, 1 });
	u8 seq = r.legacy(NEURON_FWIO_CMD_READ, p.data(), u16(p.size()));
	assert_int_equal(*r.fw.next_deadline(), r.clk.now_ms() + 700);
	r.clk.advance(699);
	r.fw.service();
	assert_int_equal(r.resp()[0], 0);
	assert_int_equal(r.fw.misc_read(M_TRIGGER), 1);
	r.clk.advance(1);
	r.fw.service();
	check_read_answer(r, seq);
	// times=1: the next one is answered at once
	seq = r.legacy(NEURON_FWIO_CMD_READ, p.data(), u16(p.size()));
	check_read_answer(r, seq);

	// register-only late answer: TRIGGER clears when it lands, on a read
	FwRig r3("trn2");
	const u8 prof[8] = { 0, 0, 0, 0, 1, 0, 0, 0 };
	r3.fw.set_fault({ FaultKind::late_answer, 1500, 0 });
	r3.regs(NEURON_FWIO_CMD_SET_POWER_PROFILE, prof, 8);
	r3.clk.advance(1499);
	assert_int_equal(r3.fw.misc_read(M_TRIGGER), 1);
	r3.clk.advance(1);
	assert_int_equal(r3.fw.misc_read(M_TRIGGER), 0);
}

void fw_fault_codes(void **)
{
	FwRig r;
	std::vector<u8> p = read_payload(r.arch);
	u8 seq;

	r.fw.set_fault({ FaultKind::bad_crc, 0, 1 });
	seq = r.legacy(NEURON_FWIO_CMD_READ, p.data(), u16(p.size()));
	assert_int_equal(r.resp()[0], seq);
	assert_int_equal(r.resp()[1], NEURON_FWIO_FAIL);
	assert_int_equal(r.resp()[2], 4);	// no payload
	assert_int_equal(r.fw.stats().crc_errors, 1);

	r.fw.set_fault({ FaultKind::wrong_seq, 0, 1 });
	seq = r.legacy(NEURON_FWIO_CMD_READ, p.data(), u16(p.size()));
	assert_int_equal(r.resp()[0], seq ^ 0x80);
	assert_int_equal(r.resp()[1], 0);

	r.fw.set_fault({ FaultKind::error, 7, 1 });
	seq = r.legacy(NEURON_FWIO_CMD_READ, p.data(), u16(p.size()));
	assert_int_equal(r.resp()[0], seq);
	assert_int_equal(r.resp()[1], 7);

	r.fw.set_fault({ FaultKind::unknown_cmd, 0, 2 });
	seq = r.legacy(NEURON_FWIO_CMD_READ, p.data(), u16(p.size()));
	assert_int_equal(r.resp()[1], NEURON_FWIO_UNKNOWN_COMMAND);
	seq = r.legacy(NEURON_FWIO_CMD_READ, p.data(), u16(p.size()));
	assert_int_equal(r.resp()[1], NEURON_FWIO_UNKNOWN_COMMAND);
	seq = r.legacy(NEURON_FWIO_CMD_READ, p.data(), u16(p.size()));
	check_read_answer(r, seq);	// times=2 used up

	// an id the firmware does not know
	seq = r.legacy(9, p.data(), u16(p.size()));
	assert_int_equal(r.resp()[1], NEURON_FWIO_UNKNOWN_COMMAND);
	assert_int_equal(r.fw.stats().seq.seq_gaps, 0);
	assert_int_equal(r.fw.stats().seq.zero_seq, 0);
}

void fw_fault_deadbeef_storm(void **)
{
	FwRig r;

	r.fw.deadbeef_storm(250);
	assert_int_equal(r.fw.misc_read(M_API), DEADBEEF);
	assert_int_equal(r.fw.misc_read(M_DEVID), DEADBEEF);
	r.fw.misc_write(M_ACK, 1);	// writes still land
	r.clk.advance(249);
	assert_int_equal(r.fw.misc_read(M_SRAM_ECC), DEADBEEF);
	r.clk.advance(1);
	assert_int_equal(r.fw.misc_read(M_API), 7);
	assert_int_equal(r.fw.misc_read(M_ACK), 1);
	assert_int_equal(r.fw.misc_read(M_DEVID), 5);
}

// The power words: a new sample every 20 ms from power-on, each with the
// utilization of its instant; a read between samples shows the last one.
void fw_power_sampler(void **)
{
	ManualClock clk;
	Firmware fw(*arch_by_name("trn2"), clk, fw_config());

	assert_int_equal(fw.misc_read(M_POWER0), 0x00010000);
	assert_int_equal(fw.misc_read(M_POWER1), 0x00010000);
	assert_true(fw.set_power_util(0, 1000));
	assert_true(fw.set_power_util(1, 10000));
	assert_false(fw.set_power_util(2, 1));
	assert_false(fw.set_power_util(0, 10001));
	clk.advance(19);	// still sample 1: taken before the change
	assert_int_equal(fw.misc_read(M_POWER0), 0x00010000);
	clk.advance(1);
	assert_int_equal(fw.misc_read(M_POWER0), 0x000203e8);
	assert_int_equal(fw.misc_read(M_POWER1), 0x00022710);
	assert_true(fw.set_power_util(0, 0));
	clk.advance(70);	// samples 3 and 4 went by unread
	assert_int_equal(fw.misc_read(M_POWER0), 0x00050000);
	assert_int_equal(fw.misc_read(M_POWER1), 0x00052710);
	// the driver cannot write them
	fw.misc_write(M_POWER1, 0);
	assert_int_equal(fw.misc_read(M_POWER1), 0x00052710);
	// the counter wraps at 16 bits
	clk.advance(u64(Firmware::kPowerSampleMs) * 0xfffb);
	assert_int_equal(fw.misc_read(M_POWER1), 0x00002710);
	// power-on: sample 1 again; the draw is the workload's, it stays
	clk.advance(5);
	fw.power_on();
	assert_int_equal(fw.misc_read(M_POWER1), 0x00012710);
}

void fw_trigger_rules(void **)
{
	FwRig r;

	r.fw.misc_write(M_TRIGGER, 0);
	r.fw.misc_write(M_TRIGGER, 2);
	assert_int_equal(r.fw.stats().trigger_zero, 1);
	assert_int_equal(r.fw.stats().trigger_other, 1);
	assert_int_equal(r.fw.stats().doorbells, 0);
	// outside MiscRAM: plain storage, reachable by FW-IO READ
	r.fw.bar0_write32(0x1000, 0xabcd);
	assert_int_equal(r.fw.bar0_read32(0x1000), 0xabcd);
	std::vector<u8> p(8);
	u64 a = r.arch.bar0_dev_base + 0x1000;
	for (int k = 0; k < 8; k++)
		p[k] = u8(a >> (8 * k));
	u8 seq = r.legacy(NEURON_FWIO_CMD_READ, p.data(), 8);
	assert_int_equal(r.resp()[0], seq);
	assert_int_equal(get32(r.resp() + 4), 0xabcd);
}

// ---- vfio-user over a socketpair --------------------------------------------

struct Rig {
	const Arch &arch;
	ManualClock clk;
	Firmware fw;
	Device dev;
	int cli = -1;
	VfioServer *srv = nullptr;
	uint16_t id = 0;

	// @bar4: BAR4's size (unset: the arch's), @store: BAR4 bytes kept at
	// most, @timeout_ms: the server's bound on a silent client
	explicit Rig(const char *a = "trn1", std::optional<u64> bar4 = std::nullopt,
		     u64 store = Device::kBar4StoreDefault, int timeout_ms = kClientTimeoutMs)
		: arch(*arch_by_name(a)), fw(arch, clk, fw_config()),
		  dev(arch, clk, fw, 0, arch.bar0_size, bar4.value_or(arch.bar4_size), 1000, store)
	{
		int sv[2];

		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
		cli = sv[0];
		srv = new VfioServer(sv[1], dev, fw, timeout_ms);
	}
	~Rig()
	{
		delete srv;
		close(cli);
	}

	void send(uint16_t cmd, const void *body, size_t len, uint32_t flags = 0,
		  const int *fds = nullptr, int nfds = 0, uint32_t size_override = 0)
	{
		VfioUserHdr h = { ++id, cmd, size_override ? size_override : uint32_t(16 + len), flags, 0 };
		struct iovec iov[2] = { { &h, sizeof(h) }, { const_cast<void *>(body), len } };
		union {
			char buf[CMSG_SPACE(sizeof(int) * 8)];
			struct cmsghdr align;
		} ctl;
		struct msghdr mh = {};

		mh.msg_iov = iov;
		mh.msg_iovlen = len ? 2 : 1;
		if (nfds) {
			mh.msg_control = ctl.buf;
			mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
			struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
			memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
		}
		assert_int_equal(sendmsg(cli, &mh, 0), ssize_t(16 + len));
	}

	// One reply: its header, body in @body.
	VfioUserHdr recv(std::vector<u8> &body)
	{
		VfioUserHdr h;

		assert_int_equal(::recv(cli, &h, sizeof(h), MSG_WAITALL), 16);
		body.resize(h.size - 16);
		if (!body.empty())
			assert_int_equal(::recv(cli, body.data(), body.size(), MSG_WAITALL),
					 ssize_t(body.size()));
		return h;
	}

	// Send, let the server handle it, return the reply.
	VfioUserHdr call(uint16_t cmd, const void *body, size_t len, std::vector<u8> &out,
			 const int *fds = nullptr, int nfds = 0)
	{
		send(cmd, body, len, 0, fds, nfds);
		assert_int_equal(srv->handle_one(), 0);
		VfioUserHdr h = recv(out);
		assert_int_equal(h.id, id);
		assert_int_equal(h.command, cmd);
		assert_int_equal(h.flags & VU_TYPE_MASK, VU_TYPE_REPLY);
		return h;
	}

	void negotiate()
	{
		const char caps[] = "{\"capabilities\":{\"max_msg_fds\":16,\"max_data_xfer_size\":1048576}}";
		std::vector<u8> b(4 + sizeof(caps)), out;

		memcpy(b.data() + 4, caps, sizeof(caps));
		VfioUserHdr h = call(VU_VERSION, b.data(), b.size(), out);
		assert_int_equal(h.flags & VU_ERROR, 0);
	}

	// REGION_WRITE / REGION_READ of BAR0 MiscRAM words.
	void wr(u32 misc_off, u32 v, bool posted = true)
	{
		u8 b[20];
		u64 off = u64(arch.miscram_off) + misc_off;
		u32 region = 0, count = 4;

		memcpy(b, &off, 8);
		memcpy(b + 8, &region, 4);
		memcpy(b + 12, &count, 4);
		memcpy(b + 16, &v, 4);
		if (posted) {
			send(VU_REGION_WRITE, b, sizeof(b), VU_NO_REPLY);
			assert_int_equal(srv->handle_one(), 0);
		} else {
			std::vector<u8> out;
			VfioUserHdr h = call(VU_REGION_WRITE, b, sizeof(b), out);
			assert_int_equal(h.flags & VU_ERROR, 0);
			assert_int_equal(out.size(), 16);
		}
	}
	u64 rd(u32 region, u64 off, u32 count, bool misc = true)
	{
		u8 b[16];
		std::vector<u8> out;
		u64 o = misc ? u64(arch.miscram_off) + off : off;

		memcpy(b, &o, 8);
		memcpy(b + 8, &region, 4);
		memcpy(b + 12, &count, 4);
		VfioUserHdr h = call(VU_REGION_READ, b, sizeof(b), out);
		assert_int_equal(h.flags & VU_ERROR, 0);
		assert_int_equal(out.size(), 16 + count);
		u64 v = 0;
		memcpy(&v, out.data() + 16, count < 8 ? count : 8);
		return v;
	}
	// REGION_WRITE of @len bytes at @off of @region: the error (0: done).
	u32 put(u32 region, u64 off, const void *data, u32 len)
	{
		std::vector<u8> b(16 + len), out;

		memcpy(b.data(), &off, 8);
		memcpy(b.data() + 8, &region, 4);
		memcpy(b.data() + 12, &len, 4);
		memcpy(b.data() + 16, data, len);
		VfioUserHdr h = call(VU_REGION_WRITE, b.data(), b.size(), out);
		return (h.flags & VU_ERROR) ? h.error : 0;
	}
	// REGION_READ of @len bytes into @data: the error (0: done).
	u32 get(u32 region, u64 off, u32 len, std::vector<u8> &data)
	{
		u8 b[16];
		std::vector<u8> out;

		memcpy(b, &off, 8);
		memcpy(b + 8, &region, 4);
		memcpy(b + 12, &len, 4);
		VfioUserHdr h = call(VU_REGION_READ, b, sizeof(b), out);
		if (h.flags & VU_ERROR)
			return h.error;
		assert_int_equal(out.size(), 16 + len);
		data.assign(out.begin() + 16, out.end());
		return 0;
	}
	// A command that must be refused with @err.
	void refused(uint16_t cmd, const void *body, size_t len, uint32_t err)
	{
		std::vector<u8> out;
		VfioUserHdr h = call(cmd, body, len, out);

		assert_int_equal(h.flags & VU_ERROR, VU_ERROR);
		assert_int_equal(h.error, err);
		assert_int_equal(h.size, 16);
	}
};

void vu_version(void **)
{
	Rig r;
	const char caps[] = "{\"capabilities\":{\"max_msg_fds\":16}}";
	std::vector<u8> b(4 + sizeof(caps)), out;

	// nothing before VERSION
	u8 info[16] = { 16 };
	r.refused(VU_DEVICE_GET_INFO, info, sizeof(info), EINVAL);
	// major 1: not ours
	b[0] = 1;
	memcpy(b.data() + 4, caps, sizeof(caps));
	r.refused(VU_VERSION, b.data(), b.size(), ENOTSUP);
	// JSON without its NUL
	b[0] = 0;
	r.refused(VU_VERSION, b.data(), b.size() - 1, EINVAL);
	// too short for major/minor
	r.refused(VU_VERSION, b.data(), 2, EINVAL);

	b[2] = 3;	// minor 3 proposed: 0 answered
	VfioUserHdr h = r.call(VU_VERSION, b.data(), b.size(), out);
	assert_int_equal(h.flags & VU_ERROR, 0);
	assert_true(out.size() > 5);
	assert_int_equal(out[0] | out[1] << 8, 0);
	assert_int_equal(out[2] | out[3] << 8, 0);
	assert_int_equal(out.back(), 0);	// NUL-terminated
	std::string json(reinterpret_cast<const char *>(out.data() + 4));
	assert_true(json.find("\"capabilities\"") != std::string::npos);
	assert_true(json.find("\"max_msg_fds\"") != std::string::npos);
	assert_true(json.find("\"max_data_xfer_size\":1048576") != std::string::npos);
	assert_true(json.find("\"pgsizes\"") != std::string::npos);
	// only once
	r.refused(VU_VERSION, b.data(), b.size(), EINVAL);
}

void vu_device_info(void **)
{
	Rig r;
	std::vector<u8> out;
	u32 b[4] = { 16, 0, 0, 0 };

	r.negotiate();
	VfioUserHdr h = r.call(VU_DEVICE_GET_INFO, b, sizeof(b), out);
	assert_int_equal(h.flags & VU_ERROR, 0);
	assert_int_equal(out.size(), 16);
	u32 o[4];
	memcpy(o, out.data(), 16);
	assert_int_equal(o[0], 16);
	assert_int_equal(o[1], VFIO_DEVICE_FLAGS_RESET | VFIO_DEVICE_FLAGS_PCI);
	assert_int_equal(o[2], 9);
	assert_int_equal(o[3], 5);
	b[0] = 8;	// argsz too small
	r.refused(VU_DEVICE_GET_INFO, b, sizeof(b), EINVAL);
	r.refused(VU_DEVICE_GET_INFO, b, 12, EINVAL);	// payload too short
}

void vu_region_info(void **)
{
	for (const char *a : { "trn1", "inf2", "trn2", "trn3" }) {
		Rig r(a);

		r.negotiate();
		for (u32 idx = 0; idx < 9; idx++) {
			u8 b[32] = {};
			std::vector<u8> out;
			u32 argsz = 32;

			memcpy(b, &argsz, 4);
			memcpy(b + 8, &idx, 4);
			VfioUserHdr h = r.call(VU_DEVICE_GET_REGION_INFO, b, sizeof(b), out);
			assert_int_equal(h.flags & VU_ERROR, 0);
			assert_int_equal(out.size(), 32);
			u32 flags, index;
			u64 size;
			memcpy(&flags, out.data() + 4, 4);
			memcpy(&index, out.data() + 8, 4);
			memcpy(&size, out.data() + 16, 8);
			assert_int_equal(index, idx);
			if (idx == 0) {
				assert_int_equal(size, r.arch.bar0_size);
				assert_true(size >= u64(r.arch.miscram_off) + 0x1000);
				assert_int_equal(size & (size - 1), 0);
				assert_int_equal(flags, VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE);
			} else if (idx == 7) {
				assert_int_equal(size, 4096);
				assert_int_equal(flags, VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE);
			} else if (idx == 4 && r.arch.fw_arch == NEURON_FW_ARCH_V2) {
				// v2: the vendor's probe needs BAR4; HBM0 + HBM1, 16 GiB each
				assert_int_equal(size, 32ull << 30);
				assert_int_equal(flags, VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE);
			} else {
				assert_int_equal(size, 0);
				assert_int_equal(flags, 0);
			}
		}
		u8 b[32] = { 32 };
		u32 idx = 9;
		memcpy(b + 8, &idx, 4);
		r.refused(VU_DEVICE_GET_REGION_INFO, b, sizeof(b), EINVAL);
	}
	assert_int_equal(arch_by_name("trn1")->bar0_size, 1ull << 30);
	assert_int_equal(arch_by_name("inf2")->bar0_size, 1ull << 30);
	// v3/v4: the vendor's driver writes up to 0xBC7E00D0
	assert_int_equal(arch_by_name("trn2")->bar0_size, 4ull << 30);
	assert_int_equal(arch_by_name("trn3")->bar0_size, 4ull << 30);
	assert_int_equal(arch_by_name("trn1")->bar4_size, 32ull << 30);
	assert_int_equal(arch_by_name("inf2")->bar4_size, 32ull << 30);
	assert_int_equal(arch_by_name("trn2")->bar4_size, 0);
	assert_int_equal(arch_by_name("trn3")->bar4_size, 0);
}

void vu_irqs(void **)
{
	Rig r;
	std::vector<u8> out;

	r.negotiate();
	for (u32 idx = 0; idx < 5; idx++) {
		u32 b[4] = { 16, 0, idx, 0 };
		VfioUserHdr h = r.call(VU_DEVICE_GET_IRQ_INFO, b, sizeof(b), out);

		assert_int_equal(h.flags & VU_ERROR, 0);
		u32 o[4];
		memcpy(o, out.data(), 16);
		assert_int_equal(o[2], idx);
		assert_int_equal(o[3], idx == 0 || idx >= 3 ? 1 : 0);
		assert_true(o[1] & VFIO_IRQ_INFO_EVENTFD);
	}
	u32 bad[4] = { 16, 0, 5, 0 };
	r.refused(VU_DEVICE_GET_IRQ_INFO, bad, sizeof(bad), EINVAL);

	// INTx trigger eventfd: kept
	int efd = memfd_create("fake-eventfd", MFD_CLOEXEC);
	u32 set[5] = { 20, VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER, 0, 0, 1 };
	VfioUserHdr h = r.call(VU_DEVICE_SET_IRQS, set, sizeof(set), out, &efd, 1);
	assert_int_equal(h.flags & VU_ERROR, 0);
	close(efd);
	assert_int_equal(r.srv->irq_fds(0).size(), 1);
	assert_true(r.srv->irq_fds(0)[0] >= 0);
	// two fds for a count of 1: refused
	int two[2] = { 0, 1 };
	set[4] = 1;
	h = r.call(VU_DEVICE_SET_IRQS, set, sizeof(set), out, two, 2);
	assert_int_equal(h.flags & VU_ERROR, VU_ERROR);
	// MSI has no vectors
	u32 msi[5] = { 20, VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER, 1, 0, 1 };
	r.refused(VU_DEVICE_SET_IRQS, msi, sizeof(msi), EINVAL);
	// disable all INTx
	u32 off[5] = { 20, VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER, 0, 0, 0 };
	h = r.call(VU_DEVICE_SET_IRQS, off, sizeof(off), out);
	assert_int_equal(h.flags & VU_ERROR, 0);
	assert_int_equal(r.srv->irq_fds(0).size(), 0);
}

void vu_config_space(void **)
{
	Rig r("trn2");
	u8 b[16];
	std::vector<u8> out;
	u64 off = 0;
	u32 region = 7, count = 4096;

	r.negotiate();
	memcpy(b, &off, 8);
	memcpy(b + 8, &region, 4);
	memcpy(b + 12, &count, 4);
	VfioUserHdr h = r.call(VU_REGION_READ, b, sizeof(b), out);
	assert_int_equal(h.flags & VU_ERROR, 0);
	assert_int_equal(out.size(), 16 + 4096);
	const u8 *c = out.data() + 16;
	assert_int_equal(c[0] | c[1] << 8, 0x1D0F);
	assert_int_equal(c[2] | c[3] << 8, 0x7364);
	assert_int_equal(c[0x10] & 0xF, 0xC);		// 64-bit prefetchable memory BAR0
	assert_int_equal(c[0x06] & 0x10, 0x10);		// capability list
	u8 cap = c[0x34];
	assert_int_equal(c[cap], 0x10);			// PCI Express
	assert_int_equal((c[cap + 2] >> 4) & 0xF, 0);	// endpoint
	assert_int_equal(c[cap + 2] & 0xF, 2);		// version 2
	assert_int_equal(c[0x0B], 0x08);

	// command register: writable bits only
	u8 w[18];
	off = 4;
	count = 2;
	memcpy(w, &off, 8);
	memcpy(w + 8, &region, 4);
	memcpy(w + 12, &count, 4);
	w[16] = 0xFF;
	w[17] = 0xFF;
	h = r.call(VU_REGION_WRITE, w, sizeof(w), out);
	assert_int_equal(h.flags & VU_ERROR, 0);
	assert_int_equal(r.rd(7, 4, 2, false), 0x0547);
	// vendor id is read-only
	off = 0;
	memcpy(w, &off, 8);
	h = r.call(VU_REGION_WRITE, w, sizeof(w), out);
	assert_int_equal(r.rd(7, 0, 2, false), 0x1D0F);
	// out of range
	off = 4095;
	count = 2;
	memcpy(b, &off, 8);
	memcpy(b + 12, &count, 4);
	r.refused(VU_REGION_READ, b, sizeof(b), EINVAL);
	// VFIO device reset: command register back to 0
	h = r.call(VU_DEVICE_RESET, nullptr, 0, out);
	assert_int_equal(h.flags & VU_ERROR, 0);
	assert_int_equal(r.rd(7, 4, 2, false), 0);
}

void vu_bar0(void **)
{
	Rig r;

	r.negotiate();
	assert_int_equal(r.rd(0, M_DEVID, 4), DEADBEEF);
	r.clk.advance(1000);
	assert_int_equal(r.rd(0, M_DEVID, 4), 5);
	// an 8-byte access is one message: serial LO | HI << 32
	assert_int_equal(r.rd(0, M_SERLO, 8), 0x1122334455667788ull);
	assert_int_equal(r.rd(0, M_SERLO + 1, 1), 0x77);
	r.wr(M_ACK, 1, false);
	assert_int_equal(r.rd(0, M_ACK, 4), 1);
	r.wr(M_DATA, 0xa1b2c3d4);
	assert_int_equal(r.rd(0, M_DATA + 2, 2), 0xa1b2);
	// sub-word write merges
	u8 b[17];
	u64 off = r.arch.miscram_off + M_DATA + 1;
	u32 region = 0, count = 1;
	memcpy(b, &off, 8);
	memcpy(b + 8, &region, 4);
	memcpy(b + 12, &count, 4);
	b[16] = 0x99;
	std::vector<u8> out;
	VfioUserHdr h = r.call(VU_REGION_WRITE, b, sizeof(b), out);
	assert_int_equal(h.flags & VU_ERROR, 0);
	assert_int_equal(r.rd(0, M_DATA, 4), 0xa1b299d4);
	// unaligned and past the end: refused
	u8 rb[16];
	off = r.arch.miscram_off + 2;
	count = 4;
	memcpy(rb, &off, 8);
	memcpy(rb + 8, &region, 4);
	memcpy(rb + 12, &count, 4);
	r.refused(VU_REGION_READ, rb, sizeof(rb), EINVAL);
	off = r.arch.bar0_size - 4;
	count = 8;
	memcpy(rb, &off, 8);
	memcpy(rb + 12, &count, 4);
	r.refused(VU_REGION_READ, rb, sizeof(rb), EINVAL);
	// a BAR of size 0
	region = 2;
	count = 4;
	off = 0;
	memcpy(rb, &off, 8);
	memcpy(rb + 8, &region, 4);
	memcpy(rb + 12, &count, 4);
	r.refused(VU_REGION_READ, rb, sizeof(rb), EINVAL);
}

// BAR4 on v2: the device's DRAM, 32 GiB of 64-bit prefetchable memory.
// It reads back what was written anywhere in it, zeros where nothing was,
// takes accesses of any size and alignment, never reaches the firmware,
// and every access is in the record as "bar4".
void vu_bar4(void **)
{
	for (const char *a : { "trn1", "inf2" }) {
		Rig r(a);
		const u64 size = 32ull << 30;
		const u64 lo = 0x0123456789abcdefull, hi = 0xfedcba9876543210ull;
		std::vector<u8> d;

		r.negotiate();
		// config space: BAR4 at 0x20 typed as BAR0 is; 0x24 is its upper half
		assert_int_equal(r.rd(7, 0x10, 4, false), 0xC);
		assert_int_equal(r.rd(7, 0x20, 4, false), 0xC);
		assert_int_equal(r.rd(7, 0x24, 4, false), 0);
		assert_int_equal(r.dev.region_size(kRegionBar4), size);
		assert_int_equal(r.dev.bar4().pages(), 0);	// nothing allocated up front

		// the first and the last 8 bytes
		assert_int_equal(r.put(4, 0, &lo, 8), 0);
		assert_int_equal(r.put(4, size - 8, &hi, 8), 0);
		assert_int_equal(r.rd(4, 0, 8, false), lo);
		assert_int_equal(r.rd(4, size - 8, 8, false), hi);
		assert_int_equal(r.rd(4, size - 4, 4, false), hi >> 32);
		// unaligned, odd sizes: memory, not registers
		assert_int_equal(r.rd(4, 3, 2, false), 0x6789);
		u8 b = 0x5a;
		assert_int_equal(r.put(4, 5, &b, 1), 0);
		assert_int_equal(r.rd(4, 0, 8, false), 0x01235a6789abcdefull);
		// never written: 0, in a written page and far from one
		assert_int_equal(r.rd(4, 8, 8, false), 0);
		assert_int_equal(r.rd(4, size - 16, 8, false), 0);
		assert_int_equal(r.rd(4, 16ull << 30, 8, false), 0);
		assert_int_equal(r.dev.bar4().pages(), 2);

		// a write across four pages, read back whole and in part
		std::vector<u8> pat(8194);
		for (size_t i = 0; i < pat.size(); i++)
			pat[i] = u8(i * 7 + 1);
		assert_int_equal(r.put(4, 10 * 4096 - 1, pat.data(), u32(pat.size())), 0);
		assert_int_equal(r.get(4, 10 * 4096 - 1, u32(pat.size()), d), 0);
		assert_memory_equal(d.data(), pat.data(), pat.size());
		assert_int_equal(r.rd(4, 10 * 4096, 1, false), pat[1]);
		assert_int_equal(r.dev.bar4().pages(), 6);
		// zeros into pages never written take none
		std::vector<u8> zeros(3 * 4096);
		assert_int_equal(r.put(4, 8ull << 30, zeros.data(), u32(zeros.size())), 0);
		assert_int_equal(r.dev.bar4().pages(), 6);

		// past the end: refused, nothing recorded
		size_t entries = r.dev.log().size();
		u8 rb[16];
		u64 off = size - 4;
		u32 region = 4, count = 8;
		memcpy(rb, &off, 8);
		memcpy(rb + 8, &region, 4);
		memcpy(rb + 12, &count, 4);
		r.refused(VU_REGION_READ, rb, sizeof(rb), EINVAL);
		assert_int_equal(r.put(4, size, &b, 1), EINVAL);
		assert_int_equal(r.dev.log().size(), entries);

		// MiscRAM's offset in BAR4 is DRAM: no doorbell, no MiscRAM name
		u32 one = 1;
		assert_int_equal(r.put(4, r.arch.miscram_off + M_TRIGGER, &one, 4), 0);
		assert_int_equal(r.fw.stats().doorbells, 0);
		assert_int_equal(r.fw.misc_peek(M_TRIGGER), 0);

		std::string log = r.dev.log_text();
		assert_true(log.find(" W bar4 0x0 8 0x0123456789abcdef\n") != std::string::npos);
		assert_true(log.find(" W bar4 0x7fffffff8 8 0xfedcba9876543210\n") != std::string::npos);
		assert_true(log.find(" R bar4 0x7fffffff8 8 0xfedcba9876543210\n") != std::string::npos);
		assert_true(log.find(" W bar4 0x5 1 0x5a\n") != std::string::npos);
		assert_true(log.find(" R bar4 0x400000000 8 0x0000000000000000\n") != std::string::npos);
		assert_true(log.find(" W bar4 0x9fff 8194 -\n") != std::string::npos);
		assert_true(log.find(" W bar4 0x30fa0800 4 0x00000001\n") != std::string::npos);

		// DEVICE_RESET: power-on contents, the pages freed, BAR4 still there
		std::vector<u8> out;
		VfioUserHdr h = r.call(VU_DEVICE_RESET, nullptr, 0, out);
		assert_int_equal(h.flags & VU_ERROR, 0);
		assert_int_equal(r.dev.bar4().pages(), 0);
		assert_int_equal(r.rd(4, 0, 8, false), 0);
		assert_int_equal(r.rd(7, 0x20, 4, false), 0xC);
	}
}

// v3/v4 have no BAR4 unless asked for (the vendor's driver takes it as
// optional); asked for, it is there as on v2.
void vu_bar4_optional(void **)
{
	for (const char *a : { "trn2", "trn3" }) {
		Rig r(a);
		u8 rb[16];
		u64 off = 0;
		u32 region = 4, count = 4, v = 0x1234;

		r.negotiate();
		assert_int_equal(r.rd(7, 0x20, 4, false), 0);
		assert_int_equal(r.dev.region_size(kRegionBar4), 0);
		memcpy(rb, &off, 8);
		memcpy(rb + 8, &region, 4);
		memcpy(rb + 12, &count, 4);
		r.refused(VU_REGION_READ, rb, sizeof(rb), EINVAL);
		assert_int_equal(r.put(4, 0, &v, 4), EINVAL);
		assert_int_equal(r.dev.log_text().find("bar4"), std::string::npos);
	}
	Rig r("trn2", 1ull << 30);

	r.negotiate();
	assert_int_equal(r.dev.region_size(kRegionBar4), 1ull << 30);
	assert_int_equal(r.rd(7, 0x20, 4, false), 0xC);
	u32 v = 0xfeedf00d;
	assert_int_equal(r.put(4, (1ull << 30) - 4, &v, 4), 0);
	assert_int_equal(r.rd(4, (1ull << 30) - 4, 4, false), v);
	// v2 without one (--bar4-size 0): config space says so too
	Rig r0("trn1", 0);
	r0.negotiate();
	assert_int_equal(r0.dev.region_size(kRegionBar4), 0);
	assert_int_equal(r0.rd(7, 0x20, 4, false), 0);
}

// The bound on BAR4's storage: a write needing a page past it is dropped
// whole and counted, never stored in part; the reply is still success (a
// posted write has nobody to fail to) and the record still has it. The
// pages held keep taking writes; zeros need no page.
void vu_bar4_bound(void **)
{
	Rig r("trn1", std::nullopt, 2 * SparseMem::kPageSize + 100);
	Control c(r.dev, r.fw);
	const u64 pg = SparseMem::kPageSize;
	u32 v = 0x11111111, w = 0x22222222, x = 0x33333333;
	std::vector<u8> d;

	r.negotiate();
	assert_int_equal(r.dev.bar4().max_pages(), 2);	// whole pages only
	assert_int_equal(r.put(4, 0, &v, 4), 0);
	assert_int_equal(r.put(4, 100 * pg, &w, 4), 0);
	assert_int_equal(r.dev.bar4().pages(), 2);
	// full: a third page is refused, silently to the driver
	assert_int_equal(r.put(4, 200 * pg, &x, 4), 0);
	assert_int_equal(r.dev.bar4().dropped(), 1);
	assert_int_equal(r.rd(4, 200 * pg, 4, false), 0);
	// zeros anywhere, and writes into the pages held, still land
	u64 z = 0;
	assert_int_equal(r.put(4, 300 * pg, &z, 8), 0);
	assert_int_equal(r.put(4, 100 * pg + 8, &x, 4), 0);
	assert_int_equal(r.rd(4, 100 * pg + 8, 4, false), x);
	assert_int_equal(r.dev.bar4().dropped(), 1);
	// across the end of a held page into a new one: none of it lands
	u64 two = 0xaaaaaaaabbbbbbbbull;
	assert_int_equal(r.put(4, pg - 4, &two, 8), 0);
	assert_int_equal(r.dev.bar4().dropped(), 2);
	assert_int_equal(r.rd(4, pg - 4, 4, false), 0);
	assert_int_equal(r.rd(4, 0, 4, false), v);
	assert_int_equal(r.dev.bar4().pages(), 2);
	// what the driver did is all in the record
	std::string log = r.dev.log_text();
	assert_true(log.find(" W bar4 0x0 4 0x11111111\n") != std::string::npos);
	assert_true(log.find(" W bar4 0xc8000 4 0x33333333\n") != std::string::npos);
	assert_true(log.find(" W bar4 0xffc 8 0xaaaaaaaabbbbbbbb\n") != std::string::npos);
	// and the counters in the control channel's stats
	std::string st = c.execute("get stats").text;
	assert_true(st.find("\nbar4_pages 2\n") != std::string::npos);
	assert_true(st.find("\nbar4_dropped 2\n") != std::string::npos);
	// a device reset frees the pages: room again
	std::vector<u8> out;
	VfioUserHdr h = r.call(VU_DEVICE_RESET, nullptr, 0, out);
	assert_int_equal(h.flags & VU_ERROR, 0);
	assert_int_equal(r.put(4, 200 * pg, &x, 4), 0);
	assert_int_equal(r.rd(4, 200 * pg, 4, false), x);
	assert_int_equal(r.dev.bar4().dropped(), 2);

	// a bound of 0 keeps zeros only
	SparseMem m(1ull << 35, 0);
	u8 buf[16] = {}, back[16];
	assert_true(m.write(123, buf, sizeof(buf)));
	buf[15] = 1;
	assert_false(m.write(123, buf, sizeof(buf)));
	m.read(123, back, sizeof(back));
	assert_int_equal(back[15], 0);
	assert_int_equal(m.pages(), 0);
	assert_int_equal(m.dropped(), 1);
}

// v3/v4 BAR0 is 4 GiB: the vendor's driver writes as high as 0xBC7E00D0,
// and its sysfs pe_cntrs reads the tensor engines' activity counters, in
// eight blocks (four, and the same 0x40000000 up). Storage: written words
// read back, the counters read 0; every access answered and recorded.
void vu_bar0_v3(void **)
{
	static const u64 kPeBlocks[] = { 0x06141108, 0x062C1108, 0x06541108, 0x066C1108 };
	const u64 size = 4ull << 30;

	for (const char *a : { "trn2", "trn3" }) {
		Rig r(a);
		u32 v = 0x5aa5c33c;
		u64 q = 0x0badf00d600dcafeull;
		u8 rb[16];
		u32 region = 0, count = 8;
		u64 off = size - 4;

		r.negotiate();
		assert_int_equal(r.dev.region_size(kRegionBar0), size);
		assert_int_equal(r.put(0, 0xBC7E00D0, &v, 4), 0);
		assert_int_equal(r.rd(0, 0xBC7E00D0, 4, false), v);
		assert_int_equal(r.put(0, 0xBC7E00D0, &q, 8), 0);
		assert_int_equal(r.rd(0, 0xBC7E00D0, 8, false), q);
		assert_int_equal(r.rd(0, 0xBC7E00D4, 4, false), q >> 32);
		// the last word, and past it
		assert_int_equal(r.put(0, size - 4, &v, 4), 0);
		assert_int_equal(r.rd(0, size - 4, 4, false), v);
		memcpy(rb, &off, 8);
		memcpy(rb + 8, &region, 4);
		memcpy(rb + 12, &count, 4);
		r.refused(VU_REGION_READ, rb, sizeof(rb), EINVAL);
		assert_int_equal(r.put(0, size, &v, 4), EINVAL);

		// every word of every block answers 0 (more than the record keeps)
		for (u64 hi : { 0ull, 0x40000000ull })
			for (u64 base : kPeBlocks)
				for (u64 o = 0; o <= 0x179C - 0x1108; o += 4)
					assert_int_equal(r.rd(0, hi + base + o, 4, false), 0);
		// and each is recorded: the blocks' ends, in order
		r.dev.clear_log();
		for (u64 hi : { 0ull, 0x40000000ull })
			for (u64 base : kPeBlocks) {
				assert_int_equal(r.rd(0, hi + base, 4, false), 0);
				assert_int_equal(r.rd(0, hi + base + 0x179C - 0x1108, 4, false), 0);
			}
		assert_int_equal(r.dev.log().size(), 16);
		assert_int_equal(r.dev.log()[1].off, 0x0614179C);
		assert_int_equal(r.dev.log()[15].off, 0x466C179C);
		std::string log = r.dev.log_text();
		assert_true(log.find(" R bar0 0x6141108 4 0x00000000\n") != std::string::npos);
		assert_true(log.find(" R bar0 0x46141108 4 0x00000000\n") != std::string::npos);
		assert_true(log.find(" R bar0 0x466c179c 4 0x00000000\n") != std::string::npos);
		assert_int_equal(log.find(" m="), std::string::npos);	// none is MiscRAM
		// reading stores nothing
		assert_true(r.fw.stats_text().find("\nbar0_words 3\n") != std::string::npos);
	}
	// the firmware's READ reaches the same word at its device address
	FwRig f("trn2");
	f.fw.bar0_write32(0xBC7E00D0, 0x600df00d);
	std::vector<u8> p(16);
	u64 addrs[2] = { f.arch.bar0_dev_base + 0xBC7E00D0, f.arch.bar0_dev_base + size };
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 8; k++)
			p[8 * i + k] = u8(addrs[i] >> (8 * k));
	u8 seq = f.legacy(NEURON_FWIO_CMD_READ, p.data(), 16);
	assert_int_equal(f.resp()[0], seq);
	assert_int_equal(get32(f.resp() + 4), 0x600df00d);
	assert_int_equal(get32(f.resp() + 8), DEADBEEF);	// past BAR0
}

// BAR0 storage outside MiscRAM is bounded: a word that reads 0 has no
// entry; past the bound a new word's write is dropped (counted) while the
// words held take writes; MiscRAM is not storage and is never refused.
void fw_bar0_store_bound(void **)
{
	Firmware::Config c = fw_config();
	c.bar0_words_max = 3;
	FwRig r("trn2", c);
	auto has = [&](const char *line) { return r.fw.stats_text().find(line) != std::string::npos; };

	assert_int_equal(Firmware::kBar0WordsMax, 1u << 20);
	r.fw.bar0_write32(0x1000, 0);
	assert_true(has("\nbar0_words 0\n"));
	r.fw.bar0_write32(0x1000, 1);
	r.fw.bar0_write32(0x2000, 2);
	r.fw.bar0_write32(0x3000, 3);
	r.fw.bar0_write32(0x4000, 4);
	assert_int_equal(r.fw.bar0_read32(0x4000), 0);
	assert_int_equal(r.fw.stats().bar0_dropped, 1);
	r.fw.bar0_write32(0x1000, 5);
	assert_int_equal(r.fw.bar0_read32(0x1000), 5);
	r.fw.misc_write(M_ACK, 1);
	assert_int_equal(r.fw.misc_read(M_ACK), 1);
	// clearing a word frees its entry
	r.fw.bar0_write32(0x2000, 0);
	assert_int_equal(r.fw.bar0_read32(0x2000), 0);
	r.fw.bar0_write32(0x4000, 4);
	assert_int_equal(r.fw.bar0_read32(0x4000), 4);
	assert_true(has("\nbar0_words 3\n"));
	assert_true(has("\nbar0_dropped 1\n"));
	r.fw.power_on();
	assert_true(has("\nbar0_words 0\n"));
	assert_int_equal(r.fw.bar0_read32(0x1000), 0);
}

// The tensor engine's PE activity counters: read-only registers at the
// vendor's BAR0 offsets (v2 NC0 0x305B1100.., v3 NC0 0x06141100.. and NC4
// +0x40000000), set through "set pe", read as a high and a low word; the
// driver's writes change nothing (ro_writes); none on Trn3. Through a
// BAR0 region read too, with the access in the record.
void fw_pe_counters(void **)
{
	for (const char *a : { "trn1", "inf2", "trn2" }) {
		FwRig r(a);
		bool v3 = r.arch.fw_arch == NEURON_FW_ARCH_V3;
		u64 mm = v3 ? 0x061411C0 : 0x305B1200;		// NC0, row group 0, matmul
		u64 fwl1 = v3 ? 0x06141138 : 0x305B1148;	// NC0, row group 0, fast wl c1
		u64 nc1_idle = v3 ? 0x062C12E0 : 0x30CB1350;	// NC1, row group 1, idle
		u64 ro0 = r.fw.stats().ro_writes;

		assert_true(r.fw.set_pe_counter(mm, 0x123456789abcdef0ull));
		assert_true(r.fw.set_pe_counter(fwl1, 7));
		assert_true(r.fw.set_pe_counter(nc1_idle, 1ull << 32));
		assert_int_equal(r.fw.bar0_read32(mm), 0x9abcdef0);
		assert_int_equal(r.fw.bar0_read32(mm + 4), 0x12345678);
		assert_int_equal(r.fw.bar0_read32(fwl1), 7);
		assert_int_equal(r.fw.bar0_read32(fwl1 + 4), 0);
		assert_int_equal(r.fw.bar0_read32(nc1_idle), 0);
		assert_int_equal(r.fw.bar0_read32(nc1_idle + 4), 1);
		// a write is the driver's mistake: ignored, counted
		r.fw.bar0_write32(mm, 0);
		r.fw.bar0_write32(mm + 4, 0);
		assert_int_equal(r.fw.bar0_read32(mm + 4), 0x12345678);
		assert_int_equal(r.fw.stats().ro_writes, ro0 + 2);
		// only a counter's low word can be set; the words between counters are storage
		assert_false(r.fw.set_pe_counter(mm + 4, 1));
		assert_false(r.fw.set_pe_counter(mm + 0x18, 1));
		assert_false(r.fw.set_pe_counter(0x1000, 1));
		r.fw.bar0_write32(mm + 0x18, 9);
		assert_int_equal(r.fw.bar0_read32(mm + 0x18), 9);
		assert_true(r.fw.set_pe_counter(mm, 0));
		assert_int_equal(r.fw.bar0_read32(mm), 0);
		if (v3) {
			assert_true(r.fw.set_pe_counter(0x461411C0, 5));	// NC4
			assert_int_equal(r.fw.bar0_read32(0x461411C0), 5);
		} else {
			assert_false(r.fw.set_pe_counter(0x461411C0, 5));
		}
	}
	FwRig t3("trn3");
	assert_false(t3.fw.set_pe_counter(0x061411C0, 1));

	// through the device's BAR0 and the control channel
	ManualClock clk;
	const Arch &arch = *arch_by_name("trn1");
	Firmware fw(arch, clk, fw_config());
	Device dev(arch, clk, fw, 0, arch.bar0_size, arch.bar4_size, 100);
	Control c(dev, fw);
	assert_string_equal(c.execute("set pe 0x305B1210 0x500000004").text.c_str(), "ok\n");
	assert_int_equal(c.execute("set pe 0x305B1214 1").text.compare(0, 4, "err "), 0);
	assert_int_equal(c.execute("set pe 0x305B1210").text.compare(0, 4, "err "), 0);
	u64 v = 0;
	assert_int_equal(dev.region_read(0, 0x305B1210, &v, 8), 0);
	assert_true(v == 0x500000004ull);
	u32 w = 0;
	assert_int_equal(dev.region_read(0, 0x305B1214, &w, 4), 0);
	assert_int_equal(w, 5);
}

// --bar0-size / --bar4-size as main() checks them (bar_sizes()).
void opt_bar_sizes(void **)
{
	const Arch &t1 = *arch_by_name("trn1"), &i2 = *arch_by_name("inf2"),
		   &t2 = *arch_by_name("trn2"), &t3 = *arch_by_name("trn3");
	BarSizes b{};

	// defaults
	assert_string_equal(bar_sizes(t1, std::nullopt, std::nullopt, &b).c_str(), "");
	assert_int_equal(b.bar0, 1ull << 30);
	assert_int_equal(b.bar4, 32ull << 30);
	assert_string_equal(bar_sizes(i2, std::nullopt, std::nullopt, &b).c_str(), "");
	assert_int_equal(b.bar4, 32ull << 30);
	assert_string_equal(bar_sizes(t2, std::nullopt, std::nullopt, &b).c_str(), "");
	assert_int_equal(b.bar0, 4ull << 30);
	assert_int_equal(b.bar4, 0);
	assert_string_equal(bar_sizes(t3, std::nullopt, std::nullopt, &b).c_str(), "");
	assert_int_equal(b.bar0, 4ull << 30);
	// --bar0-size 0 is the default too; --bar4-size 0 is no BAR4
	assert_string_equal(bar_sizes(t1, 0, 0, &b).c_str(), "");
	assert_int_equal(b.bar0, 1ull << 30);
	assert_int_equal(b.bar4, 0);
	// overrides
	assert_string_equal(bar_sizes(t2, 1ull << 28, 64ull << 20, &b).c_str(), "");
	assert_int_equal(b.bar0, 1ull << 28);
	assert_int_equal(b.bar4, 64ull << 20);
	assert_string_equal(bar_sizes(t1, std::nullopt, 16, &b).c_str(), "");
	assert_int_equal(b.bar4, 16);
	// refused, *out untouched
	b = { 1, 2 };
	std::string e = bar_sizes(t1, std::nullopt, (32ull << 30) + 4096, &b);
	assert_true(e.find("--bar4-size: ") == 0 && e.find("not a power of two") != std::string::npos);
	e = bar_sizes(t2, std::nullopt, 3, &b);
	assert_true(e.find("--bar4-size: ") == 0);
	e = bar_sizes(t1, std::nullopt, 8, &b);
	assert_true(e.find("--bar4-size: 8 is below 16") == 0);
	e = bar_sizes(t1, 3ull << 30, std::nullopt, &b);
	assert_true(e.find("--bar0-size: ") == 0 && e.find("not a power of two") != std::string::npos);
	e = bar_sizes(t2, 1ull << 26, std::nullopt, &b);	// MiscRAM is at 0x06C84000
	assert_true(e.find("--bar0-size: must hold MiscRAM") == 0);
	assert_int_equal(b.bar0, 1);
	assert_int_equal(b.bar4, 2);
}

void vu_malformed(void **)
{
	Rig r;
	std::vector<u8> out;

	r.negotiate();
	// header size below 16: an error reply, the stream goes on
	r.send(VU_DEVICE_GET_INFO, nullptr, 0, 0, nullptr, 0, 8);
	assert_int_equal(r.srv->handle_one(), 0);
	VfioUserHdr h = r.recv(out);
	assert_int_equal(h.flags & VU_ERROR, VU_ERROR);
	assert_int_equal(h.error, EINVAL);
	// REGION_READ with a short body
	u8 b[24] = {};
	r.refused(VU_REGION_READ, b, 12, EINVAL);
	// REGION_READ with a long body
	r.refused(VU_REGION_READ, b, 24, EINVAL);
	// REGION_WRITE whose count disagrees with its body
	u32 count = 8;
	memcpy(b + 12, &count, 4);
	r.refused(VU_REGION_WRITE, b, 20, EINVAL);
	// count 0
	count = 0;
	memcpy(b + 12, &count, 4);
	r.refused(VU_REGION_READ, b, 16, EINVAL);
	// DMA_MAP / UNMAP of the wrong size
	r.refused(VU_DMA_MAP, b, 24, EINVAL);
	r.refused(VU_DMA_UNMAP, b, 20, EINVAL);
	// DEVICE_RESET with a body
	r.refused(VU_DEVICE_RESET, b, 4, EINVAL);
	// unknown command
	r.refused(99, b, 4, ENOTSUP);
	// a reply type from the client is dropped without an answer; a
	// no-reply command that fails stays silent: the next reply is the next call's
	r.send(VU_DEVICE_GET_INFO, b, 16, VU_TYPE_REPLY);
	assert_int_equal(r.srv->handle_one(), 0);
	r.send(VU_REGION_READ, b, 3, VU_NO_REPLY);
	assert_int_equal(r.srv->handle_one(), 0);
	u32 info[4] = { 16, 0, 0, 0 };
	h = r.call(VU_DEVICE_GET_INFO, info, sizeof(info), out);
	assert_int_equal(h.flags & VU_ERROR, 0);
	assert_int_equal(r.srv->stats().unexpected_replies, 1);
	// an oversized message is drained and refused
	std::vector<u8> big(kMaxPayload + 1);
	r.send(VU_REGION_WRITE, nullptr, 0, 0, nullptr, 0, uint32_t(16 + big.size()));
	std::thread t([&] { assert_int_equal(write(r.cli, big.data(), big.size()), ssize_t(big.size())); });
	assert_int_equal(r.srv->handle_one(), 0);
	t.join();
	h = r.recv(out);
	assert_int_equal(h.flags & VU_ERROR, VU_ERROR);
	// still in sync
	h = r.call(VU_DEVICE_GET_INFO, info, sizeof(info), out);
	assert_int_equal(h.flags & VU_ERROR, 0);
	// end of file: the connection is over
	shutdown(r.cli, SHUT_WR);
	assert_int_equal(r.srv->handle_one(), -1);
}

// A legacy FW-IO READ request of sequence number @seq in guest RAM at
// kRamBase + 0x2000.
static void put_read_request(Rig &r, Ram &ram, u32 seq = 2)
{
	r.clk.advance(1000);
	std::vector<u8> p = read_payload(r.arch);
	u8 *req = ram.at(kRamBase + 0x2000);
	u32 dw0 = neuron_fwio_req_dw0(seq, NEURON_FWIO_CMD_READ, 8 + 16);

	put32(req, dw0);
	put32(req + 4, neuron_fwio_req_crc_sw(dw0, p.data(), 16));
	memcpy(req + 8, p.data(), 16);
}

// Point the legacy registers at that request (response at + 0x3000) and trigger it.
static void trigger_read_request(Rig &r)
{
	u64 rq = (kRamBase + 0x2000) | r.arch.host_window, rs = (kRamBase + 0x3000) | r.arch.host_window;

	r.wr(M_REQ_LO, u32(rq));
	r.wr(M_REQ_HI, u32(rq >> 32));
	r.wr(M_RESP_LO, u32(rs));
	r.wr(M_RESP_HI, u32(rs >> 32));
	r.wr(M_TRIGGER, 1);
}

void vu_dma_map_memfd_legacy(void **)
{
	Rig r;
	Ram ram;
	std::vector<u8> out;

	r.negotiate();
	u8 m[32];
	u32 argsz = 32, flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
	u64 offset = 0, addr = kRamBase, size = kRamSize;
	memcpy(m, &argsz, 4);
	memcpy(m + 4, &flags, 4);
	memcpy(m + 8, &offset, 8);
	memcpy(m + 16, &addr, 8);
	memcpy(m + 24, &size, 8);
	VfioUserHdr h = r.call(VU_DMA_MAP, m, sizeof(m), out, &ram.fd, 1);
	assert_int_equal(h.flags & VU_ERROR, 0);
	assert_int_equal(r.srv->dma_regions(), 1);
	// overlapping: EEXIST
	addr = kRamBase + 0x1000;
	size = 0x1000;
	memcpy(m + 16, &addr, 8);
	memcpy(m + 24, &size, 8);
	r.refused(VU_DMA_MAP, m, sizeof(m), EEXIST);

	// a legacy READ through the mapping, every step a message
	put_read_request(r, ram);
	r.dev.clear_log();
	trigger_read_request(r);
	const u8 *resp = ram.at(kRamBase + 0x3000);
	assert_int_equal(resp[0], 2);
	assert_int_equal(resp[1], 0);
	assert_int_equal(get32(resp + 4), 7);
	assert_int_equal(get32(resp + 8), 0x55667788);
	assert_int_equal(r.rd(0, M_TRIGGER, 4), 0);

	// the access record, in order, with MiscRAM names
	std::string log = r.dev.log_text();
	size_t a = log.find("REQ_LO"), b = log.find("REQ_HI"), c = log.find("RESP_LO"),
	       d = log.find("RESP_HI"), e = log.find("W bar0");
	assert_true(a != std::string::npos && a < b && b < c && c < d);
	assert_true(e < a);
	assert_true(log.find(" W bar0 0x30fa0800 4 0x00000001 m=0x800 TRIGGER") != std::string::npos);
	assert_true(log.find(" R bar0 0x30fa0800 4 0x00000000 m=0x800 TRIGGER") != std::string::npos);
	assert_int_equal(r.dev.log().size(), 6);

	// unmap: size must match; the echo carries the entry
	u8 u[24];
	u32 uflags = 0;
	argsz = 24;
	addr = kRamBase;
	size = 0x1000;
	memcpy(u, &argsz, 4);
	memcpy(u + 4, &uflags, 4);
	memcpy(u + 8, &addr, 8);
	memcpy(u + 16, &size, 8);
	r.refused(VU_DMA_UNMAP, u, sizeof(u), ENOENT);
	size = kRamSize;
	memcpy(u + 16, &size, 8);
	h = r.call(VU_DMA_UNMAP, u, sizeof(u), out);
	assert_int_equal(h.flags & VU_ERROR, 0);
	assert_int_equal(out.size(), 24);
	assert_memory_equal(out.data(), u, 24);
	assert_int_equal(r.srv->dma_regions(), 0);
	// no guest memory any more: the next request cannot be read
	r.wr(M_TRIGGER, 1);
	assert_int_equal(r.fw.stats().dma_errors, 1);
}

// A DMA_MAP body: argsz 32, @flags, file @offset, guest @addr, @size.
static void dma_map_body(u8 *m, u32 flags, u64 offset, u64 addr, u64 size)
{
	u32 argsz = 32;

	memcpy(m, &argsz, 4);
	memcpy(m + 4, &flags, 4);
	memcpy(m + 8, &offset, 8);
	memcpy(m + 16, &addr, 8);
	memcpy(m + 24, &size, 8);
}

// The vfio-user error a DMA_MAP with @fd gets (0: accepted).
static u32 dma_map_error(Rig &r, u32 flags, u64 offset, u64 addr, u64 size, int fd)
{
	std::vector<u8> out;
	u8 m[32];

	dma_map_body(m, flags, offset, addr, size);
	VfioUserHdr h = r.call(VU_DMA_MAP, m, sizeof(m), out, &fd, 1);
	return (h.flags & VU_ERROR) ? h.error : 0;
}

// A client that stops halfway through a message, or spreads more fds
// than a message may carry over its parts, loses its connection; the
// server does not wait on it past its bound (100 ms here).
void vu_client_that_stalls(void **)
{
	Rig r;
	auto fresh = [&r](int *cli) {
		int sv[2];

		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
		*cli = sv[0];
		return std::make_unique<VfioServer>(sv[1], r.dev, r.fw, 100);
	};
	int cli;
	// half a header
	auto s = fresh(&cli);
	VfioUserHdr h = { 1, VU_VERSION, 16 + 64, 0, 0 };
	assert_int_equal(write(cli, &h, 8), 8);
	assert_int_equal(s->handle_one(), -1);
	close(cli);
	// a whole header, then part of its body
	s = fresh(&cli);
	u8 part[10] = {};
	assert_int_equal(write(cli, &h, sizeof(h)), ssize_t(sizeof(h)));
	assert_int_equal(write(cli, part, sizeof(part)), ssize_t(sizeof(part)));
	assert_int_equal(s->handle_one(), -1);
	close(cli);
	// 9 fds with the header and 9 with the body: 18 > 16 for one message
	s = fresh(&cli);
	int fds[9];
	for (int &f : fds)
		f = open("/dev/null", O_RDONLY | O_CLOEXEC);
	auto send_with_fds = [&](const void *buf, size_t len) {
		union {
			char b[CMSG_SPACE(sizeof(fds))];
			struct cmsghdr align;
		} ctl;
		struct iovec iov = { const_cast<void *>(buf), len };
		struct msghdr mh = {};
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl.b;
		mh.msg_controllen = sizeof(ctl.b);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(fds));
		memcpy(CMSG_DATA(c), fds, sizeof(fds));
		assert_int_equal(sendmsg(cli, &mh, 0), ssize_t(len));
	};
	u8 body[64] = {};
	send_with_fds(&h, sizeof(h));
	send_with_fds(body, sizeof(body));
	for (int f : fds)
		close(f);
	assert_int_equal(s->handle_one(), -1);
	close(cli);
}

// Every mapping is checked against its file, and no later change of the
// file makes the server fault: a range past the file's end, a file that
// is no regular file, a read-only fd for a writable map and an O_APPEND
// one are refused; a file shrunk after its map makes the firmware's
// access a DMA error.
void vu_dma_map_checks_file(void **)
{
	const u32 rw = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
	Rig r;
	std::vector<u8> out;
	u32 info[4] = { 16, 0, 0, 0 };
	int small = memfd_create("small", MFD_CLOEXEC), p[2];

	r.negotiate();
	assert_true(small >= 0);
	assert_int_equal(ftruncate(small, 4096), 0);
	// 4 KiB of file declared as 1 MiB, and an offset past the end
	assert_int_equal(dma_map_error(r, rw, 0, kRamBase, kRamSize, small), EINVAL);
	assert_int_equal(dma_map_error(r, rw, 8192, kRamBase, 4096, small), EINVAL);
	assert_int_equal(dma_map_error(r, rw, 4096, kRamBase, 1, small), EINVAL);
	// an O_APPEND file: pwrite() would append wherever it was aimed
	{
		char app[64];
		snprintf(app, sizeof(app), "/proc/self/fd/%d", small);
		int a = open(app, O_RDWR | O_APPEND | O_CLOEXEC);
		assert_true(a >= 0);
		assert_int_equal(dma_map_error(r, rw, 0, kRamBase, 4096, a), EINVAL);
		close(a);
	}
	// no regular file: a pipe
	assert_int_equal(pipe(p), 0);
	assert_int_equal(dma_map_error(r, rw, 0, kRamBase, 4096, p[0]), EBADF);
	close(p[0]);
	close(p[1]);
	// read-only fd: a READ map only
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", small);
	int ro = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(ro >= 0);
	assert_int_equal(dma_map_error(r, rw, 0, kRamBase, 4096, ro), EACCES);
	assert_int_equal(dma_map_error(r, VFIO_DMA_MAP_FLAG_READ, 0, kRamBase, 4096, ro), 0);
	close(ro);
	assert_int_equal(r.srv->dma_regions(), 1);
	// still answering
	VfioUserHdr h = r.call(VU_DEVICE_GET_INFO, info, sizeof(info), out);
	assert_int_equal(h.flags & VU_ERROR, 0);

	// a whole 1 MiB file mapped, then shrunk to 4 KiB under the server
	Rig r2;
	Ram ram;
	r2.negotiate();
	assert_int_equal(dma_map_error(r2, rw, 0, kRamBase, kRamSize, ram.fd), 0);
	put_read_request(r2, ram);
	assert_int_equal(ftruncate(ram.fd, 4096), 0);
	trigger_read_request(r2);
	assert_int_equal(r2.fw.stats().dma_errors, 1);
	// the server lives on and answers
	h = r2.call(VU_DEVICE_GET_INFO, info, sizeof(info), out);
	assert_int_equal(h.flags & VU_ERROR, 0);
	// the file did not grow back: the server wrote nothing past its end
	struct stat st;
	assert_int_equal(fstat(ram.fd, &st), 0);
	assert_int_equal(st.st_size, 4096);
	// Ram's destructor unmaps kRamSize: map it again at the old size
	assert_int_equal(ftruncate(ram.fd, kRamSize), 0);
	close(small);
}

// Guest RAM mapped without an fd (the server reaches it with DMA_READ /
// DMA_WRITE messages), a READ request of sequence 3 in it, and REQ / RESP
// pointing at it: the doorbell is left to the caller.
static void map_without_fd(Rig &r, Ram &ram)
{
	std::vector<u8> out;
	u8 m[32] = {};
	u32 argsz = 32, flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
	u64 addr = kRamBase, size = kRamSize;

	r.negotiate();
	memcpy(m, &argsz, 4);
	memcpy(m + 4, &flags, 4);
	memcpy(m + 16, &addr, 8);
	memcpy(m + 24, &size, 8);
	VfioUserHdr h = r.call(VU_DMA_MAP, m, sizeof(m), out);
	assert_int_equal(h.flags & VU_ERROR, 0);
	put_read_request(r, ram, 3);
	u64 rq = (kRamBase + 0x2000) | r.arch.host_window, rs = (kRamBase + 0x3000) | r.arch.host_window;
	r.wr(M_REQ_LO, u32(rq));
	r.wr(M_REQ_HI, u32(rq >> 32));
	r.wr(M_RESP_LO, u32(rs));
	r.wr(M_RESP_HI, u32(rs >> 32));
}

// Memory without an fd: the server reads and writes it with DMA_READ /
// DMA_WRITE messages; the client (a thread here) answers them from its RAM.
void vu_dma_fallback(void **)
{
	Rig r;
	Ram ram;

	map_without_fd(r, ram);

	// the client side: answer DMA messages until the seq byte is written;
	// a region read in the middle of it is answered too
	int reads = 0, writes = 0;
	bool seq_written = false;
	std::thread client([&] {
		while (!seq_written) {
			VfioUserHdr q;
			std::vector<u8> body;

			if (::recv(r.cli, &q, sizeof(q), MSG_WAITALL) != 16)
				return;
			body.resize(q.size - 16);
			if (!body.empty() &&
			    ::recv(r.cli, body.data(), body.size(), MSG_WAITALL) != ssize_t(body.size()))
				return;
			if ((q.flags & VU_TYPE_MASK) == VU_TYPE_REPLY)
				continue;	// the interleaved read's answer
			u64 a, n;
			memcpy(&a, body.data(), 8);
			memcpy(&n, body.data() + 8, 8);
			VfioUserHdr rep = q;
			rep.flags = VU_TYPE_REPLY;
			std::vector<u8> rb(16);
			memcpy(rb.data(), &a, 8);
			memcpy(rb.data() + 8, &n, 8);
			if (q.command == VU_DMA_READ) {
				if (reads++ == 0) {
					// a vCPU read arrives before the DMA reply
					u8 rr[16];
					u64 o = r.arch.miscram_off + M_API;
					u32 reg = 0, cnt = 4;
					memcpy(rr, &o, 8);
					memcpy(rr + 8, &reg, 4);
					memcpy(rr + 12, &cnt, 4);
					VfioUserHdr rh = { 500, VU_REGION_READ, 32, 0, 0 };
					assert_int_equal(::send(r.cli, &rh, 16, 0), 16);
					assert_int_equal(::send(r.cli, rr, 16, 0), 16);
				}
				rb.insert(rb.end(), ram.at(a), ram.at(a) + n);
			} else {
				writes++;
				memcpy(ram.at(a), body.data() + 16, n);
				if (a == kRamBase + 0x3000 && n == 1)
					seq_written = true;
			}
			rep.size = uint32_t(16 + rb.size());
			assert_int_equal(::send(r.cli, &rep, 16, 0), 16);
			assert_int_equal(::send(r.cli, rb.data(), rb.size(), 0), ssize_t(rb.size()));
		}
	});
	r.wr(M_TRIGGER, 1);
	client.join();
	assert_true(seq_written);
	assert_int_equal(reads, 2);	// header, then payload
	assert_int_equal(writes, 3);	// payload, header bytes 1..3, seq byte
	const u8 *resp = ram.at(kRamBase + 0x3000);
	assert_int_equal(resp[0], 3);
	assert_int_equal(get32(resp + 4), 7);
	assert_int_equal(r.srv->stats().dma_msgs, 5);
}

// A client that never answers the server's DMA_READ loses its connection
// after the server's bound (100 ms here) instead of holding the server.
void vu_dma_unanswered(void **)
{
	Rig r("trn1", std::nullopt, Device::kBar4StoreDefault, 100);
	Ram ram;

	map_without_fd(r, ram);
	// the doorbell: the server asks for the request with a DMA_READ that
	// nobody answers
	u8 b[20];
	u64 off = u64(r.arch.miscram_off) + M_TRIGGER;
	u32 region = 0, count = 4, one = 1;
	memcpy(b, &off, 8);
	memcpy(b + 8, &region, 4);
	memcpy(b + 12, &count, 4);
	memcpy(b + 16, &one, 4);
	r.send(VU_REGION_WRITE, b, sizeof(b), VU_NO_REPLY);
	assert_int_equal(r.srv->handle_one(), -1);
	assert_int_equal(r.srv->stats().dma_msgs, 1);
	assert_int_equal(r.srv->handle_one(), -1);	// and it stays gone
}

// At most max_dma_maps (65535) maps: the next is ENOSPC.
void vu_dma_map_limit(void **)
{
	Rig r;
	std::vector<u8> out;
	u8 m[32] = {};
	u32 argsz = 32, flags = VFIO_DMA_MAP_FLAG_READ;
	u64 size = 4096;

	r.negotiate();
	memcpy(m, &argsz, 4);
	memcpy(m + 4, &flags, 4);
	memcpy(m + 24, &size, 8);
	for (u64 k = 0; k <= kMaxDmaMaps; k++) {
		u64 addr = kRamBase + k * size;
		memcpy(m + 16, &addr, 8);
		VfioUserHdr h = r.call(VU_DMA_MAP, m, sizeof(m), out);
		if (k < kMaxDmaMaps) {
			assert_int_equal(h.flags & VU_ERROR, 0);
		} else {
			assert_int_equal(h.flags & VU_ERROR, VU_ERROR);
			assert_int_equal(h.error, ENOSPC);
		}
	}
	assert_int_equal(r.srv->dma_regions(), kMaxDmaMaps);
}

// ---- control channel --------------------------------------------------------

void ctl_parser(void **)
{
	ManualClock clk;
	const Arch &arch = *arch_by_name("inf2");
	Firmware fw(arch, clk, fw_config());
	Device dev(arch, clk, fw, 0, arch.bar0_size, arch.bar4_size, 100);
	Control c(dev, fw);
	auto ok = [&](const char *line) {
		Control::Result res = c.execute(line);
		assert_true(res.text.size() >= 3);
		assert_string_equal(res.text.substr(res.text.size() - 3).c_str(), "ok\n");
		return res.text;
	};
	auto bad = [&](const char *line) {
		Control::Result res = c.execute(line);
		assert_int_equal(res.text.compare(0, 4, "err "), 0);
		assert_false(res.vanish);
	};

	ok("help");
	ok("fault no_answer");
	assert_true(ok("get faults").find("exchange no_answer\n") != std::string::npos);
	ok("fault late_answer 250 times=3");
	assert_true(ok("get faults").find("exchange late_answer 250 times=3\n") != std::string::npos);
	ok("fault error 0x7");
	assert_true(ok("get faults").find("exchange error 7\n") != std::string::npos);
	ok("  fault   bad_crc  ");
	ok("fault wrong_seq times=1");
	ok("fault unknown_cmd\r");
	ok("fault deadbeef_storm 100");
	assert_int_equal(fw.misc_read(M_API), DEADBEEF);
	ok("fault reset_never_completes");
	assert_true(ok("get faults").find("reset_never_completes 1") != std::string::npos);
	ok("fault clear");
	std::string f = ok("get faults");
	assert_true(f.find("exchange none\n") != std::string::npos);
	assert_true(f.find("deadbeef_storm 0\n") != std::string::npos);
	assert_int_equal(fw.misc_read(M_API), 7);

	bad("");
	bad("fault");
	bad("fault late_answer");
	bad("fault late_answer abc");
	bad("fault error 0");
	bad("fault error 256");
	bad("fault error -1");
	bad("fault no_answer times=0");
	bad("fault no_answer times=");
	bad("fault no_answer 5");
	bad("fault no_answer times=1 extra");
	bad("fault vanish now");
	bad("fault frobnicate");
	bad("get");
	bad("get everything");
	bad("set word 0x1002 1");
	bad("set word 0x1000 1");
	bad("set word 0x40 0x100000000");
	bad("set power 2 1");
	bad("set power 0 10001");
	bad("set power 0");
	bad("frobnicate");
	bad(std::string(2000, 'x').c_str());

	ok("set power 1 2500");
	clk.advance(Firmware::kPowerSampleMs);
	assert_int_equal(fw.misc_read(M_POWER1) & 0xffff, 2500);
	ok("set word 0x40 0x00030001");
	assert_int_equal(fw.misc_read(M_SRAM_ECC), 0x00030001);
	assert_true(ok("get words").find("0x040 0x00030001 SRAM_ECC\n") != std::string::npos);
	assert_true(ok("get stats").find("requests 0\n") != std::string::npos);

	// the access record through the channel
	u32 v = 1;
	assert_int_equal(dev.region_write(0, arch.miscram_off + M_ACK, &v, 4), 0);
	assert_int_equal(dev.region_read(0, arch.miscram_off + M_ACK, &v, 4), 0);
	std::string log = ok("get log");
	assert_true(log.find(" W bar0 0x30fa00f0 4 0x00000001 m=0xf0 ACK\n") != std::string::npos);
	assert_true(log.find(" R bar0 0x30fa00f0 4 0x00000001 m=0xf0 ACK\n") < log.size());
	ok("clear log");
	assert_string_equal(ok("get log").c_str(), "ok\n");
	assert_string_equal(ok("get metrics").c_str(), "ok\n");

	Control::Result res = c.execute("fault vanish");
	assert_true(res.vanish);
	assert_string_equal(res.text.c_str(), "ok\n");

	unsigned long long n;
	assert_true(parse_u64("18446744073709551615", ~0ull, &n));
	assert_false(parse_u64("18446744073709551616", ~0ull, &n));
	assert_true(parse_u64("0xFFFFFFFF", 0xFFFFFFFFull, &n));
	assert_false(parse_u64("0x", ~0ull, &n));
	assert_false(parse_u64("12a", ~0ull, &n));
}

void ctl_metrics_through_fw(void **)
{
	FwRig r;
	Device dev(r.arch, r.clk, r.fw, 0, r.arch.bar0_size, r.arch.bar4_size, 10);
	Control c(dev, r.fw);
	const u8 blob[] = { 11, 1, '3', 250, 2, '1', '6' };

	r.legacy(NEURON_FWIO_CMD_POST_TO_CW, blob, sizeof(blob));
	assert_string_equal(c.execute("get metrics").text.c_str(), "11 3\n250 16\nok\n");
	std::string b = c.execute("get blobs").text;
	assert_true(b.find(" 7 2 11,250\n") != std::string::npos);
	c.execute("clear metrics");
	assert_string_equal(c.execute("get metrics").text.c_str(), "ok\n");
	// the record keeps at most log_max entries, counting the dropped
	u32 v;
	for (int i = 0; i < 15; i++)
		dev.region_read(0, r.arch.miscram_off + M_API, &v, 4);
	assert_int_equal(dev.log().size(), 10);
	assert_int_equal(dev.log_dropped(), 5);
	assert_int_equal(dev.log().front().index, 5);
}

} // namespace

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fw_ready_delay),
		cmocka_unit_test(fw_reset_handshake),
		cmocka_unit_test(fw_reset_never_completes),
		cmocka_unit_test(fw_legacy_read_roundtrip),
		cmocka_unit_test(fw_legacy_window_bit),
		cmocka_unit_test(fw_legacy_post_metrics),
		cmocka_unit_test(fw_regs_power_profile),
		cmocka_unit_test(fw_bad_crc_in_request),
		cmocka_unit_test(fw_fault_no_answer),
		cmocka_unit_test(fw_fault_late_answer),
		cmocka_unit_test(fw_fault_codes),
		cmocka_unit_test(fw_fault_deadbeef_storm),
		cmocka_unit_test(fw_power_sampler),
		cmocka_unit_test(fw_trigger_rules),
		cmocka_unit_test(vu_version),
		cmocka_unit_test(vu_device_info),
		cmocka_unit_test(vu_region_info),
		cmocka_unit_test(vu_irqs),
		cmocka_unit_test(vu_config_space),
		cmocka_unit_test(vu_bar0),
		cmocka_unit_test(vu_bar4),
		cmocka_unit_test(vu_bar4_optional),
		cmocka_unit_test(vu_bar4_bound),
		cmocka_unit_test(vu_bar0_v3),
		cmocka_unit_test(fw_bar0_store_bound),
		cmocka_unit_test(fw_pe_counters),
		cmocka_unit_test(opt_bar_sizes),
		cmocka_unit_test(vu_malformed),
		cmocka_unit_test(vu_dma_map_memfd_legacy),
		cmocka_unit_test(vu_dma_fallback),
		cmocka_unit_test(vu_dma_map_checks_file),
		cmocka_unit_test(vu_client_that_stalls),
		cmocka_unit_test(vu_dma_unanswered),
		cmocka_unit_test(vu_dma_map_limit),
		cmocka_unit_test(ctl_parser),
		cmocka_unit_test(ctl_metrics_through_fw),
	};

	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
