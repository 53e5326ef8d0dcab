/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Integer types and 64-bit division for the MLTCP core.
 *
 * The core (mltcp_core.c) is compiled unchanged into the kernel module, into
 * the BPF struct_ops program and into the userspace unit tests. This header is
 * the only place that knows which of the three it is being built for.
 */
#ifndef MLTCP_TYPES_H
#define MLTCP_TYPES_H

#if defined(__KERNEL__)
#include <linux/types.h>
#include <linux/math64.h>

static inline u64 mltcp_div64(u64 dividend, u64 divisor)
{
	return div64_u64(dividend, divisor);
}

#elif defined(__bpf__)
/* vmlinux.h, included by the BPF program before the core, defines u8..u64. */
static inline u64 mltcp_div64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;
typedef int64_t s64;

static inline u64 mltcp_div64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}
#endif

#endif /* MLTCP_TYPES_H */
