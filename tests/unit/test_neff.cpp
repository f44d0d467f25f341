// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// NEFF container and model description (libnrt/neff/neff.*): the SDK's
// documented header layout (written here by hand, offsets as literals),
// digests of both packaging versions, version refusal, truncation and
// corruption, a compiled NEFF (the SDK's tarball members, written here with
// libarchive) and its simulation recipe, and every rule of the model.sim
// format (docs/neff.md).
#include <algorithm>
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstring>
// the C++ headers first: cmocka defines fail(), which std::ios has too
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <span>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

#include <archive.h>
#include <archive_entry.h>
#include <openssl/evp.h>

extern "C" {
#include <cmocka.h>
}

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
	uint8_t md[kMaxDigestLen] = {};
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
	// the SDK's neff_header_t, offsets as the documentation gives them
	auto b = packed(sample());
	assert_int_equal(rd64(b, 0), 1);	// pkg_version
	assert_int_equal(rd64(b, 8), 1024);	// header_size
	assert_int_equal(rd64(b, 16), b.size() - 1024);	// data_size
	assert_int_equal(rd64(b, 24), 1);	// neff_version_major
	assert_int_equal(rd64(b, 32), 0);	// neff_version_minor
	assert_memory_equal(&b[40], "neff-pack", 10);	// neff_build_version[128]
	assert_int_equal(b[168], 1);		// num_tpb
	// hash[32] at 172: the SHA-256 of the data
	uint8_t md[32];
	unsigned int len = 0;
	assert_int_equal(EVP_Digest(b.data() + 1024, b.size() - 1024, md, &len, EVP_sha256(), nullptr), 1);
	assert_int_equal(len, 32);
	assert_memory_equal(&b[172], md, 32);
	// uuid[16] at 204: an RFC 4122 version-4 uuid
	assert_int_equal(b[204 + 6] >> 4, 4);
	assert_int_equal(b[204 + 8] >> 6, 2);
	assert_memory_equal(&b[220], "sample", 7);	// name[256]
	assert_int_equal(b[476], 1);		// requested_tpb_count
	assert_int_equal(b[480], 1);		// tpb_per_node[64]
	assert_int_equal(rd64(b, 544), 0);	// feature_bits
	assert_int_equal(b[552], 1);		// lnc_size
	for (size_t i = 556; i < 1024; i++)	// pad[468]
		assert_int_equal(b[i], 0);
	// the data is a gzip stream
	assert_int_equal(b[1024], 0x1f);
	assert_int_equal(b[1025], 0x8b);
}

