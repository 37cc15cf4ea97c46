/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * parse.h - the frame parser of the XDP program: Ethernet, up to two VLAN
 * tags, IPv4 (IHL checked, options skipped), IPv6 with a bounded walk of
 * extension headers, and the ports of TCP, UDP, UDP-Lite and SCTP; and,
 * one level deep, the encapsulations the slot's 'decap' names (PPPoE, MPLS,
 * GRE, IP-in-IP, VXLAN, Geneve, GTP-U; ESP's SPI as its ports), whose inner
 * flow then is the frame's flow.
 *
 * One cursor moves forward through the frame; every read is preceded by the
 * bounds check that makes it safe, next to it, so the verifier and a reader
 * see the same thing. Functions return 0 or a negative errno; the caller
 * turns that into a verdict.
 *
 * A plain frame pays for the encapsulations only where its protocol could
 * be one: a UDP frame one test of its port's bit (steer_port_bit), TCP one
 * compare; other protocols and ethertypes are looked at only in the
 * branches where a plain frame's walk ends. The commonest frame of all
 * (untagged IPv4 or IPv6 TCP/UDP, no options, extension headers or
 * fragments) is read first by parse_common(), without the cursor, the walk
 * taking every other. What each of these shapes saves is in bpf/README.md,
 * "Code-shape decisions".
 */
#ifndef XDP_STEER_PARSE_H
#define XDP_STEER_PARSE_H

#include <linux/bpf.h>
#include <linux/errno.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "xdp_steer.h"
#include "omit.h"

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

/* Where the parser is in the frame. 'end' is the frame's end, which every
 * read is checked against for the verifier; 'lim' is the end of the IP
 * datagram once its header was read (the frame's end before), which reads
 * past the IP header are checked against for meaning: Ethernet pads short
 * frames, and the padding is not ports or extension headers. */
struct cursor {
	void *pos;
	void *end;
	void *lim;		/* before an IP header: data + CURSOR_OFF_MAX */
	void *data;		/* the frame's start */
};

/* 1 when 'len' bytes at 'p' are inside the frame and the datagram. */
static __always_inline int cursor_has(const struct cursor *c, const void *p,
				      __u32 len)
{
	return p + len <= c->end && p + len <= c->lim;
}

/* Where no IP header has said where the datagram ends, lim is this far
 * into the frame: past any frame's end (a frame is one page). */
#define CURSOR_OFF_MAX	0xffff
/* An untraced cursor is below 16 KiB: the verifier gives a packet pointer
 * no room to read once its offset may pass 64 KiB, and the headers read
 * after it add up to a few KiB. */
#define CURSOR_POS_MAX	0x3fff

/*
 * Points the cursor at the same byte again, by an offset from the frame's
 * start the verifier cannot trace: to it a pointer minus a pointer is any
 * number (bounded again here), and barrier_var() keeps the compiler from
 * cancelling the subtraction and the addition out.
 *
 * Why: the verifier checks a program path by path and merges paths only
 * where their states agree. Each IPv6 extension header, VLAN tag, IPv4
 * option length and tunnel header leaves the cursor at an offset of its
 * own making, so the paths through them multiply: a thousand-odd after
 * the outer headers, and checking tunnels and inner headers after each of
 * them passed the verifier's million instructions. Where the cursor is
 * made untraceable, every path's cursor looks the same, the paths merge
 * and what follows is checked once: after each IPv6 extension header, at
 * a tunnel's header and at its inner headers. Inline, not a global
 * function (which the verifier would also check once on its own): a call
 * a frame costs more than the few instructions it takes.
 */
static __always_inline int cursor_untrace(struct cursor *c)
{
	__u64 off = c->pos - c->data;

	barrier_var(off);
	if (off > CURSOR_POS_MAX)
		return -E2BIG;
	c->pos = c->data + off;
	return 0;
}

