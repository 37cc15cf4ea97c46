/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdp_steer.h - the one header shared by the XDP program (clang -target bpf)
 * and userspace (gcc): map names, the values stored in them, and the pure
 * functions both sides must agree on (the flow hash and the CPU choice from a
 * hash), so a unit test can predict the CPU a frame will get.
 *
 * Self-contained on purpose: fixed-width types from <linux/types.h> only.
 * Byte order is stated on every field that carries one.
 */
#ifndef XDP_STEER_H
#define XDP_STEER_H

#include <linux/types.h>

/* ---- sizes: every map has a fixed size --------------------------------- */

/* Highest CPU id + 1 a policy may name; also the cpumap size, which the
 * kernel caps at NR_CPUS (256 on the smallest configs we target, 8192 on
 * Debian): a bigger map would fail to load there. */
#define STEER_MAX_CPUS		256
/* Largest indirection table (entries per slot); a power of two. */
#define STEER_TABLE_MAX		4096
/* Default table size: 512 buckets give each of 64 CPUs 8 buckets, so weights
 * stay within 1/512 of what was asked and a CPU change moves few buckets. */
#define STEER_TABLE_DEFAULT	512
/* Rules per slot (exact-field and prefix rules each). */
#define STEER_MAX_RULES		16384
/* CPU ids referenced by rules that target a CPU set, per slot. */
#define STEER_RULE_CPUS_MAX	4096
/* Distinct field sets ("shapes") among exact-field rules: one hash lookup
 * each on the fast path, so keep it small. */
#define STEER_MAX_SHAPES	8
/* IPv6 extension headers walked before giving up (RFC 8200 suggests no
 * limit; real traffic carries 0-3, attackers send long chains). */
#define STEER_IPV6_EXT_MAX	8
/* Key words: one constant and one per 32-bit word of the longest (IPv6)
 * flow: 4 + 4 address words, ports, protocol and family. */
#define STEER_HASH_KEY_WORDS	11
/* Two slots: the datapath reads the active one while the loader writes the
 * other, then flips steer_ctl.active (one word). */
#define STEER_SLOTS		2

/* ---- names: defined once, used by BPF (as identifiers) and userspace ---- */

#define STEER_STR_(x)		#x
#define STEER_STR(x)		STEER_STR_(x)

#define STEER_MAP_CPUMAP	cpu_map
#define STEER_MAP_CTL		steer_ctl
#define STEER_MAP_SLOTS		steer_slots
#define STEER_MAP_TABLE		steer_table
#define STEER_MAP_FLOW_RULES	flow_rules
#define STEER_MAP_SRC_PREFIX	src_prefixes
#define STEER_MAP_DST_PREFIX	dst_prefixes
#define STEER_MAP_RULE_CPUS	rule_cpus
#define STEER_MAP_STATS		steer_stats
#define STEER_MAP_CPU_STATS	cpu_stats
#define STEER_MAP_WORKER_STATS	worker_stats

#define STEER_PROG_MAIN		xdp_steer
#define STEER_PROG_WORKER	steer_worker

/* Maps of interface IFNAME are pinned in STEER_PIN_ROOT "/" IFNAME "/". */
#define STEER_PIN_ROOT		"/sys/fs/bpf/xdp-steer"

/* ---- map values --------------------------------------------------------- */

/* steer_ctl[0]: which slot the datapath reads. The only word a policy swap
 * writes while traffic flows. */
struct steer_ctl {
	__u32 active;		/* 0 or 1 */
	__u32 pad;
};

/* steer_slot.flags */
#define STEER_F_HASH_L4		(1u << 0) /* ports enter the hash */
#define STEER_F_SYMMETRIC	(1u << 1) /* both directions hash alike */
#define STEER_F_LOCAL_FASTPATH	(1u << 2) /* chosen CPU == this CPU: pass */
#define STEER_F_SRC_PREFIXES	(1u << 3) /* src_prefixes has rules */
#define STEER_F_DST_PREFIXES	(1u << 4) /* dst_prefixes has rules */

/* Meaning of steer_slot.nonip_cpu when non-IP frames stay where they are. */
#define STEER_CPU_LOCAL		0xffffffffu

