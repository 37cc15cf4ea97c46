/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * slots_result.h - what an apply did to an interface's slots. Plain data:
 * kernel/slots.c fills it (slots_apply()), the library hands it out
 * (steer_apply_result), the CLI says it.
 */
#ifndef XDP_STEER_SLOTS_RESULT_H
#define XDP_STEER_SLOTS_RESULT_H

#include <stdbool.h>
#include <linux/types.h>

#include "model/cpuset.h"

struct slots_result {
	bool had_policy;	/* a policy was in force before (and stays in
				 * force when the apply fails) */
	bool unchanged;		/* same digest as the active slot: no flip */
	bool finished_pending;	/* an earlier apply's retire was finished */
	bool retire_deferred;	/* the wait failed: retiring is left to the
				 * next apply (the new policy is in force) */
	__u32 slot;		/* slot now active */
	__u32 generation;	/* its generation */
	int moved_buckets;	/* table buckets whose CPU changed */
	int cpus_added;		/* cpumap entries created */
	int cpus_removed;	/* cpumap entries retired */
	int cpus_kept;		/* entries not needed, kept while buckets
				 * still drain from them */
	bool same_policy;	/* the policy is the one in force (a flip
				 * only to repair kthreads) */
	struct cpu_set renewed;	/* workers whose kthread could run off its
				 * CPU, given new entries (model/kthread.h) */
	int sched_changed;	/* kthreads whose class or priority the
				 * policy's worker_sched changed */
};

#endif /* XDP_STEER_SLOTS_RESULT_H */
