// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// Notification-queue consumer: drains a ring the device (or the simulated
// NeuronCore) produces into, phase-bit aware.
#include <nrt/nrt_nq.h>
#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nq.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <new>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "export.hpp"

struct nrt_nq {
	std::mutex lock;	// one drainer at a time
	void *map = nullptr;
	size_t map_size = 0;
	bool mapped = false;	// munmap + NQ_RELEASE on close
	int fd = -1;		// the device fd (not owned)
	uint32_t nc = 0, nq_type = 0, engine = 0;
	neuron_nq_ctrl *ctrl = nullptr;
	neuron_nq_entry *ring = nullptr;
	uint32_t entries = 0;	// power of two
	uint32_t head = 0;	// next index to consume (free-running)
	uint64_t dropped_seen = 0;
};

namespace {

int setup_view(nrt_nq *q, void *map, size_t map_size)
{
	auto *ctrl = static_cast<neuron_nq_ctrl *>(map);
	uint32_t n = __atomic_load_n(&ctrl->entries, __ATOMIC_ACQUIRE);
	if (n == 0 || (n & (n - 1)) || NEURON_NQ_RING_OFFSET + size_t{n} * NEURON_NQ_ENTRY_SIZE > map_size)
		return -EINVAL;
	q->map = map;
	q->map_size = map_size;
	q->ctrl = ctrl;
	q->ring = reinterpret_cast<neuron_nq_entry *>(static_cast<uint8_t *>(map) +
						      NEURON_NQ_RING_OFFSET);
	q->entries = n;
	q->head = __atomic_load_n(&ctrl->head, __ATOMIC_ACQUIRE);
	q->dropped_seen = __atomic_load_n(&ctrl->dropped, __ATOMIC_ACQUIRE);
	return 0;
}

// Copy the entry at q->head if the producer wrote it this lap. Caller holds q->lock.
bool take_one(nrt_nq *q, neuron_nq_entry *out)
{
	const neuron_nq_entry *e = &q->ring[q->head & (q->entries - 1)];
	uint8_t hdr = __atomic_load_n(&e->header, __ATOMIC_ACQUIRE);
	if ((hdr & NEURON_NQ_HDR_PHASE) != neuron_nq_phase(q->head, q->entries))
		return false;
	// the header was published last (release): the body is complete
	out->error_id = __atomic_load_n(&e->error_id, __ATOMIC_RELAXED);
	out->metadata_lo[0] = __atomic_load_n(&e->metadata_lo[0], __ATOMIC_RELAXED);
	out->metadata_lo[1] = __atomic_load_n(&e->metadata_lo[1], __ATOMIC_RELAXED);
	out->header = hdr;
	out->metadata_hi = __atomic_load_n(&e->metadata_hi, __ATOMIC_RELAXED);
	out->timestamp_ps = __atomic_load_n(&e->timestamp_ps, __ATOMIC_RELAXED);
	q->head++;
	return true;
}

void publish_head(nrt_nq *q)
{
	__atomic_store_n(&q->ctrl->head, q->head, __ATOMIC_RELEASE);
}

} // namespace

