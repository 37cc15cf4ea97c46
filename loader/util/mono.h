/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * util/mono.h - the monotonic clock (CLOCK_MONOTONIC), in the two units
 * the loader keeps time in: nanoseconds for waits that compare with the
 * kernel's clock, seconds as a double for rates and the balancer's
 * rounds. Header-only: every layer may include it.
 */
#ifndef XDP_STEER_UTIL_MONO_H
#define XDP_STEER_UTIL_MONO_H

#include <time.h>
#include <linux/types.h>

static inline __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

static inline double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif /* XDP_STEER_UTIL_MONO_H */