/* What the parser found. */
struct parsed {
	struct steer_flow flow;
	int is_frag;		/* non-zero: IPv4 MF/offset or an IPv6
				 * fragment header */
	/* For the id keys (steer_key_id()): STEER_IDS_*, zeroed with
	 * is_frag in one store (parse_common()); the tunnel's id, read only
	 * under STEER_IDS_TUNNEL. */
	__u32 ids;
	__u32 tunnel_id;
	__u32 pad;
};

/* is_frag and ids zeroed in one 64-bit store: the commonest frame's
 * parse writes no more than it did before the id keys. */
static __always_inline void parsed_plain(struct parsed *p)
{
	__u64 zero = 0;

	__builtin_memcpy(&p->is_frag, &zero, sizeof(zero));
}

/* The frame's tunnel id (VNI, TEID, SPI), once its header is known good. */
static __always_inline void parsed_tunnel_id(struct parsed *p, __u32 id)
{
	p->tunnel_id = id;
	p->ids |= STEER_IDS_TUNNEL;
}

/* The flow's protocol and family in one store, and its two ports in one:
 * the hash reads each pair as one word (steer_flow_hash()), and one store
 * is an instruction fewer. (A CPU cannot forward two stores to one load;
 * on the development VM a variant that made the hash's load wait on two
 * stores timed no slower: tests/bench/README.md, "What the per-frame
 * numbers decided".) */
static __always_inline void flow_set_proto(struct steer_flow *f, __u8 proto,
					   __u8 family)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	__u32 pf = proto | (__u32)family << 8;
#else
	__u32 pf = (__u32)proto << 24 | (__u32)family << 16;
#endif

	__builtin_memcpy(&f->proto, &pf, sizeof(pf));
}

/* The ports as they lie in the frame, read in one load: x86 and arm64
 * load unaligned packet words, and the verifier allows it where they do. */
static __always_inline void flow_set_ports(struct steer_flow *f,
					   const void *ports)
{
	__u32 w = *(const __u32 *)ports;

	__builtin_memcpy(&f->sport, &w, sizeof(w));
}

/* An IPv4 address into the flow, the words after it zeroed: two 64-bit
 * stores. */
static __always_inline void flow_set_addr4(__u32 *to, __be32 a)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	__u64 lo = a;
#else
	__u64 lo = (__u64)a << 32;
#endif
	__u64 hi = 0;

	__builtin_memcpy(to, &lo, sizeof(lo));
	__builtin_memcpy(to + 2, &hi, sizeof(hi));
}

/* An IPv6 address into the flow in two 64-bit loads: the header's words
 * are 4-byte aligned to clang, which otherwise loads them in four and
 * joins them in pairs. Loads as unaligned as flow_set_ports()'. */
static __always_inline void flow_set_addr6(__u32 *to, const void *from)
{
	const __u64 *w = from;
	__u64 lo = w[0], hi = w[1];

	__builtin_memcpy(to, &lo, sizeof(lo));
	__builtin_memcpy(to + 2, &hi, sizeof(hi));
}

/* Returned by a function that left the cursor on a tunnel's inner IPv4 or
 * IPv6 header (its ethertype in *inner); never by parse_frame. */
#define PARSE_INNER	1
/* An IP header was read and a header after it was not: an extension
 * header chain past its datagram or the bound, a transport header cut
 * short, a tunnel's header or inner headers malformed or cut short.
 * p->flow then holds what was read, and the frame is steered by it as by
 * any flow: the innermost IP header read (its addresses; its protocol once
 * the extension headers were walked; its ports once whole), or the outer
 * flow as read where the tunnel's inner IP header could not be. So the CPU
 * of every frame with a readable IP header is a function of the policy
 * and the frame's bytes: passed here, it would follow whichever CPU
 * received it (a NIC queue's IRQ moves, veth follows its sender), and a
 * flow that only looks like a tunnel (UDP to 4789 that is not VXLAN) would
 * land on two CPUs. Counted in steer_stats.parsed_partial. */
#define PARSE_PARTIAL	2

/* A 16-bit network-order length, in host order, for pointer arithmetic.
 * The verifiers of 6.1 and 6.12 (tests/vm) know nothing of a byte swap's
 * result and refuse "pkt + len" ("math between pkt pointer and register
 * with unbounded min value"). The mask gives them the bound; barrier_var()
 * keeps the compiler from dropping it as redundant. */
