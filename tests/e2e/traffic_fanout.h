/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * traffic_fanout.h - traffic_gen's fanout sender, for kernels that refuse
 * live test-run frames: the peer still gets xdp_frames, as from a NIC's
 * driver, for about the cost of a live frame each. traffic_fanout.c says
 * how.
 */
#ifndef XDP_STEER_TRAFFIC_FANOUT_H
#define XDP_STEER_TRAFFIC_FANOUT_H

#include <stddef.h>
#include <linux/types.h>

#include "traffic.h"
#include "traffic_live.h"

struct traffic_fanout;

/* Makes the generator's own veth pair in this namespace, with the program
 * of 'l' (traffic_live_open() without flags: the groups, the flows and the
 * writer) on it, to send out of 'ifindex', each frame the socket puts in
 * made into 'copies' (1 .. FANOUT_MAX). NULL and errno on failure, said on
 * stderr: a kernel without devmap programs or broadcast (5.14+) says
 * EINVAL or EOPNOTSUPP. 'l' stays the caller's. */
struct traffic_fanout *traffic_fanout_open(struct traffic_live *l, int ifindex,
					   unsigned int copies);

/* Sends n frames of group 'gidx' ('tmpl' its template of 'len' bytes) and
 * adds those the program wrote to *sent (a frame for which the kernel had
 * no page is neither written nor counted). 0 or a negative errno; -EINTR
 * when a signal cut it short, -ENXIO (said) when no frame has come out
 * for a second: the interface's peer takes no xdp_frames. */
int traffic_fanout_send(struct traffic_fanout *f, int gidx, const void *tmpl,
			size_t len, __u64 n, __u64 *sent);

/* Checks, in plain test runs of traffic_fan over 'tmpl' (a group's
 * template of 'len' bytes) under the key 'l' holds, that a frame tagged
 * with the key is broadcast and one with any other tag passes: a frame
 * of the pair's stack is never made into test frames. Prints what it
 * ran; 0, or -EPROTO at the first wrong verdict, said. */
int traffic_fanout_check(struct traffic_live *l, const void *tmpl, size_t len);

/* Takes the pair away; the program and its flows stay with 'l'. */
void traffic_fanout_close(struct traffic_fanout *f);

#endif /* XDP_STEER_TRAFFIC_FANOUT_H */
