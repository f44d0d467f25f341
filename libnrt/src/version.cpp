// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// nrt_get_version(): the library version from the build (VERSION file,
// git hash when built from a git tree).
#include <nrt/nrt_version.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "export.hpp"

#ifndef NRT_GIT_HASH
#define NRT_GIT_HASH "unknown"
#endif

NRT_EXPORT NRT_STATUS nrt_get_version(nrt_version_t *ver, size_t size)
{
	if (!ver || size == 0)
		return NRT_INVALID;
	nrt_version_t v{};
	unsigned long long major = 0, minor = 0, patch = 0, maint = 0;
	std::sscanf(NRT_VERSION_STRING, "%llu.%llu.%llu.%llu", &major, &minor, &patch, &maint);
	v.rt_major = major;
	v.rt_minor = minor;
	v.rt_patch = patch;
	v.rt_maintenance = maint;
	std::snprintf(v.rt_detail, sizeof(v.rt_detail), "libnrt %s (clean-room Neuron runtime subset)",
		      NRT_VERSION_STRING);
	std::snprintf(v.git_hash, sizeof(v.git_hash), "%s", NRT_GIT_HASH);
	size_t n = std::min(size, sizeof(v));
	std::memcpy(ver, &v, n);
	if (size > n)
		std::memset(reinterpret_cast<char *>(ver) + n, 0, size - n);
	return NRT_SUCCESS;
}
