// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * NRT_STATUS names, priority, bands, lookup and fold. The sweeps compare
 * the library against a model written here independently (a plain switch
 * and the seed's if-chain), not against the library's own tables.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <nrt/nrt_error_model.h>
#include <nrt/nrt_status.h>

/* ---- independent model ------------------------------------------------ */

static const char *model_name(uint32_t s)
{
	switch (s) {
	case 0: return "NRT_SUCCESS";
	case 1: return "NRT_FAILURE";
	case 2: return "NRT_INVALID";
	case 3: return "NRT_INVALID_HANDLE";
	case 4: return "NRT_RESOURCE";
	case 5: return "NRT_TIMEOUT";
	case 6: return "NRT_HW_ERROR";
	case 7: return "NRT_QUEUE_FULL";
	case 9: return "NRT_LOAD_NOT_ENOUGH_NC";
	case 10: return "NRT_UNSUPPORTED_NEFF_VERSION";
	case 11: return "NRT_FAIL_HOST_MEM_ALLOC";
	case 13: return "NRT_UNINITIALIZED";
	case 14: return "NRT_CLOSED";
	case 15: return "NRT_QUEUE_EMPTY";
	case 101: return "NRT_EXEC_UNIT_UNRECOVERABLE";
	case 1002: return "NRT_EXEC_BAD_INPUT";
	case 1003: return "NRT_EXEC_COMPLETED_WITH_NUM_ERR";
	case 1004: return "NRT_EXEC_COMPLETED_WITH_ERR";
	case 1005: return "NRT_EXEC_NC_BUSY";
	case 1006: return "NRT_EXEC_OOB";
	case 1100: return "NRT_COLL_PENDING";
	case 1200: return "NRT_EXEC_HW_ERR_COLLECTIVES";
	case 1201: return "NRT_EXEC_HW_ERR_HBM_UE";
	case 1202: return "NRT_EXEC_HW_ERR_NC_UE";
	case 1203: return "NRT_EXEC_HW_ERR_DMA_ABORT";
	case 1204: return "NRT_EXEC_SW_NQ_OVERFLOW";
	case 1205: return "NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE";
	case 1206: return "NRT_NETWORK_PROXY_FAILURE";
	default: return "UNKNOWN";
	}
}

/* The seed's pseudocode, transcribed as written. */
static int model_priority(uint32_t s)
{
	if (s == 1004)
		return 3;
	if (s <= 1004) {
		if (s == 0)
			return 0;
		if (s == 5 || s == 6)
			return 2;
		return 1;
	}
	if (s == 1205)
		return 3;
	if (s > 1205) {
		if (s == 1206)
			return 2;
		return 1;
	}
	if (s == 1204)
		return 2;
	if (s >= 1200)
		return 3;
	return 1;
}

static nrt_status_band_t model_band(uint32_t s)
{
	if (strcmp(model_name(s), "UNKNOWN") == 0)
		return NRT_STATUS_BAND_UNKNOWN;
	if (s <= 15)
		return NRT_STATUS_BAND_GENERAL;
	if (s == 101)
		return NRT_STATUS_BAND_EXEC_UNIT;
	if (s >= 1002 && s <= 1006)
		return NRT_STATUS_BAND_EXEC;
	if (s == 1100)
		return NRT_STATUS_BAND_COLL_PENDING;
	return NRT_STATUS_BAND_HW_EXEC;
}

static uint64_t lcg_state;

static uint32_t lcg_next(void)
{
	lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(lcg_state >> 32);
}

static void check_value(uint32_t v)
{
	const char *want = model_name(v);
	const char *got = nrt_get_status_as_str((NRT_STATUS)v);

	assert_non_null(got);
	if (strcmp(got, want) != 0)
		fail_msg("as_str(%u) = %s, want %s", v, got, want);
	if (nrt_get_status_priority((NRT_STATUS)v) != model_priority(v))
		fail_msg("priority(%u) = %d, want %d", v,
			 nrt_get_status_priority((NRT_STATUS)v), model_priority(v));
	if (nrt_status_band((NRT_STATUS)v) != model_band(v))
		fail_msg("band(%u) = %d, want %d", v, nrt_status_band((NRT_STATUS)v),
			 model_band(v));
	if (nrt_status_is_valid((NRT_STATUS)v) != (strcmp(want, "UNKNOWN") != 0))
		fail_msg("is_valid(%u)", v);
	if (nrt_status_is_retry((NRT_STATUS)v) != (v == 1100))
		fail_msg("is_retry(%u)", v);
}

/* ---- the 28 codes, row by row ----------------------------------------- */

static const struct {
	NRT_STATUS code;
	uint32_t value;
	const char *name;
	int priority;
	nrt_status_band_t band;
} master[] = {
	{ NRT_SUCCESS, 0, "NRT_SUCCESS", 0, NRT_STATUS_BAND_GENERAL },
	{ NRT_FAILURE, 1, "NRT_FAILURE", 1, NRT_STATUS_BAND_GENERAL },
	{ NRT_INVALID, 2, "NRT_INVALID", 1, NRT_STATUS_BAND_GENERAL },
	{ NRT_INVALID_HANDLE, 3, "NRT_INVALID_HANDLE", 1, NRT_STATUS_BAND_GENERAL },
	{ NRT_RESOURCE, 4, "NRT_RESOURCE", 1, NRT_STATUS_BAND_GENERAL },
	{ NRT_TIMEOUT, 5, "NRT_TIMEOUT", 2, NRT_STATUS_BAND_GENERAL },
	{ NRT_HW_ERROR, 6, "NRT_HW_ERROR", 2, NRT_STATUS_BAND_GENERAL },
	{ NRT_QUEUE_FULL, 7, "NRT_QUEUE_FULL", 1, NRT_STATUS_BAND_GENERAL },
	{ NRT_LOAD_NOT_ENOUGH_NC, 9, "NRT_LOAD_NOT_ENOUGH_NC", 1, NRT_STATUS_BAND_GENERAL },
	{ NRT_UNSUPPORTED_NEFF_VERSION, 10, "NRT_UNSUPPORTED_NEFF_VERSION", 1,
	  NRT_STATUS_BAND_GENERAL },
	{ NRT_FAIL_HOST_MEM_ALLOC, 11, "NRT_FAIL_HOST_MEM_ALLOC", 1, NRT_STATUS_BAND_GENERAL },
	{ NRT_UNINITIALIZED, 13, "NRT_UNINITIALIZED", 1, NRT_STATUS_BAND_GENERAL },
	{ NRT_CLOSED, 14, "NRT_CLOSED", 1, NRT_STATUS_BAND_GENERAL },
	{ NRT_QUEUE_EMPTY, 15, "NRT_QUEUE_EMPTY", 1, NRT_STATUS_BAND_GENERAL },
	{ NRT_EXEC_UNIT_UNRECOVERABLE, 101, "NRT_EXEC_UNIT_UNRECOVERABLE", 1,
	  NRT_STATUS_BAND_EXEC_UNIT },
	{ NRT_EXEC_BAD_INPUT, 1002, "NRT_EXEC_BAD_INPUT", 1, NRT_STATUS_BAND_EXEC },
	{ NRT_EXEC_COMPLETED_WITH_NUM_ERR, 1003, "NRT_EXEC_COMPLETED_WITH_NUM_ERR", 1,
	  NRT_STATUS_BAND_EXEC },
	{ NRT_EXEC_COMPLETED_WITH_ERR, 1004, "NRT_EXEC_COMPLETED_WITH_ERR", 3,
	  NRT_STATUS_BAND_EXEC },
	{ NRT_EXEC_NC_BUSY, 1005, "NRT_EXEC_NC_BUSY", 1, NRT_STATUS_BAND_EXEC },
	{ NRT_EXEC_OOB, 1006, "NRT_EXEC_OOB", 1, NRT_STATUS_BAND_EXEC },
	{ NRT_COLL_PENDING, 1100, "NRT_COLL_PENDING", 1, NRT_STATUS_BAND_COLL_PENDING },
	{ NRT_EXEC_HW_ERR_COLLECTIVES, 1200, "NRT_EXEC_HW_ERR_COLLECTIVES", 3,
	  NRT_STATUS_BAND_HW_EXEC },
	{ NRT_EXEC_HW_ERR_HBM_UE, 1201, "NRT_EXEC_HW_ERR_HBM_UE", 3, NRT_STATUS_BAND_HW_EXEC },
	{ NRT_EXEC_HW_ERR_NC_UE, 1202, "NRT_EXEC_HW_ERR_NC_UE", 3, NRT_STATUS_BAND_HW_EXEC },
	{ NRT_EXEC_HW_ERR_DMA_ABORT, 1203, "NRT_EXEC_HW_ERR_DMA_ABORT", 3,
	  NRT_STATUS_BAND_HW_EXEC },
	{ NRT_EXEC_SW_NQ_OVERFLOW, 1204, "NRT_EXEC_SW_NQ_OVERFLOW", 2, NRT_STATUS_BAND_HW_EXEC },
	{ NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE, 1205, "NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE", 3,
	  NRT_STATUS_BAND_HW_EXEC },
	{ NRT_NETWORK_PROXY_FAILURE, 1206, "NRT_NETWORK_PROXY_FAILURE", 2,
	  NRT_STATUS_BAND_HW_EXEC },
};

#define MASTER_ROWS (sizeof(master) / sizeof(master[0]))

static void master_table(void **state)
{
	size_t i;

	(void)state;
	assert_int_equal(MASTER_ROWS, NRT_STATUS_CODE_COUNT);
	for (i = 0; i < MASTER_ROWS; i++) {
		NRT_STATUS at;

		assert_int_equal((uint32_t)master[i].code, master[i].value);
		assert_string_equal(nrt_get_status_as_str(master[i].code), master[i].name);
		assert_int_equal(nrt_get_status_priority(master[i].code), master[i].priority);
		assert_int_equal(nrt_status_band(master[i].code), master[i].band);
		assert_true(nrt_status_is_valid(master[i].code));
		assert_true(nrt_status_code_at(i, &at));
		assert_int_equal(at, master[i].code);
	}
	assert_false(nrt_status_code_at(MASTER_ROWS, NULL));
	{
		NRT_STATUS at = NRT_FAILURE;

		assert_false(nrt_status_code_at(MASTER_ROWS, &at));
		assert_false(nrt_status_code_at(SIZE_MAX, &at));
		assert_int_equal(at, NRT_FAILURE);
		assert_false(nrt_status_code_at(0, NULL));
	}
}

static void unknown_values(void **state)
{
	static const uint32_t holes[] = {
		8, 12, 16, 17, 100, 102, 1001, 1007, 1099, 1101, 1199, 1207,
		4096, 0x7fffffffu, 0x80000000u, UINT32_MAX,
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(holes) / sizeof(holes[0]); i++) {
		assert_string_equal(nrt_get_status_as_str((NRT_STATUS)holes[i]), "UNKNOWN");
		assert_int_equal(nrt_status_band((NRT_STATUS)holes[i]), NRT_STATUS_BAND_UNKNOWN);
		assert_false(nrt_status_is_valid((NRT_STATUS)holes[i]));
		assert_int_equal(nrt_get_status_priority((NRT_STATUS)holes[i]), 1);
	}
}

static void priority_boundaries(void **state)
{
	static const struct {
		uint32_t s;
		int prio;
	} b[] = {
		{ 0, 0 }, { 1, 1 }, { 4, 1 }, { 5, 2 }, { 6, 2 }, { 7, 1 }, { 15, 1 },
		{ 16, 1 }, { 101, 1 }, { 1002, 1 }, { 1003, 1 }, { 1004, 3 }, { 1005, 1 },
		{ 1006, 1 }, { 1099, 1 }, { 1100, 1 }, { 1101, 1 }, { 1199, 1 },
		{ 1200, 3 }, { 1201, 3 }, { 1202, 3 }, { 1203, 3 }, { 1204, 2 },
		{ 1205, 3 }, { 1206, 2 }, { 1207, 1 }, { UINT32_MAX, 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(b) / sizeof(b[0]); i++)
		if (nrt_get_status_priority((NRT_STATUS)b[i].s) != b[i].prio)
			fail_msg("priority(%u) = %d, want %d", b[i].s,
				 nrt_get_status_priority((NRT_STATUS)b[i].s), b[i].prio);
}

static void sweep_low(void **state)
{
	uint32_t v;

	(void)state;
	for (v = 0; v <= 70000; v++)
		check_value(v);
}

static void sweep_random(void **state)
{
	uint32_t i;

	(void)state;
	lcg_state = 0x5eed5eed12345678ULL;
	for (i = 0; i < 1000000; i++)
		check_value(lcg_next());
	check_value(UINT32_MAX);
	check_value(UINT32_MAX - 1);
	check_value(0x80000000u);
	check_value(0xffffffffu - 1004u);
}

static void band_names(void **state)
{
	(void)state;
	assert_string_equal(nrt_status_band_name(NRT_STATUS_BAND_UNKNOWN), "unknown");
	assert_string_equal(nrt_status_band_name(NRT_STATUS_BAND_GENERAL), "general");
	assert_string_equal(nrt_status_band_name(NRT_STATUS_BAND_EXEC_UNIT), "exec_unit");
	assert_string_equal(nrt_status_band_name(NRT_STATUS_BAND_EXEC), "exec");
	assert_string_equal(nrt_status_band_name(NRT_STATUS_BAND_COLL_PENDING), "coll_pending");
	assert_string_equal(nrt_status_band_name(NRT_STATUS_BAND_HW_EXEC), "hw_exec");
	assert_string_equal(nrt_status_band_name((nrt_status_band_t)42), "unknown");
}

static void retry(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < MASTER_ROWS; i++)
		assert_int_equal(nrt_status_is_retry(master[i].code),
				 master[i].code == NRT_COLL_PENDING);
	assert_false(nrt_status_is_retry((NRT_STATUS)1101));
	assert_false(nrt_status_is_retry((NRT_STATUS)UINT32_MAX));
}

static void from_name(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < MASTER_ROWS; i++) {
		NRT_STATUS s = (NRT_STATUS)12345;
		char lower[64];
		size_t k;

		assert_true(nrt_status_from_name(master[i].name, &s));
		assert_int_equal(s, master[i].code);

		/* lower case, without the NRT_ prefix */
		for (k = 0; master[i].name[k + 4]; k++) {
			char c = master[i].name[k + 4];

			lower[k] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
		}
		lower[k] = '\0';
		s = (NRT_STATUS)12345;
		assert_true(nrt_status_from_name(lower, &s));
		assert_int_equal(s, master[i].code);
	}
	{
		static const char *const bad[] = {
			"UNKNOWN", "", "NRT_", "NRT", "NRT_EXEC", "NRT_EXEC_OOBX",
			"NRT_EXEC_OO", "1004", " NRT_EXEC_OOB", "NRT_NRT_EXEC_OOB",
		};
		NRT_STATUS s = NRT_HW_ERROR;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			assert_false(nrt_status_from_name(bad[i], &s));
			assert_int_equal(s, NRT_HW_ERROR);
		}
		assert_false(nrt_status_from_name(NULL, &s));
		assert_false(nrt_status_from_name("NRT_EXEC_OOB", NULL));
		assert_true(nrt_status_from_name("nRt_ExEc_OoB", &s));
		assert_int_equal(s, NRT_EXEC_OOB);
	}
}

