// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * observer.bpf.c - the end-to-end tests' witness, independent of
 * xdp-steer's own counters.
 *
 * observer_ingress runs at tc ingress (clsact) of the receiving interface:
 * after XDP, on the CPU that runs the stack for the skb, which for a frame
 * xdp-steer redirected is the cpumap worker. For every frame carrying a
 * traffic mark it records, per flow, the CPUs it was seen on, how many
 * arrived, and how many arrived out of sequence. Per-flow state is updated
 * with atomics only, so the record stays exact even when steering is broken
 * and a flow reaches the stack on two CPUs at once.
 *
 * The raw tracepoint programs count what the kernel dropped inside the
 * watched cpumaps (obs_cpumap_ids), frames no tc program ever sees.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "traffic.h"

/* Set before load. */
const volatile __u32 obs_drop_marked;	/* 1: TC_ACT_SHOT marked frames once
					 * counted (the stack never sees
					 * them; no replies, less CPU) */
/* Set before attaching the tracepoints: the cpumaps whose drops count (an
 * xdp-steer interface has two banks); 0 watches none. */
__u32 obs_cpumap_ids[2];

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct obs_flow);
	__uint(max_entries, TRAFFIC_MAX_FLOWS);
} obs_flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct obs_cpu);
	__uint(max_entries, 1);
} obs_cpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct obs_drops);
	__uint(max_entries, 1);
} obs_drops SEC(".maps");

/* IPv6 extension headers walked to the transport header: more than
 * xdp-steer's bound (STEER_IPV6_EXT_MAX, 8), so that a chain built to run
 * past that bound is still counted here. */
#define OBS_IPV6_EXT_MAX	16

/* The IP header at 'off' (version 'v', 4 or 6): where its payload starts
 * and its protocol, or -1. Past IPv6 extension headers of the kinds whose
 * length counts 8-byte units (hop-by-hop, routing, destination options).
 * By the IPv4 header's own length, not its total length: a datagram whose
 * length field cuts it short of its transport header still carries the
 * mark in the frame. */
static __always_inline int ip_payload(struct __sk_buff *skb, int off,
				      __u8 *proto)
{
	__u8 vi, opt[2];
	int i;

	if (bpf_skb_load_bytes(skb, off, &vi, 1))
		return -1;
	if (vi >> 4 == 4 && (vi & 0xf) >= 5) {
		if (bpf_skb_load_bytes(skb, off + 9, proto, 1))
			return -1;
		return off + (vi & 0xf) * 4;
	}
	if (vi >> 4 != 6 || bpf_skb_load_bytes(skb, off + 6, proto, 1))
		return -1;
	off += 40;
	for (i = 0; i < OBS_IPV6_EXT_MAX; i++) {
		if (*proto != IPPROTO_HOPOPTS && *proto != IPPROTO_ROUTING &&
		    *proto != IPPROTO_DSTOPTS)
			break;
		if (bpf_skb_load_bytes(skb, off, opt, 2))
			return -1;
		*proto = opt[0];
		off += (opt[1] + 1) * 8;
	}
	return off;
}

/*
 * A tunnel's payload after the outer IP header's payload at 'l4' (outer
 * protocol 'proto'): the offset of the inner IP header, or 0 when the
 * frame is no tunnel of the layouts the senders use (GRE with its optional
 * fields, IP-in-IP, VXLAN, Geneve, GTP-U on their standard ports), or -1.
 * Written apart from xdp-steer's parser: the observer takes nothing from
 * it.
 */
