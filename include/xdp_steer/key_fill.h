/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdp_steer/key_fill.h - a flow's lookup keys in the rule maps under one
 * shape, built alike by the datapath and the loader.
 */
#ifndef XDP_STEER_INCLUDE_KEY_FILL_H
#define XDP_STEER_INCLUDE_KEY_FILL_H

#include "xdp_steer/keys.h"

/* The flow as an exact shape's rule key sees it: fields outside 'shape'
 * zeroed. A word at a time, each masked: field by field, a frame a rule
 * places ran 22 instructions more (bench_prog --insns). The flow's pad is
 * masked out. */
static inline void steer_rule_key_fill(struct steer_rule_key *k, __u32 slot,
				       __u32 shape, const struct steer_flow *f)
{
	__u64 sm = (shape & STEER_M_SRC) ? ~0ull : 0;
	__u64 dm = (shape & STEER_M_DST) ? ~0ull : 0;
	__u16 pm[2] = { (shape & STEER_M_SPORT) ? 0xffff : 0,
			(shape & STEER_M_DPORT) ? 0xffff : 0 };
	__u8 fm[4] = { (shape & STEER_M_PROTO) ? 0xff : 0,
		       (shape & (STEER_M_SRC | STEER_M_DST)) ? 0xff : 0 };
	__u64 a[2], b[2];
	__u32 w, m;

	k->slot = slot;
	k->shape = shape;
	__builtin_memcpy(a, f->src, sizeof(a));
	__builtin_memcpy(b, f->dst, sizeof(b));
	a[0] &= sm;
	a[1] &= sm;
	b[0] &= dm;
	b[1] &= dm;
	__builtin_memcpy(k->flow.src, a, sizeof(a));
	__builtin_memcpy(k->flow.dst, b, sizeof(b));
	__builtin_memcpy(&w, &f->sport, sizeof(w));
	__builtin_memcpy(&m, pm, sizeof(m));
	w &= m;
	__builtin_memcpy(&k->flow.sport, &w, sizeof(w));
	__builtin_memcpy(&w, &f->proto, sizeof(w));
	__builtin_memcpy(&m, fm, sizeof(m));
	w &= m;
	__builtin_memcpy(&k->flow.proto, &w, sizeof(w));
}

/* The lookup key of a flow in a prefix shape: the prefix side's full
 * address (32 or 128 bits), the shape's other fields exact. */
static inline void steer_prefix_key_fill(struct steer_prefix_key *k,
					 __u32 slot, __u32 shape,
					 const struct steer_flow *f)
{
	int dst = (shape & STEER_M_PREFIX_DST) != 0;
	int other = (shape & (dst ? STEER_M_SRC : STEER_M_DST)) != 0;
	int i;

	k->prefixlen = STEER_PREFIX_FIXED_BITS +
		       (f->family == STEER_AF_INET ? 32 : 128);
	k->slot = slot;
	k->shape = shape;
	k->family = f->family;
	k->proto = (shape & STEER_M_PROTO) ? f->proto : 0;
	k->pad = 0;
	k->sport = (shape & STEER_M_SPORT) ? f->sport : 0;
	k->dport = (shape & STEER_M_DPORT) ? f->dport : 0;
	/* Words chosen, not pointers to the flow's addresses: clang kept
	 * those in front of the exact-rule loop, spilled, and the frames
	 * of exact rules paid 9 instructions for them (bench_prog
	 * --insns). */
	for (i = 0; i < 4; i++) {
		k->other[i] = !other ? 0 : dst ? f->src[i] : f->dst[i];
		k->addr[i] = dst ? f->dst[i] : f->src[i];
	}
}

#endif /* XDP_STEER_INCLUDE_KEY_FILL_H */
