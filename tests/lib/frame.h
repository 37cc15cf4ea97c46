/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * frame.h - builds test frames header by header, so a test case reads as
 * the frame it sends ("eth, two VLAN tags, IPv6, fragment header, UDP")
 * instead of a hex blob.
 *
 *	struct frame f;
 *
 *	frame_init(&f);
 *	frame_eth(&f, ETH_P_IP);
 *	frame_ipv4(&f, &(struct frame_ip4){ .src = "10.0.0.1",
 *					    .dst = "10.0.0.2",
 *					    .proto = IPPROTO_TCP });
 *	frame_tcp(&f, 1000, 80);
 *	err = frame_finish(&f);
 *
 * Every next-header value is given explicitly (what you write is what is
 * sent, so malformed chains are as easy to build as good ones). Lengths and
 * the IPv4 checksum are filled in by frame_finish() unless a case overrides
 * them, for every header that has one, outer and inner. The builder also
 * records the flow its headers describe, which frame_flow() returns as the
 * struct steer_flow the program should parse (the inner flow behind an
 * encapsulation; frame_flow_plain() the outer one).
 *
 * Push functions return 0 or a negative errno; the first error sticks in
 * f->err and is returned again by frame_finish(), so a builder can check
 * once at the end.
 */
#ifndef XDP_STEER_FRAME_H
#define XDP_STEER_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "xdp_steer/slot.h"
#include "xdp_steer/keys.h"

/* Larger than any frame a case needs, smaller than what
 * bpf_prog_test_run accepts for XDP (a page minus head- and tailroom). */
#define FRAME_MAX	2048
/* Length fields frame_finish() fills: an IP header, UDP, PPPoE, GTP-U
 * each, outer and inner. */
#define FRAME_LENS	8
/* Headers a frame is built of, recorded for cuts at their boundaries. */
#define FRAME_BOUNDS	32

/* An IP header pushed, for frame_flow_cut(): where it starts, where its
 * own header ends (IPv4's options included) and where its IPv6 extension
 * headers end (what follows: a transport or a tunnel's header). */
struct frame_ipread {
	int start;
	int hdr_end;
	int walk_end;
};

/* A header whose length field frame_finish() fills. */
struct frame_len {
	int off;		/* where the header starts */
	int kind;		/* FRAME_LEN_* (frame.c) */
	bool set;		/* the case gave the length: keep it */
};

struct frame {
	uint8_t buf[FRAME_MAX];
	size_t len;
	int err;		/* first error of a push, sticky */

	/* Where frame_vlan() inserts a tag: the ethertype field. */
	int type_off;
	/* Last IP header and transport header pushed, -1 if none. */
	int l3_off;
	int l3_family;		/* STEER_AF_INET, STEER_AF_INET6 or 0 */
	bool l3_len_set;	/* tot_len / payload_len given by the case */
	int l4_off;
	uint8_t l4_proto;	/* header at l4_off, for its length field */

	/* What the pushed headers say, for frame_flow(): the innermost IP
	 * header's flow, and the outermost one's once a second IP header
	 * was pushed (a tunnel). */
	struct steer_flow flow;
	bool is_frag;
	bool proto_final;	/* a fragment header fixed the protocol */
	bool esp;		/* an ESP header gave the ports (its SPI) */
	bool tunnel;		/* a second IP header was pushed */
	struct steer_flow outer;
	bool outer_frag;
	bool l2_tunnel;		/* PPPoE or MPLS before the first IP header */
	int encap;		/* STEER_ENCAP_* of the first encapsulation
				 * pushed, or 0 */
	uint16_t encap_port;	/* a UDP one's destination port, network
				 * order */
	int first_l3_off;	/* the outermost IP header, -1 if none */
	int encap_seen;		/* the shortest frame (lengths fixed to it)
				 * in which the parser meets it */
	int bounds[FRAME_BOUNDS]; /* where each header pushed starts */
	int nbounds;
	struct frame_ipread ip[2]; /* the outermost IP header, and a
				    * tunnel's inner one */
	int nip;

	struct frame_len lens[FRAME_LENS];
	int nlens;

	bool finished;		/* frame_finish() ran: later bytes are padding */
	char desc[512];		/* "eth(0x0800)/ipv4(...)/tcp(1000>80)" */
};

/* IPv4 header. Zero fields take defaults: version 4, IHL from the options,
 * tot_len from what follows, TTL 64. */
