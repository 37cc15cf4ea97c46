/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * parse_fast.h - parse_common(): the frame nearly every frame is, read in
 * place, without the cursor, in fewer instructions than the walk.
 */
#ifndef XDP_STEER_PARSE_FAST_H
#define XDP_STEER_PARSE_FAST_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "xdp_steer.h"
#include "parse_cursor.h"
#include "parse_result.h"
#include "flow_hash.h"

/* How far into the frame a datagram of 'len' bytes, 'at' bytes into it,
 * ends, or a number past any frame's size when it holds fewer than 'min'
 * bytes (the length wraps): so one compare with the frame's size tests
 * both, where a test of each would make a second pointer from 'len'.
 * What the headers say, checked; the verifier's bounds are the checks of
 * the frame's end. */
static __always_inline __u64 common_end(__u32 len, __u32 min, __u64 at)
{
	return (__u64)(__u32)(len - min) + min + at;
}

/* Above the end of any datagram that fits (a 16-bit length, at most 54
 * bytes of headers before it): the pointer to that end, made only for a
 * tunnel's frame, takes common_end() through this mask, which bounds it
 * for the verifiers that know nothing of a byte swap's result
 * (ntohs_len()). Not made from the length field again: that would cost
 * the frames their family's branch did not hash. */
#define DEND_MASK	0x1ffff

/*
 * The frame nearly every frame is: untagged Ethernet, IPv4 without options
 * or IPv6 without extension headers, TCP or UDP, not a fragment, and not
 * to a UDP port the slot looks through. Fills p->flow as the walk
 * (parse_l3.h) would (the same checks, in fewer instructions):
 * PARSE_DONE. A frame of
 * the same outer shape whose protocol may be a tunnel (UDP to a port the
 * slot looks through, GRE, IP-in-IP, ESP) leaves p and the cursor as
 * parse_ip() would before parse_l4(): PARSE_AT_L4; for UDP, as parse_l4()
 * would before the tunnel's header, its ports read: PARSE_AT_UDP. So a
 * tunnel's outer headers are read once. PARSE_WALK for any other frame,
 * left to the walk, which decides it on its own (a short datagram,
 * ports past its end: its parse error), on a p it zeroes first. Every
 * other result has written every field of p, the unused address words
 * and ports too, so the commonest frame's p is not zeroed and then
 * written. Under a slot that hashes it where it lies (common_hash()), the
 * commonest frame is hashed instead: PARSE_HASHED, *hash set, p not
 * written.
 */
static __always_inline int parse_common(struct xdp_md *ctx,
					const struct steer_slot *s,
					struct parsed *p, struct cursor *c,
					__u32 *hash)
{
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = (void *)(long)ctx->data;
	__u64 size = end - (void *)eth, dend;
	void *lim;
	__be16 *ports, type;
	int ret = PARSE_AT_L4;

	/* Room for either family's headers in one check, IPv6's, the
	 * longer, so an IPv6 frame needs no check of its own. A frame too
	 * short for them checks again for IPv4's, the shorter; too short
	 * for its family's headers, it is the walk's. */
	if ((void *)(eth + 1) + sizeof(struct ipv6hdr) + 4 > end) {
		if ((void *)(eth + 1) + sizeof(struct iphdr) + 4 > end)
			return PARSE_WALK;
		type = *(__be16 *)((void *)eth +
				   offsetof(struct ethhdr, h_proto));
		if (type != bpf_htons(ETH_P_IP))
			return PARSE_WALK;
		goto ipv4;
	}
	/* One 16-bit load: struct ethhdr is packed, so eth->h_proto would
	 * be read a byte at a time; x86 and arm64 load unaligned
	 * packet words, and the verifier allows it where they do. */
	type = *(__be16 *)((void *)eth + offsetof(struct ethhdr, h_proto));
	if (type == bpf_htons(ETH_P_IP)) {
		struct iphdr *iph;
ipv4:
		iph = (void *)(eth + 1);
		/* Version 4, header length 5; room for the ports inside
		 * the datagram, the datagram inside the frame (by its
		 * size: the reads are bounded already). */
		if (*(__u8 *)iph != 0x45 ||
		    (iph->frag_off & bpf_htons(0x3fff)))
			return PARSE_WALK;
		dend = common_end(bpf_ntohs(iph->tot_len), sizeof(*iph) + 4,
				  sizeof(*eth));
		if (dend > size)
			return PARSE_WALK;
		ports = (void *)(iph + 1);
		if (common_hash(s, iph->protocol, STEER_AF_INET, ports,
				&iph->saddr, &iph->daddr, hash))
			return PARSE_HASHED;
		flow_set_proto(&p->flow, iph->protocol, STEER_AF_INET);
		flow_set_addr4(p->flow.src, iph->saddr);
		flow_set_addr4(p->flow.dst, iph->daddr);
		lim = (void *)eth + (dend & DEND_MASK);
	} else if (type == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6h = (void *)(eth + 1);

		if (ip6h->version != 6)
			return PARSE_WALK;
		dend = common_end(bpf_ntohs(ip6h->payload_len), 4,
				  sizeof(*eth) + sizeof(*ip6h));
		if (dend > size)
			return PARSE_WALK;
		ports = (void *)(ip6h + 1);
		if (common_hash(s, ip6h->nexthdr, STEER_AF_INET6, ports,
				(__u32 *)&ip6h->saddr, (__u32 *)&ip6h->daddr,
				hash))
			return PARSE_HASHED;
		flow_set_proto(&p->flow, ip6h->nexthdr, STEER_AF_INET6);
		flow_set_addr6(p->flow.src, &ip6h->saddr);
		flow_set_addr6(p->flow.dst, &ip6h->daddr);
		lim = (void *)eth + (dend & DEND_MASK);
	} else {
		return PARSE_WALK;
	}
	parsed_plain(p);
	if (p->flow.proto == IPPROTO_UDP) {
		if (s->decap_port_bits >> steer_port_bit(ports[1]) & 1) {
			flow_set_ports(&p->flow, ports);
			ret = PARSE_AT_UDP;
			goto tunnel;
		}
	} else if (p->flow.proto != IPPROTO_TCP) {
		/* Read afresh: kept in a register, the protocol would cost
		 * the commonest frame a copy. */
		barrier();
		/* Not an IPv6 extension header: the walk stops there too. */
		if (s->decap && (p->flow.proto == IPPROTO_GRE ||
				 p->flow.proto == IPPROTO_IPIP ||
				 p->flow.proto == IPPROTO_IPV6 ||
				 p->flow.proto == IPPROTO_ESP)) {
			p->flow.sport = 0;	/* none read yet */
			p->flow.dport = 0;
			goto tunnel;
		}
		return PARSE_WALK;
	}
	flow_set_ports(&p->flow, ports);
	return PARSE_DONE;
tunnel:
	barrier();	/* the same for the slot's words, read again by the walk */
	c->pos = ports;
	c->end = end;
	c->lim = lim;
	return ret;
}

#endif /* XDP_STEER_PARSE_FAST_H */
