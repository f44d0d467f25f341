/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// NEFF container: the 1024-byte header as the SDK documents it
// (neuron-runtime/explore/work-with-neff-files.rst), the digest over the
// data, the tar (optionally gzip'd) read with libarchive, and what the
// simulated device runs: our model.sim member, or for a NEFF from the
// Neuron compiler a simulation recipe found by the NEFF's uuid or hash
// (docs/neff.md). No exceptions out of parse() (allocation failure is
// reported as NRT_FAIL_HOST_MEM_ALLOC); it reads files only from the
// recipe directories its caller names. Built into libnrt (nrt_load()) and
// into neff-pack, which writes and checks NEFFs with it; it needs nothing
// else of libnrt.
#pragma once

#include <nrt/nrt_status.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nrt::neff {

inline constexpr size_t kHeaderSize = 1024;
inline constexpr uint64_t kPackagingSha256 = 1;
inline constexpr uint64_t kPackagingMd5 = 2;
inline constexpr const char *kModelFile = "model.sim";	// description member
inline constexpr uint32_t kModelFormat = 1;		// "format 1"
inline constexpr size_t kMaxModelFile = 64 * 1024;	// bytes of model.sim
inline constexpr size_t kMaxMembers = 16384;	// tar members scanned
// The members' declared sizes, together, at most this many times the
// archive's (the data section's) bytes, or kMinArchiveBytes: skipping a
// member of a gzip'd tar decompresses it, and deflate reaches about
// 1000:1, so a NEFF of 100 MB could keep nrt_load decompressing 100 GB.
// A member is refused before it is skipped.
inline constexpr uint64_t kMaxArchiveRatio = 64;
inline constexpr uint64_t kMinArchiveBytes = uint64_t{ 1 } << 30;
inline constexpr size_t kMaxTensors = 64;		// per direction
inline constexpr size_t kMaxNameLen = 63;
inline constexpr size_t kMaxProxyLen = 107;	// sun_path less its NUL
inline constexpr uint32_t kMaxNc = 64;
inline constexpr uint64_t kMaxRunTimeUs = 60ull * 1000 * 1000;
inline constexpr uint64_t kMaxTensorBytes = 1ull << 32;

// Byte offsets of the SDK's neff_header_t (little-endian, natural
// alignment, no implicit padding: each offset follows from the one before).
namespace off {
inline constexpr size_t packaging_version = 0;	// u64 pkg_version: selects the digest
inline constexpr size_t header_size = 8;		// u64
inline constexpr size_t data_size = 16;		// u64: bytes after the header
inline constexpr size_t version_major = 24;	// u64 neff_version_major
inline constexpr size_t version_minor = 32;	// u64 neff_version_minor
inline constexpr size_t version_build = 40;	// u8[128] neff_build_version
inline constexpr size_t num_tpb = 168;		// u32
inline constexpr size_t hash = 172;		// u8[32]: SHA-256, or MD5 + 16 bytes
inline constexpr size_t uuid = 204;		// u8[16]
inline constexpr size_t name = 220;		// char[256]
inline constexpr size_t requested_tpb_count = 476;	// u32
inline constexpr size_t tpb_per_node = 480;	// u8[64], one byte per kelf node
inline constexpr size_t feature_bits = 544;	// u64
inline constexpr size_t lnc_size = 552;		// u32 logical NeuronCore size
inline constexpr size_t pad = 556;		// u8[468], to 1024
} // namespace off

inline constexpr size_t kVersionBuildLen = 128;
inline constexpr size_t kHashLen = 32;
inline constexpr size_t kUuidLen = 16;
inline constexpr size_t kNameLen = 256;
inline constexpr size_t kTpbPerNodeLen = 64;
inline constexpr size_t kPadLen = 468;

static_assert(off::version_build + kVersionBuildLen == off::num_tpb);
static_assert(off::num_tpb + 4 == off::hash);
static_assert(off::hash + kHashLen == off::uuid);
static_assert(off::uuid + kUuidLen == off::name);
static_assert(off::name + kNameLen == off::requested_tpb_count);
static_assert(off::requested_tpb_count + 4 == off::tpb_per_node);
static_assert(off::tpb_per_node + kTpbPerNodeLen == off::feature_bits);
static_assert(off::feature_bits % 8 == 0);
static_assert(off::feature_bits + 8 == off::lnc_size);
static_assert(off::lnc_size + 4 == off::pad);
static_assert(off::pad + kPadLen == kHeaderSize);