static __always_inline __u32 ntohs_len(__be16 v)
{
	__u32 len = bpf_ntohs(v);

	barrier_var(len);
	return len & 0xffff;
}

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
			return 0;
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
	return 0;
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
	return 0;
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
		return 0;
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
			return 0;
		default:
			/* The last extension header ran past the datagram. */
			if (c->pos > c->lim)
				return PARSE_PARTIAL;
			flow_set_proto(&p->flow, next, STEER_AF_INET6);
			return 0;
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
	return 0;
}

/* ---- encapsulations ------------------------------------------------------ */

#define PPP_IP		0x0021
#define PPP_IPV6	0x0057

/* PPPoE session header (RFC 2516) and the PPP protocol after it. */
struct pppoe_ses {
	__u8 ver_type;		/* 0x11 */
	__u8 code;		/* 0 in a session */
	__be16 session;
	__be16 length;		/* of the PPP frame: protocol and payload */
	__be16 protocol;	/* PPP protocol (RFC 1661) */
};

/* GRE (RFC 2784) with RFC 2890's key and sequence number. */
struct gre_base {
	__be16 flags;		/* C, reserved0 (K, S), version */
	__be16 protocol;	/* ethertype of the payload */
};
/* Reserved0 but K and S, and the version: set in RFC 1701's routing
 * (R, s, recursion), PPTP's version 1 and other GRE no RFC 2784 receiver
 * accepts. */
#define GRE_REFUSED	0x4fff

struct udp_base {
	__be16 source;
	__be16 dest;
	__be16 len;
	__be16 check;
};

/* VXLAN (RFC 7348). */
struct vxlan_base {
	__be32 flags;		/* I: the VNI is valid */
	__be32 vni;
};
#define VXLAN_I		0x08000000

/* Geneve (RFC 8926). */
struct geneve_base {
	__u8 ver_optlen;	/* version (2 bits, 0), options in 4 bytes */
	__u8 flags;
	__be16 protocol;	/* ethertype of the payload */
	__u8 vni[3];
	__u8 reserved;
};

/* GTP-U (3GPP TS 29.281). */
struct gtpu_base {
	__u8 flags;		/* version 1, PT 1, spare, E, S, PN */
	__u8 type;		/* 255: G-PDU, a user's packet */
	__be16 length;		/* after these 8 bytes */
	__be32 teid;
};
#define GTPU_V1		0x30	/* version 1, protocol type GTP */
#define GTPU_E		0x04
#define GTPU_OPT	0x07	/* E, S or PN: 4 more bytes follow */
#define GTPU_GPDU	255

/* The payload of a tunnel whose header names it by ethertype: IPv4 or IPv6
 * (PARSE_INNER, the cursor on it); Ethernet (0x6558: its header and tags
 * skipped, then as before); anything else is not looked into (0: the frame
 * keeps its outer flow). */
static __always_inline int tunnel_payload(struct cursor *c, __be16 type,
					  __u16 *inner)
{
	__u16 t = type;

	if (t == bpf_htons(ETH_P_TEB)) {
		if (parse_eth(c, &t, NULL) || c->pos > c->lim)
			return -EINVAL;
	}
	if (t != bpf_htons(ETH_P_IP) && t != bpf_htons(ETH_P_IPV6))
		return 0;
	*inner = t;
	return PARSE_INNER;
}

/* A payload that is IP or not by its first nibble (MPLS, GTP-U carry no
 * ethertype): PARSE_INNER for IPv4 or IPv6, else 'other'. */
static __always_inline int payload_by_version(struct cursor *c, __u16 *inner,
					      int other)
{
	__u8 *v = c->pos;

	if (!cursor_has(c, v, 1))
		return -EINVAL;
	if (*v >> 4 == 4)
		*inner = bpf_htons(ETH_P_IP);
	else if (*v >> 4 == 6)
		*inner = bpf_htons(ETH_P_IPV6);
	else
		return other;
	return PARSE_INNER;
}

