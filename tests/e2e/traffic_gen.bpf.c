// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * traffic_gen.bpf.c - the generator's frame writer. traffic_gen runs it with
 * bpf_prog_test_run_opts(BPF_F_TEST_XDP_LIVE_FRAMES): the kernel fills pages
 * with the group's template frame once and calls this program for every
 * frame; it writes the next flow's addresses, ports, mark and checksums and
 * redirects the frame out of the veth, which hands it to the peer's XDP
 * program without building an skb.
 *
 * Pages are recycled with whatever the last frame wrote, so every field that
 * differs between flows is written on every frame, and so is every field a
 * router on the way rewrites in the page (MACs, TTL: the forwarding
 * benchmark). Only the sequence number is new per frame; all other sums
 * are precomputed per flow in userspace. An encapsulation's outer headers
 * are the same in every frame of a group (one outer pair of endpoints):
 * the template's, never written.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "traffic.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct gen_flow);
	__uint(max_entries, TRAFFIC_MAX_FLOWS);
} gen_flows SEC(".maps");

/* Set by userspace between test runs (one thread runs them). */
struct gen_group gen_groups[TRAFFIC_MAX_GROUPS];
__u32 gen_cur;			/* group of the running test run */
__u32 gen_ifindex;		/* veth to send out of */
__u32 gen_lo_ifindex;		/* loopback: test runs "receive" there */
__u64 gen_frames;		/* frames written and redirected */

#define ETH_LEN		14
#define L4_4		20	/* from the IP header */
#define L4_6		40
#define MARK_LEN	((int)sizeof(struct traffic_mark))

static __always_inline void put16(void *p, __u16 v)
{
	*(__u16 *)p = v;
}

static __always_inline void put_words(void *p, const __u32 *w, int n)
{
	int i;

	/* 16-bit stores: every field sits at an even offset of the frame. */
#pragma unroll
	for (i = 0; i < n; i++) {
		put16(p + 4 * i, (__u16)w[i]);
		put16(p + 4 * i + 2, (__u16)(w[i] >> 16));
	}
}

static __always_inline __u32 sum16(const void *p, int nwords)
{
	__u32 s = 0;
	int i;

#pragma unroll
	for (i = 0; i < nwords; i++)
		s += *(const __u16 *)(p + 2 * i);
	return s;
}

static __always_inline __u16 fold(__u32 s)
{
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (__u16)~s;
}

static __always_inline void write_mark(void *p, __u32 flow, __u64 seq)
{
	struct traffic_mark m = { TRAFFIC_MAGIC, flow, seq };

	__builtin_memcpy(p, &m, sizeof(m));
}

/* The transport header and mark at l4; addresses are already written. */
static __always_inline void write_l4(void *l4, int tcp, const struct gen_flow *f,
				     __u32 flow, __u64 seq)
{
	void *mark = l4 + (tcp ? 20 : 8);
	__u32 s = f->l4_sum;
	__u16 csum;

	put16(l4, f->sport);
	put16(l4 + 2, f->dport);
	write_mark(mark, flow, seq);
	s += sum16(mark + 8, 4);
	if (tcp) {
		/* The sequence number in the TCP header too, so no two
		 * frames of a flow are contiguous and GRO merges none. */
		*(__u32 *)(l4 + 4) = __builtin_bswap32((__u32)seq);
		s += sum16(l4 + 4, 2);
	}
	csum = fold(s);
	if (!tcp && !csum)
		csum = 0xffff;	/* 0 would mean "no checksum" */
	put16(l4 + (tcp ? 16 : 6), csum);
}

/* ESP: the SPI (the flow's ports), a sequence number, the mark. */
static __always_inline void write_esp(void *l4, const struct gen_flow *f,
				      __u32 flow, __u64 seq)
{
	put16(l4, f->sport);
	put16(l4 + 2, f->dport);
	*(__u32 *)(l4 + 4) = __builtin_bswap32((__u32)seq);
	write_mark(l4 + 8, flow, seq);
}

/* One IP shape at offset 'l3' (the group's, after its encapsulation);
 * 'v6' and 'tcp' (1 TCP, 0 UDP, -1 ESP) are constants at each call, so
 * every offset from the IP header is too and one bounds check covers all
 * writes to it; one more covers the transport header's, at the group's
 * offset from it (past IPv6 extension headers). */
static __always_inline int write_ip(void *data, void *end, __u32 l3, int v6,
				    int tcp, const struct gen_group *g,
				    struct gen_flow *f, __u32 flow)
{
	int l4 = v6 ? L4_6 : L4_4;
	void *ip, *th;
	__u64 seq;

	ip = data + (l3 & TRAFFIC_L3_MAX);
	if (ip + l4 > end)
		return -1;
	th = ip + (g->l4 & TRAFFIC_L4_MAX);
	/* The check on th itself: added to the offset first, the constant
	 * would leave th without a range the verifier knows. */
	barrier_var(th);
	if (th + (tcp > 0 ? 20 : 8) + MARK_LEN > end)
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
		put_words(ip + 8, f->src, 4);
		put_words(ip + 24, f->dst, 4);
	} else {
		*(__u8 *)(ip + 8) = g->hops;
		put_words(ip + 12, f->src, 1);
		put_words(ip + 16, f->dst, 1);
		put16(ip + 10, f->ip_csum);
	}
	if (tcp < 0)
		write_esp(th, f, flow, seq);
	else
		write_l4(th, tcp, f, flow, seq);
	return 0;
}

SEC("xdp")
int traffic_gen(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct gen_group *g = &gen_groups[gen_cur & (TRAFFIC_MAX_GROUPS - 1)];
	struct gen_flow *f;
	__u32 idx, flow;
	int err;

	/* Attached to the veth only to keep the program in the kernel's XDP
	 * dispatcher (see traffic_gen.c): frames really received there are
	 * not ours to touch. */
	if (ctx->ingress_ifindex != gen_lo_ifindex)
		return XDP_PASS;

	idx = g->cursor;
	if (idx >= g->nflows)
		idx = 0;
	g->cursor = idx + 1 < g->nflows ? idx + 1 : 0;
	flow = g->first + idx;
	f = bpf_map_lookup_elem(&gen_flows, &flow);
	if (!f)
		return XDP_ABORTED;

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
		err = -1;
		if (data + ETH_LEN + 28 + MARK_LEN <= end) {
			write_mark(data + ETH_LEN + 28, flow, ++f->seq);
			err = 0;
		}
		break;
	default:
		err = -1;
	}
	if (err)
		return XDP_ABORTED;
	gen_frames++;
	return bpf_redirect(gen_ifindex, 0);
}

char _license[] SEC("license") = "Dual BSD/GPL";
