/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// NEFF container: the 1024-byte header, the digest over the data, the
// gzip'd tar read with libarchive, and the model description inside it
// (docs/neff.md). Pure: no device, no global state, no exceptions out of
// parse() (allocation failure is reported as NRT_FAIL_HOST_MEM_ALLOC).
#pragma once

#include <nrt/nrt_status.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace nrt::neff {

inline constexpr size_t kHeaderSize = 1024;
inline constexpr uint64_t kPackagingSha256 = 1;
inline constexpr uint64_t kPackagingMd5 = 2;
inline constexpr const char *kModelFile = "model.sim";	// description member
inline constexpr uint32_t kModelFormat = 1;		// "format 1"
inline constexpr size_t kMaxModelFile = 64 * 1024;	// bytes of model.sim
inline constexpr size_t kMaxMembers = 256;		// tar members scanned
inline constexpr size_t kMaxTensors = 64;		// per direction
inline constexpr size_t kMaxNameLen = 63;
inline constexpr size_t kMaxProxyLen = 107;	// sun_path less its NUL
inline constexpr uint32_t kMaxNc = 64;
inline constexpr uint64_t kMaxRunTimeUs = 60ull * 1000 * 1000;
inline constexpr uint64_t kMaxTensorBytes = 1ull << 32;

// Byte offsets of the public header (little-endian).
namespace off {
inline constexpr size_t packaging_version = 0;	// u64
inline constexpr size_t header_size = 8;		// u64
inline constexpr size_t data_size = 16;		// u64
inline constexpr size_t version_major = 24;	// u64
inline constexpr size_t version_minor = 32;	// u64
inline constexpr size_t version_build = 40;	// char[128]
inline constexpr size_t num_tpb = 168;		// u32
inline constexpr size_t hash = 172;		// u8[64]
inline constexpr size_t uuid = 236;		// u8[32]
inline constexpr size_t name = 268;		// char[256]
inline constexpr size_t requested_tpb_count = 524;	// u32
inline constexpr size_t tpb_per_node = 528;	// u8[64]
inline constexpr size_t end = 592;		// zero padding up to 1024
} // namespace off

inline constexpr size_t kVersionBuildLen = 128;
inline constexpr size_t kHashLen = 64;
inline constexpr size_t kUuidLen = 32;
inline constexpr size_t kNameLen = 256;
inline constexpr size_t kTpbPerNodeLen = 64;

static_assert(off::version_build + kVersionBuildLen == off::num_tpb);
static_assert(off::num_tpb + 4 == off::hash);
static_assert(off::hash + kHashLen == off::uuid);
static_assert(off::uuid + kUuidLen == off::name);
static_assert(off::name + kNameLen == off::requested_tpb_count);
static_assert(off::requested_tpb_count + 4 == off::tpb_per_node);
static_assert(off::tpb_per_node + kTpbPerNodeLen == off::end);
static_assert(off::end <= kHeaderSize);

// NEURON_SIM_OP_* values (include/uapi/neuron/neuron_ioctl.h), by name.
enum class op : uint32_t { none = 0, copy = 1, affine_u32 = 2, xor_u8 = 3 };

struct header {
	uint64_t packaging_version = 0;
	uint64_t header_size = 0;
	uint64_t data_size = 0;
	uint64_t version_major = 0;
	uint64_t version_minor = 0;
	std::string version_build;
	uint32_t num_tpb = 0;
	uint32_t requested_tpb_count = 0;
	std::string name;
};

struct tensor_desc {
	std::string name;
	uint64_t bytes = 0;
};

// What model.sim says: the program a simulated NeuronCore runs.
struct model_desc {
	std::string name;
	uint32_t nc_count = 1;		// NeuronCores the model needs
	uint64_t run_time_us = 0;	// how long one execution runs
	op program = op::none;		// what it computes: inputs[0] -> outputs[0]
	uint32_t arg0 = 0, arg1 = 0;	// the op's parameters
	uint64_t in_offset = 0;		// where in inputs[0] the program reads
	std::string proxy;		// collectives: the network proxy's socket, or empty
	std::vector<tensor_desc> inputs;
	std::vector<tensor_desc> outputs;
};

// Parse and check a whole NEFF: NRT_SUCCESS, NRT_INVALID (truncated,
// sizes, digest, archive, description), NRT_UNSUPPORTED_NEFF_VERSION
// (packaging_version or description format), NRT_FAIL_HOST_MEM_ALLOC.
NRT_STATUS parse(std::span<const uint8_t> neff, header *hdr, model_desc *model) noexcept;

// The header fields alone (no digest or archive): NRT_INVALID when shorter
// than the header.
NRT_STATUS parse_header(std::span<const uint8_t> neff, header *hdr) noexcept;

// model.sim text -> description (also what neff-pack writes, see format()).
NRT_STATUS parse_model(std::string_view text, model_desc *model) noexcept;

// The description as model.sim text.
std::string format(const model_desc &model);

struct pack_options {
	uint64_t packaging_version = kPackagingSha256;	// anything is written as given
	uint64_t version_major = 1, version_minor = 0;
	std::string version_build = "neff-pack";
	bool corrupt_hash = false;	// flip one digest byte (tests)
	uint64_t data_size_delta = 0;	// added to the recorded data_size (tests)
};

// A NEFF whose archive holds model.sim = @model_text (written as given, so
// tests can pack broken descriptions). false on a libarchive/crypto error.
bool pack(std::string_view model_text, const model_desc *hdr_model, const pack_options &opt,
	  std::vector<uint8_t> *out);

// Digest of @data for @packaging_version into @md (returns its length, 0 unsupported).
size_t digest(uint64_t packaging_version, std::span<const uint8_t> data, uint8_t md[kHashLen]);

} // namespace nrt::neff
