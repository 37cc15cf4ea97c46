/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * apply.h - writing a compiled policy into an interface's pinned maps,
 * atomically: the new policy goes into the inactive slot, one word flips
 * it in, and any failure before the flip leaves the old policy in force.
 */
#ifndef XDP_STEER_APPLY_H
#define XDP_STEER_APPLY_H

#include "build.h"
#include "maps.h"

struct apply_result {
	int unchanged;		/* same digest as the active slot: no flip */
	__u32 slot;		/* slot now active */
	__u32 generation;	/* its generation */
	int moved_buckets;	/* table buckets whose CPU changed */
	int cpus_added;		/* cpumap entries created or replaced */
	int cpus_removed;	/* cpumap entries of CPUs that left */
};

/* 'worker_fd': the cpumap program to run on each worker. */
int apply_build(const struct steer_maps *m, struct steer_build *b,
		int worker_fd, struct apply_result *res);

/* Waits until no XDP program still runs with what it read before the
 * call (an RCU grace period). */
int apply_wait_readers(void);

#endif /* XDP_STEER_APPLY_H */
