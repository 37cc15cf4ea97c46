/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * drain.h - moving a bucket to another CPU without reordering its flows.
 * Included by xdp_steer.bpf.c after the maps; bpf/README.md, "Moving
 * flows", says what is guaranteed.
 *
 * The rule is RFS's: a flow moves only once its old CPU has handed its
 * last frame to the stack, and no clock stands in for that evidence. A
 * bucket whose table CPU changed keeps sending to its old target for as
 * long as it takes; a target that makes no progress keeps its buckets.
 *
 * Every frame the receiving CPU queues while a drain may ask carries, in
 * the headroom in front of it (struct steer_stamp), its sender, target
 * and sequence number in that sender's stream to that target (steer_seq).
 * The target's cpumap program marks how far it got in each sender's
 * stream, against the count of frames its kthread had reported before the
 * frame's batch (steer_deq, steer_wdone: the kthread reports each batch at
 * a tracepoint, bpf/cpumap_trace.bpf.c). A bucket remembers, per
 * receiving CPU, where its last frame went, its stamp and the CPU's count
 * of ended NAPI polls then (steer_buckets). The old target has handed
 * that frame to the stack when
 *   - reports of STEER_FLUSH_GAP frames from the start of its batch on
 *     have come: a later batch has begun, so the GRO flush that took the
 *     frame is over (where GRO keeps young segments, HZ >= 1000: a whole
 *     STEER_EPOCH after it, and the epoch after it began gro_units ago);
 *     or
 *   - the frame has left this CPU (a mark at or past it, or a NAPI poll
 *     ended since: its flush into the ring is done, or it was dropped
 *     there), every frame that entered the ring has been reported
 *     (steer_wenq, steer_wdone), and the last report is STEER_DRAIN_IDLE_NS
 *     old: the rest of that batch, its flush included, runs with bottom
 *     halves off, which no task delays.
 * Both hold wherever the kthread runs (its CPU offline) and however long
 * it waits its turn. A full ring's drops are in the counts, so they pin
 * nothing.
 *
 * A frame passed on the receiving CPU itself (the fast path) reaches the
 * stack before its NAPI poll returns. A bucket leaving the fast path keeps
 * being passed here until a poll has ended since its last frame here
 * (steer_stats.napi_polls; from HZ=1000, one at a later tick).
 *
 * Records and stamps cost time, and only buckets that move need them, at
 * a flip: so every queued frame keeps them only in the warm-up before a
 * flip (struct steer_window), and a bucket afterwards only while it
 * drains. Between, a queued frame looks the window up and reads its
 * bucket's record, and writes nothing.
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
 * (steer_rxmove). Both only while another CPU has queued a frame within
 * the drain timeout (queued_lately()): else nothing can wait in this
 * CPU's queue, and a flow that never pauses would stay in it for good.
 * These are guesses about moves nobody announced, and the only place a
 * clock decides: bpf/README.md lists what they leave uncovered.
 * Every frame follows its queue, queued or passed: a CPU that passes none
 * of a queue's frames still takes it, so that the queue coming back is
 * seen. And a queue that moves here while its old CPU still holds a
 * bucket on an old target (a drain under way): a bucket cold here follows
 * that CPU's frames there first (rxq_inherited()), and drains from there.
 *
 * Every value read across CPUs is written by one CPU only (steer_wenq:
 * atomically by many; a receiver slot's CPU and lease tick: by
 * compare and swap and exchange, rx_slot_tick()), and each is one aligned
 * store: a reader sees some past value, never a torn one, and each deq
 * mark states a fact that stays true.
 */
#ifndef XDP_STEER_DRAIN_H
#define XDP_STEER_DRAIN_H

#include "xdp_steer.h"
#include "span.h"

/* No target: what a lookup of one found nothing for. */
#define NO_TARGET	0xffffffffu

/* The warm-up window (struct steer_window): the map's entry, or NULL.
 * Looked up by every frame queued under drain (deliver_bucket(),
 * deliver()), so kept to the lookup alone. */