/* PPPoE session: IPv4 or IPv6 inside, -EPROTONOSUPPORT for another PPP
 * protocol (LCP, IPCP...: non-IP, as the frame always was). */
static __always_inline int parse_pppoe(struct cursor *c, __u16 *inner)
{
	struct pppoe_ses *h = c->pos;
	__u32 len, ppp;

	if (!cursor_has(c, h, sizeof(*h)))
		return -EINVAL;
	if (h->ver_type != 0x11 || h->code)
		return -EINVAL;
	/* The length covers the PPP protocol and payload, not the padding
	 * of a short frame. */
	len = ntohs_len(h->length);
	if (len < 2 || !cursor_has(c, h, 6 + len))
		return -EINVAL;
	c->lim = (void *)h + 6 + len;
	c->pos = h + 1;
	ppp = bpf_ntohs(h->protocol);
	if (ppp == PPP_IP) {
		*inner = bpf_htons(ETH_P_IP);
		return PARSE_INNER;
	}
	if (ppp == PPP_IPV6) {
		*inner = bpf_htons(ETH_P_IPV6);
		return PARSE_INNER;
	}
	/* RFC 1661: every protocol number is odd, its first octet even. */
	if ((ppp & 0x0101) != 0x0001)
		return -EINVAL;
	return -EPROTONOSUPPORT;
}

/* MPLS unicast: labels to the bottom of the stack, at most
 * STEER_MPLS_LABELS_MAX; IPv4 or IPv6 after it by its first nibble,
 * -EPROTONOSUPPORT for anything else (a pseudowire, OAM). An entropy label
 * is a label like the others: the inner flow hashes. */
static __always_inline int parse_mpls(struct cursor *c, __u16 *inner)
{
	__be32 *label;
	int i;

#pragma unroll
	for (i = 0; i < STEER_MPLS_LABELS_MAX; i++) {
		label = c->pos;
		if (!cursor_has(c, label, 4))
			return -EINVAL;
		c->pos = label + 1;
		if (*label & bpf_htonl(0x100))		/* bottom of stack */
			return payload_by_version(c, inner, -EPROTONOSUPPORT);
	}
	return -E2BIG;
}

static __always_inline int parse_gre(struct cursor *c, __u16 *inner)
{
	struct gre_base *g = c->pos;
	__u16 flags;

	if (!cursor_has(c, g, sizeof(*g)))
		return -EINVAL;
	/* Tested in network order: the verifiers of 6.1 and 6.12 know
	 * nothing of a byte swap's result (see ntohs_len). */
	flags = g->flags;
	if (flags & bpf_htons(GRE_REFUSED))
		return -EINVAL;
	/* Checksum and reserved1, key, sequence number: 4 bytes each. */
	c->pos = (void *)(g + 1) + 4 * ((flags & bpf_htons(STEER_GRE_C) ? 1 : 0) +
					(flags & bpf_htons(STEER_GRE_K) ? 1 : 0) +
					(flags & bpf_htons(STEER_GRE_S) ? 1 : 0));
	if (c->pos > c->lim)
		return -EINVAL;
	return tunnel_payload(c, g->protocol, inner);
}

static __always_inline int parse_vxlan(struct cursor *c, struct parsed *p,
				       __u16 *inner)
{
	struct vxlan_base *v = c->pos;

	if (!cursor_has(c, v, sizeof(*v)))
		return -EINVAL;
	if (!(v->flags & bpf_htonl(VXLAN_I)))
		return -EINVAL;
	parsed_tunnel_id(p, bpf_ntohl(v->vni) >> 8);
	c->pos = v + 1;
	return tunnel_payload(c, bpf_htons(ETH_P_TEB), inner);
}

