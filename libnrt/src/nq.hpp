/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// Notification queues inside the library (nq.cpp; the C ABI is <nrt/nrt_nq.h>).
#pragma once

#include <nrt/nrt_nq.h>

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
int drain_job(nrt_nq_t *q, nrt_infer_errors_t *errs, uint64_t *dropped) noexcept;

} // namespace nrt::nq
