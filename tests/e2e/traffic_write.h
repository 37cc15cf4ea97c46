/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * traffic_write.h - the generator's frame writer, written once for both of
 * its senders: traffic_gen.bpf.c runs it on live test-run frames in the
 * kernel, traffic_gen's socket sender (traffic_socket.c) on frames in its
 * own buffers. It compiles under clang -target bpf, where every function is
 * inlined and every bounds check sits next to the access it covers, as
 * the verifier wants, and under gcc -Wall -Wextra -Werror.
 *
 * A frame starts as its group's template (the group's first flow, built
 * by traffic_gen.c) and is rewritten in place for each flow, over whatever
 * the last frame in the same buffer wrote: every field that differs
 * between flows is written on every frame, and so is every field a router
 * on the way rewrites in the page (MACs, TTL: the forwarding benchmark).
 * Only the sequence number is new per frame; all other sums are
 * precomputed per flow in userspace (struct gen_flow). An encapsulation's
 * outer headers are the same in every frame of a group (one outer pair of
 * endpoints): the template's, never written.
 */
#ifndef XDP_STEER_TRAFFIC_WRITE_H
#define XDP_STEER_TRAFFIC_WRITE_H

#include <linux/types.h>

#include "traffic.h"

#define TW_INLINE	static inline __attribute__((always_inline))

/* 16- and 32-bit fields sit at even offsets of a frame, not always at a
 * multiple of 4 (the TCP sequence number), and userspace frames are bytes
 * that these words alias; the BPF side keeps the plain types it was
 * verified with. */
#ifdef __bpf__
typedef __u16 tw_u16;
typedef __u32 tw_u32;
#else
typedef __u16 __attribute__((may_alias, aligned(1))) tw_u16;
typedef __u32 __attribute__((may_alias, aligned(1))) tw_u32;
#endif

#ifdef __clang__
#define TW_UNROLL	_Pragma("unroll")
#else
#define TW_UNROLL	_Pragma("GCC unroll 16")
#endif

/* As bpf_helpers.h has it: hides a value's origin from the compiler. */
#ifndef barrier_var
#define barrier_var(var)	asm volatile("" : "+r"(var))
#endif

#define TW_ETH_LEN	14
#define TW_L4_4		20	/* from the IP header */
#define TW_L4_6		40
#define TW_MARK_LEN	((int)sizeof(struct traffic_mark))

TW_INLINE void tw_put16(void *p, __u16 v)
{
	*(tw_u16 *)p = v;
}

TW_INLINE void tw_put_words(void *p, const __u32 *w, int n)
{
	int i;

	/* 16-bit stores: every field sits at an even offset of the frame. */
	TW_UNROLL
	for (i = 0; i < n; i++) {
		tw_put16(p + 4 * i, (__u16)w[i]);
		tw_put16(p + 4 * i + 2, (__u16)(w[i] >> 16));
	}
}

TW_INLINE __u32 tw_sum16(const void *p, int nwords)
{
	__u32 s = 0;
	int i;

	TW_UNROLL
	for (i = 0; i < nwords; i++)
		s += *(const tw_u16 *)(p + 2 * i);
	return s;
}

TW_INLINE __u16 tw_fold(__u32 s)
{
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (__u16)~s;
}

TW_INLINE void write_mark(void *p, __u32 flow, __u64 seq)
{
	struct traffic_mark m = { TRAFFIC_MAGIC, flow, seq };

	__builtin_memcpy(p, &m, sizeof(m));
}

/* The transport header and mark at l4; addresses are already written. */
TW_INLINE void write_l4(void *l4, int tcp, const struct gen_flow *f,
			__u32 flow, __u64 seq)
{
	void *mark = l4 + (tcp ? 20 : 8);
	__u32 s = f->l4_sum;
	__u16 csum;

	tw_put16(l4, f->sport);
	tw_put16(l4 + 2, f->dport);
	write_mark(mark, flow, seq);
	s += tw_sum16(mark + 8, 4);
	if (tcp) {
		/* The sequence number in the TCP header too, so no two
		 * frames of a flow are contiguous and GRO merges none. */
		*(tw_u32 *)(l4 + 4) = __builtin_bswap32((__u32)seq);
		s += tw_sum16(l4 + 4, 2);
	}
	csum = tw_fold(s);
	if (!tcp && !csum)
		csum = 0xffff;	/* 0 would mean "no checksum" */
	tw_put16(l4 + (tcp ? 16 : 6), csum);
}

