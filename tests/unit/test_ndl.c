// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ndl argument validation that needs no device. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ndl/ndl.h>
#include <nrt/nrt.h>

static void open_rejects_null_out(void **state)
{
	(void)state;
	assert_int_equal(ndl_open_device(0, NULL, NULL), -EINVAL);
}

static void open_rejects_bad_index(void **state)
{
	ndl_device_t *dev = (ndl_device_t *)0x1;

	(void)state;
	assert_int_equal(ndl_open_device(-1, NULL, &dev), -EINVAL);
	assert_null(dev);
	dev = (ndl_device_t *)0x1;
	assert_int_equal(ndl_open_device(MAX_NEURON_DEVICE_COUNT, NULL, &dev), -EINVAL);
	assert_null(dev);
}

static void close_rejects_null(void **state)
{
	(void)state;
	assert_int_equal(ndl_close_device(NULL), -EINVAL);
	assert_int_equal(ndl_device_fd(NULL), -EINVAL);
}

static void available_validates_buffer(void **state)
{
	(void)state;
	assert_int_equal(ndl_available_devices(NULL, 4), -EINVAL);
	assert_int_equal(ndl_available_devices(NULL, -1), -EINVAL);
	/* Counting only is allowed; the host has no /dev/neuron*. */
	assert_true(ndl_available_devices(NULL, 0) >= 0);
}

static void version_string_is_set(void **state)
{
	(void)state;
	assert_non_null(nrt_get_version_string());
	assert_true(nrt_get_version_string()[0] != '\0');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(open_rejects_null_out),
		cmocka_unit_test(open_rejects_bad_index),
		cmocka_unit_test(close_rejects_null),
		cmocka_unit_test(available_validates_buffer),
		cmocka_unit_test(version_string_is_set),
	};
	return cmocka_run_group_tests_name("ndl", tests, NULL, NULL);
}
