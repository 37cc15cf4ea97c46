// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * upgrade.c - `attach` where xdp-steer already runs: this binary's
 * programs take the running ones' place while traffic flows, on the same
 * pinned maps, so the policy in force and every drain under way carry on;
 * then the policy given is applied as `apply` would.
 *
 * The XDP program is swapped in one step alone on its interface, in two
 * under libxdp's dispatcher (kernel/prog.c). The cpumap
 * workers of another version get new entries in the other bank, which the
 * apply moves every bucket to through drain, as for a new queue size.
 * Tracepoint programs of another version hand over bank by bank on that
 * same switch (kernel/trace.h): the drain's evidence is exact counts, and
 * each ring stays counted by one set of programs throughout.
 *
 * Maps whose layout is not this version's are carried over as
 * kernel/migrate.h plans: new ones staged beside the pins before
 * anything changes, filled from the old ones just before the swap, and
 * renamed over the old pins right after it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/limits.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/names.h"
#include "xdp_steer/slot.h"
#include "xdp_steer/drain.h"
#include "xdp_steer/stamp.h"
#include "kernel/clock.h"
#include "kernel/cpumap.h"
#include "kernel/failpoint.h"
#include "kernel/maps.h"
#include "kernel/migrate.h"
#include "kernel/prog.h"
#include "kernel/slots.h"
#include "kernel/trace.h"
#include "lib/lib_int.h"

/* 1 when every cpumap entry runs this binary's worker program. */
static int workers_current(struct steer_ctx *ctx, const struct lib_iface *it,
			   const struct steer_maps *m)
{
	struct xdp_steer_bpf *worker;
	int fds[STEER_BANKS], err;
	char why[256];

	err = prog_worker_load(it->dir, &worker);
	if (err)
		return lib_fail(ctx, err, "%s: loading this version's cpumap program failed: %s; -v shows the kernel's message",
				it->ifname, strerror(-err));
	prog_worker_fds(worker, fds);
	err = cpumap_workers_current(m, fds, &WHY(why));
	prog_worker_close(worker);
	if (err < 0)
		return lib_fail(ctx, err, "%s: reading the cpumap programs failed: %s",
				it->ifname, strerror(-err));
	if (!err)
		lib_note(ctx, STEER_INFO, "%s: %s: the apply gives every worker a new entry with this version's",
			 it->ifname, why);
	return err;
}

/* What the upgrade does with the tracepoint programs. */
enum trace_plan {
	TRACE_KEEP,		/* this version's run already */
	TRACE_BEGIN,		/* another version's: hand over */
	TRACE_UNDER_WAY,	/* an earlier upgrade to this version's hands
				 * over still */
};

/* The slot in force; -ENOENT without a policy. */
static int read_active_slot(const struct steer_maps *m, struct steer_slot *slot)
{
	struct steer_ctl ctl;
	__u32 *table;
	int err;

	table = calloc(STEER_TABLE_MAX, sizeof(*table));
	if (!table)
		return -ENOMEM;
	err = slots_read_active(m, &ctl, slot, table);
	free(table);
	return err;
}

/* The bank of the slot in force (0 without a policy). */
static int active_bank(const struct steer_maps *m, __u32 *bank)
{
	struct steer_slot slot;
	int err = read_active_slot(m, &slot);

	*bank = err ? 0 : slot.bank;
	return err == -ENOENT ? 0 : err;
}

/* Decides, before anything changes, what becomes of the tracepoint
 * programs; refuses what cannot be handed over now. */
static int plan_trace(struct steer_ctx *ctx, const struct lib_iface *it,
		      const struct steer_maps *m, __u32 keep,
		      enum trace_plan *plan)
{
	char why[512];
	int err, n;

