// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdp_steer.bpf.c - software RSS in XDP.
 *
 * On the receiving CPU: parse the frame, hash its flow under the active
 * policy slot, pick a worker CPU (exact-field rules, then prefix rules, then
 * the indirection table) and hand the frame to that CPU through the cpumap,
 * or pass it here when the worker is this CPU. Frames the policy cannot place
 * are passed, never dropped.
 *
 * Every setting lives in a map pinned by name, never in .data/.rodata, so
 * the object works the same when xdp-loader loaded it with -p. The one
 * value in .rodata is a dimension of the maps, not a setting: the span
 * (span.h), compiled as the object's own map sizes have it.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <xdp/xdp_helpers.h>

#include "xdp_steer.h"
#include "map_def.h"
#include "parse.h"
#include "flow_hash.h"
#include "omit.h"
#include "salt.h"

/* Every map of include/xdp_steer/maps.h, pinned by name so xdp-loader -p and
 * xdp-steer find the same ones. */
#define STEER_BPF_MAP(...)	STEER_MAP_DEF(LIBBPF_PIN_BY_NAME, __VA_ARGS__)
STEER_MAPS(STEER_BPF_MAP)

#include "drain.h"

/* Under libxdp's dispatcher: run early, and let the next program see the
 * frames we pass. */
