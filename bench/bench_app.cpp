// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Host half of the application-API benchmark (the guest half, with the
// device, is tests/vm/vm_bench_app.c): NEFF parse + digest + archive read
// per second, and host-tensor write+read through the C API against memcpy
// of the same bytes, as a ratio from one run.
#include <nrt/nrt.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "neff.hpp"
#include "tensor.hpp"

namespace {

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b)
{
	return std::chrono::duration<double>(b - a).count();
}

} // namespace

int main()
{
	using clk = std::chrono::steady_clock;
	nrt::neff::model_desc m;
	m.name = "bench";
	m.program = nrt::neff::op::affine_u32;
	m.inputs = { { "in", 4096 } };
	m.outputs = { { "out", 4096 } };
	std::vector<uint8_t> neff;
	if (!nrt::neff::pack(nrt::neff::format(m), &m, {}, &neff)) {
		std::fprintf(stderr, "bench_app: pack failed\n");
		return 1;
	}
	constexpr int kLoads = 5000;
	auto t0 = clk::now();
	for (int i = 0; i < kLoads; i++) {
		nrt::neff::header h;
		nrt::neff::model_desc d;
		if (nrt::neff::parse(neff, &h, &d) != NRT_SUCCESS) {
			std::fprintf(stderr, "bench_app: parse failed\n");
			return 1;
		}
	}
	double parse_s = seconds(t0, clk::now());

	// host tensors through the public calls (handles checked each call)
	constexpr size_t kBytes = 1 << 20;
	constexpr int kRounds = 256;
	std::shared_ptr<nrt::tensor::tensor> t;
	if (nrt::tensor::allocate_host(kBytes, "bench", &t) != NRT_SUCCESS)
		return 1;
	auto *h = reinterpret_cast<nrt_tensor_t *>(nrt::tensor::tensors().issue(t));
	std::vector<uint8_t> src(kBytes, 0x5a), dst(kBytes), mid(kBytes);
	double api_best = 0, cpy_best = 0;
	for (int k = 0; k < 3; k++) {
		auto a = clk::now();
		for (int i = 0; i < kRounds; i++) {
			if (nrt_tensor_write(h, src.data(), 0, kBytes) != NRT_SUCCESS ||
			    nrt_tensor_read(h, dst.data(), 0, kBytes) != NRT_SUCCESS)
				return 1;
		}
		auto b = clk::now();
		for (int i = 0; i < kRounds; i++) {
			std::memcpy(mid.data(), src.data(), kBytes);
			asm volatile("" ::"r"(mid.data()) : "memory");
			std::memcpy(dst.data(), mid.data(), kBytes);
			asm volatile("" ::"r"(dst.data()) : "memory");
		}
		auto c = clk::now();
		double mb = 2.0 * kRounds * kBytes / 1e6;
		api_best = std::max(api_best, mb / seconds(a, b));
		cpy_best = std::max(cpy_best, mb / seconds(b, c));
	}
	nrt_tensor_free(&h);
	std::printf("NEFF parse (%zu bytes, SHA-256, gzip'd tar): %10.0f loads/s\n", neff.size(),
		    kLoads / parse_s);
	std::printf("host tensor write+read, 1 MiB: %10.0f MB/s\n", api_best);
	std::printf("memcpy there and back:         %10.0f MB/s\n", cpy_best);
	std::printf("ratio host tensor write+read/memcpy (throughput): %.3f\n", api_best / cpy_best);
	return 0;
}
