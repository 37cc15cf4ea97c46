// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * encap.c - the program tier's cases for encapsulations. A table of one
 * row per frame (each encapsulation over IPv4 and IPv6, VLAN tags outside
 * and inside, fragments of the outer and the inner datagram, payloads the
 * parser does not look into, malformed headers, other policies), the CPU
 * predicted from the inner flow (the policy points only the inner flow's
 * bucket at a present CPU), and exactly which counters move: the
 * encapsulation's own, encap_malformed for a malformed one. Then tests
 * over many frames: a matrix of every encapsulation's forms (each GRE flag
 * combination, MPLS and GTP-U at their bounds) by outer family, payload
 * (IPv4, IPv6, Ethernet) and VLAN tags outside and inside, each whole and
 * cut at every header boundary; every encapsulation cut at every byte;
 * every GRE bit RFC 2784 refuses; the pieces of fragmented inner and outer
 * datagrams meeting in every encapsulation; inner flows and ESP SPIs
 * spreading.
 */
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/if_ether.h>

#include "fixtures.h"

/* Inner addresses, apart from the outer ones (FRAME_OUTER*). */
#define IN4_SRC	"172.16.1.1"
#define IN4_DST	"172.16.2.2"
#define IN6_SRC	"2001:db8:1::1"
#define IN6_DST	"2001:db8:2::2"

/* ---- policies ------------------------------------------------------------ */

/* Every encapsulation looked through, on its standard port. */
static int policy_decap(const struct frame *f)
{
	struct steer_slot s;

	decap_slot(&s, STEER_F_HASH_L4);
	return bucket_only(f, &s);
}

/* The same with a symmetric L3 key: the inner addresses alone. */
static int policy_decap_l3(const struct frame *f)
{
	struct steer_slot s;

	decap_slot(&s, 0);
	return bucket_only(f, &s);
}

/* Every encapsulation looked through, only the outer flow's bucket (as
 * the parser reads it: ports where the outer header has them) to a
 * present CPU: where a malformed tunnel behind an IP header goes. */
static int policy_decap_outer(const struct frame *f)
{
	struct steer_flow flow;
	struct steer_slot s;

	frame_flow_plain(f, &flow);
	decap_slot(&s, STEER_F_HASH_L4);
	return bucket_of_flow(&flow, &s);
}

/* Nothing looked through. */
static int policy_no_decap(const struct frame *f)
{
	struct steer_slot s;

	base_slot(&s, STEER_F_HASH_L4);
	return bucket_only(f, &s);
}

/* GRE only. */
static int policy_gre_only(const struct frame *f)
{
	struct steer_slot s;

	base_slot(&s, STEER_F_HASH_L4);
	s.decap = STEER_DECAP(STEER_ENCAP_GRE);
	return bucket_only(f, &s);
}

/* VXLAN on port 8472 only (Linux's old default, flannel's). */
static int policy_vxlan_8472(const struct frame *f)
{
	struct steer_slot s;

	base_slot(&s, STEER_F_HASH_L4);
	s.decap = STEER_DECAP(STEER_ENCAP_VXLAN);
	steer_decap_add_port(&s, htons(8472), STEER_ENCAP_VXLAN);
	return bucket_only(f, &s);
}

/* A 5-tuple rule on the frame's inner flow to the remote CPU, the table
 * to the local one: the rule must see the inner flow. */
static int policy_inner_rule(const struct frame *f)
{
	struct steer_target t = { .rule_id = 0, .ncpus = 1, .cpu = remote_cpu };
	struct steer_flow flow;
	struct steer_slot s;
	int err;

	frame_flow(f, &flow);
	decap_slot(&s, STEER_F_HASH_L4);
	err = steer_prog_fill_table(&prog, 0, local_cpu, s.table_size);
	if (!err)
		err = steer_slot_add_shape(&s, STEER_M_ALL);
	if (!err)
		err = steer_prog_add_flow_rule(&prog, 0, STEER_M_ALL, &flow, &t);
	return err ? err : commit(&s);
}

/* ---- frames ---------------------------------------------------------------- */

static void inner_v4_udp(struct frame *f)
{
	frame_ipv4(f, &(struct frame_ip4){ .src = IN4_SRC, .dst = IN4_DST,
					   .proto = IPPROTO_UDP });
	frame_udp(f, SPORT, 53);
	frame_payload_fill(f, 16, 0);
}

static void inner_v6_tcp(struct frame *f)
{
	frame_ipv6(f, &(struct frame_ip6){ .src = IN6_SRC, .dst = IN6_DST,
					   .nexthdr = IPPROTO_TCP });
	frame_tcp(f, SPORT, DPORT);
}

static void inner_v4_icmp(struct frame *f)
{
	frame_ipv4(f, &(struct frame_ip4){ .src = IN4_SRC, .dst = IN4_DST,
					   .proto = IPPROTO_ICMP });
	frame_icmp(f, 8, 0);
}

/* The first piece of a fragmented inner datagram. */
static void inner_v4_frag(struct frame *f)
{
	frame_ipv4(f, &(struct frame_ip4){ .src = IN4_SRC, .dst = IN4_DST,
		.proto = IPPROTO_UDP, .more_frags = true });
	frame_udp(f, SPORT, 53);
	frame_payload_fill(f, 32, 0);
}

static void inner(struct frame *f, int family)
{
	if (family == STEER_AF_INET6)
		inner_v6_tcp(f);
	else
		inner_v4_udp(f);
}

static void outer_ip(struct frame *f, int family, __u8 proto)
{
	if (family == STEER_AF_INET6)
		frame_ipv6(f, &(struct frame_ip6){ .src = FRAME_OUTER6_SRC,
			   .dst = FRAME_OUTER6_DST, .nexthdr = proto });
	else
		frame_ipv4(f, &(struct frame_ip4){ .src = FRAME_OUTER4_SRC,
			   .dst = FRAME_OUTER4_DST, .proto = proto });
}

static void eth(struct frame *f, int family)
{
	frame_eth(f, family == STEER_AF_INET6 ? ETH_P_IPV6 : ETH_P_IP);
}

/* PPPoE */
static void pppoe_v4(struct frame *f)
{
	frame_tunnel(f, STEER_ENCAP_PPPOE, 0, STEER_AF_INET, NULL, NULL);
	inner_v4_udp(f);
}

static void pppoe_v6(struct frame *f)
{
	frame_tunnel(f, STEER_ENCAP_PPPOE, 0, STEER_AF_INET6, NULL, NULL);
	inner_v6_tcp(f);
}

static void pppoe_qinq_v4(struct frame *f)
{
	frame_eth(f, ETH_P_PPP_SES);
	frame_vlan(f, ETH_P_8021AD, 100);
	frame_vlan(f, ETH_P_8021Q, 200);
	frame_pppoe(f, 0x0021);
	inner_v4_udp(f);
}

static void pppoe_lcp(struct frame *f)
{
	frame_eth(f, ETH_P_PPP_SES);
	frame_pppoe(f, 0xc021);
	frame_payload(f, "\x09\x01\x00\x08\x12\x34\x56\x78", 8); /* echo */
}

/* 0x0022: even, no PPP protocol is. */
static void pppoe_bad_ppp(struct frame *f)
{
	frame_eth(f, ETH_P_PPP_SES);
	frame_pppoe(f, 0x0022);
	inner_v4_udp(f);
}

/* 0x00fd, a compressed datagram (RFC 1962): a valid PPP protocol that
 * is not IP. */
static void pppoe_ccp_data(struct frame *f)
{
	frame_eth(f, ETH_P_PPP_SES);
	frame_pppoe(f, 0x00fd);
	frame_payload_fill(f, 24, 0x40);
}