/* steer_slots[slot]: one complete policy, minus its table and rules. */
struct steer_slot {
	__u64 hash_key[STEER_HASH_KEY_WORDS]; /* secret; random or from the seed */
	__u32 flags;		/* STEER_F_* */
	__u32 table_size;	/* power of two <= STEER_TABLE_MAX; 0: no policy */
	__u32 nonip_cpu;	/* CPU for non-IP frames, or STEER_CPU_LOCAL */
	__u32 generation;	/* bumped by every apply, for status */
	__u32 nshapes;		/* entries used in shapes[] */
	__u32 shapes[STEER_MAX_SHAPES]; /* STEER_M_* masks, one per shape */
	/* Loader bookkeeping, ignored by the datapath: */
	__u32 queue_size;	/* cpumap ring size of the workers */
	__u32 loader_flags;	/* STEER_LF_* */
	__u64 digest;		/* of everything applied: same digest, same policy */
};

/* steer_slot.loader_flags */
#define STEER_LF_SEED_RANDOM	(1u << 0) /* key drawn at random: keep it on
					   * re-apply so flows do not move */
#define STEER_LF_REBALANCE_DRAIN (1u << 1) /* rebalance: drain */

/* Fields of a flow an exact-field rule can match (a "shape" is a set). */
#define STEER_M_PROTO		(1u << 0)
#define STEER_M_SRC		(1u << 1)
#define STEER_M_DST		(1u << 2)
#define STEER_M_SPORT		(1u << 3)
#define STEER_M_DPORT		(1u << 4)
#define STEER_M_ALL		0x1fu

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
};

/* flow_rules key: the flow with every field outside 'shape' zeroed (family
 * too, unless the shape has an address). */
struct steer_rule_key {
	__u32 slot;
	__u32 shape;		/* STEER_M_* */
	struct steer_flow flow;
};

/* src_prefixes / dst_prefixes key (LPM trie). The slot takes the first 32
 * bits of the prefix; IPv4 is stored IPv4-mapped (::ffff:a.b.c.d). */
struct steer_prefix_key {
	__u32 prefixlen;	/* 32 + 128 for a lookup */
	__u32 slot;		/* host order, always fully matched */
	__u8 addr[16];		/* network byte order */
};
#define STEER_PREFIX_BITS(addr_bits)	(32 + (addr_bits))

/* Value of a rule: which CPU(s) its flows go to. */
struct steer_target {
	__u32 rule_id;		/* position in the policy, from 0: first wins */
	__u32 ncpus;		/* 1: 'cpu' is the CPU; >1: a set */
	__u32 cpu;		/* the CPU, or index of the set's first entry
				 * in rule_cpus (slot * STEER_RULE_CPUS_MAX + i) */
	__u32 pad;
};

/* steer_stats (per-CPU array, one entry): what the receiving CPU did. Every
 * frame lands in exactly one of the redirected/passed_* counters. */
struct steer_stats {
	__u64 rx_packets;		/* frames the program saw */
	__u64 rx_bytes;
	__u64 redirected;		/* queued to a worker CPU's cpumap */
	__u64 passed_local;		/* chosen CPU is this CPU: no hop */
	__u64 passed_nonip;		/* not IPv4/IPv6, left on this CPU */
	__u64 passed_parse_error;	/* truncated/malformed, left here */
	__u64 passed_no_target;		/* chosen CPU has no cpumap entry */
	__u64 passed_no_policy;		/* active slot is empty */
	__u64 fragments;		/* IP fragments (hashed on L3 only) */
	__u64 rule_flow_hits;		/* an exact-field rule chose the CPU */
	__u64 rule_prefix_hits;		/* a prefix rule chose the CPU */
};

/* cpu_stats[cpu] (per-CPU array): frames the receiving CPU sent toward
 * 'cpu' (queued to it, or kept when it is the receiving CPU itself). */
struct steer_cpu_stats {
	__u64 packets;
	__u64 bytes;
};

/* worker_stats[0] (per-CPU array): frames the cpumap program dequeued on
 * each worker CPU, read per CPU. */
