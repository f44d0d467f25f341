// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// Tensors (tensor.hpp). Offsets and sizes are checked here, before any
// ioctl, so a bad range is NRT_INVALID whatever the placement.
#include "tensor.hpp"

#include <nrt/nrt_error_model.h>

#include <ndl/ndl.h>
#include <neuron/neuron_vendor_ioctl.h>

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <vector>

namespace nrt::tensor {

namespace {

// A forked child has none of its parent's mappings (the driver does not
// copy them, and the allocations are the parent's): it takes the ioctl
// path, which refuses it as before (and never copies to whatever the child
// mapped at the old address).
std::atomic<bool> forked{false};

void on_fork_child()
{
	forked.store(true, std::memory_order_relaxed);
}

bool mapping_usable(const device_mem &m)
{
	return m.map && !forked.load(std::memory_order_relaxed);
}

/*
 * The mappings of device memory this process has made, by start address:
 * nrt_memcpy_to_device() copies only into one of them. A copy holds the
 * lock shared; a mapping leaves it (exclusive) before it is unmapped, so
 * no copy runs into memory being unmapped.
 */
std::shared_mutex maps_lock;
std::map<uintptr_t, const device_mem *> maps;	// start -> the allocation

void maps_add(const device_mem &m)
{
	try {
		std::unique_lock<std::shared_mutex> g(maps_lock);
		maps.emplace(reinterpret_cast<uintptr_t>(m.map), &m);
	} catch (...) {
		// not listed: nrt_memcpy_to_device refuses it, nothing else changes
	}
}

void maps_remove(uint8_t *p)
{
	std::unique_lock<std::shared_mutex> g(maps_lock);
	maps.erase(reinterpret_cast<uintptr_t>(p));
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ	22
#define MADV_POPULATE_WRITE	23
#endif

/*
 * Whether the caller's @buf can be read (@write: written) for @bytes: the
 * kernel faults its pages in with the access the copy needs (Linux 5.14's
 * MADV_POPULATE_*), so a bad buffer is a failed check, never a signal in
 * the copy, and the caller's ioctl path then reports it exactly as before.
 * An older kernel (EINVAL) also leaves the ioctl path.
 */
int populate(const void *buf, uint64_t bytes, bool write)
{
	static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
	uintptr_t a = reinterpret_cast<uintptr_t>(buf);
	uintptr_t start = a & ~(page - 1);

	if (a + bytes < a)
		return EFAULT;
	if (::madvise(reinterpret_cast<void *>(start), a + bytes - start,
		      write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ) == 0)
		return 0;
	return errno;
}

bool buffer_ok(const void *buf, uint64_t bytes, bool write)
{
	return populate(buf, bytes, write) == 0;
}

/*
 * One copy between the mapping at @at and the caller's @buf, as through a
 * memory BAR. A mapping the driver revoked faults (SIGBUS); the library
 * unmaps before it frees, so that happens only when the device is removed
 * under a copy (docs/ARCHITECTURE.md, "Device memory").
 */
bool mapped_copy(uint8_t *at, const void *buf, uint64_t bytes, bool read)
{
	if (!buffer_ok(buf, bytes, read))
		return false;
	if (read)
		std::memcpy(const_cast<void *>(buf), at, bytes);
	else
		std::memcpy(at, buf, bytes);
	return true;
}

} // namespace

tensor_table &tensors()
{
	static tensor_table t;
	return t;
}

set_table &sets()
{
	static set_table t;
	return t;
}

device_mem::~device_mem()
{
	if (map && !forked.load(std::memory_order_relaxed)) {
		maps_remove(map);
		::munmap(map, map_len);
	}
	if (!handle || !dev)
		return;
	neuron_mem_free arg{};
	arg.size = sizeof(arg);
	arg.handle = handle;
	// the driver frees it with the file anyway; nothing to report here
	::ioctl(ndl_device_fd(dev->dev), NEURON_IOCTL_MEM_FREE, &arg);
}

NRT_STATUS mem_alloc(std::shared_ptr<rt::device_ctx> dev, uint32_t nc, uint32_t location,
		     uint32_t category, uint64_t bytes, std::unique_ptr<device_mem> *out) noexcept
{
	std::unique_ptr<device_mem> m(new (std::nothrow) device_mem);
	if (!m)
		return NRT_FAIL_HOST_MEM_ALLOC;
	neuron_mem_alloc arg{};
	arg.size = sizeof(arg);
	arg.nc = nc;
	arg.location = location;
	arg.category = category;
	arg.bytes = bytes;
	if (::ioctl(ndl_device_fd(dev->dev), NEURON_IOCTL_MEM_ALLOC, &arg) != 0)
		return nrt_status_from_errno(NRT_SITE_MEM, errno);
	m->dev = std::move(dev);
	m->nc = nc;
	m->handle = arg.handle;
	m->bytes = bytes;
	m->device_addr = arg.device_addr;
	*out = std::move(m);
	return NRT_SUCCESS;
}

void mem_map(device_mem &m) noexcept
{
	static std::once_flag atfork;
	const ndl_device_info_t *di = ndl_device_get_info(m.dev->dev);

	if (!di || !(di->capabilities & NEURON_CAP_MEM_MMAP) || forked.load())
		return;
	try {
		std::call_once(atfork, [] { ::pthread_atfork(nullptr, nullptr, on_fork_child); });
	} catch (...) {
		return;
	}
	long page = ::sysconf(_SC_PAGESIZE);
	if (page <= 0)
		return;
	size_t len = (m.bytes + static_cast<uint64_t>(page) - 1) & ~(static_cast<uint64_t>(page) - 1);
	void *p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, ndl_device_fd(m.dev->dev),
			 static_cast<off_t>(NEURON_MEM_MMAP_OFFSET(m.device_addr)));
	if (p == MAP_FAILED)
		return;	// the ioctls still work
	m.map = static_cast<uint8_t *>(p);
	m.map_len = len;
	maps_add(m);
}

NRT_STATUS memcpy_to_device(void *dest, const void *src, size_t size) noexcept
{
	if (!size)
		return NRT_SUCCESS;
	if (!dest || !src || forked.load(std::memory_order_relaxed))
		return NRT_INVALID;
	uintptr_t d = reinterpret_cast<uintptr_t>(dest);
	std::shared_lock<std::shared_mutex> g(maps_lock);
	auto it = maps.upper_bound(d);
	if (it == maps.begin())
		return NRT_INVALID;
	--it;
	const device_mem &m = *it->second;
	uint64_t off = d - it->first;
	// within one allocation's bytes: never past it into the page's tail
	if (off >= m.bytes || size > m.bytes - off)
		return NRT_INVALID;
	// the source checked first, so a bad one copies nothing; a kernel
	// without MADV_POPULATE_READ (before 5.14) takes MEM_WRITE, whose
	// EFAULT for a bad source may come after part of it was copied
	int e = populate(src, size, false);
	if (!e) {
		std::memcpy(m.map + off, src, size);
		return NRT_SUCCESS;
	}
	if (e != EINVAL)
		return NRT_INVALID;
	return mem_rw(m, NEURON_IOCTL_MEM_WRITE, off, size, src, 0);
}

NRT_STATUS dmabuf_fd(uint64_t va, uint64_t size, int *fd) noexcept
{
	if (!fd || !size || forked.load(std::memory_order_relaxed))
		return NRT_INVALID;
	// held shared: the mapping is not unmapped while the driver looks it up
	std::shared_lock<std::shared_mutex> g(maps_lock);
	auto it = maps.upper_bound(va);
	if (it == maps.begin())
		return NRT_INVALID;	// not device memory: a caller falls back
	--it;
	const device_mem &m = *it->second;
	uint64_t off = va - it->first;
	if (off >= m.bytes || size > m.bytes - off)
		return NRT_INVALID;
	const ndl_device_info_t *di = ndl_device_get_info(m.dev->dev);
	if (!di || !(di->capabilities & NEURON_CAP_MEM_DMABUF))
		return NRT_INVALID;
	int32_t out = -1;
	neuron_ioctl_dmabuf_fd arg{};
	arg.va = va;
	arg.size = size;
	arg.fd = reinterpret_cast<uintptr_t>(&out);
	if (::ioctl(ndl_device_fd(m.dev->dev), NEURON_IOCTL_DMABUF_FD, &arg) != 0) {
		// EINVAL: not on a page boundary; out of descriptors or memory: a resource
		return errno == EINVAL ? NRT_INVALID :
		       (errno == EMFILE || errno == ENFILE || errno == ENOMEM) ? NRT_RESOURCE :
		       NRT_FAILURE;
	}
	*fd = out;
	return NRT_SUCCESS;
}

uint8_t *device_va(const tensor &t) noexcept
{
	std::shared_ptr<device_mem> m = t.dmem();

	if (!m || !mapping_usable(*m) || t.dev_offset > m->bytes)
		return nullptr;
	return m->map + t.dev_offset;
}

NRT_STATUS mem_rw(const device_mem &m, unsigned long cmd, uint64_t offset, uint64_t bytes,
		  const void *ptr, uint32_t value) noexcept
{
	if (!bytes)
		return NRT_SUCCESS;
	// callers checked the range against the tensor, which lies within @m
	if (cmd != NEURON_IOCTL_MEM_SET && mapping_usable(m) && offset <= m.bytes &&
	    bytes <= m.bytes - offset && mapped_copy(m.map + offset, ptr, bytes,
						     cmd == NEURON_IOCTL_MEM_READ))
		return NRT_SUCCESS;
	neuron_mem_rw arg{};
	arg.size = sizeof(arg);
	arg.handle = m.handle;
	arg.offset = offset;
	arg.bytes = bytes;
	arg.user_ptr = reinterpret_cast<uintptr_t>(ptr);
	arg.value = value;
	if (::ioctl(ndl_device_fd(m.dev->dev), cmd, &arg) != 0)
		return nrt_status_from_errno(NRT_SITE_MEM, errno);
	return NRT_SUCCESS;
}

namespace {

NRT_STATUS make(size_t size, const char *name, nrt_tensor_placement_t pl,
		std::shared_ptr<tensor> *out) noexcept
{
	try {
		auto t = std::make_shared<tensor>();
		t->placement = pl;
		t->size = size;
		if (name)
			t->name = name;
		*out = std::move(t);
	} catch (...) {
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	return NRT_SUCCESS;
}

} // namespace

NRT_STATUS allocate_host(size_t size, const char *name, std::shared_ptr<tensor> *out) noexcept
{
	if (size == 0)
		return NRT_INVALID;
	std::shared_ptr<tensor> t;
	NRT_STATUS st = make(size, name, NRT_TENSOR_PLACEMENT_HOST, &t);
	if (st != NRT_SUCCESS)
		return st;
	// calloc: zeroed like device memory, and untouched pages cost nothing
	uint8_t *p = static_cast<uint8_t *>(std::calloc(1, size));
	if (!p)
		return NRT_FAIL_HOST_MEM_ALLOC;
	try {
		t->host_mem = std::shared_ptr<uint8_t>(p, free_deleter{});
	} catch (...) {
		return NRT_FAIL_HOST_MEM_ALLOC;	// the shared_ptr freed p
	}
	t->host = p;
	*out = std::move(t);
	return NRT_SUCCESS;
}

NRT_STATUS allocate_empty(const char *name, std::shared_ptr<tensor> *out) noexcept
{
	return make(0, name, NRT_TENSOR_PLACEMENT_HOST, out);
}

// Attaching while another call uses @t is a caller bug (as in the SDK):
// the fields below are not locked.
NRT_STATUS attach_buffer(tensor &t, void *buffer, size_t size) noexcept
{
	if (!buffer || size == 0)
		return NRT_INVALID;
	t.set_dmem(nullptr);	// a device tensor's HBM is freed (unless a slice holds it)
	t.host_mem.reset();
	t.host = static_cast<uint8_t *>(buffer);
	t.placement = NRT_TENSOR_PLACEMENT_HOST;
	t.dev_offset = 0;
	t.size = size;
	return NRT_SUCCESS;
}

NRT_STATUS allocate_slice(const tensor &src, uint64_t offset, uint64_t size, const char *name,
			  std::shared_ptr<tensor> *out) noexcept
{
	if (size == 0 || !in_range(src.size, offset, size))
		return NRT_INVALID;
	std::shared_ptr<tensor> t;
	NRT_STATUS st = make(size, name, src.placement, &t);
	if (st != NRT_SUCCESS)
		return st;
	if (src.host) {
		t->host = src.host + offset;
		t->host_mem = src.host_mem;	// null for an attached buffer: the caller's
	} else {
		auto m = src.dmem();
		if (!m)
			return NRT_CLOSED;	// the source's HBM went with nrt_close()
		t->set_dmem(std::move(m));
		t->device_index = src.device_index;
		t->dev_offset = src.dev_offset + offset;
	}
	*out = std::move(t);
	return NRT_SUCCESS;
}

NRT_STATUS allocate_device(std::shared_ptr<rt::device_ctx> dev, uint32_t device_index, uint32_t nc,
			   size_t size, const char *name, std::shared_ptr<tensor> *out) noexcept
{
	if (size == 0)
		return NRT_INVALID;
	std::shared_ptr<tensor> t;
	NRT_STATUS st = make(size, name, NRT_TENSOR_PLACEMENT_DEVICE, &t);
	if (st != NRT_SUCCESS)
		return st;
	std::unique_ptr<device_mem> m;
	st = mem_alloc(std::move(dev), nc, NEURON_MEM_LOC_DEVICE, NEURON_MEM_CAT_TENSORS, size, &m);
	if (st != NRT_SUCCESS)
		return st;
	mem_map(*m);	// tensor reads and writes through the mapping when it works
	try {
		t->set_dmem(std::shared_ptr<device_mem>(std::move(m)));
	} catch (...) {
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	t->device_index = device_index;
	*out = std::move(t);
	return NRT_SUCCESS;
}

NRT_STATUS read(const tensor &t, void *buf, uint64_t offset, uint64_t size) noexcept
{
	if (!buf || !in_range(t.size, offset, size))
		return NRT_INVALID;
	if (t.host) {
		std::memmove(buf, t.host + offset, size);
		return NRT_SUCCESS;
	}
	if (empty(t))
		return NRT_SUCCESS;	// no byte asked (in_range() passed size 0 only)
	auto m = t.dmem();
	if (!m)
		return NRT_CLOSED;
	return mem_rw(*m, NEURON_IOCTL_MEM_READ, t.dev_offset + offset, size, buf, 0);
}

NRT_STATUS write(tensor &t, const void *buf, uint64_t offset, uint64_t size) noexcept
{
	if (!buf || !in_range(t.size, offset, size))
		return NRT_INVALID;
	if (t.host) {
		std::memmove(t.host + offset, buf, size);
		return NRT_SUCCESS;
	}
	if (empty(t))
		return NRT_SUCCESS;	// no byte asked
	auto m = t.dmem();
	if (!m)
		return NRT_CLOSED;
	return mem_rw(*m, NEURON_IOCTL_MEM_WRITE, t.dev_offset + offset, size, buf, 0);
}

NRT_STATUS copy(const tensor &src, uint64_t so, tensor &dst, uint64_t d_o, uint64_t size) noexcept
{
	if (!in_range(src.size, so, size) || !in_range(dst.size, d_o, size))
		return NRT_INVALID;
	if (empty(src) || empty(dst))
		return NRT_SUCCESS;	// no byte asked
	if (src.host)
		return write(dst, src.host + so, d_o, size);	// memmove-safe below
	if (dst.host)
		return read(src, dst.host + d_o, so, size);
	// device to device: both on one NeuronCore, as the SDK requires
	auto sm = src.dmem(), dm = dst.dmem();
	if (!sm || !dm)
		return NRT_CLOSED;
	if (sm->dev != dm->dev || sm->nc != dm->nc)
		return NRT_INVALID;
	constexpr uint64_t kChunk = 1 << 20;
	std::unique_ptr<uint8_t[]> bounce(new (std::nothrow) uint8_t[std::min(size, kChunk) + 1]);
	if (!bounce)
		return NRT_FAIL_HOST_MEM_ALLOC;
	// an overlapping copy within one allocation moves backwards when dst is after src
	so += src.dev_offset;
	d_o += dst.dev_offset;
	bool backwards = sm == dm && d_o > so;
	for (uint64_t done = 0; done < size;) {
		uint64_t n = std::min(kChunk, size - done);
		uint64_t at = backwards ? size - done - n : done;
		NRT_STATUS st = mem_rw(*sm, NEURON_IOCTL_MEM_READ, so + at, n, bounce.get(), 0);
		if (st == NRT_SUCCESS)
			st = mem_rw(*dm, NEURON_IOCTL_MEM_WRITE, d_o + at, n, bounce.get(), 0);
		if (st != NRT_SUCCESS)
			return st;
		done += n;
	}
	return NRT_SUCCESS;
}

NRT_STATUS memset(tensor &t, uint64_t offset, int value, uint64_t size) noexcept
{
	if (!in_range(t.size, offset, size))
		return NRT_INVALID;
	if (t.host) {
		std::memset(t.host + offset, value, size);
		return NRT_SUCCESS;
	}
	if (empty(t))
		return NRT_SUCCESS;	// no byte asked
	auto m = t.dmem();
	if (!m)
		return NRT_CLOSED;
	return mem_rw(*m, NEURON_IOCTL_MEM_SET, t.dev_offset + offset, size, nullptr,
		      static_cast<uint8_t>(value));
}

void release_device_memory() noexcept
{
	std::vector<std::shared_ptr<tensor>> all;
	try {
		tensors().for_each([&all](uintptr_t, const std::shared_ptr<tensor> &t) {
			if (t->placement == NRT_TENSOR_PLACEMENT_DEVICE)
				all.push_back(t);
		});
	} catch (...) {
		// no memory for the list: those tensors keep the device open
	}
	// MEM_FREE each, outside the table's lock
	for (auto &t : all)
		t->set_dmem(nullptr);
}

} // namespace nrt::tensor
