// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// Notification-queue consumer: drains a ring the device (or the simulated
// NeuronCore) produces into, phase-bit aware.
#include <nrt/nrt_nq.h>
#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nq.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <new>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "decode.hpp"
#include "export.hpp"
#include "nq.hpp"

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

// Entries are taken in runs: the headers of a run are checked first (each
// with an acquire load, as the producer publishes each header last with a
// release store), then the run's bodies are copied or decoded with plain
// loads. A run never crosses the end of the slot array, so one phase holds
// for all of it. The producer never rewrites a slot at or after the head
// we last published, so nothing we read can change under us.

constexpr uint32_t copy_run_max = 256;	// 4 KiB: checked, then copied while in L1
// Entries decoded per head publication; at most 255, so that the per-lane
// counts fit a byte.
constexpr uint32_t decode_batch = 240;
static_assert(decode_batch <= 255);

inline uint8_t header_acquire(const neuron_nq_entry *e)
{
	return __atomic_load_n(&e->header, __ATOMIC_ACQUIRE);
}

// How many of the @lim entries from @e carry phase @Phase, stopping at the
// first that does not: eight headers at a time folded into one test.
template <bool Phase>
uint32_t run_length(const neuron_nq_entry *e, uint32_t lim)
{
	uint32_t i = 0;
	for (; i + 8 <= lim; i += 8) {
		const neuron_nq_entry *b = e + i;
		uint8_t h0 = header_acquire(b), h1 = header_acquire(b + 1);
		uint8_t h2 = header_acquire(b + 2), h3 = header_acquire(b + 3);
		uint8_t h4 = header_acquire(b + 4), h5 = header_acquire(b + 5);
		uint8_t h6 = header_acquire(b + 6), h7 = header_acquire(b + 7);
		uint8_t all = Phase ? (h0 & h1 & h2 & h3 & h4 & h5 & h6 & h7)
				    : static_cast<uint8_t>(~(h0 | h1 | h2 | h3 | h4 | h5 | h6 | h7));
		if (!(all & NEURON_NQ_HDR_PHASE))
			break;
	}
	constexpr uint8_t want = Phase ? NEURON_NQ_HDR_PHASE : 0;
	while (i < lim && (header_acquire(e + i) & NEURON_NQ_HDR_PHASE) == want)
		i++;
	return i;
}

// The run the producer has written from q->head on: at most @lim entries
// and never past the end of the slot array. Sets *@whole when the run is
// all of that (the next entry may be ready too). Caller holds q->lock.
uint32_t ready_run(const nrt_nq *q, uint32_t lim, bool *whole)
{
	uint32_t slot = q->head & (q->entries - 1);
	uint32_t n = std::min(lim, q->entries - slot);
	const neuron_nq_entry *e = q->ring + slot;
	// neuron_nq_phase() without its division: the lap is even when the
	// head's bit of weight @entries is clear
	uint32_t r = (q->head & q->entries) ? run_length<false>(e, n) : run_length<true>(e, n);
	*whole = r == n;
	return r;
}

using lanes_t = uint8_t __attribute__((vector_size(nrt::decode::lane_count)));

// One-hot lanes: 1 in lane l, 0 elsewhere, 16 bytes each.
alignas(lanes_t) constexpr auto lane_one_bytes = [] {
	std::array<std::array<uint8_t, nrt::decode::lane_count>, nrt::decode::lane_count> t{};
	for (uint32_t l = 0; l < t.size(); l++)
		t[l][l] = 1;
	return t;
}();

// entry_lane as byte offsets into lane_one_bytes (saves a shift per entry).
constexpr auto lane_offset = [] {
	std::array<uint8_t, nrt::decode::entry_lane.size()> t{};
	for (uint32_t k = 0; k < t.size(); k++)
		t[k] = static_cast<uint8_t>(nrt::decode::entry_lane[k] * sizeof(lanes_t));
	return t;
}();
static_assert(nrt::decode::lane_count * sizeof(lanes_t) <= 256);

