/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cputime.h - how busy each CPU was, from the kernel's own accounting
 * (/proc/stat): the balancer's load by CPU time (model/balance.h) sees
 * everything a CPU does, the receiving CPU's collecting (NAPI, softirq),
 * the cpumap kthreads and the applications there alike.
 *
 * Functions return 0 or a negative errno.
 */
#ifndef XDP_STEER_CPUTIME_H
#define XDP_STEER_CPUTIME_H

#include <linux/types.h>

#include "xdp_steer/sizes.h"

/* Cumulative ticks (USER_HZ) of each CPU since boot; a CPU /proc/stat
 * does not list (offline, past STEER_CPU_IDS) reads 0. */
struct cputime {
	__u64 busy[STEER_CPU_IDS];	/* user, nice, system, irq, softirq */
	__u64 all[STEER_CPU_IDS];	/* busy, idle and iowait */
};

/* Reads /proc/stat (or 'path', for tests) into *t. */
int cputime_read(const char *path, struct cputime *t);

/* The share of the interval from a to b that 'cpu' was busy, 0 to 1;
 * 0 when no tick passed (offline, or too short an interval). Stolen time
 * (a hypervisor ran something else) is neither busy nor capacity. */
double cputime_busy(const struct cputime *a, const struct cputime *b,
		    __u32 cpu);

/* The ticks one CPU counted from a to b (the fewest of any that
 * counted): a busy share is known to one of them. */
double cputime_ticks(const struct cputime *a, const struct cputime *b);

#endif /* XDP_STEER_CPUTIME_H */
