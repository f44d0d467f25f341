// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The execution paths' inline accounting (libnrt/src/kmetric.hpp, through
// the per-NeuronCore core_account nrt_init() keeps) against
// the exported kmetric_record_execution() and nds_record_latency(): for
// every NeuronCore index (the slab's three regions, and past the
// instance), read-only and writable instances, a sample of statuses
// (success, the 1200 band, others), error flags one at a time, and times
// of 0, under 500 ns, rounding up and large, both leave the same slab,
// byte for byte. Also the branch-free nds_latency_bucket()
// against the bucket written out with branches, and job_status()'s
// straight path against the fold.
#include <array>
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <nrt/kmetric.h>
#include <nrt/nds/neuron_ds.h>

#include "decode.hpp"
#include "kmetric.hpp"

extern "C" {
#include <cmocka.h>
}

namespace {

constexpr size_t kSlab = NEURON_NDS_SIZE;

// Two slabs, reused (zeroed) for every case.
std::vector<uint64_t> mem_a(kSlab / 8), mem_b(kSlab / 8);

struct slab {
	std::vector<uint64_t> &mem;
	nds_instance_t *inst = nullptr;

	slab(std::vector<uint64_t> &m, uint32_t nc_count, bool writable) : mem(m)
	{
		std::memset(mem.data(), 0, kSlab);
		assert_int_equal(nds_open_memory(mem.data(), nc_count, writable, &inst), 0);
	}
	~slab() { nds_close(inst); }
};

const std::array<NRT_STATUS, 8> kStatuses = {
	NRT_SUCCESS, NRT_FAILURE, NRT_TIMEOUT, NRT_EXEC_COMPLETED_WITH_ERR,
	NRT_EXEC_COMPLETED_WITH_NUM_ERR, NRT_EXEC_HW_ERR_HBM_UE, NRT_EXEC_SW_NQ_OVERFLOW,
	NRT_EXEC_BAD_INPUT,
};
const std::array<uint64_t, 10> kTimes = {
	0, 499, 500, 1023, 1024, 1499999, uint64_t{ 1 } << 40, (uint64_t{ 1 } << 42) - 1,
	uint64_t{ 1 } << 42, UINT64_MAX,
};

// Both paths on two fresh slabs of @nc_count NeuronCores, then compared.
void same(uint32_t nc_count, bool writable, int nc, NRT_STATUS st, const nrt_infer_errors_t &e,
	  const nrt_exec_times_t &t, bool ran)
{
	slab a(mem_a, nc_count, writable), b(mem_b, nc_count, writable);
	// what nrt_init() keeps per NeuronCore (empty past the straight path's)
	const auto acct = nrt::kmetric::core_account_for(a.inst, static_cast<uint32_t>(nc));
	nrt::kmetric::record_execution(acct, a.inst, nc, st, e, t);
	nrt::kmetric::record_latencies(acct, a.inst, t.total_ns, t.device_ns, ran);
	kmetric_record_execution(b.inst, nc, st, &e, &t);
	if (writable) {
		nds_record_latency(b.inst, NDS_LATENCY_TOTAL, t.total_ns);
		if (ran)
			nds_record_latency(b.inst, NDS_LATENCY_DEVICE, t.device_ns);
	}
	if (std::memcmp(a.mem.data(), b.mem.data(), kSlab) != 0) {
		for (size_t i = 0; i < a.mem.size(); i++)
			if (a.mem[i] != b.mem[i])
				print_error("nc_count %u writable %d nc %d status %d: slab word %zu: %llu vs %llu\n",
					    nc_count, writable, nc, st, i, (unsigned long long)a.mem[i],
					    (unsigned long long)b.mem[i]);
		fail();
	}
}

void inline_accounting_matches(void **)
{
	const int ncs[] = { -1, 0, 1, 3, 4, 7, 8, 16 };
	for (uint32_t nc_count : { 1u, 4u, 8u, 16u })
		for (bool writable : { false, true })
			for (int nc : ncs)
				for (NRT_STATUS st : kStatuses)
					for (uint64_t total : kTimes) {
						nrt_infer_errors_t e{};
						nrt_exec_times_t t{};
						t.total_ns = total;
						same(nc_count, writable, nc, st, e, t, true);
						t.device_ns = t.nc_ns = total / 2;
						same(nc_count, writable, nc, st, e, t, false);
						t.cc_ns = 700;
						same(nc_count, writable, nc, st, e, t, true);
					}
}

void inline_accounting_flags(void **)
{
	for (size_t f = 0; f < 16; f++) {
		nrt_infer_errors_t e{};
		reinterpret_cast<uint8_t *>(&e)[f] = 1;
		nrt_exec_times_t t{};
		t.total_ns = 2500;
		for (NRT_STATUS st : kStatuses)
			same(4, true, 1, st, e, t, true);
	}
	// the entry counts alone move nothing, on either path
	nrt_infer_errors_t e{};
	e.entries = 3;
	e.malformed = 1;
	nrt_exec_times_t t{};
	same(4, true, 2, NRT_SUCCESS, e, t, true);
}

// The bucket written out with branches, as the layout defines it.
unsigned reference_bucket(uint64_t ns)
{
	if (ns < (uint64_t{ 1 } << NDS_LATENCY_MIN_SHIFT))
		return 0;
	if (ns >= (uint64_t{ 1 } << NDS_LATENCY_MAX_SHIFT))
		return NDS_LATENCY_BUCKETS - 1;
	unsigned e = 63u - static_cast<unsigned>(__builtin_clzll(ns));
	return 1u + (e - NDS_LATENCY_MIN_SHIFT) * NDS_LATENCY_SUB +
	       static_cast<unsigned>((ns >> (e - NDS_LATENCY_SUB_SHIFT)) & (NDS_LATENCY_SUB - 1));
}

// nds_latency_bucket() (branch-free) against the reference: every power of
// two and its neighbours, and a pseudo-random sample.
void latency_bucket_matches(void **)
{
	auto check = [](uint64_t ns) {
		if (nds_latency_bucket(ns) != reference_bucket(ns)) {
			print_error("ns %llu: %u vs %u\n", (unsigned long long)ns,
				    nds_latency_bucket(ns), reference_bucket(ns));
			fail();
		}
	};
	check(0);
	check(UINT64_MAX);
	for (unsigned s = 0; s < 64; s++)
		for (int64_t d = -2; d <= 2; d++)
			check((uint64_t{ 1 } << s) + static_cast<uint64_t>(d));
	uint64_t x = 0x9e3779b97f4a7c15u;
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		check(x >> (x & 63));
	}
}

void job_status_straight_path(void **)
{
	for (NRT_STATUS st : kStatuses)
		for (bool armed : { false, true }) {
			nrt_infer_errors_t e{};
			assert_int_equal(nrt::decode::job_status(st, e, armed),
					 nrt::decode::fold_job_status(st, e, armed));
			for (size_t f = 0; f < 16; f++) {
				nrt_infer_errors_t one{};
				reinterpret_cast<uint8_t *>(&one)[f] = 1;
				assert_true(nrt::decode::any_flag(one));
				assert_int_equal(nrt::decode::job_status(st, one, armed),
						 nrt::decode::fold_job_status(st, one, armed));
			}
			assert_false(nrt::decode::any_flag(e));
		}
}

} // namespace

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(inline_accounting_matches),
		cmocka_unit_test(inline_accounting_flags),
		cmocka_unit_test(latency_bucket_matches),
		cmocka_unit_test(job_status_straight_path),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
