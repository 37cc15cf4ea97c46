/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * span.h - the span S of the maps this object runs on: the cpumap banks
 * have S entries (CPU ids below S), a queue target is bank * S + cpu, so
 * steer_wdone and steer_wenq have 2S. The loader sets it at load from the
 * maps it reuses or makes (loader/kernel/prog.c prog_span()): a dimension
 * of the maps, not a setting, so it lives in .rodata. The verifier then
 * knows it as a constant. Compiled: STEER_MAX_CPUS, the span of the
 * object's own map sizes, which xdp-loader load -p creates; pins made by
 * a version before the span (256 entries, 512 targets) read the same.
 */
#ifndef XDP_STEER_SPAN_H
#define XDP_STEER_SPAN_H

#include "xdp_steer.h"

const volatile __u32 steer_span = STEER_MAX_CPUS;

/* The CPU of queue target 'target' (not STEER_TARGET_LOCAL). */
static __always_inline __u32 target_cpu_of(__u32 target)
{
	__u32 s = steer_span;

	return target >= s ? target - s : target;
}

/* The cpumap bank (0 or 1) of queue target 'target'. */
static __always_inline __u32 target_bank_of(__u32 target)
{
	return target >= steer_span;
}

#endif /* XDP_STEER_SPAN_H */
