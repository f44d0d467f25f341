// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * errno -> NRT_STATUS per syscall site. The expected matrix below is
 * written out independently of the library's tables (and mirrors the
 * table in docs/error-model.md); every row and every absence is checked.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <nrt/nrt_error_model.h>

/* cell values; 0 = not listed (the site's fallback applies) */
#define F NRT_FAILURE
#define I NRT_INVALID
#define H NRT_INVALID_HANDLE
#define R NRT_RESOURCE
#define T NRT_TIMEOUT
#define HW NRT_HW_ERROR
#define Q NRT_QUEUE_FULL
#define NC NRT_LOAD_NOT_ENOUGH_NC
#define HM NRT_FAIL_HOST_MEM_ALLOC
#define BI NRT_EXEC_BAD_INPUT
#define B NRT_EXEC_NC_BUSY
#define U NRT_EXEC_UNIT_UNRECOVERABLE
#define NL 0	/* not listed */

#define SITES 10

/* columns: open get_info nds_acquire nds_mmap counter_add nq_init nq_mmap
 *          core_reserve exec mem */
static const struct {
	int err;
	unsigned s[SITES];
} matrix[] = {
	{ EPERM,		{ F,  F,  F,  F,  F,  F,  F,  F,  F, F  } },
	{ ENOENT,		{ I,  F,  I,  H,  H,  I,  H,  I,  H, H  } },
	{ EINTR,		{ F,  F,  F,  F,  F,  F,  F,  F,  F, F  } },
	{ EIO,		{ HW, HW, HW, HW, HW, HW, HW, HW, HW, HW } },
	{ ENXIO,		{ I,  NL, NL, I,  NL, NL, I,  NL, NL, NL } },
	{ EBADF,		{ NL, H,  H,  H,  H,  H,  H,  H,  H, H  } },
	{ EAGAIN,		{ NL, NL, NL, HM, NL, NL, HM, B,  Q, NL } },
	{ ENOMEM,		{ R,  R,  R,  R,  R,  R,  R,  R,  R, R  } },
	{ EACCES,		{ F,  F,  F,  F,  F,  F,  F,  F,  F, F  } },
	{ EFAULT,		{ F,  F,  F,  F,  F,  F,  F,  F,  BI, I  } },
	{ EBUSY,		{ B,  B,  B,  B,  B,  B,  B,  B,  B, B  } },
	{ ENODEV,		{ I,  HW, HW, F,  HW, HW, F,  HW, HW, HW } },
	{ EINVAL,		{ I,  I,  I,  I,  I,  I,  I,  I,  I, I  } },
	{ ENFILE,		{ R,  NL, NL, NL, NL, NL, NL, NL, NL, NL } },
	{ EMFILE,		{ R,  NL, NL, NL, NL, NL, NL, NL, NL, NL } },
	{ ENOTTY,		{ F,  F,  F,  F,  F,  F,  F,  F,  F, F  } },
	{ ENOSPC,		{ F,  F,  R,  F,  R,  R,  F,  NC, Q, R  } },
	{ EOVERFLOW,	{ NL, NL, NL, I,  NL, NL, I,  NL, NL, NL } },
	{ EOPNOTSUPP,	{ F,  F,  F,  F,  F,  F,  F,  F,  F, F  } },
	{ ETIMEDOUT,	{ T,  T,  T,  F,  T,  T,  F,  T,  T, T  } },
	{ ECANCELED,	{ NL, NL, NL, NL, NL, B,  NL, B,  B, NL } },
	{ ENOTRECOVERABLE, { NL, NL, NL, NL, NL, NL, NL, NL, U,  NL } },
	{ 524,		{ F,  F,  F,  F,  F,  F,  F,  F,  F, F  } },	/* ENOTSUPP */
};

#define MATRIX_ROWS (sizeof(matrix) / sizeof(matrix[0]))

