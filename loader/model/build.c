// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A slot's build: its digest, the CPUs it needs, the key and table kept
 * from the slot in force: see build.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/build.h"

void build_free(struct steer_build *b)
{
	free(b->flow);
	free(b->prefix);
	b->flow = NULL;
	b->prefix = NULL;
	b->nflow = b->nprefix = 0;
}

/* FNV-1a over one value at a time, fed little-endian whatever the host. */
static __u64 mix(__u64 h, __u64 v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++) {
		h ^= (v >> (8 * i)) & 0xff;
		h *= 0x100000001b3ull;
	}
	return h;
}

#define MIX(h, v) mix(h, (__u64)(v), sizeof(v))

static __u64 mix_flow(__u64 h, const struct steer_flow *f)
{
	int i;

	for (i = 0; i < 4; i++)
		h = MIX(MIX(h, f->src[i]), f->dst[i]);
	return MIX(MIX(MIX(MIX(h, f->sport), f->dport), f->proto), f->family);
}

static __u64 mix_target(__u64 h, const struct steer_target *t)
{
	return MIX(MIX(MIX(h, t->rule_id), t->ncpus), t->cpu);
}

#define FNV_BASIS	0xcbf29ce484222325ull

__u64 build_digest(const struct steer_build *b, const __u32 *table)
{
	const struct steer_slot *s = &b->slot;
	__u64 h = FNV_BASIS, r, sum;
	int i, j;

	for (i = 0; i < STEER_HASH_KEY_WORDS; i++)
		h = MIX(h, s->hash_key[i]);
	h = MIX(MIX(MIX(h, s->flags), s->table_size), s->nonip_cpu);
	h = MIX(MIX(h, s->nexact), s->nshapes);
	for (i = 0; i < (int)s->nshapes && i < STEER_MAX_SHAPES; i++)
		h = MIX(h, s->shapes[i]);
	h = MIX(MIX(MIX(h, s->queue_size), s->loader_flags), s->drain_units);
	h = MIX(MIX(MIX(MIX(h, s->bank), s->gro_units), s->drain_ms),
		s->rx_lease);
	h = MIX(MIX(h, s->decap), s->decap_port_bits);
	for (i = 0; i < STEER_DECAP_PORTS; i++)
		h = MIX(MIX(h, s->decap_port[i]), s->decap_port_encap[i]);
	h = MIX(MIX(MIX(h, s->balance_ms), s->balance_tolerance),
		s->balance_max_moves);
	/* The weights: the table no longer tells them once the balancer
	 * moved buckets. */
	h = MIX(h, b->ncpus);
	for (i = 0; i < b->ncpus; i++)
		h = MIX(MIX(h, b->cpus[i].cpu), b->cpus[i].weight);
	for (i = 0; i < (int)s->table_size; i++)
		h = MIX(h, table[i]);
	h = MIX(h, b->nrule_cpus);
	for (i = 0; i < (int)b->nrule_cpus; i++)
		h = MIX(h, b->rule_cpus[i]);
	/* Rules are map entries, a set: each is digested alone and the sums
	 * taken, so rules read back from the maps in any order (the
	 * balancer's apply) digest as the policy compiled them. */
	h = MIX(h, b->nflow);
	for (i = 0, sum = 0; i < b->nflow; i++) {
		r = MIX(FNV_BASIS, b->flow[i].key.shape);
		r = mix_flow(r, &b->flow[i].key.flow);
		sum += mix_target(r, &b->flow[i].target);
	}
	h = MIX(MIX(h, sum), b->nprefix);
	for (i = 0, sum = 0; i < b->nprefix; i++) {
		const struct steer_prefix_key *k = &b->prefix[i].key;

		r = MIX(MIX(MIX(FNV_BASIS, k->prefixlen), k->shape), k->family);
		r = MIX(MIX(MIX(r, k->proto), k->sport), k->dport);
		for (j = 0; j < 4; j++)
			r = MIX(MIX(r, k->other[j]), k->addr[j]);
		sum += mix_target(r, &b->prefix[i].target);
	}
	return MIX(h, sum);
}

void build_needed_cpus(const struct steer_build *b, const __u32 *table,
		       unsigned char *need)
{
	__u32 i;

	memset(need, 0, STEER_CPU_IDS);
	for (i = 0; i < b->slot.table_size; i++)
		if (table[i] < STEER_CPU_IDS)
			need[table[i]] = 1;
	for (i = 0; i < b->nrule_cpus; i++)
		if (b->rule_cpus[i] < STEER_CPU_IDS)
			need[b->rule_cpus[i]] = 1;
	for (i = 0; i < (__u32)b->nflow; i++)
		if (b->flow[i].target.ncpus == 1 &&
		    b->flow[i].target.cpu < STEER_CPU_IDS)
			need[b->flow[i].target.cpu] = 1;
	for (i = 0; i < (__u32)b->nprefix; i++)
		if (b->prefix[i].target.ncpus == 1 &&
		    b->prefix[i].target.cpu < STEER_CPU_IDS)
			need[b->prefix[i].target.cpu] = 1;
	if (b->slot.nonip_cpu < STEER_CPU_IDS)
		need[b->slot.nonip_cpu] = 1;
}

bool build_keep_key(struct steer_build *b, const struct steer_slot *active)
{
	if (!(b->slot.loader_flags & STEER_LF_SEED_RANDOM))
		return false;
	if (active->table_size && (active->loader_flags & STEER_LF_SEED_RANDOM)) {
		memcpy(b->slot.hash_key, active->hash_key,
		       sizeof(b->slot.hash_key));
		return false;
	}
	return true;
}

__u32 build_choose_bank(const struct steer_slot *active,
			const struct steer_slot *next)
{
	if (active->table_size && active->queue_size != next->queue_size)
		return !active->bank;
	return active->bank & 1;
}

/* The balancer's table stays (kernel/slots.h): see build_next_table(). */
static bool keep_balanced(const struct steer_build *b,
			  const struct steer_slot *active, const __u32 *weight,
			  const __u32 *old)
{
	__u32 i;
	int c, n = 0;

	if (!old || !weight || !(active->flags & b->slot.flags & STEER_F_BALANCE))
		return false;
	for (c = 0; c < b->ncpus; c++) {
		if (b->cpus[c].cpu >= STEER_CPU_IDS ||
		    weight[b->cpus[c].cpu] != b->cpus[c].weight)
			return false;
	}
	for (i = 0; i < STEER_CPU_IDS; i++)
		n += weight[i] != 0;
	if (n != b->ncpus)
		return false;
	for (i = 0; i < b->slot.table_size; i++)
		if (old[i] >= STEER_CPU_IDS || !weight[old[i]])
			return false;
	return true;
}

int build_next_table(const struct steer_build *b,
		     const struct steer_slot *active, const __u32 *weight,
		     const __u32 *old, __u32 *table)
{
	__u32 i;
	int moved = 0;

	if (b->slot.table_size > STEER_TABLE_MAX)
		return -EINVAL;
	if (!b->table && !keep_balanced(b, active, weight, old))
		return table_build(table, b->slot.table_size, b->cpus, b->ncpus,
				   old);
	memcpy(table, b->table ? b->table : old,
	       b->slot.table_size * sizeof(*table));
	for (i = 0; i < b->slot.table_size; i++)
		moved += !old || table[i] != old[i];
	return moved;
}