void wr32(std::vector<uint8_t> &b, size_t at, uint32_t v)
{
	for (size_t i = 0; i < 4; i++)
		b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

// A header written field by field at the documented offsets, in front of
// @data, with the digest of @pkg (1: SHA-256, 2: MD5) computed here.
std::vector<uint8_t> by_hand(uint64_t pkg, const std::vector<uint8_t> &data, const uint8_t uuid[16],
			     const char *name, uint32_t tpb)
{
	std::vector<uint8_t> b(1024, 0);
	wr64(b, 0, pkg);
	wr64(b, 8, 1024);
	wr64(b, 16, data.size());
	wr64(b, 24, 2);
	wr64(b, 32, 7);
	std::memcpy(&b[40], "2.21.0.0+test", 13);
	wr32(b, 168, tpb);
	uint8_t md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	assert_int_equal(EVP_Digest(data.data(), data.size(), md, &len,
				    pkg == 2 ? EVP_md5() : EVP_sha256(), nullptr), 1);
	std::memcpy(&b[172], md, len);
	std::memcpy(&b[204], uuid, 16);
	std::memcpy(&b[220], name, std::strlen(name));
	wr32(b, 476, tpb);
	b[480] = static_cast<uint8_t>(tpb);
	wr64(b, 544, 0x5);
	wr32(b, 552, 2);
	b.insert(b.end(), data.begin(), data.end());
	return b;
}

const uint8_t kUuid[16] = { 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0x4d, 0xef,
			    0x80, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77 };

void documented_layout(void **)
{
	// the data section of a NEFF packed by us, behind a header written here
	auto ours = packed(sample());
	std::vector<uint8_t> data(ours.begin() + 1024, ours.end());
	for (uint64_t pkg : { uint64_t{ 1 }, uint64_t{ 2 } }) {
		auto b = by_hand(pkg, data, kUuid, "sample", 1);
		header h;
		model_desc m;
		load_info li;
		assert_int_equal(parse(b, &h, &m, nullptr, &li), NRT_SUCCESS);
		assert_int_equal(static_cast<int>(li.kind), static_cast<int>(payload::sim));
		assert_int_equal(h.packaging_version, pkg);
		assert_int_equal(h.version_major, 2);
		assert_int_equal(h.version_minor, 7);
		assert_string_equal(h.version_build.c_str(), "2.21.0.0+test");
		assert_int_equal(h.num_tpb, 1);
		assert_string_equal(h.name.c_str(), "sample");
		assert_memory_equal(h.uuid.data(), kUuid, 16);
		assert_string_equal(hex(h.uuid).c_str(), "123456789abc4def8011223344556677");
		assert_int_equal(h.requested_tpb_count, 1);
		assert_int_equal(h.tpb_per_node[0], 1);
		assert_int_equal(h.feature_bits, 5);
		assert_int_equal(h.lnc_size, 2);
		assert_memory_equal(h.hash.data(), &b[172], 32);
		assert_string_equal(m.name.c_str(), "sample");
		// a bad digest is refused with NRT_INVALID (one bit of the field)
		auto bad = b;
		bad[172 + 3] ^= 0x10;
		assert_int_equal(parse_bytes(bad), NRT_INVALID);
		// the digest of the other packaging version is a bad digest too
		auto swapped = b;
		wr64(swapped, 0, pkg == 1 ? 2 : 1);
		assert_int_equal(parse_bytes(swapped), NRT_INVALID);
		// a 255-byte name with no NUL in the field reads back whole
		auto longname = b;
		std::memset(&longname[220], 'n', 256);
		assert_int_equal(parse(longname, &h, &m), NRT_SUCCESS);
		assert_int_equal(h.name.size(), 256);
	}
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
	// lengths beyond the file: data_size past the end (up to the largest
	// u64, which must not wrap), header_size past the end
	for (uint64_t d : { uint64_t{ b.size() - 1023 }, uint64_t{ 1 } << 40,
			    UINT64_MAX - 1023, UINT64_MAX }) {
		auto y = b;
		wr64(y, off::data_size, d);
		assert_int_equal(parse_bytes(y), NRT_INVALID);
	}
	for (uint64_t hs : { uint64_t{ 0 }, uint64_t{ 1023 }, uint64_t{ 1025 }, uint64_t{ b.size() + 1 },
			     UINT64_MAX }) {
		auto y = b;
		wr64(y, off::header_size, hs);
		assert_int_equal(parse_bytes(y), NRT_INVALID);
	}
	// data_size 0 with nothing after the header
	std::vector<uint8_t> hdr_only(b.begin(), b.begin() + 1024);
	wr64(hdr_only, off::data_size, 0);
	assert_int_equal(parse_bytes(hdr_only), NRT_INVALID);
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
	// every byte of a SHA-256 is judged; the 16 bytes after an MD5 are not
	// (the SDK does not describe them)
	auto b = good;
	b[off::hash + 31] ^= 1;
	assert_int_equal(parse_bytes(b), NRT_INVALID);
	pack_options o2;
	o2.packaging_version = kPackagingMd5;
	b = packed(sample(), o2);
	b[off::hash + 15] ^= 1;
	assert_int_equal(parse_bytes(b), NRT_INVALID);
	b[off::hash + 15] ^= 1;
	b[off::hash + 16] = 0xee;
	assert_int_equal(parse_bytes(b), NRT_SUCCESS);
	// the informational fields are not judged
	b = good;
	b[off::uuid] ^= 0xff;
	b[off::tpb_per_node + 5] = 9;
	b[off::feature_bits] = 0x80;
	b[off::lnc_size] = 4;
	b[off::pad + 100] = 1;
	assert_int_equal(parse_bytes(b), NRT_SUCCESS);
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

la_ssize_t to_vector(archive *, void *ctx, const void *buf, size_t n)
{
	auto *v = static_cast<std::vector<uint8_t> *>(ctx);
	v->insert(v->end(), static_cast<const uint8_t *>(buf), static_cast<const uint8_t *>(buf) + n);
	return static_cast<la_ssize_t>(n);
}

// libarchive's tar writer into a byte vector: gzip'd when @gz, at
// compression level @level when one is given.
class tar_writer {
public:
	explicit tar_writer(bool gz, const char *level = nullptr) : a_(archive_write_new())
	{
		assert_non_null(a_);
		if (gz)
			assert_int_equal(archive_write_add_filter_gzip(a_), ARCHIVE_OK);
		if (level)
			assert_int_equal(archive_write_set_filter_option(a_, "gzip", "compression-level", level),
					 ARCHIVE_OK);
		assert_int_equal(archive_write_set_format_pax_restricted(a_), ARCHIVE_OK);
		assert_int_equal(archive_write_open(a_, &out_, nullptr, to_vector, nullptr), ARCHIVE_OK);
	}

	// a regular member of @size bytes: @data's, or zeros written in pieces
	// when @data is null (such a member is never whole in memory)
	void add(const std::string &path, const void *data, uint64_t size)
	{
		static const std::vector<uint8_t> zeros(1 << 20, 0);
		archive_entry *e = archive_entry_new();
		archive_entry_set_pathname(e, path.c_str());
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_size(e, static_cast<la_int64_t>(size));
		assert_int_equal(archive_write_header(a_, e), ARCHIVE_OK);
		archive_entry_free(e);
		for (uint64_t done = 0; done < size;) {
			const size_t n = data ? static_cast<size_t>(size)
					      : static_cast<size_t>(std::min<uint64_t>(zeros.size(), size - done));
			const void *from = data ? data : zeros.data();
			assert_int_equal(archive_write_data(a_, from, n), static_cast<la_ssize_t>(n));
			done += n;
		}
	}

	std::vector<uint8_t> finish()
	{
		assert_int_equal(archive_write_close(a_), ARCHIVE_OK);
		archive_write_free(a_);
		a_ = nullptr;
		return std::move(out_);
	}

private:
	std::vector<uint8_t> out_;
	archive *a_;
};

// A tar (gzip'd when @gz) of @members.
std::vector<uint8_t> tarball(const std::vector<member> &members, bool gz)
{
	tar_writer w(gz);
	for (const auto &mb : members)
		w.add(mb.path, mb.data.data(), mb.data.size());
	return w.finish();
}

// A gzip'd tar (at level 1) of a model.sim and then a member of @zeros zero bytes.
std::vector<uint8_t> tarball_with_zeros(const std::string &model, uint64_t zeros)
{
	tar_writer w(true, "1");
	w.add(kModelFile, model.data(), model.size());
	w.add("zeros.bin", nullptr, zeros);
	return w.finish();
}

// Skipping a member of a gzip'd tar decompresses it: the members' declared
// sizes may add up to kMaxArchiveRatio times the data section, and never
// less than kMinArchiveBytes. A valid archive past that is refused, the same
// archive with a smaller member loads: the size alone refuses it.
void archive_size_budget(void **)
{
	const std::string model = "format 1\nname m\n";
	auto small = tarball_with_zeros(model, 64 << 20);
	assert_int_equal(parse_bytes(by_hand(1, small, kUuid, "small", 1)), NRT_SUCCESS);
	// deflate at level 1 keeps 1 GiB of zeros in a few MB: 64 times that
	// is below the floor, which is then the bound
	const uint64_t over = kMinArchiveBytes - model.size() + 1;
	auto big = tarball_with_zeros(model, over);
	assert_true(kMaxArchiveRatio * big.size() < kMinArchiveBytes);
	assert_int_equal(parse_bytes(by_hand(1, big, kUuid, "big", 1)), NRT_INVALID);
	auto at = tarball_with_zeros(model, over - 1);
	assert_int_equal(parse_bytes(by_hand(1, at, kUuid, "at", 1)), NRT_SUCCESS);
}

// What the SDK documentation lists in a compiled NEFF's tarball: top-level
// JSON, a subgraph directory with def.json, engine JSONs (Activation.json
// with its activation tables, DVE.json with its tables) and a constant.
std::vector<member> compiled_members()
{
	return {
		{ "neff.json", R"({"subgraphs": ["sg00"]})" },
		{ "sg00/def.json", R"({"dma_queue": {}, "var": {"in": {"type": "input", "var_id": 0, "size": 64}}})" },
		{ "sg00/Activation.json", R"({"dma": [], "activation_function_sets": ["gelu_and_others"]})" },
		{ "sg00/gelu_and_others/table.json", "{}" },
		{ "sg00/DVE.json", R"({"dma": [], "dve_tables": [{"control_table": "default_control_table.bin"}]})" },
		{ "sg00/default_control_table.bin", std::string(16, '\x01') },
		{ "sg00/weights.npy", std::string("\x93NUMPY", 6) + std::string(58, ' ') },
	};
}

struct tmpdir {
	std::string path;
	tmpdir()
	{
		const char *t = std::getenv("TMPDIR");
		std::string tmpl = std::string(t && *t ? t : "/tmp") + "/test_neff.XXXXXX";
		assert_non_null(mkdtemp(tmpl.data()));
		path = tmpl;
	}
	~tmpdir() { std::system(("rm -rf '" + path + "'").c_str()); }
	void put(const std::string &name, const std::string &text) const
	{
		std::ofstream f(path + "/" + name, std::ios::binary);
		f << text;
		assert_true(static_cast<bool>(f));
	}
};

void compiled_neff(void **)
{
	const std::string recipe = "format 1\nname compiled\nop copy\ninput in 64\noutput out 64\n";
	for (bool gz : { true, false }) {
		auto b = by_hand(1, tarball(compiled_members(), gz), kUuid, "compiled-model", 1);
		const std::string uuid_name = "uuid-123456789abc4def8011223344556677.sim";
		header h;
		model_desc m;
		// no recipe anywhere: refused with a status and a message naming the file
		{
			load_info li;
			assert_int_equal(parse(b, &h, &m, nullptr, &li), NRT_UNSUPPORTED_NEFF_VERSION);
			assert_int_equal(static_cast<int>(li.kind), static_cast<int>(payload::compiled));
			assert_non_null(std::strstr(li.message.c_str(), uuid_name.c_str()));
			assert_non_null(std::strstr(li.message.c_str(), "NEURON_SIM_RECIPE_DIR"));
			assert_string_equal(h.name.c_str(), "compiled-model");
		}
		tmpdir empty, d;
		load_options opt;
		opt.recipe_dirs = { empty.path, d.path };
		{
			load_info li;
			assert_int_equal(parse(b, &h, &m, &opt, &li), NRT_UNSUPPORTED_NEFF_VERSION);
			assert_int_equal(li.tried.size(), 4);	// uuid, hash in each directory
		}
		// by hash (the SHA-256 in hex)
		d.put("hash-" + hex(std::span<const uint8_t>(b.data() + 172, 32)) + ".sim", recipe);
		{
			load_info li;
			assert_int_equal(parse(b, &h, &m, &opt, &li), NRT_SUCCESS);
			assert_int_equal(static_cast<int>(li.kind), static_cast<int>(payload::compiled));
			assert_string_equal(m.name.c_str(), "compiled");
			assert_int_equal(static_cast<int>(m.program), static_cast<int>(op::copy));
			assert_non_null(std::strstr(li.recipe.c_str(), "/hash-"));
		}
		// by uuid, which comes first
		d.put(uuid_name, "format 1\nname by_uuid\n");
		{
			load_info li;
			assert_int_equal(parse(b, &h, &m, &opt, &li), NRT_SUCCESS);
			assert_string_equal(m.name.c_str(), "by_uuid");
			assert_string_equal(li.recipe.c_str(), (d.path + "/" + uuid_name).c_str());
		}
		// a recipe that is not a valid model.sim, or asks for other
		// NeuronCores than the header: NRT_INVALID
		d.put(uuid_name, "format 1\nname x\nbogus 1\n");
		assert_int_equal(parse(b, &h, &m, &opt), NRT_INVALID);
		d.put(uuid_name, "format 2\nname x\n");
		assert_int_equal(parse(b, &h, &m, &opt), NRT_UNSUPPORTED_NEFF_VERSION);
		d.put(uuid_name, "format 1\nname x\nnc_count 2\n");
		assert_int_equal(parse(b, &h, &m, &opt), NRT_INVALID);
		d.put(uuid_name, "");
		assert_int_equal(parse(b, &h, &m, &opt), NRT_INVALID);
		// a FIFO or a directory of that name: refused at once, never waited on
		assert_int_equal(unlink((d.path + "/" + uuid_name).c_str()), 0);
		assert_int_equal(mkfifo((d.path + "/" + uuid_name).c_str(), 0600), 0);
		assert_int_equal(parse(b, &h, &m, &opt), NRT_INVALID);
		assert_int_equal(unlink((d.path + "/" + uuid_name).c_str()), 0);
		assert_int_equal(mkdir((d.path + "/" + uuid_name).c_str(), 0700), 0);
		assert_int_equal(parse(b, &h, &m, &opt), NRT_INVALID);
	}
	// MD5 packaging: the recipe is named by the 16-byte digest
	{
		auto b = by_hand(2, tarball(compiled_members(), true), kUuid, "md5", 1);
		std::memset(&b[204], 0, 16);	// no uuid: only the hash is looked for
		tmpdir d;
		load_options opt;
		opt.recipe_dirs = { d.path + "/" };
		load_info li;
		header h;
		model_desc m;
		assert_int_equal(parse(b, &h, &m, &opt, &li), NRT_UNSUPPORTED_NEFF_VERSION);
		assert_int_equal(li.tried.size(), 1);
		std::string name = "hash-" + hex(std::span<const uint8_t>(b.data() + 172, 16)) + ".sim";
		assert_int_equal(li.tried[0].size(), d.path.size() + 1 + name.size());
		d.put(name, "format 1\nname md5\n");
		assert_int_equal(parse(b, &h, &m, &opt), NRT_SUCCESS);
		assert_string_equal(m.name.c_str(), "md5");
	}
	// model.sim beside the compiler's members: our payload wins, no recipe read
	{
		auto mem = compiled_members();
		mem.push_back({ "model.sim", "format 1\nname both\n" });
		auto b = by_hand(1, tarball(mem, true), kUuid, "both", 1);
		load_info li;
		header h;
		model_desc m;
		assert_int_equal(parse(b, &h, &m, nullptr, &li), NRT_SUCCESS);
		assert_int_equal(static_cast<int>(li.kind), static_cast<int>(payload::sim));
		assert_string_equal(m.name.c_str(), "both");
	}
	// neither payload: an archive of other things is not a NEFF we run
	{
		auto b = by_hand(1, tarball({ { "sg00/notdef.json", "{}" }, { "readme", "x" } }, true),
				 kUuid, "neither", 0);
		assert_int_equal(parse_bytes(b), NRT_INVALID);
	}
	// pack_members() writes the same layout
	{
		std::vector<uint8_t> b;
		model_desc hm;
		hm.name = "packed";
		assert_true(pack_members(compiled_members(), &hm, {}, &b));
		assert_int_equal(parse_bytes(b), NRT_UNSUPPORTED_NEFF_VERSION);
	}
}

void recipe_env(void **)
{
	setenv(kRecipeEnv, "/a::/b/c:", 1);
	auto o = options_from_env();
	assert_int_equal(o.recipe_dirs.size(), 2);
	assert_string_equal(o.recipe_dirs[0].c_str(), "/a");
	assert_string_equal(o.recipe_dirs[1].c_str(), "/b/c");
	unsetenv(kRecipeEnv);
	assert_int_equal(options_from_env().recipe_dirs.size(), 0);
}

} // namespace

int main()
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(roundtrip),
		cmocka_unit_test(header_layout),
		cmocka_unit_test(documented_layout),
		cmocka_unit_test(compiled_neff),
		cmocka_unit_test(recipe_env),
		cmocka_unit_test(unsupported_versions),
		cmocka_unit_test(truncated),
		cmocka_unit_test(corrupt),
		cmocka_unit_test(description_rules),
		cmocka_unit_test(archive_members),
		cmocka_unit_test(archive_size_budget),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
