// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * common/neuron_names.c, common/neuron_cores.c and common/neuron_json.c:
 * the name tables, the NEURON_RT_VISIBLE_CORES list and JSON quoting that
 * the module, libnrt and the tools share.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "neuron_cores.h"
#include "neuron_json.h"
#include "neuron_names.h"

static void names(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < NEURON_TPB_ERROR_COUNT; i++)
		assert_non_null(neuron_tpb_error_names[i]);
	assert_string_equal(neuron_tpb_error_names[NEURON_TPB_ERROR_FP_UNDERFLOW], "FP_UNDERFLOW");
	assert_string_equal(neuron_tpb_error_names[NEURON_TPB_ERROR_SEQUENCER_FATAL], "SEQUENCER_FATAL");
	assert_null(neuron_hw_fault_words[0]);
	assert_string_equal(neuron_hw_fault_words[NEURON_NQ_HW_HBM_UE], "hbm_ue");
	assert_string_equal(neuron_hw_fault_name(NEURON_NQ_HW_REPAIRABLE_HBM_UE), "REPAIRABLE_HBM_UE");
	assert_string_equal(neuron_hw_fault_name(NEURON_NQ_HW_COLLECTIVES), "COLLECTIVES");
	assert_string_equal(neuron_hw_fault_name(0), "UNKNOWN");
	assert_string_equal(neuron_hw_fault_name(NEURON_NQ_HW_COUNT), "UNKNOWN");
}

struct cores_case {
	const char *in;
	unsigned int total;
	int err;			/* enum neuron_cores_error */
	unsigned int first, count;	/* when OK */
	size_t at;			/* when not */
	unsigned long long core, last;
};

/*
 * The recovery action of every error class, written out again from
 * docs/recovery.md: the action names, each TPB type by its status (1003
 * and the transient type: NONE; 1004: RESTART_JOB), each hardware fault.
 */
static void actions(void **state)
{
	static const char *const want_names[] = {
		"NONE", "RESTART_JOB", "RESET_DEVICE", "REBOOT_INSTANCE", "TERMINATE_INSTANCE",
	};
	static const unsigned int want_tpb[NEURON_TPB_ERROR_COUNT] = {
		0, 0, 0, 0,	/* FP_UNDERFLOW, FP_NAN, FP_INF, FP_OVERFLOW */
		1, 1, 1, 1, 1,	/* MEMORY, FAKE, SEMAPHORE, EVENT, PSUM_COLLISION */
		0,		/* SEQUENCER_NONFATAL */
		1,		/* SEQUENCER_FATAL */
	};
	static const unsigned int want_hw[NEURON_NQ_HW_COUNT] = {
		0,	/* none */
		1,	/* collectives */
		4,	/* hbm_ue */
		4,	/* nc_ue */
		1,	/* dma_abort */
		3,	/* repairable_hbm_ue */
	};
	unsigned int i;

	(void)state;
	assert_int_equal(NEURON_ACTION_MAX + 1, sizeof(want_names) / sizeof(want_names[0]));
	for (i = 0; i <= NEURON_ACTION_MAX; i++) {
		assert_string_equal(neuron_action_names[i], want_names[i]);
		assert_string_equal(neuron_action_name(i), want_names[i]);
	}
	assert_string_equal(neuron_action_name(NEURON_ACTION_MAX + 1), "UNKNOWN");
	assert_string_equal(neuron_action_name(0xffffffffu), "UNKNOWN");
	for (i = 0; i < NEURON_TPB_ERROR_COUNT; i++)
		assert_int_equal(neuron_tpb_error_actions[i], want_tpb[i]);
	for (i = 0; i < NEURON_NQ_HW_COUNT; i++)
		assert_int_equal(neuron_hw_fault_actions[i], want_hw[i]);
	assert_int_equal(NEURON_ECC_UE_ACTION, 4);
	assert_int_equal(NEURON_NQ_FLOOD_ACTION, 0);
}