static __always_inline struct steer_window *window_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&steer_window, &zero);
}

/* steer_stats.rx_slot: 'v' (slot + 1, or STEER_RX_SLOT_NONE) as found in
 * tick 'now', and good for that tick only. */
static __always_inline __u64 rx_slot_cache(__u32 now, __u32 v)
{
	return (__u64)now << 32 | v;
}

/* Whether this CPU ('me') holds slot 's' in tick 'now': it writes the
 * slot's tick (its lease), then reads the slot's CPU. The write is an
 * exchange, which orders as a full barrier, and a CPU taking the slot
 * over swaps the CPU, then reads the tick (rx_slot_take()): of the two,
 * one sees the other's write (as in Dekker's mutual exclusion), so this
 * CPU never writes the slot's rows in a tick in which another has taken
 * it. */
static __always_inline int rx_slot_hold(__u32 s, __u32 me, __u32 now)
{
	struct steer_rx_lease *l;
	__u32 key = s, *cpu;

	l = bpf_map_lookup_elem(&steer_rx_lease, &key);
	cpu = bpf_map_lookup_elem(&steer_rx_cpu, &key);
	if (!l || !cpu)
		return 0;
	__sync_lock_test_and_set(&l->tick, now ? now : 1);
	return *(volatile __u32 *)cpu == me + 1;
}

/* Slot 's' + 1, held by this CPU (whose napi_polls is 'polls') in tick
 * 'now', as the cache to use: STEER_RX_SLOT_NONE while it waits after a
 * takeover. A CPU takes a slot over only after passing its table frames
 * here for want of one; those of the NAPI poll under way may still be in
 * its GRO lists, and the slot's records know nothing of them: so the CPU
 * goes on passing them here, slot held, until a poll has ended since. */
static __always_inline __u64 rx_slot_ready(__u32 s, __u32 now, __u32 polls)
{
	struct steer_rx_lease *l;
	__u32 key = s - 1;

	l = bpf_map_lookup_elem(&steer_rx_lease, &key);
	if (l && l->pending) {
		if ((__s32)(polls - l->poll) <= 0)
			return rx_slot_cache(now, STEER_RX_SLOT_NONE);
		l->pending = 0;
	}
	return rx_slot_cache(now, s);
}

/* A slot's records (steer_buckets), taken over: rx_rebase_one() gives each
 * record the new CPU's count of ended NAPI polls, less one. */
struct rx_rebase {
	__u32 base;		/* the slot's first record */
	__u32 poll;		/* the new CPU's napi_polls - 1 */
};

/* A record holds its CPU's count of ended NAPI polls at its last frame
 * (steer_bucket.poll), which the drain compares with its own CPU's count.
 * The old CPU's count says nothing to the new one; the record's last frame
 * left the old CPU a lease ago (its polls have ended since), so the record
 * now says so in the new CPU's count. Where the frame went, its stamp and
 * its tick stay: the drain still waits on its old target's evidence. */
static long rx_rebase_one(__u32 i, void *ctx)
{
	struct rx_rebase *r = ctx;
	struct steer_bucket *b;
	__u32 key = r->base + (i & (STEER_TABLE_MAX - 1));

	b = bpf_map_lookup_elem(&steer_buckets, &key);
	if (b && b->last)
		b->poll = r->poll;
	return 0;
}

/* Whether slot 's' is still idle for 'lease' ticks in tick 'now', read
 * after the swap of its CPU (rx_slot_take()). Global, checked once by the
 * verifier, and a function of its own so that the program tier can run
 * the old CPU's renewal right before it, as the race would (an fentry
 * program, tests/prog/race.bpf.c). */
__noinline int rx_slot_idle(__u32 s, __u32 now, __u32 lease)
{
	struct steer_rx_lease *l;
	__u32 key = s;

	l = bpf_map_lookup_elem(&steer_rx_lease, &key);
	/* Signed: the slot's CPU may have renewed it at a tick later than
	 * the one this CPU read. */
	return l && (__s32)(now - *(volatile __u32 *)&l->tick) > (__s32)lease;
}