static const char *const site_names[SITES] = {
	"open", "get_info", "nds_acquire", "nds_mmap", "counter_add", "nq_init", "nq_mmap",
	"core_reserve", "exec", "mem",
};

static void every_cell(void **state)
{
	size_t r;
	int site;

	(void)state;
	assert_int_equal(NRT_SITE_COUNT, SITES);
	for (site = 0; site < SITES; site++) {
		assert_int_equal(nrt_errno_map_default((nrt_syscall_site_t)site), NRT_FAILURE);
		for (r = 0; r < MATRIX_ROWS; r++) {
			NRT_STATUS want = matrix[r].s[site] ? (NRT_STATUS)matrix[r].s[site] :
				nrt_errno_map_default((nrt_syscall_site_t)site);
			NRT_STATUS pos = nrt_status_from_errno((nrt_syscall_site_t)site, matrix[r].err);
			NRT_STATUS neg = nrt_status_from_errno((nrt_syscall_site_t)site, -matrix[r].err);

			if (pos != want || neg != want)
				fail_msg("%s errno %d: got %u/%u want %u", site_names[site],
					 matrix[r].err, pos, neg, want);
		}
	}
}

static void rows_are_exactly_the_matrix(void **state)
{
	nrt_errno_row_t rows[64];
	int site;

	(void)state;
	for (site = 0; site < SITES; site++) {
		size_t n = nrt_errno_map_rows((nrt_syscall_site_t)site, rows, 64), k = 0, r;

		assert_true(n <= 64);
		/* the matrix is ascending by errno value, like the tables */
		for (r = 0; r < MATRIX_ROWS; r++) {
			if (!matrix[r].s[site])
				continue;
			assert_true(k < n);
			if (rows[k].err != matrix[r].err || rows[k].status != matrix[r].s[site])
				fail_msg("%s row %zu: {%d,%u} want {%d,%u}", site_names[site], k,
					 rows[k].err, rows[k].status, matrix[r].err, matrix[r].s[site]);
			k++;
		}
		assert_int_equal(k, n);
		assert_int_equal(nrt_errno_map_rows((nrt_syscall_site_t)site, NULL, 0), n);
	}
}

static void matrix_is_sorted(void **state)
{
	size_t r;

	(void)state;
	for (r = 1; r < MATRIX_ROWS; r++)
		assert_true(matrix[r - 1].err < matrix[r].err);
}

static void short_copy(void **state)
{
	nrt_errno_row_t rows[3];

	(void)state;
	memset(rows, 0xab, sizeof(rows));
	assert_int_equal(nrt_errno_map_rows(NRT_SITE_EXEC, rows, 2), 19);
	assert_int_equal(rows[0].err, EPERM);
	assert_int_equal(rows[1].err, ENOENT);
	assert_int_equal(rows[1].status, NRT_INVALID_HANDLE);
	assert_int_equal(rows[2].err, (int32_t)0xabababab);
}

static void unlisted_and_zero(void **state)
{
	static const int unlisted[] = { ESRCH, E2BIG, EEXIST, ERANGE, ENOSYS, EPROTO, EALREADY,
					4095, 9999, INT_MAX, INT_MIN };
	size_t i;
	int site;

	(void)state;
	for (site = 0; site < SITES; site++) {
		assert_int_equal(nrt_status_from_errno((nrt_syscall_site_t)site, 0), NRT_SUCCESS);
		for (i = 0; i < sizeof(unlisted) / sizeof(unlisted[0]); i++) {
			assert_int_equal(nrt_status_from_errno((nrt_syscall_site_t)site, unlisted[i]),
					 NRT_FAILURE);
			if (unlisted[i] != INT_MIN)
				assert_int_equal(nrt_status_from_errno((nrt_syscall_site_t)site,
								       -unlisted[i]),
						 NRT_FAILURE);
		}
	}
}

