// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The application API on the host (no device): the lifecycle guard, checked
// handles (NULL, freed, made-up, another kind), tensor sets, and every
// range rule of the tensor calls on host tensors (created through the
// internal allocator, since nrt_tensor_allocate needs nrt_init and a
// device). The device half runs in the guest (tests/vm/25_app.sh).
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include <nrt/nrt.h>

#include "tensor.hpp"

extern "C" {
#include <cmocka.h>
}

namespace {

nrt_tensor_t *host_tensor(size_t size)
{
	std::shared_ptr<nrt::tensor::tensor> t;
	assert_int_equal(nrt::tensor::allocate_host(size, "t", &t), NRT_SUCCESS);
	auto h = nrt::tensor::tensors().issue(t);
	assert_true(h != 0);
	return reinterpret_cast<nrt_tensor_t *>(h);
}

void lifecycle_guard(void **)
{
	nrt_model_t *m = reinterpret_cast<nrt_model_t *>(0x11);
	nrt_tensor_t *t = reinterpret_cast<nrt_tensor_t *>(0x22);
	uint32_t n = 7;
	char neff[1024] = {};
	// before nrt_init(): 13 from every call that needs the runtime
	assert_int_equal(nrt_load(neff, sizeof(neff), -1, -1, &m), NRT_UNINITIALIZED);
	assert_int_equal(nrt_unload(m), NRT_UNINITIALIZED);
	assert_int_equal(nrt_get_model_nc_count(m, &n), NRT_UNINITIALIZED);
	assert_int_equal(nrt_execute(m, nullptr, nullptr), NRT_UNINITIALIZED);
	assert_int_equal(nrt_execute_repeat(m, nullptr, nullptr, 3), NRT_UNINITIALIZED);
	assert_int_equal(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, 16, "x", &t), NRT_UNINITIALIZED);
	assert_int_equal(n, 7);	// nothing written
}

void bad_handles(void **)
{
	const void *bad[] = {
		nullptr,
		reinterpret_cast<void *>(0x1),			// not a tensor kind
		reinterpret_cast<void *>(0x7fff0002),		// tensor kind, never issued
		reinterpret_cast<void *>(uintptr_t{ 0xdeadbeef }),
	};
	uint8_t buf[8] = {};
	for (const void *p : bad) {
		auto *t = const_cast<nrt_tensor_t *>(static_cast<const nrt_tensor_t *>(p));
		assert_int_equal(nrt_tensor_read(t, buf, 0, 1), NRT_INVALID_HANDLE);
		assert_int_equal(nrt_tensor_write(t, buf, 0, 1), NRT_INVALID_HANDLE);
		assert_int_equal(nrt_tensor_memset(t, 0, 0, 1), NRT_INVALID_HANDLE);
		assert_int_equal(nrt_tensor_copy(t, 0, t, 0, 1), NRT_INVALID_HANDLE);
		assert_int_equal(nrt_tensor_get_size(t), 0);
		nrt_tensor_t *copy = t;
		nrt_tensor_free(&copy);	// nothing happens, set to NULL
		assert_null(copy);
		void *s = const_cast<void *>(p);
		nrt_tensor_t *out = nullptr;
		assert_int_equal(nrt_add_tensor_to_tensor_set(s, "a", host_tensor(4)), NRT_INVALID_HANDLE);
		assert_int_equal(nrt_get_tensor_from_tensor_set(s, "a", &out), NRT_INVALID_HANDLE);
	}
	nrt_tensor_free(nullptr);
	nrt_destroy_tensor_set(nullptr);
	// a tensor set handle is not a tensor, and the reverse
	nrt_tensor_set_t *set = nullptr;
	assert_int_equal(nrt_allocate_tensor_set(&set), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_get_size(static_cast<nrt_tensor_t *>(set)), 0);
	assert_int_equal(nrt_tensor_read(static_cast<nrt_tensor_t *>(set), buf, 0, 1), NRT_INVALID_HANDLE);
	nrt_tensor_t *t = host_tensor(4);
	assert_int_equal(nrt_add_tensor_to_tensor_set(t, "a", t), NRT_INVALID_HANDLE);
	nrt_destroy_tensor_set(&set);
	nrt_tensor_free(&t);
	assert_int_equal(nrt_allocate_tensor_set(nullptr), NRT_INVALID);
}