	err = trace_handover_finish(m, &WHY(why));
	if (err < 0)
		return lib_fail(ctx, err, "%s: settling the tracepoint programs failed: %s",
				it->ifname, why);
	if (err) {
		/* An earlier upgrade's incoming set runs beside the old. */
		err = trace_is_current(m, true, &WHY(why));
		if (!err)
			return lib_fail(ctx, -EBUSY, "%s: cannot upgrade in place now: an earlier upgrade's tracepoint programs still hand over (%s) until the buckets of the old cpumap bank have drained; retry in a few seconds",
					it->ifname, why);
		*plan = TRACE_UNDER_WAY;
		return err < 0 ? lib_fail(ctx, err, "%s: reading the tracepoint programs failed: %s",
					  it->ifname, strerror(-err)) : 0;
	}
	err = trace_is_current(m, false, &WHY(why));
	if (err < 0)
		return lib_fail(ctx, err, "%s: reading the tracepoint programs failed: %s",
				it->ifname, strerror(-err));
	if (err) {
		*plan = TRACE_KEEP;
		return 0;
	}
	/* The incoming set's bank must be empty to start: entries an
	 * interrupted apply left there still drain. */
	n = cpumap_bank_entries(m, !keep);
	if (n)
		return lib_fail(ctx, n < 0 ? n : -EBUSY, n < 0 ?
				"%s: reading the cpumaps failed: %s" :
				"%s: cannot upgrade in place now: %s, and bank %u still holds cpumap entries whose buckets drain; retry in a few seconds",
				it->ifname, n < 0 ? strerror(-n) : why, !keep);
	lib_note(ctx, STEER_INFO, "%s: %s: this version's take over bank by bank as the workers move to new entries",
		 it->ifname, why);
	*plan = TRACE_BEGIN;
	return 0;
}

/* Drain records whose drain began and whose bucket had a frame within
 * the drain timeout (an idle one moves at its next frame, as any cold
 * bucket does): (struct drain_scan). */
struct drain_scan {
	__u32 now, units;
	int n;
};

static int count_draining(__u32 key, const void *values, int ncpus,
			  void *arg)
{
	const struct steer_bucket *b = values;
	struct drain_scan *d = arg;
	int c;

	(void)key;
	for (c = 0; c < ncpus; c++)
		d->n += b[c].since && b[c].last &&
			d->now - b[c].last < d->units;
	return 0;
}

/* Under libxdp's dispatcher both programs run on a frame between the two
 * swaps, each with its own steer_stats: an old program reading a drain
 * record the new one wrote could end the drain early (kernel/migrate_ways.c).
 * No drain starts while we hold the lock; one under way is waited out. */
static int refuse_draining(struct steer_ctx *ctx, const struct lib_iface *it,
			   const struct steer_maps *m)
{
	struct drain_scan d = { 0 };
	struct steer_slot slot;
	int err;

	err = read_active_slot(m, &slot);
	if (err == -ENOENT)
		return 0;	/* no policy: nothing drains */
	if (!err)
		err = clock_jiffies(&d.now);
	d.units = slot.drain_units;
	if (!err)
		err = maps_rx_scan(m, m->steer_buckets,
				   sizeof(struct steer_bucket), count_draining,
				   &d);
	if (err)
		return lib_fail(ctx, err, "%s: reading the drain records failed: %s",
				it->ifname, strerror(-err));
	if (d.n)
		return lib_fail(ctx, -EBUSY, "%s: cannot upgrade in place now: %d drain records are under way, and under libxdp's dispatcher the two versions' programs keep apart counts while both run; nothing was changed; retry in a few seconds",
				it->ifname, d.n);
	return 0;
}

/* Tries of quiesce() before it refuses, a drain timeout apart. */
#define QUIESCE_TRIES	20

static bool plan_rebuilds(const struct migrate_plan *p, const char *name)
{
	int i;

	for (i = 0; i < p->nmaps; i++)
		if (!strcmp(p->map[i].name, name))
			return p->map[i].way == MIGRATE_REBUILD;
	return false;
}

/* Drain records under way in the pinned per-CPU steer_buckets of an
 * older version, and whether a warm-up is open; 0 or a negative errno. */
static int old_draining(const struct lib_iface *it, const struct steer_maps *m,
			const struct steer_slot *slot, int *n)
{
	struct drain_scan d = { 0 };
	struct steer_window w = { 0 };
	char path[PATH_MAX + 64];
	__u32 zero = 0;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", it->dir, STEER_STR(steer_buckets));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	d.units = slot->drain_units;
	err = clock_jiffies(&d.now);
	if (!err)
		err = maps_percpu_scan(fd, STEER_TABLE_MAX,
				       sizeof(struct steer_bucket),
				       count_draining, &d);
	close(fd);
	if (!err && bpf_map_lookup_elem(m->steer_window, &zero, &w))
		err = -errno;
	*n = d.n + !!w.open;
	return err;
}

