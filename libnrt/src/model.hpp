/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// Loaded models of the application API: a parsed NEFF placed on
// NeuronCores nrt_init() reserved for this process, and its execution through
// NEURON_IOCTL_SIM_EXEC_MODEL.
#pragma once

#include <nrt/nrt.h>
#include <nrt/nrt_error_model.h>

#include <array>
#include <cerrno>
#include <memory>
#include <vector>

#include "async.hpp"
#include "collectives.hpp"
#include "decode.hpp"
#include "handles.hpp"
#include "kmetric.hpp"
#include "neff.hpp"
#include "nq.hpp"
#include "runtime.hpp"
#include "tensor.hpp"

namespace nrt::model {

struct model {
	std::shared_ptr<rt::device_ctx> dev;
	uint32_t device_index = 0;
	uint32_t nc_first = 0;		// the program runs here (the device's index)
	uint32_t vnc_first = 0;		// the same NeuronCore as a visible index (nrt_load's vnc)
	uint32_t nc_count = 0;		// nc_first .. nc_first + nc_count - 1 (0 once unloaded)
	uint32_t ctx_device_id = 0;	// nrt_load_collectives: rank, and of how many
	uint32_t ctx_device_count = 1;
	neff::model_desc desc;
	std::array<uint8_t, neff::kUuidLen> uuid{};	// the NEFF header's
	// the model nodes published in the device's NDS slab, one per
	// NeuronCore it was placed on (withdrawn at unload)
	std::vector<nds_obj_handle_t> nds_nodes;
	// more than one worker: the job's other workers, met at load
	// (collectives.hpp); used under the NeuronCore's lock by execute()
	std::shared_ptr<coll::communicator> comm;
	// no tensors, no proxy, no program, no collective step, and a driver
	// that times the job: its job is SIM_EXEC and nothing else, timed by
	// the driver (execute_bare())
	bool bare = false;
};

using model_table = handles::table<model, handles::kind::model>;

// The model handles (inline: every call on a model looks its handle up).
inline model_table &models()
{
	static model_table t;
	return t;
}

// nrt_load() behind the guard: @vnc -1 or a visible NeuronCore index,
// @vnc_count -1 or a multiple of the NeuronCores the model needs;
// nrt_load_collectives(): worker @rank of @count (checked by the caller),
// which meets the job's other workers when @count is more than 1.
NRT_STATUS load(std::span<const uint8_t> neff, int32_t vnc, int32_t vnc_count,
		std::shared_ptr<model> *out, uint32_t rank = 0, uint32_t count = 1) noexcept;
// Unplace the model (its NeuronCores stay this process's until nrt_close()).
void unload(model &m) noexcept;
// Unload every model (nrt_close()).
void unload_all() noexcept;
// What one execution drained from its NeuronCore's error ring (the
// profile records it); all zero when it never reached the device.
struct exec_report {
	nrt_infer_errors_t errs{};
	uint64_t ring_dropped = 0;	// entries the ring lost since the last drain
};

// execute() of any model (model.cpp).
NRT_STATUS execute_any(model &m, const tensor::tensor_set *in, const tensor::tensor_set *out,
		       exec_report *rep) noexcept;

// The job of a model without data on @m's NeuronCore (SIM_EXEC, the
// model's run time, @timeout_us): 0 or the ioctl's errno, and into
// *@job_ns the driver's time of the job (0 for one refused at once). The
// caller holds the NeuronCore's lock.
[[gnu::always_inline]] inline int sim_exec(const model &m, uint64_t timeout_us, uint64_t *job_ns)
{
	neuron_sim_exec job{};
	job.size = sizeof(job);
	job.nc = m.nc_first;
	job.duration_us = m.desc.run_time_us;
	job.timeout_us = timeout_us;
	int e = 0;
	if (::ioctl(m.dev->fd, NEURON_IOCTL_SIM_EXEC, &job) != 0) [[unlikely]]
		e = errno;
	*job_ns = job.job_ns;
	return e;
}

// After a job's answer (@exec_errno, 0 when the ioctl succeeded), under
// the NeuronCore's lock: @c's error ring drained into @errs, told to @rep
// (may be null), and the job's status.
[[gnu::always_inline]] inline NRT_STATUS job_outcome(rt::core_ctx &c, int exec_errno, bool numerical_armed,
						     nrt_infer_errors_t *errs, exec_report *rep)
{
	const NRT_STATUS exec_st = exec_errno ? nrt_status_from_errno(NRT_SITE_EXEC, exec_errno)
					      : NRT_SUCCESS;
	uint64_t dropped = 0;
	nq::drain_job(c.error_ring, errs, &dropped);
	if (rep) {
		rep->errs = *errs;
		rep->ring_dropped = dropped;
	}
	return decode::job_status(exec_st, *errs, numerical_armed);
}

// The times an execution of @m accounts: @total_ns, and the model's run
// time on the device when the job ran (@exec_errno 0).
[[gnu::always_inline]] inline nrt_exec_times_t job_times(const model &m, uint64_t total_ns, int exec_errno)
{
	nrt_exec_times_t times{};
	times.total_ns = total_ns;
	times.device_ns = exec_errno ? 0 : m.desc.run_time_us * 1000;
	times.nc_ns = times.device_ns;
	return times;
}

// Whether execute_bare() may run @m now: a bare model (bare: its
// driver times the job too), not a forked child's copy of the parent's
// (execute_any() refuses it), on a thread that is not a queue's worker
// (whose long waits execute_any() marks, async::long_wait). One test.
[[gnu::always_inline]] inline bool bare_now(const model &m)
{
	return m.bare & !rt::inherited(*m.dev) & !async::on_worker;
}

// execute() of a model bare_now() allows: what execute_any() does for
// it, inline in the caller, so that under an emulated CPU the whole call
// runs from the text nrt_execute() sits in (NRT_HOT_PATH,
// docs/performance.md).
[[gnu::always_inline]] inline NRT_STATUS execute_bare(model &m, exec_report *rep) noexcept
{
	rt::device_ctx &dev = *m.dev;
	// the caller passed the runtime guard (initialized: these are set)
	rt::runtime &r = rt::rt();
	const nrt_decode_config_t cfg = r.cfg.load(std::memory_order_relaxed);
	const uint64_t timeout_us = r.timeout_us.load(std::memory_order_relaxed);
	rt::core_ctx &c = dev.cores[m.nc_first];
	std::lock_guard cg(c.lock);
	if (!c.error_ring) [[unlikely]] {
		NRT_STATUS st = rt::error_ring_locked(dev, m.nc_first);
		if (st != NRT_SUCCESS)
			return st;
	}
	uint64_t job_ns;
	const int exec_errno = sim_exec(m, timeout_us, &job_ns);
	nrt_infer_errors_t errs{};
	const NRT_STATUS st = job_outcome(c, exec_errno, cfg.numerical_armed, &errs, rep);
	const nrt_exec_times_t times = job_times(m, job_ns, exec_errno);
	kmetric::record_execution(c.acct, dev.nds, static_cast<int>(m.nc_first), st, errs, times);
	kmetric::record_latencies(c.acct, dev.nds, job_ns, times.device_ns, !exec_errno);
	return st;
}

// One execution, accounted in the NDS slab; @rep (may be null) told what
// it drained.
[[gnu::always_inline]] inline NRT_STATUS execute(model &m, const tensor::tensor_set *in,
						 const tensor::tensor_set *out,
						 exec_report *rep = nullptr) noexcept
{
	if (bare_now(m))
		return execute_bare(m, rep);
	return execute_any(m, in, out, rep);
}

// Visible NeuronCore index (0 = the first this process may use) ->
// (device, NeuronCore), as nrt_load's and nrt_tensor_allocate's vnc.
bool locate(int vnc, std::shared_ptr<rt::device_ctx> *dev, uint32_t *device_index, uint32_t *nc);

} // namespace nrt::model
