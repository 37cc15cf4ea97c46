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

/* One entry's kthread as /proc shows it. */
struct kthread_info {
	pid_t pid;		/* 0: no kthread found for the entry */
	int policy;		/* SCHED_*, sched_getscheduler()'s */
	int priority;
	int nice;		/* getpriority()'s */
	/* Cpus_allowed_list as the kernel writes it ("263", "0-1,263"),
	 * cut to fit: a string, not a set of every CPU id, as there is one
	 * per target (STEER_CPU_TARGETS). */
	char allowed[48];
	bool allowed_known;
	unsigned long long started;	/* ticks after boot */
};

/* The kthread of each target in 'need' (STEER_CPU_TARGETS flags, as
 * cpumap.h) gets sched_setscheduler()'s 'policy' and 'priority', and
 * under SCHED_OTHER setpriority()'s 'nice'. Only kernel threads are
 * touched (a process may name itself like one). *changed (when not NULL)
 * gets how many had another class, priority or nice before. -ESRCH when
 * an entry's kthread is not found; 'why' says which. */
int kthreads_sched(const struct steer_maps *m, const unsigned char *need,
		   int policy, int priority, int nice, int *changed,
		   char *why, size_t why_len);

/* The same, each target in 'need' getting want[target]'s policy,
 * priority and nice. */
int kthreads_sched_each(const struct steer_maps *m, const unsigned char *need,
			const struct kthread_info *want, char *why,
			size_t why_len);

/* k[STEER_CPU_TARGETS]: every entry's kthread of both banks (pid 0 where none
 * was found). */
int kthreads_read(const struct steer_maps *m, struct kthread_info *k);

/* How /proc names the kernel thread named 'whole' when it was made: 1
 * whole, 0 cut to 15 bytes (kernels before 5.17 keep no more of a
 * kthread's name: TASK_COMM_LEN), -ENOENT when no kernel thread bears
 * either name. */
int kthreads_named(const char *whole);

/*
 * Whether the kthread may run on CPUs other than 'cpu', its entry's. The
 * kernel binds it to its CPU when it makes the entry (kthread_bind(), in
 * kernel/bpf/cpumap.c), which also marks it PF_NO_SETAFFINITY: so
 * sched_setaffinity() refuses it with EINVAL, for root too (measured on
 * 6.18). When its CPU goes offline and the kthread is woken (a frame for
 * it) or was running, the scheduler widens its allowed CPUs to the online
 * ones (select_fallback_rq(): "no longer affine to cpuN" in the kernel
 * log), and nothing narrows them back when the CPU returns: only a new
 * entry, with a new kthread, runs on its CPU again.
 */
bool kthread_misplaced(const struct kthread_info *k, unsigned int cpu);

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