NRT_EXPORT int nrt_nq_open(ndl_device_t *device, uint32_t nc, uint32_t nq_type, uint32_t engine,
			   uint32_t ring_size, nrt_nq_t **out)
{
	if (!out)
		return -EINVAL;
	*out = nullptr;
	if (!device)
		return -EINVAL;
	int fd = ndl_device_fd(device);
	neuron_nq_init arg{};
	arg.size = sizeof(arg);
	arg.nc = nc;
	arg.nq_type = nq_type;
	arg.engine = engine;
	arg.ring_size = ring_size;
	if (::ioctl(fd, NEURON_IOCTL_NQ_INIT, &arg) != 0)
		return -errno;
	// from here on, a failure gives the ring back: it would otherwise stay
	// owned (and block a re-open with another size) until the process exits
	auto release = [&](int err) {
		neuron_nq_release rel{};
		rel.size = sizeof(rel);
		rel.nc = nc;
		rel.nq_type = nq_type;
		rel.engine = engine;
		::ioctl(fd, NEURON_IOCTL_NQ_RELEASE, &rel);
		return err;
	};
	size_t len = arg.mmap_size;
	void *map = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			   static_cast<off_t>(arg.mmap_offset));
	if (map == MAP_FAILED)
		return release(-errno);
	auto *q = new (std::nothrow) nrt_nq();
	if (!q) {
		::munmap(map, len);
		return release(-ENOMEM);
	}
	int ret = setup_view(q, map, len);
	if (ret) {
		::munmap(map, len);
		delete q;
		return release(ret);
	}
	q->mapped = true;
	q->fd = fd;
	q->nc = nc;
	q->nq_type = nq_type;
	q->engine = engine;
	*out = q;
	return 0;
}

NRT_EXPORT int nrt_nq_attach_memory(void *map, size_t map_size, nrt_nq_t **out)
{
	if (!out)
		return -EINVAL;
	*out = nullptr;
	if (!map || map_size < NEURON_NQ_RING_OFFSET)
		return -EINVAL;
	auto *q = new (std::nothrow) nrt_nq();
	if (!q)
		return -ENOMEM;
	int ret = setup_view(q, map, map_size);
	if (ret) {
		delete q;
		return ret;
	}
	*out = q;
	return 0;
}

NRT_EXPORT int nrt_nq_close(nrt_nq_t *q)
{
	if (!q)
		return -EINVAL;
	int ret = 0;
	if (q->mapped) {
		::munmap(q->map, q->map_size);
		neuron_nq_release rel{};
		rel.size = sizeof(rel);
		rel.nc = q->nc;
		rel.nq_type = q->nq_type;
		rel.engine = q->engine;
		if (::ioctl(q->fd, NEURON_IOCTL_NQ_RELEASE, &rel) != 0)
			ret = -errno;
	}
	delete q;
	return ret;
}

NRT_EXPORT int nrt_nq_drain_entries(nrt_nq_t *q, struct neuron_nq_entry *out, uint32_t max)
{
	if (!q)
		return -EINVAL;
	std::lock_guard<std::mutex> g(q->lock);
	uint32_t n = 0;
	neuron_nq_entry e;
	while ((max == 0 || n < max) && take_one(q, &e)) {
		if (out)
			out[n] = e;
		n++;
	}
	if (n)
		publish_head(q);
	return static_cast<int>(n);
}

NRT_EXPORT int nrt_nq_drain(nrt_nq_t *q, nrt_infer_errors_t *errs, uint64_t *dropped)
{
	if (!q || !errs)
		return -EINVAL;
	std::lock_guard<std::mutex> g(q->lock);
	uint32_t n = 0;
	neuron_nq_entry e;
	while (take_one(q, &e)) {
		// The control area's drop counter is authoritative: the SW-overflow
		// bit on the first entry after drops reports drops that counter
		// already showed, so honouring both would count one overflow twice.
		e.header &= static_cast<uint8_t>(~NEURON_NQ_HDR_SW_OVERFLOW);
		nrt_decode_nq_entry(errs, &e);
		n++;
		// publish as we go so the producer never sees a full ring we are draining
		if ((n & 255) == 0)
			publish_head(q);
	}
	publish_head(q);
	uint64_t d = __atomic_load_n(&q->ctrl->dropped, __ATOMIC_ACQUIRE);
	uint64_t fresh = d - q->dropped_seen;
	q->dropped_seen = d;
	if (fresh)
		nrt_infer_errors_add_overflow(errs);
	if (dropped)
		*dropped = fresh;
	return static_cast<int>(n);
}

NRT_EXPORT int nrt_nq_capacity(const nrt_nq_t *q)
{
	return q ? static_cast<int>(q->entries) : -EINVAL;
}
