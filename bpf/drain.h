/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * drain.h - moving a bucket to another CPU without reordering its flows.
 * Included by xdp_steer.bpf.c after the maps; bpf/README.md, "Moving
 * flows", says what is guaranteed.
 *
 * Every frame the receiving CPU queues carries, in the headroom in front
 * of it (struct steer_stamp), its sender, target and sequence number in
 * that sender's stream to that target (steer_seq). The target's cpumap
 * program publishes what it dequeued from each sender, to within
 * STEER_MARK_EPOCH of its frames (steer_deq). A bucket remembers, per receiving
 * CPU, where its last frame went and that frame's sequence number
 * (steer_buckets). When the table sends the bucket elsewhere, its frames
 * keep going to the old target until the old target has handed the last
 * of them to the stack:
 *   - it dequeued at least STEER_FLUSH_GAP frames after it: its kthread
 *     has flushed GRO since (where GRO keeps young segments, HZ >= 1000:
 *     a whole STEER_EPOCH after it, and the epoch after it began the
 *     slot's gro_units ago); or
 *   - it dequeued it, has dequeued nothing for STEER_DRAIN_IDLE_NS (its
 *     clock, steer_wclock, kept while stamped frames may be looked at:
 *     from before our frame left to the look), and no receiving CPU has a stamped frame queued to it (its ring was
 *     empty after its last batch, which makes the kthread flush
 *     everything). The target counts every frame it dequeues, stamped or
 *     not (each cpumap bank runs its own copy of the program);
 * or until the bucket has been idle for the drain timeout (its frames are
 * long delivered). While the old target keeps dequeuing, the bucket waits:
 * on a worker whose ring never empties (overloaded), a busy bucket can
 * move without reordering only in a pause of its own, and waits for one,
 * as RFS does: a bucket carrying more than 1/80 of a busy CPU's frames
 * moves when its flows pause. A target that dequeues nothing for the timeout
 * (stalled, or its CPU gone) lets the bucket go anyway, counted.
 *
 * All of this only inside the drain window (struct steer_window): the
 * loader opens it the drain timeout and two ticks before a flip, so every
 * record not written in it is cold by the flip; outside it, frames go
 * where the table says, unstamped, unrecorded. Only a bucket bound for
 * this CPU's fast path is looked at there, and costs a compare.
 *
 * A frame passed on the receiving CPU itself (the fast path) is handed to
 * the stack when its NAPI poll ends. A bucket leaving the fast path keeps
 * being passed here until a gap in its frames spans a poll's end: at least
 * STEER_POLL_GAP frames of this CPU (and gro_units) since its last one;
 * a bucket without such a gap for the drain timeout (an elephant) moves
 * anyway, counted.
 *
 * Frames of a flow can also reach this CPU's fast path from another
 * receiving CPU's queue to this CPU, which no loader announces: a flow
 * that changed receive queues (Flow Director ATR, an RSS table edit), or
 * a whole receive queue that moved here (its IRQ's affinity, its threaded
 * NAPI). The other CPU queued its frames here up to its last poll of
 * them, and flushed them into this CPU's ring before that poll ended. So
 * a frame this CPU queues to itself now lands behind all of them: a
 * marker. A bucket arriving cold at the fast path (idle for the timeout:
 * maybe from another queue) goes through this CPU's own queue first,
 * stamped, and takes the fast path once its last frame there is out, as
 * any bucket leaving a queue does. A receive queue that moved here
 * (steer_rxq) holds every bucket bound for the fast path the same way,
 * from its first frame here until the marker it sent is out
 * (steer_rxmove), or this CPU's queue stands still for the drain timeout.
 * Both only while another CPU has queued a frame within the drain timeout
 * (queued_lately()): else nothing can wait in this CPU's queue, and a
 * flow that never pauses would stay in it for good.
 * Every frame follows its queue, queued or passed: a CPU that passes none
 * of a queue's frames still takes it, so that the queue coming back is
 * seen. The records this takes are this CPU's own, kept for the buckets
 * concerned only; the window stays shut. And a queue that moves here
 * while its old CPU still holds a bucket on an old target (a drain under
 * way): a bucket cold here follows that CPU's frames there first
 * (rxq_inherited()), and drains from there.
 *
 * Every value read across CPUs is written by one CPU only, and each is one
 * aligned store: a reader sees some past value, never a torn one, and each
 * deq mark states a fact that stays true.
 */
#ifndef XDP_STEER_DRAIN_H
#define XDP_STEER_DRAIN_H

#include "xdp_steer.h"

/* No target: what a lookup of one found nothing for. */
#define NO_TARGET	0xffffffffu

/* A queue target (not STEER_TARGET_LOCAL) as a CPU and its cpumap. */
static __always_inline __u32 target_cpu_of(__u32 target)
{
	return target & (STEER_MAX_CPUS - 1);
}

/* The drain window (struct steer_window) while it is open under
 * rebalance: drain: frames then keep drain records. NULL otherwise. In
 * steady state: one load of a line no CPU writes, two compares. Only for
 * a slot with STEER_F_DRAIN, which every caller has checked already (the
 * check here again cost 3 instructions a frame: bench_prog --insns). */
static __always_inline struct steer_window *window_of(__u32 now)
{
	struct steer_window *w;
	__u32 zero = 0;

	w = bpf_map_lookup_elem(&steer_window, &zero);
	if (!w)
		return NULL;
	if (w->until - now - 1 < STEER_WINDOW_MAX ||
	    w->held_until - now - 1 < STEER_WINDOW_MAX)
		return w;
	return NULL;
}

/*
 * Whether the drain window is shut for a frame at jiffies 'j' (all 64
 * bits, as bpf_jiffies64() gives them), as window_of() says, asked of the
 * window once a tick per CPU: a shut window found at tick j is taken as
 * shut for the rest of that tick (st->window_shut). A window opened
 * meanwhile is seen from the next tick on. That changes no record's tick:
 * the frames it leaves unrecorded are of the tick in which the loader's
 * store became visible or earlier, as those that read the window just
 * before it are, and the loader's wait (the drain timeout and two ticks,
 * struct steer_window) is counted in ticks. Only the loader opens a shut
 * window (window_hold() extends an open one); an open one is asked every
 * frame.
 */
static __always_inline int window_shut(struct steer_stats *st, __u64 j)
{
	if (st->window_shut == j)
		return 1;
	/* Asked for a frame bound for a queue: the tick counts as one
	 * this CPU queued in (queued_lately()), window open or shut. */
	st->queued_tick = j;
	if (window_of((__u32)j))
		return 0;
	st->window_shut = j;
	return 1;
}

/* A bucket is held back at 'now': keep the window open until it would be
 * cold (its drain timeout, and a tick for the reading of jiffies). Written
 * at most once a tick per CPU; a racing CPU may store a tick less, which
 * the second tick covers. */
static __always_inline void window_hold(struct steer_window *w,
					const struct steer_slot *slot,
					__u32 now)
{
	__u32 end = now + slot->drain_units + 2;

	if (w->held_until - end > STEER_WINDOW_MAX)
		w->held_until = end;
}

/* A drain may look at a frame stamped now for the drain timeout: keep the
 * target's clock on (steer_wclock) until it cannot, and a tick for the
 * reading of jiffies. Written at most once a tick per CPU. */
static __always_inline void clock_hold(const struct steer_slot *slot,
				       __u32 target)
{
	struct steer_wclock *clock;
	__u32 end;

	clock = bpf_map_lookup_elem(&steer_wclock, &target);
	if (!clock)
		return;
	/* Never 0: that is a clock no sender ever held on. */
	end = ((__u32)bpf_jiffies64() + slot->drain_units + 2) | 1;
	if (!clock->until || clock->until - end > STEER_WINDOW_MAX)
		clock->until = end;
}

/* Queues the frame to CPU 'cpu' of cpumap bank 'bank' (0 or 1). Returns
 * the XDP verdict: XDP_REDIRECT, or the cpumap's XDP_PASS fallback when
 * the CPU has no entry there. */
static __always_inline int redirect_to(int bank, __u32 cpu)
{
	int ret;

	/* One call site per map: the verifier then calls the cpumap's own
	 * redirect directly. clang would merge the two calls into one with
	 * the map in a register (their code after the call is the same),
	 * and the verifier, seeing two maps at one call, would fall back to
	 * the generic helper's indirect call: 25-30 ns more a frame under
	 * retpolines. The empty asm in one branch keeps them apart. */
	if (bank) {
		ret = bpf_redirect_map(&cpu_map_b, cpu, XDP_PASS);
		barrier_var(ret);
	} else {
		ret = bpf_redirect_map(&cpu_map, cpu, XDP_PASS);
	}
	return ret;
}

/* Queues the frame to 'target' and stamps it. Returns the XDP verdict:
 * XDP_REDIRECT, or the cpumap's XDP_PASS fallback when the target has no
 * entry. *seq gets the frame's place in this CPU's stream to the target. */
static __always_inline int queue_frame(struct xdp_md *ctx,
				       const struct steer_slot *slot,
				       struct steer_stats *st, __u32 me,
				       __u32 target, int stamp, __u32 *seq)
{
	__u32 idx = me * STEER_TARGETS + target, *s, *active, zero = 0;
	struct steer_stamp *m;
	__u64 *key;
	void *end;
	__u64 j;
	int ret;

	ret = redirect_to(target >= STEER_MAX_CPUS, target_cpu_of(target));
	if (ret != XDP_REDIRECT || !stamp)
		return ret;
	/* A frame queued under drain has either asked window_shut(), which
	 * noted its tick, or is stamped (deliver_drain()'s held and cold
	 * frames): note the tick here for those (queued_lately()). The
	 * verifier inlines the helper into one load. */
	j = bpf_jiffies64();
	if (st->queued_tick != j)
		st->queued_tick = j;
	s = bpf_map_lookup_elem(&steer_seq, &idx);
	if (!s)
		return ret;
	/* This CPU's first frame to the target (or its count wrapped):
	 * make sure drains look at this CPU's queues. Once per target, not
	 * per frame; read before written, so no line bounces. */
	if (!*s) {
		active = bpf_map_lookup_elem(&steer_rx_cpus, &me);
		if (active && !*active)
			*active = 1;
	}
	*seq = *s + 1;
	*s = *seq;
	/* Before the frame leaves (after we return): the worker that
	 * dequeues it finds its clock on. */
	clock_hold(slot, target);
	/* The frame leaves after we return, so the stamp can still be
	 * written: in the headroom in front of it (struct steer_stamp), the
	 * frame's start moved there and back. A frame without that room
	 * (none seen: drivers keep XDP_PACKET_HEADROOM) goes unstamped, its
	 * bucket then drains by the timeout only. */
	key = bpf_map_lookup_elem(&steer_stamp_key, &zero);
	if (!key || !*key || bpf_xdp_adjust_head(ctx, -(int)sizeof(*m))) {
		st->unstamped++;
		return ret;
	}
	m = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	if ((void *)(m + 1) <= end) {
		m->seq = *seq;
		m->rx_cpu = me;
		m->target = target;
		m->tag = steer_stamp_tag(*seq, me, target, *key);
	} else {
		st->unstamped++;
	}
	/* Back to the frame's own start: the headroom it left is the
	 * stamp's size, so this cannot fail (XDP_ABORTED if it did, rather
	 * than hand on a frame with 16 bytes in front). */
	if (bpf_xdp_adjust_head(ctx, (int)sizeof(*m)))
		return XDP_ABORTED;
	return ret;
}

/*
 * drained() and rxq_moved() below are global functions: the verifier
 * checks each once, on its own, instead of at every call site (the scan
 * of all receiving CPUs, inlined at drained()'s two call sites, passes its
 * million-instruction limit). queue_empty() and rxmove_wait(), each with
 * one caller, are inlined into it: every call adds a frame to the chain
 * whose stack 6.1's verifier rounds up to 32 bytes and caps at 512
 * (tests/unit/test_bpf_stack.py), and as calls they left the main
 * program's chain no room to grow (512, now 448). All of them run only
 * for buckets that move or arrive cold, never in steady state.
 */

/* 1 when every stamped frame any receiving CPU queued to 'target' has
 * been dequeued there. */
static __always_inline int queue_empty(__u32 target)
{
	__u32 rx, idx, *active, *sent, seq, s;
	struct steer_deq *d;
	int i;

	if (target >= STEER_TARGETS)
		return 0;
	/* The counter stays in a register: the keys handed to the helper
	 * are copies, else the verifier loses the counter's value in the
	 * stack slot and cannot see the loop end. */
	for (rx = 0; rx < STEER_MAX_CPUS; rx++) {
		idx = rx;
		active = bpf_map_lookup_elem(&steer_rx_cpus, &idx);
		if (!active || !*active)
			continue;
		idx = rx * STEER_TARGETS + target;
		sent = bpf_map_lookup_elem(&steer_seq, &idx);
		idx = target * STEER_MAX_CPUS + rx;
		d = bpf_map_lookup_elem(&steer_deq, &idx);
		if (!sent || !d)
			return 0;
		/* The latest mark: the furthest stamp. */
		seq = STEER_MARK_SEQ(*(volatile __u64 *)&d->h[0]);
#pragma unroll
		for (i = 1; i < STEER_MARKS; i++) {
			s = STEER_MARK_SEQ(*(volatile __u64 *)&d->h[i]);
			if ((__s32)(s - seq) > 0)
				seq = s;
		}
		if (seq != *(volatile __u32 *)sent)
			return 0;
	}
	return 1;
}

enum drain_state {
	DRAIN_WAIT,		/* keep sending to the old target */
	DRAIN_DONE,		/* everything queued there is delivered */
	DRAIN_STALLED,		/* no progress for the drain timeout */
};

/* The slot's drain timeout and gro_units in one argument: a BPF function
 * takes five. */
#define DRAIN_LIMITS(slot) \
	((__u64)(slot)->drain_units | (__u64)(slot)->gro_units << 32)

/* Whether 'target' has handed the stack every frame up to 'seq' that this
 * CPU (me) queued to it (see the top of this file). Times in
 * jiffies; 'limits' from DRAIN_LIMITS(). */
__noinline int drained(__u32 me, __u32 target, __u32 seq, __u32 now,
		       __u64 limits)
{
	__u32 timeout = (__u32)limits, gro_units = limits >> 32;
	__u32 idx = target * STEER_MAX_CPUS + me, *wt, *began, total, at = 0;
	struct steer_wclock *clock;
	struct steer_deq *d;
	struct steer_idle *idle;
	int found = 0, i;
	__u64 mark, now_ns;

	if (target >= STEER_TARGETS || me >= STEER_MAX_CPUS)
		return DRAIN_WAIT;
	d = bpf_map_lookup_elem(&steer_deq, &idx);
	wt = bpf_map_lookup_elem(&steer_wtot, &target);
	idle = bpf_map_lookup_elem(&steer_idle, &target);
	if (!d || !wt || !idle)
		return DRAIN_WAIT;
	/* Progress: when this CPU last saw the target's count change. A
	 * watch interrupted for the timeout starts over: the count may have
	 * stood still only because nothing was queued there then. */
	total = *(volatile __u32 *)wt;
	if (idle->total != total || now - idle->checked >= timeout) {
		idle->total = total;
		idle->seen = now;
	} else if (now - idle->seen >= timeout) {
		return DRAIN_STALLED;
	}
	idle->checked = now;
	/* The earliest mark at or past our frame bounds when it was
	 * dequeued. */
#pragma unroll
	for (i = 0; i < STEER_MARKS; i++) {
		mark = *(volatile __u64 *)&d->h[i];
		if (mark && (__s32)(STEER_MARK_SEQ(mark) - seq) >= 0 &&
		    (!found || (__s32)(STEER_MARK_TOTAL(mark) - at) < 0)) {
			at = STEER_MARK_TOTAL(mark);
			found = 1;
		}
	}
	if (!found)
		return DRAIN_WAIT;
	if (!gro_units && total - at >= STEER_FLUSH_GAP)
		return DRAIN_DONE;
	if (gro_units && total - at >= STEER_EPOCH) {
		/* Dequeued before the next epoch began; that slot holds its
		 * start, or a later epoch's. */
		idx = target * 4 + ((at / STEER_EPOCH + 1) & 3);
		began = bpf_map_lookup_elem(&steer_wtime, &idx);
		if (began && now - *(volatile __u32 *)began >= gro_units)
			return DRAIN_DONE;
	}
	/* The worker's clock has been on since our frame left (its
	 * stamp held it on for the drain timeout, and a look comes sooner:
	 * else the bucket is cold). Signed: the worker may have stamped
	 * after now_ns was read, and that is busy, not idle for 2^64 ns. */
	now_ns = bpf_ktime_get_ns();
	clock = bpf_map_lookup_elem(&steer_wclock, &target);
	if (!clock || (__s64)(now_ns - *(volatile __u64 *)&clock->last_ns) <
		      STEER_DRAIN_IDLE_NS)
		return DRAIN_WAIT;
	return queue_empty(target) ? DRAIN_DONE : DRAIN_WAIT;
}

/* Whether a receiving CPU other than 'me' queued a frame within the
 * drain timeout (steer_stats.queued_tick, 'now' in jiffies): only then
 * can frames of a bucket cold here still wait in this CPU's own queue,
 * put there by that CPU before the flow came here (see the top), and
 * only then does the bucket need the marker. Without it, a flow that
 * arrives cold at the only receiving CPU's fast path and never pauses
 * (one flow at saturation) stays in that CPU's own queue for good: its
 * last frame there is never out while the next keeps coming. A frame
 * another CPU queued longer ago than the timeout is taken as delivered,
 * as an idle bucket's are. Each CPU's tick is one aligned store of its
 * own, made before the frames it covers leave (their ring's lock orders
 * them); a CPU past the possible ones finds no entry and ends the scan.
 * A global function, checked once by the verifier (see drained()). */
__noinline int queued_lately(__u32 me, __u32 now, __u32 timeout)
{
	const struct steer_stats *st;
	__u32 zero = 0, cpu, other;
	__u64 t;

	for (cpu = 0; cpu < STEER_MAX_CPUS; cpu++) {
		st = bpf_map_lookup_percpu_elem(&steer_stats, &zero, cpu);
		if (!st)
			return 0;
		/* 1 unless cpu is me, by arithmetic: a branch on cpu == me
		 * would teach the verifier me's value, and it would then
		 * walk the rest of the loop once for every value. */
		other = cpu ^ me;
		barrier_var(other);
		other = (other | -other) >> 31;
		t = *(volatile __u64 *)&st->queued_tick;
		if (other && t && now - (__u32)t <= timeout)
			return 1;
	}
	return 0;
}

/* A receive queue moved here (see the top): hold the fast path until a
 * marker sent from now on is out. A second move while one is waited out
 * starts over: its old CPU may have queued here after the first marker. */
static __always_inline void rxmove_begin(struct steer_rxmove *mv, __u32 now)
{
	mv->seq = 0;
	mv->since = now ? now : 1;
	mv->pending = 1;
}

enum rxmove_state {
	RXMOVE_CLEAR,		/* nothing of the old CPU left here */
	RXMOVE_WAIT,		/* keep off the fast path */
	RXMOVE_TIMEOUT,		/* clear by the drain timeout */
};

/* Whether the marker of a queue that moved here (steer_rxmove) has
 * reached the stack. 'limits' from DRAIN_LIMITS(). */
static __always_inline int rxmove_wait(__u32 me, __u32 now, __u64 limits)
{
	struct steer_rxmove *mv;
	__u32 zero = 0;
	int state;

	mv = bpf_map_lookup_elem(&steer_rxmove, &zero);
	if (!mv || !mv->pending)
		return RXMOVE_CLEAR;
	/* Evidence first: after a pause longer than the timeout the
	 * marker is long out, and that is no stall. Once the marker is
	 * queued, only a queue that stops moving for the timeout ends the
	 * wait (drained() watches it, as for a bucket's drain): a CPU the
	 * hypervisor held still, or whose kthread waited its turn, has not
	 * stalled, and its frames are still in front of ours. The time
	 * since the move bounds only a wait for a marker that could not be
	 * queued (this CPU's entry missing). */
	state = mv->seq ? drained(me, mv->target, mv->seq, now, limits) :
		DRAIN_WAIT;	/* no marker yet: this frame becomes it */
	if (state == DRAIN_WAIT &&
	    (mv->seq || now - mv->since < (__u32)limits))
		return RXMOVE_WAIT;
	mv->pending = 0;
	return state == DRAIN_DONE ? RXMOVE_CLEAR : RXMOVE_TIMEOUT;
}

/* A held frame went to 'target' with stamp 'seq': the marker, when it is
 * the first since the move that went to this CPU's own queue. */
static __always_inline void rxmove_mark(__u32 me, __u32 target, __u32 seq)
{
	struct steer_rxmove *mv;
	__u32 zero = 0;

	if (!seq || (target & STEER_TARGET_LOCAL) ||
	    target_cpu_of(target) != me)
		return;
	mv = bpf_map_lookup_elem(&steer_rxmove, &zero);
	if (mv && mv->pending && !mv->seq) {
		mv->target = target;
		mv->seq = seq;
	}
}

/* Receive queue 'q' left 'cpu' for this CPU: cpu's cache must not say
 * the queue is its own when the queue comes back; it then looks in
 * steer_rxq and sees the move. Its last frame of the queue came before our
 * first (one NAPI poll at a time), so it cannot write q + 1 again
 * meanwhile; a store of another queue racing this one costs it a look. */
static __always_inline void rxq_forget(__u32 q, __u32 cpu)
{
	struct steer_stats *was;
	__u32 zero = 0;

	was = bpf_map_lookup_percpu_elem(&steer_stats, &zero, cpu);
	if (was && (__u32)was->rxq_mine == q + 1)
		was->rxq_mine = 0;
}

/* The last queue to move here came from CPU prev - 1 (see
 * steer_rxmove, rxq_inherited()). */
static __always_inline void rxmove_from(struct steer_rxmove *mv, __u32 prev,
					__u32 now)
{
	mv->from = prev;
	mv->from_at = now ? now : 1;
}

/* A bucket cold here, under a receive queue that came here from another
 * CPU within the drain timeout: that CPU may have been holding the
 * bucket's frames on an old target (a drain under way when the queue
 * moved). Its record of the bucket says so: warm, and queued somewhere
 * (its fast path's frames reached the stack before its poll ended).
 * Returns that target, or NO_TARGET. Read across CPUs: each field
 * one aligned store of the old CPU, which no longer polls the queue. */
static __always_inline __u32 rxq_inherited(__u32 bucket,
					   const struct steer_slot *slot,
					   __u32 now)
{
	const struct steer_bucket *old;
	struct steer_rxmove *mv;
	__u32 zero = 0, last;

	mv = bpf_map_lookup_elem(&steer_rxmove, &zero);
	if (!mv || !mv->from || now - mv->from_at >= slot->drain_units)
		return NO_TARGET;
	old = bpf_map_lookup_percpu_elem(&steer_buckets, &bucket,
					 mv->from - 1);
	if (!old)
		return NO_TARGET;
	last = *(volatile __u32 *)&old->last;
	if (!last || now - last >= slot->drain_units ||
	    (old->target & STEER_TARGET_LOCAL))
		return NO_TARGET;
	return old->target;
}

/* rxq_moved() results. */
#define RXQ_HOLD	1	/* take this CPU's queue, not the fast path */
#define RXQ_MOVED	2	/* count in rxq_moves */
#define RXQ_TIMEOUT	4	/* count in moves_timeout */

/* The queue 'q' of a frame on this CPU is not plainly this CPU's in
 * steer_rxq: it moved here, or a move here is being waited out. Says what
 * to do with the frame (RXQ_* bits). Global: the steady state never calls
 * it, and the datapath stays small. */
__noinline int rxq_moved(__u32 q, __u32 me, __u32 now, __u64 limits)
{
	struct steer_rxmove *mv;
	__u32 zero = 0, *owner, prev;
	int state, ret = 0;

	owner = bpf_map_lookup_elem(&steer_rxq, &q);
	mv = bpf_map_lookup_elem(&steer_rxmove, &zero);
	if (!owner || !mv || me >= STEER_MAX_CPUS)
		return 0;
	prev = *owner & ~(STEER_RXQ_PENDING | STEER_RXQ_QUEUED);
	if (prev != me + 1 || (*owner & STEER_RXQ_QUEUED)) {
		/* Moved here. 0: no CPU passed a frame of it yet, but some
		 * CPU may have queued its frames here: wait all the same,
		 * uncounted (once per queue after attach). This CPU with
		 * STEER_RXQ_QUEUED: its queued frames saw the move, and
		 * counted it; its fast path waits it out from now. */
		if (prev && prev != me + 1) {
			ret |= RXQ_MOVED;
			rxmove_from(mv, prev, now);
			rxq_forget(q, prev - 1);
		}
		/* Only frames another CPU queued can wait in this CPU's
		 * queue: with none queued lately, nothing to wait for. */
		if (queued_lately(me, now, (__u32)limits))
			rxmove_begin(mv, now);
	} else if (!mv->pending) {
		*owner = me + 1;	/* waited out, by a frame of another queue */
		return 0;
	}
	*owner = (me + 1) | (mv->pending ? STEER_RXQ_PENDING : 0);
	if (!mv->pending)
		return ret;
	state = rxmove_wait(me, now, limits);
	if (state != RXMOVE_WAIT)
		*owner = me + 1;
	if (state == RXMOVE_TIMEOUT)
		ret |= RXQ_TIMEOUT;
	return state == RXMOVE_WAIT ? ret | RXQ_HOLD : ret;
}

/* Follows the CPU of the frame's receive queue and says whether a frame
 * bound for this CPU's fast path must take this CPU's queue instead (see
 * the top). The queue's word holds this CPU, and STEER_RXQ_PENDING while
 * a move here is being waited out. Once it plainly holds this CPU, the
 * steady state reads st->rxq_mine instead (fastpath_steady()), until
 * another queue's frame comes or another CPU takes the queue. */
static __always_inline int rxq_hold_fastpath(struct xdp_md *ctx,
					     struct steer_stats *st,
					     __u32 me, __u32 now, __u64 limits)
{
	__u32 q = ctx->rx_queue_index, *owner;
	int r;

	owner = bpf_map_lookup_elem(&steer_rxq, &q);
	if (!owner || *owner == me + 1) {
		st->rxq_mine = (__u64)q + 1;
		return 0;
	}
	r = rxq_moved(q, me, now, limits);
	if (r & RXQ_MOVED)
		st->rxq_moves++;
	if (r & RXQ_TIMEOUT)
		st->moves_timeout++;
	return r & RXQ_HOLD;
}

/* Whether st->rxq_mine says this CPU holds the frame's receive queue in
 * steer_rxq, as any holder: a queued frame then has nothing to note. (A
 * slot without the fast path needs no following, but testing its flag
 * first cost the default, with it, 4 instructions a frame.) */
static __always_inline int rxq_held_queued(const struct xdp_md *ctx,
					   const struct steer_stats *st)
{
	return (__u32)st->rxq_mine == ctx->rx_queue_index + 1;
}

/* A frame this CPU queues elsewhere, of a queue rxq_held_queued() did not
 * find held here. A queue's frames must be followed whatever becomes of
 * them: had it moved here from B, and this CPU sent all of it elsewhere,
 * then back to B, B would not see it left, and its fast path could
 * overtake the frames this CPU queued to B meanwhile. So this CPU takes
 * the queue, as one that queued its frames (STEER_RXQ_QUEUED), and
 * clears B's cache. Nothing waits for a queued frame: every frame the old
 * CPU queued is in the rings before this CPU's (its poll flushed them);
 * only this CPU's fast path waits, from its first frame (rxq_moved()).
 * Returns 1 when the queue moved here from another CPU. */
static __always_inline int rxq_follow_queued(struct xdp_md *ctx,
					     struct steer_stats *st, __u32 me,
					     __u32 now)
{
	__u32 q = ctx->rx_queue_index, zero = 0, *owner, prev;
	struct steer_rxmove *mv;

	owner = bpf_map_lookup_elem(&steer_rxq, &q);
	if (!owner || me >= STEER_MAX_CPUS) {
		st->rxq_mine = STEER_RXQ_MINE_QUEUED | ((__u64)q + 1);
		return 0;
	}
	prev = *owner & ~(STEER_RXQ_PENDING | STEER_RXQ_QUEUED);
	if (prev == me + 1) {
		st->rxq_mine = (*owner == me + 1 ? 0 : STEER_RXQ_MINE_QUEUED) |
			       ((__u64)q + 1);
		return 0;
	}
	*owner = (me + 1) | STEER_RXQ_QUEUED;
	st->rxq_mine = STEER_RXQ_MINE_QUEUED | ((__u64)q + 1);
	if (!prev)
		return 0;
	rxq_forget(q, prev - 1);
	mv = bpf_map_lookup_elem(&steer_rxmove, &zero);
	if (mv)
		rxmove_from(mv, prev, now);
	return 1;
}

#endif /* XDP_STEER_DRAIN_H */
