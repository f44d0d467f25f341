// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * common/neuron_fw_profile.c: every row of the per-architecture firmware
 * contract, the readiness bound and the routing id -> device index maps.
 *
 * The expected values are written out again here from the fact sheet
 * (aws-neuronx-dkms 2.25), not derived from the code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "neuron_fw_profile.h"
#include "neuron_fwio_frame.h"

struct row {
	unsigned int arch, cmd;
	unsigned int transport, resp, attempts, timeout_ms;
};

static const struct row rows[] = {
	/* lenient simulator: register-only, module parameters (0), exact sizes but POST's */
	{ NEURON_FW_ARCH_SIM, 1, NEURON_FW_XPORT_REGS, NEURON_FW_RESP_EXACT, 0, 0 },
	{ NEURON_FW_ARCH_SIM, 2, NEURON_FW_XPORT_REGS, NEURON_FW_RESP_FIT, 0, 0 },
	{ NEURON_FW_ARCH_SIM, 3, NEURON_FW_XPORT_REGS, NEURON_FW_RESP_EXACT, 0, 0 },
	{ NEURON_FW_ARCH_SIM, 4, NEURON_FW_XPORT_NONE, NEURON_FW_RESP_EXACT, 0, 0 },
	/* v2: READ and POST legacy 1 s x 30; never the register-only path */
	{ NEURON_FW_ARCH_V2, 1, NEURON_FW_XPORT_HOSTMEM, NEURON_FW_RESP_FIT, 30, 1000 },
	{ NEURON_FW_ARCH_V2, 2, NEURON_FW_XPORT_HOSTMEM, NEURON_FW_RESP_FIT, 30, 1000 },
	{ NEURON_FW_ARCH_V2, 3, NEURON_FW_XPORT_NONE, NEURON_FW_RESP_EXACT, 0, 0 },
	{ NEURON_FW_ARCH_V2, 4, NEURON_FW_XPORT_NONE, NEURON_FW_RESP_EXACT, 0, 0 },
	/* v3 and v4: power profile over the register-only path, 60 s x 3, size ignored */
	{ NEURON_FW_ARCH_V3, 1, NEURON_FW_XPORT_HOSTMEM, NEURON_FW_RESP_FIT, 30, 1000 },
	{ NEURON_FW_ARCH_V3, 2, NEURON_FW_XPORT_HOSTMEM, NEURON_FW_RESP_FIT, 30, 1000 },
	{ NEURON_FW_ARCH_V3, 3, NEURON_FW_XPORT_REGS, NEURON_FW_RESP_ANY, 3, 60000 },
	{ NEURON_FW_ARCH_V3, 4, NEURON_FW_XPORT_NONE, NEURON_FW_RESP_EXACT, 0, 0 },
	{ NEURON_FW_ARCH_V4, 1, NEURON_FW_XPORT_HOSTMEM, NEURON_FW_RESP_FIT, 30, 1000 },
	{ NEURON_FW_ARCH_V4, 2, NEURON_FW_XPORT_HOSTMEM, NEURON_FW_RESP_FIT, 30, 1000 },
	{ NEURON_FW_ARCH_V4, 3, NEURON_FW_XPORT_REGS, NEURON_FW_RESP_ANY, 3, 60000 },
	{ NEURON_FW_ARCH_V4, 4, NEURON_FW_XPORT_NONE, NEURON_FW_RESP_EXACT, 0, 0 },
};

static void every_row(void **state)
{
	size_t i;

	(void)state;
	assert_int_equal(sizeof(rows) / sizeof(rows[0]),
			 NEURON_FW_ARCH_COUNT * NEURON_FW_PROFILE_CMDS);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		const struct neuron_fw_cmd_profile *p = neuron_fw_profile(r->arch, r->cmd);

		print_message("%s cmd %u\n", neuron_fw_arch_name(r->arch), r->cmd);
		assert_non_null(p);
		assert_int_equal(p->transport, r->transport);
		assert_int_equal(p->resp, r->resp);
		assert_int_equal(p->attempts, r->attempts);
		assert_int_equal(p->timeout_ms, r->timeout_ms);
		assert_non_null(p->vendor);
		assert_true(strlen(p->vendor) > 0);
	}
}

