// SPDX-License-Identifier: GPL-2.0
/*
 * FW-IO typed messages on top of the transport (neuron_fwio.c): READ,
 * POST_TO_CW, SET_POWER_PROFILE, and the ioctls that expose READ and
 * SET_POWER_PROFILE.
 *
 * Every function returns 0 or a plain negative errno userspace knows
 * (docs/fwio.md has the table): -EIO, -ETIMEDOUT, -EOPNOTSUPP, -E2BIG,
 * -EINTR, -ENODEV. The reference driver collapsed the same outcomes to
 * 0 / -1 / -ENOTSUPP at these call sites; that collapse is kept as a pure
 * table (neuron_fwio_outcome_collapse, host-tested against the reference)
 * and is not applied here: -1 would read as -EPERM and -ENOTSUPP (524) is
 * unknown to userspace.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/uaccess.h>

#include <neuron/neuron_ioctl.h>

#include "neuron_abi.h"
#include "neuron_file.h"
#include "neuron_fwio.h"
#include "neuron_fwio_msg.h"

static_assert(sizeof(struct neuron_fw_read) == 224);
static_assert(sizeof(struct neuron_fw_power_profile) == 32);
static_assert(NEURON_FW_READ_MAX == NEURON_FWIO_READ_MAX);

int neuron_fwio_read(struct neuron_device *nd, const u64 *addr, u32 n, u32 *val)
{
	__le64 req[NEURON_FWIO_READ_MAX];
	__le32 resp[NEURON_FWIO_READ_MAX];
	struct neuron_fwio_xfer x = {
		.cmd = NEURON_FWIO_CMD_READ,
		.req = req,
		.req_len = n * sizeof(req[0]),
		.resp = resp,
		.resp_len = n * sizeof(resp[0]),
	};
	u32 i;
	int ret;

	if (!n || n > NEURON_FWIO_READ_MAX)
		return -E2BIG;
	for (i = 0; i < n; i++)
		req[i] = cpu_to_le64(addr[i]);
	ret = neuron_fwio_exchange(nd, &x);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		val[i] = le32_to_cpu(resp[i]);
	return 0;
}

int neuron_fwio_post_metric(struct neuron_device *nd, const void *blob, u32 len,
			    const bool *abort)
{
	/*
	 * The vendor hands the blob's own buffer (and length) as the response
	 * buffer: an answer of up to len bytes is accepted and ignored.
	 */
	u8 resp[NEURON_FWIO_DATA_SIZE];
	struct neuron_fwio_xfer x = {
		.cmd = NEURON_FWIO_CMD_POST_TO_CW,
		.req = blob,
		.req_len = len,
		.resp = resp,
		.resp_len = len,
		.abort = abort,
	};

	if (!len || len > NEURON_FWIO_DATA_SIZE)
		return -E2BIG;
	return neuron_fwio_exchange(nd, &x);
}

int neuron_fwio_set_power_profile(struct neuron_device *nd, u8 profile)
{
	/* u32 reserved, u8 profile, u8 voltage margin, u8 frequency, u8 OCW: all 0 but profile */
	u8 req[NEURON_FWIO_POWER_PAYLOAD] = { 0, 0, 0, 0, profile, 0, 0, 0 };
	struct neuron_fwio_xfer x = {
		.cmd = NEURON_FWIO_CMD_SET_POWER_PROFILE,
		.req = req,
		.req_len = sizeof(req),
	};
	int ret;

	ret = neuron_fwio_exchange(nd, &x);
	/* metric 56 posts the profile the device runs with: only a set one */
	if (!ret)
		neuron_fwio_power_profile_set(nd, profile);
	return ret;
}

/* ---- ioctls ---------------------------------------------------------------- */

long neuron_fwio_ioctl_read(struct neuron_file *nf, void *karg)
{
	/* in place: the dispatcher's kernel copy, copied out on success */
	struct neuron_fw_read *arg = karg;
	long ret;
	u32 i;

	ret = neuron_abi_check_header(arg->size, sizeof(*arg), arg->flags, 0);
	if (ret)
		return ret;
	if (arg->reserved0 || !neuron_abi_all_zero(arg->reserved, sizeof(arg->reserved)) ||
	    !arg->count)
		return -EINVAL;
	if (arg->count > NEURON_FW_READ_MAX)
		return -E2BIG;
	for (i = arg->count; i < NEURON_FW_READ_MAX; i++)
		if (arg->addr[i])
			return -EINVAL;

	memset(arg->value, 0, sizeof(arg->value));
	return neuron_fwio_read(nf->nd, arg->addr, arg->count, arg->value);
}

long neuron_fwio_ioctl_power_profile(struct neuron_file *nf, void *karg)
{
	struct neuron_fw_power_profile arg;
	int ret;

	ret = neuron_ioctl_arg(&arg, karg, sizeof(arg), 0);
	if (ret)
		return ret;
	if (arg.reserved0 || !neuron_abi_all_zero(arg.reserved, sizeof(arg.reserved)) ||
	    arg.profile > 255)
		return -EINVAL;
	return neuron_fwio_set_power_profile(nf->nd, arg.profile);
}
