// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * migrate.c - an upgrade in place's maps (migrate.h): the plan, which
 * compares every pinned map with this version's, and the staging of the
 * maps it creates or rebuilds around the program's swap. How each map
 * of another layout is carried over is migrate_ways.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/names.h"
#include "xdp_steer/stats.h"
#include "xdp_steer/balance.h"
#include "xdp_steer/drain.h"
#include "xdp_steer/rx_slots.h"
#include "xdp_steer/maps.h"
#include "xdp_steer.skel.h"
#include "kernel/map_numa.h"
#include "kernel/migrate.h"
#include "kernel/migrate_ways.h"
#include "kernel/prog.h"
#include "kernel/prog_size.h"
#include "kernel/trace.h"

static const struct {
	const char *name;
	struct migrate_layout want;
} this_version[] = {
#define MIGRATE_ENTRY_(name, type, key, value, max, flags)		\
	{ #name, { type, sizeof(key), sizeof(value), max, flags, 0, 0 } },
	STEER_MAPS(MIGRATE_ENTRY_)
#undef MIGRATE_ENTRY_
};
#define NMAPS ((int)(sizeof(this_version) / sizeof(this_version[0])))
_Static_assert(sizeof(this_version) / sizeof(this_version[0]) <=
	       sizeof(((struct migrate_plan *)0)->map) /
	       sizeof(((struct migrate_plan *)0)->map[0]),
	       "struct migrate_plan holds every map of STEER_MAPS");

/* ---- the plan ------------------------------------------------------------ */

static const char *type_name(__u32 type)
{
	const char *s = libbpf_bpf_map_type_str(type);

	return s ? s : "?";
}

static void layout_str(const struct migrate_layout *l, char *buf, size_t len)
{
	snprintf(buf, len, "%s, key %u B, value %u B, %u entries, flags %#x",
		 type_name(l->type), l->key_size, l->value_size,
		 l->max_entries, l->flags);
}

static bool per_slot(const char *name)
{
	return !strcmp(name, STEER_STR(steer_buckets)) ||
	       !strcmp(name, STEER_STR(steer_load));
}

/*
 * Whether 'entries' is a size the loader gives map 'name' at load
 * (kernel/prog.c): the maps by target or by CPU sized by the span S (at
 * most STEER_CPU_IDS), the slot-keyed ones by the receiver slots' rows
 * (at most STEER_RX_SLOTS; steer_queued a row more), or both. A pinned
 * map of another span or rows than this version would make (256 each
 * before they were sized) is kept with its size, and the programs loaded
 * on it are told its span (prog_span(): steer_wdone's entries / 2); that
 * the maps agree with each other is checked as they are opened
 * (kernel/maps.c span_ok()). So no way converts them.
 */
static bool sized_at_load(const char *name, __u32 entries)
{
	if (!entries)
		return false;
	if (!strcmp(name, STEER_STR(steer_wdone)) ||
	    !strcmp(name, STEER_STR(steer_wenq)))
		return !(entries % STEER_BANKS) &&
		       entries / STEER_BANKS <= STEER_CPU_IDS;
	if (!strcmp(name, STEER_STR(steer_weights)))
		return !(entries % STEER_SLOTS) &&
		       entries / STEER_SLOTS <= STEER_CPU_IDS;
	if (!strcmp(name, STEER_STR(steer_seq)) ||
	    !strcmp(name, STEER_STR(steer_deq)))
		return !(entries % STEER_BANKS) &&
		       entries / STEER_BANKS <= STEER_RX_SLOTS * STEER_CPU_IDS;
	if (!strcmp(name, STEER_STR(steer_queued)))
		return entries <= (STEER_RX_SLOTS + 1) * STEER_CPU_IDS;
	if (!strcmp(name, STEER_STR(steer_rx_cpu)) ||
	    !strcmp(name, STEER_STR(steer_rx_lease)))
		return entries <= STEER_RX_SLOTS;
	return false;
}

static bool same_layout(const char *name, const struct migrate_layout *a,
			const struct migrate_layout *b)
{
	/* A cpumap is sized to the possible CPUs at load (kernel/prog.c),
	 * the per-slot maps to the receiver slots, rows of STEER_TABLE_MAX,
	 * the others by their span and slot rows (sized_at_load()).
	 * BPF_F_NUMA_NODE says where a map lives, not its layout
	 * (kernel/map_numa.h). */
	return a->type == b->type && a->key_size == b->key_size &&
	       a->value_size == b->value_size &&
	       (a->flags & ~BPF_F_NUMA_NODE) == (b->flags & ~BPF_F_NUMA_NODE) &&
	       (a->max_entries == b->max_entries ||
		(a->type == BPF_MAP_TYPE_CPUMAP && a->max_entries &&
		 a->max_entries <= STEER_CPU_IDS) ||
		sized_at_load(name, a->max_entries) ||
		(per_slot(name) && a->max_entries &&
		 !(a->max_entries % STEER_TABLE_MAX) &&
		 a->max_entries <= b->max_entries));
}

static int read_layout(const char *path, struct migrate_layout *l)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_obj_get(path), err = 0;

	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		err = -errno;
	close(fd);
	*l = (struct migrate_layout){ info.type, info.key_size,
				      info.value_size, info.max_entries,
				      info.map_flags, info.btf_id,
				      info.btf_value_type_id };
	return err;
}