// A compiled NEFF's recipe: in $NEURON_SIM_RECIPE_DIR, named uuid-<hex>.sim
// or hash-<hex>.sim (docs/neff.md).
inline constexpr const char *kRecipeEnv = "NEURON_SIM_RECIPE_DIR";
inline constexpr const char *kRecipeSuffix = ".sim";

// NEURON_SIM_OP_* values (include/uapi/neuron/neuron_ioctl.h), by name.
enum class op : uint32_t { none = 0, copy = 1, affine_u32 = 2, xor_u8 = 3 };

// What the workers of nrt_load_collectives() combine after the program
// ran: nothing, or the sum of every worker's outputs[0] (u32 words, mod
// 2^32), which each worker's outputs[0] then holds (docs/neff.md).
enum class collective : uint32_t { none = 0, all_reduce_sum_u32 = 1 };

struct header {
	uint64_t packaging_version = 0;
	uint64_t header_size = 0;
	uint64_t data_size = 0;
	uint64_t version_major = 0;
	uint64_t version_minor = 0;
	std::string version_build;
	uint32_t num_tpb = 0;
	std::array<uint8_t, kHashLen> hash{};
	std::array<uint8_t, kUuidLen> uuid{};
	std::string name;
	uint32_t requested_tpb_count = 0;
	std::array<uint8_t, kTpbPerNodeLen> tpb_per_node{};
	uint64_t feature_bits = 0;
	uint32_t lnc_size = 0;
};

// What the archive holds, as parse() found it.
enum class payload : uint8_t {
	none,		// not parsed (yet)
	sim,		// our model.sim member
	compiled,	// the Neuron compiler's layout (sgNN/def.json), run from a recipe
};

// Where parse() looks for the simulation recipe of a compiled NEFF, in
// order; empty: nowhere (the fuzzer, and tests that want the refusal).
struct load_options {
	std::vector<std::string> recipe_dirs;
};

// What parse() found besides the header and the model: which payload,
// and for a compiled NEFF the recipe file used or the names looked for.
struct load_info {
	payload kind = payload::none;
	std::string recipe;		// the recipe file that described the model
	std::vector<std::string> tried;	// recipe file names looked for, in order
	std::string message;		// why a load was refused, for a log line
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
	collective coll = collective::none;	// after the program: combine outputs[0]
	std::vector<tensor_desc> inputs;
	std::vector<tensor_desc> outputs;
};

// Parse and check a whole NEFF: NRT_SUCCESS, NRT_INVALID (truncated,
// sizes, digest, archive, description, recipe), NRT_UNSUPPORTED_NEFF_VERSION
// (packaging_version or description format, or a compiled NEFF with no
// recipe), NRT_FAIL_HOST_MEM_ALLOC. @opt and @info may be null.
NRT_STATUS parse(std::span<const uint8_t> neff, header *hdr, model_desc *model,
		 const load_options *opt = nullptr, load_info *info = nullptr) noexcept;

// The recipe directories nrt_load() uses: $NEURON_SIM_RECIPE_DIR, a
// colon-separated list (empty entries skipped).
load_options options_from_env();

// Lower-case hex of @b (recipe names, neff-pack --info).
std::string hex(std::span<const uint8_t> b);

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
	bool uuid_set = false;		// use @uuid, else one derived from the digest
	std::array<uint8_t, kUuidLen> uuid{};
	uint64_t feature_bits = 0;
	uint32_t lnc_size = 1;
	bool corrupt_hash = false;	// flip one digest byte (tests)
	uint64_t data_size_delta = 0;	// added to the recorded data_size (tests)
};

// A member of the archive pack_members() writes.
struct member {
	std::string path;
	std::string data;
};

// A NEFF whose archive holds model.sim = @model_text (written as given, so
// tests can pack broken descriptions). false on a libarchive/crypto error.
bool pack(std::string_view model_text, const model_desc *hdr_model, const pack_options &opt,
	  std::vector<uint8_t> *out);

// A NEFF whose archive holds @members as given (a compiled NEFF's layout
// in the tests); the header's name and NeuronCore counts from @hdr_model.
bool pack_members(const std::vector<member> &members, const model_desc *hdr_model,
		  const pack_options &opt, std::vector<uint8_t> *out);

// Digest of @data for @packaging_version into @md, which has room for
// kMaxDigestLen bytes; returns its length (32 or 16), 0 when unsupported.
inline constexpr size_t kMaxDigestLen = 64;
size_t digest(uint64_t packaging_version, std::span<const uint8_t> data, uint8_t *md);

} // namespace nrt::neff
