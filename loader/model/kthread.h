/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kthread.h - a cpumap entry's kthread as /proc shows it, and whether it
 * may run off its entry's CPU. Plain data: kernel/kthreads.c reads it, the
 * library hands it out in status (model/slot_view.h).
 */
#ifndef XDP_STEER_KTHREAD_H
#define XDP_STEER_KTHREAD_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

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
static inline bool kthread_misplaced(const struct kthread_info *k,
				     unsigned int cpu)
{
	char own[16];

	if (!k->pid || !k->allowed_known)
		return false;
	/* The kernel lists one CPU as its id alone. */
	snprintf(own, sizeof(own), "%u", cpu);
	return strcmp(k->allowed, own) != 0;
}

#endif /* XDP_STEER_KTHREAD_H */