/* The PPPoE header's byte 'off' (0: version and type, 1: code) set to
 * 'v', the lengths filled first. */
static void pppoe_byte(struct frame *f, int off, __u8 v)
{
	pppoe_v4(f);
	frame_finish(f);
	f->buf[14 + off] = v;
}

static void pppoe_version2(struct frame *f)
{
	pppoe_byte(f, 0, 0x21);
}

/* A discovery code (PADT, 0xa7) on the session ethertype. */
static void pppoe_code_padt(struct frame *f)
{
	pppoe_byte(f, 1, 0xa7);
}

/* The PPPoE length covers the PPP protocol and the inner IP header, not
 * the rest of the inner datagram. */
static void pppoe_len_short(struct frame *f)
{
	pppoe_byte(f, 5, 2 + 20);
}

/* Discovery (0x8863): neither looked through nor counted. */
static void pppoe_discovery(struct frame *f)
{
	frame_eth(f, 0x8863);
	frame_payload(f, "\x11\x09\x00\x00\x00\x04\x01\x01\x00\x00", 10);
}

/* MPLS */
static void mpls_labels(struct frame *f, int n, int family)
{
	int i;

	frame_eth(f, ETH_P_MPLS_UC);
	for (i = 0; i < n; i++)
		frame_mpls(f, 100 + i, i + 1 == n);
	inner(f, family);
}

static void mpls1_v4(struct frame *f)
{
	mpls_labels(f, 1, STEER_AF_INET);
}

static void mpls2_v6(struct frame *f)
{
	mpls_labels(f, 2, STEER_AF_INET6);
}

static void mpls_at_limit(struct frame *f)
{
	mpls_labels(f, STEER_MPLS_LABELS_MAX, STEER_AF_INET);
}

static void mpls_past_limit(struct frame *f)
{
	mpls_labels(f, STEER_MPLS_LABELS_MAX + 1, STEER_AF_INET);
}

/* An entropy label indicator (7) and entropy label before the bottom. */
static void mpls_entropy(struct frame *f)
{
	frame_eth(f, ETH_P_MPLS_UC);
	frame_vlan(f, ETH_P_8021Q, 7);
	frame_mpls(f, 16000, false);
	frame_mpls(f, 7, false);
	frame_mpls(f, 0xabcde, true);
	inner_v4_udp(f);
}

/* An Ethernet pseudowire's control word (first nibble 0) after the stack. */
static void mpls_pw(struct frame *f)
{
	frame_eth(f, ETH_P_MPLS_UC);
	frame_mpls(f, 300, true);
	frame_payload(f, "\x00\x00\x00\x01", 4);
	frame_eth(f, ETH_P_IP);
	inner_v4_udp(f);
}

/* GRE with some of its flags, for the rows of other policies (every
 * combination: test_matrix). */
static void gre(struct frame *f, int outer, __u16 flags, int family)
{
	eth(f, outer);
	outer_ip(f, outer, IPPROTO_GRE);
	frame_gre(f, flags, family == STEER_AF_INET6 ? ETH_P_IPV6 : ETH_P_IP);
	inner(f, family);
}

#define GRE_FRAME(name, outer, flags, family)				\
	static void name(struct frame *f)				\
	{								\
		gre(f, outer, flags, family);				\
	}
GRE_FRAME(gre4_k, STEER_AF_INET, STEER_GRE_K, STEER_AF_INET)
GRE_FRAME(gre4_cs, STEER_AF_INET, STEER_GRE_C | STEER_GRE_S, STEER_AF_INET6)
GRE_FRAME(gre4_cks, STEER_AF_INET, STEER_GRE_C | STEER_GRE_K | STEER_GRE_S, STEER_AF_INET6)
GRE_FRAME(gre6_c, STEER_AF_INET6, STEER_GRE_C, STEER_AF_INET)
GRE_FRAME(gre6_ks, STEER_AF_INET6, STEER_GRE_K | STEER_GRE_S, STEER_AF_INET6)
GRE_FRAME(gre6_cks, STEER_AF_INET6, STEER_GRE_C | STEER_GRE_K | STEER_GRE_S, STEER_AF_INET)

static void gre_q_v4(struct frame *f)
{
	frame_eth(f, ETH_P_IP);
	frame_vlan(f, ETH_P_8021Q, 42);
	outer_ip(f, STEER_AF_INET, IPPROTO_GRE);
	frame_gre(f, STEER_GRE_K, ETH_P_IP);
	inner_v4_icmp(f);
}

/* Ethernet inside GRE (0x6558), with a VLAN tag of its own. */
static void gre_teb(struct frame *f)
{
	eth(f, STEER_AF_INET);
	outer_ip(f, STEER_AF_INET, IPPROTO_GRE);
	frame_gre(f, STEER_GRE_K, ETH_P_TEB);
	frame_eth(f, ETH_P_IPV6);
	frame_vlan(f, ETH_P_8021Q, 300);
	inner_v6_tcp(f);
}

/* A keepalive, an ERSPAN or PPP payload: GRE not carrying IP. */
static void gre_other(struct frame *f)
{
	eth(f, STEER_AF_INET);
	outer_ip(f, STEER_AF_INET, IPPROTO_GRE);
	frame_gre(f, STEER_GRE_S, 0x88be);
	frame_payload_fill(f, 40, 0x10);
}

static void gre_inner_frag(struct frame *f)
{
	eth(f, STEER_AF_INET);
	outer_ip(f, STEER_AF_INET, IPPROTO_GRE);
	frame_gre(f, 0, ETH_P_IP);
	inner_v4_frag(f);
}

/* The pieces of a fragmented outer datagram: the first carries GRE and
 * the inner headers, the others only bytes; all must meet, so all hash on
 * the outer addresses. */
static void gre_outer_frag_first(struct frame *f)
{
	eth(f, STEER_AF_INET);
	frame_ipv4(f, &(struct frame_ip4){ .src = FRAME_OUTER4_SRC,
		.dst = FRAME_OUTER4_DST, .proto = IPPROTO_GRE,
		.more_frags = true });
	frame_gre(f, 0, ETH_P_IP);
	inner_v4_udp(f);
}

static void gre_outer_frag_last(struct frame *f)
{
	eth(f, STEER_AF_INET);
	frame_ipv4(f, &(struct frame_ip4){ .src = FRAME_OUTER4_SRC,
		.dst = FRAME_OUTER4_DST, .proto = IPPROTO_GRE,
		.frag_offset = 8 });
	frame_payload_fill(f, 40, 0x20);
}

static void gre6_outer_frag_first(struct frame *f)
{
	eth(f, STEER_AF_INET6);
	outer_ip(f, STEER_AF_INET6, IPPROTO_FRAGMENT);
	frame_ipv6_frag(f, IPPROTO_GRE, 0, true);
	frame_gre(f, 0, ETH_P_IPV6);
	inner_v6_tcp(f);
}

/* An inner IPv4 header claiming more than the outer datagram holds. */
static void gre_inner_too_long(struct frame *f)
{
	eth(f, STEER_AF_INET);
	outer_ip(f, STEER_AF_INET, IPPROTO_GRE);
	frame_gre(f, 0, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = IN4_SRC, .dst = IN4_DST,
		.proto = IPPROTO_UDP, .tot_len = 200, .tot_len_set = true });
	frame_udp(f, SPORT, 53);
	frame_finish(f);
	frame_pad(f, 300);	/* in the frame, past the outer datagram */
}

/* IP-in-IP, IPv6-in-IPv4 (6in4, 41), IPv4- and IPv6-in-IPv6. */
static void ipip(struct frame *f, int outer, int family)
{
	eth(f, outer);
	outer_ip(f, outer, family == STEER_AF_INET6 ? IPPROTO_IPV6 :
						      IPPROTO_IPIP);
	inner(f, family);
}