/* No row the vendor does not have: v2 never uses the register-only path. */
static void v2_never_register_only(void **state)
{
	unsigned int cmd;

	(void)state;
	for (cmd = 0; cmd < 256; cmd++)
		assert_int_not_equal(neuron_fw_profile(NEURON_FW_ARCH_V2, cmd)->transport,
				     NEURON_FW_XPORT_REGS);
	/* and no PCI architecture sends POST or READ over it */
	for (cmd = NEURON_FW_ARCH_V2; cmd < NEURON_FW_ARCH_COUNT; cmd++) {
		assert_int_equal(neuron_fw_profile(cmd, NEURON_FWIO_CMD_READ)->transport,
				 NEURON_FW_XPORT_HOSTMEM);
		assert_int_equal(neuron_fw_profile(cmd, NEURON_FWIO_CMD_POST_TO_CW)->transport,
				 NEURON_FW_XPORT_HOSTMEM);
	}
}

static void out_of_range(void **state)
{
	(void)state;
	assert_null(neuron_fw_profile(NEURON_FW_ARCH_COUNT, 1));
	assert_null(neuron_fw_profile(~0u, 1));
	/* id 0 and any id >= 4 share the last row */
	assert_ptr_equal(neuron_fw_profile(NEURON_FW_ARCH_V3, 0),
			 neuron_fw_profile(NEURON_FW_ARCH_V3, 4));
	assert_ptr_equal(neuron_fw_profile(NEURON_FW_ARCH_V3, 255),
			 neuron_fw_profile(NEURON_FW_ARCH_V3, 5));
	assert_string_equal(neuron_fw_arch_name(NEURON_FW_ARCH_V4), "v4");
	assert_string_equal(neuron_fw_arch_name(9), "?");
	assert_string_equal(neuron_fw_transport_name(NEURON_FW_XPORT_HOSTMEM), "hostmem");
	assert_string_equal(neuron_fw_resp_name(NEURON_FW_RESP_ANY), "any");
}

static void ready_bound(void **state)
{
	(void)state;
	/* 20 tries x (30 x 1 s non-operational read + 1 s sleep) */
	assert_int_equal(neuron_fw_ready_bound_ms(), 20u * 31u * 1000u);
	/* reset: 100 ms polls, re-issued every 30 s, v2 120 s, v3/v4 480 s */
	assert_int_equal(NEURON_FW_RESET_POLL_MS, 100);
	assert_int_equal(NEURON_FW_RESET_REISSUE_MS, 30000);
	assert_int_equal(NEURON_FW_RESET_DONE_TRIES, 5);
	assert_int_equal(NEURON_FW_RESET_DONE_STEP_MS, 100);
	assert_int_equal(neuron_fw_reset_max_ms(NEURON_FW_ARCH_V2), 120000);
	assert_int_equal(neuron_fw_reset_max_ms(NEURON_FW_ARCH_V3), 480000);
	assert_int_equal(neuron_fw_reset_max_ms(NEURON_FW_ARCH_V4), 480000);
	assert_int_equal(neuron_fw_reset_max_ms(NEURON_FW_ARCH_SIM), 0);
	assert_int_equal(neuron_fw_reset_max_ms(NEURON_FW_ARCH_COUNT), 0);
}

static void routes(void **state)
{
	static const uint8_t trn1[16] = { 0, 4, 1, 5, 3, 7, 2, 6, 12, 8, 13, 9, 15, 11, 14, 10 };
	static const uint8_t trn2[16] = { 0, 3, 4, 7, 12, 15, 8, 11, 1, 2, 5, 6, 13, 14, 9, 10 };
	uint32_t rid, idx, seen;

	(void)state;
	seen = 0;
	for (rid = 0; rid < 16; rid++) {
		assert_int_equal(neuron_fw_route_index(NEURON_FW_ROUTE_TRN1, rid, 64, &idx), 0);
		assert_int_equal(idx, trn1[rid]);
		seen |= 1u << idx;
		assert_int_equal(neuron_fw_route_index(NEURON_FW_ROUTE_TRN2, rid, 64, &idx), 0);
		assert_int_equal(idx, trn2[rid]);
		assert_int_equal(neuron_fw_route_index(NEURON_FW_ROUTE_IDENTITY, rid, 64, &idx), 0);
		assert_int_equal(idx, rid);
	}
	assert_int_equal(seen, 0xffff);	/* a permutation */
	/* Trn1 adds 16 x (rid / 16); Trn2 maps rid % 16 (2.25, no PDS) */
	assert_int_equal(neuron_fw_route_index(NEURON_FW_ROUTE_TRN1, 17, 64, &idx), 0);
	assert_int_equal(idx, 20);
	assert_int_equal(neuron_fw_route_index(NEURON_FW_ROUTE_TRN1, 63, 64, &idx), 0);
	assert_int_equal(idx, 48 + 10);
	idx = 99;
	assert_int_equal(neuron_fw_route_index(NEURON_FW_ROUTE_TRN1, 64, 64, &idx), -EINVAL);
	assert_int_equal(neuron_fw_route_index(NEURON_FW_ROUTE_TRN2, 16, 64, &idx), 0);
	assert_int_equal(idx, trn2[0]);
	assert_int_equal(neuron_fw_route_index(NEURON_FW_ROUTE_TRN2, 16 * 5 + 7, 64, &idx), 0);
	assert_int_equal(idx, trn2[7]);
	idx = 99;
	assert_int_equal(neuron_fw_route_index(NEURON_FW_ROUTE_TRN2, 0xDEADBEEF, 64, &idx), -EINVAL);
	assert_int_equal(neuron_fw_route_index(NEURON_FW_ROUTE_IDENTITY, 64, 64, &idx), -EINVAL);
	assert_int_equal(neuron_fw_route_index(NEURON_FW_ROUTE_IDENTITY, 0xDEADBEEF, 64, &idx),
			 -EINVAL);
	assert_int_equal(neuron_fw_route_index(7, 0, 64, &idx), -EINVAL);
	assert_int_equal(idx, 99);	/* untouched on error */
}

