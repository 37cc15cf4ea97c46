/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * slots.h - a compiled policy written into an interface's pinned maps,
 * atomically, and the slot in force read back.
 *
 * An apply runs in phases, each keeping an invariant (slots.c and
 * slots_retire.c say each where it is):
 *   prepare       finish what an earlier apply left pending; build the
 *                 table from the one in force (or take the balancer's:
 *                 see below); nothing is written
 *   write         fill the inactive slot; no reader looks at it
 *   add cpumap    entries for CPUs the new slot needs; the active slot
 *                 points at none of the new ones
 *   warm up       with drain: open the window (every queued frame stamped
 *                 and recorded), wait until every CPU sees it, then until
 *                 every cpumap ring has handed on what it held (window.h);
 *                 a ring that does not fails the apply here
 *   flip          steer_ctl.active = new slot, retire_pending = 1: the new
 *                 policy is in force, in one word; shut the window
 *   wait          an RCU grace period: no program still runs with the old
 *                 slot
 *   retire        remove cpumap entries the active slot does not need and
 *                 no live bucket record names (waiting up to the drain
 *                 timeout for those), then retire_pending = 0
 * The table, between the balancer and an apply of a policy: the policy
 * says which CPUs work and their weights (steer_weights), the balancer
 * which CPU each bucket goes to. Its moves are applies of the slot in
 * force read back (slots_read_build) with its own table (build.table).
 * An apply whose slot and the one in force both balance, with the same
 * table size, workers and weights, keeps the table in force bucket for
 * bucket; any other builds it from the one in force (table_build: each
 * CPU back to its weight's bucket count, moving only what must move).
 * A failure before the flip leaves the old policy in force and removes the
 * entries it added; after it, the new policy stays in force and whatever
 * is left (a wait that failed, a process killed) is finished by the next
 * apply before it writes anything: retire_pending says so.
 */
#ifndef XDP_STEER_SLOTS_H
#define XDP_STEER_SLOTS_H

#include <stdbool.h>

#include <stddef.h>
#include <linux/bpf.h>

#include "model/build.h"
#include "model/cpuset.h"
#include "model/slot_view.h"
#include "model/slots_result.h"
#include "kernel/kthreads.h"
#include "kernel/maps.h"
#include "util/why.h"

/* worker_fds[bank]: the cpumap program to run on that bank's workers. 0 or a negative
 * errno with the reason in 'why'. */
int slots_apply(const struct steer_maps *m, struct steer_build *b,
		const int *worker_fds, struct slots_result *res,
		struct why *why);

/* What an apply of a build would do, read without writing anything. */
struct slots_plan {
	struct steer_ctl ctl;		/* in force */
	struct steer_slot active;	/* in force (table_size 0: none) */
	bool key_drawn;			/* seed: random, no key to keep: the
					 * apply draws one */
	bool same_policy;		/* the build is the policy in force */
	int moved_buckets;		/* as slots_result's */
	struct cpu_set renewed;		/* workers whose entries it would
					 * make anew (kthreads.h) */
	struct kthread_info kt[STEER_CPU_TARGETS];	/* every entry's now */
};

/* The prepare phase of slots_apply() on 'b', reading only: its key kept
 * (or left to draw), its table into table[STEER_TABLE_MAX], its bank and
 * digest, as the apply would make them. Writes no map, opens no window,
 * takes nothing from the kthreads. 0 or a negative errno with the reason
 * in 'why'. */
int slots_plan(const struct steer_maps *m, struct steer_build *b,
	       __u32 *table, struct slots_plan *out, struct why *why);

/* The slot in force and what its table, rules and the cpumap hold. */
int slots_read_view(const struct steer_maps *m, struct slot_view *v);

/* The slot in force as the build that would apply it again: its settings,
 * its table into table[] (STEER_TABLE_MAX), workers and weights, rules
 * and rule CPU sets (free with build_free()). -ENOENT without a policy,
 * or with a slot an xdp-steer without steer_weights wrote. */
int slots_read_build(const struct steer_maps *m, struct steer_build *b,
		     __u32 *table);

/* The slot in force: the flip word, the slot, its table (table_size
 * entries into table[STEER_TABLE_MAX]). -ENOENT without a policy. */
int slots_read_active(const struct steer_maps *m, struct steer_ctl *ctl,
		      struct steer_slot *s, __u32 *table);

/* The flip word (steer_ctl), its active slot as 0 or 1. */
int slots_read_ctl(const struct steer_maps *m, struct steer_ctl *ctl);

/* weight[STEER_CPU_IDS]: slot 'slot's table weights (0: not a worker). */
int slots_read_weights(const struct steer_maps *m, __u32 slot, __u32 *weight);

/* Waits until no XDP program still runs with what it read before the
 * call (an RCU grace period). */
int slots_wait_readers(void);

#endif /* XDP_STEER_SLOTS_H */
