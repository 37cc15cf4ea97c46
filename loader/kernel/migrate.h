/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * migrate.h - an upgrade in place over maps of another version's layout:
 * for each map of STEER_MAPS, what becomes of the pinned one. Kept (its
 * layout is this version's), created (a map this version added, seeded
 * by its registered way), rebuilt (from the old one, by its registered
 * way) or refused (a change no way is registered for). The plan is made
 * before anything changes; the new maps are pinned as NAME_staged until
 * the XDP program that uses them is on the interface, then renamed over
 * the old pins. A run killed at any step leaves a state migrate_settle()
 * settles.
 *
 * Functions return 0 or a negative errno, with a sentence in 'why'.
 */
#ifndef XDP_STEER_MIGRATE_H
#define XDP_STEER_MIGRATE_H

#include <limits.h>
#include <stddef.h>
#include <linux/types.h>

#include "kernel/maps.h"
#include "util/why.h"

struct bpf_object;

/* The suffix of a staged pin: steer_stats_staged. */
#define MIGRATE_STAGED	"_staged"

enum migrate_way {
	MIGRATE_KEEP,
	MIGRATE_CREATE,
	MIGRATE_REBUILD,
};

/* A map's layout, as bpf_map_info gives it. */
struct migrate_layout {
	__u32 type, key_size, value_size, max_entries, flags;
	__u32 btf_id, btf_value_type_id;	/* the pinned one's: 0 none */
};

struct migrate_map {
	const char *name;
	enum migrate_way way;
	struct migrate_layout old;	/* zeros when not pinned */
	struct migrate_layout want;	/* this version's */
};

/* Indexed like STEER_MAPS. */
struct migrate_plan {
	char dir[PATH_MAX];
	int nmaps;
	int changes;			/* maps created or rebuilt */
	__u32 rx_rows;			/* rows of the per-slot maps made
					 * (migrate_stage()); 0: none made */
	struct migrate_map map[64];
};

/* Compares every map pinned in 'dir' with this version's: 0 with the plan
 * in *p (p->changes 0: every map kept), -EPROTO when a map cannot be
 * carried over ('why' names it, both layouts and what to do), or another
 * negative errno. Changes nothing. */
int migrate_plan(const char *dir, struct migrate_plan *p, struct why *why);

/* Creates and pins (NAME_staged) the plan's created and rebuilt maps, and
 * seeds the created ones; on failure none is left pinned. Sets
 * p->rx_rows, lowering a pinned pool's limit to it (migrate.c). */
int migrate_stage(struct migrate_plan *p, struct why *why);

/* Just before the XDP program is swapped: fills each rebuilt map from the
 * old one, and marks the drain's evidence the old programs keep apart
 * (see migrate.c). */
int migrate_before_swap(const struct migrate_plan *p, struct why *why);

/* Right after the swap, before anything else: marks the evidence the old
 * program kept apart once more, now that it queues no more. */
int migrate_after_swap(const struct migrate_plan *p, struct why *why);

/* Once the XDP program on the interface uses the staged maps: renames
 * them over the old pins. Idempotent. */
int migrate_finish(const char *dir, struct why *why);

/* Removes any staged pin in 'dir'. */
void migrate_unstage(const char *dir);

/* How many staged pins 'dir' holds (0: no upgrade left halfway), or a
 * negative errno. */
int migrate_staged(const char *dir);

/* Settles an upgrade killed halfway: when the XDP program 'prog_id' (0:
 * none) uses a staged map, finishes it (1); else removes the staged pins
 * (2). 0 when nothing was staged. */
int migrate_settle(const char *dir, __u32 prog_id, struct why *why);

/* For a program loaded on the maps pinned in 'dir': a staged map takes
 * the place of the pinned one of its name. */
int migrate_prefer_staged(struct bpf_object *obj, const char *dir);

/* 1 when program 'prog_id' has a map named 'name' (a pin of it removed,
 * not a map its version lacks), else 0. */
int migrate_prog_has_map(__u32 prog_id, const char *name);

/* maps_open() of 'dir', staged maps in place of the pinned ones. */
int migrate_maps_open(const char *dir, struct steer_maps *m,
		      const char **missing);

#endif /* XDP_STEER_MIGRATE_H */