inline lanes_t lane_one_at(uint32_t offset)
{
	lanes_t v;
	std::memcpy(&v, reinterpret_cast<const uint8_t *>(lane_one_bytes.data()) + offset, sizeof(v));
	return v;
}

inline uint32_t first_word(const neuron_nq_entry *e)
{
	uint32_t w;
	std::memcpy(&w, e, sizeof(w));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap32(w);
#endif
	return w;
}

// Decode @n (<= 255) entries ready_run() vouched for into @errs, as
// nrt_decode_nq_entry() would with their SW-overflow bits cleared: per
// entry one key, one table look-up, one vector add.
void decode_run(const neuron_nq_entry *e, uint32_t n, nrt_infer_errors_t *errs)
{
	using nrt::decode::entry_key;
	auto one = [](const neuron_nq_entry *x) {
		return lane_one_at(lane_offset[entry_key(first_word(x))]);
	};
	lanes_t a{}, b{};	// two sums, so consecutive adds do not wait on each other
	const neuron_nq_entry *end = e + n;
	for (; end - e >= 4; e += 4) {
		a += one(e);
		b += one(e + 1);
		a += one(e + 2);
		b += one(e + 3);
	}
	for (; e < end; e++)
		a += one(e);
	a += b;
	uint8_t count[nrt::decode::lane_count];
	std::memcpy(count, &a, sizeof(count));
	nrt::decode::add_lane_counts(*errs, count, n);
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
	bool more = true;
	while (more && (max == 0 || n < max)) {
		uint32_t lim = max ? std::min(max - n, copy_run_max) : copy_run_max;
		uint32_t r = ready_run(q, lim, &more);
		if (out)
			std::memcpy(out + n, q->ring + (q->head & (q->entries - 1)),
				    size_t{r} * sizeof(*out));
		q->head += r;
		n += r;
	}
	if (n)
		publish_head(q);
	return static_cast<int>(n);
}

int nrt::nq::drain_owned(nrt_nq_t *q, nrt_infer_errors_t *errs, uint64_t *dropped) noexcept
{
	uint32_t n = 0;
	// the common case of a clean job, first: nothing at the head
	const uint8_t want = (q->head & q->entries) ? 0 : NEURON_NQ_HDR_PHASE;
	bool more = (header_acquire(q->ring + (q->head & (q->entries - 1))) & NEURON_NQ_HDR_PHASE) == want;
	while (more) {
		// The control area's drop counter is authoritative: the SW-overflow
		// bit on the first entry after drops reports drops that counter
		// already showed, so the decoder does not look at that bit.
		uint32_t r = ready_run(q, decode_batch, &more);
		if (!r)
			break;	// nothing (more) ready: the common case of a clean job
		decode_run(q->ring + (q->head & (q->entries - 1)), r, errs);
		q->head += r;
		n += r;
		// once per batch, so the producer never sees a full ring we are draining
		if (more)
			publish_head(q);
	}
	if (n)
		publish_head(q);	// unchanged otherwise, as nrt_nq_drain_entries
	uint64_t d = __atomic_load_n(&q->ctrl->dropped, __ATOMIC_ACQUIRE);
	uint64_t fresh = d - q->dropped_seen;
	q->dropped_seen = d;
	if (fresh)
		nrt_infer_errors_add_overflow(errs);
	if (dropped)
		*dropped = fresh;
	return static_cast<int>(n);
}

NRT_EXPORT int nrt_nq_drain(nrt_nq_t *q, nrt_infer_errors_t *errs, uint64_t *dropped)
{
	if (!q || !errs)
		return -EINVAL;
	std::lock_guard<std::mutex> g(q->lock);
	int n = nrt::nq::drain_owned(q, errs, dropped);
	if (n == 0)
		publish_head(q);	// as this call always has, drained or not
	return n;
}

NRT_EXPORT int nrt_nq_capacity(const nrt_nq_t *q)
{
	return q ? static_cast<int>(q->entries) : -EINVAL;
}
