/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdp_steer/stamp.h - the drain's stamps and the windows that gate them:
 * the stamp in a frame's headroom, the warm-up window, the workers' look.
 */
#ifndef XDP_STEER_INCLUDE_STAMP_H
#define XDP_STEER_INCLUDE_STAMP_H

#include <linux/types.h>

/* steer_look[0]: the workers look for stamps in front of their frames
 * while 'until' (jiffies) lies ahead, at a cost of two helper calls a
 * frame. Every sender of a stamped frame, and every worker that finds
 * one, keeps it so for the drain timeout and two ticks (once a tick
 * each). A stamp not looked at leaves no mark; marks only speed a drain
 * (a drain without them waits for its old CPU to go idle), so a worker
 * that misses some costs time, never order. Never 0 once held. */
struct steer_look {
	__u32 until;
	__u32 pad;
};
/* A worker that finds a stamp keeps the gate open this many ticks ahead:
 * more stamped frames may wait behind it, longer than their senders'
 * hold. */
#define STEER_LOOK_TICKS	4

/*
 * steer_window[0]: the warm-up before a flip under rebalance: drain. A
 * bucket's drain needs to know where its last frame went and which it was
 * (a stamp in front of the frame, its number in a record of the bucket),
 * and stamping and recording every queued frame costs 20 ns a frame and
 * more. Only buckets that move need them, and buckets move only at a
 * flip. So the loader opens the window ('open'), waits until every
 * receiving CPU sees it, and then until every cpumap ring has handed to
 * the stack each frame that entered it before (kernel/window.h): frames
 * queued before the window are then no concern of any drain, and every
 * frame after it is stamped and recorded under 'gen'. It flips, and shuts
 * the window. From the flip on, a bucket whose record of this warm-up (or
 * later) names another target than the table drains from there; any
 * other goes where the table says. Outside the window a queued frame
 * reads the window and its bucket's record, and writes nothing unless
 * the bucket drains.
 *
 * A receiving CPU's own moves (a receive queue or a flow arriving here
 * from another CPU, bpf/drain.h) need no window: it sends a marker through
 * its own queue, behind whatever the others queued here, and keeps
 * records of its own for the buckets concerned until the marker is out.
 */
struct steer_window {
	__u32 open;		/* loader: 1 during a warm-up */
	__u32 gen;		/* loader: bumped at every opening; never 0
				 * once initialised */
	__u32 opened;		/* loader: jiffies when it last opened */
	__u32 flipped;		/* loader: jiffies of the last flip */
};

/* The stamp a receiving CPU leaves in the headroom right in front of a
 * frame it queues to a worker under drain: who sent it, to which target,
 * and its place in that sender's stream there. The headroom, not XDP
 * metadata: some kernels refuse bpf_xdp_adjust_meta() (seen: a hardened
 * 6.18 whose verifier says "program of this type cannot use helper"), and
 * some drivers have no metadata; every one keeps XDP_PACKET_HEADROOM,
 * which bpf_xdp_adjust_head() reaches on both sides. The frame's data does
 * not move. Headroom is not cleared between frames: 'tag' tells a stamp
 * from bytes an earlier frame left there. A stamp an earlier frame of
 * these maps left (same key) states a fact still true, that its sender's
 * frames up to 'seq' have left the ring, only late: a drain then waits
 * longer, never less (bpf/drain.h). Anything else matches the tag with odds of
 * 2^-64, the key being secret: nothing outside the kernel reads headroom. */
struct steer_stamp {
	__u32 seq;		/* the sender's steer_seq for the target */
	__u16 rx_slot;		/* the sender's receiver slot */
	__u16 target;
	__u64 tag;		/* steer_stamp_tag() */
};

/* The tag of a stamp whose first 8 bytes are 'seq', 'rx_slot' and
 * 'target', under the key 'key' (steer_stamp_key, nonzero). */
static inline __u64 steer_stamp_tag(__u32 seq, __u16 rx_slot, __u16 target,
				    __u64 key)
{
	return key ^ ((__u64)seq | (__u64)rx_slot << 32 | (__u64)target << 48);
}

#endif /* XDP_STEER_INCLUDE_STAMP_H */