struct {
	__uint(priority, 10);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(STEER_PROG_MAIN);

/* No rule matched. */
#define NO_RULE 0xffffffffu

/* Keep the earlier (lower rule_id) of the best match so far and 't'. */
static __always_inline void take_first(const struct steer_target **best,
				       const struct steer_target *t)
{
	if (t && (!*best || t->rule_id < (*best)->rule_id))
		*best = t;
}

/* Bit 'bit' of the rule filter from word 'base' on: 0 when no rule can
 * match (include/xdp_steer/filter.h). */
static __always_inline int filter_has(__u32 base, __u32 bit)
{
	__u32 idx = base + bit / 64;
	__u64 *w = bpf_map_lookup_elem(&rule_filter, &idx);

	return w && (*w >> (bit & 63) & 1);
}

/* Rules: one lookup per shape in use whose filter bit is set, exact shapes
 * in flow_rules, prefix shapes in prefix_rules (where the loader stores in
 * each prefix the target of the earliest rule covering it, so the longest
 * match gives first-match order). The earliest rule in policy order among
 * the matches wins. */
static __always_inline const struct steer_target *
match_rules(const struct steer_slot *slot, __u32 slot_id,
	    const struct steer_flow *f, int *prefix_hit)
{
	const struct steer_target *best = NULL, *t;
	struct steer_prefix_key pkey;
	struct steer_rule_key key;
	__u64 addrs, rest;
	__u32 i;

	/* The flow read afresh here, and its filter words within the loop:
	 * values kept from the hash, or across the lookups, spill registers
	 * in the frames without rules ("Code-shape decisions" in
	 * bpf/README.md). */
	barrier();
#pragma unroll
	for (i = 0; i < STEER_MAX_SHAPES; i++) {
		if (i >= slot->nexact)
			break;
		addrs = steer_filter_addrs(f);
		rest = steer_filter_rest(f);
		if (!filter_has(slot_id * STEER_FILTER_SLOT_WORDS,
				steer_filter_exact_bit_of(&slot->filter_masks[i],
							  addrs, rest)))
			continue;
		steer_rule_key_fill(&key, slot_id, slot->shapes[i], f);
		take_first(&best, bpf_map_lookup_elem(&flow_rules, &key));
	}
	/* Exact shapes only, the usual case: no prefix loop to walk. */
	if (slot->nexact >= slot->nshapes)
		return best;
#pragma unroll
	for (i = 0; i < STEER_MAX_SHAPES; i++) {
		if (i < slot->nexact)
			continue;
		if (i >= slot->nshapes)
			break;
		if (!filter_has(steer_filter_prefix_base(slot_id, f->family,
				slot->shapes[i] & STEER_M_PREFIX_DST),
				steer_filter_prefix_value(
					(slot->shapes[i] & STEER_M_PREFIX_DST) ?
					f->dst : f->src, f->family)))
			continue;
		steer_prefix_key_fill(&pkey, slot_id, slot->shapes[i], f);
		t = bpf_map_lookup_elem(&prefix_rules, &pkey);
		if (t && (!best || t->rule_id < best->rule_id)) {
			best = t;
			*prefix_hit = 1;
		}
	}
	return best;
}

/* CPU of a rule's target for a flow hash; NO_RULE if the set is broken. */
static __always_inline __u32 target_cpu(const struct steer_target *t,
					__u32 slot_id, __u32 hash)
{
	__u32 idx, *cpu;

	if (t->ncpus <= 1)
		return t->cpu;
	idx = t->cpu + steer_set_index(hash, t->ncpus);
	cpu = bpf_map_lookup_elem(&rule_cpus, &idx);
	return cpu ? *cpu : NO_RULE;
}

/* cpu's entry in the slot's cpumap bank (0 or 1): where its frames are
 * queued. */
static __always_inline __u32 queue_target(const struct steer_slot *slot,
					  __u32 cpu)
{
	return cpu + (slot->bank & 1) * steer_span;
}

/* Whether frames for 'cpu' are passed here, on the fast path. This CPU's
 * id is read only under it: a queued frame without drain records needs
 * it nowhere. */
static __always_inline int fastpath_here(const struct steer_slot *slot,
					 __u32 cpu)
{
	return (slot->flags & STEER_F_LOCAL_FASTPATH) &&
	       cpu == bpf_get_smp_processor_id();
}

/* Where frames for 'cpu' go under the slot, before any draining: passed
 * on this CPU (the fast path), or queued to cpu's entry in the slot's
 * cpumap bank. */
static __always_inline __u32 target_of(const struct steer_slot *slot,
				       __u32 cpu)
{
	__u32 target = queue_target(slot, cpu);

	return fastpath_here(slot, cpu) ? STEER_TARGET_LOCAL | target :
					  target;
}

/* Passed here and passed here (whatever the bank) is one place. */
static __always_inline int same_place(__u32 a, __u32 b)
{
	return a == b || (a & b & STEER_TARGET_LOCAL);
}

/* A frame passed here, counted. */
static __always_inline int pass_here(struct steer_stats *st, __u64 bytes)
{
	st->passed_local++;
	if (!omitted(CPU_STATS))
		st->passed_local_bytes += bytes;
	return XDP_PASS;
}

/* A frame queued to 'cpu' by this CPU while it holds no receiver slot in
 * this tick (steer_stats.rx_slot, checked for the tick by every frame
 * that can queue: the table's and deliver()'s): counted in the row of
 * the CPUs without a slot (steer_queued's last, 'rows'), atomically, as
 * they share it: what was sent to a worker stays whole. Global, checked
 * once by the verifier; called only by a CPU without a slot. */
__noinline int count_queued_unslotted(__u32 cpu, __u64 bytes)
{
	struct steer_cpu_stats *cs;
	struct steer_rx_pool *pool;
	__u32 idx = 0;

	pool = bpf_map_lookup_elem(&steer_rx_pool, &idx);
	if (!pool)
		return 0;
	idx = steer_rx_pool_rows(pool) * steer_span + cpu;
	cs = bpf_map_lookup_elem(&steer_queued, &idx);
	if (cs) {
		__sync_fetch_and_add(&cs->packets, 1);
		__sync_fetch_and_add(&cs->bytes, bytes);
	}
	return 0;
}

/* Counts the verdict of a frame queued to 'cpu' (below the span): in
 * its receiver slot's row of steer_queued, the slot from the value in
 * hand (held in this tick: two CPUs never write a slot's rows in the same
 * tick, drain.h). */
static __always_inline int count_queued(struct steer_stats *st, int ret,
					__u32 cpu, __u64 bytes)
{
	struct steer_cpu_stats *cs;
	__u32 idx;

	if (ret != XDP_REDIRECT) {
		st->passed_no_target++;
		return ret;
	}
	if (!omitted(COUNTERS))
		st->redirected++;
	if (omitted(CPU_STATS))
		return ret;
	/* No slot (a cache of 0 or STEER_RX_SLOT_NONE) makes a key past
	 * the map's (2^32 less one or two rows), so the lookup's own bound
	 * checks it: one test less. */
	idx = ((__u32)st->rx_slot - 1) * steer_span + cpu;
	cs = bpf_map_lookup_elem(&steer_queued, &idx);
	if (__builtin_expect(!cs, 0)) {
		count_queued_unslotted(cpu, bytes);
		return ret;
	}
	cs->packets++;
	cs->bytes += bytes;
	/* Kept apart from pass_here()'s counting: clang otherwise shares
	 * the last add of the two through a pointer chosen between them,
	 * which a queued frame pays for. */
	barrier();
	return ret;
}

/* Queues the frame to queue target 'target' (not STEER_TARGET_LOCAL) and
 * counts it; a target without a cpumap entry falls back to XDP_PASS.
 * 'stamp': drain records are kept; *seq then gets its stamp when queued,
 * in the stream of this CPU's receiver slot. */
static __always_inline int send_queued(struct xdp_md *ctx,
				       const struct steer_slot *slot,
				       struct steer_stats *st, int stamp,
				       __u32 target, __u64 bytes, __u32 *seq)
{
	return count_queued(st, queue_frame(ctx, slot, st, target, stamp, seq),
			    target_cpu_of(target), bytes);
}

/* The steady state's send_queued(): unstamped, to the table's CPU in the
 * slot's bank, by the two, without making the target of them. A CPU id
 * past the cpumap's (never the loader's) finds no entry. */
static __always_inline int send_plain(struct steer_stats *st,
				      const struct steer_slot *slot,
				      __u32 cpu, __u64 bytes)
{
	return count_queued(st, redirect_to(slot->bank & 1, cpu), cpu, bytes);
}

/* Sends the frame to 'target', passed here or queued (send_queued()). */
static __always_inline int send(struct xdp_md *ctx,
				const struct steer_slot *slot,
				struct steer_stats *st, int stamp,
				__u32 target, __u64 bytes, __u32 *seq)
{
	if (target & STEER_TARGET_LOCAL)
		return pass_here(st, bytes);
	return send_queued(ctx, slot, st, stamp, target, bytes, seq);
}

/* A frame placed by a rule or the non-IP setting: no bucket, no drain;
 * stamped in a warm-up, so that the marks of its worker keep up. */
static __always_inline int deliver(struct xdp_md *ctx, struct steer_stats *st,
				   const struct steer_slot *slot, __u32 cpu,
				   __u64 bytes)
{
	__u32 seq, now, target = target_of(slot, cpu);
	struct steer_window *w;
	int stamp = 0;

	/* A frame to be queued: its receiver slot for the tick, as the
	 * table's frames check it, since what it queues counts in the
	 * slot's row (count_queued()). */
	now = (__u32)bpf_jiffies64();
	if (!(target & STEER_TARGET_LOCAL) &&
	    (__u32)(st->rx_slot >> 32) != now)
		st->rx_slot = rx_slot_tick(st->rx_slot, now, slot->rx_lease, 0);
	if (slot->flags & STEER_F_DRAIN) {
		note_queued(st, bpf_jiffies64(), slot->rx_lease);
		w = window_get();
		stamp = w && w->open;
	}
	return send(ctx, slot, st, stamp, target, bytes, &seq);
}

/* The bucket's record says no frame for the drain timeout: maybe a flow
 * that came from another receive queue (drain.h). This CPU's own record,
 * read with the time just read. Only the unannounced moves ask; a drain
 * never does. */
static __always_inline int bucket_cold(const struct steer_bucket *b,
				       const struct steer_slot *slot,
				       __u32 now)
{
	return !b->last || now - b->last >= slot->drain_units;
}

/* The fast path's steady state, window open or not: a warm bucket passed
 * here, no drain under way, its receive queue plainly this CPU's (as last
 * found in steer_rxq: st->rxq_mine, drain.h). Its record keeps the count
 * of ended polls at its last frame (what a move off the fast path waits
 * on) and the tick of it (written once a tick: enough to tell when it
 * arrives cold); nothing else is looked at. 1: pass the frame here,
 * recorded; 0: deliver_drain() decides. */
static __always_inline int fastpath_steady(struct xdp_md *ctx,
					   struct steer_stats *st,
					   const struct steer_slot *slot,
					   __u32 bucket, __u32 want, __u32 now)
{
	__u32 q = ctx->rx_queue_index;
	struct steer_bucket *b;

	if (st->rxq_mine != (__u64)q + 1)
		return 0;	/* another queue, moved here, or a move waited out */
	b = bpf_map_lookup_elem(&steer_buckets, &bucket);
	/* Cold by its last frame alone: a record holding 'want' (with
	 * STEER_TARGET_LOCAL, never a zeroed record's 0) was written, and
	 * a written record's last is never 0 (bucket_cold()'s first test). */
	if (!b || b->target != want || b->since ||
	    now - b->last >= slot->drain_units)
		return 0;
	b->poll = (__u32)st->napi_polls;
	if (b->last != now)
		b->last = now ? now : 1;
	return 1;
}

/* A frame queued under drain outside the warm-up whose record settles it:
 * the bucket's last frame went where the table sends this one, or the
 * record says nothing under this slot (steer_bucket_live()). 'want' is a
 * queue target. The steady state of a queued frame: one lookup, a
 * compare, no store. A record older than the warm-up that names another
 * target is a bucket that moved while idle: nothing of it waits anywhere
 * (window.h). Its first frame since counts the move (moves_idle) and
 * writes the new target, once, so that the next frames settle by the
 * first compare. 'last' 1 says a frame came, not when: a queued frame
 * outside a window records no tick, so the bucket reads as cold, as any
 * record its frames do not refresh; not 0, so that its next move counts
 * too. A record never written (all zeroes) counts no move: its first
 * frame is none; one whose frames all went to target 0 outside a window
 * is never written, and its first move goes uncounted. The tick is not
 * written because the steady state would then carry it in a register
 * across the lookup ("Code-shape decisions" in bpf/README.md). */
static __always_inline int record_settles(struct steer_stats *st,
					  const struct steer_slot *slot,
					  __u32 bucket, __u32 want)
{
	struct steer_bucket *b;

	b = bpf_map_lookup_elem(&steer_buckets, &bucket);
	if (!b || b->target == want)
		return 1;
	if ((b->target & STEER_TARGET_LOCAL) ||
	    (__s32)(b->gen - slot->drain_gen) >= 0)
		return 0;
	if (b->last)
		st->moves_idle++;
	b->target = want;
	b->last = 1;
	return 1;
}

/* A frame of drain bucket 'bucket' (steer_buckets), whose table CPU is
 * 'cpu', under drain, when deliver_bucket() found no steady state: to
 * wherever its frames must go now (drain.h). A function of its own, called
 * only while buckets move or arrive cold, or in a warm-up: the frames of
 * the steady state run none of it. */
static __noinline int deliver_drain(struct xdp_md *ctx, struct steer_stats *st,
				    const struct steer_slot *slot,
				    __u32 bucket, __u32 cpu)
{
	__u64 bytes = (void *)(long)ctx->data_end - (void *)(long)ctx->data;
	__u32 me = bpf_get_smp_processor_id(), want, cur, now, seq = 0, gen;
	struct steer_window *w;
	struct steer_bucket *b;
	int ret, cold, drain, hold = 0;

	want = target_of(slot, cpu);
	now = (__u32)bpf_jiffies64();
	/* Only a frame bound for the fast path could overtake the frames of
	 * its receive queue's old CPU; the first such frame after a move
	 * sees it (drain.h). A queued frame notes only where its queue is. */
	if (want & STEER_TARGET_LOCAL) {
		hold = rxq_hold_fastpath(ctx, st, me, now, DRAIN_LIMITS(slot));
		if (hold)
			want &= ~STEER_TARGET_LOCAL;
	} else if (!rxq_held_queued(ctx, st) &&
		   rxq_follow_queued(ctx, st, me, now)) {
		st->rxq_moves++;
	}
	w = window_get();
	gen = w ? w->gen : 0;
	/* Outside a warm-up a queued frame whose record settles it needs
	 * no stamp and no record: only its queue was to follow. */
	if (!(w && w->open) && !hold && !(want & STEER_TARGET_LOCAL) &&
	    record_settles(st, slot, bucket, want))
		return send(ctx, slot, st, 0, want, bytes, &seq);
	b = bpf_map_lookup_elem(&steer_buckets, &bucket);
	if (!b)
		return send(ctx, slot, st, 0, want, bytes, &seq);
	cold = bucket_cold(b, slot, now);

	cur = b->target;
	if (steer_bucket_live(b, slot->drain_gen) && !same_place(cur, want)) {
		if (!b->since)
			b->since = now ? now : 1;
		if (cur & STEER_TARGET_LOCAL)
			/* Leaving the fast path: once a poll has ended since
			 * its last frame here. Held off it by a receive queue
			 * that moved here, at once: that queue's flows were
			 * last passed here before it left, and their frames
			 * since wait in this CPU's queue (drain.h). */
			drain = hold ||
				steer_polled_since((__u32)st->napi_polls,
						   (__u32)st->napi_poll_tick,
						   b, slot->gro_units) ?
				STEER_DRAIN_DONE : STEER_DRAIN_WAIT;
		else
			drain = drained(cur, DRAIN_FRAME(b->seq, b->poll),
					now, DRAIN_LIMITS(slot));
		if (drain != STEER_DRAIN_DONE) {
			st->drain_held++;
			if (drain == STEER_DRAIN_STALLED)
				st->drain_stalled++;
			ret = send(ctx, slot, st, 1, cur, bytes, &seq);
			/* Its last frame there now, or passed here still.
			 * Not one the old target's missing entry made us
			 * pass here: wait on for the last one really queued
			 * there. */
			if (ret == XDP_REDIRECT || (cur & STEER_TARGET_LOCAL)) {
				b->seq = seq;
				b->poll = (__u32)st->napi_polls;
			}
			b->last = now ? now : 1;	/* 0: no frame yet */
			b->gen = gen;
			if (hold)
				rxmove_mark(me, cur, seq, b->poll, ret);
			return ret;
		}
		st->moves_done++;
	} else if (b->last && !same_place(cur, want)) {
		/* A record older than the slot's warm-up: nothing of the
		 * bucket waits anywhere. */
		st->moves_idle++;
	}
	if (cold && (cur = rxq_inherited(bucket, slot, now)) != NO_TARGET &&
	    !same_place(cur, want)) {
		/* Cold here, but the receive queue came lately from a CPU
		 * that was sending the bucket elsewhere: its frames may
		 * still wait there. Ours go behind them, and the bucket
		 * drains from there as from any old target (drain.h). */
		st->drain_held++;
		ret = send(ctx, slot, st, 1, cur, bytes, &seq);
		/* seq 0 and the frame passed here: that target's entry is
		 * gone (an apply retires one once its drains are done); the
		 * record stays cold, and the next frame looks again. */
		if (ret == XDP_REDIRECT) {
			b->target = cur;
			b->seq = seq;
			b->poll = (__u32)st->napi_polls;
			b->since = now ? now : 1;
			b->last = now ? now : 1;
			b->gen = gen;
		}
		if (hold)
			rxmove_mark(me, cur, seq, (__u32)st->napi_polls,
				    ret);
		return ret;
	}
	/* Cold on the fast path: frames of the bucket that another receiving
	 * CPU queued here may still wait in this CPU's queue; go through it
	 * behind them, and take the fast path once out (drain.h). Only
	 * while another CPU queues at all: else nothing can wait there. */
	if (cold && (want & STEER_TARGET_LOCAL) &&
	    queued_lately(me, now, slot->drain_units))
		want &= ~STEER_TARGET_LOCAL;
	ret = send(ctx, slot, st, 1, want, bytes, &seq);
	/* A frame for a target without a cpumap entry was passed here: it
	 * leaves as one of the fast path does. */
	if (ret != XDP_REDIRECT)
		want |= STEER_TARGET_LOCAL;
	b->target = want;
	b->since = 0;
	b->seq = (want & STEER_TARGET_LOCAL) ? 0 : seq;
	b->poll = (__u32)st->napi_polls;
	b->last = now ? now : 1;
	b->gen = gen;
	if (hold)
		rxmove_mark(me, want, seq, b->poll, ret);
	return ret;
}

/* A frame of drain bucket 'bucket' (steer_buckets), whose table CPU is
 * 'cpu': where its frames must go now (drain.h); without drain, where the
 * table says. The steady states are decided here, in few instructions: a
 * frame queued outside a warm-up whose record settles it, its receive
 * queue held here, needs no store, and a warm bucket on the fast path two
 * stores. */
static __always_inline int deliver_bucket(struct xdp_md *ctx,
					  struct steer_stats *st,
					  const struct steer_slot *slot,
					  __u32 bucket, __u32 cpu, __u64 bytes)
{
	__u32 flags = slot->flags;
	struct steer_window *w;

	/* Which of the two steady states, by control flow, not by a bit of
	 * the target, which costs a test more. */
	if (fastpath_here(slot, cpu)) {
		if (!(flags & STEER_F_DRAIN) ||
		    fastpath_steady(ctx, st, slot, bucket,
				    STEER_TARGET_LOCAL |
				    queue_target(slot, cpu),
				    (__u32)bpf_jiffies64()))
			return pass_here(st, bytes);
	} else if (!(flags & STEER_F_DRAIN)) {
		return send_plain(st, slot, cpu, bytes);
	} else {
		note_queued(st, bpf_jiffies64(), slot->rx_lease);
		w = window_get();
		if (w && !w->open && rxq_held_queued(ctx, st) &&
		    record_settles(st, slot, bucket,
				   queue_target(slot, cpu)))
			return send_plain(st, slot, cpu, bytes);
	}
	return deliver_drain(ctx, st, slot, bucket, cpu);
}

/* The balancer's per-bucket load (steer_load): this CPU's receiver slot's
 * entry, written by this CPU only: no atomics. */
static __always_inline void count_load(__u32 bucket, __u64 bytes)
{
	struct steer_load *l = bpf_map_lookup_elem(&steer_load, &bucket);

	if (l) {
		l->packets++;
		l->bytes += bytes;
	}
}

/* First stage, on the receiving CPU, in four phases: the active slot
 * (ctl->active read once, so a frame is steered by one policy while the
 * loader writes the other), the parse and hash, the rules (none for a
 * frame hashed where it lies: common_hash() does that only under a slot
 * without rules), then the table's bucket under this CPU's receiver
 * slot, delivered through the drain. A frame it cannot place is passed,
 * never dropped, and counted by why once steer_stats is in hand. */
SEC("xdp")
int STEER_PROG_MAIN(struct xdp_md *ctx)
{
	const struct steer_target *rule;
	const struct steer_slot *slot;
	struct steer_ctl *ctl;
	struct steer_stats *st;
	struct parsed p;	/* written whole by parse_frame() when it
				 * returns PARSE_DONE; read only then
				 * (PARSE_HASHED: the hash only) */
	__u32 zero = 0, slot_id, hash, cpu, bucket, key, record, rx, now,
	      *entry;
	int err, prefix_hit = 0;
	__u64 bytes;

	STEER_SALT();

	st = bpf_map_lookup_elem(&steer_stats, &zero);
	ctl = bpf_map_lookup_elem(&steer_ctl, &zero);
	if (!st || !ctl)
		return XDP_PASS;
	slot_id = ctl->active & 1;
	slot = bpf_map_lookup_elem(&steer_slots, &slot_id);
	/* The frame's ends read after the lookups, so the parser finds them
	 * in registers. Through pointers: a 32-bit read of ctx->data
	 * spilled to the stack is refused by the verifier. */
	bytes = (void *)(long)ctx->data_end - (void *)(long)ctx->data;
	if (!omitted(COUNTERS)) {
		st->rx_packets++;
		st->rx_bytes += bytes;
	}
	if (!slot || !slot->table_size || slot->table_size > STEER_TABLE_MAX) {
		st->passed_no_policy++;
		return XDP_PASS;
	}

	if (omitted(PARSE)) {
		__builtin_memset(&p, 0, sizeof(p));
		p.flow.family = STEER_AF_INET;
		p.flow.proto = IPPROTO_UDP;
		p.flow.src[0] = bytes;	/* not a constant the hash folds */
		hash = 0;		/* set below */
		err = PARSE_DONE;
	} else {
		err = parse_frame(ctx, slot, st, &p, &hash);
	}
	if (err != PARSE_HASHED) {
		if (err == -EPROTONOSUPPORT) {
			if (slot->nonip_cpu == STEER_CPU_LOCAL) {
				st->passed_nonip++;
				return XDP_PASS;
			}
			return deliver(ctx, st, slot, slot->nonip_cpu, bytes);
		}
		if (err != PARSE_DONE) {
			if (err == -EBADMSG)
				st->encap_malformed++;
			st->passed_parse_error++;
			return XDP_PASS;
		}
		if (p.is_frag)
			st->fragments++;

		hash = frame_hash(st, slot, &p);

		if (slot->nshapes) {
			rule = match_rules(slot, slot_id, &p.flow,
					   &prefix_hit);
			cpu = rule ? target_cpu(rule, slot_id, hash) : NO_RULE;
			if (cpu != NO_RULE) {
				if (prefix_hit)
					st->rule_prefix_hits++;
				else
					st->rule_flow_hits++;
				return deliver(ctx, st, slot, cpu, bytes);
			}
		}
	}

	bucket = steer_table_index(hash, slot->table_size);
	key = slot_id * STEER_TABLE_MAX + bucket;
	entry = bpf_map_lookup_elem(&steer_table, &key);
	if (!entry) {
		st->passed_no_target++;
		return XDP_PASS;
	}
	/* Drain records and loads are kept per receiver slot: a CPU claims
	 * its slot at its first table frame, and checks at its first of
	 * each tick that the slot is still its own (a slot idle for the
	 * lease is taken over: drain.h); one that finds none passes its
	 * table frames here, counted, rather than act on no record. */
	now = (__u32)bpf_jiffies64();
	if ((__u32)(st->rx_slot >> 32) != now)
		st->rx_slot = rx_slot_tick(st->rx_slot, now, slot->rx_lease, 0);
	rx = (__u32)st->rx_slot - 1;
	if (rx >= STEER_RX_SLOTS) {
		st->no_rx_slot++;
		return pass_here(st, bytes);
	}
	/* The frame's drain bucket, in this receiver slot's rows: a bucket
	 * of the finest table, so a flow keeps its record and load when
	 * table_size changes. */
	record = rx * STEER_TABLE_MAX + steer_table_index(hash, STEER_TABLE_MAX);
	if (slot->flags & STEER_F_BALANCE)
		count_load(record, bytes);
	return deliver_bucket(ctx, st, slot, record, *entry, bytes);
}

/* The stamp in front of a frame a worker dequeued, when there is one
 * (struct steer_stamp): its fields in *m. The frame's start moves into
 * the headroom to read it, and back. */
static __always_inline int read_stamp(struct xdp_md *ctx,
				      struct steer_stamp *m)
{
	struct steer_stamp *h;
	__u32 zero = 0;
	__u64 *key;
	int found = 0;

