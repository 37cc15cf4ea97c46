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
 * the object works the same when xdp-loader loaded it with -p.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <xdp/xdp_helpers.h>

#include "xdp_steer.h"
#include "map_def.h"
#include "parse.h"
#include "omit.h"

/* Every map of include/xdp_steer.h, pinned by name so xdp-loader -p and
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
 * match (include/xdp_steer.h, the rule filter). */
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
	 * values kept from the hash, or across the lookups, cost the frames
	 * without rules 2-5 spilled instructions (bench_prog --insns). */
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
	return cpu + (slot->bank & 1) * STEER_MAX_CPUS;
}

/* Whether frames for 'cpu' are passed here, on the fast path. This CPU's
 * id is read only under it: a queued frame without drain records needs
 * it nowhere (3 instructions, bench_prog --insns). */
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

/* Counts the verdict of a frame queued to 'cpu' (< STEER_MAX_CPUS). */
static __always_inline int count_queued(struct steer_stats *st, int ret,
					__u32 cpu, __u64 bytes)
{
	struct steer_cpu_stats *cs;

	if (ret != XDP_REDIRECT) {
		st->passed_no_target++;
		return ret;
	}
	if (!omitted(COUNTERS))
		st->redirected++;
	if (omitted(CPU_STATS))
		return ret;
	cs = &st->queued[cpu];
	cs->packets++;
	cs->bytes += bytes;
	/* Kept apart from pass_here()'s counting: clang shares the last
	 * add of the two through a pointer chosen between them, and a
	 * queued frame paid 1-5 instructions for it (bench_prog --insns). */
	barrier();
	return ret;
}

/* Queues the frame to queue target 'target' (not STEER_TARGET_LOCAL) and
 * counts it; a target without a cpumap entry falls back to XDP_PASS.
 * 'stamp': drain records are kept; *seq then gets its stamp when queued,
 * and 'me' (this CPU) is its sender: read only then. */
static __always_inline int send_queued(struct xdp_md *ctx,
				       const struct steer_slot *slot,
				       struct steer_stats *st, int stamp,
				       __u32 me, __u32 target, __u64 bytes,
				       __u32 *seq)
{
	return count_queued(st, queue_frame(ctx, slot, st, me, target, stamp,
					    seq),
			    target_cpu_of(target), bytes);
}

/* The steady state's send_queued(): unstamped, to the table's CPU in the
 * slot's bank, by the two without the target they make (4 instructions,
 * bench_prog --insns). A CPU id past the cpumap's (never the loader's)
 * finds no entry. */
static __always_inline int send_plain(struct steer_stats *st,
				      const struct steer_slot *slot,
				      __u32 cpu, __u64 bytes)
{
	return count_queued(st, redirect_to(slot->bank & 1, cpu),
			    cpu & (STEER_MAX_CPUS - 1), bytes);
}

/* Sends the frame to 'target', passed here or queued (send_queued()). */
static __always_inline int send(struct xdp_md *ctx,
				const struct steer_slot *slot,
				struct steer_stats *st, int stamp, __u32 me,
				__u32 target, __u64 bytes, __u32 *seq)
{
	if (target & STEER_TARGET_LOCAL)
		return pass_here(st, bytes);
	return send_queued(ctx, slot, st, stamp, me, target, bytes, seq);
}

/* The hash of the frame's flow under any key (steer_flow_hash()): for
 * what frame_hash() leaves out, in a function of its own. */
static __noinline __u32 flow_hash(const struct steer_slot *slot,
				  const struct parsed *p)
{
	return steer_flow_hash(&p->flow, slot->hash_key, slot->flags,
			       p->is_frag);
}

/* A frame an id key does not apply to: hashed on its flow, counted. */
static __noinline __u32 key_id_fallback(struct steer_stats *st,
					const struct steer_slot *slot,
					const struct parsed *p)
{
	st->key_id_fallback++;
	return flow_hash(slot, p);
}

/*
 * The frame's hash. Inline only the commonest cases, each in few
 * instructions: the L4 key on a datagram that is no fragment
 * (steer_flow_hash_l4()), and an id key (hash.key vlan, tunnel, src_port,
 * dst_port: steer_key_id()) where it applies. Every other (the L3 key,
 * symmetric, fragments, an id key's fallback) calls a function of its
 * own: inline, each case cost the others' rows 4-10 instructions
 * (bench_prog --insns).
 */
static __always_inline __u32 frame_hash(struct steer_stats *st,
					const struct steer_slot *slot,
					const struct parsed *p)
{
	__u32 flags = slot->flags, ports, id;

	if (__builtin_expect(flags & STEER_F_KEY_ID, 0)) {
		__builtin_memcpy(&ports, &p->flow.sport, sizeof(ports));
		if (steer_key_id(flags, p->ids, p->tunnel_id, ports,
				 p->is_frag, &id))
			return steer_id_hash(id, slot->hash_key);
		return key_id_fallback(st, slot, p);
	}
	if ((flags & (STEER_F_SYMMETRIC | STEER_F_HASH_L4)) ==
	    STEER_F_HASH_L4 && !p->is_frag)
		return steer_flow_hash_l4(&p->flow, slot->hash_key);
	return flow_hash(slot, p);
}

