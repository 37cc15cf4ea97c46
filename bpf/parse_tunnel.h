/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * parse_tunnel.h - the encapsulations a slot's 'decap' looks through, one
 * level deep: PPPoE, MPLS, GRE, IP-in-IP, VXLAN, Geneve, GTP-U (ESP's SPI
 * is read as its ports, parse_l4()); each leaves the cursor on the inner
 * IP header, whose flow then is the frame's.
 */
#ifndef XDP_STEER_PARSE_TUNNEL_H
#define XDP_STEER_PARSE_TUNNEL_H

#include <linux/bpf.h>
#include <linux/errno.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "xdp_steer.h"
#include "parse_cursor.h"
#include "parse_result.h"
#include "parse_l3.h"

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
 * skipped, then the same for its ethertype); anything else is not looked
 * into (PARSE_DONE: the frame keeps its outer flow). */
static __always_inline int tunnel_payload(struct cursor *c, __be16 type,
					  __u16 *inner)
{
	__u16 t = type;

	if (t == bpf_htons(ETH_P_TEB)) {
		if (parse_eth(c, &t, NULL) || c->pos > c->lim)
			return -EINVAL;
	}
	if (t != bpf_htons(ETH_P_IP) && t != bpf_htons(ETH_P_IPV6))
		return PARSE_DONE;
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
 * protocol (LCP, IPCP...: a non-IP frame, as without decap). */
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
		return PARSE_DONE;
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
	return payload_by_version(c, inner, PARSE_DONE);
}

/* A UDP frame whose destination port is one of the slot's decap ports:
 * the frame's encapsulation, counted. PARSE_DONE (the outer flow) for a
 * port that only shares its bit with one. The UDP length is not checked:
 * the IP datagram bounds what is read. */
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
		return PARSE_DONE;
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
	return PARSE_DONE;
}

/* The tunnel's header: 'encap' (0: a UDP frame, whose port tells), counted
 * in its steer_stats counter; PARSE_INNER with the cursor on the inner IP
 * header, PARSE_DONE to keep the outer flow, or an error. */
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

#endif /* XDP_STEER_PARSE_TUNNEL_H */
