// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * common/neuron_escape.c: a string the driver does not choose, escaped for
 * a line of key=value words (the kernel log's pid/comm, neuron-monitor's
 * event lines): printable bytes kept, the rest and the backslash as \xHH,
 * cut at a whole byte's form, always terminated.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "neuron_escape.h"

static void escapes(void **state)
{
	char out[NEURON_ESCAPED_MAX(16)];

	(void)state;
	neuron_escape_word(out, sizeof(out), "vm_genl_job");
	assert_string_equal(out, "vm_genl_job");
	/* a space, a newline, '=' kept, a backslash, a high byte, DEL */
	neuron_escape_word(out, sizeof(out), "a b\nc=d\\\xff\x7f");
	assert_string_equal(out, "a\\x20b\\x0ac=d\\x5c\\xff\\x7f");
	/* 16 bytes of the worst kind fill the buffer sized for 16 exactly */
	neuron_escape_word(out, sizeof(out), "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n");
	assert_int_equal(strlen(out), 64);
	neuron_escape_word(out, sizeof(out), "");
	assert_string_equal(out, "");
}

static void cut_short(void **state)
{
	char out[8];

	(void)state;
	/* room for 7: "ab" and one whole \xHH, never half of one */
	neuron_escape_word(out, sizeof(out), "ab\n\ncd");
	assert_string_equal(out, "ab\\x0a");
	neuron_escape_word(out, sizeof(out), "abcdefghij");
	assert_string_equal(out, "abcdefg");
	out[0] = 'x';
	neuron_escape_word(out, 0, "abc");
	assert_int_equal(out[0], 'x');
	neuron_escape_word(out, 1, "abc");
	assert_string_equal(out, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(escapes),
		cmocka_unit_test(cut_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