	key = bpf_map_lookup_elem(&steer_stamp_key, &zero);
	if (!key || !*key || bpf_xdp_adjust_head(ctx, -(int)sizeof(*h)))
		return 0;
	h = (void *)(long)ctx->data;
	if ((void *)(h + 1) <= (void *)(long)ctx->data_end) {
		*m = *h;
		found = m->target < 2 * steer_span &&
			m->rx_slot < STEER_RX_SLOTS &&
			m->tag == steer_stamp_tag(m->seq, m->rx_slot, m->target,
						  *key);
	}
	/* Back where the frame starts: the move above made the room. */
	if (bpf_xdp_adjust_head(ctx, (int)sizeof(*h)))
		return -1;
	return found;
}

/* Second stage, run by a cpumap kthread for each frame it dequeues: count
 * it for the worker's CPU, mark how far the sender's stream got (drain.h),
 * then let the kernel build the skb here. The mark goes to the stamp's
 * target, the entry the frame was queued to: the kthread may run on
 * another CPU than its entry's (its CPU offline), and a stamp another
 * frame left in this headroom states a fact about its own target, only
 * late. Its base is the count of frames that target's kthread had
 * reported before this batch. Stamps are looked for only while the gate
 * is open (struct steer_look): the look costs two helper calls. */
static __always_inline int worker(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	const struct steer_rx_pool *pool;
	struct steer_worker_stats *ws;
	struct steer_stamp m = {};
	struct steer_look *look;
	struct steer_wdone *wd;
	struct steer_deq *d;
	__u32 zero = 0, idx, base, now;
	int stamped;

	ws = bpf_map_lookup_elem(&worker_stats, &zero);
	if (ws) {
		ws->packets++;
		ws->bytes += (void *)(long)ctx->data_end - data;
	}
	/* Jiffies are one load (the verifier inlines the helper). */
	look = bpf_map_lookup_elem(&steer_look, &zero);
	now = (__u32)bpf_jiffies64();
	if (!look || !look->until || (__s32)(look->until - now) <= 0)
		return XDP_PASS;
	stamped = read_stamp(ctx, &m);
	if (stamped < 0)
		return XDP_ABORTED;
	if (!stamped)
		return XDP_PASS;
	/* The rows of steer_deq as sized at load: a stamp of a slot past
	 * them names none (and would alias another target's row). */
	pool = bpf_map_lookup_elem(&steer_rx_pool, &zero);
	if (!pool || m.rx_slot >= steer_rx_pool_rows(pool))
		return XDP_PASS;
	idx = m.target * steer_rx_pool_rows(pool) + m.rx_slot;
	d = bpf_map_lookup_elem(&steer_deq, &idx);
	idx = m.target;
	wd = bpf_map_lookup_elem(&steer_wdone, &idx);
	if (!wd || !d)
		return XDP_PASS;
	base = *(volatile __u32 *)&wd->frames;
	d->h[(base / STEER_MARK_EPOCH) & (STEER_MARKS - 1)] =
		STEER_MARK(m.seq, base);
	/* Look on (once a tick): struct steer_look. */
	if (look->until - now < STEER_LOOK_TICKS)
		look->until = (now + STEER_LOOK_TICKS) | 1;
	return XDP_PASS;
}

SEC("xdp/cpumap")
int STEER_PROG_WORKER(struct xdp_md *ctx)
{
	STEER_SALT();
	return worker(ctx);
}

SEC("xdp/cpumap")
int STEER_PROG_WORKER_B(struct xdp_md *ctx)
{
	STEER_SALT();
	return worker(ctx);
}

char _license[] SEC("license") = "Dual BSD/GPL";
