/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdp_steer/balance.h - the balancer's input and record: the per-bucket
 * load the datapath counts for it, and its last round for status.
 */
#ifndef XDP_STEER_INCLUDE_BALANCE_H
#define XDP_STEER_INCLUDE_BALANCE_H

#include <linux/types.h>

/* steer_load[drain bucket] (per-CPU array): frames and bytes of the
 * bucket's flows that this receiving CPU placed by the table, counted
 * only while the slot has STEER_F_BALANCE (rules and non-IP frames are
 * not counted: they cannot move). The balancer sums them per table bucket
 * (drain bucket & (table_size - 1)) over the CPUs. */
struct steer_load {
	__u64 packets;
	__u64 bytes;
};

/* steer_balance[0]: the balancer's record of itself (xdp-steer balance),
 * for status; the datapath never reads it. One update per round. */
struct steer_balance {
	__u64 started;		/* its process's start, in clock ticks after
				 * boot (/proc/PID/stat): with 'pid', whether
				 * that process still runs */
	__u64 last_ns;		/* its last round, CLOCK_REALTIME ns */
	__u32 pid;		/* 0: no balancer ever ran here */
	__u32 rounds;		/* rounds since it started */
	__u32 moves;		/* buckets it moved since it started */
	__u32 last_moves;	/* ... in its last round (planned, dry run) */
	__u32 state;		/* STEER_BAL_* of its last round */
	__u32 busiest;		/* the busiest worker in its last round */
	__u32 ratio_pm;		/* its load over its share, per mille */
	__u32 after_pm;		/* ... once the round's moves are done */
	__u32 generation;	/* the policy generation it last saw */
	__u32 flags;		/* STEER_BALF_* */
};
#define STEER_BALF_DRY_RUN	(1u << 0) /* it only says what it would move */

/* What a balancer round found (steer_balance.state). */
#define STEER_BAL_STATES(X)						\
	X(STARTING, "starting", "its first round has not ended yet")	\
	X(OFF, "off", "the policy in force says balance: off")	\
	X(IDLE, "idle", "no traffic was counted")			\
	X(BALANCED, "balanced", "the busiest worker is within tolerance") \
	X(MOVED, "moved", "it moved buckets toward the weights")	\
	X(BEST, "best-possible", "over tolerance, but no move makes it better (a bucket alone exceeds a share)") \
	X(WAITING, "waiting", "buckets of an earlier move still drain")	\
	X(STALE, "stale", "an apply came between its plan and its move: planned again") \
	X(FAILED, "failed", "applying its moves failed")		\
	X(HELD, "held", "over tolerance, but the workers a move needs are held: one cannot drain now, or its load keeps turning")
#define STEER_BAL_ENUM_(name, word, help) STEER_BAL_##name,
enum { STEER_BAL_STATES(STEER_BAL_ENUM_) STEER_BAL_NSTATES };
#undef STEER_BAL_ENUM_

#endif /* XDP_STEER_INCLUDE_BALANCE_H */
