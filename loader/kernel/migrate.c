// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * migrate.c - the ways an upgrade in place carries a pinned map of
 * another layout over (migrate.h): one row per map in ways[] below, the
 * only place that knows what changed between versions.
 *
 * Receiver slots over CPU-keyed maps (before 387dfb4): the three slot
 * maps are created with slot = CPU id for every possible CPU below
 * STEER_RX_SLOTS, all slots taken (claimed = limit). The old programs'
 * rows of steer_seq and steer_deq, and their stamps' rx_cpu (the u16
 * where rx_slot is now), then mean what this version reads, so old and
 * new programs share those maps, kept. A CPU at or past STEER_RX_SLOTS
 * gets no slot, as it had no row before.
 *
 * steer_stats, rebuilt by copy, field by field of the same name and size
 * as the two maps' BTF say, so counters carry on; the caches are reset
 * (rxq_mine: look in steer_rxq again; rx_slot: the identity slot). What
 * the drain reads in it, read from a copy that lags the old map:
 *   napi_polls, napi_poll_tick: a record holds the count of the program
 *     that wrote it. The old programs' count runs ahead of the copy, so
 *     the new program finds "a poll ended since" only after one more
 *     poll ended than the old count had at the record: later, never
 *     earlier. On each CPU the old XDP program runs before the new one,
 *     never after, alone on its interface (one swap). Under libxdp's
 *     dispatcher both run on a frame between the two swaps: the old one
 *     could read a record the new one wrote with its lagging count, and
 *     end a drain early; so there, the upgrade refuses while a bucket
 *     drains (lib/upgrade.c), and no drain starts while it holds the
 *     lock.
 *   queued_tick: a tick the old program notes after the copy is missing
 *     in the new map, and queued_lately() could take a CPU for idle
 *     whose frames still wait: so the pool's overflow_tick (any CPU may
 *     have queued) is set just before the swap and again right after it,
 *     once the old program queues no more (bpf/pool_mark.bpf.c: one
 *     store, beside the CPUs' claims); for a drain timeout after that,
 *     every cold bucket arriving at a fast path waits for a marker.
 * Counts the old programs add after the copy (microseconds before the
 * swap; napi_polls by the outgoing tracepoint set until it is handed
 * over) are lost: the counters never go back, they miss those. A
 * steer_stats whose value held queued[] (per target CPU, before
 * steer_queued) has it summed into steer_queued's rows by the slot each
 * CPU holds (fill_queued()), in the same step.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "xdp_steer.h"
#include "xdp_steer.skel.h"
#include "pool_mark.skel.h"
#include "kernel/clock.h"
#include "kernel/map_numa.h"
#include "kernel/migrate.h"
#include "kernel/possible.h"
#include "kernel/prog.h"
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

/* ---- the ways ------------------------------------------------------------ */

static const struct migrate_map *plan_map(const struct migrate_plan *p,
					  const char *name)
{
	int i;

	for (i = 0; i < p->nmaps; i++)
		if (!strcmp(p->map[i].name, name))
			return &p->map[i];
	return NULL;
}

static bool created(const struct migrate_plan *p, const char *name)
{
	const struct migrate_map *mm = plan_map(p, name);

	return mm && mm->way == MIGRATE_CREATE;
}

static bool rebuilt(const struct migrate_plan *p, const char *name)
{
	const struct migrate_map *mm = plan_map(p, name);

	return mm && mm->way == MIGRATE_REBUILD;
}

/* steer_rx_slot, steer_rx_cpu: entry c is c + 1 for each possible CPU c
 * below STEER_RX_SLOTS (slot = CPU id). */
static int seed_identity(int fd, const struct migrate_plan *p)
{
	const struct possible_cpus *pc = possible_cpus();
	__u32 c, v;
	int i;

	(void)p;
	if (!pc)
		return -errno;
	for (i = 0; i < pc->count; i++) {
		c = pc->id[i];
		if (c >= STEER_RX_SLOTS)
			continue;
		v = c + 1;
		if (bpf_map_update_elem(fd, &c, &v, BPF_ANY))
			return -errno;
	}
	return 0;
}

/* steer_rx_lease, which the versions before slot leases lack: made
 * zeroed, every slot's tick 0, "not seen held since these maps were
 * made". The old programs' CPUs hold their slots without writing a tick;
 * a CPU looking for a slot to take over then starts such a slot's lease
 * (bpf/drain.h, rx_slot_take()) instead of taking it: a lease after the
 * upgrade at the soonest, whatever the old programs did. */
static int seed_unseen(int fd, const struct migrate_plan *p)
{
	(void)fd;
	(void)p;
	return 0;
}

/* Rows of the per-slot maps this upgrade makes (plan_rx_rows()). */
static __u32 upgrade_rx_rows(const struct migrate_plan *p)
{
	return p->rx_rows ? p->rx_rows : STEER_RX_SLOTS;
}

/* steer_rx_pool: every slot taken, each by its CPU (seed_identity()), and
 * a CPU that may have queued unnamed: now (the old programs). */
static int seed_pool(int fd, const struct migrate_plan *p)
{
	/* rows 0: steer_seq and steer_deq, kept, have STEER_RX_SLOTS. */
	struct steer_rx_pool pool = {
		.claimed = upgrade_rx_rows(p),
		.limit = upgrade_rx_rows(p),
	};
	__u32 zero = 0;
	int err;

	err = clock_jiffies(&pool.overflow_tick);
	if (err)
		return err;
	pool.overflow_tick += !pool.overflow_tick;
	return bpf_map_update_elem(fd, &zero, &pool, BPF_ANY) ? -errno : 0;
}

/* Why the slot maps cannot be created now, or NULL. */
static const char *slots_refused(const struct migrate_plan *p)
{
	if (!created(p, STEER_STR(steer_rx_pool)) ||
	    !created(p, STEER_STR(steer_rx_slot)) ||
	    !created(p, STEER_STR(steer_rx_cpu)))
		return "steer_rx_pool, steer_rx_slot and steer_rx_cpu are made together (slot = CPU id), and some of them are pinned already";
	return NULL;
}

/* The members of 'nt' in 'nb' get those of the same name and size in
 * 'ot' of 'ob'; the others stay as they are (zeros). */
static int copy_by_name(const struct btf *ob, __u32 ot, const void *ov,
			const struct btf *nb, __u32 nt, void *nv)
{
	const struct btf_type *o, *n;
	const struct btf_member *om, *nm;
	int i, j;

	o = btf__type_by_id(ob, btf__resolve_type(ob, ot));
	n = btf__type_by_id(nb, btf__resolve_type(nb, nt));
	if (!o || !n || !btf_is_struct(o) || !btf_is_struct(n))
		return -EPROTO;
	nm = btf_members(n);
	for (i = 0; i < btf_vlen(n); i++, nm++) {
		const char *name = btf__name_by_offset(nb, nm->name_off);
		__s64 nsz = btf__resolve_size(nb, nm->type);

		if (!name || !*name || btf_member_bitfield_size(n, i) ||
		    nsz <= 0)
			continue;
		om = btf_members(o);
		for (j = 0; j < btf_vlen(o); j++, om++) {
			const char *oname = btf__name_by_offset(ob, om->name_off);

			if (!oname || strcmp(oname, name) ||
			    btf_member_bitfield_size(o, j) ||
			    btf__resolve_size(ob, om->type) != nsz)
				continue;
			memcpy((char *)nv + btf_member_bit_offset(n, i) / 8,
			       (const char *)ov + btf_member_bit_offset(o, j) / 8,
			       nsz);
			break;
		}
	}
	return 0;
}

/* Why a map cannot be rebuilt by copy: no BTF to tell its fields. */
static const char *copy_refused(const struct migrate_map *mm)
{
	return mm->old.btf_id && mm->old.btf_value_type_id ? NULL :
	       "the pinned map has no BTF, so its fields cannot be told apart";
}

static const char *stats_refused(const struct migrate_plan *p)
{
	return copy_refused(plan_map(p, STEER_STR(steer_stats)));
}

static int open_pool_map(const struct migrate_plan *p, const char *name);

/* Rows of steer_seq, steer_deq and steer_rx_cpu after this upgrade:
 * steer_rx_cpu's kept, or made at the object's size (STEER_RX_SLOTS). */
static __u32 plan_slot_rows(const struct migrate_plan *p)
{
	const struct migrate_map *mm = plan_map(p, STEER_STR(steer_rx_cpu));

	return mm && mm->way == MIGRATE_KEEP ? mm->old.max_entries :
	       STEER_RX_SLOTS;
}

/* The span S after this upgrade: the pinned maps' (steer_wdone's
 * entries / 2, kept whatever their size: same_layout()), which the
 * programs loaded on them are told (kernel/prog.c prog_span()). */
static __u32 plan_span(const struct migrate_plan *p)
{
	int span = prog_span(p->dir);

	return span > 0 ? (__u32)span : STEER_MAX_CPUS;
}

/* The slot CPU 'c' holds after this upgrade, or -1: the identity slot
 * where the slot maps are made now (seed_identity()), else its entry of
 * the pinned steer_rx_slot ('fd'). */
static int slot_after(const struct migrate_plan *p, int fd, __u32 c)
{
	__u32 v = 0;

	if (created(p, STEER_STR(steer_rx_slot)))
		return c < STEER_RX_SLOTS ? (int)c : -1;
	if (fd < 0 || bpf_map_lookup_elem(fd, &c, &v) || !v ||
	    v - 1 >= plan_slot_rows(p))
		return -1;
	return (int)v - 1;
}

/*
 * steer_queued, made by this upgrade beside a steer_stats whose value
 * held queued[] (a target CPU's packets and bytes per receiving CPU, 4
 * KiB per possible CPU): each CPU's queued[] added into the row of the
 * slot it holds, or the row of CPUs without one (the last), just after
 * steer_stats is copied ('ov', 'osz' bytes per possible CPU). The stats
 * read per worker the sum of the rows, so what was sent never goes back;
 * what the old program queues after this read is lost, as the other
 * counters' (this file's header).
 */
static int fill_queued(const struct btf *ob, __u32 ot, const char *ov,
		       size_t osz, const struct migrate_plan *p)
{
	const struct possible_cpus *pc = possible_cpus();
	const struct btf_type *o;
	const struct btf_member *om;
	struct steer_cpu_stats *rows = NULL;
	const struct steer_cpu_stats *q;
	char path[PATH_MAX + 64];
	__u32 nrows = plan_slot_rows(p) + 1, span = plan_span(p), off = 0;
	__u32 n = 0, k;
	int i, j, fd = -1, slots = -1, s, err = 0;

	o = btf__type_by_id(ob, btf__resolve_type(ob, ot));
	if (!pc || !o || !btf_is_struct(o))
		return -EPROTO;
	om = btf_members(o);
	for (j = 0; j < btf_vlen(o); j++, om++) {
		const char *name = btf__name_by_offset(ob, om->name_off);

		if (name && !strcmp(name, "queued")) {
			off = btf_member_bit_offset(o, j) / 8;
			n = (__u32)(btf__resolve_size(ob, om->type) /
				    (__s64)sizeof(*q));
		}
	}
	if (!n)
		return 0;	/* none there: nothing to carry */
	n = n < span ? n : span;
	snprintf(path, sizeof(path), "%s/%s" MIGRATE_STAGED, p->dir,
		 STEER_STR(steer_queued));
	fd = bpf_obj_get(path);
	slots = open_pool_map(p, STEER_STR(steer_rx_slot));
	rows = calloc((size_t)nrows * span, sizeof(*rows));
	err = fd < 0 ? -errno : !rows ? -ENOMEM : 0;
	for (i = 0; !err && i < pc->count; i++) {
		s = slot_after(p, slots, pc->id[i]);
		s = s >= 0 ? s : (int)nrows - 1;
		q = (const void *)(ov + (size_t)i * osz + off);
		for (k = 0; k < n; k++) {
			rows[(size_t)s * span + k].packets += q[k].packets;
			rows[(size_t)s * span + k].bytes += q[k].bytes;
		}
	}
	if (!err)
		err = maps_write_array(fd, 0, rows, sizeof(*rows),
				       nrows * span);
	if (fd >= 0)
		close(fd);
	if (slots >= 0)
		close(slots);
	free(rows);
	return err;
}

/* steer_queued, made with steer_stats rebuilt: filled by rebuild_stats()
 * from the old value's queued[], just before the swap; zeros till then. */
static int seed_queued(int fd, const struct migrate_plan *p)
{
	(void)fd;
	(void)p;
	return 0;
}

static const char *queued_refused(const struct migrate_plan *p)
{
	return rebuilt(p, STEER_STR(steer_stats)) ? NULL :
	       "steer_stats is kept, so its queued counts cannot be carried over into it";
}

/* steer_stats: per CPU, the old value's fields by name; caches reset. */
static int rebuild_stats(int old_fd, int new_fd, const struct migrate_plan *p)
{
	const struct migrate_map *mm = plan_map(p, STEER_STR(steer_stats));
	const struct possible_cpus *pc = possible_cpus();
	struct btf *ob = NULL, *nb = NULL;
	struct bpf_map_info info = {};
	__u32 ilen = sizeof(info), zero = 0, c;
	size_t osz, nsz = sizeof(struct steer_stats);
	char *ov = NULL;
	struct steer_stats *nv = NULL;
	int i, err;

	if (!pc)
		return -errno;
	if (bpf_obj_get_info_by_fd(new_fd, &info, &ilen))
		return -errno;
	osz = (mm->old.value_size + 7) & ~7u;
	ov = calloc(pc->count, osz);
	nv = calloc(pc->count, nsz);
	ob = btf__load_from_kernel_by_id(mm->old.btf_id);
	nb = info.btf_id ? btf__load_from_kernel_by_id(info.btf_id) : NULL;
	err = !ov || !nv ? -ENOMEM : !ob || !nb ? -EPROTO : 0;
	if (!err && bpf_map_lookup_elem(old_fd, &zero, ov))
		err = -errno;
	for (i = 0; !err && i < pc->count; i++) {
		err = copy_by_name(ob, mm->old.btf_value_type_id, ov + i * osz,
				   nb, info.btf_value_type_id, &nv[i]);
		c = pc->id[i];
		nv[i].rxq_mine = 0;
		if (created(p, STEER_STR(steer_rx_slot)))
			nv[i].rx_slot = c < STEER_RX_SLOTS ? c + 1 : 0;
	}
	if (!err && bpf_map_update_elem(new_fd, &zero, nv, BPF_ANY))
		err = -errno;
	if (!err && created(p, STEER_STR(steer_queued)))
		err = fill_queued(ob, mm->old.btf_value_type_id, ov, osz, p);
	btf__free(ob);
	btf__free(nb);
	free(ov);
	free(nv);
	return err;
}

/* A map the datapath only reads and only an apply writes (flow_rules):
 * every entry copied as it is. The loader holds the interface's lock
 * through the upgrade, so no apply writes either map meanwhile, and the
 * old program reads the old map until the swap: the copy is the map. */
static int rebuild_entries(int old_fd, int new_fd,
			   const struct migrate_plan *p, const char *name)
{
	const struct migrate_map *mm = plan_map(p, name);
	void *key, *next, *val;
	int err = 0, end;

	key = calloc(1, mm->old.key_size);
	next = calloc(1, mm->old.key_size);
	val = calloc(1, (mm->old.value_size + 7) & ~7u);
	if (!key || !next || !val) {
		err = -ENOMEM;
		goto out;
	}
	end = bpf_map_get_next_key(old_fd, NULL, next) ? errno : 0;
	while (!end && !err) {
		memcpy(key, next, mm->old.key_size);
		end = bpf_map_get_next_key(old_fd, key, next) ? errno : 0;
		if (bpf_map_lookup_elem(old_fd, key, val))
			err = -errno;
		else if (bpf_map_update_elem(new_fd, key, val, BPF_NOEXIST))
			err = -errno;
	}
	if (!err && end != ENOENT)
		err = -end;
out:
	free(key);
	free(next);
	free(val);
	return err;
}

/* flow_rules: preallocated before BPF_F_NO_PREALLOC; same keys and values. */
static int rebuild_flow_rules(int old_fd, int new_fd,
			      const struct migrate_plan *p)
{
	return rebuild_entries(old_fd, new_fd, p, STEER_STR(flow_rules));
}

/* Why flow_rules cannot be rebuilt by copying entries, or NULL. */
static const char *flow_rules_refused(const struct migrate_plan *p)
{
	const struct migrate_map *mm = plan_map(p, STEER_STR(flow_rules));

	return mm->old.type == mm->want.type &&
	       mm->old.key_size == mm->want.key_size &&
	       mm->old.value_size == mm->want.value_size &&
	       mm->old.max_entries <= mm->want.max_entries ? NULL :
	       "its keys or values are not this version's, so its entries cannot be copied";
}

/* The pool map as this upgrade has it: the staged one when created. */
static int open_pool_map(const struct migrate_plan *p, const char *name)
{
	char path[PATH_MAX + 64];

	if (created(p, name))
		snprintf(path, sizeof(path), "%s/%s" MIGRATE_STAGED, p->dir,
			 name);
	else
		snprintf(path, sizeof(path), "%s/%s", p->dir, name);
	return bpf_obj_get(path);
}

/* The pinned pool's limit set to 'limit' by bpf/pool_mark.bpf.c (one
 * store beside the claims); *claimed: its claims read after it. */
static int set_pool_limit(const char *dir, __u32 limit, __u32 *claimed)
{
	struct steer_pool_limit_args a = { .limit = limit };
	/* A syscall program's context is copied back to ctx_in. */
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &a,
		    .ctx_size_in = sizeof(a));
	char path[PATH_MAX + 64];
	struct pool_mark_bpf *skel;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", dir, STEER_STR(steer_rx_pool));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	skel = pool_mark_bpf__open();
	err = skel ? bpf_map__reuse_fd(skel->maps.steer_rx_pool, fd) : -errno;
	if (!err)
		err = pool_mark_bpf__load(skel);
	if (!err)
		err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.steer_pool_limit),
					     &opts);
	if (!err && opts.retval)
		err = -ENOENT;
	pool_mark_bpf__destroy(skel);
	close(fd);
	*claimed = a.claimed;
	return err;
}