static void ipip_4in4(struct frame *f)
{
	ipip(f, STEER_AF_INET, STEER_AF_INET);
}

static void ipip_6in4(struct frame *f)
{
	ipip(f, STEER_AF_INET, STEER_AF_INET6);
}

static void ipip_4in6(struct frame *f)
{
	ipip(f, STEER_AF_INET6, STEER_AF_INET);
}

static void ipip_6in6(struct frame *f)
{
	ipip(f, STEER_AF_INET6, STEER_AF_INET6);
}

/* Behind the outer IPv6 header's own extension headers. */
static void ipip_6in6_ext(struct frame *f)
{
	eth(f, STEER_AF_INET6);
	outer_ip(f, STEER_AF_INET6, IPPROTO_HOPOPTS);
	frame_ipv6_hbh(f, IPPROTO_DSTOPTS);
	frame_ipv6_dstopts(f, IPPROTO_IPV6);
	inner_v6_tcp(f);
}

static void ipip_inner_frag(struct frame *f)
{
	eth(f, STEER_AF_INET6);
	outer_ip(f, STEER_AF_INET6, IPPROTO_IPIP);
	inner_v4_frag(f);
}

/* VXLAN */
static void vxlan_v4(struct frame *f)
{
	frame_tunnel(f, STEER_ENCAP_VXLAN, STEER_AF_INET, STEER_AF_INET, NULL,
		     NULL);
	inner_v4_udp(f);
}

static void vxlan6_v6(struct frame *f)
{
	frame_tunnel(f, STEER_ENCAP_VXLAN, STEER_AF_INET6, STEER_AF_INET6,
		     NULL, NULL);
	inner_v6_tcp(f);
}

/* VLAN tags outside (802.1Q) and inside (QinQ). */
static void vxlan_tags(struct frame *f)
{
	frame_eth(f, ETH_P_IP);
	frame_vlan(f, ETH_P_8021Q, 10);
	outer_ip(f, STEER_AF_INET, IPPROTO_UDP);
	frame_udp(f, FRAME_TUNNEL_SPORT, 4789);
	frame_vxlan(f, 0x08, 5000);
	frame_eth(f, ETH_P_IP);
	frame_vlan(f, ETH_P_8021AD, 20);
	frame_vlan(f, ETH_P_8021Q, 30);
	inner_v4_udp(f);
}

static void vxlan_8472(struct frame *f)
{
	frame_tunnel_port(f, STEER_ENCAP_VXLAN, STEER_AF_INET, STEER_AF_INET,
			  NULL, NULL, 8472);
	inner_v4_udp(f);
}

/* 4608 shares 4789's bit in decap_port_bits: compared, not VXLAN. */
static void vxlan_bit_neighbour(struct frame *f)
{
	frame_tunnel_port(f, STEER_ENCAP_VXLAN, STEER_AF_INET, STEER_AF_INET,
			  NULL, NULL, 4608);
	inner_v4_udp(f);
}

/* ICMP inside: no port of the outer UDP header may survive. */
static void vxlan_icmp(struct frame *f)
{
	frame_tunnel(f, STEER_ENCAP_VXLAN, STEER_AF_INET6, STEER_AF_INET, NULL,
		     NULL);
	inner_v4_icmp(f);
}

/* ARP inside: not looked into, the outer flow is hashed. */
static void vxlan_arp(struct frame *f)
{
	eth(f, STEER_AF_INET);
	outer_ip(f, STEER_AF_INET, IPPROTO_UDP);
	frame_udp(f, FRAME_TUNNEL_SPORT, 4789);
	frame_vxlan(f, 0x08, 5000);
	frame_eth(f, ETH_P_ARP);
	frame_arp(f, 1, IN4_SRC, IN4_DST);
}

static void vxlan_no_i(struct frame *f)
{
	eth(f, STEER_AF_INET);
	outer_ip(f, STEER_AF_INET, IPPROTO_UDP);
	frame_udp(f, FRAME_TUNNEL_SPORT, 4789);
	frame_vxlan(f, 0x00, 5000);
	frame_eth(f, ETH_P_IP);
	inner_v4_udp(f);
}

/* 10 bytes where the inner Ethernet header's 14 should be. */
static void vxlan_short(struct frame *f)
{
	eth(f, STEER_AF_INET);
	outer_ip(f, STEER_AF_INET, IPPROTO_UDP);
	frame_udp(f, FRAME_TUNNEL_SPORT, 4789);
	frame_vxlan(f, 0x08, 5000);
	frame_payload_fill(f, 10, 0x30);
}

/* Geneve */
static void geneve_opts(struct frame *f)
{
	eth(f, STEER_AF_INET);
	outer_ip(f, STEER_AF_INET, IPPROTO_UDP);
	frame_udp(f, FRAME_TUNNEL_SPORT, 6081);
	frame_geneve(f, 0, 24, ETH_P_TEB);
	frame_eth(f, ETH_P_IPV6);
	inner_v6_tcp(f);
}

/* The most options Geneve carries (63 words) and IPv4 straight inside. */
static void geneve6_max_ip(struct frame *f)
{
	eth(f, STEER_AF_INET6);
	outer_ip(f, STEER_AF_INET6, IPPROTO_UDP);
	frame_udp(f, FRAME_TUNNEL_SPORT, 6081);
	frame_geneve(f, 0, 252, ETH_P_IP);
	inner_v4_udp(f);
}

static void geneve_v1(struct frame *f)
{
	eth(f, STEER_AF_INET);
	outer_ip(f, STEER_AF_INET, IPPROTO_UDP);
	frame_udp(f, FRAME_TUNNEL_SPORT, 6081);
	frame_geneve(f, 1, 0, ETH_P_TEB);
	frame_eth(f, ETH_P_IP);
	inner_v4_udp(f);
}

/* GTP-U */
static void gtpu(struct frame *f, int outer, const struct frame_gtpu *g,
		 int family)
{
	eth(f, outer);
	outer_ip(f, outer, IPPROTO_UDP);
	frame_udp(f, 2152, 2152);
	frame_gtpu(f, g);
	inner(f, family);
}

static void gtpu_plain(struct frame *f)
{
	gtpu(f, STEER_AF_INET, &(struct frame_gtpu){ .teid = 1 },
	     STEER_AF_INET);
}

static void gtpu_seq_v6(struct frame *f)
{
	gtpu(f, STEER_AF_INET, &(struct frame_gtpu){ .teid = 2, .seq = true },
	     STEER_AF_INET6);
}

static void gtpu6_ext(struct frame *f)
{
	gtpu(f, STEER_AF_INET6, &(struct frame_gtpu){ .teid = 3, .nexts = 1 },
	     STEER_AF_INET);
}

static void gtpu_ext_at_limit(struct frame *f)
{
	gtpu(f, STEER_AF_INET, &(struct frame_gtpu){ .teid = 4,
	     .nexts = STEER_GTPU_EXT_MAX, .ext_units = 2 }, STEER_AF_INET);
}

static void gtpu_ext_past_limit(struct frame *f)
{
	gtpu(f, STEER_AF_INET, &(struct frame_gtpu){ .teid = 5,
	     .nexts = STEER_GTPU_EXT_MAX + 1 }, STEER_AF_INET);
}

static void gtpu_ext_len0(struct frame *f)
{
	gtpu(f, STEER_AF_INET, &(struct frame_gtpu){ .teid = 6, .nexts = 1,
	     .ext_len_zero = true }, STEER_AF_INET);
}

/* Version 2 (GTPv2-C, a control message on the user plane's port). */
static void gtpu_v2(struct frame *f)
{
	gtpu(f, STEER_AF_INET, &(struct frame_gtpu){ .flags = 0x48,
	     .teid = 7 }, STEER_AF_INET);
}