/* rx_slot_take()'s look for a slot to take over, one slot a call of
 * rx_take_one(): in, this CPU ('me'), the tick 'now', the 'lease' and the
 * slots handed out ('n'); out, 'found' (slot + 1, or 0). */
struct rx_take {
	__u32 me, now, lease, n, found;
};

/* Slot 's' tried for rx_slot_take() ('ctx' a struct rx_take): 1 once the
 * look is over (a slot taken, a swap lost or given back, or past the
 * slots handed out), 0 to try the next. A callback of bpf_loop(), so the
 * verifier checks one slot's look, not 256 of them. */
static long rx_take_one(__u32 s, void *ctx)
{
	struct rx_take *c = ctx;
	__u32 key = s, t, owner, *cpu, *was;
	struct steer_rx_lease *l;

	if (s >= c->n)
		return 1;
	l = bpf_map_lookup_elem(&steer_rx_lease, &key);
	cpu = bpf_map_lookup_elem(&steer_rx_cpu, &key);
	if (!l || !cpu)
		return 0;
	t = *(volatile __u32 *)&l->tick;
	if (!t) {
		__sync_val_compare_and_swap(&l->tick, 0, c->now ? c->now : 1);
		return 0;
	}
	owner = *(volatile __u32 *)cpu;
	/* Signed, as in rx_slot_idle(), which reads the tick again after
	 * the swap. Owner 0: claimed, its CPU not yet written (and holding
	 * it). */
	if ((__s32)(c->now - t) <= (__s32)c->lease || !owner)
		return 0;
	if (__sync_val_compare_and_swap(cpu, owner, c->me + 1) != owner)
		return 1;
	if (!rx_slot_idle(s, c->now, c->lease)) {
		__sync_val_compare_and_swap(cpu, c->me + 1, owner);
		return 1;
	}
	key = owner - 1;
	was = bpf_map_lookup_elem(&steer_rx_slot, &key);
	if (was)
		__sync_val_compare_and_swap(was, s + 1, 0);
	c->found = s + 1;
	return 1;
}

/* A slot of the pool's whose CPU has not held it for 'lease' ticks (its
 * steer_rx_lease), taken over by this CPU ('me') in tick 'now': slot + 1,
 * or 0 when none is. One slot tried a tick: its CPU swapped for this one
 * (an atomic compare and swap, a full barrier), then its tick read again:
 * if its CPU held it meanwhile (rx_slot_hold()), it is given back. A tick
 * of 0 (a slot not seen held since these maps were made, by an upgrade
 * from a version without leases) starts its lease now. The old CPU's
 * entry in steer_rx_slot is cleared here: a CPU that lost its cache as
 * well as its slot then finds none, never this one. */
static __always_inline __u32 rx_slot_take(const struct steer_rx_pool *pool,
					  __u32 me, __u32 now, __u32 lease)
{
	struct rx_take c = { me, now, lease, steer_rx_pool_used(pool), 0 };

	bpf_loop(STEER_RX_SLOTS, rx_take_one, &c, 0);
	return c.found;
}

/* This CPU's receiver slot (struct steer_rx_pool) in tick 'now', for
 * steer_stats.rx_slot ('cached' its value, rx_slot_cache()): the one it
 * holds, still its own; or the next free one, claimed; or, with every
 * slot taken, one idle for 'lease' ticks (steer_slot.rx_lease; 0: none),
 * taken over, and used once a poll of this CPU's has ended since
 * (rx_slot_ready()); else STEER_RX_SLOT_NONE, and then, when 'queuing'
 * or at the CPU's first look, the tick is noted as one in which a CPU
 * without a slot queued (queued_lately() must assume it queued anywhere).
 * A slot taken over since its CPU last held it is that CPU's no more: it
 * looks for another at once, before any frame of the tick uses a slot.
 * Global, checked once by the verifier: called once a tick at most. */