static __always_inline int tunnel_inner(struct __sk_buff *skb, int l4,
					__u8 proto)
{
	__u8 b[4];
	__u16 port;

	if (proto == IPPROTO_IPIP || proto == IPPROTO_IPV6)
		return l4;
	if (proto == IPPROTO_GRE) {
		if (bpf_skb_load_bytes(skb, l4, b, 4))
			return -1;
		l4 += 4 + ((b[0] & 0x80) ? 4 : 0) + ((b[0] & 0x20) ? 4 : 0) +
		      ((b[0] & 0x10) ? 4 : 0);
		/* Ethernet inside (0x6558): its header too. */
		return b[2] == 0x65 && b[3] == 0x58 ? l4 + ETH_HLEN : l4;
	}
	if (proto != IPPROTO_UDP || bpf_skb_load_bytes(skb, l4 + 2, &port, 2))
		return 0;
	switch (bpf_ntohs(port)) {
	case 4789:				/* VXLAN, Ethernet inside */
		return l4 + 8 + 8 + ETH_HLEN;
	case 6081:				/* Geneve */
		if (bpf_skb_load_bytes(skb, l4 + 8, b, 4))
			return -1;
		l4 += 8 + 8 + (b[0] & 0x3f) * 4;
		return b[2] == 0x65 && b[3] == 0x58 ? l4 + ETH_HLEN : l4;
	case 2152:				/* GTP-U, no extensions */
		if (bpf_skb_load_bytes(skb, l4 + 8, b, 1))
			return -1;
		return l4 + 8 + 8 + ((b[0] & 0x07) ? 4 : 0);
	}
	return 0;
}

/* Whether the frame carries a mark's magic at 'off'. */
static __always_inline int marked_at(struct __sk_buff *skb, int off)
{
	__u32 magic;

	return !bpf_skb_load_bytes(skb, off, &magic, 4) &&
	       magic == TRAFFIC_MAGIC;
}

/* The mark's offset in a frame of ours whose (outer) IP header is at
 * 'off', or -1. A global function: the verifier checks it once, for any
 * 'off', not once per way of reaching the IP header (VLAN tags, PPPoE,
 * MPLS labels), which took it past its million instructions. */
__noinline int mark_from_ip(struct __sk_buff *skb, int off)
{
	int l4, in;
	__u8 proto, b[4];

	if (!skb || off < 0 || off > 1024)
		return -1;
	l4 = ip_payload(skb, off, &proto);
	if (l4 < 0)
		return -1;
	/* A datagram to a tunnel's port that is no tunnel (the mark right
	 * after its UDP header) is a flow of its own, not a tunnel's. */
	if (proto == IPPROTO_UDP && marked_at(skb, l4 + 8))
		return l4 + 8;
	in = tunnel_inner(skb, l4, proto);
	if (in < 0)
		return -1;
	if (in > 0) {
		l4 = ip_payload(skb, in, &proto);
		if (l4 < 0)
			return -1;
	}
	if (proto == IPPROTO_UDP || proto == IPPROTO_ESP)
		return l4 + 8;
	if (proto == IPPROTO_TCP) {
		if (bpf_skb_load_bytes(skb, l4 + 12, &b[0], 1))
			return -1;
		return l4 + (b[0] >> 4) * 4;
	}
	return -1;
}

/* Offset of the mark in a frame of ours, or -1: after the transport header
 * (ESP: after its SPI and sequence number) of the IP header, or of the
 * inner one behind PPPoE, MPLS or one of tunnel_inner()'s tunnels; behind
 * the VLAN tags still in the frame (the stack took the outer one into
 * skb->vlan_tci before tc ingress: a QinQ frame keeps its C-tag here). */
static __always_inline int mark_offset(struct __sk_buff *skb, int *arp)
{
	int off = ETH_HLEN, i;
	__u16 type = bpf_ntohs(skb->protocol);
	__u8 b[4];
	__be16 t;

	*arp = 0;
	for (i = 0; i < 2 && (type == ETH_P_8021Q || type == ETH_P_8021AD); i++) {
		if (bpf_skb_load_bytes(skb, off + 2, &t, 2))
			return -1;
		type = bpf_ntohs(t);
		off += 4;
	}
	switch (type) {
	case ETH_P_ARP:
		*arp = 1;
		return ETH_HLEN + 28;
	case ETH_P_IP:
	case ETH_P_IPV6:
		break;
	case ETH_P_PPP_SES:			/* the PPP protocol: IP? */
		if (bpf_skb_load_bytes(skb, off + 6, b, 2) || b[0] ||
		    (b[1] != 0x21 && b[1] != 0x57))
			return -1;
		off += 8;
		break;
	case ETH_P_MPLS_UC:			/* to the bottom of the stack */
		for (i = 0; i < 8; i++) {
			if (bpf_skb_load_bytes(skb, off, b, 4))
				return -1;
			off += 4;
			if (b[2] & 1)
				break;
		}
		break;
	default:
		return -1;
	}
	return mark_from_ip(skb, off);
}

