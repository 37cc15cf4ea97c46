/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdp_steer/trace.h - the cpumap's own account: the tracepoint programs'
 * names, their counters and the kthread names they tell workers by.
 */
#ifndef XDP_STEER_INCLUDE_TRACE_H
#define XDP_STEER_INCLUDE_TRACE_H

#include <linux/types.h>
#include "xdp_steer/sizes.h"

/*
 * A full cpumap ring drops a frame after bpf_redirect_map() returned
 * XDP_REDIRECT, so the datapath never learns of it; only the kernel's
 * xdp_cpumap_enqueue tracepoint does (and xdp_cpumap_kthread tells what
 * each worker's kthread took off its ring). Small programs of their own
 * object (bpf/cpumap_trace.bpf.c) count both for one interface's two
 * cpumaps: tracepoints fire for every cpumap on the machine, so they
 * count only the map ids the loader wrote in cpumap_ids. The same
 * programs keep the drain's evidence (bpf/drain.h): what entered and left
 * each ring, when each worker last reported, and, from the napi_poll
 * tracepoint, when each CPU's NAPI polls end. Every apply loads them if
 * their links are not pinned yet and pins the links in the interface's
 * pin directory under the programs' names, before it adds a cpumap
 * entry: they count every frame steer_stats.queued and worker_stats
 * count, so sent == delivered + dropped can be read per worker. An apply
 * under rebalance: drain refuses to flip without them. Detach removes
 * them with the other pins.
 */
#define STEER_TP_ENQUEUE	tp_cpumap_enqueue
#define STEER_TP_KTHREAD	tp_cpumap_kthread
#define STEER_TP_NAPI		tp_napi_poll
/* X(program): each program is also the pin name of its link. */
#define STEER_TRACE_PROGS(X)						\
	X(STEER_TP_ENQUEUE)						\
	X(STEER_TP_KTHREAD)						\
	X(STEER_TP_NAPI)

/* cpumap_ids[0]: the ids of cpu_map and cpu_map_b (0: none). */
struct steer_cpumap_ids {
	__u32 id[STEER_BANKS];
};

/* The CPU id in the name the kernel gives a cpumap entry's kthread,
 * "cpumap/<cpu>/map:<id>" (kernel/bpf/cpumap.c, from the entry's key), as
 * the task's comm holds it: 15 characters and a NUL, so up to 7 digits
 * and the '/' after them, every CPU id Linux allows (NR_CPUS <= 8192)
 * whole. -1 when 'comm' is not such a name. The kthread tracepoint
 * (bpf/cpumap_trace.bpf.c) tells a worker's reports by it. */
static inline int steer_cpumap_comm_cpu(const char comm[16])
{
	int cpu = 0, i;

	if (comm[0] != 'c' || comm[6] != '/')
		return -1;
	for (i = 7; i < 15; i++) {
		if (comm[i] == '/')
			return i > 7 ? cpu : -1;
		if (comm[i] < '0' || comm[i] > '9')
			return -1;
		cpu = cpu * 10 + (comm[i] - '0');
	}
	return -1;
}

/* ring_stats: X(name, help), one __u64 each. */
#define STEER_RING_FIELDS(X)						\
	X(enqueued, "frames that entered the worker's cpumap ring")	\
	X(ring_full_drops, "frames the kernel dropped because the worker's cpumap ring was full") \
	X(off_cpu, "frames the worker's cpumap kthread took off its ring while running on another CPU (its CPU went offline)")

/* kthread_stats: X(name, help), one __u64 each; the kthread reports a
 * batch of at most 8 frames at a time. */
#define STEER_KTHREAD_FIELDS(X)						\
	X(processed, "frames the worker's cpumap kthread took off its ring") \
	X(drops, "frames the kthread dropped after its program, for want of memory for an skb") \
	X(sched, "batches the kthread began after sleeping or yielding the CPU") \
	X(xdp_pass, "frames the worker's cpumap program passed to the stack") \
	X(xdp_drop, "frames the worker's cpumap program dropped, or the kthread could not pass on") \
	X(xdp_redirect, "frames the worker's cpumap program redirected")

#define STEER_FIELD_U64_(name, help) __u64 name;
struct steer_ring_stats {
	STEER_RING_FIELDS(STEER_FIELD_U64_)
};

struct steer_kthread_stats {
	STEER_KTHREAD_FIELDS(STEER_FIELD_U64_)
};

/* bpf/ring_carry.bpf.c's steer_ring_carry(), its context: 'add' added
 * to ring_stats[cpu]. */
struct steer_ring_carry_args {
	__u32 cpu;
	__u32 pad;
	struct steer_ring_stats add;
};

#endif /* XDP_STEER_INCLUDE_TRACE_H */
