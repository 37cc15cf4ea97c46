/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * traffic_socket.h - traffic_gen's socket sender: the frames the live
 * sender's program writes (traffic_write.h, the same code), written in
 * userspace and sent through an AF_PACKET socket bound to the interface,
 * for kernels that refuse live test-run frames. The receiving side gets
 * skbs instead of xdp_frames.
 */
#ifndef XDP_STEER_TRAFFIC_SOCKET_H
#define XDP_STEER_TRAFFIC_SOCKET_H

#include <stddef.h>
#include <linux/types.h>

#include "traffic.h"

struct traffic_socket;

/* A socket on interface 'ifindex' (past the qdisc) and its frame buffers.
 * NULL and errno on failure (EPERM: needs CAP_NET_RAW). */
struct traffic_socket *traffic_socket_open(int ifindex);

/* Sends n frames of group 'g' (index 'gidx'; 'tmpl' its template of 'len'
 * bytes), round-robin over its flows from its cursor as the program does;
 * flows[] is indexed by flow id. Adds the frames sent to *sent. A frame
 * the interface drops for want of room (a veth whose peer's queue is full)
 * is sent again, so none is lost on the sending side. Returns 0, or a
 * negative errno when sending failed: then the frames not sent are
 * unwritten (the cursor and sequence numbers put back), so *sent and the
 * flows' sequence numbers still agree. */
int traffic_socket_send(struct traffic_socket *s, struct gen_group *g, int gidx,
			const void *tmpl, size_t len, struct gen_flow *flows,
			__u64 n, __u64 *sent);

/* Sends n copies of 'frame' as it is, no writer (the fanout sender's
 * frames into its own veth); adds the copies sent to *sent. 0, -EINTR
 * when told to stop while the interface had no room, or a negative
 * errno. */
int traffic_socket_send_copies(struct traffic_socket *s, const void *frame,
			       size_t len, __u64 n, __u64 *sent);

void traffic_socket_close(struct traffic_socket *s);

#endif /* XDP_STEER_TRAFFIC_SOCKET_H */
