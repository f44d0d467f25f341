/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The library's version, as the public SDK's nrt/nrt_version.h declares
 * it (struct fields, sizes and order; the call's signature).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <nrt/nrt_status.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RT_VERSION_DETAIL_LEN 128
#define GIT_HASH_LEN 64

typedef struct nrt_version {
	uint64_t rt_major;
	uint64_t rt_minor;
	uint64_t rt_patch;
	uint64_t rt_maintenance;
	char rt_detail[RT_VERSION_DETAIL_LEN];	/* NUL-terminated description */
	char git_hash[GIT_HASH_LEN];		/* NUL-terminated; "unknown" outside git */
} nrt_version_t;

/*
 * Fill the first @size bytes of *@ver (a caller built against an older,
 * shorter struct passes its own sizeof; the rest of a longer struct is
 * zeroed). NRT_INVALID when @ver is NULL or @size is 0.
 */
NRT_STATUS nrt_get_version(nrt_version_t *ver, size_t size);

#ifdef __cplusplus
}
#endif