/* A frame placed by a rule or the non-IP setting: no bucket, no drain. */
static __always_inline int deliver(struct xdp_md *ctx, struct steer_stats *st,
				   const struct steer_slot *slot, __u32 cpu,
				   __u64 bytes)
{
	__u32 me = bpf_get_smp_processor_id(), seq;
	int stamp = (slot->flags & STEER_F_DRAIN) &&
		    !window_shut(st, bpf_jiffies64());

	return send(ctx, slot, st, stamp, me, target_of(slot, cpu), bytes,
		    &seq);
}

/* The bucket's record says no frame for the drain timeout: its frames
 * are long delivered (or it never had one). This CPU's own record, read
 * with the time just read: never stamped after 'now' (the loader's reads
 * need steer_bucket_warm()). */
static __always_inline int bucket_cold(const struct steer_bucket *b,
				       const struct steer_slot *slot,
				       __u32 now)
{
	return !b->last || now - b->last >= slot->drain_units;
}

/* The fast path's steady state, window open or not: a warm bucket passed
 * here, no drain under way, its receive queue plainly this CPU's (as last
 * found in steer_rxq: st->rxq_mine, drain.h). Its
 * record keeps the tick of its last frame (written once a tick: enough
 * to tell when it arrives cold) and this CPU's count at it (what a move
 * off the fast path waits on); nothing else is looked at, the window
 * neither. 1: pass the frame here, recorded; 0: deliver_drain() decides. */
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
	b->seq = (__u32)st->rx_packets;
	if (b->last != now)
		b->last = now ? now : 1;
	return 1;
}

/* A frame of drain bucket 'bucket' (steer_buckets), whose table CPU is
 * 'cpu', under drain, when deliver_bucket() found no steady state: to
 * wherever its frames must go now (drain.h). A function of its own, called
 * only while buckets move or arrive cold: the frames of the steady state
 * run none of it. */
static __noinline int deliver_drain(struct xdp_md *ctx, struct steer_stats *st,
				    const struct steer_slot *slot,
				    __u32 bucket, __u32 cpu)
{
	__u64 bytes = (void *)(long)ctx->data_end - (void *)(long)ctx->data;
	__u32 me = bpf_get_smp_processor_id(), want, cur, now, seq = 0;
	struct steer_window *w;
	struct steer_bucket *b;
	int ret, cold, fresh, drain, hold = 0;

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
	w = window_of(now);
	/* Outside the window a queued frame needs no record. */
	if (!w && !hold && !(want & STEER_TARGET_LOCAL))
		return send(ctx, slot, st, 0, me, want, bytes, &seq);
	b = bpf_map_lookup_elem(&steer_buckets, &bucket);
	if (!b)
		return send(ctx, slot, st, 0, me, want, bytes, &seq);
	fresh = !b->last;
	cold = bucket_cold(b, slot, now);

	cur = b->target;
	if (!cold && !same_place(cur, want)) {
		if (!b->since)
			b->since = now ? now : 1;
		if (cur & STEER_TARGET_LOCAL) {
			/* Leaving the fast path: at a gap spanning a poll's
			 * end (b->seq holds rx_packets at its last frame);
			 * without one for the drain timeout (an elephant),
			 * anyway. Held off it by a receive queue that moved
			 * here, at once: that queue's flows were last passed
			 * here before it left, and their frames since wait
			 * in this CPU's queue (drain.h). */
			drain = hold ? DRAIN_DONE :
				(__u32)st->rx_packets - b->seq >= STEER_POLL_GAP &&
				now - b->last >= slot->gro_units ? DRAIN_DONE :
				now - b->since >= slot->drain_units ? DRAIN_STALLED :
				DRAIN_WAIT;
		} else {
			drain = drained(me, cur, b->seq, now,
					DRAIN_LIMITS(slot));
		}
		if (drain == DRAIN_DONE) {
			st->moves_done++;
		} else if (drain == DRAIN_STALLED) {
			st->moves_timeout++;
		} else {
			st->drain_held++;
			/* A flip's move keeps the window open; this CPU's
			 * own (a marker out, the window shut) keeps its
			 * records without it. */
			if (w)
				window_hold(w, slot, now);
			ret = send(ctx, slot, st, 1, me, cur, bytes, &seq);
			/* seq 0: the old target's entry is gone and the
			 * frame was passed here; wait on for the last frame
			 * really queued there. */
			if (cur & STEER_TARGET_LOCAL)
				b->seq = (__u32)st->rx_packets;
			else if (seq)
				b->seq = seq;
			b->last = now ? now : 1;	/* 0: no frame yet */
			if (hold)
				rxmove_mark(me, cur, seq);
			return ret;
		}
	} else if (cold &&
		   (cur = rxq_inherited(bucket, slot, now)) != NO_TARGET &&
		   !same_place(cur, want)) {
		/* Cold here, but the receive queue came lately from a CPU
		 * that was sending the bucket elsewhere: its frames may
		 * still wait there. Ours go behind them, and the bucket
		 * drains from there as from any old target (drain.h). */
		st->drain_held++;
		if (w)
			window_hold(w, slot, now);
		ret = send(ctx, slot, st, 1, me, cur, bytes, &seq);
		/* seq 0: that target's entry is gone (an apply retires one
		 * once its drains are done) and the frame was passed here;
		 * the record stays cold, and the next frame looks again. */
		if (seq) {
			b->target = cur;
			b->seq = seq;
			b->since = now ? now : 1;
			b->last = now ? now : 1;
		}
		if (hold)
			rxmove_mark(me, cur, seq);
		return ret;
	} else if (cold && !fresh && !same_place(b->target, want)) {
		st->moves_idle++;
	}
	/* Cold on the fast path: frames of the bucket that another receiving
	 * CPU queued here may still wait in this CPU's queue; go through it
	 * behind them, and take the fast path once out (drain.h). Only
	 * while another CPU queues at all: else nothing can wait there. */
	if (cold && (want & STEER_TARGET_LOCAL) &&
	    queued_lately(me, now, slot->drain_units))
		want &= ~STEER_TARGET_LOCAL;
	b->target = want;
	b->since = 0;
	ret = send(ctx, slot, st, 1, me, want, bytes, &seq);
	b->seq = (want & STEER_TARGET_LOCAL) ? (__u32)st->rx_packets : seq;
	b->last = now ? now : 1;
	if (hold)
		rxmove_mark(me, want, seq);
	return ret;
}

