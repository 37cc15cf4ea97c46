/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * traffic_live.h - traffic_gen's live sender: traffic_gen.bpf.c run with
 * bpf_prog_test_run_opts(BPF_F_TEST_XDP_LIVE_FRAMES), which writes each
 * frame (traffic_write.h) in a page the kernel filled with the group's
 * template and redirects it out of the veth; the peer gets xdp_frames.
 */
#ifndef XDP_STEER_TRAFFIC_LIVE_H
#define XDP_STEER_TRAFFIC_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "traffic.h"

struct traffic_live;

/* traffic_live_open()'s flags. */
#define LIVE_KEEP	1	/* attach the program to the interface too,
				 * so test runs start at once (traffic_live.c) */
#define LIVE_NATIVE	2	/* that in native mode, not SKB mode */

/* Loads the program with the groups and flows (flow ids index flows[]),
 * to send out of 'ifindex'. NULL and errno on failure. */
struct traffic_live *traffic_live_open(int ifindex, const char *ifname,
				       int flags, const struct gen_group *groups,
				       int ngroups, const struct gen_flow *flows,
				       __u32 nflows);

/* Sends n frames of group 'gidx' ('tmpl' its template of 'len' bytes) in
 * one live test run; adds those sent to *sent. 0 or a negative errno:
 * -EPERM, -EINVAL or -EOPNOTSUPP with nothing sent when the kernel has no
 * live frames or refuses them, -EINTR when a signal cut the run short. */
int traffic_live_send(struct traffic_live *l, int gidx, const void *tmpl,
		      size_t len, __u64 n, __u64 *sent);

/* The next frame of group 'gidx' as the program writes it over the
 * template, in a plain test run (no live frames, nothing sent): into out,
 * 'len' bytes. 0 or a negative errno. */
int traffic_live_write_one(struct traffic_live *l, int gidx, const void *tmpl,
			   size_t len, void *out);

/* Each flow's sequence number (the last one sent) into flows[].seq. */
int traffic_live_read_seqs(struct traffic_live *l, struct gen_flow *flows,
			   __u32 nflows);

/* The loaded program, its maps and .bss (the fanout sender's too). */
struct traffic_gen_bpf *traffic_live_skel(struct traffic_live *l);

void traffic_live_close(struct traffic_live *l);

#endif /* XDP_STEER_TRAFFIC_LIVE_H */