static __always_inline int parse_geneve(struct cursor *c, struct parsed *p,
					__u16 *inner)
{
	struct geneve_base *g = c->pos;

	if (!cursor_has(c, g, sizeof(*g)))
		return -EINVAL;
	if (g->ver_optlen >> 6)
		return -EINVAL;
	parsed_tunnel_id(p, (__u32)g->vni[0] << 16 | (__u32)g->vni[1] << 8 |
			    g->vni[2]);
	c->pos = (void *)(g + 1) + (g->ver_optlen & 0x3f) * 4;
	if (c->pos > c->lim)
		return -EINVAL;
	return tunnel_payload(c, g->protocol, inner);
}

/* GTP-U: a G-PDU's optional fields and at most STEER_GTPU_EXT_MAX extension
 * headers skipped, then IPv4 or IPv6 by the first nibble. Other messages
 * (echo, end marker, error indication) and a payload that is not IP (an
 * Ethernet PDU session) keep the outer flow. */
static __always_inline int parse_gtpu(struct cursor *c, struct parsed *p,
				      __u16 *inner)
{
	struct gtpu_base *h = c->pos;
	__u8 *ext, *last, next = 0;
	__u32 len;
	int i;

	if (!cursor_has(c, h, sizeof(*h)))
		return -EINVAL;
	if ((h->flags & 0xf0) != GTPU_V1)
		return -EINVAL;
	parsed_tunnel_id(p, bpf_ntohl(h->teid));
	len = ntohs_len(h->length);
	if (!cursor_has(c, h + 1, len))
		return -EINVAL;
	c->lim = (void *)(h + 1) + len;
	c->pos = h + 1;
	if (h->type != GTPU_GPDU)
		return 0;
	if (h->flags & GTPU_OPT) {
		/* Sequence number, N-PDU number, next extension type: the
		 * last means something only with E. */
		ext = c->pos;
		if (!cursor_has(c, ext, 4))
			return -EINVAL;
		if (h->flags & GTPU_E)
			next = ext[3];
		c->pos = ext + 4;
	}
	/* Extension headers: length in 4-byte units, itself included; the
	 * next type in the last byte. */
#pragma unroll
	for (i = 0; i < STEER_GTPU_EXT_MAX; i++) {
		if (next) {
			ext = c->pos;
			if (!cursor_has(c, ext, 1) || !ext[0])
				return -EINVAL;
			len = ext[0] * 4;
			last = (void *)ext + len - 1;
			if (!cursor_has(c, last, 1))
				return -EINVAL;
			next = *last;
			c->pos = last + 1;
		}
	}
	if (next)
		return -E2BIG;
	return payload_by_version(c, inner, 0);
}

/* A UDP frame whose destination port is one of the slot's decap ports:
 * the frame's encapsulation, counted. 0 (the outer flow) for a port that
 * only shares its bit with one. The UDP length is not checked: the IP
 * datagram bounds what is read. */
static __always_inline int parse_udp_tunnel(struct cursor *c,
					    const struct steer_slot *s,
					    struct steer_stats *st,
					    struct parsed *p, __u16 *inner)
{
	struct udp_base *u = c->pos;
	__u32 i, encap = 0;

#pragma unroll
	for (i = 0; i < STEER_DECAP_PORTS; i++) {
		/* Unused entries are 0 and last; a frame to port 0 that
		 * meets one finds no encapsulation. */
		if (s->decap_port[i] == p->flow.dport) {
			encap = s->decap_port_encap[i];
			break;
		}
	}
	if (!encap)
		return 0;
	if (!cursor_has(c, u, sizeof(*u)))
		return -EINVAL;
	c->pos = u + 1;
	if (encap == STEER_ENCAP_VXLAN) {
		st->encap_vxlan++;
		return parse_vxlan(c, p, inner);
	}
	if (encap == STEER_ENCAP_GENEVE) {
		st->encap_geneve++;
		return parse_geneve(c, p, inner);
	}
	if (encap == STEER_ENCAP_GTPU) {
		st->encap_gtpu++;
		return parse_gtpu(c, p, inner);
	}
	return 0;
}

/* The two 16-bit words at the cursor as the flow's ports; PARSE_PARTIAL
 * (the ports left zero) when the datagram ends before them. */