/* A frame of drain bucket 'bucket' (steer_buckets), whose table CPU is
 * 'cpu': while drain records are kept, to wherever its frames must go now
 * (drain.h); else where the table says. The steady states are decided
 * here, in few instructions: a frame queued with the drain window shut,
 * its receive queue held here, needs no record, and a warm bucket on the
 * fast path one store. */
static __always_inline int deliver_bucket(struct xdp_md *ctx,
					  struct steer_stats *st,
					  const struct steer_slot *slot,
					  __u32 bucket, __u32 cpu, __u64 bytes)
{
	__u32 flags = slot->flags;

	/* Which of the two steady states, by control flow: a bit of the
	 * target tested instead cost 3 instructions (bench_prog --insns). */
	if (fastpath_here(slot, cpu)) {
		if (!(flags & STEER_F_DRAIN) ||
		    fastpath_steady(ctx, st, slot, bucket,
				    STEER_TARGET_LOCAL |
				    queue_target(slot, cpu),
				    (__u32)bpf_jiffies64()))
			return pass_here(st, bytes);
	} else if (!(flags & STEER_F_DRAIN) ||
		   (window_shut(st, bpf_jiffies64()) &&
		    rxq_held_queued(ctx, st))) {
		return send_plain(st, slot, cpu, bytes);
	}
	return deliver_drain(ctx, st, slot, bucket, cpu);
}

/* The balancer's per-bucket load (steer_load): this CPU's own entry, no
 * atomics; the per-CPU array lookup is inlined by the verifier (6.10+). */
static __always_inline void count_load(__u32 bucket, __u64 bytes)
{
	struct steer_load *l = bpf_map_lookup_elem(&steer_load, &bucket);

	if (l) {
		l->packets++;
		l->bytes += bytes;
	}
}

SEC("xdp")
int STEER_PROG_MAIN(struct xdp_md *ctx)
{
	const struct steer_target *rule;
	const struct steer_slot *slot;
	struct steer_ctl *ctl;
	struct steer_stats *st;
	struct parsed p;	/* written whole by parse_frame() when it
				 * returns 0; read only then (PARSE_HASHED:
				 * the hash only) */
	__u32 zero = 0, slot_id, hash, cpu, bucket, *entry;
	int err, prefix_hit = 0;
	__u64 bytes;

	st = bpf_map_lookup_elem(&steer_stats, &zero);
	ctl = bpf_map_lookup_elem(&steer_ctl, &zero);
	if (!st || !ctl)
		return XDP_PASS;
	slot_id = ctl->active & 1;
	slot = bpf_map_lookup_elem(&steer_slots, &slot_id);
	/* The frame's ends read after the lookups, so the parser finds them
	 * in registers (3 instructions, bench_prog --insns). Through
	 * pointers: a 32-bit read of ctx->data spilled to the stack is
	 * refused by the verifier. */
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
		err = 0;
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
		if (err) {
			if (err == -EBADMSG)
				st->encap_malformed++;
			st->passed_parse_error++;
			return XDP_PASS;
		}
		if (p.is_frag)
			st->fragments++;

		hash = omitted(HASH) ? p.flow.src[0] + p.flow.sport :
			frame_hash(st, slot, &p);

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
	cpu = slot_id * STEER_TABLE_MAX + bucket;
	entry = bpf_map_lookup_elem(&steer_table, &cpu);
	if (!entry) {
		st->passed_no_target++;
		return XDP_PASS;
	}
	bucket = steer_table_index(hash, STEER_TABLE_MAX);
	if (slot->flags & STEER_F_BALANCE)
		count_load(bucket, bytes);
	return deliver_bucket(ctx, st, slot, bucket, *entry, bytes);
}

