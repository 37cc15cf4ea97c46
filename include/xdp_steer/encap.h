/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdp_steer/encap.h - the encapsulations the parser looks through: one
 * list (STEER_ENCAPS), their ids, names, standard UDP ports and bounds.
 */
#ifndef XDP_STEER_INCLUDE_ENCAP_H
#define XDP_STEER_INCLUDE_ENCAP_H

#include <linux/types.h>

/*
 * Encapsulations the parser looks through to steer by the inner flow, one
 * level deep: X(A, ID, name, udp_port, help), A passed through. ID names
 * STEER_ENCAP_<ID> (1, 2, ...; 0 is none); its bit in steer_slot.decap is
 * STEER_DECAP(STEER_ENCAP_<ID>); udp_port is the standard UDP destination
 * port of one carried in UDP, 0 for the others; help says what its
 * counter (steer_stats.encap_<name>) counts. The policy's 'decap' names
 * them by 'name'.
 */
#define STEER_ENCAPS(X, A)						\
	X(A, PPPOE, pppoe, 0, "PPPoE session frames (ethertype 0x8864) looked into") \
	X(A, MPLS, mpls, 0, "MPLS unicast frames (ethertype 0x8847) looked into") \
	X(A, GRE, gre, 0, "GRE frames (IP protocol 47, version 0) looked into") \
	X(A, IPIP, ipip, 0, "IP-in-IP frames (IP protocol 4 or 41) looked into") \
	X(A, VXLAN, vxlan, 4789, "VXLAN frames looked into")		\
	X(A, GENEVE, geneve, 6081, "Geneve frames looked into")		\
	X(A, GTPU, gtpu, 2152, "GTP-U frames looked into")		\
	X(A, ESP, esp, 0, "ESP frames (IP protocol 50) whose SPI was hashed as their ports")

#define STEER_ENCAP_ENUM_(A, ID, name, port, help) STEER_ENCAP_##ID,
enum steer_encap {
	STEER_ENCAP_NONE,
	STEER_ENCAPS(STEER_ENCAP_ENUM_, )
	STEER_ENCAP_COUNT
};
#define STEER_DECAP(encap)	(1u << (encap))
/* Every encapsulation: the policy's default 'decap' (each of UDP on its
 * standard port). */
#define STEER_ENCAP_ALL_(A, ID, name, port, help) | STEER_DECAP(STEER_ENCAP_##ID)
#define STEER_DECAP_ALL		(0 STEER_ENCAPS(STEER_ENCAP_ALL_, ))

/* The policy's name of an encapsulation, its standard UDP port (0: not
 * carried in UDP); NULL and 0 for an id that is none. */
static inline const char *steer_encap_name(__u32 encap)
{
#define STEER_ENCAP_NAME_(A, ID, name, port, help)			\
	if (encap == STEER_ENCAP_##ID)					\
		return #name;
	STEER_ENCAPS(STEER_ENCAP_NAME_, )
#undef STEER_ENCAP_NAME_
	return (const char *)0;
}

static inline __u16 steer_encap_port(__u32 encap)
{
#define STEER_ENCAP_PORT_(A, ID, name, port, help)			\
	if (encap == STEER_ENCAP_##ID)					\
		return port;
	STEER_ENCAPS(STEER_ENCAP_PORT_, )
#undef STEER_ENCAP_PORT_
	return 0;
}

/* UDP ports the policy's 'decap' may give, all encapsulations together. */
#define STEER_DECAP_PORTS	8
/* Most MPLS labels walked to the bottom of the stack, GTP-U extension
 * headers walked to the payload: deeper ones are malformed (counted in
 * encap_malformed and passed). Real stacks carry 1-4 labels (segment
 * routing a few more), GTP-U 0-2 extensions. */
#define STEER_MPLS_LABELS_MAX	8
#define STEER_GTPU_EXT_MAX	4

/* A UDP port's bit in steer_slot.decap_port_bits: a plain UDP frame pays one
 * test of this bit, and only a frame whose bit is set compares its port
 * with decap_port[]. Taken from the port as stored (network order), so
 * both sides compute it without a byte swap. */
static inline __u32 steer_port_bit(__u16 port)
{
	return (__u32)port & 63;
}

/* GRE's flags word (RFC 2784 and RFC 2890), host order: the checksum,
 * key and sequence-number bits, which the parser reads and the tests'
 * frames set. */
#define STEER_GRE_C	0x8000
#define STEER_GRE_K	0x2000
#define STEER_GRE_S	0x1000

#endif /* XDP_STEER_INCLUDE_ENCAP_H */
