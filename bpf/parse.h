/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * parse.h - the frame parser of the XDP program: Ethernet, up to two VLAN
 * tags, IPv4 (IHL checked, options skipped), IPv6 with a bounded walk of
 * extension headers, and the ports of TCP, UDP, UDP-Lite and SCTP.
 *
 * One cursor moves forward through the frame; every read is preceded by the
 * bounds check that makes it safe, next to it, so the verifier and a reader
 * see the same thing. Functions return 0 or a negative errno; the caller
 * turns that into a verdict.
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
	void *lim;
};

/* 1 when 'len' bytes at 'p' are inside the frame and the datagram. */
static __always_inline int cursor_has(const struct cursor *c, const void *p,
				      __u32 len)
{
	return p + len <= c->end && p + len <= c->lim;
}

/* What the parser found. */
struct parsed {
	struct steer_flow flow;
	int is_frag;		/* IPv4 MF/offset or an IPv6 fragment header */
};

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
 * tag is an error: it cannot be a frame the policy knows how to steer. */
static __always_inline int parse_eth(struct cursor *c, __u16 *proto)
{
	struct ethhdr *eth = c->pos;
	struct vlan_tag *vlan;
	__u16 type;
	int i;

	if ((void *)(eth + 1) > c->end)
		return -EINVAL;
	type = eth->h_proto;
	c->pos = eth + 1;

#pragma unroll
	for (i = 0; i < 2; i++) {
		if (type != bpf_htons(ETH_P_8021Q) &&
		    type != bpf_htons(ETH_P_8021AD))
			break;
		vlan = c->pos;
		if ((void *)(vlan + 1) > c->end)
			return -EINVAL;
		type = vlan->encap_proto;
		c->pos = vlan + 1;
	}
	if (type == bpf_htons(ETH_P_8021Q) || type == bpf_htons(ETH_P_8021AD))
		return -E2BIG;
	*proto = type;
	return 0;
}

static __always_inline int parse_ipv4(struct cursor *c, struct parsed *p)
{
	struct iphdr *iph = c->pos;
	__u32 hlen, tot_len;

	if ((void *)(iph + 1) > c->end)
		return -EINVAL;
	if (iph->version != 4 || iph->ihl < 5)
		return -EINVAL;
	hlen = iph->ihl * 4;
	tot_len = ntohs_len(iph->tot_len);
	/* The frame may be padded past tot_len (Ethernet minimum), never
	 * shorter than it: a shorter one was truncated on the way. */
	if (tot_len < hlen || (void *)iph + tot_len > c->end)
		return -EINVAL;

	p->flow.family = STEER_AF_INET;
	p->flow.proto = iph->protocol;
	p->flow.src[0] = iph->saddr;
	p->flow.dst[0] = iph->daddr;
	/* MF set or a non-zero offset: any piece of a fragmented datagram. */
	p->is_frag = (iph->frag_off & bpf_htons(0x3fff)) != 0;
	c->pos = (void *)iph + hlen;
	c->lim = (void *)iph + tot_len;
	return 0;
}

/* Walk at most STEER_IPV6_EXT_MAX extension headers; leave the cursor on
 * the transport header and its protocol in p->flow.proto. */
static __always_inline int parse_ipv6(struct cursor *c, struct parsed *p)
{
	struct ipv6hdr *ip6h = c->pos;
	struct ipv6_opt_hdr *opt;
	__u8 next;
	int i;

	if ((void *)(ip6h + 1) > c->end)
		return -EINVAL;
	if (ip6h->version != 6)
		return -EINVAL;
	/* Payload length 0 is a jumbogram (RFC 2675), which cannot arrive
	 * on Ethernet; anything longer than the frame was truncated. */
	if (ip6h->payload_len == 0 ||
	    (void *)(ip6h + 1) + ntohs_len(ip6h->payload_len) > c->end)
		return -EINVAL;
	c->lim = (void *)(ip6h + 1) + ntohs_len(ip6h->payload_len);

	p->flow.family = STEER_AF_INET6;
	__builtin_memcpy(p->flow.src, &ip6h->saddr, 16);
	__builtin_memcpy(p->flow.dst, &ip6h->daddr, 16);
	next = ip6h->nexthdr;
	c->pos = ip6h + 1;

#pragma unroll
	for (i = 0; i < STEER_IPV6_EXT_MAX; i++) {
		opt = c->pos;
		switch (next) {
		case IPPROTO_HOPOPTS:
		case IPPROTO_ROUTING:
		case IPPROTO_DSTOPTS:
		case IPPROTO_MH:
			if (!cursor_has(c, opt, sizeof(*opt)))
				return -EINVAL;
			next = opt->nexthdr;
			c->pos = (void *)opt + (opt->hdrlen + 1) * 8;
			break;
		case IPPROTO_AH:
			/* AH counts 4-byte units, minus 2 (RFC 4302). */
			if (!cursor_has(c, opt, sizeof(*opt)))
				return -EINVAL;
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
				return -EINVAL;
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
			p->flow.proto = opt->nexthdr;
			c->pos = (void *)opt + 8;
			return 0;
		default:
			/* The last extension header ran past the datagram. */
			if (c->pos > c->lim)
				return -EINVAL;
			p->flow.proto = next;
			return 0;
		}
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
		return -E2BIG;
	}
	if (c->pos > c->lim)
		return -EINVAL;
	p->flow.proto = next;
	return 0;
}

/* Ports of protocols whose header starts with source and destination port
 * (TCP, UDP, UDP-Lite, SCTP); other protocols keep zero ports. */
static __always_inline int parse_ports(struct cursor *c, struct parsed *p)
{
	__be16 *ports = c->pos;

	switch (p->flow.proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP:
		break;
	default:
		return 0;
	}
	if (!cursor_has(c, ports, 4))
		return -EINVAL;
	p->flow.sport = ports[0];
	p->flow.dport = ports[1];
	return 0;
}

/* Returns 0 with p filled, -EPROTONOSUPPORT for a frame that is not IP, or
 * another negative errno for a frame that cannot be parsed. */
static __always_inline int parse_frame(struct xdp_md *ctx, struct parsed *p)
{
	struct cursor c = {
		.pos = (void *)(long)ctx->data,
		.end = (void *)(long)ctx->data_end,
		.lim = (void *)(long)ctx->data_end,
	};
	__u16 proto;
	int err;

	err = parse_eth(&c, &proto);
	if (err)
		return err;
	if (proto == bpf_htons(ETH_P_IP))
		err = parse_ipv4(&c, p);
	else if (proto == bpf_htons(ETH_P_IPV6))
		err = parse_ipv6(&c, p);
	else
		return -EPROTONOSUPPORT;
	if (err)
		return err;
	/* Later fragments carry no ports; the first one's are ignored too. */
	if (p->is_frag)
		return 0;
	return parse_ports(&c, p);
}

#endif /* XDP_STEER_PARSE_H */
