// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* common/neuron_abi.c: ioctl header validation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "neuron_abi.h"

static void all_zero(void **state)
{
	uint8_t buf[40] = { 0 };

	(void)state;
	assert_true(neuron_abi_all_zero(buf, sizeof(buf)));
	assert_true(neuron_abi_all_zero(buf, 0));
	buf[39] = 1;
	assert_false(neuron_abi_all_zero(buf, sizeof(buf)));
	assert_true(neuron_abi_all_zero(buf, 39));
	buf[0] = 0x80;
	assert_false(neuron_abi_all_zero(buf, 1));
}

static void header(void **state)
{
	(void)state;
	assert_int_equal(neuron_abi_check_header(96, 96, 0, 0), 0);
	assert_int_equal(neuron_abi_check_header(95, 96, 0, 0), -EINVAL);
	assert_int_equal(neuron_abi_check_header(97, 96, 0, 0), -EINVAL);
	assert_int_equal(neuron_abi_check_header(0, 96, 0, 0), -EINVAL);
	assert_int_equal(neuron_abi_check_header(96, 96, 1, 0), -EINVAL);
	assert_int_equal(neuron_abi_check_header(96, 96, 1, 1), 0);
	assert_int_equal(neuron_abi_check_header(96, 96, 3, 1), -EINVAL);
	assert_int_equal(neuron_abi_check_header(96, 96, 0x80000000u, 0x7fffffffu), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(all_zero),
		cmocka_unit_test(header),
	};
	return cmocka_run_group_tests_name("abi", tests, NULL, NULL);
}
