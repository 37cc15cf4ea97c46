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
#include "parse.h"

/* Every map of include/xdp_steer.h, pinned by name so xdp-loader -p and
 * xdp-steer find the same ones. */
#define STEER_BPF_MAP(name, type_, key_t, value_t, max, flags)		\
	struct {							\
		__uint(type, type_);					\
		__type(key, key_t);					\
		__type(value, value_t);					\
		__uint(max_entries, max);				\
		__uint(map_flags, flags);				\
		__uint(pinning, LIBBPF_PIN_BY_NAME);			\
	} name SEC(".maps");
STEER_MAPS(STEER_BPF_MAP)

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

/* Rules: one lookup per shape in use, exact shapes in flow_rules, prefix
 * shapes in prefix_rules (where the loader stores in each prefix the target
 * of the earliest rule covering it, so the longest match gives first-match
 * order). The earliest rule in policy order among the matches wins. */
static __always_inline const struct steer_target *
match_rules(const struct steer_slot *slot, __u32 slot_id,
	    const struct steer_flow *f, int *prefix_hit)
{
	const struct steer_target *best = NULL, *t;
	struct steer_prefix_key pkey;
	struct steer_rule_key key;
	__u32 i;

#pragma unroll
	for (i = 0; i < STEER_MAX_SHAPES; i++) {
		if (i >= slot->nexact)
			break;
		steer_rule_key_fill(&key, slot_id, slot->shapes[i], f);
		take_first(&best, bpf_map_lookup_elem(&flow_rules, &key));
	}
#pragma unroll
	for (i = 0; i < STEER_MAX_SHAPES; i++) {
		if (i < slot->nexact)
			continue;
		if (i >= slot->nshapes)
			break;
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

/* Send the frame to 'cpu': pass it here when that is this CPU (and the
 * policy asks for the fast path), else queue it to the cpumap, whose
 * XDP_PASS fallback keeps frames for a CPU without an entry. */
static __always_inline int deliver(struct steer_stats *st, __u32 flags,
				   __u32 cpu, __u64 bytes)
{
	struct steer_cpu_stats *cs;
	int ret;

	if ((flags & STEER_F_LOCAL_FASTPATH) &&
	    cpu == bpf_get_smp_processor_id()) {
		st->passed_local++;
		ret = XDP_PASS;
	} else {
		ret = bpf_redirect_map(&cpu_map, cpu, XDP_PASS);
		if (ret != XDP_REDIRECT) {
			st->passed_no_target++;
			return ret;
		}
		st->redirected++;
	}
	cs = bpf_map_lookup_elem(&cpu_stats, &cpu);
	if (cs) {
		cs->packets++;
		cs->bytes += bytes;
	}
	return ret;
}

SEC("xdp")
int STEER_PROG_MAIN(struct xdp_md *ctx)
{
	/* Through pointers: a 32-bit read of ctx->data spilled to the stack
	 * is refused by the verifier. */
	__u64 bytes = (void *)(long)ctx->data_end - (void *)(long)ctx->data;
	const struct steer_target *rule;
	const struct steer_slot *slot;
	struct steer_ctl *ctl;
	struct steer_stats *st;
	struct parsed p = {};
	__u32 zero = 0, slot_id, hash, cpu, *entry;
	int err, prefix_hit = 0;

	st = bpf_map_lookup_elem(&steer_stats, &zero);
	ctl = bpf_map_lookup_elem(&steer_ctl, &zero);
	if (!st || !ctl)
		return XDP_PASS;
	st->rx_packets++;
	st->rx_bytes += bytes;

	slot_id = ctl->active & 1;
	slot = bpf_map_lookup_elem(&steer_slots, &slot_id);
	if (!slot || !slot->table_size || slot->table_size > STEER_TABLE_MAX) {
		st->passed_no_policy++;
		return XDP_PASS;
	}

	err = parse_frame(ctx, &p);
	if (err == -EPROTONOSUPPORT) {
		if (slot->nonip_cpu == STEER_CPU_LOCAL) {
			st->passed_nonip++;
			return XDP_PASS;
		}
		return deliver(st, slot->flags, slot->nonip_cpu, bytes);
	}
	if (err) {
		st->passed_parse_error++;
		return XDP_PASS;
	}
	if (p.is_frag)
		st->fragments++;

	hash = steer_flow_hash(&p.flow, slot->hash_key, slot->flags, p.is_frag);

	if (slot->nshapes) {
		rule = match_rules(slot, slot_id, &p.flow, &prefix_hit);
		cpu = rule ? target_cpu(rule, slot_id, hash) : NO_RULE;
		if (cpu != NO_RULE) {
			if (prefix_hit)
				st->rule_prefix_hits++;
			else
				st->rule_flow_hits++;
			return deliver(st, slot->flags, cpu, bytes);
		}
	}

	cpu = slot_id * STEER_TABLE_MAX +
	      steer_table_index(hash, slot->table_size);
	entry = bpf_map_lookup_elem(&steer_table, &cpu);
	if (!entry) {
		st->passed_no_target++;
		return XDP_PASS;
	}
	return deliver(st, slot->flags, *entry, bytes);
}

/* Second stage, run by the cpumap kthread on the worker CPU for each frame
 * it dequeues: count, then let the kernel build the skb here. */
SEC("xdp/cpumap")
int STEER_PROG_WORKER(struct xdp_md *ctx)
{
	struct steer_worker_stats *ws;
	__u32 zero = 0;

	ws = bpf_map_lookup_elem(&worker_stats, &zero);
	if (ws) {
		ws->packets++;
		ws->bytes += (void *)(long)ctx->data_end -
			     (void *)(long)ctx->data;
	}
	return XDP_PASS;
}

char _license[] SEC("license") = "Dual BSD/GPL";