static void cores(void **state)
{
	static const struct cores_case c[] = {
		{ "", 4, NEURON_CORES_OK, 0, 4, 0, 0, 0 },
		{ "3", 4, NEURON_CORES_OK, 3, 1, 0, 0, 0 },
		{ "0-3", 4, NEURON_CORES_OK, 0, 4, 0, 0, 0 },
		{ "3-4,5", 8, NEURON_CORES_OK, 3, 3, 0, 0, 0 },
		{ "3,4,5", 8, NEURON_CORES_OK, 3, 3, 0, 0, 0 },
		{ "007", 8, NEURON_CORES_OK, 7, 1, 0, 0, 0 },
		{ "2-2", 4, NEURON_CORES_OK, 2, 1, 0, 0, 0 },
		{ "4", 4, NEURON_CORES_TOO_HIGH, 0, 0, 1, 4, 0 },
		{ "0", 0, NEURON_CORES_TOO_HIGH, 0, 0, 1, 0, 0 },
		{ "5-3", 8, NEURON_CORES_BACKWARDS, 0, 0, 3, 0, 0 },
		{ "3,5", 8, NEURON_CORES_GAP, 0, 0, 3, 5, 3 },
		{ "3,3", 8, NEURON_CORES_GAP, 0, 0, 3, 3, 3 },
		{ "1,", 4, NEURON_CORES_NUMBER, 0, 0, 2, 0, 0 },
		{ ",1", 4, NEURON_CORES_NUMBER, 0, 0, 0, 0, 0 },
		{ "a", 4, NEURON_CORES_NUMBER, 0, 0, 0, 0, 0 },
		{ "1-", 4, NEURON_CORES_NUMBER_AFTER_DASH, 0, 0, 2, 0, 0 },
		{ "1 ", 4, NEURON_CORES_SEPARATOR, 0, 0, 1, 0, 0 },
		{ "1-2-3", 8, NEURON_CORES_SEPARATOR, 0, 0, 3, 0, 0 },
		{ "18446744073709551616", 8, NEURON_CORES_NUMBER, 0, 0, 0, 0, 0 },
		{ "18446744073709551615", 8, NEURON_CORES_TOO_HIGH, 0, 0, 20, ~0ULL, 0 },
	};
	struct neuron_cores_result r;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int ret = neuron_parse_cores(c[i].in, strlen(c[i].in), c[i].total, &r);

		if (r.error != (enum neuron_cores_error)c[i].err || (ret != 0) != (c[i].err != 0))
			fail_msg("\"%s\" of %u: error %d (%d), expected %d", c[i].in, c[i].total,
				 r.error, ret, c[i].err);
		if (!c[i].err && (r.first != c[i].first || r.count != c[i].count))
			fail_msg("\"%s\": %u+%u", c[i].in, r.first, r.count);
		if (c[i].err && r.at != c[i].at)
			fail_msg("\"%s\": at %zu, expected %zu", c[i].in, r.at, c[i].at);
		if (c[i].err == NEURON_CORES_TOO_HIGH || c[i].err == NEURON_CORES_GAP)
			assert_int_equal(r.core, c[i].core);
		if (c[i].err == NEURON_CORES_GAP)
			assert_int_equal(r.last, c[i].last);
	}
	/* the length bounds the text: "12" read as "1" */
	assert_int_equal(neuron_parse_cores("12", 1, 4, &r), 0);
	assert_int_equal(r.first, 1);
	assert_int_equal(r.count, 1);
}

static void json(void **state)
{
	char out[64];
	size_t n;

	(void)state;
	n = neuron_json_quote(out, sizeof(out), "a\"b\\\n\x01", 6);
	assert_string_equal(out, "\"a\\\"b\\\\\\n\\u0001\"");
	assert_int_equal(n, strlen(out));
	neuron_json_quote(out, sizeof(out), "\x7f\t\r", 3);
	assert_string_equal(out, "\"\\u007f\\t\\r\"");
	/* well-formed UTF-8 passes, malformed bytes become U+FFFD */
	neuron_json_quote(out, sizeof(out), "\xc3\xa9", 2);
	assert_string_equal(out, "\"\xc3\xa9\"");
	neuron_json_quote(out, sizeof(out), "\xc0\xaf\xed\xa0\x80x", 6);
	assert_string_equal(out, "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffdx\"");
	neuron_json_quote(out, sizeof(out), "\xf0\x9f\x98", 3);
	assert_string_equal(out, "\"\\ufffd\\ufffd\\ufffd\"");
	/* an embedded NUL is a control byte; a short buffer is cut and terminated */
	neuron_json_quote(out, sizeof(out), "a\0b", 3);
	assert_string_equal(out, "\"a\\u0000b\"");
	n = neuron_json_quote(out, 4, "abcdef", 6);
	assert_int_equal(n, 8);
	assert_string_equal(out, "\"ab");
	assert_int_equal(neuron_json_quote(NULL, 0, "", 0), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names),
		cmocka_unit_test(actions),
		cmocka_unit_test(cores),
		cmocka_unit_test(json),
	};
	return cmocka_run_group_tests_name("names", tests, NULL, NULL);
}