/* ---- fold ------------------------------------------------------------- */

static NRT_STATUS model_fold(const NRT_STATUS *s, size_t n)
{
	NRT_STATUS best = NRT_SUCCESS;
	int best_prio = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		int p = model_priority((uint32_t)s[i]);

		if (p > best_prio) {	/* strictly greater: first of a tie stays */
			best = s[i];
			best_prio = p;
		}
	}
	return best;
}

#define FOLD(...) \
	nrt_status_fold((const NRT_STATUS[]){ __VA_ARGS__ }, \
			sizeof((const NRT_STATUS[]){ __VA_ARGS__ }) / sizeof(NRT_STATUS))

static void fold_rules(void **state)
{
	(void)state;
	assert_int_equal(nrt_status_fold(NULL, 0), NRT_SUCCESS);
	assert_int_equal(nrt_status_fold(NULL, 3), NRT_INVALID);
	{
		NRT_STATUS one = NRT_EXEC_OOB;

		assert_int_equal(nrt_status_fold(&one, 0), NRT_SUCCESS);
		assert_int_equal(nrt_status_fold(&one, 1), NRT_EXEC_OOB);
	}
	/* 1004 (3) beats the numerically larger 1206 (2), in either order */
	assert_int_equal(FOLD(NRT_EXEC_COMPLETED_WITH_ERR, NRT_NETWORK_PROXY_FAILURE),
			 NRT_EXEC_COMPLETED_WITH_ERR);
	assert_int_equal(FOLD(NRT_NETWORK_PROXY_FAILURE, NRT_EXEC_COMPLETED_WITH_ERR),
			 NRT_EXEC_COMPLETED_WITH_ERR);
	/* ties: the first wins */
	assert_int_equal(FOLD(NRT_FAILURE, NRT_INVALID), NRT_FAILURE);
	assert_int_equal(FOLD(NRT_INVALID, NRT_FAILURE), NRT_INVALID);
	assert_int_equal(FOLD(NRT_TIMEOUT, NRT_HW_ERROR), NRT_TIMEOUT);
	assert_int_equal(FOLD(NRT_HW_ERROR, NRT_TIMEOUT), NRT_HW_ERROR);
	assert_int_equal(FOLD(NRT_EXEC_HW_ERR_COLLECTIVES, NRT_EXEC_COMPLETED_WITH_ERR),
			 NRT_EXEC_HW_ERR_COLLECTIVES);
	assert_int_equal(FOLD(NRT_EXEC_COMPLETED_WITH_ERR, NRT_EXEC_HW_ERR_COLLECTIVES),
			 NRT_EXEC_COMPLETED_WITH_ERR);
	assert_int_equal(FOLD(NRT_EXEC_SW_NQ_OVERFLOW, NRT_NETWORK_PROXY_FAILURE),
			 NRT_EXEC_SW_NQ_OVERFLOW);
	assert_int_equal(FOLD(NRT_EXEC_COMPLETED_WITH_NUM_ERR, NRT_EXEC_NC_BUSY),
			 NRT_EXEC_COMPLETED_WITH_NUM_ERR);
	/* success loses to anything, unknown values included */
	assert_int_equal(FOLD(NRT_SUCCESS, NRT_SUCCESS), NRT_SUCCESS);
	assert_int_equal(FOLD(NRT_SUCCESS, (NRT_STATUS)5000), 5000);
	assert_int_equal(FOLD((NRT_STATUS)5000, NRT_FAILURE), 5000);
	/* rank, not value */
	assert_int_equal(FOLD(NRT_QUEUE_FULL, NRT_TIMEOUT, NRT_NETWORK_PROXY_FAILURE, NRT_HW_ERROR),
			 NRT_TIMEOUT);
	assert_int_equal(FOLD(NRT_TIMEOUT, NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE, NRT_EXEC_HW_ERR_HBM_UE),
			 NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE);
	assert_int_equal(FOLD(NRT_COLL_PENDING, NRT_SUCCESS), NRT_COLL_PENDING);

	assert_int_equal(nrt_status_merge(NRT_EXEC_COMPLETED_WITH_ERR, NRT_NETWORK_PROXY_FAILURE),
			 NRT_EXEC_COMPLETED_WITH_ERR);
	assert_int_equal(nrt_status_merge(NRT_NETWORK_PROXY_FAILURE, NRT_EXEC_COMPLETED_WITH_ERR),
			 NRT_EXEC_COMPLETED_WITH_ERR);
	assert_int_equal(nrt_status_merge(NRT_INVALID, NRT_FAILURE), NRT_INVALID);
	assert_int_equal(nrt_status_merge(NRT_SUCCESS, NRT_SUCCESS), NRT_SUCCESS);
	assert_int_equal(nrt_status_merge(NRT_SUCCESS, NRT_CLOSED), NRT_CLOSED);
}

