// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device and NeuronCore health (common/neuron_health_lib.c): each cause
 * alone, the order between causes, the per-core view, the names the sysfs
 * files and the log line print, and the ECC count since a baseline.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "neuron_health_lib.h"

static void expect(struct neuron_health h, uint32_t state, uint32_t reason)
{
	assert_int_equal(h.state, state);
	assert_int_equal(h.reason, reason);
}

static void test_ok(void **state)
{
	struct neuron_health_in in = { 0 };

	(void)state;
	expect(neuron_health_device(&in), NEURON_HEALTH_OK, NEURON_HEALTH_REASON_NONE);
	expect(neuron_health_core(&in, 0), NEURON_HEALTH_OK, NEURON_HEALTH_REASON_NONE);
	assert_string_equal(neuron_health_action(neuron_health_device(&in)), "NONE");
}

static void test_each_cause(void **state)
{
	struct neuron_health_in in;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.reset_failed = true;
	expect(neuron_health_device(&in), NEURON_HEALTH_FAILED, NEURON_HEALTH_REASON_RESET_FAILED);
	memset(&in, 0, sizeof(in));
	in.resetting = true;
	expect(neuron_health_device(&in), NEURON_HEALTH_DEGRADED,
	       NEURON_HEALTH_REASON_RESET_IN_PROGRESS);
	memset(&in, 0, sizeof(in));
	in.sram_ue = 1;
	expect(neuron_health_device(&in), NEURON_HEALTH_NEEDS_RESET,
	       NEURON_HEALTH_REASON_SRAM_UNCORRECTABLE);
	memset(&in, 0, sizeof(in));
	in.hbm_ue = 3;
	expect(neuron_health_device(&in), NEURON_HEALTH_NEEDS_RESET,
	       NEURON_HEALTH_REASON_HBM_UNCORRECTABLE);
	memset(&in, 0, sizeof(in));
	in.nc_unrecoverable = 1u << 1;
	expect(neuron_health_device(&in), NEURON_HEALTH_NEEDS_RESET,
	       NEURON_HEALTH_REASON_NC_UNRECOVERABLE);
	memset(&in, 0, sizeof(in));
	in.fw_unanswered = true;
	expect(neuron_health_device(&in), NEURON_HEALTH_DEGRADED,
	       NEURON_HEALTH_REASON_FW_NOT_ANSWERING);
}

/* The worst cause names the health: every pair, in the documented order. */
static void test_order(void **state)
{
	/* strongest first */
	static const uint32_t reasons[] = {
		NEURON_HEALTH_REASON_RESET_FAILED,
		NEURON_HEALTH_REASON_RESET_IN_PROGRESS,
		NEURON_HEALTH_REASON_SRAM_UNCORRECTABLE,
		NEURON_HEALTH_REASON_HBM_UNCORRECTABLE,
		NEURON_HEALTH_REASON_NC_UNRECOVERABLE,
		NEURON_HEALTH_REASON_FW_NOT_ANSWERING,
	};
	const size_t n = sizeof(reasons) / sizeof(reasons[0]);
	unsigned int mask;

	(void)state;
	for (mask = 1; mask < (1u << n); mask++) {
		struct neuron_health_in in = { 0 };
		size_t first = n, i;

		for (i = 0; i < n; i++) {
			if (!(mask & (1u << i)))
				continue;
			if (first == n)
				first = i;
			switch (reasons[i]) {
			case NEURON_HEALTH_REASON_RESET_FAILED: in.reset_failed = true; break;
			case NEURON_HEALTH_REASON_RESET_IN_PROGRESS: in.resetting = true; break;
			case NEURON_HEALTH_REASON_SRAM_UNCORRECTABLE: in.sram_ue = 2; break;
			case NEURON_HEALTH_REASON_HBM_UNCORRECTABLE: in.hbm_ue = 1; break;
			case NEURON_HEALTH_REASON_NC_UNRECOVERABLE: in.nc_unrecoverable = 4; break;
			default: in.fw_unanswered = true; break;
			}
		}
		assert_int_equal(neuron_health_device(&in).reason, reasons[first]);
	}
}

/* A NeuronCore's own health: only its own unrecoverable bit. */
static void test_core(void **state)
{
	struct neuron_health_in in = { .sram_ue = 5, .fw_unanswered = true,
				       .nc_unrecoverable = 1u << 2 };
	uint32_t nc;

	(void)state;
	for (nc = 0; nc < 8; nc++)
		expect(neuron_health_core(&in, nc),
		       nc == 2 ? NEURON_HEALTH_NEEDS_RESET : NEURON_HEALTH_OK,
		       nc == 2 ? NEURON_HEALTH_REASON_NC_UNRECOVERABLE : NEURON_HEALTH_REASON_NONE);
	/* out of the mask's range: never undefined, never unhealthy */
	in.nc_unrecoverable = UINT32_MAX;
	expect(neuron_health_core(&in, 31), NEURON_HEALTH_NEEDS_RESET,
	       NEURON_HEALTH_REASON_NC_UNRECOVERABLE);
	expect(neuron_health_core(&in, 32), NEURON_HEALTH_OK, NEURON_HEALTH_REASON_NONE);
	expect(neuron_health_core(&in, UINT32_MAX), NEURON_HEALTH_OK, NEURON_HEALTH_REASON_NONE);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(neuron_health_state_name(NEURON_HEALTH_OK), "ok");
	assert_string_equal(neuron_health_state_name(NEURON_HEALTH_DEGRADED), "degraded");
	assert_string_equal(neuron_health_state_name(NEURON_HEALTH_NEEDS_RESET), "needs_reset");
	assert_string_equal(neuron_health_state_name(NEURON_HEALTH_FAILED), "failed");
	assert_string_equal(neuron_health_state_name(NEURON_HEALTH_MAX + 1), "unknown");
	assert_string_equal(neuron_health_reason_name(NEURON_HEALTH_REASON_NONE), "none");
	assert_string_equal(neuron_health_reason_name(NEURON_HEALTH_REASON_RESET_IN_PROGRESS),
			    "reset_in_progress");
	assert_string_equal(neuron_health_reason_name(NEURON_HEALTH_REASON_FW_NOT_ANSWERING),
			    "fw_not_answering");
	assert_string_equal(neuron_health_reason_name(NEURON_HEALTH_REASON_NC_UNRECOVERABLE),
			    "nc_unrecoverable");
	assert_string_equal(neuron_health_reason_name(NEURON_HEALTH_REASON_HBM_UNCORRECTABLE),
			    "hbm_uncorrectable");
	assert_string_equal(neuron_health_reason_name(NEURON_HEALTH_REASON_SRAM_UNCORRECTABLE),
			    "sram_uncorrectable");
	assert_string_equal(neuron_health_reason_name(NEURON_HEALTH_REASON_RESET_FAILED),
			    "reset_failed");
	assert_string_equal(neuron_health_reason_name(NEURON_HEALTH_REASON_MAX + 1), "unknown");
	assert_string_equal(neuron_health_reason_name(UINT32_MAX), "unknown");
}

