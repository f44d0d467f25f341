// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// C ABI of the status space: names, priority, bands, fold.
#include <nrt/nrt_error_model.h>
#include <nrt/nrt_status.h>

#include "export.hpp"
#include "status.hpp"
#include "status_text.hpp"

using namespace nrt;

NRT_EXPORT const char *nrt_get_status_as_str(NRT_STATUS status)
{
	return status::as_str(static_cast<uint32_t>(status));
}

NRT_EXPORT int nrt_get_status_priority(NRT_STATUS status)
{
	return status::priority(static_cast<uint32_t>(status));
}

NRT_EXPORT nrt_status_band_t nrt_status_band(NRT_STATUS status)
{
	return status::band(static_cast<uint32_t>(status));
}

NRT_EXPORT const char *nrt_status_band_name(nrt_status_band_t band)
{
	switch (band) {
	case NRT_STATUS_BAND_GENERAL:
		return "general";
	case NRT_STATUS_BAND_EXEC_UNIT:
		return "exec_unit";
	case NRT_STATUS_BAND_EXEC:
		return "exec";
	case NRT_STATUS_BAND_COLL_PENDING:
		return "coll_pending";
	case NRT_STATUS_BAND_HW_EXEC:
		return "hw_exec";
	case NRT_STATUS_BAND_UNKNOWN:
		break;
	}
	return "unknown";
}

NRT_EXPORT bool nrt_status_is_valid(NRT_STATUS status)
{
	return status::is_valid(static_cast<uint32_t>(status));
}

NRT_EXPORT bool nrt_status_is_retry(NRT_STATUS status)
{
	return status == NRT_COLL_PENDING;
}

NRT_EXPORT bool nrt_status_from_name(const char *name, NRT_STATUS *out)
{
	if (!name || !out)
		return false;
	const char *bare = text::skip_prefix(name, "NRT_");
	for (const auto &c : status::codes) {
		if (text::ieq(bare, c.name + 4)) {	// every name starts "NRT_"
			*out = c.code;
			return true;
		}
	}
	return false;
}

NRT_EXPORT bool nrt_status_code_at(size_t index, NRT_STATUS *out)
{
	if (index >= status::codes.size() || !out)
		return false;
	*out = status::codes[index].code;
	return true;
}

NRT_EXPORT NRT_STATUS nrt_status_fold(const NRT_STATUS *statuses, size_t n)
{
	if (n == 0)
		return NRT_SUCCESS;
	if (!statuses)
		return NRT_INVALID;
	return status::fold(statuses, n);
}

NRT_EXPORT NRT_STATUS nrt_status_merge(NRT_STATUS a, NRT_STATUS b)
{
	const NRT_STATUS pair[2] = { a, b };
	return status::fold(pair, 2);
}
