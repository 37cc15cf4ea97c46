// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * net_time.bpf.c - the CPU time receive processing takes on each CPU, for
 * the end-to-end benchmarks (tests/bench/net_time.c says how it is read):
 * the time the cpumap kthreads of chosen cpumaps ran, and the time NET_RX
 * softirqs ran outside those kthreads (RPS's backlog, a veth's NAPI run
 * from another context). Exact to the nanosecond where /proc/stat samples
 * ticks, and blind to other tenants' processes on the CPU.
 *
 * A kthread's time: the span between two context switches on a CPU
 * belongs to the task that leaves at the second one (the one current when
 * sched_switch fires), as in schedstat; it includes the softirqs the
 * kthread runs when it enables bottom halves, and the interrupts it
 * suffers. The kthread is known by the pid that runs the
 * xdp_cpumap_kthread tracepoint for one of the chosen maps.
 *
 * Raw tracepoints: no kernel BTF needed, and the host refuses fentry.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "net_time.h"

#define NET_RX_SOFTIRQ	3	/* include/linux/interrupt.h */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct net_time);
	__uint(max_entries, 1);
} net_time SEC(".maps");

/* Written by userspace: ids of the cpumaps whose kthreads count, and the
 * application (tgid) whose threads' softirqs are told apart. */
__u32 map_ids[NET_TIME_MAX_MAPS];
__u32 app_tgid;

static __always_inline struct net_time *here(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&net_time, &zero);
}

static __always_inline int chosen(__u32 id)
{
	int i;

	for (i = 0; i < NET_TIME_MAX_MAPS; i++)
		if (id && map_ids[i] == id)
			return 1;
	return 0;
}

/* trace_xdp_cpumap_kthread(map_id, processed, drops, sched, stats) */
SEC("raw_tp/xdp_cpumap_kthread")
int nt_kthread(struct bpf_raw_tracepoint_args *ctx)
{
	struct net_time *t;

	if (!chosen((__u32)ctx->args[0]))
		return 0;
	t = here();
	if (!t)
		return 0;
	t->kthread_pid = (__u32)bpf_get_current_pid_tgid();
	t->batches++;
	t->frames += (__u32)ctx->args[1];
	t->woken += (__u32)ctx->args[3] != 0;
	return 0;
}

/* trace_sched_switch(preempt, prev, next, prev_state), run by prev. */
SEC("raw_tp/sched_switch")
int nt_switch(struct bpf_raw_tracepoint_args *ctx)
{
	struct net_time *t = here();
	__u64 now = bpf_ktime_get_ns();
	__u32 pid = (__u32)bpf_get_current_pid_tgid();

	if (!t)
		return 0;
	if (pid && pid == t->kthread_pid && t->switch_ns)
		t->kthread_ns += now - t->switch_ns;
	t->switch_ns = now;
	return 0;
}

/* trace_softirq_entry(vec_nr) */
SEC("raw_tp/softirq_entry")
int nt_softirq_entry(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = (__u32)id;
	struct net_time *t;

	if (ctx->args[0] != NET_RX_SOFTIRQ)
		return 0;
	t = here();
	if (t && !(pid && pid == t->kthread_pid)) {
		t->in_app = app_tgid && pid && (__u32)(id >> 32) == app_tgid;
		t->softirq_start = bpf_ktime_get_ns();
	}
	return 0;
}

/* trace_softirq_exit(vec_nr) */
SEC("raw_tp/softirq_exit")
int nt_softirq_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct net_time *t;
	__u64 d;

	if (ctx->args[0] != NET_RX_SOFTIRQ)
		return 0;
	t = here();
	if (!t || !t->softirq_start)
		return 0;
	d = bpf_ktime_get_ns() - t->softirq_start;
	t->softirq_ns += d;
	if (t->in_app)
		t->app_softirq_ns += d;
	t->softirqs++;
	t->softirq_start = 0;
	return 0;
}

char _license[] SEC("license") = "Dual BSD/GPL";