SEC("tc")
int observer_ingress(struct __sk_buff *skb)
{
	struct traffic_mark m;
	struct obs_flow *f;
	struct obs_cpu *c;
	__u32 zero = 0, cpu;
	__u64 prev;
	int off, arp;

	off = mark_offset(skb, &arp);
	if (off < 0 || off > 0xffff ||
	    bpf_skb_load_bytes(skb, off, &m, sizeof(m)) ||
	    m.magic != TRAFFIC_MAGIC)
		return TC_ACT_OK;

	c = bpf_map_lookup_elem(&obs_cpu, &zero);
	if (c) {
		c->marked++;
		if (arp)
			c->marked_arp++;
	}
	f = bpf_map_lookup_elem(&obs_flows, &m.flow);
	if (!f) {
		if (c)
			c->bad_flow++;
		return TC_ACT_OK;
	}
	cpu = bpf_get_smp_processor_id();
	__sync_fetch_and_or(&f->cpus[(cpu / 64) & (TRAFFIC_MAX_CPUS / 64 - 1)],
			    1ull << (cpu % 64));
	__sync_fetch_and_add(&f->received, 1);
	/* A switch of CPUs, and a switch back too soon for any move. */
	prev = __sync_lock_test_and_set(&f->last_cpu, cpu + 1);
	if (prev && prev != cpu + 1) {
		__u64 now = bpf_ktime_get_ns(), left, at;

		__sync_fetch_and_add(&f->switches, 1);
		left = __sync_lock_test_and_set(&f->left_cpu, prev);
		at = __sync_lock_test_and_set(&f->switched_ns, now);
		if (left == cpu + 1 && now - at < OBS_SPLIT_NS)
			__sync_fetch_and_add(&f->splits, 1);
	}
	/* The exchange orders arrivals, also across CPUs. */
	prev = __sync_lock_test_and_set(&f->last_seq, m.seq);
	if (m.seq > prev + 1) {
		__sync_fetch_and_add(&f->gaps, 1);
		__sync_fetch_and_add(&f->missing, m.seq - prev - 1);
	} else if (m.seq <= prev) {
		__sync_fetch_and_add(&f->late, 1);
	}
	return obs_drop_marked ? TC_ACT_SHOT : TC_ACT_OK;
}

static __always_inline struct obs_drops *drops(__u32 map_id)
{
	__u32 zero = 0;

	if (!map_id || (map_id != obs_cpumap_ids[0] &&
			map_id != obs_cpumap_ids[1]))
		return NULL;
	return bpf_map_lookup_elem(&obs_drops, &zero);
}

/* trace_xdp_cpumap_enqueue(map_id, processed, drops, to_cpu) */
SEC("raw_tp/xdp_cpumap_enqueue")
int observer_cpumap_enqueue(struct bpf_raw_tracepoint_args *ctx)
{
	struct obs_drops *d = drops((__u32)ctx->args[0]);

	if (d)
		d->enqueue += (__u32)ctx->args[2];
	return 0;
}

/* trace_xdp_cpumap_kthread(map_id, processed, drops, sched, stats) */
SEC("raw_tp/xdp_cpumap_kthread")
int observer_cpumap_kthread(struct bpf_raw_tracepoint_args *ctx)
{
	struct obs_drops *d = drops((__u32)ctx->args[0]);

	if (d)
		d->kthread += (__u32)ctx->args[2];
	return 0;
}

/* trace_xdp_redirect_err(dev, xdp, tgt, err, map_type, map_id, index) */
SEC("raw_tp/xdp_redirect_err")
int observer_redirect_err(struct bpf_raw_tracepoint_args *ctx)
{
	struct obs_drops *d = drops((__u32)ctx->args[5]);

	if (d)
		d->redirect_err++;
	return 0;
}

char _license[] SEC("license") = "Dual BSD/GPL";
