/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * migrate_ways.h - what the plan and the staging (migrate.c) read of the
 * ways (migrate_ways.c): one row per map whose layout changed between
 * versions, or that a version added.
 */
#ifndef XDP_STEER_MIGRATE_WAYS_H
#define XDP_STEER_MIGRATE_WAYS_H

#include <stdbool.h>
#include <linux/types.h>

#include "kernel/migrate.h"

/* A map's way: 'seed' fills it when it is created, 'rebuild' makes it
 * from the old one just before the swap; 'refused' says why the way does
 * not apply to this plan (NULL: it does); 'why' says why a missing map
 * without a way cannot be made. */
struct migrate_carry {
	const char *name;
	int (*seed)(int fd, const struct migrate_plan *p);
	int (*rebuild)(int old_fd, int new_fd, const struct migrate_plan *p);
	const char *(*refused)(const struct migrate_plan *p);
	const char *why;
};

/* The way of map 'name', or NULL: a map kept as it is, or none known. */
const struct migrate_carry *migrate_carry_of(const char *name);

/* The plan's row of map 'name', or NULL. */
const struct migrate_map *migrate_plan_map(const struct migrate_plan *p,
					   const char *name);

/* Whether the plan creates (migrate_created) or rebuilds
 * (migrate_rebuilt) map 'name'. */
bool migrate_created(const struct migrate_plan *p, const char *name);
bool migrate_rebuilt(const struct migrate_plan *p, const char *name);

/* Rows of the per-slot maps this upgrade makes (migrate_plan_rx_rows()). */
__u32 migrate_rx_rows(const struct migrate_plan *p);
/* Rows of steer_seq, steer_deq and steer_rx_cpu after this upgrade. */
__u32 migrate_slot_rows(const struct migrate_plan *p);
/* The span after this upgrade, which the programs loaded on the pinned
 * maps are told. */
__u32 migrate_span(const struct migrate_plan *p);

/* Sets p->rx_rows, the rows of the per-slot maps this upgrade makes,
 * lowering a pinned pool's limit to it; 0 or a negative errno. */
int migrate_plan_rx_rows(struct migrate_plan *p);

/* Runs bpf/pool_mark.bpf.c's steer_pool_limit ('limit') or
 * steer_pool_mark on the pool pinned at 'path', with 'opts': its one
 * store beside the receiving CPUs' claims. 0 or a negative errno. */
struct bpf_test_run_opts;
int migrate_pool_run(const char *path, bool limit,
		     struct bpf_test_run_opts *opts);

#endif /* XDP_STEER_MIGRATE_WAYS_H */
