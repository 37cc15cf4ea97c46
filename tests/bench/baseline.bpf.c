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

/* bench_minimal's hash key (the multipliers of steer_flow_hash) and its
 * table: filled by bench_prog, every entry its target CPU. */
#define MINIMAL_KEY_WORDS	STEER_HASH_KEY_WORDS
#define MINIMAL_TABLE		STEER_TABLE_MAX

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64[MINIMAL_KEY_WORDS]);
	__uint(max_entries, 1);
} bench_key SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, MINIMAL_TABLE);
} bench_table SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} bench_count SEC(".maps");

/* The least a software RSS does per frame: untagged IPv4 (no options) or
 * IPv6 (no extension headers) with ports, hashed as xdp-steer hashes an
 * L4 key, a table bucket, a per-CPU frame count, the redirect. Anything
 * else is passed. No policy slots, rules, drain or per-target counters:
 * xdp-steer's cost over this row is what its design adds. */
SEC("xdp")
int bench_minimal(struct xdp_md *ctx)
{
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = (void *)(long)ctx->data;
	__u32 zero = 0, idx, *cpu, *ports;
	__u64 *key, *count, h;

	key = bpf_map_lookup_elem(&bench_key, &zero);
	count = bpf_map_lookup_elem(&bench_count, &zero);
	if (!key || !count || (void *)(eth + 1) > end)
		return XDP_PASS;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);

		ports = (void *)(ip + 1);
		if ((void *)(ports + 1) > end || *(__u8 *)ip != 0x45)
			return XDP_PASS;
		h = key[0] + key[1] * *ports + key[2] * ip->protocol +
		    key[3] * ip->saddr + key[4] * ip->daddr;
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);
		__u32 *s = ip6->saddr.in6_u.u6_addr32;
		__u32 *d = ip6->daddr.in6_u.u6_addr32;

		ports = (void *)(ip6 + 1);
		if ((void *)(ports + 1) > end)
			return XDP_PASS;
		h = key[0] + key[1] * *ports + key[2] * ip6->nexthdr +
		    key[3] * s[0] + key[4] * d[0] + key[5] * s[1] +
		    key[6] * s[2] + key[7] * s[3] + key[8] * d[1] +
		    key[9] * d[2] + key[10] * d[3];
	} else {
		return XDP_PASS;
	}
	h >>= 32;
	h ^= h >> 16;
	h = (__u32)(h * 0x45d9f3bu);
	h ^= h >> 16;
	idx = h & (MINIMAL_TABLE - 1);
	cpu = bpf_map_lookup_elem(&bench_table, &idx);
	if (!cpu)
		return XDP_PASS;
	(*count)++;
	return bpf_redirect_map(&bench_cpumap, *cpu, XDP_PASS);
}

char _license[] SEC("license") = "Dual BSD/GPL";