/*
 * The rows of the per-slot maps this upgrade makes (p->rx_rows). A pool
 * made now (slot = CPU id): the possible span, at most STEER_RX_SLOTS. A
 * pinned pool of an older version hands out up to 256 slots: it is
 * lowered to what a fresh attach would have (prog_rx_slots_for()), or to
 * the slots already taken if more, so the maps are not 256 rows. A claim
 * racing the store took a slot below the claims read after it
 * (set_pool_limit()): while that is above the limit, the limit rises to
 * it and is set again. An upgrade refused after this leaves the lower
 * limit: the old programs' CPUs past it, if any, find no slot.
 */
static int plan_rx_rows(struct migrate_plan *p)
{
	struct steer_rx_pool pool = { 0 };
	__u32 zero = 0, limit, old, claimed;
	const char *ifname = strrchr(p->dir, '/');
	int span = possible_span(), fd, err, n;

	if (!rebuilt(p, STEER_STR(steer_buckets)) &&
	    !created(p, STEER_STR(steer_buckets)))
		return 0;
	if (created(p, STEER_STR(steer_rx_pool))) {
		if (span < 0)
			return span;
		p->rx_rows = span < STEER_RX_SLOTS ? (__u32)span : STEER_RX_SLOTS;
		return 0;
	}
	fd = open_pool_map(p, STEER_STR(steer_rx_pool));
	if (fd < 0)
		return -errno;
	err = bpf_map_lookup_elem(fd, &zero, &pool) ? -errno : 0;
	close(fd);
	if (err)
		return err;
	old = pool.limit && pool.limit < STEER_RX_SLOTS ? pool.limit :
							  STEER_RX_SLOTS;
	n = prog_rx_slots_for(ifname ? ifname + 1 : NULL);
	if (n < 0)
		return n;
	limit = (__u32)n < old ? (__u32)n : old;
	claimed = steer_rx_pool_used(&pool);
	while (claimed > limit || !p->rx_rows) {
		limit = claimed > limit ? claimed : limit;
		p->rx_rows = limit;
		err = set_pool_limit(p->dir, limit, &claimed);
		if (err)
			return err;
		claimed = claimed < old ? claimed : old;
	}
	return 0;
}

