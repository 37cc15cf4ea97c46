/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdp_steer/drain.h - the drain's evidence and rule: bucket records,
 * workers' marks and reports, and the verdict both sides judge by.
 */
#ifndef XDP_STEER_INCLUDE_DRAIN_H
#define XDP_STEER_INCLUDE_DRAIN_H

#include <linux/types.h>

/* Drain bookkeeping keeps time in jiffies, cut to 32 bits (bpf_jiffies64():
 * one load, cheap enough for every frame, where bpf_ktime_get_coarse_ns()
 * cost 20-30 ns; and the clock GRO ages segments by). The loader turns the
 * policy's milliseconds into the running kernel's ticks. */

/* A worker's cpumap kthread takes frames off its ring in batches of at
 * most 8 (CPUMAP_BATCH) and reports each batch at its xdp_cpumap_kthread
 * tracepoint with bottom halves off, after the batch's skbs are built and
 * before they go up; what is left of the batch then runs without a
 * preemption point. Since Linux 6.14 the kthread hands the skbs to the
 * stack (a GRO flush) at the end of the first batch that finds its ring
 * empty or brings the frames since the last flush to 64
 * (NAPI_POLL_WEIGHT): at most 63 + 8 = 71 frames from the start of a
 * frame's batch to the end of its flush's batch. Once batches of 80
 * frames from that start have been reported, a later batch has begun,
 * and that flush is over. */
#define STEER_FLUSH_GAP		80
/* The worker keeps a mark (steer_deq) per epoch of STEER_MARK_EPOCH of its
 * reported frames, the last STEER_MARKS epochs of them. Powers of two: the
 * worker divides by shifting. */
#define STEER_MARK_EPOCH	32
#define STEER_MARKS		4
/* ... and the time each epoch of STEER_EPOCH frames began
 * (steer_wdone.epoch_at). */
#define STEER_EPOCH		128
/* On kernels with HZ >= 1000 a flush that does not empty the ring keeps
 * GRO segments younger than a tick; such a frame is handed on by the
 * first flush of a later tick. A bucket there waits until the epoch after
 * its frame began this many jiffies ago and a whole epoch has followed
 * (STEER_EPOCH > STEER_FLUSH_GAP). Below HZ=1000 every flush is a full
 * one. The loader sets the slot's gro_units to this or 0. */
#define STEER_GRO_UNITS		2
/* After a worker's last batch report, what is left of that batch (its
 * skbs up the stack, a GRO flush) runs with bottom halves off: no task,
 * whatever its priority, can hold it up; only interrupts and the
 * hypervisor can. A worker whose ring is empty and that has reported
 * nothing for this long has finished. Up to 71 skbs at 1-2 us each on a
 * 2-vCPU VM: 500 us is several times that. */
#define STEER_DRAIN_IDLE_NS	500000

/* steer_buckets[hash % STEER_TABLE_MAX], per receiving CPU: where the
 * frames of that drain bucket went last. Drain buckets are the finest
 * table's buckets whatever the table's size, so a flow keeps its record
 * when table_size changes; each lies in one table bucket. A bucket whose
 * table CPU changed keeps sending to 'target' until the evidence says its
 * last frame there reached the stack (bpf/drain.h); no clock ends that
 * wait. */
struct steer_bucket {
	__u16 target;		/* STEER_TARGET_* bits over a target id */
	__u16 pad;
	__u32 seq;		/* steer_seq stamp of its last frame queued to
				 * 'target'; 0: that frame was not stamped */
	__u32 last;		/* time of its last frame, jiffies;
				 * 0: none yet (the map starts zeroed) */
	__u32 since;		/* when its drain began; 0: not draining */
	__u32 poll;		/* this CPU's napi_polls at its last frame */
	__u32 gen;		/* steer_window.gen when written (a queued
				 * target's record is evidence only from
				 * its slot's drain_gen on) */
};
/* steer_bucket.target: passed on the receiving CPU itself. */
#define STEER_TARGET_LOCAL	0x8000u

