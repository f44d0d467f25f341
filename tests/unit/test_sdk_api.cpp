// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The SDK calls of docs/sdk-compat.md that need no device, on the host:
// NEURON_RT_VISIBLE_CORES and NEURON_RT_NUM_CORES parsing and precedence,
// the counts before nrt_init(), the load and profile guards, empty /
// attached / slice tensors and their virtual addresses, and model tensor
// info and model info on a model put straight into the handle table
// (loading needs a device: tests/vm/25_app.sh, vm_sdk_dev); batched
// tensor reads and writes, a device tensor's allocation info over memory
// put straight into a tensor, the instance-info decisions, the argument
// checks of the memory stats and instance count, and the NDS objects over
// a slab in memory (across processes: tests/vm/27_sdkcalls.sh).
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <nrt/nds/neuron_ds.h>
#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>
#include <nrt/nrt_profile.h>
#include <neuron/neuron_nds.h>

#include <vector>

#include "machine.hpp"
#include "model.hpp"
#include "runtime.hpp"
#include "tensor.hpp"

extern "C" {
#include <cmocka.h>
}

namespace {

// nrt_init()'s version strings: whatever a framework passes, what parses
// recorded, the framework type always; only control characters refused.
void version_strings(void **)
{
	struct {
		const char *in;
		bool ok;
		uint64_t want;	// without the type
	} cases[] = {
		{ nullptr, true, 0 },
		{ "", true, 0 },
		{ "1.2.3", true, (1ull << 40) | (2ull << 32) | 3 },
		{ "2.1.0+cu121", true, (2ull << 40) | (1ull << 32) },
		{ "1.13", true, (1ull << 40) | (13ull << 32) },
		{ "7", true, 7ull << 40 },
		{ "2.1.0.dev20240101", true, (2ull << 40) | (1ull << 32) },
		{ "1.2.3.4", true, (1ull << 40) | (2ull << 32) | 3 },
		{ "spike", true, 0 },
		{ "v2.1", true, 0 },
		{ "bad.version.x", true, 0 },
		{ "1..2", true, 1ull << 40 },
		{ "256.0.0", true, 0 },
		{ "1.256", true, 0 },
		{ "1.2.4294967295", true, (1ull << 40) | (2ull << 32) | 0xffffffffull },
		{ "1.2.4294967296", true, 0 },
		{ "99999999999999999999999", true, 0 },
		{ "2.1 (nightly) \xc3\xa9", true, (2ull << 40) | (1ull << 32) },
		{ "1.0\n", false, 0 },
		{ "\x1b[31m1.0", false, 0 },
		{ "1.0\x7f", false, 0 },
	};
	for (auto &c : cases) {
		uint64_t v = 1;
		bool ok = nrt::rt::encode_version(c.in, 3, &v);
		if (ok != c.ok || (ok && v != ((3ull << 48) | c.want)))
			fail_msg("\"%s\": %d 0x%llx, expected %d 0x%llx", c.in ? c.in : "(null)", ok,
				 (unsigned long long)v, c.ok, (unsigned long long)((3ull << 48) | c.want));
	}
}

void visible_parse(void **)
{
	uint32_t first = 9, count = 9;
	bool set = true;
	assert_int_equal(nrt::rt::visible_cores(nullptr, 8, &first, &count, &set), NRT_SUCCESS);
	assert_false(set);
	assert_int_equal(first, 0);
	assert_int_equal(count, 8);
	assert_int_equal(nrt::rt::visible_cores("", 8, &first, &count, &set), NRT_SUCCESS);
	assert_false(set);
	struct {
		const char *s;
		uint32_t first, count;
	} good[] = {
		{ "2", 2, 1 }, { "0-3", 0, 4 }, { "3,4,5,6", 3, 4 }, { "3-5,6", 3, 4 },
		{ "1-2,3-4", 1, 4 }, { "7", 7, 1 }, { "0-7", 0, 8 },
	};
	for (const auto &g : good) {
		assert_int_equal(nrt::rt::visible_cores(g.s, 8, &first, &count, &set), NRT_SUCCESS);
		assert_true(set);
		assert_int_equal(first, g.first);
		assert_int_equal(count, g.count);
	}
	// not one ascending contiguous run of existing NeuronCores
	const char *bad[] = { "3,5,6", "4,3", "3-2", "8", "0-8", "a", "1,", ",1", "1-", "-1",
			      "1 ", "1,,2", "2,2", "99999999999999999999999" };
	for (const char *b : bad)
		assert_int_equal(nrt::rt::visible_cores(b, 8, &first, &count, &set), NRT_INVALID);
}

void num_cores_parse(void **)
{
	uint32_t count = 9;
	bool set = true;
	// unset, empty and 0 (the SDK's "all") ask for nothing in particular
	for (const char *none : { static_cast<const char *>(nullptr), "", "0", "00" }) {
		assert_int_equal(nrt::rt::num_cores(none, 8, &count, &set), NRT_SUCCESS);
		assert_false(set);
		assert_int_equal(count, 0);
	}
	struct {
		const char *s;
		uint32_t count;
	} good[] = { { "1", 1 }, { "3", 3 }, { "8", 8 }, { "007", 7 } };
	for (const auto &g : good) {
		assert_int_equal(nrt::rt::num_cores(g.s, 8, &count, &set), NRT_SUCCESS);
		assert_true(set);
		assert_int_equal(count, g.count);
	}
	// more than the machine has: the cores asked for are not available
	for (const char *many : { "9", "4294967297", "18446744073709551615" }) {
		assert_int_equal(nrt::rt::num_cores(many, 8, &count, &set), NRT_RESOURCE);
		assert_false(set);
	}
	assert_int_equal(nrt::rt::num_cores("1", 0, &count, &set), NRT_RESOURCE);
	// one plain decimal number, nothing else
	const char *bad[] = { "x", "-1", "+1", " 1", "1 ", "1,2", "1-2", "3x", "0x2", "1.0",
			      "99999999999999999999999" };
	for (const char *b : bad)
		assert_int_equal(nrt::rt::num_cores(b, 8, &count, &set), NRT_INVALID);
}

void request_precedence(void **)
{
	using kind = nrt::rt::core_request::kind;
	nrt::rt::core_request q;
	// no variable, or NEURON_RT_NUM_CORES=0: the run nrt_init() reserves
	// is every NeuronCore present, as the SDK's default
	assert_int_equal(nrt::rt::request_cores(nullptr, nullptr, 8, &q), NRT_SUCCESS);
	assert_true(q.how == kind::all);
	assert_int_equal(q.first, 0);
	assert_int_equal(q.count, 8);
	assert_int_equal(nrt::rt::request_cores("", "0", 8, &q), NRT_SUCCESS);
	assert_true(q.how == kind::all);
	assert_int_equal(q.first, 0);
	assert_int_equal(q.count, 8);
	q.first = 5;	// a stale request is reset
	assert_int_equal(nrt::rt::request_cores(nullptr, "", 3, &q), NRT_SUCCESS);
	assert_true(q.how == kind::all);
	assert_int_equal(q.first, 0);
	assert_int_equal(q.count, 3);
	assert_int_equal(nrt::rt::request_cores(nullptr, "3", 8, &q), NRT_SUCCESS);
	assert_true(q.how == kind::number);
	assert_int_equal(q.count, 3);
	assert_int_equal(nrt::rt::request_cores("", "3", 8, &q), NRT_SUCCESS);
	assert_true(q.how == kind::number);
	// NEURON_RT_VISIBLE_CORES takes precedence: NEURON_RT_NUM_CORES is not read
	for (const char *num : { "3", "9", "x", "" }) {
		assert_int_equal(nrt::rt::request_cores("5-6", num, 8, &q), NRT_SUCCESS);
		assert_true(q.how == kind::named);
		assert_int_equal(q.first, 5);
		assert_int_equal(q.count, 2);
	}
	// each variable's own errors
	assert_int_equal(nrt::rt::request_cores("3,5", "2", 8, &q), NRT_INVALID);
	assert_int_equal(nrt::rt::request_cores(nullptr, "-2", 8, &q), NRT_INVALID);
	assert_int_equal(nrt::rt::request_cores(nullptr, "9", 8, &q), NRT_RESOURCE);
}

void counts_before_init(void **)
{
	// the host has no Neuron device: 0 everywhere, never NRT_UNINITIALIZED
	uint32_t n = 7;
	unsetenv("NEURON_RT_VISIBLE_CORES");
	assert_int_equal(nrt_get_total_nc_count(&n), NRT_SUCCESS);
	uint32_t total = n;
	assert_int_equal(nrt_get_total_vnc_count(&n), NRT_SUCCESS);
	assert_int_equal(n, total);
	assert_int_equal(nrt_get_visible_nc_count(&n), NRT_SUCCESS);
	assert_int_equal(n, total);
	assert_int_equal(nrt_get_visible_vnc_count(&n), NRT_SUCCESS);
	assert_int_equal(n, total);
	assert_int_equal(nrt_get_visible_nc_count(nullptr), NRT_INVALID);
	assert_int_equal(nrt_get_visible_vnc_count(nullptr), NRT_INVALID);
	assert_int_equal(nrt_get_total_vnc_count(nullptr), NRT_INVALID);
	// a malformed variable is the caller's error, before nrt_init() too
	setenv("NEURON_RT_VISIBLE_CORES", "3,5", 1);
	assert_int_equal(nrt_get_visible_nc_count(&n), NRT_INVALID);
	unsetenv("NEURON_RT_VISIBLE_CORES");
	// NEURON_RT_NUM_CORES: its count; malformed, or more than there are
	setenv("NEURON_RT_NUM_CORES", "x", 1);
	assert_int_equal(nrt_get_visible_nc_count(&n), NRT_INVALID);
	setenv("NEURON_RT_NUM_CORES", "0", 1);
	assert_int_equal(nrt_get_visible_nc_count(&n), NRT_SUCCESS);
	assert_int_equal(n, total);
	char more[16];
	snprintf(more, sizeof(more), "%u", total + 1);
	setenv("NEURON_RT_NUM_CORES", more, 1);
	assert_int_equal(nrt_get_visible_vnc_count(&n), NRT_RESOURCE);
	unsetenv("NEURON_RT_NUM_CORES");
}

void guards_before_init(void **)
{
	char neff[1024] = {};
	nrt_model_t *m = reinterpret_cast<nrt_model_t *>(0x11);
	assert_int_equal(nrt_load_collectives(neff, sizeof(neff), -1, -1, 0, 1, &m), NRT_UNINITIALIZED);
	assert_int_equal(nrt_load(neff, sizeof(neff), 0, 2, &m), NRT_UNINITIALIZED);
	uint32_t n = 7;
	assert_int_equal(nrt_get_model_vnc_count(m, &n), NRT_UNINITIALIZED);
	assert_int_equal(n, 7);
	assert_int_equal(nrt_profile_start(m, "p.ntff"), NRT_UNINITIALIZED);
	assert_int_equal(nrt_profile_stop(nullptr), NRT_INVALID);
	assert_int_equal(nrt_profile_stop(""), NRT_INVALID);
	assert_int_equal(nrt_profile_stop("p.ntff"), NRT_INVALID);	// never started
}

void empty_and_attached(void **)
{
	nrt_tensor_t *t = nullptr;
	assert_int_equal(nrt_tensor_allocate_empty("e", nullptr), NRT_INVALID);
	assert_int_equal(nrt_tensor_allocate_empty(nullptr, &t), NRT_SUCCESS);
	assert_non_null(t);
	uint8_t b = 0;
	assert_int_equal(nrt_tensor_get_size(t), 0);
	assert_null(nrt_tensor_get_va(t));
	assert_int_equal(nrt_tensor_read(t, &b, 0, 1), NRT_INVALID);
	assert_int_equal(nrt_tensor_write(t, &b, 0, 1), NRT_INVALID);
	// no byte asked: nothing to do (not NRT_CLOSED, which is after nrt_close())
	assert_int_equal(nrt_tensor_read(t, &b, 0, 0), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_write(t, &b, 0, 0), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_memset(t, 0, 0, 0), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_copy(t, 0, t, 0, 0), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_memset(t, 0, 0, 1), NRT_INVALID);

	uint32_t buf[4] = { 1, 2, 3, 4 };
	assert_int_equal(nrt_tensor_attach_buffer(t, nullptr, 16), NRT_INVALID);
	assert_int_equal(nrt_tensor_attach_buffer(t, buf, 0), NRT_INVALID);
	assert_int_equal(nrt_tensor_attach_buffer(nullptr, buf, 16), NRT_INVALID_HANDLE);
	assert_int_equal(nrt_tensor_attach_buffer(t, buf, sizeof(buf)), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_get_size(t), sizeof(buf));
	assert_ptr_equal(nrt_tensor_get_va(t), buf);
	// the tensor is the caller's buffer, both ways
	uint32_t w = 0xabcd;
	assert_int_equal(nrt_tensor_write(t, &w, 4, 4), NRT_SUCCESS);
	assert_int_equal(buf[1], 0xabcd);
	buf[2] = 77;
	assert_int_equal(nrt_tensor_read(t, &w, 8, 4), NRT_SUCCESS);
	assert_int_equal(w, 77);
	assert_int_equal(nrt_tensor_memset(t, 0, 0, sizeof(buf)), NRT_SUCCESS);
	assert_int_equal(buf[0] | buf[1] | buf[2] | buf[3], 0);
	assert_int_equal(nrt_tensor_read(t, &w, 16, 1), NRT_INVALID);	// past the buffer

	// attaching to an allocated host tensor replaces (and frees) its memory
	nrt_tensor_t *h = nullptr;
	std::shared_ptr<nrt::tensor::tensor> ht;
	assert_int_equal(nrt::tensor::allocate_host(64, "h", &ht), NRT_SUCCESS);
	h = reinterpret_cast<nrt_tensor_t *>(nrt::tensor::tensors().issue(ht));
	ht.reset();
	uint8_t small[2] = { 5, 6 };
	assert_int_equal(nrt_tensor_attach_buffer(h, small, 2), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_get_size(h), 2);
	assert_ptr_equal(nrt_tensor_get_va(h), small);
	nrt_tensor_free(&h);
	nrt_tensor_free(&t);
	assert_null(t);
	assert_int_equal(buf[0], 0);	// freeing never touches the caller's buffer
	assert_null(nrt_tensor_get_va(nullptr));
}

void slices(void **)
{
	std::shared_ptr<nrt::tensor::tensor> pt;
	assert_int_equal(nrt::tensor::allocate_host(32, "p", &pt), NRT_SUCCESS);
	auto *p = reinterpret_cast<nrt_tensor_t *>(nrt::tensor::tensors().issue(pt));
	pt.reset();
	nrt_tensor_t *s = nullptr;
	assert_int_equal(nrt_tensor_allocate_slice(p, 8, 16, "s", nullptr), NRT_INVALID);
	assert_int_equal(nrt_tensor_allocate_slice(nullptr, 8, 16, "s", &s), NRT_INVALID_HANDLE);
	assert_int_equal(nrt_tensor_allocate_slice(p, 8, 0, "s", &s), NRT_INVALID);
	assert_int_equal(nrt_tensor_allocate_slice(p, 8, 25, "s", &s), NRT_INVALID);
	assert_int_equal(nrt_tensor_allocate_slice(p, 33, 1, "s", &s), NRT_INVALID);
	assert_int_equal(nrt_tensor_allocate_slice(p, SIZE_MAX, 2, "s", &s), NRT_INVALID);
	assert_null(s);
	assert_int_equal(nrt_tensor_allocate_slice(p, 8, 16, "s", &s), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_get_size(s), 16);
	assert_ptr_equal(nrt_tensor_get_va(s), static_cast<uint8_t *>(nrt_tensor_get_va(p)) + 8);
	// one memory: a write through either is seen through the other
	uint8_t v = 0x5a, r = 0;
	assert_int_equal(nrt_tensor_write(s, &v, 0, 1), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_read(p, &r, 8, 1), NRT_SUCCESS);
	assert_int_equal(r, 0x5a);
	assert_int_equal(nrt_tensor_memset(p, 0, 0x11, 32), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_read(s, &r, 15, 1), NRT_SUCCESS);
	assert_int_equal(r, 0x11);
	assert_int_equal(nrt_tensor_read(s, &r, 16, 1), NRT_INVALID);	// the slice's own bounds
	// a slice of a slice, and copies between overlapping slices
	nrt_tensor_t *ss = nullptr;
	assert_int_equal(nrt_tensor_allocate_slice(s, 4, 4, nullptr, &ss), NRT_SUCCESS);
	assert_ptr_equal(nrt_tensor_get_va(ss), static_cast<uint8_t *>(nrt_tensor_get_va(p)) + 12);
	uint8_t seq[32];
	for (int i = 0; i < 32; i++)
		seq[i] = static_cast<uint8_t>(i);
	assert_int_equal(nrt_tensor_write(p, seq, 0, 32), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_copy(s, 0, p, 10, 16), NRT_SUCCESS);	// overlapping: memmove
	uint8_t got[32];
	assert_int_equal(nrt_tensor_read(p, got, 0, 32), NRT_SUCCESS);
	for (int i = 0; i < 16; i++)
		assert_int_equal(got[10 + i], 8 + i);
	// the memory outlives the source's handle
	nrt_tensor_free(&p);
	assert_int_equal(nrt_tensor_read(ss, &r, 0, 1), NRT_SUCCESS);
	assert_int_equal(r, got[12]);
	nrt_tensor_free(&ss);
	nrt_tensor_free(&s);

	// a slice of an attached buffer is the caller's memory too
	uint8_t buf[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	nrt_tensor_t *e = nullptr, *es = nullptr;
	assert_int_equal(nrt_tensor_allocate_empty("e", &e), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_allocate_slice(e, 0, 1, nullptr, &es), NRT_INVALID);	// nothing to slice
	assert_int_equal(nrt_tensor_attach_buffer(e, buf, sizeof(buf)), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_allocate_slice(e, 6, 2, nullptr, &es), NRT_SUCCESS);
	assert_ptr_equal(nrt_tensor_get_va(es), buf + 6);
	nrt_tensor_free(&e);
	nrt_tensor_free(&es);
}

void tensor_and_model_info(void **)
{
	auto m = std::make_shared<nrt::model::model>();
	m->vnc_first = 3;
	m->nc_count = 2;
	m->desc.inputs = { { "in", 64 }, { "weights", 4096 } };
	m->desc.outputs = { { "out", 128 } };
	auto *h = reinterpret_cast<nrt_model_t *>(nrt::model::models().issue(m));
	assert_non_null(h);

	nrt_tensor_info_array_t *a = nullptr;
	assert_int_equal(nrt_get_model_tensor_info(h, nullptr), NRT_INVALID);
	assert_int_equal(nrt_get_model_tensor_info(nullptr, &a), NRT_INVALID_HANDLE);
	assert_int_equal(nrt_get_model_tensor_info(h, &a), NRT_SUCCESS);
	assert_non_null(a);
	assert_int_equal(a->tensor_count, 3);
	const char *names[] = { "in", "weights", "out" };
	size_t sizes[] = { 64, 4096, 128 };
	for (int i = 0; i < 3; i++) {
		const nrt_tensor_info_t &ti = a->tensor_array[i];
		assert_string_equal(ti.name, names[i]);
		assert_int_equal(ti.size, sizes[i]);
		assert_int_equal(ti.usage, i < 2 ? NRT_TENSOR_USAGE_INPUT : NRT_TENSOR_USAGE_OUTPUT);
		assert_int_equal(ti.dtype, NRT_DTYPE_UNKNOWN);
		assert_int_equal(ti.ndim, 1);
		assert_int_equal(ti.shape[0], sizes[i]);
	}
	assert_int_equal(nrt_free_model_tensor_info(a), NRT_SUCCESS);
	assert_int_equal(nrt_free_model_tensor_info(nullptr), NRT_SUCCESS);

	nrt_model_info_t info{ 99 };
	size_t out = 0;
	assert_int_equal(nrt_get_model_info(h, &info, sizeof(info), &out), NRT_SUCCESS);
	assert_int_equal(info.vnc, 3);
	assert_int_equal(out, sizeof(info));
	// a caller built against a longer struct gets what this library knows
	struct {
		nrt_model_info_t base;
		uint32_t later;
	} big{ { 0 }, 0x77 };
	assert_int_equal(nrt_get_model_info(h, &big.base, sizeof(big), &out), NRT_SUCCESS);
	assert_int_equal(out, sizeof(nrt_model_info_t));
	assert_int_equal(big.later, 0x77);
	assert_int_equal(nrt_get_model_info(h, &info, 2, &out), NRT_INVALID);
	assert_int_equal(nrt_get_model_info(h, nullptr, sizeof(info), &out), NRT_INVALID);
	assert_int_equal(nrt_get_model_info(h, &info, sizeof(info), nullptr), NRT_INVALID);
	assert_int_equal(nrt_get_model_info(nullptr, &info, sizeof(info), &out), NRT_INVALID_HANDLE);
	nrt::model::models().take(h);
	assert_int_equal(nrt_get_model_tensor_info(h, &a), NRT_INVALID_HANDLE);
}

// A host tensor of @size bytes straight into the handle table.
nrt_tensor_t *host_tensor(size_t size)
{
	std::shared_ptr<nrt::tensor::tensor> t;
	assert_int_equal(nrt::tensor::allocate_host(size, "h", &t), NRT_SUCCESS);
	return reinterpret_cast<nrt_tensor_t *>(nrt::tensor::tensors().issue(t));
}

void batches(void **)
{
	nrt_tensor_t *a = host_tensor(64), *b = host_tensor(32);
	uint8_t seq[64];
	for (int i = 0; i < 64; i++)
		seq[i] = static_cast<uint8_t>(0x40 + i);
	uint8_t w0[8], w1[4], w2[16];
	std::memset(w0, 0xa1, sizeof(w0));
	std::memset(w1, 0xb2, sizeof(w1));
	std::memset(w2, 0xc3, sizeof(w2));
	nrt_tensor_batch_op_t aops[] = { { 0, 8, w0 }, { 60, 4, w1 } };
	nrt_tensor_batch_op_t bops[] = { { 16, 16, w2 } };
	nrt_tensor_batch_t wb[] = { { a, aops, 2 }, { b, bops, 1 } };
	assert_int_equal(nrt_tensor_write(a, seq, 0, 64), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_write_batch(wb, 2, false), NRT_SUCCESS);
	// each op landed at its offset, nothing else moved
	uint8_t got[64];
	assert_int_equal(nrt_tensor_read(a, got, 0, 64), NRT_SUCCESS);
	for (int i = 0; i < 64; i++)
		assert_int_equal(got[i], i < 8 ? 0xa1 : i >= 60 ? 0xb2 : 0x40 + i);
	assert_int_equal(nrt_tensor_read(b, got, 0, 32), NRT_SUCCESS);
	for (int i = 0; i < 32; i++)
		assert_int_equal(got[i], i < 16 ? 0 : 0xc3);

	// reads: the same bytes single reads give, into each op's buffer
	uint8_t r0[3], r1[5], r2[2];
	nrt_tensor_batch_op_t rops_a[] = { { 6, 3, r0 }, { 58, 5, r1 } };
	nrt_tensor_batch_op_t rops_b[] = { { 15, 2, r2 } };
	nrt_tensor_batch_t rb[] = { { a, rops_a, 2 }, { b, rops_b, 1 } };
	assert_int_equal(nrt_tensor_read_batch(rb, 2, true), NRT_SUCCESS);
	const uint8_t want0[] = { 0xa1, 0xa1, 0x48 }, want1[] = { 0x7a, 0x7b, 0xb2, 0xb2, 0xb2 },
		      want2[] = { 0, 0xc3 };
	assert_memory_equal(r0, want0, 3);
	assert_memory_equal(r1, want1, 5);
	assert_memory_equal(r2, want2, 2);

	// nothing to do, and what is refused before any byte moves
	assert_int_equal(nrt_tensor_read_batch(nullptr, 0, false), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_read_batch(nullptr, 1, false), NRT_INVALID);
	nrt_tensor_batch_t none[] = { { a, nullptr, 0 } };
	assert_int_equal(nrt_tensor_write_batch(none, 1, false), NRT_SUCCESS);
	nrt_tensor_batch_t noops[] = { { a, nullptr, 1 } };
	assert_int_equal(nrt_tensor_write_batch(noops, 1, false), NRT_INVALID);
	uint8_t z[8] = {};
	nrt_tensor_batch_op_t good[] = { { 0, 8, z } };
	struct {
		nrt_tensor_batch_op_t op;
		NRT_STATUS want;
	} bad[] = {
		{ { 29, 4, z }, NRT_INVALID },		// past the end
		{ { 33, 0, z }, NRT_INVALID },		// starts past the end
		{ { UINT64_MAX, 2, z }, NRT_INVALID },	// wraps
		{ { 0, UINT64_MAX, z }, NRT_INVALID },
		{ { 0, 4, nullptr }, NRT_INVALID },	// no buffer
	};
	for (const auto &c : bad) {
		nrt_tensor_batch_t two[] = { { a, good, 1 }, { b, &c.op, 1 } };
		assert_int_equal(nrt_tensor_write_batch(two, 2, false), c.want);
		assert_int_equal(nrt_tensor_read(a, got, 0, 8), NRT_SUCCESS);
		assert_memory_equal(got, w0, 8);	// the good first batch did not run
	}
	nrt_tensor_t *gone = host_tensor(8), *freed = gone;
	nrt_tensor_free(&gone);
	nrt_tensor_t *never = reinterpret_cast<nrt_tensor_t *>(0x12);	// never issued
	for (nrt_tensor_t *bad_handle : { freed, never, static_cast<nrt_tensor_t *>(nullptr) }) {
		nrt_tensor_batch_t stale[] = { { a, good, 1 }, { bad_handle, good, 1 } };
		assert_int_equal(nrt_tensor_write_batch(stale, 2, false), NRT_INVALID_HANDLE);
		assert_int_equal(nrt_tensor_read(a, got, 0, 8), NRT_SUCCESS);
		assert_memory_equal(got, w0, 8);
	}
	nrt_tensor_free(&a);
	nrt_tensor_free(&b);
	// the freed handle is refused too
	assert_int_equal(nrt_tensor_read_batch(wb, 1, false), NRT_INVALID_HANDLE);
}

void device_allocation_info(void **)
{
	nrt_tensor_device_allocation_info_t info;
	nrt_tensor_t *h = host_tensor(16);
	assert_int_equal(nrt_tensor_get_device_allocation_info(h, &info), NRT_INVALID);	// host memory
	nrt_tensor_free(&h);
	assert_int_equal(nrt_tensor_get_device_allocation_info(h, &info), NRT_INVALID_HANDLE);
	nrt_tensor_t *e = nullptr;
	assert_int_equal(nrt_tensor_allocate_empty("e", &e), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_get_device_allocation_info(e, &info), NRT_INVALID);
	nrt_tensor_free(&e);

	// a device tensor over an allocation at device address 0x20000 (no
	// driver: no handle, nothing to free)
	auto mem = std::make_shared<nrt::tensor::device_mem>();
	mem->device_addr = 0x20000;
	mem->bytes = 10000;
	auto t = std::make_shared<nrt::tensor::tensor>();
	t->placement = NRT_TENSOR_PLACEMENT_DEVICE;
	t->size = 10000;
	t->set_dmem(mem);
	auto *d = reinterpret_cast<nrt_tensor_t *>(nrt::tensor::tensors().issue(t));
	assert_int_equal(nrt_tensor_get_device_allocation_info(d, nullptr), NRT_INVALID);
	std::memset(&info, 0xff, sizeof(info));
	assert_int_equal(nrt_tensor_get_device_allocation_info(d, &info), NRT_SUCCESS);
	assert_int_equal(info.physical_address, 0x20000);
	assert_int_equal(info.size, 10000);
	assert_int_equal(info.hbm_index, 0);
	// a slice: its first byte, and the allocation's bytes from there
	nrt_tensor_t *s = nullptr;
	assert_int_equal(nrt_tensor_allocate_slice(d, 4096, 100, "s", &s), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_get_device_allocation_info(s, &info), NRT_SUCCESS);
	assert_int_equal(info.physical_address, 0x20000 + 4096);
	assert_int_equal(info.size, 10000 - 4096);
	// memory released (as nrt_close() releases it)
	t->set_dmem(nullptr);
	mem.reset();
	assert_int_equal(nrt_tensor_get_device_allocation_info(d, &info), NRT_CLOSED);
	assert_int_equal(nrt_tensor_get_device_allocation_info(s, &info), NRT_SUCCESS);	// the slice holds its own
	nrt_tensor_free(&s);
	nrt_tensor_free(&d);
}

void instance_info(void **)
{
	using nrt::machine::decide;
	struct {
		const char *dmi, *inst, *arch;
		uint32_t family, size;
		const char *name, *rev;
	} cases[] = {
		// the simulated device models a Trainium2; QEMU's DMI names no size
		{ "Standard PC (i440FX + PIIX, 1996)", "sim\n", "NDsim\n", NRT_INSTANCE_TRN2,
		  NRT_INSTANCE_SIZE_UNKNOWN, "trn2", "NDsim" },
		{ "", "Trn1", "NDv2", NRT_INSTANCE_TRN1, NRT_INSTANCE_SIZE_UNKNOWN, "trn1", "NDv2" },
		// the instance type refines the family and gives the size
		{ "trn1n.32xlarge\n", "Trn1", "NDv2", NRT_INSTANCE_TRN1N, NRT_INSTANCE_SIZE_32XL, "trn1", "NDv2" },
		{ "trn1.2xlarge", "Trn1", "NDv2", NRT_INSTANCE_TRN1, NRT_INSTANCE_SIZE_2XL, "trn1", "NDv2" },
		{ "inf2.xlarge", "Inf2", "NDv2", NRT_INSTANCE_INF2, NRT_INSTANCE_SIZE_1XL, "inf2", "NDv2" },
		{ "inf2.48xlarge", "Inf2", "NDv2", NRT_INSTANCE_INF2, NRT_INSTANCE_SIZE_48XL, "inf2", "NDv2" },
		{ "trn2.3xlarge", "sim", "NDsim", NRT_INSTANCE_TRN2, NRT_INSTANCE_SIZE_3XL, "trn2", "NDsim" },
		{ "trn2u.48xlarge", "Trn2", "NDv3", NRT_INSTANCE_TRN2U, NRT_INSTANCE_SIZE_48XL, "trn2", "NDv3" },
		{ "trn3pds98.48xlarge", "Trn3", "NDv4", NRT_INSTANCE_TRN3PDS98, NRT_INSTANCE_SIZE_48XL, "trn3", "NDv4" },
		// another family's instance type is not believed over the devices
		{ "trn1.32xlarge", "sim", "NDsim", NRT_INSTANCE_TRN2, NRT_INSTANCE_SIZE_UNKNOWN, "trn2", "NDsim" },
		// no device: the instance type alone
		{ "inf1.6xlarge", "", "", NRT_INSTANCE_INF1, NRT_INSTANCE_SIZE_6XL, "inf1", "" },
		{ "c5.xlarge", "", "", NRT_INSTANCE_UNKNOWN, NRT_INSTANCE_SIZE_UNKNOWN, "", "" },
		{ "trn2.huge", "", "", NRT_INSTANCE_UNKNOWN, NRT_INSTANCE_SIZE_UNKNOWN, "", "" },
		{ "trn2", "", "", NRT_INSTANCE_UNKNOWN, NRT_INSTANCE_SIZE_UNKNOWN, "", "" },
		{ "", "Trn9", "NDv9-with-a-long-name", NRT_INSTANCE_UNKNOWN, NRT_INSTANCE_SIZE_UNKNOWN, "", "NDv9-wi" },
	};
	for (const auto &c : cases) {
		nrt_instance_info_t i = decide(c.dmi, c.inst, c.arch);
		assert_int_equal(i.family, c.family);
		assert_int_equal(i.size, c.size);
		assert_string_equal(i.arch_name, c.name);
		assert_string_equal(i.device_revision, c.rev);
	}

	// the call: NULL or a length without family and size refused; a
	// caller built against the SDK's older 8-byte struct keeps the rest
	assert_int_equal(nrt_get_instance_info(nullptr, sizeof(nrt_instance_info_t)), NRT_INVALID);
	struct {
		nrt_instance_info_t info;
		uint32_t after;
	} big;
	std::memset(&big, 0x5c, sizeof(big));
	assert_int_equal(nrt_get_instance_info(&big.info, 7), NRT_INVALID);
	assert_int_equal(big.info.family, 0x5c5c5c5c);
	assert_int_equal(nrt_get_instance_info(&big.info, 8), NRT_SUCCESS);
	assert_true(big.info.family <= NRT_INSTANCE_TRN3PDS98);
	assert_true(big.info.size <= NRT_INSTANCE_SIZE_UNKNOWN);
	assert_int_equal(static_cast<uint8_t>(big.info.arch_name[0]), 0x5c);	// past 8 bytes: untouched
	assert_int_equal(nrt_get_instance_info(&big.info, sizeof(big)), NRT_SUCCESS);
	assert_int_equal(big.after, 0x5c5c5c5c);
	assert_non_null(std::memchr(big.info.arch_name, 0, sizeof(big.info.arch_name)));
	assert_non_null(std::memchr(big.info.device_revision, 0, sizeof(big.info.device_revision)));
}

void stats_and_instance_count(void **)
{
	uint64_t v = 7;
	assert_true(nrt::machine::parse_count("123456789\n", &v));
	assert_int_equal(v, 123456789);
	assert_true(nrt::machine::parse_count("18446744073709551615", &v));
	assert_true(v == UINT64_MAX);
	assert_false(nrt::machine::parse_count("18446744073709551616", &v));
	assert_false(nrt::machine::parse_count("", &v));
	assert_false(nrt::machine::parse_count("-1", &v));
	assert_false(nrt::machine::parse_count("12k", &v));

	// the memory stats need the runtime
	nrt_vnc_memory_stats_t st;
	size_t out = 0;
	assert_int_equal(nrt_get_vnc_memory_stats(0, &st, sizeof(st), &out), NRT_UNINITIALIZED);

	auto m = std::make_shared<nrt::model::model>();
	m->nc_count = 2;
	auto *h = reinterpret_cast<nrt_model_t *>(nrt::model::models().issue(m));
	uint32_t n = 0;
	assert_int_equal(nrt_get_model_instance_count(h, &n), NRT_SUCCESS);
	assert_int_equal(n, 1);
	assert_int_equal(nrt_get_model_instance_count(h, nullptr), NRT_INVALID);
	assert_int_equal(nrt_get_model_instance_count(nullptr, &n), NRT_INVALID_HANDLE);
	nrt::model::models().take(h);
	n = 5;
	assert_int_equal(nrt_get_model_instance_count(h, &n), NRT_INVALID_HANDLE);
	assert_int_equal(n, 5);
}

// An 8-byte aligned slab in memory for nds_open_memory.
struct slab {
	std::vector<uint64_t> words = std::vector<uint64_t>(NEURON_NDS_SIZE / 8);
	uint8_t *bytes() { return reinterpret_cast<uint8_t *>(words.data()); }
};

uint32_t word32(const uint8_t *p)
{
	uint32_t v;
	std::memcpy(&v, p, 4);
	return v;
}

void nds_process_objects(void **)
{
	slab mem;
	nds_instance_t *w = nullptr, *r = nullptr;
	assert_int_equal(nds_open_memory(mem.bytes(), 4, true, &w), 0);
	assert_int_equal(nds_open_memory(mem.bytes(), 4, false, &r), 0);

	// nothing published yet
	assert_null(nds_read_process_info(r));
	assert_null(nds_read_process_info_ext(r));
	assert_null(nds_read_process_info(nullptr));
	assert_null(nds_obj_new(nullptr, OBJECT_TYPE_PROCESS_INFO));
	assert_null(nds_obj_new(w, 3));
	assert_null(nds_obj_new(w, -1));

	nds_obj_handle_t p = nds_obj_new(w, OBJECT_TYPE_PROCESS_INFO);
	assert_non_null(p);
	assert_null(nds_obj_handle_to_model_node_info(p));	// another type's accessor
	assert_null(nds_obj_handle_to_process_info_ext(p));
	nds_process_info_t *pi = nds_obj_handle_to_process_info(p);
	assert_non_null(pi);
	pi->framework_type = NRT_FRAMEWORK_TYPE_PYTORCH;
	std::strcpy(pi->tag, "training-job-7");
	pi->framework_version = { 2, 1, 0 };
	pi->fal_version = { 1, 13, 5 };
	pi->runtime_version = { 0, 1, 4000000000u };
	// the record is written only by commit
	assert_null(nds_read_process_info(r));
	assert_int_equal(nds_obj_commit(p), 0);
	assert_int_equal(word32(mem.bytes() + NDS_OBJ_OFF), NDS_OBJ_MAGIC);
	assert_int_equal(word32(mem.bytes() + NDS_OBJ_OFF + 4), NDS_OBJ_MODEL_SLOTS);
	// the record's fields at the offsets <nrt/nds/neuron_ds.h> gives
	const uint8_t *rec = mem.bytes() + NDS_OBJ_PROCESS_OFF;
	assert_int_equal(word32(rec) & 1, 0);
	assert_int_equal(word32(rec + 4), 1);
	assert_int_equal(rec[8], NRT_FRAMEWORK_TYPE_PYTORCH);
	assert_string_equal(reinterpret_cast<const char *>(rec + 9), "training-job-7");
	assert_int_equal(rec[44], 2);
	assert_int_equal(rec[45], 1);
	assert_int_equal(rec[52], 1);
	assert_int_equal(rec[53], 13);
	assert_int_equal(word32(rec + 56), 5);
	assert_int_equal(word32(rec + 64), 4000000000u);

	// a reader's copy, through a read-only instance
	nds_obj_handle_t got = nds_read_process_info(r);
	assert_non_null(got);
	const nds_process_info_t *g = nds_obj_handle_to_process_info(got);
	assert_non_null(g);
	assert_int_equal(g->framework_type, NRT_FRAMEWORK_TYPE_PYTORCH);
	assert_string_equal(g->tag, "training-job-7");
	assert_int_equal(g->framework_version.major, 2);
	assert_int_equal(g->framework_version.minor, 1);
	assert_int_equal(g->framework_version.build, 0);
	assert_int_equal(g->fal_version.minor, 13);
	assert_int_equal(g->fal_version.build, 5);
	assert_int_equal(g->runtime_version.build, 4000000000u);
	// a copy: it does not follow later commits, and its owner cannot
	// write through a read-only instance
	pi->framework_type = NRT_FRAMEWORK_TYPE_TENSORFLOW;
	assert_int_equal(nds_obj_commit(p), 0);
	assert_int_equal(g->framework_type, NRT_FRAMEWORK_TYPE_PYTORCH);
	assert_int_equal(nds_obj_commit(got), -EPERM);
	nds_obj_handle_t ro = nds_obj_new(r, OBJECT_TYPE_PROCESS_INFO);
	assert_int_equal(nds_obj_commit(ro), -EPERM);
	assert_int_equal(nds_obj_delete(ro), 0);
	// deleting a reader's copy removes nothing
	assert_int_equal(nds_obj_delete(got), 0);
	assert_int_equal(nds_obj_delete(got), -EINVAL);	// freed
	assert_null(nds_obj_handle_to_process_info(got));
	got = nds_read_process_info(r);
	assert_non_null(got);
	assert_int_equal(nds_obj_handle_to_process_info(got)->framework_type, NRT_FRAMEWORK_TYPE_TENSORFLOW);
	assert_int_equal(nds_obj_delete(got), 0);

	// the extended info is the process tag
	nds_obj_handle_t x = nds_obj_new(w, OBJECT_TYPE_PROCESS_INFO_EXT);
	nds_process_info_ext_t *xi = nds_obj_handle_to_process_info_ext(x);
	assert_non_null(xi);
	std::memset(xi->tag, 'q', sizeof(xi->tag));	// no NUL: cut at 255
	assert_int_equal(nds_obj_commit(x), 0);
	char tag[300];
	assert_int_equal(nds_get_process_tag(r, tag, sizeof(tag)), NDS_PROCESS_TAG_MAX);
	nds_obj_handle_t xg = nds_read_process_info_ext(r);
	assert_non_null(xg);
	assert_int_equal(std::strlen(nds_obj_handle_to_process_info_ext(xg)->tag), 255);
	assert_int_equal(nds_obj_delete(xg), 0);
	assert_int_equal(nds_set_process_tag(w, "short"), 0);
	xg = nds_read_process_info_ext(r);
	assert_string_equal(nds_obj_handle_to_process_info_ext(xg)->tag, "short");
	assert_int_equal(nds_obj_delete(xg), 0);

	// deleting the owner's objects takes them out of the slab
	assert_int_equal(nds_obj_delete(p), 0);
	assert_null(nds_read_process_info(r));
	assert_int_equal(nds_obj_delete(x), 0);
	assert_null(nds_read_process_info_ext(r));

	// not objects
	int local = 0;
	assert_int_equal(nds_obj_commit(nullptr), -EINVAL);
	assert_int_equal(nds_obj_commit(&local), -EINVAL);
	assert_int_equal(nds_obj_delete(nullptr), -EINVAL);
	assert_int_equal(nds_obj_delete(&local), -EINVAL);
	assert_null(nds_obj_handle_to_process_info(&local));
	assert_null(nds_obj_handle_to_model_node_mem_usage(nullptr));

	// a deleted handle stays refused when new objects take its memory:
	// the new ones are not reached through it
	nds_obj_handle_t gone = nds_obj_new(w, OBJECT_TYPE_PROCESS_INFO);
	assert_non_null(gone);
	assert_int_equal(nds_obj_delete(gone), 0);
	nds_obj_handle_t fresh[8];
	for (auto &f : fresh) {
		f = nds_obj_new(w, OBJECT_TYPE_PROCESS_INFO);
		assert_non_null(f);
		assert_true(f != gone);
	}
	assert_int_equal(nds_obj_delete(gone), -EINVAL);
	assert_null(nds_obj_handle_to_process_info(gone));
	for (auto &f : fresh) {
		assert_non_null(nds_obj_handle_to_process_info(f));
		assert_int_equal(nds_obj_delete(f), 0);
	}

	// an object outliving its instance: commit refused, delete frees it
	nds_obj_handle_t late = nds_obj_new(w, OBJECT_TYPE_PROCESS_INFO);
	assert_int_equal(nds_close(w), 0);
	assert_int_equal(nds_obj_commit(late), -ENODEV);
	assert_int_equal(nds_obj_delete(late), 0);
	assert_int_equal(nds_close(r), 0);
}

void nds_model_nodes(void **)
{
	slab mem;
	nds_instance_t *w = nullptr, *r = nullptr;
	assert_int_equal(nds_open_memory(mem.bytes(), 4, true, &w), 0);
	assert_int_equal(nds_open_memory(mem.bytes(), 4, false, &r), 0);
	nds_obj_handle_t *all = reinterpret_cast<nds_obj_handle_t *>(0x1);
	size_t count = 9;
	assert_int_equal(nds_read_all_model_nodes(r, &all, &count), 0);
	assert_null(all);
	assert_int_equal(count, 0);
	assert_int_equal(nds_read_all_model_nodes(nullptr, &all, &count), -EINVAL);
	assert_int_equal(nds_read_all_model_nodes(r, nullptr, &count), -EINVAL);
	assert_int_equal(nds_read_all_model_nodes(r, &all, nullptr), -EINVAL);

	// every record taken, then one too many
	std::vector<nds_obj_handle_t> mine;
	for (uint32_t i = 0; i < NDS_OBJ_MODEL_SLOTS; i++) {
		nds_obj_handle_t h = nds_obj_new(w, OBJECT_TYPE_MODEL_NODE_INFO);
		nds_model_node_info_t *n = nds_obj_handle_to_model_node_info(h);
		nds_model_node_mem_usage_info_t *u = nds_obj_handle_to_model_node_mem_usage(h);
		assert_non_null(n);
		assert_non_null(u);
		n->model_id = 100 + i;
		n->model_node_id = i % 3;
		std::snprintf(n->name, sizeof(n->name), "model-%u", i);
		for (int k = 0; k < 16; k++)
			n->uuid[k] = static_cast<char>(i * 16 + k);
		n->nc_index = static_cast<uint8_t>(i % 4);
		n->sg_index = static_cast<uint8_t>(i % 2);
		u->model_mem_usage[1][NDS_DMA_MEM_USAGE_SLOT_TENSORS] = { (size_t{1} << 40) + i, i + 1 };
		u->model_mem_usage[0][NDS_DMA_MEM_USAGE_SLOT_COUNT - 1] = { 7, 1 };
		assert_int_equal(nds_obj_commit(h), 0);
		mine.push_back(h);
	}
	nds_obj_handle_t extra = nds_obj_new(w, OBJECT_TYPE_MODEL_NODE_INFO);
	assert_int_equal(nds_obj_commit(extra), -ENOSPC);
	// the first record's fields where the header says
	const uint8_t *rec = mem.bytes() + NDS_OBJ_MODEL_OFF;
	assert_int_equal(word32(rec + 8), 100);
	assert_string_equal(reinterpret_cast<const char *>(rec + 16), "model-0");
	assert_int_equal(rec[272 + 15], 15);
	uint64_t total;
	std::memcpy(&total, rec + 296 + 16 * (NDS_DMA_MEM_USAGE_SLOT_COUNT + NDS_DMA_MEM_USAGE_SLOT_TENSORS), 8);
	assert_true(total == (uint64_t{1} << 40));

	assert_int_equal(nds_read_all_model_nodes(r, &all, &count), 0);
	assert_int_equal(count, NDS_OBJ_MODEL_SLOTS);
	for (size_t i = 0; i < count; i++) {
		const nds_model_node_info_t *n = nds_obj_handle_to_model_node_info(all[i]);
		const nds_model_node_mem_usage_info_t *u = nds_obj_handle_to_model_node_mem_usage(all[i]);
		assert_non_null(n);
		assert_null(nds_obj_handle_to_process_info(all[i]));
		uint32_t k = n->model_id - 100;
		assert_int_equal(k, i);	// records in order, first free first
		char name[32];
		std::snprintf(name, sizeof(name), "model-%u", k);
		assert_string_equal(n->name, name);
		assert_int_equal(n->model_node_id, k % 3);
		assert_int_equal(static_cast<uint8_t>(n->uuid[5]), static_cast<uint8_t>(k * 16 + 5));
		assert_int_equal(n->nc_index, k % 4);
		assert_int_equal(n->sg_index, k % 2);
		assert_true(u->model_mem_usage[1][NDS_DMA_MEM_USAGE_SLOT_TENSORS].total_size ==
			    (size_t{1} << 40) + k);
		assert_int_equal(u->model_mem_usage[1][NDS_DMA_MEM_USAGE_SLOT_TENSORS].chunk_count, k + 1);
		assert_int_equal(u->model_mem_usage[0][NDS_DMA_MEM_USAGE_SLOT_COUNT - 1].total_size, 7);
		assert_int_equal(u->model_mem_usage[0][0].total_size, 0);
	}
	for (size_t i = 0; i < count; i++)
		assert_int_equal(nds_obj_delete(all[i]), 0);	// copies: nothing withdrawn
	std::free(all);

	// withdrawing two frees their records; the next commit takes the first
	assert_int_equal(nds_obj_delete(mine[3]), 0);
	assert_int_equal(nds_obj_delete(mine[40]), 0);
	assert_int_equal(nds_read_all_model_nodes(r, &all, &count), 0);
	assert_int_equal(count, NDS_OBJ_MODEL_SLOTS - 2);
	for (size_t i = 0; i < count; i++) {
		uint32_t id = nds_obj_handle_to_model_node_info(all[i])->model_id;
		assert_true(id != 103 && id != 140);
		nds_obj_delete(all[i]);
	}
	std::free(all);
	nds_obj_handle_to_model_node_info(extra)->model_id = 999;
	assert_int_equal(nds_obj_commit(extra), 0);
	assert_int_equal(word32(mem.bytes() + NDS_OBJ_MODEL_OFF + 3 * NDS_OBJ_MODEL_SIZE + 8), 999);
	// a commit again rewrites its own record
	nds_obj_handle_to_model_node_info(extra)->model_id = 998;
	assert_int_equal(nds_obj_commit(extra), 0);
	assert_int_equal(word32(mem.bytes() + NDS_OBJ_MODEL_OFF + 3 * NDS_OBJ_MODEL_SIZE + 8), 998);
	assert_int_equal(word32(mem.bytes() + NDS_OBJ_MODEL_OFF + 40 * NDS_OBJ_MODEL_SIZE + 4), 0);

	// a record left mid-write (its writer died in a commit): the reader
	// gives up after its retries instead of hanging or copying torn data
	uint8_t *stuck = mem.bytes() + NDS_OBJ_MODEL_OFF + 7 * NDS_OBJ_MODEL_SIZE;
	uint32_t seq = word32(stuck);
	uint32_t odd = seq | 1;
	std::memcpy(stuck, &odd, 4);
	all = nullptr;
	assert_int_equal(nds_read_all_model_nodes(r, &all, &count), -EAGAIN);
	assert_null(all);
	assert_int_equal(count, 0);
	std::memcpy(stuck, &seq, 4);

	for (nds_obj_handle_t h : mine)
		if (h != mine[3] && h != mine[40])
			assert_int_equal(nds_obj_delete(h), 0);
	assert_int_equal(nds_obj_delete(extra), 0);
	assert_int_equal(nds_read_all_model_nodes(r, &all, &count), 0);
	assert_int_equal(count, 0);
	assert_int_equal(nds_close(w), 0);
	assert_int_equal(nds_close(r), 0);
}

} // namespace

int main()
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(version_strings),
		cmocka_unit_test(visible_parse),
		cmocka_unit_test(num_cores_parse),
		cmocka_unit_test(request_precedence),
		cmocka_unit_test(counts_before_init),
		cmocka_unit_test(guards_before_init),
		cmocka_unit_test(empty_and_attached),
		cmocka_unit_test(slices),
		cmocka_unit_test(tensor_and_model_info),
		cmocka_unit_test(batches),
		cmocka_unit_test(device_allocation_info),
		cmocka_unit_test(instance_info),
		cmocka_unit_test(stats_and_instance_count),
		cmocka_unit_test(nds_process_objects),
		cmocka_unit_test(nds_model_nodes),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
