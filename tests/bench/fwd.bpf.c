// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fwd.bpf.c - programs of the forwarding benchmarks (tests/bench/forward.sh,
 * settle.sh) and of the worker-cost study (tests/bench/run worker).
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

char _license[] SEC("license") = "Dual BSD/GPL";
