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

char _license[] SEC("license") = "Dual BSD/GPL";