void freed_handles(void **)
{
	nrt_tensor_t *t = host_tensor(16);
	nrt_tensor_t *keep = t;
	uint8_t buf[16];
	assert_int_equal(nrt_tensor_get_size(t), 16);
	nrt_tensor_free(&t);
	assert_null(t);
	assert_int_equal(nrt_tensor_read(keep, buf, 0, 1), NRT_INVALID_HANDLE);
	assert_int_equal(nrt_tensor_get_size(keep), 0);
	nrt_tensor_free(&keep);	// a second free: nothing
	// a new tensor never gets the freed handle back
	nrt_tensor_t *again = host_tensor(16);
	assert_ptr_not_equal(again, keep);
	nrt_tensor_free(&again);

	nrt_tensor_set_t *set = nullptr, *kept;
	assert_int_equal(nrt_allocate_tensor_set(&set), NRT_SUCCESS);
	kept = set;
	nrt_destroy_tensor_set(&set);
	assert_null(set);
	nrt_tensor_t *x = host_tensor(4), *out = nullptr;
	assert_int_equal(nrt_add_tensor_to_tensor_set(kept, "a", x), NRT_INVALID_HANDLE);
	assert_int_equal(nrt_get_tensor_from_tensor_set(kept, "a", &out), NRT_INVALID_HANDLE);
	nrt_tensor_free(&x);
}

void tensor_sets(void **)
{
	nrt_tensor_set_t *set = nullptr;
	assert_int_equal(nrt_allocate_tensor_set(&set), NRT_SUCCESS);
	nrt_tensor_t *a = host_tensor(4), *b = host_tensor(8), *out = nullptr;
	assert_int_equal(nrt_add_tensor_to_tensor_set(set, "in", a), NRT_SUCCESS);
	assert_int_equal(nrt_get_tensor_from_tensor_set(set, "in", &out), NRT_SUCCESS);
	assert_ptr_equal(out, a);
	// replace
	assert_int_equal(nrt_add_tensor_to_tensor_set(set, "in", b), NRT_SUCCESS);
	assert_int_equal(nrt_get_tensor_from_tensor_set(set, "in", &out), NRT_SUCCESS);
	assert_ptr_equal(out, b);
	assert_int_equal(nrt_get_tensor_from_tensor_set(set, "missing", &out), NRT_INVALID);
	assert_null(out);
	assert_int_equal(nrt_add_tensor_to_tensor_set(set, nullptr, a), NRT_INVALID);
	assert_int_equal(nrt_add_tensor_to_tensor_set(set, "", a), NRT_INVALID);
	assert_int_equal(nrt_get_tensor_from_tensor_set(set, nullptr, &out), NRT_INVALID);
	assert_int_equal(nrt_get_tensor_from_tensor_set(set, "in", nullptr), NRT_INVALID);
	// a freed tensor cannot be added
	nrt_tensor_free(&a);
	nrt_tensor_t *gone = out;
	nrt_tensor_free(&gone);
	assert_int_equal(nrt_add_tensor_to_tensor_set(set, "x", out), NRT_INVALID_HANDLE);
	nrt_destroy_tensor_set(&set);
}