__noinline __u64 rx_slot_tick(__u64 cached, __u32 now, __u32 lease,
			      int queuing)
{
	__u32 zero = 0, me = bpf_get_smp_processor_id(), s, polls, *mine, *cpu;
	struct steer_rx_pool *pool;
	struct steer_rx_lease *l;
	struct steer_stats *st;
	struct rx_rebase r;

	pool = bpf_map_lookup_elem(&steer_rx_pool, &zero);
	st = bpf_map_lookup_elem(&steer_stats, &zero);
	if (!pool || !st)
		return rx_slot_cache(now, STEER_RX_SLOT_NONE);
	polls = (__u32)st->napi_polls;
	/* Looked for already in this tick: held, or none found (or not
	 * usable yet). */
	if ((__u32)(cached >> 32) == now && (__u32)cached) {
		if ((__u32)cached - 1 < STEER_RX_SLOTS)
			return cached;
		goto none;
	}
	/* A CPU id past steer_rx_slot (none on Linux: NR_CPUS <= 8192)
	 * has no entry: no slot. The entry, not the cache, says which slot
	 * this CPU holds: a cache lost is not a slot lost. */
	mine = bpf_map_lookup_elem(&steer_rx_slot, &me);
	if (!mine)
		goto none;
	s = *mine;
	if (s - 1 < STEER_RX_SLOTS) {
		if (rx_slot_hold(s - 1, me, now))
			return rx_slot_ready(s, now, polls);
		__sync_val_compare_and_swap(mine, s, 0);
	}
	/* A free slot, while the pool reads as having one: 'claimed' grows
	 * past the limit by one per CPU racing for the last, no more. */
	if (*(volatile __u32 *)&pool->claimed < steer_rx_pool_limit(pool)) {
		s = __sync_fetch_and_add(&pool->claimed, 1);
		cpu = bpf_map_lookup_elem(&steer_rx_cpu, &s);
		/* The slot's CPU first: a loop over the slots that finds
		 * it then reads its queued_tick, written after. */
		if (!cpu || s >= steer_rx_pool_used(pool))
			goto none;
		*cpu = me + 1;
		if (!rx_slot_hold(s, me, now))
			goto none;
		*mine = s + 1;
		return rx_slot_cache(now, s + 1);
	}
	s = lease ? rx_slot_take(pool, me, now, lease) : 0;
	if (!s)
		goto none;
	if (!rx_slot_hold(--s, me, now))
		goto none;
	l = bpf_map_lookup_elem(&steer_rx_lease, &s);
	if (l) {
		l->poll = polls;
		l->pending = 1;
	}
	*mine = s + 1;
	st->rx_slot_takeovers++;
	r.base = s * STEER_TABLE_MAX;
	r.poll = polls - 1;
	bpf_loop(STEER_TABLE_MAX, rx_rebase_one, &r, 0);
	return rx_slot_cache(now, STEER_RX_SLOT_NONE);
none:
	if (queuing || !(__u32)cached)
		pool->overflow_tick = now ? now : 1;
	return rx_slot_cache(now, STEER_RX_SLOT_NONE);
}

/* Notes the tick 'j' (bpf_jiffies64()) as one in which this CPU queued a
 * frame (queued_lately()): one store a tick; and first checks its
 * receiver slot for the tick (rx_slot_tick(); 'lease' steer_slot.rx_lease)
 * when no table frame did. So every CPU that queues frames under drain
 * holds a slot from its first such frame on, or counts as one without
 * (steer_rx_pool.overflow_tick). */
static __always_inline void note_queued(struct steer_stats *st, __u64 j,
					__u32 lease)
{
	if (st->queued_tick != j) {
		if ((__u32)(st->rx_slot >> 32) != (__u32)j ||
		    (__u32)st->rx_slot - 1 >= STEER_RX_SLOTS)
			st->rx_slot = rx_slot_tick(st->rx_slot, (__u32)j,
						   lease, 1);
		st->queued_tick = j;
	}
}

/* A frame was stamped, or a stamp found: keep the workers looking for
 * stamps (struct steer_look) for the drain timeout and two ticks more.
 * Written at most once a tick per CPU. */
