/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * build.h - a policy compiled to map contents: what one slot will hold.
 * Made from a parsed policy (policy/compile.c), written into the maps by
 * kernel/slots.c. Pure.
 */
#ifndef XDP_STEER_BUILD_H
#define XDP_STEER_BUILD_H

#include <stdbool.h>
#include "xdp_steer/sizes.h"
#include "xdp_steer/slot.h"
#include "xdp_steer/keys.h"
#include "model/table.h"

struct build_flow_rule {
	struct steer_rule_key key;	/* key.slot set when applied */
	struct steer_target target;
};

struct build_prefix_rule {
	struct steer_prefix_key key;	/* key.slot set when applied */
	struct steer_target target;
};

struct steer_build {
	/* hash_key is used only without STEER_LF_SEED_RANDOM; generation
	 * and digest are set by apply. */
	struct steer_slot slot;
	struct table_cpu cpus[STEER_CPU_IDS];	/* indirection table CPUs */
	int ncpus;
	/* Every worker gets a new cpumap entry, in the other bank: their
	 * program is another version's (an upgrade in place). */
	bool renew_workers;
	/* NULL: apply builds the table from 'cpus' (and the one in force);
	 * else slot.table_size entries applied as they are (the balancer's
	 * moves). Not owned. */
	const __u32 *table;
	__u32 rule_cpus[STEER_RULE_CPUS_MAX];	/* CPU sets of rules */
	__u32 nrule_cpus;
	struct build_flow_rule *flow;
	int nflow;
	struct build_prefix_rule *prefix;
	int nprefix;
	/* The cpumap kthreads' scheduling (sched_setscheduler()'s policy
	 * and priority, and setpriority()'s nice under SCHED_OTHER),
	 * applied to every entry the build needs; not with sched_set false
	 * (the policy leaves it, and the slot never holds it). */
	bool sched_set;
	int sched_policy;
	int sched_priority;
	int sched_nice;
};

void build_free(struct steer_build *b);

/* Digest of everything the build puts in a slot, its table included, but
 * its generation and digest: same digest, same policy in force. Computed
 * field by field, so padding and the order of struct members in memory
 * never enter it. */
__u64 build_digest(const struct steer_build *b, const __u32 *table);

/* Marks in need[STEER_CPU_IDS] every CPU the build can send frames to:
 * its table (table_size entries), rules and non-IP CPU. */
void build_needed_cpus(const struct steer_build *b, const __u32 *table,
		       unsigned char *need);

/* The rules an apply keeps to build on the slot in force ('active', its
 * table_size 0 without a policy): kernel/slots.c applies by them, and the
 * dry run (model/plan.h) predicts with them, so the two never differ. */

/* Under hash seed: random, the key in force stays when the slot in force
 * was drawn at random too (flows keep their buckets): copied into b.
 * Returns true when a new random key must be drawn (seed: random, and
 * none in force to keep); an explicit seed's key is already in b. */
bool build_keep_key(struct steer_build *b, const struct steer_slot *active);

/* The cpumap bank of the new slot: a new queue size goes into the other
 * bank, so no entry with frames in its ring is replaced; the same size
 * keeps the bank, and its entries. */
__u32 build_choose_bank(const struct steer_slot *active,
			const struct steer_slot *next);

/* The table of b->slot.table_size entries the apply puts in force, into
 * table[]: b->table as it is (the balancer's); else the one in force
 * kept whole when the slot in force and b both balance, with the same
 * table size, workers and weights (weight[STEER_CPU_IDS], the slot in
 * force's; NULL: unknown), and it names only those workers; else built
 * from it (table_build(), only the buckets that must move do). 'old':
 * the table in force when its size is b's, else NULL. Returns the number
 * of buckets whose CPU differs from 'old' (all without it), or a
 * negative errno. */
int build_next_table(const struct steer_build *b,
		     const struct steer_slot *active, const __u32 *weight,
		     const __u32 *old, __u32 *table);

#endif /* XDP_STEER_BUILD_H */