/* The stamp in front of a frame the worker 'target' dequeued, when there
 * is one (struct steer_stamp): its fields in *m. The frame's start moves
 * into the headroom to read it, and back. */
static __always_inline int read_stamp(struct xdp_md *ctx, __u32 target,
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
	/* A stamp for another target is not taken: the kthread ran off its
	 * CPU (the CPU went offline), and its frames drain by the timeout. */
	if ((void *)(h + 1) <= (void *)(long)ctx->data_end) {
		*m = *h;
		found = m->target == target && m->rx_cpu < STEER_MAX_CPUS &&
			m->tag == steer_stamp_tag(m->seq, m->rx_cpu, m->target,
						  *key);
	}
	/* Back where the frame starts: the move above made the room. */
	if (bpf_xdp_adjust_head(ctx, (int)sizeof(*h)))
		return -1;
	return found;
}

/* Second stage, run by the cpumap kthread on the worker CPU for each frame
 * it dequeues: count, publish what was dequeued (drain.h), then let the
 * kernel build the skb here. 'bank': of the cpumap entry this program
 * runs for; with this CPU, its target. Every frame counts in the target's
 * totals; while a drain may ask (the clock on), a stamped one also marks
 * how far its sender's stream got. Stamps are looked for only then: a
 * sender keeps the clock on for as long as a drain may look at its
 * stamp, and the look costs two helper calls. */
static __always_inline int worker(struct xdp_md *ctx, __u32 bank)
{
	void *data = (void *)(long)ctx->data;
	__u32 zero = 0, target, idx, total, *wt;
	struct steer_worker_stats *ws;
	struct steer_wclock *clock;
	struct steer_stamp m = {};
	struct steer_deq *d;
	int looking = 0, stamped;

	ws = bpf_map_lookup_elem(&worker_stats, &zero);
	if (ws) {
		ws->packets++;
		ws->bytes += (void *)(long)ctx->data_end - data;
	}
	target = bpf_get_smp_processor_id();
	if (target >= STEER_MAX_CPUS)
		return XDP_PASS;
	target += bank;
	wt = bpf_map_lookup_elem(&steer_wtot, &target);
	/* The clock only while a drain may ask (steer_wclock); jiffies
	 * are one load (the verifier inlines the helper). */
	clock = bpf_map_lookup_elem(&steer_wclock, &target);
	if (clock && clock->until &&
	    clock->until - (__u32)bpf_jiffies64() - 1 < STEER_WINDOW_MAX) {
		clock->last_ns = bpf_ktime_get_ns();
		looking = 1;
	}
	if (!wt)
		return XDP_PASS;
	/* Only this target's kthread writes these: no atomics needed. */
	total = *wt + 1;
	*wt = total;
	if (!(total % STEER_EPOCH)) {
		__u32 slot = target * 4 + ((total / STEER_EPOCH) & 3);
		__u32 *began = bpf_map_lookup_elem(&steer_wtime, &slot);

		if (began)
			*began = (__u32)bpf_jiffies64();
	}
	if (!looking)
		return XDP_PASS;
	stamped = read_stamp(ctx, target, &m);
	if (stamped < 0)
		return XDP_ABORTED;
	if (!stamped)
		return XDP_PASS;
	idx = target * STEER_MAX_CPUS + m.rx_cpu;
	d = bpf_map_lookup_elem(&steer_deq, &idx);
	if (d)
		d->h[(total / STEER_MARK_EPOCH) & (STEER_MARKS - 1)] =
			STEER_MARK(m.seq, total);
	return XDP_PASS;
}

SEC("xdp/cpumap")
int STEER_PROG_WORKER(struct xdp_md *ctx)
{
	return worker(ctx, 0);
}

SEC("xdp/cpumap")
int STEER_PROG_WORKER_B(struct xdp_md *ctx)
{
	return worker(ctx, STEER_MAX_CPUS);
}

char _license[] SEC("license") = "Dual BSD/GPL";