static __always_inline void look_hold(__u32 units)
{
	struct steer_look *look;
	__u32 zero = 0, end;

	look = bpf_map_lookup_elem(&steer_look, &zero);
	if (!look)
		return;
	/* Never 0: that is a gate no sender ever held on. */
	end = ((__u32)bpf_jiffies64() + units + 2) | 1;
	if (!look->until || (__s32)(end - look->until) > 0)
		look->until = end;
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
				       struct steer_stats *st,
				       __u32 target, int stamp, __u32 *seq)
{
	__u32 idx, rx, *s, zero = 0;
	struct steer_stamp *m;
	__u64 *key, j;
	void *end;
	int ret;

	ret = redirect_to(target_bank_of(target), target_cpu_of(target));
	if (ret != XDP_REDIRECT || !stamp)
		return ret;
	/* A stamped frame is a queued one too (queued_lately()). The
	 * verifier inlines the helper into one load. Its slot was checked
	 * for this run already, by note_queued() (deliver()) or the table's
	 * check (STEER_PROG_MAIN): no call to rx_slot_tick() from here, whose
	 * frame would sit under deliver_drain()'s in 6.1's stack count
	 * (tests/unit/test_bpf_stack.py). */
	j = bpf_jiffies64();
	if (st->queued_tick != j)
		st->queued_tick = j;
	/* Its stream is its receiver slot's. A CPU without one sends
	 * unstamped: its drains wait (drained()). */
	rx = (__u32)st->rx_slot - 1;
	if (rx >= STEER_RX_SLOTS) {
		st->no_rx_slot++;
		*seq = 0;
		return ret;
	}
	idx = rx * (2 * steer_span) + target;
	s = bpf_map_lookup_elem(&steer_seq, &idx);
	if (!s)
		return ret;
	/* Never 0: a record's 0 is "not stamped". */
	*seq = *s + 1 ? *s + 1 : 1;
	*s = *seq;
	/* Before the frame leaves (after we return): the worker that
	 * dequeues it finds the gate open. */
	look_hold(slot->drain_units);
	/* The frame leaves after we return, so the stamp can still be
	 * written: in the headroom in front of it (struct steer_stamp), the
	 * frame's start moved there and back. A frame without that room
	 * (none seen: drivers keep XDP_PACKET_HEADROOM) goes unstamped; its
	 * bucket then drains once its old CPU idles. */
	key = bpf_map_lookup_elem(&steer_stamp_key, &zero);
	if (!key || !*key || bpf_xdp_adjust_head(ctx, -(int)sizeof(*m))) {
		st->unstamped++;
		*seq = 0;
		return ret;
	}
	m = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	if ((void *)(m + 1) <= end) {
		m->seq = *seq;
		m->rx_slot = rx;
		m->target = target;
		m->tag = steer_stamp_tag(*seq, rx, target, *key);
	} else {
		st->unstamped++;
		*seq = 0;
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
 * checks each once, on its own, instead of at every call site. Every
 * call adds a frame to the chain whose stack 6.1's verifier rounds up to
 * 32 bytes and caps at 512 (tests/unit/test_bpf_stack.py): helpers with
 * one caller are inlined into them. All of them run only for buckets
 * that move or arrive cold, never in steady state.
 */

/* The slot's drain timeout and gro_units in one argument: a BPF function
 * takes five. */
#define DRAIN_LIMITS(slot) \
	((__u64)(slot)->drain_units | (__u64)(slot)->gro_units << 32)
/* A frame's stamp (0: none) and this CPU's napi_polls when it was sent,
 * in one argument. */
#define DRAIN_FRAME(seq, poll)	((__u64)(seq) | (__u64)(poll) << 32)

/* Whether 'target' has handed the stack the last frame this CPU queued
 * to it: stamped 'seq' (0: unstamped) while napi_polls stood at 'poll',
 * both from DRAIN_FRAME(); steer_drain_verdict() decides. 'now' in
 * jiffies, 'limits' from DRAIN_LIMITS(). The marks are those of this
 * CPU's receiver slot: a CPU without one never has evidence, and its
 * buckets wait on their old targets (in order) for good. */
__noinline int drained(__u32 target, __u64 frame, __u32 now, __u64 limits)
{
	const struct steer_rx_pool *pool;
	struct steer_drain_facts f;
	struct steer_stats *st;
	struct steer_wdone *wd;
	struct steer_wenq *we;
	struct steer_deq *d;
	__u32 key, base = 0, rx;
	int found;

	if (target >= 2 * steer_span)
		return STEER_DRAIN_WAIT;
	/* One key for every lookup: 6.1's verifier caps the stack of this
	 * call chain (tests/unit/test_bpf_stack.py). */
	key = 0;
	st = bpf_map_lookup_elem(&steer_stats, &key);
	if (!st)
		return STEER_DRAIN_WAIT;
	pool = bpf_map_lookup_elem(&steer_rx_pool, &key);
	rx = (__u32)st->rx_slot - 1;
	if (!pool || rx >= steer_rx_pool_rows(pool))
		return STEER_DRAIN_WAIT;
	key = target * steer_rx_pool_rows(pool) + rx;
	d = bpf_map_lookup_elem(&steer_deq, &key);
	key = target;
	wd = bpf_map_lookup_elem(&steer_wdone, &key);
	we = bpf_map_lookup_elem(&steer_wenq, &key);
	if (!wd || !we || !d)
		return STEER_DRAIN_WAIT;
	/* Other CPUs write these: each read once, in the order the facts
	 * need (struct steer_drain_facts). */
	f.enq = *(volatile __u32 *)&we->frames;
	f.done = *(volatile __u32 *)&wd->frames;
	f.last_tick = *(volatile __u32 *)&wd->last_tick;
	f.last_ns = *(volatile __u64 *)&wd->last_ns;
	f.epoch_next = 0;
	found = steer_mark_base(d->h, (__u32)frame, &base);
	if (found && (limits >> 32))
		f.epoch_next = *(volatile __u32 *)
			&wd->epoch_at[(base / STEER_EPOCH + 1) & 3];
	return steer_drain_verdict(found, base,
				   (__s32)((__u32)st->napi_polls -
					   (__u32)(frame >> 32)) > 0,
				   &f, now, bpf_ktime_get_ns(), (__u32)limits,
				   limits >> 32);
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
 * them). The CPUs that queue are those holding receiver slots
 * (rx_slot_tick() claims one before its first queued_tick), each found
 * once it wrote its steer_rx_cpu entry, before that tick; a CPU that
 * found none counts in the pool's overflow_tick, and then any CPU may
 * have queued here, this one included. A global function, checked once
 * by the verifier (see drained()). */
__noinline int queued_lately(__u32 me, __u32 now, __u32 timeout)
{
	const struct steer_rx_pool *pool;
	const struct steer_stats *st;
	__u32 zero = 0, s, key, n, cpu, other, *c;
	__u64 t;

	pool = bpf_map_lookup_elem(&steer_rx_pool, &zero);
	if (!pool)
		return 1;
	t = *(volatile __u32 *)&pool->overflow_tick;
	if (t && now - (__u32)t <= timeout)
		return 1;
	n = steer_rx_pool_used(pool);
	/* The count in a register, the key a copy on the stack: 6.1's
	 * verifier, finding the count only on the stack, took two turns
	 * of the loop for the same state ("infinite loop detected"). */
	for (s = 0; s < STEER_RX_SLOTS; s++) {
		if (s >= n)
			return 0;
		key = s;
		c = bpf_map_lookup_elem(&steer_rx_cpu, &key);
		if (!c || !*c)
			continue;	/* claimed, its CPU not yet written */
		cpu = *c - 1;
		st = bpf_map_lookup_percpu_elem(&steer_stats, &zero, cpu);
		if (!st)
			continue;
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
	mv->queued = 0;
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
static __always_inline int rxmove_wait(__u32 now, __u64 limits)
{
	struct steer_rxmove *mv;
	__u32 zero = 0;
	int state;

	mv = bpf_map_lookup_elem(&steer_rxmove, &zero);
	if (!mv || !mv->pending)
		return RXMOVE_CLEAR;
	/* Once the marker is queued, only the evidence that it is out ends
	 * the wait (drained(), as for a bucket's drain; an unstamped marker,
	 * seq 0, by its ring gone idle): a CPU the hypervisor held still,
	 * or whose kthread waited its turn, has not lost its frames, and
	 * they are still in front of ours. The time since the move bounds
	 * only a wait for a marker that could not be queued: this CPU's
	 * entry is missing, and with it any ring the old CPU's frames could
	 * wait in (the kernel empties an entry's ring before it frees it). */
	state = mv->queued ? drained(mv->target,
				     DRAIN_FRAME(mv->seq, mv->poll), now,
				     limits) :
		STEER_DRAIN_WAIT;	/* no marker yet: this frame becomes it */
	if (state != STEER_DRAIN_DONE &&
	    (mv->queued || now - mv->since < (__u32)limits))
		return RXMOVE_WAIT;
	mv->pending = 0;
	return state == STEER_DRAIN_DONE ? RXMOVE_CLEAR : RXMOVE_TIMEOUT;
}

/* A held frame went to 'target' with stamp 'seq' (0: unstamped) while
 * napi_polls stood at 'poll', and send() said 'ret': the marker, when it
 * is the first since the move that entered this CPU's own queue. */
static __always_inline void rxmove_mark(__u32 me, __u32 target, __u32 seq,
					__u32 poll, int ret)
{
	struct steer_rxmove *mv;
	__u32 zero = 0;

	if (ret != XDP_REDIRECT || (target & STEER_TARGET_LOCAL) ||
	    target_cpu_of(target) != me)
		return;
	mv = bpf_map_lookup_elem(&steer_rxmove, &zero);
	if (mv && mv->pending && !mv->queued) {
		mv->target = target;
		mv->seq = seq;
		mv->poll = poll;
		mv->queued = 1;
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
 * moved). Its record of the bucket says so: warm or draining, and queued
 * somewhere (its fast path's frames reached the stack before its poll
 * ended).
 * Returns that target, or NO_TARGET. Read across CPUs: each field
 * one aligned store of the old CPU, which no longer polls the queue. */
static __always_inline __u32 rxq_inherited(__u32 bucket,
					   const struct steer_slot *slot,
					   __u32 now)
{
	const struct steer_bucket *old;
	struct steer_rxmove *mv;
	__u32 zero = 0, last, key, *from;

	mv = bpf_map_lookup_elem(&steer_rxmove, &zero);
	if (!mv || !mv->from || now - mv->from_at >= slot->drain_units)
		return NO_TARGET;
	/* That CPU's record is in its receiver slot's row; without a slot
	 * it passed the bucket's frames where it received them. */
	key = mv->from - 1;
	from = bpf_map_lookup_elem(&steer_rx_slot, &key);
	if (!from || (__u32)*from - 1 >= STEER_RX_SLOTS)
		return NO_TARGET;
	key = ((__u32)*from - 1) * STEER_TABLE_MAX +
	      (bucket & (STEER_TABLE_MAX - 1));
	old = bpf_map_lookup_elem(&steer_buckets, &key);
	if (!old || !steer_bucket_live(old, slot->drain_gen))
		return NO_TARGET;
	/* Warm there, or still draining from its old target, however
	 * long that takes. */
	last = *(volatile __u32 *)&old->last;
	if (!last || (now - last >= slot->drain_units &&
		      !*(volatile __u32 *)&old->since) ||
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
	if (!owner || !mv)
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
	state = rxmove_wait(now, limits);
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
 * steer_rxq, as any holder: a queued frame then has nothing to note. A
 * slot without the fast path needs no following, yet its flag is not
 * tested first: the default has the fast path, and would pay the test
 * on every frame. */
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
	if (!owner) {
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