/*
 * steer_buckets, steer_load from their per-CPU layout (before per-slot
 * rows): CPU c's row becomes the row of the slot c holds (steer_rx_slot,
 * the identity slot when seeded above). The upgrade quiesces first
 * (lib/upgrade.c): with the interface's lock held, no drain starts, and
 * it waits until none is under way (no warm-up open, no record
 * draining), else refuses. Why: a record copied before a drain completes
 * and read after the swap would send a frame to the old worker after
 * later frames went to the new one. The copy lags the old map by the
 * frames of the microseconds before the swap (a fast path's last and
 * poll); so no bucket moves until the drain timeout has passed since the
 * swap (lib/upgrade.c waits before its apply): by then every bucket
 * that had a frame has its record written by the new program, and a
 * record left stale is older than the timeout, as the true one is, and
 * both decide "cold" alike. A CPU that holds no slot had only fast-path
 * records (a CPU claims one before it queues under drain); its rows are
 * left out: it claims a slot at its next table frame, and its buckets
 * arrive there cold, as after any idle time.
 */
static int rebuild_per_slot(int old_fd, int new_fd,
			    const struct migrate_plan *p, const char *name)
{
	const struct migrate_map *mm = plan_map(p, name);
	const struct possible_cpus *pc = possible_cpus();
	size_t vsz = (mm->old.value_size + 7) & ~7u;
	__u32 rows = upgrade_rx_rows(p), k, key, c, slot;
	int i, err = 0, slot_fd;
	char *v = NULL;

	if (!pc)
		return -errno;
	slot_fd = open_pool_map(p, STEER_STR(steer_rx_slot));
	if (slot_fd < 0)
		return -errno;
	v = calloc(pc->count, vsz);
	if (!v) {
		close(slot_fd);
		return -ENOMEM;
	}
	for (k = 0; k < mm->old.max_entries && k < STEER_TABLE_MAX && !err; k++) {
		if (bpf_map_lookup_elem(old_fd, &k, v)) {
			err = -errno;
			break;
		}
		for (i = 0; i < pc->count && !err; i++) {
			c = pc->id[i];
			if (bpf_map_lookup_elem(slot_fd, &c, &slot) || !slot ||
			    slot - 1 >= rows)
				continue;
			key = (slot - 1) * STEER_TABLE_MAX + k;
			if (bpf_map_update_elem(new_fd, &key, v + i * vsz,
						BPF_ANY))
				err = -errno;
		}
	}
	free(v);
	close(slot_fd);
	return err;
}