struct frame_ip4 {
	const char *src;	/* dotted quad; NULL: 0.0.0.0 */
	const char *dst;
	uint8_t proto;
	const uint8_t *opts;	/* options, a multiple of 4 bytes */
	size_t opts_len;
	uint16_t frag_offset;	/* in 8-byte units */
	bool more_frags;
	bool dont_frag;
	uint8_t version;	/* 0: 4 */
	uint8_t ihl;		/* 0: 5 + opts_len / 4 */
	uint16_t tot_len;	/* used when tot_len_set */
	bool tot_len_set;
	uint8_t ttl;		/* 0: 64 */
};

/* IPv6 header. */
struct frame_ip6 {
	const char *src;	/* RFC 5952 text; NULL: :: */
	const char *dst;
	uint8_t nexthdr;
	uint32_t flow_label;
	uint8_t version;	/* 0: 6 */
	uint16_t payload_len;	/* used when payload_len_set */
	bool payload_len_set;
	uint8_t hop_limit;	/* 0: 64 */
};

void frame_init(struct frame *f);

/* Ethernet header with fixed test MACs; 'ethertype' in host order. */
int frame_eth(struct frame *f, uint16_t ethertype);
/* Inserts a VLAN tag (802.1Q: ETH_P_8021Q, 802.1ad: ETH_P_8021AD) before
 * the ethertype: call right after frame_eth() or another frame_vlan(); the
 * first call is the outer tag. */
int frame_vlan(struct frame *f, uint16_t tpid, uint16_t vid);

int frame_ipv4(struct frame *f, const struct frame_ip4 *ip);
int frame_ipv6(struct frame *f, const struct frame_ip6 *ip);

/* IPv6 extension headers, each naming the header after it. Sizes differ
 * on purpose (8, 16, 24 bytes, AH counted in 4-byte units) so a parser
 * that gets one length rule wrong reads the ports from the wrong place. */
int frame_ipv6_hbh(struct frame *f, uint8_t next);	/* 8 bytes */
int frame_ipv6_dstopts(struct frame *f, uint8_t next);	/* 16 bytes */
int frame_ipv6_routing(struct frame *f, uint8_t next);	/* 24, one SID */
int frame_ipv6_frag(struct frame *f, uint8_t next, uint16_t offset,
		    bool more);				/* 8; offset in 8s */
int frame_ipv6_ah(struct frame *f, uint8_t next);	/* 24, 96-bit ICV */

/* Encapsulations, pushed like any header: the outer headers, the tunnel's,
 * then the inner frame (an inner frame_eth() for VXLAN, Geneve and GRE
 * carrying Ethernet). Lengths are filled in by frame_finish(). */
/* PPPoE session header and the PPP protocol ('ppp', host order). */
int frame_pppoe(struct frame *f, uint16_t ppp);
/* One MPLS label stack entry; 'bos': bottom of stack. */
int frame_mpls(struct frame *f, uint32_t label, bool bos);
/* GRE: 'flags' as on the wire (0x8000 C, 0x2000 K, 0x1000 S; any other bit
 * for a malformed one), the optional fields C, K and S ask for, then
 * 'proto' (an ethertype, host order). */
int frame_gre(struct frame *f, uint16_t flags, uint16_t proto);
/* VXLAN: 'flags' the first byte (0x08: I, the VNI is valid). */
int frame_vxlan(struct frame *f, uint8_t flags, uint32_t vni);
/* Geneve version 'ver' with 'opt_len' bytes of options (a multiple of 4,
 * at most 252) before a payload of ethertype 'proto'. */
int frame_geneve(struct frame *f, uint8_t ver, size_t opt_len,
		 uint16_t proto);
/* GTP-U header. */
struct frame_gtpu {
	uint8_t flags;		/* 0: version 1, PT 1 (0x30), plus S and E as
				 * asked below; else the byte as given */
	uint8_t type;		/* 0: G-PDU (255) */
	uint32_t teid;
	bool seq;		/* S: sequence number, N-PDU, next type */
	int nexts;		/* E: that many extension headers */
	uint8_t ext_units;	/* each one's length in 4 bytes; 0: 1 */
	bool ext_len_zero;	/* malformed: each says its length is 0 */
};
int frame_gtpu(struct frame *f, const struct frame_gtpu *g);
/* ESP's SPI and sequence number, then 'len' bytes of ciphertext. The
 * parser takes the SPI for the flow's ports (when it looks through ESP). */
int frame_esp(struct frame *f, uint32_t spi, size_t len);

