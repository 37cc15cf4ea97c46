/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * net_time.h - the per-CPU record net_time.bpf.c keeps and net_time.c
 * reads (one entry of a per-CPU array).
 */
#ifndef XDP_STEER_NET_TIME_H
#define XDP_STEER_NET_TIME_H

#include <linux/types.h>

/* cpumaps whose kthreads count (by map id). */
#define NET_TIME_MAX_MAPS	4

struct net_time {
	__u64 switch_ns;	/* last context switch on this CPU */
	__u64 kthread_ns;	/* the chosen maps' kthreads ran */
	__u64 softirq_start;	/* NET_RX softirq running since, or 0 */
	__u64 softirq_ns;	/* NET_RX softirqs outside those kthreads */
	__u64 softirqs;		/* ... how many ran */
	__u64 batches;		/* kthread batches (xdp_cpumap_kthread) */
	__u64 frames;		/* frames in them */
	__u64 woken;		/* batches begun after sleeping or yielding */
	__u64 app_softirq_ns;	/* of softirq_ns, run in the chosen
				 * application's threads (and so also in
				 * their schedstat time) */
	__u32 kthread_pid;	/* the chosen maps' kthread on this CPU */
	__u32 in_app;		/* the running softirq interrupted the app */
};

#endif /* XDP_STEER_NET_TIME_H */
