// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A parsed policy turned into what one slot's maps will hold. */
#include <arpa/inet.h>
#include <sched.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/slot.h"
#include "xdp_steer/keys.h"
#include "xdp_steer/key_fill.h"
#include "xdp_steer/filter.h"
#include "model/keymap.h"
#include "policy/compile.h"

/* splitmix64: spreads any seed, 0 and 1 included, over all key bits. */
static __u64 splitmix64(__u64 *x)
{
	__u64 z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void policy_seed_key(__u64 seed, __u64 key[STEER_HASH_KEY_WORDS])
{
	int i;

	for (i = 0; i < STEER_HASH_KEY_WORDS; i++)
		key[i] = splitmix64(&seed);
}

enum numa_default policy_default_workers(const struct steer_policy *p,
					 const struct cpu_set *irq,
					 const struct numa_layout *l,
					 int nic_node, struct policy_cpus *out,
					 struct table_cpu *buf)
{
	struct cpu_set online, keep;
	enum numa_default how;
	int i, n = 0;

	*out = p->cpus;
	if (!p->cpus_default)
		return NUMA_DEFAULT_ONLINE;
	cpuset_zero(&online);
	for (i = 0; i < p->cpus.n; i++)
		cpuset_set(&online, p->cpus.v[i].cpu);
	how = numa_default_workers(&online, l, nic_node, irq, &keep);
	for (i = 0; i < p->cpus.n; i++)
		if (cpuset_has(&keep, p->cpus.v[i].cpu))
			buf[n++] = p->cpus.v[i];
	if (n == p->cpus.n)
		return how;
	out->v = buf;
	out->n = n;
	return how;
}

/* A rule's target: one CPU, or its set laid out in rule_cpus with each CPU
 * repeated 'weight' times, so the set index spreads flows by weight. */
static int make_target(struct steer_build *b, const struct policy_rule *r,
		       __u32 rule_id, struct steer_target *t, struct why *why)
{
	__u32 total = 0, w;
	int i;

	memset(t, 0, sizeof(*t));
	t->rule_id = rule_id;
	if (r->cpus.n == 1) {
		t->ncpus = 1;
		t->cpu = r->cpus.v[0].cpu;
		return 0;
	}
	for (i = 0; i < r->cpus.n; i++)
		total += r->cpus.v[i].weight;
	if (b->nrule_cpus + total > STEER_RULE_CPUS_MAX) {
		why_set(why,
			"rule %u (line %d): rule CPU sets need %u entries counting weights, more than the %u the map holds; use fewer CPUs or smaller weights in rule sets",
			rule_id + 1, r->line, b->nrule_cpus + total,
			STEER_RULE_CPUS_MAX);
		return -E2BIG;
	}
	t->ncpus = total;
	t->cpu = b->nrule_cpus;
	for (i = 0; i < r->cpus.n; i++)
		for (w = 0; w < r->cpus.v[i].weight; w++)
			b->rule_cpus[b->nrule_cpus++] = r->cpus.v[i].cpu;
	return 0;
}

/* The rules the datapath matches, in policy order: each rule, followed in
 * symmetric mode by its mirror (same id, same target), so a rule matches
 * a connection in both directions and both directions pick one CPU. */
struct expanded {
	struct policy_rule *v;
	int *id;
	int n;
};

static int expand(const struct steer_policy *p, struct expanded *e)
{
	int i;

	e->n = 0;
	e->v = calloc(2 * p->nrules + 1, sizeof(*e->v));
	e->id = calloc(2 * p->nrules + 1, sizeof(*e->id));
	if (!e->v || !e->id)
		return -ENOMEM;
	for (i = 0; i < p->nrules; i++) {
		e->v[e->n] = p->rules[i];
		e->id[e->n++] = i;
		if (!p->symmetric)
			continue;
		policy_rule_mirror(&p->rules[i], &e->v[e->n]);
		e->id[e->n++] = i;
	}
	return 0;
}

static void expanded_free(struct expanded *e)
{
	free(e->v);
	free(e->id);
}

static int prefix_len(const struct policy_rule *r)
{
	return (r->shape & STEER_M_PREFIX_SRC) ? r->src_len : r->dst_len;
}

/* Exact rules: one flow_rules entry per distinct key; the earliest rule
 * with a key is the one that matches. */
static int compile_exact(const struct expanded *e,
			 const struct steer_target *targets,
			 struct steer_build *b)
{
	struct keymap seen;
	int i, err;

	b->flow = calloc(e->n + 1, sizeof(*b->flow));
	if (!b->flow)
		return -ENOMEM;
	err = keymap_init(&seen, sizeof(struct steer_rule_key), e->n);
	if (err)
		return err;
	for (i = 0; i < e->n; i++) {
		struct build_flow_rule *out = &b->flow[b->nflow];

		if (policy_rule_is_prefix(&e->v[i]))
			continue;
		steer_rule_key_fill(&out->key, 0, e->v[i].shape, &e->v[i].flow);
		if (keymap_put_min(&seen, &out->key, i) != i)
			continue;	/* an earlier rule has this key */
		out->target = targets[e->id[i]];
		b->nflow++;
	}
	keymap_free(&seen);
	return 0;
}

/*
 * Prefix rules: the trie answers with the longest stored prefix holding the
 * flow's address (among keys equal in everything else: the "group"). Every
 * shorter stored prefix of the group holding it also holds that prefix, so
 * first-match order wants, in each stored prefix, the target of the
 * earliest rule among it and all its shorter prefixes in the group. Found
 * by looking each prefix up cut to every length its group uses: O(rules x
 * lengths), not O(rules^2).
 */
static int compile_prefixes(const struct expanded *e,
			    const struct steer_target *targets,
			    struct steer_build *b)
{
	struct keymap first, groups;
	struct steer_prefix_key k, g;
	bool (*lens)[2][129] = NULL;
	int i, len, gi, ngroups = 0, best, r, err;

	b->prefix = calloc(e->n + 1, sizeof(*b->prefix));
	lens = calloc(e->n + 1, sizeof(*lens));
	if (!b->prefix || !lens) {
		free(lens);
		return -ENOMEM;
	}
	err = keymap_init(&first, sizeof(k), e->n);
	if (!err) {
		err = keymap_init(&groups, sizeof(g), e->n);
		if (err)
			keymap_free(&first);
	}
	if (err) {
		free(lens);
		return err;
	}
	/* Every prefix with the earliest rule that has exactly it, and the
	 * lengths each group uses. */
	for (i = 0; i < e->n; i++) {
		const struct policy_rule *pr = &e->v[i];

		if (!policy_rule_is_prefix(pr))
			continue;
		policy_rule_key(pr, pr->shape, prefix_len(pr), &k);
		keymap_put_min(&first, &k, i);
		policy_rule_key(pr, pr->shape, 0, &g);
		gi = keymap_get(&groups, &g);
		if (gi < 0)
			gi = keymap_put_min(&groups, &g, ngroups++);
		lens[gi][pr->flow.family == STEER_AF_INET6][prefix_len(pr)] = true;
	}
	for (i = 0; i < e->n; i++) {
		const struct policy_rule *pr = &e->v[i];
		struct build_prefix_rule *out = &b->prefix[b->nprefix];
		int v6 = pr->flow.family == STEER_AF_INET6;

		if (!policy_rule_is_prefix(pr))
			continue;
		policy_rule_key(pr, pr->shape, prefix_len(pr), &out->key);
		if (keymap_get(&first, &out->key) != i)
			continue;	/* an earlier rule has this prefix */
		policy_rule_key(pr, pr->shape, 0, &g);
		gi = keymap_get(&groups, &g);
		best = i;
		for (len = 0; len < prefix_len(pr); len++) {
			if (!lens[gi][v6][len])
				continue;
			policy_rule_key(pr, pr->shape, len, &k);
			r = keymap_get(&first, &k);
			if (r >= 0 && r < best)
				best = r;
		}
		out->target = targets[e->id[best]];
		b->nprefix++;
	}
	keymap_free(&first);
	keymap_free(&groups);
	free(lens);
	return 0;
}

/* Exact shapes first, then prefix shapes: the datapath looks them up in
 * that order, in flow_rules and prefix_rules. */
static void order_shapes(const struct steer_policy *p, struct steer_slot *s)
{
	int i, pass;

	s->nshapes = 0;
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < p->nshapes; i++)
			if (!!(p->shapes[i] & STEER_M_PREFIX) == pass)
				s->shapes[s->nshapes++] = p->shapes[i];
		if (!pass)
			s->nexact = s->nshapes;
	}
	steer_slot_fill_filter_masks(s);
}