/* An echo request: no user packet inside. */
static void gtpu_echo(struct frame *f)
{
	eth(f, STEER_AF_INET);
	outer_ip(f, STEER_AF_INET, IPPROTO_UDP);
	frame_udp(f, 2152, 2152);
	frame_gtpu(f, &(struct frame_gtpu){ .type = 1, .seq = true });
}

/* ESP: the SPI is the flow's ports. */
static void esp4(struct frame *f)
{
	eth(f, STEER_AF_INET);
	outer_ip(f, STEER_AF_INET, IPPROTO_ESP);
	frame_esp(f, 0xc0ffee01, 48);
}

static void esp4_qinq(struct frame *f)
{
	eth(f, STEER_AF_INET);
	frame_vlan(f, ETH_P_8021AD, 20);
	frame_vlan(f, ETH_P_8021Q, 30);
	outer_ip(f, STEER_AF_INET, IPPROTO_ESP);
	frame_esp(f, 0xc0ffee02, 48);
}

static void esp6(struct frame *f)
{
	eth(f, STEER_AF_INET6);
	outer_ip(f, STEER_AF_INET6, IPPROTO_ESP);
	frame_esp(f, 0x00001234, 64);
}

/* ---- the table ----------------------------------------------------------- */

#define AT_R AT_REMOTE

static const struct prog_case cases[] = {
	/* PPPoE */
	{ "PPPoE session, IPv4 inside: the inner flow's CPU",
	  pppoe_v4, policy_decap, TUNNEL(PPPOE, AT_R, 0) },
	{ "PPPoE session, IPv6 inside: the inner flow's CPU",
	  pppoe_v6, policy_decap, TUNNEL(PPPOE, AT_R, 0) },
	{ "PPPoE under two VLAN tags (QinQ)",
	  pppoe_qinq_v4, policy_decap, TUNNEL(PPPOE, AT_R, 0) },
	{ "PPPoE session carrying LCP is non-IP, counted as PPPoE",
	  pppoe_lcp, policy_decap, TUNNEL_PASS(PPPOE, passed_nonip, 0) },
	{ "PPPoE with an invalid PPP protocol (0x0022) is malformed, passed",
	  pppoe_bad_ppp, policy_decap, MALFORMED(PPPOE) },
	{ "PPPoE carrying a valid PPP protocol that is not IP (0x00fd) is non-IP, counted as PPPoE",
	  pppoe_ccp_data, policy_decap, TUNNEL_PASS(PPPOE, passed_nonip, 0) },
	{ "PPPoE of version 2 is malformed, passed",
	  pppoe_version2, policy_decap, MALFORMED(PPPOE) },
	{ "a PPPoE session frame with a discovery code is malformed, passed",
	  pppoe_code_padt, policy_decap, MALFORMED(PPPOE) },
	{ "a PPPoE length shorter than the inner datagram is malformed",
	  pppoe_len_short, policy_decap, MALFORMED(PPPOE) },
	{ "PPPoE discovery (0x8863) is non-IP, not counted as PPPoE",
	  pppoe_discovery, policy_decap, PASS(passed_nonip, 0) },
	{ "PPPoE not looked through is non-IP, as before",
	  pppoe_v4, policy_no_decap, PASS(passed_nonip, 0) },
	/* MPLS */
	{ "MPLS, one label, IPv4 inside",
	  mpls1_v4, policy_decap, TUNNEL(MPLS, AT_R, 0) },
	{ "MPLS, two labels, IPv6 inside",
	  mpls2_v6, policy_decap, TUNNEL(MPLS, AT_R, 0) },
	{ "MPLS, STEER_MPLS_LABELS_MAX labels",
	  mpls_at_limit, policy_decap, TUNNEL(MPLS, AT_R, 0) },
	{ "MPLS, a stack longer than STEER_MPLS_LABELS_MAX is malformed",
	  mpls_past_limit, policy_decap, MALFORMED(MPLS) },
	{ "MPLS with an entropy label, under a VLAN tag: the inner flow",
	  mpls_entropy, policy_decap, TUNNEL(MPLS, AT_R, 0) },
	{ "MPLS carrying a pseudowire (not IP) is non-IP, counted as MPLS",
	  mpls_pw, policy_decap, TUNNEL_PASS(MPLS, passed_nonip, 0) },
	/* GRE (every flag combination over IPv4 and IPv6, each payload:
	 * test_matrix; every refused bit: test_gre_refused) */
	{ "GRE under a VLAN tag, ICMP inside (addresses and protocol)",
	  gre_q_v4, policy_decap, TUNNEL(GRE, AT_R, 0) },
	{ "GRE carrying Ethernet (0x6558) with a VLAN tag inside",
	  gre_teb, policy_decap, TUNNEL(GRE, AT_R, 0) },
	{ "GRE carrying neither IP nor Ethernet keeps the outer flow",
	  gre_other, policy_decap, TUNNEL(GRE, AT_R, 0) },
	{ "an inner IPv4 datagram longer than the outer one is malformed: the outer flow",
	  gre_inner_too_long, policy_decap_outer, MALFORMED_STEERED(GRE, AT_R) },
	{ "an inner fragment hashes on the inner addresses, counted both ways",
	  gre_inner_frag, policy_decap, TUNNEL(GRE, AT_R, ALSO_FRAG) },
	{ "an outer IPv4 fragment's first piece hashes on the outer addresses",
	  gre_outer_frag_first, policy_decap, REDIRECT(AT_R, ALSO_FRAG) },
	{ "an outer IPv4 fragment's later piece hashes on the outer addresses",
	  gre_outer_frag_last, policy_decap, REDIRECT(AT_R, ALSO_FRAG) },
	{ "an outer IPv6 fragment's first piece hashes on the outer addresses",
	  gre6_outer_frag_first, policy_decap, REDIRECT(AT_R, ALSO_FRAG) },
	{ "GRE not looked through hashes on the outer addresses",
	  gre4_k, policy_no_decap, REDIRECT(AT_R, 0) },
	{ "decap: [gre] looks through GRE",
	  gre6_ks, policy_gre_only, TUNNEL(GRE, AT_R, 0) },
	{ "a rule matches the inner flow of a GRE frame",
	  gre4_cs, policy_inner_rule, TUNNEL(GRE, AT_R, ALSO_FLOW_HIT) },
	{ "an L3 key hashes on the inner addresses",
	  gre6_cks, policy_decap_l3, TUNNEL(GRE, AT_R, 0) },
	/* IP-in-IP */
	{ "IPv4 in IPv4 (protocol 4)",
	  ipip_4in4, policy_decap, TUNNEL(IPIP, AT_R, 0) },
	{ "IPv6 in IPv4 (protocol 41, 6in4)",
	  ipip_6in4, policy_decap, TUNNEL(IPIP, AT_R, 0) },
	{ "IPv4 in IPv6 (protocol 4)",
	  ipip_4in6, policy_decap, TUNNEL(IPIP, AT_R, 0) },
	{ "IPv6 in IPv6 (protocol 41)",
	  ipip_6in6, policy_decap, TUNNEL(IPIP, AT_R, 0) },
	{ "IPv6 in IPv6 behind the outer header's extension headers",
	  ipip_6in6_ext, policy_decap, TUNNEL(IPIP, AT_R, 0) },
	{ "IPv4 in IPv6, the inner datagram fragmented",
	  ipip_inner_frag, policy_decap, TUNNEL(IPIP, AT_R, ALSO_FRAG) },
	{ "IP-in-IP not looked through hashes on the outer addresses",
	  ipip_6in4, policy_no_decap, REDIRECT(AT_R, 0) },
	/* VXLAN */
	{ "VXLAN over IPv4, IPv4 inside",
	  vxlan_v4, policy_decap, TUNNEL(VXLAN, AT_R, 0) },
	{ "VXLAN over IPv6, IPv6 inside",
	  vxlan6_v6, policy_decap, TUNNEL(VXLAN, AT_R, 0) },
	{ "VXLAN with a VLAN tag outside and two inside",
	  vxlan_tags, policy_decap, TUNNEL(VXLAN, AT_R, 0) },
	{ "VXLAN over IPv6, ICMP inside: no outer port or address word left",
	  vxlan_icmp, policy_decap, TUNNEL(VXLAN, AT_R, 0) },
	{ "a rule matches an IPv4 inner flow of an IPv6 tunnel, word for word",
	  gre6_c, policy_inner_rule, TUNNEL(GRE, AT_R, ALSO_FLOW_HIT) },
	{ "VXLAN carrying ARP keeps the outer flow",
	  vxlan_arp, policy_decap, TUNNEL(VXLAN, AT_R, 0) },
	{ "VXLAN without the I flag is malformed: the outer flow, ports and all",
	  vxlan_no_i, policy_decap_outer, MALFORMED_STEERED(VXLAN, AT_R) },
	{ "VXLAN too short for its inner Ethernet header is malformed: the outer flow",
	  vxlan_short, policy_decap_outer, MALFORMED_STEERED(VXLAN, AT_R) },
	{ "VXLAN on port 8472 is plain UDP to the default ports",
	  vxlan_8472, policy_decap, REDIRECT(AT_R, 0) },
	{ "VXLAN on port 8472 with decap [{vxlan: 8472}]",
	  vxlan_8472, policy_vxlan_8472, TUNNEL(VXLAN, AT_R, 0) },
	{ "VXLAN's port 4789 with decap [{vxlan: 8472}] is plain UDP",
	  vxlan_v4, policy_vxlan_8472, REDIRECT(AT_R, 0) },
	{ "a UDP port sharing 4789's filter bit is plain UDP",
	  vxlan_bit_neighbour, policy_decap, REDIRECT(AT_R, 0) },
	/* Geneve */
	{ "Geneve with 24 bytes of options, Ethernet inside",
	  geneve_opts, policy_decap, TUNNEL(GENEVE, AT_R, 0) },
	{ "Geneve over IPv6 with 252 bytes of options, IPv4 inside",
	  geneve6_max_ip, policy_decap, TUNNEL(GENEVE, AT_R, 0) },
	{ "Geneve version 1 is malformed: the outer flow",
	  geneve_v1, policy_decap_outer, MALFORMED_STEERED(GENEVE, AT_R) },
	/* GTP-U */
	{ "GTP-U, no optional fields",
	  gtpu_plain, policy_decap, TUNNEL(GTPU, AT_R, 0) },
	{ "GTP-U with a sequence number, IPv6 inside",
	  gtpu_seq_v6, policy_decap, TUNNEL(GTPU, AT_R, 0) },
	{ "GTP-U over IPv6 with a PDU session container",
	  gtpu6_ext, policy_decap, TUNNEL(GTPU, AT_R, 0) },
	{ "GTP-U with STEER_GTPU_EXT_MAX extension headers",
	  gtpu_ext_at_limit, policy_decap, TUNNEL(GTPU, AT_R, 0) },
	{ "GTP-U with more extension headers than the bound is malformed: the outer flow",
	  gtpu_ext_past_limit, policy_decap_outer, MALFORMED_STEERED(GTPU, AT_R) },
	{ "GTP-U with an extension header of length 0 is malformed: the outer flow",
	  gtpu_ext_len0, policy_decap_outer, MALFORMED_STEERED(GTPU, AT_R) },
	{ "GTP version 2 on GTP-U's port is malformed: the outer flow",
	  gtpu_v2, policy_decap_outer, MALFORMED_STEERED(GTPU, AT_R) },
	{ "a GTP-U echo request keeps the outer flow",
	  gtpu_echo, policy_decap, TUNNEL(GTPU, AT_R, 0) },
	/* ESP */
	{ "ESP over IPv4: the SPI is hashed as the ports",
	  esp4, policy_decap, TUNNEL(ESP, AT_R, 0) },
	{ "ESP over IPv6: the SPI is hashed as the ports",
	  esp6, policy_decap, TUNNEL(ESP, AT_R, 0) },
	{ "ESP under two VLAN tags: the SPI is hashed as the ports",
	  esp4_qinq, policy_decap, TUNNEL(ESP, AT_R, 0) },
	{ "ESP not looked through hashes on addresses and protocol",
	  esp4, policy_no_decap, REDIRECT(AT_R, 0) },
};

