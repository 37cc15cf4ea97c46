/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * parse_result.h - what the parser's functions return: an enum
 * parse_result (zero or more) for what was read, a negative errno for a
 * frame that cannot be steered by its bytes.
 */
#ifndef XDP_STEER_PARSE_RESULT_H
#define XDP_STEER_PARSE_RESULT_H

/*
 * Every parse function returns one of these, or a negative errno:
 * -EPROTONOSUPPORT for a frame that is not IP (the slot's non_ip setting
 * places it), any other for a frame without a readable IP header (passed
 * on the receiving CPU, counted; -EBADMSG where that is a malformed
 * encapsulation, counted malformed too). parse_frame() returns only
 * PARSE_DONE, PARSE_HASHED or an error; the other outcomes are handed
 * between the parser's own steps. PARSE_DONE is 0, so "no error and
 * nothing more to do" is a test for zero.
 */
enum parse_result {
	/* The step read what it reads: from parse_frame(), p is filled. */
	PARSE_DONE = 0,
	/* The cursor is on a tunnel's inner IPv4 or IPv6 header, its
	 * ethertype in *inner. */
	PARSE_INNER,
	/*
	 * An IP header was read and a header after it was not: an extension
	 * header chain past its datagram or the bound, a transport header
	 * cut short, a tunnel's header or inner headers malformed or cut
	 * short. p->flow then holds what was read, and the frame is steered
	 * by it as by any flow: the innermost IP header read (its addresses;
	 * its protocol once the extension headers were walked; its ports
	 * once whole), or the outer flow as read where the tunnel's inner IP
	 * header could not be. So the CPU of every frame with a readable IP
	 * header is a function of the policy and the frame's bytes: passed
	 * here, it would follow whichever CPU received it (a NIC queue's IRQ
	 * moves, veth follows its sender), and a flow that only looks like a
	 * tunnel (UDP to 4789 that is not VXLAN) would land on two CPUs.
	 * Counted in steer_stats.parsed_partial; parse_frame() returns it as
	 * PARSE_DONE.
	 */
	PARSE_PARTIAL,
	/* PARSE_PARTIAL where an encapsulation the slot looks through
	 * broke: counted malformed too (parse_frame()). */
	PARSE_ENCAP_PARTIAL,
	/* The commonest frame hashed where it lies (common_hash()): *hash
	 * set, p not written. */
	PARSE_HASHED,
	/* parse_common()'s hand-offs to the walk. Any frame not of the
	 * commonest shape: the walk from the frame's start. */
	PARSE_WALK,
	/* The outer IP header read as the walk would have, the cursor on
	 * what follows it: parse_l4() goes on. */
	PARSE_AT_L4,
	/* And the UDP header too, to a port whose bit says it may be a
	 * tunnel's: the tunnel's header is next. */
	PARSE_AT_UDP,
};

#endif /* XDP_STEER_PARSE_RESULT_H */