/* A tunnel's outer headers, ready for the inner IP header: Ethernet, then
 * for encapsulation 'encap' (STEER_ENCAP_*, ESP aside) an outer IPv4 or
 * IPv6 header ('outer_family', STEER_AF_*) from 'src' to 'dst' (NULL:
 * FRAME_OUTER4_* or FRAME_OUTER6_*; none for PPPoE and MPLS, two labels
 * for MPLS), its standard headers (GRE without options, VXLAN and Geneve
 * on their standard ports from FRAME_TUNNEL_SPORT, GTP-U with a sequence
 * number)
 * and, for VXLAN and Geneve, the inner Ethernet header, all naming an
 * inner IPv4 or IPv6 header ('inner_family'). */
int frame_tunnel(struct frame *f, int encap, int outer_family,
		 int inner_family, const char *src, const char *dst);
/* The same on UDP port 'port' (host order; 0: the standard one). */
int frame_tunnel_port(struct frame *f, int encap, int outer_family,
		      int inner_family, const char *src, const char *dst,
		      uint16_t port);
#define FRAME_OUTER4_SRC	"192.0.2.1"
#define FRAME_OUTER4_DST	"192.0.2.2"
#define FRAME_OUTER6_SRC	"2001:db8:f::1"
#define FRAME_OUTER6_DST	"2001:db8:f::2"
#define FRAME_TUNNEL_SPORT	49152

/* Transport headers; ports in host order. */
int frame_tcp(struct frame *f, uint16_t sport, uint16_t dport);
int frame_udp(struct frame *f, uint16_t sport, uint16_t dport);
int frame_udplite(struct frame *f, uint16_t sport, uint16_t dport);
int frame_sctp(struct frame *f, uint16_t sport, uint16_t dport);
int frame_icmp(struct frame *f, uint8_t type, uint8_t code);
int frame_icmpv6(struct frame *f, uint8_t type, uint8_t code);

/* ARP request or reply ('op' in host order) between two IPv4 addresses. */
int frame_arp(struct frame *f, uint16_t op, const char *sip,
	      const char *tip);

int frame_payload(struct frame *f, const void *data, size_t len);
/* 'len' bytes counting up from 'first', so payloads are recognisable. */
int frame_payload_fill(struct frame *f, size_t len, uint8_t first);

/* Fills in the lengths and checksum the case did not set; returns f->err.
 * Runs once: bytes pushed after it (Ethernet padding) are outside every
 * length. */
int frame_finish(struct frame *f);
/* Zero bytes up to 'total', as a NIC pads a short frame; after finish. */
int frame_pad(struct frame *f, size_t total);

/* The flow the program should parse from the frame, and whether it is a
 * fragment (hashed on L3 only). Ports are zero for fragments and for
 * protocols without ports; after an IPv6 fragment header the protocol is
 * the one that header names, as every piece of the datagram carries it. */
bool frame_flow(const struct frame *f, struct steer_flow *flow);
/* The same for a parser that looks through no encapsulation: the
 * outermost IP header's flow (ESP without ports); false with the family
 * 0 when the frame is not IP to it (PPPoE, MPLS). */
bool frame_flow_plain(const struct frame *f, struct steer_flow *flow);

/* What the program should read of the frame (valid and not a fragment,
 * a tunnel's frames included) cut to 'len' bytes with its lengths fixed,
 * as the frame's headers say (bpf/parse_result.h, PARSE_PARTIAL): -1 when no IP
 * header is whole (a parse error); else 0 with *flow the innermost whole
 * IP header's flow as far as the cut leaves it: the addresses, the
 * protocol once its extension headers are whole, the ports once their
 * four bytes are (a tunnel's outer flow where its inner IP header is cut:
 * 'inner' says which). A cut that leaves every header the parser reads
 * is the whole frame's flow (frame_flow()), not this one's to say. */
int frame_flow_cut(const struct frame *f, size_t len, struct steer_flow *flow,
		   bool *inner);

/* Whether a datapath under slot 's' looks through the frame's
 * encapsulation (frame_flow()) or not (frame_flow_plain()). */
bool frame_looked_through(const struct frame *f, const struct steer_slot *s);

/* Sets the frame to bytes given as hex (whitespace ignored), as printed by
 * frame_dump(); -EINVAL for bad hex, -ENOSPC when too long. */
int frame_from_hex(struct frame *f, const char *hex);

/* Prints what the frame is, its bytes as a hexdump and as one hex string
 * that frame_from_hex() reads back, so a failing case can be replayed. */
void frame_dump(FILE *out, const struct frame *f, const char *label);

#endif /* XDP_STEER_FRAME_H */
