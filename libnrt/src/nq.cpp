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
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string_view>
#include <sys/ioctl.h>
#include <sys/mman.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define NRT_NQ_X86 1
#endif

#include "decode.hpp"
#include "export.hpp"
#include "fork_maps.hpp"
#include "nq.hpp"

namespace {

// What the vector decoders leave for a run: which lanes its entries hit (bit
// l + 1 for lane l, bit 0 for a malformed entry) and how many were
// malformed (nrt::decode::add_lane_bits).
struct lane_acc {
	uint32_t bits = 0;
	uint32_t bad = 0;
};

nrt::nq::isa pick_isa();

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
	// the vector paths read each entry in one aligned 16-byte load
	q->isa = reinterpret_cast<uintptr_t>(q->ring) % NEURON_NQ_ENTRY_SIZE == 0 ? pick_isa()
										   : nrt::nq::isa::scalar;
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

// Decode @n (<= 255) entries run_length() vouched for into @errs, as
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

// ---- vector paths (x86-64: AVX2, AVX-512) --------------------------------
//
// An entry's outcome comes from its first 32-bit word alone: the error_id
// in bits 7:0 and the header in bits 31:24, phase bit included. The vector
// paths read that word of 8 (AVX2) or 16 (AVX-512) consecutive entries,
// check all their phases at once and decode them together; a group whose
// phases are not all the lap's is left to the scalar code above, which
// finds where the run ends.
//
// Ordering: the producer writes an entry's body, error_id included, and
// then publishes its header with a release store. The copy-out path
// reads each entry in one aligned 16-byte load (VMOVDQA, load_entry()),
// which x86 CPUs with AVX perform as one single access: the header, the
// error_id and the body the load returns are of one moment, so an entry
// whose header carries this lap's phase comes with the body written
// before it (x86 keeps stores in order). The decode needs only an entry's
// first 32-bit word, which any aligned load reads whole: its phase and
// its error_id are of one moment too. Queues whose entries are not
// 16-byte aligned (a mapping nrt_nq_attach_memory() was given at an odd
// address) take the scalar path, which reads headers with acquire loads
// first, as does a drain that copies nothing out.
//
// Decoding: only the two error types carry entries that are not
// malformed, and only with an error_id below 16 (checked below against
// the decode table), so two 16-byte tables indexed by the error_id give
// lane + 1, or 0 for malformed. A saturating byte add of 0x70 to the
// error_id leaves ids 0..15 as 0x70..0x7f (PSHUFB takes the low nibble)
// and sends every larger id to 0x80 or above, which PSHUFB turns into 0;
// the word's three other bytes saturate to 0xff, so they give 0 too.

constexpr std::array<uint8_t, 16> lane1_table(uint8_t type)
{
	std::array<uint8_t, 16> t{};
	for (uint32_t id = 0; id < t.size(); id++) {
		uint8_t lane = nrt::decode::entry_lane[nrt::decode::entry_key(type, static_cast<uint8_t>(id))];
		t[id] = lane == nrt::decode::lane_malformed ? 0 : static_cast<uint8_t>(lane + 1);
	}
	return t;
}

// Each table four times over: PSHUFB looks up within each 16 bytes.
constexpr std::array<uint8_t, 64> lane1_x4(uint8_t type)
{
	std::array<uint8_t, 64> t{};
	const auto one = lane1_table(type);
	for (uint32_t i = 0; i < t.size(); i++)
		t[i] = one[i % one.size()];
	return t;
}

alignas(64) constexpr auto lane1_tpb = lane1_x4(NEURON_NQ_NOTIFIC_TPB_ERROR);
alignas(64) constexpr auto lane1_err = lane1_x4(NEURON_NQ_NOTIFIC_ERROR);

// What the two tables leave out is malformed: any other type, any id >= 16.
constexpr bool tables_cover_every_key()
{
	for (uint32_t k = 0; k < nrt::decode::entry_lane.size(); k++) {
		uint32_t type = k >> 8, id = k & 0xff;
		uint8_t lane = nrt::decode::entry_lane[k];
		bool listed = (type == NEURON_NQ_NOTIFIC_TPB_ERROR || type == NEURON_NQ_NOTIFIC_ERROR) && id < 16;
		if (!listed && lane != nrt::decode::lane_malformed)
			return false;
	}
	return true;
}
static_assert(tables_cover_every_key());
static_assert(nrt::decode::lane_malformed + NRT_HW_FAULT_SLOTS + 1 <= 32, "lane bits fit a word");

#ifdef NRT_NQ_X86

constexpr uint32_t word_phase = uint32_t{NEURON_NQ_HDR_PHASE} << 24;
constexpr uint32_t word_type = uint32_t{NEURON_NQ_HDR_TYPE_MASK} << 24;
constexpr uint32_t word_sat = 0xffffff70u;

// One aligned 16-byte load of the entry at @p, as one VMOVDQA whatever
// the optimiser would make of it (left to itself it may fold a load into
// another instruction, or in principle load twice): the copy-out path
// checks and stores the one value it read.
[[gnu::always_inline]] __attribute__((target("avx2"))) inline __m128i load_entry(const __m128i *p)
{
	__m128i v;
	asm("vmovdqa %1, %0" : "=x"(v) : "m"(*p));
	return v;
}

// The first words of the 4 entries from @p, in order. The decode uses
// each entry's first word alone, from whichever aligned
// load the compiler makes of it (a memory operand of the unpack, here):
// the word is read whole, its phase and its error_id together.
[[gnu::always_inline]] __attribute__((target("avx2"))) inline __m128i first_words4(const __m128i *p)
{
	__m128i a = _mm_load_si128(p), b = _mm_load_si128(p + 1);
	__m128i c = _mm_load_si128(p + 2), d = _mm_load_si128(p + 3);
	return _mm_unpacklo_epi64(_mm_unpacklo_epi32(a, b), _mm_unpacklo_epi32(c, d));
}

// Decode whole groups of 8 entries from @e while every entry of a group
// carries phase @phase, at most @lim entries; returns how many it took.
__attribute__((target("avx2"))) uint32_t take_avx2(const neuron_nq_entry *e, uint32_t lim,
						   bool phase, lane_acc &acc)
{
	const __m256i ph = _mm256_set1_epi32(static_cast<int>(word_phase));
	const __m256i flip = phase ? _mm256_setzero_si256() : ph;
	const __m256i sat = _mm256_set1_epi32(static_cast<int>(word_sat));
	const __m256i tmask = _mm256_set1_epi32(static_cast<int>(word_type));
	const __m256i t_tpb = _mm256_set1_epi32(NEURON_NQ_NOTIFIC_TPB_ERROR << 24);
	const __m256i t_err = _mm256_set1_epi32(NEURON_NQ_NOTIFIC_ERROR << 24);
	const __m256i tab_t = _mm256_load_si256(reinterpret_cast<const __m256i *>(lane1_tpb.data()));
	const __m256i tab_e = _mm256_load_si256(reinterpret_cast<const __m256i *>(lane1_err.data()));
	const __m256i one = _mm256_set1_epi32(1);
	const __m256i zero = _mm256_setzero_si256();
	__m256i bits = zero, bad = zero;
	uint32_t i = 0;
	for (; i + 8 <= lim; i += 8) {
		const auto *p = reinterpret_cast<const __m128i *>(e + i);
		__m256i w = _mm256_set_m128i(first_words4(p + 4), first_words4(p));
		if (!_mm256_testc_si256(_mm256_xor_si256(w, flip), ph))
			break;
		__m256i idx = _mm256_adds_epu8(w, sat);
		__m256i ty = _mm256_and_si256(w, tmask);
		__m256i l = _mm256_or_si256(
			_mm256_and_si256(_mm256_cmpeq_epi32(ty, t_tpb), _mm256_shuffle_epi8(tab_t, idx)),
			_mm256_and_si256(_mm256_cmpeq_epi32(ty, t_err), _mm256_shuffle_epi8(tab_e, idx)));
		bits = _mm256_or_si256(bits, _mm256_sllv_epi32(one, l));
		bad = _mm256_sub_epi32(bad, _mm256_cmpeq_epi32(l, zero));
	}
	__m128i b = _mm_or_si128(_mm256_castsi256_si128(bits), _mm256_extracti128_si256(bits, 1));
	b = _mm_or_si128(b, _mm_shuffle_epi32(b, 0x4e));
	b = _mm_or_si128(b, _mm_shuffle_epi32(b, 0xb1));
	__m128i c = _mm_add_epi32(_mm256_castsi256_si128(bad), _mm256_extracti128_si256(bad, 1));
	c = _mm_add_epi32(c, _mm_shuffle_epi32(c, 0x4e));
	c = _mm_add_epi32(c, _mm_shuffle_epi32(c, 0xb1));
	acc.bits |= static_cast<uint32_t>(_mm_cvtsi128_si32(b));
	acc.bad += static_cast<uint32_t>(_mm_cvtsi128_si32(c));
	return i;
}

// The same, 16 entries a group.
__attribute__((target("avx512f,avx512bw"))) uint32_t take_avx512(const neuron_nq_entry *e,
								 uint32_t lim, bool phase,
								 lane_acc &acc)
{
	const __m512i ph = _mm512_set1_epi32(static_cast<int>(word_phase));
	const __m512i flip = phase ? _mm512_setzero_si512() : ph;
	const __m512i sat = _mm512_set1_epi32(static_cast<int>(word_sat));
	const __m512i tmask = _mm512_set1_epi32(static_cast<int>(word_type));
	const __m512i t_tpb = _mm512_set1_epi32(NEURON_NQ_NOTIFIC_TPB_ERROR << 24);
	const __m512i t_err = _mm512_set1_epi32(NEURON_NQ_NOTIFIC_ERROR << 24);
	const __m512i tab_t = _mm512_load_si512(lane1_tpb.data());
	const __m512i tab_e = _mm512_load_si512(lane1_err.data());
	const __m512i one = _mm512_set1_epi32(1);
	__m512i bits = _mm512_setzero_si512();
	uint32_t bad = 0;
	uint32_t i = 0;
	for (; i + 16 <= lim; i += 16) {
		const auto *p = reinterpret_cast<const __m128i *>(e + i);
		__m512i w = _mm512_inserti32x4(_mm512_zextsi128_si512(first_words4(p)), first_words4(p + 4), 1);
		w = _mm512_inserti32x4(w, first_words4(p + 8), 2);
		w = _mm512_inserti32x4(w, first_words4(p + 12), 3);
		if (_mm512_test_epi32_mask(_mm512_xor_si512(w, flip), ph) != 0xffff)
			break;
		__m512i idx = _mm512_adds_epu8(w, sat);
		__m512i ty = _mm512_and_si512(w, tmask);
		__m512i l = _mm512_maskz_mov_epi32(_mm512_cmpeq_epi32_mask(ty, t_err),
						   _mm512_shuffle_epi8(tab_e, idx));
		l = _mm512_mask_mov_epi32(l, _mm512_cmpeq_epi32_mask(ty, t_tpb),
					  _mm512_shuffle_epi8(tab_t, idx));
		bits = _mm512_or_si512(bits, _mm512_maskz_sllv_epi32(0xffff, one, l));
		bad += static_cast<uint32_t>(__builtin_popcount(_mm512_testn_epi32_mask(l, l)));
	}
	alignas(64) uint32_t word[16];
	_mm512_store_si512(word, bits);
	for (uint32_t w : word)
		acc.bits |= w;
	acc.bad += bad;
	return i;
}

// Copy whole groups of 8 entries from @e to @out while every entry of a
// group carries phase @Phase, at most @lim entries; returns how many it
// copied. Each entry is read once, in one aligned 16-byte load (above), so
// the body copied is the one its header published.
template <bool Phase>
__attribute__((target("avx2"))) uint32_t copy_avx2(const neuron_nq_entry *e, neuron_nq_entry *out,
						   uint32_t lim)
{
	const __m128i ph = _mm_setr_epi32(static_cast<int>(word_phase), 0, 0, 0);
	const auto *p = reinterpret_cast<const __m128i *>(e);
	auto *o = reinterpret_cast<__m128i *>(out);
	uint32_t i = 0;
	for (; i + 8 <= lim; i += 8) {
		__m128i a = load_entry(p + i), b = load_entry(p + i + 1);
		__m128i c = load_entry(p + i + 2), d = load_entry(p + i + 3);
		__m128i f = load_entry(p + i + 4), g = load_entry(p + i + 5);
		__m128i h = load_entry(p + i + 6), k = load_entry(p + i + 7);
		if constexpr (Phase) {
			__m128i all = _mm_and_si128(_mm_and_si128(_mm_and_si128(a, b), _mm_and_si128(c, d)),
						    _mm_and_si128(_mm_and_si128(f, g), _mm_and_si128(h, k)));
			if (!_mm_testc_si128(all, ph))
				break;
		} else {
			__m128i any = _mm_or_si128(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)),
						   _mm_or_si128(_mm_or_si128(f, g), _mm_or_si128(h, k)));
			if (!_mm_testz_si128(any, ph))
				break;
		}
		_mm_storeu_si128(o + i, a);
		_mm_storeu_si128(o + i + 1, b);
		_mm_storeu_si128(o + i + 2, c);
		_mm_storeu_si128(o + i + 3, d);
		_mm_storeu_si128(o + i + 4, f);
		_mm_storeu_si128(o + i + 5, g);
		_mm_storeu_si128(o + i + 6, h);
		_mm_storeu_si128(o + i + 7, k);
	}
	return i;
}

