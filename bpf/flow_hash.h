/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * flow_hash.h - the frame's hash under the slot's key, all of it:
 * frame_hash() from the parsed flow, and common_hash(), two of its cases
 * computed from the commonest frame's words where they lie. The
 * arithmetic is include/xdp_steer/hash.h's, which the loader and the
 * tests share to predict a frame's CPU.
 */
#ifndef XDP_STEER_FLOW_HASH_H
#define XDP_STEER_FLOW_HASH_H

#include <linux/bpf.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>

#include "xdp_steer.h"
#include "omit.h"
#include "parse_cursor.h"

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

/* The hash of the id an id key names (steer_key_id()): 1 with *hash set;
 * 0 when the key does not apply to the frame. */
static __always_inline int id_key_hash(const struct steer_slot *s,
				       __u32 flags, __u32 ids, __u32 tunnel_id,
				       __u32 ports, int is_frag, __u32 *hash)
{
	__u32 id;

	if (!steer_key_id(flags, ids, tunnel_id, ports, is_frag, &id))
		return 0;
	*hash = steer_id_hash(id, s->hash_key);
	return 1;
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
	__u32 flags = slot->flags, ports, hash;

	if (omitted(HASH))
		return p->flow.src[0] + p->flow.sport;
	if (__builtin_expect(flags & STEER_F_KEY_ID, 0)) {
		__builtin_memcpy(&ports, &p->flow.sport, sizeof(ports));
		if (id_key_hash(slot, flags, p->ids, p->tunnel_id, ports,
				p->is_frag, &hash))
			return hash;
		return key_id_fallback(st, slot, p);
	}
	if ((flags & (STEER_F_SYMMETRIC | STEER_F_HASH_L4)) ==
	    STEER_F_HASH_L4 && !p->is_frag)
		return steer_flow_hash_l4(&p->flow, slot->hash_key);
	return flow_hash(slot, p);
}

/*
 * frame_hash() of the commonest frame (parse_common(): its IP header
 * checked, no fragment), from its protocol and family, ports and addresses
 * where they lie in the frame, for the two cases that need nothing else of
 * the parse: the L4 key, not symmetric (steer_flow_hash_l4()'s words), and
 * a port key (id_key_hash(), no tags or tunnel read), under a slot without
 * rules (which look at the flow). 1 with *hash set; 0 for another slot, a
 * frame that is not the commonest (a tunnel's maybe, or the walk's), or
 * one a port key does not apply to (both ports 0: the parse goes on, and
 * frame_hash() counts the fallback). Side by side with frame_hash(), not
 * a call of it on these words: the flow would be stored and loaded back,
 * and the slot tested after the parse, not in the family's branch.
 */
static __always_inline int common_hash(const struct steer_slot *s,
				       __u8 proto, __u8 family,
				       const __be16 *ports, const __u32 *src,
				       const __u32 *dst, __u32 *hash)
{
	/* The key's bits, masked once: the L4 key is then one compare here
	 * and one below, not a test of the bits of each kind.
	 * barrier_var(): else clang tests the slot's flags again below, and
	 * keeps them in a register through the parse, which spills others. */
	__u32 key = s->flags & (STEER_F_KEY_ID | STEER_F_SYMMETRIC |
				STEER_F_HASH_L4);
	__u32 w;

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
	if (key != STEER_F_HASH_L4)
		return id_key_hash(s, key, 0, 0, w, 0, hash);
	*hash = steer_flow_hash_l4_words(s->hash_key, w,
					 proto | (__u32)family << 8, src, dst,
					 family == STEER_AF_INET6);
	return 1;
}

#endif /* XDP_STEER_FLOW_HASH_H */