/* steer_buckets rebuilt from its per-CPU layout (kernel/migrate_ways.c says
 * why): no drain may be under way at the copy. We hold the lock, so none
 * starts; one under way is waited out, a drain timeout at a time, and
 * after QUIESCE_TRIES the upgrade is refused. *wait_ms gets the drain
 * timeout: no bucket moves until it has passed after the swap. */
static int quiesce(struct steer_ctx *ctx, const struct lib_iface *it,
		   const struct steer_maps *m, const struct migrate_plan *p,
		   __u32 *wait_ms)
{
	struct steer_slot slot;
	struct steer_ctl ctl;
	struct timespec pause;
	__u32 *table;
	int err, n = 0, i;

	*wait_ms = 0;
	if (!plan_rebuilds(p, STEER_STR(steer_buckets)))
		return 0;
	table = calloc(STEER_TABLE_MAX, sizeof(*table));
	if (!table)
		return -ENOMEM;
	err = slots_read_active(m, &ctl, &slot, table);
	free(table);
	if (err == -ENOENT)
		return 0;	/* no policy: nothing drains */
	for (i = 0; !err && i < QUIESCE_TRIES; i++) {
		err = old_draining(it, m, &slot, &n);
		if (err || !n)
			break;
		pause.tv_sec = slot.drain_ms / 1000;
		pause.tv_nsec = (long)(slot.drain_ms % 1000) * 1000000L + 1000000L;
		nanosleep(&pause, NULL);
	}
	if (err)
		return lib_fail(ctx, err, "%s: reading the drain records failed: %s",
				it->ifname, strerror(-err));
	if (n)
		return lib_fail(ctx, -EBUSY, "%s: cannot upgrade in place now: drains are still under way after %d drain timeouts, and the drain records are copied to their receiver slots only when none is; nothing was changed; retry in a few seconds",
				it->ifname, QUIESCE_TRIES);
	*wait_ms = slot.drain_ms;
	return 0;
}

static bool plan_has_rebuild(const struct migrate_plan *p)
{
	int i;

	for (i = 0; i < p->nmaps; i++)
		if (p->map[i].way == MIGRATE_REBUILD)
			return true;
	return false;
}

/* Plans the maps (kernel/migrate.h), refusing what cannot be carried
 * over; stages the changed ones. 1 when some were staged. */
static int plan_maps(struct steer_ctx *ctx, const struct lib_iface *it,
		     struct migrate_plan *plan)
{
	char why[1024];
	int err;

	err = migrate_plan(it->dir, plan, &WHY(why));
	if (err)
		return lib_fail(ctx, err, "%s: cannot upgrade in place: %s",
				it->ifname, why);
	if (!plan->changes)
		return 0;
	err = migrate_stage(plan, &WHY(why));
	if (err)
		return lib_fail(ctx, err, "%s: %s; nothing was changed",
				it->ifname, why);
	return 1;
}

/* prog_replace()'s hook: the rebuilt maps filled just before the swap. */
static int before_swap(void *arg, struct why *why)
{
	int err = failpoint("migrate-staged");

	if (err) {
		why_set(why, "failpoint migrate-staged");
		return err;
	}
	return migrate_before_swap(arg, why);
}

/* The upgrade of the file's opening comment, in phases: what can refuse
 * (another mode, maps that cannot be carried over, drains a rebuild
 * would cut short or must wait out, tracepoint programs that cannot
 * hand over now), the maps to rebuild staged meanwhile and unstaged on
 * a refusal; the swap (prog_replace(): staged maps filled just before,
 * renamed over the pins just after); the policy applied, workers of
 * another version renewed in the other bank, the handover finished.
 * Until the swap a failure leaves the running program and its policy. */
int lib_upgrade_locked(struct steer_ctx *ctx, const struct lib_iface *it,
		       const struct steer_policy *p,
		       enum xdp_attach_mode mode,
		       struct steer_attach_result *res)
{
	enum trace_plan plan = TRACE_KEEP;
	const char *missing = NULL;
	struct migrate_plan mplan;
	struct prog_swap_hook hook = { before_swap, &mplan };
	struct steer_maps m;
	int staged;
	__u32 new_id = 0, bank, wait_ms = 0;
	char why[512];
	int err, current, in;
	bool renew;

