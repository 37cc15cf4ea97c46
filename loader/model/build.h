/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * build.h - a policy compiled to map contents: what one slot will hold.
 * Made from a parsed policy (policy/compile.c), written into the maps by
 * kernel/slots.c. Pure.
 */
#ifndef XDP_STEER_BUILD_H
#define XDP_STEER_BUILD_H

#include <stdbool.h>
#include "xdp_steer.h"
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
	struct table_cpu cpus[STEER_MAX_CPUS];	/* indirection table CPUs */
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

/* Marks in need[STEER_MAX_CPUS] every CPU the build can send frames to:
 * its table (table_size entries), rules and non-IP CPU. */
void build_needed_cpus(const struct steer_build *b, const __u32 *table,
		       unsigned char *need);

#endif /* XDP_STEER_BUILD_H */
