/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdp_steer/hash.h - the flow hash and the CPU choice from a hash, the
 * same code on both sides, so a unit test predicts a frame's CPU.
 */
#ifndef XDP_STEER_INCLUDE_HASH_H
#define XDP_STEER_INCLUDE_HASH_H

#include <linux/types.h>
#include "xdp_steer/sizes.h"
#include "xdp_steer/slot.h"
#include "xdp_steer/keys.h"

/* What the parser read for the id keys (the datapath's struct parsed,
 * bpf/parse_cursor.h): a word of VLAN IDs and flags, and a tunnel's id. */
#define STEER_IDS_TAGS_SHIFT	24	/* bits 24-25: tags read, 0-2 */
#define STEER_IDS_VIDS		0x00ffffffu /* outer VID << 12 | inner VID
					      * (0 with one tag) */
#define STEER_IDS_TUNNEL	(1u << 31) /* the tunnel id is the frame's */

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
 *
 * What enters: the family and addresses always; the protocol and ports
 * only in L4 mode, and not for a fragment (l3_only). So under the L3 key
 * every flow between two hosts meets on one CPU, TCP, UDP and ICMP alike,
 * and a datagram's fragments meet its unfragmented neighbours; under the
 * L4 key the fragments meet each other (as NIC RSS hashes them too).
 */
/* The keyed sum over a flow's words, its two ends in the order given
 * (symmetric mode may swap them). Inline always, as the mix below: it
 * takes more arguments than a BPF function may, and the datapath sums
 * words where they lie, in the frame or in its parsed flow. */
static inline __attribute__((always_inline))
__u64 steer_flow_sum(const __u64 key[STEER_HASH_KEY_WORDS], __u32 ports,
		     __u32 pf, const __u32 *s, const __u32 *d, int v6)
{
	__u64 h = key[0] + key[1] * ports + key[2] * pf +
		  key[3] * s[0] + key[4] * d[0];

	if (v6)
		h += key[5] * s[1] + key[6] * s[2] + key[7] * s[3] +
		     key[8] * d[1] + key[9] * d[2] + key[10] * d[3];
	return h;
}

/* The fixed mix of a keyed sum, its top 32 bits. */
static inline __attribute__((always_inline)) __u32 steer_hash_mix(__u64 h)
{
	h >>= 32;
	h ^= h >> 16;
	h = (__u32)(h * 0x45d9f3bu);
	h ^= h >> 16;
	return (__u32)h;
}

/* steer_flow_hash_l4() of a flow's words wherever they lie: the two
 * ports as one word, the protocol | family << 8, the addresses. The
 * datapath hashes the commonest frame from its words in the frame
 * (bpf/flow_hash.h, common_hash()). */
static inline __attribute__((always_inline))
__u32 steer_flow_hash_l4_words(const __u64 key[STEER_HASH_KEY_WORDS],
			       __u32 ports, __u32 pf, const __u32 *s,
			       const __u32 *d, int v6)
{
	return steer_hash_mix(steer_flow_sum(key, ports, pf, s, d, v6));
}

/* steer_flow_hash() under the L4 key, not symmetric, of a datagram that
 * is no fragment: the commonest case, which the datapath computes inline
 * (bpf/flow_hash.h, frame_hash()), every other in a function of its own;
 * steer_flow_hash() takes it for that case too.
 *
 * The two ports and the protocol with the family are words of the flow
 * as they lie in it (on little-endian CPUs the source port and the
 * protocol in the low halves): one load each, not the fields taken one by
 * one and joined, which every frame would pay for ("Code-shape
 * decisions" in bpf/README.md). The parser writes each word in one store
 * (bpf/parse_cursor.h). */
static inline __u32 steer_flow_hash_l4(const struct steer_flow *f,
				       const __u64 key[STEER_HASH_KEY_WORDS])
{
	__u32 ports;
	__u16 pf;

	__builtin_memcpy(&ports, &f->sport, sizeof(ports));
	__builtin_memcpy(&pf, &f->proto, sizeof(pf));
	return steer_flow_hash_l4_words(key, ports, pf, f->src, f->dst,
					f->family == STEER_AF_INET6);
}

static inline __u32 steer_flow_hash(const struct steer_flow *f,
				    const __u64 key[STEER_HASH_KEY_WORDS],
				    __u32 flags, int l3_only)
{
	__u32 ports = 0, pf;
	__u16 w;
	int l4 = !l3_only && (flags & STEER_F_HASH_L4);
	int v6 = f->family == STEER_AF_INET6;

	if (l4 && !(flags & STEER_F_SYMMETRIC))
		return steer_flow_hash_l4(f, key);
	if (l4) {
		__builtin_memcpy(&ports, &f->sport, sizeof(ports));
		__builtin_memcpy(&w, &f->proto, sizeof(w));
		pf = w;
	} else {
		pf = (__u32)f->family << 8;
	}
	/* The sum written out for each order: the flow's words then load
	 * from where they lie, where pointers chosen between the two ends
	 * cost every frame 5 instructions to set up (bench_prog --insns). */
	if ((flags & STEER_F_SYMMETRIC) && steer_flow_reversed(f))
		return steer_hash_mix(steer_flow_sum(key, ports >> 16 |
							  ports << 16, pf,
						     f->dst, f->src, v6));
	return steer_hash_mix(steer_flow_sum(key, ports, pf, f->src, f->dst,
					     v6));
}

/*
 * The id an id key (STEER_F_KEY_ID in 'flags') hashes for a frame, from
 * what the parser read: 'ids' (STEER_IDS_*), the tunnel's id, the flow's
 * two ports as one word (source port in its first two bytes, network
 * order) and whether it is a fragment. 1 with *id set; 0 when the key does
 * not apply (no VLAN tag, no tunnel id, no ports: a protocol without them,
 * or a fragment, whose later pieces carry none): the frame then hashes on
 * its flow under the L4 key (steer_flow_hash()), so those frames still
 * spread, and a fragment's pieces meet. The tags' count is in the VLAN id:
 * one tag of VID 5 is not two of 0 and 5.
 */
static inline int steer_key_id(__u32 flags, __u32 ids, __u32 tunnel_id,
			       __u32 ports, int is_frag, __u32 *id)
{
	int dst = !!(flags & STEER_F_KEY_DPORT);

	if (flags & STEER_F_KEY_VLAN) {
		*id = ids & ~STEER_IDS_TUNNEL;
		return *id != 0;
	}
	if (flags & STEER_F_KEY_TUNNEL) {
		*id = tunnel_id;
		return !!(ids & STEER_IDS_TUNNEL);
	}
	if (!ports || is_frag)
		return 0;
	/* The port the key names, as it lies in the word (a shift, not a
	 * pointer into it: the verifier refuses arithmetic on a stack
	 * pointer's bits). */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	*id = (dst ? ports >> 16 : ports) & 0xffff;
#else
	*id = (dst ? ports : ports >> 16) & 0xffff;
#endif
	return 1;
}

/* The hash of an id key's id: the flows' keyed sum over the one word,
 * and the same final mix (steer_flow_hash()). The key's kind stays out:
 * one policy has one key, and its term cost a port key the instructions
 * that put it over the L4 key on the same frame (bench_prog --insns). */
static inline __u32 steer_id_hash(__u32 id,
				  const __u64 key[STEER_HASH_KEY_WORDS])
{
	return steer_hash_mix(key[0] + key[1] * id);
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

#endif /* XDP_STEER_INCLUDE_HASH_H */
