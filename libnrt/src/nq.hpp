/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// Notification queues inside the library (nq.cpp; the C ABI is <nrt/nrt_nq.h>).
#pragma once

#include <nrt/nrt_nq.h>
#include <neuron/neuron_nq.h>

#include <cstddef>
#include <cstdint>
#include <mutex>

namespace nrt::nq {

// The instruction-set paths of the drain (nrt_nq_path()).
enum class isa : uint8_t { scalar, avx2, avx512 };

} // namespace nrt::nq

// A consumer's view of one ring (nq.cpp; in this header so that
// drain_job()'s test of a ring with nothing new is inline).
struct nrt_nq {
	std::mutex lock;	// one drainer at a time
	nrt::nq::isa isa = nrt::nq::isa::scalar;	// chosen when the queue is set up
	void *map = nullptr;
	size_t map_size = 0;
	bool mapped = false;	// munmap + NQ_RELEASE on close
	int fd = -1;		// the device fd (not owned)
	uint32_t nc = 0, nq_type = 0, engine = 0;
	neuron_nq_ctrl *ctrl = nullptr;
	neuron_nq_entry *ring = nullptr;
	uint32_t entries = 0;	// power of two
	uint32_t head = 0;	// next index to consume (free-running)
	uint64_t dropped_seen = 0;
};

namespace nrt::nq {

// nrt_nq_drain() without the queue's own lock, for a queue that only its
// owner drains, under a lock of the owner's: the runtime's error rings,
// each under its NeuronCore's lock (runtime.hpp, core_ctx). @q and @errs
// are not NULL. The drain of every job then takes one lock, not two. The
// head is published only when something was consumed (nrt_nq_drain()
// also publishes it when nothing was).
int drain_owned(nrt_nq_t *q, nrt_infer_errors_t *errs, uint64_t *dropped) noexcept;

// drain_owned() after a job's answer, for a ring the driver produces
// into: when the control area's tail is the head and its drop count is
// what was seen last, nothing was written or dropped since the last drain
// and the ring's entries are not read (0, *@dropped 0). A job's entries
// are all published by its answer; an entry a producer is writing at this
// moment is left to the next drain.
inline int drain_job(nrt_nq_t *q, nrt_infer_errors_t *errs, uint64_t *dropped) noexcept
{
	// The producer publishes an entry's header before the tail (release),
	// and counts a drop in the control area: a tail at our head and an
	// unchanged drop count are a ring with nothing new, read from the
	// control page alone.
	if (__atomic_load_n(&q->ctrl->tail, __ATOMIC_ACQUIRE) == q->head &&
	    __atomic_load_n(&q->ctrl->dropped, __ATOMIC_ACQUIRE) == q->dropped_seen) {
		if (dropped)
			*dropped = 0;
		return 0;
	}
	return drain_owned(q, errs, dropped);
}

} // namespace nrt::nq
