// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// The runtime: nrt_init/nrt_close lifecycle, NeuronCore counts, and the
// simulated execute path that ties the error chain together.
#include <nrt/kmetric.h>
#include <nrt/nds/neuron_ds.h>
#include <nrt/nrt.h>
#include <nrt/nrt_nq.h>
#include <ndl/ndl.h>
#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nds.h>
#include <neuron/neuron_nq.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <sys/ioctl.h>
#include <utility>
#include <vector>

#include "async.hpp"
#include "decode.hpp"
#include "export.hpp"
#include "kmetric.hpp"
#include "nq.hpp"
#include "model.hpp"
#include "ndl_internal.hpp"
#include "runtime.hpp"
#include "tensor.hpp"

extern "C" {
#include "neuron_cores.h"
}

namespace nrt::rt {

NRT_STATUS error_ring_locked(device_ctx &d, uint32_t nc)
{
	core_ctx &c = d.cores[nc];
	if (c.error_ring)
		return NRT_SUCCESS;
	int ret = nrt_nq_open(d.dev, nc, NEURON_NQ_TYPE_ERROR, 0, kErrorRingBytes, &c.error_ring);
	return ret ? nrt_status_from_errno(NRT_SITE_NQ_INIT, ret) : NRT_SUCCESS;
}

// A framework's version string -> the NDS version encoding (build 0-31,
// minor 32-39, major 40-47, framework type in 48-63). Frameworks pass
// what they are ("2.1.0+cu121", "v1.13", "nightly"): any string without
// control characters is accepted. What parses is recorded: up to three
// leading dot-separated decimal fields ("2.1.0+cu121" -> 2.1.0, "1.13" ->
// 1.13.0); a string that does not start with a digit, or a field too wide
// for its bits, records 0.0.0. The framework type is recorded whatever
// the string. false only for a control character.
bool encode_version(const char *s, uint64_t type, uint64_t *out)
{
	*out = type << 48;
	if (!s)
		return true;
	for (const char *c = s; *c; c++)
		if (static_cast<unsigned char>(*c) < 0x20 || *c == 0x7f)
			return false;
	uint64_t v[3] = { 0, 0, 0 };
	const uint64_t max[3] = { 0xff, 0xff, 0xffffffff };
	const char *p = s;
	for (int i = 0; i < 3 && *p >= '0' && *p <= '9'; i++) {
		while (*p >= '0' && *p <= '9') {
			v[i] = v[i] * 10 + static_cast<uint64_t>(*p - '0');
			if (v[i] > max[i])
				return true;	// wider than its bits: 0.0.0
			p++;
		}
		if (*p != '.')
			break;
		p++;
	}
	*out = (type << 48) | (v[0] << 40) | (v[1] << 32) | v[2];
	return true;
}

nds_process_info_t process_info(int framework, const char *tag, uint64_t fw_ver, uint64_t fal_ver,
				uint64_t rt_ver)
{
	// the NDS encoding: build 0-31, minor 32-39, major 40-47
	auto version = [](uint64_t v) {
		nds_version_info_t out{};
		out.major = static_cast<uint8_t>(v >> 40);
		out.minor = static_cast<uint8_t>(v >> 32);
		out.build = static_cast<uint32_t>(v);
		return out;
	};
	nds_process_info_t pi{};
	pi.framework_type = static_cast<int8_t>(framework);
	if (tag)
		std::strncpy(pi.tag, tag, sizeof(pi.tag) - 1);
	pi.framework_version = version(fw_ver);
	pi.fal_version = version(fal_ver);
	pi.runtime_version = version(rt_ver);
	return pi;
}

uint64_t timeout_from_env()
{
	const char *s = std::getenv("NEURON_RT_EXEC_TIMEOUT");
	if (!s || !*s)
		return kDefaultTimeoutUs;
	char *end;
	unsigned long sec = std::strtoul(s, &end, 10);
	if (*end || sec == 0 || sec > NEURON_EXEC_MAX_TIMEOUT_US / 1000000)
		return kDefaultTimeoutUs;
	return uint64_t{sec} * 1000000;
}

NRT_STATUS visible_cores(const char *env, uint32_t total, uint32_t *first, uint32_t *count, bool *set)
{
	neuron_cores_result r;

	*first = 0;
	*count = total;
	*set = env && *env;
	if (!*set)
		return NRT_SUCCESS;
	// "3", "3-6", "3,4,5", "3-4,5": common/neuron_cores, as neuron-doctor checks it
	if (neuron_parse_cores(env, std::strlen(env), total, &r))
		return NRT_INVALID;
	*first = r.first;
	*count = r.count;
	return NRT_SUCCESS;
}

NRT_STATUS num_cores(const char *env, uint32_t total, uint32_t *count, bool *set)
{
	*count = 0;
	*set = false;
	if (!env || !*env)
		return NRT_SUCCESS;
	// digits only: no sign, no blanks, no list (that was NEURONCORE_GROUP_SIZES)
	for (const char *p = env; *p; p++)
		if (*p < '0' || *p > '9')
			return NRT_INVALID;
	errno = 0;
	unsigned long long n = std::strtoull(env, nullptr, 10);
	if (errno)
		return NRT_INVALID;
	if (n == 0)
		return NRT_SUCCESS;	// the SDK's "all": the default
	if (n > total)
		return NRT_RESOURCE;	// more than the machine has
	*count = static_cast<uint32_t>(n);
	*set = true;
	return NRT_SUCCESS;
}

NRT_STATUS request_cores(const char *visible, const char *num, uint32_t total, core_request *out)
{
	*out = core_request{};
	uint32_t first, count;
	bool set;
	NRT_STATUS st = visible_cores(visible, total, &first, &count, &set);
	if (st != NRT_SUCCESS)
		return st;
	if (set) {
		out->how = core_request::kind::named;
		out->first = first;
		out->count = count;
		return NRT_SUCCESS;
	}
	st = num_cores(num, total, &count, &set);
	if (st != NRT_SUCCESS)
		return st;
	out->count = set ? count : total;
	if (set)
		out->how = core_request::kind::number;
	return NRT_SUCCESS;
}

namespace {

void count_fork()
{
	fork_generation.fetch_add(1, std::memory_order_relaxed);
}

// At load: every child counts, whether or not a device is open yet.
[[maybe_unused]] const int fork_counted = ::pthread_atfork(nullptr, nullptr, count_fork);

} // namespace

} // namespace nrt::rt