/* ESP: the SPI (the flow's ports), a sequence number, the mark. */
TW_INLINE void write_esp(void *l4, const struct gen_flow *f, __u32 flow,
			 __u64 seq)
{
	tw_put16(l4, f->sport);
	tw_put16(l4 + 2, f->dport);
	*(tw_u32 *)(l4 + 4) = __builtin_bswap32((__u32)seq);
	write_mark(l4 + 8, flow, seq);
}

/* One IP shape at offset 'l3' (the group's, after its encapsulation);
 * 'v6' and 'tcp' (1 TCP, 0 UDP, -1 ESP) are constants at each call, so
 * every offset from the IP header is too and one bounds check covers all
 * writes to it; one more covers the transport header's, at the group's
 * offset from it (past IPv6 extension headers). */
TW_INLINE int write_ip(void *data, void *end, __u32 l3, int v6, int tcp,
		       const struct gen_group *g, struct gen_flow *f,
		       __u32 flow)
{
	int l4 = v6 ? TW_L4_6 : TW_L4_4;
	void *ip, *th;
	__u64 seq;

	ip = data + (l3 & TRAFFIC_L3_MAX);
	if (ip + l4 > end)
		return -1;
	th = ip + (g->l4 & TRAFFIC_L4_MAX);
	/* The check on th itself: added to the offset first, the constant
	 * would leave th without a range the verifier knows. */
	barrier_var(th);
	if (th + (tcp > 0 ? 20 : 8) + TW_MARK_LEN > end)
		return -1;
	seq = ++f->seq;
	if (data + sizeof(g->eth) + sizeof(g->tags) > end)
		return -1;
	__builtin_memcpy(data, g->eth, sizeof(g->eth));
	/* Tags and the ethertype after them, each time: see gen_group. */
	if (g->ntags == 2)
		__builtin_memcpy(data + 12, g->tags, 10);
	else if (g->ntags == 1)
		__builtin_memcpy(data + 12, g->tags, 6);
	if (v6) {
		*(__u8 *)(ip + 7) = g->hops;
		tw_put_words(ip + 8, f->src, 4);
		tw_put_words(ip + 24, f->dst, 4);
	} else {
		*(__u8 *)(ip + 8) = g->hops;
		tw_put_words(ip + 12, f->src, 1);
		tw_put_words(ip + 16, f->dst, 1);
		tw_put16(ip + 10, f->ip_csum);
	}
	if (tcp < 0)
		write_esp(th, f, flow, seq);
	else
		write_l4(th, tcp, f, flow, seq);
	return 0;
}

/* The flow of group g that gets the next frame: round-robin from the
 * group's cursor, which it moves. */
TW_INLINE __u32 traffic_next_flow(struct gen_group *g)
{
	__u32 idx = g->cursor;

	if (idx >= g->nflows)
		idx = 0;
	g->cursor = idx + 1 < g->nflows ? idx + 1 : 0;
	return g->first + idx;
}

/* Writes flow 'flow' (f, its entry) of group g into the frame from data
 * to end, which holds the group's template or an earlier frame of the
 * group, and takes the flow's next sequence number. 0, or -1 when the
 * frame is too short for the group's shape (nothing sent). */
TW_INLINE int traffic_write(void *data, void *end, const struct gen_group *g,
			    struct gen_flow *f, __u32 flow)
{
	int err;

	switch (g->shape) {
	case TRAFFIC_UDP4:
		err = write_ip(data, end, g->l3, 0, 0, g, f, flow);
		break;
	case TRAFFIC_TCP4:
		err = write_ip(data, end, g->l3, 0, 1, g, f, flow);
		break;
	case TRAFFIC_UDP6:
		err = write_ip(data, end, g->l3, 1, 0, g, f, flow);
		break;
	case TRAFFIC_TCP6:
		err = write_ip(data, end, g->l3, 1, 1, g, f, flow);
		break;
	case TRAFFIC_ESP4:
		err = write_ip(data, end, g->l3, 0, -1, g, f, flow);
		break;
	case TRAFFIC_ESP6:
		err = write_ip(data, end, g->l3, 1, -1, g, f, flow);
		break;
	case TRAFFIC_ARP:
		/* The mark in the padding after the 28-byte ARP body. */
		err = -1;
		if (data + TW_ETH_LEN + 28 + TW_MARK_LEN <= end) {
			write_mark(data + TW_ETH_LEN + 28, flow, ++f->seq);
			err = 0;
		}
		break;
	default:
		err = -1;
	}
	return err;
}

#endif /* XDP_STEER_TRAFFIC_WRITE_H */