/* ---- properties over many frames --------------------------------------- */

/* Frames of every encapsulation that are looked through to an inner flow
 * with ports, for the cuts. */
static void (*const whole[])(struct frame *f) = {
	pppoe_v4, pppoe_qinq_v4, mpls2_v6, mpls_entropy, gre4_cks, gre6_ks,
	gre_teb, ipip_6in4, ipip_4in6, ipip_6in6_ext, vxlan_v4, vxlan6_v6,
	vxlan_tags, geneve_opts, geneve6_max_ip, gtpu_seq_v6, gtpu6_ext,
	gtpu_ext_at_limit, esp4, esp6,
};

static bool l2_tunnel(int encap)
{
	return encap == STEER_ENCAP_PPPOE || encap == STEER_ENCAP_MPLS;
}

/* Cut at every byte, lengths as built: a parse error every time; a
 * malformed one of its encapsulation once the parser met it (PPPoE and
 * MPLS: from their ethertype on; under IP the outer length says the frame
 * was cut before the tunnel is reached). */
static void test_cut_every_byte(void)
{
	struct frame f, cut;
	char label[96];
	size_t i, len;

	if (!ready())
		return;
	for (i = 0; i < ARRAY_SIZE(whole); i++) {
		if (!build_frame(&f, whole[i]) ||
		    !EXPECT_EQ(policy_decap(&f), 0, "the policy was written"))
			return;
		for (len = 14; len < f.len; len++) {
			struct expect e = PASS(passed_parse_error, 0);

			if (l2_tunnel(f.encap) && (int)len >= f.encap_seen) {
				e.encap = f.encap;
				e.also = ALSO_MALFORMED;
			}
			cut = f;
			cut.len = len;
			snprintf(label, sizeof(label), "cut to %zu bytes", len);
			if (!expect_run(&cut, &e, label))
				return;
		}
	}
}

/* The shortest frame, lengths fixed to it, the parser steers: every
 * header it reads, the inner ports included. */
static size_t needed(const struct frame *f)
{
	struct steer_flow flow;

	frame_flow(f, &flow);
	return (size_t)f->l4_off + (flow.sport || flow.dport ? 4 : 0);
}

/* Cut at every header boundary with every length fixed up to the cut:
 * a parse error until an IP header is whole; then steered by what was
 * read (frame_flow_cut(): the outer flow while the inner IP header is
 * cut, the inner one's addresses after it), counted malformed once the
 * parser met the encapsulation; the inner flow's CPU once every header is
 * whole. Each cut gets its policy (every encapsulation looked through,
 * only the bucket of what should be read at a present CPU). */
