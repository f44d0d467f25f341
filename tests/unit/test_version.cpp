// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// nrt_get_version(): the runtime's version and git hash, NUL-terminated,
// and nothing written past an older caller's shorter struct.
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstring>
extern "C" {
#include <cmocka.h>
}

#include <nrt/nrt_version.h>

static void version(void **)
{
	nrt_version_t v;
	std::memset(&v, 0xff, sizeof(v));
	assert_int_equal(nrt_get_version(&v, sizeof(v)), NRT_SUCCESS);
	assert_non_null(std::memchr(v.rt_detail, '\0', sizeof(v.rt_detail)));
	assert_non_null(std::memchr(v.git_hash, '\0', sizeof(v.git_hash)));
	assert_true(v.rt_major < 1000 && v.rt_minor < 1000);
	assert_int_equal(nrt_get_version(nullptr, sizeof(v)), NRT_INVALID);
	// an older, shorter struct: nothing past its size is written
	unsigned char small[16 + 1];
	std::memset(small, 0xab, sizeof(small));
	assert_int_equal(nrt_get_version(reinterpret_cast<nrt_version_t *>(small), 16), NRT_SUCCESS);
	assert_int_equal(small[16], 0xab);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(version),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
