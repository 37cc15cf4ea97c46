/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * flow_hash.h - the frame's hash under the slot's key: frame_hash() from
 * the parsed flow, and common_hash(), its L4 and port-key cases computed
 * from the commonest frame's words where they lie.
 */
#ifndef XDP_STEER_FLOW_HASH_H
#define XDP_STEER_FLOW_HASH_H

#include <linux/bpf.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>

#include "xdp_steer.h"
#include "omit.h"
#include "parse_cursor.h"

/*
 * The hash of the commonest frame (parse_common()), its IP header
 * checked, from its protocol and family, ports and addresses where they
 * lie in the frame: what frame_hash() (xdp_steer.bpf.c) computes from the
 * flow the parse would write, for a slot under the L4 key or a port key,
 * not symmetric, without rules (which look at that flow). 1 with *hash
 * set; 0 for another slot, a frame that is not the commonest (a tunnel's
 * maybe, or the walk's), or one a port key does not apply to (both ports
 * 0: the parse goes on, and frame_hash() counts the fallback). Decided
 * here, in the family's branch, with the slot's words read here: the
 * flow is then never written out and read back, and the slot's test is
 * not kept from before the parse.
 */
static __always_inline int common_hash(const struct steer_slot *s,
				       __u8 proto, __u8 family,
				       const __be16 *ports, const __u32 *src,
				       const __u32 *dst, __u32 *hash)
{
	/* The key's bits, masked once: the L4 key is then one compare here
	 * and one below, not a test of the bits of each kind.
	 * barrier_var(): else clang tests the slot's
	 * flags again below, and keeps them in a register through the
	 * parse, which spilled others. */
	__u32 key = s->flags & (STEER_F_KEY_ID | STEER_F_SYMMETRIC |
				STEER_F_HASH_L4);
	__u32 w, id;

	barrier_var(key);
	if (s->nshapes)
		return 0;
	if (key != STEER_F_HASH_L4 &&
	    (key & ~(STEER_F_KEY_SPORT | STEER_F_KEY_DPORT)) != STEER_F_HASH_L4)
		return 0;
	if (proto != IPPROTO_TCP &&
	    (proto != IPPROTO_UDP ||
	     s->decap_port_bits >> steer_port_bit(ports[1]) & 1))
		return 0;
	w = *(const __u32 *)ports;
	if (omitted(HASH)) {
		*hash = *src + w;	/* not a constant the compiler folds */
		return 1;
	}
	if (key != STEER_F_HASH_L4) {
		if (!steer_key_id(key, 0, 0, w, 0, &id))
			return 0;
		*hash = steer_id_hash(id, s->hash_key);
		return 1;
	}
	*hash = steer_hash_mix(steer_flow_sum(s->hash_key, w,
					      proto | (__u32)family << 8,
					      src, dst,
					      family == STEER_AF_INET6));
	return 1;
}

/* The hash of the frame's flow under any key (steer_flow_hash()): for
 * what frame_hash() leaves out, in a function of its own. */
static __noinline __u32 flow_hash(const struct steer_slot *slot,
				  const struct parsed *p)
{
	return steer_flow_hash(&p->flow, slot->hash_key, slot->flags,
			       p->is_frag);
}

/* A frame an id key does not apply to: hashed on its flow, counted. */
static __noinline __u32 key_id_fallback(struct steer_stats *st,
					const struct steer_slot *slot,
					const struct parsed *p)
{
	st->key_id_fallback++;
	return flow_hash(slot, p);
}

/*
 * The frame's hash. Inline only the commonest cases, each in few
 * instructions: the L4 key on a datagram that is no fragment
 * (steer_flow_hash_l4()), and an id key (hash.key vlan, tunnel, src_port,
 * dst_port: steer_key_id()) where it applies. Every other (the L3 key,
 * symmetric, fragments, an id key's fallback) calls a function of its
 * own: inline, each case would cost the commonest ones instructions.
 */
static __always_inline __u32 frame_hash(struct steer_stats *st,
					const struct steer_slot *slot,
					const struct parsed *p)
{
	__u32 flags = slot->flags, ports, id;

	if (__builtin_expect(flags & STEER_F_KEY_ID, 0)) {
		__builtin_memcpy(&ports, &p->flow.sport, sizeof(ports));
		if (steer_key_id(flags, p->ids, p->tunnel_id, ports,
				 p->is_frag, &id))
			return steer_id_hash(id, slot->hash_key);
		return key_id_fallback(st, slot, p);
	}
	if ((flags & (STEER_F_SYMMETRIC | STEER_F_HASH_L4)) ==
	    STEER_F_HASH_L4 && !p->is_frag)
		return steer_flow_hash_l4(&p->flow, slot->hash_key);
	return flow_hash(slot, p);
}

#endif /* XDP_STEER_FLOW_HASH_H */
