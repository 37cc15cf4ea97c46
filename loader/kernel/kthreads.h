/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kthreads.h - the kernel threads behind the cpumap entries: each entry
 * runs one kthread, "cpumap/<cpu>/map:<map id>", made by the kernel when
 * the entry is created (and gone with it). The policy's worker_sched is
 * applied to them here.
 */
#ifndef XDP_STEER_KTHREADS_H
#define XDP_STEER_KTHREADS_H

#include <stddef.h>

#include "kernel/maps.h"

/* The kthread of each target in 'need' (STEER_TARGETS flags, as
 * cpumap.h) gets sched_setscheduler()'s 'policy' and 'priority'. Only
 * kernel threads are touched (a process may name itself like one).
 * -ESRCH when an entry's kthread is not found; 'why' says which. */
int kthreads_sched(const struct steer_maps *m, const unsigned char *need,
		   int policy, int priority, char *why, size_t why_len);

#endif /* XDP_STEER_KTHREADS_H */