static void bad_site(void **state)
{
	static const int bad[] = { SITES, 100, -1, INT_MAX };
	nrt_errno_row_t row;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		nrt_syscall_site_t s = (nrt_syscall_site_t)bad[i];

		assert_int_equal(nrt_status_from_errno(s, EBUSY), NRT_FAILURE);
		assert_int_equal(nrt_status_from_errno(s, 0), NRT_SUCCESS);
		assert_int_equal(nrt_errno_map_default(s), NRT_FAILURE);
		assert_int_equal(nrt_errno_map_rows(s, &row, 1), 0);
		assert_string_equal(nrt_syscall_site_name(s), "unknown");
	}
}

static void reference_conventions(void **state)
{
	(void)state;
	/* the seed's observed conventions and the brief's fixed points */
	assert_int_equal(nrt_status_from_errno(NRT_SITE_CORE_RESERVE, -ENOMEM), NRT_RESOURCE);
	assert_int_equal(nrt_status_from_errno(NRT_SITE_GET_INFO, -EINVAL), NRT_INVALID);
	assert_int_equal(nrt_status_from_errno(NRT_SITE_EXEC, -EBUSY), NRT_EXEC_NC_BUSY);
	assert_int_equal(nrt_status_from_errno(NRT_SITE_CORE_RESERVE, -EBUSY), NRT_EXEC_NC_BUSY);
	assert_int_equal(nrt_status_from_errno(NRT_SITE_NDS_ACQUIRE, -ENOSPC), NRT_RESOURCE);
	assert_int_equal(nrt_status_from_errno(NRT_SITE_EXEC, -ETIMEDOUT), NRT_TIMEOUT);
	assert_int_equal(nrt_status_from_errno(NRT_SITE_NQ_INIT, -EIO), NRT_HW_ERROR);
	assert_int_equal(nrt_status_from_errno(NRT_SITE_OPEN, ENOENT), NRT_INVALID);
	assert_int_equal(nrt_status_from_errno(NRT_SITE_EXEC, -NRT_ENOTSUPP), NRT_FAILURE);
	/* the same errno, different sites */
	assert_int_equal(nrt_status_from_errno(NRT_SITE_CORE_RESERVE, ENOSPC), NRT_LOAD_NOT_ENOUGH_NC);
	assert_int_equal(nrt_status_from_errno(NRT_SITE_EXEC, ENOSPC), NRT_QUEUE_FULL);
	assert_int_equal(nrt_status_from_errno(NRT_SITE_NDS_MMAP, EAGAIN), NRT_FAIL_HOST_MEM_ALLOC);
	assert_int_equal(nrt_status_from_errno(NRT_SITE_EXEC, ENOENT), NRT_INVALID_HANDLE);
	/* -ENOMEM -> 4 and -EBUSY -> 1005 at every site (docs/error-model.md) */
	for (int site = 0; site < NRT_SITE_COUNT; site++) {
		assert_int_equal(nrt_status_from_errno((nrt_syscall_site_t)site, -ENOMEM), NRT_RESOURCE);
		assert_int_equal(nrt_status_from_errno((nrt_syscall_site_t)site, -EBUSY), NRT_EXEC_NC_BUSY);
	}
	/* an uncorrectable NeuronCore, and device memory */
	assert_int_equal(nrt_status_from_errno(NRT_SITE_EXEC, -ENOTRECOVERABLE), NRT_EXEC_UNIT_UNRECOVERABLE);
	assert_int_equal(nrt_status_from_errno(NRT_SITE_MEM, -ENOMEM), NRT_RESOURCE);
	assert_int_equal(nrt_status_from_errno(NRT_SITE_MEM, -ENOENT), NRT_INVALID_HANDLE);
}