static int rebuild_buckets(int old_fd, int new_fd,
			   const struct migrate_plan *p)
{
	return rebuild_per_slot(old_fd, new_fd, p, STEER_STR(steer_buckets));
}

static int rebuild_load(int old_fd, int new_fd, const struct migrate_plan *p)
{
	return rebuild_per_slot(old_fd, new_fd, p, STEER_STR(steer_load));
}

/* Why a per-slot map cannot be made from the pinned one, or NULL. */
static const char *per_slot_refused(const struct migrate_plan *p,
				    const char *name, size_t value_size)
{
	const struct migrate_map *mm = plan_map(p, name);

	return mm->old.type == BPF_MAP_TYPE_PERCPU_ARRAY &&
	       mm->old.key_size == sizeof(__u32) &&
	       mm->old.value_size == value_size &&
	       mm->old.max_entries == STEER_TABLE_MAX ? NULL :
	       "it is neither the per-CPU layout of before receiver slots' rows nor this version's";
}

static const char *buckets_refused(const struct migrate_plan *p)
{
	return per_slot_refused(p, STEER_STR(steer_buckets),
				sizeof(struct steer_bucket));
}

static const char *load_refused(const struct migrate_plan *p)
{
	return per_slot_refused(p, STEER_STR(steer_load),
				sizeof(struct steer_load));
}

