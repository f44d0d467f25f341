// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// NEFF container and model description (libnrt/src/neff.*): the public
// header layout, digests, version refusal, truncation and corruption, and
// every rule of the model.sim format (docs/neff.md).
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstring>
extern "C" {
#include <cmocka.h>
}

#include <string>
#include <vector>

#include "neff.hpp"

using namespace nrt::neff;

namespace {

model_desc sample()
{
	model_desc m;
	m.name = "sample";
	m.nc_count = 1;
	m.run_time_us = 250;
	m.program = op::affine_u32;
	m.arg0 = 3;
	m.arg1 = 7;
	m.inputs = { { "in", 64 }, { "aux", 8 } };
	m.outputs = { { "out", 64 } };
	return m;
}

std::vector<uint8_t> packed(const model_desc &m, pack_options o = {})
{
	std::vector<uint8_t> b;
	assert_true(pack(format(m), &m, o, &b));
	return b;
}

std::vector<uint8_t> packed_text(const std::string &text, pack_options o = {})
{
	std::vector<uint8_t> b;
	assert_true(pack(text, nullptr, o, &b));
	return b;
}

NRT_STATUS parse_bytes(const std::vector<uint8_t> &b, model_desc *m = nullptr)
{
	header h;
	model_desc tmp;
	return parse(b, &h, m ? m : &tmp);
}

uint64_t rd64(const std::vector<uint8_t> &b, size_t at)
{
	uint64_t v = 0;
	for (size_t i = 0; i < 8; i++)
		v |= uint64_t{ b[at + i] } << (8 * i);
	return v;
}

void wr64(std::vector<uint8_t> &b, size_t at, uint64_t v)
{
	for (size_t i = 0; i < 8; i++)
		b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

// Recompute the digest after changing the data (a "valid" corrupt archive).
void rehash(std::vector<uint8_t> &b)
{
	uint8_t md[kHashLen] = {};
	size_t n = digest(rd64(b, off::packaging_version), { b.data() + kHeaderSize, b.size() - kHeaderSize }, md);
	assert_true(n > 0);
	std::memset(b.data() + off::hash, 0, kHashLen);
	std::memcpy(b.data() + off::hash, md, n);
}

void roundtrip(void **)
{
	for (uint64_t v : { kPackagingSha256, kPackagingMd5 }) {
		pack_options o;
		o.packaging_version = v;
		auto b = packed(sample(), o);
		model_desc m;
		header h;
		assert_int_equal(parse(b, &h, &m), NRT_SUCCESS);
		assert_int_equal(h.packaging_version, v);
		assert_int_equal(h.header_size, 1024);
		assert_int_equal(h.data_size, b.size() - 1024);
		assert_string_equal(h.name.c_str(), "sample");
		assert_int_equal(h.requested_tpb_count, 1);
		assert_string_equal(m.name.c_str(), "sample");
		assert_int_equal(m.run_time_us, 250);
		assert_int_equal(static_cast<int>(m.program), 2);
		assert_int_equal(m.arg0, 3);
		assert_int_equal(m.arg1, 7);
		assert_int_equal(m.inputs.size(), 2);
		assert_string_equal(m.inputs[1].name.c_str(), "aux");
		assert_int_equal(m.inputs[1].bytes, 8);
		assert_int_equal(m.outputs.size(), 1);
		assert_int_equal(m.outputs[0].bytes, 64);
		// the digest field: SHA-256 is 32 bytes, MD5 16, zeros after it
		size_t len = v == kPackagingSha256 ? 32 : 16;
		for (size_t i = len; i < kHashLen; i++)
			assert_int_equal(b[off::hash + i], 0);
	}
}

void header_layout(void **)
{
	auto b = packed(sample());
	assert_int_equal(rd64(b, 0), 1);
	assert_int_equal(rd64(b, 8), 1024);
	assert_int_equal(rd64(b, 16), b.size() - 1024);
	assert_int_equal(rd64(b, 24), 1);	// version_major
	assert_int_equal(rd64(b, 32), 0);	// version_minor
	assert_memory_equal(&b[40], "neff-pack", 10);
	assert_int_equal(b[168], 1);		// num_tpb
	assert_memory_equal(&b[268], "sample", 7);
	assert_int_equal(b[524], 1);		// requested_tpb_count
	for (size_t i = 592; i < 1024; i++)
		assert_int_equal(b[i], 0);
	// the data is a gzip stream
	assert_int_equal(b[1024], 0x1f);
	assert_int_equal(b[1025], 0x8b);
}

void unsupported_versions(void **)
{
	for (uint64_t v : { uint64_t{ 0 }, uint64_t{ 3 }, uint64_t{ 4 }, uint64_t{ 0x100000001 }, uint64_t{ UINT64_MAX } }) {
		pack_options o;
		o.packaging_version = v;
		auto b = packed(sample(), o);
		assert_int_equal(parse_bytes(b), NRT_UNSUPPORTED_NEFF_VERSION);
		// the version is judged before anything else: even a bad size
		b.resize(1024);
		assert_int_equal(parse_bytes(b), NRT_UNSUPPORTED_NEFF_VERSION);
	}
	// a model.sim of another format version
	assert_int_equal(parse_bytes(packed_text("format 2\nname x\n")), NRT_UNSUPPORTED_NEFF_VERSION);
}

void truncated(void **)
{
	auto b = packed(sample());
	for (size_t n : { size_t{ 0 }, size_t{ 1 }, size_t{ 8 }, size_t{ 1023 }, size_t{ 1024 },
			  size_t{ 1025 }, b.size() / 2 + 512, b.size() - 1 }) {
		std::vector<uint8_t> t(b.begin(), b.begin() + static_cast<long>(n));
		assert_int_equal(parse_bytes(t), NRT_INVALID);
	}
	// data_size that agrees with the truncation, digest fixed up: the
	// archive itself is cut short
	std::vector<uint8_t> t(b.begin(), b.end() - 20);
	wr64(t, off::data_size, t.size() - 1024);
	rehash(t);
	assert_int_equal(parse_bytes(t), NRT_INVALID);
	// a trailing byte
	auto x = b;
	x.push_back(0);
	assert_int_equal(parse_bytes(x), NRT_INVALID);
}

void corrupt(void **)
{
	auto good = packed(sample());
	assert_int_equal(parse_bytes(good), NRT_SUCCESS);
	pack_options o;
	o.corrupt_hash = true;
	assert_int_equal(parse_bytes(packed(sample(), o)), NRT_INVALID);
	// every data byte matters to the digest
	for (size_t i = 1024; i < good.size(); i += 7) {
		auto b = good;
		b[i] ^= 0x01;
		assert_int_equal(parse_bytes(b), NRT_INVALID);
	}
	// a non-zero byte after the digest
	auto b = good;
	b[off::hash + 40] = 1;
	assert_int_equal(parse_bytes(b), NRT_INVALID);
	// header_size other than 1024
	b = good;
	wr64(b, off::header_size, 512);
	assert_int_equal(parse_bytes(b), NRT_INVALID);
	// data that is not a gzip'd tar, with a correct digest
	b = good;
	std::memset(b.data() + 1024, 'A', b.size() - 1024);
	rehash(b);
	assert_int_equal(parse_bytes(b), NRT_INVALID);
	// requested_tpb_count disagreeing with the description
	b = good;
	b[off::requested_tpb_count] = 2;
	assert_int_equal(parse_bytes(b), NRT_INVALID);
}

void description_rules(void **)
{
	const std::string ok = "format 1\nname m\n";
	model_desc m;
	assert_int_equal(parse_model(ok, &m), NRT_SUCCESS);
	assert_int_equal(m.nc_count, 1);
	assert_int_equal(static_cast<int>(m.program), 0);
	assert_int_equal(parse_model("# comment\n\nformat 1\r\nname m\r\n", &m), NRT_SUCCESS);
	const char *bad[] = {
		"",				// empty
		"name m\nformat 1\n",		// format not first
		"format 1\n",			// no name
		"format x\nname m\n",
		"format 1\nname m\nname n\n",	// twice
		"format 1\nname m\nbogus 1\n",	// unknown key
		"format 1\nname m\nnc_count 0\n",
		"format 1\nname m\nnc_count 65\n",
		"format 1\nname m\nnc_count -1\n",
		"format 1\nname m\nrun_time_us 60000001\n",
		"format 1\nname m\nop copy\n",	// op without tensors
		"format 1\nname m\nop copy\ninput a 4\n",
		"format 1\nname m\nop frobnicate\ninput a 4\noutput b 4\n",
		"format 1\nname m\nop affine_u32\ninput a 6\noutput b 6\n",	// not words
		"format 1\nname m\nop copy 1 2 3\ninput a 4\noutput b 4\n",
		"format 1\nname m\nop xor_u8 4294967296\ninput a 4\noutput b 4\n",
		"format 1\nname m\ninput a 0\n",
		"format 1\nname m\ninput a 4294967297\n",
		"format 1\nname m\ninput a 4\noutput a 4\n",	// duplicate name
		"format 1\nname m\ninput a 4\ninput a 4\n",
		"format 1\nname m\ninput a\n",
		"format 1\nname m\ninput bad*name 4\n",
		"format 1\nname 0123456789012345678901234567890123456789012345678901234567890123\n",
		"format 1\nname m\nin_offset 4\n",	// offset without a program
		"format 1\nname m\nname\n",
		"format 1\nname m\nproxy relative.sock\n",
		"format 1\nname m\nproxy /a\nproxy /b\n",
		"format 1\nname m\nproxy /a /b\n",
	};
	for (const char *t : bad) {
		assert_int_equal(parse_model(t, &m), NRT_INVALID);
	}
	// an embedded NUL
	std::string nul = ok + "input a 4";
	nul[ok.size() + 2] = '\0';
	assert_int_equal(parse_model(nul, &m), NRT_INVALID);
	// 64 tensors per direction, not 65
	std::string many = ok;
	for (int i = 0; i < 64; i++)
		many += "input t" + std::to_string(i) + " 4\n";
	assert_int_equal(parse_model(many, &m), NRT_SUCCESS);
	many += "input t64 4\n";
	assert_int_equal(parse_model(many, &m), NRT_INVALID);
	// format() writes what parse_model reads back
	std::string longp = "format 1\nname m\nproxy /" + std::string(kMaxProxyLen - 1, 'p') + "\n";
	assert_int_equal(parse_model(longp, &m), NRT_SUCCESS);
	assert_int_equal(m.proxy.size(), kMaxProxyLen);
	longp = "format 1\nname m\nproxy /" + std::string(kMaxProxyLen, 'p') + "\n";
	assert_int_equal(parse_model(longp, &m), NRT_INVALID);
	model_desc s = sample();
	s.in_offset = 16;
	s.proxy = "/run/proxy.sock";
	assert_int_equal(parse_model(format(s), &m), NRT_SUCCESS);
	assert_int_equal(m.in_offset, 16);
	assert_string_equal(m.proxy.c_str(), "/run/proxy.sock");
	assert_string_equal(format(m).c_str(), format(s).c_str());
}

void archive_members(void **)
{
	// no model.sim at all: an archive of something else is packed by
	// replacing the member's name in the tar header and re-digesting is
	// not possible through gzip, so pack a model.sim that is empty instead
	assert_int_equal(parse_bytes(packed_text("")), NRT_INVALID);
	assert_int_equal(parse_bytes(packed_text(std::string(kMaxModelFile + 1, '#'))), NRT_INVALID);
	std::string big = "format 1\nname m\n" + std::string(kMaxModelFile - 20, '\n');
	assert_true(big.size() <= kMaxModelFile);
	assert_int_equal(parse_bytes(packed_text(big)), NRT_SUCCESS);
}

} // namespace

int main()
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(roundtrip),
		cmocka_unit_test(header_layout),
		cmocka_unit_test(unsupported_versions),
		cmocka_unit_test(truncated),
		cmocka_unit_test(corrupt),
		cmocka_unit_test(description_rules),
		cmocka_unit_test(archive_members),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
