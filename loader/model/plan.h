/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * plan.h - what an apply would change (`apply --dry-run`): the build in
 * force against the one the apply would put in force, compared. Pure: the
 * library (lib/dry_run.c) fills the inputs from the maps and /proc and
 * writes nothing; the builds come from the same code an apply runs
 * (policy_compile(), build_keep_key(), build_next_table(),
 * build_choose_bank()), so the plan says what the apply would do.
 */
#ifndef XDP_STEER_PLAN_H
#define XDP_STEER_PLAN_H

#include <stdbool.h>

#include "model/build.h"
#include "model/cpuset.h"

/* A cpumap kthread's scheduling: sched_setscheduler()'s policy and
 * priority, and setpriority()'s nice (compared under SCHED_OTHER only, as
 * the apply compares it). */
struct plan_sched {
	bool known;		/* false: no kthread found for the entry */
	int policy;		/* SCHED_* */
	int priority;
	int nice;
};

struct plan_in {
	/* In force; NULL without a policy. old_table: its table_size
	 * entries. */
	const struct steer_build *old;
	const __u32 *old_table;
	/* What the apply would put in force: the build with its table built
	 * (next_table), its key kept or to be drawn (key_drawn: seed: random
	 * and no random key in force), its bank chosen. */
	const struct steer_build *next;
	const __u32 *next_table;
	bool key_drawn;
	/* The cpumap now, by target (bank * STEER_CPU_IDS + cpu): which
	 * entries exist and their ring sizes; without those already on
	 * their way out (not needed by the slot in force, buckets still
	 * draining from them), which go whatever is applied. */
	const unsigned char *in_cpumap;		/* [STEER_CPU_TARGETS] */
	const __u32 *qsize;			/* [STEER_CPU_TARGETS] */
	/* Each entry's kthread now, by target. */
	const struct plan_sched *sched;		/* [STEER_CPU_TARGETS] */
	/* Workers whose kthread may run off its CPU, which the apply gives
	 * new entries (kernel/kthreads.h). NULL: none. */
	const struct cpu_set *renew;
};

/* A worker whose weight changes; 0: not a worker (added or removed). */
struct plan_worker {
	__u32 cpu;
	__u32 old_weight;
	__u32 new_weight;
};

/* Buckets of the table that would go from one CPU to another. */
struct plan_move {
	__u32 from;
	__u32 to;
	__u32 buckets;
};

enum plan_what {
	PLAN_ADDED,
	PLAN_REMOVED,
	PLAN_CHANGED,
};

/* A rule map entry added, removed, or whose target changes. The CPUs of
 * a target: its CPU, or its set's members (weights repeat a CPU). */
struct plan_rule {
	enum plan_what what;
	bool prefix;
	struct steer_rule_key exact;	/* !prefix; slot 0 */
	struct steer_prefix_key pfx;	/* prefix; slot 0 */
	int old_rule, new_rule;		/* rule_id, from 0; -1: none */
	struct cpu_set old_cpus, new_cpus;
};

enum plan_cpumap_what {
	PLAN_CPUMAP_CREATED,	/* a worker gets an entry */
	PLAN_CPUMAP_REMOVED,	/* an entry goes (once no bucket drains
				 * from it) */
	PLAN_CPUMAP_RESIZED,	/* a new entry with another queue_size, in
				 * the other bank; the old one goes */
	PLAN_CPUMAP_RENEWED,	/* a new entry, the same size: its kthread
				 * may run off its CPU */
};

struct plan_cpumap {
	__u32 cpu;
	enum plan_cpumap_what what;
	__u32 old_qsize;	/* 0: none */
	__u32 new_qsize;	/* 0: none */
};

/* A worker whose kthread's scheduling the policy's worker_sched
 * changes. */
struct plan_sched_change {
	__u32 cpu;
	struct plan_sched from;	/* its kthread's now, or the one a new
				 * entry replaces; a new worker's starts
				 * at SCHED_OTHER, nice 0 */
	struct plan_sched to;
};

/* A slot setting that changes, named as the policy names it, its values
 * as text. */
struct plan_setting {
	const char *name;
	char from[96];
	char to[96];
};

#define PLAN_SETTINGS_MAX	16

struct steer_plan {
	bool had_policy;
	bool changes;		/* anything at all would change */
	bool rehash;		/* the hash key changes: every flow is hashed
				 * anew, whatever its bucket's CPU */
	struct plan_worker workers[STEER_CPU_IDS];
	int nworkers;
	/* Table moves, counted in 'units' parts of the hash space: the
	 * larger table's buckets (a bucket is a bucket when the size stays). */
	__u32 old_table_size, new_table_size, units;
	__u32 moved;
	struct plan_move *moves;	/* by from, then to */
	int nmoves;
	/* Exact-field entries, then prefix ones; in each, the removed and
	 * changed in the order of those in force, then the added. */
	struct plan_rule *rules;
	int nrules;
	struct plan_cpumap cpumap[STEER_CPU_TARGETS];	/* by CPU */
	int ncpumap;
	struct plan_sched_change sched[STEER_CPU_TARGETS];	/* by CPU */
	int nsched;
	struct plan_setting settings[PLAN_SETTINGS_MAX];
	int nsettings;
};

/* Compares; 0 or -ENOMEM (then nothing to free). Free with plan_free(). */
int plan_make(const struct plan_in *in, struct steer_plan *p);
void plan_free(struct steer_plan *p);

#endif /* XDP_STEER_PLAN_H */
