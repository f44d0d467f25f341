// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// NDS: the caller's counter slab, mapped from the driver, updated with
// 64-bit atomics (no syscall per update); another process's, mapped
// read-only or copied out by the driver (nds_read_copy).
#include <nrt/nds/neuron_ds.h>
#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nds.h>
#include <neuron/neuron_vendor_ioctl.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <new>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "export.hpp"
#include "fork_maps.hpp"
#include "nds_internal.hpp"
#include "ndl_internal.hpp"

namespace nrt::nds {

namespace {

constexpr uint32_t kFormatVersion = 1;


void write_header(void *base)
{
	auto *h = static_cast<uint8_t *>(base);
	if (h[0] == 'n' && h[1] == 'd' && h[2] == 's' && h[3] == 0)
		return;
	std::memcpy(h, NEURON_NDS_SIGNATURE, 4);
	std::memcpy(h + 4, &kFormatVersion, sizeof(kFormatVersion));
}

uint32_t *latency_word(void *base, int off)
{
	return reinterpret_cast<uint32_t *>(static_cast<uint8_t *>(base) + NDS_LATENCY_OFF + off);
}

} // namespace

// The latency block's header, once: the bucket count, then the magic
// (release) that tells a reader the block is there. Counts start at zero
// in a fresh slab, which the driver hands out zeroed.
void latency_setup(void *base)
{
	uint32_t *magic = latency_word(base, 0);
	if (__atomic_load_n(magic, __ATOMIC_ACQUIRE) == NDS_LATENCY_MAGIC)
		return;
	__atomic_store_n(latency_word(base, 4), uint32_t{ NDS_LATENCY_BUCKETS }, __ATOMIC_RELAXED);
	__atomic_store_n(magic, NDS_LATENCY_MAGIC, __ATOMIC_RELEASE);
}

} // namespace nrt::nds

using namespace nrt;
using nrt::nds::cell;

NRT_EXPORT int nds_open(ndl_device_t *device, pid_t pid, nds_instance_t **inst)
{
	if (!inst)
		return -EINVAL;
	*inst = nullptr;
	if (!device || pid < 0)
		return -EINVAL;

	int fd = ndl_device_fd(device);
	neuron_nds_acquire arg{};
	arg.size = sizeof(arg);
	arg.pid = pid;
	if (nrt::ndl::vendor_abi(device)) {
		// the vendor's ACQUIRE_NEURON_DS: the same slab, no slot number;
		// another process's is mapped read-only
		neuron_ioctl_neuron_ds_info v{};
		v.pid = pid;
		if (::ioctl(fd, NEURON_IOCTL_ACQUIRE_NEURON_DS, &v) != 0)
			return -errno;
		arg.mmap_offset = v.mmap_offset;
		arg.mmap_size = v.size;
		arg.access = pid == 0 ? NEURON_NDS_ACCESS_RW : NEURON_NDS_ACCESS_RO;
		arg.slot = static_cast<uint32_t>(-1);
	} else if (::ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &arg) != 0) {
		return -errno;
	}

	bool rw = arg.access == NEURON_NDS_ACCESS_RW && pid == 0;
	void *map = ::mmap(nullptr, arg.mmap_size, PROT_READ | (rw ? PROT_WRITE : 0), MAP_SHARED,
			   fd, static_cast<off_t>(arg.mmap_offset));
	if (map == MAP_FAILED)
		return -errno;

	auto *n = new (std::nothrow) nds_instance();
	if (!n || !nrt::fork_maps::add(map, arg.mmap_size)) {
		delete n;
		::munmap(map, arg.mmap_size);
		return -ENOMEM;
	}
	n->base = map;
	n->size = arg.mmap_size;
	n->mapped = true;
	n->pid = ::getpid();
	n->writable = rw;
	n->nc_count = ndl_device_get_info(device)->nc_count;
	n->set_limits();
	n->slot = static_cast<int>(arg.slot);
	if (rw) {
		nds::write_header(map);
		nds::latency_setup(map);
	}
	*inst = n;
	return 0;
}

NRT_EXPORT int nds_open_memory(void *mem, uint32_t nc_count, bool writable, nds_instance_t **inst)
{
	if (!inst)
		return -EINVAL;
	*inst = nullptr;
	if (!mem || (reinterpret_cast<uintptr_t>(mem) & 7) || nc_count == 0 ||
	    nc_count > NEURON_NDS_MAX_NC)
		return -EINVAL;
	auto *n = new (std::nothrow) nds_instance();
	if (!n)
		return -ENOMEM;
	n->base = mem;
	n->size = NEURON_NDS_SIZE;
	n->writable = writable;
	n->nc_count = nc_count;
	n->set_limits();
	n->slot = -1;
	*inst = n;
	return 0;
}