/* In two phases: the slot's settings from the policy (flags, table
 * size, decap ports, the shapes in lookup order, the hash key unless
 * the apply draws it, drain and balance settings, worker_sched); then
 * the entries: the workers, each rule's target, the exact entries, the
 * prefix entries, and their count against the maps' room. On failure
 * *b holds nothing to free. */
int policy_compile(const struct steer_policy *p,
		   const struct policy_cpus *workers, struct steer_build *b,
		   struct why *why)
{
	const struct policy_cpus *cpus = workers ? workers : &p->cpus;
	struct steer_target *targets = NULL;
	struct expanded e = { 0 };
	int i, err;

	memset(b, 0, sizeof(*b));
	why_clear(why);
	b->slot.flags = policy_slot_flags(p);
	b->slot.table_size = p->table_size;
	b->slot.nonip_cpu = p->nonip_cpu;
	b->slot.decap = p->decap.encaps;
	for (i = 0; i < p->decap.nports; i++)
		steer_decap_add_port(&b->slot, htons(p->decap.ports[i].port),
				     p->decap.ports[i].encap);
	b->slot.queue_size = p->queue_size;
	order_shapes(p, &b->slot);
	if (p->seed_random)
		b->slot.loader_flags |= STEER_LF_SEED_RANDOM;
	else
		policy_seed_key(p->seed, b->slot.hash_key);
	/* In ms, as the policy says: the apply turns it into drain_units,
	 * ticks of the running kernel (kernel/clock.h). */
	b->slot.drain_ms = p->drain_timeout_ms;
	if (p->worker_sched != POLICY_SCHED_KEEP) {
		b->sched_set = true;
		b->sched_policy = p->worker_sched == POLICY_SCHED_FIFO ? SCHED_FIFO :
				  p->worker_sched == POLICY_SCHED_RR ? SCHED_RR :
				  SCHED_OTHER;
		b->sched_priority = p->worker_priority;
		b->sched_nice = p->worker_nice;
	}
	if (p->balance) {
		b->slot.balance_ms = p->balance_interval_ms;
		b->slot.balance_tolerance = p->balance_tolerance;
		b->slot.balance_max_moves = p->balance_max_moves;
	}

	if (cpus->n <= 0 || cpus->n > STEER_CPU_IDS) {
		why_set(why, "no worker CPU left to steer to");
		return -EINVAL;
	}
	for (i = 0; i < cpus->n; i++)
		b->cpus[i] = cpus->v[i];
	b->ncpus = cpus->n;

	targets = calloc(p->nrules + 1, sizeof(*targets));
	err = targets ? expand(p, &e) : -ENOMEM;
	for (i = 0; !err && i < p->nrules; i++)
		err = make_target(b, &p->rules[i], i, &targets[i], why);
	if (!err)
		err = compile_exact(&e, targets, b);
	if (!err)
		err = compile_prefixes(&e, targets, b);
	/* The parser bounds them (count_entries()); a policy built another
	 * way must not fail halfway through writing the inactive slot. */
	if (!err && (b->nflow > STEER_MAX_RULES ||
		     b->nprefix > STEER_MAX_RULES)) {
		why_set(why,
			"the rules take %d exact-field and %d prefix entries; a policy has room for %d of each",
			b->nflow, b->nprefix, STEER_MAX_RULES);
		err = -E2BIG;
	}
	expanded_free(&e);
	free(targets);
	if (err)
		build_free(b);
	return err;
}
