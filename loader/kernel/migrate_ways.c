// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * migrate_ways.c - one row per map whose layout changed between versions
 * (ways[] below): how an upgrade in place creates and seeds it, or
 * rebuilds it from the old one, and when it refuses; the only place that
 * knows what changed between versions (migrate.h, migrate_ways.h).
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

#include "xdp_steer/sizes.h"
#include "xdp_steer/names.h"
#include "xdp_steer/stats.h"
#include "xdp_steer/balance.h"
#include "xdp_steer/drain.h"
#include "xdp_steer/rx_slots.h"
#include "pool_mark.skel.h"
#include "kernel/clock.h"
#include "kernel/map_numa.h"
#include "kernel/migrate.h"
#include "kernel/migrate_ways.h"
#include "kernel/possible.h"
#include "kernel/prog.h"
#include "kernel/prog_size.h"

const struct migrate_map *migrate_plan_map(const struct migrate_plan *p,
					  const char *name)
{
	int i;

	for (i = 0; i < p->nmaps; i++)
		if (!strcmp(p->map[i].name, name))
			return &p->map[i];
	return NULL;
}

bool migrate_created(const struct migrate_plan *p, const char *name)
{
	const struct migrate_map *mm = migrate_plan_map(p, name);

	return mm && mm->way == MIGRATE_CREATE;
}

bool migrate_rebuilt(const struct migrate_plan *p, const char *name)
{
	const struct migrate_map *mm = migrate_plan_map(p, name);

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

/* Rows of the per-slot maps this upgrade makes (migrate_plan_rx_rows()). */
__u32 migrate_rx_rows(const struct migrate_plan *p)
{
	return p->rx_rows ? p->rx_rows : STEER_RX_SLOTS;
}

/* steer_rx_pool: every slot taken, each by its CPU (seed_identity()), and
 * a CPU that may have queued unnamed: now (the old programs). */
static int seed_pool(int fd, const struct migrate_plan *p)
{
	/* rows 0: steer_seq and steer_deq, kept, have STEER_RX_SLOTS. */
	struct steer_rx_pool pool = {
		.claimed = migrate_rx_rows(p),
		.limit = migrate_rx_rows(p),
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
	if (!migrate_created(p, STEER_STR(steer_rx_pool)) ||
	    !migrate_created(p, STEER_STR(steer_rx_slot)) ||
	    !migrate_created(p, STEER_STR(steer_rx_cpu)))
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
	return copy_refused(migrate_plan_map(p, STEER_STR(steer_stats)));
}

static int open_pool_map(const struct migrate_plan *p, const char *name);

/* Rows of steer_seq, steer_deq and steer_rx_cpu after this upgrade:
 * steer_rx_cpu's kept, or made at the object's size (STEER_RX_SLOTS). */
__u32 migrate_slot_rows(const struct migrate_plan *p)
{
	const struct migrate_map *mm = migrate_plan_map(p, STEER_STR(steer_rx_cpu));

	return mm && mm->way == MIGRATE_KEEP ? mm->old.max_entries :
	       STEER_RX_SLOTS;
}

/* The span S after this upgrade: the pinned maps' (steer_wdone's
 * entries / 2, kept whatever their size: same_layout()), which the
 * programs loaded on them are told (kernel/prog.c prog_span()). */
__u32 migrate_span(const struct migrate_plan *p)
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

	if (migrate_created(p, STEER_STR(steer_rx_slot)))
		return c < STEER_RX_SLOTS ? (int)c : -1;
	if (fd < 0 || bpf_map_lookup_elem(fd, &c, &v) || !v ||
	    v - 1 >= migrate_slot_rows(p))
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
	__u32 nrows = migrate_slot_rows(p) + 1, span = migrate_span(p), off = 0;
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
	return migrate_rebuilt(p, STEER_STR(steer_stats)) ? NULL :
	       "steer_stats is kept, so its queued counts cannot be carried over into it";
}

/* steer_stats: per CPU, the old value's fields by name; caches reset. */
static int rebuild_stats(int old_fd, int new_fd, const struct migrate_plan *p)
{
	const struct migrate_map *mm = migrate_plan_map(p, STEER_STR(steer_stats));
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
		if (migrate_created(p, STEER_STR(steer_rx_slot)))
			nv[i].rx_slot = c < STEER_RX_SLOTS ? c + 1 : 0;
	}
	if (!err && bpf_map_update_elem(new_fd, &zero, nv, BPF_ANY))
		err = -errno;
	if (!err && migrate_created(p, STEER_STR(steer_queued)))
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
	const struct migrate_map *mm = migrate_plan_map(p, name);
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
	const struct migrate_map *mm = migrate_plan_map(p, STEER_STR(flow_rules));

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

	if (migrate_created(p, name))
		snprintf(path, sizeof(path), "%s/%s" MIGRATE_STAGED, p->dir,
			 name);
	else
		snprintf(path, sizeof(path), "%s/%s", p->dir, name);
	return bpf_obj_get(path);
}

int migrate_pool_run(const char *path, bool limit,
		     struct bpf_test_run_opts *opts)
{
	struct pool_mark_bpf *skel;
	int fd, err;

	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	skel = pool_mark_bpf__open();
	err = skel ? bpf_map__reuse_fd(skel->maps.steer_rx_pool, fd) : -errno;
	if (!err)
		err = pool_mark_bpf__load(skel);
	if (!err)
		err = bpf_prog_test_run_opts(bpf_program__fd(limit ?
						skel->progs.steer_pool_limit :
						skel->progs.steer_pool_mark),
					     opts);
	pool_mark_bpf__destroy(skel);
	close(fd);
	return err;
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
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, STEER_STR(steer_rx_pool));
	err = migrate_pool_run(path, true, &opts);
	if (!err && opts.retval)
		err = -ENOENT;
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
int migrate_plan_rx_rows(struct migrate_plan *p)
{
	struct steer_rx_pool pool = { 0 };
	__u32 zero = 0, limit, old, claimed;
	const char *ifname = strrchr(p->dir, '/');
	int span = possible_span(), fd, err, n;

	if (!migrate_rebuilt(p, STEER_STR(steer_buckets)) &&
	    !migrate_created(p, STEER_STR(steer_buckets)))
		return 0;
	if (migrate_created(p, STEER_STR(steer_rx_pool))) {
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
	const struct migrate_map *mm = migrate_plan_map(p, name);
	const struct possible_cpus *pc = possible_cpus();
	size_t vsz = (mm->old.value_size + 7) & ~7u;
	__u32 rows = migrate_rx_rows(p), k, key, c, slot;
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
	const struct migrate_map *mm = migrate_plan_map(p, name);

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

/* One row per map whose layout changed between versions, or that a
 * version added (struct migrate_carry, migrate_ways.h). */
static const struct migrate_carry ways[] = {
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

const struct migrate_carry *migrate_carry_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(ways) / sizeof(ways[0]); i++)
		if (!strcmp(ways[i].name, name))
			return &ways[i];
	return NULL;
}
