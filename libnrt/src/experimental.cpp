// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// C ABI of <nrt/nrt_experimental.h> (model tensor info, model info, instance count;
// profiling is profile.cpp). Every call here works on a live model
// handle, which exists only between nrt_init() and nrt_close().
#include <nrt/nrt_experimental.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "export.hpp"
#include "model.hpp"

using namespace nrt;

NRT_EXPORT NRT_STATUS nrt_get_model_tensor_info(nrt_model_t *model, nrt_tensor_info_array_t **tensor_info)
{
	auto m = model::models().find(model);
	if (!m)
		return NRT_INVALID_HANDLE;
	if (!tensor_info)
		return NRT_INVALID;
	*tensor_info = nullptr;
	const auto &in = m->desc.inputs, &out = m->desc.outputs;
	size_t n = in.size() + out.size();
	// one block: the array, then two shape words per tensor (model.sim
	// describes a tensor by its bytes only: shape [size], dtype unknown;
	// a tensor of 2^32 bytes, one more than a u32 holds: [65536, 65536])
	size_t head = sizeof(nrt_tensor_info_array_t) + n * sizeof(nrt_tensor_info_t);
	auto *a = static_cast<nrt_tensor_info_array_t *>(std::calloc(1, head + 2 * n * sizeof(uint32_t)));
	if (!a)
		return NRT_FAIL_HOST_MEM_ALLOC;
	auto *shapes = reinterpret_cast<uint32_t *>(reinterpret_cast<uint8_t *>(a) + head);
	a->tensor_count = n;
	for (size_t i = 0; i < n; i++) {
		const neff::tensor_desc &td = i < in.size() ? in[i] : out[i - in.size()];
		nrt_tensor_info_t &ti = a->tensor_array[i];
		// names are at most neff::kMaxNameLen (63) bytes, well inside the field
		std::strncpy(ti.name, td.name.c_str(), NRT_TENSOR_NAME_MAX - 1);
		ti.usage = i < in.size() ? NRT_TENSOR_USAGE_INPUT : NRT_TENSOR_USAGE_OUTPUT;
		ti.size = td.bytes;
		ti.dtype = NRT_DTYPE_UNKNOWN;
		uint32_t *shape = &shapes[2 * i];
		ti.shape = shape;
		if (td.bytes <= UINT32_MAX) {
			shape[0] = static_cast<uint32_t>(td.bytes);
			ti.ndim = 1;
		} else {	// neff::kMaxTensorBytes, 2^32
			static_assert(neff::kMaxTensorBytes == uint64_t{ 65536 } * 65536);
			shape[0] = shape[1] = 65536;
			ti.ndim = 2;
		}
	}
	*tensor_info = a;
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrt_free_model_tensor_info(nrt_tensor_info_array_t *tensor_info)
{
	std::free(tensor_info);
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrt_get_model_info(const nrt_model_t *model, nrt_model_info_t *info, size_t info_size_in,
					 size_t *info_size_out)
{
	auto m = model::models().find(model);
	if (!m)
		return NRT_INVALID_HANDLE;
	if (!info || !info_size_out || info_size_in < sizeof(info->vnc))
		return NRT_INVALID;
	nrt_model_info_t mine{};
	mine.vnc = m->vnc_first;
	size_t n = info_size_in < sizeof(mine) ? info_size_in : sizeof(mine);
	std::memcpy(info, &mine, n);
	*info_size_out = n;
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrt_get_model_instance_count(nrt_model_t *model, uint32_t *instance_count)
{
	auto m = model::models().find(model);
	if (!m)
		return NRT_INVALID_HANDLE;
	if (!instance_count)
		return NRT_INVALID;
	// executions of one model take its first NeuronCore's lock, one at a
	// time, whatever copies vnc_count staged (docs/sdk-compat.md)
	*instance_count = 1;
	return NRT_SUCCESS;
}
