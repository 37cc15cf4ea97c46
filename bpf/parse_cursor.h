/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * parse_cursor.h - the parser's state: the cursor that moves through the
 * frame, what the parse found (struct parsed) and the stores that write it.
 */
#ifndef XDP_STEER_PARSE_CURSOR_H
#define XDP_STEER_PARSE_CURSOR_H

#include <linux/bpf.h>
#include <linux/errno.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "xdp_steer.h"

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
 * own making, so the paths through them multiply, and checking tunnels
 * and inner headers after each of them would pass the verifier's limit of
 * instructions checked. Where the cursor is
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

/* is_frag and ids zeroed in one 64-bit store: the id keys' word costs the
 * commonest frame no store of its own. */
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
 * is an instruction fewer. (A CPU cannot forward two stores to one load,
 * which the one store also spares the hash's load: tests/bench/README.md,
 * "What the per-frame numbers decided".) */
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

#endif /* XDP_STEER_PARSE_CURSOR_H */