static bool cuts_at_boundaries(const struct frame *f, const char *name)
{
	size_t need = needed(f);
	struct steer_flow flow;
	struct steer_slot s;
	struct frame cut;
	char label[200];
	bool inner;
	int b, err;

	for (b = 1; b <= f->nbounds; b++) {
		size_t len = b < f->nbounds ? (size_t)f->bounds[b] : f->len;
		struct expect e = PASS(passed_parse_error, 0);
		bool met = (int)len >= f->encap_seen &&
			   f->encap != STEER_ENCAP_ESP;

		if (len < 14)
			continue;
		decap_slot(&s, STEER_F_HASH_L4);
		if (len >= need) {
			e = (struct expect)TUNNEL(NONE, AT_R, 0);
			e.encap = f->encap;
			err = bucket_only(f, &s);
		} else if (frame_flow_cut(f, len, &flow, &inner) < 0) {
			/* PPPoE's and MPLS's: malformed once met (behind an
			 * outer IPv6 header of payload length 0, a jumbogram,
			 * no tunnel is met). */
			if (met && l2_tunnel(f->encap)) {
				e.encap = f->encap;
				e.also = ALSO_MALFORMED;
			}
			err = 0;
		} else {
			e = (struct expect)PARTIAL(AT_R);
			if (met) {
				e.encap = f->encap;
				e.also |= ALSO_MALFORMED;
			}
			err = bucket_of_flow(&flow, &s);
		}
		if (!EXPECT_EQ(err, 0, "the policy was written"))
			return false;
		cut = *f;
		cut.len = len;
		cut.finished = false;
		frame_finish(&cut);
		snprintf(label, sizeof(label),
			 "%.96s, cut to %zu bytes at a header boundary, lengths fixed",
			 name, len);
		if (!expect_run(&cut, &e, label))
			return false;
	}
	return true;
}

static void test_cut_at_boundaries(void)
{
	struct frame f;
	size_t i;

	if (!ready())
		return;
	for (i = 0; i < ARRAY_SIZE(whole); i++) {
		if (!build_frame(&f, whole[i]) ||
		    !EXPECT_EQ(policy_decap(&f), 0, "the policy was written") ||
		    !cuts_at_boundaries(&f, "a frame of every encapsulation"))
			return;
	}
}

/* ---- every combination ------------------------------------------------- */

/* What a tunnel of the matrix carries: IP straight inside, or Ethernet
 * (then tags of its own) with IP inside that. */
enum { IN_IP4, IN_IP6, IN_ETH4, IN_ETH6, N_INNER };
#define CARRIES_IP	(1u << IN_IP4 | 1u << IN_IP6)
#define CARRIES_ETH	(1u << IN_ETH4 | 1u << IN_ETH6)
#define GTPU_SEQ	0x100	/* shape.arg: a sequence number too */

/* A tunnel's own header, built between the outer headers and the inner
 * frame; 'arg' by encapsulation: GRE's flags, MPLS's labels, Geneve's
 * option bytes, GTP-U's extension headers (| GTPU_SEQ). */
struct shape {
	const char *name;
	int encap;
	unsigned int carries;
	unsigned int arg;
};

static const struct shape shapes[] = {
	{ "PPPoE", STEER_ENCAP_PPPOE, CARRIES_IP, 0 },
	{ "MPLS, 1 label", STEER_ENCAP_MPLS, CARRIES_IP, 1 },
	{ "MPLS, STEER_MPLS_LABELS_MAX labels", STEER_ENCAP_MPLS, CARRIES_IP,
	  STEER_MPLS_LABELS_MAX },
	{ "GRE", STEER_ENCAP_GRE, CARRIES_IP | CARRIES_ETH, 0 },
	{ "GRE, checksum", STEER_ENCAP_GRE, CARRIES_IP | CARRIES_ETH, STEER_GRE_C },
	{ "GRE, key", STEER_ENCAP_GRE, CARRIES_IP | CARRIES_ETH, STEER_GRE_K },
	{ "GRE, sequence", STEER_ENCAP_GRE, CARRIES_IP | CARRIES_ETH, STEER_GRE_S },
	{ "GRE, checksum and key", STEER_ENCAP_GRE, CARRIES_IP | CARRIES_ETH,
	  STEER_GRE_C | STEER_GRE_K },
	{ "GRE, checksum and sequence", STEER_ENCAP_GRE,
	  CARRIES_IP | CARRIES_ETH, STEER_GRE_C | STEER_GRE_S },
	{ "GRE, key and sequence", STEER_ENCAP_GRE, CARRIES_IP | CARRIES_ETH,
	  STEER_GRE_K | STEER_GRE_S },
	{ "GRE, checksum, key and sequence", STEER_ENCAP_GRE,
	  CARRIES_IP | CARRIES_ETH, STEER_GRE_C | STEER_GRE_K | STEER_GRE_S },
	{ "IP-in-IP", STEER_ENCAP_IPIP, CARRIES_IP, 0 },
	{ "VXLAN", STEER_ENCAP_VXLAN, CARRIES_ETH, 0 },
	{ "Geneve", STEER_ENCAP_GENEVE, CARRIES_IP | CARRIES_ETH, 0 },
	{ "Geneve, 8 bytes of options", STEER_ENCAP_GENEVE,
	  CARRIES_IP | CARRIES_ETH, 8 },
	{ "GTP-U", STEER_ENCAP_GTPU, CARRIES_IP, 0 },
	{ "GTP-U, sequence number", STEER_ENCAP_GTPU, CARRIES_IP, GTPU_SEQ },
	{ "GTP-U, 2 extension headers", STEER_ENCAP_GTPU, CARRIES_IP, 2 },
	{ "GTP-U, sequence number and STEER_GTPU_EXT_MAX extension headers",
	  STEER_ENCAP_GTPU, CARRIES_IP, GTPU_SEQ | STEER_GTPU_EXT_MAX },
};

/* No tags, one 802.1Q, or 802.1ad and 802.1Q (QinQ), after the Ethernet
 * header just pushed. */
static void tags(struct frame *f, int n)
{
	if (n == 2)
		frame_vlan(f, ETH_P_8021AD, 20);
	if (n)
		frame_vlan(f, ETH_P_8021Q, 30);
}

/* A datagram whole, or the first or a later piece of it. */
enum { WHOLE, FIRST_PIECE, LATER_PIECE };

static int family_of(int in)
{
	return in == IN_IP6 || in == IN_ETH6 ? STEER_AF_INET6 : STEER_AF_INET;
}

/* The outer headers of a matrix frame: Ethernet and 'otags' tags, then
 * PPPoE's or MPLS's header, or an IP header of family 'outer' naming the
 * tunnel ('piece' of a fragmented datagram or WHOLE), for a tunnel that
 * carries 'in'. */
static void push_outer(struct frame *f, const struct shape *sh, int outer,
		       int in, int otags, int piece)
{
	bool v6 = family_of(in) == STEER_AF_INET6;
	__u8 proto = IPPROTO_UDP;
	unsigned int i;

	switch (sh->encap) {
	case STEER_ENCAP_PPPOE:
		frame_eth(f, ETH_P_PPP_SES);
		tags(f, otags);
		frame_pppoe(f, v6 ? 0x0057 : 0x0021);
		return;
	case STEER_ENCAP_MPLS:
		frame_eth(f, ETH_P_MPLS_UC);
		tags(f, otags);
		for (i = 0; i < sh->arg; i++)
			frame_mpls(f, 100 + i, i + 1 == sh->arg);
		return;
	case STEER_ENCAP_GRE:
		proto = IPPROTO_GRE;
		break;
	case STEER_ENCAP_IPIP:
		proto = v6 ? IPPROTO_IPV6 : IPPROTO_IPIP;
		break;
	}
	eth(f, outer);
	tags(f, otags);
	if (outer == STEER_AF_INET6) {
		frame_ipv6(f, &(struct frame_ip6){ .src = FRAME_OUTER6_SRC,
			   .dst = FRAME_OUTER6_DST,
			   .nexthdr = piece ? IPPROTO_FRAGMENT : proto });
		if (piece)
			frame_ipv6_frag(f, proto, piece == LATER_PIECE ? 8 : 0,
					piece == FIRST_PIECE);
	} else {
		frame_ipv4(f, &(struct frame_ip4){ .src = FRAME_OUTER4_SRC,
			   .dst = FRAME_OUTER4_DST, .proto = proto,
			   .more_frags = piece == FIRST_PIECE,
			   .frag_offset = piece == LATER_PIECE ? 8 : 0 });
	}
}

