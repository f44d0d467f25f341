/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// Tensors of the application API: host tensors in process memory, device
// tensors in a NeuronCore's HBM through the driver's MEM_* ioctls.
#pragma once

#include <nrt/nrt.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "handles.hpp"
#include "runtime.hpp"

namespace nrt::tensor {

struct free_deleter {
	void operator()(uint8_t *p) const { std::free(p); }
};

// One driver allocation (MEM_ALLOC), freed with its owner. A device
// tensor's allocation is also mapped (mem_map) when the driver allows it
// (NEURON_CAP_MEM_MMAP): reads and writes are then copies through the
// mapping, as through the device's memory BAR, and the MEM_READ/WRITE/SET
// ioctls are the fallback (older driver, mmap refused, a forked child).
struct device_mem {
	std::shared_ptr<rt::device_ctx> dev;	// keeps the fd open
	uint32_t nc = 0;
	uint64_t handle = 0;
	uint64_t bytes = 0;
	uint64_t device_addr = 0;
	uint8_t *map = nullptr;			// the mapping, or null: ioctls
	size_t map_len = 0;

	device_mem() = default;
	device_mem(const device_mem &) = delete;
	device_mem &operator=(const device_mem &) = delete;
	~device_mem();
};

// MEM_ALLOC of @bytes on @nc of @dev (NRT_SITE_MEM mapping on failure).
NRT_STATUS mem_alloc(std::shared_ptr<rt::device_ctx> dev, uint32_t nc, uint32_t location,
		     uint32_t category, uint64_t bytes, std::unique_ptr<device_mem> *out) noexcept;
// Map @m (a device allocation) when the driver can; failure leaves the ioctl path.
void mem_map(device_mem &m) noexcept;
// nrt_memcpy_to_device: @size bytes from @src to @dest, which must lie
// within one device allocation's mapping in this process (NRT_INVALID
// otherwise, or when @src cannot be read).
NRT_STATUS memcpy_to_device(void *dest, const void *src, size_t size) noexcept;
// nrt_get_dmabuf_fd: a dma-buf of [@va, @va + @size), which must lie in one
// device allocation's mapping in this process, starting on a page.
NRT_STATUS dmabuf_fd(uint64_t va, uint64_t size, int *fd) noexcept;
// MEM_READ / MEM_WRITE / MEM_SET (cmd) on @m, through its mapping when it has one.
NRT_STATUS mem_rw(const device_mem &m, unsigned long cmd, uint64_t offset, uint64_t bytes,
		  const void *ptr, uint32_t value) noexcept;

struct tensor {
	nrt_tensor_placement_t placement = NRT_TENSOR_PLACEMENT_HOST;
	std::string name;
	size_t size = 0;
	// HOST placement: the bytes, null for an empty tensor. They are the
	// tensor's own (host_mem), a slice of another tensor's (host_mem is
	// the source's, shared), or a buffer the caller attached (host_mem
	// null: never freed here).
	uint8_t *host = nullptr;
	std::shared_ptr<uint8_t> host_mem;
	uint32_t device_index = 0;			// DEVICE placement
	uint64_t dev_offset = 0;			// DEVICE: where in dmem() (slices)

	// DEVICE placement: the memory, or null once nrt_close() released it
	// (an operation in flight keeps its copy until it returns).
	std::shared_ptr<device_mem> dmem() const
	{
		std::lock_guard<std::mutex> g(mem_lock_);
		return mem_;
	}
	void set_dmem(std::shared_ptr<device_mem> m)
	{
		{
			std::lock_guard<std::mutex> g(mem_lock_);
			mem_.swap(m);
		}
		// @m, now the old memory (if any), is freed outside the lock
	}

private:
	mutable std::mutex mem_lock_;
	std::shared_ptr<device_mem> mem_;
};

// A tensor without storage (nrt_tensor_allocate_empty(), before a buffer
// is attached): size 0, so only 0-byte operations reach it
inline bool empty(const tensor &t)
{
	return t.placement == NRT_TENSOR_PLACEMENT_HOST && !t.host;
}

// A device tensor's address in this process: its allocation's mapping at
// the tensor's offset; null without a mapping (the ioctl path: an older
// driver, a refused mapping, a forked child) or once its memory is gone.
uint8_t *device_va(const tensor &t) noexcept;

using tensor_table = handles::table<tensor, handles::kind::tensor>;
tensor_table &tensors();

// [offset, offset + size) inside a tensor of @total bytes (overflow-safe).
constexpr bool in_range(uint64_t total, uint64_t offset, uint64_t size)
{
	return offset <= total && size <= total - offset;
}

// A host tensor (no runtime needed; nrt_tensor_allocate checks that).
NRT_STATUS allocate_host(size_t size, const char *name, std::shared_ptr<tensor> *out) noexcept;
// A device tensor on NeuronCore @nc of device @dev.
NRT_STATUS allocate_device(std::shared_ptr<rt::device_ctx> dev, uint32_t device_index, uint32_t nc,
			   size_t size, const char *name, std::shared_ptr<tensor> *out) noexcept;

// A tensor without storage (nrt_tensor_allocate_empty).
NRT_STATUS allocate_empty(const char *name, std::shared_ptr<tensor> *out) noexcept;
// @buffer (not owned) becomes @t's storage: a host tensor of @size bytes.
NRT_STATUS attach_buffer(tensor &t, void *buffer, size_t size) noexcept;
// Bytes [offset, offset + size) of @src, sharing its memory.
NRT_STATUS allocate_slice(const tensor &src, uint64_t offset, uint64_t size, const char *name,
			  std::shared_ptr<tensor> *out) noexcept;

// nrt_close(): every device tensor's memory is freed (the handles stay
// valid; their device operations answer NRT_CLOSED), so the device file
// closes although the application still holds tensors.
void release_device_memory() noexcept;

NRT_STATUS read(const tensor &t, void *buf, uint64_t offset, uint64_t size) noexcept;
NRT_STATUS write(tensor &t, const void *buf, uint64_t offset, uint64_t size) noexcept;
NRT_STATUS copy(const tensor &src, uint64_t src_offset, tensor &dst, uint64_t dst_offset,
		uint64_t size) noexcept;
NRT_STATUS memset(tensor &t, uint64_t offset, int value, uint64_t size) noexcept;

// Named tensors; the set holds handles, not tensors (a freed tensor is
// found missing at execute time).
struct tensor_set {
	std::mutex lock;	// protects by_name
	std::unordered_map<std::string, uintptr_t> by_name;
};
using set_table = handles::table<tensor_set, handles::kind::tensor_set>;
set_table &sets();

} // namespace nrt::tensor
