// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// C ABI of the errno -> NRT_STATUS tables, and errno names.
#include <nrt/nrt_error_model.h>

#include <array>
#include <cerrno>

#include "errno_map.hpp"
#include "export.hpp"
#include "status_text.hpp"

namespace nrt::errno_map {
namespace {

struct errno_name {
	int err;
	const char *name;
};

// Names nrt-status and the docs show. One name per value; the aliases
// EWOULDBLOCK and ENOTSUP are resolved in nrt_errno_from_name.
constexpr errno_name errno_names[] = {
	{ EPERM, "EPERM" },
	{ ENOENT, "ENOENT" },
	{ ESRCH, "ESRCH" },
	{ EINTR, "EINTR" },
	{ EIO, "EIO" },
	{ ENXIO, "ENXIO" },
	{ E2BIG, "E2BIG" },
	{ ENOEXEC, "ENOEXEC" },
	{ EBADF, "EBADF" },
	{ ECHILD, "ECHILD" },
	{ EAGAIN, "EAGAIN" },
	{ ENOMEM, "ENOMEM" },
	{ EACCES, "EACCES" },
	{ EFAULT, "EFAULT" },
	{ EBUSY, "EBUSY" },
	{ EEXIST, "EEXIST" },
	{ EXDEV, "EXDEV" },
	{ ENODEV, "ENODEV" },
	{ ENOTDIR, "ENOTDIR" },
	{ EISDIR, "EISDIR" },
	{ EINVAL, "EINVAL" },
	{ ENFILE, "ENFILE" },
	{ EMFILE, "EMFILE" },
	{ ENOTTY, "ENOTTY" },
	{ EFBIG, "EFBIG" },
	{ ENOSPC, "ENOSPC" },
	{ ESPIPE, "ESPIPE" },
	{ EROFS, "EROFS" },
	{ EPIPE, "EPIPE" },
	{ ERANGE, "ERANGE" },
	{ EDEADLK, "EDEADLK" },
	{ ENAMETOOLONG, "ENAMETOOLONG" },
	{ ENOSYS, "ENOSYS" },
	{ EPROTO, "EPROTO" },
	{ EOVERFLOW, "EOVERFLOW" },
	{ EOPNOTSUPP, "EOPNOTSUPP" },
	{ ECONNRESET, "ECONNRESET" },
	{ ETIMEDOUT, "ETIMEDOUT" },
	{ EHOSTUNREACH, "EHOSTUNREACH" },
	{ EALREADY, "EALREADY" },
	{ EINPROGRESS, "EINPROGRESS" },
	{ ECANCELED, "ECANCELED" },
	{ ENOTRECOVERABLE, "ENOTRECOVERABLE" },
	{ NRT_ENOTSUPP, "ENOTSUPP" },
};

constexpr bool names_cover_tables()
{
	for (const auto &t : sites) {
		for (size_t i = 0; i < t.n; i++) {
			bool found = false;
			for (const auto &n : errno_names)
				found |= n.err == t.rows[i].err;
			if (!found)
				return false;
		}
	}
	for (size_t i = 0; i < std::size(errno_names); i++)
		for (size_t j = i + 1; j < std::size(errno_names); j++)
			if (errno_names[i].err == errno_names[j].err)
				return false;
	return true;
}
static_assert(names_cover_tables(), "every table errno has one name");

} // namespace
} // namespace nrt::errno_map

using namespace nrt;
using namespace nrt::errno_map;

NRT_EXPORT NRT_STATUS nrt_status_from_errno(nrt_syscall_site_t site, int err)
{
	return errno_map::lookup(site, err);
}

NRT_EXPORT NRT_STATUS nrt_errno_map_default(nrt_syscall_site_t site)
{
	if (static_cast<unsigned>(site) >= sites.size())
		return NRT_FAILURE;
	return sites[static_cast<unsigned>(site)].fallback;
}

NRT_EXPORT size_t nrt_errno_map_rows(nrt_syscall_site_t site, nrt_errno_row_t *rows, size_t cap)
{
	if (static_cast<unsigned>(site) >= sites.size())
		return 0;
	const site_table &t = sites[static_cast<unsigned>(site)];
	for (size_t i = 0; i < t.n && i < cap && rows; i++) {
		rows[i].err = t.rows[i].err;
		rows[i].status = t.rows[i].status;
	}
	return t.n;
}

NRT_EXPORT const char *nrt_syscall_site_name(nrt_syscall_site_t site)
{
	if (static_cast<unsigned>(site) >= sites.size())
		return "unknown";
	return sites[static_cast<unsigned>(site)].name;
}

NRT_EXPORT bool nrt_syscall_site_from_name(const char *name, nrt_syscall_site_t *out)
{
	if (!name || !out)
		return false;
	const char *bare = text::skip_prefix(name, "NRT_SITE_");
	for (const auto &t : sites) {
		if (text::ieq(bare, t.name)) {
			*out = t.site;
			return true;
		}
	}
	return false;
}

NRT_EXPORT const char *nrt_errno_name(int err)
{
	int e = magnitude(err);
	for (const auto &n : errno_names)
		if (e && n.err == e)
			return n.name;
	return nullptr;
}

NRT_EXPORT int nrt_errno_from_name(const char *name)
{
	if (!name)
		return 0;
	if (text::ieq(name, "EWOULDBLOCK"))
		return EWOULDBLOCK;
	if (text::ieq(name, "ENOTSUP"))
		return ENOTSUP;
	for (const auto &n : errno_names)
		if (text::ieq(name, n.name))
			return n.err;
	return 0;
}
