// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// libFuzzer target: the NEFF loader (libnrt/neff/neff.cpp) under ASan/UBSan.
// The first input byte picks how far in the rest goes:
//   0: the bytes are a whole NEFF (header checks, digest)
//   1: the bytes are the data section, behind a valid header and digest
//      (libarchive's gzip and tar readers, member selection)
//   2: the bytes are model.sim, packed into a valid NEFF (the description
//      parser, through the same path nrt_load takes)
// The data section of mode 1 may also be a compiled NEFF's tar (an
// sgNN/def.json member): with no recipe directory that is a refusal, and
// no file is ever read.
// Any status is fine; a crash, leak, or undefined behaviour is not. A
// success must describe a model the rules allow.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "neff.hpp"

using namespace nrt::neff;

namespace {

void check_model(const model_desc &m)
{
	if (m.nc_count == 0 || m.nc_count > kMaxNc || m.name.empty() ||
	    m.inputs.size() > kMaxTensors || m.outputs.size() > kMaxTensors)
		__builtin_trap();
	if (m.program != op::none && (m.inputs.empty() || m.outputs.empty()))
		__builtin_trap();
}

void run(const std::vector<uint8_t> &b)
{
	header h;
	model_desc m;
	if (parse(b, &h, &m) == NRT_SUCCESS)
		check_model(m);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	uint8_t mode = data[0] % 3;
	std::vector<uint8_t> rest(data + 1, data + size);
	if (mode == 0) {
		run(rest);
	} else if (mode == 1) {
		std::vector<uint8_t> b(kHeaderSize, 0);
		b[off::packaging_version] = 1;
		b[off::header_size + 1] = kHeaderSize >> 8;	// 1024 little-endian
		uint64_t n = rest.size();
		for (size_t i = 0; i < 8; i++)
			b[off::data_size + i] = static_cast<uint8_t>(n >> (8 * i));
		uint8_t md[kMaxDigestLen] = {};
		digest(kPackagingSha256, rest, md);
		std::memcpy(b.data() + off::hash, md, kHashLen);	// SHA-256 fills the field
		b.insert(b.end(), rest.begin(), rest.end());
		run(b);
	} else {
		std::vector<uint8_t> b;
		std::string text(rest.begin(), rest.end());
		if (pack(text, nullptr, pack_options{}, &b))
			run(b);
	}
	return 0;
}
