/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdp_steer/rx_slots.h - the receiving side of the drain: receiver slots
 * (pool and leases) and the receive queues that moved between CPUs.
 */
#ifndef XDP_STEER_INCLUDE_RX_SLOTS_H
#define XDP_STEER_INCLUDE_RX_SLOTS_H

#include <linux/types.h>
#include "xdp_steer/sizes.h"

/* steer_rxmove[0], per receiving CPU (see bpf/drain.h): after a receive
 * queue moved here, frames bound for the fast path go through this CPU's
 * own queue until the first of them, the marker, has reached the stack:
 * this CPU queued it behind every frame the queue's old CPU had queued
 * here. And where the last queue to move here came from: for the drain
 * timeout after, a bucket cold here but warm there follows that CPU's
 * frames to their target first. */
struct steer_rxmove {
	__u32 pending;		/* 1 while the above holds */
	__u32 since;		/* when the move was seen, jiffies */
	__u32 target;		/* the marker's target: this CPU, a bank */
	__u32 seq;		/* its stamp there; 0: not sent yet */
	__u32 from;		/* 1 + the CPU the last queue to move here
				 * left; 0: none */
	__u32 from_at;		/* when that move was seen, jiffies */
	__u32 poll;		/* this CPU's napi_polls when it was sent */
	__u32 queued;		/* 1: the marker entered this CPU's ring
				 * (stamped or not); 0: none yet */
};
/* steer_rxq: the queue's CPU still waits out its move (steer_rxmove). */
#define STEER_RXQ_PENDING	0x80000000u
/* steer_rxq: the queue's CPU has queued its frames elsewhere, and passed
 * none on its fast path since the queue moved there: the first it passes
 * waits out the move all the same. */
#define STEER_RXQ_QUEUED	0x40000000u
/* steer_stats.rxq_mine: this CPU holds the queue as STEER_RXQ_QUEUED: its
 * queued frames need not look again, its fast path must. */
#define STEER_RXQ_MINE_QUEUED	(1ull << 32)

/*
 * steer_rx_pool[0]: the receiver slots. A CPU that queues frames under
 * drain takes the next slot at its first tick of doing so (bpf/drain.h,
 * rx_slot_tick()): an atomic add on 'claimed', then it writes its own
 * steer_rx_cpu and steer_rx_slot entries, in that order. Once every slot
 * is taken, a CPU that finds none takes over one whose CPU has not held
 * it for the lease (steer_slot.rx_lease, struct steer_rx_lease); 'claimed' goes
 * past 'limit' by at most one per CPU (each adds only while it reads
 * room left), so readers take the smaller.
 */
struct steer_rx_pool {
	__u32 claimed;		/* slots asked for so far (atomic add) */
	__u32 limit;		/* slots there are: set by the first apply
				 * to these maps, <= STEER_RX_SLOTS;
				 * 0: STEER_RX_SLOTS */
	__u32 overflow_tick;	/* jiffies of the last tick in which a CPU
				 * without a slot queued a frame under drain
				 * (queued_lately() cannot name it); 0: none */
	__u32 rows;		/* rows of steer_seq, steer_deq and
				 * steer_rx_cpu as sized at load (the stride
				 * of steer_deq's key), set with 'limit';
				 * 0: STEER_RX_SLOTS, the rows of versions
				 * before (this word was their pad), whose
				 * maps an upgrade keeps */
};

/* steer_rx_lease[slot]: the lease of a receiver slot (bpf/drain.h,
 * rx_slot_tick()). 'tick' is written by the slot's CPU at its first frame
 * of each tick, and once by a CPU that starts the lease of a slot never
 * seen held; the rest by the slot's CPU only. */
struct steer_rx_lease {
	__u32 tick;		/* jiffies of the last tick its CPU held it;
				 * 0: not seen held since these maps were
				 * made */
	__u32 pending;		/* 1: taken over, not used yet: its CPU
				 * passes its table frames here until a NAPI
				 * poll of its own ends after 'poll' */
	__u32 poll;		/* its CPU's napi_polls at the takeover */
	__u32 pad;
};

/* bpf/pool_mark.bpf.c's steer_pool_limit(), its context. */
struct steer_pool_limit_args {
	__u32 limit;		/* in: the new limit */
	__u32 claimed;		/* out: claimed, read after the store */
};

/* Rows of the slot-keyed maps (steer_seq, steer_deq, steer_rx_cpu,
 * steer_rx_lease). */
static inline __u32 steer_rx_pool_rows(const struct steer_rx_pool *p)
{
	return p->rows && p->rows < STEER_RX_SLOTS ? p->rows : STEER_RX_SLOTS;
}

/* The slots a pool has: its limit. */
static inline __u32 steer_rx_pool_limit(const struct steer_rx_pool *p)
{
	return p->limit && p->limit < STEER_RX_SLOTS ? p->limit :
						       STEER_RX_SLOTS;
}

/* The slots of a pool that are handed out: at most its limit. */
static inline __u32 steer_rx_pool_used(const struct steer_rx_pool *p)
{
	__u32 limit = steer_rx_pool_limit(p);

	return p->claimed < limit ? p->claimed : limit;
}

#endif /* XDP_STEER_INCLUDE_RX_SLOTS_H */