static void test_actions(void **state)
{
	struct neuron_health h;

	(void)state;
	h.state = NEURON_HEALTH_DEGRADED;
	h.reason = NEURON_HEALTH_REASON_RESET_IN_PROGRESS;
	assert_string_equal(neuron_health_action(h), "NONE");
	h.reason = NEURON_HEALTH_REASON_FW_NOT_ANSWERING;
	assert_string_equal(neuron_health_action(h), "RESET_DEVICE");
	h.state = NEURON_HEALTH_NEEDS_RESET;
	h.reason = NEURON_HEALTH_REASON_HBM_UNCORRECTABLE;
	assert_string_equal(neuron_health_action(h), "RESET_DEVICE");
	assert_int_equal(neuron_health_action_id(h), NEURON_ACTION_RESET_DEVICE);
	h.state = NEURON_HEALTH_FAILED;
	h.reason = NEURON_HEALTH_REASON_RESET_FAILED;
	assert_string_equal(neuron_health_action(h), "TERMINATE_INSTANCE");
	assert_int_equal(neuron_health_action_id(h), NEURON_ACTION_TERMINATE_INSTANCE);
	h.state = NEURON_HEALTH_OK;
	h.reason = NEURON_HEALTH_REASON_NONE;
	assert_int_equal(neuron_health_action_id(h), NEURON_ACTION_NONE);
}

/*
 * The one table onto the vendor's unhealthy_components and Observer's
 * states: each cause alone, all at once (every cause, the vendor's
 * order), a reset in progress unknown, NeuronCores no component.
 */
static void test_components(void **state)
{
	struct neuron_health_in in;
	struct neuron_health h;

	(void)state;
	memset(&in, 0, sizeof(in));
	assert_int_equal(neuron_health_components(&in), 0);
	in.sram_ue = 1;
	assert_int_equal(neuron_health_components(&in), 1u << NEURON_COMPONENT_SRAM);
	in.hbm_ue = 2;
	in.fw_unanswered = true;
	in.reset_failed = true;
	in.nc_unrecoverable = 5;
	assert_int_equal(neuron_health_components(&in),
			 (1u << NEURON_COMPONENT_HBM) | (1u << NEURON_COMPONENT_SRAM) |
			 (1u << NEURON_COMPONENT_FW_SERVICE_API) |
			 (1u << NEURON_COMPONENT_FW_SERVICE_PROCESSOR));
	memset(&in, 0, sizeof(in));
	in.nc_unrecoverable = 1;
	assert_int_equal(neuron_health_components(&in), 0);
	assert_string_equal(neuron_component_names[NEURON_COMPONENT_HBM], "hbm");
	assert_string_equal(neuron_component_names[NEURON_COMPONENT_FW_SERVICE_PROCESSOR],
			    "firmware_service_processor");
	assert_string_equal(neuron_component_names[NEURON_COMPONENT_AXI_FABRIC], "axi_fabric");
	h.state = NEURON_HEALTH_OK;
	h.reason = NEURON_HEALTH_REASON_NONE;
	assert_string_equal(neuron_health_observer(h), "healthy");
	h.state = NEURON_HEALTH_DEGRADED;
	h.reason = NEURON_HEALTH_REASON_RESET_IN_PROGRESS;
	assert_string_equal(neuron_health_observer(h), "unknown");
	h.reason = NEURON_HEALTH_REASON_FW_NOT_ANSWERING;
	assert_string_equal(neuron_health_observer(h), "unhealthy");
	h.state = NEURON_HEALTH_NEEDS_RESET;
	h.reason = NEURON_HEALTH_REASON_NC_UNRECOVERABLE;
	assert_string_equal(neuron_health_observer(h), "unhealthy");
	h.reason = NEURON_HEALTH_REASON_MAX + 1;
	assert_string_equal(neuron_health_observer(h), "unknown");
}

static void test_since(void **state)
{
	(void)state;
	assert_int_equal(neuron_health_since(0, 0), 0);
	assert_int_equal(neuron_health_since(3, 1), 2);
	assert_int_equal(neuron_health_since(1, 1), 0);
	/* the count went down (a firmware reset): nothing new */
	assert_int_equal(neuron_health_since(0, 7), 0);
	assert_int_equal(neuron_health_since(0xffff, 0), 0xffff);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ok),
		cmocka_unit_test(test_each_cause),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_core),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_actions),
		cmocka_unit_test(test_components),
		cmocka_unit_test(test_since),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