int migrate_plan(const char *dir, struct migrate_plan *p, struct why *why)
{
	char path[PATH_MAX + 64], a[128], b[128];
	const struct migrate_carry *w;
	const char *no;
	int i, err;

	memset(p, 0, sizeof(*p));
	snprintf(p->dir, sizeof(p->dir), "%s", dir);
	p->nmaps = NMAPS;
	for (i = 0; i < NMAPS; i++) {
		struct migrate_map *mm = &p->map[i];

		mm->name = this_version[i].name;
		mm->want = this_version[i].want;
		snprintf(path, sizeof(path), "%s/%s", dir, mm->name);
		err = read_layout(path, &mm->old);
		if (err == -ENOENT)
			mm->way = MIGRATE_CREATE;
		else if (err) {
			why_set(why, "cannot read the map pinned at %s: %s",
				path, strerror(-err));
			return err;
		} else {
			mm->way = same_layout(mm->name, &mm->old, &mm->want) ?
				  MIGRATE_KEEP : MIGRATE_REBUILD;
		}
		p->changes += mm->way != MIGRATE_KEEP;
	}
	/* Each change has a way, and the way applies to this plan; a
	 * change of design (a way that is a reason) is named first. */
	for (i = 0; i < 2 * NMAPS; i++) {
		const struct migrate_map *mm = &p->map[i % NMAPS];

		w = migrate_carry_of(mm->name);
		if (mm->way == MIGRATE_KEEP ||
		    (i < NMAPS && !(w && w->why)))
			continue;
		no = !w ? NULL : w->why ? w->why :
		     mm->way == MIGRATE_CREATE && !w->seed ?
		     "no way to create it is registered" :
		     mm->way == MIGRATE_REBUILD && !w->rebuild ?
		     "no way to rebuild it is registered" :
		     w->refused ? w->refused(p) : NULL;
		if (w && !no)
			continue;
		layout_str(&mm->want, b, sizeof(b));
		if (mm->way == MIGRATE_CREATE) {
			why_set(why, "the running version has no map %s (this version's: %s): %s; nothing was changed; 'xdp-steer detach', then attach again, to upgrade",
				mm->name, b, no ? no : "no way to make it under a running program is registered (loader/kernel/migrate_ways.c)");
		} else {
			layout_str(&mm->old, a, sizeof(a));
			why_set(why, "map %s's layout changed (pinned: %s; this version's: %s): %s; nothing was changed; 'xdp-steer detach', then attach again, to upgrade",
				mm->name, a, b, no ? no : "no way to carry it over is registered (loader/kernel/migrate_ways.c)");
		}
		return -EPROTO;
	}
	return 0;
}

/* ---- staging ------------------------------------------------------------- */

static void staged_path(const char *dir, const char *name, char *buf,
			size_t len)
{
	snprintf(buf, len, "%s/%s" MIGRATE_STAGED, dir, name);
}

int migrate_prefer_staged(struct bpf_object *obj, const char *dir)
{
	char path[PATH_MAX + 64];
	struct bpf_map *map;
	int err;

	bpf_object__for_each_map(map, obj) {
		staged_path(dir, bpf_map__name(map), path, sizeof(path));
		if (access(path, F_OK))
			continue;
		err = bpf_map__set_pin_path(map, path);
		if (err)
			return err;
	}
	return 0;
}

int migrate_maps_open(const char *dir, struct steer_maps *m,
		      const char **missing)
{
	return maps_open_prefer(dir, m, missing, MIGRATE_STAGED);
}

void migrate_unstage(const char *dir)
{
	char path[PATH_MAX + 64];
	int i;

	for (i = 0; i < NMAPS; i++) {
		staged_path(dir, this_version[i].name, path, sizeof(path));
		unlink(path);
	}
}

int migrate_staged(const char *dir)
{
	char path[PATH_MAX + 64];
	int i, n = 0;

	for (i = 0; i < NMAPS; i++) {
		staged_path(dir, this_version[i].name, path, sizeof(path));
		n += !access(path, F_OK);
	}
	return n;
}

