/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * parse_l3.h - the walk through a frame's own headers: Ethernet and up to
 * two VLAN tags, IPv4 (IHL checked, options skipped), IPv6 with a bounded
 * walk of extension headers, then the ports of TCP, UDP, UDP-Lite and SCTP
 * (ESP's SPI in their place) and where a tunnel may begin.
 */
#ifndef XDP_STEER_PARSE_L3_H
#define XDP_STEER_PARSE_L3_H

#include <linux/bpf.h>
#include <linux/errno.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "xdp_steer.h"
#include "parse_cursor.h"
#include "parse_result.h"

/* The IPv6 fragment header (RFC 8200 4.5); the kernel's is not UAPI. */
struct ipv6_frag {
	__u8 nexthdr;
	__u8 reserved;
	__be16 frag_off;	/* offset << 3 | 2 reserved bits | M */
	__be32 identification;
};
/* Offset and M: zero in an atomic fragment. */
#define IPV6_FRAG_PIECE	0xfff9

#ifndef ETH_P_8021AD
#define ETH_P_8021AD	0x88A8
#endif
#ifndef IPPROTO_MH
#define IPPROTO_MH	135
#endif

/* 802.1Q and 802.1ad tags have the same layout. */
struct vlan_tag {
	__be16 tci;
	__be16 encap_proto;
};

/* Ethertype after the Ethernet header and at most two VLAN tags. A third
 * tag is an error: it cannot be a frame the policy knows how to steer.
 * 'ids' (NULL: not these tags, a tunnel's inner Ethernet) gets the tags'
 * count and VLAN IDs (STEER_IDS_*), the priority bits left out. */
static __always_inline int parse_eth(struct cursor *c, __u16 *proto,
				     __u32 *ids)
{
	struct ethhdr *eth = c->pos;
	struct vlan_tag *vlan;
	__u16 type;
	int i;

	if ((void *)(eth + 1) > c->end)
		return -EINVAL;
	/* One 16-bit load, as in parse_common(): the packed struct's field
	 * is read a byte at a time. */
	type = *(__be16 *)((void *)eth + offsetof(struct ethhdr, h_proto));
	c->pos = eth + 1;

#pragma unroll
	for (i = 0; i < 2; i++) {
		if (type != bpf_htons(ETH_P_8021Q) &&
		    type != bpf_htons(ETH_P_8021AD)) {
			*proto = type;
			return PARSE_DONE;
		}
		vlan = c->pos;
		if ((void *)(vlan + 1) > c->end)
			return -EINVAL;
		type = vlan->encap_proto;
		c->pos = vlan + 1;
		/* The outer VID above the inner one (i is a constant
		 * in each unrolled round). */
		if (ids)
			*ids += 1u << STEER_IDS_TAGS_SHIFT |
				(bpf_ntohs(vlan->tci) & 0x0fff) << (i ? 0 : 12);
	}
	if (type == bpf_htons(ETH_P_8021Q) || type == bpf_htons(ETH_P_8021AD))
		return -E2BIG;
	*proto = type;
	return PARSE_DONE;
}

/* 1 when the datagram of 'len' bytes at 'p' fits in the frame, and when
 * not 'outer' (a constant: the frame's first IP header, nothing around
 * it) in the datagram or PPPoE payload around it. */
static __always_inline int datagram_fits(const struct cursor *c,
					 const void *p, __u32 len, int outer)
{
	return outer ? p + len <= c->end : cursor_has(c, p, len);
}

static __always_inline int parse_ipv4(struct cursor *c, struct parsed *p,
				      int outer)
{
	struct iphdr *iph = c->pos;
	__u32 hlen, tot_len, vihl;

	if ((void *)(iph + 1) > c->end)
		return -EINVAL;
	/* Version 4, header length 5 to 15 words: the byte is 0x45 to 0x4f,
	 * one compare (the bitfields cost a load and mask each). */
	vihl = *(__u8 *)iph;
	if (vihl - 0x45 > 0x4f - 0x45)
		return -EINVAL;
	hlen = (vihl & 0xf) * 4;
	tot_len = ntohs_len(iph->tot_len);
	/* The frame may be padded past tot_len (Ethernet minimum), never
	 * shorter than it: a shorter one was truncated on the way. Inside a
	 * tunnel, the outer datagram (lim) must hold the inner one. */
	if (tot_len < hlen || !datagram_fits(c, iph, tot_len, outer))
		return -EINVAL;

	/* Written only now: an inner header that cannot be read leaves the
	 * outer flow whole (PARSE_PARTIAL). Every word but the ports: an
	 * outer flow's (IPv6 address words, a UDP tunnel's ports) must not
	 * survive into the inner one. */
	flow_set_proto(&p->flow, iph->protocol, STEER_AF_INET);
	flow_set_addr4(p->flow.src, iph->saddr);
	flow_set_addr4(p->flow.dst, iph->daddr);
	if (!outer) {
		p->flow.sport = 0;
		p->flow.dport = 0;
	}
	/* MF set or a non-zero offset: any piece of a fragmented datagram
	 * (the bits themselves: a truth value needs no compare). */
	p->is_frag = iph->frag_off & bpf_htons(0x3fff);
	c->pos = (void *)iph + hlen;
	c->lim = (void *)iph + tot_len;
	return PARSE_DONE;
}

/* Walk at most STEER_IPV6_EXT_MAX extension headers; leave the cursor on
 * the transport header and its protocol in p->flow.proto. */
static __always_inline int parse_ipv6(struct cursor *c, struct parsed *p,
				      int outer)
{
	struct ipv6hdr *ip6h = c->pos;
	struct ipv6_opt_hdr *opt;
	__u32 len;
	__u8 next;
	int i;

	if ((void *)(ip6h + 1) > c->end)
		return -EINVAL;
	if (ip6h->version != 6)
		return -EINVAL;
	/* Payload length 0 is a jumbogram (RFC 2675), which cannot arrive
	 * on Ethernet; anything longer than the frame was truncated. */
	len = ntohs_len(ip6h->payload_len);
	if (len == 0 || !datagram_fits(c, ip6h + 1, len, outer))
		return -EINVAL;
	c->lim = (void *)(ip6h + 1) + len;

	/* As in parse_ipv4(): written once the header is known good, the
	 * ports zeroed behind a tunnel. */
	flow_set_addr6(p->flow.src, &ip6h->saddr);
	flow_set_addr6(p->flow.dst, &ip6h->daddr);
	if (!outer) {
		p->flow.sport = 0;
		p->flow.dport = 0;
	}
	next = ip6h->nexthdr;
	c->pos = ip6h + 1;
	/* No extension header, the usual case: the walk's switch would
	 * test six kinds first. */
	if (next == IPPROTO_TCP || next == IPPROTO_UDP) {
		flow_set_proto(&p->flow, next, STEER_AF_INET6);
		return PARSE_DONE;
	}
	/* The protocol is known once the walk is through: a chain that
	 * breaks leaves the addresses alone (PARSE_PARTIAL). */
	flow_set_proto(&p->flow, 0, STEER_AF_INET6);

#pragma unroll
	for (i = 0; i < STEER_IPV6_EXT_MAX; i++) {
		opt = c->pos;
		switch (next) {
		case IPPROTO_HOPOPTS:
		case IPPROTO_ROUTING:
		case IPPROTO_DSTOPTS:
		case IPPROTO_MH:
			if (!cursor_has(c, opt, sizeof(*opt)))
				return PARSE_PARTIAL;
			next = opt->nexthdr;
			c->pos = (void *)opt + (opt->hdrlen + 1) * 8;
			break;
		case IPPROTO_AH:
			/* AH counts 4-byte units, minus 2 (RFC 4302). */
			if (!cursor_has(c, opt, sizeof(*opt)))
				return PARSE_PARTIAL;
			next = opt->nexthdr;
			c->pos = (void *)opt + (opt->hdrlen + 2) * 4;
			break;
		case IPPROTO_FRAGMENT:
			/* Fixed 8 bytes. Every piece, first or not, hashes on
			 * addresses only, so the pieces meet on one CPU. The
			 * walk ends here: later pieces carry payload where the
			 * first carries more headers (AH, per RFC 8200), so the
			 * protocol this header names is all they share. */
			if (!cursor_has(c, opt, 8))
				return PARSE_PARTIAL;
			/* An atomic fragment (offset 0, no more: a whole
			 * datagram) is no piece of anything (RFC 6946): the
			 * walk goes on, and it hashes as its flow does. */
			if (!(((struct ipv6_frag *)opt)->frag_off &
			      bpf_htons(IPV6_FRAG_PIECE))) {
				next = opt->nexthdr;
				c->pos = (void *)opt + 8;
				break;
			}
			p->is_frag = 1;
			flow_set_proto(&p->flow, opt->nexthdr,
				       STEER_AF_INET6);
			c->pos = (void *)opt + 8;
			return PARSE_DONE;
		default:
			/* The last extension header ran past the datagram. */
			if (c->pos > c->lim)
				return PARSE_PARTIAL;
			flow_set_proto(&p->flow, next, STEER_AF_INET6);
			return PARSE_DONE;
		}
		/* One state for the next header, whatever the kinds of
		 * those before (see cursor_untrace()). */
		if (cursor_untrace(c))
			return PARSE_PARTIAL;
	}
	/* Still an extension header after the bound: a chain built to make
	 * parsers spin. Check the header after the last one we walked. */
	switch (next) {
	case IPPROTO_HOPOPTS:
	case IPPROTO_ROUTING:
	case IPPROTO_DSTOPTS:
	case IPPROTO_MH:
	case IPPROTO_AH:
	case IPPROTO_FRAGMENT:
		return PARSE_PARTIAL;
	}
	if (c->pos > c->lim)
		return PARSE_PARTIAL;
	flow_set_proto(&p->flow, next, STEER_AF_INET6);
	return PARSE_DONE;
}

/* The two 16-bit words at the cursor as the flow's ports; PARSE_PARTIAL
 * (the ports left zero) when the datagram ends before them. */
static __always_inline int read_ports(struct cursor *c, struct parsed *p)
{
	__be16 *ports = c->pos;

	if (!cursor_has(c, ports, 4))
		return PARSE_PARTIAL;
	flow_set_ports(&p->flow, ports);
	return PARSE_DONE;
}

/* Ports of protocols whose header starts with source and destination port
 * (TCP, UDP, UDP-Lite, SCTP) and ESP's SPI in their place, as the kernel's
 * flow dissector does (when the slot looks through ESP); other protocols
 * keep zero ports. 'outer' (a constant): the outer headers, whose protocol
 * may be a tunnel the slot looks through: PARSE_INNER then, *encap naming
 * it (0: a UDP port that may be one of the slot's decap ports). Inner
 * headers are never looked through. */
static __always_inline int parse_l4(struct cursor *c,
				    const struct steer_slot *s,
				    struct steer_stats *st, struct parsed *p,
				    int outer, __u32 *encap)
{
	__u8 proto = p->flow.proto;

	switch (proto) {
	case IPPROTO_UDP:
		if (read_ports(c, p))
			return PARSE_PARTIAL;
		if (outer &&
		    (s->decap_port_bits >> steer_port_bit(p->flow.dport) & 1)) {
			*encap = 0;
			return PARSE_INNER;
		}
		return PARSE_DONE;
	case IPPROTO_TCP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP:
		return read_ports(c, p);
	case IPPROTO_ESP:
		if (!(s->decap & STEER_DECAP(STEER_ENCAP_ESP)))
			return PARSE_DONE;
		if (read_ports(c, p))
			return PARSE_PARTIAL;
		if (outer) {
			st->encap_esp++;
			parsed_tunnel_id(p, bpf_ntohl(*(__be32 *)c->pos));
		}
		return PARSE_DONE;
	case IPPROTO_GRE:
		if (!outer || !(s->decap & STEER_DECAP(STEER_ENCAP_GRE)))
			return PARSE_DONE;
		*encap = STEER_ENCAP_GRE;
		return PARSE_INNER;
	case IPPROTO_IPIP:
	case IPPROTO_IPV6:
		if (!outer || !(s->decap & STEER_DECAP(STEER_ENCAP_IPIP)))
			return PARSE_DONE;
		*encap = STEER_ENCAP_IPIP;
		return PARSE_INNER;
	}
	return PARSE_DONE;
}

/* IPv4 or IPv6 by ethertype 'proto', and what follows (parse_l4). */
static __always_inline int parse_ip(struct cursor *c,
				    const struct steer_slot *s,
				    struct steer_stats *st, struct parsed *p,
				    __u16 proto, int outer, __u32 *encap)
{
	int err;

	if (proto == bpf_htons(ETH_P_IP))
		err = parse_ipv4(c, p, outer);
	else
		err = parse_ipv6(c, p, outer);
	if (err != PARSE_DONE)
		return err;
	/* Later fragments carry no ports (nor a tunnel's header); the first
	 * one's are ignored too, so all pieces meet. */
	if (p->is_frag)
		return PARSE_DONE;
	return parse_l4(c, s, st, p, outer, encap);
}

#endif /* XDP_STEER_PARSE_L3_H */