// The ranges a reader uses (nds_read_copy): header, ND and NC counters
// through the process tag and the latency block, then the extended NC
// counters of NeuronCores 0..3 and the sections of NeuronCores 4..15, as
// far as the device has NeuronCores.
NRT_EXPORT int nds_read_copy(ndl_device_t *device, pid_t pid, void *mem)
{
	if (!device || pid < 0 || !mem || (reinterpret_cast<uintptr_t>(mem) & 7))
		return -EINVAL;
	const ndl_device_info_t *info = ndl_device_get_info(device);
	if (nrt::ndl::vendor_abi(device) || !(info->capabilities & NEURON_CAP_NDS_READ))
		return -EOPNOTSUPP;
	const uint32_t ncs = std::min<uint32_t>(info->nc_count, NEURON_NDS_MAX_NC);
	const uint32_t base_ncs = std::min<uint32_t>(ncs, NEURON_NDS_NC_BASE_COUNT);
	struct range {
		uint32_t off, bytes;
	} ranges[3] = {
		{ 0, NDS_LATENCY_END },
		{ NEURON_NDS_EXT_OFF, base_ncs * NEURON_NDS_EXT_COUNT * 8 },
		{ NEURON_NDS_XNC_OFF,
		  ncs > NEURON_NDS_NC_BASE_COUNT ?
			  (ncs - NEURON_NDS_NC_BASE_COUNT) * NEURON_NDS_XNC_SLOTS * 8 : 0 },
	};
	static_assert(NDS_LATENCY_END % 8 == 0 && NDS_LATENCY_END <= NEURON_NDS_READ_MAX);
	static_assert(NEURON_NDS_NC_BASE_COUNT * NEURON_NDS_EXT_COUNT * 8 <= NEURON_NDS_READ_MAX);
	static_assert((NEURON_NDS_MAX_NC - NEURON_NDS_NC_BASE_COUNT) * NEURON_NDS_XNC_SLOTS * 8 <=
		      NEURON_NDS_READ_MAX);
	static_assert(NEURON_NDS_XNC_OFF +
			      (NEURON_NDS_MAX_NC - NEURON_NDS_NC_BASE_COUNT) * NEURON_NDS_XNC_SLOTS * 8 <=
		      NEURON_NDS_SIZE);
	int fd = ndl_device_fd(device);
	for (const range &r : ranges) {
		if (!r.bytes)
			continue;
		neuron_nds_read arg{};
		arg.size = sizeof(arg);
		arg.pid = pid;
		arg.offset = r.off;
		arg.bytes = r.bytes;
		arg.user_ptr = reinterpret_cast<uintptr_t>(static_cast<uint8_t *>(mem) + r.off);
		if (::ioctl(fd, NEURON_IOCTL_NDS_READ, &arg) != 0)
			return errno == ENOTTY ? -EOPNOTSUPP : -errno;
	}
	return 0;
}

NRT_EXPORT int nds_close(nds_instance_t *inst)
{
	if (!inst)
		return -EINVAL;
	int ret = 0;
	nds::objects_detach(inst);
	if (inst->mapped && nrt::fork_maps::remove(inst->base) && ::munmap(inst->base, inst->size) != 0)
		ret = -errno;
	delete inst;
	return ret;
}

int nds::nc_add_refused(const nds_instance *inst, int nc, uint32_t id)
{
	if (!inst || nc_offset(inst, nc, id) < 0)
		return -EINVAL;
	return -EPERM;
}

NRT_EXPORT int nds_increment_nc_counter(nds_instance_t *inst, int pnc_index, uint32_t counter_index,
					uint64_t increment)
{
	return nds::nc_add(inst, pnc_index, counter_index, increment);
}

NRT_EXPORT int nds_decrement_nc_counter(nds_instance_t *inst, int pnc_index, uint32_t counter_index,
					uint64_t decrement)
{
	return nds::nc_add(inst, pnc_index, counter_index, uint64_t{0} - decrement);
}

NRT_EXPORT int nds_get_nc_counter(nds_instance_t *inst, int pnc_index, uint32_t counter_index,
				  uint64_t *value)
{
	if (!inst || !value)
		return -EINVAL;
	int64_t off = nds::nc_offset(inst, pnc_index, counter_index);
	if (off < 0)
		return -EINVAL;
	*value = cell(inst->base, off).load(std::memory_order_relaxed);
	return 0;
}

NRT_EXPORT int nds_set_nc_counter(nds_instance_t *inst, int pnc_index, uint32_t counter_index,
				  uint64_t *value)
{
	if (!inst || !value)
		return -EINVAL;
	int64_t off = nds::nc_offset(inst, pnc_index, counter_index);
	if (off < 0)
		return -EINVAL;
	if (!inst->writable)
		return -EPERM;
	cell(inst->base, off).store(*value, std::memory_order_relaxed);
	return 0;
}

namespace {

int nd_cell(nds_instance_t *inst, uint32_t id, bool write, int64_t *off)
{
	if (!inst)
		return -EINVAL;
	*off = neuron_nds_nd_offset(id);
	if (*off < 0)
		return -EINVAL;
	if (write && !inst->writable)
		return -EPERM;
	return 0;
}

} // namespace

namespace {

// Apply @op to ND counter @id's atomic cell after the write checks.
template <class Op>
int nd_update(nds_instance_t *inst, uint32_t id, Op op)
{
	int64_t off;
	int ret = nd_cell(inst, id, true, &off);
	if (!ret)
		op(cell(inst->base, off));
	return ret;
}

} // namespace