/*
 * One row per map whose layout changed between versions, or that a
 * version added: 'seed' fills it when it is created, 'rebuild' makes it
 * from the old one just before the swap; 'refused' says why the way does
 * not apply to this plan (NULL: it does); 'why' says why a missing map
 * without a way cannot be made.
 */
static const struct way {
	const char *name;
	int (*seed)(int fd, const struct migrate_plan *p);
	int (*rebuild)(int old_fd, int new_fd, const struct migrate_plan *p);
	const char *(*refused)(const struct migrate_plan *p);
	const char *why;
} ways[] = {
	{ STEER_STR(steer_rx_pool), seed_pool, NULL, slots_refused, NULL },
	{ STEER_STR(steer_rx_slot), seed_identity, NULL, slots_refused, NULL },
	{ STEER_STR(steer_rx_cpu), seed_identity, NULL, slots_refused, NULL },
	{ STEER_STR(steer_rx_lease), seed_unseen, NULL, NULL, NULL },
	{ STEER_STR(steer_stats), NULL, rebuild_stats, stats_refused, NULL },
	{ STEER_STR(flow_rules), NULL, rebuild_flow_rules,
	  flow_rules_refused, NULL },
	{ STEER_STR(steer_buckets), NULL, rebuild_buckets, buckets_refused,
	  NULL },
	{ STEER_STR(steer_load), NULL, rebuild_load, load_refused, NULL },
	{ STEER_STR(steer_queued), seed_queued, NULL, queued_refused, NULL },
	/* The drain by exact counts (117e363) added these: the version
	 * before waited out a timeout, and its buckets in mid-drain have
	 * no evidence this version could wait on. */
	{ STEER_STR(steer_wdone), NULL, NULL, NULL,
	  "the running version's drain waits out a timeout (a design before 117e363), where this version's waits on the workers' exact reports (steer_wdone): a bucket it moves has no evidence this version could wait on" },
};

