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

/* cpumap with our per-CPU second stage; value is struct bpf_cpumap_val. */
struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bpf_cpumap_val));
	__uint(max_entries, STEER_MAX_CPUS);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} STEER_MAP_CPUMAP SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct steer_ctl);
	__uint(max_entries, 1);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} STEER_MAP_CTL SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct steer_slot);
	__uint(max_entries, STEER_SLOTS);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} STEER_MAP_SLOTS SEC(".maps");

/* Indirection tables of both slots: slot * STEER_TABLE_MAX + bucket. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, STEER_SLOTS * STEER_TABLE_MAX);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} STEER_MAP_TABLE SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct steer_rule_key);
	__type(value, struct steer_target);
	__uint(max_entries, STEER_SLOTS * STEER_MAX_RULES);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} STEER_MAP_FLOW_RULES SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__type(key, struct steer_prefix_key);
	__type(value, struct steer_target);
	__uint(max_entries, STEER_SLOTS * STEER_MAX_RULES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} STEER_MAP_SRC_PREFIX SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__type(key, struct steer_prefix_key);
	__type(value, struct steer_target);
	__uint(max_entries, STEER_SLOTS * STEER_MAX_RULES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} STEER_MAP_DST_PREFIX SEC(".maps");

/* CPU sets of rules with more than one CPU: slot * STEER_RULE_CPUS_MAX + i. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, STEER_SLOTS * STEER_RULE_CPUS_MAX);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} STEER_MAP_RULE_CPUS SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct steer_stats);
	__uint(max_entries, 1);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} STEER_MAP_STATS SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct steer_cpu_stats);
	__uint(max_entries, STEER_MAX_CPUS);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} STEER_MAP_CPU_STATS SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct steer_worker_stats);
	__uint(max_entries, 1);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} STEER_MAP_WORKER_STATS SEC(".maps");

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

/* Exact-field rules: one hash lookup per shape in use; the earliest rule in
 * policy order among the matches wins. */
static __always_inline const struct steer_target *
match_flow_rules(const struct steer_slot *slot, __u32 slot_id,
		 const struct steer_flow *f)
{
	const struct steer_target *best = NULL;
	struct steer_rule_key key;
	__u32 i;

#pragma unroll
	for (i = 0; i < STEER_MAX_SHAPES; i++) {
		if (i >= slot->nshapes)
			break;
		steer_rule_key_fill(&key, slot_id, slot->shapes[i], f);
		take_first(&best, bpf_map_lookup_elem(&STEER_MAP_FLOW_RULES,
						      &key));
	}
	return best;
}

static __always_inline void prefix_key_fill(struct steer_prefix_key *k,
					    __u32 slot_id, const __u32 *addr,
					    __u8 family)
{
	__u32 *w = (__u32 *)k->addr;

	k->prefixlen = STEER_PREFIX_BITS(128);
	k->slot = slot_id;
	if (family == STEER_AF_INET) {
		w[0] = 0;
		w[1] = 0;
		w[2] = bpf_htonl(0xffff);
		w[3] = addr[0];
	} else {
		w[0] = addr[0];
		w[1] = addr[1];
		w[2] = addr[2];
		w[3] = addr[3];
	}
}

/* Prefix rules: the loader stores in each prefix the target of the earliest
 * rule covering it, so the longest match gives first-match order. */
static __always_inline const struct steer_target *
match_prefix_rules(const struct steer_slot *slot, __u32 slot_id,
		   const struct steer_flow *f)
{
	const struct steer_target *best = NULL;
	struct steer_prefix_key key;

	if (slot->flags & STEER_F_SRC_PREFIXES) {
		prefix_key_fill(&key, slot_id, f->src, f->family);
		take_first(&best, bpf_map_lookup_elem(&STEER_MAP_SRC_PREFIX,
						      &key));
	}
	if (slot->flags & STEER_F_DST_PREFIXES) {
		prefix_key_fill(&key, slot_id, f->dst, f->family);
		take_first(&best, bpf_map_lookup_elem(&STEER_MAP_DST_PREFIX,
						      &key));
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
	cpu = bpf_map_lookup_elem(&STEER_MAP_RULE_CPUS, &idx);
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
		ret = bpf_redirect_map(&STEER_MAP_CPUMAP, cpu, XDP_PASS);
		if (ret != XDP_REDIRECT) {
			st->passed_no_target++;
			return ret;
		}
		st->redirected++;
	}
	cs = bpf_map_lookup_elem(&STEER_MAP_CPU_STATS, &cpu);
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
	const struct steer_target *rule, *flow_rule;
	const struct steer_slot *slot;
	struct steer_ctl *ctl;
	struct steer_stats *st;
	struct parsed p = {};
	__u32 zero = 0, slot_id, hash, cpu, *entry;
	int err;

	st = bpf_map_lookup_elem(&STEER_MAP_STATS, &zero);
	ctl = bpf_map_lookup_elem(&STEER_MAP_CTL, &zero);
	if (!st || !ctl)
		return XDP_PASS;
	st->rx_packets++;
	st->rx_bytes += bytes;

	slot_id = ctl->active & 1;
	slot = bpf_map_lookup_elem(&STEER_MAP_SLOTS, &slot_id);
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

	/* Rules in policy order, whichever kind: the lowest rule_id wins. */
	flow_rule = slot->nshapes ? match_flow_rules(slot, slot_id, &p.flow) : NULL;
	rule = flow_rule;
	if (slot->flags & (STEER_F_SRC_PREFIXES | STEER_F_DST_PREFIXES))
		take_first(&rule, match_prefix_rules(slot, slot_id, &p.flow));
	if (rule) {
		cpu = target_cpu(rule, slot_id, hash);
		if (cpu != NO_RULE) {
			if (rule == flow_rule)
				st->rule_flow_hits++;
			else
				st->rule_prefix_hits++;
			return deliver(st, slot->flags, cpu, bytes);
		}
	}

	cpu = slot_id * STEER_TABLE_MAX +
	      steer_table_index(hash, slot->table_size);
	entry = bpf_map_lookup_elem(&STEER_MAP_TABLE, &cpu);
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

	ws = bpf_map_lookup_elem(&STEER_MAP_WORKER_STATS, &zero);
	if (ws) {
		ws->packets++;
		ws->bytes += (void *)(long)ctx->data_end -
			     (void *)(long)ctx->data;
	}
	return XDP_PASS;
}

char _license[] SEC("license") = "Dual BSD/GPL";
