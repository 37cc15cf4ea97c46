// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * baseline.bpf.c - the programs xdp-steer's per-frame cost is measured
 * against: the cheapest XDP program (XDP_PASS), the cheapest one that
 * does what xdp-steer does in the end (redirect to a fixed CPU, no
 * parsing), and the least any software RSS must do (bench_minimal: the
 * headers read, the flow hashed, a table looked up, one counter), which
 * says what this machine charges for steering at all.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "xdp_steer.h"

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

/* bench_minimal's hash key (as steer_slot.hash_key) and its table:
 * filled by bench_prog, every entry its target CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64[STEER_HASH_KEY_WORDS]);
	__uint(max_entries, 1);
} bench_key SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, STEER_TABLE_MAX);
} bench_table SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} bench_count SEC(".maps");

/* The least a software RSS does per frame: untagged IPv4 (no options) or
 * IPv6 (no extension headers) with ports, hashed by xdp-steer's own L4
 * hash (steer_flow_hash), a table bucket, a per-CPU frame count, the
 * redirect. Anything else is passed. No policy slots, rules, drain or
 * per-target counters: xdp-steer's cost over this row is what its design
 * adds. */
SEC("xdp")
int bench_minimal(struct xdp_md *ctx)
{
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = (void *)(long)ctx->data;
	struct steer_flow f = {};
	__u32 zero = 0, idx, *cpu;
	__be16 *ports;
	__u64 *key, *count;

	key = bpf_map_lookup_elem(&bench_key, &zero);
	count = bpf_map_lookup_elem(&bench_count, &zero);
	if (!key || !count || (void *)(eth + 1) > end)
		return XDP_PASS;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);

		ports = (void *)(ip + 1);
		if ((void *)(ports + 2) > end || *(__u8 *)ip != 0x45)
			return XDP_PASS;
		f.family = STEER_AF_INET;
		f.proto = ip->protocol;
		f.src[0] = ip->saddr;
		f.dst[0] = ip->daddr;
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		ports = (void *)(ip6 + 1);
		if ((void *)(ports + 2) > end)
			return XDP_PASS;
		f.family = STEER_AF_INET6;
		f.proto = ip6->nexthdr;
		__builtin_memcpy(f.src, &ip6->saddr, 16);
		__builtin_memcpy(f.dst, &ip6->daddr, 16);
	} else {
		return XDP_PASS;
	}
	f.sport = ports[0];
	f.dport = ports[1];
	idx = steer_table_index(steer_flow_hash(&f, key, STEER_F_HASH_L4, 0),
				STEER_TABLE_MAX);
	cpu = bpf_map_lookup_elem(&bench_table, &idx);
	if (!cpu)
		return XDP_PASS;
	(*count)++;
	return bpf_redirect_map(&bench_cpumap, *cpu, XDP_PASS);
}

char _license[] SEC("license") = "Dual BSD/GPL";