/* The object's maps created as libbpf would for this version: the kept
 * ones reused from their pins (sized as pinned), the others made and
 * pinned NAME_staged; no program is loaded. */
static int stage_maps(const struct migrate_plan *p)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .pin_root_path = p->dir);
	struct xdp_steer_bpf *skel = xdp_steer_bpf__open_opts(&opts);
	char path[PATH_MAX + 64];
	const struct migrate_map *mm;
	struct bpf_program *prog;
	struct bpf_map *map;
	int err = 0;

	if (!skel)
		return -errno;
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, false);
	bpf_object__for_each_map(map, skel->obj) {
		mm = migrate_plan_map(p, bpf_map__name(map));
		if (!mm)
			continue;
		if (mm->way == MIGRATE_KEEP) {
			err = bpf_map__set_max_entries(map, mm->old.max_entries);
		} else {
			staged_path(p->dir, mm->name, path, sizeof(path));
			err = bpf_map__set_pin_path(map, path);
			if (!err && per_slot(mm->name))
				err = bpf_map__set_max_entries(map,
					migrate_rx_rows(p) * STEER_TABLE_MAX);
			/* As steer_rx_cpu's rows, kept or made. */
			if (!err && !strcmp(mm->name, STEER_STR(steer_rx_lease)))
				err = bpf_map__set_max_entries(map,
					migrate_slot_rows(p));
			/* A row of the span per slot, and one more. */
			if (!err && !strcmp(mm->name, STEER_STR(steer_queued)))
				err = bpf_map__set_max_entries(map,
					(migrate_slot_rows(p) + 1) * migrate_span(p));
		}
		if (err)
			break;
	}
	/* A kept per-slot map keeps its node flag; made ones have none. */
	if (!err)
		err = map_numa_apply(skel->obj, NULL, -1);
	if (!err)
		err = xdp_steer_bpf__load(skel);
	xdp_steer_bpf__destroy(skel);
	return err;
}

int migrate_stage(struct migrate_plan *p, struct why *why)
{
	char path[PATH_MAX + 64];
	const struct migrate_carry *w;
	int i, fd, err;

	migrate_unstage(p->dir);
	err = migrate_plan_rx_rows(p);
	if (err) {
		why_set(why, "sizing the receiver slots' maps of %s failed: %s",
			p->dir, strerror(-err));
		goto fail;
	}
	err = stage_maps(p);
	if (err) {
		why_set(why, "creating this version's maps beside those pinned in %s failed: %s; -v shows libbpf's message",
			p->dir, strerror(-err));
		goto fail;
	}
	for (i = 0; i < p->nmaps; i++) {
		const struct migrate_map *mm = &p->map[i];

		w = migrate_carry_of(mm->name);
		if (mm->way != MIGRATE_CREATE || !w || !w->seed)
			continue;
		staged_path(p->dir, mm->name, path, sizeof(path));
		fd = bpf_obj_get(path);
		err = fd < 0 ? -errno : w->seed(fd, p);
		if (fd >= 0)
			close(fd);
		if (err) {
			why_set(why, "seeding the new map %s failed: %s",
				mm->name, strerror(-err));
			goto fail;
		}
	}
	return 0;
fail:
	migrate_unstage(p->dir);
	return err;
}

/* The pool's overflow_tick set to now (this file's header says why), by
 * bpf/pool_mark.bpf.c: one store beside the receiving CPUs' claims. */
static int mark_unnamed_queuers(const char *dir, bool staged)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	char path[PATH_MAX + 64];

	if (staged)
		staged_path(dir, STEER_STR(steer_rx_pool), path, sizeof(path));
	else
		snprintf(path, sizeof(path), "%s/%s", dir,
			 STEER_STR(steer_rx_pool));
	return migrate_pool_run(path, false, &opts);
}

int migrate_before_swap(const struct migrate_plan *p, struct why *why)
{
	char path[PATH_MAX + 64];
	const struct migrate_carry *w;
	int i, ofd, nfd, err = 0;

	for (i = 0; i < p->nmaps && !err; i++) {
		const struct migrate_map *mm = &p->map[i];

		w = migrate_carry_of(mm->name);
		if (mm->way != MIGRATE_REBUILD || !w || !w->rebuild)
			continue;
		snprintf(path, sizeof(path), "%s/%s", p->dir, mm->name);
		ofd = bpf_obj_get(path);
		staged_path(p->dir, mm->name, path, sizeof(path));
		nfd = bpf_obj_get(path);
		err = ofd < 0 || nfd < 0 ? -errno : w->rebuild(ofd, nfd, p);
		if (ofd >= 0)
			close(ofd);
		if (nfd >= 0)
			close(nfd);
		if (err)
			why_set(why, "rebuilding map %s from the pinned one failed: %s",
				mm->name, strerror(-err));
	}
	if (!err && migrate_rebuilt(p, STEER_STR(steer_stats))) {
		err = mark_unnamed_queuers(p->dir,
					   migrate_created(p, STEER_STR(steer_rx_pool)));
		if (err)
			why_set(why, "marking steer_rx_pool failed: %s",
				strerror(-err));
	}
	return err;
}