/* The response-size rules of the classifier. */
static void resp_rules(void **state)
{
	uint32_t ok8 = neuron_fwio_resp_dw0(5, NEURON_FWIO_SUCCESS, 4 + 8);
	uint32_t ok12 = neuron_fwio_resp_dw0(5, NEURON_FWIO_SUCCESS, 4 + 12);
	uint32_t ok4 = neuron_fwio_resp_dw0(5, NEURON_FWIO_SUCCESS, 4 + 4);
	uint32_t bad = neuron_fwio_resp_dw0(5, NEURON_FWIO_SUCCESS, 2);

	(void)state;
	assert_int_equal(neuron_fwio_classify_rule(true, 5, ok8, 8, NEURON_FW_RESP_EXACT),
			 NEURON_FWIO_ATT_OK);
	assert_int_equal(neuron_fwio_classify_rule(true, 5, ok4, 8, NEURON_FW_RESP_EXACT),
			 NEURON_FWIO_ATT_BAD_SIZE);
	assert_int_equal(neuron_fwio_classify_rule(true, 5, ok12, 8, NEURON_FW_RESP_EXACT),
			 NEURON_FWIO_ATT_BAD_SIZE);
	assert_int_equal(neuron_fwio_classify_rule(true, 5, ok4, 8, NEURON_FW_RESP_FIT),
			 NEURON_FWIO_ATT_OK);
	assert_int_equal(neuron_fwio_classify_rule(true, 5, ok12, 8, NEURON_FW_RESP_FIT),
			 NEURON_FWIO_ATT_BAD_SIZE);
	assert_int_equal(neuron_fwio_classify_rule(true, 5, bad, 8, NEURON_FW_RESP_FIT),
			 NEURON_FWIO_ATT_BAD_SIZE);
	assert_int_equal(neuron_fwio_classify_rule(true, 5, ok12, 0, NEURON_FW_RESP_ANY),
			 NEURON_FWIO_ATT_OK);
	assert_int_equal(neuron_fwio_classify_rule(true, 5, bad, 0, NEURON_FW_RESP_ANY),
			 NEURON_FWIO_ATT_OK);
	/* sequence and code come first under every rule */
	assert_int_equal(neuron_fwio_classify_rule(true, 6, ok8, 8, NEURON_FW_RESP_ANY),
			 NEURON_FWIO_ATT_BAD_SEQ);
	assert_int_equal(neuron_fwio_classify_rule(false, 5, ok8, 8, NEURON_FW_RESP_ANY),
			 NEURON_FWIO_ATT_TIMEOUT);
	assert_int_equal(neuron_fwio_classify_rule(true, 5,
						   neuron_fwio_resp_dw0(5, NEURON_FWIO_FAIL, 4),
						   8, NEURON_FW_RESP_ANY),
			 NEURON_FWIO_ATT_FW_FAIL);
	/* the copy length */
	assert_int_equal(neuron_fwio_resp_copy_len(ok4, 8), 4);
	assert_int_equal(neuron_fwio_resp_copy_len(ok12, 8), 8);
	assert_int_equal(neuron_fwio_resp_copy_len(bad, 8), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_row),
		cmocka_unit_test(v2_never_register_only),
		cmocka_unit_test(out_of_range),
		cmocka_unit_test(ready_bound),
		cmocka_unit_test(routes),
		cmocka_unit_test(resp_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
