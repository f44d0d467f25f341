/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Validation of ioctl argument headers (pure logic, host-testable). */
#ifndef NEURON_ABI_H
#define NEURON_ABI_H

#include "neuron_pure.h"

/* True when all @len bytes at @p are zero. */
bool neuron_abi_all_zero(const void *p, size_t len);

/*
 * Check the common header of an ioctl struct: @size must equal @expected
 * and @flags may only carry bits from @allowed_flags. 0 or -EINVAL.
 */
int neuron_abi_check_header(u32 size, u32 expected, u32 flags, u32 allowed_flags);

#endif /* NEURON_ABI_H */