static __always_inline int read_ports(struct cursor *c, struct parsed *p)
{
	__be16 *ports = c->pos;

	if (!cursor_has(c, ports, 4))
		return PARSE_PARTIAL;
	flow_set_ports(&p->flow, ports);
	return 0;
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
		return 0;
	case IPPROTO_TCP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP:
		return read_ports(c, p);
	case IPPROTO_ESP:
		if (!(s->decap & STEER_DECAP(STEER_ENCAP_ESP)))
			return 0;
		if (read_ports(c, p))
			return PARSE_PARTIAL;
		if (outer) {
			st->encap_esp++;
			parsed_tunnel_id(p, bpf_ntohl(*(__be32 *)c->pos));
		}
		return 0;
	case IPPROTO_GRE:
		if (!outer || !(s->decap & STEER_DECAP(STEER_ENCAP_GRE)))
			return 0;
		*encap = STEER_ENCAP_GRE;
		return PARSE_INNER;
	case IPPROTO_IPIP:
	case IPPROTO_IPV6:
		if (!outer || !(s->decap & STEER_DECAP(STEER_ENCAP_IPIP)))
			return 0;
		*encap = STEER_ENCAP_IPIP;
		return PARSE_INNER;
	}
	return 0;
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
	if (err)
		return err;
	/* Later fragments carry no ports (nor a tunnel's header); the first
	 * one's are ignored too, so all pieces meet. */
	if (p->is_frag)
		return 0;
	return parse_l4(c, s, st, p, outer, encap);
}

/* The tunnel's header: 'encap' (0: a UDP frame, whose port tells), counted
 * in its steer_stats counter; PARSE_INNER with the cursor on the inner IP
 * header, 0 to keep the outer flow, or an error. */
static __always_inline int parse_tunnel(struct cursor *c,
					const struct steer_slot *s,
					struct steer_stats *st,
					struct parsed *p, __u32 encap,
					__u16 *inner)
{
	switch (encap) {
	case STEER_ENCAP_PPPOE:
		st->encap_pppoe++;
		return parse_pppoe(c, inner);
	case STEER_ENCAP_MPLS:
		st->encap_mpls++;
		return parse_mpls(c, inner);
	case STEER_ENCAP_GRE:
		st->encap_gre++;
		return parse_gre(c, inner);
	case STEER_ENCAP_IPIP:
		st->encap_ipip++;
		*inner = p->flow.proto == IPPROTO_IPIP ? bpf_htons(ETH_P_IP) :
							 bpf_htons(ETH_P_IPV6);
		return PARSE_INNER;
	}
	return parse_udp_tunnel(c, s, st, p, inner);
}

/* parse_common() results. */
#define COMMON_WALK	0	/* any other frame: the walk from the start */
#define COMMON_DONE	1	/* p filled */
#define COMMON_L4	2	/* the outer IP header read as the walk would
				 * have, the cursor on what follows it */
#define COMMON_UDP	3	/* and the UDP header too: to a port whose
				 * bit says it may be a tunnel's */
