/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// Collectives between the worker processes of nrt_load_collectives() on
// one host (docs/sdk-compat.md, "Collectives"): the workers of a job meet
// at load time without a server, on an abstract unix socket named by the
// job (NEURON_RT_ROOT_COMM_ID), rank 0 listening and every other rank
// connecting to it; at each execution of a collective model the workers'
// outputs are combined there (rank 0 sums, the others send and receive)
// and every wait is bounded. A worker that dies, stalls, leaves or fails
// its own step ends the collective of every other worker with
// NRT_EXEC_HW_ERR_COLLECTIVES, and the communicator stays closed from then
// on: a job whose worker failed loads its models again.
#pragma once

#include <nrt/nrt_status.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "unique_fd.hpp"

namespace nrt::coll {

// The job's name: the real runtime's root communicator address (host:port).
inline constexpr const char *kRootCommEnv = "NEURON_RT_ROOT_COMM_ID";
// The name of a job when NEURON_RT_ROOT_COMM_ID is unset or empty.
inline constexpr const char *kDefaultRootCommId = "localhost:62182";
// How long a worker waits for the others, in ms (1..kMaxTimeoutMs); unset:
// the execution timeout (NEURON_RT_EXEC_TIMEOUT).
inline constexpr const char *kTimeoutEnv = "NEURON_RT_COLL_TIMEOUT_MS";
inline constexpr uint32_t kMaxTimeoutMs = 60000;
// Longest NEURON_RT_ROOT_COMM_ID, and most workers of one job.
inline constexpr size_t kMaxCommIdLen = 64;
inline constexpr uint32_t kMaxWorkers = 1024;
// Prefix of the abstract socket name, after its leading NUL.
inline constexpr std::string_view kSocketPrefix = "neuron-rt-coll/";

// The identity of the model a worker meets with: its NEFF's uuid.
inline constexpr size_t kModelIdLen = 16;
using model_id = std::array<uint8_t, kModelIdLen>;

// What a worker joins with; every worker of a job must agree on
// count, model, kind and bytes.
struct join_args {
	uint32_t rank = 0;		// ctx_device_id
	uint32_t count = 1;		// ctx_device_count
	uint32_t kind = 0;		// neff::collective of the model
	uint64_t bytes = 0;		// bytes the collective combines (0: none)
	model_id model{};		// which model (two of one collective and size are told apart)
	std::string id;			// the job's name (valid_comm_id)
	uint32_t timeout_ms = 1000;	// every wait's bound
};

// ---- pure parts (tests/unit/test_collectives.cpp) ----

// HOST:PORT: HOST 1 or more printable characters other than space, PORT a
// decimal 1..65535 without sign or leading zero; at most kMaxCommIdLen bytes.
bool valid_comm_id(std::string_view id) noexcept;
// The abstract unix socket name of job @id, its leading NUL included.
std::string socket_name(std::string_view id);
// The bound: @env (NEURON_RT_COLL_TIMEOUT_MS) when set and non-empty, a
// decimal 1..kMaxTimeoutMs (false otherwise), else @exec_timeout_us in ms
// (at least 1).
bool timeout_ms(const char *env, uint64_t exec_timeout_us, uint32_t *out) noexcept;
// @acc[i] += @add[i] over little-endian u32 words, mod 2^32; both are the
// same size, a multiple of 4 (a tail shorter than a word is left as it is).
void sum_u32(std::span<uint8_t> acc, std::span<const uint8_t> add) noexcept;

// One message between workers: a header, then @bytes of data for DATA
// and RESULT. Both ends are on one host: native byte order.
struct wire_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t rank;		// the sender's
	uint32_t count;
	uint32_t kind;
	uint32_t reason;	// REJECT: why (reject_reason)
	uint64_t seq;		// DATA, RESULT, ABORT: the collective step, from 1
	uint64_t bytes;
	uint8_t model[kModelIdLen];	// HELLO: the sender's model (join_args::model)
};
static_assert(sizeof(wire_hdr) == 56);

inline constexpr uint32_t kWireMagic = 0x4354524eu;	// "NRTC"
inline constexpr uint16_t kWireVersion = 2;
enum class msg : uint16_t { hello = 1, welcome = 2, reject = 3, data = 4, result = 5, abort = 6 };
enum class reject_reason : uint32_t { none = 0, rank_taken = 1, count_differs = 2, model_differs = 3,
				      rank_range = 4 };

// Why rank 0 refused a worker, for its log line.
const char *reject_text(uint32_t reason) noexcept;

// ---- the communicator ----

class communicator {
public:
	communicator(const communicator &) = delete;
	communicator &operator=(const communicator &) = delete;
	~communicator() = default;	// closing the sockets tells the others

	// Meet the job's other workers: NRT_SUCCESS, NRT_TIMEOUT (not all of
	// them within the bound), NRT_INVALID (refused by rank 0: rank taken,
	// another count, another model, or another collective or size; or
	// another rank 0 is already waiting under the name), NRT_FAILURE /
	// NRT_RESOURCE (sockets). @why says what went wrong, for one log line,
	// whatever the status.
	static NRT_STATUS join(const join_args &a, std::unique_ptr<communicator> *out,
			       std::string *why) noexcept;

	// One collective step over @buf (this worker's bytes in, the sum of
	// every worker's out). @local_ok false: this worker's own step failed,
	// and the others are told so. NRT_SUCCESS, or
	// NRT_EXEC_HW_ERR_COLLECTIVES with @why set (a worker left, stalled
	// past the bound or failed, a protocol error; from then on every step
	// fails at once, with @why empty).
	NRT_STATUS all_reduce(std::span<uint8_t> buf, bool local_ok, std::string *why) noexcept;

	uint32_t rank() const noexcept { return rank_; }
	uint32_t count() const noexcept { return count_; }
	const std::string &id() const noexcept { return id_; }

private:
	communicator() = default;
	NRT_STATUS reduce_root(std::span<uint8_t> buf, std::string *why);
	NRT_STATUS reduce_peer(std::span<uint8_t> buf, std::string *why);
	void close_all(bool tell) noexcept;

	uint32_t rank_ = 0, count_ = 1;
	uint64_t bytes_ = 0;
	uint32_t timeout_ms_ = 1000;
	uint64_t seq_ = 0;
	bool broken_ = false;
	std::string id_;
	// rank 0: one per other rank (index rank - 1); other ranks: rank 0's
	std::vector<unique_fd> peers_;
	std::vector<std::vector<uint8_t>> inbox_;	// rank 0: each peer's bytes
};

} // namespace nrt::coll