/* The tunnel's own header, and an inner Ethernet header with 'itags'
 * tags where it carries Ethernet ('in'). */
static void push_tunnel(struct frame *f, const struct shape *sh, int in,
			int itags)
{
	__u16 ip_type = family_of(in) == STEER_AF_INET6 ? ETH_P_IPV6 :
							   ETH_P_IP;
	__u16 type = in >= IN_ETH4 ? ETH_P_TEB : ip_type;

	switch (sh->encap) {
	case STEER_ENCAP_GRE:
		frame_gre(f, sh->arg, type);
		break;
	case STEER_ENCAP_VXLAN:
		frame_udp(f, FRAME_TUNNEL_SPORT, 4789);
		frame_vxlan(f, 0x08, 5000);
		break;
	case STEER_ENCAP_GENEVE:
		frame_udp(f, FRAME_TUNNEL_SPORT, 6081);
		frame_geneve(f, 0, sh->arg, type);
		break;
	case STEER_ENCAP_GTPU:
		frame_udp(f, 2152, 2152);
		frame_gtpu(f, &(struct frame_gtpu){ .teid = 9,
			   .seq = sh->arg & GTPU_SEQ,
			   .nexts = sh->arg & 0xff });
		break;
	}
	if (in >= IN_ETH4) {
		frame_eth(f, ip_type);
		tags(f, itags);
	}
}

/* The inner datagram: inner()'s whole, or a piece of a fragmented UDP
 * one (its ports in the first piece only). */
static void inner_piece(struct frame *f, int family, int piece)
{
	if (piece == WHOLE) {
		inner(f, family);
		return;
	}
	if (family == STEER_AF_INET6) {
		frame_ipv6(f, &(struct frame_ip6){ .src = IN6_SRC,
			   .dst = IN6_DST, .nexthdr = IPPROTO_FRAGMENT });
		frame_ipv6_frag(f, IPPROTO_UDP, piece == LATER_PIECE ? 8 : 0,
				piece == FIRST_PIECE);
	} else {
		frame_ipv4(f, &(struct frame_ip4){ .src = IN4_SRC,
			   .dst = IN4_DST, .proto = IPPROTO_UDP,
			   .more_frags = piece == FIRST_PIECE,
			   .frag_offset = piece == LATER_PIECE ? 8 : 0 });
	}
	if (piece == FIRST_PIECE)
		frame_udp(f, SPORT, 53);
	frame_payload_fill(f, 32, 0);
}

/* One frame of the matrix: the outer headers with 'otags' tags, the
 * tunnel's header, and what it carries, 'in' (IN_*), with 'itags' tags on
 * an inner Ethernet header. */
static void build_combo(struct frame *f, const struct shape *sh, int outer,
			int in, int otags, int itags)
{
	frame_init(f);
	push_outer(f, sh, outer, in, otags, WHOLE);
	push_tunnel(f, sh, in, itags);
	inner_piece(f, family_of(in), WHOLE);
}

/* Every encapsulation in every form the matrix knows (each GRE flag
 * combination, MPLS and GTP-U at their bounds, Geneve with and without
 * options), over IPv4 and IPv6 (PPPoE and MPLS over none), carrying IPv4,
 * IPv6 and, where it can, Ethernet; with no VLAN tag, one or two outside,
 * and as many inside an inner Ethernet header: steered by the inner flow
 * (only its bucket leads to a present CPU), counted under the
 * encapsulation, and cut at every header boundary. */
static void test_matrix(void)
{
	static const char *const inner_name[N_INNER] = {
		"IPv4", "IPv6", "Ethernet and IPv4", "Ethernet and IPv6",
	};
	int o, outer, in, otags, itags, n = 0;
	struct steer_slot s;
	char name[192];
	struct frame f;
	size_t k;

	if (!ready())
		return;
	for (k = 0; k < ARRAY_SIZE(shapes); k++) {
		const struct shape *sh = &shapes[k];
		bool l2 = l2_tunnel(sh->encap);

		for (o = 0; o < (l2 ? 1 : 2); o++)
		for (in = 0; in < N_INNER; in++)
		for (otags = 0; otags <= 2; otags++)
		for (itags = 0; itags <= (in >= IN_ETH4 ? 2 : 0); itags++) {
			struct expect e = TUNNEL(NONE, AT_R, 0);

			if (!(sh->carries & 1u << in))
				continue;
			outer = l2 ? 0 : o ? STEER_AF_INET6 : STEER_AF_INET;
			snprintf(name, sizeof(name),
				 "%s over %s, %s inside, %d tag(s) outside, %d inside",
				 sh->name, l2 ? "Ethernet" :
				 outer == STEER_AF_INET ? "IPv4" : "IPv6",
				 inner_name[in], otags, itags);
			build_combo(&f, sh, outer, in, otags, itags);
			decap_slot(&s, STEER_F_HASH_L4);
			e.encap = sh->encap;
			if (!EXPECT_EQ(frame_finish(&f), 0, "the frame was built") ||
			    !EXPECT_EQ(bucket_only(&f, &s), 0,
				       "the policy was written") ||
			    !expect_run(&f, &e, name) ||
			    !cuts_at_boundaries(&f, name))
				return;
			n++;
		}
	}
	printf("  %d frames, each whole and cut at every header boundary\n", n);
}

/* Many inner flows behind one outer pair of endpoints: under every
 * encapsulation each lands where its inner flow hashes, and together
 * they spread over the table, where the outer flow alone puts them all
 * in one bucket. */
static void test_inner_flows_spread(void)
{
	static const int kinds[] = {
		STEER_ENCAP_PPPOE, STEER_ENCAP_MPLS, STEER_ENCAP_GRE,
		STEER_ENCAP_IPIP, STEER_ENCAP_VXLAN, STEER_ENCAP_GENEVE,
		STEER_ENCAP_GTPU,
	};
	__u32 table[TABLE_SIZE], b;
	struct steer_slot s;
	struct frame f;
	size_t k;
	int i;

	if (!ready())
		return;
	decap_slot(&s, STEER_F_HASH_L4);
	for (b = 0; b < TABLE_SIZE; b++)
		table[b] = (b & 1) ? remote_cpu : local_cpu;
	if (!EXPECT_EQ(steer_prog_write_table(&prog, 0, table, TABLE_SIZE) ||
		       commit(&s), 0, "the policy was written"))
		return;
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		__u32 buckets[2] = { 0, 0 };

		for (i = 0; i < 64; i++) {
			struct expect e = TUNNEL(NONE, 0, 0);
			__u32 bucket;

			frame_init(&f);
			frame_tunnel(&f, kinds[k], STEER_AF_INET, STEER_AF_INET,
				     NULL, NULL);
			frame_ipv4(&f, &(struct frame_ip4){ .src = IN4_SRC,
				   .dst = IN4_DST, .proto = IPPROTO_UDP });
			frame_udp(&f, 20000 + i, 53);
			if (!EXPECT_EQ(frame_finish(&f), 0, "the frame was built"))
				return;
			bucket = steer_table_index(frame_hash(&f, &s), TABLE_SIZE);
			buckets[bucket & 1]++;
			e.encap = kinds[k];
			e.cpu = (int)table[bucket];
			if (!expect_run(&f, &e, "an inner flow"))
				return;
		}
		EXPECT(buckets[0] > 8 && buckets[1] > 8,
		       "64 inner flows of one tunnel reach both CPUs");
	}
}

