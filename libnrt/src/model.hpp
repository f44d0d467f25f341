/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// Loaded models of the application API: a parsed NEFF placed on
// NeuronCores nrt_init() reserved for this process, and its execution through
// NEURON_IOCTL_SIM_EXEC_MODEL.
#pragma once

#include <nrt/nrt.h>
#include <nrt/nrt_error_model.h>

#include <array>
#include <memory>
#include <vector>

#include "collectives.hpp"
#include "handles.hpp"
#include "neff.hpp"
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

// One execution, accounted in the NDS slab; @rep (may be null) told what
// it drained.
NRT_STATUS execute(model &m, const tensor::tensor_set *in, const tensor::tensor_set *out,
		   exec_report *rep = nullptr) noexcept;

// Visible NeuronCore index (0 = the first this process may use) ->
// (device, NeuronCore), as nrt_load's and nrt_tensor_allocate's vnc.
bool locate(int vnc, std::shared_ptr<rt::device_ctx> *dev, uint32_t *device_index, uint32_t *nc);

} // namespace nrt::model
