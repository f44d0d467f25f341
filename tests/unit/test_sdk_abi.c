// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The SDK 2.28 public headers' numbers, checked against ours: enum values,
 * constants, and the layouts of the structs an SDK-built program shares
 * with the library (nrt.h, nrt_experimental.h, nds/neuron_ds.h). The
 * offsets and sizes are those the SDK's declarations give under the LP64
 * rules (x86_64, aarch64); a change here breaks every program built
 * against the SDK's headers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ndl/neuron_driver_shared.h>
#include <nrt/nds/neuron_ds.h>
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
/* nrt.h */
_Static_assert(sizeof(nrt_tensor_batch_op_t) == 24, "nrt_tensor_batch_op_t size");
_Static_assert(offsetof(nrt_tensor_batch_op_t, offset) == 0, "op offset");
_Static_assert(offsetof(nrt_tensor_batch_op_t, size) == 8, "op size");
_Static_assert(offsetof(nrt_tensor_batch_op_t, buffer) == 16, "op buffer");
_Static_assert(sizeof(nrt_tensor_batch_t) == 24, "nrt_tensor_batch_t size");
_Static_assert(offsetof(nrt_tensor_batch_t, tensor) == 0, "batch tensor");
_Static_assert(offsetof(nrt_tensor_batch_t, ops) == 8, "batch ops");
_Static_assert(offsetof(nrt_tensor_batch_t, num_ops) == 16, "batch num_ops");
_Static_assert(sizeof(nrt_tensor_device_allocation_info_t) == 24, "allocation info size");
_Static_assert(offsetof(nrt_tensor_device_allocation_info_t, physical_address) == 0, "physical_address");
_Static_assert(offsetof(nrt_tensor_device_allocation_info_t, size) == 8, "allocation size");
_Static_assert(offsetof(nrt_tensor_device_allocation_info_t, hbm_index) == 16, "hbm_index");
_Static_assert(sizeof(nrt_vnc_memory_stats_t) == 16, "nrt_vnc_memory_stats_t size");
_Static_assert(offsetof(nrt_vnc_memory_stats_t, bytes_used) == 0, "bytes_used");
_Static_assert(offsetof(nrt_vnc_memory_stats_t, bytes_limit) == 8, "bytes_limit");
/* nds/neuron_ds.h */
_Static_assert(sizeof(nds_obj_handle_t) == 8, "nds_obj_handle_t");
_Static_assert(sizeof(nds_mem_usage_info_t) == 16, "nds_mem_usage_info_t size");
_Static_assert(offsetof(nds_mem_usage_info_t, total_size) == 0, "total_size");
_Static_assert(offsetof(nds_mem_usage_info_t, chunk_count) == 8, "chunk_count");
_Static_assert(sizeof(nds_model_node_mem_usage_info_t) == 384, "mem usage size");
#endif
/* the same under any ABI: fixed-width fields only */
_Static_assert(sizeof(nrt_instance_info_t) == 32, "nrt_instance_info_t size");
_Static_assert(offsetof(nrt_instance_info_t, family) == 0, "family");
_Static_assert(offsetof(nrt_instance_info_t, size) == 4, "size");
_Static_assert(offsetof(nrt_instance_info_t, arch_name) == 8, "arch_name");
_Static_assert(offsetof(nrt_instance_info_t, device_revision) == 24, "device_revision");
_Static_assert(sizeof(nds_model_node_info_t) == 284, "nds_model_node_info_t size");
_Static_assert(offsetof(nds_model_node_info_t, model_id) == 0, "model_id");
_Static_assert(offsetof(nds_model_node_info_t, model_node_id) == 4, "model_node_id");
_Static_assert(offsetof(nds_model_node_info_t, name) == 8, "name");
_Static_assert(offsetof(nds_model_node_info_t, uuid) == 264, "uuid");
_Static_assert(offsetof(nds_model_node_info_t, nc_index) == 280, "nc_index");
_Static_assert(offsetof(nds_model_node_info_t, sg_index) == 281, "sg_index");
_Static_assert(sizeof(nds_version_info_t) == 8, "nds_version_info_t size");
_Static_assert(offsetof(nds_version_info_t, major) == 0, "major");
_Static_assert(offsetof(nds_version_info_t, minor) == 1, "minor");
_Static_assert(offsetof(nds_version_info_t, build) == 4, "build");
_Static_assert(sizeof(nds_process_info_t) == 60, "nds_process_info_t size");
_Static_assert(offsetof(nds_process_info_t, framework_type) == 0, "framework_type");
_Static_assert(offsetof(nds_process_info_t, tag) == 1, "tag");
_Static_assert(offsetof(nds_process_info_t, framework_version) == 36, "framework_version");
_Static_assert(offsetof(nds_process_info_t, fal_version) == 44, "fal_version");
_Static_assert(offsetof(nds_process_info_t, runtime_version) == 52, "runtime_version");
_Static_assert(sizeof(nds_process_info_ext_t) == 256, "nds_process_info_ext_t size");
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