int migrate_after_swap(const struct migrate_plan *p, struct why *why)
{
	int err;

	if (!migrate_rebuilt(p, STEER_STR(steer_stats)))
		return 0;
	err = mark_unnamed_queuers(p->dir,
				   migrate_created(p, STEER_STR(steer_rx_pool)));
	if (err)
		why_set(why, "marking steer_rx_pool failed: %s",
			strerror(-err));
	return err;
}

int migrate_finish(const char *dir, struct why *why)
{
	char from[PATH_MAX + 64], to[PATH_MAX + 64];
	bool stats = false;
	int i, err;

	for (i = 0; i < NMAPS; i++) {
		staged_path(dir, this_version[i].name, from, sizeof(from));
		if (access(from, F_OK))
			continue;
		stats |= !strcmp(this_version[i].name, STEER_STR(steer_stats));
		/* bpffs replaces the old pin in one step. */
		snprintf(to, sizeof(to), "%s/%s", dir, this_version[i].name);
		if (rename(from, to)) {
			err = -errno;
			why_set(why, "renaming %s over %s failed: %s",
				from, to, strerror(-err));
			return err;
		}
	}
	/* Once more, for a run killed between the swap and here. */
	err = stats ? mark_unnamed_queuers(dir, false) : 0;
	if (err)
		why_set(why, "marking steer_rx_pool failed: %s",
			strerror(-err));
	return err;
}

int migrate_prog_has_map(__u32 prog_id, const char *name)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), ids[64], n, k;
	int fd, mfd, found = 0;

	fd = name ? bpf_prog_get_fd_by_id(prog_id) : -1;
	if (fd < 0)
		return 0;
	info.nr_map_ids = 64;
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		info.nr_map_ids = 0;
	close(fd);
	n = info.nr_map_ids < 64 ? info.nr_map_ids : 64;
	for (k = 0; k < n && !found; k++) {
		struct bpf_map_info mi = {};
		__u32 mlen = sizeof(mi);

		mfd = bpf_map_get_fd_by_id(ids[k]);
		if (mfd < 0)
			continue;
		/* The kernel keeps BPF_OBJ_NAME_LEN - 1 characters. */
		if (!bpf_obj_get_info_by_fd(mfd, &mi, &mlen))
			found = !strncmp(mi.name, name, sizeof(mi.name) - 1);
		close(mfd);
	}
	return found;
}

/* 1 when program 'prog_id' uses a map pinned NAME_staged in 'dir'. */
static int uses_staged(const char *dir, __u32 prog_id)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), ids[64], n, k;
	char path[PATH_MAX + 64];
	int fd, mfd, i, found = 0;

	fd = prog_id ? bpf_prog_get_fd_by_id(prog_id) : -1;
	if (fd < 0)
		return 0;
	info.nr_map_ids = 64;
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		close(fd);
		return -errno;
	}
	close(fd);
	n = info.nr_map_ids < 64 ? info.nr_map_ids : 64;
	for (i = 0; i < NMAPS && !found; i++) {
		struct bpf_map_info mi = {};
		__u32 mlen = sizeof(mi);

		staged_path(dir, this_version[i].name, path, sizeof(path));
		mfd = bpf_obj_get(path);
		if (mfd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(mfd, &mi, &mlen))
			for (k = 0; k < n; k++)
				found |= ids[k] == mi.id;
		close(mfd);
	}
	return found;
}

int migrate_settle(const char *dir, __u32 prog_id, struct why *why)
{
	int used, err;

	if (migrate_staged(dir) <= 0)
		return 0;
	used = uses_staged(dir, prog_id);
	if (used < 0) {
		why_set(why, "reading program %u failed: %s", prog_id,
			strerror(-used));
		return used;
	}
	if (!used) {
		struct steer_maps m;

		/* Killed before the swap: an incoming tracepoint set loaded
		 * on the staged maps would count into maps nothing reads. */
		if (!migrate_maps_open(dir, &m, NULL)) {
			err = trace_handover_abort(&m, why);
			maps_close(&m);
			if (err < 0)
				return err;
		}
		migrate_unstage(dir);
		return 2;
	}
	err = migrate_finish(dir, why);
	return err ? err : 1;
}
