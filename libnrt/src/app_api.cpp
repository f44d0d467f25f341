// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// C ABI of the application API (<nrt/nrt.h>): argument checks, handle
// look-ups and the runtime guard; the work is in model.cpp and tensor.cpp.
// No exception crosses: every internal call is noexcept.
#include <nrt/kmetric.h>
#include <nrt/nrt.h>

#include "export.hpp"
#include "model.hpp"
#include "profile.hpp"
#include "tensor.hpp"

#include <chrono>
#include <vector>

using namespace nrt;

namespace {

// The profile's clock: steady_clock, ns.
uint64_t now_ns()
{
	return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
		std::chrono::steady_clock::now().time_since_epoch()).count());
}

// An execution's drained errors as the profile keeps them.
profile::exec_errors profile_errors(const model::exec_report &rep)
{
	profile::exec_errors pe;
	pe.entries = rep.errs.entries;
	pe.malformed = rep.errs.malformed;
	pe.ring_dropped = rep.ring_dropped > UINT32_MAX ? UINT32_MAX
							: static_cast<uint32_t>(rep.ring_dropped);
	pe.overflow = rep.errs.nq_overflow != 0;
	for (unsigned i = 0; i < NRT_INFER_ERROR_SUBTYPE_MAX; i++)
		if (rep.errs.infer_error_flags[i])
			pe.subtypes |= static_cast<uint16_t>(1u << i);
	for (unsigned i = 0; i < NRT_HW_FAULT_SLOTS; i++)
		if (rep.errs.hw_error_flags[i])
			pe.hw_faults |= static_cast<uint8_t>(1u << i);
	return pe;
}

[[gnu::always_inline]] inline NRT_STATUS runtime_guard()
{
	return rt::guard(rt::rt());	// one atomic load (runtime::st)
}

// The runtime guard, then the model behind @handle into *@m (@take: out of
// the table): NRT_INVALID_HANDLE when there is none.
[[gnu::always_inline]] inline NRT_STATUS guarded_model(const void *handle, std::shared_ptr<model::model> *m,
							bool take = false)
{
	NRT_STATUS st = runtime_guard();
	if (st != NRT_SUCCESS)
		return st;
	*m = take ? model::models().take(handle) : model::models().find(handle);
	return *m ? NRT_SUCCESS : NRT_INVALID_HANDLE;
}

// A handle of @table for @obj into *@out (left as it is when the table is full).
template <typename Out, typename Table, typename T>
NRT_STATUS issue(Table &table, std::shared_ptr<T> obj, Out **out)
{
	void *h = reinterpret_cast<void *>(table.issue(std::move(obj)));
	if (!h)
		return NRT_FAIL_HOST_MEM_ALLOC;
	*out = static_cast<Out *>(h);
	return NRT_SUCCESS;
}

// Drop the handle *@handle of @table (if any) and clear it.
template <typename Table, typename H>
void release(Table &table, H **handle)
{
	if (!handle)
		return;
	table.take(*handle);
	*handle = nullptr;
}

} // namespace

namespace {

NRT_STATUS load_common(const void *neff_bytes, size_t size, int32_t vnc, int32_t vnc_count,
		       uint32_t ctx_device_id, uint32_t ctx_device_count, nrt_model_t **model)
{
	NRT_STATUS st = runtime_guard();
	if (st != NRT_SUCCESS)
		return st;
	if (!model)
		return NRT_INVALID;
	*model = nullptr;
	// vnc_count: -1, or whole copies of the model (checked once it is parsed)
	if (!neff_bytes || vnc < -1 || vnc_count < -1 || vnc_count == 0)
		return NRT_INVALID;
	if (ctx_device_count == 0 || ctx_device_id >= ctx_device_count ||
	    ctx_device_count > coll::kMaxWorkers)
		return NRT_INVALID;
	std::shared_ptr<model::model> m;
	st = model::load({ static_cast<const uint8_t *>(neff_bytes), size }, vnc, vnc_count, &m,
			 ctx_device_id, ctx_device_count);
	if (st != NRT_SUCCESS)
		return st;
	m->ctx_device_id = ctx_device_id;
	m->ctx_device_count = ctx_device_count;
	st = issue(model::models(), m, model);
	if (st != NRT_SUCCESS)
		model::unload(*m);
	return st;
}

} // namespace

