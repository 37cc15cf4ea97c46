// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "compile.h"

void build_free(struct steer_build *b)
{
	free(b->flow);
	free(b->prefix);
	b->flow = NULL;
	b->prefix = NULL;
	b->nflow = b->nprefix = 0;
}

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

/* A rule's target: one CPU, or its set laid out in rule_cpus with each CPU
 * repeated 'weight' times, so the set index spreads flows by weight. */
static int make_target(struct steer_build *b, const struct policy_rule *r,
		       __u32 rule_id, struct steer_target *t, char *why,
		       size_t why_len)
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
		snprintf(why, why_len,
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

/* Prefix of rule 'r' on its side: address bytes (IPv4-mapped) and bits. */
static void rule_prefix(const struct policy_rule *r, __u8 addr[16],
			__u32 *bits)
{
	int dst = r->fields & STEER_M_DST;
	const __u32 *a = dst ? r->flow.dst : r->flow.src;
	__u32 len = dst ? r->dst_len : r->src_len;

	if (r->flow.family == STEER_AF_INET) {
		__u32 mapped[4] = { 0, 0, htonl(0xffff), a[0] };

		memcpy(addr, mapped, 16);
		*bits = 96 + len;
	} else {
		memcpy(addr, a, 16);
		*bits = len;
	}
}

/* 1 when the first 'bits' bits of a and b agree. */
static int same_bits(const __u8 *a, const __u8 *b, __u32 bits)
{
	__u32 full = bits / 8, rest = bits % 8;

	if (memcmp(a, b, full))
		return 0;
	return !rest || !((a[full] ^ b[full]) & (0xff00 >> rest));
}

static int compile_prefixes(const struct steer_policy *p,
			    struct steer_build *b, char *why, size_t why_len)
{
	__u8 (*addr)[16];
	__u32 *bits;
	int *emitted;
	int i, j, err = 0;

	addr = calloc(p->nrules ? p->nrules : 1, sizeof(*addr));
	bits = calloc(p->nrules ? p->nrules : 1, sizeof(*bits));
	emitted = calloc(p->nrules ? p->nrules : 1, sizeof(*emitted));
	b->prefix = calloc(p->nrules ? p->nrules : 1, sizeof(*b->prefix));
	if (!addr || !bits || !emitted || !b->prefix) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < p->nrules; i++)
		if (p->rules[i].kind == POLICY_RULE_PREFIX)
			rule_prefix(&p->rules[i], addr[i], &bits[i]);

	for (i = 0; i < p->nrules; i++) {
		const struct policy_rule *r = &p->rules[i];
		struct build_prefix_rule *out;
		int dst, first = i, dup = 0;

		if (r->kind != POLICY_RULE_PREFIX)
			continue;
		dst = !!(r->fields & STEER_M_DST);
		/* The trie answers with the longest prefix holding the
		 * address; every shorter prefix holding it also covers this
		 * one. First-match order wants the earliest of those. */
		for (j = 0; j < i; j++) {
			const struct policy_rule *o = &p->rules[j];

			if (o->kind != POLICY_RULE_PREFIX ||
			    !!(o->fields & STEER_M_DST) != dst ||
			    bits[j] > bits[i] ||
			    !same_bits(addr[j], addr[i], bits[j]))
				continue;
			if (bits[j] == bits[i]) {
				dup = 1; /* same prefix: the earlier stands */
				break;
			}
			if (j < first)
				first = j;
		}
		if (dup)
			continue;
		emitted[i] = b->nprefix;
		out = &b->prefix[b->nprefix++];
		out->dst = dst;
		out->key.prefixlen = STEER_PREFIX_BITS(bits[i]);
		memcpy(out->key.addr, addr[i], 16);
		/* The earliest covering rule was emitted with its own target
		 * (it has no earlier cover, else that would be 'first'):
		 * share it, CPU set included, rather than lay the set out in
		 * rule_cpus again, which the parser's count of rule_cpus
		 * entries does not expect. */
		if (first != i) {
			out->target = b->prefix[emitted[first]].target;
			continue;
		}
		err = make_target(b, r, i, &out->target, why, why_len);
		if (err)
			goto out;
	}
out:
	free(addr);
	free(bits);
	free(emitted);
	return err;
}

static int compile_exact(const struct steer_policy *p, struct steer_build *b,
			 char *why, size_t why_len)
{
	int i, j, err;

	b->flow = calloc(p->nrules ? p->nrules : 1, sizeof(*b->flow));
	if (!b->flow)
		return -ENOMEM;
	for (i = 0; i < p->nrules; i++) {
		const struct policy_rule *r = &p->rules[i];
		struct build_flow_rule *out;

		if (r->kind != POLICY_RULE_EXACT)
			continue;
		out = &b->flow[b->nflow];
		steer_rule_key_fill(&out->key, 0, r->fields, &r->flow);
		/* A later rule with the same key never matches. */
		for (j = 0; j < b->nflow; j++)
			if (!memcmp(&b->flow[j].key, &out->key,
				    sizeof(out->key)))
				break;
		if (j < b->nflow)
			continue;
		err = make_target(b, r, i, &out->target, why, why_len);
		if (err)
			return err;
		b->nflow++;
	}
	return 0;
}

int policy_compile(const struct steer_policy *p,
		   const struct policy_cpus *workers, struct steer_build *b,
		   char *why, size_t why_len)
{
	const struct policy_cpus *cpus = workers ? workers : &p->cpus;
	int i, err;

	memset(b, 0, sizeof(*b));
	if (why_len)
		why[0] = 0;
	b->slot.flags = policy_slot_flags(p);
	b->slot.table_size = p->table_size;
	b->slot.nonip_cpu = p->nonip_cpu;
	b->slot.queue_size = p->queue_size;
	b->slot.nshapes = p->nshapes;
	for (i = 0; i < p->nshapes; i++)
		b->slot.shapes[i] = p->shapes[i];
	if (p->seed_random)
		b->slot.loader_flags |= STEER_LF_SEED_RANDOM;
	else
		policy_seed_key(p->seed, b->slot.hash_key);
	if (p->rebalance == POLICY_REBALANCE_DRAIN)
		b->slot.loader_flags |= STEER_LF_REBALANCE_DRAIN;

	if (cpus->n <= 0 || cpus->n > STEER_MAX_CPUS) {
		snprintf(why, why_len, "no worker CPU left to steer to");
		return -EINVAL;
	}
	for (i = 0; i < cpus->n; i++)
		b->cpus[i] = cpus->v[i];
	b->ncpus = cpus->n;

	err = compile_exact(p, b, why, why_len);
	if (!err)
		err = compile_prefixes(p, b, why, why_len);
	if (err)
		build_free(b);
	return err;
}
