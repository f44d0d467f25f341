/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// The asynchronous API (<nrt/nrt_async.h>): what async.cpp's C ABI and the
// host unit tests share. Sequence ids, error trackers, and the hook
// nrt_close() uses to end every queue before the runtime goes.
#pragma once

#include <nrt/nrt_async.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "handles.hpp"

namespace nrt::async {

// Queues of each tensor unit (TENSOR_READ, TENSOR_WRITE, TENSOR_OP) per
// logical NeuronCore; COMPUTE and COLLECTIVES have one (queue 0, as the
// SDK requires).
constexpr int kTensorQueues = 4;
// Requests one queue holds (scheduled, not yet started) before scheduling
// answers NRT_QUEUE_FULL.
constexpr size_t kQueueDepth = 4096;
// Errors a tracker keeps between two nrta_error_tracker_get_list() calls;
// more are counted and reported by one entry (kDroppedXu).
constexpr size_t kTrackerCapacity = 1024;
// Logical NeuronCores a sequence id can name (9 bits of its unit id).
constexpr uint32_t kMaxLnc = 512;

// The unit id of the entry a tracker lists after its errors when it had to
// drop some: no queue has it (its unit kind, 7, is none), its sequence
// number is how many were dropped, its error_code NRT_QUEUE_FULL.
constexpr nrta_xu_id_t kDroppedXu = 0xffff;

// How many queues unit kind @xu has per logical NeuronCore (0: no such kind).
constexpr int queues_of(nrta_xu_t xu)
{
	switch (xu) {
	case NRTA_XU_TENSOR_READ:
	case NRTA_XU_TENSOR_WRITE:
	case NRTA_XU_TENSOR_OP:
		return kTensorQueues;
	case NRTA_XU_COMPUTE:
	case NRTA_XU_COLLECTIVES:
		return 1;
	default:
		return 0;
	}
}

// A queue's unit id: the logical NeuronCore in bits 15..7, the unit kind
// in 6..4, the queue index in 3..0.
struct queue_addr {
	uint32_t lnc = 0;
	nrta_xu_t xu = NRTA_XU_TENSOR_READ;
	int queue = 0;
};

constexpr bool valid(const queue_addr &a)
{
	return a.lnc < kMaxLnc && a.queue >= 0 && a.queue < queues_of(a.xu);
}

constexpr nrta_xu_id_t xu_id(const queue_addr &a)
{
	return static_cast<nrta_xu_id_t>(a.lnc << 7 | static_cast<uint32_t>(a.xu) << 4 |
					 static_cast<uint32_t>(a.queue));
}

// The queue @id names; false for an id no queue can have.
constexpr bool xu_decode(nrta_xu_id_t id, queue_addr *out)
{
	queue_addr a;
	a.lnc = id >> 7;
	a.xu = static_cast<nrta_xu_t>((id >> 4) & 7);
	a.queue = id & 15;
	if (!valid(a))
		return false;
	*out = a;
	return true;
}

constexpr nrta_seq_t make_seq(nrta_xu_id_t id, uint64_t num)
{
	return static_cast<nrta_seq_t>(id) << 48 | (num & NRTA_SEQ_NUM_MASK);
}

static_assert(xu_id({ kMaxLnc - 1, NRTA_XU_COLLECTIVES, 0 }) < kDroppedXu);
static_assert(NRTA_SEQ_GET_XU_ID(make_seq(0x1234, 7)) == 0x1234 &&
	      NRTA_SEQ_GET_SEQ_NUM(make_seq(0x1234, 7)) == 7);

// The failed requests of one logical NeuronCore, oldest first. Bounded:
// past @capacity errors between two take()s, an error is counted instead
// of kept, and take() lists one more entry saying how many (kDroppedXu).
// Its memory is reserved at creation, so add() never allocates and never
// fails.
class tracker {
public:
	explicit tracker(uint32_t lnc, size_t capacity = kTrackerCapacity);
	tracker(const tracker &) = delete;
	tracker &operator=(const tracker &) = delete;

	uint32_t lnc() const { return lnc_; }
	// Request @seq failed with @st.
	void add(nrta_seq_t seq, NRT_STATUS st) noexcept;
	// The errors since the previous take(), oldest first, then the dropped
	// entry if any; *@list stays valid until the next take() or the
	// tracker's end.
	void take(const nrta_error_t **list, size_t *count) noexcept;

private:
	const uint32_t lnc_;
	const size_t capacity_;
	std::mutex lock_;	// protects everything below
	std::vector<nrta_error_t> pending_;	// capacity_ + 1 reserved
	std::vector<nrta_error_t> listed_;	// what take() returned last; capacity_ + 1 reserved
	uint64_t dropped_ = 0;			// errors not kept since the last take()
};

using tracker_table = handles::table<tracker, handles::kind::error_tracker>;
tracker_table &trackers();

// A stretch of a synchronous call that may last (waiting for a
// NeuronCore's lock, its job, a collective step with other workers),
// while it holds no lock but the NeuronCore's. fork() waits until every
// queue worker is idle or in such a stretch, so that the child finds none
// of the locks it may take held by a thread it does not have; a worker
// leaving the stretch waits until the fork is done. No-op on other
// threads (the application's own forks against its own threads are its
// business, as POSIX leaves them).
//
// Every synchronous execution on a worker makes one (nrt_execute of a
// bare model tests the flag itself and, off a worker, makes none), so
// the test for "not a worker" is inline and reads the flag with one load:
// libnrt's few bytes of thread-local data are in the static TLS block
// (initial-exec), with no call to __tls_get_addr (under an emulated CPU a
// call and its return cost about as much as an atomic operation).
extern constinit thread_local bool on_worker [[gnu::tls_model("initial-exec")]];

class long_wait {
public:
	long_wait() noexcept
	{
		if (on_worker)
			enter();
	}
	~long_wait()
	{
		end();
	}
	long_wait(const long_wait &) = delete;
	long_wait &operator=(const long_wait &) = delete;
	// The stretch ends before the scope does.
	void end() noexcept
	{
		if (on_)
			leave();
	}

private:
	void enter() noexcept;	// async.cpp
	void leave() noexcept;
	bool on_ = false;
};

// nrt_close(): ends every queue (requests not started complete with
// NRT_CLOSED, the one running finishes, the threads are joined) and
// refuses new requests until nrt_close() returns; one object, on
// nrt_close()'s stack, before anything else it does. While the runtime is
// initialized it brings the queues' engine up if no request did yet, so
// that a first request racing nrt_close() is refused or ended with the
// others rather than missed.
class closing_scope {
public:
	closing_scope() noexcept;
	~closing_scope();
	closing_scope(const closing_scope &) = delete;
	closing_scope &operator=(const closing_scope &) = delete;
};

} // namespace nrt::async