struct steer_worker_stats {
	__u64 packets;
	__u64 bytes;
};

/* ---- the flow hash ------------------------------------------------------ */

/* 1 when the (src, sport) end sorts after the (dst, dport) end: symmetric
 * mode then swaps both ends together, as the kernel's flow dissector does,
 * so ports stay with their addresses. */
static inline int steer_flow_reversed(const struct steer_flow *f)
{
	int i;

	for (i = 0; i < 4; i++) {
		if (f->src[i] != f->dst[i])
			return f->src[i] > f->dst[i];
	}
	return f->sport > f->dport;
}

/*
 * Multilinear hashing (Lemire and Kaser, "Strongly universal string hashing
 * is fast", 2014): h = (k0 + k1*w1 + ... + kn*wn) mod 2^64, keep the top 32
 * bits. Over random 64-bit keys it is strongly universal: without the key,
 * nobody can choose flows that pile onto one CPU. The products are
 * independent, so the CPU runs them in parallel: several times faster than
 * jhash's serial mixing, which matters at one hash per frame.
 *
 * The sum is linear in each word, so flows that differ by a counter (one
 * client's consecutive source ports) hash to an arithmetic progression; for
 * about one key in 200 its step lines up with the table and most of those
 * flows share a bucket parity, i.e. one CPU of two. A fixed bijective mix of
 * the result (one multiply; a bijection keeps the family's universality)
 * breaks the progression up.
 */
static inline __u32 steer_flow_hash(const struct steer_flow *f,
				    const __u64 key[STEER_HASH_KEY_WORDS],
				    __u32 flags, int l3_only)
{
	const __u32 *s = f->src, *d = f->dst;
	__u32 sp = f->sport, dp = f->dport, ports;
	__u64 h;

	if ((flags & STEER_F_SYMMETRIC) && steer_flow_reversed(f)) {
		s = f->dst;
		d = f->src;
		sp = f->dport;
		dp = f->sport;
	}
	ports = (!l3_only && (flags & STEER_F_HASH_L4)) ? (sp | dp << 16) : 0;
	h = key[0] + key[1] * ports +
	    key[2] * ((__u32)f->proto | (__u32)f->family << 8) +
	    key[3] * s[0] + key[4] * d[0];
	if (f->family == STEER_AF_INET6)
		h += key[5] * s[1] + key[6] * s[2] + key[7] * s[3] +
		     key[8] * d[1] + key[9] * d[2] + key[10] * d[3];
	h >>= 32;
	h ^= h >> 16;
	h = (__u32)(h * 0x45d9f3bu);
	h ^= h >> 16;
	return (__u32)h;
}

/* Table bucket of a hash: the low bits, table_size a power of two. */
static inline __u32 steer_table_index(__u32 hash, __u32 table_size)
{
	return hash & (table_size - 1);
}

/* Member of a rule's CPU set of n for a hash: the high bits, by multiply and
 * shift instead of a division, so it is independent of the table bucket. */
static inline __u32 steer_set_index(__u32 hash, __u32 n)
{
	return (__u32)(((__u64)hash * n) >> 32);
}

/* The flow as a shape's rule key sees it: fields outside 'shape' zeroed. */
static inline void steer_rule_key_fill(struct steer_rule_key *k, __u32 slot,
				       __u32 shape, const struct steer_flow *f)
{
	int i;

	k->slot = slot;
	k->shape = shape;
	for (i = 0; i < 4; i++) {
		k->flow.src[i] = (shape & STEER_M_SRC) ? f->src[i] : 0;
		k->flow.dst[i] = (shape & STEER_M_DST) ? f->dst[i] : 0;
	}
	k->flow.sport = (shape & STEER_M_SPORT) ? f->sport : 0;
	k->flow.dport = (shape & STEER_M_DPORT) ? f->dport : 0;
	k->flow.proto = (shape & STEER_M_PROTO) ? f->proto : 0;
	k->flow.family = (shape & (STEER_M_SRC | STEER_M_DST)) ? f->family : 0;
	k->flow.pad[0] = 0;
	k->flow.pad[1] = 0;
}

#endif /* XDP_STEER_H */