#define COMMON_HASHED	4	/* hashed where its words lie (common_hash()),
				 * p not written */

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
 * to a UDP port the slot looks through. Fills p->flow as the walk below
 * would (the same checks, in fewer instructions): COMMON_DONE. A frame of
 * the same outer shape whose protocol may be a tunnel (UDP to a port the
 * slot looks through, GRE, IP-in-IP, ESP) leaves p and the cursor as
 * parse_ip() would before parse_l4(): COMMON_L4; for UDP, as parse_l4()
 * would before the tunnel's header, its ports read: COMMON_UDP. So a
 * tunnel's outer headers are read once. COMMON_WALK for any other frame,
 * left to the walk, which decides it on its own (a short datagram,
 * ports past its end: its parse error), on a p it zeroes first. Every
 * other result has written every field of p, the unused address words
 * and ports too, so the commonest frame's p is not zeroed and then
 * written. Under
 * a slot that hashes it where it lies (common_hash()), the commonest
 * frame is hashed instead: COMMON_HASHED, *hash set, p not written.
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
	int ret = COMMON_L4;

	/* Room for either family's headers in one check, IPv6's, the
	 * longer, so an IPv6 frame needs no check of its own. A frame too
	 * short for them checks again for IPv4's, the shorter; too short
	 * for its family's headers, it is the walk's. */
	if ((void *)(eth + 1) + sizeof(struct ipv6hdr) + 4 > end) {
		if ((void *)(eth + 1) + sizeof(struct iphdr) + 4 > end)
			return COMMON_WALK;
		type = *(__be16 *)((void *)eth +
				   offsetof(struct ethhdr, h_proto));
		if (type != bpf_htons(ETH_P_IP))
			return COMMON_WALK;
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
			return COMMON_WALK;
		dend = common_end(bpf_ntohs(iph->tot_len), sizeof(*iph) + 4,
				  sizeof(*eth));
		if (dend > size)
			return COMMON_WALK;
		ports = (void *)(iph + 1);
		if (common_hash(s, iph->protocol, STEER_AF_INET, ports,
				&iph->saddr, &iph->daddr, hash))
			return COMMON_HASHED;
		flow_set_proto(&p->flow, iph->protocol, STEER_AF_INET);
		flow_set_addr4(p->flow.src, iph->saddr);
		flow_set_addr4(p->flow.dst, iph->daddr);
		lim = (void *)eth + (dend & DEND_MASK);
	} else if (type == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6h = (void *)(eth + 1);

		if (ip6h->version != 6)
			return COMMON_WALK;
		dend = common_end(bpf_ntohs(ip6h->payload_len), 4,
				  sizeof(*eth) + sizeof(*ip6h));
		if (dend > size)
			return COMMON_WALK;
		ports = (void *)(ip6h + 1);
		if (common_hash(s, ip6h->nexthdr, STEER_AF_INET6, ports,
				(__u32 *)&ip6h->saddr, (__u32 *)&ip6h->daddr,
				hash))
			return COMMON_HASHED;
		flow_set_proto(&p->flow, ip6h->nexthdr, STEER_AF_INET6);
		flow_set_addr6(p->flow.src, &ip6h->saddr);
		flow_set_addr6(p->flow.dst, &ip6h->daddr);
		lim = (void *)eth + (dend & DEND_MASK);
	} else {
		return COMMON_WALK;
	}
	parsed_plain(p);
	if (p->flow.proto == IPPROTO_UDP) {
		if (s->decap_port_bits >> steer_port_bit(ports[1]) & 1) {
			flow_set_ports(&p->flow, ports);
			ret = COMMON_UDP;
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
		return COMMON_WALK;
	}
	flow_set_ports(&p->flow, ports);
	return COMMON_DONE;
tunnel:
	barrier();	/* the same for the slot's words, read again by the walk */
	c->pos = ports;
	c->end = end;
	c->lim = lim;
	return ret;
}

/* PARSE_PARTIAL where an encapsulation the slot looks through broke:
 * counted malformed too (parse_frame()). */
#define PARSE_ENCAP_PARTIAL	3
/* The commonest frame hashed where it lies (COMMON_HASHED), p not
 * written. */
#define PARSE_HASHED		4

/* An encapsulation the slot looks through that is malformed or cut short
 * before its inner IP header was read: behind an outer IP header the frame
 * keeps the outer flow as read (PARSE_ENCAP_PARTIAL); behind PPPoE or MPLS
 * no IP header was read (-EBADMSG). Both counted malformed. */
static __always_inline int encap_broken(const struct parsed *p)
{
	/* Only an IP header read gives the flow a family (PPPoE's and
	 * MPLS's frames start the walk zeroed): read from the stack, as
	 * keeping the encapsulation's id for this would move registers in
	 * the commonest frame. */
	return p->flow.family ? PARSE_ENCAP_PARTIAL : -EBADMSG;
}