using namespace nrt::rt;

namespace {

NRT_STATUS init_locked(runtime &r, nrt_framework_type_t framework, const char *fw_version,
		       const char *fal_version)
{
	if (r.st == state::initialized)
		return NRT_INVALID;
	if (framework < NRT_FRAMEWORK_TYPE_INVALID || framework > NRT_FRAMEWORK_TYPE_PRECHECK)
		return NRT_INVALID;
	uint64_t rt_ver, fw_ver, fal_ver;
	if (!encode_version(NRT_VERSION_STRING, 0, &rt_ver) ||
	    !encode_version(fw_version, static_cast<uint64_t>(framework), &fw_ver) ||
	    !encode_version(fal_version, 0, &fal_ver))
		return NRT_INVALID;

	int idx[MAX_NEURON_DEVICE_COUNT];
	int n = ndl_available_devices(idx, MAX_NEURON_DEVICE_COUNT);
	if (n <= 0)
		return NRT_RESOURCE;

	std::vector<std::shared_ptr<device_ctx>> devs;
	for (int i = 0; i < n && i < MAX_NEURON_DEVICE_COUNT; i++) {
		auto d = std::make_shared<device_ctx>();
		int ret = ndl_open_device(idx[i], nullptr, &d->dev);
		if (ret)
			return nrt_status_from_errno(NRT_SITE_OPEN, ret);
		d->fd = ndl_device_fd(d->dev);
		d->job_time = ndl_device_get_info(d->dev)->capabilities & NEURON_CAP_JOB_TIME;
		ret = nds_open(d->dev, 0, &d->nds);
		if (ret)
			return nrt_status_from_errno(NRT_SITE_NDS_ACQUIRE, ret);
		for (uint32_t nc = 0; nc < d->cores.size(); nc++)
			d->cores[nc].acct = nrt::kmetric::core_account_for(d->nds, nc);
		nds_set_nd_counter(d->nds, NDS_ND_COUNTER_RUNTIME_VERSION, &rt_ver);
		nds_set_nd_counter(d->nds, NDS_ND_COUNTER_FRAMEWORK_VERSION, &fw_ver);
		nds_set_nd_counter(d->nds, NDS_ND_COUNTER_FAL_VERSION, &fal_ver);
		nds_or_nd_counter(d->nds, NDS_ND_COUNTER_FEATURE_BITMAP, 0);
		// where neuron-monitor finds the application's tag
		const char *tag = std::getenv("NEURON_PROCESS_TAG");
		if (tag && *tag)
			nds_set_process_tag(d->nds, tag);
		// the process info object monitoring tools read (best effort:
		// the counters above are what the driver needs)
		d->process_info = nds_obj_new(d->nds, OBJECT_TYPE_PROCESS_INFO);
		if (nds_process_info_t *pi = nds_obj_handle_to_process_info(d->process_info)) {
			*pi = process_info(framework, tag, fw_ver, fal_ver, rt_ver);
			nds_obj_commit(d->process_info);
		}
		if (devs.size() <= static_cast<size_t>(idx[i]))
			devs.resize(static_cast<size_t>(idx[i]) + 1);
		devs[static_cast<size_t>(idx[i])] = std::move(d);
	}
	// the NeuronCores this process may use, all of them its own from now
	// until nrt_close() or exit, as in the SDK: every NeuronCore present
	// (no variable, or NEURON_RT_NUM_CORES=0), the run
	// NEURON_RT_VISIBLE_CORES names, or NEURON_RT_NUM_CORES free ones
	uint32_t total = 0;
	for (const auto &d : devs)
		if (d)
			total += ndl_device_get_info(d->dev)->nc_count;
	core_request req;
	NRT_STATUS st = request_cores(std::getenv("NEURON_RT_VISIBLE_CORES"),
				      std::getenv("NEURON_RT_NUM_CORES"), total, &req);
	if (st == NRT_RESOURCE)
		std::fprintf(stderr, "nrt_init: NEURON_RT_NUM_CORES=%s: more than the %u NeuronCores present\n",
			     std::getenv("NEURON_RT_NUM_CORES"), total);
	if (st != NRT_SUCCESS)
		return st;
	// global NeuronCore index -> (device, NeuronCore), in device order
	std::vector<std::pair<device_ctx *, uint32_t>> cores;
	for (auto &d : devs)
		if (d)
			for (uint32_t nc = 0; nc < ndl_device_get_info(d->dev)->nc_count; nc++)
				cores.emplace_back(d.get(), nc);
	// 0 or the errno of CORE_RESERVE
	auto reserve = [&cores](uint32_t g) {
		auto [d, nc] = cores[g];
		int err = nrt::ndl::core_reserve(d->dev, nc);
		if (err)
			return err;
		d->cores[nc].owned = true;
		return 0;
	};
	auto release = [&cores](uint32_t g) {
		auto [d, nc] = cores[g];
		nrt::ndl::core_release(d->dev, nc);
		d->cores[nc].owned = false;
	};
	if (req.how == core_request::kind::number) {
		// the first run of req.count free NeuronCores, lowest index first;
		// a core another process holds ends the run tried and the next
		// one starts after it
		uint32_t start = 0;
		while (true) {
			if (start + req.count > total) {
				std::fprintf(stderr, "nrt_init: NEURON_RT_NUM_CORES=%u: no run of %u free NeuronCores\n",
					     req.count, req.count);
				return NRT_RESOURCE;
			}
			uint32_t g = start;
			int err = 0;
			while (g < start + req.count && (err = reserve(g)) == 0)
				g++;
			if (!err)
				break;
			for (uint32_t k = start; k < g; k++)
				release(k);
			if (err != EBUSY)
				return nrt_status_from_errno(NRT_SITE_CORE_RESERVE, err);
			start = g + 1;
		}
		req.first = start;
	} else {
		// all, or the named run: each one, or nothing (the SDK's nrt_init
		// fails with NRT_RESOURCE when another process holds one of them)
		for (uint32_t g = req.first; g < req.first + req.count; g++) {
			int err = reserve(g);
			if (!err)
				continue;
			for (uint32_t k = req.first; k < g; k++)
				release(k);
			if (err != EBUSY)
				return nrt_status_from_errno(NRT_SITE_CORE_RESERVE, err);
			auto [d, nc] = cores[g];
			std::fprintf(stderr, "nrt_init: NeuronCore %u (device %u, nc %u) is in use by another process%s\n",
				     g, static_cast<unsigned>(d->dev->device_index), nc,
				     req.how == core_request::kind::all
					     ? "; NEURON_RT_VISIBLE_CORES gives each process its own"
					     : "");
			return NRT_RESOURCE;
		}
	}
	r.visible_first = req.first;
	r.visible_count = req.count;
	r.devices = std::move(devs);
	r.cfg.store(nrt_decode_config_from_env(), std::memory_order_relaxed);
	r.timeout_us.store(timeout_from_env(), std::memory_order_relaxed);
	r.st.store(state::initialized, std::memory_order_release);
	return NRT_SUCCESS;
}

} // namespace