	if (mode != res->at.mode)
		return lib_fail(ctx, -EINVAL, "%s: xdp-steer runs in %s mode (program %u); attaching in %s mode takes 'xdp-steer detach %s' first",
				it->ifname, attach_mode_name(res->at.mode),
				res->at.prog_id, attach_mode_name(mode),
				it->ifname);
	staged = plan_maps(ctx, it, &mplan);
	if (staged < 0)
		return staged;
	err = migrate_maps_open(it->dir, &m, &missing);
	if (err) {
		if (staged)
			migrate_unstage(it->dir);
		return lib_maps_failed(ctx, it, err, missing);
	}
	if (staged && res->at.dispatcher && plan_has_rebuild(&mplan) &&
	    !plan_rebuilds(&mplan, STEER_STR(steer_buckets))) {
		err = refuse_draining(ctx, it, &m);
		if (err)
			goto out;
	}
	if (staged) {
		err = quiesce(ctx, it, &m, &mplan, &wait_ms);
		if (err)
			goto out;
	}
	/* Everything that could refuse, before anything changes. */
	err = active_bank(&m, &bank);
	if (err) {
		lib_fail(ctx, err, "%s: reading the policy in force failed: %s",
			 it->ifname, strerror(-err));
		goto out;
	}
	err = plan_trace(ctx, it, &m, bank, &plan);
	if (err)
		goto out;
	current = workers_current(ctx, it, &m);
	if (current < 0) {
		err = current;
		goto out;
	}
	if (plan == TRACE_BEGIN) {
		err = trace_handover_begin(&m, bank, &WHY(why));
		if (err) {
			lib_fail(ctx, err, "%s: starting this version's tracepoint programs failed: %s; nothing was changed",
				 it->ifname, why);
			goto out;
		}
	}
	err = prog_replace(it->dir, it->ifindex, &res->at, &new_id,
			   staged ? &hook : NULL, &WHY(why));
	if (err && staged && new_id) {
		/* Both in the dispatcher: the new one on the staged maps. */
		char also[256];

		migrate_finish(it->dir, &WHY(also));
		staged = 0;
	}
	if (err) {
		lib_fail(ctx, err, "%s: %s; program %u stays, and its policy", it->ifname,
			 why, res->at.prog_id);
		goto undo;
	}
	if (staged) {
		err = migrate_after_swap(&mplan, &WHY(why));
		if (!err && failpoint("migrate-swapped")) {
			err = -EIO;
			snprintf(why, sizeof(why), "failpoint migrate-swapped");
		}
		if (!err)
			err = migrate_finish(it->dir, &WHY(why));
		if (err) {
			lib_fail(ctx, err, "%s: this version's program %u runs on the maps staged in %s, but %s; the next attach or apply finishes it",
				 it->ifname, new_id, it->dir, why);
			staged = 0;	/* they are the program's now */
			goto out;
		}
		res->migrated = mplan.changes;
		staged = 0;
		if (wait_ms) {
			/* No move until the drain timeout has passed since
			 * the swap (quiesce()). */
			struct timespec pause = {
				.tv_sec = wait_ms / 1000,
				.tv_nsec = (long)(wait_ms % 1000) * 1000000L +
					   1000000L,
			};

			nanosleep(&pause, NULL);
		}
	}
	res->upgraded_from = res->at.prog_id;
	res->at.prog_id = new_id;
	/* Workers move to the other bank: those of another version, and
	 * any in a bank the outgoing tracepoint programs count. */
	in = plan == TRACE_KEEP ? 0 : trace_banks(it->dir, true);
	renew = !current || (in > 0 && !(in & (1 << bank)));
	err = lib_apply_renewing(ctx, it, p, renew, &res->apply);
	if (err)
		goto undo;
	if (plan != TRACE_KEEP) {
		err = trace_handover_finish(&m, &WHY(why));
		if (err < 0) {
			lib_fail(ctx, err, "%s: the policy is in force, but handing the tracepoint programs over failed: %s; the next apply tries again",
				 it->ifname, why);
			goto out;
		}
		res->trace_handover = err ? 2 : 1;
		err = 0;
	}
	goto out;
undo:
	if (plan == TRACE_BEGIN)
		trace_handover_abort(&m, &WHY(why));
out:
	/* Staged and not swapped in: nothing uses them. */
	if (staged)
		migrate_unstage(it->dir);
	maps_close(&m);
	return err;
}