NRT_EXPORT int nds_increment_nd_counter(nds_instance_t *inst, uint32_t counter_index, uint64_t increment)
{
	return nd_update(inst, counter_index,
			 [&](auto c) { c.fetch_add(increment, std::memory_order_relaxed); });
}

NRT_EXPORT int nds_decrement_nd_counter(nds_instance_t *inst, uint32_t counter_index, uint64_t decrement)
{
	return nd_update(inst, counter_index,
			 [&](auto c) { c.fetch_sub(decrement, std::memory_order_relaxed); });
}

NRT_EXPORT int nds_or_nd_counter(nds_instance_t *inst, uint32_t counter_index, uint64_t bit_index)
{
	if (bit_index >= 64)
		return -EINVAL;
	return nd_update(inst, counter_index, [&](auto c) {
		c.fetch_or(uint64_t{1} << bit_index, std::memory_order_relaxed);
	});
}

NRT_EXPORT int nds_get_nd_counter(nds_instance_t *inst, uint32_t counter_index, uint64_t *value)
{
	if (!value)
		return -EINVAL;
	int64_t off;
	int ret = nd_cell(inst, counter_index, false, &off);
	if (!ret)
		*value = cell(inst->base, off).load(std::memory_order_relaxed);
	return ret;
}

NRT_EXPORT int nds_set_nd_counter(nds_instance_t *inst, uint32_t counter_index, uint64_t *value)
{
	if (!value)
		return -EINVAL;
	int64_t off;
	int ret = nd_cell(inst, counter_index, true, &off);
	if (!ret)
		cell(inst->base, off).store(*value, std::memory_order_relaxed);
	return ret;
}

NRT_EXPORT bool nds_is_writable(const nds_instance_t *inst)
{
	return inst && inst->writable;
}

NRT_EXPORT const void *nds_raw_slab(const nds_instance_t *inst)
{
	return inst ? inst->base : nullptr;
}

NRT_EXPORT int nds_slot(const nds_instance_t *inst)
{
	return inst ? inst->slot : -EINVAL;
}

NRT_EXPORT int nds_set_process_tag(nds_instance_t *inst, const char *tag)
{
	if (!inst || !tag)
		return -EINVAL;
	if (!inst->writable)
		return -EPERM;
	auto *base = static_cast<unsigned char *>(inst->base) + NDS_PROCESS_TAG_OFF;
	auto *magic = reinterpret_cast<uint32_t *>(base);
	uint32_t len = static_cast<uint32_t>(::strnlen(tag, NDS_PROCESS_TAG_MAX));
	__atomic_store_n(magic, 0u, __ATOMIC_RELEASE);
	std::memcpy(base + 8, tag, len);
	std::memcpy(base + 4, &len, sizeof(len));
	__atomic_store_n(magic, NDS_PROCESS_TAG_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

NRT_EXPORT int nds_get_process_tag(const nds_instance_t *inst, char *buf, size_t len)
{
	if (!inst || !buf || len == 0)
		return -EINVAL;
	buf[0] = '\0';
	const auto *base = static_cast<const unsigned char *>(inst->base) + NDS_PROCESS_TAG_OFF;
	if (__atomic_load_n(reinterpret_cast<const uint32_t *>(base), __ATOMIC_ACQUIRE) !=
	    NDS_PROCESS_TAG_MAGIC)
		return 0;
	uint32_t n;
	std::memcpy(&n, base + 4, sizeof(n));
	n = std::min<uint32_t>(n, NDS_PROCESS_TAG_MAX);
	n = std::min<uint32_t>(n, static_cast<uint32_t>(len - 1));
	std::memcpy(buf, base + 8, n);
	buf[n] = '\0';
	return static_cast<int>(n);
}

NRT_EXPORT int nds_record_latency(nds_instance_t *inst, unsigned kind, uint64_t ns)
{
	if (!inst || kind >= NDS_LATENCY_KINDS)
		return -EINVAL;
	if (!inst->writable)
		return -EPERM;
	nds::record_latency_checked(inst->base, kind, ns);
	return 0;
}

NRT_EXPORT int nds_get_latency(const nds_instance_t *inst, unsigned kind,
			       uint64_t counts[NDS_LATENCY_BUCKETS])
{
	if (!inst || !counts || kind >= NDS_LATENCY_KINDS)
		return -EINVAL;
	if (__atomic_load_n(nds::latency_word(inst->base, 0), __ATOMIC_ACQUIRE) != NDS_LATENCY_MAGIC ||
	    __atomic_load_n(nds::latency_word(inst->base, 4), __ATOMIC_RELAXED) != NDS_LATENCY_BUCKETS)
		return -ENOENT;
	for (unsigned b = 0; b < NDS_LATENCY_BUCKETS; b++)
		counts[b] = cell(inst->base, NDS_LATENCY_HIST_OFF(kind) + 8 * int64_t{ b })
				    .load(std::memory_order_relaxed);
	return 0;
}
