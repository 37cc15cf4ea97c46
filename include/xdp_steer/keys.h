/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdp_steer/keys.h - the flow a frame belongs to, as parsed, and the keys
 * and values of the rule maps (flow_rules, prefix_rules).
 */
#ifndef XDP_STEER_INCLUDE_KEYS_H
#define XDP_STEER_INCLUDE_KEYS_H

#include <linux/types.h>

/* Fields of a flow a rule can match; a "shape" is a set of them. A shape
 * with STEER_M_PREFIX_SRC (or _DST) matches its source (destination)
 * address by prefix, in prefix_rules; its other fields, the other address
 * included, match exactly. A shape without either is looked up in
 * flow_rules, every field exact. */
#define STEER_M_PROTO		(1u << 0)
#define STEER_M_SRC		(1u << 1)
#define STEER_M_DST		(1u << 2)
#define STEER_M_SPORT		(1u << 3)
#define STEER_M_DPORT		(1u << 4)
#define STEER_M_ALL		0x1fu
#define STEER_M_PREFIX_SRC	(1u << 5) /* with STEER_M_SRC */
#define STEER_M_PREFIX_DST	(1u << 6) /* with STEER_M_DST */
#define STEER_M_PREFIX		(STEER_M_PREFIX_SRC | STEER_M_PREFIX_DST)

#define STEER_AF_INET		4
#define STEER_AF_INET6		6

/* The flow a frame belongs to, as parsed. IPv4 addresses sit in word 0, the
 * other words zero. sport/dport are zero for frames without ports. */
struct steer_flow {
	__u32 src[4];		/* network byte order */
	__u32 dst[4];		/* network byte order */
	__u16 sport;		/* network byte order */
	__u16 dport;		/* network byte order */
	__u8 proto;		/* IPPROTO_* of the transport header */
	__u8 family;		/* STEER_AF_INET or STEER_AF_INET6 */
	__u8 pad[2];		/* zero */
} __attribute__((aligned(8)));	/* two address words in one load */

/* flow_rules key: the flow with every field outside 'shape' zeroed (family
 * too, unless the shape has an address). */
struct steer_rule_key {
	__u32 slot;
	__u32 shape;		/* STEER_M_*, no prefix bit */
	struct steer_flow flow;
};

/* prefix_rules key (LPM trie). Everything before 'addr' is matched in full;
 * 'addr' (the prefix side's address) by prefixlen - STEER_PREFIX_FIXED_BITS
 * bits. The family is part of the full match, so IPv4 and IPv6 prefixes,
 * /0 included, never meet. */
struct steer_prefix_key {
	__u32 prefixlen;	/* STEER_PREFIX_FIXED_BITS + prefix length */
	__u32 slot;		/* host order */
	__u32 shape;		/* STEER_M_*, with one STEER_M_PREFIX_* bit */
	__u8 family;		/* STEER_AF_* */
	__u8 proto;		/* zero unless the shape has STEER_M_PROTO */
	__u16 pad;
	__u16 sport;		/* network byte order; zero unless in shape */
	__u16 dport;		/* network byte order; zero unless in shape */
	__u32 other[4];		/* the other address, network byte order;
				 * zero unless the shape has it */
	__u32 addr[4];		/* network byte order */
};
/* Bits of a prefix key's data before 'addr'. */
#define STEER_PREFIX_FIXED_BITS	(8 * 32)

/* Value of a rule: which CPU(s) its flows go to. */
struct steer_target {
	__u32 rule_id;		/* position in the policy, from 0: first wins */
	__u32 ncpus;		/* 1: 'cpu' is the CPU; >1: a set */
	__u32 cpu;		/* the CPU, or index of the set's first entry
				 * in rule_cpus (slot * STEER_RULE_CPUS_MAX + i) */
	__u32 pad;
};

#endif /* XDP_STEER_INCLUDE_KEYS_H */
