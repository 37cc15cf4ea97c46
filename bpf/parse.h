/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * parse.h - the frame parser's entry: parse_frame() reads the flow the
 * frame is hashed on, and counts the frames it could read only in part.
 *
 * What it reads: Ethernet, up to two VLAN tags, IPv4 (IHL checked, options
 * skipped), IPv6 with a bounded walk of extension headers, and the ports
 * of TCP, UDP, UDP-Lite and SCTP (parse_l3.h); and, one level deep, the
 * encapsulations the slot's 'decap' names (PPPoE, MPLS, GRE, IP-in-IP,
 * VXLAN, Geneve, GTP-U; ESP's SPI as its ports: parse_tunnel.h), whose
 * inner flow then is the frame's flow. The commonest frame of all
 * (untagged IPv4 or IPv6 TCP/UDP, no options, extension headers or
 * fragments) is read first, in place, by parse_common() (parse_fast.h),
 * and hashed there where the slot allows (flow_hash.h); the walk takes
 * every other.
 *
 * One cursor moves forward through the frame (parse_cursor.h); every read
 * is preceded by the bounds check that makes it safe, next to it, so the
 * verifier and a reader see the same thing.
 *
 * A plain frame pays for the encapsulations only where its protocol could
 * be one: a UDP frame one test of its port's bit (steer_port_bit), TCP one
 * compare; other protocols and ethertypes are looked at only in the
 * branches where a plain frame's walk ends. What each of these shapes
 * saves is in bpf/README.md, "Code-shape decisions".
 */
#ifndef XDP_STEER_PARSE_H
#define XDP_STEER_PARSE_H

#include <linux/bpf.h>
#include <linux/errno.h>
#include <linux/if_ether.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "xdp_steer.h"
#include "parse_cursor.h"
#include "parse_result.h"
#include "parse_l3.h"
#include "parse_tunnel.h"
#include "parse_fast.h"

/*
 * Returns PARSE_DONE with p filled, or PARSE_HASHED with *hash set instead (the
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
	if (err == PARSE_HASHED)
		return PARSE_HASHED;
	if (err == PARSE_DONE)
		return PARSE_DONE;
	if (err == PARSE_WALK)
		__builtin_memset(p, 0, sizeof(*p));	/* see parse_common() */
	if (err == PARSE_AT_UDP) {
		/* parse_l4() would say the same: encap 0, the port tells. */
	} else if (err == PARSE_AT_L4) {
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
		return err != PARSE_DONE && err != -EPROTONOSUPPORT ?
		       encap_broken(p) : err;
	if (cursor_untrace(&c))
		return encap_broken(p);
	/* The inner flow replaces the outer one once its IP header is
	 * known good, word for word (parse_ipv4(), parse_ipv6()). */
	return parse_ip(&c, s, st, p, inner, 0, &encap) != PARSE_DONE ?
	       encap_broken(p) : PARSE_DONE;
}

/* parse_headers(), a frame it left PARSE_PARTIAL counted and returned as
 * PARSE_DONE: steered by what was read, as any flow. PARSE_HASHED: the frame's
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
	/* PARSE_PARTIAL or PARSE_ENCAP_PARTIAL: no other outcome is left. */
	if (err > 0) {
		if (err == PARSE_ENCAP_PARTIAL)
			st->encap_malformed++;
		st->parsed_partial++;
		return PARSE_DONE;
	}
	return err;
}

#endif /* XDP_STEER_PARSE_H */
