// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The SDK 2.28 public headers' numbers, checked against ours: enum values,
 * constants, and the layouts of the structs an SDK-built program shares
 * with the library (nrt_experimental.h). The offsets and sizes are those
 * the SDK's declarations give under the LP64 rules (x86_64, aarch64); a
 * change here breaks every program built against the SDK's headers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>
#include <nrt/nrt_profile.h>

#if UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(nrt_tensor_info_t) == 296, "nrt_tensor_info_t size");
_Static_assert(offsetof(nrt_tensor_info_t, name) == 0, "name");
_Static_assert(offsetof(nrt_tensor_info_t, usage) == 256, "usage");
_Static_assert(offsetof(nrt_tensor_info_t, size) == 264, "size");
_Static_assert(offsetof(nrt_tensor_info_t, dtype) == 272, "dtype");
_Static_assert(offsetof(nrt_tensor_info_t, shape) == 280, "shape");
_Static_assert(offsetof(nrt_tensor_info_t, ndim) == 288, "ndim");
_Static_assert(sizeof(nrt_tensor_info_array_t) == 8, "nrt_tensor_info_array_t size");
_Static_assert(offsetof(nrt_tensor_info_array_t, tensor_count) == 0, "tensor_count");
_Static_assert(offsetof(nrt_tensor_info_array_t, tensor_array) == 8, "tensor_array");
#endif
_Static_assert(sizeof(nrt_model_info_t) == 4, "nrt_model_info_t size");
_Static_assert(offsetof(nrt_model_info_t, vnc) == 0, "vnc");
_Static_assert(sizeof(nrt_dtype_t) == 4 && sizeof(nrt_tensor_usage_t) == 4, "enums are int-sized");
_Static_assert(NRT_TENSOR_NAME_MAX == 256, "NRT_TENSOR_NAME_MAX");
_Static_assert(NRT_MAJOR_VERSION == 2 && NRT_MINOR_VERSION == 0, "NRT_MAJOR/MINOR_VERSION");

static void dtype_values(void **state)
{
	(void)state;
	assert_int_equal(NRT_DTYPE_UNKNOWN, 0x0);
	assert_int_equal(NRT_DTYPE_INVALID, 0x0);
	assert_int_equal(NRT_DTYPE_FP8_E3, 0xD);
	assert_int_equal(NRT_DTYPE_FP8_E4, 0xE);
	assert_int_equal(NRT_DTYPE_FP8_E5, 0xF);
	assert_int_equal(NRT_DTYPE_FLOAT16, 0x7);
	assert_int_equal(NRT_DTYPE_BFLOAT16, 0x6);
	assert_int_equal(NRT_DTYPE_FLOAT32, 0xA);
	assert_int_equal(NRT_DTYPE_FP32R, 0xB);
	assert_int_equal(NRT_DTYPE_UINT8, 0x3);
	assert_int_equal(NRT_DTYPE_UINT16, 0x5);
	assert_int_equal(NRT_DTYPE_UINT32, 0x9);
	assert_int_equal(NRT_DTYPE_UINT64, 0x1);
	assert_int_equal(NRT_DTYPE_INT8, 0x2);
	assert_int_equal(NRT_DTYPE_INT16, 0x4);
	assert_int_equal(NRT_DTYPE_INT32, 0x8);
	assert_int_equal(NRT_DTYPE_INT64, 0xC);
}

static void other_enums(void **state)
{
	(void)state;
	assert_int_equal(NRT_FRAMEWORK_TYPE_INVALID, 0);
	assert_int_equal(NRT_FRAMEWORK_TYPE_NO_FW, 1);
	assert_int_equal(NRT_FRAMEWORK_TYPE_TENSORFLOW, 2);
	assert_int_equal(NRT_FRAMEWORK_TYPE_PYTORCH, 3);
	assert_int_equal(NRT_FRAMEWORK_TYPE_MXNET, 4);
	assert_int_equal(NRT_FRAMEWORK_TYPE_PRECHECK, 5);
	assert_int_equal(NRT_TENSOR_USAGE_INPUT, 0);
	assert_int_equal(NRT_TENSOR_USAGE_OUTPUT, 1);
	assert_int_equal(NRT_TENSOR_PLACEMENT_DEVICE, 0);
	assert_int_equal(NRT_TENSOR_PLACEMENT_HOST, 1);
	assert_int_equal(NRT_TENSOR_PLACEMENT_VIRTUAL, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dtype_values),
		cmocka_unit_test(other_enums),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