/* Whether a record says where the bucket's last frame went, under a slot
 * whose drain_gen is 'drain_gen': one written (last != 0) on the fast
 * path (those records are kept always) or in the slot's warm-up or later.
 * An older record of a queued target says nothing: every frame queued
 * before that warm-up had reached the stack by the flip (kernel/window.h).
 * The datapath, status and which judge records alike. */
static inline int steer_bucket_live(const struct steer_bucket *b,
				    __u32 drain_gen)
{
	return b->last && ((b->target & STEER_TARGET_LOCAL) ||
			   (__s32)(b->gen - drain_gen) >= 0);
}

/* Whether a bucket's last frame passed on the fast path of a receiving
 * CPU whose napi_polls and napi_poll_tick (struct steer_stats) are
 * 'polls' and 'poll_tick' is up the stack: a poll has ended there since
 * (b->poll); where GRO keeps young segments (gro_units, HZ >= 1000), one
 * that ended at a later tick than the frame's. The datapath and the
 * loader judge a bucket leaving the fast path alike. */
static inline int steer_polled_since(__u32 polls, __u32 poll_tick,
				     const struct steer_bucket *b,
				     __u32 gro_units)
{
	return (__s32)(polls - b->poll) > 0 &&
	       (!gro_units || (__s32)(poll_tick - b->last) > 0);
}

/* steer_deq[target * rows + rx slot] (steer_rx_pool_rows()): how far
 * the target's cpumap program got in the stamped frames of the receiving
 * CPU holding that slot: per epoch e of the target's reported frames
 * (steer_wdone.frames / STEER_MARK_EPOCH), at h[e % STEER_MARKS], the
 * last stamp taken then and the report count before its batch (its
 * base). Each mark is one 64-bit word, written in one store so no reader
 * sees half of one: the stamp in bits 0-31, the base in bits 32-63. Frames up to a mark's stamp were in batches that
 * began at most at its base: a fact that stays true, so any mark, however
 * old, bounds the frames before it. */
struct steer_deq {
	__u64 h[STEER_MARKS];
};
#define STEER_MARK(seq, base)	((__u64)(seq) | (__u64)(base) << 32)
#define STEER_MARK_SEQ(m)	((__u32)(m))
#define STEER_MARK_BASE(m)	((__u32)((m) >> 32))

/* steer_wdone[target]: what the target's cpumap kthread has reported, one
 * batch at a time, at the xdp_cpumap_kthread tracepoint (bpf/
 * cpumap_trace.bpf.c). The tracepoint program tells the entry by the
 * kthread's name and the cpumap's id, so the count stays the entry's
 * wherever the kthread runs (its CPU offline: kernel/kthreads.h). Written
 * by that kthread only; one line each, as a worker writes it every batch.
 * Reports of batches that took no frame change only the clocks. */
struct steer_wdone {
	__u32 frames;		/* frames taken off the ring in reported
				 * batches (wraps) */
	__u32 last_tick;	/* jiffies at the last report */
	__u64 last_ns;		/* bpf_ktime_get_ns() at the last report */
	__u32 epoch_at[4];	/* jiffies when epoch e of STEER_EPOCH
				 * frames began, at [e % 4] */
	__u64 pad[4];
};

/* steer_wenq[target]: frames that entered the target's ring, added at the
 * xdp_cpumap_enqueue tracepoint by every CPU that queues there (an atomic
 * add per flush of up to 8 frames, right after the flush took the ring's
 * producer lock: the line moves between the same CPUs as that lock).
 * With steer_wdone.frames: the ring is empty when the two are equal. */
struct steer_wenq {
	__u32 frames;		/* wraps */
	__u32 pad[15];
};

/* What a drain knows of one target (bpf/drain.h), read in this order:
 * the enqueue count first, so that a frame counted there and taken off
 * since is in the reports read after. */
