// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The SDK calls of docs/sdk-compat.md that need no device, on the host:
// NEURON_RT_VISIBLE_CORES and NEURON_RT_NUM_CORES parsing and precedence,
// the counts before nrt_init(), the load and profile guards, empty /
// attached / slice tensors and their virtual addresses, and model tensor
// info and model info on a model put straight into the handle table
// (loading needs a device: tests/vm/25_app.sh, vm_sdk_dev).
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>
#include <nrt/nrt_profile.h>

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
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