static void site_names_lookup(void **state)
{
	static const char *const prefixed[SITES] = {
		"NRT_SITE_OPEN", "NRT_SITE_GET_INFO", "NRT_SITE_NDS_ACQUIRE", "NRT_SITE_NDS_MMAP",
		"NRT_SITE_COUNTER_ADD", "NRT_SITE_NQ_INIT", "NRT_SITE_NQ_MMAP",
		"NRT_SITE_CORE_RESERVE", "NRT_SITE_EXEC", "NRT_SITE_MEM",
	};
	nrt_syscall_site_t s;
	int site;

	(void)state;
	for (site = 0; site < SITES; site++) {
		assert_string_equal(nrt_syscall_site_name((nrt_syscall_site_t)site), site_names[site]);
		s = NRT_SITE_COUNT;
		assert_true(nrt_syscall_site_from_name(site_names[site], &s));
		assert_int_equal(s, site);
		s = NRT_SITE_COUNT;
		assert_true(nrt_syscall_site_from_name(prefixed[site], &s));
		assert_int_equal(s, site);
	}
	assert_int_equal(NRT_SITE_OPEN, 0);
	assert_int_equal(NRT_SITE_EXEC, 8);
	assert_true(nrt_syscall_site_from_name("EXEC", &s));
	assert_int_equal(s, NRT_SITE_EXEC);
	assert_true(nrt_syscall_site_from_name("nrt_site_nq_mmap", &s));
	assert_int_equal(s, NRT_SITE_NQ_MMAP);
	s = NRT_SITE_OPEN;
	assert_false(nrt_syscall_site_from_name("NRT_SITE_", &s));
	assert_false(nrt_syscall_site_from_name("", &s));
	assert_false(nrt_syscall_site_from_name("execute", &s));
	assert_false(nrt_syscall_site_from_name("unknown", &s));
	assert_false(nrt_syscall_site_from_name(NULL, &s));
	assert_false(nrt_syscall_site_from_name("exec", NULL));
	assert_int_equal(s, NRT_SITE_OPEN);
}

static void errno_names(void **state)
{
	size_t r;

	(void)state;
	/* every errno a table lists has a name, round-tripping either sign */
	for (r = 0; r < MATRIX_ROWS; r++) {
		const char *n = nrt_errno_name(matrix[r].err);

		assert_non_null(n);
		assert_string_equal(nrt_errno_name(-matrix[r].err), n);
		assert_int_equal(nrt_errno_from_name(n), matrix[r].err);
	}
	assert_string_equal(nrt_errno_name(EBUSY), "EBUSY");
	assert_string_equal(nrt_errno_name(-ENOSPC), "ENOSPC");
	assert_string_equal(nrt_errno_name(524), "ENOTSUPP");
	assert_string_equal(nrt_errno_name(EOPNOTSUPP), "EOPNOTSUPP");
	assert_string_equal(nrt_errno_name(EAGAIN), "EAGAIN");
	assert_null(nrt_errno_name(0));
	assert_null(nrt_errno_name(9999));
	assert_null(nrt_errno_name(INT_MIN));

	assert_int_equal(nrt_errno_from_name("ebusy"), EBUSY);
	assert_int_equal(nrt_errno_from_name("EWOULDBLOCK"), EAGAIN);
	assert_int_equal(nrt_errno_from_name("ENOTSUP"), EOPNOTSUPP);
	assert_int_equal(nrt_errno_from_name("ENOTSUPP"), 524);
	assert_int_equal(nrt_errno_from_name("ETIMEDOUT"), ETIMEDOUT);
	assert_int_equal(nrt_errno_from_name("EBUS"), 0);
	assert_int_equal(nrt_errno_from_name("16"), 0);
	assert_int_equal(nrt_errno_from_name(""), 0);
	assert_int_equal(nrt_errno_from_name(NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_cell),
		cmocka_unit_test(rows_are_exactly_the_matrix),
		cmocka_unit_test(matrix_is_sorted),
		cmocka_unit_test(short_copy),
		cmocka_unit_test(unlisted_and_zero),
		cmocka_unit_test(bad_site),
		cmocka_unit_test(reference_conventions),
		cmocka_unit_test(site_names_lookup),
		cmocka_unit_test(errno_names),
	};
	return cmocka_run_group_tests_name("errno_map", tests, NULL, NULL);
}