void tensor_ranges(void **)
{
	nrt_tensor_t *t = host_tensor(16), *u = host_tensor(8);
	uint8_t in[16], out[16];
	for (int i = 0; i < 16; i++)
		in[i] = static_cast<uint8_t>(i + 1);
	assert_int_equal(nrt_tensor_write(t, in, 0, 16), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_read(t, out, 0, 16), NRT_SUCCESS);
	assert_memory_equal(in, out, 16);
	// offsets and sizes past the end, including wrap-around
	assert_int_equal(nrt_tensor_write(t, in, 1, 16), NRT_INVALID);
	assert_int_equal(nrt_tensor_write(t, in, 17, 0), NRT_INVALID);
	assert_int_equal(nrt_tensor_read(t, out, 16, 1), NRT_INVALID);
	assert_int_equal(nrt_tensor_read(t, out, SIZE_MAX, 2), NRT_INVALID);
	assert_int_equal(nrt_tensor_read(t, out, 8, SIZE_MAX - 4), NRT_INVALID);
	assert_int_equal(nrt_tensor_memset(t, 15, 0, 2), NRT_INVALID);
	assert_int_equal(nrt_tensor_memset(t, UINT64_MAX, 0, 1), NRT_INVALID);
	assert_int_equal(nrt_tensor_copy(t, 0, u, 0, 9), NRT_INVALID);
	assert_int_equal(nrt_tensor_copy(t, 9, u, 0, 8), NRT_INVALID);
	assert_int_equal(nrt_tensor_copy(t, 0, u, 1, 8), NRT_INVALID);
	// NULL buffers
	assert_int_equal(nrt_tensor_read(t, nullptr, 0, 1), NRT_INVALID);
	assert_int_equal(nrt_tensor_write(t, nullptr, 0, 1), NRT_INVALID);
	// nothing changed by the refused calls
	assert_int_equal(nrt_tensor_read(t, out, 0, 16), NRT_SUCCESS);
	assert_memory_equal(in, out, 16);
	// zero-length at the end is fine
	assert_int_equal(nrt_tensor_read(t, out, 16, 0), NRT_SUCCESS);
	// memset, copy, overlapping copy within one tensor
	assert_int_equal(nrt_tensor_memset(t, 4, 0x1ab, 4), NRT_SUCCESS);	// (uint8_t)value
	assert_int_equal(nrt_tensor_read(t, out, 0, 16), NRT_SUCCESS);
	for (int i = 4; i < 8; i++)
		assert_int_equal(out[i], 0xab);
	assert_int_equal(nrt_tensor_copy(t, 8, u, 0, 8), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_read(u, out, 0, 8), NRT_SUCCESS);
	assert_memory_equal(out, in + 8, 8);
	assert_int_equal(nrt_tensor_write(t, in, 0, 16), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_copy(t, 0, t, 2, 14), NRT_SUCCESS);
	assert_int_equal(nrt_tensor_read(t, out, 2, 14), NRT_SUCCESS);
	assert_memory_equal(out, in, 14);
	nrt_tensor_free(&t);
	nrt_tensor_free(&u);
}

void host_allocation(void **)
{
	std::shared_ptr<nrt::tensor::tensor> t;
	assert_int_equal(nrt::tensor::allocate_host(0, nullptr, &t), NRT_INVALID);
#if !defined(__SANITIZE_ADDRESS__)
	// more than any address space: the host allocation fails, as 11
	assert_int_equal(nrt::tensor::allocate_host(SIZE_MAX / 2, nullptr, &t), NRT_FAIL_HOST_MEM_ALLOC);
#endif
	assert_null(t.get());
	assert_int_equal(nrt::tensor::allocate_host(3, nullptr, &t), NRT_SUCCESS);
	uint8_t z[3] = { 1, 1, 1 };
	assert_int_equal(nrt::tensor::read(*t, z, 0, 3), NRT_SUCCESS);	// zeroed
	assert_int_equal(z[0] | z[1] | z[2], 0);
}

} // namespace

int main()
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lifecycle_guard),
		cmocka_unit_test(bad_handles),
		cmocka_unit_test(freed_handles),
		cmocka_unit_test(tensor_sets),
		cmocka_unit_test(tensor_ranges),
		cmocka_unit_test(host_allocation),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