static const struct way *way_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(ways) / sizeof(ways[0]); i++)
		if (!strcmp(ways[i].name, name))
			return &ways[i];
	return NULL;
}

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

int migrate_plan(const char *dir, struct migrate_plan *p, char *why,
		 size_t len)
{
	char path[PATH_MAX + 64], a[128], b[128];
	const struct way *w;
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
			snprintf(why, len, "cannot read the map pinned at %s: %s",
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

		w = way_of(mm->name);
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
			snprintf(why, len, "the running version has no map %s (this version's: %s): %s; nothing was changed; 'xdp-steer detach', then attach again, to upgrade",
				 mm->name, b, no ? no : "no way to make it under a running program is registered (loader/kernel/migrate.c)");
		} else {
			layout_str(&mm->old, a, sizeof(a));
			snprintf(why, len, "map %s's layout changed (pinned: %s; this version's: %s): %s; nothing was changed; 'xdp-steer detach', then attach again, to upgrade",
				 mm->name, a, b, no ? no : "no way to carry it over is registered (loader/kernel/migrate.c)");
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
		mm = plan_map(p, bpf_map__name(map));
		if (!mm)
			continue;
		if (mm->way == MIGRATE_KEEP) {
			err = bpf_map__set_max_entries(map, mm->old.max_entries);
		} else {
			staged_path(p->dir, mm->name, path, sizeof(path));
			err = bpf_map__set_pin_path(map, path);
			if (!err && per_slot(mm->name))
				err = bpf_map__set_max_entries(map,
					upgrade_rx_rows(p) * STEER_TABLE_MAX);
			/* As steer_rx_cpu's rows, kept or made. */
			if (!err && !strcmp(mm->name, STEER_STR(steer_rx_lease)))
				err = bpf_map__set_max_entries(map,
					plan_slot_rows(p));
			/* A row of the span per slot, and one more. */
			if (!err && !strcmp(mm->name, STEER_STR(steer_queued)))
				err = bpf_map__set_max_entries(map,
					(plan_slot_rows(p) + 1) * plan_span(p));
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

int migrate_stage(struct migrate_plan *p, char *why, size_t len)
{
	char path[PATH_MAX + 64];
	const struct way *w;
	int i, fd, err;

	migrate_unstage(p->dir);
	err = plan_rx_rows(p);
	if (err) {
		snprintf(why, len, "sizing the receiver slots' maps of %s failed: %s",
			 p->dir, strerror(-err));
		goto fail;
	}
	err = stage_maps(p);
	if (err) {
		snprintf(why, len, "creating this version's maps beside those pinned in %s failed: %s; -v shows libbpf's message",
			 p->dir, strerror(-err));
		goto fail;
	}
	for (i = 0; i < p->nmaps; i++) {
		const struct migrate_map *mm = &p->map[i];

		w = way_of(mm->name);
		if (mm->way != MIGRATE_CREATE || !w || !w->seed)
			continue;
		staged_path(p->dir, mm->name, path, sizeof(path));
		fd = bpf_obj_get(path);
		err = fd < 0 ? -errno : w->seed(fd, p);
		if (fd >= 0)
			close(fd);
		if (err) {
			snprintf(why, len, "seeding the new map %s failed: %s",
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
	struct pool_mark_bpf *skel;
	int fd, err;

	if (staged)
		staged_path(dir, STEER_STR(steer_rx_pool), path, sizeof(path));
	else
		snprintf(path, sizeof(path), "%s/%s", dir,
			 STEER_STR(steer_rx_pool));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	skel = pool_mark_bpf__open();
	err = skel ? bpf_map__reuse_fd(skel->maps.steer_rx_pool, fd) : -errno;
	if (!err)
		err = pool_mark_bpf__load(skel);
	if (!err)
		err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.steer_pool_mark),
					     &opts);
	pool_mark_bpf__destroy(skel);
	close(fd);
	return err;
}

int migrate_before_swap(const struct migrate_plan *p, char *why, size_t len)
{
	char path[PATH_MAX + 64];
	const struct way *w;
	int i, ofd, nfd, err = 0;

	for (i = 0; i < p->nmaps && !err; i++) {
		const struct migrate_map *mm = &p->map[i];

		w = way_of(mm->name);
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
			snprintf(why, len, "rebuilding map %s from the pinned one failed: %s",
				 mm->name, strerror(-err));
	}
	if (!err && rebuilt(p, STEER_STR(steer_stats))) {
		err = mark_unnamed_queuers(p->dir,
					   created(p, STEER_STR(steer_rx_pool)));
		if (err)
			snprintf(why, len, "marking steer_rx_pool failed: %s",
				 strerror(-err));
	}
	return err;
}

int migrate_after_swap(const struct migrate_plan *p, char *why, size_t len)
{
	int err;

	if (!rebuilt(p, STEER_STR(steer_stats)))
		return 0;
	err = mark_unnamed_queuers(p->dir,
				   created(p, STEER_STR(steer_rx_pool)));
	if (err)
		snprintf(why, len, "marking steer_rx_pool failed: %s",
			 strerror(-err));
	return err;
}

int migrate_finish(const char *dir, char *why, size_t len)
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
			snprintf(why, len, "renaming %s over %s failed: %s",
				 from, to, strerror(-err));
			return err;
		}
	}
	/* Once more, for a run killed between the swap and here. */
	err = stats ? mark_unnamed_queuers(dir, false) : 0;
	if (err)
		snprintf(why, len, "marking steer_rx_pool failed: %s",
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

int migrate_settle(const char *dir, __u32 prog_id, char *why, size_t len)
{
	int used, err;

	if (migrate_staged(dir) <= 0)
		return 0;
	used = uses_staged(dir, prog_id);
	if (used < 0) {
		snprintf(why, len, "reading program %u failed: %s", prog_id,
			 strerror(-used));
		return used;
	}
	if (!used) {
		struct steer_maps m;

		/* Killed before the swap: an incoming tracepoint set loaded
		 * on the staged maps would count into maps nothing reads. */
		if (!migrate_maps_open(dir, &m, NULL)) {
			err = trace_handover_abort(&m, why, len);
			maps_close(&m);
			if (err < 0)
				return err;
		}
		migrate_unstage(dir);
		return 2;
	}
	err = migrate_finish(dir, why, len);
	return err ? err : 1;
}
