// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// ns/call of nrt_get_status_as_str / nrt_get_status_priority against a
// plain switch written here, over the same pseudo-random input stream.
// Both sides are indirect calls through volatile function pointers on
// inputs hidden behind an empty asm, so the compiler can neither inline,
// hoist nor drop either one, and the ratio compares the lookups themselves.
// The checksums defeat dead-code elimination and double as an agreement
// check: library and switch must produce the same sums.
#include <nrt/nrt_status.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

__attribute__((noinline)) const char *switch_as_str(NRT_STATUS s)
{
	switch (static_cast<uint32_t>(s)) {
	case 0: return "NRT_SUCCESS";
	case 1: return "NRT_FAILURE";
	case 2: return "NRT_INVALID";
	case 3: return "NRT_INVALID_HANDLE";
	case 4: return "NRT_RESOURCE";
	case 5: return "NRT_TIMEOUT";
	case 6: return "NRT_HW_ERROR";
	case 7: return "NRT_QUEUE_FULL";
	case 9: return "NRT_LOAD_NOT_ENOUGH_NC";
	case 10: return "NRT_UNSUPPORTED_NEFF_VERSION";
	case 11: return "NRT_FAIL_HOST_MEM_ALLOC";
	case 13: return "NRT_UNINITIALIZED";
	case 14: return "NRT_CLOSED";
	case 15: return "NRT_QUEUE_EMPTY";
	case 101: return "NRT_EXEC_UNIT_UNRECOVERABLE";
	case 1002: return "NRT_EXEC_BAD_INPUT";
	case 1003: return "NRT_EXEC_COMPLETED_WITH_NUM_ERR";
	case 1004: return "NRT_EXEC_COMPLETED_WITH_ERR";
	case 1005: return "NRT_EXEC_NC_BUSY";
	case 1006: return "NRT_EXEC_OOB";
	case 1100: return "NRT_COLL_PENDING";
	case 1200: return "NRT_EXEC_HW_ERR_COLLECTIVES";
	case 1201: return "NRT_EXEC_HW_ERR_HBM_UE";
	case 1202: return "NRT_EXEC_HW_ERR_NC_UE";
	case 1203: return "NRT_EXEC_HW_ERR_DMA_ABORT";
	case 1204: return "NRT_EXEC_SW_NQ_OVERFLOW";
	case 1205: return "NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE";
	case 1206: return "NRT_NETWORK_PROXY_FAILURE";
	default: return "UNKNOWN";
	}
}

__attribute__((noinline)) int switch_priority(NRT_STATUS s)
{
	switch (static_cast<uint32_t>(s)) {
	case 0:
		return 0;
	case 5:
	case 6:
	case 1204:
	case 1206:
		return 2;
	case 1004:
	case 1200:
	case 1201:
	case 1202:
	case 1203:
	case 1205:
		return 3;
	default:
		return 1;
	}
}

const uint32_t codes[] = { 0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 13, 14, 15, 101, 1002, 1003,
			   1004, 1005, 1006, 1100, 1200, 1201, 1202, 1203, 1204, 1205, 1206 };

// Half assigned codes, a quarter small values around the bands, a quarter
// any 32-bit value.
std::vector<NRT_STATUS> make_stream(size_t n)
{
	std::vector<NRT_STATUS> v(n);
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	for (auto &s : v) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		uint32_t r = static_cast<uint32_t>(x >> 32);
		switch (r & 3) {
		case 0:
		case 1:
			s = static_cast<NRT_STATUS>(codes[(r >> 2) % (sizeof(codes) / sizeof(codes[0]))]);
			break;
		case 2:
			s = static_cast<NRT_STATUS>((r >> 2) % 1300);
			break;
		default:
			s = static_cast<NRT_STATUS>(r);
			break;
		}
	}
	return v;
}

using clk = std::chrono::steady_clock;

struct result {
	double ns_per_call;
	uint64_t checksum;
};

template <typename F>
result run(const std::vector<NRT_STATUS> &in, int passes, F fn)
{
	double best = 1e300;
	uint64_t sum = 0;
	for (int rep = 0; rep < 5; rep++) {
		uint64_t s = 0;
		auto t0 = clk::now();
		for (int p = 0; p < passes; p++) {
			for (NRT_STATUS v : in) {
				// Opaque to the optimiser, so a pure callee cannot be
				// hoisted out of the pass loop or folded.
				asm volatile("" : "+r"(v) : : "memory");
				s += fn(v);
			}
		}
		asm volatile("" : : "r"(s) : "memory");	// every pass's sum is used
		auto t1 = clk::now();
		double ns = std::chrono::duration<double, std::nano>(t1 - t0).count() /
			    (static_cast<double>(in.size()) * passes);
		best = std::min(best, ns);
		sum = s;
	}
	return { best, sum };
}

} // namespace

int main()
{
	const auto in = make_stream(1 << 16);
	const int passes = 150;	// ~10M calls per repetition

	// Through volatile function pointers on both sides: the compiler can
	// neither inline nor reason about either callee.
	static const char *(*volatile lib_str)(NRT_STATUS) = nrt_get_status_as_str;
	static const char *(*volatile sw_str)(NRT_STATUS) = switch_as_str;
	static int (*volatile lib_prio)(NRT_STATUS) = nrt_get_status_priority;
	static int (*volatile sw_prio)(NRT_STATUS) = switch_priority;
	const auto f_lib_str = lib_str;
	const auto f_sw_str = sw_str;
	const auto f_lib_prio = lib_prio;
	const auto f_sw_prio = sw_prio;

	auto str_lib = run(in, passes, [f_lib_str](NRT_STATUS s) {
		return static_cast<uint64_t>(static_cast<unsigned char>(f_lib_str(s)[4]));
	});
	auto str_sw = run(in, passes, [f_sw_str](NRT_STATUS s) {
		return static_cast<uint64_t>(static_cast<unsigned char>(f_sw_str(s)[4]));
	});
	auto prio_lib = run(in, passes, [f_lib_prio](NRT_STATUS s) {
		return static_cast<uint64_t>(f_lib_prio(s));
	});
	auto prio_sw = run(in, passes, [f_sw_prio](NRT_STATUS s) {
		return static_cast<uint64_t>(f_sw_prio(s));
	});

	std::printf("bench_status: %zu inputs x %d passes, best of 5\n", in.size(), passes);
	std::printf("%-24s %10s %10s %8s  %s\n", "function", "lib ns", "switch ns", "ratio",
		    "checksum");
	std::printf("%-24s %10.3f %10.3f %8.2f  %" PRIu64 "%s\n", "nrt_get_status_as_str",
		    str_lib.ns_per_call, str_sw.ns_per_call, str_lib.ns_per_call / str_sw.ns_per_call,
		    str_lib.checksum, str_lib.checksum == str_sw.checksum ? "" : " MISMATCH");
	std::printf("%-24s %10.3f %10.3f %8.2f  %" PRIu64 "%s\n", "nrt_get_status_priority",
		    prio_lib.ns_per_call, prio_sw.ns_per_call,
		    prio_lib.ns_per_call / prio_sw.ns_per_call, prio_lib.checksum,
		    prio_lib.checksum == prio_sw.checksum ? "" : " MISMATCH");
	return (str_lib.checksum == str_sw.checksum && prio_lib.checksum == prio_sw.checksum) ? 0 : 1;
}
