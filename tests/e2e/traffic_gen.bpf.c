// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * traffic_gen.bpf.c - the generator's frame writer. traffic_gen runs it with
 * bpf_prog_test_run_opts(BPF_F_TEST_XDP_LIVE_FRAMES): the kernel fills pages
 * with the group's template frame once and calls this program for every
 * frame; it writes the next flow's addresses, ports, mark and checksums and
 * redirects the frame out of the veth, which hands it to the peer's XDP
 * program without building an skb.
 *
 * The writing is traffic_write.h's, which says what is written in each
 * frame; the socket sender (traffic_socket.c) writes the same frames with
 * it, in userspace, where the kernel refuses live frames.
 *
 * The fanout sender (traffic_fanout.c) uses the same writer in the last
 * two programs: traffic_fan, on a veth pair of the generator's own, takes
 * each frame the socket sent there and hands one copy to every entry of a
 * devmap, each entry the veth to send out of; traffic_fan_write, the
 * entries' program, writes each copy as the next frame on its way out.
 * The peer gets xdp_frames again.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "traffic.h"
#include "traffic_write.h"

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
__u8 gen_fan_key[3];		/* the fanout's tags carry it */

/* The fanout sender's devmaps: FANOUT_MAX entries for a full fanout (the
 * entries it fills: --fanout), one entry for single frames. */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
	__uint(max_entries, FANOUT_MAX);
} gen_fan_many SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
	__uint(max_entries, 1);
} gen_fan_one SEC(".maps");

SEC("xdp")
int traffic_gen(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct gen_group *g = &gen_groups[gen_cur & (TRAFFIC_MAX_GROUPS - 1)];
	struct gen_flow *f;
	__u32 flow;
	int err;

	/* Attached to the veth only to keep the program in the kernel's XDP
	 * dispatcher (see traffic_gen.c): frames really received there are
	 * not ours to touch. */
	if (ctx->ingress_ifindex != gen_lo_ifindex)
		return XDP_PASS;

	flow = traffic_next_flow(g);
	f = bpf_map_lookup_elem(&gen_flows, &flow);
	if (!f)
		return XDP_ABORTED;
	err = traffic_write(data, end, g, f, flow);
	if (err)
		return XDP_ABORTED;
	gen_frames++;
	return bpf_redirect(gen_ifindex, 0);
}

/* The fanout sender's frames into its veth: a group's template whose
 * source MAC says it is one (struct fanout_tag, traffic.h), the group and
 * how many frames to make of it. Anything else on the veth passes. */
SEC("xdp")
int traffic_fan(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct fanout_tag *t = data + FANOUT_TAG_OFF;

	if ((void *)(t + 1) > end || t->magic != FANOUT_MAGIC ||
	    t->key[0] != gen_fan_key[0] || t->key[1] != gen_fan_key[1] ||
	    t->key[2] != gen_fan_key[2])
		return XDP_PASS;
	if (t->copies == FANOUT_ONE)
		return bpf_redirect_map(&gen_fan_one, 0, BPF_F_BROADCAST);
	return bpf_redirect_map(&gen_fan_many, 0, BPF_F_BROADCAST);
}

/* Each copy traffic_fan made, as the devmap sends it: the group's next
 * frame. The copies of one frame, and the frames, come here in order on
 * one CPU (the veth's NAPI), so the flows' order is the other senders'. */
SEC("xdp/devmap")
int traffic_fan_write(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct fanout_tag *t = data + FANOUT_TAG_OFF;
	struct gen_group *g;
	struct gen_flow *f;
	__u32 flow;

	if ((void *)(t + 1) > end)
		return XDP_DROP;
	g = &gen_groups[t->group & (TRAFFIC_MAX_GROUPS - 1)];
	if (!g->nflows)
		return XDP_DROP;
	flow = traffic_next_flow(g);
	f = bpf_map_lookup_elem(&gen_flows, &flow);
	/* The template's source MAC back over the tag first: the writer
	 * leaves an ARP frame's MACs as they are. */
	__builtin_memcpy(t, g->eth + FANOUT_TAG_OFF, sizeof(*t));
	if (!f || traffic_write(data, end, g, f, flow))
		return XDP_DROP;
	gen_frames++;
	return XDP_PASS;
}

char _license[] SEC("license") = "Dual BSD/GPL";
