// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Notification-ring drain + decode throughput on the host, against a plain
// memcpy of the same ring bytes, for each of the drain's paths the CPU has
// (scalar, AVX2, AVX-512; libnrt's own choice last, its ratios untagged).
//
// A 65536-entry ring in memory (the driver's layout) is filled by the
// common/ producer with a realistic error mix; then, from the same freshly
// written ring, we time (a) memcpy of the 1 MiB of entries, (b) libnrt's
// nrt_nq_drain (phase check, decode, head publish), (c) nrt_nq_drain_entries
// (phase check, copy-out). Filling is not timed. Every repetition's decode
// result is checked against a reference decode of the same entries and its
// copy against the ring, and checksums of each side are printed, so no loop
// can be dropped by the optimiser.
#include <neuron/neuron_nq.h>
#include <nrt/nrt_error_model.h>
#include <nrt/nrt_nq.h>

extern "C" {
#include "neuron_nq_ring.h"
}

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr uint32_t kEntries = 65536;
constexpr size_t kRingBytes = size_t{kEntries} * NEURON_NQ_ENTRY_SIZE;
constexpr size_t kMapBytes = NEURON_NQ_RING_OFFSET + kRingBytes;
constexpr int kReps = 300;

using clk = std::chrono::steady_clock;

// What an error ring sees: mostly benign TPB notifications, some NaN/Inf,
// a few fatal TPB errors and hardware faults, the odd entry of a type the
// decoder rejects.
std::vector<neuron_nq_entry> make_mix()
{
	std::vector<neuron_nq_entry> v(kEntries);
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	for (auto &e : v) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		uint32_t r = static_cast<uint32_t>(x >> 33);
		std::memset(&e, 0, sizeof(e));
		uint32_t pick = r % 100;
		if (pick < 55) {
			static const uint8_t benign[] = { NEURON_TPB_ERROR_FP_UNDERFLOW,
							  NEURON_TPB_ERROR_FP_INF,
							  NEURON_TPB_ERROR_FP_OVERFLOW,
							  NEURON_TPB_ERROR_SEQUENCER_NONFATAL };
			e.header = NEURON_NQ_NOTIFIC_TPB_ERROR;
			e.error_id = benign[(r >> 8) % 4];
		} else if (pick < 75) {
			e.header = NEURON_NQ_NOTIFIC_TPB_ERROR;
			e.error_id = NEURON_TPB_ERROR_FP_NAN;
		} else if (pick < 88) {
			e.header = NEURON_NQ_NOTIFIC_TPB_ERROR;
			e.error_id = static_cast<uint8_t>(NEURON_TPB_ERROR_MEMORY_ERROR + (r >> 8) % 7);
		} else if (pick < 96) {
			e.header = NEURON_NQ_NOTIFIC_ERROR;
			e.error_id = static_cast<uint8_t>(1 + (r >> 8) % 5);
		} else {
			e.header = NEURON_NQ_NOTIFIC_DMA;	// not an error entry: malformed
			e.error_id = static_cast<uint8_t>(r >> 8);
		}
		e.metadata_lo[0] = static_cast<uint8_t>(r >> 16);
		e.metadata_lo[1] = static_cast<uint8_t>(r >> 24);
		e.metadata_hi = static_cast<uint32_t>(x);
		e.timestamp_ps = x ^ (x >> 17);
	}
	return v;
}

double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

uint64_t fold(const nrt_infer_errors_t &e)
{
	uint64_t s = e.entries * 31ULL + e.malformed * 7ULL + e.nq_overflow;
	for (uint8_t f : e.infer_error_flags)
		s = s * 3 + f;
	for (uint8_t f : e.hw_error_flags)
		s = s * 5 + f;
	return s;
}

// The drain's paths this CPU runs (libnrt picks the last, the best, unless
// LIBNRT_NQ_ISA names another; the same rule as libnrt/src/nq.cpp).
std::vector<const char *> paths()
{
	std::vector<const char *> v{ "scalar" };
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2"))
		v.push_back("avx2");
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
		v.push_back("avx512");
#endif
	return v;
}

