// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "neuron_abi.h"

bool neuron_abi_all_zero(const void *p, size_t len)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

int neuron_abi_check_header(u32 size, u32 expected, u32 flags, u32 allowed_flags)
{
	if (size != expected)
		return -EINVAL;
	if (flags & ~allowed_flags)
		return -EINVAL;
	return 0;
}
