// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fwd.bpf.c - programs of the forwarding benchmarks (tests/bench/forward.sh,
 * settle.sh), of the worker-cost study (tests/bench/run worker) and of the
 * generator's cost (tests/bench/gen_cost.sh).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* Namespace C's end of the forwarding benchmark: the veth counts what
 * arrived (rx_queue_N_xdp_drops), and nothing more is spent on it. */
SEC("xdp")
int bench_drop(struct xdp_md *ctx)
{
	return XDP_DROP;
}

/* Second-stage programs the worker-cost study puts in place of
 * xdp-steer's in its cpumap entry (tests/bench/cpumap_set): the cheapest
 * one, and the cheapest one plus the clock read xdp-steer's worker makes
 * on every frame. */
SEC("xdp/cpumap")
int bench_worker_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

__u64 bench_worker_last;

SEC("xdp/cpumap")
int bench_worker_ktime(struct xdp_md *ctx)
{
	bench_worker_last = bpf_ktime_get_ns();
	return XDP_PASS;
}

/* The generator's cost (gen_cost.sh): every frame to CPU 1 through a
 * cpumap whose entry (cpumap_set) drops it there, so that the frame's page
 * is freed on another CPU than the one that received it. */
struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__type(key, __u32);
	__type(value, struct bpf_cpumap_val);
	__uint(max_entries, 2);
} bench_cpumap SEC(".maps");

SEC("xdp")
int bench_to_cpu1(struct xdp_md *ctx)
{
	return bpf_redirect_map(&bench_cpumap, 1, 0);
}

SEC("xdp/cpumap")
int bench_worker_drop(struct xdp_md *ctx)
{
	return XDP_DROP;
}

char _license[] SEC("license") = "Dual BSD/GPL";
