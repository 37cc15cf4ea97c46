/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * traffic.h - shared by the traffic generator (traffic_gen.bpf.c, its
 * userspace traffic_gen.c) and the observer (observer.bpf.c, observer.c):
 * what a test frame carries and the map values both sides read.
 *
 * Every test frame carries a struct traffic_mark right after its transport
 * header (after the 28-byte ARP body for ARP frames). The generator and the
 * observer run on one machine, so the mark is in host byte order; addresses
 * and ports are in network byte order as on the wire.
 */
#ifndef XDP_STEER_TRAFFIC_H
#define XDP_STEER_TRAFFIC_H

#include <linux/types.h>

/* "XSTM" read as a little-endian word: what no real frame carries there. */
#define TRAFFIC_MAGIC		0x4d545358u

/* Flow ids are dense, 0 .. TRAFFIC_MAX_FLOWS - 1 (an array index). */
#define TRAFFIC_MAX_FLOWS	65536
/* Groups of flows of one shape each (--group on the generator); a power
 * of two (the program masks the group's index with it). */
#define TRAFFIC_MAX_GROUPS	32
/* CPUs the observer tells apart: 16 words of bits, as many CPU ids as
 * a worker may have (STEER_CPU_IDS); a CPU past them is counted as the
 * one 1024 below it. */
#define TRAFFIC_MAX_CPUS	1024

/* Frame shapes, fixed layouts (no VLAN, no IP options), so the generator
 * writes fields at constant offsets from the IP header, which an
 * encapsulation (the group's; traffic_gen --group ...,encap=) moves by a
 * constant of its own, and the transport header at a constant offset
 * from it (the group's l4: more than the IP header's length behind IPv6
 * extension headers, traffic_gen --group ...,bad=ext-chain). */
enum traffic_shape {
	TRAFFIC_UDP4,
	TRAFFIC_TCP4,
	TRAFFIC_UDP6,
	TRAFFIC_TCP6,
	TRAFFIC_ARP,		/* request for an unused address; mark in the
				 * padding */
	TRAFFIC_ESP4,		/* ESP: the flow's ports are its SPI (sport in
				 * the high half); mark after SPI and sequence */
	TRAFFIC_ESP6,
	TRAFFIC_NSHAPES,
};

/* In every test frame. */
struct traffic_mark {
	__u32 magic;		/* TRAFFIC_MAGIC, host order */
	__u32 flow;		/* flow id, host order */
	__u64 seq;		/* 1, 2, 3, ... per flow, host order */
};

/* Generator: one flow, written into each frame of it (gen_flows[flow]).
 * Everything a frame of the flow carries that differs from its group's
 * template, precomputed, so the program only adds the sequence number. */
struct gen_flow {
	__u32 src[4];		/* network order; IPv4 in word 0 */
	__u32 dst[4];		/* network order */
	__u16 sport;		/* network order */
	__u16 dport;		/* network order */
	__u16 ip_csum;		/* IPv4 header checksum, as stored */
	__u16 pad;
	__u32 l4_sum;		/* ones' complement sum (16-bit words as
				 * stored) of the pseudo header and the whole
				 * segment with checksum and sequence fields
				 * zero; folded to 16 bits */
	__u32 pad2;
	__u64 seq;		/* last sequence number sent, host order */
};

/* Generator: one group (gen_groups[], in .bss). Written by userspace only
 * between test runs; the program moves 'cursor'. */
struct gen_group {
	__u32 shape;		/* enum traffic_shape */
	__u32 first;		/* first flow id */
	__u32 nflows;
	__u32 cursor;		/* next flow, first + cursor */
	__u8 eth[12];		/* destination and source MAC of the
				 * template: a router that forwarded the
				 * frame rewrote them in the page */
	__u8 hops;		/* TTL or hop limit of the template's
				 * (inner) IP header (a router decremented
				 * it) */
	__u8 pad[3];
	__u32 l3;		/* offset of the (inner) IP header */
	__u32 l4;		/* of the transport header, from the IP
				 * header */
	__u8 tags[10];		/* the template's VLAN tags and the
				 * ethertype after them (bytes 12..): the
				 * receiver's stack takes a tag out of the
				 * page in place (skb_vlan_untag), and the
				 * page comes back to the generator */
	__u8 ntags;		/* 0, 1 or 2 */
	__u8 pad2[5];
};
/* The fanout sender's frames into its own veth (traffic_fanout.c): the
 * group's template with this in place of the source MAC, which the writer
 * overwrites in every copy. */
struct fanout_tag {
	__u8 magic;		/* FANOUT_MAGIC: a locally administered,
				 * unicast first byte */
	__u8 group;		/* the group's index */
	__u8 copies;		/* FANOUT_ONE, or FANOUT_MANY: one copy per
				 * entry of the full fanout */
	__u8 key[3];		/* the sender's (gen_fan_key): a frame of
				 * the pair's own stack, whose random MAC
				 * may start with the magic, is not one */
};
#define FANOUT_TAG_OFF	6
#define FANOUT_MAGIC	0xfa
#define FANOUT_ONE	1
#define FANOUT_MANY	2
/* The most copies of one frame (--fanout). */
#define FANOUT_MAX	64

/* The most header bytes before the (inner) IP header. */
#define TRAFFIC_L3_MAX		127
/* The most bytes from the IP header to the transport header, a mask. */
#define TRAFFIC_L4_MAX		255

/* Observer: one flow, obs_flows[flow]. Updated with atomics, so it stays
 * right when a flow reaches the stack on two CPUs at once. */
struct obs_flow {
	__u64 cpus[TRAFFIC_MAX_CPUS / 64]; /* bit c: seen on CPU c */
	__u64 received;		/* frames */
	__u64 gaps;		/* frames with seq > previous + 1 */
	__u64 missing;		/* sum of (seq - previous - 1) over gaps */
	__u64 late;		/* frames with seq <= previous: reordered or
				 * duplicated */
	__u64 last_seq;		/* seq of the frame that arrived last */
	__u64 last_cpu;		/* 1 + the CPU of the frame that arrived
				 * last; 0: none yet */
	__u64 left_cpu;		/* 1 + the CPU its last switch left */
	__u64 switched_ns;	/* when it last switched CPUs */
	__u64 switches;		/* frames on another CPU than the one
				 * before */
	__u64 splits;		/* of those, back on the CPU the last switch
				 * left within OBS_SPLIT_NS of it: the flow
				 * on two CPUs at once */
};
/* No move of xdp-steer's takes a flow back within this: a balancer round
 * is a second, and a bucket it moved stays for two more. */
#define OBS_SPLIT_NS	100000000ull

/* Observer: obs_cpu (per-CPU array, one entry): frames per CPU. */
struct obs_cpu {
	__u64 marked;		/* test frames, IP and ARP */
	__u64 marked_arp;	/* of which ARP */
	__u64 bad_flow;		/* marked, flow id out of range */
};

/* Observer: obs_drops (per-CPU array, one entry): drops the kernel reports
 * through tracepoints for the watched cpumap (obs_cpumap_id). */
struct obs_drops {
	__u64 enqueue;		/* xdp_cpumap_enqueue: ring full */
	__u64 kthread;		/* xdp_cpumap_kthread: skb or program drops */
	__u64 redirect_err;	/* xdp_redirect_err naming the cpumap */
};

#endif /* XDP_STEER_TRAFFIC_H */
