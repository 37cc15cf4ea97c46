/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * parse_result.h - what the parser's functions return besides 0 and a
 * negative errno.
 */
#ifndef XDP_STEER_PARSE_RESULT_H
#define XDP_STEER_PARSE_RESULT_H

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

/* PARSE_PARTIAL where an encapsulation the slot looks through broke:
 * counted malformed too (parse_frame()). */
#define PARSE_ENCAP_PARTIAL	3
/* The commonest frame hashed where it lies (COMMON_HASHED), p not
 * written. */
#define PARSE_HASHED		4

/* parse_common() results. */
#define COMMON_WALK	0	/* any other frame: the walk from the start */
#define COMMON_DONE	1	/* p filled */
#define COMMON_L4	2	/* the outer IP header read as the walk would
				 * have, the cursor on what follows it */
#define COMMON_UDP	3	/* and the UDP header too: to a port whose
				 * bit says it may be a tunnel's */
#define COMMON_HASHED	4	/* hashed where its words lie (common_hash()),
				 * p not written */

#endif /* XDP_STEER_PARSE_RESULT_H */
