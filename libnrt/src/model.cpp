// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// Models: load (NEFF -> NeuronCores), unload, execute (model.hpp).
#include "model.hpp"
#include "async.hpp"
#include "decode.hpp"
#include "kmetric.hpp"
#include "nq.hpp"

#include <nrt/kmetric.h>
#include <nrt/nrt_error_model.h>
#include <neuron/neuron_nds.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <vector>

namespace nrt::model {
namespace {

// A failed load counts on the NeuronCore it was aimed at (CSWTCH.6).
void count_load_failure(int vnc, NRT_STATUS st)
{
	std::shared_ptr<rt::device_ctx> d;
	uint32_t di, nc;
	if (!locate(vnc >= 0 ? vnc : 0, &d, &di, &nc) && !locate(0, &d, &di, &nc))
		return;
	if (rt::inherited(*d))
		return;	// the parent's slab: a forked child counts nothing in it
	kmetric_update_nds_generic_status(d->nds, static_cast<int>(nc), st);
}

// Whether visible NeuronCores @vnc .. @vnc + @need - 1 are one run of one
// device (the visible set is contiguous, so only a device boundary breaks it).
bool fits(int vnc, uint32_t need, const rt::device_ctx &d, uint32_t nc)
{
	if (need > ndl_device_get_info(d.dev)->nc_count - nc)
		return false;
	std::shared_ptr<rt::device_ctx> last_dev;
	uint32_t di, last_nc;
	return locate(vnc + static_cast<int>(need) - 1, &last_dev, &di, &last_nc) &&
	       last_dev.get() == &d;
}

// @need NeuronCores (the model's, times its copies) from visible @vnc on,
// or the first run of visible NeuronCores that fits on one device (-1).
// Every visible NeuronCore is this process's own since nrt_init() (as in
// the SDK), so placing a model reserves nothing: other models of this
// process may share the NeuronCores, another process cannot have them.
NRT_STATUS place(std::shared_ptr<model> &m, int32_t vnc, uint32_t need)
{
	if (vnc >= 0) {
		if (!locate(vnc, &m->dev, &m->device_index, &m->nc_first))
			return NRT_INVALID;
		if (!fits(vnc, need, *m->dev, m->nc_first))
			return NRT_LOAD_NOT_ENOUGH_NC;
		m->vnc_first = static_cast<uint32_t>(vnc);
		m->nc_count = need;
		return NRT_SUCCESS;
	}
	// the first run of visible NeuronCores that fits, device by device
	for (int v = 0;; v++) {
		std::shared_ptr<rt::device_ctx> d;
		uint32_t di, nc;
		if (!locate(v, &d, &di, &nc))
			return NRT_LOAD_NOT_ENOUGH_NC;
		if (!fits(v, need, *d, nc))
			continue;
		m->dev = std::move(d);
		m->device_index = di;
		m->nc_first = nc;
		m->vnc_first = static_cast<uint32_t>(v);
		m->nc_count = need;
		return NRT_SUCCESS;
	}
}

struct bound {
	std::shared_ptr<tensor::tensor> t;
	std::shared_ptr<tensor::device_mem> mem;	// a device tensor's, for the execution
};

// Every tensor @decl names, from @set, with the declared size and a usable
// placement: NRT_EXEC_BAD_INPUT otherwise, NRT_INVALID_HANDLE for a freed
// one, NRT_CLOSED for a device tensor whose memory nrt_close() released,
// NRT_FAIL_HOST_MEM_ALLOC when there was no memory for the list.
NRT_STATUS resolve(const model &m, const tensor::tensor_set *set,
		   const std::vector<neff::tensor_desc> &decl, std::vector<bound> *out) noexcept
try {
	for (const auto &td : decl) {
		uintptr_t h = 0;
		if (set) {
			std::lock_guard<std::mutex> g(const_cast<tensor::tensor_set *>(set)->lock);
			auto it = set->by_name.find(td.name);
			if (it != set->by_name.end())
				h = it->second;
		}
		if (!h)
			return NRT_EXEC_BAD_INPUT;	// missing tensor
		auto t = tensor::tensors().find(reinterpret_cast<const void *>(h));
		if (!t)
			return NRT_INVALID_HANDLE;	// freed after it was added
		auto dm = t->dmem();
		if (t->placement == NRT_TENSOR_PLACEMENT_DEVICE && !dm)
			return NRT_CLOSED;	// allocated before an nrt_close()
		if (t->size != td.bytes)
			return NRT_EXEC_BAD_INPUT;	// wrong size
		if (dm && (dm->dev != m.dev || dm->nc != m.nc_first))
			return NRT_EXEC_BAD_INPUT;	// another NeuronCore's memory
		out->push_back(bound{ std::move(t), std::move(dm) });
	}
	return NRT_SUCCESS;
} catch (...) {
	return NRT_FAIL_HOST_MEM_ALLOC;
}

void record(const model &m, NRT_STATUS st, const nrt_infer_errors_t *errs,
	    const nrt_exec_times_t *times)
{
	if (times)
		kmetric::record_execution(m.dev->cores[m.nc_first].acct, m.dev->nds,
					  static_cast<int>(m.nc_first), st, *errs, *times);
	else
		kmetric_record_execution(m.dev->nds, static_cast<int>(m.nc_first), st, errs, times);
}

// Reach the network proxy a collectives model names (a unix socket): the
// connection is the execution's; NRT_NETWORK_PROXY_FAILURE when nothing
// accepts it within @timeout_us. A blocking connect to a listener whose
// queue is full waits with no bound, so the socket does not block: a full
// queue (EAGAIN) is tried again every millisecond until the bound.
NRT_STATUS proxy_connect(const std::string &path, uint64_t timeout_us)
{
	sockaddr_un sa{};
	sa.sun_family = AF_UNIX;
	if (path.size() >= sizeof(sa.sun_path))
		return NRT_NETWORK_PROXY_FAILURE;
	std::memcpy(sa.sun_path, path.c_str(), path.size() + 1);
	int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return errno == ENOMEM || errno == ENOBUFS ? NRT_RESOURCE : NRT_FAILURE;
	const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(timeout_us);
	int ret;
	for (;;) {
		ret = ::connect(fd, reinterpret_cast<const sockaddr *>(&sa), sizeof(sa));
		if (ret == 0 || (errno != EAGAIN && errno != EINTR) ||
		    std::chrono::steady_clock::now() >= deadline)
			break;
		struct timespec ms = { 0, 1000000 };
		::nanosleep(&ms, nullptr);
	}
	::close(fd);
	return ret == 0 ? NRT_SUCCESS : NRT_NETWORK_PROXY_FAILURE;
}

// Publish @m in its device's NDS slab, one model node per NeuronCore it
// occupies (nds_read_all_model_nodes in a monitor). Best effort: a slab
// whose records are all taken leaves the rest unpublished.
void publish(model &m)
{
	static std::atomic<uint32_t> next_id{ 1 };
	const uint32_t id = next_id.fetch_add(1, std::memory_order_relaxed);
	for (uint32_t k = 0; k < m.nc_count; k++) {
		nds_obj_handle_t h = nds_obj_new(m.dev->nds, OBJECT_TYPE_MODEL_NODE_INFO);
		nds_model_node_info_t *n = nds_obj_handle_to_model_node_info(h);
		if (!n)
			return;
		n->model_id = id;
		n->model_node_id = k;
		std::strncpy(n->name, m.desc.name.c_str(), sizeof(n->name) - 1);
		std::memcpy(n->uuid, m.uuid.data(), sizeof(n->uuid));
		n->nc_index = static_cast<uint8_t>(m.nc_first + k);
		n->sg_index = static_cast<uint8_t>(k % m.desc.nc_count);
		// the model holds no device memory while loaded (staging buffers
		// live for one execution): its memory usage stays zero
		if (nds_obj_commit(h) != 0) {
			nds_obj_delete(h);
			return;
		}
		try {
			m.nds_nodes.push_back(h);
		} catch (...) {
			nds_obj_delete(h);
			return;
		}
	}
}

// nrt_load_collectives() with other workers: meet them (collectives.hpp)
// under the job's name, NEURON_RT_ROOT_COMM_ID.
NRT_STATUS meet(model &m, uint32_t rank, uint32_t count)
{
	coll::join_args a;
	a.rank = rank;
	a.count = count;
	const char *id = std::getenv(coll::kRootCommEnv);
	a.id = id && *id ? id : coll::kDefaultRootCommId;
	if (m.desc.coll != neff::collective::none) {
		a.kind = static_cast<uint32_t>(m.desc.coll);
		a.bytes = m.desc.outputs[0].bytes;
	}
	static_assert(sizeof(a.model) == sizeof(m.uuid));
	std::memcpy(a.model.data(), m.uuid.data(), a.model.size());
	std::string why;
	NRT_STATUS st;
	if (!coll::valid_comm_id(a.id)) {
		why = std::string(coll::kRootCommEnv) + " '" + a.id + "' is not HOST:PORT (at most " +
		      std::to_string(coll::kMaxCommIdLen) + " bytes)";
		st = NRT_INVALID;
	} else if (!coll::timeout_ms(std::getenv(coll::kTimeoutEnv),
				     rt::rt().timeout_us.load(std::memory_order_relaxed), &a.timeout_ms)) {
		why = std::string(coll::kTimeoutEnv) + " is not a number of ms from 1 to " +
		      std::to_string(coll::kMaxTimeoutMs);
		st = NRT_INVALID;
	} else {
		std::unique_ptr<coll::communicator> c;
		st = coll::communicator::join(a, &c, &why);
		if (st == NRT_SUCCESS)
			m.comm = std::move(c);
		else if (why.empty())
			why = "could not meet the other workers (no memory)";
	}
	if (st != NRT_SUCCESS)
		std::fprintf(stderr, "nrt_load_collectives: %s: worker %u of %u: %s\n",
			     nrt_get_status_as_str(st), rank, count, why.c_str());
	return st;
}

// The collective of a model with other workers, after its job on this
// NeuronCore ended with @st: this worker's outputs[0] (@out, or its
// staging buffer @stage_out for a host tensor, which *@host_out then
// receives directly: nothing is left to read back) in, the sum of every
// worker's out. A collective that failed between the workers ends as a
// device reports one: a job on the NeuronCore that completes with a
// collectives hardware error (NEURON_SIM_EXEC_COLL_ERROR), drained into
// @errs and folded like any job's (NRT_EXEC_HW_ERR_COLLECTIVES). A job
// that failed on its own keeps its status; the other workers are told.
// The caller holds the NeuronCore's lock.
NRT_STATUS collective_step(model &m, rt::core_ctx &c, NRT_STATUS st, const bound &out,
			   const tensor::device_mem *stage_out, tensor::tensor **host_out,
			   uint64_t timeout_us, bool numerical_armed, nrt_infer_errors_t *errs)
{
	std::string why;
	if (st != NRT_SUCCESS) {
		m.comm->all_reduce({}, false, &why);
		return st;
	}
	tensor::tensor &to = *out.t;
	std::vector<uint8_t> buf;
	try {
		buf.resize(to.size);
	} catch (...) {
		m.comm->all_reduce({}, false, &why);
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	st = stage_out ? tensor::mem_rw(*stage_out, NEURON_IOCTL_MEM_READ, 0, to.size, buf.data(), 0)
		       : tensor::mem_rw(*out.mem, NEURON_IOCTL_MEM_READ, to.dev_offset, to.size,
					buf.data(), 0);
	if (st != NRT_SUCCESS) {
		m.comm->all_reduce({}, false, &why);
		return st;
	}
	NRT_STATUS step;
	{
		async::long_wait w;	// the other workers, up to the bound
		step = m.comm->all_reduce(buf, true, &why);
	}
	if (step == NRT_SUCCESS) {
		if (!stage_out)
			return tensor::mem_rw(*out.mem, NEURON_IOCTL_MEM_WRITE, to.dev_offset, to.size,
					      buf.data(), 0);
		std::memcpy((*host_out)->host, buf.data(), to.size);
		*host_out = nullptr;
		return NRT_SUCCESS;
	}
	if (!why.empty())
		std::fprintf(stderr, "nrt_execute: %s: worker %u of %u: %s\n",
			     nrt_get_status_as_str(NRT_EXEC_HW_ERR_COLLECTIVES), m.comm->rank(),
			     m.comm->count(), why.c_str());
	// the failed step travels as the device's own error would
	neuron_sim_exec job{};
	job.size = sizeof(job);
	job.flags = NEURON_SIM_EXEC_COLL_ERROR;
	job.nc = m.nc_first;
	job.timeout_us = timeout_us;
	int e = ::ioctl(m.dev->fd, NEURON_IOCTL_SIM_EXEC, &job) != 0 ? errno : 0;
	uint64_t dropped = 0;
	nq::drain_owned(c.error_ring, errs, &dropped);
	if (e == EINVAL || e == EPERM) {
		// a driver without the flag, or one that keeps it for root while
		// it logs simulated faults as real: the fault the device would
		// have written, without its log line
		errs->hw_error_flags[NEURON_NQ_HW_COLLECTIVES] = 1;
		e = 0;
	}
	NRT_STATUS exec_st = e ? nrt_status_from_errno(NRT_SITE_EXEC, e) : NRT_SUCCESS;
	return decode::job_status(exec_st, *errs, numerical_armed);
}

// A collective model's execution that failed before its step (a bad
// input, no proxy, a read out of range, no staging memory, no error
// ring): the step is this worker's all the same, and the other workers
// are told at once rather than waiting for it to their bound. Under the
// NeuronCore's lock, as collective_step(); @locked: the caller holds it.
NRT_STATUS fail_step(model &m, NRT_STATUS st, bool locked = false) noexcept
{
	if (!m.comm || m.desc.coll == neff::collective::none)
		return st;
	std::string why;
	if (locked) {
		m.comm->all_reduce({}, false, &why);
		return st;
	}
	async::long_wait w;	// waiting for the NeuronCore
	std::lock_guard cg(m.dev->cores[m.nc_first].lock);
	m.comm->all_reduce({}, false, &why);
	return st;
}

} // namespace

bool locate(int vnc, std::shared_ptr<rt::device_ctx> *dev, uint32_t *device_index, uint32_t *nc)
{
	if (vnc < 0)
		return false;
	rt::runtime &r = rt::rt();
	std::lock_guard<std::mutex> g(r.lock);
	// visible index -> global NeuronCore index -> (device, NeuronCore)
	if (static_cast<uint32_t>(vnc) >= r.visible_count)
		return false;
	uint32_t left = r.visible_first + static_cast<uint32_t>(vnc);
	for (size_t i = 0; i < r.devices.size(); i++) {
		const auto &d = r.devices[i];
		if (!d)
			continue;
		if (left < ndl_device_get_info(d->dev)->nc_count) {
			*dev = d;
			*device_index = static_cast<uint32_t>(i);
			*nc = left;
			return true;
		}
		left -= ndl_device_get_info(d->dev)->nc_count;
	}
	return false;
}

NRT_STATUS load(std::span<const uint8_t> bytes, int32_t vnc, int32_t vnc_count,
		std::shared_ptr<model> *out, uint32_t rank, uint32_t count) noexcept
{
	try {
		auto m = std::make_shared<model>();
		neff::header h;
		neff::load_options opt = neff::options_from_env();
		neff::load_info info;
		NRT_STATUS st = neff::parse(bytes, &h, &m->desc, &opt, &info);
		// what the status alone cannot say (which recipe to provide): one
		// line, as the SDK runtime logs a refused load
		if (st != NRT_SUCCESS && !info.message.empty()) {
			// it may quote the NEFF's header (its name): printable bytes only
			for (char &c : info.message)
				if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
					c = '?';
			std::fprintf(stderr, "nrt_load: %s: %s\n", nrt_get_status_as_str(st),
				     info.message.c_str());
		}
		uint32_t need = m->desc.nc_count;
		if (st == NRT_SUCCESS && need == 0)
			st = NRT_INVALID;	// the parser refuses it; never divide by it
		// a count that is not whole copies of the model cannot be staged
		if (st == NRT_SUCCESS && vnc_count != -1) {
			if (vnc_count <= 0 || static_cast<uint32_t>(vnc_count) % need)
				st = NRT_INVALID;
			else
				need = static_cast<uint32_t>(vnc_count);
		}
		if (st == NRT_SUCCESS)
			st = place(m, vnc, need);
		// the parent's NeuronCores (a forked child): as an execution on them
		if (st == NRT_SUCCESS && rt::inherited(*m->dev))
			st = NRT_FAILURE;
		m->ctx_device_id = rank;
		m->ctx_device_count = count;
		m->uuid = h.uuid;	// (the workers meet on it)
		m->bare = m->dev && m->dev->job_time && m->desc.inputs.empty() && m->desc.outputs.empty() &&
			  m->desc.proxy.empty() && m->desc.program == neff::op::none &&
			  m->desc.coll == neff::collective::none;
		if (st == NRT_SUCCESS && count > 1)
			st = meet(*m, rank, count);
		if (st != NRT_SUCCESS) {
			count_load_failure(vnc, st);
			return st;
		}
		nds_increment_nc_counter(m->dev->nds, static_cast<int>(m->nc_first),
					 NDS_NC_COUNTER_MODEL_LOAD_COUNT, 1);
		publish(*m);
		*out = std::move(m);
		return NRT_SUCCESS;
	} catch (...) {
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
}

void unload(model &m) noexcept
{
	// the NeuronCores stay this process's until nrt_close(), as in the SDK;
	// m.dev stays too: an execute racing this unload (a caller bug, as in
	// the SDK) still has a live device under it, and gets the driver's answer
	m.nc_count = 0;
	for (nds_obj_handle_t h : m.nds_nodes)
		nds_obj_delete(h);	// out of the slab
	m.nds_nodes.clear();
}

void unload_all() noexcept
{
	try {
		for (auto &m : models().take_all())
			unload(*m);
	} catch (...) {
		// take_all could not allocate: nrt_close() goes on all the same
	}
}

NRT_STATUS execute_any(model &m, const tensor::tensor_set *in_set,
		       const tensor::tensor_set *out_set, exec_report *rep) noexcept
try {
	// The accounting's times: the driver's own (@job_ns) when the job's
	// ioctl is the whole call, else the clock, read at entry (a driver
	// without NEURON_CAP_JOB_TIME) or where host tensors start being
	// staged (system calls of their own), and after the job
	// (docs/performance.md: a clock read can cost as much as the job's
	// system call).
	// (a collective step is the call's too: clocked)
	bool clocked = !m.dev->job_time || (m.comm && m.desc.coll != neff::collective::none);
	std::chrono::steady_clock::time_point t_entry;
	if (clocked)
		t_entry = std::chrono::steady_clock::now();
	// a forked child's copy of the parent's model: neither its NeuronCore
	// nor the other workers are this process's to reach
	if (rt::inherited(*m.dev))
		return NRT_FAILURE;
	const neff::model_desc &d = m.desc;
	std::vector<bound> in, out;
	NRT_STATUS st = NRT_SUCCESS;	// a model without tensors has nothing to resolve
	if (!d.inputs.empty())
		st = resolve(m, in_set, d.inputs, &in);
	if (st == NRT_SUCCESS && !d.outputs.empty())
		st = resolve(m, out_set, d.outputs, &out);
	if (st == NRT_INVALID_HANDLE || st == NRT_CLOSED || st == NRT_FAIL_HOST_MEM_ALLOC)
		return fail_step(m, st);	// the caller's handle (or no memory), not an execution
	nrt_infer_errors_t errs{};
	if (st != NRT_SUCCESS) {
		record(m, st, &errs, nullptr);
		return fail_step(m, st);
	}

	// From here to the job's end a queue worker may wait long (the proxy,
	// the NeuronCore's lock, the job) and takes no lock a forked child
	// could want: fork() does not wait for it (async.hpp).
	async::long_wait lw;

	// collectives go through the host's network proxy: no proxy, no execution
	if (!d.proxy.empty()) {
		st = proxy_connect(d.proxy, rt::rt().timeout_us.load(std::memory_order_relaxed));
		if (st != NRT_SUCCESS) {
			record(m, st, &errs, nullptr);
			return fail_step(m, st);
		}
	}

	// the job of a model with data (one without takes SIM_EXEC below)
	neuron_sim_exec_model arg;
	std::unique_ptr<tensor::device_mem> stage_in, stage_out;
	tensor::tensor *host_out = nullptr;
	if (d.program != neff::op::none) {
		arg = neuron_sim_exec_model{};
		arg.size = sizeof(arg);
		arg.nc = m.nc_first;
		arg.op = static_cast<uint32_t>(d.program);
		arg.duration_us = d.run_time_us;
		arg.arg0 = d.arg0;
		arg.arg1 = d.arg1;
		tensor::tensor &ti = *in[0].t, &to = *out[0].t;
		uint64_t bytes = to.size;
		// the program's (indirect) read must stay inside its input, as the
		// device's DMA bounds-checks it
		if (!tensor::in_range(ti.size, d.in_offset, bytes)) {
			record(m, NRT_EXEC_OOB, &errs, nullptr);
			return fail_step(m, NRT_EXEC_OOB);
		}
		arg.bytes = bytes;
		if (!clocked && (!in[0].mem || !out[0].mem)) {
			clocked = true;	// the staging is the call's too
			t_entry = std::chrono::steady_clock::now();
		}
		if (in[0].mem) {
			arg.in_handle = in[0].mem->handle;
			arg.in_offset = ti.dev_offset + d.in_offset;
		} else {
			// host input: staged through the NeuronCore's scratchpad
			st = tensor::mem_alloc(m.dev, m.nc_first, NEURON_MEM_LOC_DEVICE,
					       NEURON_MEM_CAT_SCRATCHPAD, bytes, &stage_in);
			if (st == NRT_SUCCESS)
				st = tensor::mem_rw(*stage_in, NEURON_IOCTL_MEM_WRITE, 0, bytes,
						    ti.host + d.in_offset, 0);
			if (st != NRT_SUCCESS)
				return fail_step(m, st);
			arg.in_handle = stage_in->handle;
		}
		if (out[0].mem) {
			arg.out_handle = out[0].mem->handle;
			arg.out_offset = to.dev_offset;
		} else {
			st = tensor::mem_alloc(m.dev, m.nc_first, NEURON_MEM_LOC_DEVICE,
					       NEURON_MEM_CAT_SCRATCHPAD, bytes, &stage_out);
			if (st != NRT_SUCCESS)
				return fail_step(m, st);
			arg.out_handle = stage_out->handle;
			host_out = &to;
		}
	}

	// the caller passed the runtime guard (initialized: these are set)
	rt::runtime &r = rt::rt();
	const nrt_decode_config_t cfg = r.cfg.load(std::memory_order_relaxed);
	const uint64_t timeout_us = r.timeout_us.load(std::memory_order_relaxed);
	rt::core_ctx &c = m.dev->cores[m.nc_first];
	std::lock_guard cg(c.lock);
	if (!c.error_ring) {
		st = rt::error_ring_locked(*m.dev, m.nc_first);
		if (st != NRT_SUCCESS)
			return fail_step(m, st, true);
	}
	int exec_errno = 0;
	uint64_t job_ns = 0;	// 0 for a job refused at once (no answer)
	if (d.program == neff::op::none) {
		// no data: the same job through the smaller ioctl
		exec_errno = sim_exec(m, timeout_us, &job_ns);
	} else {
		arg.timeout_us = timeout_us;
		if (::ioctl(m.dev->fd, NEURON_IOCTL_SIM_EXEC_MODEL, &arg) != 0)
			exec_errno = errno;
		job_ns = arg.job_ns;
	}
	lw.end();
	uint64_t call_ns = clocked ? rt::elapsed_ns(t_entry) : job_ns;
	st = job_outcome(c, exec_errno, cfg.numerical_armed, &errs, rep);
	if (m.comm && d.coll != neff::collective::none) {
		st = collective_step(m, c, st, out[0], host_out ? stage_out.get() : nullptr, &host_out,
				     timeout_us, cfg.numerical_armed, &errs);
		if (rep)
			rep->errs = errs;
		call_ns = rt::elapsed_ns(t_entry);
	}

	const nrt_exec_times_t times = job_times(m, call_ns, exec_errno);
	record(m, st, &errs, &times);
	if (host_out && !exec_errno) {
		NRT_STATUS rs = tensor::mem_rw(*stage_out, NEURON_IOCTL_MEM_READ, 0, host_out->size,
					       host_out->host, 0);
		if (st == NRT_SUCCESS)
			st = rs;
		if (clocked)
			call_ns = rt::elapsed_ns(t_entry);	// the read back is the call's too
	}
	// the latency histograms: the job's time in the driver, or the wall
	// time measured above (output read back included), and the device's
	// time when it ran the job
	kmetric::record_latencies(c.acct, m.dev->nds, call_ns, times.device_ns, !exec_errno);
	return st;
} catch (...) {
	return NRT_FAIL_HOST_MEM_ALLOC;
}

} // namespace nrt::model
