// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* common/neuron_parse.c: the debugfs knob tokenizer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "neuron_parse.h"

static int tok(struct neuron_tokens *t, const char *s)
{
	return neuron_tokenize(t, s, strlen(s));
}

static void tokenize(void **state)
{
	struct neuron_tokens t;

	(void)state;
	assert_int_equal(tok(&t, "sram 3 9\n"), 0);
	assert_int_equal(t.count, 3);
	assert_string_equal(t.tok[0], "sram");
	assert_string_equal(t.tok[2], "9");
	assert_int_equal(tok(&t, "  \t a \n"), 0);
	assert_int_equal(t.count, 1);
	assert_int_equal(tok(&t, ""), 0);
	assert_int_equal(t.count, 0);
	assert_int_equal(tok(&t, "1 2 3 4 5 6 7 8"), 0);
	assert_int_equal(tok(&t, "1 2 3 4 5 6 7 8 9"), -EINVAL);
	assert_int_equal(neuron_tokenize(&t, "a\0b", 3), -EINVAL);
	assert_int_equal(tok(&t, "a\x01"), -EINVAL);
	assert_int_equal(tok(&t, "caf\xc3\xa9"), -EINVAL);
	{
		char big[200];

		memset(big, 'a', sizeof(big));
		assert_int_equal(neuron_tokenize(&t, big, sizeof(big)), -EINVAL);
		assert_int_equal(neuron_tokenize(&t, big, NEURON_PARSE_MAX_LEN), 0);
		assert_int_equal(t.count, 1);
	}
}

static void numbers(void **state)
{
	uint64_t v;
	uint32_t u;

	(void)state;
	assert_int_equal(neuron_parse_u64("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(neuron_parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(neuron_parse_u64("18446744073709551616", &v), -ERANGE);
	assert_int_equal(neuron_parse_u64("0xffffffffffffffff", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(neuron_parse_u64("0x10000000000000000", &v), -ERANGE);
	assert_int_equal(neuron_parse_u64("0x", &v), -EINVAL);
	assert_int_equal(neuron_parse_u64("", &v), -EINVAL);
	assert_int_equal(neuron_parse_u64("-1", &v), -EINVAL);
	assert_int_equal(neuron_parse_u64("1x", &v), -EINVAL);
	assert_int_equal(neuron_parse_u64("12a", &v), -EINVAL);
	assert_int_equal(neuron_parse_u64(NULL, &v), -EINVAL);
	assert_int_equal(neuron_parse_u32_range("65535", 0, 65535, &u), 0);
	assert_int_equal(u, 65535);
	assert_int_equal(neuron_parse_u32_range("65536", 0, 65535, &u), -ERANGE);
	assert_int_equal(neuron_parse_u32_range("0", 1, 8, &u), -ERANGE);
	assert_int_equal(neuron_parse_u32_range("4294967296", 0, 0xffffffffu, &u), -ERANGE);
}

static void names(void **state)
{
	static const char *const n[] = { "none", NULL, "failed" };

	(void)state;
	assert_int_equal(neuron_parse_name("none", n, 3), 0);
	assert_int_equal(neuron_parse_name("failed", n, 3), 2);
	assert_int_equal(neuron_parse_name("pending", n, 3), -EINVAL);
	assert_int_equal(neuron_parse_name("", n, 3), -EINVAL);
	assert_int_equal(neuron_parse_name(NULL, n, 3), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tokenize),
		cmocka_unit_test(numbers),
		cmocka_unit_test(names),
	};
	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
