// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * baseline.bpf.c - the two programs xdp-steer's per-frame cost is measured
 * against: the cheapest XDP program (XDP_PASS) and the cheapest one that
 * does what xdp-steer does in the end (redirect to a fixed CPU, no parsing).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bpf_cpumap_val));
	__uint(max_entries, 2);
} bench_cpumap SEC(".maps");

SEC("xdp")
int bench_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

/* Always CPU 1 (bench_prog runs on CPU 0, so this is a real hop); the key
 * is a constant so only the redirect itself costs. */
SEC("xdp")
int bench_redirect(struct xdp_md *ctx)
{
	return bpf_redirect_map(&bench_cpumap, 1, XDP_PASS);
}

char _license[] SEC("license") = "Dual BSD/GPL";