NRT_EXPORT NRT_STATUS nrt_load(const void *neff_bytes, size_t size, int32_t vnc, int32_t vnc_count,
			       nrt_model_t **model)
{
	return load_common(neff_bytes, size, vnc, vnc_count, 0, 1, model);
}

NRT_EXPORT NRT_STATUS nrt_load_collectives(const void *neff_bytes, size_t size, int32_t vnc,
					   int32_t vnc_count, uint32_t ctx_device_id,
					   uint32_t ctx_device_count, nrt_model_t **model)
{
	return load_common(neff_bytes, size, vnc, vnc_count, ctx_device_id, ctx_device_count, model);
}

NRT_EXPORT NRT_STATUS nrt_unload(nrt_model_t *model)
{
	std::shared_ptr<model::model> m;
	NRT_STATUS st = guarded_model(model, &m, true);
	if (st != NRT_SUCCESS)
		return st;
	model::unload(*m);
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrt_get_model_nc_count(const nrt_model_t *model, uint32_t *vnc_count)
{
	std::shared_ptr<model::model> m;
	NRT_STATUS st = guarded_model(model, &m);
	if (st != NRT_SUCCESS)
		return st;
	if (!vnc_count)
		return NRT_INVALID;
	*vnc_count = m->nc_count;
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrt_get_model_vnc_count(const nrt_model_t *model, uint32_t *vnc_count)
{
	return nrt_get_model_nc_count(model, vnc_count);
}

NRT_EXPORT NRT_STATUS nrt_allocate_tensor_set(nrt_tensor_set_t **result)
{
	if (!result)
		return NRT_INVALID;
	*result = nullptr;
	std::shared_ptr<tensor::tensor_set> s;
	try {
		s = std::make_shared<tensor::tensor_set>();
	} catch (...) {
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	return issue(tensor::sets(), std::move(s), result);
}

NRT_EXPORT void nrt_destroy_tensor_set(nrt_tensor_set_t **tensor_set)
{
	release(tensor::sets(), tensor_set);
}

NRT_EXPORT NRT_STATUS nrt_add_tensor_to_tensor_set(nrt_tensor_set_t *tensor_set, const char *tensor_name,
						   nrt_tensor_t *tensor)
{
	auto s = tensor::sets().find(tensor_set);
	if (!s || !tensor::tensors().find(tensor))
		return NRT_INVALID_HANDLE;
	if (!tensor_name || !*tensor_name)
		return NRT_INVALID;
	try {
		std::lock_guard<std::mutex> g(s->lock);
		s->by_name[tensor_name] = reinterpret_cast<uintptr_t>(tensor);
	} catch (...) {
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrt_get_tensor_from_tensor_set(nrt_tensor_set_t *tensor_set, const char *tensor_name,
						     nrt_tensor_t **tensor)
{
	auto s = tensor::sets().find(tensor_set);
	if (!s)
		return NRT_INVALID_HANDLE;
	if (!tensor_name || !tensor)
		return NRT_INVALID;
	*tensor = nullptr;
	try {
		std::lock_guard<std::mutex> g(s->lock);
		auto it = s->by_name.find(tensor_name);
		if (it == s->by_name.end())
			return NRT_INVALID;
		*tensor = reinterpret_cast<nrt_tensor_t *>(it->second);
	} catch (...) {
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	return NRT_SUCCESS;
}

namespace {

// One execution of @m under the profile: its event recorded
// (docs/sdk-compat.md, "Profiling"); out of the execution path's text.
[[gnu::noinline]] NRT_STATUS execute_profiled(nrt_model_t *model, model::model &m,
					      const tensor::tensor_set *in, const tensor::tensor_set *out,
					      int iteration)
{
	model::exec_report rep;
	profile::event e;
	e.start_ns = now_ns();
	NRT_STATUS st = model::execute(m, in, out, &rep);
	e.end_ns = now_ns();
	e.vnc = m.vnc_first;
	e.device = static_cast<uint16_t>(m.device_index);
	e.nc = static_cast<uint16_t>(m.nc_first);
	e.status = st;
	e.iteration = static_cast<uint32_t>(iteration);
	e.errors = profile_errors(rep);
	profile::record(model, e);
	return st;
}

// nrt_execute_repeat() once the runtime guard passed and @m is @model's:
// the sets looked up and held, the repetitions, the profile's events.
[[gnu::noinline]] NRT_STATUS execute_found(nrt_model_t *model, model::model &m,
					   const nrt_tensor_set_t *input_set, nrt_tensor_set_t *output_set,
					   int repeat_count)
{
	// a NULL set is an empty one: a model without inputs needs none
	std::shared_ptr<tensor::tensor_set> in, out;
	if (input_set && !(in = tensor::sets().find(input_set)))
		return NRT_INVALID_HANDLE;
	if (output_set && !(out = tensor::sets().find(output_set)))
		return NRT_INVALID_HANDLE;
	if (repeat_count < 1)
		return NRT_INVALID;
	for (int i = 0; i < repeat_count; i++) {
		// one event per repetition (docs/sdk-compat.md, "Profiling")
		NRT_STATUS st = profile::wanted(model) ? execute_profiled(model, m, in.get(), out.get(), i)
						       : model::execute(m, in.get(), out.get());
		if (st != NRT_SUCCESS)
			return st;
	}
	return NRT_SUCCESS;
}

// Whether @input_set and @output_set are each NULL or a set's handle.
[[gnu::noinline]] bool sets_exist(const nrt_tensor_set_t *input_set, const nrt_tensor_set_t *output_set)
{
	return (!input_set || tensor::sets().find(input_set)) &&
	       (!output_set || tensor::sets().find(output_set));
}

} // namespace

// A bare model (no tensors: its sets are checked, not held) whose driver
// times the job runs here to the end, unprofiled, in the execution path's
// text (NRT_HOT_PATH); any other model through execute_found().
NRT_EXPORT NRT_HOT_PATH NRT_STATUS nrt_execute(nrt_model_t *model, const nrt_tensor_set_t *input_set,
					       nrt_tensor_set_t *output_set)
{
	std::shared_ptr<model::model> m;
	NRT_STATUS st = guarded_model(model, &m);
	if (st != NRT_SUCCESS)
		return st;
	if (model::bare_now(*m) & !profile::wanted(model)) {
		if ((input_set || output_set) && !sets_exist(input_set, output_set))
			return NRT_INVALID_HANDLE;
		return model::execute_bare(*m, nullptr);
	}
	return execute_found(model, *m, input_set, output_set, 1);
}

NRT_EXPORT NRT_STATUS nrt_execute_repeat(nrt_model_t *model, const nrt_tensor_set_t *input_set,
					 nrt_tensor_set_t *output_set, int repeat_count)
{
	std::shared_ptr<model::model> m;
	NRT_STATUS st = guarded_model(model, &m);
	if (st != NRT_SUCCESS)
		return st;
	return execute_found(model, *m, input_set, output_set, repeat_count);
}

NRT_EXPORT NRT_STATUS nrt_tensor_allocate(nrt_tensor_placement_t tensor_placement, int vnc, size_t size,
					  const char *name, nrt_tensor_t **tensor)
{
	NRT_STATUS st = runtime_guard();
	if (st != NRT_SUCCESS)
		return st;
	if (!tensor)
		return NRT_INVALID;
	*tensor = nullptr;
	std::shared_ptr<tensor::tensor> t;
	switch (tensor_placement) {
	case NRT_TENSOR_PLACEMENT_HOST:
		st = tensor::allocate_host(size, name, &t);
		break;
	case NRT_TENSOR_PLACEMENT_DEVICE: {
		std::shared_ptr<rt::device_ctx> d;
		uint32_t di, nc;
		if (!model::locate(vnc, &d, &di, &nc))
			return NRT_INVALID;
		st = tensor::allocate_device(d, di, nc, size, name, &t);
		// HBM exhausted counts like any resource failure of that NeuronCore
		// (not in a forked child: the slab is the parent's)
		if (st == NRT_RESOURCE && !rt::inherited(*d))
			kmetric_update_nds_generic_status(d->nds, static_cast<int>(nc), st);
		break;
	}
	default:
		return NRT_INVALID;	// VIRTUAL and unknown placements
	}
	if (st != NRT_SUCCESS)
		return st;
	return issue(tensor::tensors(), std::move(t), tensor);
}

NRT_EXPORT void nrt_tensor_free(nrt_tensor_t **tensor)
{
	release(tensor::tensors(), tensor);
}

NRT_EXPORT NRT_STATUS nrt_tensor_read(const nrt_tensor_t *tensor, void *buf, size_t offset, size_t size)
{
	auto t = tensor::tensors().find(tensor);
	if (!t)
		return NRT_INVALID_HANDLE;
	return tensor::read(*t, buf, offset, size);
}

NRT_EXPORT NRT_STATUS nrt_tensor_write(nrt_tensor_t *tensor, const void *buf, size_t offset, size_t size)
{
	auto t = tensor::tensors().find(tensor);
	if (!t)
		return NRT_INVALID_HANDLE;
	return tensor::write(*t, buf, offset, size);
}

NRT_EXPORT NRT_STATUS nrt_tensor_copy(const nrt_tensor_t *src, size_t src_offset, nrt_tensor_t *dst,
				      size_t dst_offset, size_t size)
{
	auto s = tensor::tensors().find(src);
	auto d = tensor::tensors().find(dst);
	if (!s || !d)
		return NRT_INVALID_HANDLE;
	return tensor::copy(*s, src_offset, *d, dst_offset, size);
}

NRT_EXPORT size_t nrt_tensor_get_size(const nrt_tensor_t *tensor)
{
	auto t = tensor::tensors().find(tensor);
	return t ? t->size : 0;
}

NRT_EXPORT NRT_STATUS nrt_tensor_memset(nrt_tensor_t *tensor, uint64_t offset, int value, size_t size)
{
	auto t = tensor::tensors().find(tensor);
	if (!t)
		return NRT_INVALID_HANDLE;
	return tensor::memset(*t, offset, value, size);
}

NRT_EXPORT NRT_STATUS nrt_tensor_allocate_empty(const char *name, nrt_tensor_t **tensor)
{
	if (!tensor)
		return NRT_INVALID;
	*tensor = nullptr;
	std::shared_ptr<tensor::tensor> t;
	NRT_STATUS st = tensor::allocate_empty(name, &t);
	if (st != NRT_SUCCESS)
		return st;
	return issue(tensor::tensors(), std::move(t), tensor);
}

NRT_EXPORT NRT_STATUS nrt_tensor_attach_buffer(nrt_tensor_t *tensor, void *buffer, size_t size)
{
	auto t = tensor::tensors().find(tensor);
	if (!t)
		return NRT_INVALID_HANDLE;
	return tensor::attach_buffer(*t, buffer, size);
}

NRT_EXPORT NRT_STATUS nrt_tensor_allocate_slice(const nrt_tensor_t *tensor_source, size_t offset, size_t size,
						const char *name, nrt_tensor_t **tensor_slice)
{
	auto src = tensor::tensors().find(tensor_source);
	if (!src)
		return NRT_INVALID_HANDLE;
	if (!tensor_slice)
		return NRT_INVALID;
	*tensor_slice = nullptr;
	std::shared_ptr<tensor::tensor> t;
	NRT_STATUS st = tensor::allocate_slice(*src, offset, size, name, &t);
	if (st != NRT_SUCCESS)
		return st;
	return issue(tensor::tensors(), std::move(t), tensor_slice);
}

NRT_EXPORT NRT_STATUS nrt_memcpy_to_device(void *dest, const void *src, size_t size)
{
	return tensor::memcpy_to_device(dest, src, size);
}

NRT_EXPORT NRT_STATUS nrt_get_dmabuf_fd(uint64_t va, uint64_t size, int *fd)
{
	return tensor::dmabuf_fd(va, size, fd);
}

NRT_EXPORT void *nrt_tensor_get_va(const nrt_tensor_t *tensor)
{
	auto t = tensor::tensors().find(tensor);
	if (!t)
		return nullptr;
	// a device tensor: its place in the mapping of its allocation (docs/sdk-compat.md)
	if (t->placement == NRT_TENSOR_PLACEMENT_DEVICE && !t->host)
		return tensor::device_va(*t);
	return t->host;
}

namespace {

// nrt_tensor_read_batch / write_batch: every handle and range checked as
// nrt_tensor_read/write would check it, before any byte moves; then each
// op in order through the same path.
NRT_STATUS tensor_batch(const nrt_tensor_batch_t *batches, uint64_t num_batches, bool write) noexcept
{
	if (!num_batches)
		return NRT_SUCCESS;
	if (!batches)
		return NRT_INVALID;
	std::vector<std::shared_ptr<tensor::tensor>> ts;
	try {
		ts.reserve(num_batches);
	} catch (...) {
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	for (uint64_t b = 0; b < num_batches; b++) {
		const nrt_tensor_batch_t &bt = batches[b];
		auto t = tensor::tensors().find(bt.tensor);
		if (!t)
			return NRT_INVALID_HANDLE;
		if (bt.num_ops && !bt.ops)
			return NRT_INVALID;
		for (uint32_t i = 0; i < bt.num_ops; i++) {
			const nrt_tensor_batch_op_t &op = bt.ops[i];
			if (!op.buffer || !tensor::in_range(t->size, op.offset, op.size))
				return NRT_INVALID;
		}
		if (bt.num_ops && !t->host && !tensor::empty(*t) && !t->dmem())
			return NRT_CLOSED;	// a device tensor's memory went with nrt_close()
		ts.push_back(std::move(t));
	}
	for (uint64_t b = 0; b < num_batches; b++) {
		const nrt_tensor_batch_t &bt = batches[b];
		for (uint32_t i = 0; i < bt.num_ops; i++) {
			const nrt_tensor_batch_op_t &op = bt.ops[i];
			NRT_STATUS st = write ? tensor::write(*ts[b], op.buffer, op.offset, op.size)
					      : tensor::read(*ts[b], op.buffer, op.offset, op.size);
			if (st != NRT_SUCCESS)
				return st;
		}
	}
	return NRT_SUCCESS;
}

} // namespace

NRT_EXPORT NRT_STATUS nrt_tensor_read_batch(const nrt_tensor_batch_t *batches, uint64_t num_batches,
					    bool unsafe)
{
	(void)unsafe;	// no tracking to skip
	return tensor_batch(batches, num_batches, false);
}

NRT_EXPORT NRT_STATUS nrt_tensor_write_batch(const nrt_tensor_batch_t *batches, uint64_t num_batches,
					     bool unsafe)
{
	(void)unsafe;
	return tensor_batch(batches, num_batches, true);
}

NRT_EXPORT NRT_STATUS nrt_tensor_get_device_allocation_info(const nrt_tensor_t *tensor,
							    nrt_tensor_device_allocation_info_t *alloc_info)
{
	auto t = tensor::tensors().find(tensor);
	if (!t)
		return NRT_INVALID_HANDLE;
	if (!alloc_info || t->placement != NRT_TENSOR_PLACEMENT_DEVICE || t->host)
		return NRT_INVALID;
	auto m = t->dmem();
	if (!m)
		return NRT_CLOSED;
	if (t->dev_offset > m->bytes)
		return NRT_INVALID;
	*alloc_info = nrt_tensor_device_allocation_info_t{};
	alloc_info->physical_address = m->device_addr + t->dev_offset;
	alloc_info->size = static_cast<size_t>(m->bytes - t->dev_offset);
	alloc_info->hbm_index = 0;	// one device memory address space
	return NRT_SUCCESS;
}