struct steer_drain_facts {
	__u32 enq;		/* steer_wenq.frames */
	__u32 done;		/* steer_wdone.frames */
	__u32 last_tick;	/* steer_wdone.last_tick */
	__u32 epoch_next;	/* steer_wdone.epoch_at[] of the epoch after
				 * the mark's base (with gro_units only) */
	__u64 last_ns;		/* steer_wdone.last_ns */
};

/* What a drain decides (steer_drain_verdict()). */
enum steer_drain {
	STEER_DRAIN_WAIT,	/* keep sending to the old target */
	STEER_DRAIN_DONE,	/* its last frame there is up the stack */
	STEER_DRAIN_STALLED,	/* wait; the target has taken nothing off
				 * its waiting ring for the timeout */
};

/* The earliest of a receiving CPU's marks at a target (struct steer_deq,
 * 'h' may be the map's own) at or past stamp 'seq' (0: unstamped, never
 * found): 1 with its base in *base. */
static inline int steer_mark_base(const __u64 h[STEER_MARKS], __u32 seq,
				  __u32 *base)
{
	int found = 0, i;
	__u64 m;

	for (i = 0; i < STEER_MARKS; i++) {
		/* Once: a worker may write the mark meanwhile, and a stamp
		 * with another mark's base would prove too much. */
		m = *(const volatile __u64 *)&h[i];
		if (seq && m && (__s32)(STEER_MARK_SEQ(m) - seq) >= 0 &&
		    (!found || (__s32)(STEER_MARK_BASE(m) - *base) < 0)) {
			*base = STEER_MARK_BASE(m);
			found = 1;
		}
	}
	return found;
}

/*
 * Whether a target has handed the stack the last frame a receiving CPU
 * queued to it (bpf/drain.h says why each test suffices): 'found' and
 * 'base' from steer_mark_base() for its stamp; 'polled': a NAPI poll of
 * that CPU has ended since it was sent; 'f' the target's facts; 'now'
 * jiffies and 'now_ns' bpf_ktime_get_ns() (CLOCK_MONOTONIC), read after
 * the facts; 'timeout' the drain timeout and 'gro_units' the slot's, in
 * jiffies. The datapath decides every move with it, and status, which and
 * the loader's retiring judge records with it alike.
 */
static inline int steer_drain_verdict(int found, __u32 base, int polled,
				      const struct steer_drain_facts *f,
				      __u32 now, __u64 now_ns, __u32 timeout,
				      __u32 gro_units)
{
	/* A later batch began after the flush that took the frame. Signed:
	 * a mark read after the count may be ahead of it. */
	if (found && !gro_units &&
	    (__s32)(f->done - base) >= STEER_FLUSH_GAP)
		return STEER_DRAIN_DONE;
	if (found && gro_units && (__s32)(f->done - base) >= STEER_EPOCH &&
	    now - f->epoch_next >= gro_units)
		return STEER_DRAIN_DONE;
	/* Idle: the frame has left its sender, nothing waits in the ring,
	 * and the last batch is over. */
	if (!found && !polled)
		return STEER_DRAIN_WAIT;
	if ((__s32)(f->enq - f->done) > 0)
		return now - f->last_tick >= timeout ? STEER_DRAIN_STALLED :
						       STEER_DRAIN_WAIT;
	/* Signed: the kthread may report after now_ns was read. */
	if ((__s64)(now_ns - f->last_ns) < STEER_DRAIN_IDLE_NS)
		return STEER_DRAIN_WAIT;
	return STEER_DRAIN_DONE;
}

/* Whether every frame among the first 'upto' that entered a target's ring
 * is up the stack (the loader's warm-up: kernel/window.h), by the tests
 * of steer_drain_verdict() for the last of them. */
static inline int steer_ring_delivered(__u32 upto,
				       const struct steer_drain_facts *f,
				       __u32 now, __u64 now_ns,
				       __u32 gro_units)
{
	if ((__s32)(f->done - upto) < 0)
		return 0;
	return steer_drain_verdict(1, upto, 1, f, now, now_ns, 0xffffffffu,
				   gro_units) == STEER_DRAIN_DONE;
}

#endif /* XDP_STEER_INCLUDE_DRAIN_H */
