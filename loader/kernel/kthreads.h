/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kthreads.h - the kernel threads behind the cpumap entries: each entry
 * runs one kthread, "cpumap/<cpu>/map:<map id>", made by the kernel when
 * the entry is created (and gone with it). The policy's worker_sched is
 * applied to them here.
 */
#ifndef XDP_STEER_KTHREADS_H
#define XDP_STEER_KTHREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "kernel/maps.h"
#include "model/cpuset.h"
#include "model/kthread.h"
#include "util/why.h"

/* The kthread of each target in 'need' (STEER_CPU_TARGETS flags, as
 * cpumap.h) gets sched_setscheduler()'s 'policy' and 'priority', and
 * under SCHED_OTHER setpriority()'s 'nice'. Only kernel threads are
 * touched (a process may name itself like one). *changed (when not NULL)
 * gets how many had another class, priority or nice before. -ESRCH when
 * an entry's kthread is not found; 'why' says which. */
int kthreads_sched(const struct steer_maps *m, const unsigned char *need,
		   int policy, int priority, int nice, int *changed,
		   struct why *why);

/* The same, each target in 'need' getting want[target]'s policy,
 * priority and nice. */
int kthreads_sched_each(const struct steer_maps *m, const unsigned char *need,
			const struct kthread_info *want, struct why *why);

/* k[STEER_CPU_TARGETS]: every entry's kthread of both banks (pid 0 where none
 * was found). */
int kthreads_read(const struct steer_maps *m, struct kthread_info *k);

/* How /proc names the kernel thread named 'whole' when it was made: 1
 * whole, 0 cut to 15 bytes (kernels before 5.17 keep no more of a
 * kthread's name: TASK_COMM_LEN), -ENOENT when no kernel thread bears
 * either name. */
int kthreads_named(const char *whole);

/*
 * out = the online CPUs whose entry in 'need' (STEER_CPU_TARGETS flags) has a
 * kthread that may run on other CPUs (kthread_misplaced()). Walks /proc
 * (kthreads_read()) only when a kthread it remembers from the last walk
 * is gone or no longer bound alone to its CPU, an entry needed has none
 * remembered, the cpumaps are others, or REWALK_S has passed; else asks
 * the scheduler about the remembered ones (sched_getaffinity()). The
 * balancer calls it every round.
 */
int kthreads_misplaced(const struct steer_maps *m, const unsigned char *need,
		       const struct cpu_set *online, struct cpu_set *out);

#endif /* XDP_STEER_KTHREADS_H */