#endif // NRT_NQ_X86

// Whole groups of ready entries the queue's vector path copies from @e to
// @out.
inline uint32_t copy_vector(const nrt_nq *q, const neuron_nq_entry *e, neuron_nq_entry *out,
			    uint32_t lim, bool phase)
{
#ifdef NRT_NQ_X86
	if (q->isa != nrt::nq::isa::scalar)
		return phase ? copy_avx2<true>(e, out, lim) : copy_avx2<false>(e, out, lim);
#else
	(void)q, (void)e, (void)out, (void)lim, (void)phase;
#endif
	return 0;
}

// Whole groups the queue's vector path decodes from @e (see take_avx2).
inline uint32_t take_vector(const nrt_nq *q, const neuron_nq_entry *e, uint32_t lim, bool phase,
			    lane_acc &acc)
{
#ifdef NRT_NQ_X86
	switch (q->isa) {
	case nrt::nq::isa::avx512:
		return take_avx512(e, lim, phase, acc);
	case nrt::nq::isa::avx2:
		return take_avx2(e, lim, phase, acc);
	case nrt::nq::isa::scalar:
		break;
	}
#else
	(void)q, (void)e, (void)lim, (void)phase, (void)acc;
#endif
	return 0;
}

// The best path this CPU runs, or the one LIBNRT_NQ_ISA names (scalar,
// avx2, avx512) when the CPU has it: the tests run each path that way.
nrt::nq::isa pick_isa()
{
	nrt::nq::isa best = nrt::nq::isa::scalar;
#ifdef NRT_NQ_X86
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2"))
		best = nrt::nq::isa::avx2;
	// the AVX-512 path copies out with the AVX2 code
	if (best == nrt::nq::isa::avx2 && __builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512bw"))
		best = nrt::nq::isa::avx512;
#endif
	const char *env = std::getenv("LIBNRT_NQ_ISA");
	if (!env)
		return best;
	std::string_view want(env);
	if (want == "scalar")
		return nrt::nq::isa::scalar;
	if (want == "avx2" && best >= nrt::nq::isa::avx2)
		return nrt::nq::isa::avx2;
	return best;
}

// The run from q->head on: its first entry, its length limit (at most
// @cap and never past the end of the slot array, so one phase holds for
// all of it) and the phase this lap's entries carry (neuron_nq_phase()
// without its division: the lap is even when the head's bit of weight
// @entries is clear). Caller holds q->lock or owns the queue.
struct run_view {
	const neuron_nq_entry *e;
	uint32_t lim;
	bool phase;
};

inline run_view next_run(const nrt_nq *q, uint32_t cap)
{
	uint32_t slot = q->head & (q->entries - 1);
	return { q->ring + slot, std::min(cap, q->entries - slot), !(q->head & q->entries) };
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
	if (!ret && !nrt::fork_maps::add(map, len))
		ret = -ENOMEM;
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
		if (nrt::fork_maps::remove(q->map))
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
		const auto [e, lim, phase] = next_run(q, max ? std::min(max - n, copy_run_max) : copy_run_max);
		uint32_t v = out ? copy_vector(q, e, out + n, lim, phase) : 0;
		// the rest, one header at a time (acquire loads), then the bodies
		uint32_t r = v + (phase ? run_length<true>(e + v, lim - v) : run_length<false>(e + v, lim - v));
		if (out && r > v)
			std::memcpy(out + n + v, e + v, size_t{r - v} * sizeof(*out));
		more = r == lim;
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
		const auto [e, lim, phase] = next_run(q, decode_batch);
		lane_acc acc;
		uint32_t v = take_vector(q, e, lim, phase, acc);
		uint32_t r = v + (phase ? run_length<true>(e + v, lim - v) : run_length<false>(e + v, lim - v));
		more = r == lim;
		if (!r)
			break;	// nothing (more) ready: the common case of a clean job
		if (v)
			nrt::decode::add_lane_bits(*errs, acc.bits, acc.bad, v);
		if (r > v)
			decode_run(e + v, r - v, errs);
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

NRT_EXPORT const char *nrt_nq_path(const nrt_nq_t *q)
{
	if (!q)
		return nullptr;
	switch (q->isa) {
	case nrt::nq::isa::avx512:
		return "avx512";
	case nrt::nq::isa::avx2:
		return "avx2";
	case nrt::nq::isa::scalar:
		break;
	}
	return "scalar";
}
