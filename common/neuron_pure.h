/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Types for the pure-logic files in common/: they build into the module
 * and, unchanged, into a host library for unit tests and fuzzers, so they
 * include nothing kernel-only and nothing libc-only beyond these types.
 */
#ifndef NEURON_PURE_H
#define NEURON_PURE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/stddef.h>
#include <linux/string.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
#endif

/*
 * Memory ordering for structures shared with another agent (userspace, a
 * device): acquire loads and release stores of naturally aligned words.
 */
#ifdef __KERNEL__
#include <asm/barrier.h>
#include <linux/compiler.h>
/* pairs with the other agent's release store of the same word */
#define neuron_load_acquire(p)		smp_load_acquire(p)
/* pairs with the other agent's acquire load of the same word */
#define neuron_store_release(p, v)	smp_store_release(p, v)
#define neuron_write_once(p, v)		WRITE_ONCE(*(p), v)
#else
#define neuron_load_acquire(p)		__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define neuron_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define neuron_write_once(p, v)		__atomic_store_n(p, v, __ATOMIC_RELAXED)
#endif

#endif /* NEURON_PURE_H */
