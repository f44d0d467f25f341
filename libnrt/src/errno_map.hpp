/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// Kernel errno -> NRT_STATUS, one table per libnrt syscall site. The
// reasons for every row are in docs/error-model.md ("errno tables").
#pragma once

#include <nrt/nrt_error_model.h>

#include <array>
#include <cerrno>
#include <cstddef>

#include "status.hpp"

namespace nrt::errno_map {

struct row {
	int err;
	NRT_STATUS status;
};

struct site_table {
	nrt_syscall_site_t site;
	const char *name;
	NRT_STATUS fallback;	// an errno the table does not list
	const row *rows;
	size_t n;
};

// Shorthands for the tables only.
inline constexpr NRT_STATUS F = NRT_FAILURE;
inline constexpr NRT_STATUS I = NRT_INVALID;
inline constexpr NRT_STATUS H = NRT_INVALID_HANDLE;
inline constexpr NRT_STATUS R = NRT_RESOURCE;
inline constexpr NRT_STATUS T = NRT_TIMEOUT;
inline constexpr NRT_STATUS HW = NRT_HW_ERROR;
inline constexpr NRT_STATUS HM = NRT_FAIL_HOST_MEM_ALLOC;
inline constexpr NRT_STATUS BUSY = NRT_EXEC_NC_BUSY;

// Every table decides each of these explicitly, even where the answer is
// the site's fallback.
inline constexpr std::array<int, 15> core_errnos = {
	EPERM, ENOENT, EINTR, EIO, ENOMEM, EACCES, EFAULT, EBUSY, ENODEV,
	EINVAL, ENOTTY, ENOSPC, EOPNOTSUPP, ETIMEDOUT, NRT_ENOTSUPP,
};

// Rows ascending by errno value (checked below).
inline constexpr row open_rows[] = {
	{ EPERM, F },		// LSM / policy denial
	{ ENOENT, I },		// no /dev/neuronN: no such device
	{ EINTR, F },
	{ EIO, HW },		// device failed while opening
	{ ENXIO, I },		// node without a device behind it
	{ ENOMEM, R },
	{ EACCES, F },		// no permission on the node
	{ EFAULT, F },		// libnrt passed a bad path pointer
	{ EBUSY, BUSY },	// device held exclusively or being reset
	{ ENODEV, I },		// no such device
	{ EINVAL, I },
	{ ENFILE, R },		// out of file descriptors
	{ EMFILE, R },
	{ ENOTTY, F },
	{ ENOSPC, F },
	{ EOPNOTSUPP, F },
	{ ETIMEDOUT, T },	// device init did not finish
	{ NRT_ENOTSUPP, F },
};

inline constexpr row get_info_rows[] = {
	{ EPERM, F },
	{ ENOENT, F },		// cannot happen on an open fd: driver bug
	{ EINTR, F },
	{ EIO, HW },
	{ EBADF, H },		// device handle's fd is not open
	{ ENOMEM, R },
	{ EACCES, F },
	{ EFAULT, F },		// libnrt owns the struct: a libnrt bug
	{ EBUSY, BUSY },	// seed convention (docs/error-model.md)
	{ ENODEV, HW },		// device gone after open
	{ EINVAL, I },		// size/flags/reserved refused: ABI mismatch
	{ ENOTTY, F },		// not this driver
	{ ENOSPC, F },
	{ EOPNOTSUPP, F },
	{ ETIMEDOUT, T },
	{ NRT_ENOTSUPP, F },
};

inline constexpr row nds_acquire_rows[] = {
	{ EPERM, F },
	{ ENOENT, I },		// no such NeuronCore / device index
	{ EINTR, F },
	{ EIO, HW },
	{ EBADF, H },
	{ ENOMEM, R },
	{ EACCES, F },
	{ EFAULT, F },
	{ EBUSY, BUSY },	// seed convention: -EBUSY -> 1005 (docs/error-model.md)
	{ ENODEV, HW },
	{ EINVAL, I },
	{ ENOTTY, F },		// driver without NDS
	{ ENOSPC, R },		// no free slab on the device
	{ EOPNOTSUPP, F },
	{ ETIMEDOUT, T },
	{ NRT_ENOTSUPP, F },
};

inline constexpr row nds_mmap_rows[] = {
	{ EPERM, F },
	{ ENOENT, H },		// no slab acquired at this offset
	{ EINTR, F },
	{ EIO, HW },
	{ ENXIO, I },		// offset/length past the slab
	{ EBADF, H },
	{ EAGAIN, HM },		// locked-memory limit
	{ ENOMEM, R },		// seed convention: -ENOMEM -> NRT_RESOURCE
	{ EACCES, F },		// fd mode does not allow the mapping
	{ EFAULT, F },
	{ EBUSY, BUSY },	// seed convention
	{ ENODEV, F },		// fd does not support mmap
	{ EINVAL, I },
	{ ENOTTY, F },
	{ ENOSPC, F },
	{ EOVERFLOW, I },	// offset + length overflow
	{ EOPNOTSUPP, F },
	{ ETIMEDOUT, F },
	{ NRT_ENOTSUPP, F },
};

inline constexpr row counter_add_rows[] = {
	{ EPERM, F },
	{ ENOENT, H },		// slab not acquired
	{ EINTR, F },
	{ EIO, HW },
	{ EBADF, H },
	{ ENOMEM, R },
	{ EACCES, F },
	{ EFAULT, F },
	{ EBUSY, BUSY },	// seed convention
	{ ENODEV, HW },
	{ EINVAL, I },		// counter id / NC out of range
	{ ENOTTY, F },
	{ ENOSPC, R },
	{ EOPNOTSUPP, F },
	{ ETIMEDOUT, T },
	{ NRT_ENOTSUPP, F },
};

inline constexpr row nq_init_rows[] = {
	{ EPERM, F },
	{ ENOENT, I },		// no such NeuronCore / engine
	{ EINTR, F },
	{ EIO, HW },
	{ EBADF, H },
	{ ENOMEM, R },		// ring memory
	{ EACCES, F },
	{ EFAULT, F },
	{ EBUSY, BUSY },	// the queue's NC is owned by another process
	{ ENODEV, HW },
	{ EINVAL, I },
	{ ENOTTY, F },		// driver without NQ
	{ ENOSPC, R },		// no free queue slot
	{ EOPNOTSUPP, F },
	{ ETIMEDOUT, T },
	{ ECANCELED, BUSY },	// root took the NC back from this process (CORE_TAKE_BACK)
	{ NRT_ENOTSUPP, F },
};

inline constexpr row nq_mmap_rows[] = {
	{ EPERM, F },
	{ ENOENT, H },		// queue not initialised
	{ EINTR, F },
	{ EIO, HW },
	{ ENXIO, I },
	{ EBADF, H },
	{ EAGAIN, HM },
	{ ENOMEM, R },		// seed convention
	{ EACCES, F },
	{ EFAULT, F },
	{ EBUSY, BUSY },	// seed convention
	{ ENODEV, F },
	{ EINVAL, I },
	{ ENOTTY, F },
	{ ENOSPC, F },
	{ EOVERFLOW, I },
	{ EOPNOTSUPP, F },
	{ ETIMEDOUT, F },
	{ NRT_ENOTSUPP, F },
};

inline constexpr row core_reserve_rows[] = {
	{ EPERM, F },
	{ ENOENT, I },		// no such NeuronCore
	{ EINTR, F },
	{ EIO, HW },
	{ EBADF, H },
	{ EAGAIN, BUSY },	// cores held transiently (reset in progress)
	{ ENOMEM, R },
	{ EACCES, F },
	{ EFAULT, F },
	{ EBUSY, BUSY },	// owned by another process
	{ ENODEV, HW },
	{ EINVAL, I },
	{ ENOTTY, F },
	{ ENOSPC, NRT_LOAD_NOT_ENOUGH_NC },	// not enough free cores
	{ EOPNOTSUPP, F },
	{ ETIMEDOUT, T },
	{ ECANCELED, BUSY },	// root took the NC back from this process (CORE_TAKE_BACK)
	{ NRT_ENOTSUPP, F },
};

inline constexpr row exec_rows[] = {
	{ EPERM, F },
	{ ENOENT, H },		// no such loaded model / job
	{ EINTR, F },
	{ EIO, HW },
	{ EBADF, H },
	{ EAGAIN, NRT_QUEUE_FULL },	// submission queue full, try later
	{ ENOMEM, R },
	{ EACCES, F },
	{ EFAULT, NRT_EXEC_BAD_INPUT },	// caller's tensor address refused
	{ EBUSY, BUSY },	// NC owned by another process
	{ ENODEV, HW },
	{ EINVAL, I },
	{ ENOTTY, F },
	{ ENOSPC, NRT_QUEUE_FULL },
	{ EOPNOTSUPP, F },
	{ ETIMEDOUT, T },
	{ ECANCELED, BUSY },	// root took the NC back from this process (CORE_TAKE_BACK)
	{ ENOTRECOVERABLE, NRT_EXEC_UNIT_UNRECOVERABLE },	// NC took an uncorrectable error, until reset
	{ NRT_ENOTSUPP, F },
};

// NEURON_IOCTL_MEM_ALLOC / FREE / READ / WRITE / SET (tensors).
inline constexpr row mem_rows[] = {
	{ EPERM, F },
	{ ENOENT, H },		// no such allocation on this file
	{ EINTR, F },
	{ EIO, HW },
	{ EBADF, H },
	{ ENOMEM, R },		// HBM (or the host cap) exhausted: seed -ENOMEM -> 4
	{ EACCES, F },
	{ EFAULT, I },		// the application's buffer pointer was refused
	{ EBUSY, BUSY },	// NeuronCore held by another process
	{ ENODEV, HW },
	{ EINVAL, I },		// size, offset past the end, flags
	{ ENOTTY, F },		// driver without device memory
	{ ENOSPC, R },
	{ EOPNOTSUPP, F },
	{ ETIMEDOUT, T },
	{ NRT_ENOTSUPP, F },
};

template <size_t N>
constexpr site_table make(nrt_syscall_site_t site, const char *name, NRT_STATUS fallback,
			  const row (&rows)[N])
{
	return site_table{ site, name, fallback, rows, N };
}

inline constexpr std::array<site_table, NRT_SITE_COUNT> sites = { {
	make(NRT_SITE_OPEN, "open", F, open_rows),
	make(NRT_SITE_GET_INFO, "get_info", F, get_info_rows),
	make(NRT_SITE_NDS_ACQUIRE, "nds_acquire", F, nds_acquire_rows),
	make(NRT_SITE_NDS_MMAP, "nds_mmap", F, nds_mmap_rows),
	make(NRT_SITE_COUNTER_ADD, "counter_add", F, counter_add_rows),
	make(NRT_SITE_NQ_INIT, "nq_init", F, nq_init_rows),
	make(NRT_SITE_NQ_MMAP, "nq_mmap", F, nq_mmap_rows),
	make(NRT_SITE_CORE_RESERVE, "core_reserve", F, core_reserve_rows),
	make(NRT_SITE_EXEC, "exec", F, exec_rows),
	make(NRT_SITE_MEM, "mem", F, mem_rows),
} };

// Positive errno of @err (either sign), or 0 when it has none.
constexpr int magnitude(int err)
{
	if (err < 0)
		return err == -2147483647 - 1 ? 0 : -err;
	return err;
}

constexpr NRT_STATUS lookup(nrt_syscall_site_t site, int err)
{
	int e = magnitude(err);
	if (err == 0)
		return NRT_SUCCESS;
	if (static_cast<unsigned>(site) >= sites.size())
		return NRT_FAILURE;
	const site_table &t = sites[static_cast<unsigned>(site)];
	for (size_t i = 0; i < t.n && t.rows[i].err <= e; i++)
		if (t.rows[i].err == e)
			return t.rows[i].status;
	return t.fallback;
}

// ---- compile-time checks ----------------------------------------------

constexpr bool table_ok(const site_table &t)
{
	if (!status::is_valid(t.fallback) || t.fallback == NRT_SUCCESS)
		return false;
	for (size_t i = 0; i < t.n; i++) {
		if (t.rows[i].err <= 0)
			return false;
		if (i && t.rows[i - 1].err >= t.rows[i].err)	// ascending, unique
			return false;
		if (!status::is_valid(t.rows[i].status) || t.rows[i].status == NRT_SUCCESS)
			return false;
	}
	for (int e : core_errnos) {
		bool found = false;
		for (size_t i = 0; i < t.n; i++)
			found |= t.rows[i].err == e;
		if (!found)
			return false;
	}
	return true;
}

constexpr bool all_tables_ok()
{
	for (size_t i = 0; i < sites.size(); i++)
		if (sites[i].site != static_cast<nrt_syscall_site_t>(i) || !table_ok(sites[i]))
			return false;
	return true;
}

static_assert(all_tables_ok(), "errno tables: sorted, unique, assigned codes, core errnos");
static_assert(lookup(NRT_SITE_NDS_ACQUIRE, -ENOSPC) == NRT_RESOURCE);
static_assert(lookup(NRT_SITE_EXEC, EBUSY) == NRT_EXEC_NC_BUSY);
static_assert(lookup(NRT_SITE_EXEC, -2147483647 - 1) == NRT_FAILURE);
static_assert(lookup(NRT_SITE_OPEN, 0) == NRT_SUCCESS);

} // namespace nrt::errno_map