static void fold_random(void **state)
{
	NRT_STATUS arr[9];
	uint32_t round;

	(void)state;
	lcg_state = 42;
	for (round = 0; round < 200000; round++) {
		size_t n = lcg_next() % 10, i;

		for (i = 0; i < n; i++) {
			uint32_t r = lcg_next();

			/* mostly assigned codes so ties are frequent */
			arr[i] = (r & 3) ? master[(r >> 2) % MASTER_ROWS].code : (NRT_STATUS)(r >> 2);
		}
		if (nrt_status_fold(arr, n) != model_fold(arr, n))
			fail_msg("fold mismatch in round %u", round);
		if (n >= 2 && nrt_status_merge(arr[0], arr[1]) != model_fold(arr, 2))
			fail_msg("merge mismatch in round %u", round);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(master_table),
		cmocka_unit_test(unknown_values),
		cmocka_unit_test(priority_boundaries),
		cmocka_unit_test(sweep_low),
		cmocka_unit_test(sweep_random),
		cmocka_unit_test(band_names),
		cmocka_unit_test(retry),
		cmocka_unit_test(from_name),
		cmocka_unit_test(fold_rules),
		cmocka_unit_test(fold_random),
	};
	return cmocka_run_group_tests_name("status", tests, NULL, NULL);
}