/* Different SPIs between the same two hosts are different flows. */
static void test_esp_spis_spread(void)
{
	struct steer_slot s;
	struct frame f;
	__u32 first = 0, spi;
	int apart = 0;

	if (!ready())
		return;
	decap_slot(&s, STEER_F_HASH_L4);
	for (spi = 1; spi <= 32; spi++) {
		frame_init(&f);
		eth(&f, STEER_AF_INET);
		outer_ip(&f, STEER_AF_INET, IPPROTO_ESP);
		frame_esp(&f, spi, 16);
		frame_finish(&f);
		if (spi == 1)
			first = steer_table_index(frame_hash(&f, &s), TABLE_SIZE);
		else
			apart += steer_table_index(frame_hash(&f, &s),
						   TABLE_SIZE) != first;
	}
	EXPECT(apart > 24, "SPIs between one pair of hosts spread over buckets");
	if (!EXPECT_EQ(policy_decap(&f), 0, "the policy was written"))
		return;
	expect_run(&f, &(struct expect)TUNNEL(ESP, AT_R, 0), "the last SPI");
}

/* GRE with any bit RFC 2784 receivers refuse, over IPv4 and IPv6: each
 * of RFC 1701's routing, strict source route and recursion bits, the
 * reserved flags and the version's bits (version 1 alone, and as PPTP
 * sends it: key, sequence and acknowledgment) is malformed, steered by
 * the outer flow. */
static void test_gre_refused(void)
{
	static const struct shape gre_shape = { "GRE", STEER_ENCAP_GRE,
						CARRIES_IP, 0 };
	struct expect e = MALFORMED_STEERED(GRE, AT_R);
	__u16 flags[17], bit;
	char label[64];
	struct frame f;
	int i, n = 0, o;

	if (!ready())
		return;
	for (bit = 0x8000; bit; bit >>= 1)
		if (bit & 0x4fff)
			flags[n++] = bit;
	flags[n++] = 0x3081;
	for (i = 0; i < n; i++) {
		for (o = 0; o < 2; o++) {
			frame_init(&f);
			push_outer(&f, &gre_shape,
				   o ? STEER_AF_INET6 : STEER_AF_INET, IN_IP4,
				   0, WHOLE);
			frame_gre(&f, flags[i], ETH_P_IP);
			inner(&f, STEER_AF_INET);
			snprintf(label, sizeof(label),
				 "GRE flags 0x%04x over IPv%d", flags[i],
				 o ? 6 : 4);
			if (!EXPECT_EQ(frame_finish(&f), 0, "the frame was built") ||
			    !EXPECT_EQ(policy_decap_outer(&f), 0, "the policy was written") ||
			    !expect_run(&f, &e, label))
				return;
		}
	}
	printf("  %d flag words over IPv4 and IPv6\n", n);
}

/* Builds a first and a later piece with 'build' (false: a failed test),
 * points only the later piece's bucket at a present CPU, and runs both:
 * the first, which carries the ports, must go there too. */
static bool pieces_meet(const struct shape *sh, int outer, int in,
			const struct expect *e, const char *name,
			void (*build)(struct frame *f, const struct shape *sh,
				      int outer, int in, int piece))
{
	struct frame first, later;
	struct steer_slot s;
	char label[192];

	frame_init(&first);
	build(&first, sh, outer, in, FIRST_PIECE);
	frame_init(&later);
	build(&later, sh, outer, in, LATER_PIECE);
	decap_slot(&s, STEER_F_HASH_L4);
	snprintf(label, sizeof(label), "%.140s: the first piece", name);
	if (!EXPECT_EQ(frame_finish(&first) || frame_finish(&later), 0,
		       "the pieces were built") ||
	    !EXPECT_EQ(bucket_only(&later, &s), 0, "the policy was written") ||
	    !expect_run(&first, e, label))
		return false;
	snprintf(label, sizeof(label), "%.140s: a later piece", name);
	return expect_run(&later, e, label);
}

/* A piece of the inner datagram inside a whole tunnel frame. */
static void inner_frag(struct frame *f, const struct shape *sh, int outer,
		       int in, int piece)
{
	push_outer(f, sh, outer, in, 0, WHOLE);
	push_tunnel(f, sh, in, 0);
	inner_piece(f, family_of(in), piece);
}

/* A piece of the outer datagram: the first carries the tunnel's and the
 * inner headers, a later one only bytes. */
static void outer_frag(struct frame *f, const struct shape *sh, int outer,
		       int in, int piece)
{
	push_outer(f, sh, outer, in, 0, piece);
	if (piece == FIRST_PIECE) {
		push_tunnel(f, sh, in, 0);
		inner_piece(f, family_of(in), WHOLE);
	} else {
		frame_payload_fill(f, 40, 0x20);
	}
}

/* Under every encapsulation and outer family, whatever it carries: the
 * pieces of a fragmented inner datagram meet on one CPU (its addresses'),
 * counted under the encapsulation; so do the pieces of a fragmented outer
 * datagram (the outer addresses': a later piece has no tunnel header to
 * look through), counted under none. */
static void test_pieces_meet(void)
{
	struct expect in_tunnel = TUNNEL(NONE, AT_R, ALSO_FRAG),
		      outside = REDIRECT(AT_R, ALSO_FRAG);
	int o, outer, in, n = 0;
	char name[160];
	size_t k;

	if (!ready())
		return;
	for (k = 0; k < ARRAY_SIZE(shapes); k++) {
		const struct shape *sh = &shapes[k];
		bool l2 = l2_tunnel(sh->encap);

		in_tunnel.encap = sh->encap;
		for (o = 0; o < (l2 ? 1 : 2); o++)
		for (in = 0; in < N_INNER; in++) {
			if (!(sh->carries & 1u << in))
				continue;
			outer = l2 ? 0 : o ? STEER_AF_INET6 : STEER_AF_INET;
			snprintf(name, sizeof(name), "%s over %s, IPv%d inside%s",
				 sh->name, l2 ? "Ethernet" :
				 outer == STEER_AF_INET ? "IPv4" : "IPv6",
				 family_of(in), in >= IN_ETH4 ? " Ethernet" : "");
			if (!pieces_meet(sh, outer, in, &in_tunnel, name,
					 inner_frag) ||
			    (!l2 && !pieces_meet(sh, outer, in, &outside, name,
						 outer_frag)))
				return;
			n++;
		}
	}
	printf("  %d tunnels, pieces of inner and of outer datagrams\n", n);
}

const struct test_case encap_tests[] = {
	TEST_ENTRY(test_cut_every_byte,
		   "encapsulated frames cut at every byte are parse errors, malformed once met"),
	TEST_ENTRY(test_cut_at_boundaries,
		   "encapsulated frames cut at every header boundary, lengths fixed: error, malformed, then steered"),
	TEST_ENTRY(test_matrix,
		   "every encapsulation, GRE flag combination, outer and inner family and VLAN tags outside and inside: the inner flow's CPU, whole and cut at every header boundary"),
	TEST_ENTRY(test_inner_flows_spread,
		   "inner flows behind one outer pair spread over the CPUs in every encapsulation"),
	TEST_ENTRY(test_esp_spis_spread,
		   "ESP flows between one pair of hosts spread by SPI"),
	TEST_ENTRY(test_gre_refused,
		   "GRE with a routing, recursion or reserved bit or a version other than 0 is malformed, steered by the outer flow"),
	TEST_ENTRY(test_pieces_meet,
		   "the pieces of a fragmented inner datagram meet on one CPU, and those of an outer one, in every encapsulation"),
};
const size_t n_encap_tests = ARRAY_SIZE(encap_tests);

int run_encap_cases(int argc, char **argv)
{
	return run_case_table(cases, ARRAY_SIZE(cases), argc, argv);
}
