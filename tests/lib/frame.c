// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * frame.c - the test frame builder (see frame.h).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/if_ether.h>

#include "frame.h"

#ifndef IPPROTO_UDPLITE
#define IPPROTO_UDPLITE	136
#endif

/* frame_len.kind: which length field a header has. */
enum {
	FRAME_LEN_IP4,		/* tot_len, and the header checksum */
	FRAME_LEN_IP6,		/* payload_len */
	FRAME_LEN_UDP,
	FRAME_LEN_PPPOE,
	FRAME_LEN_GTPU,
};

static const uint8_t mac_dst[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
static const uint8_t mac_src[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

void frame_init(struct frame *f)
{
	memset(f, 0, sizeof(*f));
	f->type_off = -1;
	f->l3_off = -1;
	f->l4_off = -1;
	f->first_l3_off = -1;
}

static int fail(struct frame *f, int err)
{
	if (!f->err)
		f->err = err;
	return err;
}

static void describe(struct frame *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void describe(struct frame *f, const char *fmt, ...)
{
	size_t used = strlen(f->desc);
	va_list ap;

	if (used && used < sizeof(f->desc) - 1)
		f->desc[used++] = '/';
	if (used >= sizeof(f->desc) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(f->desc + used, sizeof(f->desc) - used, fmt, ap);
	va_end(ap);
}

/* Room for 'len' more bytes, zeroed; NULL (and f->err) when full. */
static uint8_t *grow(struct frame *f, size_t len)
{
	uint8_t *p;

	if (f->err)
		return NULL;
	if (len > FRAME_MAX - f->len) {
		fail(f, -ENOSPC);
		return NULL;
	}
	p = f->buf + f->len;
	memset(p, 0, len);
	if (f->nbounds < FRAME_BOUNDS)
		f->bounds[f->nbounds++] = (int)f->len;
	f->len += len;
	return p;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

/* A header at 'p' whose length frame_finish() fills (unless 'set'). */
static void add_len(struct frame *f, const uint8_t *p, int kind, bool set)
{
	if (f->nlens == FRAME_LENS) {
		fail(f, -ENOSPC);
		return;
	}
	f->lens[f->nlens++] = (struct frame_len){ (int)(p - f->buf), kind,
						  set };
}

/* The frame's encapsulation, unless one was pushed before; the parser
 * meets it in a frame of 'seen' bytes. */
static void set_encap(struct frame *f, int encap, const uint8_t *seen)
{
	if (!f->encap) {
		f->encap = encap;
		f->encap_seen = (int)(seen - f->buf);
		if (steer_encap_port(encap))
			f->encap_port = f->flow.dport;
	}
}

/* A new IP header at 'p' of 'hlen' bytes: the one before it, if any, is
 * the outer one. */
static void new_ip(struct frame *f, const uint8_t *p, size_t hlen)
{
	if (f->nip < 2) {
		struct frame_ipread *r = &f->ip[f->nip++];

		r->start = (int)(p - f->buf);
		r->hdr_end = r->start + (int)hlen;
		r->walk_end = r->hdr_end;
	}
	if (f->l3_family && (f->flow.proto == IPPROTO_IPIP ||
			     f->flow.proto == IPPROTO_IPV6))
		set_encap(f, STEER_ENCAP_IPIP, p);
	if (!f->l3_family)
		f->first_l3_off = (int)(p - f->buf);
	if (f->l3_family && !f->tunnel) {
		f->tunnel = true;
		f->outer = f->flow;
		f->outer_frag = f->is_frag;
	}
	f->esp = false;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static int parse_addr(struct frame *f, int af, const char *text, void *out)
{
	if (!text)
		return 0;
	if (inet_pton(af, text, out) != 1)
		return fail(f, -EINVAL);
	return 0;
}

int frame_eth(struct frame *f, uint16_t ethertype)
{
	uint8_t *p = grow(f, 14);

	if (!p)
		return f->err;
	memcpy(p, mac_dst, 6);
	memcpy(p + 6, mac_src, 6);
	put16(p + 12, ethertype);
	f->type_off = (int)(p + 12 - f->buf);
	describe(f, "eth(0x%04x)", ethertype);
	return 0;
}

int frame_vlan(struct frame *f, uint16_t tpid, uint16_t vid)
{
	uint8_t *type;
	uint16_t inner;

	if (f->err)
		return f->err;
	/* A tag goes between the MACs (or the previous tag) and the
	 * ethertype, so it can only follow them directly. */
	if (f->type_off < 0 || f->len != (size_t)f->type_off + 2)
		return fail(f, -EINVAL);
	if (!grow(f, 4))
		return f->err;
	type = f->buf + f->type_off;
	inner = get16(type);
	put16(type, tpid);
	put16(type + 2, vid & 0x0fff);
	put16(type + 4, inner);
	f->type_off += 4;
	describe(f, "vlan(0x%04x,%u)", tpid, vid);
	return 0;
}

static void ipv4_checksum(uint8_t *iph, size_t hlen)
{
	uint32_t sum = 0;
	size_t i;

	iph[10] = iph[11] = 0;
	for (i = 0; i + 1 < hlen; i += 2)
		sum += get16(iph + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(iph + 10, (uint16_t)~sum);
}

int frame_ipv4(struct frame *f, const struct frame_ip4 *ip)
{
	uint8_t ihl = ip->ihl ? ip->ihl : (uint8_t)(5 + ip->opts_len / 4);
	uint16_t frag = ip->frag_offset & 0x1fff;
	uint8_t *p;

	if (ip->opts_len % 4 || ip->opts_len > 40)
		return fail(f, -EINVAL);
	p = grow(f, 20 + ip->opts_len);
	if (!p)
		return f->err;
	if (ip->more_frags)
		frag |= 0x2000;
	if (ip->dont_frag)
		frag |= 0x4000;
	p[0] = (uint8_t)((ip->version ? ip->version : 4) << 4 | (ihl & 0xf));
	put16(p + 4, 0x1234);
	put16(p + 6, frag);
	p[8] = ip->ttl ? ip->ttl : 64;
	p[9] = ip->proto;
	if (parse_addr(f, AF_INET, ip->src, p + 12) ||
	    parse_addr(f, AF_INET, ip->dst, p + 16))
		return f->err;
	if (ip->opts_len)
		memcpy(p + 20, ip->opts, ip->opts_len);

	new_ip(f, p, 20 + ip->opts_len);
	add_len(f, p, FRAME_LEN_IP4, ip->tot_len_set);
	f->l3_off = (int)(p - f->buf);
	f->l3_family = STEER_AF_INET;
	f->l3_len_set = ip->tot_len_set;
	if (ip->tot_len_set)
		put16(p + 2, ip->tot_len);
	f->type_off = -1;
	f->l4_off = -1;

	memset(&f->flow, 0, sizeof(f->flow));
	f->flow.family = STEER_AF_INET;
	f->flow.proto = ip->proto;
	memcpy(&f->flow.src[0], p + 12, 4);
	memcpy(&f->flow.dst[0], p + 16, 4);
	f->is_frag = frag & 0x3fff;
	f->proto_final = false;

	describe(f, "ipv4(%s>%s,proto %u%s%s,ihl %u%s)",
		 ip->src ? ip->src : "0.0.0.0", ip->dst ? ip->dst : "0.0.0.0",
		 ip->proto, ip->more_frags ? ",MF" : "",
		 ip->frag_offset ? ",frag" : "", ihl,
		 ip->opts_len ? ",options" : "");
	return 0;
}

int frame_ipv6(struct frame *f, const struct frame_ip6 *ip)
{
	uint8_t *p = grow(f, 40);
	uint32_t w;

	if (!p)
		return f->err;
	w = (uint32_t)(ip->version ? ip->version : 6) << 28 |
	    (ip->flow_label & 0xfffff);
	put16(p, w >> 16);
	put16(p + 2, w & 0xffff);
	p[6] = ip->nexthdr;
	p[7] = ip->hop_limit ? ip->hop_limit : 64;
	if (parse_addr(f, AF_INET6, ip->src, p + 8) ||
	    parse_addr(f, AF_INET6, ip->dst, p + 24))
		return f->err;

	new_ip(f, p, 40);
	add_len(f, p, FRAME_LEN_IP6, ip->payload_len_set);
	f->l3_off = (int)(p - f->buf);
	f->l3_family = STEER_AF_INET6;
	f->l3_len_set = ip->payload_len_set;
	if (ip->payload_len_set)
		put16(p + 4, ip->payload_len);
	f->type_off = -1;
	f->l4_off = -1;

	memset(&f->flow, 0, sizeof(f->flow));
	f->flow.family = STEER_AF_INET6;
	f->flow.proto = ip->nexthdr;
	memcpy(f->flow.src, p + 8, 16);
	memcpy(f->flow.dst, p + 24, 16);
	f->is_frag = false;
	f->proto_final = false;

	describe(f, "ipv6(%s>%s,next %u)", ip->src ? ip->src : "::",
		 ip->dst ? ip->dst : "::", ip->nexthdr);
	return 0;
}

/* After an IPv6 extension header, pushed last. */
static void next_proto(struct frame *f, uint8_t next)
{
	if (!f->proto_final)
		f->flow.proto = next;
	if (f->nip)
		f->ip[f->nip - 1].walk_end = (int)f->len;
}

/* Hop-by-hop and destination options: one PadN option filling the rest. */
static int ipv6_opts(struct frame *f, const char *name, uint8_t next,
		     size_t len)
{
	uint8_t *p = grow(f, len);

	if (!p)
		return f->err;
	p[0] = next;
	p[1] = (uint8_t)(len / 8 - 1);
	p[2] = 1;			/* PadN */
	p[3] = (uint8_t)(len - 4);
	next_proto(f, next);
	describe(f, "%s(next %u)", name, next);
	return 0;
}

int frame_ipv6_hbh(struct frame *f, uint8_t next)
{
	return ipv6_opts(f, "hbh", next, 8);
}

int frame_ipv6_dstopts(struct frame *f, uint8_t next)
{
	return ipv6_opts(f, "dstopts", next, 16);
}

int frame_ipv6_routing(struct frame *f, uint8_t next)
{
	static const uint8_t sid[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x99 };
	uint8_t *p = grow(f, 24);

	if (!p)
		return f->err;
	p[0] = next;
	p[1] = 2;			/* (24 - 8) / 8 */
	p[2] = 4;			/* segment routing header */
	p[3] = 0;			/* segments left: none to process */
	memcpy(p + 8, sid, sizeof(sid));
	next_proto(f, next);
	describe(f, "routing(next %u)", next);
	return 0;
}

int frame_ipv6_frag(struct frame *f, uint8_t next, uint16_t offset,
		    bool more)
{
	uint8_t *p = grow(f, 8);

	if (!p)
		return f->err;
	p[0] = next;
	put16(p + 2, (uint16_t)(offset << 3 | (more ? 1 : 0)));
	memcpy(p + 4, "\x00\x00\xbe\xef", 4);	/* identification */
	next_proto(f, next);
	/* Offset 0 without M is an atomic fragment, a whole datagram: the
	 * headers after it still count (RFC 6946). */
	if (offset || more) {
		f->proto_final = true;
		f->is_frag = true;
	}
	describe(f, "frag(next %u,offset %u%s)", next, offset,
		 more ? ",M" : "");
	return 0;
}

int frame_ipv6_ah(struct frame *f, uint8_t next)
{
	uint8_t *p = grow(f, 24);

	if (!p)
		return f->err;
	p[0] = next;
	p[1] = 24 / 4 - 2;		/* RFC 4302: 4-byte units minus 2 */
	memcpy(p + 4, "\x00\x00\x10\x00", 4);	/* SPI */
	p[11] = 1;			/* sequence number */
	next_proto(f, next);
	describe(f, "ah(next %u)", next);
	return 0;
}

static int l4(struct frame *f, const char *name, uint8_t proto, size_t len,
	      uint16_t sport, uint16_t dport)
{
	uint8_t *p = grow(f, len);

	if (!p)
		return f->err;
	put16(p, sport);
	put16(p + 2, dport);
	f->l4_off = (int)(p - f->buf);
	f->l4_proto = proto;
	f->flow.sport = htons(sport);
	f->flow.dport = htons(dport);
	describe(f, "%s(%u>%u)", name, sport, dport);
	return 0;
}

int frame_tcp(struct frame *f, uint16_t sport, uint16_t dport)
{
	int err = l4(f, "tcp", IPPROTO_TCP, 20, sport, dport);

	if (err)
		return err;
	f->buf[f->l4_off + 12] = 5 << 4;	/* data offset */
	f->buf[f->l4_off + 13] = 0x02;		/* SYN */
	put16(f->buf + f->l4_off + 14, 65535);	/* window */
	return 0;
}

int frame_udp(struct frame *f, uint16_t sport, uint16_t dport)
{
	int err = l4(f, "udp", IPPROTO_UDP, 8, sport, dport);

	if (!err)
		add_len(f, f->buf + f->l4_off, FRAME_LEN_UDP, false);
	return f->err;
}

int frame_udplite(struct frame *f, uint16_t sport, uint16_t dport)
{
	/* Checksum coverage 0: the whole datagram. */
	return l4(f, "udplite", IPPROTO_UDPLITE, 8, sport, dport);
}

int frame_sctp(struct frame *f, uint16_t sport, uint16_t dport)
{
	int err = l4(f, "sctp", IPPROTO_SCTP, 12, sport, dport);

	if (err)
		return err;
	memcpy(f->buf + f->l4_off + 4, "\x12\x34\x56\x78", 4); /* vtag */
	return 0;
}

static int icmp(struct frame *f, const char *name, uint8_t proto,
		uint8_t type, uint8_t code)
{
	uint8_t *p = grow(f, 8);

	if (!p)
		return f->err;
	p[0] = type;
	p[1] = code;
	put16(p + 4, 0x4242);		/* identifier */
	put16(p + 6, 1);		/* sequence */
	f->l4_off = (int)(p - f->buf);
	f->l4_proto = proto;
	describe(f, "%s(type %u,code %u)", name, type, code);
	return 0;
}

int frame_icmp(struct frame *f, uint8_t type, uint8_t code)
{
	return icmp(f, "icmp", IPPROTO_ICMP, type, code);
}

int frame_icmpv6(struct frame *f, uint8_t type, uint8_t code)
{
	return icmp(f, "icmpv6", IPPROTO_ICMPV6, type, code);
}

int frame_arp(struct frame *f, uint16_t op, const char *sip, const char *tip)
{
	uint8_t *p = grow(f, 28);

	if (!p)
		return f->err;
	put16(p, 1);			/* Ethernet */
	put16(p + 2, 0x0800);		/* IPv4 */
	p[4] = 6;
	p[5] = 4;
	put16(p + 6, op);
	memcpy(p + 8, mac_src, 6);
	if (parse_addr(f, AF_INET, sip, p + 14) ||
	    parse_addr(f, AF_INET, tip, p + 24))
		return f->err;
	f->type_off = -1;
	describe(f, "arp(op %u,%s>%s)", op, sip ? sip : "0.0.0.0",
		 tip ? tip : "0.0.0.0");
	return 0;
}

int frame_pppoe(struct frame *f, uint16_t ppp)
{
	uint8_t *p = grow(f, 8);

	if (!p)
		return f->err;
	p[0] = 0x11;			/* version 1, type 1 */
	put16(p + 2, 0x2a2a);		/* session */
	put16(p + 6, ppp);
	add_len(f, p, FRAME_LEN_PPPOE, false);
	if (!f->l3_family)
		f->l2_tunnel = true;
	set_encap(f, STEER_ENCAP_PPPOE, p);
	f->type_off = -1;
	describe(f, "pppoe(ppp 0x%04x)", ppp);
	return 0;
}

int frame_mpls(struct frame *f, uint32_t label, bool bos)
{
	uint8_t *p = grow(f, 4);

	if (!p)
		return f->err;
	put32(p, (label & 0xfffff) << 12 | (bos ? 0x100 : 0) | 64);
	if (!f->l3_family)
		f->l2_tunnel = true;
	set_encap(f, STEER_ENCAP_MPLS, p);
	f->type_off = -1;
	describe(f, "mpls(%u%s)", label, bos ? ",S" : "");
	return 0;
}

int frame_gre(struct frame *f, uint16_t flags, uint16_t proto)
{
	size_t len = 4 + (flags & STEER_GRE_C ? 4 : 0) + (flags & STEER_GRE_K ? 4 : 0) +
		     (flags & STEER_GRE_S ? 4 : 0);
	uint8_t *p = grow(f, len), *o;

	if (!p)
		return f->err;
	put16(p, flags);
	put16(p + 2, proto);
	set_encap(f, STEER_ENCAP_GRE, p);
	o = p + 4;
	if (flags & STEER_GRE_C)
		o += 4;			/* checksum 0: not checked */
	if (flags & STEER_GRE_K) {
		put32(o, 0x00c0ffee);	/* key */
		o += 4;
	}
	if (flags & STEER_GRE_S)
		put32(o, 7);		/* sequence number */
	describe(f, "gre(0x%04x,proto 0x%04x)", flags, proto);
	return 0;
}

int frame_vxlan(struct frame *f, uint8_t flags, uint32_t vni)
{
	uint8_t *p = grow(f, 8);

	if (!p)
		return f->err;
	p[0] = flags;
	put32(p + 4, vni << 8);
	set_encap(f, STEER_ENCAP_VXLAN, f->buf + f->l4_off + 4);
	describe(f, "vxlan(flags 0x%02x,vni %u)", flags, vni);
	return 0;
}

int frame_geneve(struct frame *f, uint8_t ver, size_t opt_len,
		 uint16_t proto)
{
	uint8_t *p;
	size_t i;

	if (opt_len % 4 || opt_len > 252)
		return fail(f, -EINVAL);
	p = grow(f, 8 + opt_len);
	if (!p)
		return f->err;
	p[0] = (uint8_t)(ver << 6 | opt_len / 4);
	put16(p + 2, proto);
	set_encap(f, STEER_ENCAP_GENEVE, f->buf + f->l4_off + 4);
	put32(p + 4, 77 << 8);		/* VNI */
	/* Options of 4 bytes each: class 0x0102, type 0x80, no data. */
	for (i = 0; i < opt_len; i += 4) {
		put16(p + 8 + i, 0x0102);
		p[8 + i + 2] = 0x80;
	}
	describe(f, "geneve(ver %u,options %zu,proto 0x%04x)", ver, opt_len,
		 proto);
	return 0;
}

int frame_gtpu(struct frame *f, const struct frame_gtpu *g)
{
	uint8_t units = g->ext_units ? g->ext_units : 1;
	bool opt = g->seq || g->nexts;
	size_t len = 8 + (opt ? 4 : 0) + (size_t)g->nexts * units * 4;
	uint8_t *p = grow(f, len), *e;
	int i;

	if (!p)
		return f->err;
	p[0] = g->flags ? g->flags :
	       (uint8_t)(0x30 | (g->seq ? 0x02 : 0) | (g->nexts ? 0x04 : 0));
	p[1] = g->type ? g->type : 255;
	put32(p + 4, g->teid);
	e = p + 8;
	if (opt) {
		put16(e, 0x0101);	/* sequence number */
		e[3] = g->nexts ? 0x85 : 0; /* PDU session container */
		e += 4;
	}
	for (i = 0; i < g->nexts; i++) {
		e[0] = g->ext_len_zero ? 0 : units;
		e[1] = 0x10;		/* QFI */
		e[units * 4 - 1] = i + 1 < g->nexts ? 0x85 : 0;
		e += units * 4;
	}
	add_len(f, p, FRAME_LEN_GTPU, false);
	set_encap(f, STEER_ENCAP_GTPU, f->buf + f->l4_off + 4);
	describe(f, "gtpu(type %u,teid %u%s,%d ext)", p[1], g->teid,
		 g->seq ? ",S" : "", g->nexts);
	return 0;
}

int frame_esp(struct frame *f, uint32_t spi, size_t len)
{
	uint8_t *p = grow(f, 8 + len);
	size_t i;

	if (!p)
		return f->err;
	put32(p, spi);
	put32(p + 4, 1);		/* sequence number */
	for (i = 0; i < len; i++)
		p[8 + i] = (uint8_t)(0xa5 ^ i);
	f->l4_off = (int)(p - f->buf);
	f->l4_proto = IPPROTO_ESP;
	f->flow.sport = htons(spi >> 16);
	f->flow.dport = htons(spi & 0xffff);
	f->esp = true;
	if (!f->tunnel)
		set_encap(f, STEER_ENCAP_ESP, p + 4);
	describe(f, "esp(spi 0x%08x)", spi);
	return 0;
}

int frame_tunnel(struct frame *f, int encap, int outer_family,
		 int inner_family, const char *src, const char *dst)
{
	return frame_tunnel_port(f, encap, outer_family, inner_family, src,
				 dst, 0);
}

int frame_tunnel_port(struct frame *f, int encap, int outer_family,
		      int inner_family, const char *src, const char *dst,
		      uint16_t port)
{
	uint16_t udp = port ? port : steer_encap_port(encap);
	uint16_t inner_type = inner_family == STEER_AF_INET6 ? ETH_P_IPV6 :
							       ETH_P_IP;
	bool v6 = outer_family == STEER_AF_INET6;
	uint8_t proto;

	switch (encap) {
	case STEER_ENCAP_PPPOE:
		frame_eth(f, ETH_P_PPP_SES);
		return frame_pppoe(f, inner_family == STEER_AF_INET6 ?
				      0x0057 : 0x0021);
	case STEER_ENCAP_MPLS:
		frame_eth(f, ETH_P_MPLS_UC);
		frame_mpls(f, 1000, false);
		return frame_mpls(f, 2000, true);
	case STEER_ENCAP_GRE:
		proto = IPPROTO_GRE;
		break;
	case STEER_ENCAP_IPIP:
		proto = inner_family == STEER_AF_INET6 ? IPPROTO_IPV6 :
							 IPPROTO_IPIP;
		break;
	case STEER_ENCAP_VXLAN:
	case STEER_ENCAP_GENEVE:
	case STEER_ENCAP_GTPU:
		proto = IPPROTO_UDP;
		break;
	default:
		return fail(f, -EINVAL);
	}
	frame_eth(f, v6 ? ETH_P_IPV6 : ETH_P_IP);
	if (v6)
		frame_ipv6(f, &(struct frame_ip6){
			.src = src ? src : FRAME_OUTER6_SRC,
			.dst = dst ? dst : FRAME_OUTER6_DST, .nexthdr = proto });
	else
		frame_ipv4(f, &(struct frame_ip4){
			.src = src ? src : FRAME_OUTER4_SRC,
			.dst = dst ? dst : FRAME_OUTER4_DST, .proto = proto });
	switch (encap) {
	case STEER_ENCAP_GRE:
		return frame_gre(f, 0, inner_type);
	case STEER_ENCAP_VXLAN:
		frame_udp(f, FRAME_TUNNEL_SPORT, udp);
		frame_vxlan(f, 0x08, 42);
		return frame_eth(f, inner_type);
	case STEER_ENCAP_GENEVE:
		frame_udp(f, FRAME_TUNNEL_SPORT, udp);
		frame_geneve(f, 0, 0, 0x6558);
		return frame_eth(f, inner_type);
	case STEER_ENCAP_GTPU:
		frame_udp(f, udp, udp);
		return frame_gtpu(f, &(struct frame_gtpu){ .teid = 0x1234,
							   .seq = true });
	}
	return f->err;
}

int frame_payload(struct frame *f, const void *data, size_t len)
{
	uint8_t *p = grow(f, len);

	if (!p)
		return f->err;
	memcpy(p, data, len);
	describe(f, "payload(%zu)", len);
	return 0;
}

int frame_payload_fill(struct frame *f, size_t len, uint8_t first)
{
	uint8_t *p = grow(f, len);
	size_t i;

	if (!p)
		return f->err;
	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(first + i);
	describe(f, "payload(%zu)", len);
	return 0;
}

int frame_finish(struct frame *f)
{
	const struct frame_len *l;
	uint8_t *h;
	size_t hlen;
	int i;

	if (f->err || f->finished)
		return f->err;
	f->finished = true;
	for (i = 0; i < f->nlens; i++) {
		l = &f->lens[i];
		h = f->buf + l->off;
		switch (l->kind) {
		case FRAME_LEN_IP4:
			if (!l->set)
				put16(h + 2, (uint16_t)(f->len - l->off));
			/* A malformed IHL still gets a checksum over what
			 * exists. */
			hlen = (size_t)(h[0] & 0xf) * 4;
			if (hlen < 20 || hlen > f->len - l->off)
				hlen = 20;
			ipv4_checksum(h, hlen);
			break;
		case FRAME_LEN_IP6:
			if (!l->set)
				put16(h + 4, (uint16_t)(f->len - l->off - 40));
			break;
		case FRAME_LEN_UDP:
			put16(h + 4, (uint16_t)(f->len - l->off));
			break;
		case FRAME_LEN_PPPOE:
			put16(h + 4, (uint16_t)(f->len - l->off - 6));
			break;
		case FRAME_LEN_GTPU:
			put16(h + 2, (uint16_t)(f->len - l->off - 8));
			break;
		}
	}
	return 0;
}

static bool has_ports(uint8_t proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_UDPLITE || proto == IPPROTO_SCTP;
}

bool frame_flow(const struct frame *f, struct steer_flow *flow)
{
	memset(flow, 0, sizeof(*flow));
	if (!f->l3_family)
		return false;
	*flow = f->flow;
	/* Later pieces of a fragment carry no ports, so no piece uses them. */
	if (f->is_frag || !(has_ports(flow->proto) || f->esp)) {
		flow->sport = 0;
		flow->dport = 0;
	}
	return f->is_frag;
}

/* The IP header 'r' of family 'family' is whole in 'len' bytes, its
 * length fixed to them: IPv6's payload length must not be 0 (a
 * jumbogram). */
static bool ip_whole(const struct frame_ipread *r, int family, size_t len)
{
	return family == STEER_AF_INET6 ? len > (size_t)r->hdr_end :
					  len >= (size_t)r->hdr_end;
}

int frame_flow_cut(const struct frame *f, size_t len, struct steer_flow *flow,
		   bool *inner)
{
	const struct frame_ipread *r;
	struct steer_flow level;

	memset(flow, 0, sizeof(*flow));
	*inner = false;
	if (!f->nip)
		return -1;
	/* The outermost IP header's flow, as recorded once a second one
	 * was pushed (f->outer), or the frame's only one. */
	level = f->tunnel ? f->outer : f->flow;
	if (!ip_whole(&f->ip[0], f->tunnel ? f->outer.family : f->flow.family,
		      len))
		return -1;
	r = &f->ip[0];
	if (f->nip > 1 && ip_whole(&f->ip[1], f->flow.family, len)) {
		level = f->flow;
		r = &f->ip[1];
		*inner = true;
	}
	*flow = level;
	if (len < (size_t)r->walk_end)
		flow->proto = 0;
	if (len < (size_t)r->walk_end + 4 ||
	    !(has_ports(flow->proto) || (f->esp && r == &f->ip[f->nip - 1]))) {
		flow->sport = 0;
		flow->dport = 0;
	}
	return 0;
}

bool frame_looked_through(const struct frame *f, const struct steer_slot *s)
{
	int i;

	/* An outer fragment (a fragment carrying ESP) is hashed as one: its
	 * pieces must meet. */
	if (!f->encap || !(s->decap & STEER_DECAP(f->encap)) ||
	    (f->tunnel && f->outer_frag) ||
	    (f->encap == STEER_ENCAP_ESP && f->is_frag))
		return false;
	if (!steer_encap_port(f->encap))
		return true;
	for (i = 0; i < STEER_DECAP_PORTS; i++)
		if (s->decap_port[i] && s->decap_port[i] == f->encap_port &&
		    s->decap_port_encap[i] == f->encap)
			return true;
	return false;
}

bool frame_flow_plain(const struct frame *f, struct steer_flow *flow)
{
	memset(flow, 0, sizeof(*flow));
	if (!f->l3_family || f->l2_tunnel)
		return false;
	if (!f->tunnel) {
		frame_flow(f, flow);
		if (f->esp)
			flow->sport = flow->dport = 0;
		return f->is_frag;
	}
	*flow = f->outer;
	if (f->outer_frag || !has_ports(flow->proto)) {
		flow->sport = 0;
		flow->dport = 0;
	}
	return f->outer_frag;
}

int frame_pad(struct frame *f, size_t total)
{
	if (f->len >= total)
		return f->err;
	if (!grow(f, total - f->len))
		return f->err;
	describe(f, "pad(to %zu)", total);
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int frame_from_hex(struct frame *f, const char *hex)
{
	int hi = -1, v;

	frame_init(f);
	for (; *hex; hex++) {
		if (isspace((unsigned char)*hex))
			continue;
		v = hexval((unsigned char)*hex);
		if (v < 0)
			return fail(f, -EINVAL);
		if (hi < 0) {
			hi = v;
			continue;
		}
		if (f->len == FRAME_MAX)
			return fail(f, -ENOSPC);
		f->buf[f->len++] = (uint8_t)(hi << 4 | v);
		hi = -1;
	}
	if (hi >= 0)
		return fail(f, -EINVAL);
	snprintf(f->desc, sizeof(f->desc), "raw(%zu bytes)", f->len);
	return 0;
}

void frame_dump(FILE *out, const struct frame *f, const char *label)
{
	size_t i;

	fprintf(out, "  frame %s: %zu bytes: %s\n", label ? label : "",
		f->len, f->desc[0] ? f->desc : "(no description)");
	for (i = 0; i < f->len; i++) {
		if (i % 16 == 0)
			fprintf(out, "    %04zx ", i);
		fprintf(out, " %02x", f->buf[i]);
		if (i % 16 == 15 || i + 1 == f->len)
			fprintf(out, "\n");
	}
	fprintf(out, "  replay: XDP_STEER_FRAME=");
	for (i = 0; i < f->len; i++)
		fprintf(out, "%02x", f->buf[i]);
	fprintf(out, " tests/prog/test_prog\n");
}