static void instance_enums(void **state)
{
	(void)state;
	assert_int_equal(NRT_INSTANCE_UNKNOWN, 0);
	assert_int_equal(NRT_INSTANCE_INF1, 1);
	assert_int_equal(NRT_INSTANCE_TRN1, 2);
	assert_int_equal(NRT_INSTANCE_TRN1N, 3);
	assert_int_equal(NRT_INSTANCE_INF2, 4);
	assert_int_equal(NRT_INSTANCE_TRN2, 5);
	assert_int_equal(NRT_INSTANCE_TRN2N, 6);
	assert_int_equal(NRT_INSTANCE_INF2E, 7);
	assert_int_equal(NRT_INSTANCE_TRN2P, 8);
	assert_int_equal(NRT_INSTANCE_TRN2U, 9);
	assert_int_equal(NRT_INSTANCE_TRN2E, 10);
	assert_int_equal(NRT_INSTANCE_TRN2EU, 11);
	assert_int_equal(NRT_INSTANCE_TRN2AC, 12);
	assert_int_equal(NRT_INSTANCE_TRN2UAC, 13);
	assert_int_equal(NRT_INSTANCE_TRN3, 14);
	assert_int_equal(NRT_INSTANCE_TRN3PDS98, 15);
	assert_int_equal(NRT_INSTANCE_SIZE_1XL, 0);
	assert_int_equal(NRT_INSTANCE_SIZE_2XL, 1);
	assert_int_equal(NRT_INSTANCE_SIZE_4XL, 2);
	assert_int_equal(NRT_INSTANCE_SIZE_6XL, 3);
	assert_int_equal(NRT_INSTANCE_SIZE_8XL, 4);
	assert_int_equal(NRT_INSTANCE_SIZE_24XL, 5);
	assert_int_equal(NRT_INSTANCE_SIZE_32XL, 6);
	assert_int_equal(NRT_INSTANCE_SIZE_48XL, 7);
	assert_int_equal(NRT_INSTANCE_SIZE_3XL, 8);
	assert_int_equal(NRT_INSTANCE_SIZE_UNKNOWN, 9);
	assert_int_equal(NRT_INSTANCE_SIZE_NUM, 9);
}

static void nds_object_constants(void **state)
{
	(void)state;
	assert_int_equal(OBJECT_TYPE_MODEL_NODE_INFO, 0);
	assert_int_equal(OBJECT_TYPE_PROCESS_INFO, 1);
	assert_int_equal(OBJECT_TYPE_PROCESS_INFO_EXT, 2);
	assert_int_equal(MODEL_MEM_USAGE_LOCATION_COUNT, 2);
	assert_int_equal(NDS_DMA_MEM_USAGE_SLOT_CODE, 0);
	assert_int_equal(NDS_DMA_MEM_USAGE_SLOT_TENSORS, 1);
	assert_int_equal(NDS_DMA_MEM_USAGE_SLOT_CONSTANTS, 2);
	assert_int_equal(NDS_DMA_MEM_USAGE_SLOT_SCRATCHPAD, 3);
	assert_int_equal(NDS_DMA_MEM_USAGE_SLOT_MISC, 4);
	assert_int_equal(NDS_DMA_MEM_USAGE_SLOT_COUNT, 12);
	assert_int_equal(BIT_INDEX_TEST_FEATURE, 0);
	assert_int_equal(BIT_INDEX_MULTICORE_FEATURE, 1);
	assert_int_equal(BIT_INDEX_COUNT, 2);
	assert_int_equal(APP_INFO_PID_NC_LOCK_INFO, 1);
	assert_int_equal(APP_INFO_PID_MEM_USAGE, 2);
	assert_int_equal(APP_INFO_ALL, 0xF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dtype_values),
		cmocka_unit_test(other_enums),
		cmocka_unit_test(instance_enums),
		cmocka_unit_test(nds_object_constants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