// No exception crosses the C ABI: allocation failures become NRT_RESOURCE.
NRT_EXPORT NRT_STATUS nrt_init(nrt_framework_type_t framework, const char *fw_version,
			       const char *fal_version)
{
	runtime &r = rt();
	std::lock_guard<std::mutex> g(r.lock);
	try {
		return init_locked(r, framework, fw_version, fal_version);
	} catch (...) {
		return NRT_RESOURCE;
	}
}

NRT_EXPORT void nrt_close(void)
{
	runtime &r = rt();
	// the asynchronous queues before anything else (async.hpp): requests
	// not started complete with NRT_CLOSED, the workers are joined, and no
	// request is scheduled until this returns
	nrt::async::closing_scope async_closing;
	// models first, outside r.lock (placing a model takes it)
	nrt::model::unload_all();
	// then the device memory of tensors the application still holds, so
	// that the device files close with r.devices below
	nrt::tensor::release_device_memory();
	std::lock_guard<std::mutex> g(r.lock);
	if (r.st != state::initialized)
		return;
	r.devices.clear();
	r.st.store(state::closed, std::memory_order_release);
}

NRT_EXPORT NRT_STATUS nrt_get_total_nc_count(uint32_t *nc_count)
{
	if (!nc_count)
		return NRT_INVALID;
	*nc_count = 0;
	int idx[MAX_NEURON_DEVICE_COUNT];
	int n = ndl_available_devices(idx, MAX_NEURON_DEVICE_COUNT);
	for (int i = 0; i < n && i < MAX_NEURON_DEVICE_COUNT; i++) {
		ndl_device_t *d = nullptr;
		int ret = ndl_open_device(idx[i], nullptr, &d);
		if (ret)
			return nrt_status_from_errno(NRT_SITE_OPEN, ret);
		*nc_count += ndl_device_get_info(d)->nc_count;
		ndl_close_device(d);
	}
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrt_get_total_vnc_count(uint32_t *vnc_count)
{
	return nrt_get_total_nc_count(vnc_count);
}

// Any state, as in the SDK: after nrt_init() the set it took, otherwise
// what NEURON_RT_VISIBLE_CORES names among the NeuronCores present, or
// NEURON_RT_NUM_CORES's count, or all.
NRT_EXPORT NRT_STATUS nrt_get_visible_nc_count(uint32_t *nc_count)
{
	if (!nc_count)
		return NRT_INVALID;
	{
		runtime &r = rt();
		std::lock_guard<std::mutex> g(r.lock);
		if (r.st == state::initialized) {
			*nc_count = r.visible_count;
			return NRT_SUCCESS;
		}
	}
	uint32_t total = 0;
	NRT_STATUS st = nrt_get_total_nc_count(&total);
	if (st != NRT_SUCCESS)
		return st;
	core_request req;
	st = request_cores(std::getenv("NEURON_RT_VISIBLE_CORES"), std::getenv("NEURON_RT_NUM_CORES"),
			   total, &req);
	if (st == NRT_SUCCESS)
		*nc_count = req.count;
	return st;
}

NRT_EXPORT NRT_STATUS nrt_get_visible_vnc_count(uint32_t *vnc_count)
{
	return nrt_get_visible_nc_count(vnc_count);
}

NRT_EXPORT NRT_STATUS nrt_sim_execute_ex(uint32_t device_index, uint32_t nc_index,
					 const nrt_sim_exec_opts_t *opts,
					 nrt_sim_exec_result_t *result)
{
	nrt_sim_exec_opts_t o{};
	o.account = 1;
	if (opts)
		o = *opts;
	nrt_sim_exec_result_t res{};
	nrt_infer_errors_clear(&res.errors);
	if (result)
		*result = res;

	runtime &r = rt();
	std::shared_ptr<device_ctx> d;	// keeps the device alive across nrt_close()
	nrt_decode_config_t cfg;
	uint64_t timeout;
	{
		std::lock_guard<std::mutex> g(r.lock);
		NRT_STATUS st = guard(r);
		if (st != NRT_SUCCESS)
			return st;
		if (device_index >= r.devices.size() || !r.devices[device_index])
			return NRT_INVALID;
		d = r.devices[device_index];
		cfg = r.cfg.load();
		timeout = o.timeout_us ? o.timeout_us : r.timeout_us.load();
	}
	const ndl_device_info_t *di = ndl_device_get_info(d->dev);
	if (nc_index >= di->nc_count || o.reserved || o.account > 1)
		return NRT_INVALID;
	// The accounting's times: the driver's own (@job_ns: no clock read
	// here, where one can cost as much as the job's system call,
	// docs/performance.md), or the clock read twice around the job.
	const bool driver_time = di->capabilities & NEURON_CAP_JOB_TIME;
	std::chrono::steady_clock::time_point t_entry;
	if (o.account == 1 && !driver_time)
		t_entry = std::chrono::steady_clock::now();

	// a driver without this one's job path (the vendor's, or vendor_only)
	if (!(di->capabilities & NEURON_CAP_SIM_EXEC)) {
		static std::once_flag said;
		std::call_once(said, [] {
			std::fprintf(stderr, "nrt_sim_execute: the driver has no job path (SIM_EXEC is this driver's "
					     "extension: the vendor's driver, or vendor_only=1)\n");
		});
		return NRT_FAILURE;
	}
	if (inherited(*d))
		return NRT_FAILURE;	// the parent's NeuronCore (a forked child)
	// nrt_close() concurrent with an execute is a caller bug, as in the SDK.
	core_ctx &c = d->cores[nc_index];
	std::lock_guard cg(c.lock);
	if (!c.error_ring) {
		int ret = nrt_nq_open(d->dev, nc_index, NEURON_NQ_TYPE_ERROR, 0, kErrorRingBytes,
				      &c.error_ring);
		if (ret)
			return nrt_status_from_errno(NRT_SITE_NQ_INIT, ret);
	}

	neuron_sim_exec arg{};
	arg.size = sizeof(arg);
	arg.nc = nc_index;
	arg.duration_us = o.duration_us;
	arg.timeout_us = timeout;
	if (::ioctl(ndl_device_fd(d->dev), NEURON_IOCTL_SIM_EXEC, &arg) != 0)
		res.exec_errno = errno;
	// 0 when the job was refused at once (the driver answers only a job
	// that ran: success, ETIMEDOUT, EINTR)
	const uint64_t job_ns = arg.job_ns;
	res.exec_status = res.exec_errno ? nrt_status_from_errno(NRT_SITE_EXEC, res.exec_errno)
					 : NRT_SUCCESS;

	int drained = nrt::nq::drain_job(c.error_ring, &res.errors, &res.dropped);
	res.entries = drained > 0 ? static_cast<uint32_t>(drained) : 0;

	res.status = nrt::decode::job_status(res.exec_status, res.errors, cfg.numerical_armed);

	// A job that never ran (busy, invalid) adds no device time, and with
	// the driver's clock a job refused at once takes 0 ns.
	if (o.account) {
		// the job's time as the driver measured it, else the call's
		// from entry to here (the job's ioctl, the drain and fold above)
		uint64_t call_ns = driver_time ? job_ns : elapsed_ns(t_entry);
		nrt_exec_times_t times{};
		times.total_ns = call_ns;
		if (!res.exec_errno) {
			times.device_ns = o.duration_us * 1000;
			times.nc_ns = o.duration_us * 1000;
		}
		nrt::kmetric::record_execution(c.acct, d->nds, static_cast<int>(nc_index),
					       res.status, res.errors, times);
		// the latency histograms: the job's time (as above), the device's time
		nrt::kmetric::record_latencies(c.acct, d->nds, call_ns, times.device_ns,
					       !res.exec_errno);
	}
	if (result)
		*result = res;
	return res.status;
}

NRT_EXPORT NRT_STATUS nrt_sim_execute(uint32_t device_index, uint32_t nc_index, uint64_t duration_us)
{
	nrt_sim_exec_opts_t o{};
	o.duration_us = duration_us;
	o.account = 1;
	return nrt_sim_execute_ex(device_index, nc_index, &o, nullptr);
}