/*
 * Returns 0 with p filled, or PARSE_HASHED with *hash set instead (the
 * commonest frame under a slot that hashes it where it lies:
 * parse_common()); PARSE_PARTIAL with p->flow holding what was read of
 * a frame with a readable IP header whose later headers are not
 * (see PARSE_PARTIAL; encap_malformed counted where an encapsulation the
 * slot looks through broke); -EPROTONOSUPPORT for a frame that is not IP;
 * or another negative errno for a frame without a readable IP header
 * (-EBADMSG: behind PPPoE or MPLS, counted malformed). Behind an
 * encapsulation the slot looks through (counted in its steer_stats
 * counter), p->flow is the inner flow; a payload the parser does not look
 * into (ARP in VXLAN, a GTP-U echo) leaves the outer flow, and one that is
 * not IP behind PPPoE or MPLS (LCP, a pseudowire) is -EPROTONOSUPPORT. One
 * level: the inner headers' own tunnels are not looked into.
 */
static __always_inline int parse_headers(struct xdp_md *ctx,
					 const struct steer_slot *s,
					 struct steer_stats *st,
					 struct parsed *p, __u32 *hash)
{
	void *data = (void *)(long)ctx->data;
	struct cursor c = {
		.pos = data,
		.end = (void *)(long)ctx->data_end,
		.lim = data + CURSOR_OFF_MAX,
		.data = data,
	};
	__u32 encap = 0;
	__u16 proto, inner = 0;
	int err;

	err = parse_common(ctx, s, p, &c, hash);
	if (err == COMMON_HASHED)
		return PARSE_HASHED;
	if (err == COMMON_DONE)
		return 0;
	if (err == COMMON_WALK)
		__builtin_memset(p, 0, sizeof(*p));	/* see parse_common() */
	if (err == COMMON_UDP) {
		/* parse_l4() would say the same: encap 0, the port tells. */
	} else if (err == COMMON_L4) {
		err = parse_l4(&c, s, st, p, 1, &encap);
		if (err != PARSE_INNER)
			return err;
	} else if ((err = parse_eth(&c, &proto, &p->ids))) {
		return err;
	} else if (proto == bpf_htons(ETH_P_IP) ||
		   proto == bpf_htons(ETH_P_IPV6)) {
		err = parse_ip(&c, s, st, p, proto, 1, &encap);
		if (err != PARSE_INNER)
			return err;
	} else if (proto == bpf_htons(ETH_P_PPP_SES) &&
		   (s->decap & STEER_DECAP(STEER_ENCAP_PPPOE))) {
		encap = STEER_ENCAP_PPPOE;
	} else if (proto == bpf_htons(ETH_P_MPLS_UC) &&
		   (s->decap & STEER_DECAP(STEER_ENCAP_MPLS))) {
		encap = STEER_ENCAP_MPLS;
	} else {
		return -EPROTONOSUPPORT;
	}

	/* One state for the tunnel and one for the inner headers, whatever
	 * the paths there (see cursor_untrace()). */
	if (cursor_untrace(&c))
		return encap_broken(p);
	err = parse_tunnel(&c, s, st, p, encap, &inner);
	if (err != PARSE_INNER)
		return err && err != -EPROTONOSUPPORT ? encap_broken(p) : err;
	if (cursor_untrace(&c))
		return encap_broken(p);
	/* The inner flow replaces the outer one once its IP header is
	 * known good, word for word (parse_ipv4(), parse_ipv6()). */
	return parse_ip(&c, s, st, p, inner, 0, &encap) ? encap_broken(p) : 0;
}

/* parse_headers(), a frame it left PARSE_PARTIAL counted and returned as
 * 0: steered by what was read, as any flow. PARSE_HASHED: the frame's
 * hash in *hash, p not written. -EBADMSG: a malformed encapsulation
 * without an IP header (the caller counts it). */
static __always_inline int parse_frame(struct xdp_md *ctx,
				       const struct steer_slot *s,
				       struct steer_stats *st,
				       struct parsed *p, __u32 *hash)
{
	int err = parse_headers(ctx, s, st, p, hash);

	if (err == PARSE_HASHED)
		return err;
	if (err > 0) {
		if (err == PARSE_ENCAP_PARTIAL)
			st->encap_malformed++;
		st->parsed_partial++;
		return 0;
	}
	return err;
}

#endif /* XDP_STEER_PARSE_H */