// One path's run: 300 repetitions of memcpy, drain + decode, and drain
// without decode, side by side; false on a wrong result.
bool run(const char *path, bool best, const std::vector<neuron_nq_entry> &mix,
	 const nrt_infer_errors_t &want)
{
	auto *map = static_cast<uint8_t *>(std::aligned_alloc(4096, kMapBytes));
	auto *dst = static_cast<uint8_t *>(std::aligned_alloc(4096, kRingBytes));
	auto *out = static_cast<neuron_nq_entry *>(std::aligned_alloc(64, kRingBytes));
	if (!map || !dst || !out)
		return false;
	std::memset(map, 0, kMapBytes);
	std::memset(dst, 0, kRingBytes);
	std::memset(out, 0, kRingBytes);
	auto *ctrl = reinterpret_cast<neuron_nq_ctrl *>(map);
	auto *ring = reinterpret_cast<neuron_nq_entry *>(map + NEURON_NQ_RING_OFFSET);
	neuron_nq_producer p;
	neuron_nq_producer_init(&p, ctrl, kEntries);
	nrt_nq_t *q = nullptr;
	// libnrt reads the variable when a queue is attached
	setenv("LIBNRT_NQ_ISA", path, 1);
	if (nrt_nq_attach_memory(map, kMapBytes, &q) != 0)
		return false;

	auto fill = [&] {
		for (const auto &e : mix)
			if (neuron_nq_produce(&p, ctrl, ring, &e) != 0)
				std::abort();
	};

	std::vector<double> t_copy, t_drain, t_raw;
	uint64_t sum_copy = 0, sum_drain = 0, sum_raw = 0;
	int bad = 0;
	for (int rep = 0; rep < kReps; rep++) {
		fill();
		// (a) memcpy of the ring bytes the drain is about to read
		auto t0 = clk::now();
		std::memcpy(dst, ring, kRingBytes);
		asm volatile("" : : "r"(dst) : "memory");
		auto t1 = clk::now();
		// (b) drain + decode
		nrt_infer_errors_t errs{};
		uint64_t dropped = 0;
		int n = nrt_nq_drain(q, &errs, &dropped);
		auto t2 = clk::now();
		// checksum of the copy: two bytes of every 256th entry
		for (size_t i = 0; i < kRingBytes; i += 4096)
			sum_copy += dst[i + 3] + dst[i + 4];
		sum_drain += fold(errs) + static_cast<uint64_t>(n);
		if (n != static_cast<int>(kEntries) || dropped || fold(errs) != fold(want))
			bad++;
		t_copy.push_back(std::chrono::duration<double>(t1 - t0).count());
		t_drain.push_back(std::chrono::duration<double>(t2 - t1).count());

		// (c) the raw drain (copy out, no decode)
		fill();
		auto t3 = clk::now();
		int m = nrt_nq_drain_entries(q, out, 0);
		auto t4 = clk::now();
		sum_raw += static_cast<uint64_t>(m) + out[rep % kEntries].metadata_hi;
		// the copy is the ring's bytes, every entry
		if (m != static_cast<int>(kEntries) || std::memcmp(out, ring, kRingBytes) != 0)
			bad++;
		t_raw.push_back(std::chrono::duration<double>(t4 - t3).count());
	}

	const double c = median(t_copy), d = median(t_drain), r = median(t_raw);
	// the best path's ratios under their usual names, the others' tagged
	std::string tag = best ? std::string() : std::string(" (") + path + " path)";
	std::printf("path %s%s: results %s\n", path, best ? " (libnrt's choice here)" : "",
		    bad ? "MISMATCH" : "verified every pass");
	std::printf("  %-34s %10.1f us  %14.0f entries/s  checksum %" PRIu64 "\n", "memcpy of ring bytes",
		    c * 1e6, kEntries / c, sum_copy);
	std::printf("  %-34s %10.1f us  %14.0f entries/s  checksum %" PRIu64 "\n",
		    "nrt_nq_drain_entries (no decode)", r * 1e6, kEntries / r, sum_raw);
	std::printf("  %-34s %10.1f us  %14.0f entries/s  checksum %" PRIu64 "\n",
		    "nrt_nq_drain (drain + decode)", d * 1e6, kEntries / d, sum_drain);
	std::printf("ratio drain_entries/memcpy%s: %.2f\n", tag.c_str(), r / c);
	std::printf("ratio drain/memcpy%s: %.2f\n", tag.c_str(), d / c);
	nrt_nq_close(q);
	std::free(out);
	std::free(dst);
	std::free(map);
	return !bad;
}

} // namespace

int main()
{
	const auto mix = make_mix();
	nrt_infer_errors_t want{};
	for (const auto &e : mix)
		nrt_decode_nq_entry(&want, &e);
	std::printf("bench_nq: %u-entry ring (%zu KiB), %d repetitions, median per pass\n", kEntries,
		    kRingBytes / 1024, kReps);
	std::printf("decode mix per pass: %u accepted, %u malformed\n", want.entries, want.malformed);
	const auto v = paths();
	bool ok = true;
	for (size_t i = 0; i < v.size(); i++)
		ok &= run(v[i], i + 1 == v.size(), mix, want);
	unsetenv("LIBNRT_NQ_ISA");
	return ok ? 0 : 1;
}
