/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// The profile's pure part: a bounded, thread-safe recorder of model
// executions and its writer, the Chrome trace event JSON that Perfetto and
// chrome://tracing open (docs/sdk-compat.md, "Profiling"). No device, no
// runtime: the host unit test drives it with synthetic events.
#pragma once

#include <nrt/nrt_status.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace nrt::profile {

// Events kept per profile; later executions are counted as dropped.
inline constexpr size_t kMaxEvents = 1000000;
// The file's "otherData.version": bumped when a key changes meaning.
inline constexpr int kFormatVersion = 1;

// What one execution drained from its NeuronCore's error ring (the
// nrt_infer_errors_t the execute path decoded, packed).
struct exec_errors {
	uint32_t entries = 0;		// entries accepted
	uint32_t malformed = 0;		// entries rejected (unknown type or id)
	uint32_t ring_dropped = 0;	// entries the ring lost (saturates)
	uint16_t subtypes = 0;		// bit s: an entry of INFER_ERROR_SUBTYPE s
	uint8_t hw_faults = 0;		// bit f: hardware fault f (enum neuron_nq_hw_error)
	bool overflow = false;		// the ring overflowed
};

// One execution (one repetition of nrt_execute_repeat). 48 bytes, so the
// cap costs at most ~48 MB.
struct event {
	uint64_t start_ns = 0;		// steady clock (CLOCK_MONOTONIC), ns
	uint64_t end_ns = 0;
	uint32_t vnc = 0;		// visible NeuronCore index: the trace's tid
	uint16_t device = 0;		// the device's index
	uint16_t nc = 0;		// NeuronCore on that device
	int32_t status = 0;		// the NRT_STATUS the execution returned
	uint32_t iteration = 0;		// repetition within one nrt_execute_repeat call
	exec_errors errors;
};

// Everything the file says besides the events.
struct trace_info {
	std::string model_name;
	int64_t pid = 0;
	size_t max_events = kMaxEvents;
	uint64_t dropped = 0;
	// the NeuronCore the model ran on, named even when nothing was recorded
	uint32_t vnc = 0;
	uint16_t device = 0;
	uint16_t nc = 0;
};

// Events of one profile, capped at a number fixed at construction.
class recorder {
public:
	explicit recorder(size_t max_events = kMaxEvents) : max_(max_events) {}

	// Keep @e, or count it as dropped when the cap is reached (or memory
	// ran out). Any thread.
	void add(const event &e) noexcept;
	size_t size() const;
	uint64_t dropped() const;
	size_t max_events() const { return max_; }
	// A copy of the events, in the order they were added.
	std::vector<event> events() const;
	// @f(events, dropped) with add() held off meanwhile (no copy).
	template <typename F> auto visit(F f) const
	{
		std::lock_guard<std::mutex> g(lock_);
		return f(static_cast<const std::vector<event> &>(events_), dropped_);
	}

private:
	const size_t max_;
	mutable std::mutex lock_;	// protects events_ and dropped_
	std::vector<event> events_;
	uint64_t dropped_ = 0;
};

// The names the file uses.
const char *subtype_name(unsigned subtype);	// "SW_SEMAPHORE_ERROR"; "UNKNOWN" past 8
const char *hw_fault_name(unsigned fault);	// "HBM_UE"; "UNKNOWN" outside 1..5

// @s as a JSON string literal: quotes, backslash and control characters
// escaped, bytes that are not valid UTF-8 replaced by U+FFFD (a viewer
// rejects the whole file otherwise).
std::string json_quote(std::string_view s);

// The whole document, handed to @sink piece by piece (pieces of about
// 64 KiB, so a million events never sit in memory as one string). Stops
// and returns false when @sink does.
bool write_json(const trace_info &info, const std::vector<event> &events,
		const std::function<bool(std::string_view)> &sink);
std::string to_json(const trace_info &info, const std::vector<event> &events);

// Test knobs of save(): fail as the disk would after this many bytes.
struct save_options {
	size_t fail_after_bytes = SIZE_MAX;
	int fail_errno = 0;
};

// Write the document to @path atomically: a temporary file beside it
// (same directory, created with O_EXCL, mode 0666 less the umask), the
// bytes, fsync, rename over @path, fsync of the directory. 0, or the errno
// of the step that failed; then nothing is left behind and a file already
// at @path is untouched.
int save(const std::string &path, const trace_info &info, const std::vector<event> &events,
	 const save_options *opt = nullptr) noexcept;

// The status nrt_profile_stop() returns for save()'s errno: NRT_RESOURCE
// when the system ran out (ENOSPC, EDQUOT, ENOMEM, EMFILE, ENFILE),
// NRT_INVALID when the path cannot name a file (ENOENT, ENOTDIR, EISDIR,
// ENAMETOOLONG, ELOOP, EINVAL), NRT_FAILURE otherwise (EACCES, EROFS, EIO,
// ...). 0 -> NRT_SUCCESS.
NRT_STATUS status_from_save_errno(int err);

} // namespace nrt::profile
